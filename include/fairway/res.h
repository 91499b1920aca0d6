/*
 * res.h — resource vectors.
 *
 * fairway accounts three resources, listed once in FW_RES_MAP:
 *   gpu  in milli-GPUs (1000 = one whole GPU), so fractional sharing is exact
 *        integer arithmetic;
 *   cpu  in millicores;
 *   mem  in MiB.
 * A struct fw_res is a plain value passed by copy.  Quotas use -1 for
 * "unlimited" (FW_UNLIMITED); demand and allocation are never negative.
 *
 * Dominant share (DRF): for a vector x against a capacity c, the dominant
 * share is max over resources r with c[r] > 0 of x[r] / c[r].  fairway uses it
 * to order queues and to keep a queue's fair share consistent across
 * resources (see fairshare.h).
 */
#ifndef FAIRWAY_RES_H
#define FAIRWAY_RES_H

#include <stdint.h>

#define FW_RES_MAP(X)               \
	X(GPU, gpu, "milli-GPU")    \
	X(CPU, cpu, "millicore")    \
	X(MEM, mem, "MiB")

enum fw_res_kind {
#define FW__RES_ENUM(U, l, unit) FW_RES_##U,
	FW_RES_MAP(FW__RES_ENUM)
#undef FW__RES_ENUM
	FW_RES_COUNT
};

#define FW_UNLIMITED (-1)

struct fw_res {
	int64_t v[FW_RES_COUNT];
};

/* "gpu", "cpu", "mem" */
const char *fw_res_name(int kind);
const char *fw_res_unit(int kind);

static inline struct fw_res fw_res_zero(void)
{
	struct fw_res r = { { 0 } };
	return r;
}

static inline struct fw_res fw_res_add(struct fw_res a, struct fw_res b)
{
	for (int i = 0; i < FW_RES_COUNT; i++)
		a.v[i] += b.v[i];
	return a;
}

static inline struct fw_res fw_res_sub(struct fw_res a, struct fw_res b)
{
	for (int i = 0; i < FW_RES_COUNT; i++)
		a.v[i] -= b.v[i];
	return a;
}

/* a <= b for every resource; an FW_UNLIMITED entry in b always holds. */
static inline int fw_res_fits(struct fw_res a, struct fw_res b)
{
	for (int i = 0; i < FW_RES_COUNT; i++)
		if (b.v[i] != FW_UNLIMITED && a.v[i] > b.v[i])
			return 0;
	return 1;
}

/* max_r x[r]/cap[r] over resources with cap[r] > 0; 0 when none. */
double fw_res_dominant_share(struct fw_res x, struct fw_res cap);

#endif
