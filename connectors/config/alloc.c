/*
 * alloc.c — a job's state and, for running jobs, where its tasks run.
 *
 * state: pending (the default) or running.  Only a running job may carry
 * startTime (default: its submitTime) and allocation:, a list with one
 * entry per running task:
 *
 *   - {node: n001, group: 0, gpus: [0, 1, 2, 3]}   # gpuMilli: optional
 *
 * Every group runs all its tasks unless the job sets minMember, in which
 * case at least minMember tasks in total must be placed.  While reading the
 * entries the loader books them on per-node counters (allocated on the
 * first running job) so that a GPU holding more than 1000 milli or a node
 * whose running tasks exceed its CPU or memory is reported at the entry
 * that overflows it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliword.h"
#include "config_int.h"

static int alloc_gpus(struct cfg *c, const yaml_node_t *e, const char *path,
		      const struct fw_node *n, const struct fw_task_group *g,
		      uint32_t *mask)
{
	char fp[CFG_PATH], ip[CFG_PATH];
	yaml_node_t *seq;
	int64_t x;
	int rc = cfg_seq(c, e, path, "gpus", &seq);

	cfg_path(fp, path, "gpus");
	for (int i = 0; !rc && i < cfg_seq_len(seq); i++) {
		yaml_node_t *v = cfg_seq_at(c, seq, i);
		if ((rc = cfg_int_node(c, v, cfg_ipath(ip, fp, i), 0, 63, &x)))
			return rc;
		if (x >= n->gpu_count)
			return cfg_fail(c, v, FW_ERANGE, ip,
					"GPU index %lld is out of range; node "
					"\"%s\" has %d GPUs (indices 0 to %d)",
					(long long)x, n->name, n->gpu_count,
					n->gpu_count - 1);
		if (*mask & (1u << x))
			return cfg_fail(c, v, FW_EEXIST, ip,
					"GPU %lld is listed twice; list each "
					"GPU the task holds once",
					(long long)x);
		*mask |= 1u << x;
	}
	if (!rc && cfg_seq_len(seq) != g->gpus)
		return cfg_fail(c, seq ? seq : e, FW_EINVAL, fp,
				"the entry lists %d GPU%s but a task of this "
				"group holds %d; list exactly %d GPU indices",
				cfg_seq_len(seq), cfg_seq_len(seq) == 1 ? "" : "s",
				g->gpus, g->gpus);
	return rc;
}

static int ensure_books(struct cfg *c, const yaml_node_t *at)
{
	size_t n = (size_t)c->s->nnodes + 1;

	if (c->cpu_used)
		return FW_OK;
	c->gpu_used = calloc(n * FW_MAX_GPUS_PER_NODE, sizeof *c->gpu_used);
	c->cpu_used = calloc(n, sizeof *c->cpu_used);
	c->mem_used = calloc(n, sizeof *c->mem_used);
	if (c->gpu_used && c->cpu_used && c->mem_used)
		return FW_OK;
	return cfg_fail(c, at, FW_ENOMEM, "",
			"out of memory checking allocations");
}

/* Book one task of g as placed by a, or report what it overcommits.  The
 * books exist: load_allocs() called ensure_books(). */
static int book(struct cfg *c, const yaml_node_t *e, const char *path,
		const struct fw_task_alloc *a, const struct fw_task_group *g)
{
	const struct fw_node *n = &c->s->nodes[a->node];
	int32_t *gu = &c->gpu_used[(size_t)a->node * FW_MAX_GPUS_PER_NODE];
	int64_t cpu = c->cpu_used[a->node] + g->cpu_milli;
	int64_t mem = c->mem_used[a->node] + g->mem_mib;
	char fp[CFG_PATH];

	for (int b = 0; b < n->gpu_count; b++)
		if ((a->gpu_mask & (1u << b)) && gu[b] + a->gpu_milli > 1000)
			return cfg_fail(c, cfg_get(c, e, "gpus"), FW_EBUSY,
					cfg_path(fp, path, "gpus"),
					"GPU %d of node \"%s\" is already used "
					"by another running task (%d milli "
					"taken); give this task free GPUs",
					b, n->name, gu[b]);
	if (cpu > n->cpu_milli || mem > n->mem_mib)
		return cfg_fail(c, e, FW_EBUSY, path,
				"the running tasks on node \"%s\" need more "
				"%s than it has; move this task or raise the "
				"node's capacity",
				n->name, cpu > n->cpu_milli ? "CPU" : "memory");
	for (int b = 0; b < n->gpu_count; b++)
		if (a->gpu_mask & (1u << b))
			gu[b] += a->gpu_milli;
	c->cpu_used[a->node] = cpu;
	c->mem_used[a->node] = mem;
	return FW_OK;
}

