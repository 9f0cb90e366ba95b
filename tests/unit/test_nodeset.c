/*
 * test_nodeset.c - unit tests for the nodeset syntax and fold
 * (src/nodeset*.c): round trips, ClusterShell 1.9's reading (mixed padding,
 * digits glued to brackets, whitespace, names beginning with digits), its
 * errors with their positions, folds in every index, order by numbers,
 * groups through a resolver, the expansion budget and hostile input. Set
 * operations, positions and Slurm are in test_nodeset_ops.c; the cases taken
 * from ClusterShell's own tests in tests/nodeset.test.
 */
#include <stdio.h>

#include "nodeset_check.h"

TEST(nodeset_round_trips)
{
	static const char *same[] = {
		"gpu[0001-1280]", "gpu[0001-0032,0100]", "gpu0007", "login1",
		"gpu[1-64]", "io[1-4],login1", "gpu[0001-0004,0007]", "n[1-100]",
		"rack[1-2]-n[01-04]", "gpu[00001-10240]", "a[1-2]b", "node-[1-3].ib",
		"gpu0001:[0-7]", "head", "x[0-9]", "n[1-2,01-02]", "n[1,03,05]",
		"gpu[1-999999999]", "n[000-099]", "gpu[0001-1280]-ib[0-7]",
		"[1-2]", "0cluster", "n[9-10]", "n[0998-1001]", "n[1-2,01,10,001]",
		"artcore[2-32000]-ib0", "da[30,34-51,59-60]p[1-2],da[70-77]p3",
		"x[220-221]y000z[030-031]", "[1-10]xpc[3-4]p40_3",
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(same); i++)
		CHECK_FOLD(same[i], same[i]);
}

TEST(nodeset_fold_normalizes)
{
	CHECK_FOLD("gpu0001,gpu0002,gpu0003,gpu0004,gpu0007", "gpu[0001-0004,0007]");
	CHECK_FOLD("gpu[0001-0006],gpu0007", "gpu[0001-0007]");
	CHECK_FOLD("gpu0007,gpu[0001-0006]", "gpu[0001-0007]");
	CHECK_FOLD("gpu[5,1-3,2,4]", "gpu[1-5]");
	CHECK_FOLD("gpu[1-3],gpu[2-6]", "gpu[1-6]");
	CHECK_FOLD("io[1-4],gpu0001,login1", "gpu0001,io[1-4],login1");
	CHECK_FOLD("  gpu1 , gpu2  ", "gpu[1-2]");
	CHECK_FOLD("gpu[0001-0999],gpu1000", "gpu[0001-1000]");
	CHECK_FOLD("gpu[0998-0999],gpu[1000-1001]", "gpu[0998-1001]");
	/* one bracket for every padding, as ClusterShell 1.9 prints them */
	CHECK_FOLD("gpu[1-5],gpu[0001-0009,1000]", "gpu[1-5,0001-0009,1000]");
	CHECK_FOLD("n1,n01,n10,n001,n2", "n[1-2,01,10,001]");
	CHECK_FOLD("n[9-10],n05", "n[9,05,10]");
	CHECK_FOLD("gpu[0001-9999],gpu10000", "gpu[0001-9999,10000]");
	/* a padded run keeps its padding when a step breaks it (ClusterShell) */
	CHECK_FOLD("n[05,99-100]", "n[05,99,100]");
	CHECK_FOLD("n[000,999-1013]", "n[000,999,1000-1013]");
	CHECK_FOLD("n[1-5/2,6-7]", "n[1,3,5-7]");
	CHECK_FOLD("gpu1000", "gpu1000");
	CHECK_FOLD("", "");
	CHECK_FOLD(" \t\n ", "");
}

