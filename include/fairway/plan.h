/*
 * plan.h — what a scheduling cycle decides, and why.
 *
 * A plan is the only output of fw_cycle_run().  It is a list of decisions
 * (start, evict, reserve, drain), each with a reason, plus one entry per
 * pending job that did not start, saying why (a numeric reason with up to
 * two numeric arguments, so a UI can render it and a test can assert it),
 * plus each queue's fair share and allocation after the plan.
 *
 * Reasons are an X-macro list: the enum, the stable snake_case name used in
 * JSON and the printf template all come from FW_REASON_MAP.  The template
 * takes the two int64 arguments a and b in that order, each as a number
 * or, where the list's args column says so, as a span of seconds in
 * words (span.h: "in 7h00m", not "in 25200 s") or as a time in the
 * words of the snapshot's clock (span.h fw_time_format: "t=125200" for
 * virtual seconds; "2026-12-06T16:42:05Z" where config.utc_times says
 * now is Unix time, as in the daemon and on Slurm).
 *
 * Start-time estimates.  Every pending entry also says when the job is
 * expected to start (lib/estimate.c), always after now: this plan does
 * not start it, so the next cycle is its earliest (now + 1 where any rule
 * below gives now: room this plan frees but does not fill, that of
 * evicted victims their preemptors left or of running jobs expected to
 * end just now, or a start bound that stopped the cycle):
 *   - a job with a reservation: the reservation's time (its pending
 *     entry's `a`), or sooner for a gang that starves first (below);
 *   - any other job: the earliest time its shape fits once running jobs
 *     and this plan's starts end at their expected end times, with every
 *     reserved node held until its reserved job is expected to end (the
 *     reservation walk of reserve.c, run dry, once for all shapes).  A
 *     running job past its expected end is expected to run as long again
 *     from now as it has run, but no later than its run-time limit (the
 *     smallest of its own and its queues' maxRuntime, where the cycle
 *     ends it): reservations, backfill and estimates all count on that
 *     end, so a reservation on its node is not at now cycle after cycle
 *     while the node's other GPUs stay idle;
 *   - and the jobs ahead count: the first config.estimate_depth blocked
 *     jobs of one task without a reservation (snapshot.h; default
 *     FW_ESTIMATE_DEPTH_DEFAULT), in the order allocate tried them, are
 *     placed one after another in a second dry walk, each at the first
 *     time it fits what the jobs before it left, and held there until
 *     its expected end (for ever without one): that time is its
 *     estimate.  In that walk a reserved node takes, until its
 *     reservation, a job that ends by then (as backfill does), and the
 *     reserved job holds its GPUs from its time to its end (unless a
 *     reserved node is out of service now or a node leaves later: then
 *     the reserved nodes are held as above).  A job past the depth, or
 *     a gang, keeps its shape's time, but no earlier than the latest
 *     such estimate of a job of its shape tried before it.  So 500
 *     identical 1-GPU jobs behind a full cluster read 500 times (as deep
 *     as the depth), not one.  Nothing is held in the plan: the
 *     decisions are the same at every depth;
 *   - under a strict-order policy (FIFO), never before any job ahead of
 *     it in its line (the whole order), and unknown (HEAD_OF_LINE) behind
 *     a job whose start is unknown.  A job behind the line's head keeps
 *     that reason (HEAD_OF_LINE, as with estimate_starts off) while its
 *     start is known, even if a budget floors it (below); the budget
 *     names the reason only when it makes the start unknown.  A policy
 *     that skips ahead starts a later job as soon as it fits without
 *     delaying a reservation, which the walk models by holding the
 *     reserved nodes, so a job's place in its line does not raise its
 *     estimate there.
 *   - under a policy with a starvation age (policy.h starve_after_s), a
 *     gang is tried ahead of the fair-share order once it has waited that
 *     long, behind the older gangs.  The 64 oldest waiting gangs are
 *     placed, oldest first, in a time profile of free task slots (whole
 *     free GPUs, or whole free g-GPU slots per node when every one of
 *     them asks for tasks of g GPUs: two 8-GPU tasks need two free nodes,
 *     not 16 GPUs; running jobs' and this plan's ends, reservations
 *     held), topology aside, each at the first time it fits for its
 *     runtime: a gang with no reservation no earlier than its estimate
 *     above and its starving time (submit + the age); a reserved gang
 *     that is not starving yet and whose reservation lies beyond its
 *     starving time, from its starving time on, if that is sooner than
 *     its reservation (the checker allows a reserved job's estimate
 *     before its reservation for such a gang only).
 *   - a job below its queue's fair share that reclaim would make room
 *     for but for its victims' minimum runtime (MIN_RUNTIME: a = the
 *     queue of the last victim it counts, b = the time the room is
 *     theirs to take, lib/minrun.c): no later than b.
 *   - a preemptor that waits for its victims' checkpoints
 *     (CHECKPOINT_WAIT, config checkpoint_grace_s: a = the victim whose
 *     checkpoint comes last, b = that time): no later than b.
 *   - a job held over a GPU-hour budget (OVER_BUDGET): no sooner than
 *     the first second at which no queue on its way up is over its
 *     budget, the usage aged with the half-life while the subtree's
 *     running jobs (after this plan) feed it until their expected ends
 *     (lib/estimate.c refill); unknown (OVER_BUDGET) when a job with no
 *     expected end keeps it above for ever.  The checker holds it to the
 *     soonest the usage alone could fall below.
 *   - a job over a queue's limit (OVER_QUOTA, not QUEUE_LIMIT): no
 *     sooner than the first expected end of a job under a queue on its
 *     way up (running, or started by this plan) after which its request
 *     fits every limit there, the over-quota jobs tried before it
 *     holding theirs from now until their own such time plus their
 *     runtime (lib/estimate.c quota_at); unknown (OVER_QUOTA) when a job
 *     with no expected end keeps the limit full, under a GPU-hour
 *     budget, or past the first 256 such jobs of the cycle.  Any other
 *     waiting job under a limit (HEAD_OF_LINE ones included, which were
 *     never tried against it) is no sooner than that time either, and
 *     holds its room for the jobs after it (limit_floor).
 *   - a job whose queue's limit a starving gang holds (LIMIT_HELD, a =
 *     the gang, b = the queue; lib/allocate.c hold_limits): no sooner
 *     than that gang's expected start, unknown (LIMIT_HELD) when the
 *     gang's is.
 *     Past the estimate depth, the estimate ignores the capacity that
 *     other waiting jobs, not yet reserved, will take first, but for
 *     jobs of its own shape; within it, it counts them as the cycles to
 *     come will try them, as of now: it is the expected start, not a
 *     promise (a job that arrives later or ends sooner changes it).
 *     `ahead` counts the jobs ahead in its line still waiting.
 * Unknown (FW_TIME_UNKNOWN, with unknown_why and its arguments) when the
 * job is over quota and no end is known to make room (above; OVER_QUOTA: a = the excess in the resource's unit,
 * b = FW_LIMIT_ARG(the queue whose limit binds, the resource); QUEUE_LIMIT
 * when the job alone needs more than that limit, which it can then never
 * start under while the limit holds, a = its need, b the same; or MODEL_LIMIT: over a queue's limit on
 * a GPU model, a = the excess in milli-GPU, b = the limit's index in
 * snapshot.model_limits; OVER_BUDGET: its queue or an ancestor has used
 * its gpu_hour_budget and, as above, never falls below it, a = the used
 * GPU-hours, rounded down, b = the budget, rounded up; BUDGET_SHORT, under
 * config.budget_safe: its whole run, a GPU-hours rounded up, passes the b
 * GPU-hours, rounded down, that a budget on its way up has left after the
 * usage and the running jobs' remaining runs, and never will (the run is
 * longer than the budget), or it is not known when (a = -1: the job has
 * no bound, b = -1: a running job under that queue has none,
 * fw_job_bound; budget.h); a BUDGET_SHORT job is otherwise expected no
 * sooner than the first second its run fits what is left, counted alone),
 * when the GPUs it needs are held by jobs
 * with no expected runtime (UNKNOWN_RUNTIME: running; UNKNOWN_RESERVED:
 * the running ones leave room for it, but nodes are reserved for such
 * jobs, which the walk holds for ever from their reservation, a = its
 * GPUs, b = those reservations), or when the cluster can
 * never hold it (NEVER_FITS: its GPUs, in the cluster, of its model, in
 * one domain of its required level, or one task's on one node; TASK_CPU,
 * TASK_MEM: one task's CPU or memory, more than any usable node where
 * its GPUs, and its CPU, fit has).  Never means not even on the empty
 * cluster, whatever the job asks (no GPUs at all, or needs that no one
 * node meets together): a job nothing could ever make room for is not
 * UNKNOWN_RUNTIME.  Nor is a job NEVER_FITS that the cluster could hold
 * once health gives back what it holds out (nodes UNHEALTHY or DRAINING,
 * and SUSPECT ones for a gang that avoids them; lib/drain.c "mend"):
 * health passes, so its start is unknown for HEALTH (a = the nodes health
 * holds from it or took GPUs from, b = the nodes with GPUs).  Only a job
 * that would not fit even then (bigger than the whole fleet) never fits.
 * Reason values only ever get appended.
 *
 * A job that failed to place although some domain had the GPUs for it
 * says what its first task lacks on every usable node with room for its
 * GPUs (lib/allocate.c): NO_MODEL (none of them is of its model), NO_CPU,
 * NO_MEM (its need, and the most such a node has free, in the task's
 * unit), or, when each need alone is met somewhere, NO_RESOURCES (its
 * tasks, and the nodes that could hold its first task alone).
 *
 * A job that could not start for want of free whole GPUs at the cycle's
 * start says so in one of two ways.  A gang (several tasks, all at once)
 * is GANG_NO_FIT: a = the whole GPUs it needs, b = those free in the
 * cluster (too few, or not in whole-node pieces of its tasks' size).  A
 * job of one task that some usable node could hold once empty is
 * GPUS_BUSY, with the same a and b: it only waits for running jobs to
 * end (b >= a: the free GPUs are spread over nodes, none with a of them;
 * its text says so).  One task that no node could ever hold stays
 * GANG_NO_FIT, its start unknown for NEVER_FITS.  A fractional task
 * (a share of one GPU) that finds no GPU with its share free is
 * GPU_SHARE: a = its milli-GPU, b = the most any GPU of a usable node of
 * its model has free (lib/allocate.c explain_no_resources).
 *
 * Evictions say why: RECLAIMED, PREEMPTED, MODEL_RECLAIMED and MOVED are
 * made for a start that follows them in the plan (a = that job, b = its
 * queue) and the job is requeued; DRAINED (a = the node, b = its tasks
 * there) requeues a job off an unhealthy node, after that node's DRAIN
 * and before every start (the job may start again elsewhere later in the
 * same plan: the requeue and the restart, in that order); TIME_LIMIT
 * (a = the seconds it ran, b = its run-time limit, snapshot.h
 * fw_job_limit) ends a job for good, as Slurm ends one at its time
 * limit, and comes first.
 *
 * Determinism: decisions appear in the order the cycle made them; pending
 * entries in snapshot job order.  Rendering (fw_plan_format_*) uses only
 * integer and fixed-precision formatting, so equal plans render to equal
 * bytes.
 *
 * Ownership: the plan and all its arrays live in the arena the cycle was
 * given; they die with fw_arena_reset().
 */
