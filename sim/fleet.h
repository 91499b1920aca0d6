/*
 * fleet.h — the simulator's cluster: nodes and topology, as a struct
 * fw_snapshot that holds only topology levels and nodes (no queues, jobs
 * or allocations), so the simulator copies it into its own snapshot.
 *
 * Sources (one per run):
 *   fw_fleet_generate   N nodes x G GPUs (`--nodes NxG`), optionally in
 *                       racks of `--racks K` nodes and blocks of `--blocks M`
 *                       racks: levels {"block", "rack"} (or {"rack"}),
 *                       nodes n000.., racks r00.., blocks b00.., the same
 *                       node shape as the simulator's built-in cluster
 *                       (model "itp-gpu", 80 GiB per GPU, 128 CPUs, 1 TiB).
 *   fw_fleet_load_yaml  a config file (docs/config.md) read with
 *                       fw_config_load_file_keys: only topology, nodes
 *                       and nodeGroups may appear at the top level; any
 *                       other key (queues, jobs, scheduler, now) is refused
 *                       with file:line, so that a fleet file cannot silently
 *                       carry a workload or settings it would ignore.
 *   fw_fleet_load_config a site's whole config (`--config`), read with
 *                       fw_config_load_file as the daemon and `fairway
 *                       plan` read it: nodes, topology, the queue tree with
 *                       its tables (model limits, deserved GPUs of a model)
 *                       and the scheduler block are kept; its jobs (counted
 *                       in *jobs, for a note) and past usage are dropped,
 *                       and `now` is 0: the replay's jobs and clock are the
 *                       trace's.  fw_fleet_check_config then holds it to
 *                       what a replay can run (below).
 *   fw_fleet_from_openb an openb node list: one node per row with its GPU
 *                       count and model, CPU and memory; no topology.
 *   Both refuse a fleet whose nodes have no GPU at all (naming the file);
 *                       fw_fleet_load_yaml also one where no node can take
 *                       work (every node schedulable: false, unhealthy or
 *                       draining, or with all its GPUs in badGpus).
 *   fw_fleet_from_topo  one node per host of a topology file (topo.h), in
 *                       file order, named h0000, h0001, ... with G GPUs of
 *                       the generated shape (`--nodes-from-topo G`).
 *   fw_fleet_apply_topo give an existing fleet the topology of a file
 *                       (`--topo FILE`): the first N hosts in file order are
 *                       assigned to the N nodes in fleet order; fewer hosts
 *                       than nodes is an error; the fleet's own topology, if
 *                       any, is replaced.
 *
 * Every result passes fw_snapshot_validate().  Ownership: the caller frees
 * *out with fw_snapshot_free().
 */
#ifndef FAIRWAY_SIM_FLEET_H
#define FAIRWAY_SIM_FLEET_H

#include <stdint.h>

#include "fairway/err.h"
#include "fairway/snapshot.h"
#include "teams.h"
#include "topo.h"

#define FW_FLEET_MAX_NODES 100000

struct fw_fleet_opts {
	int32_t nodes;            /* 1..FW_FLEET_MAX_NODES */
	int32_t gpus_per_node;    /* 1..FW_MAX_GPUS_PER_NODE */
	int32_t nodes_per_rack;   /* 0 = no racks */
	int32_t racks_per_block;  /* 0 = no blocks (needs racks) */
};

/* One node of the generated shape, named name, with G GPUs. */
void fw_fleet_node(struct fw_node *n, const char *name, int32_t G);

int fw_fleet_generate(const struct fw_fleet_opts *o, struct fw_snapshot **out,
		      struct fw_diag *d);
int fw_fleet_load_yaml(const char *path, struct fw_snapshot **out,
		       struct fw_diag *d);
int fw_fleet_load_config(const char *path, struct fw_snapshot **out, int32_t *jobs,
			 struct fw_diag *d);
/* A config a replay can run, FW_OK, or an error naming file and field:
 * nodes with GPUs and one that takes work, 1..FW_TEAMS_MAX queues
 * (parents included: the replay's per-queue tables are that size), and
 * no GPU-hour budget on a queue with children (the replay wakes when a
 * held leaf's usage falls below its budget, not a subtree's). */
int fw_fleet_check_config(const struct fw_snapshot *s, const char *file, struct fw_diag *d);
int fw_fleet_from_openb(const char *path, struct fw_snapshot **out,
			struct fw_diag *d);
int fw_fleet_from_topo(const struct fw_topo *t, int32_t G,
		       struct fw_snapshot **out, struct fw_diag *d);
int fw_fleet_apply_topo(struct fw_snapshot *s, const struct fw_topo *t,
			struct fw_diag *d);

/* Total GPUs, and whether every node has the same GPU count (*G). */
int64_t fw_fleet_gpus(const struct fw_snapshot *s);
int fw_fleet_uniform(const struct fw_snapshot *s, int32_t *G);
/* The GPUs that can ever run a job: those of nodes that take work
 * (schedulable, neither unhealthy nor draining), less their badGpus.  The
 * metrics' capacity (sim/metrics.c), as such nodes stay closed all replay. */
int64_t fw_fleet_usable_gpus(const struct fw_snapshot *s);

/* The fleet's shape: "NxG" per GPU count, most GPUs first, joined by '+'
 * ("13x8"; "617x8+54x4+518x2+24x1" for openb's GPU nodes).  Fits in
 * FW_FLEET_SHAPE_MAX bytes whatever the fleet. */
#define FW_FLEET_SHAPE_MAX 400
void fw_fleet_shape(const struct fw_snapshot *s, char *buf, size_t n);

#endif
