/*
 * filter.c — the nodes a held job may start on: its partitions, --exclude,
 * --constraint and -w, resolved against the snapshot's nodes into the
 * core's node filter (fw_snapshot_restrict_job; "Node filters" in
 * include/fairway/snapshot.h).
 *
 * A node qualifies when it is a node of one of the job's managed
 * partitions (a pending job may name several, "gpu,gpu2"), --exclude does
 * not name it (names outside the snapshot are ignored), its features
 * (ActiveFeatures, else AvailableFeatures, as build.c reads them for
 * topology: a comma list) satisfy --constraint, and -w names it when the
 * job asked -w (job_submit.lua keeps the list in AdminComment, since
 * fairway's own start replaces ReqNodes, and a later change made with
 * scontrol update in the Comment until it moves it: fw__slurm_nodelist).
 * Phases, in order:
 *   1. form       a --constraint fairway does not read: no answer;
 *   2. partition  the nodes of the job's managed partitions that start
 *                 jobs now (UP, or DRAIN; not DOWN or INACTIVE: Slurm
 *                 would run it on none of them);
 *   3. exclude    less the nodes --exclude names;
 *   4. features   less the nodes without the features asked;
 *   5. nodelist   less the nodes -w does not name;
 *   5b. reserved  less the nodes of reservations to come (an admin's,
 *                 or the Slurm mirror of a daemon's maintenance window,
 *                 fairway-maint-<id>) that the job, from now or from
 *                 that node's own return before them, would still hold
 *                 when they begin (by its time limit; none: it would):
 *                 Slurm runs no job there that overlaps one
 *                 (docs/slurm.md "Reservations").  Per node: a node of
 *                 a reservation that is back well before it keeps a job
 *                 that fits the gap there, though another node of the
 *                 same reservation comes back too late for it;
 *   6. collect    the nodes left, or "any" when that is every node; the
 *                 list is the nodes left out instead when they are fewer
 *                 (an except filter: a job excluding one node of 10,000
 *                 lists one, not 9,999);
 *   7. restrict   the snapshot job to them (fw__slurm_filter_restrict,
 *                 once the job is added).
 * The common case, a job of a partition of every node asking none of the
 * options and ending before any reservation to come, is "any" before
 * phase 1, without touching a node.  build.c
 * holds a -w job unless the list names exactly its nodes, each of them
 * qualifying: Slurm runs such a job on every node listed.
 *
 * Constraint forms read: feature names joined by & (AND) and | (OR), with
 * one level of parentheses.  Slurm gives & and | the same standing and
 * reads them left to right (slurmctld's valid_feature_counts: "a|b&c" is
 * (a|b)&c, not a|(b&c); checked against a 22.05 lab with sbatch
 * --test-only), and refuses nested parentheses at submission; so does
 * this.  Not read: matching OR "[a|b]", counts "a*2", "!a", commas,
 * spaces, anything else: such a job stays held (FW__ORPHAN_CONSTRAINT).
 *
 * Cost and memory: jobs that ask alike (the same partitions, --exclude
 * and --constraint, and ending before the same reservations to come: a
 * job's class, how many soon entries, by start, its time limit reaches:
 * an entry is the nodes of one reservation that come back at one time,
 * and only the nodes the core does not keep away for it count
 * (find_soon: those out now or back before it after a gap, reached from
 * their return; the rest are their away_at);
 * a batch of sbatch scripts, a job array) share one
 * answer and one node list in the snapshot (fw_snapshot_restrict_job_as),
 * through a cache of the last answers by what they asked (CACHE slots,
 * one per hash; a collision costs a recomputation and a list of its own).
 * A constraint is evaluated once per distinct feature text, not per node
 * (a cluster has a few kinds of node): the nodes are grouped by it on the
 * first --constraint, as their names are sorted on the first --exclude,
 * for lookups.  Past that a new answer costs a pass over the nodes, and
 * its list holds the nodes left, or those left out when fewer.
 */
#include <stdlib.h>
#include <string.h>

#include "slurm_int.h"

struct name_ref {
	const char *name;       /* a node's name, or its feature text */
	int32_t node;           /* snapshot node */
};

#define CACHE 256 /* answers kept, a power of two */

