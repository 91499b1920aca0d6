/*
 * snapshot.c — building, querying and validating snapshots (snapshot.h).
 *
 * Arrays grow by doubling through grow(); every add_* copies the caller's
 * value in.  Validation walks the snapshot once per rule and stops at the
 * first problem, naming it by array index ("jobs[4].queue") because a
 * snapshot carries no file positions: loaders that do (connectors/config)
 * map the index back to a line.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/snapshot.h"

struct fw_snapshot *fw_snapshot_new(void)
{
	struct fw_snapshot *s = calloc(1, sizeof *s);

	if (s)
		fw_sched_config_default(&s->config);
	return s;
}

void fw_snapshot_free(struct fw_snapshot *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->queues);
	free(s->jobs);
	free(s->allocs);
	free(s->job_nodes);
	free(s->group_nodes);
	free(s->slices);
	free(s->node_refs);
	free(s->model_limits);
	free(s->model_deserved);
	free(s->user_usage);
	free(s);
}

void fw_sched_config_default(struct fw_sched_config *c)
{
	c->usage_half_life_s = 7.0 * 24 * 3600;
	c->usage_weight = 1.0;
	c->max_starts = 0;
	c->estimate_starts = true;
	c->suspect_gang_gpus = 16;
	c->lemon_gang_gpus = 64;
	c->drain_requeue = true;
}

/* Arrays start on a cache line (64 bytes): a job record is 9 lines, and
 * the cycle's sweep reads the ones after its name (snapshot.h); at
 * malloc's 16-byte alignment each record would straddle one line more
 * (about 3% of the benchmark's cycle).  aligned_alloc memory is freed
 * with free(). */
static int grow(void **arr, int32_t *cap, int32_t n, size_t sz)
{
	int32_t ncap;
	size_t bytes;
	void *p;

	if (n < *cap)
		return FW_OK;
	if (*cap > INT32_MAX / 2)
		return FW_ENOMEM;
	ncap = *cap ? *cap * 2 : 16;
	bytes = ((size_t)ncap * sz + 63) / 64 * 64; /* a multiple of the alignment */
	if (!(p = aligned_alloc(64, bytes)))
		return FW_ENOMEM;
	if (*arr)
		memcpy(p, *arr, (size_t)n * sz);
	free(*arr);
	*arr = p;
	*cap = ncap;
	return FW_OK;
}

#define ADD(s, arr, n, cap, v)                                               \
	do {                                                                 \
		void *fw__p = (s)->arr;                                      \
		if (grow(&fw__p, &(s)->cap, (s)->n, sizeof *(s)->arr))       \
			return FW_ENOMEM;                                    \
		(s)->arr = fw__p;                                            \
		(s)->arr[(s)->n] = *(v);                                     \
		return (s)->n++;                                             \
	} while (0)

int fw_snapshot_add_node(struct fw_snapshot *s, const struct fw_node *n)
{
	ADD(s, nodes, nnodes, cap_nodes, n);
}

int fw_snapshot_add_queue(struct fw_snapshot *s, const struct fw_queue *q)
{
	ADD(s, queues, nqueues, cap_queues, q);
}

int fw_snapshot_add_job(struct fw_snapshot *s, const struct fw_job *j)
{
	ADD(s, jobs, njobs, cap_jobs, j);
}

int fw_snapshot_add_alloc(struct fw_snapshot *s, const struct fw_task_alloc *a)
{
	ADD(s, allocs, nallocs, cap_allocs, a);
}

int fw_snapshot_add_model_limit(struct fw_snapshot *s, const struct fw_model_limit *m)
{
	ADD(s, model_limits, nmodel_limits, cap_model_limits, m);
}

int fw_snapshot_add_model_deserved(struct fw_snapshot *s, const struct fw_model_limit *m)
{
	ADD(s, model_deserved, nmodel_deserved, cap_model_deserved, m);
}

int fw_snapshot_add_user_usage(struct fw_snapshot *s, const struct fw_user_usage *u)
{
	ADD(s, user_usage, nuser_usage, cap_user_usage, u);
}

