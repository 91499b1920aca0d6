/*
 * warn.c — what Slurm's setup does not give fairway, said to the operator
 * once per change, by both drivers alike (fwslurm.h fw_slurm_warn):
 * `fairway-slurm` (plan, run) on its notes' stream, `fairway serve
 * --backend slurm` (backend.c) on stderr, each after every read.  One
 * function, so the two can no longer drift apart (the daemon said none
 * of the hook's until it called this).
 *
 * Two kinds, each from the last read:
 *   partition  a managed partition that open_parts (read.c) found at
 *              start and that is now DOWN or INACTIVE (`scontrol update
 *              PartitionName=P State=DOWN`: Slurm starts none of its
 *              jobs, so fairway plans none there, filter.c and build.c
 *              FW__ORPHAN_PART_DOWN) or gone (`scontrol delete
 *              PartitionName=P`: fairway manages none of its nodes);
 *              said when its state changes, and when it is UP again.
 *              One DOWN at start is said at the first read;
 *   hook       job_submit.lua and partitions= disagree (build.c
 *              hook_check: fw_slurm_stats.unheld, .stray): a pending job
 *              of a managed partition that arrived not held, which
 *              Slurm's own scheduler may start where fairway did not
 *              choose, or a job the hook holds in a partition fairway
 *              does not manage, held for ever; said when the first such
 *              job changes (a new one; none, then one again).
 * A third, for the daemon alone (fw_slurm_age_warning, backend.c
 * sb_ended_keep): slurm.conf's MinJobAge no longer than its --period,
 * so a job can end and be purged between two of its reads, never seen
 * ended (cycle.c take_runs).  The daemon says it and shows it in GET
 * /v1/health, once per change of either figure; read from slurmctld by
 * fw_slurm_min_job_age, which keeps the config's update time so an
 * unchanged one is a "no change" answer.
 * None stops a driver: they are the operator's to fix, and fairway
 * schedules the rest meanwhile.  What was said last is the handle's
 * (struct fw__said), so whichever path of a driver read (the daemon's
 * cycle adopts its build, an API check reads whole) nothing is said
 * twice.  Call it only where a read may run (the daemon's lock held).
 */
#include <stdio.h>
#include <string.h>

#include "slurm_int.h"

/* ------------------------------------------------------------ partitions */

/* One managed partition's change of state (was -> st), said. */
static void part_say(FILE *out, const char *who, const char *p, int len, enum fw__part_state was,
		     enum fw__part_state st)
{
	if (st == FW__PART_GONE)
		fprintf(out, "%s: warning: partition %.*s is gone from Slurm (deleted: sinfo -s lists it no more): "
			"fairway manages none of its nodes and plans none of its jobs until it is back (scontrol "
			"create PartitionName=%.*s ..., or its line in slurm.conf and scontrol reconfigure); the "
			"other partitions are planned as before\n",
			who, len, p, len, p);
	else if (st != FW__PART_UP)
		fprintf(out, "%s: warning: partition %.*s is %s in Slurm (scontrol show partition %.*s), which starts "
			"none of its jobs: fairway plans none of them until it is UP (scontrol update PartitionName=%.*s "
			"State=UP); its running jobs go on\n",
			who, len, p, fw__part_state_word(st), len, p, len, p);
	else
		fprintf(out, "%s: partition %.*s is %s in Slurm: fairway plans its jobs again\n", who, len, p,
			was == FW__PART_GONE ? "back, and UP," : "UP again");
}

/* Each managed partition whose state differs from the one said last. */
static int part_warn(struct fw_slurm *h, FILE *out, const char *who)
{
	int n = 0, k = 0;

	for (const char *p = h->parts; *p && k < FW__PARTS_MAX; k++) {
		size_t len = strcspn(p, ",");
		enum fw__part_state st = fw__slurm_part_state(h, p, len);
		if ((uint8_t)st != h->said.part[k]) {
			part_say(out, who, p, (int)len, (enum fw__part_state)h->said.part[k], st);
			h->said.part[k] = (uint8_t)st;
			n++;
		}
		p += len + (p[len] == ',');
	}
	return n;
}

/* ------------------------------------------------------------ job_submit.lua */