static bool model_matches(const struct fw_node *n,
			  const struct fw_task_group *g)
{
	return !g->gpus || !g->gpu_model[0] ||
	       strcmp(n->gpu_model, g->gpu_model) == 0;
}

/* name's length without its trailing digits (the digits at name + it). */
static size_t stem(const char *name)
{
	size_t n = strlen(name);

	while (n && name[n - 1] >= '0' && name[n - 1] <= '9')
		n--;
	return n;
}

/* Do a and b name one number, zero padding aside ("0", "000"; "7", "007")? */
static bool same_number(const char *a, const char *b)
{
	a += strspn(a, "0");
	b += strspn(b, "0");
	return !strcmp(a, b);
}

/* The node name was probably meant to be: one with its stem and number
 * but another zero padding (nodeGroups pads the index: "n0" for "n000"),
 * else one of its number a typo away in the stem ("gpu_n1" for
 * "gpu-n1"; fw_cli_nearest_name): another number is another node, not a
 * typo.  NULL when none. */
static const char *near_node(const struct fw_snapshot *s, const char *name)
{
	size_t k = stem(name), n = 0;
	const char **names, *near;

	for (int32_t i = 0; name[k] && i < s->nnodes; i++) {
		const char *o = s->nodes[i].name;
		if (stem(o) == k && !strncmp(o, name, k) && o[k] && same_number(o + k, name + k))
			return o;
	}
	if (!(names = malloc(((size_t)s->nnodes + 1) * sizeof *names)))
		return NULL;
	for (int32_t i = 0; i < s->nnodes; i++) {
		const char *o = s->nodes[i].name;
		if (!o[stem(o)] == !name[k] && same_number(o + stem(o), name + k))
			names[n++] = o;
	}
	names[n] = NULL;
	near = fw_cli_nearest_name(name, names);
	free(names);
	return near;
}

static int alloc_node(struct cfg *c, const yaml_node_t *e, const char *path,
		      int32_t *node)
{
	const struct fw_snapshot *s = c->s;
	char fp[CFG_PATH], name[FW_NAME_MAX];
	yaml_node_t *v = cfg_get(c, e, "node");
	int rc = cfg_name_node(c, v, cfg_path(fp, path, "node"), name);

	if (rc)
		return rc;
	*node = nameix_find(&c->nodes, s->nodes, sizeof *s->nodes, name);
	if (*node >= 0)
		return FW_OK;
	const char *near = near_node(s, name);
	return cfg_fail(c, v, FW_ENOENT, fp,
			"unknown node \"%s\"%s%s%s; an allocation must name "
			"a node from nodes: or nodeGroups: (a group's nodes "
			"are namePrefix + the zero-padded index)",
			name, near ? " (did you mean \"" : "", near ? near : "",
			near ? "\"?)" : "");
}

static int load_alloc(struct cfg *c, const yaml_node_t *e, const char *path,
		      const struct fw_job *j, int32_t *placed)
{
	static const char *const keys[] = { "node", "gpus", "group",
					    "gpuMilli", NULL };
	struct fw_task_alloc a = { 0 };
	const struct fw_task_group *g;
	int32_t grp = 0;
	char fp[CFG_PATH];
	int rc;

	if ((rc = cfg_keys(c, e, path, keys)) ||
	    (rc = cfg_require(c, e, path, "node")) ||
	    (rc = alloc_node(c, e, path, &a.node)) ||
	    (rc = cfg_int32(c, e, path, "group", 0, j->ngroups - 1, &grp)))
		return rc;
	g = &j->groups[grp];
	a.group = (int16_t)grp;
	a.gpu_milli = g->gpu_milli;
	if (placed[grp] >= g->count)
		return cfg_fail(c, e, FW_ERANGE, path,
				"group %d has %d task(s) and all are already "
				"placed; remove this entry or raise "
				"tasks[%d].count",
				grp, g->count, grp);
	if ((rc = cfg_int32(c, e, path, "gpuMilli", 1, 1000, &a.gpu_milli)) ||
	    (rc = alloc_gpus(c, e, path, &c->s->nodes[a.node], g,
			     &a.gpu_mask)))
		return rc;
	if (!model_matches(&c->s->nodes[a.node], g))
		return cfg_fail(c, cfg_get(c, e, "node"), FW_EINVAL,
				cfg_path(fp, path, "node"),
				"node \"%s\" has gpuModel \"%s\" but the task "
				"wants \"%s\"; place it on a %s node",
				c->s->nodes[a.node].name,
				c->s->nodes[a.node].gpu_model, g->gpu_model,
				g->gpu_model);
	if ((rc = book(c, e, path, &a, g)))
		return rc;
	placed[grp]++;
	rc = fw_snapshot_add_alloc(c->s, &a);
	return rc < 0 ? cfg_fail(c, e, rc, path, "out of memory") : FW_OK;
}

