/*
 * report.c — collect a report from NVML, fold it into health, JSON both
 * ways (report.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fairway/err.h"
#include "report.h"

/* ---- collect ---------------------------------------------------------- */

int fw_agent_events_open(struct fw_nvml *n, struct fw_agent_events *e, int ngpus)
{
	memset(e, 0, sizeof *e);
	if (n->event_create(&e->set) != NVML_SUCCESS)
		return FW_EIO;
	e->ok = true;
	for (int i = 0; i < ngpus; i++) {
		nvmlDevice_t d;
		if (n->handle((unsigned)i, &d) != NVML_SUCCESS)
			continue; /* not ours, or lost: fw_agent_collect says which */
		if (n->event_register(d, nvmlEventTypeXidCriticalError, e->set) != NVML_SUCCESS)
			e->ok = false; /* e.g. not supported on this GPU: no XIDs */
	}
	return FW_OK;
}

void fw_agent_events_close(struct fw_nvml *n, struct fw_agent_events *e)
{
	if (e->set)
		n->event_free(e->set);
	e->set = NULL;
}

static bool is_lost(nvmlReturn_t rc)
{
	return rc == NVML_ERROR_GPU_IS_LOST || rc == NVML_ERROR_RESET_REQUIRED;
}

/* Row remapping (report.h); left at -1 (not supported) when NVML has no
 * answer: an older GPU or driver. */
static void read_remap(struct fw_nvml *n, nvmlDevice_t d, struct fw_agent_gpu *g)
{
	unsigned corr, unc, pending, failed;

	if (!n->remapped_rows || n->remapped_rows(d, &corr, &unc, &pending, &failed) != NVML_SUCCESS)
		return;
	g->remap_corr = corr;
	g->remap_unc = unc;
	g->remap_pending = pending != 0;
	g->remap_failed = failed != 0;
}

static void read_counters(struct fw_nvml *n, nvmlDevice_t d, struct fw_agent_gpu *g)
{
	unsigned t;
	unsigned long long ecc;
	int st;
	nvmlReturn_t rc = n->temperature(d, NVML_TEMPERATURE_GPU, &t);

	g->lost = is_lost(rc);
	g->temperature_c = rc == NVML_SUCCESS ? (int64_t)t : -1;
	g->ecc_volatile = n->ecc(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &ecc) ==
					  NVML_SUCCESS
				  ? (int64_t)ecc
				  : -1;
	g->ecc_aggregate = n->ecc(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &ecc) ==
					   NVML_SUCCESS
				   ? (int64_t)ecc
				   : -1;
	read_remap(n, d, g);
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		if (n->nvlink_state(d, l, &st) != NVML_SUCCESS)
			continue; /* no such link */
		g->link_present |= 1u << l;
		if (st == NVML_FEATURE_ENABLED) {
			g->link_active |= 1u << l;
			g->nvlink_up++;
		}
	}
}

/* Sort each GPU's inactive links into down (expected up: report.h) and
 * inactive, and remember the links seen up. */
static void judge_links(struct fw_agent_events *e, struct fw_agent_report *r)
{
	uint32_t peers = 0, expect = 0;

	for (int i = 0; i < r->ngpus; i++)
		peers |= r->gpu[i].link_active;
	if (e && e->nvlinks > 0)
		expect = (uint32_t)((1ull << e->nvlinks) - 1);
	for (int i = 0; i < r->ngpus; i++) {
		struct fw_agent_gpu *g = &r->gpu[i];
		uint32_t seen = e ? e->seen_up[i] : 0;
		uint32_t want = peers | seen | expect;
		for (int l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			uint32_t b = 1u << l;
			if ((g->link_active & b) || (!(g->link_present & b) && !(expect & b)))
				continue;
			if (want & b)
				g->nvlink_down[g->ndown++] = l;
			else
				g->nvlink_inactive[g->ninactive++] = l;
		}
		uint32_t down = 0;
		for (int k = 0; k < g->ndown; k++)
			down |= 1u << g->nvlink_down[k];
		g->down_new = down & ~(e ? e->down_last[i] : 0);
		if (e) {
			e->seen_up[i] = seen | g->link_active;
			e->down_last[i] = down;
		}
	}
}

/* Mark the GPUs seen reset since the last report, or all of them when the
 * operator said repaired (report.h), and the row remaps that are news;
 * remember this report's state. */
