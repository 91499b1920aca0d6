/*
 * health.h — node and GPU health: a pure state machine with damping.
 *
 * At fleet scale hardware failure is the main enemy of goodput, and a
 * scheduler that sees only "Ready" keeps putting gangs on the node that
 * just threw an XID.  fairway keeps a health record per node and per GPU,
 * folds fault reports into it, and hands the scheduler one of four states
 * per node plus per-GPU masks (struct fw_node: health, bad_gpu_mask,
 * suspect_gpu_mask).  Placement (lib/place.c) then:
 *   - never places on an UNHEALTHY or DRAINING node, nor on a bad GPU (a
 *     node with one bad GPU keeps its other GPUs for jobs that fit them);
 *   - keeps gangs of at least fw_sched_config.suspect_gang_gpus GPUs
 *     (default 16) off SUSPECT nodes and nodes with a suspect GPU; small
 *     and preemptible jobs may use them, which is how probation is tested;
 *   - drains UNHEALTHY and DRAINING nodes (lib/drain.c).
 *
 * States (FW_HEALTH_MAP, append-only):
 *   HEALTHY    no recent fault.
 *   SUSPECT    on probation: a transient fault, or just repaired.  Usable
 *              by small jobs; `until` is the earliest time it may become
 *              HEALTHY again.
 *   UNHEALTHY  a fatal fault; unusable until an operator (or the agent)
 *              reports REPAIRED.
 *   DRAINING   an operator asked for it (maintenance): nothing new lands,
 *              running jobs finish; REPAIRED ends it.
 *
 * Inputs (FW_HEALTH_EVENT_MAP, append-only), each with a time `at` and an
 * argument (the XID code, an ECC count, a link number):
 *   XID           classified by fw_health_xid_class(): application XIDs
 *                 (13, 31, 43, 45: the user's program faulted) change
 *                 nothing; fatal XIDs (48 double-bit ECC, 64 row-remap
 *                 failure, 74 NVLink, 79 fallen off the bus, 94/95
 *                 contained/uncontained ECC, 119/120 GSP) are FATAL; any
 *                 other XID is TRANSIENT.
 *   ECC_UNCORRECTABLE   FATAL when arg > 0.
 *   NVLINK_DOWN   TRANSIENT (a link can retrain; a gang across it cannot
 *                 trust it meanwhile).
 *   NOT_RESPONDING  FATAL (the node missed its heartbeats).  The tick
 *                 raises it by itself when last_seen + heartbeat_s < now
 *                 for a record that has been seen at least once
 *                 (heartbeat_s defaults to 0, off: the adapter that hears
 *                 the heartbeats knows their cadence and sets it).
 *   JOB_FAILURE   a job failure attributed to this node; the
 *                 job_fail_threshold-th (default 3) within job_fail_window_s
 *                 (default 24 h) is a TRANSIENT fault.
 *   REPAIRED      repair finished.
 *   DRAIN         operator drain.
 *   OK            a clean report (a heartbeat): refreshes last_seen and
 *                 lets time act, as fw_health_tick() does.
 *
 * Transitions (each has a unit test in tests/unit/test_health.c):
 *   T1  HEALTHY   --TRANSIENT-->          SUSPECT, until = now + hold
 *   T2  HEALTHY   --FATAL-->              UNHEALTHY
 *   T3  SUSPECT   --tick, now >= until--> HEALTHY
 *   T4  SUSPECT   --TRANSIENT-->          SUSPECT, until = now + hold
 *                                         (probation restarts: damping)
 *   T5  SUSPECT   --FATAL-->              UNHEALTHY
 *   T6  UNHEALTHY --REPAIRED-->           SUSPECT, until = now + hold
 *                                         (probation after repair)
 *   T7  HEALTHY, SUSPECT, UNHEALTHY --DRAIN--> DRAINING
 *   T8  DRAINING  --REPAIRED-->           SUSPECT, until = now + hold
 *   T9  DRAINING  --FATAL-->              UNHEALTHY (jobs must go now)
 *   T10 any       --application XID-->    unchanged
 *   T11 UNHEALTHY --TRANSIENT or FATAL--> UNHEALTHY (a strike counted)
 *   T12 any but DRAINING --tick, heartbeat missed--> UNHEALTHY
 *   T13 HEALTHY   --JOB_FAILURE below the threshold--> HEALTHY (counted)
 *   T14 DRAINING  --TRANSIENT-->          DRAINING (a strike counted)
 * Damping: every TRANSIENT or FATAL fault is a strike; strikes older than
 * flap_window_s (default 7 days) are forgotten (the window restarts at
 * the first strike after it ran out).  hold = probation_s (default 6 h),
 * or flap_hold_s (default 3 days) once the record has flap_threshold
 * (default 2) strikes in its window: a flapping node stays SUSPECT for the
 * whole window instead of bouncing back to HEALTHY after every repair.
 * REPAIRED on a HEALTHY or SUSPECT record changes nothing.
 *
 * Fault history ("lemon" nodes).  Probation and damping forget a node a few
 * days after its last fault, but some hardware fails again and again: a
 * flaky node at 10x the base rate fails every couple of weeks, which no
 * 7-day window sees twice.  So the record also keeps the times of its
 * latest incidents (a fault that finds the record not UNHEALTHY; repeats
 * inside one outage are one incident), and fw_health_is_lemon() says
 * whether lemon_threshold (default 3) of them fall within lemon_window_s
 * (default 120 days) before now.  A lemon is a soft verdict, not a state:
 * the node stays schedulable, and placement (lib/place.c) keeps big gangs
 * off lemons while they can start elsewhere and puts them there last
 * when they cannot (struct fw_node.lemon).  The trade is between two
 * errors: a healthy node with three base-rate failures in the window is a
 * false lemon (at Meta's 6.5 failures per 1,000 node-days, a Poisson mean
 * of 0.78 in 120 days: 4.5% of healthy nodes), and a flaky node with fewer
 * is missed (at 10x that rate, 2% of them); the defaults hold both near
 * 5%.  A soft verdict makes the false lemons cheap, which is what lets
 * the window be long.
 *
 * Purity: time is an argument, never read; no I/O, no globals.  The same
 * events in the same order give the same record.
 */
