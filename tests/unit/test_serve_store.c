/*
 * test_serve_store.c — the daemon's store (connectors/serve/store.c):
 * schema migrations to the current version, WAL mode, documents that
 * survive a close and reopen, a rolled-back transaction that leaves
 * nothing, a database from a newer fairway refused, the logs trimmed by
 * age (--log-keep) through their time indexes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../harness.h"
#include "store.h"

static char dir[64];

static void fresh_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	snprintf(dir, sizeof dir, "/tmp/fw-store-test.XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

static int count_cb(void *ctx, const char *key, const char *json)
{
	(void)key;
	(void)json;
	(*(int *)ctx)++;
	return 0;
}

TEST(migrates_to_current_version_in_wal_mode)
{
	struct fw_serve_store *st = NULL;
	struct fw_diag d;
	char path[128];
	sqlite3 *db;
	sqlite3_stmt *s;

	fresh_dir();
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_store_open(dir, false, &st, &d), FW_OK);
	ASSERT(fw_store_created(st));
	ASSERT_EQ(fw_store_schema_version(st), 5);
	fw_store_close(st);
	snprintf(path, sizeof path, "%s/fairway.db", dir);
	ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL), SQLITE_OK);
	ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
	ASSERT_STR_EQ((const char *)sqlite3_column_text(s, 0), "wal");
	sqlite3_finalize(s);
	/* the v2 migration's index exists */
	ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE name = 'decisions_job'", -1, &s, NULL),
		  SQLITE_OK);
	ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

TEST(documents_survive_reopen_and_rollback_leaves_nothing)
{
	struct fw_serve_store *st = NULL;
	int n = 0;

	fresh_dir();
	ASSERT_EQ(fw_store_open(dir, true, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_begin(st), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_QUEUES, "a", "{\"name\":\"a\"}"), FW_OK);
	ASSERT_EQ(fw_store_meta_put(st, "next_job", 7), FW_OK);
	ASSERT_EQ(fw_store_commit(st), FW_OK);
	ASSERT_EQ(fw_store_begin(st), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_QUEUES, "b", "{\"name\":\"b\"}"), FW_OK);
	fw_store_rollback(st);
	fw_store_close(st);

	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT(!fw_store_created(st));
	ASSERT_EQ(fw_store_each(st, FW_STORE_QUEUES, count_cb, &n), FW_OK);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(fw_store_meta_get(st, "next_job", 1), 7);
	ASSERT_EQ(fw_store_meta_get(st, "absent", 42), 42);
	ASSERT_EQ(fw_store_del(st, FW_STORE_QUEUES, "b"), FW_ENOENT);
	ASSERT_EQ(fw_store_del(st, FW_STORE_QUEUES, "a"), FW_OK);
	n = 0;
	ASSERT_EQ(fw_store_each(st, FW_STORE_QUEUES, count_cb, &n), FW_OK);
	ASSERT_EQ(n, 0);
	fw_store_close(st);
}

TEST(decision_log_rows_are_written)
{
	struct fw_serve_store *st = NULL;
	struct fw_store_decision dec = { 1, 100, 9, "start", "j1", "", "started", "started: 8 GPUs" };
	char path[128];
	sqlite3 *db;
	sqlite3_stmt *s;

	fresh_dir();
	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_log_decision(st, &dec), FW_OK);
	ASSERT_EQ(fw_store_usage_record(st, "llm", 100, 3600, 1800), FW_OK);
	fw_store_close(st);
	snprintf(path, sizeof path, "%s/fairway.db", dir);
	ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT job, kind, generation FROM decisions", -1, &s, NULL), SQLITE_OK);
	ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
	ASSERT_STR_EQ((const char *)sqlite3_column_text(s, 0), "j1");
	ASSERT_STR_EQ((const char *)sqlite3_column_text(s, 1), "start");
	ASSERT_EQ(sqlite3_column_int(s, 2), 9);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static const char *db_path(void)
{
	static char path[128];

	snprintf(path, sizeof path, "%s/fairway.db", dir);
	return path;
}

/* A new store in a fresh directory, made and closed, then its database
 * opened as SQLite alone (NULL when any step fails; the caller closes). */
static sqlite3 *made_store_raw(void)
{
	struct fw_serve_store *st = NULL;
	sqlite3 *db = NULL;

	fresh_dir();
	if (fw_store_open(dir, false, &st, NULL) != FW_OK)
		return NULL;
	fw_store_close(st);
	if (sqlite3_open(db_path(), &db) == SQLITE_OK)
		return db;
	sqlite3_close(db);
	return NULL;
}

