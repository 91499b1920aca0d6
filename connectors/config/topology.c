/*
 * topology.c — topology levels, node domain maps, the nodeGroups domain
 * generator and job topology constraints.
 *
 * topology.levels names the levels from the largest domain to the smallest
 * ("block", "rack", "nvlink"); "node" is reserved for the implicit level
 * below them, which is how a job asks for a single node.  Every node names
 * its domain at every level, either explicitly (nodes[].topology) or through
 * a nodeGroups generator that numbers domains by node ordinal:
 *
 *   domain(level l, node k) = prefix[l] + decimal(k / nodesPer[l])
 *
 * where k = start + i counts the group's nodes and prefix[l] defaults to the
 * level's name (so "rack0", "rack1", ...).  nodesPer of a larger level must
 * be a multiple of the next smaller one, so domains nest as a tree.
 */
#include <stdio.h>
#include <string.h>

#include "cliword.h"
#include "config_int.h"
#include "fwconfig.h"

#define LEVEL_STRIDE FW_NAME_MAX

static void level_list(const struct cfg *c, char *out, size_t n)
{
	cfg_join(out, n, c->s->topology.level, LEVEL_STRIDE,
		 c->s->topology.nlevels, FW_MAX_LEVELS);
}

/* " (did you mean \"rack\"?)" into hint when name is a typo of a level
 * of topology.levels or "node", whatever its case; "" otherwise. */
static const char *level_hint(const struct cfg *c, const char *name, char *hint, size_t n)
{
	const char *names[FW_MAX_LEVELS + 2], *near;

	fw_topology_level_names(&c->s->topology, names);
	hint[0] = '\0';
	if ((near = fw_cli_nearest_name(name, names)))
		snprintf(hint, n, " (did you mean \"%s\"?)", near);
	return hint;
}

static int add_level(struct cfg *c, const yaml_node_t *item, const char *fp)
{
	struct fw_topology *t = &c->s->topology;
	char *name = t->level[t->nlevels];
	int rc = cfg_name_node(c, item, fp, name);

	if (rc)
		return rc;
	if (strcmp(name, "node") == 0)
		return cfg_fail(c, item, FW_EINVAL, fp,
				"\"node\" is reserved for the node itself; "
				"name the level differently (e.g. \"host\")");
	for (int i = 0; i < t->nlevels; i++)
		if (strcmp(t->level[i], name) == 0)
			return cfg_fail(c, item, FW_EEXIST, fp,
					"level \"%s\" is listed twice; level "
					"names must be unique",
					name);
	t->nlevels++;
	return FW_OK;
}

int cfg_load_topology(struct cfg *c, const yaml_node_t *root)
{
	static const char *const keys[] = { "levels", NULL };
	yaml_node_t *t = cfg_get(c, root, "topology"), *seq;
	char fp[CFG_PATH];
	int rc;

	if (!t)
		return FW_OK;
	if ((rc = cfg_keys(c, t, "topology", keys)) ||
	    (rc = cfg_seq(c, t, "topology", "levels", &seq)))
		return rc;
	if (cfg_seq_len(seq) > FW_MAX_LEVELS)
		return cfg_fail(c, seq, FW_ERANGE, "topology.levels",
				"%d levels given; at most %d are supported, "
				"drop or merge levels",
				cfg_seq_len(seq), FW_MAX_LEVELS);
	for (int i = 0; i < cfg_seq_len(seq); i++) {
		rc = add_level(c, cfg_seq_at(c, seq, i),
			       cfg_ipath(fp, "topology.levels", i));
		if (rc)
			return rc;
	}
	return FW_OK;
}

/* The level index named by key node k of a topology map; reports unknown
 * and repeated levels.  seen[] tracks levels already named. */
static int map_level(struct cfg *c, const yaml_node_t *k, const char *path,
		     bool *seen, int *lvl)
{
	char fp[CFG_PATH], list[256], hint[96];
	const char *name;
	int rc = cfg_scalar(c, k, path, &name);

	if (rc)
		return rc;
	cfg_path(fp, path, name);
	*lvl = fw_snapshot_find_level(c->s, name);
	if (*lvl < 0) {
		level_list(c, list, sizeof list);
		return cfg_fail(c, k, FW_EINVAL, fp,
				"unknown topology level \"%s\"%s; the levels "
				"declared in topology.levels are: %s",
				name, level_hint(c, name, hint, sizeof hint), list);
	}
	if (seen[*lvl])
		return cfg_fail(c, k, FW_EEXIST, fp,
				"level \"%s\" appears twice; name each level "
				"once",
				name);
	seen[*lvl] = true;
	return FW_OK;
}

static int missing_levels(struct cfg *c, const yaml_node_t *at,
			  const char *path, const bool *seen, const char *what)
{
	char fp[CFG_PATH], list[256];

	for (int l = 0; l < c->s->topology.nlevels; l++) {
		if (seen[l])
			continue;
		level_list(c, list, sizeof list);
		return cfg_fail(c, at, FW_EINVAL,
				cfg_path(fp, path, c->s->topology.level[l]),
				"no %s for level \"%s\"; every topology level "
				"(%s) must be given: add %s: ...",
				what, c->s->topology.level[l], list,
				c->s->topology.level[l]);
	}
	return FW_OK;
}

/* A map from level names to domain names (a node's topology, a generator's
 * prefix) at fp into names[level]; seen[] marks the levels it names. */
