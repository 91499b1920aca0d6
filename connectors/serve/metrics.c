/*
 * metrics.c — /metrics in the Prometheus text exposition format 0.0.4.
 *
 * Counters and the cycle-latency histogram come from the daemon's running
 * totals; gauges (fair share, allocation, pending by reason, occupancy,
 * unhealthy and lemon nodes, GPU-hour budgets and what they have left)
 * from the last published view, except the queues' run-time limits, read
 * from the daemon's queues (the settings, not a plan's).  Names are
 * listed in docs/serve.md and drawn by docs/grafana-fairway.json.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "serve_int.h"

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 8192;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np)
			return;
		b->p = np;
		b->cap = cap;
	}
}

static void histogram(struct buf *b, const struct fw_serve_metrics *m)
{
	static const char *const le[] = {
#define FW__LES(x) #x,
		FW_LAT_BUCKETS(FW__LES)
#undef FW__LES
	};
	uint64_t cum = 0;

	put(b, "# HELP fairway_cycle_seconds Wall time of one applied scheduling cycle (snapshot, plan, apply, and "
	       "publishing the view the API reads).\n"
	       "# TYPE fairway_cycle_seconds histogram\n");
	for (int i = 0; i < FW_NLAT; i++) {
		cum += m->lat_count[i];
		put(b, "fairway_cycle_seconds_bucket{le=\"%s\"} %llu\n", le[i], (unsigned long long)cum);
	}
	cum += m->lat_count[FW_NLAT];
	put(b, "fairway_cycle_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)cum);
	put(b, "fairway_cycle_seconds_sum %.6f\nfairway_cycle_seconds_count %llu\n", m->lat_sum,
	    (unsigned long long)cum);
}

static void counter(struct buf *b, const char *name, const char *help, uint64_t v)
{
	put(b, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name, (unsigned long long)v);
}

static bool names_model(json_t *entries, const char *model)
{
	json_t *m;
	size_t k;

	json_array_foreach(entries, k, m)
		if (!strcmp(json_string_value(json_object_get(m, "model")), model))
			return true;
	return false;
}

/* One gauge per queue and model over the view's fairshare entries (g:
 * name, help, member, field, and a second member whose models the first
 * has not named, or NULL); none at all when no queue has an entry. */
static void model_gauge(struct buf *b, json_t *fs, const char *const g[5])
{
	json_t *q, *m;
	size_t i, k;
	bool any = false;

	json_array_foreach(fs, i, q)
		any = any || json_array_size(json_object_get(q, g[2])) > 0 ||
		      (g[4] && json_array_size(json_object_get(q, g[4])) > 0);
	if (!any)
		return;
	put(b, "# HELP %s %s\n# TYPE %s gauge\n", g[0], g[1], g[0]);
	json_array_foreach(fs, i, q) {
		const char *queue = json_string_value(json_object_get(q, "queue"));
		json_t *first = json_object_get(q, g[2]);
		for (int t = 0; t < (g[4] ? 2 : 1); t++)
			json_array_foreach(json_object_get(q, t ? g[4] : g[2]), k, m) {
				const char *model = json_string_value(json_object_get(m, "model"));
				if (t && names_model(first, model))
					continue; /* one series a queue and model */
				put(b, "%s{queue=\"%s\",model=\"%s\"} %.3f\n", g[0], queue, model,
				    json_number_value(json_object_get(m, g[3])));
			}
	}
}

/* Each queue's GPU model limits and deserved GPUs of a model, and what
 * its subtree holds of each model named. */
static void model_limits(struct buf *b, json_t *fs)
{
	static const char *const g[][5] = {
		{ "fairway_queue_gpu_model_limit_gpus",
		  "GPUs of the model the queue and the queues under it may hold (gpuModelLimits).", "gpuModelLimits",
		  "limit", NULL },
		{ "fairway_queue_gpu_model_deserved_gpus",
		  "GPUs of the model the queue and the queues under it deserve, out of its deserved GPUs "
		  "(gpuModelDeserved).",
		  "gpuModelDeserved", "deserved", NULL },
		{ "fairway_queue_gpu_model_allocated_gpus",
		  "GPUs of the model the queue and the queues under it hold after the last plan.", "gpuModelLimits",
		  "allocated", "gpuModelDeserved" },
	};

	for (size_t x = 0; x < sizeof g / sizeof g[0]; x++)
		model_gauge(b, fs, g[x]);
}

