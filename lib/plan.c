/*
 * plan.c — emitting a plan from the cycle's state, and the plan's names
 * and renderers (plan.h).
 */
#include <stdio.h>
#include <string.h>

#include "cycle_int.h"
#include "fairway/span.h"

const char *fw_decision_name(enum fw_decision_kind k)
{
	static const char *const names[] = {
#define FW__DEC_NAME(U, l) #l,
		FW_DECISION_MAP(FW__DEC_NAME)
#undef FW__DEC_NAME
	};
	return (unsigned)k < FW_DECIDE_COUNT ? names[k] : "?";
}

const char *fw_reason_name(enum fw_reason r)
{
	static const char *const names[] = {
#define FW__REASON_NAME(U, l, k, t) #l,
		FW_REASON_MAP(FW__REASON_NAME)
#undef FW__REASON_NAME
	};
	return (unsigned)r < FW_REASON_COUNT ? names[r] : "?";
}

/* a / scale in full: the whole part exact (no 8e+05), then up to three
 * decimals, rounded, without trailing zeros (0.5, 1.25). */
static void format_amount(int64_t a, int64_t scale, char *buf, size_t n)
{
	uint64_t m = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, s = (uint64_t)scale;
	uint64_t whole = m / s, milli = ((m % s) * 1000 + s / 2) / s;
	int len;

	if (milli == 1000) { /* rounding reached the next whole unit */
		whole++;
		milli = 0;
	}
	len = snprintf(buf, n, "%s%llu", a < 0 ? "-" : "", (unsigned long long)whole);
	if (milli && len > 0 && (size_t)len < n) {
		snprintf(buf + len, n - (size_t)len, ".%03llu", (unsigned long long)milli);
		for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
			*e = 0;
	}
}

/* Over-quota amounts are in the resource's own unit; say them in the
 * unit a user thinks in. */
static const char *const lim_what[] = { "GPU", "CPU", "memory" };
static const int64_t lim_scale[] = { 1000, 1000, 1024 };
static const char *const lim_unit[] = { "GPUs", "cores", "GiB" };

/* The queue whose limit binds (FW_LIMIT_ARG, plan.h), in words: "its
 * queue q" or "queue dept (above its queue x)"; by number without the
 * snapshot, "its queue (or a parent queue)" when b names none. */
static void limit_queue_words(const struct fw_snapshot *s, int32_t job, int64_t b, char *buf, size_t n)
{
	int32_t q = b >= FW_RES_COUNT ? FW_LIMIT_QUEUE(b) : -1;
	int32_t own = s && job >= 0 && job < s->njobs ? s->jobs[job].queue : -1;

	if (q < 0)
		snprintf(buf, n, "its queue (or a parent queue)");
	else if (!s || q >= s->nqueues)
		snprintf(buf, n, "queue #%d", (int)q);
	else if (own < 0 || own == q)
		snprintf(buf, n, "%squeue %s", own == q ? "its " : "", s->queues[q].name);
	else
		snprintf(buf, n, "queue %s (above its queue %s)", s->queues[q].name, s->queues[own].name);
}

/* OVER_QUOTA and QUEUE_LIMIT (a = the excess, or the job's need; b =
 * FW_LIMIT_ARG), naming the queue and, with the snapshot, its limit.
 * A job that alone needs more than the limit never starts under it. */
