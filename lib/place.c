/*
 * place.c — all-or-nothing, topology-aware placement of one gang.
 *
 * Search, from tight to loose:
 *   for each domain level dl from the preferred level up to the required
 *   level (node < nvlink < rack < block < root):
 *     for each domain at dl with enough free whole GPUs, fullest first
 *     (bin-pack) or emptiest first (spread):
 *       if its histogram says every whole-GPU group could fit, try to
 *       assign the tasks to its nodes; the first success wins.
 * So "the smallest domain at the preferred level that fits" is an index
 * lookup (domain.c), a gang never leaves its required domain, and a large
 * gang only spreads to a larger domain when no smaller one can hold it.
 *
 * Assignment inside a domain: its usable nodes, sorted by free whole GPUs
 * ascending (bin-pack; descending for spread), then by topology order.  Each
 * task takes the first node that fits it (GPU model, CPU, memory, GPUs);
 * a fractional task first looks for an already-shared GPU with room (best
 * fit), then a free GPU.  Changes go straight into the node state with an
 * undo log; on failure they are rolled back, on success the domain
 * aggregates are updated once per touched node.
 *
 * Health (health.h): UNHEALTHY and DRAINING nodes are not usable and bad
 * GPUs never count (domain.c leaves both out of the index); a gang of
 * suspect_gang_gpus or more that is not preemptible skips SUSPECT nodes
 * (one flag test per candidate), so a domain's count may include suspect
 * GPUs it cannot use: the assignment then fails there and the search
 * moves on.  Lemon nodes (a fault history, health.h) are a soft version of
 * the same rule, graded by size.  A job of lemon_gang_gpus (default 64) or
 * more that is not preemptible first searches without them, and only when
 * that fails searches again with them, ranked last among equals, so it
 * takes as few as it must.  Every other job first tries to fit on the
 * suspect and lemon nodes it may use alone, and when it cannot, searches
 * as if none were tainted (ranking them first there instead measured no
 * better, docs/results-health.md): a failure costs a job its GPUs
 * times the work since its checkpoint, so the nodes most likely to fail
 * should hold the smallest work, and the healthy nodes they leave free go
 * to the big gangs.  A soft rule costs no occupancy: every job starts when
 * it would have started anyway.
 *
 * Cost of the "tainted first" search.  A one-task job (most small jobs)
 * takes the first fitting node from cstate's lists of tainted nodes per
 * free-GPU count, fewest free first: O(1) in the usual case.  A gang walks
 * only the domains above the tainted nodes (cstate.tainted, in topology
 * order, so each domain once per level and its tainted nodes one run of
 * that list), O(tainted nodes x levels).  Either is skipped when the
 * tainted nodes' histogram of free GPUs cannot hold the job, or when the
 * same shape already failed and no tainted node has gained GPUs since (a
 * per-cycle memo).  A cluster without suspect or lemon nodes never runs
 * it.  Measured: bench_cycle --lemons 5 --suspect 2 (docs/performance.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cstate.h"

struct undo {
	int32_t node;
	int32_t old_free;
};

struct attempt {
	struct fw__cstate *c;
	const struct fw_job *job;
	int32_t *cand;          /* candidate nodes of the current domain */
	int32_t ncand;
	struct fw_task_alloc *tasks;
	int32_t ntasks;
	struct undo *touched;
	int32_t ntouched;
	int32_t models[FW_MAX_GROUPS]; /* -2 = any, -1 = unknown model */
	const int32_t *allow;   /* the job's node filter, ascending; NULL: any */
	int32_t filter;         /* ... its filter_id (cstate.h) */
	int32_t nallow;
	const int32_t *deny;    /* or its except filter: the nodes it may not
				 * use, ascending (filter is its id then) */
	int32_t ndeny;
	const struct fw_group_nodes *gf[FW_MAX_GROUPS]; /* group filters (snapshot.h), NULL: none */
	int32_t gfid[FW_MAX_GROUPS]; /* ... their filter_id (filter.c indexes them
				      * too), -1 on a state built without the index */
	bool gfiltered;         /* some group has one */
	int32_t jx;             /* the job's index (its group signature) */
	bool spread;
	bool apart;             /* some group is apart (snapshot.h) */
	bool avoid_suspect;     /* a big gang: suspect nodes are out (health.h) */
	bool avoid_lemon;       /* a big gang's first search: lemons are out */
	bool lemon_last;        /* its second: lemons last among equals */
	bool tainted_first;     /* any other job: suspect/lemon nodes first */
	bool shape_fit;         /* some domain had the GPUs for the gang */
	int32_t slice_tasks[FW_MAX_GROUPS]; /* tasks per slice of group g
					     * (snapshot.h "Slices"); 0: none */
	int32_t slice_dl[FW_MAX_GROUPS];    /* ... each inside one domain of
					     * this level dl */
	bool sliced;                        /* some group is */
	const struct fw__place_opts *o;
};

static int32_t to_dl(const struct fw__cstate *c, int lvl, int32_t dflt)
{
	int32_t L = c->s->topology.nlevels;

	if (lvl == FW_LEVEL_NONE)
		return dflt;
	if (lvl == FW_LEVEL_NODE)
		return L + 1;
	return lvl + 1;
}

