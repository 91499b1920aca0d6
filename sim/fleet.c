/*
 * fleet.c — building the simulator's cluster (contract in fleet.h).
 *
 * Each source fills a fresh snapshot with topology and nodes only, then
 * runs fw_snapshot_validate() so that a bad file is caught here, with its
 * own diagnostic, rather than in the middle of a replay.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fwconfig.h"
#include "openb.h"

void fw_fleet_node(struct fw_node *n, const char *name, int32_t G)
{
	fw_node_init(n);
	snprintf(n->name, sizeof n->name, "%s", name);
	snprintf(n->gpu_model, sizeof n->gpu_model, "itp-gpu");
	n->gpu_count = G;
	n->gpu_mem_mib = 81920;
	n->cpu_milli = 128000;
	n->mem_mib = (int64_t)1 << 20;
}

static int finish(struct fw_snapshot *s, int rc, const char *what,
		  struct fw_snapshot **out, struct fw_diag *d)
{
	if (rc == FW_ENOMEM)
		fw_diag_set(d, rc, what, 0, 0, NULL, "out of memory");
	if (rc == FW_OK)
		rc = fw_snapshot_validate(s, d);
	if (rc != FW_OK) {
		fw_snapshot_free(s);
		return rc;
	}
	*out = s;
	return FW_OK;
}

static int check_gen(const struct fw_fleet_opts *o, struct fw_diag *d)
{
	if (o->nodes < 1 || o->nodes > FW_FLEET_MAX_NODES)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "nodes",
				   "must be 1..%d", FW_FLEET_MAX_NODES);
	if (o->gpus_per_node < 1 || o->gpus_per_node > FW_MAX_GPUS_PER_NODE)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "gpus_per_node",
				   "must be 1..%d", FW_MAX_GPUS_PER_NODE);
	if (o->nodes_per_rack < 0 || o->racks_per_block < 0)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "racks",
				   "must be >= 0");
	if (o->racks_per_block > 0 && o->nodes_per_rack == 0)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "blocks",
				   "blocks need racks (--racks K)");
	return FW_OK;
}

int fw_fleet_generate(const struct fw_fleet_opts *o, struct fw_snapshot **out,
		      struct fw_diag *d)
{
	struct fw_snapshot *s;
	struct fw_node n;
	char name[16];
	int rc = check_gen(o, d), b = o->racks_per_block > 0;

	if (rc != FW_OK)
		return rc;
	if (!(s = fw_snapshot_new()))
		return fw_diag_set(d, FW_ENOMEM, "options", 0, 0, NULL, "out of memory");
	if (o->nodes_per_rack > 0) {
		s->topology.nlevels = 1 + b;
		snprintf(s->topology.level[0], FW_NAME_MAX, "%s", b ? "block" : "rack");
		snprintf(s->topology.level[b], FW_NAME_MAX, "rack");
	}
	for (int32_t i = 0; i < o->nodes && rc == FW_OK; i++) {
		int32_t rack = o->nodes_per_rack > 0 ? i / o->nodes_per_rack : 0;
		snprintf(name, sizeof name, "n%03d", (int)i);
		fw_fleet_node(&n, name, o->gpus_per_node);
		if (b)
			snprintf(n.path[0], FW_NAME_MAX, "b%02d", (int)(rack / o->racks_per_block));
		if (o->nodes_per_rack > 0)
			snprintf(n.path[b], FW_NAME_MAX, "r%02d", (int)rack);
		rc = fw_snapshot_add_node(s, &n) < 0 ? FW_ENOMEM : FW_OK;
	}
	return finish(s, rc, "options", out, d);
}

/* A fleet whose nodes have no GPU at all cannot run any job: FW_EINVAL. */
static int has_gpus(const struct fw_snapshot *s, const char *path, const char *field,
		    struct fw_diag *d)
{
	if (fw_fleet_gpus(s) > 0)
		return FW_OK;
	return fw_diag_set(d, FW_EINVAL, path, 0, 0, field,
			   "none of the fleet's %d nodes has a GPU; give at least one node "
			   "GPUs (gpus: 1..%d)", (int)s->nnodes, FW_MAX_GPUS_PER_NODE);
}

