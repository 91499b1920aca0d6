/*
 * report.c — the HTML report (contract in report.h).
 *
 * Shape.  fw_report_emit writes, in order: the head (inline CSS), the
 * summary table, and three chart sections.  Charts share one small
 * plotting kit: struct plot maps data to SVG coordinates (linear or log
 * x), grid() draws ticks, gridlines and axis titles, and each section only
 * computes ranges and emits <path> elements.  Series are already binned
 * (metrics.c, FW_MET_BINS points), CDFs are drawn from the sorted samples
 * with at most CDF_POINTS steps, so the file stays small (~100-300 KB).
 *
 * Units: time axes in hours or days since the first arrival (days when
 * the window is two days or more), waiting times on a log axis from 1 s
 * (a wait of 0 s is drawn at 1 s), GPUs as counts, occupancy in percent.
 * Colours: one per policy, in --policies order, from a palette chosen to
 * stay distinct for colour-blind readers.
 */
#include <math.h>
#include <string.h>

#include "fairway/span.h"
#include "report.h"

#define CDF_POINTS 400
#define W_PAGE 1150.0

static const char *const palette[] = { "#4269d0", "#ef8a17", "#3ca951", "#d94a8c",
				       "#8f5bd6", "#18a3ac", "#9c6b30", "#6f7782" };

static const char *color(int i)
{
	return palette[i % (int)(sizeof palette / sizeof palette[0])];
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* 93784 -> "1.1 d"; negative -> "—". */
static void fmt_dur(char *b, size_t n, double s)
{
	if (s < 0)
		snprintf(b, n, "\xe2\x80\x94");
	else if (s < 120)
		snprintf(b, n, "%.0f s", s);
	else if (s < 7200)
		snprintf(b, n, "%.1f min", s / 60);
	else if (s < 172800)
		snprintf(b, n, "%.1f h", s / 3600);
	else
		snprintf(b, n, "%.1f d", s / 86400);
}

/* ---- plotting kit ------------------------------------------------------------ */

struct plot {
	double x, y, w, h;       /* plot area inside the svg */
	double x0, x1, y0, y1;   /* data ranges */
	bool xlog;
};

static double px(const struct plot *p, double v)
{
	double a = p->xlog ? log10(v < p->x0 ? p->x0 : v) : v;
	double lo = p->xlog ? log10(p->x0) : p->x0, hi = p->xlog ? log10(p->x1) : p->x1;

	return p->x + (hi > lo ? (a - lo) / (hi - lo) : 0) * p->w;
}

static double py(const struct plot *p, double v)
{
	return p->y + p->h - (p->y1 > p->y0 ? (v - p->y0) / (p->y1 - p->y0) : 0) * p->h;
}

/* 1, 2 or 5 times a power of ten, about range/n. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag = pow(10, floor(log10(raw > 0 ? raw : 1)));
	double r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

static double nice_ceil(double v)
{
	double s = nice_step(v > 0 ? v : 1, 5);

	return ceil((v > 0 ? v : 1) / s - 1e-9) * s;
}

static void text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s%s>", x, y, anchor,
		cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	esc(f, s);
	fputs("</text>\n", f);
}

/* Horizontal gridlines and y labels: fmt gets the value. */
static void grid_y(FILE *f, const struct plot *p, int n, const char *fmt, double scale)
{
	double st = nice_step(p->y1 - p->y0, n);
	char b[32];

	for (double v = p->y0; v <= p->y1 + st * 1e-6; v += st) {
		fprintf(f, "<line class=\"g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
			p->x, p->x + p->w, py(p, v), py(p, v));
		snprintf(b, sizeof b, fmt, v * scale);
		text(f, p->x - 6, py(p, v) + 3.5, "end", NULL, b);
	}
}

static void tick_x(FILE *f, const struct plot *p, double v, const char *label)
{
	double x = px(p, v);

	fprintf(f, "<line class=\"g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", x, x,
		p->y, p->y + p->h);
	text(f, x, p->y + p->h + 14, "middle", NULL, label);
}

/* Linear time axis in hours or days; an axis title unless title is NULL. */
static void grid_time(FILE *f, const struct plot *p, int n, const char *title)
{
	double unit = p->x1 - p->x0 >= 2 * 86400.0 ? 86400.0 : 3600.0;
	double st = nice_step((p->x1 - p->x0) / unit, n) * unit;
	char b[64];

	for (double v = p->x0; v <= p->x1 + st * 1e-6; v += st) {
		snprintf(b, sizeof b, "%g", (v - p->x0) / unit);
		tick_x(f, p, v, b);
	}
	snprintf(b, sizeof b, "%s (%s)", title ? title : "", unit > 3600 ? "days" : "hours");
	if (title)
		text(f, p->x + p->w / 2, p->y + p->h + 30, "middle", "t", b);
}

/* Log axis for waiting times: 1 s .. x1, at human units. */
static void grid_wait(FILE *f, const struct plot *p)
{
	static const struct { double s; const char *l; } t[] = {
		{ 1, "\xe2\x89\xa4" "1 s" }, { 10, "10 s" }, { 60, "1 min" }, { 600, "10 min" },
		{ 3600, "1 h" }, { 21600, "6 h" }, { 86400, "1 d" }, { 604800, "1 w" },
		{ 2419200, "4 w" }, { 9676800, "16 w" }, { 31536000, "1 y" },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0] && t[i].s <= p->x1 * 1.0001; i++)
		tick_x(f, p, t[i].s, t[i].l);
	text(f, p->x + p->w / 2, p->y + p->h + 30, "middle", "t", "time to start (log scale)");
}

