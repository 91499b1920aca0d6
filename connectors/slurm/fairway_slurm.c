/*
 * fairway_slurm.c — `fairway-slurm`: the Slurm adapter's own driver.
 *
 * It runs the loop that `fairway serve --backend slurm` runs, without the
 * daemon (no HTTP API, no store): read Slurm -> snapshot -> one cycle ->
 * check the plan -> apply -> write comments, every --interval seconds.
 * The tests (tests/integration/slurm_*.sh) and the benchmark
 * (bench/bench_slurm.sh) drive a real local cluster with it.
 *
 * Exit codes: 0 done; 2 bad usage or a bad fairway config (the message
 * names the file, line and field; Slurm is not contacted); 1 Slurm is
 * unreachable or refused us; 3 the plan broke an invariant (a bug).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cliword.h"
#include "fairway/fairway.h"
#include "fwconfig.h"
#include "driver.h"
#include "fwslurm.h"

static const char usage[] =
	"usage: fairway-slurm run --config FILE [--policy NAME] [--interval S]\n"
	"                         [--cycles N] [--opt conf=PATH,partitions=A:B,comments=N]\n"
	"                         [--usage slurm|config] [--quiet]\n"
	"       fairway-slurm drain NODE REASON | resume NODE   [--opt ...]\n"
	"       fairway-slurm ping                              [--opt ...]\n"
	"       fairway-slurm bench latency|throughput|cycle N --config FILE [--opt ...]\n"
	"\n"
	"Drive a live Slurm cluster with fairway's plans (docs/slurm.md).\n"
	"FILE is fairway's YAML: its queue tree (Slurm accounts name leaf\n"
	"queues), scheduler settings and topology levels; nodes and jobs come\n"
	"from Slurm.  The Slurm configuration is $SLURM_CONF or conf=PATH.\n"
	"--interval S (default 1) between cycles; --cycles N stops after N\n"
	"(default: run until SIGINT/SIGTERM).  --usage slurm (default): fair\n"
	"share reads each account's and user's decayed GPU usage from Slurm\n"
	"(what sshare shows; needs PriorityType=priority/multifactor, slurmdbd,\n"
	"AccountingStorageEnforce with limits and gres/gpu in\n"
	"AccountingStorageTRES; docs/slurm.md), every 30 s; --usage config:\n"
	"the YAML's usage and userUsage (--opt usage=own too).  An account's\n"
	"GrpTRESMins on gres/gpu is its queue's gpuHourBudget (minutes / 60)\n"
	"unless the YAML gives it one, and AccountingStorageEnforce=safe turns\n"
	"budgetSafe on (read every 30 s; printed once per change).  bench: see\n"
	"bench/bench_slurm.sh.\n"
	"A value may follow its flag or be joined to it (--config=FILE).\n";

static volatile sig_atomic_t stop_flag; /* set by SIGINT/SIGTERM only */

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct args {
	const char *cmd, *config, *policy, *node, *reason;
	bool usage_config;      /* --usage config */
	char opt[1024];
	double interval;
	long cycles;
	bool quiet;
};

/* --interval S: seconds in (0, 1 day]; --cycles N: 1..1e9.  0 or 2. */
static int number(const char *flag, const char *v, double lo, double hi, bool whole, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= lo && x <= hi) || (whole && x != (double)(long)x)) {
		fprintf(stderr, "fairway-slurm: error: %s needs %s from %.15g to %.15g (got \"%s\")\n", flag,
			whole ? "a whole number" : "a number of seconds", lo, hi, v);
		return 2;
	}
	*out = x;
	return 0;
}

/* An unknown flag (or one without its value): the error, with the flag it
 * was probably meant to be, and the usage; exit status 2. */
static int unknown_option(const char *o)
{
	static const char *const flags[] = { "--help", "--quiet", "--config", "--policy", "--interval", "--cycles",
					     "--opt", "--usage", NULL };
	char hint[96];

	fprintf(stderr, "fairway-slurm: error: unknown option or missing value: %s%s\n%s", o,
		fw_cli_hint(o, flags, hint, sizeof hint), usage);
	return 2;
}

