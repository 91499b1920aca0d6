/*
 * build.c — Slurm's cached messages -> the nodes, jobs and allocations of
 * a core snapshot (the mapping is in fwslurm.h and docs/slurm.md).
 *
 * Phases, in order:
 *   1. nodes    the nodes of the managed partitions, with topology paths;
 *               a node in a reservation open now (an admin's, or one of
 *               fairway's maintenance windows) takes no work, and is back
 *               at its end (fw_node.back_at; closed_nodes); a node in
 *               service that one to come takes leaves at its start
 *               (fw_node.away_at; leaving_nodes);
 *   2. running  jobs that hold resources: managed ones become running jobs
 *               with their GPU indices, the others mark their GPUs bad;
 *   3. starting jobs fairway released that Slurm has not run yet: running
 *               on their ReqNodes, on GPUs still free after phase 2 and
 *               with the CPU and memory the jobs before them leave;
 *   4. pending  held jobs, each restricted to the nodes its partitions
 *               (those that start jobs now: not DOWN or INACTIVE),
 *               --exclude and --constraint allow, less those an admin's
 *               reservation takes before its time limit ends (filter.c);
 *               a job that asks for a reservation is Slurm's to place
 *               (released into it: in_reservation); a job
 *               array's pending record is one pending job per task it
 *               lists, "A_T", within the array's throttle and a cap; a
 *               heterogeneous job's waiting components are one job, a
 *               task group each, each group restricted to its
 *               component's nodes when they ask unlike (pending_het).
 * The running jobs are booked per node as they are read, so the snapshot
 * never overbooks a node (fw_snapshot_validate refuses that) even where
 * Slurm runs more than fairway counts room for: a managed job on GPUs a
 * managed job read before it holds (shared GPUs) counts as foreign, and
 * a task's CPU and memory are cut to what is left on its nodes (CPUs
 * split unevenly across a job's nodes, memory that is not a consumable
 * resource, oversubscription).
 *
 * One record must never cost the snapshot: fw_snapshot_validate refuses
 * a whole snapshot for one job or node it cannot take, and then no job of
 * the cluster is scheduled.  So what the core cannot model is handled
 * record by record: a node past 16 GPUs is read as 16, a job on GPUs past
 * them, on a node named twice or on more GPU counts than a job has task
 * groups is foreign, and a held job that asks what
 * fairway cannot place (more than 16 GPUs a node, --gpus-per-socket, a
 * --constraint form it does not read, no node left by its partitions,
 * --exclude and --constraint, --exclusive on nodes of several sizes) or
 * that Slurm would not run yet (--begin ahead; a released one whose
 * dependency is unmet, or that a limit of Slurm's own holds back) is left
 * out, an "orphan" whose comment says why.
 * A task is a node (one_per_node); --exclusive makes it a whole one.  The
 * libFuzzer target tests/fuzz/fuzz_slurm.c holds this: whatever the
 * records, the snapshot validates and a cycle runs on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_ranges.h"
#include "slurm_int.h"

struct build {
	struct fw_slurm *h;
	struct fw_snapshot *s;
	int32_t *node_of;       /* slurm node index -> snapshot node, -1 */
	uint32_t *used;         /* per snapshot node: GPUs taken */
	uint32_t *held;         /* ... of them, by running jobs' allocations */
	int64_t *cpu, *mem;     /* per snapshot node: booked by allocations */
	uint32_t *seen, tag;    /* per snapshot node: distinct()'s last tag */
	bool uniform;           /* every node has the GPUs, CPUs and memory
				 * of node 0: an --exclusive job's task is
				 * that (exclusive_shape) */
	struct fw__slurm_filter *filter; /* pending jobs' nodes (filter.c) */
	struct array_busy *arrays;      /* by array job id (array_of) */
	uint32_t arrays_cap;            /* power of two */
	int32_t skipped, skipped_nodes;
	bool quiet;                     /* orphan() only answers (het jobs:
					 * another component's shape) */
};

/* An array's tasks that run or are about to: running, released, and
 * then those this build offers the plan (the %N throttle bounds them). */
struct array_busy {
	uint32_t id;                    /* array job id; 0 = free slot */
	int32_t busy;
};

/* Count n jobs left out, saturating: an array's list may name 2^32
 * tasks. */
static void skip(struct build *b, int64_t n)
{
	b->skipped = (int64_t)b->skipped + n > INT32_MAX ? INT32_MAX : (int32_t)(b->skipped + n);
}

/* ------------------------------------------------------------ nodes */

/* The domain a feature "LEVEL=NAME" names for level, or NULL. */
static const char *feature_domain(const char *features, const char *level,
				  char *buf, size_t len)
{
	size_t ll = strlen(level);

	for (const char *p = features; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n > ll + 1 && !strncmp(p, level, ll) && p[ll] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - ll - 1), p + ll + 1);
			return buf;
		}
		p += n + (p[n] == ',');
	}
	return NULL;
}

/* Level l's domain: a node feature "LEVEL=NAME" first, else the switch
 * chain of topology.conf (leaf switch = the last level), else "all". */
static void node_path(const struct build *b, const node_info_t *ni, struct fw_node *n)
{
	const struct fw_slurm_topo *t = fw__slurm_topo_of(b->h, n->name);
	const char *feat = ni->features_act ? ni->features_act : ni->features;
	int L = b->s->topology.nlevels;
	char buf[FW_NAME_MAX];

	for (int l = 0; l < L; l++) {
		int k = L - 1 - l; /* 0 = leaf switch = last level */
		const char *f = feature_domain(feat, b->s->topology.level[l], buf, sizeof buf);
		snprintf(n->path[l], FW_NAME_MAX, "%s",
			 f ? f : t && k < t->depth ? t->sw[k] : "all");
	}
}

static int add_node(struct build *b, uint32_t i)
{
	const node_info_t *ni = &b->h->nodes->node_array[i];
	struct fw_node n;
	int idx;

	if (strlen(ni->name) >= sizeof n.name) {
		/* cut, it could equal another node's name (a snapshot
		 * with two is refused) and would name no Slurm node in
		 * the plan's actions: left out, its jobs foreign */
		b->skipped_nodes++;
		return FW_OK;
	}
	fw_node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", ni->name);
	n.gpu_count = fw__gres_gpus(ni->gres, n.gpu_model, sizeof n.gpu_model);
	if (n.gpu_count > FW_MAX_GPUS_PER_NODE)
		n.gpu_count = FW_MAX_GPUS_PER_NODE;
	n.cpu_milli = (int64_t)ni->cpus * 1000;
	n.mem_mib = ni->real_memory > (uint64_t)FW_API_MEMORY_MAX ? FW_API_MEMORY_MAX : (int64_t)ni->real_memory;
	n.schedulable = fw__node_schedulable(ni);
	node_path(b, ni, &n);
	if ((idx = fw_snapshot_add_node(b->s, &n)) < 0)
		return idx;
	b->node_of[i] = idx;
	return FW_OK;
}

