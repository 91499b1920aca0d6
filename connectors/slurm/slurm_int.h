/*
 * slurm_int.h — the adapter's private state and helpers.  The only header
 * of fairway that includes <slurm/slurm.h>; only the .c files of connectors/slurm
 * include it.
 *
 * The handle caches the last message of every class slurmctld sends
 * (nodes, partitions, jobs, reservations) together with the update time
 * it carried, so the next load can say "only if changed"; a fetch
 * (fw_slurm_fetch, from the daemon's cycle thread without its state
 * lock) asks the same loads into a buffer of its own, which the next
 * read adopts.  Topology is
 * flattened at open into one record per node: its switch chain, leaf
 * first.  A job-id hash over the cached job message serves apply's
 * lookups.
 */
#ifndef FAIRWAY_SLURM_INT_H
#define FAIRWAY_SLURM_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "fwslurm.h"

/* libslurm is called from two threads at once under `fairway serve`
 * (serial.c says which and why): each call on the paths that may run
 * together, and each hostlist call, goes through one process-wide mutex
 * held for that call alone.  FW__SL(call) for a call that returns an
 * int, FW__SLP for a pointer, FW__SLV for one whose value is not used:
 * the lock is taken before the call is evaluated (the comma operator's
 * order) and let go as its value is handed back. */
void fw__slurm_lib_lock(void);
void fw__slurm_lib_unlock(void);
int fw__slurm_lib_int(int rc);
void *fw__slurm_lib_ptr(void *p);
#define FW__SL(call) (fw__slurm_lib_lock(), fw__slurm_lib_int(call))
#define FW__SLP(call) (fw__slurm_lib_lock(), fw__slurm_lib_ptr(call))
#define FW__SLV(call) (fw__slurm_lib_lock(), (void)(call), fw__slurm_lib_unlock())

/* exported by libslurm.so but not declared in slurm.h: strings libslurm
 * xmalloc'd must be freed with it (plain free() corrupts the heap) */
extern void slurm_xfree(void **item);

#define FW_SLURM_RESV_PREFIX "fairway-"
#define FW_SLURM_MAINT_PREFIX "fairway-maint-"  /* + the window's id */
#define FW_SLURM_MAX_SWITCH_DEPTH 4
#define FW_SLURM_MAX_JOB_NODES 1024   /* larger jobs are not scheduled */

struct fw_slurm_topo {            /* one node's switch chain */
	char node[FW_NAME_MAX];
	int depth;
	char sw[FW_SLURM_MAX_SWITCH_DEPTH][FW_NAME_MAX]; /* leaf first */
};

/* A partial-node reservation of a job, as the last apply kept it. */
struct fw__kept {
	char job[FW_NAME_MAX];
	fw_time at;
	uint32_t hash;          /* of its placements */
	bool seen;              /* named again by this apply */
};

/* A managed job that fairway leaves held, and why (its comment says so:
 * fw__orphan_text). */
