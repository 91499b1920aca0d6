/*
 * test_sim.c — the ITP reader, the team mapping and the discrete-event
 * replay (sim/itp.h, sim/teams.h, sim/des.h).
 *
 * The replay tests use a five-job trace whose start times can be checked
 * by hand (see synth below), under fifo (head-of-line blocking) and
 * fairway (skip-ahead), and pin the FNV-1a 64 hash of the decision log.
 * The cluster10.csv pin needs $FAIRWAY_TRACES (default ../shared/traces);
 * without the trace that test prints SKIP and is not counted.  Pins were
 * taken with the engine at the commit this file was written against: a
 * change in the engine's decisions changes them on purpose.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#define PIN_SYNTH_FIFO 0x96bb8cbdb4aaec3aull
#define PIN_SYNTH_FAIRWAY 0x88a89eaa2b0ed39cull
#define PIN_C10_FIFO 0x2ee017bbc86a1078ull
#define PIN_C10_FAIRWAY 0x9cf1b42eddd1e462ull /* each queue's jobs by expansion factor, 12 h cap (xfactor_cap_s) */

#include "fairway/plan.h"
#include "fairway/policy.h"
#include "harness.h"
#include "des.h"
#include "itp.h"
#include "metrics.h"
#include "synth.h"
#include "teams.h"
#include "trace.h"

/* ---- helpers ------------------------------------------------------------ */

static int parse(const char *text, unsigned flags, struct fw_itp_trace *t, char *msg, size_t n)
{
	struct fw_diag d;
	int rc;

	memset(&d, 0, sizeof d);
	rc = fw_itp_parse(text, strlen(text), "t.csv", flags, t, &d);
	if (msg) {
		msg[0] = 0;
		if (rc != FW_OK)
			fw_itp_diag_str(&d, msg, n);
	}
	return rc;
}

/* The message for a one-row trace. */
static const char *row_error(const char *row, char *msg, size_t n)
{
	char text[512];
	struct fw_itp_trace t;

	snprintf(text, sizeof text, "job_id,submission_time,duration,num_gpu\n%s\n", row);
	if (parse(text, 0, &t, msg, n) == FW_OK)
		snprintf(msg, n, "(parsed)");
	fw_itp_free(&t);
	return msg;
}

static uint64_t fnv(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/*
 * 2 nodes x 8 GPUs, tick 10 s.
 *   A  t=0    100 s   6 GPUs  starts at 0
 *   B  t=5     50 s  12 GPUs  gang 8+4; 10 GPUs free until A ends at 100
 *   C  t=6     20 s   2 GPUs  fits at 10; fifo holds it behind B until 100
 *   D  t=300   10 s  20 GPUs  larger than the cluster: never starts
 *   E  t=301   10 s   1 GPU   fairway: 310; fifo: blocked behind D forever
 */
static const char synth[] =
	"job_id,submission_time,duration,num_gpu\n"
	"A,0,100,6\n"
	"B,5,50,12\n"
	"C,6,20,2\n"
	"D,300,10,20\n"
	"E,301,10,1\n";

static void synth_opts(struct fw_sim_opts *o, const char *policy)
{
	fw_sim_opts_default(o);
	o->policy = policy;
	o->nodes = 2;
	o->gpus_per_node = 8;
	o->tick_s = 10;
	o->validate_each = true;
}

static int replay(const char *text, const struct fw_sim_opts *o, struct fw_itp_trace *t,
		  struct fw_sim_result *r)
{
	struct fw_teams teams;
	struct fw_diag d;
	int rc;

	fw_teams_builtin(&teams);
	memset(&d, 0, sizeof d);
	if ((rc = parse(text, 0, t, NULL, 0)) != FW_OK)
		return rc;
	rc = fw_sim_run(t, &teams, o, r, &d);
	if (rc != FW_OK) {
		char msg[800];
		fw_itp_diag_str(&d, msg, sizeof msg);
		fprintf(stderr, "  fw_sim_run: %s\n", msg);
	}
	return rc;
}

/* ---- the reader --------------------------------------------------------- */

TEST(itp_reads_rows_in_any_column_order)
{
	struct fw_itp_trace t;
	const char *text = "\xEF\xBB\xBFnum_gpu,job_id,extra,duration,submission_time\r\n"
			   "\r\n"
			   "8,j-1,x,3600,0\r\n"
			   "64,j-2,,10,4096"; /* no final newline */

	ASSERT_OK(parse(text, 0, &t, NULL, 0));
	ASSERT_EQ(t.n, 2);
	ASSERT_STR_EQ(t.v[0].id, "j-1");
	ASSERT_EQ(t.v[0].gpus, 8);
	ASSERT_EQ(t.v[0].duration, 3600);
	ASSERT_EQ(t.v[0].line, 3);
	ASSERT_STR_EQ(t.v[1].id, "j-2");
	ASSERT_EQ(t.v[1].submit, 4096);
	ASSERT_EQ(t.v[1].gpus, 64);
	ASSERT_EQ(t.v[1].line, 4);
	ASSERT_EQ(t.skipped, 0);
	fw_itp_free(&t);
}

TEST(itp_bad_values_name_line_column_and_reason)
{
	char m[800];
	struct fw_itp_trace t;

	ASSERT_STR_EQ(row_error("b,5,abc,1", m, sizeof m), "t.csv:2:5: duration: 'abc' is not a number; write a whole number "
		      "of seconds in decimal digits (no spaces or units), 0..1000000000000");
	ASSERT_STR_EQ(row_error("b,-5,10,1", m, sizeof m), "t.csv:2:3: submission_time: '-5' is negative; give a whole number of seconds, "
		      "0..1000000000000");
	ASSERT_STR_EQ(row_error("b,5,10,1.5", m, sizeof m), "t.csv:2:8: num_gpu: '1.5' is not a whole number; round it to a whole "
		      "number of GPUs, 1..4096");
	ASSERT_STR_EQ(row_error("b,5,10,0", m, sizeof m), "t.csv:2:8: num_gpu: '0' is out of range; give a whole number of GPUs, 1..4096");
	ASSERT_STR_EQ(row_error("b,5,99999999999999999999999,1", m, sizeof m),
		      "t.csv:2:5: duration: '99999999999999999999999' is out of range; give a whole "
		      "number of seconds, 0..1000000000000");
	ASSERT_STR_EQ(row_error("b,5, 10,1", m, sizeof m), "t.csv:2:5: duration: ' 10' is not a number; write a whole "
		      "number of seconds in decimal digits (no spaces or units), 0..1000000000000");
	ASSERT_STR_EQ(row_error("b,5,,1", m, sizeof m), "t.csv:2:5: duration: is empty; give a whole number of "
		      "seconds, 0..1000000000000");
	ASSERT_STR_EQ(row_error("b,5,10", m, sizeof m), "t.csv:2:1: row: has 3 fields, the header has 4; give each row "
		      "one field per header column (ITP fields are never quoted, so no value may hold a comma)");
	ASSERT_STR_EQ(row_error("b,5,10,1,9", m, sizeof m), "t.csv:2:10: row: has 5 fields, the header has 4; give each "
		      "row one field per header column (ITP fields are never quoted, so no value may hold a comma)");
	ASSERT_STR_EQ(row_error(",5,10,1", m, sizeof m), "t.csv:2:1: job_id: is empty; give each job an id of 1..63 "
		      "printable ASCII bytes");
	ASSERT_STR_EQ(row_error("a\"b,5,10,1", m, sizeof m),
		      "t.csv:2:2: job_id: 'a\"b' has a space, quote, backslash, control or "
		      "non-ASCII byte; ids are printable ASCII, so rename it without them");
	/* ids reach the JSON of --log: a space or a byte that is not UTF-8
	 * (a BOM in the middle of the file, Latin-1) is refused */
	ASSERT_STR_CONTAINS(row_error("a b,5,10,1", m, sizeof m), "t.csv:2:2: job_id: 'a b' has a space");
	ASSERT_STR_CONTAINS(row_error("a\xff,5,10,1", m, sizeof m), "t.csv:2:2: job_id: 'a?' has a space");
	ASSERT_STR_CONTAINS(row_error("\xEF\xBB\xBF" "a,5,10,1", m, sizeof m), "t.csv:2:1: job_id:");
	ASSERT_EQ(parse("job_id,submission_time,duration,num_gpu\nx,1,1,1\ny,1,1,1\nx,2,2,2\n",
			0, &t, m, sizeof m), FW_EINVAL);
	ASSERT_STR_EQ(m, "t.csv:4:1: job_id: 'x' already appeared on line 2; give each job its own job_id");
	ASSERT_EQ(parse("job_id,submit,duration,num_gpu\n", 0, &t, m, sizeof m), FW_EINVAL);
	ASSERT_STR_EQ(m, "t.csv:1:1: header: no column 'submission_time' (or 'submit_time'); add it: an ITP trace's header "
		      "names job_id,submission_time,duration,num_gpu (any order; docs/trace-format.md)");
	ASSERT_STR_EQ(row_error("j0123456789012345678901234567890123456789012345678901234567890123,5,10,1",
				m, sizeof m),
		      "t.csv:2:1: job_id: 'j012345678901234567890123456789012345678...' is longer than 63 bytes; "
		      "shorten it");
	ASSERT_EQ(parse("job_id,submission_time,duration,num_gpu,a,b,c,d,e,f,g,h,i,j,k,l,m\n", 0, &t, m,
			sizeof m), FW_EINVAL);
	ASSERT_STR_EQ(m, "t.csv:1:1: header: 17 columns; at most 16 are supported: remove the columns the "
		      "reader does not use (it reads job_id,submission_time,duration,num_gpu)");
	ASSERT_EQ(parse("job_id,submission_time,duration,num_gpu,num_gpu\n", 0, &t, m, sizeof m), FW_EINVAL);
	ASSERT_STR_EQ(m, "t.csv:1:41: header: column 'num_gpu' appears twice; keep one");
	ASSERT_EQ(parse("\n\n", 0, &t, m, sizeof m), FW_EINVAL);
	ASSERT_STR_EQ(m, "t.csv: header: the file is empty; an ITP trace is the header "
		      "job_id,submission_time,duration,num_gpu and a row per job (docs/trace-format.md)");
	ASSERT_EQ(t.n, 0);
	ASSERT(t.v == NULL);
}

TEST(itp_skip_bad_rows_counts_and_keeps_the_first_reason)
{
	struct fw_itp_trace t;
	char why[800];
	const char *text = "job_id,submission_time,duration,num_gpu\n"
			   "a,0,10,1\n"
			   "b,1,ten,1\n"
			   "c,2,10,2\n"
			   "d,3,10,-1\n";

	ASSERT_EQ(parse(text, 0, &t, NULL, 0), FW_EINVAL);
	ASSERT_OK(parse(text, FW_ITP_SKIP_BAD, &t, NULL, 0));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.skipped, 2);
	ASSERT_STR_EQ(t.v[1].id, "c");
	fw_itp_diag_str(&t.first_bad, why, sizeof why);
	ASSERT_STR_EQ(why, "t.csv:3:5: duration: 'ten' is not a number; write a whole number of seconds "
		      "in decimal digits (no spaces or units), 0..1000000000000");
	fw_itp_free(&t);
	/* the header is never skipped */
	ASSERT_EQ(parse("id,when\na,1\n", FW_ITP_SKIP_BAD, &t, NULL, 0), FW_EINVAL);
	/* a line of spaces is blank; a NUL byte is a bad row (a skippable one) */
	const char *odd = "job_id,submission_time,duration,num_gpu\n  \t\na,0,10,1\n";
	ASSERT_OK(parse(odd, 0, &t, NULL, 0));
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(t.v[0].line, 3);
	fw_itp_free(&t);
	const char nul[] = "job_id,submission_time,duration,num_gpu\nx\0y\na,0,10,1\n";
	struct fw_diag d;
	ASSERT_EQ(fw_itp_parse(nul, sizeof nul - 1, "t.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "t.csv:2:2: row: contains a NUL byte: this is not a text file; give the trace "
		      "as CSV text (decompress it first if it is compressed)");
	ASSERT_OK(fw_itp_parse(nul, sizeof nul - 1, "t.csv", FW_ITP_SKIP_BAD, &t, &d));
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(t.skipped, 1);
	fw_itp_free(&t);
}

TEST(itp_read_reports_a_missing_file)
{
	struct fw_itp_trace t;
	struct fw_diag d;

	ASSERT_EQ(fw_itp_read("/nonexistent/x.csv", 0, &t, &d), FW_EIO);
	ASSERT_STR_EQ(d.file, "/nonexistent/x.csv");
	ASSERT_STR_CONTAINS(d.msg, "cannot open");
}

/* ---- teams -------------------------------------------------------------- */

TEST(team_hash_is_splitmix64_over_fnv1a)
{
	ASSERT(fw_splitmix64(0) == 0xE220A8397B1DCDAFull); /* splitmix64's first output, seed 0 */
	ASSERT(fw_fnv1a64("", 0) == 0xCBF29CE484222325ull);
	ASSERT(fw_fnv1a64("a", 1) == 0xAF63DC4C8601EC8Cull);
}

TEST(team_mapping_is_deterministic_and_weighted)
{
	struct fw_teams t;
	int count[FW_TEAMS_MAX];
	char id[32];
	const int N = 200000;

	fw_teams_builtin(&t);
	ASSERT_EQ(t.n, 11);
	ASSERT_EQ(t.total, 352);
	ASSERT_STR_EQ(t.v[fw_team_of(&t, "d36ea58c-460e-000c-6306-d8ab27964133")].name, "7f04ca"); // checked in Python
	memset(count, 0, sizeof count);
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof id, "job-%d", i);
		int k = fw_team_of(&t, id);
		ASSERT(k >= 0 && k < t.n);
		ASSERT_EQ(k, fw_team_of(&t, id));
		count[k]++;
	}
	for (int k = 0; k < t.n; k++) {
		double want = (double)N * (double)t.v[k].weight / (double)t.total;
		ASSERT_NEAR(count[k], want, 0.05 * want);
	}
}

