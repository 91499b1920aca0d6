/*
 * qos.c — Slurm QOS priorities as fairway job priorities.
 *
 * On a Slurm cluster urgency is said with a QOS: `sbatch --qos=high`,
 * where the QOS "high" has Priority=100 and the default "normal" 0 (with
 * priority/multifactor, PriorityWeightQOS turns it into part of the job's
 * priority).  fairway orders the jobs of a queue by their priority first
 * (then expansion factor, then submit time), and preempts inside a queue
 * by it, so the adapter makes a job's priority its QOS's first and its
 * --nice second:
 *
 *     priority = min(QOS Priority, 100000) * 20001 + clamp(-nice, +-10000)
 *
 * which keeps the order of both (a higher QOS always first; among jobs of
 * one QOS a lower nice first) inside an int32.  A nice beyond +-10000 counts
 * as +-10000.  A job whose QOS is unknown (no slurmdbd, a QOS created
 * since the last read) counts as Priority 0, as "normal" does.
 *
 * The QOS table comes from slurmctld's association manager
 * (slurm_load_assoc_mgr_info with ASSOC_MGR_INFO_FLAG_QOS, what `scontrol
 * show assoc_mgr flags=qos` prints), read with the first load and then
 * every FW_SLURM_QOS_PERIOD_S seconds; a failed read keeps the last table.
 * Which queue goes next is still the fair share: a high QOS orders a
 * queue's own jobs, it does not take GPUs from another queue (Slurm's
 * preempt/qos does; fairway's reclaim goes by fair share).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurmdb.h>

#include "slurm_int.h"

#define QOS_PRIO_MAX 100000
#define NICE_MAX 10000

int32_t fw__slurm_job_priority(uint32_t qos_priority, int64_t nice)
{
	int64_t q = qos_priority > QOS_PRIO_MAX ? QOS_PRIO_MAX : qos_priority;
	int64_t n = -nice;

	n = n > NICE_MAX ? NICE_MAX : n < -NICE_MAX ? -NICE_MAX : n;
	return (int32_t)(q * (2 * NICE_MAX + 1) + n);
}

uint32_t fw__slurm_qos_priority(const struct fw_slurm *h, const char *qos)
{
	if (!qos)
		return 0;
	for (int32_t i = 0; i < h->nqos; i++)
		if (!strcmp(h->qos[i].name, qos))
			return h->qos[i].priority;
	return 0;
}

/* The table from a message's QOS list into *out, *n; FW_OK or FW_ENOMEM. */
static int table_of(List list, struct fw__qos **out, int32_t *n)
{
	int32_t cnt = list ? FW__SL(slurm_list_count(list)) : 0, k = 0;
	struct fw__qos *t = cnt > 0 ? calloc((size_t)cnt, sizeof *t) : NULL;
	ListIterator it;
	slurmdb_qos_rec_t *r;

	if (cnt > 0 && !t)
		return FW_ENOMEM;
	if (cnt > 0 && (it = FW__SLP(slurm_list_iterator_create(list)))) {
		while ((r = FW__SLP(slurm_list_next(it))) && k < cnt)
			if (r->name && strlen(r->name) < FW_NAME_MAX && r->priority != NO_VAL &&
			    r->priority != INFINITE) {
				snprintf(t[k].name, sizeof t[k].name, "%s", r->name);
				t[k++].priority = r->priority;
			}
		FW__SLV(slurm_list_iterator_destroy(it));
	}
	*out = t;
	*n = k;
	return FW_OK;
}

int fw__slurm_qos_ask(struct fw__qos **t, int32_t *n)
{
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *m = NULL;
	int rc;

	*t = NULL;
	*n = 0;
	memset(&req, 0, sizeof req);
	req.flags = ASSOC_MGR_INFO_FLAG_QOS;
	if (FW__SL(slurm_load_assoc_mgr_info(&req, &m)) != SLURM_SUCCESS || !m)
		return FW_EIO; /* no slurmdbd, or not now: the last table stands */
	rc = table_of(m->qos_list, t, n);
	FW__SLV(slurm_free_assoc_mgr_info_msg(m));
	return rc;
}

void fw__slurm_qos_take(struct fw_slurm *h, struct fw__qos *t, int32_t n)
{
	free(h->qos);
	h->qos = t;
	h->nqos = n;
}

bool fw__slurm_due(struct fw_slurm *h, double *next_ms, double now_ms, int period_s)
{
	bool due;

	pthread_mutex_lock(&h->mu);
	if ((due = now_ms >= *next_ms))
		*next_ms = now_ms + period_s * 1e3;
	pthread_mutex_unlock(&h->mu);
	return due;
}

void fw__slurm_qos_refresh(struct fw_slurm *h, double now_ms)
{
	struct fw__qos *t;
	int32_t n;

	if (fw__slurm_due(h, &h->qos_next_ms, now_ms, FW_SLURM_QOS_PERIOD_S) && fw__slurm_qos_ask(&t, &n) == FW_OK)
		fw__slurm_qos_take(h, t, n);
}
