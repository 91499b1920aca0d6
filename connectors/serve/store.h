/*
 * store.h — the daemon's crash-safe memory: one SQLite database in WAL mode.
 *
 * What lives here (DIR/fairway.db): queues, reservations, node health
 * reports, the local backend's jobs, users' decayed usage per queue
 * (key "QUEUE/USER"), per-queue usage history, and the decision log.  Everything the daemon knows that is not re-derivable
 * from the backend survives a restart; `fairway serve` rebuilds its
 * in-memory model from these tables on start.
 *
 * Documents.  Queues, reservations, health and jobs are stored as one JSON
 * document per key (the same JSON the API speaks), in tables listed once
 * in FW_STORE_DOCS.  The API validates a document completely before it is
 * written, so the store never holds half of a request.
 *
 * Durability.  Every API write is one transaction, committed before the
 * reply is sent: a 2xx means the write is in the WAL.  With
 * synchronous=NORMAL (the default) a committed transaction survives the
 * process being killed at any instant (kill -9); --sync full adds an
 * fsync per commit so it also survives power loss.  A cycle's decisions
 * and the backend's effects of them (local backend: job state) go into one
 * transaction: a crash either applied and logged a decision or did
 * neither, so no decision is applied twice.
 *
 * Schema versions.  `schema_version` holds one row; open() applies the
 * migrations (an X-list of SQL scripts, never edited once shipped, only
 * appended) that a database lacks, each in its own transaction, and
 * refuses a database newer than this binary.
 *
 * Threads: none of its own; the daemon calls it under its state lock,
 * but for the decision log's reader (fw_store_open_reader), which has a
 * lock of its own.
 * Errors: fw_err values; FW_EIO carries the SQLite message in the diag.
 */
#ifndef FAIRWAY_SERVE_STORE_H
#define FAIRWAY_SERVE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "fairway/err.h"
#include "fairway/snapshot.h"

#define FW_STORE_DOCS(X) \
	X(QUEUES, queues)              \
	X(RESERVATIONS, reservations)  \
	X(HEALTH, health)              \
	X(JOBS, jobs)                  \
	X(USERS, users)

enum fw_store_doc {
#define FW__STORE_DOC(U, l) FW_STORE_##U,
	FW_STORE_DOCS(FW__STORE_DOC)
#undef FW__STORE_DOC
	FW_STORE_NDOCS
};

struct fw_serve_store;

/* A decision-log row. */
struct fw_store_decision {
	int64_t cycle;
	fw_time at;
	uint64_t generation;
	const char *kind;     /* "start", "evict", "reserve", "drain" */
	const char *job;      /* "" for node decisions */
	const char *node;     /* "" unless drain */
	const char *reason;   /* snake_case reason name */
	const char *text;     /* rendered reason */
};

int fw_store_open(const char *dir, bool sync_full, struct fw_serve_store **out,
		  struct fw_diag *d);
/* A read-only second connection to DIR's database (opened, and migrated,
 * by fw_store_open first) that answers fw_store_decisions and nothing
 * else: the daemon reads the log through it without its state lock
 * (WAL: readers see the last commit and never block the writer).  Its
 * statements are its own; callers serialise their use of it. */
int fw_store_open_reader(const char *dir, struct fw_serve_store **out, struct fw_diag *d);
void fw_store_close(struct fw_serve_store *st);
/* The database's file name, for messages ("the store" when unknown). */
const char *fw_store_path(struct fw_serve_store *st);
int fw_store_schema_version(struct fw_serve_store *st);

/* True when this open() created the database (nothing to restore). */
bool fw_store_created(const struct fw_serve_store *st);

int fw_store_begin(struct fw_serve_store *st);
int fw_store_commit(struct fw_serve_store *st);
void fw_store_rollback(struct fw_serve_store *st);

/* Document tables: insert-or-replace (a replaced row keeps its place),
 * delete (FW_ENOENT when absent), and visit every row in key order, the
 * jobs in the order they were first put (submission order; fn returning
 * non-zero stops and is returned). */
int fw_store_put(struct fw_serve_store *st, enum fw_store_doc t,
		 const char *key, const char *json);
int fw_store_del(struct fw_serve_store *st, enum fw_store_doc t, const char *key);
int fw_store_each(struct fw_serve_store *st, enum fw_store_doc t,
		  int (*fn)(void *ctx, const char *key, const char *json), void *ctx);

/* Integer settings (next ids, counters): get returns dflt when unset. */
int64_t fw_store_meta_get(struct fw_serve_store *st, const char *key, int64_t dflt);
int fw_store_meta_put(struct fw_serve_store *st, const char *key, int64_t v);

int fw_store_log_decision(struct fw_serve_store *st, const struct fw_store_decision *dec);
/* The highest cycle number in the decision log or saved with the usage
 * (meta last_cycle, every 10 s and at a clean stop; 0: none), so that a
 * restarted daemon numbers its cycles on from there. */
int64_t fw_store_last_cycle(struct fw_serve_store *st);
/* The last `limit` logged decisions about one job made at or after since
 * (its submission: a name the local backend forgot may be used again,
 * and the rows of the job it named stay; INT64_MIN: all), oldest first. */
int fw_store_job_decisions(struct fw_serve_store *st, const char *job, fw_time since, int limit,
			   int (*fn)(void *ctx, const struct fw_store_decision *dec), void *ctx);
/* Per job, in name order, the time of its last logged eviction (not at
 * a run-time limit) that no logged start followed: the jobs that wait
 * again after an eviction, as a restarted daemon finds them (its time to
 * start counts from then). */
int fw_store_requeues(struct fw_serve_store *st, int (*fn)(void *ctx, const char *job, fw_time at), void *ctx);
/* The last `limit` logged decisions made at or after since, of one job
 * (NULL: any) and one kind (NULL: any), oldest first: the audit of GET
 * /v1/decisions. */
int fw_store_decisions(struct fw_serve_store *st, fw_time since, const char *job, const char *kind, int limit,
		       int (*fn)(void *ctx, const struct fw_store_decision *dec), void *ctx);
/* The log rows (decisions, usage_history) made before `before`, oldest
 * first, at most `limit` of each table, deleted: gone[0] and gone[1] get
 * how many (inside the caller's transaction, so they count once it
 * commits).  An index on each table's `at` (schema 4) keeps it a range
 * scan of the rows it deletes. */
int fw_store_trim_logs(struct fw_serve_store *st, fw_time before, int limit, int64_t gone[2]);
int fw_store_usage_record(struct fw_serve_store *st, const char *queue, fw_time at,
			  double gpu_seconds, double decayed);

/* The last SQLite error text (for logs). */
const char *fw_store_errmsg(struct fw_serve_store *st);

#endif
