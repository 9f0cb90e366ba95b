/*
 * test.h - the unit-test harness: TEST(name) { ... } registers a test;
 * CHECK(cond) and the CHECK_* helpers record failures with file and line.
 * tests/unit/main.c runs every test (or those whose name contains argv[1]) and
 * ends with the line "N passed, N failed".
 */
#ifndef MYRIAD_TEST_H
#define MYRIAD_TEST_H

#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>

struct test_case {
	const char *name;
	void (*fn)(void);
	struct test_case *next;
};
void test_register(struct test_case *t);
/* tmpfile.c: a fresh path NAME in this process's folder under /tmp; the
 * removal of a SQLite file with its -wal and -shm (frees path). */
char *unit_tmp_file(const char *name);
void unit_remove_db(char *path);
extern int test_failures;   /* failures in the current test */

#define TEST(n)                                                          \
	static void test_##n(void);                                      \
	static struct test_case test_case_##n = {#n, test_##n, NULL};    \
	__attribute__((constructor)) static void test_reg_##n(void)      \
	{                                                                \
		test_register(&test_case_##n);                           \
	}                                                                \
	static void test_##n(void)

#define CHECK(c)                                                                 \
	do {                                                                     \
		if (!(c)) {                                                      \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
			test_failures++;                                         \
		}                                                                \
	} while (0)

#define CHECK_INT(a, b)                                                          \
	do {                                                                     \
		long long va_ = (long long)(a), vb_ = (long long)(b);            \
		if (va_ != vb_) {                                                \
			fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, va_, #b, vb_);           \
			test_failures++;                                         \
		}                                                                \
	} while (0)

#define CHECK_STR(a, b)                                                          \
	do {                                                                     \
		const char *sa_ = (a), *sb_ = (b);                               \
		if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                     \
			fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, sa_ ? sa_ : "(null)",    \
				sb_ ? sb_ : "(null)");                           \
			test_failures++;                                         \
		}                                                                \
	} while (0)

#define CHECK_NEAR(a, b, eps)                                                    \
	do {                                                                     \
		double da_ = (a), db_ = (b);                                     \
		if (!(da_ - db_ <= (eps) && db_ - da_ <= (eps))) {               \
			fprintf(stderr, "  %s:%d: %s == %g, expected %g (+-%g)\n", \
				__FILE__, __LINE__, #a, da_, db_, (double)(eps)); \
			test_failures++;                                         \
		}                                                                \
	} while (0)

#endif