static bool node_fits(const struct attempt *t, int32_t n, int g, bool shared_only)
{
	const struct fw_task_group *grp = &t->job->groups[g];
	const struct fw__node *cn = &t->c->nodes[n];
	const struct fw_node *sn = &t->c->s->nodes[n];

	if (!cn->usable || cn->cpu_free < grp->cpu_milli || cn->mem_free < grp->mem_mib ||
	    (cn->suspect && t->avoid_suspect) || (cn->lemon && t->avoid_lemon))
		return false;
	/* the whole GPUs, asked again below: first, as most nodes scanned for
	 * a gang of big tasks lack them, before the filters' searches */
	if (grp->gpus > 0 && (grp->gpu_milli == 1000 || grp->gpus > 1) && cn->whole_free < grp->gpus)
		return false;
	if (!t->o->ignore_resv ? t->o->end > t->c->resv_until[n]
			       : t->o->keep_away && fw__away(t->c, n) && t->o->end > sn->away_at &&
					 (sn->back_at <= 0 || t->o->start < sn->back_at))
		return false;
	if (t->allow && !fw__in_sorted(t->allow, t->nallow, n))
		return false;
	if (t->deny && fw__in_sorted(t->deny, t->ndeny, n))
		return false;
	if (t->gfiltered && t->gf[g] &&
	    fw__in_sorted(t->c->s->node_refs + t->gf[g]->first, t->gf[g]->count, n) == (t->gf[g]->except != 0))
		return false;
	if (grp->gpus == 0)
		return true;
	if (t->models[g] != -2 && cn->model != t->models[g])
		return false;
	if (grp->gpu_milli == 1000 || grp->gpus > 1)
		return cn->whole_free >= grp->gpus;
	for (int k = 0; k < sn->gpu_count; k++) {
		if (sn->bad_gpu_mask & (1u << k))
			continue;
		bool shared = cn->used[k] > 0;
		if ((shared || !shared_only) && 1000 - cn->used[k] >= grp->gpu_milli)
			return true;
	}
	return false;
}

/* GPUs for one task of group g on node n: whole GPUs lowest index first; a
 * fraction on the shared GPU with the least room that fits, else the
 * lowest free GPU. */
static uint32_t pick_gpus(const struct attempt *t, int32_t n, int g)
{
	const struct fw_task_group *grp = &t->job->groups[g];
	const struct fw__node *cn = &t->c->nodes[n];
	const struct fw_node *sn = &t->c->s->nodes[n];
	uint32_t mask = 0;
	int best = -1, need = grp->gpus;

	for (int k = 0; k < sn->gpu_count && need > 0; k++) {
		if (sn->bad_gpu_mask & (1u << k))
			continue;
		if (grp->gpu_milli == 1000) {
			if (cn->used[k] == 0) {
				mask |= 1u << k;
				need--;
			}
			continue;
		}
		int room = 1000 - cn->used[k];
		if (room < grp->gpu_milli)
			continue;
		if (best < 0 || (cn->used[k] > 0 && (cn->used[best] == 0 || room < 1000 - cn->used[best])))
			best = k;
	}
	return grp->gpu_milli == 1000 ? mask : (best >= 0 ? 1u << best : 0);
}

static void touch(struct attempt *t, int32_t n)
{
	for (int32_t i = 0; i < t->ntouched; i++)
		if (t->touched[i].node == n)
			return;
	t->touched[t->ntouched].node = n;
	t->touched[t->ntouched].old_free = t->c->nodes[n].whole_free;
	t->ntouched++;
}

static void take(struct attempt *t, int32_t n, int g)
{
	const struct fw_task_group *grp = &t->job->groups[g];
	struct fw__node *cn = &t->c->nodes[n];
	struct fw_task_alloc *a = &t->tasks[t->ntasks++];

	touch(t, n);
	a->node = n;
	a->group = (int16_t)g;
	a->gpu_mask = grp->gpus ? pick_gpus(t, n, g) : 0;
	a->gpu_milli = grp->gpus ? grp->gpu_milli : 0;
	FW__FOR_EACH_GPU(k, a->gpu_mask)
		cn->used[k] = (int16_t)(cn->used[k] + a->gpu_milli);
	cn->cpu_free -= grp->cpu_milli;
	cn->mem_free -= grp->mem_mib;
	cn->whole_free = fw__node_whole_free(t->c, n);
}

/* Give back what tasks mark.. took (GPUs, CPU, memory; not whole_free). */
static void untake(struct attempt *t, int32_t mark)
{
	for (int32_t i = t->ntasks - 1; i >= mark; i--) {
		const struct fw_task_alloc *a = &t->tasks[i];
		const struct fw_task_group *grp = &t->job->groups[a->group];
		struct fw__node *cn = &t->c->nodes[a->node];
		FW__FOR_EACH_GPU(k, a->gpu_mask)
			cn->used[k] = (int16_t)(cn->used[k] - a->gpu_milli);
		cn->cpu_free += grp->cpu_milli;
		cn->mem_free += grp->mem_mib;
	}
}

static void rollback(struct attempt *t)
{
	untake(t, 0);
	for (int32_t i = 0; i < t->ntouched; i++)
		t->c->nodes[t->touched[i].node].whole_free = t->touched[i].old_free;
	t->ntasks = 0;
	t->ntouched = 0;
}

/* Roll back to the first `mark` tasks and `tmark` touched nodes (a slice
 * that did not fit whole): the nodes first touched since are restored
 * from the log, the others recounted. */
static void rollback_to(struct attempt *t, int32_t mark, int32_t tmark)
{
	untake(t, mark);
	for (int32_t i = tmark; i < t->ntouched; i++)
		t->c->nodes[t->touched[i].node].whole_free = t->touched[i].old_free;
	for (int32_t i = mark; i < t->ntasks; i++)
		t->c->nodes[t->tasks[i].node].whole_free = fw__node_whole_free(t->c, t->tasks[i].node);
	t->ntasks = mark;
	t->ntouched = tmark;
}

/* A stable partition: lemons after every other candidate. */
static void lemons_last(struct attempt *t)
{
	int32_t *out = t->cand + t->ncand, k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int32_t i = 0; i < t->ncand; i++)
			if (t->c->nodes[t->cand[i]].lemon == (pass == 1))
				out[k++] = t->cand[i];
	memcpy(t->cand, out, (size_t)t->ncand * sizeof *out);
}

