/*
 * test_slurm.c — the Slurm adapter's pure parts, without a cluster: GRES
 * strings, option parsing, managed partitions, and a plan turned into
 * backend actions and comment notes.  The adapter against a real
 * slurmctld is tested by tests/integration/slurm_*.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "fairway/fairway.h"
#include "fwconfig.h"
#include "slurm_int.h"

TEST(gres_counts_and_models)
{
	char model[FW_NAME_MAX];

	ASSERT_EQ(fw__gres_gpus("gpu:h100:8", model, sizeof model), 8);
	ASSERT_STR_EQ(model, "h100");
	ASSERT_EQ(fw__gres_gpus("gres:gpu:4", model, sizeof model), 4);
	ASSERT_STR_EQ(model, "");
	ASSERT_EQ(fw__gres_gpus("gres/gpu:2", model, sizeof model), 2);
	ASSERT_EQ(fw__gres_gpus("mps:100,gpu:a100:2(S:0-1)", model, sizeof model), 2);
	ASSERT_STR_EQ(model, "a100");
	ASSERT_EQ(fw__gres_gpus("gres:gpu:h100:3", model, sizeof model), 3);
	ASSERT_STR_EQ(model, "h100");
	ASSERT_EQ(fw__gres_gpus("(null)", model, sizeof model), 0);
	ASSERT_EQ(fw__gres_gpus("", model, sizeof model), 0);
	ASSERT_EQ(fw__gres_gpus(NULL, model, sizeof model), 0);
}

TEST(gres_index_masks)
{
	ASSERT_EQ(fw__gres_idx_mask("gpu:h100:2(IDX:0-1)"), 0x3);
	ASSERT_EQ(fw__gres_idx_mask("gpu:h100:3(IDX:0,4-5)"), 0x31);
	ASSERT_EQ(fw__gres_idx_mask("gpu:h100:8(IDX:0-7)"), 0xff);
	ASSERT_EQ(fw__gres_idx_mask("gpu:h100:0"), 0);
	ASSERT_EQ(fw__gres_idx_mask(NULL), 0);
}

TEST(options)
{
	char buf[128] = "conf=/etc/slurm/slurm.conf,partitions=gpu:gpu2,comments=10";
	char bad[64] = "conf=/x,colour=red";
	struct fw_slurm_opts o;
	struct fw_diag d;

	memset(&o, 0, sizeof o);
	ASSERT_OK(fw_slurm_opts_parse(buf, &o, &d));
	ASSERT_STR_EQ(o.slurm_conf, "/etc/slurm/slurm.conf");
	ASSERT_STR_EQ(o.partitions, "gpu:gpu2");
	ASSERT_EQ(o.comment_budget, 10);
	ASSERT_EQ(fw_slurm_opts_parse(bad, &o, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "colour");
	for (int i = 0; i < 4; i++) {
		char c[32];
		snprintf(c, sizeof c, "comments=%s", (const char *[]){ "abc", "0", "10x", "" }[i]);
		ASSERT_EQ(fw_slurm_opts_parse(c, &o, &d), FW_EINVAL);
		ASSERT_STR_CONTAINS(d.msg, "expected a whole number from 1 to 1000000");
		ASSERT_EQ(o.comment_budget, 10); /* unchanged */
	}
}

TEST(managed_partitions)
{
	struct fw_slurm *h = calloc(1, sizeof *h);

	ASSERT(h);
	snprintf(h->parts, sizeof h->parts, "gpu,gpu2");
	ASSERT(fw__slurm_managed(h, "gpu"));
	ASSERT(fw__slurm_managed(h, "gpu2"));
	ASSERT(!fw__slurm_managed(h, "gp"));
	ASSERT(!fw__slurm_managed(h, "cpu"));
	ASSERT(!fw__slurm_managed(h, NULL));
	free(h);
}

static const char cluster[] =
	"now: 1000\n"
	"topology: {levels: [switch]}\n"
	"nodes:\n"
	"  - {name: gpu001, gpus: 8, cpu: 64, memory: 500Gi, topology: {switch: s1}}\n"
	"  - {name: gpu002, gpus: 8, cpu: 64, memory: 500Gi, topology: {switch: s1}}\n"
	"queues:\n"
	"  - {name: team_a, resources: {gpu: {quota: 8}}}\n"
	"jobs:\n"
	"  - {name: '101', queue: team_a, submitTime: 0, expectedRuntime: 600,\n"
	"     tasks: [{count: 2, gpus: 8}]}\n"
	"  - {name: '102', queue: team_a, submitTime: 1, expectedRuntime: 600,\n"
	"     tasks: [{count: 1, gpus: 1}]}\n";

/* The plan of a 2-node gang and a job that must wait, as actions/notes. */
TEST(plan_to_actions_and_notes)
{
	struct fw_snapshot *s = NULL;
	struct fw_plan *p = NULL;
	struct fw_backend_action *acts;
	struct fw_slurm_note *notes;
	struct fw_arena a;
	struct fw_diag d;
	int32_t na, nn;

	ASSERT_OK(fw_config_load_buffer("t", cluster, sizeof cluster - 1, &s, &d));
	fw_arena_init(&a, 0);
	ASSERT_OK(fw_cycle_run(s, NULL, &a, &p));
	ASSERT_OK(fw_slurm_plan_actions(s, p, &a, &acts, &na, &notes, &nn));
	ASSERT(na >= 1);
	ASSERT_EQ(acts[0].kind, FW_DECIDE_START);
	ASSERT_STR_EQ(acts[0].job, "101");
	ASSERT_EQ(acts[0].nplacements, 2);
	ASSERT_STR_EQ(acts[0].placements[0].node, "gpu001");
	ASSERT_STR_EQ(acts[0].placements[1].node, "gpu002");
	ASSERT_EQ(acts[0].placements[0].gpu_mask, 0xff);
	ASSERT_EQ(nn, 1);
	ASSERT_STR_EQ(notes[0].job, "102");
	ASSERT_STR_CONTAINS(notes[0].text, "fairway: waiting: ");
	ASSERT_STR_CONTAINS(notes[0].text, "expected start 1970-01-01T00:27Z");
	fw_arena_release(&a);
	fw_snapshot_free(s);
}

TEST_MAIN(gres_counts_and_models, gres_index_masks, options, managed_partitions,
	  plan_to_actions_and_notes)
