/*
 * nodes.c — nodes: and nodeGroups:.
 *
 * Snapshot node order is the order of the file: every entry of nodes:, then
 * each nodeGroups: entry's generated nodes in turn.  A group is a template
 * node (the same keys as a node, minus name and badGpus) plus count,
 * namePrefix and start; node i of a group is named
 *
 *   namePrefix + zero-padded decimal(start + i)
 *
 * padded to the width of start + count - 1, at least 3 digits ("n000").
 * Its topology comes from the group's generator (see topology.c).  Node
 * names are unique across both lists; a clash points at the later entry
 * and says where the first one was defined.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config_int.h"
#include "fwconfig.h"

_Static_assert(offsetof(struct fw_node, name) == 0, "nameix needs name first");

static int node_labels(struct cfg *c, const yaml_node_t *m, const char *path,
		       struct fw_node *n)
{
	yaml_node_t *l = cfg_get(c, m, "labels");
	char fp[CFG_PATH], kp[CFG_PATH];
	int rc;

	cfg_path(fp, path, "labels");
	if (!l)
		return FW_OK;
	if ((rc = cfg_want_map(c, l, fp)))
		return rc;
	if (l->data.mapping.pairs.top - l->data.mapping.pairs.start >
	    FW_MAX_LABELS)
		return cfg_fail(c, l, FW_ERANGE, fp,
				"too many labels; a node may have at most %d",
				FW_MAX_LABELS);
	for (yaml_node_pair_t *p = l->data.mapping.pairs.start;
	     p < l->data.mapping.pairs.top; p++) {
		struct fw_label *lab = &n->labels[n->nlabels];
		yaml_node_t *v = cfg_node(c, p->value);
		if ((rc = cfg_name_node(c, cfg_node(c, p->key), fp, lab->key)))
			return rc;
		cfg_path(kp, fp, lab->key);
		for (int i = 0; i < n->nlabels; i++)
			if (strcmp(n->labels[i].key, lab->key) == 0)
				return cfg_fail(c, cfg_node(c, p->key),
						FW_EEXIST, kp,
						"label \"%s\" is given twice; "
						"keep one",
						lab->key);
		if ((rc = cfg_label_value(c, v, kp, lab->value)))
			return rc;
		n->nlabels++;
	}
	return FW_OK;
}

/* health: healthy | suspect | unhealthy | draining (fairway/health.h). */
static int node_health(struct cfg *c, const yaml_node_t *m, const char *path,
		       struct fw_node *n)
{
	char name[FW_NAME_MAX] = "", fp[CFG_PATH];
	int rc = cfg_name(c, m, path, "health", name), h;

	if (rc || !name[0])
		return rc;
	if ((h = fw_health_from_name(name)) < 0)
		return cfg_fail(c, cfg_get(c, m, "health"), FW_EINVAL,
				cfg_path(fp, path, "health"),
				"unknown health \"%s\"; use healthy, suspect, "
				"unhealthy or draining", name);
	n->health = (enum fw_health)h;
	return FW_OK;
}

static int node_common(struct cfg *c, const yaml_node_t *m, const char *path,
		       struct fw_node *n)
{
	int rc;

	if ((rc = cfg_int32(c, m, path, "gpus", 0, FW_MAX_GPUS_PER_NODE,
			    &n->gpu_count)) ||
	    (rc = cfg_name(c, m, path, "gpuModel", n->gpu_model)) ||
	    (rc = cfg_mib(c, m, path, "gpuMemory", false, &n->gpu_mem_mib)) ||
	    (rc = cfg_cpu(c, m, path, "cpu", false, &n->cpu_milli)) ||
	    (rc = cfg_mib(c, m, path, "memory", false, &n->mem_mib)) ||
	    (rc = cfg_bool(c, m, path, "schedulable", &n->schedulable)) ||
	    (rc = cfg_bool(c, m, path, "lemon", &n->lemon)) ||
	    (rc = node_health(c, m, path, n)))
		return rc;
	return node_labels(c, m, path, n);
}

