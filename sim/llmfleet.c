/*
 * llmfleet.c — the LLM-fleet workload, one health replay with its metrics,
 * and `fairway-health-sim`, which regenerates docs/results-health.md
 * (llmfleet.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/snapshot.h"
#include "itp.h"
#include "llmfleet.h"
#include "teams.h"

#define DAY 86400
#define HOUR 3600

/* ---- workload ------------------------------------------------------------ */

struct kind {
	const char *queue;
	double share;             /* of jobs */
	int32_t gpus[4];
	double weight[4];
	double median_s, sigma, lo_s, hi_s;
};

static const struct kind kinds[3] = {
	{ "pretrain", 0.02, { 256, 512, 1024, 0 }, { 0.5, 0.3, 0.2, 0 }, 3.0 * DAY, 0.5, 1.0 * DAY, 10.0 * DAY },
	{ "finetune", 0.28, { 8, 16, 32, 64 }, { 0.4, 0.3, 0.2, 0.1 }, 6.0 * HOUR, 0.8, 1.0 * HOUR, 48.0 * HOUR },
	{ "eval", 0.70, { 1, 2, 4, 8 }, { 0.4, 0.2, 0.2, 0.2 }, 20.0 * 60, 0.7, 120.0, 3.0 * HOUR },
};

struct rng {
	uint64_t s;
};

static double unit(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return (double)(fw_splitmix64(r->s) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(struct rng *r)
{
	double u = unit(r), v = unit(r);

	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static int pick(struct rng *r, const double *w, int n)
{
	double u = unit(r), acc = 0;

	for (int i = 0; i < n; i++)
		if (u < (acc += w[i]))
			return i;
	return n - 1;
}

/* One job's type, GPUs and duration. */
static void draw(struct rng *r, int *k, int32_t *gpus, int64_t *dur)
{
	double sh[3] = { kinds[0].share, kinds[1].share, kinds[2].share };
	const struct kind *t = &kinds[*k = pick(r, sh, 3)];
	double d = t->median_s * exp(t->sigma * normal(r));

	*gpus = t->gpus[pick(r, t->weight, 4)];
	*dur = (int64_t)(d < t->lo_s ? t->lo_s : d > t->hi_s ? t->hi_s : d);
}

void fw_llmfleet_default(struct fw_llmfleet *f)
{
	f->nodes = 512;
	f->gpus_per_node = 8;
	f->span_s = 30 * DAY;
	f->load = 0.85;
	f->seed = 1;
}

/* Mean GPU-seconds per job, from 200,000 draws of a fixed stream. */
static double mean_gpu_s(void)
{
	struct rng r = { 0x5eed };
	double sum = 0;

	for (int i = 0; i < 200000; i++) {
		int k;
		int32_t g;
		int64_t d;
		draw(&r, &k, &g, &d);
		sum += (double)g * (double)d;
	}
	return sum / 200000.0;
}

static void make_job(struct fw_trace_job *j, size_t i, int k, int32_t gpus, int64_t dur, int64_t at,
		     int32_t G)
{
	memset(j, 0, sizeof *j);
	snprintf(j->id, sizeof j->id, "j%06zu", i);
	snprintf(j->queue, sizeof j->queue, "%s", kinds[k].queue);
	j->submit = at;
	j->duration = j->expected = dur;
	j->ngroups = 1;
	j->groups[0].count = gpus > G ? gpus / G : 1;
	j->groups[0].gpus = gpus > G ? G : gpus;
	j->groups[0].gpu_milli = 1000;
	j->line = (int32_t)i + 1;
}

int fw_llmfleet_generate(const struct fw_llmfleet *f, struct fw_trace *out)
{
	struct rng r = { fw_splitmix64(f->seed ^ 0x11f1ee7ull) };
	double cap = (double)f->nodes * f->gpus_per_node * (double)f->span_s;
	double rate = f->load * cap / mean_gpu_s() / (double)f->span_s; /* jobs per second */
	double t = 0;
	int rc = FW_OK;

	memset(out, 0, sizeof *out);
	snprintf(out->file, sizeof out->file, "llmfleet(seed %llu)", (unsigned long long)f->seed);
	for (size_t i = 0; rc == FW_OK; i++) {
		struct fw_trace_job j;
		int k;
		int32_t g;
		int64_t d;
		t += -log(1.0 - unit(&r)) / rate;
		if (t >= (double)f->span_s)
			break;
		draw(&r, &k, &g, &d);
		make_job(&j, i, k, g, d, (int64_t)t, f->gpus_per_node);
		rc = fw_trace_push(out, &j);
	}
	return rc;
}

/* ---- one replay ----------------------------------------------------------- */

static int bucket_of(int64_t gpus)
{
	return gpus >= 256 ? FW_HB_BIG : gpus > 8 ? FW_HB_MID : FW_HB_SMALL;
}

struct acc {
	double *ran;      /* per row: seconds its runs ran */
	int64_t *last;    /* per row: end of its last run */
	int64_t t_end;
};

static int accumulate_runs(const struct fw_trace *t, const struct fw_sim_result *r, int64_t window,
			   struct acc *a, double *busy)
{
	a->ran = calloc(t->n + 1, sizeof *a->ran);
	a->last = calloc(t->n + 1, sizeof *a->last);
	if (!a->ran || !a->last)
		return FW_ENOMEM;
	a->t_end = 0;
	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].end > a->t_end)
			a->t_end = r->runs[i].end;
	*busy = 0;
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fw_sim_span *s = &r->runs[i];
		int64_t e = s->end < 0 ? a->t_end : s->end;
		int64_t lo = s->start, hi = e < window ? e : window;
		a->ran[s->row] += (double)(e - s->start);
		if (e > a->last[s->row])
			a->last[s->row] = e;
		if (hi > lo)
			*busy += (double)(hi - lo) * (double)fw_trace_job_gpus(&t->v[s->row]);
	}
	return FW_OK;
}

