/*
 * fuzz_store.c — libFuzzer target for the local backend's restore of its
 * jobs from the daemon's store (connectors/serve/local.c, load_one): any
 * bytes become up to 8 stored job documents, and the open of the backend
 * on that store either refuses it in words or restores jobs that the
 * rest of the daemon can trust.
 *
 * Each line of the input is one document, stored as is through the
 * store's API (fw_store_put, a fresh state directory) under its own
 * "name" when it has a usable one (so that most documents are named by
 * their key, as the backend writes them), else under "jN".  A store edited
 * by hand, or written by an older or newer fairway, looks like this.
 * Then the backend opens on a two-node fleet (n0 with 8 GPUs, n1 with 4,
 * a rack level), as a restart does (no seeding), and:
 *   - a refusal names the store file, the field store.jobs and a job the
 *     store holds ("job KEY: "), and says what to do;
 *   - a restore holds only jobs of a known state; each running job's
 *     placements name a fleet node (a lost node is a fleet change: the job
 *     is pending again), a task group of the job, GPUs the node has and a
 *     share of a GPU from 0 to 1000;
 *   - the world the backend then reads (as a cycle does) is one the core
 *     takes (fw_snapshot_validate: no GPU held twice, none a node lacks,
 *     as many GPUs as each task asks);
 *   - a reload (backend.h: after a rollback) of the same store succeeds
 *     and finds the same jobs in the same states.
 * Any failure aborts with the input's documents on stderr;
 * FUZZ_STORE_VERBOSE=1 prints each refusal, or the jobs restored.  Replayed as
 * fuzz_replay_store over tests/fuzz/corpus/store in every test run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "backend.h"
#include "fwconfig.h"
#include "local.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DOCS 8

static const char fleet_yaml[] =
	"now: 0\n"
	"topology:\n  levels: [rack]\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi, topology: {rack: r0}}\n"
	"  - {name: n1, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r1}}\n"
	"queues:\n"
	"  - {name: q, resources: {gpu: {quota: 12}}}\n";

struct input {
	int n;
	char key[MAX_DOCS][FW_NAME_MAX];
	char *doc[MAX_DOCS];
};

static void fail(const struct input *in, const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_store: %s: %s\n", what, detail);
	for (int i = 0; i < in->n; i++)
		fprintf(stderr, "  key %s: %s\n", in->key[i], in->doc[i]);
	abort();
}

/* The key document i goes under: its name when usable, else "jN"; one
 * key twice keeps the last document (fw_store_put replaces). */
static void key_of(struct input *in, int i)
{
	json_t *o = json_loads(in->doc[i], 0, NULL);
	const char *name = json_string_value(json_object_get(o, "name"));

	if (name && *name && strlen(name) < FW_NAME_MAX && strlen(name) == json_string_length(json_object_get(o, "name")))
		snprintf(in->key[i], sizeof in->key[i], "%s", name);
	else
		snprintf(in->key[i], sizeof in->key[i], "j%d", i);
	json_decref(o);
}

/* The input's lines, each NUL-terminated on the heap. */
static void split(const uint8_t *data, size_t size, struct input *in)
{
	size_t at = 0;

	in->n = 0;
	while (at < size && in->n < MAX_DOCS) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
		char *d = malloc(len + 1);
		if (!d)
			abort();
		memcpy(d, data + at, len);
		d[len] = '\0';
		in->doc[in->n] = d;
		key_of(in, in->n++);
		at += len + 1;
	}
}

/* A refusal: the store file, the field, a job the store holds. */
static void check_refusal(const struct input *in, const struct fw_diag *d)
{
	char job[FW_NAME_MAX + 8];
	bool named = false;

	if (!strstr(d->file, "/fairway.db") || strcmp(d->field, "store.jobs"))
		fail(in, "a refusal that does not name the store file and store.jobs", d->file);
	for (int i = 0; i < in->n && !named; i++) {
		snprintf(job, sizeof job, "job %.*s: ", FW_NAME_MAX - 1, in->key[i]);
		named = strstr(d->msg, job) != NULL;
	}
	if (!named)
		fail(in, "a refusal that names no stored job", d->msg);
	if (!strstr(d->msg, "delete its row"))
		fail(in, "a refusal that says not what to do", d->msg);
	if (getenv("FUZZ_STORE_VERBOSE"))
		fprintf(stderr, "fuzz_store: refused: %s: field %s: %s\n", d->file, d->field, d->msg);
}

static const char *const states[] = { "pending", "running", "done", "cancelled", "failed", "timeout" };

struct seen {
	const struct input *in;
	struct fw_backend *b;
	const struct fw_snapshot *fleet;
	char names[MAX_DOCS][FW_NAME_MAX];
	char state[MAX_DOCS][16];
	int n;
};

static const struct fw_node *fleet_node(const struct fw_snapshot *f, const char *name)
{
	for (int32_t i = 0; i < f->nnodes; i++)
		if (!strcmp(f->nodes[i].name, name))
			return &f->nodes[i];
	return NULL;
}

