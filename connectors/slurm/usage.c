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
 *
 * Budgets.  Slurm's GrpTRESMins=gres/gpu=N on an account is a budget on
 * that same decayed usage, in GPU-minutes, of the account and its
 * children: fairway's gpu_hour_budget on the queue of that name, in
 * GPU-hours (N / 60).  fw__slurm_budget_refresh reads them with the same
 * RPC (the associations' limits by TRES position, grp_tres_mins_ctld,
 * what `scontrol show assoc_mgr` prints; no TRES id to look up) and
 * slurm.conf's AccountingStorageEnforce, whose 'safe' is fairway's
 * scheduler.budgetSafe; fw_slurm_read puts both on every snapshot
 * (fw_slurm_budget_apply), a queue's own budget (the YAML's) winning.
 * They are read whatever usage fair share uses: they are limits the
 * admin set.  User associations' GrpTRESMins (a budget per user) have
 * no fairway equivalent and are not read; Slurm enforces them itself.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurmdb.h>

#include "slurm_int.h"

/* ACCOUNTING_ENFORCE_LIMITS of Slurm's src/common/slurm_accounting_storage.h
 * (not in the public headers): only then does priority/multifactor add a
 * job's use to its associations per TRES (usage_tres_raw). */
#define FW_SLURM_ENFORCE_LIMITS 0x0002
/* ACCOUNTING_ENFORCE_SAFE of the same header ('safe', which implies
 * 'limits'): a job starts only if its whole run fits its associations'
 * GrpTRESMins. */
#define FW_SLURM_ENFORCE_SAFE 0x0010

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

	if (FW__SL(slurm_load_ctl_conf(0, &c)) != SLURM_SUCCESS)
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
	FW__SLV(slurm_free_ctl_conf(c));
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
	ListIterator it = FW__SLP(slurm_list_iterator_create(assocs));
	slurmdb_assoc_rec_t *r;
	int32_t cap = 0;
	int rc = FW_OK;

	while (rc == FW_OK && (r = FW__SLP(slurm_list_next(it)))) {
		if (!r->user || !*r->user || !r->acct || !r->usage || !r->usage->usage_tres_raw ||
		    (uint32_t)gi >= r->usage->tres_cnt)
			continue;
		double u = (double)r->usage->usage_tres_raw[gi];
		if (!(u > 0) || !isfinite(u))
			continue; /* nothing used (or a value no usage can be) */
		rc = add_row(rows, n, &cap, r, u);
	}
	FW__SLV(slurm_list_iterator_destroy(it));
	return rc;
}

struct usage_out {
	struct fw_slurm_usage **rows;
	int32_t *n;
};

static int usage_rows(List assocs, int gi, void *out)
{
	struct usage_out *o = out;

	return collect(assocs, gi, o->rows, o->n);
}

/* slurmctld's associations (slurm_load_assoc_mgr_info) handed to rows_of
 * with the gres/gpu TRES index; none without that TRES (FW_ENOENT, no_gpu
 * saying so).  The caller frees what rows_of made when it fails. */
static int assoc_read(int (*rows_of)(List, int, void *), void *out, const char *no_gpu, struct fw_diag *d)
{
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *m = NULL;
	int rc = FW_OK, gi;

	memset(&req, 0, sizeof req);
	req.flags = ASSOC_MGR_INFO_FLAG_ASSOC;
	if (FW__SL(slurm_load_assoc_mgr_info(&req, &m)) != SLURM_SUCCESS || !m)
		return fw__slurm_eio(d, "slurm_load_assoc_mgr_info");
	gi = fw_slurm_gpu_tres_index(m->tres_names, m->tres_cnt);
	if (gi < 0)
		rc = fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "AccountingStorageTRES", "%s", no_gpu);
	else if (m->assoc_list)
		rc = rows_of(m->assoc_list, gi, out);
	FW__SLV(slurm_free_assoc_mgr_info_msg(m));
	return rc;
}

