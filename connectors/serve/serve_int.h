/*
 * serve_int.h — the daemon's state, shared by daemon.c, api.c, http.c and
 * metrics.c.  Everything here is guarded by `mu` unless marked otherwise:
 * the decision log's reader (read_mu), GET /v1/health's answer (pub_mu,
 * struct fw_serve_health) and the API's request counters (atomic).
 */
#ifndef FAIRWAY_SERVE_INT_H
#define FAIRWAY_SERVE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "codec.h"
#include "fairway/fairway.h"
#include "serve.h"
#include "store.h"

#define FW_LAT_BUCKETS(X) X(0.001) X(0.005) X(0.01) X(0.025) X(0.05) X(0.1) X(0.25) X(0.5) X(1) X(2.5) X(5)
#define FW__COUNT_ONE(x) +1
#define FW_NLAT (0 FW_LAT_BUCKETS(FW__COUNT_ONE))

/* Time to start, seconds: from a job's submission, or from its last
 * requeue when the daemon evicted it since (Kueue's admission wait
 * counts the same way). */
#define FW_WAIT_BUCKETS(X) \
	X(10) X(60) X(300) X(900) X(1800) X(3600) X(7200) X(14400) X(43200) X(86400) X(259200) X(604800)
#define FW_NWAIT (0 FW_WAIT_BUCKETS(FW__COUNT_ONE))
/* Job sizes of fairway_wait_seconds{gpus}: the simulator's classes
 * (docs/metrics.md: 9+ GPUs span nodes, 33+ are the large gangs). */
#define FW_WAIT_SIZES(X) X(SMALL, "1-8", 8) X(MULTI, "9-32", 32) X(LARGE, "33+", 1e18)
enum {
#define FW__WAIT_SIZE(U, label, upto) FW_WAIT_##U,
	FW_WAIT_SIZES(FW__WAIT_SIZE)
#undef FW__WAIT_SIZE
	FW_NWAIT_SIZES
};

/* Starts by time to start: per bucket (not cumulative; the last is
 * +Inf), and the sum of the waits. */
struct fw_serve_waits {
	uint64_t n[FW_NWAIT + 1];
	double sum;
};

/* Per queue (the job's own), since the daemon's first cycle: evictions
 * and the work they lost (fairway_queue_evictions_total,
 * fairway_queue_lost_gpu_hours_total: goodput lost to preemption), the
 * GPU-seconds its running jobs held (fairway_queue_gpu_hours_total) and
 * its starts' times to start (fairway_queue_wait_seconds). */
struct fw_serve_qstat {
	char queue[FW_NAME_MAX];
	uint64_t evictions;
	double lost_gpu_s;
	double gpu_s;
	struct fw_serve_waits wait;
};

/* A job the daemon evicted and requeued, and when: its next start's wait
 * counts from then.  Kept in memory; a restarted daemon finds them again
 * in its decision log (fw_store_requeues: each job's last eviction that
 * no start followed), unless the log was trimmed past that eviction. */
struct fw_serve_requeued {
	char job[FW_NAME_MAX];
	fw_time at;
};

struct fw_serve_metrics {
	uint64_t lat_count[FW_NLAT + 1];   /* cumulative at render; last = +Inf */
	double lat_sum;
	double lat_last, lat_max;          /* the last applied cycle's, the longest */
	fw_time started_at;                /* the daemon's start (fw_serve_open) */
	double locked_sum, busy_sum;       /* cycle time holding the lock, and all */
	uint64_t cycles, stale, failed;
	uint64_t starts, evictions, reserves, drains, releases;
	uint64_t timed_out;          /* jobs ended by a run-time limit (EVICT,
				      * TIME_LIMIT): not in evictions */
	uint64_t actions_failed;     /* actions the backend refused */
	uint64_t log_trimmed[2];     /* rows --log-keep deleted: decisions,
				      * usage_history */
	uint64_t explains;                 /* explain() calls */
	double explain_sum;                /* seconds in them (under the lock) */
	_Atomic uint64_t http_requests, http_errors; /* atomic: GET /v1/health
						      * counts without mu */
	struct fw_serve_qstat *qstat;      /* by queue name, ascending */
	int32_t nqstat, cap_qstat;
	struct fw_serve_waits size_wait[FW_NWAIT_SIZES]; /* by job size */
	fw_time gpu_counted_at;            /* running jobs' GPU-seconds are
					    * counted up to here (0: no cycle yet) */
	struct fw_serve_requeued *requeued; /* by job name, ascending */
	int32_t nrequeued, cap_requeued;
	int32_t requeued_kept;             /* entries after the last prune */
};