enum fw__orphan_why {
	FW__ORPHAN_NO_QUEUE,    /* its account names no leaf queue */
	FW__ORPHAN_GPUS,        /* n GPUs per node: more than a node holds */
	FW__ORPHAN_NODES,       /* n nodes: more tasks than a job may have */
	FW__ORPHAN_GPU_FORM,    /* GPUs asked in a form fairway does not read
				 * (--gpus-per-socket) */
	FW__ORPHAN_CONSTRAINT,  /* --constraint in a form fairway does not
				 * read (filter.c) */
	FW__ORPHAN_NO_NODE,     /* no node of its partitions is left by
				 * --exclude and --constraint */
	FW__ORPHAN_EXCLUSIVE,   /* --exclusive on nodes of several sizes */
	FW__ORPHAN_NODELIST,    /* -w names a node it may not use (its
				 * partitions, --exclude, --constraint) or
				 * that fairway does not schedule */
	FW__ORPHAN_NODELIST_COUNT, /* n nodes, not as many as -w names */
	FW__ORPHAN_ARRAY_LIST,  /* a job array's pending task list in a form
				 * fairway does not read */
	FW__ORPHAN_HET_SET,     /* a heterogeneous job whose components
				 * fairway cannot read (n: components listed;
				 * more than FW__HET_MAX, or 0: unread) */
	FW__ORPHAN_HET_GROUPS,  /* n components waiting: more than a job's
				 * FW_MAX_GROUPS task groups */
	FW__ORPHAN_HET_MIXED,   /* components that ask different accounts,
				 * partitions, --exclude, --constraint,
				 * --switches or a -w */
	FW__ORPHAN_HET_OTHER,   /* another component (job id n) is held for
				 * a reason of its own */
	FW__ORPHAN_HET_PARTLY,  /* another component (job id n) was released
				 * alone (by hand): planned on their own, the
				 * rest could land on its node, where Slurm
				 * would never run them */
	/* not eligible yet, not skipped: scheduled once Slurm says so */
	FW__ORPHAN_DEPENDENCY,  /* released, its --dependency not met yet */
	FW__ORPHAN_BEGIN,       /* --begin in the future */
	FW__ORPHAN_THROTTLE,    /* a job array's pending tasks, none of
				 * which its %N throttle lets run now (n:
				 * N) */
	FW__ORPHAN_HET_RELEASED, /* a heterogeneous job's component released
				 * onto nodes others hold now: Slurm runs
				 * the job there once they end (not booked:
				 * fairway cannot start a part of it anew) */
	FW__ORPHAN_RESERVED,    /* every node it may use is in an admin's
				 * reservation that begins before its time
				 * limit would end (filter.c phase 5b;
				 * resv: the first that took one of its
				 * nodes, m: how many more did) */
	FW__ORPHAN_TO_RESV,     /* held, asking for a reservation: Slurm
				 * places it there (fw_slurm_apply releases
				 * it) */
	FW__ORPHAN_IN_RESV,     /* ... released so, waiting for Slurm */
	FW__ORPHAN_SLURM_HOLD,  /* released, and Slurm holds it back for a
				 * reason of its own (n: state_reason; an
				 * association's or QOS's limit, licenses, its
				 * partition down): not booked, Slurm starts it
				 * once that allows (fw__slurm_held_back) */
	FW__ORPHAN_PART_DOWN,   /* held, and none of its managed partitions
				 * starts jobs now (n: the first one's
				 * fw__part_state: DOWN, INACTIVE or gone
				 * from Slurm since fairway started; m: how
				 * many managed ones it names; parts: them,
				 * fw__slurm_parts_held): Slurm would run it
				 * nowhere, so fairway plans it once one is
				 * UP again */
};

#define FW__PARTS_TEXT 96 /* a held job's managed partitions in words (struct fw__orphan) */
struct fw__orphan {
	uint32_t job;
	enum fw__orphan_why why;
	int32_t n, m;
	char resv[FW_NAME_MAX];  /* FW__ORPHAN_RESERVED: a reservation's name */
	char parts[FW__PARTS_TEXT]; /* FW__ORPHAN_PART_DOWN: its managed
				 * partitions, as its comment names them */
};

/* A managed partition as Slurm has it now (read.c fw__slurm_part_state):
 * starting jobs (UP, or DRAIN: no new submissions, but its pending jobs
 * start), DOWN (jobs are taken, none starts), INACTIVE (neither), or
 * gone (deleted since fairway checked it at open).  Only the first
 * starts jobs, so only its nodes are a held job's (filter.c). */
#define FW__PART_STATE_MAP(X)                                                  \
	X(UP, "UP")                                                            \
	X(DOWN, "DOWN")                                                        \
	X(INACTIVE, "INACTIVE")                                                \
	X(GONE, "gone")
enum fw__part_state {
#define FW__PART_ENUM(name, word) FW__PART_##name,
	FW__PART_STATE_MAP(FW__PART_ENUM)
#undef FW__PART_ENUM
};
#define FW__PARTS_MAX 128 /* managed partitions at most: "a,b,..." in 256 bytes */

/* What fw_slurm_warn said last (warn.c), so each warning is said once
 * per change: the first unheld and stray jobs (0: none), and each managed
 * partition's state, by its place in the handle's parts (FW__PART_UP
 * before the first read: a partition DOWN at start is said too). */
struct fw__said {
	uint32_t hook[2];
	uint8_t part[FW__PARTS_MAX];
};

/* A uid and its user name (read.c), remembered across reads. */
struct fw__uname {
	uint32_t uid;
	bool used, named;       /* named: a name, not "uid<N>" */
	char name[FW_NAME_MAX];
};

/* A QOS and its Priority (qos.c). */
struct fw__qos {
	char name[FW_NAME_MAX];
	uint32_t priority;
};
#define FW_SLURM_QOS_PERIOD_S 30 /* the QOS table is read this often */

/* One read of Slurm's GPU-hour budgets (usage.c), made without the
 * daemon's lock, for fw__slurm_budget_take under it. */
