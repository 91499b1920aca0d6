/*
 * test_serve_codec.c — the API's JSON documents (connectors/serve/codec.c):
 * units on the wire become fw_res units, absent members take their
 * defaults, every refusal names its field, and a dump parses back to the
 * same document.  Also the health document's fault history: its stored
 * form, and how reports make incidents and a lemon (history.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "codec.h"
#include "history.h"

static json_t *body(const char *s)
{
	json_t *o = NULL;
	if (fw_codec_body(s, strlen(s), &o, NULL) != FW_OK)
		abort();
	return o;
}

/* Parse body s as a queue into q, or (q NULL) as a job into j: the
 * error's field ("" on success). */
static const char *parse_field(const char *s, struct fw_queue_spec *q, struct fw_backend_job *j)
{
	static struct fw_diag d;
	json_t *o = body(s);
	memset(&d, 0, sizeof d);
	int rc = q ? fw_codec_queue_parse(o, NULL, q, &d) : fw_codec_job_parse(o, NULL, j, &d);
	json_decref(o);
	return rc == FW_OK ? "" : d.field;
}

static const char *queue_field(const char *s, struct fw_queue_spec *q)
{
	return parse_field(s, q, NULL);
}

static const char *job_field(const char *s, struct fw_backend_job *j)
{
	return parse_field(s, NULL, j);
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
	ASSERT_EQ(q.default_runtime_s, 0);
	ASSERT_EQ(q.max_runtime_s, 0);
	ASSERT_EQ(q.default_checkpoint_s, 0);
	ASSERT(!q.nonpreemptible);
	json_t *o = fw_codec_queue_dump(&q); /* zeros and defaults are left out, as in older documents */
	ASSERT(!json_object_get(o, "defaultRuntime") && !json_object_get(o, "defaultCheckpointInterval") &&
	       !json_object_get(o, "preemptible") && !json_object_get(o, "maxRuntime"));
	json_decref(o);

	/* the planning defaults of jobs that give none: seconds, kept through a dump */
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"defaultRuntime\":7200,\"defaultCheckpointInterval\":1800,"
				  "\"preemptible\":false}", &q), "");
	ASSERT(q.nonpreemptible);
	ASSERT_EQ(q.default_runtime_s, 7200);
	ASSERT_EQ(q.default_checkpoint_s, 1800);
	char *doc = json_dumps(o = fw_codec_queue_dump(&q), JSON_COMPACT);
	json_decref(o);
	ASSERT_STR_EQ(queue_field(doc, &q), "");
	free(doc);
	ASSERT_EQ(q.default_runtime_s, 7200);
	ASSERT_EQ(q.default_checkpoint_s, 1800);
	ASSERT(q.nonpreemptible); /* "preemptible": false survives the dump */

	/* the run-time limit: seconds, kept through a dump; 0 is none, left out */
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":86400}", &q), "");
	ASSERT_EQ(q.max_runtime_s, 86400);
	doc = json_dumps(o = fw_codec_queue_dump(&q), JSON_COMPACT);
	ASSERT_EQ(json_integer_value(json_object_get(o, "maxRuntime")), 86400);
	json_decref(o);
	ASSERT_STR_EQ(queue_field(doc, &q), "");
	free(doc);
	ASSERT_EQ(q.max_runtime_s, 86400);
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":0}", &q), "");
	ASSERT_EQ(q.max_runtime_s, 0);
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":31536000}", &q), ""); /* 365 days: the bound */
	ASSERT_EQ(q.max_runtime_s, 31536000);
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
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"defaultRuntime\":-1}", &q), "defaultRuntime");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":-1}", &q), "maxRuntime");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":31536001}", &q), "maxRuntime");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":\"2h\"}", &q), "maxRuntime");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"maxRuntime\":1.5}", &q), "maxRuntime");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"defaultCheckpointInterval\":\"30m\"}", &q),
		      "defaultCheckpointInterval");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"preemptible\":0}", &q), "preemptible");
}

/* "gpuModelLimits": GPUs per model, in the document's order, through a
 * dump and back; left out when none; refusals name the model's field. */
TEST(queue_gpu_model_limits)
{
	struct fw_queue_spec q;
	json_t *o;

	ASSERT_STR_EQ(queue_field("{\"name\":\"a\"}", &q), "");
	ASSERT_EQ(q.nmodel_limits, 0);
	ASSERT(!json_object_get(o = fw_codec_queue_dump(&q), "gpuModelLimits"));
	json_decref(o);
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuModelLimits\":{\"H100\":16,\"A100\":2.5,\"L4\":0}}", &q), "");
	ASSERT_EQ(q.nmodel_limits, 3);
	ASSERT_STR_EQ(q.model_limits[0].model, "H100");
	ASSERT_EQ(q.model_limits[0].gpus, 16000);
	ASSERT_STR_EQ(q.model_limits[1].model, "A100");
	ASSERT_EQ(q.model_limits[1].gpus, 2500);
	ASSERT_EQ(q.model_limits[2].gpus, 0);
	char *doc = json_dumps(o = fw_codec_queue_dump(&q), JSON_COMPACT);
	json_decref(o);
	ASSERT_STR_CONTAINS(doc, "\"gpuModelLimits\":{\"H100\":16.0,\"A100\":2.5,\"L4\":0.0}");
	memset(&q, 0, sizeof q);
	ASSERT_STR_EQ(queue_field(doc, &q), "");
	free(doc);
	ASSERT_EQ(q.nmodel_limits, 3);
	ASSERT_STR_EQ(q.model_limits[2].model, "L4");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuModelLimits\":{\"H100\":-1}}", &q), "gpuModelLimits.H100");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuModelLimits\":{\"H100\":\"8\"}}", &q), "gpuModelLimits.H100");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuModelLimits\":{\"H 100\":8}}", &q), "gpuModelLimits.H 100");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuModelLimits\":[\"H100\"]}", &q), "gpuModelLimits");
	char big[1024] = "{\"name\":\"a\",\"gpuModelLimits\":{";
	for (int i = 0; i <= FW_API_MODEL_LIMITS; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big), "%s\"M%d\":1", i ? "," : "", i);
	strcat(big, "}}");
	ASSERT_STR_EQ(queue_field(big, &q), "gpuModelLimits");
}

/* "gpuHourBudget": GPU-hours, decimals kept exactly through a dump and
 * back (what the store keeps); 0 is none, left out; from 0 to
 * FW_BUDGET_MAX_GPU_H; anything else refused naming it, nothing filled
 * in.  A view's "usageGpuHours" (api.c) parses and is dropped, so a
 * GET's answer PUTs back. */
TEST(queue_gpu_hour_budget)
{
	static const char *const bad[] = { "-1", "-0.0001", "1000000001", "1e10", "\"10\"", "true", "null", "{}",
					   "[10]" };
	struct fw_queue_spec q;
	struct fw_diag d;
	json_t *o;
	char doc[256];

	ASSERT_STR_EQ(queue_field("{\"name\":\"a\"}", &q), "");
	ASSERT(q.gpu_hour_budget == 0);
	ASSERT(!json_object_get(o = fw_codec_queue_dump(&q), "gpuHourBudget"));
	json_decref(o);
	static const double good[] = { 12.5, 0.0001, 10, 1e9, 1234567.891 };
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		snprintf(doc, sizeof doc, "{\"name\":\"a\",\"gpuHourBudget\":%.17g}", good[i]);
		ASSERT_STR_EQ(queue_field(doc, &q), "");
		ASSERT(q.gpu_hour_budget == good[i]);
		char *back = json_dumps(o = fw_codec_queue_dump(&q), JSON_COMPACT);
		ASSERT(json_number_value(json_object_get(o, "gpuHourBudget")) == good[i]);
		json_decref(o);
		memset(&q, 0, sizeof q);
		ASSERT_STR_EQ(queue_field(back, &q), "");
		free(back);
		ASSERT(q.gpu_hour_budget == good[i]); /* exactly: the store's copy */
	}
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuHourBudget\":0}", &q), "");
	ASSERT(q.gpu_hour_budget == 0);
	ASSERT(!json_object_get(o = fw_codec_queue_dump(&q), "gpuHourBudget"));
	json_decref(o);

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(doc, sizeof doc, "{\"name\":\"a\",\"deserved\":{\"gpu\":2},\"gpuHourBudget\":%s}", bad[i]);
		o = body(doc);
		memset(&d, 0, sizeof d);
		memset(&q, 0x5a, sizeof q);
		ASSERT_NE(fw_codec_queue_parse(o, NULL, &q, &d), FW_OK);
		json_decref(o);
		ASSERT_STR_EQ(d.field, "gpuHourBudget");
		ASSERT(bad[i][0] == '-' || bad[i][0] == '1' ? strstr(d.msg, "must be between 0 and 1000000000") != NULL
							    : strstr(d.msg, "must be a number") != NULL);
	}
	/* not finite: JSON has no such number; jansson refuses the body
	 * before the member is read, and the refusal names the member */
	static const char inf[] = "{\"name\":\"a\",\"gpuHourBudget\":1e400}";
	ASSERT_EQ(fw_codec_body(inf, sizeof inf - 1, &o, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "gpuHourBudget");

	/* a view's usageGpuHours: taken, dropped; not a number, refused */
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuHourBudget\":2,\"usage\":3600,\"usageGpuHours\":0.9}", &q),
		      "");
	ASSERT(q.gpu_hour_budget == 2);
	ASSERT_NEAR(q.usage, 3600, 1e-9);
	ASSERT(!json_object_get(o = fw_codec_queue_dump(&q), "usageGpuHours"));
	json_decref(o);
	/* GET /v1/queues/NAME's "fairshare" and "children" (api.c): taken,
	 * dropped, so that answer PUTs back too */
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"priority\":3,\"fairshare\":{\"fairShare\":2,\"at\":5},"
				  "\"children\":[\"b\"]}", &q), "");
	ASSERT_EQ(q.priority, 3);
	o = fw_codec_queue_dump(&q);
	ASSERT(!json_object_get(o, "fairshare") && !json_object_get(o, "children"));
	json_decref(o);
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"fairshares\":null}", &q), "fairshares");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"usageGpuHours\":\"x\"}", &q), "usageGpuHours");
}