TEST(nodeset_digits_next_to_brackets)
{
	/* ClusterShell glues them to the numbers as text */
	CHECK_FOLD("a1[2-3]", "a[12-13]");
	CHECK_FOLD("a0[1-2]", "a[01-02]");
	CHECK_FOLD("a[1-2]7", "a[17,27]");
	CHECK_FOLD("a1[2-3],a12", "a[12-13]");
	CHECK_FOLD("prod-1[10-345]", "prod-[110-1345]");
	CHECK_INT(count_of("prod-1[10-345]"), 1236);
	CHECK_FOLD("prod-02[10-20]", "prod-[0210-0220]");
	CHECK_FOLD("prod-10[01,05,09-15,40-50,52]", "prod-[1001,1005,1009-1015,1040-1050,1052]");
	CHECK_FOLD("x[0-1]00", "x[000,100]");
	CHECK_FOLD("n[9-10]5", "n[95,105]");
	CHECK_FOLD("n1[9-10]", "n[19-110]");
	CHECK_FOLD("a1[2-3]4", "a[124,134]");
	CHECK_FOLD("x22[0-1]0y03[0-1]0-ipmi", "x[2200,2210]y[0300,0310]-ipmi");
	CHECK_FOLD("0[3,6,9]1abc16[1-4]56d", "[031,061,091]abc[16156,16256,16356,16456]d");
	CHECK_FOLD("a[1-2]bb3[4-5]", "a[1-2]bb[34-35]");
	CHECK_FOLD("n[ 1]5", "n15");
}

TEST(nodeset_mixed_padding_and_whitespace)
{
	CHECK_EXPAND("n[1,03,05]", "n1 n03 n05");
	CHECK_EXPAND("n[1,01]", "n1 n01");
	CHECK_FOLD("n[1 - 2]", "n[1-2]");
	CHECK_FOLD("n[ 1 , 3 ]", "n[1,3]");
	CHECK_FOLD("n[ 1-3 /2]", "n[1,3]");
	CHECK_FOLD("n1, n2 ,n3", "n[1-3]");
	CHECK_FOLD("n1,\n n2\t", "n[1-2]");
	CHECK_FOLD("n[1-2] ! n1", "n2");
	CHECK_FOLD("n[0-00]", "n0");   /* an all-zero end is not padded */
	CHECK_FOLD("n[1/1]", "n1");
	CHECK_FOLD("n[1-17/01]", "n[1-17]");
}

TEST(nodeset_names_with_leading_digits)
{
	CHECK_FOLD("0cluster", "0cluster");
	CHECK_FOLD("[0]cluster", "0cluster");
	CHECK_FOLD("12", "12");
	CHECK_FOLD("1[1-2]", "[11-12]");
	CHECK_FOLD("0[1-2]", "[01-02]");
	CHECK_EXPAND("[1-2]a", "1a 2a");
	CHECK_FOLD("1gpu,2gpu,3gpu", "[1-3]gpu");
}

TEST(nodeset_padding_kept)
{
	CHECK_FOLD("gpu1,gpu0001", "gpu[1,0001]");
	CHECK_INT(count_of("gpu1,gpu0001,gpu01"), 3);
	CHECK_EXPAND("n[08-11]", "n08 n09 n10 n11");
	CHECK_EXPAND("n[098-101]", "n098 n099 n100 n101");
	CHECK_EXPAND("n[99-101]", "n99 n100 n101");
	CHECK_EXPAND("n[00-02]", "n00 n01 n02");
	CHECK_EXPAND("n[0-2]", "n0 n1 n2");
	CHECK_INT(count_of("n[1-100]"), 100);
	CHECK_FOLD("n[001-100],n100", "n[001-100]");   /* the same 100 */
	CHECK_INT(count_of("n[001-100],n100"), 100);
	CHECK_INT(count_of("n[01-10],n010"), 11);
}

