/*
 * fanout_cli.c - `myriad fanout`: options, printing lines or gathered
 * output (ClusterShell's -b layout), the failure summary and the exit status.
 * Node output is untrusted: on a terminal, control characters are shown as
 * '?' so a node cannot drive the operator's terminal.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fanout.h"
#include "inventory.h"
#include "quote.h"
#include "../nodeset.h"

static void put_text(FILE *f, const char *s, size_t n, int tty)
{
	if (!tty) {
		fwrite(s, 1, n, f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		fputc((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ? '?' : c, f);
	}
}

static void print_line(void *ctx, const char *node, const char *buf, size_t n, int is_stderr)
{
	FILE *f = is_stderr ? stderr : stdout;

	(void)ctx;
	fprintf(f, "%s: ", node);
	put_text(f, buf, n, isatty(fileno(f)));
	fputc('\n', f);
}

/* ---- gathering ---- */

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

static void gather(FILE *f, const struct fanout_result *r, int n, int use_err)
{
	int *idx = xmalloc(sizeof *idx * (size_t)(n + 1)), m = 0, ng = 0;
	struct group *g = xmalloc(sizeof *g * (size_t)(n + 1));
	int tty = isatty(fileno(f));

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

		fprintf(f, "---------------\n%s (%d)\n---------------\n", folded, g[k].count);
		put_text(f, text->s, text->len, tty);
		if (text->s[text->len - 1] != '\n')
			fputc('\n', f);
		free(folded);
		nodeset_free(ns);
	}
	free(idx);
	free(g);
}

/* ---- summary ---- */

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

static int summary(const struct fanout_result *r, int n, double seconds)
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

		fprintf(stderr, "myriad: fanout: %s (%d): %s\n", folded, count, a);
		failed += count;
		free(folded);
		nodeset_free(ns);
	}
	if (failed)
		fprintf(stderr, "myriad: fanout: %d of %d nodes failed (%.2f s)\n", failed, n, seconds);
	free(done);
	return worst;
}

/* ---- the subcommand ---- */

static void usage(void)
{
	fputs("usage: myriad [-c CONFIG] fanout -w NODESET [-f FANOUT] [-t TIMEOUT] [-b] -- COMMAND [ARG...]\n"
	      "  -w NODESET   nodes, e.g. 'gpu[0001-0256]'\n"
	      "  -f FANOUT    nodes connecting or running at once (default 256)\n"
	      "  -t TIMEOUT   seconds allowed to connect, and to run the command (default: no limit to run)\n"
	      "  -b           gather identical outputs under one nodeset\n"
	      "  one COMMAND word is a shell command line; several words are quoted one by one\n",
	      stderr);
}

static int parse_args(int argc, char **argv, const char **nodes, struct fanout_opts *fo, int *cmd_at)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-b")) {
			fo->gather = 1;
			continue;
		}
		if ((strcmp(a, "-w") && strcmp(a, "-f") && strcmp(a, "-t")) || i + 1 >= argc) {
			if (a[0] != '-')
				break;   /* the command, without -- */
			fprintf(stderr, "myriad: fanout: %s: %s\n", a, i + 1 >= argc ? "needs a value" : "unknown option");
			return -1;
		}
		const char *v = argv[++i];
		char *end;

		if (!strcmp(a, "-w")) {
			*nodes = v;
		} else if (!strcmp(a, "-f")) {
			fo->fanout = (int)strtol(v, &end, 10);
			if (*end || fo->fanout < 1 || fo->fanout > 100000)
				return fprintf(stderr, "myriad: fanout: -f wants a number of nodes, not \"%s\"\n", v), -1;
		} else {
			fo->timeout_s = strtod(v, &end);
			if (*end || !(fo->timeout_s > 0) || fo->timeout_s > 86400)
				return fprintf(stderr, "myriad: fanout: -t wants seconds, not \"%s\"\n", v), -1;
		}
	}
	*cmd_at = i;
	if (!*nodes || i >= argc) {
		usage();
		return -1;
	}
	return 0;
}

int cmd_fanout(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	struct fanout_opts fo = {0};
	struct fanout_result *r = NULL;
	const char *nodes = NULL;
	char *err = NULL, *command;
	int n = 0, at = 0, rc;

	if (parse_args(argc, argv, &nodes, &fo, &at) < 0)
		return 1;
	if (o->config && inventory_load_config(app, o->config, &err) < 0) {
		fprintf(stderr, "myriad: %s\n", err);
		free(err);
		return 1;
	}
	fo.line = print_line;
	command = sh_command(argc - at, argv + at);
	int64_t t0 = mono_us();

	if (fanout_run(app, nodes, command, &fo, &r, &n, &err) < 0) {
		fprintf(stderr, "myriad: fanout: -w %s: %s\n", nodes, err);
		free(err);
		free(command);
		return 1;
	}
	fflush(stdout);
	if (fo.gather) {
		gather(stdout, r, n, 0);
		fflush(stdout);
		gather(stderr, r, n, 1);
	}
	rc = summary(r, n, (double)(mono_us() - t0) / US_PER_SEC);
	fanout_results_free(r, n);
	free(command);
	return rc;
}
