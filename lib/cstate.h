/*
 * cstate.h — the cycle's private, mutable working state (lib/ only).
 *
 * fw_cycle_run() never mutates the snapshot.  It derives this state from it
 * once (build phase) and then mutates only this, all of it in the arena:
 *
 *   nodes     per-node free capacity: milli-GPU used per GPU, CPU and
 *             memory left, and the count of whole free GPUs;
 *   domains   the topology as a tree of domains over *domain levels*:
 *             dl 0 is the root (the whole cluster), dl 1..L are the
 *             snapshot's topology levels 0..L-1, and dl L+1 is the node
 *             itself (one domain per node).  Nodes are sorted by path so
 *             every domain owns a contiguous range of `order`.
 *   index     per domain level, a bucket array keyed by whole free GPUs
 *             with a bitmap of non-empty buckets, so "the smallest domain
 *             at level dl with at least N free GPUs" is a bitmap scan plus
 *             a list walk, not a scan of every node (domain.c).
 *
 * Aggregates kept per domain: free whole GPUs and a histogram of its nodes
 * by whole free GPUs (hist[k] = nodes with k free).  From the histogram,
 * the number of g-GPU tasks a domain can hold is sum_k hist[k]*floor(k/g),
 * exact for whole-GPU tasks (CPU, memory and GPU model are checked when
 * tasks are assigned to nodes).
 */
#ifndef FAIRWAY_CSTATE_H
#define FAIRWAY_CSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fairway/arena.h"
#include "fairway/policy.h"
#include "fairway/snapshot.h"

#define FW__HIST (FW_MAX_GPUS_PER_NODE + 1)

/* Each GPU g (uint32_t) of a task's gpu_mask, lowest first: one step per
 * GPU held, not one per GPU of the node (the walks release tens of
 * thousands of tasks per cycle).  Bits past the node's limit are ignored.
 * Not nestable (one hidden variable). */
_Static_assert(FW_MAX_GPUS_PER_NODE < 32, "gpu_mask is 32 bits");
#define FW__GPU_BITS ((1u << FW_MAX_GPUS_PER_NODE) - 1u)
#define FW__FOR_EACH_GPU(g, mask)                                                        \
	for (uint32_t fw__m_ = (mask) & FW__GPU_BITS, g = fw__m_ ? (uint32_t)__builtin_ctz(fw__m_) : 0; \
	     fw__m_; fw__m_ &= fw__m_ - 1, g = fw__m_ ? (uint32_t)__builtin_ctz(fw__m_) : 0)

struct fw__node {
	int16_t used[FW_MAX_GPUS_PER_NODE]; /* milli-GPU in use per GPU */
	int64_t cpu_free, mem_free;
	int32_t whole_free;    /* GPUs fully free and usable */
	int32_t model;         /* index into cstate.models, -1 = no GPUs */
	int32_t dom;           /* its node-level domain */
	bool usable;           /* schedulable, not UNHEALTHY or DRAINING */
	bool suspect;          /* SUSPECT or a suspect GPU: big gangs avoid */
	bool lemon;            /* fault history: big gangs take it last */
	bool returning;        /* not usable now, usable from its back_at
				* (snapshot.h): in the index and the domains'
				* capacity with no GPU free, so a walk's clone
				* may make it usable then (reserve.c) */
};
/* One cache line: placement reads a node's record for every candidate;
 * at 72 bytes the bench's cycle took 30% longer (docs/performance.md,
 * forty-eighth session).  A new per-node fact goes in an array of its
 * own (as away does) unless it fits the padding. */
_Static_assert(sizeof(struct fw__node) == 64, "struct fw__node is one cache line");

/* Are there suspect (lemon) nodes placement must weigh: usable ones, or
 * returning ones a walk's clone brings back?  The gates of the health
 * rules (place.c init_attempt, the shape key, the estimates); the texts
 * count the usable ones alone (suspect_nodes, lemon_nodes). */
#define fw__any_suspect(c) ((c)->suspect_nodes + (c)->suspect_back > 0)
#define fw__any_lemon(c) ((c)->lemon_nodes + (c)->lemon_back > 0)