/* A queue's plain decimals, "overQuotaWeight" and "gpuHourBudget", take
 * at most 6 decimals, as the config does (millionths): a finer one is
 * refused naming its member and the precision, as a finer GPU amount is,
 * not rounded; at most 6 come back exactly. */
TEST(queue_weight_and_budget_refuse_finer_than_millionths)
{
	static const char *const fine[][3] = {
		{ "gpuHourBudget", "0.0000001", "1e-07" },
		{ "gpuHourBudget", "12.3456789", "12.3456789" },
		{ "gpuHourBudget", "100000000.0000004", "100000000.0000004" },
		{ "overQuotaWeight", "{\"gpu\":0.1234567}", "0.1234567" },
		{ "overQuotaWeight", "{\"cpu\":2.0000001}", "2.0000001" },
	};
	static const double good[] = { 0.000001, 12.345678, 100000000.000001, 999999999.999999 };
	struct fw_queue_spec q;
	struct fw_diag d;
	char doc[256], want[128];
	json_t *o;

	for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
		snprintf(doc, sizeof doc, "{\"name\":\"a\",\"%s\":%s}", fine[i][0], fine[i][1]);
		o = body(doc);
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_codec_queue_parse(o, NULL, &q, &d), FW_EINVAL);
		json_decref(o);
		ASSERT(!strncmp(d.field, fine[i][0], strlen(fine[i][0])));
		snprintf(want, sizeof want, "must have at most 6 decimals (0.000001%s); got %s",
			 fine[i][0][0] == 'g' ? " GPU-hour" : "", fine[i][2]);
		ASSERT_STR_EQ(d.msg, want);
	}
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"overQuotaWeight\":{\"cpu\":2.0000001}}", &q), "overQuotaWeight.cpu");
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		snprintf(doc, sizeof doc, "{\"name\":\"a\",\"gpuHourBudget\":%.17g,\"overQuotaWeight\":{\"gpu\":%.17g}}",
			 good[i], good[i] > 1e6 ? 1e6 : good[i]);
		ASSERT_STR_EQ(queue_field(doc, &q), "");
		ASSERT(q.gpu_hour_budget == good[i]);
		ASSERT(q.weight[0] == (good[i] > 1e6 ? 1e6 : good[i]));
	}
	/* a GPU amount keeps its own precision and words */
	o = body("{\"name\":\"a\",\"deserved\":{\"gpu\":2.5555}}");
	ASSERT_NE(fw_codec_queue_parse(o, NULL, &q, &d), FW_OK);
	json_decref(o);
	ASSERT_STR_EQ(d.msg, "must have at most 3 decimals (0.001 GPU); got 2.5555");
}

/* "gpuModelDeserved": which models a queue's deserved GPUs are, kept
 * apart from its limits, in the document's order through a dump and
 * back; left out when none; refusals name the field, and entries summing
 * to more than deserved.gpu are refused saying what to do. */
TEST(queue_gpu_model_deserved)
{
	struct fw_queue_spec q;
	struct fw_diag d;
	json_t *o;

	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"deserved\":{\"gpu\":8}}", &q), "");
	ASSERT_EQ(q.nmodel_deserved, 0);
	ASSERT(!json_object_get(o = fw_codec_queue_dump(&q), "gpuModelDeserved"));
	json_decref(o);
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"deserved\":{\"gpu\":24},\"gpuModelLimits\":{\"A100\":4},"
				  "\"gpuModelDeserved\":{\"H100\":16,\"A100\":7.5,\"L4\":0.5}}", &q), "");
	ASSERT_EQ(q.nmodel_deserved, 3); /* their sum is deserved.gpu: allowed */
	ASSERT_STR_EQ(q.model_deserved[0].model, "H100");
	ASSERT_EQ(q.model_deserved[0].gpus, 16000);
	ASSERT_STR_EQ(q.model_deserved[1].model, "A100");
	ASSERT_EQ(q.model_deserved[1].gpus, 7500);
	ASSERT_EQ(q.model_deserved[2].gpus, 500);
	ASSERT_EQ(q.nmodel_limits, 1);
	ASSERT_EQ(q.model_limits[0].gpus, 4000);
	char *doc = json_dumps(o = fw_codec_queue_dump(&q), JSON_COMPACT);
	json_decref(o);
	ASSERT_STR_CONTAINS(doc, "\"gpuModelDeserved\":{\"H100\":16.0,\"A100\":7.5,\"L4\":0.5}");
	ASSERT_STR_CONTAINS(doc, "\"gpuModelLimits\":{\"A100\":4.0}");
	memset(&q, 0, sizeof q);
	ASSERT_STR_EQ(queue_field(doc, &q), "");
	free(doc);
	ASSERT_EQ(q.nmodel_deserved, 3);
	ASSERT_STR_EQ(q.model_deserved[2].model, "L4");
	ASSERT_EQ(q.model_deserved[2].gpus, 500);

	const char *g16 = "{\"name\":\"a\",\"deserved\":{\"gpu\":16},\"gpuModelDeserved\":";
	char b[256];
#define DESERVED(x) (snprintf(b, sizeof b, "%s%s}", g16, (x)), queue_field(b, &q))
	ASSERT_STR_EQ(DESERVED("{\"H100\":-1}"), "gpuModelDeserved.H100");
	ASSERT_STR_EQ(DESERVED("{\"H100\":\"8\"}"), "gpuModelDeserved.H100");
	ASSERT_STR_EQ(DESERVED("{\"H 100\":8}"), "gpuModelDeserved.H 100");
	ASSERT_STR_EQ(DESERVED("[\"H100\"]"), "gpuModelDeserved");
	ASSERT_STR_EQ(DESERVED("{\"H100\":16,\"A100\":0.001}"), "gpuModelDeserved"); /* one milli-GPU over */
	ASSERT_STR_EQ(DESERVED("{\"H100\":8,\"A100\":8}"), "");
#undef DESERVED
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"gpuModelDeserved\":{\"H100\":1}}", &q),
		      "gpuModelDeserved"); /* deserved.gpu defaults to 0 */

	/* the sum's refusal says the numbers and what to do */
	o = body("{\"name\":\"a\",\"deserved\":{\"gpu\":16},\"gpuModelDeserved\":{\"H100\":16,\"A100\":4}}");
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_queue_parse(o, NULL, &q, &d), FW_ERANGE);
	json_decref(o);
	ASSERT_STR_EQ(d.field, "gpuModelDeserved");
	ASSERT_STR_CONTAINS(d.msg, "sum to 20.000, more than the queue's deserved.gpu 16.000");
	ASSERT_STR_CONTAINS(d.msg, "raise deserved.gpu or lower the entries");

	char big[1024] = "{\"name\":\"a\",\"deserved\":{\"gpu\":100},\"gpuModelDeserved\":{";
	for (int i = 0; i <= FW_API_MODEL_DESERVED; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big), "%s\"M%d\":1", i ? "," : "", i);
	strcat(big, "}}");
	ASSERT_STR_EQ(queue_field(big, &q), "gpuModelDeserved");
}

