/*
 * test_nodeset.c - unit tests for src/nodeset.c: parse and fold round trips,
 * expansion order, padding, steps, several brackets, set algebra and the
 * !, &, ^ operators, groups through a resolver, error positions, and the
 * 10,240-name fold.
 */
#include <stdlib.h>
#include <string.h>

#include "nodeset.h"
#include "util.h"
#include "test.h"

/* fold(parse(in)), or "ERR: message". Caller frees. */
static char *fold_of(const char *in)
{
	char *err = NULL, *out;
	struct nodeset *ns = nodeset_from(in, &err);

	if (!ns) {
		out = xasprintf("ERR: %s", err ? err : "(no message)");
		free(err);
		return out;
	}
	out = nodeset_fold(ns);
	nodeset_free(ns);
	return out;
}

/* The parse error for in, or "OK". Caller frees. */
static char *err_of(const char *in)
{
	char *err = NULL;
	struct nodeset *ns = nodeset_from(in, &err);

	if (ns) {
		nodeset_free(ns);
		return xstrdup("OK");
	}
	return err ? err : xstrdup("(no message)");
}

static size_t count_of(const char *in)
{
	struct nodeset *ns = nodeset_from(in, NULL);
	size_t n = ns ? nodeset_count(ns) : (size_t)-1;

	nodeset_free(ns);
	return n;
}

#define CHECK_FOLD(in, want)                  \
	do {                                  \
		char *got_ = fold_of(in);     \
		CHECK_STR(got_, want);        \
		free(got_);                   \
	} while (0)

#define CHECK_ERR(in, want)                   \
	do {                                  \
		char *got_ = err_of(in);      \
		CHECK_STR(got_, want);        \
		free(got_);                   \
	} while (0)

static int append_name(void *ctx, const char *name)
{
	struct sbuf *b = ctx;

	if (b->len)
		sbuf_addc(b, ' ');
	sbuf_adds(b, name);
	return 0;
}

/* Names of in, space separated, in foreach order. Caller frees. */
static char *expand_of(const char *in)
{
	struct nodeset *ns = nodeset_from(in, NULL);
	struct sbuf b = {0};

	if (ns)
		nodeset_foreach(ns, append_name, &b);
	nodeset_free(ns);
	return b.s ? b.s : xstrdup("");
}

#define CHECK_EXPAND(in, want)                \
	do {                                  \
		char *got_ = expand_of(in);   \
		CHECK_STR(got_, want);        \
		free(got_);                   \
	} while (0)

