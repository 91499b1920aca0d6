/*
 * copy.c — the read in two halves (connectors/serve/backend.h "A read in
 * two halves"): what fw_slurm_read does, with its snapshot build moved
 * out of the daemon's state lock.
 *
 * The build (build.c) reads the handle's four messages and tables, and
 * writes into the handle what apply(), aside() and explain() use after
 * it (the jobs it left out, the job index, the user names it looked up,
 * its counts).  Without the lock, an API thread may meanwhile read()
 * through the same handle: adopt new messages, build its own snapshot
 * over those tables.  So the build runs on a *shadow*, a handle of its
 * own that shares only what stays put while it runs:
 *
 *   1. capture  under the lock: the read's first half (fw__slurm_load:
 *               the fetch adopted or the loads made, the QOS table and
 *               budgets when due), the handle's job index over the new
 *               message (apply's lookups: fw__slurm_job), the generation
 *               apply() checks, the budget note; then the shadow: the
 *               four messages *pinned* (a read that replaces one retires
 *               it, read.c fw__slurm_pin), the topology (read at open,
 *               never changed), and copies of the options, the QOS
 *               table, the user names and the budgets;
 *   2. build    without the lock: fw__slurm_build on the shadow, then
 *               the budgets onto the snapshot's queues, as the read does;
 *   3. adopt    under the lock, at the apply of the plan so made, and
 *               only while the handle's generation is the capture's (else
 *               the plan is stale: apply() would refuse it anyway): the
 *               shadow's jobs left out, user names and counts (those of
 *               job_submit.lua's mismatches too, for fw_slurm_warn)
 *               become the handle's, as if the read had built them
 *               there.  Equal
 *               generations mean equal messages: a read that adopted a
 *               new one moved the generation (read.c adopt), so the
 *               index the capture made still fits;
 *   4. discard  the shadow freed and the pin let go (what a read retired
 *               meanwhile freed with the last pin).
 *
 * A read between capture and adopt (an API thread's) builds on the
 * handle itself, as it always did; a stale shadow is never adopted over
 * it.
 */
#include <stdlib.h>
#include <string.h>

#include "slurm_int.h"

struct fw_slurm_copy {
	struct fw_slurm *h;             /* the handle it was captured from */
	struct fw_slurm *v;             /* the shadow build() fills */
	uint64_t gen;                   /* the handle's generation then */
};

/* n elements of size sz at p, or NULL for none; *ok false without memory. */
static void *dup_of(const void *p, size_t n, size_t sz, bool *ok)
{
	void *q;

	if (!p || !n)
		return NULL;
	if (!(q = malloc(n * sz))) {
		*ok = false;
		return NULL;
	}
	return memcpy(q, p, n * sz);
}

/* What the shadow shares with h: the options, the four messages (pinned
 * by the caller) and the topology, read at open and never changed. */
static void share(struct fw_slurm *v, const struct fw_slurm *h)
{
	v->o = h->o;
	memcpy(v->conf, h->conf, sizeof v->conf);
	memcpy(v->parts, h->parts, sizeof v->parts);
	v->o.slurm_conf = v->conf;
	v->o.partitions = v->parts;
	v->nodes = h->nodes;
	v->partitions = h->partitions;
	v->jobs = h->jobs;
	v->resv = h->resv;
	v->topo = h->topo;
	v->ntopo = h->ntopo;
	v->topo_depth = h->topo_depth;
	v->st = h->st;
	v->read_gen = h->read_gen;
	v->budget_read = h->budget_read;
	v->enforce_safe = h->enforce_safe;
}

/* What the shadow owns copies of: the tables a read under the lock may
 * replace or grow meanwhile.  false without memory. */
static bool copy_tables(struct fw_slurm *v, const struct fw_slurm *h)
{
	bool ok = true;

	v->qos = dup_of(h->qos, (size_t)h->nqos, sizeof *h->qos, &ok);
	v->nqos = v->qos ? h->nqos : 0;
	v->unames = dup_of(h->unames, h->cap_unames, sizeof *h->unames, &ok);
	v->cap_unames = v->unames ? h->cap_unames : 0;
	v->nunames = v->unames ? h->nunames : 0;
	v->budgets = dup_of(h->budgets, (size_t)h->nbudgets, sizeof *h->budgets, &ok);
	v->nbudgets = v->budgets ? h->nbudgets : 0;
	return ok;
}

