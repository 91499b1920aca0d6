/*
 * trace.h — the simulator's format-neutral trace model, and its readers.
 *
 * Every trace format (Microsoft ITP, Alibaba openb pods, fairway's own
 * generic CSV/JSONL, Slurm sacct via the converter) is read into one
 * model: a list of jobs, each a gang of task groups with an arrival time,
 * an actual duration and the runtime the user announced.  Optional fields
 * are empty strings (queue, user, topology levels, GPU model) so that a
 * consumer can tell "not given" from any value.
 *
 *   ITP rows      fw_trace_from_itp(): floor(n/G) tasks of G GPUs plus a
 *                 remainder task (the gang rule of des.h), expected =
 *                 duration, no queue or user.
 *   openb pods    fw_trace_read_openb(): one task of num_gpu GPUs at
 *                 gpu_milli, submit = creation_time, duration =
 *                 deletion_time - creation_time; a pod without both times
 *                 is an error (file:line:col).
 *   generic       fw_trace_parse_csv() / fw_trace_parse_jsonl(); the
 *                 format is specified in docs/trace-format.md.
 *
 * Diagnostics are "FILE:LINE:COL: FIELD: MSG" (fw_itp_diag_str).  With
 * FW_TRACE_SKIP_BAD a bad data row is skipped and counted; the first
 * skipped row's diagnosis is kept.  Ownership: fw_trace_free() frees a
 * trace and accepts a zeroed one.
 */
#ifndef FAIRWAY_SIM_TRACE_H
#define FAIRWAY_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fairway/err.h"
#include "fairway/snapshot.h"
#include "itp.h"
#include "teams.h"

#define FW_TRACE_SKIP_BAD 1u
#define FW_TRACE_MAX_TIME FW_ITP_MAX_TIME
#define FW_TRACE_MAX_TASKS 65536
#define FW_TRACE_MAX_PRIO 1000000000
#define FW_TRACE_MAX_CPU INT64_C(1000000000)     /* milli-CPU per task */
#define FW_TRACE_MAX_MEM INT64_C(1000000000000)  /* MiB per task */

enum fw_trace_format {
	FW_TRACE_ITP = 0,
	FW_TRACE_OPENB = 1,
	FW_TRACE_FAIRWAY = 2, /* generic CSV, or JSONL (by content) */
};

struct fw_trace_group {
	int32_t count;     /* tasks, 1..FW_TRACE_MAX_TASKS */
	int32_t gpus;      /* GPUs per task, 0..FW_MAX_GPUS_PER_NODE */
	int32_t gpu_milli; /* per GPU, 1000 or 1..999 with gpus == 1 */
	int64_t cpu_milli; /* per task */
	int64_t mem_mib;   /* per task */
};

struct fw_trace_job {
	char id[FW_NAME_MAX];
	int64_t submit;    /* seconds from trace start */
	int64_t duration;  /* actual runtime, seconds */
	int64_t expected;  /* announced runtime (time limit), seconds */
	int32_t max_runtime; /* the job's own run-time limit, seconds, 0 =
			      * none (fw_job.max_runtime_s): a run that
			      * reaches it is ended, as Slurm's TIMEOUT */
	char queue[FW_NAME_MAX];   /* "" = use the team mapping */
	int32_t queue_col;         /* the 1-based column of its queue field
				    * (CSV, JSONL), 0 = the row has none */
	char user[FW_NAME_MAX];    /* "" = not given */
	int32_t priority;
	int ngroups;               /* 1..FW_MAX_GROUPS */
	struct fw_trace_group groups[FW_MAX_GROUPS];
	int32_t min_member;        /* 0 = every task */
	char topo_required[FW_NAME_MAX];  /* level name, "node" or "" */
	char topo_preferred[FW_NAME_MAX];
	char gpu_model[FW_NAME_MAX];      /* "" = any */
	int32_t line;              /* 1-based line in the source file */
};

struct fw_trace {
	char file[256];
	struct fw_trace_job *v;
	size_t n, cap;
	size_t skipped;            /* bad rows skipped (FW_TRACE_SKIP_BAD) */
	struct fw_diag first_bad;
};

