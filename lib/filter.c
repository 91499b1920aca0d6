/*
 * filter.c — the cycle's index over node filters (snapshot.h "Node
 * filters"; the Slurm adapter's --constraint, --exclude and partitions).
 *
 * The domain index (domain.c) counts every node, so a job that may use a
 * quarter of them, walked like any other, tries domain after domain whose
 * free GPUs it may not touch, and fails only after looking at their
 * nodes: measured, 10% of the benchmark's pending jobs behind four such
 * filters made the full cycle 8x slower.  This index gives each distinct
 * filter (job_nodes entries of one range, as restrict_job_as makes them,
 * share one) what the domain index gives the cluster:
 *   - its nodes in topology order (topo), so the nodes of one domain are
 *     a run of them;
 *   - per level, the domains that hold its nodes, as slots: the run
 *     topo[k0 .. k1) and sum, the whole free GPUs of its usable nodes
 *     there;
 *   - a histogram of its usable nodes' whole free GPUs (hist), the O(1)
 *     "can it fit at all?" that place.c asks first.
 * fw__filter_node_changed keeps sums and histograms as nodes change, from
 * fw__domain_node_changed, through the (filter, slot per level) entries of
 * each node (CSR: fnode_first, fnode_list, fnode_slot).  A reservation
 * clone gets its own copy of the sums and histograms (reserve.c).
 *
 * place.c then walks a filtered job over its filter's slots, from its
 * preferred level to its required one, fullest first: O(slots at a level)
 * per level plus the assignment in the slots that have the GPUs, instead
 * of the cluster's domains and their nodes.  Built once per cycle, in
 * O(references x levels); nothing when the snapshot has no filter.
 *
 * Group filters (snapshot.h) are indexed alike, as filters of their own
 * (entries njob_nodes + x; a list shared with a job's is one filter), but
 * not walked: a job with them walks the domain index, and their
 * histograms and slots only say no cheaply (place.c groups_could_fit and
 * groups_room, estimate.c step_helps_groups: a group's list over a domain,
 * fw__filter_slot_over).  group_sigs names each job's combination of
 * group lists, so that alike jobs share a shape (cycle_int.h), and lets
 * fw__groups_apart remember per combination and level whether any domain
 * holds a node of every list at all: when none does (a Slurm het job's
 * components on unlike partitions, under a rack rule), place.c skips the
 * level instead of asking each of its domains (bench --split 100: the full
 * cycle from 120 to 55 ms).
 */
#include <stdlib.h>
#include <string.h>

#include "cstate.h"

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Entry e of the filters the index covers: job_nodes entries first,
 * then group_nodes entries (snapshot.h "Group filters"), e >=
 * njob_nodes.  Its range and kind. */
static void entry_of(const struct fw_snapshot *s, int32_t e, int32_t *first, int32_t *count, int32_t *except)
{
	if (e < s->njob_nodes) {
		*first = s->job_nodes[e].first, *count = s->job_nodes[e].count, *except = s->job_nodes[e].except;
		return;
	}
	e -= s->njob_nodes;
	*first = s->group_nodes[e].first, *count = s->group_nodes[e].count, *except = s->group_nodes[e].except;
}

/* Phase 1: each job's entry, each entry's filter id (a group's too: its
 * histogram is the cheap "can this group fit at all?"); one
 * representative entry per filter. */
static int number_filters(struct fw__cstate *c, int32_t **rep)
{
	const struct fw_snapshot *s = c->s;
	int32_t ne = s->njob_nodes + s->ngroup_nodes;
	int32_t *owner = FW_ARENA_RAW(c->arena, int32_t, (size_t)s->nnode_refs + 1);

	c->filter_id = FW_ARENA_NEW(c->arena, int32_t, (size_t)ne);
	c->filter_except = FW_ARENA_NEW(c->arena, char, (size_t)ne);
	c->job_entry = FW_ARENA_RAW(c->arena, int32_t, (size_t)s->njobs + 1);
	*rep = FW_ARENA_NEW(c->arena, int32_t, (size_t)ne);
	if (!owner || !c->filter_id || !c->filter_except || !c->job_entry || !*rep)
		return FW_ENOMEM;
	memset(owner, 0xff, ((size_t)s->nnode_refs + 1) * sizeof *owner);
	memset(c->job_entry, 0xff, ((size_t)s->njobs + 1) * sizeof *c->job_entry);
	for (int32_t e = 0; e < ne; e++) {
		int32_t first, count, except, of, oc, ox;
		entry_of(s, e, &first, &count, &except);
		int32_t o = owner[first];
		if (e < s->njob_nodes)
			c->job_entry[s->job_nodes[e].job] = e;
		if (o >= 0) {
			entry_of(s, o, &of, &oc, &ox);
			if (oc == count && ox == except) {
				c->filter_id[e] = c->filter_id[o];
				continue;
			}
		}
		owner[first] = e;
		(*rep)[c->nfilters] = e;
		c->filter_except[c->nfilters] = (char)(except != 0);
		c->filter_id[e] = c->nfilters++;
	}
	return FW_OK;
}