static void mark_partition(const partition_info_t *p, char *in, uint32_t n)
{
	for (int k = 0; p->node_inx && p->node_inx[k] >= 0; k += 2)
		for (int32_t i = p->node_inx[k]; i <= p->node_inx[k + 1] && (uint32_t)i < n; i++)
			in[i] = 1;
}

/* Phase 1, reservations open now: their nodes take no work from
 * fairway, and come back at the reservation's end when nothing else
 * keeps them out (an admin's reservation admits only the jobs that ask
 * for it, which Slurm places: in_reservation).  Slurm's MAINT flag on a
 * node says only that a maintenance reservation holds it. */
static void close_node(struct build *b, uint32_t i, fw_time until)
{
	struct fw_node *n;
	int32_t x = b->node_of[i];

	if (x < 0)
		return;
	n = &b->s->nodes[x];
	if (n->back_at || fw__node_in_service(&b->h->nodes->node_array[i]))
		n->back_at = until > n->back_at ? until : n->back_at;
	n->schedulable = false;
}

static void closed_nodes(struct build *b)
{
	const reserve_info_msg_t *m = b->h->resv;
	uint32_t n = b->h->nodes->record_count;

	for (uint32_t k = 0; m && k < m->record_count; k++) {
		const reserve_info_t *r = &m->reservation_array[k];
		if (!fw__slurm_closing_resv(r) || r->start_time > b->s->now || r->end_time <= b->s->now)
			continue;
		for (int p = 0; r->node_inx[p] >= 0 && r->node_inx[p + 1] >= 0; p += 2)
			for (int32_t i = r->node_inx[p]; i <= r->node_inx[p + 1] && (uint32_t)i < n; i++)
				close_node(b, (uint32_t)i, (fw_time)r->end_time);
	}
}

/* Phase 1, reservations to come: a node in service that one of them
 * takes leaves a minute before its start (FW__RESV_MARGIN_S: Slurm
 * starts a released job a moment after fairway's read, and refuses one
 * whose limit would then reach into the reservation; seen in a lab) and
 * is back at its end (fw_node.away_at, back_at), so the core puts there
 * only work whose time limit ends by then, and plans on the node again
 * from its end.  The core knows one departure a node: the first, as the
 * daemon's windows (connectors/serve/cycle.c leave_for).  Taken in start
 * order, a later reservation that opens by the node's return (less the
 * margin: a shorter gap is none) extends the stay to its end; one after
 * a gap is left for the cycles after the return (it is then the first),
 * and until then filter.c keeps off its nodes the jobs that would run
 * into it from the return (find_soon).  A node out now with a known
 * return (closed_nodes) is back after a reservation to come that opens
 * by then, alike. */
static int by_resv_start(const void *a, const void *b)
{
	const reserve_info_t *x = *(const reserve_info_t *const *)a, *y = *(const reserve_info_t *const *)b;

	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	return strcmp(x->name, y->name); /* names are unique: total */
}

/* Does r open by t, or within the margin after it (no gap Slurm would
 * run a job in)? */
static bool opens_by(const reserve_info_t *r, fw_time t)
{
	return (fw_time)r->start_time - FW__RESV_MARGIN_S <= t;
}

static void leave_node(struct build *b, uint32_t i, const reserve_info_t *r)
{
	int32_t x = b->node_of[i];
	struct fw_node *n;

	if (x < 0)
		return;
	n = &b->s->nodes[x];
	if (!n->schedulable || n->away_at) { /* out now, or leaving for an earlier one */
		if (n->back_at && opens_by(r, n->back_at) && (fw_time)r->end_time > n->back_at)
			n->back_at = (fw_time)r->end_time;
		return;
	}
	fw_time at = (fw_time)r->start_time - FW__RESV_MARGIN_S;
	n->away_at = at > b->s->now ? at : b->s->now + 1;
	n->back_at = (fw_time)r->end_time;
}

static int leaving_nodes(struct build *b)
{
	const reserve_info_msg_t *m = b->h->resv;
	uint32_t n = b->h->nodes->record_count, k, nr = 0;
	const reserve_info_t **v;

	if (!m || !m->record_count)
		return FW_OK;
	if (!(v = malloc(m->record_count * sizeof *v)))
		return FW_ENOMEM;
	for (k = 0; k < m->record_count; k++) {
		const reserve_info_t *r = &m->reservation_array[k];
		if (fw__slurm_closing_resv(r) && r->start_time > b->s->now && r->end_time > r->start_time)
			v[nr++] = r;
	}
	qsort(v, nr, sizeof *v, by_resv_start);
	for (k = 0; k < nr; k++)
		for (int p = 0; v[k]->node_inx[p] >= 0 && v[k]->node_inx[p + 1] >= 0; p += 2)
			for (int32_t i = v[k]->node_inx[p]; i <= v[k]->node_inx[p + 1] && (uint32_t)i < n; i++)
				leave_node(b, (uint32_t)i, v[k]);
	free(v);
	return FW_OK;
}

static int build_nodes(struct build *b)
{
	uint32_t n = b->h->nodes->record_count;
	char *in = calloc(n ? n : 1, 1);
	int rc = FW_OK;

	if (!in)
		return FW_ENOMEM;
	if (b->s->topology.nlevels == 0 && b->h->topo_depth > 0) {
		b->s->topology.nlevels = 1;
		snprintf(b->s->topology.level[0], FW_NAME_MAX, "switch");
	}
	for (uint32_t p = 0; p < b->h->partitions->record_count; p++)
		if (fw__slurm_managed(b->h, b->h->partitions->partition_array[p].name))
			mark_partition(&b->h->partitions->partition_array[p], in, n);
	for (uint32_t i = 0; i < n && rc == FW_OK; i++)
		if (in[i] && b->h->nodes->node_array[i].name)
			rc = add_node(b, i);
	free(in);
	closed_nodes(b);
	if (rc == FW_OK)
		rc = leaving_nodes(b);
	b->uniform = b->s->nnodes > 0;
	for (int32_t i = 1; i < b->s->nnodes && b->uniform; i++) {
		const struct fw_node *x = &b->s->nodes[i], *n0 = &b->s->nodes[0];
		b->uniform = x->gpu_count == n0->gpu_count && x->cpu_milli == n0->cpu_milli &&
			     x->mem_mib == n0->mem_mib;
	}
	return rc;
}

/* ------------------------------------------------------------ jobs */