#ifndef FAIRWAY_PLAN_H
#define FAIRWAY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "fairway/snapshot.h"

#define FW_DECISION_MAP(X) \
	X(START, start)    \
	X(EVICT, evict)    \
	X(RESERVE, reserve) \
	X(DRAIN, drain)

enum fw_decision_kind {
#define FW__DEC_ENUM(U, l) FW_DECIDE_##U,
	FW_DECISION_MAP(FW__DEC_ENUM)
#undef FW__DEC_ENUM
	FW_DECIDE_COUNT
};

/*   NAME            json name     args  template (a, b)
 * args says how the template takes a and b: NN both as numbers (%lld);
 * TS a as a time (%s: "t=125200", or "2026-12-06T16:42:05Z" where the
 * snapshot's times are Unix time: fw_sched_config.utc_times, span.h
 * fw_time_format) and b as a span of seconds in words (%s: "7h00m",
 * span.h); NT a as a number and b as a time; SS both as spans. */
#define FW_REASON_MAP(X)                                                       \
	X(NONE, none, NN, "no decision (%lld, %lld)")                          \
	X(STARTED, started, NN, "started: %lld GPUs (%lld)")                   \
	X(FAIRSHARE_ORDER, fairshare_order, NN,                                \
	  "waiting for its turn: the %lld GPUs it needs went to jobs served before it in fair-share order; %lld GPUs are free now") \
	X(OVER_QUOTA, over_quota, NN,                                          \
	  "over quota: %lld units over the limit of resource #%lld (rendered specially)") \
	X(GANG_NO_FIT, gang_no_fit, NN,                                        \
	  "not enough whole GPUs: it needs %lld whole GPUs at once and the cluster had %lld whole GPUs free (or not in whole-node pieces of the right size)") \
	X(TOPOLOGY, topology, NN,                                              \
	  "topology: the gang needs %lld GPUs inside one domain of its required level; the largest such domain has %lld free") \
	X(GPU_MODEL, gpu_model, NN,                                            \
	  "GPU model: it needs %lld GPUs of the requested model and only %lld are free") \
	X(NO_RESOURCES, no_resources, NN,                                      \
	  "no set of nodes with free GPUs has the CPU, memory and GPU model for all its tasks at once (%lld tasks; %lld nodes could hold the first alone)") \
	X(CYCLE_LIMIT, cycle_limit, NN,                                        \
	  "the cycle's start budget of %lld was used up (%lld jobs considered)") \
	X(HEAD_OF_LINE, head_of_line, NN,                                      \
	  "blocked behind job #%lld (strict order; %lld jobs ahead in its line)") \
	X(HAS_RESERVATION, has_reservation, TS,                                \
	  "reserved: nodes are held for it from %s (in %s)") \
	X(RESERVED, reserved, NT,                                              \
	  "it fits now but would delay the reservation of job #%lld (due at %s); it waits rather than push a reserved job back") \
	X(UNKNOWN_RUNTIME, unknown_runtime, NN,                                \
	  "it needs %lld GPUs; once every job with an expected runtime has ended %lld are free, the rest are held by jobs with no expected runtime") \
	X(NEVER_FITS, never_fits, NN,                                          \
	  "it needs %lld GPUs and this cluster can never hold it: at most %lld are ever usable in one place it may use (the cluster, GPUs of its model, one domain of its required topology level, one node for one task)") \
	X(NOT_ESTIMATED, not_estimated, NN,                                    \
	  "no estimate: start-time estimates are off in this snapshot's scheduler config (%lld, %lld)") \
	X(RECLAIMED, reclaimed, NN,                                            \
	  "evicted: its queue is above its fair share and job #%lld of the starving queue #%lld takes its GPUs") \
	X(PREEMPTED, preempted, NN,                                            \
	  "evicted: job #%lld of higher priority in the same queue (#%lld) takes its GPUs") \
	X(HEALTH, health, NN,                                                  \
	  "nodes unhealthy: %lld of the %lld nodes with GPUs (cordoned ones aside) are unhealthy, draining, suspect (on probation) or have bad GPUs; the others lack the free GPUs for it") \
	X(DRAIN_REQUEUE, drain_requeue, NN,                                    \
	  "drain: node #%lld is unhealthy; its %lld running jobs are evicted and requeued") \
	X(DRAIN_FINISH, drain_finish, NN,                                      \
	  "drain: node #%lld is unhealthy or draining; nothing new lands and its %lld running jobs may finish") \
	X(DRAINED, drained, NN,                                                \
	  "evicted: node #%lld it runs on is unhealthy and drained; the job is requeued (%lld of its tasks were there)") \
	X(MOVED, moved, NN,                                                    \
	  "moved: evicted and restarted on other nodes in this plan, to free a domain for gang job #%lld (queue #%lld)") \
	X(TASK_CPU, task_cpu, NN,                                              \
	  "one of its tasks needs %lld CPU millicores and no usable node has more than %lld where its GPUs fit: it can never start") \
	X(TASK_MEM, task_mem, NN,                                              \
	  "one of its tasks needs %lld MiB of memory and no usable node has more than %lld where its GPUs and CPU fit: it can never start") \
	X(NO_CPU, no_cpu, NN,                                                  \
	  "no node with free GPUs has the CPU for its first task: it needs %lld CPU millicores and such a node has at most %lld free") \
	X(NO_MEM, no_mem, NN,                                                  \
	  "no node with free GPUs has the memory for its first task: it needs %lld MiB and such a node has at most %lld MiB free") \
	X(NO_MODEL, no_model, NN,                                              \
	  "no node of the GPU model its first task asks for has the free GPUs for it: it needs %lld on one node and such a node has at most %lld free") \
	X(NODE_FILTER, node_filter, NN,                                        \
	  "it may start on %lld nodes only (its node filter, or a task group's: a nodeSelector, or Slurm's --constraint, --exclude, -w or partition), and they lack the room for it now: %lld GPUs are free there") \
	X(MODEL_LIMIT, model_limit, NN,                                        \
	  "over a GPU model limit: starting it would put its queue (or a parent queue) %lld milli-GPU over GPU model limit #%lld (rendered specially)") \
	X(CHECKPOINT_WAIT, checkpoint_wait, NT,                                \
	  "it takes the GPUs of job #%lld, which saves a checkpoint at %s: it waits for it rather than throw that job's work away") \
	X(SLICES, slices, NN,                                                  \
	  "slices: it needs %lld slices of its tasks, each inside one domain of the level its task group names, and those domains have room for %lld slices now") \
	X(MODEL_RECLAIMED, model_reclaimed, NN,                                \
	  "evicted: its queue holds more GPUs of a model than it deserves, and job #%lld of queue #%lld, below the GPUs of that model it deserves, takes them") \
	X(TIME_LIMIT, time_limit, SS,                                          \
	  "ended: it has run %s and its run-time limit (maxRuntime) is %s; it is stopped, not requeued") \
	X(OVER_BUDGET, over_budget, NN,                                        \
	  "over budget: its queue (or a parent queue) has used %lld GPU-hours, its decayed usage, of its budget of %lld (gpuHourBudget); it starts once usage decays below it") \
	X(BUDGET_SHORT, budget_short, NN,                                      \
	  "budget short: its whole run may use %lld GPU-hours and its queue (or a parent queue) has %lld left of its budget after its usage and what its running jobs may still use (budgetSafe)") \
	X(LEAVING, leaving, TS,                                                \
	  "it fits now only on nodes that leave at %s (in %s: a maintenance window or a reservation made outside fairway) and it would not end by then; it waits for other room or for their return") \
	X(GPUS_BUSY, gpus_busy, NN,                                            \
	  "GPUs busy: it needs %lld GPUs on one node and the cluster has %lld free now; running jobs hold the rest") \
	X(QUEUE_LIMIT, queue_limit, NN,                                        \
	  "over a queue limit for good: it needs %lld units of limit #%lld alone, more than the limit, so it can never start while that limit holds (rendered specially)") \
	X(UNKNOWN_RESERVED, unknown_reserved, NN,                              \
	  "it needs %lld GPUs, which no running job holds for ever, but the nodes with room for it are reserved for %lld jobs with no expected runtime, held for ever from their reservation on (give those a runtime)") \
	X(MIN_RUNTIME, min_runtime, NT,                                        \
	  "reclaim waits: the GPUs it needs are held by jobs of queue #%lld, above its fair share, that have not run their queue's minimum runtime (minRuntime) yet; reclaim may take them from %s") \
	X(GPU_SHARE, gpu_share, NN,                                            \
	  "GPU share busy: its first task needs %lld milli-GPU of one GPU and no GPU it may use has more than %lld milli-GPU free now; running jobs hold the rest") \
	X(NODES_OUT, nodes_out, NN,                                            \
	  "nodes out: the cluster could hold it only with %lld nodes now out of service (cordoned, unhealthy, draining or suspect) back (%lld nodes with GPUs then); it can start once they are back") \
	X(LIMIT_HELD, limit_held, NN,                                          \
	  "limit held: job #%lld, a gang waiting past the starvation age, waits for room under the limit of queue #%lld; until it starts, no later job of that queue takes the room it waits for")

