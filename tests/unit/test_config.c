/*
 * test_config.c — the YAML config loader (connectors/config).
 *
 * Covers: a full example with every section; the scalar syntaxes
 * (durations, memory and CPU quantities, GPU fractions); nodeGroups name
 * and domain generation; node order; running allocations; every file in
 * tests/bad_input with its error, line and field; tests/bad_input/cases.txt
 * against the formatted diagnosis; and the contract on failure (*out
 * untouched, diag filled, nothing leaked under ASan).
 *
 * Files are opened relative to the source root (FW_SRCDIR, set by meson;
 * "." otherwise, i.e. run from the repository root).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness.h"
#include "fairway/check.h"
#include "fairway/cycle.h"
#include "config_int.h"
#include "fwconfig.h"

#ifndef FW_SRCDIR
#define FW_SRCDIR "."
#endif

static int load(const char *yaml, struct fw_snapshot **s, struct fw_diag *d)
{
	memset(d, 0, sizeof *d);
	*s = NULL;
	return fw_config_load_buffer("t.yaml", yaml, strlen(yaml), s, d);
}

/* Load yaml expecting failure; check err, line and field. */
#define EXPECT_FAIL(yaml, want_err, want_line, want_field)                  \
	do {                                                                 \
		struct fw_snapshot *s__;                                     \
		struct fw_diag d__;                                          \
		ASSERT_EQ(load((yaml), &s__, &d__), (want_err));             \
		ASSERT(s__ == NULL);                                         \
		ASSERT_EQ(d__.line, (want_line));                            \
		ASSERT_STR_EQ(d__.field, (want_field));                      \
		ASSERT_STR_EQ(d__.file, "t.yaml");                           \
		ASSERT(d__.msg[0] != 0);                                     \
	} while (0)

static const char full_yaml[] =
	"now: 3600\n"
	"scheduler: {usageHalfLife: 2h, usageWeight: 0.5, maxStarts: 7}\n"
	"topology:\n"
	"  levels: [block, rack, nvlink]\n"
	"jobs:\n" /* before queues and nodes on purpose */
	"  - name: train-1\n"
	"    queue: research\n"
	"    user: alice\n"
	"    priority: 10\n"
	"    preemptible: true\n"
	"    submitTime: 100\n"
	"    expectedRuntime: 1h30m\n"
	"    checkpointInterval: 30m\n"
	"    minMember: 0\n"
	"    spread: true\n"
	"    tasks:\n"
	"      - {count: 2, gpus: 4, cpu: 8, memory: 64Gi, gpuModel: H100}\n"
	"      - {count: 1, cpu: 500m, memory: 512}\n"
	"    topology: {required: rack, preferred: node}\n"
	"    state: running\n"
	"    startTime: 150\n"
	"    allocation:\n"
	"      - {node: n001, group: 0, gpus: [0, 1, 2, 4]}\n"
	"      - {node: n002, gpus: [4, 5, 6, 7]}\n"
	"      - {node: n002, group: 1}\n"
	"  - name: nb\n"
	"    queue: research\n"
	"    tasks: [{gpu: 0.25}]\n"
	"nodes:\n"
	"  - name: n001\n"
	"    gpus: 8\n"
	"    gpuModel: H100\n"
	"    gpuMemory: 80Gi\n"
	"    cpu: 96\n"
	"    memory: 1Ti\n"
	"    schedulable: false\n"
	"    badGpus: [3, 7]\n"
	"    topology: {block: b1, rack: r1, nvlink: nv1}\n"
	"    labels: {zone: a, tier: \"1\"}\n"
	"  - {name: n002, gpus: 8, gpuModel: H100, cpu: \"96\",\n"
	"     memory: 1024Gi, topology: {block: b1, rack: r1, nvlink: nv2}}\n"
	"queues:\n"
	"  - name: research\n"
	"    parent: org\n"
	"    priority: 3\n"
	"    resources:\n"
	"      gpu: {quota: 16, limit: 32, overQuotaWeight: 2}\n"
	"      cpu: {quota: 64, limit: -1, overQuotaWeight: 1}\n"
	"      memory: {quota: 512Gi}\n"
	"    usage: {gpuHours: 120, at: 60}\n"
	"  - name: org\n"
	"    resources: {gpu: {quota: 0.5}}\n";

TEST(full_example)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load(full_yaml, &s, &d));
	ASSERT_EQ(s->now, 3600);
	ASSERT_NEAR(s->config.usage_half_life_s, 7200, 1e-9);
	ASSERT_NEAR(s->config.usage_weight, 0.5, 1e-12);
	ASSERT_EQ(s->config.max_starts, 7);
	ASSERT_EQ(s->topology.nlevels, 3);
	ASSERT_STR_EQ(s->topology.level[2], "nvlink");
	ASSERT_EQ(s->nnodes, 2);
	const struct fw_node *n = &s->nodes[0];
	ASSERT_STR_EQ(n->name, "n001");
	ASSERT_STR_EQ(n->gpu_model, "H100");
	ASSERT_EQ(n->gpu_count, 8);
	ASSERT_EQ(n->gpu_mem_mib, 80 * 1024);
	ASSERT_EQ(n->cpu_milli, 96000);
	ASSERT_EQ(n->mem_mib, 1024 * 1024);
	ASSERT(!n->schedulable);
	ASSERT_EQ(n->bad_gpu_mask, (1u << 3) | (1u << 7));
	ASSERT_STR_EQ(n->path[0], "b1");
	ASSERT_STR_EQ(n->path[2], "nv1");
	ASSERT_EQ(n->nlabels, 2);
	ASSERT_STR_EQ(n->labels[1].key, "tier");
	ASSERT_STR_EQ(n->labels[1].value, "1");
	ASSERT(s->nodes[1].schedulable);
	ASSERT_EQ(s->nodes[1].cpu_milli, 96000);
	ASSERT_EQ(s->nodes[1].mem_mib, 1024 * 1024);
	fw_snapshot_free(s);
}

TEST(full_example_queues)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load(full_yaml, &s, &d));
	ASSERT_EQ(s->nqueues, 2);
	const struct fw_queue *q = &s->queues[0];
	ASSERT_STR_EQ(q->name, "research");
	ASSERT_EQ(q->parent, 1);
	ASSERT_EQ(q->priority, 3);
	ASSERT_EQ(q->deserved.v[FW_RES_GPU], 16000);
	ASSERT_EQ(q->limit.v[FW_RES_GPU], 32000);
	ASSERT_NEAR(q->over_quota_weight[FW_RES_GPU], 2, 1e-12);
	ASSERT_EQ(q->deserved.v[FW_RES_CPU], 64000);
	ASSERT_EQ(q->limit.v[FW_RES_CPU], FW_UNLIMITED);
	ASSERT_EQ(q->deserved.v[FW_RES_MEM], 512 * 1024);
	ASSERT_EQ(q->limit.v[FW_RES_MEM], FW_UNLIMITED);
	ASSERT_NEAR(q->over_quota_weight[FW_RES_MEM], 1, 1e-12);
	ASSERT_NEAR(q->usage, 120 * 3600.0, 1e-6);
	ASSERT_EQ(q->usage_at, 60);
	ASSERT_EQ(s->queues[1].parent, -1);
	ASSERT_EQ(s->queues[1].deserved.v[FW_RES_GPU], 500);
	ASSERT_EQ(s->queues[1].usage_at, 3600); /* defaults to now */
	fw_snapshot_free(s);
}

TEST(full_example_jobs)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load(full_yaml, &s, &d));
	ASSERT_EQ(s->njobs, 2);
	const struct fw_job *j = &s->jobs[0];
	ASSERT_STR_EQ(j->name, "train-1");
	ASSERT_EQ(j->queue, 0);
	ASSERT_STR_EQ(j->user, "alice");
	ASSERT_EQ(j->priority, 10);
	ASSERT(j->preemptible && j->spread);
	ASSERT_EQ(j->submit_time, 100);
	ASSERT_EQ(j->expected_runtime, 5400);
	ASSERT_EQ(j->checkpoint_s, 1800);
	ASSERT_EQ(s->jobs[1].checkpoint_s, 0);
	ASSERT_EQ(j->ngroups, 2);
	ASSERT_EQ(j->groups[0].count, 2);
	ASSERT_EQ(j->groups[0].gpus, 4);
	ASSERT_EQ(j->groups[0].gpu_milli, 1000);
	ASSERT_EQ(j->groups[0].mem_mib, 65536);
	ASSERT_STR_EQ(j->groups[0].gpu_model, "H100");
	ASSERT_EQ(j->groups[1].gpus, 0);
	ASSERT_EQ(j->groups[1].cpu_milli, 500);
	ASSERT_EQ(j->groups[1].mem_mib, 512);
	ASSERT_EQ(j->required_level, 1);
	ASSERT_EQ(j->preferred_level, FW_LEVEL_NODE);
	ASSERT_EQ(j->state, FW_JOB_RUNNING);
	ASSERT_EQ(j->start_time, 150);
	ASSERT_EQ(j->alloc_first, 0);
	ASSERT_EQ(j->alloc_count, 3);
	ASSERT_EQ(s->allocs[0].node, 0);
	ASSERT_EQ(s->allocs[0].gpu_mask, 0x17u);
	ASSERT_EQ(s->allocs[0].gpu_milli, 1000);
	ASSERT_EQ(s->allocs[1].node, 1);
	ASSERT_EQ(s->allocs[1].gpu_mask, 0xf0u);
	ASSERT_EQ(s->allocs[2].group, 1);
	ASSERT_EQ(s->allocs[2].gpu_mask, 0);
	ASSERT_EQ(s->jobs[1].state, FW_JOB_PENDING);
	ASSERT_EQ(s->jobs[1].required_level, FW_LEVEL_NONE);
	fw_snapshot_free(s);
}

TEST(defaults)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("nodes: [{name: n, cpu: 1}]\n"
		       "queues: [{name: q}]\n"
		       "jobs: [{name: j, queue: q, tasks: [{cpu: 1}]}]\n",
		       &s, &d));
	ASSERT_EQ(s->now, 0);
	ASSERT_NEAR(s->config.usage_half_life_s, 7 * 86400.0, 1e-9);
	ASSERT_EQ(s->nnodes, 1);
	ASSERT_EQ(s->nodes[0].gpu_count, 0);
	ASSERT_EQ(s->queues[0].limit.v[FW_RES_GPU], FW_UNLIMITED);
	ASSERT_EQ(s->jobs[0].groups[0].count, 1);
	ASSERT_EQ(s->jobs[0].groups[0].gpus, 0);
	ASSERT_EQ(s->jobs[0].state, FW_JOB_PENDING);
	fw_snapshot_free(s);
	/* null values are the same as absent keys */
	ASSERT_OK(load("now: ~\nnodes:\nqueues: []\n", &s, &d));
	ASSERT_EQ(s->now, 0);
	fw_snapshot_free(s);
}

static char *slurp(const char *path);

/* A job that does not say whether it may be evicted may, as the API's
 * (test_serve_codec.c job_parse_and_round_trip): one default,
 * FW_JOB_PREEMPTIBLE_DEFAULT, which docs/config.md's jobs table states;
 * it once was false here and true there.  `preemptible: false` says no. */
TEST(a_job_is_preemptible_unless_it_says_not)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	char *md = slurp("docs/config.md"), *row = md ? strstr(md, "\n## jobs\n") : NULL;

	ASSERT_OK(load("nodes: [{name: n, gpus: 8}]\n"
		       "queues: [{name: q}]\n"
		       "jobs:\n"
		       "  - {name: j, queue: q, tasks: [{gpus: 1}]}\n"
		       "  - {name: k, queue: q, preemptible: false, tasks: [{gpus: 1}]}\n"
		       "  - {name: l, queue: q, preemptible: true, tasks: [{gpus: 1}]}\n",
		       &s, &d));
	ASSERT(FW_JOB_PREEMPTIBLE_DEFAULT == true);
	ASSERT(s->jobs[0].preemptible);
	ASSERT(!s->jobs[1].preemptible);
	ASSERT(s->jobs[2].preemptible);
	fw_snapshot_free(s);
	ASSERT(row && (row = strstr(row, "\n| `preemptible` |")));
	ASSERT(!strncmp(row, "\n| `preemptible` | boolean | `true` |", strlen("\n| `preemptible` | boolean | `true` |")));
	free(md);
}