TEST(nodeset_count_and_contains)
{
	struct nodeset *ns = nodeset_from("gpu[0001-1280]", NULL);

	CHECK(ns != NULL);
	if (!ns)
		return;
	CHECK_INT(nodeset_count(ns), 1280);
	CHECK(nodeset_contains(ns, "gpu0001"));
	CHECK(nodeset_contains(ns, "gpu1280"));
	CHECK(nodeset_contains(ns, "gpu0999"));
	CHECK(nodeset_contains(ns, "gpu1000"));
	CHECK(!nodeset_contains(ns, "gpu1281"));
	CHECK(!nodeset_contains(ns, "gpu0000"));
	CHECK(!nodeset_contains(ns, "gpu1"));
	CHECK(!nodeset_contains(ns, "gpu01280"));
	CHECK(!nodeset_contains(ns, "gpu[0001-0002]"));
	nodeset_free(ns);
	ns = nodeset_from("gpu[0001-1280]-ib[0-7]", NULL);
	CHECK(ns && nodeset_contains(ns, "gpu0640-ib7") && !nodeset_contains(ns, "gpu0640-ib8"));
	CHECK(ns && !nodeset_contains(ns, "gpu640-ib7") && !nodeset_contains(ns, "gpu0640"));
	nodeset_free(ns);
	CHECK_INT(count_of("gpu[1-999999999]"), 999999999);
	CHECK_INT(count_of("rack[1-40]-n[01-32]"), 1280);
	CHECK_INT(count_of("gpu[0001-1280]-ib[0-7]"), 10240);
	CHECK_INT(count_of(""), 0);
	CHECK_INT(count_of("gpu1,gpu1,gpu[1-1]"), 1);
}

TEST(nodeset_expand_order)
{
	/* by pattern, then by the numbers: length first, then value */
	CHECK_EXPAND("gpu[0003,0001-0002]", "gpu0001 gpu0002 gpu0003");
	CHECK_EXPAND("login1,gpu2,io1", "gpu2 io1 login1");
	CHECK_EXPAND("rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02");
	CHECK_EXPAND("n[9-11]", "n9 n10 n11");
	CHECK_EXPAND("x,x1", "x x1");
	CHECK_EXPAND("gpu10-ib0,gpu2-ib0,gpu1-ib0", "gpu1-ib0 gpu2-ib0 gpu10-ib0");
	CHECK_EXPAND("gpu[1-2]-ib[9-10]", "gpu1-ib9 gpu1-ib10 gpu2-ib9 gpu2-ib10");
}

TEST(nodeset_steps)
{
	CHECK_FOLD("gpu[1-10/2]", "gpu[1,3,5,7,9]");
	CHECK_FOLD("gpu[0001-0008/3]", "gpu[0001,0004,0007]");
	CHECK_INT(count_of("gpu[1-64/2]"), 32);
	CHECK_FOLD("gpu[1-10/1]", "gpu[1-10]");
	CHECK_FOLD("gpu[1-4/2,2-4/2]", "gpu[1-4]");
	CHECK_FOLD("gpu[5-5/7]", "gpu5");
}

/* Names that differ in several numbers fold in every number. */
TEST(nodeset_multi_index_fold)
{
	CHECK_FOLD("rack1-n[01-04],rack2-n[01-04]", "rack[1-2]-n[01-04]");
	CHECK_FOLD("r[1-2]-n[1-2]-g[0-1]", "r[1-2]-n[1-2]-g[0-1]");
	CHECK_FOLD("rack1-n[01-04],rack[1-2]-n05", "rack1-n[01-05],rack2-n05");
	CHECK_FOLD("gpu[0001-0002]:[0-1]", "gpu[0001-0002]:[0-1]");
	CHECK_FOLD("gpu[0001-1280]-ib[0-7]!gpu0005-ib3", "gpu[0001-0004,0006-1280]-ib[0-7],gpu0005-ib[0-2,4-7]");
	CHECK_FOLD("x[1-3]y[1-3]!x2y2", "x[1,3]y[1-3],x2y[1,3]");
	/* the shorter way: folded along the first number here */
	CHECK_FOLD("a1b1,a1b2,a2b1,a3b1", "a[1-3]b1,a1b2");
	CHECK_FOLD("da[1-10]c[1-2]p0", "da[1-10]c[1-2]p0");
	CHECK_FOLD("clu-0-[3-23]", "clu-0-[3-23]");
	CHECK_FOLD("a1b1c1d1e1f1g1h1i1j1k1[1-2]", "a1b1c1d1e1f1g1h1i1j1k[11-12]");
	CHECK_INT(count_of("rack[1-2]-n[01-04]"), 8);
}

