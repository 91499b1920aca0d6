/*
 * fuzz_openb.c — libFuzzer target for the openb CSV readers (sim/openb.c).
 *
 * Each input is parsed as a pod list and as a node list, strictly and with
 * FW_OPENB_SKIP_BAD.  Either it parses, and every record respects the
 * documented ranges, or it fails with a filled diagnosis; nothing may
 * crash, leak or trip a sanitizer.  When both lists parse, the FGD world is
 * built from them and, if it can be, one short run is made.  Built with
 * -fsanitize=fuzzer under clang (-Dfuzz=enabled), and as fuzz_replay_openb
 * with replay.c, which runs tests/fuzz/corpus/openb in every test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fgd.h"
#include "openb.h"
#include "printed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pods(const struct fw_openb_pods *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct fw_openb_pod *p = &l->v[i];
		if (!p->name[0] || p->cpu_milli < 0 ||
		    p->cpu_milli > FW_OPENB_MAX_CPU || p->memory_mib < 0 ||
		    p->num_gpu < 0 || p->gpu_milli < 0 || p->gpu_milli > 1000 ||
		    (p->num_gpu > 1 && p->gpu_milli != 1000) || p->line < 2)
			abort();
	}
}

static void check_nodes(const struct fw_openb_nodes *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct fw_openb_node *n = &l->v[i];
		if (!n->sn[0] || n->cpu_milli < 0 || n->gpu < 0 ||
		    n->gpu > FW_OPENB_MAX_NODE_GPUS ||
		    (n->gpu > 0 && !n->model[0]) || n->line < 2)
			abort();
	}
}

/* A world from whatever parsed; a tiny run when the trace allows one. */
static void try_world(const struct fw_openb_nodes *nl,
		      const struct fw_openb_pods *pl)
{
	struct fw_fgd_world w;
	struct fw_fgd_run r;
	struct fw_diag d;
	memset(&d, 0, sizeof d);
	if (fw_fgd_world_build(nl, pl, &w, &d) != FW_OK) {
		if (!d.msg[0])
			abort();
		return;
	}
	/* keep runs short: few pods, and tuning at most 16x the trace */
	if (w.npods <= 64 && w.nnodes <= 64 && w.req_milli > 0 &&
	    w.total_gpus * 1300 <= 16 * w.req_milli)
		fw_fgd_run(&w, &fw_scorer_fairway, 1, 1.3, 0, &r);
	fw_fgd_world_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct fw_openb_pods pl[2];
	struct fw_openb_nodes nl[2];
	struct fw_diag d;
	for (int k = 0; k < 2; k++) {
		unsigned fl = k ? FW_OPENB_SKIP_BAD : 0;
		memset(&d, 0, sizeof d);
		if (fw_openb_parse_pods(buf, size, "fuzz", fl, &pl[k], &d)) {
			if (!d.msg[0] || pl[k].n != 0)
				abort();
			fuzz_check_printed(fw_openb_diag_str, &d);
		}
		check_pods(&pl[k]);
		memset(&d, 0, sizeof d);
		if (fw_openb_parse_nodes(buf, size, "fuzz", fl, &nl[k], &d)) {
			if (!d.msg[0] || nl[k].n != 0)
				abort();
			fuzz_check_printed(fw_openb_diag_str, &d);
		}
		check_nodes(&nl[k]);
	}
	try_world(&nl[1], &pl[1]);
	for (int k = 0; k < 2; k++) {
		fw_openb_pods_free(&pl[k]);
		fw_openb_nodes_free(&nl[k]);
	}
	return 0;
}