/* Is node n in the domain index, the histograms and the capacities: a
 * usable node, or one coming back (returning, with nothing free now)? */
static inline bool fw__indexed(const struct fw__node *n)
{
	return n->usable || n->returning;
}

struct fw__domain {
	int32_t level;         /* domain level dl */
	int32_t parent;        /* domain id, -1 for the root */
	int32_t first, last;   /* range in cstate.order */
	int32_t free_whole;
	int32_t cap_whole;     /* usable GPUs under it, and returning ones' */
	int32_t hist[FW__HIST];
	int32_t prev, next;    /* bucket list links (domain ids), -1 = none */
};

struct fw__level_index {
	int32_t first_dom, ndom; /* domains of this level are contiguous ids */
	int32_t maxcap;          /* largest cap_whole at this level */
	int32_t *head, *tail;    /* per free count, -1 = empty */
	uint64_t *bits;          /* bit k set: bucket k non-empty */
	int32_t nwords;
	int32_t max_free_initial;
};

/* The node and domain records written since the last reservation clone
 * (reserve.c), in the cycle's state or in the clone, each listed once
 * (the *_in flags).  fw__domain_node_changed lists them: every change of
 * a node's or a domain's record goes through it (a node's own fields are
 * written just before it is called; a dry placement's are rolled back
 * byte for byte).  The next clone copies only these from the cycle's
 * state; past cap_node it copies every node (`full_node`), past cap_dom
 * every domain and bucket head (`full_dom`), as the first does.  Apart:
 * a step that moves a few nodes' domains between buckets writes their
 * neighbours in the lists too (bucket_insert), so the domains overflow
 * where the nodes do not (2 of the 3 whole copies of a benchmark
 * cycle). */
struct fw__changes {
	int32_t *node, *dom;
	uint8_t *node_in, *dom_in;
	int32_t nnode, ndom, cap_node, cap_dom;
	bool full_node, full_dom;
};

