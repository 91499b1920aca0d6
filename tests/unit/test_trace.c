/*
 * test_trace.c — the trace model and its readers (sim/trace.h): the
 * generic CSV and JSONL format (values, defaults, every kind of bad row
 * with file:line:col, --skip-bad-rows counting), ITP gang shaping, openb
 * pods as a trace, and the sacct converter on tests/data/sacct_sample.txt
 * (its output must read back through the generic reader).
 *
 * The openb test reads $FAIRWAY_TRACES/alibaba-openb (default
 * ../shared/traces); without it that test prints SKIP and is not counted.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fleet.h"
#include "harness.h"
#include "trace.h"

static int csv(const char *text, unsigned flags, struct fw_trace *t, char *why, size_t n)
{
	struct fw_diag d;
	int rc;

	memset(&d, 0, sizeof d);
	rc = fw_trace_parse_generic(text, strlen(text), "t.csv", flags, t, &d);
	if (why)
		fw_itp_diag_str(rc == FW_OK ? &t->first_bad : &d, why, n);
	return rc;
}

TEST(generic_csv_reads_every_column)
{
	struct fw_trace t;
	const char *text =
		"job_id,submit_time,duration,expected_runtime,queue,user,priority,tasks,"
		"gpus_per_task,gpu_milli,cpu_milli,mem_mib,min_member,topology_required,"
		"topology_preferred,gpu_model\r\n"
		"j1,10,100,200,research,alice,-5,4,8,1000,16000,65536,2,block,rack,H100\r\n"
		"\n"
		"j2,20,50,,,,,,1,500,,,,,,\n";

	ASSERT_OK(csv(text, 0, &t, NULL, 0));
	ASSERT_EQ(t.n, 2);
	ASSERT_STR_EQ(t.v[0].id, "j1");
	ASSERT_EQ(t.v[0].submit, 10);
	ASSERT_EQ(t.v[0].duration, 100);
	ASSERT_EQ(t.v[0].expected, 200);
	ASSERT_STR_EQ(t.v[0].queue, "research");
	ASSERT_STR_EQ(t.v[0].user, "alice");
	ASSERT_EQ(t.v[0].priority, -5);
	ASSERT_EQ(t.v[0].groups[0].count, 4);
	ASSERT_EQ(t.v[0].groups[0].gpus, 8);
	ASSERT_EQ(t.v[0].groups[0].cpu_milli, 16000);
	ASSERT_EQ(t.v[0].groups[0].mem_mib, 65536);
	ASSERT_EQ(t.v[0].min_member, 2);
	ASSERT_STR_EQ(t.v[0].topo_required, "block");
	ASSERT_STR_EQ(t.v[0].topo_preferred, "rack");
	ASSERT_STR_EQ(t.v[0].gpu_model, "H100");
	ASSERT_EQ(fw_trace_job_gpus(&t.v[0]), 32);
	/* defaults */
	ASSERT_EQ(t.v[1].expected, 50);
	ASSERT_EQ(t.v[1].groups[0].count, 1);
	ASSERT_EQ(t.v[1].groups[0].gpu_milli, 500);
	ASSERT_STR_EQ(t.v[1].queue, "");
	ASSERT_EQ(t.v[1].line, 4);
	ASSERT_NEAR(fw_trace_job_gpu_s(&t.v[1]), 25.0, 1e-9);
	fw_trace_free(&t);
}

TEST(generic_csv_bad_rows_name_line_column_and_field)
{
	static const struct { const char *row, *why; } cases[] = {
		{ "a,1,ten,1", "t.csv:2:5: duration: 'ten' is not a whole number (digits only); write it in decimal digits, e.g. 3600" },
		{ "a,1,2.5,1", "t.csv:2:5: duration: '2.5' is not a whole number; round it: the columns take whole numbers only" },
		{ "a,-1,2,1", "t.csv:2:3: submit_time: '-1' is out of range 0..1000000000000; give a value in that range (docs/trace-format.md, the column\'s row)" },
		{ "a,1,2,17", "t.csv:2:7: gpus_per_task: '17' is out of range 0..16; give a value in that range (docs/trace-format.md, the column\'s row)" },
		{ "a,1,2", "t.csv:2:5: row: has 3 fields, the header has 4; give each row one field per column (an empty field takes an optional column's default: a,,b), and quote a value holding a comma" },
		{ ",1,2,1", "t.csv:2:1: job_id: is empty (the column is required); give a value" },
		{ "a b,1,2,1", "t.csv:2:1: job_id: 'a b' has a space, quote, backslash, comma, control or "
		  "non-ASCII byte; names are printable ASCII, so rename it without them" },
		{ "a,99999999999999999999,2,1", "t.csv:2:3: submit_time: '99999999999999999999' is out of range 0..1000000000000; give a value in that range (docs/trace-format.md, the column\'s row)" },
	};
	char text[256], why[512];
	struct fw_trace t;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text, "job_id,submit_time,duration,gpus_per_task\n%s\n",
			 cases[i].row);
		ASSERT_EQ(csv(text, 0, &t, why, sizeof why), FW_EINVAL);
		ASSERT_STR_EQ(why, cases[i].why);
		ASSERT(t.v == NULL && t.n == 0);
	}
}

TEST(generic_cross_field_rules_and_duplicates)
{
	char why[512];
	struct fw_trace t;

	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task,gpu_milli\nx,0,1,2,500\n",
		      0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "t.csv:2:9: gpu_milli: 500 is a fraction");
	ASSERT_STR_CONTAINS(why, "; give gpus_per_task 1, or leave gpu_milli empty"); /* what to do */
	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task,tasks,min_member\n"
		      "x,0,1,2,2,3\n", 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "min_member: 3 is more than the job's 2 tasks; give at most 2 (or 0 or empty: all of them)");
	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task\nx,0,1,1\ny,0,1,1\nx,5,1,1\n",
		      0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:4:1: job_id: 'x' repeats the job on line 2; give each job its own job_id");
}

/* A task that asks for nothing (0 GPUs, no CPU, no memory) is refused,
 * as the config and the API refuse it: it would hold its place for ever.
 * CPU or memory alone is a task. */
