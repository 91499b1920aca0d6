/*
 * store.c — SQLite in WAL mode behind store.h.  Phases of open(): the
 * file, the pragmas, the migrations, the prepared statements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "store.h"

/* Migrations: index i brings the schema from version i to i + 1.  Append
 * only; never edit a shipped entry. */
static const char *const migrations[] = {
	/* 0 -> 1: the documents, the decision log, usage history, settings */
	"CREATE TABLE queues (key TEXT PRIMARY KEY, doc TEXT NOT NULL);"
	"CREATE TABLE reservations (key TEXT PRIMARY KEY, doc TEXT NOT NULL);"
	"CREATE TABLE health (key TEXT PRIMARY KEY, doc TEXT NOT NULL);"
	"CREATE TABLE jobs (key TEXT PRIMARY KEY, doc TEXT NOT NULL);"
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
	"CREATE TABLE decisions (id INTEGER PRIMARY KEY, cycle INTEGER NOT NULL,"
	" at INTEGER NOT NULL, generation INTEGER NOT NULL, kind TEXT NOT NULL,"
	" job TEXT NOT NULL, node TEXT NOT NULL, reason TEXT NOT NULL,"
	" text TEXT NOT NULL);"
	"CREATE TABLE usage_history (id INTEGER PRIMARY KEY, queue TEXT NOT NULL,"
	" at INTEGER NOT NULL, gpu_seconds REAL NOT NULL, decayed REAL NOT NULL);",
	/* 1 -> 2: look decisions up by job (fairway jobs why, the crash test) */
	("CREATE INDEX decisions_job ON decisions (job, id);"
	 "CREATE INDEX usage_queue ON usage_history (queue, at);"),
	/* 2 -> 3: users' decayed usage per queue (users take turns) */
	"CREATE TABLE users (key TEXT PRIMARY KEY, doc TEXT NOT NULL);",
	/* 3 -> 4: the logs by time (serve --log-keep trims the oldest rows;
	 * GET /v1/decisions reads the newest, of a kind too) */
	("CREATE INDEX decisions_at ON decisions (at);"
	 "CREATE INDEX decisions_kind ON decisions (kind, at);"
	 "CREATE INDEX usage_at ON usage_history (at);"),
	/* 4 -> 5: a run-time limit's ending is kind timeout, no more evict
	 * (reason time_limit), as the cycle logs it now (reason.h
	 * fw_serve_kind_name): the older rows named alike */
	"UPDATE decisions SET kind = 'timeout' WHERE kind = 'evict' AND reason = 'time_limit';",
};
#define NMIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))

static const char *const doc_table[] = {
#define FW__STORE_NAME(U, l) #l,
	FW_STORE_DOCS(FW__STORE_NAME)
#undef FW__STORE_NAME
};

enum { ST_PUT, ST_DEL, ST_EACH, ST_NKIND };

struct fw_serve_store {
	sqlite3 *db;
	bool created;
	sqlite3_stmt *doc[FW_STORE_NDOCS][ST_NKIND];
	sqlite3_stmt *meta_get, *meta_put, *decision, *usage, *job_decisions;
	sqlite3_stmt *trim[2];          /* decisions, usage_history */
	sqlite3_stmt *decisions[4];     /* the log's last rows: [job? | kind? << 1] */
	sqlite3_stmt *begin, *commit, *rollback;
};

static int sql_fail(struct fw_serve_store *st, struct fw_diag *d, const char *what)
{
	return fw_diag_set(d, FW_EIO, "", 0, 0, "store", "%s: %s", what, sqlite3_errmsg(st->db));
}

static int exec(struct fw_serve_store *st, const char *sql, struct fw_diag *d)
{
	char *err = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &err) == SQLITE_OK)
		return FW_OK;
	fw_diag_set(d, FW_EIO, "", 0, 0, "store", "%s", err ? err : "sqlite error");
	sqlite3_free(err);
	return FW_EIO;
}

static int prep(struct fw_serve_store *st, sqlite3_stmt **s, const char *sql, struct fw_diag *d)
{
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL) != SQLITE_OK)
		return sql_fail(st, d, sql);
	return FW_OK;
}