/* One option with its value v (joined or the next word); 0, or 2. */
static int option(struct args *a, const char *o, const char *v)
{
	double x;

	if (!strcmp(o, "--config"))
		a->config = v;
	else if (!strcmp(o, "--policy"))
		a->policy = v;
	else if (!strcmp(o, "--interval"))
		return number(o, v, 0.001, 86400, false, &a->interval);
	else if (!strcmp(o, "--cycles"))
		return number(o, v, 1, 1e9, true, &x) ? 2 : (a->cycles = (long)x, 0);
	else if (!strcmp(o, "--opt"))
		snprintf(a->opt, sizeof a->opt, "%s", v);
	else if (!strcmp(o, "--usage") && (!strcmp(v, "slurm") || !strcmp(v, "config")))
		a->usage_config = !strcmp(v, "config");
	else if (!strcmp(o, "--usage"))
		return fprintf(stderr, "fairway-slurm: error: --usage takes slurm (Slurm's decayed usage, the "
				       "default) or config (the YAML's), not \"%s\"\n", v), 2;
	else
		return unknown_option(o);
	return 0;
}

static int parse(int argc, char **argv, struct args *a)
{
	static const char *const bare[] = { "--help", "-h", "--quiet", NULL };
	int pos = 0, rc;
	char why[256];

	memset(a, 0, sizeof *a);
	a->interval = 1.0;
	for (int i = 1; i < argc; i++) {
		char *eq = fw_cli_split_eq(argv[i]);
		const char *o = argv[i];
		if (fw_cli_joined_ok(o, eq, bare, why, sizeof why))
			return fprintf(stderr, "fairway-slurm: error: %s\n", why), 2;
		if (!strcmp(o, "--help") || !strcmp(o, "-h"))
			return fputs(usage, stdout), 1;
		else if (!strcmp(o, "--quiet"))
			a->quiet = true;
		else if (o[0] == '-' && (eq || i + 1 < argc)) {
			if ((rc = option(a, o, eq ? eq : argv[++i])) != 0)
				return rc;
		} else if (o[0] == '-')
			return unknown_option(o);
		else if (pos == 0 && ++pos)
			a->cmd = o;
		else if (pos == 1 && ++pos)
			a->node = o;
		else if (pos == 2 && ++pos)
			a->reason = o;
		else
			return fprintf(stderr, "fairway-slurm: error: unexpected argument '%s'\n", o), 2;
	}
	if (!a->cmd)
		return fputs(usage, stderr), 2;
	return 0;
}

static int open_slurm(struct args *a, struct fw_slurm **h)
{
	struct fw_slurm_opts o;
	struct fw_diag d;
	char msg[1024];
	int rc;

	memset(&o, 0, sizeof o);
	memset(&d, 0, sizeof d);
	o.flag = "--opt";
	if ((rc = fw_slurm_opts_parse(a->opt, &o, &d)) == FW_OK)
		rc = fw_slurm_open(&o, h, &d);
	if (rc != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway-slurm: error: %s\n", msg);
		return rc == FW_EINVAL ? 2 : 1;
	}
	return 0;
}

/* ------------------------------------------------------------ run */

#define loop fw_slurm_loop

double fw_slurm_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The daemon's skeleton: now, config, topology and queues; no nodes/jobs. */
static struct fw_snapshot *skeleton(const struct fw_snapshot *base)
{
	struct fw_snapshot *s = fw_snapshot_new();

	if (!s)
		return NULL;
	s->now = (fw_time)time(NULL);
	s->config = base->config;
	s->config.utc_times = true; /* now is Unix time: texts write UTC dates */
	s->topology = base->topology;
	for (int32_t q = 0; q < base->nqueues; q++)
		if (fw_snapshot_add_queue(s, &base->queues[q]) < 0) {
			fw_snapshot_free(s);
			return NULL;
		}
	if (fw_snapshot_copy_queue_tables(s, base) != FW_OK) { /* GPU model limits and deserved GPUs, users' usage */
		fw_snapshot_free(s);
		return NULL;
	}
	return s;
}

