/*
 * reason.c — plan reasons in words, with names (reason.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
	else if (r == FW_REASON_DRAIN_FINISH)
		snprintf(buf, n, "drain: node \"%s\" is unhealthy or draining; nothing new lands and its %lld running job%s "
				 "may finish", node, k, k == 1 ? "" : "s");
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
		snprintf(buf, n, "it fits now but would delay the reservation of job \"%s\" (due at t=%lld); it waits "
				 "rather than push a reserved job back", job, (long long)b);
	else if (r == FW_REASON_CHECKPOINT_WAIT)
		snprintf(buf, n, "it takes the GPUs of job \"%s\", which saves a checkpoint at t=%lld: it waits for it "
				 "rather than throw that job's work away", job, (long long)b);
	else
		snprintf(buf, n, "blocked behind job \"%s\" (strict order; %lld jobs ahead in its line)", job, (long long)b);
	return true;
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
	case FW_REASON_MODEL_LIMIT: /* names the queue and the model */
		return fw_reason_format_job(s, -1, r, a, b, buf, n);
	default:
		break;
	}
	return fw_reason_format(r, a, b, buf, n);
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
	char who[2 * FW_NAME_MAX + 48] = "";

	if (q < 0 && !own)
		return false;
	if (q >= 0)
		queue_words(s, j, q, who, sizeof who);
	if (own && q < 0)
		snprintf(buf, n, "ended: it has run %lld s and its own run-time limit (maxRuntime) is %lld s; it is "
				 "stopped, not requeued", (long long)a, (long long)b);
	else if (own)
		snprintf(buf, n, "ended: it has run %lld s and its own run-time limit (maxRuntime) is %lld s, as is that "
				 "of %s; it is stopped, not requeued", (long long)a, (long long)b, who);
	else
		snprintf(buf, n, "ended: it has run %lld s and the run-time limit (maxRuntime) of %s%s is %lld s; it is "
				 "stopped, not requeued", (long long)a, who, q == j->queue ? "" : ",", (long long)b);
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

	snprintf(buf + len, n - len, "; it loses %lld s of work%s", (long long)fw_job_lost_work(s, j, s->now),
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