/* --- open: pragmas ----------------------------------------------------- */
static int set_pragmas(struct fw_serve_store *st, bool sync_full, struct fw_diag *d)
{
	int rc;
	sqlite3_busy_timeout(st->db, 5000);
	if ((rc = exec(st, "PRAGMA journal_mode=WAL;", d)))
		return rc;
	return exec(st, sync_full ? "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"
				  : "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", d);
}

/* --- open: migrations -------------------------------------------------- */
static int read_version(struct fw_serve_store *st, int *v, struct fw_diag *d)
{
	sqlite3_stmt *s;
	int rc;

	*v = 0;
	if ((rc = exec(st, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);", d)))
		return rc;
	if ((rc = prep(st, &s, "SELECT version FROM schema_version", d)))
		return rc;
	if (sqlite3_step(s) == SQLITE_ROW)
		*v = sqlite3_column_int(s, 0);
	else
		st->created = true;
	sqlite3_finalize(s);
	return FW_OK;
}

static int migrate(struct fw_serve_store *st, struct fw_diag *d)
{
	int v, rc;
	char sql[128];

	if ((rc = read_version(st, &v, d)))
		return rc;
	if (v > NMIGRATIONS)
		return fw_diag_set(d, FW_ERANGE, "", 0, 0, "store",
				   "the database has schema version %d; this fairway knows up to %d (upgrade fairway)",
				   v, NMIGRATIONS);
	for (; v < NMIGRATIONS; v++) {
		snprintf(sql, sizeof sql, "DELETE FROM schema_version; INSERT INTO schema_version VALUES (%d);", v + 1);
		if ((rc = exec(st, "BEGIN IMMEDIATE;", d)))
			return rc;
		if ((rc = exec(st, migrations[v], d)) || (rc = exec(st, sql, d))) {
			exec(st, "ROLLBACK;", NULL);
			return rc;
		}
		if ((rc = exec(st, "COMMIT;", d)))
			return rc;
	}
	return FW_OK;
}

/* --- open: statements -------------------------------------------------- */
/* GET /v1/decisions' four statements, one per filter set, each on its
 * index: the newest rows back from now on decisions_at (or, of a kind,
 * decisions_kind), stopping at ?4 rows or ?1 in time; a job's few rows
 * by decisions_job.  Parameters: ?1 since, ?2 job, ?3 kind, ?4 limit. */
static int prep_decisions(struct fw_serve_store *st, struct fw_diag *d)
{
	static const char *const where[4] = { "", " AND job = ?2", " AND kind = ?3", " AND job = ?2 AND kind = ?3" };
	char sql[512];
	int rc;

	for (int i = 0; i < 4; i++) {
		snprintf(sql, sizeof sql,
			 "SELECT cycle, at, generation, kind, job, node, reason, text FROM (SELECT * FROM decisions"
			 " WHERE at >= ?1%s ORDER BY at DESC, id DESC LIMIT ?4) ORDER BY at, id",
			 where[i]);
		if ((rc = prep(st, &st->decisions[i], sql, d)))
			return rc;
	}
	return FW_OK;
}

static int prepare_all(struct fw_serve_store *st, struct fw_diag *d)
{
	char sql[256];
	int rc;

	for (int t = 0; t < FW_STORE_NDOCS; t++) {
		/* A replaced row keeps its rowid (a new one would move it to
		 * the end): the jobs keep their rows' order, their submission's.
		 * Still an INSERT, so the store's INSERT triggers see every put. */
		snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO %s (rowid, key, doc) VALUES"
			 " ((SELECT rowid FROM %s WHERE key = ?1), ?1, ?2)", doc_table[t], doc_table[t]);
		if ((rc = prep(st, &st->doc[t][ST_PUT], sql, d)))
			return rc;
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE key = ?", doc_table[t]);
		if ((rc = prep(st, &st->doc[t][ST_DEL], sql, d)))
			return rc;
		/* The jobs in the order they were submitted (the plan's, for
		 * jobs alike), the rest by name. */
		snprintf(sql, sizeof sql, "SELECT key, doc FROM %s ORDER BY %s", doc_table[t],
			 t == FW_STORE_JOBS ? "rowid" : "key");
		if ((rc = prep(st, &st->doc[t][ST_EACH], sql, d)))
			return rc;
	}
	if ((rc = prep(st, &st->meta_get, "SELECT value FROM meta WHERE key = ?", d)) ||
	    (rc = prep(st, &st->meta_put, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", d)) ||
	    (rc = prep(st, &st->decision,
		       "INSERT INTO decisions (cycle, at, generation, kind, job, node, reason, text)"
		       " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", d)) ||
	    (rc = prep(st, &st->job_decisions,
		       "SELECT cycle, at, generation, kind, job, node, reason, text FROM"
		       " (SELECT * FROM decisions WHERE job = ? AND at >= ? ORDER BY at DESC, id DESC LIMIT ?)"
		       " ORDER BY at, id", d)) ||
	    (rc = prep(st, &st->usage,
		       "INSERT INTO usage_history (queue, at, gpu_seconds, decayed) VALUES (?, ?, ?, ?)", d)) ||
	    (rc = prep_decisions(st, d)) ||
	    (rc = prep(st, &st->trim[0],
		       "DELETE FROM decisions WHERE id IN"
		       " (SELECT id FROM decisions WHERE at < ? ORDER BY at, id LIMIT ?)", d)) ||
	    (rc = prep(st, &st->trim[1],
		       "DELETE FROM usage_history WHERE id IN"
		       " (SELECT id FROM usage_history WHERE at < ? ORDER BY at, id LIMIT ?)", d)) ||
	    (rc = prep(st, &st->begin, "BEGIN IMMEDIATE", d)) ||
	    (rc = prep(st, &st->commit, "COMMIT", d)) ||
	    (rc = prep(st, &st->rollback, "ROLLBACK", d)))
		return rc;
	return FW_OK;
}

/* DIR/fairway.db opened with flags into a fresh store (path: its name,
 * for the caller's messages): FW_OK, or an error naming the file. */
static int open_db(const char *dir, int flags, const char *how, char *path, size_t n, struct fw_serve_store **out,
		   struct fw_diag *d)
{
	struct fw_serve_store *st = calloc(1, sizeof *st);
	int rc;

	if (!st)
		return FW_ENOMEM;
	snprintf(path, n, "%s/fairway.db", dir);
	if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		rc = fw_diag_set(d, FW_EIO, path, 0, 0, "--state", "cannot open%s: %s; it must be a file this user "
				 "may read and write, or absent (the daemon creates it)", how,
				 st->db ? sqlite3_errmsg(st->db) : "out of memory");
		sqlite3_close(st->db);
		free(st);
		return rc;
	}
	*out = st;
	return FW_OK;
}

int fw_store_open(const char *dir, bool sync_full, struct fw_serve_store **out, struct fw_diag *d)
{
	char path[4096];
	struct fw_serve_store *st;
	int rc;

	if (mkdir(dir, 0700) != 0) {
		struct stat sb;
		if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
			return fw_diag_set(d, FW_EIO, dir, 0, 0, "--state", "cannot create the state directory");
	}
	if ((rc = open_db(dir, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "", path, sizeof path, &st, d)))
		return rc;
	if ((rc = set_pragmas(st, sync_full, d)) || (rc = migrate(st, d)) || (rc = prepare_all(st, d))) {
		if (sqlite3_errcode(st->db) == SQLITE_NOTADB) /* another program's file, or one overwritten */
			fw_diag_set(d, rc, "", 0, 0, "--state",
				    "is not a SQLite database, so not fairway's store: give the daemon a --state "
				    "directory of its own, or move this file aside (the daemon then starts an empty "
				    "store: the queues from --config, no jobs, no usage)");
		if (d)
			snprintf(d->file, sizeof d->file, "%.255s", path);
		fw_store_close(st);
		return rc;
	}
	*out = st;
	return FW_OK;
}

/* A second connection, read-only, for the log's long reads (GET
 * /v1/decisions) outside the daemon's state lock: in WAL mode it reads
 * the last committed state while the cycle writes.  Only the decisions
 * statements are prepared; the schema is the writer's (opened first). */
int fw_store_open_reader(const char *dir, struct fw_serve_store **out, struct fw_diag *d)
{
	char path[4096];
	struct fw_serve_store *st;
	int rc;

	if ((rc = open_db(dir, SQLITE_OPEN_READONLY, " for reading", path, sizeof path, &st, d)))
		return rc;
	sqlite3_busy_timeout(st->db, 5000);
	if ((rc = prep_decisions(st, d))) {
		if (d)
			snprintf(d->file, sizeof d->file, "%.255s", path);
		fw_store_close(st);
		return rc;
	}
	*out = st;
	return FW_OK;
}

const char *fw_store_path(struct fw_serve_store *st)
{
	const char *p = st ? sqlite3_db_filename(st->db, "main") : NULL;
	return p && *p ? p : "the store";
}

void fw_store_close(struct fw_serve_store *st)
{
	if (!st)
		return;
	for (int t = 0; t < FW_STORE_NDOCS; t++)
		for (int k = 0; k < ST_NKIND; k++)
			sqlite3_finalize(st->doc[t][k]);
	sqlite3_finalize(st->meta_get);
	sqlite3_finalize(st->meta_put);
	sqlite3_finalize(st->decision);
	sqlite3_finalize(st->usage);
	sqlite3_finalize(st->job_decisions);
	for (int i = 0; i < 4; i++)
		sqlite3_finalize(st->decisions[i]);
	sqlite3_finalize(st->trim[0]);
	sqlite3_finalize(st->trim[1]);
	sqlite3_finalize(st->begin);
	sqlite3_finalize(st->commit);
	sqlite3_finalize(st->rollback);
	sqlite3_close(st->db);
	free(st);
}

int fw_store_schema_version(struct fw_serve_store *st)
{
	int v = -1;
	read_version(st, &v, NULL);
	return v;
}

bool fw_store_created(const struct fw_serve_store *st)
{
	return st->created;
}

const char *fw_store_errmsg(struct fw_serve_store *st)
{
	return sqlite3_errmsg(st->db);
}

/* --- statements ---------------------------------------------------------- */
static int step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? FW_OK : FW_EIO;
}

int fw_store_begin(struct fw_serve_store *st)
{
	return step_done(st->begin);
}

int fw_store_commit(struct fw_serve_store *st)
{
	return step_done(st->commit);
}

void fw_store_rollback(struct fw_serve_store *st)
{
	step_done(st->rollback);
}

int fw_store_put(struct fw_serve_store *st, enum fw_store_doc t, const char *key, const char *json)
{
	sqlite3_stmt *s = st->doc[t][ST_PUT];
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, json, -1, SQLITE_STATIC);
	return step_done(s);
}

