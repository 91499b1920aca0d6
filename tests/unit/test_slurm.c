/*
 * test_slurm.c — the Slurm adapter's pure parts, without a cluster: GRES
 * strings, option parsing, managed partitions, --constraint, the snapshot
 * built from fake Slurm messages (node filters among it), and a plan
 * turned into backend actions and comment notes.  The adapter against a real
 * slurmctld is tested by tests/integration/slurm_*.sh.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	/* counts past a node of the core are the caller's to refuse */
	ASSERT_EQ(fw__gres_gpus("gpu:1g.10gb:56", model, sizeof model), 56);
	ASSERT_STR_EQ(model, "1g.10gb");
	ASSERT_EQ(fw__gres_gpus("gres:gpu:99999999999", model, sizeof model), FW__GRES_MAX);
	ASSERT_EQ(fw__gres_gpus("gpu:-3", model, sizeof model), 0);
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
	ASSERT(!o.usage_own);
	char own[32] = "usage=own", slurm[32] = "usage=slurm", sshare[32] = "usage=sshare";
	ASSERT_OK(fw_slurm_opts_parse(own, &o, &d));
	ASSERT(o.usage_own);
	ASSERT_OK(fw_slurm_opts_parse(slurm, &o, &d));
	ASSERT(!o.usage_own);
	ASSERT_EQ(fw_slurm_opts_parse(sshare, &o, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "usage=sshare: expected slurm (Slurm's decayed usage");
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
	/* a pending job submitted to several names them all; managed when one
	 * is, as contrib/slurm/job_submit.lua holds it then */
	ASSERT(fw__slurm_managed(h, "cpu,gpu2"));
	ASSERT(!fw__slurm_managed(h, "cpu,gp,gpu22"));
	ASSERT(fw__slurm_listed("cpu,gpu2", "gpu2"));
	ASSERT(!fw__slurm_listed("cpu,gpu2", "gpu"));
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

/* One cycle on a YAML snapshot (arena a, set up here), its plan as
 * backend actions and notes. */
static struct fw_snapshot *actions_of(const char *yaml, size_t len, struct fw_arena *a,
				      struct fw_backend_action **acts, int32_t *na, struct fw_slurm_note **notes,
				      int32_t *nn)
{
	struct fw_snapshot *s = NULL;
	struct fw_plan *p = NULL;
	struct fw_diag d;

	ASSERT_OK(fw_config_load_buffer("t", yaml, len, &s, &d));
	fw_arena_init(a, 0);
	ASSERT_OK(fw_cycle_run(s, NULL, a, &p));
	ASSERT_OK(fw_slurm_plan_actions(s, p, a, acts, na, notes, nn));
	return s;
}

/* The plan of a 2-node gang and a job that must wait, as actions/notes. */
TEST(plan_to_actions_and_notes)
{
	struct fw_backend_action *acts;
	struct fw_slurm_note *notes;
	struct fw_arena a;
	int32_t na, nn;
	struct fw_snapshot *s = actions_of(cluster, sizeof cluster - 1, &a, &acts, &na, &notes, &nn);

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

/* A job that can never start as asked says what would start it: its
 * Slurm comment is all its user reads. */
TEST(a_never_fitting_job_is_told_what_to_change)
{
	struct fw_backend_note e = { .reason = FW_REASON_TOPOLOGY, .expected_start = FW_TIME_UNKNOWN,
				     .unknown_why = FW_REASON_NEVER_FITS };
	char buf[200];

	fw_slurm_note_text(&e, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: waiting: topology; start unknown (never_fits): as asked it never fits this cluster; "
			   "ask for fewer GPUs or nodes, or drop --switches, --constraint or a GPU type");
	e.unknown_why = FW_REASON_BUDGET_SHORT; /* others keep their words */
	fw_slurm_note_text(&e, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: waiting: topology; start unknown (budget_short)");
}

/* A node reported unhealthy: the drain's reason (Slurm's node Reason,
 * "fairway: <why>") and the eviction of the job on it name the node and
 * the job, not their indices in the snapshot. */
TEST(action_reasons_name_nodes_and_jobs)
{
	static const char sick[] =
		"now: 1000\n"
		"nodes:\n"
		"  - {name: gpu001, gpus: 8}\n"
		"  - {name: gpu002, gpus: 8, health: unhealthy}\n"
		"queues:\n"
		"  - {name: team_a}\n"
		"jobs:\n"
		"  - {name: '201', queue: team_a, state: running, startTime: 400,\n"
		"     tasks: [{count: 1, gpus: 2}], allocation: [{node: gpu002, group: 0, gpus: [0, 1]}]}\n";
	struct fw_backend_action *acts;
	struct fw_slurm_note *notes;
	struct fw_arena a;
	int32_t na, nn, drains = 0, evicts = 0;
	struct fw_snapshot *s = actions_of(sick, sizeof sick - 1, &a, &acts, &na, &notes, &nn);

	for (int32_t i = 0; i < na; i++) {
		if (acts[i].kind == FW_DECIDE_DRAIN) {
			drains++;
			ASSERT_STR_EQ(acts[i].node, "gpu002");
			ASSERT_STR_EQ(acts[i].why, "drain: node \"gpu002\" is unhealthy; its 1 running job is evicted "
						   "and requeued");
		} else if (acts[i].kind == FW_DECIDE_EVICT) {
			evicts++;
			ASSERT_STR_EQ(acts[i].job, "201");
			ASSERT_STR_CONTAINS(acts[i].why, "evicted: node \"gpu002\" it runs on is unhealthy and drained");
			ASSERT_STR_CONTAINS(acts[i].why, "it loses 10m of work");
		}
		ASSERT(strchr(acts[i].why, '#') == NULL);
	}
	ASSERT_EQ(drains, 1);
	ASSERT_EQ(evicts, 1);
	fw_arena_release(&a);
	fw_snapshot_free(s);
}

/* A queue's run-time limit (maxRuntime 10m) as the adapter's actions: the
 * job past it ends (EVICT, reason TIME_LIMIT: apply.c lowers its Slurm
 * time limit, it is not requeued), its text naming the queue and saying
 * nothing of lost work; a start under the limit carries it (limit_s: the
 * time limit the start gives the job), one without a limit none. */
TEST(a_run_time_limit_ends_a_job_and_bounds_a_start)
{
	static const char limited[] =
		"now: 1000\n"
		"nodes:\n"
		"  - {name: gpu001, gpus: 8}\n"
		"queues:\n"
		"  - {name: team_a, maxRuntime: 10m, resources: {gpu: {quota: 4}}}\n"
		"  - {name: team_b, resources: {gpu: {quota: 4}}}\n"
		"jobs:\n"
		"  - {name: '301', queue: team_a, state: running, startTime: 100, expectedRuntime: 3600,\n"
		"     tasks: [{count: 1, gpus: 2}], allocation: [{node: gpu001, group: 0, gpus: [0, 1]}]}\n"
		"  - {name: '302', queue: team_a, submitTime: 0, expectedRuntime: 3600, tasks: [{count: 1, gpus: 1}]}\n"
		"  - {name: '303', queue: team_b, submitTime: 0, expectedRuntime: 3600, tasks: [{count: 1, gpus: 1}]}\n";
	struct fw_backend_action *acts;
	struct fw_slurm_note *notes;
	struct fw_arena a;
	int32_t na, nn, ends = 0, starts = 0;
	struct fw_snapshot *s = actions_of(limited, sizeof limited - 1, &a, &acts, &na, &notes, &nn);

	for (int32_t i = 0; i < na; i++) {
		if (acts[i].kind == FW_DECIDE_EVICT) {
			ends++;
			ASSERT_STR_EQ(acts[i].job, "301");
			ASSERT_EQ(acts[i].reason, FW_REASON_TIME_LIMIT);
			ASSERT_EQ(acts[i].a, 900);
			ASSERT_EQ(acts[i].b, 600);
			ASSERT_STR_EQ(acts[i].why, "ended: it has run 15m and the run-time limit (maxRuntime) of its "
						   "queue \"team_a\" is 10m; it is stopped, not requeued");
		} else if (acts[i].kind == FW_DECIDE_START) {
			starts++;
			ASSERT_EQ(acts[i].limit_s, !strcmp(acts[i].job, "302") ? 600 : 0);
		}
	}
	ASSERT_EQ(ends, 1);
	ASSERT_EQ(starts, 2);
	fw_arena_release(&a);
	fw_snapshot_free(s);
}

/* ---- the snapshot built from Slurm's messages, without a cluster ---- */

static void fake_node(node_info_t *n, const char *name)
{
	n->name = (char *)name;
	n->gres = (char *)"gpu:h100:8";
	n->cpus = 64;
	n->real_memory = 512000;
	n->node_state = NODE_STATE_IDLE;
}

static void fake_job(slurm_job_info_t *j, uint32_t id, const char *nodes, const char *gres, uint32_t cpus)
{
	j->job_id = id;
	j->account = (char *)"team_a";
	j->partition = (char *)"gpu";
	j->user_name = (char *)"u";
	j->nice = NICE_OFFSET;
	j->time_limit = 10;
	j->submit_time = 1;
	j->start_time = 500;
	j->num_nodes = 1;
	j->num_cpus = cpus;
	j->pn_min_memory = 1000;
	j->tres_per_node = (char *)"gres:gpu:2";
	j->shared = NO_VAL16; /* as sbatch without --exclusive or --oversubscribe */
	j->job_state = JOB_RUNNING;
	j->nodes = (char *)nodes;
	j->gres_detail_cnt = 1;
	j->gres_detail_str = calloc(1, sizeof *j->gres_detail_str);
	j->gres_detail_str[0] = (char *)gres;
}

/* A held job (priority 0) asking tres (NULL: fake_job's 2 GPUs a node),
 * on no node yet. */
static void fake_pending(slurm_job_info_t *j, uint32_t id, uint32_t cpus, const char *tres)
{
	fake_job(j, id, NULL, NULL, cpus);
	j->job_state = JOB_PENDING;
	j->priority = 0;
	j->gres_detail_cnt = 0;
	if (tres)
		j->tres_per_node = (char *)tres;
}

/* A fake Slurm world for fw__slurm_build: nn nodes gpu001.. (fake_node),
 * nj jobs (zeroed: the test fills them, with fake_job), one managed
 * partition "gpu" of every node, and an empty snapshot but for the leaf
 * queue team_a, at now = 1000. */
struct fake {
	struct fw_slurm *h;
	node_info_msg_t nodes;
	partition_info_msg_t parts;
	partition_info_t part;
	job_info_msg_t jobs;
	int32_t inx[3];
	partition_info_t parts2[2];     /* fake_two_partitions' gpu and gpu2 */
	int32_t inx2[3];
	char names[8][8];
	struct fw_queue q;
	struct fw_snapshot *s;
	struct fw_backend_world w;
	struct fw_diag d;
};

static void fake_renew(struct fake *f)
{
	fw_snapshot_free(f->s);
	f->s = fw_snapshot_new();
	fw_snapshot_add_queue(f->s, &f->q);
	f->s->now = 1000;
}

static void fake_init(struct fake *f, int nn, int nj)
{
	memset(f, 0, sizeof *f);
	f->h = calloc(1, sizeof *f->h);
	snprintf(f->h->parts, sizeof f->h->parts, "gpu");
	f->nodes.record_count = (uint32_t)nn;
	f->nodes.node_array = calloc((size_t)nn, sizeof *f->nodes.node_array);
	for (int i = 0; i < nn && i < 8; i++) {
		snprintf(f->names[i], sizeof f->names[i], "gpu%03d", i + 1);
		fake_node(&f->nodes.node_array[i], f->names[i]);
	}
	f->inx[0] = 0;
	f->inx[1] = nn - 1;
	f->inx[2] = -1;
	f->part.name = (char *)"gpu";
	f->part.node_inx = f->inx;
	f->part.state_up = PARTITION_UP;
	f->parts.record_count = 1;
	f->parts.partition_array = &f->part;
	f->jobs.record_count = (uint32_t)nj;
	f->jobs.job_array = calloc((size_t)nj, sizeof *f->jobs.job_array);
	f->h->nodes = &f->nodes;
	f->h->partitions = &f->parts;
	f->h->jobs = &f->jobs;
	fw_queue_init(&f->q);
	strcpy(f->q.name, "team_a");
	fake_renew(f);
}

static void fake_free(struct fake *f)
{
	for (uint32_t i = 0; i < f->jobs.record_count; i++)
		free(f->jobs.job_array[i].gres_detail_str);
	free(f->jobs.job_array);
	free(f->nodes.node_array);
	free(f->h->orphans);
	free(f->h->jhash);
	free(f->h->thash);
	fw__slurm_ended_free(f->h);
	free(f->h);
	fw_snapshot_free(f->s);
}

/* Slurm may run more on a node than fairway counts room for: 301 and 302
 * ask 48 + 32 of gpu001's 64 cores (oversubscribed), 304 holds GPUs 0-1
 * of gpu002 that 303 holds already (shared GPUs).  The snapshot must
 * still validate (fw_snapshot_validate refuses an overbooked node): 302's
 * task is cut to the 16 cores left, 304 counts as foreign (its GPUs bad),
 * and 305, released by fairway onto gpu002 where 303 leaves 24 cores, is
 * not counted as starting there (it asks 40): it is pending again. */
TEST(a_snapshot_from_slurm_never_overbooks_a_node)
{
	struct fake f;
	fake_init(&f, 2, 5);
	fake_job(&f.jobs.job_array[0], 301, "gpu001", "gpu:h100:2(IDX:0-1)", 48);
	fake_job(&f.jobs.job_array[1], 302, "gpu001", "gpu:h100:2(IDX:2-3)", 32);
	fake_job(&f.jobs.job_array[2], 303, "gpu002", "gpu:h100:2(IDX:0-1)", 40);
	fake_job(&f.jobs.job_array[3], 304, "gpu002", "gpu:h100:2(IDX:0-1)", 8);
	fake_pending(&f.jobs.job_array[4], 305, 40, NULL);
	f.jobs.job_array[4].priority = 1000;
	f.jobs.job_array[4].req_nodes = (char *)"gpu002";
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	if (fw_snapshot_validate(f.s, &f.d) != FW_OK)
		fprintf(stderr, "  %s: %s\n", f.d.field, f.d.msg);
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 4); /* 304 is foreign */
	ASSERT_STR_EQ(f.s->jobs[1].name, "302");
	ASSERT_EQ(f.s->jobs[1].groups[0].cpu_milli, 16000);
	ASSERT_EQ(f.s->jobs[0].groups[0].cpu_milli, 48000);
	ASSERT_EQ(f.s->nodes[1].bad_gpu_mask, 0x3);
	ASSERT_STR_EQ(f.s->jobs[3].name, "305");
	ASSERT_EQ(f.s->jobs[3].state, FW_JOB_PENDING);
	f.jobs.job_array[4].num_cpus = 24; /* fits the 24 cores left: starting */
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->jobs[3].state, FW_JOB_RUNNING);
	fake_free(&f);
}

/* A node with more GPUs than a node of the core holds (MIG slices as
 * GRES: 8 GPUs x 7 = 56) and a job asking more than 16 per node.  Until
 * the adapter left them out, either one made fw_snapshot_validate refuse
 * the whole snapshot, and no job was scheduled at all.  Now the node is
 * scheduled as 16 GPUs, a running job on its GPUs 16 and up counts as
 * foreign (skipped), and the pending job stays held with a comment that
 * says why; every other job is scheduled as before. */
TEST(a_job_fairway_cannot_place_stops_no_cycle)
{
	struct fake f;
	char text[200];

	fake_init(&f, 2, 4);
	fake_node(&f.nodes.node_array[0], "mig001");
	f.nodes.node_array[0].gres = (char *)"gpu:1g.10gb:56";
	fake_job(&f.jobs.job_array[0], 401, "mig001", "gpu:1g.10gb:2(IDX:20-21)", 4);
	fake_job(&f.jobs.job_array[1], 402, "mig001", "gpu:1g.10gb:2(IDX:2-3)", 4);
	fake_pending(&f.jobs.job_array[2], 403, 4, "gres:gpu:32");
	fake_pending(&f.jobs.job_array[3], 404, 4, "gres:gpu:4");
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	if (fw_snapshot_validate(f.s, &f.d) != FW_OK)
		fprintf(stderr, "  %s: %s\n", f.d.field, f.d.msg);
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->nodes[0].gpu_count, FW_MAX_GPUS_PER_NODE);
	ASSERT_STR_EQ(f.s->nodes[0].gpu_model, "1g.10gb");
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[0].name, "402");
	ASSERT_EQ(f.s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_STR_EQ(f.s->jobs[1].name, "404");
	ASSERT_EQ(f.s->jobs[1].groups[0].gpus, 4);
	ASSERT_EQ(f.w.skipped_jobs, 2); /* 401 (foreign GPUs) and 403 */
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 403u);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_GPUS);
	ASSERT_EQ(f.h->orphans[0].n, 32);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[2], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: asks 32 GPUs per node, and fairway places at most 16 on a node: "
			    "held (ask for fewer per node, on more nodes)");
	f.h->orphans[0].why = FW__ORPHAN_NODES;
	f.h->orphans[0].n = 2000000;
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[2], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: asks 2000000 nodes, and a fairway job has at most 1048576 tasks: held");
	f.jobs.job_array[2].account = (char *)"nobody";
	f.h->orphans[0].why = FW__ORPHAN_NO_QUEUE;
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[2], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: account 'nobody' is no fairway queue: held (scontrol update jobid=403 account=NAME, "
			    "NAME a queue of fairway's YAML, lets it be planned)");
	/* and the cycle runs on it */
	struct fw_arena ar;
	struct fw_plan *p = NULL;
	fw_arena_init(&ar, 1 << 20);
	ASSERT_OK(fw_cycle_run(f.s, NULL, &ar, &p));
	ASSERT_OK(fw_plan_check(f.s, p, &ar, &f.d));
	fw_arena_release(&ar);
	fake_free(&f);
}

/* The ways sbatch asks for GPUs, as slurmctld reports them (read from a
 * real 22.05 lab: TresPerNode, TresPerTask, TresPerJob, TresPerSocket),
 * become GPUs per node.  Until this was read, --gpus-per-task and a
 * multi-node --gpus made a GPU job look like a CPU job to fairway. */
TEST(every_gpu_request_form_is_gpus_per_node)
{
	struct fake f;
	char text[200];
	static const struct {
		const char *node, *task, *job, *socket;
		uint32_t nodes, tasks;
		uint16_t per_node;
		int gpus;
		const char *model;
	} c[] = {
		{ "gres:gpu:2", NULL, NULL, NULL, 1, 1, 0, 2, "" },          /* --gres=gpu:2 */
		{ "gres:gpu:h100:8", NULL, NULL, NULL, 2, 2, 0, 8, "h100" }, /* -N 2 --gres=gpu:h100:8 */
		{ NULL, "gres:gpu:1", NULL, NULL, 2, 8, 4, 4, "" },          /* -N 2 --ntasks-per-node=4 --gpus-per-task=1 */
		{ NULL, "gres:gpu:2", NULL, NULL, 1, 3, 0, 6, "" },          /* -n 3 --gpus-per-task=2 */
		{ NULL, "gres:gpu:h100:1", NULL, NULL, 2, 5, 0, 3, "h100" }, /* -N 2 -n 5: 3 tasks on a node at most */
		{ NULL, NULL, "gres:gpu:12", NULL, 2, 2, 0, 6, "" },         /* -N 2 --gpus=12 */
		{ NULL, NULL, "gres:gpu:3", NULL, 2, 2, 0, 2, "" },          /* -N 2 --gpus=3: rounded up */
		{ NULL, NULL, "gres:gpu:3", NULL, 1, 1, 0, 3, "" },          /* --gpus=3 */
		{ NULL, NULL, NULL, NULL, 1, 1, 0, 0, "" },                  /* no GPUs */
		{ NULL, NULL, NULL, "gres:gpu:1", 1, 1, 0, -1, "" },         /* --gpus-per-socket=1: held */
	};
	int n = (int)(sizeof c / sizeof c[0]);

	fake_init(&f, 1, n);
	for (int i = 0; i < n; i++) {
		slurm_job_info_t *j = &f.jobs.job_array[i];
		fake_pending(j, 500 + (uint32_t)i, 4, NULL);
		j->tres_per_node = (char *)c[i].node;
		j->tres_per_task = (char *)c[i].task;
		j->tres_per_job = (char *)c[i].job;
		j->tres_per_socket = (char *)c[i].socket;
		j->num_nodes = c[i].nodes;
		j->num_tasks = c[i].tasks;
		j->ntasks_per_node = c[i].per_node;
	}
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, n - 1);
	for (int i = 0; i < n - 1; i++) {
		if (f.s->jobs[i].groups[0].gpus != c[i].gpus)
			fprintf(stderr, "  case %d: %d GPUs per node, want %d\n", i, f.s->jobs[i].groups[0].gpus, c[i].gpus);
		ASSERT_EQ(f.s->jobs[i].groups[0].gpus, c[i].gpus);
		ASSERT_EQ(f.s->jobs[i].groups[0].count, (int32_t)c[i].nodes);
		ASSERT_STR_EQ(f.s->jobs[i].groups[0].gpu_model, c[i].model);
		ASSERT(f.s->jobs[i].groups[0].one_per_node); /* Slurm: a task is a node */
	}
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_GPU_FORM);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[n - 1], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: reads GPUs per node, per task or per job, not --gpus-per-socket: "
			    "held (ask --gpus-per-node)");
	fake_free(&f);
}

