/*
 * test_ui_console.c - the console without a terminal: every panel draws the
 * simulated model into an in-memory grid at 200x60 and 80x24, the help page
 * lists every bound key, the action keys build the Tcl command the action
 * engine expects and ask first, and a hostile job name is drawn inert.
 */
#include <locale.h>
#include <stdio.h>
#include "test.h"
#include "myriad.h"
#include "ui/ui_int.h"

static struct myriad *start(const char *spec, int ticks)
{
	static struct myriad app;
	char *err = NULL;

	setlocale(LC_CTYPE, "C.UTF-8");
	text_utf8 = 1;
	app_init(&app);
	if (app_add_source(&app, "sim", spec, &err) < 0) {
		fprintf(stderr, "  sim: %s\n", err);
		free(err);
		test_failures++;
	}
	for (int i = 0; i < ticks; i++)
		app_tick(&app);
	return &app;
}

/* The whole grid as text, one line per row. */
static char *screen(struct console *c)
{
	struct sbuf b = {0};
	char row[2048];

	for (int y = 0; y < c->grid.h; y++) {
		sbuf_adds(&b, grid_row_text(&c->grid, y, row, sizeof row));
		sbuf_addc(&b, '\n');
	}
	return b.s;
}

static int shows(struct console *c, const char *text)
{
	char *s = screen(c);
	int found = strstr(s, text) != NULL;

	if (!found)
		fprintf(stderr, "  screen lacks \"%s\":\n%s", text, s);
	free(s);
	return found;
}

/* Each key, then a redraw, as the loop does. */
static void keys(struct console *c, const char *ks)
{
	console_draw(c, 1);
	for (; *ks; ks++) {
		console_key(c, *ks);
		console_draw(c, 1);
	}
}

/* The utilization grid: every GPU when it fits, a node per cell with a row
 * per SU when that fits, SU pairs in half cells when nothing else does. */
TEST(ui_console_utilization_zooms_to_what_fits)
{
	struct myriad *app = start("gpus=10240,seed=1", 2);
	static const struct {
		int w, h;
		const char *want, *not;
	} cases[] = {
		{240, 70, "a cell = 2 GPUs", "a cell = a node"},
		{180, 50, "a row segment = an SU", "SU pair"},
		{80, 24, "2 SUs per row", "a row segment"},
	};

	for (unsigned i = 0; i < ARRAY_LEN(cases); i++) {
		struct console *c = console_new(app, NULL, cases[i].w, cases[i].h);

		app->console = c;
		keys(c, "1");
		CHECK(shows(c, cases[i].want));
		CHECK(!shows(c, cases[i].not));
		console_free(c);
		app->console = NULL;
	}
	app_free(app);
}

TEST(ui_console_every_panel_draws_the_model)
{
	struct myriad *app = start("gpus=2048,seed=1,accel=3000", 40);
	static const char *const expect[2][NPANELS] = {
		{"SU08", "leaf-s08", "facility", "time", "llama", "GPU", "Log"},
		{"SU08", "SU08", "facility", "time", "llama", "GPU", "Log"},   /* 80x24: a node per cell, fewer columns */
	};

	for (int size = 0; size < 2; size++) {
		struct console *c = console_new(app, NULL, size ? 80 : 200, size ? 24 : 60);

		app->console = c;
		for (int p = 0; p < NPANELS; p++) {
			char k[2] = {(char)('1' + p), 0};

			keys(c, k);
			CHECK(shows(c, expect[size][p]));
			CHECK(shows(c, "myriad"));
			CHECK(shows(c, "LIVE"));
		}
		console_free(c);
	}
	app_free(app);
}

TEST(ui_console_faults_panel_shows_xid_meaning)
{
	struct myriad *app = start("gpus=2048,seed=1,accel=3000", 40);
	struct console *c = console_new(app, NULL, 200, 60);
	int xid = -1;

	app->console = c;
	for (int32_t i = 0; i < app->model.nfaults && xid < 0; i++)
		xid = fault_xid(&app->model.faults[i]);
	CHECK(xid > 0);
	keys(c, "4");
	CHECK(shows(c, "Faults"));
	if (xid == 79)
		CHECK(shows(c, "GPU has fallen off the bus"));
	console_free(c);
	app_free(app);
}

TEST(ui_console_help_lists_every_bound_key)
{
	struct myriad *app = start("gpus=256", 2);
	struct console *c = console_new(app, NULL, 200, 60);
	char name[32], *s;

	app->console = c;
	keys(c, "?");
	s = screen(c);
	for (const struct default_binding *d = default_bindings; d->table; d++) {
		key_to_name(key_from_name(d->key), name, sizeof name);
		if (!strstr(s, name)) {
			fprintf(stderr, "  help lacks %s (%s)\n", name, d->cmd);
			test_failures++;
		}
	}
	CHECK(strstr(s, "Faults panel") && strstr(s, "Global keys"));
	free(s);
	ui_bind(app, "jobs", "F5", "job list -state RUNNING", NULL);   /* a Tcl binding shows up too */
	console_draw(c, 1);
	CHECK(shows(c, "Tcl: job list -state RUNNING"));
	console_free(c);
	app_free(app);
}

