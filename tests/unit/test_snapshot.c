/* test_snapshot.c — snapshot building and structural validation. */
#include <stdio.h>
#include <string.h>

#include "builder.h"
#include "harness.h"

static struct fw_snapshot *small(void)
{
	struct fw_snapshot *s = fw_snapshot_new();
	const char *lv[] = { "rack" };
	tb_levels(s, 1, lv);
	tb_node(s, "n0", 8, NULL, "r0", NULL, NULL);
	tb_node(s, "n1", 8, NULL, "r0", NULL, NULL);
	int root = tb_queue(s, "org", -1, 16, -1, 1);
	tb_queue(s, "team", root, 8, -1, 1);
	tb_job(s, "j0", 1, 1, 2, 1000, 0);
	return s;
}

TEST(valid_snapshot_passes)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	ASSERT_EQ(fw_snapshot_find_node(s, "n1"), 1);
	ASSERT_EQ(fw_snapshot_find_queue(s, "team"), 1);
	ASSERT_EQ(fw_snapshot_find_level(s, "rack"), 0);
	ASSERT_EQ(fw_snapshot_find_level(s, "node"), FW_LEVEL_NODE);
	ASSERT_EQ(fw_snapshot_find_level(s, "spine"), FW_LEVEL_NONE);
	ASSERT_EQ(fw_job_gpus(&s->jobs[0]), 2);
	ASSERT_EQ(fw_job_request(&s->jobs[0]).v[FW_RES_GPU], 2000);
	fw_snapshot_free(s);
}

TEST(duplicate_node_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	tb_node(s, "n0", 8, NULL, "r1", NULL, NULL);
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EEXIST);
	ASSERT_STR_CONTAINS(d.msg, "duplicate node");
	ASSERT_STR_EQ(d.field, "nodes[2].name");
	fw_snapshot_free(s);
}

/* config.xfactor_cap_s: < 0 (off), 0 (the policy's) and 60 s .. a year
 * pass; a cap below the shortest runtime the order assumes, or past a
 * year (where its arithmetic would overflow), is refused by name. */
TEST(expansion_factor_cap_is_bounded)
{
	static const struct { int64_t cap; int ok; } c[] = {
		{ -1, 1 }, { 0, 1 }, { 60, 1 }, { 31536000, 1 }, { 59, 0 }, { 31536001, 0 }, { INT64_MAX, 0 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fw_snapshot *s = small();
		struct fw_diag d;
		s->config.xfactor_cap_s = c[i].cap;
		if (c[i].ok) {
			ASSERT_OK(fw_snapshot_validate(s, &d));
		} else {
			ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
			ASSERT_STR_EQ(d.field, "config.xfactor_cap_s");
		}
		fw_snapshot_free(s);
	}
}

TEST(queue_cycle_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	s->queues[0].parent = 1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ELOOP);
	ASSERT_STR_EQ(d.field, "queues[0]");
	ASSERT_STR_EQ(d.msg, "queue \"org\" is its own ancestor (org -> team -> org); break the cycle by making one "
			     "of these queues top-level or giving it another parent");
	fw_snapshot_free(s);
}

/* A queue under a cycle (not on it) that comes first: the error names a
 * queue on the cycle, with the cycle's path; fw_queue_cycle tells them
 * apart, and a parent out of range ends a chain (no read past the array). */
TEST(queue_cycle_is_named_by_its_path)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_diag d;
	char chain[64];
	int leaf = tb_queue(s, "leaf", -1, 1, -1, 1), a = tb_queue(s, "a", -1, 1, -1, 1);
	int b = tb_queue(s, "b", a, 1, -1, 1), c = tb_queue(s, "c", b, 1, -1, 1);

	s->queues[leaf].parent = c;
	s->queues[a].parent = c; /* a -> c -> b -> a, leaf under it */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ELOOP);
	ASSERT_STR_EQ(d.field, "queues[1]"); /* a, the cycle's first queue */
	ASSERT_STR_CONTAINS(d.msg, "queue \"a\" is its own ancestor (a -> c -> b -> a)");
	ASSERT(!fw_queue_cycle(s, leaf, chain, sizeof chain));
	ASSERT(fw_queue_cycle(s, b, chain, sizeof chain));
	ASSERT_STR_EQ(chain, "b -> a -> c -> b");
	ASSERT(fw_queue_cycle(s, a, chain, 12)); /* cut after a whole name */
	ASSERT_STR_EQ(chain, "a -> c -> b");
	s->queues[a].parent = 9; /* out of range: no cycle, and the range check names it */
	ASSERT(!fw_queue_cycle(s, c, chain, sizeof chain));
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "queues[1]");
	fw_snapshot_free(s);
}