struct fw__budget_ask {
	struct fw_slurm_budget *rows;   /* malloc'd */
	int32_t n;
	bool safe;
	int rc;                         /* FW_OK, FW_ENOENT (why), else not now */
	char why[512];
	bool asked;
};

/* slurmctld's answers to one round of loads (read.c): for each class a
 * new message, or NULL when slurmctld said "no change" since the update
 * time of the handle's message as of epoch.  Made by fw_slurm_fetch
 * without the daemon's lock (or by a read itself), adopted by the next
 * read when the handle's messages are still those of epoch. */
struct fw__fetched {
	node_info_msg_t *nodes;
	partition_info_msg_t *partitions;
	job_info_msg_t *jobs;
	reserve_info_msg_t *resv;
	uint64_t epoch;                 /* the handle's epoch it asked from */
	uint32_t loads, unchanged;      /* for fw_slurm_stats */
	double ms;                      /* the RPCs' time */
	bool ready;                     /* a whole round, not yet adopted */
	/* The QOS table and the budgets, when they were due at the fetch
	 * (qos_asked: qos and nqos hold a new table); adopted by the next
	 * load whatever its epoch (they depend on no message). */
	struct fw__qos *qos;
	int32_t nqos;
	bool qos_asked;
	struct fw__budget_ask budget;
};

/* The nodes of one ended job (none: it never ran), as aside.c's ended()
 * expanded its NodeList once, and its record in words: kept while Slurm
 * lists the job (MinJobAge after its end), so a hostlist is expanded and
 * a record formatted once, not twice a daemon cycle (thousands of ended
 * jobs on a busy cluster: docs/performance.md "Ended jobs on Slurm").
 * Used for a record only while its job id, end time and NodeList text
 * are all the entry's. */
struct fw__ran {
	uint32_t job;
	int64_t end;                    /* the record's end_time */
	char *list;                     /* its NodeList (malloc'd) */
	char (*names)[FW_NAME_MAX];     /* its nodes, n (malloc'd; NULL: none) */
	int32_t n;
	uint64_t seen;                  /* the ended() call that last used it */
	/* Its record in words as the first list call that reached it made it
	 * (aside.c ended_fill; node_first and nnodes aside), malloc'd; NULL
	 * until then.  Used while the record's state, exit code, start,
	 * submission and fairway's end mark are these (aside.c rec_holds). */
	struct fw_backend_ended *rec;
	uint32_t rec_state, rec_exit;
	int64_t rec_start, rec_submit;
	bool rec_ours;
};

/* ended()'s entries (aside.c): e[0 .. n), dense; idx maps a job id to
 * its entry's index + 1 (0 = empty; open addressing, idx_cap a power of
 * two, at most half full).  Each ended() call drops the entries it did
 * not list (jobs Slurm no longer returns): no more entries than ended
 * jobs in the last read.  Touched by ended() alone (under the daemon's
 * lock), freed by fw__slurm_ended_free. */
struct fw__ran_cache {
	struct fw__ran *e;
	int32_t n, cap;
	uint32_t *idx;
	uint32_t idx_cap;
	uint64_t call;                  /* ended() calls so far */
	uint64_t expanded;              /* hostlists expanded so far (tests) */
	uint64_t filled;                /* records put in words and kept (tests) */
};

