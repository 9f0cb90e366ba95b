/*
 * cli.c - the log's subcommands (myriad(1)):
 *   myriad replay FILE [--at WHEN] [--speed X] [--once --json [--detail]] [--run RUNBOOK.tcl]
 *   myriad replay FILE --at WHEN --whatif ACTIONS [--minutes N] [--runs K] [--json]
 *   myriad log cut FILE --from T1 --to T2 -o OUT
 *   myriad log export FILE --format csv|jsonl|openmetrics [--table gpu|ib|events]
 *                          [--from T1] [--to T2] [--nodes NODESET] [-o OUT]
 * WHEN is +SECONDS from the start of the recording, -SECONDS before its end,
 * or an ISO 8601 UTC time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "store_int.h"
#include "../snapshot.h"
#include "../tcl/tcl.h"
#include "../ui/summary.h"
#include "../ui/ui.h"

struct args {
	const char *file, *at, *speed, *run, *from, *to, *out, *format, *table, *nodes;
	const char *whatif, *minutes, *runs;
	int once, json, detail;
};

static int parse_args(int argc, char **argv, struct args *a, const char *what)
{
	static const struct { const char *name; size_t off; } vals[] = {
		{"--at", offsetof(struct args, at)}, {"--speed", offsetof(struct args, speed)},
		{"--run", offsetof(struct args, run)}, {"--from", offsetof(struct args, from)},
		{"--to", offsetof(struct args, to)}, {"-o", offsetof(struct args, out)},
		{"--format", offsetof(struct args, format)}, {"--table", offsetof(struct args, table)},
		{"--nodes", offsetof(struct args, nodes)}, {"--whatif", offsetof(struct args, whatif)},
		{"--minutes", offsetof(struct args, minutes)}, {"--runs", offsetof(struct args, runs)},
	};

	for (int i = 0; i < argc; i++) {
		unsigned k;

		for (k = 0; k < ARRAY_LEN(vals) && strcmp(argv[i], vals[k].name); k++)
			;
		if (k < ARRAY_LEN(vals)) {
			if (i + 1 >= argc) {
				fprintf(stderr, "myriad %s: %s needs a value\n", what, argv[i]);
				return -1;
			}
			*(const char **)((char *)a + vals[k].off) = argv[++i];
		} else if (!strcmp(argv[i], "--once")) {
			a->once = 1;
		} else if (!strcmp(argv[i], "--json")) {
			a->json = 1;
		} else if (!strcmp(argv[i], "--detail")) {
			a->detail = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "myriad %s: unknown option %s\n", what, argv[i]);
			return -1;
		} else if (!a->file) {
			a->file = argv[i];
		} else {
			fprintf(stderr, "myriad %s: one file only (\"%s\")\n", what, argv[i]);
			return -1;
		}
	}
	if (!a->file) {
		fprintf(stderr, "myriad %s: which recording? (a FILE)\n", what);
		return -1;
	}
	return 0;
}

static int fail(const char *what, char *err, int rc)
{
	fprintf(stderr, "myriad %s: %s\n", what, err);
	free(err);
	return rc;
}

/* A recording that cannot be read is exit status 2 (myriad(1)); one that
 * is read and is not a log, 1. */
static int unreadable(const char *what, const char *path)
{
	char *err = NULL;

	return store_can_read(path, &err) < 0 ? fail(what, err, 2) : 0;
}

/* ---- replay ---- */

static void print_snapshot(struct myriad *app, const struct args *a)
{
	struct replay_info info;
	struct sbuf b = {0};

	if (!a->json) {
		summary_print(stdout, &app->model, 0, 60);
		return;
	}
	replay_get_info(app, &info);
	snapshot_json(&app->model, a->detail ? SNAP_DETAIL : 0, &b);
	if (b.len && b.s[b.len - 1] == '}') {   /* the replay's own fields */
		b.len--;
		sbuf_adds(&b, ",\"replay\":{\"file\":");
		sbuf_json_str(&b, info.path);
		sbuf_printf(&b, ",\"downsampled\":%s}}", info.downsampled ? "true" : "false");
	}
	puts(b.s);
	sbuf_free(&b);
}

