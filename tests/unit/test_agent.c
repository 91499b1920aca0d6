/*
 * test_agent.c — how fairway-agent folds reports into health over time
 * (agent/report.h), with reports built by hand at chosen times: a link
 * that stays down is one fault, re-asserted only when its probation would
 * end; a link that goes down again after coming back is a second fault;
 * a lost GPU is unhealthy and masked, an unread one is not judged; a GPU
 * seen reset goes on probation, or back to unhealthy if the fault stays;
 * a pending row remap is one transient fault while it stays, a failed one
 * is fatal and outlasts a reset, and an XID of the same fault in the same
 * report is not counted twice.  And how a saved report is read: a value
 * no agent writes is refused, naming the field with the GPU's place in
 * the list; GPUs are read into their index.
 */
#include "fairway/err.h"
#include "harness.h"
#include "report.h"

#define H 3600

struct agent {
	struct fw_health_config c;
	struct fw_health_rec node, gpu[FW_AGENT_MAX_GPUS];
};

static void agent_init(struct agent *a)
{
	fw_health_config_default(&a->c);
	fw_health_rec_init(&a->node);
	for (int i = 0; i < FW_AGENT_MAX_GPUS; i++)
		fw_health_rec_init(&a->gpu[i]);
}

/* A report of one GPU at time t with `down` links down, of which `fresh`
 * went down since the report before. */
static struct fw_agent_report one_gpu(int64_t t, uint32_t down, uint32_t fresh)
{
	struct fw_agent_report r;

	memset(&r, 0, sizeof r);
	r.time = t;
	r.available = true;
	r.ngpus = 1;
	r.gpu[0].nvlink_up = 4 - __builtin_popcount(down);
	for (int l = 0; l < 4; l++)
		if (down & (1u << l))
			r.gpu[0].nvlink_down[r.gpu[0].ndown++] = l;
	r.gpu[0].down_new = fresh;
	return r;
}

static struct fw_agent_report fold(struct agent *a, int64_t t, uint32_t down, uint32_t fresh)
{
	struct fw_agent_report r = one_gpu(t, down, fresh);

	fw_agent_fold(&a->c, &a->node, a->gpu, &r);
	return r;
}

TEST(a_link_that_stays_down_is_one_fault)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	r = fold(&a, 0, 1u << 2, 1u << 2);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.gpu[0].until, 6 * H);
	for (int64_t t = 60; t < 6 * H; t += 600) { /* still down: no new fault */
		r = fold(&a, t, 1u << 2, 0);
		ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
		ASSERT_EQ(r.gpu[0].until, 6 * H);
	}
	ASSERT_EQ(a.gpu[0].strikes, 1);
	r = fold(&a, 6 * H - 1, 0, 0); /* back up: probation runs out */
	ASSERT_EQ(r.gpu[0].until, 6 * H);
	r = fold(&a, 6 * H, 0, 0);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_HEALTHY);
}

TEST(a_link_still_down_when_probation_ends_is_asserted_again)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	fold(&a, 0, 1u << 2, 1u << 2);
	r = fold(&a, 6 * H, 1u << 2, 0); /* probation over, link still down */
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(a.gpu[0].strikes, 2);
	ASSERT_EQ(r.gpu[0].until, 6 * H + a.c.flap_hold_s); /* down 6 h: the flap hold */
}

TEST(a_link_that_comes_back_and_drops_again_is_a_second_fault)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	fold(&a, 0, 1u << 1, 1u << 1);
	fold(&a, 60, 0, 0);
	r = fold(&a, 120, 1u << 1, 1u << 1);
	ASSERT_EQ(a.gpu[0].strikes, 2);
	ASSERT_EQ(r.gpu[0].until, 120 + a.c.flap_hold_s);
}

TEST(a_lost_gpu_is_unhealthy_and_an_unread_one_is_not_judged)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	memset(&r, 0, sizeof r);
	r.time = 100;
	r.ngpus = 3;
	r.gpu[1].lost = true;
	snprintf(r.gpu[1].unread, sizeof r.gpu[1].unread, "GPU is lost");
	snprintf(r.gpu[2].unread, sizeof r.gpu[2].unread, "Insufficient Permissions");
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_HEALTHY);
	ASSERT_EQ(r.gpu[1].health, FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(a.gpu[1].cause, FW_HEV_NOT_RESPONDING);
	ASSERT_EQ(r.gpu[2].health, FW_HEALTH_HEALTHY);
	ASSERT_EQ(a.gpu[2].last_seen, -1); /* no event at all */
	ASSERT_EQ(r.bad_mask, 1u << 1);
	ASSERT_EQ(r.suspect_mask, 0u);
}