static void frame(FILE *f, const struct plot *p)
{
	fprintf(f, "<line class=\"a\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", p->x,
		p->x + p->w, p->y + p->h, p->y + p->h);
}

static void svg_open(FILE *f, double w, double h, const char *label)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", w, h, w, h);
	esc(f, label);
	fputs("\">\n", f);
}

/* ---- head --------------------------------------------------------------------- */

static const char css[] =
	"*{box-sizing:border-box}"
	"body{margin:0;background:#f6f7f9;color:#1f2328;font:14px/1.45 system-ui,-apple-system,"
	"'Segoe UI',Roboto,'Helvetica Neue','DejaVu Sans',Arial,sans-serif}"
	"main{max-width:1260px;margin:0 auto;padding:28px 32px 48px}"
	"h1{font-size:26px;font-weight:650;margin:0 0 4px;letter-spacing:-.01em}"
	"h2{font-size:17px;font-weight:620;margin:0 0 2px}"
	".sub{color:#57606a;margin:0 0 20px}"
	".card{background:#fff;border:1px solid #e3e6ea;border-radius:10px;padding:18px 22px;"
	"margin:0 0 18px}"
	".note{color:#57606a;font-size:13px;margin:0 0 10px}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"th,td{padding:5px 16px;border-bottom:1px solid #eef0f3;text-align:right;white-space:nowrap}"
	"th:first-child,td:first-child{text-align:left;padding-left:0}"
	"thead th{font-weight:620;border-bottom:2px solid #d0d7de}"
	"td.win{background:#dcf5e3;color:#0f5323;font-weight:650}"
	"td.dir{color:#8c959f;font-size:12px;text-align:center;padding:5px 4px}"
	"tr.sec td{color:#57606a;font-size:12px;text-transform:uppercase;letter-spacing:.04em;"
	"padding-top:12px}"
	".legend{display:flex;flex-wrap:wrap;gap:6px 20px;margin:2px 0 8px;font-size:13px}"
	".sw{display:inline-block;width:18px;height:4px;border-radius:2px;vertical-align:middle;"
	"margin-right:6px}"
	".dash{display:inline-block;width:18px;border-top:2px dashed #1f2328;vertical-align:middle;"
	"margin-right:6px}"
	".dot{display:inline-block;width:18px;border-top:2px dotted #9aa3ad;vertical-align:middle;"
	"margin-right:6px}"
	".grid{display:flex;flex-wrap:wrap;gap:8px 18px}"
	".cell h3{font-size:13px;font-weight:600;margin:4px 0 0 52px}"
	".cell h3 span{color:#57606a;font-weight:400}"
	"svg{display:block;overflow:visible}"
	"svg text{font-size:11px;fill:#57606a}svg text.t{font-size:12px;fill:#1f2328}"
	"svg line.g{stroke:#eceff2;stroke-width:1}svg line.a{stroke:#8c959f;stroke-width:1}"
	"td.q{font-weight:600;vertical-align:middle}td.q span{display:block;color:#57606a;"
	"font-weight:400;font-size:12px}"
	"table.sh td{padding:0 6px 0 0;border:0}table.sh th{border:0;text-align:center}";

static void head(FILE *f, const struct fw_met_run *mr)
{
	const char *base = strrchr(mr->trace, '/');

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	      "<title>fairway sim report: ", f);
	esc(f, base ? base + 1 : mr->trace);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body><main>\n", css);
	fputs("<h1>fairway sim \xc2\xb7 ", f);
	esc(f, base ? base + 1 : mr->trace);
	if (strchr(mr->shape, '+')) /* a fleet of mixed node sizes */
		fprintf(f, "</h1>\n<p class=\"sub\">%zu job%s replayed on %d nodes of mixed sizes, "
			"%s nodes \xc3\x97 GPUs (%lld GPUs", mr->jobs, mr->jobs == 1 ? "" : "s",
			(int)mr->fleet_nodes, mr->shape,
			(long long)mr->capacity_gpus);
	else
		fprintf(f, "</h1>\n<p class=\"sub\">%zu job%s replayed on %d nodes \xc3\x97 %d GPUs "
			"(%lld GPUs", mr->jobs, mr->jobs == 1 ? "" : "s", (int)mr->nodes, (int)mr->gpus_per_node,
			(long long)mr->capacity_gpus);
	if (mr->nodes_per_rack > 0)
		fprintf(f, ", racks of %d nodes", (int)mr->nodes_per_rack);
	char tick[FW_SPAN_MAX];
	fprintf(f, "), scheduling tick %s, through %d polic%s of the same engine: ",
		fw_span_format(mr->tick_s, tick, sizeof tick), mr->npol, mr->npol == 1 ? "y" : "ies");
	for (int i = 0; i < mr->npol; i++) {
		fprintf(f, "%s<b style=\"color:%s\">", i ? ", " : "", color(i));
		esc(f, mr->pol[i]->name);
		fputs("</b>", f);
	}
	fputs(". Trace: <code>", f);
	esc(f, mr->trace);
	fputs("</code>.</p>\n", f);
}

