/*
 * reason.c — plan reasons in words, with names (reason.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/budget.h"
#include "fairway/span.h"
#include "reason.h"

static const char *job_name(const struct fw_snapshot *s, int64_t i)
{
	return i >= 0 && i < s->njobs ? s->jobs[i].name : NULL;
}

static const char *queue_name(const struct fw_snapshot *s, int64_t i)
{
	return i >= 0 && i < s->nqueues ? s->queues[i].name : NULL;
}

static const char *node_name(const struct fw_snapshot *s, int64_t i)
{
	return i >= 0 && i < s->nnodes ? s->nodes[i].name : NULL;
}

/* The reasons whose a is a node; false when it is out of range. */
static bool node_text(const struct fw_snapshot *s, enum fw_reason r, int64_t a, int64_t b, char *buf, size_t n)
{
	const char *node = node_name(s, a);
	long long k = (long long)b;

	if (!node)
		return false;
	if (r == FW_REASON_DRAIN_REQUEUE)
		snprintf(buf, n, "drain: node \"%s\" is unhealthy; its %lld running job%s evicted and requeued", node, k,
			 k == 1 ? " is" : "s are");
	else if (r == FW_REASON_DRAIN_FINISH) /* which of the two: the snapshot's */
		snprintf(buf, n, "drain: node \"%s\" is %s; nothing new lands and its %lld running job%s may finish", node,
			 s->nodes[a].health == FW_HEALTH_UNHEALTHY  ? "unhealthy"
			 : s->nodes[a].health == FW_HEALTH_DRAINING ? "draining"
								    : "unhealthy or draining",
			 k, k == 1 ? "" : "s");
	else
		snprintf(buf, n, "evicted: node \"%s\" it runs on is unhealthy and drained; the job is requeued (%lld of "
				 "its tasks %s there)", node, k, k == 1 ? "was" : "were");
	return true;
}

/* The reasons whose a is a job (and b, for evictions, its queue); false
 * when an index is out of range. */
static bool job_text(const struct fw_snapshot *s, enum fw_reason r, int64_t a, int64_t b, char *buf, size_t n)
{
	const char *job = job_name(s, a), *queue = queue_name(s, b);
	char at[FW_TIME_TEXT_MAX];

	if (!job || (!queue && r != FW_REASON_RESERVED && r != FW_REASON_HEAD_OF_LINE &&
		     r != FW_REASON_CHECKPOINT_WAIT))
		return false;
	if (r == FW_REASON_RECLAIMED)
		snprintf(buf, n, "evicted: its queue is above its fair share and job \"%s\" of the starving queue \"%s\" "
				 "takes its GPUs", job, queue);
	else if (r == FW_REASON_PREEMPTED)
		snprintf(buf, n, "evicted: job \"%s\" of higher priority in the same queue (\"%s\") takes its GPUs", job,
			 queue);
	else if (r == FW_REASON_MODEL_RECLAIMED)
		snprintf(buf, n, "evicted: its queue holds more GPUs of a model than it deserves, and job \"%s\" of "
				 "queue \"%s\", below the GPUs of that model it deserves, takes them", job, queue);
	else if (r == FW_REASON_MOVED)
		snprintf(buf, n, "moved: evicted and restarted on other nodes in this plan, to free a domain for gang job "
				 "\"%s\" (queue \"%s\")", job, queue);
	else if (r == FW_REASON_RESERVED)
		snprintf(buf, n, "it fits now but would delay the reservation of job \"%s\" (due at %s); it waits "
				 "rather than push a reserved job back", job, fw_time_format(b, s->config.utc_times, at, sizeof at));
	else if (r == FW_REASON_CHECKPOINT_WAIT)
		snprintf(buf, n, "it takes the GPUs of job \"%s\", which saves a checkpoint at %s: it waits for it "
				 "rather than throw that job's work away", job, fw_time_format(b, s->config.utc_times, at, sizeof at));
	else
		snprintf(buf, n, "blocked behind job \"%s\" (strict order; %lld jobs ahead in its line)", job, (long long)b);
	return true;
}

const char *fw_serve_kind_name(enum fw_decision_kind k, enum fw_reason r)
{
	return k == FW_DECIDE_EVICT && r == FW_REASON_TIME_LIMIT ? FW_SERVE_KIND_TIMEOUT : fw_decision_name(k);
}

