/*
 * jobfail.c — job failures attributed to nodes (health.h: JOB_FAILURE).
 *
 * Slurm keeps a finished job in slurmctld's memory for MinJobAge seconds
 * (300 by default), so each read lists the recent failures.  A job of a
 * managed partition that ended NODE_FAIL counts against each of its
 * nodes; one that ended FAILED (a non-zero exit) counts only when it ran
 * on one node: on several, which node failed it is unknown, and blaming
 * them all would let one bad job mark a whole rack.  Each job counts
 * once: the ids counted are remembered while Slurm still lists them.
 *
 * The events go through the core's health model (fw_health_step), one
 * record per node that ever had a failure: the job_fail_threshold-th
 * (default 3) within job_fail_window_s (24 h) puts the node on probation
 * (SUSPECT, 6 h; longer when it flaps), and fw_slurm_health() reports it
 * suspect with the reason, so gangs of suspectGangGpus or more keep off
 * it while small jobs test it.  The records live in memory: a restarted
 * daemon starts counting afresh (Slurm's MinJobAge window is all it
 * could re-read anyway).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#include "fairway/health.h"
#include "slurm_int.h"

struct fw__jf_node {
	char node[FW_NAME_MAX];
	struct fw_health_rec rec;
};

struct fw__jobfail {
	struct fw_health_config cfg;
	struct fw__jf_node *v;
	int32_t n, cap;
	uint32_t *seen;         /* failed job ids counted, still listed */
	int32_t nseen, capseen;
};

void fw__jobfail_free(struct fw__jobfail *f)
{
	if (!f)
		return;
	free(f->v);
	free(f->seen);
	free(f);
}

static struct fw_health_rec *rec_of(struct fw__jobfail *f, const char *node, bool add)
{
	for (int32_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].node, node))
			return &f->v[i].rec;
	if (!add)
		return NULL;
	if (f->n == f->cap) {
		int32_t cap = f->cap ? 2 * f->cap : 16;
		struct fw__jf_node *v = realloc(f->v, (size_t)cap * sizeof *v);
		if (!v)
			return NULL;
		f->v = v;
		f->cap = cap;
	}
	struct fw__jf_node *e = &f->v[f->n++];
	snprintf(e->node, sizeof e->node, "%s", node);
	fw_health_rec_init(&e->rec);
	return &e->rec;
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* seen is sorted (fold() sorts it): a binary search per failed job. */
static bool was_seen(const struct fw__jobfail *f, uint32_t id)
{
	return f->nseen && bsearch(&id, f->seen, (size_t)f->nseen, sizeof id, id_cmp);
}

/* Which nodes a failed job blames: all of a NODE_FAIL, the one of a
 * single-node FAILED, none otherwise. */
static bool blames(const slurm_job_info_t *j)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;

	return j->nodes && (base == JOB_NODE_FAIL || (base == JOB_FAILED && j->num_nodes == 1));
}

static void count_job(struct fw__jobfail *f, const slurm_job_info_t *j)
{
	hostlist_t hl = FW__SLP(slurm_hostlist_create(j->nodes));
	struct fw_health_event ev = { FW_HEV_JOB_FAILURE, j->end_time, (int64_t)j->job_id };
	char *host;

	if (!hl)
		return;
	while ((host = FW__SLP(slurm_hostlist_shift(hl)))) {
		struct fw_health_rec *r = rec_of(f, host, true);
		if (r)
			fw_health_step(&f->cfg, r, &ev);
		free(host);
	}
	FW__SLV(slurm_hostlist_destroy(hl));
}

/* Fold the failures of the last read in, once each (phase 1: count the
 * new ones; phase 2: remember the ids Slurm still lists). */
static int fold(struct fw_slurm *h, struct fw__jobfail *f)
{
	uint32_t *seen = NULL;
	int32_t nseen = 0, cap = 0;

	for (uint32_t i = 0; h->jobs && i < h->jobs->record_count; i++) {
		const slurm_job_info_t *j = &h->jobs->job_array[i];
		uint32_t base = j->job_state & JOB_STATE_BASE;
		if ((base != JOB_FAILED && base != JOB_NODE_FAIL) || !fw__slurm_managed(h, j->partition))
			continue;
		if (!was_seen(f, j->job_id) && blames(j))
			count_job(f, j);
		if (nseen == cap) {
			uint32_t *v = realloc(seen, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!v) {
				free(seen);
				return FW_ENOMEM;
			}
			seen = v;
		}
		seen[nseen++] = j->job_id;
	}
	if (nseen > 1)
		qsort(seen, (size_t)nseen, sizeof *seen, id_cmp);
	free(f->seen);
	f->seen = seen;
	f->nseen = nseen;
	f->capseen = cap;
	return FW_OK;
}

int fw__jobfail_update(struct fw_slurm *h)
{
	if (!h->jobfail) {
		if (!(h->jobfail = calloc(1, sizeof *h->jobfail)))
			return FW_ENOMEM;
		fw_health_config_default(&h->jobfail->cfg);
	}
	return fold(h, h->jobfail);
}

bool fw__jobfail_suspect(struct fw_slurm *h, const char *node, fw_time now, char *why, size_t cap)
{
	struct fw__jobfail *f = h->jobfail;
	struct fw_health_rec *r = f ? rec_of(f, node, false) : NULL;

	if (!r || fw_health_tick(&f->cfg, r, now) != FW_HEALTH_SUSPECT)
		return false;
	fw_health_job_fail_text(&f->cfg, r, now, why, cap);
	return true;
}
