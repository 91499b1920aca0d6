/*
 * gres.c — Slurm's GRES strings and state bits, read without libslurm's
 * private parsers (the public headers ship none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_int.h"

/* The GPU entry of a GRES list "a:1,gpu:h100:8(S:0-1),b:2" (or the TRES
 * form "gres:gpu:h100:8", "gres/gpu:8"): its count, and its type in
 * model ("" when untyped).  0 when there is no GPU entry.  The count is
 * as Slurm gives it, up to FW__GRES_MAX: more than a node of the core
 * can hold (FW_MAX_GPUS_PER_NODE) is the caller's to refuse or clamp. */
int fw__gres_gpus(const char *gres, char *model, size_t model_len)
{
	const char *p = gres;

	if (model_len)
		model[0] = '\0';
	while (p && *p) {
		size_t len = strcspn(p, ",;");
		const char *e = p, *end = p + strcspn(p, ",;(");

		if (!strncmp(e, "gres:", 5) || !strncmp(e, "gres/", 5))
			e += 5;
		if (!strncmp(e, "gpu", 3) && (e[3] == ':' || e[3] == '=')) {
			const char *f = e + 4, *last = f - 1;

			for (const char *q = f; q < end; q++)
				if (*q == ':')
					last = q;
			if (last > f && (size_t)(last - f) < model_len) {
				memcpy(model, f, (size_t)(last - f));
				model[last - f] = '\0';
			}
			long n = strtol(last + 1, NULL, 10);
			return n <= 0 ? 0 : n > FW__GRES_MAX ? FW__GRES_MAX : (int)n;
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

/* "gpu:h100:2(IDX:0-1,4)" -> bits 0, 1, 4.  0 when there is no IDX. */
uint32_t fw__gres_idx_mask(const char *detail)
{
	const char *p = detail ? strstr(detail, "IDX:") : NULL;
	uint32_t mask = 0;

	if (!p)
		return 0;
	p += 4;
	while (*p >= '0' && *p <= '9') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long g = lo; g <= hi && g < 32; g++)
			mask |= 1u << g;
		p = *end == ',' ? end + 1 : end;
	}
	return mask;
}

bool fw__job_pending(const slurm_job_info_t *j)
{
	return (j->job_state & JOB_STATE_BASE) == JOB_PENDING &&
	       !(j->job_state & JOB_COMPLETING);
}

/* Held: priority 0, what job_submit.lua, `scontrol hold` and a requeue
 * with JOB_REQUEUE_HOLD set. */
bool fw__job_held(const slurm_job_info_t *j)
{
	return fw__job_pending(j) && j->priority == 0;
}

/* Holds resources: running, suspended, or completing. */
bool fw__job_running(const slurm_job_info_t *j)
{
	uint32_t b = j->job_state & JOB_STATE_BASE;

	if (j->job_state & JOB_COMPLETING)
		return j->nodes && *j->nodes;
	return b == JOB_RUNNING || b == JOB_SUSPENDED;
}

/* Up and taking work, but for a maintenance reservation open on it
 * (Slurm's MAINT flag: the reservation's end says when it is back). */
bool fw__node_in_service(const node_info_t *n)
{
	uint32_t b = n->node_state & NODE_STATE_BASE;
	uint32_t bad = NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND |
		       NODE_STATE_POWERED_DOWN | NODE_STATE_REBOOT_REQUESTED;

	if (b == NODE_STATE_DOWN || b == NODE_STATE_UNKNOWN ||
	    b == NODE_STATE_FUTURE || b == NODE_STATE_ERROR)
		return false;
	return !(n->node_state & bad);
}

bool fw__node_drained_by_fairway(const node_info_t *n)
{
	node_info_t c = *n;

	c.node_state &= ~(uint32_t)NODE_STATE_DRAIN;
	return (n->node_state & NODE_STATE_DRAIN) && n->reason && !strncmp(n->reason, "fairway: ", 9) &&
	       fw__node_in_service(&c);
}

bool fw__node_schedulable(const node_info_t *n)
{
	return fw__node_in_service(n) && !(n->node_state & NODE_STATE_MAINT);
}
