/*
 * fuzz_slurm.c — libFuzzer target for the Slurm adapter's reading of
 * slurmctld's answers (connectors/slurm/build.c, gres.c): whatever nodes
 * and jobs Slurm reports, the snapshot the adapter builds must pass
 * fw_snapshot_validate, and a cycle and the plan checker must run on it.
 * One record the core cannot take (a job asking more GPUs per node than a
 * node holds, a node listing more GPUs than the core models) must cost
 * that record, never the cycle: a refused snapshot stops the scheduling
 * of the whole cluster (tests/integration/slurm_big_nodes.sh).
 *
 * The input is a small text world, one record a line, fields split by
 * '|', an empty field a NULL string, numbers in decimal (taken modulo the
 * field's width, as Slurm's would be any value of it):
 *   T|LEVEL                        one topology level, as the YAML gives
 *                                  it (node features LEVEL=NAME give its
 *                                  domains)
 *   N|name|gres|cpus|real_memory|state|features|partitions|features_act
 *                                  (partitions: a comma list of gpu, gpu2
 *                                  and cpu; empty: gpu)
 *   J|id|account|partition|state|nodes|gres_detail (';' between nodes)|
 *     tres_per_node|num_nodes|num_cpus|pn_min_memory|priority|req_nodes|
 *     time_limit|nice|requeue|tres_per_job|req_switch|submit|start|
 *     tres_per_task|ntasks_per_node|num_tasks|tres_per_socket|
 *     dependency|eligible_time|features|exc_nodes|shared|admin_comment|
 *     comment|array_job_id|array_task_id|array_task_str|array_max_tasks|
 *     het_job_id|het_job_offset|het_job_id_set|qos|state_reason|
 *     resv_name
 *     (a comment "fairway: held by its user..." with state_reason 16,
 *     WAIT_HELD_USER, and priority 0 is a user's own hold, which
 *     job_submit.lua records: never in the snapshot, user_holds;
 *     empty: unset; in features '^' stands for --constraint's '|',
 *     which splits fields; an admin_comment "fairway: -w LIST" is the
 *     -w that job_submit.lua keeps, a comment so marked a -w changed
 *     later with scontrol update, which wins; an empty LIST is none;
 *     array_task_id empty is NO_VAL: with array_job_id = id, the
 *     pending record of a job array whose array_task_str lists its
 *     pending tasks ("0-5", "2,4-5%2", "0-998:2"); with a task id, a task
 *     with a record of its own; het_job_id set: a component of the
 *     heterogeneous job whose leader it names, het_job_id_set listing
 *     the components' job ids, "11-13")
 *   R|name|start|end|nodes|flags  one reservation (build.c, filter.c):
 *                                  start and end in seconds from now
 *                                  less 10^6 (so 1000000 is now), nodes
 *                                  a comma list of node numbers (0 the
 *                                  first N line), flags Slurm's; a name
 *                                  fairway-<job> or fairway-maint-...
 *                                  is fairway's own (any other
 *                                  "fairway-..." an admin's).  A
 *                                  node of an open one fairway may
 *                                  close (never start a job there) is
 *                                  not schedulable; a pending job may
 *                                  use no node of an admin's one to come
 *                                  that begins before its time limit
 *                                  would end (reserved_holds); a job
 *                                  asking for one is never pending in
 *                                  the snapshot
 *   P|name|state                  partition name's (gpu, gpu2, cpu)
 *                                  state_up, Slurm's PARTITION_ bits
 *                                  (default UP), or "gone": no record
 *                                  (deleted since fairway started); a
 *                                  pending job may use no node of a
 *                                  partition that starts no job (not
 *                                  PARTITION_SCHED, or gone), and one
 *                                  of none that does is held
 *                                  (part_down_holds)
 *   Q|name|priority               one QOS of the table (qos.c): a job
 *                                  naming it takes its Priority first
 *   U|account|user|gpu_seconds    one association's decayed GPU usage
 *                                  (usage.c; any decimal strtod reads,
 *                                  nan and inf too): applied after the
 *                                  build, the snapshot must still
 *                                  validate, every queue's usage be the
 *                                  sum of its users' entries, and a
 *                                  cycle run
 * The queues are fixed: leaf team_a and team_b under org.  The partitions
 * gpu and gpu2 are managed, cpu is not; a job may name several ("cpu,gpu2",
 * as Slurm reports a pending job submitted to several), and its features
 * (--constraint) and exc_nodes (--exclude) restrict it to some nodes
 * (filter.c).  What slurmctld itself never sends is not generated:
 * duplicate node names or job ids, an array's records with different
 * throttles (array_max_tasks is the
 * array's), times past 2^40 s, node names with spaces or control
 * characters, malformed node lists (--exclude's too).  Arrays: every
 * pending "A_T" the snapshot holds is a task the array's pending record
 * lists (or the task's own record), at most FW__ARRAY_TASKS_MAX an
 * array, and with those that run or were released no more than its
 * throttle; names are unique (fw_snapshot_validate).  Het jobs: a
 * pending job of a component has a group for each waiting component its
 * set lists (each once), all apart when more than one, and no more than
 * FW_MAX_GROUPS, and none of its components is released (het_hold);
 * each group may use exactly the nodes its component may, by a group
 * filter or, when the components ask alike and name no -w, by the job's
 * (het_filters_hold).
 *
 * The gres parsers also get each line raw: a count in 0..FW__GRES_MAX, a
 * model that is a NUL-terminated part of the input, and an IDX mask only
 * when the text names IDX.  Replayed as fuzz_replay_slurm over
 * tests/fuzz/corpus/slurm in every run.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXN 24
#define MAXJ 48
#define MAXF 44
#define MAXR 8
#define NPART 3

static const char *const part_names[NPART] = { "gpu", "gpu2", "cpu" };

struct world {
	node_info_t nodes[MAXN];
	bool in[NPART][MAXN];   /* partition p holds node i */
	uint16_t part_state[NPART]; /* its state_up (P lines; UP by default) */
	bool part_gone[NPART];  /* no record of it (P|name|gone) */
	slurm_job_info_t jobs[MAXJ];
	char *details[MAXJ][8];
	int nn, nj;
	char level[FW_NAME_MAX];
	struct fw_slurm_usage use[16];
	int nu;
	struct fw__qos qos[8];
	int nq;
	reserve_info_t resv[MAXR];
	int32_t rinx[MAXR][2 * MAXN + 1];
	int nr;
};