static int64_t count_rows(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t n = -1;

	if (sqlite3_open(db_path(), &db) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* A store of schema 3 (before the time indexes) gains them on open, and
 * the trim's delete walks them (a range scan, not the whole table). */
/* EXPLAIN QUERY PLAN of sql on the store's database: its steps,
 * ";"-joined ("" when it cannot be planned). */
static const char *plan_of(const char *sql)
{
	static char plan[1024];
	char q[1024];
	sqlite3 *db;
	sqlite3_stmt *s;

	plan[0] = 0;
	snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
	if (sqlite3_open(db_path(), &db) != SQLITE_OK)
		return plan;
	if (sqlite3_prepare_v2(db, q, -1, &s, NULL) == SQLITE_OK)
		while (sqlite3_step(s) == SQLITE_ROW) {
			size_t n = strlen(plan);
			snprintf(plan + n, sizeof plan - n, "%s;", (const char *)sqlite3_column_text(s, 3));
		}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return plan;
}

#define TIME_INDEXES "SELECT count(*) FROM sqlite_master WHERE name IN ('decisions_at', 'decisions_kind', 'usage_at')"

TEST(a_version_3_store_gains_the_time_indexes)
{
	struct fw_serve_store *st = NULL;
	sqlite3 *db = made_store_raw();

	ASSERT(db != NULL);
	ASSERT_EQ(sqlite3_exec(db,
			       "DROP INDEX decisions_at; DROP INDEX decisions_kind; DROP INDEX usage_at;"
			       " UPDATE schema_version SET version = 3",
			       NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ASSERT_EQ(count_rows(TIME_INDEXES), 0);
	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT(!fw_store_created(st));
	ASSERT_EQ(fw_store_schema_version(st), 5);
	fw_store_close(st);
	ASSERT_EQ(count_rows(TIME_INDEXES), 3);
	/* the trim's delete: a range of decisions_at in its order */
	const char *p = plan_of("SELECT id FROM decisions WHERE at < 5 ORDER BY at, id LIMIT 9");
	ASSERT(strstr(p, "decisions_at") != NULL);
	ASSERT(strstr(p, "TEMP B-TREE") == NULL);
	/* GET /v1/decisions since a time, and of a kind (store.c
	 * prep_decisions' statements): an index from the newest row back,
	 * never the whole table in id order; a job's rows by its index */
	p = plan_of("SELECT * FROM decisions WHERE at >= 5 ORDER BY at DESC, id DESC LIMIT 9");
	ASSERT(strstr(p, "decisions_at") != NULL);
	ASSERT(strstr(p, "TEMP B-TREE") == NULL);
	p = plan_of("SELECT * FROM decisions WHERE at >= 5 AND kind = 'evict' ORDER BY at DESC, id DESC LIMIT 9");
	ASSERT(strstr(p, "decisions_kind") != NULL);
	ASSERT(strstr(p, "TEMP B-TREE") == NULL);
	p = plan_of("SELECT * FROM decisions WHERE at >= 5 AND job = 'a' ORDER BY at DESC, id DESC LIMIT 9");
	ASSERT(strstr(p, "decisions_job") != NULL);
}

/* Rows older than the cut go oldest first, at most `limit` per table and
 * call; a rolled-back trim deletes nothing; newer rows stay. */
TEST(trim_deletes_old_log_rows_oldest_first_within_the_limit)
{
	struct fw_serve_store *st = NULL;
	int64_t gone[2] = { -1, -1 };

	fresh_dir();
	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_begin(st), FW_OK);
	for (int i = 9; i >= 0; i--) { /* written newest first: the cut goes by time, not by id */
		struct fw_store_decision dec = { i, 100 + i, 1, "start", "j", "", "started", "started" };
		ASSERT_EQ(fw_store_log_decision(st, &dec), FW_OK);
	}
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(fw_store_usage_record(st, "llm", 100 + i, 0, 1), FW_OK);
	ASSERT_EQ(fw_store_commit(st), FW_OK);

	ASSERT_EQ(fw_store_begin(st), FW_OK);
	ASSERT_EQ(fw_store_trim_logs(st, 105, 100, gone), FW_OK);
	ASSERT_EQ(gone[0], 5);
	fw_store_rollback(st);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions"), 10);

	ASSERT_EQ(fw_store_trim_logs(st, 105, 3, gone), FW_OK);
	ASSERT_EQ(gone[0], 3);
	ASSERT_EQ(gone[1], 3);
	ASSERT_EQ(count_rows("SELECT min(at) FROM decisions"), 103);
	ASSERT_EQ(count_rows("SELECT min(at) FROM usage_history"), 103);
	ASSERT_EQ(fw_store_trim_logs(st, 105, 100, gone), FW_OK);
	ASSERT_EQ(gone[0], 2);
	ASSERT_EQ(gone[1], 2);
	ASSERT_EQ(fw_store_trim_logs(st, 105, 100, gone), FW_OK);
	ASSERT_EQ(gone[0], 0);
	ASSERT_EQ(gone[1], 0);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions WHERE at >= 105"), 5);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions"), 5);
	ASSERT_EQ(count_rows("SELECT count(*) FROM usage_history"), 0);
	fw_store_close(st);
}

static int row_cb(void *ctx, const struct fw_store_decision *dec)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 512 - n, "%s%s:%s@%lld", n ? "," : "", dec->kind, dec->job[0] ? dec->job : dec->node,
		 (long long)dec->at);
	return 0;
}