#ifndef FAIRWAY_HEALTH_H
#define FAIRWAY_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

typedef int64_t fw_time; /* seconds (snapshot.h repeats this typedef) */

#define FW_HEALTH_MAP(X)        \
	X(HEALTHY, healthy)     \
	X(SUSPECT, suspect)     \
	X(UNHEALTHY, unhealthy) \
	X(DRAINING, draining)

enum fw_health {
#define FW__HEALTH_ENUM(U, l) FW_HEALTH_##U,
	FW_HEALTH_MAP(FW__HEALTH_ENUM)
#undef FW__HEALTH_ENUM
	FW_HEALTH_COUNT
};

#define FW_HEALTH_EVENT_MAP(X)                  \
	X(XID, xid)                             \
	X(ECC_UNCORRECTABLE, ecc_uncorrectable) \
	X(NVLINK_DOWN, nvlink_down)             \
	X(NOT_RESPONDING, not_responding)       \
	X(JOB_FAILURE, job_failure)             \
	X(REPAIRED, repaired)                   \
	X(DRAIN, drain)                         \
	X(OK, ok)

enum fw_health_event_kind {
#define FW__HEV_ENUM(U, l) FW_HEV_##U,
	FW_HEALTH_EVENT_MAP(FW__HEV_ENUM)
#undef FW__HEV_ENUM
	FW_HEV_COUNT
};

/* How a fault weighs: nothing, probation, or out of service. */
enum fw_health_class { FW_HCLASS_NONE = 0, FW_HCLASS_TRANSIENT = 1, FW_HCLASS_FATAL = 2 };

struct fw_health_event {
	enum fw_health_event_kind kind;
	fw_time at;
	int64_t arg;            /* XID code, ECC count, link number; else 0 */
};