static void judge_resets(struct fw_agent_events *e, struct fw_agent_report *r)
{
	for (int i = 0; i < r->ngpus; i++) {
		struct fw_agent_gpu *g = &r->gpu[i];
		g->remap_new = g->remap_pending && !(e && e->remap_last[i]);
		if (!e)
			continue;
		g->reset = e->repaired || (e->lost_last[i] && !g->lost && !g->unread[0]) ||
			   (e->ecc_last[i] > 0 && g->ecc_volatile == 0) ||
			   (e->remap_last[i] && !g->remap_pending && g->remap_corr >= 0);
		e->lost_last[i] = g->lost;
		e->ecc_last[i] = g->ecc_volatile;
		e->remap_last[i] = g->remap_pending;
	}
	if (e)
		e->repaired = false;
}

static int gpu_of(struct fw_nvml *n, const struct fw_agent_report *r, nvmlDevice_t d)
{
	for (int i = 0; i < r->ngpus; i++) {
		nvmlDevice_t h;
		if (n->handle((unsigned)i, &h) == NVML_SUCCESS && h == d)
			return i;
	}
	return -1;
}

static void drain_events(struct fw_nvml *n, struct fw_agent_events *e, unsigned wait_ms,
			 struct fw_agent_report *r)
{
	nvmlEventData_t ev;

	if (!e || !e->set)
		return;
	for (unsigned w = wait_ms;; w = 0) {
		memset(&ev, 0, sizeof ev);
		if (n->event_wait(e->set, &ev, w) != NVML_SUCCESS)
			return; /* NVML_ERROR_TIMEOUT: nothing (more) */
		int i = gpu_of(n, r, ev.device);
		if (i < 0 || !(ev.eventType & nvmlEventTypeXidCriticalError))
			continue;
		struct fw_agent_gpu *g = &r->gpu[i];
		if (g->nxid < FW_AGENT_MAX_XID) {
			g->xid[g->nxid] = (int64_t)ev.eventData;
			g->xid_at[g->nxid++] = r->time;
		}
	}
}

int fw_agent_collect(struct fw_nvml *n, struct fw_agent_events *e, unsigned wait_ms,
		     struct fw_agent_report *r)
{
	unsigned count;
	nvmlReturn_t rc;

	r->available = true;
	r->xid_events = e && e->ok;
	if (n->driver_version(r->driver, sizeof r->driver) != NVML_SUCCESS)
		r->driver[0] = 0;
	if ((rc = n->count(&count)) != NVML_SUCCESS) {
		snprintf(r->why, sizeof r->why, "nvmlDeviceGetCount: %s", fw_nvml_error(n, rc));
		return FW_EIO;
	}
	r->ngpus = count > FW_AGENT_MAX_GPUS ? FW_AGENT_MAX_GPUS : (int)count;
	for (int i = 0; i < r->ngpus; i++) {
		struct fw_agent_gpu *g = &r->gpu[i];
		nvmlDevice_t d;
		memset(g, 0, sizeof *g);
		g->index = (unsigned)i;
		g->temperature_c = g->ecc_volatile = g->ecc_aggregate = -1;
		g->remap_corr = g->remap_unc = -1;
		if ((rc = n->handle((unsigned)i, &d)) != NVML_SUCCESS) {
			g->lost = is_lost(rc);
			snprintf(g->name, sizeof g->name, "unknown");
			snprintf(g->unread, sizeof g->unread, "%s", fw_nvml_error(n, rc));
			continue; /* report.h: unread or lost, never the report's end */
		}
		if (n->name(d, g->name, sizeof g->name) != NVML_SUCCESS)
			snprintf(g->name, sizeof g->name, "unknown");
		if (n->uuid(d, g->uuid, sizeof g->uuid) != NVML_SUCCESS)
			g->uuid[0] = 0;
		read_counters(n, d, g);
	}
	judge_links(e, r);
	judge_resets(e, r);
	drain_events(n, e, wait_ms, r);
	return FW_OK;
}

/* ---- fold ------------------------------------------------------------- */

/* A fault that stays (a link down, a pending remap) is stepped again
 * only when the record would otherwise heal (report.h). */
static bool healing(const struct fw_health_rec *rec, int64_t now)
{
	return rec->state == FW_HEALTH_HEALTHY || (rec->state == FW_HEALTH_SUSPECT && now >= rec->until);
}

static bool has_xid(const struct fw_agent_gpu *g, int64_t code)
{
	for (int k = 0; k < g->nxid; k++)
		if (g->xid[k] == code)
			return true;
	return false;
}

