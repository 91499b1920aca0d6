/*
 * fairway_slurm.c — `fairway-slurm`: the Slurm adapter's own driver.
 *
 * It runs the loop that `fairway serve --backend slurm` runs, without the
 * daemon (no HTTP API, no store): read Slurm -> snapshot -> one cycle ->
 * check the plan -> apply -> write comments, every --interval seconds.
 * The tests (tests/integration/slurm_*.sh) and the benchmark
 * (bench/bench_slurm.sh) drive a real local cluster with it.
 *
 * `plan` is the dry run an administrator starts with: the same read and
 * the same cycle, once, printed as `fairway plan` prints a plan (the
 * table, or --json), then what the apply would do (its RPCs by kind, the
 * comments it would write) and the jobs the read left held (aside.c),
 * and nothing applied: no update, requeue, kill, reservation, drain or
 * comment reaches slurmctld.  Its notes (usage, budgets, imported
 * accounts) go to stderr, so its stdout is the plan alone.
 *
 * Exit codes: 0 done; 2 bad usage or a bad fairway config (the message
 * names the file, line and field; Slurm is not contacted); 1 Slurm is
 * unreachable or refused us; 3 the plan broke an invariant (a bug).
 */
#include <errno.h>
#include <jansson.h>
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
#include "render.h"

static const char usage[] =
	"usage: fairway-slurm plan --config FILE [--policy NAME] [--json]\n"
	"                          [--opt conf=PATH,partitions=A:B] [--usage slurm|config]\n"
	"       fairway-slurm run --config FILE [--policy NAME] [--interval S]\n"
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
	"plan is a dry run, where to start on a new cluster: one read of Slurm\n"
	"and one cycle, printed job by job as `fairway plan` prints it (--json:\n"
	"the same as JSON), with the RPCs and comments run would make and the\n"
	"jobs fairway leaves held, and why; nothing is changed in Slurm.\n"
	"run applies a plan every --interval S (default 1); --cycles N stops\n"
	"after N (default: run until SIGINT/SIGTERM).  --usage slurm (default): fair\n"
	"share reads each account's and user's decayed GPU usage from Slurm\n"
	"(what sshare shows; needs PriorityType=priority/multifactor, slurmdbd,\n"
	"AccountingStorageEnforce with limits and gres/gpu in\n"
	"AccountingStorageTRES; docs/slurm.md), every 30 s; --usage config:\n"
	"the YAML's usage and userUsage (--opt usage=own too).  An account's\n"
	"GrpTRESMins on gres/gpu is its queue's gpuHourBudget (minutes / 60)\n"
	"unless the YAML gives it one, and AccountingStorageEnforce=safe turns\n"
	"budgetSafe on (read every 30 s; printed once per change).  bench: see\n"
	"bench/bench_slurm.sh.  --opt may be given more than once; its lists\n"
	"are joined (--opt conf=PATH --opt partitions=gpu).\n"
	"A value may follow its flag or be joined to it (--config=FILE).\n"
	"\n"
	"Examples:\n"
	"  SLURM_CONF=/etc/slurm/slurm.conf fairway-slurm ping\n"
	"  fairway-slurm plan --config fairway.yaml     # what fairway would do; changes nothing\n"
	"  fairway-slurm plan --config fairway.yaml --json | jq '.decisions'\n"
	"  fairway-slurm run --config fairway.yaml --opt partitions=gpu:gpu2\n";

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
	bool json;              /* plan --json */
	int extra;              /* words past the second */
	unsigned given;         /* the FW__F_ flags given */
};

/* The flags that belong to some commands only (--opt and --help are
 * every command's). */
#define FW_SLURM_FLAGS(X)     \
	X(CONFIG, "--config") \
	X(POLICY, "--policy") \
	X(USAGE, "--usage")   \
	X(JSON, "--json")     \
	X(INTERVAL, "--interval") \
	X(CYCLES, "--cycles") \
	X(QUIET, "--quiet")
