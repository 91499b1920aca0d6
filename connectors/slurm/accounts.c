/*
 * accounts.c — the account hierarchy of slurmdbd as fairway queues.
 *
 * When slurm.conf stores accounting in slurmdbd, its account tree (the
 * associations of the cluster that name no user) becomes a queue tree:
 * every account a queue, its parent account its parent queue ("root"'s
 * children are top-level queues), its FairShare (shares_raw) the queue's
 * over-quota weight for GPUs, deserved quota 0.  So without any quota in
 * fairway's YAML the cluster is shared by the accounts' Slurm fair-share
 * weights, level by level.  Accounts the snapshot already has as queues
 * are left alone: fairway's YAML wins.
 *
 * An account's GrpTRES on GPUs becomes its limits: gres/gpu=N the queue's
 * GPU limit, gres/gpu:TYPE=N a GPU model limit on TYPE (the node model
 * the adapter reads from a node's Gres=gpu:TYPE:N), as sacctmgr modify
 * account A set GrpTRES=gres/gpu:h100=16 caps its H100s.  The TRES ids of
 * the association's grp_tres ("1001=16,...") are named by slurmdbd's
 * TRES table (slurmdb_tres_get); other TRES are not fairway's to limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurmdb.h>

#include "slurm_int.h"

struct acct {
	char name[FW_NAME_MAX], parent[FW_NAME_MAX];
	uint32_t shares;
	bool added;
	char tres[512];     /* grp_tres, "id=count,..." ("" none) */
};

static int collect(List assocs, struct acct **out, int *n)
{
	ListIterator it = slurm_list_iterator_create(assocs);
	slurmdb_assoc_rec_t *r;
	int cap = 0;

	*out = NULL;
	*n = 0;
	while ((r = slurm_list_next(it))) {
		if ((r->user && *r->user) || !r->acct || !strcmp(r->acct, "root"))
			continue;
		if (*n == cap) {
			void *p = realloc(*out, (size_t)(cap = cap ? 2 * cap : 32) * sizeof **out);
			if (!p) {
				slurm_list_iterator_destroy(it);
				return FW_ENOMEM;
			}
			*out = p;
		}
		memset(&(*out)[*n], 0, sizeof **out);
		snprintf((*out)[*n].name, FW_NAME_MAX, "%s", r->acct);
		snprintf((*out)[*n].parent, FW_NAME_MAX, "%s", r->parent_acct ? r->parent_acct : "root");
		(*out)[*n].shares = r->shares_raw && r->shares_raw != NO_VAL ? r->shares_raw : 1;
		snprintf((*out)[*n].tres, sizeof (*out)[*n].tres, "%s", r->grp_tres ? r->grp_tres : "");
		(*n)++;
	}
	slurm_list_iterator_destroy(it);
	return FW_OK;
}

/* TRES id -> its GPU role: the name of a gres/gpu TRES ("gpu", or
 * "gpu:h100"), NULL for any other. */
static const char *gpu_tres(List tres, uint32_t id)
{
	ListIterator it;
	slurmdb_tres_rec_t *t;
	const char *name = NULL;

	if (!tres || !(it = slurm_list_iterator_create(tres)))
		return NULL;
	while ((t = slurm_list_next(it)))
		if (t->id == id && t->type && !strcmp(t->type, "gres") && t->name &&
		    (!strcmp(t->name, "gpu") || !strncmp(t->name, "gpu:", 4)))
			name = t->name;
	slurm_list_iterator_destroy(it);
	return name;
}

/* Account a's grp_tres on GPUs as queue q's limits (the queue the import
 * just made). */
static int add_limits(struct fw_snapshot *s, int32_t q, const struct acct *a, List tres)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof buf, "%s", a->tres);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long id = strtoul(t, &end, 10), count;
		if (*end != '=')
			continue;
		count = strtoul(end + 1, &end, 10);
		const char *name = *end ? NULL : gpu_tres(tres, (uint32_t)id);
		if (!name || count > (unsigned long)INT32_MAX)
			continue; /* not GPUs, or no limit ("INFINITE" is absent) */
		if (!strcmp(name, "gpu")) {
			s->queues[q].limit.v[FW_RES_GPU] = (int64_t)count * 1000;
			continue;
		}
		struct fw_model_limit m = { .queue = q, .gpus = (int64_t)count * 1000 };
		snprintf(m.model, sizeof m.model, "%s", name + 4);
		if (fw_snapshot_add_model_limit(s, &m) < 0)
			return FW_ENOMEM;
	}
	return FW_OK;
}

/* Parents first: repeat passes adding accounts whose parent is root or
 * already a queue. */
static int add_queues(struct fw_snapshot *s, struct acct *a, int n, int *added, List tres)
{
	for (bool progress = true; progress;) {
		progress = false;
		for (int i = 0; i < n; i++) {
			int parent = strcmp(a[i].parent, "root") ? fw_snapshot_find_queue(s, a[i].parent) : -1;
			struct fw_queue q;
			if (a[i].added || (parent < 0 && strcmp(a[i].parent, "root")))
				continue;
			a[i].added = progress = true;
			if (fw_snapshot_find_queue(s, a[i].name) >= 0)
				continue; /* the YAML has it */
			fw_queue_init(&q);
			snprintf(q.name, sizeof q.name, "%s", a[i].name);
			q.parent = parent;
			q.over_quota_weight[FW_RES_GPU] = a[i].shares;
			int32_t qi = fw_snapshot_add_queue(s, &q);
			if (qi < 0 || add_limits(s, qi, &a[i], tres) != FW_OK)
				return FW_ENOMEM;
			(*added)++;
		}
	}
	return FW_OK;
}

static int uses_slurmdbd(char *cluster, size_t len, struct fw_diag *d)
{
	slurm_conf_t *c = NULL;
	bool dbd;

	if (slurm_load_ctl_conf(0, &c) != SLURM_SUCCESS)
		return fw__slurm_eio(d, "slurm_load_ctl_conf");
	dbd = c->accounting_storage_type && strstr(c->accounting_storage_type, "slurmdbd");
	snprintf(cluster, len, "%s", c->cluster_name ? c->cluster_name : "");
	slurm_free_ctl_conf(c);
	return dbd ? FW_OK
		   : fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "AccountingStorageType",
				 "this cluster keeps no accounts in slurmdbd");
}

int fw_slurm_import_accounts(struct fw_slurm *h, struct fw_snapshot *s,
			     int *added, struct fw_diag *d)
{
	slurmdb_assoc_cond_t cond;
	struct acct *a = NULL;
	char cluster[FW_NAME_MAX];
	void *db;
	List assocs;
	int n = 0, rc;

	(void)h;
	*added = 0;
	if ((rc = uses_slurmdbd(cluster, sizeof cluster, d)) != FW_OK)
		return rc;
	if (!(db = slurmdb_connection_get(NULL)))
		return fw__slurm_eio(d, "cannot reach slurmdbd");
	memset(&cond, 0, sizeof cond);
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, cluster);
	assocs = slurmdb_associations_get(db, &cond);
	slurm_list_destroy(cond.cluster_list);
	if (!assocs) {
		slurmdb_connection_close(&db);
		return fw__slurm_eio(d, "slurmdb_associations_get");
	}
	List tres = slurmdb_tres_get(db, NULL); /* NULL: no TRES named, so no limits */
	rc = collect(assocs, &a, &n);
	if (rc == FW_OK)
		rc = add_queues(s, a, n, added, tres);
	free(a);
	if (tres)
		slurm_list_destroy(tres);
	slurm_list_destroy(assocs);
	slurmdb_connection_close(&db);
	return rc;
}
