/*
 * fuzz_api.c — libFuzzer target for the API's JSON request parsing
 * (connectors/serve/codec.c).
 *
 * The first byte chooses the document (queue, queue by URL name, job,
 * reservation, health report, a user's usage: the byte mod 6); the rest
 * is the request body (a job's may carry "array", as POST /v1/jobs
 * takes it).  Any bytes
 * must either parse, or fail with a diagnosis naming a field.  A parsed
 * document must dump to JSON that parses again to the same struct (what
 * the store keeps is what the API accepted).  Built with -fsanitize=fuzzer
 * under clang, and as fuzz_replay_api with replay.c over
 * tests/fuzz/corpus/api in every test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct fw_topology levels = { 3, { "block", "rack", "nvlink" } };

union doc {
	struct fw_queue_spec q;
	struct fw_backend_job_room j;
	struct fw_reservation r;
	struct fw_health_report h;
	struct fw_user_use w;
};

/* A job, as POST /v1/jobs reads it: its "array" (sbatch --array) first;
 * the indices must come ascending, each once, from 0 to
 * FW_ARRAY_INDEX_MAX.  The job's parse refuses no array this took. */
static int job_parse(json_t *o, union doc *u, struct fw_diag *d)
{
	struct fw_job_array a;
	int rc = fw_codec_array_parse(o, &a, d);

	if (rc != FW_OK)
		return strcmp(d->field, "array") ? (abort(), rc) : rc;
	for (int32_t i = 0; i < a.n; i++)
		if (a.idx[i] < 0 || a.idx[i] > FW_ARRAY_INDEX_MAX || (i && a.idx[i] <= a.idx[i - 1]))
			abort();
	if (json_object_get(o, "array") && !a.n)
		abort(); /* an array of no task */
	rc = fw_codec_job_parse(o, &levels, fw_backend_job_room(&u->j), d);
	if (rc != FW_OK && !strcmp(d->field, "array"))
		abort();
	return rc;
}

static int parse(int kind, json_t *o, union doc *u, struct fw_diag *d)
{
	memset(u, 0, sizeof *u);
	switch (kind) {
	case 0: return fw_codec_queue_parse(o, NULL, &u->q, d);
	case 1: return fw_codec_queue_parse(o, "from-url", &u->q, d);
	case 2: return job_parse(o, u, d);
	case 3: return fw_codec_reservation_parse(o, &u->r, d);
	case 5: return fw_codec_user_use_parse(o, &u->w, d);
	default:
		strcpy(u->h.node, "n1");
		return fw_codec_health_parse(o, &u->h, d);
	}
}

static json_t *dump(int kind, const union doc *u)
{
	switch (kind) {
	case 0: case 1: return fw_codec_queue_dump(&u->q);
	case 2: return fw_codec_job_dump(&u->j.j, &levels);
	case 3: return fw_codec_reservation_dump(&u->r);
	case 5: return fw_codec_user_use_dump(&u->w);
	default: return fw_codec_health_dump(&u->h);
	}
}

/* Round trip: dump, reparse, dump again; the two dumps must be equal. */
static void round_trip(int kind, const union doc *u)
{
	union doc *v = malloc(sizeof *v);
	json_t *a = dump(kind, u), *b = NULL;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	if (!v || !a || parse(kind == 1 ? 0 : kind, a, v, &d) != FW_OK)
		abort(); /* what we wrote must be readable */
	b = dump(kind, v);
	if (!b || !json_equal(a, b))
		abort();
	json_decref(a);
	json_decref(b);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union doc *u;
	json_t *o = NULL;
	struct fw_diag d;
	int kind, rc;

	if (size < 1)
		return 0;
	kind = data[0] % 6;
	memset(&d, 0, sizeof d);
	if (fw_codec_body((const char *)data + 1, size - 1, &o, &d) != FW_OK) {
		if (!d.field[0] || !d.msg[0])
			abort(); /* a refusal names the field */
		return 0;
	}
	if (!(u = malloc(sizeof *u)))
		abort();
	rc = parse(kind, o, u, &d);
	if (rc == FW_OK)
		round_trip(kind, u);
	else if (!d.field[0] || !d.msg[0])
		abort();
	json_decref(o);
	free(u);
	return 0;
}
