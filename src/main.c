/*
 * main.c - the myriad command line (myriad(1)): global options,
 * the table of subcommands, the headless snapshot and the live view.
 */
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "myriad.h"
#include "snapshot.h"
#include "action/backend.h"
#include "plugin.h"
#include "probe/parse.h"
#include "ssh/fanout.h"
#include "store/store.h"
#include "ssh/source_ssh.h"
#include "tcl/tcl.h"
#include "ui/summary.h"
#include "ui/ui.h"

static int cmd_parse(struct myriad *app, const struct cli_opts *o, int argc, char **argv);
static int cmd_plugins(struct myriad *app, const struct cli_opts *o, int argc, char **argv);
static int cmd_keys(struct myriad *app, const struct cli_opts *o, int argc, char **argv);

/* One line per subcommand; parts add theirs here. */
static const struct cli_command commands[] = {
	{"parse", "FORMAT [FILE]", "parse node/service output, print JSON lines", 0, cmd_parse},
	{"plugins", "", "list plugins: built in, loaded by the configuration, on the search path", CMD_NEEDS_CLUSTER, cmd_plugins},
	{"fanout", "-w NODESET [-f N] [-t S] [-b] -- CMD", "run a command on many nodes over SSH", 0, cmd_fanout},
	{"replay", "FILE [--at WHEN] [--speed X] [--once --json] [--whatif ACTIONS]",
	 "replay a recording (WHEN: +S, -S, ISO); --whatif: what ACTIONS would have done at WHEN", 0, store_cmd_replay},
	{"log", "cut|export FILE ...", "cut an incident out of a recording, export one", 0, store_cmd_log},
	{"run", "RUNBOOK.tcl [ARGS...]", "run a Tcl runbook with no terminal (myriad-tcl(7))", CMD_NEEDS_CLUSTER, tcl_cli_run},
	{"keys", "[-man]", "the console's default key bindings (-man: as myriad(1)'s KEYS section)", 0, cmd_keys},
};

static void usage(FILE *f)
{
	fputs("usage: myriad [-c CONFIG | --sim SPEC] [--read-only] [--dry-run] [--json] [--theme NAME]\n"
	      "              [--record FILE] [--ticks T] [--once] [--detail] [--plain] [-P DIR] [COMMAND ...]\n"
	      "  myriad                                 live view of the cluster (embedded simulator by default)\n"
	      "  myriad --sim gpus=N,seed=S --ticks T --once --json [--detail]   headless snapshot\n"
	      "  myriad [GLOBAL] [--ticks T] -e SCRIPT      evaluate Tcl with no terminal (myriad-tcl(7))\n",
	      f);
	for (unsigned i = 0; i < ARRAY_LEN(commands); i++)
		fprintf(f, "  myriad %s %-*s %s\n", commands[i].name, (int)(31 - strlen(commands[i].name)),
			commands[i].usage, commands[i].help);
	fputs("SPEC: gpus=10240,seed=1,accel=1,start=2026-01-01T00:00:00Z,load=0.9\n", f);
}

static int want_value(int i, int argc, char **argv)
{
	if (i + 1 < argc)
		return 1;
	fprintf(stderr, "myriad: %s needs a value\n", argv[i]);
	return 0;
}

static int parse_opts(int argc, char **argv, struct cli_opts *o)
{
	static const struct { const char *name; size_t off; } strs[] = {
		{"-c", offsetof(struct cli_opts, config)}, {"--sim", offsetof(struct cli_opts, sim)},
		{"--theme", offsetof(struct cli_opts, theme)}, {"--record", offsetof(struct cli_opts, record)},
		{"-e", offsetof(struct cli_opts, eval)},
	};
	static const struct { const char *name; size_t off; } flags[] = {
		{"--read-only", offsetof(struct cli_opts, read_only)}, {"--dry-run", offsetof(struct cli_opts, dry_run)},
		{"--json", offsetof(struct cli_opts, json)}, {"--once", offsetof(struct cli_opts, once)},
		{"--detail", offsetof(struct cli_opts, detail)}, {"--plain", offsetof(struct cli_opts, plain)},
	};
	int i;

	memset(o, 0, sizeof *o);
	o->ticks = -1;
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];
		unsigned k;

		for (k = 0; k < ARRAY_LEN(strs) && strcmp(a, strs[k].name); k++)
			;
		if (k < ARRAY_LEN(strs)) {
			if (!want_value(i, argc, argv))
				return -1;
			*(const char **)((char *)o + strs[k].off) = argv[++i];
			continue;
		}
		for (k = 0; k < ARRAY_LEN(flags) && strcmp(a, flags[k].name); k++)
			;
		if (k < ARRAY_LEN(flags)) {
			*(int *)((char *)o + flags[k].off) = 1;
		} else if (!strcmp(a, "--ticks")) {
			if (!want_value(i, argc, argv))
				return -1;
			if (parse_i64(argv[i + 1], strlen(argv[i + 1]), &o->ticks) < 0 || o->ticks < 0) {
				fprintf(stderr, "myriad: --ticks wants a number of ticks, not \"%s\"\n", argv[i + 1]);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "-P")) {
			if (!want_value(i, argc, argv))
				return -1;
			plugin_path_add(argv[++i]);
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("myriad %s\n", MYRIAD_VERSION);
			exit(0);
		} else {
			fprintf(stderr, "myriad: unknown option %s\n", a);
			usage(stderr);
			return -1;
		}
	}
	o->nargs = argc - i;
	o->args = argv + i;
	return 0;
}