struct fw_slurm {
	struct fw_slurm_opts o;
	char conf[1024];
	char parts[256];                /* managed partitions, "a,b" */
	node_info_msg_t *nodes;
	partition_info_msg_t *partitions;
	job_info_msg_t *jobs;
	reserve_info_msg_t *resv;
	/* The four messages above change only in a read (fw__slurm_load),
	 * which bumps epoch; fw_slurm_fetch, on another thread, reads their
	 * update times and leaves its answers in fetched.  mu guards those
	 * times, epoch and fetched; nothing else of the handle is shared. */
	pthread_mutex_t mu;
	uint64_t epoch;
	struct fw__fetched fetched;
	/* A capture's copy (copy.c) builds from the four messages above
	 * without the daemon's lock, while a read under it may adopt new
	 * ones: while pins > 0 a message so replaced is not freed but kept
	 * in retired, freed when the last pin goes (fw__slurm_unpin).  mu
	 * guards both. */
	int32_t pins;
	struct fw__retired *retired;
	struct fw_slurm_topo *topo;     /* sorted by node name */
	int ntopo, topo_depth;
	uint32_t *jhash;                /* job id -> index+1 in jobs, 0 = empty */
	uint32_t jhash_cap;             /* power of two */
	uint32_t *thash;                /* (array job, task) -> index+1 in
					 * jobs, for tasks with a record of
					 * their own; 0 = empty; jhash_cap */
	uint64_t read_gen;              /* generation of the last read */
	struct fw_slurm_stats st;
	char last_err[256];             /* the last refused RPC, for logs */
	struct fw__orphan *orphans;     /* last read: held jobs fairway
					 * cannot schedule, and why */
	int32_t norphans, cap_orphans;
	struct fw__kept *kept;          /* apply.c: the partial-node
					 * reservations of the last apply (kept
					 * in fairway's plan only), so one held
					 * in place is answered "already" */
	int32_t nkept, cap_kept;
	struct fw__jobfail *jobfail;    /* jobfail.c, NULL until first used */
	struct fw__uname *unames;       /* uid -> user name, open addressing
					 * (read.c: fw__slurm_user) */
	uint32_t nunames, cap_unames;   /* cap: 0 or a power of two */
	struct fw__qos *qos;            /* qos.c: the QOS table (none without
					 * slurmdbd) */
	int32_t nqos;
	double qos_next_ms;             /* its next read (monotonic ms) */
	struct fw_slurm_budget *budgets; /* usage.c: the account associations'
					 * GrpTRESMins on gres/gpu, as of the
					 * last read that succeeded */
	int32_t nbudgets;
	bool enforce_safe;              /* AccountingStorageEnforce has safe */
	int budget_rc;                  /* the last read's outcome, once
					 * budget_read: FW_OK or FW_ENOENT
					 * (budget_why says why) */
	bool budget_read;               /* a read was made */
	char budget_why[512];           /* fw_diag_format of its reason */
	double budget_next_ms;          /* the next read (monotonic ms) */
	uint64_t budget_gen;            /* up when a read says something new */
	char budget_note[1024];         /* fw_slurm_budget_note, made at the
					 * first fw_slurm_read after a change
					 * (it names the queues whose own
					 * budget stands) */
	uint64_t note_gen;              /* the budget_gen it was made for */
	struct fw__said said;           /* warn.c: what fw_slurm_warn said */
	struct fw__ran_cache ran;       /* aside.c: ended jobs' nodes */
	/* warn.c fw_slurm_min_job_age: slurm.conf's MinJobAge as last read
	 * and that config's update time (0: never read), asked again with it
	 * so an unchanged config costs slurmctld a "no change" answer.
	 * Touched by that function alone (the daemon's cycle thread, without
	 * its lock): nothing else of the handle reads them. */
	int64_t min_job_age;
	time_t conf_at;
};

/* A message a read replaced while a copy still builds from it (read.c). */
struct fw__retired {
	node_info_msg_t *nodes;
	partition_info_msg_t *partitions;
	job_info_msg_t *jobs;
	reserve_info_msg_t *resv;
	struct fw__retired *next;
};

/* A string Slurm set: not NULL, not "", not "(null)". */
static inline bool fw__set(const char *s)
{
	return s && *s && strcmp(s, "(null)");
}

/* read.c */
int fw__slurm_load(struct fw_slurm *h, struct fw_diag *d);
/* Keep the handle's four messages alive (a read that replaces one
 * retires it instead of freeing it) until the matching unpin, which frees
 * what was retired once no pin is left.  Either thread, under h->mu. */
void fw__slurm_pin(struct fw_slurm *h);
void fw__slurm_unpin(struct fw_slurm *h);
/* A job's user name: Slurm's user_name when it sends one (22.05 does not),
 * else the uid's name on this machine (getpwuid_r, remembered), else
 * "uid<N>": the name Slurm's associations and sshare use, which users'
 * usage (usage.c) is matched by.  True when it is a name (not uid<N>). */
bool fw__slurm_user(struct fw_slurm *h, const slurm_job_info_t *j, char *out, size_t n);
/* qos.c: read the QOS table when FW_SLURM_QOS_PERIOD_S have passed since
 * the last read (a failed read keeps the table); a QOS's Priority (0 when
 * unknown or qos is NULL); a job's fairway priority from its QOS's
 * Priority and its nice (QOS first, then -nice; qos.c has the formula). */
void fw__slurm_qos_refresh(struct fw_slurm *h, double now_ms);
/* The same in halves, for a fetch without the daemon's lock:
 * fw__slurm_due claims a period (true once per period_s from now_ms
 * past *next_ms, under h->mu: a fetch and a read may ask together);
 * fw__slurm_qos_ask is the RPC alone (FW_OK: *t, *n a new table, else
 * FW_EIO or FW_ENOMEM), fw__slurm_qos_take makes its table the handle's;
 * fw__slurm_budget_ask and _take alike (take frees what it does not
 * keep: a read that failed keeps the last). */