/* --exclusive: Slurm gives the job its nodes whole, whatever it asked. */
static bool exclusive(const slurm_job_info_t *j)
{
	return j->shared == JOB_SHARED_NONE;
}

/* An --exclusive job's task is a whole node: on nodes all of one size,
 * that size (false on nodes of several sizes: fairway cannot say which). */
static bool exclusive_shape(const struct build *b, struct fw_task_group *g)
{
	const struct fw_node *n0;

	if (!b->uniform) /* (also when there is no node) */
		return false;
	n0 = &b->s->nodes[0];
	g->gpus = n0->gpu_count;
	g->cpu_milli = n0->cpu_milli;
	g->mem_mib = n0->mem_mib;
	return true;
}

static int32_t snap_node(const struct build *b, const char *name)
{
	for (uint32_t i = 0; i < b->h->nodes->record_count; i++) {
		const char *nm = b->h->nodes->node_array[i].name;
		if (nm && !strcmp(nm, name))
			return b->node_of[i];
	}
	return -1;
}

/* Expand a hostlist into snapshot node indices (the first cap); -1 for
 * nodes not in the snapshot.  Returns how many hosts the list has. */
static int hosts(const struct build *b, const char *list, int32_t *out, int cap)
{
	hostlist_t hl = list && *list ? FW__SLP(slurm_hostlist_create(list)) : NULL;
	char *h;
	int n = 0;

	if (!hl)
		return 0;
	while ((h = FW__SLP(slurm_hostlist_shift(hl)))) {
		if (n < cap)
			out[n] = snap_node(b, h);
		n++;
		free(h);
	}
	FW__SLV(slurm_hostlist_destroy(hl));
	return n;
}

/* Are the n nodes of a task list all managed and all different?  A node
 * named twice would get two tasks of one job, booked as if each had the
 * node to itself (Slurm lists a node once; this keeps a list that does
 * not from overbooking the snapshot). */
static bool distinct(struct build *b, const int32_t *nodes, int n)
{
	b->tag++;
	for (int k = 0; k < n; k++) {
		if (nodes[k] < 0 || b->seen[nodes[k]] == b->tag)
			return false;
		b->seen[nodes[k]] = b->tag;
	}
	return true;
}

static int32_t queue_of(const struct build *b, const slurm_job_info_t *j)
{
	int q = j->account ? fw_snapshot_find_queue(b->s, j->account) : -1;

	return q >= 0 && fw_queue_is_leaf(b->s, q) ? q : -1;
}

/* Memory per node in MiB: --mem, or --mem-per-cpu (MEM_PER_CPU) times
 * the CPUs; Slurm's "not set" values (NO_VAL64, INFINITE64) read as no
 * request, and a product past FW_API_MEMORY_MAX as that (no node has it):
 * the cast to the snapshot's int64 must never turn it negative, which
 * fw_snapshot_validate refuses. */
static int64_t job_mem(uint64_t mem, uint32_t cpus)
{
	if (mem == NO_VAL64 || mem == INFINITE64)
		return 0;
	if (mem & MEM_PER_CPU) {
		mem &= ~MEM_PER_CPU;
		mem = cpus && mem > (uint64_t)FW_API_MEMORY_MAX / cpus ? (uint64_t)FW_API_MEMORY_MAX : mem * cpus;
	}
	return mem > (uint64_t)FW_API_MEMORY_MAX ? FW_API_MEMORY_MAX : (int64_t)mem;
}

/* GPUs per node (a fairway task) and their model: --gres=gpu:g or
 * --gpus-per-node=g (tres_per_node), --gpus-per-task=t times the tasks on
 * a node (tres_per_task; --ntasks-per-node, else the tasks spread evenly,
 * rounded up), or --gpus=N over the job's nodes (tres_per_job, rounded
 * up: Slurm may place them unevenly, and a running job on uneven counts
 * is read with a task group per count, gpu_groups).  -1 for --gpus-per-socket, which fairway does not
 * read (the job is held, and its comment says so). */
static int job_gpus(const slurm_job_info_t *j, int tasks, char *model, size_t len)
{
	uint64_t per;
	int g;

	if ((g = fw__gres_gpus(j->tres_per_node, model, len)) > 0)
		return g;
	if ((g = fw__gres_gpus(j->tres_per_task, model, len)) > 0) {
		if (j->ntasks_per_node && j->ntasks_per_node != NO_VAL16)
			per = j->ntasks_per_node;
		else if (j->num_tasks && j->num_tasks != NO_VAL)
			per = ((uint64_t)j->num_tasks + (uint64_t)tasks - 1) / (uint64_t)tasks;
		else
			per = 1;
		per *= (uint64_t)g;
		return per > FW__GRES_MAX ? FW__GRES_MAX : (int)per;
	}
	if ((g = fw__gres_gpus(j->tres_per_job, model, len)) > 0)
		return (int)(((int64_t)g + tasks - 1) / tasks);
	if (fw__gres_gpus(j->tres_per_socket, model, len) > 0)
		return -1;
	return 0;
}

int64_t fw__slurm_job_gpus(const slurm_job_info_t *j)
{
	int tasks = j->num_nodes && j->num_nodes != NO_VAL ? (int)(j->num_nodes & INT32_MAX) : 1;
	char model[FW_NAME_MAX];
	int g = job_gpus(j, tasks, model, sizeof model);

	return g < 0 ? -1 : (int64_t)g * tasks;
}

/* The job's shape: one group of `tasks` tasks, one per node. */
static void job_shape(const slurm_job_info_t *j, int tasks, struct fw_job *fj)
{
	struct fw_task_group *g = &fj->groups[0];
	uint32_t cpus = j->num_cpus ? (uint32_t)(((uint64_t)j->num_cpus + (uint64_t)tasks - 1) / (uint64_t)tasks) : 1;

	fj->ngroups = 1;
	g->count = tasks;
	g->one_per_node = true; /* Slurm needs a node per task */
	g->gpus = job_gpus(j, tasks, g->gpu_model, sizeof g->gpu_model);
	g->gpu_milli = 1000;
	g->cpu_milli = (int64_t)cpus * 1000;
	g->mem_mib = job_mem(j->pn_min_memory, cpus);
}

static void job_common(const struct build *b, const slurm_job_info_t *j,
		       int32_t q, struct fw_job *fj)
{
	int64_t nice = (int64_t)j->nice - NICE_OFFSET;

	fw_job_init(fj);
	fw__job_name(b->h, j, fj->name, sizeof fj->name);
	fw__slurm_user(b->h, j, fj->user, sizeof fj->user);
	fj->queue = q;
	fj->priority = fw__slurm_job_priority(fw__slurm_qos_priority(b->h, j->qos), nice);
	fj->preemptible = j->requeue != 0 && !fw__het_job(j); /* Slurm requeues a
							       * het job whole */
	fj->submit_time = j->submit_time;
	if (j->time_limit != INFINITE && j->time_limit != NO_VAL)
		fj->expected_runtime = (fw_time)j->time_limit * 60;
	if (j->req_switch == 1 && b->s->topology.nlevels > 0)
		fj->required_level = (int8_t)(b->s->topology.nlevels - 1);
}