static void legend(FILE *f, const struct fw_met_run *mr, bool occ)
{
	char b[64];

	fputs("<div class=\"legend\">", f);
	for (int i = 0; i < mr->npol; i++) {
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>", color(i));
		esc(f, mr->pol[i]->name);
		if (occ) {
			snprintf(b, sizeof b, " \xc2\xb7 mean %.1f%%", 100 * mr->pol[i]->base.occupancy);
			esc(f, b);
		}
		fputs("</span>", f);
	}
	fputs("</div>\n", f);
}

/* ---- summary table --------------------------------------------------------------- */

enum met { M_OCC, M_IDLE, M_GOOD, M_W50, M_W95, M_W99, M_WB1, M_WB2, M_WB9, M_WB33, M_WB9P,
	   M_JCT, M_JCT95, M_MAKE, M_JAIN, M_JAIN1D, M_DEV, M_NEVER, M_DEC, M_CYC, M_LOST, M_EVMEAN,
	   M_EVMAX, M_LIMIT, M_OWN, M_TO, M_TOGPU, M_TOCUT, M_BUDGET, M_HALF, M_SUSTAIN, M_HELD, M_ESTERR,
	   M_BIGERR, M_BIGRATIO };

struct row {
	const char *sec, *label;
	int better;   /* +1 higher wins, -1 lower wins, 0 no winner */
	char fmt;     /* p percent, h GPU-hours, d duration, r ratio, i integer,
		       * L a limit (a duration, 0 = none), B a budget (GPU-hours,
		       * 0 = none), g a number to 3 significant digits */
	enum met id;
};

static const struct row rows[] = {
	{ "Utilisation", "Occupancy (GPU-time allocated / capacity)", +1, 'p', M_OCC },
	{ NULL, "GPU-hours idle while a job waits", -1, 'h', M_IDLE },
	{ NULL, "Goodput (useful GPU-hours)", +1, 'h', M_GOOD },
	{ "Time to start, all jobs", "p50", -1, 'd', M_W50 },
	{ NULL, "p95", -1, 'd', M_W95 },
	{ NULL, "p99", -1, 'd', M_W99 },
	{ "Time to start p95, by job size", "1 GPU", -1, 'd', M_WB1 },
	{ NULL, "2\xe2\x80\x93" "8 GPUs", -1, 'd', M_WB2 },
	{ NULL, "9\xe2\x80\x93" "32 GPUs", -1, 'd', M_WB9 },
	{ NULL, "33+ GPUs", -1, 'd', M_WB33 },
	{ NULL, "9+ GPUs", -1, 'd', M_WB9P }, /* fw_met_b9_label */
	{ "Completion", "JCT mean", -1, 'd', M_JCT },
	{ NULL, "JCT p95", -1, 'd', M_JCT95 },
	{ NULL, "Makespan", -1, 'd', M_MAKE },
	{ "Fairness", "Jain's index of allocated / fair share (1 = fair)", +1, 'r', M_JAIN },
	{ NULL, "The same over 1-day windows (GPU-time received / fair)", +1, 'r', M_JAIN1D },
	{ NULL, "Worst queue's mean |allocated / fair \xe2\x88\x92 1|", -1, 'r', M_DEV },
	{ "Work", "Jobs never started", -1, 'i', M_NEVER },
	{ NULL, "Decisions (starts, restarts included)", 0, 'i', M_DEC },
	{ NULL, "Scheduling cycles", 0, 'i', M_CYC },
	{ "Preemption", "GPU-hours lost to evictions", -1, 'h', M_LOST },
	{ NULL, "Evictions per job, mean", -1, 'r', M_EVMEAN },
	{ NULL, "Evictions per job, max", -1, 'i', M_EVMAX },
	/* only when a limit was in force or a job timed out (limits_shown) */
	{ "Run-time limits", "Every queue's limit (--max-runtime)", 0, 'L', M_LIMIT },
	{ NULL, "Jobs with a limit of their own (trace max_runtime)", 0, 'i', M_OWN },
	{ NULL, "Jobs ended by their run-time limit (TIMEOUT)", 0, 'i', M_TO },
	{ NULL, "GPU-hours their ended runs held", 0, 'h', M_TOGPU },
	{ NULL, "GPU-hours of their work the limit cut", 0, 'h', M_TOCUT },
	/* only when a replay had a budget or held a job over one (budgets_shown) */
	{ "GPU-hour budgets", "Every queue's budget, GPU-hours (--gpu-hour-budget)", 0, 'B', M_BUDGET },
	{ NULL, "Usage half-life (--usage-half-life)", 0, 'd', M_HALF },
	{ NULL, "GPUs of steady use a budget sustains (budget \xc3\x97 ln 2 / half-life)", 0, 'g', M_SUSTAIN },
	{ NULL, "Jobs held over their queue's budget (over_budget)", 0, 'i', M_HELD },
	{ "Start-time estimates (first estimate vs actual start)", "Median |error|, all jobs",
	  -1, 'd', M_ESTERR },
	{ NULL, "Median |error|, 9+ GPUs that waited \xe2\x89\xa5 1 h", -1, 'd', M_BIGERR },
	{ NULL, "Same, as a share of their wait (target \xe2\x89\xa4 25%)", -1, 'p', M_BIGRATIO },
};