int fw_snapshot_copy_queue_tables(struct fw_snapshot *dst, const struct fw_snapshot *src)
{
	for (int32_t k = 0; k < src->nmodel_limits; k++)
		if (fw_snapshot_add_model_limit(dst, &src->model_limits[k]) < 0)
			return FW_ENOMEM;
	for (int32_t k = 0; k < src->nmodel_deserved; k++)
		if (fw_snapshot_add_model_deserved(dst, &src->model_deserved[k]) < 0)
			return FW_ENOMEM;
	for (int32_t k = 0; k < src->nuser_usage; k++)
		if (fw_snapshot_add_user_usage(dst, &src->user_usage[k]) < 0)
			return FW_ENOMEM;
	return FW_OK;
}

bool fw_snapshot_has_gpu_model(const struct fw_snapshot *s, const char *model)
{
	for (int32_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].gpu_count && strcmp(s->nodes[i].gpu_model, model) == 0)
			return true;
	return false;
}

/* a and b the same but for ASCII case (the locale's case rules aside:
 * a model name is a name, fw_name_problem's letters). */
static bool same_but_case(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
		if (x != y)
			return false;
	}
	return *a == *b;
}

const char *fw_snapshot_gpu_model_spelling(const struct fw_snapshot *s, const char *model)
{
	const char *found = NULL;

	for (int32_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].gpu_count && strcmp(s->nodes[i].gpu_model, model) == 0)
			return s->nodes[i].gpu_model;
	for (int32_t i = 0; i < s->nnodes; i++) {
		const char *m = s->nodes[i].gpu_model;
		if (!s->nodes[i].gpu_count || !same_but_case(m, model))
			continue;
		if (found && strcmp(found, m) != 0)
			return NULL; /* "Ab" and "aB" for "ab": a guess */
		found = m;
	}
	return found;
}

int32_t fw_snapshot_gpu_model_names(const struct fw_snapshot *s, const char **out, int32_t max)
{
	int32_t n = 0;

	for (int32_t i = 0; i < s->nnodes && n + 1 < max; i++) {
		bool seen = !s->nodes[i].gpu_count;
		for (int32_t k = 0; k < n && !seen; k++)
			seen = strcmp(out[k], s->nodes[i].gpu_model) == 0;
		if (!seen)
			out[n++] = s->nodes[i].gpu_model;
	}
	if (max > 0)
		out[n] = NULL;
	return n;
}

void fw_topology_level_names(const struct fw_topology *t, const char **out)
{
	int n = 0;

	for (; n < t->nlevels && n < FW_MAX_LEVELS; n++)
		out[n] = t->level[n];
	out[n++] = "node";
	out[n] = NULL;
}

void fw_snapshot_gpu_models(const struct fw_snapshot *s, char *out, size_t n)
{
	size_t used = 0;

	if (!n)
		return;
	out[0] = 0;
	for (int32_t i = 0; i < s->nnodes; i++) {
		bool seen = !s->nodes[i].gpu_count;
		for (int32_t k = 0; k < i && !seen; k++)
			seen = s->nodes[k].gpu_count && strcmp(s->nodes[k].gpu_model, s->nodes[i].gpu_model) == 0;
		int r = seen ? 0 : snprintf(out + used, n - used, "%s%s", used ? ", " : "", s->nodes[i].gpu_model);
		if (r < 0 || (size_t)r >= n - used) {
			out[used] = 0; /* whole names only */
			return;
		}
		used += (size_t)r;
	}
}

static int int_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static int restrict_job(struct fw_snapshot *s, int32_t job, const int32_t *nodes, int32_t n, int32_t except);

int fw_snapshot_restrict_job(struct fw_snapshot *s, int32_t job, const int32_t *nodes, int32_t n)
{
	return restrict_job(s, job, nodes, n, 0);
}

int fw_snapshot_restrict_job_except(struct fw_snapshot *s, int32_t job, const int32_t *nodes, int32_t n)
{
	return restrict_job(s, job, nodes, n, 1);
}

/* Append nodes[0..n) to node_refs, sorted and made distinct: the range's
 * first, and its count in *k; FW_EINVAL (a node out of range) or
 * FW_ENOMEM with nothing added. */