static void report(const struct loop *l, long n, const struct fw_snapshot *s,
		   const struct fw_plan *p, double cyc_ms, int notes)
{
	const struct fw_slurm_stats *st = fw_slurm_stats(l->h);
	int running = 0;

	if (l->quiet)
		return;
	for (int32_t j = 0; j < s->njobs; j++)
		running += s->jobs[j].state == FW_JOB_RUNNING;
	printf("cycle %ld gen %llu nodes %d (left out %d) jobs %d running %d pending %d skipped %d | "
	       "decisions %d comments %d | total starts %llu evicts %llu reserves %llu "
	       "unreserves %llu failed %llu | loads %llu unchanged %llu | read %.1f ms cycle %.1f ms apply %.1f ms\n",
	       n, (unsigned long long)st->generation, s->nnodes, st->skipped_nodes, s->njobs, running,
	       s->njobs - running, st->skipped_jobs, p->ndecisions, notes,
	       (unsigned long long)st->starts, (unsigned long long)st->evicts,
	       (unsigned long long)st->reserves, (unsigned long long)st->unreserves,
	       (unsigned long long)st->failed, (unsigned long long)st->loads,
	       (unsigned long long)st->unchanged, st->read_ms, cyc_ms, st->apply_ms);
	fflush(stdout);
}

static int apply_plan(struct loop *l, const struct fw_snapshot *s,
		      const struct fw_plan *p, uint64_t gen, int *notes_done)
{
	struct fw_backend_action *acts;
	struct fw_slurm_note *notes;
	struct fw_backend_result r = { 0 };
	int32_t na, nn;
	int rc = fw_slurm_plan_actions(s, p, &l->arena, &acts, &na, &notes, &nn);

	if (rc != FW_OK)
		return rc;
	r.status = FW_ARENA_NEW(&l->arena, int, na ? na : 1);
	if (!r.status)
		return FW_ENOMEM;
	if ((rc = fw_slurm_apply(l->h, gen, acts, na, &r)) != FW_OK)
		return rc;
	/* skipped (FW_ENOENT) and in place (FW_EEXIST, a reservation held
	 * where it is) are no failures (backend.h) */
	for (int32_t k = 0; k < na; k++)
		if (r.status[k] != FW_OK && r.status[k] != FW_ENOENT && r.status[k] != FW_EEXIST)
			fprintf(stderr, "fairway-slurm: %s of %s%s failed: %s (last refusal: %s)\n",
				fw_decision_name(acts[k].kind), acts[k].job, acts[k].node,
				fw_strerror(r.status[k]), fw_slurm_last_error(l->h));
	*notes_done = fw_slurm_annotate(l->h, notes, nn);
	return FW_OK;
}

/* After a read of Slurm's usage: the total and the three queues that used
 * the most, or (once per change of outcome) why it was not read. */
static void usage_report(struct loop *l, int rc, const struct fw_diag *d, int32_t nrows,
			 int32_t unmatched, double hl)
{
	const struct fw_snapshot *b = l->base;
	int32_t top[3] = { -1, -1, -1 };
	double sum = 0;
	char msg[1024];

	if (rc != FW_OK) {
		fw_diag_format(d, msg, sizeof msg);
		if (rc == FW_ENOENT && l->usage_rc != FW_ENOENT)
			printf("fairway-slurm: fair share uses the config's usage: %s\n", msg);
		else if (rc != FW_ENOENT)
			fprintf(stderr, "fairway-slurm: Slurm's usage not read (the last read stands): %s\n", msg);
		fflush(stdout);
		return;
	}
	if (l->usage_rc != FW_OK)
		printf("fairway-slurm: fair share reads Slurm's decayed GPU usage every %d s "
		       "(PriorityDecayHalfLife %.1f d; usageHalfLife %.1f d ages it in between)\n",
		       FW_SLURM_USAGE_PERIOD_S, hl / 86400, b->config.usage_half_life_s / 86400);
	if (l->quiet)
		return (void)fflush(stdout);
	for (int32_t q = 0; q < b->nqueues; q++) {
		sum += b->queues[q].usage;
		for (int k = 0; k < 3; k++)
			if (b->queues[q].usage > 0 && (top[k] < 0 || b->queues[q].usage > b->queues[top[k]].usage)) {
				memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof top[0]);
				top[k] = q;
				break;
			}
	}
	printf("fairway-slurm: usage from Slurm: %.2f GPU-h (decayed) over %d association%s", sum / 3600, (int)nrows,
	       nrows == 1 ? "" : "s");
	for (int k = 0; k < 3 && top[k] >= 0; k++)
		printf("%s %s %.2f", k ? "," : "; most:", b->queues[top[k]].name, b->queues[top[k]].usage / 3600);
	if (unmatched)
		printf("; %d name no queue (left out)", (int)unmatched);
	printf("\n");
	fflush(stdout);
}