enum fw_reason {
#define FW__REASON_ENUM(U, l, k, t) FW_REASON_##U,
	FW_REASON_MAP(FW__REASON_ENUM)
#undef FW__REASON_ENUM
	FW_REASON_COUNT
};

struct fw_decision {
	enum fw_decision_kind kind;
	enum fw_reason reason;
	int32_t job;            /* snapshot job index, -1 for node decisions */
	int32_t node;           /* for drain; -1 otherwise */
	fw_time at;             /* start/reserve time */
	int32_t alloc_first;    /* task placements in plan.allocs */
	int32_t alloc_count;
	int64_t a, b;           /* reason arguments */
};

#define FW_TIME_UNKNOWN ((fw_time)-1)

struct fw_pending {
	int32_t job;
	enum fw_reason reason;
	int64_t a, b;
	fw_time expected_start;     /* > now (a later cycle), or FW_TIME_UNKNOWN */
	enum fw_reason unknown_why; /* NONE when expected_start is known */
	int32_t ahead;              /* jobs ahead of it in its line, waiting */
	int64_t why_a, why_b;       /* unknown_why's arguments; for a job
				     * with a reservation (HAS_RESERVATION,
				     * its start known), why it did not
				     * start now: why_a the job whose
				     * reservation it would have delayed
				     * and why_b that one's time (it fit,
				     * reason RESERVED before it reserved),
				     * else why_a -1 and why_b the reason
				     * it did not fit (GANG_NO_FIT, ...) */
	int32_t untried;            /* HAS_RESERVATION only: what the
				     * reclaim phase could have tried for
				     * it but does not, for it holds a
				     * reservation (FW_UNTRIED_*; 0: none
				     * applied, or the policy does no
				     * reclaim) */
	int32_t spare;              /* always 0: no padding, so entries
				     * compare with memcmp */
	int64_t most_in_one;        /* FAIRSHARE_ORDER of a job that needs
				     * its GPUs in one place (one task: one
				     * node; a gang: one domain of its
				     * required level): the most whole GPUs
				     * free now in one such place, when
				     * fewer than a; else 0 (its text:
				     * "8 GPUs are free now, at most 4 on
				     * one node") */
};

