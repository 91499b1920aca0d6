/*
 * progress.c — the stderr progress bar (contract in progress.h).
 *
 * The bar uses U+2588 (full block) for done cells and U+2591 (light
 * shade) for the rest; each update rewrites the line after "\r" and ends
 * with "\033[K" so a shorter line leaves no tail.  Throttling reads
 * CLOCK_MONOTONIC, which is reported nowhere and never reaches a
 * scheduling decision.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool fw_progress_is_tty(FILE *f)
{
	return f && isatty(fileno(f));
}

void fw_progress_init(struct fw_progress *p, FILE *f, bool on, const char *label,
		      int64_t total)
{
	memset(p, 0, sizeof *p);
	p->f = f;
	p->on = on && f;
	p->total = total;
	p->last = -1;
	snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

void fw_progress_commas(char *buf, size_t n, int64_t v)
{
	char tmp[32];
	size_t len, k = 0;
	bool neg = v < 0;
	uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)u);
	len = strlen(tmp);
	char out[48];
	if (neg)
		out[k++] = '-';
	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = tmp[i];
	}
	out[k] = 0;
	snprintf(buf, n, "%s", out);
}

void fw_progress_format(char *buf, size_t n, const char *label, const char *unit, int64_t done,
			int64_t total)
{
	char bar[FW_PROGRESS_WIDTH * 3 + 1], a[32], b[32];
	int64_t t = total > 0 ? total : 1, d = done < 0 ? 0 : done > t ? t : done;
	int cells = (int)(d * FW_PROGRESS_WIDTH / t), pct = (int)(d * 100 / t);
	size_t k = 0;

	for (int i = 0; i < FW_PROGRESS_WIDTH; i++) {
		const char *c = i < cells ? "\xe2\x96\x88" : "\xe2\x96\x91";
		memcpy(bar + k, c, 3);
		k += 3;
	}
	bar[k] = 0;
	fw_progress_commas(a, sizeof a, done);
	fw_progress_commas(b, sizeof b, total);
	snprintf(buf, n, "[fairway] %-8s %s %3d%%  %s/%s %s", label, bar, pct, a, b, unit ? unit : "jobs started");
}

void fw_progress_update(struct fw_progress *p, int64_t done)
{
	char line[256];
	double now;

	if (!p->on)
		return;
	now = mono_s();
	if (p->last >= 0 && now - p->last < 0.1 && done != p->total)
		return;
	p->last = now;
	fw_progress_format(line, sizeof line, p->label, p->unit, done, p->total);
	fprintf(p->f, "\r%s\033[K", line);
	fflush(p->f);
	p->drawn = true;
}

void fw_progress_finish(struct fw_progress *p)
{
	if (!p->on || !p->drawn)
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->drawn = false;
}