static int check_placed(struct cfg *c, const yaml_node_t *seq,
			const char *fp, const struct fw_job *j,
			const int32_t *placed)
{
	int32_t total = 0;

	for (int g = 0; g < j->ngroups; g++) {
		total += placed[g];
		if (!j->min_member && placed[g] != j->groups[g].count)
			return cfg_fail(c, seq, FW_EINVAL, fp,
					"group %d has %d task(s) but the "
					"allocation places %d; give one entry "
					"per task (or set minMember)",
					g, j->groups[g].count, placed[g]);
	}
	if (total < j->min_member)
		return cfg_fail(c, seq, FW_EINVAL, fp,
				"the allocation places %d task(s), fewer than "
				"minMember (%d); add entries",
				total, j->min_member);
	return FW_OK;
}

static int load_allocs(struct cfg *c, const yaml_node_t *m, const char *path,
		       struct fw_job *j)
{
	int32_t placed[FW_MAX_GROUPS] = { 0 };
	char fp[CFG_PATH], ip[CFG_PATH];
	yaml_node_t *seq;
	int rc = cfg_seq(c, m, path, "allocation", &seq);

	cfg_path(fp, path, "allocation");
	if (!rc && !seq)
		return cfg_fail(c, cfg_get(c, m, "state"), FW_EINVAL, fp,
				"a running job needs an allocation, one entry "
				"per task; add e.g. allocation: [{node: n001, "
				"gpus: [0]}]");
	if (!rc)
		rc = ensure_books(c, seq);
	j->alloc_first = c->s->nallocs;
	for (int i = 0; !rc && i < cfg_seq_len(seq); i++)
		rc = load_alloc(c, cfg_seq_at(c, seq, i), cfg_ipath(ip, fp, i),
				j, placed);
	j->alloc_count = c->s->nallocs - j->alloc_first;
	return rc ? rc : check_placed(c, seq, fp, j, placed);
}

/* startTime outside submitTime .. now: name the bound it crosses (now,
 * or the caller's flag for it) and what to change. */
static int start_out_of_range(struct cfg *c, const yaml_node_t *m,
			      const char *path, const struct fw_job *j)
{
	char fp[CFG_PATH], at[CFG_TIME_TEXT], bound[CFG_TIME_TEXT];
	bool early = j->start_time < j->submit_time;

	return cfg_fail(c, cfg_get(c, m, "startTime"), FW_ERANGE,
			cfg_path(fp, path, "startTime"),
			"%s is %s%s (%s); a running job started between "
			"its submitTime and now, so %s%s",
			cfg_time_text(c, j->start_time, false, at, sizeof at),
			early ? "before submitTime" : "after ",
			early ? "" : cfg_now_name(c),
			cfg_time_text(c, early ? j->submit_time : c->s->now, true, bound, sizeof bound),
			early ? "raise startTime or lower submitTime"
			      : "lower startTime or raise ",
			early ? "" : cfg_now_name(c));
}

static int only_running(struct cfg *c, const yaml_node_t *m,
			const char *path, const char *key)
{
	char fp[CFG_PATH];

	if (!cfg_get(c, m, key))
		return FW_OK;
	return cfg_fail(c, cfg_get(c, m, key), FW_EINVAL,
			cfg_path(fp, path, key),
			"%s is only for running jobs; remove it or set "
			"state: running",
			key);
}

int cfg_job_state(struct cfg *c, const yaml_node_t *m, const char *path,
		  struct fw_job *j)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t = "pending";
	int rc = cfg_get_text(c, m, path, "state", fp, &v, &t);

	if (rc < 0)
		return rc;
	if (strcmp(t, "pending") == 0) {
		j->state = FW_JOB_PENDING;
		if ((rc = only_running(c, m, path, "startTime")))
			return rc;
		return only_running(c, m, path, "allocation");
	}
	if (strcmp(t, "running") != 0)
		return cfg_fail(c, v, FW_EINVAL, fp,
				"\"%s\" is not a job state; write pending or "
				"running",
				t);
	j->state = FW_JOB_RUNNING;
	j->start_time = j->submit_time;
	if ((rc = cfg_when(c, m, path, "startTime", &j->start_time)))
		return rc;
	if (j->start_time < j->submit_time || j->start_time > c->s->now)
		return start_out_of_range(c, m, path, j);
	return load_allocs(c, m, path, j);
}