void fw_trace_free(struct fw_trace *t);
/* Append a copy (FW_OK or FW_ENOMEM). */
int fw_trace_push(struct fw_trace *t, const struct fw_trace_job *j);
/* Whole GPUs a job asks for (each task's GPUs, a fraction counts 1). */
int64_t fw_trace_job_gpus(const struct fw_trace_job *j);
/* GPU-seconds of actual work (milli-GPU exact, / 1000). */
double fw_trace_job_gpu_s(const struct fw_trace_job *j);

/* ITP rows on G-GPU nodes (1 <= G <= FW_MAX_GPUS_PER_NODE). */
int fw_trace_from_itp(const struct fw_itp_trace *in, int32_t G,
		      struct fw_trace *out, struct fw_diag *d);

/* The generic format (docs/trace-format.md).  buf need not be
 * NUL-terminated; fname is used in diagnostics only. */
int fw_trace_parse_csv(const char *buf, size_t len, const char *fname,
		       unsigned flags, struct fw_trace *out, struct fw_diag *d);
int fw_trace_parse_jsonl(const char *buf, size_t len, const char *fname,
			 unsigned flags, struct fw_trace *out,
			 struct fw_diag *d);
/* CSV or JSONL, chosen by the first non-blank byte ('{' = JSONL). */
int fw_trace_parse_generic(const char *buf, size_t len, const char *fname,
			   unsigned flags, struct fw_trace *out,
			   struct fw_diag *d);

/* openb pod list with creation_time/deletion_time. */
int fw_trace_parse_openb(const char *buf, size_t len, const char *fname,
			 unsigned flags, struct fw_trace *out,
			 struct fw_diag *d);

/* Read a file of any format; ITP rows are shaped for G-GPU nodes. */
int fw_trace_read(const char *path, enum fw_trace_format fmt, int32_t G,
		  unsigned flags, struct fw_trace *out, struct fw_diag *d);
/* "itp" | "openb" | "fairway" -> format; -1 when unknown. */
int fw_trace_format_of(const char *name);
/* Which format a CSV header line (the first line of buf, a byte-order
 * mark skipped) is: every column a format requires is named in it (itp:
 * job_id, submission_time, duration, num_gpu; openb: name, num_gpu,
 * gpu_milli, creation_time; fairway: job_id, submit_time, duration,
 * gpus_per_task), or a JSONL line ('{': fairway).  -1 when none.  A
 * header error names the one that fits (fw_trace_read: "...; the file
 * looks like an openb pod list: use --format openb"). */
int fw_trace_sniff(const char *buf, size_t len);

/* ---- for the simulator (des.c) ------------------------------------------ */

/*
 * The queues of a run.  With force_teams, or when no job names a queue,
 * every job goes to its team's queue ("vc-<team>", teams.h) and the teams
 * share the cluster by weight exactly as fw_teams_quota says.  Otherwise
 * jobs with a queue name use a queue of that name, in name order after
 * the team queues (which exist only when some job names none); the
 * cluster's milli-GPUs are split over the named queues and, as one block,
 * the team queues, in proportion to their GPU-hours demand (sum over their
 * jobs of GPUs x gpu_milli/1000 x duration; equal shares when every demand
 * is 0), by largest remainder (ties to the lower index); the team block is
 * split over the teams by weight the same way.  FW_ERANGE past
 * FW_TEAMS_MAX queues, FW_EEXIST when a queue name equals a team queue's.
 */
struct fw_trace_queues {
	int n;
	int nteam;         /* queues 0..nteam-1 are the team queues */
	char name[FW_TEAMS_MAX][FW_NAME_MAX];
	int64_t deserved_milli[FW_TEAMS_MAX];
	int32_t *of_job;   /* [t->n] queue index per job; caller frees */
};

int fw_trace_queues(const struct fw_trace *t, const struct fw_teams *teams,
		    bool force_teams, int64_t cluster_gpus,
		    struct fw_trace_queues *q, struct fw_diag *d);