TEST(team_quotas_are_proportional_and_sum_to_the_cluster)
{
	struct fw_teams t;
	int64_t q[FW_TEAMS_MAX], sum = 0;

	fw_teams_builtin(&t);
	fw_teams_quota(&t, 80, q);
	for (int k = 0; k < t.n; k++) {
		sum += q[k];
		ASSERT_NEAR(q[k], 80000.0 * (double)t.v[k].weight / 352.0, 1.0);
	}
	ASSERT_EQ(sum, 80000);
	ASSERT_EQ(q[0], 14546); /* 64/352 of 80 GPUs = 14545.45: gets the extra milli */
}

TEST(teams_file_is_parsed_strictly_and_falls_back_when_missing)
{
	struct fw_teams t;
	struct fw_diag d;
	char note[700], m[800];
	const char *good = "vc,node num\r\nalpha,3\nbeta,1\n";

	ASSERT_OK(fw_teams_parse(good, strlen(good), "vc.csv", &t, &d));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.total, 4);
	ASSERT(!t.fallback);
	ASSERT_EQ(fw_teams_parse("vc,node num\na,x\n", 16, "vc.csv", &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, m, sizeof m);
	ASSERT_STR_EQ(m, "vc.csv:2:3: node num: expected a whole number of nodes 1..1000000");
	ASSERT_EQ(fw_teams_parse("vc,n\na,1\na,2\n", 13, "vc.csv", &t, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "appears twice");
	ASSERT_EQ(fw_teams_parse("name,n\na,1\n", 11, "vc.csv", &t, &d), FW_EINVAL);
	/* each bad row names its line, column and field */
	static const struct { const char *text, *msg; } bad[] = {
		{ "vc,n\na,1,2\n", "vc.csv:2:1: row: expected two fields: vc,node num" },
		{ "vc,n\nb,1\n,1\n", "vc.csv:3:1: vc: the name must be 1..47 bytes" },
		{ "vc,n\nteam a,1\n", "vc.csv:2:5: vc: names are printable ASCII without spaces or quotes" },
		{ "vc,n\na,0\n", "vc.csv:2:3: node num: expected a whole number of nodes 1..1000000" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_EQ(fw_teams_parse(bad[i].text, strlen(bad[i].text), "vc.csv", &t, &d), FW_EINVAL);
		fw_itp_diag_str(&d, m, sizeof m);
		ASSERT_STR_EQ(m, bad[i].msg);
	}
	char many[(FW_TEAMS_MAX + 2) * 16];
	size_t at = (size_t)snprintf(many, sizeof many, "vc,n\n");
	for (int i = 0; i <= FW_TEAMS_MAX; i++)
		at += (size_t)snprintf(many + at, sizeof many - at, "t%d,1\n", i);
	ASSERT_EQ(fw_teams_parse(many, at, "vc.csv", &t, &d), FW_EINVAL);
	ASSERT_EQ(d.line, FW_TEAMS_MAX + 2);
	ASSERT_STR_CONTAINS(d.msg, "more than");
	/* a UTF-8 byte-order mark before the header is skipped */
	const char *bom = "\xEF\xBB\xBF" "vc,node num\na,1\n";
	ASSERT_OK(fw_teams_parse(bom, strlen(bom), "vc.csv", &t, &d));
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(fw_teams_load("/nonexistent/vc.csv", &t, note, sizeof note, &d), FW_EIO);
	const char *was = getenv("FAIRWAY_TRACES");
	char saved[512], cwd[1024];
	ASSERT(getcwd(cwd, sizeof cwd) != NULL);
	snprintf(saved, sizeof saved, "%s", was ? was : "");
	ASSERT_OK(setenv("FAIRWAY_TRACES", "/nonexistent", 1));
	int rc = fw_teams_load(NULL, &t, note, sizeof note, &d);
	ASSERT_OK(was ? setenv("FAIRWAY_TRACES", saved, 1) : unsetenv("FAIRWAY_TRACES"));
	ASSERT_OK(rc);
	ASSERT(t.fallback);
	ASSERT_EQ(t.n, 11);
	ASSERT_STR_CONTAINS(note, "/nonexistent/philly-vc-config/philly_vc.csv not found (from FAIRWAY_TRACES)");
	ASSERT_STR_CONTAINS(note, "set FAIRWAY_TRACES to the traces folder that holds philly-vc-config/");
	/* unset, the default path is relative: the note says so and names the variable */
	ASSERT_OK(unsetenv("FAIRWAY_TRACES"));
	ASSERT_OK(chdir("/"));
	rc = fw_teams_load(NULL, &t, note, sizeof note, &d);
	ASSERT_OK(chdir(cwd));
	ASSERT_OK(was ? setenv("FAIRWAY_TRACES", saved, 1) : unsetenv("FAIRWAY_TRACES"));
	ASSERT_OK(rc);
	ASSERT(t.fallback);
	ASSERT_STR_CONTAINS(note, "../shared/traces/philly-vc-config/philly_vc.csv not found (FAIRWAY_TRACES "
			    "is not set: the default ../shared/traces is relative to the current directory)");
	ASSERT_STR_CONTAINS(note, "set FAIRWAY_TRACES");
}

/* ---- the replay ---------------------------------------------------------- */

static int64_t start_of(const struct fw_itp_trace *t, const struct fw_sim_result *r, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].id, id))
			return r->start[i];
	return -2;
}

TEST(des_fifo_blocks_behind_the_head_of_the_line)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;

	synth_opts(&o, "fifo");
	ASSERT_OK(replay(synth, &o, &t, &r));
	ASSERT_EQ(start_of(&t, &r, "A"), 0);
	ASSERT_EQ(start_of(&t, &r, "B"), 100);
	ASSERT_EQ(start_of(&t, &r, "C"), 100);
	ASSERT_EQ(start_of(&t, &r, "D"), -1);
	ASSERT_EQ(start_of(&t, &r, "E"), -1);
	ASSERT_EQ(r.never_started, 2);
	ASSERT_EQ(r.decisions, 3);
	ASSERT_STR_CONTAINS(r.log, "\"t\":100,\"policy\":\"fifo\",\"job\":\"B\"");
	ASSERT_STR_CONTAINS(r.log, "\"gpus\":12,\"nodes\":[\"n00");
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

TEST(des_fairway_skips_ahead)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_metrics m;

	synth_opts(&o, "fairway");
	ASSERT_OK(replay(synth, &o, &t, &r));
	ASSERT_EQ(start_of(&t, &r, "A"), 0);
	ASSERT_EQ(start_of(&t, &r, "B"), 100);
	ASSERT_EQ(start_of(&t, &r, "C"), 10);
	ASSERT_EQ(start_of(&t, &r, "D"), -1);
	ASSERT_EQ(start_of(&t, &r, "E"), 310);
	ASSERT_EQ(r.never_started, 1);
	ASSERT_OK(fw_sim_metrics(&t, &o, &r, 11, &m));
	/* waits 0, 95, 4, 9; makespan 0..320; GPU-s 600+600+40+10 */
	ASSERT_EQ(m.bucket[FW_SIM_BALL].jobs, 5);
	ASSERT_EQ(m.bucket[FW_SIM_BALL].started, 4);
	ASSERT_EQ(m.bucket[FW_SIM_BALL].tts_p50, 4);
	ASSERT_EQ(m.bucket[FW_SIM_BALL].tts_p99, 95);
	ASSERT_EQ(m.bucket[FW_SIM_B9_32].tts_p50, 95);
	ASSERT_EQ(m.bucket[FW_SIM_B33].jobs, 0);
	ASSERT_EQ(m.bucket[FW_SIM_B33].tts_p50, -1);
	ASSERT_EQ(m.makespan_s, 320);
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].jct_mean, (100 + 145 + 24 + 19) / 4.0, 1e-9);
	ASSERT_NEAR(m.occupancy, 1250.0 / (16.0 * 320.0), 1e-12);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

static uint64_t log_hash(const char *text, const char *policy, bool every, int nodes,
			 int64_t *cycles)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	uint64_t h = 0;

	synth_opts(&o, policy);
	o.nodes = nodes;
	o.tick_rule = every ? FW_SIM_ALL_TICKS : FW_SIM_EVERY_TICK;
	if (replay(text, &o, &t, &r) == FW_OK)
		h = fnv(r.log, r.log_len);
	*cycles = r.cycles;
	fw_sim_result_free(&r);
	fw_itp_free(&t);
	return h;
}

TEST(des_synthetic_log_hash_is_pinned_and_tick_skipping_changes_nothing)
{
	int64_t c1, c2;
	uint64_t fifo = log_hash(synth, "fifo", false, 2, &c1);

	ASSERT(fifo == log_hash(synth, "fifo", true, 2, &c2));
	ASSERT(c2 > c1);
	uint64_t fair = log_hash(synth, "fairway", false, 2, &c1);
	ASSERT(fair == log_hash(synth, "fairway", true, 2, &c2));
	printf("  synthetic log fnv1a64: fifo %016llx fairway %016llx\n",
	       (unsigned long long)fifo, (unsigned long long)fair);
	ASSERT(fifo == PIN_SYNTH_FIFO);
	ASSERT(fair == PIN_SYNTH_FAIRWAY);
}

