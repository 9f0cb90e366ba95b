/*
 * fuzz_nodeset.c - libFuzzer target for src/nodeset.c: parses the input (with
 * a small @su:N group resolver) and, when it parses, checks that fold -> parse
 * -> fold is stable, that the count and the set survive the round trip, and
 * that foreach visits count names. A failed parse must name a position.
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

static void fail(const char *what, const char *in, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_nodeset: %s\n  input: %s\n  first: %s\n  second: %s\n",
		what, in, a ? a : "(null)", b ? b : "(null)");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = xstrndup((const char *)data, size), *err = NULL, *f1, *f2;
	struct nodeset *a = nodeset_new(), *b;
	size_t seen = 0;

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
	free(f1);
	free(f2);
	nodeset_free(a);
	nodeset_free(b);
	free(in);
	return 0;
}