TEST(generic_task_of_nothing_is_refused)
{
	char why[512];
	struct fw_trace t;

	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task\nx,0,1,0\n", 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "t.csv:2:7: gpus_per_task: 0 with no cpu_milli or mem_mib: the task asks for nothing");
	ASSERT_STR_CONTAINS(why, "give gpus_per_task, cpu_milli or mem_mib above 0");
	ASSERT_EQ(csv("{\"job_id\":\"a\",\"submit_time\":1,\"duration\":1,\"gpus_per_task\":0}\n", 0, &t, why,
		      sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "t.csv:1:44: gpus_per_task: 0 with no cpu_milli or mem_mib");
	ASSERT_OK(csv("job_id,submit_time,duration,gpus_per_task,cpu_milli\nx,0,1,0,500\n", 0, &t, NULL, 0));
	fw_trace_free(&t);
	ASSERT_OK(csv("job_id,submit_time,duration,gpus_per_task,mem_mib\nx,0,1,0,64\n", 0, &t, NULL, 0));
	fw_trace_free(&t);
}

TEST(generic_header_errors_are_never_skipped)
{
	char why[512];
	struct fw_trace t;

	ASSERT_EQ(csv("job_id,submit_time,duration\n", FW_TRACE_SKIP_BAD, &t, why, sizeof why),
		  FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "missing required column 'gpus_per_task'");
	ASSERT_EQ(csv("job_id,submit,duration,gpus_per_task\n", FW_TRACE_SKIP_BAD, &t, why,
		      sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:1:8: header: unknown column 'submit'; the columns are job_id, submit_time, duration, expected_runtime, queue, user, priority, tasks, gpus_per_task, gpu_milli, cpu_milli, mem_mib, min_member, topology_required, topology_preferred, gpu_model, max_runtime "
			   "(docs/trace-format.md): rename it or remove it");
	/* a file without its header line: its first row is read as one, and
	 * the error says so and lists the columns */
	ASSERT_EQ(csv("a,0,100,1,1\n", FW_TRACE_SKIP_BAD, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:1:1: header: unknown column 'a': the first line is read as the header and "
			   "names no column; add a header line first. The columns: job_id, submit_time, duration, "
			   "gpus_per_task, expected_runtime, queue, user, priority, tasks, gpu_milli, cpu_milli, "
			   "mem_mib, min_member, topology_required, topology_preferred, gpu_model, max_runtime (the "
			   "first 4 required; docs/trace-format.md)");
	/* names, no number: a header of unknown names, not a row */
	ASSERT_EQ(csv("a,b\n", 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "header: unknown column 'a'; the columns are job_id");
	/* the same for an ITP trace */
	{
		struct fw_itp_trace in;
		struct fw_diag d;
		const char *row = "a,0,100,1\n";
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_itp_parse(row, strlen(row), "i.csv", 0, &in, &d), FW_EINVAL);
		fw_itp_diag_str(&d, why, sizeof why);
		ASSERT_STR_EQ(why, "i.csv:1:1: header: no column 'job_id': the first line is read as the header "
				   "and names no column; add a header line first: job_id,submission_time,duration,"
				   "num_gpu (any order; docs/trace-format.md)");
	}
	/* a comment line: no such thing in the format, and the fix is to delete it */
	ASSERT_EQ(csv("# my trace\njob_id,submit_time,duration,gpus_per_task\n", 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:1:1: header: a comment line: the trace format has no comments; delete the line "
			   "(the header must be the first line)");
	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task\na,0,1,1\n  # note\n", 0, &t, why, sizeof why),
		  FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:3:3: row: a comment line: the trace format has no comments; delete the line");
	ASSERT_OK(csv("job_id,submit_time,duration,gpus_per_task\na,0,1,1\n# note\n", FW_TRACE_SKIP_BAD, &t, why,
		      sizeof why));
	ASSERT_EQ(t.skipped, 1);
	fw_trace_free(&t);
	ASSERT_EQ(csv("job_id,job_id\n", 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "appears twice; keep one");
	ASSERT_EQ(csv("\n\n", 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "no header line); give a CSV header (job_id,submit_time,duration,gpus_per_task,...)");
}

/* A sign only where a negative value is allowed: "-0" is no submit time. */
TEST(generic_minus_zero_only_for_priority)
{
	struct fw_trace t;
	char why[512];

	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task\na,-0,10,1\n", 0, &t, why,
		      sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:2:3: submit_time: '-0' is out of range 0..1000000000000; give a value in that range (docs/trace-format.md, the column\'s row)");
	ASSERT_OK(csv("job_id,submit_time,duration,gpus_per_task,priority\na,0,10,1,-0\n", 0, &t,
		      why, sizeof why));
	ASSERT_EQ(t.v[0].priority, 0);
	fw_trace_free(&t);
}

/* What editors and spreadsheets add: a byte-order mark (CSV and JSONL),
 * blank lines of spaces, a trailing comma in the header. */
TEST(generic_bom_blank_lines_and_unnamed_columns)
{
	struct fw_trace t;
	char why[512];

	ASSERT_OK(csv("\xEF\xBB\xBF" "job_id,submit_time,duration,gpus_per_task\r\n"
		      "a,0,10,1\r\n  \r\n\t\nb,5,10,2\r\n", 0, &t, why, sizeof why));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.v[1].line, 5);
	fw_trace_free(&t);
	ASSERT_OK(csv("\xEF\xBB\xBF" "{\"job_id\": \"a\", \"submit_time\": 0, \"duration\": 1, "
		      "\"gpus_per_task\": 1}\n   \n", 0, &t, why, sizeof why));
	ASSERT_EQ(t.n, 1);
	fw_trace_free(&t);
	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task,\na,0,10,1,\n", 0, &t, why,
		      sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:1:43: header: column 5 has no name (a trailing or doubled "
		      "comma?); see docs/trace-format.md");
	/* a BOM anywhere else is part of the value, and refused in a name */
	ASSERT_EQ(csv("job_id,submit_time,duration,gpus_per_task\n\xEF\xBB\xBF" "a,0,10,1\n", 0, &t,
		      why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "t.csv:2:1: job_id: '???a' has a space");
}

TEST(generic_skip_bad_rows_counts_and_keeps_the_first_reason)
{
	char why[512];
	struct fw_trace t;
	const char *text = "job_id,submit_time,duration,gpus_per_task\n"
			   "a,1,1,1\nb,x,1,1\nc,2,2,2\nd,3,3,99\na,4,4,1\n";

	ASSERT_EQ(csv(text, 0, &t, NULL, 0), FW_EINVAL);
	ASSERT_OK(csv(text, FW_TRACE_SKIP_BAD, &t, why, sizeof why));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.skipped, 3);
	ASSERT_STR_EQ(t.v[1].id, "c");
	ASSERT_STR_EQ(why, "t.csv:3:3: submit_time: 'x' is not a whole number (digits only); write it in decimal digits, e.g. 3600");
	fw_trace_free(&t);
}

TEST(generic_jsonl_reads_the_same_keys)
{
	char why[512];
	struct fw_trace t;
	const char *text =
		"{\"job_id\": \"j1\", \"submit_time\": 5, \"duration\": 60, \"queue\": \"q\",\n"
		"\"gpus_per_task\": 8, \"tasks\": 2}\n";
	const char *good =
		"{\"job_id\": \"j1\", \"submit_time\": 5, \"duration\": 60, \"queue\": \"q\","
		" \"gpus_per_task\": 8, \"tasks\": 2, \"user\": null}\n"
		"\n{\"job_id\": 7, \"submit_time\": 6, \"duration\": 1, \"gpus_per_task\": 1,"
		" \"topology_required\": \"rack\"}\n";

	ASSERT_EQ(csv(text, 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "t.csv:1:");
	ASSERT_STR_CONTAINS(why, "row: not JSON");
	ASSERT_OK(csv(good, 0, &t, NULL, 0));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(fw_trace_job_gpus(&t.v[0]), 16);
	ASSERT_STR_EQ(t.v[1].id, "7");
	ASSERT_STR_EQ(t.v[1].topo_required, "rack");
	ASSERT_EQ(t.v[1].line, 3);
	fw_trace_free(&t);
}

TEST(generic_jsonl_bad_values_name_the_key)
{
	char why[512];
	struct fw_trace t;

	ASSERT_EQ(csv("{\"job_id\":\"a\",\"submit_time\":1.5,\"duration\":1,\"gpus_per_task\":1}\n",
		      0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:1:15: submit_time: must be a whole number; round it (JSON integers only)");
	ASSERT_EQ(csv("{\"job_id\":\"a\",\"submit_time\":1,\"duration\":1,\"gpus\":1}\n",
		      0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "gpus: unknown key");
	ASSERT_EQ(csv("{\"job_id\":\"a\",\"submit_time\":1,\"duration\":1}\n",
		      0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "gpus_per_task: missing required key");
	ASSERT_EQ(csv("{\"job_id\":\"a\",\"submit_time\":1,\"duration\":1,\"gpus_per_task\":1}\n"
		      "[1]\n", FW_TRACE_SKIP_BAD, &t, why, sizeof why), FW_OK);
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(t.skipped, 1);
	ASSERT_STR_CONTAINS(why, "t.csv:2:1: row: must be a JSON object");
	fw_trace_free(&t);
}

/* max_runtime, a job's own run-time limit: 0..2147483647 (fw_job's
 * 32-bit seconds), empty, absent or null = 0 (none), in CSV and JSONL
 * alike, and fw_trace_make_job hands it to the engine. */
TEST(generic_max_runtime_is_a_jobs_own_limit)
{
	struct fw_topology topo = { 0, { "" } };
	struct fw_trace t;
	struct fw_job j;
	struct fw_diag d;

	ASSERT_OK(csv("job_id,submit_time,duration,gpus_per_task,max_runtime\n"
		      "a,0,1000,8,95\nb,0,10,1,\nc,0,10,1,0\nd,0,10,1,2147483647\n", 0, &t, NULL, 0));
	ASSERT_EQ(t.n, 4);
	ASSERT_EQ(t.v[0].max_runtime, 95);
	ASSERT_EQ(t.v[0].expected, 1000); /* the announced runtime is its own */
	ASSERT_EQ(t.v[1].max_runtime, 0);
	ASSERT_EQ(t.v[2].max_runtime, 0);
	ASSERT_EQ(t.v[3].max_runtime, 2147483647);
	ASSERT_OK(fw_trace_make_job(&t, 0, &topo, &j, &d));
	ASSERT_EQ(j.max_runtime_s, 95);
	ASSERT_OK(fw_trace_make_job(&t, 3, &topo, &j, &d));
	ASSERT_EQ(j.max_runtime_s, INT32_MAX);
	ASSERT_OK(fw_trace_make_job(&t, 1, &topo, &j, &d));
	ASSERT_EQ(j.max_runtime_s, 0);
	fw_trace_free(&t);
	ASSERT_OK(csv("job_id,submit_time,duration,gpus_per_task\na,0,1000,8\n", 0, &t, NULL, 0));
	ASSERT_EQ(t.v[0].max_runtime, 0); /* no column: none */
	fw_trace_free(&t);
	ASSERT_OK(csv("{\"job_id\":\"a\",\"submit_time\":0,\"duration\":1000,\"gpus_per_task\":8,"
		      "\"max_runtime\":3600}\n"
		      "{\"job_id\":\"b\",\"submit_time\":0,\"duration\":10,\"gpus_per_task\":1,"
		      "\"max_runtime\":null}\n"
		      "{\"job_id\":\"c\",\"submit_time\":0,\"duration\":10,\"gpus_per_task\":1}\n",
		      0, &t, NULL, 0));
	ASSERT_EQ(t.n, 3);
	ASSERT_EQ(t.v[0].max_runtime, 3600);
	ASSERT_EQ(t.v[1].max_runtime, 0);
	ASSERT_EQ(t.v[2].max_runtime, 0);
	fw_trace_free(&t);
}

TEST(generic_max_runtime_bad_values_name_line_column_and_field)
{
	static const struct { const char *text, *why; } cases[] = {
		{ "job_id,submit_time,duration,gpus_per_task,max_runtime\na,0,10,1,2147483648\n",
		  "t.csv:2:10: max_runtime: '2147483648' is out of range 0..2147483647; give a value in that range (docs/trace-format.md, the column\'s row)" },
		{ "job_id,submit_time,duration,gpus_per_task,max_runtime\na,0,10,1,-1\n",
		  "t.csv:2:10: max_runtime: '-1' is out of range 0..2147483647; give a value in that range (docs/trace-format.md, the column\'s row)" },
		{ "job_id,max_runtime,submit_time,duration,gpus_per_task\na,1h,0,10,1\n",
		  "t.csv:2:3: max_runtime: '1h' is not a whole number (digits only); write it in decimal digits, e.g. 3600" },
		{ "job_id,submit_time,duration,gpus_per_task,max_runtime\nok,0,10,1,60\nb,0,10,1,9.5\n",
		  "t.csv:3:10: max_runtime: '9.5' is not a whole number; round it: the columns take whole numbers only" },
		{ "job_id,submit_time,duration,gpus_per_task,max_runtime,max_runtime\n",
		  "t.csv:1:55: header: column 'max_runtime' appears twice; keep one" },
		{ "{\"job_id\":\"a\",\"submit_time\":0,\"duration\":10,\"gpus_per_task\":1,\"max_runtime\":\"95\"}\n",
		  "t.csv:1:63: max_runtime: must be a number; write it without quotes (a JSON integer)" },
		{ "{\"job_id\":\"a\",\"submit_time\":0,\"duration\":10,\"gpus_per_task\":1,\"max_runtime\":1.5}\n",
		  "t.csv:1:63: max_runtime: must be a whole number; round it (JSON integers only)" },
		{ "{\"job_id\":1.5,\"submit_time\":0,\"duration\":10,\"gpus_per_task\":1}\n",
		  "t.csv:1:2: job_id: must be a string or a whole number; quote it (\"name\")" },
		{ "{\"job_id\":\"a\",\"submit_time\":0,\"duration\":10,\"gpus_per_task\":1,\"max_runtime\":4294967296}\n",
		  "t.csv:1:63: max_runtime: '4294967296' is out of range 0..2147483647; give a value in that range (docs/trace-format.md, the column\'s row)" },
	};
	char why[512];
	struct fw_trace t;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ASSERT_EQ(csv(cases[i].text, 0, &t, why, sizeof why), FW_EINVAL);
		ASSERT_STR_EQ(why, cases[i].why);
		ASSERT(t.v == NULL && t.n == 0);
	}
	/* --skip-bad-rows skips such a row and keeps the others */
	ASSERT_OK(csv(cases[3].text, FW_TRACE_SKIP_BAD, &t, why, sizeof why));
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(t.v[0].max_runtime, 60);
	ASSERT_EQ(t.skipped, 1);
	ASSERT_STR_EQ(why, cases[3].why);
	fw_trace_free(&t);
}

TEST(itp_rows_are_shaped_into_gangs)
{
	struct fw_itp_trace in;
	struct fw_trace t;
	struct fw_diag d;
	char why[512];
	const char *text = "job_id,submission_time,duration,num_gpu\na,0,10,20\nb,5,7,3\nc,6,1,16\n";

	ASSERT_OK(fw_itp_parse(text, strlen(text), "i.csv", 0, &in, &d));
	ASSERT_OK(fw_trace_from_itp(&in, 8, &t, &d));
	ASSERT_EQ(t.n, 3);
	ASSERT_EQ(t.v[0].ngroups, 2);
	ASSERT_EQ(t.v[0].groups[0].count, 2);
	ASSERT_EQ(t.v[0].groups[0].gpus, 8);
	ASSERT_EQ(t.v[0].groups[1].count, 1);
	ASSERT_EQ(t.v[0].groups[1].gpus, 4);
	ASSERT_EQ(t.v[0].expected, 10);
	ASSERT_EQ(t.v[1].ngroups, 1);
	ASSERT_EQ(t.v[1].groups[0].gpus, 3);
	ASSERT_EQ(t.v[2].ngroups, 1);
	ASSERT_EQ(t.v[2].groups[0].count, 2);
	ASSERT_EQ(fw_trace_job_gpus(&t.v[2]), 16);
	fw_trace_free(&t);
	ASSERT_EQ(fw_trace_from_itp(&in, 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "i.csv: gpus_per_node: 0 is not 1..16; give the fleet nodes of 1..16 GPUs "
		      "(--nodes NxG)");
	fw_itp_free(&in);
}

TEST(openb_pods_become_a_trace)
{
	char why[512];
	struct fw_trace t;
	struct fw_diag d;
	const char *hdr = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
			  "creation_time,deletion_time,scheduled_time\n";
	char text[1024];

	snprintf(text, sizeof text, "%sp0,12000,16384,1,460,V100,LS,Running,100,400,100\n"
		 "p1,6000,1024,2,1000,A|B,LS,Running,200,200,0\n", hdr);
	ASSERT_OK(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d));
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.v[0].submit, 100);
	ASSERT_EQ(t.v[0].duration, 300);
	ASSERT_EQ(t.v[0].groups[0].gpu_milli, 460);
	ASSERT_EQ(t.v[0].groups[0].cpu_milli, 12000);
	ASSERT_STR_EQ(t.v[0].gpu_model, "V100");
	ASSERT_STR_EQ(t.v[1].gpu_model, "");
	fw_trace_free(&t);
	snprintf(text, sizeof text, "%sp0,1,1,1,1000,,LS,Running,100,,0\n", hdr);
	ASSERT_EQ(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "p.csv:2:");
	ASSERT_STR_CONTAINS(why, "deletion_time: is empty: a pod needs creation_time");
	snprintf(text, sizeof text, "%sp0,1,1,1,1000,,LS,Running,100,,0\n"
		 "p1,1,1,1,1000,,LS,Running,5,6,0\n", hdr);
	ASSERT_OK(fw_trace_parse_openb(text, strlen(text), "p.csv", FW_TRACE_SKIP_BAD, &t, &d));
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(t.skipped, 1);
	fw_trace_free(&t);
	/* a repeated pod name is refused as a repeated job id is */
	snprintf(text, sizeof text, "%sp0,1,1,1,1000,,LS,Running,1,2,0\n"
		 "p1,1,1,1,1000,,LS,Running,1,2,0\np0,1,1,1,1000,,LS,Running,3,4,0\n", hdr);
	ASSERT_EQ(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "p.csv:4:1: name: duplicate pod name \"p0\": it already appeared on line 2; "
		      "give each row its own pod name, or drop the repeated row");
	/* a byte-order mark before creation_time, skipped as the pod reader does */
	snprintf(text, sizeof text, "\xEF\xBB\xBF" "creation_time,deletion_time,name,cpu_milli,"
		 "memory_mib,num_gpu,gpu_milli,gpu_spec\n7,9,p0,1,1,1,1000,\n");
	ASSERT_OK(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d));
	ASSERT_EQ(t.v[0].submit, 7);
	fw_trace_free(&t);
	/* each limit of the trace model names its own column */
	snprintf(text, sizeof text, "%sp0,1,1,17,1000,,LS,Running,1,2,0\n", hdr);
	ASSERT_EQ(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "p.csv:2:8: num_gpu: pod 'p0' asks for 17 GPUs; a pod runs on one "
		      "node, which has at most 16: give it at most 16, or leave it out");
	snprintf(text, sizeof text, "%sp%064d,1,1,1,1000,,LS,Running,1,2,0\n", hdr, 0);
	ASSERT_EQ(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "p.csv:2:1: name: 'p0000");
	ASSERT_STR_CONTAINS(why, "is longer than 63 bytes, the longest job id");
	/* a model longer than a name was cut to 63 bytes, silently */
	snprintf(text, sizeof text, "%sp0,1,1,1,1000,M%064d,LS,Running,1,2,0\n", hdr, 0);
	ASSERT_EQ(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "p.csv:2:15: gpu_spec: model 'M000");
	/* names reach --log (JSON) and --jobs (CSV): a quote or comma is refused */
	snprintf(text, sizeof text, "%s\"p\"\"0\",1,1,1,1000,,LS,Running,1,2,0\n", hdr);
	ASSERT_EQ(fw_trace_parse_openb(text, strlen(text), "p.csv", 0, &t, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "p.csv:2:1: name: \"p\"0\" has a space, quote");
}

TEST(sacct_sample_converts_and_reads_back)
{
	char *in, *out;
	size_t len, olen;
	struct fw_sacct_counts skipped;
	struct fw_trace t;
	struct fw_diag d;

	ASSERT_OK(fw_itp_slurp("tests/data/sacct_sample.txt", &in, &len, &d));
	ASSERT_OK(fw_sacct_convert(in, len, "sacct_sample.txt", 0, &out, &olen, &skipped, &d));
	free(in);
	ASSERT_EQ(skipped.never_ran, 1); /* 1003 pending */
	ASSERT_EQ(skipped.no_gpu, 1);    /* 1004 has no GPU */
	ASSERT_EQ(skipped.unfinished, 0);
	ASSERT_EQ(skipped.steps, 3);     /* 1001.batch, 1001.extern, 1002.0 */
	ASSERT_EQ(skipped.rows, 8);      /* every data row, the steps too; not the header */
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(t.n, 3);
	ASSERT_STR_EQ(t.v[0].id, "1001");
	ASSERT_EQ(t.v[0].submit, 0);
	ASSERT_EQ(t.v[0].duration, 7200);
	ASSERT_EQ(t.v[0].expected, 14400);
	ASSERT_STR_EQ(t.v[0].queue, "vision");
	ASSERT_STR_EQ(t.v[0].user, "alice");
	ASSERT_EQ(t.v[0].priority, 1200);
	ASSERT_EQ(t.v[0].groups[0].mem_mib, 64000); /* mem=62.50G, as sacct prints it */
	ASSERT_STR_EQ(t.v[1].id, "1002");
	ASSERT_EQ(t.v[1].submit, 1800);
	ASSERT_EQ(t.v[1].duration, 86400);
	ASSERT_EQ(t.v[1].groups[0].count, 2);
	ASSERT_EQ(t.v[1].groups[0].gpus, 8);
	ASSERT_EQ(t.v[1].groups[0].cpu_milli, 64000);
	ASSERT_STR_EQ(t.v[1].gpu_model, "h100");
	ASSERT_STR_EQ(t.v[2].id, "1005_3");
	ASSERT_STR_EQ(t.v[2].queue, "gpu"); /* no Account: the partition */
	ASSERT_EQ(t.v[2].duration, 1800);
	ASSERT_EQ(t.v[2].expected, 1800);   /* Partition_Limit: = duration */
	ASSERT_EQ(t.v[2].groups[0].mem_mib, 128000);
	fw_trace_free(&t);
}

/* Timelimit stays expected_runtime; --time-limits (FW_SACCT_TIME_LIMITS)
 * also writes it as max_runtime, a last column, so the replay ends a job at
 * its limit; a limit of 0, none (UNLIMITED, Partition_Limit, empty) or past
 * 2147483647 s leaves it empty.  Without the flag the output is as before. */
TEST(sacct_time_limits_fill_max_runtime_only_when_asked)
{
	char *in, *out;
	size_t len, olen;
	struct fw_sacct_counts skipped;
	struct fw_trace t;
	struct fw_diag d;
	static const char huge[] =
		"JobID|Submit|Start|Elapsed|Timelimit|AllocTRES|NNodes|State\n"
		"7|2024-03-01T10:00:00|2024-03-01T10:00:00|02:00:00|30000-00:00:00|gres/gpu=8,node=1|1|COMPLETED\n"
		"8|2024-03-01T10:00:00|2024-03-01T10:01:00|01:00:30|01:00:00|gres/gpu=8,node=1|1|TIMEOUT\n"
		"9|2024-03-01T10:00:00|2024-03-01T10:01:00|00:10:00|00:00:00|gres/gpu=8,node=1|1|COMPLETED\n";

	ASSERT_OK(fw_itp_slurp("tests/data/sacct_sample.txt", &in, &len, &d));
	ASSERT_OK(fw_sacct_convert(in, len, "sacct_sample.txt", 0, &out, &olen, &skipped, &d));
	static const char head[] = "job_id,submit_time,duration,expected_runtime,queue,user,priority,"
				   "tasks,gpus_per_task,cpu_milli,mem_mib,gpu_model\n1001,";
	ASSERT(olen > sizeof head && !strncmp(out, head, sizeof head - 1));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	for (size_t i = 0; i < t.n; i++)
		ASSERT_EQ(t.v[i].max_runtime, 0);
	fw_trace_free(&t);
	ASSERT_OK(fw_sacct_convert(in, len, "sacct_sample.txt", FW_SACCT_TIME_LIMITS, &out, &olen,
				   &skipped, &d));
	free(in);
	ASSERT_STR_CONTAINS(out, ",gpu_model,max_runtime\n1001,0,7200,14400,");
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(t.n, 3);
	ASSERT_EQ(t.v[0].expected, 14400);    /* Timelimit 04:00:00, both */
	ASSERT_EQ(t.v[0].max_runtime, 14400);
	ASSERT_EQ(t.v[1].max_runtime, 172800); /* 2-00:00:00 */
	ASSERT_EQ(t.v[2].expected, 1800);     /* Partition_Limit: no limit */
	ASSERT_EQ(t.v[2].max_runtime, 0);
	fw_trace_free(&t);
	ASSERT_OK(fw_sacct_convert(huge, sizeof huge - 1, "huge.txt", FW_SACCT_TIME_LIMITS, &out, &olen,
				   &skipped, &d));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(t.n, 3);
	ASSERT_EQ(t.v[0].expected, INT64_C(30000) * 86400);
	ASSERT_EQ(t.v[0].max_runtime, 0);    /* 82 years: past fw_job's 32 bits */
	ASSERT_EQ(t.v[1].duration, 3630);    /* a TIMEOUT job ran past its limit */
	ASSERT_EQ(t.v[1].max_runtime, 3600); /* ... and the replay ends it there */
	ASSERT_EQ(t.v[2].max_runtime, 0);    /* 0: no limit */
	fw_trace_free(&t);
}

TEST(sacct_bad_values_name_line_and_column)
{
	const char *text = "JobID|Submit|Start|Elapsed|AllocTRES|NNodes\n"
			   "1|2024-03-01T10:00:00|2024-03-01T10:00:00|1:2:3:4|gres/gpu=1|1\n";
	const char *uneven = "JobID|Submit|Start|Elapsed|AllocTRES|NNodes\n"
			     "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=3|2\n";
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_diag d;

	ASSERT_EQ(fw_sacct_convert(text, strlen(text), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "s.txt:2:43: Elapsed: '1:2:3:4' is not a Slurm duration "
		      "(MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS); give it as sacct prints it, "
		      "e.g. 1-02:03:04 or 02:03:04");
	ASSERT_EQ(fw_sacct_convert(uneven, strlen(uneven), "s.txt", 0, &out, &olen, &sk, &d),
		  FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "AllocTRES: 'gres/gpu=3': the GPUs do not split evenly");
	ASSERT_EQ(fw_sacct_convert("User|State\n", 11, "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "no column JobID or JobIDRaw (is this sacct --parsable2 output?); export it");
}

/* sacct prints TRES sizes with decimals (mem=62.50G); every unit, and no
 * unit (M), is read and rounded up to whole MiB.  A bad value names its
 * key and where the item starts, not the whole list. */
TEST(sacct_decimal_sizes_and_bad_tres_values)
{
	const char *ok = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			 "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|billing=16,cpu=16,gres/gpu=4,mem=62.50G,node=1\n"
			 "2|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=4,mem=1.5T\n"
			 "3|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=4,mem=1000\n"
			 "4|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=4,mem=1.5K\n"
			 "5|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=4,mem=100.25M\n";
	const char *mem = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			  "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|billing=16,cpu=16,gres/gpu=4,mem=62.5X,node=1\n";
	const char *cpu = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			  "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|cpu=1.5,gres/gpu=4\n";
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_trace t;
	struct fw_diag d;

	ASSERT_OK(fw_sacct_convert(ok, strlen(ok), "s.txt", 0, &out, &olen, &sk, &d));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(t.n, 5);
	ASSERT_EQ(t.v[0].groups[0].mem_mib, 64000);
	ASSERT_EQ(t.v[0].groups[0].cpu_milli, 16000);
	ASSERT_EQ(t.v[1].groups[0].mem_mib, 1572864);
	ASSERT_EQ(t.v[2].groups[0].mem_mib, 1000);
	ASSERT_EQ(t.v[3].groups[0].mem_mib, 1);
	ASSERT_EQ(t.v[4].groups[0].mem_mib, 101);
	fw_trace_free(&t);
	ASSERT_EQ(fw_sacct_convert(mem, strlen(mem), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "s.txt:2:78: AllocTRES mem=: '62.5X' is not a size; give N or N.N (at most 6 "
		      "decimals) with K, M, G, T or P, as sacct prints it: mem=62.50G");
	ASSERT_EQ(fw_sacct_convert(cpu, strlen(cpu), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "s.txt:2:49: AllocTRES cpu=: '1.5' is not a whole number; write it in decimal "
		      "digits only (at most 15)");
}

/* Without an Elapsed column the run time is End - Start; an End before
 * its Start, a column named twice and a row of the wrong width are
 * refused, naming the line and column. */
TEST(sacct_end_minus_start_and_malformed_rows)
{
	const char *ends = "JobID|Submit|Start|End|AllocTRES\n"
			   "7|2024-03-01T10:00:00|2024-03-01T10:05:00|2024-03-01T12:05:30|gres/gpu=2,node=1\n";
	const char *back = "JobID|Submit|Start|End|AllocTRES\n"
			   "7|2024-03-01T10:00:00|2024-03-01T10:05:00|2024-03-01T10:04:59|gres/gpu=2\n";
	const char *twice = "JobID|Submit|Start|Elapsed|AllocTRES|Start\n";
	const char *width = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			    "7|2024-03-01T10:00:00|2024-03-01T10:05:00|01:00\n";
	const char *noend = "JobID|Submit|Start|AllocTRES\n";
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_trace t;
	struct fw_diag d;

	ASSERT_OK(fw_sacct_convert(ends, strlen(ends), "s.txt", 0, &out, &olen, &sk, &d));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(t.n, 1);
	ASSERT_EQ(t.v[0].duration, 2 * 3600 + 30);
	ASSERT_EQ(t.v[0].groups[0].gpus, 2);
	fw_trace_free(&t);
	ASSERT_EQ(fw_sacct_convert(back, strlen(back), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:2:");
	ASSERT_STR_CONTAINS(why, "End: '2024-03-01T10:04:59' is before Start");
	ASSERT_EQ(fw_sacct_convert(twice, strlen(twice), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:1:");
	ASSERT_STR_CONTAINS(why, "column 'Start' appears twice");
	ASSERT_EQ(fw_sacct_convert(width, strlen(width), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:2:1: row: has 4 fields, the header has 5");
	ASSERT_EQ(fw_sacct_convert(noend, strlen(noend), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:1:1: header: no column Elapsed (or End); the header needs Submit, "
			    "Start, Elapsed (or End) and AllocTRES or ReqTRES: export it with sacct --parsable2");
}

#define SACCT_CMD "sacct --parsable2 --format JobID,JobIDRaw,User,Account,Partition,Submit,Start,End," \
		  "Elapsed,Timelimit,AllocTRES,ReqTRES,NNodes,State,Priority"
#define SACCT_H "JobID|Submit|Start|Elapsed|AllocTRES|NNodes|Priority|Timelimit|User\n"
#define SACCT_T "2024-03-01T10:00:00"

/* Every refusal of the converter names file, line, column and field and
 * ends with what to do (the column of each field of the row: JobID 1,
 * Submit 3, Start 23, Elapsed 43, AllocTRES 49, NNodes 60, Priority 62,
 * Timelimit 64, User 70). */
TEST(sacct_refusals_say_what_to_do)
{
	static const struct { const char *text, *why; } cases[] = {
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1|x|5|02:00|alice\n",
		  "s.txt:2:60: NNodes: 'x' is not a node count 1..65536; give the job's nodes as a whole "
		  "number in that range" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1|1|-1|02:00|alice\n",
		  "s.txt:2:62: Priority: '-1' is not a whole number 0..4294967295 (Slurm's priorities); give "
		  "one in that range, or leave it empty (priority 0)" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1|1|4294967296|02:00|alice\n",
		  "s.txt:2:62: Priority: '4294967296' is not a whole number 0..4294967295 (Slurm's "
		  "priorities); give one in that range, or leave it empty (priority 0)" },
		{ SACCT_H "1|Unknown|" SACCT_T "|01:00|gres/gpu=1|1|5|02:00|alice\n",
		  "s.txt:2:3: Submit: 'Unknown': Slurm's accounting has no such time for this job, so it "
		  "cannot be replayed; drop the row" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1|1|5|2h|alice\n",
		  "s.txt:2:64: Timelimit: '2h' is not a Slurm duration (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
		  "D-HH:MM:SS) or UNLIMITED, Partition_Limit, INVALID; give it as sacct prints it, e.g. "
		  "1-02:03:04 or 02:03:04, or leave it empty" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1|1|5|02:00|a b\n",
		  "s.txt:2:70: User: 'a b' is not a plain name (1..63 printable bytes, no space, quote, "
		  "backslash or comma); edit it in the file, or leave the column out of sacct --format" },
		{ SACCT_H "|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1|1|5|02:00|alice\n",
		  "s.txt:2:1: JobID: is empty; every job needs a JobID (is the row cut short? export it "
		  "again with sacct --parsable2)" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu|1|5|02:00|alice\n",
		  "s.txt:2:49: AllocTRES: 'gres/gpu' is not key=value; write the list as sacct prints it, "
		  "key=value items split by commas (e.g. cpu=16,gres/gpu=4,mem=62.50G)" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=1,cpu=2000000|1|5|02:00|alice\n",
		  "s.txt:2:49: AllocTRES: 'gres/gpu=1,cpu=2000000': cpu or mem per node out of range (at "
		  "most 1000000 CPUs and 1000000000000 MiB per node); check cpu=, mem= and NNodes, or drop "
		  "the row" },
		{ SACCT_H "1|" SACCT_T "|" SACCT_T "|01:00|gres/gpu=3|2|5|02:00|alice\n",
		  "s.txt:2:49: AllocTRES: 'gres/gpu=3': the GPUs do not split evenly over the nodes (fairway "
		  "gives every task of a job the same GPU count); fix NNodes or the GPU count, or drop the "
		  "row" },
		{ SACCT_H "1|03/01 10:00|" SACCT_T "|01:00|gres/gpu=1|1|5|02:00|alice\n",
		  "s.txt:2:3: Submit: '03/01 10:00' is not YYYY-MM-DDTHH:MM:SS; export with "
		  "SLURM_TIME_FORMAT=standard in sacct's environment, so it prints e.g. 2024-03-01T10:00:00" },
		{ "JobID|Submit|Start|End|AllocTRES\n1|" SACCT_T "|" SACCT_T "|Unknown|gres/gpu=1\n",
		  "s.txt: no job to convert: 0 never started, 1 not ended when sacct ran, 0 without GPUs, "
		  "0 job steps; check sacct's --starttime, --endtime and --allusers, or export again once "
		  "the jobs have ended" },
		{ "JobID|Submit|Start|End|AllocTRES\n1|" SACCT_T "|" SACCT_T "|2024-03-01T09:00:00|gres/gpu=1\n",
		  "s.txt:2:43: End: '2024-03-01T09:00:00' is before Start; fix Start or End, or drop the row" },
		{ "JobID|Submit|Elapsed|AllocTRES\n",
		  "s.txt:1:1: header: no column Start; the header needs Submit, Start, Elapsed (or End) and "
		  "AllocTRES or ReqTRES: export it with " SACCT_CMD " (docs/trace-format.md)" },
		{ "JobID|Submit|Start|Elapsed\n",
		  "s.txt:1:1: header: no column AllocTRES (or ReqTRES); the header needs Submit, Start, "
		  "Elapsed (or End) and AllocTRES or ReqTRES: export it with " SACCT_CMD
		  " (docs/trace-format.md)" },
		{ "User|State\n", "s.txt:1:1: header: no column JobID or JobIDRaw (is this sacct --parsable2 "
		  "output?); export it with " SACCT_CMD " (docs/trace-format.md)" },
		{ "JobID|Submit|Start|Elapsed|AllocTRES|Start\n",
		  "s.txt:1:38: header: column 'Start' appears twice; keep one (name it once in sacct --format)" },
		{ "", "s.txt:1:1: header: the file is empty; save sacct's output into it: " SACCT_CMD " > FILE" },
	};
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_diag d;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ASSERT_EQ(fw_sacct_convert(cases[i].text, strlen(cases[i].text), "s.txt", 0, &out, &olen,
					   &sk, &d), FW_EINVAL);
		ASSERT(out == NULL);
		fw_itp_diag_str(&d, why, sizeof why);
		ASSERT_STR_EQ(why, cases[i].why);
	}
	/* a NUL byte, and a line of more fields than any sacct header */
	static const char nul[] = "JobID|Submit|Start|Elapsed|AllocTRES\n1\0|x\n";
	ASSERT_EQ(fw_sacct_convert(nul, sizeof nul - 1, "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "s.txt:2:1: row: contains a NUL byte: this is not a text file; give sacct "
		      "--parsable2's text output (decompress it first if it is compressed)");
	char wide[300] = "JobID";
	for (int i = 0; i < 130; i++)
		strcat(wide, "|");
	ASSERT_EQ(fw_sacct_convert(wide, strlen(wide), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "s.txt:1:1: row: more than 128 fields; is this sacct --parsable2 output? "
		      "export it with " SACCT_CMD);
}

/* Slurm's priorities go to 2^32 - 1, a trace's to 10^9: a higher one is
 * written as 10^9 and counted (the summary warns); an empty Elapsed
 * beside an End is End - Start, as with no Elapsed column. */
TEST(sacct_high_priorities_are_cut_and_an_empty_elapsed_reads_end)
{
	const char *text = "JobID|Submit|Start|End|Elapsed|AllocTRES|Priority\n"
			   "1|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:30:00||gres/gpu=1|4294967294\n"
			   "2|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T11:00:00|00:20:00|gres/gpu=1|7\n";
	char *out;
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_trace t;
	struct fw_diag d;

	ASSERT_OK(fw_sacct_convert(text, strlen(text), "s.txt", 0, &out, &olen, &sk, &d));
	ASSERT_EQ(sk.prio_cut, 1);
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(t.n, 2);
	ASSERT_EQ(t.v[0].priority, 1000000000);
	ASSERT_EQ(t.v[0].duration, 1800);
	ASSERT_EQ(t.v[1].priority, 7);
	ASSERT_EQ(t.v[1].duration, 1200); /* Elapsed, when given, is the run */
	fw_trace_free(&t);
}

/* Thousands of typed GPU counts near 10^15 once overflowed the sum (UBSan);
 * now the sum saturates and the row is refused as more than 16 per node. */
TEST(sacct_huge_typed_gpu_sum_is_refused)
{
	const char *head = "JobID|Submit|Start|Elapsed|AllocTRES|NNodes\n"
			   "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|";
	const char *item = "gres/gpu:a=999999999999999,";
	size_t hn = strlen(head), in = strlen(item), n = hn + 10000 * in + 4;
	char *text = malloc(n + 1), *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_diag d;

	ASSERT(text);
	memcpy(text, head, hn);
	for (int i = 0; i < 10000; i++)
		memcpy(text + hn + (size_t)i * in, item, in);
	memcpy(text + n - 4, "|1\n", 4);
	text[n] = 0;
	ASSERT_EQ(fw_sacct_convert(text, n, "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:2:49: AllocTRES:");
	ASSERT_STR_CONTAINS(why, "more than 16 GPUs per node");
	free(text);
}

/* A hostile file's control bytes (ESC sequences) never reach the terminal:
 * the printed diagnosis shows them as '?'. */
TEST(control_bytes_are_masked_in_messages)
{
	const char *jsonl = "{\"job_id\":\"j\",\"submit_time\":0,\"duration\":1,"
			    "\"gpus_per_task\":1,\"\\u001b[2J\":1}\n";
	const char *sacct = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			    "1|2024-03-01T10:00:00|2024-03-01T10:00:00|\x1b[2J|gres/gpu=1\n";
	struct fw_trace t;
	struct fw_diag d;
	char why[512], *out;
	size_t olen;
	struct fw_sacct_counts sk;

	ASSERT_EQ(csv(jsonl, 0, &t, why, sizeof why), FW_EINVAL);
	ASSERT_STR_EQ(why, "t.csv:1:1: ?[2J: unknown key; the keys are job_id, submit_time, duration, expected_runtime, queue, user, priority, tasks, gpus_per_task, gpu_milli, cpu_milli, mem_mib, min_member, topology_required, topology_preferred, gpu_model, max_runtime (docs/trace-format.md): rename it or remove it");
	ASSERT_EQ(fw_sacct_convert(sacct, strlen(sacct), "s.txt", 0, &out, &olen, &sk, &d),
		  FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:2:43: Elapsed: '?[2J' is not a Slurm duration");
	/* the file name is the user's own and is left alone */
	fw_diag_set(&d, FW_EINVAL, "a\tb.csv", 2, 3, "f\x1b", "v\r\x7f");
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "a\tb.csv:2:3: f?: v??");
}

/* A byte-order mark is skipped; a GPU type that is not a name is refused
 * (it was dropped silently) unless --no-gpu-model; a file that leaves no
 * job is an error, not an empty trace. */
/* A JobID twice (sacct --duplicates, two exports joined) is refused at
 * conversion, at the line that repeats it, naming the first: the
 * generic reader would refuse the output, naming a file the user never
 * wrote.  A job step (1.batch) is no repeat. */
TEST(sacct_repeated_job_id_is_refused_at_its_line)
{
	const char *dup = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			  "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=1\n"
			  "1.batch|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=1\n"
			  "2|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=1\n"
			  "1|2024-03-01T11:00:00|2024-03-01T11:00:00|01:00|gres/gpu=1\n";
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_sacct_convert(dup, strlen(dup), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	ASSERT(out == NULL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:5:1: JobID: '1' repeats the job on line 2");
	ASSERT_STR_CONTAINS(why, "drop the repeated rows");
}

TEST(sacct_bom_gpu_types_and_no_jobs)
{
	const char *bom = "\xEF\xBB\xBF" "JobID|Submit|Start|Elapsed|AllocTRES\n"
			  "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu:h100=1\n";
	const char *odd = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			  "1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu:h 100=1\n";
	const char *none = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			   "1|2024-03-01T10:00:00|Unknown|01:00|gres/gpu=1\n"
			   "1.batch|2024-03-01T10:00:00|Unknown|01:00|gres/gpu=1\n"
			   "2|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|cpu=4\n";
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_diag d;

	ASSERT_OK(fw_sacct_convert(bom, strlen(bom), "s.txt", 0, &out, &olen, &sk, &d));
	ASSERT_STR_CONTAINS(out, "\n1,0,60,");
	ASSERT_STR_CONTAINS(out, ",h100\n");
	free(out);
	ASSERT_EQ(fw_sacct_convert(odd, strlen(odd), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	ASSERT(out == NULL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:2:49: AllocTRES: GPU type 'h 100' is not a plain name");
	ASSERT_STR_CONTAINS(why, "pass --no-gpu-model");
	ASSERT_OK(fw_sacct_convert(odd, strlen(odd), "s.txt", FW_SACCT_NO_MODEL, &out, &olen, &sk,
				   &d));
	free(out);
	ASSERT_EQ(fw_sacct_convert(none, strlen(none), "s.txt", 0, &out, &olen, &sk, &d), FW_EINVAL);
	ASSERT(out == NULL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_EQ(why, "s.txt: no job to convert: 1 never started, 0 not ended when sacct ran, "
		      "1 without GPUs, 1 job steps; check sacct's --starttime, --endtime and --allusers, "
		      "or export again once the jobs have ended");
}

/* A job sacct saw not yet ended (running, suspended, requeued, or End
 * Unknown whatever its State) has no duration, only its time so far: it
 * is left out and counted, never kept as a job that ended at the dump.
 * A finished job of any state (CANCELLED by N, TIMEOUT) is kept. */
TEST(sacct_jobs_not_ended_at_the_dump_are_left_out)
{
	const char *text =
		"JobID|Submit|Start|End|Elapsed|AllocTRES|State\n"
		"1|" SACCT_T "|" SACCT_T "|2024-03-01T11:00:00|01:00:00|gres/gpu=1|COMPLETED\n"
		"2|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=8|RUNNING\n"
		"3|" SACCT_T "|Unknown|Unknown|00:00:00|gres/gpu=1|PENDING\n"
		"4|" SACCT_T "|" SACCT_T "|2024-03-01T10:20:00|00:20:00|gres/gpu=2|REQUEUED\n"
		"5|" SACCT_T "|" SACCT_T "|Unknown|00:05:00|gres/gpu=4|SUSPENDED\n"
		"6|" SACCT_T "|" SACCT_T "|2024-03-01T10:30:00|00:30:00|gres/gpu=1|CANCELLED by 1000\n"
		"7|" SACCT_T "|" SACCT_T "|Unknown|00:07:00|gres/gpu=1|COMPLETED\n"
		"8|" SACCT_T "|" SACCT_T "|2024-03-01T10:08:00|00:08:00|gres/gpu=1|TIMEOUT\n"
		"9|" SACCT_T "|" SACCT_T "|2024-03-01T10:09:00|00:09:00|gres/gpu=1|RESIZING\n";
	char *out;
	size_t olen;
	struct fw_sacct_counts k;
	struct fw_trace t;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	ASSERT_OK(fw_sacct_convert(text, strlen(text), "s.txt", 0, &out, &olen, &k, &d));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(k.never_ran, 1);  /* 3 */
	ASSERT_EQ(k.unfinished, 5); /* 2, 4, 5, 7 (End Unknown), 9 */
	ASSERT_EQ(k.no_gpu, 0);
	ASSERT_EQ(t.n, 3);
	ASSERT_STR_EQ(t.v[0].id, "1");
	ASSERT_STR_EQ(t.v[1].id, "6");
	ASSERT_STR_EQ(t.v[2].id, "8");
	ASSERT_EQ(t.v[1].duration, 1800);
	fw_trace_free(&t);
}

/* The parts of a heterogeneous job (JobID 7+0, 7+1) of one shape per node
 * become one gang named by the leader, all-or-nothing as Slurm ran them,
 * as long as its longest part; parts of unlike shapes stay a job each
 * (the trace gives a job one shape), counted; a lone part stays as it is. */
TEST(sacct_het_job_parts_join_into_one_gang)
{
	const char *text =
		"JobID|JobIDRaw|Submit|Start|Elapsed|AllocTRES|NNodes|Priority\n"
		"7+0|7|" SACCT_T "|" SACCT_T "|01:00:00|cpu=8,gres/gpu=8,node=1|1|5\n"
		"7+0.batch|7.batch|" SACCT_T "|" SACCT_T "|01:00:00|gres/gpu=8|1|\n"
		"1|1|" SACCT_T "|" SACCT_T "|00:30:00|gres/gpu=1|1|1\n"
		"7+1|8|" SACCT_T "|" SACCT_T "|01:00:05|cpu=16,gres/gpu=16,node=2|2|9\n"
		"9+0|10|" SACCT_T "|" SACCT_T "|00:10:00|gres/gpu=8|1|1\n"
		"9+1|11|" SACCT_T "|" SACCT_T "|00:10:00|gres/gpu=2|1|1\n"
		"12+0|13|" SACCT_T "|" SACCT_T "|00:10:00|gres/gpu=4|1|1\n"
		"12+1|14|" SACCT_T "|" SACCT_T "|00:10:00|cpu=2|1|1\n";
	char *out;
	size_t olen;
	struct fw_sacct_counts k;
	struct fw_trace t;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	ASSERT_OK(fw_sacct_convert(text, strlen(text), "s.txt", 0, &out, &olen, &k, &d));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(k.het_joined, 1);
	ASSERT_EQ(k.het_split, 1);
	ASSERT_EQ(k.no_gpu, 1);     /* 12+1 */
	ASSERT_EQ(t.n, 5);
	ASSERT_STR_EQ(t.v[0].id, "7"); /* at its first part's place */
	ASSERT_EQ(t.v[0].groups[0].count, 3);
	ASSERT_EQ(t.v[0].groups[0].gpus, 8);
	ASSERT_EQ(t.v[0].groups[0].cpu_milli, 8000);
	ASSERT_EQ(t.v[0].min_member, 0); /* all or nothing */
	ASSERT_EQ(t.v[0].duration, 3605);
	ASSERT_EQ(t.v[0].priority, 9);
	ASSERT_STR_EQ(t.v[1].id, "1");
	ASSERT_STR_EQ(t.v[2].id, "9+0");
	ASSERT_STR_EQ(t.v[3].id, "9+1");
	ASSERT_STR_EQ(t.v[4].id, "12+0");
	fw_trace_free(&t);
	/* a part listed twice (two exports joined) is refused, not joined into a bigger gang */
	const char *twice = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			    "7+0|" SACCT_T "|" SACCT_T "|01:00:00|gres/gpu=8\n"
			    "7+1|" SACCT_T "|" SACCT_T "|01:00:00|gres/gpu=8\n"
			    "7+0|" SACCT_T "|" SACCT_T "|01:00:00|gres/gpu=8\n";
	char why[512];
	ASSERT_EQ(fw_sacct_convert(twice, strlen(twice), "s.txt", 0, &out, &olen, &k, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "s.txt:4:1: JobID: '7+0' repeats the job on line 2");
}

/* A heterogeneous job with a part not ended at the dump (5+0 RUNNING, End
 * Unknown) is left out whole, its COMPLETED part too, and counted once
 * as a job not ended, however many of its parts are still going; a file
 * of nothing else has no job to convert and says so. */
TEST(sacct_het_job_with_a_part_not_ended_is_left_out_whole)
{
	const char *text =
		"JobID|Submit|Start|End|Elapsed|AllocTRES|State\n"
		"5+0|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=8|RUNNING\n"
		"5+0.batch|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=8|RUNNING\n"
		"5+1|" SACCT_T "|" SACCT_T "|2024-03-01T10:05:00|00:05:00|gres/gpu=8|COMPLETED\n"
		"6+0|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=2|RUNNING\n"
		"6+1|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=4|RUNNING\n"
		"1|" SACCT_T "|" SACCT_T "|2024-03-01T11:00:00|01:00:00|gres/gpu=1|COMPLETED\n"
		"2|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=1|RUNNING\n"
		"7+0|" SACCT_T "|" SACCT_T "|2024-03-01T10:05:00|00:05:00|gres/gpu=8|COMPLETED\n"
		"7+1|" SACCT_T "|" SACCT_T "|2024-03-01T10:05:00|00:05:00|gres/gpu=8|COMPLETED\n";
	char *out, why[512];
	size_t olen;
	struct fw_sacct_counts k;
	struct fw_trace t;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	ASSERT_OK(fw_sacct_convert(text, strlen(text), "s.txt", 0, &out, &olen, &k, &d));
	ASSERT_OK(fw_trace_parse_csv(out, olen, "converted.csv", 0, &t, &d));
	free(out);
	ASSERT_EQ(k.unfinished, 3); /* jobs 5, 6 and 2: one each, not a part each */
	ASSERT_EQ(k.het_joined, 1); /* 7 */
	ASSERT_EQ(t.n, 2);
	ASSERT_STR_EQ(t.v[0].id, "1");
	ASSERT_STR_EQ(t.v[1].id, "7"); /* at its first part's place */
	ASSERT_EQ(t.v[1].groups[0].count, 2);
	fw_trace_free(&t);
	const char *only = "JobID|Submit|Start|End|Elapsed|AllocTRES|State\n"
			   "5+0|" SACCT_T "|" SACCT_T "|Unknown|00:10:00|gres/gpu=8|RUNNING\n"
			   "5+1|" SACCT_T "|" SACCT_T "|2024-03-01T10:05:00|00:05:00|gres/gpu=8|COMPLETED\n";
	ASSERT_EQ(fw_sacct_convert(only, strlen(only), "s.txt", 0, &out, &olen, &k, &d), FW_EINVAL);
	fw_itp_diag_str(&d, why, sizeof why);
	ASSERT_STR_CONTAINS(why, "no job to convert: 0 never started, 1 not ended when sacct ran");
}

/* Convert one row; *dur and *exp from the output (-1: the field is empty). */
static int sacct_one(const char *submit, const char *elapsed, const char *limit,
		     long long *dur, long long *exp, char *why, size_t n)
{
	char text[512], *out, *p;
	size_t olen;
	struct fw_sacct_counts sk;
	struct fw_diag d;
	int rc;

	snprintf(text, sizeof text, "JobID|Submit|Start|Elapsed|Timelimit|AllocTRES\n"
		 "7|%s|2024-12-31T23:59:59|%s|%s|gres/gpu=1\n", submit, elapsed, limit);
	memset(&d, 0, sizeof d);
	rc = fw_sacct_convert(text, strlen(text), "s.txt", 0, &out, &olen, &sk, &d);
	if (rc != FW_OK) {
		fw_itp_diag_str(&d, why, n);
		return rc;
	}
	p = strchr(out, '\n') + 1;                   /* "7,0,DUR,EXP,..." */
	*dur = strtoll(strchr(p, ',') + 1 + 2, &p, 10);
	*exp = p[1] == ',' ? -1 : strtoll(p + 1, NULL, 10);
	free(out);
	return FW_OK;
}

TEST(sacct_durations_follow_slurm)
{
	static const struct { const char *s; long long secs; } ok[] = {
		{ "90", 5400 },                 /* MM */
		{ "30:00", 1800 },              /* MM:SS */
		{ "00:03.271", 3 },             /* MM:SS.mmm (fraction dropped) */
		{ "02:03:04", 7384 },           /* HH:MM:SS */
		{ "1-02", 93600 },              /* D-HH */
		{ "1-02:03", 93780 },           /* D-HH:MM: 1 day 2 h 3 min */
		{ "1-02:03:04", 93784 },        /* D-HH:MM:SS */
		{ "7-00:00:00", 604800 },
	};
	static const char *const bad[] = {
		"1:2:3:4", "1-", "-5", "1-24:00", "1-02:60", "61:60", "1:2.", "1:2.x",
		"1-02.5", "90.5", "1--2", "a:00",
	};
	long long dur, exp;
	char why[512];

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ASSERT_OK(sacct_one("2024-03-01T10:00:00", ok[i].s, ok[i].s, &dur, &exp,
				    why, sizeof why));
		ASSERT_EQ(dur, ok[i].secs);
		ASSERT_EQ(exp, ok[i].secs);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_EQ(sacct_one("2024-03-01T10:00:00", "01:00", bad[i], &dur, &exp,
				    why, sizeof why), FW_EINVAL);
		ASSERT_STR_CONTAINS(why, "Timelimit: '");
		ASSERT_STR_CONTAINS(why, "is not a Slurm duration (MM, MM:SS, HH:MM:SS, D-HH");
	}
	/* Slurm's words for "no limit" leave expected_runtime empty */
	ASSERT_OK(sacct_one("2024-03-01T10:00:00", "01:00", "UNLIMITED", &dur, &exp, why, 512));
	ASSERT_EQ(exp, -1);
	ASSERT_OK(sacct_one("2024-03-01T10:00:00", "01:00", "Partition_Limit", &dur, &exp, why, 512));
	ASSERT_EQ(exp, -1);
	ASSERT_OK(sacct_one("2024-03-01T10:00:00", "01:00", "INVALID", &dur, &exp, why, 512));
	ASSERT_EQ(exp, -1);
	/* ... but a job must have an elapsed time */
	ASSERT_EQ(sacct_one("2024-03-01T10:00:00", "INVALID", "", &dur, &exp, why, 512), FW_EINVAL);
	ASSERT_STR_EQ(why, "s.txt:2:43: Elapsed: 'INVALID': the job has no elapsed time; "
		      "fix the row or leave it out");
}

TEST(sacct_impossible_dates_are_refused)
{
	static const char *const no_day[] = {
		"2024-02-30T10:00:00", "2023-02-29T10:00:00", "2024-04-31T10:00:00",
		"1900-02-29T00:00:00", "2024-06-31T00:00:00",
	};
	static const char *const real[] = {
		"2024-02-29T10:00:00", "2000-02-29T00:00:00", "2024-01-31T00:00:00",
		"2024-12-31T23:59:59",
	};
	long long dur, exp;
	char why[512], want[256];

	for (size_t i = 0; i < sizeof no_day / sizeof no_day[0]; i++) {
		ASSERT_EQ(sacct_one(no_day[i], "01:00", "", &dur, &exp, why, sizeof why), FW_EINVAL);
		snprintf(want, sizeof want, "s.txt:2:3: Submit: '%s' is not a calendar date "
			 "(that month has no such day); fix the date, or drop the row", no_day[i]);
		ASSERT_STR_EQ(why, want);
	}
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
		ASSERT_OK(sacct_one(real[i], "01:00", "", &dur, &exp, why, sizeof why));
	ASSERT_EQ(sacct_one("2024-3-01T00:00:00", "01:00", "", &dur, &exp, why, 512), FW_EINVAL);
	ASSERT_STR_CONTAINS(why, "is not YYYY-MM-DDTHH:MM:SS");
}

/* A time of the right form with a part out of its range names the part,
 * not the export's format (SLURM_TIME_FORMAT is right then). */
TEST(sacct_out_of_range_time_parts_are_named)
{
	static const struct { const char *t, *says; } bad[] = {
		{ "2024-13-01T10:00:00", "month 13 is out of range (1..12)" },
		{ "2024-00-01T10:00:00", "month 00 is out of range (1..12)" },
		{ "2024-01-00T10:00:00", "day 00 is out of range (1..31)" },
		{ "2024-01-32T10:00:00", "day 32 is out of range (1..31)" },
		{ "2024-02-03T25:00:00", "hour 25 is out of range (0..23)" },
		{ "2024-02-03T10:60:00", "minute 60 is out of range (0..59)" },
		{ "2024-02-03T10:00:61", "second 61 is out of range (0..60)" },
	};
	long long dur, exp;
	char why[512], want[256];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_EQ(sacct_one(bad[i].t, "01:00", "", &dur, &exp, why, sizeof why), FW_EINVAL);
		snprintf(want, sizeof want, "s.txt:2:3: Submit: '%s': %s; fix the time, or drop "
			 "the row", bad[i].t, bad[i].says);
		ASSERT_STR_EQ(why, want);
	}
	/* the leap second Slurm may print, and the edges, are times */
	ASSERT_OK(sacct_one("2016-12-31T23:59:60", "01:00", "", &dur, &exp, why, sizeof why));
	ASSERT_OK(sacct_one("2024-01-01T00:00:00", "01:00", "", &dur, &exp, why, sizeof why));
}

/* Slurm resets a requeued job's Submit, so a record starts after its own
 * Submit: an earlier Start is an edited or joined row, refused as End
 * before Start is, with Elapsed given or not. */
TEST(sacct_start_before_submit_is_refused)
{
	static const char *const text[] = {
		"JobID|Submit|Start|Elapsed|AllocTRES\n"
		"1|2024-03-01T10:00:00|2024-03-01T09:05:00|02:00:00|gres/gpu=2\n",
		"JobID|Submit|Start|End|AllocTRES\n"
		"1|2024-03-01T10:00:00|2024-03-01T09:05:00|2024-03-01T12:05:00|gres/gpu=2\n",
	};
	const char *same = "JobID|Submit|Start|Elapsed|AllocTRES\n"
			   "1|2024-03-01T10:00:00|2024-03-01T10:00:00|02:00:00|gres/gpu=2\n";
	struct fw_sacct_counts k;
	struct fw_diag d;
	char *out, why[512];
	size_t olen;

	for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_sacct_convert(text[i], strlen(text[i]), "s.txt", 0, &out, &olen, &k, &d),
			  FW_EINVAL);
		fw_itp_diag_str(&d, why, sizeof why);
		ASSERT_STR_EQ(why, "s.txt:2:23: Start: '2024-03-01T09:05:00' is before Submit (a job "
			      "starts after it is submitted, a requeued one after its new Submit); "
			      "fix Submit or Start, or drop the row");
	}
	ASSERT_OK(fw_sacct_convert(same, strlen(same), "s.txt", 0, &out, &olen, &k, &d));
	ASSERT_STR_CONTAINS(out, "\n1,0,7200,");
	free(out);
}

/* The sample, converted with flags and read back. */
static void sacct_sample_trace(unsigned flags, struct fw_trace *t)
{
	char *in, *out;
	size_t len, olen;
	struct fw_sacct_counts skipped;
	struct fw_diag d;

	ASSERT_OK(fw_itp_slurp("tests/data/sacct_sample.txt", &in, &len, &d));
	ASSERT_OK(fw_sacct_convert(in, len, "sacct_sample.txt", flags, &out, &olen, &skipped, &d));
	free(in);
	ASSERT_OK(fw_trace_parse_csv(out, olen, "jobs.csv", 0, t, &d));
	free(out);
}

TEST(typed_gpu_jobs_a_fleet_cannot_run_are_named)
{
	struct fw_fleet_opts fo = { 4, 8, 0, 0 };
	struct fw_snapshot *s;
	struct fw_trace t;
	struct fw_diag d;
	char want[64], have[64], *msg;
	size_t mlen;
	FILE *f;

	sacct_sample_trace(0, &t);
	ASSERT_STR_EQ(t.v[1].gpu_model, "h100");
	ASSERT_OK(fw_fleet_generate(&fo, &s, &d));
	/* the documented workflow: --nodes 4x8 is all itp-gpu, 1002 never starts */
	ASSERT_EQ(fw_trace_unknown_models(&t, s, want, sizeof want, have, sizeof have), 1);
	ASSERT_STR_EQ(want, "h100");
	ASSERT_STR_EQ(have, "itp-gpu");
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_models(&t, s, false, f);
	fw_trace_warn_models(&t, s, false, stderr); /* shows the line in the test log */
	fclose(f);
	ASSERT_STR_CONTAINS(msg, "fairway: warning: 1 job of jobs.csv asks for a GPU model no "
			    "node has (h100; the fleet has itp-gpu), so it can never start");
	ASSERT_STR_CONTAINS(msg, "--no-gpu-model");
	free(msg);
	/* models match exactly: H100 is not h100 */
	snprintf(s->nodes[2].gpu_model, sizeof s->nodes[2].gpu_model, "H100");
	ASSERT_EQ(fw_trace_unknown_models(&t, s, want, sizeof want, have, sizeof have), 1);
	ASSERT_STR_EQ(have, "itp-gpu, H100");
	/* one node of the model is enough; then nothing is printed */
	snprintf(s->nodes[3].gpu_model, sizeof s->nodes[3].gpu_model, "h100");
	ASSERT_EQ(fw_trace_unknown_models(&t, s, want, sizeof want, have, sizeof have), 0);
	ASSERT_STR_EQ(want, "");
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_models(&t, s, false, f);
	fclose(f);
	ASSERT_EQ(mlen, 0);
	free(msg);
	fw_trace_free(&t);
	/* --no-gpu-model: no job names a model */
	sacct_sample_trace(FW_SACCT_NO_MODEL, &t);
	ASSERT_STR_EQ(t.v[1].gpu_model, "");
	snprintf(s->nodes[3].gpu_model, sizeof s->nodes[3].gpu_model, "itp-gpu");
	ASSERT_EQ(fw_trace_unknown_models(&t, s, want, sizeof want, have, sizeof have), 0);
	fw_trace_free(&t);
	fw_snapshot_free(s);
}

/* A job no placement can ever start is named before the replay, with the
 * first such job and why; elastic gangs and GPU fractions are counted by
 * what they need at the least. */
TEST(jobs_larger_than_the_fleet_are_named)
{
	struct fw_fleet_opts fo = { 4, 8, 0, 0 }; /* 32 GPUs, 128 CPUs, 1 TiB a node */
	struct fw_snapshot *s;
	struct fw_trace t;
	struct fw_diag d;
	char first[400], *msg;
	size_t mlen;
	FILE *f;

	ASSERT_OK(fw_fleet_generate(&fo, &s, &d));
	ASSERT_OK(csv("job_id,submit_time,duration,tasks,gpus_per_task,gpu_milli,cpu_milli,"
		      "min_member\n"
		      "fits,0,1,4,8,,,\n"
		      "elastic,0,1,10,8,,,2\n"
		      "fractions,0,1,100,1,100,,\n"
		      "big_task,0,1,1,16,,,\n"
		      "big_gang,0,1,5,8,,,\n"
		      "big_cpu,0,1,1,1,,200000,\n", 0, &t, NULL, 0));
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 3);
	ASSERT_STR_EQ(first, "'big_task' (line 5) needs a task of 16 GPUs, and the largest "
		      "node has 8");
	bool never[6]; /* the same test, job by job (the metrics' waiting jobs) */
	memset(never, 1, sizeof never);
	ASSERT_EQ(fw_trace_unfit_mark(&t, s, never), 3);
	ASSERT(!never[0] && !never[1] && !never[2] && never[3] && never[4] && never[5]);
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_unfit(&t, s, false, f);
	fclose(f);
	ASSERT_STR_CONTAINS(msg, "fairway: warning: 3 jobs of t.csv can never start on this "
			    "fleet (the first, 'big_task' (line 5) needs a task of 16 GPUs");
	ASSERT_STR_CONTAINS(msg, "they are counted as never started");
	free(msg);
	/* the model warning is its own: these jobs ask for no model */
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_models(&t, s, false, f);
	fclose(f);
	ASSERT_EQ(mlen, 0);
	free(msg);
	t.v[3] = t.v[4]; /* fits, elastic, fractions, big_gang */
	t.n = 4;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 1);
	ASSERT_STR_EQ(first, "'big_gang' (line 6) needs 40 GPUs at once, and the fleet has 32");
	t.n = 3;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 0);
	/* A node the fleet file closes never takes work in the replay, nor
	 * does a bad GPU: "fits" (4 x 8 GPUs) cannot start on 3 nodes in
	 * service, nor on 4 with a bad GPU on one of them. */
	s->nodes[1].schedulable = false;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 1);
	ASSERT_EQ(fw_trace_unfit_mark(&t, s, never), 1);
	ASSERT(never[0] && !never[1] && !never[2]);
	ASSERT_STR_CONTAINS(first, "'fits' (line 2) needs 32 GPUs at once, and the fleet has 24 in service");
	s->nodes[1].schedulable = true;
	s->nodes[2].health = FW_HEALTH_DRAINING;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 1);
	s->nodes[2].health = FW_HEALTH_HEALTHY;
	s->nodes[3].bad_gpu_mask = 1u << 5;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 1);
	ASSERT_STR_CONTAINS(first, "and the fleet has 31 in service");
	s->nodes[3].bad_gpu_mask = 0;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 0);
	fw_trace_free(&t);
	fw_snapshot_free(s);
}

/* A gang fits only when the nodes hold its tasks: two tasks of 8 GPUs
 * need two nodes of 8 even when the fleet's GPUs add up (one node of 8
 * plus four of 4: 24 GPUs, the QA case of the ITP trace cluster10).
 * Tasks of a GPU model count only the nodes of that model. */
TEST(gangs_the_nodes_cannot_hold_are_named)
{
	struct fw_fleet_opts fo = { 5, 8, 0, 0 };
	struct fw_snapshot *s;
	struct fw_trace t;
	struct fw_diag d;
	char first[400], *msg;
	bool never[6];
	size_t mlen;
	FILE *f;

	ASSERT_OK(fw_fleet_generate(&fo, &s, &d));
	for (int i = 1; i < 5; i++)
		s->nodes[i].gpu_count = 4;
	ASSERT_OK(csv("job_id,submit_time,duration,tasks,gpus_per_task,gpu_milli,min_member,gpu_model\n"
		      "pair,0,100,2,8,,,\n"
		      "six,0,1,6,4,,,\n"
		      "small,10,100,1,1,,,\n"
		      "elastic,0,1,3,8,,1,\n"
		      "typed,0,1,3,4,,,t4\n"
		      "nomodel,0,1,1,1,,,a100\n", 0, &t, NULL, 0));
	snprintf(s->nodes[3].gpu_model, sizeof s->nodes[3].gpu_model, "t4");
	snprintf(s->nodes[4].gpu_model, sizeof s->nodes[4].gpu_model, "t4");
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 2);
	ASSERT_STR_EQ(first, "'pair' (line 2) needs 2 tasks of 8 GPUs at once, and the fleet's "
		      "nodes hold 1 such task");
	memset(never, 1, sizeof never); /* the metrics' list: the same two */
	ASSERT_EQ(fw_trace_unfit_mark(&t, s, never), 2);
	ASSERT(never[0] && !never[1] && !never[2] && !never[3] && never[4] && !never[5]);
	ASSERT(f = open_memstream(&msg, &mlen));
	fw_trace_warn_unfit(&t, s, false, f);
	fclose(f);
	ASSERT_STR_CONTAINS(msg, "fairway: warning: 2 jobs of t.csv can never start");
	free(msg);
	t.v[0] = t.v[4];
	t.n = 1;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 1);
	ASSERT_STR_CONTAINS(first, "needs 3 tasks of 4 GPUs of model t4 at once, and the fleet's nodes hold 2");
	snprintf(s->nodes[2].gpu_model, sizeof s->nodes[2].gpu_model, "t4");
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 0);
	/* a node out of service holds nothing */
	s->nodes[2].schedulable = false;
	ASSERT_EQ(fw_trace_unfit_jobs(&t, s, first, sizeof first), 1);
	fw_trace_free(&t);
	fw_snapshot_free(s);
}

TEST(format_names)
{
	ASSERT_EQ(fw_trace_format_of("itp"), FW_TRACE_ITP);
	ASSERT_EQ(fw_trace_format_of("openb"), FW_TRACE_OPENB);
	ASSERT_EQ(fw_trace_format_of("fairway"), FW_TRACE_FAIRWAY);
	ASSERT_EQ(fw_trace_format_of("csv"), -1);
}

/* Which format a header is, and the hint a wrong --format gets. */
TEST(a_header_of_another_format_is_named)
{
	static const struct { const char *text; int want; } c[] = {
		{ "job_id,submission_time,duration,num_gpu\n1,0,5,1\n", FW_TRACE_ITP },
		{ "num_gpu,duration,job_id,submission_time\r\n", FW_TRACE_ITP },
		{ "\xef\xbb\xbfjob_id,submission_time,duration,num_gpu", FW_TRACE_ITP },
		{ "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
		  "creation_time,deletion_time,scheduled_time\n", FW_TRACE_OPENB },
		{ "job_id,submit_time,duration,gpus_per_task,queue\n", FW_TRACE_FAIRWAY },
		{ "\"job_id\", \"submit_time\",duration,gpus_per_task\n", FW_TRACE_FAIRWAY },
		{ "{\"job_id\":\"a\"}\n", FW_TRACE_FAIRWAY },
		{ "job_id,submission_time,duration\nnum_gpu\n", -1 }, /* line 1 only */
		{ "job_id,submission_time,duration,num_gpus\n", -1 },
		{ "", -1 },
	};
	char path[] = "/tmp/fw-sniff-XXXXXX";
	struct fw_trace t;
	struct fw_diag d;
	int fd;
	FILE *f;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		ASSERT_EQ(fw_trace_sniff(c[i].text, strlen(c[i].text)), c[i].want);
	ASSERT((fd = mkstemp(path)) >= 0);
	ASSERT((f = fdopen(fd, "w")) != NULL);
	fputs(c[3].text, f);
	fputs("p1,1000,1024,1,1000,,LS,Running,0,10,0\n", f);
	fclose(f);
	/* read as ITP (the default): the header error, then the hint */
	ASSERT_EQ(fw_trace_read(path, FW_TRACE_ITP, 8, 0, &t, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 1);
	ASSERT(strstr(d.msg, "no column 'job_id'") != NULL);
	ASSERT(strstr(d.msg, "; the file looks like an openb pod list: use --format openb") != NULL);
	/* read as what it is: no error, so no hint */
	ASSERT_OK(fw_trace_read(path, FW_TRACE_OPENB, 8, 0, &t, &d));
	fw_trace_free(&t);
	/* a bad row (line 2) of the right format gets no hint */
	ASSERT((f = fopen(path, "w")) != NULL);
	fputs("job_id,submission_time,duration,num_gpu\na,0,-5,1\n", f);
	fclose(f);
	ASSERT_EQ(fw_trace_read(path, FW_TRACE_ITP, 8, 0, &t, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 2);
	ASSERT(strstr(d.msg, "--format") == NULL);
	/* the header as fairway's: named as an ITP trace */
	ASSERT_EQ(fw_trace_read(path, FW_TRACE_FAIRWAY, 8, 0, &t, &d), FW_EINVAL);
	ASSERT(strstr(d.msg, "; the file looks like an ITP trace: use --format itp") != NULL);
	/* sacct --parsable2 output, in every format: convert it first */
	ASSERT((f = fopen(path, "w")) != NULL);
	fputs("\xef\xbb\xbfUser|JobIDRaw|Submit\nalice|1|2024-03-01T10:00:00\n", f);
	fclose(f);
	for (int fmt = 0; fmt < 3; fmt++) {
		ASSERT_EQ(fw_trace_read(path, (enum fw_trace_format)fmt, 8, 0, &t, &d), FW_EINVAL);
		ASSERT_STR_EQ(d.field, "header");
		ASSERT(strstr(d.msg, "the file looks like sacct --parsable2 output, not a trace: "
			   "convert it first (fairway trace sacct2fairway ") == d.msg);
	}
	/* a column named JobID in a comma-separated file is not sacct's */
	ASSERT((f = fopen(path, "w")) != NULL);
	fputs("JobID,submission_time,duration,num_gpu\n1,0,5,1\n", f);
	fclose(f);
	ASSERT_EQ(fw_trace_read(path, FW_TRACE_ITP, 8, 0, &t, &d), FW_EINVAL);
	ASSERT(strstr(d.msg, "sacct") == NULL);
	unlink(path);
}

TEST(queues_from_names_share_by_demand)
{
	struct fw_trace t;
	struct fw_trace_queues *q = malloc(sizeof *q);
	struct fw_teams *teams = malloc(sizeof *teams);
	struct fw_diag d;
	const char *text = "job_id,submit_time,duration,queue,tasks,gpus_per_task\n"
			   "a,0,100,zeta,1,1\nb,0,100,alpha,3,1\nc,0,100,,1,4\n";
	int64_t sum = 0;

	ASSERT(q && teams);
	fw_teams_builtin(teams);
	ASSERT_OK(csv(text, 0, &t, NULL, 0));
	ASSERT_OK(fw_trace_queues(&t, teams, false, 16, q, &d));
	ASSERT_EQ(q->nteam, teams->n);
	ASSERT_EQ(q->n, teams->n + 2);
	ASSERT_STR_EQ(q->name[teams->n], "alpha");
	ASSERT_STR_EQ(q->name[teams->n + 1], "zeta");
	ASSERT_EQ(q->of_job[0], teams->n + 1);
	ASSERT_EQ(q->of_job[1], teams->n);
	ASSERT(q->of_job[2] < teams->n);
	/* demand 100 : 300 : 400 GPU-s -> alpha 6, zeta 2, teams 8 GPUs */
	ASSERT_EQ(q->deserved_milli[teams->n], 6000);
	ASSERT_EQ(q->deserved_milli[teams->n + 1], 2000);
	for (int i = 0; i < q->n; i++)
		sum += q->deserved_milli[i];
	ASSERT_EQ(sum, 16000);
	free(q->of_job);
	/* --teams: everyone to a team, shares by weight only */
	ASSERT_OK(fw_trace_queues(&t, teams, true, 16, q, &d));
	ASSERT_EQ(q->n, teams->n);
	ASSERT_EQ(q->of_job[0], fw_team_of(teams, "a"));
	free(q->of_job);
	fw_trace_free(&t);
	free(q);
	free(teams);
}

TEST(make_job_maps_levels_and_shapes)
{
	struct fw_topology topo = { 2, { "block", "rack" } };
	struct fw_trace t;
	struct fw_job j;
	struct fw_diag d;
	const char *text = "job_id,submit_time,duration,tasks,gpus_per_task,topology_required,gpu_model\n"
			   "a,0,1,2,8,block,H100\nb,0,1,2,8,,\nc,0,1,1,1,zone,\nd,0,1,1,8,node,\n";

	ASSERT_OK(csv(text, 0, &t, NULL, 0));
	ASSERT_OK(fw_trace_make_job(&t, 0, &topo, &j, &d));
	ASSERT_EQ(j.required_level, 0);
	ASSERT_EQ(j.preferred_level, 1); /* a gang prefers the smallest level */
	ASSERT_STR_EQ(j.groups[0].gpu_model, "H100");
	ASSERT_OK(fw_trace_make_job(&t, 1, &topo, &j, &d));
	ASSERT_EQ(j.required_level, FW_LEVEL_NONE);
	ASSERT(fw_trace_itp_shaped(&t.v[1], 8));
	ASSERT(!fw_trace_itp_shaped(&t.v[1], 4));
	ASSERT(!fw_trace_itp_shaped(&t.v[0], 8));
	ASSERT_EQ(fw_trace_make_job(&t, 2, &topo, &j, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "'zone' is not a topology level of the fleet (its levels: block, rack, node)");
	ASSERT_STR_CONTAINS(d.msg, "node); name one of them, or give the fleet that level (--racks");
	ASSERT_EQ(d.line, 4);
	ASSERT_OK(fw_trace_make_job(&t, 3, &topo, &j, &d));
	ASSERT_EQ(j.required_level, FW_LEVEL_NODE);
	fw_trace_free(&t);
}

static const char *openb_path(char *buf, size_t n)
{
	const char *root = getenv("FAIRWAY_TRACES");

	snprintf(buf, n, "%s/alibaba-openb/openb_pod_list_default.csv",
		 root && *root ? root : "../shared/traces");
	return buf;
}

TEST(openb_default_pod_list_reads_as_a_trace)
{
	char path[1024];
	struct fw_trace t;
	struct fw_diag d;

	ASSERT_OK(fw_trace_read(openb_path(path, sizeof path), FW_TRACE_OPENB, 8, 0, &t, &d));
	ASSERT_EQ(t.n, 8152);
	ASSERT_EQ(t.skipped, 0);
	ASSERT_STR_EQ(t.v[1].id, "openb-pod-0001");
	ASSERT_EQ(t.v[1].submit, 427061);
	ASSERT_EQ(t.v[1].duration, 12902960 - 427061);
	fw_trace_free(&t);
}

int main(void)
{
	fw_test_fn fns[] = {
		generic_csv_reads_every_column, generic_csv_bad_rows_name_line_column_and_field,
		generic_cross_field_rules_and_duplicates, generic_task_of_nothing_is_refused,
		generic_header_errors_are_never_skipped,
		generic_bom_blank_lines_and_unnamed_columns, generic_minus_zero_only_for_priority,
		generic_skip_bad_rows_counts_and_keeps_the_first_reason,
		generic_jsonl_reads_the_same_keys, generic_jsonl_bad_values_name_the_key,
		generic_max_runtime_is_a_jobs_own_limit, generic_max_runtime_bad_values_name_line_column_and_field,
		itp_rows_are_shaped_into_gangs, openb_pods_become_a_trace,
		sacct_sample_converts_and_reads_back, sacct_time_limits_fill_max_runtime_only_when_asked,
		sacct_bad_values_name_line_and_column, sacct_decimal_sizes_and_bad_tres_values,
		sacct_end_minus_start_and_malformed_rows, sacct_refusals_say_what_to_do, sacct_durations_follow_slurm, sacct_impossible_dates_are_refused,
		sacct_out_of_range_time_parts_are_named, sacct_start_before_submit_is_refused,
		sacct_huge_typed_gpu_sum_is_refused, sacct_high_priorities_are_cut_and_an_empty_elapsed_reads_end,
		control_bytes_are_masked_in_messages,
		sacct_bom_gpu_types_and_no_jobs, sacct_repeated_job_id_is_refused_at_its_line,
		sacct_jobs_not_ended_at_the_dump_are_left_out, sacct_het_job_parts_join_into_one_gang, sacct_het_job_with_a_part_not_ended_is_left_out_whole, jobs_larger_than_the_fleet_are_named, gangs_the_nodes_cannot_hold_are_named, typed_gpu_jobs_a_fleet_cannot_run_are_named, format_names, a_header_of_another_format_is_named, queues_from_names_share_by_demand, make_job_maps_levels_and_shapes,
		openb_default_pod_list_reads_as_a_trace,
	};
	const char *names = "generic_csv_reads_every_column, generic_csv_bad_rows_name_line_column_and_field, "
		"generic_cross_field_rules_and_duplicates, generic_task_of_nothing_is_refused, "
		"generic_header_errors_are_never_skipped, "
		"generic_bom_blank_lines_and_unnamed_columns, generic_minus_zero_only_for_priority, "
		"generic_skip_bad_rows_counts_and_keeps_the_first_reason, "
		"generic_jsonl_reads_the_same_keys, generic_jsonl_bad_values_name_the_key, "
		"generic_max_runtime_is_a_jobs_own_limit, generic_max_runtime_bad_values_name_line_column_and_field, "
		"itp_rows_are_shaped_into_gangs, openb_pods_become_a_trace, "
		"sacct_sample_converts_and_reads_back, sacct_time_limits_fill_max_runtime_only_when_asked, "
		"sacct_bad_values_name_line_and_column, sacct_decimal_sizes_and_bad_tres_values, "
		"sacct_end_minus_start_and_malformed_rows, sacct_refusals_say_what_to_do, "
		"sacct_durations_follow_slurm, sacct_impossible_dates_are_refused, "
		"sacct_out_of_range_time_parts_are_named, sacct_start_before_submit_is_refused, "
		"sacct_huge_typed_gpu_sum_is_refused, sacct_high_priorities_are_cut_and_an_empty_elapsed_reads_end, "
		"control_bytes_are_masked_in_messages, "
		"sacct_bom_gpu_types_and_no_jobs, sacct_repeated_job_id_is_refused_at_its_line, "
		"sacct_jobs_not_ended_at_the_dump_are_left_out, sacct_het_job_parts_join_into_one_gang, sacct_het_job_with_a_part_not_ended_is_left_out_whole, jobs_larger_than_the_fleet_are_named, gangs_the_nodes_cannot_hold_are_named, typed_gpu_jobs_a_fleet_cannot_run_are_named, format_names, a_header_of_another_format_is_named, queues_from_names_share_by_demand, make_job_maps_levels_and_shapes, "
		"openb_default_pod_list_reads_as_a_trace";
	int n = (int)(sizeof fns / sizeof fns[0]);
	char path[1024];

	if (access(openb_path(path, sizeof path), R_OK) != 0) {
		printf("SKIP openb_default_pod_list_reads_as_a_trace: %s not found "
		       "(set FAIRWAY_TRACES)\n", path);
		n--; /* the last test; not counted as passed */
	}
	return fw_test_main(names, fns, n);
}
