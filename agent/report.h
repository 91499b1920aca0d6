/*
 * report.h — what fairway-agent reports about one node's GPUs, and how a
 * report becomes health (include/fairway/health.h).
 *
 * A report is plain data: per GPU its index, name, UUID, temperature,
 * uncorrectable ECC counts (volatile = since the driver loaded, aggregate
 * = lifetime), NVLink links up, the ones down and the inactive ones, and
 * the XID events seen since the previous report.
 *
 * Down or merely unused?  NVML says a link is not active, not whether it
 * should be: a PCIe card with one bridge, or a GPU passed alone into a VM,
 * has links that are never up.  So an inactive link is *down* (a fault)
 * only when something says it should be up: the same link is up on another
 * GPU of the node in this report (the GPUs of a node are wired alike), this
 * agent saw it up in an earlier report (--watch), or the operator said how
 * many links each GPU has up (--nvlinks N: links 0..N-1).  Otherwise it is
 * *inactive*: reported, never a fault.  A node whose GPUs all lose every
 * link at once (a fabric manager failure) is caught by the second and third
 * rules, not the first.
 *
 * Row remapping.  On Ampere and newer GPUs an uncorrectable (or a
 * repeatedly corrected) memory error makes the driver remap the row to a
 * spare: the remap is *pending* until the next GPU reset, and when a bank
 * has no spare left the remap *fails* and the GPU must be replaced.  The
 * driver raises XID 63 and XID 64 for these once, when they happen; an
 * agent started later (or restarted) would never hear them, but NVML's
 * counters (nvmlDeviceGetRemappedRows) keep saying so on every read.  So
 * the agent reads them each report and folds a failed remap as XID 64
 * (fatal: the GPU is bad, and stays bad after a reset, since the flag
 * survives it) and a pending one as XID 63 (transient: the GPU is
 * suspect, kept from big gangs until it is reset).  A pending remap, like
 * a link, is one fault while it stays: stepped when it appears, and again
 * only when the GPU's probation would otherwise end; on a GPU already
 * unhealthy (the ECC error the remap is for) it adds nothing.  A remap that was
 * pending and is not any more was applied by a reset.  A GPU or driver
 * without the counters reports null and is judged without them.
 *
 * A GPU NVML cannot open.  nvmlDeviceGetCount_v2 counts every GPU of the
 * machine, also those this process may not open (a container given some
 * of them): such a GPU is "unread" with NVML's reason, and not judged.
 * A GPU that answers GPU_IS_LOST or RESET_REQUIRED has fallen off the bus:
 * it is "lost", folded as not responding (fatal), and the other GPUs are
 * read as usual.  Neither fails the report.  fw_agent_collect() fills one from NVML;
 * fw_agent_to_json() / fw_agent_from_json() write and read it, so a report
 * printed on one machine can be folded anywhere.
 *
 * Folding (fw_agent_fold): each GPU has a health record; a report turns
 * into events at the report's time, in a fixed order per GPU: every XID
 * (FW_HEV_XID, arg = code), an uncorrectable volatile ECC count > 0
 * (FW_HEV_ECC_UNCORRECTABLE), a failed row remap (FW_HEV_XID 64), a
 * pending one (FW_HEV_XID 63), every NVLink link down (FW_HEV_NVLINK_DOWN),
 * a lost GPU (FW_HEV_NOT_RESPONDING), else a clean report (FW_HEV_OK); an
 * unread GPU gets no event.  A fault that stays is one fault, not one per
 * report: a link is an event when it goes down, and again only when the
 * GPU's probation would otherwise end while it is still down; a lost GPU
 * or a volatile ECC count is an event only while the GPU is not already
 * unhealthy.  Counting it
 * every report would turn a link down for two minutes into the flap hold
 * (days), which damping keeps for faults that come back.
 *
 * Repair.  An unhealthy GPU stays unhealthy until it is repaired, and the
 * agent sees two kinds of repair: the GPU was reset (it answers again
 * after being lost, its volatile uncorrectable ECC count, which only a
 * reset clears, is back to 0, or its pending row remap was applied), or
 * the operator says so (SIGUSR1 to a
 * --watch agent: every unhealthy GPU).  Either is FW_HEV_REPAIRED before
 * the report's own events, so the GPU goes on probation (suspect), or
 * straight back to unhealthy if the fault is still there.  fw_health_node_view() then gives the
 * node's state and masks.  A watching agent keeps its records across
 * reports, so probation and flapping play out over time; --assess folds
 * one report into fresh records.  Temperature is reported, not judged.
 */
