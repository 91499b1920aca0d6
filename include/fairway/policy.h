/*
 * policy.h — scheduling policies as const ops tables.
 *
 * A policy is a `const struct fw_policy_ops` defined with designated
 * initialisers in policies/<name>.c and listed in the one registry in
 * policies/registry.c (the kernel's sched_class and sched_ext_ops are the
 * model).  The cycle calls the ops; a policy never sees the cycle's private
 * state, holds no globals and allocates nothing.
 *
 * Contract of each member (NULL always means "the documented default"):
 *
 *   name      Stable lower-case identifier used on the command line.
 *   summary   One line for --help.
 *
 *   job_before(s, a, b)
 *             Called while the cycle sorts each leaf queue's pending jobs,
 *             before any placement.  Returns true when job a must be tried
 *             before job b.  May read the snapshot only.  Must be a strict
 *             weak order; the cycle breaks remaining ties on the job index,
 *             so the order is total and deterministic.
 *             Default: priority descending, then submit time ascending.
 *
 *   job_score(ctx, j)
 *             Called once per pending job per cycle, before sorting.
 *             Returns a priority; higher goes first, ahead of job_before.
 *             May read ctx (snapshot, capacity, decayed usage and fair
 *             share per queue) only.  Default (NULL): no score, order by
 *             job_before alone.
 *
 *   queue_order
 *             FW_QORDER_FAIRSHARE (default): at every level of the queue
 *             tree, serve the child queue furthest below its fair share
 *             (lowest allocated/fair dominant share; ties: priority, then
 *             index).  FW_QORDER_GLOBAL: ignore queues and walk all pending
 *             jobs in job_before order (FIFO-like baselines).
 *
 *   strict_order
 *             false (default): a job that cannot start is skipped and the
 *             next one is tried.  true: the first job that cannot start
 *             blocks every job behind it in the same order (head-of-line
 *             blocking, as a strict FIFO does).
 *
 *   reserve_depth
 *             How many blocked jobs per cycle get a reservation: the
 *             earliest time, and the nodes, at which the gang fits once
 *             running jobs end at their expected end times.  A job may
 *             then start now only if it delays no reservation: it ends
 *             before the reservation starts, or it keeps off the reserved
 *             nodes.  0 (default) = no reservations, no backfill
 *             protection; 1 = EASY backfill.  For a policy with > 0,
 *             the snapshot's config.reserve_depth overrides it (> 0:
 *             that many, < 0: none); a policy with 0 ignores it.
 *
 *   spread_default
 *             false (default): bin-pack — prefer the fullest node/domain
 *             that fits, so whole nodes and domains stay free for big gangs.
 *             true: prefer the emptiest.  A job's own `spread` flag wins.
 *
 *   reclaim
 *             false (default): running jobs are never evicted.  true: after
 *             allocate, the reclaim phase (lib/preempt.c) may evict
 *             running, preemptible jobs whose queue's min_runtime_s has
 *             passed, (a) of queues that stay at or above their fair share,
 *             for a job of a queue below its fair share, and (b) of lower
 *             priority in the same leaf queue; only when the job it evicts
 *             for starts in the same plan.
 *
 *   xfactor_cap_s
 *             0 (default): inside a leaf queue, jobs of equal priority go
 *             in submit order.  > 0: by expansion factor first (Maui's
 *             XFactor), highest first: xf = (wait + r) / r, wait = now -
 *             submit_time, r = the job's runtime (fw_job_runtime; this cap
 *             when unknown) clamped to [60 s, xfactor_cap_s].  A short job
 *             passes a long one once it has waited a like share of its own
 *             length; a job of the cap or longer counts as one of the cap,
 *             so its factor grows as fast as any long job's and it is not
 *             held back behind every shorter one.  Compared on a log
 *             scale, 16 steps per doubling of wait / r (cycle.c
 *             xfactor_steps; factors within about 4% tie); ties by
 *             submit time, then job index.  Priority still comes first.
 *             At most FW_XFACTOR_CAP_MAX (a year).
 *             The snapshot's config.xfactor_cap_s overrides it (< 0: off).
 *             A policy with job_before or job_score keeps its own order.
 *
 * Users inside a queue (not a member: the snapshot's
 * config.user_fair_share, YAML scheduler.userFairShare; off by default).
 *             For a policy whose line is per leaf queue (queue_order not
 *             FW_QORDER_GLOBAL: fairway, kai), after the line is sorted as
 *             above, each run of one priority is reordered so that the
 *             queue's users take turns: a job's key is the milli-GPUs its
 *             user holds in this queue (running jobs) plus those its
 *             user's jobs ahead of it in the line ask; lower keys first,
 *             ties in the line's order (so a user's own jobs keep theirs).
 *             A user with nothing running goes before one holding 64 GPUs,
 *             and users with like jobs alternate: Slurm's fair share
 *             between the users of an account, inside one queue (which
 *             queue goes next, reclaim and preemption are unchanged).
 *             Past use counts too when the snapshot records it
 *             (snapshot.user_usage: a user's decayed GPU-seconds in the
 *             queue, which the simulator keeps): it adds the user's
 *             decayed usage now times ln 2 / half-life times the usage
 *             weight, a GPU count (a user who has held g GPUs for many
 *             half-lives counts g more; usage weight 0: none), so a
 *             user who ran 64 GPUs all last week waits behind one who
 *             ran nothing, and the debt halves every half-life.
 *             Users are compared by name (fw_job.user; "" is one user).
 *
 *   max_evictions
 *             Bound on victims per cycle when `reclaim` is set.  0
 *             (default) = 32.
 *
 *   starve_after_s
 *             0 (default): the queue order alone decides.  > 0: before the
 *             fair-share order, the oldest jobs that have waited at least
 *             this long (up to reserve_depth of them, by submit time, then
 *             job index) are tried first: each starts, or earns one of the
 *             cycle's reservations.  A big gang of a queue above its share
 *             is otherwise tried after every newer job of the queues below
 *             theirs, and with a steady stream of those never reaches the
 *             reservations.  The snapshot's config.starve_after_s
 *             overrides it (< 0: off).
 *
 *   max_moves
 *             0 (default): no consolidation.  > 0: when a gang fails to
 *             fit although enough GPUs are free (fragmentation), up to
 *             this many single-task preemptible jobs per cycle may be
 *             moved (EVICT with reason MOVED, then START elsewhere in the
 *             same plan) if that frees room for the gang, which starts in
 *             the same plan.  Same victim rules as reclaim (protection,
 *             least work first, minimal set); nothing moves unless the
 *             gang and every moved job place.
 *
 *   reclaim_rule
 *             FW_RECLAIM_KEEP_SHARE (default, KAI's rule): the victim's
 *             queues stay at or above their fair share and the
 *             preemptor's at or below.  With jobs of several GPUs and
 *             queues of a few GPUs' share, that rarely holds, so queues
 *             stay far from their share for as long as jobs run.
 *             FW_RECLAIM_NARROW: also allowed when it narrows the gap
 *             between the two subtrees: below their lowest common
 *             ancestor, every queue on the victim's side keeps a share
 *             ratio (allocated / fair, dominant) at least every queue's
 *             on the preemptor's side after the move.  The reverse move
 *             would need the opposite, so two queues never trade a job
 *             back and forth while the fair shares hold still
 *             (lib/preempt.c, "A target that moves").
 */
