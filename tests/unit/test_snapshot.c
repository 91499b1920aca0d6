/* test_snapshot.c — snapshot building and structural validation. */
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

TEST(queue_cycle_is_rejected)
{
	struct fw_snapshot *s = small();
	struct fw_diag d;
	s->queues[0].parent = 1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ELOOP);
	ASSERT_STR_CONTAINS(d.msg, "cycle");
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

TEST_MAIN(valid_snapshot_passes, duplicate_node_is_rejected, queue_cycle_is_rejected,
	  negative_quota_is_rejected, job_on_inner_queue_is_rejected, bad_running_allocation_is_rejected,
	  fractional_gang_is_rejected, huge_task_count_is_rejected,
	  times_beyond_the_time_range_are_rejected, overbooked_node_is_rejected)
