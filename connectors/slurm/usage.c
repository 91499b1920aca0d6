/*
 * usage.c — Slurm's decayed usage as fairway's (`fairway-slurm`).
 *
 * fairway's fair share bends each queue's over-quota weight by its decayed
 * GPU usage (fairshare.h), and with scheduler.userFairShare orders a
 * queue's users by theirs (policy.h).  On a Slurm cluster that number
 * already exists: with PriorityType=priority/multifactor slurmctld keeps,
 * for every association (an account and a user), its usage of each TRES
 * decayed with PriorityDecayHalfLife, the usage `sshare` shows.  The GPU
 * part of it (the TRES gres/gpu, which AccountingStorageTRES must name)
 * is GPU-seconds weighted by age, the very quantity fairway keeps, so it
 * is read as is:
 *
 *   - fw_slurm_usage_fetch(): one RPC (slurm_load_assoc_mgr_info, as
 *     `scontrol show assoc_mgr` does) for the associations that name a
 *     user; each becomes a row (account, user, GPU-seconds);
 *   - fw_slurm_usage_apply(): every queue's usage becomes the sum of its
 *     account's rows (a Slurm account names its leaf queue, as for jobs;
 *     fairway adds a subtree up the tree itself, so only user
 *     associations are read and nothing counts twice), and the users'
 *     usage table becomes the rows; the YAML's `usage` and `userUsage`
 *     are not used.  Rows whose account is no queue are left out.
 *
 * The driver reads it at start and every FW_SLURM_USAGE_PERIOD_S seconds
 * (Slurm itself recomputes it every PriorityCalcPeriod, 5 minutes by
 * default); in between fairway ages the last read with its own half-life.
 * Slurm keeps usage per TRES only with PriorityType=priority/multifactor,
 * slurmdbd, 'limits' in AccountingStorageEnforce (its decay thread adds a
 * job's TRES to usage_tres_raw only then; seen in the lab) and gres/gpu in
 * AccountingStorageTRES.  Without one of them fetch says which, and fair
 * share keeps the YAML's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurmdb.h>

#include "slurm_int.h"

/* ACCOUNTING_ENFORCE_LIMITS of Slurm's src/common/slurm_accounting_storage.h
 * (not in the public headers): only then does priority/multifactor add a
 * job's use to its associations per TRES (usage_tres_raw). */
#define FW_SLURM_ENFORCE_LIMITS 0x0002

int fw_slurm_gpu_tres_index(char *const *names, uint32_t n)
{
	for (uint32_t i = 0; names && i < n && i < INT32_MAX; i++)
		if (names[i] && !strcmp(names[i], "gres/gpu"))
			return (int)i;
	return -1;
}

/* Does slurm.conf keep usage?  The half-life and the reason when not. */
static int conf_keeps_usage(double *half_life_s, struct fw_diag *d)
{
	slurm_conf_t *c = NULL;
	int rc = FW_OK;

	if (slurm_load_ctl_conf(0, &c) != SLURM_SUCCESS)
		return fw__slurm_eio(d, "slurm_load_ctl_conf");
	*half_life_s = c->priority_decay_hl;
	if (!c->priority_type || !strstr(c->priority_type, "multifactor"))
		rc = fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "PriorityType",
				 "%s keeps no usage (priority/multifactor does)",
				 c->priority_type ? c->priority_type : "(none)");
	else if (!c->accounting_storage_type || !strstr(c->accounting_storage_type, "slurmdbd"))
		rc = fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "AccountingStorageType",
				 "no slurmdbd, so no associations to keep usage in");
	else if (!(c->accounting_storage_enforce & FW_SLURM_ENFORCE_LIMITS))
		rc = fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "AccountingStorageEnforce",
				 "without 'limits' in AccountingStorageEnforce Slurm keeps usage in "
				 "billing units only, not per GPU");
	else if (!c->priority_decay_hl)
		rc = fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "PriorityDecayHalfLife",
				 "PriorityDecayHalfLife=0: Slurm's usage never decays (fairway's does), so it is "
				 "not read");
	slurm_free_ctl_conf(c);
	return rc;
}

static int add_row(struct fw_slurm_usage **rows, int32_t *n, int32_t *cap,
		   const slurmdb_assoc_rec_t *r, double gpu_s)
{
	if (*n == *cap) {
		int32_t nc = *cap ? 2 * *cap : 64;
		void *p = realloc(*rows, (size_t)nc * sizeof **rows);
		if (!p)
			return FW_ENOMEM;
		*rows = p;
		*cap = nc;
	}
	memset(&(*rows)[*n], 0, sizeof **rows);
	snprintf((*rows)[*n].acct, FW_NAME_MAX, "%s", r->acct);
	snprintf((*rows)[*n].user, FW_NAME_MAX, "%s", r->user);
	(*rows)[*n].gpu_s = gpu_s;
	(*n)++;
	return FW_OK;
}

