/*
 * jobs.c — jobs:, their task groups and running jobs' allocations.
 *
 * A job is a gang of 1..FW_MAX_GROUPS task groups on one leaf queue.  A task
 * asks for whole GPUs (gpus: N) or a fraction of one GPU (gpu: 0.5, stored
 * as gpus = 1, gpu_milli = 500); gpu: with a whole number is the same as
 * gpus:.  One task of every group must fit some node's capacity (GPU
 * count, CPU, memory; cordons and bad GPUs are transient and ignored), or
 * the job could never run and the config is rejected.  A gpuModel no node
 * has is allowed: the plan reports it as a reason to wait.
 *
 * A running job lists one allocation entry per running task ({node, group,
 * gpus: [indices]}).  Entries are checked against the node (GPU indices,
 * model) and against each other: no GPU carries more than 1000 milli, and no
 * node's CPU or memory is overcommitted.  A job's allocations are contiguous
 * in snapshot.allocs (alloc_first, alloc_count).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"

_Static_assert(offsetof(struct fw_job, name) == 0, "nameix needs name first");

static void cores(char *out, size_t n, int64_t milli)
{
	if (milli % 1000)
		snprintf(out, n, "%lld.%03lld", (long long)(milli / 1000),
			 (long long)(milli % 1000));
	else
		snprintf(out, n, "%lld", (long long)(milli / 1000));
}

/* MiB as the largest exact binary unit: "1Ti", "80Gi", "100Mi". */
static void mib(char *out, size_t n, int64_t v)
{
	if (v && v % (1024 * 1024) == 0)
		snprintf(out, n, "%lldTi", (long long)(v / (1024 * 1024)));
	else if (v && v % 1024 == 0)
		snprintf(out, n, "%lldGi", (long long)(v / 1024));
	else
		snprintf(out, n, "%lldMi", (long long)v);
}

static int task_gpu(struct cfg *c, const yaml_node_t *m, const char *path,
		    struct fw_task_group *g)
{
	char fp[CFG_PATH];
	int64_t milli = -1;
	int rc = cfg_gpu(c, m, path, "gpu", false, &milli);

	if (rc || milli < 0)
		return rc;
	cfg_path(fp, path, "gpu");
	if (cfg_get(c, m, "gpus"))
		return cfg_fail(c, cfg_get(c, m, "gpu"), FW_EINVAL, fp,
				"both gpus and gpu are set; use gpus for whole "
				"GPUs per task or gpu for a fraction of one");
	if (milli > 0 && milli < 1000) {
		g->gpus = 1;
		g->gpu_milli = (int32_t)milli;
	} else if (milli % 1000 == 0 && milli / 1000 <= FW_MAX_GPUS_PER_NODE) {
		g->gpus = (int32_t)(milli / 1000);
	} else {
		return cfg_fail(c, cfg_get(c, m, "gpu"), FW_ERANGE, fp,
				"a task may hold a fraction of one GPU (below "
				"1) or up to %d whole GPUs; use gpu: 0.5 or "
				"gpus: N",
				FW_MAX_GPUS_PER_NODE);
	}
	return FW_OK;
}

/* gpus: a whole number of GPUs.  A fraction there ("gpus: 0.5") is
 * refused naming gpu:, the member that asks for a fraction of one GPU,
 * rather than with the plain "write an integer". */
static int task_gpus(struct cfg *c, const yaml_node_t *m, const char *path,
		     struct fw_task_group *g)
{
	char fp[CFG_PATH], *end = NULL;
	yaml_node_t *v;
	const char *t;
	int rc = cfg_get_text(c, m, path, "gpus", fp, &v, &t);
	double x = rc > 0 ? strtod(t, &end) : 0;
	bool part = rc > 0 && end != t && !*end && x > 0 && x < 1e6 &&
		    x != (double)(int64_t)x;