/* Slurm's decayed usage into the base (usage.c), now and then every
 * FW_SLURM_USAGE_PERIOD_S: the skeleton of each cycle copies it.  A failed
 * read leaves the last one in place. */
static void refresh_usage(struct loop *l)
{
	double now = fw_slurm_mono_ms(), hl = 0;
	struct fw_slurm_usage *rows = NULL;
	int32_t n = 0, unmatched = 0;
	struct fw_diag d;
	int rc;

	if (!l->usage_slurm || now < l->usage_next_ms)
		return;
	l->usage_next_ms = now + FW_SLURM_USAGE_PERIOD_S * 1e3;
	memset(&d, 0, sizeof d);
	rc = fw_slurm_usage_fetch(l->h, &rows, &n, &hl, &d);
	if (rc == FW_OK)
		rc = fw_slurm_usage_apply(l->base, rows, n, (fw_time)time(NULL), &unmatched);
	free(rows);
	usage_report(l, rc, &d, n, unmatched, hl);
	l->usage_rc = rc;
}

/* Slurm's GPU-hour budgets, once per change of what the reads find
 * (quiet or not: like the usage's first line, it says where a limit comes
 * from). */
static void budget_report(struct loop *l)
{
	uint64_t gen;
	const char *note = fw_slurm_budget_note(l->h, &gen);

	if (gen == l->budget_gen || !*note)
		return;
	l->budget_gen = gen;
	printf("fairway-slurm: %s\n", note);
	fflush(stdout);
}

int fw_slurm_loop_cycle(struct loop *l, long n)
{
	struct fw_snapshot *s;
	struct fw_backend_world w = { 0 };
	struct fw_plan *p = NULL;
	struct fw_diag d;
	char msg[1024];
	double t0;
	int rc, notes = 0;

	memset(&d, 0, sizeof d);
	refresh_usage(l);
	if (!(s = skeleton(l->base)))
		return FW_ENOMEM;
	fw_arena_reset(&l->arena);
	if ((rc = fw_slurm_read(l->h, s, &w, &d)) == FW_OK)
		budget_report(l);
	if (rc == FW_OK && (rc = fw_snapshot_validate(s, &d)) == FW_OK) {
		t0 = fw_slurm_mono_ms();
		rc = fw_cycle_run(s, l->pol, &l->arena, &p);
		t0 = fw_slurm_mono_ms() - t0;
		l->cycle_ms = t0;
		l->nstarts = 0;
		for (int32_t i = 0; rc == FW_OK && i < p->ndecisions; i++)
			l->nstarts += p->decisions[i].kind == FW_DECIDE_START;
		if (rc == FW_OK && (rc = fw_plan_check(s, p, &l->arena, &d)) != FW_OK)
			rc = FW_EINVARIANT;
		if (rc == FW_OK && (rc = apply_plan(l, s, p, w.generation, &notes)) == FW_OK)
			report(l, n, s, p, t0, notes);
	}
	if (rc != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway-slurm: cycle %ld: %s: %s\n", n, fw_strerror(rc), msg);
	}
	fw_snapshot_free(s);
	return rc;
}

static int load_config(const char *path, struct fw_snapshot **s)
{
	struct fw_diag d;
	char msg[1024];

	memset(&d, 0, sizeof d);
	if (!path) {
		fprintf(stderr, "fairway-slurm: error: run needs --config FILE\n");
		return 2;
	}
	if (fw_config_load_file(path, s, &d) != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway-slurm: error: %s\n", msg);
		return 2;
	}
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	if (s > 0)
		nanosleep(&ts, NULL);
}

