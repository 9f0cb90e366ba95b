/*
 * test_nodeset_ops.c - unit tests for what is done with nodesets
 * (src/nodeset*.c): set algebra and the !, &, ^ operators, subsets, single
 * names added and removed, the Slurm reading and fold, positions (index,
 * slice, split, contiguous), iteration, and 10,240-name folds with one and
 * two numbers.
 */
#include <stdio.h>

#include "nodeset_check.h"

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
	CHECK(nodeset_subset(a, t) && nodeset_subset(t, a));
	CHECK(!nodeset_subset(b, a));
	nodeset_difference(t, t);
	CHECK_INT(nodeset_count(t), 0);
	CHECK(!nodeset_equal(t, a));
	CHECK(nodeset_subset(t, a));   /* the empty set */
	nodeset_free(t);
	nodeset_free(a);
	nodeset_free(b);
}

TEST(nodeset_subset_across_patterns)
{
	struct nodeset *a = nodeset_from("gpu[0002-0003]-ib[1-2],login1", NULL);
	struct nodeset *b = nodeset_from("gpu[0001-0004]-ib[0-7],login[1-2],io1", NULL);
	struct nodeset *c = nodeset_from("gpu0002-ib[1-2],gpu0003-ib[1-3]", NULL);

	CHECK(a && b && c);
	if (a && b && c) {
		CHECK(nodeset_subset(a, b));
		CHECK(!nodeset_subset(b, a));
		CHECK(!nodeset_subset(a, c));
		CHECK(!nodeset_subset(c, a));
		nodeset_add(a, "gpu0003-ib3");
		nodeset_remove(a, "login1");
		CHECK(nodeset_equal(a, c));   /* after adds and removes, read again */
	}
	nodeset_free(a);
	nodeset_free(b);
	nodeset_free(c);
}