/* Jobs Slurm would not run yet (--dependency, --begin) or on no node
 * fairway may choose (--constraint no node meets, --exclude of every
 * node): released, each sat on the nodes fairway chose, booked there,
 * until its dependency or begin time, or for ever on a node it excludes
 * (seen in a real lab).  Now a released job whose dependency is unmet is
 * not booked, and the others stay held, commented; the waiting ones are
 * not counted skipped. */
TEST(jobs_slurm_would_not_run_stay_held)
{
	struct fake f;
	char text[200];
	static const char *want[] = {
		"fairway: released; Slurm starts it once its dependency (afterok:7(unfulfilled)) is met",
		"fairway: waits for its begin time (1970-01-01T01:00Z): held until then",
		"fairway: no node of partition gpu has the features (ib&nvme): held",
		"fairway: --exclude (gpu001) leaves no node of partition gpu: held",
	};

	fake_init(&f, 1, 7);
	for (uint32_t i = 0; i < 7; i++) {
		fake_pending(&f.jobs.job_array[i], 600 + i, 4, NULL);
	}
	f.jobs.job_array[0].dependency = (char *)"afterok:7(unfulfilled)"; /* released by fairway */
	f.jobs.job_array[0].priority = 5;
	f.jobs.job_array[0].req_nodes = (char *)"gpu001";
	f.jobs.job_array[6].dependency = (char *)"afterok:7(unfulfilled)"; /* held: Slurm does not
								      * evaluate it, so fairway
								      * plans it like any other */
	f.jobs.job_array[1].eligible_time = 3600; /* --begin (now is 1000) */
	f.jobs.job_array[2].features = (char *)"ib&nvme";
	f.jobs.job_array[3].exc_nodes = (char *)"gpu001";
	f.jobs.job_array[4].dependency = (char *)"(null)"; /* as Slurm says "none" */
	f.jobs.job_array[5].eligible_time = 900;       /* passed */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 3);
	ASSERT_STR_EQ(f.s->jobs[0].name, "604");
	ASSERT_STR_EQ(f.s->jobs[1].name, "605");
	ASSERT_STR_EQ(f.s->jobs[2].name, "606");
	ASSERT_EQ(f.s->jobs[2].state, FW_JOB_PENDING);
	ASSERT_EQ(f.h->norphans, 4);
	ASSERT_EQ(f.w.skipped_jobs, 2); /* no node for 602 and 603: the others only wait */
	for (int k = 0; k < 4; k++) {
		ASSERT_EQ(f.h->orphans[k].job, 600u + (uint32_t)k);
		fw__orphan_text(&f.h->orphans[k], &f.jobs.job_array[k], text, sizeof text);
		ASSERT_STR_EQ(text, want[k]);
	}
	/* a begin time between minutes is written rounded up, as every
	 * comment's time: never a minute already past (QA saw 04:19Z for
	 * 04:19:53) */
	f.jobs.job_array[1].eligible_time = 3601;
	fw__orphan_text(&f.h->orphans[1], &f.jobs.job_array[1], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: waits for its begin time (1970-01-01T01:01Z): held until then");
	fake_free(&f);
}

/* --constraint as Slurm reads it: feature names, & and | of equal
 * standing read left to right (a 22.05 lab refuses "a|b&c" on a node of
 * feature a alone: (a|b)&c), one level of parentheses.  Every other form
 * is "not read" (-1): the job stays held rather than be placed where
 * Slurm would not run it. */
TEST(constraint_forms)
{
	static const struct {
		const char *expr, *features;
		int want;
	} c[] = {
		{ "ib", "ib", 1 },
		{ "ib", "ib,nvme", 1 },
		{ "ib", "ibx,xib", 0 },       /* whole names only */
		{ "ib", "", 0 },
		{ "ib", NULL, 0 },
		{ "rack=r1", "ib,rack=r1", 1 },
		{ "ib&nvme", "ib", 0 },
		{ "ib&nvme", "nvme,ib", 1 },
		{ "ib|nvme", "nvme", 1 },
		{ "a|b&c", "a", 0 },          /* (a|b)&c, as Slurm */
		{ "a|b&c", "b,c", 1 },
		{ "b&c|a", "a", 1 },          /* (b&c)|a */
		{ "a|(b&c)", "a", 1 },
		{ "(a|b)&c", "a", 0 },
		{ "(a|b)&c", "a,c", 1 },
		{ "a&(b|c)|a", "a", 1 },
		{ "(a&b|c)", "c", 1 },
		{ "[a|b]", "a", -1 },         /* matching OR */
		{ "a*2", "a", -1 },           /* node count */
		{ "[a*2&b*1]", "a", -1 },
		{ "!a", "b", -1 },
		{ "a,b", "a,b", -1 },
		{ "((a))", "a", -1 },         /* Slurm refuses nested parentheses */
		{ "a b", "a", -1 },
		{ "a|", "a", -1 },
		{ "&a", "a", -1 },
		{ "(a", "a", -1 },
		{ "a)", "a", -1 },
		{ "()", "a", -1 },
		{ "", "a", -1 },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		int got = fw__constraint_match(c[i].expr, c[i].features);
		if (got != c[i].want)
			fprintf(stderr, "  '%s' on '%s': %d, want %d\n", c[i].expr, c[i].features ? c[i].features : "NULL",
				got, c[i].want);
		ASSERT_EQ(got, c[i].want);
	}
}

/* The snapshot nodes job jx may start on, as names "gpu001,gpu002"; "*"
 * when it has no filter. */
static const char *filter_of(const struct fw_snapshot *s, int32_t jx, char *buf, size_t len)
{
	const int32_t *v;
	size_t at = 0;

	snprintf(buf, len, "%s", fw_snapshot_job_nodes(s, jx, &v) < 0 ? "*" : "");
	for (int32_t n = 0; buf[0] != '*' && n < s->nnodes && at < len; n++) /* allowed, either kind */
		if (fw_snapshot_job_may_use(s, jx, n))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", s->nodes[n].name);
	return buf;
}

/* A fake world of 4 nodes and nj jobs with two managed partitions: gpu
 * of every node, gpu2 of gpu003 and gpu004 (their records live in f). */
static void fake_two_partitions(struct fake *f, int nj)
{
	fake_init(f, 4, nj);
	snprintf(f->h->parts, sizeof f->h->parts, "gpu,gpu2");
	f->inx2[0] = 2;
	f->inx2[1] = 3;
	f->inx2[2] = -1;
	f->parts2[0] = f->part;                       /* gpu: every node */
	memset(&f->parts2[1], 0, sizeof f->parts2[1]);
	f->parts2[1].name = (char *)"gpu2";           /* gpu2: gpu003, gpu004 */
	f->parts2[1].node_inx = f->inx2;
	f->parts2[1].state_up = PARTITION_UP;
	f->parts.partition_array = f->parts2;
	f->parts.record_count = 2;
}

/* Job i of f: a pending 1-GPU job of `nodes` nodes in partition part,
 * with AdminComment adm (the -w tests' table rows). */
static slurm_job_info_t *table_job(struct fake *f, int i, uint32_t id, uint32_t nodes, const char *part,
				   const char *adm)
{
	slurm_job_info_t *j = &f->jobs.job_array[i];

	fake_pending(j, id, 4, "gres:gpu:1");
	j->num_nodes = nodes;
	j->partition = (char *)part;
	j->admin_comment = (char *)adm;
	return j;
}

/* A cycle on f's snapshot, checked, as the adapter's actions (in ar,
 * which the caller releases): their count. */
static int32_t plan_actions(struct fake *f, struct fw_arena *ar, struct fw_backend_action **acts)
{
	struct fw_slurm_note *notes;
	struct fw_plan *p = NULL;
	int32_t na = 0, nn;

	fw_arena_init(ar, 1 << 20);
	ASSERT_OK(fw_cycle_run(f->s, NULL, ar, &p));
	ASSERT_OK(fw_plan_check(f->s, p, ar, &f->d));
	ASSERT_OK(fw_slurm_plan_actions(f->s, p, ar, acts, &na, &notes, &nn));
	return na;
}

/* Slurm job i (id) after the build: want is its held comment ("fairway:
 * ..."; *held counts the orphans checked) or its node filter, the
 * snapshot job *x (then advanced). */
static void answer_is(struct fake *f, int i, uint32_t id, const char *want, int32_t *held, int32_t *x)
{
	char buf[240];

	if (!strncmp(want, "fairway:", 8)) {
		ASSERT(*held < f->h->norphans);
		ASSERT_EQ(f->h->orphans[*held].job, id);
		fw__orphan_text(&f->h->orphans[(*held)++], &f->jobs.job_array[i], buf, sizeof buf);
		ASSERT_STR_EQ(buf, want);
		return;
	}
	ASSERT(*x < f->s->njobs);
	ASSERT_EQ((uint32_t)atoi(f->s->jobs[*x].name), id);
	ASSERT_STR_EQ(filter_of(f->s, *x, buf, sizeof buf), want);
	(*x)++;
}

/* Until the core had node filters, a held job asking --constraint or
 * --exclude stayed held for good, and a job of one managed partition
 * could be placed on a node of another (seen with partitions=gpu:gpu2).
 * Now each pending job may start only on the nodes of its own managed
 * partitions, not excluded, whose features (ActiveFeatures, else
 * AvailableFeatures) meet its constraint; a constraint form fairway does
 * not read, or no node left, keeps it held with a comment that says why
 * (counted skipped).  A job asking none of these has no filter, and
 * neither has one of a partition of every node.  Jobs that ask alike
 * share one node list in the snapshot, also when others come between,
 * and when the first of them was held for another reason.  The cycle
 * starts each job only on its nodes: with 1-GPU jobs on empty 8-GPU
 * nodes, the bin-packer would put them all on one node otherwise. */
TEST(pending_jobs_start_only_on_nodes_they_accept)
{
	static const struct {
		uint32_t id;
		const char *part, *exc, *cons, *want; /* want: nodes, "*", or the held comment */
	} c[] = {
		{ 801, "gpu", NULL, NULL, "*" },
		{ 802, "gpu", "gpu001,gpu999", NULL, "gpu002,gpu003,gpu004" }, /* gpu999: no such node */
		{ 803, "gpu", "gpu001,gpu999", NULL, "gpu002,gpu003,gpu004" }, /* as the job before */
		{ 804, "gpu", "gpu[001-002]", NULL, "gpu003,gpu004" },
		{ 805, "gpu", NULL, "ib", "gpu001,gpu002" },  /* gpu003: ib only available */
		{ 806, "gpu", NULL, "nvme&ib", "gpu002" },
		{ 807, "gpu", NULL, "ib|nvme", "gpu001,gpu002,gpu003" },
		{ 808, "gpu", NULL, "ib|nvme&rack=r2", "gpu002,gpu003" }, /* (ib|nvme)&rack=r2 */
		{ 809, "gpu", "gpu002", "(ib|nvme)&rack=r2", "gpu003" },
		{ 810, "gpu", NULL, "[ib|nvme]",
		  "fairway: reads --constraint as features joined by &, | and ( ), not ([ib|nvme]): held "
		  "(ask without [ ], counts *N, ! or commas)" },
		{ 811, "gpu", "gpu[001-002]", "ib",
		  "fairway: no node of partition gpu has the features (ib) and is not excluded (gpu[001-002]): held" },
		{ 812, "gpu2", NULL, NULL, "gpu003,gpu004" },
		{ 813, "cpu,gpu2", NULL, NULL, "gpu003,gpu004" }, /* managed: one of them is */
		{ 814, "gpu2,gpu", NULL, NULL, "*" },
		{ 815, "gpu2", NULL, "ib", "fairway: no node of partition gpu2 has the features (ib): held" },
		{ 816, "gpu2", "gpu[003-004]", NULL, "fairway: --exclude (gpu[003-004]) leaves no node of partition gpu2: held" },
		{ 817, "gpu", "(null)", "(null)", "*" },      /* as Slurm says "none" */
		{ 818, "gpu", "gpu001,gpu999", NULL, "gpu002,gpu003,gpu004" }, /* as 802 */
		{ 819, "gpu", "gpu004", NULL,
		  "fairway: asks 32 GPUs per node, and fairway places at most 16 on a node: held (ask for fewer per "
		  "node, on more nodes)" },                 /* 32 GPUs a node (below) */
		{ 820, "gpu", NULL, "nvme", "gpu002,gpu003" },
		{ 821, "gpu", "gpu004", NULL, "gpu001,gpu002,gpu003" }, /* as 819, held */
	};
	enum { NJ = sizeof c / sizeof c[0] };
	struct fw_backend_action *acts;
	int32_t na, starts = 0, held = 0, x = 0;
	struct fw_arena ar;
	struct fake f;
	char buf[200];

	fake_two_partitions(&f, NJ);
	f.nodes.node_array[0].features = (char *)"ib,rack=r1";
	f.nodes.node_array[1].features = (char *)"ib,nvme,rack=r2";
	f.nodes.node_array[2].features = (char *)"ib,nvme,rack=r2"; /* available ... */
	f.nodes.node_array[2].features_act = (char *)"nvme,rack=r2"; /* ... active: what counts */
	for (int i = 0; i < NJ; i++) {
		slurm_job_info_t *j = &f.jobs.job_array[i];
		fake_pending(j, c[i].id, 4, c[i].id == 819 ? "gres:gpu:32" : "gres:gpu:1");
		j->partition = (char *)c[i].part;
		j->exc_nodes = (char *)c[i].exc;
		j->features = (char *)c[i].cons;
	}
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	if (fw_snapshot_validate(f.s, &f.d) != FW_OK)
		fprintf(stderr, "  %s: %s\n", f.d.field, f.d.msg);
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	for (int i = 0; i < NJ; i++)
		answer_is(&f, i, c[i].id, c[i].want, &held, &x);
	ASSERT_EQ(f.h->norphans, held);
	ASSERT_EQ(f.s->njobs, NJ - held);
	ASSERT_EQ(f.w.skipped_jobs, held);
	/* 802, 803 and 818 (snapshot jobs 1, 2, 13) share a list: of the one
	 * node they leave out (fewer than the three they may use) */
	const int32_t *l1, *l2, *l13;
	ASSERT_EQ(fw_snapshot_job_nodes(f.s, 1, &l1), 1);
	ASSERT_EQ(fw_snapshot_job_nodes(f.s, 2, &l2), 1);
	ASSERT_EQ(fw_snapshot_job_nodes(f.s, 13, &l13), 1);
	ASSERT(l1 == l2 && l1 == l13);
	ASSERT_EQ(f.s->job_nodes[fw_snapshot_job_nodes_entry(f.s, 1)].except, 1);
	ASSERT_EQ(f.s->job_nodes[fw_snapshot_job_nodes_entry(f.s, 3)].except, 0); /* 804: 2 of 4, listed */

	/* the cycle: every start on a node its job accepts */
	na = plan_actions(&f, &ar, &acts);
	for (int32_t i = 0; i < na; i++) {
		int32_t jx = 0;
		if (acts[i].kind != FW_DECIDE_START)
			continue;
		while (jx < f.s->njobs && strcmp(f.s->jobs[jx].name, acts[i].job))
			jx++;
		starts++;
		ASSERT(jx < f.s->njobs);
		ASSERT_EQ(acts[i].nplacements, 1);
		filter_of(f.s, jx, buf, sizeof buf);
		if (strcmp(buf, "*") && !strstr(buf, acts[i].placements[0].node))
			fprintf(stderr, "  job %s started on %s, not one of %s\n", acts[i].job,
				acts[i].placements[0].node, buf);
		ASSERT(!strcmp(buf, "*") || strstr(buf, acts[i].placements[0].node));
	}
	ASSERT_EQ(starts, f.s->njobs); /* 16 GPUs on 32 free: each starts */
	fw_arena_release(&ar);
	fake_free(&f);
}

/* -w (job_submit.lua keeps it in AdminComment, "fairway: -w LIST"): a
 * job starts on exactly the nodes listed, each of which must qualify
 * (its partitions, --exclude, --constraint) and be fairway's, and only
 * when it asks as many nodes as the list names; else it stays held,
 * saying why.  An AdminComment without the mark is no -w.  Then a cycle:
 * the -w gangs take their listed nodes, every one of them. */
/* A managed partition that starts no job (DOWN: jobs taken, none
 * started; INACTIVE; gone, deleted since fairway started) gives its held
 * jobs none of its nodes: a job of it alone stays held, commented why,
 * and waits (not counted skipped); a job of it and of an UP one may use
 * the UP one's nodes.  DRAIN still starts its pending jobs.  Before,
 * fairway released jobs into a DOWN partition, where Slurm held them
 * back, and did so again each cycle. */
TEST(a_partition_that_starts_no_job_gets_no_job)
{
	struct fake f;
	char text[200];

	fake_two_partitions(&f, 3);
	fake_pending(&f.jobs.job_array[0], 901, 4, "gres:gpu:1");
	f.jobs.job_array[0].partition = (char *)"gpu2";
	fake_pending(&f.jobs.job_array[1], 902, 4, "gres:gpu:1");
	f.jobs.job_array[1].partition = (char *)"gpu,gpu2";
	fake_pending(&f.jobs.job_array[2], 903, 4, "gres:gpu:1");
	f.parts2[1].state_up = PARTITION_DOWN;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 901u);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_PART_DOWN);
	ASSERT_EQ(f.h->orphans[0].n, FW__PART_DOWN);
	ASSERT_EQ(f.w.skipped_jobs, 0); /* it waits for the partition */
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: partition gpu2 is DOWN in Slurm, which starts none of its jobs: held until it is UP");
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[0].name, "902");
	for (int32_t k = 0; k < 4; k++) /* gpu's nodes: every one */
		ASSERT(fw_snapshot_job_may_use(f.s, 0, k));

	/* gpu INACTIVE, gpu2 UP: 903 held; 901 and 902 on gpu2's nodes only */
	f.parts2[0].state_up = PARTITION_INACTIVE;
	f.parts2[1].state_up = PARTITION_UP;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 903u);
	ASSERT_EQ(f.h->orphans[0].n, FW__PART_INACTIVE);
	ASSERT_EQ(f.s->njobs, 2);
	for (int32_t x = 0; x < 2; x++)
		for (int32_t k = 0; k < 4; k++)
			ASSERT_EQ(fw_snapshot_job_may_use(f.s, x, k), k >= 2);

	/* DRAIN starts its pending jobs: 903 planned */
	f.parts2[0].state_up = PARTITION_DRAIN;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.h->norphans, 0);
	ASSERT_EQ(f.s->njobs, 3);

	/* gpu2 deleted: 901 held, told so; 902 takes gpu's nodes */
	f.parts.record_count = 1;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 901u);
	ASSERT_EQ(f.h->orphans[0].n, FW__PART_GONE);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: partition gpu2 is gone from Slurm: held until it is back (scontrol update jobid=901 "
			    "partition=NAME moves it)");
	ASSERT_EQ(f.s->njobs, 2);
	fake_free(&f);
}

/* The held comment of f's first orphan (fw__orphan_text), after a build
 * that leaves exactly one, job id's. */
static void part_held_text(struct fake *f, uint32_t id, char *text, size_t n)
{
	fake_renew(f);
	text[0] = '\0';
	ASSERT_OK(fw__slurm_build(f->h, f->s, &f->w, &f->d));
	ASSERT_OK(fw_snapshot_validate(f->s, &f->d));
	ASSERT_EQ(f->h->norphans, 1);
	ASSERT_EQ(f->h->orphans[0].job, id);
	ASSERT_EQ(f->h->orphans[0].why, FW__ORPHAN_PART_DOWN);
	fw__orphan_text(&f->h->orphans[0], &f->jobs.job_array[0], text, n);
}

/* A job submitted to several partitions (sbatch -p gpu,cpu) is held by
 * the managed ones alone: its comment names the managed partition whose
 * state holds it, not Slurm's whole list ("partition gpu,cpu is DOWN"
 * before), wherever it stands in the list; of several managed ones, each
 * with its own state; a list too long for the words is cut at a whole
 * partition, saying how many more. */
