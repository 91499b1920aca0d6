/*
 * fuzz_topo.c — libFuzzer target for the topology file reader
 * (sim/topo.c) and the fleets built from it (sim/fleet.c).
 *
 * Any bytes must either parse into hosts with 1..FW_MAX_LEVELS levels,
 * non-empty names and unique hosts, or fail with a filled diagnosis and
 * nothing left behind.  A parsed topology must always yield a valid fleet
 * with --nodes-from-topo, and give its topology to a generated fleet of
 * at most as many nodes.  Replayed as fuzz_replay_topo over
 * tests/fuzz/corpus/topo in every run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "itp.h"
#include "topo.h"
#include "printed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct fw_topo *t)
{
	if (t->levels.nlevels < 1 || t->levels.nlevels > FW_MAX_LEVELS || t->n == 0)
		abort();
	for (size_t i = 0; i < t->n; i++) {
		if (!t->v[i].host[0] || t->v[i].line < 2)
			abort();
		for (int l = 0; l < t->levels.nlevels; l++)
			if (!t->v[i].path[l][0])
				abort();
	}
}

static void fleets(const struct fw_topo *t)
{
	struct fw_fleet_opts o = { (int32_t)(t->n < 4 ? t->n : 4), 8, 0, 0 };
	struct fw_snapshot *s;
	struct fw_diag d;

	if (t->n <= FW_FLEET_MAX_NODES) {
		if (fw_fleet_from_topo(t, 8, &s, &d) != FW_OK)
			abort();
		fw_snapshot_free(s);
	}
	if (fw_fleet_generate(&o, &s, &d) != FW_OK)
		abort();
	if (fw_fleet_apply_topo(s, t, &d) != FW_OK)
		abort();
	fw_snapshot_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct fw_topo t;
	struct fw_diag d;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	memset(&d, 0, sizeof d);
	if (fw_topo_parse(buf, size, "fuzz_topo.csv", &t, &d) == FW_OK) {
		check(&t);
		fleets(&t);
		fw_topo_free(&t);
	} else if (d.msg[0] == 0 || t.v != NULL || t.n != 0) {
		abort();
	} else {
		fuzz_check_printed(fw_itp_diag_str, &d);
	}
	free(buf);
	return 0;
}