/* @su:N is gpu[32(N-1)+1 - 32N], @rack:N is two nodes, anything else fails. */
static int test_groups(void *ctx, const char *group, struct nodeset *out, char **err)
{
	int *calls = ctx;
	char buf[64];
	int n, i;

	(*calls)++;
	if (sscanf(group, "su:%d", &n) == 1 && n >= 1) {
		for (i = 32 * (n - 1) + 1; i <= 32 * n; i++) {
			snprintf(buf, sizeof buf, "gpu%04d", i);
			nodeset_add(out, buf);
		}
		return 0;
	}
	if (sscanf(group, "rack:%d", &n) == 1)
		return nodeset_parse(out, n == 1 ? "gpu[0001-0002]" : "gpu[0003-0004]", NULL, NULL, err);
	if (strcmp(group, "silent") != 0)
		*err = xasprintf("no such group: %s", group);
	return -1;
}

static char *fold_groups(const char *in, int *calls)
{
	struct nodeset *ns = nodeset_new();
	char *err = NULL, *out;

	if (nodeset_parse(ns, in, test_groups, calls, &err) < 0)
		out = xasprintf("ERR: %s", err);
	else
		out = nodeset_fold(ns);
	free(err);
	nodeset_free(ns);
	return out;
}

#define CHECK_GROUPS(in, want)                           \
	do {                                             \
		char *got_ = fold_groups(in, &calls);    \
		CHECK_STR(got_, want);                   \
		free(got_);                              \
	} while (0)

TEST(nodeset_groups)
{
	int calls = 0;

	CHECK_GROUPS("@su:2", "gpu[0033-0064]");
	CHECK_INT(calls, 1);
	CHECK_GROUPS("@su:1,@su:2", "gpu[0001-0064]");
	CHECK_GROUPS("@su:[1-3]", "gpu[0001-0096]");
	CHECK_GROUPS("@su:2!gpu[0040-0064]", "gpu[0033-0039]");
	CHECK_GROUPS("@su:1&@rack:2", "gpu[0003-0004]");
	CHECK_GROUPS("login1,@rack:1", "gpu[0001-0002],login1");
	CHECK_GROUPS("@leaf:3.5", "ERR: position 1: no such group: leaf:3.5");
	CHECK_GROUPS("@rack:02", "gpu[0003-0004]");
	CHECK_GROUPS("gpu1,@foo", "ERR: position 6: no such group: foo");
	CHECK_GROUPS("@", "ERR: position 2: empty group name");
	CHECK_GROUPS("n1,@silent", "ERR: position 4: unknown group");
	CHECK_GROUPS("@su:[1-2]x[", "ERR: position 11: '[' is not closed");
	CHECK_GROUPS("@su:1,@", "ERR: position 8: empty group name");
	CHECK_ERR("@su:3", "position 1: unknown group @su:3 (no group resolver)");
}

