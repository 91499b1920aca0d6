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
		(*n)++;
	}
	slurm_list_iterator_destroy(it);
	return FW_OK;
}

/* Parents first: repeat passes adding accounts whose parent is root or
 * already a queue. */
static int add_queues(struct fw_snapshot *s, struct acct *a, int n, int *added)
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
			if (fw_snapshot_add_queue(s, &q) < 0)
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
	rc = collect(assocs, &a, &n);
	if (rc == FW_OK)
		rc = add_queues(s, a, n, added);
	free(a);
	slurm_list_destroy(assocs);
	slurmdb_connection_close(&db);
	return rc;
}