static uint64_t num(const char *s)
{
	return s ? strtoull(s, NULL, 10) : 0;
}

/* Split line in place on '|': up to MAXF fields, "" -> NULL. */
static int fields(char *line, char **f)
{
	int n = 0;

	for (char *p = line; n < MAXF;) {
		char *e = strchr(p, '|');
		f[n++] = *p && p != e ? p : NULL;
		if (!e)
			break;
		*e = '\0';
		p = e + 1;
	}
	for (int i = n; i < MAXF; i++)
		f[i] = NULL;
	return n;
}

static bool printable(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* "a1,n[1-3,7],gpu[01-02]": what slurmctld sends for a job's nodes (a
 * malformed list makes libslurm's own parser leak, and Slurm never sends
 * one).  Ranges go up, by at most 64. */
static bool hostlist_ok(const char *p)
{
	if (!p)
		return true;
	for (;;) {
		const char *name = p;
		while (name_char(*p))
			p++;
		if (p == name)
			return false;
		if (*p == '[') {
			p++;
			for (;;) {
				char *e;
				unsigned long lo = strtoul(p, &e, 10), hi = lo;
				if (e == p || *p < '0' || *p > '9')
					return false;
				p = e;
				if (*p == '-') {
					if (p[1] < '0' || p[1] > '9')
						return false;
					hi = strtoul(p + 1, &e, 10);
					p = e;
				}
				if (hi < lo || hi - lo > 64)
					return false;
				if (*p == ']')
					break;
				if (*p++ != ',')
					return false;
			}
			p++;
		}
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

static void gres_parsers(const char *line)
{
	char model[FW_NAME_MAX], small[4];
	int n = fw__gres_gpus(line, model, sizeof model);

	if (n < 0 || n > FW__GRES_MAX || strlen(model) >= sizeof model || (model[0] && !strstr(line, model)))
		abort();
	if (fw__gres_gpus(line, small, sizeof small) != n || strlen(small) >= sizeof small)
		abort();
	if (fw__gres_idx_mask(line) && !strstr(line, "IDX:"))
		abort();
}

static void add_node(struct world *w, char **f)
{
	node_info_t *n = &w->nodes[w->nn];

	if (w->nn == MAXN || !f[1])
		return;
	for (const char *c = f[1]; *c; c++)
		if (!name_char(*c))
			return;
	for (int i = 0; i < w->nn; i++)
		if (!strcmp(w->nodes[i].name, f[1]))
			return;
	n->name = f[1];
	n->gres = f[2];
	n->cpus = (uint16_t)num(f[3]);
	n->real_memory = num(f[4]);
	n->node_state = (uint32_t)num(f[5]);
	n->features = f[6];
	n->features_act = f[8];
	for (int p = 0; p < NPART; p++) {
		size_t len = strlen(part_names[p]);
		w->in[p][w->nn] = !f[7] && p == 0;
		for (const char *q = f[7]; q && *q;) {
			size_t l = strcspn(q, ",");
			w->in[p][w->nn] |= l == len && !strncmp(q, part_names[p], len);
			q += l + (q[l] == ',');
		}
	}
	w->nn++;
}

#define MARK_LEN (sizeof FW__NODELIST_MARK - 1)

/* A -w record "fairway: -w LIST" of job_submit.lua, else NULL. */
static const char *record(const char *text)
{
	return text && !strncmp(text, FW__NODELIST_MARK, MARK_LEN) ? text : NULL;
}

/* What job_submit.lua writes: a -w record holds a node list, or none. */
static bool record_ok(const char *text)
{
	const char *r = record(text);

	return !r || !r[MARK_LEN] || hostlist_ok(r + MARK_LEN);
}

/* The -w in force (docs/slurm.md): the Comment's record over the
 * AdminComment's; an empty list is none. */
static const char *in_force(const slurm_job_info_t *j)
{
	const char *r = record(j->comment) ? j->comment : record(j->admin_comment);

	return r && r[MARK_LEN] ? r + MARK_LEN : NULL;
}

static bool same_list(const char *a, const char *b)
{
	return a ? b && !strcmp(a, b) : !b;
}

/* Not one of o's array with another throttle (f: the new record's
 * fields).  A second record of one task is generated: Slurm sends none,
 * but the adapter names it by its id, so the snapshot stays valid. */
static bool array_ok(const slurm_job_info_t *o, char **f)
{
	uint32_t a = (uint32_t)num(f[31]);

	if (!a || o->array_job_id != a)
		return true;
	return o->array_max_tasks == (uint32_t)num(f[34]);
}

static void add_job(struct world *w, char **f)
{
	slurm_job_info_t *j = &w->jobs[w->nj];
	uint32_t id = (uint32_t)num(f[1]);

	if (w->nj == MAXJ || !id || !hostlist_ok(f[5]) || !hostlist_ok(f[12]) || !hostlist_ok(f[27]) ||
	    !record_ok(f[29]) || !record_ok(f[30]))
		return;
	for (int i = 0; i < w->nj; i++)
		if (w->jobs[i].job_id == id || !array_ok(&w->jobs[i], f))
			return;
	j->job_id = id;
	j->account = f[2];
	j->partition = f[3];
	j->job_state = (uint32_t)num(f[4]);
	j->nodes = f[5];
	for (char *p = f[6]; p && j->gres_detail_cnt < 8;) {
		char *e = strchr(p, ';');
		w->details[w->nj][j->gres_detail_cnt++] = p;
		if (!e)
			break;
		*e = '\0';
		p = e + 1;
	}
	j->gres_detail_str = w->details[w->nj];
	j->tres_per_node = f[7];
	j->num_nodes = (uint32_t)num(f[8]);
	j->num_cpus = (uint32_t)num(f[9]);
	j->pn_min_memory = num(f[10]);
	j->priority = (uint32_t)num(f[11]);
	j->req_nodes = f[12];
	j->time_limit = (uint32_t)num(f[13]);
	j->nice = (uint32_t)num(f[14]);
	j->requeue = (uint16_t)num(f[15]);
	j->tres_per_job = f[16];
	j->req_switch = (uint32_t)num(f[17]);
	j->submit_time = (time_t)(num(f[18]) & ((1ull << 40) - 1));
	j->start_time = (time_t)(num(f[19]) & ((1ull << 40) - 1));
	j->tres_per_task = f[20];
	j->ntasks_per_node = (uint16_t)num(f[21]);
	j->num_tasks = (uint32_t)num(f[22]);
	j->tres_per_socket = f[23];
	j->dependency = f[24];
	j->eligible_time = (time_t)(num(f[25]) & ((1ull << 40) - 1));
	for (char *c = f[26]; c && *c; c++)
		if (*c == '^')
			*c = '|';
	j->features = f[26];
	j->exc_nodes = f[27];
	j->shared = f[28] ? (uint16_t)num(f[28]) : NO_VAL16;
	j->admin_comment = f[29];
	j->comment = f[30];
	j->user_name = (char *)"u";
	j->array_job_id = (uint32_t)num(f[31]);
	j->array_task_id = f[32] ? (uint32_t)num(f[32]) : NO_VAL;
	j->array_task_str = f[33];
	j->array_max_tasks = (uint32_t)num(f[34]);
	j->het_job_id = (uint32_t)num(f[35]);
	j->het_job_offset = (uint32_t)num(f[36]);
	j->het_job_id_set = f[37];
	j->qos = f[38];
	j->state_reason = (uint16_t)num(f[39]);
	j->resv_name = f[40];
	w->nj++;
}

/* R|name|start|end|nodes|flags: node numbers of N lines read so far. */
static void add_resv(struct world *w, char **f, fw_time now)
{
	reserve_info_t *r = &w->resv[w->nr];
	int32_t *inx = w->rinx[w->nr];
	int k = 0;

	if (w->nr == MAXR || !f[1])
		return;
	for (int i = 0; i < w->nr; i++)
		if (!strcmp(w->resv[i].name, f[1]))
			return;
	for (char *p = f[4]; p && *p && k < 2 * MAXN;) {
		uint64_t i = num(p);
		if (i < (uint64_t)w->nn) {
			inx[k++] = (int32_t)i;
			inx[k++] = (int32_t)i;
		}
		p += strcspn(p, ",");
		p += *p == ',';
	}
	inx[k] = -1;
	r->name = f[1];
	r->start_time = (time_t)(now - 1000000 + (fw_time)(num(f[2]) % 100000000));
	r->end_time = (time_t)(now - 1000000 + (fw_time)(num(f[3]) % 100000000));
	r->node_inx = inx;
	r->flags = num(f[5]);
	w->nr++;
}

/* P|name|state: a partition's state_up, or "gone". */
static void part_line(struct world *w, char **f)
{
	for (int p = 0; p < NPART; p++)
		if (!strcmp(f[1], part_names[p])) {
			w->part_gone[p] = f[2] && !strcmp(f[2], "gone");
			w->part_state[p] = (uint16_t)num(f[2]);
		}
}

static void read_world(struct world *w, char *buf)
{
	char *f[MAXF];

	for (char *line = buf; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		gres_parsers(line);
		fields(line, f);
		if (f[0] && !strcmp(f[0], "T") && f[1] && printable(f[1]) && strlen(f[1]) < FW_NAME_MAX &&
		    strcmp(f[1], "node")) /* the YAML's levels: fwconfig refuses "node" */
			snprintf(w->level, sizeof w->level, "%s", f[1]);
		else if (f[0] && !strcmp(f[0], "N"))
			add_node(w, f);
		else if (f[0] && !strcmp(f[0], "J"))
			add_job(w, f);
		else if (f[0] && !strcmp(f[0], "R"))
			add_resv(w, f, (fw_time)1 << 40);
		else if (f[0] && !strcmp(f[0], "P") && f[1])
			part_line(w, f);
		else if (f[0] && !strcmp(f[0], "Q") && f[1] && strlen(f[1]) < FW_NAME_MAX && w->nq < 8) {
			snprintf(w->qos[w->nq].name, FW_NAME_MAX, "%s", f[1]);
			w->qos[w->nq++].priority = (uint32_t)num(f[2]);
		} else if (f[0] && !strcmp(f[0], "U") && f[1] && f[2] && f[3] && w->nu < 16) {
			struct fw_slurm_usage *u = &w->use[w->nu++];
			snprintf(u->acct, sizeof u->acct, "%s", f[1]);
			snprintf(u->user, sizeof u->user, "%s", f[2]);
			u->gpu_s = strtod(f[3], NULL);
		}
		line = nl ? nl + 1 : NULL;
	}
}

static struct fw_snapshot *queues(const struct world *w)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_queue q;

	if (!s)
		abort();
	fw_queue_init(&q);
	strcpy(q.name, "org");
	fw_snapshot_add_queue(s, &q);
	strcpy(q.name, "team_a");
	q.parent = 0;
	fw_snapshot_add_queue(s, &q);
	strcpy(q.name, "team_b");
	fw_snapshot_add_queue(s, &q);
	if (w->level[0]) {
		s->topology.nlevels = 1;
		snprintf(s->topology.level[0], FW_NAME_MAX, "%s", w->level);
	}
	s->now = (fw_time)1 << 40; /* add_resv's now */
	return s;
}

/* Partition records of the world, but the gone ones: each node a range
 * of its own.  Returns how many. */
static uint32_t partitions(const struct world *w, partition_info_t *part, int32_t inx[NPART][2 * MAXN + 1])
{
	uint32_t n = 0;

	for (int p = 0; p < NPART; p++) {
		int k = 0;
		if (w->part_gone[p])
			continue;
		for (int i = 0; i < w->nn; i++)
			if (w->in[p][i]) {
				inx[p][k++] = i;
				inx[p][k++] = i;
			}
		inx[p][k] = -1;
		part[n].name = (char *)part_names[p];
		part[n].node_inx = inx[p];
		part[n++].state_up = w->part_state[p];
	}
	return n;
}

/* Does partition p start jobs (a record, PARTITION_SCHED)? */
static bool part_starts(const struct world *w, int p)
{
	return !w->part_gone[p] && (w->part_state[p] & PARTITION_SCHED);
}

/* The record a snapshot job name stands for: "ID", or "A_T": task T's
 * own record, else array A's pending record, which must list T. */
/* Is record i named "A_T": a task's record, and the first of its task
 * (a second one, which Slurm never sends, keeps its id)? */
static bool task_named(const struct world *w, int i)
{
	const slurm_job_info_t *j = &w->jobs[i];

	if (!fw__array_job(j) || j->array_task_id == NO_VAL)
		return false;
	for (int k = 0; k < i; k++)
		if (w->jobs[k].array_job_id == j->array_job_id && w->jobs[k].array_task_id == j->array_task_id)
			return false;
	return true;
}

static const slurm_job_info_t *job_named(const struct world *w, const char *name)
{
	const char *us = strchr(name, '_');
	uint32_t a = (uint32_t)num(name), t = us ? (uint32_t)num(us + 1) : 0;

	for (int i = 0; i < w->nj; i++) {
		const slurm_job_info_t *j = &w->jobs[i];
		if (!us && j->job_id == a && !task_named(w, i))
			return j;
		if (us && j->array_job_id == a && j->array_task_id == t)
			return j;
	}
	for (int i = 0; us && i < w->nj; i++) {
		const slurm_job_info_t *j = &w->jobs[i];
		if (fw__array_meta(j) && j->array_job_id == a)
			return fw__array_lists(j->array_task_str, t) ? j : NULL;
	}
	return NULL;
}

/* Each array's pending jobs: tasks its records list, at most the cap
 * from its pending record, and within its throttle. */
static void arrays_hold(const struct world *w, const struct fw_snapshot *s)
{
	for (int i = 0; i < w->nj; i++) {
		const slurm_job_info_t *m = &w->jobs[i];
		int32_t offered = 0, from_meta = 0, busy = 0;
		bool first = fw__array_job(m);
		for (int k = 0; k < i && first; k++)
			first = w->jobs[k].array_job_id != m->array_job_id;
		if (!first)
			continue; /* one pass per array, at its first record */
		for (int32_t x = 0; x < s->njobs; x++) {
			const slurm_job_info_t *j = job_named(w, s->jobs[x].name);
			/* a released task offered again (its nodes were taken
			 * out) keeps its own place: counted busy below */
			if (!j || j->array_job_id != m->array_job_id || !fw__array_job(j) ||
			    s->jobs[x].state != FW_JOB_PENDING || fw__job_released(j))
				continue;
			offered++;
			from_meta += fw__array_meta(j);
		}
		for (int k = 0; k < w->nj; k++) {
			const slurm_job_info_t *j = &w->jobs[k];
			bool released = fw__job_pending(j) && j->priority && j->req_nodes && *j->req_nodes;
			busy += j->array_job_id == m->array_job_id && j->array_task_id != NO_VAL &&
				(fw__job_running(j) || released);
		}
		if (from_meta > FW__ARRAY_TASKS_MAX ||
		    (m->array_max_tasks && m->array_max_tasks != NO_VAL && offered && offered + busy > (int64_t)m->array_max_tasks))
			abort();
	}
}

/* A het job's waiting components, by offset then job id: the records
 * its set lists (each once) that are pending, not released and of its
 * het job, its task groups in that order (the first FW_MAX_GROUPS into
 * c).  Returns how many there are; *released: one of them is released. */
static int32_t het_parts(const struct world *w, const slurm_job_info_t *j, const slurm_job_info_t **c,
			 bool *released)
{
	uint32_t ids[FW__HET_MAX];
	int32_t listed = fw__array_tasks(j->het_job_id_set, ids, FW__HET_MAX), n = 0;

	*released = false;
	for (int32_t i = 0; i < listed && i < FW__HET_MAX; i++) {
		bool dup = false;
		for (int32_t k = 0; k < i; k++)
			dup |= ids[k] == ids[i];
		for (int k = 0; k < w->nj && !dup; k++) {
			const slurm_job_info_t *o = &w->jobs[k];
			bool rel = fw__job_pending(o) && o->priority && o->req_nodes && *o->req_nodes;
			if (o->job_id != ids[i] || !fw__het_job(o) || o->het_job_id != j->het_job_id)
				continue;
			*released |= rel;
			if (fw__job_pending(o) && !rel && n++ < FW_MAX_GROUPS)
				c[n - 1] = o;
		}
	}
	int32_t m = n < FW_MAX_GROUPS ? n : FW_MAX_GROUPS;
	for (int32_t a = 1; a < m; a++) /* a few: insertion */
		for (int32_t b = a; b > 0 && (c[b - 1]->het_job_offset > c[b]->het_job_offset ||
					      (c[b - 1]->het_job_offset == c[b]->het_job_offset &&
					       c[b - 1]->job_id > c[b]->job_id)); b--) {
			const slurm_job_info_t *t = c[b];
			c[b] = c[b - 1], c[b - 1] = t;
		}
	return n;
}

/* A pending job of a het job's component: a group for each component
 * its set lists (distinct) that is pending, not released and of that
 * het job, all apart when more than one; none of them released. */
static void het_hold(const struct world *w, const struct fw_snapshot *s)
{
	for (int32_t x = 0; x < s->njobs; x++) {
		const slurm_job_info_t *j = job_named(w, s->jobs[x].name);
		const struct fw_job *fj = &s->jobs[x];
		const slurm_job_info_t *c[FW_MAX_GROUPS];
		uint32_t ids[FW__HET_MAX];
		bool released;
		if (!j || !fw__het_job(j) || fj->state != FW_JOB_PENDING)
			continue;
		int32_t listed = fw__array_tasks(j->het_job_id_set, ids, FW__HET_MAX);
		if (listed <= 0 || listed > FW__HET_MAX)
			abort(); /* an unread set is held */
		int32_t want = het_parts(w, j, c, &released);
		if (released)
			abort(); /* a part released alone: the rest is held */
		if (fj->ngroups != want || fj->ngroups > FW_MAX_GROUPS)
			abort();
		for (int g = 0; g < fj->ngroups && fj->ngroups > 1; g++)
			if (!fj->groups[g].apart)
				abort();
	}
}

static int node_named(const struct world *w, const char *name)
{
	for (int i = 0; i < w->nn; i++)
		if (!strcmp(w->nodes[i].name, name))
			return i;
	return -1;
}

/* One filter, of record j (a job, or a het job's component): may[k],
 * whether node k is allowed, n its entry's list length (-1: none), tasks
 * its tasks.  Each node allowed is one of its partitions' and has the
 * features its --constraint asks (fairway never starts it where Slurm
 * would refuse to run it); a -w record's filter is exactly the nodes
 * its list in force names (in_force), as many as it asks; a list is the
 * shorter of the nodes allowed and those left out (an except entry). */
static void filter_holds(const struct world *w, const struct fw_snapshot *s, const slurm_job_info_t *j,
			 const bool *may, int32_t n, int32_t tasks)
{
	const char *list = in_force(j);
	int32_t allowed = 0;

	if (!same_list(list, fw__slurm_nodelist(j)))
		abort(); /* the adapter reads the list in force, no other */
	for (int32_t k = 0; n >= 0 && k < s->nnodes; k++) /* either kind of entry */
		allowed += may[k];
	if (n >= 0 && (allowed == 0 || allowed == s->nnodes)) /* an empty or a useless filter */
		abort();
	if (n > s->nnodes - n) /* the shorter list: of the nodes left, or of those left out */
		abort();
	if (list) {
		hostlist_t hl = slurm_hostlist_create(list);
		int32_t named = fw__slurm_nodelist_count(list);
		if (!hl || (n >= 0 && allowed != named) || (n < 0 && named != s->nnodes) || tasks != named)
			abort();
		for (int32_t k = 0; n >= 0 && k < s->nnodes; k++)
			if (may[k] && slurm_hostlist_find(hl, s->nodes[k].name) < 0)
				abort();
		slurm_hostlist_destroy(hl);
	}
	for (int32_t k = 0; n >= 0 && k < s->nnodes; k++) {
		if (!may[k])
			continue;
		int i = node_named(w, s->nodes[k].name);
		const node_info_t *ni = &w->nodes[i];
		const char *feats = ni->features_act ? ni->features_act : ni->features;
		bool in = false;
		for (int p = 0; p < NPART; p++) /* never a node of a partition that starts no job */
			in |= w->in[p][i] && fw__slurm_listed(j->partition, part_names[p]) && part_starts(w, p);
		if (!in || (fw__set(j->features) && fw__constraint_match(j->features, feats) != 1))
			abort();
	}
}

/* A pending het job x: each task group's nodes are its component's
 * (filter_holds), by the group's entry when it has one (its job then has
 * none: one or the other), else by the job's (its components alike).
 * Group filters on any other job: none. */
static void het_filters_hold(const struct world *w, const struct fw_snapshot *s, int32_t x,
			     const slurm_job_info_t *j)
{
	const slurm_job_info_t *c[FW_MAX_GROUPS];
	const struct fw_job *fj = &s->jobs[x];
	const int32_t *v;
	int32_t e = -1, m = 0, njob = fw_snapshot_job_nodes(s, x, &v);
	bool may[MAXN];

	for (int32_t i = 0; i < s->ngroup_nodes; i++)
		if (s->group_nodes[i].job == x)
			e = e < 0 ? i : e, m++;
	if (!fw__het_job(j) || fj->state != FW_JOB_PENDING) {
		if (m > 0)
			abort();
		return;
	}
	bool released;
	if ((m > 0 && njob >= 0) || het_parts(w, j, c, &released) != fj->ngroups)
		abort();
	for (int g = 0; g < fj->ngroups; g++) {
		int32_t n = m > 0 ? -1 : njob;
		for (int32_t i = e; m > 0 && i < e + m; i++)
			n = s->group_nodes[i].group == g ? s->group_nodes[i].count : n;
		for (int32_t k = 0; k < s->nnodes; k++)
			may[k] = fw_snapshot_group_may_use(s, x, g, k);
		filter_holds(w, s, c[g], may, n, fj->groups[g].count);
	}
}

/* Each pending job's filter (filter_holds), a het job's per group. */
static void filters_hold(const struct world *w, const struct fw_snapshot *s)
{
	for (int32_t x = 0; x < s->njobs; x++) {
		const slurm_job_info_t *j = job_named(w, s->jobs[x].name);
		const int32_t *v;
		int32_t n = fw_snapshot_job_nodes(s, x, &v);
		bool may[MAXN];
		if (!j)
			abort(); /* a name no record stands for (an array's task it does not list) */
		het_filters_hold(w, s, x, j);
		if (fw__het_job(j) || s->jobs[x].state != FW_JOB_PENDING)
			continue;
		for (int32_t k = 0; k < s->nnodes; k++)
			may[k] = fw_snapshot_job_may_use(s, x, k);
		filter_holds(w, s, j, may, n, fw_job_tasks(&s->jobs[x]));
	}
}

/* A job held for its -w (its count, or a node it may not use) has a -w
 * in force; and no held comment, which fairway writes into the job's
 * Comment, reads as a -w record. */
static void orphans_hold(const struct world *w, const struct fw_slurm *h)
{
	char text[256];

	for (int32_t k = 0; k < h->norphans; k++) {
		const struct fw__orphan *o = &h->orphans[k];
		const slurm_job_info_t *j = NULL;
		for (int i = 0; i < w->nj && !j; i++)
			j = w->jobs[i].job_id == o->job ? &w->jobs[i] : NULL;
		if (!j)
			abort();
		fw__orphan_text(o, j, text, sizeof text);
		if (record(text) || ((o->why == FW__ORPHAN_NODELIST || o->why == FW__ORPHAN_NODELIST_COUNT) &&
				     !in_force(j)))
			abort();
	}
}

/* A job its user holds (fw__slurm_user_held: JobHeldUser and
 * job_submit.lua's record in its Comment) is in no snapshot job, and a
 * comment fairway writes on it repeats the record.  Not checked for a
 * het job's components: the others still make the job (a limit,
 * docs/slurm.md), and apply refuses its start. */
static void user_holds(const struct world *w, const struct fw_snapshot *s, const struct fw_slurm *h)
{
	char text[256];

	for (int32_t x = 0; x < s->njobs; x++) {
		const slurm_job_info_t *j = job_named(w, s->jobs[x].name);
		if (j && !fw__het_job(j) && fw__slurm_user_held(j))
			abort();
	}
	for (int32_t k = 0; k < h->norphans; k++) {
		const slurm_job_info_t *j = NULL;
		for (int i = 0; i < w->nj && !j; i++)
			j = w->jobs[i].job_id == h->orphans[k].job ? &w->jobs[i] : NULL;
		fw__orphan_text(&h->orphans[k], j, text, sizeof text);
		if (fw__slurm_user_held(j) && strcmp(text, FW__USER_HOLD_TEXT))
			abort();
	}
}

/* The daemon's list of the jobs the build left out (fw_slurm_aside): one
 * entry per pending orphan, in the orphans' order, each with a reason and
 * a text, a job its user holds with reason held; a cut list says how many
 * there are. */
static void aside_holds(struct fw_slurm *h)
{
	struct fw_backend_aside out[8];
	int32_t n = fw_slurm_aside(h, out, 8), want = 0;

	for (int32_t k = 0; k < h->norphans; k++) {
		const slurm_job_info_t *j = fw__slurm_job(h, h->orphans[k].job);
		if (!j || !fw__job_pending(j))
			continue;
		if (want < 8 && (!out[want].reason[0] || !out[want].text[0] ||
				 (fw__slurm_user_held(j) && strcmp(out[want].reason, "held"))))
			abort();
		want++;
	}
	if (n != want || fw_slurm_aside(h, out, 1) != want)
		abort();
}

/* The daemon's list of the ended jobs Slurm still lists (fw_slurm_ended):
 * exactly the managed records that ended (none pending or running: an
 * ended job holds nothing, and the snapshot never reads it), each in one
 * of the local backend's ended states, its nodes among the names, an
 * exit code a byte; a cut list says how many there are and the names
 * they need. */
static void ended_holds(const struct world *w, struct fw_slurm *h)
{
	static const char *const states[] = { "done", "failed", "cancelled", "timeout" };
	struct fw_backend_ended out[8];
	char names[64][FW_NAME_MAX];
	int32_t nn = 0, nn1 = -1, n = fw_slurm_ended(h, out, 8, names, 64, &nn), want = 0;

	for (int i = 0; i < w->nj; i++) {
		const slurm_job_info_t *j = &w->jobs[i];
		uint32_t base = j->job_state & JOB_STATE_BASE;
		want += base >= JOB_COMPLETE && base < JOB_END && !fw__job_running(j) && !fw__job_pending(j) &&
			fw__slurm_managed(h, j->partition);
	}
	for (int32_t k = 0; k < n && k < 8; k++) {
		const struct fw_backend_ended *e = &out[k];
		int known = 0;
		for (int x = 0; x < 4; x++)
			known += !strcmp(e->state, states[x]);
		if (!known || e->node_first < 0 || e->nnodes < 0 || e->node_first + e->nnodes > 64 ||
		    e->exit_code < -1 || e->exit_code > 255)
			abort();
	}
	if (n != want || fw_slurm_ended(h, out, 1, names, 0, &nn1) != n || nn1 != nn)
		abort();
}

/* The daemon's list of Slurm's reservations (fw_slurm_reservations):
 * every one but fairway's own (fairway-maint-<id>, a window's mirror,
 * and fairway-<job>, a job's, the job named A or A_T in decimal; an
 * admin's "fairway-test" is the admin's, docs/slurm.md; a name too long
 * for the list is left out), with its times, and node names that are
 * nodes of the world, each a node the reservation holds (resv_holds). */
static bool resv_holds(const reserve_info_t *r, int i);

/* A decimal at *p no more than max, *p moved past it. */
static bool decimal_upto(const char **p, uint64_t max)
{
	const char *s = *p;
	uint64_t v = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++)
		v = v > max ? v : v * 10 + (uint64_t)(**p - '0');
	return *p != s && v <= max;
}