TEST(nodeset_errors)
{
	CHECK_ERR("gpu[1-", "position 4: '[' is not closed");
	CHECK_ERR("gpu[1-2", "position 4: '[' is not closed");
	CHECK_ERR("gpu[a-b]", "position 5: expected a number");
	CHECK_ERR("gpu[5-1]", "position 5: range 5-1 is reversed");
	CHECK_ERR("gpu[0001,0010-0002]", "position 10: range 0010-0002 is reversed");
	CHECK_ERR("gpu]", "position 4: unexpected ']'");
	CHECK_ERR("a,,b", "position 3: empty name");
	CHECK_ERR("a,", "position 3: empty name");
	CHECK_ERR(",a", "position 1: empty name");
	CHECK_ERR("gpu[1-2]x[", "position 10: '[' is not closed");
	CHECK_ERR("gpu\x01", "position 4: control character 0x01");
	CHECK_ERR("gpu 1", "position 4: whitespace inside a name");
	CHECK_ERR("gpu[1 2]", "position 7: expected ']'");
	CHECK_ERR("gpu[]", "position 5: expected a number");
	CHECK_ERR("gpu[1-2,]", "position 9: expected a number");
	CHECK_ERR("gpu[1-9/0]", "position 9: step must be at least 1");
	CHECK_ERR("gpu*", "position 4: invalid character '*'");
	CHECK_ERR("gpu\xc3\xa9", "position 4: invalid character 0xc3");
	CHECK_ERR("gpu[1234567890123456789]", "position 5: number longer than 18 digits");
	CHECK_ERR("a[1-2]b]", "position 8: unexpected ']'");
	CHECK_ERR("", "OK");
	CHECK_ERR(NULL, "OK");
}

/* What ClusterShell 1.9 rejects is rejected, at the right place. */
TEST(nodeset_errors_as_clustershell)
{
	/* zero-padded bounds of different widths */
	CHECK_ERR("n[01-100]", "position 3: range 01-100: zero-padded bounds must have the same width");
	CHECK_ERR("gpu[1-0100]", "position 5: range 1-0100: zero-padded bounds must have the same width");
	CHECK_ERR("gpu[001-01]", "position 5: range 001-01: zero-padded bounds must have the same width");
	CHECK_ERR("n0[8-12]", "position 2: range 08-012: zero-padded bounds must have the same width");
	CHECK_ERR("n[00-0]", "position 3: range 00-0: zero-padded bounds must have the same width");
	/* digits glued on both sides, brackets reopened */
	CHECK_ERR("n[1-4]0[3-4]", "position 8: '[' right after a bracket and digits");
	CHECK_ERR("n6[1-4][3-4]", "position 8: '[' right after a bracket");
	CHECK_ERR("a[1-2][0-1]", "position 7: '[' right after a bracket");
	CHECK_ERR("[1-30][4-9]p", "position 7: '[' right after a bracket");
	CHECK_ERR("prod-0[01-06/2]0", "position 16: digits after a bracket with a step");
	CHECK_ERR("prod-0[1-7/2,9]0", "position 16: digits after a bracket with a step");
	CHECK_ERR("n[1 ]5", "position 4: whitespace before the digits after ']'");
	/* steps, ranges, sizes */
	CHECK_ERR("nova[3/2]", "position 8: a step needs a range (lo-hi/step)");
	CHECK_ERR("nova[4-2/-2]", "position 10: expected a number");
	CHECK_ERR("nova[4-5/-2]", "position 10: expected a number");
	CHECK_ERR("nova[3-59/2,,102]", "position 13: expected a number");
	CHECK_ERR("n[1-1000000000]", "position 3: range 1-1000000000 is too large (ClusterShell takes fewer than 10^9 indexes)");
	CHECK_ERR("n[0-999999999]", "position 3: range 0-999999999 is too large (ClusterShell takes fewer than 10^9 indexes)");
	CHECK_ERR("x[1-30]p4-9]", "position 12: unexpected ']'");
	CHECK_ERR("xazer][1-30]p[4-9]", "position 6: unexpected ']'");
	CHECK_ERR("xa[[zer[1-30]p[4-9]", "position 4: expected a number");
	/* typos ClusterShell takes by accident of Python's int(): refused here */
	CHECK_ERR("n[-5]", "position 3: expected a number");
	CHECK_ERR("n[1-2-3]", "position 6: expected ']'");
	CHECK_ERR("n[+1]", "position 3: expected a number");
	CHECK_ERR("n[1_0]", "position 4: expected ']'");
	CHECK_ERR("n[]5", "position 3: expected a number");
	CHECK_ERR("n 1", "position 2: whitespace inside a name");
	{
		char big[128];

		snprintf(big, sizeof big, "nova%0101d", 3);
		memset(big + 4, '3', 101);
		CHECK_ERR(big, "position 5: index too large (ClusterShell takes up to 1e100)");
	}
}