TEST(des_rejects_bad_options)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_teams teams;
	struct fw_diag d;

	fw_teams_builtin(&teams);
	ASSERT_OK(parse(synth, 0, &t, NULL, 0));
	synth_opts(&o, "no-such-policy");
	ASSERT_EQ(fw_sim_run(&t, &teams, &o, &r, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "policy");
	synth_opts(&o, "fifo");
	o.gpus_per_node = 17;
	ASSERT_EQ(fw_sim_run(&t, &teams, &o, &r, &d), FW_EINVAL);
	o.gpus_per_node = 8;
	o.tick_s = 0;
	ASSERT_EQ(fw_sim_run(&t, &teams, &o, &r, &d), FW_EINVAL);
	o.tick_s = 10;
	static const double bad_budget[] = { -1, 1e9 + 1, NAN, INFINITY };
	for (size_t i = 0; i < sizeof bad_budget / sizeof bad_budget[0]; i++) {
		o.gpu_hour_budget = bad_budget[i];
		ASSERT_EQ(fw_sim_run(&t, &teams, &o, &r, &d), FW_EINVAL);
		ASSERT_STR_EQ(d.field, "gpu_hour_budget");
	}
	o.gpu_hour_budget = 0;
	o.usage_half_life_s = -1;
	ASSERT_EQ(fw_sim_run(&t, &teams, &o, &r, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "usage_half_life");
	fw_itp_free(&t);
}

static void staggered(char *text, size_t cap)
{
	size_t k = (size_t)snprintf(text, cap, "job_id,submission_time,duration,num_gpu\n");

	for (int i = 0; i < 120; i++) /* sizes 1..23, staggered arrivals */
		k += (size_t)snprintf(text + k, cap - k, "j%d,%d,%d,%d\n", i, i * 7,
				      50 + (i * 37) % 400, 1 + (i * 5) % 23);
}

/* The staggered trace under one policy on `nodes` x 8 GPUs. */
static int replay_staggered(const char *policy, int nodes, int per_rack, const struct fw_sim_hooks *h,
			    struct fw_itp_trace *t, struct fw_sim_result *r)
{
	struct fw_sim_opts o;
	char text[8192];

	staggered(text, sizeof text);
	synth_opts(&o, policy);
	o.nodes = nodes;
	o.nodes_per_rack = per_rack;
	o.hooks = h;
	return replay(text, &o, t, r);
}

TEST(des_racks_and_odd_gang_sizes_keep_every_invariant)
{
	struct fw_itp_trace t;
	struct fw_sim_result r;
	const struct fw_policy_ops *const *pol = fw_policy_list();

	for (int i = 0; pol[i]; i++) {
		ASSERT_OK(replay_staggered(pol[i]->name, 6, 2, NULL, &t, &r));
		ASSERT_EQ(r.never_started, 0);
		ASSERT_EQ(r.decisions, 120);
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
}

/* --slices 2:rack on racks of 3, 3 and 2 nodes: every policy starts every
 * job, no 4- or 6-task gang with a pair of tasks across two racks (and
 * fw_plan_check, run on every plan, holds each slice to its rack); with
 * slices off, the same gangs start, some with a pair split.  A level the
 * fleet lacks is an error naming --slices. */
TEST(des_slices_keep_each_pair_of_tasks_in_a_rack)
{
	const struct fw_policy_ops *const *pol = fw_policy_list();
	static const int sizes[] = { 8, 32, 48, 4, 16, 40 };
	char text[4096];
	size_t k = (size_t)snprintf(text, sizeof text, "job_id,submission_time,duration,num_gpu\n");
	int64_t split_off = 0;

	for (int i = 0; i < 60; i++)
		k += (size_t)snprintf(text + k, sizeof text - k, "j%d,%d,%d,%d\n", i, i * 11, 60 + (i * 37) % 300,
				      sizes[i % 6]);
	for (int i = 0; pol[i]; i++) {
		for (int off = 0; off < 2; off++) {
			struct fw_itp_trace t;
			struct fw_sim_result r;
			struct fw_sim_opts o;
			synth_opts(&o, pol[i]->name);
			o.nodes = 8;
			o.nodes_per_rack = 3;
			o.slice_tasks = 2;
			o.slices_off = off;
			strcpy(o.slice_level, "rack");
			ASSERT_OK(replay(text, &o, &t, &r));
			ASSERT_EQ(r.never_started, 0);
			ASSERT_EQ(r.slice_starts, 20); /* the 32- and 48-GPU jobs (4 and 6 tasks; 40 GPUs are 5) */
			if (!off)
				ASSERT_EQ(r.slice_split, 0);
			split_off += off ? r.slice_split : 0;
			fw_sim_result_free(&r);
			fw_itp_free(&t);
		}
	}
	ASSERT(split_off > 0);
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_opts o;
	synth_opts(&o, "fairway");
	o.nodes = 8;
	o.slice_tasks = 2;
	strcpy(o.slice_level, "rack"); /* no --racks: no rack level */
	ASSERT_EQ(replay(text, &o, &t, &r), FW_EINVAL);
	fw_sim_result_free(&r); /* what the replay set up before the error */
	fw_itp_free(&t);
}

/* Per-GPU exclusion over a whole replay: two of four nodes have bad GPUs
 * (node 0: GPU 3; node 1: all but GPU 7), set before every cycle.  No
 * started task may hold a bad GPU (checked here from each plan, and by
 * fw_plan_check), node 1 takes only one-GPU tasks on GPU 7, and node 0
 * keeps its seven good GPUs for tasks that fit them: the 23-GPU gangs
 * (8 + 8 + 7) can only start with a 7-GPU task there. */
struct bad_gpus {
	int64_t plans, tasks, on_bad, on_n1, n1_not_gpu7, seven_on_n0;
};

static const uint32_t bad_mask[4] = { 1u << 3, 0x7fu, 0, 0 };

static int set_bad_gpus(void *ctx, struct fw_sim *sim, const struct fw_snapshot *s)
{
	int32_t nn;
	struct fw_node *n = fw_sim_nodes(sim, &nn);

	(void)ctx;
	(void)s;
	for (int32_t i = 0; i < nn && i < 4; i++)
		n[i].bad_gpu_mask = bad_mask[i];
	return 0;
}

static void watch_bad_gpus(void *ctx, const struct fw_snapshot *s, const struct fw_plan *p, int64_t started)
{
	struct bad_gpus *w = ctx;

	(void)s;
	(void)started;
	w->plans++;
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		for (int32_t a = 0; dc->kind == FW_DECIDE_START && a < dc->alloc_count; a++) {
			const struct fw_task_alloc *t = &p->allocs[dc->alloc_first + a];
			w->tasks++;
			w->on_bad += (t->gpu_mask & bad_mask[t->node]) != 0;
			w->on_n1 += t->node == 1;
			w->n1_not_gpu7 += t->node == 1 && t->gpu_mask != 1u << 7;
			w->seven_on_n0 += t->node == 0 && __builtin_popcount(t->gpu_mask) == 7;
		}
	}
}

TEST(des_bad_gpus_are_never_used_and_their_nodes_keep_the_rest)
{
	struct fw_itp_trace t;
	struct fw_sim_result r;
	const struct fw_policy_ops *const *pol = fw_policy_list();

	for (int i = 0; pol[i]; i++) {
		struct bad_gpus w = { 0 };
		struct fw_sim_hooks h = { watch_bad_gpus, &w, NULL, set_bad_gpus };
		ASSERT_OK(replay_staggered(pol[i]->name, 4, 0, &h, &t, &r)); /* every plan checked, too */
		ASSERT_EQ(r.never_started, 0);
		ASSERT_EQ(r.decisions, 120);
		ASSERT(w.plans > 0 && w.tasks >= 120);
		ASSERT_EQ(w.on_bad, 0);
		ASSERT(w.on_n1 > 0);
		ASSERT_EQ(w.n1_not_gpu7, 0);
		ASSERT(w.seven_on_n0 > 0);
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
}

/* Reclaim in a replay: with every job preemptible and a 1 h protection
 * window, evictions happen, and no run ended by an eviction lasted less
 * than the window, so no job is evicted twice within it. */
TEST(des_reclaim_honours_the_protection_window_across_cycles)
{
	struct fw_itp_trace t;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_teams teams;
	struct fw_diag d;
	const int64_t W = 3600;

	ASSERT_OK(fw_synth_itp(3, 1500, &t));
	fw_teams_builtin(&teams);
	fw_sim_opts_default(&o);
	o.policy = "fairway";
	o.nodes = 13;
	o.gpus_per_node = 8;
	o.preemptible = true;
	o.min_runtime_s = W;
	memset(&d, 0, sizeof d);
	ASSERT_OK(fw_sim_run(&t, &teams, &o, &r, &d));
	printf("  %lld evictions in %zu runs\n", (long long)r.evictions, r.nruns);
	ASSERT(r.evictions > 0);
	ASSERT_EQ(r.never_started, 0);
	int64_t *last = calloc(r.njobs, sizeof *last); /* last run's start + 1 */
	ASSERT(last != NULL);
	for (size_t i = 0; i < r.nruns; i++)
		if (r.runs[i].start + 1 > last[r.runs[i].row])
			last[r.runs[i].row] = r.runs[i].start + 1;
	size_t evicted_runs = 0;
	for (size_t i = 0; i < r.nruns; i++) {
		const struct fw_sim_span *sp = &r.runs[i];
		if (sp->start + 1 == last[sp->row])
			continue; /* the run that completed */
		evicted_runs++;
		ASSERT(sp->end - sp->start >= W);
	}
	ASSERT_EQ((int64_t)evicted_runs, r.evictions);
	free(last);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* The default tick rule skips only ticks at which no cycle could start
 * anything: the log equals running a cycle at literally every tick. */
TEST(des_tick_skipping_is_exact_for_every_policy)
{
	char text[8192];
	const struct fw_policy_ops *const *pol = fw_policy_list();
	int64_t c1, c2;

	staggered(text, sizeof text);
	for (int i = 0; pol[i]; i++) {
		uint64_t every = log_hash(text, pol[i]->name, false, 3, &c1);
		uint64_t all = log_hash(text, pol[i]->name, true, 3, &c2);
		printf("  %s: %lld cycles (every tick: %lld)\n", pol[i]->name, (long long)c1,
		       (long long)c2);
		ASSERT(every != 0);
		ASSERT(every == all);
		ASSERT(c1 <= c2);
	}
}

/* With preemptible jobs a cycle may start a job by evicting others (reclaim,
 * consolidation) when no capacity is free, and whether it may depends on
 * the clock (protection windows, checkpoints): skipping ticks must still
 * change nothing. */
TEST(des_tick_skipping_is_exact_with_preemptible_jobs)
{
	const struct fw_policy_ops *const *pol = fw_policy_list();
	struct fw_itp_trace t;
	struct fw_teams teams;

	ASSERT_OK(fw_synth_itp(3, 300, &t)); /* a seed where every reclaiming policy evicts */
	fw_teams_builtin(&teams);
	for (int i = 0; pol[i]; i++) {
		uint64_t h[2];
		int64_t cycles[2], evictions = 0;
		for (int all = 0; all < 2; all++) {
			struct fw_sim_opts o;
			struct fw_sim_result r;
			struct fw_diag d;
			fw_sim_opts_default(&o);
			o.policy = pol[i]->name;
			o.nodes = 4;
			o.gpus_per_node = 8;
			o.preemptible = true;
			o.min_runtime_s = 1800;
			o.tick_rule = all ? FW_SIM_ALL_TICKS : FW_SIM_EVERY_TICK;
			memset(&d, 0, sizeof d);
			ASSERT_OK(fw_sim_run(&t, &teams, &o, &r, &d));
			h[all] = fnv(r.log, r.log_len);
			cycles[all] = r.cycles;
			evictions += r.evictions;
			fw_sim_result_free(&r);
		}
		printf("  %s: %lld cycles (every tick: %lld), %lld evictions\n", pol[i]->name,
		       (long long)cycles[0], (long long)cycles[1], (long long)evictions);
		ASSERT(h[0] == h[1]);
		ASSERT(cycles[0] <= cycles[1]);
		if (pol[i]->reclaim)
			ASSERT(evictions > 0); /* the case this test is about happened */
	}
	fw_itp_free(&t);
}

/* ---- evictions and node failures ----------------------------------------- */

static int64_t row_of_id(const struct fw_itp_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].id, id))
			return (int64_t)i;
	return -1;
}

/* ---- run-time limits ------------------------------------------------------ */

/*
 * 1 node x 8 GPUs, tick 10, fifo, every queue's limit 95 s.
 *   A  t=0   1000 s  8 GPUs  starts at 0, reaches its limit at 95: ended at
 *                            the first tick at or after it, 100 (ran 100,
 *                            900 s of its work cut)
 *   B  t=5     50 s  8 GPUs  starts at 100 on A's GPUs, in the same cycle;
 *                            shorter than the limit: completes at 150
 *   C  t=20    95 s  8 GPUs  150..245: its work ends as its limit does, and
 *                            the completion (drained first) wins
 *   D  t=30    98 s  4 GPUs  250..348: past its limit at 345, but its work
 *                            ends before the tick (350) that would end it
 * Without the limit: A 0..1000, B 1000..1050, C 1050..1145, D 1150..1248.
 * Under fifo no tick between 30 and 1000 has an arrival or completion and
 * nothing fits, so A's end at 100 is the limit's own wake-up.
 */
static const char limits_trace[] =
	"job_id,submission_time,duration,num_gpu\n"
	"A,0,1000,8\n"
	"B,5,50,8\n"
	"C,20,95,8\n"
	"D,30,98,4\n";

static void limits_opts(struct fw_sim_opts *o, int64_t limit)
{
	synth_opts(o, "fifo");
	o->nodes = 1;
	o->max_runtime_s = limit;
}

TEST(des_run_time_limit_ends_a_job_at_the_first_tick_past_it)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_metrics m;

	limits_opts(&o, 95);
	ASSERT_OK(replay(limits_trace, &o, &t, &r));
	int64_t a = row_of_id(&t, "A"), b = row_of_id(&t, "B"), c = row_of_id(&t, "C"), d = row_of_id(&t, "D");
	ASSERT_EQ(r.start[a], 0);
	ASSERT_EQ(r.end[a], 100);
	ASSERT_EQ(r.cut[a], 900);
	ASSERT_EQ(r.start[b], 100); /* on A's GPUs, in the cycle that ended A */
	ASSERT_STR_CONTAINS(r.log, "{\"t\":100,\"policy\":\"fifo\",\"job\":\"B\"");
	ASSERT_EQ(r.end[b], 150);
	ASSERT_EQ(r.start[c], 150);
	ASSERT_EQ(r.end[c], 245);
	ASSERT_EQ(r.start[d], 250);
	ASSERT_EQ(r.end[d], 348);
	ASSERT_EQ(r.cut[b] + r.cut[c] + r.cut[d], 0);
	ASSERT_EQ(r.timed_out, 1);
	ASSERT_NEAR(r.timed_out_gpu_s, 8.0 * 100, 1e-9);
	ASSERT_NEAR(r.cut_gpu_s, 8.0 * 900, 1e-9);
	/* ended, not evicted: never pending again, one run each */
	ASSERT_EQ(r.evictions, 0);
	ASSERT_EQ(r.evicted[a], 0);
	ASSERT_EQ(r.decisions, 4);
	ASSERT_EQ((int64_t)r.nruns, 4);
	ASSERT_EQ(r.runs[0].row, a);
	ASSERT_EQ(r.runs[0].end, 100);
	/* A counts as ended at 100: JCTs 100, 145, 225, 318; work done
	 * 8 x 100 + 8 x 50 + 8 x 95 + 4 x 98 GPU-s over 0..348 */
	ASSERT_OK(fw_sim_metrics(&t, &o, &r, r.nqueues, &m));
	ASSERT_EQ(m.bucket[FW_SIM_BALL].started, 4);
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].jct_mean, (100 + 145 + 225 + 318) / 4.0, 1e-9);
	ASSERT_EQ(m.makespan_s, 348);
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].gpu_s, 2352, 1e-9);
	ASSERT_NEAR(m.occupancy, 2352.0 / (8.0 * 348), 1e-12);
	fw_sim_result_free(&r);
	fw_itp_free(&t);

	/* the same trace without a limit: nothing ends early */
	limits_opts(&o, 0);
	ASSERT_OK(replay(limits_trace, &o, &t, &r));
	ASSERT_EQ(r.end[a], 1000);
	ASSERT_EQ(r.start[b], 1000);
	ASSERT_EQ(r.start[d], 1150);
	ASSERT_EQ(r.end[d], 1248);
	ASSERT_EQ(r.timed_out, 0);
	ASSERT_EQ(r.cut[a], 0);
	ASSERT_NEAR(r.cut_gpu_s, 0, 1e-12);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* A limit wakes a cycle with nothing waiting (no tick rule would run
 * one), and a job evicted for another reason keeps no stale wake-up. */