static int add_refs(struct fw_snapshot *s, const int32_t *nodes, int32_t n, int32_t *k)
{
	int32_t first = s->nnode_refs, m = 0;
	void *p;

	for (int32_t i = 0; i < n; i++)
		if (nodes[i] < 0 || nodes[i] >= s->nnodes)
			return FW_EINVAL;
	if (first > INT32_MAX - n)
		return FW_ENOMEM;
	while (s->cap_node_refs < first + n) { /* room for all n, so nothing half-added */
		p = s->node_refs;
		if (grow(&p, &s->cap_node_refs, s->cap_node_refs, sizeof *s->node_refs))
			return FW_ENOMEM;
		s->node_refs = p;
	}
	memcpy(s->node_refs + first, nodes, (size_t)n * sizeof *nodes);
	for (int32_t i = 1; i < n; i++)
		if (nodes[i] <= nodes[i - 1]) { /* not ascending already (adapters' lists are) */
			qsort(s->node_refs + first, (size_t)n, sizeof *nodes, int_cmp);
			break;
		}
	for (int32_t i = 0; i < n; i++) /* distinct */
		if (m == 0 || s->node_refs[first + m - 1] != s->node_refs[first + i])
			s->node_refs[first + m++] = s->node_refs[first + i];
	*k = m;
	return first;
}

static int restrict_job(struct fw_snapshot *s, int32_t job, const int32_t *nodes, int32_t n, int32_t except)
{
	int32_t first, k = 0;
	void *p = s->job_nodes;

	if (job < 0 || job >= s->njobs || n < 1 ||
	    (s->njob_nodes > 0 && s->job_nodes[s->njob_nodes - 1].job >= job))
		return FW_EINVAL;
	if (grow(&p, &s->cap_job_nodes, s->njob_nodes, sizeof *s->job_nodes))
		return FW_ENOMEM;
	s->job_nodes = p;
	if ((first = add_refs(s, nodes, n, &k)) < 0)
		return first;
	s->nnode_refs = first + k;
	s->job_nodes[s->njob_nodes] = (struct fw_job_nodes){ job, first, k, except };
	return s->njob_nodes++;
}

int fw_snapshot_restrict_job_as(struct fw_snapshot *s, int32_t job, int32_t entry)
{
	void *p = s->job_nodes;

	if (job < 0 || job >= s->njobs || entry < 0 || entry >= s->njob_nodes ||
	    s->job_nodes[s->njob_nodes - 1].job >= job)
		return FW_EINVAL;
	if (grow(&p, &s->cap_job_nodes, s->njob_nodes, sizeof *s->job_nodes))
		return FW_ENOMEM;
	s->job_nodes = p;
	s->job_nodes[s->njob_nodes] = (struct fw_job_nodes){ job, s->job_nodes[entry].first,
							     s->job_nodes[entry].count, s->job_nodes[entry].except };
	return s->njob_nodes++;
}

/* Is (job, group) a group of the snapshot's, after the last entry? */
static bool next_group(const struct fw_snapshot *s, int32_t job, int group)
{
	const struct fw_group_nodes *l = s->ngroup_nodes > 0 ? &s->group_nodes[s->ngroup_nodes - 1] : NULL;

	if (job < 0 || job >= s->njobs || group < 0 || group >= s->jobs[job].ngroups)
		return false;
	return !l || l->job < job || (l->job == job && l->group < group);
}

static int add_group(struct fw_snapshot *s, struct fw_group_nodes e)
{
	void *p = s->group_nodes;

	if (grow(&p, &s->cap_group_nodes, s->ngroup_nodes, sizeof *s->group_nodes))
		return FW_ENOMEM;
	s->group_nodes = p;
	s->group_nodes[s->ngroup_nodes] = e;
	return s->ngroup_nodes++;
}

int fw_snapshot_restrict_group(struct fw_snapshot *s, int32_t job, int group, const int32_t *nodes, int32_t n,
			       int32_t except)
{
	int32_t first, k = 0;
	void *p = s->group_nodes;

	if (!next_group(s, job, group) || n < 1 || (except != 0 && except != 1))
		return FW_EINVAL;
	if (grow(&p, &s->cap_group_nodes, s->ngroup_nodes, sizeof *s->group_nodes))
		return FW_ENOMEM; /* before the list: nothing half-added */
	s->group_nodes = p;
	if ((first = add_refs(s, nodes, n, &k)) < 0)
		return first;
	s->nnode_refs = first + k;
	return add_group(s, (struct fw_group_nodes){ job, group, first, k, except });
}

