/*
 * queues.c — the queue tree (queues:).
 *
 * Three passes, so a queue may name a parent defined further down:
 *   1. each entry becomes a fw_queue (parent still -1), names are checked
 *      for duplicates;
 *   2. parent names are resolved to indices (unknown parent -> error at the
 *      parent value);
 *   3. the parent graph is checked for cycles in O(queues) with the usual
 *      three-colour walk, and leaf-ness is recorded for jobs.c.
 * Snapshot queue i is YAML entry queues[i].
 *
 * Units: resources.gpu in GPUs (fractions to 1/1000), cpu in cores (or
 * "500m"), memory in MiB or binary quantities; usage.gpuHours is stored as
 * GPU-seconds.  A limit of -1 (or no limit) is FW_UNLIMITED.
 * gpuModelLimits (a map of GPU model to GPUs) become snapshot.model_limits,
 * and gpuModelDeserved (the same map) snapshot.model_deserved, in file
 * order; a model that differs from a node's only by case is the fleet's
 * spelling ("h100" is H100, as a job's gpuModel), a model no node has is
 * an error (a misspelt model would limit or guarantee nothing), and so
 * are deserved GPUs of models that add up to more than the queue's quota.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliword.h"
#include "config_int.h"

_Static_assert(offsetof(struct fw_queue, name) == 0, "nameix needs name first");

/* The scalar text of map[key], or "0" when it is absent. */
static const char *text_or(const struct cfg *c, const yaml_node_t *map,
			   const char *key)
{
	yaml_node_t *v = cfg_get(c, map, key);

	if (!v || v->type != YAML_SCALAR_NODE)
		return "0";
	return (const char *)v->data.scalar.value;
}

static int load_resource(struct cfg *c, const yaml_node_t *res,
			 const char *path, int kind, struct fw_queue *q)
{
	static const char *const keys[] = { "quota", "limit",
					    "overQuotaWeight", NULL };
	static const char *const names[FW_RES_COUNT] = {
		[FW_RES_GPU] = "gpu", [FW_RES_CPU] = "cpu", [FW_RES_MEM] = "memory"
	};
	typedef int getter(struct cfg *, const yaml_node_t *, const char *,
			   const char *, bool, int64_t *);
	getter *get = kind == FW_RES_GPU   ? cfg_gpu
		      : kind == FW_RES_CPU ? cfg_cpu
					   : cfg_mib;
	yaml_node_t *m = cfg_get(c, res, names[kind]);
	char fp[CFG_PATH], lp[CFG_PATH];
	int rc;

	cfg_path(fp, path, names[kind]);
	if (!m)
		return FW_OK;
	if ((rc = cfg_keys(c, m, fp, keys)) ||
	    (rc = get(c, m, fp, "quota", false, &q->deserved.v[kind])) ||
	    (rc = get(c, m, fp, "limit", true, &q->limit.v[kind])) ||
	    (rc = cfg_double(c, m, fp, "overQuotaWeight", 1e6,
			     &q->over_quota_weight[kind])))
		return rc;
	if (q->limit.v[kind] != FW_UNLIMITED &&
	    q->limit.v[kind] < q->deserved.v[kind])
		return cfg_fail(c, cfg_get(c, m, "limit"), FW_ERANGE,
				cfg_path(lp, fp, "limit"),
				"limit (%s) is below quota (%s); raise limit "
				"to at least the quota, or use -1 for "
				"unlimited",
				text_or(c, m, "limit"), text_or(c, m, "quota"));
	return FW_OK;
}

/* A usage's `at` (in the mapping u at path) is no later than now: a
 * value decayed to a time to come would count usage not yet run. */