int fw_store_del(struct fw_serve_store *st, enum fw_store_doc t, const char *key)
{
	sqlite3_stmt *s = st->doc[t][ST_DEL];
	int rc;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = step_done(s);
	if (rc == FW_OK && sqlite3_changes(st->db) == 0)
		return FW_ENOENT;
	return rc;
}

int fw_store_each(struct fw_serve_store *st, enum fw_store_doc t,
		  int (*fn)(void *ctx, const char *key, const char *json), void *ctx)
{
	sqlite3_stmt *s = st->doc[t][ST_EACH];
	int rc = FW_OK, step;

	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		rc = fn(ctx, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1));
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = FW_EIO;
	sqlite3_reset(s);
	return rc;
}

int64_t fw_store_meta_get(struct fw_serve_store *st, const char *key, int64_t dflt)
{
	sqlite3_stmt *s = st->meta_get;
	int64_t v = dflt;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return v;
}

int64_t fw_store_last_cycle(struct fw_serve_store *st)
{
	sqlite3_stmt *s = NULL;
	int64_t v = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT MAX(cycle) FROM decisions", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0); /* NULL (no row): 0 */
	sqlite3_finalize(s);
	int64_t saved = fw_store_meta_get(st, "last_cycle", 0); /* quiet cycles log no row */
	return saved > v ? saved : v;
}