static void format_over_quota(const struct fw_snapshot *s, int32_t job, enum fw_reason r, int64_t a, int64_t b,
			      char *buf, size_t n)
{
	int k = b >= 0 ? FW_LIMIT_RES(b) : 0;
	int32_t q = b >= FW_RES_COUNT ? FW_LIMIT_QUEUE(b) : -1;
	bool known = s && q >= 0 && q < s->nqueues;
	int64_t need = known && job >= 0 && job < s->njobs ? fw_job_request(&s->jobs[job]).v[k] : -1;
	char amount[32], who[2 * FW_NAME_MAX + 32], cap[32] = "";

	limit_queue_words(s, job, b, who, sizeof who);
	format_amount(a, lim_scale[k], amount, sizeof amount);
	if (known)
		format_amount(s->queues[q].limit.v[k], lim_scale[k], cap, sizeof cap);
	if (r == FW_REASON_OVER_QUOTA && known && need > s->queues[q].limit.v[k]) {
		r = FW_REASON_QUEUE_LIMIT;
		format_amount(need, lim_scale[k], amount, sizeof amount);
	}
	if (r == FW_REASON_QUEUE_LIMIT && known)
		snprintf(buf, n, "over a queue limit for good: it needs %s %s and %s has a %s limit of %s %s: it can never "
				 "start while that limit holds (raise it, or resubmit the job smaller)",
			 amount, lim_unit[k], who, lim_what[k], cap, lim_unit[k]);
	else if (r == FW_REASON_QUEUE_LIMIT)
		snprintf(buf, n, "over a queue limit for good: it needs %s %s, more than the %s limit of %s: it can never "
				 "start while that limit holds (raise it, or resubmit the job smaller)",
			 amount, lim_unit[k], lim_what[k], who);
	else if (known)
		snprintf(buf, n, "over quota: starting it would put %s %s %s over its %s limit of %s %s", who, amount,
			 lim_unit[k], lim_what[k], cap, lim_unit[k]);
	else
		snprintf(buf, n, "over quota: starting it would put %s %s %s over its %s limit", who, amount, lim_unit[k],
			 lim_what[k]);
}

/* How much a template's two conversions may grow, by its args (plan.h):
 * a %lld (4 characters) becomes at most 20, a span's %s (2) at most
 * FW_SPAN_MAX - 1, a time's %s (2) at most FW_TIME_TEXT_MAX - 1; the
 * over-quota text is about half the bound. */