char *fw_serve_reason_text(const struct fw_snapshot *s, enum fw_reason r, int64_t a, int64_t b, char *buf, size_t n)
{
	switch (r) {
	case FW_REASON_STARTED:
		snprintf(buf, n, "started: %lld GPU%s", (long long)a, a == 1 ? "" : "s");
		return buf;
	case FW_REASON_DRAIN_REQUEUE:
	case FW_REASON_DRAIN_FINISH:
	case FW_REASON_DRAINED:
		if (node_text(s, r, a, b, buf, n))
			return buf;
		break;
	case FW_REASON_RECLAIMED:
	case FW_REASON_MODEL_RECLAIMED:
	case FW_REASON_PREEMPTED:
	case FW_REASON_MOVED:
	case FW_REASON_RESERVED:
	case FW_REASON_HEAD_OF_LINE:
	case FW_REASON_CHECKPOINT_WAIT:
		if (job_text(s, r, a, b, buf, n))
			return buf;
		break;
	case FW_REASON_MIN_RUNTIME: /* a = the victims' queue, b = when */
		if (queue_name(s, a))
			return fw_reason_format_job(s, -1, r, a, b, buf, n);
		break;
	case FW_REASON_NODES_OUT:   /* names the nodes */
	case FW_REASON_MODEL_LIMIT: /* names the queue and the model */
	case FW_REASON_OVER_QUOTA:  /* names the queue and its limit */
	case FW_REASON_QUEUE_LIMIT:
		return fw_reason_format_job(s, -1, r, a, b, buf, n);
	default:
		break;
	}
	return fw_reason_format_job(s, -1, r, a, b, buf, n); /* a time as s's clock writes it */
}

/* The queue whose run-time limit is b seconds: j's own or the nearest
 * ancestor's that sets exactly b (fw_job_limit: the smallest on the way
 * up), or -1 when none does. */
static int32_t limit_queue(const struct fw_snapshot *s, const struct fw_job *j, int64_t b)
{
	int32_t q = j->queue;

	for (int hops = 0; b > 0 && q >= 0 && q < s->nqueues && hops < s->nqueues; hops++) {
		if (s->queues[q].max_runtime_s == b)
			return q;
		q = s->queues[q].parent;
	}
	return -1;
}

/* The queue that sets limit q (limit_queue), in words: `its queue "llm"`
 * or `queue "root", above its queue "llm"`. */
static void queue_words(const struct fw_snapshot *s, const struct fw_job *j, int32_t q, char *buf, size_t n)
{
	if (q == j->queue)
		snprintf(buf, n, "its queue \"%s\"", s->queues[q].name);
	else
		snprintf(buf, n, "queue \"%s\", above its queue \"%s\"", s->queues[q].name, s->queues[j->queue].name);
}

/* TIME_LIMIT (a = seconds run, b = the limit) naming what sets it: the
 * job's own maxRuntime (fw_job_limit takes it when it is the smallest),
 * with the queue that sets the same when one does, or else the queue;
 * false when neither does (the core's text then). */
static bool limit_text(const struct fw_snapshot *s, const struct fw_job *j, int64_t a, int64_t b, char *buf, size_t n)
{
	int32_t q = limit_queue(s, j, b);
	bool own = b > 0 && j->max_runtime_s == b;
	char who[2 * FW_NAME_MAX + 48] = "", ran[FW_SPAN_MAX], lim[FW_SPAN_MAX];

	if (q < 0 && !own)
		return false;
	if (q >= 0)
		queue_words(s, j, q, who, sizeof who);
	fw_span_format(a, ran, sizeof ran);
	fw_span_format(b, lim, sizeof lim);
	if (own && q < 0)
		snprintf(buf, n, "ended: it has run %s and its own run-time limit (maxRuntime) is %s; it is stopped, not "
				 "requeued", ran, lim);
	else if (own)
		snprintf(buf, n, "ended: it has run %s and its own run-time limit (maxRuntime) is %s, as is that of %s; it "
				 "is stopped, not requeued", ran, lim, who);
	else
		snprintf(buf, n, "ended: it has run %s and the run-time limit (maxRuntime) of %s%s is %s; it is stopped, "
				 "not requeued", ran, who, q == j->queue ? "" : ",", lim);
	return true;
}

/* A job its run-time limit ends loses nothing to a requeue: its text
 * says so and ends there. */