/*
 * A site's config as the replay's queues (`--config`, sim/fleet.h
 * fw_fleet_load_config): each job's queue column names a leaf queue of
 * cfg.  fw_trace_config_queue gives row's queue index in cfg, or
 * FW_EINVAL with the trace file, the row's line and field "queue", saying
 * whether the job names none, a queue cfg lacks or a parent queue, and
 * listing a few leaf queues (and a leaf the name is but for case or a
 * typo: "did you mean").  fw_trace_bind_config first refuses a trace
 * with no queue field at all (line 1: "--config needs a queue column",
 * never skipped), then checks every row: the first bad one is the error, or with FW_TRACE_SKIP_BAD each
 * bad row is dropped and counted in t->skipped (first_bad kept when it is
 * the first skipped).
 */
int fw_trace_config_queue(const struct fw_trace *t, size_t row, const struct fw_snapshot *cfg,
			  struct fw_diag *d);
int fw_trace_bind_config(struct fw_trace *t, const struct fw_snapshot *cfg, unsigned flags,
			 struct fw_diag *d);

/*
 * A trace job as a pending snapshot job (queue, name and user left to the
 * caller): task groups, min_member, priority, expected runtime, its own
 * run-time limit (max_runtime_s), GPU model,
 * topology levels looked up by name in topo ("node" = FW_LEVEL_NODE; an
 * unknown level is FW_EINVAL naming the job's line).  A job of more than
 * one task without a preference prefers the smallest level (the last),
 * when topo has levels.
 */
int fw_trace_make_job(const struct fw_trace *t, size_t row,
		      const struct fw_topology *topo, struct fw_job *j,
		      struct fw_diag *d);

/* Is the job whole GPUs shaped as ITP rows are on G-GPU nodes (one task of
 * n <= G, or floor(n/G) x G plus one n mod G), asking nothing else? */
bool fw_trace_itp_shaped(const struct fw_trace_job *j, int32_t G);

/* Jobs (with GPUs) asking for a GPU model that no node with GPUs of the
 * fleet has: they can never start.  Returns their count; want lists the
 * missing models and have the fleet's, each ", "-separated and ending in
 * "..." when cut to its size (wn, hn >= 8). */
size_t fw_trace_unknown_models(const struct fw_trace *t, const struct fw_snapshot *fleet,
			       char *want, size_t wn, char *have, size_t hn);

/* Jobs that can never start on the fleet whatever the policy: a task with
 * more GPUs, CPU or memory than the largest node has, a gang (its
 * min_member tasks when elastic) of more GPUs than the whole fleet, or a
 * group with more tasks than the nodes (of the job's GPU model, in
 * service) can hold at once, each node as many as its GPUs, CPU and memory
 * allow (2 tasks of 8 GPUs on one 8-GPU node and 4-GPU ones).  A model no
 * node has is fw_trace_unknown_models()'s, not counted here.
 * Returns their count; first names the first of them and why. */
size_t fw_trace_unfit_jobs(const struct fw_trace *t, const struct fw_snapshot *fleet,
			   char *first, size_t n);
/* The same test, job by job: never[i] (t->n of them) is set when job i can
 * never start on the fleet, cleared otherwise; returns their count.  The
 * metrics leave such jobs out of idle-while-waiting (sim/metrics.h). */
size_t fw_trace_unfit_mark(const struct fw_trace *t, const struct fw_snapshot *fleet, bool *never);

/* Jobs over their queue's limit (a --config replay): a job whose queue
 * in cfg, or a queue above it, has a `limit` smaller than what the job
 * needs at its least (every task, or min_member tasks of an elastic job;
 * GPUs, CPU or memory) can never start; nor can one its queue's GPU
 * model limits (cfg->model_limits on the queue or above it) shut out with
 * the queue holding nothing, as lib/modellimit.c judges it: a job naming
 * a model over its smallest limit there (all its GPUs), or a job naming
 * none with some model closed by a limit and no open model whose nodes
 * can hold it.  fw_trace_over_limit tests row;
 * fw_trace_over_limit_mark sets never[i] for each such job (leaving the
 * others as they are) and returns their count; fw_trace_warn_over_limit
 * writes one warning line on err naming the count, the queues and the
 * first job's limit, or nothing.  A job naming no queue of cfg is never
 * over a limit. */