TEST(negative_quota_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	s->queues[1].deserved.v[FW_RES_GPU] = -1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "negative gpu quota");
	fw_snapshot_free(s);
}

TEST(job_on_inner_queue_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	s->jobs[0].queue = 0;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "leaf");
	fw_snapshot_free(s);
}

TEST(bad_running_allocation_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	int n[] = { 0 };
	tb_run(s, 0, 1, n, 0x7); /* 3 GPUs for a 2-GPU task */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "holds 3 GPUs");
	fw_snapshot_free(s);
}

TEST(fractional_gang_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	s->jobs[0].groups[0].gpu_milli = 500; /* 2 GPUs x 0.5 is not allowed */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	fw_snapshot_free(s);
}

/* Task counts whose sum leaves int32 (four groups of 2^30 tasks wrap
 * fw_job_tasks() to 0) must not pass: the cycle sizes its placement
 * scratch by that sum and would then write far past it. */
TEST(huge_task_count_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	struct fw_job *j = &s->jobs[0];
	j->ngroups = 4;
	for (int g = 0; g < 4; g++) {
		j->groups[g].count = 1 << 30;
		j->groups[g].gpus = 0;
		j->groups[g].gpu_milli = 1000;
	}
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "tasks");
	j->ngroups = 1;
	j->groups[0].count = FW_MAX_TASKS;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	j->groups[0].count = FW_MAX_TASKS + 1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	fw_snapshot_free(s);
}

/* A running job "that runs for ever" given as a huge runtime: its end,
 * start + runtime, overflowed to a time before now, so the cycle had it
 * end now and reserved its busy nodes for a gang at now (and the checker,
 * doing the same sum, agreed). */
TEST(times_beyond_the_time_range_are_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	int n[] = { 0 };
	tb_run(s, 0, 1, n, 0x3);
	s->now = 1000;
	s->jobs[0].start_time = 500;
	s->jobs[0].expected_runtime = INT64_MAX - 100;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	s->jobs[0].expected_runtime = FW_TIME_MAX;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->jobs[0].start_time = INT64_MIN;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	s->jobs[0].start_time = 500;
	s->queues[1].default_runtime_s = FW_TIME_MAX + 1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	s->queues[1].default_runtime_s = 0;
	s->now = INT64_MAX;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	fw_snapshot_free(s);
}

/* Running jobs that together hold more of a node than it has: one GPU
 * index named by two whole tasks, fractions that add up past a GPU, more
 * CPU or memory than the node's.  The first job that overbooks is named
 * with the node; sharing a GPU in fractions that fit is fine. */
TEST(overbooked_node_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	int n0[] = { 0 };
	int b = tb_job(s, "j1", 1, 1, 2, 1000, 0);

	tb_run(s, 0, 1, n0, 0x3);
	tb_run(s, b, 1, n0, 0x6); /* GPU 1 twice */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EBUSY);
	ASSERT_STR_EQ(d.field, "jobs[1]");
	ASSERT_STR_CONTAINS(d.msg, "running job j1: GPU 1 of node n0 is already held");
	s->allocs[1].gpu_mask = 0xc; /* GPUs 2 and 3: fine */
	ASSERT_OK(fw_snapshot_validate(s, &d));

	s->jobs[0].groups[0].cpu_milli = 100000; /* n0 has 128 cores */
	s->jobs[1].groups[0].cpu_milli = 28001;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EBUSY);
	ASSERT_STR_CONTAINS(d.msg, "running job j1: a task on node n0 needs 28001 CPU millicores");
	s->jobs[1].groups[0].cpu_milli = 28000;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->jobs[1].groups[0].mem_mib = INT64_MAX; /* no overflow on the way */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EBUSY);
	ASSERT_STR_CONTAINS(d.msg, "MiB of memory");
	ASSERT_STR_CONTAINS(d.msg, "node n0");
	s->jobs[1].groups[0].mem_mib = 0;

	for (int j = 0; j < 2; j++) { /* two half GPUs on GPU 5 fit; 0.6 + 0.5 do not */
		s->jobs[j].groups[0].gpus = 1;
		s->jobs[j].groups[0].gpu_milli = 500;
		s->allocs[j].gpu_mask = 0x20;
		s->allocs[j].gpu_milli = 500;
	}
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->jobs[0].groups[0].gpu_milli = s->allocs[0].gpu_milli = 600;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EBUSY);
	ASSERT_STR_CONTAINS(d.msg, "GPU 5 of node n0 is already held by running tasks (600 milli taken");
	fw_snapshot_free(s);
}