TEST(a_job_of_several_partitions_names_the_managed_one_that_holds_it)
{
	struct fake f;
	char text[240], buf[30];

	fake_two_partitions(&f, 1);
	snprintf(f.h->parts, sizeof f.h->parts, "gpu"); /* gpu2 is Slurm's, not fairway's */
	fake_pending(&f.jobs.job_array[0], 911, 4, "gres:gpu:1");
	f.jobs.job_array[0].partition = (char *)"gpu,gpu2";
	f.parts2[0].state_up = PARTITION_DOWN;
	part_held_text(&f, 911, text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: partition gpu is DOWN in Slurm, which starts none of its jobs: held until it is UP");
	f.jobs.job_array[0].partition = (char *)"gpu2,gpu"; /* the managed one second */
	f.parts2[0].state_up = PARTITION_INACTIVE;
	part_held_text(&f, 911, text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: partition gpu is INACTIVE in Slurm, which starts none of its jobs: held until it "
			    "is UP");

	/* both managed, neither starting jobs: each named with its state */
	snprintf(f.h->parts, sizeof f.h->parts, "gpu,gpu2");
	f.parts2[0].state_up = PARTITION_DOWN;
	f.parts2[1].state_up = PARTITION_INACTIVE;
	part_held_text(&f, 911, text, sizeof text);
	ASSERT_EQ(f.h->orphans[0].m, 2);
	ASSERT_STR_EQ(text, "fairway: none of its partitions starts jobs in Slurm (gpu2 INACTIVE, gpu DOWN): held until "
			    "one is UP");
	f.parts.record_count = 1; /* gpu2 deleted since fairway started */
	part_held_text(&f, 911, text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: none of its partitions starts jobs in Slurm (gpu2 gone, gpu DOWN): held until one "
			    "is UP");

	/* cut at a whole partition: the count of the rest */
	ASSERT_EQ(fw__slurm_parts_held(f.h, "gpu,gpu2", buf, sizeof buf), 2);
	ASSERT_STR_EQ(buf, "gpu DOWN, and 1 more");
	ASSERT_EQ(fw__slurm_parts_held(f.h, "cpu,gpu", buf, sizeof buf), 1);
	ASSERT_STR_EQ(buf, "gpu");
	fake_free(&f);
}

/* fw_slurm_warn's lines for f (prefix "fw"), into buf: how many. */
static int warned(struct fake *f, char *buf, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);
	int lines;

	if (!out)
		return -1;
	lines = fw_slurm_warn(f->h, out, "fw");
	fclose(out);
	snprintf(buf, len, "%s", text ? text : "");
	free(text);
	return lines;
}

/* What Slurm's setup does not give fairway is said once per change, by
 * either driver (the same function): a managed partition DOWN, INACTIVE
 * or gone, and UP again; job_submit.lua and partitions= disagreeing, the
 * fix naming the driver's own flag.  Before, `fairway serve --backend
 * slurm` said none of it, and nobody said a partition went away. */
TEST(setup_warnings_are_said_once_per_change)
{
	struct fake f;
	char buf[2048];

	fake_two_partitions(&f, 0);
	ASSERT_EQ(warned(&f, buf, sizeof buf), 0);
	ASSERT_STR_EQ(buf, "");
	f.parts2[1].state_up = PARTITION_DOWN;
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_EQ(buf, "fw: warning: partition gpu2 is DOWN in Slurm (scontrol show partition gpu2), which starts "
			   "none of its jobs: fairway plans none of them until it is UP (scontrol update "
			   "PartitionName=gpu2 State=UP); its running jobs go on\n");
	ASSERT_EQ(warned(&f, buf, sizeof buf), 0); /* once */
	f.parts2[1].state_up = PARTITION_INACTIVE;
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_CONTAINS(buf, "partition gpu2 is INACTIVE in Slurm");
	f.parts2[1].state_up = PARTITION_UP;
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_EQ(buf, "fw: partition gpu2 is UP again in Slurm: fairway plans its jobs again\n");
	f.parts.record_count = 1; /* scontrol delete PartitionName=gpu2 */
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_CONTAINS(buf, "fw: warning: partition gpu2 is gone from Slurm (deleted: sinfo -s lists it no more): "
				 "fairway manages none of its nodes and plans none of its jobs until it is back");
	ASSERT_EQ(warned(&f, buf, sizeof buf), 0);
	f.parts.record_count = 2;
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_EQ(buf, "fw: partition gpu2 is back, and UP, in Slurm: fairway plans its jobs again\n");

	/* job_submit.lua: the first job of each kind, once per change */
	f.h->o.flag = "--opt";
	f.h->st.unheld = 2;
	f.h->st.unheld_job = 77;
	snprintf(f.h->st.unheld_part, sizeof f.h->st.unheld_part, "gpu2");
	f.h->st.stray = 1;
	f.h->st.stray_job = 78;
	snprintf(f.h->st.stray_part, sizeof f.h->st.stray_part, "cpu");
	ASSERT_EQ(warned(&f, buf, sizeof buf), 2);
	ASSERT_STR_CONTAINS(buf, "fw: warning: 2 pending jobs of the managed partitions arrived not held (job 77 of "
				 "partition gpu2: ");
	ASSERT_STR_CONTAINS(buf, "with gpu2 in its MANAGED table");
	ASSERT_STR_CONTAINS(buf, "fw: warning: 1 job held by job_submit.lua in a partition fairway does not manage (job "
				 "78 of partition cpu: ");
	ASSERT_STR_CONTAINS(buf, "add it (--opt partitions=...:cpu)");
	ASSERT_EQ(warned(&f, buf, sizeof buf), 0);
	f.h->st.unheld_job = 79; /* another first job */
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_CONTAINS(buf, "(job 79 of partition gpu2: ");
	f.h->st.unheld = f.h->st.stray = 0; /* none, then one again */
	ASSERT_EQ(warned(&f, buf, sizeof buf), 0);
	f.h->st.stray = 1;
	f.h->o.flag = NULL; /* the daemon's */
	ASSERT_EQ(warned(&f, buf, sizeof buf), 1);
	ASSERT_STR_CONTAINS(buf, "add it (--backend-opt partitions=...:cpu)");
	fake_free(&f);
}

TEST(nodelist_jobs_start_on_exactly_their_nodes)
{
	static const struct {
		uint32_t id, nodes;
		const char *part, *exc, *cons, *adm, *want; /* want: nodes, "*", or the held comment */
	} c[] = {
		{ 901, 1, "gpu", NULL, NULL, "fairway: -w gpu003", "gpu003" },
		{ 902, 1, "gpu", NULL, NULL, "fairway: -w gpu003", "gpu003" }, /* shares 901's list */
		{ 903, 2, "gpu", NULL, NULL, "fairway: -w gpu[001-002]", "gpu001,gpu002" },
		{ 904, 2, "gpu", NULL, "nvme", "fairway: -w gpu[002-003]", "gpu002,gpu003" },
		{ 905, 2, "gpu", NULL, NULL, "fairway: -w gpu001",
		  "fairway: asks 2 nodes and -w names 1 (gpu001); fairway starts a -w job on exactly the nodes it "
		  "names: held (name them all, or ask -N 1)" },
		{ 906, 1, "gpu2", NULL, NULL, "fairway: -w gpu001",
		  "fairway: its -w (gpu001) names a node that partition gpu2, --exclude or --constraint rule out, "
		  "or that fairway does not schedule: held (change it with scontrol update nodelist=)" },
		{ 907, 2, "gpu", "gpu003", NULL, "fairway: -w gpu[003-004]",
		  "fairway: its -w (gpu[003-004]) names a node that partition gpu, --exclude or --constraint rule "
		  "out, or that fairway does not schedule: held (change it with scontrol update nodelist=)" },
		{ 908, 1, "gpu", NULL, NULL, "fairway: -w gpu999",
		  "fairway: its -w (gpu999) names a node that partition gpu, --exclude or --constraint rule out, "
		  "or that fairway does not schedule: held (change it with scontrol update nodelist=)" },
		{ 909, 1, "gpu", NULL, NULL, "billing: project x", "*" },
		{ 911, 1, "gpu", NULL, NULL, "fairway: -w gpu[001-002]", /* Slurm would say 2 nodes */
		  "fairway: asks 1 node and -w names 2 (gpu[001-002]); fairway starts a -w job on exactly the nodes it "
		  "names: held (name them all, or ask -N 2)" },
		{ 910, 4, "gpu", NULL, NULL, "fairway: -w gpu[001-004]", "*" }, /* every node: no list needed */
	};
	enum { NJ = sizeof c / sizeof c[0] };
	struct fw_backend_action *acts;
	int32_t na, held = 0, x = 0, nodelist_starts = 0;
	struct fw_arena ar;
	struct fake f;
	char buf[240];

	fake_two_partitions(&f, NJ);
	f.nodes.node_array[1].features = (char *)"nvme";
	f.nodes.node_array[2].features = (char *)"nvme";
	for (int i = 0; i < NJ; i++) {
		slurm_job_info_t *j = table_job(&f, i, c[i].id, c[i].nodes, c[i].part, c[i].adm);
		j->exc_nodes = (char *)c[i].exc;
		j->features = (char *)c[i].cons;
	}
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	for (int i = 0; i < NJ; i++) {
		bool in = strncmp(c[i].want, "fairway:", 8) != 0;
		answer_is(&f, i, c[i].id, c[i].want, &held, &x);
		if (in) /* as many tasks as nodes listed */
			ASSERT_EQ(fw_job_tasks(&f.s->jobs[x - 1]), (int32_t)c[i].nodes);
	}
	ASSERT_EQ(f.h->norphans, held);
	ASSERT_EQ(f.w.skipped_jobs, held);
	ASSERT_EQ(fw_snapshot_job_nodes_entry(f.s, 0) >= 0 ? f.s->job_nodes[0].first : -1,
		  f.s->job_nodes[1].first); /* 901 and 902 */

	/* the cycle: a -w job that starts takes every node it lists */
	na = plan_actions(&f, &ar, &acts);
	for (int32_t i = 0; i < na; i++) {
		int32_t jx = 0;
		if (acts[i].kind != FW_DECIDE_START)
			continue;
		while (jx < f.s->njobs && strcmp(f.s->jobs[jx].name, acts[i].job))
			jx++;
		ASSERT(jx < f.s->njobs);
		filter_of(f.s, jx, buf, sizeof buf);
		if (!strcmp(buf, "*"))
			continue;
		int32_t listed = 1; /* the placements are the listed nodes, each once */
		for (const char *q = buf; *q; q++)
			listed += *q == ',';
		ASSERT_EQ(acts[i].nplacements, listed);
		for (int32_t k = 0; k < acts[i].nplacements; k++) {
			ASSERT(strstr(buf, acts[i].placements[k].node) != NULL);
			for (int32_t m = 0; m < k; m++)
				ASSERT(strcmp(acts[i].placements[m].node, acts[i].placements[k].node) != 0);
		}
		nodelist_starts++;
	}
	ASSERT(nodelist_starts >= 2); /* 901 or 902 on gpu003; 903 or 904 */
	fw_arena_release(&ar);
	fake_free(&f);
}

/* A -w changed later with scontrol update: job_submit.lua writes the
 * record "fairway: -w LIST" into the Comment (a user may not write
 * AdminComment) until the next update of the Comment moves it there.  The
 * Comment's record is the newer and wins; an empty list, in either field,
 * is a -w cleared (no filter); the rules (count, partitions) hold for the
 * list in force, which is also what the held comment names; jobs whose
 * AdminComments agree but whose Comments do not get their own answers.
 * Then a cycle starts each on its Comment's node. */
TEST(a_nodelist_changed_later_is_read_from_the_comment)
{
	static const struct {
		uint32_t id, nodes;
		const char *part, *adm, *com, *want; /* want: nodes, "*", or the held comment */
	} c[] = {
		{ 921, 1, "gpu", "fairway: -w gpu001", "fairway: -w gpu004", "gpu004" },
		{ 922, 1, "gpu", "fairway: -w gpu001", "fairway: waiting: x", "gpu001" }, /* no record there */
		{ 923, 1, "gpu", "fairway: -w gpu001", "fairway: -w ", "*" },            /* cleared */
		{ 924, 1, "gpu", "fairway: -w ", "fairway: waiting: x", "*" },          /* cleared, moved */
		{ 925, 1, "gpu", NULL, "fairway: -w gpu002", "gpu002" },
		{ 926, 1, "gpu2", "fairway: -w gpu003", "fairway: -w gpu001",
		  "fairway: its -w (gpu001) names a node that partition gpu2, --exclude or --constraint rule out, "
		  "or that fairway does not schedule: held (change it with scontrol update nodelist=)" },
		{ 927, 1, "gpu", "fairway: -w gpu001", "fairway: -w gpu[001-002]", /* Slurm keeps -N at update */
		  "fairway: asks 1 node and -w names 2 (gpu[001-002]); fairway starts a -w job on exactly the nodes it "
		  "names: held (name them all, or ask -N 2)" },
		{ 928, 1, "gpu", "fairway: -w gpu003", NULL, "gpu003" },
		{ 929, 1, "gpu", "fairway: -w gpu003", "fairway: -w gpu002", "gpu002" }, /* not 928's answer */
	};
	enum { NJ = sizeof c / sizeof c[0] };
	static const char *const started[][2] = { { "921", "gpu004" }, { "925", "gpu002" }, { "929", "gpu002" } };
	struct fw_backend_action *acts;
	int32_t na, held = 0, x = 0, seen = 0;
	struct fw_arena ar;
	struct fake f;

	fake_two_partitions(&f, NJ);
	for (int i = 0; i < NJ; i++)
		table_job(&f, i, c[i].id, c[i].nodes, c[i].part, c[i].adm)->comment = (char *)c[i].com;
	ASSERT(fw__slurm_nodelist_record(&f.jobs.job_array[0]) == f.jobs.job_array[0].comment);
	ASSERT(fw__slurm_nodelist_record(&f.jobs.job_array[1]) == f.jobs.job_array[1].admin_comment);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	for (int i = 0; i < NJ; i++)
		answer_is(&f, i, c[i].id, c[i].want, &held, &x);
	ASSERT_EQ(f.h->norphans, held);
	ASSERT_EQ(f.w.skipped_jobs, held);

	/* the cycle: each on the node its Comment names */
	na = plan_actions(&f, &ar, &acts);
	for (int32_t i = 0; i < na; i++)
		for (size_t k = 0; k < sizeof started / sizeof started[0]; k++) {
			if (acts[i].kind != FW_DECIDE_START || strcmp(acts[i].job, started[k][0]))
				continue;
			ASSERT_EQ(acts[i].nplacements, 1);
			ASSERT_STR_EQ(acts[i].placements[0].node, started[k][1]);
			seen++;
		}
	ASSERT_EQ(seen, 3);
	fw_arena_release(&ar);
	fake_free(&f);
}

/* fairway writes every held job's reason, and every waiting job's, into
 * its Comment: none may start with the -w mark, or fairway would read its
 * own text as the user's -w (and job_submit.lua keep it as one). */
TEST(no_comment_of_fairway_reads_as_a_nodelist)
{
	slurm_job_info_t j;
	struct fw_backend_note note = { .reason = FW_REASON_NO_RESOURCES, .expected_start = FW_TIME_UNKNOWN };
	size_t m = strlen(FW__NODELIST_MARK);
	char text[240];

	memset(&j, 0, sizeof j);
	fake_pending(&j, 931, 4, NULL);
	j.admin_comment = (char *)"fairway: -w gpu001";
	j.dependency = (char *)"afterok:1";
	for (int why = FW__ORPHAN_NO_QUEUE; why <= FW__ORPHAN_PART_DOWN; why++) {
		struct fw__orphan o = { .job = 931, .why = (enum fw__orphan_why)why, .n = 2 };
		fw__orphan_text(&o, &j, text, sizeof text);
		ASSERT_STR_CONTAINS(text, "fairway: ");
		ASSERT(strncmp(text, FW__NODELIST_MARK, m) != 0);
	}
	fw_slurm_note_text(&note, text, sizeof text);
	ASSERT(strncmp(text, FW__NODELIST_MARK, m) != 0);
	note.expected_start = 2000;
	fw_slurm_note_text(&note, text, sizeof text);
	ASSERT(strncmp(text, FW__NODELIST_MARK, m) != 0);
	free(j.gres_detail_str);
}

/* Nor is a note that does written: apply.c drops it before any RPC (a
 * job of the last read, pending, commented otherwise). */
TEST(a_note_that_reads_as_a_nodelist_is_not_written)
{
	struct fw_slurm_note note = { .job = "932", .text = "fairway: -w gpu001" };
	uint32_t jhash[1] = { 1 };
	struct fake f;

	fake_init(&f, 1, 1);
	fake_pending(&f.jobs.job_array[0], 932, 4, NULL);
	f.jobs.job_array[0].comment = (char *)"fairway: queued, not planned yet";
	f.h->jhash = jhash;
	f.h->jhash_cap = 1;
	f.h->o.comment_budget = 1;
	ASSERT_EQ(fw_slurm_annotate(f.h, &note, 1), 0);
	ASSERT_EQ(f.h->st.comments, 0);
	ASSERT_EQ(f.h->st.failed, 0);
	f.h->jhash = NULL;
	fake_free(&f);
}

/* The adapter keeps answers by what a job asked, in a cache of a few
 * hundred slots: 300 jobs each asking its own --exclude (a set of
 * gpu001-gpu003 and a name of no node) must collide there, and each must
 * still get its own nodes, never another's. */
TEST(every_job_gets_its_own_answer)
{
	enum { NJ = 300 };
	static char exc[NJ][48];
	struct fake f;
	char buf[200], want[64];

	fake_init(&f, 4, NJ);
	for (int i = 0; i < NJ; i++) {
		slurm_job_info_t *j = &f.jobs.job_array[i];
		int set = i % 7 + 1; /* which of gpu001-gpu003 it excludes */
		size_t at = 0;
		for (int k = 0; k < 3; k++)
			if (set & 1 << k)
				at += (size_t)snprintf(exc[i] + at, sizeof exc[i] - at, "gpu00%d,", k + 1);
		snprintf(exc[i] + at, sizeof exc[i] - at, "x%d", i);
		fake_pending(j, 900 + (uint32_t)i, 4, NULL);
		j->exc_nodes = exc[i];
	}
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, NJ);
	for (int i = 0; i < NJ; i++) {
		int set = i % 7 + 1;
		size_t at = 0;
		for (int k = 0; k < 4; k++)
			if (!(set & 1 << k))
				at += (size_t)snprintf(want + at, sizeof want - at, "%sgpu00%d", at ? "," : "", k + 1);
		ASSERT_STR_EQ(filter_of(f.s, i, buf, sizeof buf), want);
	}
	fake_free(&f);
}

/* --exclusive: Slurm gives the job its nodes whole (Slurm lists only the
 * GPUs it asked for).  Read as a job of fewer GPUs, fairway put other jobs
 * beside it, which Slurm would not run there.  On nodes of one size the
 * task is the whole node, running or waiting; on nodes of several sizes
 * a waiting one is held with a comment. */
TEST(an_exclusive_job_takes_whole_nodes)
{
	struct fake f;
	char text[200];

	fake_init(&f, 2, 2);
	fake_job(&f.jobs.job_array[0], 701, "gpu001", "gpu:h100:1(IDX:0)", 4);
	f.jobs.job_array[0].shared = JOB_SHARED_NONE;
	fake_pending(&f.jobs.job_array[1], 702, 4, "gres:gpu:1");
	f.jobs.job_array[1].shared = JOB_SHARED_NONE;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_EQ(f.s->allocs[f.s->jobs[0].alloc_first].gpu_mask, 0xffu); /* all 8, not IDX:0 */
	ASSERT_EQ(f.s->jobs[0].groups[0].gpus, 8);
	ASSERT_EQ(f.s->jobs[0].groups[0].cpu_milli, 64000);
	ASSERT_EQ(f.s->jobs[0].groups[0].mem_mib, 512000);
	ASSERT_EQ(f.s->jobs[1].groups[0].gpus, 8); /* --gres=gpu:1 --exclusive */
	ASSERT_EQ(f.s->jobs[1].groups[0].cpu_milli, 64000);
	ASSERT_EQ(f.s->jobs[1].groups[0].mem_mib, 512000);

	/* f.nodes of two sizes: the waiting one is held; the running one still
	 * takes its node whole */
	f.nodes.node_array[1].cpus = 32;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_EXCLUSIVE);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[1], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: --exclusive on nodes of several sizes: held (ask for a node's GPUs, "
			    "CPUs and memory instead)");
	fake_free(&f);
}

/* ------------------------------------------------------------ job arrays */

/* Task lists as slurmctld's job records give them: ranges, steps, the
 * "%N" throttle after them. */
TEST(array_task_lists)
{
	uint32_t ids[4];

	ASSERT_EQ(fw__array_tasks("0-5", ids, 4), 6);
	ASSERT_EQ(ids[0], 0);
	ASSERT_EQ(ids[3], 3);
	ASSERT_EQ(fw__array_tasks("2,4-5%2", ids, 4), 3);
	ASSERT_EQ(ids[0], 2);
	ASSERT_EQ(ids[1], 4);
	ASSERT_EQ(ids[2], 5);
	ASSERT_EQ(fw__array_tasks("0-998:2", ids, 4), 500);
	ASSERT_EQ(ids[3], 6);
	ASSERT_EQ(fw__array_tasks("0-4294967293", ids, 4), INT32_MAX); /* counted, capped */
	ASSERT_EQ(fw__array_tasks("%2", ids, 4), 0);
	ASSERT_EQ(fw__array_tasks("(null)", ids, 4), 0);
	ASSERT_EQ(fw__array_tasks(NULL, ids, 4), 0);
	/* libslurm's cut list: the id before "..." may be cut short (5678) */
	ASSERT_EQ(fw__array_tasks("3,9,1234,56...", ids, 4), 3);
	ASSERT_EQ(ids[2], 1234);
	ASSERT(!fw__array_lists("3,9,1234,56...", 56));
	ASSERT_EQ(fw__array_tasks("7-9junk", ids, 4), 0);
	ASSERT(fw__array_lists("0-998:2", 996));
	ASSERT(!fw__array_lists("0-998:2", 997));
	ASSERT(fw__array_lists("2,4-5%2", 5));
	ASSERT(!fw__array_lists("2,4-5%2", 3));
}

/* Job i of f: array 900's pending record listing tasks (throttle max, 0
 * for none), each task 4 GPUs. */