/* The row-remap counters as the XIDs the driver raises for them (report.h);
 * not again when this report carries that XID itself.  A pending remap is
 * the aftermath of a memory error: of a failed remap, or of an ECC error
 * that has already made the GPU unhealthy, it is the same fault. */
static bool fold_remap(const struct fw_health_config *c, struct fw_health_rec *rec,
		       const struct fw_agent_gpu *g, int64_t now)
{
	if (g->remap_failed && rec->state != FW_HEALTH_UNHEALTHY && !has_xid(g, 64)) {
		struct fw_health_event x = { FW_HEV_XID, now, 64 };
		fw_health_step(c, rec, &x);
	}
	if (g->remap_pending && !g->remap_failed && rec->state != FW_HEALTH_UNHEALTHY &&
	    (g->remap_new || healing(rec, now)) && !has_xid(g, 63)) {
		struct fw_health_event x = { FW_HEV_XID, now, 63 };
		fw_health_step(c, rec, &x);
	}
	return g->remap_failed || g->remap_pending;
}

static void fold_gpu(const struct fw_health_config *c, struct fw_health_rec *rec,
		     const struct fw_agent_gpu *g, int64_t now)
{
	struct fw_health_event ev = { FW_HEV_OK, now, 0 };
	bool fault = false;

	if (g->reset && rec->state == FW_HEALTH_UNHEALTHY) {
		struct fw_health_event x = { FW_HEV_REPAIRED, now, 0 };
		fw_health_step(c, rec, &x);
	}
	/* A lost GPU or a volatile ECC count is there until a reset, so it is
	 * one fault: stepped again only once the GPU is out of UNHEALTHY
	 * (repaired while the fault stays), not in every report of it. */
	if (g->lost) {
		struct fw_health_event x = { FW_HEV_NOT_RESPONDING, now, 0 };
		if (rec->state != FW_HEALTH_UNHEALTHY)
			fw_health_step(c, rec, &x);
		fault = true;
	} else if (g->unread[0]) {
		return; /* not this agent's to judge */
	}

	for (int k = 0; k < g->nxid; k++) {
		struct fw_health_event x = { FW_HEV_XID, g->xid_at[k] < now ? g->xid_at[k] : now, g->xid[k] };
		fw_health_step(c, rec, &x);
		fault = true;
	}
	if (g->ecc_volatile > 0) {
		struct fw_health_event x = { FW_HEV_ECC_UNCORRECTABLE, now, g->ecc_volatile };
		if (rec->state != FW_HEALTH_UNHEALTHY)
			fw_health_step(c, rec, &x);
		fault = true;
	}
	if (fold_remap(c, rec, g, now))
		fault = true;
	for (int k = 0; k < g->ndown; k++) {
		struct fw_health_event x = { FW_HEV_NVLINK_DOWN, now, g->nvlink_down[k] };
		bool fresh = (unsigned)g->nvlink_down[k] >= 32 || (g->down_new >> g->nvlink_down[k]) & 1;
		if (fresh || healing(rec, now))
			fw_health_step(c, rec, &x); /* report.h: a link that stays down */
		fault = true;
	}
	if (!fault)
		fw_health_step(c, rec, &ev);
}

void fw_agent_fold(const struct fw_health_config *c, struct fw_health_rec *node,
		   struct fw_health_rec *gpus, struct fw_agent_report *r)
{
	struct fw_health_event ok = { FW_HEV_OK, r->time, 0 };