TEST(job_parse_and_round_trip)
{
	static const struct fw_topology levels = { 2, { "block", "rack" } };
	struct fw_backend_job j, k;
	struct fw_label js[FW_BACKEND_SEL_MAX], ks[FW_BACKEND_SEL_MAX];

	j.sel = js;
	k.sel = ks;
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
	ASSERT(j.job.preemptible); /* the default, the config's too (test_config.c) */
	ASSERT(j.job.preemptible == FW_JOB_PREEMPTIBLE_DEFAULT);
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

/* A job submitted with every member but array dumps each of them back,
 * equal to the body's (what GET /v1/jobs/NAME shows: docs/serve.md "What
 * a job shows"), and fw_codec_job_members gives the dump's members but
 * name, queue, user and priority, which a job's view sets itself; its
 * dump parses back to the same job. */
TEST(job_dump_shows_every_member_submitted)
{
	static const struct fw_topology levels = { 2, { "block", "rack" } };
	static const char sent[] = "{\"name\":\"j\",\"queue\":\"q\",\"user\":\"ann\",\"priority\":3,"
				   "\"preemptible\":false,\"spread\":true,\"runtime\":600,\"minMember\":1,"
				   "\"requiredLevel\":\"block\",\"preferredLevel\":\"rack\",\"exitCode\":2,"
				   "\"checkpointInterval\":60,\"maxRuntime\":3600,\"nodeSelector\":{\"zone\":\"a\"},"
				   "\"tasks\":[{\"count\":2,\"gpus\":1,\"cpu\":2.5,\"memory\":1024,\"gpuModel\":\"H100\","
				   "\"nodeSelector\":{\"ib\":\"\"},\"slice\":{\"size\":2,\"required\":\"rack\"}},"
				   "{\"count\":1,\"gpus\":1,\"cpu\":1.0,\"memory\":0,\"gpuFraction\":0.5}]}";
	struct fw_backend_job j, k;
	struct fw_label js[FW_BACKEND_SEL_MAX], ks[FW_BACKEND_SEL_MAX];
	struct fw_diag d;
	json_t *o = body(sent), *dump, *members = json_object();
	const char *key;
	json_t *v;

	j.sel = js;
	k.sel = ks;
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, &levels, &j, &d), FW_OK);
	dump = fw_codec_job_dump(&j, &levels);
	json_object_foreach(o, key, v) {
		if (!json_equal(v, json_object_get(dump, key)))
			fprintf(stderr, "member %s differs\n", key);
		ASSERT(json_equal(v, json_object_get(dump, key)));
	}
	ASSERT_EQ(json_object_size(dump), json_object_size(o));
	ASSERT_EQ(fw_codec_job_members(members, &j, &levels), FW_OK);
	ASSERT_EQ(json_object_size(members), json_object_size(dump) - 4);
	json_object_foreach(members, key, v)
		ASSERT(json_equal(v, json_object_get(dump, key)));
	ASSERT(!json_object_get(members, "name") && !json_object_get(members, "priority"));
	ASSERT_EQ(fw_codec_job_parse(dump, &levels, &k, &d), FW_OK);
	json_t *again = fw_codec_job_dump(&k, &levels);
	ASSERT(json_equal(again, dump));
	json_decref(o), json_decref(dump), json_decref(members), json_decref(again);
}

/* nodeSelector: pairs kept ascending by key whatever the body's order
 * (alike selectors then compare equal), null and "" both the label without
 * a value, left out of the dump when absent, round-tripped when present;
 * each refusal names the member. */
TEST(job_node_selector)
{
	struct fw_backend_job j, k;
	struct fw_label js[FW_BACKEND_SEL_MAX], ks[FW_BACKEND_SEL_MAX];

	j.sel = js;
	k.sel = ks;
	json_t *o;

	ASSERT_STR_EQ(job_field("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}", &j), "");
	ASSERT_EQ(j.nsel, 0);
	ASSERT(!json_object_get(o = fw_codec_job_dump(&j, NULL), "nodeSelector"));
	json_decref(o);
	ASSERT_STR_EQ(job_field("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],"
				"\"nodeSelector\":{\"zone\":\"x\",\"gpu\":\"h100\",\"ib\":null,\"a\":\"\"}}", &j), "");
	ASSERT_EQ(j.nsel, 4);
	ASSERT_STR_EQ(j.sel[0].key, "a");
	ASSERT_STR_EQ(j.sel[0].value, "");
	ASSERT_STR_EQ(j.sel[1].key, "gpu");
	ASSERT_STR_EQ(j.sel[1].value, "h100");
	ASSERT_STR_EQ(j.sel[2].key, "ib");
	ASSERT_STR_EQ(j.sel[2].value, "");
	ASSERT_STR_EQ(j.sel[3].key, "zone");
	char *doc = json_dumps(o = fw_codec_job_dump(&j, NULL), JSON_COMPACT);
	json_decref(o);
	ASSERT_STR_EQ(job_field(doc, &k), "");
	free(doc);
	ASSERT_EQ(k.nsel, 4);
	for (int i = 0; i < 4; i++) {
		ASSERT_STR_EQ(k.sel[i].key, j.sel[i].key);
		ASSERT_STR_EQ(k.sel[i].value, j.sel[i].value);
	}

	static const char *const bad[][2] = {
		{ "[\"gpu\"]", "nodeSelector" },
		{ "{\"a b\":\"x\"}", "nodeSelector" },
		{ "{\"\":\"x\"}", "nodeSelector" },
		{ "{\"gpu\":8}", "nodeSelector.gpu" },
		{ "{\"gpu\":\"h 100\"}", "nodeSelector.gpu" },
		{ "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1}", "nodeSelector" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char b[256];
		snprintf(b, sizeof b, "{\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"nodeSelector\":%s}", bad[i][0]);
		ASSERT_STR_EQ(job_field(b, &j), bad[i][1]);
	}
	/* a task group's own: after the job's in sel (ngsel[g] pairs each),
	 * sorted alike, round-tripped under tasks[g], each refusal naming it */
	int n;
	ASSERT_STR_EQ(job_field("{\"queue\":\"q\",\"nodeSelector\":{\"ib\":null},\"tasks\":[{\"gpus\":1,"
				"\"nodeSelector\":{\"zone\":\"x\",\"gpu\":\"a\"}},{\"gpus\":1},"
				"{\"gpus\":1,\"nodeSelector\":{\"gpu\":\"b\"}}]}", &j), "");
	ASSERT_EQ(j.nsel, 1);
	ASSERT_EQ(j.ngsel[0], 2);
	ASSERT_EQ(j.ngsel[1], 0);
	ASSERT_EQ(j.ngsel[2], 1);
	ASSERT_STR_EQ(fw_backend_group_sel(&j, 0, &n)[0].key, "gpu");
	ASSERT_STR_EQ(fw_backend_group_sel(&j, 0, &n)[1].value, "x");
	ASSERT_STR_EQ(fw_backend_group_sel(&j, 2, &n)[0].value, "b");
	ASSERT_EQ(n, 1);
	doc = json_dumps(o = fw_codec_job_dump(&j, NULL), JSON_COMPACT);
	ASSERT(!json_object_get(json_array_get(json_object_get(o, "tasks"), 1), "nodeSelector"));
	json_decref(o);
	memset(&k, 0, sizeof k);
	k.sel = ks;
	ASSERT_STR_EQ(job_field(doc, &k), "");
	free(doc);
	ASSERT_EQ(k.nsel, 1);
	ASSERT(!memcmp(k.ngsel, j.ngsel, sizeof k.ngsel));
	for (int i = 0; i < 4; i++) {
		ASSERT_STR_EQ(k.sel[i].key, j.sel[i].key);
		ASSERT_STR_EQ(k.sel[i].value, j.sel[i].value);
	}
	static const char *const gbad[][2] = {
		{ "[\"gpu\"]", "tasks[1].nodeSelector" },
		{ "{\"a b\":\"x\"}", "tasks[1].nodeSelector" },
		{ "{\"gpu\":8}", "tasks[1].nodeSelector.gpu" },
		{ "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1}", "tasks[1].nodeSelector" },
	};
	for (size_t i = 0; i < sizeof gbad / sizeof *gbad; i++) {
		char b[256];
		snprintf(b, sizeof b, "{\"queue\":\"q\",\"tasks\":[{\"gpus\":1},{\"gpus\":1,\"nodeSelector\":%s}]}",
			 gbad[i][0]);
		ASSERT_STR_EQ(job_field(b, &j), gbad[i][1]);
	}
	/* 16 pairs in all at most: the job's 8 and group 0's 8 fit, one more does not */
	static const char eight[] = "{\"a\":\"\",\"b\":\"\",\"c\":\"\",\"d\":\"\",\"e\":\"\",\"f\":\"\","
				    "\"g\":\"\",\"h\":\"\"}";
	char big[512];
	struct fw_diag d;
	snprintf(big, sizeof big, "{\"queue\":\"q\",\"nodeSelector\":%s,\"tasks\":[{\"gpus\":1,\"nodeSelector\":%s}]}",
		 eight, eight);
	ASSERT_STR_EQ(job_field(big, &j), "");
	ASSERT_EQ(j.nsel + j.ngsel[0], 16);
	snprintf(big, sizeof big, "{\"queue\":\"q\",\"nodeSelector\":%s,\"tasks\":[{\"gpus\":1,\"nodeSelector\":%s},"
		 "{\"gpus\":1,\"nodeSelector\":{\"x\":\"\"}}]}", eight, eight);
	o = body(big);
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "tasks[1].nodeSelector");
	ASSERT_STR_CONTAINS(d.msg, "at most 16 labels in all");
	json_decref(o);
}