/* Every structural rule of fw_snapshot_validate, one broken field at a
 * time on the same valid snapshot (small(), its job running on n0): the
 * code, and the element it names.  The config loader refuses most of
 * these itself, with a line; the simulator, the daemon and the Slurm
 * adapter build snapshots without it, so the rules stand on their own. */
static void m_levels_many(struct fw_snapshot *s) { s->topology.nlevels = FW_MAX_LEVELS + 1; }
static void m_level_node(struct fw_snapshot *s) { snprintf(s->topology.level[0], FW_NAME_MAX, "node"); }
static void m_level_twice(struct fw_snapshot *s)
{
	s->topology.nlevels = 2;
	snprintf(s->topology.level[1], FW_NAME_MAX, "rack");
	for (int i = 0; i < s->nnodes; i++)
		snprintf(s->nodes[i].path[1], FW_NAME_MAX, "x");
}
static void m_node_unnamed(struct fw_snapshot *s) { s->nodes[1].name[0] = 0; }
static void m_node_gpus(struct fw_snapshot *s) { s->nodes[1].gpu_count = FW_MAX_GPUS_PER_NODE + 1; }
static void m_node_cpu(struct fw_snapshot *s) { s->nodes[1].cpu_milli = -1; }
static void m_node_health(struct fw_snapshot *s) { s->nodes[1].health = FW_HEALTH_COUNT; }
static void m_node_path(struct fw_snapshot *s) { s->nodes[1].path[0][0] = 0; }
static void m_queue_unnamed(struct fw_snapshot *s) { s->queues[1].name[0] = 0; }
static void m_queue_parent(struct fw_snapshot *s) { s->queues[1].parent = 7; }
static void m_queue_limit(struct fw_snapshot *s) { s->queues[1].limit.v[FW_RES_CPU] = -2; }
static void m_queue_weight(struct fw_snapshot *s) { s->queues[1].over_quota_weight[FW_RES_GPU] = -0.5; }
static void m_queue_nan(struct fw_snapshot *s) { s->queues[1].over_quota_weight[FW_RES_MEM] = 0.0 / 0.0; }
static void m_queue_runtime(struct fw_snapshot *s) { s->queues[1].min_runtime_s = -1; }
static void m_queue_twice(struct fw_snapshot *s) { snprintf(s->queues[1].name, FW_NAME_MAX, "org"); }
static void m_job_unnamed(struct fw_snapshot *s) { s->jobs[0].name[0] = 0; }
static void m_job_queue(struct fw_snapshot *s) { s->jobs[0].queue = 2; }
static void m_job_groups(struct fw_snapshot *s) { s->jobs[0].ngroups = FW_MAX_GROUPS + 1; }
static void m_group_count(struct fw_snapshot *s) { s->jobs[0].groups[0].count = 0; }
static void m_group_gpus(struct fw_snapshot *s) { s->jobs[0].groups[0].gpus = -1; }
static void m_group_milli(struct fw_snapshot *s) { s->jobs[0].groups[0].gpu_milli = 1001; }
static void m_group_mem(struct fw_snapshot *s) { s->jobs[0].groups[0].mem_mib = -1; }
static void m_min_member(struct fw_snapshot *s) { s->jobs[0].min_member = 2; }
static void m_job_level(struct fw_snapshot *s) { s->jobs[0].required_level = 1; }
static void m_job_checkpoint(struct fw_snapshot *s) { s->jobs[0].checkpoint_s = -1; }
static void m_job_state(struct fw_snapshot *s) { s->jobs[0].state = (enum fw_job_state)42; }
static void m_alloc_range(struct fw_snapshot *s) { s->jobs[0].alloc_count = 2; }
static void m_alloc_node(struct fw_snapshot *s) { s->allocs[0].node = 2; }
static void m_alloc_group(struct fw_snapshot *s) { s->allocs[0].group = 1; }
static void m_alloc_gpu_index(struct fw_snapshot *s)
{
	s->nodes[0].gpu_count = 1; /* the task holds GPUs 0 and 1 */
}
static void m_alloc_milli(struct fw_snapshot *s)
{
	s->jobs[0].groups[0].gpus = 1;
	s->allocs[0].gpu_mask = 1;
	s->allocs[0].gpu_milli = 0;
}
static void m_job_twice(struct fw_snapshot *s)
{
	int b = tb_job(s, "j1", 1, 1, 1, 1000, 0);
	snprintf(s->jobs[b].name, FW_NAME_MAX, "j0");
}