#define FW__GROW_NN (2 * (20 - 4))
#define FW__GROW_TS (FW_TIME_TEXT_MAX - 1 - 2 + FW_SPAN_MAX - 1 - 2)
#define FW__GROW_NT (20 - 4 + FW_TIME_TEXT_MAX - 1 - 2)
#define FW__GROW_SS (2 * (FW_SPAN_MAX - 1 - 2))
#define FW__REASON_FITS(U, l, k, t)                                          \
	_Static_assert(sizeof(t) + FW__GROW_##k <= FW_REASON_TEXT_MAX, "reason " #U ": FW_REASON_TEXT_MAX too small");
FW_REASON_MAP(FW__REASON_FITS)
#undef FW__REASON_FITS

/* "1 GPUs" -> "1 GPU": the templates count with plurals, and a count of
 * exactly one (not 11, 0.1 or -1) takes the singular of the units they
 * use. */
static void singular(char *buf)
{
	static const char *const units[] = { "GPUs", "whole GPUs", "tasks", "jobs", "nodes", "slices" };

	for (char *p = buf; (p = strstr(p, "1 ")) != NULL; p++) {
		if (p > buf && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.' || p[-1] == '-'))
			continue;
		for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
			size_t k = strlen(units[u]);
			char after = p[2 + k];
			if (strncmp(p + 2, units[u], k) || (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z'))
				continue;
			memmove(p + 1 + k, p + 2 + k, strlen(p + 2 + k) + 1); /* drop the 's' */
			break;
		}
	}
}

/* MODEL_LIMIT: b is the limit (plan.h); with the snapshot at hand, its
 * queue and model by name. */
static void format_model_limit(const struct fw_snapshot *s, int64_t a, int64_t b, char *buf, size_t n)
{
	char amount[32], cap[32];

	format_amount(a, 1000, amount, sizeof amount);
	if (!s || b < 0 || b >= s->nmodel_limits || s->model_limits[b].queue < 0 ||
	    s->model_limits[b].queue >= s->nqueues) {
		snprintf(buf, n,
			 "over a GPU model limit: starting it would put its queue (or a parent queue) %s GPUs over its limit on a GPU model",
			 amount);
		return;
	}
	const struct fw_model_limit *m = &s->model_limits[b];
	format_amount(m->gpus, 1000, cap, sizeof cap);
	snprintf(buf, n, "over a GPU model limit: starting it would put queue %s %s GPUs over its limit of %s %s GPUs",
		 s->queues[m->queue].name, amount, cap, m->model);
}

/* BUDGET_SHORT with an unbounded side (a or b -1, plan.h). */
static bool budget_short_text(int64_t a, int64_t b, char *buf, size_t n)
{
	if (a < 0)
		snprintf(buf, n, "budget short: its queue (or a parent queue) has a GPU-hour budget and budgetSafe is "
				 "on, so a job starts only when its whole run fits what is left, and this job has no "
				 "bound: give it a run-time limit (maxRuntime) or a runtime");
	else if (b < 0)
		snprintf(buf, n, "budget short: its whole run may use %lld GPU-hours, and what is left of its queue's "
				 "(or a parent queue's) budget is unknown: a job running under it has no run-time "
				 "limit or runtime (budgetSafe)", (long long)a);
	else
		return false;
	return true;
}

/* A template's conversions by its args column (plan.h): each argument
 * as a number, as a time on the snapshot's clock (utc), or as a span in
 * words. */
#define FW__FMT_NN(t, buf, n, a, b, utc) snprintf(buf, n, t, (long long)(a), (long long)(b))
#define FW__FMT_TS(t, buf, n, a, b, utc)                                     \
	do {                                                                 \
		char fw__ta[FW_TIME_TEXT_MAX], fw__sb[FW_SPAN_MAX];          \
		snprintf(buf, n, t, fw_time_format(a, utc, fw__ta, sizeof fw__ta), \
			 fw_span_format(b, fw__sb, sizeof fw__sb));          \
	} while (0)
#define FW__FMT_NT(t, buf, n, a, b, utc)                                     \
	do {                                                                 \
		char fw__tb[FW_TIME_TEXT_MAX];                               \
		snprintf(buf, n, t, (long long)(a), fw_time_format(b, utc, fw__tb, sizeof fw__tb)); \
	} while (0)
#define FW__FMT_SS(t, buf, n, a, b, utc)                                     \
	do {                                                                 \
		char fw__sa[FW_SPAN_MAX], fw__sb[FW_SPAN_MAX];               \
		snprintf(buf, n, t, fw_span_format(a, fw__sa, sizeof fw__sa), \
			 fw_span_format(b, fw__sb, sizeof fw__sb));          \
	} while (0)

/* fw_reason_format with the clock's times (utc: fw_sched_config.utc_times). */
static char *reason_format(enum fw_reason r, int64_t a, int64_t b, bool utc, char *buf, size_t n)
{
	if (r == FW_REASON_BUDGET_SHORT && budget_short_text(a, b, buf, n)) {
		singular(buf);
		return buf;
	}
	if (r == FW_REASON_OVER_QUOTA || r == FW_REASON_QUEUE_LIMIT || r == FW_REASON_MODEL_LIMIT) {
		if (r != FW_REASON_MODEL_LIMIT)
			format_over_quota(NULL, -1, r, a, b, buf, n);
		else
			format_model_limit(NULL, a, b, buf, n);
		singular(buf);
		return buf;
	}
	if (r == FW_REASON_NEVER_FITS && a <= b) { /* the GPUs would do; the tasks together do not */
		snprintf(buf, n, "it needs %lld GPUs and this cluster can never hold it: %lld are usable in one place it "
				 "may use, but no set of nodes there has the CPU, memory and room for all its tasks at once",
			 (long long)a, (long long)b);
		singular(buf);
		return buf;
	}
	if (r == FW_REASON_HEALTH && a >= b) { /* none left to lack the GPUs */
		snprintf(buf, n, "nodes unhealthy: all %lld nodes with GPUs (cordoned ones aside) are unhealthy, draining, "
				 "suspect (on probation) or have bad GPUs: none is whole and healthy", (long long)b);
		singular(buf);
		return buf;
	}
	if (r == FW_REASON_GPUS_BUSY && a <= b) { /* enough free, none on one node */
		snprintf(buf, n, "GPUs busy: it needs %lld GPUs on one node and the cluster has %lld free now, but no "
				 "node has that many free; running jobs hold the rest",
			 (long long)a, (long long)b);
		singular(buf);
		return buf;
	}
	switch (r) {
#define FW__REASON_FMT(U, l, k, t)                                           \
	case FW_REASON_##U:                                                  \
		FW__FMT_##k(t, buf, n, a, b, utc);                           \
		break;
		FW_REASON_MAP(FW__REASON_FMT)
#undef FW__REASON_FMT
	default:
		snprintf(buf, n, "unknown reason %d", (int)r);
	}
	singular(buf);
	return buf;
}

char *fw_reason_format(enum fw_reason r, int64_t a, int64_t b, char *buf, size_t n)
{
	return reason_format(r, a, b, false, buf, n);
}

/* Whether s's times are Unix time, written as UTC dates (snapshot.h). */
static bool utc_of(const struct fw_snapshot *s)
{
	return s && s->config.utc_times;
}

/* SLICES with the job at hand: its sliced group of a slices (the first,
 * when none has), with the slice size and the level by name. */
static bool slices_text(const struct fw_snapshot *s, int32_t job, int64_t a, int64_t b, char *buf, size_t n)
{
	const struct fw_group_slice *e = NULL;

	for (int32_t x = s->nslices ? fw_snapshot_slices_entry(s, job) : -1;
	     x >= 0 && x < s->nslices && s->slices[x].job == job; x++)
		if (!e || s->jobs[job].groups[s->slices[x].group].count / s->slices[x].tasks == a)
			e = &s->slices[x];
	if (!e || (e->level != FW_LEVEL_NODE && (e->level < 0 || e->level >= s->topology.nlevels)))
		return false;
	const char *lv = e->level == FW_LEVEL_NODE ? "node" : s->topology.level[e->level];
	snprintf(buf, n, "slices: it needs %lld slices of %d tasks, each inside one %s, and the %ss have room for %lld "
			 "slices now", (long long)a, (int)e->tasks, lv, lv, (long long)b);
	singular(buf);
	return true;
}

/* TOPOLOGY with the job at hand: its required level by name ("the gang
 * needs 64 GPUs inside one rack, its required level; the largest rack
 * has 31 free"). */
static bool topology_text(const struct fw_snapshot *s, int32_t job, int64_t a, int64_t b, char *buf, size_t n)
{
	int32_t l = s->jobs[job].required_level;

	if (l != FW_LEVEL_NODE && (l < 0 || l >= s->topology.nlevels))
		return false;
	const char *lv = l == FW_LEVEL_NODE ? "node" : s->topology.level[l];
	snprintf(buf, n, "topology: the gang needs %lld GPUs inside one %s, its required level; the largest %s has "
			 "%lld free", (long long)a, lv, lv, (long long)b);
	singular(buf);
	return true;
}

/* The nodes health holds from job, by kind, and the cordoned ones. */
struct health_count {
	int64_t unhealthy, draining, bad, short_of, cordoned;
};

static struct health_count count_health(const struct fw_snapshot *s, int32_t job)
{
	struct health_count c = { 0 };
	int32_t task = 0;

	for (int g = 0; g < s->jobs[job].ngroups; g++)
		if (s->jobs[job].groups[g].gpus > task)
			task = s->jobs[job].groups[g].gpus;
	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *x = &s->nodes[i];
		int good = x->gpu_count - __builtin_popcount(x->bad_gpu_mask & ((1u << x->gpu_count) - 1));
		if (x->gpu_count <= 0)
			continue;
		if (x->health == FW_HEALTH_UNHEALTHY || x->health == FW_HEALTH_DRAINING)
			*(x->health == FW_HEALTH_UNHEALTHY ? &c.unhealthy : &c.draining) += 1;
		else if (!x->schedulable) /* the operator's, not health's */
			c.cordoned++;
		else if (good < x->gpu_count)
			c.bad++, c.short_of += good < task;
	}
	return c;
}

/* HEALTH with the job at hand (a of the b schedulable nodes with GPUs
 * held back, plan.h): which kinds they are, whether any whole, healthy
 * node is left, and the cordoned nodes, which health does not count. */
static void health_text(const struct fw_snapshot *s, int32_t job, int64_t a, int64_t b, char *buf, size_t n)
{
	struct health_count c = count_health(s, job);
	int64_t v[] = { c.unhealthy, c.draining, c.bad, a - c.unhealthy - c.draining - c.bad };
	static const char *const what[] = { "unhealthy", "draining", "with bad GPUs", "suspect" };
	char kinds[192] = "", tail[96] = "";
	size_t k = 0;

	for (int i = 0; i < 4 && k < sizeof kinds; i++) {
		/* bad GPUs that leave too few good ones for its largest task */
		const char *w = i == 2 && c.short_of == v[i] ? "with too few good GPUs left for it" : what[i];
		if (v[i] > 0)
			k += (size_t)snprintf(kinds + k, sizeof kinds - k, "%s%lld %s", k ? ", " : " (", (long long)v[i], w);
		if (i == 2 && c.short_of && c.short_of < v[i] && k < sizeof kinds)
			k += (size_t)snprintf(kinds + k, sizeof kinds - k, ", %lld of them with too few left for it",
					      (long long)c.short_of);
	}
	if (k && k < sizeof kinds)
		snprintf(kinds + k, sizeof kinds - k, ")");
	if (c.cordoned)
		snprintf(tail, sizeof tail, "; set aside: %lld nodes cordoned (schedulable: false)", (long long)c.cordoned);
	if (a >= b)
		snprintf(buf, n, "nodes unhealthy: all %lld nodes with GPUs (cordoned ones aside) are held back by health%s: "
				 "none is whole and healthy%s", (long long)b, kinds, tail);
	else
		snprintf(buf, n, "nodes unhealthy: %lld of the %lld nodes with GPUs (cordoned ones aside) are held back by "
				 "health%s; the others lack the free GPUs for it%s", (long long)a, (long long)b, kinds, tail);
	singular(buf);
}

/* Why node x takes nothing new and is not known to return ("cordoned"),
 * or NULL: it takes work, or it comes back at a known time. */
static const char *out_why(const struct fw_snapshot *s, const struct fw_node *x)
{
	if (x->gpu_count <= 0 || (x->back_at > s->now && x->back_at != 0))
		return NULL;
	if (x->health == FW_HEALTH_UNHEALTHY || x->health == FW_HEALTH_DRAINING)
		return x->health == FW_HEALTH_UNHEALTHY ? "unhealthy" : "draining";
	return x->schedulable ? NULL : "cordoned";
}

/* What brings back the out nodes NODES_OUT names: a lifted cordon when
 * each is cordoned, else repairs too. */
static const char *out_advice(int64_t out, int64_t cordoned, int64_t a)
{
	if (out == 0 || cordoned < out || a > out)
		return "lift the cordons (schedulable: true) and repair the others";
	return out > 1 ? "lift the cordons: schedulable: true" : "lift the cordon: schedulable: true";
}

/* NODES_OUT (plan.h): the nodes out, the first few by name with why,
 * then how many more; the suspect ones (or with bad GPUs) a counts
 * beside them by count; and what brings them back. */
static void nodes_out_text(const struct fw_snapshot *s, int64_t a, char *buf, size_t n)
{
	char names[192] = "", more[64] = "";
	size_t k = 0;
	int64_t out = 0, cordoned = 0;

	for (int32_t i = 0; i < s->nnodes; i++) {
		const char *why = out_why(s, &s->nodes[i]);
		cordoned += why && why[0] == 'c';
		if (why && ++out <= 4 && k < sizeof names)
			k += (size_t)snprintf(names + k, sizeof names - k, "%s%.48s (%s)", k ? ", " : "", s->nodes[i].name,
					      why);
	}
	if (out > 4)
		snprintf(more, sizeof more, " and %lld more", (long long)(out - 4));
	else if (a > out)
		snprintf(more, sizeof more, "%s%lld nodes suspect or with bad GPUs", out ? " and " : "",
			 (long long)(a - out));
	snprintf(buf, n, "nodes out: the cluster could hold it only with its nodes out of service back: %s%s; it can "
			 "start once they are back (%s)", names, more, out_advice(out, cordoned, a));
	singular(buf);
}

/* Seconds from now to t, held at the int64 bounds (a reason's number
 * may be any value: never an overflow). */
static int64_t until(int64_t t, int64_t now)
{
	if (now < 0 && t > INT64_MAX + now)
		return INT64_MAX;
	if (now > 0 && t < INT64_MIN + now)
		return INT64_MIN;
	return t - now;
}

/* MIN_RUNTIME with the snapshot (a = the victims' queue, b = when
 * reclaim may take them): the queue by name, its minRuntime and the wait
 * in words. */
static void min_runtime_text(const struct fw_snapshot *s, int64_t a, int64_t b, char *buf, size_t n)
{
	char min[FW_SPAN_MAX], wait[FW_SPAN_MAX], at[FW_TIME_TEXT_MAX];

	fw_span_format(fw_queue_min_runtime(s, (int32_t)a), min, sizeof min);
	fw_span_format(until(b, s->now), wait, sizeof wait);
	snprintf(buf, n, "reclaim waits: the GPUs it needs are held by jobs of queue %s, above its fair share, that "
			 "have not run its minimum runtime (minRuntime) of %s yet; reclaim may take them at %s (in %s)",
		 s->queues[a].name, min, fw_time_format(b, utc_of(s), at, sizeof at), wait);
}

char *fw_reason_format_job(const struct fw_snapshot *s, int32_t job, enum fw_reason r, int64_t a, int64_t b,
			   char *buf, size_t n)
{
	const char *model = NULL;
	char at[FW_TIME_TEXT_MAX];

	if (r == FW_REASON_MODEL_LIMIT) {
		format_model_limit(s, a, b, buf, n);
		singular(buf);
		return buf;
	}
	if (r == FW_REASON_OVER_QUOTA || r == FW_REASON_QUEUE_LIMIT) {
		format_over_quota(s, job, r, a, b, buf, n);
		singular(buf);
		return buf;
	}
	if (r == FW_REASON_MIN_RUNTIME && s && a >= 0 && a < s->nqueues) {
		min_runtime_text(s, a, b, buf, n);
		return buf;
	}
	if (r == FW_REASON_LIMIT_HELD && s && a >= 0 && a < s->njobs && b >= 0 && b < s->nqueues) {
		snprintf(buf, n, "limit held: job %s, a gang waiting past the starvation age, waits for room under the "
				 "limit of queue %s; until it starts, no later job of that queue takes the room it waits for",
			 s->jobs[a].name, s->queues[b].name);
		return buf;
	}
	if (r == FW_REASON_CHECKPOINT_WAIT && s && a >= 0 && a < s->njobs) {
		snprintf(buf, n, "it takes the GPUs of job %s, which saves a checkpoint at %s: it waits for it rather "
				 "than throw that job's work away", s->jobs[a].name, fw_time_format(b, utc_of(s), at, sizeof at));
		return buf;
	}
	if (r == FW_REASON_SLICES && s && job >= 0 && job < s->njobs && slices_text(s, job, a, b, buf, n))
		return buf;
	if (r == FW_REASON_HEALTH && s && job >= 0 && job < s->njobs) {
		health_text(s, job, a, b, buf, n);
		return buf;
	}
	if (r == FW_REASON_NODES_OUT && s) {
		nodes_out_text(s, a, buf, n);
		return buf;
	}
	if (r == FW_REASON_TOPOLOGY && s && job >= 0 && job < s->njobs && topology_text(s, job, a, b, buf, n))
		return buf;
	if (r == FW_REASON_GPU_MODEL && s && job >= 0 && job < s->njobs)
		for (int g = 0; g < s->jobs[job].ngroups && !model; g++)
			if (s->jobs[job].groups[g].gpus && s->jobs[job].groups[g].gpu_model[0])
				model = s->jobs[job].groups[g].gpu_model;
	if (!model)
		return reason_format(r, a, b, utc_of(s), buf, n);
	if (b == 0 && !fw_snapshot_has_gpu_model(s, model)) /* none free, for none exists */
		snprintf(buf, n, "GPU model: it needs %lld GPUs of model %s and no node has that model", (long long)a,
			 model);
	else
		snprintf(buf, n, "GPU model: it needs %lld GPUs of model %s and only %lld are free", (long long)a,
			 model, (long long)b);
	singular(buf);
	return buf;
}

/* Why a reserved job did not fit now (its reason before it reserved,
 * fw_pending.why_b), in a few words; NULL: its name only. */
static const char *no_room_words(int64_t r)
{
	switch (r) {
	case FW_REASON_GANG_NO_FIT:
		return "too few whole GPUs are free at once";
	case FW_REASON_GPUS_BUSY:
		return "no node has the GPUs free";
	case FW_REASON_GPU_SHARE:
		return "no GPU has its share free";
	case FW_REASON_FAIRSHARE_ORDER:
		return "jobs served before it in fair-share order took the room";
	case FW_REASON_TOPOLOGY:
		return "no domain of its required level has the GPUs free";
	case FW_REASON_NODE_FILTER:
		return "the nodes it may use lack the room";
	case FW_REASON_HEALTH:
		return "health holds back the nodes it needs";
	case FW_REASON_LEAVING:
		return "the only room is on nodes that leave before it would end";
	case FW_REASON_NO_CPU: /* the nodes, not its turn: say which resource */
		return "no node with its GPUs free has the CPU its first task asks";
	case FW_REASON_NO_MEM:
		return "no node with its GPUs free has the memory its first task asks";
	case FW_REASON_NO_RESOURCES:
		return "no set of nodes has the CPU, memory and GPUs for all its tasks at once";
	case FW_REASON_NO_MODEL:
		return "no node of the GPU model it asks for has the GPUs free";
	default:
		return NULL;
	}
}

/* A reserved job's "...; reclaim not tried: it holds a reservation"
 * (fw_pending.untried), appended to buf. */
static void untried_note(const struct fw_pending *r, char *buf, size_t n)
{
	static const char *const what[] = { NULL, "reclaim", "preemption", "reclaim and preemption" };
	size_t k = strlen(buf);
	int u = r->untried & (FW_UNTRIED_RECLAIM | FW_UNTRIED_PREEMPT);

	if (u && k + 1 < n)
		snprintf(buf + k, n - k, "; %s not tried: it holds a reservation", what[u]);
}

/* The place a job needs its GPUs in (plan.h most_in_one): "node" for
 * one task, else its required level's name. */
static const char *place_name(const struct fw_snapshot *s, int32_t job)
{
	int32_t l = job >= 0 && job < s->njobs ? s->jobs[job].required_level : FW_LEVEL_NODE;

	if (job < 0 || job >= s->njobs || fw_job_tasks(&s->jobs[job]) == 1 || l < 0 || l >= s->topology.nlevels)
		return "node";
	return s->topology.level[l];
}

char *fw_pending_format(const struct fw_snapshot *s, const struct fw_pending *r, char *buf, size_t n)
{
	const char *words;
	char at[FW_TIME_TEXT_MAX];
	size_t k;

	fw_reason_format_job(s, r->job, r->reason, r->a, r->b, buf, n);
	if (r->reason == FW_REASON_FAIRSHARE_ORDER && r->most_in_one > 0 && r->most_in_one < r->a &&
	    (k = strlen(buf)) + 1 < n)
		snprintf(buf + k, n - k, ", at most %lld on one %s", (long long)r->most_in_one, place_name(s, r->job));
	if (r->reason != FW_REASON_HAS_RESERVATION || (k = strlen(buf)) + 1 >= n)
		return buf;
	if (r->why_a >= 0 && r->why_a < s->njobs)
		snprintf(buf + k, n - k, "; not now: it fits, but would delay the reservation of %s (due at %s)",
			 s->jobs[r->why_a].name, fw_time_format(r->why_b, utc_of(s), at, sizeof at));
	else if (r->why_a < 0 && (words = no_room_words(r->why_b)) != NULL)
		snprintf(buf + k, n - k, "; not now: %s", words);
	else if (r->why_a < 0 && r->why_b > FW_REASON_STARTED && r->why_b < FW_REASON_COUNT)
		snprintf(buf + k, n - k, "; not now: no room for it (%s)", fw_reason_name((enum fw_reason)r->why_b));
	untried_note(r, buf, n);
	return buf;
}

const struct fw_pending *fw_plan_pending_for(const struct fw_plan *p, int32_t j)
{
	int32_t lo = 0, hi = p->npending;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (p->pending[mid].job < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->npending && p->pending[lo].job == j ? &p->pending[lo] : NULL;
}

static int emit_decisions(struct cyc *y, struct fw_plan *p)
{
	int32_t total = 0, at = 0;

	for (int32_t i = 0; i < y->ndec; i++)
		total += y->dec[i].alloc_count;
	p->allocs = FW_ARENA_NEW(y->a, struct fw_task_alloc, total + 1);
	p->decisions = y->dec;
	if (!p->allocs)
		return FW_ENOMEM;
	for (int32_t i = 0; i < y->ndec; i++) {
		if (y->dec[i].alloc_count) /* a DRAIN has none (and may have no tasks pointer) */
			memcpy(p->allocs + at, y->dec_tasks[i], (size_t)y->dec[i].alloc_count * sizeof *p->allocs);
		y->dec[i].alloc_first = at;
		at += y->dec[i].alloc_count;
	}
	p->ndecisions = y->ndec;
	p->nallocs = total;
	return FW_OK;
}

/* Estimates switched off (scheduler config): reserved jobs still know
 * their time (one at now: the next second, fw__not_now); the others say
 * why there is none. */
static void no_estimate(struct fw_pending *r, fw_time now)
{
	r->ahead = 0;
	if (r->reason == FW_REASON_HAS_RESERVATION) {
		r->expected_start = fw__not_now(now, r->a);
		r->unknown_why = FW_REASON_NONE;
	} else {
		r->expected_start = FW_TIME_UNKNOWN;
		r->unknown_why = FW_REASON_NOT_ESTIMATED;
	}
}

static int emit_pending(struct cyc *y, struct fw_plan *p)
{
	const struct fw_snapshot *s = y->s;

	bool estimated = s->config.estimate_starts;

	p->pending = FW_ARENA_RAW(y->a, struct fw_pending, s->njobs + 1); /* filled in order */
	if (!p->pending)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) {
		if (!y->ji[j].pending || y->started[j])
			continue;
		struct fw_pending *r = &p->pending[p->npending++];
		*r = y->reason[j];
		r->job = j;
		if (!estimated)
			no_estimate(r, y->s->now);
	}
	return FW_OK;
}

static int emit_queues(struct cyc *y, struct fw_plan *p)
{
	const struct fw_snapshot *s = y->s;

	p->queues = FW_ARENA_NEW(y->a, struct fw_queue_result, s->nqueues + 1);
	if (!p->queues)
		return FW_ENOMEM;
	p->nqueues = s->nqueues;
	for (int32_t q = 0; q < s->nqueues; q++) {
		struct fw_queue_result *r = &p->queues[q];
		memcpy(r->fair, y->share[q].fair, sizeof r->fair);
		memcpy(r->guaranteed, y->share[q].guaranteed, sizeof r->guaranteed);
		r->weight = y->share[q].weight;
		r->weight_eff = y->share[q].weight_eff;
		r->limited_by = y->share[q].limited_by;
		r->allocated = y->alloc[q];
		for (int k = 0; k < FW_RES_COUNT; k++)
			r->demand.v[k] = (int64_t)(y->share[q].demand[k] + 0.5);
		r->usage = y->share[q].usage;
	}
	return FW_OK;
}

int fw__phase_emit(struct cyc *y, struct fw_plan **out)
{
	struct fw_plan *p = FW_ARENA_NEW(y->a, struct fw_plan, 1);
	int rc;

	if (!p)
		return FW_ENOMEM;
	p->now = y->s->now;
	p->considered = y->considered;
	if ((rc = emit_decisions(y, p)) != FW_OK)
		return rc;
	if ((rc = emit_pending(y, p)) != FW_OK)
		return rc;
	if ((rc = emit_queues(y, p)) != FW_OK)
		return rc;
	*out = p;
	return FW_OK;
}
