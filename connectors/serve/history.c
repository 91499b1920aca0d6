/*
 * history.c — incidents and the lemon verdict of history.h.
 */
#include <string.h>

#include "history.h"

static void add_incident(struct fw_health_report *h, fw_time at)
{
	if (h->nincidents == FW_HEALTH_INCIDENTS) { /* forget the oldest */
		memmove(h->incident, h->incident + 1, (FW_HEALTH_INCIDENTS - 1) * sizeof h->incident[0]);
		h->nincidents--;
	}
	h->incident[h->nincidents++] = at;
}

void fw_history_follow(const struct fw_health_report *prev, struct fw_health_report *h)
{
	h->nincidents = 0;
	if (prev) {
		h->nincidents = prev->nincidents;
		memcpy(h->incident, prev->incident, sizeof h->incident);
	}
	if (!h->healthy && (!prev || prev->healthy))
		add_incident(h, h->at);
}

/* The same test fw_health_is_lemon() applies to each incident. */
static bool within(const struct fw_health_config *c, fw_time t, fw_time now)
{
	return t <= now && now - t < c->lemon_window_s;
}

int32_t fw_history_recent(const struct fw_health_report *h, const struct fw_health_config *c, fw_time now)
{
	int32_t n = 0;

	for (int32_t i = 0; i < h->nincidents; i++)
		n += within(c, h->incident[i], now);
	return n;
}

bool fw_history_is_lemon(const struct fw_health_report *h, const struct fw_health_config *c, fw_time now)
{
	struct fw_health_rec r;

	fw_health_rec_init(&r);
	r.incidents = h->nincidents;
	memcpy(r.incident, h->incident, sizeof r.incident);
	return fw_health_is_lemon(c, &r, now);
}
