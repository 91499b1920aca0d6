/*
 * codec.h — the API's JSON documents, parsed strictly and dumped back.
 *
 * One function pair per document kind (queue, job, reservation, health
 * report).  Parsing is all-or-nothing: a parse either fills the whole
 * output struct or fails with a struct fw_diag whose `field` names the
 * offending member as a path ("tasks[1].gpus", "deserved.gpu") and whose
 * msg says what is wrong.  Unknown keys, wrong types, out-of-range numbers
 * and over-long strings are errors (the API answers 400 with that field).
 * Parsing never touches daemon state; the caller validates the parsed
 * value against the cluster (known queue, known nodes) and only then
 * writes.  The same dump is what the store keeps, so a restart re-parses
 * exactly what the API once accepted.
 *
 * Units on the wire: GPUs as (possibly fractional) GPU counts, CPU in
 * cores, memory in MiB, times in seconds since the Unix epoch, durations
 * in seconds.  Inside, fw_res units (milli-GPU, millicores, MiB).
 *
 * Documents that hold daemon state beside what the client sent (a queue's
 * usage, a health report's incidents) parse it too, so that the store's
 * copy parses back whole; the API handler replaces it with the daemon's
 * own before writing.  A queue's "usageGpuHours" (what its views add:
 * api.c) is taken and dropped, so a GET's answer PUTs back as it is.
 *
 * This is the fuzzing surface (tests/fuzz/fuzz_api.c): every parser must
 * accept any bytes without crashing or leaking.
 */
#ifndef FAIRWAY_SERVE_CODEC_H
#define FAIRWAY_SERVE_CODEC_H

#include <stddef.h>

#include <jansson.h>

#include "backend.h"
#include "fairway/err.h"
#include "fairway/snapshot.h"

#define FW_API_MAX_BODY (1u << 20)   /* bytes; larger bodies get 413 */
#define FW_RSV_MAX_NODES 256
#define FW_API_MODEL_LIMITS 16       /* GPU model limits per queue */
#define FW_API_MODEL_DESERVED 16     /* deserved GPUs of a model per queue */

struct fw_spec_model_limit {
	char model[FW_NAME_MAX];
	int64_t gpus;                    /* milli-GPU, >= 0 */
};

struct fw_queue_spec {
	char name[FW_NAME_MAX];
	char parent[FW_NAME_MAX];        /* "" = top level */
	int32_t priority;
	struct fw_res deserved;          /* >= 0 */
	struct fw_res limit;             /* FW_UNLIMITED per resource = none */
	double weight[FW_RES_COUNT];     /* over-quota weights, >= 0 */
	fw_time min_runtime_s;
	fw_time default_runtime_s;       /* fw_queue's; 0 = inherit */
	fw_time max_runtime_s;           /* fw_queue's run-time limit
					  * ("maxRuntime"); 0 = none */
	fw_time default_checkpoint_s;    /* fw_queue's; 0 = inherit */
	double gpu_hour_budget;          /* fw_queue's budget on decayed usage,
					  * GPU-hours ("gpuHourBudget"); 0 =
					  * none, at most FW_BUDGET_MAX_GPU_H */
	bool nonpreemptible;             /* fw_queue's; "preemptible": false */
	int32_t nmodel_limits;           /* "gpuModelLimits": {"H100": 16}, in
					  * the document's key order (snapshot.h
					  * fw_model_limit) */
	struct fw_spec_model_limit model_limits[FW_API_MODEL_LIMITS];
	int32_t nmodel_deserved;         /* "gpuModelDeserved": {"H100": 16}, in
					  * the document's key order; at most
					  * deserved.gpu in all (snapshot.h
					  * model_deserved) */
	struct fw_spec_model_limit model_deserved[FW_API_MODEL_DESERVED];
	double usage;                    /* decayed GPU-seconds (state) */
	fw_time usage_at;
};

/* A user's decayed usage in a queue (the daemon keeps it as it keeps the
 * queues', for users taking turns inside a queue: snapshot.h
 * fw_user_usage).  Stored, never sent by a client: {"queue", "user",
 * "usage" (GPU-seconds), "usageAt"}. */
struct fw_user_use {
	char queue[FW_NAME_MAX];
	char user[FW_NAME_MAX];          /* "" is a user too */
	double usage;                    /* decayed GPU-seconds, >= 0 */
	fw_time usage_at;
};

