/*
 * fuzz_generic.c — libFuzzer target for the generic trace reader
 * (sim/generic.c, CSV and JSONL), the sacct converter (sim/sacct.c) and
 * openb pods read as a trace (fw_trace_parse_openb, sim/trace.c), and the
 * header sniffer that names a wrong --format's right one (fw_trace_sniff).
 *
 * Any bytes must either parse into jobs that respect every documented
 * bound, or fail with a filled diagnosis and nothing left behind.  A strict
 * success implies a skipping success with the same jobs and nothing
 * skipped.  A successful sacct conversion must itself read back through
 * the generic CSV reader (with --no-gpu-model, naming no GPU model).  Built
 * with -fsanitize=fuzzer under clang, and
 * as fuzz_replay_generic over tests/fuzz/corpus/generic in every run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "trace.h"
#include "printed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Names reach JSON and CSV outputs: printable ASCII, no space, quote,
 * backslash or comma. */
static void check_name(const char *s, int may_be_empty)
{
	size_t n = strnlen(s, FW_NAME_MAX);

	if (n >= FW_NAME_MAX || (n == 0 && !may_be_empty))
		abort();
	for (size_t k = 0; k < n; k++)
		if (s[k] <= 0x20 || s[k] >= 0x7f || s[k] == '"' || s[k] == '\\' || s[k] == ',')
			abort();
}

static void check_jobs(const struct fw_trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct fw_trace_job *j = &t->v[i];
		const struct fw_trace_group *g = &j->groups[0];
		size_t n = strnlen(j->id, FW_NAME_MAX);
		check_name(j->id, 0);
		check_name(j->queue, 1);
		check_name(j->user, 1);
		check_name(j->gpu_model, 1);
		if (n == 0 || n >= FW_NAME_MAX || j->ngroups != 1 || j->submit < 0 ||
		    j->submit > FW_TRACE_MAX_TIME || j->duration < 0 || j->expected < 0 ||
		    j->max_runtime < 0 ||
		    g->count < 1 || g->count > FW_TRACE_MAX_TASKS || g->gpus < 0 ||
		    g->gpus > FW_MAX_GPUS_PER_NODE || g->gpu_milli < 1 || g->gpu_milli > 1000 ||
		    (g->gpu_milli < 1000 && g->gpus != 1) || j->min_member > g->count ||
		    j->line < 1)
			abort();
	}
}

/* The never-start check on a small fleet: a count no larger than the
 * trace, and a first job named whenever there is one. */
static void check_unfit(const struct fw_trace *t)
{
	static const struct fw_fleet_opts o = { 2, 8, 0, 0 };
	struct fw_snapshot *s;
	struct fw_diag d;
	char first[400];
	size_t n;

	if (fw_fleet_generate(&o, &s, &d) != FW_OK)
		abort();
	n = fw_trace_unfit_jobs(t, s, first, sizeof first);
	if (n > t->n || (n > 0) != (first[0] != 0))
		abort();
	fw_snapshot_free(s);
}

static void fuzz_trace(const char *buf, size_t size)
{
	struct fw_trace strict, skip;
	struct fw_diag d;
	int rc, rs;

	memset(&d, 0, sizeof d);
	rc = fw_trace_parse_generic(buf, size, "fuzz.csv", 0, &strict, &d);
	if (rc != FW_OK && (d.msg[0] == 0 || strict.n != 0 || strict.v != NULL))
		abort();
	if (rc != FW_OK)
		fuzz_check_printed(fw_itp_diag_str, &d);
	check_jobs(&strict);
	check_unfit(&strict);
	rs = fw_trace_parse_generic(buf, size, "fuzz.csv", FW_TRACE_SKIP_BAD, &skip, &d);
	check_jobs(&skip);
	if (rc == FW_OK && (rs != FW_OK || skip.n != strict.n || skip.skipped != 0))
		abort();
	if (rs == FW_OK && skip.skipped && skip.first_bad.msg[0] == 0)
		abort();
	if (rs == FW_OK && skip.skipped)
		fuzz_check_printed(fw_itp_diag_str, &skip.first_bad);
	fw_trace_free(&strict);
	fw_trace_free(&skip);
}

/* openb pods as a trace: the same bounds, strict and skipping. */
static void fuzz_openb_trace(const char *buf, size_t size)
{
	struct fw_trace strict, skip;
	struct fw_diag d;
	int rc, rs;

	memset(&d, 0, sizeof d);
	rc = fw_trace_parse_openb(buf, size, "fuzz.csv", 0, &strict, &d);
	if (rc != FW_OK && (d.msg[0] == 0 || strict.n != 0 || strict.v != NULL))
		abort();
	if (rc != FW_OK)
		fuzz_check_printed(fw_itp_diag_str, &d);
	check_jobs(&strict);
	rs = fw_trace_parse_openb(buf, size, "fuzz.csv", FW_TRACE_SKIP_BAD, &skip, &d);
	check_jobs(&skip);
	if (rc == FW_OK && (rs != FW_OK || skip.n != strict.n || skip.skipped != 0))
		abort();
	if (rs == FW_OK && skip.skipped)
		fuzz_check_printed(fw_itp_diag_str, &skip.first_bad);
	fw_trace_free(&strict);
	fw_trace_free(&skip);
}

/* Convert with flags; a refusal says what to do; a success must read back
 * (ids may repeat in sacct output), with FW_SACCT_NO_MODEL no job may name a GPU model, and a job's
 * max_runtime is its Timelimit (expected_runtime) with
 * FW_SACCT_TIME_LIMITS or none (0), and 0 always without it. */
static void fuzz_sacct(const char *buf, size_t size, unsigned flags)
{
	struct fw_trace t;
	struct fw_diag d;
	char *out;
	size_t n;
	struct fw_sacct_counts skipped;

	memset(&d, 0, sizeof d);
	int rc = fw_sacct_convert(buf, size, "fuzz.txt", flags, &out, &n, &skipped, &d);

	if (rc != FW_OK) {
		if (d.msg[0] == 0 || out != NULL)
			abort();
		fuzz_check_printed(fw_itp_diag_str, &d);
		fuzz_check_says_what_to_do(rc, &d);
		return;
	}
	if (fw_trace_parse_csv(out, n, "converted.csv", 0, &t, &d) != FW_OK &&
	    !strstr(d.msg, "repeats the job"))
		abort();
	check_jobs(&t);
	for (size_t i = 0; (flags & FW_SACCT_NO_MODEL) && i < t.n; i++)
		if (t.v[i].gpu_model[0])
			abort();
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].max_runtime && (!(flags & FW_SACCT_TIME_LIMITS) || t.v[i].max_runtime != t.v[i].expected))
			abort();
	fw_trace_free(&t);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* copy without a terminator so reads past the end are caught */
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	fuzz_trace(buf, size);
	fuzz_openb_trace(buf, size);
	/* the header sniffer (a wrong --format's hint) reads the first line
	 * only and names a format or none */
	int f = fw_trace_sniff(buf, size);
	if (f < -1 || f > FW_TRACE_FAIRWAY)
		abort();
	fuzz_sacct(buf, size, 0);
	fuzz_sacct(buf, size, FW_SACCT_NO_MODEL);
	fuzz_sacct(buf, size, FW_SACCT_TIME_LIMITS);
	free(buf);
	return 0;
}
