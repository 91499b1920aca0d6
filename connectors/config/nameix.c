/*
 * nameix.c — name -> index lookup for the loader.
 *
 * Configs describe up to FW_CONFIG_MAX_NODES nodes and any number of jobs;
 * duplicate checks and name references (a job's queue, an allocation's node)
 * must not be quadratic.  This is an open-addressing hash of indices (FNV-1a,
 * linear probing, load <= 1/2).  It stores no strings: the names live in the
 * snapshot's arrays, found through base + i * stride, so the caller passes
 * the array's current base on every call (the array may have moved since).
 */
#include <stdlib.h>
#include <string.h>

#include "config_int.h"

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static const char *name_at(const void *base, size_t stride, int32_t i)
{
	return (const char *)base + (size_t)i * stride;
}

static void place(struct nameix *ix, const void *base, size_t stride,
		  int32_t i)
{
	uint32_t m = ix->cap - 1, h = fnv1a(name_at(base, stride, i)) & m;
	while (ix->slot[h])
		h = (h + 1) & m;
	ix->slot[h] = i + 1;
}

static int grow(struct nameix *ix, const void *base, size_t stride)
{
	struct nameix old = *ix;
	uint32_t cap = old.cap ? old.cap * 2 : 64;

	ix->slot = calloc(cap, sizeof *ix->slot);
	if (!ix->slot) {
		*ix = old;
		return FW_ENOMEM;
	}
	ix->cap = cap;
	for (uint32_t k = 0; k < old.cap; k++)
		if (old.slot[k])
			place(ix, base, stride, old.slot[k] - 1);
	free(old.slot);
	return FW_OK;
}

int32_t nameix_find(const struct nameix *ix, const void *base, size_t stride,
		    const char *name)
{
	uint32_t m, h;

	if (!ix->cap)
		return -1;
	m = ix->cap - 1;
	for (h = fnv1a(name) & m; ix->slot[h]; h = (h + 1) & m)
		if (strcmp(name_at(base, stride, ix->slot[h] - 1), name) == 0)
			return ix->slot[h] - 1;
	return -1;
}

int nameix_add(struct nameix *ix, const void *base, size_t stride, int32_t i)
{
	if ((ix->n + 1) * 2 > ix->cap) {
		int rc = grow(ix, base, stride);
		if (rc)
			return rc;
	}
	place(ix, base, stride, i);
	ix->n++;
	return FW_OK;
}

void nameix_free(struct nameix *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = ix->n = 0;
}