static int start_sources(struct myriad *app, const struct cli_opts *o)
{
	char *err = NULL, *config = NULL;
	int ssh = 0, rc;

	store_record_start(app, o);   /* before any source: the inventory is recorded */
	/* Tcl first (guards, -e/run); then -c FILE or the XDG configuration */
	if ((rc = tcl_configure(app, o, &config, &err)) != 0 || (config && ssh_configure(app, config, &ssh, &err) < 0)) {
		fprintf(stderr, "myriad: %s\n", err);   /* FILE:LINE: message */
		free(err);
		free(config);
		return rc ? rc : 1;
	}
	free(config);
	if (!ssh && !app->nsources && app_add_source(app, "sim", o->sim ? o->sim : "", &err) < 0) {
		fprintf(stderr, "myriad: --sim: %s\n", err);
		free(err);
		return 1;
	}
	app->read_only = o->read_only;
	app->dry_run = o->dry_run;
	return 0;
}

static int headless(struct myriad *app, const struct cli_opts *o)
{
	struct sbuf b = {0};

	for (int64_t t = 0; t < o->ticks; t++)
		if (clock_step(app) < 0)
			break;
	if (o->json) {
		snapshot_json(&app->model, o->detail ? SNAP_DETAIL : 0, &b);
		puts(b.s);
		sbuf_free(&b);
	} else {
		summary_print(stdout, &app->model, 0, 60);
	}
	return 0;
}

struct live {
	struct myriad *app;
	int64_t ticks;                /* stop after this many; -1: never */
};

static void print_summary(void *ctx)
{
	struct live *lv = ctx;
	struct winsize ws = {0};
	int rows = ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row ? ws.ws_row : 60;

	summary_print(stdout, &lv->app->model, isatty(1), rows);
	if (lv->ticks >= 0 && lv->app->tick >= lv->ticks)
		loop_stop(lv->app->loop, 0);
}

/* The full-screen console on a terminal; the plain summary for pipes, logs,
 * TERM=dumb and --plain. */
static int want_console(const struct cli_opts *o)
{
	const char *term = getenv("TERM");

	return !o->plain && isatty(0) && isatty(1) && term && *term && strcmp(term, "dumb");
}

static int live(struct myriad *app, const struct cli_opts *o)
{
	if (want_console(o))
		return console_run(app, o);
	summary_print(stdout, &app->model, isatty(1), 60);
	if (o->ticks == 0)
		return 0;
	struct live lv = {app, o->ticks};

	clock_subscribe(app, print_summary, &lv);
	clock_run(app, 1000);
	clock_unsubscribe(app, print_summary, &lv);
	return 0;
}

static int cmd_parse(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	(void)app;
	(void)o;
	return parse_cli(argc, argv);
}

static void print_plugin(void *ctx, const struct plugin_info *i)
{
	(void)ctx;
	printf("%-12s %-8s %-10s %-24s %s%s%s%s%s\n", i->name, *i->version ? i->version : "-", i->state,
	       *i->provides ? i->provides : "-", i->summary, *i->summary && *i->path ? "  " : "", i->path,
	       i->why ? ": " : "", i->why ? i->why : "");
}

/* myriad [-c CONFIG] plugins: the built-in ones, those the configuration
 * loads (with their state), and those on the search path. */
static int cmd_keys(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	struct sbuf out = {0};

	(void)app;
	(void)o;
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "-man"))) {
		fprintf(stderr, "usage: myriad keys [-man]\n");
		return 2;
	}
	ui_keys_text(&out, argc == 2);
	fputs(out.s ? out.s : "", stdout);
	sbuf_free(&out);
	return 0;
}

static int cmd_plugins(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	(void)o;
	(void)argc;
	(void)argv;
	printf("%-12s %-8s %-10s %-24s %s\n", "NAME", "VERSION", "STATE", "PROVIDES", "WHAT / WHERE");
	plugin_each(app, print_plugin, NULL);
	return 0;
}

static int run_command(struct myriad *app, const struct cli_opts *o)
{
	for (unsigned i = 0; i < ARRAY_LEN(commands); i++) {
		if (strcmp(o->args[0], commands[i].name))
			continue;
		if (commands[i].flags & CMD_NEEDS_CLUSTER) {
			int rc = start_sources(app, o);

			if (rc)
				return rc;
		}
		return commands[i].exec(app, o, o->nargs, o->args);
	}
	fprintf(stderr, "myriad: %s: no such command (myriad --help lists them)\n", o->args[0]);
	return 1;
}

int main(int argc, char **argv)
{
	struct myriad app;
	struct cli_opts o;
	int rc;

	if (parse_opts(argc, argv, &o) < 0)
		return 1;
	app_init(&app);
	app.defer_start = !o.nargs && !o.eval && !o.once && want_console(&o);   /* a first frame before the start ends */
	if (o.nargs > 0)
		rc = run_command(&app, &o);
	else if ((rc = start_sources(&app, &o)) == 0)
		rc = o.eval ? tcl_run_batch(&app, &o, NULL, 0, NULL) : o.once ? headless(&app, &o) : live(&app, &o);
	app_free(&app);   /* every part stops here, last started first */
	return rc;
}