static bool fairways_resv(const char *name)
{
	const char *p = name + 8;

	if (strncmp(name, "fairway-", 8))
		return false;
	if (!strncmp(p, "maint-", 6))
		return true;
	if (!decimal_upto(&p, UINT32_MAX))
		return false;
	if (*p == '_') {
		p++;
		if (!decimal_upto(&p, (uint64_t)NO_VAL - 1))
			return false;
	}
	return *p == '\0';
}

static void listed_holds(const struct world *w, const struct fw_slurm *h)
{
	struct fw_backend_rsv out[4];
	int n = fw_slurm_reservations(h, out, 4), want = 0;

	for (int i = 0; i < w->nr; i++)
		want += !fairways_resv(w->resv[i].name) && strlen(w->resv[i].name) < FW_NAME_MAX;
	if (n != want)
		abort();
	for (int k = 0; k < n && k < 4; k++) {
		const reserve_info_t *r = NULL;
		for (int i = 0; i < w->nr && !r; i++)
			r = !strcmp(w->resv[i].name, out[k].name) ? &w->resv[i] : NULL;
		if (!r || out[k].start != (fw_time)r->start_time || out[k].end != (fw_time)r->end_time)
			abort();
		for (const char *p = out[k].nodes; *p;) {
			size_t len = strcspn(p, ",");
			int i = 0;
			while (i < w->nn && (strlen(w->nodes[i].name) != len || strncmp(w->nodes[i].name, p, len)))
				i++;
			if (i == w->nn || !resv_holds(r, i))
				abort();
			p += len + (p[len] == ',');
		}
	}
}