/* An optional integer member of a job: 0 when absent and then left out of
 * the dump (old documents look the same); GOOD parses to VALUE and dumps
 * back to it; each of BAD is refused, naming the member. */
static void optional_job_int(const char *key, int64_t (*get)(const struct fw_backend_job *), const char *good,
			    int64_t value, const char *const *bad, size_t nbad)
{
	struct fw_backend_job j, k;
	struct fw_label js[FW_BACKEND_SEL_MAX], ks[FW_BACKEND_SEL_MAX];

	j.sel = js;
	k.sel = ks;
	struct fw_diag d;
	char s[160];
	json_t *o = body("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}");

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(get(&j), 0);
	o = fw_codec_job_dump(&j, NULL);
	ASSERT(!json_object_get(o, key));
	json_decref(o);

	snprintf(s, sizeof s, "{\"queue\":\"q\",\"%s\":%s,\"tasks\":[{\"gpus\":1}]}", key, good);
	o = body(s);
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(get(&j), value);
	o = fw_codec_job_dump(&j, NULL);
	ASSERT_EQ(json_integer_value(json_object_get(o, key)), value);
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &k, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(get(&k), value);

	for (size_t i = 0; i < nbad; i++) {
		snprintf(s, sizeof s, "{\"queue\":\"q\",\"%s\":%s,\"tasks\":[{\"gpus\":1}]}", key, bad[i]);
		o = body(s);
		memset(&d, 0, sizeof d);
		ASSERT(fw_codec_job_parse(o, NULL, &j, &d) != FW_OK);
		json_decref(o);
		ASSERT_STR_EQ(d.field, key);
		ASSERT(d.msg[0] != 0);
	}
}

static int64_t exit_code_of(const struct fw_backend_job *j)
{
	return j->exit_code;
}

static int64_t checkpoint_of(const struct fw_backend_job *j)
{
	return j->job.checkpoint_s;
}

/* exitCode: 0..255. */
TEST(job_exit_code)
{
	static const char *const bad[] = { "-1", "256", "\"x\"", "1.5", "true" };
	optional_job_int("exitCode", exit_code_of, "255", 255, bad, sizeof bad / sizeof *bad);
}

/* checkpointInterval: seconds, 0..1 year; what reclaim's victim order reads. */
TEST(job_checkpoint_interval)
{
	static const char *const bad[] = { "-1", "31536001", "\"30m\"", "1.5", "null" };
	optional_job_int("checkpointInterval", checkpoint_of, "1800", 1800, bad, sizeof bad / sizeof *bad);
}

static int64_t max_runtime_of(const struct fw_backend_job *j)
{
	return j->job.max_runtime_s;
}

/* maxRuntime: the job's own run-time limit, seconds, 0..1 year (the bound
 * itself taken); a duration string, a fraction, null, past the bound or
 * negative is refused naming maxRuntime. */
TEST(job_max_runtime)
{
	static const char *const bad[] = { "-1", "31536001", "\"2h\"", "1.5", "null", "true", "1e300" };
	struct fw_backend_job j;
	struct fw_label js[FW_BACKEND_SEL_MAX];

	j.sel = js;

	optional_job_int("maxRuntime", max_runtime_of, "31536000", 31536000, bad, sizeof bad / sizeof *bad);
	ASSERT_STR_EQ(job_field("{\"queue\":\"q\",\"maxRuntime\":7200.0,\"tasks\":[{\"gpus\":1}]}", &j), "");
	ASSERT_EQ(j.job.max_runtime_s, 7200);
	ASSERT_STR_EQ(job_field("{\"queue\":\"q\",\"maxRuntime\":0,\"tasks\":[{\"gpus\":1}]}", &j), "");
	ASSERT_EQ(j.job.max_runtime_s, 0); /* 0: none, as absent */

	struct fw_diag d;
	json_t *o = body("{\"queue\":\"q\",\"maxRuntime\":31536001,\"tasks\":[{\"gpus\":1}]}");
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.msg, "must be between 0 and 31536000"); /* the range, as runtime's */
	json_decref(o);
	o = body("{\"queue\":\"q\",\"maxRuntime\":\"2h\",\"tasks\":[{\"gpus\":1}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_EINVAL);
	/* the config's "2h" is the likely slip: the string is named, and that numbers carry no unit */
	ASSERT_STR_EQ(d.msg, "must be a whole number, not the string \"2h\" (the API's numbers are plain JSON "
			     "numbers, without a unit: seconds, MiB, GPUs)");
	json_decref(o);
	o = body("{\"queue\":\"q\",\"priority\":true,\"tasks\":[{\"gpus\":1}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "priority");
	ASSERT_STR_EQ(d.msg, "must be a whole number, not true or false");
	json_decref(o);
	o = body("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1,\"memory\":\"80Gi\"}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "tasks[0].memory");
	ASSERT(strstr(d.msg, "not the string \"80Gi\"") != NULL);
	json_decref(o);
	o = body("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1,\"cpu\":[4]}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "tasks[0].cpu");
	ASSERT_STR_EQ(d.msg, "must be a number, not a list");
	json_decref(o);
	o = body("{\"queue\":\"q\",\"runtime\":1.5,\"tasks\":[{\"gpus\":1}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.msg, "must be a whole number"); /* a number: nothing more to say */
	json_decref(o);
}

/* A whole-number member takes a real with a whole value (1.0: what many
 * JSON encoders write), and still refuses 1.5 and out-of-range reals. */
TEST(whole_reals_are_whole_numbers)
{
	struct fw_backend_job j;
	struct fw_label js[FW_BACKEND_SEL_MAX];

	j.sel = js;
	struct fw_diag d;
	json_t *o = body("{\"queue\":\"q\",\"runtime\":600.0,\"tasks\":[{\"count\":2.0,\"gpus\":1.0}]}");

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(j.job.groups[0].gpus, 1);
	ASSERT_EQ(j.job.groups[0].count, 2);
	ASSERT_EQ(j.job.expected_runtime, 600);
	o = body("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1.5}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "tasks[0].gpus");
	json_decref(o);
	o = body("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1e300}]}");
	ASSERT_EQ(fw_codec_job_parse(o, NULL, &j, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "tasks[0].gpus");
	json_decref(o);
}

/* Parse a health report for n1, a node of `gpus` GPUs (-1: a stored
 * report, node unknown); the error's message ("" on success). */
static const char *bad_gpus_msg(const char *s, int32_t gpus, uint32_t *mask)
{
	static struct fw_diag d;
	struct fw_health_report h;
	json_t *o = body(s);
	memset(&d, 0, sizeof d);
	memset(&h, 0, sizeof h);
	strcpy(h.node, "n1");
	int rc = gpus < 0 ? fw_codec_health_parse(o, &h, &d) : fw_codec_health_parse_node(o, gpus, &h, &d);
	json_decref(o);
	*mask = h.bad_gpu_mask;
	return rc == FW_OK ? "" : d.msg;
}

/* badGpus members are whole numbers like every integer member (1.0 too),
 * and out of range, low or high, name the node's range. */
TEST(bad_gpus_whole_reals_and_the_nodes_range)
{
	uint32_t m;

	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[1.0,3]}", 8, &m), "");
	ASSERT_EQ(m, 0x0au);
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[1.0]}", -1, &m), "");
	ASSERT_EQ(m, 0x02u);
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[-1]}", 8, &m), "node n1 has GPUs 0 to 7, not -1");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[8]}", 8, &m), "node n1 has GPUs 0 to 7, not 8");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[0,8.0]}", 8, &m), "node n1 has GPUs 0 to 7, not 8");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[99]}", 8, &m), "node n1 has GPUs 0 to 7, not 99");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[0]}", 0, &m), "node n1 has no GPUs");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[1.5]}", 8, &m), "must be a GPU index (a whole number)");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[\"1\"]}", 8, &m), "must be a GPU index (a whole number)");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[15]}", -1, &m), "");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[16]}", -1, &m), "must be a GPU index from 0 to 15");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[1e300]}", 8, &m), "node n1 has GPUs 0 to 7, not 1e+300");
	/* a GPU listed twice is refused, as the config refuses it, not stored once */
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[1,1]}", 8, &m), "GPU 1 is listed twice; list each GPU once");
	ASSERT_STR_EQ(bad_gpus_msg("{\"healthy\":false,\"badGpus\":[3,1.0,1]}", -1, &m),
		      "GPU 1 is listed twice; list each GPU once");
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

/* Refusals no other test reaches, each with its field and words: a body
 * that is no object or too large, strings of the wrong type or length, a
 * queue named unlike its URL, a job without tasks, an unknown
 * reservation kind, a node name that is not one, a queue or job named by
 * a reservation of another kind, badGpus that is no list, health without
 * "healthy". */
