/*
 * harness.h — the tiny in-house unit-test harness (libuv's test/task.h is
 * the model).
 *
 * A test file defines tests with TEST(name) { ... } and ends with
 *     TEST_MAIN(test_a, test_b, ...)
 * Each test runs in order; a failed ASSERT_* prints both operands with
 * file and line, marks the test failed and returns from it (longjmp).
 * The binary prints one line per test, "PASS name" or "FAIL name", then
 * "N passed, N failed", and exits non-zero if anything failed.
 * tests/run.sh adds the counts of every binary together.
 */
#ifndef FAIRWAY_TEST_HARNESS_H
#define FAIRWAY_TEST_HARNESS_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf fw_test__jmp;
static int fw_test__failed_now;

#define TEST(name) static void name(void)

#define FW_TEST__FAIL(...)                                                   \
	do {                                                                 \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);            \
		fprintf(stderr, __VA_ARGS__);                                \
		fprintf(stderr, "\n");                                       \
		fw_test__failed_now = 1;                                     \
		longjmp(fw_test__jmp, 1);                                    \
	} while (0)

#define ASSERT(cond)                                                         \
	do {                                                                 \
		if (!(cond))                                                 \
			FW_TEST__FAIL("assertion failed: %s", #cond);        \
	} while (0)

#define ASSERT_EQ(a, b)                                                      \
	do {                                                                 \
		long long fw__a = (long long)(a), fw__b = (long long)(b);    \
		if (fw__a != fw__b)                                          \
			FW_TEST__FAIL("%s == %s: %lld != %lld", #a, #b, fw__a, \
				      fw__b);                                \
	} while (0)

#define ASSERT_NE(a, b)                                                      \
	do {                                                                 \
		long long fw__a = (long long)(a), fw__b = (long long)(b);    \
		if (fw__a == fw__b)                                          \
			FW_TEST__FAIL("%s != %s: both %lld", #a, #b, fw__a);  \
	} while (0)

#define ASSERT_OK(expr) ASSERT_EQ((expr), 0)

#define ASSERT_NEAR(a, b, eps)                                               \
	do {                                                                 \
		double fw__a = (double)(a), fw__b = (double)(b);             \
		double fw__d = fw__a - fw__b;                                \
		if (fw__d < 0)                                               \
			fw__d = -fw__d;                                      \
		if (!(fw__d <= (eps)))                                       \
			FW_TEST__FAIL("%s ~= %s: %.9g vs %.9g (eps %g)", #a,  \
				      #b, fw__a, fw__b, (double)(eps));      \
	} while (0)

#define ASSERT_STR_EQ(a, b)                                                  \
	do {                                                                 \
		const char *fw__a = (a), *fw__b = (b);                       \
		if (!fw__a || !fw__b || strcmp(fw__a, fw__b) != 0)           \
			FW_TEST__FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b,    \
				      fw__a ? fw__a : "(null)",              \
				      fw__b ? fw__b : "(null)");             \
	} while (0)

#define ASSERT_STR_CONTAINS(hay, needle)                                     \
	do {                                                                 \
		const char *fw__h = (hay), *fw__n = (needle);                \
		if (!fw__h || !strstr(fw__h, fw__n))                         \
			FW_TEST__FAIL("\"%s\" does not contain \"%s\"",       \
				      fw__h ? fw__h : "(null)", fw__n);      \
	} while (0)

typedef void (*fw_test_fn)(void);

static inline int fw_test_main(const char *names, fw_test_fn *fns, int n)
{
	volatile int passed = 0, failed = 0;
	const char *volatile p = names;
	for (volatile int i = 0; i < n; i++) {
		char name[128];
		size_t k = 0;
		while (*p == ' ' || *p == ',')
			p++;
		while (*p && *p != ',' && k < sizeof name - 1)
			name[k++] = *p++;
		while (k && name[k - 1] == ' ')
			k--;
		name[k] = 0;
		fw_test__failed_now = 0;
		if (setjmp(fw_test__jmp) == 0)
			fns[i]();
		if (fw_test__failed_now) {
			failed++;
			printf("FAIL %s\n", name);
		} else {
			passed++;
			printf("PASS %s\n", name);
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", (int)passed, (int)failed);
	return failed ? 1 : 0;
}

#define FW_TEST__STR2(...) #__VA_ARGS__
#define FW_TEST__STR(...) FW_TEST__STR2(__VA_ARGS__)

#define TEST_MAIN(...)                                                       \
	int main(void)                                                       \
	{                                                                    \
		fw_test_fn fns[] = { __VA_ARGS__ };                          \
		return fw_test_main(#__VA_ARGS__, fns,                       \
				    (int)(sizeof fns / sizeof fns[0]));      \
	}

#endif
