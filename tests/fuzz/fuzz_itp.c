/*
 * fuzz_itp.c — libFuzzer target for the ITP trace reader (sim/itp.c) and
 * the team-size reader (sim/teams.c).
 *
 * Any byte string must either parse into rows that respect every documented
 * bound, or fail with a filled diagnosis; neither path may crash, leak or
 * trip a sanitizer.  With FW_ITP_SKIP_BAD the good rows of the strict parse
 * must be a prefix-compatible subset: a strict success implies a skipping
 * success with the same rows and nothing skipped.  Every refusal, and
 * the first skipped row's reason, ends with what to do.  Built with
 * -fsanitize=fuzzer under clang, and as fuzz_replay_itp with replay.c over
 * tests/fuzz/corpus/itp in every test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "itp.h"
#include "teams.h"
#include "printed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rows(const struct fw_itp_trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct fw_itp_job *j = &t->v[i];
		size_t n = strnlen(j->id, FW_ITP_ID_MAX);
		for (size_t k = 0; k < n; k++) /* ids reach JSON: printable ASCII */
			if (j->id[k] <= 0x20 || j->id[k] >= 0x7f || j->id[k] == '"' ||
			    j->id[k] == '\\')
				abort();
		if (n == 0 || n >= FW_ITP_ID_MAX || j->gpus < 1 || j->gpus > FW_ITP_MAX_GPUS ||
		    j->submit < 0 || j->submit > FW_ITP_MAX_TIME || j->duration < 0 ||
		    j->duration > FW_ITP_MAX_TIME || j->line < 2)
			abort();
	}
}

static void fuzz_trace(const char *buf, size_t size)
{
	struct fw_itp_trace strict, skip;
	struct fw_diag d;
	int rc, rs;

	memset(&d, 0, sizeof d);
	rc = fw_itp_parse(buf, size, "fuzz.csv", 0, &strict, &d);
	if (rc != FW_OK && (d.msg[0] == 0 || strict.n != 0 || strict.v != NULL))
		abort(); /* a failure says why and leaves nothing behind */
	if (rc != FW_OK)
		fuzz_check_printed(fw_itp_diag_str, &d);
	fuzz_check_says_what_to_do(rc, &d);
	check_rows(&strict);
	rs = fw_itp_parse(buf, size, "fuzz.csv", FW_ITP_SKIP_BAD, &skip, &d);
	check_rows(&skip);
	if (rc == FW_OK && (rs != FW_OK || skip.n != strict.n || skip.skipped != 0))
		abort();
	if (rs == FW_OK && skip.skipped && skip.first_bad.msg[0] == 0)
		abort();
	if (rs == FW_OK && skip.skipped)
		fuzz_check_says_what_to_do(FW_EINVAL, &skip.first_bad);
	fw_itp_free(&strict);
	fw_itp_free(&skip);
}

static void fuzz_teams(const char *buf, size_t size)
{
	struct fw_teams *t = malloc(sizeof *t);
	struct fw_diag d;

	if (!t)
		return;
	memset(&d, 0, sizeof d);
	if (fw_teams_parse(buf, size, "fuzz_vc.csv", t, &d) == FW_OK) {
		int64_t q[FW_TEAMS_MAX], sum = 0;
		fw_teams_quota(t, 80, q);
		for (int i = 0; i < t->n; i++)
			sum += q[i];
		if (t->n < 1 || sum != 80000 || fw_team_of(t, "x") >= t->n)
			abort();
	}
	free(t);
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
	fuzz_teams(buf, size);
	free(buf);
	return 0;
}