static int level_names(struct cfg *c, const yaml_node_t *m, const char *fp,
		       bool *seen, char (*names)[FW_NAME_MAX])
{
	char vp[CFG_PATH];
	int lvl, rc = cfg_want_map(c, m, fp);

	if (rc)
		return rc;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     !rc && p < m->data.mapping.pairs.top; p++) {
		rc = map_level(c, cfg_node(c, p->key), fp, seen, &lvl);
		if (!rc)
			rc = cfg_name_node(c, cfg_node(c, p->value),
					   cfg_path(vp, fp,
						    c->s->topology.level[lvl]),
					   names[lvl]);
	}
	return rc;
}

int cfg_node_topology(struct cfg *c, const yaml_node_t *map, const char *path,
		      struct fw_node *n)
{
	bool seen[FW_MAX_LEVELS] = { false };
	char fp[CFG_PATH];
	yaml_node_t *t = cfg_get(c, map, "topology");
	int rc;

	cfg_path(fp, path, "topology");
	if (t && (rc = level_names(c, t, fp, seen, n->path)))
		return rc;
	return missing_levels(c, t ? t : map, fp, seen, "domain");
}

static int gen_per(struct cfg *c, const yaml_node_t *m, const char *fp,
		   struct cfg_gen *g)
{
	bool seen[FW_MAX_LEVELS] = { false };
	const struct fw_topology *t = &c->s->topology;
	char vp[CFG_PATH];
	int lvl, rc = cfg_want_map(c, m, fp);

	if (rc)
		return rc;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     !rc && p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = cfg_node(c, p->key);
		rc = map_level(c, k, fp, seen, &lvl);
		if (!rc)
			rc = cfg_int(c, m, fp, t->level[lvl], 1,
				     FW_CONFIG_MAX_NODES, &g->per[lvl]);
		if (!rc && !cfg_get(c, m, t->level[lvl]))
			rc = cfg_require(c, m, fp, t->level[lvl]);
	}
	if (!rc)
		rc = missing_levels(c, m, fp, seen, "nodesPer entry");
	for (int l = 0; !rc && l + 1 < t->nlevels; l++)
		if (g->per[l] % g->per[l + 1])
			return cfg_fail(c, cfg_get(c, m, t->level[l]),
					FW_EINVAL,
					cfg_path(vp, fp, t->level[l]),
					"nodesPer.%s (%lld) is not a multiple "
					"of nodesPer.%s (%lld); make each "
					"level's count a multiple of the next "
					"smaller level's so domains nest",
					t->level[l], (long long)g->per[l],
					t->level[l + 1],
					(long long)g->per[l + 1]);
	return rc;
}

int cfg_group_topology(struct cfg *c, const yaml_node_t *map,
		       const char *path, struct cfg_gen *g)
{
	static const char *const keys[] = { "nodesPer", "prefix", NULL };
	bool seen[FW_MAX_LEVELS] = { false }; /* prefix may leave levels out */
	const struct fw_topology *t = &c->s->topology;
	yaml_node_t *top = cfg_get(c, map, "topology"), *m;
	char fp[CFG_PATH], sp[CFG_PATH];
	int rc;

	for (int l = 0; l < t->nlevels; l++) {
		memcpy(g->prefix[l], t->level[l], FW_NAME_MAX);
		g->per[l] = 0;
	}
	cfg_path(fp, path, "topology");
	if (!top && t->nlevels == 0)
		return FW_OK;
	if (!top)
		return cfg_require(c, map, path, "topology");
	if ((rc = cfg_keys(c, top, fp, keys)))
		return rc;
	m = cfg_get(c, top, "nodesPer");
	if (!m && t->nlevels)
		return cfg_require(c, top, fp, "nodesPer");
	if (m && (rc = gen_per(c, m, cfg_path(sp, fp, "nodesPer"), g)))
		return rc;
	m = cfg_get(c, top, "prefix");
	if (m && (rc = level_names(c, m, cfg_path(sp, fp, "prefix"), seen,
				   g->prefix)))
		return rc;
	return FW_OK;
}

int cfg_gen_path(const struct cfg *c, const struct cfg_gen *g, int64_t k,
		 struct fw_node *n)
{
	for (int l = 0; l < c->s->topology.nlevels; l++) {
		int r = snprintf(n->path[l], FW_NAME_MAX, "%s%lld",
				 g->prefix[l], (long long)(k / g->per[l]));
		if (r < 0 || r >= FW_NAME_MAX)
			return -1;
	}
	return 0;
}

int cfg_level_ref(struct cfg *c, const yaml_node_t *map, const char *path,
		  const char *key, int8_t *out)
{
	char fp[CFG_PATH], list[256], hint[96];
	yaml_node_t *v;
	const char *t;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t), lvl;

	if (rc <= 0)
		return rc;
	if (strcmp(t, "node") == 0) {
		*out = FW_LEVEL_NODE;
		return FW_OK;
	}
	lvl = fw_snapshot_find_level(c->s, t);
	if (lvl < 0) {
		level_list(c, list, sizeof list);
		return cfg_fail(c, v, FW_EINVAL, fp,
				"unknown topology level \"%s\"%s; use \"node\" "
				"or a level from topology.levels: %s",
				t, level_hint(c, t, hint, sizeof hint), list);
	}
	*out = (int8_t)lvl;
	return FW_OK;
}
