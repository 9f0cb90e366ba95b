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

/* ---- the subcommand ---- */

static void usage(void)
{
	fputs("usage: myriad [-c CONFIG] fanout -w NODESET [-f FANOUT] [-t TIMEOUT] [-m MAX] [-b] -- COMMAND [ARG...]\n"
	      "  -w NODESET   nodes, e.g. 'gpu[0001-0256]'\n"
	      "  -f FANOUT    nodes connecting or running at once (default 256)\n"
	      "  -t TIMEOUT   seconds allowed to connect, and to run the command (default: no limit to run)\n"
	      "  -m MAX       refuse a NODESET of more than MAX nodes (default 131072)\n"
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
		if ((strcmp(a, "-w") && strcmp(a, "-f") && strcmp(a, "-t") && strcmp(a, "-m")) || i + 1 >= argc) {
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
		} else if (!strcmp(a, "-m")) {
			fo->max_nodes = (int)strtol(v, &end, 10);
			if (*end || fo->max_nodes < 1 || fo->max_nodes > FANOUT_MAX_NODES_CAP)
				return fprintf(stderr, "myriad: fanout: -m wants a number of nodes up to %d, not \"%s\"\n",
					       FANOUT_MAX_NODES_CAP, v), -1;
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
		struct sbuf b = {0};

		fanout_gather(r, n, 0, &b);
		put_text(stdout, b.s, b.len, isatty(1));
		fflush(stdout);
		sbuf_reset(&b);
		fanout_gather(r, n, 1, &b);
		put_text(stderr, b.s, b.len, isatty(2));
		sbuf_free(&b);
	}
	struct sbuf sum = {0};

	rc = fanout_summary(r, n, (double)(mono_us() - t0) / US_PER_SEC, "myriad: fanout: ", &sum);
	if (sum.len)
		fputs(sum.s, stderr);
	sbuf_free(&sum);
	fanout_results_free(r, n);
	free(command);
	return rc;
}
