/*
 * test_health.c — the health state machine (health.h): one test per
 * transition T1..T14, the damping rules, the XID classes and the node view.
 */
#include "harness.h"
#include "fairway/health.h"

static struct fw_health_config cfg(void)
{
	struct fw_health_config c;

	fw_health_config_default(&c);
	return c;
}

static enum fw_health step(const struct fw_health_config *c, struct fw_health_rec *r,
			   enum fw_health_event_kind k, fw_time at, int64_t arg)
{
	struct fw_health_event ev = { k, at, arg };

	return fw_health_step(c, r, &ev);
}

static struct fw_health_rec rec_in(const struct fw_health_config *c, enum fw_health s, fw_time at)
{
	struct fw_health_rec r;

	fw_health_rec_init(&r);
	if (s == FW_HEALTH_SUSPECT)
		step(c, &r, FW_HEV_XID, at, 31 + 1); /* XID 32: transient */
	else if (s == FW_HEALTH_UNHEALTHY)
		step(c, &r, FW_HEV_XID, at, 79);
	else if (s == FW_HEALTH_DRAINING)
		step(c, &r, FW_HEV_DRAIN, at, 0);
	return r;
}

TEST(defaults_documented)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r;

	ASSERT_EQ(c.probation_s, 6 * 3600);
	ASSERT_EQ(c.flap_window_s, 7 * 86400);
	ASSERT_EQ(c.flap_threshold, 2);
	ASSERT_EQ(c.flap_hold_s, 3 * 86400);
	ASSERT_EQ(c.job_fail_threshold, 3);
	ASSERT_EQ(c.heartbeat_s, 0);
	ASSERT_EQ(c.lemon_window_s, 120 * 86400);
	ASSERT_EQ(c.lemon_threshold, 3);
	fw_health_rec_init(&r);
	ASSERT_EQ(r.state, FW_HEALTH_HEALTHY);
	ASSERT_EQ(r.last_seen, -1);
}

TEST(t1_healthy_transient_suspect)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_HEALTHY, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_NVLINK_DOWN, 1000, 3), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.until, 1000 + c.probation_s);
	ASSERT_EQ(r.since, 1000);
	ASSERT_EQ(r.cause, FW_HEV_NVLINK_DOWN);
	fw_health_rec_init(&r);
	ASSERT_EQ(step(&c, &r, FW_HEV_XID, 10, 62), FW_HEALTH_SUSPECT);
}

TEST(t2_healthy_fatal_unhealthy)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_HEALTHY, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_ECC_UNCORRECTABLE, 50, 1), FW_HEALTH_UNHEALTHY);
	fw_health_rec_init(&r);
	ASSERT_EQ(step(&c, &r, FW_HEV_XID, 50, 48), FW_HEALTH_UNHEALTHY);
	fw_health_rec_init(&r);
	ASSERT_EQ(step(&c, &r, FW_HEV_NOT_RESPONDING, 50, 0), FW_HEALTH_UNHEALTHY);
	/* a zero ECC count is no fault */
	fw_health_rec_init(&r);
	ASSERT_EQ(step(&c, &r, FW_HEV_ECC_UNCORRECTABLE, 50, 0), FW_HEALTH_HEALTHY);
}

TEST(t3_suspect_probation_ends)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_SUSPECT, 100);

	ASSERT_EQ(fw_health_tick(&c, &r, 100 + c.probation_s - 1), FW_HEALTH_SUSPECT);
	ASSERT_EQ(fw_health_tick(&c, &r, 100 + c.probation_s), FW_HEALTH_HEALTHY);
	ASSERT_EQ(r.since, 100 + c.probation_s);
	/* an OK report lets time act as well */
	r = rec_in(&c, FW_HEALTH_SUSPECT, 100);
	ASSERT_EQ(step(&c, &r, FW_HEV_OK, 100 + c.probation_s, 0), FW_HEALTH_HEALTHY);
}

TEST(t4_suspect_transient_restarts_probation)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_SUSPECT, 0);

	c.flap_threshold = 10; /* isolate the restart from flapping */
	ASSERT_EQ(step(&c, &r, FW_HEV_XID, 3600, 62), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.until, 3600 + c.probation_s);
	ASSERT_EQ(fw_health_tick(&c, &r, c.probation_s + 1), FW_HEALTH_SUSPECT);
}

TEST(t5_suspect_fatal_unhealthy)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_SUSPECT, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_XID, 60, 95), FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(r.cause_arg, 95);
}

TEST(t6_unhealthy_repaired_probation)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_UNHEALTHY, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_REPAIRED, 7200, 0), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.strikes, 1);
	ASSERT_EQ(r.until, 7200 + c.probation_s);
	ASSERT_EQ(fw_health_tick(&c, &r, 7200 + c.probation_s), FW_HEALTH_HEALTHY);
}