/* The audit query: the last `limit` rows that match (since, job, kind),
 * oldest first. */
TEST(the_decision_log_answers_by_time_job_and_kind)
{
	struct fw_serve_store *st = NULL;
	static const struct fw_store_decision rows[] = {
		{ 1, 100, 1, "start", "a", "", "started", "t" },   { 1, 100, 1, "reserve", "b", "", "has_reservation", "t" },
		{ 2, 160, 2, "evict", "a", "", "reclaim", "t" },   { 2, 160, 2, "start", "b", "", "started", "t" },
		{ 3, 220, 3, "drain", "", "n1", "drain_finish", "t" }, { 4, 280, 4, "start", "a", "", "started", "t" },
	};
	char out[512];

	fresh_dir();
	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		ASSERT_EQ(fw_store_log_decision(st, &rows[i]), FW_OK);
#define Q(since, job, kind, limit, want)                                                          \
	do {                                                                                      \
		out[0] = 0;                                                                       \
		ASSERT_EQ(fw_store_decisions(st, since, job, kind, limit, row_cb, out), FW_OK); \
		ASSERT_STR_EQ(out, want);                                                         \
	} while (0)
	Q(0, NULL, NULL, 100, "start:a@100,reserve:b@100,evict:a@160,start:b@160,drain:n1@220,start:a@280");
	Q(0, NULL, NULL, 2, "drain:n1@220,start:a@280");
	Q(160, NULL, NULL, 100, "evict:a@160,start:b@160,drain:n1@220,start:a@280");
	Q(0, "a", NULL, 100, "start:a@100,evict:a@160,start:a@280");
	Q(0, NULL, "start", 100, "start:a@100,start:b@160,start:a@280");
	Q(150, "a", "start", 100, "start:a@280");
	Q(0, "nobody", NULL, 100, "");
	Q(300, NULL, NULL, 100, "");
#undef Q
	fw_store_close(st);
}

/* The reader connection (GET /v1/decisions without the state lock)
 * sees what the writer committed, not what an open transaction holds,
 * and reads while the writer's transaction is open (WAL). */
TEST(the_reader_sees_committed_rows_only_and_reads_during_a_write)
{
	struct fw_serve_store *st = NULL, *rd = NULL;
	struct fw_store_decision dec = { 1, 100, 1, "start", "a", "", "started", "t" };
	struct fw_diag d;
	char out[512];

	fresh_dir();
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_store_open_reader(dir, &rd, &d), FW_EIO); /* no database yet: the writer makes it */
	ASSERT_STR_CONTAINS(d.msg, "cannot open for reading");
	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_open_reader(dir, &rd, NULL), FW_OK);
	ASSERT_EQ(fw_store_log_decision(st, &dec), FW_OK);
	out[0] = 0;
	ASSERT_EQ(fw_store_decisions(rd, 0, NULL, NULL, 100, row_cb, out), FW_OK);
	ASSERT_STR_EQ(out, "start:a@100");
	ASSERT_EQ(fw_store_begin(st), FW_OK);
	dec.at = 200;
	dec.job = "b";
	ASSERT_EQ(fw_store_log_decision(st, &dec), FW_OK);
	out[0] = 0;
	ASSERT_EQ(fw_store_decisions(rd, 0, NULL, NULL, 100, row_cb, out), FW_OK); /* not blocked */
	ASSERT_STR_EQ(out, "start:a@100");
	ASSERT_EQ(fw_store_commit(st), FW_OK);
	out[0] = 0;
	ASSERT_EQ(fw_store_decisions(rd, 0, NULL, "start", 100, row_cb, out), FW_OK);
	ASSERT_STR_EQ(out, "start:a@100,start:b@200");
	fw_store_close(rd);
	fw_store_close(st);
}