char *fw_serve_evict_text(const struct fw_snapshot *s, const struct fw_job *j, enum fw_reason r, int64_t a, int64_t b,
			  char *buf, size_t n)
{
	if (r == FW_REASON_TIME_LIMIT && limit_text(s, j, a, b, buf, n))
		return buf;
	if (r == FW_REASON_TIME_LIMIT)
		return fw_serve_reason_text(s, r, a, b, buf, n);
	size_t len = strlen(fw_serve_reason_text(s, r, a, b, buf, n));
	char lost[FW_SPAN_MAX];

	fw_span_format(fw_job_lost_work(s, j, s->now), lost, sizeof lost);
	snprintf(buf + len, n - len, "; it loses %s of work%s", lost,
		 fw_job_checkpoint(s, j) > 0 ? " since its last checkpoint" : " (no checkpoint interval: the whole run)");
	return buf;
}

/* GPU-hours in few characters: 0.00153, 12.5, 1235, 2.5e+14. */
static void hours(char *buf, size_t n, double h)
{
	if (h >= 100 && h < 1e9)
		snprintf(buf, n, "%.0f", h);
	else
		snprintf(buf, n, "%.3g", h);
}

/* The queue over its budget on job j's way up: the nearest with a
 * budget whose subtree has used it (lib/cycle.c budget_mark); -1 when
 * none does by p's sums. */
static int32_t budget_queue(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_job *j)
{
	int32_t q = j->queue;

	for (int hops = 0; q >= 0 && q < s->nqueues && q < p->nqueues && hops < s->nqueues; hops++) {
		if (s->queues[q].gpu_hour_budget > 0 && p->queues[q].usage >= s->queues[q].gpu_hour_budget * 3600.0)
			return q;
		q = s->queues[q].parent;
	}
	return -1;
}

char *fw_serve_budget_text(const struct fw_snapshot *s, const struct fw_plan *p, int32_t job, int64_t a, int64_t b,
			   char *buf, size_t n)
{
	const struct fw_job *j = s && job >= 0 && job < s->njobs ? &s->jobs[job] : NULL;
	int32_t q = j && p && p->queues ? budget_queue(s, p, j) : -1;
	char who[2 * FW_NAME_MAX + 48], used[32];

	if (q < 0)
		return fw_reason_format(FW_REASON_OVER_BUDGET, a, b, buf, n);
	queue_words(s, j, q, who, sizeof who);
	hours(used, sizeof used, p->queues[q].usage / 3600.0);
	snprintf(buf, n, "over budget: %s%s has used %s GPU-hours, its decayed usage, of its budget of %.15g "
			 "(gpuHourBudget); it starts once usage decays below it", who, q == j->queue ? "" : ",", used,
		 s->queues[q].gpu_hour_budget);
	return buf;
}

/* ---- budget_short ---------------------------------------------------- */

struct fw_serve_left *fw_serve_budget_left(const struct fw_snapshot *s, const struct fw_plan *p)
{
	struct fw_serve_left *l;
	double *used, *left;
	int32_t *unb;
	bool any = false;

	for (int32_t q = 0; s && q < s->nqueues; q++)
		any = any || s->queues[q].gpu_hour_budget > 0;
	if (!any || !p || !s->config.budget_safe)
		return NULL;
	l = malloc(((size_t)s->nqueues + 1) * sizeof *l);
	used = malloc(((size_t)s->nqueues + 1) * sizeof *used);
	left = malloc(((size_t)s->nqueues + 1) * sizeof *left);
	unb = malloc(((size_t)s->nqueues + 1) * sizeof *unb);
	if (l && used && left && unb) {
		fw_budget_used(s, used); /* the core's sums (budget.h): the same doubles */
		fw_budget_left(s, p, used, NULL, left, unb);
		for (int32_t q = 0; q < s->nqueues; q++)
			l[q] = (struct fw_serve_left){ left[q], unb[q] };
	} else {
		free(l);
		l = NULL;
	}
	free(used);
	free(left);
	free(unb);
	return l;
}

/* "8 GPUs × its 2h00m maxRuntime": job j's whole run as the check counts
 * it (fw_job_bound: its run-time limit, else its runtime, else its
 * queue's default); its GPU-seconds in *need.  False when it has no bound. */
