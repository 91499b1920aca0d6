/*
 * topo.h — network topology files for the simulator's fleets, in the
 * format of Alibaba Lingjun 2023 (alibaba-lingjun-2023-topo/topo.csv):
 *
 *     ip,DSW,PSW,ASW
 *     0c9d9d...fe4b,G6,P10,S14
 *
 * The first column names the host (any header name; 1..127 bytes, unique),
 * every further column is one switch tier (1..FW_MAX_LEVELS tiers) whose
 * value is the host's switch at that tier.  Tiers become snapshot levels,
 * largest domain first: they are ordered by their number of distinct
 * switches, fewest first (ties: file column order), and named by their
 * header in lower case.  For the Lingjun file that is dsw (1 switch) >
 * psw (3) > asw (48 names, 119 distinct (psw, asw) racks, since a domain is
 * identified by its full path).  Names are 1..63 printable bytes without
 * spaces, quotes, backslashes or commas.
 *
 * Errors name file:line:col and the column; nothing is skipped.
 * Ownership: fw_topo_free() (safe on a zeroed struct).
 */
#ifndef FAIRWAY_SIM_TOPO_H
#define FAIRWAY_SIM_TOPO_H

#include <stddef.h>

#include "fairway/err.h"
#include "fairway/snapshot.h"

#define FW_TOPO_HOST_MAX 128

struct fw_topo_host {
	char host[FW_TOPO_HOST_MAX];
	char path[FW_MAX_LEVELS][FW_NAME_MAX]; /* in level order */
	int line;
};

struct fw_topo {
	char file[256];
	struct fw_topology levels;
	struct fw_topo_host *v;
	size_t n;
};

int fw_topo_parse(const char *buf, size_t len, const char *fname,
		  struct fw_topo *out, struct fw_diag *d);
int fw_topo_read(const char *path, struct fw_topo *out, struct fw_diag *d);
void fw_topo_free(struct fw_topo *t);

#endif