static void job_metrics(const struct fw_trace *t, const struct fw_sim_result *r,
			const struct fw_health_tracker *k, const struct acc *a, struct fw_health_metrics *m)
{
	double ettr[FW_HB_COUNT] = { 0 }, hits[FW_HB_COUNT] = { 0 }, jct = 0;

	for (size_t i = 0; i < t->n; i++) {
		int64_t g = fw_trace_job_gpus(&t->v[i]);
		int b = bucket_of(g);
		m->lost_gpu_h += (double)g * k->lost_fail_s[i] / HOUR;
		m->lost_flaky_gpu_h += (double)g * k->lost_flaky_s[i] / HOUR;
		m->lost_all_gpu_h += (double)g * k->lost_s[i] / HOUR;
		if (r->start[i] < 0) {
			m->never_started++;
			continue;
		}
		double wall = (double)((r->end[i] >= 0 ? r->end[i] : a->t_end) - r->start[i]);
		double e = wall > 0 ? (a->ran[i] - k->lost_s[i]) / wall : 1.0;
		for (int x = 0; x < 2; x++) {
			int bb = x ? FW_HB_ALL : b;
			ettr[bb] += e;
			hits[bb] += k->fail_hits[i];
			m->jobs[bb]++;
		}
		if (r->end[i] >= 0) {
			m->finished++;
			jct += (double)(r->end[i] - t->v[i].submit);
		}
	}
	for (int b = 0; b < FW_HB_COUNT; b++) {
		m->ettr[b] = m->jobs[b] ? ettr[b] / (double)m->jobs[b] : NAN;
		m->fail_per_job[b] = m->jobs[b] ? hits[b] / (double)m->jobs[b] : NAN;
	}
	m->jct_mean = m->finished ? jct / (double)m->finished : NAN;
}

/* The failures as the scheduler sees them: GPU faults as that GPU's
 * (or, without the agent, the node's) and, blind to silent faults, those
 * as crashes; *view and *gview hold the copies made. */
static int seen_failures(const struct fw_health_run *run, const struct fw_sim_failure **fails, size_t *nfails,
			 struct fw_sim_failure **view, struct fw_sim_failure **gview)
{
	int rc;

