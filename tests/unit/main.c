/*
 * main.c - runs the unit tests registered with TEST() and prints
 * "N passed, N failed". An argument runs only tests whose name contains it.
 */
#include <stdlib.h>
#include "test.h"

int test_failures;
static struct test_case *tests;

void test_register(struct test_case *t)
{
	t->next = tests;
	tests = t;
}

int main(int argc, char **argv)
{
	struct test_case *rev = NULL, *t, *next;
	int passed = 0, failed = 0;

	for (t = tests; t; t = next) {   /* registration order is reversed */
		next = t->next;
		t->next = rev;
		rev = t;
	}
	for (t = rev; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		test_failures = 0;
		t->fn();
		if (test_failures) {
			printf("FAIL %s\n", t->name);
			failed++;
		} else {
			printf("ok   %s\n", t->name);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