static double value(const struct fw_met_policy *p, enum met id)
{
	const struct fw_sim_stats *all = &p->base.bucket[FW_SIM_BALL], *b = p->base.bucket;

	switch (id) {
	case M_OCC: return p->base.occupancy;
	case M_IDLE: return p->idle_while_waiting_gpu_h;
	case M_GOOD: return p->goodput_gpu_h;
	case M_W50: return (double)all->tts_p50;
	case M_W95: return (double)all->tts_p95;
	case M_W99: return (double)all->tts_p99;
	case M_WB1: return (double)b[FW_SIM_B1].tts_p95;
	case M_WB2: return (double)b[FW_SIM_B2_8].tts_p95;
	case M_WB9: return (double)b[FW_SIM_B9_32].tts_p95;
	case M_WB33: return (double)b[FW_SIM_B33].tts_p95;
	case M_WB9P: return (double)b[FW_SIM_B9].tts_p95;
	case M_JCT: return all->jct_mean;
	case M_JCT95: return (double)all->jct_p95;
	case M_MAKE: return (double)p->base.makespan_s;
	case M_JAIN: return p->fairness_jain;
	case M_JAIN1D: return p->fairness_jain_win[2]; /* metrics.h: 1h, 6h, 1d, 7d */
	case M_DEV: return p->fairness_max_dev;
	case M_NEVER: return (double)p->never_started;
	case M_DEC: return (double)p->decisions;
	case M_LOST: return p->lost_gpu_h;
	case M_EVMEAN: return p->evictions_per_job_mean;
	case M_EVMAX: return (double)p->evictions_per_job_max;
	case M_LIMIT: return (double)p->max_runtime_s;
	case M_OWN: return (double)p->job_limits;
	case M_TO: return (double)p->timed_out;
	case M_TOGPU: return p->timed_out_gpu_h;
	case M_TOCUT: return p->timed_out_cut_gpu_h;
	case M_BUDGET: return p->gpu_hour_budget;
	case M_HALF: return p->usage_half_life_s > 0 ? p->usage_half_life_s : -1;
	case M_SUSTAIN:
		return p->gpu_hour_budget > 0 && p->usage_half_life_s > 0
		       ? p->gpu_hour_budget * 3600 * log(2.0) / p->usage_half_life_s : -1;
	case M_HELD: return (double)p->over_budget_jobs;
	case M_ESTERR: return (double)p->est.err_p50_s;
	case M_BIGERR: return (double)p->est.big_err_p50_s;
	case M_BIGRATIO: return p->est.big_ratio_p50;
	default: return (double)p->cycles;
	}
}

static void fmt_value(char *b, size_t n, char fmt, double v)
{
	if (v < 0)
		snprintf(b, n, "\xe2\x80\x94");
	else if (fmt == 'p')
		snprintf(b, n, "%.1f%%", 100 * v);
	else if (fmt == 'h')
		snprintf(b, n, "%.1f", v);
	else if (fmt == 'd' || (fmt == 'L' && v > 0))
		fmt_dur(b, n, v);
	else if (fmt == 'L' || (fmt == 'B' && v == 0))
		snprintf(b, n, "none");
	else if (fmt == 'B')
		snprintf(b, n, "%.10g", v);
	else if (fmt == 'r')
		snprintf(b, n, "%.3f", v);
	else if (fmt == 'g')
		snprintf(b, n, "%.3g", v);
	else
		snprintf(b, n, "%.0f", v);
}

static bool same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-12;
}

