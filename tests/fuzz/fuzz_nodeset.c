/*
 * fuzz_nodeset.c - libFuzzer target for the nodeset library (src/nodeset*.c):
 * parses the input (with a small @su:N group resolver) and, when it parses,
 * checks that fold -> parse -> fold is stable, that the count and the set
 * survive the round trip, that foreach visits count names, that the Slurm
 * fold names the same set, that split parts and contiguous runs add up to
 * the set, and that the last name is the one at count - 1. A failed parse
 * must name a position. The Slurm reading of the input must not crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodeset.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @su:N (1..40) is gpu[32(N-1)+1 - 32N]; every other group fails. */
static int groups(void *ctx, const char *group, struct nodeset *out, char **err)
{
	char text[64];
	int n;

	(void)ctx;
	if (sscanf(group, "su:%d", &n) != 1 || n < 1 || n > 40) {
		*err = xasprintf("no such group: %s", group);
		return -1;
	}
	snprintf(text, sizeof text, "gpu[%04d-%04d]", 32 * (n - 1) + 1, 32 * n);
	return nodeset_parse(out, text, NULL, NULL, err);
}

static int count_name(void *ctx, const char *name)
{
	size_t *n = ctx;

	(void)name;
	return ++*n > 100000;   /* stop early on huge sets */
}

/* The parts must hold count names in all, and (when there are few, the
 * check is quadratic) the whole set. Frees them. */
static void check_parts(const char *what, const char *in, const struct nodeset *a, struct nodeset **parts,
			size_t n)
{
	struct nodeset *u = nodeset_new();
	size_t total = 0;

	for (size_t i = 0; i < n; i++) {
		total += nodeset_count(parts[i]);
		if (n <= 200)
			nodeset_union(u, parts[i]);
	}
	if (total != nodeset_count(a) || (n <= 200 && !nodeset_equal(u, a))) {
		fprintf(stderr, "fuzz_nodeset: %s do not add up to the set\n  input: %s\n", what, in);
		abort();
	}
	nodeset_free(u);
	nodeset_free_parts(parts, n);
}

static void fail(const char *what, const char *in, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_nodeset: %s\n  input: %s\n  first: %s\n  second: %s\n",
		what, in, a ? a : "(null)", b ? b : "(null)");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = xstrndup((const char *)data, size), *err = NULL, *f1, *f2, *f3;
	struct nodeset *a = nodeset_new(), *b, *c;
	size_t seen = 0, n;

	if ((c = nodeset_from_slurm(in, &err)))
		nodeset_free(c);
	free(err);
	err = NULL;
	if (nodeset_parse(a, in, groups, NULL, &err) < 0) {
		if (!err || strncmp(err, "position ", 9) != 0)
			fail("error without a position", in, err, NULL);
		if (nodeset_count(a) != 0)
			fail("failed parse changed the set", in, err, NULL);
		free(err);
		nodeset_free(a);
		free(in);
		return 0;
	}
	if (err)
		fail("success with an error message", in, err, NULL);
	f1 = nodeset_fold(a);
	b = nodeset_from(f1, &err);
	if (!b)
		fail("fold does not parse", in, f1, err);
	f2 = nodeset_fold(b);
	if (strcmp(f1, f2) != 0)
		fail("fold is not stable", in, f1, f2);
	if (nodeset_count(a) != nodeset_count(b) || !nodeset_equal(a, b))
		fail("round trip changed the set", in, f1, f2);
	if (nodeset_foreach(a, count_name, &seen) == 0 && seen != nodeset_count(a))
		fail("foreach and count disagree", in, f1, NULL);
	if (nodeset_count(a) <= 100000) {   /* the Slurm fold may list every name */
		struct nodeset **parts;

		f3 = nodeset_fold_slurm(a);
		c = nodeset_from(f3, &err);
		if (!c || !nodeset_equal(a, c))
			fail("the Slurm fold is another set", in, f1, f3);
		nodeset_free(c);
		free(f3);
		parts = nodeset_split(a, 1 + size % 7, &n);
		check_parts("split parts", in, a, parts, n);
		parts = nodeset_contiguous(a, &n);
		check_parts("contiguous runs", in, a, parts, n);
	}
	if (nodeset_count(a)) {
		char *last = nodeset_name_at(a, nodeset_count(a) - 1);

		if (!last || !nodeset_contains(a, last) || nodeset_name_at(a, nodeset_count(a)))
			fail("the last name is not in the set", in, f1, last);
		free(last);
	}
	free(f1);
	free(f2);
	nodeset_free(a);
	nodeset_free(b);
	free(in);
	return 0;
}