TEST(every_rule_names_the_element_it_refuses)
{
	static const struct {
		const char *what;
		void (*mutate)(struct fw_snapshot *);
		int err;
		const char *field, *msg;
	} c[] = {
		{ "too many levels", m_levels_many, FW_ERANGE, "topology.levels", "levels; use 0 to" },
		{ "a level named node", m_level_node, FW_EINVAL, "topology.levels", "reserved name" },
		{ "a level twice", m_level_twice, FW_EEXIST, "topology.levels", "listed twice" },
		{ "a node without a name", m_node_unnamed, FW_EINVAL, "nodes[1]", "needs a name" },
		{ "17 GPUs", m_node_gpus, FW_ERANGE, "nodes[1]", "has 17 GPUs" },
		{ "negative CPU", m_node_cpu, FW_ERANGE, "nodes[1]", "negative capacity" },
		{ "unknown health", m_node_health, FW_ERANGE, "nodes[1]", "has health" },
		{ "no rack", m_node_path, FW_EINVAL, "nodes[1]", "no domain for topology level rack" },
		{ "a queue without a name", m_queue_unnamed, FW_EINVAL, "queues[1]", "needs a name" },
		{ "parent out of range", m_queue_parent, FW_ENOENT, "queues[1]", "parent index 7" },
		{ "limit below -1", m_queue_limit, FW_ERANGE, "queues[1]", "cpu limit below -1" },
		{ "negative weight", m_queue_weight, FW_ERANGE, "queues[1]", "negative gpu overQuotaWeight" },
		{ "NaN weight", m_queue_nan, FW_ERANGE, "queues[1]", "overQuotaWeight" },
		{ "negative minRuntime", m_queue_runtime, FW_ERANGE, "queues[1]", "negative minRuntime" },
		{ "a queue twice", m_queue_twice, FW_EEXIST, "queues[1].name", "duplicate queue \"org\"" },
		{ "a job without a name", m_job_unnamed, FW_EINVAL, "jobs[0]", "needs a name" },
		{ "queue out of range", m_job_queue, FW_ENOENT, "jobs[0]", "no valid queue" },
		{ "five groups", m_job_groups, FW_ERANGE, "jobs[0]", "5 task groups" },
		{ "no tasks", m_group_count, FW_ERANGE, "jobs[0]", "count >= 1" },
		{ "negative GPUs", m_group_gpus, FW_ERANGE, "jobs[0]", "gpus per task must be" },
		{ "1001 milli", m_group_milli, FW_ERANGE, "jobs[0]", "1..1000 milli" },
		{ "negative memory", m_group_mem, FW_ERANGE, "jobs[0]", "negative cpu or memory" },
		{ "minMember above the tasks", m_min_member, FW_ERANGE, "jobs[0]", "minMember 2 outside 0..1" },
		{ "unknown level", m_job_level, FW_EINVAL, "jobs[0]", "unknown topology level" },
		{ "negative checkpoint", m_job_checkpoint, FW_ERANGE, "jobs[0]", "checkpoint interval -1 s" },
		{ "unknown state", m_job_state, FW_EINVAL, "jobs[0]", "unknown state" },
		{ "allocations past the array", m_alloc_range, FW_EINVAL, "jobs[0]", "no valid allocation range" },
		{ "allocation on node 2", m_alloc_node, FW_ENOENT, "jobs[0]", "unknown node" },
		{ "allocation of group 1", m_alloc_group, FW_ERANGE, "jobs[0]", "names group 1" },
		{ "GPU 1 of a 1-GPU node", m_alloc_gpu_index, FW_ERANGE, "jobs[0]", "GPU index beyond node n0's 1 GPUs" },
		{ "0 milli held", m_alloc_milli, FW_ERANGE, "jobs[0]", "gpu milli out of range" },
		{ "a job twice", m_job_twice, FW_EEXIST, "jobs[1].name", "duplicate job \"j0\"" },
	};
	int n0[] = { 0 };

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fw_snapshot *s = small();
		struct fw_diag d;
		tb_run(s, 0, 1, n0, 0x3);
		ASSERT_OK(fw_snapshot_validate(s, &d));
		c[i].mutate(s);
		memset(&d, 0, sizeof d);
		int rc = fw_snapshot_validate(s, &d);
		if (rc != c[i].err || strcmp(d.field, c[i].field) || !strstr(d.msg, c[i].msg))
			fprintf(stderr, "  %s: rc %d field %s: %s\n", c[i].what, rc, d.field, d.msg);
		ASSERT_EQ(rc, c[i].err);
		ASSERT_STR_EQ(d.field, c[i].field);
		ASSERT_STR_CONTAINS(d.msg, c[i].msg);
		fw_snapshot_free(s);
	}
}