static void queues(struct buf *b, json_t *v)
{
	static const char *const g[][3] = {
		{ "fairway_queue_deserved_gpus", "deserved", "GPUs guaranteed to the queue (quota)." },
		{ "fairway_queue_fair_share_gpus", "fairShare", "GPUs the queue's fair share entitles it to now." },
		{ "fairway_queue_guaranteed_gpus", "guaranteed",
		  "GPUs of the fair share from the queue's quota (the rest is its over-quota part)." },
		{ "fairway_queue_weight_effective", "weightEffective",
		  "The queue's over-quota weight after decayed usage (splits what quotas leave over)." },
		{ "fairway_queue_allocated_gpus", "allocated", "GPUs the queue's jobs hold after the last plan." },
		{ "fairway_queue_pending_jobs", "pendingJobs",
		  "Jobs of the queue and the queues under it waiting after the last plan." },
		{ "fairway_queue_running_jobs", "runningJobs",
		  "Jobs of the queue and the queues under it running after the last plan." },
		{ "fairway_queue_usage_gpu_hours", "usageGpuHours",
		  "Decayed GPU-hours the queue and the queues under it have used: what its gpuHourBudget is held to." },
	};
	json_t *fs = json_object_get(v, "fairshare"), *q;
	size_t i;

	for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
		put(b, "# HELP %s %s\n# TYPE %s gauge\n", g[k][0], g[k][2], g[k][0]);
		json_array_foreach(fs, i, q)
			put(b, "%s{queue=\"%s\"} %.3f\n", g[k][0], json_string_value(json_object_get(q, "queue")),
			    json_number_value(json_object_get(q, g[k][1])));
	}
	model_limits(b, fs);
}

/* Per queue of the evicted jobs (cycle.c count): evictions, and the work
 * they threw away; a queue is listed once one of its jobs was evicted. */
static void losses(struct buf *b, const struct fw_serve_metrics *m)
{
	put(b, "# HELP fairway_queue_evictions_total Jobs of the queue evicted (reclaim, preemption, moves, drains).\n"
	       "# TYPE fairway_queue_evictions_total counter\n");
	for (int32_t i = 0; i < m->nqstat; i++)
		if (m->qstat[i].evictions)
			put(b, "fairway_queue_evictions_total{queue=\"%s\"} %llu\n", m->qstat[i].queue,
			    (unsigned long long)m->qstat[i].evictions);
	put(b, "# HELP fairway_queue_lost_gpu_hours_total GPU-hours of work the queue's evicted jobs lost: GPUs x\n"
	       "# the run since each one's last checkpoint (the whole run without one).\n"
	       "# TYPE fairway_queue_lost_gpu_hours_total counter\n");
	for (int32_t i = 0; i < m->nqstat; i++)
		if (m->qstat[i].evictions)
			put(b, "fairway_queue_lost_gpu_hours_total{queue=\"%s\"} %.6f\n", m->qstat[i].queue,
			    m->qstat[i].lost_gpu_s / 3600.0);
}

static uint64_t starts_of(const struct fw_serve_waits *w)
{
	uint64_t n = 0;

	for (int i = 0; i <= FW_NWAIT; i++)
		n += w->n[i];
	return n;
}

/* One histogram's series: name{label="value",le=...}, _sum, _count. */
static void wait_series(struct buf *b, const char *name, const char *label, const char *value,
			const struct fw_serve_waits *w)
{
	static const char *const le[] = {
#define FW__LES(x) #x,
		FW_WAIT_BUCKETS(FW__LES)
#undef FW__LES
	};
	uint64_t cum = 0;

	for (int i = 0; i < FW_NWAIT; i++) {
		cum += w->n[i];
		put(b, "%s_bucket{%s=\"%s\",le=\"%s\"} %llu\n", name, label, value, le[i], (unsigned long long)cum);
	}
	cum += w->n[FW_NWAIT];
	put(b, "%s_bucket{%s=\"%s\",le=\"+Inf\"} %llu\n%s_sum{%s=\"%s\"} %.0f\n%s_count{%s=\"%s\"} %llu\n", name,
	    label, value, (unsigned long long)cum, name, label, value, w->sum, name, label, value,
	    (unsigned long long)cum);
}