/* GPUs of a job we do not schedule become unusable on its nodes. */
static void mark_foreign(struct build *b, const slurm_job_info_t *j)
{
	int32_t nodes[FW_SLURM_MAX_JOB_NODES];
	int n = hosts(b, j->nodes, nodes, FW_SLURM_MAX_JOB_NODES);

	for (int k = 0; k < n && k < FW_SLURM_MAX_JOB_NODES; k++) {
		uint32_t m;
		if (nodes[k] < 0)
			continue;
		m = k < (int)j->gres_detail_cnt ? fw__gres_idx_mask(j->gres_detail_str[k]) : 0;
		b->s->nodes[nodes[k]].bad_gpu_mask |= m;
		b->used[nodes[k]] |= m;
	}
}

/* One allocation per node, in the group of its GPU count (group[k]). */
static int add_allocs(struct build *b, const int32_t *nodes, const uint32_t *masks,
		      const int8_t *group, int n, const struct fw_job *fj)
{
	for (int k = 0; k < n; k++) {
		const struct fw_task_group *g = &fj->groups[group[k]];
		struct fw_task_alloc a = { .node = nodes[k], .group = group[k],
					   .gpu_mask = masks[k],
					   .gpu_milli = g->gpus ? 1000 : 0 };
		int rc = fw_snapshot_add_alloc(b->s, &a);
		if (rc < 0)
			return rc;
		b->used[nodes[k]] |= masks[k];
		b->held[nodes[k]] |= masks[k];
		b->cpu[nodes[k]] += g->cpu_milli;
		b->mem[nodes[k]] += g->mem_mib;
	}
	return FW_OK;
}

/* CPU and memory node x has left for a task after the allocations read
 * so far (never below 0: a node's books never pass its capacity). */
static int64_t cpu_left(const struct build *b, int32_t x)
{
	return b->s->nodes[x].cpu_milli - b->cpu[x];
}

static int64_t mem_left(const struct build *b, int32_t x)
{
	return b->s->nodes[x].mem_mib - b->mem[x];
}

/* A task of g as Slurm runs it on each of the nodes: its CPU and memory
 * cut to what the jobs read before it leave there (the file comment). */
static void fit_task(const struct build *b, const int32_t *nodes, int n, struct fw_task_group *g)
{
	for (int k = 0; k < n; k++) {
		if (g->cpu_milli > cpu_left(b, nodes[k]))
			g->cpu_milli = cpu_left(b, nodes[k]);
		if (g->mem_mib > mem_left(b, nodes[k]))
			g->mem_mib = mem_left(b, nodes[k]);
	}
}

/* A running --exclusive job holds its nodes whole, though Slurm lists
 * only the GPUs it asked for: give it every GPU of each node that no job
 * read before holds, when that is as many on each node (a gang's tasks
 * are alike); else keep the GPUs Slurm lists. */
static bool whole_nodes(const struct build *b, const int32_t *nodes, int n, uint32_t *masks)
{
	uint32_t all[FW_SLURM_MAX_JOB_NODES];

	for (int k = 0; k < n; k++) {
		int gc = b->s->nodes[nodes[k]].gpu_count;
		all[k] = ((gc >= 32 ? 0u : 1u << gc) - 1u) & ~b->used[nodes[k]];
		if ((all[k] & masks[k]) != masks[k] || __builtin_popcount(all[k]) != __builtin_popcount(all[0]))
			return false;
	}
	memcpy(masks, all, (size_t)n * sizeof *masks);
	return true;
}

/* The GPU counts of a running job's nodes: Slurm may place --gpus=N
 * unevenly (8 and 4 of 12 on two nodes).  Into group[k] the group of
 * node k, one group per count in order of first sight; the groups'
 * count, or 0 for more than FW_MAX_GROUPS (read as foreign). */
static int gpu_groups(const uint32_t *masks, int n, int8_t *group, int *gpus)
{
	int ng = 0;

	for (int k = 0; k < n; k++) {
		int c = __builtin_popcount(masks[k]), g = 0;
		while (g < ng && gpus[g] != c)
			g++;
		if (g == ng && ng++ == FW_MAX_GROUPS)
			return 0;
		gpus[g] = c;
		group[k] = (int8_t)g;
	}
	return ng;
}

/* fj's one group as groups of the GPU counts its nodes hold. */
static void split_groups(const struct build *b, const int32_t *nodes, const int8_t *group, int n, const int *gpus,
			 int ng, struct fw_job *fj)
{
	int32_t on[FW_SLURM_MAX_JOB_NODES];

	for (int g = 0; g < ng; g++) {
		int m = 0;
		fj->groups[g] = fj->groups[0];
		fj->groups[g].gpus = gpus[g];
		for (int k = 0; k < n; k++)
			if (group[k] == g)
				on[m++] = nodes[k];
		fj->groups[g].count = m;
		fit_task(b, on, m, &fj->groups[g]);
	}
	fj->ngroups = ng;
}

static int add_running(struct build *b, const slurm_job_info_t *j, int32_t q,
		       const int32_t *nodes, uint32_t *masks, const int8_t *group, const int *gpus, int ng, int n)
{
	struct fw_job fj;
	int rc;

	job_common(b, j, q, &fj);
	job_shape(j, n, &fj);
	if (ng == 1 && exclusive(j) && whole_nodes(b, nodes, n, masks)) {
		fj.groups[0].cpu_milli = INT64_MAX / 4; /* cut to what is left: all */
		fj.groups[0].mem_mib = INT64_MAX / 4;
		fj.groups[0].gpus = __builtin_popcount(masks[0]);
		fit_task(b, nodes, n, &fj.groups[0]);
	} else {
		split_groups(b, nodes, group, n, gpus, ng, &fj);
	}
	fj.state = FW_JOB_RUNNING;
	fj.start_time = j->start_time && j->start_time <= b->s->now ? j->start_time : b->s->now;
	fj.alloc_first = b->s->nallocs;
	fj.alloc_count = n;
	if ((rc = add_allocs(b, nodes, masks, group, n, &fj)) != FW_OK)
		return rc;
	return fw_snapshot_add_job(b->s, &fj) < 0 ? FW_ENOMEM : FW_OK;
}

