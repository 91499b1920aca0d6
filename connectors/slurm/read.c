/*
 * read.c — the handle: open, the cached loads with update times, lookups,
 * topology, ping, drain and health.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_int.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int fw__slurm_eio(struct fw_diag *d, const char *what)
{
	int e = slurm_get_errno();

	return fw_diag_set(d, FW_EIO, "slurmctld", 0, 0, "", "%s: %s", what,
			   e ? slurm_strerror(e) : "failed");
}

int fw__slurm_refused(struct fw_slurm *h, const char *what, const char *obj)
{
	int e = slurm_get_errno();

	snprintf(h->last_err, sizeof h->last_err, "%s %s: %s", what, obj,
		 e ? slurm_strerror(e) : "failed");
	return FW_EIO;
}

const char *fw_slurm_last_error(const struct fw_slurm *h)
{
	return h->last_err;
}

/* ------------------------------------------------------------ options */

/* The flag the options came from, for messages (fw_slurm_opts.flag). */
static const char *opt_flag(const struct fw_slurm_opts *o)
{
	return o->flag ? o->flag : "--backend-opt";
}

/* comments=N: comment updates per cycle, 1..1000000. */
static int opt_comments(const char *v, struct fw_slurm_opts *o, struct fw_diag *d)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > 1000000)
		return fw_diag_set(d, FW_EINVAL, opt_flag(o), 0, 0, "comments",
				   "comments=%s: expected a whole number from 1 to 1000000 "
				   "(comment updates per cycle; default 256)", v);
	o->comment_budget = (int)n;
	return FW_OK;
}

static int opt_one(char *kv, struct fw_slurm_opts *o, struct fw_diag *d)
{
	char *v = strchr(kv, '=');

	if (!v)
		return fw_diag_set(d, FW_EINVAL, opt_flag(o), 0, 0, kv,
				   "expected key=value (conf, partitions, comments, usage)");
	*v++ = '\0';
	if (!strcmp(kv, "conf"))
		o->slurm_conf = v;
	else if (!strcmp(kv, "partitions"))
		o->partitions = v;
	else if (!strcmp(kv, "comments"))
		return opt_comments(v, o, d);
	else if (!strcmp(kv, "usage") && (!strcmp(v, "slurm") || !strcmp(v, "own")))
		o->usage_own = !strcmp(v, "own");
	else if (!strcmp(kv, "usage"))
		return fw_diag_set(d, FW_EINVAL, opt_flag(o), 0, 0, "usage",
				   "usage=%s: expected slurm (Slurm's decayed usage, where Slurm keeps it; the "
				   "default) or own (fairway's own: the daemon's, or fairway-slurm's config)", v);
	else
		return fw_diag_set(d, FW_EINVAL, opt_flag(o), 0, 0, kv,
				   "unknown option '%s' (conf, partitions, comments, usage)", kv);
	return FW_OK;
}

int fw_slurm_opts_parse(char *buf, struct fw_slurm_opts *o, struct fw_diag *d)
{
	char *save = NULL;
	int rc;

	for (char *kv = buf ? strtok_r(buf, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save))
		if ((rc = opt_one(kv, o, d)) != FW_OK)
			return rc;
	return FW_OK;
}

/* ------------------------------------------------------------ open */

static void fetched_free(struct fw__fetched *f);

static int open_conf(struct fw_slurm *h, const struct fw_slurm_opts *o,
		     struct fw_diag *d)
{
	const char *conf = o->slurm_conf ? o->slurm_conf : getenv("SLURM_CONF");

	/* Without a config, slurm_init(NULL) goes "configless": a DNS SRV
	 * lookup, then fatal() — it would exit the process. */
	if (!conf || !*conf)
		return fw_diag_set(d, FW_EINVAL, "slurm.conf", 0, 0, "conf",
				   "no Slurm configuration: set SLURM_CONF=/etc/slurm/slurm.conf (its path) or pass "
				   "%s conf=PATH", opt_flag(o));
	if (access(conf, R_OK) != 0)
		return fw_diag_set(d, FW_ENOENT, conf, 0, 0, "conf",
				   "cannot read the Slurm configuration: %s", strerror(errno));
	snprintf(h->conf, sizeof h->conf, "%s", conf);
	snprintf(h->parts, sizeof h->parts, "%s", o->partitions ? o->partitions : "gpu");
	for (char *p = h->parts; *p; p++)
		if (*p == ':')
			*p = ',';
	h->o = *o;
	h->o.slurm_conf = h->conf;
	h->o.partitions = h->parts;
	if (h->o.comment_budget <= 0)
		h->o.comment_budget = 256;
	setenv("SLURM_CONF", h->conf, 1);
	slurm_init(h->conf);
	return FW_OK;
}

/* Is the name p (len bytes) one of Slurm's partitions? */
static bool part_known(const partition_info_msg_t *m, const char *p, size_t len)
{
	for (uint32_t k = 0; k < m->record_count; k++) {
		const char *n = m->partition_array[k].name;
		if (n && strlen(n) == len && !strncmp(n, p, len))
			return true;
	}
	return false;
}

/* Each managed partition (partitions=, else gpu) is one Slurm has: a name
 * it does not have (a typo; the default gpu on a cluster whose GPU
 * partition is named otherwise; partitions= empty) left fairway managing
 * no node and no job, silently.  Checked once, at open: FW_EINVAL naming
 * the option, the name and Slurm's partitions (sinfo -s). */