static bool run_words(const struct fw_snapshot *s, const struct fw_job *j, char *buf, size_t n, double *need)
{
	fw_time lim = fw_job_limit(s, j), bound = fw_job_bound(s, j);
	int64_t g = fw_job_request(j).v[FW_RES_GPU];
	const char *whose;
	char t[32];

	if (bound <= 0 || g <= 0)
		return false;
	*need = (double)g / 1000.0 * (double)bound; /* run_left at now */
	fw_span_format(bound, t, sizeof t);
	if (lim > 0 && j->max_runtime_s == lim)
		whose = "its";
	else if (lim > 0)
		whose = limit_queue(s, j, lim) == j->queue ? "its queue's" : "a parent queue's";
	else if (j->expected_runtime > 0)
		whose = "its";
	else
		whose = s->queues[j->queue].default_runtime_s > 0 ? "its queue's" : "a parent queue's";
	snprintf(buf, n, "%.15g GPU%s × %s %s %s", g / 1000.0, g == 1000 ? "" : "s", whose, t,
		 lim > 0 ? "maxRuntime" : j->expected_runtime > 0 ? "runtime" : "defaultRuntime");
	return true;
}

/* The queue whose budget is short for a run of need GPU-seconds (a, b:
 * the core's): the first on the way up with a budget that has less left
 * than need, and whose left the core's b says (b = -1: unknown, a running
 * job with no bound); -1 when none does. */
static int32_t short_queue(const struct fw_snapshot *s, const struct fw_serve_left *l, const struct fw_job *j,
			   double need, int64_t b)
{
	int32_t q = j->queue;

	for (int hops = 0; q >= 0 && q < s->nqueues && hops < s->nqueues; hops++, q = s->queues[q].parent) {
		double left = l[q].gpu_s;
		if (!(s->queues[q].gpu_hour_budget > 0) || need <= left)
			continue;
		if (b < 0 ? isinf(left) : !isinf(left) && (left > 0 ? floor(left / 3600.0) : 0) == (double)b)
			return q;
	}
	return -1;
}

/* The nearest queue on j's way up with a budget: the one a run with no
 * bound is short of (need INFINITY passes any left). */
static int32_t nearest_budget(const struct fw_snapshot *s, const struct fw_job *j)
{
	int32_t q = j->queue;

	for (int hops = 0; q >= 0 && q < s->nqueues && hops < s->nqueues; hops++, q = s->queues[q].parent)
		if (s->queues[q].gpu_hour_budget > 0)
			return q;
	return -1;
}

char *fw_serve_short_text(const struct fw_snapshot *s, const struct fw_serve_left *l, int32_t job, int64_t a,
			  int64_t b, char *buf, size_t n)
{
	const struct fw_job *j = s && job >= 0 && job < s->njobs ? &s->jobs[job] : NULL;
	char who[2 * FW_NAME_MAX + 48], run[128];
	double need = 0;
	int32_t q = -1, r;

	if (j && a < 0 && fw_job_bound(s, j) <= 0)
		q = nearest_budget(s, j);
	else if (j && l && run_words(s, j, run, sizeof run, &need) && (double)a == ceil(need / 3600.0))
		q = short_queue(s, l, j, need, b);
	if (q < 0)
		return fw_reason_format(FW_REASON_BUDGET_SHORT, a, b, buf, n);
	queue_words(s, j, q, who, sizeof who);
	if (a < 0) {
		snprintf(buf, n, "budget short: %s%s has a GPU-hour budget of %.15g and budgetSafe is on, so a job "
				 "starts only when its whole run fits what is left, and this job has no bound: give it "
				 "a run-time limit (maxRuntime) or a runtime", who, q == j->queue ? "" : ",",
			 s->queues[q].gpu_hour_budget);
		return buf;
	}
	size_t len = (size_t)snprintf(buf, n, "budget short: its whole run may use %lld GPU-hour%s (%s%s)",
				      (long long)a, a == 1 ? "" : "s", run,
				      need / 3600.0 < (double)a ? ", rounded up" : "");
	if (len >= n)
		return buf;
	if (b >= 0) {
		snprintf(buf + len, n - len, " and %s%s has %lld GPU-hour%s left of its budget of %.15g after its "
					     "usage and what its running jobs may still use (budgetSafe)",
			 who, q == j->queue ? "" : ",", (long long)b, b == 1 ? "" : "s", s->queues[q].gpu_hour_budget);
		return buf;
	}
	r = l[q].unbounded;
	snprintf(buf + len, n - len, ", and what is left of the budget of %.15g of %s%s is unknown: %s%s%s running "
				     "under it has no run-time limit (maxRuntime) or runtime (budgetSafe)",
		 s->queues[q].gpu_hour_budget, who, q == j->queue ? "" : ",", r >= 0 ? "job \"" : "a job",
		 r >= 0 ? s->jobs[r].name : "", r >= 0 ? "\"" : "");
	return buf;
}
