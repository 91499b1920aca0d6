/*
 * sha256.c — SHA-256 of a buffer (FIPS 180-4); contract in sha256.h.
 *
 * Blocks of 64 bytes go through the 64-round compression; the last one or
 * two are built on the stack with the 0x80 byte, zero padding and the
 * message length in bits, big-endian.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* The message schedule of one block. */
static void schedule(const unsigned char *p, uint32_t w[64])
{
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
		       p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
}

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];

	schedule(p, w);
	memcpy(v, h, sizeof v);
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof *v);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

/* The last one or two blocks: the tail, 0x80, zeros, the length in bits. */
static void finish(uint32_t h[8], const unsigned char *tail, size_t n, size_t len)
{
	unsigned char b[128] = { 0 };
	size_t total = n + 9 <= 64 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;

	memcpy(b, tail, n);
	b[n] = 0x80;
	for (int i = 0; i < 8; i++)
		b[total - 1 - (size_t)i] = (unsigned char)(bits >> (8 * i));
	for (size_t k = 0; k < total; k += 64)
		block(h, b + k);
}

void fw_sha256_hex(const void *buf, size_t len, char hex[FW_SHA256_HEX])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const unsigned char *p = buf;
	size_t full = len / 64 * 64;

	for (size_t k = 0; k < full; k += 64)
		block(h, p + k);
	finish(h, p + full, len - full, len);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", (unsigned)h[i]);
}