/* The user associations' GPU usage (tres index gi) as rows. */
static int collect(List assocs, int gi, struct fw_slurm_usage **rows, int32_t *n)
{
	ListIterator it = slurm_list_iterator_create(assocs);
	slurmdb_assoc_rec_t *r;
	int32_t cap = 0;
	int rc = FW_OK;

	while (rc == FW_OK && (r = slurm_list_next(it))) {
		if (!r->user || !*r->user || !r->acct || !r->usage || !r->usage->usage_tres_raw ||
		    (uint32_t)gi >= r->usage->tres_cnt)
			continue;
		double u = (double)r->usage->usage_tres_raw[gi];
		if (!(u > 0) || !isfinite(u))
			continue; /* nothing used (or a value no usage can be) */
		rc = add_row(rows, n, &cap, r, u);
	}
	slurm_list_iterator_destroy(it);
	return rc;
}

int fw_slurm_usage_fetch(struct fw_slurm *h, struct fw_slurm_usage **rows, int32_t *n,
			 double *half_life_s, struct fw_diag *d)
{
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *m = NULL;
	int rc, gi;

	(void)h;
	*rows = NULL;
	*n = 0;
	if ((rc = conf_keeps_usage(half_life_s, d)) != FW_OK)
		return rc;
	memset(&req, 0, sizeof req);
	req.flags = ASSOC_MGR_INFO_FLAG_ASSOC;
	if (slurm_load_assoc_mgr_info(&req, &m) != SLURM_SUCCESS || !m)
		return fw__slurm_eio(d, "slurm_load_assoc_mgr_info");
	gi = fw_slurm_gpu_tres_index(m->tres_names, m->tres_cnt);
	if (gi < 0)
		rc = fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "AccountingStorageTRES",
				 "Slurm tracks no gres/gpu TRES, so it keeps no GPU usage "
				 "(add gres/gpu to AccountingStorageTRES)");
	else if (m->assoc_list)
		rc = collect(m->assoc_list, gi, rows, n);
	slurm_free_assoc_mgr_info_msg(m);
	if (rc != FW_OK) {
		free(*rows);
		*rows = NULL;
		*n = 0;
	}
	return rc;
}

/* The queues by name, for a binary search per row: the daemon applies
 * every user association's row (thousands) each cycle, against as many
 * queues. */
struct qname {
	const char *name;
	int32_t q;
};

static int qname_cmp(const void *a, const void *b)
{
	return strcmp(((const struct qname *)a)->name, ((const struct qname *)b)->name);
}

static int32_t queue_named(const struct qname *by, int32_t n, const char *name)
{
	struct qname key = { name, -1 };
	const struct qname *hit = n > 0 ? bsearch(&key, by, (size_t)n, sizeof *by, qname_cmp) : NULL;

	return hit ? hit->q : -1;
}

int fw_slurm_usage_apply(struct fw_snapshot *s, const struct fw_slurm_usage *rows, int32_t n,
			 fw_time at, int32_t *unmatched)
{
	struct qname *by = malloc(((size_t)s->nqueues + 1) * sizeof *by);

	if (!by)
		return FW_ENOMEM;
	*unmatched = 0;
	for (int32_t q = 0; q < s->nqueues; q++) {
		s->queues[q].usage = 0;
		s->queues[q].usage_at = at;
		by[q] = (struct qname){ s->queues[q].name, q };
	}
	qsort(by, (size_t)s->nqueues, sizeof *by, qname_cmp);
	s->nuser_usage = 0;
	int rc = FW_OK;
	for (int32_t i = 0; i < n && rc == FW_OK; i++) {
		int32_t q = queue_named(by, s->nqueues, rows[i].acct);
		double g = rows[i].gpu_s < FW_SLURM_USAGE_MAX ? rows[i].gpu_s : FW_SLURM_USAGE_MAX;
		struct fw_user_usage u = { .queue = q, .usage = g, .usage_at = at };
		if (q < 0 || !(g > 0)) { /* no queue; none used, or NaN */
			*unmatched += q < 0;
			continue;
		}
		s->queues[q].usage += g;
		snprintf(u.user, sizeof u.user, "%s", rows[i].user);
		if (fw_snapshot_add_user_usage(s, &u) < 0)
			rc = FW_ENOMEM;
	}
	free(by);
	return rc;
}