TEST(ui_console_drain_key_builds_the_tcl_command_and_asks)
{
	struct myriad *app = start("gpus=256,seed=1", 3);
	struct console *c = console_new(app, NULL, 200, 60);

	app->console = c;
	keys(c, "1lld");   /* utilization panel, cursor two nodes right, drain */
	CHECK_INT(c->mode, MODE_CONFIRM);
	CHECK(c->confirm.cmd && !strcmp(c->confirm.cmd, "node drain {gpu0003} -reason {operator drain}"));
	CHECK(shows(c, "Confirm action"));
	CHECK(shows(c, "node drain {gpu0003}"));
	keys(c, "n");
	CHECK_INT(c->mode, MODE_NORMAL);
	CHECK(shows(c, "cancelled"));
	keys(c, "5c");     /* jobs panel: checkpoint the first job */
	CHECK(c->confirm.cmd && !strncmp(c->confirm.cmd, "job checkpoint ", 15));
	keys(c, "n");
	keys(c, "5r");
	CHECK(c->confirm.cmd && !strncmp(c->confirm.cmd, "job requeue ", 12));
	keys(c, "n");
	console_free(c);
	app_free(app);
}

TEST(ui_console_filter_and_unbound_keys)
{
	struct myriad *app = start("gpus=256,seed=1", 3);
	struct console *c = console_new(app, NULL, 200, 60);

	app->console = c;
	keys(c, "5/zzz-no-such");
	console_key(c, UK_ENTER);
	console_draw(c, 1);
	CHECK(shows(c, "no job matches"));
	CHECK(shows(c, "filter: zzz-no-such"));
	console_key(c, UK_ESCAPE);   /* back: clears the filter */
	console_draw(c, 1);
	CHECK(!strstr(c->filter[c->cur], "zzz"));
	keys(c, "Z");
	CHECK(shows(c, "Z is not bound"));
	console_free(c);
	app_free(app);
}

TEST(ui_console_redraw_of_10240_gpus)
{
	struct myriad *app = start("", 2);
	struct console *c = console_new(app, NULL, 200, 60);
	int64_t t0;

	app->console = c;
	console_draw(c, 1);
	CHECK(shows(c, "SU40"));
	t0 = cpu_us();
	for (int i = 0; i < 20; i++)
		console_draw(c, 1);
	/* generous even under sanitizers; make bench prints the real figure */
	CHECK((cpu_us() - t0) / 20 < 200000);
	console_free(c);
	app_free(app);
}

TEST(ui_console_mouse_clicks_select)
{
	struct myriad *app = start("gpus=256,seed=1", 2);
	struct console *c = console_new(app, NULL, 200, 60);

	app->console = c;
	console_draw(c, 1);
	console_mouse(c, c->tab_x[3] + 2, 1);   /* the Faults tab */
	CHECK_INT(c->cur, 3);
	console_mouse(c, c->tab_x[0] + 2, 1);
	console_draw(c, 1);
	console_mouse(c, 2, 5);                 /* third node's GPU cells */
	CHECK_INT(c->node_sel, 2);
	keys(c, "6");
	CHECK(shows(c, "gpu0003  SU01"));
	console_free(c);
	app_free(app);
}

TEST(ui_console_log_keeps_the_audit_trail)
{
	struct myriad *app = start("gpus=256,seed=1", 2);
	struct console *c = console_new(app, NULL, 200, 60);
	struct event ev;

	app->console = c;
	memset(&ev, 0, sizeof ev);
	ev.type = EV_ACTION;
	ev.u.action = (struct ev_action){7, ACT_REQUESTED, 0, 0, "node drain", "gpu0002", "-reason {x}", "ops", "", "sent"};
	app_emit(app, &ev);
	ev.u.action = (struct ev_action){7, ACT_RESULT, 1, 0, "node drain", "gpu0002", "", "ops", "ok", "done"};
	app_emit(app, &ev);
	ev.type = EV_MARK;
	ev.u.mark = (struct ev_mark){"ops", "swapped the \033[31mcable\033[0m"};
	app_emit(app, &ev);
	bus_flush(&app->bus);
	keys(c, "7");
	CHECK(shows(c, "#7 node drain gpu0002 -reason {x}  by ops"));
	CHECK(shows(c, "#7 done: ok"));
	CHECK(shows(c, "ops: swapped the cable"));
	CHECK_INT(ui_message(app, "hello from Tcl"), 0);
	console_draw(c, 1);
	CHECK(shows(c, "hello from Tcl"));
	console_free(c);
	CHECK_INT(ui_message(app, "no console"), -1);
	app_free(app);
}