bool fw__slurm_due(struct fw_slurm *h, double *next_ms, double now_ms, int period_s);
int fw__slurm_qos_ask(struct fw__qos **t, int32_t *n);
void fw__slurm_qos_take(struct fw_slurm *h, struct fw__qos *t, int32_t n);
void fw__slurm_budget_ask(struct fw__budget_ask *a);
void fw__slurm_budget_take(struct fw_slurm *h, struct fw__budget_ask *a);
uint32_t fw__slurm_qos_priority(const struct fw_slurm *h, const char *qos);
int32_t fw__slurm_job_priority(uint32_t qos_priority, int64_t nice);
/* usage.c: read Slurm's GPU-hour budgets and AccountingStorageEnforce
 * when FW_SLURM_BUDGET_PERIOD_S have passed since the last read (a failed
 * read keeps the last; FW_ENOENT, no slurmdbd or no gres/gpu TRES, is an
 * outcome: no budgets).  fw__slurm_budget_note: the note of the last
 * read (fw_slurm_budget_note), the queues of s telling whose own budget
 * stands (made again only when budget_gen moved). */
void fw__slurm_budget_refresh(struct fw_slurm *h, double now_ms);
void fw__slurm_budget_note(struct fw_slurm *h, const struct fw_snapshot *s);
/* Is any partition of the comma list (a pending job may name several)
 * managed?  Is name one of the comma list's? */
bool fw__slurm_managed(const struct fw_slurm *h, const char *partitions);
bool fw__slurm_listed(const char *list, const char *name);
/* Partition states (FW__PART_STATE_MAP): of a record (UP when it starts
 * jobs: PARTITION_SCHED); of the partition named by the len bytes at
 * name, in the last read (FW__PART_GONE when it has none); its word
 * ("DOWN").  fw__slurm_parts_state: the state of the first of the job's
 * managed partitions (the comma list) that starts jobs, FW__PART_UP,
 * else that of the first of them, and FW__PART_GONE when it names none. */
enum fw__part_state fw__part_state_of(const partition_info_t *p);
enum fw__part_state fw__slurm_part_state(const struct fw_slurm *h, const char *name, size_t len);
const char *fw__part_state_word(enum fw__part_state st);
enum fw__part_state fw__slurm_parts_state(const struct fw_slurm *h, const char *partitions);
/* The job's managed partitions (the comma list less those fairway does
 * not manage: `-p gpu,cpu` names gpu alone), as its held comment names
 * them, into buf: "gpu" for one, "gpu DOWN, gpu2 gone" for several, each
 * with its state (fw__part_state_word), cut at a whole one (", and N
 * more").  How many it names in all. */
int32_t fw__slurm_parts_held(const struct fw_slurm *h, const char *partitions, char *buf, size_t len);
/* The lookups by job id and by (array, task) index the job message of
 * the last load: fw__slurm_index builds them, at the start of each
 * fw__slurm_build (so they always index the records a snapshot names). */
int fw__slurm_index(struct fw_slurm *h);
slurm_job_info_t *fw__slurm_job(const struct fw_slurm *h, uint32_t id);

/* Job arrays.  slurmctld keeps an array's pending tasks in one "meta"
 * record (job_id == array_job_id, array_task_id NO_VAL) whose
 * array_task_str lists them ("0-5", "2,4-5%2", "0-998:2"; "%N" is the
 * throttle, array_max_tasks); a task it starts, or that fairway starts
 * with job_id_str "A_T", is split off into a record of its own (a new
 * job id; the last one takes the meta's) with array_task_id T.  fairway
 * names both forms "A_T", as squeue does, and a job outside any array
 * by its id (and a second record of one task, which Slurm never sends,
 * by its id too: names stay distinct).  fw__array_job: is j part of an array (array_job_id set)?
 * fw__array_meta: is j the record of the array's pending tasks?
 * fw__array_tasks: the first cap task ids str lists, into out; returns
 * how many it lists (past cap too; INT32_MAX at most), reading up to
 * "%" or the first thing it does not read.  fw__array_lists: does str
 * list task t?  fw__slurm_task: the record of its own of task t of
 * array a, or NULL.  fw__slurm_job_named: the record a snapshot name
 * stands for: its own, or the meta record that still lists it (then
 * *task = its task id to split off; else NO_VAL). */
