/*
 * render.h — turning a plan into what people and programs read.
 *
 * Two renderers over the same plan: an aligned text table for terminals
 * (fw_render_table) and a JSON document (fw_render_json, built with
 * jansson, keys in a fixed order) for --json.  Both are deterministic:
 * equal plans give equal bytes, which the golden scenario tests rely on.
 *
 * The JSON is one schema with the daemon's GET /v1/plan (the documented,
 * versioned API; connectors/serve/view.c builds its entries): what both
 * give goes under the API's names (the plan's "at"; a waiting job's
 * "name", "reasonText", "ahead", "reservedAt", "unknownWhy",
 * "unknownWhyText"; a decision's "nodes"), so one jq filter reads a plan
 * of its own and a daemon's.  What only a plan of its own has keeps its
 * own name ("policy", "considered", "queues", "args", "for", "lostWork",
 * "tasks").  tests/cli.sh compares the two on one config.
 */
#ifndef FAIRWAY_RENDER_H
#define FAIRWAY_RENDER_H

#include <stdio.h>

#include <jansson.h>

#include "fairway/plan.h"
#include "fairway/policy.h"
#include "fairway/snapshot.h"
#include "fairway/span.h"

void fw_render_table(FILE *f, const struct fw_snapshot *s, const struct fw_plan *p,
		     const struct fw_policy_ops *pol);
/* "45s", "20m", "10h05m": a measured duration as the tables show it,
 * cut to the minute from a minute on (work lost, measured times);
 * returns buf.  A set value that must read as given (a run-time limit,
 * a run, a wait) is written to the second by the core's
 * fw_span_format (fairway/span.h: "1m40s", "1h29m59s", "2h00m"). */
const char *fw_render_span(fw_time secs, char *buf, size_t n);
/* New reference; NULL on allocation failure. */
json_t *fw_render_json(const struct fw_snapshot *s, const struct fw_plan *p,
		       const struct fw_policy_ops *pol);

#endif
