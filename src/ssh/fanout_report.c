/*
 * fanout_report.c - what a fan-out's results say (see fanout.h): outputs
 * gathered as ClusterShell's -b does (identical outputs folded under one
 * nodeset, groups in the order of their first node), and the summary of
 * failures grouped by reason. Text only; the caller decides where it goes
 * (a terminal, with control characters shown as '?', or the console's log).
 */
#include <stdio.h>
#include <string.h>
#include "fanout.h"
#include "inventory.h"
#include "../nodeset.h"

static const struct fanout_result *sort_base;
static int sort_err;

static int by_output(const void *a, const void *b)
{
	const struct sbuf *x = sort_err ? &sort_base[*(const int *)a].err : &sort_base[*(const int *)a].out;
	const struct sbuf *y = sort_err ? &sort_base[*(const int *)b].err : &sort_base[*(const int *)b].out;
	int c = x->len != y->len ? (x->len < y->len ? -1 : 1) : x->len ? memcmp(x->s, y->s, x->len) : 0;

	return c ? c : *(const int *)a - *(const int *)b;
}

static int same(const struct sbuf *x, const struct sbuf *y)
{
	return x->len == y->len && (!x->len || !memcmp(x->s, y->s, x->len));
}

struct group {
	int first, start, count;
};

static int by_first(const void *a, const void *b)
{
	return ((const struct group *)a)->first - ((const struct group *)b)->first;
}

void fanout_gather(const struct fanout_result *r, int n, int use_err, struct sbuf *out)
{
	int *idx = xmalloc(sizeof *idx * (size_t)(n + 1)), m = 0, ng = 0;
	struct group *g = xmalloc(sizeof *g * (size_t)(n + 1));

	for (int i = 0; i < n; i++)
		if ((use_err ? r[i].err.len : r[i].out.len) > 0)
			idx[m++] = i;
	sort_base = r;
	sort_err = use_err;
	qsort(idx, (size_t)m, sizeof *idx, by_output);
	for (int i = 0; i < m; i++)
		if (i == 0 || !same(use_err ? &r[idx[i]].err : &r[idx[i]].out, use_err ? &r[idx[i - 1]].err : &r[idx[i - 1]].out))
			g[ng++] = (struct group){idx[i], i, 1};
		else
			g[ng - 1].count++;
	qsort(g, (size_t)ng, sizeof *g, by_first);   /* groups in the order of their first node */
	for (int k = 0; k < ng; k++) {
		struct nodeset *ns = nodeset_new();
		const struct sbuf *text = use_err ? &r[g[k].first].err : &r[g[k].first].out;

		for (int i = g[k].start; i < g[k].start + g[k].count; i++)
			nodeset_add(ns, r[idx[i]].name);
		char *folded = nodeset_fold(ns);

		sbuf_printf(out, "---------------\n%s (%d)\n---------------\n", folded, g[k].count);
		sbuf_add(out, text->s, text->len);
		if (text->s[text->len - 1] != '\n')
			sbuf_addc(out, '\n');
		free(folded);
		nodeset_free(ns);
	}
	free(idx);
	free(g);
}

/* ---- the summary ---- */

static int severity(const struct fanout_result *r)
{
	if (r->status == 0)
		return 0;
	if (r->status > 0 || (r->why && !strncmp(r->why, "killed by signal", 16)))
		return 1;
	return 2;
}

static void why_of(const struct fanout_result *r, char *out, size_t cap)
{
	if (r->status > 0)
		snprintf(out, cap, "exited with status %d", r->status);
	else if (r->conn != CONN_UP)
		snprintf(out, cap, "%s: %s", conn_state_name(r->conn), r->why ? r->why : "");
	else
		snprintf(out, cap, "%s", r->why ? r->why : "failed");
}

int fanout_summary(const struct fanout_result *r, int n, double seconds, const char *prefix, struct sbuf *out)
{
	char *done = xcalloc((size_t)n + 1, 1), a[512], b[512];
	int worst = 0, failed = 0;

	for (int i = 0; i < n; i++) {
		worst = MAX(worst, severity(&r[i]));
		if (done[i] || r[i].status == 0)
			continue;
		struct nodeset *ns = nodeset_new();
		int count = 0;

		why_of(&r[i], a, sizeof a);
		for (int j = i; j < n; j++) {
			if (done[j] || r[j].status == 0)
				continue;
			why_of(&r[j], b, sizeof b);
			if (strcmp(a, b))
				continue;
			done[j] = 1;
			count++;
			nodeset_add(ns, r[j].name);
		}
		char *folded = nodeset_fold(ns);

		sbuf_printf(out, "%s%s (%d): %s\n", prefix, folded, count, a);
		failed += count;
		free(folded);
		nodeset_free(ns);
	}
	if (failed)
		sbuf_printf(out, "%s%d of %d nodes failed (%.2f s)\n", prefix, failed, n, seconds);
	free(done);
	return worst;
}