static int running_job(struct build *b, const slurm_job_info_t *j)
{
	int32_t nodes[FW_SLURM_MAX_JOB_NODES], q = queue_of(b, j);
	uint32_t masks[FW_SLURM_MAX_JOB_NODES];
	int8_t group[FW_SLURM_MAX_JOB_NODES];
	int gpus[FW_MAX_GROUPS + 1], ng = 0;
	int n = hosts(b, j->nodes, nodes, FW_SLURM_MAX_JOB_NODES);

	for (int k = 0; k < n && k < FW_SLURM_MAX_JOB_NODES; k++) {
		masks[k] = k < (int)j->gres_detail_cnt ? fw__gres_idx_mask(j->gres_detail_str[k]) : 0;
		if (nodes[k] < 0 || (b->held[nodes[k]] & masks[k]) || (masks[k] >> b->s->nodes[nodes[k]].gpu_count))
			q = -1; /* outside the managed nodes, GPUs a managed
				 * job holds already, or GPUs past the node's
				 * (one of more than 16) */
	}
	if (n > 0 && n <= FW_SLURM_MAX_JOB_NODES && (!distinct(b, nodes, n) || !(ng = gpu_groups(masks, n, group, gpus))))
		q = -1; /* a node twice, or more GPU counts than task groups */
	if (q < 0 || n == 0 || n > FW_SLURM_MAX_JOB_NODES) {
		skip(b, q < 0 && fw__slurm_managed(b->h, j->partition));
		mark_foreign(b, j);
		return FW_OK;
	}
	return add_running(b, j, q, nodes, masks, group, gpus, ng, n);
}

/* The lowest `want` GPUs of node x not taken yet, in *mask; false when
 * the node has fewer free. */
static bool free_gpus(const struct build *b, int32_t x, int want, uint32_t *mask)
{
	*mask = 0;
	for (int g = 0; g < b->s->nodes[x].gpu_count && want > 0; g++)
		if (!(b->used[x] & (1u << g))) {
			*mask |= 1u << g;
			want--;
		}
	return want == 0;
}

/* Released by fairway, not yet run by Slurm: it holds its ReqNodes. */
static int starting_job(struct build *b, const slurm_job_info_t *j, bool *placed)
{
	int32_t nodes[FW_SLURM_MAX_JOB_NODES], q = queue_of(b, j);
	uint32_t masks[FW_SLURM_MAX_JOB_NODES];
	struct fw_job probe;
	int n = hosts(b, j->req_nodes, nodes, FW_SLURM_MAX_JOB_NODES);

	*placed = false;
	if (q < 0 || n <= 0 || n > FW_SLURM_MAX_JOB_NODES || !distinct(b, nodes, n))
		return FW_OK;
	job_common(b, j, q, &probe);
	job_shape(j, n, &probe);
	if (exclusive(j) && !exclusive_shape(b, &probe.groups[0]))
		return FW_OK;
	/* a node taken out since (drained, down, reserved) never runs it:
	 * pending again, planned anew (its ReqNodes replaced by the start) */
	for (int k = 0; k < n; k++)
		if (nodes[k] < 0 || !b->s->nodes[nodes[k]].schedulable ||
		    !free_gpus(b, nodes[k], probe.groups[0].gpus, &masks[k]) ||
		    probe.groups[0].cpu_milli > cpu_left(b, nodes[k]) || probe.groups[0].mem_mib > mem_left(b, nodes[k]))
			return FW_OK;
	*placed = true;
	int8_t group[FW_SLURM_MAX_JOB_NODES];
	int gpus[FW_MAX_GROUPS + 1];
	int ng = gpu_groups(masks, n, group, gpus); /* one: as many GPUs on each */
	return add_running(b, j, q, nodes, masks, group, gpus, ng, n);
}

/* A managed job left out of the snapshot (enum fw__orphan_why says why:
 * fairway cannot place it, or Slurm would not run it yet), remembered so
 * that fw_slurm_annotate() says why in its comment.  The waiting kinds
 * are not counted as skipped. */
static int orphan(struct build *b, const slurm_job_info_t *j, enum fw__orphan_why why, int32_t n)
{
	struct fw_slurm *h = b->h;

	if (b->quiet)
		return FW_OK;
	skip(b, why < FW__ORPHAN_DEPENDENCY); /* the others wait, they are not skipped */
	if (h->norphans == h->cap_orphans) {
		int32_t cap = h->cap_orphans ? 2 * h->cap_orphans : 64;
		struct fw__orphan *p = realloc(h->orphans, (size_t)cap * sizeof *p);
		if (!p)
			return FW_ENOMEM;
		h->orphans = p;
		h->cap_orphans = cap;
	}
	h->orphans[h->norphans++] = (struct fw__orphan){ .job = j->job_id, .why = why, .n = n };
	return FW_OK;
}

/* Held: none of its managed partitions starts jobs now (st: the first
 * one's state), each of them named with its state for its comment, and
 * only them: `-p gpu,cpu` is held by gpu alone, which fairway manages. */
static int parts_down(struct build *b, const slurm_job_info_t *j, enum fw__part_state st)
{
	int32_t k = b->h->norphans;
	int rc = orphan(b, j, FW__ORPHAN_PART_DOWN, (int32_t)st);
	struct fw__orphan *o = rc == FW_OK && b->h->norphans > k ? &b->h->orphans[k] : NULL;

	if (o)
		o->m = fw__slurm_parts_held(b->h, j->partition, o->parts, sizeof o->parts);
	return rc;
}

/* A job no node is left for: by the reservations to come alone (filter.c
 * phase 5b: the first that took one of its nodes, by name, and how many
 * more did), or by what it asks. */
static int no_node(struct build *b, const slurm_job_info_t *j)
{
	int32_t more, r = fw__slurm_filter_reserved(b->filter, &more);
	struct fw__orphan *o;
	const char *nm;
	int rc;

	if (r < 0)
		return orphan(b, j, FW__ORPHAN_NO_NODE, 0);
	if ((rc = orphan(b, j, FW__ORPHAN_RESERVED, 0)) != FW_OK || b->quiet)
		return rc;
	o = &b->h->orphans[b->h->norphans - 1];
	o->m = more;
	nm = b->h->resv->reservation_array[r].name;
	snprintf(o->resv, sizeof o->resv, "%s", nm ? nm : "?");
	return FW_OK;
}

/* A -w job (filter.c): placeable when it asks as many nodes as the list
 * names (more would need nodes beside them, which a node filter cannot
 * say; fewer, which Slurm never reports, as it raises the count to the
 * list's, would leave a listed node out) and each of them qualifies (n
 * of them do). */