int fw_snapshot_restrict_group_as(struct fw_snapshot *s, int32_t job, int group, int32_t entry)
{
	if (!next_group(s, job, group) || entry < 0 || entry >= s->njob_nodes)
		return FW_EINVAL;
	return add_group(s, (struct fw_group_nodes){ job, group, s->job_nodes[entry].first, s->job_nodes[entry].count,
						     s->job_nodes[entry].except });
}

int fw_snapshot_restrict_group_like(struct fw_snapshot *s, int32_t job, int group, int32_t gentry)
{
	if (!next_group(s, job, group) || gentry < 0 || gentry >= s->ngroup_nodes)
		return FW_EINVAL;
	return add_group(s, (struct fw_group_nodes){ job, group, s->group_nodes[gentry].first,
						     s->group_nodes[gentry].count, s->group_nodes[gentry].except });
}

int fw_snapshot_slice_group(struct fw_snapshot *s, int32_t job, int group, int32_t tasks, int32_t level)
{
	const struct fw_group_slice *l = s->nslices > 0 ? &s->slices[s->nslices - 1] : NULL;
	void *p = s->slices;

	if (job < 0 || job >= s->njobs || group < 0 || group >= s->jobs[job].ngroups ||
	    (l && (l->job > job || (l->job == job && l->group >= group))))
		return FW_EINVAL;
	if (tasks < 1 || s->jobs[job].groups[group].count % tasks != 0 ||
	    (level != FW_LEVEL_NODE && (level < 0 || level >= s->topology.nlevels)))
		return FW_EINVAL;
	if (grow(&p, &s->cap_slices, s->nslices, sizeof *s->slices))
		return FW_ENOMEM;
	s->slices = p;
	s->slices[s->nslices] = (struct fw_group_slice){ job, group, tasks, level };
	return s->nslices++;
}

/* Is n in the entry's list, read as its kind says? */
static bool list_allows(const struct fw_snapshot *s, int32_t first, int32_t count, int32_t except, int32_t n)
{
	const int32_t *v = s->node_refs + first;
	int32_t lo = 0, hi = count;

	while (lo < hi) { /* is n listed? */
		int32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < count && v[lo] == n) != (except != 0);
}

bool fw_snapshot_group_may_use(const struct fw_snapshot *s, int32_t job, int group, int32_t n)
{
	if (!fw_snapshot_job_may_use(s, job, n))
		return false;
	for (int32_t x = s->ngroup_nodes ? fw_snapshot_group_nodes_entry(s, job) : -1;
	     x >= 0 && x < s->ngroup_nodes && s->group_nodes[x].job == job; x++)
		if (s->group_nodes[x].group == group)
			return list_allows(s, s->group_nodes[x].first, s->group_nodes[x].count, s->group_nodes[x].except,
					   n);
	return true;
}

/* The first of n entries of size bytes from tab (each led by its int32_t
 * job, ascending) whose job is `job`, -1 when none: a lower bound. */
