/*
 * synth.h — a synthetic ITP-like trace, for when the real traces are not
 * there (a fresh clone without ../shared/traces) and for tests.
 *
 * The statistics are those of microsoft-itp/cluster06.csv (the README's
 * demo trace), measured once with python and written down here so the
 * generator needs no data file:
 *   jobs        2,396
 *   arrivals    Poisson, mean inter-arrival 2,151 s (span ~60 days)
 *   GPUs/job    1: 44.8%  2: 0.25%  4: 6.2%  8: 45.2%  16: 2.5%
 *               32: 0.83%  64: 0.33%
 *   duration    log-normal per size, ln-mean / ln-sd:
 *               1: 7.78/1.18  2: 9.58/2.19  4: 9.67/1.27  8: 9.70/1.44
 *               16: 8.07/0.60  32: 8.51/0.32  64: 9.53/2.82
 *               clamped to [600 s, 900,000 s] like the real trace
 * At 13 nodes x 8 GPUs this offers about 83% load, like cluster06.
 * Deterministic: splitmix64 seeded by `seed`, Box-Muller for normals.
 */
#ifndef FAIRWAY_SIM_SYNTH_H
#define FAIRWAY_SIM_SYNTH_H

#include <stdint.h>

#include "itp.h"

#define FW_SYNTH_JOBS 2396

/* Fill *out (freed with fw_itp_free) with n jobs; FW_OK or FW_ENOMEM. */
int fw_synth_itp(uint64_t seed, size_t n, struct fw_itp_trace *out);

#endif
