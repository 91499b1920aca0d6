/*
 * budget.h — GPU-hour budgets: what a queue's subtree has used, and what
 * it has left.
 *
 * (The rules' design essay; lib/budget.c computes them, lib/cycle.c
 * enforces them, lib/check.c checks a plan against them.)
 *
 * A budget (fw_queue.gpu_hour_budget, Slurm's GrpTRESMins=gres/gpu) caps
 * the decayed GPU usage of a queue and every queue under it: the same
 * usage fair share bends weights with (fairshare.h), in GPU-seconds
 * weighted by age.  Two rules, chosen by config.budget_safe:
 *
 *   plain (default)  while the subtree's usage at now is at or above the
 *                    budget, none of its jobs starts (OVER_BUDGET);
 *                    running jobs run on, so the usage may end above it;
 *   safe             (Slurm's AccountingStorageEnforce=safe) a job starts
 *                    only if its whole run fits what is *left*: the budget,
 *                    minus the usage, minus what the subtree's running jobs
 *                    may still use, each its GPUs × the time to the end of
 *                    its bound (fw_job_bound: its run-time limit, else its
 *                    planned runtime) (BUDGET_SHORT).  A running job with no
 *                    bound makes *left* unknown: nothing with GPUs starts
 *                    under it.
 *
 * Why the running jobs' whole runs and not their expected ends: a limit is
 * what the job may use, and a budget is a promise the admin made to the
 * people paying for it.  Slurm counts the same way.  The usage decays
 * while the runs go on, so *left* grows over time by the decay alone
 * (d left / dt = ln 2 / h × usage): a job short now may fit later, and
 * estimate.c says when.
 *
 * One sum, shared.  The cycle, the checker and the adapters (the daemon's
 * texts, metrics) must agree to the last bit, or a daemon would name a
 * queue the core did not mean.  So the sums live here, each queue's decayed
 * usage added to it and its ancestors in queue order, each running job's
 * run taken off in job order, then each start in plan order.
 */
#ifndef FAIRWAY_BUDGET_H
#define FAIRWAY_BUDGET_H

#include "fairway/plan.h"
#include "fairway/snapshot.h"

/* used[q], for each queue q of s: the decayed usage at s->now, in
 * GPU-seconds, of q and every queue under it (negative usages count 0).
 * used must hold s->nqueues elements. */
void fw_budget_used(const struct fw_snapshot *s, double *used);

/* The GPU-seconds a run of `gpus` milli-GPUs bounded by `bound` seconds
 * (fw_job_bound of its job) that started at `at` may still use at `now`
 * under budget_safe: gpus × (at + bound − now), 0 once past it or with no
 * GPUs; INFINITY when bound is 0 (none). */
double fw_run_left(fw_time bound, int64_t gpus, fw_time at, fw_time now);

/* budget_safe's *left* after plan p (NULL: before any decision), with
 * used from fw_budget_used and each job's bound (bound[j], or, bound NULL,
 * fw_job_bound: the cycle passes its own, computed once): left[q], for each queue q with a budget, is
 * its budget less used[q], less each running job's fw_run_left under it
 * (a job past its limit, which the cycle ends, has none left) and each of
 * p's starts' whole run (a moved running job's run was counted already);
 * -INFINITY when a running job under it has no bound, and then
 * unbounded[q] (when unbounded is not NULL) is the first such job, else
 * -1.  A queue without a budget gets INFINITY.  Jobs p evicts for any
 * other reason count as running on, as the cycle counts them when it
 * decides.  left (and unbounded) must hold s->nqueues elements. */
void fw_budget_left(const struct fw_snapshot *s, const struct fw_plan *p, const double *used, const fw_time *bound,
		    double *left, int32_t *unbounded);

#endif