static slurm_job_info_t *array_meta(struct fake *f, int i, const char *tasks, uint32_t max)
{
	slurm_job_info_t *j = &f->jobs.job_array[i];

	fake_pending(j, 900, 4, "gres:gpu:4");
	j->array_job_id = 900;
	j->array_task_id = NO_VAL;
	j->array_task_str = (char *)tasks;
	j->array_max_tasks = max;
	return j;
}

/* Job i of f: task t of array 900 running on node with GPUs gres, a
 * record of its own (job id id). */
static void array_task(struct fake *f, int i, uint32_t id, uint32_t t, const char *node, const char *gres)
{
	slurm_job_info_t *j = &f->jobs.job_array[i];

	fake_job(j, id, node, gres, 4);
	j->tres_per_node = (char *)"gres:gpu:4";
	j->array_job_id = 900;
	j->array_task_id = t;
}

/* f: 2 nodes x 8 GPUs whose one job is array 900's pending record
 * listing tasks (throttle max), built into a valid snapshot. */
static void built_array(struct fake *f, const char *tasks, uint32_t max)
{
	fake_init(f, 2, 1);
	array_meta(f, 0, tasks, max);
	ASSERT_OK(fw__slurm_build(f->h, f->s, &f->w, &f->d));
	ASSERT_OK(fw_snapshot_validate(f->s, &f->d));
}

/* Before, an array's pending tasks were one job to fairway: it released
 * the whole record on one task's nodes, and Slurm ran as many tasks as
 * fit there, on GPUs fairway had planned for others.  Now each pending
 * task is a job of its own, "A_T", and a cycle starts exactly the tasks
 * that fit: 6 tasks of 4 GPUs on 2 nodes of 8, 4 start, 2 a node. */
TEST(an_arrays_pending_tasks_are_planned_one_by_one)
{
	struct fw_backend_action *acts;
	int32_t na, starts = 0, on1 = 0;
	struct fw_arena ar;
	struct fake f;
	char want[16];

	built_array(&f, "0-5", 0);
	ASSERT_EQ(f.s->njobs, 6);
	for (int k = 0; k < 6; k++) {
		snprintf(want, sizeof want, "900_%d", k);
		ASSERT_STR_EQ(f.s->jobs[k].name, want);
		ASSERT_EQ(f.s->jobs[k].state, FW_JOB_PENDING);
		ASSERT_EQ(f.s->jobs[k].groups[0].gpus, 4);
	}
	na = plan_actions(&f, &ar, &acts);
	for (int32_t k = 0; k < na; k++) {
		uint32_t task;
		if (acts[k].kind != FW_DECIDE_START)
			continue;
		starts++;
		ASSERT_EQ(acts[k].nplacements, 1);
		on1 += !strcmp(acts[k].placements[0].node, "gpu001");
		ASSERT(fw__slurm_job_named(f.h, acts[k].job, &task) == &f.jobs.job_array[0]);
		ASSERT_EQ(task, (uint32_t)atoi(acts[k].job + 4)); /* split off by "900_T" */
	}
	ASSERT_EQ(starts, 4);
	ASSERT_EQ(on1, 2);
	fw_arena_release(&ar);
	fake_free(&f);
}

/* "%2": Slurm runs 2 tasks at a time; fairway offers no more (a third
 * released would wait on its nodes, booked and idle). */
TEST(an_arrays_throttle_bounds_the_tasks_offered)
{
	struct fake f;

	built_array(&f, "0-5%2", 2);
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[1].name, "900_1");
	fake_free(&f);
}

/* A task list fairway does not read stays held, saying so (counted
 * skipped), and one that names a task twice ("0-2,1", which Slurm does
 * not send) offers it once. */
TEST(an_array_list_fairway_cannot_read_is_held_saying_so)
{
	struct fake f;
	char buf[240];

	built_array(&f, "x-y", 0);
	ASSERT_EQ(f.s->njobs, 0);
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.w.skipped_jobs, 1);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: reads an array's pending tasks as a list of N, N-M and N-M:S, not (x-y): held "
			   "(resubmit the tasks left as a new array)");
	fake_free(&f);

	built_array(&f, "0-2,1", 0);
	ASSERT_EQ(f.s->njobs, 3);
	ASSERT_STR_EQ(f.s->jobs[2].name, "900_2");
	fake_free(&f);
}

/* Tasks started already are records of their own (new job ids), named
 * "A_T" too; the pending record lists the rest, which are offered (and
 * no more than the throttle leaves). */
TEST(a_partly_started_array_offers_the_rest)
{
	uint32_t task;
	struct fake f;

	fake_init(&f, 2, 3);
	array_task(&f, 0, 901, 0, "gpu001", "gpu:h100:4(IDX:0-3)");
	array_task(&f, 1, 902, 1, "gpu001", "gpu:h100:4(IDX:4-7)");
	array_meta(&f, 2, "2-5", 0);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 6);
	ASSERT_STR_EQ(f.s->jobs[0].name, "900_0");
	ASSERT_EQ(f.s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_STR_EQ(f.s->jobs[1].name, "900_1");
	ASSERT_STR_EQ(f.s->jobs[2].name, "900_2");
	ASSERT_EQ(f.s->jobs[2].state, FW_JOB_PENDING);
	ASSERT_STR_EQ(f.s->jobs[5].name, "900_5");
	ASSERT(fw__slurm_job_named(f.h, "900_1", &task) == &f.jobs.job_array[1]);
	ASSERT_EQ(task, NO_VAL);
	ASSERT(!fw__slurm_job_named(f.h, "900_6", &task)); /* listed nowhere */

	/* %3 with 2 running: one more */
	f.jobs.job_array[2].array_task_str = (char *)"2-5%3";
	for (int i = 0; i < 3; i++)
		f.jobs.job_array[i].array_max_tasks = 3;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 3);
	ASSERT_STR_EQ(f.s->jobs[2].name, "900_2");

	/* %2 with 2 running: none, and the record says why */
	for (int i = 0; i < 3; i++)
		f.jobs.job_array[i].array_max_tasks = 2;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_THROTTLE);
	ASSERT_EQ(f.w.skipped_jobs, 0); /* waits, not skipped */
	fake_free(&f);
}

/* A sweep of thousands of tasks costs a cycle FW__ARRAY_TASKS_MAX jobs;
 * the rest waits in the record, counted skipped. */
TEST(an_arrays_tasks_are_capped_per_cycle)
{
	struct fake f;

	built_array(&f, "0-299", 0);
	ASSERT_EQ(f.s->njobs, FW__ARRAY_TASKS_MAX);
	ASSERT_STR_EQ(f.s->jobs[FW__ARRAY_TASKS_MAX - 1].name, "900_127");
	ASSERT_EQ(f.w.skipped_jobs, 300 - FW__ARRAY_TASKS_MAX);
	fake_free(&f);
}

/* ---- heterogeneous jobs ---- */

/* Job i of f: component `off` of het job 500 (components "500-..." in
 * set), held, asking tres on one node; its own job id is 500 + off. */
static slurm_job_info_t *het_part(struct fake *f, int i, uint32_t off, const char *set, const char *tres)
{
	slurm_job_info_t *j = &f->jobs.job_array[i];

	fake_pending(j, 500 + off, 4, tres);
	j->het_job_id = 500;
	j->het_job_offset = off;
	j->het_job_id_set = (char *)set;
	return j;
}

/* Slurm runs a het job's components together, once all are released,
 * and never two on one node (lab: a 2+4 GPU job released onto one node
 * never ran).  So its waiting components are one job: a group each,
 * apart, named after the first; a cycle on 2 nodes x 8 GPUs starts 2+4
 * on two nodes, each group on its own (the start's placements carry
 * the group, which apply.c turns into each component's ReqNodes). */
TEST(a_het_jobs_components_are_one_job)
{
	struct fw_backend_action *acts;
	struct fw_arena ar;
	struct fake f;
	int32_t na, starts = 0;

	fake_init(&f, 2, 2);
	het_part(&f, 0, 1, "501,500", "gres:gpu:4")->requeue = 1; /* records and set in any order */
	het_part(&f, 1, 0, "501,500", "gres:gpu:2")->requeue = 1;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_EQ(f.h->norphans, 0);
	const struct fw_job *j = &f.s->jobs[0];
	ASSERT_STR_EQ(j->name, "500");
	ASSERT_EQ(j->ngroups, 2);
	ASSERT_EQ(j->groups[0].gpus, 2);
	ASSERT_EQ(j->groups[1].gpus, 4);
	ASSERT(j->groups[0].apart && j->groups[1].apart && j->groups[1].one_per_node);
	ASSERT(!j->preemptible); /* Slurm requeues a het job whole */
	na = plan_actions(&f, &ar, &acts);
	for (int32_t k = 0; k < na; k++) {
		if (acts[k].kind != FW_DECIDE_START)
			continue;
		starts++;
		ASSERT_STR_EQ(acts[k].job, "500");
		ASSERT_EQ(acts[k].nplacements, 2);
		ASSERT(acts[k].placements[0].group != acts[k].placements[1].group);
		ASSERT(strcmp(acts[k].placements[0].node, acts[k].placements[1].node) != 0);
	}
	ASSERT_EQ(starts, 1);
	fw_arena_release(&ar);
	fake_free(&f);

	/* the first component released alone (by hand): it is booked on its
	 * ReqNodes, and the rest is held, saying how to go on (planned on
	 * its own it could land on that node, where Slurm never runs it) */
	fake_init(&f, 2, 2);
	slurm_job_info_t *r = het_part(&f, 0, 0, "500-501", "gres:gpu:2");
	r->priority = 1;
	r->req_nodes = (char *)"gpu001";
	het_part(&f, 1, 1, "500-501", "gres:gpu:4");
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_STR_EQ(f.s->jobs[0].name, "500");
	ASSERT_EQ(f.s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_EQ(f.h->norphans, 1);
	char buf[240];
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[1], buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: component 500 of this heterogeneous job was released alone, and Slurm runs the "
			   "components together: held (scontrol release 500 lets Slurm place the rest; "
			   "scontrol hold 500, then scontrol release 500, lets fairway plan it whole)");

	/* released onto GPUs others hold now: not booked, and not planned
	 * anew either (a part of the job cannot start on its own) */
	r->req_nodes = (char *)"gpu003"; /* not a node fairway schedules */
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 0);
	ASSERT_EQ(f.h->norphans, 2);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_HET_RELEASED); /* it waits for Slurm: not skipped */
	ASSERT_EQ(f.h->orphans[1].why, FW__ORPHAN_HET_PARTLY);
	ASSERT_EQ(f.w.skipped_jobs, 1);
	fw__orphan_text(&f.h->orphans[0], r, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: released onto gpu003, where other jobs run now; Slurm starts its heterogeneous "
			   "job there once they end");
	fake_free(&f);
}

/* Components that ask for unlike nodes (--exclude, -w; partitions and
 * --constraint go the same way) are still one job, each task group
 * restricted to its component's nodes (snapshot.h "Group filters"): on
 * gpu001 and gpu002, component 0 (2 GPUs) excluding gpu002 and component
 * 1 (4 GPUs) naming gpu002 with -w start as one job, 0 on gpu001 and 1 on
 * gpu002; so they do with the exclusion swapped (0 on gpu002 ... which
 * 1's -w holds: held).  Alike, the job keeps one filter for all.  Two
 * het jobs whose components ask alike share their groups' lists. */
TEST(a_het_jobs_components_keep_their_own_nodes)
{
	static const struct {
		const char *exc0, *adm1, *exc1;
		int starts, groups, filters;
		const char *node0, *node1;
	} c[] = {
		{ "gpu002", "fairway: -w gpu002", NULL, 1, 2, 0, "gpu001", "gpu002" },
		{ "gpu001", NULL, "gpu002", 1, 2, 0, "gpu002", "gpu001" },
		{ "gpu001", "fairway: -w gpu002", NULL, 0, 2, 0, NULL, NULL },
		{ "gpu001", NULL, "gpu001", 0, 0, 1, NULL, NULL }, /* alike: one job filter */
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fw_backend_action *acts;
		struct fw_arena ar;
		struct fake f;
		int32_t na, starts = 0;
		fake_init(&f, 2, 2);
		slurm_job_info_t *p0 = het_part(&f, 0, 0, "500-501", "gres:gpu:2");
		slurm_job_info_t *p1 = het_part(&f, 1, 1, "500-501", "gres:gpu:4");
		p0->exc_nodes = (char *)c[i].exc0;
		p1->exc_nodes = (char *)c[i].exc1;
		p1->admin_comment = (char *)c[i].adm1;
		ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
		ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
		ASSERT_EQ(f.s->njobs, 1);
		ASSERT_EQ(f.h->norphans, 0);
		ASSERT_EQ(f.s->ngroup_nodes, c[i].groups);
		ASSERT_EQ(f.s->njob_nodes, c[i].filters);
		na = plan_actions(&f, &ar, &acts);
		for (int32_t k = 0; k < na; k++) {
			if (acts[k].kind != FW_DECIDE_START)
				continue;
			starts++;
			ASSERT_EQ(acts[k].nplacements, 2);
			for (int32_t t = 0; t < 2; t++)
				ASSERT_STR_EQ(acts[k].placements[t].node,
					      acts[k].placements[t].group == 0 ? c[i].node0 : c[i].node1);
		}
		ASSERT_EQ(starts, c[i].starts);
		fw_arena_release(&ar);
		fake_free(&f);
	}

	/* two het jobs whose components ask alike share the groups' lists
	 * (one shape for both in the cycle's memos) */
	struct fake f;
	fake_init(&f, 2, 4);
	for (int k = 0; k < 4; k++) {
		slurm_job_info_t *p = het_part(&f, k, (uint32_t)(k % 2), k < 2 ? "500-501" : "600-601", "gres:gpu:2");
		p->job_id = (k < 2 ? 500u : 600u) + (uint32_t)(k % 2);
		p->het_job_id = k < 2 ? 500u : 600u;
		p->exc_nodes = (char *)(k % 2 ? "gpu001" : "gpu002");
	}
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_EQ(f.s->ngroup_nodes, 4);
	ASSERT_EQ(f.s->group_nodes[2].first, f.s->group_nodes[0].first);
	ASSERT_EQ(f.s->group_nodes[3].first, f.s->group_nodes[1].first);
	ASSERT_EQ(f.s->nnode_refs, 2);
	fake_free(&f);
}

/* What fairway cannot plan as one job is held, every component with a
 * comment that says why, and counted skipped. */
TEST(a_het_job_fairway_cannot_plan_is_held_saying_so)
{
	static const struct {
		const char *set, *acct1, *tres1;
		int parts;
		const char *want0, *want1; /* the comments of components 0 and 1 */
	} c[] = {
		{ "500-501", "team_b", "gres:gpu:1", 2,
		  "fairway: plans a heterogeneous job whose components ask the same account and --switches: held "
		  "(submit it so)", NULL },
		{ "500-504", "team_a", "gres:gpu:1", 5,
		  "fairway: plans a heterogeneous job of at most 4 components and this one has 5 waiting: held "
		  "(submit fewer components, or separate jobs)", NULL },
		{ "x", "team_a", "gres:gpu:1", 2,
		  "fairway: reads a heterogeneous job of at most 16 components listed as N-M or N,M, not (x): held", NULL },
		{ "500-501", "team_a", "gres:gpu:32", 2,
		  "fairway: component 501 of this heterogeneous job is held (see its comment), and Slurm runs the "
		  "components together: held too",
		  "fairway: asks 32 GPUs per node, and fairway places at most 16 on a node: held (ask for fewer per "
		  "node, on more nodes)" },
	};
	char buf[240];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fake f;
		fake_init(&f, 2, c[i].parts);
		for (int k = 0; k < c[i].parts; k++)
			het_part(&f, k, (uint32_t)k, c[i].set, k == 1 ? c[i].tres1 : "gres:gpu:1");
		f.jobs.job_array[1].account = (char *)c[i].acct1;
		ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
		ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
		ASSERT_EQ(f.s->njobs, 0);
		ASSERT_EQ(f.h->norphans, c[i].parts);
		ASSERT_EQ(f.w.skipped_jobs, c[i].parts);
		for (int k = 0; k < 2; k++) {
			ASSERT_EQ(f.h->orphans[k].job, 500u + (uint32_t)k);
			fw__orphan_text(&f.h->orphans[k], &f.jobs.job_array[k], buf, sizeof buf);
			ASSERT_STR_EQ(buf, k == 1 && c[i].want1 ? c[i].want1 : c[i].want0);
		}
		fake_free(&f);
	}
}

/* Slurm's usage replaces the YAML's: each queue's own usage is the sum of
 * its account's user associations (an inner queue's own is 0: fairway
 * adds the subtree itself), the users' table is the rows, and rows of an
 * account that is no queue, or with no usage, are left out. */
TEST(slurms_usage_replaces_the_configs)
{
	static const char yaml[] =
		"now: 1000\n"
		"queues:\n"
		"  - {name: org}\n"
		"  - {name: team_a, parent: org, usage: {gpuHours: 500, at: 0},\n"
		"     userUsage: {carol: {gpuHours: 50}}}\n"
		"  - {name: team_b, parent: org}\n"
		"  - {name: idle, usage: {gpuHours: 7}}\n";
	const struct fw_slurm_usage rows[] = {
		{ "team_a", "alice", 3600 }, { "team_a", "bob", 1800 }, { "team_b", "alice", 720 },
		{ "team_a", "alice", 360 }, /* a second association (another partition) */
		{ "gone", "dave", 99 },     /* an account that is no queue */
		{ "team_b", "erin", 0 },    /* nothing used */
	};
	struct fw_snapshot *s = NULL;
	struct fw_diag d;
	int32_t unmatched = -1, a, b;

	ASSERT_OK(fw_config_load_buffer("t", yaml, sizeof yaml - 1, &s, &d));
	ASSERT_OK(fw_slurm_usage_apply(s, rows, 6, 900, &unmatched));
	a = fw_snapshot_find_queue(s, "team_a");
	b = fw_snapshot_find_queue(s, "team_b");
	ASSERT_NEAR(s->queues[a].usage, 5760, 1e-9);
	ASSERT_NEAR(s->queues[b].usage, 720, 1e-9);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "org")].usage, 0, 0);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "idle")].usage, 0, 0); /* the YAML's 7 GPU-h: gone */
	ASSERT_EQ(s->queues[a].usage_at, 900);
	ASSERT_EQ(unmatched, 1);
	ASSERT_EQ(s->nuser_usage, 4); /* carol (the YAML's) is gone */
	for (int32_t i = 0; i < s->nuser_usage; i++) {
		ASSERT(strcmp(s->user_usage[i].user, "carol") && strcmp(s->user_usage[i].user, "erin"));
		ASSERT_EQ(s->user_usage[i].usage_at, 900);
	}
	ASSERT_STR_EQ(s->user_usage[1].user, "bob");
	ASSERT_EQ(s->user_usage[1].queue, a);
	ASSERT_NEAR(s->user_usage[1].usage, 1800, 1e-9);
	ASSERT_EQ(s->user_usage[2].queue, b);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	/* A second read replaces the first: nothing adds up across reads. */
	ASSERT_OK(fw_slurm_usage_apply(s, rows, 1, 960, &unmatched));
	ASSERT_NEAR(s->queues[a].usage, 3600, 1e-9);
	ASSERT_NEAR(s->queues[b].usage, 0, 0);
	ASSERT_EQ(s->nuser_usage, 1);
	ASSERT_EQ(unmatched, 0);
	fw_snapshot_free(s);
}

/* The GPU TRES is "gres/gpu" exactly: not a typed one, not another gres. */
TEST(the_gpu_tres_is_gres_gpu)
{
	char *names[] = { "cpu", "mem", "gres/gpu:h100", "gres/gpumem", NULL, "gres/gpu", "billing" };

	ASSERT_EQ(fw_slurm_gpu_tres_index(names, 7), 5);
	ASSERT_EQ(fw_slurm_gpu_tres_index(names, 5), -1);
	ASSERT_EQ(fw_slurm_gpu_tres_index(NULL, 3), -1);
}

/* An association's GrpTRESMins on gres/gpu (by TRES position, as
 * slurmctld sends it) as a budget in GPU-hours: none for Slurm's "no
 * limit" values or a position the array lacks; 0 minutes the least budget
 * fairway keeps (its 0 is none); past FW_BUDGET_MAX_GPU_H clamped. */
TEST(grp_tres_mins_on_gpus_is_a_budget)
{
	const uint64_t mins[] = { INFINITE64, 120, 0, NO_VAL64, 100000000000ull, 1 };
	uint64_t m = 7;

	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 1, &m), 2.0, 1e-12);
	ASSERT_EQ(m, 120);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 5, &m), 1.0 / 60, 1e-12);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 0, &m), 0, 0);
	ASSERT_EQ(m, 0);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 3, &m), 0, 0);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 2, &m), FW_SLURM_BUDGET_ZERO_GPU_H, 0);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 4, &m), FW_BUDGET_MAX_GPU_H, 0);
	ASSERT_EQ(m, 100000000000ull);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, 6, &m), 0, 0); /* past the array */
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 2, 5, &m), 0, 0);
	ASSERT_NEAR(fw_slurm_gpu_budget(mins, 6, -1, &m), 0, 0); /* no gres/gpu TRES */
	ASSERT_NEAR(fw_slurm_gpu_budget(NULL, 6, 1, &m), 0, 0);
	ASSERT_EQ(m, 0);
}