#define FW__ARRAY_TASKS_MAX 128 /* an array's pending tasks one cycle plans */
bool fw__array_job(const slurm_job_info_t *j);
bool fw__array_meta(const slurm_job_info_t *j); /* and job_id == array_job_id */
int32_t fw__array_tasks(const char *str, uint32_t *out, int32_t cap);
bool fw__array_lists(const char *str, uint32_t t);
void fw__job_name(const struct fw_slurm *h, const slurm_job_info_t *j, char *buf, size_t len);

/* Heterogeneous jobs ("sbatch -N1 --gres=gpu:2 : -N1 --gres=gpu:4",
 * or #SBATCH hetjob).  slurmctld keeps each component in a record of its
 * own, with its own job id: het_job_id names the leader (the component at
 * het_job_offset 0; 0 for a job that is not heterogeneous) and
 * het_job_id_set lists every component's job id ("11-13").  Slurm runs
 * the components together or not at all, only once every one is
 * released, and never two of them on one node (seen in the lab, Slurm
 * 22.05).  So fairway plans the waiting components of one het job as one
 * job: a task group each (apart, snapshot.h), named after the first of
 * them; a start sets each component's ReqNodes, then releases them all
 * at once by the leader's id.  A running component is a running job of
 * its own, never evicted alone: Slurm requeues only the leader, and that
 * requeues them all.  fw__het_job: is j a component (and not of an
 * array, which Slurm does not mix)?  fw__job_released: pending, released
 * by fairway onto its ReqNodes (priority set).  fw__het_waiting: the
 * components of j's het job that are pending and not released, by
 * offset, the first cap of them into out; returns how many there are, or
 * -1 when het_job_id_set lists none it can read or more than FW__HET_MAX
 * (*listed: how many it lists). */
#define FW__HET_MAX 16
bool fw__het_job(const slurm_job_info_t *j);
bool fw__job_released(const slurm_job_info_t *j);
/* Released, and pending for a reason that is Slurm's own, not the nodes:
 * a limit of its association or QOS (AccountingStorageEnforce=limits,
 * which fairway does not model but GPU GrpTRES), licenses, a partition
 * down, inactive or whose node or time limit it exceeds.  Booking its
 * nodes would keep them idle while it waits (read.c).  Also a job its
 * user holds (fw__slurm_user_held): neither planned nor released until
 * the user releases it. */
bool fw__slurm_held_back(const slurm_job_info_t *j);
/* A user's own hold.  fairway's hold (job_submit.lua's priority 0 at
 * submission) shows in Slurm 22.05 as JobHeldUser, as a user's own
 * `scontrol uhold` (or a non-operator's `scontrol hold`, or `sbatch
 * --hold`) does, and the priority stays 0 either way (seen in the lab).
 * So job_submit.lua records a hold that is not fairway's in the job's
 * Comment (FW__USER_HOLD_TEXT, which fairway's own comment on the job
 * repeats), and turns the user's `scontrol release` of such a job back
 * into fairway's hold (the comment "fairway: queued, not planned yet"),
 * so that fairway, not Slurm's scheduler, starts it.  Held by its user:
 * pending, priority 0 and the Comment so marked, whatever Slurm's reason:
 * job_submit.lua marks an administrator's `scontrol hold` (JobHeldAdmin)
 * alike, so that is honoured too (before, it was fairway's to plan, and
 * root's hold of a job its user held made it run, seen in a lab);
 * fairway's own holds carry comments of their own and are never so
 * marked. */
/* Slurm starts a job fairway released a moment after fairway read the
 * world, and refuses to start one whose time limit would then reach into
 * a reservation (ReqNodeNotAvail, until the reservation is over; seen in
 * a lab with a job ending 1 s before one): a reservation to come counts
 * from this long before its start (build.c leaving_nodes, filter.c).
 * Alike, fairway's own reservation for a waiting job starts this long
 * after the end Slurm would give each job fairway released onto its
 * nodes and Slurm has not started yet (fw__slurm_resv_not_before). */
#define FW__RESV_MARGIN_S 60
/* A user's (or an administrator's) `scontrol requeuehold` of a job
 * fairway started: Slurm calls no job_submit hook on a requeue, so no
 * record marks it, and it reads as fairway's own EVICT (pending, priority
 * 0, JobHeldUser, its restart count up).  fairway marks its own requeue
 * in the Comment first (FW__REQUEUED_TEXT, apply.c mark_requeue), so a
 * job requeued and held whose Comment still reads FW__STARTED_MARK was
 * requeue-held by someone else: held by its user too, until released;
 * fairway's comment on it then writes the record (FW__USER_HOLD_TEXT),
 * which job_submit.lua turns back into fairway's hold at the release. */
