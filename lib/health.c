/*
 * health.c — the health state machine of health.h.
 *
 * One step is three named phases:
 *   advance   let time pass to the event (probation ends, heartbeats time
 *             out): the tick;
 *   classify  how much the event weighs (none, transient, fatal), counting
 *             job failures and strikes on the way;
 *   move      the transition table of health.h, T1..T14.
 */
#include <stdio.h>
#include <string.h>

#include "fairway/health.h"

#define HOUR 3600
#define DAY (24 * HOUR)

void fw_health_config_default(struct fw_health_config *c)
{
	c->probation_s = 6 * HOUR;
	c->flap_window_s = 7 * DAY;
	c->flap_threshold = 2;
	c->flap_hold_s = 3 * DAY;
	c->job_fail_threshold = 3;
	c->job_fail_window_s = DAY;
	c->heartbeat_s = 0; /* off: the adapter that hears heartbeats sets it */
	c->lemon_window_s = 120 * DAY;
	c->lemon_threshold = 3;
}

void fw_health_rec_init(struct fw_health_rec *r)
{
	memset(r, 0, sizeof *r);
	r->state = FW_HEALTH_HEALTHY;
	r->last_seen = -1;
	r->cause = FW_HEV_OK;
}

static const char *const state_names[] = {
#define FW__HEALTH_NAME(U, l) #l,
	FW_HEALTH_MAP(FW__HEALTH_NAME)
#undef FW__HEALTH_NAME
};

static const char *const event_names[] = {
#define FW__HEV_NAME(U, l) #l,
	FW_HEALTH_EVENT_MAP(FW__HEV_NAME)
#undef FW__HEV_NAME
};

const char *fw_health_name(enum fw_health h)
{
	return (unsigned)h < FW_HEALTH_COUNT ? state_names[h] : "unknown";
}

void fw_health_job_fail_text(const struct fw_health_config *c, const struct fw_health_rec *r, fw_time now,
			     char *buf, size_t n)
{
	long long left = r->until > now ? (long long)(r->until - now + 59) / 60 : 0; /* minutes, rounded up */
	char rest[32];

	if (left >= 60)
		snprintf(rest, sizeof rest, "%lld h %lld min", left / 60, left % 60);
	else
		snprintf(rest, sizeof rest, "%lld min", left);
	snprintf(buf, n, "fairway: %d job failures within %lld h (probation ends in %s)", (int)c->job_fail_threshold,
		 (long long)(c->job_fail_window_s / 3600), rest);
}

const char *fw_health_event_name(enum fw_health_event_kind k)
{
	return (unsigned)k < FW_HEV_COUNT ? event_names[k] : "unknown";
}

int fw_health_from_name(const char *name)
{
	for (int i = 0; i < FW_HEALTH_COUNT; i++)
		if (!strcmp(name, state_names[i]))
			return i;
	return -1;
}

int fw_health_event_from_name(const char *name)
{
	for (int i = 0; i < FW_HEV_COUNT; i++)
		if (!strcmp(name, event_names[i]))
			return i;
	return -1;
}

enum fw_health_class fw_health_xid_class(int64_t xid)
{
	static const int64_t app[] = { 13, 31, 43, 45 };
	static const int64_t fatal[] = { 48, 64, 74, 79, 94, 95, 119, 120 };

	for (size_t i = 0; i < sizeof app / sizeof *app; i++)
		if (xid == app[i])
			return FW_HCLASS_NONE;
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		if (xid == fatal[i])
			return FW_HCLASS_FATAL;
	return FW_HCLASS_TRANSIENT;
}

static void enter(struct fw_health_rec *r, enum fw_health s, fw_time now,
		  enum fw_health_event_kind cause, int64_t arg)
{
	if (r->state != s)
		r->since = now;
	r->state = s;
	r->cause = cause;
	r->cause_arg = arg;
}

/* ---- advance ---------------------------------------------------------- */

enum fw_health fw_health_tick(const struct fw_health_config *c, struct fw_health_rec *r,
			      fw_time now)
{
	if (r->state == FW_HEALTH_SUSPECT && now >= r->until)
		enter(r, FW_HEALTH_HEALTHY, now, FW_HEV_OK, 0); /* T3 */
	if (c->heartbeat_s > 0 && r->last_seen >= 0 && r->state != FW_HEALTH_DRAINING &&
	    r->state != FW_HEALTH_UNHEALTHY && now > r->last_seen + c->heartbeat_s)
		enter(r, FW_HEALTH_UNHEALTHY, now, FW_HEV_NOT_RESPONDING, 0); /* T12 */
	return r->state;
}

/* ---- classify --------------------------------------------------------- */

static enum fw_health_class count_job_failure(const struct fw_health_config *c,
					      struct fw_health_rec *r, fw_time now)
{
	if (r->job_failures == 0 || now - r->job_fail_from >= c->job_fail_window_s) {
		r->job_failures = 0;
		r->job_fail_from = now;
	}
	if (++r->job_failures < c->job_fail_threshold)
		return FW_HCLASS_NONE; /* T13 */
	r->job_failures = 0;
	return FW_HCLASS_TRANSIENT;
}