/* A list of GPU indices (badGpus, suspectGpus) into *mask. */
static int node_gpu_list(struct cfg *c, const yaml_node_t *m,
			 const char *path, const char *key, struct fw_node *n,
			 uint32_t *mask)
{
	char fp[CFG_PATH], ip[CFG_PATH];
	yaml_node_t *seq;
	int64_t g;
	int rc = cfg_seq(c, m, path, key, &seq);

	cfg_path(fp, path, key);
	for (int i = 0; !rc && i < cfg_seq_len(seq); i++) {
		yaml_node_t *v = cfg_seq_at(c, seq, i);
		cfg_ipath(ip, fp, i);
		if (n->gpu_count == 0)
			return cfg_fail(c, v, FW_ERANGE, ip,
					"this node has no GPUs (gpus: 0), so "
					"none can be listed; remove %s or "
					"set gpus", key);
		if ((rc = cfg_int_node(c, v, ip, 0, n->gpu_count - 1, &g)))
			return rc;
		if (*mask & (1u << g))
			return cfg_fail(c, v, FW_EEXIST, ip,
					"GPU %lld is listed twice; list each "
					"GPU once",
					(long long)g);
		*mask |= 1u << g;
	}
	return rc;
}

static int node_bad_gpus(struct cfg *c, const yaml_node_t *m,
			 const char *path, struct fw_node *n)
{
	int rc = node_gpu_list(c, m, path, "badGpus", n, &n->bad_gpu_mask);

	if (!rc)
		rc = node_gpu_list(c, m, path, "suspectGpus", n,
				   &n->suspect_gpu_mask);
	return rc;
}

/* Append n; at/fp locate the YAML that named it, hint says how to fix a
 * clash. */
static int add_node(struct cfg *c, const struct fw_node *n,
		    const yaml_node_t *at, const char *fp, const char *hint)
{
	struct fw_snapshot *s = c->s;
	int32_t dup = nameix_find(&c->nodes, s->nodes, sizeof *s->nodes,
				  n->name);
	int idx;

	if (dup >= 0)
		return cfg_fail(c, at, FW_EEXIST, fp,
				"node name \"%s\" is already used (first "
				"defined at line %d); node names must be "
				"unique%s",
				n->name, cfg_line(cfg_origin(c, "nodes", dup)),
				hint);
	if (s->nnodes >= FW_CONFIG_MAX_NODES)
		return cfg_fail(c, at, FW_ERANGE, fp,
				"more than %d nodes; a config may describe at "
				"most that many, remove some",
				FW_CONFIG_MAX_NODES);
	idx = fw_snapshot_add_node(s, n);
	if (idx >= 0)
		idx = nameix_add(&c->nodes, s->nodes, sizeof *s->nodes, idx);
	if (idx < 0)
		return cfg_fail(c, at, idx, fp, "out of memory adding a node");
	return FW_OK;
}

static int load_node(struct cfg *c, const yaml_node_t *m, const char *path)
{
	static const char *const keys[] = {
		"name",	  "gpus",	 "gpuModel", "gpuMemory", "cpu",
		"memory", "schedulable", "badGpus",  "topology",  "labels",
		"health", "suspectGpus", "lemon", NULL
	};
	struct fw_node n;
	char fp[CFG_PATH];
	int rc;

	fw_node_init(&n);
	if ((rc = cfg_keys(c, m, path, keys)) ||
	    (rc = cfg_require(c, m, path, "name")) ||
	    (rc = cfg_ident(c, m, path, "name", n.name)) ||
	    (rc = node_common(c, m, path, &n)) ||
	    (rc = node_bad_gpus(c, m, path, &n)) ||
	    (rc = cfg_node_topology(c, m, path, &n)))
		return rc;
	return add_node(c, &n, cfg_get(c, m, "name"),
			cfg_path(fp, path, "name"), "; rename one of them");
}