TEST(des_run_time_limit_wakes_a_cycle_with_nothing_waiting)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;

	for (int rule = 0; rule < 3; rule++) {
		limits_opts(&o, 95);
		o.tick_rule = (enum fw_sim_tick_rule)rule;
		ASSERT_OK(replay("job_id,submission_time,duration,num_gpu\nX,3,1000,2\n", &o, &t, &r));
		ASSERT_EQ(r.start[0], 10);
		ASSERT_EQ(r.end[0], 110);
		ASSERT_EQ(r.cut[0], 900);
		ASSERT_EQ(r.cycles, 2); /* the start, the end */
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
}

/* A limit that never binds (every job is shorter) changes nothing: the
 * pinned logs of the five-job trace. */
TEST(des_run_time_limit_longer_than_every_job_keeps_the_pinned_logs)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	static const char *const pol[] = { "fifo", "fairway" };
	static const uint64_t pin[] = { PIN_SYNTH_FIFO, PIN_SYNTH_FAIRWAY };

	for (int i = 0; i < 2; i++) {
		synth_opts(&o, pol[i]);
		o.max_runtime_s = 100; /* A's duration: it completes */
		ASSERT_OK(replay(synth, &o, &t, &r));
		ASSERT(fnv(r.log, r.log_len) == pin[i]);
		ASSERT_EQ(r.timed_out, 0);
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
}

/*
 * A job's own limit (the trace's max_runtime, fw_job.max_runtime_s): 1
 * node x 8 GPUs, tick 10, fifo, no queue limit.
 *   A  t=0  1000 s  4 GPUs  its own limit 100 s: ended at 100, exactly its
 *                           limit (a tick), 900 s of its work cut
 *   B  t=0  1000 s  4 GPUs  no limit of its own: runs its full 1000 s
 * Nothing waits after 0, so only the limits heap can wake the cycle at
 * 100 that ends A (under every tick rule): 2 cycles, the start and the
 * end.  With every queue's limit 200 s too, each job's limit is the
 * smaller one (fw_job_limit): A still ends at 100, B now at 200.
 */
static const char own_limit_trace[] =
	"job_id,submit_time,duration,gpus_per_task,max_runtime\n"
	"A,0,1000,4,100\n"
	"B,0,1000,4,\n";

static int replay_generic(const char *text, const struct fw_sim_opts *o, struct fw_trace *t,
			  struct fw_sim_result *r)
{
	struct fw_teams teams;
	struct fw_diag d;
	int rc;

	fw_teams_builtin(&teams);
	memset(&d, 0, sizeof d);
	memset(r, 0, sizeof *r);
	if ((rc = fw_trace_parse_csv(text, strlen(text), "own.csv", 0, t, &d)) != FW_OK)
		return rc;
	return fw_sim_run_trace(t, &teams, o, r, &d);
}

TEST(des_a_jobs_own_limit_ends_it_and_spares_its_neighbour)
{
	struct fw_sim_opts o;
	struct fw_trace t;
	struct fw_sim_result r;

	for (int rule = 0; rule < 3; rule++) {
		limits_opts(&o, 0);
		o.tick_rule = (enum fw_sim_tick_rule)rule;
		ASSERT_OK(replay_generic(own_limit_trace, &o, &t, &r));
		ASSERT_EQ(t.v[0].max_runtime, 100);
		ASSERT_EQ(t.v[1].max_runtime, 0);
		ASSERT_EQ(r.start[0], 0);
		ASSERT_EQ(r.start[1], 0);
		ASSERT_EQ(r.end[0], 100);   /* start + its own limit */
		ASSERT_EQ(r.cut[0], 900);
		ASSERT_EQ(r.end[1], 1000);  /* its full duration */
		ASSERT_EQ(r.cut[1], 0);
		ASSERT_EQ(r.timed_out, 1);
		ASSERT_NEAR(r.timed_out_gpu_s, 4.0 * 100, 1e-9);
		ASSERT_NEAR(r.cut_gpu_s, 4.0 * 900, 1e-9);
		ASSERT_EQ(r.evictions, 0);
		ASSERT_EQ(r.cycles, 2);     /* the start, and the limit's wake-up */
		ASSERT_EQ(r.max_runtime_s, 0);
		ASSERT_EQ(r.job_limits, 1);
		fw_sim_result_free(&r);
		fw_trace_free(&t);
	}
	/* the queues' limit 200 s as well: the smaller limit of each job */
	limits_opts(&o, 200);
	ASSERT_OK(replay_generic(own_limit_trace, &o, &t, &r));
	ASSERT_EQ(r.end[0], 100);
	ASSERT_EQ(r.end[1], 200);
	ASSERT_EQ(r.cut[1], 800);
	ASSERT_EQ(r.timed_out, 2);
	ASSERT_EQ(r.max_runtime_s, 200);
	fw_sim_result_free(&r);
	fw_trace_free(&t);
	/* a limit of its own at or past its duration never binds */
	limits_opts(&o, 0);
	ASSERT_OK(replay_generic("job_id,submit_time,duration,gpus_per_task,max_runtime\n"
				 "A,0,1000,4,1000\nB,0,1000,4,2147483647\n", &o, &t, &r));
	ASSERT_EQ(r.end[0], 1000);
	ASSERT_EQ(r.end[1], 1000);
	ASSERT_EQ(r.timed_out, 0);
	ASSERT_EQ(r.job_limits, 2);
	fw_sim_result_free(&r);
	fw_trace_free(&t);
}

/* Tick skipping stays exact with limits: for every policy the start log
 * and every job's end equal a cycle at literally every tick, on the
 * staggered trace (50..449 s jobs, limit 200 s) and on a preemptible
 * synthetic one (limit 4 h, evictions and limits together). */
static void limit_run(const struct fw_itp_trace *t, const struct fw_sim_opts *o, uint64_t *h,
		      int64_t *timed_out, int64_t *ends)
{
	struct fw_teams teams;
	struct fw_sim_result r;
	struct fw_diag d;

	fw_teams_builtin(&teams);
	memset(&d, 0, sizeof d);
	*h = 0;
	if (fw_sim_run(t, &teams, o, &r, &d) != FW_OK)
		return;
	*h = fnv(r.log, r.log_len);
	*timed_out = r.timed_out;
	for (size_t i = 0; i < t->n; i++)
		ends[i] = r.end[i];
	fw_sim_result_free(&r);
}

TEST(des_tick_skipping_is_exact_with_run_time_limits)
{
	const struct fw_policy_ops *const *pol = fw_policy_list();
	struct fw_itp_trace st, sy;
	char text[8192];

	staggered(text, sizeof text);
	ASSERT_OK(parse(text, 0, &st, NULL, 0));
	ASSERT_OK(fw_synth_itp(3, 300, &sy));
	int64_t *ends = calloc(2 * (st.n + sy.n), sizeof *ends);
	ASSERT(ends != NULL);
	for (int i = 0; pol[i]; i++) {
		for (int k = 0; k < 2; k++) {
			const struct fw_itp_trace *t = k ? &sy : &st;
			uint64_t h[2];
			int64_t to[2] = { -1, -2 };
			for (int all = 0; all < 2; all++) {
				struct fw_sim_opts o;
				synth_opts(&o, pol[i]->name);
				o.validate_each = false;
				o.nodes = k ? 4 : 3;
				o.tick_s = k ? 60 : 10;
				o.preemptible = k == 1;
				o.max_runtime_s = k ? 4 * 3600 : 200;
				o.tick_rule = all ? FW_SIM_ALL_TICKS : FW_SIM_EVERY_TICK;
				limit_run(t, &o, &h[all], &to[all], ends + all * t->n);
			}
			printf("  %s, %s: %lld ended by the limit\n", pol[i]->name, k ? "synthetic" : "staggered",
			       (long long)to[0]);
			ASSERT(h[0] != 0);
			ASSERT(h[0] == h[1]);
			ASSERT_EQ(to[0], to[1]);
			ASSERT(to[0] > 0); /* the case this test is about happened */
			ASSERT(memcmp(ends, ends + t->n, t->n * sizeof *ends) == 0);
		}
	}
	free(ends);
	fw_itp_free(&st);
	fw_itp_free(&sy);
}

/* ---- GPU-hour budgets ------------------------------------------------------ */

/*
 * 1 node x 8 GPUs, tick 10, queue usage half-life h = 600 s, every queue's
 * budget 0.5 GPU-h (1800 GPU-s).
 *   A  qa  t=0    300 s  8 GPUs  0..300; qa's usage at 300 is
 *                                8 h/ln2 (1 - 2^(-300/h)) = 2028.3 GPU-s
 *   B  qa  t=50   100 s  4 GPUs  no room until 300, then held: qa is over
 *                                its budget, and nothing of qa runs, so its
 *                                usage decays as 2028.3 x 2^(-(t-300)/h) and
 *                                falls below 1800 at 300 + h log2(2028.3 /
 *                                1800) = 403.4: B starts at the next tick, 410
 *   C  qb  t=320   50 s  2 GPUs  qb is under its budget: kai starts it at
 *                                320; fifo keeps it behind the held B (its
 *                                strict line), so at 410 with B
 * Without a budget B starts at 300 (C at 320).  No event falls between 320
 * and 410: under every tick rule B's start is the budget's own wake-up.
 */
static const char budget_trace[] =
	"job_id,submit_time,duration,gpus_per_task,queue\n"
	"A,0,300,8,qa\n"
	"B,50,100,4,qa\n"
	"C,320,50,2,qb\n";

static void budget_opts(struct fw_sim_opts *o, const char *policy, double budget)
{
	synth_opts(o, policy);
	o->nodes = 1;
	o->usage_half_life_s = 600;
	o->gpu_hour_budget = budget;
}

/* Row of job id in a generic trace. */
static int64_t trace_row(const struct fw_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].id, id))
			return (int64_t)i;
	return -1;
}

TEST(des_budget_holds_a_queue_until_its_usage_decays_below_it)
{
	const double h = 600, budget = 1800; /* GPU-s */
	double u300 = 8 * h / log(2.0) * (1 - exp2(-300 / h));
	double cross = 300 + h * log2(u300 / budget);
	int64_t want = ((int64_t)floor(cross) / 10 + 1) * 10; /* the first tick past it */
	static const char *const pol[] = { "fifo", "kai" };
	struct fw_sim_opts o;
	struct fw_trace t;
	struct fw_sim_result r;

	/* the decay formula, by hand: over at 300 and at the tick 400, under at 410 */
	ASSERT_NEAR(u300, 2028.27, 0.01);
	ASSERT(u300 * exp2(-100 / h) >= budget);
	ASSERT(u300 * exp2(-110 / h) < budget);
	ASSERT_EQ(want, 410);
	for (int i = 0; i < 2; i++) {
		for (int rule = 0; rule < 3; rule++) {
			budget_opts(&o, pol[i], 0.5);
			o.tick_rule = (enum fw_sim_tick_rule)rule;
			ASSERT_OK(replay_generic(budget_trace, &o, &t, &r));
			int64_t a = trace_row(&t, "A"), b = trace_row(&t, "B"), c = trace_row(&t, "C");
			ASSERT_STR_EQ(r.qname[r.queue[a]], "qa");
			ASSERT_EQ(r.queue[b], r.queue[a]);
			ASSERT(r.queue[c] != r.queue[a]);
			ASSERT_EQ(r.start[a], 0);
			ASSERT_EQ(r.end[a], 300);
			ASSERT_EQ(r.start[b], want);
			ASSERT_EQ(r.end[b], want + 100);
			ASSERT_EQ(r.start[c], i == 0 ? want : 320);
			ASSERT_EQ(r.over_budget_jobs, 1); /* B; fifo's C waits behind it (head of line) */
			ASSERT_NEAR(r.gpu_hour_budget, 0.5, 0);
			ASSERT_EQ(r.never_started, 0);
			fw_sim_result_free(&r);
			fw_trace_free(&t);
		}
		/* no budget: B starts when A ends */
		budget_opts(&o, pol[i], 0);
		ASSERT_OK(replay_generic(budget_trace, &o, &t, &r));
		ASSERT_EQ(r.start[trace_row(&t, "B")], 300);
		ASSERT_EQ(r.start[trace_row(&t, "C")], 320);
		ASSERT_EQ(r.over_budget_jobs, 0);
		fw_sim_result_free(&r);
		fw_trace_free(&t);
	}
}

/* --budget-safe (fw_sched_config.budget_safe): a job starts only if its
 * whole run fits what the budget (1800 GPU-s, half-life 600 s) has left.
 * Two nodes:
 *   A  qa  t=0  100 s (expected 100)  8 GPUs  800 GPU-s: starts at 0
 *   B  qa  t=0  100 s (expected 300)  4 GPUs  1200 GPU-s > the 1000 left:
 *      waits (budget_short).  A's usage, 755.5 GPU-s at 100, must decay
 *      to 600: at 100 + h log2(755.5 / 600) = 299.6, so B starts at the
 *      tick 300
 *   C  qb  t=0  50 s, runtime 0       1 GPU: no bound, it never fits
 *      (never started; the replay still ends)
 * The same under the `all` tick rule (every tick while a job waits) and
 * under `change` (A's end at 100 is an event; the engine then expects B
 * at 300, which wakes it).  Without --budget-safe B and C start at 0. */