static int usage_at_past(struct cfg *c, const yaml_node_t *u, const char *path, fw_time at)
{
	char fp[CFG_PATH], a[CFG_TIME_TEXT], now[CFG_TIME_TEXT];

	if (at <= c->s->now)
		return FW_OK;
	return cfg_fail(c, cfg_get(c, u, "at"), FW_ERANGE, cfg_path(fp, path, "at"),
			"%s is after %s (%s); usage is what was used by "
			"then, so lower at (or leave it out: it defaults to "
			"%s) or raise %s",
			cfg_time_text(c, at, false, a, sizeof a), cfg_now_name(c),
			cfg_time_text(c, c->s->now, true, now, sizeof now), cfg_now_name(c), cfg_now_name(c));
}

static int load_usage(struct cfg *c, const yaml_node_t *m, const char *path,
		      struct fw_queue *q)
{
	static const char *const keys[] = { "gpuHours", "at", NULL };
	yaml_node_t *u = cfg_get(c, m, "usage");
	double hours = 0;
	char fp[CFG_PATH];
	int rc;

	q->usage_at = c->s->now;
	if (!u)
		return FW_OK;
	cfg_path(fp, path, "usage");
	if ((rc = cfg_keys(c, u, fp, keys)) ||
	    (rc = cfg_double(c, u, fp, "gpuHours", 1e9, &hours)) ||
	    (rc = cfg_when(c, u, fp, "at", &q->usage_at)) ||
	    (rc = usage_at_past(c, u, fp, q->usage_at)))
		return rc;
	q->usage = hours * 3600.0;
	return FW_OK;
}

/* A gpuModelLimits or gpuModelDeserved key (model, at kp) in the fleet's
 * spelling (fw_snapshot_gpu_model_spelling: "h100" is H100, as the
 * daemon's API takes it); a model no node has is refused naming the one
 * it is a typo of, when one is close, and the fleet's models. */
static int spell_model(struct cfg *c, const yaml_node_t *k, const char *kp, bool deserved, char *model)
{
	const char *sp = fw_snapshot_gpu_model_spelling(c->s, model), *names[32], *near;
	char list[256], hint[96] = "";

	if (sp) {
		memmove(model, sp, strlen(sp) + 1);
		return FW_OK;
	}
	fw_snapshot_gpu_model_names(c->s, names, 32);
	if ((near = fw_cli_nearest_name(model, names)))
		snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", near);
	fw_snapshot_gpu_models(c->s, list, sizeof list);
	return cfg_fail(c, k, FW_ENOENT, kp,
			"no node has GPU model \"%s\"%s, so this %s; fix the spelling (the nodes' models: %s)", model,
			hint, deserved ? "entry would guarantee nothing" : "limit would limit nothing",
			list[0] ? list : "none");
}

/* gpuModelLimits: {H100: 16, A100: 8}: GPUs of each model that queue qi
 * and the queues under it may hold (snapshot.model_limits).  With
 * `deserved`, gpuModelDeserved, the same map: the GPUs of each model
 * they deserve (snapshot.model_deserved), at most the queue's quota in
 * all. */