/* Can n take new work: schedulable, neither unhealthy nor draining
 * (the placement's own test, lib/domain.c), with a GPU not in badGpus? */
static bool takes_work(const struct fw_node *n)
{
	uint32_t all = n->gpu_count >= 32 ? UINT32_MAX : (UINT32_C(1) << n->gpu_count) - 1;

	return n->schedulable && n->health != FW_HEALTH_UNHEALTHY && n->health != FW_HEALTH_DRAINING &&
	       (all & ~n->bad_gpu_mask) != 0;
}

/* A fleet where no node can take work starts no job, and would replay
 * as idle cordoned GPUs: FW_EINVAL, counting why the nodes are closed. */
static int has_open_node(const struct fw_snapshot *s, const char *path, const char *field,
			 struct fw_diag *d)
{
	int cordoned = 0, sick = 0, bad = 0;

	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		if (takes_work(n))
			return FW_OK;
		cordoned += !n->schedulable;
		sick += n->schedulable && (n->health == FW_HEALTH_UNHEALTHY || n->health == FW_HEALTH_DRAINING);
	}
	bad = (int)s->nnodes - cordoned - sick;
	return fw_diag_set(d, FW_EINVAL, path, 0, 0, field,
			   "none of the fleet's %d nodes can take work (%d with schedulable: false, %d unhealthy "
			   "or draining, %d with no GPU outside badGpus), so no job would ever start; make at "
			   "least one node schedulable and healthy", (int)s->nnodes, cordoned, sick, bad);
}

int fw_fleet_load_yaml(const char *path, struct fw_snapshot **out,
		       struct fw_diag *d)
{
	static const char *const keys[] = { "topology", "nodes", "nodeGroups", NULL };
	struct fw_snapshot *s;
	int rc = fw_config_load_file_keys(path, keys, &s, d);

	if (rc != FW_OK)
		return rc;
	if (s->nnodes == 0)
		rc = fw_diag_set(d, FW_EINVAL, path, 0, 0, "nodes", "the fleet has no nodes");
	else if ((rc = has_gpus(s, path, "nodes", d)) == FW_OK)
		rc = has_open_node(s, path, "nodes", d);
	if (rc != FW_OK) {
		fw_snapshot_free(s);
		return rc;
	}
	*out = s;
	return FW_OK;
}

/* ---- a site's config (--config) ------------------------------------------ */

/* A queue with a GPU-hour budget and child queues: the replay keeps each
 * leaf queue's usage and wakes when a held leaf falls below its budget
 * (des.c budget_cross), not a subtree's; -1 when there is none. */
static int32_t parent_budget(const struct fw_snapshot *s)
{
	for (int32_t q = 0; q < s->nqueues; q++)
		if (s->queues[q].parent >= 0 && s->queues[s->queues[q].parent].gpu_hour_budget > 0)
			return s->queues[q].parent;
	return -1;
}

int fw_fleet_check_config(const struct fw_snapshot *s, const char *file, struct fw_diag *d)
{
	int32_t p = parent_budget(s);
	int rc;

	if (s->nnodes == 0)
		return fw_diag_set(d, FW_EINVAL, file, 0, 0, "nodes",
				   "the config has no nodes; the replay runs on its nodes: add nodes or nodeGroups");
	if ((rc = has_gpus(s, file, "nodes", d)) != FW_OK || (rc = has_open_node(s, file, "nodes", d)) != FW_OK)
		return rc;
	if (s->nqueues == 0)
		return fw_diag_set(d, FW_EINVAL, file, 0, 0, "queues",
				   "the config has no queues; the trace's jobs go to its leaf queues: add queues");
	if (s->nqueues > FW_TEAMS_MAX)
		return fw_diag_set(d, FW_ERANGE, file, 0, 0, "queues",
				   "the config has %d queues, and the simulator replays at most %d (parents "
				   "included, FW_TEAMS_MAX); merge queues, or replay a part of the tree",
				   (int)s->nqueues, FW_TEAMS_MAX);
	if (p >= 0)
		return fw_diag_set(d, FW_EINVAL, file, 0, 0, "queues.gpuHourBudget",
				   "queue '%s' has a gpuHourBudget and child queues; the simulator replays "
				   "budgets of leaf queues only: move the budget to its leaves (or drop it)",
				   s->queues[p].name);
	return FW_OK;
}