TEST(durations)
{
	int64_t ms;
	ASSERT_OK(fw_parse_duration_ms("30", &ms));
	ASSERT_EQ(ms, 30000);
	ASSERT_OK(fw_parse_duration_ms("30s", &ms));
	ASSERT_EQ(ms, 30000);
	ASSERT_OK(fw_parse_duration_ms("15m", &ms));
	ASSERT_EQ(ms, 900000);
	ASSERT_OK(fw_parse_duration_ms("2h", &ms));
	ASSERT_EQ(ms, 7200000);
	ASSERT_OK(fw_parse_duration_ms("7d", &ms));
	ASSERT_EQ(ms, 7 * 86400000LL);
	ASSERT_OK(fw_parse_duration_ms("1h30m", &ms));
	ASSERT_EQ(ms, 5400000);
	ASSERT_OK(fw_parse_duration_ms("1.5h", &ms));
	ASSERT_EQ(ms, 5400000);
	ASSERT_OK(fw_parse_duration_ms("0.5", &ms));
	ASSERT_EQ(ms, 500);
	ASSERT_EQ(fw_parse_duration_ms("", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("-5s", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("1h-5m", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("1week", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("1h5", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("s", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("0.0001s", &ms), FW_EINVAL);
	ASSERT_EQ(fw_parse_duration_ms("99999999999999999999d", &ms),
		  FW_ERANGE);
}

TEST(quantities)
{
	int64_t v;
	ASSERT_OK(fw_parse_mib("512", &v));
	ASSERT_EQ(v, 512);
	ASSERT_OK(fw_parse_mib("512Mi", &v));
	ASSERT_EQ(v, 512);
	ASSERT_OK(fw_parse_mib("80Gi", &v));
	ASSERT_EQ(v, 81920);
	ASSERT_OK(fw_parse_mib("1Ti", &v));
	ASSERT_EQ(v, 1048576);
	ASSERT_OK(fw_parse_mib("1.5Ti", &v));
	ASSERT_EQ(v, 1572864);
	ASSERT_OK(fw_parse_mib("2048Ki", &v));
	ASSERT_EQ(v, 2);
	ASSERT_OK(fw_parse_mib("1Pi", &v));
	ASSERT_EQ(v, 1024LL * 1024 * 1024);
	ASSERT_EQ(fw_parse_mib("100Ki", &v), FW_EINVAL); /* not whole MiB */
	ASSERT_EQ(fw_parse_mib("80G", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_mib("80 Gi", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_mib("0.5", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_mib("1e3", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_mib("9999999999999999Pi", &v), FW_ERANGE);
	ASSERT_OK(fw_parse_cpu("96", &v));
	ASSERT_EQ(v, 96000);
	ASSERT_OK(fw_parse_cpu("0.5", &v));
	ASSERT_EQ(v, 500);
	ASSERT_OK(fw_parse_cpu("500m", &v));
	ASSERT_EQ(v, 500);
	ASSERT_EQ(fw_parse_cpu("0.5m", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_cpu("m", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_cpu("0.0001", &v), FW_EINVAL);
	ASSERT_OK(fw_parse_fixed("0.25", 3, &v));
	ASSERT_EQ(v, 250);
	ASSERT_OK(fw_parse_int("8.0", &v));
	ASSERT_EQ(v, 8);
	ASSERT_OK(fw_parse_int("-1", &v));
	ASSERT_EQ(v, -1);
	ASSERT_EQ(fw_parse_int("8.5", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_int("0x10", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_int("99999999999999999999", &v), FW_ERANGE);
	/* more than 9 decimals is a syntax error, not "too large"; zeros past
	 * the ninth change nothing */
	ASSERT_EQ(fw_parse_mib("1.00000000001Gi", &v), FW_EINVAL);
	ASSERT_EQ(fw_parse_fixed("0.0000000001", 3, &v), FW_EINVAL);
	ASSERT_OK(fw_parse_int("8.000000000000000000000", &v));
	ASSERT_EQ(v, 8);
	ASSERT_OK(fw_parse_fixed("0.1234567890000", 9, &v));
	ASSERT_EQ(v, 123456789);
	bool b;
	ASSERT_OK(fw_parse_bool("True", &b));
	ASSERT(b);
	ASSERT_EQ(fw_parse_bool("yes", &b), FW_EINVAL);
}

TEST(quantities_in_yaml)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("nodes:\n"
		       "  - {name: a, gpus: 1, cpu: 1500m, memory: 512Mi}\n"
		       "  - {name: b, cpu: \"2.5\", memory: \"3\"}\n",
		       &s, &d));
	ASSERT_EQ(s->nodes[0].cpu_milli, 1500);
	ASSERT_EQ(s->nodes[0].mem_mib, 512);
	ASSERT_EQ(s->nodes[1].cpu_milli, 2500);
	ASSERT_EQ(s->nodes[1].mem_mib, 3);
	fw_snapshot_free(s);
	EXPECT_FAIL("nodes: [{name: a, memory: 1.5}]\n", FW_EINVAL, 1,
		    "nodes[0].memory");
	EXPECT_FAIL("nodes: [{name: a, cpu: -2}]\n", FW_ERANGE, 1,
		    "nodes[0].cpu");
	EXPECT_FAIL("nodes: [{name: a, cpu: 1e9999}]\n", FW_EINVAL, 1,
		    "nodes[0].cpu");
	EXPECT_FAIL("nodes: [{name: a, memory: 99999999999Ti}]\n", FW_ERANGE,
		    1, "nodes[0].memory");
	EXPECT_FAIL("now: 1.5\n", FW_EINVAL, 1, "now");
	EXPECT_FAIL("scheduler: {usageHalfLife: 0}\n", FW_ERANGE, 1,
		    "scheduler.usageHalfLife");
	EXPECT_FAIL("scheduler: {usageWeight: -1}\n", FW_ERANGE, 1,
		    "scheduler.usageWeight");
}

static const char group_yaml[] =
	"topology: {levels: [block, rack, nvlink]}\n"
	"nodeGroups:\n"
	"  - count: 16\n"
	"    namePrefix: n\n"
	"    gpus: 8\n"
	"    gpuModel: H100\n"
	"    cpu: 96\n"
	"    memory: 1Ti\n"
	"    labels: {pool: a}\n"
	"    topology: {nodesPer: {nvlink: 2, rack: 4, block: 8}}\n"
	"  - count: 1200\n"
	"    start: 16\n"
	"    namePrefix: x-\n"
	"    topology:\n"
	"      nodesPer: {nvlink: 2, rack: 4, block: 8}\n"
	"      prefix: {block: b, rack: r, nvlink: nv}\n"
	"nodes:\n"
	"  - {name: solo, topology: {block: s, rack: s, nvlink: s}}\n";

TEST(node_groups)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load(group_yaml, &s, &d));
	ASSERT_EQ(s->nnodes, 16 + 1200 + 1);
	/* nodeGroups comes first in the file, so its nodes come first */
	ASSERT_STR_EQ(s->nodes[0].name, "n000");
	ASSERT_STR_EQ(s->nodes[15].name, "n015");
	ASSERT_EQ(s->nodes[5].gpu_count, 8);
	ASSERT_EQ(s->nodes[5].cpu_milli, 96000);
	ASSERT_STR_EQ(s->nodes[5].gpu_model, "H100");
	ASSERT_STR_EQ(s->nodes[5].labels[0].value, "a");
	/* node 5: block 5/8=0, rack 5/4=1, nvlink 5/2=2; default prefix =
	 * the level's name */
	ASSERT_STR_EQ(s->nodes[5].path[0], "block0");
	ASSERT_STR_EQ(s->nodes[5].path[1], "rack1");
	ASSERT_STR_EQ(s->nodes[5].path[2], "nvlink2");
	ASSERT_STR_EQ(s->nodes[15].path[1], "rack3");
	/* second group: width of 16 + 1199 = 1215 is 4 digits */
	ASSERT_STR_EQ(s->nodes[16].name, "x-0016");
	ASSERT_STR_EQ(s->nodes[16 + 1199].name, "x-1215");
	ASSERT_STR_EQ(s->nodes[16].path[0], "b2");
	ASSERT_STR_EQ(s->nodes[16].path[1], "r4");
	ASSERT_STR_EQ(s->nodes[16].path[2], "nv8");
	ASSERT_STR_EQ(s->nodes[16 + 1199].path[2], "nv607");
	ASSERT_STR_EQ(s->nodes[1216].name, "solo");
	fw_snapshot_free(s);
}

TEST(node_groups_errors)
{
	EXPECT_FAIL("topology: {levels: [rack]}\n"
		    "nodeGroups: [{count: 2}]\n",
		    FW_EINVAL, 2, "nodeGroups[0].topology");
	EXPECT_FAIL("topology: {levels: [rack, nvlink]}\n"
		    "nodeGroups:\n"
		    "  - count: 4\n"
		    "    topology: {nodesPer: {rack: 4}}\n",
		    FW_EINVAL, 4, "nodeGroups[0].topology.nodesPer.nvlink");
	EXPECT_FAIL("nodeGroups: [{count: 0}]\n", FW_ERANGE, 1,
		    "nodeGroups[0].count");
	EXPECT_FAIL("nodeGroups: [{count: 70000}]\n", FW_ERANGE, 1,
		    "nodeGroups[0].count");
	EXPECT_FAIL("nodeGroups: [{count: 40000}, {count: 40000, "
		    "namePrefix: m}]\n",
		    FW_ERANGE, 1, "nodeGroups[1].count");
	EXPECT_FAIL("nodeGroups: [{count: 2}, {count: 2}]\n", FW_EEXIST, 1,
		    "nodeGroups[1].count");
	EXPECT_FAIL("nodeGroups: [{count: 2, badGpus: [1]}]\n", FW_EINVAL, 1,
		    "nodeGroups[0].badGpus");
}

TEST(fractional_gpu)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("nodes: [{name: n, gpus: 2, cpu: 8}]\n"
		       "queues: [{name: q}]\n"
		       "jobs:\n"
		       "  - {name: a, queue: q, tasks: [{gpu: 0.5}]}\n"
		       "  - {name: b, queue: q, tasks: [{gpu: 2}]}\n"
		       "  - {name: c, queue: q, tasks: [{gpu: 0.001}]}\n"
		       "  - {name: e, queue: q, tasks: [{gpu: 0, cpu: 1}]}\n"
		       "  - name: r\n"
		       "    queue: q\n"
		       "    tasks: [{count: 2, gpu: 0.5}]\n"
		       "    state: running\n"
		       "    allocation:\n"
		       "      - {node: n, gpus: [1]}\n"
		       "      - {node: n, gpus: [1], gpuMilli: 300}\n",
		       &s, &d));
	ASSERT_EQ(s->jobs[0].groups[0].gpus, 1);
	ASSERT_EQ(s->jobs[0].groups[0].gpu_milli, 500);
	ASSERT_EQ(s->jobs[1].groups[0].gpus, 2);
	ASSERT_EQ(s->jobs[1].groups[0].gpu_milli, 1000);
	ASSERT_EQ(s->jobs[2].groups[0].gpu_milli, 1);
	ASSERT_EQ(s->jobs[3].groups[0].gpus, 0);
	ASSERT_EQ(s->allocs[0].gpu_milli, 500);
	ASSERT_EQ(s->allocs[1].gpu_milli, 300);
	ASSERT_EQ(s->allocs[1].gpu_mask, 2u);
	fw_snapshot_free(s);
	EXPECT_FAIL("queues: [{name: q}]\n"
		    "jobs: [{name: a, queue: q, tasks: [{gpu: 0.0005}]}]\n",
		    FW_EINVAL, 2, "jobs[0].tasks[0].gpu");
	EXPECT_FAIL("queues: [{name: q}]\n"
		    "jobs: [{name: a, queue: q, tasks: [{gpu: 1, gpus: 1}]}]\n",
		    FW_EINVAL, 2, "jobs[0].tasks[0].gpu");
	/* two halves fill a GPU; a third half does not fit */
	EXPECT_FAIL("nodes: [{name: n, gpus: 1}]\n"
		    "queues: [{name: q}]\n"
		    "jobs:\n"
		    "  - name: r\n"
		    "    queue: q\n"
		    "    tasks: [{count: 3, gpu: 0.5}]\n"
		    "    state: running\n"
		    "    allocation: [{node: n, gpus: [0]}, {node: n, gpus: "
		    "[0]},\n"
		    "                 {node: n, gpus: [0]}]\n",
		    FW_EBUSY, 9, "jobs[0].allocation[2].gpus");
}

/* gpus counts whole GPUs; a fraction there is refused naming gpu:, the
 * member that asks for a fraction of one GPU (docs/config.md). */
TEST(task_gpus_fraction_names_gpu)
{
	struct fw_snapshot *s = NULL;
	struct fw_diag d;

	ASSERT_EQ(load("nodes: [{name: n, gpus: 8}]\nqueues: [{name: q}]\n"
		       "jobs: [{name: a, queue: q, tasks: [{gpus: 0.25}]}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "jobs[0].tasks[0].gpus");
	ASSERT(strstr(d.msg, "for a fraction of one GPU write gpu: 0.25 in place of gpus") != NULL);
	ASSERT_EQ(load("nodes: [{name: n, gpus: 8}]\nqueues: [{name: q}]\n"
		       "jobs: [{name: a, queue: q, tasks: [{gpus: 1.5}]}]\n", &s, &d), FW_EINVAL);
	ASSERT(strstr(d.msg, "a task holds whole GPUs (gpus: N) or a fraction of one (gpu: 0.5") != NULL);
	ASSERT_EQ(load("nodes: [{name: n, gpus: 8}]\nqueues: [{name: q}]\n"
		       "jobs: [{name: a, queue: q, tasks: [{gpus: lots}]}]\n", &s, &d), FW_EINVAL);
	ASSERT(strstr(d.msg, "write an integer") != NULL);
	ASSERT_EQ(load("nodes: [{name: n, gpus: 8}]\nqueues: [{name: q}]\n"
		       "jobs: [{name: a, queue: q, tasks: [{gpus: 2}]}]\n", &s, &d), FW_OK);
	ASSERT_EQ(s->jobs[0].groups[0].gpus, 2);
	fw_snapshot_free(s);
}

TEST(type_and_range_errors)
{
	EXPECT_FAIL("nodes: [{name: n, gpus: lots}]\n", FW_EINVAL, 1,
		    "nodes[0].gpus");
	EXPECT_FAIL("nodes: [{name: n, gpus: [1]}]\n", FW_EINVAL, 1,
		    "nodes[0].gpus");
	EXPECT_FAIL("nodes: [{name: n, schedulable: maybe}]\n", FW_EINVAL, 1,
		    "nodes[0].schedulable");
	EXPECT_FAIL("nodes: {name: n}\n", FW_EINVAL, 1, "nodes");
	EXPECT_FAIL("nodes: [{gpus: 1}]\n", FW_EINVAL, 1, "nodes[0].name");
	EXPECT_FAIL("nodes: [{name: \"\"}]\n", FW_EINVAL, 1, "nodes[0].name");
	EXPECT_FAIL("nodes: [{name: "
		    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaaaaaaaaaaaaaaaa}]\n",
		    FW_ERANGE, 1, "nodes[0].name");
	EXPECT_FAIL("nodes: [{name: \"a\\0b\"}]\n", FW_EINVAL, 1,
		    "nodes[0].name");
	EXPECT_FAIL("nodes: [{name: n, badGpus: [0]}]\n", FW_ERANGE, 1,
		    "nodes[0].badGpus[0]");
	EXPECT_FAIL("nodes: [{name: n, gpus: 4, badGpus: [1, 1]}]\n",
		    FW_EEXIST, 1, "nodes[0].badGpus[1]");
	EXPECT_FAIL("nodes: [{name: n, labels: {a: 1, b: 2, c: 3, d: 4, e: 5, "
		    "f: 6, g: 7, h: 8, i: 9}}]\n",
		    FW_ERANGE, 1, "nodes[0].labels");
	EXPECT_FAIL("queues: [{name: q, priority: 3000000000}]\n", FW_ERANGE,
		    1, "queues[0].priority");
	EXPECT_FAIL("queues: [{name: q, resources: {gpu: {quota: 1.0001}}}]\n",
		    FW_EINVAL, 1, "queues[0].resources.gpu.quota");
	EXPECT_FAIL("queues: [{name: q, resources: {disk: {quota: 1}}}]\n",
		    FW_EINVAL, 1, "queues[0].resources.disk");
	EXPECT_FAIL("queues: [{name: q}]\n"
		    "jobs: [{name: j, queue: q, tasks: []}]\n",
		    FW_ERANGE, 2, "jobs[0].tasks");
	EXPECT_FAIL("nodes: [{name: n, gpus: 1}]\n"
		    "queues: [{name: q}]\n"
		    "jobs: [{name: j, queue: q, tasks: [{gpus: 1}], minMember: 2}]\n",
		    FW_ERANGE, 3, "jobs[0].minMember");
	EXPECT_FAIL("nodes: [{name: n, gpus: 1}]\n"
		    "queues: [{name: q}]\n"
		    "jobs: [{name: j, queue: q, tasks: [{gpus: 1}], state: done}]\n",
		    FW_EINVAL, 3, "jobs[0].state");
	EXPECT_FAIL("nodes: [{name: n, gpus: 1}]\n"
		    "queues: [{name: q}]\n"
		    "jobs: [{name: j, queue: q, tasks: [{gpus: 1}], startTime: 5}]\n",
		    FW_EINVAL, 3, "jobs[0].startTime");
	/* two running 3-core tasks on a 4-core node */
	EXPECT_FAIL("nodes: [{name: n, gpus: 2, cpu: 4}]\n"
		    "queues: [{name: q}]\n"
		    "jobs:\n"
		    "  - {name: a, queue: q, state: running,\n"
		    "     tasks: [{count: 2, gpus: 1, cpu: 3}],\n"
		    "     allocation: [{node: n, gpus: [0]},\n"
		    "                  {node: n, gpus: [1]}]}\n",
		    FW_EBUSY, 7, "jobs[0].allocation[1]");
	/* a whole-GPU task on a node of another model */
	EXPECT_FAIL("nodes: [{name: n, gpus: 2, gpuModel: A100}]\n"
		    "queues: [{name: q}]\n"
		    "jobs:\n"
		    "  - {name: a, queue: q, state: running,\n"
		    "     tasks: [{gpus: 1, gpuModel: H100}],\n"
		    "     allocation: [{node: n, gpus: [0]}]}\n",
		    FW_EINVAL, 6, "jobs[0].allocation[0].node");
}

TEST(yaml_level_errors)
{
	struct fw_snapshot *s = (struct fw_snapshot *)&s; /* sentinel */
	struct fw_diag d;
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_config_load_buffer("e.yaml", "", 0, &s, &d), FW_EINVAL);
	ASSERT(s == (struct fw_snapshot *)&s); /* untouched */
	ASSERT_STR_CONTAINS(d.msg, "no YAML document");
	/* an empty document ("---", "~") is no config either */
	EXPECT_FAIL("---\n", FW_EINVAL, 0, "");
	EXPECT_FAIL("--- ~\n...\n", FW_EINVAL, 0, "");
	ASSERT_EQ(fw_config_load_buffer("e.yaml", "---\n", 4, &s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "no YAML document (or an empty one)");
	EXPECT_FAIL("now: 1\n---\nnow: 2\n", FW_EINVAL, 3, "");
	EXPECT_FAIL("now: [1\n", FW_EINVAL, 2, "");
	EXPECT_FAIL("\"now\": 1\nbogus: 2\n", FW_EINVAL, 2, "bogus");
	EXPECT_FAIL("? [a]\n: 1\n", FW_EINVAL, 1, "");
	EXPECT_FAIL("nodes: [{name: a}, {name: a}]\n", FW_EEXIST, 1,
		    "nodes[1].name");
	/* invalid UTF-8 and control characters are reader errors: at their
	 * line and column (not a byte offset), saying what to do */
	ASSERT_EQ(fw_config_load_buffer("u.yaml", "now: \xff\xfe\n", 8, &s, &d),
		  FW_EINVAL);
	ASSERT_EQ(d.line, 1);
	ASSERT_EQ(d.col, 6);
	ASSERT_STR_CONTAINS(d.msg, "the text is not UTF-8: invalid leading UTF-8 octet (byte 0xff); save the file as UTF-8 text");
	ASSERT_EQ(fw_config_load_buffer("u.yaml", "now: 1\nqueues: [{name: q\xe9}]\n", 28, &s, &d),
		  FW_EINVAL);
	ASSERT_EQ(d.line, 2);
	ASSERT_EQ(d.col, 18); /* the Latin-1 e-acute, not the '}' after it */
	ASSERT_STR_CONTAINS(d.msg, "(byte 0xe9)");
	ASSERT_EQ(fw_config_load_buffer("n.yaml", "now: 1\n# caf\xc3\xa9\x00\n", 16, &s, &d),
		  FW_EINVAL);
	ASSERT_EQ(d.line, 2);
	ASSERT_EQ(d.col, 7); /* characters, not bytes: the e-acute is one */
	ASSERT_STR_CONTAINS(d.msg, "a control character (byte 0x00) is not allowed in YAML; remove it");
	ASSERT(strstr(d.msg, "UTF-8") == NULL); /* the text is UTF-8 */
	/* no diag: still fails cleanly */
	ASSERT_EQ(fw_config_load_buffer("x", "now: x", 6, &s, NULL),
		  FW_EINVAL);
	ASSERT(s == (struct fw_snapshot *)&s);
}

/* NEL (U+0085), U+2028 and U+2029 are line breaks to libyaml (YAML 1.1)
 * but not to an editor: the rest of a comment was read as YAML, a syntax
 * error where the file looks fine, or a key the user never saw.  Each is
 * refused at its own line and column (in characters), naming it and the
 * fix; other non-ASCII text (e-acute, an ellipsis E2 80 A6, a neighbour
 * of U+2028) still loads, and a byte that is not UTF-8 before one is
 * reported as such. */
TEST(yaml_hidden_line_breaks_are_refused_at_their_place)
{
	static const struct { const char *text, *what; int line, col; } cases[] = {
		{ "now: 0\n# caf\xc3\xa9 note\xc2\x85 more words\nnodes: []\n",
		  "t.yaml:2:12: U+0085 (next line, NEL) is a line break in YAML, though most editors show none: "
		  "what follows it is read as a new line; replace it with a newline, or remove it", 2, 12 },
		/* libyaml alone loads this one, with a queue q from the comment */
		{ "now: 0\nnodes: [{name: a, gpus: 8}] # x\xe2\x80\xa8queues: [{name: q}]\n",
		  "U+2028 (line separator) is a line break in YAML", 2, 32 },
		{ "\xe2\x80\xa9\n", "U+2029 (paragraph separator) is a line break in YAML", 1, 1 },
		{ "now: 0 # \xe9 \xc2\x85\n", "the text is not UTF-8", 1, 10 },
	};
	struct fw_snapshot *s;
	struct fw_diag d;
	char out[512];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ASSERT_EQ(load(cases[i].text, &s, &d), FW_EINVAL);
		ASSERT(s == NULL);
		ASSERT_EQ(d.line, cases[i].line);
		ASSERT_EQ(d.col, cases[i].col);
		fw_diag_format(&d, out, sizeof out);
		ASSERT_STR_CONTAINS(out, cases[i].what);
	}
	ASSERT_OK(load("now: 0 # caf\xc3\xa9\xe2\x80\xa6 \xe2\x80\xa7\nnodes: [{name: a, gpus: 8}]\n"
		       "queues: [{name: q}]\n", &s, &d));
	fw_snapshot_free(s);
}

TEST(aliases_are_safe)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	/* anchors and aliases work as plain YAML reuse */
	ASSERT_OK(load("nodes:\n"
		       "  - &n {name: a, gpus: 8}\n"
		       "queues: [{name: q}]\n"
		       "jobs:\n"
		       "  - {name: j1, queue: q, tasks: &t [{gpus: 8}]}\n"
		       "  - {name: j2, queue: q, tasks: *t}\n",
		       &s, &d));
	ASSERT_EQ(s->jobs[1].groups[0].gpus, 8);
	fw_snapshot_free(s);
	/* a self-referencing anchor cannot make the walk recurse */
	EXPECT_FAIL("topology: {levels: &a [*a]}\n", FW_EINVAL, 1,
		    "topology.levels[0]");
	EXPECT_FAIL("nodes: &a [*a]\n", FW_EINVAL, 1, "nodes[0]");
}

/* libyaml's cost grows with the nesting on every token and with the
 * anchors on every alias: a megabyte of "[[[[" or of anchors once took
 * minutes; the loader stops at FW_CONFIG_MAX_DEPTH / _ANCHORS at once. */
TEST(hostile_nesting_and_anchors_fail_fast)
{
	size_t n = 1000000, k;
	char *y = malloc(2 * n + 16), line[64];
	struct fw_snapshot *s;
	struct fw_diag d;
	FILE *f;
	char *text;
	size_t tlen;

	ASSERT(y != NULL);
	memcpy(y, "nodes: ", 7);
	memset(y + 7, '[', n);
	memset(y + 7 + n, ']', n);
	y[7 + 2 * n] = 0;
	ASSERT_EQ(load(y, &s, &d), FW_ERANGE);
	ASSERT_EQ(d.line, 1);
	ASSERT_EQ(d.col, 7 + FW_CONFIG_MAX_DEPTH); /* the root mapping is level 1 */
	ASSERT_STR_CONTAINS(d.msg, "nest more than 64 deep");
	free(y);
	/* 20000 anchors and aliases: refused at anchor 257 */
	ASSERT(f = open_memstream(&text, &tlen));
	fputs("nodes:\n", f);
	for (k = 0; k < 20000; k++)
		fprintf(f, "  - {name: n%zu, gpus: &g%zu 1}\n", k, k);
	for (k = 0; k < 20000; k++)
		fprintf(f, "  - {name: m%zu, gpus: *g%zu}\n", k, k);
	fclose(f);
	ASSERT_EQ(load(text, &s, &d), FW_ERANGE);
	ASSERT_EQ(d.line, 2 + FW_CONFIG_MAX_ANCHORS);
	ASSERT_STR_CONTAINS(d.msg, "more than 256 anchors");
	free(text);
	/* at the limit, anchors and aliases still work */
	ASSERT(f = open_memstream(&text, &tlen));
	fputs("nodes:\n", f);
	for (k = 0; k < FW_CONFIG_MAX_ANCHORS; k++) {
		snprintf(line, sizeof line, "  - {name: n%zu, gpus: &g%zu 1}\n", k, k);
		fputs(line, f);
	}
	fputs("  - {name: last, gpus: *g255}\n", f);
	fclose(f);
	ASSERT_OK(load(text, &s, &d));
	ASSERT_EQ(s->nnodes, FW_CONFIG_MAX_ANCHORS + 1);
	fw_snapshot_free(s);
	free(text);
}

TEST(queue_tree)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("queues:\n"
		       "  - {name: leaf, parent: mid}\n"
		       "  - {name: mid, parent: top}\n"
		       "  - {name: top}\n",
		       &s, &d));
	ASSERT_EQ(s->queues[0].parent, 1);
	ASSERT_EQ(s->queues[1].parent, 2);
	fw_snapshot_free(s);
	/* run-time limits: a duration, 0 = none, the smallest binds */
	ASSERT_OK(load("queues:\n"
		       "  - {name: top, maxRuntime: 1d}\n"
		       "  - {name: leaf, parent: top, maxRuntime: 1h30m}\n"
		       "  - {name: free, parent: top, maxRuntime: 0}\n",
		       &s, &d));
	ASSERT_EQ(s->queues[0].max_runtime_s, 86400);
	ASSERT_EQ(s->queues[1].max_runtime_s, 5400);
	ASSERT_EQ(s->queues[2].max_runtime_s, 0);
	fw_snapshot_free(s);
	EXPECT_FAIL("queues: [{name: a, maxRuntime: 1.5s}]\n", FW_EINVAL, 1, "queues[0].maxRuntime");
	/* GPU-hour budgets: a decimal, 0 = none */
	ASSERT_OK(load("queues:\n"
		       "  - {name: top, gpuHourBudget: 1000}\n"
		       "  - {name: leaf, parent: top, gpuHourBudget: 12.5}\n"
		       "  - {name: free, parent: top}\n",
		       &s, &d));
	ASSERT(s->queues[0].gpu_hour_budget == 1000);
	ASSERT(s->queues[1].gpu_hour_budget == 12.5);
	ASSERT(s->queues[2].gpu_hour_budget == 0);
	fw_snapshot_free(s);
	EXPECT_FAIL("queues: [{name: a, gpuHourBudget: 2e9}]\n", FW_EINVAL, 1, "queues[0].gpuHourBudget");
	EXPECT_FAIL("queues: [{name: a, gpuHourBudget: 1000000001}]\n", FW_ERANGE, 1, "queues[0].gpuHourBudget");
	/* a job's own limit: a duration in 32-bit seconds */
	ASSERT_OK(load("nodes: [{name: n, gpus: 8}]\n"
		       "queues: [{name: q, maxRuntime: 1d}]\n"
		       "jobs:\n"
		       "  - {name: a, queue: q, maxRuntime: 2h, tasks: [{count: 1, gpus: 1}]}\n"
		       "  - {name: b, queue: q, tasks: [{count: 1, gpus: 1}]}\n"
		       "  - {name: c, queue: q, maxRuntime: 2147483647, tasks: [{count: 1, gpus: 1}]}\n",
		       &s, &d));
	ASSERT_EQ(s->jobs[0].max_runtime_s, 7200);
	ASSERT_EQ(s->jobs[1].max_runtime_s, 0);
	ASSERT_EQ(s->jobs[2].max_runtime_s, 2147483647);
	ASSERT_EQ(fw_job_limit(s, &s->jobs[0]), 7200);
	ASSERT_EQ(fw_job_limit(s, &s->jobs[1]), 86400);
	ASSERT_EQ(fw_job_limit(s, &s->jobs[2]), 86400);
	fw_snapshot_free(s);
	EXPECT_FAIL("nodes: [{name: n, gpus: 8}]\nqueues: [{name: q}]\n"
		    "jobs: [{name: a, queue: q, maxRuntime: 2147483648, tasks: [{count: 1, gpus: 1}]}]\n",
		    FW_ERANGE, 3, "jobs[0].maxRuntime");
	EXPECT_FAIL("nodes: [{name: n, gpus: 8}]\nqueues: [{name: q}]\n"
		    "jobs: [{name: a, queue: q, checkpointInterval: 2147483648, tasks: [{count: 1, gpus: 1}]}]\n",
		    FW_ERANGE, 3, "jobs[0].checkpointInterval");
	EXPECT_FAIL("queues: [{name: a, parent: a}]\n", FW_ELOOP, 1,
		    "queues[0].parent");
	EXPECT_FAIL("queues:\n"
		    "  - {name: ok}\n"
		    "  - {name: a, parent: b}\n"
		    "  - {name: b, parent: a}\n",
		    FW_ELOOP, 3, "queues[1].parent");
	EXPECT_FAIL("queues: [{name: a, resources: {cpu: {quota: -1}}}]\n",
		    FW_ERANGE, 1, "queues[0].resources.cpu.quota");
	EXPECT_FAIL("queues: [{name: a, usage: {gpuHours: -3}}]\n", FW_ERANGE,
		    1, "queues[0].usage.gpuHours");
}

/* An unknown key names the valid key it is a typo of, by the rule of the
 * daemon's unknown fields (fw_cli_nearest), before every valid key; a
 * key near none gets no guess. */
TEST(unknown_keys_suggest_the_nearest)
{
	struct fw_snapshot *s = (struct fw_snapshot *)&s; /* sentinel */
	struct fw_diag d;

	ASSERT_EQ(load("nodes: [{name: n, gpuModl: H100}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "nodes[0].gpuModl");
	ASSERT_STR_CONTAINS(d.msg, "unknown key \"gpuModl\" (did you mean \"gpuModel\"?); valid keys here: name, "
				   "gpus, gpuModel, ");
	ASSERT_EQ(load("queue: [{name: q}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "queue");
	ASSERT_STR_CONTAINS(d.msg, "unknown key \"queue\" (did you mean \"queues\"?); valid keys here: ");
	ASSERT_EQ(load("queues: [{name: q, resources: {gpu: {qouta: 2}}}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "unknown key \"qouta\" (did you mean \"quota\"?)");
	ASSERT_EQ(load("nodes: [{name: n, colour: red}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "unknown key \"colour\"; valid keys here: ");
	ASSERT(strstr(d.msg, "did you mean") == NULL);
}

TEST(load_file)
{
	struct fw_snapshot *s = NULL;
	struct fw_diag d;
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_config_load_file("tests/bad_input/no-such-file.yaml", &s,
				      &d),
		  FW_ENOENT);
	ASSERT(s == NULL);
	ASSERT_STR_CONTAINS(d.msg, "cannot open");
	ASSERT_OK(fw_config_load_file("tests/fuzz/corpus/config/full.yaml", &s,
				      &d));
	ASSERT(s->nnodes > 0 && s->njobs > 0);
	fw_snapshot_free(s);
	ASSERT_OK(fw_config_load_file("examples/cluster.yaml", &s, &d));
	fw_snapshot_free(s);
}

/* Every bad input: error code, line and field. */
static const struct {
	const char *file;
	int err, line;
	const char *field;
} bad[] = {
	{ "negative_quota", FW_ERANGE, 11, "queues[1].resources.gpu.quota" },
	{ "unknown_parent", FW_ENOENT, 5, "queues[1].parent" },
	{ "queue_cycle", FW_ELOOP, 5, "queues[1].parent" },
	{ "gpu_model_limit_unknown", FW_ENOENT, 9, "queues[0].gpuModelLimits.H10" },
	{ "task_too_many_gpus", FW_ERANGE, 12, "jobs[0].tasks[0].gpus" },
	{ "task_too_much_cpu", FW_ERANGE, 10, "jobs[0].tasks[0].cpu" },
	{ "task_too_much_memory", FW_ERANGE, 11, "jobs[0].tasks[1].memory" },
	{ "task_cpu_on_nodes_without_cpu", FW_ERANGE, 11, "jobs[0].tasks[0].cpu" },
	{ "task_memory_on_nodes_without_memory", FW_ERANGE, 11, "jobs[0].tasks[0].memory" },
	{ "task_no_single_node", FW_ERANGE, 11, "jobs[0].tasks[0]" },
	{ "unknown_level_node", FW_EINVAL, 7, "nodes[0].topology.row" },
	{ "unknown_level_job", FW_EINVAL, 11, "jobs[0].topology.required" },
	{ "missing_level", FW_EINVAL, 6, "nodes[0].topology.rack" },
	{ "duplicate_node", FW_EEXIST, 5, "nodes[2].name" },
	{ "duplicate_generated_node", FW_EEXIST, 6,
	  "nodeGroups[0].namePrefix" },
	{ "duplicate_queue", FW_EEXIST, 5, "queues[2].name" },
	{ "duplicate_job", FW_EEXIST, 8, "jobs[1].name" },
	{ "duplicate_key", FW_EEXIST, 5, "nodes[0].gpus" },
	{ "wrong_type", FW_EINVAL, 4, "nodes[0].gpus" },
	{ "out_of_range", FW_ERANGE, 4, "nodes[0].gpus" },
	{ "unknown_key", FW_EINVAL, 4, "nodes[0].gpuz" },
	{ "non_leaf_queue", FW_EINVAL, 10, "jobs[0].queue" },
	{ "unknown_queue", FW_ENOENT, 8, "jobs[0].queue" },
	{ "unknown_queue_no_queues", FW_ENOENT, 7, "jobs[0].queue" },
	{ "task_gpus_fraction", FW_EINVAL, 10, "jobs[0].tasks[0].gpus" },
	{ "alloc_unknown_node", FW_ENOENT, 12, "jobs[0].allocation[0].node" },
	{ "alloc_unpadded_node", FW_ENOENT, 13, "jobs[0].allocation[0].node" },
	{ "alloc_gpu_out_of_range", FW_ERANGE, 12,
	  "jobs[0].allocation[0].gpus[1]" },
	{ "alloc_double_booked", FW_EBUSY, 16, "jobs[1].allocation[0].gpus" },
	{ "alloc_overbooked", FW_EBUSY, 17, "jobs[1].allocation[0]" },
	{ "alloc_missing_task", FW_EINVAL, 12, "jobs[0].allocation" },
	{ "running_without_allocation", FW_EINVAL, 10, "jobs[0].allocation" },
	{ "bad_memory_unit", FW_EINVAL, 5, "nodes[0].memory" },
	{ "bad_duration", FW_EINVAL, 3, "scheduler.usageHalfLife" },
	{ "fractional_above_one", FW_ERANGE, 9, "jobs[0].tasks[0].gpu" },
	{ "limit_below_quota", FW_ERANGE, 5, "queues[0].resources.gpu.limit" },
	{ "syntax_error", FW_EINVAL, 4, "" },
	{ "nel_in_comment", FW_EINVAL, 1, "" },
	{ "not_a_mapping", FW_EINVAL, 2, "" },
	{ "level_reserved", FW_EINVAL, 3, "topology.levels[1]" },
	{ "nodes_per_not_nested", FW_EINVAL, 7,
	  "nodeGroups[0].topology.nodesPer.rack" },
	{ "bad_starve_after", FW_EINVAL, 2, "scheduler.starveAfter" },
	{ "bad_checkpoint_interval", FW_EINVAL, 8, "jobs[0].checkpointInterval" },
	{ "bad_default_runtime", FW_EINVAL, 2, "queues[0].defaultRuntime" },
	{ "bad_max_runtime", FW_EINVAL, 5, "queues[0].maxRuntime" },
	{ "bad_job_max_runtime", FW_ERANGE, 9, "jobs[0].maxRuntime" },
	{ "bad_gpu_hour_budget", FW_ERANGE, 5, "queues[0].gpuHourBudget" },
	{ "bad_budget_safe", FW_EINVAL, 2, "scheduler.budgetSafe" },
	{ "bad_backfill", FW_EINVAL, 2, "scheduler.backfill" },
	{ "bad_reserve_depth", FW_ERANGE, 2, "scheduler.reserveDepth" },
	{ "bad_estimate_depth", FW_ERANGE, 2, "scheduler.estimateDepth" },
	{ "bad_xfactor_cap", FW_ERANGE, 2, "scheduler.xfactorCap" },
	{ "bad_user_fair_share", FW_EINVAL, 2, "scheduler.userFairShare" },
	{ "bad_health", FW_EINVAL, 2, "nodes[0].health" },
	{ "bad_lemon_gang", FW_ERANGE, 2, "scheduler.lemonGangGpus" },
	{ "bad_lemon_window", FW_ERANGE, 2, "scheduler.lemonWindow" },
	{ "bad_lemon_flag", FW_EINVAL, 2, "nodes[0].lemon" },
	{ "weight_out_of_range", FW_ERANGE, 6,
	  "queues[0].resources.gpu.overQuotaWeight" },
	{ "control_char_key", FW_EINVAL, 3, "nodes[0].?[2J" },
	{ "nesting_too_deep", FW_ERANGE, 3, "" },
	{ "too_many_anchors", FW_ERANGE, 260, "" },
	{ "merge_key", FW_EINVAL, 4, "nodes[1].<<" },
	{ "too_many_decimals", FW_EINVAL, 3, "nodes[0].memory" },
	{ "submit_after_now", FW_ERANGE, 8, "jobs[0].submitTime" },
	{ "usage_at_after_now", FW_ERANGE, 6, "queues[0].usage.at" },
	{ "user_usage_at_after_now", FW_ERANGE, 7, "queues[0].userUsage.alice.at" },
	{ "task_asks_nothing", FW_EINVAL, 9, "jobs[0].tasks[0]" },
	{ "alloc_gpu_twice", FW_EEXIST, 11, "jobs[0].allocation[0].gpus[1]" },
	{ "alloc_gpu_count", FW_EINVAL, 11, "jobs[0].allocation[0].gpus" },
	{ "alloc_too_many_tasks", FW_ERANGE, 14, "jobs[0].allocation[1]" },
	{ "alloc_below_min_member", FW_EINVAL, 13, "jobs[0].allocation" },
	{ "level_twice", FW_EEXIST, 3, "topology.levels[1]" },
	{ "too_many_levels", FW_ERANGE, 3, "topology.levels" },
	{ "node_level_twice", FW_EEXIST, 8, "nodes[0].topology.rack" },
	{ "label_twice", FW_EEXIST, 5, "nodes[0].labels.zone" },
	{ "start_before_submit", FW_ERANGE, 12, "jobs[0].startTime" },
	{ "start_after_now", FW_ERANGE, 10, "jobs[0].startTime" },
	{ "name_with_space", FW_EINVAL, 5, "nodes[1].name" },
	{ "name_with_slash", FW_EINVAL, 4, "queues[1].name" },
	{ "name_dot_dot", FW_EINVAL, 8, "jobs[0].name" },
	{ "name_prefix_bad", FW_EINVAL, 4, "nodeGroups[0].namePrefix" },
	/* a new user's slips: each names its field and what to write */
	{ "dated_submit_after_now", FW_ERANGE, 11, "jobs[0].submitTime" },
	{ "span_in_words", FW_EINVAL, 6, "queues[0].defaultRuntime" },
	{ "span_negative_term", FW_EINVAL, 6, "queues[0].maxRuntime" },
	{ "span_too_long", FW_ERANGE, 2, "scheduler.usageHalfLife" },
	{ "date_for_span", FW_EINVAL, 6, "queues[0].maxRuntime" },
	{ "date_for_now", FW_EINVAL, 2, "now" },
	{ "negative_now", FW_EINVAL, 2, "now" },
	{ "time_too_late", FW_ERANGE, 2, "now" },
	{ "tab_indent", FW_EINVAL, 3, "" },
	{ "queue_flat_quota", FW_EINVAL, 6, "queues[0].quota" },
};

TEST(bad_input_files)
{
	char path[256];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct fw_snapshot *s = NULL;
		struct fw_diag d;
		memset(&d, 0, sizeof d);
		snprintf(path, sizeof path, "tests/bad_input/%s.yaml",
			 bad[i].file);
		int rc = fw_config_load_file(path, &s, &d);
		if (rc != bad[i].err || d.line != bad[i].line ||
		    strcmp(d.field, bad[i].field) != 0)
			fprintf(stderr, "  %s: rc %d line %d field %s: %s\n",
				path, rc, d.line, d.field, d.msg);
		ASSERT_EQ(rc, bad[i].err);
		ASSERT(s == NULL);
		ASSERT_STR_EQ(d.file, path);
		ASSERT_EQ(d.line, bad[i].line);
		ASSERT(d.col > 0 || !strcmp(bad[i].file, "syntax_error"));
		ASSERT_STR_EQ(d.field, bad[i].field);
		ASSERT(strchr(d.msg, ';') != NULL); /* what; what to do */
	}
}

/* cases.txt lists every bad input with the substring the CLI must print. */
TEST(bad_input_cases_txt)
{
	FILE *f = fopen("tests/bad_input/cases.txt", "r");
	char line[1024], out[1024];
	int n = 0;
	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f)) {
		char *tab = strchr(line, '\t');
		struct fw_snapshot *s = NULL;
		struct fw_diag d;
		if (line[0] == '#' || !tab)
			continue;
		*tab = 0;
		tab[1 + strcspn(tab + 1, "\n")] = 0;
		memset(&d, 0, sizeof d);
		if (fw_config_load_file(line, &s, &d) == FW_OK) {
			fw_snapshot_free(s);
			fclose(f);
			FW_TEST__FAIL("%s loaded but should fail", line);
		}
		fw_diag_format(&d, out, sizeof out);
		if (!strstr(out, tab + 1)) {
			fclose(f);
			FW_TEST__FAIL("%s: \"%s\" lacks \"%s\"", line, out,
				      tab + 1);
		}
		n++;
	}
	fclose(f);
	ASSERT_EQ(n, (int)(sizeof bad / sizeof bad[0]));
}

/* Read a whole file into a NUL-terminated malloc'd buffer. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		buf[fread(buf, 1, (size_t)n, f)] = 0;
	}
	if (f)
		fclose(f);
	return buf;
}

/* docs/config.md's complete example is full.yaml, and it loads. */
TEST(docs_example)
{
	char *md = slurp("docs/config.md");
	char *yaml = slurp("tests/fuzz/corpus/config/full.yaml");
	char *a = md ? strstr(md, "```yaml\n") : NULL, *b, *body;
	struct fw_snapshot *s;
	struct fw_diag d;
	int same;

	body = yaml ? strchr(yaml, '\n') : NULL; /* skip the header line */
	if (a) {
		a += 8;
		b = strstr(a, "```");
		if (b)
			*b = 0;
	}
	same = a && body && strcmp(a, body + 1) == 0;
	free(md);
	free(yaml);
	ASSERT(same);
	ASSERT_OK(fw_config_load_file("tests/fuzz/corpus/config/full.yaml", &s,
				      &d));
	ASSERT_EQ(s->nnodes, 18);
	ASSERT_STR_EQ(s->nodes[2].name, "dgx000");
	ASSERT_STR_EQ(s->nodes[17].path[2], "nv7");
	ASSERT_EQ(s->nallocs, 3);
	fw_snapshot_free(s);
}

TEST(queue_min_runtime)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("queues: [{name: a, minRuntime: 30m, defaultRuntime: 2h, defaultCheckpointInterval: 20m,\n"
		       "          preemptible: false},\n"
		       "         {name: b, preemptible: true}, {name: c}]\n", &s, &d));
	ASSERT(s->queues[0].nonpreemptible && !s->queues[1].nonpreemptible && !s->queues[2].nonpreemptible);
	ASSERT_EQ(s->queues[0].min_runtime_s, 1800);
	ASSERT_EQ(s->queues[0].default_runtime_s, 7200);
	ASSERT_EQ(s->queues[0].default_checkpoint_s, 1200);
	ASSERT_EQ(s->queues[1].min_runtime_s, 0);
	ASSERT_EQ(s->queues[1].default_checkpoint_s, 0);
	fw_snapshot_free(s);
	EXPECT_FAIL("queues: [{name: a, minRuntime: 1.5s}]\n", FW_EINVAL, 1, "queues[0].minRuntime");
	EXPECT_FAIL("queues:\n  - {name: a, preemptible: never}\n", FW_EINVAL, 2, "queues[0].preemptible");
	EXPECT_FAIL("queues: [{name: a, defaultCheckpointInterval: often}]\n", FW_EINVAL, 1,
		    "queues[0].defaultCheckpointInterval");
}

/* gpuModelLimits: a map of GPU model to GPUs, one snapshot entry each, in
 * file order, a model in another case than the fleet's in the fleet's
 * spelling (gpuModelDeserved too); a model no node has (with the one it
 * is a typo of), a repeat, a bad amount: errors at the entry's line and
 * key. */
TEST(queue_gpu_model_limits)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	const char *nodes = "nodes: [{name: h, gpus: 8, gpuModel: H100}, {name: a, gpus: 8, gpuModel: A100}]\n";
	char y[512];
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelLimits: {H100: 16, A100: 2.5}}\n"
		 "  - {name: c, parent: p, gpuModelLimits: {A100: 0}}\n  - {name: d, parent: p}\n", nodes);
	ASSERT_OK(load(y, &s, &d));
	ASSERT_EQ(s->nmodel_limits, 3);
	ASSERT_EQ(s->model_limits[0].queue, 0);
	ASSERT_STR_EQ(s->model_limits[0].model, "H100");
	ASSERT_EQ(s->model_limits[0].gpus, 16000);
	ASSERT_STR_EQ(s->model_limits[1].model, "A100");
	ASSERT_EQ(s->model_limits[1].gpus, 2500);
	ASSERT_EQ(s->model_limits[2].queue, 1);
	ASSERT_EQ(s->model_limits[2].gpus, 0);
	fw_snapshot_free(s);
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelDeserved: {a100: 1}, resources: {gpu: {quota: 1}}}\n"
		 "  - {name: c, gpuModelLimits: {h100: 16}}\n", nodes);
	ASSERT_OK(load(y, &s, &d)); /* another case: the fleet's spelling, as a job's gpuModel */
	ASSERT_STR_EQ(s->model_limits[0].model, "H100");
	ASSERT_EQ(s->model_limits[0].gpus, 16000);
	ASSERT_STR_EQ(s->model_deserved[0].model, "A100");
	fw_snapshot_free(s);
	snprintf(y, sizeof y, "%squeues:\n  - {name: p}\n  - {name: c, gpuModelLimits: {H10: 16}}\n", nodes);
	EXPECT_FAIL(y, FW_ENOENT, 4, "queues[1].gpuModelLimits.H10");
	ASSERT_EQ(load(y, &s, &d), FW_ENOENT);
	ASSERT_STR_CONTAINS(d.msg, "no node has GPU model \"H10\" (did you mean \"H100\"?)");
	ASSERT_STR_CONTAINS(d.msg, "H100, A100");
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelDeserved: {B300: 1}}\n", nodes);
	ASSERT_EQ(load(y, &s, &d), FW_ENOENT);
	ASSERT_STR_CONTAINS(d.msg, "no node has GPU model \"B300\", so this entry would guarantee nothing");
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelLimits: {H100: 1, h100: 2}}\n", nodes);
	EXPECT_FAIL(y, FW_EEXIST, 3, "queues[0].gpuModelLimits.h100");
	ASSERT_EQ(load(y, &s, &d), FW_EEXIST);
	ASSERT_STR_CONTAINS(d.msg, "GPU model \"H100\" is given twice (as \"h100\" too)");
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelLimits: {H100: -1}}\n", nodes);
	EXPECT_FAIL(y, FW_ERANGE, 3, "queues[0].gpuModelLimits.H100");
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelLimits: {H100: lots}}\n", nodes);
	EXPECT_FAIL(y, FW_EINVAL, 3, "queues[0].gpuModelLimits.H100");
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelLimits: [H100]}\n", nodes);
	EXPECT_FAIL(y, FW_EINVAL, 3, "queues[0].gpuModelLimits");
	snprintf(y, sizeof y, "%squeues:\n  - {name: p, gpuModelLimits: {H100: 1, H100: 2}}\n", nodes);
	EXPECT_FAIL(y, FW_EEXIST, 3, "queues[0].gpuModelLimits.H100");
}