/* validate.c finds duplicate names by comparing pairs when there are up
 * to 32 and by sorting past that; both name the smallest duplicated name
 * at its second occurrence.  2 to 70 nodes with names from 24 two-letter
 * ones (one, several or many duplicates), or all distinct. */
TEST(duplicate_names_are_found_alike_by_both_ways)
{
	uint32_t x = 99;
	int checked = 0, clean = 0;
	for (int round = 0; round < 400; round++) {
		struct fw_snapshot *s = fw_snapshot_new();
		int n = 2 + round % 69;
		for (int i = 0; i < n; i++) {
			char nm[16];
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			if (round % 5 == 0) /* every fifth round: no duplicate */
				snprintf(nm, sizeof nm, "u%d", i);
			else
				snprintf(nm, sizeof nm, "%c%c", 'a' + (char)(x % 6), 'a' + (char)(x / 6 % 4));
			tb_node(s, nm, 8, NULL, NULL, NULL, NULL);
		}
		int want = -1;
		for (int j = 1; j < n; j++)
			for (int i = 0; i < j; i++)
				if (!strcmp(s->nodes[i].name, s->nodes[j].name) &&
				    (want < 0 || strcmp(s->nodes[j].name, s->nodes[want].name) < 0)) {
					want = j;
					break;
				}
		struct fw_diag d;
		int rc = fw_snapshot_validate(s, &d);
		if (want < 0) {
			ASSERT_OK(rc);
			clean++;
		} else {
			char f[32];
			snprintf(f, sizeof f, "nodes[%d].name", want);
			ASSERT_EQ(rc, FW_EEXIST);
			ASSERT_STR_EQ(d.field, f);
			checked++;
		}
		fw_snapshot_free(s);
	}
	ASSERT(checked > 100 && clean > 20);
}

/* A node filter (snapshot.h "Node filters"): restrict_job sorts and
 * dedupes, refuses what validation would and adds nothing then; the
 * lookup finds it; validation refuses a hand-made table that breaks a
 * rule, naming the entry. */