/* Does reservation r hold node i of the world? */
static bool resv_holds(const reserve_info_t *r, int i)
{
	for (int k = 0; r->node_inx[k] >= 0; k += 2)
		if (r->node_inx[k] <= i && i <= r->node_inx[k + 1])
			return true;
	return false;
}

/* Reservations: a node an open one closes takes no work now (and one
 * coming back is back after now: fw_snapshot_validate); a node in
 * service that one to come holds leaves by its start (away_at); a node
 * with a known return is never back while one to come lasts, nor within
 * the margin before it (back after its end, or before it: a gap, the
 * core knowing the first stay only); a pending job uses no node of an
 * admin's one to come that begins before its time limit would end, run
 * from now or from the node's return before it, unless the node's
 * departure covers it (the core keeps the job off it then), and none
 * asks for a reservation. */
static void reserved_holds(const struct world *w, const struct fw_snapshot *s)
{
	for (int r = 0; r < w->nr; r++) {
		const reserve_info_t *v = &w->resv[r];
		bool open = v->start_time <= s->now && s->now < v->end_time;
		for (int32_t k = 0; k < s->nnodes; k++) {
			int i = node_named(w, s->nodes[k].name);
			if (!resv_holds(v, i))
				continue;
			if (open && fw__slurm_closing_resv(v) && s->nodes[k].schedulable)
				abort();
			bool soon = !open && v->start_time > s->now && v->end_time > v->start_time;
			const struct fw_node *n = &s->nodes[k];
			if (soon && fw__slurm_closing_resv(v) && n->schedulable &&
			    (!n->away_at || n->away_at > (fw_time)v->start_time))
				abort();
			bool covered = n->schedulable ? n->away_at && n->away_at <= (fw_time)v->start_time &&
								n->back_at >= (fw_time)v->end_time
						      : !n->back_at || n->back_at >= (fw_time)v->end_time;
			/* never back inside it, or just before it */
			if (soon && fw__slurm_closing_resv(v) && (!n->schedulable || n->away_at) && n->back_at &&
			    n->back_at < (fw_time)v->end_time &&
			    n->back_at >= (fw_time)v->start_time - FW__RESV_MARGIN_S)
				abort();
			fw_time from = !covered && n->back_at > s->now && n->back_at < (fw_time)v->start_time
					       ? n->back_at
					       : s->now;
			for (int32_t x = 0; !open && fw__slurm_admin_resv(v) && v->start_time > s->now && x < s->njobs;
			     x++) {
				const slurm_job_info_t *j = job_named(w, s->jobs[x].name);
				uint32_t tl = j->time_limit;
				bool reaches = tl == INFINITE || tl == NO_VAL || from + (fw_time)tl * 60 > v->start_time;
				if (s->jobs[x].state != FW_JOB_PENDING || fw__het_job(j) || !reaches)
					continue;
				if (fw_snapshot_job_may_use(s, x, k) && !covered)
					abort();
			}
		}
	}
	for (int32_t x = 0; x < s->njobs; x++)
		if (s->jobs[x].state == FW_JOB_PENDING && fw__set(job_named(w, s->jobs[x].name)->resv_name))
			abort();
}