/* A running job's placements: in the fleet, in the job, in range. */
static void check_run(struct seen *s, const struct fw_backend_job *j)
{
	const struct fw_backend_placement *p;
	int32_t n;
	fw_time kept;

	if (fw_local_job_run(s->b, j->job.name, &p, &n, &kept) != FW_OK)
		fail(s->in, "a running job without its run", j->job.name);
	for (int32_t k = 0; k < n; k++) {
		const struct fw_node *node = fleet_node(s->fleet, p[k].node);
		if (!node)
			fail(s->in, "a running job on a node the fleet lacks", p[k].node);
		if (p[k].group < 0 || p[k].group >= j->job.ngroups)
			fail(s->in, "a placement of a task group the job lacks", j->job.name);
		if (node->gpu_count < 32 && (p[k].gpu_mask >> node->gpu_count) != 0)
			fail(s->in, "a placement on GPUs the node lacks", p[k].node);
		if (p[k].gpu_milli < 0 || p[k].gpu_milli > 1000)
			fail(s->in, "a placement with a GPU share out of range", j->job.name);
	}
	if (kept < 0)
		fail(s->in, "a run with negative kept seconds", j->job.name);
}

static int each(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		fw_time end)
{
	struct seen *s = ctx;
	size_t k;

	(void)submit, (void)start, (void)end;
	for (k = 0; k < sizeof states / sizeof *states && strcmp(state, states[k]); k++)
		;
	if (k == sizeof states / sizeof *states)
		fail(s->in, "a job of an unknown state", state);
	if (s->n == MAX_DOCS)
		fail(s->in, "more jobs than documents", j->job.name);
	snprintf(s->names[s->n], sizeof s->names[s->n], "%s", j->job.name);
	snprintf(s->state[s->n++], sizeof s->state[0], "%s", state);
	if (!strcmp(state, "running"))
		check_run(s, j);
	return 0;
}

/* The world the restored backend reads (as the daemon's cycle does,
 * onto a skeleton of the fleet's queues and topology) is one the core
 * takes: fw_snapshot_validate (no GPU given twice, none past a node's). */
static void check_world(const struct input *in, struct fw_backend *b, const struct fw_snapshot *fleet)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_backend_world w;
	struct fw_diag d;
	char m[1024];

	if (!s)
		abort();
	memset(&d, 0, sizeof d);
	for (int32_t i = 0; i < fleet->nqueues; i++)
		fw_snapshot_add_queue(s, &fleet->queues[i]);
	s->topology = fleet->topology;
	s->config = fleet->config;
	s->now = 1000000;
	if (fw_backend_local.read(b, s, &w, &d) != FW_OK || fw_snapshot_validate(s, &d) != FW_OK) {
		fw_diag_format(&d, m, sizeof m);
		fail(in, "the restored world is not one the core takes", m);
	}
	fw_snapshot_free(s);
}

/* A restore: every job in range, and a reload finds the same. */
static void check_restore(const struct input *in, struct fw_backend *b, const struct fw_snapshot *fleet)
{
	struct seen a = { in, b, fleet, { "" }, { "" }, 0 }, r = a;
	struct fw_diag d;

	if (fw_local_each_job(b, each, &a) != FW_OK)
		fail(in, "cannot list the restored jobs", "");
	memset(&d, 0, sizeof d);
	if (fw_backend_local.reload(b, &d) != FW_OK)
		fail(in, "a reload of the store the open took fails", d.msg);
	if (fw_local_each_job(b, each, &r) != FW_OK || r.n != a.n ||
	    memcmp(r.names, a.names, sizeof a.names) || memcmp(r.state, a.state, sizeof a.state))
		fail(in, "a reload found other jobs than the open", "");
	check_world(in, b, fleet);
	if (getenv("FUZZ_STORE_VERBOSE"))
		for (int i = 0; i < a.n; i++)
			fprintf(stderr, "fuzz_store: restored %s (%s)\n", a.names[i], a.state[i]);
}

static void remove_dir(const char *dir)
{
	static const char *const files[] = { "fairway.db", "fairway.db-wal", "fairway.db-shm" };
	char path[300];

	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_snapshot *fleet;
	struct fw_serve_store *store = NULL;
	struct fw_backend *b = NULL;
	struct fw_backend_config cfg;
	struct fw_diag d;
	struct input in;
	const char *tmp = getenv("TMPDIR");
	char dir[256];

	if (!fleet && fw_config_load_buffer("fleet", fleet_yaml, sizeof fleet_yaml - 1, &fleet, NULL) != FW_OK)
		abort();
	snprintf(dir, sizeof dir, "%s/fw-fuzz-store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || fw_store_open(dir, false, &store, NULL) != FW_OK)
		abort();
	split(data, size, &in);
	for (int i = 0; i < in.n; i++)
		if (fw_store_put(store, FW_STORE_JOBS, in.key[i], in.doc[i]) != FW_OK)
			fail(&in, "the store refuses a put", in.key[i]);
	memset(&cfg, 0, sizeof cfg);
	memset(&d, 0, sizeof d);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = 1000000;
	if (fw_backend_local.open(&cfg, &b, &d) != FW_OK)
		check_refusal(&in, &d);
	else
		check_restore(&in, b, fleet);
	fw_backend_local.close(b);
	fw_store_close(store);
	remove_dir(dir);
	for (int i = 0; i < in.n; i++)
		free(in.doc[i]);
	return 0;
}