	if (part && x < 1)
		return cfg_fail(c, v, FW_EINVAL, fp,
				"\"%s\" is not a whole number of GPUs; for a "
				"fraction of one GPU write gpu: %s in place of "
				"gpus (fractions from 0.001 to 1; docs/config.md)",
				t, t);
	if (part)
		return cfg_fail(c, v, FW_EINVAL, fp,
				"\"%s\" is not a whole number of GPUs; a task "
				"holds whole GPUs (gpus: N) or a fraction of one "
				"(gpu: 0.5, docs/config.md)",
				t);
	if (rc < 0)
		return rc;
	return cfg_int32(c, m, path, "gpus", 0, FW_MAX_GPUS_PER_NODE,
			 &g->gpus);
}

static bool node_fits(const struct fw_node *n, const struct fw_task_group *g)
{
	return g->gpus <= n->gpu_count && g->cpu_milli <= n->cpu_milli &&
	       g->mem_mib <= n->mem_mib;
}

/* The largest capacities over all nodes. */
struct fit_max {
	int32_t gpus;
	int64_t cpu, mem;
};

static int fit_error(struct cfg *c, const yaml_node_t *m, const char *path,
		     const struct fw_task_group *g, const struct fit_max *x)
{
	char fp[CFG_PATH], a[32], b[32];
	const char *gk = cfg_get(c, m, "gpu") ? "gpu" : "gpus";

	if (!c->s->nnodes)
		return cfg_fail(c, m, FW_EINVAL, path,
				"a task needs resources but the config has no "
				"nodes; add nodes: or nodeGroups:");
	if (g->gpus > x->gpus)
		return cfg_fail(c, cfg_get(c, m, gk), FW_ERANGE,
				cfg_path(fp, path, gk),
				"a task needs %d GPUs but the largest node has "
				"%d; lower %s, split the task, or add bigger "
				"nodes",
				g->gpus, x->gpus, gk);
	if (g->cpu_milli > x->cpu) {
		cores(a, sizeof a, g->cpu_milli);
		cores(b, sizeof b, x->cpu);
		if (!x->cpu) /* a node's cpu defaults to 0 */
			return cfg_fail(c, cfg_get(c, m, "cpu"), FW_ERANGE,
					cfg_path(fp, path, "cpu"),
					"a task needs %s core%s but the nodes "
					"have no `cpu` set (a node's cpu is 0 "
					"without it); set cpu: N in nodeGroups "
					"(or nodes) or drop the task's cpu",
					a, strcmp(a, "1") ? "s" : "");
		return cfg_fail(c, cfg_get(c, m, "cpu"), FW_ERANGE,
				cfg_path(fp, path, "cpu"),
				"a task needs %s core%s but the largest node "
				"has %s; lower cpu or add bigger nodes",
				a, strcmp(a, "1") ? "s" : "", b);
	}
	if (g->mem_mib > x->mem) {
		mib(a, sizeof a, g->mem_mib);
		mib(b, sizeof b, x->mem);
		if (!x->mem) /* a node's memory defaults to 0 */
			return cfg_fail(c, cfg_get(c, m, "memory"), FW_ERANGE,
					cfg_path(fp, path, "memory"),
					"a task needs %s of memory but the nodes "
					"have no `memory` set (a node's memory "
					"is 0 without it); set memory: N in "
					"nodeGroups (or nodes) or drop the "
					"task's memory",
					a);
		return cfg_fail(c, cfg_get(c, m, "memory"), FW_ERANGE,
				cfg_path(fp, path, "memory"),
				"a task needs %s of memory but the largest "
				"node has %s; lower memory or add bigger "
				"nodes",
				a, b);
	}
	cores(a, sizeof a, g->cpu_milli);
	mib(b, sizeof b, g->mem_mib);
	return cfg_fail(c, m, FW_ERANGE, path,
			"no single node has %d GPUs, %s cores and %s memory at "
			"once; shrink the task or add a node with all three",
			g->gpus, a, b);
}

/* Fail unless some node's capacity can hold one task of g.  The GPU model
 * is not checked: a model no node has is a reason to wait (gpu_model in
 * the plan), not a malformed config. */