TEST(node_filters_are_built_and_checked)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	const int32_t *v;
	int j1 = tb_job(s, "j1", 1, 1, 1, 1000, 1);
	int32_t both[] = { 1, 0, 1 }, bad[] = { 2 }, one[] = { 0 };

	ASSERT_EQ(fw_snapshot_job_nodes(s, 0, &v), -1);
	ASSERT_EQ(fw_snapshot_restrict_job(s, j1, both, 0), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_job(s, j1, bad, 1), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_job(s, 2, one, 1), FW_EINVAL);
	ASSERT_EQ(s->njob_nodes, 0);
	ASSERT_EQ(s->nnode_refs, 0);
	ASSERT_EQ(fw_snapshot_restrict_job(s, j1, both, 3), 0);
	ASSERT_EQ(fw_snapshot_restrict_job(s, 0, one, 1), FW_EINVAL); /* after j1: out of order */
	ASSERT_EQ(fw_snapshot_restrict_job(s, j1, one, 1), FW_EINVAL); /* twice */
	ASSERT_EQ(fw_snapshot_job_nodes(s, 0, &v), -1);
	ASSERT_EQ(fw_snapshot_job_nodes(s, j1, &v), 2);
	ASSERT_EQ(v[0], 0);
	ASSERT_EQ(v[1], 1);
	ASSERT_OK(fw_snapshot_validate(s, &d));

	s->node_refs[1] = 0; /* not distinct */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "job_nodes[0].nodes");
	s->node_refs[1] = 7; /* no such node */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "job_nodes[0].nodes");
	s->node_refs[1] = 1;
	s->job_nodes[0].count = 3; /* past node_refs */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "job_nodes[0]");
	s->job_nodes[0].count = 2;
	s->job_nodes[0].job = 5; /* no such job */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	s->job_nodes[0].job = j1;
	int j2 = tb_job(s, "j2", 1, 1, 1, 1000, 2);
	ASSERT_EQ(fw_snapshot_restrict_job(s, j2, one, 1), 1);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->job_nodes[1].job = j1; /* two entries for one job */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "job_nodes[1]");
	s->job_nodes[1].job = j2;

	/* a third job shares j1's list: no new references */
	int j3 = tb_job(s, "j3", 1, 1, 1, 1000, 3);
	ASSERT_EQ(fw_snapshot_restrict_job_as(s, j3, 2), FW_EINVAL); /* no entry 2 */
	ASSERT_EQ(fw_snapshot_restrict_job_as(s, j2, 0), FW_EINVAL); /* out of order */
	ASSERT_EQ(fw_snapshot_restrict_job_as(s, j3, 0), 2);
	ASSERT_EQ(s->nnode_refs, 3);
	ASSERT_EQ(fw_snapshot_job_nodes(s, j3, &v), 2);
	ASSERT(v == s->node_refs);
	ASSERT_OK(fw_snapshot_validate(s, &d));

	/* an except entry: the nodes the job may not use; shared, it stays one */
	int j4 = tb_job(s, "j4", 1, 1, 1, 1000, 4), j5 = tb_job(s, "j5", 1, 1, 1, 1000, 5);
	ASSERT_EQ(fw_snapshot_restrict_job_except(s, j4, one, 0), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_job_except(s, j4, one, 1), 3);
	ASSERT_EQ(fw_snapshot_restrict_job_as(s, j5, 3), 4);
	ASSERT_EQ(s->job_nodes[4].except, 1);
	ASSERT_EQ(s->job_nodes[0].except, 0);
	ASSERT(!fw_snapshot_job_may_use(s, j4, 0) && fw_snapshot_job_may_use(s, j4, 1));
	ASSERT(!fw_snapshot_job_may_use(s, j5, 0) && fw_snapshot_job_may_use(s, j5, 1));
	ASSERT(fw_snapshot_job_may_use(s, j2, 0) && !fw_snapshot_job_may_use(s, j2, 1));
	ASSERT(fw_snapshot_job_may_use(s, 0, 0) && fw_snapshot_job_may_use(s, 0, 1)); /* no filter */
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->job_nodes[3].except = 2;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "job_nodes[3]");
	fw_snapshot_free(s);
}

/* Group filters (snapshot.h "Group filters"): restrict_group sorts and
 * dedupes, refuses what validation would (no such group, out of order,
 * twice, empty, a bad node or kind) and adds nothing then; the _as form
 * shares a job filter's list; group_may_use asks both the job's filter
 * and the group's; validation refuses a hand-made table that breaks a
 * rule, naming the entry. */
