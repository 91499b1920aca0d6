/*
 * report.h — the self-contained HTML report of a `fairway sim run`.
 *
 * One file, no network, no JavaScript: inline CSS and inline SVG charts
 * drawn from a struct fw_met_run (metrics.h):
 *   - a summary table, one column per policy, the best value of each
 *     metric highlighted (ties all highlighted; rows without a "better"
 *     direction are left plain);
 *   - occupancy over time, one line per policy;
 *   - time-to-start CDFs, one small chart per size bucket, log time axis;
 *   - allocated GPUs vs fair share over time for the queues with the
 *     largest quotas, one small chart per (queue, policy).
 * The output is a pure function of the run (no timestamps, no timings),
 * so the same replay writes the same bytes.
 */
#ifndef FAIRWAY_SIM_REPORT_H
#define FAIRWAY_SIM_REPORT_H

#include <stdio.h>

#include "metrics.h"

#define FW_REPORT_MAX_QUEUES 6 /* queue rows in the share chart */

/* Write the report to an open stream (sim/outfile.c owns the file: a
 * temporary renamed into place when the whole run succeeded); returns
 * ferror(f) ? -1 : 0. */
int fw_report_emit(const struct fw_met_run *mr, FILE *f);

#endif