/* Phase 2: each filter's nodes in topology order (an except filter has
 * none here: it is placed through the domain index). */
static int sort_nodes(struct fw__cstate *c, const int32_t *rep, int64_t *key)
{
	const struct fw_snapshot *s = c->s;

	c->filter_topo = FW_ARENA_NEW(c->arena, int32_t *, (size_t)c->nfilters);
	c->filter_n = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nfilters);
	if (!c->filter_topo || !c->filter_n)
		return FW_ENOMEM;
	for (int32_t f = 0; f < c->nfilters; f++) {
		int32_t first, count, except;
		entry_of(s, rep[f], &first, &count, &except);
		if (c->filter_except[f])
			continue; /* no nodes here: filter_n[f] = 0, filter_topo[f] NULL */
		int32_t *topo = FW_ARENA_NEW(c->arena, int32_t, (size_t)count);
		if (!topo)
			return FW_ENOMEM;
		bool sorted = true; /* nodes listed in topology order: no sort */
		for (int32_t k = 0; k < count; k++) { /* (topology position, node) */
			int32_t n = s->node_refs[first + k];
			key[k] = (int64_t)c->dom[c->nodes[n].dom].first * ((int64_t)1 << 32) + n;
			sorted = sorted && (k == 0 || key[k - 1] < key[k]);
		}
		if (!sorted)
			qsort(key, (size_t)count, sizeof *key, i64_cmp);
		for (int32_t k = 0; k < count; k++)
			topo[k] = (int32_t)(key[k] & 0xffffffff);
		c->filter_topo[f] = topo;
		c->filter_n[f] = count;
	}
	return FW_OK;
}

/* Phase 3: the slots, per filter and level: runs of one domain. */
static int make_slots(struct fw__cstate *c, int64_t total)
{
	int32_t ndl = c->ndl, ns = 0;

	c->fslot_first = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nfilters * ndl + 1);
	c->fslot_k0 = FW_ARENA_NEW(c->arena, int32_t, (size_t)(total * ndl));
	c->fslot_k1 = FW_ARENA_NEW(c->arena, int32_t, (size_t)(total * ndl));
	c->fsum = FW_ARENA_NEW(c->arena, int32_t, (size_t)(total * ndl));
	c->fslot_dom = FW_ARENA_NEW(c->arena, int32_t, (size_t)(total * ndl));
	if (!c->fslot_first || !c->fslot_k0 || !c->fslot_k1 || !c->fsum || !c->fslot_dom)
		return FW_ENOMEM;
	for (int32_t f = 0; f < c->nfilters; f++) {
		const int32_t *topo = c->filter_topo[f];
		for (int32_t dl = 0; dl < ndl; dl++) {
			c->fslot_first[f * ndl + dl] = ns;
			for (int32_t k = 0; k < c->filter_n[f]; k++) {
				const struct fw__node *n = &c->nodes[topo[k]];
				int32_t d = fw__ancestor(c, topo[k], dl);
				if (k == 0 || fw__ancestor(c, topo[k - 1], dl) != d) {
					c->fslot_k0[ns] = k;
					c->fslot_dom[ns] = d;
					c->fsum[ns++] = 0;
				}
				c->fslot_k1[ns - 1] = k + 1;
				c->fsum[ns - 1] += n->usable ? n->whole_free : 0;
			}
		}
	}
	c->fslot_first[c->nfilters * ndl] = ns;
	c->nfslots = ns;
	return FW_OK;
}

/* Phase 4: per node, its filters and their slots per level (CSR), and
 * each filter's histogram. */