/* An answer, by what its job asked (the strings of that job). */
struct answer {
	const slurm_job_info_t *job; /* NULL: empty slot */
	int32_t n;              /* a count, FW__NODES_ANY or FW__NODES_UNREAD */
	int32_t entry;          /* the snapshot's job_nodes entry holding its
				 * nodes, -1: none yet */
	int32_t gentry;         /* ... or group_nodes entry (a het job's
				 * component), -1: none yet */
	int32_t nlist;          /* its list: the n nodes, or when except the
				 * others (fewer: a job excluding a few nodes
				 * of many lists those) */
	int32_t cls;            /* soon entries it reaches (class_of) */
	bool except;
	bool reserved;          /* n = 0 only by phase 5b */
	int32_t took, ntook;    /* phase 5b: the first reservation that took
				 * one of its nodes (its index in the
				 * reservation message), and how many did */
};

/* A node of a reservation to come that the core does not keep away for
 * it (covers), with its return before it: from then a job placed on the
 * node may run into the reservation (node_from). */
struct resv_node {
	fw_time from;
	int32_t node; /* Slurm node index */
};

/* The nodes of a reservation to come (fw__slurm_closing_resv: an
 * admin's, or a fairway-maint- window's mirror) the core does not know
 * that come back at one time, by start: a reservation's nodes that come
 * back at unlike times are entries apart, so a job that fits the gap on
 * one is kept off the others only. */
struct soon {
	fw_time start; /* the reservation's start, less how far after now its
			* nodes here come back before it (find_soon) */
	const reserve_info_t *r;
	int32_t first, n; /* its nodes: fw__slurm_filter.rnodes[first..+n) */
};

struct fw__slurm_filter {
	const struct fw_slurm *h;
	struct fw_snapshot *s;
	int32_t *slurm_of;      /* snapshot node -> Slurm node index */
	int32_t *part_nodes;    /* per partition record: its snapshot nodes
				 * (-1: not managed) */
	const int32_t *inx;     /* per Slurm node: its snapshot node, -1 */
	struct name_ref *names; /* snapshot nodes by name (sorted lazily) */
	bool sorted;
	struct name_ref *texts; /* snapshot nodes by feature text (grouped
				 * lazily: grouped) */
	int32_t *set_of;        /* per snapshot node: its feature set */
	int32_t nsets;          /* distinct feature texts; set s is texts[first[s]] */
	int32_t *first;
	char *match;            /* per set: the constraint holds */
	bool grouped;
	char *ok;               /* per snapshot node: qualifies so far */
	char *keep;             /* per snapshot node: -w names it */
	int32_t *out;           /* the list of the answer computed last ... */
	int32_t nout;
	bool except;            /* ... which names the nodes left out */
	struct soon *soon;      /* reservations to come, by start */
	int32_t nsoon;
	struct resv_node *rnodes; /* their nodes, by reservation, by return */
	int32_t nrnodes;
	uint32_t *stamp, tick;  /* per reservation record: the reserved()
				 * call (tick) that counted it in ntook */
	bool reserved;          /* the last compute(): phase 5b left none */
	int32_t took, ntook;    /* ... and which reservations took nodes */
	struct answer cache[CACHE];
	struct answer *cur;     /* the last job's answer, NULL: no list */
	struct answer *last;    /* ... the last answer, whatever it is */
};

/* ------------------------------------------------------------ constraint */

#define NOT_NAME "&|()[]*!,"

struct cparse {
	const char *p;
	const char *feats;      /* the node's comma list */
	int depth;
	bool bad;               /* a form this does not read */
};

/* Is the n bytes at name one of the comma list's features? */
static bool has_feature(const char *feats, const char *name, size_t n)
{
	for (const char *p = feats; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

static bool cexpr(struct cparse *c);

/* NAME or ( EXPR ). */
static bool cterm(struct cparse *c)
{
	size_t n;
	bool v;

	if (*c->p == '(') {
		c->p++;
		if (++c->depth > 1) /* Slurm refuses "((a))" */
			c->bad = true;
		v = !c->bad && cexpr(c);
		if (*c->p != ')')
			c->bad = true;
		else
			c->p++;
		c->depth--;
		return v;
	}
	n = strcspn(c->p, NOT_NAME);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)c->p[i] <= ' ' || c->p[i] == 0x7f || c->p[i] == '"' || c->p[i] == '\'')
			c->bad = true;
	if (n == 0)
		c->bad = true;
	v = has_feature(c->feats, c->p, n);
	c->p += n;
	return v;
}