TEST(des_budget_safe_waits_for_room_for_the_whole_run)
{
	static const char trace[] = "job_id,submit_time,duration,expected_runtime,gpus_per_task,queue\n"
				    "A,0,100,100,8,qa\n"
				    "B,0,100,300,4,qa\n"
				    "C,0,50,0,1,qb\n";
	const double h = 600;
	double u100 = 8 * h / log(2.0) * (1 - exp2(-100 / h)), cross = 100 + h * log2(u100 / 600);
	static const char *const pol[] = { "fifo", "kai", "fairway", "slurm" };
	struct fw_sim_opts o;
	struct fw_trace t;
	struct fw_sim_result r;

	ASSERT(cross > 290 && cross <= 300);
	for (int i = 0; i < 4; i++) {
		for (int safe = 0; safe < 4; safe++) {
			budget_opts(&o, pol[i], 0.5);
			o.nodes = 2;
			o.budget_safe = safe > 0;
			o.tick_rule = safe == 2 ? FW_SIM_ALL_TICKS : safe == 3 ? FW_SIM_ON_CHANGE : FW_SIM_EVERY_TICK;
			ASSERT_OK(replay_generic(trace, &o, &t, &r));
			int64_t a = trace_row(&t, "A"), b = trace_row(&t, "B"), c = trace_row(&t, "C");
			ASSERT_EQ(r.start[a], 0);
			ASSERT_EQ(r.start[b], safe ? 300 : 0);
			ASSERT(safe ? r.start[c] < 0 : r.start[c] == 0);
			ASSERT_EQ(r.never_started, safe ? 1 : 0);
			ASSERT_EQ(r.over_budget_jobs, safe ? 2 : 0);
			ASSERT_EQ(r.budget_safe, safe > 0);
			fw_sim_result_free(&r);
			fw_trace_free(&t);
		}
	}
}

/*
 * --budget-safe with a run going on: what is left grows only as the
 * usage decays, and no event marks when a short job's run fits.  Budget
 * 1800 GPU-s, half-life h = 600 s, two nodes, tick 10:
 *   A  qa  t=0  1500 s (expected 1500)  1 GPU  1500 GPU-s: starts at 0;
 *      what qa has left is then 1800 - 1500 = 300, and grows as A's
 *      usage, h/ln2 (1 - 2^(-t/h)), decays: left(t) = 300 + t - h/ln2
 *      (1 - 2^(-t/h)) (A's remaining run falls as fast as its usage
 *      rises)
 *   B  qa  t=5  100 s (expected 100)    4 GPUs  400 GPU-s: budget_short
 *      until left(t) >= 400, the engine's expected start E (first
 *      second, by bisection here: 453); B starts at the first tick at or
 *      after it (460) under every tick rule.  Under `change` that is the
 *      engine's wake: the usage alone never leaves room for B's run
 *      (1800 - 400 < A's usage), and A's end, the next event, is at 1500
 *   C  qb  t=20  50 s, runtime 0        1 GPU: no bound, it never fits
 *      (behind B: fifo's one line would hold B behind it for good)
 * Under `every` B is held until then at the earliest (des.c note_quiet,
 * short_hold), and C for good, so the replay skips most of the ticks
 * `all` cycles at.
 */
TEST(des_budget_safe_starts_a_short_job_when_the_engine_expects_its_run_to_fit)
{
	static const char trace[] = "job_id,submit_time,duration,expected_runtime,gpus_per_task,queue\n"
				    "A,0,1500,1500,1,qa\n"
				    "B,5,100,100,4,qa\n"
				    "C,20,50,0,1,qb\n";
	const double h = 600, As = h / log(2.0);
	int64_t lo = 0, hi = 1500;
	static const char *const pol[] = { "fifo", "kai", "fairway", "slurm" };
	struct fw_sim_opts o;
	struct fw_trace t;
	struct fw_sim_result r;

	while (lo < hi) { /* the first second at which left(t) >= 400 */
		int64_t mid = lo + (hi - lo) / 2;
		if (300 + (double)mid - As * (1 - exp2(-(double)mid / h)) >= 400)
			hi = mid;
		else
			lo = mid + 1;
	}
	int64_t want = (lo + 9) / 10 * 10; /* the first tick at or after it */
	ASSERT_EQ(lo, 453);
	ASSERT_EQ(want, 460);
	ASSERT(As * (1 - exp2(-1500 / h)) < 1800 - 400); /* the usage alone leaves room all along */
	for (int i = 0; i < 4; i++) {
		int64_t cycles[3];
		for (int rule = 0; rule < 3; rule++) {
			budget_opts(&o, pol[i], 0.5);
			o.nodes = 2;
			o.budget_safe = true;
			o.tick_rule = (enum fw_sim_tick_rule)rule;
			ASSERT_OK(replay_generic(trace, &o, &t, &r));
			int64_t a = trace_row(&t, "A"), b = trace_row(&t, "B"), c = trace_row(&t, "C");
			ASSERT_EQ(r.start[a], 0);
			ASSERT_EQ(r.end[a], 1500);
			ASSERT_EQ(r.start[b], want);
			ASSERT(r.start[c] < 0);
			ASSERT_EQ(r.over_budget_jobs, 2);
			cycles[rule] = r.cycles;
			fw_sim_result_free(&r);
			fw_trace_free(&t);
		}
		printf("  %s: %lld cycles under every, %lld under change, %lld under all\n", pol[i],
		       (long long)cycles[FW_SIM_EVERY_TICK], (long long)cycles[FW_SIM_ON_CHANGE],
		       (long long)cycles[FW_SIM_ALL_TICKS]);
		ASSERT(cycles[FW_SIM_ALL_TICKS] >= want / 10); /* a cycle per tick while B waits */
		/* `every` skips most (not fifo: C waits behind B in its one
		 * line, head_of_line, not held, and fits) */
		ASSERT(!strcmp(pol[i], "fifo") || 4 * cycles[FW_SIM_EVERY_TICK] < cycles[FW_SIM_ALL_TICKS]);
	}
}

/*
 * A short job's hold is not its expected start.  Two nodes x 8 GPUs,
 * budget 1800 GPU-s, h = 600 s, tick 10:
 *   P  qp  t=0  440 s  4 GPUs   node 0 until 440
 *   R  qr  t=5   10 s 16 GPUs   both nodes: reserved at 440
 *   Q  qk  t=0  100 s  8 GPUs   node 1 until 100 (it ends before R's
 *                               reservation: backfilled); qk's usage at
 *                               100 is U = 8 h/ln2 (1 - 2^(-100/h))
 *   K  qk  t=5  140 s  8 GPUs   1120 GPU-s: budget_short while qk's usage
 *                               is above 1800 - 1120, until 100 + h
 *                               log2(U / 680) = 190.6; then it backfills
 *                               on node 1 (it ends before 440): at 200
 * The engine expects K only after R's run (the walk holds node 1 for R
 * from now), so a replay that held K until its expected start would skip
 * the tick 200; under `every` K starts there as under `all` (`change`
 * waits for the next event, P's end at 440).  Without --budget-safe K
 * starts at 100, when Q ends.
 */
TEST(des_budget_safe_holds_a_short_job_no_longer_than_its_budget_does)
{
	static const char trace[] = "job_id,submit_time,duration,expected_runtime,gpus_per_task,tasks,queue\n"
				    "P,0,440,440,4,1,qp\n"
				    "R,5,10,10,8,2,qr\n"
				    "Q,0,100,100,8,1,qk\n"
				    "K,5,140,140,8,1,qk\n";
	const double h = 600, u100 = 8 * h / log(2.0) * (1 - exp2(-100 / h)), fit = 100 + h * log2(u100 / 680);
	int64_t want = ((int64_t)floor(fit) / 10 + 1) * 10; /* the first tick past it */
	static const char *const pol[] = { "fairway", "slurm" };
	struct fw_sim_opts o;
	struct fw_trace t;
	struct fw_sim_result r;

	ASSERT_EQ(want, 200);
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 4; k++) { /* every, change, all; every without budget-safe */
			budget_opts(&o, pol[i], 0.5);
			o.nodes = 2;
			o.budget_safe = k < 3;
			o.tick_rule = k == 3 ? FW_SIM_EVERY_TICK : (enum fw_sim_tick_rule)k;
			ASSERT_OK(replay_generic(trace, &o, &t, &r));
			int64_t p = trace_row(&t, "P"), rr = trace_row(&t, "R"), q = trace_row(&t, "Q"), kk = trace_row(&t, "K");
			ASSERT_EQ(r.start[p], 0);
			ASSERT_EQ(r.start[q], 0);
			if (k == FW_SIM_ON_CHANGE) { /* the next event: P's end */
				ASSERT(r.start[kk] >= 440);
			} else {
				ASSERT_EQ(r.start[rr], 440);
				ASSERT_EQ(r.start[kk], k == 3 ? 100 : want);
			}
			fw_sim_result_free(&r);
			fw_trace_free(&t);
		}
	}
}

/* A budget nothing reaches changes nothing: on the five-job trace (7-day
 * half-life; no team uses more than 1250 GPU-s, well under 1 GPU-h) the
 * pinned logs, the same cycles and every start and end as without one. */
TEST(des_budget_never_reached_changes_nothing)
{
	static const char *const pol[] = { "fifo", "fairway" };
	static const uint64_t pin[] = { PIN_SYNTH_FIFO, PIN_SYNTH_FAIRWAY };
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r, r0;

	for (int i = 0; i < 2; i++) {
		synth_opts(&o, pol[i]);
		ASSERT_OK(replay(synth, &o, &t, &r0));
		fw_itp_free(&t);
		for (int k = 0; k < 2; k++) {
			synth_opts(&o, pol[i]);
			o.gpu_hour_budget = k ? FW_BUDGET_MAX_GPU_H : 1;
			ASSERT_OK(replay(synth, &o, &t, &r));
			ASSERT(fnv(r.log, r.log_len) == pin[i]);
			ASSERT_EQ(r.cycles, r0.cycles);
			ASSERT(memcmp(r.start, r0.start, t.n * sizeof *r.start) == 0);
			ASSERT(memcmp(r.end, r0.end, t.n * sizeof *r.end) == 0);
			ASSERT_EQ(r.over_budget_jobs, 0);
			fw_sim_result_free(&r);
			fw_itp_free(&t);
		}
		fw_sim_result_free(&r0);
	}
}

/* Tick skipping stays exact with budgets that bind: for every policy the
 * start log of the staggered trace (3 x 8 GPUs, every queue 0.25 GPU-h,
 * half-life 600 s) equals a cycle at literally every tick; and under
 * --budget-safe (every queue 1 GPU-h: short jobs held until their runs
 * may fit, des.c short_hold, and the runs larger than it for good) the
 * start log, the ends and the jobs held equal those of a cycle at every
 * tick. */
TEST(des_tick_skipping_is_exact_with_budgets)
{
	const struct fw_policy_ops *const *pol = fw_policy_list();
	struct fw_itp_trace t;
	struct fw_teams teams;
	char text[8192];

	staggered(text, sizeof text);
	ASSERT_OK(parse(text, 0, &t, NULL, 0));
	fw_teams_builtin(&teams);
	for (int i = 0; pol[i]; i++) {
		for (int safe = 0; safe < 2; safe++) {
			uint64_t h[2];
			int64_t cycles[2], held[2], changed = 0, never[2], *end[2];
			for (int all = 0; all < 3; all++) {
				struct fw_sim_opts o;
				struct fw_sim_result r;
				struct fw_diag d;
				synth_opts(&o, pol[i]->name);
				o.validate_each = false;
				o.nodes = 3;
				o.usage_half_life_s = 600;
				o.gpu_hour_budget = all < 2 ? (safe ? 1 : 0.25) : 0;
				o.budget_safe = safe;
				o.tick_rule = all == 1 ? FW_SIM_ALL_TICKS : FW_SIM_EVERY_TICK;
				memset(&d, 0, sizeof d);
				ASSERT_OK(fw_sim_run(&t, &teams, &o, &r, &d));
				if (all < 2) {
					h[all] = fnv(r.log, r.log_len);
					cycles[all] = r.cycles;
					held[all] = r.over_budget_jobs;
					never[all] = r.never_started;
					end[all] = r.end;
					r.end = NULL; /* kept past the free */
				} else {
					changed = fnv(r.log, r.log_len) != h[0];
				}
				fw_sim_result_free(&r);
			}
			printf("  %s%s: %lld cycles (every tick: %lld), %lld jobs held over budget\n", pol[i]->name,
			       safe ? ", budget-safe" : "", (long long)cycles[0], (long long)cycles[1], (long long)held[0]);
			ASSERT(h[0] == h[1]);
			ASSERT(memcmp(end[0], end[1], t.n * sizeof *end[0]) == 0);
			ASSERT_EQ(held[0], held[1]);
			ASSERT_EQ(never[0], never[1]);
			ASSERT(cycles[0] <= cycles[1]);
			ASSERT(held[0] > 0);    /* the case this test is about happened ... */
			ASSERT(changed);       /* ... and changed the replay */
			free(end[0]);
			free(end[1]);
		}
	}
	fw_itp_free(&t);
}

/* An on_tick hook that does nothing: the replay then makes no use of
 * held-only stretches (des.c note_quiet: a hook's own state may change
 * what the engine sees), so it runs a cycle at every tick at which some
 * waiting job could fit, held or not, as it did before it had them. */
static int tick_nothing(void *ctx, struct fw_sim *sim, const struct fw_snapshot *s)
{
	(void)ctx;
	(void)sim;
	(void)s;
	return FW_OK;
}