TEST(nodeset_algebra_across_padding)
{
	/* gpu1000 belongs to gpu[0001-1280]: it prints the same */
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
	CHECK_FOLD("x[1-3]y[1-3]&x[2-4]y[2-4]", "x[2-3]y[2-3]");
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
	CHECK_INT(nodeset_add(ns, "1gpu"), 0);   /* ClusterShell takes it */
	CHECK_INT(nodeset_add(ns, "gpu[1-2]"), -1);
	CHECK_INT(nodeset_add(ns, ""), -1);
	CHECK_INT(nodeset_add(ns, "gpu 1"), -1);
	CHECK_INT(nodeset_add(ns, "gpu%s"), -1);
	CHECK_INT(nodeset_count(ns), 5);
	CHECK_STR(s = nodeset_fold(ns), "1gpu,gpu[0001-0003],login");
	free(s);
	CHECK_INT(nodeset_remove(ns, "gpu0002"), 1);
	CHECK_INT(nodeset_remove(ns, "gpu0002"), 0);
	CHECK_INT(nodeset_remove(ns, "gpu2"), 0);
	CHECK_INT(nodeset_remove(ns, "login"), 1);
	CHECK_INT(nodeset_remove(ns, "1gpu"), 1);
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

TEST(nodeset_slurm)
{
	/* Slurm prints n[01-100] for n01..n99,n100; ClusterShell refuses it */
	CHECK_SLURM("n[01-100]", false, "n[01-99,100]");
	CHECK_SLURM("gpu[0001-1280]", false, "gpu[0001-1280]");
	CHECK_SLURM("x[1-2]y", false, "ERR: position 7: text after the last ']' (Slurm hostlists end with ']')");
	CHECK_SLURM("a1b[3-4],a2b[3-4],a3b1", true, "a[1-2]b[3-4],a3b1");
	/* Slurm reads brackets only at the end: a single last index is bracketed,
	 * text after the last index means names one by one */
	CHECK_SLURM("r[1-2]-n01", true, "r[1-2]-n[01]");
	CHECK_SLURM("gpu[0001-0003]", true, "gpu[0001-0003]");
	CHECK_SLURM("gpu0001", true, "gpu0001");
	CHECK_SLURM("login,gpu[1-2]", true, "gpu[1-2],login");
	{
		struct nodeset *ns = nodeset_from("node-[1-3].ib,x[1-2]y[3-4]z", NULL);
		char *s = ns ? nodeset_fold_slurm(ns) : NULL;

		CHECK_STR(s, "node-1.ib,node-2.ib,node-3.ib,x1y3z,x1y4z,x2y3z,x2y4z");
		free(s);
		nodeset_free(ns);
	}
}

/* The parts of split(ns, k) (contiguous if k is 0), folded, space separated. */
static char *parts_of(const struct nodeset *ns, size_t k)
{
	struct sbuf b = {0};
	size_t n = 0;
	struct nodeset **parts = k ? nodeset_split(ns, k, &n) : nodeset_contiguous(ns, &n);

	for (size_t i = 0; i < n; i++) {
		char *f = nodeset_fold(parts[i]);

		sbuf_printf(&b, "%s%s", i ? " " : "", f);
		free(f);
	}
	nodeset_free_parts(parts, n);
	return b.s ? b.s : xstrdup("");
}

TEST(nodeset_positions)
{
	struct nodeset *ns = nodeset_from("yeti[30,34-51,59-60],gpu[1-2]-ib[0-1]", NULL), *sl, **parts;
	char *s, *err = NULL;
	size_t n;

	CHECK(ns != NULL);
	if (!ns)
		return;
	CHECK_STR(s = nodeset_name_at(ns, 0), "gpu1-ib0");
	free(s);
	CHECK_STR(s = nodeset_name_at(ns, 3), "gpu2-ib1");
	free(s);
	CHECK_STR(s = nodeset_name_at(ns, 4), "yeti30");
	free(s);
	CHECK_STR(s = nodeset_name_at(ns, 24), "yeti60");
	free(s);
	CHECK(nodeset_name_at(ns, 25) == NULL);
	sl = nodeset_slice(ns, "4-5,10-100/4", &err);
	CHECK(sl && !err);
	CHECK_STR(s = sl ? nodeset_fold(sl) : NULL, "yeti[30,34,39,43,47,51]");
	free(s);
	nodeset_free(sl);
	CHECK(nodeset_slice(ns, "3-1", &err) == NULL);
	CHECK_STR(err, "position 1: range 3-1 is reversed");
	free(err);
	CHECK(nodeset_slice(ns, "1,x", &err) == NULL);
	CHECK_STR(err, "position 3: expected a number");
	free(err);
	CHECK_STR(s = parts_of(ns, 3), "gpu[1-2]-ib[0-1],yeti[30,34-37] yeti[38-45] yeti[46-51,59-60]");
	free(s);
	CHECK_STR(s = parts_of(ns, 24), "gpu1-ib[0-1] gpu2-ib0 gpu2-ib1 yeti30 yeti34 yeti35 yeti36 yeti37 yeti38 yeti39 "
		  "yeti40 yeti41 yeti42 yeti43 yeti44 yeti45 yeti46 yeti47 yeti48 yeti49 yeti50 yeti51 yeti59 yeti60");
	free(s);
	parts = nodeset_split(ns, 100, &n);
	CHECK_INT(n, 25);
	nodeset_free_parts(parts, n);
	CHECK_STR(s = parts_of(ns, 0), "gpu[1-2]-ib[0-1] yeti30 yeti[34-51] yeti[59-60]");
	free(s);
	nodeset_free(ns);
	ns = nodeset_from("n[1-2,01,10,001],x[1-3,5]y[1-2,4]", NULL);
	CHECK_STR(s = parts_of(ns, 0), "n[1-2] n01 n10 n001 x[1-3]y[1-2] x[1-3]y4 x5y[1-2] x5y4");
	free(s);
	CHECK_STR(s = parts_of(ns, 2), "n[1-2,01,10,001],x1y[1-2,4],x2y1 x2y[2,4],x[3,5]y[1-2,4]");
	free(s);
	nodeset_free(ns);
	ns = nodeset_new();
	CHECK_STR(s = parts_of(ns, 3), "");
	free(s);
	CHECK(nodeset_name_at(ns, 0) == NULL);
	nodeset_free(ns);
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

/* 10,240 names added one at a time in a shuffled order fold to one range,
 * or with two numbers, to one box. */
static void fold_shuffled(const char *fmt, int per, const char *want)
{
	enum { N = 10240 };
	int *order = xmalloc(N * sizeof *order);
	struct nodeset *ns = nodeset_new();
	struct rng r;
	char name[32], *s;
	int i, j, t;

	for (i = 0; i < N; i++)
		order[i] = i;
	rng_seed(&r, 12345);
	for (i = N - 1; i > 0; i--) {
		j = (int)rng_below(&r, (uint32_t)i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < N; i++) {
		if (per)
			snprintf(name, sizeof name, fmt, order[i] / per + 1, order[i] % per);
		else
			snprintf(name, sizeof name, fmt, order[i] + 1);
		CHECK_INT(nodeset_add(ns, name), 0);
		if (i == N / 2)
			CHECK_INT(nodeset_count(ns), N / 2 + 1);
	}
	CHECK_INT(nodeset_count(ns), N);
	CHECK_STR(s = nodeset_fold(ns), want);
	free(s);
	nodeset_free(ns);
	free(order);
}

TEST(nodeset_10240_random_order)
{
	struct nodeset *ns;

	fold_shuffled("gpu%05d", 0, "gpu[00001-10240]");
	fold_shuffled("gpu%04d-ib%d", 8, "gpu[0001-1280]-ib[0-7]");
	fold_shuffled("gpu%d-ib%d", 8, "gpu[1-1280]-ib[0-7]");
	ns = nodeset_from("gpu[00001-10240]", NULL);
	CHECK(ns && nodeset_contains(ns, "gpu10240") && nodeset_contains(ns, "gpu00001"));
	CHECK(ns && !nodeset_contains(ns, "gpu10241"));
	nodeset_free(ns);
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