/* TERM { (& | |) TERM }, left to right, as Slurm reads it. */
static bool cexpr(struct cparse *c)
{
	bool v = cterm(c);

	while (!c->bad && (*c->p == '&' || *c->p == '|')) {
		char op = *c->p++;
		bool t = cterm(c);
		v = op == '&' ? v && t : v || t;
	}
	return v;
}

int fw__constraint_match(const char *expr, const char *features)
{
	struct cparse c = { .p = expr ? expr : "", .feats = features };
	bool v = cexpr(&c);

	return c.bad || *c.p ? -1 : v;
}

/* ------------------------------------------------------------ setup */

static int by_start(const void *a, const void *b)
{
	const struct soon *x = a, *y = b;
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if ((c = strcmp(x->r->name, y->r->name))) /* names are unique */
		return c;
	return (x->first > y->first) - (x->first < y->first); /* one's entries: total */
}

/* Does the core know node x (snapshot node, or NULL: not one) is away
 * while reservation r lasts?  In service, it leaves by r's start and is
 * back no earlier than its end (build.c leaving_nodes: fw_node.away_at,
 * back_at), or it is out now and back no earlier than r's end, or not
 * known to come back.  Then the core itself keeps off it every job that
 * would still run at r's start, and plans on it again from r's end: no
 * node filter is needed there, and none would let a job plan on it after
 * r ends. */
static bool covers(const struct fw_node *x, const reserve_info_t *r)
{
	bool out = !x->schedulable && (!x->back_at || x->back_at >= (fw_time)r->end_time);
	bool away = x->schedulable && x->away_at && x->away_at <= (fw_time)r->start_time &&
		    x->back_at >= (fw_time)r->end_time;

	return out || away;
}

static const struct fw_node *snap_node(const struct fw__slurm_filter *f, int32_t i)
{
	return f->inx[i] >= 0 ? &f->s->nodes[f->inx[i]] : NULL;
}

/* From when a job placed on node x may run into a reservation the core
 * does not keep it away for (covers): its return before it (out now, or
 * away for an earlier stay: build.c keeps a node's first stay only),
 * else now. */
static fw_time node_from(const struct fw__slurm_filter *f, const struct fw_node *x)
{
	return x->back_at > f->s->now ? x->back_at : f->s->now;
}

static int by_from(const void *a, const void *b)
{
	const struct resv_node *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* How many node slots r's index ranges name (an upper bound on its
 * nodes the filter lists). */
static size_t resv_span(const reserve_info_t *r, uint32_t n)
{
	size_t c = 0;

	for (int p = 0; r->node_inx[p] >= 0 && r->node_inx[p + 1] >= 0; p += 2)
		for (int32_t i = r->node_inx[p]; i <= r->node_inx[p + 1] && (uint32_t)i < n; i++)
			c++;
	return c;
}

/* r's nodes the core does not keep away for it, by return, into
 * f->rnodes; one soon entry per distinct return (its start: r's, less
 * how far after now those nodes come back). */
static void soon_of(struct fw__slurm_filter *f, const reserve_info_t *r)
{
	uint32_t n = f->h->nodes->record_count;
	int32_t base = f->nrnodes;

	for (int p = 0; r->node_inx[p] >= 0 && r->node_inx[p + 1] >= 0; p += 2)
		for (int32_t i = r->node_inx[p]; i <= r->node_inx[p + 1] && (uint32_t)i < n; i++) {
			const struct fw_node *x = snap_node(f, i);
			if (x && !covers(x, r))
				f->rnodes[f->nrnodes++] = (struct resv_node){ node_from(f, x), i };
		}
	qsort(f->rnodes + base, (size_t)(f->nrnodes - base), sizeof *f->rnodes, by_from);
	for (int32_t k = base; k < f->nrnodes; k++) {
		if (k == base || f->rnodes[k].from != f->rnodes[k - 1].from)
			f->soon[f->nsoon++] = (struct soon){
				(fw_time)r->start_time - (f->rnodes[k].from - f->s->now), r, k, 0
			};
		f->soon[f->nsoon - 1].n++;
	}
}

/* A reservation to come that Slurm keeps jobs off: an admin's, or a
 * daemon's maintenance window's mirror (fairway-maint-<id>; the daemon
 * keeps its first stay on a node only, as build.c does). */
static bool to_come(const struct fw__slurm_filter *f, const reserve_info_t *r)
{
	return fw__slurm_closing_resv(r) && r->start_time > f->s->now;
}

