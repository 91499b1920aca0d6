/*
 * test_fleet.c — fleets and topology (sim/fleet.h, sim/topo.h): generated
 * racks and blocks, a YAML fleet file (tests/data/fleet.yaml) and its
 * refusal of workloads, other top-level keys and fleets without GPUs, openb node lists (a long
 * sn or model named with its column), topology files (level order,
 * bad rows with file:line:col), assigning hosts to nodes, and a fleet
 * generated from the hosts.
 *
 * The Lingjun topology and the openb node list come from $FAIRWAY_TRACES
 * (default ../shared/traces); without them those two tests print SKIP and
 * are not counted.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "des.h"
#include "fleet.h"
#include "harness.h"
#include "trace.h"

static const char *traces(char *buf, size_t n, const char *rel)
{
	const char *root = getenv("FAIRWAY_TRACES");

	snprintf(buf, n, "%s/%s", root && *root ? root : "../shared/traces", rel);
	return buf;
}

TEST(generated_fleet_has_blocks_and_racks)
{
	struct fw_fleet_opts o = { 10, 8, 2, 3 };
	struct fw_snapshot *s;
	struct fw_diag d;
	int32_t G;

	ASSERT_OK(fw_fleet_generate(&o, &s, &d));
	ASSERT_EQ(s->nnodes, 10);
	ASSERT_EQ(s->topology.nlevels, 2);
	ASSERT_STR_EQ(s->topology.level[0], "block");
	ASSERT_STR_EQ(s->topology.level[1], "rack");
	ASSERT_STR_EQ(s->nodes[7].name, "n007");
	ASSERT_STR_EQ(s->nodes[7].path[0], "b01"); /* rack 3 of 3 per block */
	ASSERT_STR_EQ(s->nodes[7].path[1], "r03");
	ASSERT_EQ(fw_fleet_gpus(s), 80);
	ASSERT(fw_fleet_uniform(s, &G) && G == 8);
	char shape[FW_FLEET_SHAPE_MAX];
	fw_fleet_shape(s, shape, sizeof shape);
	ASSERT_STR_EQ(shape, "10x8");
	fw_snapshot_free(s);
	o = (struct fw_fleet_opts){ 3, 4, 0, 0 };
	ASSERT_OK(fw_fleet_generate(&o, &s, &d));
	ASSERT_EQ(s->topology.nlevels, 0);
	fw_snapshot_free(s);
	o.racks_per_block = 2;
	ASSERT_EQ(fw_fleet_generate(&o, &s, &d), FW_EINVAL); /* blocks without racks */
	ASSERT_STR_CONTAINS(d.msg, "blocks need racks");
	o = (struct fw_fleet_opts){ 1, 17, 0, 0 };
	ASSERT_EQ(fw_fleet_generate(&o, &s, &d), FW_EINVAL);
}

TEST(yaml_fleet_keeps_nodes_and_topology)
{
	struct fw_snapshot *s;
	struct fw_diag d;
	int32_t G;

	ASSERT_OK(fw_fleet_load_yaml("tests/data/fleet.yaml", &s, &d));
	ASSERT_EQ(s->nnodes, 5);
	ASSERT_EQ(s->topology.nlevels, 2);
	ASSERT_STR_EQ(s->nodes[0].gpu_model, "H100");
	ASSERT_STR_EQ(s->nodes[1].gpu_model, "A100");
	ASSERT_EQ(fw_fleet_gpus(s), 24);
	ASSERT(!fw_fleet_uniform(s, &G));
	char shape[FW_FLEET_SHAPE_MAX];
	fw_fleet_shape(s, shape, sizeof shape); /* node counts per size, most GPUs first */
	ASSERT_STR_EQ(shape, "1x8+4x4");
	fw_snapshot_free(s);
}

TEST(yaml_fleet_refuses_a_workload_and_reports_yaml_errors)
{
	struct fw_snapshot *s;
	struct fw_diag d;

	ASSERT_EQ(fw_fleet_load_yaml("tests/fuzz/corpus/config/topology.yaml", &s, &d),
		  FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "valid keys here: topology, nodes, nodeGroups");
	ASSERT_NE(fw_fleet_load_yaml("tests/data/no-such-fleet.yaml", &s, &d), FW_OK);
}

/* Write text to a temporary file, load it with load (a YAML fleet or an
 * openb node list), return the code and why (without the temporary
 * file's name, which varies). */
static int load_text(int (*load)(const char *, struct fw_snapshot **, struct fw_diag *),
		     const char *text, char *why, size_t n)
{
	char path[] = "/tmp/test_fleet_XXXXXX";
	struct fw_snapshot *s = NULL;
	struct fw_diag d;
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return -1000;
	fputs(text, f);
	fclose(f);
	memset(&d, 0, sizeof d);
	rc = load(path, &s, &d);
	fw_itp_diag_str(&d, why, n);
	if (rc == FW_OK)
		fw_snapshot_free(s);
	if (strncmp(why, path, strlen(path)) == 0)
		memmove(why, why + strlen(path), strlen(why + strlen(path)) + 1);
	unlink(path);
	return rc;
}

static int fleet_text(const char *text, char *why, size_t n)
{
	return load_text(fw_fleet_load_yaml, text, why, n);
}