/* Is the metric measured over the jobs a policy started, or up to the end
 * of its replay (its last completion, or its last arrival while jobs wait
 * on: their endless wait is cut there)?  Then only policies that left the
 * fewest jobs never started may win it (fw_met_may_win). */
static bool over_started(enum met id)
{
	switch (id) {
	case M_OCC: case M_IDLE: case M_W50: case M_W95: case M_W99: case M_WB1: case M_WB2: case M_WB9: case M_WB33:
	case M_WB9P: case M_JCT: case M_JCT95: case M_MAKE: case M_LOST: case M_EVMEAN:
	case M_EVMAX: case M_ESTERR: case M_BIGERR: case M_BIGRATIO:
		return true;
	default:
		return false;
	}
}

static bool may_win(const struct fw_met_run *mr, const struct row *r, int i)
{
	return !over_started(r->id) || fw_met_may_win(mr, i);
}

/* The best value of a row, or -1 when there is no winner (no direction,
 * one policy, no values, or every policy ties). */
static double best_of(const struct fw_met_run *mr, const struct row *r)
{
	double best = -1;
	int n = 0, tie = 0;

	for (int i = 0; i < mr->npol; i++) {
		double v = value(mr->pol[i], r->id);
		if (v < 0 || !may_win(mr, r, i))
			continue;
		n++;
		if (best < 0 || (r->better > 0 ? v > best : v < best))
			best = v;
	}
	for (int i = 0; i < mr->npol; i++)
		tie += value(mr->pol[i], r->id) >= 0 && same(value(mr->pol[i], r->id), best);
	return r->better == 0 || mr->npol < 2 || n == 0 || tie == mr->npol ? -1 : best;
}

#define CONFIG_LISTED 4 /* queues a --config limit or budget cell names */

/* Under --config the run-time limit and budget rows are each queue's own
 * (maxRuntime, gpuHourBudget), the same for every policy: b gets "product
 * 4.0 h" or "vision 4" (the first CONFIG_LISTED queues, then "N more"),
 * or "none".  false: not such a row. */
static bool config_cell(const struct fw_met_run *mr, enum met id, char *b, size_t n)
{
	const struct fw_snapshot *s = mr->config;
	size_t k = 0;
	int listed = 0, more = 0;
	char v[48];

	if (!s || (id != M_LIMIT && id != M_BUDGET))
		return false;
	b[0] = '\0';
	for (int32_t q = 0; q < s->nqueues; q++) {
		double x = id == M_LIMIT ? (double)s->queues[q].max_runtime_s : s->queues[q].gpu_hour_budget;
		if (!(x > 0))
			continue;
		if (listed == CONFIG_LISTED) {
			more++;
			continue;
		}
		fmt_value(v, sizeof v, id == M_LIMIT ? 'L' : 'B', x);
		k += (size_t)snprintf(b + k, k < n ? n - k : 0, "%s%s %s", listed++ ? ", " : "", s->queues[q].name, v);
		k = k < n ? k : n;
	}
	if (more)
		snprintf(b + k, k < n ? n - k : 0, ", %d more", more);
	if (!listed)
		snprintf(b, n, "none");
	return true;
}

/* A row's label: under --config the limit and budget rows name the
 * config's keys rather than the flags (refused beside it). */
static const char *row_label(const struct fw_met_run *mr, const struct row *r)
{
	if (mr->config && r->id == M_LIMIT)
		return "Each queue's limit (the config's maxRuntime)";
	if (mr->config && r->id == M_BUDGET)
		return "Each queue's budget, GPU-hours (the config's gpuHourBudget)";
	if (r->id == M_WB9P)
		return fw_met_b9_label(mr);
	return r->label;
}

static void table_row(FILE *f, const struct fw_met_run *mr, const struct row *r)
{
	double best = best_of(mr, r);
	char b[64], cell[400];

	if (r->sec) {
		fprintf(f, "<tr class=\"sec\"><td colspan=\"%d\">", mr->npol + 2);
		esc(f, r->sec);
		fputs("</td></tr>\n", f);
	}
	fputs("<tr><td>", f);
	esc(f, row_label(mr, r));
	fprintf(f, "</td><td class=\"dir\">%s</td>", r->better > 0 ? "\xe2\x86\x91" :
		r->better < 0 ? "\xe2\x86\x93" : "");
	for (int i = 0; i < mr->npol; i++) {
		if (config_cell(mr, r->id, cell, sizeof cell)) {
			fputs("<td>", f);
			esc(f, cell);
			fputs("</td>", f);
			continue;
		}
		double v = value(mr->pol[i], r->id);
		fmt_value(b, sizeof b, r->fmt, v);
		bool win = best >= 0 && v >= 0 && same(v, best) && may_win(mr, r, i);
		fprintf(f, "<td%s>%s</td>", win ? " class=\"win\"" : "", b);
	}
	fputs("</tr>\n", f);
}