/* Slurm's budgets go onto the queues of their accounts, inner ones too,
 * unless the YAML gives the queue one (the YAML's stands); an account no
 * queue names is counted; 'safe' turns budgetSafe on, never off.  The
 * note says which is which, once per change. */
TEST(slurms_budgets_yield_to_the_configs)
{
	static const char yaml[] =
		"now: 1000\n"
		"queues:\n"
		"  - {name: org}\n"
		"  - {name: team_a, parent: org, gpuHourBudget: 50}\n"
		"  - {name: team_b, parent: org}\n"
		"  - {name: team_c, parent: org}\n"
		"  - {name: team_d, parent: org}\n";
	const struct fw_slurm_budget rows[] = {
		{ "team_a", 100, 6000 }, { "team_b", 1.0 / 60, 1 }, { "org", 10, 600 }, { "root", 2, 120 },
		{ "team_c", FW_SLURM_BUDGET_ZERO_GPU_H, 0 }, { "team_d", FW_BUDGET_MAX_GPU_H, 100000000000ull },
	};
	struct fw_snapshot *s = NULL, *t = NULL;
	struct fw_slurm *h = calloc(1, sizeof *h);
	struct fw_diag d;
	int32_t kept = -1, unmatched = -1;
	uint64_t gen = 9;

	ASSERT(h != NULL);
	ASSERT_OK(fw_config_load_buffer("t", yaml, sizeof yaml - 1, &s, &d));
	ASSERT_OK(fw_config_load_buffer("t", yaml, sizeof yaml - 1, &t, &d));
	ASSERT_STR_EQ(fw_slurm_budget_note(h, &gen), "");
	ASSERT_EQ(gen, 0);
	/* the note, made from the queues as the config has them */
	h->budgets = (struct fw_slurm_budget *)rows;
	h->nbudgets = 6;
	h->budget_read = true;
	h->budget_rc = FW_OK;
	h->enforce_safe = true;
	h->budget_gen = 1;
	fw__slurm_budget_note(h, s);
	const char *note = fw_slurm_budget_note(h, &gen);
	ASSERT_EQ(gen, 1);
	ASSERT_STR_CONTAINS(note, "GPU-hour budgets from Slurm's GrpTRESMins: team_a (6000 GPU-minutes; the config's "
				  "gpuHourBudget 50 stands), team_b 0.01667 GPU-h (1 GPU-minute), org 10 GPU-h (600 "
				  "GPU-minutes), root (120 GPU-minutes; no queue of that name: not used)");
	/* plain digits, never an exponent (they read 1e-06 and 1e+09) */
	ASSERT_STR_CONTAINS(note, "team_c 0.000001 GPU-h (GrpTRESMins=gres/gpu=0: any use at all is over it)");
	ASSERT_STR_CONTAINS(note, "team_d 1000000000 GPU-h (Slurm's 100000000000 GPU-minutes, clamped to fairway's most)");
	ASSERT_STR_CONTAINS(note, "; budgetSafe on: slurm.conf's AccountingStorageEnforce has safe");
	ASSERT(!strstr(note, "(and the config's budgetSafe)"));

	ASSERT(!s->config.budget_safe);
	ASSERT_OK(fw_slurm_budget_apply(s, rows, 6, true, &kept, &unmatched));
	ASSERT_EQ(kept, 1);
	ASSERT_EQ(unmatched, 1);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "team_a")].gpu_hour_budget, 50, 0);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "team_b")].gpu_hour_budget, 1.0 / 60, 1e-12);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "org")].gpu_hour_budget, 10, 0);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "team_c")].gpu_hour_budget, FW_SLURM_BUDGET_ZERO_GPU_H, 0);
	ASSERT_NEAR(s->queues[fw_snapshot_find_queue(s, "team_d")].gpu_hour_budget, FW_BUDGET_MAX_GPU_H, 0);
	ASSERT(s->config.budget_safe);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	/* the same read again: the note is not made anew (and s's queues now
	 * carry Slurm's budgets, which it would call the config's) */
	fw__slurm_budget_note(h, s);
	ASSERT_STR_EQ(fw_slurm_budget_note(h, &gen), note);
	ASSERT_EQ(gen, 1);
	/* without 'safe' the config's budgetSafe is left as it is */
	t->config.budget_safe = true;
	ASSERT_OK(fw_slurm_budget_apply(t, rows + 1, 1, false, &kept, &unmatched));
	ASSERT(t->config.budget_safe);
	ASSERT_EQ(kept, 0);
	ASSERT_EQ(unmatched, 0);
	t->config.budget_safe = false;
	ASSERT_OK(fw_slurm_budget_apply(t, rows + 2, 1, false, &kept, &unmatched));
	ASSERT(!t->config.budget_safe);
	ASSERT_NEAR(t->queues[fw_snapshot_find_queue(t, "org")].gpu_hour_budget, 10, 0);
	/* a read that found none says why */
	h->nbudgets = 0;
	h->budget_rc = FW_ENOENT;
	h->enforce_safe = false;
	snprintf(h->budget_why, sizeof h->budget_why, "slurm.conf: no slurmdbd");
	h->budget_gen = 2;
	fw__slurm_budget_note(h, t);
	ASSERT_STR_EQ(fw_slurm_budget_note(h, &gen), "GPU-hour budgets: none from Slurm (slurm.conf: no slurmdbd)");
	ASSERT_EQ(gen, 2);
	h->budgets = NULL;
	fw_slurm_close(h);
	fw_snapshot_free(s);
	fw_snapshot_free(t);
}

/* A job's priority is its QOS's Priority first, its nice second: the
 * high-QOS job, submitted last, goes first; a lower nice next; a QOS the
 * table does not name counts as 0, as "normal" does; both are clamped so
 * that the order fits an int32. */
TEST(a_jobs_qos_orders_it_before_its_nice)
{
	struct fw__qos table[] = { { "normal", 0 }, { "high", 100 }, { "huge", 4000000000u } };
	struct fw_arena a;
	struct fw_plan *p = NULL;
	struct fake f;

	fake_init(&f, 1, 4);
	f.h->qos = table;
	f.h->nqos = 3;
	for (int i = 0; i < 4; i++) {
		fake_pending(&f.jobs.job_array[i], 401 + (uint32_t)i, 1, "gres:gpu:8");
		f.jobs.job_array[i].submit_time = 1 + i;
	}
	f.jobs.job_array[0].qos = (char *)"normal";
	f.jobs.job_array[1].qos = (char *)"gone"; /* unknown: 0 */
	f.jobs.job_array[1].nice = NICE_OFFSET - 50;
	f.jobs.job_array[2].qos = (char *)"high";
	f.jobs.job_array[2].nice = NICE_OFFSET + 3000000; /* clamped to 10000 */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 4);
	ASSERT_EQ(f.s->jobs[0].priority, 0);
	ASSERT_EQ(f.s->jobs[1].priority, 50);
	ASSERT_EQ(f.s->jobs[2].priority, 100 * 20001 - 10000);
	ASSERT_EQ(f.s->jobs[3].priority, 0); /* no QOS */
	fw_arena_init(&a, 0);
	ASSERT_OK(fw_cycle_run(f.s, NULL, &a, &p));
	ASSERT_EQ(p->ndecisions > 0, 1);
	for (int32_t i = 0, starts = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_START) {
			ASSERT_EQ(++starts, 1);
			ASSERT_STR_EQ(f.s->jobs[p->decisions[i].job].name, "403");
		}
	fw_arena_release(&a);
	ASSERT_EQ(fw__slurm_job_priority(4000000000u, -2147483647), 100000 * 20001 + 10000);
	ASSERT_EQ(fw__slurm_job_priority(0, 2147483647), -10000);
	ASSERT_EQ(fw__slurm_qos_priority(f.h, NULL), 0);
	ASSERT_EQ(fw__slurm_qos_priority(f.h, "huge"), 4000000000u);
	f.h->qos = NULL;
	f.h->nqos = 0;
	fake_free(&f);
}

/* A job fairway released that Slurm holds back by a limit of its own
 * (here the association's MaxJobs) is not booked on its nodes, so they
 * do not sit idle while it waits: it is an orphan whose comment names
 * Slurm's reason.  Released and waiting for the nodes (Resources), it is
 * booked as before. */
TEST(a_job_slurm_holds_back_by_a_limit_books_no_node)
{
	struct fake f;
	char text[256];

	fake_init(&f, 2, 2);
	fake_pending(&f.jobs.job_array[0], 502, 1, "gres:gpu:8");
	f.jobs.job_array[0].priority = 1000;
	f.jobs.job_array[0].req_nodes = (char *)"gpu002";
	f.jobs.job_array[0].state_reason = WAIT_ASSOC_MAX_JOBS;
	fake_pending(&f.jobs.job_array[1], 503, 1, "gres:gpu:8");
	f.jobs.job_array[1].priority = 1000;
	f.jobs.job_array[1].req_nodes = (char *)"gpu001";
	f.jobs.job_array[1].state_reason = WAIT_RESOURCES;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_STR_EQ(f.s->jobs[0].name, "503");
	ASSERT_EQ(f.s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 502);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_SLURM_HOLD);
	ASSERT_EQ(f.w.skipped_jobs, 0); /* it waits; it is not skipped */
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_CONTAINS(text, "fairway: released onto gpu002; Slurm holds it back (");
#ifdef FW_HAVE_SLURM_REASON_STRING
	ASSERT_STR_CONTAINS(text, "(AssocMaxJobsLimit)");
#endif
	ASSERT(fw__slurm_held_back(&f.jobs.job_array[0]));
	f.jobs.job_array[0].state_reason = WAIT_QOS_MAX_GRES_PER_USER;
	ASSERT(fw__slurm_held_back(&f.jobs.job_array[0]));
	f.jobs.job_array[0].state_reason = WAIT_QOS_MIN_BILLING;
	ASSERT(fw__slurm_held_back(&f.jobs.job_array[0]));
	for (uint16_t r = 0; r <= WAIT_RESV_DELETED; r++) { /* the nodes' reasons: booked */
		f.jobs.job_array[0].state_reason = r;
		if (r == WAIT_RESOURCES || r == WAIT_PRIORITY || r == WAIT_NO_REASON || r == WAIT_NODE_NOT_AVAIL ||
		    r == WAIT_RESERVATION || r == WAIT_CLEANING || r == WAIT_PROLOG || r == WAIT_DEPENDENCY)
			ASSERT(!fw__slurm_held_back(&f.jobs.job_array[0]));
	}
	f.jobs.job_array[0].state_reason = WAIT_ASSOC_MAX_JOBS;
	f.jobs.job_array[0].priority = 0; /* held: not released, pending as any */
	ASSERT(!fw__slurm_held_back(&f.jobs.job_array[0]));
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_EQ(f.h->norphans, 0);
	fake_free(&f);
}

/* Slurm 22.05 sends no user_name with a job: the adapter names the user
 * by the uid on this machine (as sshare and the associations do, so that
 * users' usage matches), "uid<N>" when no name is known; names are kept
 * across reads (a full table grows). */
TEST(a_jobs_user_is_named_by_its_uid)
{
	struct fw_slurm *h = calloc(1, sizeof *h);
	slurm_job_info_t j;
	char name[FW_NAME_MAX];

	ASSERT(h != NULL);
	memset(&j, 0, sizeof j);
	j.user_id = 0;
	ASSERT(fw__slurm_user(h, &j, name, sizeof name));
	ASSERT_STR_EQ(name, "root");
	j.user_id = 3999999999u;
	ASSERT(!fw__slurm_user(h, &j, name, sizeof name));
	ASSERT_STR_EQ(name, "uid3999999999");
	ASSERT(!fw__slurm_user(h, &j, name, sizeof name)); /* remembered as no name */
	j.user_name = (char *)"alice"; /* a Slurm that sends it: taken as is */
	ASSERT(fw__slurm_user(h, &j, name, sizeof name));
	ASSERT_STR_EQ(name, "alice");
	j.user_name = NULL;
	for (uint32_t u = 5000000; u < 5000100; u++) { /* past the first table */
		j.user_id = u;
		fw__slurm_user(h, &j, name, sizeof name);
	}
	ASSERT_EQ(h->nunames, 102);
	ASSERT(h->cap_unames >= 2 * 102);
	j.user_id = 0;
	ASSERT(fw__slurm_user(h, &j, name, sizeof name)); /* found again after the table grew */
	ASSERT_STR_EQ(name, "root");
	j.user_id = 5000042;
	fw__slurm_user(h, &j, name, sizeof name);
	ASSERT_STR_EQ(name, "uid5000042");
	ASSERT_EQ(h->nunames, 102);
	free(h->unames);
	free(h);
}

/* Slurm's reservations (seen in a lab: fairway released a job onto a node
 * of an admin's reservation, where it sat "ReqNodeNotAvail, May be
 * reserved for other job", booked in fairway's books, for the ten hours
 * the reservation had left; a node in an open maintenance reservation
 * counted as gone for good in the estimates).  An admin's reservation
 * open now (or one of fairway's maintenance windows) closes its nodes
 * until its end (back_at, when nothing else keeps them out); one to come
 * makes its nodes in service leave at its start (away_at, back at its
 * end: the core keeps off them the jobs whose time limit would reach into
 * it, and plans on them from its end), and one the core cannot know (after
 * a gap) closes them to those jobs by their node filters; fairway's
 * own job reservations close nothing; a job that asks for a reservation
 * is released into it for Slurm to place, and not booked. */
static int32_t resv_inx[4][3] = { { 0, 0, -1 }, { 1, 1, -1 }, { 2, 2, -1 }, { 3, 3, -1 } };

static void fake_resv(reserve_info_t *r, const char *name, time_t start, time_t end, int node)
{
	memset(r, 0, sizeof *r);
	r->name = (char *)name;
	r->start_time = start;
	r->end_time = end;
	r->node_inx = resv_inx[node];
	r->node_list = (char *)(node == 0 ? "gpu001" : node == 1 ? "gpu002" : node == 2 ? "gpu003" : "gpu004");
}

TEST(slurm_reservations_close_their_nodes_and_admit_their_jobs)
{
	struct fake f;
	reserve_info_t rv[4];
	reserve_info_msg_t rm = { .record_count = 4, .reservation_array = rv };
	struct fw_backend_action *acts;
	struct fw_arena ar;
	int32_t held = 0, x = 0, na;

	fake_init(&f, 4, 6);
	f.h->resv = &rm;
	fake_resv(&rv[0], "maint", 900, 5000, 0);    /* open, MAINT: gpu001 back at 5000 */
	rv[0].flags = RESERVE_FLAG_MAINT;
	f.nodes.node_array[0].node_state = NODE_STATE_IDLE | NODE_STATE_MAINT;
	fake_resv(&rv[1], "users", 500, 8000, 1);    /* open: gpu002 back at 8000 */
	fake_resv(&rv[2], "soon", 4600, 9000, 2);    /* to come: gpu003 for jobs done by 4600 */
	fake_resv(&rv[3], "fairway-77", 900, 3000, 3); /* fairway's own: nothing */
	for (uint32_t i = 0; i < 6; i++)
		fake_pending(&f.jobs.job_array[i], 700 + i, 4, "gres:gpu:8");
	f.jobs.job_array[0].time_limit = 10;         /* ends at 1600 */
	f.jobs.job_array[0].exc_nodes = (char *)"gpu004";
	f.jobs.job_array[1].time_limit = 120;        /* 8200: reaches into "soon" */
	f.jobs.job_array[2].time_limit = INFINITE;   /* so does a job without one */
	f.jobs.job_array[3].resv_name = (char *)"users";
	f.jobs.job_array[4].resv_name = (char *)"users";
	f.jobs.job_array[4].priority = 5;            /* released into it already */
	f.jobs.job_array[5].time_limit = 120;
	f.jobs.job_array[5].exc_nodes = (char *)"gpu001,gpu002,gpu004";
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT(!f.s->nodes[0].schedulable);
	ASSERT_EQ(f.s->nodes[0].back_at, 5000);
	ASSERT(!f.s->nodes[1].schedulable);
	ASSERT_EQ(f.s->nodes[1].back_at, 8000);
	ASSERT(f.s->nodes[2].schedulable); /* leaves a minute before "soon"'s start, back at its end */
	ASSERT_EQ(f.s->nodes[2].away_at, 4600 - FW__RESV_MARGIN_S);
	ASSERT_EQ(f.s->nodes[2].back_at, 9000);
	ASSERT(f.s->nodes[3].schedulable);
	ASSERT_EQ(f.s->nodes[3].back_at, 0);
	ASSERT_EQ(f.s->nodes[3].away_at, 0);
	ASSERT_EQ(f.s->nodes[0].away_at, 0); /* out now: back_at alone */
	ASSERT_EQ(f.s->njobs, 4);
	ASSERT_EQ(f.w.skipped_jobs, 0); /* the others wait */
	/* "soon" is the core's to keep (gpu003 leaves at its start): no node
	 * filter for it; 705, which may use gpu003 alone, is planned there
	 * from its end (it was held until "soon" was over) */
	answer_is(&f, 0, 700, "gpu001,gpu002,gpu003", &held, &x);
	answer_is(&f, 1, 701, "*", &held, &x);
	answer_is(&f, 2, 702, "*", &held, &x);
	answer_is(&f, 3, 703, "fairway: asks for reservation users: released into it; Slurm starts it there",
		  &held, &x);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_TO_RESV);
	answer_is(&f, 4, 704, "fairway: asks for reservation users: released into it; Slurm starts it there",
		  &held, &x);
	ASSERT_EQ(f.h->orphans[1].why, FW__ORPHAN_IN_RESV);
	answer_is(&f, 5, 705, "gpu003", &held, &x);
	ASSERT_EQ(held, f.h->norphans);
	/* The plan: 700 on gpu003 (done before "soon"), 701 on gpu004 alone
	 * (gpu003 leaves before it would end), 702 waits; 705 is reserved on
	 * gpu003 from "soon"'s end, not before (700 ends at 1600, too late
	 * for its 2 h before 4600); the checker holds it. */
	na = plan_actions(&f, &ar, &acts);
	int starts = 0, reserved705 = 0;
	for (int32_t k = 0; k < na; k++) {
		if (acts[k].kind == FW_DECIDE_RESERVE && !strcmp(acts[k].job, "705")) {
			ASSERT_EQ(acts[k].at, 9000);
			ASSERT_STR_EQ(acts[k].placements[0].node, "gpu003");
			reserved705++;
		}
		if (acts[k].kind != FW_DECIDE_START)
			continue;
		starts++;
		ASSERT_STR_EQ(acts[k].placements[0].node, !strcmp(acts[k].job, "700") ? "gpu003" : "gpu004");
		ASSERT(strcmp(acts[k].job, "702"));
	}
	ASSERT_EQ(starts, 2);
	ASSERT_EQ(reserved705, 1);
	fw_arena_release(&ar);
	/* The core knows one departure a node, the first, as the daemon's
	 * windows: a later reservation to come that opens by the node's
	 * return extends its stay ("soon-too" right after "soon": gpu003 back
	 * at 9500), one after a gap does not ("later", 12000..13000: gpu003
	 * is back in the gap, and a node out now, gpu001 until 5000, is back
	 * before "after", 6000..7000).  Those two are node filters' to keep:
	 * counted from the node's return before them (9500, 5000), 701 and
	 * 702 would run into them, 700 (-t 10) into neither. */
	reserve_info_t rv2[7];
	memcpy(rv2, rv, sizeof rv);
	fake_resv(&rv2[4], "soon-too", 9000, 9500, 2);
	fake_resv(&rv2[5], "later", 12000, 13000, 2);
	fake_resv(&rv2[6], "after", 6000, 7000, 0);
	rm.reservation_array = rv2;
	rm.record_count = 7;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->nodes[2].away_at, 4600 - FW__RESV_MARGIN_S);
	ASSERT_EQ(f.s->nodes[2].back_at, 9500);
	ASSERT(!f.s->nodes[0].schedulable);
	ASSERT_EQ(f.s->nodes[0].back_at, 5000);
	held = x = 0;
	answer_is(&f, 0, 700, "gpu001,gpu002,gpu003", &held, &x);
	answer_is(&f, 1, 701, "gpu002,gpu004", &held, &x);
	answer_is(&f, 2, 702, "gpu002,gpu004", &held, &x);
	rm.reservation_array = rv;
	rm.record_count = 4;
	/* A node out for its own sake (drained) is not known to come back;
	 * the reservations gone, every node takes work again. */
	f.nodes.node_array[1].node_state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT(!f.s->nodes[1].schedulable);
	ASSERT_EQ(f.s->nodes[1].back_at, 0);
	ASSERT_EQ(f.s->nodes[0].back_at, 5000);
	rm.record_count = 0;
	f.nodes.node_array[0].node_state = NODE_STATE_IDLE;
	f.nodes.node_array[1].node_state = NODE_STATE_IDLE;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	for (int i = 0; i < 4; i++)
		ASSERT(f.s->nodes[i].schedulable && f.s->nodes[i].back_at == 0 && f.s->nodes[i].away_at == 0);
	ASSERT_EQ(f.s->njobs, 4);
	x = 1;
	held = 0;
	answer_is(&f, 1, 701, "*", &held, &x); /* no filter now */
	f.h->resv = NULL;
	fake_free(&f);
}