#ifndef FAIRWAY_POLICY_H
#define FAIRWAY_POLICY_H

#include <stdbool.h>

#include "fairway/snapshot.h"

enum fw_queue_order { FW_QORDER_FAIRSHARE = 0, FW_QORDER_GLOBAL = 1 };
enum fw_reclaim_rule { FW_RECLAIM_KEEP_SHARE = 0, FW_RECLAIM_NARROW = 1 };

/* What job_score may read: all per-cycle values, computed once. */
struct fw_prio_ctx {
	const struct fw_snapshot *s;
	struct fw_res capacity;    /* usable capacity of the cluster */
	const double *usage;       /* per queue: decayed usage at now */
	const double *fair_gpu;    /* per queue: fair share, milli-GPU */
	double leaf_usage_total;   /* sum of leaf queues' usage */
	double leaf_deserved_total; /* sum of leaf queues' deserved GPUs */
};

struct fw_policy_ops {
	const char *name;
	const char *summary;
	bool (*job_before)(const struct fw_snapshot *s, const struct fw_job *a,
			   const struct fw_job *b);
	double (*job_score)(const struct fw_prio_ctx *ctx, const struct fw_job *j);
	enum fw_queue_order queue_order;
	bool strict_order;
	int reserve_depth;
	bool spread_default;
	bool reclaim;
	int max_evictions;
	enum fw_reclaim_rule reclaim_rule;
	int64_t starve_after_s;
	int max_moves;
	int64_t xfactor_cap_s;
};

/* The registry.  fw_policy_find returns NULL for an unknown name. */
const struct fw_policy_ops *fw_policy_find(const char *name);
const struct fw_policy_ops *fw_policy_default(void); /* "fairway" */
/* NULL-terminated list of every registered policy, in a fixed order. */
const struct fw_policy_ops *const *fw_policy_list(void);
/* The policies' names in the same order, NULL-terminated: the static
 * list a "did you mean" hint picks from (tools/cliword.h). */
const char *const *fw_policy_names(void);

#endif