TEST(every_refusal_names_its_field)
{
	static const struct {
		char what; /* b body, q queue (URL name "a"), j job, r reservation, h health */
		const char *doc, *field, *words;
		int rc;
	} c[] = {
		{ 'b', "[1]", "body", "must be a JSON object", FW_EINVAL },
		{ 'q', "{\"name\":\"b\"}", "name", "\"b\" differs from the queue in the URL", FW_EINVAL },
		{ 'q', "{\"parent\":7}", "parent", "must be a string", FW_EINVAL },
		{ 'q', "{\"deserved\":[1]}", "deserved", "must be a JSON object", FW_EINVAL },
		{ 'j', "{\"name\":\"j\",\"queue\":\"a\"}", "tasks", "is required: a list of task groups", FW_EINVAL },
		{ 'r', "{\"kind\":\"rack\",\"nodes\":[\"n\"],\"start\":1,\"end\":2}", "kind",
		  "must be \"maintenance\", \"queue\" or \"job\"", FW_EINVAL },
		{ 'r', "{\"kind\":\"maintenance\",\"nodes\":[\"\"],\"start\":1,\"end\":2}", "nodes[0]",
		  "must be a node name (1 to 63 bytes)", FW_EINVAL },
		{ 'r', "{\"kind\":\"queue\",\"nodes\":[\"n\"],\"start\":1,\"end\":2}", "queue",
		  "is required: a reservation of kind \"queue\" names the queue its nodes are held for", FW_EINVAL },
		{ 'r', "{\"kind\":\"job\",\"nodes\":[\"n\"],\"start\":1,\"end\":2}", "job",
		  "is required: a reservation of kind \"job\" names the pending job", FW_EINVAL },
		{ 'r', "{\"kind\":\"maintenance\",\"queue\":\"a\",\"nodes\":[\"n\"],\"start\":1,\"end\":2}", "queue",
		  "only a reservation of kind \"queue\" names a queue", FW_EINVAL },
		{ 'r', "{\"kind\":\"queue\",\"queue\":\"a\",\"job\":\"j\",\"nodes\":[\"n\"],\"start\":1,\"end\":2}", "job",
		  "only a reservation of kind \"job\" names a job", FW_EINVAL },
		{ 'r', "{\"kind\":\"maintenance\",\"nodes\":[\"n\"],\"start\":1,\"end\":2,\"reason\":"
		  "\"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789012345678901234567890123456789\"}", "reason",
		  "is longer than 127 bytes (it has 270); shorten it", FW_ERANGE },
		{ 'h', "{\"healthy\":false,\"badGpus\":3}", "badGpus", "must be a list of GPU indices", FW_EINVAL },
		{ 'h', "{\"badGpus\":[3]}", "healthy", "is required (true or false)", FW_EINVAL },
		/* an unknown field: named, the nearest when a typo, and every valid one */
		{ 'q', "{\"colour\":1}", "colour",
		  "unknown field \"colour\"; the valid fields are name, parent, priority, deserved, limit, "
		  "overQuotaWeight, minRuntime, defaultRuntime, maxRuntime, defaultCheckpointInterval, usage, usageAt, "
		  "preemptible, gpuModelLimits, gpuModelDeserved, gpuHourBudget, usageGpuHours", FW_EINVAL },
		{ 'q', "{\"deserved\":{\"gpus\":1}}", "deserved.gpus",
		  "unknown field \"gpus\" (did you mean \"gpu\"?); the valid fields of deserved are gpu, cpu, memory",
		  FW_EINVAL },
		{ 'q', "{\"maxRunTime\":60}", "maxRunTime", "unknown field \"maxRunTime\" (did you mean \"maxRuntime\"?)",
		  FW_EINVAL },
		{ 'j', "{\"queue\":\"a\",\"tasks\":[{\"gpu\":1}]}", "tasks[0].gpu",
		  "unknown field \"gpu\" (did you mean \"gpus\"?); the valid fields of tasks[0] are count, gpus, "
		  "gpuFraction, cpu, memory, gpuModel, nodeSelector, slice", FW_EINVAL },
		{ 'j', "{\"queue\":\"a\",\"colour\":1,\"tasks\":[{}]}", "colour",
		  "unknown field \"colour\"; the valid fields are name, queue, user, priority, preemptible, spread, "
		  "runtime, minMember, requiredLevel, preferredLevel, tasks, exitCode, checkpointInterval, maxRuntime, "
		  "nodeSelector", FW_EINVAL },
		{ 'j', "{\"\":1}", "\"\"", "unknown field \"\"; the valid fields are name,", FW_EINVAL },
		{ 'r', "{\"kind\":\"maintenance\",\"node\":[\"n\"],\"start\":1,\"end\":2}", "node",
		  "unknown field \"node\" (did you mean \"nodes\"?); the valid fields are id, kind, queue, job, nodes, "
		  "start, end, reason", FW_EINVAL },
		{ 'h', "{\"healthy\":true,\"gpus\":[1]}", "gpus",
		  "unknown field \"gpus\"; the valid fields are node, healthy, suspect, badGpus, reason, at, incidents",
		  FW_EINVAL },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fw_diag d;
		json_t *o = NULL;
		int rc;

		memset(&d, 0, sizeof d);
		if (c[i].what == 'b') {
			rc = fw_codec_body(c[i].doc, strlen(c[i].doc), &o, &d);
		} else {
			o = body(c[i].doc);
			if (c[i].what == 'q') {
				struct fw_queue_spec q;
				rc = fw_codec_queue_parse(o, "a", &q, &d);
			} else if (c[i].what == 'j') {
				struct fw_backend_job_room *j = calloc(1, sizeof *j);
				ASSERT(j != NULL);
				rc = fw_codec_job_parse(o, NULL, fw_backend_job_room(j), &d);
				free(j);
			} else if (c[i].what == 'r') {
				struct fw_reservation *r = calloc(1, sizeof *r);
				ASSERT(r != NULL);
				rc = fw_codec_reservation_parse(o, r, &d);
				free(r);
			} else {
				struct fw_health_report h;
				memset(&h, 0, sizeof h);
				strcpy(h.node, "n1");
				rc = fw_codec_health_parse(o, &h, &d);
			}
		}
		json_decref(o);
		if (rc != c[i].rc || strcmp(d.field, c[i].field) || !strstr(d.msg, c[i].words))
			fprintf(stderr, "  case %zu (%s): rc %d field %s: %s\n", i, c[i].doc, rc, d.field, d.msg);
		ASSERT_EQ(rc, c[i].rc);
		ASSERT_STR_EQ(d.field, c[i].field);
		ASSERT_STR_CONTAINS(d.msg, c[i].words);
	}

	/* a body over the limit is refused before it is read */
	size_t n = FW_API_MAX_BODY + 1;
	char *big = malloc(n);
	struct fw_diag d;
	json_t *o = NULL;
	ASSERT(big != NULL);
	memset(big, ' ', n);
	ASSERT_EQ(fw_codec_body(big, n, &o, &d), FW_ERANGE);
	ASSERT(o == NULL);
	ASSERT_STR_EQ(d.field, "body");
	ASSERT_STR_CONTAINS(d.msg, "is larger than");
	free(big);
}

/* Parse a health document for node n1 ("" on success, else the field). */
static const char *health_field(const char *s, struct fw_health_report *h)
{
	static struct fw_diag d;
	json_t *o = body(s);
	memset(&d, 0, sizeof d);
	memset(h, 0, sizeof *h);
	strcpy(h->node, "n1");
	h->at = 1000;
	int rc = fw_codec_health_parse(o, h, &d);
	json_decref(o);
	return rc == FW_OK ? "" : d.field;
}

/* The stored form keeps the incidents, oldest first; a document without
 * them (a request body, or one stored before they existed) has none. */