static int load_model_map(struct cfg *c, const yaml_node_t *m, const char *path, int32_t qi, bool deserved)
{
	const char *key = deserved ? "gpuModelDeserved" : "gpuModelLimits";
	yaml_node_t *l = cfg_get(c, m, key);
	char fp[CFG_PATH], kp[CFG_PATH], key_text[FW_NAME_MAX];
	int32_t first = deserved ? c->s->nmodel_deserved : c->s->nmodel_limits;
	int64_t sum = 0, quota = c->s->queues[qi].deserved.v[FW_RES_GPU];
	int rc;

	cfg_path(fp, path, key);
	if (!l)
		return FW_OK;
	if ((rc = cfg_want_map(c, l, fp)))
		return rc;
	for (yaml_node_pair_t *p = l->data.mapping.pairs.start; p < l->data.mapping.pairs.top; p++) {
		struct fw_model_limit ml = { .queue = qi };
		const struct fw_model_limit *tab = deserved ? c->s->model_deserved : c->s->model_limits;
		int32_t n = deserved ? c->s->nmodel_deserved : c->s->nmodel_limits;
		yaml_node_t *k = cfg_node(c, p->key);
		if ((rc = cfg_name_node(c, k, fp, ml.model)))
			return rc;
		cfg_path(kp, fp, ml.model);
		memcpy(key_text, ml.model, sizeof key_text); /* the map's key; ml.model the fleet's spelling */
		if ((rc = spell_model(c, k, kp, deserved, ml.model)))
			return rc;
		for (int32_t i = first; i < n; i++)
			if (strcmp(tab[i].model, ml.model) == 0)
				return cfg_fail(c, k, FW_EEXIST, kp, "GPU model \"%s\" is given twice%s%s%s; keep one",
						ml.model, strcmp(key_text, ml.model) ? " (as \"" : "",
						strcmp(key_text, ml.model) ? key_text : "",
						strcmp(key_text, ml.model) ? "\" too)" : "");
		if ((rc = cfg_gpu(c, l, fp, key_text, false, &ml.gpus)))
			return rc;
		sum += ml.gpus;
		rc = deserved ? fw_snapshot_add_model_deserved(c->s, &ml) : fw_snapshot_add_model_limit(c->s, &ml);
		if (rc < 0)
			return cfg_fail(c, l, FW_ENOMEM, fp, "out of memory adding a GPU model entry");
	}
	if (deserved && sum > quota)
		return cfg_fail(c, l, FW_ERANGE, fp,
				"the queue deserves %g GPUs of these models, more than its quota of %g GPUs "
				"(resources.gpu.quota); raise the quota or lower these",
				(double)sum / 1000, (double)quota / 1000);
	return FW_OK;
}

/* userUsage: {alice: {gpuHours: 120, at: 0}}: each user's decayed
 * usage in queue qi (snapshot.user_usage), as the queue's own usage. */
static int load_user_usage(struct cfg *c, const yaml_node_t *m, const char *path, int32_t qi)
{
	static const char *const keys[] = { "gpuHours", "at", NULL };
	yaml_node_t *l = cfg_get(c, m, "userUsage");
	char fp[CFG_PATH], kp[CFG_PATH];
	int32_t first = c->s->nuser_usage;
	int rc;

	cfg_path(fp, path, "userUsage");
	if (!l)
		return FW_OK;
	if ((rc = cfg_want_map(c, l, fp)))
		return rc;
	for (yaml_node_pair_t *p = l->data.mapping.pairs.start; p < l->data.mapping.pairs.top; p++) {
		struct fw_user_usage u = { .queue = qi, .usage_at = c->s->now };
		yaml_node_t *k = cfg_node(c, p->key), *v = cfg_node(c, p->value);
		double hours = 0;
		if ((rc = cfg_name_node(c, k, fp, u.user)))
			return rc;
		cfg_path(kp, fp, u.user);
		for (int32_t i = first; i < c->s->nuser_usage; i++)
			if (strcmp(c->s->user_usage[i].user, u.user) == 0)
				return cfg_fail(c, k, FW_EEXIST, kp, "user \"%s\" is given twice; keep one", u.user);
		if ((rc = cfg_want_map(c, v, kp)) || (rc = cfg_keys(c, v, kp, keys)) ||
		    (rc = cfg_double(c, v, kp, "gpuHours", 1e9, &hours)) || (rc = cfg_when(c, v, kp, "at", &u.usage_at)) ||
		    (rc = usage_at_past(c, v, kp, u.usage_at)))
			return rc;
		u.usage = hours * 3600.0;
		if (fw_snapshot_add_user_usage(c->s, &u) < 0)
			return cfg_fail(c, l, FW_ENOMEM, fp, "out of memory adding a user's usage");
	}
	return FW_OK;
}

/* A queue's quota, limit or overQuotaWeight written on the queue itself
 * (as KAI's flat queue fields read), where the schema has it per
 * resource: refused with where it goes, rather than as an unknown key. */