/* userUsage: each user's decayed GPU-hours in the queue, stored as
 * GPU-seconds, as of `at` (default now); errors at the user's line. */
TEST(queue_user_usage)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("now: 500\nqueues:\n  - {name: a, userUsage: {alice: {gpuHours: 120, at: 0}, bob: {gpuHours: 0.5}}}\n"
		       "  - {name: b, userUsage: {alice: {gpuHours: 1}}}\n",
		       &s, &d));
	ASSERT_EQ(s->nuser_usage, 3);
	ASSERT_STR_EQ(s->user_usage[0].user, "alice");
	ASSERT_EQ(s->user_usage[0].queue, 0);
	ASSERT_EQ((long long)s->user_usage[0].usage, 120 * 3600);
	ASSERT_EQ(s->user_usage[0].usage_at, 0);
	ASSERT_EQ((long long)s->user_usage[1].usage, 1800);
	ASSERT_EQ(s->user_usage[1].usage_at, 500);
	ASSERT_EQ(s->user_usage[2].queue, 1);
	fw_snapshot_free(s);
	EXPECT_FAIL("queues:\n  - {name: a, userUsage: {alice: {gpuHours: -1}}}\n", FW_ERANGE, 2,
		    "queues[0].userUsage.alice.gpuHours");
	EXPECT_FAIL("queues:\n  - {name: a, userUsage: {alice: {hours: 1}}}\n", FW_EINVAL, 2, "queues[0].userUsage.alice.hours");
	EXPECT_FAIL("queues:\n  - {name: a, userUsage: {alice: 5}}\n", FW_EINVAL, 2, "queues[0].userUsage.alice");
	EXPECT_FAIL("queues:\n  - {name: a, userUsage: {alice: {gpuHours: 1}, alice: {gpuHours: 2}}}\n", FW_EEXIST, 2,
		    "queues[0].userUsage.alice");
	EXPECT_FAIL("queues:\n  - {name: a, userUsage: [alice]}\n", FW_EINVAL, 2, "queues[0].userUsage");
}