static int check_fit(struct cfg *c, const yaml_node_t *m, const char *path,
		     const struct fw_task_group *g)
{
	const struct fw_snapshot *s = c->s;
	struct fit_max x = { -1, -1, -1 };

	if (c->fit_hint < s->nnodes && node_fits(&s->nodes[c->fit_hint], g))
		return FW_OK;
	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		if (node_fits(n, g)) {
			c->fit_hint = i;
			return FW_OK;
		}
		x.gpus = n->gpu_count > x.gpus ? n->gpu_count : x.gpus;
		x.cpu = n->cpu_milli > x.cpu ? n->cpu_milli : x.cpu;
		x.mem = n->mem_mib > x.mem ? n->mem_mib : x.mem;
	}
	return fit_error(c, m, path, g, &x);
}

static int load_task_group(struct cfg *c, const yaml_node_t *m,
			   const char *path, struct fw_task_group *g)
{
	static const char *const keys[] = { "count",  "gpus",	  "gpu", "cpu",
					    "memory", "gpuModel", "nodeSelector", "slice", NULL };
	int rc;

	memset(g, 0, sizeof *g);
	g->count = 1;
	g->gpu_milli = 1000;
	if ((rc = cfg_keys(c, m, path, keys)) ||
	    (rc = cfg_int32(c, m, path, "count", 1, CFG_MAX_TASKS,
			    &g->count)) ||
	    (rc = task_gpus(c, m, path, g)) ||
	    (rc = task_gpu(c, m, path, g)) ||
	    (rc = cfg_cpu(c, m, path, "cpu", false, &g->cpu_milli)) ||
	    (rc = cfg_mib(c, m, path, "memory", false, &g->mem_mib)) ||
	    (rc = cfg_name(c, m, path, "gpuModel", g->gpu_model)))
		return rc;
	if (!g->gpus && !g->cpu_milli && !g->mem_mib) /* as the API's check_asks */
		return cfg_fail(c, m, FW_EINVAL, path,
				"asks for nothing; give gpus, cpu or memory "
				"(a task of nothing would hold its place for "
				"ever)");
	return check_fit(c, m, path, g);
}

static int load_tasks(struct cfg *c, const yaml_node_t *m, const char *path,
		      struct fw_job *j)
{
	char fp[CFG_PATH], ip[CFG_PATH];
	yaml_node_t *seq;
	int n, rc = cfg_seq(c, m, path, "tasks", &seq);

	cfg_path(fp, path, "tasks");
	n = cfg_seq_len(seq);
	if (!rc && (n < 1 || n > FW_MAX_GROUPS))
		return cfg_fail(c, seq, FW_ERANGE, fp,
				"%d task groups given; a job has 1 to %d, "
				"merge groups with the same shape",
				n, FW_MAX_GROUPS);
	for (int i = 0; !rc && i < n; i++)
		rc = load_task_group(c, cfg_seq_at(c, seq, i),
				     cfg_ipath(ip, fp, i), &j->groups[i]);
	j->ngroups = n;
	return rc;
}

static int job_queue(struct cfg *c, const yaml_node_t *m, const char *path,
		     struct fw_job *j)
{
	const struct fw_snapshot *s = c->s;
	char fp[CFG_PATH], name[FW_NAME_MAX], list[256];
	yaml_node_t *v = cfg_get(c, m, "queue");
	int rc = cfg_name_node(c, v, cfg_path(fp, path, "queue"), name);

	if (rc)
		return rc;
	j->queue = nameix_find(&c->queues, s->queues, sizeof *s->queues, name);
	if (j->queue < 0 && !s->nqueues)
		return cfg_fail(c, v, FW_ENOENT, fp,
				"unknown queue \"%s\": no queues are defined; "
				"add a queues: list with a queue named \"%s\"",
				name, name);
	if (j->queue < 0) {
		cfg_join(list, sizeof list, s->queues, sizeof *s->queues,
			 s->nqueues, 8);
		return cfg_fail(c, v, FW_ENOENT, fp,
				"unknown queue \"%s\"; use a leaf queue "
				"defined under queues: (%s)",
				name, list);
	}
	if (c->queue_has_child[j->queue]) {
		int k = 0;
		while (s->queues[k].parent != j->queue)
			k++;
		return cfg_fail(c, v, FW_EINVAL, fp,
				"queue \"%s\" has child queues (e.g. \"%s\"); "
				"jobs must be submitted to a leaf queue",
				name, s->queues[k].name);
	}
	return FW_OK;
}