static int misplaced_resource_key(struct cfg *c, const yaml_node_t *m, const char *path)
{
	static const char *const flat[] = { "quota", "limit", "overQuotaWeight", NULL };
	char fp[CFG_PATH];

	for (int i = 0; flat[i]; i++) {
		const yaml_node_t *k = cfg_get_key(c, m, flat[i]);
		if (k)
			return cfg_fail(c, k, FW_EINVAL, cfg_path(fp, path, flat[i]),
					"a queue's %s is given per resource, under "
					"resources; write it as resources: {gpu: {%s: %s}} "
					"(and cpu, memory likewise)",
					flat[i], flat[i], text_or(c, m, flat[i]));
	}
	return FW_OK;
}

static int load_queue(struct cfg *c, const yaml_node_t *m, const char *path)
{
	static const char *const keys[] = { "name",	 "parent", "priority",
					    "resources", "usage",  "minRuntime",
					    "defaultRuntime", "maxRuntime", "defaultCheckpointInterval", "preemptible",
					    "gpuModelLimits", "gpuModelDeserved", "userUsage", "gpuHourBudget", NULL };
	static const char *const rkeys[] = { "gpu", "cpu", "memory", NULL };
	struct fw_snapshot *s = c->s;
	yaml_node_t *res;
	struct fw_queue q;
	char fp[CFG_PATH], rp[CFG_PATH];
	int32_t dup;
	bool pre = true;
	int rc;

	fw_queue_init(&q);
	cfg_path(rp, path, "resources");
	if ((m && m->type == YAML_MAPPING_NODE && (rc = misplaced_resource_key(c, m, path))) ||
	    (rc = cfg_keys(c, m, path, keys)) ||
	    (rc = cfg_require(c, m, path, "name")) ||
	    (rc = cfg_ident(c, m, path, "name", q.name)) ||
	    (rc = cfg_int32(c, m, path, "priority", INT32_MIN, INT32_MAX,
			    &q.priority)) ||
	    (rc = cfg_time(c, m, path, "minRuntime", &q.min_runtime_s)) ||
	    (rc = cfg_time(c, m, path, "defaultRuntime", &q.default_runtime_s)) ||
	    (rc = cfg_time(c, m, path, "maxRuntime", &q.max_runtime_s)) ||
	    (rc = cfg_time(c, m, path, "defaultCheckpointInterval", &q.default_checkpoint_s)) ||
	    (rc = cfg_double(c, m, path, "gpuHourBudget", FW_BUDGET_MAX_GPU_H, &q.gpu_hour_budget)) ||
	    (rc = cfg_bool(c, m, path, "preemptible", &pre)))
		return rc;
	q.nonpreemptible = !pre;
	res = cfg_get(c, m, "resources");
	if (res && (rc = cfg_keys(c, res, rp, rkeys)))
		return rc;
	for (int k = 0; k < FW_RES_COUNT; k++)
		if ((rc = load_resource(c, res, rp, k, &q)))
			return rc;
	if ((rc = load_usage(c, m, path, &q)))
		return rc;
	dup = nameix_find(&c->queues, s->queues, sizeof *s->queues, q.name);
	if (dup >= 0)
		return cfg_fail(c, cfg_get(c, m, "name"), FW_EEXIST,
				cfg_path(fp, path, "name"),
				"queue name \"%s\" is already used (first "
				"defined at line %d); rename one of them",
				q.name, cfg_line(cfg_origin(c, "queues", dup)));
	int32_t qi = rc = fw_snapshot_add_queue(s, &q);
	if (rc >= 0)
		rc = nameix_add(&c->queues, s->queues, sizeof *s->queues, rc);
	if (rc < 0)
		return cfg_fail(c, m, rc, path, "out of memory adding a queue");
	if ((rc = load_model_map(c, m, path, qi, false)) || (rc = load_model_map(c, m, path, qi, true)))
		return rc;
	return load_user_usage(c, m, path, qi);
}

