/*
 * history.h — a node's fault history in the daemon, and its lemon verdict.
 *
 * The core judges a "lemon" (a node that fails again and again, health.h)
 * from the incident times of a struct fw_health_rec.  The daemon does not
 * run the core's health state machine: what it keeps per node is the
 * latest report (struct fw_health_report, POST /v1/nodes/{name}/health).
 * A latest report forgets the past, so the daemon keeps the incident
 * times itself, beside the report and in the same stored document
 * (codec.h: "incidents"), and they survive a restart with it.
 *
 * An incident is a report that turns a node from healthy, or never
 * reported, to unhealthy.  An outage is one incident however many
 * unhealthy reports it gets (an agent repeats its report every interval);
 * a healthy report, suspect or not, ends the outage.  The incident's time
 * is the report's `at` (the daemon's clock when the body has none).  The
 * last FW_HEALTH_INCIDENTS (8) are kept, oldest first, in arrival order;
 * older ones are forgotten, which costs nothing because the core's
 * lemon_threshold is at most FW_HEALTH_INCIDENTS.  This is the core's own
 * definition (lib/health.c incident(): a fault that finds the node in
 * service), seen through reports instead of events.
 *
 * The verdict is the core's: the history becomes a fw_health_rec and
 * fw_health_is_lemon() counts lemon_threshold incidents within
 * lemon_window_s before now, so the daemon and the simulator judge alike.
 * It depends on now, so the cycle asks every time (cycle.c overlay()): a
 * lemon whose incidents age out of the window becomes an ordinary node
 * with no report at all.  fw_history_recent() is the count the verdict
 * compares with the threshold, for the API to show.
 *
 * Reports that come from the backend (Slurm DOWN/DRAIN) carry no
 * history: they are the backend's state read again every cycle, not
 * events.  Pure functions: no I/O, no clock, no daemon state.
 */
#ifndef FAIRWAY_SERVE_HISTORY_H
#define FAIRWAY_SERVE_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "codec.h"
#include "fairway/health.h"

/* h is a new report for its node and prev the node's previous one (NULL
 * when none): h takes prev's history (whatever h carried is replaced) and,
 * when h opens an outage, one more incident at h->at. */
void fw_history_follow(const struct fw_health_report *prev, struct fw_health_report *h);

/* Incidents of h within c->lemon_window_s before now (none after now). */
int32_t fw_history_recent(const struct fw_health_report *h, const struct fw_health_config *c, fw_time now);

/* fw_health_is_lemon() over h's history. */
bool fw_history_is_lemon(const struct fw_health_report *h, const struct fw_health_config *c, fw_time now);

#endif