TEST(a_gpu_seen_reset_goes_on_probation_or_back_to_unhealthy)
{
	struct agent a;
	struct fw_agent_report r = one_gpu(0, 0, 0);

	agent_init(&a);
	r.gpu[0].ecc_volatile = 2;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	r = one_gpu(H, 0, 0); /* reset: the count is back to 0 */
	r.gpu[0].reset = true;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.gpu[0].until, H + 6 * H);
	ASSERT_EQ(r.bad_mask, 0u);
	ASSERT_EQ(r.suspect_mask, 1u);
	r = one_gpu(2 * H, 0, 0); /* the operator's repair, the error still there */
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	r = one_gpu(3 * H, 0, 0);
	r.gpu[0].ecc_volatile = 5;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	r = one_gpu(4 * H, 0, 0);
	r.gpu[0].ecc_volatile = 5;
	r.gpu[0].reset = true;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(r.bad_mask, 1u);
}

TEST(a_gpu_lost_for_a_while_is_one_fault)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	for (int64_t t = 0; t <= 600; t += 60) { /* lost for 10 minutes */
		r = one_gpu(t, 0, 0);
		r.gpu[0].lost = true;
		fw_agent_fold(&a.c, &a.node, a.gpu, &r);
		ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	}
	ASSERT_EQ(a.gpu[0].strikes, 1);
	r = one_gpu(660, 0, 0); /* back after a reset: probation, not the flap hold */
	r.gpu[0].reset = true;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.gpu[0].until, 660 + 6 * H);
}

/* A report of one GPU at t with a row remap pending (new: since the
 * report before) and/or failed. */
static struct fw_agent_report remap(int64_t t, bool pending, bool fresh, bool failed)
{
	struct fw_agent_report r = one_gpu(t, 0, 0);

	r.gpu[0].remap_corr = 0;
	r.gpu[0].remap_unc = pending + failed;
	r.gpu[0].remap_pending = pending;
	r.gpu[0].remap_new = fresh;
	r.gpu[0].remap_failed = failed;
	return r;
}

TEST(a_pending_row_remap_is_one_transient_fault_until_a_reset)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	r = remap(0, true, true, false);
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(a.gpu[0].cause, FW_HEV_XID);
	ASSERT_EQ(a.gpu[0].cause_arg, 63);
	ASSERT_EQ(r.suspect_mask, 1u);
	for (int64_t t = 60; t < 6 * H; t += 600) { /* still pending: no new fault */
		r = remap(t, true, false, false);
		fw_agent_fold(&a.c, &a.node, a.gpu, &r);
		ASSERT_EQ(r.gpu[0].until, 6 * H);
	}
	ASSERT_EQ(a.gpu[0].strikes, 1);
	r = remap(6 * H, true, false, false); /* no reset by the end of probation */
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(a.gpu[0].strikes, 2);
	r = remap(6 * H + 60, false, false, false); /* reset: applied */
	r.gpu[0].reset = true;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(a.gpu[0].strikes, 2);
}

TEST(a_failed_row_remap_is_fatal_and_outlasts_a_reset)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	r = remap(0, true, true, true);
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(a.gpu[0].cause_arg, 64);
	ASSERT_EQ(r.bad_mask, 1u);
	for (int64_t t = 60; t <= 600; t += 60) {
		r = remap(t, true, false, true);
		fw_agent_fold(&a.c, &a.node, a.gpu, &r);
		ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	}
	ASSERT_EQ(a.gpu[0].strikes, 1);
	r = remap(H, false, false, true); /* reset: the pending remap applied, the failure stays */
	r.gpu[0].reset = true;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(r.bad_mask, 1u);
}

TEST(a_remap_and_its_xid_or_ecc_error_in_one_report_are_one_fault)
{
	struct agent a;
	struct fw_agent_report r;

	agent_init(&a);
	r = remap(0, true, true, false);
	r.gpu[0].xid[0] = 63;
	r.gpu[0].nxid = 1;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_SUSPECT);
	ASSERT_EQ(a.gpu[0].strikes, 1);
	ASSERT_EQ(r.gpu[0].until, 6 * H); /* probation, not the flap hold */
	agent_init(&a);
	r = remap(0, true, true, false); /* the ECC error the remap is for */
	r.gpu[0].ecc_volatile = 1;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(a.gpu[0].strikes, 1);
	r = remap(H, false, false, false); /* reset: applied, count back to 0 */
	r.gpu[0].ecc_volatile = 0;
	r.gpu[0].reset = true;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].until, H + 6 * H); /* probation, not the flap hold */
	agent_init(&a);
	r = remap(0, false, false, false); /* no counters (-1): judged without */
	r.gpu[0].remap_corr = r.gpu[0].remap_unc = -1;
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.gpu[0].health, FW_HEALTH_HEALTHY);
}

/* ---- reading a report (fw_agent_from_json): each refusal names the field
 * with the GPU's position in the list ---------------------------------- */