/* What the shadow owns (its topology and messages are the handle's). */
static void shadow_free(struct fw_slurm *v)
{
	if (!v)
		return;
	free(v->jhash);
	free(v->thash);
	free(v->orphans);
	free(v->qos);
	free(v->unames);
	free(v->budgets);
	free(v);
}

/* The shadow of h (caller holds the daemon's lock), or NULL. */
static struct fw_slurm *shadow_of(const struct fw_slurm *h)
{
	struct fw_slurm *v = calloc(1, sizeof *v);

	if (!v)
		return NULL;
	share(v, h);
	if (!copy_tables(v, h)) {
		shadow_free(v);
		return NULL;
	}
	return v;
}

struct fw_slurm_copy *fw__slurm_copy_of(struct fw_slurm *h)
{
	struct fw_slurm_copy *c = calloc(1, sizeof *c);

	if (!c || !(c->v = shadow_of(h))) {
		free(c);
		return NULL;
	}
	c->h = h;
	c->gen = h->st.generation;
	fw__slurm_pin(h);
	return c;
}

int fw_slurm_capture(struct fw_slurm *h, const struct fw_snapshot *s, struct fw_slurm_copy **out,
		     struct fw_diag *d)
{
	int rc;

	*out = NULL;
	if ((rc = fw__slurm_load(h, d)) != FW_OK)
		return rc;
	if (fw__slurm_index(h) != FW_OK)
		return fw_diag_set(d, FW_ENOMEM, "slurm", 0, 0, "snapshot", "indexing the jobs: out of memory");
	h->read_gen = h->st.generation;
	if (h->budget_read)
		fw__slurm_budget_note(h, s); /* s's queues have only their own */
	if (!(*out = fw__slurm_copy_of(h)))
		return fw_diag_set(d, FW_ENOMEM, "slurm", 0, 0, "snapshot", "copying the read: out of memory");
	return FW_OK;
}

int fw_slurm_build(const struct fw_slurm_copy *c, struct fw_snapshot *s, struct fw_backend_world *w,
		   struct fw_diag *d)
{
	struct fw_slurm *v = c->v;
	int32_t kept, unmatched;
	int rc = fw__slurm_build(v, s, w, d);

	if (rc == FW_OK && v->budget_read) /* Slurm's GPU-hour budgets (usage.c) */
		rc = fw_slurm_budget_apply(s, v->budgets, v->nbudgets, v->enforce_safe, &kept, &unmatched);
	return rc;
}

/* The shadow's jobs left out and user names into the handle, the
 * handle's into the shadow (freed with it). */
static void swap_tables(struct fw_slurm *h, struct fw_slurm *v)
{
	struct fw__orphan *o = h->orphans;
	struct fw__uname *u = h->unames;
	int32_t no = h->norphans, co = h->cap_orphans;
	uint32_t nu = h->nunames, cu = h->cap_unames;

	h->orphans = v->orphans;
	h->norphans = v->norphans;
	h->cap_orphans = v->cap_orphans;
	h->unames = v->unames;
	h->nunames = v->nunames;
	h->cap_unames = v->cap_unames;
	v->orphans = o;
	v->norphans = no;
	v->cap_orphans = co;
	v->unames = u;
	v->nunames = nu;
	v->cap_unames = cu;
}

bool fw_slurm_adopt(struct fw_slurm *h, struct fw_slurm_copy *c)
{
	struct fw_slurm *v = c->v;

	if (c->h != h || c->gen != h->st.generation || h->read_gen != c->gen)
		return false;
	swap_tables(h, v);
	h->st.skipped_jobs = v->st.skipped_jobs;
	h->st.skipped_nodes = v->st.skipped_nodes;
	h->st.unheld = v->st.unheld; /* job_submit.lua's (build.c hook_check), for fw_slurm_warn */
	h->st.stray = v->st.stray;
	h->st.unheld_job = v->st.unheld_job;
	h->st.stray_job = v->st.stray_job;
	memcpy(h->st.unheld_part, v->st.unheld_part, sizeof h->st.unheld_part);
	memcpy(h->st.stray_part, v->st.stray_part, sizeof h->st.stray_part);
	return true;
}

void fw_slurm_discard(struct fw_slurm_copy *c)
{
	if (!c)
		return;
	shadow_free(c->v);
	fw__slurm_unpin(c->h);
	free(c);
}
