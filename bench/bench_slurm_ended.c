/*
 * bench_slurm_ended.c — what does the Slurm backend's ended() op cost a
 * daemon cycle when slurmctld keeps thousands of ended jobs?
 *
 * slurmctld keeps a job's record for MinJobAge (300 s by default) after
 * it ends, NodeList and all, and every read of `fairway serve` on Slurm
 * lists those of its managed partitions (connectors/slurm/aside.c
 * fw_slurm_ended) so that GET /v1/jobs/ID can say where each one ran.
 * The daemon's cycle asks twice, under its state lock
 * (connectors/serve/cycle.c backend_ended): once for the counts, once
 * with arrays of that size.  This bench feeds that path a synthetic job
 * message, without a slurmctld, the way tests/unit/test_slurm.c does: a
 * handle whose cached job message is ours (slurm_int.h), one managed
 * partition "gpu".
 *
 * The message holds --jobs ended records (COMPLETED, a tenth FAILED or
 * CANCELLED, a twentieth cancelled before they ran: no NodeList) with
 * hostlists as slurmctld writes them, by job id, in tens:
 *   5 one node         gpu0042
 *   2 two nodes        gpu[0007-0008]
 *   2 eight nodes      gpu[0101-0108]
 *   1 sixty-five nodes gpu[0001-0064,0100]
 * (9 nodes a job on average; --wide: every job the 65-node one).  Each
 * cycle, --turnover percent of them leave (their MinJobAge is over) and
 * as many newly ended ones arrive, with new job ids, the message rebuilt
 * outside the timing.  One untimed warm-up cycle, then --cycles timed
 * ones, each as backend_ended does it: ended() for the counts, calloc
 * the arrays, ended() again to fill them, free (--reuse: the arrays
 * kept, so that the second call does not pay for their fresh pages).  It prints the median
 * and the max of the two ended() calls alone (wall clock, and the median
 * of their CPU time: the machine may be shared) and the median of the
 * whole step, and checks every cycle's names against the hostlists (a
 * wrong count or name exits 1).  The last line is machine-readable:
 *   ended_ms_p50=.. ended_ms_max=.. ended_cpu_ms_p50=.. step_ms_p50=..
 *   jobs=.. nodes=.. cycles=..
 *
 * Not a test: its figures depend on the machine (docs/performance.md).
 * Clocks and I/O are fine here (bench/ is evidence, not the core).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_int.h"

struct opts {
	int32_t jobs, cycles, turnover_pct;
	bool wide, reuse;
};

/* --reuse: the arrays kept from step to step (grown when short). */
struct bufs {
	struct fw_backend_ended *e;
	char (*names)[FW_NAME_MAX];
	int32_t ecap, ncap;
};

/* One synthetic job message: the records and the strings they point at. */
struct msg {
	job_info_msg_t m;
	char (*nodes)[40];      /* each record's NodeList */
	int64_t want_names;     /* the names the hostlists hold in all */
	uint32_t uid;           /* every job's user: ours (read.c names it) */
};