TEST(yaml_fleet_allows_only_topology_and_nodes)
{
	char why[512];

	/* keys the config schema knows, but a fleet does not hold */
	ASSERT_EQ(fleet_text("scheduler: {starveAfter: 1h}\nnodes:\n  - {name: a, gpus: 8}\n",
			     why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, ":1:1: scheduler: unknown key \"scheduler\"; valid keys here: "
		      "topology, nodes, nodeGroups");
	ASSERT_EQ(fleet_text("nodes:\n  - {name: a, gpus: 8}\nnow: 5\n", why, sizeof why),
		  FW_EINVAL);
	ASSERT_STR_EQ(why, ":3:1: now: unknown key \"now\"; valid keys here: "
		      "topology, nodes, nodeGroups");
	ASSERT_OK(fleet_text("nodeGroups:\n  - {namePrefix: g, count: 2, gpus: 8}\n", why,
			     sizeof why));
}

TEST(yaml_fleet_without_gpus_names_the_file)
{
	char why[512];

	ASSERT_EQ(fleet_text("nodes:\n  - {name: a, gpus: 0}\n  - {name: b, gpus: 0}\n", why,
			     sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, ": nodes: none of the fleet's 2 nodes has a GPU; give at least one "
		      "node GPUs (gpus: 1..16)");
	ASSERT_OK(fleet_text("nodes:\n  - {name: a, gpus: 0}\n  - {name: b, gpus: 8}\n", why,
			     sizeof why));
}

/* A fleet where no node can take new work (cordoned, unhealthy or
 * draining, every GPU bad) would start nothing and count its GPUs idle:
 * refused as a fleet without GPUs is, saying why each node is closed. */
TEST(yaml_fleet_without_an_open_node_names_the_file)
{
	char why[512];

	ASSERT_EQ(fleet_text("nodes:\n  - {name: a, gpus: 8, schedulable: false}\n"
			     "  - {name: b, gpus: 8, health: draining}\n  - {name: c, gpus: 2, badGpus: [0, 1]}\n",
			     why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, ": nodes: none of the fleet's 3 nodes can take work (1 with schedulable: false, 1 "
		      "unhealthy or draining, 1 with no GPU outside badGpus), so no job would ever start; make "
		      "at least one node schedulable and healthy");
	ASSERT_OK(fleet_text("nodes:\n  - {name: a, gpus: 8, schedulable: false}\n"
			     "  - {name: c, gpus: 2, badGpus: [0]}\n", why, sizeof why));
}

static int openb_text(const char *text, char *why, size_t n)
{
	return load_text(fw_fleet_from_openb, text, why, n);
}

#define L70 "aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeeeffffffffffgggggggggg"

TEST(openb_fleet_long_name_or_model_names_the_field_and_column)
{
	char why[512];

	/* the columns in another order, a byte-order mark and a blank line */
	ASSERT_EQ(openb_text("\xEF\xBB\xBFmodel,gpu,sn,cpu_milli,memory_mib\n\n"
			     "V100,8,n1,64000,262144\r\nV100,8," L70 ",64000,262144\n",
			     why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, ":4:8: sn: 'aaaaaaaaaabbbbbbbbbb...' is 70 bytes long; a node name "
		      "has at most 63 bytes");
	ASSERT_EQ(openb_text("sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,8," L70 "\n",
			     why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, ":2:19: model: 'aaaaaaaaaabbbbbbbbbb...' is 70 bytes long; a GPU model "
		      "has at most 63 bytes");
	/* a quoted field starts at its quote */
	ASSERT_EQ(openb_text("sn,cpu_milli,memory_mib,gpu,model\n\"" L70 "\",64000,262144,8,V100\n",
			     why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, ":2:1: sn: ");
	ASSERT_OK(openb_text("sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,8,V100\n", why,
			     sizeof why));
}

static int topo(const char *text, struct fw_topo *t, char *why, size_t n)
{
	struct fw_diag d;
	int rc;

	memset(&d, 0, sizeof d);
	rc = fw_topo_parse(text, strlen(text), "topo.csv", t, &d);
	fw_itp_diag_str(&d, why, n);
	return rc;
}

TEST(topo_levels_are_ordered_by_size)
{
	struct fw_topo t;
	char why[512];
	const char *text = "ip,ASW,DSW,PSW\nh1,S1,G1,P1\nh2,S2,G1,P1\nh3,S1,G1,P2\r\n\nh4,S9,G1,P2\n";

	ASSERT_OK(topo(text, &t, why, sizeof why));
	ASSERT_EQ(t.n, 4);
	ASSERT_EQ(t.levels.nlevels, 3);
	ASSERT_STR_EQ(t.levels.level[0], "dsw");
	ASSERT_STR_EQ(t.levels.level[1], "psw");
	ASSERT_STR_EQ(t.levels.level[2], "asw");
	ASSERT_STR_EQ(t.v[2].host, "h3");
	ASSERT_STR_EQ(t.v[2].path[0], "G1");
	ASSERT_STR_EQ(t.v[2].path[1], "P2");
	ASSERT_STR_EQ(t.v[2].path[2], "S1");
	ASSERT_EQ(t.v[3].line, 6);
	fw_topo_free(&t);
}

TEST(topo_bad_rows_name_line_and_column)
{
	struct fw_topo t;
	char why[512];

	ASSERT_EQ(topo("ip,A,B\nh1,x,y\nh2,x\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "topo.csv:3:4: row: has 2 fields, the header has 3; give each host one "
		      "switch per tier");
	ASSERT_EQ(topo("ip,A,B\nh1,x,y\nh2,x,\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "topo.csv:3:6: b: switch '' is empty");
	ASSERT_EQ(topo("ip\nh1\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "topo.csv:1:1: header: needs a host column");
	ASSERT_EQ(topo("ip,a,A\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "tier 'a' appears twice");
	ASSERT_EQ(topo("ip,a\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "topo.csv:1: host: no hosts; a topology file is a header (the "
			    "host's column, then one per switch tier: ip,DSW,PSW,ASW) and one line per "
			    "host (HOST,SWITCH,...)");
	/* every refusal says what to do */
	ASSERT_EQ(topo("", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "topo.csv: header: no header; a topology file is a header");
	ASSERT_EQ(topo("ip,a\nh1,x\nh1,y\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "topo.csv:3:1: host: 'h1' is already on line 2; list each host once");
	ASSERT(t.v == NULL);
	/* the first repeat in file order: h2 (lines 3, 5) before h1 (2, 6, 7) */
	ASSERT_EQ(topo("ip,a\nh1,x\nh2,x\nh3,x\nh2,y\nh1,y\nh1,z\n", &t, why, sizeof why),
		  FW_EINVAL);
	ASSERT_STR_EQ(why, "topo.csv:5:1: host: 'h2' is already on line 3; list each host once");
	ASSERT_EQ(topo("ip,a\nh1,x\nh2,x\nh1,y\nh1,z\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "topo.csv:4:1: host: 'h1' is already on line 2; list each host once");
	/* names are plain, as topo.h says: a quoted comma is refused */
	ASSERT_EQ(topo("ip,a\nh1,\"S,2\"\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "topo.csv:2:4: a: switch 'S,2' is empty, longer than 63 bytes "
			    "or not a plain name");
	ASSERT_EQ(topo("ip,a\n\"h,1\",x\n", &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "topo.csv:2:1: host:");
}

TEST(topo_hosts_are_assigned_to_nodes_in_order)
{
	struct fw_fleet_opts o = { 3, 8, 0, 0 };
	struct fw_snapshot *s, *h;
	struct fw_topo t;
	struct fw_diag d;
	char why[512];

	ASSERT_OK(topo("ip,rack\nh1,r1\nh2,r2\nh3,r2\nh4,r3\n", &t, why, sizeof why));
	ASSERT_OK(fw_fleet_generate(&o, &s, &d));
	ASSERT_OK(fw_fleet_apply_topo(s, &t, &d));
	ASSERT_EQ(s->topology.nlevels, 1);
	ASSERT_STR_EQ(s->nodes[2].path[0], "r2");
	ASSERT_OK(fw_fleet_from_topo(&t, 4, &h, &d));
	ASSERT_EQ(h->nnodes, 4);
	ASSERT_STR_EQ(h->nodes[3].name, "h0003");
	ASSERT_STR_EQ(h->nodes[3].path[0], "r3");
	ASSERT_EQ(fw_fleet_gpus(h), 16);
	fw_snapshot_free(h);
	fw_snapshot_free(s);
	o.nodes = 5;
	ASSERT_OK(fw_fleet_generate(&o, &s, &d));
	ASSERT_EQ(fw_fleet_apply_topo(s, &t, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "has 4 hosts, the fleet has 5 nodes");
	fw_snapshot_free(s);
	fw_topo_free(&t);
}


/* A trace replayed with fifo (tick 10 s) on a generated fleet, after
 * rename(fleet) when given: the result and the team table, both owned
 * here until fleet_run_free(). */
struct fleet_run {
	struct fw_sim_result r;
	struct fw_teams teams;
	struct fw_snapshot *fleet;
	struct fw_trace t;
};

static int fleet_run(struct fleet_run *x, const char *text, struct fw_fleet_opts fo,
		     void (*rename)(struct fw_snapshot *))
{
	struct fw_sim_opts o;
	struct fw_diag d;
	int rc;

	memset(x, 0, sizeof *x);
	fw_teams_builtin(&x->teams);
	if ((rc = fw_trace_parse_csv(text, strlen(text), "q.csv", 0, &x->t, &d)) != FW_OK)
		return rc;
	if ((rc = fw_fleet_generate(&fo, &x->fleet, &d)) != FW_OK)
		return rc;
	if (rename)
		rename(x->fleet);
	fw_sim_opts_default(&o);
	o.policy = "fifo";
	o.fleet = x->fleet;
	o.tick_s = 10;
	return fw_sim_run_trace(&x->t, &x->teams, &o, &x->r, &d);
}

static void fleet_run_free(struct fleet_run *x)
{
	fw_sim_result_free(&x->r);
	fw_snapshot_free(x->fleet);
	fw_trace_free(&x->t);
	free(x);
}

/* A generic trace with named queues, a team job, a fraction and a rack
 * constraint, replayed on a generated fleet with blocks and racks. */
TEST(generic_trace_replays_on_a_fleet)
{
	struct fleet_run *x = malloc(sizeof *x);
	const char *text =
		"job_id,submit_time,duration,queue,tasks,gpus_per_task,gpu_milli,topology_required\n"
		"a,0,100,alpha,2,8,,rack\nb,0,50,beta,1,1,500,\nc,0,50,beta,1,1,500,\n"
		"d,10,10,,1,8,,\ne,20,10,alpha,3,8,,rack\n";
	int64_t sum = 0;

	ASSERT(x != NULL);
	ASSERT_OK(fleet_run(x, text, (struct fw_fleet_opts){ 4, 8, 2, 1 }, NULL));
	ASSERT_EQ(x->r.nqueues, x->teams.n + 2);
	ASSERT_STR_EQ(x->r.qname[x->teams.n], "alpha");
	for (int i = 0; i < x->r.nqueues; i++)
		sum += x->r.qdeserved_milli[i];
	ASSERT_EQ(sum, 32000);
	ASSERT_EQ(x->r.start[0], 0);
	ASSERT_EQ(x->r.start[1], 0);
	ASSERT_EQ(x->r.start[2], 0); /* two halves share one GPU */
	ASSERT_EQ(x->r.start[4], -1); /* 3 x 8 GPUs never fit in one 2-node rack */
	ASSERT_EQ(x->r.never_started, 1);
	ASSERT_STR_CONTAINS(x->r.log, "\"job\":\"a\",\"queue\":\"alpha\"");
	fleet_run_free(x);
}

/* A trace job the snapshot validator refuses (built in code: the readers
 * refuse this one first) is named with its line, field and the
 * validator's words, once and whole.  Found by fuzz_sim: the message was
 * printed into itself ("job 'f': job 'f': al GPU request ...") and the
 * field came back empty. */
TEST(a_refused_trace_job_names_its_line_field_and_reason)
{
	struct fw_trace t;
	struct fw_trace_job j;
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_diag d;

	memset(&t, 0, sizeof t);
	memset(&j, 0, sizeof j);
	memset(&d, 0, sizeof d);
	snprintf(t.file, sizeof t.file, "odd.csv");
	snprintf(j.id, sizeof j.id, "f");
	j.line = 7;
	j.duration = j.expected = 60;
	j.ngroups = 1;
	j.groups[0] = (struct fw_trace_group){ 1, 2, 500, 0, 0 }; /* half of 2 GPUs */
	ASSERT_OK(fw_trace_push(&t, &j));
	fw_teams_builtin(&teams);
	fw_sim_opts_default(&o);
	ASSERT_EQ(fw_sim_run_trace(&t, &teams, &o, &r, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.file, "odd.csv");
	ASSERT_EQ(d.line, 7);
	ASSERT_STR_EQ(d.field, "jobs[0]");
	ASSERT_STR_EQ(d.msg, "job 'f': a fractional GPU request needs gpus == 1");
	fw_sim_result_free(&r); /* the caller's, whatever the return */
	fw_trace_free(&t);
}

/* A YAML fleet's node names are identifiers (config.md), as everywhere
 * the config loader reads one: file, line and field in the error. */
TEST(yaml_fleet_names_are_identifiers)
{
	char why[512];

	ASSERT_EQ(fleet_text("nodes:\n  - {name: n1, gpus: 8}\n  - {name: \"n 2\", gpus: 8}\n", why,
			     sizeof why),
		  FW_EINVAL);
	ASSERT_STR_CONTAINS(why, ":3:");
	ASSERT_STR_CONTAINS(why, "nodes[1].name");
	ASSERT_STR_CONTAINS(why, "may contain only letters, digits");
}

/* The start log (--log) writes every name as a JSON string: node names
 * that no loader lets through today (quotes, a comma, a backslash, UTF-8,
 * a control byte) still come back as written. */
static const char *const odd_names[] = { "n\"1,x", "b\\s", "n\xc5\x93ud", "t\tab" };

static void rename_odd(struct fw_snapshot *fleet)
{
	for (int i = 0; i < fleet->nnodes && i < 4; i++)
		snprintf(fleet->nodes[i].name, sizeof fleet->nodes[i].name, "%s", odd_names[i]);
}

TEST(start_log_escapes_every_name)
{
	struct fleet_run *x = malloc(sizeof *x);
	int lines = 0;

	ASSERT(x != NULL);
	ASSERT_OK(fleet_run(x, "job_id,submit_time,duration,tasks,gpus_per_task\na,0,100,4,8\n",
			    (struct fw_fleet_opts){ 4, 8, 0, 0 }, rename_odd));
	ASSERT_EQ(x->fleet->nnodes, 4);
	ASSERT_EQ(x->r.start[0], 0);
	for (char *line = x->r.log, *nl; line && *line; line = nl ? nl + 1 : NULL, lines++) {
		json_error_t e;
		json_t *row, *nodes;
		nl = strchr(line, '\n');
		row = json_loadb(line, nl ? (size_t)(nl - line) : strlen(line), 0, &e);
		ASSERT(row != NULL);
		nodes = json_object_get(row, "nodes");
		ASSERT_EQ(json_array_size(nodes), 4);
		for (size_t k = 0; k < 4; k++)
			ASSERT_STR_EQ(json_string_value(json_array_get(nodes, k)), odd_names[k]);
		json_decref(row);
	}
	ASSERT_EQ(lines, 1);
	fleet_run_free(x);
}

TEST(lingjun_topology_gives_three_levels)
{
	char path[1024];
	struct fw_topo t;
	struct fw_snapshot *s;
	struct fw_diag d;

	ASSERT_OK(fw_topo_read(traces(path, sizeof path, "alibaba-lingjun-2023-topo/topo.csv"),
			       &t, &d));
	ASSERT_EQ(t.n, 847);
	ASSERT_EQ(t.levels.nlevels, 3);
	ASSERT_STR_EQ(t.levels.level[0], "dsw");
	ASSERT_STR_EQ(t.levels.level[1], "psw");
	ASSERT_STR_EQ(t.levels.level[2], "asw");
	ASSERT_STR_EQ(t.v[0].path[1], "P10");
	ASSERT_STR_EQ(t.v[0].path[2], "S14");
	ASSERT_OK(fw_fleet_from_topo(&t, 8, &s, &d));
	ASSERT_EQ(s->nnodes, 847);
	fw_snapshot_free(s);
	fw_topo_free(&t);
}

TEST(openb_node_list_is_a_fleet)
{
	char path[1024];
	struct fw_snapshot *s;
	struct fw_diag d;

	ASSERT_OK(fw_fleet_from_openb(traces(path, sizeof path,
				      "alibaba-openb/openb_node_list_gpu_node.csv"), &s, &d));
	ASSERT_EQ(s->nnodes, 1213);
	ASSERT_EQ(fw_fleet_gpus(s), 6212);
	ASSERT_STR_EQ(s->nodes[0].name, "openb-node-0000");
	ASSERT_STR_EQ(s->nodes[0].gpu_model, "P100");
	ASSERT_EQ(s->nodes[0].cpu_milli, 64000);
	ASSERT_EQ(s->nodes[0].mem_mib, 262144);
	char shape[FW_FLEET_SHAPE_MAX];
	fw_fleet_shape(s, shape, sizeof shape);
	ASSERT_STR_EQ(shape, "617x8+54x4+518x2+24x1");
	fw_snapshot_free(s);
}

/* The most GPUs the runs of queues in `set` (a bit per queue index)
 * hold at once: every run start is where a maximum can begin. */
static int64_t peak_gpus(const struct fw_sim_result *r, uint32_t set)
{
	int64_t peak = 0;

	for (size_t i = 0; i < r->nruns; i++) {
		int64_t t = r->runs[i].start, held = 0;
		for (size_t k = 0; k < r->nruns; k++) {
			const struct fw_sim_span *x = &r->runs[k];
			bool on = x->start <= t && (x->end < 0 || x->end > t);
			if (on && (set >> r->queue[x->row] & 1u))
				held += x->gpus;
		}
		peak = held > peak ? held : peak;
	}
	return peak;
}

/* --config: a site's queue tree with its limits, run-time limit and
 * scheduler block is the replay's base; its own jobs are left out. */
TEST(config_replays_its_queue_tree_and_settings)
{
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_sim_result r;
	struct fw_sim_opts o;
	struct fw_diag d;
	int32_t jobs = -1;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	ASSERT_EQ(jobs, 1);
	ASSERT_EQ(cfg->njobs, 0);
	ASSERT_EQ(cfg->nqueues, 4);
	ASSERT_EQ(cfg->config.reserve_depth, 4);
	ASSERT_OK(fw_trace_read("tests/data/sim_config_trace.csv", FW_TRACE_FAIRWAY, 8, 0, &t, &d));
	ASSERT_OK(fw_trace_bind_config(&t, cfg, 0, &d));
	fw_sim_opts_default(&o);
	o.config = cfg;
	o.tick_s = 60;
	o.reserve_depth = cfg->config.reserve_depth;
	o.backfill_conservative = cfg->config.backfill_conservative;
	o.starve_after_s = cfg->config.starve_after_s;
	ASSERT_OK(fw_sim_run_trace(&t, NULL, &o, &r, &d));
	ASSERT_EQ(r.nqueues, 4);
	ASSERT_EQ(r.nteam, 0);
	ASSERT_STR_EQ(r.qname[2], "vision");
	ASSERT_EQ(r.qparent[2], 0);
	ASSERT_EQ(r.qparent[3], -1);
	for (size_t i = 0; i < t.n; i++) /* each job in the leaf it names */
		ASSERT_STR_EQ(r.qname[r.queue[i]], t.v[i].queue);
	int64_t vision = peak_gpus(&r, 1u << 2), research = peak_gpus(&r, 1u << 1 | 1u << 2);
	ASSERT(vision > 0 && vision <= 8);        /* vision's limit: 8 GPUs */
	ASSERT(research > 8 && research <= 24);   /* research's: 24, for both leaves */
	ASSERT(r.timed_out >= 1);                 /* product's maxRuntime: 4h */
	for (size_t i = 0; i < t.n; i++)
		if (r.cut[i] > 0)
			ASSERT_STR_EQ(t.v[i].queue, "product");
	fw_sim_result_free(&r);
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

/* A config whose now is a date (the loader then sets utc_times) replays
 * on the trace's clock: now 0, and its times written as seconds, not
 * dates (the simulator's texts feed generated docs). */
TEST(config_with_a_dated_now_replays_in_virtual_seconds)
{
	char path[] = "/tmp/test_fleet_XXXXXX";
	struct fw_snapshot *cfg = NULL;
	struct fw_diag d;
	int32_t jobs = -1;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ASSERT(f != NULL);
	fputs("now: 1796568000\nnodes: [{name: n0, gpus: 8}]\nqueues: [{name: q}]\n", f);
	fclose(f);
	memset(&d, 0, sizeof d);
	ASSERT_OK(fw_fleet_load_config(path, &cfg, &jobs, &d));
	unlink(path);
	ASSERT_EQ(cfg->now, 0);
	ASSERT(!cfg->config.utc_times);
	fw_snapshot_free(cfg);
}

/* A job naming no queue, a queue the config lacks or a parent queue is
 * refused at its line, field "queue", listing leaves; or skipped. */
TEST(config_queue_errors_name_the_line_and_the_leaves)
{
	const char *text = "job_id,submit_time,duration,queue,gpus_per_task\n"
			   "a,0,60,llm,1\nb,0,60,research,1\nc,0,60,infra,1\nd,0,60,,1\ne,0,60,product,1\n";
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_diag d;
	int32_t jobs;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	ASSERT_OK(fw_trace_parse_csv(text, strlen(text), "q.csv", 0, &t, &d));
	ASSERT_EQ(fw_trace_config_queue(&t, 0, cfg, &d), 1);
	ASSERT_EQ(fw_trace_config_queue(&t, 1, cfg, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 3);
	ASSERT_STR_EQ(d.field, "queue");
	ASSERT_STR_CONTAINS(d.msg, "'research' is a parent queue");
	ASSERT_STR_CONTAINS(d.msg, "(llm, vision, product)");
	ASSERT_EQ(fw_trace_config_queue(&t, 2, cfg, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "the config has no queue 'infra'");
	ASSERT_EQ(fw_trace_config_queue(&t, 3, cfg, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "job 'd' names no queue");
	ASSERT_EQ(fw_trace_bind_config(&t, cfg, 0, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 3);
	ASSERT_EQ(t.n, 5); /* refused: nothing dropped */
	ASSERT_OK(fw_trace_bind_config(&t, cfg, FW_TRACE_SKIP_BAD, &d));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.skipped, 3);
	ASSERT_STR_EQ(t.v[1].id, "e");
	ASSERT_EQ(t.first_bad.line, 3);
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

/* A parent with a GPU-hour budget, or a fleet beside the config, is
 * refused before the replay, naming what to change. */
TEST(config_refuses_a_parent_budget_and_a_fleet_beside_it)
{
	struct fw_snapshot *cfg;
	struct fw_diag d;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_trace t;
	int32_t jobs;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	ASSERT_OK(fw_fleet_check_config(cfg, "c.yaml", &d));
	cfg->queues[0].gpu_hour_budget = 100;
	ASSERT_EQ(fw_fleet_check_config(cfg, "c.yaml", &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "queue 'research' has a gpuHourBudget and child queues");
	cfg->queues[0].gpu_hour_budget = 0;
	fw_sim_opts_default(&o);
	o.config = cfg;
	o.fleet = cfg;
	ASSERT_EQ(fw_sim_run_trace(&t, NULL, &o, &r, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "give a config or a fleet, not both");
	o.fleet = NULL;
	o.max_runtime_s = 60;
	ASSERT_EQ(fw_sim_run_trace(&t, NULL, &o, &r, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "leave the per-queue options unset");
	fw_sim_result_free(&r);
	/* FW_TEAMS_MAX queues at most, parents included; and one at least */
	struct fw_queue q;
	fw_queue_init(&q);
	for (int i = cfg->nqueues; i < FW_TEAMS_MAX; i++) {
		snprintf(q.name, sizeof q.name, "x%d", i);
		ASSERT(fw_snapshot_add_queue(cfg, &q) >= 0);
	}
	ASSERT_OK(fw_fleet_check_config(cfg, "c.yaml", &d));
	ASSERT(fw_snapshot_add_queue(cfg, &q) >= 0);
	ASSERT_EQ(fw_fleet_check_config(cfg, "c.yaml", &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "the config has 257 queues, and the simulator replays at most 256");
	cfg->nqueues = 0;
	ASSERT_EQ(fw_fleet_check_config(cfg, "c.yaml", &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "the config has no queues");
	fw_snapshot_free(cfg);
}

/* A job over its queue's limit (llm's is research's, 24; vision's 8)
 * can never start: it is named, marked as never starting, and kept out
 * of the replay's queues; a job within it is not. */
TEST(config_jobs_over_their_queue_limit_never_start)
{
	const char *text = "job_id,submit_time,duration,queue,tasks,gpus_per_task\n"
			   "ok,0,600,llm,3,8\nbig,0,600,llm,4,8\nv,0,600,vision,2,8\nw,0,600,vision,1,8\n";
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_sim_result r;
	struct fw_sim_opts o;
	struct fw_diag d;
	bool never[4] = { false, false, false, false };
	char *msg;
	size_t mlen;
	FILE *f;
	int32_t jobs;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	ASSERT_OK(fw_trace_parse_csv(text, strlen(text), "l.csv", 0, &t, &d));
	ASSERT_OK(fw_trace_bind_config(&t, cfg, 0, &d));
	ASSERT(!fw_trace_over_limit(&t, 0, cfg));
	ASSERT(fw_trace_over_limit(&t, 1, cfg));
	ASSERT_EQ(fw_trace_over_limit_mark(&t, cfg, never), 2);
	ASSERT(!never[0] && never[1] && never[2] && !never[3]);
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_over_limit(&t, cfg, f);
	fclose(f);
	ASSERT_STR_CONTAINS(msg, "fairway: warning: 2 jobs of l.csv ask more than their queue's limit "
			    "allows (queues llm, vision; the first, 'big' (line 3) needs 32 GPUs at once, "
			    "and queue llm may hold at most 24 (the limit of research, above it))");
	free(msg);
	fw_sim_opts_default(&o);
	o.config = cfg;
	o.tick_s = 60;
	ASSERT_OK(fw_sim_run_trace(&t, NULL, &o, &r, &d));
	ASSERT(r.start[0] >= 0 && r.start[3] >= 0);
	ASSERT_EQ(r.start[1], -1);
	ASSERT_EQ(r.start[2], -1);
	ASSERT_EQ(r.never_started, 2);
	fw_sim_result_free(&r);
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

/*
 * gpuModelLimits, as the engine applies them with the queue holding
 * nothing (lib/modellimit.c): gpu-0, gpu-1 H100 and gpu-2, gpu-3 A100;
 * llm may hold 8 H100, research (over llm and vision) 8 A100, product no
 * A100.  h16 names H100 and needs 16: never.  u16 names none: both
 * models closed to llm (its own limit, its parent's): never.  p24 names
 * none: A100 closed, and the two H100 nodes hold 2 of its 3 tasks: never.
 * h8, s4 and p16 (on the H100 nodes) start.
 */
TEST(config_jobs_over_a_gpu_model_limit_never_start)
{
	const char *text = "job_id,submit_time,duration,queue,tasks,gpus_per_task,gpu_model\n"
			   "h16,0,600,llm,2,8,H100\nh8,0,600,llm,1,8,H100\nu16,0,600,llm,2,8,\n"
			   "s4,0,600,llm,1,4,\np24,0,600,product,3,8,\np16,0,600,product,2,8,\n";
	const struct fw_model_limit lim[] = { { 1, "H100", 8000 }, { 0, "A100", 8000 }, { 3, "A100", 0 } };
	bool never[6] = { false }, want[6] = { true, false, true, false, true, false };
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_sim_result r;
	struct fw_sim_opts o;
	struct fw_diag d;
	char *msg;
	size_t mlen;
	FILE *f;
	int32_t jobs;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	snprintf(cfg->nodes[2].gpu_model, sizeof cfg->nodes[2].gpu_model, "A100");
	snprintf(cfg->nodes[3].gpu_model, sizeof cfg->nodes[3].gpu_model, "A100");
	for (int i = 0; i < 3; i++)
		ASSERT(fw_snapshot_add_model_limit(cfg, &lim[i]) >= 0);
	ASSERT_OK(fw_trace_parse_csv(text, strlen(text), "m.csv", 0, &t, &d));
	ASSERT_OK(fw_trace_bind_config(&t, cfg, 0, &d));
	ASSERT_EQ(fw_trace_over_limit_mark(&t, cfg, never), 3);
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(never[i], want[i]);
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_over_limit(&t, cfg, f);
	fclose(f);
	ASSERT_STR_CONTAINS(msg, "3 jobs of m.csv ask more than their queue's limit allows (queues llm, product; "
			    "the first, 'h16' (line 2) needs 16 GPUs of model H100 at once, and queue llm may "
			    "hold at most 8, its limit (gpuModelLimits))");
	ASSERT_STR_CONTAINS(msg, "Raise the limit (gpuModelLimits, or the parent's)");
	free(msg);
	/* the reasons of the other two: each model's */
	t.v[0].gpu_model[0] = 0;
	t.v[0].groups[0].count = 3;
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_over_limit(&t, cfg, f);
	fclose(f);
	ASSERT_STR_CONTAINS(msg, "needs 24 GPUs of one model at once, and queue llm's gpuModelLimits leave it no "
			    "model that can hold it (H100: at most 8, its limit; A100: at most 8, the limit of "
			    "research, above it)");
	free(msg);
	t.v[0].groups[0].count = 2;
	snprintf(t.v[0].gpu_model, sizeof t.v[0].gpu_model, "H100");
	fw_sim_opts_default(&o);
	o.config = cfg;
	o.tick_s = 60;
	ASSERT_OK(fw_sim_run_trace(&t, NULL, &o, &r, &d));
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(r.start[i] < 0, want[i]);
	ASSERT_EQ(r.never_started, 3);
	fw_sim_result_free(&r);
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

/* A config's closed node and its badGpus stay as the file has them
 * through failures: gpu-0 (schedulable: false) fails and is repaired,
 * and stays closed; a GPU of gpu-1 (badGpus 0, 1) fails and is repaired,
 * and its bad GPUs stay bad.  Four 8-GPU jobs at 300: only gpu-2 and
 * gpu-3 take one, so two start at 300 and two when those end, at 900. */
TEST(config_closed_nodes_and_bad_gpus_stay_so_after_a_repair)
{
	const char *text = "job_id,submit_time,duration,queue,gpus_per_task\n"
			   "a,300,600,product,8\nb,300,600,product,8\nc,300,600,product,8\nd,300,600,product,8\n";
	struct fw_sim_failure fl[] = { { 10, 0, 10, 0, false }, { 20, 1, 10, 1u << 2, false } };
	struct fw_sim_scripted sc = { fl, 2, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_sim_result r;
	struct fw_sim_opts o;
	struct fw_diag d;
	int32_t jobs, at300 = 0, at900 = 0;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	cfg->nodes[0].schedulable = false;
	cfg->nodes[1].bad_gpu_mask = 0x3;
	ASSERT_OK(fw_trace_parse_csv(text, strlen(text), "c.csv", 0, &t, &d));
	ASSERT_OK(fw_trace_bind_config(&t, cfg, 0, &d));
	fw_sim_opts_default(&o);
	o.config = cfg;
	o.tick_s = 10;
	o.failures = &src;
	ASSERT_OK(fw_sim_run_trace(&t, NULL, &o, &r, &d));
	ASSERT_EQ(r.failures, 2);
	for (size_t i = 0; i < t.n; i++) {
		at300 += r.start[i] == 300;
		at900 += r.start[i] == 900;
	}
	ASSERT_EQ(at300, 2);
	ASSERT_EQ(at900, 2);
	ASSERT(!strstr(r.log, cfg->nodes[0].name) && !strstr(r.log, cfg->nodes[1].name));
	fw_sim_result_free(&r);
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

/* Capacity counts the GPUs that can run a job: closed nodes and badGpus
 * are left out; a job's model takes the fleet's spelling, case aside. */
TEST(usable_gpus_and_model_case)
{
	const char *text = "job_id,submit_time,duration,gpus_per_task,gpu_model\n"
			   "a,0,60,1,h100\nb,0,60,1,H100\nc,0,60,1,a100\n";
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_diag d;
	int32_t jobs;

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	ASSERT_EQ(fw_fleet_usable_gpus(cfg), 32);
	cfg->nodes[0].schedulable = false;
	cfg->nodes[1].bad_gpu_mask = 0x7;
	ASSERT_EQ(fw_fleet_gpus(cfg), 32);
	ASSERT_EQ(fw_fleet_usable_gpus(cfg), 21);
	ASSERT_OK(fw_trace_parse_csv(text, strlen(text), "m.csv", 0, &t, &d));
	size_t changed = 0;
	ASSERT_OK(fw_trace_model_case(&t, cfg, &changed, &d));
	ASSERT_EQ(changed, 1);
	ASSERT_STR_EQ(t.v[0].gpu_model, "H100");
	ASSERT_STR_EQ(t.v[1].gpu_model, "H100");
	ASSERT_STR_EQ(t.v[2].gpu_model, "a100");
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

/* Two fleet models that differ from a job's only by case (and from each
 * other): the core's rule takes neither, and the replay is refused at
 * the job's line with both spellings, not run on a guess (the first
 * node's, before).  One spelling alone is still taken. */
TEST(model_case_refuses_two_fleet_spellings)
{
	const char *text = "job_id,submit_time,duration,gpus_per_task,gpu_model\n"
			   "a,0,60,1,h100\nb,0,60,1,gh\n";
	struct fw_snapshot *cfg;
	struct fw_trace t;
	struct fw_diag d;
	int32_t jobs;
	size_t changed = 0;
	char why[512];

	memset(&t, 0, sizeof t);
	ASSERT_OK(fw_fleet_load_config("tests/data/sim_config.yaml", &cfg, &jobs, &d));
	snprintf(cfg->nodes[2].gpu_model, sizeof cfg->nodes[2].gpu_model, "GH");
	snprintf(cfg->nodes[3].gpu_model, sizeof cfg->nodes[3].gpu_model, "GH");
	ASSERT_OK(fw_trace_parse_csv(text, strlen(text), "m.csv", 0, &t, &d));
	ASSERT_OK(fw_trace_model_case(&t, cfg, &changed, &d));
	ASSERT_EQ(changed, 2);
	ASSERT_STR_EQ(t.v[1].gpu_model, "GH");
	snprintf(t.v[1].gpu_model, sizeof t.v[1].gpu_model, "gh");
	snprintf(cfg->nodes[3].gpu_model, sizeof cfg->nodes[3].gpu_model, "Gh");
	ASSERT_EQ(fw_trace_model_case(&t, cfg, &changed, &d), FW_EINVAL);
	fw_diag_format(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "m.csv:3: field gpu_model: job b asks GPU model \"gh\", and the fleet has both \"GH\" and "
			   "\"Gh\", which differ from it only by case: spell it exactly as the one it means (or give "
			   "those nodes one spelling)");
	ASSERT_STR_EQ(t.v[1].gpu_model, "gh");
	fw_trace_free(&t);
	fw_snapshot_free(cfg);
}

int main(void)
{
	fw_test_fn fns[] = {
		generated_fleet_has_blocks_and_racks, yaml_fleet_keeps_nodes_and_topology,
		yaml_fleet_refuses_a_workload_and_reports_yaml_errors,
		yaml_fleet_allows_only_topology_and_nodes, yaml_fleet_without_gpus_names_the_file,
		yaml_fleet_without_an_open_node_names_the_file,
		topo_levels_are_ordered_by_size, topo_bad_rows_name_line_and_column,
		topo_hosts_are_assigned_to_nodes_in_order, generic_trace_replays_on_a_fleet,
		openb_fleet_long_name_or_model_names_the_field_and_column,
		yaml_fleet_names_are_identifiers, start_log_escapes_every_name,
		a_refused_trace_job_names_its_line_field_and_reason,
		config_replays_its_queue_tree_and_settings, model_case_refuses_two_fleet_spellings,
		config_with_a_dated_now_replays_in_virtual_seconds,
		config_queue_errors_name_the_line_and_the_leaves,
		config_refuses_a_parent_budget_and_a_fleet_beside_it,
		config_jobs_over_their_queue_limit_never_start, usable_gpus_and_model_case,
		config_closed_nodes_and_bad_gpus_stay_so_after_a_repair,
		config_jobs_over_a_gpu_model_limit_never_start,
		lingjun_topology_gives_three_levels,
		openb_node_list_is_a_fleet,
	};
	const char *names = "generated_fleet_has_blocks_and_racks, yaml_fleet_keeps_nodes_and_topology, "
		"yaml_fleet_refuses_a_workload_and_reports_yaml_errors, "
		"yaml_fleet_allows_only_topology_and_nodes, yaml_fleet_without_gpus_names_the_file, "
		"yaml_fleet_without_an_open_node_names_the_file, "
		"topo_levels_are_ordered_by_size, topo_bad_rows_name_line_and_column, "
		"topo_hosts_are_assigned_to_nodes_in_order, generic_trace_replays_on_a_fleet, "
		"openb_fleet_long_name_or_model_names_the_field_and_column, "
		"yaml_fleet_names_are_identifiers, start_log_escapes_every_name, "
		"a_refused_trace_job_names_its_line_field_and_reason, "
		"config_replays_its_queue_tree_and_settings, model_case_refuses_two_fleet_spellings, "
		"config_with_a_dated_now_replays_in_virtual_seconds, "
		"config_queue_errors_name_the_line_and_the_leaves, "
		"config_refuses_a_parent_budget_and_a_fleet_beside_it, "
		"config_jobs_over_their_queue_limit_never_start, usable_gpus_and_model_case, "
		"config_closed_nodes_and_bad_gpus_stay_so_after_a_repair, "
		"config_jobs_over_a_gpu_model_limit_never_start, "
		"lingjun_topology_gives_three_levels, "
		"openb_node_list_is_a_fleet";
	int n = (int)(sizeof fns / sizeof fns[0]);
	char path[1024];

	if (access(traces(path, sizeof path, "alibaba-lingjun-2023-topo/topo.csv"), R_OK) ||
	    access(traces(path, sizeof path, "alibaba-openb/openb_node_list_gpu_node.csv"), R_OK)) {
		printf("SKIP lingjun_topology_gives_three_levels, openb_node_list_is_a_fleet: "
		       "%s not found (set FAIRWAY_TRACES)\n", path);
		n -= 2; /* the last two tests; not counted as passed */
	}
	return fw_test_main(names, fns, n);
}