static int open_parts(struct fw_slurm *h, const struct fw_slurm_opts *o, struct fw_diag *d)
{
	partition_info_msg_t *m = NULL;
	char have[256] = "";
	const char *p = h->parts;
	int rc = FW_OK;

	if (FW__SL(slurm_load_partitions(0, &m, SHOW_ALL)) != SLURM_SUCCESS || !m)
		return fw__slurm_eio(d, "slurm_load_partitions");
	for (uint32_t k = 0; k < m->record_count && strlen(have) + 2 < sizeof have; k++)
		snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", k ? ", " : "",
			 m->partition_array[k].name ? m->partition_array[k].name : "?");
	for (;;) {
		size_t len = strcspn(p, ",");
		if (!part_known(m, p, len)) {
			rc = len ? fw_diag_set(d, FW_EINVAL, opt_flag(o), 0, 0, "partitions",
					       "no partition '%.*s' in Slurm (it has: %s; sinfo -s lists them): name the "
					       "partitions fairway manages with partitions=A:B%s", (int)len, p,
					       have[0] ? have : "none", o->partitions ? "" : " (the default is gpu)")
				 : fw_diag_set(d, FW_EINVAL, opt_flag(o), 0, 0, "partitions",
					       "partitions=%s names an empty partition (Slurm has: %s): name the partitions "
					       "fairway manages with partitions=A:B", o->partitions ? o->partitions : "",
					       have[0] ? have : "none");
			break;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	FW__SLV(slurm_free_partition_info_msg(m));
	return rc;
}

int fw_slurm_open(const struct fw_slurm_opts *o, struct fw_slurm **out,
		  struct fw_diag *d)
{
	struct fw_slurm *h = calloc(1, sizeof *h);
	int rc;

	if (!h)
		return FW_ENOMEM;
	pthread_mutex_init(&h->mu, NULL);
	if ((rc = open_conf(h, o, d)) != FW_OK || (rc = fw_slurm_ping(h, d)) != FW_OK ||
	    (rc = open_parts(h, o, d)) != FW_OK || (rc = fw__slurm_topo_load(h, d)) != FW_OK) {
		fw_slurm_close(h);
		return rc;
	}
	*out = h;
	return FW_OK;
}

void fw_slurm_close(struct fw_slurm *h)
{
	if (!h)
		return;
	FW__SLV(slurm_free_node_info_msg(h->nodes));
	FW__SLV(slurm_free_partition_info_msg(h->partitions));
	FW__SLV(slurm_free_job_info_msg(h->jobs));
	FW__SLV(slurm_free_reservation_info_msg(h->resv));
	fetched_free(&h->fetched);
	h->pins = 1; /* what is retired, freed (no copy outlives the handle) */
	fw__slurm_unpin(h);
	pthread_mutex_destroy(&h->mu);
	free(h->topo);
	free(h->jhash);
	free(h->thash);
	free(h->orphans);
	free(h->kept);
	fw__jobfail_free(h->jobfail);
	fw__slurm_ended_free(h);
	free(h->qos);
	free(h->budgets);
	free(h->unames);
	free(h);
}

/* What to check when the ping fails, by libslurm's errno: a connect that
 * failed (nothing listens where slurm.conf says slurmctld does), or a
 * send that did (slurmctld reached, the request not sent: most often
 * munge, which signs every RPC; seen in the lab with munged stopped,
 * where "cannot reach slurmctld" alone sent one looking at slurmctld). */
static const char *ping_hint(int e)
{
	switch (e) {
	case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
	case SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR:
		return "is slurmctld running? `scontrol ping` asks it; SlurmctldHost and SlurmctldPort in slurm.conf "
		       "say where it listens";
	case SLURM_COMMUNICATIONS_SEND_ERROR:
	case SLURMCTLD_COMMUNICATIONS_SEND_ERROR:
	case SLURM_PROTOCOL_AUTHENTICATION_ERROR:
		return "the request could not be sent, most often for munge, which signs every RPC: is munged running "
		       "on this host with the cluster's key? `munge -n | unmunge` checks it; libslurm's own lines "
		       "above say more";
	default:
		return "`scontrol ping` asks it";
	}
}

int fw_slurm_ping(struct fw_slurm *h, struct fw_diag *d)
{
	int e;

	(void)h;
	/* index 0 = the primary controller; slurm_ping() answers fast (one
	 * connect) where a load would retry for MessageTimeout */
	if (FW__SL(slurm_ping(0)) == SLURM_SUCCESS)
		return FW_OK;
	e = slurm_get_errno();
	return fw_diag_set(d, FW_EIO, "slurmctld", 0, 0, "", "cannot reach slurmctld: %s (%s)",
			   e ? slurm_strerror(e) : "failed", ping_hint(e));
}

const struct fw_slurm_stats *fw_slurm_stats(const struct fw_slurm *h)
{
	return &h->st;
}

/* ------------------------------------------------------------ loads */

/* One class asked by call ("only if changed since" the handle's
 * message) into (f)->field: a new message, or NULL when slurmctld says
 * "no change"; FW_EIO on any other refusal. */
#define FW__ASK(f, field, call, d, what)                                       \
	do {                                                                   \
		(f)->loads++;                                                  \
		if ((call) != SLURM_SUCCESS) {                                 \
			(f)->field = NULL;                                     \
			if (slurm_get_errno() != SLURM_NO_CHANGE_IN_DATA)      \
				return fw__slurm_eio(d, what);                 \
			(f)->unchanged++;                                      \
		}                                                              \
	} while (0)

/* Adopt one class: a new message replaces the handle's, which goes to
 * old (freed, or retired while pinned: retire). */
#define FW__ADOPT(h, f, field, old, changed)                                   \
	do {                                                                   \
		if ((f)->field) {                                              \
			(old).field = (h)->field;                              \
			(h)->field = (f)->field;                               \
			(f)->field = NULL;                                     \
			(changed) = true;                                      \
		}                                                              \
	} while (0)

static uint32_t task_key(uint32_t a, uint32_t t)
{
	return a * 2654435761u ^ t * 2246822519u;
}

/* Record i into table t (jhash_cap slots, power of two) at key k. */
static void hash_put(uint32_t *t, uint32_t cap, uint32_t k, uint32_t i)
{
	k &= cap - 1;
	while (t[k])
		k = (k + 1) & (cap - 1);
	t[k] = i + 1;
}

int fw__slurm_index(struct fw_slurm *h)
{
	uint32_t need = 16, n = h->jobs ? h->jobs->record_count : 0;

	while (need < 2 * n)
		need <<= 1;
	if (need != h->jhash_cap) {
		uint32_t *t = malloc(need * sizeof *t), *a = malloc(need * sizeof *a);
		if (!t || !a) {
			free(t);
			free(a);
			return FW_ENOMEM;
		}
		free(h->jhash);
		free(h->thash);
		h->jhash = t;
		h->thash = a;
		h->jhash_cap = need;
	}
	memset(h->jhash, 0, h->jhash_cap * sizeof *h->jhash);
	memset(h->thash, 0, h->jhash_cap * sizeof *h->thash);
	for (uint32_t i = 0; i < n; i++) {
		const slurm_job_info_t *j = &h->jobs->job_array[i];
		hash_put(h->jhash, h->jhash_cap, j->job_id * 2654435761u, i);
		if (fw__array_job(j) && j->array_task_id != NO_VAL)
			hash_put(h->thash, h->jhash_cap, task_key(j->array_job_id, j->array_task_id), i);
	}
	return FW_OK;
}

static void retired_free(struct fw__retired *r)
{
	FW__SLV(slurm_free_node_info_msg(r->nodes));
	FW__SLV(slurm_free_partition_info_msg(r->partitions));
	FW__SLV(slurm_free_job_info_msg(r->jobs));
	FW__SLV(slurm_free_reservation_info_msg(r->resv));
}

/* The messages a read replaced, under h->mu: kept while a copy pins the
 * handle's (old emptied; out of memory, they are let leak rather than
 * freed under the copy), else left in old for the caller to free after
 * the lock. */
static void retire(struct fw_slurm *h, struct fw__retired *old)
{
	struct fw__retired *k;

	if (!h->pins || !(old->nodes || old->partitions || old->jobs || old->resv))
		return;
	if ((k = malloc(sizeof *k))) {
		*k = *old;
		k->next = h->retired;
		h->retired = k;
	}
	memset(old, 0, sizeof *old);
}

void fw__slurm_pin(struct fw_slurm *h)
{
	pthread_mutex_lock(&h->mu);
	h->pins++;
	pthread_mutex_unlock(&h->mu);
}

void fw__slurm_unpin(struct fw_slurm *h)
{
	struct fw__retired *r = NULL, *next;

	pthread_mutex_lock(&h->mu);
	if (--h->pins == 0) {
		r = h->retired;
		h->retired = NULL;
	}
	pthread_mutex_unlock(&h->mu);
	for (; r; r = next) {
		next = r->next;
		retired_free(r);
		free(r);
	}
}

/* The fetch's messages freed (the QOS table and budgets stay). */
static void fetched_free_msgs(struct fw__fetched *f)
{
	FW__SLV(slurm_free_node_info_msg(f->nodes));
	FW__SLV(slurm_free_partition_info_msg(f->partitions));
	FW__SLV(slurm_free_job_info_msg(f->jobs));
	FW__SLV(slurm_free_reservation_info_msg(f->resv));
	f->nodes = NULL;
	f->partitions = NULL;
	f->jobs = NULL;
	f->resv = NULL;
	f->ready = false;
}

static void fetched_free(struct fw__fetched *f)
{
	fetched_free_msgs(f);
	free(f->qos);
	free(f->budget.rows);
	memset(f, 0, sizeof *f);
}

/* The update times of the handle's messages, and its epoch, under h->mu:
 * what a round of loads asks from. */
struct since {
	time_t nodes, partitions, jobs, resv;
};

static struct since since_of(struct fw_slurm *h, uint64_t *epoch)
{
	struct since t;

	pthread_mutex_lock(&h->mu);
	t.nodes = h->nodes ? h->nodes->last_update : 0;
	t.partitions = h->partitions ? h->partitions->last_update : 0;
	t.jobs = h->jobs ? h->jobs->last_update : 0;
	t.resv = h->resv ? h->resv->last_update : 0;
	*epoch = h->epoch;
	pthread_mutex_unlock(&h->mu);
	return t;
}

/* 1. ask: one round of the four loads into f, each "only if changed
 * since" the handle's message; touches nothing else of h.  On failure f
 * holds what came back before it (fetched_free lets it go). */
static int ask(struct fw_slurm *h, struct fw__fetched *f, struct fw_diag *d)
{
	double t0 = now_ms();
	struct since t = since_of(h, &f->epoch);

	FW__ASK(f, nodes, FW__SL(slurm_load_node(t.nodes, &f->nodes, SHOW_ALL | SHOW_DETAIL)), d,
		"slurm_load_node");
	FW__ASK(f, partitions, FW__SL(slurm_load_partitions(t.partitions, &f->partitions, SHOW_ALL)), d,
		"slurm_load_partitions");
	FW__ASK(f, jobs, FW__SL(slurm_load_jobs(t.jobs, &f->jobs, SHOW_ALL | SHOW_DETAIL)), d,
		"slurm_load_jobs");
	FW__ASK(f, resv, FW__SL(slurm_load_reservations(t.resv, &f->resv)), d, "slurm_load_reservations");
	f->ms = now_ms() - t0;
	f->ready = true;
	return FW_OK;
}

/* The QOS table and the budgets, when due, asked into f too (RPCs to
 * slurmctld's association manager; a failed one keeps the last). */
static void ask_tables(struct fw_slurm *h, struct fw__fetched *f)
{
	double t0 = now_ms();

	if (fw__slurm_due(h, &h->qos_next_ms, t0, FW_SLURM_QOS_PERIOD_S))
		f->qos_asked = fw__slurm_qos_ask(&f->qos, &f->nqos) == FW_OK;
	if (fw__slurm_due(h, &h->budget_next_ms, t0, FW_SLURM_BUDGET_PERIOD_S))
		fw__slurm_budget_ask(&f->budget);
	f->ms += now_ms() - t0;
}

/* The tables of a fetch no read took, into the one that replaces it
 * (their period was claimed: else lost until the next). */
static void carry_tables(struct fw__fetched *to, struct fw__fetched *from)
{
	if (!to->qos_asked && from->qos_asked) {
		to->qos = from->qos;
		to->nqos = from->nqos;
		to->qos_asked = true;
		from->qos = NULL;
		from->qos_asked = false;
	}
	if (!to->budget.asked && from->budget.asked) {
		to->budget = from->budget;
		memset(&from->budget, 0, sizeof from->budget);
	}
}

int fw_slurm_fetch(struct fw_slurm *h, struct fw_diag *d)
{
	struct fw__fetched f, old;
	int rc;

	memset(&f, 0, sizeof f);
	if ((rc = ask(h, &f, d)) != FW_OK) {
		fetched_free(&f);
		return rc;
	}
	ask_tables(h, &f);
	pthread_mutex_lock(&h->mu);
	old = h->fetched;
	carry_tables(&f, &old);
	h->fetched = f;
	pthread_mutex_unlock(&h->mu);
	fetched_free(&old);
	return FW_OK;
}

/* 2. take: the fetch waiting for this read; its messages only if it
 * asked from those the handle holds now (no read adopted another since),
 * its tables whatever it asked from. */
static bool take_fetched(struct fw_slurm *h, struct fw__fetched *f)
{
	bool ok;

	pthread_mutex_lock(&h->mu);
	*f = h->fetched;
	memset(&h->fetched, 0, sizeof h->fetched);
	ok = f->ready && f->epoch == h->epoch;
	pthread_mutex_unlock(&h->mu);
	if (!ok)
		fetched_free_msgs(f);
	return ok;
}

/* The tables a fetch asked, made the handle's (f keeps none). */
static void adopt_tables(struct fw_slurm *h, struct fw__fetched *f)
{
	if (f->qos_asked)
		fw__slurm_qos_take(h, f->qos, f->nqos);
	else
		free(f->qos);
	f->qos = NULL;
	fw__slurm_budget_take(h, &f->budget);
}

/* 3. adopt: f's new messages become the handle's (a new epoch), its
 * counts the stats'; the generation moves when any class changed. */
static void adopt(struct fw_slurm *h, struct fw__fetched *f)
{
	struct fw__retired old = { 0 };
	bool changed = false, jobs_changed = false;

	pthread_mutex_lock(&h->mu);
	FW__ADOPT(h, f, nodes, old, changed);
	FW__ADOPT(h, f, partitions, old, changed);
	FW__ADOPT(h, f, jobs, old, jobs_changed);
	FW__ADOPT(h, f, resv, old, changed);
	h->epoch++;
	retire(h, &old);
	pthread_mutex_unlock(&h->mu);
	retired_free(&old);
	h->st.loads += f->loads;
	h->st.unchanged += f->unchanged;
	if (changed || jobs_changed || !h->st.generation)
		h->st.generation++;
}

/* A fetch made for this read, or the loads now; the QOS table and the
 * budgets that fetch asked; then, when theirs are still due (no fetch
 * asked them: the driver, an API read), those asked now (RPCs of their
 * own, under the caller's lock: every 30 s). */
int fw__slurm_load(struct fw_slurm *h, struct fw_diag *d)
{
	struct fw__fetched f;
	double t0, ms;
	bool ok = take_fetched(h, &f);
	int rc;

	adopt_tables(h, &f);
	if (!ok)
		memset(&f, 0, sizeof f);
	if (!ok && (rc = ask(h, &f, d)) != FW_OK) {
		fetched_free(&f);
		return rc;
	}
	adopt(h, &f);
	ms = f.ms; /* read_ms: the loads' time, wherever they ran, and the rest */
	fetched_free(&f);
	t0 = now_ms();
	fw__slurm_qos_refresh(h, t0);
	fw__slurm_budget_refresh(h, t0);
	h->st.read_ms = ms + now_ms() - t0;
	return FW_OK;
}

/* ------------------------------------------------------------ lookups */

/* Is the n bytes at name one of the comma list's? */
static bool listed_n(const char *list, const char *name, size_t n)
{
	for (const char *p = list; n && p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

bool fw__slurm_listed(const char *list, const char *name)
{
	return name && listed_n(list, name, strlen(name));
}

/* A pending job submitted to several partitions names them all ("gpu,cpu"):
 * it is managed when one of them is, as job_submit.lua holds it then. */
bool fw__slurm_managed(const struct fw_slurm *h, const char *partitions)
{
	for (const char *p = partitions; p && *p;) {
		size_t len = strcspn(p, ",");
		if (listed_n(h->parts, p, len))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* ------------------------------------------------------------ partition states */

enum fw__part_state fw__part_state_of(const partition_info_t *p)
{
	if (p->state_up & PARTITION_SCHED)
		return FW__PART_UP;
	return p->state_up & PARTITION_SUBMIT ? FW__PART_DOWN : FW__PART_INACTIVE;
}

enum fw__part_state fw__slurm_part_state(const struct fw_slurm *h, const char *name, size_t len)
{
	const partition_info_msg_t *m = h->partitions;

	for (uint32_t k = 0; m && k < m->record_count; k++) {
		const char *n = m->partition_array[k].name;
		if (n && strlen(n) == len && !strncmp(n, name, len))
			return fw__part_state_of(&m->partition_array[k]);
	}
	return FW__PART_GONE;
}

const char *fw__part_state_word(enum fw__part_state st)
{
	static const char *const words[] = {
#define FW__PART_WORD(name, word) word,
		FW__PART_STATE_MAP(FW__PART_WORD)
#undef FW__PART_WORD
	};

	return (unsigned)st < sizeof words / sizeof words[0] ? words[st] : "?";
}

enum fw__part_state fw__slurm_parts_state(const struct fw_slurm *h, const char *partitions)
{
	enum fw__part_state first = FW__PART_GONE, st;
	bool seen = false;

	for (const char *p = partitions; p && *p;) {
		size_t len = strcspn(p, ",");
		if (listed_n(h->parts, p, len)) {
			if ((st = fw__slurm_part_state(h, p, len)) == FW__PART_UP)
				return st;
			first = seen ? first : st;
			seen = true;
		}
		p += len + (p[len] == ',');
	}
	return first;
}

/* One more of the job's managed partitions into buf (*k of its len
 * bytes used): its name, with its state when states; false, buf as it
 * was, when it does not fit whole with room left for ", and N more",
 * but for the first, which is cut (a name of 80 bytes, say). */
static bool held_part(const struct fw_slurm *h, const char *p, size_t plen, bool states, char *buf, size_t len,
		      size_t *k)
{
	const char *w = fw__part_state_word(fw__slurm_part_state(h, p, plen));
	size_t left = len - *k;
	int n = states ? snprintf(buf + *k, left, "%s%.*s %s", *k ? ", " : "", (int)plen, p, w)
		       : snprintf(buf + *k, left, "%.*s", (int)plen, p);

	if (n >= 0 && *k == 0 && (size_t)n + 16 >= left) /* the first, cut */
		n = (int)(left > 16 ? left - 16 : 0);
	if (n < 0 || (size_t)n + 16 > left) {
		buf[*k] = '\0';
		return false;
	}
	buf[*k + (size_t)n] = '\0';
	*k += (size_t)n;
	return true;
}

int32_t fw__slurm_parts_held(const struct fw_slurm *h, const char *partitions, char *buf, size_t len)
{
	int32_t all = 0, said = 0;
	size_t k = 0, plen;
	bool room = len > 16;

	for (const char *p = partitions; p && *p; p += plen + (p[plen] == ','))
		all += listed_n(h->parts, p, plen = strcspn(p, ","));
	if (len)
		buf[0] = '\0';
	for (const char *p = partitions; room && p && *p; p += plen + (p[plen] == ','))
		if (listed_n(h->parts, p, plen = strcspn(p, ",")) && (room = held_part(h, p, plen, all > 1, buf, len, &k)))
			said++;
	if (said < all && len > 16)
		snprintf(buf + k, len - k, "%s%d more", k ? ", and " : "", (int)(all - said));
	return all;
}

slurm_job_info_t *fw__slurm_job(const struct fw_slurm *h, uint32_t id)
{
	if (!h->jobs || !h->jhash_cap)
		return NULL;
	for (uint32_t k = (id * 2654435761u) & (h->jhash_cap - 1); h->jhash[k];
	     k = (k + 1) & (h->jhash_cap - 1))
		if (h->jobs->job_array[h->jhash[k] - 1].job_id == id)
			return &h->jobs->job_array[h->jhash[k] - 1];
	return NULL;
}

/* ------------------------------------------------------------ arrays */

bool fw__array_job(const slurm_job_info_t *j)
{
	return j->array_job_id != 0 && j->array_job_id != NO_VAL;
}

bool fw__array_meta(const slurm_job_info_t *j)
{
	return fw__array_job(j) && j->array_task_id == NO_VAL && j->job_id == j->array_job_id;
}

/* ------------------------------------------------------------ het jobs */

bool fw__het_job(const slurm_job_info_t *j)
{
	return j->het_job_id != 0 && j->het_job_id != NO_VAL && !fw__array_job(j);
}

/* ------------------------------------------------------------ users */

static uint32_t uid_slot(uint32_t uid, uint32_t cap)
{
	return (uid * 2654435761u) & (cap - 1);
}

static struct fw__uname *uname_find(struct fw_slurm *h, uint32_t uid)
{
	for (uint32_t k = uid_slot(uid, h->cap_unames);; k = (k + 1) & (h->cap_unames - 1))
		if (!h->unames[k].used || h->unames[k].uid == uid)
			return &h->unames[k];
}

/* Keep the table at most half full; false when out of memory. */
static bool uname_room(struct fw_slurm *h)
{
	struct fw__uname *old = h->unames;
	uint32_t cap = h->cap_unames;

	if (cap && 2 * (h->nunames + 1) <= cap)
		return true;
	h->cap_unames = cap ? 2 * cap : 64;
	if (!(h->unames = calloc(h->cap_unames, sizeof *h->unames))) {
		h->unames = old;
		h->cap_unames = cap;
		return false;
	}
	for (uint32_t i = 0; i < cap; i++)
		if (old[i].used)
			*uname_find(h, old[i].uid) = old[i];
	free(old);
	return true;
}

bool fw__slurm_user(struct fw_slurm *h, const slurm_job_info_t *j, char *out, size_t n)
{
	struct fw__uname *e;
	struct passwd pw, *r = NULL;
	char buf[1024];
	bool named;

	if (fw__set(j->user_name)) {
		snprintf(out, n, "%s", j->user_name);
		return true;
	}
	if (h->cap_unames && (e = uname_find(h, j->user_id))->used) {
		snprintf(out, n, "%s", e->name);
		return e->named;
	}
	named = getpwuid_r((uid_t)j->user_id, &pw, buf, sizeof buf, &r) == 0 && r && r->pw_name &&
		strlen(r->pw_name) < FW_NAME_MAX;
	if (named)
		snprintf(out, n, "%s", r->pw_name);
	else
		snprintf(out, n, "uid%u", j->user_id);
	if (uname_room(h)) {
		e = uname_find(h, j->user_id);
		e->used = true;
		e->named = named;
		e->uid = j->user_id;
		snprintf(e->name, sizeof e->name, "%s", out);
		h->nunames++;
	}
	return named;
}

bool fw__job_released(const slurm_job_info_t *j)
{
	return fw__job_pending(j) && j->priority != 0 && j->req_nodes && *j->req_nodes;
}

/* The reasons that are neither the nodes (busy, down, cleaning, booting,
 * reserved), the job's priority, nor a dependency: Slurm's limits,
 * licenses and partition states.  Listed by range where slurm.h keeps
 * them together (22.05's enum job_state_reason). */
static bool own_reason(uint16_t r)
{
	switch (r) {
	case WAIT_PART_NODE_LIMIT:
	case WAIT_PART_TIME_LIMIT:
	case WAIT_PART_DOWN:
	case WAIT_PART_INACTIVE:
	case WAIT_LICENSES:
	case WAIT_ASSOC_JOB_LIMIT:
	case WAIT_ASSOC_RESOURCE_LIMIT:
	case WAIT_ASSOC_TIME_LIMIT:
	case WAIT_QOS_THRES:
	case WAIT_QOS_JOB_LIMIT:
	case WAIT_QOS_RESOURCE_LIMIT:
	case WAIT_QOS_TIME_LIMIT:
	case WAIT_ARRAY_TASK_LIMIT:
	case WAIT_PART_CONFIG:
	case WAIT_ACCOUNT_POLICY:
	case WAIT_PN_MEM_LIMIT:
		return true;
	default:
		return (r >= WAIT_QOS_GRP_CPU && r <= WAIT_ASSOC_MAX_SUB_JOB) ||
		       (r >= WAIT_ASSOC_GRP_UNK && r <= WAIT_QOS_MAX_SUB_JOB_PER_ACCT) ||
		       (r >= WAIT_ASSOC_GRP_BILLING && r <= WAIT_QOS_MIN_BILLING);
	}
}

/* Requeued and held since fairway started it, by someone else than
 * fairway, whose own requeue rewrote the comment first (slurm_int.h). */
static bool requeue_held(const slurm_job_info_t *j)
{
	return j->restart_cnt > 0 && !strncmp(j->comment, FW__STARTED_MARK, strlen(FW__STARTED_MARK));
}

bool fw__slurm_user_held(const slurm_job_info_t *j)
{
	return fw__job_held(j) && j->comment &&
	       (!strncmp(j->comment, FW__USER_HOLD_MARK, strlen(FW__USER_HOLD_MARK)) || requeue_held(j));
}

bool fw__slurm_held_back(const slurm_job_info_t *j)
{
	return (fw__job_released(j) && own_reason(j->state_reason)) || fw__slurm_user_held(j);
}

#ifdef FW_HAVE_SLURM_REASON_STRING
/* Exported by libslurm (slurm_protocol_defs.c) but in no public header. */
extern char *slurm_job_reason_string(enum job_state_reason inx);
#endif

const char *fw__slurm_reason_name(uint16_t reason, char *buf, size_t n)
{
#ifdef FW_HAVE_SLURM_REASON_STRING
	const char *s = slurm_job_reason_string((enum job_state_reason)reason);
	if (s && *s && strcmp(s, "?"))
		return snprintf(buf, n, "%s", s), buf;
#endif
	snprintf(buf, n, "reason %u", (unsigned)reason);
	return buf;
}

int32_t fw__het_waiting(const struct fw_slurm *h, const slurm_job_info_t *j, slurm_job_info_t **out,
			int32_t cap, int32_t *listed)
{
	uint32_t ids[FW__HET_MAX];
	int32_t n = 0;

	*listed = fw__array_tasks(j->het_job_id_set, ids, FW__HET_MAX);
	if (*listed <= 0 || *listed > FW__HET_MAX)
		return -1;
	for (int32_t i = 0; i < *listed; i++) {
		slurm_job_info_t *r = fw__slurm_job(h, ids[i]);
		bool dup = false;
		for (int32_t k = 0; k < i && !dup; k++)
			dup = ids[k] == ids[i]; /* a set naming one id twice */
		if (dup || !r || !fw__het_job(r) || r->het_job_id != j->het_job_id || !fw__job_pending(r) ||
		    fw__job_released(r))
			continue;
		/* insertion by (offset, job id): the first cap in that order */
		int32_t at = n < cap ? n : cap;
		while (at > 0 && (out[at - 1]->het_job_offset > r->het_job_offset ||
				  (out[at - 1]->het_job_offset == r->het_job_offset && out[at - 1]->job_id > r->job_id)))
			at--;
		if (at < cap) {
			memmove(out + at + 1, out + at, (size_t)((n < cap ? n : cap - 1) - at) * sizeof *out);
			out[at] = r;
		}
		n++;
	}
	return n;
}

uint32_t fw__het_released(const struct fw_slurm *h, const slurm_job_info_t *j)
{
	uint32_t ids[FW__HET_MAX];
	int32_t listed = fw__array_tasks(j->het_job_id_set, ids, FW__HET_MAX);

	for (int32_t i = 0; i < listed && i < FW__HET_MAX; i++) {
		const slurm_job_info_t *r = fw__slurm_job(h, ids[i]);
		if (r && fw__het_job(r) && r->het_job_id == j->het_job_id && fw__job_released(r))
			return r->job_id;
	}
	return 0;
}

/* Decimal digits at *p into *v (capped past any task id); false when
 * there is none. */
static bool digits(const char **p, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if ((*v = *v * 10 + (uint64_t)(**p - '0')) > UINT32_MAX)
			*v = (uint64_t)UINT32_MAX + 1;
	return *p != s;
}

struct range {
	uint64_t lo, hi, step;
};

/* The item of a task list at p ("N", "N-M", "N-M:S") into *r; returns
 * where the next one starts, or NULL when p holds none (the end, the
 * "%N" throttle, or a form not read).  Ids stay below NO_VAL.  An item
 * must end at ',', '%' or the end: libslurm cuts a long list to
 * SLURM_BITSTR_LEN characters (64 by default) and ends it with "...",
 * which may cut the last id short ("...,1234,56..." for 5678), so the
 * item before the dots is not read (its tasks come into the list once
 * the ones before them have started). */
static const char *next_range(const char *p, struct range *r)
{
	if (!p || !digits(&p, &r->lo))
		return NULL;
	r->hi = r->lo;
	r->step = 1;
	if (*p == '-' && (p++, !digits(&p, &r->hi)))
		return NULL;
	if (*p == ':' && (p++, !digits(&p, &r->step)))
		return NULL;
	if (r->hi < r->lo || r->hi >= NO_VAL || r->step == 0 || (*p != ',' && *p != '%' && *p != '\0'))
		return NULL;
	return *p == ',' ? p + 1 : p;
}

int32_t fw__array_tasks(const char *str, uint32_t *out, int32_t cap)
{
	uint64_t n = 0;
	struct range r;

	for (const char *p = str; (p = next_range(p, &r));) {
		uint64_t k = (r.hi - r.lo) / r.step + 1; /* the range's tasks */
		for (uint64_t i = 0; i < k && n + i < (uint64_t)(cap > 0 ? cap : 0); i++)
			out[n + i] = (uint32_t)(r.lo + i * r.step);
		n = n + k > INT32_MAX ? INT32_MAX : n + k;
	}
	return (int32_t)n;
}

bool fw__array_lists(const char *str, uint32_t t)
{
	struct range r;

	for (const char *p = str; (p = next_range(p, &r));)
		if (t >= r.lo && t <= r.hi && (t - r.lo) % r.step == 0)
			return true;
	return false;
}

void fw__job_name(const struct fw_slurm *h, const slurm_job_info_t *j, char *buf, size_t len)
{
	/* "A_T" for the record the task index holds; a second record of one
	 * task (Slurm sends none) keeps its id, so that names stay distinct */
	if (fw__array_job(j) && j->array_task_id != NO_VAL && fw__slurm_task(h, j->array_job_id, j->array_task_id) == j)
		snprintf(buf, len, "%u_%u", j->array_job_id, j->array_task_id);
	else
		snprintf(buf, len, "%u", j->job_id);
}

slurm_job_info_t *fw__slurm_task(const struct fw_slurm *h, uint32_t a, uint32_t t)
{
	if (!h->jobs || !h->jhash_cap || !h->thash)
		return NULL;
	for (uint32_t k = task_key(a, t) & (h->jhash_cap - 1); h->thash[k]; k = (k + 1) & (h->jhash_cap - 1)) {
		slurm_job_info_t *j = &h->jobs->job_array[h->thash[k] - 1];
		if (j->array_job_id == a && j->array_task_id == t)
			return j;
	}
	return NULL;
}

/* "A" or "A_T" (decimal, nothing else) into *a and *t (NO_VAL for "A"). */
static bool parse_name(const char *name, uint32_t *a, uint32_t *t)
{
	uint64_t v;

	*t = NO_VAL;
	if (!digits(&name, &v) || v > UINT32_MAX)
		return false;
	*a = (uint32_t)v;
	if (*name == '_') {
		name++;
		if (!digits(&name, &v) || v >= NO_VAL)
			return false;
		*t = (uint32_t)v;
	}
	return *name == '\0';
}

slurm_job_info_t *fw__slurm_job_named(const struct fw_slurm *h, const char *name, uint32_t *task)
{
	slurm_job_info_t *j;
	uint32_t a, t;

	*task = NO_VAL;
	if (!parse_name(name, &a, &t))
		return NULL;
	if (t == NO_VAL)
		return fw__slurm_job(h, a);
	if ((j = fw__slurm_task(h, a, t)))
		return j;
	j = fw__slurm_job(h, a);
	if (!j || !fw__array_meta(j) || !fw__array_lists(j->array_task_str, t))
		return NULL;
	*task = t;
	return j;
}

node_info_t *fw__slurm_node(const struct fw_slurm *h, const char *name)
{
	for (uint32_t i = 0; h->nodes && i < h->nodes->record_count; i++)
		if (h->nodes->node_array[i].name && !strcmp(h->nodes->node_array[i].name, name))
			return &h->nodes->node_array[i];
	return NULL;
}

reserve_info_t *fw__slurm_resv(const struct fw_slurm *h, const char *name)
{
	for (uint32_t i = 0; h->resv && i < h->resv->record_count; i++)
		if (!strcmp(h->resv->reservation_array[i].name, name))
			return &h->resv->reservation_array[i];
	return NULL;
}

static bool named(const reserve_info_t *r, const char *prefix)
{
	return !strncmp(r->name, prefix, strlen(prefix));
}

bool fw__slurm_job_resv(const char *name)
{
	size_t n = strlen(FW_SLURM_RESV_PREFIX);
	uint32_t a, t;

	return name && !strncmp(name, FW_SLURM_RESV_PREFIX, n) && parse_name(name + n, &a, &t);
}

/* fairway's own: a job's (fairway-<job>) or a window's mirror
 * (fairway-maint-<id>).  An admin's "fairway-test" is the admin's. */
static bool own_resv(const reserve_info_t *r)
{
	return named(r, FW_SLURM_MAINT_PREFIX) || fw__slurm_job_resv(r->name);
}

bool fw__slurm_admin_resv(const reserve_info_t *r)
{
	return r->name && r->node_inx && r->node_inx[0] >= 0 && r->end_time > r->start_time && !own_resv(r);
}

bool fw__slurm_closing_resv(const reserve_info_t *r)
{
	return fw__slurm_admin_resv(r) ||
	       (r->name && r->node_inx && r->end_time > r->start_time && named(r, FW_SLURM_MAINT_PREFIX));
}

/* ------------------------------------------------------------ listing */

/* Slurm's names of the reservation flags `scontrol show res` prints
 * (22.05's reservation_flags_string, which libslurm declares in no public
 * header); the NO_* and DUR_* bits are update requests, never set on a
 * reservation. */
static const struct {
	uint64_t bit;
	const char *name;
} resv_flags[] = {
	{ RESERVE_FLAG_MAINT, "MAINT" },         { RESERVE_FLAG_FLEX, "FLEX" },
	{ RESERVE_FLAG_OVERLAP, "OVERLAP" },     { RESERVE_FLAG_IGN_JOBS, "IGNORE_JOBS" },
	{ RESERVE_FLAG_HOURLY, "HOURLY" },       { RESERVE_FLAG_DAILY, "DAILY" },
	{ RESERVE_FLAG_WEEKDAY, "WEEKDAY" },     { RESERVE_FLAG_WEEKEND, "WEEKEND" },
	{ RESERVE_FLAG_WEEKLY, "WEEKLY" },       { RESERVE_FLAG_ANY_NODES, "ANY_NODES" },
	{ RESERVE_FLAG_STATIC, "STATIC" },       { RESERVE_FLAG_PART_NODES, "PART_NODES" },
	{ RESERVE_FLAG_SPEC_NODES, "SPEC_NODES" }, { RESERVE_FLAG_FIRST_CORES, "FIRST_CORES" },
	{ RESERVE_FLAG_TIME_FLOAT, "TIME_FLOAT" }, { RESERVE_FLAG_REPLACE, "REPLACE" },
	{ RESERVE_FLAG_ALL_NODES, "ALL_NODES" }, { RESERVE_FLAG_PURGE_COMP, "PURGE_COMP" },
	{ RESERVE_FLAG_NO_HOLD_JOBS, "NO_HOLD_JOBS_AFTER_END" },
	{ RESERVE_FLAG_REPLACE_DOWN, "REPLACE_DOWN" }, { RESERVE_FLAG_MAGNETIC, "MAGNETIC" },
};

void fw_slurm_resv_flags(uint64_t flags, char *buf, size_t n)
{
	size_t at = 0;

	if (n)
		buf[0] = '\0';
	for (size_t k = 0; k < sizeof resv_flags / sizeof *resv_flags; k++) {
		size_t len = strlen(resv_flags[k].name);
		if (!(flags & resv_flags[k].bit) || at + len + 2 > n)
			continue;
		at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", resv_flags[k].name);
	}
}

/* Node i of the last node load's name after buf's at bytes ("," between);
 * false when it does not fit (the list is then cut there). */
static bool add_node_name(const struct fw_slurm *h, int32_t i, char *buf, size_t n, size_t *at)
{
	const char *nm = h->nodes && i >= 0 && (uint32_t)i < h->nodes->record_count ? h->nodes->node_array[i].name : NULL;
	size_t len = nm ? strlen(nm) : 0;

	if (!nm)
		return true;
	if (*at + len + 2 > n)
		return false;
	*at += (size_t)snprintf(buf + *at, n - *at, "%s%s", *at ? "," : "", nm);
	return true;
}

/* r's nodes (node_inx: index pairs into the node table, -1 ends) into o. */
static void resv_nodes(const struct fw_slurm *h, const reserve_info_t *r, struct fw_backend_rsv *o)
{
	size_t at = 0;

	for (int k = 0; r->node_inx && r->node_inx[k] >= 0 && !o->nodes_cut; k += 2)
		for (int32_t i = r->node_inx[k]; i <= r->node_inx[k + 1] && !o->nodes_cut; i++)
			o->nodes_cut = !add_node_name(h, i, o->nodes, sizeof o->nodes, &at);
}

int fw_slurm_reservations(const struct fw_slurm *h, struct fw_backend_rsv *out, int cap)
{
	int n = 0;

	for (uint32_t i = 0; h->resv && i < h->resv->record_count; i++) {
		const reserve_info_t *r = &h->resv->reservation_array[i];
		struct fw_backend_rsv *o;
		if (!r->name || own_resv(r) || strlen(r->name) >= sizeof o->name)
			continue; /* fairway's own (its jobs', its windows' mirrors) */
		if (n++ >= cap)
			continue;
		o = &out[n - 1];
		memset(o, 0, sizeof *o);
		snprintf(o->name, sizeof o->name, "%s", r->name);
		o->start = (fw_time)r->start_time;
		o->end = (fw_time)r->end_time;
		fw_slurm_resv_flags(r->flags, o->flags, sizeof o->flags);
		resv_nodes(h, r, o);
		snprintf(o->node_list, sizeof o->node_list, "%s", fw__set(r->node_list) ? r->node_list : "");
		snprintf(o->delete_hint, sizeof o->delete_hint, "scontrol delete reservation=%s", r->name);
	}
	return n;
}

/* ------------------------------------------------------------ drain, health */

int fw_slurm_drain(struct fw_slurm *h, const char *node, const char *reason,
		   struct fw_diag *d)
{
	update_node_msg_t u;

	(void)h;
	slurm_init_update_node_msg(&u);
	u.node_names = (char *)node;
	u.node_state = reason ? NODE_STATE_DRAIN : NODE_RESUME;
	u.reason = (char *)reason;
	u.reason_uid = getuid();
	if (slurm_update_node(&u) != SLURM_SUCCESS)
		return fw__slurm_eio(d, reason ? "drain" : "resume");
	return FW_OK;
}

int fw_slurm_node_drained(const struct fw_slurm *h, const char *node)
{
	const node_info_t *ni = fw__slurm_node(h, node);

	return !ni ? -1 : (ni->node_state & NODE_STATE_DRAIN) != 0;
}

int fw_slurm_release(struct fw_slurm *h, const char (*nodes)[FW_NAME_MAX], int32_t n,
		     struct fw_diag *d)
{
	int back = 0;

	for (int32_t k = 0; k < n; k++) {
		const node_info_t *ni = fw__slurm_node(h, nodes[k]);
		if (!ni || !(ni->node_state & NODE_STATE_DRAIN) || !ni->reason ||
		    strncmp(ni->reason, "fairway: ", 9))
			continue;
		if (fw_slurm_drain(h, nodes[k], NULL, d) != FW_OK)
			return FW_EIO;
		back++;
	}
	return back;
}

/* Slurm's node states, and probation after repeated job failures on a
 * node (jobfail.c). */
int fw_slurm_health(struct fw_slurm *h, struct fw_node_health *out, int cap)
{
	fw_time now = (fw_time)time(NULL);
	int n = 0;

	if (fw__jobfail_update(h) != FW_OK)
		return FW_ENOMEM;
	for (uint32_t i = 0; h->nodes && i < h->nodes->record_count && n < cap; i++) {
		const node_info_t *ni = &h->nodes->node_array[i];
		if (!ni->name)
			continue;
		memset(&out[n], 0, sizeof out[n]);
		snprintf(out[n].node, sizeof out[n].node, "%s", ni->name);
		/* a maintenance reservation (MAINT) is no health problem: the
		 * build closes the node until the reservation's end */
		out[n].healthy = fw__node_in_service(ni);
		out[n].ours = fw__node_drained_by_fairway(ni);
		snprintf(out[n].reason, sizeof out[n].reason, "%s", ni->reason ? ni->reason : "");
		if (out[n].healthy)
			out[n].suspect = fw__jobfail_suspect(h, ni->name, now, out[n].reason, sizeof out[n].reason);
		n++;
	}
	return n;
}
