/*
 * fuzz_config.c — libFuzzer target for the YAML config loader.
 *
 * Any byte string must either load into a snapshot that passes
 * fw_snapshot_validate() or fail with a filled diagnosis; neither path may
 * crash, leak or trip a sanitizer.  Built with -fsanitize=fuzzer under
 * clang (-Dfuzz=enabled), and as fuzz_replay_config with replay.c, which
 * runs the corpus in tests/fuzz/corpus/config in every test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fwconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fw_snapshot *s = NULL;
	struct fw_diag d;
	int rc;

	memset(&d, 0, sizeof d);
	rc = fw_config_load_buffer("fuzz.yaml", (const char *)data, size, &s,
				   &d);
	if (rc == FW_OK) {
		if (!s || fw_snapshot_validate(s, &d) != FW_OK)
			abort(); /* a loaded snapshot must be valid */
		fw_snapshot_free(s);
	} else if (s || !d.msg[0]) {
		abort(); /* failure must leave *out alone and explain itself */
	} else {
		/* no control byte of the input ("\e[2J") reaches a terminal */
		for (const char *p = d.field; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
		for (const char *p = d.msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
	}
	return 0;
}