static int hook_warn(struct fw_slurm *h, FILE *out, const char *who)
{
	const struct fw_slurm_stats *st = &h->st;
	const char *flag = h->o.flag ? h->o.flag : "--backend-opt";
	uint32_t now[2] = { st->unheld ? st->unheld_job : 0, st->stray ? st->stray_job : 0 };
	int n = 0;

	if (now[0] && now[0] != h->said.hook[0] && ++n)
		fprintf(out, "%s: warning: %d pending job%s of the managed partitions arrived not held (job %u of "
			"partition %s: priority above 0, no ReqNodes), so Slurm's own scheduler may start %s on nodes "
			"fairway did not choose: install contrib/slurm/job_submit.lua (JobSubmitPlugins=lua in "
			"slurm.conf) with %s in its MANAGED table (docs/slurm.md, Install, step 2); it holds the jobs "
			"submitted after it\n",
			who, (int)st->unheld, st->unheld == 1 ? "" : "s", (unsigned)st->unheld_job, st->unheld_part,
			st->unheld == 1 ? "it" : "them", st->unheld_part);
	if (now[1] && now[1] != h->said.hook[1] && ++n)
		fprintf(out, "%s: warning: %d job%s held by job_submit.lua in a partition fairway does not manage (job "
			"%u of partition %s: priority 0, a \"fairway: \" comment) stay%s held for ever, since fairway "
			"plans only the partitions of partitions=: add it (%s partitions=...:%s) or take it out of "
			"job_submit.lua's MANAGED (DEFAULT_MANAGED for jobs that name none)\n",
			who, (int)st->stray, st->stray == 1 ? "" : "s", (unsigned)st->stray_job, st->stray_part,
			st->stray == 1 ? "s" : "", flag, st->stray_part);
	memcpy(h->said.hook, now, sizeof now);
	return n;
}

int fw_slurm_warn(struct fw_slurm *h, FILE *out, const char *who)
{
	int n = part_warn(h, out, who);

	n += hook_warn(h, out, who);
	fflush(out);
	return n;
}

/* ------------------------------------------------------------ MinJobAge */

/* s rounded up to whole seconds (s >= 0, at most --period's hour). */
static int64_t ceil_s(double s)
{
	int64_t i = (int64_t)s;

	return (double)i < s ? i + 1 : i;
}

int fw_slurm_min_job_age(struct fw_slurm *h, int64_t *age_s, struct fw_diag *d)
{
	slurm_conf_t *c = NULL;
	int e;

	*age_s = h->conf_at ? h->min_job_age : -1;
	if (FW__SL(slurm_load_ctl_conf(h->conf_at, &c)) != SLURM_SUCCESS) {
		if ((e = slurm_get_errno()) == SLURM_NO_CHANGE_IN_DATA && h->conf_at)
			return FW_OK; /* the config read last stands */
		return fw_diag_set(d, FW_EIO, "slurmctld", 0, 0, "MinJobAge",
				   "cannot read slurm.conf's MinJobAge (slurm_load_ctl_conf): %s",
				   e ? slurm_strerror(e) : "failed");
	}
	h->min_job_age = (int64_t)c->min_job_age;
	h->conf_at = c->last_update ? c->last_update : 1; /* read: never 0 again */
	FW__SLV(slurm_free_ctl_conf(c));
	*age_s = h->min_job_age;
	return FW_OK;
}

bool fw_slurm_age_warning(double period_s, int64_t age_s, char *out, size_t n)
{
	if (n)
		out[0] = '\0';
	if (age_s <= 0 || !(period_s >= (double)age_s))
		return false;
	snprintf(out, n,
		 "Slurm lists an ended job for MinJobAge=%lld s (slurm.conf), no longer than this daemon's cycle "
		 "period (--period %g s): a job that ends and is purged between two reads is never seen ended (its "
		 "last stretch of usage goes uncounted where the daemon accrues its own, and GET /v1/jobs/ID cannot "
		 "say how it ended); raise MinJobAge in slurm.conf to at least 2x the period (MinJobAge=%lld, then "
		 "scontrol reconfigure), or lower --period to at most half of MinJobAge (%gs)",
		 (long long)age_s, period_s, (long long)ceil_s(2 * period_s), (double)age_s / 2);
	return true;
}
