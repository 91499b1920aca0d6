/*
 * test_serve_codec.c — the API's JSON documents (connectors/serve/codec.c):
 * units on the wire become fw_res units, absent members take their
 * defaults, every refusal names its field, and a dump parses back to the
 * same document.
 */
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "codec.h"

static json_t *body(const char *s)
{
	json_t *o = NULL;
	if (fw_codec_body(s, strlen(s), &o, NULL) != FW_OK)
		abort();
	return o;
}

/* Parse a queue and return the error's field ("" on success). */
static const char *queue_field(const char *s, struct fw_queue_spec *q)
{
	static struct fw_diag d;
	json_t *o = body(s);
	memset(&d, 0, sizeof d);
	int rc = fw_codec_queue_parse(o, NULL, q, &d);
	json_decref(o);
	return rc == FW_OK ? "" : d.field;
}

TEST(queue_units_and_defaults)
{
	struct fw_queue_spec q;

	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"deserved\":{\"gpu\":1.5,\"cpu\":2,\"memory\":1024},"
				  "\"limit\":{\"gpu\":4,\"cpu\":null}}", &q), "");
	ASSERT_EQ(q.deserved.v[FW_RES_GPU], 1500);  /* milli-GPU */
	ASSERT_EQ(q.deserved.v[FW_RES_CPU], 2000);  /* millicores */
	ASSERT_EQ(q.deserved.v[FW_RES_MEM], 1024);  /* MiB */
	ASSERT_EQ(q.limit.v[FW_RES_GPU], 4000);
	ASSERT_EQ(q.limit.v[FW_RES_CPU], FW_UNLIMITED);
	ASSERT_EQ(q.limit.v[FW_RES_MEM], FW_UNLIMITED);
	ASSERT_NEAR(q.weight[FW_RES_GPU], 1.0, 1e-12);
	ASSERT_STR_EQ(q.parent, "");
}

TEST(queue_refusals_name_the_field)
{
	struct fw_queue_spec q;

	ASSERT_STR_EQ(queue_field("{}", &q), "name");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a b\"}", &q), "name");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"parent\":\"a\"}", &q), "parent");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"deserved\":{\"gpu\":\"8\"}}", &q), "deserved.gpu");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"deserved\":{\"tpu\":8}}", &q), "deserved.tpu");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"overQuotaWeight\":{\"gpu\":-1}}", &q), "overQuotaWeight.gpu");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"priority\":1.5}", &q), "priority");
}

TEST(job_parse_and_round_trip)
{
	static const struct fw_topology levels = { 2, { "block", "rack" } };
	struct fw_backend_job j, k;
	struct fw_diag d;
	json_t *o = body("{\"name\":\"j\",\"queue\":\"q\",\"runtime\":600,\"requiredLevel\":\"rack\","
			 "\"tasks\":[{\"count\":2,\"gpus\":8,\"cpu\":16,\"memory\":4096},{\"gpus\":1,\"gpuFraction\":0.25}]}");

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, &levels, &j, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(j.job.ngroups, 2);
	ASSERT_EQ(j.job.groups[0].count, 2);
	ASSERT_EQ(j.job.groups[0].cpu_milli, 16000);
	ASSERT_EQ(j.job.groups[1].gpu_milli, 250);
	ASSERT_EQ(j.job.required_level, 1);
	ASSERT_EQ(j.job.expected_runtime, 600);
	ASSERT(j.job.preemptible); /* the default */
	o = fw_codec_job_dump(&j, &levels);
	ASSERT_EQ(fw_codec_job_parse(o, &levels, &k, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(memcmp(&j.job.groups, &k.job.groups, sizeof j.job.groups), 0);
	ASSERT_STR_EQ(k.queue, "q");

	o = body("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"requiredLevel\":\"zone\"}");
	ASSERT_EQ(fw_codec_job_parse(o, &levels, &j, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "requiredLevel");
	json_decref(o);
}

TEST(reservation_and_health_refusals)
{
	struct fw_reservation *r = malloc(sizeof *r);
	struct fw_health_report h;
	struct fw_diag d;
	json_t *o;

	memset(&d, 0, sizeof d);
	o = body("{\"kind\":\"queue\",\"nodes\":[\"n\"],\"start\":1,\"end\":2}");
	ASSERT_EQ(fw_codec_reservation_parse(o, r, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "queue"); /* a queue reservation names its queue */
	json_decref(o);
	o = body("{\"kind\":\"maintenance\",\"nodes\":[],\"start\":1,\"end\":2}");
	ASSERT_EQ(fw_codec_reservation_parse(o, r, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "nodes");
	json_decref(o);
	memset(&h, 0, sizeof h);
	strcpy(h.node, "n1");
	o = body("{\"healthy\":false,\"node\":\"n2\"}");
	ASSERT_EQ(fw_codec_health_parse(o, &h, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "node"); /* differs from the URL's node */
	json_decref(o);
	o = body("{\"healthy\":true,\"suspect\":1}");
	ASSERT_EQ(fw_codec_health_parse(o, &h, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "suspect");
	json_decref(o);
	/* suspect round-trips, and is false when absent */
	o = body("{\"healthy\":true,\"suspect\":true}");
	ASSERT_OK(fw_codec_health_parse(o, &h, &d));
	ASSERT(h.suspect && h.healthy);
	json_decref(o);
	o = fw_codec_health_dump(&h);
	ASSERT(json_is_true(json_object_get(o, "suspect")));
	json_decref(o);
	o = body("{\"healthy\":true}");
	ASSERT_OK(fw_codec_health_parse(o, &h, &d));
	ASSERT(!h.suspect);
	json_decref(o);
	ASSERT_EQ(fw_codec_body("{\"a\":1,\"a\":2}", 13, &o, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "body");
	free(r);
}

TEST_MAIN(queue_units_and_defaults, queue_refusals_name_the_field, job_parse_and_round_trip,
	  reservation_and_health_refusals)