static bool limit_row(enum met id)
{
	return id == M_LIMIT || id == M_OWN || id == M_TO || id == M_TOGPU || id == M_TOCUT;
}

/* The run-time limit rows: only when some replay had a limit (the
 * queues' or a job's own) or ended a job by one, so that a report of a
 * run without limits is what it was before they existed. */
static bool limits_shown(const struct fw_met_run *mr)
{
	for (int32_t q = 0; mr->config && q < mr->config->nqueues; q++)
		if (mr->config->queues[q].max_runtime_s > 0) /* a config queue's own */
			return true;
	for (int i = 0; i < mr->npol; i++)
		if (mr->pol[i]->max_runtime_s > 0 || mr->pol[i]->job_limits > 0 || mr->pol[i]->timed_out > 0)
			return true;
	return false;
}

static bool budget_row(enum met id)
{
	return id == M_BUDGET || id == M_HALF || id == M_SUSTAIN || id == M_HELD;
}

/* The budget rows, the same way: only when some replay had a budget or
 * held a job over one. */
static bool budgets_shown(const struct fw_met_run *mr)
{
	for (int32_t q = 0; mr->config && q < mr->config->nqueues; q++)
		if (mr->config->queues[q].gpu_hour_budget > 0) /* a config queue's own */
			return true;
	for (int i = 0; i < mr->npol; i++)
		if (mr->pol[i]->gpu_hour_budget > 0 || mr->pol[i]->over_budget_jobs > 0)
			return true;
	return false;
}