#define FW_RSV_KINDS(X) X(MAINTENANCE, maintenance) X(QUEUE, queue) X(JOB, job)
enum fw_rsv_kind {
#define FW__RSV_ENUM(U, l) FW_RSV_##U,
	FW_RSV_KINDS(FW__RSV_ENUM)
#undef FW__RSV_ENUM
	FW_RSV_NKINDS
};

struct fw_reservation {
	char id[FW_NAME_MAX];            /* assigned by the daemon */
	enum fw_rsv_kind kind;
	char queue[FW_NAME_MAX];         /* kind queue */
	char job[FW_NAME_MAX];           /* kind job */
	fw_time start, end;              /* [start, end) */
	char reason[128];
	int32_t nnodes;
	char nodes[FW_RSV_MAX_NODES][FW_NAME_MAX];
};

struct fw_health_report {
	char node[FW_NAME_MAX];
	bool healthy;
	bool suspect;                   /* healthy but on probation (health.h):
					 * big gangs avoid it */
	uint32_t bad_gpu_mask;
	char reason[128];
	fw_time at;
	bool ours;                      /* a backend's report only: held by
					 * fairway's own drain
					 * (fw_node_health.ours); not stored */
	/* The daemon's fault history of the node, not the reporter's
	 * (history.h): the times of its last incidents, oldest first.  Part
	 * of the stored document and of the POST answer; a request body may
	 * carry it (what a previous answer said) but the daemon replaces it. */
	int32_t nincidents;
	fw_time incident[FW_HEALTH_INCIDENTS];
	/* When the daemon received it (its own clock; not stored: a restored
	 * report counts as received at the restart).  With a heartbeat
	 * timeout, a report older than that makes the node not responding. */
	fw_time received;
};

/* Parse a request body: valid UTF-8 JSON, one object, no duplicate keys. */
int fw_codec_body(const char *buf, size_t len, json_t **out, struct fw_diag *d);

/* A name (queue, job, reservation id; a node in a URL path) follows the
 * core's name rule (snapshot.h, fw_name_problem(): 1 to 63 bytes of
 * letters, digits, '-', '_' and '.', and not "." or "..", so that it is
 * one URL path segment as it stands), which the config loader applies to
 * the names it defines too.  FW_OK, or FW_EINVAL/FW_ERANGE with *d naming
 * field. */
int fw_codec_name_check(const char *name, const char *field, struct fw_diag *d);

/* A free text the daemon shows in table lines (a job's user, a
 * reservation's or a health report's reason) is UTF-8 with no control
 * characters, C0 or C1 (a tab, a newline or U+0085 would break the line),
 * no line or paragraph separators, no spaces but ASCII's, no invisible
 * formatting characters and no bidirectional controls (U+202A-U+202E,
 * U+2066-U+2069: they would reorder what a terminal shows) and, when word
 * (a user), no spaces at all; "" passes.  FW_OK, or FW_EINVAL with *d
 * naming field, the character and its byte offset.  The API checks what it is sent; the store's documents are
 * read back without it, so a store written before the check still opens. */
int fw_codec_text_check(const char *text, const char *field, bool word, struct fw_diag *d);

/* A bearer token as a token file holds it, read the same way by the
 * daemon (--token-file, --agent-token-file), `fairway --token-file` and
 * `fairway-agent --token-file`, so the three never disagree on what the
 * token is: the file's first line up to its first carriage return, space
 * or tab (what follows is ignored), 1 to FW_TOKEN_MAX - 1 bytes of
 * printable ASCII (an HTTP header carries it as it is).  buf, len bytes,
 * is what the file holds (or its first bytes; no NUL needed).  FW_OK with
 * tok filled, or, with *d saying what to write instead: FW_EINVAL (the
 * first line empty or starting with a space, a byte that is not printable
 * ASCII at its offset), FW_ERANGE (longer: never cut, which would make a
 * token no side sent).  The daemon also wants 16 bytes at least. */
#define FW_TOKEN_MAX 256
int fw_codec_token_parse(const char *buf, size_t len, char tok[FW_TOKEN_MAX], struct fw_diag *d);

/* name_in_path: the {name} of PUT /v1/queues/{name} (NULL for POST: the
 * body's "name" is required).  A body name that differs is an error. */
int fw_codec_queue_parse(json_t *o, const char *name_in_path, struct fw_queue_spec *q,
			 struct fw_diag *d);
json_t *fw_codec_queue_dump(const struct fw_queue_spec *q);

