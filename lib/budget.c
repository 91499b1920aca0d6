/*
 * budget.c — the sums behind GPU-hour budgets (the rules: budget.h).
 * Each is one pass in a fixed order, so every caller gets the same doubles.
 */
#include <math.h>

#include "fairway/budget.h"
#include "fairway/fairshare.h"

void fw_budget_used(const struct fw_snapshot *s, double *used)
{
	for (int32_t q = 0; q < s->nqueues; q++)
		used[q] = 0;
	for (int32_t q = 0; q < s->nqueues; q++) {
		double u = fw_usage_decay(s->queues[q].usage, s->queues[q].usage_at, s->now,
					  s->config.usage_half_life_s);
		for (int32_t k = q, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++)
			used[k] += u > 0 ? u : 0;
	}
}

double fw_run_left(fw_time bound, int64_t gpus, fw_time at, fw_time now)
{
	fw_time rest = at + bound - now;

	if (gpus <= 0)
		return 0;
	if (bound <= 0)
		return INFINITY;
	return rest > 0 ? (double)gpus / 1000.0 * (double)rest : 0;
}

static int64_t gpus_of(const struct fw_task_alloc *t, int32_t n)
{
	int64_t g = 0;

	for (int32_t k = 0; k < n; k++)
		g += (int64_t)__builtin_popcount(t[k].gpu_mask) * t[k].gpu_milli;
	return g;
}

/* Job j's run of gpu_s GPU-seconds off every budget on its way up; the
 * first unbounded run under each is kept. */
static void take_off(const struct fw_snapshot *s, double *left, int32_t *unbounded, int32_t j, double gpu_s)
{
	for (int32_t k = s->jobs[j].queue, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++) {
		if (!(s->queues[k].gpu_hour_budget > 0))
			continue;
		left[k] -= gpu_s;
		if (unbounded && isinf(gpu_s) && unbounded[k] < 0)
			unbounded[k] = j;
	}
}

void fw_budget_left(const struct fw_snapshot *s, const struct fw_plan *p, const double *used, const fw_time *bound,
		    double *left, int32_t *unbounded)
{
	for (int32_t q = 0; q < s->nqueues; q++) {
		left[q] = s->queues[q].gpu_hour_budget > 0 ? s->queues[q].gpu_hour_budget * 3600.0 - used[q]
							    : INFINITY;
		if (unbounded)
			unbounded[q] = -1;
	}
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (job->state == FW_JOB_RUNNING)
			take_off(s, left, unbounded, j,
				 fw_run_left(bound ? bound[j] : fw_job_bound(s, job),
					     gpus_of(s->allocs + job->alloc_first, job->alloc_count), job->start_time,
					     s->now));
	}
	for (int32_t i = 0; p && i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		if (dc->kind != FW_DECIDE_START || dc->job < 0 || dc->job >= s->njobs ||
		    s->jobs[dc->job].state == FW_JOB_RUNNING)
			continue;
		take_off(s, left, unbounded, dc->job,
			 fw_run_left(bound ? bound[dc->job] : fw_job_bound(s, &s->jobs[dc->job]),
				     gpus_of(p->allocs + dc->alloc_first, dc->alloc_count), s->now, s->now));
	}
}