TEST(group_filters_are_built_and_checked)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	int j1 = tb_job(s, "j1", 1, 1, 1, 1000, 1), j2 = tb_job(s, "j2", 1, 1, 1, 1000, 2);
	int32_t both[] = { 1, 0, 1 }, bad[] = { 2 }, n0[] = { 0 }, n1[] = { 1 };

	s->jobs[j1].groups[1] = s->jobs[j1].groups[0];
	s->jobs[j1].ngroups = 2;
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 2, n0, 1, 0), FW_EINVAL); /* no group 2 */
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, -1, n0, 1, 0), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 0, n0, 0, 0), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 0, bad, 1, 0), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 0, n0, 1, 2), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_restrict_group(s, 9, 0, n0, 1, 0), FW_EINVAL);
	ASSERT_EQ(s->ngroup_nodes, 0);
	ASSERT_EQ(s->nnode_refs, 0);
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 1, both, 3, 0), 0);
	ASSERT_EQ(s->nnode_refs, 2); /* sorted, distinct */
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 0, n0, 1, 0), FW_EINVAL); /* after group 1: out of order */
	ASSERT_EQ(fw_snapshot_restrict_group(s, j1, 1, n0, 1, 0), FW_EINVAL); /* twice */
	ASSERT_EQ(fw_snapshot_restrict_group(s, 0, 0, n0, 1, 0), FW_EINVAL); /* an earlier job */
	ASSERT_EQ(fw_snapshot_restrict_group(s, j2, 0, n1, 1, 1), 1);        /* every node but n1 */
	ASSERT_EQ(s->ngroup_nodes, 2);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	ASSERT(fw_snapshot_group_may_use(s, j1, 0, 0) && fw_snapshot_group_may_use(s, j1, 0, 1)); /* none */
	ASSERT(fw_snapshot_group_may_use(s, j1, 1, 0) && fw_snapshot_group_may_use(s, j1, 1, 1));
	ASSERT(fw_snapshot_group_may_use(s, j2, 0, 0) && !fw_snapshot_group_may_use(s, j2, 0, 1));
	ASSERT(fw_snapshot_job_may_use(s, j2, 1)); /* the job's own filter: none */

	/* a job filter and a group filter: both must allow */
	int j3 = tb_job(s, "j3", 1, 1, 1, 1000, 3);
	s->jobs[j3].groups[1] = s->jobs[j3].groups[0];
	s->jobs[j3].ngroups = 2;
	ASSERT_EQ(fw_snapshot_restrict_job(s, j3, n1, 1), 0);
	ASSERT_EQ(fw_snapshot_restrict_group_as(s, j3, 0, 1), FW_EINVAL); /* no job entry 1 */
	ASSERT_EQ(fw_snapshot_restrict_group_as(s, j3, 1, 0), 2);         /* shares n1's list */
	ASSERT_EQ(s->group_nodes[2].first, s->job_nodes[0].first);
	ASSERT(!fw_snapshot_group_may_use(s, j3, 0, 0) && fw_snapshot_group_may_use(s, j3, 0, 1));
	ASSERT(!fw_snapshot_group_may_use(s, j3, 1, 0) && fw_snapshot_group_may_use(s, j3, 1, 1));
	ASSERT_OK(fw_snapshot_validate(s, &d));

	s->group_nodes[0].group = 2; /* j1 has two groups */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "group_nodes[0].group");
	s->group_nodes[0].group = 1;
	s->group_nodes[1].job = j1; /* j2's entry before j1's... as j1's group 0 */
	s->group_nodes[1].group = 0;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "group_nodes[1]");
	s->group_nodes[1].job = j2;
	s->node_refs[s->group_nodes[0].first + 1] = 0; /* not distinct */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "group_nodes[0].nodes");
	s->node_refs[s->group_nodes[0].first + 1] = 1;
	s->group_nodes[1].except = 3;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "group_nodes[1]");
	s->group_nodes[1].except = 1;
	s->group_nodes[1].job = 7; /* no such job */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "group_nodes[1]");
	s->group_nodes[1].job = j2;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	fw_snapshot_free(s);
}

/* fw_node_has_labels: every pair must be on the node with its value; ""
 * is the label without a value, not any value; no pairs meet every node. */
TEST(node_labels_meet_a_selector)
{
	struct fw_node n;
	struct fw_label sel[3];

	fw_node_init(&n);
	memset(sel, 0, sizeof sel);
	n.nlabels = 2;
	strcpy(n.labels[0].key, "gpu");
	strcpy(n.labels[0].value, "h100");
	strcpy(n.labels[1].key, "ib"); /* no value */
	ASSERT(fw_node_has_labels(&n, sel, 0));
	strcpy(sel[0].key, "gpu");
	strcpy(sel[0].value, "h100");
	ASSERT(fw_node_has_labels(&n, sel, 1));
	strcpy(sel[1].key, "ib");
	ASSERT(fw_node_has_labels(&n, sel, 2));
	strcpy(sel[1].value, "yes"); /* ib has no value */
	ASSERT(!fw_node_has_labels(&n, sel, 2));
	strcpy(sel[0].value, ""); /* gpu has one */
	ASSERT(!fw_node_has_labels(&n, sel, 1));
	strcpy(sel[0].value, "h100");
	strcpy(sel[2].key, "zone");
	sel[1].value[0] = '\0';
	ASSERT(!fw_node_has_labels(&n, sel, 3)); /* zone is missing */
}

/* The tables beside the queues travel with a copy of the queues; the
 * fleet's GPU models are listed once each, in node order. */