TEST(nodeset_round_trips)
{
	static const char *same[] = {
		"gpu[0001-1280]", "gpu[0001-0032,0100]", "gpu0007", "login1",
		"gpu[1-64]", "io[1-4],login1", "gpu[0001-0004,0007]", "n[01-100]",
		"rack1-n[01-04],rack2-n[01-04]", "gpu[00001-10240]", "a[1-2]b",
		"node-[1-3].ib", "gpu0001:[0-7]", "head", "x[0-9]", "n[1-2],n[01-02]",
		"gpu[1-1000000000]", "n[000-099]",
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
	CHECK_FOLD("gpu[1-5],gpu[0001-0009,1000]", "gpu[1-5],gpu[0001-0009,1000]");
	CHECK_FOLD("gpu1000", "gpu1000");
	CHECK_FOLD("a1[2-3]", "a[12-13]");
	CHECK_FOLD("a0[1-2]", "a[01-02]");
	CHECK_FOLD("a[1-2]7", "a[17,27]");
	CHECK_FOLD("a[1-2][0-1]", "a[10-11,20-21]");
	CHECK_FOLD("a1[2-3],a12", "a[12-13]");
	CHECK_FOLD("", "");
	CHECK_FOLD("   ", "");
}

TEST(nodeset_padding_kept)
{
	CHECK_FOLD("gpu1,gpu0001", "gpu1,gpu0001");
	CHECK_INT(count_of("gpu1,gpu0001,gpu01"), 3);
	CHECK_FOLD("gpu[01-100]", "gpu[01-100]");
	CHECK_EXPAND("n[08-11]", "n08 n09 n10 n11");
	CHECK_EXPAND("n[098-101]", "n098 n099 n100 n101");
	CHECK_EXPAND("n[99-101]", "n99 n100 n101");
	CHECK_EXPAND("n[00-02]", "n00 n01 n02");
	CHECK_EXPAND("n[0-2]", "n0 n1 n2");
	CHECK_INT(count_of("n[01-100]"), 100);
	CHECK_INT(count_of("n[1-100]"), 100);
	/* n100 is in n[001-100] already: 100 prints the same either way */
	CHECK_FOLD("n[001-100],n100", "n[001-100]");
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
	CHECK_INT(count_of("gpu[1-1000000000]"), 1000000000);
	CHECK_INT(count_of("rack[1-40]-n[01-32]"), 1280);
	CHECK_INT(count_of(""), 0);
	CHECK_INT(count_of("gpu1,gpu1,gpu[1-1]"), 1);
}

TEST(nodeset_expand_order)
{
	CHECK_EXPAND("gpu[0003,0001-0002]", "gpu0001 gpu0002 gpu0003");
	CHECK_EXPAND("login1,gpu2,io1", "gpu2 io1 login1");
	CHECK_EXPAND("rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02");
	CHECK_EXPAND("n[9-11]", "n9 n10 n11");
	CHECK_EXPAND("x,x1", "x x1");
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

TEST(nodeset_multi_bracket)
{
	CHECK_FOLD("rack[1-2]-n[01-04]", "rack1-n[01-04],rack2-n[01-04]");
	CHECK_INT(count_of("rack[1-2]-n[01-04]"), 8);
	CHECK_FOLD("r[1-2]-n[1-2]-g[0-1]",
		   "r1-n1-g[0-1],r1-n2-g[0-1],r2-n1-g[0-1],r2-n2-g[0-1]");
	CHECK_FOLD("rack1-n[01-04],rack[1-2]-n05", "rack1-n[01-05],rack2-n05");
	CHECK_FOLD("gpu[0001-0002]:[0-1]", "gpu0001:[0-1],gpu0002:[0-1]");
}

TEST(nodeset_algebra)
{
	struct nodeset *a = nodeset_from("gpu[0001-0010],login1", NULL);
	struct nodeset *b = nodeset_from("gpu[0005-0015],io1", NULL);
	struct nodeset *t;
	char *s;

	CHECK(a && b);
	if (!a || !b)
		return;
	t = nodeset_copy(a);
	nodeset_union(t, b);
	CHECK_STR(s = nodeset_fold(t), "gpu[0001-0015],io1,login1");
	free(s);
	nodeset_free(t);
	t = nodeset_copy(a);
	nodeset_intersect(t, b);
	CHECK_STR(s = nodeset_fold(t), "gpu[0005-0010]");
	free(s);
	nodeset_free(t);
	t = nodeset_copy(a);
	nodeset_difference(t, b);
	CHECK_STR(s = nodeset_fold(t), "gpu[0001-0004],login1");
	free(s);
	nodeset_free(t);
	t = nodeset_copy(a);
	nodeset_xor(t, b);
	CHECK_STR(s = nodeset_fold(t), "gpu[0001-0004,0011-0015],io1,login1");
	free(s);
	CHECK_INT(nodeset_count(t), 4 + 5 + 2);
	nodeset_xor(t, t);
	CHECK_INT(nodeset_count(t), 0);
	nodeset_free(t);
	t = nodeset_copy(a);
	nodeset_union(t, t);
	CHECK(nodeset_equal(t, a));
	nodeset_difference(t, t);
	CHECK_INT(nodeset_count(t), 0);
	CHECK(!nodeset_equal(t, a));
	nodeset_free(t);
	nodeset_free(a);
	nodeset_free(b);
}

TEST(nodeset_algebra_across_padding)
{
	/* gpu1000 is stored unpadded but belongs to gpu[0001-1280] */
	CHECK_FOLD("gpu[0001-1280]!gpu1000", "gpu[0001-0999,1001-1280]");
	CHECK_FOLD("gpu[0001-1280]&gpu[0990-1010]", "gpu[0990-1010]");
	CHECK_FOLD("gpu[0001-1280]!gpu[1-2000]", "gpu[0001-0999]");
	CHECK_FOLD("gpu[1-2000]&gpu[0001-1280]", "gpu[1000-1280]");
}

TEST(nodeset_operators)
{
	CHECK_FOLD("gpu[1-10]!gpu[3-5]", "gpu[1-2,6-10]");
	CHECK_FOLD("gpu[1-10]&gpu[5-13]", "gpu[5-10]");
	CHECK_FOLD("gpu[1-10]^gpu[5-13]", "gpu[1-4,11-13]");
	/* left to right: each operator applies to everything before it */
	CHECK_FOLD("a,b!b", "a");
	CHECK_FOLD("a!b,b", "a,b");
	CHECK_FOLD("n[1-9]&n[5-20],n30", "n[5-9,30]");
	CHECK_FOLD("n1,n[1-9]&n[5-20]", "n[5-9]");
	CHECK_FOLD("n[1-4]^n[3-6]^n[1-6]", "n[3-4]");
	CHECK_FOLD("n[1-4] ! n2 & n[2-3]", "n3");
	CHECK_FOLD("n1!n1", "");
}

TEST(nodeset_add_remove)
{
	struct nodeset *ns = nodeset_new();
	char *s;

	CHECK_INT(nodeset_add(ns, "gpu0003"), 0);
	CHECK_INT(nodeset_add(ns, "gpu0001"), 0);
	CHECK_INT(nodeset_add(ns, "gpu0002"), 0);
	CHECK_INT(nodeset_add(ns, "gpu0002"), 0);
	CHECK_INT(nodeset_add(ns, "login"), 0);
	CHECK_INT(nodeset_add(ns, "gpu[1-2]"), -1);
	CHECK_INT(nodeset_add(ns, ""), -1);
	CHECK_INT(nodeset_add(ns, "1gpu"), -1);
	CHECK_INT(nodeset_add(ns, "gpu 1"), -1);
	CHECK_INT(nodeset_count(ns), 4);
	CHECK_STR(s = nodeset_fold(ns), "gpu[0001-0003],login");
	free(s);
	CHECK_INT(nodeset_remove(ns, "gpu0002"), 1);
	CHECK_INT(nodeset_remove(ns, "gpu0002"), 0);
	CHECK_INT(nodeset_remove(ns, "gpu2"), 0);
	CHECK_INT(nodeset_remove(ns, "login"), 1);
	CHECK_INT(nodeset_remove(ns, "bad name"), -1);
	CHECK_STR(s = nodeset_fold(ns), "gpu[0001,0003]");
	free(s);
	nodeset_clear(ns);
	CHECK_INT(nodeset_count(ns), 0);
	CHECK_STR(s = nodeset_fold(ns), "");
	free(s);
	nodeset_free(ns);
}

TEST(nodeset_parse_adds_and_keeps_on_error)
{
	struct nodeset *ns = nodeset_from("gpu[1-2]", NULL);
	char *err = NULL, *s;

	CHECK(ns != NULL);
	if (!ns)
		return;
	CHECK_INT(nodeset_parse(ns, "gpu[3-4]", NULL, NULL, &err), 0);
	CHECK(err == NULL);
	CHECK_INT(nodeset_parse(ns, "gpu[5-6],gpu[", NULL, NULL, &err), -1);
	CHECK(err != NULL);
	free(err);
	CHECK_INT(nodeset_parse(ns, "gpu[", NULL, NULL, NULL), -1);
	CHECK_STR(s = nodeset_fold(ns), "gpu[1-4]");
	free(s);
	nodeset_free(ns);
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
	CHECK_ERR("[1-2]", "position 1: expected a name before '['");
	CHECK_ERR("gpu]", "position 4: unexpected ']'");
	CHECK_ERR("a,,b", "position 3: empty name");
	CHECK_ERR("a,", "position 3: empty name");
	CHECK_ERR(",a", "position 1: empty name");
	CHECK_ERR("gpu[1-2]x[", "position 10: '[' is not closed");
	CHECK_ERR("gpu\x01", "position 4: control character 0x01");
	CHECK_ERR("gpu[1\t]", "position 6: control character 0x09");
	CHECK_ERR("gpu 1", "position 4: space inside a name");
	CHECK_ERR("gpu[1 -2]", "position 6: expected ']'");
	CHECK_ERR("gpu[]", "position 5: expected a number");
	CHECK_ERR("gpu[1-2,]", "position 9: expected a number");
	CHECK_ERR("gpu[1-9/0]", "position 9: step must be at least 1");
	CHECK_ERR("gpu[1-0100]", "position 5: 1 is not padded like 0100");
	CHECK_ERR("gpu[1,01]", "position 5: 1 is not padded like 01");
	CHECK_ERR("gpu[001-01]", "position 9: 01 is not padded like 001");
	CHECK_ERR("gpu*", "position 4: invalid character '*'");
	CHECK_ERR("gpu\xc3\xa9", "position 4: invalid character 0xc3");
	CHECK_ERR("1gpu", "position 1: a name must not start with a digit");
	CHECK_ERR("gpu[1234567890123456789]", "position 5: number longer than 18 digits");
	CHECK_ERR("gpu[1-2][[", "position 10: expected a number");
	CHECK_ERR("a[1-2]b]", "position 8: unexpected ']'");
	CHECK_ERR("x[1-1000000000/2]", "position 3: nodeset is too large to expand");
	CHECK_ERR("a[1-1000000]b[1-2]c", "position 1: nodeset is too large to expand");
	/* found by the fuzzer: 1267 prefixes times 10,714 stepped indexes */
	CHECK_ERR("gpu[03-1269]g[00-2999999/280]", "position 1: nodeset is too large to expand");
	/* operators on a large set are charged too */
	CHECK_ERR("a[1-30000]b[1-2]!c!c!c!c", "position 17: nodeset is too large to expand");
	CHECK_ERR("", "OK");
	CHECK_ERR(NULL, "OK");
}

TEST(nodeset_hostile_input)
{
	size_t n = 100 * 1024;
	char *s = xmalloc(n + 2);
	char *e;

	memset(s, '[', n);
	s[n] = '\0';
	CHECK_ERR(s, "position 1: expected a name before '['");
	s[0] = 'a';
	CHECK_ERR(s, "position 3: expected a number");
	memset(s, ',', n);
	s[0] = 'a';
	CHECK_ERR(s, "position 3: empty name");
	/* a[1][1][1]...: one name whose digit run is too long to index */
	s[0] = 'a';
	for (size_t i = 0; i < (n - 1) / 3; i++)
		memcpy(s + 1 + 3 * i, "[1]", 3);
	s[1 + 3 * ((n - 1) / 3)] = '\0';
	e = err_of(s);
	CHECK_STR(e, "OK");
	free(e);
	free(s);
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

static int stop_after_two(void *ctx, const char *name)
{
	int *n = ctx;

	(void)name;
	return ++*n == 2 ? 42 : 0;
}

TEST(nodeset_foreach_stops)
{
	struct nodeset *ns = nodeset_from("n[1-10]", NULL);
	int n = 0;

	CHECK_INT(nodeset_foreach(ns, stop_after_two, &n), 42);
	CHECK_INT(n, 2);
	nodeset_free(ns);
}

/* 10,240 names added one at a time in a shuffled order fold to one range. */
TEST(nodeset_10240_random_order)
{
	enum { N = 10240 };
	int *order = xmalloc(N * sizeof *order);
	struct nodeset *ns = nodeset_new();
	struct rng r;
	char name[32], *s;
	int i, j, t;

	for (i = 0; i < N; i++)
		order[i] = i + 1;
	rng_seed(&r, 12345);
	for (i = N - 1; i > 0; i--) {
		j = (int)rng_below(&r, (uint32_t)i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof name, "gpu%05d", order[i]);
		CHECK_INT(nodeset_add(ns, name), 0);
		if (i == N / 2)
			CHECK_INT(nodeset_count(ns), N / 2 + 1);
	}
	CHECK_INT(nodeset_count(ns), N);
	CHECK_STR(s = nodeset_fold(ns), "gpu[00001-10240]");
	free(s);
	CHECK(nodeset_contains(ns, "gpu10240"));
	CHECK(nodeset_contains(ns, "gpu00001"));
	CHECK(!nodeset_contains(ns, "gpu10241"));
	nodeset_free(ns);
	free(order);
}

/* The fold of every other name of 10,240 parses back to the same set. */
TEST(nodeset_10240_sparse_round_trip)
{
	struct nodeset *ns = nodeset_new(), *back;
	char name[32], *s, *s2;
	int i;

	for (i = 1; i <= 20480; i += 2) {
		snprintf(name, sizeof name, "gpu%05d", i);
		nodeset_add(ns, name);
	}
	CHECK_INT(nodeset_count(ns), 10240);
	s = nodeset_fold(ns);
	CHECK(strncmp(s, "gpu[00001,00003,", 16) == 0);
	back = nodeset_from(s, NULL);
	CHECK(back && nodeset_equal(ns, back));
	s2 = back ? nodeset_fold(back) : NULL;
	CHECK_STR(s2, s);
	free(s);
	free(s2);
	nodeset_free(back);
	nodeset_free(ns);
}
