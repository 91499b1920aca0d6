/*
 * bench_slurm.c — `fairway-slurm bench`: the Slurm adapter measured on a
 * live cluster (bench/bench_slurm.sh starts one and runs all three).
 *
 *   latency K     K times: submit one 1-GPU job (held by job_submit.lua),
 *                 run cycles until fairway starts it, then poll
 *                 slurm_load_job every 5 ms until it is RUNNING.  The
 *                 latency runs from the decision (the end of the cycle's
 *                 planning, just before apply) to RUNNING.  Prints the
 *                 median, p95 and max.
 *   throughput N  submit N 1-GPU `sleep 1` jobs, then cycle back to back
 *                 until every one has run; starts/s = N / (last job seen
 *                 running or done - first start decision).
 *   cycle N       submit N held 1-GPU `sleep 60` jobs, then 6 cycles: the
 *                 read (Slurm RPCs and the snapshot build), the core cycle
 *                 and the apply (RPCs), each in ms.
 * Jobs are submitted through libslurm (slurm_submit_batch_job) as the
 * account team_a, with a 1 minute limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "slurm_int.h"

static uint32_t submit(const char *script)
{
	static char *env[] = { "PATH=/usr/bin:/bin" };
	submit_response_msg_t *resp = NULL;
	job_desc_msg_t d;
	uint32_t id = 0;

	slurm_init_job_desc_msg(&d);
	d.name = "fw-bench";
	d.script = (char *)script;
	d.environment = env;
	d.env_size = 1;
	d.user_id = getuid();
	d.group_id = getgid();
	d.work_dir = "/tmp";
	d.std_out = "/dev/null";
	d.min_nodes = 1;
	d.time_limit = 1;
	d.account = "team_a";
	d.tres_per_node = "gres:gpu:1";
	if (slurm_submit_batch_job(&d, &resp) == SLURM_SUCCESS && resp) {
		id = resp->job_id;
		slurm_free_submit_response_response_msg(resp);
	}
	return id;
}

static uint32_t job_state(uint32_t id)
{
	job_info_msg_t *m = NULL;
	uint32_t st = JOB_PENDING;

	if (slurm_load_job(&m, id, SHOW_ALL) == SLURM_SUCCESS && m->record_count)
		st = m->job_array[0].job_state & JOB_STATE_BASE;
	slurm_free_job_info_msg(m);
	return st;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1e3), (long)((ms - (time_t)(ms / 1e3) * 1e3) * 1e6) };
	nanosleep(&ts, NULL);
}

/* Cycles until one starts a job; the decision time (before apply). */
static double cycle_until_start(struct fw_slurm_loop *l, double give_up_ms)
{
	for (long n = 1; fw_slurm_mono_ms() < give_up_ms; n++) {
		if (fw_slurm_loop_cycle(l, n) != FW_OK)
			return -1;
		if (l->nstarts > 0)
			return fw_slurm_mono_ms() - fw_slurm_stats(l->h)->apply_ms;
		sleep_ms(2);
	}
	return -1;
}

static int bench_latency(struct fw_slurm_loop *l, int k)
{
	double *lat = calloc((size_t)k, sizeof *lat), t_dec;
	int got = 0;

	for (int i = 0; lat && i < k; i++) {
		uint32_t id = submit("#!/bin/sh\nsleep 2\n");
		if (!id || (t_dec = cycle_until_start(l, fw_slurm_mono_ms() + 10e3)) < 0)
			continue;
		while (job_state(id) == JOB_PENDING && fw_slurm_mono_ms() - t_dec < 10e3)
			sleep_ms(5);
		lat[got++] = (fw_slurm_mono_ms() - t_dec) / 1e3;
		sleep_ms(137 + (i * 211) % 600); /* decorrelate from Slurm's 1 s tick */
	}
	if (got) {
		qsort(lat, (size_t)got, sizeof *lat, cmp_d);
		printf("latency decision->RUNNING over %d jobs: median %.3f s p95 %.3f s max %.3f s\n",
		       got, lat[got / 2], lat[(got * 95) / 100 < got ? (got * 95) / 100 : got - 1],
		       lat[got - 1]);
	}
	free(lat);
	return got == k ? 0 : 1;
}