TEST(newer_schema_is_refused)
{
	struct fw_serve_store *st = NULL;
	struct fw_diag d;
	sqlite3 *db = made_store_raw();

	ASSERT(db != NULL);
	ASSERT_EQ(sqlite3_exec(db, "UPDATE schema_version SET version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_store_open(dir, false, &st, &d), FW_ERANGE);
	ASSERT(strstr(d.msg, "99") != NULL);
}

/* Appends each key and its document, "key=doc ", to the string ctx. */
static int keys_cb(void *ctx, const char *key, const char *json)
{
	size_t n = strlen(ctx);

	snprintf((char *)ctx + n, 256 - n, "%s=%s ", key, json);
	return 0;
}

/* The jobs come back in the order they were first put (submission order:
 * the plan ranks equal jobs by it), an update keeping a job's place,
 * also after a reopen; the other documents by key. */
TEST(jobs_come_back_in_submission_order_other_documents_by_key)
{
	struct fw_serve_store *st = NULL;
	char got[256] = "";

	fresh_dir();
	ASSERT_EQ(fw_store_open(dir, true, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_begin(st), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_JOBS, "lex_2", "1"), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_JOBS, "lex_10", "1"), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_JOBS, "b", "1"), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_QUEUES, "z", "1"), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_QUEUES, "a", "1"), FW_OK);
	ASSERT_EQ(fw_store_commit(st), FW_OK);
	ASSERT_EQ(fw_store_begin(st), FW_OK);
	ASSERT_EQ(fw_store_put(st, FW_STORE_JOBS, "lex_2", "2"), FW_OK); /* started: updated */
	ASSERT_EQ(fw_store_commit(st), FW_OK);
	fw_store_close(st);

	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_each(st, FW_STORE_JOBS, keys_cb, got), FW_OK);
	ASSERT_STR_EQ(got, "lex_2=2 lex_10=1 b=1 ");
	got[0] = '\0';
	ASSERT_EQ(fw_store_each(st, FW_STORE_QUEUES, keys_cb, got), FW_OK);
	ASSERT_STR_EQ(got, "a=1 z=1 ");
	fw_store_close(st);
}

TEST(temporary_directory_removed)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
	ASSERT(access(dir, F_OK) != 0);
}

/* A store of schema 4 logged a run-time limit's ending as kind evict
 * (reason time_limit): on open those rows become kind timeout, as the
 * daemon logs them now (reason.h fw_serve_kind_name), and no other row
 * changes, so GET /v1/decisions?kind=evict lists evictions only. */
TEST(a_version_4_store_names_its_time_limit_endings_timeout)
{
	struct fw_serve_store *st = NULL;
	sqlite3 *db = made_store_raw();

	ASSERT(db != NULL);
	ASSERT_EQ(sqlite3_exec(db,
			       "INSERT INTO decisions (cycle, at, generation, kind, job, node, reason, text) VALUES"
			       " (1, 10, 1, 'evict', 'capped', '', 'time_limit', 'ended'),"
			       " (1, 10, 1, 'evict', 'victim', '', 'reclaimed', 'evicted'),"
			       " (1, 10, 1, 'start', 'capped', '', 'started', 'started');"
			       " UPDATE schema_version SET version = 4",
			       NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions WHERE kind = 'timeout'"), 0);
	ASSERT_EQ(fw_store_open(dir, false, &st, NULL), FW_OK);
	ASSERT_EQ(fw_store_schema_version(st), 5);
	fw_store_close(st);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions WHERE kind = 'timeout' AND job = 'capped'"
			     " AND reason = 'time_limit'"), 1);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions WHERE kind = 'evict'"), 1);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions WHERE kind = 'evict' AND job = 'victim'"), 1);
	ASSERT_EQ(count_rows("SELECT count(*) FROM decisions WHERE kind = 'start'"), 1);
}

TEST_MAIN(migrates_to_current_version_in_wal_mode, documents_survive_reopen_and_rollback_leaves_nothing,
	  jobs_come_back_in_submission_order_other_documents_by_key,
	  decision_log_rows_are_written, a_version_3_store_gains_the_time_indexes,
	  a_version_4_store_names_its_time_limit_endings_timeout,
	  trim_deletes_old_log_rows_oldest_first_within_the_limit, the_decision_log_answers_by_time_job_and_kind,
	  the_reader_sees_committed_rows_only_and_reads_during_a_write, newer_schema_is_refused,
	  temporary_directory_removed)