	fw_health_step(c, node, &ok);
	for (int i = 0; i < r->ngpus; i++) {
		fold_gpu(c, &gpus[i], &r->gpu[i], r->time);
		r->gpu[i].health = gpus[i].state;
		r->gpu[i].until = gpus[i].state == FW_HEALTH_SUSPECT ? gpus[i].until : 0;
	}
	fw_health_node_view(node, gpus, r->ngpus, &r->node_health, &r->bad_mask, &r->suspect_mask);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *int_list(const int64_t *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *mask_list(uint32_t m)
{
	json_t *a = json_array();

	for (int g = 0; g < 32; g++)
		if (m & (1u << g))
			json_array_append_new(a, json_integer(g));
	return a;
}

static json_t *maybe(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *gpu_json(const struct fw_agent_gpu *g)
{
	int64_t down[NVML_NVLINK_MAX_LINKS], off[NVML_NVLINK_MAX_LINKS];
	json_t *o = json_object(), *xids = json_array();

	for (int k = 0; k < g->ndown; k++)
		down[k] = g->nvlink_down[k];
	for (int k = 0; k < g->ninactive; k++)
		off[k] = g->nvlink_inactive[k];
	for (int k = 0; k < g->nxid; k++)
		json_array_append_new(xids, json_pack("{s:I,s:I}", "code", (json_int_t)g->xid[k], "at",
						      (json_int_t)g->xid_at[k]));
	json_object_set_new(o, "index", json_integer(g->index));
	json_object_set_new(o, "name", json_string(g->name));
	json_object_set_new(o, "uuid", json_string(g->uuid));
	json_object_set_new(o, "temperature_c", maybe(g->temperature_c));
	json_object_set_new(o, "ecc_uncorrectable", json_pack("{s:o,s:o}", "volatile", maybe(g->ecc_volatile),
							      "aggregate", maybe(g->ecc_aggregate)));
	json_object_set_new(o, "row_remap", g->remap_corr < 0 ? json_null()
				: json_pack("{s:I,s:o,s:b,s:b}", "correctable", (json_int_t)g->remap_corr,
					    "uncorrectable", maybe(g->remap_unc), "pending", g->remap_pending,
					    "failed", g->remap_failed));
	json_object_set_new(o, "nvlink", json_pack("{s:i,s:o,s:o}", "up", g->nvlink_up, "down", int_list(down, g->ndown),
						   "inactive", int_list(off, g->ninactive)));
	json_object_set_new(o, "xid", xids);
	json_object_set_new(o, "lost", json_boolean(g->lost));
	json_object_set_new(o, "unread", g->unread[0] ? json_string(g->unread) : json_null());
	json_object_set_new(o, "health", g->unread[0] && !g->lost ? json_null() /* not judged */
						     : json_string(fw_health_name(g->health)));
	json_object_set_new(o, "suspect_until", g->until > 0 ? json_integer(g->until) : json_null());
	return o;
}

json_t *fw_agent_to_json(const struct fw_agent_report *r)
{
	json_t *o = json_object(), *gpus = json_array();

	json_object_set_new(o, "agent", json_string("fairway-agent"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "node", json_string(r->node));
	json_object_set_new(o, "time", json_integer(r->time));
	json_object_set_new(o, "nvml", r->available ? json_pack("{s:b,s:s,s:b}", "available", 1, "driver", r->driver,
								"xid_events", r->xid_events)
						    : json_pack("{s:b,s:s}", "available", 0, "why", r->why));
	for (int i = 0; i < r->ngpus; i++)
		json_array_append_new(gpus, gpu_json(&r->gpu[i]));
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "node_health", json_string(fw_health_name(r->node_health)));
	json_object_set_new(o, "bad_gpus", mask_list(r->bad_mask));
	json_object_set_new(o, "suspect_gpus", mask_list(r->suspect_mask));
	return o;
}

static const char *str_or(const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

/* ---- read: every refusal names the field by its path ------------------ */

static int refuse(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return FW_EINVAL;
}

/* o[key] as a whole number from lo to hi into *out; absent or null is
 * dflt.  The refusal names "at.key" (at: the path of o). */
static int whole(const json_t *o, const char *at, const char *key, int64_t lo, int64_t hi, int64_t dflt,
		 int64_t *out, char *why, size_t whylen)
{
	const json_t *v = json_object_get(o, key);
	int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;

	*out = dflt;
	if (!v || json_is_null(v))
		return FW_OK;
	if (json_is_integer(v) && x >= lo && x <= hi)
		return *out = x, FW_OK;
	if (hi == INT64_MAX)
		return refuse(why, whylen, "%s.%s: must be %s>= %lld%s", at, key,
			      json_is_integer(v) ? "" : "a whole number ", (long long)lo,
			      dflt < 0 ? " (or null: not supported)" : "");
	return refuse(why, whylen, "%s.%s: must be a whole number from %lld to %lld", at, key, (long long)lo,
		      (long long)hi);
}

static int flag(const json_t *o, const char *at, const char *key, bool *out, char *why, size_t whylen)
{
	const json_t *v = json_object_get(o, key);

	*out = json_is_true(v);
	if (!v || json_is_boolean(v))
		return FW_OK;
	return refuse(why, whylen, "%s.%s: must be true or false", at, key);
}

/* "row_remap": null (not supported) or its four members; a report read
 * alone has every pending remap as news. */
static int remap_from_json(const json_t *rm, const char *at, struct fw_agent_gpu *g, char *why, size_t whylen)
{
	char p[64];
	int rc;

	snprintf(p, sizeof p, "%s.row_remap", at);
	g->remap_corr = g->remap_unc = -1;
	if (!rm || json_is_null(rm))
		return FW_OK;
	if (!json_is_object(rm) || !json_is_integer(json_object_get(rm, "correctable")))
		return refuse(why, whylen, "%s: must be null (not supported) or an object with correctable, "
					   "uncorrectable, pending and failed", p);
	if ((rc = whole(rm, p, "correctable", 0, INT64_MAX, -1, &g->remap_corr, why, whylen)) ||
	    (rc = whole(rm, p, "uncorrectable", 0, INT64_MAX, -1, &g->remap_unc, why, whylen)) ||
	    (rc = flag(rm, p, "pending", &g->remap_pending, why, whylen)) ||
	    (rc = flag(rm, p, "failed", &g->remap_failed, why, whylen)))
		return rc;
	g->remap_new = g->remap_pending;
	return FW_OK;
}

/* A list of NVLink link numbers (0..17) at "at.nvlink.key". */
static int links(const json_t *a, const char *at, const char *key, int *out, int *n, char *why, size_t whylen)
{
	const json_t *v;
	size_t k;

	if (a && !json_is_array(a))
		return refuse(why, whylen, "%s.nvlink.%s: must be a list of link numbers ([] for none)", at, key);
	json_array_foreach(a, k, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= NVML_NVLINK_MAX_LINKS)
			return refuse(why, whylen, "%s.nvlink.%s[%zu]: must be a link number from 0 to %d", at, key, k,
				      NVML_NVLINK_MAX_LINKS - 1);
		if (*n < NVML_NVLINK_MAX_LINKS)
			out[(*n)++] = (int)json_integer_value(v);
	}
	return FW_OK;
}

/* "xid": [{code, at}, ...]; an event without "at" is of the report's time. */
static int xids(const json_t *a, const char *at, int64_t now, struct fw_agent_gpu *g, char *why, size_t whylen)
{
	const json_t *v;
	char p[64];
	size_t k;
	int rc;

	json_array_foreach(a, k, v) {
		snprintf(p, sizeof p, "%s.xid[%zu]", at, k);
		if (!json_is_object(v) || !json_is_integer(json_object_get(v, "code")))
			return refuse(why, whylen, "%s: must be an object with code (the XID) and at (Unix seconds)", p);
		if (g->nxid >= FW_AGENT_MAX_XID)
			continue;
		if ((rc = whole(v, p, "code", 0, INT64_MAX, 0, &g->xid[g->nxid], why, whylen)) ||
		    (rc = whole(v, p, "at", 0, INT64_MAX, now, &g->xid_at[g->nxid], why, whylen)))
			return rc;
		g->nxid++;
	}
	return FW_OK;
}

/* The counters of gpus[pos] (at); -1: not supported (null). */
static int counters(const json_t *o, const char *at, struct fw_agent_gpu *g, char *why, size_t whylen)
{
	const json_t *ecc = json_object_get(o, "ecc_uncorrectable");
	int64_t up;
	char p[64];
	int rc;

	snprintf(p, sizeof p, "%s.ecc_uncorrectable", at);
	if (ecc && !json_is_object(ecc) && !json_is_null(ecc))
		return refuse(why, whylen, "%s: must be an object with volatile and aggregate", p);
	if ((rc = whole(o, at, "temperature_c", 0, INT64_MAX, -1, &g->temperature_c, why, whylen)) ||
	    (rc = whole(ecc, p, "volatile", 0, INT64_MAX, -1, &g->ecc_volatile, why, whylen)) ||
	    (rc = whole(ecc, p, "aggregate", 0, INT64_MAX, -1, &g->ecc_aggregate, why, whylen)))
		return rc;
	snprintf(p, sizeof p, "%s.nvlink", at);
	if ((rc = whole(json_object_get(o, "nvlink"), p, "up", 0, NVML_NVLINK_MAX_LINKS, 0, &up, why, whylen)))
		return rc;
	g->nvlink_up = (int)up;
	return flag(o, at, "lost", &g->lost, why, whylen);
}

static int gpu_from_json(const json_t *o, size_t pos, int64_t now, struct fw_agent_gpu *g, char *why,
			 size_t whylen)
{
	const json_t *nv = json_object_get(o, "nvlink");
	char at[32];
	int rc;

	snprintf(at, sizeof at, "gpus[%zu]", pos);
	memset(g, 0, sizeof *g);
	if (!json_is_object(o))
		return refuse(why, whylen, "%s: must be an object (one GPU)", at);
	if (!json_is_array(json_object_get(o, "xid")))
		return refuse(why, whylen, "%s.xid: must be a list of XID events ([] for none)", at);
	if (!json_is_array(json_object_get(nv, "down")))
		return refuse(why, whylen, "%s.nvlink.down: must be a list of link numbers ([] for none)", at);
	snprintf(g->name, sizeof g->name, "%s", str_or(json_object_get(o, "name")));
	snprintf(g->uuid, sizeof g->uuid, "%s", str_or(json_object_get(o, "uuid")));
	snprintf(g->unread, sizeof g->unread, "%s", str_or(json_object_get(o, "unread")));
	if ((rc = counters(o, at, g, why, whylen)) ||
	    (rc = remap_from_json(json_object_get(o, "row_remap"), at, g, why, whylen)) ||
	    (rc = links(json_object_get(nv, "down"), at, "down", g->nvlink_down, &g->ndown, why, whylen)) ||
	    (rc = links(json_object_get(nv, "inactive"), at, "inactive", g->nvlink_inactive, &g->ninactive, why,
			whylen)))
		return rc;
	g->down_new = ~0u; /* a report read alone: every link down is news */
	return xids(json_object_get(o, "xid"), at, now, g, why, whylen);
}

/* gpus[pos].index: absent is pos; each GPU once, from 0 to n-1 (the
 * masks are by index, and the agent lists every GPU of the node). */
static int gpu_index(const json_t *o, size_t pos, size_t n, const int *seen, int64_t *idx, char *why,
		     size_t whylen)
{
	char at[32];

	snprintf(at, sizeof at, "gpus[%zu]", pos);
	if (whole(o, at, "index", 0, (int64_t)n - 1, (int64_t)pos, idx, why, whylen) != FW_OK)
		return refuse(why, whylen, "%s.index: must be a GPU index from 0 to %zu (the report lists %zu GPU%s)", at,
			      n - 1, n, n == 1 ? "" : "s");
	if (seen[*idx] >= 0)
		return refuse(why, whylen, "%s.index: GPU %lld is listed twice (also gpus[%d]); list each GPU once", at,
			      (long long)*idx, seen[*idx]);
	return FW_OK;
}

static int gpus_from_json(const json_t *gpus, struct fw_agent_report *r, char *why, size_t whylen)
{
	struct fw_agent_gpu g;
	int seen[FW_AGENT_MAX_GPUS];
	size_t n = json_array_size(gpus), i;
	const json_t *v;
	int64_t idx;
	int rc;

	if (n > FW_AGENT_MAX_GPUS)
		return refuse(why, whylen, "gpus: lists %zu GPUs, at most %d are read", n, FW_AGENT_MAX_GPUS);
	for (i = 0; i < FW_AGENT_MAX_GPUS; i++)
		seen[i] = -1;
	json_array_foreach(gpus, i, v) {
		if ((rc = gpu_from_json(v, i, r->time, &g, why, whylen)) ||
		    (rc = gpu_index(v, i, n, seen, &idx, why, whylen)))
			return rc;
		seen[idx] = (int)i;
		g.index = (unsigned)idx;
		r->gpu[idx] = g;
	}
	r->ngpus = (int)n;
	return FW_OK;
}

int fw_agent_from_json(const json_t *j, struct fw_agent_report *r, char *why, size_t whylen)
{
	int64_t t;
	int rc;

	memset(r, 0, sizeof *r);
	if (!json_is_object(j) || !json_is_array(json_object_get(j, "gpus")) ||
	    !json_is_integer(json_object_get(j, "time")))
		return refuse(why, whylen, "not a fairway-agent report: needs time and gpus");
	if ((rc = whole(j, "report", "time", 0, INT64_MAX, 0, &t, why, whylen)))
		return refuse(why, whylen, "time: must be >= 0 (Unix seconds)");
	snprintf(r->node, sizeof r->node, "%s", str_or(json_object_get(j, "node")));
	r->time = t;
	r->available = json_is_true(json_object_get(json_object_get(j, "nvml"), "available"));
	return gpus_from_json(json_object_get(j, "gpus"), r, why, whylen);
}