/* The reservations to come that the core does not know on some of
 * their nodes (covers), a soon entry per return of those nodes, by the
 * time a job would have to start from now to reach them as it may from
 * that return (soon.start, what class_of compares). */
static int find_soon(struct fw__slurm_filter *f)
{
	const reserve_info_msg_t *m = f->h->resv;
	uint32_t n = m ? m->record_count : 0;
	size_t slots = 0;

	for (uint32_t k = 0; k < n; k++) {
		const reserve_info_t *r = &m->reservation_array[k];
		if (to_come(f, r))
			slots += resv_span(r, f->h->nodes->record_count);
	}
	f->soon = malloc((slots ? slots : 1) * sizeof *f->soon);
	f->rnodes = malloc((slots ? slots : 1) * sizeof *f->rnodes);
	f->stamp = calloc(n ? n : 1, sizeof *f->stamp);
	if (!f->soon || !f->rnodes || !f->stamp)
		return FW_ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		const reserve_info_t *r = &m->reservation_array[k];
		if (to_come(f, r))
			soon_of(f, r);
	}
	qsort(f->soon, (size_t)f->nsoon, sizeof *f->soon, by_start);
	return FW_OK;
}

/* The snapshot nodes of each managed partition record: none for one
 * that starts no job now (DOWN, INACTIVE), so its jobs get none of
 * them (build.c holds a job left with none: FW__ORPHAN_PART_DOWN). */
static void count_partitions(struct fw__slurm_filter *f)
{
	const partition_info_msg_t *m = f->h->partitions;
	uint32_t n = f->h->nodes->record_count;

	for (uint32_t p = 0; p < m->record_count; p++) {
		const partition_info_t *pi = &m->partition_array[p];
		f->part_nodes[p] = -1;
		if (!fw__slurm_managed(f->h, pi->name))
			continue;
		f->part_nodes[p] = 0;
		if (fw__part_state_of(pi) != FW__PART_UP) /* DOWN, INACTIVE: Slurm starts none of its jobs */
			continue;
		memset(f->ok, 0, (size_t)f->s->nnodes);
		for (int k = 0; pi->node_inx && pi->node_inx[k] >= 0; k += 2)
			for (int32_t i = pi->node_inx[k]; i <= pi->node_inx[k + 1] && (uint32_t)i < n; i++)
				if (f->inx[i] >= 0 && !f->ok[f->inx[i]]) {
					f->ok[f->inx[i]] = 1;
					f->part_nodes[p]++;
				}
	}
}

struct fw__slurm_filter *fw__slurm_filter_new(const struct fw_slurm *h, struct fw_snapshot *s,
					      const int32_t *node_of)
{
	struct fw__slurm_filter *f = calloc(1, sizeof *f);
	uint32_t n = h->nodes->record_count, np = h->partitions->record_count;
	size_t nn = s->nnodes ? (size_t)s->nnodes : 1;

	if (!f)
		return NULL;
	f->h = h;
	f->s = s;
	f->slurm_of = malloc(nn * sizeof *f->slurm_of);
	f->part_nodes = malloc((np ? np : 1) * sizeof *f->part_nodes);
	f->names = malloc(nn * sizeof *f->names);
	f->texts = malloc(nn * sizeof *f->texts);
	f->set_of = malloc(nn * sizeof *f->set_of);
	f->first = malloc(nn * sizeof *f->first);
	f->match = malloc(nn);
	f->ok = malloc(nn);
	f->keep = malloc(nn);
	f->out = malloc(nn * sizeof *f->out);
	if (!f->slurm_of || !f->part_nodes || !f->names || !f->texts || !f->set_of || !f->first || !f->match ||
	    !f->ok || !f->keep || !f->out) {
		fw__slurm_filter_free(f);
		return NULL;
	}
	f->inx = node_of;
	for (uint32_t i = 0; i < n; i++)
		if (node_of[i] >= 0)
			f->slurm_of[node_of[i]] = (int32_t)i;
	for (int32_t k = 0; k < s->nnodes; k++)
		f->names[k] = (struct name_ref){ s->nodes[k].name, k };
	count_partitions(f);
	if (find_soon(f) != FW_OK) {
		fw__slurm_filter_free(f);
		return NULL;
	}
	return f;
}