#define GPU(i, extra) "{\"index\":" #i ",\"xid\":[],\"nvlink\":{\"up\":0,\"down\":[]}" extra "}"

/* The refusal of text as a report ("" when it was read). */
static const char *refusal(const char *text)
{
	static char why[256];
	static struct fw_agent_report r;
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	ASSERT(j != NULL);
	why[0] = '\0';
	if (fw_agent_from_json(j, &r, why, sizeof why) == FW_OK)
		why[0] = '\0';
	else
		ASSERT(why[0] != '\0');
	json_decref(j);
	return why;
}

TEST(a_negative_ecc_count_is_refused_naming_the_gpu)
{
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, "") "," GPU(1, "") "," GPU(2, ",\"ecc_uncorrectable\":{\"volatile\":-1,\"aggregate\":0}") "]}"),
			    "gpus[2].ecc_uncorrectable.volatile: must be >= 0");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, ",\"ecc_uncorrectable\":{\"volatile\":0,\"aggregate\":\"x\"}") "]}"),
			    "gpus[0].ecc_uncorrectable.aggregate: must be a whole number >= 0");
	ASSERT_STR_EQ(refusal("{\"time\":5,\"gpus\":[" GPU(0, ",\"ecc_uncorrectable\":{\"volatile\":null,\"aggregate\":3}") "]}"), "");
}

TEST(a_gpu_index_twice_or_beyond_the_list_is_refused)
{
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, "") "," GPU(0, "") "]}"),
			    "gpus[1].index: GPU 0 is listed twice (also gpus[0])");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, "") "," GPU(99, "") "]}"),
			    "gpus[1].index: must be a GPU index from 0 to 1 (the report lists 2 GPUs)");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(-1, "") "]}"), "gpus[0].index: must be a GPU index from 0 to 0");
}

TEST(a_negative_time_or_a_gpu_without_lists_is_refused_by_position)
{
	ASSERT_STR_CONTAINS(refusal("{\"time\":-1,\"gpus\":[]}"), "time: must be >= 0");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, "") ",{\"index\":1,\"nvlink\":{\"down\":[]}}]}"),
			    "gpus[1].xid: must be a list");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, "") ",{\"index\":1,\"xid\":[]}]}"),
			    "gpus[1].nvlink.down: must be a list");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, ",\"xid\":[{\"code\":79,\"at\":-4}]") "]}"),
			    "gpus[0].xid[0].at: must be >= 0");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[{\"index\":0,\"xid\":[],\"nvlink\":{\"down\":[18]}}]}"),
			    "gpus[0].nvlink.down[0]: must be a link number from 0 to 17");
	ASSERT_STR_CONTAINS(refusal("{\"time\":5,\"gpus\":[" GPU(0, ",\"row_remap\":{\"correctable\":0,\"pending\":1}") "]}"),
			    "gpus[0].row_remap.pending: must be true or false");
}

/* GPUs listed out of order are read into their index: GPU 1's XID 79
 * makes bad_gpus [1], whatever its place in the list. */
TEST(gpus_are_read_by_index_and_the_verdict_names_the_index)
{
	struct agent a;
	struct fw_agent_report r;
	char why[256] = "";
	json_t *j = json_loads("{\"time\":100,\"gpus\":[" GPU(1, ",\"xid\":[{\"code\":79,\"at\":100}]") "," GPU(0, "") "]}",
			       0, NULL);

	ASSERT(j != NULL);
	ASSERT_EQ(fw_agent_from_json(j, &r, why, sizeof why), FW_OK);
	json_decref(j);
	ASSERT_EQ(r.ngpus, 2);
	ASSERT_EQ(r.gpu[1].nxid, 1);
	ASSERT_EQ(r.gpu[0].nxid, 0);
	agent_init(&a);
	fw_agent_fold(&a.c, &a.node, a.gpu, &r);
	ASSERT_EQ(r.bad_mask, 1u << 1);
}

TEST_MAIN(a_pending_row_remap_is_one_transient_fault_until_a_reset, a_failed_row_remap_is_fatal_and_outlasts_a_reset,
	  a_remap_and_its_xid_or_ecc_error_in_one_report_are_one_fault, a_gpu_lost_for_a_while_is_one_fault, a_gpu_seen_reset_goes_on_probation_or_back_to_unhealthy, a_link_that_stays_down_is_one_fault, a_link_still_down_when_probation_ends_is_asserted_again,
	  a_link_that_comes_back_and_drops_again_is_a_second_fault,
	  a_lost_gpu_is_unhealthy_and_an_unread_one_is_not_judged, a_negative_ecc_count_is_refused_naming_the_gpu,
	  a_gpu_index_twice_or_beyond_the_list_is_refused, a_negative_time_or_a_gpu_without_lists_is_refused_by_position,
	  gpus_are_read_by_index_and_the_verdict_names_the_index)