/* Jobs the records stand for: one each, an array's pending record one a
 * task it lists (one when it lists none it reads: held, saying so). */
static int64_t records(const struct world *w)
{
	int64_t n = 0;

	for (int i = 0; i < w->nj; i++) {
		const slurm_job_info_t *j = &w->jobs[i];
		int32_t k = fw__array_meta(j) && fw__job_pending(j) ? fw__array_tasks(j->array_task_str, NULL, 0) : 1;
		n += k > 1 ? k : 1;
	}
	return n;
}

/* Slurm's usage applied: the snapshot validates, each queue's usage is
 * its users' entries summed, and rows of no queue are counted. */
static void usage_holds(const struct world *w, struct fw_snapshot *s)
{
	int32_t unmatched = -1, none = 0;
	struct fw_diag d;

	if (w->nu == 0)
		return;
	for (int i = 0; i < w->nu; i++)
		none += fw_snapshot_find_queue(s, w->use[i].acct) < 0;
	if (fw_slurm_usage_apply(s, w->use, w->nu, s->now, &unmatched) != FW_OK || unmatched != none ||
	    fw_snapshot_validate(s, &d) != FW_OK)
		abort();
	for (int32_t q = 0; q < s->nqueues; q++) {
		double sum = 0;
		for (int32_t i = 0; i < s->nuser_usage; i++)
			sum += s->user_usage[i].queue == q ? s->user_usage[i].usage : 0;
		if (!isfinite(s->queues[q].usage) || s->queues[q].usage != sum)
			abort();
	}
}