static int job_topology(struct cfg *c, const yaml_node_t *m, const char *path,
			struct fw_job *j)
{
	static const char *const keys[] = { "required", "preferred", NULL };
	yaml_node_t *t = cfg_get(c, m, "topology");
	char fp[CFG_PATH];
	int rc;

	if (!t)
		return FW_OK;
	cfg_path(fp, path, "topology");
	if ((rc = cfg_keys(c, t, fp, keys)) ||
	    (rc = cfg_level_ref(c, t, fp, "required", &j->required_level)))
		return rc;
	return cfg_level_ref(c, t, fp, "preferred", &j->preferred_level);
}

static int job_fields(struct cfg *c, const yaml_node_t *m, const char *path,
		      struct fw_job *j)
{
	int rc;

	if ((rc = cfg_ident(c, m, path, "name", j->name)) ||
	    (rc = job_queue(c, m, path, j)) ||
	    (rc = cfg_name(c, m, path, "user", j->user)) ||
	    (rc = cfg_int32(c, m, path, "priority", INT32_MIN, INT32_MAX,
			    &j->priority)) ||
	    (rc = cfg_bool(c, m, path, "preemptible", &j->preemptible)) ||
	    (rc = cfg_bool(c, m, path, "spread", &j->spread)) ||
	    (rc = cfg_when(c, m, path, "submitTime", &j->submit_time)) ||
	    (rc = cfg_time(c, m, path, "expectedRuntime",
			   &j->expected_runtime)) ||
	    (rc = cfg_time32(c, m, path, "checkpointInterval",
			     &j->checkpoint_s)) ||
	    (rc = cfg_time32(c, m, path, "maxRuntime", &j->max_runtime_s)) ||
	    (rc = load_tasks(c, m, path, j)) ||
	    (rc = cfg_int32(c, m, path, "minMember", 0, fw_job_tasks(j),
			    &j->min_member)))
		return rc;
	if (j->submit_time > c->s->now) {
		char fp[CFG_PATH], at[CFG_TIME_TEXT], now[CFG_TIME_TEXT];
		return cfg_fail(c, cfg_get(c, m, "submitTime"), FW_ERANGE,
				cfg_path(fp, path, "submitTime"),
				"%s is after %s (%s); a snapshot holds the "
				"jobs submitted by now, so lower submitTime or "
				"raise %s",
				cfg_time_text(c, j->submit_time, false, at, sizeof at), cfg_now_name(c),
				cfg_time_text(c, c->s->now, true, now, sizeof now), cfg_now_name(c));
	}
	return job_topology(c, m, path, j);
}

static int add_job(struct cfg *c, const yaml_node_t *m, const char *path,
		   const struct fw_job *j)
{
	struct fw_snapshot *s = c->s;
	int32_t dup = nameix_find(&c->jobs, s->jobs, sizeof *s->jobs, j->name);
	char fp[CFG_PATH];
	int rc;

	if (dup >= 0)
		return cfg_fail(c, cfg_get(c, m, "name"), FW_EEXIST,
				cfg_path(fp, path, "name"),
				"job name \"%s\" is already used (first "
				"defined at line %d); rename one of them",
				j->name, cfg_line(cfg_origin(c, "jobs", dup)));
	rc = fw_snapshot_add_job(s, j);
	if (rc >= 0)
		rc = nameix_add(&c->jobs, s->jobs, sizeof *s->jobs, rc);
	if (rc < 0)
		return cfg_fail(c, m, rc, path, "out of memory adding a job");
	return FW_OK;
}

