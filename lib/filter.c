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
 */
#include <stdlib.h>
#include <string.h>

#include "cstate.h"

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int32_t ancestor(const struct fw__cstate *c, int32_t n, int32_t dl)
{
	int32_t d = c->nodes[n].dom;

	while (c->dom[d].level > dl)
		d = c->dom[d].parent;
	return d;
}

/* Phase 1: each job's entry, each entry's filter id; one representative
 * entry per filter. */
static int number_filters(struct fw__cstate *c, int32_t **rep)
{
	const struct fw_snapshot *s = c->s;
	int32_t *owner = FW_ARENA_RAW(c->arena, int32_t, (size_t)s->nnode_refs + 1);

	c->filter_id = FW_ARENA_NEW(c->arena, int32_t, (size_t)s->njob_nodes);
	c->filter_except = FW_ARENA_NEW(c->arena, char, (size_t)s->njob_nodes);
	c->job_entry = FW_ARENA_RAW(c->arena, int32_t, (size_t)s->njobs + 1);
	*rep = FW_ARENA_NEW(c->arena, int32_t, (size_t)s->njob_nodes);
	if (!owner || !c->filter_id || !c->filter_except || !c->job_entry || !*rep)
		return FW_ENOMEM;
	memset(owner, 0xff, ((size_t)s->nnode_refs + 1) * sizeof *owner);
	memset(c->job_entry, 0xff, ((size_t)s->njobs + 1) * sizeof *c->job_entry);
	for (int32_t e = 0; e < s->njob_nodes; e++) {
		const struct fw_job_nodes *x = &s->job_nodes[e];
		int32_t o = owner[x->first];
		c->job_entry[x->job] = e;
		if (o >= 0 && s->job_nodes[o].count == x->count && s->job_nodes[o].except == x->except) {
			c->filter_id[e] = c->filter_id[o];
			continue;
		}
		owner[x->first] = e;
		(*rep)[c->nfilters] = e;
		c->filter_except[c->nfilters] = (char)(x->except != 0);
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
		const struct fw_job_nodes *x = &s->job_nodes[rep[f]];
		if (c->filter_except[f])
			continue; /* no nodes here: filter_n[f] = 0, filter_topo[f] NULL */
		int32_t *topo = FW_ARENA_NEW(c->arena, int32_t, (size_t)x->count);
		if (!topo)
			return FW_ENOMEM;
		bool sorted = true; /* nodes listed in topology order: no sort */
		for (int32_t k = 0; k < x->count; k++) { /* (topology position, node) */
			int32_t n = s->node_refs[x->first + k];
			key[k] = (int64_t)c->dom[c->nodes[n].dom].first * ((int64_t)1 << 32) + n;
			sorted = sorted && (k == 0 || key[k - 1] < key[k]);
		}
		if (!sorted)
			qsort(key, (size_t)x->count, sizeof *key, i64_cmp);
		for (int32_t k = 0; k < x->count; k++)
			topo[k] = (int32_t)(key[k] & 0xffffffff);
		c->filter_topo[f] = topo;
		c->filter_n[f] = x->count;
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
	if (!c->fslot_first || !c->fslot_k0 || !c->fslot_k1 || !c->fsum)
		return FW_ENOMEM;
	for (int32_t f = 0; f < c->nfilters; f++) {
		const int32_t *topo = c->filter_topo[f];
		for (int32_t dl = 0; dl < ndl; dl++) {
			c->fslot_first[f * ndl + dl] = ns;
			for (int32_t k = 0; k < c->filter_n[f]; k++) {
				const struct fw__node *n = &c->nodes[topo[k]];
				int32_t d = ancestor(c, topo[k], dl);
				if (k == 0 || ancestor(c, topo[k - 1], dl) != d) {
					c->fslot_k0[ns] = k;
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
						if (x->usable)
							c->fhist[f * FW__HIST + x->whole_free]++;
					}
					c->fnode_slot[(size_t)(at[n] - 1) * ndl + dl] = sl;
				}
		}
	}
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
	if (s->njob_nodes == 0)
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

int32_t fw__group_entry(const struct fw_snapshot *s, int32_t jx)
{
	int32_t lo = 0, hi = s->ngroup_nodes;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (s->group_nodes[mid].job < jx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ngroup_nodes && s->group_nodes[lo].job == jx ? lo : -1;
}

/* A group without an entry may use any node; so may the job then. */
bool fw__some_group_may_use(const struct fw_snapshot *s, int32_t jx, int32_t n)
{
	int32_t x = fw__group_entry(s, jx), k = 0;

	if (x < 0)
		return true;
	for (; x < s->ngroup_nodes && s->group_nodes[x].job == jx; x++, k++) {
		const struct fw_group_nodes *e = &s->group_nodes[x];
		if (fw__in_sorted(s->node_refs + e->first, e->count, n) != (e->except != 0))
			return true;
	}
	return k < s->jobs[jx].ngroups;
}