struct fw_health_config {
	fw_time probation_s;       /* default 6 h */
	fw_time flap_window_s;     /* default 7 days */
	int32_t flap_threshold;    /* strikes in the window; default 2 */
	fw_time flap_hold_s;       /* probation of a flapping record; 3 days */
	int32_t job_fail_threshold;/* default 3 */
	fw_time job_fail_window_s; /* default 24 h */
	fw_time heartbeat_s;       /* default 0 = never time out (the adapter
				    * that hears heartbeats sets it, e.g. 300) */
	fw_time lemon_window_s;    /* default 120 days */
	int32_t lemon_threshold;   /* incidents in the window; default 3, 0 =
				    * off, at most FW_HEALTH_INCIDENTS */
};

#define FW_HEALTH_INCIDENTS 8      /* incident times a record remembers */

struct fw_health_rec {
	enum fw_health state;
	fw_time since;          /* when it entered state */
	fw_time until;          /* SUSPECT: earliest HEALTHY */
	fw_time last_seen;      /* last report of any kind; -1 = never */
	int32_t strikes;        /* faults in the current flap window */
	fw_time strike_from;    /* start of that window */
	int32_t job_failures;   /* in the current job-failure window */
	fw_time job_fail_from;
	enum fw_health_event_kind cause; /* the event that set state */
	int64_t cause_arg;
	fw_time incident[FW_HEALTH_INCIDENTS]; /* ring of the latest incidents */
	int32_t incidents;      /* incidents ever; the ring holds the last 8 */
};

void fw_health_config_default(struct fw_health_config *c);
/* A HEALTHY record, never seen. */
void fw_health_rec_init(struct fw_health_rec *r);

/* Does the record hold lemon_threshold incidents within lemon_window_s
 * before now (fault history; see above)? */
bool fw_health_is_lemon(const struct fw_health_config *c, const struct fw_health_rec *r,
			fw_time now);
/* The incidents the record remembers within lemon_window_s before now (at
 * most FW_HEALTH_INCIDENTS): a node's and its GPUs' counts add up when
 * an adapter keeps them apart. */
int32_t fw_health_incidents(const struct fw_health_config *c, const struct fw_health_rec *r, fw_time now);

const char *fw_health_name(enum fw_health h);           /* "healthy" ... */
const char *fw_health_event_name(enum fw_health_event_kind k);
/* By name; -1 when unknown. */
int fw_health_from_name(const char *name);
int fw_health_event_from_name(const char *name);

/* The weight of an XID code (see the essay). */
enum fw_health_class fw_health_xid_class(int64_t xid);

/* Fold one event into r (time passes to ev->at first, as a tick would);
 * returns the new state. */
enum fw_health fw_health_step(const struct fw_health_config *c, struct fw_health_rec *r,
			      const struct fw_health_event *ev);
/* Let time pass to now: probation ends (T3), heartbeats time out (T12). */
enum fw_health fw_health_tick(const struct fw_health_config *c, struct fw_health_rec *r,
			      fw_time now);

/* Why a record that job failures put on probation is SUSPECT, for
 * people: "fairway: 3 job failures within 24 h (probation ends in 5 h
 * 59 min)", the time left counted from now (never negative), so the words
 * stay true when they are rendered again later.  Adapters that attribute
 * job failures (Slurm, local) show it as the node's reason. */
void fw_health_job_fail_text(const struct fw_health_config *c, const struct fw_health_rec *r, fw_time now,
			     char *buf, size_t n);

/*
 * A node as placement sees it, from its own record and its GPUs' records
 * (gpu[0..ngpus-1], may be NULL when ngpus is 0): the node's state, the
 * GPUs placement must not use (UNHEALTHY or DRAINING GPUs) and the
 * suspect ones.  A node whose every GPU is bad is UNHEALTHY; a HEALTHY
 * node with a suspect GPU is SUSPECT (big gangs avoid it); a node with
 * some bad GPUs keeps its own state and its other GPUs.
 */
void fw_health_node_view(const struct fw_health_rec *node, const struct fw_health_rec *gpu,
			 int ngpus, enum fw_health *state, uint32_t *bad_mask,
			 uint32_t *suspect_mask);

#endif