/* nodeSelector: {key: value, ...} into sel; its pair count, or a negative
 * fw_err (the loader's message set). */
static int selector_pairs(struct cfg *c, yaml_node_t *l, const char *fp, struct fw_label *sel)
{
	char kp[CFG_PATH];
	int n = 0, rc;

	if ((rc = cfg_want_map(c, l, fp)))
		return rc;
	if (l->data.mapping.pairs.top - l->data.mapping.pairs.start > FW_MAX_LABELS)
		return cfg_fail(c, l, FW_ERANGE, fp, "%d labels at most, as a node has", FW_MAX_LABELS);
	for (yaml_node_pair_t *p = l->data.mapping.pairs.start; p < l->data.mapping.pairs.top; p++, n++) {
		yaml_node_t *v = cfg_node(c, p->value);
		memset(&sel[n], 0, sizeof sel[n]);
		if ((rc = cfg_name_node(c, cfg_node(c, p->key), fp, sel[n].key)))
			return rc;
		cfg_path(kp, fp, sel[n].key);
		for (int i = 0; i < n; i++)
			if (!strcmp(sel[i].key, sel[n].key))
				return cfg_fail(c, cfg_node(c, p->key), FW_EEXIST, kp,
						"label \"%s\" is given twice; keep one", sel[n].key);
		if ((rc = cfg_label_value(c, v, kp, sel[n].value)))
			return rc;
	}
	return n;
}

/* The nodes the nodeSelector at l (path fp) meets, into a malloc'd
 * *nodes (*n of them; the pairs in sel, *nsel of them, 0: an empty
 * selector, no list), FW_OK; or the loader's error: a selector no node
 * meets is one, since `what` (the job, or its task group) could never
 * start. */
static int selected(struct cfg *c, yaml_node_t *l, const char *fp, const char *what, struct fw_label *sel,
		    int *nsel, int32_t **nodes, int32_t *n)
{
	*nodes = NULL;
	*n = 0;
	if ((*nsel = selector_pairs(c, l, fp, sel)) <= 0)
		return *nsel;
	if (!(*nodes = malloc(((size_t)c->s->nnodes + 1) * sizeof **nodes)))
		return cfg_fail(c, l, FW_ENOMEM, fp, "out of memory");
	for (int32_t i = 0; i < c->s->nnodes; i++)
		if (fw_node_has_labels(&c->s->nodes[i], sel, *nsel))
			(*nodes)[(*n)++] = i;
	if (*n > 0)
		return FW_OK;
	free(*nodes);
	*nodes = NULL;
	return cfg_fail(c, l, FW_ENOENT, fp,
			"no node has all these labels (%s: %s%s), so %s could never start; "
			"label a node so under nodes: (labels:), or change nodeSelector",
			sel[0].key, sel[0].value[0] ? sel[0].value : "\"\"", *nsel > 1 ? ", ..." : "", what);
}

/* Restrict job (group < 0) or its task group to the n nodes listed
 * (ascending): as the list of the nodes left out when that is shorter (an
 * except entry: a selector most of 10,000 nodes meet costs the few it
 * does not), else as the list itself; the new entry's index or an
 * fw_err. */
