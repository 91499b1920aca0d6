/*
 * cycle_int.h — state shared by the cycle's phases (cycle.c, allocate.c,
 * emit.c).  Private to lib/.
 */
#ifndef FAIRWAY_CYCLE_INT_H
#define FAIRWAY_CYCLE_INT_H

#include "cstate.h"
#include "fairway/fairshare.h"
#include "fairway/plan.h"

/* A job ending: reservations release its tasks at `end` (reserve.c). */
struct ev {
	fw_time end;
	int32_t job;
	const struct fw_task_alloc *tasks;
	int32_t ntasks;
};

/* What the phases need of a job, 24 bytes instead of the record's 576. */
struct fw__jinfo {
	int64_t submit;
	int32_t prio;
	int32_t queue;
	bool pending;
};

struct cyc {
	const struct fw_snapshot *s;
	const struct fw_policy_ops *pol;
	struct fw_arena *a;
	struct fw__cstate c;
	struct fw__jinfo *ji;       /* per job, from the one sweep */
	/* account */
	struct fw_res *demand;      /* per queue: own jobs' requests */
	struct fw_res *alloc;       /* per queue: subtree allocation, live */
	struct fw_share *share;     /* per queue */
	/* order */
	int32_t *jobs;              /* pending jobs grouped by leaf */
	int32_t *qfirst;            /* bucket q: jobs[qfirst[q] .. qfirst[q+1]) */
	int32_t *qnext;             /* next untried job of bucket q */
	/* allocate */
	struct fw_pending *reason;  /* per job; reason NONE = not decided */
	int32_t *started;           /* per job: decision index + 1, 0 = no */
	struct fw_decision *dec;
	int32_t ndec;
	struct fw_task_alloc **dec_tasks; /* per decision */
	int64_t considered;
	/* order: per-job score from the policy (NULL when it has none) */
	double *score;
	/* reservations (reserve.c) */
	int32_t nresv;
	int32_t resv_attempts;
	int32_t first_resv_job;
	struct ev *ev_run;          /* running jobs by end time, lazily */
	int32_t nev_run;
	struct ev *ev_st, *ev_tmp;  /* this cycle's starts by end time */
	int32_t nev_st, ev_seen;    /* ... and decisions folded in so far */
	struct fw__node *cl_nodes;  /* the reservation clone's buffers, */
	struct fw__domain *cl_dom;  /* allocated once per cycle */
	struct fw__level_index *cl_lvl;
	int64_t *model_cap;         /* usable whole GPUs per model (reserve.c) */
	fw_time first_resv_at;
};

/* When job j would end if started at t (FW__NEVER if its runtime is
 * unknown). */
static inline fw_time fw__job_end(const struct fw_job *j, fw_time t)
{
	return j->expected_runtime > 0 ? t + j->expected_runtime : FW__NEVER;
}
/* Try to reserve capacity for job jx (reserve.c); FW_OK and a RESERVE
 * decision when it fits at some future time, FW_EDECLINED otherwise. */
int fw__reserve(struct cyc *y, int32_t jx);

int fw__phase_allocate(struct cyc *y);
int fw__phase_emit(struct cyc *y, struct fw_plan **out);

#endif