/*
 * Jobs held over budget do not force a cycle at every tick.  On a
 * synthetic trace (200 jobs, 6 x 8 GPUs, tick 600 s) with a budget that
 * binds (300 GPU-h per queue, the 7-day half-life), fairway and slurm (whose
 * cycles move with the clock, so `every` has them cycle at each tick at
 * which some job could fit) replay with about as many cycles as without
 * a budget, not one per tick while a held job could fit, and with the
 * same outcome as when they do cycle then (the no-op hook) and as at
 * literally every tick: the same starts (log), ends, first estimates
 * and jobs held over budget.  The same under --budget-safe, where a job
 * short of what its budget has left is held until its run may fit
 * (des.c short_hold; before, such a replay cycled at every such tick).
 */
TEST(des_held_jobs_do_not_force_a_cycle_every_tick)
{
	static const char *const pol[] = { "fairway", "slurm" };
	const struct fw_sim_hooks nop = { .on_tick = tick_nothing };
	struct fw_itp_trace t;
	struct fw_teams teams;

	ASSERT_OK(fw_synth_itp(3, 200, &t));
	fw_teams_builtin(&teams);
	for (int i = 0; i < 4; i++) { /* fairway, slurm; then both with --budget-safe */
		struct fw_sim_result r[4];
		bool safe = i >= 2;
		for (int k = 0; k < 4; k++) { /* no budget, budget, budget + hook, budget at every tick */
			struct fw_sim_opts o;
			struct fw_diag d;
			synth_opts(&o, pol[i % 2]);
			o.validate_each = false;
			o.nodes = 6;
			o.tick_s = 600;
			o.gpu_hour_budget = k ? 300 : 0;
			o.budget_safe = safe;
			o.hooks = k == 2 ? &nop : NULL;
			o.tick_rule = k == 3 ? FW_SIM_ALL_TICKS : FW_SIM_EVERY_TICK;
			memset(&d, 0, sizeof d);
			ASSERT_OK(fw_sim_run(&t, &teams, &o, &r[k], &d));
		}
		printf("  %s%s: %lld cycles without a budget, %lld with one (%lld cycling while a held job fits, "
		       "%lld at every tick), %lld jobs held\n", pol[i % 2], safe ? ", budget-safe" : "",
		       (long long)r[0].cycles, (long long)r[1].cycles, (long long)r[2].cycles, (long long)r[3].cycles,
		       (long long)r[1].over_budget_jobs);
		ASSERT(r[1].over_budget_jobs > 0);                       /* the budget binds ... */
		ASSERT(fnv(r[1].log, r[1].log_len) != fnv(r[0].log, r[0].log_len)); /* ... and changes the replay */
		ASSERT(r[2].cycles > 3 * r[0].cycles);                   /* held jobs fitting cost that many ... */
		ASSERT(r[1].cycles < 2 * r[0].cycles);                   /* ... and no longer do */
		for (int k = 2; k < 4; k++) {
			ASSERT(r[1].log_len == r[k].log_len && memcmp(r[1].log, r[k].log, r[1].log_len) == 0);
			ASSERT(memcmp(r[1].end, r[k].end, t.n * sizeof *r[1].end) == 0);
			ASSERT_EQ(r[1].never_started, r[k].never_started);
		}
		ASSERT_EQ(r[1].over_budget_jobs, r[2].over_budget_jobs);
		ASSERT_EQ(r[1].over_budget_jobs, r[3].over_budget_jobs);
		ASSERT(memcmp(r[1].estimate, r[2].estimate, t.n * sizeof *r[1].estimate) == 0);
		for (int k = 0; k < 4; k++)
			fw_sim_result_free(&r[k]);
	}
	fw_itp_free(&t);
}

/* The node index of the first start of job id in a decision log. */
static int first_node_of(const char *log, const char *id)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof key, "\"job\":\"%s\"", id);
	if (!(p = strstr(log, key)) || !(p = strstr(p, "\"nodes\":[\"n")))
		return -1;
	return atoi(p + strlen("\"nodes\":[\"n"));
}

/* Every plan: each started task lands on a schedulable node (fw_plan_check
 * says so too; this counts the plans the replay showed us). */
struct plan_watch {
	int64_t plans, bad;
};

static void watch_plan(void *ctx, const struct fw_snapshot *s, const struct fw_plan *p,
		       int64_t started)
{
	struct plan_watch *w = ctx;

	(void)started;
	w->plans++;
	for (int32_t i = 0; i < p->ndecisions; i++)
		for (int32_t a = 0; p->decisions[i].kind == FW_DECIDE_START &&
				    a < p->decisions[i].alloc_count; a++)
			w->bad += !s->nodes[p->allocs[p->decisions[i].alloc_first + a].node].schedulable;
}

/*
 * 2 nodes x 8 GPUs, fairway, tick 10.
 *   A  t=0    1000 s  8 GPUs  node X at 0
 *   B  t=5     100 s  4 GPUs  node Y at 10
 *   C  t=250  2000 s  4 GPUs  node Y at 250 (X is full)
 *   D  t=400    50 s  6 GPUs  Y has 4 free, X is down: waits for the repair
 * X fails at 300, repaired at 800: A ran 300 s and loses it all (8 x 300
 * GPU-s), waits for X and reruns 1000 s; D also needs X.
 */
static const char fail_trace[] =
	"job_id,submission_time,duration,num_gpu\n"
	"A,0,1000,8\n"
	"B,5,100,4\n"
	"C,250,2000,4\n"
	"D,400,50,6\n";

TEST(des_node_failure_requeues_its_job_until_the_repair)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct plan_watch w = { 0, 0 };
	struct fw_sim_hooks h = { watch_plan, &w, NULL, NULL };

	synth_opts(&o, "fairway");
	ASSERT_OK(replay(fail_trace, &o, &t, &r));
	int X = first_node_of(r.log, "A");
	ASSERT(X == 0 || X == 1);
	ASSERT_EQ(r.evictions, 0);
	ASSERT_EQ(r.end[row_of_id(&t, "A")], 1000);
	fw_sim_result_free(&r);
	fw_itp_free(&t);

	struct fw_sim_failure fl[] = { { 300, X, 500, 0, false } };
	struct fw_sim_scripted sc = { fl, 1, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	o.failures = &src;
	o.hooks = &h;
	ASSERT_OK(replay(fail_trace, &o, &t, &r)); /* every plan checked and validated */
	int64_t a = row_of_id(&t, "A"), d = row_of_id(&t, "D");
	ASSERT_EQ(r.failures, 1);
	ASSERT_EQ(r.failure_hits, 1);
	ASSERT_EQ(r.evictions, 1);
	ASSERT_EQ(r.evicted[a], 1);
	ASSERT_EQ(r.evicted[row_of_id(&t, "C")], 0); /* C ran on the other node */
	ASSERT_NEAR(r.lost_gpu_s, 8.0 * 300.0, 1e-9);
	ASSERT_EQ(r.start[a], 0);                    /* first start */
	ASSERT_EQ(r.start[d], 1800);                 /* nothing lands on X while it is down;
						      * at 800 A (ahead of D) takes X */
	ASSERT_EQ(r.end[a], 1800);                   /* 300 lost + 500 repair + 1000 rerun */
	ASSERT_EQ(r.never_started, 0);
	ASSERT_EQ(r.decisions, 5);                   /* A twice */
	ASSERT(w.plans > 0);
	ASSERT_EQ(w.bad, 0);
	char key[64];
	snprintf(key, sizeof key, "{\"t\":800,\"policy\":\"fairway\",\"job\":\"A\"");
	ASSERT_STR_CONTAINS(r.log, key);
	ASSERT_EQ(first_node_of(r.log, "D"), X);
	struct fw_sim_metrics m;
	ASSERT_OK(fw_sim_metrics(&t, &o, &r, 11, &m));
	/* JCTs: A 1800, B 10..110 -> 105, C 250..2250 -> 2000, D 1800..1850 -> 1450 */
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].jct_mean, (1800 + 105 + 2000 + 1450) / 4.0, 1e-9);
	ASSERT_EQ(m.bucket[FW_SIM_BALL].tts_p99, 1400); /* D: 400 -> 1800 */
	ASSERT_EQ(m.makespan_s, 2250);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* on_evict: keep this run's progress in whole 1800 s checkpoints. */
struct ckpt {
	int64_t calls, last_now, last_ran;
	int bad;
	bool keep;
};

static int64_t checkpoint(void *ctx, const struct fw_snapshot *s, int32_t job, int64_t now,
			  int64_t ran_s)
{
	struct ckpt *c = ctx;

	c->calls++;
	c->last_now = now;
	c->last_ran = ran_s;
	c->bad += job < 0 || job >= s->njobs || s->jobs[job].state != FW_JOB_RUNNING ||
		  s->jobs[job].start_time + ran_s != now;
	return c->keep ? ran_s / 1800 * 1800 : 0;
}

/*
 * One node x 8 GPUs, fairway, tick 10; GPU 0 fails at 300, repaired at 800.
 *   A  t=0    1000 s  4 GPUs  GPUs 0-3: evicted at 300, 4 GPUs again only
 *                             at 800 (1, 2, 3 are free, 0 is out)
 *   B  t=1    1000 s  4 GPUs  GPUs 4-7 from 10: runs on, untouched
 *   C  t=400    50 s  3 GPUs  the node's good free GPUs: starts at 400
 */
static const char gpu_fail_trace[] =
	"job_id,submission_time,duration,num_gpu\n"
	"A,0,1000,4\n"
	"B,1,1000,4\n"
	"C,400,50,3\n";

struct gpu0_watch {
	int64_t on_gpu0_while_out, tasks;
};

static void watch_gpu0(void *ctx, const struct fw_snapshot *s, const struct fw_plan *p, int64_t started)
{
	struct gpu0_watch *w = ctx;

	(void)started;
	for (int32_t i = 0; i < p->ndecisions; i++)
		for (int32_t a = 0; p->decisions[i].kind == FW_DECIDE_START && a < p->decisions[i].alloc_count; a++) {
			w->tasks++;
			w->on_gpu0_while_out += s->now >= 300 && s->now < 800 &&
						(p->allocs[p->decisions[i].alloc_first + a].gpu_mask & 1u);
		}
}

TEST(des_gpu_failure_evicts_its_jobs_only_and_keeps_the_node)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct gpu0_watch w = { 0, 0 };
	struct fw_sim_hooks h = { watch_gpu0, &w, NULL, NULL };
	struct fw_sim_failure fl[] = { { 300, 0, 500, 1u << 0, false } };
	struct fw_sim_scripted sc = { fl, 1, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };

	synth_opts(&o, "fairway");
	o.nodes = 1;
	o.failures = &src;
	o.hooks = &h;
	ASSERT_OK(replay(gpu_fail_trace, &o, &t, &r)); /* every plan checked and validated */
	int64_t a = row_of_id(&t, "A"), b = row_of_id(&t, "B"), c = row_of_id(&t, "C");
	ASSERT_EQ(r.failures, 1);
	ASSERT_EQ(r.failure_hits, 1);
	ASSERT_EQ(r.evicted[a], 1);
	ASSERT_EQ(r.evicted[b], 0);
	ASSERT_EQ(r.end[b], 1010);                   /* B ran on through the failure */
	ASSERT_EQ(r.start[c], 400);                  /* the node kept its good GPUs */
	ASSERT_EQ(r.end[a], 1800);                   /* back at the repair, 1000 s again */
	ASSERT_NEAR(r.lost_gpu_s, 4.0 * 300.0, 1e-9);
	ASSERT_EQ(w.on_gpu0_while_out, 0);
	ASSERT_EQ(w.tasks, 4);                       /* A, B, C, A again */
	ASSERT_EQ(r.never_started, 0);
	fw_sim_result_free(&r);
	fw_itp_free(&t);

	/* a GPU beyond the node's is refused */
	struct fw_sim_failure bad[] = { { 300, 0, 500, 1u << 8, false } };
	struct fw_sim_scripted sb = { bad, 1, 0 };
	struct fw_sim_failures srcb = { fw_sim_scripted_next, &sb };
	o.failures = &srcb;
	o.hooks = NULL;
	ASSERT_EQ(replay(gpu_fail_trace, &o, &t, &r), FW_EINVAL);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/*
 * 1 node x 8, tick 10: A (8 GPUs, 5000 s) from 0.  The node fails at 4000
 * (repair 100) and again at 5100 (repair 0).
 *   checkpoints: keeps 3600 of 4000 (loses 8 x 400), reruns 1400 from 4100;
 *                at 5100 it ran 1000 < 1800, keeps 0 (loses 8 x 1000),
 *                reruns 1400 from 5100: ends 6500.
 *   from scratch: loses 8 x 4000, reruns 5000 from 4100; loses 8 x 1000 at
 *                5100, reruns 5000 from 5100: ends 10100.
 */