/* A YAML without queues: the queue tree is slurmdbd's account tree. */
static int import_accounts(struct loop *l, struct fw_snapshot *base)
{
	struct fw_diag d;
	char msg[1024];
	int added = 0, rc;

	memset(&d, 0, sizeof d);
	rc = fw_slurm_import_accounts(l->h, base, &added, &d);
	if (rc == FW_OK && (rc = fw_snapshot_validate(base, &d)) == FW_OK) {
		printf("fairway-slurm: the config has no queues: %d queues from slurmdbd's accounts:", added);
		for (int32_t q = 0; q < base->nqueues; q++) {
			printf(" %s%s%s", base->queues[q].parent >= 0 ? base->queues[base->queues[q].parent].name : "",
			       base->queues[q].parent >= 0 ? "/" : "", base->queues[q].name);
			if (base->queues[q].limit.v[FW_RES_GPU] != FW_UNLIMITED) /* its GrpTRES on GPUs */
				printf("[gpu<=%lld]", (long long)(base->queues[q].limit.v[FW_RES_GPU] / 1000));
			for (int32_t k = 0; k < base->nmodel_limits; k++)
				if (base->model_limits[k].queue == q)
					printf("[%s<=%lld]", base->model_limits[k].model,
					       (long long)(base->model_limits[k].gpus / 1000));
		}
		printf("\n");
		fflush(stdout);
		return 0;
	}
	fw_diag_format(&d, msg, sizeof msg);
	fprintf(stderr, "fairway-slurm: error: the config has no queues and slurmdbd gave none: %s\n", msg);
	return rc == FW_EIO ? 1 : 2;
}

/* --opt usage=own (the daemon's spelling; open_slurm checked the list). */
static bool opt_usage_own(const char *opt)
{
	struct fw_slurm_opts o;
	struct fw_diag d;
	char buf[sizeof ((struct args *)0)->opt];

	memset(&o, 0, sizeof o);
	o.flag = "--opt";
	snprintf(buf, sizeof buf, "%s", opt);
	return fw_slurm_opts_parse(buf, &o, &d) == FW_OK && o.usage_own;
}

static int cmd_run(struct args *a)
{
	struct loop l = { 0 };
	struct fw_snapshot *base = NULL;
	int rc, fails = 0;

	if ((rc = load_config(a->config, &base)) != 0)
		return rc;
	l.pol = a->policy ? fw_policy_find(a->policy) : fw_policy_default();
	if (!l.pol) {
		fprintf(stderr, "fairway-slurm: error: unknown policy '%s'\n", a->policy);
		fw_snapshot_free(base);
		return 2;
	}
	l.usage_slurm = !a->usage_config && !opt_usage_own(a->opt); /* --opt usage=own says the same; read
								      * before open_slurm parses a->opt in place */
	if ((rc = open_slurm(a, &l.h)) != 0) {
		fw_snapshot_free(base);
		return rc;
	}
	if (base->nqueues == 0 && (rc = import_accounts(&l, base)) != 0) {
		fw_slurm_close(l.h);
		fw_snapshot_free(base);
		return rc;
	}
	l.base = base;
	l.quiet = a->quiet;
	l.usage_rc = 1; /* no read yet */
	fw_arena_init(&l.arena, 0);
	if (!strcmp(a->cmd, "bench")) {
		rc = fw_slurm_bench(&l, a->node, a->reason);
		a->cycles = -1; /* skip the loop */
	}
	for (long n = 1; a->cycles >= 0 && !stop_flag && (!a->cycles || n <= a->cycles); n++) {
		double t0 = fw_slurm_mono_ms();
		rc = fw_slurm_loop_cycle(&l, n);
		if (rc == FW_EINVARIANT)
			break;
		fails = rc == FW_OK ? 0 : fails + 1;
		sleep_s(a->interval - (fw_slurm_mono_ms() - t0) / 1e3);
	}
	fw_arena_release(&l.arena);
	fw_slurm_close(l.h);
	fw_snapshot_free(base);
	if (!strcmp(a->cmd, "bench"))
		return rc;
	return rc == FW_EINVARIANT ? 3 : fails ? 1 : 0;
}