/* scheduler.reserveDepth: absent = the policy's (0), 0 = none (-1), N. */
TEST(scheduler_reserve_depth)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("queues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.reserve_depth, 0);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {reserveDepth: 4}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.reserve_depth, 4);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {reserveDepth: 0}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.reserve_depth, -1);
	fw_snapshot_free(s);
	EXPECT_FAIL("scheduler: {reserveDepth: -1}\n", FW_ERANGE, 1, "scheduler.reserveDepth");
	EXPECT_FAIL("scheduler: {reserveDepth: 2.5}\n", FW_EINVAL, 1, "scheduler.reserveDepth");
}

/* scheduler.estimateDepth: absent = the default (0), 0 = none (-1), N;
 * out of range or not whole refused with its line. */
TEST(scheduler_estimate_depth)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("queues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.estimate_depth, 0);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {estimateDepth: 64}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.estimate_depth, 64);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {estimateDepth: 0}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.estimate_depth, -1);
	fw_snapshot_free(s);
	EXPECT_FAIL("scheduler: {estimateDepth: -1}\n", FW_ERANGE, 1, "scheduler.estimateDepth");
	EXPECT_FAIL("scheduler: {estimateDepth: 100001}\n", FW_ERANGE, 1, "scheduler.estimateDepth");
	EXPECT_FAIL("scheduler: {estimateDepth: many}\n", FW_EINVAL, 1, "scheduler.estimateDepth");
}