void fw__slurm_filter_free(struct fw__slurm_filter *f)
{
	if (!f)
		return;
	free(f->slurm_of);
	free(f->part_nodes);
	free(f->names);
	free(f->texts);
	free(f->set_of);
	free(f->first);
	free(f->match);
	free(f->ok);
	free(f->keep);
	free(f->out);
	free(f->soon);
	free(f->rnodes);
	free(f->stamp);
	free(f);
}

/* ------------------------------------------------------------ phases */

/* Is a managed partition of every node among the comma list? */
static bool whole(const struct fw__slurm_filter *f, const char *list)
{
	const partition_info_msg_t *m = f->h->partitions;

	for (uint32_t p = 0; p < m->record_count; p++)
		if (f->part_nodes[p] == f->s->nnodes && fw__slurm_listed(list, m->partition_array[p].name))
			return true;
	return false;
}

/* Phase 2: mark the nodes of the job's managed partitions. */
static void partitions(struct fw__slurm_filter *f, const char *list)
{
	const partition_info_msg_t *m = f->h->partitions;
	uint32_t n = f->h->nodes->record_count;

	if (whole(f, list)) {
		memset(f->ok, 1, (size_t)f->s->nnodes);
		return;
	}
	memset(f->ok, 0, (size_t)f->s->nnodes);
	for (uint32_t p = 0; p < m->record_count; p++) {
		const partition_info_t *pi = &m->partition_array[p];
		if (f->part_nodes[p] <= 0 || !fw__slurm_listed(list, pi->name))
			continue;
		for (int k = 0; pi->node_inx && pi->node_inx[k] >= 0; k += 2)
			for (int32_t i = pi->node_inx[k]; i <= pi->node_inx[k + 1] && (uint32_t)i < n; i++)
				if (f->inx[i] >= 0)
					f->ok[f->inx[i]] = 1;
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct name_ref *)a)->name, ((const struct name_ref *)b)->name);
}

/* The snapshot node named name, or -1. */
static int32_t node_named(struct fw__slurm_filter *f, const char *name)
{
	struct name_ref key = { name, -1 }, *r;

	if (!f->sorted) {
		qsort(f->names, (size_t)f->s->nnodes, sizeof *f->names, by_name);
		f->sorted = true;
	}
	r = bsearch(&key, f->names, (size_t)f->s->nnodes, sizeof *f->names, by_name);
	return r ? r->node : -1;
}

/* Phase 3: unmark the nodes the hostlist names. */
static void exclude(struct fw__slurm_filter *f, const char *list)
{
	hostlist_t hl = FW__SLP(slurm_hostlist_create(list));
	char *name;

	if (!hl)
		return;
	while ((name = FW__SLP(slurm_hostlist_shift(hl)))) {
		int32_t k = node_named(f, name);
		if (k >= 0)
			f->ok[k] = 0;
		free(name);
	}
	FW__SLV(slurm_hostlist_destroy(hl));
}

/* Phase 5: keep only the nodes the hostlist names. */
static void nodelist(struct fw__slurm_filter *f, const char *list)
{
	hostlist_t hl = FW__SLP(slurm_hostlist_create(list));
	char *name;

	memset(f->keep, 0, (size_t)f->s->nnodes);
	while (hl && (name = FW__SLP(slurm_hostlist_shift(hl)))) {
		int32_t k = node_named(f, name);
		if (k >= 0)
			f->keep[k] = 1;
		free(name);
	}
	if (hl)
		FW__SLV(slurm_hostlist_destroy(hl));
	for (int32_t k = 0; k < f->s->nnodes; k++)
		f->ok[k] &= f->keep[k];
}

/* Phase 5b: unmark the nodes of the first cls soon entries (the nodes of
 * reservations to come the core does not keep away for them, from whose
 * return the job would reach into them), noting the first reservation
 * that takes a node still marked (f->took, its index in the reservation
 * message) and how many do (f->ntook, each reservation once; both reset
 * by compute). */
static void reserved(struct fw__slurm_filter *f, int32_t cls)
{
	f->tick++;
	for (int32_t k = 0; k < cls; k++) {
		const struct soon *e = &f->soon[k];
		int32_t r = (int32_t)(e->r - f->h->resv->reservation_array);
		bool took = false;
		for (int32_t m = e->first; m < e->first + e->n; m++) {
			int32_t x = f->inx[f->rnodes[m].node];
			took |= f->ok[x] != 0;
			f->ok[x] = 0;
		}
		if (!took || f->stamp[r] == f->tick)
			continue;
		f->stamp[r] = f->tick;
		if (f->ntook++ == 0)
			f->took = r;
	}
}