/* What GET /v1/health answers, a copy of the model's fields made under
 * mu whenever they change (fw_serve_publish_health: the cycle thread,
 * after each attempt, and fw_serve_open) and read under pub_mu alone, so
 * a health probe never waits for a cycle's hold of the state lock (nor
 * for a request's). */
struct fw_serve_health {
	bool ok;                /* cycle_err is "" */
	bool view_ready;        /* a view is published */
	bool budget_safe;       /* the view's budgetSafe, else the config's */
	uint64_t cycles;        /* m.cycles */
	int schema_version;     /* the store's, read once */
	char err[512];          /* cycle_err */
	/* The backend's ended_keep (backend.h; cycle.c check_keep sets both,
	 * publish_health leaves them): how long its cluster lists an ended
	 * job, seconds (Slurm's MinJobAge; -1 unknown or no such op), and the
	 * warning it gave against --period ("" none). */
	int64_t keep_s;
	char keep_warn[768];
};

struct fw_serve {
	pthread_mutex_t mu;
	pthread_cond_t wake;
	bool stop, want_cycle;
	uint64_t cycle_requests, requests_done; /* POST /v1/cycle waits on these */

	const struct fw_serve_opts *opts;
	int lock_fd;                        /* STATE_DIR/lock, flock'ed for the
					     * daemon's life (never changes) */
	const struct fw_policy_ops *policy;
	struct fw_snapshot *fleet;          /* the config (never changes) */
	bool restored;                      /* the model came from the store, not
					     * the config (not the first start) */
	struct fw_health_config hcfg;       /* the lemon verdict's window and
					     * threshold (history.h): the core's
					     * defaults (never changes) */
	struct fw_serve_store *store;
	/* The decision log's reader (store.h fw_store_open_reader), used
	 * under read_mu and not mu: a long GET /v1/decisions holds up
	 * neither the cycle nor the rest of the API. */
	pthread_mutex_t read_mu;
	struct fw_serve_store *reader;
	const struct fw_backend_ops *bops;
	struct fw_backend *be;
	char token[FW_TOKEN_MAX];           /* every mutating endpoint (codec.h: a token file's token) */
	char agent_token[FW_TOKEN_MAX];     /* POST /v1/nodes/{name}/health only */

	/* the model */
	struct fw_queue_spec *queues;
	int32_t nqueues, capq;
	struct fw_reservation *rsv;
	int32_t nrsv, caprsv;
	struct fw_backend_rsv *brsv;        /* the backend's own reservations
					     * as of the last cycle's read
					     * (backend.h reservations; read-only
					     * in the API), FW_BACKEND_RSV_MAX
					     * room, NULL until the first */
	int32_t nbrsv;
	int32_t brsv_more;                  /* how many more the backend has */
	struct fw_health_report *health;
	int32_t nhealth, caph;
	struct fw_user_use *users;          /* users' decayed usage per queue,
					     * by (queue, user) */
	int32_t nusers, capu;
	uint64_t gen;                       /* bumped by every model change */
	int64_t next_job, next_rsv;
	int64_t cycle_base;                 /* the decision log's last cycle at
					     * start: cycles number on from it */
	fw_time usage_saved_at, history_at;
	bool windows_failing;               /* the backend's windows() refused */
	bool release_failing;               /* the backend's release() refused */
	bool apply_failing;                 /* the last apply() refused actions */
	bool backend_stale;                 /* a rollback's reload() failed: the
					     * backend's memory may not be the
					     * store's (fw_serve_backend_ready) */
	char cycle_err[512];                /* why the last cycle failed; "" when
					     * it ran (GET /v1/health: ok false) */

	/* the last published view (json built by the cycle thread), and its
	 * nodes by name (the same objects; GET /v1/nodes/{name}), published
	 * together; view_nodes NULL where a test publishes a view alone */
	json_t *view;
	json_t *view_nodes;
	struct fw_serve_metrics m;
	/* GET /v1/health's answer, under pub_mu (taken alone, or inside mu:
	 * never the other way round) */
	pthread_mutex_t pub_mu;
	struct fw_serve_health pub;