bool fw_trace_over_limit(const struct fw_trace *t, size_t row, const struct fw_snapshot *cfg);
size_t fw_trace_over_limit_mark(const struct fw_trace *t, const struct fw_snapshot *cfg, bool *never);
void fw_trace_warn_over_limit(const struct fw_trace *t, const struct fw_snapshot *cfg, FILE *err);

/* The warnings of jobs that can never start, each one line on err with the
 * count, an example or the models, and what to do; nothing when there are
 * none.  warn_unfit: the jobs fw_trace_unfit_jobs() finds (too large for
 * every node, or for the fleet); warn_models: the jobs
 * fw_trace_unknown_models() finds (a GPU model no node has). */
void fw_trace_warn_unfit(const struct fw_trace *t, const struct fw_snapshot *fleet, bool config,
			 FILE *err);
void fw_trace_warn_models(const struct fw_trace *t, const struct fw_snapshot *fleet, bool config,
			  FILE *err);
/* config: the fleet is a --config's nodes, and the warnings' fix names
 * them rather than the fleet flags (refused with --config). */

/* The engine matches GPU models exactly: a job whose gpu_model differs
 * from a fleet model only by case (sacct's h100, a config's H100) takes
 * the fleet's spelling, by the core's rule (fw_snapshot_gpu_model_spelling,
 * the daemon's too).  FW_OK with *changed the jobs changed; FW_EINVAL, d
 * naming the job's line and both spellings, when no node has its model
 * exactly and two of the fleet's models differ from it only by case
 * ("ab" on a fleet of "AB" and "Ab" nodes): no guess. */
int fw_trace_model_case(struct fw_trace *t, const struct fw_snapshot *fleet, size_t *changed,
			struct fw_diag *d);

/* `fairway trace sacct2fairway [--json] SACCT_FILE OUT.csv|-` (sim/sacct.c);
 * argv[0] is the program name.  0 ok, 1 input error, 2 usage error. */
int fw_sacct_convert_cli(int argc, char **argv);

#define FW_SACCT_NO_MODEL 1u /* leave gpu_model empty (--no-gpu-model) */
#define FW_SACCT_TIME_LIMITS 2u /* Timelimit also as max_runtime (--time-limits) */

/* What a conversion read, left out or joined, for the summary (text on
 * stderr, or `--json` on stdout). */
struct fw_sacct_counts {
	size_t rows;       /* data rows read: the header and blank lines not
			    * counted, job steps and a heterogeneous job's parts a
			    * row each */
	size_t never_ran;  /* State PENDING, or Start Unknown, None or empty */
	size_t unfinished; /* not ended when sacct ran (RUNNING, SUSPENDED,
			    * REQUEUED, ..., or End Unknown): no duration yet */
	size_t no_gpu;     /* no GPU in AllocTRES (ReqTRES) */
	size_t steps;      /* job steps (a JobID with '.'): never jobs */
	size_t het_joined; /* heterogeneous jobs (JobID 7+0, 7+1) written as one gang */
	size_t het_split;  /* heterogeneous jobs written a row per part (parts differ) */
	size_t prio_cut;   /* Priority above FW_TRACE_MAX_PRIO, written as it */
};

/* Convert sacct --parsable2 text to generic CSV in *out (malloc'd, NUL
 * terminated); *cnt says what was left out or joined (also on error).
 * flags: FW_SACCT_NO_MODEL, FW_SACCT_TIME_LIMITS, both or 0.  With
 * FW_SACCT_TIME_LIMITS a max_runtime column follows the others, each job's
 * Timelimit in seconds (empty, no limit, where Timelimit is empty, 0,
 * UNLIMITED, Partition_Limit, INVALID or over FW_SPAN32_MAX). */
int fw_sacct_convert(const char *buf, size_t len, const char *fname, unsigned flags,
		     char **out, size_t *out_len, struct fw_sacct_counts *cnt,
		     struct fw_diag *d);

#endif