static int index_nodes(struct fw__cstate *c, int64_t total)
{
	int32_t ndl = c->ndl, *at;

	c->fnode_first = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nn + 1);
	c->fnode_list = FW_ARENA_NEW(c->arena, int32_t, (size_t)total + 1);
	c->fnode_slot = FW_ARENA_NEW(c->arena, int32_t, (size_t)(total * ndl) + 1);
	c->fhist = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nfilters * FW__HIST);
	at = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nn + 1);
	if (!c->fnode_first || !c->fnode_list || !c->fnode_slot || !c->fhist || !at)
		return FW_ENOMEM;
	for (int32_t f = 0; f < c->nfilters; f++)
		for (int32_t k = 0; k < c->filter_n[f]; k++)
			c->fnode_first[c->filter_topo[f][k] + 1]++;
	for (int32_t n = 0; n < c->nn; n++)
		c->fnode_first[n + 1] += c->fnode_first[n];
	memcpy(at, c->fnode_first, (size_t)c->nn * sizeof *at);
	for (int32_t f = 0; f < c->nfilters; f++) {
		for (int32_t dl = 0; dl < ndl; dl++) { /* the slot of each node, level by level */
			int32_t s0 = c->fslot_first[f * ndl + dl], s1 = c->fslot_first[f * ndl + dl + 1];
			for (int32_t sl = s0; sl < s1; sl++)
				for (int32_t k = c->fslot_k0[sl]; k < c->fslot_k1[sl]; k++) {
					int32_t n = c->filter_topo[f][k];
					if (dl == 0) { /* first visit of (n, f): its CSR entry */
						c->fnode_list[at[n]++] = f;
						const struct fw__node *x = &c->nodes[n];
						if (fw__indexed(x))
							c->fhist[f * FW__HIST + x->whole_free]++;
					}
					c->fnode_slot[(size_t)(at[n] - 1) * ndl + dl] = sl;
				}
		}
	}
	return FW_OK;
}

/* Do jobs a and b (their group entries from ea and eb, in order) name
 * the same ranges for the same groups? */
static bool same_groups(const struct fw_snapshot *s, int32_t ea, int32_t eb)
{
	const struct fw_group_nodes *x = s->group_nodes;
	int32_t a = x[ea].job, b = x[eb].job;

	for (; ea < s->ngroup_nodes && eb < s->ngroup_nodes && x[ea].job == a && x[eb].job == b; ea++, eb++)
		if (x[ea].group != x[eb].group || x[ea].first != x[eb].first || x[ea].count != x[eb].count ||
		    x[ea].except != x[eb].except)
			return false;
	return (ea == s->ngroup_nodes || x[ea].job != a) && (eb == s->ngroup_nodes || x[eb].job != b);
}

/* c->gsig: per job with group filters, the id of its groups' ranges
 * (interned: jobs whose groups name the same lists share it, so their
 * shapes and memos do, cycle_int.h), else -1.  O(entries). */
static int group_sigs(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;
	const struct fw_group_nodes *x = s->group_nodes;
	int32_t cap = 16, *tab, nsig = 0;

	c->gsig = NULL;
	c->gsig_apart = NULL;
	if (s->ngroup_nodes == 0)
		return FW_OK;
	while (cap < 2 * s->ngroup_nodes)
		cap *= 2;
	c->gsig = FW_ARENA_RAW(c->arena, int32_t, (size_t)s->njobs + 1);
	tab = FW_ARENA_RAW(c->arena, int32_t, (size_t)cap * 2); /* (first entry, id) per slot */
	if (!c->gsig || !tab)
		return FW_ENOMEM;
	memset(c->gsig, 0xff, ((size_t)s->njobs + 1) * sizeof *c->gsig);
	memset(tab, 0xff, (size_t)cap * 2 * sizeof *tab);
	for (int32_t e = 0; e < s->ngroup_nodes;) {
		uint64_t h = 1469598103934665603ull;
		int32_t f = e;
		for (; e < s->ngroup_nodes && x[e].job == x[f].job; e++) {
			h = (h ^ (uint64_t)(uint32_t)x[e].group) * 1099511628211ull;
			h = (h ^ (uint64_t)(uint32_t)x[e].first) * 1099511628211ull;
			h = (h ^ (uint64_t)(uint32_t)x[e].count) * 1099511628211ull;
			h = (h ^ (uint64_t)(uint32_t)x[e].except) * 1099511628211ull;
		}
		uint32_t k = (uint32_t)(h ^ (h >> 32)) & (uint32_t)(cap - 1);
		while (tab[2 * k] >= 0 && !same_groups(s, tab[2 * k], f))
			k = (k + 1) & (uint32_t)(cap - 1);
		if (tab[2 * k] < 0) {
			tab[2 * k] = f;
			tab[2 * k + 1] = nsig++;
		}
		c->gsig[x[f].job] = tab[2 * k + 1];
	}
	if (!(c->gsig_apart = FW_ARENA_RAW(c->arena, int8_t, (size_t)nsig * c->ndl + 1)))
		return FW_ENOMEM;
	memset(c->gsig_apart, 0xff, (size_t)nsig * c->ndl);
	return FW_OK;
}