#define FW__STARTED_MARK "fairway: started on "
/* aside.c: free what ended() keeps of the ended jobs' nodes (struct
 * fw__ran_cache); the handle's free does it, and so must a test's own. */
void fw__slurm_ended_free(struct fw_slurm *h);
/* The comment of a job fairway ends at its run-time limit (apply.c
 * end_at_limit): slurmctld ends it TIMEOUT, which the daemon lists with
 * reason time_limit (aside.c fw_slurm_ended). */
#define FW__ENDED "fairway: ended: "
#define FW__REQUEUED_TEXT "fairway: requeued (evicted), to be planned anew"
/* The earliest start of a Slurm reservation on the hostlist `nodes`
 * (apply.c do_reserve): Slurm refuses to start a released job whose time
 * limit would reach into a reservation on its nodes, so a reservation
 * that the plan puts at the end of a job fairway released in the same
 * cycle, with that job's start "now", kept it pending for ever
 * (ReqNodeNotAvail; each cycle moved the reservation along with "now";
 * seen in a lab).  *end: the latest end, were Slurm to start them at
 * now, of the jobs fairway released onto a node of `nodes` and Slurm has
 * not started (the read's jobs booked as starting, build.c starting_job,
 * and the starts among acts[0 .. n): under the time limit the start
 * sets), a job without a limit counted a year, as slurmctld does; 0 when
 * none.  Returns *end + FW__RESV_MARGIN_S, or 0 when none. */
time_t fw__slurm_resv_not_before(struct fw_slurm *h, const char *nodes, const struct fw_backend_action *acts,
				 int32_t n, time_t now, time_t *end);
#define FW__USER_HOLD_MARK "fairway: held by its user"
#define FW__USER_HOLD_TEXT FW__USER_HOLD_MARK ": not planned until released (scontrol release)"
bool fw__slurm_user_held(const slurm_job_info_t *j);
/* Slurm's name of a job's state_reason ("AssocMaxJobsLimit"), or
 * "reason N" where libslurm does not say. */
const char *fw__slurm_reason_name(uint16_t reason, char *buf, size_t n);
int32_t fw__het_waiting(const struct fw_slurm *h, const slurm_job_info_t *j, slurm_job_info_t **out,
			int32_t cap, int32_t *listed);
/* The job id of a component of j's het job (its set) that is pending and
 * released, or 0. */
uint32_t fw__het_released(const struct fw_slurm *h, const slurm_job_info_t *j);
slurm_job_info_t *fw__slurm_task(const struct fw_slurm *h, uint32_t a, uint32_t t);
slurm_job_info_t *fw__slurm_job_named(const struct fw_slurm *h, const char *name, uint32_t *task);
node_info_t *fw__slurm_node(const struct fw_slurm *h, const char *name);
reserve_info_t *fw__slurm_resv(const struct fw_slurm *h, const char *name);
/* Slurm's reservations fairway plans around (build.c, filter.c;
 * docs/slurm.md "Reservations"): fw__slurm_admin_resv, one of nodes that
 * fairway did not make (an admin's scontrol create reservation);
 * fw__slurm_closing_resv, that or one of fairway's maintenance windows
 * (fairway-maint-<id>), not a job reservation fairway-<id> (those hold
 * nodes for fairway's own plan). */
bool fw__slurm_admin_resv(const reserve_info_t *r);
/* Is name a job reservation of fairway's: "fairway-" and a job's name
 * ("A" or "A_T", decimal)?  Only those does fairway move and delete. */
bool fw__slurm_job_resv(const char *name);
bool fw__slurm_closing_resv(const reserve_info_t *r);
int fw__slurm_topo_load(struct fw_slurm *h, struct fw_diag *d);
const struct fw_slurm_topo *fw__slurm_topo_of(const struct fw_slurm *h,
					      const char *node);
int fw__slurm_eio(struct fw_diag *d, const char *what);
int fw__slurm_refused(struct fw_slurm *h, const char *what, const char *obj);

/* build.c: the whole GPUs job j asks (all its nodes'), as a pending job
 * of the snapshot would; -1 in a form fairway does not read. */
int64_t fw__slurm_job_gpus(const slurm_job_info_t *j);

/* apply.c: the comment of a held job fairway cannot schedule */
void fw__orphan_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len);

