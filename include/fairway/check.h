/*
 * check.h — the invariant checker.
 *
 * fw_plan_check() re-derives, independently of the cycle's own data
 * structures, the state the cluster would be in after applying a plan to a
 * snapshot, and checks that:
 *   - every decision is well formed before anything indexes with it: a
 *     known kind, a job (a node for DRAIN) of the snapshot, and a task
 *     range inside the plan's allocations;
 *   - no GPU, GPU fraction, CPU or memory of any node is over-committed
 *     (running tasks + started tasks), and no task uses a bad GPU or lands
 *     on an unschedulable node;
 *   - no queue is pushed over its limit by a start (a queue already over
 *     its limit, e.g. after the limit was lowered, may gain nothing), nor
 *     over its limit on a GPU model (snapshot.model_limits, counted on
 *     its way up in milli-GPUs);
 *   - every started gang is complete (at least min_member tasks, each with
 *     exactly its group's GPUs and milli, on a node of the requested GPU
 *     model) and lies inside one domain of its required level;
 *   - placement rules, for starts and reservations alike (check_tasks):
 *     every task on a node of the job's node filter (snapshot.job_nodes,
 *     an except entry: any node it does not list) and of its group's own
 *     (snapshot.group_nodes); a one_per_node group's tasks each on a node
 *     of their own; an apart group shares no node with another group of
 *     the job; a sliced group (snapshot.slices) is placed in whole
 *     slices, each inside one domain of its level; no task runs into its
 *     node's departure (away_at: ended by then, or started after back_at);
 *   - every reservation is for a pending job that does not start in the
 *     plan, one per job; it holds min_member to all of the job's tasks
 *     (no group more than its count), each sound as a started task is, in
 *     one domain of the job's required level; reservations that share a
 *     node follow each other in time (their windows [at, at + runtime)
 *     never overlap, check_windows), and at its time T every reserved
 *     GPU, CPU and byte of memory is free once the jobs expected to end
 *     by T have ended: no start of the plan (backfill) delays a reserved
 *     job;
 *   - every pending job that did not start has exactly one pending entry,
 *     in job order, with a reason; a job waiting for a victim's checkpoint
 *     (CHECKPOINT_WAIT) names a running evictable job this plan keeps,
 *     whose next checkpoint is within checkpoint_grace_s and sooner than
 *     its work since the last, and is expected no later than it;
 *   - every pending entry's start-time estimate is sane: a time >= now
 *     with no unknown-reason, or FW_TIME_UNKNOWN with one; a job with a
 *     reservation is expected at exactly its reservation's time, or, a
 *     gang only, sooner but after now (plan.h: it starves first);
 *   - every evicted job was running and preemptible, in a queue whose
 *     line up the tree is not nonpreemptible, had run at least its
 *     queue's min_runtime_s, is evicted once and not started (a START
 *     must name a pending job); its tasks count as freed before the
 *     starts; every run of EVICTs is followed at once by the START of the
 *     job they were made for (the EVICT's argument a), and that start
 *     uses a node of every one of them (no eviction for nothing); a job
 *     evicted with reason MOVED is started again in the plan;
 *   - deserved GPUs of a model (snapshot.model_deserved): no eviction for
 *     reclaim (RECLAIMED, MODEL_RECLAIMED) leaves a queue on the
 *     victim's side (on its line, not on the preemptor's) below what it
 *     deserves of a model the victim ran on, once the plan is applied
 *     (drained jobs still counted);
 *   - health (health.h): no task lands on an UNHEALTHY or DRAINING node,
 *     nor a non-preemptible gang of suspect_gang_gpus or more on a SUSPECT
 *     node (or one with a suspect GPU); a DRAINED eviction names an
 *     UNHEALTHY node the job has a task on, and is exempt from the
 *     preemptible, min-runtime and followed-by-a-start rules;
 *   - run-time limits: every running job that has run its limit (the
 *     smallest max_runtime_s of its own and from its queue to the root,
 *     recomputed here)
 *     is ended with a TIME_LIMIT eviction before any start, whose
 *     arguments are the seconds it ran and that limit; none is ended
 *     short of it (exempt, as DRAINED, from the preemptible, min-runtime
 *     and followed-by-a-start rules);
 *   - GPU-hour budgets: no job starts under a queue whose subtree's
 *     decayed usage at now has reached its gpu_hour_budget (recomputed
 *     here), but a running job's restart after a MOVED eviction;
 *     under config.budget_safe each start's whole run (its GPUs x
 *     fw_job_bound) fits what each budget on its way up has left after
 *     the usage, the runs the running jobs not evicted here may still
 *     make, and the plan's earlier starts; a job held over a budget
 *     (OVER_BUDGET), or too short of one (BUDGET_SHORT), is expected no
 *     sooner than the decayed usage could let it start.
 * The checks are naive on purpose (linear scans of the snapshot's tables,
 * the checker's own model index): they share no code with the cycle.
 * It runs after every plan in the tests, the simulator and debug builds.
 *
 * Returns FW_OK, or FW_EINVARIANT with d describing the first violation
 * (field names the job, node or queue).  Scratch memory comes from a.
 */
#ifndef FAIRWAY_CHECK_H
#define FAIRWAY_CHECK_H

#include "fairway/arena.h"
#include "fairway/err.h"
#include "fairway/plan.h"
#include "fairway/snapshot.h"

int fw_plan_check(const struct fw_snapshot *s, const struct fw_plan *p,
		  struct fw_arena *a, struct fw_diag *d);

#endif