TEST(t7_drain_from_any_service_state)
{
	struct fw_health_config c = cfg();
	enum fw_health from[] = { FW_HEALTH_HEALTHY, FW_HEALTH_SUSPECT, FW_HEALTH_UNHEALTHY };

	for (int i = 0; i < 3; i++) {
		struct fw_health_rec r = rec_in(&c, from[i], 0);
		ASSERT_EQ(r.state, from[i]);
		ASSERT_EQ(step(&c, &r, FW_HEV_DRAIN, 10, 0), FW_HEALTH_DRAINING);
		ASSERT_EQ(r.cause, FW_HEV_DRAIN);
	}
}

TEST(t8_draining_repaired_probation)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_DRAINING, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_REPAIRED, 500, 0), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.until, 500 + c.probation_s);
}

TEST(t9_draining_fatal_unhealthy)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_DRAINING, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_ECC_UNCORRECTABLE, 20, 2), FW_HEALTH_UNHEALTHY);
}

TEST(t10_application_xid_changes_nothing)
{
	struct fw_health_config c = cfg();
	enum fw_health from[] = { FW_HEALTH_HEALTHY, FW_HEALTH_SUSPECT, FW_HEALTH_UNHEALTHY,
				  FW_HEALTH_DRAINING };
	int64_t app[] = { 13, 31, 43, 45 };

	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++) {
			struct fw_health_rec r = rec_in(&c, from[i], 0);
			int32_t strikes = r.strikes;
			ASSERT_EQ(step(&c, &r, FW_HEV_XID, 5, app[k]), from[i]);
			ASSERT_EQ(r.strikes, strikes);
		}
}

TEST(t11_unhealthy_fault_stays_and_strikes)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_UNHEALTHY, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_NVLINK_DOWN, 10, 0), FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(step(&c, &r, FW_HEV_XID, 20, 79), FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(r.strikes, 3);
	ASSERT_EQ(r.since, 0);
}

TEST(t12_missed_heartbeat_unhealthy)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_HEALTHY, 0);

	c.heartbeat_s = 300;
	step(&c, &r, FW_HEV_OK, 1000, 0);
	ASSERT_EQ(fw_health_tick(&c, &r, 1000 + c.heartbeat_s), FW_HEALTH_HEALTHY);
	ASSERT_EQ(fw_health_tick(&c, &r, 1001 + c.heartbeat_s), FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(r.cause, FW_HEV_NOT_RESPONDING);
	/* a record never seen does not time out; a draining one neither */
	fw_health_rec_init(&r);
	ASSERT_EQ(fw_health_tick(&c, &r, 1000000), FW_HEALTH_HEALTHY);
	r = rec_in(&c, FW_HEALTH_DRAINING, 0);
	ASSERT_EQ(fw_health_tick(&c, &r, 1000000), FW_HEALTH_DRAINING);
	/* heartbeat_s 0: never times out */
	c.heartbeat_s = 0;
	r = rec_in(&c, FW_HEALTH_HEALTHY, 0);
	step(&c, &r, FW_HEV_OK, 1, 0);
	ASSERT_EQ(fw_health_tick(&c, &r, 1000000), FW_HEALTH_HEALTHY);
}

TEST(t13_job_failures_below_threshold)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_HEALTHY, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_JOB_FAILURE, 100, 0), FW_HEALTH_HEALTHY);
	ASSERT_EQ(step(&c, &r, FW_HEV_JOB_FAILURE, 200, 0), FW_HEALTH_HEALTHY);
	ASSERT_EQ(r.job_failures, 2);
	/* the third within the window is a transient fault (T1) */
	ASSERT_EQ(step(&c, &r, FW_HEV_JOB_FAILURE, 300, 0), FW_HEALTH_SUSPECT);
	/* failures spread beyond the window are forgotten */
	r = rec_in(&c, FW_HEALTH_HEALTHY, 0);
	step(&c, &r, FW_HEV_JOB_FAILURE, 0, 0);
	step(&c, &r, FW_HEV_JOB_FAILURE, 10, 0);
	ASSERT_EQ(step(&c, &r, FW_HEV_JOB_FAILURE, c.job_fail_window_s, 0), FW_HEALTH_HEALTHY);
	ASSERT_EQ(r.job_failures, 1);
}

/* The words an adapter shows for a node job failures put on probation:
 * the time left, rounded up to the minute, never negative. */