/* Runbook regression: what RUNBOOK would have done during the recording,
 * with timestamps. A dry run through the batch runner, which steps the
 * replay one recorded tick at a time until the recording ends. */
static int run_runbook(struct myriad *app, const struct cli_opts *o, const struct args *a)
{
	struct cli_opts ro = *o;
	struct replay_info info;

	ro.dry_run = 1;
	ro.json |= a->json;   /* replay FILE --run RUNBOOK --json */
	app->dry_run = 1;
	if (replay_get_info(app, &info) == 0 && ro.ticks < 0)   /* to the end of the recording */
		ro.ticks = (info.end - app->start) / US_PER_SEC;
	return tcl_run_batch(app, &ro, a->run, 0, NULL);
}

/* What ACTIONS would have done at the replayed moment: `whatif` on the
 * model as the recording had it (myriad-tcl(7)), printed as a table or,
 * with --json, as its dict in JSON. The recording is only read. */
static int run_whatif(struct myriad *app, const struct cli_opts *o, const struct args *a)
{
	struct cli_opts ro = *o;
	struct sbuf script = {0};
	int rc;

	sbuf_printf(&script, "whatif $::myriad::whatif%s%s%s%s%s", a->minutes ? " -minutes " : "",
		    a->minutes ? a->minutes : "", a->runs ? " -runs " : "", a->runs ? a->runs : "",
		    a->json ? "" : " -table");
	ro.ticks = -1;
	ro.json = 0;
	app->dry_run = 1;
	if (a->json)
		sbuf_printf(&script, " -json");
	ro.eval = script.s;
	if (!app->tcl) {
		char *err = NULL;

		if (tcl_init(app, &err) < 0)
			return fail("replay", err, 2);
	}
	tcl_set_var(app, "::myriad::whatif", a->whatif);
	rc = tcl_run_batch(app, &ro, NULL, 0, NULL);
	sbuf_free(&script);
	return rc;
}

int store_cmd_replay(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	struct args a = {0};
	char *err = NULL;
	int64_t t;
	int rc;

	if (parse_args(argc - 1, argv + 1, &a, "replay") < 0)
		return 1;
	a.once |= o->once;
	a.json |= o->json;
	a.detail |= o->detail;
	if ((rc = unreadable("replay", a.file)) != 0)
		return rc;
	if (replay_open(app, a.file, &err) < 0)
		return fail("replay", err, 1);
	if (a.at) {
		if (replay_parse_when(app, a.at, &t, &err) < 0 || replay_seek(app, t, &err) < 0)
			return fail("replay", err, 1);
	} else if (a.once && !a.run) {
		struct replay_info info;

		replay_get_info(app, &info);
		if (replay_seek(app, info.end, &err) < 0)   /* the end of the recording */
			return fail("replay", err, 1);
	}
	if (a.whatif) {
		if (!a.at)
			return fail("replay", xstrdup("--whatif needs --at WHEN: the moment to fork the twin at"), 1);
		return run_whatif(app, o, &a);
	}
	if (a.run) {
		rc = run_runbook(app, o, &a);
		if (a.once)
			print_snapshot(app, &a);
		return rc;
	}
	if (a.once) {
		print_snapshot(app, &a);
		return 0;
	}
	replay_play(app, a.speed ? strtod(a.speed, NULL) : 1.0);
	return console_run(app, o);
}

/* ---- recording from the command line ---- */

/* The live view (the console, or its plain summary) records by default;
 * headless runs (--once, -e, run, the subcommands) only with --record. */
void store_record_start(struct myriad *app, const struct cli_opts *o)
{
	char *err = NULL;

	if (o->record ? !strcmp(o->record, "none") : o->once || o->eval || o->nargs > 0)
		return;
	if (recorder_open(app, o->record, &err) < 0) {
		fprintf(stderr, "myriad: --record %s: %s; going on without recording\n", o->record ? o->record : "", err);
		free(err);
	}
}

/* ---- log cut ---- */