static int nodelist_placeable(struct build *b, const slurm_job_info_t *j, const char *w, int32_t n)
{
	int32_t named = fw__slurm_nodelist_count(w);
	int32_t asked = j->num_nodes && j->num_nodes != NO_VAL ? (int32_t)(j->num_nodes & INT32_MAX) : 1;

	if (named > 0 && asked != named)
		return orphan(b, j, FW__ORPHAN_NODELIST_COUNT, asked);
	if (named == 0 || n != named)
		return orphan(b, j, FW__ORPHAN_NODELIST, n);
	return 1;
}

/* A held job Slurm would not run yet (--begin, which Slurm reports as the
 * eligible time; its partitions DOWN, INACTIVE or gone, which the filter
 * gives no node), or that no node fairway may choose suits: released
 * anyway, it would sit on the nodes fairway chose (booked there in
 * fairway's books) until its begin time, or for ever.  Otherwise 1: the
 * filter knows the nodes it may start on (filter.c).  (A dependency is
 * another matter: Slurm does not evaluate it while the job is held; see
 * build_jobs.) */
static int not_placeable(struct build *b, const slurm_job_info_t *j)
{
	const char *w = fw__slurm_nodelist(j);
	enum fw__part_state st;
	int32_t n;

	if (j->eligible_time > b->s->now)
		return orphan(b, j, FW__ORPHAN_BEGIN, 0);
	if ((n = fw__slurm_filter_job(b->filter, j)) == FW__NODES_UNREAD)
		return orphan(b, j, FW__ORPHAN_CONSTRAINT, 0);
	if (n == 0 && (st = fw__slurm_parts_state(b->h, j->partition)) != FW__PART_UP)
		return parts_down(b, j, st); /* its partitions start no job */
	if (w) /* Slurm runs it on every node listed, and those only when
		* the count is the list's: a filter of exactly them */
		return nodelist_placeable(b, j, w, n == FW__NODES_ANY ? b->s->nnodes : n);
	if (n == 0)
		return no_node(b, j);
	return 1;
}

/* Add a pending job, restricted to the nodes not_placeable found. */
static int add_pending(struct build *b, const struct fw_job *fj)
{
	int x = fw_snapshot_add_job(b->s, fj);

	return x < 0 ? FW_ENOMEM : fw__slurm_filter_restrict(b->filter, x);
}

/* A held job's request as a pending snapshot job in *fj: 1, or what
 * orphan() returned when it is left out (not_placeable, the shapes the
 * core refuses). */
static int pending_shape(struct build *b, const slurm_job_info_t *j, struct fw_job *fj)
{
	int32_t q = queue_of(b, j);
	int tasks = j->num_nodes && j->num_nodes != NO_VAL ? (int)(j->num_nodes & INT32_MAX) : 1;
	int rc;

	if (q < 0)
		return orphan(b, j, FW__ORPHAN_NO_QUEUE, 0);
	if ((rc = not_placeable(b, j)) <= 0)
		return rc;
	if (j->num_nodes > FW_MAX_TASKS && j->num_nodes != NO_VAL)
		return orphan(b, j, FW__ORPHAN_NODES, (int32_t)(j->num_nodes & INT32_MAX));
	job_common(b, j, q, fj);
	job_shape(j, tasks, fj);
	if (exclusive(j) && !exclusive_shape(b, &fj->groups[0]))
		return orphan(b, j, FW__ORPHAN_EXCLUSIVE, 0);
	if (fj->groups[0].gpus > FW_MAX_GPUS_PER_NODE)
		return orphan(b, j, FW__ORPHAN_GPUS, fj->groups[0].gpus);
	if (fj->groups[0].gpus < 0)
		return orphan(b, j, FW__ORPHAN_GPU_FORM, 0);
	fj->state = FW_JOB_PENDING;
	return 1;
}

/* ------------------------------------------------------------ arrays */

static struct array_busy *array_of(struct build *b, uint32_t id)
{
	uint32_t k = (id * 2654435761u) & (b->arrays_cap - 1);

	while (b->arrays[k].id && b->arrays[k].id != id)
		k = (k + 1) & (b->arrays_cap - 1);
	b->arrays[k].id = id;
	return &b->arrays[k];
}

/* How many more of j's array's tasks may start: its %N throttle less
 * those running or about to; INT32_MAX without a throttle. */