int cfg_load_nodes(struct cfg *c, const yaml_node_t *root)
{
	char ip[CFG_PATH];
	yaml_node_t *seq;
	int rc = cfg_seq(c, root, "", "nodes", &seq);

	for (int i = 0; !rc && i < cfg_seq_len(seq); i++)
		rc = load_node(c, cfg_seq_at(c, seq, i),
			       cfg_ipath(ip, "nodes", i));
	return rc;
}

static int digits(int64_t v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Generate the group's nodes from template t. */
static int expand_group(struct cfg *c, const yaml_node_t *m, const char *path,
			const struct fw_node *t, const struct cfg_gen *g,
			const char *prefix, int64_t start, int64_t count)
{
	int width = digits(start + count - 1);
	yaml_node_t *at = cfg_get(c, m, "namePrefix");
	char fp[CFG_PATH];
	struct fw_node n;
	int rc = FW_OK;

	width = width < 3 ? 3 : width;
	cfg_path(fp, path, at ? "namePrefix" : "count");
	at = at ? at : cfg_get(c, m, "count");
	if (strlen(prefix) + (size_t)width >= FW_NAME_MAX)
		return cfg_fail(c, at, FW_ERANGE, fp,
				"generated names would be longer than %d "
				"bytes; shorten namePrefix",
				FW_NAME_MAX - 1);
	n = *t;
	if (cfg_gen_path(c, g, start + count - 1, &n))
		return cfg_fail(c, cfg_get(c, m, "topology"), FW_ERANGE,
				path, "generated domain names would be longer "
				"than %d bytes; shorten topology.prefix",
				FW_NAME_MAX - 1);
	for (int64_t i = 0; !rc && i < count; i++) {
		n = *t;
		/* lengths were checked above, for the longest name */
		if (snprintf(n.name, sizeof n.name, "%s%0*lld", prefix, width,
			     (long long)(start + i)) < 0 ||
		    cfg_gen_path(c, g, start + i, &n))
			return cfg_fail(c, at, FW_ERANGE, fp, "name overflow");
		rc = add_node(c, &n, at, fp, ": change namePrefix or start");
	}
	return rc;
}

static int load_group(struct cfg *c, const yaml_node_t *m, const char *path)
{
	static const char *const keys[] = {
		"count",  "namePrefix", "start",       "gpus",
		"gpuModel", "gpuMemory", "cpu",	       "memory",
		"schedulable", "topology", "labels",    "health", "lemon", NULL
	};
	char prefix[FW_NAME_MAX] = "node";
	int64_t count = 0, start = 0;
	struct fw_node t;
	struct cfg_gen g;
	int rc;

	fw_node_init(&t);
	if ((rc = cfg_keys(c, m, path, keys)) ||
	    (rc = cfg_require(c, m, path, "count")) ||
	    (rc = cfg_int(c, m, path, "count", 1, FW_CONFIG_MAX_NODES,
			  &count)) ||
	    (rc = cfg_int(c, m, path, "start", 0, 1000000000, &start)) ||
	    (rc = cfg_ident(c, m, path, "namePrefix", prefix)) ||
	    (rc = node_common(c, m, path, &t)) ||
	    (rc = cfg_group_topology(c, m, path, &g)))
		return rc;
	if (c->s->nnodes + count > FW_CONFIG_MAX_NODES) {
		char fp[CFG_PATH];
		return cfg_fail(c, cfg_get(c, m, "count"), FW_ERANGE,
				cfg_path(fp, path, "count"),
				"this group would bring the config to %lld "
				"nodes; the limit is %d, lower count",
				(long long)(c->s->nnodes + count),
				FW_CONFIG_MAX_NODES);
	}
	return expand_group(c, m, path, &t, &g, prefix, start, count);
}

int cfg_load_node_groups(struct cfg *c, const yaml_node_t *root)
{
	char ip[CFG_PATH];
	yaml_node_t *seq;
	int rc = cfg_seq(c, root, "", "nodeGroups", &seq);

	for (int i = 0; !rc && i < cfg_seq_len(seq); i++)
		rc = load_group(c, cfg_seq_at(c, seq, i),
				cfg_ipath(ip, "nodeGroups", i));
	return rc;
}