/* scheduler.xfactorCap: absent = the policy's (0), 0 = off (-1), a
 * duration in seconds rounded up; under a minute or over a year refused
 * with its line and what to write instead. */
TEST(scheduler_xfactor_cap)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("queues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.xfactor_cap_s, 0);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {xfactorCap: 0}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.xfactor_cap_s, -1);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {xfactorCap: 12h}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.xfactor_cap_s, 12 * 3600);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {xfactorCap: 1m}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.xfactor_cap_s, 60);
	fw_snapshot_free(s);
	EXPECT_FAIL("scheduler:\n  xfactorCap: 59s\n", FW_ERANGE, 2, "scheduler.xfactorCap");
	EXPECT_FAIL("scheduler: {xfactorCap: long}\n", FW_EINVAL, 1, "scheduler.xfactorCap");
	EXPECT_FAIL("scheduler: {xfactorCap: 366d}\n", FW_ERANGE, 1, "scheduler.xfactorCap");
}

/* scheduler.starveAfter: absent = the policy's (0), 0 = off (-1), a
 * duration in seconds rounded up; scheduler.drainRunning: requeue
 * (default) or finish, anything else refused with its line;
 * scheduler.userFairShare: false unless given true. */
TEST(scheduler_starve_after_and_drain_running)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	ASSERT_OK(load("queues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.starve_after_s, 0);
	ASSERT(s->config.drain_requeue);
	ASSERT(!s->config.user_fair_share);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {starveAfter: 0, drainRunning: finish, userFairShare: true}\nqueues: [{name: a}]\n",
		       &s, &d));
	ASSERT_EQ(s->config.starve_after_s, -1);
	ASSERT(!s->config.drain_requeue);
	ASSERT(s->config.user_fair_share);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {starveAfter: 2d, drainRunning: requeue}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.starve_after_s, 2 * 86400);
	ASSERT(s->config.drain_requeue);
	fw_snapshot_free(s);
	ASSERT_OK(load("scheduler: {starveAfter: 1.5}\nqueues: [{name: a}]\n", &s, &d));
	ASSERT_EQ(s->config.starve_after_s, 2);
	fw_snapshot_free(s);
	ASSERT_EQ(load("scheduler:\n  drainRunning: kill\n", &s, &d), FW_EINVAL);
	ASSERT(s == NULL);
	ASSERT_EQ(d.line, 2);
	ASSERT_STR_EQ(d.field, "scheduler.drainRunning");
	ASSERT_STR_CONTAINS(d.msg, "unknown value \"kill\"; use requeue");
}