/* Keep what a replay starts from: no jobs, no past usage (the config's
 * `now` and usage times are not the trace's clock, nor are its dates:
 * utc_times, which a dated now set, goes with them). */
static int32_t strip_workload(struct fw_snapshot *s)
{
	int32_t jobs = s->njobs;

	s->njobs = s->nallocs = s->njob_nodes = s->ngroup_nodes = s->nslices = 0;
	s->nnode_refs = s->nuser_usage = 0;
	for (int32_t q = 0; q < s->nqueues; q++) {
		s->queues[q].usage = 0;
		s->queues[q].usage_at = 0;
	}
	s->now = 0;
	s->config.utc_times = false;
	return jobs;
}

int fw_fleet_load_config(const char *path, struct fw_snapshot **out, int32_t *jobs,
			 struct fw_diag *d)
{
	struct fw_snapshot *s;
	int rc = fw_config_load_file(path, &s, d);

	if (rc != FW_OK)
		return rc;
	*jobs = strip_workload(s);
	if ((rc = fw_fleet_check_config(s, path, d)) != FW_OK) {
		fw_snapshot_free(s);
		return rc;
	}
	*out = s;
	return FW_OK;
}

/* The next line of [*p, end) without its terminator ("\n" or "\r\n"). */
static size_t next_line(const char **p, const char *end, const char **text)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = (size_t)((nl ? nl : end) - *p);

	*text = *p;
	if (n && (*p)[n - 1] == '\r')
		n--;
	*p = nl ? nl + 1 : end;
	return n;
}

/* The 1-based column where header field `name` starts on line lno of the
 * openb list at path, or 0 when that cannot be told.  Only an error asks,
 * so the file is read again (as openb.c reads it: a byte-order mark
 * skipped, blank lines ignored, the first other line the header) rather
 * than every row keeping the columns of its fields. */