/* fw_pending.untried: a running job the reclaim rules would take for it
 * (its leaf queue below its fair share, the victim's side above), or a
 * preemptible job of lower priority, past its protection, in its leaf
 * queue (preemption). */
#define FW_UNTRIED_RECLAIM 1
#define FW_UNTRIED_PREEMPT 2

struct fw_queue_result {
	double fair[FW_RES_COUNT];      /* fair share */
	double guaranteed[FW_RES_COUNT]; /* of fair: the deserved part (the
					  * rest is its over-quota part);
					  * fairshare.h */
	struct fw_res allocated;        /* after the plan */
	struct fw_res demand;           /* subtree demand */
	double usage;                   /* decayed usage at now */
	double weight, weight_eff;      /* over-quota weight, and after usage */
	int32_t limited_by;             /* FW_RES_* whose end among its
					 * siblings stopped its share short
					 * of its demand, or -1 (fairshare.h) */
};

struct fw_plan {
	fw_time now;
	struct fw_decision *decisions;
	int32_t ndecisions;
	struct fw_pending *pending;
	int32_t npending;
	struct fw_task_alloc *allocs;
	int32_t nallocs;
	struct fw_queue_result *queues; /* one per snapshot queue */
	int32_t nqueues;
	int64_t considered;             /* jobs the cycle tried to place */
};