static int enter_srcdir(void)
{
	return chdir(FW_SRCDIR);
}

TEST(setup)
{
	ASSERT_OK(enter_srcdir());
}

/* Three labelled nodes and a queue, for the selector tests. */
static const char labelled_nodes[] =
	"nodes:\n"
	"  - {name: a, gpus: 8, labels: {gpu: h100, zone: x}}\n"
	"  - {name: b, gpus: 8, labels: {gpu: a100, zone: x}}\n"
	"  - {name: c, gpus: 8, labels: {gpu: h100, zone: y}}\n"
	"queues: [{name: q}]\n";

/* jobs[].nodeSelector: the nodes whose labels hold every pair become the
 * job's node filter, written as the shorter list (of the nodes it meets,
 * or of those it leaves out); the next job of the same selector shares
 * the list;
 * a selector no node meets, a label given twice and a non-mapping are
 * refused with their line and field.  And a task group's own. */
TEST(job_node_selector)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	const int32_t *v;
	const char *nodes = labelled_nodes;
	char y[2048];

	snprintf(y, sizeof y, "%sjobs:\n"
		 "  - {name: j0, queue: q, tasks: [{gpus: 1}], nodeSelector: {gpu: h100}}\n"
		 "  - {name: j1, queue: q, tasks: [{gpus: 1}], nodeSelector: {gpu: h100}}\n"
		 "  - {name: j2, queue: q, tasks: [{gpus: 1}]}\n"
		 "  - {name: j3, queue: q, tasks: [{gpus: 1}], nodeSelector: {zone: x, gpu: h100}}\n", nodes);
	ASSERT_OK(load(y, &s, &d));
	ASSERT_EQ(fw_snapshot_job_nodes(s, 0, &v), 1); /* a and c: as the one node left out, b */
	ASSERT_EQ(v[0], 1);
	ASSERT_EQ(s->job_nodes[0].except, 1);
	ASSERT(fw_snapshot_job_may_use(s, 0, 0) && !fw_snapshot_job_may_use(s, 0, 1) && fw_snapshot_job_may_use(s, 0, 2));
	ASSERT_EQ(fw_snapshot_job_nodes(s, 1, &v), 1);
	ASSERT(v == s->node_refs); /* shared with j0's */
	ASSERT_EQ(fw_snapshot_job_nodes(s, 2, &v), -1);
	ASSERT_EQ(fw_snapshot_job_nodes(s, 3, &v), 1); /* a alone: the list of it */
	ASSERT_EQ(v[0], 0);
	ASSERT_EQ(s->job_nodes[2].except, 0);
	ASSERT_EQ(s->nnode_refs, 2);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	fw_snapshot_free(s);

	snprintf(y, sizeof y, "%sjobs:\n  - {name: j0, queue: q, tasks: [{gpus: 1}],\n"
		 "     nodeSelector: {gpu: b200}}\n", nodes);
	EXPECT_FAIL(y, FW_ENOENT, 8, "jobs[0].nodeSelector");
	ASSERT_EQ(load("nodes: [{name: a, gpus: 8}]\nqueues: [{name: q}]\n"
		       "jobs: [{name: j, queue: q, tasks: [{gpus: 1}], nodeSelector: {gpu: h100}}]\n", &s, &d),
		  FW_ENOENT);
	ASSERT_STR_CONTAINS(d.msg, "no node has all these labels (gpu: h100)");
	snprintf(y, sizeof y, "%sjobs:\n  - {name: j0, queue: q, tasks: [{gpus: 1}], nodeSelector: {gpu: h100, gpu: a100}}\n",
		 nodes);
	EXPECT_FAIL(y, FW_EEXIST, 7, "jobs[0].nodeSelector.gpu");
	snprintf(y, sizeof y, "%sjobs:\n  - {name: j0, queue: q, tasks: [{gpus: 1}], nodeSelector: [gpu]}\n", nodes);
	EXPECT_FAIL(y, FW_EINVAL, 7, "jobs[0].nodeSelector");

	/* jobs[].tasks[].nodeSelector: a task group's own selector becomes a
	 * group filter (snapshot.h), beside the job's when it has one; the plan
	 * puts each group's tasks on its nodes (a leader on the a100 node, two
	 * workers on h100 ones), and a job whose group's nodes are full waits
	 * with node_filter by that group's nodes; a group selector no node meets
	 * is refused with its line and field, naming the group. */
	snprintf(y, sizeof y, "%sjobs:\n"
		 "  - name: j0\n"
		 "    queue: q\n"
		 "    tasks:\n"
		 "      - {gpus: 1, nodeSelector: {gpu: a100}}\n"
		 "      - {count: 2, gpus: 4, nodeSelector: {gpu: h100}}\n"
		 "  - {name: j1, queue: q, nodeSelector: {zone: x}, tasks: [{gpus: 1, nodeSelector: {gpu: h100}}]}\n",
		 nodes);
	ASSERT_OK(load(y, &s, &d));
	ASSERT_OK(fw_snapshot_validate(s, &d));
	ASSERT_EQ(s->ngroup_nodes, 3);
	ASSERT_EQ(s->group_nodes[2].first, s->group_nodes[1].first); /* j1's {gpu: h100}: j0's list */
	ASSERT_EQ(fw_snapshot_job_nodes(s, 0, &v), -1);
	ASSERT(!fw_snapshot_group_may_use(s, 0, 0, 0) && fw_snapshot_group_may_use(s, 0, 0, 1));
	ASSERT(fw_snapshot_group_may_use(s, 0, 1, 0) && !fw_snapshot_group_may_use(s, 0, 1, 1) &&
	       fw_snapshot_group_may_use(s, 0, 1, 2));
	ASSERT_EQ(fw_snapshot_job_nodes(s, 1, &v), 1); /* zone x: a and b, as c left out */
	ASSERT_EQ(s->group_nodes[1].except, 1); /* {gpu: h100}: a and c, as b left out */
	ASSERT(fw_snapshot_group_may_use(s, 1, 0, 0)); /* both: a only */
	ASSERT(!fw_snapshot_group_may_use(s, 1, 0, 1) && !fw_snapshot_group_may_use(s, 1, 0, 2));
	struct fw_arena ar;
	struct fw_plan *p = NULL;
	fw_arena_init(&ar, 4096);
	ASSERT_OK(fw_cycle_run(s, NULL, &ar, &p));
	ASSERT_OK(fw_plan_check(s, p, &ar, &d));
	int starts = 0;
	for (int i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		if (dc->kind != FW_DECIDE_START)
			continue;
		starts++;
		for (int32_t k = 0; k < dc->alloc_count; k++) {
			const struct fw_task_alloc *t = &p->allocs[dc->alloc_first + k];
			ASSERT(fw_snapshot_group_may_use(s, dc->job, t->group, t->node));
		}
	}
	ASSERT_EQ(starts, 1); /* j0 packs its workers onto a: j1's group, on a only, waits */
	const struct fw_pending *w = fw_plan_pending_for(p, 1);
	ASSERT(w != NULL);
	ASSERT_EQ(w->reason, FW_REASON_NODE_FILTER); /* by its group's nodes, not the job's (a and b, 7 free) */
	ASSERT_EQ(w->a, 1);
	ASSERT_EQ(w->b, 0);
	fw_arena_release(&ar);
	fw_snapshot_free(s);

	snprintf(y, sizeof y, "%sjobs:\n  - name: j0\n    queue: q\n    tasks:\n      - {gpus: 1}\n"
		 "      - {gpus: 1, nodeSelector: {gpu: b200}}\n", nodes);
	EXPECT_FAIL(y, FW_ENOENT, 11, "jobs[0].tasks[1].nodeSelector");
	ASSERT_EQ(load(y, &s, &d), FW_ENOENT);
	ASSERT_STR_CONTAINS(d.msg, "so this task group could never start");
	snprintf(y, sizeof y, "%sjobs:\n  - name: j0\n    queue: q\n    tasks: [{gpus: 1, nodeSelector: [gpu]}]\n",
		 nodes);
	EXPECT_FAIL(y, FW_EINVAL, 9, "jobs[0].tasks[0].nodeSelector");
}