int fw_store_meta_put(struct fw_serve_store *st, const char *key, int64_t v)
{
	sqlite3_stmt *s = st->meta_put;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, v);
	return step_done(s);
}

int fw_store_log_decision(struct fw_serve_store *st, const struct fw_store_decision *dec)
{
	sqlite3_stmt *s = st->decision;
	sqlite3_bind_int64(s, 1, dec->cycle);
	sqlite3_bind_int64(s, 2, dec->at);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)dec->generation);
	sqlite3_bind_text(s, 4, dec->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, dec->job, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, dec->node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, dec->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, dec->text, -1, SQLITE_STATIC);
	return step_done(s);
}

int fw_store_usage_record(struct fw_serve_store *st, const char *queue, fw_time at, double gpu_seconds,
			  double decayed)
{
	sqlite3_stmt *s = st->usage;
	sqlite3_bind_text(s, 1, queue, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, at);
	sqlite3_bind_double(s, 3, gpu_seconds);
	sqlite3_bind_double(s, 4, decayed);
	return step_done(s);
}

int fw_store_trim_logs(struct fw_serve_store *st, fw_time before, int limit, int64_t gone[2])
{
	for (int t = 0; t < 2; t++) {
		sqlite3_stmt *s = st->trim[t];
		int rc;

		sqlite3_bind_int64(s, 1, before);
		sqlite3_bind_int(s, 2, limit);
		if ((rc = step_done(s)) != FW_OK)
			return rc;
		gone[t] = sqlite3_changes(st->db);
	}
	return FW_OK;
}