/* A stored queue document (a store row, before fw_codec_queue_parse) whose
 * overQuotaWeight.gpu/.cpu/.memory or gpuHourBudget has more than the 6
 * decimals the API takes (a store written before the API refused them)
 * gets that value rounded to 6 decimals in place, so nothing stored is
 * lost on restore.  The API stays strict: only the restore calls this.
 * Returns how many values it rounded; each "FIELD OLD -> NEW" joined by
 * "; " into what (n bytes; "" when none). */
int fw_codec_queue_round_fine(json_t *o, char *what, size_t n);

/* Topology names requiredLevel/preferredLevel; levels may be NULL.
 * j->sel must point at room for FW_BACKEND_SEL_MAX pairs (backend.h,
 * struct fw_backend_job_room); the parse keeps that pointer and clears
 * the rest of *j. */
int fw_codec_job_parse(json_t *o, const struct fw_topology *levels, struct fw_backend_job *j,
		       struct fw_diag *d);
json_t *fw_codec_job_dump(const struct fw_backend_job *j, const struct fw_topology *levels);
/* Into o, the members of j's document besides name, queue, user and
 * priority (preemptible, spread, runtime, minMember, tasks, and those it
 * has of requiredLevel, preferredLevel, exitCode, checkpointInterval,
 * maxRuntime, nodeSelector), under the names a POST body gives them:
 * what a job's view shows of its submission (view.c, api.c).  FW_OK or
 * FW_ENOMEM. */
int fw_codec_job_members(json_t *o, const struct fw_backend_job *j, const struct fw_topology *levels);
/* A job's nodeSelector as its document writes it ({} when it has none). */
json_t *fw_codec_selector_dump(const struct fw_backend_job *j);
/* Its task groups' own selectors, one object per group ({} for none). */
json_t *fw_codec_group_selectors_dump(const struct fw_backend_job *j);
/* Its task groups' slices, one per group: {"size": N, "required":
 * LEVEL}, or null for a group without one. */
json_t *fw_codec_group_slices_dump(const struct fw_backend_job *j, const struct fw_topology *levels);

/* A job array, as sbatch --array writes it: "array": "0-99" (A-B),
 * "0-99:4" (A-B:STEP), "1,3,5-7" (a comma list of those and single
 * indices).  Indices go from 0 to FW_ARRAY_INDEX_MAX (Slurm's default
 * MaxArraySize of 1001), so an array has at most 1001 tasks.  A
 * throttle ("0-99%4") is refused: the daemon keeps no per-array limit
 * of running tasks.  The indices are ascending, each once (as Slurm, an
 * index given twice is one task). */
#define FW_ARRAY_INDEX_MAX 1000
struct fw_job_array {
	int32_t n;                          /* 0: the body has no "array" */
	int32_t idx[FW_ARRAY_INDEX_MAX + 1];
};
/* o's "array" into *a (n 0 when there is none); FW_OK, or FW_EINVAL /
 * FW_ERANGE with *d naming the field "array" and saying what to write.
 * fw_codec_job_parse holds "array" to the same form and keeps nothing of
 * it: the API reads it with this.  A task's arrayOf is no field of the
 * job's document: the local backend stores it beside (local.c). */
int fw_codec_array_parse(json_t *o, struct fw_job_array *a, struct fw_diag *d);

int fw_codec_reservation_parse(json_t *o, struct fw_reservation *r, struct fw_diag *d);
json_t *fw_codec_reservation_dump(const struct fw_reservation *r);

/* h->node and h->at come in set (the URL's node, the daemon's clock).
 * badGpus holds indices of the node's gpus GPUs, and a 400 names that
 * range ("node N has GPUs 0 to 7, not 8"); fw_codec_health_parse, for a
 * stored report, takes any index the mask holds (0 to
 * FW_MAX_GPUS_PER_NODE - 1).  Indices are whole numbers, 1.0 included. */
int fw_codec_health_parse(json_t *o, struct fw_health_report *h, struct fw_diag *d);
int fw_codec_health_parse_node(json_t *o, int32_t gpus, struct fw_health_report *h, struct fw_diag *d);
json_t *fw_codec_health_dump(const struct fw_health_report *h);

int fw_codec_user_use_parse(json_t *o, struct fw_user_use *u, struct fw_diag *d);
json_t *fw_codec_user_use_dump(const struct fw_user_use *u);

const char *fw_rsv_kind_name(enum fw_rsv_kind k);

#endif
