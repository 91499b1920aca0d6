/*
 * fuzz_agent.c — libFuzzer target for fairway-agent's report reader
 * (agent/report.c, fw_agent_from_json: what `fairway-agent --assess FILE`
 * parses).
 *
 * Any bytes must either be refused (not JSON, or not a report: the reason
 * is set) or give a report that folds into health without fault and
 * writes JSON that reads back to the same JSON (what the agent prints is
 * what it reads).  Built with -fsanitize=fuzzer under clang, and as
 * fuzz_replay_agent with replay.c over tests/fuzz/corpus/agent in every
 * test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write, read back, write again: the two writes must be equal. */
static void round_trip(const struct fw_agent_report *r)
{
	struct fw_agent_report *v = malloc(sizeof *v);
	json_t *a = fw_agent_to_json(r), *b = NULL;
	char why[256];

	if (!v || !a || fw_agent_from_json(a, v, why, sizeof why) != 0)
		abort(); /* what we wrote must be readable */
	b = fw_agent_to_json(v);
	if (!b || !json_equal(a, b))
		abort();
	json_decref(a);
	json_decref(b);
	free(v);
}

static void fold(struct fw_agent_report *r)
{
	struct fw_health_config c;
	struct fw_health_rec node, gpu[FW_AGENT_MAX_GPUS];

	fw_health_config_default(&c);
	fw_health_rec_init(&node);
	for (int i = 0; i < FW_AGENT_MAX_GPUS; i++)
		fw_health_rec_init(&gpu[i]);
	fw_agent_fold(&c, &node, gpu, r);
	if (r->bad_mask >> r->ngpus || r->suspect_mask >> r->ngpus)
		abort(); /* a mask names only GPUs of the report */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fw_agent_report *r;
	json_error_t je;
	json_t *j = json_loadb((const char *)data, size, 0, &je);
	char why[256] = "";

	if (!j)
		return 0;
	if (!(r = malloc(sizeof *r)))
		abort();
	if (fw_agent_from_json(j, r, why, sizeof why) == 0) {
		round_trip(r);
		fold(r);
	} else if (!why[0]) {
		abort(); /* a refusal says why */
	}
	json_decref(j);
	free(r);
	return 0;
}
