/*
 * arena.h — per-cycle bump allocator.
 *
 * Everything a scheduling cycle allocates (the per-cycle node state, the
 * domain index, candidate lists, the plan itself) comes from one arena, which
 * the caller resets or releases in one call.  This is nginx's pool and git's
 * mem_pool: no per-object free, no leaks by construction, and the cycle's
 * memory use is visible as one number (fw_arena_used).
 *
 * Blocks are chained; a request larger than the block size gets a block of
 * its own.  Allocations are 16-byte aligned and zero-filled.
 *
 * Failure: fw_arena_alloc returns NULL when the underlying malloc fails or the
 * optional byte limit (fw_arena.limit, 0 = none) would be exceeded; tests use
 * the limit to inject out-of-memory at every allocation in turn.
 *
 * Ownership: the arena owns every pointer it returns; fw_arena_reset keeps
 * every block for reuse (a steady cycle then allocates, and faults in, no
 * new memory), fw_arena_release frees everything.
 */
#ifndef FAIRWAY_ARENA_H
#define FAIRWAY_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct fw__arena_block;

struct fw_arena {
	struct fw__arena_block *head; /* current block (newest first) */
	struct fw__arena_block *spare; /* blocks kept by reset, for reuse */
	size_t block_size;            /* default block payload, bytes */
	size_t used;                  /* bytes handed out since last reset */
	size_t reserved;              /* bytes held in blocks */
	size_t limit;                 /* 0 = unlimited; else max bytes reserved */
};

/* block_size 0 means 1 MiB. */
void fw_arena_init(struct fw_arena *a, size_t block_size);
void *fw_arena_alloc(struct fw_arena *a, size_t n);
/* Like fw_arena_alloc but not zero-filled: for scratch the caller writes
 * before it reads (sort buffers, arrays filled in full). */
void *fw_arena_alloc_raw(struct fw_arena *a, size_t n);
/* n elements of size sz, with overflow check. */
void *fw_arena_calloc(struct fw_arena *a, size_t n, size_t sz);
char *fw_arena_strdup(struct fw_arena *a, const char *s);
void fw_arena_reset(struct fw_arena *a);
void fw_arena_release(struct fw_arena *a);
size_t fw_arena_used(const struct fw_arena *a);

#define FW_ARENA_NEW(a, type, n) ((type *)fw_arena_calloc((a), (n), sizeof(type)))
/* n elements, uninitialised (overflow-checked); see fw_arena_alloc_raw. */
#define FW_ARENA_RAW(a, type, n)                                               \
	((size_t)(n) > SIZE_MAX / sizeof(type) ? (type *)NULL                  \
	 : (type *)fw_arena_alloc_raw((a), (size_t)(n) * sizeof(type)))

#endif