int fw__filter_build(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;
	int32_t *rep;
	int64_t total = 0, *key;
	int rc;

	c->filter_id = c->job_entry = c->fnode_first = c->fnode_list = c->fnode_slot = c->fhist = NULL;
	c->filter_except = NULL;
	c->nfilters = c->nfslots = 0;
	if ((rc = group_sigs(c)) != FW_OK)
		return rc;
	if (s->njob_nodes == 0 && s->ngroup_nodes == 0)
		return FW_OK;
	c->filter_key = key = FW_ARENA_NEW(c->arena, int64_t, (size_t)c->nn + 1);
	if (!key)
		return FW_ENOMEM;
	if ((rc = number_filters(c, &rep)) != FW_OK || (rc = sort_nodes(c, rep, key)) != FW_OK)
		return rc;
	for (int32_t f = 0; f < c->nfilters; f++)
		total += c->filter_n[f];
	if ((rc = make_slots(c, total)) != FW_OK)
		return rc;
	return index_nodes(c, total);
}

void fw__filter_node_changed(struct fw__cstate *c, int32_t n, int32_t old_free, int32_t new_free)
{
	int32_t ndl = c->ndl;

	for (int32_t k = c->fnode_first[n]; k < c->fnode_first[n + 1]; k++) {
		c->fhist[c->fnode_list[k] * FW__HIST + old_free]--;
		c->fhist[c->fnode_list[k] * FW__HIST + new_free]++;
		for (int32_t dl = 0; dl < ndl; dl++)
			c->fsum[c->fnode_slot[(size_t)k * ndl + dl]] += new_free - old_free;
	}
}

/* ------------------------------------------------ group filters */

int32_t fw__filter_slot_over(const struct fw__cstate *c, int32_t f, int32_t dl, int32_t d)
{
	int32_t lo = c->fslot_first[f * c->ndl + dl], hi = c->fslot_first[f * c->ndl + dl + 1], end = hi;
	int32_t want = c->dom[d].first;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (c->dom[c->fslot_dom[mid]].first < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && c->fslot_dom[lo] == d ? lo : -1;
}

/* The slots of filter f at level dl: [*lo, return). */
static int32_t slots_at(const struct fw__cstate *c, int32_t f, int32_t dl, int32_t *lo)
{
	*lo = c->fslot_first[f * c->ndl + dl];
	return c->fslot_first[f * c->ndl + dl + 1];
}

bool fw__groups_apart(struct fw__cstate *c, int32_t jx, const int32_t *ids, int ngroups, int32_t dl)
{
	int8_t *m = c->gsig_apart && c->gsig[jx] >= 0 ? &c->gsig_apart[(size_t)c->gsig[jx] * c->ndl + dl] : NULL;
	int32_t lo, hi, few = -1, best = INT32_MAX, listed = 0;
	bool apart = false;

	if (m && *m >= 0)
		return *m;
	for (int g = 0; g < ngroups; g++) { /* walk the domains of the list with the fewest */
		if (ids[g] < 0)
			continue;
		listed++;
		hi = slots_at(c, ids[g], dl, &lo);
		if (hi - lo < best)
			best = hi - lo, few = g;
	}
	if (listed >= 2) {
		apart = true;
		hi = slots_at(c, ids[few], dl, &lo);
		for (int32_t k = lo; k < hi && apart; k++) {
			bool all = true;
			for (int g = 0; g < ngroups && all; g++)
				all = g == few || ids[g] < 0 || fw__filter_slot_over(c, ids[g], dl, c->fslot_dom[k]) >= 0;
			apart = !all;
		}
	}
	if (m)
		*m = apart;
	return apart;
}

/* A group without an entry may use any node; so may the job then. */
bool fw__some_group_may_use(const struct fw_snapshot *s, int32_t jx, int32_t n)
{
	int32_t x = fw_snapshot_group_nodes_entry(s, jx), k = 0;

	if (x < 0)
		return true;
	for (; x < s->ngroup_nodes && s->group_nodes[x].job == jx; x++, k++) {
		const struct fw_group_nodes *e = &s->group_nodes[x];
		if (fw__in_sorted(s->node_refs + e->first, e->count, n) != (e->except != 0))
			return true;
	}
	return k < s->jobs[jx].ngroups;
}