/* How many soon entries job j would reach, run from now (or from the
 * entry's nodes' return before its reservation: soon.start): those that
 * begin before its time limit ends (no limit: all of them). */
static int32_t class_of(const struct fw__slurm_filter *f, const slurm_job_info_t *j)
{
	fw_time end = j->time_limit == INFINITE || j->time_limit == NO_VAL
			      ? INT64_MAX
			      : f->s->now + (fw_time)j->time_limit * 60 + FW__RESV_MARGIN_S;
	int32_t k = 0;

	while (k < f->nsoon && f->soon[k].start < end)
		k++;
	return k;
}

static bool marked(const char *text)
{
	return text && !strncmp(text, FW__NODELIST_MARK, strlen(FW__NODELIST_MARK));
}

/* The Comment's record is the newer: job_submit.lua writes a change made
 * with scontrol update there (a user may not write AdminComment) and
 * moves it into AdminComment when the next update replaces the Comment. */
const char *fw__slurm_nodelist_record(const slurm_job_info_t *j)
{
	if (marked(j->comment))
		return j->comment;
	return marked(j->admin_comment) ? j->admin_comment : NULL;
}

const char *fw__slurm_nodelist(const slurm_job_info_t *j)
{
	const char *r = fw__slurm_nodelist_record(j);

	r = r ? r + strlen(FW__NODELIST_MARK) : NULL;
	return r && *r ? r : NULL; /* an empty list: -w cleared */
}

int32_t fw__slurm_nodelist_count(const char *list)
{
	hostlist_t hl = FW__SLP(slurm_hostlist_create(list));
	int32_t n;

	if (!hl)
		return 0;
	FW__SLV(slurm_hostlist_uniq(hl));
	n = FW__SL(slurm_hostlist_count(hl));
	FW__SLV(slurm_hostlist_destroy(hl));
	return n > 0 ? n : 0;
}

/* Group the snapshot nodes by their feature text: ActiveFeatures, else
 * AvailableFeatures (as build.c reads them for topology). */
static void group(struct fw__slurm_filter *f)
{
	for (int32_t k = 0; k < f->s->nnodes; k++) {
		const node_info_t *ni = &f->h->nodes->node_array[f->slurm_of[k]];
		const char *feats = ni->features_act ? ni->features_act : ni->features;
		f->texts[k] = (struct name_ref){ feats ? feats : "", k };
	}
	qsort(f->texts, (size_t)f->s->nnodes, sizeof *f->texts, by_name);
	f->nsets = 0;
	for (int32_t i = 0; i < f->s->nnodes; i++) {
		if (i == 0 || strcmp(f->texts[i].name, f->texts[i - 1].name))
			f->first[f->nsets++] = i;
		f->set_of[f->texts[i].node] = f->nsets - 1;
	}
	f->grouped = true;
}

/* Phase 4: unmark the nodes whose features do not satisfy expr. */
static void features(struct fw__slurm_filter *f, const char *expr)
{
	if (!f->grouped)
		group(f);
	for (int32_t g = 0; g < f->nsets; g++)
		f->match[g] = fw__constraint_match(expr, f->texts[f->first[g]].name) == 1;
	for (int32_t k = 0; k < f->s->nnodes; k++)
		f->ok[k] &= f->match[f->set_of[k]];
}

/* Phase 6: how many nodes are left (FW__NODES_ANY when that is all of
 * them), and the list: those nodes, or the others when they are fewer
 * (the core's except filter; snapshot.h "Node filters"). */
static int32_t collect(struct fw__slurm_filter *f)
{
	int32_t n = 0, nn = f->s->nnodes;

	for (int32_t k = 0; k < nn; k++)
		n += f->ok[k] != 0;
	f->except = n > nn - n;
	f->nout = 0;
	for (int32_t k = 0; k < nn && n < nn; k++)
		if ((f->ok[k] != 0) != f->except)
			f->out[f->nout++] = k;
	return n == nn ? FW__NODES_ANY : n;
}

/* ------------------------------------------------------------ answers */

static bool same(const char *a, const char *b)
{
	return fw__set(a) ? fw__set(b) && !strcmp(a, b) : !fw__set(b);
}

/* Do jobs a and b ask alike?  (Their classes are compared apart.) */
static bool alike(const slurm_job_info_t *a, const slurm_job_info_t *b)
{
	return same(a->partition, b->partition) && same(a->exc_nodes, b->exc_nodes) &&
	       same(a->features, b->features) && same(fw__slurm_nodelist(a), fw__slurm_nodelist(b));
}