static int32_t first_entry(const void *tab, size_t size, int32_t n, int32_t job)
{
	int32_t lo = 0, hi = n, at;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		memcpy(&at, (const char *)tab + (size_t)mid * size, sizeof at);
		if (at < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return -1;
	memcpy(&at, (const char *)tab + (size_t)lo * size, sizeof at);
	return at == job ? lo : -1;
}

_Static_assert(offsetof(struct fw_job_nodes, job) == 0 && offsetof(struct fw_group_nodes, job) == 0 &&
		       offsetof(struct fw_group_slice, job) == 0,
	       "first_entry reads the job first");

int32_t fw_snapshot_job_nodes_entry(const struct fw_snapshot *s, int32_t job)
{
	return first_entry(s->job_nodes, sizeof *s->job_nodes, s->njob_nodes, job);
}

int32_t fw_snapshot_group_nodes_entry(const struct fw_snapshot *s, int32_t job)
{
	return first_entry(s->group_nodes, sizeof *s->group_nodes, s->ngroup_nodes, job);
}

int32_t fw_snapshot_slices_entry(const struct fw_snapshot *s, int32_t job)
{
	return first_entry(s->slices, sizeof *s->slices, s->nslices, job);
}

/* Node n's room for tasks of group g, by GPUs: whole tasks on its GPUs
 * (of the group's model), or fractions on each GPU. */
static int64_t node_room(const struct fw_node *n, const struct fw_task_group *g)
{
	if (g->gpu_model[0] && strcmp(g->gpu_model, n->gpu_model))
		return 0;
	int64_t room = g->gpu_milli < 1000 ? (int64_t)n->gpu_count * (1000 / g->gpu_milli) : n->gpu_count / g->gpus;
	return g->one_per_node && room > 1 ? 1 : room;
}

/* A node's domain at a level, as its path names up to there, each ended
 * by a unit separator, and its room: fw_snapshot_domain_room's rows, sorted so that a
 * domain's nodes are a run. */
struct dom_row {
	char key[FW_MAX_LEVELS * FW_NAME_MAX];
	int64_t room;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct dom_row *)a)->key, ((const struct dom_row *)b)->key);
}

/* Node i's room for g, or 0 when the filter leaves it out. */
static int64_t room_on(const struct fw_snapshot *s, const struct fw_task_group *g, const bool *on, int32_t i)
{
	return on && !on[i] ? 0 : node_room(&s->nodes[i], g);
}

int64_t fw_snapshot_domain_room(const struct fw_snapshot *s, const struct fw_task_group *g, int level,
				const bool *on)
{
	int64_t best = 0, run = 0;
	struct dom_row *r;

	if (g->gpus == 0)
		return -1;
	if (level == FW_LEVEL_NONE) {
		for (int32_t i = 0; i < s->nnodes; i++)
			best += room_on(s, g, on, i);
		return best;
	}
	if (level == FW_LEVEL_NODE) {
		for (int32_t i = 0; i < s->nnodes; i++)
			best = room_on(s, g, on, i) > best ? room_on(s, g, on, i) : best;
		return best;
	}
	if (!(r = malloc(((size_t)s->nnodes + 1) * sizeof *r)))
		return INT64_MAX; /* no check rather than a false error */
	for (int32_t i = 0; i < s->nnodes; i++) {
		size_t k = 0;
		for (int l = 0; l <= level; l++)
			k += (size_t)snprintf(r[i].key + k, sizeof r[i].key - k, "%s\x1f", s->nodes[i].path[l]);
		r[i].room = room_on(s, g, on, i);
	}
	qsort(r, (size_t)s->nnodes, sizeof *r, by_key);
	for (int32_t i = 0; i < s->nnodes; i++) {
		run = (i > 0 && !strcmp(r[i].key, r[i - 1].key) ? run : 0) + r[i].room;
		best = run > best ? run : best;
	}
	free(r);
	return best;
}

bool fw_node_has_labels(const struct fw_node *n, const struct fw_label *sel, int nsel)
{
	for (int i = 0; i < nsel; i++) {
		bool has = false;
		for (int k = 0; k < n->nlabels && !has; k++)
			has = !strcmp(n->labels[k].key, sel[i].key) && !strcmp(n->labels[k].value, sel[i].value);
		if (!has)
			return false;
	}
	return true;
}

int32_t fw_snapshot_job_nodes(const struct fw_snapshot *s, int32_t job, const int32_t **out)
{
	int32_t e = fw_snapshot_job_nodes_entry(s, job);

	if (e < 0)
		return -1;
	*out = s->node_refs + s->job_nodes[e].first;
	return s->job_nodes[e].count;
}

bool fw_snapshot_job_may_use(const struct fw_snapshot *s, int32_t job, int32_t n)
{
	int32_t e = s->njob_nodes ? fw_snapshot_job_nodes_entry(s, job) : -1;

	return e < 0 || list_allows(s, s->job_nodes[e].first, s->job_nodes[e].count, s->job_nodes[e].except, n);
}

void fw_node_init(struct fw_node *n)
{
	memset(n, 0, sizeof *n);
	n->schedulable = true;
}