TEST(job_fail_text_counts_the_time_left)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_HEALTHY, 0);
	char buf[128];

	step(&c, &r, FW_HEV_JOB_FAILURE, 100, 0);
	step(&c, &r, FW_HEV_JOB_FAILURE, 200, 0);
	ASSERT_EQ(step(&c, &r, FW_HEV_JOB_FAILURE, 300, 0), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.until, 300 + c.probation_s);
	fw_health_job_fail_text(&c, &r, 300, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: 3 job failures within 24 h (probation ends in 6 h 0 min)");
	fw_health_job_fail_text(&c, &r, r.until - 3601, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: 3 job failures within 24 h (probation ends in 1 h 1 min)");
	fw_health_job_fail_text(&c, &r, r.until - 59, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: 3 job failures within 24 h (probation ends in 1 min)");
	fw_health_job_fail_text(&c, &r, r.until + 5, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "fairway: 3 job failures within 24 h (probation ends in 0 min)");
}

TEST(t14_draining_transient_stays)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_DRAINING, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_NVLINK_DOWN, 30, 1), FW_HEALTH_DRAINING);
	ASSERT_EQ(r.strikes, 1);
}

TEST(damping_flapping_node_held_suspect)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_UNHEALTHY, 0); /* strike 1 */

	step(&c, &r, FW_HEV_REPAIRED, 3600, 0);
	ASSERT_EQ(r.until, 3600 + c.probation_s);      /* first fault: short */
	fw_health_tick(&c, &r, 3600 + c.probation_s);
	ASSERT_EQ(r.state, FW_HEALTH_HEALTHY);
	step(&c, &r, FW_HEV_XID, 86400, 79);           /* strike 2: flapping */
	ASSERT_EQ(step(&c, &r, FW_HEV_REPAIRED, 90000, 0), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.until, 90000 + c.flap_hold_s);
	ASSERT_EQ(fw_health_tick(&c, &r, 90000 + c.probation_s), FW_HEALTH_SUSPECT);
	ASSERT_EQ(fw_health_tick(&c, &r, 90000 + c.flap_hold_s), FW_HEALTH_HEALTHY);
}

TEST(damping_old_strikes_forgotten)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_UNHEALTHY, 0);

	step(&c, &r, FW_HEV_REPAIRED, 100, 0);
	fw_health_tick(&c, &r, 100 + c.probation_s);
	/* the next fault comes after the window: a fresh window, short hold */
	step(&c, &r, FW_HEV_XID, c.flap_window_s + 5, 62);
	ASSERT_EQ(r.strikes, 1);
	ASSERT_EQ(r.until, c.flap_window_s + 5 + c.probation_s);
}

/* A fault that finds the node in service is an incident; three within the
 * lemon window make a lemon; repeats inside one outage count once; old
 * incidents age out; threshold 0 turns it off. */
TEST(lemon_from_incident_history)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r;
	const fw_time D = 86400;

	fw_health_rec_init(&r);
	for (int i = 0; i < 3; i++) {
		ASSERT(!fw_health_is_lemon(&c, &r, i * 20 * D));
		step(&c, &r, FW_HEV_XID, i * 20 * D, 79);
		step(&c, &r, FW_HEV_XID, i * 20 * D + 60, 79);   /* same outage */
		step(&c, &r, FW_HEV_ECC_UNCORRECTABLE, i * 20 * D + 90, 2);
		ASSERT_EQ(r.incidents, i + 1);
		step(&c, &r, FW_HEV_REPAIRED, i * 20 * D + 4 * 3600, 0);
	}
	ASSERT(fw_health_is_lemon(&c, &r, 40 * D + 1));
	ASSERT(fw_health_is_lemon(&c, &r, 119 * D));    /* first incident at 0 */
	ASSERT(!fw_health_is_lemon(&c, &r, 120 * D));   /* ... ages out */
	c.lemon_threshold = 0;
	ASSERT(!fw_health_is_lemon(&c, &r, 41 * D));
	c.lemon_threshold = FW_HEALTH_INCIDENTS + 1;   /* more than remembered */
	ASSERT(!fw_health_is_lemon(&c, &r, 41 * D));
	/* the ring keeps the latest: ten transient faults a day apart */
	c = cfg();
	fw_health_rec_init(&r);
	for (int i = 0; i < 10; i++)
		step(&c, &r, FW_HEV_NVLINK_DOWN, 200 * D + i * D, 1);
	ASSERT_EQ(r.incidents, 10);
	ASSERT(fw_health_is_lemon(&c, &r, 210 * D));
	ASSERT(!fw_health_is_lemon(&c, &r, 209 * D + 120 * D));
}