static void cycle(struct fw_snapshot *s)
{
	struct fw_arena a;
	struct fw_plan *p = NULL;
	struct fw_diag d;

	fw_arena_init(&a, 1 << 16);
	if (fw_cycle_run(s, NULL, &a, &p) != FW_OK || fw_plan_check(s, p, &a, &d) != FW_OK)
		abort();
	fw_arena_release(&a);
}

/* Does the comma list name a managed partition (gpu, gpu2) that starts
 * jobs? */
static bool starts_some(const struct world *w, const char *list)
{
	for (int p = 0; p < 2; p++)
		if (fw__slurm_listed(list, part_names[p]) && part_starts(w, p))
			return true;
	return false;
}

/* A job held for its partitions (FW__ORPHAN_PART_DOWN) names no managed
 * partition that starts jobs, and its state is one that starts none; a
 * pending job of the snapshot (on nodes) names one that does. */
static void part_down_holds(const struct world *w, const struct fw_snapshot *s, const struct fw_slurm *h)
{
	for (int32_t k = 0; k < h->norphans; k++) {
		const struct fw__orphan *o = &h->orphans[k];
		const slurm_job_info_t *j = NULL;
		if (o->why != FW__ORPHAN_PART_DOWN)
			continue;
		for (int i = 0; i < w->nj; i++)
			j = w->jobs[i].job_id == o->job ? &w->jobs[i] : j;
		if (!j || starts_some(w, j->partition) || o->n < FW__PART_DOWN || o->n > FW__PART_GONE)
			abort();
		/* its comment names its managed partitions alone: one, by name */
		if (o->m < 1 || !o->parts[0] || (o->m == 1 && !fw__slurm_listed(h->parts, o->parts)))
			abort();
	}
	for (int32_t x = 0; x < s->njobs && s->nnodes > 0; x++) {
		const slurm_job_info_t *j = job_named(w, s->jobs[x].name);
		if (s->jobs[x].state == FW_JOB_PENDING && (!j || !starts_some(w, j->partition)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	struct world *w = calloc(1, sizeof *w);
	struct fw_slurm *h = calloc(1, sizeof *h);
	node_info_msg_t nodes = { 0 };
	partition_info_msg_t parts = { 0 };
	partition_info_t part[NPART] = { { 0 } };
	job_info_msg_t jobs = { 0 };
	int32_t inx[NPART][2 * MAXN + 1];
	struct fw_backend_world bw;
	struct fw_snapshot *s;
	struct fw_diag d;

	if (!buf || !w || !h)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (int p = 0; p < NPART; p++)
		w->part_state[p] = PARTITION_UP;
	read_world(w, buf);
	s = queues(w);
	snprintf(h->parts, sizeof h->parts, "gpu,gpu2");
	nodes.record_count = (uint32_t)w->nn;
	nodes.node_array = w->nodes;
	parts.record_count = partitions(w, part, inx);
	parts.partition_array = part;
	jobs.record_count = (uint32_t)w->nj;
	jobs.job_array = w->jobs;
	h->nodes = &nodes;
	h->partitions = &parts;
	h->jobs = &jobs;
	h->qos = w->qos;
	h->nqos = w->nq;
	reserve_info_msg_t resv = { .record_count = (uint32_t)w->nr, .reservation_array = w->resv };
	h->resv = &resv;
	if (fw__slurm_build(h, s, &bw, &d) != FW_OK)
		abort();
	if (fw_snapshot_validate(s, &d) != FW_OK) {
		fprintf(stderr, "refused: %s: %s\n", d.field, d.msg);
		abort();
	}
	/* a job is in the snapshot, skipped, waiting (an orphan not counted
	 * skipped), or none of these (not managed, not pending or running) */
	if ((int64_t)s->njobs + bw.skipped_jobs > records(w) || (int64_t)s->njobs + h->norphans > records(w))
		abort();
	filters_hold(w, s);
	arrays_hold(w, s);
	het_hold(w, s);
	orphans_hold(w, h);
	part_down_holds(w, s, h);
	user_holds(w, s, h);
	listed_holds(w, h);
	aside_holds(h);
	ended_holds(w, h);
	reserved_holds(w, s);
	usage_holds(w, s);
	for (int32_t x = 0; x < s->njobs; x++) /* QOS, then nice: in range */
		if (s->jobs[x].priority < -10000 || s->jobs[x].priority > 100000 * 20001 + 10000)
			abort();
	cycle(s);
	fw_snapshot_free(s);
	free(h->orphans);
	free(h->jhash);
	free(h->thash);
	fw__slurm_ended_free(h);
	free(h);
	free(w);
	free(buf);
	return 0;
}