TEST(des_on_evict_checkpoints_shorten_the_rerun)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_failure fl[] = { { 4000, 0, 100, 0, false }, { 5100, 0, 0, 0, false } };
	struct fw_sim_scripted sc = { fl, 2, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	const char *text = "job_id,submission_time,duration,num_gpu\nA,0,5000,8\n";
	const int64_t end[2] = { 10100, 6500 };
	const double lost[2] = { 8.0 * 5000, 8.0 * 1400 };

	for (int keep = 0; keep < 2; keep++) {
		struct ckpt c = { 0, 0, 0, 0, keep == 1 };
		struct fw_sim_hooks h = { NULL, &c, checkpoint, NULL };
		synth_opts(&o, "fifo");
		o.nodes = 1;
		o.failures = &src;
		o.hooks = &h;
		ASSERT_OK(replay(text, &o, &t, &r));
		ASSERT_EQ(c.calls, 2);
		ASSERT_EQ(c.bad, 0);
		ASSERT_EQ(c.last_now, 5100);
		ASSERT_EQ(c.last_ran, 1000);
		ASSERT_EQ(r.failures, 2);
		ASSERT_EQ(r.evictions, 2);
		ASSERT_EQ(r.evicted[0], 2);
		ASSERT_EQ(r.start[0], 0);
		ASSERT_EQ(r.end[0], end[keep]);
		ASSERT_NEAR(r.lost_gpu_s, lost[keep], 1e-9);
		ASSERT_STR_CONTAINS(r.log, "\"t\":4100,\"policy\":\"fifo\",\"job\":\"A\"");
		ASSERT_STR_CONTAINS(r.log, "\"t\":5100,\"policy\":\"fifo\",\"job\":\"A\"");
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
}

/*
 * The built-in checkpoint rule of `fairway sim run` (fw_met_on_evict over
 * fw_sim_checkpoint_kept), same trace and failures as above:
 *   S = 1800: keeps 3600 of 4000, 0 of 1000: ends 6500, loses 8 x 1400;
 *   S = 0:    from scratch: ends 10100, loses 8 x 5000;
 *   S = 1000: keeps all 4000 (loses 0), reruns 1000 from 4100 and ends at
 *             5100, the second failure's time: a completion comes first, so
 *             only one eviction.
 * Each run is recorded as a (start, end) span.
 */
TEST(des_builtin_checkpoint_rule_keeps_whole_intervals)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_failure fl[] = { { 4000, 0, 100, 0, false }, { 5100, 0, 0, 0, false } };
	const char *text = "job_id,submission_time,duration,num_gpu\nA,0,5000,8\n";
	const int64_t S[3] = { 1800, 0, 1000 }, end[3] = { 6500, 10100, 5100 };
	const int64_t evictions[3] = { 2, 2, 1 }, run1_end[3] = { 5100, 5100, 5100 };
	const double lost[3] = { 8.0 * 1400, 8.0 * 5000, 0 };

	ASSERT_EQ(fw_sim_checkpoint_kept(3599, 1800), 1800);
	ASSERT_EQ(fw_sim_checkpoint_kept(3600, 1800), 3600);
	ASSERT_EQ(fw_sim_checkpoint_kept(1799, 1800), 0);
	ASSERT_EQ(fw_sim_checkpoint_kept(5000, 0), 0);
	ASSERT_EQ(fw_sim_checkpoint_kept(0, 1800), 0);
	for (int k = 0; k < 3; k++) {
		struct fw_sim_scripted sc = { fl, 2, 0 };
		struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
		struct fw_met_rec rec;
		memset(&rec, 0, sizeof rec);
		rec.checkpoint_s = S[k];
		struct fw_sim_hooks h = { NULL, &rec, fw_met_on_evict, NULL };
		synth_opts(&o, "fifo");
		o.nodes = 1;
		o.failures = &src;
		o.hooks = &h;
		ASSERT_OK(replay(text, &o, &t, &r));
		ASSERT_EQ(r.evictions, evictions[k]);
		ASSERT_EQ(r.end[0], end[k]);
		ASSERT_NEAR(r.lost_gpu_s, lost[k], 1e-9);
		ASSERT_EQ((int64_t)r.nruns, evictions[k] + 1);
		ASSERT_EQ(r.runs[0].start, 0);
		ASSERT_EQ(r.runs[0].end, 4000);
		ASSERT_EQ(r.runs[1].start, 4100);
		ASSERT_EQ(r.runs[1].end, run1_end[k]);
		ASSERT_EQ(r.runs[r.nruns - 1].end, end[k]);
		ASSERT_EQ(r.estimate[0], FW_SIM_NO_ESTIMATE); /* started in its first plan */
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
}

/* The first estimate of a job that waits: B (8 GPUs) arrives while A holds
 * the only node until 1000; B's first pending entry (the cycle at 10)
 * expects it at 1000. */
TEST(des_records_each_jobs_first_start_estimate)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	const char *text = "job_id,submission_time,duration,num_gpu\nA,0,1000,8\nB,5,100,8\n";

	synth_opts(&o, "slurm");
	o.nodes = 1;
	o.tick_rule = FW_SIM_ALL_TICKS; /* `every` runs no cycle while nothing fits */
	ASSERT_OK(replay(text, &o, &t, &r));
	ASSERT_EQ(r.estimate[row_of_id(&t, "A")], FW_SIM_NO_ESTIMATE);
	ASSERT_EQ(r.estimate[row_of_id(&t, "B")], 1000);
	ASSERT_EQ(r.start[row_of_id(&t, "B")], 1000);
	ASSERT_EQ((int64_t)r.nruns, 2);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* The estimate is the first pending entry's before the first start.  1
 * node x 8, slurm, every tick.  A (8 GPUs, 1000 s) starts in its first
 * cycle (no estimate); B (8 GPUs) waits from 5, its first pending entry
 * (10) expects 1000.  The node fails at 300 for 500 s: A is evicted and
 * pending again in every cycle up to the repair, but those entries come
 * after its first start and are not its estimate; nor does B's change. */
TEST(des_estimate_is_not_taken_after_an_eviction)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_failure fl[] = { { 300, 0, 500, 0, false } };
	struct fw_sim_scripted sc = { fl, 1, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	const char *text = "job_id,submission_time,duration,num_gpu\nA,0,1000,8\nB,5,100,8\n";

	synth_opts(&o, "slurm");
	o.nodes = 1;
	o.tick_rule = FW_SIM_ALL_TICKS;
	o.failures = &src;
	ASSERT_OK(replay(text, &o, &t, &r));
	int64_t a = row_of_id(&t, "A"), b = row_of_id(&t, "B");
	ASSERT_EQ(r.evicted[a], 1);
	ASSERT_EQ(r.start[a], 0);
	ASSERT(r.end[a] >= 1800);                    /* reruns after the repair at 800 */
	ASSERT_EQ(r.estimate[a], FW_SIM_NO_ESTIMATE); /* started in its first plan */
	ASSERT_EQ(r.estimate[b], 1000);
	ASSERT(r.start[b] >= 800);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* An EVICT decision in a hand-made plan, applied through the same path as
 * the engine's plans (fw_sim_apply_plan from an on_tick hook). */
struct evicter {
	int64_t at;
	int applied, second_rc;
};

static int evict_at(void *ctx, struct fw_sim *sim, const struct fw_snapshot *s)
{
	struct evicter *e = ctx;
	struct fw_decision dec;
	struct fw_plan p;

	if (s->now != e->at || e->applied)
		return FW_OK;
	memset(&dec, 0, sizeof dec);
	memset(&p, 0, sizeof p);
	dec.kind = FW_DECIDE_EVICT;
	dec.node = -1;
	dec.job = -1;
	for (int32_t k = 0; k < s->njobs; k++)
		if (!strcmp(s->jobs[k].name, "A"))
			dec.job = k;
	p.now = s->now;
	p.decisions = &dec;
	p.ndecisions = 1;
	int rc = fw_sim_apply_plan(sim, &p);
	e->applied++;
	e->second_rc = fw_sim_apply_plan(sim, &p); /* A is pending now: refused */
	return rc;
}

/*
 * 1 node x 8, fifo, tick 10.  A (4 GPUs, 1000 s) from 0; P (1 GPU, 10 s)
 * arrives at 500, which gives the loop a tick there.  At 500 the plan
 * evicts A: it loses 4 x 500 GPU-s, is pending again (submit 0, ahead of
 * P) and the cycle at 500 restarts it: it ends at 1500.
 */
TEST(des_evict_decision_goes_through_the_eviction_path)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct evicter e = { 500, 0, 0 };
	struct fw_sim_hooks h = { NULL, &e, NULL, evict_at };
	const char *text = "job_id,submission_time,duration,num_gpu\nA,0,1000,4\nP,500,10,1\n";

	synth_opts(&o, "fifo");
	o.nodes = 1;
	o.hooks = &h;
	ASSERT_OK(replay(text, &o, &t, &r));
	ASSERT_EQ(e.applied, 1);
	ASSERT_EQ(e.second_rc, FW_EINVAL);
	ASSERT_EQ(r.evictions, 1);
	ASSERT_EQ(r.failures, 0);
	ASSERT_EQ(r.evicted[0], 1);
	ASSERT_NEAR(r.lost_gpu_s, 4.0 * 500, 1e-9);
	ASSERT_EQ(r.start[0], 0);
	ASSERT_EQ(r.end[0], 1500);
	ASSERT_EQ(r.start[1], 500);
	ASSERT_EQ(r.end[1], 510);
	ASSERT_STR_CONTAINS(r.log, "{\"t\":500,\"policy\":\"fifo\",\"job\":\"A\"");
	ASSERT_EQ(r.decisions, 3);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* With a failure source that has no failures and an on_evict hook, the
 * pinned logs do not move. */
TEST(des_no_failures_keeps_the_pinned_logs)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_scripted sc = { NULL, 0, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	struct ckpt c = { 0, 0, 0, 0, true };
	struct fw_sim_hooks h = { NULL, &c, checkpoint, NULL };
	const char *pol[2] = { "fifo", "fairway" };
	const uint64_t pin[2] = { PIN_SYNTH_FIFO, PIN_SYNTH_FAIRWAY };

	for (int i = 0; i < 2; i++) {
		synth_opts(&o, pol[i]);
		o.failures = &src;
		o.hooks = &h;
		ASSERT_OK(replay(synth, &o, &t, &r));
		ASSERT(fnv(r.log, r.log_len) == pin[i]);
		ASSERT_EQ(r.evictions, 0);
		ASSERT_EQ(r.failures, 0);
		ASSERT_EQ(r.lost_gpu_s, 0);
		fw_sim_result_free(&r);
		fw_itp_free(&t);
	}
	ASSERT_EQ(c.calls, 0);
}

TEST(des_failure_source_is_checked)
{
	struct fw_sim_opts o;
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_failure bad_node[] = { { 10, 2, 5, 0, false } };
	struct fw_sim_failure backwards[] = { { 10, 0, 5, 0, false }, { 5, 1, 5, 0, false } };
	struct fw_sim_scripted sc = { bad_node, 1, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };

	synth_opts(&o, "fifo");
	o.failures = &src;
	ASSERT_EQ(replay(synth, &o, &t, &r), FW_EINVAL);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
	sc.v = backwards;
	sc.n = 2;
	ASSERT_EQ(replay(synth, &o, &t, &r), FW_EINVAL);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* ---- the command line ---------------------------------------------------- */

static int cli(const char *a0, const char *a1, const char *a2, const char *a3, const char *a4,
	       const char *a5, const char *a6, const char *a7, const char *a8)
{
	char *argv[10] = { (char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4,
			   (char *)a5, (char *)a6, (char *)a7, (char *)a8, NULL };
	int argc = 0;

	while (argv[argc])
		argc++;
	fflush(stdout);
	return fw_sim_cli(argc, argv);
}

/* A fresh temp dir (the mkdtemp template dir) holding the synthetic trace
 * as t.csv, its path in trace. */
static int synth_file(char *dir, char *trace, size_t n)
{
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	snprintf(trace, n, "%s/t.csv", dir);
	if (!(f = fopen(trace, "w")))
		return -1;
	fputs(synth, f);
	return fclose(f) == 0 ? 0 : -1;
}

TEST(cli_usage_errors_exit_2_and_a_run_writes_json_and_log)
{
	char dir[] = "/tmp/fw_test_sim_XXXXXX", trace[128], js[128], lg[128];
	json_error_t e;

	ASSERT_EQ(cli("fairway-sim", "run", "--bogus", NULL, NULL, NULL, NULL, NULL, NULL), 2);
	ASSERT_EQ(cli("fairway-sim", "run", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 2);
	ASSERT_EQ(cli("fairway-sim", "walk", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 2);
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", "x", "--nodes", "13y8", NULL, NULL, NULL), 2);
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", "x", "--policies", "lifo", NULL, NULL, NULL), 2);
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", "x", "--tick", "-1", NULL, NULL, NULL), 2);
	ASSERT_EQ(cli("fairway-sim", "run", "--help", NULL, NULL, NULL, NULL, NULL, NULL), 0);
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", "/nonexistent.csv", NULL, NULL, NULL, NULL, NULL), 1);
	ASSERT_OK(synth_file(dir, trace, sizeof trace));
	snprintf(js, sizeof js, "%s/m.json", dir);
	snprintf(lg, sizeof lg, "%s/l.jsonl", dir);
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", trace, "--nodes=2x8", "--json", js, "--log", lg), 0);
	json_t *root = json_load_file(js, 0, &e);
	ASSERT(root);
	json_t *pols = json_object_get(root, "policies");
	ASSERT_EQ(json_array_size(pols), 2);
	json_t *fair = json_array_get(pols, 1);
	ASSERT_STR_EQ(json_string_value(json_object_get(fair, "policy")), "fairway");
	ASSERT_EQ(json_integer_value(json_object_get(fair, "neverStarted")), 1);
	ASSERT(json_object_get(json_object_get(json_object_get(fair, "byGpus"), "9+"), "timeToStartS"));
	ASSERT_EQ(json_object_size(json_object_get(fair, "byQueue")), 11);
	json_decref(root);
	unlink(trace);
	unlink(js);
	unlink(lg);
	rmdir(dir);
}

/* --jobs: a header, then one row per trace row and policy, in trace
 * order; wait, JCT and the estimate's error follow from the times. */
TEST(cli_jobs_csv_has_a_row_per_job_and_policy)
{
	char dir[] = "/tmp/fw_test_sim_XXXXXX", trace[128], jobs[128], line[512];
	int rows = 0, never = 0, estimated = 0;

	ASSERT_OK(synth_file(dir, trace, sizeof trace));
	snprintf(jobs, sizeof jobs, "%s/j.csv", dir);
	FILE *f;
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", trace, "--nodes=2x8", "--jobs", "/nonexistent/j.csv",
		      NULL, NULL), 1);
	ASSERT_EQ(cli("fairway-sim", "run", "--trace", trace, "--nodes=2x8", "--jobs", jobs, NULL, NULL), 0);
	ASSERT((f = fopen(jobs, "r")) != NULL);
	ASSERT(fgets(line, sizeof line, f));
	ASSERT_STR_EQ(line, "policy,job,queue,gpus,submit,start,end,wait_s,jct_s,evictions,"
			    "estimate_kind,estimate,estimate_err_s,gpu_model,end_state\n");
	while (fgets(line, sizeof line, f)) {
		char pol[16], id[16], q[32], kind[16];
		long long g, sub, st = -1, end = -1, wait = -1, jct = -1, ev, est = -1, err = -1;
		char *p = line;
		/* policy,job,queue: no commas in the synthetic ids and team names */
		ASSERT_EQ(sscanf(p, "%15[^,],%15[^,],%31[^,],%lld,%lld", pol, id, q, &g, &sub), 5);
		for (int k = 0; k < 5; k++)
			p = strchr(p, ',') + 1;
		long long *v[] = { &st, &end, &wait, &jct };
		for (int k = 0; k < 4; k++, p = strchr(p, ',') + 1)
			if (*p != ',')
				*v[k] = strtoll(p, NULL, 10);
		ASSERT_EQ(sscanf(p, "%lld,%15[^,]", &ev, kind), 2);
		p = strchr(strchr(p, ',') + 1, ',') + 1;
		if (*p != ',')
			est = strtoll(p, NULL, 10);
		p = strchr(p, ',') + 1;
		if (*p != ',')
			err = strtoll(p, NULL, 10);
		/* gpu_model: the synthetic jobs name none; end_state: no limit,
		 * no eviction */
		ASSERT_STR_EQ(strchr(p, ','), st < 0 ? ",,never_started\n" : ",,completed\n");
		ASSERT(!strcmp(pol, rows < 5 ? "fifo" : "fairway"));
		static const long long submits[] = { 0, 5, 6, 300, 301 };
		ASSERT_EQ(sub, submits[rows % 5]);
		never += st < 0;
		ASSERT(st < 0 || (wait == st - sub && end >= st && jct == end - sub));
		ASSERT(st >= 0 || (end < 0 && wait < 0 && jct < 0));
		ASSERT(!strcmp(kind, "known") || !strcmp(kind, "unknown") || !strcmp(kind, "none"));
		ASSERT(!strcmp(kind, "known") == (est >= 0));
		ASSERT(est < 0 || st < 0 || err == est - st);
		estimated += est >= 0;
		rows++;
	}
	fclose(f);
	ASSERT_EQ(rows, 10);
	ASSERT_EQ(never, 3); /* D (20 GPUs) never fits 2x8; fifo keeps E behind it */
	ASSERT(estimated > 0);
	unlink(trace);
	unlink(jobs);
	rmdir(dir);
}

/* cli() with what it writes to fd (1 stdout, 2 stderr) caught in out
 * (NUL-terminated, cut at n - 1 bytes): the exit status. */
static int cli_fd(int fd, char *out, size_t n, const char *a0, const char *a1, const char *a2, const char *a3,
		  const char *a4, const char *a5, const char *a6, const char *a7, const char *a8)
{
	FILE *f = tmpfile();
	int keep, rc;
	size_t got = 0;

	out[0] = 0;
	if (!f)
		return -1;
	fflush(stdout);
	fflush(stderr);
	keep = dup(fd);
	dup2(fileno(f), fd);
	rc = cli(a0, a1, a2, a3, a4, a5, a6, a7, a8);
	fflush(stdout);
	fflush(stderr);
	dup2(keep, fd);
	close(keep);
	rewind(f);
	got = fread(out, 1, n - 1, f);
	out[got] = 0;
	fclose(f);
	return rc;
}

/* --usage-half-life S: whole seconds 1..3153600000 (100 years), as
 * seconds or a duration (7d, 10m: the config's grammar); anything else
 * is a usage error naming the flag and the value, before any replay; a
 * good value is the replay's half-life (the JSON's usage_half_life_s),
 * and without the flag it is the engine's default. */
TEST(cli_usage_half_life_takes_whole_seconds)
{
	static const char *const bad[] = { "-5", "0", "0d", "abc", "1e3", "1.5", "1.5s", " 60", "60x",
					   "99999999999999999999", "3153600001", "36501d" };
	static const char *const good[] = { "1", "10m", "3153600000", NULL };
	static const double good_s[] = { 1, 600, 3153600000.0 };
	char dir[] = "/tmp/fw_test_sim_XXXXXX", trace[128], js[128], err[1024], want[160], flag[64];
	static char help[32768];
	struct fw_sched_config def;
	json_error_t e;

	ASSERT_EQ(cli_fd(1, help, sizeof help, "fairway-sim", "run", "--help", NULL, NULL, NULL, NULL, NULL, NULL), 0);
	ASSERT_STR_CONTAINS(help, "\n  --usage-half-life S the half-life of queue usage, in whole seconds\n");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_EQ(cli_fd(2, err, sizeof err, "fairway-sim", "run", "--trace", "x", "--usage-half-life", bad[i],
				 NULL, NULL, NULL), 2);
		snprintf(want, sizeof want, "fairway sim run: error: --usage-half-life '%s': expected seconds or a "
			 "duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 1..3153600000", bad[i]);
		ASSERT_STR_CONTAINS(err, want);
	}
	ASSERT_EQ(cli_fd(2, err, sizeof err, "fairway-sim", "run", "--trace", "x", "--usage-half-life", NULL, NULL,
			 NULL, NULL), 2);
	ASSERT_STR_CONTAINS(err, "--usage-half-life needs a value");
	ASSERT_OK(synth_file(dir, trace, sizeof trace));
	snprintf(js, sizeof js, "%s/m.json", dir);
	memset(&def, 0, sizeof def);
	fw_sched_config_default(&def);
	for (int i = 0; i < 4; i++) {
		json_t *root;
		if (good[i]) { /* both spellings */
			snprintf(flag, sizeof flag, "--usage-half-life=%s", good[i]);
			ASSERT_EQ(cli_fd(2, err, sizeof err, "fairway-sim", "run", "--trace", trace, "--nodes=2x8",
					 i % 2 ? flag : "--usage-half-life", i % 2 ? "--json" : good[i],
					 i % 2 ? js : "--json", i % 2 ? NULL : js), 0);
		} else {
			ASSERT_EQ(cli_fd(2, err, sizeof err, "fairway-sim", "run", "--trace", trace, "--nodes=2x8",
					 "--json", js, NULL, NULL), 0);
		}
		ASSERT((root = json_load_file(js, 0, &e)) != NULL);
		double h = (double)json_integer_value(json_object_get(root, "usageHalfLifeS"));
		json_decref(root);
		ASSERT_NEAR(h, good[i] ? good_s[i] : def.usage_half_life_s, 0);
	}
	ASSERT_NEAR(def.usage_half_life_s, 7 * 86400.0, 0); /* what --help says */
	unlink(trace);
	unlink(js);
	rmdir(dir);
}

/* The replay's half-life reaches the result (usage_half_life_s): the
 * option's, or the engine's default for 0. */
TEST(des_result_says_its_usage_half_life)
{
	struct fw_sim_opts o;
	struct fw_trace t;
	struct fw_sim_result r;
	struct fw_sched_config def;

	memset(&def, 0, sizeof def);
	fw_sched_config_default(&def);
	for (int k = 0; k < 2; k++) {
		budget_opts(&o, "kai", 0.5);
		o.usage_half_life_s = k ? 0 : 600;
		ASSERT_OK(replay_generic(budget_trace, &o, &t, &r));
		ASSERT_NEAR(r.usage_half_life_s, k ? def.usage_half_life_s : 600, 0);
		/* at 7 days qa holds about 2400 GPU-s at 300, which decay below
		 * 1800 only after about 2.9 days: B starts then, not at 410 */
		ASSERT(k ? r.start[trace_row(&t, "B")] > 86400 : r.start[trace_row(&t, "B")] == 410);
		fw_sim_result_free(&r);
		fw_trace_free(&t);
	}
}

/* ---- the real trace (optional) ------------------------------------------- */

static const char *c10_path(char *buf, size_t n)
{
	const char *root = getenv("FAIRWAY_TRACES");

	snprintf(buf, n, "%s/microsoft-itp/cluster10.csv", root && root[0] ? root : "../shared/traces");
	return buf;
}

TEST(des_cluster10_log_hash_is_pinned)
{
	char path[600];
	struct fw_itp_trace t;
	struct fw_sim_result r;
	struct fw_sim_opts o;
	struct fw_teams teams;
	struct fw_diag d;
	const char *pol[2] = { "fifo", "fairway" };
	const uint64_t pin[2] = { PIN_C10_FIFO, PIN_C10_FAIRWAY };

	fw_teams_builtin(&teams);
	ASSERT_OK(fw_itp_read(c10_path(path, sizeof path), 0, &t, &d));
	ASSERT_EQ(t.n, 260); /* the README's "259" is wc -l: the last row has no newline */
	for (int i = 0; i < 2; i++) {
		synth_opts(&o, pol[i]);
		ASSERT_OK(fw_sim_run(&t, &teams, &o, &r, &d));
		uint64_t h = fnv(r.log, r.log_len);
		printf("  cluster10 2x8 tick 10 %s: %lld starts, log fnv1a64 %016llx\n", pol[i],
		       (long long)r.decisions, (unsigned long long)h);
		ASSERT_EQ(r.never_started, 0);
		fw_sim_result_free(&r);
		ASSERT(h == pin[i]);
	}
	fw_itp_free(&t);
}

/* Every test, in order; the last needs $FAIRWAY_TRACES (skipped without). */
#define TESTS \
	itp_reads_rows_in_any_column_order, itp_bad_values_name_line_column_and_reason, \
	itp_skip_bad_rows_counts_and_keeps_the_first_reason, itp_read_reports_a_missing_file, \
	team_hash_is_splitmix64_over_fnv1a, team_mapping_is_deterministic_and_weighted, \
	team_quotas_are_proportional_and_sum_to_the_cluster, \
	teams_file_is_parsed_strictly_and_falls_back_when_missing, \
	des_fifo_blocks_behind_the_head_of_the_line, des_fairway_skips_ahead, \
	des_synthetic_log_hash_is_pinned_and_tick_skipping_changes_nothing, des_rejects_bad_options, \
	des_racks_and_odd_gang_sizes_keep_every_invariant, des_slices_keep_each_pair_of_tasks_in_a_rack, \
	des_bad_gpus_are_never_used_and_their_nodes_keep_the_rest, \
	des_reclaim_honours_the_protection_window_across_cycles, \
	des_tick_skipping_is_exact_for_every_policy, des_tick_skipping_is_exact_with_preemptible_jobs, \
	des_run_time_limit_ends_a_job_at_the_first_tick_past_it, \
	des_run_time_limit_wakes_a_cycle_with_nothing_waiting, \
	des_run_time_limit_longer_than_every_job_keeps_the_pinned_logs, \
	des_tick_skipping_is_exact_with_run_time_limits, \
	des_budget_holds_a_queue_until_its_usage_decays_below_it, des_budget_safe_waits_for_room_for_the_whole_run, \
	des_budget_safe_starts_a_short_job_when_the_engine_expects_its_run_to_fit, \
	des_budget_safe_holds_a_short_job_no_longer_than_its_budget_does, \
	des_budget_never_reached_changes_nothing, \
	des_tick_skipping_is_exact_with_budgets, des_held_jobs_do_not_force_a_cycle_every_tick, \
	des_a_jobs_own_limit_ends_it_and_spares_its_neighbour, \
	des_node_failure_requeues_its_job_until_the_repair, \
	des_gpu_failure_evicts_its_jobs_only_and_keeps_the_node, \
	des_on_evict_checkpoints_shorten_the_rerun, des_builtin_checkpoint_rule_keeps_whole_intervals, \
	des_records_each_jobs_first_start_estimate, des_estimate_is_not_taken_after_an_eviction, \
	des_evict_decision_goes_through_the_eviction_path, \
	des_no_failures_keeps_the_pinned_logs, des_failure_source_is_checked, \
	cli_usage_errors_exit_2_and_a_run_writes_json_and_log, \
	cli_jobs_csv_has_a_row_per_job_and_policy, cli_usage_half_life_takes_whole_seconds, \
	des_result_says_its_usage_half_life, des_cluster10_log_hash_is_pinned

int main(void)
{
	char path[600];
	fw_test_fn fns[] = { TESTS };
	int n = (int)(sizeof fns / sizeof fns[0]);

	if (access(c10_path(path, sizeof path), R_OK) != 0) {
		printf("SKIP des_cluster10_log_hash_is_pinned: %s not found (set FAIRWAY_TRACES)\n", path);
		n--; /* the last test; not counted as passed */
	}
	return fw_test_main(FW_TEST__STR(TESTS), fns, n);
}