/* libslurm is called from the daemon's cycle thread (ping, fetch, build,
 * without the state lock) and from an API thread (a whole read, under
 * it) at once, and documents no call thread-safe: each call goes through
 * one lock (serial.c), held for the call alone.  A call made while
 * another holds it waits; the value comes back and the lock is free
 * after it. */
struct lib_probe {
	int count;
	bool done;
};

static void *lib_call(void *arg)
{
	struct lib_probe *p = arg;
	hostlist_t hl = FW__SLP(slurm_hostlist_create("gpu[001-003],gpu007"));

	p->count = FW__SL(slurm_hostlist_count(hl));
	FW__SLV(slurm_hostlist_destroy(hl));
	__atomic_store_n(&p->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

TEST(libslurm_calls_are_serialized_one_at_a_time)
{
	struct lib_probe p = { 0, false };
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	pthread_t t;

	fw__slurm_lib_lock(); /* as a call on another thread would */
	ASSERT_EQ(pthread_create(&t, NULL, lib_call, &p), 0);
	nanosleep(&pause, NULL);
	ASSERT(!__atomic_load_n(&p.done, __ATOMIC_SEQ_CST)); /* it waits */
	fw__slurm_lib_unlock();
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT(p.done);
	ASSERT_EQ(p.count, 4);
	lib_call(&p); /* the lock was let go after each call: no deadlock */
	ASSERT_EQ(p.count, 4);
}

/* Two admin reservations to come on one node, with a gap between them
 * (seen in a lab: the node stayed out to the end of the second, and the
 * daemon's own windows are out for the first only): the node leaves for
 * the first, is back at its end, and the second is left to the cycles
 * after it (build.c leave_node).  A job that fits in the gap is reserved
 * there (800: -t 30, at the first's end); one that would run into the
 * second from that return is kept off the node by its node filter,
 * though from now it would end before the second (801: -t 90, 1000 +
 * 5400 + 60 < 6600, but 3000 + 5460 > 6600; fairway once reserved such a
 * job across the second).  A second that opens within the margin of the
 * first's end leaves no gap: one stay, to its end. */
TEST(a_node_is_back_between_two_reservations)
{
	struct fake f;
	reserve_info_t rv[2];
	reserve_info_msg_t rm = { .record_count = 2, .reservation_array = rv };
	struct fw_backend_action *acts;
	struct fw_arena ar;
	char text[240];
	int32_t na, reserved800 = 0;

	fake_init(&f, 1, 2);
	f.h->resv = &rm;
	fake_resv(&rv[0], "second", 6600, 8000, 0);
	fake_resv(&rv[1], "first", 2000, 3000, 0);
	fake_pending(&f.jobs.job_array[0], 800, 4, "gres:gpu:8");
	f.jobs.job_array[0].time_limit = 30;
	fake_pending(&f.jobs.job_array[1], 801, 4, "gres:gpu:8");
	f.jobs.job_array[1].time_limit = 90;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT(f.s->nodes[0].schedulable);
	ASSERT_EQ(f.s->nodes[0].away_at, 2000 - FW__RESV_MARGIN_S);
	ASSERT_EQ(f.s->nodes[0].back_at, 3000); /* not 8000 */
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 801);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_RESERVED);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[1], text, sizeof text);
	ASSERT(strstr(text, "reservation second (") != NULL);
	na = plan_actions(&f, &ar, &acts);
	for (int32_t k = 0; k < na; k++) {
		ASSERT(acts[k].kind != FW_DECIDE_START); /* 800 would not end by 1940 */
		if (acts[k].kind == FW_DECIDE_RESERVE && !strcmp(acts[k].job, "800")) {
			ASSERT_EQ(acts[k].at, 3000);
			ASSERT_STR_EQ(acts[k].placements[0].node, "gpu001");
			reserved800++;
		}
	}
	ASSERT_EQ(reserved800, 1);
	fw_arena_release(&ar);
	/* 30 s after the first's end, inside the margin: no gap */
	rv[0].start_time = 3000 + FW__RESV_MARGIN_S / 2;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->nodes[0].away_at, 2000 - FW__RESV_MARGIN_S);
	ASSERT_EQ(f.s->nodes[0].back_at, 8000);
	ASSERT_EQ(f.s->njobs, 2); /* both the core's to keep: no filter */
	f.h->resv = NULL;
	fake_free(&f);
}

/* Filter phase 5b names what left a job no node: the first reservation
 * to come that took one of its nodes, and how many more did (the job's
 * reason then names it: FW__ORPHAN_RESERVED).  The build models every
 * reservation it reads (leaving_nodes: away_at, back_at), so the nodes'
 * departures are cleared here, as for a reservation the core could not
 * know: then the filter is the net. */
TEST(the_reservation_filter_names_the_reservation_that_took_the_nodes)
{
	struct fake f;
	reserve_info_t rv[3];
	reserve_info_msg_t rm = { .record_count = 3, .reservation_array = rv };
	int32_t node_of[2] = { 0, 1 }, more = -1;
	struct fw__slurm_filter *flt;
	slurm_job_info_t *j;

	fake_init(&f, 2, 1);
	f.h->resv = &rm;
	fake_resv(&rv[0], "late2", 2500, 3000, 1); /* gpu002 */
	fake_resv(&rv[1], "late", 2000, 3000, 0);  /* gpu001, first by start */
	fake_resv(&rv[2], "much-later", 90000, 91000, 0);
	j = &f.jobs.job_array[0];
	fake_pending(j, 910, 1, "gres:gpu:1");
	j->time_limit = 120;                       /* to 8200: into late and late2 */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 1);                  /* the core knows both: planned */
	for (int i = 0; i < 2; i++)
		f.s->nodes[i].away_at = f.s->nodes[i].back_at = 0;
	ASSERT((flt = fw__slurm_filter_new(f.h, f.s, node_of)) != NULL);
	ASSERT_EQ(fw__slurm_filter_job(flt, j), 0);
	ASSERT_EQ(fw__slurm_filter_reserved(flt, &more), 1); /* "late" */
	ASSERT_EQ(more, 1);                        /* and late2 */
	j->exc_nodes = (char *)"gpu001";
	ASSERT_EQ(fw__slurm_filter_job(flt, j), 0);
	ASSERT_EQ(fw__slurm_filter_reserved(flt, &more), 0); /* "late2" alone */
	ASSERT_EQ(more, 0);
	j->time_limit = 10;                        /* ends before both */
	ASSERT(fw__slurm_filter_job(flt, j) != 0);
	ASSERT_EQ(fw__slurm_filter_reserved(flt, &more), -1);
	fw__slurm_filter_free(flt);
	f.h->resv = NULL;
	fake_free(&f);
}

/* A reservation to come on two nodes that the core cannot know on either
 * (each out now and back before it, after a gap: "a" holds gpu001 to
 * 3000, "b" gpu002 to 5000, "pair" both from 6600) is taken node by
 * node: a job is kept off a node of it when, run from that node's own
 * return, it would reach into it.  Before, every node of "pair" counted
 * from the latest return of any (5000), so 820 (-t 40), which fits the
 * gap on gpu001 (3000 + 2460 < 6600) but not on gpu002 (5000 + 2460 >
 * 6600), was kept off both and held.  Now it may use gpu001 alone and is
 * reserved there at its return, ending before "pair"; 821 (-t 90) reaches
 * "pair" from either return: held, naming it once though both of its
 * nodes were taken.  The bounds, from the filter itself: a limit that
 * ends at "pair"'s start from a node's return (margin included) keeps
 * the node; a minute more does not. */
TEST(each_node_of_a_reservation_counts_from_its_own_return)
{
	static int32_t both[3] = { 0, 1, -1 };
	int32_t node_of[2] = { 0, 1 }, more = -1, na, reserved820 = 0;
	struct fake f;
	reserve_info_t rv[3];
	reserve_info_msg_t rm = { .record_count = 3, .reservation_array = rv };
	struct fw__slurm_filter *flt;
	struct fw_backend_action *acts;
	struct fw_arena ar;
	slurm_job_info_t *j;
	char buf[240];

	fake_init(&f, 2, 2);
	f.h->resv = &rm;
	fake_resv(&rv[0], "a", 500, 3000, 0);
	fake_resv(&rv[1], "b", 500, 5000, 1);
	fake_resv(&rv[2], "pair", 6600, 8000, 0);
	rv[2].node_inx = both;
	rv[2].node_list = (char *)"gpu[001-002]";
	fake_pending(&f.jobs.job_array[0], 820, 4, "gres:gpu:8");
	f.jobs.job_array[0].time_limit = 40;
	fake_pending(&f.jobs.job_array[1], 821, 4, "gres:gpu:8");
	f.jobs.job_array[1].time_limit = 90;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->nodes[0].back_at, 3000);
	ASSERT_EQ(f.s->nodes[1].back_at, 5000); /* both back before "pair": a gap */
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_STR_EQ(f.s->jobs[0].name, "820");
	ASSERT_STR_EQ(filter_of(f.s, 0, buf, sizeof buf), "gpu001");
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 821);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_RESERVED);
	ASSERT_STR_EQ(f.h->orphans[0].resv, "pair");
	ASSERT_EQ(f.h->orphans[0].m, 0); /* one reservation, though two returns */
	na = plan_actions(&f, &ar, &acts);
	for (int32_t k = 0; k < na; k++) {
		ASSERT(acts[k].kind != FW_DECIDE_START); /* both nodes out now */
		if (acts[k].kind == FW_DECIDE_RESERVE && !strcmp(acts[k].job, "820")) {
			ASSERT_EQ(acts[k].at, 3000);
			ASSERT(acts[k].at + 40 * 60 + FW__RESV_MARGIN_S <= 6600);
			ASSERT_STR_EQ(acts[k].placements[0].node, "gpu001");
			reserved820++;
		}
	}
	ASSERT_EQ(reserved820, 1);
	fw_arena_release(&ar);
	ASSERT((flt = fw__slurm_filter_new(f.h, f.s, node_of)) != NULL);
	j = &f.jobs.job_array[0];
	j->time_limit = 25; /* 5000 + 1500 + 60 = 6560: ends before "pair" from either */
	ASSERT_EQ(fw__slurm_filter_job(flt, j), FW__NODES_ANY);
	j->time_limit = 26; /* 5000 + 1560 + 60 > 6600: off gpu002 */
	ASSERT_EQ(fw__slurm_filter_job(flt, j), 1);
	ASSERT_EQ(fw__slurm_filter_reserved(flt, &more), -1); /* a node left: not held */
	j->time_limit = 59; /* 3000 + 3540 + 60 = 6600: gpu001 still */
	ASSERT_EQ(fw__slurm_filter_job(flt, j), 1);
	j->time_limit = 60;
	ASSERT_EQ(fw__slurm_filter_job(flt, j), 0);
	ASSERT_EQ(fw__slurm_filter_reserved(flt, &more), 2); /* "pair" */
	ASSERT_EQ(more, 0);
	fw__slurm_filter_free(flt);
	f.h->resv = NULL;
	fake_free(&f);
}

/* The daemon's maintenance windows are Slurm reservations,
 * fairway-maint-<id> (fw_slurm_windows); the core knows a node's first
 * stay out only, so a window after a gap is the node filters' to keep, as
 * an admin's reservation is (before, the filter read the admin's alone: a
 * job that would run from the node's return into the window was planned
 * there, and fairway's reservation for it ran across the window).  The
 * job is held naming the window; one that fits the gap is reserved in it;
 * a window that is the node's first stay is the core's (away_at), no
 * filter's. */
TEST(a_maintenance_window_after_a_gap_keeps_long_jobs_off)
{
	struct fake f;
	reserve_info_t rv[2];
	reserve_info_msg_t rm = { .record_count = 2, .reservation_array = rv };
	struct fw_backend_aside a[2];
	struct fw_backend_action *acts;
	struct fw_arena ar;
	char buf[240];
	int32_t na, reserved830 = 0;

	fake_init(&f, 1, 2);
	f.h->resv = &rm;
	fake_resv(&rv[0], "fairway-maint-bios", 6600, 8000, 0);
	fake_resv(&rv[1], "first", 2000, 3000, 0);
	fake_pending(&f.jobs.job_array[0], 830, 4, "gres:gpu:8");
	f.jobs.job_array[0].time_limit = 30; /* 3000 + 1860 < 6600: the gap */
	fake_pending(&f.jobs.job_array[1], 831, 4, "gres:gpu:8");
	f.jobs.job_array[1].time_limit = 90; /* 3000 + 5460 > 6600 */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->nodes[0].away_at, 2000 - FW__RESV_MARGIN_S);
	ASSERT_EQ(f.s->nodes[0].back_at, 3000);
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 831);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_RESERVED);
	ASSERT_STR_EQ(f.h->orphans[0].resv, "fairway-maint-bios");
	ASSERT_EQ(fw_slurm_aside(f.h, a, 2), 1);
	ASSERT_STR_EQ(a[0].reason, "slurm_reservation");
	ASSERT_STR_CONTAINS(a[0].text, "every node it may use is in maintenance window bios from before its time");
	ASSERT_STR_CONTAINS(a[0].text, "(fairway reservations; in Slurm, reservation fairway-maint-bios)");
	ASSERT_STR_CONTAINS(a[0].text, "scontrol update jobid=831 timelimit=MINUTES");
	na = plan_actions(&f, &ar, &acts);
	for (int32_t k = 0; k < na; k++)
		if (acts[k].kind == FW_DECIDE_RESERVE && !strcmp(acts[k].job, "830")) {
			ASSERT_EQ(acts[k].at, 3000);
			reserved830++;
		}
	ASSERT_EQ(reserved830, 1);
	fw_arena_release(&ar);
	/* the window alone: the node's first stay, the core's */
	rm.record_count = 1;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->nodes[0].away_at, 6600 - FW__RESV_MARGIN_S);
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(filter_of(f.s, 1, buf, sizeof buf), "*");
	f.h->resv = NULL;
	fake_free(&f);
}

/* The waiting jobs the build leaves out are listed for the daemon
 * (fw_slurm_aside; GET /v1/jobs, `fairway jobs why`: before, a held job
 * was in no list and answered 404), each with a reason and what to do:
 * its user's hold and an administrator's (reason held, "scontrol release
 * ID"), an account that is no queue (not_plannable: its comment's words),
 * a --reservation job (in_reservation, naming the reservation), a job the
 * reservation filter leaves no node (slurm_reservation, naming it); a
 * planned job is not listed. */
/* The ended jobs of the managed partitions Slurm still lists (MinJobAge)
 * are listed with the nodes they ran on (Slurm's NodeList, none for one
 * cancelled while it waited), in the local backend's states, and hold
 * nothing: the snapshot has only the running jobs (one still COMPLETING on
 * its node among them), their allocations alone.  A list cut by cap or
 * by the names' room says how many there are. */
TEST(ended_jobs_are_listed_with_their_nodes_and_hold_none)
{
	struct fake f;
	struct fw_backend_ended e[4];
	char names[4][FW_NAME_MAX];
	int32_t nn = 0;

	fake_init(&f, 2, 7);
	fake_job(&f.jobs.job_array[0], 950, "gpu[001-002]", "gpu:2(IDX:0-1)", 1);
	f.jobs.job_array[0].job_state = JOB_COMPLETE;
	f.jobs.job_array[0].end_time = 900;
	fake_pending(&f.jobs.job_array[1], 951, 1, NULL);
	f.jobs.job_array[1].job_state = JOB_CANCELLED;
	fake_job(&f.jobs.job_array[2], 952, "gpu001", "gpu:2(IDX:0-1)", 1);
	f.jobs.job_array[2].job_state = JOB_TIMEOUT;
	f.jobs.job_array[2].comment = (char *)FW__ENDED "it ran 6s; its run-time limit (maxRuntime) is 5s";
	fake_job(&f.jobs.job_array[3], 953, "gpu002", "gpu:2(IDX:0-1)", 1);
	f.jobs.job_array[3].job_state = JOB_FAILED;
	f.jobs.job_array[3].exit_code = 9; /* SIGKILL */
	fake_job(&f.jobs.job_array[4], 954, "gpu001", "gpu:2(IDX:2-3)", 1);
	f.jobs.job_array[4].job_state = JOB_COMPLETE | JOB_COMPLETING; /* still on its node */
	fake_job(&f.jobs.job_array[5], 955, "gpu002", "gpu:2(IDX:4-5)", 1);
	fake_job(&f.jobs.job_array[6], 956, "gpu001", "gpu:2(IDX:0-1)", 1);
	f.jobs.job_array[6].job_state = JOB_COMPLETE;
	f.jobs.job_array[6].partition = (char *)"cpu"; /* not fairway's */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[0].name, "954");
	ASSERT_STR_EQ(f.s->jobs[1].name, "955");
	ASSERT_EQ(f.s->nallocs, 2);
	ASSERT_EQ(f.s->allocs[0].gpu_mask, 0xcu);
	ASSERT_EQ(f.s->allocs[1].gpu_mask, 0x30u);

	ASSERT_EQ(fw_slurm_ended(f.h, NULL, 0, NULL, 0, &nn), 4);
	ASSERT_EQ(nn, 4);
	ASSERT_EQ(fw_slurm_ended(f.h, e, 4, names, 4, &nn), 4);
	ASSERT_STR_EQ(e[0].job, "950");
	ASSERT_STR_EQ(e[0].state, "done");
	ASSERT_STR_EQ(e[0].queue, "team_a");
	ASSERT_EQ(e[0].gpus, 2);
	ASSERT_EQ(e[0].exit_code, 0);
	ASSERT_EQ(e[0].started, 500);
	ASSERT_EQ(e[0].ended, 900);
	ASSERT_EQ(e[0].nnodes, 2);
	ASSERT_STR_EQ(names[e[0].node_first], "gpu001");
	ASSERT_STR_EQ(names[e[0].node_first + 1], "gpu002");
	ASSERT_STR_EQ(e[0].text, "");
	ASSERT_STR_EQ(e[1].state, "cancelled"); /* while it waited: nowhere */
	ASSERT_EQ(e[1].nnodes, 0);
	ASSERT_EQ(e[1].started, 0);
	ASSERT_EQ(e[1].exit_code, -1);
	ASSERT_STR_EQ(e[2].state, "timeout");
	ASSERT_STR_EQ(e[2].reason, "time_limit"); /* fairway ended it */
	ASSERT_STR_EQ(names[e[2].node_first], "gpu001");
	ASSERT_STR_EQ(e[3].state, "failed");
	ASSERT_EQ(e[3].exit_code, -1);
	ASSERT_STR_EQ(e[3].text, "killed by signal 9 (Slurm: FAILED)");
	ASSERT_STR_EQ(names[e[3].node_first], "gpu002");
	f.jobs.job_array[2].comment = NULL; /* Slurm's own -t */
	ASSERT_EQ(fw_slurm_ended(f.h, e, 4, names, 4, &nn), 4);
	ASSERT_STR_EQ(e[2].reason, "");
	ASSERT_STR_EQ(e[2].text, "Slurm ended it at its own time limit (sbatch -t)");
	ASSERT_EQ(fw_slurm_ended(f.h, e, 1, names, 1, &nn), 4); /* cut: the names that fit */
	ASSERT_EQ(nn, 4);
	ASSERT_EQ(e[0].nnodes, 1);
	ASSERT_EQ(fw_slurm_ended(f.h, e, 1, NULL, 0, &nn), 4); /* no room for names: it still ran */
	ASSERT_EQ(e[0].nnodes, 0);
	ASSERT_EQ(e[0].started, 500);
	fake_free(&f);
}

/* slurmctld keeps thousands of ended jobs on a busy cluster (MinJobAge),
 * and the daemon asks for them twice a cycle: each job's NodeList is
 * expanded once while Slurm lists it (its id, end time and NodeList the
 * same), and the list is the same as the first; a job listed with
 * another end or NodeList (requeued, ended again) is expanded anew, and
 * the jobs Slurm no longer lists are dropped: no more kept than listed. */