TEST(repaired_on_healthy_is_noop)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec r = rec_in(&c, FW_HEALTH_HEALTHY, 0);

	ASSERT_EQ(step(&c, &r, FW_HEV_REPAIRED, 10, 0), FW_HEALTH_HEALTHY);
	r = rec_in(&c, FW_HEALTH_SUSPECT, 0);
	fw_time until = r.until;
	ASSERT_EQ(step(&c, &r, FW_HEV_REPAIRED, 10, 0), FW_HEALTH_SUSPECT);
	ASSERT_EQ(r.until, until);
}

TEST(xid_classes)
{
	ASSERT_EQ(fw_health_xid_class(13), FW_HCLASS_NONE);
	ASSERT_EQ(fw_health_xid_class(45), FW_HCLASS_NONE);
	ASSERT_EQ(fw_health_xid_class(79), FW_HCLASS_FATAL);
	ASSERT_EQ(fw_health_xid_class(48), FW_HCLASS_FATAL);
	ASSERT_EQ(fw_health_xid_class(63), FW_HCLASS_TRANSIENT);
	ASSERT_EQ(fw_health_xid_class(92), FW_HCLASS_TRANSIENT);
}

TEST(names_round_trip)
{
	for (int i = 0; i < FW_HEALTH_COUNT; i++)
		ASSERT_EQ(fw_health_from_name(fw_health_name(i)), i);
	for (int i = 0; i < FW_HEV_COUNT; i++)
		ASSERT_EQ(fw_health_event_from_name(fw_health_event_name(i)), i);
	ASSERT_STR_EQ(fw_health_name(FW_HEALTH_SUSPECT), "suspect");
	ASSERT_EQ(fw_health_from_name("sick"), -1);
}

TEST(node_view_per_gpu)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec node, gpu[8];
	enum fw_health st;
	uint32_t bad, sus;

	fw_health_rec_init(&node);
	for (int g = 0; g < 8; g++)
		fw_health_rec_init(&gpu[g]);
	step(&c, &gpu[2], FW_HEV_ECC_UNCORRECTABLE, 1, 1);
	fw_health_node_view(&node, gpu, 8, &st, &bad, &sus);
	ASSERT_EQ(st, FW_HEALTH_HEALTHY); /* the node keeps its other GPUs */
	ASSERT_EQ(bad, 1u << 2);
	ASSERT_EQ(sus, 0);
	step(&c, &gpu[5], FW_HEV_XID, 1, 62);
	fw_health_node_view(&node, gpu, 8, &st, &bad, &sus);
	ASSERT_EQ(st, FW_HEALTH_SUSPECT); /* a suspect GPU: big gangs avoid it */
	ASSERT_EQ(bad, 1u << 2);
	ASSERT_EQ(sus, 1u << 5);
	for (int g = 0; g < 8; g++)
		step(&c, &gpu[g], FW_HEV_XID, 2, 79);
	fw_health_node_view(&node, gpu, 8, &st, &bad, &sus);
	ASSERT_EQ(st, FW_HEALTH_UNHEALTHY);
	ASSERT_EQ(bad, 0xffu);
}

TEST(deterministic)
{
	struct fw_health_config c = cfg();
	struct fw_health_rec a, b;
	enum fw_health_event_kind ks[] = { FW_HEV_XID, FW_HEV_OK, FW_HEV_REPAIRED, FW_HEV_JOB_FAILURE,
					   FW_HEV_NVLINK_DOWN, FW_HEV_DRAIN, FW_HEV_ECC_UNCORRECTABLE };

	fw_health_rec_init(&a);
	fw_health_rec_init(&b);
	for (int i = 0; i < 200; i++) {
		struct fw_health_event ev = { ks[(i * 7) % 7 == 0 ? i % 7 : (i * 3) % 7], i * 977,
					      (i * 31) % 130 };
		fw_health_step(&c, &a, &ev);
		fw_health_step(&c, &b, &ev);
	}
	ASSERT(memcmp(&a, &b, sizeof a) == 0);
}

TEST_MAIN(defaults_documented, t1_healthy_transient_suspect, t2_healthy_fatal_unhealthy,
	  t3_suspect_probation_ends, t4_suspect_transient_restarts_probation,
	  t5_suspect_fatal_unhealthy, t6_unhealthy_repaired_probation,
	  t7_drain_from_any_service_state, t8_draining_repaired_probation,
	  t9_draining_fatal_unhealthy, t10_application_xid_changes_nothing,
	  t11_unhealthy_fault_stays_and_strikes, t12_missed_heartbeat_unhealthy,
	  t13_job_failures_below_threshold, t14_draining_transient_stays,
	  damping_flapping_node_held_suspect, damping_old_strikes_forgotten,
	  lemon_from_incident_history, repaired_on_healthy_is_noop, xid_classes, names_round_trip, node_view_per_gpu,
	  job_fail_text_counts_the_time_left, deterministic)