/* Goodput per queue (cycle.c count, count_gpu_time): the GPU-hours its
 * running jobs held, and its starts' times to start; by job size for the
 * fleet.  A queue is listed once it ran or started a job. */
static void goodput(struct buf *b, const struct fw_serve_metrics *m)
{
	static const char *const sizes[] = {
#define FW__SIZE_LABEL(U, label, n) label,
		FW_WAIT_SIZES(FW__SIZE_LABEL)
#undef FW__SIZE_LABEL
	};

	put(b, "# HELP fairway_queue_gpu_hours_total GPU-hours the queue's running jobs held, counted at each cycle\n"
	       "# (the jobs of the queue itself; less fairway_queue_lost_gpu_hours_total: its goodput).\n"
	       "# TYPE fairway_queue_gpu_hours_total counter\n");
	for (int32_t i = 0; i < m->nqstat; i++)
		if (m->qstat[i].gpu_s > 0)
			put(b, "fairway_queue_gpu_hours_total{queue=\"%s\"} %.6f\n", m->qstat[i].queue,
			    m->qstat[i].gpu_s / 3600.0);
	put(b, "# HELP fairway_queue_wait_seconds Time to start of the queue's jobs: from submission, or from the\n"
	       "# last requeue after an eviction, to each start.\n"
	       "# TYPE fairway_queue_wait_seconds histogram\n");
	for (int32_t i = 0; i < m->nqstat; i++)
		if (starts_of(&m->qstat[i].wait) > 0)
			wait_series(b, "fairway_queue_wait_seconds", "queue", m->qstat[i].queue, &m->qstat[i].wait);
	put(b, "# HELP fairway_wait_seconds Time to start of every job, by the GPUs it asks for (9+ span nodes).\n"
	       "# TYPE fairway_wait_seconds histogram\n");
	for (int k = 0; k < FW_NWAIT_SIZES; k++)
		wait_series(b, "fairway_wait_seconds", "gpus", sizes[k], &m->size_wait[k]);
}

/* hc: the lemon verdict the daemon applies (scheduler.lemonThreshold, lemonWindow). */
static void figures(struct buf *b, json_t *v, const struct fw_health_config *hc)
{
	json_t *f = json_object_get(v, "figures"), *n;
	const char *reason;
	double total = json_number_value(json_object_get(f, "gpusTotal"));
	double used = json_number_value(json_object_get(f, "gpusAllocated"));

	put(b, "# HELP fairway_pending_jobs Jobs waiting, by the reason of the last plan.\n"
	       "# TYPE fairway_pending_jobs gauge\n");
	for (int r = 0; r < FW_REASON_COUNT; r++) {
		reason = fw_reason_name((enum fw_reason)r);
		n = json_object_get(json_object_get(f, "pendingByReason"), reason);
		put(b, "fairway_pending_jobs{reason=\"%s\"} %lld\n", reason, (long long)json_integer_value(n));
	}
	put(b, "# HELP fairway_gpus GPUs of the fleet.\n# TYPE fairway_gpus gauge\n"
	       "fairway_gpus{state=\"total\"} %.3f\nfairway_gpus{state=\"allocated\"} %.3f\n"
	       "fairway_gpus{state=\"schedulable\"} %.3f\n",
	    total, used, json_number_value(json_object_get(f, "gpusSchedulable")));
	put(b, "# HELP fairway_gpu_occupancy_ratio Allocated GPUs over all GPUs.\n"
	       "# TYPE fairway_gpu_occupancy_ratio gauge\nfairway_gpu_occupancy_ratio %.6f\n",
	    total > 0 ? used / total : 0.0);
	put(b, "# HELP fairway_unhealthy_nodes Nodes reported unhealthy.\n# TYPE fairway_unhealthy_nodes gauge\n"
	       "fairway_unhealthy_nodes %lld\n",
	    (long long)json_integer_value(json_object_get(f, "unhealthyNodes")));
	if (hc->lemon_threshold > 0 && hc->lemon_window_s % 86400 == 0)
		put(b, "# HELP fairway_lemon_nodes Nodes that fail again and again (%d incidents in %lld days); ",
		    (int)hc->lemon_threshold, (long long)(hc->lemon_window_s / 86400));
	else if (hc->lemon_threshold > 0)
		put(b, "# HELP fairway_lemon_nodes Nodes that fail again and again (%d incidents in %lld s); ",
		    (int)hc->lemon_threshold, (long long)hc->lemon_window_s);
	else
		put(b, "# HELP fairway_lemon_nodes Nodes that fail again and again (the verdict is off); ");
	put(b, "big gangs go there last.\n# TYPE fairway_lemon_nodes gauge\nfairway_lemon_nodes %lld\n",
	    (long long)json_integer_value(json_object_get(f, "lemonNodes")));
}