static void summary(FILE *f, const struct fw_met_run *mr)
{
	bool limits = limits_shown(mr), budgets = budgets_shown(mr);

	fputs("<section class=\"card\"><h2>Summary</h2>\n<p class=\"note\">The best policy on each "
	      "metric is highlighted (\xe2\x86\x91 higher is better, \xe2\x86\x93 lower is better). "
	      "Times to start include up to one scheduling tick. Definitions: docs/metrics.md."
	      "</p>\n<table><thead><tr><th>metric</th><th></th>", f);
	for (int i = 0; i < mr->npol; i++) {
		fprintf(f, "<th style=\"color:%s\">", color(i));
		esc(f, mr->pol[i]->name);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if ((limits || !limit_row(rows[i].id)) && (budgets || !budget_row(rows[i].id)))
			table_row(f, mr, &rows[i]);
	fputs("</tbody></table></section>\n", f);
}

/* ---- occupancy over time ------------------------------------------------------------ */

static double span_max(const struct fw_met_run *mr)
{
	double s = 1;

	for (int i = 0; i < mr->npol; i++)
		if ((double)(mr->pol[i]->t1 - mr->pol[i]->t0) > s)
			s = (double)(mr->pol[i]->t1 - mr->pol[i]->t0);
	return s;
}

/* A binned series as a polyline; x in seconds since the window start. */
static void series_path(FILE *f, const struct plot *p, const struct fw_met_policy *pol,
			const float *v, double scale, const char *style)
{
	double bw = pol->nbins ? (double)(pol->t1 - pol->t0) / pol->nbins : 0;

	if (!pol->nbins)
		return;
	fputs("<path d=\"", f);
	for (int i = 0; i < pol->nbins; i++)
		fprintf(f, "%c%.1f %.1f", i ? 'L' : 'M', px(p, (i + 0.5) * bw),
			py(p, (double)v[i] * scale));
	fprintf(f, "\" fill=\"none\" %s/>\n", style);
}

static void occupancy(FILE *f, const struct fw_met_run *mr)
{
	struct plot p = { 56, 12, W_PAGE - 80, 250, 0, span_max(mr), 0, 100, false };
	char st[96];

	fputs("<section class=\"card\"><h2>Occupancy over time</h2>\n<p class=\"note\">Share of the "
	      "cluster's GPUs allocated, averaged over each of up to 400 equal time slices from the "
	      "first arrival to the policy's last completion.</p>\n", f);
	legend(f, mr, true);
	svg_open(f, W_PAGE, 310, "GPU occupancy over time, one line per policy");
	grid_y(f, &p, 5, "%g%%", 1);
	grid_time(f, &p, 10, "time since the first arrival");
	frame(f, &p);
	fprintf(f, "<text class=\"t\" transform=\"translate(14 %.0f) rotate(-90)\" "
		"text-anchor=\"middle\">GPUs allocated (%%)</text>\n", p.y + p.h / 2);
	for (int i = 0; i < mr->npol; i++) {
		snprintf(st, sizeof st, "stroke=\"%s\" stroke-width=\"1.6\" stroke-linejoin=\"round\"",
			 color(i));
		series_path(f, &p, mr->pol[i], mr->pol[i]->occupancy_series, 100, st);
	}
	fputs("</svg></section>\n", f);
}

/* ---- time-to-start CDFs ------------------------------------------------------------- */

static double tts_max(const struct fw_met_run *mr)
{
	double m = 3600;

	for (int i = 0; i < mr->npol; i++)
		for (int b = 0; b < FW_SIM_NBUCKETS; b++)
			if (mr->pol[i]->ntts[b] && (double)mr->pol[i]->tts[b][mr->pol[i]->ntts[b] - 1] > m)
				m = (double)mr->pol[i]->tts[b][mr->pol[i]->ntts[b] - 1];
	return m * 1.5;
}

/* Step CDF of sorted v[n] as a fraction of `of` jobs (so never-started
 * jobs keep the curve below 100 %). */
static void cdf_path(FILE *f, const struct plot *p, const int64_t *v, size_t n, int64_t of,
		     const char *col)
{
	size_t stride = n > CDF_POINTS ? (n + CDF_POINTS - 1) / CDF_POINTS : 1;
	double den = (double)(of > 0 ? of : 1);

	if (!n)
		return;
	fprintf(f, "<path d=\"M%.1f %.1f", px(p, (double)v[0]), py(p, 0));
	for (size_t k = stride - 1; k < n + stride - 1; k += stride) {
		size_t i = k < n ? k : n - 1;
		fprintf(f, "H%.1fV%.1f", px(p, (double)v[i]), py(p, 100.0 * (double)(i + 1) / den));
	}
	fprintf(f, "H%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.7\" "
		"stroke-linejoin=\"round\"/>\n", p->x + p->w, col);
}

static void cdf_cell(FILE *f, const struct fw_met_run *mr, int b, double xmax)
{
	static const char *const title[FW_SIM_NBUCKETS] = {
		"1 GPU", "2\xe2\x80\x93" "8 GPUs", "9\xe2\x80\x93" "32 GPUs", "33+ GPUs",
		"9+ GPUs", "all jobs" }; /* FW_SIM_B9's: fw_met_b9_label */
	struct plot p = { 52, 8, 306, 170, 1, xmax, 0, 100, true };
	char sub[64];
	int64_t jobs = mr->npol ? mr->pol[0]->base.bucket[b].jobs : 0;

	snprintf(sub, sizeof sub, " \xc2\xb7 %lld jobs", (long long)jobs);
	fputs("<div class=\"cell\"><h3>", f);
	esc(f, b == FW_SIM_B9 ? fw_met_b9_label(mr) : title[b]);
	fprintf(f, "<span>%s</span></h3>\n", sub);
	svg_open(f, 368, 222, "time-to-start CDF");
	grid_y(f, &p, 4, "%g%%", 1);
	grid_wait(f, &p);
	frame(f, &p);
	if (!jobs)
		text(f, p.x + p.w / 2, p.y + p.h / 2, "middle", "t", "no jobs of this size");
	for (int i = 0; i < mr->npol; i++)
		cdf_path(f, &p, mr->pol[i]->tts[b], mr->pol[i]->ntts[b],
			 mr->pol[i]->base.bucket[b].jobs, color(i));
	fputs("</svg></div>\n", f);
}

static void cdfs(FILE *f, const struct fw_met_run *mr)
{
	static const int order[] = { FW_SIM_BALL, FW_SIM_B1, FW_SIM_B2_8, FW_SIM_B9_32, FW_SIM_B33,
				     FW_SIM_B9 };
	double xmax = tts_max(mr);

	fputs("<section class=\"card\"><h2>Time to start, by job size</h2>\n<p class=\"note\">"
	      "Cumulative share of the bucket's jobs started within a given wait (start \xe2\x88\x92 "
	      "submit); further left and higher is better. Jobs that never started keep a curve "
	      "below 100%.</p>\n", f);
	legend(f, mr, false);
	fputs("<div class=\"grid\">\n", f);
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		cdf_cell(f, mr, order[i], xmax);
	fputs("</div></section>\n", f);
}

/* ---- each queue's share vs its fair share ---------------------------------------- */

/* Up to FW_REPORT_MAX_QUEUES queues with the largest quotas (ties: index). */
static int top_queues(const struct fw_met_policy *p, int *out)
{
	int n = 0;

	while (n < FW_REPORT_MAX_QUEUES && n < p->nq) {
		int best = -1;
		for (int q = 0; q < p->nq; q++) {
			bool taken = false;
			for (int k = 0; k < n; k++)
				taken |= out[k] == q;
			if (!taken && (best < 0 || p->q[q].deserved_gpus > p->q[best].deserved_gpus))
				best = q;
		}
		out[n++] = best;
	}
	return n;
}

static double row_max(const struct fw_met_run *mr, int q)
{
	double m = mr->pol[0]->q[q].deserved_gpus;

	for (int i = 0; i < mr->npol; i++) {
		const struct fw_met_policy *p = mr->pol[i];
		for (int b = 0; q < p->nq && b < p->nbins; b++) {
			m = p->q[q].alloc_series[b] > m ? p->q[q].alloc_series[b] : m;
			m = p->q[q].fair_series[b] > m ? p->q[q].fair_series[b] : m;
		}
	}
	return nice_ceil(m * 1.05);
}

static void area_path(FILE *f, const struct plot *p, const struct fw_met_policy *pol,
		      const float *v, const char *col)
{
	double bw = (double)(pol->t1 - pol->t0) / pol->nbins;

	fprintf(f, "<path d=\"M%.1f %.1f", px(p, 0.5 * bw), py(p, 0));
	for (int i = 0; i < pol->nbins; i++)
		fprintf(f, "L%.1f %.1f", px(p, (i + 0.5) * bw), py(p, (double)v[i]));
	fprintf(f, "L%.1f %.1fZ\" fill=\"%s\" fill-opacity=\"0.22\" stroke=\"none\"/>\n",
		px(p, (pol->nbins - 0.5) * bw), py(p, 0), col);
}

static void share_cell(FILE *f, const struct fw_met_run *mr, int i, int q, double ymax,
		       double cw, bool last)
{
	const struct fw_met_policy *pol = mr->pol[i];
	struct plot p = { 40, 6, cw - 52, 84, 0, span_max(mr), 0, ymax, false };
	char st[128];

	svg_open(f, cw, last ? 136 : 112, "allocated GPUs and fair share over time");
	grid_y(f, &p, 3, "%g", 1);
	grid_time(f, &p, 4, last ? "time since the first arrival" : NULL);
	frame(f, &p);
	fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#9aa3ad\" "
		"stroke-width=\"1.4\" stroke-dasharray=\"1.5 3\"/>\n", p.x, p.x + p.w,
		py(&p, pol->q[q].deserved_gpus), py(&p, pol->q[q].deserved_gpus));
	if (q < pol->nq && pol->nbins) {
		area_path(f, &p, pol, pol->q[q].alloc_series, color(i));
		snprintf(st, sizeof st, "stroke=\"%s\" stroke-width=\"1.3\"", color(i));
		series_path(f, &p, pol, pol->q[q].alloc_series, 1, st);
		series_path(f, &p, pol, pol->q[q].fair_series, 1,
			    "stroke=\"#1f2328\" stroke-width=\"1.2\" stroke-dasharray=\"4 3\"");
	}
	fputs("</svg>", f);
}