	/* Tests only (tests/fuzz/fuzz_serve.c): called by each cycle
	 * attempt between its plan and its apply, with no lock held, to
	 * change the world under a plan as the API's threads may (cycle.c
	 * run_cycle).  NULL in the daemon. */
	void (*between)(void *ctx);
	void *between_ctx;
	/* Tests only (tests/unit/test_serve_api.c): called by each cycle
	 * attempt right after the first half of its take let the state lock
	 * go, before the second builds the world from what the first took
	 * (cycle.c pass_take), to change the world meanwhile as the API's
	 * threads may.  NULL in the daemon. */
	void (*captured)(void *ctx);
	void *captured_ctx;
	/* Tests only (tests/unit/test_serve_api.c): called by each cycle
	 * attempt with the state lock held, before its apply (cycle.c
	 * pass_apply), to show what the API answers meanwhile.  NULL in the
	 * daemon. */
	void (*holding)(void *ctx);
	void *holding_ctx;
};

/* daemon.c: the daemon without its threads.  fw_serve_open does all that
 * fw_serve_run does before it listens: the policy, the fleet, the state
 * directory's lock, the store, the tokens, the model restored (or seeded
 * from the config on a first start) and the backend opened.  FW_OK, or an
 * error with err filled; either way fw_serve_close(d) frees what it made.
 * Tests and the fuzz target (tests/fuzz/fuzz_serve.c) drive it through
 * fw_api_handle and fw_serve_cycle_once. */
int fw_serve_open(struct fw_serve *d, const struct fw_serve_opts *o, char *err, size_t errn);
void fw_serve_close(struct fw_serve *d);
/* On a restart (d->restored), where the config's queues and jobs differ
 * from the store's, which wins (the config seeds only the first start):
 * queues only one of them has, queues whose settings differ (the API's
 * member names), and, on the local backend, config jobs the store has
 * never held.  The differences as one line into buf ("" when none; cut
 * at n bytes, "and N more"); returns how many. */
int fw_serve_config_drift(struct fw_serve *d, char *buf, size_t n);
/* cycle.c: one cycle as the cycle thread runs it (a stale plan retried at
 * once, a few times), on the calling thread; the caller holds no lock.
 * FW_OK, or the last attempt's error (d->cycle_err says why). */
int fw_serve_cycle_once(struct fw_serve *d, struct fw_arena *ar);
/* cycle.c: job was evicted and requeued at `at` (its next start's wait
 * counts from then); the cycle's, and the restore's at start-up. */
void fw_serve_note_requeue(struct fw_serve_metrics *m, const char *job, fw_time at);
/* cycle.c: a dry run of submitting bj (POST /v1/jobs?dryRun=true, as
 * sbatch --test-only): the world taken as a cycle takes it, bj added by
 * the backend's probe op (which the caller checked is there) as it
 * would show once submitted, and the whole cycle planned with the state
 * lock let go; nothing applied, logged or kept.  *out: the job as the
 * view would show it after that plan (running: it would start now, on
 * those nodes; pending: why, and when it is expected to start).  Called
 * and returns with d->mu held (the model may have moved meanwhile).
 * FW_OK, or an error with *dg filled (FW_EEXIST: the name is taken). */
struct fw_backend_job;
int fw_serve_estimate(struct fw_serve *d, const struct fw_backend_job *bj, json_t **out, struct fw_diag *dg);

/* daemon.c: model helpers for the API (caller holds mu) */
struct fw_snapshot *fw_serve_skeleton(struct fw_serve *d, const struct fw_queue_spec *qs, int32_t nq,
				      fw_time now);
int fw_serve_queue_order(struct fw_queue_spec *q, int32_t n);
/* Each queue's decayed usage aged to s->now, plus the GPU-seconds its
 * running jobs used since its usage_at (from their start when later) and
 * those of its runs that ended since (runs: backend.h fw_backend_run, by
 * queue name; to their end), each second decayed from its own time, so
 * that one history gives one usage whatever the cycle period; copied
 * into the snapshot's queues (qs in skeleton order): one decay per queue
 * and pass, however many jobs it runs.  FW_OK or FW_ENOMEM. */
struct fw_backend_run;
int fw_serve_accrue_usage(struct fw_queue_spec *qs, int32_t nq, struct fw_snapshot *s,
			  const struct fw_backend_run *runs, int32_t nruns);