/* Each queue's own run-time limit (maxRuntime), only for queues that set
 * one: none at all when no queue does.  A queue under one inherits the
 * smaller of its own and its ancestors' (fw_job_limit). */
static void max_runtimes(struct buf *b, const struct fw_serve *d)
{
	bool any = false;

	for (int32_t i = 0; i < d->nqueues; i++)
		any = any || d->queues[i].max_runtime_s > 0;
	if (!any)
		return;
	put(b, "# HELP fairway_queue_max_runtime_seconds The queue's run-time limit (maxRuntime): its running jobs, and "
	       "those of the queues under it, end after this long.\n"
	       "# TYPE fairway_queue_max_runtime_seconds gauge\n");
	for (int32_t i = 0; i < d->nqueues; i++)
		if (d->queues[i].max_runtime_s > 0)
			put(b, "fairway_queue_max_runtime_seconds{queue=\"%s\"} %lld\n", d->queues[i].name,
			    (long long)d->queues[i].max_runtime_s);
}

/* Each queue's GPU-hour budget as the last plan saw it (the view's
 * gpuHourBudget: the queue's own, or a backend's, Slurm's GrpTRESMins),
 * only for queues with one: none at all when no queue has one.  Its
 * subtree's decayed usage is fairway_queue_usage_gpu_hours; while that is
 * at or above the budget, no job under the queue starts (over_budget). */
static void budgets(struct buf *b, json_t *fs)
{
	json_t *q;
	size_t i;
	bool any = false;

	json_array_foreach(fs, i, q)
		any = any || json_number_value(json_object_get(q, "gpuHourBudget")) > 0;
	if (!any)
		return;
	put(b, "# HELP fairway_queue_gpu_hour_budget The queue's GPU-hour budget (gpuHourBudget, or its Slurm "
	       "account's GrpTRESMins=gres/gpu): while the decayed usage of it and the queues under it is at or above "
	       "this, none of their jobs starts.\n"
	       "# TYPE fairway_queue_gpu_hour_budget gauge\n");
	json_array_foreach(fs, i, q)
		if (json_number_value(json_object_get(q, "gpuHourBudget")) > 0)
			put(b, "fairway_queue_gpu_hour_budget{queue=\"%s\"} %.15g\n",
			    json_string_value(json_object_get(q, "queue")),
			    json_number_value(json_object_get(q, "gpuHourBudget")));
}

/* Under budgetSafe, what each budget has left after the last plan (the
 * view's gpuHoursLeft, computed once per cycle), for the queues with a
 * budget whose left is known: none at all while budgetSafe is off or no
 * queue has a budget. */
static void budgets_left(struct buf *b, json_t *fs)
{
	json_t *q, *x;
	size_t i;
	bool any = false;

	json_array_foreach(fs, i, q)
		any = any || json_object_get(q, "gpuHoursLeft") != NULL;
	if (!any)
		return;
	put(b, "# HELP fairway_queue_gpu_hours_left GPU-hours the queue's budget has left under budgetSafe after the "
	       "last plan: the budget less the decayed usage of it and the queues under it and the runs their running "
	       "jobs may still make (negative: more than it); a queue where a running job has no run-time limit or "
	       "runtime (so what is left is unknown) has no sample.\n"
	       "# TYPE fairway_queue_gpu_hours_left gauge\n");
	json_array_foreach(fs, i, q)
		if (json_is_number(x = json_object_get(q, "gpuHoursLeft")))
			put(b, "fairway_queue_gpu_hours_left{queue=\"%s\"} %.6f\n",
			    json_string_value(json_object_get(q, "queue")), json_number_value(x));
}