TEST(ended_jobs_nodes_are_expanded_once_while_slurm_lists_them)
{
	enum { NJ = 100 };
	struct fake f;
	struct fw_backend_ended e[NJ];
	char names[3 * NJ][FW_NAME_MAX], first[3 * NJ][FW_NAME_MAX];
	char lists[NJ][24];
	int32_t nn = 0, n1 = 0;

	fake_init(&f, 2, NJ);
	for (int i = 0; i < NJ; i++) { /* past the cache's first table */
		if (i % 2)
			snprintf(lists[i], sizeof lists[i], "gpu[%03d-%03d]", i + 1, i + 2);
		else
			snprintf(lists[i], sizeof lists[i], "gpu%03d", i + 1);
		fake_job(&f.jobs.job_array[i], 1000 + (uint32_t)i, lists[i], "gpu:2(IDX:0-1)", 1);
		f.jobs.job_array[i].job_state = JOB_COMPLETE;
		f.jobs.job_array[i].end_time = 900 + i;
	}
	ASSERT_EQ(fw_slurm_ended(f.h, NULL, 0, NULL, 0, &nn), NJ); /* the counts */
	ASSERT_EQ(nn, NJ + NJ / 2);
	ASSERT_EQ(f.h->ran.expanded, NJ);
	ASSERT_EQ(f.h->ran.n, NJ);
	ASSERT_EQ(f.h->ran.filled, 0); /* the count puts nothing in words */
	ASSERT_EQ(fw_slurm_ended(f.h, e, NJ, names, 3 * NJ, &n1), NJ); /* the fill: none anew */
	ASSERT_EQ(n1, nn);
	ASSERT_EQ(f.h->ran.expanded, NJ);
	ASSERT_EQ(f.h->ran.filled, NJ); /* each record in words once */
	{ /* a second list: every record the kept one, the same to the byte */
		struct fw_backend_ended again[NJ];
		memset(again, 0xa5, sizeof again);
		ASSERT_EQ(fw_slurm_ended(f.h, again, NJ, names, 3 * NJ, &n1), NJ);
		ASSERT_EQ(f.h->ran.filled, NJ);
		ASSERT(!memcmp(again, e, sizeof again));
		f.jobs.job_array[5].exit_code = 1 << 8; /* its record changed: made anew */
		ASSERT_EQ(fw_slurm_ended(f.h, again, NJ, names, 3 * NJ, &n1), NJ);
		ASSERT_EQ(f.h->ran.filled, NJ + 1);
		ASSERT_EQ(again[5].exit_code, 1);
		ASSERT_EQ(e[5].exit_code, 0);
		f.jobs.job_array[5].exit_code = 0;
		ASSERT_EQ(fw_slurm_ended(f.h, again, NJ, names, 3 * NJ, &n1), NJ);
		ASSERT_EQ(f.h->ran.filled, NJ + 2);
		ASSERT(!memcmp(again, e, sizeof again));
	}
	ASSERT_STR_EQ(e[0].job, "1000");
	ASSERT_EQ(e[0].nnodes, 1);
	ASSERT_STR_EQ(names[e[0].node_first], "gpu001");
	ASSERT_STR_EQ(e[99].job, "1099");
	ASSERT_EQ(e[99].nnodes, 2);
	ASSERT_STR_EQ(names[e[99].node_first], "gpu100");
	ASSERT_STR_EQ(names[e[99].node_first + 1], "gpu101");
	memcpy(first, names, sizeof first);
	ASSERT_EQ(fw_slurm_ended(f.h, e, 10, names, 12, &n1), NJ); /* cut: the names that fit */
	ASSERT_EQ(n1, nn);
	ASSERT_EQ(e[7].node_first, 10);
	ASSERT_EQ(e[7].nnodes, 2);
	ASSERT_EQ(e[8].node_first, 12);
	ASSERT_EQ(e[8].nnodes, 0);
	ASSERT_EQ(e[9].node_first, 12);
	ASSERT(!memcmp(first, names, 12 * sizeof names[0]));

	f.jobs.job_array[1].end_time = 2000; /* requeued, ran, ended again */
	f.jobs.job_array[1].nodes = (char *)"gpu[050-052]";
	f.jobs.job_array[3].nodes = (char *)"gpu077"; /* the same end, another list */
	f.jobs.record_count = NJ / 2; /* the rest gone: MinJobAge */
	ASSERT_EQ(fw_slurm_ended(f.h, e, NJ, names, 3 * NJ, &n1), NJ / 2);
	ASSERT_EQ(f.h->ran.expanded, NJ + 2);
	ASSERT_EQ(f.h->ran.n, NJ / 2);
	ASSERT_EQ(e[1].nnodes, 3);
	ASSERT_STR_EQ(names[e[1].node_first + 2], "gpu052");
	ASSERT_EQ(e[3].nnodes, 1);
	ASSERT_STR_EQ(names[e[3].node_first], "gpu077");
	ASSERT_STR_EQ(names[e[4].node_first], "gpu005"); /* the others as they were */
	f.jobs.record_count = 0;
	ASSERT_EQ(fw_slurm_ended(f.h, e, NJ, names, 3 * NJ, &n1), 0);
	ASSERT_EQ(f.h->ran.n, 0);
	f.jobs.record_count = NJ; /* for fake_free */
	fake_free(&f);
}

/* slurm.conf's MinJobAge against the daemon's period (the backend's
 * ended_keep, GET /v1/health's warnings): a period no shorter than it
 * may miss a job's end, said with both figures and what to do; a
 * shorter one, MinJobAge 0 (Slurm purges none) and an unknown one say
 * nothing. */
TEST(min_job_age_no_longer_than_the_period_is_warned)
{
	char w[768];

	ASSERT(!fw_slurm_age_warning(1, 300, w, sizeof w));
	ASSERT_STR_EQ(w, "");
	ASSERT(!fw_slurm_age_warning(299.5, 300, w, sizeof w));
	ASSERT(!fw_slurm_age_warning(3600, 0, w, sizeof w)); /* 0: never purged */
	ASSERT(!fw_slurm_age_warning(3600, -1, w, sizeof w)); /* not known */
	ASSERT_STR_EQ(w, "");
	ASSERT(fw_slurm_age_warning(300, 300, w, sizeof w));
	ASSERT(strstr(w, "MinJobAge=300 s (slurm.conf)"));
	ASSERT(strstr(w, "(--period 300 s)"));
	ASSERT(strstr(w, "raise MinJobAge in slurm.conf to at least 2x the period (MinJobAge=600, then scontrol reconfigure)"));
	ASSERT(strstr(w, "lower --period to at most half of MinJobAge (150s)"));
	ASSERT(fw_slurm_age_warning(90.5, 60, w, sizeof w));
	ASSERT(strstr(w, "MinJobAge=60 s") && strstr(w, "--period 90.5 s") && strstr(w, "MinJobAge=181,"));
	ASSERT(fw_slurm_age_warning(1, 1, w, 16)); /* cut to the room */
	ASSERT_EQ(strlen(w), 15u);
}

TEST(jobs_left_out_are_listed_aside_with_their_reason)
{
	struct fake f;
	struct fw_backend_aside a[4];
	char text[256];

	fake_init(&f, 2, 5);
	for (uint32_t i = 0; i < 5; i++)
		fake_pending(&f.jobs.job_array[i], 900 + i, 1, "gres:gpu:2");
	f.jobs.job_array[0].state_reason = WAIT_HELD_USER;
	f.jobs.job_array[0].comment = (char *)FW__USER_HOLD_TEXT;
	f.jobs.job_array[1].state_reason = WAIT_HELD;
	f.jobs.job_array[1].comment = (char *)FW__USER_HOLD_TEXT;
	f.jobs.job_array[2].account = (char *)"nobody";
	f.jobs.job_array[3].resv_name = (char *)"adm";
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_STR_EQ(f.s->jobs[0].name, "904");
	ASSERT_EQ(fw_slurm_aside(f.h, NULL, 0), 4);
	ASSERT_EQ(fw_slurm_aside(f.h, a, 2), 4); /* the first 2, and how many */
	ASSERT_STR_EQ(a[1].job, "901");
	ASSERT_EQ(fw_slurm_aside(f.h, a, 4), 4);
	ASSERT_STR_EQ(a[0].job, "900");
	ASSERT_STR_EQ(a[0].reason, "held");
	ASSERT_STR_EQ(a[0].queue, "team_a");
	ASSERT_EQ(a[0].gpus, 2);
	ASSERT_EQ(a[0].submitted, 1);
	ASSERT_STR_EQ(a[0].text, "held by its user (scontrol hold, uhold or requeuehold, or sbatch --hold): fairway "
				 "does not plan it while it is held; scontrol release 900 lets fairway plan it");
	ASSERT_STR_EQ(a[1].reason, "held");
	ASSERT_STR_CONTAINS(a[1].text, "held by an administrator");
	ASSERT_STR_CONTAINS(a[1].text, "scontrol release 901 lets fairway plan it");
	ASSERT_STR_EQ(a[2].reason, "not_plannable");
	ASSERT_STR_EQ(a[2].queue, "nobody");
	ASSERT_STR_EQ(a[2].text, "account 'nobody' is no fairway queue: held (scontrol update jobid=902 account=NAME, "
				 "NAME a queue of fairway's YAML, lets it be planned)");
	ASSERT_STR_EQ(a[3].reason, "in_reservation");
	ASSERT_STR_CONTAINS(a[3].text, "asks for Slurm reservation adm (--reservation): fairway releases it into the "
				       "reservation, and Slurm, not fairway, starts it there");
	ASSERT_STR_CONTAINS(a[3].text, "scontrol show res adm ");
	/* the reservation filter's: named, in the comment and the listing */
	f.h->orphans[2].why = FW__ORPHAN_RESERVED;
	f.h->orphans[2].m = 1;
	snprintf(f.h->orphans[2].resv, sizeof f.h->orphans[2].resv, "late");
	fw__orphan_text(&f.h->orphans[2], &f.jobs.job_array[2], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: every node it may use is in reservation late or another (scontrol show res) from "
			    "before its time limit would end: held until it is over (a shorter -t may fit before)");
	ASSERT_EQ(fw_slurm_aside(f.h, a, 4), 4);
	ASSERT_STR_EQ(a[2].reason, "slurm_reservation");
	ASSERT_STR_CONTAINS(a[2].text, "every node it may use is in Slurm reservation late (and 1 more) ");
	ASSERT_STR_CONTAINS(a[2].text, "scontrol show res late");
	ASSERT_STR_CONTAINS(a[2].text, "scontrol update jobid=902 timelimit=MINUTES");
	for (int i = 0; i < 4; i++) { /* each a word GET /v1/jobs?reason= takes (backend's aside_reasons) */
		int k = 0;
		while (fw_slurm_aside_reasons[k] && strcmp(fw_slurm_aside_reasons[k], a[i].reason))
			k++;
		ASSERT(fw_slurm_aside_reasons[k] != NULL);
	}
	fake_free(&f);
}

/* The 30 s tables (QOS, budgets, usage) are asked by the daemon's fetch
 * without its lock, or by a read under it, whichever finds them due
 * first: fw__slurm_due claims a period once, so the two never both ask.
 * A budget read made apart is then taken as the read made it: a failed
 * one keeps the last (and frees its rows), FW_ENOENT (no slurmdbd) is
 * an outcome with its reason, and the note's generation moves only when
 * what was read changed. */
TEST(the_tables_period_is_claimed_once_and_a_failed_read_keeps_the_last)
{
	struct fw_slurm *h = calloc(1, sizeof *h);
	struct fw__budget_ask a;
	double next = 0;

	pthread_mutex_init(&h->mu, NULL);
	ASSERT(fw__slurm_due(h, &next, 1000, 30));
	ASSERT(!fw__slurm_due(h, &next, 1000, 30));
	ASSERT(!fw__slurm_due(h, &next, 30999, 30));
	ASSERT(fw__slurm_due(h, &next, 31000, 30));
	memset(&a, 0, sizeof a);
	a.asked = true;
	a.rc = FW_OK;
	a.n = 1;
	a.rows = calloc(1, sizeof *a.rows);
	snprintf(a.rows[0].acct, sizeof a.rows[0].acct, "team_a");
	a.rows[0].minutes = 600;
	a.rows[0].gpu_h = 10;
	fw__slurm_budget_take(h, &a);
	ASSERT(h->budget_read);
	ASSERT_EQ(h->nbudgets, 1);
	ASSERT_EQ(h->budget_gen, 1);
	ASSERT(a.rows == NULL);
	a.asked = true; /* not now: the last read stands */
	a.rc = FW_EIO;
	a.rows = calloc(1, sizeof *a.rows);
	fw__slurm_budget_take(h, &a);
	ASSERT_EQ(h->nbudgets, 1);
	ASSERT_EQ(h->budget_gen, 1);
	a.asked = true; /* the same rows again: nothing new to say */
	a.rc = FW_OK;
	a.n = 1;
	a.rows = calloc(1, sizeof *a.rows);
	a.rows[0] = h->budgets[0];
	fw__slurm_budget_take(h, &a);
	ASSERT_EQ(h->budget_gen, 1);
	a.asked = true;
	a.rc = FW_ENOENT;
	snprintf(a.why, sizeof a.why, "no slurmdbd (test)");
	fw__slurm_budget_take(h, &a);
	ASSERT_EQ(h->nbudgets, 0);
	ASSERT_EQ(h->budget_rc, FW_ENOENT);
	ASSERT_STR_EQ(h->budget_why, "no slurmdbd (test)");
	ASSERT_EQ(h->budget_gen, 2);
	fw__slurm_budget_take(h, &a); /* nothing asked: nothing taken */
	ASSERT_EQ(h->budget_gen, 2);
	free(h->budgets);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

/* The read in two halves (copy.c): the capture's shadow builds from the
 * handle's messages, pinned, into tables of its own, while a read on the
 * handle meanwhile (an API thread's, here with no queue for the jobs'
 * accounts: both waiting jobs left out) rebuilds the handle's; the
 * build's snapshot is a read's at the capture.  Its jobs left out become
 * the handle's (what apply, aside and explain use) only while the
 * handle's generation is the capture's: after a read that moved it,
 * adopt refuses (the plan is stale) and the handle keeps that read's. */
TEST(a_capture_builds_apart_and_is_adopted_only_unmoved)
{
	struct fake f;
	struct fw_slurm_copy *c;
	struct fw_snapshot *api = fw_snapshot_new();
	struct fw_backend_aside a[4];

	fake_init(&f, 2, 4);
	pthread_mutex_init(&f.h->mu, NULL);
	fake_job(&f.jobs.job_array[0], 300, "gpu001", "gpu:h100:2(IDX:0-1)", 8);
	fake_pending(&f.jobs.job_array[1], 301, 1, NULL);
	fake_pending(&f.jobs.job_array[2], 302, 1, NULL);
	f.jobs.job_array[2].account = (char *)"nobody";
	fake_pending(&f.jobs.job_array[3], 303, 1, NULL); /* held by job_submit.lua outside partitions= */
	f.jobs.job_array[3].partition = (char *)"cpu";
	f.jobs.job_array[3].comment = (char *)"fairway: queued, not planned yet";
	f.h->st.generation = f.h->read_gen = 7;
	ASSERT((c = fw__slurm_copy_of(f.h)) != NULL);
	ASSERT_EQ(f.h->pins, 1);
	api->now = 1000;
	ASSERT_OK(fw__slurm_build(f.h, api, &f.w, &f.d)); /* the API's read */
	ASSERT_EQ(api->njobs, 0);
	ASSERT_EQ(f.h->norphans, 2);
	ASSERT_OK(fw_slurm_build(c, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.w.generation, 7);
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[0].name, "300");
	ASSERT_EQ(f.s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_STR_EQ(f.s->jobs[1].name, "301");
	ASSERT_EQ(f.h->norphans, 2); /* the build wrote none of the handle's */
	ASSERT_EQ(f.h->st.stray, 1); /* the API's read found 303 */
	f.h->st.stray = f.h->st.stray_job = 0; /* as before it: the adopt brings the build's */
	f.h->st.generation = 8;      /* a read moved the world */
	ASSERT(!fw_slurm_adopt(f.h, c));
	ASSERT_EQ(fw_slurm_aside(f.h, a, 4), 2);
	ASSERT_EQ(f.h->st.stray, 0);
	f.h->st.generation = 7;
	ASSERT(fw_slurm_adopt(f.h, c));
	ASSERT_EQ(f.h->st.stray, 1); /* for fw_slurm_warn, which the daemon calls after the adopt */
	ASSERT_EQ(f.h->st.stray_job, 303u);
	ASSERT_STR_EQ(f.h->st.stray_part, "cpu");
	ASSERT_EQ(fw_slurm_aside(f.h, a, 4), 1);
	ASSERT_STR_EQ(a[0].job, "302");
	ASSERT_STR_EQ(a[0].reason, "not_plannable");
	fw_slurm_discard(c);
	ASSERT_EQ(f.h->pins, 0);
	fw_snapshot_free(api);
	fake_free(&f);
}

/* fairway's own reservation for a waiting job starts no earlier than a
 * minute after the end Slurm would give each job fairway released onto
 * its nodes and Slurm has not started, counted from now (seen in a lab:
 * a 4-node job released in the cycle that reserved one of its nodes at
 * its planned end stayed pending for ever, "ReqNodeNotAvail", as Slurm
 * started it a moment after the plan's "now" and the reservation moved
 * along with it).  Those are the released jobs of the read (not one that
 * waits on a dependency or on a limit of Slurm's, nor a running one) and
 * the starts of this batch, under the limit the start sets. */
TEST(a_reservation_starts_after_the_jobs_released_onto_its_nodes)
{
	struct fake f;
	struct fw_backend_placement on4 = { .node = "gpu004", .gpu_mask = 0xff, .gpu_milli = 1000 };
	struct fw_backend_action st = { .kind = FW_DECIDE_START, .job = "803", .nplacements = 1, .placements = &on4 };
	const time_t now = 2000;
	time_t end;

	fake_init(&f, 4, 5);
	fake_pending(&f.jobs.job_array[0], 800, 4, "gres:gpu:8");
	f.jobs.job_array[0].priority = 5; /* released onto gpu001, gpu002 */
	f.jobs.job_array[0].req_nodes = (char *)"gpu[001-002]";
	f.jobs.job_array[0].time_limit = 5;
	fake_pending(&f.jobs.job_array[1], 801, 4, "gres:gpu:8");
	f.jobs.job_array[1].priority = 5; /* released, its dependency unmet */
	f.jobs.job_array[1].req_nodes = (char *)"gpu003";
	f.jobs.job_array[1].dependency = (char *)"afterok:9";
	f.jobs.job_array[1].time_limit = 20;
	fake_pending(&f.jobs.job_array[2], 802, 4, "gres:gpu:8");
	f.jobs.job_array[2].priority = 5; /* released, Slurm holds it back */
	f.jobs.job_array[2].req_nodes = (char *)"gpu003";
	f.jobs.job_array[2].state_reason = WAIT_ASSOC_JOB_LIMIT;
	fake_job(&f.jobs.job_array[3], 804, "gpu003", "gpu:h100:8(IDX:0-7)", 4); /* runs */
	f.jobs.job_array[3].time_limit = 60;
	fake_pending(&f.jobs.job_array[4], 803, 4, "gres:gpu:8"); /* held: the batch starts it */
	f.jobs.job_array[4].time_limit = 30;
	ASSERT_OK(fw__slurm_index(f.h));
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu001", NULL, 0, now, &end), now + 300 + FW__RESV_MARGIN_S);
	ASSERT_EQ(end, now + 300);
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu[002-003]", NULL, 0, now, &end), now + 300 + FW__RESV_MARGIN_S);
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu003", NULL, 0, now, &end), 0);
	ASSERT_EQ(end, 0);
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu004", NULL, 0, now, &end), 0);
	/* this batch's start of 803 on gpu004: its own 30 min, or the 10 a
	 * run-time limit of 600 s sets */
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu004", &st, 1, now, &end), now + 1800 + FW__RESV_MARGIN_S);
	st.limit_s = 600;
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu003,gpu004", &st, 1, now, &end), now + 600 + FW__RESV_MARGIN_S);
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu001", &st, 1, now, &end), now + 300 + FW__RESV_MARGIN_S);
	/* a job without a time limit: slurmctld counts it a year */
	f.jobs.job_array[0].time_limit = INFINITE;
	ASSERT_EQ(fw__slurm_resv_not_before(f.h, "gpu002", NULL, 0, now, &end), now + 365 * 24 * 3600 + FW__RESV_MARGIN_S);
	fake_free(&f);
}

/* Slurm's own reservations, listed for the daemon (GET /v1/reservations):
 * every one but fairway's own (fairway-<job>, fairway-maint-<id>), with
 * its flags as scontrol names them, its node names and how to delete it;
 * the count goes past cap. */
TEST(slurms_own_reservations_are_listed_read_only)
{
	struct fake f;
	reserve_info_t rv[4];
	reserve_info_msg_t rm = { .record_count = 4, .reservation_array = rv };
	struct fw_backend_rsv out[2];
	char flags[16];

	fake_init(&f, 4, 0);
	f.h->resv = &rm;
	fake_resv(&rv[0], "fairway-maint-w1", 900, 5000, 0);
	fake_resv(&rv[1], "maint", 900, 5000, 0);
	rv[1].flags = RESERVE_FLAG_MAINT | RESERVE_FLAG_IGN_JOBS;
	fake_resv(&rv[2], "fairway-77", 900, 3000, 3);
	fake_resv(&rv[3], "soon", 4600, 9000, 2);
	ASSERT_EQ(fw_slurm_reservations(f.h, out, 2), 2);
	ASSERT_STR_EQ(out[0].name, "maint");
	ASSERT_STR_EQ(out[0].flags, "MAINT,IGNORE_JOBS");
	ASSERT_STR_EQ(out[0].nodes, "gpu001");
	ASSERT_STR_EQ(out[0].node_list, "gpu001");
	ASSERT_EQ(out[0].start, 900);
	ASSERT_EQ(out[0].end, 5000);
	ASSERT_STR_EQ(out[0].delete_hint, "scontrol delete reservation=maint");
	ASSERT_STR_EQ(out[1].name, "soon");
	ASSERT_STR_EQ(out[1].nodes, "gpu003");
	ASSERT_STR_EQ(out[1].flags, "");
	ASSERT_EQ(fw_slurm_reservations(f.h, out, 1), 2); /* past cap: counted */
	fw_slurm_resv_flags(RESERVE_FLAG_MAINT | RESERVE_FLAG_IGN_JOBS, flags, sizeof flags);
	ASSERT_STR_EQ(flags, "MAINT"); /* cut at a whole name */
	f.h->resv = NULL;
	fake_free(&f);
}

/* Only "fairway-" and a job's name is a job reservation of fairway's:
 * an admin's "fairway-test" is listed as Slurm's, closes its node, and
 * no apply deletes it (before, every apply's sweep deleted any
 * fairway- reservation no RESERVE named). */
TEST(an_admins_fairway_named_reservation_is_the_admins)
{
	struct fake f;
	reserve_info_t rv[3];
	reserve_info_msg_t rm = { .record_count = 3, .reservation_array = rv };
	struct fw_backend_rsv out[3];

	ASSERT(fw__slurm_job_resv("fairway-77"));
	ASSERT(fw__slurm_job_resv("fairway-900_3"));
	ASSERT(!fw__slurm_job_resv("fairway-test"));
	ASSERT(!fw__slurm_job_resv("fairway-77x"));
	ASSERT(!fw__slurm_job_resv("fairway-900_"));
	ASSERT(!fw__slurm_job_resv("fairway-"));
	ASSERT(!fw__slurm_job_resv("fairway-maint-w1"));
	ASSERT(!fw__slurm_job_resv("77"));
	fake_init(&f, 4, 0);
	f.h->resv = &rm;
	fake_resv(&rv[0], "fairway-test", 900, 5000, 1);
	fake_resv(&rv[1], "fairway-77", 900, 3000, 3);
	fake_resv(&rv[2], "fairway-maint-w1", 900, 5000, 0);
	ASSERT(fw__slurm_admin_resv(&rv[0]));
	ASSERT(!fw__slurm_admin_resv(&rv[1]));
	ASSERT(!fw__slurm_admin_resv(&rv[2]));
	ASSERT(fw__slurm_closing_resv(&rv[2]));
	ASSERT_EQ(fw_slurm_reservations(f.h, out, 3), 1);
	ASSERT_STR_EQ(out[0].name, "fairway-test");
	ASSERT_STR_EQ(out[0].nodes, "gpu002");
	f.h->resv = NULL;
	fake_free(&f);
}

/* A user's own hold (scontrol uhold): JobHeldUser, and job_submit.lua's
 * record in the Comment.  Not planned, commented so, not skipped; an
 * administrator's hold (JobHeldAdmin) is recorded the same way, and so is
 * not planned either, on top of a user's hold or not (seen in a lab:
 * root's scontrol hold of a job its user held made it run); the same
 * hold without the record (job_submit.lua's own, at submission, or
 * fairway's re-hold of a released job, "fairway: held again ...") is
 * fairway's to plan. */
TEST(a_job_its_user_holds_is_not_planned)
{
	struct fake f;
	char text[256];

	fake_init(&f, 2, 4);
	for (uint32_t i = 0; i < 4; i++) {
		fake_pending(&f.jobs.job_array[i], 800 + i, 1, "gres:gpu:1");
		f.jobs.job_array[i].state_reason = WAIT_HELD_USER;
		f.jobs.job_array[i].comment = (char *)FW__USER_HOLD_TEXT;
	}
	f.jobs.job_array[1].comment = (char *)"fairway: queued, not planned yet";
	f.jobs.job_array[2].state_reason = WAIT_HELD; /* root's hold on top */
	f.jobs.job_array[3].state_reason = WAIT_HELD;
	f.jobs.job_array[3].comment = (char *)"fairway: queued, not planned yet";
	ASSERT(fw__slurm_user_held(&f.jobs.job_array[0]) && fw__slurm_user_held(&f.jobs.job_array[2]));
	ASSERT(!fw__slurm_user_held(&f.jobs.job_array[1]) && !fw__slurm_user_held(&f.jobs.job_array[3]));
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[0].name, "801");
	ASSERT_STR_EQ(f.s->jobs[1].name, "803");
	ASSERT_EQ(f.h->norphans, 2);
	ASSERT_EQ(f.h->orphans[0].job, 800);
	ASSERT_EQ(f.h->orphans[1].job, 802);
	ASSERT_EQ(f.w.skipped_jobs, 0); /* it waits for its user; not skipped */
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_EQ(text, FW__USER_HOLD_TEXT);
	f.jobs.job_array[0].priority = 5; /* released: no longer a hold */
	ASSERT(!fw__slurm_user_held(&f.jobs.job_array[0]));
	fake_free(&f);
}

/* A user's `scontrol requeuehold` of a job fairway started: Slurm calls
 * no job_submit hook on a requeue, so the job read as fairway's own
 * eviction (pending, priority 0, JobHeldUser, restarted) and fairway
 * started it again.  fairway's own requeue rewrites the comment first
 * (FW__REQUEUED_TEXT), so a restarted held job whose comment still says
 * fairway started it is its user's: not planned, and its comment becomes
 * the hold's record; fairway's own requeue is planned again, and so is a
 * job held with the start comment that never ran (no restart). */
TEST(a_job_its_user_requeue_held_is_not_planned)
{
	struct fake f;
	char text[256];

	fake_init(&f, 2, 3);
	for (uint32_t i = 0; i < 3; i++) {
		fake_pending(&f.jobs.job_array[i], 820 + i, 1, "gres:gpu:1");
		f.jobs.job_array[i].state_reason = WAIT_HELD_USER;
		f.jobs.job_array[i].restart_cnt = 1;
		f.jobs.job_array[i].comment = (char *)FW__STARTED_MARK "gpu001";
	}
	f.jobs.job_array[1].comment = (char *)FW__REQUEUED_TEXT; /* fairway's EVICT */
	f.jobs.job_array[2].restart_cnt = 0;
	ASSERT(fw__slurm_user_held(&f.jobs.job_array[0]));
	ASSERT(!fw__slurm_user_held(&f.jobs.job_array[1]) && !fw__slurm_user_held(&f.jobs.job_array[2]));
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	ASSERT_STR_EQ(f.s->jobs[0].name, "821");
	ASSERT_STR_EQ(f.s->jobs[1].name, "822");
	ASSERT_EQ(f.h->norphans, 1);
	ASSERT_EQ(f.h->orphans[0].job, 820);
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_EQ(text, FW__USER_HOLD_TEXT); /* the record, from the next comment on */
	f.jobs.job_array[0].comment = (char *)FW__USER_HOLD_TEXT;
	ASSERT(fw__slurm_user_held(&f.jobs.job_array[0]));
	f.jobs.job_array[0].priority = 5; /* released */
	ASSERT(!fw__slurm_user_held(&f.jobs.job_array[0]));
	fake_free(&f);
}

/* A job fairway evicted is requeued, and Slurm starts a requeued job
 * again only from its begin time (EligibleTime: the requeue plus
 * AuthInfo's cred_expire, 120 s by default, slurm.conf; about two minutes
 * in the lab).  Until then it is left out of the snapshot (a start then
 * would be Slurm's to refuse), and the daemon lists it with reason
 * begin_time and a text that says it was requeued and when it may start
 * (before, the words of a --begin job: "waits for its begin time");
 * from its begin time on it is planned, and started.  A --begin job's
 * text names its begin time and how to bring it forward. */
TEST(a_requeued_job_waits_for_its_begin_time)
{
	struct fake f;
	struct fw_backend_aside a[2];
	char text[200];
	struct fw_backend_action *acts;
	struct fw_arena ar;
	int32_t na, started = 0;

	fake_init(&f, 1, 2);
	fake_pending(&f.jobs.job_array[0], 840, 4, "gres:gpu:8");
	f.jobs.job_array[0].restart_cnt = 1;
	f.jobs.job_array[0].comment = (char *)FW__REQUEUED_TEXT; /* fairway's EVICT */
	f.jobs.job_array[0].eligible_time = 1000 + 120 + 1;      /* requeued at 1000 */
	fake_pending(&f.jobs.job_array[1], 841, 4, "gres:gpu:8");
	f.jobs.job_array[1].eligible_time = 3600;                 /* --begin */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 0);
	ASSERT_EQ(f.h->norphans, 2);
	ASSERT_EQ(f.h->orphans[0].why, FW__ORPHAN_BEGIN);
	ASSERT_EQ(fw_slurm_aside(f.h, a, 2), 2);
	ASSERT_STR_EQ(a[0].job, "840");
	ASSERT_STR_EQ(a[0].reason, "begin_time");
	ASSERT_STR_CONTAINS(a[0].text, "requeued (1 time): Slurm starts a requeued job again only from its begin "
				       "time, 1970-01-01T00:19Z (EligibleTime: the requeue plus AuthInfo's cred_expire");
	ASSERT_STR_CONTAINS(a[0].text, "its expected start at the earliest");
	ASSERT_EQ(a[0].earliest, 1121); /* to the second: the API's expectedStart */
	ASSERT_STR_EQ(a[1].reason, "begin_time");
	ASSERT_STR_CONTAINS(a[1].text, "its begin time (--begin) is 1970-01-01T01:00Z: Slurm starts it only from then, "
				       "its expected start at the earliest");
	ASSERT_STR_CONTAINS(a[1].text, "scontrol update jobid=841 starttime=now");
	ASSERT_EQ(a[1].earliest, 3600);
	/* in Slurm's comment, words that tell the two apart */
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: requeued (1 time): Slurm starts it again only from its begin time, "
			    "1970-01-01T00:19Z (EligibleTime, set by the requeue): held until then");
	fw__orphan_text(&f.h->orphans[1], &f.jobs.job_array[1], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: waits for its begin time (1970-01-01T01:00Z): held until then");
	f.jobs.job_array[0].restart_cnt = 2; /* requeued again (scontrol requeue, a node failure) */
	fw__orphan_text(&f.h->orphans[0], &f.jobs.job_array[0], text, sizeof text);
	ASSERT_STR_EQ(text, "fairway: requeued (2 times): Slurm starts it again only from its begin time, "
			    "1970-01-01T00:19Z (EligibleTime, set by the requeue): held until then");
	ASSERT_EQ(fw_slurm_aside(f.h, a, 2), 2);
	ASSERT_STR_CONTAINS(a[0].text, "requeued (2 times): ");
	/* held by its user besides: the hold is the reason, and no start is
	 * known (Slurm's time passes, the hold stays) */
	uint16_t why = f.jobs.job_array[0].state_reason;
	f.jobs.job_array[0].comment = (char *)FW__USER_HOLD_TEXT;
	f.jobs.job_array[0].state_reason = WAIT_HELD_USER;
	ASSERT_EQ(fw_slurm_aside(f.h, a, 2), 2);
	ASSERT_STR_EQ(a[0].reason, "held");
	ASSERT_EQ(a[0].earliest, 0);
	f.jobs.job_array[0].comment = (char *)FW__REQUEUED_TEXT;
	f.jobs.job_array[0].state_reason = why;
	f.jobs.job_array[0].restart_cnt = 1;
	fake_renew(&f);
	f.s->now = 1121; /* its begin time: planned, and started */
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->njobs, 1);
	ASSERT_STR_EQ(f.s->jobs[0].name, "840");
	na = plan_actions(&f, &ar, &acts);
	for (int32_t k = 0; k < na; k++)
		started += acts[k].kind == FW_DECIDE_START && !strcmp(acts[k].job, "840");
	ASSERT_EQ(started, 1);
	fw_arena_release(&ar);
	fake_free(&f);
}