static int32_t array_room(struct build *b, const slurm_job_info_t *j)
{
	int32_t busy = array_of(b, j->array_job_id)->busy;

	if (!j->array_max_tasks || j->array_max_tasks == NO_VAL)
		return INT32_MAX;
	return (int64_t)j->array_max_tasks > busy ? (int32_t)((int64_t)j->array_max_tasks - busy) : 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The n task ids, ascending and each once (a list Slurm would not send,
 * "0-2,1", names no task twice); returns how many are left. */
static int32_t distinct_tasks(uint32_t *ids, int32_t n)
{
	int32_t m = 0;

	qsort(ids, (size_t)n, sizeof *ids, u32_cmp);
	for (int32_t i = 0; i < n; i++)
		if (m == 0 || ids[m - 1] != ids[i])
			ids[m++] = ids[i];
	return m;
}

/* The meta record's pending tasks, one pending job "A_T" each: at most
 * the throttle's room and FW__ARRAY_TASKS_MAX a cycle (the rest, counted
 * skipped, waits for later cycles), all with the record's request and
 * node filter.  A task that has a record of its own already (Slurm never
 * lists it then) is that record's. */
static int pending_array(struct build *b, const slurm_job_info_t *j)
{
	uint32_t ids[FW__ARRAY_TASKS_MAX];
	int32_t listed = fw__array_tasks(j->array_task_str, ids, FW__ARRAY_TASKS_MAX);
	int32_t room = array_room(b, j), want = listed < room ? listed : room;
	int32_t n = distinct_tasks(ids, listed < FW__ARRAY_TASKS_MAX ? listed : FW__ARRAY_TASKS_MAX);
	struct array_busy *a = array_of(b, j->array_job_id);
	struct fw_job fj;
	int rc;

	if (listed == 0) /* none pending, or a list fairway does not read: said */
		return fw__set(j->array_task_str) ? orphan(b, j, FW__ORPHAN_ARRAY_LIST, 0) : FW_OK;
	if ((rc = pending_shape(b, j, &fj)) <= 0)
		return rc;
	if (room == 0)
		return orphan(b, j, FW__ORPHAN_THROTTLE, (int32_t)(j->array_max_tasks & INT32_MAX));
	skip(b, want > FW__ARRAY_TASKS_MAX ? want - FW__ARRAY_TASKS_MAX : 0);
	for (int32_t k = 0; k < want && k < n; k++) {
		if (fw__slurm_task(b->h, j->array_job_id, ids[k]))
			continue;
		snprintf(fj.name, sizeof fj.name, "%u_%u", j->array_job_id, ids[k]);
		if ((rc = add_pending(b, &fj)) != FW_OK)
			return rc;
		a->busy++;
	}
	return FW_OK;
}

/* ------------------------------------------------------------ het jobs */

/* Both unset, or both the same text. */
static bool same_text(const char *a, const char *b)
{
	return fw__set(a) ? fw__set(b) && !strcmp(a, b) : !fw__set(b);
}

/* Do the components ask alike what the queue and the topology rule are
 * made of (one queue for the job, one --switches)? */
static bool het_one_queue(slurm_job_info_t *const *c, int32_t n)
{
	for (int32_t k = 0; k < n; k++)
		if (!same_text(c[k]->account, c[0]->account) || c[k]->req_switch != c[0]->req_switch)
			return false;
	return true;
}

/* Do they ask alike where they may run, and none a -w (one node filter
 * for the job)?  If not, each component's filter goes to its task group:
 * a -w names the nodes of one component, as many as it asks. */
static bool het_one_filter(slurm_job_info_t *const *c, int32_t n)
{
	for (int32_t k = 0; k < n; k++)
		if (!same_text(c[k]->partition, c[0]->partition) || !same_text(c[k]->exc_nodes, c[0]->exc_nodes) ||
		    !same_text(c[k]->features, c[0]->features) || fw__slurm_nodelist(c[k]))
			return false;
	return true;
}

/* Add the merged job fj, each task group restricted to the nodes its
 * component may use (filter.c), or the whole job to the nodes they all
 * may use when they ask alike. */
static int add_het(struct build *b, const struct fw_job *fj, slurm_job_info_t *const *c, int32_t n)
{
	int x, rc = FW_OK;

	if (het_one_filter(c, n))
		return add_pending(b, fj); /* the filter answered for the last of them: for all */
	if ((x = fw_snapshot_add_job(b->s, fj)) < 0)
		return FW_ENOMEM;
	for (int32_t k = 0; k < n && rc == FW_OK; k++) {
		fw__slurm_filter_job(b->filter, c[k]); /* answered before (not_placeable): cached */
		rc = fw__slurm_filter_restrict_group(b->filter, x, (int)k);
	}
	return rc;
}

/* The components as one pending job in *fj: a group each, apart, with
 * the first one's name, queue and priority; the longest time limit (none
 * if one has none).  Returns the job's tasks. */
static int32_t het_merge(struct fw_job *fj, const struct fw_job *part, int32_t n)
{
	int32_t tasks = 0;

	*fj = part[0];
	fj->ngroups = (int)n;
	for (int32_t k = 0; k < n; k++) {
		fj->groups[k] = part[k].groups[0];
		fj->groups[k].apart = true;
		tasks += part[k].groups[0].count;
		if (part[k].expected_runtime <= 0 || fj->expected_runtime <= 0)
			fj->expected_runtime = 0;
		else if (part[k].expected_runtime > fj->expected_runtime)
			fj->expected_runtime = part[k].expected_runtime;
		if (part[k].submit_time < fj->submit_time)
			fj->submit_time = part[k].submit_time;
	}
	return tasks;
}

/* A waiting component j of a heterogeneous job (slurm_int.h).  Each
 * component answers for itself, from the same view of them all: held
 * with a comment when the job cannot be planned (its components cannot
 * be read, are more than FW_MAX_GROUPS, ask unlike accounts or
 * --switches, another one was released alone, or one of them is held for
 * a reason of its own); else the first of them adds the job, each group
 * with its component's node filter when they differ (add_het). */
static int pending_het(struct build *b, const slurm_job_info_t *j)
{
	slurm_job_info_t *c[FW__HET_MAX];
	struct fw_job part[FW_MAX_GROUPS], fj;
	int32_t listed, n = fw__het_waiting(b->h, j, c, FW__HET_MAX, &listed), self = -1, bad = -1, tasks;
	uint32_t partly;
	int rc;

	for (int32_t k = 0; k < n; k++)
		self = c[k] == j ? k : self;
	if (self < 0)
		return orphan(b, j, FW__ORPHAN_HET_SET, listed);
	if (n > FW_MAX_GROUPS)
		return orphan(b, j, FW__ORPHAN_HET_GROUPS, n);
	if (!het_one_queue(c, n))
		return orphan(b, j, FW__ORPHAN_HET_MIXED, 0);
	if ((partly = fw__het_released(b->h, j)) != 0)
		return orphan(b, j, FW__ORPHAN_HET_PARTLY, (int32_t)(partly & INT32_MAX));
	for (int32_t k = 0; k < n; k++) {
		if (k == self)
			continue;
		b->quiet = true;
		rc = pending_shape(b, c[k], &part[k]);
		b->quiet = false;
		if (rc < 0)
			return rc;
		if (rc == 0 && bad < 0)
			bad = k;
	}
	/* its own last: the filter then answers for it (for all, when alike) */
	if ((rc = pending_shape(b, j, &part[self])) <= 0)
		return rc;
	if (bad >= 0)
		return orphan(b, j, FW__ORPHAN_HET_OTHER, (int32_t)(c[bad]->job_id & INT32_MAX));
	if ((tasks = het_merge(&fj, part, n)) > FW_MAX_TASKS)
		return orphan(b, j, FW__ORPHAN_NODES, tasks);
	return self == 0 ? add_het(b, &fj, c, n) : FW_OK; /* the first component adds the job */
}

/* A held job; a task of an array with a record of its own (requeued)
 * only while the throttle has room. */
static int pending_job(struct build *b, const slurm_job_info_t *j)
{
	struct fw_job fj;
	int rc;

	if (fw__array_meta(j))
		return pending_array(b, j);
	if ((rc = pending_shape(b, j, &fj)) <= 0)
		return rc;
	if (fw__array_job(j) && !fw__job_released(j)) { /* a released task is
							   * counted busy already
							   * (count_busy): it keeps
							   * its place */
		if (array_room(b, j) == 0)
			return orphan(b, j, FW__ORPHAN_THROTTLE, (int32_t)(j->array_max_tasks & INT32_MAX));
		array_of(b, j->array_job_id)->busy++;
	}
	return add_pending(b, &fj);
}

/* The tasks of each array that run or are about to.  Slurm counts its
 * throttle against the tasks that run; a task fairway released and
 * Slurm has not run yet counts too, as fairway books its nodes for it
 * (and Slurm would hold it back, on those nodes, past the throttle). */
static void count_busy(struct build *b, const job_info_msg_t *m)
{
	for (uint32_t i = 0; i < m->record_count; i++) {
		const slurm_job_info_t *j = &m->job_array[i];
		if (fw__array_job(j) && j->array_task_id != NO_VAL && (fw__job_running(j) || fw__job_released(j)))
			array_of(b, j->array_job_id)->busy++;
	}
}

/* job_submit.lua and partitions= disagree on a pending job (fwslurm.h
 * fw_slurm_stats.unheld, .stray): counted, the first of each kept, for
 * the drivers to say once per change (warn.c fw_slurm_warn). */
static void note_hook(int32_t *n, uint32_t *first, char *part, size_t size, const slurm_job_info_t *j)
{
	if ((*n)++ == 0 || j->job_id < *first) {
		*first = j->job_id;
		snprintf(part, size, "%s", fw__set(j->partition) ? j->partition : "");
	}
}

static void hook_check(struct fw_slurm *h, const slurm_job_info_t *j, bool managed)
{
	struct fw_slurm_stats *st = &h->st;

	if (!fw__job_pending(j))
		return;
	if (managed && j->priority != 0 && !(j->req_nodes && *j->req_nodes) && !fw__set(j->resv_name))
		note_hook(&st->unheld, &st->unheld_job, st->unheld_part, sizeof st->unheld_part, j);
	else if (!managed && j->priority == 0 && fw__set(j->comment) && !strncmp(j->comment, "fairway: ", 9) &&
		 strncmp(j->comment, FW__USER_HOLD_MARK, strlen(FW__USER_HOLD_MARK))) /* a user's hold is the user's */
		note_hook(&st->stray, &st->stray_job, st->stray_part, sizeof st->stray_part, j);
}

static int build_jobs(struct build *b)
{
	const job_info_msg_t *m = b->h->jobs;
	int rc = FW_OK;

	b->h->st.unheld = b->h->st.stray = 0;
	count_busy(b, m);
	for (uint32_t i = 0; i < m->record_count && rc == FW_OK; i++)
		if (fw__job_running(&m->job_array[i]))
			rc = running_job(b, &m->job_array[i]);
	for (uint32_t i = 0; i < m->record_count && rc == FW_OK; i++) {
		const slurm_job_info_t *j = &m->job_array[i];
		bool placed = false, managed = fw__slurm_managed(b->h, j->partition);
		hook_check(b->h, j, managed);
		if (!fw__job_pending(j) || !managed)
			continue;
		/* It asks for a reservation (--reservation): its nodes and
		 * times are the admin's, and only Slurm admits a job to them
		 * (users, accounts, flags), so Slurm places it: released into
		 * it (fw_slurm_apply), not booked until it runs there. */
		if (fw__set(j->resv_name)) {
			rc = orphan(b, j, fw__job_held(j) ? FW__ORPHAN_TO_RESV : FW__ORPHAN_IN_RESV, 0);
			continue;
		}
		/* Released, its dependency unmet: Slurm runs it on its
		 * ReqNodes once the dependency is met (a held job's is not
		 * evaluated, so fairway releases it like any other).  Until
		 * then it is not booked there: its GPUs stay free for others,
		 * and if they are taken when it becomes eligible, it is
		 * planned again like a pending job. */
		if (fw__job_released(j) && fw__set(j->dependency)) {
			rc = orphan(b, j, FW__ORPHAN_DEPENDENCY, 0);
			continue;
		}
		/* Released, and Slurm holds it back by a limit of its own (an
		 * association's MaxJobs, a QOS's MaxTRESPerUser, ...): the
		 * same, so that its nodes do not sit idle, booked, while it
		 * waits for the limit. */
		if (fw__slurm_held_back(j)) {
			rc = orphan(b, j, FW__ORPHAN_SLURM_HOLD, (int32_t)j->state_reason);
			continue;
		}
		if (fw__job_released(j) && (rc = starting_job(b, j, &placed)) != FW_OK)
			break;
		if (!placed)
			rc = !fw__het_job(j)            ? pending_job(b, j)
			     : !fw__job_released(j) ? pending_het(b, j)
						    : orphan(b, j, FW__ORPHAN_HET_RELEASED, 0);
	}
	return rc;
}

int fw__slurm_build(struct fw_slurm *h, struct fw_snapshot *s,
		    struct fw_backend_world *w, struct fw_diag *d)
{
	uint32_t n = h->nodes->record_count;
	struct build b = { .h = h, .s = s };
	int rc = FW_ENOMEM;

	h->norphans = 0;
	if (fw__slurm_index(h) != FW_OK)
		return fw_diag_set(d, FW_ENOMEM, "slurm", 0, 0, "snapshot", "indexing the jobs: out of memory");
	for (b.arrays_cap = 16; b.arrays_cap < 2 * h->jobs->record_count; b.arrays_cap <<= 1)
		;
	b.arrays = calloc(b.arrays_cap, sizeof *b.arrays);
	b.node_of = malloc((n ? n : 1) * sizeof *b.node_of);
	b.used = calloc(n ? n : 1, sizeof *b.used);
	b.held = calloc(n ? n : 1, sizeof *b.held);
	b.cpu = calloc(n ? n : 1, sizeof *b.cpu);
	b.mem = calloc(n ? n : 1, sizeof *b.mem);
	b.seen = calloc(n ? n : 1, sizeof *b.seen);
	if (b.arrays && b.node_of && b.used && b.held && b.cpu && b.mem && b.seen) {
		for (uint32_t i = 0; i < n; i++)
			b.node_of[i] = -1;
		if ((rc = build_nodes(&b)) == FW_OK)
			rc = (b.filter = fw__slurm_filter_new(h, s, b.node_of)) ? build_jobs(&b) : FW_ENOMEM;
	}
	fw__slurm_filter_free(b.filter);
	free(b.node_of);
	free(b.used);
	free(b.held);
	free(b.cpu);
	free(b.mem);
	free(b.seen);
	free(b.arrays);
	if (rc != FW_OK)
		return fw_diag_set(d, rc, "slurm", 0, 0, "snapshot",
				   "building the snapshot failed: %s", fw_strerror(rc));
	h->st.skipped_jobs = b.skipped;
	h->st.skipped_nodes = b.skipped_nodes;
	w->generation = h->st.generation;
	w->skipped_jobs = b.skipped;
	return FW_OK;
}

int fw_slurm_read(struct fw_slurm *h, struct fw_snapshot *s,
		  struct fw_backend_world *w, struct fw_diag *d)
{
	int rc = fw__slurm_load(h, d);

	if (rc != FW_OK)
		return rc;
	rc = fw__slurm_build(h, s, w, d);
	h->read_gen = h->st.generation;
	if (rc == FW_OK && h->budget_read) { /* Slurm's GPU-hour budgets (usage.c) */
		int32_t kept, unmatched;
		fw__slurm_budget_note(h, s); /* before: s's queues have only their own */
		rc = fw_slurm_budget_apply(s, h->budgets, h->nbudgets, h->enforce_safe, &kept, &unmatched);
	}
	return rc;
}