/* ------------------------------------------------------------ drain, ping */

/* drain goes through fw_slurm_apply like a plan's DRAIN decision (so a
 * second drain with the same reason changes nothing); resume is direct. */
static int drain_action(struct fw_slurm *h, const char *node, const char *why,
			struct fw_diag *d)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_backend_world w = { 0 };
	struct fw_backend_action act;
	struct fw_backend_result r = { 0 };
	int st = FW_OK, rc = s ? fw_slurm_read(h, s, &w, d) : FW_ENOMEM;

	memset(&act, 0, sizeof act);
	act.kind = FW_DECIDE_DRAIN;
	act.until = FW_TIME_UNKNOWN;
	snprintf(act.node, sizeof act.node, "%s", node);
	snprintf(act.why, sizeof act.why, "%s", why);
	r.status = &st;
	if (rc == FW_OK && (rc = fw_slurm_apply(h, w.generation, &act, 1, &r)) == FW_OK && st == FW_ENOENT)
		rc = fw_diag_set(d, st, node, 0, 0, "", "no node of that name in Slurm (sinfo -N lists them)");
	else if (rc == FW_OK && st != FW_OK)
		rc = fw_diag_set(d, st, node, 0, 0, "", "drain: %s (%s)", fw_strerror(st),
				 fw_slurm_last_error(h));
	fw_snapshot_free(s);
	return rc;
}

/* resume: only a node Slurm has drained (Slurm answers "Invalid node
 * state specified" for any other, which says nothing of why). */
static int resume_node(struct fw_slurm *h, const char *node, bool *was, struct fw_diag *d)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_backend_world w = { 0 };
	int rc = s ? fw_slurm_read(h, s, &w, d) : FW_ENOMEM;
	int drained = rc == FW_OK ? fw_slurm_node_drained(h, node) : -1;

	fw_snapshot_free(s);
	*was = drained == 1;
	if (rc != FW_OK)
		return rc;
	if (drained < 0)
		return fw_diag_set(d, FW_ENOENT, node, 0, 0, "", "no node of that name in Slurm (sinfo -N lists them)");
	return *was ? fw_slurm_drain(h, node, NULL, d) : FW_OK;
}

static int cmd_node(struct args *a, bool drain)
{
	struct fw_slurm *h = NULL;
	struct fw_diag d;
	char msg[1024];
	int rc;

	if (!a->node || (drain && !a->reason))
		return fprintf(stderr, "%s", usage), 2;
	if ((rc = open_slurm(a, &h)) != 0)
		return rc;
	memset(&d, 0, sizeof d);
	bool was = false;
	rc = drain ? drain_action(h, a->node, a->reason, &d) : resume_node(h, a->node, &was, &d);
	if (rc == FW_OK && drain)
		printf("%s: %s\n", a->node, fw_slurm_stats(h)->drains ? "drained" : "already drained with that reason");
	else if (rc == FW_OK)
		printf("%s: %s\n", a->node, was ? "resumed" : "not drained: nothing to resume");
	fw_slurm_close(h);
	if (rc != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway-slurm: error: %s\n", msg);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a;
	struct fw_slurm *h = NULL;
	struct sigaction sa;
	int rc = parse(argc, argv, &a);

	if (rc)
		return rc == 1 ? 0 : rc;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!strcmp(a.cmd, "run") || !strcmp(a.cmd, "bench"))
		return cmd_run(&a);
	if (!strcmp(a.cmd, "drain") || !strcmp(a.cmd, "resume"))
		return cmd_node(&a, !strcmp(a.cmd, "drain"));
	if (!strcmp(a.cmd, "ping")) {
		if ((rc = open_slurm(&a, &h)) == 0)
			puts("slurmctld answers");
		fw_slurm_close(h);
		return rc;
	}
	fprintf(stderr, "fairway-slurm: error: unknown command '%s'\n%s", a.cmd, usage);
	return 2;
}