#define FW__F_BIT(u, f) FW__FB_##u,
enum { FW_SLURM_FLAGS(FW__F_BIT) FW__FB_COUNT };
#define FW__F_MASK(u, f) FW__F_##u = 1u << FW__FB_##u,
enum { FW_SLURM_FLAGS(FW__F_MASK) };
#define FW__F_NAME(u, f) f,
static const char *const flag_names[] = { FW_SLURM_FLAGS(FW__F_NAME) NULL };
#define FW__F_PLAN (FW__F_CONFIG | FW__F_POLICY | FW__F_USAGE | FW__F_JSON)
#define FW__F_RUN (FW__F_CONFIG | FW__F_POLICY | FW__F_USAGE | FW__F_INTERVAL | FW__F_CYCLES | FW__F_QUIET)

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
	static const char *const flags[] = { "--help", "--quiet", "--json", "--config", "--policy", "--interval",
					     "--cycles", "--opt", "--usage", NULL };
	char hint[96];

	fprintf(stderr, "fairway-slurm: error: unknown option or missing value: %s%s\n%s", o,
		fw_cli_hint(o, flags, hint, sizeof hint), usage);
	return 2;
}

/* --opt LIST, once or more: the lists joined by commas, as one. */
static int add_opt(struct args *a, const char *v)
{
	size_t at = strlen(a->opt);
	int w = snprintf(a->opt + at, sizeof a->opt - at, "%s%s", at ? "," : "", v);

	if (w < 0 || (size_t)w >= sizeof a->opt - at)
		return fprintf(stderr, "fairway-slurm: error: --opt: the options given come to more than %zu bytes; "
				       "give each option once\n", sizeof a->opt - 1), 2;
	return 0;
}

/* One option with its value v (joined or the next word); 0, or 2. */
static int option(struct args *a, const char *o, const char *v)
{
	double x;

	for (int k = 0; flag_names[k]; k++)
		if (!strcmp(o, flag_names[k]))
			a->given |= 1u << k;
	if (!strcmp(o, "--config"))
		a->config = v;
	else if (!strcmp(o, "--policy"))
		a->policy = v;
	else if (!strcmp(o, "--interval"))
		return number(o, v, 0.001, 86400, false, &a->interval);
	else if (!strcmp(o, "--cycles"))
		return number(o, v, 1, 1e9, true, &x) ? 2 : (a->cycles = (long)x, 0);
	else if (!strcmp(o, "--opt"))
		return add_opt(a, v);
	else if (!strcmp(o, "--usage") && (!strcmp(v, "slurm") || !strcmp(v, "config")))
		a->usage_config = !strcmp(v, "config");
	else if (!strcmp(o, "--usage"))
		return fprintf(stderr, "fairway-slurm: error: --usage takes slurm (Slurm's decayed usage, the "
				       "default) or config (the YAML's), not \"%s\"\n", v), 2;
	else
		return unknown_option(o);
	return 0;
}

/* The commands, each with the words it takes after its name and the
 * flags that are its alone: a word or flag a command does not take is
 * refused (it was ignored: `run --config F gpu001`, `plan` with --quiet
 * or --interval, `run --json`), with what the command takes. */
#define FW_SLURM_CMDS(X)                                                                                     \
	X(plan, 0, FW__F_PLAN, "plan takes no NODE or other word: fairway-slurm plan --config FILE [--json]")  \
	X(run, 0, FW__F_RUN, "run takes no NODE or other word: fairway-slurm run --config FILE")               \
	X(drain, 2, 0, "drain takes a NODE and a REASON: fairway-slurm drain gpu001 \"bad fan\"")              \
	X(resume, 1, 0, "resume takes a NODE: fairway-slurm resume gpu001")                                    \
	X(ping, 0, 0, "ping takes no other word: fairway-slurm ping")                                          \
	X(bench, 2, FW__F_RUN, "bench takes a MODE and N: fairway-slurm bench latency 100 --config FILE")
#define FW__CMD_NAME(n, words, flags, say) #n,
static const char *const commands[] = { FW_SLURM_CMDS(FW__CMD_NAME) NULL };