const char *fw_decision_name(enum fw_decision_kind k);
const char *fw_reason_name(enum fw_reason r);
/* Bytes that hold any text of fw_reason_format, NUL included: the longest
 * template with both arguments at their widest, 20 characters
 * ("-9223372036854775808"); plan.c checks every template against it when
 * it compiles. */
#define FW_REASON_TEXT_MAX 256
/* Render a reason with its arguments, a time as virtual seconds
 * ("t=125200"); returns buf. */
char *fw_reason_format(enum fw_reason r, int64_t a, int64_t b, char *buf,
		       size_t n);
/* The same for job `job` of s, a time as s's clock writes it (UTC dates
 * with s->config.utc_times, span.h), naming what the numbers alone cannot: the
 * GPU model a `gpu_model` reason is about ("it needs 8 GPUs of model
 * B200 and only 0 are free", or "... and no node has that model" when no
 * node of s has it), the level of a `topology` or `slices` one ("inside
 * one rack").  Other reasons read as fw_reason_format's. */
char *fw_reason_format_job(const struct fw_snapshot *s, int32_t job, enum fw_reason r, int64_t a, int64_t b,
			   char *buf, size_t n);
/* A pending entry's reason for job r->job of s, as fw_reason_format_job,
 * and for a job with a reservation why it did not start now (why_a,
 * why_b): "...; not now: it fits, but would delay the reservation of j4
 * (due at t=9000)" (a time as fw_reason_format_job writes it), or
 * "...; not now: too few whole GPUs are free at once" (GANG_NO_FIT; a reason without such words by its name), then
 * what was not tried for it (untried): "; reclaim not tried: it holds a
 * reservation" (or "preemption", or "reclaim and preemption").
 * Bytes: FW_REASON_TEXT_MAX + FW_NAME_MAX hold it. */
char *fw_pending_format(const struct fw_snapshot *s, const struct fw_pending *r, char *buf, size_t n);

/* An OVER_QUOTA or QUEUE_LIMIT reason's b: the resource k (enum fw_res)
 * of queue q's limit, q the queue whose limit binds (the job's own, or an
 * ancestor).  A b under FW_RES_COUNT names the resource alone ("its
 * queue (or a parent queue)"). */
#define FW_LIMIT_ARG(q, k) (((int64_t)(q) + 1) * FW_RES_COUNT + (k))
#define FW_LIMIT_QUEUE(b) ((int32_t)((b) / FW_RES_COUNT) - 1)
#define FW_LIMIT_RES(b) ((int)((b) % FW_RES_COUNT))

/* Find the pending entry for job j (binary search); NULL if it started. */
const struct fw_pending *fw_plan_pending_for(const struct fw_plan *p, int32_t j);

#endif
