/*
 * arena.c — the per-cycle bump allocator (contract in arena.h).
 *
 * Blocks form a singly linked list, newest first.  Allocation bumps an
 * offset in the newest block; when it does not fit, a spare block large
 * enough is reused, else a new block of max(block_size, n) is chained in
 * front.  Reset moves every block to the spare list, so a steady-state
 * cycle does no malloc and touches no fresh pages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/arena.h"

struct fw__arena_block {
	struct fw__arena_block *next;
	size_t size; /* payload bytes */
	size_t off;  /* bytes used */
	_Alignas(16) unsigned char data[];
};

#define ALIGN_UP(n) (((n) + 15u) & ~(size_t)15u)

void fw_arena_init(struct fw_arena *a, size_t block_size)
{
	memset(a, 0, sizeof *a);
	a->block_size = block_size ? block_size : (size_t)1 << 20;
}

/* A spare block of at least n bytes (first fit), unlinked; NULL if none. */
static struct fw__arena_block *take_spare(struct fw_arena *a, size_t n)
{
	for (struct fw__arena_block **pp = &a->spare; *pp; pp = &(*pp)->next) {
		struct fw__arena_block *b = *pp;
		if (b->size >= n) {
			*pp = b->next;
			return b;
		}
	}
	return NULL;
}

static struct fw__arena_block *new_block(struct fw_arena *a, size_t n)
{
	size_t size = n > a->block_size ? n : a->block_size;
	struct fw__arena_block *b = take_spare(a, n);

	if (!b) {
		if (a->limit && a->reserved + size > a->limit)
			return NULL;
		b = malloc(sizeof *b + size);
		if (!b)
			return NULL;
		b->size = size;
		a->reserved += size;
	}
	b->off = 0;
	b->next = a->head;
	a->head = b;
	return b;
}

void *fw_arena_alloc(struct fw_arena *a, size_t n)
{
	void *p = fw_arena_alloc_raw(a, n);

	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

void *fw_arena_alloc_raw(struct fw_arena *a, size_t n)
{
	struct fw__arena_block *b = a->head;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - 32)
		return NULL;
	n = ALIGN_UP(n);
	if (!b || b->size - b->off < n) {
		b = new_block(a, n);
		if (!b)
			return NULL;
	}
	p = b->data + b->off;
	b->off += n;
	a->used += n;
	return p;
}

void *fw_arena_calloc(struct fw_arena *a, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		return NULL;
	return fw_arena_alloc(a, n * sz);
}

char *fw_arena_strdup(struct fw_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = fw_arena_alloc(a, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void fw_arena_reset(struct fw_arena *a)
{
	while (a->head) {
		struct fw__arena_block *b = a->head;
		a->head = b->next;
		b->next = a->spare;
		a->spare = b;
	}
	a->used = 0;
}

static void free_list(struct fw__arena_block *b)
{
	while (b) {
		struct fw__arena_block *next = b->next;
		free(b);
		b = next;
	}
}

void fw_arena_release(struct fw_arena *a)
{
	free_list(a->head);
	free_list(a->spare);
	a->head = NULL;
	a->spare = NULL;
	a->used = 0;
	a->reserved = 0;
}

size_t fw_arena_used(const struct fw_arena *a)
{
	return a->used;
}
