/*
 * check.h - the unit tests' assertions. A failed check prints where and what
 * (both values) and marks the test failed; the test goes on so one run shows
 * every failure. main() ends with `return check_status();` which gives
 * automake 0 (pass) or 1 (fail). Exit 77 means skipped.
 */
#ifndef MEMZ_CHECK_H
#define MEMZ_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                          \
	do {                                                                 \
		check_count++;                                               \
		if (!(cond)) {                                               \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                            \
		}                                                            \
	} while (0)

#define CHECK_INT(a, b)                                                      \
	do {                                                                 \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
		check_count++;                                               \
		if (check_a_ != check_b_) {                                  \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, check_a_, #b, check_b_); \
		}                                                            \
	} while (0)

#define CHECK_U64(a, b)                                                      \
	do {                                                                 \
		uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);   \
		check_count++;                                               \
		if (check_a_ != check_b_) {                                  \
			check_failures++;                                    \
			fprintf(stderr,                                      \
				"%s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n", \
				__FILE__, __LINE__, #a, check_a_, #b, check_b_); \
		}                                                            \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                \
	do {                                                                 \
		double check_a_ = (double)(a), check_b_ = (double)(b);       \
		check_count++;                                               \
		if (!(fabs(check_a_ - check_b_) <= (tol))) {                 \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: %s == %g, expected %g (+-%g)\n", \
				__FILE__, __LINE__, #a, check_a_, check_b_,  \
				(double)(tol));                              \
		}                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *check_a_ = (a), *check_b_ = (b);                 \
		check_count++;                                               \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_)) {  \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a,                      \
				check_a_ ? check_a_ : "(null)",              \
				check_b_ ? check_b_ : "(null)");             \
		}                                                            \
	} while (0)

static inline int check_status(void)
{
	fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