static int when_group(struct myriad *app, const char *when, int64_t *g, char **err)
{
	int64_t t;

	if (replay_parse_when(app, when, &t, err) < 0 || replay_seek(app, t, err) < 0)
		return -1;
	return replay_position(app, g);   /* the group the replay stands at */
}

static int cut(struct myriad *app, const struct args *a)
{
	char *err = NULL;
	int64_t g1, g2, before;

	if (!a->from || !a->to || !a->out) {
		fprintf(stderr, "myriad log cut: FILE --from T1 --to T2 -o OUT\n");
		return 1;
	}
	if (replay_open(app, a->file, &err) < 0)
		return fail("log cut", err, 1);
	if (when_group(app, a->from, &g1, &err) < 0 || when_group(app, a->to, &g2, &err) < 0)
		return fail("log cut", err ? err : xstrdup("bad time"), 1);
	if (g2 < g1) {
		fprintf(stderr, "myriad log cut: --to comes before --from\n");
		return 1;
	}
	/* the state just before T1's tick, then record T1..T2 as they replay */
	before = g1 - 1;
	if (replay_goto(app, before, &err) < 0)   /* before the first tick: an empty model */
		return fail("log cut", err, 1);
	if (recorder_open(app, a->out, &err) < 0)
		return fail("log cut", err, 1);
	if (replay_through(app, g2, &err) < 0) {
		recorder_close(app);
		return fail("log cut", err, 1);
	}
	recorder_close(app);
	return 0;
}

/* ---- log export ---- */

static int export(struct myriad *app, const struct args *a)
{
	struct export_opts eo = {EXPORT_JSONL, a->table, 0, INT64_MAX, a->nodes};
	struct reader r;
	char *err = NULL, *warn = NULL;
	FILE *out = stdout;
	int rc;

	if (!a->format || (strcmp(a->format, "csv") && strcmp(a->format, "jsonl") && strcmp(a->format, "openmetrics"))) {
		fprintf(stderr, "myriad log export: --format csv|jsonl|openmetrics\n");
		return 1;
	}
	eo.fmt = !strcmp(a->format, "csv") ? EXPORT_CSV : !strcmp(a->format, "jsonl") ? EXPORT_JSONL : EXPORT_OPENMETRICS;
	if (a->from || a->to) {   /* times to groups through a replay of the file */
		if (replay_open(app, a->file, &err) < 0 || (a->from && when_group(app, a->from, &eo.from, &err) < 0) ||
		    (a->to && when_group(app, a->to, &eo.to, &err) < 0))
			return fail("log export", err ? err : xstrdup("bad time"), 1);
	}
	if (reader_open(&r, a->file, &warn, &err) < 0)
		return fail("log export", err, 1);
	if (warn)
		fprintf(stderr, "myriad log export: %s\n", warn);
	free(warn);
	if (a->out && !(out = fopen(a->out, "w"))) {
		reader_close(&r);
		fprintf(stderr, "myriad log export: -o %s: cannot write it\n", a->out);
		return 1;
	}
	rc = export_log(&r, &eo, out, &err);
	if (out != stdout && fclose(out) != 0 && rc == 0)
		rc = -1, err = xstrdup("write error");
	reader_close(&r);
	return rc < 0 ? fail("log export", err, 1) : 0;
}

int store_cmd_log(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	struct args a = {0};
	int rc;

	(void)o;
	if (argc < 2 || (strcmp(argv[1], "cut") && strcmp(argv[1], "export"))) {
		fprintf(stderr, "usage: myriad log cut FILE --from T1 --to T2 -o OUT\n"
				"       myriad log export FILE --format csv|jsonl|openmetrics [--table gpu|ib|events]\n"
				"                         [--from T1] [--to T2] [--nodes NODESET] [-o OUT]\n");
		return 1;
	}
	if (parse_args(argc - 2, argv + 2, &a, argv[1]) < 0)
		return 1;
	if ((rc = unreadable(!strcmp(argv[1], "cut") ? "log cut" : "log export", a.file)) != 0)
		return rc;
	return !strcmp(argv[1], "cut") ? cut(app, &a) : export(app, &a);
}
