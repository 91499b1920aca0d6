/*
 * teams.h — a deterministic job -> team mapping for traces without users.
 *
 * The ITP traces name no user or team, but a fair-share experiment needs
 * teams.  fairway uses the real team sizes of Microsoft's Philly cluster
 * (philly-vc-config/philly_vc.csv: 11 virtual clusters, 8..64 nodes each)
 * as weights:
 *
 *     h    = splitmix64(fnv1a64(job_id))         (fixed integer hash)
 *     r    = h mod total_weight
 *     team = the first team whose cumulative weight exceeds r
 *
 * so a team with twice the nodes gets about twice the jobs, the same job
 * always lands in the same team, and the mapping does not depend on the
 * row order, the platform or any RNG.  Each team becomes one top-level
 * queue ("vc-<name>") whose deserved GPUs are proportional to its weight
 * and sum to the cluster's GPUs exactly (largest remainder, in milli-GPU;
 * ties to the lower team index).
 *
 * Source: $FAIRWAY_TRACES/philly-vc-config/philly_vc.csv, FAIRWAY_TRACES
 * defaulting to ../shared/traces relative to the working directory.  If
 * that file cannot be opened the built-in fallback is used and the caller
 * is told: it is the same 11 VCs (the table is small and MIT-licensed), so
 * results do not change when the traces folder is absent.  A file that
 * exists but is malformed is an error (file:line:col), never a fallback.
 * Lines end in \n or \r\n, empty lines are ignored and a UTF-8 byte-order
 * mark before the header is skipped.
 */
#ifndef FAIRWAY_SIM_TEAMS_H
#define FAIRWAY_SIM_TEAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fairway/err.h"

#define FW_TEAMS_MAX 256
#define FW_TEAM_NAME_MAX 48

struct fw_team {
	char name[FW_TEAM_NAME_MAX];
	int64_t weight; /* nodes in the Philly VC, >= 1 */
};

struct fw_teams {
	struct fw_team v[FW_TEAMS_MAX];
	int n;
	int64_t total;      /* sum of weights */
	char source[256];   /* the file read, or "built-in" */
	bool fallback;
};

uint64_t fw_splitmix64(uint64_t x);
uint64_t fw_fnv1a64(const void *p, size_t n);

/* Parse a "vc,node num" CSV buffer. */
int fw_teams_parse(const char *buf, size_t len, const char *fname,
		   struct fw_teams *t, struct fw_diag *d);
/* Read a file; FW_EIO if it cannot be opened. */
int fw_teams_read(const char *path, struct fw_teams *t, struct fw_diag *d);
/* The built-in table (the 11 Philly VCs). */
void fw_teams_builtin(struct fw_teams *t);
/*
 * Resolve the default source: path if not NULL, else $FAIRWAY_TRACES (or
 * ../shared/traces)/philly-vc-config/philly_vc.csv.  A missing default
 * file falls back to the built-in table and writes a one-line note (else
 * note[0] = 0).  A missing explicit path, or a malformed file, is an error.
 */
int fw_teams_load(const char *path, struct fw_teams *t, char *note,
		  size_t nnote, struct fw_diag *d);

/* Team index of a job id (0..t->n-1). */
int fw_team_of(const struct fw_teams *t, const char *job_id);
/* Deserved milli-GPUs per team, summing to cluster_gpus * 1000. */
void fw_teams_quota(const struct fw_teams *t, int64_t cluster_gpus,
		    int64_t *quota_milli);

#endif
