/*
 * reason.h — a plan reason in words, with names instead of indices.
 *
 * The core renders a reason with its two int64 arguments as they are
 * (plan.h FW_REASON_MAP, fw_reason_format): where an argument is an index
 * into the snapshot the cycle ran on, the text says "job #12", "queue #3"
 * or "node #0", which an API user cannot map to anything: the indices
 * live only as long as that snapshot.  The daemon renders its texts (the
 * decision log, /v1/plan, /v1/jobs) here instead, while the snapshot is
 * still at hand (cycle.c add_actions, view.c), so the indices become the
 * names they stand for.  Which argument is which, by how lib/ fills them:
 *
 *   RECLAIMED, MODEL_RECLAIMED,
 *   PREEMPTED, MOVED             a = the job the eviction makes room for,
 *                                b = its queue (lib/preempt.c record_evict)
 *   RESERVED                     a = the reserved job it would delay,
 *                                b = that reservation's time (allocate.c)
 *   HEAD_OF_LINE                 a = the job it waits behind, b = a count
 *   DRAIN_REQUEUE, DRAIN_FINISH,
 *   DRAINED                      a = the node, b = a count (lib/drain.c)
 *   STARTED                      a = the job's GPUs; b is never set (0),
 *                                so it is left out
 *   OVER_QUOTA, QUEUE_LIMIT      a = the excess (QUEUE_LIMIT: the job's
 *                                need) in the resource's own unit, b =
 *                                the queue whose limit binds and the
 *                                resource (plan.h FW_LIMIT_ARG): the
 *                                queue's name and its limit; the amount
 *                                is written in full (the core's text
 *                                rounds it to 3 significant digits:
 *                                "8e+05")
 *   MODEL_LIMIT                  a = the excess in milli-GPU, b = the
 *                                queue and its limit (plan.h): the
 *                                queue's name and the model's
 *   MIN_RUNTIME                  a = the queue whose jobs' minimum
 *                                runtime holds the room, b = when it
 *                                ends (lib/minrun.c): the queue's name,
 *                                its minRuntime and the time from now
 *   TIME_LIMIT                   a = the seconds the job ran, b = its
 *                                run-time limit (lib/cycle.c): as an
 *                                eviction's text (fw_serve_evict_text)
 *                                it names whose maxRuntime it is: the
 *                                job's own ("its own run-time limit",
 *                                and the queue that sets the same, if
 *                                one does) or else its queue's or an
 *                                ancestor's; and it has no work-lost
 *                                tail (the job ends; nothing is
 *                                requeued)
 *   OVER_BUDGET                  a = the used GPU-hours, rounded down,
 *                                b = the budget, rounded up (lib/
 *                                cycle_int.h fw__over_budget): for a
 *                                pending job (fw_serve_budget_text) it
 *                                names the queue over its gpuHourBudget
 *                                and says both amounts as they are (a
 *                                budget of 0.5 is not "1")
 *   BUDGET_SHORT                 a = the run's GPU-hours, rounded up,
 *                                b = what is left, rounded down (-1:
 *                                no bound, lib/cycle.c fw__budget_short):
 *                                for a pending job (fw_serve_short_text)
 *                                it names the queue whose budget is
 *                                short, what the run is (GPUs × the
 *                                bound that counts) and, when a running
 *                                job makes what is left unknown, that
 *                                job; the core's a and b as they are
 *
 * Every other reason, and an index out of range, reads as the core's text.
 * A time reads as s's clock writes it (fw_sched_config.utc_times, set by
 * the daemon's skeleton and the Slurm driver: "due at
 * 2026-12-06T16:42:05Z", fairway/span.h), never as raw Unix seconds.
 * Names are quoted: `job "train-7" of the starving queue "llm"`.  An
 * eviction's text ends with the work it loses (fw_serve_evict_text).
 */
#ifndef FAIRWAY_SERVE_REASON_H
#define FAIRWAY_SERVE_REASON_H

#include <stddef.h>
#include <stdint.h>

#include "fairway/fairway.h"

/* Bytes that hold any text of fw_serve_reason_text, NUL included: the
 * core's (FW_REASON_TEXT_MAX) with up to three names of FW_NAME_MAX - 1
 * characters in it, and up to 96 more (fw_serve_short_text's: two queues,
 * a job and the run's words, "(8 GPUs × its 2h00m maxRuntime)"); and of
 * fw_serve_evict_text, with the work lost after it ("; it loses 10m of
 * work (no checkpoint interval: the whole run)", the span up to
 * FW_SPAN_MAX - 1 characters, fairway/span.h).
 * test_serve_reason measures every reason. */