TEST(queue_tables_are_copied_and_models_listed)
{
	struct fw_snapshot *s = fw_snapshot_new(), *c = fw_snapshot_new();
	struct fw_model_limit m = { .queue = 1, .model = "H100", .gpus = 4000 };
	struct fw_user_usage u = { .queue = 0, .user = "alice", .usage = 36.5, .usage_at = 7 };
	char models[64];

	ASSERT(fw_snapshot_add_model_limit(s, &m) == 0);
	ASSERT(fw_snapshot_add_user_usage(s, &u) == 0);
	ASSERT_OK(fw_snapshot_copy_queue_tables(c, s));
	ASSERT_EQ(c->nmodel_limits, 1);
	ASSERT_EQ(c->nuser_usage, 1);
	ASSERT(c->model_limits[0].queue == 1 && !strcmp(c->model_limits[0].model, "H100") &&
	       c->model_limits[0].gpus == 4000); /* field by field: memcmp would read padding */
	ASSERT(c->user_usage[0].queue == 0 && !strcmp(c->user_usage[0].user, "alice") && c->user_usage[0].usage == 36.5 &&
	       c->user_usage[0].usage_at == 7);
	const char *mod[] = { "A100", "H100", "A100", "" };
	for (int i = 0; i < 4; i++) {
		struct fw_node n;
		fw_node_init(&n);
		snprintf(n.name, sizeof n.name, "n%d", i);
		snprintf(n.gpu_model, sizeof n.gpu_model, "%s", mod[i]);
		n.gpu_count = i == 3 ? 0 : 8;
		ASSERT(fw_snapshot_add_node(s, &n) == i);
	}
	fw_snapshot_gpu_models(s, models, sizeof models);
	ASSERT_STR_EQ(models, "A100, H100");
	ASSERT(fw_snapshot_has_gpu_model(s, "H100") && !fw_snapshot_has_gpu_model(s, "B200") &&
	       !fw_snapshot_has_gpu_model(s, ""));
	fw_snapshot_gpu_models(s, models, 6); /* cut, never past the buffer */
	ASSERT_STR_EQ(models, "A100");
	fw_snapshot_free(s);
	fw_snapshot_free(c);
}

/* A model a person typed, in the fleet's spelling: exact first, else the
 * one model alike but for case; two such are a guess (NULL). */
TEST(gpu_model_is_spelt_as_the_fleet_does)
{
	struct fw_snapshot *s = fw_snapshot_new();

	tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	tb_node(s, "n1", 0, "B200", NULL, NULL, NULL); /* no GPUs: not a model of the fleet */
	tb_node(s, "n2", 8, "a100-80g", NULL, NULL, NULL);
	ASSERT_STR_EQ(fw_snapshot_gpu_model_spelling(s, "h100"), "H100");
	ASSERT_STR_EQ(fw_snapshot_gpu_model_spelling(s, "H100"), "H100");
	ASSERT_STR_EQ(fw_snapshot_gpu_model_spelling(s, "A100-80G"), "a100-80g");
	ASSERT(fw_snapshot_gpu_model_spelling(s, "b200") == NULL);
	ASSERT(fw_snapshot_gpu_model_spelling(s, "h10") == NULL);
	ASSERT(fw_snapshot_gpu_model_spelling(s, "h1000") == NULL);
	tb_node(s, "n3", 8, "h100", NULL, NULL, NULL);
	ASSERT_STR_EQ(fw_snapshot_gpu_model_spelling(s, "h100"), "h100"); /* exact, though H100 comes first */
	ASSERT(fw_snapshot_gpu_model_spelling(s, "H100") == s->nodes[0].gpu_model);
	ASSERT(fw_snapshot_gpu_model_spelling(s, "h100") == s->nodes[3].gpu_model);
	tb_node(s, "n4", 8, "Ab", NULL, NULL, NULL);
	tb_node(s, "n5", 8, "aB", NULL, NULL, NULL);
	ASSERT(fw_snapshot_gpu_model_spelling(s, "ab") == NULL);
	fw_snapshot_free(s);
}

TEST_MAIN(valid_snapshot_passes, node_filters_are_built_and_checked, group_filters_are_built_and_checked, node_labels_meet_a_selector, duplicate_node_is_rejected, duplicate_names_are_found_alike_by_both_ways,
	  queue_cycle_is_rejected, queue_cycle_is_named_by_its_path, expansion_factor_cap_is_bounded,
	  negative_quota_is_rejected, job_on_inner_queue_is_rejected, bad_running_allocation_is_rejected,
	  fractional_gang_is_rejected, huge_task_count_is_rejected,
	  times_beyond_the_time_range_are_rejected, overbooked_node_is_rejected,
	  every_rule_names_the_element_it_refuses, queue_tables_are_copied_and_models_listed,
	  gpu_model_is_spelt_as_the_fleet_does)