int fw_slurm_usage_fetch(struct fw_slurm *h, struct fw_slurm_usage **rows, int32_t *n,
			 double *half_life_s, struct fw_diag *d)
{
	int rc;

	(void)h;
	*rows = NULL;
	*n = 0;
	if ((rc = conf_keeps_usage(half_life_s, d)) != FW_OK)
		return rc;
	struct usage_out o = { rows, n };
	if ((rc = assoc_read(usage_rows, &o,
			     "Slurm tracks no gres/gpu TRES, so it keeps no GPU usage "
			     "(add gres/gpu to AccountingStorageTRES)", d)) != FW_OK) {
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

/* ------------------------------------------------------------ budgets */

double fw_slurm_gpu_budget(const uint64_t *mins, uint32_t n, int gi, uint64_t *minutes)
{
	uint64_t m;

	*minutes = 0;
	if (!mins || gi < 0 || (uint32_t)gi >= n)
		return 0;
	m = mins[gi];
	if (m == INFINITE64 || m == NO_VAL64)
		return 0; /* no limit */
	*minutes = m;
	if (m == 0)
		return FW_SLURM_BUDGET_ZERO_GPU_H;
	return (double)m / 60 < FW_BUDGET_MAX_GPU_H ? (double)m / 60 : FW_BUDGET_MAX_GPU_H;
}

int fw_slurm_budget_apply(struct fw_snapshot *s, const struct fw_slurm_budget *rows, int32_t n, bool safe,
			  int32_t *kept, int32_t *unmatched)
{
	*kept = 0;
	*unmatched = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t q = fw_snapshot_find_queue(s, rows[i].acct);
		double b = rows[i].gpu_h;
		if (q < 0)
			(*unmatched)++;
		else if (s->queues[q].gpu_hour_budget > 0)
			(*kept)++; /* the YAML's (or the API's) stands */
		else if (b > 0) /* not NaN */
			s->queues[q].gpu_hour_budget = b < FW_BUDGET_MAX_GPU_H ? b : FW_BUDGET_MAX_GPU_H;
	}
	if (safe)
		s->config.budget_safe = true;
	return FW_OK;
}

/* slurm.conf: 'safe' in AccountingStorageEnforce; FW_ENOENT without
 * slurmdbd (no associations, so no GrpTRESMins; slurmctld then clears
 * AccountingStorageEnforce itself). */
static int conf_budgets(bool *safe, struct fw_diag *d)
{
	slurm_conf_t *c = NULL;
	bool dbd;

	if (FW__SL(slurm_load_ctl_conf(0, &c)) != SLURM_SUCCESS)
		return fw__slurm_eio(d, "slurm_load_ctl_conf");
	*safe = (c->accounting_storage_enforce & FW_SLURM_ENFORCE_SAFE) != 0;
	dbd = c->accounting_storage_type && strstr(c->accounting_storage_type, "slurmdbd");
	FW__SLV(slurm_free_ctl_conf(c));
	return dbd ? FW_OK
		   : fw_diag_set(d, FW_ENOENT, "slurm.conf", 0, 0, "AccountingStorageType",
				 "no slurmdbd, so no account has a GrpTRESMins");
}

/* The account associations (no user) with a GPU budget, as rows.  An
 * account name a queue's cannot hold is left out (cut short it could name
 * another queue). */
static int budget_rows(List assocs, int gi, struct fw_slurm_budget **rows, int32_t *n)
{
	ListIterator it = FW__SLP(slurm_list_iterator_create(assocs));
	slurmdb_assoc_rec_t *r;
	int32_t cap = 0;
	int rc = FW_OK;

	while (rc == FW_OK && (r = FW__SLP(slurm_list_next(it)))) {
		uint64_t m;
		if ((r->user && *r->user) || !r->acct || !*r->acct || strlen(r->acct) >= FW_NAME_MAX || !r->usage)
			continue;
		double b = fw_slurm_gpu_budget(r->grp_tres_mins_ctld, r->usage->tres_cnt, gi, &m);
		if (!(b > 0))
			continue;
		if (*n == cap) {
			int32_t nc = cap ? 2 * cap : 16;
			void *p = realloc(*rows, (size_t)nc * sizeof **rows);
			if (!p) {
				rc = FW_ENOMEM;
				break;
			}
			*rows = p;
			cap = nc;
		}
		memset(&(*rows)[*n], 0, sizeof **rows);
		snprintf((*rows)[*n].acct, FW_NAME_MAX, "%s", r->acct);
		(*rows)[*n].gpu_h = b;
		(*rows)[*n].minutes = m;
		(*n)++;
	}
	FW__SLV(slurm_list_iterator_destroy(it));
	return rc;
}

struct budget_out {
	struct fw_slurm_budget **rows;
	int32_t *n;
};

static int budget_rows_of(List assocs, int gi, void *out)
{
	struct budget_out *o = out;

	return budget_rows(assocs, gi, o->rows, o->n);
}

/* One read: the rows (malloc'd), 'safe'; FW_OK, FW_ENOENT (no budgets can
 * exist: *d says why), FW_EIO, FW_ENOMEM. */
static int budget_fetch(struct fw_slurm_budget **rows, int32_t *n, bool *safe, struct fw_diag *d)
{
	int rc;

	*rows = NULL;
	*n = 0;
	*safe = false;
	if ((rc = conf_budgets(safe, d)) != FW_OK)
		return rc;
	struct budget_out o = { rows, n };
	if ((rc = assoc_read(budget_rows_of, &o, "Slurm tracks no gres/gpu TRES, so no GrpTRESMins on GPUs", d)) !=
	    FW_OK) {
		free(*rows);
		*rows = NULL;
		*n = 0;
	}
	return rc;
}

static bool same_rows(const struct fw_slurm_budget *a, int32_t na, const struct fw_slurm_budget *b, int32_t nb)
{
	if (na != nb)
		return false;
	for (int32_t i = 0; i < na; i++)
		if (strcmp(a[i].acct, b[i].acct) || a[i].minutes != b[i].minutes)
			return false;
	return true;
}

void fw__slurm_budget_ask(struct fw__budget_ask *a)
{
	struct fw_diag d;

	memset(a, 0, sizeof *a);
	memset(&d, 0, sizeof d);
	a->asked = true;
	a->rc = budget_fetch(&a->rows, &a->n, &a->safe, &d);
	if (a->rc == FW_ENOENT)
		fw_diag_format(&d, a->why, sizeof a->why);
}

void fw__slurm_budget_take(struct fw_slurm *h, struct fw__budget_ask *a)
{
	bool changed;

	if (!a->asked || (a->rc != FW_OK && a->rc != FW_ENOENT)) { /* not now: the last read stands */
		free(a->rows);
		memset(a, 0, sizeof *a);
		return;
	}
	changed = !h->budget_read || a->rc != h->budget_rc || a->safe != h->enforce_safe ||
		  !same_rows(a->rows, a->n, h->budgets, h->nbudgets) || strcmp(a->why, h->budget_why);
	free(h->budgets);
	h->budgets = a->rows;
	h->nbudgets = a->n;
	h->enforce_safe = a->safe;
	h->budget_rc = a->rc;
	h->budget_read = true;
	memcpy(h->budget_why, a->why, sizeof a->why);
	h->budget_gen += changed;
	memset(a, 0, sizeof *a);
}

void fw__slurm_budget_refresh(struct fw_slurm *h, double now_ms)
{
	struct fw__budget_ask a;

	if (!fw__slurm_due(h, &h->budget_next_ms, now_ms, FW_SLURM_BUDGET_PERIOD_S))
		return;
	fw__slurm_budget_ask(&a);
	fw__slurm_budget_take(h, &a);
}

/* printf onto the note at *at; past its end, "..." ends it. */
static void note_add(char *buf, size_t cap, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void note_add(char *buf, size_t cap, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*at >= cap)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *at, cap - *at, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= cap - *at) {
		*at = cap;
		if (cap > 4)
			memcpy(buf + cap - 4, "...", 4);
		return;
	}
	*at += (size_t)k;
}