static int link_parent(struct cfg *c, const yaml_node_t *m, const char *path,
		       int32_t qi)
{
	struct fw_snapshot *s = c->s;
	char fp[CFG_PATH], name[FW_NAME_MAX], list[256];
	yaml_node_t *v = cfg_get(c, m, "parent");
	int32_t p;
	int rc;

	if (!v)
		return FW_OK;
	cfg_path(fp, path, "parent");
	if ((rc = cfg_name_node(c, v, fp, name)))
		return rc;
	p = nameix_find(&c->queues, s->queues, sizeof *s->queues, name);
	if (p < 0) {
		cfg_join(list, sizeof list, s->queues, sizeof *s->queues,
			 s->nqueues, 8);
		return cfg_fail(c, v, FW_ENOENT, fp,
				"unknown parent queue \"%s\"; define a queue "
				"with that name or fix the spelling (queues: "
				"%s)",
				name, list);
	}
	s->queues[qi].parent = p;
	return FW_OK;
}

/* Report the cycle through queue q: "a -> b -> a". */
static int report_cycle(struct cfg *c, const yaml_node_t *seq, int32_t q)
{
	const struct fw_snapshot *s = c->s;
	char chain[256], fp[CFG_PATH], ip[CFG_PATH];
	size_t used = 0;
	int32_t k = q;

	chain[0] = 0;
	do {
		int r = snprintf(chain + used, sizeof chain - used, "%s -> ",
				 s->queues[k].name);
		if (r > 0 && (size_t)r < sizeof chain - used)
			used += (size_t)r;
		k = s->queues[k].parent;
	} while (k != q);
	snprintf(chain + used, sizeof chain - used, "%s", s->queues[q].name);
	cfg_path(fp, cfg_ipath(ip, "queues", q), "parent");
	return cfg_fail(c, cfg_get(c, cfg_seq_at(c, seq, q), "parent"),
			FW_ELOOP, fp,
			"queue \"%s\" is its own ancestor (%s); break the "
			"cycle by making one of these queues top-level or "
			"giving it another parent",
			s->queues[q].name, chain);
}

/* colour: 0 unvisited, 1 on the current path, 2 known acyclic. */
static int check_cycles(struct cfg *c, const yaml_node_t *seq, char *colour)
{
	const struct fw_snapshot *s = c->s;

	for (int32_t q = 0; q < s->nqueues; q++) {
		int32_t k = q;
		while (k >= 0 && colour[k] == 0) {
			colour[k] = 1;
			k = s->queues[k].parent;
		}
		if (k >= 0 && colour[k] == 1)
			return report_cycle(c, seq, k);
		for (k = q; k >= 0 && colour[k] == 1; k = s->queues[k].parent)
			colour[k] = 2;
	}
	return FW_OK;
}

static int link_tree(struct cfg *c, const yaml_node_t *seq)
{
	struct fw_snapshot *s = c->s;
	char ip[CFG_PATH], *colour;
	int rc = FW_OK;

	for (int i = 0; !rc && i < s->nqueues; i++)
		rc = link_parent(c, cfg_seq_at(c, seq, i),
				 cfg_ipath(ip, "queues", i), i);
	if (rc)
		return rc;
	colour = calloc((size_t)s->nqueues + 1, 1);
	c->queue_has_child = calloc((size_t)s->nqueues + 1, sizeof(bool));
	if (!colour || !c->queue_has_child)
		rc = cfg_fail(c, seq, FW_ENOMEM, "queues",
			      "out of memory checking the queue tree");
	else
		rc = check_cycles(c, seq, colour);
	free(colour);
	for (int i = 0; !rc && i < s->nqueues; i++)
		if (s->queues[i].parent >= 0)
			c->queue_has_child[s->queues[i].parent] = true;
	return rc;
}

int cfg_load_queues(struct cfg *c, const yaml_node_t *root)
{
	char ip[CFG_PATH];
	yaml_node_t *seq;
	int rc = cfg_seq(c, root, "", "queues", &seq);

	for (int i = 0; !rc && i < cfg_seq_len(seq); i++)
		rc = load_queue(c, cfg_seq_at(c, seq, i),
				cfg_ipath(ip, "queues", i));
	if (!rc && seq)
		rc = link_tree(c, seq);
	return rc;
}
