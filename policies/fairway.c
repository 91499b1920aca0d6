/*
 * fairway.c — fairway's default policy.
 *
 * Hierarchical fair share (queues furthest below their share first), jobs
 * inside a queue by priority then submit time, skip-ahead when a job does
 * not fit (no head-of-line blocking), bin-packing placement.  Every member
 * is left at its documented default (policy.h), which is the point: the
 * defaults are the product.
 */
#include "fairway/policy.h"

const struct fw_policy_ops fw__policy_fairway = {
	.name = "fairway",
	.summary = "hierarchical fair share, gangs, topology-aware bin-packing (default)",
	.job_before = NULL,
	.queue_order = FW_QORDER_FAIRSHARE,
	.strict_order = false,
	.spread_default = false,
};
