/*
 * slice.c — the cycle's view of sliced task groups (snapshot.h "Slices").
 *
 * Placement (place.c) reads a job's slices from the snapshot's table, one
 * binary search per attempt, and places a sliced group slice by slice:
 * its candidates grouped by their domain at the slice level, each slice
 * in the first such domain that holds it whole.  This file gives the
 * rest of the cycle what it needs beside that:
 *   - ssig, per job an id shared by the jobs whose groups are sliced
 *     alike (same groups, sizes and levels), so that the shapes
 *     (cycle_int.h), and with them the allocate memo and the estimates,
 *     treat alike jobs as one and a sliced job never as an unsliced one;
 *   - the scratch place.c groups candidates in, sized once per cycle.
 * Nothing is built when the snapshot has no slices: ssig stays NULL, and
 * a job's shape says "no slices".
 */
#include <string.h>

#include "cstate.h"

/* Are the slices entries of the jobs that start at entries a and b
 * alike, entry by entry? */
static bool same_slices(const struct fw_snapshot *s, int32_t a, int32_t b)
{
	const struct fw_group_slice *x = s->slices;
	int32_t ja = x[a].job, jb = x[b].job;

	for (; a < s->nslices && b < s->nslices && x[a].job == ja && x[b].job == jb; a++, b++)
		if (x[a].group != x[b].group || x[a].tasks != x[b].tasks || x[a].level != x[b].level)
			return false;
	return (a == s->nslices || x[a].job != ja) && (b == s->nslices || x[b].job != jb);
}

int fw__slice_build(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;
	const struct fw_group_slice *x = s->slices;
	int32_t cap = 16, *tab, nsig = 0;

	c->ssig = NULL;
	if (s->nslices == 0)
		return FW_OK;
	while (cap < 2 * s->nslices)
		cap *= 2;
	c->ssig = FW_ARENA_RAW(c->arena, int32_t, (size_t)s->njobs + 1);
	tab = FW_ARENA_RAW(c->arena, int32_t, (size_t)cap * 2); /* (first entry, id) per slot */
	if (!c->ssig || !tab)
		return FW_ENOMEM;
	memset(c->ssig, 0xff, ((size_t)s->njobs + 1) * sizeof *c->ssig);
	memset(tab, 0xff, (size_t)cap * 2 * sizeof *tab);
	for (int32_t e = 0; e < s->nslices;) {
		uint64_t h = 1469598103934665603ull;
		int32_t f = e;
		for (; e < s->nslices && x[e].job == x[f].job; e++) {
			h = (h ^ (uint64_t)(uint32_t)x[e].group) * 1099511628211ull;
			h = (h ^ (uint64_t)(uint32_t)x[e].tasks) * 1099511628211ull;
			h = (h ^ (uint64_t)(uint32_t)x[e].level) * 1099511628211ull;
		}
		uint32_t k = (uint32_t)(h ^ (h >> 32)) & (uint32_t)(cap - 1);
		while (tab[2 * k] >= 0 && !same_slices(s, tab[2 * k], f))
			k = (k + 1) & (uint32_t)(cap - 1);
		if (tab[2 * k] < 0) {
			tab[2 * k] = f;
			tab[2 * k + 1] = nsig++;
		}
		c->ssig[x[f].job] = tab[2 * k + 1];
	}
	return FW_OK;
}

int fw__slice_scratch(struct fw__cstate *c)
{
	c->slice_scratch = NULL;
	c->slice_slot = NULL;
	if (c->s->nslices == 0)
		return FW_OK;
	c->slice_scratch = FW_ARENA_RAW(c->arena, int32_t, 4 * (size_t)c->nn + 1);
	c->slice_key = FW_ARENA_RAW(c->arena, int64_t, (size_t)c->nn + 1);
	c->slice_slot = FW_ARENA_RAW(c->arena, int32_t, (size_t)c->ndom + 1);
	if (!c->slice_scratch || !c->slice_key || !c->slice_slot)
		return FW_ENOMEM;
	memset(c->slice_slot, 0xff, ((size_t)c->ndom + 1) * sizeof *c->slice_slot);
	return FW_OK;
}