TEST(health_incidents_stored_form)
{
	struct fw_health_report h, k;
	struct fw_diag d;
	json_t *o, *p;

	ASSERT_STR_EQ(health_field("{\"healthy\":false}", &h), "");
	ASSERT_EQ(h.nincidents, 0);
	ASSERT_EQ(h.at, 1000); /* no "at": the caller's (the daemon's now) */
	ASSERT_STR_EQ(health_field("{\"healthy\":false,\"at\":7,\"incidents\":[5,6,7]}", &h), "");
	ASSERT_EQ(h.nincidents, 3);
	ASSERT_EQ(h.incident[0], 5);
	ASSERT_EQ(h.incident[2], 7);
	o = fw_codec_health_dump(&h);
	p = json_object_get(o, "incidents");
	ASSERT(json_is_array(p) && json_array_size(p) == 3);
	ASSERT_EQ(json_integer_value(json_array_get(p, 1)), 6);
	memset(&k, 0, sizeof k);
	strcpy(k.node, "n1");
	memset(&d, 0, sizeof d);
	ASSERT_OK(fw_codec_health_parse(o, &k, &d)); /* what the store keeps parses back */
	ASSERT_EQ(k.nincidents, 3);
	ASSERT_EQ(memcmp(k.incident, h.incident, 3 * sizeof k.incident[0]), 0);
	json_decref(o);
	h.nincidents = 0; /* none: an empty list, so the document's shape is fixed */
	o = fw_codec_health_dump(&h);
	ASSERT(json_is_array(json_object_get(o, "incidents")) && json_array_size(json_object_get(o, "incidents")) == 0);
	json_decref(o);
	ASSERT_STR_EQ(health_field("{\"healthy\":true,\"incidents\":3}", &h), "incidents");
	ASSERT_STR_EQ(health_field("{\"healthy\":true,\"incidents\":[1,2,3,4,5,6,7,8,9]}", &h), "incidents");
	ASSERT_STR_EQ(health_field("{\"healthy\":true,\"incidents\":[1,\"2\"]}", &h), "incidents[1]");
	ASSERT_STR_EQ(health_field("{\"healthy\":true,\"incidents\":[-1]}", &h), "incidents[0]");
	ASSERT_STR_EQ(health_field("{\"healthy\":true,\"incidents\":[1.5]}", &h), "incidents[0]");
}

/* One report after another, as POST /v1/nodes/{name}/health folds them. */
static void post(struct fw_health_report *node, bool healthy, fw_time at, bool first)
{
	struct fw_health_report h;

	memset(&h, 0, sizeof h);
	strcpy(h.node, "n1");
	h.healthy = healthy;
	h.at = at;
	h.nincidents = 5; /* whatever the body said is replaced */
	fw_history_follow(first ? NULL : node, &h);
	*node = h;
}

TEST(history_incidents_and_lemon)
{
	const fw_time day = 86400, now = 1000 * day;
	struct fw_health_config c;
	struct fw_health_report n;

	fw_health_config_default(&c);
	ASSERT_EQ(c.lemon_threshold, 3);
	ASSERT_EQ(c.lemon_window_s, 120 * day);
	post(&n, false, now - 50 * day, true); /* never reported: an incident */
	ASSERT_EQ(n.nincidents, 1);
	post(&n, false, now - 49 * day, false); /* the same outage */
	ASSERT_EQ(n.nincidents, 1);
	ASSERT_EQ(n.incident[0], now - 50 * day);
	post(&n, true, now - 48 * day, false);
	post(&n, false, now - 40 * day, false);
	ASSERT_EQ(n.nincidents, 2);
	ASSERT(!fw_history_is_lemon(&n, &c, now)); /* 2 < 3 */
	ASSERT_EQ(fw_history_recent(&n, &c, now), 2);
	post(&n, true, now - 39 * day, false); /* healthy (suspect or not) ends it */
	post(&n, false, now - 10 * day, false);
	ASSERT_EQ(n.nincidents, 3);
	ASSERT(fw_history_is_lemon(&n, &c, now));
	ASSERT_EQ(fw_history_recent(&n, &c, now), 3);
	/* time passes: the first incident leaves the 120-day window */
	ASSERT(fw_history_is_lemon(&n, &c, now + 69 * day));
	ASSERT(!fw_history_is_lemon(&n, &c, now + 71 * day));
	ASSERT_EQ(fw_history_recent(&n, &c, now + 71 * day), 2);
	/* an incident after now does not count yet */
	ASSERT_EQ(fw_history_recent(&n, &c, now - 20 * day), 2);
	c.lemon_threshold = 0; /* off */
	ASSERT(!fw_history_is_lemon(&n, &c, now));
}

TEST(history_keeps_the_last_eight)
{
	struct fw_health_report n;

	for (int i = 0; i < 11; i++) {
		post(&n, false, 100 + 10 * i, i == 0);
		post(&n, true, 105 + 10 * i, false);
	}
	ASSERT_EQ(n.nincidents, FW_HEALTH_INCIDENTS);
	ASSERT_EQ(n.incident[0], 130); /* the 4th: the first three forgotten */
	ASSERT_EQ(n.incident[FW_HEALTH_INCIDENTS - 1], 200);
	for (int i = 1; i < FW_HEALTH_INCIDENTS; i++)
		ASSERT(n.incident[i - 1] < n.incident[i]); /* oldest first */
}

/* A name is one URL path segment as it stands: letters, digits, '-', '_'
 * and '.', 1 to 63 bytes, and not "." or ".." (which a URL would climb
 * with); a body's name and a path's {name} go through the same check. */
TEST(names_are_one_path_segment)
{
	struct fw_queue_spec q;
	struct fw_diag d;
	char longest[FW_NAME_MAX];

	memset(longest, 'x', sizeof longest - 1);
	longest[sizeof longest - 1] = '\0';
	static const char *const good[] = { "a", "v1.2", "...", ".hidden", "a-b_c.d", "x." };
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		ASSERT_EQ(fw_codec_name_check(good[i], "name", NULL), FW_OK);
	ASSERT_EQ(fw_codec_name_check(longest, "name", NULL), FW_OK);
	static const char *const bad[] = { "", ".", "..", "../queues/q", "a/b", "a%2Fb", "a b", "caf\xc3\xa9" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_codec_name_check(bad[i], "name", &d), FW_EINVAL);
		ASSERT_STR_EQ(d.field, "name");
	}
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_name_check("..", "id", &d), FW_EINVAL);
	ASSERT_STR_EQ(d.msg, "must not be \"..\" (a name is one URL path segment)");
	ASSERT_STR_EQ(d.field, "id");
	ASSERT_STR_EQ(queue_field("{\"name\":\"..\"}", &q), "name");
	ASSERT_STR_EQ(queue_field("{\"name\":\"a\",\"parent\":\".\"}", &q), "parent");
	ASSERT_STR_EQ(queue_field("{\"name\":\"v1.2\"}", &q), "");
}

/* tasks[i].slice: {size, required}, the size dividing the count, the
 * level one of the cluster's (or node); it dumps and parses back, and a
 * group without one dumps none. */
TEST(job_slices)
{
	static const struct fw_topology levels = { 2, { "block", "rack" } };
	struct fw_backend_job j, k;
	struct fw_label js[FW_BACKEND_SEL_MAX], ks[FW_BACKEND_SEL_MAX];

	j.sel = js;
	k.sel = ks;
	struct fw_diag d;
	json_t *o = body("{\"queue\":\"q\",\"tasks\":[{\"count\":8,\"gpus\":4,\"slice\":{\"size\":4,"
			 "\"required\":\"rack\"}},{\"gpus\":1},{\"count\":2,\"gpus\":1,\"slice\":{\"size\":2,"
			 "\"required\":\"node\"}}]}");

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_job_parse(o, &levels, &j, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(j.slice[0], 4);
	ASSERT_EQ(j.slice_level[0], 1);
	ASSERT_EQ(j.slice[1], 0);
	ASSERT_EQ(j.slice[2], 2);
	ASSERT_EQ(j.slice_level[2], FW_LEVEL_NODE);
	o = fw_codec_job_dump(&j, &levels);
	ASSERT(!json_object_get(json_array_get(json_object_get(o, "tasks"), 1), "slice"));
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_object_get(json_array_get(json_object_get(o, "tasks"), 0), "slice"), "required")),
		      "rack");
	ASSERT_EQ(fw_codec_job_parse(o, &levels, &k, &d), FW_OK);
	json_decref(o);
	ASSERT_EQ(memcmp(k.slice, j.slice, sizeof j.slice), 0);
	ASSERT_EQ(memcmp(k.slice_level, j.slice_level, sizeof j.slice_level), 0);

	static const char *const bad[][2] = {
		{ "{\"size\":3,\"required\":\"rack\"}", "tasks[0].slice.size" },   /* 3 does not divide 8 */
		{ "{\"size\":0,\"required\":\"rack\"}", "tasks[0].slice.size" },
		{ "{\"required\":\"rack\"}", "tasks[0].slice.size" },
		{ "{\"size\":4}", "tasks[0].slice.required" },
		{ "{\"size\":4,\"required\":\"zone\"}", "tasks[0].slice.required" },
		{ "{\"size\":4,\"required\":\"rack\",\"x\":1}", "tasks[0].slice.x" },
		{ "4", "tasks[0].slice" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char b[256];
		snprintf(b, sizeof b, "{\"queue\":\"q\",\"tasks\":[{\"count\":8,\"gpus\":4,\"slice\":%s}]}", bad[i][0]);
		o = body(b);
		ASSERT_NE(fw_codec_job_parse(o, &levels, &j, &d), FW_OK);
		json_decref(o);
		ASSERT_STR_EQ(d.field, bad[i][1]);
	}
}