/* A job fairway released onto a node that was then taken out (drained,
 * down, reserved) before Slurm ran it: Slurm never runs it there
 * ("ReqNodeNotAvail"), and fairway booked it there as running, for as
 * long as the node stayed out (seen in a lab).  Now it is pending again
 * and planned anew; so is a released task of a throttled array, which
 * keeps the place its release took (seen: it counted against its own
 * %2 and was held "as many run" while nodes sat idle). */
TEST(a_job_released_onto_a_node_taken_out_is_planned_again)
{
	struct fake f;

	fake_init(&f, 2, 3);
	fake_pending(&f.jobs.job_array[0], 801, 4, "gres:gpu:2");
	f.jobs.job_array[0].priority = 5;
	f.jobs.job_array[0].req_nodes = (char *)"gpu001";
	array_task(&f, 1, 902, 0, "gpu002", "gpu:h100:4(IDX:0-3)"); /* runs */
	array_task(&f, 2, 903, 1, NULL, NULL);                      /* released onto gpu001 */
	f.jobs.job_array[2].job_state = JOB_PENDING;
	f.jobs.job_array[2].priority = 5;
	f.jobs.job_array[2].req_nodes = (char *)"gpu001";
	f.jobs.job_array[2].gres_detail_cnt = 0;
	f.jobs.job_array[1].array_max_tasks = f.jobs.job_array[2].array_max_tasks = 2;
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d)); /* gpu001 in service: both start there */
	ASSERT_EQ(f.s->njobs, 3);
	ASSERT_EQ(f.s->jobs[1].state, FW_JOB_RUNNING);
	ASSERT_EQ(f.s->jobs[2].state, FW_JOB_RUNNING);
	f.nodes.node_array[0].node_state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
	fake_renew(&f);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 3);
	ASSERT_EQ(f.h->norphans, 0);
	for (int32_t x = 0; x < f.s->njobs; x++) {
		const char *nm = f.s->jobs[x].name;
		if (!strcmp(nm, "801") || !strcmp(nm, "900_1"))
			ASSERT_EQ(f.s->jobs[x].state, FW_JOB_PENDING);
		else
			ASSERT_STR_EQ(nm, "900_0");
	}
	fake_free(&f);
}

/* Slurm may place --gpus=N unevenly: 12 over two nodes as 8 and 4.  Such
 * a running job is the queue's, a task group per GPU count (it was read
 * as foreign: its GPUs bad, counted for no queue, never evicted); one of
 * more GPU counts than a job has task groups stays foreign. */
static void fake_uneven(slurm_job_info_t *j, uint32_t id, const char *nodes, const char *tres,
			const char *const *gres, int n)
{
	fake_job(j, id, nodes, gres[0], (uint32_t)(4 * n));
	j->num_nodes = (uint32_t)n;
	j->tres_per_node = NULL;
	j->tres_per_job = (char *)tres;
	j->gres_detail_cnt = (uint32_t)n;
	j->gres_detail_str = realloc(j->gres_detail_str, (size_t)n * sizeof *j->gres_detail_str);
	for (int k = 0; k < n; k++)
		j->gres_detail_str[k] = (char *)gres[k];
}

TEST(a_job_slurm_placed_unevenly_is_its_queues)
{
	static const char *const two[] = { "gpu:h100:8(IDX:0-7)", "gpu:h100:4(IDX:0-3)" };
	static const char *const three[] = { "gpu:h100:1(IDX:0)", "gpu:h100:2(IDX:0-1)", "gpu:h100:3(IDX:0-2)" };
	static const char *const five[] = { "gpu:h100:1(IDX:0)", "gpu:h100:2(IDX:0-1)", "gpu:h100:3(IDX:0-2)",
					    "gpu:h100:4(IDX:0-3)", "gpu:h100:5(IDX:0-4)" };
	struct fake f;
	const struct fw_job *jb;

	fake_init(&f, 5, 2);
	fake_uneven(&f.jobs.job_array[0], 821, "gpu[001-002]", "gres:gpu:12", two, 2);
	fake_uneven(&f.jobs.job_array[1], 822, "gpu[003-005]", "gres:gpu:6", three, 3);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 2);
	jb = &f.s->jobs[0];
	ASSERT_STR_EQ(jb->name, "821");
	ASSERT_EQ(jb->state, FW_JOB_RUNNING);
	ASSERT_EQ(jb->ngroups, 2);
	ASSERT_EQ(jb->groups[0].gpus, 8);
	ASSERT_EQ(jb->groups[0].count, 1);
	ASSERT_EQ(jb->groups[1].gpus, 4);
	ASSERT_EQ(jb->groups[1].count, 1);
	ASSERT_EQ(f.s->allocs[jb->alloc_first + 1].group, 1);
	ASSERT_EQ(f.s->allocs[jb->alloc_first + 1].gpu_mask, 0xfu);
	jb = &f.s->jobs[1];
	ASSERT_EQ(jb->ngroups, 3);
	ASSERT_EQ(jb->groups[0].gpus + jb->groups[1].gpus + jb->groups[2].gpus, 6);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(f.s->nodes[i].bad_gpu_mask, 0u); /* none foreign */
	ASSERT_EQ(f.w.skipped_jobs, 0);
	fake_free(&f);

	/* five nodes of five GPU counts: more than FW_MAX_GROUPS, foreign */
	fake_init(&f, 5, 1);
	fake_uneven(&f.jobs.job_array[0], 823, "gpu[001-005]", "gres:gpu:15", five, 5);
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_OK(fw_snapshot_validate(f.s, &f.d));
	ASSERT_EQ(f.s->njobs, 0);
	ASSERT_EQ(f.s->nodes[4].bad_gpu_mask, 0x1fu);
	ASSERT_EQ(f.w.skipped_jobs, 1);
	fake_free(&f);
}

/* A node whose GPUs a job fairway does not schedule holds, all of them
 * (an account of no queue, or a job Slurm placed unevenly), is busy, not
 * broken: no drain.  (A rule that made every node with all GPUs in its
 * bad mask unhealthy drained such a node in the lab, gpu_forms.) */
TEST(a_node_full_of_foreign_work_is_not_drained)
{
	struct fake f;
	struct fw_backend_action *acts;
	struct fw_arena ar;
	int32_t na;

	fake_init(&f, 2, 2);
	fake_job(&f.jobs.job_array[0], 811, "gpu001", "gpu:h100:8(IDX:0-7)", 4);
	f.jobs.job_array[0].account = (char *)"nobody_queue";
	f.jobs.job_array[0].tres_per_node = (char *)"gres:gpu:8";
	fake_pending(&f.jobs.job_array[1], 812, 4, "gres:gpu:8");
	ASSERT_OK(fw__slurm_build(f.h, f.s, &f.w, &f.d));
	ASSERT_EQ(f.s->nodes[0].bad_gpu_mask, 0xffu);
	na = plan_actions(&f, &ar, &acts);
	int starts = 0;
	for (int32_t k = 0; k < na; k++) {
		ASSERT(acts[k].kind != FW_DECIDE_DRAIN);
		if (acts[k].kind == FW_DECIDE_START) {
			starts++;
			ASSERT_STR_EQ(acts[k].placements[0].node, "gpu002");
		}
	}
	ASSERT_EQ(starts, 1);
	fw_arena_release(&ar);
	fake_free(&f);
}

TEST_MAIN(a_run_time_limit_ends_a_job_and_bounds_a_start, a_node_is_back_between_two_reservations,
	  each_node_of_a_reservation_counts_from_its_own_return, a_maintenance_window_after_a_gap_keeps_long_jobs_off,
	  a_requeued_job_waits_for_its_begin_time,
	  libslurm_calls_are_serialized_one_at_a_time, the_tables_period_is_claimed_once_and_a_failed_read_keeps_the_last, a_capture_builds_apart_and_is_adopted_only_unmoved, the_reservation_filter_names_the_reservation_that_took_the_nodes, jobs_left_out_are_listed_aside_with_their_reason, a_job_its_user_requeue_held_is_not_planned, gres_counts_and_models, gres_index_masks, options, managed_partitions,
	  plan_to_actions_and_notes, a_never_fitting_job_is_told_what_to_change, action_reasons_name_nodes_and_jobs, a_snapshot_from_slurm_never_overbooks_a_node,
	  a_job_fairway_cannot_place_stops_no_cycle, every_gpu_request_form_is_gpus_per_node,
	  jobs_slurm_would_not_run_stay_held, constraint_forms, pending_jobs_start_only_on_nodes_they_accept,
	  every_job_gets_its_own_answer, an_exclusive_job_takes_whole_nodes, nodelist_jobs_start_on_exactly_their_nodes,
	  a_nodelist_changed_later_is_read_from_the_comment, no_comment_of_fairway_reads_as_a_nodelist,
	  a_note_that_reads_as_a_nodelist_is_not_written, array_task_lists,
	  an_arrays_pending_tasks_are_planned_one_by_one, an_arrays_throttle_bounds_the_tasks_offered,
	  a_partly_started_array_offers_the_rest, an_arrays_tasks_are_capped_per_cycle,
	  an_array_list_fairway_cannot_read_is_held_saying_so, a_het_jobs_components_are_one_job,
	  a_het_jobs_components_keep_their_own_nodes, a_het_job_fairway_cannot_plan_is_held_saying_so,
	  slurms_usage_replaces_the_configs, the_gpu_tres_is_gres_gpu, grp_tres_mins_on_gpus_is_a_budget,
	  slurms_budgets_yield_to_the_configs,
	  a_jobs_qos_orders_it_before_its_nice, a_job_slurm_holds_back_by_a_limit_books_no_node,
	  a_jobs_user_is_named_by_its_uid, slurm_reservations_close_their_nodes_and_admit_their_jobs,
	  a_job_released_onto_a_node_taken_out_is_planned_again, a_node_full_of_foreign_work_is_not_drained,
	  slurms_own_reservations_are_listed_read_only, a_job_its_user_holds_is_not_planned,
	  a_reservation_starts_after_the_jobs_released_onto_its_nodes, an_admins_fairway_named_reservation_is_the_admins,
	  a_job_slurm_placed_unevenly_is_its_queues, a_partition_that_starts_no_job_gets_no_job,
	  a_job_of_several_partitions_names_the_managed_one_that_holds_it, setup_warnings_are_said_once_per_change,
	  ended_jobs_are_listed_with_their_nodes_and_hold_none, ended_jobs_nodes_are_expanded_once_while_slurm_lists_them,
	  min_job_age_no_longer_than_the_period_is_warned)