static void share_row(FILE *f, const struct fw_met_run *mr, int q, double cw, bool last)
{
	const struct fw_met_queue *Q = &mr->pol[0]->q[q];

	fputs("<tr><td class=\"q\">", f);
	esc(f, Q->name);
	fprintf(f, "<span>quota %.1f GPUs</span></td>", Q->deserved_gpus);
	for (int i = 0; i < mr->npol; i++) {
		fputs("<td>", f);
		if (q < mr->pol[i]->nq)
			share_cell(f, mr, i, q, row_max(mr, q), cw, last);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

static void share_charts(FILE *f, const struct fw_met_run *mr)
{
	int top[FW_REPORT_MAX_QUEUES], n = mr->npol ? top_queues(mr->pol[0], top) : 0;
	double cw = (W_PAGE - 150) / (mr->npol ? mr->npol : 1);

	cw = cw > 560 ? 560 : cw;
	fprintf(f, "<section class=\"card\"><h2>Each queue's share vs its fair share</h2>\n"
		"<p class=\"note\">GPUs allocated to the queue (filled) against the fair share the "
		"engine computed in each plan (dashed; it holds until the next plan) and the queue's "
		"quota (dotted). %d of %d queues, largest quota first; all are in the JSON and CSV."
		"</p>\n<div class=\"legend\"><span><i class=\"sw\" style=\"background:#8c959f\"></i>"
		"allocated GPUs</span><span><i class=\"dash\"></i>fair share</span><span>"
		"<i class=\"dot\"></i>quota (deserved)</span></div>\n<table class=\"sh\"><thead><tr>"
		"<th></th>", n, mr->npol ? mr->pol[0]->nq : 0);
	for (int i = 0; i < mr->npol; i++) {
		fprintf(f, "<th style=\"color:%s\">", color(i));
		esc(f, mr->pol[i]->name);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (int k = 0; k < n; k++)
		share_row(f, mr, top[k], cw, k == n - 1);
	fputs("</tbody></table></section>\n", f);
}

/* ---- the file ------------------------------------------------------------------------ */

int fw_report_emit(const struct fw_met_run *mr, FILE *f)
{
	head(f, mr);
	if (mr->npol == 0)
		fputs("<p>No policy was replayed.</p>\n", f);
	else {
		summary(f, mr);
		occupancy(f, mr);
		cdfs(f, mr);
		share_charts(f, mr);
	}
	fputs("<p class=\"note\">Written by <code>fairway-sim run --report</code>. Every "
	      "decision came from the fairway engine; every plan passed the invariant checker."
	      "</p>\n</main></body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