void fw_queue_init(struct fw_queue *q)
{
	memset(q, 0, sizeof *q);
	q->parent = -1;
	for (int r = 0; r < FW_RES_COUNT; r++) {
		q->limit.v[r] = FW_UNLIMITED;
		q->over_quota_weight[r] = 1.0;
	}
}

void fw_job_init(struct fw_job *j)
{
	memset(j, 0, sizeof *j);
	j->ngroups = 1;
	j->groups[0].count = 1;
	j->groups[0].gpu_milli = 1000;
	j->required_level = FW_LEVEL_NONE;
	j->preferred_level = FW_LEVEL_NONE;
	j->alloc_first = -1;
}

int fw_snapshot_find_node(const struct fw_snapshot *s, const char *name)
{
	for (int32_t i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].name, name) == 0)
			return i;
	return -1;
}

int fw_snapshot_find_queue(const struct fw_snapshot *s, const char *name)
{
	for (int32_t i = 0; i < s->nqueues; i++)
		if (strcmp(s->queues[i].name, name) == 0)
			return i;
	return -1;
}

int fw_snapshot_find_level(const struct fw_snapshot *s, const char *name)
{
	if (strcmp(name, "node") == 0)
		return FW_LEVEL_NODE;
	for (int i = 0; i < s->topology.nlevels; i++)
		if (strcmp(s->topology.level[i], name) == 0)
			return i;
	return FW_LEVEL_NONE;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
	       c == '.';
}

const char *fw_name_problem(const char *name)
{
	_Static_assert(FW_NAME_MAX == 64, "fw_name_problem's message says 63 bytes");
	size_t n = strlen(name);

	if (n == 0)
		return "must not be empty";
	if (n >= FW_NAME_MAX)
		return "is longer than 63 bytes";
	for (const char *c = name; *c; c++)
		if (!name_char(*c))
			return "may contain only letters, digits, '-', '_' and '.'";
	if (!strcmp(name, "."))
		return "must not be \".\" (a name is one URL path segment)";
	if (!strcmp(name, ".."))
		return "must not be \"..\" (a name is one URL path segment)";
	return NULL;
}

long fw_utf8_at(const unsigned char *p, size_t avail, int *len)
{
	int n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	long cp = n == 1 ? p[0] : n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;

	*len = 1;
	if (n == 0 || (size_t)n > avail)
		return -1;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = n;
	return cp;
}

int32_t fw_job_tasks(const struct fw_job *j)
{
	int32_t n = 0;

	for (int g = 0; g < j->ngroups; g++)
		n += j->groups[g].count;
	return n;
}

/* The first positive default of queue q or its nearest ancestor: its
 * default_checkpoint_s when checkpoint, else its default_runtime_s; 0 when
 * none has one (the step bound guards a cycle in an unvalidated tree). */
static fw_time inherited(const struct fw_snapshot *s, int32_t q, bool checkpoint)
{
	for (int32_t steps = 0; q >= 0 && q < s->nqueues && steps <= s->nqueues; q = s->queues[q].parent, steps++) {
		fw_time v = checkpoint ? s->queues[q].default_checkpoint_s : s->queues[q].default_runtime_s;
		if (v > 0)
			return v;
	}
	return 0;
}

fw_time fw_queue_limit(const struct fw_snapshot *s, int32_t q)
{
	fw_time m = 0;

	for (int32_t steps = 0; q >= 0 && q < s->nqueues && steps <= s->nqueues; q = s->queues[q].parent, steps++) {
		fw_time v = s->queues[q].max_runtime_s;
		if (v > 0 && (m == 0 || v < m))
			m = v;
	}
	return m;
}

fw_time fw_queue_min_runtime(const struct fw_snapshot *s, int32_t q)
{
	for (int32_t steps = 0; q >= 0 && q < s->nqueues && steps <= s->nqueues; q = s->queues[q].parent, steps++)
		if (s->queues[q].min_runtime_s > 0)
			return s->queues[q].min_runtime_s;
	return 0;
}

fw_time fw_job_limit(const struct fw_snapshot *s, const struct fw_job *j)
{
	fw_time m = fw_queue_limit(s, j->queue);

	return j->max_runtime_s > 0 && (m == 0 || j->max_runtime_s < m) ? j->max_runtime_s : m;
}