#ifndef FAIRWAY_AGENT_REPORT_H
#define FAIRWAY_AGENT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "fairway/health.h"
#include "nvml.h"

#define FW_AGENT_MAX_GPUS 16
#define FW_AGENT_MAX_XID 32

struct fw_agent_gpu {
	unsigned index;
	char name[96];
	char uuid[96];
	int64_t temperature_c;      /* -1: not supported */
	int64_t ecc_volatile;       /* -1: not supported */
	int64_t ecc_aggregate;      /* -1: not supported */
	int64_t remap_corr;         /* rows remapped for correctable errors; -1: not supported */
	int64_t remap_unc;          /* ... for uncorrectable errors; -1: not supported */
	bool remap_pending;         /* a remap waits for the next reset */
	bool remap_failed;          /* a remap failed: no spare row */
	bool remap_new;             /* pending now, not in the last report */
	int nvlink_up;
	int nvlink_down[NVML_NVLINK_MAX_LINKS];     /* faults */
	int ndown;
	int nvlink_inactive[NVML_NVLINK_MAX_LINKS]; /* not up, not expected */
	int ninactive;
	uint32_t link_present, link_active;        /* collect: bit per link */
	uint32_t down_new;          /* down links not down in the last report */
	bool reset;                 /* seen reset since the last report: repaired */
	int64_t until;              /* after folding: SUSPECT's probation end */
	bool lost;                  /* fallen off the bus / reset required */
	char unread[96];            /* why NVML gave no handle; "" = read */
	int64_t xid[FW_AGENT_MAX_XID];
	int64_t xid_at[FW_AGENT_MAX_XID];
	int nxid;
	enum fw_health health;      /* after folding */
};

struct fw_agent_report {
	char node[64];
	int64_t time;               /* seconds since the epoch */
	bool available;             /* NVML loaded and initialised */
	char why[256];              /* when not available */
	char driver[80];
	bool xid_events;            /* XID events could be registered */
	int ngpus;
	struct fw_agent_gpu gpu[FW_AGENT_MAX_GPUS];
	enum fw_health node_health; /* after folding */
	uint32_t bad_mask, suspect_mask;
};

/* XID events: one set for the agent's life (registered once), and what
 * the agent knows of the NVLink links that should be up. */
struct fw_agent_events {
	nvmlEventSet_t set;
	bool ok;
	int nvlinks;                          /* --nvlinks N; 0: learn only */
	uint32_t seen_up[FW_AGENT_MAX_GPUS];  /* links seen up, per GPU */
	uint32_t down_last[FW_AGENT_MAX_GPUS]; /* links down in the last report */
	bool lost_last[FW_AGENT_MAX_GPUS];     /* lost in the last report */
	int64_t ecc_last[FW_AGENT_MAX_GPUS];   /* volatile ECC count then */
	bool remap_last[FW_AGENT_MAX_GPUS];    /* a row remap pending then */
	bool repaired;                         /* SIGUSR1: the operator repaired */
};

int fw_agent_events_open(struct fw_nvml *n, struct fw_agent_events *e, int ngpus);
void fw_agent_events_close(struct fw_nvml *n, struct fw_agent_events *e);

/* Fill r (node name and time already set) from NVML, waiting up to
 * wait_ms for XID events.  FW_OK or FW_EIO with r->why set. */
int fw_agent_collect(struct fw_nvml *n, struct fw_agent_events *e, unsigned wait_ms,
		     struct fw_agent_report *r);

/* Fold r into the records (node + one per GPU) and set the health fields. */
void fw_agent_fold(const struct fw_health_config *c, struct fw_health_rec *node,
		   struct fw_health_rec *gpus, struct fw_agent_report *r);

json_t *fw_agent_to_json(const struct fw_agent_report *r);
/* FW_OK or FW_EINVAL with why filled: the field's path with the GPU's
 * place in the list and what it must be ("gpus[2].ecc_uncorrectable.
 * volatile: must be >= 0 ...").  Refused: a negative time, count, XID or
 * its time; a GPU index listed twice or not in 0..n-1 (n GPUs listed,
 * at most FW_AGENT_MAX_GPUS); a link outside 0..17; a GPU without its
 * xid and nvlink.down lists; a non-boolean pending, failed or lost.
 * GPUs are read into r->gpu[index] (an absent index is the place). */
int fw_agent_from_json(const json_t *j, struct fw_agent_report *r, char *why, size_t whylen);

#endif