static void sort_candidates(struct attempt *t)
{
	/* Counting sort by whole free GPUs (stable, so topology order holds
	 * inside a bucket): O(n + 17) instead of a comparison sort. */
	int32_t start[FW__HIST + 1] = { 0 };
	int32_t *out = t->cand + t->ncand;

	if (t->ncand < 2) /* a node-level domain: nothing to order */
		return;
	for (int32_t i = 0; i < t->ncand; i++)
		start[t->c->nodes[t->cand[i]].whole_free + 1]++;
	if (t->spread) { /* buckets high to low */
		int32_t acc = 0;
		for (int k = FW__HIST - 1; k >= 0; k--) {
			int32_t n = start[k + 1];
			start[k + 1] = acc;
			acc += n;
		}
		for (int32_t i = 0; i < t->ncand; i++)
			out[start[t->c->nodes[t->cand[i]].whole_free + 1]++] = t->cand[i];
	} else {
		for (int k = 1; k <= FW__HIST; k++)
			start[k] += start[k - 1];
		for (int32_t i = 0; i < t->ncand; i++)
			out[start[t->c->nodes[t->cand[i]].whole_free]++] = t->cand[i];
	}
	memcpy(t->cand, out, (size_t)t->ncand * sizeof *out);
	if (t->lemon_last)
		lemons_last(t);
}

/* Would a task of group g on node n share it with a task of another
 * group of the job where either group is apart?  (A scan of the tasks
 * placed so far: such jobs are Slurm's heterogeneous jobs, a few tasks;
 * a job without an apart group never gets here.) */