/* gres.c: "gpu:h100:8", "gres:gpu:4", "gpu:h100:2(IDX:0-1,4)" */
#define FW__GRES_MAX (1 << 20) /* a larger GPU count reads as this */
int fw__gres_gpus(const char *gres, char *model, size_t model_len);
uint32_t fw__gres_idx_mask(const char *detail);
bool fw__job_held(const slurm_job_info_t *j);
bool fw__job_pending(const slurm_job_info_t *j);
bool fw__job_running(const slurm_job_info_t *j);
bool fw__node_schedulable(const node_info_t *n);
bool fw__node_in_service(const node_info_t *n);
/* Drained with a "fairway: " reason (fairway's own drain) and otherwise
 * in service (fw__node_in_service): back once fairway resumes it. */
bool fw__node_drained_by_fairway(const node_info_t *n);

/* jobfail.c: job failures attributed to nodes, through the health model */
struct fw__jobfail;
int fw__jobfail_update(struct fw_slurm *h);
bool fw__jobfail_suspect(struct fw_slurm *h, const char *node, fw_time now, char *why, size_t cap);
void fw__jobfail_free(struct fw__jobfail *f);

/* filter.c: the snapshot nodes a held job may start on (its partitions,
 * --exclude, --constraint), for one build of snapshot s (node_of: Slurm
 * node index -> snapshot node, -1; both must outlive the filter).
 * fw__slurm_filter_job answers for job j: a count of nodes (0: none
 * qualifies), FW__NODES_ANY (every node: no filter) or FW__NODES_UNREAD
 * (a --constraint form fairway does not read).  fw__slurm_filter_restrict
 * then restricts the snapshot job x, just added for j, to those nodes
 * (nothing for FW__NODES_ANY), sharing the node list of an earlier job
 * that asked alike; FW_OK or the core's error.  The _group form
 * restricts task group g of x instead (a het job's component j, whose
 * components ask unlike: snapshot.h "Group filters"); the groups in
 * order, each right after its fw__slurm_filter_job.  fw__constraint_match: 1
 * when the comma list of features satisfies expr, 0 when not, -1 for a
 * form fairway does not read. */
#define FW__NODES_ANY (-1)
#define FW__NODES_UNREAD (-2)
struct fw__slurm_filter;
struct fw__slurm_filter *fw__slurm_filter_new(const struct fw_slurm *h, struct fw_snapshot *s,
					      const int32_t *node_of);
int32_t fw__slurm_filter_job(struct fw__slurm_filter *f, const slurm_job_info_t *j);
/* After fw__slurm_filter_job answered 0: was it only the reservations
 * to come (phase 5b) that left no node?  Then the first of them that
 * took one of its nodes (its index in the last read's reservation
 * message), *more how many others did; else -1. */
int32_t fw__slurm_filter_reserved(const struct fw__slurm_filter *f, int32_t *more);
int fw__slurm_filter_restrict(struct fw__slurm_filter *f, int32_t x);
int fw__slurm_filter_restrict_group(struct fw__slurm_filter *f, int32_t x, int g);
void fw__slurm_filter_free(struct fw__slurm_filter *f);
int fw__constraint_match(const char *expr, const char *features);
/* The nodes a user asked with -w (--nodelist), as job_submit.lua keeps
 * them in a record "fairway: -w LIST" (fairway's own start replaces
 * ReqNodes, a requeue included): the submission's in the AdminComment, a
 * change made later with scontrol update in the Comment until the next
 * update of the Comment moves it into the AdminComment.  The Comment's is
 * the newer; an empty LIST is a -w cleared.  fw__slurm_nodelist_record:
 * the record in force (the whole field), or NULL; fw__slurm_nodelist:
 * its LIST, or NULL for none or an empty one; then filter_job keeps only
 * the nodes LIST names, and fw__slurm_nodelist_count gives how many
 * distinct names it holds (0 for a list libslurm cannot read).  fairway
 * itself never writes a Comment that starts with the mark (apply.c). */
#define FW__NODELIST_MARK "fairway: -w "
const char *fw__slurm_nodelist_record(const slurm_job_info_t *j);
const char *fw__slurm_nodelist(const slurm_job_info_t *j);
int32_t fw__slurm_nodelist_count(const char *list);

/* copy.c: the shadow of h that fw_slurm_build fills (h's messages
 * pinned), as fw_slurm_capture makes it after its load; NULL without
 * memory.  fw_slurm_discard frees it. */
struct fw_slurm_copy *fw__slurm_copy_of(struct fw_slurm *h);

/* build.c */
int fw__slurm_build(struct fw_slurm *h, struct fw_snapshot *s,
		    struct fw_backend_world *w, struct fw_diag *d);

#endif
