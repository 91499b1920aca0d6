/*
 * topo.c — topology.conf as Slurm reports it (slurm_load_topo), flattened
 * into one switch chain per node, leaf switch first.
 *
 * Loaded once at open: topology.conf changes only with a slurmctld
 * reconfigure, and the chains are small (depth <= 4).  Without
 * topology/tree there are no switches and every node has depth 0.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "slurm_int.h"

static int topo_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fw_slurm_topo *)a)->node,
		      ((const struct fw_slurm_topo *)b)->node);
}

/* The switch whose `switches` list names sw, or -1. */
static int parent_of(const topo_info_response_msg_t *t, const char *sw)
{
	for (uint32_t i = 0; i < t->record_count; i++) {
		const char *kids = t->topo_array[i].switches;
		hostlist_t hl;
		char *k;
		int found = 0;

		if (!kids || !*kids || !(hl = FW__SLP(slurm_hostlist_create(kids))))
			continue;
		while (!found && (k = FW__SLP(slurm_hostlist_shift(hl)))) {
			found = !strcmp(k, sw);
			free(k);
		}
		FW__SLV(slurm_hostlist_destroy(hl));
		if (found)
			return (int)i;
	}
	return -1;
}

static int add_leaf(struct fw_slurm *h, const topo_info_response_msg_t *t,
		    uint32_t leaf, int *cap)
{
	hostlist_t hl = FW__SLP(slurm_hostlist_create(t->topo_array[leaf].nodes));
	char *n;

	if (!hl)
		return FW_ENOMEM;
	while ((n = FW__SLP(slurm_hostlist_shift(hl)))) {
		struct fw_slurm_topo *e;
		int sw = (int)leaf;

		if (h->ntopo == *cap) {
			void *p = realloc(h->topo, (size_t)(*cap = *cap ? 2 * *cap : 64) * sizeof *h->topo);
			if (!p) {
				free(n);
				FW__SLV(slurm_hostlist_destroy(hl));
				return FW_ENOMEM;
			}
			h->topo = p;
		}
		e = &h->topo[h->ntopo++];
		memset(e, 0, sizeof *e);
		snprintf(e->node, sizeof e->node, "%s", n);
		free(n);
		for (; sw >= 0 && e->depth < FW_SLURM_MAX_SWITCH_DEPTH;
		     sw = parent_of(t, t->topo_array[sw].name))
			snprintf(e->sw[e->depth++], FW_NAME_MAX, "%s", t->topo_array[sw].name);
		if (e->depth > h->topo_depth)
			h->topo_depth = e->depth;
	}
	FW__SLV(slurm_hostlist_destroy(hl));
	return FW_OK;
}

int fw__slurm_topo_load(struct fw_slurm *h, struct fw_diag *d)
{
	topo_info_response_msg_t *t = NULL;
	int cap = 0, rc = FW_OK;

	if (FW__SL(slurm_load_topo(&t)) != SLURM_SUCCESS)
		return fw__slurm_eio(d, "slurm_load_topo");
	for (uint32_t i = 0; t && i < t->record_count && rc == FW_OK; i++)
		if (t->topo_array[i].level == 0 && t->topo_array[i].nodes)
			rc = add_leaf(h, t, i, &cap);
	FW__SLV(slurm_free_topo_info_msg(t));
	if (h->ntopo)
		qsort(h->topo, (size_t)h->ntopo, sizeof *h->topo, topo_cmp);
	return rc;
}

const struct fw_slurm_topo *fw__slurm_topo_of(const struct fw_slurm *h,
					      const char *node)
{
	struct fw_slurm_topo key;

	if (!h->ntopo)
		return NULL;
	snprintf(key.node, sizeof key.node, "%s", node);
	return bsearch(&key, h->topo, (size_t)h->ntopo, sizeof *h->topo, topo_cmp);
}