static uint32_t hash_str(uint32_t h, const char *s)
{
	for (s = fw__set(s) ? s : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u; /* a separator: "ab","" != "a","b" */
}

/* The cache slot of what j asks, in class cls. */
static struct answer *slot(struct fw__slurm_filter *f, const slurm_job_info_t *j, int32_t cls)
{
	uint32_t h = hash_str(hash_str(hash_str(2166136261u, j->partition), j->exc_nodes), j->features);

	h = hash_str(h, fw__slurm_nodelist(j));
	h = (h ^ (uint32_t)cls) * 16777619u;

	return &f->cache[h & (CACHE - 1)];
}

/* Phases 1 to 6 for job j in class cls; the nodes in f->out. */
static int32_t compute(struct fw__slurm_filter *f, const slurm_job_info_t *j, int32_t cls)
{
	bool some;

	bool cons = fw__set(j->features), exc = fw__set(j->exc_nodes);
	const char *w = fw__slurm_nodelist(j);

	if (cons && fw__constraint_match(j->features, "") < 0)
		return FW__NODES_UNREAD;
	partitions(f, j->partition);
	if (exc)
		exclude(f, j->exc_nodes);
	if (cons)
		features(f, j->features);
	if (w)
		nodelist(f, w);
	some = cls > 0 && memchr(f->ok, 1, (size_t)f->s->nnodes);
	f->took = -1;
	f->ntook = 0;
	if (cls > 0)
		reserved(f, cls);
	f->reserved = some && !memchr(f->ok, 1, (size_t)f->s->nnodes);
	return collect(f);
}

int32_t fw__slurm_filter_job(struct fw__slurm_filter *f, const slurm_job_info_t *j)
{
	int32_t cls = class_of(f, j);
	struct answer *a;

	f->cur = f->last = NULL;
	if (cls == 0 && !fw__set(j->features) && !fw__set(j->exc_nodes) && !fw__slurm_nodelist(j) &&
	    whole(f, j->partition))
		return FW__NODES_ANY; /* the common case: no pass over the nodes */
	a = slot(f, j, cls);
	if (!a->job || a->cls != cls || !alike(a->job, j)) {
		*a = (struct answer){ j, compute(f, j, cls), -1, -1, 0, cls, false, false, -1, 0 };
		a->nlist = f->nout;
		a->except = f->except;
		a->reserved = f->reserved;
		a->took = f->took;
		a->ntook = f->ntook;
	} else if (a->n > 0 && a->entry < 0) {
		compute(f, j, cls); /* the list of a job left out after all */
	}
	f->last = a;
	if (a->n > 0)
		f->cur = a;
	return a->n;
}

int32_t fw__slurm_filter_reserved(const struct fw__slurm_filter *f, int32_t *more)
{
	bool r = f->last && f->last->reserved && f->last->took >= 0;

	*more = r ? f->last->ntook - 1 : 0;
	return r ? f->last->took : -1;
}

int fw__slurm_filter_restrict(struct fw__slurm_filter *f, int32_t job)
{
	struct answer *a = f->cur;
	int x;

	if (!a)
		return FW_OK;
	x = a->entry >= 0 ? fw_snapshot_restrict_job_as(f->s, job, a->entry)
	    : a->except   ? fw_snapshot_restrict_job_except(f->s, job, f->out, a->nlist)
			  : fw_snapshot_restrict_job(f->s, job, f->out, a->nlist);
	if (x < 0)
		return x;
	if (a->entry < 0)
		a->entry = x;
	return FW_OK;
}

int fw__slurm_filter_restrict_group(struct fw__slurm_filter *f, int32_t job, int group)
{
	struct answer *a = f->cur;
	int x;

	if (!a)
		return FW_OK;
	x = a->entry >= 0    ? fw_snapshot_restrict_group_as(f->s, job, group, a->entry)
	    : a->gentry >= 0 ? fw_snapshot_restrict_group_like(f->s, job, group, a->gentry)
			     : fw_snapshot_restrict_group(f->s, job, group, f->out, a->nlist, a->except);
	if (x < 0)
		return x;
	if (a->entry < 0 && a->gentry < 0)
		a->gentry = x; /* alike components after it share the list (their jobs a shape) */
	return FW_OK;
}