/* A number no double or 64-bit integer holds: jansson refuses the body
 * while it parses; the refusal names the member holding it, nested or in
 * an array, and says the number; when no one member can be named (the
 * body is the number, two of them, the body broken around it) it names
 * the body with the line and column. */
TEST(body_number_out_of_range_names_its_member)
{
	static const struct {
		const char *body, *field, *says;
	} cases[] = {
		{ "{\"priority\":3,\"gpuHourBudget\":1e400}", "gpuHourBudget", "is out of range: 1e400 does not fit" },
		{ "{\n  \"parent\": \"org\",\n  \"gpuHourBudget\": -1E+999\n}", "gpuHourBudget", ": -1E+999 does" },
		{ "{\"priority\":99999999999999999999}", "priority", ": 99999999999999999999 does" },
		{ "{\"queue\":\"q\",\"tasks\":[{\"gpus\":1},{\"gpus\":2e400,\"count\":1}]}", "tasks[1].gpus", "2e400" },
		{ "{\"deserved\":{\"gpu\":1e400}}", "deserved.gpu", "1e400" },
		{ "{\"nodes\":[\"a\",1e-2,123456789012345678901234567890123]}", "nodes[2]",
		  ": 123456789012345678901234... does" },
		{ "1e400", "body", "has a number out of range at line 1, column 5" },
		{ "{\"a\":1e400,\n\"b\":1e400}", "body", "at line 1, column 10" },
		{ "{\"a\":1e400,\"b\":\"\\u0001fairway: the number out of range\\u0001\"}", "body", "at line 1" },
		{ "{\"a\":1-1e400}", "body", "at line 1" },
		{ "[\"unclosed\",1e400", "body", "out of range" },
	};
	struct fw_diag d;
	json_t *o = NULL;

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_codec_body(cases[i].body, strlen(cases[i].body), &o, &d), FW_ERANGE);
		ASSERT_STR_EQ(d.field, cases[i].field);
		if (!strstr(d.msg, cases[i].says))
			FW_TEST__FAIL("%s: \"%s\" does not say \"%s\"", cases[i].body, d.msg, cases[i].says);
	}
	/* a tiny number is not out of range: it reads as 0 */
	ASSERT_EQ(fw_codec_body("{\"a\":1e-400}", 12, &o, &d), FW_OK);
	ASSERT(json_real_value(json_object_get(o, "a")) == 0);
	json_decref(o);
	/* other broken JSON keeps its own words */
	ASSERT_EQ(fw_codec_body("{\"a\":1.}", 8, &o, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "body");
	ASSERT(strstr(d.msg, "not valid JSON at byte") != NULL);
}

/* Free text shown in table lines: a user is one word (no whitespace, no
 * control characters), a reason one line (spaces but no control
 * characters); the refusal names the field and the byte. */
TEST(free_text_has_no_control_characters)
{
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_text_check("alice", "user", true, &d), FW_OK);
	ASSERT_EQ(fw_codec_text_check("", "user", true, &d), FW_OK);
	ASSERT_EQ(fw_codec_text_check("al@corp.example", "user", true, &d), FW_OK);
	ASSERT_EQ(fw_codec_text_check("x\ty\nz", "user", true, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "user");
	ASSERT_STR_CONTAINS(d.msg, "has a tab at byte 1; it must be one word");
	ASSERT_EQ(fw_codec_text_check("al ice", "user", true, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "has a space at byte 2");
	ASSERT_EQ(fw_codec_text_check("rack power work", "reason", false, &d), FW_OK);
	ASSERT_EQ(fw_codec_text_check("power\nwork", "reason", false, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "reason");
	ASSERT_STR_CONTAINS(d.msg, "has a newline at byte 5; write it on one line");
	ASSERT_EQ(fw_codec_text_check("a\x1b[2J", "reason", false, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "has byte 0x1b at byte 1");
	ASSERT_EQ(fw_codec_text_check("a\x7f", "reason", false, &d), FW_EINVAL);
}

/* Past ASCII: C1 controls, Unicode line breaks, odd spaces and
 * bidirectional controls are refused in both kinds of text; letters of
 * any script pass. */
TEST(free_text_has_no_unicode_controls_or_odd_spaces)
{
	static const struct {
		const char *text, *what;
	} bad[] = {
		{ "a\xc2\x9b" "2J", "U+009B (a C1 control character) at byte 1" },
		{ "a\xc2\x85z", "U+0085 (a C1 control character)" },
		{ "a\xe2\x80\xa8z", "U+2028 (a line separator)" },
		{ "a\xe2\x80\xa9z", "U+2029 (a paragraph separator)" },
		{ "a\xc2\xa0z", "U+00A0 (a non-ASCII space)" },
		{ "a\xe3\x80\x80z", "U+3000 (a non-ASCII space)" },
		{ "a\xe2\x80\xaez", "U+202E (a bidirectional control)" },
		{ "a\xe2\x80\xaaz", "U+202A (a bidirectional control)" },
		{ "a\xe2\x81\xa6z", "U+2066 (a bidirectional control)" },
		{ "a\xe2\x81\xa9z", "U+2069 (a bidirectional control)" },
		{ "a\xe2\x80\x8bz", "U+200B (an invisible formatting character)" },
		{ "a\xef\xbb\xbfz", "U+FEFF (an invisible formatting character)" },
		{ "a\xffz", "byte 0xff, which is not UTF-8" },
		{ "a\xe2\x80", "byte 0xe2, which is not UTF-8" },
	};
	struct fw_diag d;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_codec_text_check(bad[i].text, "user", true, &d), FW_EINVAL);
		ASSERT_STR_EQ(d.field, "user");
		ASSERT_STR_CONTAINS(d.msg, bad[i].what);
		ASSERT_STR_CONTAINS(d.msg, "one word");
		memset(&d, 0, sizeof d);
		ASSERT_EQ(fw_codec_text_check(bad[i].text, "reason", false, &d), FW_EINVAL);
		ASSERT_STR_EQ(d.field, "reason");
		ASSERT_STR_CONTAINS(d.msg, bad[i].what);
		ASSERT_STR_CONTAINS(d.msg, "one line");
	}
	ASSERT_EQ(fw_codec_text_check("j\xc3\xbcrgen", "user", true, &d), FW_OK);          /* jürgen */
	ASSERT_EQ(fw_codec_text_check("\xe7\x8e\x8b\xe4\xbc\x9f", "user", true, &d), FW_OK); /* CJK */
	ASSERT_EQ(fw_codec_text_check("GPU \xe2\x80\x94 f\xc3\xa4llt aus \xf0\x9f\x94\xa5", "reason", false, &d),
		  FW_OK); /* an em dash, a-umlaut, an emoji */
}

/* "array" (sbatch --array): Slurm's forms, ascending and each once; every
 * refusal names array and says what to write. */
TEST(job_array_forms)
{
	static const struct {
		const char *spec;
		int n, first, last;
	} good[] = {
		{ "7", 1, 7, 7 },          { "0-99", 100, 0, 99 },     { "0-99:10", 10, 0, 90 },
		{ "1,3,5-7", 5, 1, 7 },    { "5,1,1,0-2", 4, 0, 5 },   { "0-1000", 1001, 0, 1000 },
		{ "3-3", 1, 3, 3 },        { "10-0:1,4", 0, 0, 0 },
	};
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "0-9%2", "throttle" },    { "9-2", "lower index first" }, { "0-1001", "from 0 to 1000" },
		{ "", "is empty: give the task indices" }, { "1,", "\"1,\": item 2 of the list is empty" },
		{ "1,,2", "\"1,,2\": item 2 of the list is empty" }, { ",1", "\",1\": item 1 of the list is empty" },
		{ "-3", "not an index list" },
		{ "0-9:0", "not an index list" }, { "0-9:x", "not an index list" }, { "1 ,2", "not an index list" },
		{ "99999999999999999999", "from 0 to 1000" },
	};
	struct fw_job_array *a = malloc(sizeof *a);
	struct fw_diag d;
	char b[128];

	ASSERT(a != NULL);
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		snprintf(b, sizeof b, "{\"array\": \"%s\"}", good[i].spec);
		json_t *o = body(b);
		memset(&d, 0, sizeof d);
		int rc = fw_codec_array_parse(o, a, &d);
		json_decref(o);
		if (good[i].n == 0) { /* 10-0 reversed: refused, for all the rest being right */
			ASSERT_EQ(rc, FW_EINVAL);
			ASSERT_STR_EQ(d.field, "array");
			continue;
		}
		ASSERT_EQ(rc, FW_OK);
		ASSERT_EQ(a->n, good[i].n);
		ASSERT_EQ(a->idx[0], good[i].first);
		ASSERT_EQ(a->idx[a->n - 1], good[i].last);
		for (int k = 1; k < a->n; k++)
			ASSERT(a->idx[k] > a->idx[k - 1]);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(b, sizeof b, "{\"array\": \"%s\"}", bad[i].spec);
		json_t *o = body(b);
		memset(&d, 0, sizeof d);
		ASSERT(fw_codec_array_parse(o, a, &d) != FW_OK);
		json_decref(o);
		ASSERT_STR_EQ(d.field, "array");
		ASSERT_STR_CONTAINS(d.msg, bad[i].says);
	}
	json_t *o = body("{\"queue\": \"q\"}");
	ASSERT_EQ(fw_codec_array_parse(o, a, &d), FW_OK);
	ASSERT_EQ(a->n, 0); /* no "array": a job of its own */
	json_decref(o);
	free(a);
}