/* A label without a value, as Kubernetes writes it: `ib: ""` on a node and
 * in a nodeSelector reads as `ib:` (null) does, an empty value (config.md:
 * "Values may be empty"); it was refused as an empty name, found by
 * fuzz_serve's config.  A selector {ib: ""} meets the node labelled so. */
TEST(a_label_without_a_value)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	const int32_t *v;

	ASSERT_OK(load("nodes:\n  - {name: a, gpus: 8, labels: {ib: \"\", zone: x}}\n"
		       "  - {name: b, gpus: 8, labels: {ib: , zone: y}}\n  - {name: c, gpus: 8}\n"
		       "queues: [{name: q}]\n"
		       "jobs: [{name: j, queue: q, tasks: [{gpus: 1}], nodeSelector: {ib: \"\"}}]\n",
		       &s, &d));
	ASSERT_EQ(s->nodes[0].nlabels, 2);
	ASSERT_STR_EQ(s->nodes[0].labels[0].key, "ib");
	ASSERT_STR_EQ(s->nodes[0].labels[0].value, "");
	ASSERT_STR_EQ(s->nodes[1].labels[0].value, "");
	ASSERT_EQ(fw_snapshot_job_nodes(s, 0, &v), 1); /* a and b: as the one left out, c */
	ASSERT_EQ(v[0], 2);
	ASSERT(fw_snapshot_job_may_use(s, 0, 0) && fw_snapshot_job_may_use(s, 0, 1) &&
	       !fw_snapshot_job_may_use(s, 0, 2));
	fw_snapshot_free(s);
}

/* The caller's now (`fairway plan --now`) is checked as the file's now:
 * is: a submitTime or startTime (or a usage.at) after it is refused at its line, naming
 * the flag; the usage times default to it, not to the file's now:. */
TEST(caller_now_is_checked_like_now)
{
	struct fw_snapshot *s = NULL;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_config_load_buffer_now("t.yaml", full_yaml, strlen(full_yaml), 5, "--now", &s, &d),
		  FW_ERANGE);
	ASSERT(s == NULL);
	ASSERT_STR_EQ(d.field, "queues[0].usage.at"); /* at: 60 */
	ASSERT_STR_CONTAINS(d.msg, "60 is after --now (5); usage is what was used by then");
	ASSERT_EQ(fw_config_load_buffer_now("t.yaml", full_yaml, strlen(full_yaml), 70, "--now", &s, &d),
		  FW_ERANGE);
	ASSERT(s == NULL);
	ASSERT_EQ(d.line, 11);
	ASSERT_STR_EQ(d.field, "jobs[0].submitTime");
	ASSERT_STR_CONTAINS(d.msg, "100 is after --now (70)");
	ASSERT_STR_CONTAINS(d.msg, "raise --now");
	ASSERT_EQ(fw_config_load_buffer_now("t.yaml", full_yaml, strlen(full_yaml), 120, "--now", &s, &d),
		  FW_ERANGE);
	ASSERT_STR_EQ(d.field, "jobs[0].startTime");
	ASSERT_STR_CONTAINS(d.msg, "150 is after --now (120); a running job started between its submitTime "
			    "and now, so lower startTime or raise --now");
	ASSERT_OK(fw_config_load_buffer_now("t.yaml", full_yaml, strlen(full_yaml), 7200, "--now", &s, &d));
	ASSERT_EQ(s->now, 7200);
	ASSERT_EQ(s->queues[0].usage_at, 60);   /* given */
	ASSERT_EQ(s->queues[1].usage_at, 7200); /* defaults to the caller's now */
	fw_snapshot_free(s);
}

/* A now that is a date (10^9 s on, span.h fw_time_is_date) makes the
 * snapshot's clock Unix time (config.utc_times) as it is read, so the
 * loader's refusals of a later time name each time's UTC date beside its
 * number; virtual seconds keep the number alone, and so does a file whose
 * caller's --now is virtual.  Before, a dated file's refusals said
 * "1796569000 is after now (1796568000)". */
TEST(a_dated_now_makes_refusals_name_dates)
{
	static const char base[] = "now: %s\nnodes: [{name: n0, gpus: 8}]\nqueues:\n"
				   "  - {name: q, usage: {gpuHours: 1, at: %s}}\n"
				   "jobs:\n  - {name: j, queue: q, submitTime: %s, tasks: [{gpus: 1}]}\n"
				   "  - {name: r, queue: q, submitTime: 0, state: running, startTime: %s,\n"
				   "     tasks: [{gpus: 1}], allocation: [{node: n0, gpus: [0]}]}\n";
	static const struct {
		const char *now, *at, *submit, *start, *field, *msg;
	} c[] = {
		{ "1796568000", "1796569000", "0", "0", "queues[0].usage.at",
		  "1796569000 (2026-12-06T14:56:40Z) is after now (1796568000, 2026-12-06T14:40:00Z); usage is" },
		{ "1796568000", "0", "1796569000", "0", "jobs[0].submitTime",
		  "1796569000 (2026-12-06T14:56:40Z) is after now (1796568000, 2026-12-06T14:40:00Z); a snapshot" },
		{ "1796568000", "0", "0", "1796569000", "jobs[1].startTime",
		  "1796569000 (2026-12-06T14:56:40Z) is after now (1796568000, 2026-12-06T14:40:00Z); a running" },
		{ "999999999", "0", "1000000000", "0", "jobs[0].submitTime",
		  "1000000000 is after now (999999999); a snapshot" },
	};
	struct fw_snapshot *s;
	struct fw_diag d;
	char y[512];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		snprintf(y, sizeof y, base, c[i].now, c[i].at, c[i].submit, c[i].start);
		ASSERT_EQ(load(y, &s, &d), FW_ERANGE);
		ASSERT_STR_EQ(d.field, c[i].field);
		ASSERT_STR_CONTAINS(d.msg, c[i].msg);
	}
	snprintf(y, sizeof y, base, "1796568000", "0", "0", "0");
	ASSERT_OK(load(y, &s, &d));
	ASSERT(s->config.utc_times); /* its texts write dates: fairway plan's, the checker's */
	fw_snapshot_free(s);
	snprintf(y, sizeof y, base, "999999999", "0", "0", "0");
	ASSERT_OK(load(y, &s, &d));
	ASSERT(!s->config.utc_times);
	fw_snapshot_free(s);
	/* the caller's now decides, not the file's */
	ASSERT_EQ(fw_config_load_buffer_now("t.yaml", y, strlen(y), 1000000000, "--now", &s, &d), FW_OK);
	ASSERT(s->config.utc_times);
	fw_snapshot_free(s);
	ASSERT_EQ(fw_config_load_buffer_now("t.yaml", full_yaml, strlen(full_yaml), 70, "--now", &s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "100 is after --now (70)");
}

/* A span or a time the parser does not take is refused saying which
 * slip it is, and, where one spelling is clearly meant, which to write
 * (yamlnum.c not_a_span); nothing of it is accepted.  A duration key
 * (maxRuntime) and a time key (now) each. */