static int each_decision(sqlite3_stmt *s, int (*fn)(void *ctx, const struct fw_store_decision *dec), void *ctx);

int fw_store_job_decisions(struct fw_serve_store *st, const char *job, fw_time since, int limit,
			   int (*fn)(void *ctx, const struct fw_store_decision *dec), void *ctx)
{
	sqlite3_stmt *s = st->job_decisions;

	sqlite3_bind_text(s, 1, job, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int(s, 3, limit);
	return each_decision(s, fn, ctx);
}

int fw_store_decisions(struct fw_serve_store *st, fw_time since, const char *job, const char *kind, int limit,
		       int (*fn)(void *ctx, const struct fw_store_decision *dec), void *ctx)
{
	sqlite3_stmt *s = st->decisions[(job != NULL) | (kind != NULL) << 1];

	sqlite3_bind_int64(s, 1, since);
	if (job)
		sqlite3_bind_text(s, 2, job, -1, SQLITE_STATIC);
	if (kind)
		sqlite3_bind_text(s, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, limit);
	return each_decision(s, fn, ctx);
}

int fw_store_requeues(struct fw_serve_store *st, int (*fn)(void *ctx, const char *job, fw_time at), void *ctx)
{
	/* per job its last eviction that no start followed (the indexes on
	 * (kind, at) and (job, id) serve both halves), in name order */
	static const char sql[] =
		"SELECT e.job, MAX(e.at) FROM decisions e WHERE e.kind = 'evict' AND e.reason <> 'time_limit'"
		" AND e.job <> '' AND NOT EXISTS (SELECT 1 FROM decisions s WHERE s.job = e.job"
		" AND s.kind = 'start' AND s.id > e.id) GROUP BY e.job ORDER BY e.job";
	sqlite3_stmt *s;
	int rc = FW_OK, step;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return FW_EIO;
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = fn(ctx, (const char *)sqlite3_column_text(s, 0), sqlite3_column_int64(s, 1))))
			break;
	if (!rc && step != SQLITE_DONE)
		rc = FW_EIO;
	sqlite3_finalize(s);
	return rc;
}

/* Step s (bound) through its rows into fn; reset and unbound after. */
static int each_decision(sqlite3_stmt *s, int (*fn)(void *ctx, const struct fw_store_decision *dec), void *ctx)
{
	int rc = FW_OK, step;

	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct fw_store_decision dec = {
			sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
			(uint64_t)sqlite3_column_int64(s, 2), (const char *)sqlite3_column_text(s, 3),
			(const char *)sqlite3_column_text(s, 4), (const char *)sqlite3_column_text(s, 5),
			(const char *)sqlite3_column_text(s, 6), (const char *)sqlite3_column_text(s, 7),
		};
		if ((rc = fn(ctx, &dec)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = FW_EIO;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc;
}