/* The backend's usage (its usage op wrote it into s's queues and
 * user_usage) taken as the daemon's: each queue's usage and the users'
 * table (replaced), decayed to s->now; s's queues too.  FW_OK/FW_ENOMEM. */
int fw_serve_adopt_usage(struct fw_user_use **u, int32_t *n, int32_t *cap, struct fw_queue_spec *qs, int32_t nq,
			 struct fw_snapshot *s);
/* The same for each user of a queue (*u, *n, *cap: the daemon's table, by
 * queue then user; an entry is made at a user's first running job or
 * run to count in a queue, from the queue's last pass, qs's usage_at
 * before fw_serve_accrue_usage moves it), then the users' entries of
 * queues that still exist appended to s->user_usage.  FW_OK or
 * FW_ENOMEM. */
int fw_serve_accrue_users(struct fw_user_use **u, int32_t *n, int32_t *cap, const struct fw_queue_spec *qs,
			  int32_t nq, struct fw_snapshot *s, const struct fw_backend_run *runs, int32_t nruns);
int fw_serve_queue_index(const struct fw_serve *d, const char *name);
int fw_serve_rsv_index(const struct fw_serve *d, const char *id);
int fw_serve_health_index(const struct fw_serve *d, const char *node);
int fw_serve_node_index(const struct fw_serve *d, const char *node);
int fw_serve_save_queue(struct fw_serve *d, const struct fw_queue_spec *q);
int fw_serve_save_rsv(struct fw_serve *d, const struct fw_reservation *r);
int fw_serve_save_health(struct fw_serve *d, const struct fw_health_report *h);
int fw_serve_save_user(struct fw_serve *d, const struct fw_user_use *u);
/* Its stored document removed (absent: FW_OK). */
int fw_serve_forget_user(struct fw_serve *d, const struct fw_user_use *u);
/* Every queue's and user's usage into the store now, in one transaction
 * (a clean stop: the periodic save is every 10 s), the local backend's
 * first accrued to now (a read: the runs it ended since the last cycle
 * live in memory only, cycle.c accrue_at_stop); caller holds mu (the
 * API's threads answer until the HTTP server stops). */
int fw_serve_save_usage_now(struct fw_serve *d);
void fw_serve_request_cycle(struct fw_serve *d);
/* Roll back the open store transaction and bring the backend back to the
 * committed world (its reload(), backend.h "Rollback"). */
void fw_serve_rollback(struct fw_serve *d);
/* FW_OK when the backend is in step with the store; after a failed
 * reload, tries it again: FW_OK, or its error with err filled. */
int fw_serve_backend_ready(struct fw_serve *d, char *err, size_t errn);
/* The daemon's clock, Unix seconds: the wall clock, or the one a test
 * sets (fw_serve_set_clock before any thread starts; NULL: the wall
 * clock again), so that a test can make a second pass inside a request. */
fw_time fw_serve_now(void);
void fw_serve_set_clock(fw_time (*clock)(void));
/* Grow an array by one; returns the new slot or NULL. */
void *fw_serve_grow(void *arrp, int32_t *n, int32_t *cap, size_t elem);

/* api.c */
struct fw_api_req {
	const char *method, *path, *query_state, *query_limit, *auth;
	const char *body;
	size_t body_len;
	/* The other query arguments (a listing's filters): key, value, key,
	 * value, ..., NULL; a key given without "=" has the value "".
	 * NULL: none. */
	const char *const *args;
	const char *content_type;            /* the Content-Type header, NULL
					      * when none */
};
struct fw_api_resp {
	unsigned status;
	char *body;                          /* malloc'd */
	const char *content_type;
	bool challenge;                      /* 401: WWW-Authenticate: Bearer */
	char allow[64];                      /* 405: the path's methods, for
					      * Allow ("" otherwise) */
};
void fw_api_handle(struct fw_serve *d, const struct fw_api_req *rq, struct fw_api_resp *rs);
/* api.c: d->pub made from the model as it is now (cycle_err, m.cycles,
 * the view); caller holds mu.  Called after every cycle attempt, by
 * fw_serve_open, and by a test that publishes a view of its own. */
void fw_serve_publish_health(struct fw_serve *d);

/* view.c: the view of one cycle (s, its plan p, the actions applied with
 * their status, the health reports), published as d->view; NULL when out
 * of memory.  Built without the lock (cycle.c run_cycle). */