TEST(a_slip_in_a_span_says_what_to_write)
{
	static const struct {
		const char *key, *text, *msg;
	} c[] = {
		{ "maxRuntime", "5 minutes", "\"5 minutes\" is not a duration as fairway writes one; write \"5m\" (" },
		{ "maxRuntime", "2H", "write \"2h\" (" },
		{ "maxRuntime", "1 hour, 30 mins", "write \"1h30m\" (" },
		{ "maxRuntime", "1 hour and 30 Minutes", "write \"1h30m\" (" },
		{ "maxRuntime", "2 weeks", "write \"14d\" (" },
		{ "maxRuntime", "1.5 hours", "write \"1.5h\" (" },
		{ "maxRuntime", "3600000ms", "write \"3600s\" (" },
		{ "maxRuntime", "1500 ms", "\"1500 ms\" is not a duration; write seconds (30)" }, /* not whole: no guess */
		{ "maxRuntime", "1.5 weeks", "\"1.5 weeks\" is not a duration; write seconds (30)" }, /* no guess */
		{ "maxRuntime", "5 fortnights", "\"5 fortnights\" is not a duration; write seconds (30)" },
		{ "maxRuntime", "-30m", "\"-30m\" is not a duration: it is negative; a duration is a length" },
		{ "maxRuntime", "1h-30m", "\"1h-30m\" is not a duration: its terms add up and none is negative" },
		{ "maxRuntime", "2026-12-31", "\"2026-12-31\" is not a duration: it is a date; a duration is a length" },
		{ "maxRuntime", "2026-02-30", "\"2026-02-30\" is not a duration: its terms add up" }, /* no such day */
		{ "now", "2026-12-06T14:40:00Z", "it is a date; times are seconds, so write its Unix time, 1796568000 (" },
		{ "now", "2026-12-06 14:40", "write its Unix time, 1796568000 (" },
		{ "now", "2024-02-29", "write its Unix time, 1709164800 (" },
		{ "now", "1970-01-01", "write its Unix time, 0 (" },
		{ "now", "2023-02-29", "\"2023-02-29\" is not a time; write seconds from the snapshot's epoch" },
		{ "now", "2026-12-06T24:00", "\"2026-12-06T24:00\" is not a time; write seconds from" }, /* no 24:00 */
		{ "now", "-1", "\"-1\" is not a time: it is negative; a time counts seconds" },
		{ "now", "2 hours", "\"2 hours\" is not a time as fairway writes one; write \"2h\" (" },
		{ "now", "soon", "\"soon\" is not a time; write seconds from the snapshot's epoch (7200, or \"2h\"; "
				 "a live fleet's snapshot: its Unix time" },
		{ "now", "99999999999d", "is too late; times are limited to 100000000000 seconds (5138-11-16T09:46:40Z" },
	};
	struct fw_snapshot *s;
	struct fw_diag d;
	char y[256];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		bool now = !strcmp(c[i].key, "now");
		snprintf(y, sizeof y, "%s%s%s\nnodes: [{name: n0, gpus: 8}]\nqueues:\n  - name: q\n%s%s%s\n",
			 now ? "now: \"" : "", now ? c[i].text : "", now ? "\"" : "", now ? "" : "    maxRuntime: \"",
			 now ? "" : c[i].text, now ? "" : "\"");
		ASSERT_NE(load(y, &s, &d), FW_OK);
		ASSERT_STR_EQ(d.field, now ? "now" : "queues[0].maxRuntime");
		ASSERT_STR_CONTAINS(d.msg, c[i].msg);
	}
	/* a duration to the millisecond (scheduler's) gets milliseconds as
	 * seconds' decimals, and the spellings offered are taken as written */
	static const struct { const char *text, *fix; } ms[] = {
		{ "1500ms", "1.5s" }, { "1050 ms", "1.05s" }, { "1001 msec", "1.001s" }, { "2 Weeks", "14d" },
	};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		char want[64];
		snprintf(y, sizeof y, "scheduler: {heartbeatTimeout: \"%s\"}\nnodes: [{name: n0, gpus: 8}]\n", ms[i].text);
		ASSERT_EQ(load(y, &s, &d), FW_EINVAL);
		snprintf(want, sizeof want, "write \"%s\" (", ms[i].fix);
		ASSERT_STR_CONTAINS(d.msg, want);
		snprintf(y, sizeof y, "scheduler: {heartbeatTimeout: %s}\nnodes: [{name: n0, gpus: 8}]\n", ms[i].fix);
		ASSERT_OK(load(y, &s, &d));
		fw_snapshot_free(s);
	}
	ASSERT_OK(load("nodes: [{name: n0, gpus: 8}]\nqueues: [{name: q, maxRuntime: 3600s, defaultRuntime: 14d}]\n",
		       &s, &d));
	fw_snapshot_free(s);
}

/* A job's 32-bit span past 68 years is refused with what it comes to in
 * words, so a slip of unit shows (seconds written as milliseconds). */
TEST(a_job_span_past_68_years_says_it_in_words)
{
	struct fw_snapshot *s;
	struct fw_diag d;

	ASSERT_EQ(load("nodes: [{name: n0, gpus: 8}]\nqueues: [{name: q}]\njobs:\n"
		       "  - {name: j, queue: q, checkpointInterval: 3600000000, tasks: [{gpus: 1}]}\n", &s, &d),
		  FW_ERANGE);
	ASSERT_STR_EQ(d.field, "jobs[0].checkpointInterval");
	ASSERT_STR_CONTAINS(d.msg, "3600000000 s is 1000000h00m, too long; a job's checkpointInterval is at most "
			    "2147483647 s (68 years), so lower it");
	ASSERT_EQ(load("nodes: [{name: n0, gpus: 8}]\nqueues: [{name: q}]\njobs:\n"
		       "  - {name: j, queue: q, maxRuntime: 25000d, tasks: [{gpus: 1}]}\n", &s, &d),
		  FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "\"25000d\" is 600000h00m (2160000000 s), too long;");
}

/* docs/config.md ("Value syntax") gives each kind's decimals: a plain
 * decimal at most 6, GPUs 3, memory and durations as many as come out
 * whole in their unit, 9 at most.  It once said 9 for every number, and a
 * usageWeight of 7 decimals was refused saying 6.  The loader's limits,
 * and the prose that states them. */
TEST(decimals_by_kind_as_config_md_says)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	char *md = slurp("docs/config.md"), *a = md ? strstr(md, "## Value syntax") : NULL, *b;

	ASSERT(a && (b = strstr(a, "\n| Kind")));
	*b = '\0';
	for (char *p = a; *p; p++)
		*p = *p == '\n' ? ' ' : *p;
	ASSERT_STR_CONTAINS(a, "a plain decimal (`usageWeight`, `overQuotaWeight`, `gpuHours`, `gpuHourBudget`) at most 6;");
	ASSERT_STR_CONTAINS(a, "GPUs and CPU cores at most 3");
	ASSERT_STR_CONTAINS(a, "at most 9 (`0.001953125Pi` is 2Ti)");
	free(md);

	ASSERT_OK(load("scheduler: {usageWeight: 0.123456}\n", &s, &d));
	fw_snapshot_free(s);
	ASSERT_EQ(load("scheduler: {usageWeight: 0.1234567}\n", &s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "at most 6 decimals");
	/* a queue's weight and budget too (the API refuses the same:
	 * test_serve_codec.c) */
	ASSERT_OK(load("queues: [{name: q, gpuHourBudget: 0.000001, resources: {gpu: {overQuotaWeight: 0.123456}}}]\n",
		       &s, &d));
	ASSERT(s->queues[0].gpu_hour_budget == 0.000001 && s->queues[0].over_quota_weight[FW_RES_GPU] == 0.123456);
	fw_snapshot_free(s);
	ASSERT_EQ(load("queues: [{name: q, gpuHourBudget: 0.0000001}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "queues[0].gpuHourBudget");
	ASSERT_STR_CONTAINS(d.msg, "at most 6 decimals");
	ASSERT_EQ(load("queues: [{name: q, resources: {gpu: {overQuotaWeight: 0.1234567}}}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "queues[0].resources.gpu.overQuotaWeight");
	ASSERT_STR_CONTAINS(d.msg, "at most 6 decimals");
	ASSERT_OK(load("queues: [{name: q, resources: {gpu: {quota: 0.125}}}]\n", &s, &d));
	fw_snapshot_free(s);
	ASSERT_EQ(load("queues: [{name: q, resources: {gpu: {quota: 0.0005}}}]\n", &s, &d), FW_EINVAL);
	ASSERT_EQ(load("nodes: [{name: a, gpus: 8, cpu: 0.0005}]\n", &s, &d), FW_EINVAL);
	ASSERT_OK(load("nodes: [{name: a, gpus: 8, memory: 0.001953125Pi}]\n"
		       "queues: [{name: q, maxRuntime: 0.0003125d}]\n", &s, &d));
	ASSERT_EQ(s->nodes[0].mem_mib, 2 * 1024 * 1024); /* 9 decimals: 2Ti */
	ASSERT_EQ(s->queues[0].max_runtime_s, 27);       /* 7 decimals: 27 s */
	fw_snapshot_free(s);
	ASSERT_EQ(load("nodes: [{name: a, gpus: 8, memory: 0.0019531250001Pi}]\n", &s, &d), FW_EINVAL);
}

/* A name that is not one says how names are used, with commands that
 * exist (it named "fairway jobs get", which does not). */
TEST(a_bad_name_points_at_real_commands)
{
	struct fw_snapshot *s;
	struct fw_diag d;

	ASSERT_EQ(load("nodes: [{name: \"n 1\", gpus: 8}]\n", &s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "nodes[0].name");
	ASSERT_STR_CONTAINS(d.msg, "rename it (nodes, queues and jobs are addressed by name: fairway jobs show NAME, "
				   "fairway nodes show NAME, /v1/queues/NAME)");
	ASSERT(strstr(d.msg, "jobs get") == NULL);
}

/* A level name matches exactly; one that is a typo of a level (or of
 * "node"), whatever its case, is refused naming that level, in a node's
 * topology map and in a job's topology constraint. */
TEST(a_level_typo_names_the_level)
{
	static const char head[] = "topology: {levels: [block, rack]}\n"
				   "queues: [{name: team}]\n";
	struct fw_snapshot *s;
	struct fw_diag d;
	char y[512];

	snprintf(y, sizeof y, "%snodes: [{name: n0, gpus: 8, topology: {block: b0, rakc: r0}}]\n", head);
	EXPECT_FAIL(y, FW_EINVAL, 3, "nodes[0].topology.rakc");
	ASSERT_EQ(load(y, &s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "unknown topology level \"rakc\" (did you mean \"rack\"?)");
	snprintf(y, sizeof y, "%snodes: [{name: n0, gpus: 8, topology: {block: b0, rack: r0}}]\n"
		 "jobs: [{name: j, queue: team, tasks: [{gpus: 8}], topology: {required: Rack}}]\n", head);
	EXPECT_FAIL(y, FW_EINVAL, 4, "jobs[0].topology.required");
	ASSERT_EQ(load(y, &s, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "unknown topology level \"Rack\" (did you mean \"rack\"?); use \"node\"");
	snprintf(y, sizeof y, "%snodes: [{name: n0, gpus: 8, topology: {block: b0, rack: r0}}]\n"
		 "jobs: [{name: j, queue: team, tasks: [{gpus: 8}], topology: {required: galaxy}}]\n", head);
	ASSERT_EQ(load(y, &s, &d), FW_EINVAL);
	ASSERT(strstr(d.msg, "did you mean") == NULL);
}

/* An allocation's unknown node names the one it was meant to be: a
 * group's node of the same number but another zero padding, or one of
 * the same number a typo away in its stem; another number is another
 * node, no guess. */
TEST(an_unknown_allocation_node_names_the_near_one)
{
	static const struct { const char *name, *hint; } c[] = {
		{ "n0", " (did you mean \"n000\"?)" },
		{ "n03", " (did you mean \"n003\"?)" },
		{ "gpu_n001", " (did you mean \"gpu-n001\"?)" },
		{ "n9", NULL },
		{ "n004", NULL },
		{ "m0", NULL },
	};
	struct fw_snapshot *s;
	struct fw_diag d;
	char y[512], want[96];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		snprintf(y, sizeof y, "nodeGroups:\n  - {count: 4, namePrefix: n, gpus: 8}\n"
			 "  - {count: 2, namePrefix: gpu-n, gpus: 8}\nqueues: [{name: q}]\n"
			 "jobs:\n  - {name: j, queue: q, state: running, tasks: [{gpus: 1}],"
			 " allocation: [{node: %s, gpus: [0]}]}\n", c[i].name);
		ASSERT_EQ(load(y, &s, &d), FW_ENOENT);
		snprintf(want, sizeof want, "unknown node \"%s\"%s; an allocation must name", c[i].name,
			 c[i].hint ? c[i].hint : "");
		ASSERT_STR_CONTAINS(d.msg, want);
	}
}

TEST_MAIN(setup, full_example, full_example_queues, full_example_jobs,
	  defaults, a_job_is_preemptible_unless_it_says_not, durations, quantities, quantities_in_yaml, node_groups,
	  node_groups_errors, fractional_gpu, type_and_range_errors,
	  yaml_level_errors, aliases_are_safe,
	  hostile_nesting_and_anchors_fail_fast, queue_tree, unknown_keys_suggest_the_nearest, load_file,
	  bad_input_files, bad_input_cases_txt, docs_example, task_gpus_fraction_names_gpu, yaml_hidden_line_breaks_are_refused_at_their_place,
	  queue_min_runtime, scheduler_reserve_depth, scheduler_estimate_depth, scheduler_xfactor_cap, scheduler_starve_after_and_drain_running,
	  job_node_selector, queue_gpu_model_limits, queue_user_usage, a_label_without_a_value,
	  caller_now_is_checked_like_now, a_bad_name_points_at_real_commands,
	  decimals_by_kind_as_config_md_says, a_level_typo_names_the_level,
	  an_unknown_allocation_node_names_the_near_one, a_dated_now_makes_refusals_name_dates,
	  a_slip_in_a_span_says_what_to_write, a_job_span_past_68_years_says_it_in_words)