struct fw__cstate {
	const struct fw_snapshot *s;
	const bool *ended;          /* per job: ended before the build (run-time
				     * limits, cycle.c); its GPUs count free.
				     * NULL: none */
	const struct fw_policy_ops *pol;
	struct fw_arena *arena;
	int32_t nn;
	struct fw__node *nodes;
	int32_t *order;          /* node indices sorted by topology path */
	int32_t ndl;             /* domain levels: nlevels + 2 */
	int32_t ndom;
	struct fw__domain *dom;
	struct fw__level_index *lvl;
	int32_t nmodels;
	char (*models)[FW_NAME_MAX];
	int64_t *model_free_initial; /* whole free GPUs per model at start */
	/* usable nodes per model by whole free GPUs, live: model m's counts
	 * at [m * FW__HIST ..] (kept by fw__domain_node_changed; a clone has
	 * its own copy, where a reserved node counts as 0 free, as in the
	 * domains' histograms).  NULL: not kept (then placement skips the
	 * model test) */
	int32_t *model_hist;
	int32_t root_hist_initial[FW__HIST];
	int32_t root_free_initial;
	struct fw_res capacity;
	/* health (health.h), counted at build for the HEALTH reason:
	 * nodes with GPUs that placement may use or that health took out */
	int32_t gpu_nodes, unhealthy_nodes, suspect_nodes, lemon_nodes;
	int32_t suspect_back, lemon_back; /* returning ones (not in the above):
					   * a walk's clone may take them */
	/* Away nodes: usable now, they leave at their away_at and are back
	 * at their back_at (snapshot.h).  Held from the start like a
	 * reservation's nodes (resv_until = away_at, resv_end = back_at or
	 * FW__NEVER; resv_job -1), so only work that ends by then lands on
	 * one now.  A walk's clone keeps one usable while no reservation
	 * holds it (away 1; 2 once one does, reserve.c hold: then it is a
	 * reserved node), and its searches keep_away: a gang is reserved
	 * there only for a window clear of the departure.  A byte per node
	 * (fw__away), NULL when there is none (naway = 0): while there are
	 * some, a job's end matters to placement without a reservation.
	 * Not a flag of struct fw__node, which stays 64 bytes. */
	uint8_t *away;
	int32_t naway;
	int32_t out_of_service;     /* UNHEALTHY or DRAINING nodes, schedulable
				     * or not: the drain phase's pre-check */
	int32_t health_lost_free;   /* idle GPUs on unhealthy nodes + bad GPUs */
	int32_t suspect_free;       /* whole free GPUs on suspect nodes */
	int32_t suspect_gang;       /* suspect_gang_gpus, defaulted */
	int32_t lemon_gang;         /* lemon_gang_gpus, defaulted */
	/* suspect and lemon nodes in topology order, and their whole free
	 * GPUs (kept by fw__domain_node_changed): small jobs try them first */
	int32_t *tainted, ntainted;
	int32_t *tainted_dom;       /* 4 * nn: place.c's scratch */
	int32_t tainted_free;
	int32_t tainted_hist[FW__HIST]; /* tainted nodes by whole free GPUs */
	/* ... and their lists per whole free GPUs (head/tail per count,
	 * next/prev per node, -1 = none): one-task jobs pick from these */
	int32_t tb_head[FW__HIST], tb_tail[FW__HIST];
	int32_t *tb_next, *tb_prev;
	/* Shapes whose tainted-first search failed (place.c), valid while
	 * tainted_gen stands: it moves when a tainted node gains GPUs. */
	uint32_t tainted_gen;
	struct { uint64_t key; uint32_t gen; } tainted_miss[64];
	/* placement scratch, sized once per cycle (place.c) */
	int32_t *scratch_cand;          /* 2 * nn */
	struct fw_task_alloc *scratch_tasks;
	void *scratch_undo;             /* struct undo[scratch_tasks_cap] */
	int32_t scratch_tasks_cap;      /* most tasks of any pending job */
	/* reservations (reserve.c): a job ending after resv_until[n] may not
	 * use node n; FW__NEVER when the node holds no reservation.  Several
	 * may hold one node, one after another in time; resv_end[n] is when
	 * the last of them is expected to end (FW__NEVER: one never does; 0:
	 * none holds it).  An away node is held from the cycle's start:
	 * resv_until its away_at, resv_end its back_at (FW__NEVER: never
	 * back) until a reservation after its return ends later, resv_job
	 * -1 until a reservation holds it. */
	fw_time *resv_until;
	fw_time *resv_end;
	int32_t *resv_job;              /* holder of the earliest one, -1 */
	struct fw__changes *chg;        /* shared with the clone; NULL until
					 * the first clone */
	/* node filters (snapshot.h), when the snapshot has any: filter.c's
	 * index.  filter_id per job_nodes entry, then per group_nodes entry
	 * (at njob_nodes + x; entries of one range share one); per filter its nodes in topology order (filter_topo,
	 * filter_n), its slots per level (fslot_first[f * ndl + dl] ..: the
	 * run topo[fslot_k0 .. fslot_k1) of one domain, fsum its usable
	 * nodes' whole free GPUs) and the histogram of those (fhist); per
	 * node its filters (fnode_list[fnode_first[n] ..]) and their slots
	 * (fnode_slot, ndl per entry).  fsum and fhist change with the
	 * nodes; a clone has its own copy (reserve.c).  job_entry: per job
	 * its job_nodes entry, -1 without one (the O(1) lookup that shapes
	 * and placement ask for every job; NULL when there is no filter). */
	int32_t *filter_id, nfilters, *job_entry;
	int32_t *gsig;                  /* per job with group filters: an id
					 * shared by the jobs whose groups name
					 * the same lists (filter.c), else -1;
					 * NULL when the snapshot has none */
	int8_t *gsig_apart;             /* per id x level dl: 1 when no domain
					 * of dl holds a node of every listed
					 * group (fw__groups_apart), 0 when
					 * one does, -1 not asked yet; static
					 * for the cycle, shared with clones */
	/* slices (snapshot.h "Slices", slice.c), when the snapshot has any:
	 * ssig per job, an id shared by the jobs sliced alike, else -1 (NULL
	 * until fw__slice_build, and without slices); place.c's scratch to
	 * group a sliced group's candidates by domain (slice_scratch 4 * nn,
	 * slice_key nn, slice_slot per domain: -1 between uses). */
	int32_t *ssig;
	int32_t *slice_scratch, *slice_slot;
	int64_t *slice_key;
	char *filter_except;            /* per filter: an except list (no
					 * slots: placed through the domain
					 * index, its few nodes tested) */
	int32_t **filter_topo, *filter_n;
	int32_t *fslot_first, *fslot_k0, *fslot_k1, *fsum, nfslots;
	int32_t *fslot_dom;             /* per slot: its domain */
	int32_t *fnode_first, *fnode_list, *fnode_slot;
	int32_t *fhist;                 /* nfilters x FW__HIST */
	int64_t *filter_key;            /* place.c's scratch: nn + 1 */
};