/* Jobs of ids[0..n) seen running or finished so far. */
static int count_started(uint32_t lo, uint32_t hi)
{
	job_info_msg_t *m = NULL;
	int n = 0;

	if (slurm_load_jobs(0, &m, SHOW_ALL) != SLURM_SUCCESS)
		return -1;
	for (uint32_t i = 0; i < m->record_count; i++) {
		const slurm_job_info_t *j = &m->job_array[i];
		n += j->job_id >= lo && j->job_id <= hi &&
		     (j->job_state & JOB_STATE_BASE) != JOB_PENDING;
	}
	slurm_free_job_info_msg(m);
	return n;
}

static int bench_throughput(struct fw_slurm_loop *l, int n)
{
	uint32_t lo = 0, hi = 0;
	double t_first = -1, t_end;
	int started = 0;

	for (int i = 0; i < n; i++) {
		uint32_t id = submit("#!/bin/sh\nsleep 1\n");
		if (!id)
			return 1;
		lo = lo ? lo : id;
		hi = id;
	}
	for (long c = 1; started < n; c++) {
		if (fw_slurm_loop_cycle(l, c) != FW_OK)
			return 1;
		if (t_first < 0 && l->nstarts > 0)
			t_first = fw_slurm_mono_ms() - fw_slurm_stats(l->h)->apply_ms;
		started = count_started(lo, hi);
		if (t_first > 0 && fw_slurm_mono_ms() - t_first > 300e3)
			break;
		sleep_ms(50);
	}
	t_end = fw_slurm_mono_ms();
	printf("throughput: %d of %d 1-GPU jobs started in %.2f s = %.1f starts/s\n",
	       started, n, (t_end - t_first) / 1e3, started / ((t_end - t_first) / 1e3));
	return started == n ? 0 : 1;
}

static int bench_cycle(struct fw_slurm_loop *l, int n)
{
	const struct fw_slurm_stats *st = fw_slurm_stats(l->h);
	double t0 = fw_slurm_mono_ms();

	for (int i = 0; i < n; i++)
		if (!submit("#!/bin/sh\nsleep 60\n"))
			return 1;
	printf("submitted %d jobs in %.1f s\n", n, (fw_slurm_mono_ms() - t0) / 1e3);
	for (long c = 1; c <= 6; c++) {
		double t = fw_slurm_mono_ms(), total;
		if (fw_slurm_loop_cycle(l, c) != FW_OK)
			return 1;
		total = fw_slurm_mono_ms() - t;
		printf("cycle %ld: Slurm reads %.1f ms, snapshot+validate+check %.1f ms, "
		       "core cycle %.1f ms, apply %.1f ms (%d starts), comments %.1f ms "
		       "(%llu so far), total %.1f ms\n", c, st->read_ms,
		       total - st->read_ms - l->cycle_ms - st->apply_ms - st->annotate_ms,
		       l->cycle_ms, st->apply_ms, l->nstarts, st->annotate_ms,
		       (unsigned long long)st->comments, total);
		sleep_ms(1000);
	}
	return 0;
}

int fw_slurm_bench(struct fw_slurm_loop *l, const char *mode, const char *n)
{
	int k = n ? atoi(n) : 0;

	l->quiet = true;
	if (k <= 0 || !mode) {
		fprintf(stderr, "usage: fairway-slurm bench latency|throughput|cycle N --config FILE\n");
		return 2;
	}
	if (!strcmp(mode, "latency"))
		return bench_latency(l, k);
	if (!strcmp(mode, "throughput"))
		return bench_throughput(l, k);
	if (!strcmp(mode, "cycle"))
		return bench_cycle(l, k);
	fprintf(stderr, "fairway-slurm bench: unknown mode '%s'\n", mode);
	return 2;
}