static bool clash(const struct attempt *t, int32_t n, int g)
{
	for (int32_t i = 0; i < t->ntasks; i++) {
		const struct fw_task_alloc *a = &t->tasks[i];
		if (a->node == n && a->group != g && (t->job->groups[g].apart || t->job->groups[a->group].apart))
			return true;
	}
	return false;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Up to `want` tasks of group g on the nodes cand[*from .. n), in that
 * order.  For a one_per_node group *from becomes the position after the
 * last node taken: the nodes before it hold a task of the group or did
 * not fit one (and only this job takes room during an attempt), so a
 * later call over the same nodes (the group's next slice) starts there. */
static int32_t place_run(struct attempt *t, int g, int32_t want, const int32_t *cand, int32_t n, int32_t *from)
{
	const struct fw_task_group *grp = &t->job->groups[g];
	bool fractional = grp->gpus == 1 && grp->gpu_milli < 1000;
	int32_t placed = 0;

	/* pass 0 (fractional tasks onto GPUs already shared) would let pass 1
	 * put a second task on a node: not for one_per_node groups */
	for (int pass = fractional && !grp->one_per_node ? 0 : 1; pass < 2 && placed < want; pass++) {
		int32_t i = *from;
		while (i < n && placed < want) {
			if (node_fits(t, cand[i], g, pass == 0) && !(t->apart && clash(t, cand[i], g))) {
				take(t, cand[i], g);
				placed++;
				i += grp->one_per_node; /* the next task on the next node */
			} else {
				i++;
			}
		}
		if (grp->one_per_node)
			*from = i;
	}
	return placed;
}

/* Ascending: an insertion sort for the few keys of the usual case (the
 * NVLink domains of a block: 50; already in order when their free GPUs
 * are alike), else qsort. */
static void sort_keys(int64_t *key, int32_t m)
{
	if (m > 64) {
		qsort(key, (size_t)m, sizeof *key, i64_cmp);
		return;
	}
	for (int32_t i = 1; i < m; i++) {
		int64_t v = key[i];
		int32_t k = i;
		for (; k > 0 && key[k - 1] > v; k--)
			key[k] = key[k - 1];
		key[k] = v;
	}
}

/* The candidates of a sliced group, grouped by their domain at level dl:
 * into out[] the candidates again, each domain's a run out[r0[k] ..
 * r0[k + 1]) that keeps their order, the domains in order of their
 * candidates' whole free GPUs, fewest first (most for spread), ties in
 * topology order (domain ids follow it).  Returns the domain count m;
 * r0 has m + 1 entries.  O(candidates x levels + m log m). */
static int32_t slice_domains(struct attempt *t, int32_t dl, int32_t *out, int32_t *r0)
{
	struct fw__cstate *c = t->c;
	int32_t n = t->ncand, m = 0, *anc = c->slice_scratch, *dom = anc + n, *pos = dom + n;
	int64_t *key = c->slice_key;

	for (int32_t i = 0; i < n; i++) {
		int32_t d = anc[i] = fw__ancestor(c, t->cand[i], dl);
		if (c->slice_slot[d] < 0) {
			c->slice_slot[d] = m;
			dom[m] = d;
			key[m++] = 0;
		}
		key[c->slice_slot[d]] += c->nodes[t->cand[i]].whole_free;
	}
	for (int32_t k = 0; k < m; k++) /* free GPUs (negated for spread), then the domain */
		key[k] = (t->spread ? -key[k] : key[k]) * ((int64_t)1 << 32) + dom[k];
	sort_keys(key, m);
	for (int32_t k = 0; k < m; k++) /* rank by domain, then each run's start */
		c->slice_slot[(int32_t)(key[k] & 0xffffffff)] = k, pos[k] = 0;
	for (int32_t i = 0; i < n; i++)
		pos[c->slice_slot[anc[i]]]++;
	r0[0] = 0;
	for (int32_t k = 0; k < m; k++)
		r0[k + 1] = r0[k] + pos[k], pos[k] = r0[k];
	for (int32_t i = 0; i < n; i++)
		out[pos[c->slice_slot[anc[i]]]++] = t->cand[i];
	for (int32_t k = 0; k < m; k++)
		c->slice_slot[(int32_t)(key[k] & 0xffffffff)] = -1;
	return m;
}

/* Group g in slices (snapshot.h "Slices"): each slice of its tasks in the
 * first domain of its level, in slice_domains' order, that holds it
 * whole; a slice that fits nowhere ends the group, so that only whole
 * slices are placed.  With bin-packing, the slices fill a domain before
 * the next: 128 tasks in slices of 16 on empty racks of 18 nodes take
 * 16 nodes of each of 8 racks. */
static int32_t place_slices(struct attempt *t, int g, int32_t want)
{
	int32_t size = t->slice_tasks[g], placed = 0, n = t->ncand;
	int32_t *out = t->c->slice_scratch + 3 * (size_t)n, *r0 = t->cand + n;
	int32_t *from = t->c->slice_scratch + 2 * (size_t)n; /* per domain: its run's resume point */
	int32_t m = slice_domains(t, t->slice_dl[g], out, r0); /* (its pos[] is from's room) */

	for (int32_t k = 0; k < m; k++)
		from[k] = 0;
	for (bool ok = true; ok && placed + size <= want; placed += ok ? size : 0) {
		ok = false;
		for (int32_t k = 0; k < m && !ok; k++) {
			int32_t mark = t->ntasks, tmark = t->ntouched, at = from[k];
			ok = place_run(t, g, size, out + r0[k], r0[k + 1] - r0[k], &at) == size;
			if (ok)
				from[k] = at;
			else
				rollback_to(t, mark, tmark);
		}
	}
	return placed;
}

static int32_t place_group(struct attempt *t, int g, int32_t want)
{
	int32_t from = 0;

	if (t->slice_tasks[g] > 0)
		return place_slices(t, g, want);
	return place_run(t, g, want, t->cand, t->ncand, &from);
}

static bool candidate(const struct attempt *t, const struct fw__node *n)
{
	return n->usable && !(n->suspect && t->avoid_suspect) && !(n->lemon && t->avoid_lemon);
}

/* Assign the tasks to the candidates in t->cand (all or at least
 * min_tasks); on failure roll back. */
static bool assign_candidates(struct attempt *t, int32_t min_tasks)
{
	int32_t placed = 0;

	sort_candidates(t);
	for (int g = 0; g < t->job->ngroups; g++)
		placed += place_group(t, g, t->job->groups[g].count);
	if (placed >= min_tasks)
		return true;
	rollback(t);
	return false;
}

static bool assign_in_domain(struct attempt *t, int32_t d, int32_t min_tasks)
{
	const struct fw__domain *dom = &t->c->dom[d];

	t->ncand = 0;
	for (int32_t i = dom->first; i < dom->last; i++)
		if (candidate(t, &t->c->nodes[t->c->order[i]]))
			t->cand[t->ncand++] = t->c->order[i];
	return assign_candidates(t, min_tasks);
}

static bool hist_ok(const struct attempt *t, const struct fw__domain *d, bool all)
{
	if (!all)
		return true;
	bool one = d->last - d->first == 1; /* one node: its free GPUs are its histogram */
	for (int g = 0; g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		if (grp->gpu_milli != 1000 || grp->gpus <= 0)
			continue;
		if (one ? d->free_whole < (int64_t)grp->gpus * grp->count
			: !fw__domain_holds(d, grp->gpus, grp->count))
			return false;
	}
	return true;
}

/* Could domain d hold every slice of each sliced whole-GPU group, by the
 * histograms of its domains at the slice level (a slice lands inside one
 * of them: their domain ids are a contiguous run, in topology order)?  A
 * bound, as hist_ok: a no is sure.  It spares the assignment in a rack
 * whose free nodes are there, but spread over its NVLink domains. */
static bool slices_ok(const struct attempt *t, int32_t d, bool all)
{
	const struct fw__cstate *c = t->c;

	for (int g = 0; all && t->sliced && g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		int32_t size = t->slice_tasks[g], dl = t->slice_dl[g];
		if (!size || grp->gpu_milli != 1000 || grp->gpus <= 0 || c->dom[d].level >= dl)
			continue;
		int32_t a = fw__ancestor(c, c->order[c->dom[d].first], dl);
		int32_t b = fw__ancestor(c, c->order[c->dom[d].last - 1], dl);
		int64_t fit = 0, want = grp->count / size;
		for (int32_t x = a; x <= b && fit < want; x++)
			fit += fw__domain_capacity(&c->dom[x], grp->gpus) / size;
		if (fit < want)
			return false;
	}
	return true;
}

static int32_t whole_need(const struct fw_job *j)
{
	int32_t n = 0;

	for (int g = 0; g < j->ngroups; g++)
		if (j->groups[g].gpu_milli == 1000)
			n += j->groups[g].count * j->groups[g].gpus;
	return n;
}

/* Could the usable nodes of each whole-GPU group's model hold all its
 * tasks, by the model's histogram (cstate.h model_hist; without one:
 * yes)?  Tainted nodes, and on the cycle's own state reserved ones,
 * count, so a no is sure. */
static bool model_could_fit(const struct attempt *t)
{
	const struct fw__cstate *c = t->c;

	if (!c->model_hist)
		return true;
	for (int g = 0; g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		int64_t cap = 0;
		if (grp->gpu_milli != 1000 || grp->gpus <= 0 || t->models[g] < 0)
			continue;
		const int32_t *h = &c->model_hist[t->models[g] * FW__HIST];
		for (int k = grp->gpus; k < FW__HIST; k++)
			cap += (int64_t)h[k] * (grp->one_per_node ? 1 : k / grp->gpus);
		if (cap < grp->count)
			return false;
	}
	return true;
}

/* Does domain d (level dl) hold, for each group with a list of its own,
 * a listed node and the group's whole GPUs free on its listed nodes (the
 * list's slot over d, filter.c; a fractional task may share a GPU, so
 * its group needs only the node)?  A bound (models, CPU, fragments
 * aside): a no is sure. */
static bool groups_room(const struct attempt *t, int32_t dl, int32_t d)
{
	for (int g = 0; g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		if (!t->gf[g] || t->gf[g]->except || t->gfid[g] < 0)
			continue;
		int32_t sl = fw__filter_slot_over(t->c, t->gfid[g], dl, d);
		if (sl < 0 || t->c->fsum[sl] < (grp->gpu_milli == 1000 ? (int64_t)grp->count * grp->gpus : 0))
			return false;
	}
	return true;
}

/* fw__groups_apart for this job: the groups groups_room asks. */
static bool groups_apart(const struct attempt *t, int32_t dl)
{
	int32_t ids[FW_MAX_GROUPS];

	for (int g = 0; g < t->job->ngroups; g++)
		ids[g] = t->gf[g] && !t->gf[g]->except ? t->gfid[g] : -1;
	return fw__groups_apart(t->c, t->jx, ids, t->job->ngroups, dl);
}

static bool search(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks)
{
	bool all = min_tasks == fw_job_tasks(t->job);
	int32_t need = all ? whole_need(t->job) : 0;
	bool doomed; /* its model has too few roomy nodes: no domain will do */

	/* No domain holds more than the whole cluster: when the root's
	 * histogram says no, skip the walk over every level's domains. */
	if (!hist_ok(t, &t->c->dom[0], all) || t->c->dom[0].free_whole < need)
		return false;
	/* One task lands on one node, and the domains of any one level that
	 * hold `need` free GPUs hold every node that does: the first level
	 * walked has tried every node a larger one would, with the same test.
	 * Walking on after it fails cost a scan of the whole cluster per job
	 * when free GPUs sit on reserved nodes (bench --seed 4: 1.09 s). */
	if (fw_job_tasks(t->job) == 1)
		req = pref;
	/* A job whose model lacks the room fails in every domain, after a
	 * scan of the model's nodes in each: it only learns shape_fit, from
	 * the first domain that has the GPUs, as the walk would (explain). */
	doomed = all && !model_could_fit(t);

	for (int32_t dl = pref; dl >= req; dl--) {
		/* groups whose lists no domain of this level holds together
		 * fail groups_room in each: the walk only learns shape_fit */
		bool apart = t->gfiltered && all && groups_apart(t, dl);
		if (apart && t->shape_fit)
			continue;
		for (int32_t d = fw__domain_first(t->c, dl, need, t->spread);
		     d >= 0 && t->c->dom[d].free_whole >= need;
		     d = fw__domain_next(t->c, d, t->spread)) {
			if (!hist_ok(t, &t->c->dom[d], all))
				continue;
			t->shape_fit = true;
			if (!slices_ok(t, d, all))
				continue;
			if (doomed)
				return false;
			if (apart)
				break;
			if (t->gfiltered && all && !groups_room(t, dl, d))
				continue;
			if (assign_in_domain(t, d, min_tasks))
				return true;
		}
	}
	return false;
}

/* The distinct domains at level dl above the tainted nodes this job may
 * use, with at least need free GPUs.  The tainted nodes are in topology
 * order, so those under one domain are a run tainted[k0[i] .. k1[i]).
 * Into ord[] go the indices 0..m-1, fullest domain first (emptiest for
 * spread), by a counting sort on free GPUs capped at FW__HIST - 1, so ties
 * and the larger domains stay in topology order.  Returns m. */
static int32_t tainted_domains(const struct attempt *t, int32_t dl, int32_t need, int32_t *dom,
			       int32_t *k0, int32_t *k1, int32_t *ord)
{
	const struct fw__cstate *c = t->c;
	int32_t m = 0, start[FW__HIST + 1] = { 0 };

	for (int32_t k = 0; k < c->ntainted; k++) {
		int32_t d = fw__ancestor(c, c->tainted[k], dl);
		if (m && dom[m - 1] == d) {
			k1[m - 1] = k + 1;
			continue;
		}
		dom[m] = d, k0[m] = k, k1[m] = k + 1;
		m++;
	}
	int32_t kept = 0; /* drop domains with too few free GPUs */
	for (int32_t i = 0; i < m; i++)
		if (c->dom[dom[i]].free_whole >= need)
			dom[kept] = dom[i], k0[kept] = k0[i], k1[kept] = k1[i], kept++;
	m = kept;
#define FW__KEY(i) ((c->dom[dom[i]].free_whole < FW__HIST ? c->dom[dom[i]].free_whole : FW__HIST - 1))
	for (int32_t i = 0; i < m; i++)
		start[(t->spread ? FW__HIST - 1 - FW__KEY(i) : FW__KEY(i)) + 1]++;
	for (int k = 1; k <= FW__HIST; k++)
		start[k] += start[k - 1];
	for (int32_t i = 0; i < m; i++)
		ord[start[t->spread ? FW__HIST - 1 - FW__KEY(i) : FW__KEY(i)]++] = i;
#undef FW__KEY
	return m;
}

/* Could the tainted nodes hold every whole-GPU task group, counted by
 * their histogram (the bound hist_ok uses for a domain)?  A cheap no
 * when their free GPUs are too few or too fragmented. */
static bool tainted_could_fit(const struct attempt *t, bool all)
{
	const struct fw__cstate *c = t->c;

	for (int g = 0; all && g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		int64_t cap = 0;
		if (grp->gpu_milli != 1000 || grp->gpus <= 0)
			continue;
		for (int k = grp->gpus; k < FW__HIST; k++)
			cap += (int64_t)c->tainted_hist[k] * (k / grp->gpus);
		if (cap < grp->count)
			return false;
	}
	return true;
}

/* One task of whole GPUs (the common small job)? */
static bool one_whole_task(const struct attempt *t)
{
	const struct fw_task_group *grp = &t->job->groups[0];

	return t->job->ngroups == 1 && grp->count == 1 && grp->gpus > 0 &&
	       (grp->gpu_milli == 1000 || grp->gpus > 1);
}

/* One task of whole GPUs: the first tainted node that fits, from the
 * lists by free GPUs, fewest free first (most for spread), so bin-packing
 * holds and the usual case is O(1). */
static bool pick_tainted(struct attempt *t, int32_t min_tasks)
{
	const struct fw__cstate *c = t->c;
	int32_t g = t->job->groups[0].gpus;

	for (int i = 0; i + g < FW__HIST; i++) {
		int k = t->spread ? FW__HIST - 1 - i : g + i;
		for (int32_t n = c->tb_head[k]; n >= 0; n = c->tb_next[n]) {
			if (!candidate(t, &c->nodes[n]) || !node_fits(t, n, 0, false))
				continue;
			t->cand[0] = n;
			t->ncand = 1;
			return assign_candidates(t, min_tasks);
		}
	}
	return false;
}

/* The job's shape for the miss memo: what decides where it fits, except
 * its end time (FNV-1a). */
static uint64_t shape_key(const struct attempt *t, int32_t min_tasks)
{
	uint64_t h = 1469598103934665603ull;
	const int64_t v0[] = { min_tasks, t->avoid_suspect, t->spread, t->job->ngroups,
			       t->allow || t->deny ? t->filter : -1 };

#define FW__MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
	for (size_t i = 0; i < sizeof v0 / sizeof *v0; i++)
		FW__MIX(v0[i]);
	for (int g = 0; g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		FW__MIX(grp->count);
		FW__MIX(grp->gpus);
		FW__MIX(grp->gpu_milli);
		FW__MIX(grp->cpu_milli);
		FW__MIX(grp->mem_mib);
		FW__MIX(t->models[g]);
		FW__MIX(t->gf[g] ? t->gf[g]->first : -1);
		FW__MIX(t->gf[g] ? t->gf[g]->count : -1);
		FW__MIX(t->gf[g] ? t->gf[g]->except : -1);
		FW__MIX(t->slice_tasks[g]);
		FW__MIX(t->slice_dl[g]);
	}
#undef FW__MIX
	return h;
}

/* The domains above the tainted nodes, tightest level first; inside each,
 * only its tainted nodes are candidates.  A shape that failed is not tried
 * again until a tainted node gains GPUs (tainted_miss): reservations and
 * placements only ever take room away within a cycle.  The memo ignores
 * the end time, so a shorter job of a failed shape, which could have
 * backfilled a lemon before a reservation, goes the ordinary way: the
 * preference is soft, so that costs nothing but the preference. */
static bool tainted_walk(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks);

static bool search_tainted(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks)
{
	struct fw__cstate *c = t->c;
	uint64_t key = shape_key(t, min_tasks);
	int slot = (int)(key % 64);

	if (c->tainted_miss[slot].key == key && c->tainted_miss[slot].gen == c->tainted_gen)
		return false;
	if (tainted_walk(t, pref, req, min_tasks))
		return true;
	c->tainted_miss[slot].key = key;
	c->tainted_miss[slot].gen = c->tainted_gen;
	return false;
}

static bool tainted_walk(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks)
{
	const struct fw__cstate *c = t->c;
	bool all = min_tasks == fw_job_tasks(t->job), ok = false;
	int32_t need = all ? whole_need(t->job) : 0, n = c->ntainted;
	int32_t *dom = c->tainted_dom, *k0 = dom + n, *k1 = k0 + n, *ord = k1 + n;

	if (c->tainted_free < need || !tainted_could_fit(t, all))
		return false;
	if (fw_job_tasks(t->job) == 1 && one_whole_task(t))
		return pick_tainted(t, min_tasks);
	if (fw_job_tasks(t->job) == 1) {
		/* one task: one node, whatever the level; every tainted node
		 * at once, fullest first (the domain walk would try them one
		 * by one at every level) */
		t->ncand = 0;
		for (int32_t k = 0; k < n; k++)
			if (candidate(t, &c->nodes[c->tainted[k]]))
				t->cand[t->ncand++] = c->tainted[k];
		return t->ncand > 0 && assign_candidates(t, min_tasks);
	}
	for (int32_t dl = pref; dl >= req && !ok; dl--) {
		int32_t m = tainted_domains(t, dl, need, dom, k0, k1, ord);
		for (int32_t j = 0; j < m && !ok; j++) {
			int32_t i = ord[j];
			if (!hist_ok(t, &c->dom[dom[i]], all))
				continue;
			t->ncand = 0;
			for (int32_t k = k0[i]; k < k1[i]; k++)
				if (candidate(t, &c->nodes[c->tainted[k]]))
					t->cand[t->ncand++] = c->tainted[k];
			ok = t->ncand > 0 && assign_candidates(t, min_tasks);
		}
	}
	return ok;
}

/* ---- a job with a node filter ----------------------------------------
 * It walks its filter's slots (filter.c) instead of the domain index:
 * the histogram first (can its nodes hold it at all?), then, from the
 * preferred level to the required one, the domains that hold its nodes
 * and where those have the whole GPUs it needs, fullest first (emptiest
 * for spread; ties in topology order), only its nodes as candidates.
 * Suspect and lemon nodes are skipped or taken last as for any job, but
 * without the tainted-first preference. */

/* The candidates among the filter's nodes topo[k0 .. k1). */
static void filter_cands(struct attempt *t, const int32_t *topo, int32_t k0, int32_t k1)
{
	t->ncand = 0;
	for (int32_t k = k0; k < k1; k++)
		if (candidate(t, &t->c->nodes[topo[k]]))
			t->cand[t->ncand++] = topo[k];
}

/* One task of whole GPUs: the first node in topology order among those
 * with the fewest free GPUs that hold it (what assign_candidates would
 * pick from them all), found from the histogram and one scan that stops
 * there; false when it is not a candidate that fits (the caller then
 * tries them all). */
static bool filter_pick_one(struct attempt *t, int32_t min_tasks)
{
	const struct fw__cstate *c = t->c;
	int32_t f = t->filter, ndl = c->ndl, want = -1, g = t->job->groups[0].gpus;
	int32_t s0 = c->fslot_first[f * ndl + ndl - 1], s1 = c->fslot_first[f * ndl + ndl];

	if (t->spread || t->lemon_last)
		return false;
	for (int k = g; k < FW__HIST && want < 0; k++)
		if (c->fhist[f * FW__HIST + k] > 0)
			want = k;
	for (int32_t sl = s0; sl < s1 && want >= 0; sl++) {
		const int32_t *sum = c->fsum;
		while (sl < s1 && sum[sl] != want) /* the scan: one load a node */
			sl++;
		if (sl == s1)
			break;
		int32_t n = c->filter_topo[f][c->fslot_k0[sl]];
		if (!candidate(t, &c->nodes[n]))
			continue;
		if (!node_fits(t, n, 0, false))
			return false;
		t->cand[0] = n;
		t->ncand = 1;
		t->shape_fit = true;
		return assign_candidates(t, min_tasks);
	}
	return false;
}

static bool filter_walk(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks)
{
	const struct fw__cstate *c = t->c;
	bool all = min_tasks == fw_job_tasks(t->job);
	int32_t need = all ? whole_need(t->job) : 0, f = t->filter, ndl = c->ndl;
	const int32_t *topo = c->filter_topo[f];
	int64_t *key = c->filter_key;

	if (pref == ndl - 1 && fw_job_tasks(t->job) == 1 && one_whole_task(t) && filter_pick_one(t, min_tasks))
		return true;
	for (int32_t dl = pref; dl >= req; dl--) {
		int32_t s0 = c->fslot_first[f * ndl + dl], s1 = c->fslot_first[f * ndl + dl + 1], m = 0;
		if (c->lvl[dl].maxcap < need)
			continue;
		for (int32_t sl = s0; sl < s1; sl++)
			if (c->fsum[sl] >= need && (c->fsum[sl] > 0 || need == 0))
				key[m++] = (int64_t)(t->spread ? -c->fsum[sl] : c->fsum[sl]) * ((int64_t)1 << 32) + (sl - s0);
		qsort(key, (size_t)m, sizeof *key, i64_cmp);
		for (int32_t j = 0; j < m; j++) {
			int32_t sl = s0 + (int32_t)(key[j] & 0xffffffff);
			filter_cands(t, topo, c->fslot_k0[sl], c->fslot_k1[sl]);
			t->shape_fit = true;
			if (t->ncand > 0 && assign_candidates(t, min_tasks))
				return true;
		}
	}
	return false;
}

/* Could the filter's usable nodes hold every whole-GPU group, by their
 * histogram?  (As tainted_could_fit; a gang at its minimum: one task.) */
static bool filter_could_fit(const struct attempt *t, int32_t min_tasks)
{
	const int32_t *h = t->c->fhist + (size_t)t->filter * FW__HIST;
	bool all = min_tasks == fw_job_tasks(t->job);

	for (int g = 0; g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		int64_t cap = 0, want = all ? grp->count : 1;
		if (grp->gpu_milli != 1000 || grp->gpus <= 0)
			continue;
		for (int k = grp->gpus; k < FW__HIST; k++)
			cap += (int64_t)h[k] * (grp->one_per_node ? 1 : k / grp->gpus);
		if (cap < want)
			return false;
	}
	return true;
}

/* Could each group with a list of its own hold its tasks there, by the
 * list's histogram (filter.c indexes group filters too)?  The O(1) no
 * that spares a walk of the cluster's domains for a job whose group's
 * nodes are full (its job's filter, models and CPU aside: a bound). */
static bool groups_could_fit(const struct attempt *t, int32_t min_tasks)
{
	if (min_tasks != fw_job_tasks(t->job))
		return true; /* elastic: a group may get fewer tasks */
	for (int g = 0; g < t->job->ngroups; g++) {
		const struct fw_task_group *grp = &t->job->groups[g];
		if (!t->gf[g] || t->gf[g]->except || t->gfid[g] < 0 || grp->gpu_milli != 1000 || grp->gpus <= 0)
			continue;
		const int32_t *h = t->c->fhist + (size_t)t->gfid[g] * FW__HIST;
		int64_t cap = 0;
		for (int k = grp->gpus; k < FW__HIST; k++)
			cap += (int64_t)h[k] * (grp->one_per_node ? 1 : k / grp->gpus);
		if (cap < grp->count)
			return false;
	}
	return true;
}

typedef bool (*walk_fn)(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks);

/* A big gang's walk: without lemons first, then with them last. */
static bool lemons_last_walk(struct attempt *t, walk_fn walk, int32_t pref, int32_t req, int32_t min_tasks)
{
	bool lemons = t->avoid_lemon, ok = walk(t, pref, req, min_tasks);

	if (!ok && lemons) {
		t->avoid_lemon = false;
		t->lemon_last = true;
		ok = walk(t, pref, req, min_tasks);
		t->avoid_lemon = true;
		t->lemon_last = false;
	}
	return ok;
}

/* A big gang: without lemons first, then with them last.  Any other job:
 * on the suspect and lemon nodes it may use first, then anywhere.  A job
 * with a node filter: over its filter's slots, if its histogram lets it. */
static bool search_all(struct attempt *t, int32_t pref, int32_t req, int32_t min_tasks)
{
	if (t->gfiltered && !groups_could_fit(t, min_tasks))
		return false;
	if (t->allow)
		return filter_could_fit(t, min_tasks) && lemons_last_walk(t, filter_walk, pref, req, min_tasks);
	if (t->tainted_first && search_tainted(t, pref, req, min_tasks))
		return true;
	return lemons_last_walk(t, search, pref, req, min_tasks);
}

static int init_attempt(struct attempt *t, struct fw__cstate *c, int32_t jx)
{
	const struct fw_job *j = &c->s->jobs[jx];
	int32_t ntasks = fw_job_tasks(j);

	memset(t, 0, sizeof *t);
	t->c = c;
	t->job = j;
	t->jx = jx;
	t->spread = j->spread || c->pol->spread_default;
	t->avoid_suspect = fw__any_suspect(c) && !fw__may_use_suspect(c, j);
	t->avoid_lemon = fw__any_lemon(c) && fw__avoids_lemon(c, j);
	t->tainted_first = !fw__avoids_lemon(c, j) && (fw__any_lemon(c) || (fw__any_suspect(c) && !t->avoid_suspect));
	if (ntasks > c->scratch_tasks_cap)
		return FW_EINVAL;
	t->cand = c->scratch_cand;
	t->tasks = c->scratch_tasks;
	t->touched = (struct undo *)c->scratch_undo;
	int32_t e = c->job_entry ? c->job_entry[jx] : -1;
	if (e >= 0 && c->s->job_nodes[e].except) { /* the domain index, its few nodes left out */
		t->deny = c->s->node_refs + c->s->job_nodes[e].first;
		t->ndeny = c->s->job_nodes[e].count;
		t->filter = c->filter_id[e];
	} else if (e >= 0) {
		t->allow = c->s->node_refs + c->s->job_nodes[e].first;
		t->nallow = c->s->job_nodes[e].count;
		t->filter = c->filter_id[e];
	}
	for (int32_t x = c->s->ngroup_nodes ? fw_snapshot_group_nodes_entry(c->s, jx) : -1;
	     x >= 0 && x < c->s->ngroup_nodes && c->s->group_nodes[x].job == jx; x++) {
		t->gf[c->s->group_nodes[x].group] = &c->s->group_nodes[x];
		t->gfid[c->s->group_nodes[x].group] = c->filter_id ? c->filter_id[c->s->njob_nodes + x] : -1;
		t->gfiltered = true;
	}
	for (int32_t x = c->s->nslices ? fw_snapshot_slices_entry(c->s, jx) : -1;
	     x >= 0 && x < c->s->nslices && c->s->slices[x].job == jx; x++) {
		t->slice_tasks[c->s->slices[x].group] = c->s->slices[x].tasks;
		t->slice_dl[c->s->slices[x].group] = to_dl(c, c->s->slices[x].level, 0);
		t->sliced = true;
	}
	for (int g = 0; g < j->ngroups; g++) {
		t->models[g] = j->groups[g].gpu_model[0] ? fw__model_id(c, j->groups[g].gpu_model) : -2;
		t->apart = t->apart || (j->groups[g].apart && j->ngroups > 1);
	}
	return FW_OK;
}

/* GPU model limits (modellimit.c): the groups that name no model go on
 * the one model the caller allows. */
static void set_opts(struct attempt *t, const struct fw__place_opts *o)
{
	t->o = o;
	for (int g = 0; o->only_model > 0 && g < t->job->ngroups; g++)
		if (t->models[g] == -2)
			t->models[g] = o->only_model - 1;
}

int fw__place_job(struct fw__cstate *c, int32_t j, const struct fw__place_opts *o,
		  struct fw__placement *out)
{
	const struct fw_job *job = &c->s->jobs[j];
	struct attempt t;
	int32_t L = c->s->topology.nlevels;
	int32_t req = to_dl(c, job->required_level, 0);
	int32_t pref = to_dl(c, job->preferred_level, L + 1);
	int rc = init_attempt(&t, c, j);

	out->shape_fit = false;
	if (rc != FW_OK)
		return rc;
	set_opts(&t, o);
	if (pref < req)
		pref = req;
	bool ok = search_all(&t, pref, req, fw_job_tasks(job));
	if (!ok && fw_job_min_tasks(job) < fw_job_tasks(job))
		ok = search_all(&t, pref, req, fw_job_min_tasks(job));
	out->shape_fit = t.shape_fit;
	if (!ok)
		return FW_EDECLINED;
	out->ntasks = t.ntasks;
	out->tasks = FW_ARENA_RAW(c->arena, struct fw_task_alloc, t.ntasks); /* copied in full below */
	if (!out->tasks) {
		rollback(&t);
		return FW_ENOMEM;
	}
	memcpy(out->tasks, t.tasks, (size_t)t.ntasks * sizeof *t.tasks);
	if (o->dry) {
		rollback(&t);
		return FW_OK;
	}
	for (int32_t i = 0; i < t.ntouched; i++)
		fw__domain_node_changed(c, t.touched[i].node, t.touched[i].old_free);
	return FW_OK;
}

bool fw__room_near(const struct fw__cstate *c, const struct fw_job *j, int32_t n, int64_t need)
{
	int32_t L = c->s->topology.nlevels;
	int32_t dl = j->required_level == FW_LEVEL_NONE ? 0
		     : j->required_level == FW_LEVEL_NODE ? L + 1 : j->required_level + 1;
	int32_t d = fw__ancestor(c, n, dl);
	bool model = false, rigid = fw_job_min_tasks(j) == fw_job_tasks(j);

	for (int g = 0; g < j->ngroups && !model; g++)
		model = !j->groups[g].gpus || !j->groups[g].gpu_model[0] ||
			fw__model_id(c, j->groups[g].gpu_model) == c->nodes[n].model;
	if (!model || c->dom[d].free_whole < need)
		return false;
	for (int g = 0; g < j->ngroups && rigid; g++) {
		const struct fw_task_group *t = &j->groups[g];
		if (t->gpus > 0 && t->gpu_milli == 1000 && !fw__domain_holds(&c->dom[d], t->gpus, t->count))
			return false;
	}
	return true;
}

bool fw__place_one_fits(struct fw__cstate *c, int32_t j, const struct fw__place_opts *o, const int32_t *nodes,
			int32_t n)
{
	const struct fw_job *job = &c->s->jobs[j];
	struct attempt t;
	int g = 0;

	if (fw_job_tasks(job) != 1 || init_attempt(&t, c, j) != FW_OK)
		return true; /* not this test's case: let the search decide */
	while (job->groups[g].count == 0)
		g++;
	set_opts(&t, o);
	t.avoid_lemon = false; /* a big gang's second search takes lemons too */
	for (int32_t i = 0; i < n; i++)
		if (candidate(&t, &c->nodes[nodes[i]]) && node_fits(&t, nodes[i], g, false))
			return true;
	return false;
}

int fw__place_scratch(struct fw__cstate *c, int32_t max_tasks)
{
	c->scratch_cand = FW_ARENA_NEW(c->arena, int32_t, 2 * (size_t)c->nn + 1);
	c->scratch_tasks = FW_ARENA_NEW(c->arena, struct fw_task_alloc, max_tasks + 1);
	c->scratch_undo = FW_ARENA_NEW(c->arena, struct undo, max_tasks + 1);
	c->scratch_tasks_cap = max_tasks;
	if (!c->scratch_cand || !c->scratch_tasks || !c->scratch_undo)
		return FW_ENOMEM;
	return fw__slice_scratch(c);
}