static double clock_ms(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* This thread's CPU time: what the cycle costs, whatever else runs on a
 * shared machine. */
static double cpu_ms(void)
{
	return clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

/* ---- the synthetic job message ------------------------------------- */

/* Job id's hostlist into buf (see the top: by id, in tens); how many
 * nodes it names. */
static int32_t hostlist_of(uint32_t id, bool wide, char *buf, size_t n)
{
	uint32_t at = (id * 7u) % 900u + 1u; /* where its nodes start */

	switch (wide ? 9 : id % 10) {
	case 5:
	case 6:
		snprintf(buf, n, "gpu[%04u-%04u]", at, at + 1u);
		return 2;
	case 7:
	case 8:
		snprintf(buf, n, "gpu[%04u-%04u]", at, at + 7u);
		return 8;
	case 9:
		snprintf(buf, n, "gpu[0001-0064,0100]");
		return 65;
	default:
		snprintf(buf, n, "gpu%04u", at);
		return 1;
	}
}

/* Record i of the message as job id, ended at end. */
static void job_at(struct msg *g, int32_t i, uint32_t id, bool wide)
{
	slurm_job_info_t *j = &g->m.job_array[i];
	bool never_ran = id % 20 == 3;

	memset(j, 0, sizeof *j);
	j->job_id = id;
	j->account = (char *)"team_a";
	j->partition = (char *)"gpu";
	j->user_id = g->uid;
	j->tres_per_node = (char *)"gres:gpu:8";
	j->num_nodes = 1;
	j->submit_time = 1700000000 - 7200;
	j->start_time = never_ran ? 0 : 1700000000 - 3600;
	j->end_time = 1700000000 + (time_t)id;
	j->job_state = never_ran ? JOB_CANCELLED : id % 10 == 4 ? JOB_FAILED : id % 10 == 2 ? JOB_CANCELLED
											   : JOB_COMPLETE;
	j->exit_code = j->job_state == JOB_FAILED ? 1u << 8 : 0;
	if (never_ran)
		return;
	g->want_names += hostlist_of(id, wide, g->nodes[i], sizeof g->nodes[i]);
	j->nodes = g->nodes[i];
}

/* The message of cycle c: job ids first .. first + jobs, where first
 * moves by the turnover each cycle. */
static void msg_fill(struct msg *g, const struct opts *o, int32_t c)
{
	uint32_t first = 1000000u + (uint32_t)c * (uint32_t)(o->jobs * o->turnover_pct / 100);

	g->want_names = 0;
	for (int32_t i = 0; i < o->jobs; i++)
		job_at(g, i, first + (uint32_t)i, o->wide);
	g->m.record_count = (uint32_t)o->jobs;
}

static int msg_init(struct msg *g, const struct opts *o)
{
	memset(g, 0, sizeof *g);
	g->uid = (uint32_t)getuid();
	g->m.job_array = calloc((size_t)o->jobs, sizeof *g->m.job_array);
	g->nodes = calloc((size_t)o->jobs, sizeof *g->nodes);
	return g->m.job_array && g->nodes ? 0 : -1;
}

/* ---- one cycle, as connectors/serve/cycle.c backend_ended ----------- */

/* The names of record i as its hostlist says (hostlist_of): does the
 * listed job name them, in order? */
static bool names_right(const struct fw_backend_ended *e, const char (*names)[FW_NAME_MAX], bool wide)
{
	uint32_t id = (uint32_t)strtoul(e->job, NULL, 10), at = (id * 7u) % 900u + 1u;
	char want[16];

	for (int32_t k = 0; k < e->nnodes; k++) {
		uint32_t num = (wide || id % 10 == 9) ? (k < 64 ? (uint32_t)k + 1u : 100u) : at + (uint32_t)k;
		snprintf(want, sizeof want, "gpu%04u", num);
		if (strcmp(names[e->node_first + k], want))
			return false;
	}
	return true;
}

/* What one step took, in ms: the two ended() calls (wall and this
 * thread's CPU) and the whole step with its arrays (wall). */
struct took {
	double ops, ops_cpu, step;
};

/* The arrays for n jobs and nn names: new ones, as the daemon's cycle
 * allocates them, or with --reuse b's, grown (and touched) when short. */
static void arrays(struct bufs *b, const struct opts *o, int32_t n, int32_t nn)
{
	if (!o->reuse) {
		b->e = calloc((size_t)(n > 0 ? n : 1), sizeof *b->e);
		b->names = calloc((size_t)nn + 1, sizeof *b->names);
		return;
	}
	if (n > b->ecap && b->e) {
		free(b->e);
		b->e = NULL;
	}
	if (nn + 1 > b->ncap && b->names) {
		free(b->names);
		b->names = NULL;
	}
	if (!b->e && (b->e = calloc((size_t)(n > 0 ? n : 1), sizeof *b->e)))
		b->ecap = n;
	if (!b->names && (b->names = calloc((size_t)nn + 1, sizeof *b->names)))
		b->ncap = nn + 1;
}

/* One step, its times into *t; false when the list is wrong. */
static bool step(struct fw_slurm *h, const struct msg *g, const struct opts *o, struct bufs *b, struct took *t)
{
	struct fw_backend_ended *e;
	char (*names)[FW_NAME_MAX];
	int32_t nn = 0, k = 0, n, n2;
	double t0 = now_ms(), c0 = cpu_ms(), t1, c1, t2, c2;
	bool ok;

	n = fw_slurm_ended(h, NULL, 0, NULL, 0, &nn);
	t1 = now_ms();
	c1 = cpu_ms();
	arrays(b, o, n, nn);
	e = b->e;
	names = b->names;
	t2 = now_ms();
	c2 = cpu_ms();
	n2 = e && names ? fw_slurm_ended(h, e, n, names, nn, &k) : -1;
	t->ops_cpu = (c1 - c0) + (cpu_ms() - c2);
	t->ops = (t1 - t0) + (now_ms() - t2);
	t->step = now_ms() - t0;
	ok = n == o->jobs && n2 == n && k == nn && nn == g->want_names;
	for (int32_t i = 0; ok && i < n; i++)
		ok = names_right(&e[i], (const char (*)[FW_NAME_MAX])names, o->wide);
	if (!o->reuse) {
		free(e);
		free(names);
		b->e = NULL;
		b->names = NULL;
	}
	return ok;
}

/* ---- main ----------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_slurm_ended [--jobs N] [--cycles N] [--turnover PCT] [--wide] [--reuse]\n"
		"\n"
		"Times the Slurm backend's ended() op (connectors/slurm/aside.c\n"
		"fw_slurm_ended) as the daemon's cycle calls it, on a synthetic job\n"
		"message of N ended jobs, without a slurmctld.\n"
		"\n"
		"  --jobs N        ended jobs slurmctld lists (default 10000)\n"
		"  --cycles N      timed cycles, after one untimed warm-up (default 21)\n"
		"  --turnover PCT  percent of the jobs replaced by newly ended ones\n"
		"                  between cycles (default 1: a 3 s cycle, MinJobAge 300 s)\n"
		"  --wide          every job on 65 nodes, gpu[0001-0064,0100] (default:\n"
		"                  a mix of 1, 2, 8 and 65 nodes, 9 on average)\n"
		"  --reuse         keep the arrays from cycle to cycle (default: new ones\n"
		"                  each cycle, as the daemon allocates them, whose fresh\n"
		"                  pages the second ended() call touches first)\n"
		"\n"
		"The last line is machine-readable:\n"
		"  ended_ms_p50=.. ended_ms_max=.. ended_cpu_ms_p50=.. step_ms_p50=.. jobs=.. nodes=.. cycles=..\n"
		"ended_ms: the two ended() calls (wall clock; ended_cpu_ms: this thread's\n"
		"CPU time in them); step_ms: with the arrays the daemon allocates between\n"
		"them.  Exits 1 when a cycle lists a wrong name.\n");
}

static bool int_arg(const char *v, int32_t lo, int32_t hi, int32_t *out)
{
	char *end;
	long x = v ? strtol(v, &end, 10) : 0;

	if (!v || *end || x < lo || x > hi)
		return false;
	*out = (int32_t)x;
	return true;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .jobs = 10000, .cycles = 21, .turnover_pct = 1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--wide")) {
			o->wide = true;
			continue;
		} else if (!strcmp(a, "--reuse")) {
			o->reuse = true;
			continue;
		} else if (!strcmp(a, "--jobs")) {
			ok = int_arg(v, 1, 1000000, &o->jobs);
		} else if (!strcmp(a, "--cycles")) {
			ok = int_arg(v, 1, 100000, &o->cycles);
		} else if (!strcmp(a, "--turnover")) {
			ok = int_arg(v, 0, 100, &o->turnover_pct);
		} else {
			ok = false;
		}
		if (!ok) {
			fprintf(stderr, "bench_slurm_ended: %s %s: not an option it takes, or its value out of range\n",
				a, v ? v : "");
			usage(stderr);
			return -1;
		}
		i++;
	}
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct msg g;
	struct fw_slurm *h = calloc(1, sizeof *h);
	double *ops, *cpu, *steps;
	struct took t, w = { 0 };
	struct bufs b = { 0 };
	int rc = 0;

	if (parse_args(argc, argv, &o) != 0)
		return 2;
	ops = calloc((size_t)o.cycles, sizeof *ops);
	cpu = calloc((size_t)o.cycles, sizeof *cpu);
	steps = calloc((size_t)o.cycles, sizeof *steps);
	if (!h || !ops || !cpu || !steps || msg_init(&g, &o) != 0) {
		fprintf(stderr, "bench_slurm_ended: out of memory\n");
		return 1;
	}
	snprintf(h->parts, sizeof h->parts, "gpu");
	h->jobs = &g.m;
	for (int32_t c = 0; c <= o.cycles && rc == 0; c++) {
		msg_fill(&g, &o, c);
		if (!step(h, &g, &o, &b, &t)) {
			fprintf(stderr, "bench_slurm_ended: cycle %d: the list is wrong\n", (int)c);
			rc = 1;
		} else if (c == 0) {
			w = t;
		} else {
			ops[c - 1] = t.ops;
			cpu[c - 1] = t.ops_cpu;
			steps[c - 1] = t.step;
		}
	}
	if (rc == 0) {
		qsort(ops, (size_t)o.cycles, sizeof *ops, cmp_d);
		qsort(cpu, (size_t)o.cycles, sizeof *cpu, cmp_d);
		qsort(steps, (size_t)o.cycles, sizeof *steps, cmp_d);
		printf("ended jobs: %d, node names: %lld (%s), turnover %d%% a cycle, arrays %s\n", (int)o.jobs,
		       (long long)g.want_names, o.wide ? "65 each" : "mixed", (int)o.turnover_pct,
		       o.reuse ? "reused" : "new each cycle");
		printf("warm-up: ended %.2f ms (cpu %.2f ms), step %.2f ms\n", w.ops, w.ops_cpu, w.step);
		printf("ended_ms_p50=%.3f ended_ms_max=%.3f ended_cpu_ms_p50=%.3f step_ms_p50=%.3f jobs=%d nodes=%lld "
		       "cycles=%d\n",
		       ops[o.cycles / 2], ops[o.cycles - 1], cpu[o.cycles / 2], steps[o.cycles / 2], (int)o.jobs,
		       (long long)g.want_names, (int)o.cycles);
	}
	fw__slurm_ended_free(h);
	free(h->unames);
	free(h);
	free(g.m.job_array);
	free(g.nodes);
	free(b.e);
	free(b.names);
	free(ops);
	free(cpu);
	free(steps);
	return rc;
}