	if (run->gpu.fraction > 0) {
		if ((rc = fw_failure_gpu_view(*fails, *nfails, &run->gpu, run->aware && !run->no_agent, gview,
					      nfails)) != FW_OK)
			return rc;
		*fails = *gview;
	}
	if ((!run->aware || run->no_agent) && run->silent.fraction > 0) {
		if ((rc = fw_failure_blind_view(*fails, *nfails, &run->silent, view, nfails)) != FW_OK) {
			free(*gview);
			return rc;
		}
		*fails = *view;
	}
	return FW_OK;
}

static void tracker_setup(struct fw_health_tracker *k, const struct fw_trace *t, const struct fw_health_run *run,
			  const struct fw_sim_failure *fails, size_t nfails)
{
	memset(k, 0, sizeof *k);
	k->aware = run->aware;
	k->no_agent = run->no_agent;
	k->cfg = run->cfg;
	k->checkpoint_s = FW_SIM_CHECKPOINT_S;
	k->restart_s = run->restart_s;
	k->flaky = run->flaky;
	k->trace = t;
	k->v = fails;
	k->n = nfails;
}

/* The fairway policy on nodes x gpus, with the tracker's hooks and the
 * scripted failures. */
static void replay_opts(struct fw_sim_opts *o, int32_t nodes, int32_t gpus, const struct fw_health_run *run,
			struct fw_sim_hooks *h, struct fw_sim_failures *f)
{
	fw_sim_opts_default(o);
	o->policy = "fairway";
	o->nodes = nodes;
	o->gpus_per_node = gpus;
	o->hooks = h;
	o->next_wake = fw_health_tracker_next_wake;
	o->lemon_gang_gpus = run->lemon_gang_gpus;
	o->failures = f;
}

/* The fleet's numbers once the replay's runs are accumulated. */
static void fleet_metrics(const struct fw_sim_result *r, const struct fw_health_tracker *k, double busy,
			  double gpu_s, struct fw_health_metrics *m)
{
	m->occupancy = busy / gpu_s;
	m->failures = r->failures;
	m->failure_hits = r->failure_hits;
	m->suspect_nodes_mean = k->ticks ? (double)k->suspect_node_ticks / (double)k->ticks : 0;
	m->lemon_nodes_mean = k->ticks ? (double)k->lemon_node_ticks / (double)k->ticks : 0;
	m->wall_s = r->wall_s;
}

int fw_health_replay(const struct fw_trace *t, int32_t nodes, int32_t gpus, int64_t window_s,
		     const struct fw_sim_failure *fails, size_t nfails,
		     const struct fw_health_run *run, struct fw_health_metrics *m, struct fw_diag *d)
{
	struct fw_health_tracker k;
	struct fw_sim_hooks h;
	struct fw_sim_failure *now_on = NULL, *view = NULL, *gview = NULL;
	size_t nnow = 0;
	struct fw_sim_scripted sc = { NULL, 0, 0 };
	struct fw_sim_failures f = { fw_sim_scripted_next, &sc };
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_teams teams;
	struct acc a = { 0 };
	double busy = 0;
	int rc;

	memset(m, 0, sizeof *m);
	if ((rc = seen_failures(run, &fails, &nfails, &view, &gview)) != FW_OK)
		return rc;
	tracker_setup(&k, t, run, fails, nfails);
	if ((rc = fw_health_tracker_init(&k, nodes)) != FW_OK ||
	    (rc = fw_failure_replay_list(fails, nfails, &now_on, &nnow)) != FW_OK) {
		fw_health_tracker_free(&k);
		free(now_on);
		free(view);
		free(gview);
		return rc;
	}
	sc.v = now_on;
	sc.n = nnow;
	fw_health_tracker_hooks(&k, &h);
	replay_opts(&o, nodes, gpus, run, &h, &f);
	fw_teams_builtin(&teams);
	rc = fw_sim_run_trace(t, &teams, &o, &r, d);
	if (rc == FW_OK && (rc = accumulate_runs(t, &r, window_s, &a, &busy)) == FW_OK) {
		job_metrics(t, &r, &k, &a, m);
		fleet_metrics(&r, &k, busy, (double)nodes * gpus * (double)window_s, m);
	}
	free(a.ran);
	free(a.last);
	fw_sim_result_free(&r);
	fw_health_tracker_free(&k);
	free(now_on);
	free(view);
	free(gview);
	return rc;
}
