/*
 * actions.c — a plan as backend actions (by name, their reasons too) and
 * per-job notes, for drivers that run without the daemon.  The daemon
 * makes its own actions (connectors/serve); both feed fw_slurm_apply().
 *
 * Note text (a Slurm comment, at most ~100 characters):
 *   "fairway: waiting: <reason>; expected start 2026-11-30T02:10Z; 3 ahead"
 *   "fairway: waiting: <reason>; start unknown (<why>)"
 * Expected starts are rounded to the minute so that a comment changes at
 * most once a minute while the estimate slides with the clock.
 */
#include <stdio.h>
#include <string.h>

#include "fairway/span.h"
#include "reason.h"
#include "slurm_int.h"

static void fill_placements(const struct fw_snapshot *s, const struct fw_plan *p,
			    const struct fw_decision *d, struct fw_backend_placement *pl)
{
	for (int32_t k = 0; k < d->alloc_count; k++) {
		const struct fw_task_alloc *t = &p->allocs[d->alloc_first + k];
		snprintf(pl[k].node, sizeof pl[k].node, "%s", s->nodes[t->node].name);
		pl[k].group = t->group;
		pl[k].gpu_mask = t->gpu_mask;
		pl[k].gpu_milli = t->gpu_milli;
	}
}

static int one_action(const struct fw_snapshot *s, const struct fw_plan *p,
		      const struct fw_decision *d, struct fw_arena *a,
		      struct fw_backend_action *x)
{
	struct fw_backend_placement *pl = NULL;

	memset(x, 0, sizeof *x);
	x->kind = d->kind;
	x->reason = d->reason;
	x->a = d->a;
	x->b = d->b;
	x->at = d->at;
	x->until = FW_TIME_UNKNOWN;
	if (d->job >= 0) {
		const struct fw_job *j = &s->jobs[d->job];
		snprintf(x->job, sizeof x->job, "%s", j->name);
		if (j->expected_runtime > 0)
			x->until = d->at + j->expected_runtime;
		if (d->kind == FW_DECIDE_START)
			x->limit_s = fw_job_limit(s, j); /* Slurm's time limit at most this */
	}
	if (d->node >= 0)
		snprintf(x->node, sizeof x->node, "%s", s->nodes[d->node].name);
	if (d->alloc_count > 0) {
		if (!(pl = FW_ARENA_NEW(a, struct fw_backend_placement, d->alloc_count)))
			return FW_ENOMEM;
		fill_placements(s, p, d, pl);
	}
	x->placements = pl;
	x->nplacements = d->alloc_count;
	/* in words, by name, as the daemon writes them (connectors/serve
	 * reason.h): a drain's reason in Slurm names the node, not its index */
	if (d->kind == FW_DECIDE_EVICT && d->job >= 0)
		fw_serve_evict_text(s, &s->jobs[d->job], d->reason, d->a, d->b, x->why, sizeof x->why);
	else
		fw_serve_reason_text(s, d->reason, d->a, d->b, x->why, sizeof x->why);
	return FW_OK;
}

void fw_slurm_note_text(const struct fw_backend_note *e, char *buf, size_t n)
{
	char when[FW_TIME_TEXT_MAX];

	if (e->expected_start == FW_TIME_UNKNOWN) {
		/* never_fits: no wait ends it, so the comment says what
		 * would (its user read "start unknown (never_fits)" and
		 * waited for ever) */
		snprintf(buf, n, "fairway: waiting: %s; start unknown (%s)%s", fw_reason_name(e->reason),
			 fw_reason_name(e->unknown_why),
			 e->unknown_why == FW_REASON_NEVER_FITS
				 ? ": as asked it never fits this cluster; ask for fewer GPUs or nodes, or drop "
				   "--switches, --constraint or a GPU type"
				 : "");
		return;
	}
	fw_utc_format_minute(e->expected_start, when, sizeof when); /* rounded up to the minute */
	snprintf(buf, n, "fairway: waiting: %s; expected start %s; %d ahead",
		 fw_reason_name(e->reason), when, (int)e->ahead);
}

int fw_slurm_plan_actions(const struct fw_snapshot *s, const struct fw_plan *p,
			  struct fw_arena *a, struct fw_backend_action **acts,
			  int32_t *nacts, struct fw_slurm_note **notes,
			  int32_t *nnotes)
{
	struct fw_backend_action *x = FW_ARENA_NEW(a, struct fw_backend_action,
						   p->ndecisions ? p->ndecisions : 1);
	struct fw_slurm_note *t = FW_ARENA_NEW(a, struct fw_slurm_note,
					       p->npending ? p->npending : 1);
	int rc;

	if (!x || !t)
		return FW_ENOMEM;
	for (int32_t i = 0; i < p->ndecisions; i++)
		if ((rc = one_action(s, p, &p->decisions[i], a, &x[i])) != FW_OK)
			return rc;
	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *e = &p->pending[i];
		struct fw_backend_note bn = { .reason = e->reason,
					      .expected_start = e->expected_start,
					      .unknown_why = e->unknown_why,
					      .ahead = e->ahead };
		snprintf(t[i].job, sizeof t[i].job, "%s", s->jobs[e->job].name);
		fw_slurm_note_text(&bn, t[i].text, sizeof t[i].text);
	}
	*acts = x;
	*nacts = p->ndecisions;
	*notes = t;
	*nnotes = p->npending;
	return FW_OK;
}
