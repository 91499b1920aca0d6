/* test_arena.c — the per-cycle arena. */
#include <stdint.h>

#include "fairway/arena.h"
#include "harness.h"

TEST(alloc_is_aligned_and_zeroed)
{
	struct fw_arena a;
	fw_arena_init(&a, 256);
	for (int i = 1; i < 100; i++) {
		unsigned char *p = fw_arena_alloc(&a, (size_t)i);
		ASSERT(p != NULL);
		ASSERT_EQ((uintptr_t)p % 16, 0);
		for (int k = 0; k < i; k++)
			ASSERT_EQ(p[k], 0);
		p[i - 1] = 0xff;
	}
	fw_arena_release(&a);
}

TEST(large_requests_get_their_own_block)
{
	struct fw_arena a;
	fw_arena_init(&a, 64);
	char *p = fw_arena_alloc(&a, 10000);
	ASSERT(p != NULL);
	p[9999] = 1;
	ASSERT(fw_arena_used(&a) >= 10000);
	fw_arena_release(&a);
}

TEST(reset_keeps_the_blocks_and_reuses_them)
{
	struct fw_arena a;
	fw_arena_init(&a, 1024);
	for (int i = 0; i < 50; i++)
		ASSERT(fw_arena_alloc(&a, 200) != NULL);
	size_t held = a.reserved;
	ASSERT(held > 1024);
	fw_arena_reset(&a);
	ASSERT_EQ(fw_arena_used(&a), 0);
	ASSERT_EQ(a.reserved, held);
	/* the same work again takes no new memory */
	for (int i = 0; i < 50; i++) {
		unsigned char *p = fw_arena_alloc(&a, 200);
		ASSERT(p != NULL);
		ASSERT_EQ(p[0], 0); /* still zero-filled */
		p[0] = 1;
	}
	ASSERT_EQ(a.reserved, held);
	/* a request larger than any spare block gets a new one */
	ASSERT(fw_arena_alloc(&a, 5000) != NULL);
	ASSERT(a.reserved > held);
	fw_arena_release(&a);
	ASSERT_EQ(a.reserved, 0);
}

TEST(limit_makes_allocation_fail_cleanly)
{
	struct fw_arena a;
	fw_arena_init(&a, 128);
	a.limit = 256;
	ASSERT(fw_arena_alloc(&a, 100) != NULL);
	ASSERT(fw_arena_alloc(&a, 100) != NULL);
	ASSERT(fw_arena_alloc(&a, 100) == NULL);
	ASSERT(fw_arena_calloc(&a, SIZE_MAX / 2, 4) == NULL);
	fw_arena_release(&a);
}

TEST(strdup_copies)
{
	struct fw_arena a;
	fw_arena_init(&a, 0);
	char *s = fw_arena_strdup(&a, "rack-7");
	ASSERT_STR_EQ(s, "rack-7");
	fw_arena_release(&a);
}

TEST_MAIN(alloc_is_aligned_and_zeroed, large_requests_get_their_own_block,
	  reset_keeps_the_blocks_and_reuses_them, limit_makes_allocation_fail_cleanly, strdup_copies)