/* Called with d->mu held. */
char *fw_metrics_render(struct fw_serve *d)
{
	struct buf b = { NULL, 0, 0 };
	const struct fw_serve_metrics *m = &d->m;

	histogram(&b, m);
	put(&b, "# HELP fairway_cycle_busy_seconds_total Time spent in cycles (every attempt, with the view).\n"
		"# TYPE fairway_cycle_busy_seconds_total counter\nfairway_cycle_busy_seconds_total %.6f\n"
		"# HELP fairway_cycle_locked_seconds_total Part of it holding the state lock (take, apply, publish);\n"
		"# the rest (planning, the view) ran while the API kept answering.\n"
		"# TYPE fairway_cycle_locked_seconds_total counter\nfairway_cycle_locked_seconds_total %.6f\n",
	    m->busy_sum, m->locked_sum);
	counter(&b, "fairway_cycles_total", "Cycles whose plan was applied.", m->cycles);
	counter(&b, "fairway_cycles_stale_total", "Plans dropped because the world changed while planning.",
		m->stale);
	counter(&b, "fairway_cycles_failed_total", "Cycles that failed (see the daemon's log).", m->failed);
	counter(&b, "fairway_starts_total", "Jobs started.", m->starts);
	counter(&b, "fairway_evictions_total", "Jobs evicted (reclaim or preemption).", m->evictions);
	/* the cycle's ends, and the local backend's own for limits that
	 * passed while no daemon ran (local.c) */
	counter(&b, "fairway_jobs_timed_out_total",
		"Running jobs ended by their run-time limit (maxRuntime: their own or their queue's); not requeued, "
		"not in evictions.",
		m->timed_out + (d->bops == &fw_backend_local && d->be ? fw_local_timed_out(d->be) : 0));
	counter(&b, "fairway_jobs_purged_total",
		"Ended jobs the local backend forgot, min-job-age after their end (--backend-opt min-job-age); "
		"0 on other backends.",
		d->bops == &fw_backend_local && d->be ? fw_local_purged(d->be) : 0);
	put(&b, "# HELP fairway_log_rows_trimmed_total Log rows deleted for being older than --log-keep, by table.\n"
		"# TYPE fairway_log_rows_trimmed_total counter\n"
		"fairway_log_rows_trimmed_total{table=\"decisions\"} %llu\n"
		"fairway_log_rows_trimmed_total{table=\"usage_history\"} %llu\n",
	    (unsigned long long)m->log_trimmed[0], (unsigned long long)m->log_trimmed[1]);
	losses(&b, m);
	goodput(&b, m);
	counter(&b, "fairway_reservations_made_total", "Backfill reservations made or moved.", m->reserves);
	counter(&b, "fairway_drains_total", "Nodes drained in the backend (health).", m->drains);
	counter(&b, "fairway_releases_total", "Drained nodes returned to service once healthy again.", m->releases);
	counter(&b, "fairway_actions_failed_total",
		"Plan actions the backend refused (the daemon's log names the first; each is retried next cycle).",
		m->actions_failed);
	counter(&b, "fairway_explain_total", "Waiting reasons handed to the backend (explain, after an applied plan).",
		m->explains);
	put(&b, "# HELP fairway_explain_seconds_total Time in the backend's explain (under the state lock).\n"
		"# TYPE fairway_explain_seconds_total counter\nfairway_explain_seconds_total %.6f\n",
	    m->explain_sum);
	counter(&b, "fairway_http_requests_total", "API requests answered.", m->http_requests);
	counter(&b, "fairway_http_errors_total", "API requests answered with 4xx or 5xx.", m->http_errors);
	max_runtimes(&b, d);
	if (d->view) {
		budgets(&b, json_object_get(d->view, "fairshare"));
		budgets_left(&b, json_object_get(d->view, "fairshare"));
		queues(&b, d->view);
		figures(&b, d->view, &d->hcfg);
	}
	return b.p;
}

