/*
 * synth.c — the synthetic ITP-like trace (synth.h has the statistics).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

struct size_class {
	int32_t gpus;
	double weight;  /* share of jobs, % */
	double ln_mean, ln_sd;
};

static const struct size_class classes[] = {
	{ 1, 44.78, 7.78, 1.18 },  { 2, 0.25, 9.58, 2.19 },  { 4, 6.18, 9.67, 1.27 },
	{ 8, 45.16, 9.70, 1.44 },  { 16, 2.46, 8.07, 0.60 }, { 32, 0.83, 8.51, 0.32 },
	{ 64, 0.33, 9.53, 2.82 },
};

#define MEAN_INTERARRIVAL_S 2151.0
#define MIN_DURATION_S 600
#define MAX_DURATION_S 900000

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double unit(uint64_t *s)
{
	return ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	double u = unit(s), v = unit(s);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static const struct size_class *pick_class(uint64_t *s)
{
	double total = 0, x;
	size_t n = sizeof classes / sizeof classes[0];

	for (size_t i = 0; i < n; i++)
		total += classes[i].weight;
	x = unit(s) * total;
	for (size_t i = 0; i < n; i++) {
		if (x < classes[i].weight)
			return &classes[i];
		x -= classes[i].weight;
	}
	return &classes[n - 1];
}

static int64_t duration(uint64_t *s, const struct size_class *c)
{
	double d = exp(c->ln_mean + c->ln_sd * normal(s));

	if (d < MIN_DURATION_S)
		return MIN_DURATION_S;
	if (d > MAX_DURATION_S)
		return MAX_DURATION_S;
	return (int64_t)d;
}

int fw_synth_itp(uint64_t seed, size_t n, struct fw_itp_trace *out)
{
	uint64_t s = seed;
	double t = 0;

	memset(out, 0, sizeof *out);
	snprintf(out->file, sizeof out->file, "synthetic-itp(seed=%llu)", (unsigned long long)seed);
	out->v = calloc(n ? n : 1, sizeof *out->v);
	if (!out->v)
		return FW_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct fw_itp_job *j = &out->v[i];
		const struct size_class *c = pick_class(&s);
		snprintf(j->id, sizeof j->id, "synth-%05zu", i);
		j->submit = (int64_t)t;
		j->gpus = c->gpus;
		j->duration = duration(&s, c);
		j->line = (int32_t)i + 2;
		t += -log(unit(&s)) * MEAN_INTERARRIVAL_S;
	}
	out->n = n;
	return FW_OK;
}