#define FW_SERVE_REASON_MAX (FW_REASON_TEXT_MAX + 3 * (FW_NAME_MAX - 1) + 96)
#define FW_SERVE_EVICT_MAX (FW_SERVE_REASON_MAX + 96)

/* The kind the daemon names a decision by (its decision log, GET
 * /v1/decisions?kind=, /v1/plan): the core's (start, evict, reserve,
 * drain), except that an eviction at a run-time limit (EVICT,
 * TIME_LIMIT) is "timeout": the job ends, nothing is requeued, and
 * /metrics and `fairway stats` count it apart from the evictions
 * (fairway_jobs_timed_out_total).  Rows the log kept from before (evict,
 * time_limit) were renamed by the store's migration 4 -> 5. */
#define FW_SERVE_KIND_TIMEOUT "timeout"
const char *fw_serve_kind_name(enum fw_decision_kind k, enum fw_reason r);

/* Render reason r with its arguments a, b, the indices among them looked
 * up in s (the snapshot the plan was made for); returns buf. */
char *fw_serve_reason_text(const struct fw_snapshot *s, enum fw_reason r, int64_t a, int64_t b, char *buf,
			   size_t n);

/* The same for an eviction of job j, ending with the work it loses: the
 * run since its last checkpoint at s->now (fw_job_lost_work; the whole
 * run without checkpoints), except for TIME_LIMIT (above); returns buf. */
char *fw_serve_evict_text(const struct fw_snapshot *s, const struct fw_job *j, enum fw_reason r, int64_t a, int64_t b,
			  char *buf, size_t n);

/* OVER_BUDGET (a, b: the core's) for pending job `job` of s, naming the
 * queue that has used its budget: the nearest on its way up with a
 * gpuHourBudget whose subtree's decayed usage at s->now (p->queues[].usage,
 * as the cycle sums it) is at or above it, with both amounts in GPU-hours.
 * The core's text when no queue is found (p NULL, an index out of range);
 * returns buf. */
char *fw_serve_budget_text(const struct fw_snapshot *s, const struct fw_plan *p, int32_t job, int64_t a, int64_t b,
			   char *buf, size_t n);

/* Under config.budget_safe, per queue of s: what its GPU-hour budget has
 * left once plan p is made, as the cycle counts it for BUDGET_SHORT
 * (the core's fw_budget_left, budget.h: the budget less its subtree's
 * decayed usage, the runs its running jobs may still make, a job p ends
 * at its run-time limit not among them, and p's starts).  The sums are
 * the cycle's own, so a job's b is its queue's gpu_s rounded down: the estimate
 * phase (config.estimate_starts) checks the waiting jobs again after
 * every start.  Without it a job's b may be from before later starts,
 * and fw_serve_short_text, finding no queue that agrees, says the core's
 * text. */
struct fw_serve_left {
	double gpu_s;      /* GPU-seconds left (queues with a budget;
			    * INFINITY for the rest);
			    * -INFINITY: a running job under it has no
			    * bound (fw_job_bound 0) */
	int32_t unbounded; /* the first such running job, else -1 */
};

/* One per queue of s, free()d by the caller; NULL when budgetSafe is off,
 * no queue has a budget, p is NULL, or out of memory. */
struct fw_serve_left *fw_serve_budget_left(const struct fw_snapshot *s, const struct fw_plan *p);

/* BUDGET_SHORT (a, b: the core's) for pending job `job` of s, with l from
 * fw_serve_budget_left for the same s and plan: it names the queue whose
 * budget is short, the first on the job's way up with a budget whose
 * left (l) cannot hold the run and is the core's b, and says what the run
 * is: its GPUs × its run-time limit (maxRuntime), else its runtime, else
 * its queue's defaultRuntime.  a = -1 (the job has no bound): the nearest
 * queue with a budget, which needs no l.  b = -1: the running job that
 * makes what is left unknown, by name.  The core's text when no queue
 * agrees with a and b (l NULL, an index out of range); returns buf. */
char *fw_serve_short_text(const struct fw_snapshot *s, const struct fw_serve_left *l, int32_t job, int64_t a,
			  int64_t b, char *buf, size_t n);

#endif
