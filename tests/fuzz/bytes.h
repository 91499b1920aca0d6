/*
 * bytes.h — the fuzz targets that build a world from their input
 * (fuzz_cycle, fuzz_sim, fuzz_serve) read it as a stream of choices.
 *
 * A byte past the end reads 0, so every input decodes to something and a
 * short one to the smallest world.  Never make two reads in one call's
 * arguments: C leaves their order open, and gcc's corpus replay must
 * decode what clang's fuzzer found the same way.
 */
#ifndef FAIRWAY_TESTS_FUZZ_BYTES_H
#define FAIRWAY_TESTS_FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>

struct bytes {
	const uint8_t *p;
	size_t n, at;
};

static inline unsigned u8(struct bytes *b)
{
	return b->at < b->n ? b->p[b->at++] : 0;
}

/* 0 .. n-1 (0 when n is 0). */
static inline unsigned pick(struct bytes *b, unsigned n)
{
	return n ? u8(b) % n : 0;
}

static inline unsigned u16(struct bytes *b)
{
	unsigned hi = u8(b);
	return hi << 8 | u8(b);
}

#endif