static bool known_command(const char *cmd)
{
	for (int k = 0; commands[k]; k++)
		if (!strcmp(cmd, commands[k]))
			return true;
	return false;
}

/* A flag given that cmd does not take (its mask: ok): the error, naming
 * the flags it takes; 0 when none. */
static int check_flags(const char *cmd, unsigned ok, unsigned given)
{
	char takes[160] = "";

	if (!(given & ~ok))
		return 0;
	for (int k = 0; flag_names[k]; k++)
		if (ok & (1u << k))
			snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s, ", flag_names[k]);
	for (int k = 0; flag_names[k]; k++)
		if (given & ~ok & (1u << k))
			return fprintf(stderr, "fairway-slurm: error: %s is not %s's: %s takes %s--opt%s\n", flag_names[k],
				       cmd, cmd, takes, !strcmp(flag_names[k], "--json") ? " (--json is plan's)" : ""),
			       2;
	return 0;
}

static int check_words(const struct args *a)
{
	int words = !!a->node + !!a->reason + a->extra;
	char hint[96];

	if (!known_command(a->cmd))
		return fprintf(stderr, "fairway-slurm: error: unknown command '%s'%s (commands: plan, run, drain, "
				       "resume, ping, bench; fairway-slurm --help says what each does)\n", a->cmd,
			       fw_cli_hint(a->cmd, commands, hint, sizeof hint)), 2;
#define FW__CMD_CHECK(n, want, flags, say)                                                              \
	if (!strcmp(a->cmd, #n) && words != want)                                                         \
		return fprintf(stderr, "fairway-slurm: error: %s (got %d word%s after %s)\n", say, words,     \
			       words == 1 ? "" : "s", #n), 2;                                              \
	if (!strcmp(a->cmd, #n))                                                                          \
		return check_flags(#n, flags, a->given);
	FW_SLURM_CMDS(FW__CMD_CHECK)
#undef FW__CMD_CHECK
	return 0;
}

static int parse(int argc, char **argv, struct args *a)
{
	static const char *const bare[] = { "--help", "-h", "--quiet", "--json", NULL };
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
			a->quiet = true, a->given |= FW__F_QUIET;
		else if (!strcmp(o, "--json"))
			a->json = true, a->given |= FW__F_JSON;
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
			a->extra++;
	}
	if (!a->cmd)
		return fputs(usage, stderr), 2;
	return check_words(a);
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
 * the most, or (once per change of outcome) why it was not read.  The
 * half-lives (Slurm's hl and the config's, seconds, both positive: a
 * PriorityDecayHalfLife=0 is refused by the read) in span words, "168h00m",
 * rounded to the second. */
static void usage_report(struct loop *l, int rc, const struct fw_diag *d, int32_t nrows,
			 int32_t unmatched, double hl)
{
	const struct fw_snapshot *b = l->base;
	int32_t top[3] = { -1, -1, -1 };
	double sum = 0;
	char msg[1024], every[FW_SPAN_MAX], slurm_hl[FW_SPAN_MAX], own_hl[FW_SPAN_MAX];

	if (rc != FW_OK) {
		fw_diag_format(d, msg, sizeof msg);
		if (rc == FW_ENOENT && l->usage_rc != FW_ENOENT)
			fprintf(l->say, "fairway-slurm: fair share uses the config's usage: %s\n", msg);
		else if (rc != FW_ENOENT)
			fprintf(stderr, "fairway-slurm: Slurm's usage not read (the last read stands): %s\n", msg);
		fflush(l->say);
		return;
	}
	if (l->usage_rc != FW_OK)
		fprintf(l->say, "fairway-slurm: fair share reads Slurm's decayed GPU usage every %s "
		       "(PriorityDecayHalfLife %s; usageHalfLife %s ages it in between)\n",
		       fw_span_format(FW_SLURM_USAGE_PERIOD_S, every, sizeof every),
		       fw_span_format((int64_t)(hl + 0.5), slurm_hl, sizeof slurm_hl),
		       fw_span_format((int64_t)(b->config.usage_half_life_s + 0.5), own_hl, sizeof own_hl));
	if (l->quiet)
		return (void)fflush(l->say);
	for (int32_t q = 0; q < b->nqueues; q++) {
		sum += b->queues[q].usage;
		for (int k = 0; k < 3; k++)
			if (b->queues[q].usage > 0 && (top[k] < 0 || b->queues[q].usage > b->queues[top[k]].usage)) {
				memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof top[0]);
				top[k] = q;
				break;
			}
	}
	fprintf(l->say, "fairway-slurm: usage from Slurm: %.2f GPU-h (decayed) over %d association%s", sum / 3600, (int)nrows,
	       nrows == 1 ? "" : "s");
	for (int k = 0; k < 3 && top[k] >= 0; k++)
		fprintf(l->say, "%s %s %.2f", k ? "," : "; most:", b->queues[top[k]].name, b->queues[top[k]].usage / 3600);
	if (unmatched)
		fprintf(l->say, "; %d name no queue (left out)", (int)unmatched);
	fprintf(l->say, "\n");
	fflush(l->say);
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
	fprintf(l->say, "fairway-slurm: %s\n", note);
	fflush(l->say);
}

/* One read of Slurm and one cycle on it, run's and plan's alike: the
 * snapshot (*sp, the caller frees it, NULL-safe), its checked plan (*pp,
 * in l->arena) and the read's generation.  FW_EINVARIANT when the plan
 * breaks an invariant (a bug; d says which). */
static int plan_once(struct loop *l, struct fw_snapshot **sp, struct fw_plan **pp, uint64_t *gen,
		     struct fw_diag *d)
{
	struct fw_backend_world w = { 0 };
	struct fw_snapshot *s;
	double t0;
	int rc;

	/* phase 1: the skeleton (YAML and Slurm's usage) and Slurm's world */
	refresh_usage(l);
	if (!(*sp = s = skeleton(l->base)))
		return FW_ENOMEM;
	fw_arena_reset(&l->arena);
	if ((rc = fw_slurm_read(l->h, s, &w, d)) != FW_OK)
		return rc;
	budget_report(l);
	fw_slurm_warn(l->h, l->say, "fairway-slurm"); /* partitions gone or down, job_submit.lua */
	if ((rc = fw_snapshot_validate(s, d)) != FW_OK)
		return rc;
	/* phase 2: one cycle, then the plan checker */
	t0 = fw_slurm_mono_ms();
	rc = fw_cycle_run(s, l->pol, &l->arena, pp);
	l->cycle_ms = fw_slurm_mono_ms() - t0;
	if (rc != FW_OK)
		return rc;
	l->nstarts = 0;
	for (int32_t i = 0; i < (*pp)->ndecisions; i++)
		l->nstarts += (*pp)->decisions[i].kind == FW_DECIDE_START;
	*gen = w.generation;
	return fw_plan_check(s, *pp, &l->arena, d) == FW_OK ? FW_OK : FW_EINVARIANT;
}

int fw_slurm_loop_cycle(struct loop *l, long n)
{
	struct fw_snapshot *s = NULL;
	struct fw_plan *p = NULL;
	struct fw_diag d;
	char msg[1024];
	uint64_t gen = 0;
	int rc, notes = 0;

	memset(&d, 0, sizeof d);
	if ((rc = plan_once(l, &s, &p, &gen, &d)) == FW_OK && (rc = apply_plan(l, s, p, gen, &notes)) == FW_OK)
		report(l, n, s, p, l->cycle_ms, notes);
	if (rc != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway-slurm: cycle %ld: %s: %s\n", n, fw_strerror(rc), msg);
	}
	fw_snapshot_free(s);
	return rc;
}

static int load_config(const char *cmd, const char *path, struct fw_snapshot **s)
{
	struct fw_diag d;
	char msg[1024];

	memset(&d, 0, sizeof d);
	if (!path) {
		fprintf(stderr, "fairway-slurm: error: %s needs --config FILE: fairway's YAML, its queue tree (one "
				"leaf queue per Slurm account) and scheduler settings (docs/slurm.md, Install, step 4)\n", cmd);
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
		fprintf(l->say, "fairway-slurm: the config has no queues: %d queues from slurmdbd's accounts:", added);
		for (int32_t q = 0; q < base->nqueues; q++) {
			fprintf(l->say, " %s%s%s", base->queues[q].parent >= 0 ? base->queues[base->queues[q].parent].name : "",
			       base->queues[q].parent >= 0 ? "/" : "", base->queues[q].name);
			if (base->queues[q].limit.v[FW_RES_GPU] != FW_UNLIMITED) /* its GrpTRES on GPUs */
				fprintf(l->say, "[gpu<=%lld]", (long long)(base->queues[q].limit.v[FW_RES_GPU] / 1000));
			for (int32_t k = 0; k < base->nmodel_limits; k++)
				if (base->model_limits[k].queue == q)
					fprintf(l->say, "[%s<=%lld]", base->model_limits[k].model,
					       (long long)(base->model_limits[k].gpus / 1000));
		}
		fprintf(l->say, "\n");
		fflush(l->say);
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

/* "fifo, slurm, kai, fairway": the policies --policy takes. */
static const char *policy_list(char *buf, size_t size)
{
	const char *const *n = fw_policy_names();

	buf[0] = 0;
	for (int k = 0; n[k]; k++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", k ? ", " : "", n[k]);
	return buf;
}

/* What run and plan share: the policy, the YAML, Slurm opened and, for a
 * YAML without queues, slurmdbd's accounts as the queue tree.  0, or the
 * exit status (2 bad flag or config, 1 Slurm), with nothing left open. */
static int setup(struct args *a, struct loop *l, FILE *say)
{
	struct fw_snapshot *base = NULL;
	char hint[96], names[160];
	int rc;

	l->say = say;
	l->pol = a->policy ? fw_policy_find(a->policy) : fw_policy_default();
	if (!l->pol)
		return fprintf(stderr, "fairway-slurm: error: unknown policy '%s'%s (policies: %s; `fairway policies` "
				       "says what each does)\n", a->policy,
			       fw_cli_hint(a->policy, fw_policy_names(), hint, sizeof hint), policy_list(names, sizeof names)), 2;
	if ((rc = load_config(a->cmd, a->config, &base)) != 0)
		return rc;
	if (base->nnodes || base->njobs) /* the skeleton takes neither: they were dropped unsaid */
		fprintf(say, "fairway-slurm: note: %s: its nodes: (%d) and jobs: (%d) are not used: nodes and jobs come "
			     "from Slurm (only its queues, scheduler and topology levels are read; docs/slurm.md)\n",
			a->config, (int)base->nnodes, (int)base->njobs);
	l->usage_slurm = !a->usage_config && !opt_usage_own(a->opt); /* --opt usage=own says the same; read
								       * before open_slurm parses a->opt in place */
	if ((rc = open_slurm(a, &l->h)) != 0) {
		fw_snapshot_free(base);
		return rc;
	}
	if (base->nqueues == 0 && (rc = import_accounts(l, base)) != 0) {
		fw_slurm_close(l->h);
		fw_snapshot_free(base);
		return rc;
	}
	l->base = base;
	l->quiet = a->quiet;
	l->usage_rc = 1; /* no read yet */
	fw_arena_init(&l->arena, 0);
	return 0;
}

static void teardown(struct loop *l)
{
	fw_arena_release(&l->arena);
	fw_slurm_close(l->h);
	fw_snapshot_free(l->base);
}

static int cmd_run(struct args *a)
{
	struct loop l = { 0 };
	int rc, fails = 0;

	if ((rc = setup(a, &l, stdout)) != 0)
		return rc;
	if (!strcmp(a->cmd, "bench")) {
		rc = fw_slurm_bench(&l, a->node, a->reason);
		a->cycles = -1; /* skip the loop */
	}
	for (long n = 1; a->cycles >= 0 && !stop_flag && (!a->cycles || n <= a->cycles); n++) {
		double t0 = fw_slurm_mono_ms();
		rc = fw_slurm_loop_cycle(&l, n);
		if (rc == FW_EINVARIANT)
			break;
		if (rc == FW_OK && fails) /* as the daemon's "cycles run again" */
			fprintf(stderr, "fairway-slurm: cycle %ld: cycles run again, after %d that failed\n", n, fails);
		fails = rc == FW_OK ? 0 : fails + 1;
		sleep_s(a->interval - (fw_slurm_mono_ms() - t0) / 1e3);
	}
	teardown(&l);
	if (!strcmp(a->cmd, "bench"))
		return rc;
	return rc == FW_EINVARIANT ? 3 : fails ? 1 : 0;
}

/* ------------------------------------------------------------ plan (dry run) */

/* What run would do with the plan, and what it leaves held, all from the
 * read: nothing here calls slurmctld. */
struct dry {
	struct fw_backend_action *acts;
	int32_t nacts;
	struct fw_slurm_note *notes;          /* the waiting jobs' comments */
	int32_t nnotes;
	struct fw_backend_aside *aside;       /* the jobs the read left held */
	int32_t naside;
	int32_t kinds[FW_DECIDE_COUNT];
};

static int dry_collect(struct loop *l, const struct fw_snapshot *s, const struct fw_plan *p, struct dry *x)
{
	int rc = fw_slurm_plan_actions(s, p, &l->arena, &x->acts, &x->nacts, &x->notes, &x->nnotes);

	if (rc != FW_OK)
		return rc;
	for (int32_t k = 0; k < x->nacts; k++)
		x->kinds[x->acts[k].kind]++;
	x->naside = fw_slurm_aside(l->h, NULL, 0);
	x->aside = FW_ARENA_NEW(&l->arena, struct fw_backend_aside, x->naside ? x->naside : 1);
	if (!x->aside)
		return FW_ENOMEM;
	fw_slurm_aside(l->h, x->aside, x->naside);
	return FW_OK;
}

/* "3 start, 1 reserve" ("nothing" for none). */
static void kinds_text(const struct dry *x, char *buf, size_t n)
{
	buf[0] = 0;
	for (int k = 0; k < FW_DECIDE_COUNT; k++)
		if (x->kinds[k])
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%d %s", buf[0] ? ", " : "", (int)x->kinds[k],
				 fw_decision_name((enum fw_decision_kind)k));
	if (!buf[0])
		snprintf(buf, n, "nothing");
}

#define FW__DRY_SHOWN 20 /* comments and held jobs the text lists */

static void dry_text(const struct fw_snapshot *s, const struct fw_plan *p, const struct loop *l,
		     const struct dry *x)
{
	char kinds[160];

	fw_render_table(stdout, s, p, l->pol);
	kinds_text(x, kinds, sizeof kinds);
	printf("\ndry run: nothing was changed in Slurm.  fairway-slurm run would apply %s (docs/slurm.md, "
	       "Actions), and write the comment of each job it leaves waiting (%d) or held (%d):\n", kinds,
	       (int)x->nnotes, (int)x->naside);
	for (int32_t k = 0; k < x->nnotes && k < FW__DRY_SHOWN; k++)
		printf("  %-12s %s\n", x->notes[k].job, x->notes[k].text);
	if (x->nnotes > FW__DRY_SHOWN)
		printf("  ... %d more (--json lists them all)\n", (int)(x->nnotes - FW__DRY_SHOWN));
	printf("not planned: %d job%s fairway leaves held%s\n", (int)x->naside, x->naside == 1 ? "" : "s",
	       x->naside ? " (reason: what to do):" : "");
	for (int32_t k = 0; k < x->naside && k < FW__DRY_SHOWN; k++)
		printf("  %-12s %s@%s %s: %s\n", x->aside[k].job, x->aside[k].user, x->aside[k].queue,
		       x->aside[k].reason, x->aside[k].text);
	if (x->naside > FW__DRY_SHOWN)
		printf("  ... %d more (--json lists them all)\n", (int)(x->naside - FW__DRY_SHOWN));
}

/* One job left held, as dry_json lists it (names as GET /v1/plan's). */
static json_t *aside_json(const struct fw_backend_aside *e)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "name", e->job, "queue", e->queue, "user", e->user);

	if (o && e->gpus >= 0)
		json_object_set_new(o, "gpus", json_integer(e->gpus));
	if (o) {
		json_object_set_new(o, "reason", json_string(e->reason));
		json_object_set_new(o, "reasonText", json_string(e->text));
		json_object_set_new(o, "expectedStart", e->earliest > 0 ? json_integer(e->earliest) : json_null());
	}
	return o;
}

/* The plan's JSON (fairway plan --json's keys) with "dryRun", "actions"
 * (by kind), "comments" and "notPlanned" added.  A job in them has the
 * names a waiting job has in the plan's "pending" and in GET /v1/plan
 * (the daemon's aside jobs, serve/view.c aside_json): "name", "queue"
 * (the account, which may be no fairway queue), "user", "gpus" (left out
 * when unknown), "reason", "reasonText", "expectedStart" (null: none
 * known); a comment is "comment", the text run writes. */
static json_t *dry_json(const struct fw_snapshot *s, const struct fw_plan *p, const struct loop *l,
			const struct dry *x)
{
	json_t *o = fw_render_json(s, p, l->pol), *kinds = json_object(), *c = json_array(), *np = json_array();

	if (!o || !kinds || !c || !np) {
		json_decref(o), json_decref(kinds), json_decref(c), json_decref(np);
		return NULL;
	}
	for (int k = 0; k < FW_DECIDE_COUNT; k++)
		json_object_set_new(kinds, fw_decision_name((enum fw_decision_kind)k), json_integer(x->kinds[k]));
	for (int32_t k = 0; k < x->nnotes; k++)
		json_array_append_new(c, json_pack("{s:s,s:s}", "name", x->notes[k].job, "comment", x->notes[k].text));
	for (int32_t k = 0; k < x->naside; k++)
		json_array_append_new(np, aside_json(&x->aside[k]));
	json_object_set_new(o, "dryRun", json_true());
	json_object_set_new(o, "actions", kinds);
	json_object_set_new(o, "comments", c);
	json_object_set_new(o, "notPlanned", np);
	return o;
}

static int dry_print(const struct fw_snapshot *s, const struct fw_plan *p, const struct loop *l,
		     const struct dry *x, bool json)
{
	json_t *o;
	int rc;

	if (!json) {
		dry_text(s, p, l, x);
		return fflush(stdout) ? 1 : 0;
	}
	if (!(o = dry_json(s, p, l, x)))
		return fprintf(stderr, "fairway-slurm: error: out of memory\n"), 1;
	rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	fputc('\n', stdout);
	return rc || fflush(stdout) ? 1 : 0;
}

/* plan: one read, one cycle, printed; nothing applied.  0; 1 Slurm (or
 * its data) failed; 2 bad flag or config; 3 a plan that breaks an
 * invariant. */
static int cmd_plan(struct args *a)
{
	struct loop l = { 0 };
	struct fw_snapshot *s = NULL;
	struct fw_plan *p = NULL;
	struct dry x = { 0 };
	struct fw_diag d;
	char msg[1024];
	uint64_t gen = 0;
	int rc;

	if ((rc = setup(a, &l, stderr)) != 0)
		return rc;
	memset(&d, 0, sizeof d);
	if ((rc = plan_once(&l, &s, &p, &gen, &d)) == FW_OK && (rc = dry_collect(&l, s, p, &x)) == FW_OK)
		rc = dry_print(s, p, &l, &x, a->json);
	else {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway-slurm: %s: %s: %s (nothing was changed in Slurm)\n",
			rc == FW_EINVARIANT ? "BUG: the plan breaks an invariant" : "error", fw_strerror(rc), msg);
		rc = rc == FW_EINVARIANT ? 3 : 1;
	}
	fw_snapshot_free(s);
	teardown(&l);
	return rc;
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
	if (!strcmp(a.cmd, "plan"))
		return cmd_plan(&a);
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
	return 2; /* parse refused any other command */
}