/* The budget against nodeset bombs: a clear error naming it. */
TEST(nodeset_budget)
{
	CHECK_ERR("x[1-999999999/2]", "position 3: nodeset is too large to expand");
	CHECK_ERR("a[1-1000000]b[1-2]c", "position 1: nodeset is too large to expand");
	CHECK_ERR("gpu[0003-1269]g[0-2999999/280]", "position 1: nodeset is too large to expand");
	CHECK_ERR("a[1-2]b[1-2]c[1-2]d[1-2]e[1-2]f[1-2]g[1-2]h[1-2]i[1-2]j[1-2]k[1-2]l[1-2]m[1-2]n[1-2]o[1-2]p[1-2]q[1-2]r[1-2]",
		  "position 1: nodeset is too large to expand");
	/* operators on a large set are charged too */
	CHECK_ERR("a[1-20000]b[1-2]!c!c!c!c!c!c!c", "position 23: nodeset is too large to expand");
	/* ranges stay ranges: no expansion */
	CHECK_ERR("gpu[0-7]-ib[1-999999999]", "OK");
	CHECK_ERR("artcore[2-100000]-ib0", "OK");
}

TEST(nodeset_hostile_input)
{
	size_t n = 100 * 1024;
	char *s = xmalloc(n + 2);
	char *e;

	memset(s, '[', n);
	s[n] = '\0';
	CHECK_ERR(s, "position 2: expected a number");
	s[0] = 'a';
	CHECK_ERR(s, "position 3: expected a number");
	memset(s, ',', n);
	s[0] = 'a';
	CHECK_ERR(s, "position 3: empty name");
	/* a1-1-1-...: one name of 34,000 numbers */
	s[0] = 'a';
	for (size_t i = 0; i < (n - 1) / 3; i++)
		memcpy(s + 1 + 3 * i, "1-a", 3);
	s[1 + 3 * ((n - 1) / 3)] = '\0';
	e = err_of(s);
	CHECK_STR(e, "OK");
	free(e);
	e = fold_of(s);
	CHECK(strcmp(e, s) == 0);
	free(e);
	free(s);
}

/* A fold always parses back: ranges of 10^9 indexes or more, which
 * ClusterShell refuses, are cut. */
TEST(nodeset_fold_of_huge_ranges)
{
	CHECK_FOLD("gpu[1-999999999],gpu1000000000", "gpu[1-999999999,1000000000]");
	CHECK_FOLD("gpu[0-999999998],gpu[999999999-1999999997],gpu[1999999998-1999999999]", "gpu[0-999999998,999999999-1999999997,1999999998-1999999999]");
	CHECK_FOLD("g[0000000001-0999999999],g1000000000", "g[0000000001-0999999999,1000000000]");
	CHECK_INT(count_of("gpu[0-999999998],gpu[999999999-1999999997],gpu[1999999998-1999999999]"), 2000000000);
}

TEST(nodeset_long_digit_runs)
{
	/* runs over 18 digits are not indexes: the name is kept whole */
	CHECK_FOLD("a1234567890123456789012", "a1234567890123456789012");
	CHECK_FOLD("a1234567890123456789012,a1234567890123456789012",
		   "a1234567890123456789012");
	CHECK_FOLD("gpu[999999999999999998-999999999999999999]",
		   "gpu[999999999999999998-999999999999999999]");
}