/* A job's own run-time limit binds the job's layout (fw_job's scalars fill
 * bytes 64..127, one cache line, that the sweep reads for every job). */
_Static_assert(offsetof(struct fw_job, alloc_count) + sizeof(int32_t) <= 2 * FW_NAME_MAX,
	       "fw_job's scalars spill out of their cache line");

fw_time fw_job_runtime(const struct fw_snapshot *s, const struct fw_job *j)
{
	fw_time r = j->expected_runtime > 0 ? j->expected_runtime : inherited(s, j->queue, false);
	fw_time m = fw_job_limit(s, j);

	return m > 0 && (r <= 0 || r > m) ? m : r;
}

fw_time fw_job_bound(const struct fw_snapshot *s, const struct fw_job *j)
{
	fw_time m = fw_job_limit(s, j);

	return m > 0 ? m : fw_job_runtime(s, j);
}

fw_time fw_job_checkpoint(const struct fw_snapshot *s, const struct fw_job *j)
{
	return j->checkpoint_s > 0 ? j->checkpoint_s : inherited(s, j->queue, true);
}

fw_time fw_job_lost_work(const struct fw_snapshot *s, const struct fw_job *j, fw_time now)
{
	fw_time ran = now - j->start_time, cp = fw_job_checkpoint(s, j);

	return cp > 0 && ran > 0 ? ran % cp : ran;
}

bool fw_job_evictable(const struct fw_snapshot *s, const struct fw_job *j)
{
	if (!j->preemptible)
		return false;
	for (int32_t q = j->queue; q >= 0; q = s->queues[q].parent)
		if (s->queues[q].nonpreemptible)
			return false;
	return true;
}

int32_t fw_job_min_tasks(const struct fw_job *j)
{
	int32_t all = fw_job_tasks(j);

	return j->min_member > 0 && j->min_member < all ? j->min_member : all;
}

struct fw_res fw_job_request(const struct fw_job *j)
{
	struct fw_res r = fw_res_zero();

	for (int g = 0; g < j->ngroups; g++) {
		const struct fw_task_group *t = &j->groups[g];
		r.v[FW_RES_GPU] += (int64_t)t->count * t->gpus * t->gpu_milli;
		r.v[FW_RES_CPU] += (int64_t)t->count * t->cpu_milli;
		r.v[FW_RES_MEM] += (int64_t)t->count * t->mem_mib;
	}
	return r;
}

int64_t fw_job_gpus(const struct fw_job *j)
{
	int64_t n = 0;

	for (int g = 0; g < j->ngroups; g++)
		n += (int64_t)j->groups[g].count * j->groups[g].gpus;
	return n;
}

/* name, or " -> name", at out[used] (n bytes in all): a whole name or
 * nothing.  Returns the length used after it. */
static size_t chain_add(char *out, size_t n, size_t used, const char *name)
{
	int r = snprintf(out + used, n - used, "%s%s", used ? " -> " : "", name);

	if (r < 0 || (size_t)r >= n - used) {
		out[used] = 0;
		return n; /* full: nothing more is added */
	}
	return used + (size_t)r;
}

bool fw_queue_cycle(const struct fw_snapshot *s, int32_t q, char *out, size_t n)
{
	int32_t k = q, steps = 0;
	size_t used = 0;

	do
		k = s->queues[k].parent;
	while (k >= 0 && k < s->nqueues && k != q && ++steps <= s->nqueues);
	if (k != q || !n)
		return k == q;
	out[0] = 0;
	do {
		used = chain_add(out, n, used, s->queues[k].name);
		k = s->queues[k].parent;
	} while (k != q && used < n);
	if (used < n)
		chain_add(out, n, used, s->queues[q].name);
	return true;
}

bool fw_queue_has_limit(const struct fw_queue *q)
{
	for (int k = 0; k < FW_RES_COUNT; k++)
		if (q->limit.v[k] != FW_UNLIMITED)
			return true;
	return false;
}

bool fw_queue_is_leaf(const struct fw_snapshot *s, int q)
{
	for (int32_t i = 0; i < s->nqueues; i++)
		if (s->queues[i].parent == q)
			return false;
	return true;
}