/* Does usable node n leave later (the away nodes, above)? */
static inline bool fw__away(const struct fw__cstate *c, int32_t n)
{
	return c->away && c->away[n];
}

#define FW__NEVER INT64_MAX

/* Node n's domain at level dl (0 = the root). */
static inline int32_t fw__ancestor(const struct fw__cstate *c, int32_t n, int32_t dl)
{
	int32_t d = c->nodes[n].dom;

	while (c->dom[d].level > dl)
		d = c->dom[d].parent;
	return d;
}

/* Is x in v[0..n), ascending?  (A job's node filter, snapshot.h.) */
static inline bool fw__in_sorted(const int32_t *v, int32_t n, int32_t x)
{
	int32_t lo = 0, hi = n;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

/* filter.c: the slot of (indexed, allow-list) filter f at level dl over
 * domain d, -1 when none of f's nodes is in d: a binary search by
 * topology position.  Its fsum: the whole free GPUs of f's usable nodes
 * in d. */
/* Does no domain of level dl hold a listed node of every group of job jx
 * that has a list of its own (except lists and groups without an index
 * aside)?  Then no domain of dl can hold the whole gang.  Memoised per
 * group signature and level (gsig_apart). */
bool fw__groups_apart(struct fw__cstate *c, int32_t jx, const int32_t *gfid, int ngroups, int32_t dl);
int32_t fw__filter_slot_over(const struct fw__cstate *c, int32_t f, int32_t dl, int32_t d);
/* filter.c: may some group of jx use node n (by the group filters
 * alone)? */
bool fw__some_group_may_use(const struct fw_snapshot *s, int32_t jx, int32_t n);

/* May job jx start anything on node n?  Its node filter, when it has one,
 * and when its groups have filters of their own (snapshot.h "Group
 * filters"), some group's: the pruning tests ask this, placement asks
 * fw__group_may_use per task. */
static inline bool fw__job_may_use(const struct fw_snapshot *s, int32_t jx, int32_t n)
{
	return (s->njob_nodes == 0 || fw_snapshot_job_may_use(s, jx, n)) &&
	       (s->ngroup_nodes == 0 || fw__some_group_may_use(s, jx, n));
}

/* May group g of job jx start a task on node n? */
static inline bool fw__group_may_use(const struct fw_snapshot *s, int32_t jx, int g, int32_t n)
{
	if (s->ngroup_nodes == 0)
		return s->njob_nodes == 0 || fw_snapshot_job_may_use(s, jx, n);
	return fw_snapshot_group_may_use(s, jx, g, n);
}

/* domain.c */
int fw__cstate_build(struct fw__cstate *c, const struct fw_snapshot *s,
		     struct fw_arena *a);
/* The same, with the running jobs marked in ended (NULL: none) left off
 * the nodes. */
int fw__cstate_build_ended(struct fw__cstate *c, const struct fw_snapshot *s, struct fw_arena *a,
			   const bool *ended);
/* Apply a change of node n's whole-free count to every domain above it. */
void fw__domain_node_changed(struct fw__cstate *c, int32_t n, int32_t old_free);
/* First domain at level dl with free_whole >= need, in bin-pack order
 * (fewest free first) or spread order (most free first); then the next
 * after `after`.  -1 when none. */
int32_t fw__domain_first(const struct fw__cstate *c, int32_t dl, int32_t need, bool spread);
int32_t fw__domain_next(const struct fw__cstate *c, int32_t d, bool spread);
/* Tasks of g whole GPUs the domain can hold (histogram bound). */
int64_t fw__domain_capacity(const struct fw__domain *d, int32_t g);
/* fw__domain_capacity(d, g) >= want, without the whole sum when the
 * fullest buckets already hold want (placement asks it of each domain). */
bool fw__domain_holds(const struct fw__domain *d, int32_t g, int64_t want);
int32_t fw__model_id(const struct fw__cstate *c, const char *name);
/* Recompute whole_free of node n from its used[] and the bad-GPU mask. */
int32_t fw__node_whole_free(const struct fw__cstate *c, int32_t n);

/* filter.c: build the node filters' index (once per cycle), and keep it
 * as node n's whole free GPUs go from old_free to new_free. */
int fw__filter_build(struct fw__cstate *c);
void fw__filter_node_changed(struct fw__cstate *c, int32_t n, int32_t old_free, int32_t new_free);

/* slice.c: ssig (once per cycle, after fw__cstate_build), and the
 * scratch place.c groups a sliced group's candidates in (with
 * fw__place_scratch).  FW_OK or FW_ENOMEM; nothing without slices. */
int fw__slice_build(struct fw__cstate *c);
int fw__slice_scratch(struct fw__cstate *c);

/* drain.c: may job j use suspect nodes? (small or preemptible) */
bool fw__may_use_suspect(const struct fw__cstate *c, const struct fw_job *j);
/* drain.c: does job j take lemon nodes last? (big and not preemptible) */
bool fw__avoids_lemon(const struct fw__cstate *c, const struct fw_job *j);

/* place.c */
struct fw__placement {
	int32_t ntasks;
	struct fw_task_alloc *tasks; /* arena, ntasks entries */
	bool shape_fit;              /* some domain had the GPUs for it */
};
/* Size the scratch buffers for jobs of up to max_tasks tasks. */
int fw__place_scratch(struct fw__cstate *c, int32_t max_tasks);
struct fw__place_opts {
	fw_time end;        /* when the job would end; FW__NEVER if unknown */
	bool ignore_resv;   /* disregard reservations (to explain a failure) */
	bool keep_away;     /* with ignore_resv: still keep off an away node
			     * (cstate.h) when [start, end) reaches into
			     * its departure [away_at, back_at) */
	fw_time start;      /* with keep_away: when the job would start */
	bool dry;           /* find a placement but commit nothing */
	int32_t only_model; /* 0: as the job says; m + 1: its groups that
			     * name no GPU model use model m only (GPU model
			     * limits, modellimit.c) */
};
/* Try to place job j all-or-nothing (at least min_member tasks).  On
 * success fills *out, commits the capacity (unless o->dry) and returns
 * FW_OK; otherwise leaves the state unchanged and returns FW_EDECLINED
 * (or FW_ENOMEM). */
int fw__place_job(struct fw__cstate *c, int32_t j, const struct fw__place_opts *o,
		  struct fw__placement *out);
/* Could job j newly fit in the domain of its required level (the root
 * without one) that holds node n, whose room just grew while the other
 * nodes stayed as they were when j last failed?  Only if a group of j may
 * use n's GPU model and that domain has `need` (its whole GPUs for sure)
 * free and, for a rigid gang, room for each whole-GPU group's tasks node
 * by node (its histogram, as the search's hist_ok).  A no is sure: in a
 * domain no such node changed, the search fails as it did.  Asked for a
 * reclaim victim's nodes (preempt.c) and a walk step's (estimate.c). */
bool fw__room_near(const struct fw__cstate *c, const struct fw_job *j, int32_t n, int64_t need);
/* Could job j, of one task, go on one of nodes[0..n)?  The test
 * fw__place_job's search makes of each node it visits (usable, the taint
 * rules of its last search, GPU model and count, CPU, memory, reservations
 * unless o->ignore_resv).  That search visits every node that could take
 * one task, so fw__place_job places such a job iff some node of the
 * cluster passes: after it declined, only a node whose state changed
 * since can take the job (the walks, reserve.c and estimate.c). */
bool fw__place_one_fits(struct fw__cstate *c, int32_t j, const struct fw__place_opts *o, const int32_t *nodes,
			int32_t n);

#endif