/* --- GET /v1/stats ---------------------------------------------------------------- */
/* The bound of the bucket that holds the q-quantile of w's starts: the
 * quantile is at most that many seconds; null when past the last bound
 * (more than 7 days) or with no start. */
static json_t *at_most(const struct fw_serve_waits *w, double q)
{
	static const double le[] = {
#define FW__LE(x) x,
		FW_WAIT_BUCKETS(FW__LE)
#undef FW__LE
	};
	uint64_t n = starts_of(w), rank = (uint64_t)ceil(q * (double)n), cum = 0;

	for (int i = 0; n && i < FW_NWAIT; i++)
		if ((cum += w->n[i]) >= rank)
			return json_integer((json_int_t)le[i]);
	return json_null();
}

static json_t *waits_json(const struct fw_serve_waits *w)
{
	uint64_t n = starts_of(w);

	return json_pack("{s:I,s:o,s:o,s:o}", "starts", (json_int_t)n, "meanSeconds",
			 n ? json_real(w->sum / (double)n) : json_null(), "p50AtMost", at_most(w, 0.5), "p95AtMost",
			 at_most(w, 0.95));
}

json_t *fw_stats_json(struct fw_serve *d)
{
	static const char *const sizes[] = {
#define FW__SIZE_LABEL(U, label, n) label,
		FW_WAIT_SIZES(FW__SIZE_LABEL)
#undef FW__SIZE_LABEL
	};
	const struct fw_serve_metrics *m = &d->m;
	json_t *waits = json_array(), *queues = json_array();
	fw_time now = fw_serve_now();

	for (int k = 0; k < FW_NWAIT_SIZES; k++) {
		json_t *o = waits_json(&m->size_wait[k]);
		json_object_set_new(o, "gpus", json_string(sizes[k]));
		json_array_append_new(waits, o);
	}
	for (int32_t i = 0; i < m->nqstat; i++) {
		json_t *o = waits_json(&m->qstat[i].wait);
		json_object_set_new(o, "queue", json_string(m->qstat[i].queue));
		json_object_set_new(o, "gpuHours", json_real(m->qstat[i].gpu_s / 3600.0));
		json_object_set_new(o, "lostGpuHours", json_real(m->qstat[i].lost_gpu_s / 3600.0));
		json_object_set_new(o, "evictions", json_integer((json_int_t)m->qstat[i].evictions));
		json_array_append_new(queues, o);
	}
	return json_pack(
		"{s:s,s:I,s:I,s:f,s:{s:I,s:I,s:I,s:o,s:o,s:o,s:o},s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I},s:{s:I,s:I},s:o,s:o}",
		"backend", d->bops->name, "startedAt", (json_int_t)m->started_at, "uptimeSeconds",
		(json_int_t)(now > m->started_at ? now - m->started_at : 0), "periodSeconds", d->opts->period_s,
		"cycles", "applied", (json_int_t)m->cycles, "stale", (json_int_t)m->stale, "failed",
		(json_int_t)m->failed, "meanSeconds", m->cycles ? json_real(m->lat_sum / (double)m->cycles) : json_null(),
		"lastSeconds", m->cycles ? json_real(m->lat_last) : json_null(), "maxSeconds",
		m->cycles ? json_real(m->lat_max) : json_null(), "lockedShare",
		m->busy_sum > 0 ? json_real(m->locked_sum / m->busy_sum) : json_null(), "decisions", "starts",
		(json_int_t)m->starts, "evictions", (json_int_t)m->evictions, "timedOut", (json_int_t)m->timed_out,
		"reservations", (json_int_t)m->reserves, "drains", (json_int_t)m->drains, "releases",
		(json_int_t)m->releases, "refused", (json_int_t)m->actions_failed, "api", "requests",
		(json_int_t)m->http_requests, "errors", (json_int_t)m->http_errors, "waits", waits, "queues", queues);
}