static int restrict_shorter(struct cfg *c, int32_t job, int group, const int32_t *nodes, int32_t n)
{
	int32_t nn = c->s->nnodes, m = 0, k = 0, *out;
	int rc;

	if (n == nn || n <= nn - n)
		return group < 0 ? fw_snapshot_restrict_job(c->s, job, nodes, n)
				 : fw_snapshot_restrict_group(c->s, job, group, nodes, n, 0);
	if (!(out = malloc((size_t)(nn - n) * sizeof *out)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < nn; i++) {
		if (k < n && nodes[k] == i)
			k++;
		else
			out[m++] = i;
	}
	rc = group < 0 ? fw_snapshot_restrict_job_except(c->s, job, out, m)
		       : fw_snapshot_restrict_group(c->s, job, group, out, m, 1);
	free(out);
	return rc;
}

/* nodeSelector, as Kubernetes reads it: the job may start only on nodes
 * whose labels hold every pair.  Resolved here into the snapshot's node
 * filter for job (just added); a job with the previous job's selector
 * shares its list.  A selector no node meets is an error: the job could
 * never start. */
static int job_selector(struct cfg *c, const yaml_node_t *m, const char *path, int32_t job)
{
	yaml_node_t *l = cfg_get(c, m, "nodeSelector");
	struct fw_label sel[FW_MAX_LABELS];
	char fp[CFG_PATH];
	int32_t *nodes, n;
	int nsel, rc;

	if (!l)
		return FW_OK;
	cfg_path(fp, path, "nodeSelector");
	if ((rc = selected(c, l, fp, "the job", sel, &nsel, &nodes, &n)) != FW_OK || nsel == 0)
		return rc;
	if (c->sel_entry >= 0 && nsel == c->nsel && !memcmp(sel, c->sel, (size_t)nsel * sizeof *sel)) {
		free(nodes);
		rc = fw_snapshot_restrict_job_as(c->s, job, c->sel_entry);
		return rc < 0 ? cfg_fail(c, l, rc, fp, "out of memory") : FW_OK;
	}
	rc = restrict_shorter(c, job, -1, nodes, n);
	free(nodes);
	if (rc < 0)
		return cfg_fail(c, l, rc, fp, "out of memory");
	memcpy(c->sel, sel, (size_t)nsel * sizeof *sel);
	c->nsel = nsel;
	c->sel_entry = rc;
	return FW_OK;
}

/* A task group's own nodeSelector (tasks[i].nodeSelector): its tasks
 * start only on nodes that meet it, and the job's, when it has one too
 * (a group filter, snapshot.h: a leader on one kind of node, workers on
 * another).  A selector no node meets is an error, as the job's.  A
 * group with the last group selector's pairs shares its list (jobs
 * alike then share a shape in the cycle). */
static int group_selectors(struct cfg *c, const yaml_node_t *m, const char *path, int32_t job)
{
	char fp[CFG_PATH], ip[CFG_PATH], sp[CFG_PATH];
	struct fw_label sel[FW_MAX_LABELS];
	yaml_node_t *seq = cfg_get(c, m, "tasks");
	int n = cfg_seq_len(seq), nsel, rc = FW_OK;

	cfg_path(fp, path, "tasks");
	for (int i = 0; rc == FW_OK && i < n; i++) {
		yaml_node_t *l = cfg_get(c, cfg_seq_at(c, seq, i), "nodeSelector");
		int32_t *nodes, k;
		if (!l)
			continue;
		cfg_path(sp, cfg_ipath(ip, fp, i), "nodeSelector");
		if ((rc = selected(c, l, sp, "this task group", sel, &nsel, &nodes, &k)) != FW_OK || nsel == 0)
			continue;
		if (c->gsel_entry >= 0 && nsel == c->ngsel && !memcmp(sel, c->gsel, (size_t)nsel * sizeof *sel)) {
			rc = fw_snapshot_restrict_group_like(c->s, job, i, c->gsel_entry);
		} else if ((rc = restrict_shorter(c, job, i, nodes, k)) >= 0) {
			memcpy(c->gsel, sel, (size_t)nsel * sizeof *sel);
			c->ngsel = nsel;
			c->gsel_entry = rc;
		}
		free(nodes);
		rc = rc < 0 ? cfg_fail(c, l, rc, sp, "out of memory") : FW_OK;
	}
	return rc;
}

/* A task group's slices (tasks[i].slice: {size: N, required: LEVEL}): its
 * tasks in runs of N, each inside one domain of LEVEL (snapshot.h
 * "Slices": a model replica's ranks inside one NVLink domain).  A size
 * that does not divide count is an error at its line, and so is a slice
 * no domain of the level could ever hold (the job would wait forever). */
static int group_slices(struct cfg *c, const yaml_node_t *m, const char *path, int32_t job)
{
	static const char *const keys[] = { "size", "required", NULL };
	char fp[CFG_PATH], ip[CFG_PATH], sp[CFG_PATH], zp[CFG_PATH];
	yaml_node_t *seq = cfg_get(c, m, "tasks");
	int n = cfg_seq_len(seq), rc = FW_OK;

	cfg_path(fp, path, "tasks");
	for (int i = 0; rc == FW_OK && i < n; i++) {
		yaml_node_t *l = cfg_get(c, cfg_seq_at(c, seq, i), "slice");
		const struct fw_task_group *g = &c->s->jobs[job].groups[i];
		int32_t size = 0;
		int8_t level = FW_LEVEL_NONE;
		if (!l)
			continue;
		cfg_path(sp, cfg_ipath(ip, fp, i), "slice");
		cfg_path(zp, sp, "size");
		if ((rc = cfg_keys(c, l, sp, keys)) || (rc = cfg_require(c, l, sp, "size")) ||
		    (rc = cfg_require(c, l, sp, "required")) ||
		    (rc = cfg_int32(c, l, sp, "size", 1, CFG_MAX_TASKS, &size)) ||
		    (rc = cfg_level_ref(c, l, sp, "required", &level)))
			return rc;
		if (g->count % size != 0)
			return cfg_fail(c, cfg_get(c, l, "size"), FW_EINVAL, zp,
					"slices of %d tasks for a group of %d; make count a multiple of size",
					(int)size, (int)g->count);
		int64_t room = fw_snapshot_domain_room(c->s, g, level, NULL);
		if (room >= 0 && room < size)
			return cfg_fail(c, cfg_get(c, l, "size"), FW_ERANGE, zp,
					"a slice of %d tasks must fit inside one %s, and the largest %s holds %lld "
					"of these tasks (by its GPUs); lower size or name a larger level",
					(int)size, level == FW_LEVEL_NODE ? "node" : c->s->topology.level[level],
					level == FW_LEVEL_NODE ? "node" : c->s->topology.level[level], (long long)room);
		if ((rc = fw_snapshot_slice_group(c->s, job, i, size, level)) < 0)
			return cfg_fail(c, l, rc, sp, "out of memory");
		rc = FW_OK;
	}
	return rc;
}

static int load_job(struct cfg *c, const yaml_node_t *m, const char *path)
{
	static const char *const keys[] = {
		"name",	      "queue",		 "user",       "priority",
		"preemptible", "submitTime",	 "expectedRuntime",
		"minMember",  "spread",		 "tasks",      "topology",
		"state",      "startTime",	 "allocation", "checkpointInterval",
		"nodeSelector", "maxRuntime", NULL
	};
	struct fw_job j;
	int rc;

	fw_job_init(&j);
	j.preemptible = FW_JOB_PREEMPTIBLE_DEFAULT;
	if ((rc = cfg_keys(c, m, path, keys)) ||
	    (rc = cfg_require(c, m, path, "name")) ||
	    (rc = cfg_require(c, m, path, "queue")) ||
	    (rc = cfg_require(c, m, path, "tasks")) ||
	    (rc = job_fields(c, m, path, &j)) ||
	    (rc = cfg_job_state(c, m, path, &j)) ||
	    (rc = add_job(c, m, path, &j)) ||
	    (rc = job_selector(c, m, path, c->s->njobs - 1)))
		return rc;
	if ((rc = group_selectors(c, m, path, c->s->njobs - 1)))
		return rc;
	return group_slices(c, m, path, c->s->njobs - 1);
}

int cfg_load_jobs(struct cfg *c, const yaml_node_t *root)
{
	char ip[CFG_PATH];
	yaml_node_t *seq;
	int rc = cfg_seq(c, root, "", "jobs", &seq);

	c->sel_entry = -1;
	c->gsel_entry = -1;
	for (int i = 0; !rc && i < cfg_seq_len(seq); i++)
		rc = load_job(c, cfg_seq_at(c, seq, i),
			      cfg_ipath(ip, "jobs", i));
	return rc;
}