struct fw_backend_action;
json_t *fw_serve_build_view(const struct fw_snapshot *s, const struct fw_plan *p,
			    const struct fw_backend_action *acts, const int *status, int32_t nacts,
			    const struct fw_health_report *h, int32_t nh, const struct fw_health_config *hc,
			    int64_t cycle, uint64_t gen, double seconds, int32_t skipped);

/* view.c: the n jobs the backend keeps out of the snapshot (backend.h
 * aside) added to view v's jobs, after the plan's, each pending with the
 * backend's reason, "planned" false and no expected start; a name the
 * plan has is left to the plan's job. */
struct fw_backend_aside;
void fw_serve_view_aside(json_t *v, const struct fw_backend_aside *a, int32_t n);

/* view.c: the n ended jobs the backend still lists (backend.h ended,
 * their nodes in names) as view v's "ended" (by name) and "endedOrder",
 * apart from its jobs: a job ended holds nothing, and nothing that reads
 * the plan's jobs (the fair share's counts, /metrics, GET /v1/plan) sees
 * one; GET /v1/jobs/{name} and the list (given a state) answer from them
 * as the local backend's ended jobs, nodes and all.  A name the plan has
 * is left to the plan's job. */
struct fw_backend_ended;
void fw_serve_view_ended(json_t *v, const struct fw_backend_ended *e, int32_t n, const char (*names)[FW_NAME_MAX]);

/* view.c: one job of s as fw_serve_build_view would show it after plan
 * p (the actions with their status); NULL when s has no job of that name
 * or out of memory.  The dry run's answer (cycle.c fw_serve_estimate). */
json_t *fw_serve_job_view(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_backend_action *acts,
			  const int *status, int32_t nacts, const char *name);

/* A job the last plan does not describe, as the API shows it: an ended
 * job the cluster still lists (backend.h fw_backend_ended: view.c
 * fw_serve_view_ended) and a local job that ended, or is newer than the
 * plan (api.c local_job_json).  One record for both and one builder
 * (fw_serve_job_record_json), so that the two shapes cannot drift: each
 * member has one name, one type and one place, whichever backend's job
 * it is. */
struct fw_serve_job_record {
	const char *name, *queue, *user, *state;
	int64_t gpus;           /* the GPUs it asked; -1 unknown: no "gpus" */
	fw_time submitted;
	json_t *more;           /* members after "submitTime" (the local
				 * backend's job as submitted: runtime,
				 * priority, tasks, ..., timeLimit), taken
				 * by the builder; NULL: none */
	fw_time started;        /* 0: no "startTime" (it never ran, or it
				 * waits again) */
	json_t *nodes;          /* where it runs or ran, an array of names,
				 * taken by the builder; NULL: no "nodes" */
	fw_time expected_end;   /* a running job's; 0: none */
	bool ended;             /* "endTime": end */
	fw_time end;
	int32_t exit_code;      /* -1: no "exitCode" (beside more's) */
	const char *reason;     /* NULL or "": none */
	const char *text;       /* "reasonText"; NULL or "": none */
	const char *array_of;   /* "arrayOf"; NULL or "": none */
};
/* view.c: r as JSON, members in this order: name, queue, user, state,
 * gpus, submitTime, more's, startTime, nodes, expectedEnd, endTime,
 * exitCode, reason, reasonText, arrayOf; NULL without memory (r's more
 * and nodes let go either way). */
json_t *fw_serve_job_record_json(struct fw_serve_job_record *r);

/* view.c: a job's "gpuAmount" into o, when one of its task groups takes
 * a fraction of a GPU (gpuFraction): its GPUs with each such share counted
 * as that fraction (0.5), as the plan counts them, where "gpus" counts
 * the GPUs it touches (1).  Nothing for a job of whole GPUs. */
void fw_serve_gpu_amount(json_t *o, const struct fw_job *j);

/* metrics.c: the Prometheus text of /metrics (malloc'd) */
char *fw_metrics_render(struct fw_serve *d);
/* metrics.c: GET /v1/stats, the same counters as one JSON object for
 * `fairway stats` (sdiag's questions); called with d->mu held. */
json_t *fw_stats_json(struct fw_serve *d);

/* http.c */
struct fw_http;
int fw_http_start(struct fw_serve *d, const char *host, int port, struct fw_http **out, int *bound_port,
		  char *err, size_t errn);
void fw_http_stop(struct fw_http *h);

#endif