/* GPU-hours as the note writes them: plain digits, never an exponent
 * (1000000000, not 1e+09; 0.000001, not 1e-06), a whole number in full,
 * another to 4 significant digits (0.01667: one GPU-minute). */
static const char *gpu_hours(double x, char *buf, size_t n)
{
	int decimals = x == floor(x) ? 0 : 3 - (int)floor(log10(fabs(x)));
	size_t len;

	snprintf(buf, n, "%.*f", decimals < 0 ? 0 : decimals > 12 ? 12 : decimals, x);
	len = strlen(buf);
	while (strchr(buf, '.') && len > 1 && (buf[len - 1] == '0' || buf[len - 1] == '.'))
		buf[--len] = '\0'; /* 0.5000 is 0.5 */
	return buf;
}

void fw__slurm_budget_note(struct fw_slurm *h, const struct fw_snapshot *s)
{
	char *b = h->budget_note;
	size_t cap = sizeof h->budget_note, at = 0;

	if (!h->budget_read || h->note_gen == h->budget_gen)
		return;
	h->note_gen = h->budget_gen;
	b[0] = '\0';
	if (h->budget_rc != FW_OK)
		note_add(b, cap, &at, "GPU-hour budgets: none from Slurm (%s)", h->budget_why);
	else if (!h->nbudgets)
		note_add(b, cap, &at, "GPU-hour budgets: no account in Slurm has a GrpTRESMins on gres/gpu");
	else
		note_add(b, cap, &at, "GPU-hour budgets from Slurm's GrpTRESMins:");
	for (int32_t i = 0; h->budget_rc == FW_OK && i < h->nbudgets; i++) {
		const struct fw_slurm_budget *r = &h->budgets[i];
		int32_t q = fw_snapshot_find_queue(s, r->acct);
		unsigned long long m = (unsigned long long)r->minutes;
		const char *es = m == 1 ? "" : "s";
		char gh[48];
		note_add(b, cap, &at, "%s %s", i ? "," : "", r->acct);
		if (q < 0)
			note_add(b, cap, &at, " (%llu GPU-minute%s; no queue of that name: not used)", m, es);
		else if (s->queues[q].gpu_hour_budget > 0)
			note_add(b, cap, &at, " (%llu GPU-minute%s; the config's gpuHourBudget %s stands)", m, es,
				 gpu_hours(s->queues[q].gpu_hour_budget, gh, sizeof gh));
		else if (!m)
			note_add(b, cap, &at, " %s GPU-h (GrpTRESMins=gres/gpu=0: any use at all is over it)",
				 gpu_hours(r->gpu_h, gh, sizeof gh));
		else if ((double)m / 60 > FW_BUDGET_MAX_GPU_H)
			note_add(b, cap, &at, " %s GPU-h (Slurm's %llu GPU-minutes, clamped to fairway's most)",
				 gpu_hours(r->gpu_h, gh, sizeof gh), m);
		else
			note_add(b, cap, &at, " %s GPU-h (%llu GPU-minute%s)", gpu_hours(r->gpu_h, gh, sizeof gh), m, es);
	}
	if (h->enforce_safe)
		note_add(b, cap, &at, "; budgetSafe on: slurm.conf's AccountingStorageEnforce has safe%s",
			 s->config.budget_safe ? " (and the config's budgetSafe)" : "");
}

const char *fw_slurm_budget_note(const struct fw_slurm *h, uint64_t *gen)
{
	*gen = h->note_gen;
	return h->budget_note;
}