static int openb_column(const char *path, int lno, const char *name)
{
	struct fw_csv_rec r;
	struct fw_diag d;
	const char *p, *end, *text;
	char *buf, *line = NULL;
	size_t len, n;
	int idx = -1, col = 0;
	bool header = true;

	memset(&d, 0, sizeof d);
	if (fw_openb_slurp(path, &buf, &len, &d) != FW_OK)
		return 0;
	p = buf, end = buf + len;
	for (int ln = 1; p < end && ln <= lno && !col; ln++, free(line), line = NULL) {
		n = next_line(&p, end, &text);
		if (ln == 1 && n >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
			text += 3, n -= 3;
		if (!n || fw_csv_line(text, n, path, ln, &line, &r, &d) != FW_OK)
			continue;
		for (size_t k = 0; header && k < r.nf; k++)
			idx = idx < 0 && !strcmp(r.f[k], name) ? (int)k : idx;
		if (!header && ln == lno && idx >= 0 && (size_t)idx < r.nf)
			col = r.col[idx];
		header = false;
	}
	free(buf);
	return col;
}

static int openb_node(struct fw_snapshot *s, const struct fw_openb_node *o,
		      const char *path, struct fw_diag *d)
{
	struct fw_node n;
	const char *field = NULL, *what = NULL, *v = NULL;

	if (strlen(o->sn) >= FW_NAME_MAX)
		field = "sn", what = "node name", v = o->sn;
	else if (strlen(o->model) >= FW_NAME_MAX)
		field = "model", what = "GPU model", v = o->model;
	if (field)
		return fw_diag_set(d, FW_EINVAL, path, o->line, openb_column(path, o->line, field),
				   field, "'%.20s...' is %zu bytes long; a %s has at most %d bytes",
				   v, strlen(v), what, FW_NAME_MAX - 1);
	fw_node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", o->sn);
	snprintf(n.gpu_model, sizeof n.gpu_model, "%s", o->gpu ? o->model : "");
	n.gpu_count = o->gpu;
	n.cpu_milli = o->cpu_milli;
	n.mem_mib = o->memory_mib;
	return fw_snapshot_add_node(s, &n) < 0 ? FW_ENOMEM : FW_OK;
}

int fw_fleet_from_openb(const char *path, struct fw_snapshot **out,
			struct fw_diag *d)
{
	struct fw_openb_nodes l;
	struct fw_snapshot *s;
	int rc = fw_openb_read_nodes(path, 0, &l, d);

	if (rc != FW_OK)
		return rc;
	if (!(s = fw_snapshot_new()))
		rc = FW_ENOMEM;
	else if (l.n == 0)
		rc = fw_diag_set(d, FW_EINVAL, path, 0, 0, "nodes", "the node list is empty");
	for (size_t i = 0; s && i < l.n && rc == FW_OK; i++)
		rc = openb_node(s, &l.v[i], path, d);
	fw_openb_nodes_free(&l);
	if (!s)
		return fw_diag_set(d, FW_ENOMEM, path, 0, 0, NULL, "out of memory");
	if (rc == FW_OK)
		rc = has_gpus(s, path, "gpu", d);
	return finish(s, rc, path, out, d);
}

int fw_fleet_apply_topo(struct fw_snapshot *s, const struct fw_topo *t,
			struct fw_diag *d)
{
	if (t->n < (size_t)s->nnodes)
		return fw_diag_set(d, FW_EINVAL, t->file, 0, 0, "hosts",
				   "has %zu hosts, the fleet has %d nodes (each node "
				   "takes the next host in file order)", t->n, (int)s->nnodes);
	s->topology = t->levels;
	for (int32_t i = 0; i < s->nnodes; i++) {
		memset(s->nodes[i].path, 0, sizeof s->nodes[i].path);
		memcpy(s->nodes[i].path, t->v[i].path, sizeof t->v[i].path);
	}
	return fw_snapshot_validate(s, d);
}

int fw_fleet_from_topo(const struct fw_topo *t, int32_t G,
		       struct fw_snapshot **out, struct fw_diag *d)
{
	struct fw_fleet_opts o = { (int32_t)(t->n > FW_FLEET_MAX_NODES ? 0 : t->n), G, 0, 0 };
	struct fw_snapshot *s;
	char name[16];
	int rc = check_gen(&o, d);

	if (rc != FW_OK)
		return rc;
	if (!(s = fw_snapshot_new()))
		return fw_diag_set(d, FW_ENOMEM, t->file, 0, 0, NULL, "out of memory");
	for (int32_t i = 0; i < o.nodes && rc == FW_OK; i++) {
		struct fw_node n;
		snprintf(name, sizeof name, "h%04d", (int)i);
		fw_fleet_node(&n, name, G);
		rc = fw_snapshot_add_node(s, &n) < 0 ? FW_ENOMEM : FW_OK;
	}
	if (rc == FW_OK)
		rc = fw_fleet_apply_topo(s, t, d);
	return finish(s, rc, t->file, out, d);
}

int64_t fw_fleet_gpus(const struct fw_snapshot *s)
{
	int64_t g = 0;

	for (int32_t i = 0; i < s->nnodes; i++)
		g += s->nodes[i].gpu_count;
	return g;
}

int64_t fw_fleet_usable_gpus(const struct fw_snapshot *s)
{
	int64_t g = 0;

	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		uint32_t all = n->gpu_count >= 32 ? UINT32_MAX : (UINT32_C(1) << n->gpu_count) - 1;
		if (takes_work(n))
			g += __builtin_popcount(all & ~n->bad_gpu_mask);
	}
	return g;
}

void fw_fleet_shape(const struct fw_snapshot *s, char *buf, size_t n)
{
	int32_t count[FW_MAX_GPUS_PER_NODE + 1] = { 0 };
	size_t len = 0;

	for (int32_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].gpu_count >= 0 && s->nodes[i].gpu_count <= FW_MAX_GPUS_PER_NODE)
			count[s->nodes[i].gpu_count]++;
	buf[0] = '\0';
	for (int g = FW_MAX_GPUS_PER_NODE; g >= 0 && len < n; g--)
		if (count[g])
			len += (size_t)snprintf(buf + len, n - len, "%s%dx%d", len ? "+" : "", (int)count[g], g);
}

int fw_fleet_uniform(const struct fw_snapshot *s, int32_t *G)
{
	*G = s->nnodes ? s->nodes[0].gpu_count : 0;
	for (int32_t i = 1; i < s->nnodes; i++)
		if (s->nodes[i].gpu_count != *G)
			return 0;
	return 1;
}
