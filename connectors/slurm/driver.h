/*
 * driver.h — the loop of the `fairway-slurm` driver, shared by its `run`
 * command (fairway_slurm.c) and its `bench` command (bench_slurm.c); its
 * `plan` command (the dry run) makes the same read and cycle, once, and
 * applies nothing.
 *
 * One call of fw_slurm_loop_cycle() is one cycle of what `fairway serve
 * --backend slurm` does: a skeleton snapshot from the YAML (now, scheduler
 * config, topology, queues), fw_slurm_read(), validate, fw_cycle_run(),
 * fw_plan_check(), fw_slurm_apply() and fw_slurm_annotate().  It records
 * the cycle's own time and its number of starts in the loop struct.
 * With usage_slurm, it first reads Slurm's decayed usage into the base
 * every FW_SLURM_USAGE_PERIOD_S seconds (usage.c).  Slurm's GPU-hour
 * budgets come with the read (fw_slurm_read), onto each cycle's snapshot,
 * never the base, so the YAML's own budgets stay told apart; what they
 * are is printed once per change, as are fw_slurm_warn's warnings (a
 * managed partition gone or down, job_submit.lua and partitions=
 * disagreeing), which `fairway serve --backend slurm` prints alike.
 */
#ifndef FAIRWAY_SLURM_DRIVER_H
#define FAIRWAY_SLURM_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "fairway/fairway.h"
#include "fwslurm.h"

struct fw_slurm_loop {
	struct fw_slurm *h;
	struct fw_snapshot *base;             /* the YAML (queues' usage:
					       * Slurm's, when usage_slurm) */
	const struct fw_policy_ops *pol;
	struct fw_arena arena;
	bool quiet;                           /* no per-cycle line */
	FILE *say;                            /* where the notes go (usage,
					       * budgets, imported accounts):
					       * stdout under run, stderr
					       * under plan, whose stdout is
					       * the plan */
	double cycle_ms;                      /* last fw_cycle_run */
	int nstarts;                          /* last plan's starts */
	bool usage_slurm;                     /* read Slurm's decayed usage */
	double usage_next_ms;                 /* next read (fw_slurm_mono_ms) */
	int usage_rc;                         /* last read's outcome */
	uint64_t budget_gen;                  /* the budget note last printed
					       * (fw_slurm_budget_note) */
};

/* 0 = FW_OK; FW_EINVARIANT when the plan broke an invariant. */
int fw_slurm_loop_cycle(struct fw_slurm_loop *l, long n);
double fw_slurm_mono_ms(void);

/* `fairway-slurm bench MODE N` (bench_slurm.c); prints result lines. */
int fw_slurm_bench(struct fw_slurm_loop *l, const char *mode, const char *n);

#endif