static enum fw_health_class classify(const struct fw_health_config *c, struct fw_health_rec *r,
				     const struct fw_health_event *ev)
{
	switch (ev->kind) {
	case FW_HEV_XID:
		return fw_health_xid_class(ev->arg);
	case FW_HEV_ECC_UNCORRECTABLE:
		return ev->arg > 0 ? FW_HCLASS_FATAL : FW_HCLASS_NONE;
	case FW_HEV_NVLINK_DOWN:
		return FW_HCLASS_TRANSIENT;
	case FW_HEV_NOT_RESPONDING:
		return FW_HCLASS_FATAL;
	case FW_HEV_JOB_FAILURE:
		return count_job_failure(c, r, ev->at);
	default:
		return FW_HCLASS_NONE;
	}
}

static void strike(const struct fw_health_config *c, struct fw_health_rec *r, fw_time now)
{
	if (r->strikes == 0 || now - r->strike_from >= c->flap_window_s) {
		r->strikes = 0;
		r->strike_from = now;
	}
	r->strikes++;
}

static fw_time hold(const struct fw_health_config *c, const struct fw_health_rec *r)
{
	bool flapping = r->strikes >= c->flap_threshold;

	return flapping ? c->flap_hold_s : c->probation_s;
}

/* ---- move ------------------------------------------------------------- */

static void probation(const struct fw_health_config *c, struct fw_health_rec *r,
		      const struct fw_health_event *ev)
{
	enter(r, FW_HEALTH_SUSPECT, ev->at, ev->kind, ev->arg);
	r->until = ev->at + hold(c, r);
}

/* A fault that finds the node in service is a new incident. */
static void incident(struct fw_health_rec *r, fw_time now)
{
	if (r->state == FW_HEALTH_UNHEALTHY)
		return;
	r->incident[r->incidents % FW_HEALTH_INCIDENTS] = now;
	r->incidents++;
}

int32_t fw_health_incidents(const struct fw_health_config *c, const struct fw_health_rec *r, fw_time now)
{
	int32_t n = 0;

	for (int32_t i = 0; i < FW_HEALTH_INCIDENTS && i < r->incidents; i++)
		n += r->incident[i] <= now && now - r->incident[i] < c->lemon_window_s;
	return n;
}

bool fw_health_is_lemon(const struct fw_health_config *c, const struct fw_health_rec *r,
			fw_time now)
{
	int32_t k = c->lemon_threshold;

	if (k <= 0 || k > FW_HEALTH_INCIDENTS || r->incidents < k)
		return false;
	return fw_health_incidents(c, r, now) >= k;
}

static void on_fault(const struct fw_health_config *c, struct fw_health_rec *r,
		     const struct fw_health_event *ev, enum fw_health_class k)
{
	strike(c, r, ev->at);
	incident(r, ev->at);
	if (r->state == FW_HEALTH_UNHEALTHY)
		return; /* T11 */
	if (k == FW_HCLASS_FATAL) {
		enter(r, FW_HEALTH_UNHEALTHY, ev->at, ev->kind, ev->arg); /* T2 T5 T9 */
		return;
	}
	if (r->state == FW_HEALTH_DRAINING)
		return; /* T14 */
	probation(c, r, ev); /* T1 T4 */
}

enum fw_health fw_health_step(const struct fw_health_config *c, struct fw_health_rec *r,
			      const struct fw_health_event *ev)
{
	enum fw_health_class k;

	if (ev->kind != FW_HEV_NOT_RESPONDING)
		r->last_seen = ev->at;
	fw_health_tick(c, r, ev->at);
	k = classify(c, r, ev);
	if (k != FW_HCLASS_NONE) {
		on_fault(c, r, ev, k);
		return r->state;
	}
	if (ev->kind == FW_HEV_DRAIN)
		enter(r, FW_HEALTH_DRAINING, ev->at, ev->kind, ev->arg); /* T7 */
	else if (ev->kind == FW_HEV_REPAIRED &&
		 (r->state == FW_HEALTH_UNHEALTHY || r->state == FW_HEALTH_DRAINING))
		probation(c, r, ev); /* T6 T8 */
	return r->state; /* T10 T13, OK */
}

void fw_health_node_view(const struct fw_health_rec *node, const struct fw_health_rec *gpu,
			 int ngpus, enum fw_health *state, uint32_t *bad_mask,
			 uint32_t *suspect_mask)
{
	uint32_t bad = 0, sus = 0;

	for (int g = 0; g < ngpus && g < 32; g++) {
		if (gpu[g].state == FW_HEALTH_UNHEALTHY || gpu[g].state == FW_HEALTH_DRAINING)
			bad |= 1u << g;
		else if (gpu[g].state == FW_HEALTH_SUSPECT)
			sus |= 1u << g;
	}
	*state = node->state;
	if (ngpus > 0 && ngpus <= 32 && bad == (ngpus == 32 ? ~0u : (1u << ngpus) - 1) &&
	    *state != FW_HEALTH_DRAINING)
		*state = FW_HEALTH_UNHEALTHY;
	else if (sus && *state == FW_HEALTH_HEALTHY)
		*state = FW_HEALTH_SUSPECT;
	*bad_mask = bad;
	*suspect_mask = sus;
}
