/*
 * main.c - the myriad command line (DESIGN.md section 9): global options, the
 * headless snapshot, the live view and the subcommands.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "myriad.h"
#include "snapshot.h"
#include "sim/sim.h"
#include "ui/summary.h"

int parse_cli(int argc, char **argv);   /* probe/parse_cli.c */

struct opts {
	const char *config, *sim, *theme, *record;
	int read_only, dry_run, json, once, detail;
	int64_t ticks;
	int nargs;
	char **args;                  /* subcommand and its arguments */
};

static void usage(FILE *f)
{
	fputs("usage: myriad [-c CONFIG | --sim SPEC] [--read-only] [--dry-run] [--json] [--theme NAME]\n"
	      "              [--record FILE] [--ticks T] [--once] [--detail] [COMMAND ...]\n"
	      "  myriad                                 live view of the cluster (embedded simulator by default)\n"
	      "  myriad --sim gpus=N,seed=S --ticks T --once --json [--detail]   headless snapshot\n"
	      "  myriad parse FORMAT [FILE]             parse node/service output, print JSON lines\n"
	      "         FORMAT: nvidia-smi xid ib-counters slurm-nodes slurm-jobs facility\n"
	      "  myriad plugins                         list source and backend classes\n"
	      "SPEC: gpus=10240,seed=1,accel=1,start=2026-01-01T00:00:00Z,load=0.9\n",
	      f);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof *o);
	o->ticks = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;

		if (!strcmp(a, "-c") && more)
			o->config = argv[++i];
		else if (!strcmp(a, "--sim") && more)
			o->sim = argv[++i];
		else if (!strcmp(a, "--theme") && more)
			o->theme = argv[++i];
		else if (!strcmp(a, "--record") && more)
			o->record = argv[++i];
		else if (!strcmp(a, "--ticks") && more) {
			if (parse_i64(argv[i + 1], strlen(argv[i + 1]), &o->ticks) < 0 || o->ticks < 0) {
				fprintf(stderr, "myriad: --ticks wants a number of ticks, not \"%s\"\n", argv[i + 1]);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--read-only"))
			o->read_only = 1;
		else if (!strcmp(a, "--dry-run"))
			o->dry_run = 1;
		else if (!strcmp(a, "--json"))
			o->json = 1;
		else if (!strcmp(a, "--once"))
			o->once = 1;
		else if (!strcmp(a, "--detail"))
			o->detail = 1;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("myriad %s\n", MYRIAD_VERSION);
			exit(0);
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "myriad: unknown option %s (or missing value)\n", a);
			usage(stderr);
			return -1;
		} else
			break;
	}
	o->nargs = argc - i;
	o->args = argv + i;
	return 0;
}

static int start_sources(struct myriad *app, const struct opts *o)
{
	char *err = NULL;

	if (o->config) {
		fprintf(stderr, "myriad: -c %s: configuration files are not supported by this build yet\n", o->config);
		return 1;
	}
	if (app_add_source(app, "sim", o->sim ? o->sim : "", &err) < 0) {
		fprintf(stderr, "myriad: --sim: %s\n", err);
		free(err);
		return 1;
	}
	app->read_only = o->read_only;
	app->dry_run = o->dry_run;
	return 0;
}

static int headless(struct myriad *app, const struct opts *o)
{
	struct sbuf b = {0};

	for (int64_t t = 0; t < o->ticks; t++)
		app_tick(app);
	if (o->json) {
		snapshot_json(&app->model, o->detail ? SNAP_DETAIL : 0, &b);
		puts(b.s);
		sbuf_free(&b);
	} else {
		summary_print(stdout, &app->model, 0, 60);
	}
	return 0;
}

static void on_tick(void *ctx, int64_t id)
{
	struct myriad *app = ctx;
	struct winsize ws = {0};
	int rows = ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row ? ws.ws_row : 60;

	(void)id;
	app_tick(app);
	summary_print(stdout, &app->model, isatty(1), rows);
}

static void on_quit(void *ctx, int sig)
{
	(void)sig;
	loop_stop(((struct myriad *)ctx)->loop, 0);
}

static int live(struct myriad *app, const struct opts *o)
{
	app->loop = loop_new();
	loop_signal(app->loop, SIGINT, on_quit, app);
	loop_signal(app->loop, SIGTERM, on_quit, app);
	summary_print(stdout, &app->model, isatty(1), 60);
	loop_timer(app->loop, 1000, 1000, on_tick, app);
	if (o->ticks >= 0)
		while (app->tick < o->ticks)
			loop_once(app->loop, -1);
	else
		loop_run(app->loop);
	loop_free(app->loop);
	app->loop = NULL;
	return 0;
}

static int list_plugins(void)
{
	static const char *const builtins[] = {"sim"};

	for (unsigned i = 0; i < ARRAY_LEN(builtins); i++) {
		const struct source_ops *s = registry_source(builtins[i]);
		const struct backend_ops *b = registry_backend(builtins[i]);

		if (s)
			printf("source  %-12s abi %d  built-in\n", s->name, s->abi);
		if (b)
			printf("backend %-12s abi %d  built-in\n", b->name, b->abi);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct myriad app;
	struct opts o;
	int rc;

	if (parse_opts(argc, argv, &o) < 0)
		return 1;
	if (o.nargs > 0 && !strcmp(o.args[0], "parse"))
		return parse_cli(o.nargs, o.args);
	app_init(&app);
	if (o.nargs > 0 && !strcmp(o.args[0], "plugins")) {
		rc = list_plugins();
		app_free(&app);
		return rc;
	}
	if (o.nargs > 0) {
		fprintf(stderr, "myriad: %s: no such command in this build\n", o.args[0]);
		app_free(&app);
		return 1;
	}
	if ((rc = start_sources(&app, &o)) != 0) {
		app_free(&app);
		return rc;
	}
	if (o.once) {
		if (o.ticks < 0)
			o.ticks = 0;
		rc = headless(&app, &o);
	} else {
		rc = live(&app, &o);
	}
	app_free(&app);
	return rc;
}