/* A job's document holds "array" to its form and keeps nothing of it
 * (the API reads it); arrayOf is no field of a client's job. */
TEST(job_array_in_a_job_document)
{
	struct fw_backend_job_room r;
	struct fw_backend_job *j = fw_backend_job_room(&r);

	ASSERT_STR_EQ(job_field("{\"name\": \"s\", \"queue\": \"q\", \"tasks\": [{\"gpus\": 1}], \"array\": \"0-9\"}", j), "");
	ASSERT_STR_EQ(j->array_of, "");
	json_t *o = fw_codec_job_dump(j, NULL);
	ASSERT(json_object_get(o, "array") == NULL && json_object_get(o, "arrayOf") == NULL);
	json_decref(o);
	ASSERT_STR_EQ(job_field("{\"queue\": \"q\", \"tasks\": [{\"gpus\": 1}], \"array\": \"0-9%2\"}", j), "array");
	ASSERT_STR_EQ(job_field("{\"queue\": \"q\", \"tasks\": [{\"gpus\": 1}], \"arrayOf\": \"s\"}", j), "arrayOf");
}

/* A range's bounds in a refusal are written as a client flag takes
 * them: 1000000, not 1e+06 (which the CLI refuses as an exponent), and a
 * fraction as itself.  msg_of: the refusal's message of body s. */
static const char *msg_of(const char *s, bool queue)
{
	static struct fw_diag d;
	static struct fw_backend_job_room room;
	struct fw_queue_spec q;
	struct fw_backend_job *j = fw_backend_job_room(&room);
	json_t *o = body(s);

	memset(&d, 0, sizeof d);
	if (queue)
		fw_codec_queue_parse(o, NULL, &q, &d);
	else
		fw_codec_job_parse(o, NULL, j, &d);
	json_decref(o);
	return d.msg;
}

TEST(range_refusals_write_plain_numbers)
{
	ASSERT_STR_EQ(msg_of("{\"name\":\"a\",\"deserved\":{\"gpu\":-5}}", true), "must be between 0 and 1000000");
	ASSERT_STR_EQ(msg_of("{\"name\":\"a\",\"overQuotaWeight\":{\"gpu\":-1}}", true), "must be between 0 and 1000000");
	ASSERT_STR_EQ(msg_of("{\"name\":\"a\",\"usage\":-1}", true), "must be between 0 and 1000000000000000000");
	ASSERT_STR_EQ(msg_of("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1,\"cpu\":-1}]}", false),
		      "must be between 0 and 10000000");
	ASSERT_STR_EQ(msg_of("{\"queue\":\"q\",\"tasks\":[{\"gpus\":1,\"gpuFraction\":2}]}", false),
		      "must be between 0.001 and 1");
	ASSERT_STR_EQ(msg_of("{\"name\":\"a\",\"deserved\":{\"gpu\":1000000},\"limit\":{\"gpu\":2.5}}", true),
		      "limit.gpu (2.5) is below deserved.gpu (1000000): raise the limit, or lower deserved");
}

/* A stored queue (not an API body) with more than 6 decimals comes back
 * rounded to 6 (fw_codec_queue_round_fine: the restore's, so a store
 * written before the API refused them loses nothing), naming each value
 * it rounded; 6 decimals or fewer, and values not numbers, stay as they
 * are (the parse then names what is wrong). */
TEST(a_stored_queue_finer_than_millionths_is_rounded_not_refused)
{
	json_t *o = body("{\"name\":\"a\",\"overQuotaWeight\":{\"gpu\":1.2345678,\"cpu\":2.5},"
			 "\"gpuHourBudget\":10.0000004}");
	struct fw_queue_spec q;
	struct fw_diag d;
	char what[256];

	ASSERT_EQ(fw_codec_queue_round_fine(o, what, sizeof what), 2);
	ASSERT_STR_EQ(what, "overQuotaWeight.gpu 1.2345678 -> 1.234568; gpuHourBudget 10.0000004 -> 10");
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_queue_parse(o, NULL, &q, &d), FW_OK);
	ASSERT(q.weight[FW_RES_GPU] == 1.234568 && q.weight[FW_RES_CPU] == 2.5 && q.gpu_hour_budget == 10);
	ASSERT_EQ(fw_codec_queue_round_fine(o, what, sizeof what), 0); /* rounded once is exact */
	ASSERT_STR_EQ(what, "");
	json_decref(o);
	o = body("{\"name\":\"a\",\"overQuotaWeight\":{\"gpu\":\"x\"},\"gpuHourBudget\":12.345678}");
	ASSERT_EQ(fw_codec_queue_round_fine(o, what, sizeof what), 0);
	ASSERT(json_number_value(json_object_get(o, "gpuHourBudget")) == 12.345678);
	json_decref(o);
}

/* A token file's token, as the daemon, `fairway` and fairway-agent all
 * read it: the first line's first word, whole.  Before, each side cut it
 * at its own buffer (the daemon at 255 bytes, `fairway` at 299, the agent
 * at 511), so a 300-byte token was answered 401 with no word of why. */
TEST(token_file_is_read_whole_or_refused)
{
	char tok[FW_TOKEN_MAX], big[FW_TOKEN_MAX + 1];
	struct fw_diag d;

	ASSERT_EQ(fw_codec_token_parse("3f9a0c1d2e4b5a69\n", 17, tok, NULL), FW_OK);
	ASSERT_STR_EQ(tok, "3f9a0c1d2e4b5a69");
	ASSERT_EQ(fw_codec_token_parse("abc\r\nrest", 10, tok, NULL), FW_OK);
	ASSERT_STR_EQ(tok, "abc");
	ASSERT_EQ(fw_codec_token_parse("abc # the agents' token", 23, tok, NULL), FW_OK);
	ASSERT_STR_EQ(tok, "abc");
	ASSERT_EQ(fw_codec_token_parse("abcdef", 3, tok, NULL), FW_OK); /* len bytes, no NUL needed */
	ASSERT_STR_EQ(tok, "abc");
	memset(big, 'x', sizeof big);
	ASSERT_EQ(fw_codec_token_parse(big, FW_TOKEN_MAX - 1, tok, NULL), FW_OK);
	ASSERT_EQ((long)strlen(tok), FW_TOKEN_MAX - 1);
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_codec_token_parse(big, FW_TOKEN_MAX, tok, &d), FW_ERANGE); /* never cut */
	ASSERT_STR_EQ(tok, "");
	ASSERT_STR_EQ(d.msg, "the token is longer than the 255 bytes a token may have; write a shorter one (e.g. "
			     "head -c 32 /dev/urandom | base64)");
	ASSERT_EQ(fw_codec_token_parse("ab\0cd\n", 6, tok, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.msg, "the token's byte 2 is 0x00, not printable ASCII, which is all a token may hold; write "
			     "letters, digits and punctuation (e.g. head -c 32 /dev/urandom | base64)");
	ASSERT_EQ(fw_codec_token_parse("t\xc3\xb6ken", 6, tok, &d), FW_EINVAL);
	ASSERT_EQ(fw_codec_token_parse("\nabc\n", 5, tok, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.msg, "the first line is empty; write the token alone on the first line");
	ASSERT_EQ(fw_codec_token_parse("  abc\n", 6, tok, &d), FW_EINVAL);
	ASSERT_EQ(fw_codec_token_parse("", 0, tok, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "token");
}

TEST_MAIN(token_file_is_read_whole_or_refused, queue_units_and_defaults, queue_refusals_name_the_field, queue_gpu_model_limits, queue_gpu_hour_budget,
	  queue_weight_and_budget_refuse_finer_than_millionths, a_stored_queue_finer_than_millionths_is_rounded_not_refused, queue_gpu_model_deserved, job_parse_and_round_trip, job_node_selector, job_slices, job_exit_code, job_checkpoint_interval, job_max_runtime,
	  whole_reals_are_whole_numbers, bad_gpus_whole_reals_and_the_nodes_range, reservation_and_health_refusals, every_refusal_names_its_field, health_incidents_stored_form, history_incidents_and_lemon,
	  history_keeps_the_last_eight, names_are_one_path_segment, body_number_out_of_range_names_its_member,
	  free_text_has_no_control_characters, free_text_has_no_unicode_controls_or_odd_spaces, job_array_forms,
	  job_array_in_a_job_document, range_refusals_write_plain_numbers, job_dump_shows_every_member_submitted)
