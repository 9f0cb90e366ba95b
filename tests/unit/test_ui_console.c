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
#include "stream.h"
#include "ui/ui_int.h"

/* The embedded simulator of spec, ticks in (the UI tests' cluster;
 * test_ui_whatif.c too). */
struct myriad *ui_test_start(const char *spec, int ticks);
struct myriad *ui_test_start(const char *spec, int ticks)
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

static char *screen(struct console *c)
{
	return grid_text(&c->grid);
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

static int lacks(struct console *c, const char *text)
{
	char *s = screen(c);
	int found = strstr(s, text) != NULL;

	if (found)
		fprintf(stderr, "  screen shows \"%s\":\n%s", text, s);
	free(s);
	return !found;
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
	struct myriad *app = ui_test_start("gpus=10240,seed=1", 2);
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
		CHECK(lacks(c, cases[i].not));
		console_free(c);
		app->console = NULL;
	}
	app_free(app);
}

/* ---- every panel on a known, constructed state ---- */

/* Does one line of the screen hold every one of parts, in this order? */
static int row_shows(struct console *c, const char *const *parts)
{
	char buf[2048];

	for (int y = 0; y < c->grid.h; y++) {
		const char *p = grid_row_text(&c->grid, y, buf, sizeof buf);

		for (int i = 0; parts[i] && p; i++)
			if ((p = strstr(p, parts[i])) != NULL)
				p += strlen(parts[i]);
		if (p)
			return 1;
	}
	char *s = screen(c);

	fprintf(stderr, "  no line holds, in this order:");
	for (int i = 0; parts[i]; i++)
		fprintf(stderr, " \"%s\"", parts[i]);
	fprintf(stderr, "\n%s", s);
	free(s);
	return 0;
}
#define ROW(c, ...) row_shows(c, (const char *const[]){__VA_ARGS__, NULL})

/* The first row that holds text, or the grid's height. */
static int row_of(struct console *c, const char *text)
{
	char buf[2048];
	int y;

	for (y = 0; y < c->grid.h; y++)
		if (strstr(grid_row_text(&c->grid, y, buf, sizeof buf), text))
			break;
	return y;
}

/* On the simulated cluster without random faults (accel=0) at tick 3, a
 * state the test makes: gpu0003's GPU 2 falls off the bus and gpu0005's
 * GPU 0 reports a DBE (kernel lines through a stream, so through the XID
 * decoder too), gpu0005 is drained, gpu0001's GPU 3 reports a known
 * sample, the facility meter known values, gpu0032's rail 7 is down, job
 * 4242 of zoe runs on the idle gpu[0030-0031], an operator writes a note. */
static void construct(struct myriad *app)
{
	struct stream st;
	struct event ev;
	static const char kmsg3[] = "NVRM: Xid (PCI:0000:3a:00): 79, pid=0, GPU has fallen off the bus.\n";
	static const char kmsg5[] = "NVRM: Xid (PCI:0000:18:00): 48, pid=4242, name=python3, An uncorrectable "
				    "double bit error (DBE) has been detected on GPU in the framebuffer at partition 6\n";

	CHECK_INT(app->model.nfaults, 0);
	stream_init(&st, &app->bus, &app->model, 2, FMT_XID, "test");
	stream_feed(&st, kmsg3, sizeof kmsg3 - 1, app->now);
	stream_free(&st);
	stream_init(&st, &app->bus, &app->model, 4, FMT_XID, "test");
	stream_feed(&st, kmsg5, sizeof kmsg5 - 1, app->now);
	stream_free(&st);

	memset(&ev, 0, sizeof ev);
	ev.type = EV_NODE_STATE;
	ev.time = app->now;
	ev.source = "test";
	ev.u.node_state = (struct ev_node_state){4, app->model.nodes[4].base, NODE_F_DRAIN, app->now,
						 "xid48 gpu0 dbe", "root"};
	app_emit(app, &ev);

	ev.type = EV_SAMPLE;
	ev.u.sample.node = 0;
	ev.u.sample.gpu = 3;
	for (int i = 0; i < MET_COUNT; i++)
		ev.u.sample.m[i] = app->model.met[i][3];
	ev.u.sample.m[MET_UTIL] = 42;
	ev.u.sample.m[MET_TEMP] = 55;
	ev.u.sample.m[MET_POWER] = 32100;   /* centiwatts */
	app_emit(app, &ev);

	memset(&ev.u, 0, sizeof ev.u);
	ev.type = EV_POWER;
	ev.source = "test";
	ev.u.power = (struct ev_power){1234.0, 1000.0, 180.0, 22.5, 34.0, 300.0, 11.5};
	app_emit(app, &ev);

	memset(&ev.u, 0, sizeof ev.u);
	ev.type = EV_IB;
	ev.u.ib.node = 31;
	ev.u.ib.port = 7;
	ev.u.ib.state = IBP_DOWN;
	app_emit(app, &ev);

	memset(&ev.u, 0, sizeof ev.u);
	ev.type = EV_JOB;
	ev.u.job = (struct ev_job){4242, JOB_RUNNING, 16, 0xff, app->now - 3725 * US_PER_SEC,
				   app->now - 3725 * US_PER_SEC, "probe-sweep", "zoe", "batch", "gpu[0030-0031]"};
	app_emit(app, &ev);

	memset(&ev.u, 0, sizeof ev.u);
	ev.type = EV_MARK;
	ev.u.mark = (struct ev_mark){"ops", "reseated gpu0003 GPU 2"};
	app_emit(app, &ev);
	bus_flush(&app->bus);
}

TEST(ui_console_every_panel_draws_the_constructed_state)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1,accel=0", 3);
	struct console *c = console_new(app, NULL, 200, 60);

	app->console = c;
	construct(app);
	keys(c, "1");
	/* header: what the model holds now */
	CHECK(ROW(c, "myriad", "sim-256", "2026-01-01 00:00:03Z", "LIVE", "32 up", "0 stale", "0 down",
		  "1 drained", "3 faults", "3 unacked", "18 jobs", "IT 1.0 MW", "PUE 1.23"));
	/* utilization: the cursor's node (gpu0001) with GPU 3's sample; the legend */
	CHECK(ROW(c, "gpu0001", "SU01 rack 1", "allocated"));
	CHECK(ROW(c, "  util ", "99%", "96%", "97%", "42%", "95%"));
	CHECK(ROW(c, "  temp ", "78C", "78C", "78C", "55C", "79C"));
	CHECK(ROW(c, "  power ", "692W", "690W", "670W", "321W", "665W"));
	CHECK(ROW(c, "fault  ", " 3"));     /* gpu0003:2, gpu0005:0, gpu0032:7 (rail 7) */
	CHECK(ROW(c, "drained  ", " 7"));   /* gpu0005's other GPUs */
	CHECK(ROW(c, "worst open faults"));
	CHECK(ROW(c, "00:00:03 gpu0032 r7", "error", "mlx5_7 port not active"));
	CHECK(ROW(c, "00:00:03 gpu0005:0", "critical", "XID 48: Double-bit ECC error (DBE) -- An uncorrectable"));
	CHECK(ROW(c, "00:00:03 gpu0003:2", "critical", "XID 79: GPU has fallen off the bus -- GPU has fallen"));
	CHECK(row_of(c, "gpu0003:2  ") < row_of(c, "gpu0032 r7 "));   /* critical first, although older */

	keys(c, "2");   /* topology: gpu0032's rail 7 down (the simulator read 10 nodes' ports) */
	CHECK(ROW(c, "79 active", "1 down", "176 not read yet"));
	CHECK(ROW(c, " SU01 ", "10", "10", "10", "10", "10", "10", "10", " 9", "  1 ", "leaf-s01-r[0-7]"));

	keys(c, "3");   /* power: the meter's reading */
	CHECK(ROW(c, "facility 1,234 kW", "IT 1,000 kW", "cooling 180 kW", "PUE 1.234"));
	CHECK(ROW(c, "supply 22.5 C", "return 34.0 C", "delta T 11.5 K", "flow 300 L/min", "outside 11.5 C"));

	keys(c, "4");   /* faults: both XIDs, decoded, with the catalogue's meaning and action */
	CHECK(ROW(c, "Faults", "3 open, 3 unacknowledged, 3 listed"));
	CHECK(ROW(c, "gpu0032", "r7", "ib", "mlx5_7 port not active (state 1)", "error",
		  "drain; check cable, switch port and HCA"));
	CHECK(ROW(c, "gpu0003", "2", "xid", "79", "GPU has fallen off the bus", "critical",
		  "drain, reboot/power-cycle; reseat or RMA if it repeats"));
	CHECK(ROW(c, "gpu0005", "0", "ecc", "48", "Double-bit ECC error (DBE)", "critical",
		  "drain, reset GPU, run FieldDiag"));
	CHECK(ROW(c, "#3  gpu0032 rail 7", "error", "opened 00:00:03"));   /* the detail of the newest */
	keys(c, "j");
	CHECK(ROW(c, "#2  gpu0005 GPU 0", "critical", "opened 00:00:03"));
	CHECK(ROW(c, "XID 48: Double-bit ECC error (DBE) -- An uncorrectable double bit error"));
	CHECK(ROW(c, "catalogue: WORKFLOW_XID_48, hardware: drain the node"));
	keys(c, "j");
	CHECK(ROW(c, "#1  gpu0003 GPU 2", "critical", "opened 00:00:03"));
	CHECK(ROW(c, "catalogue: RESTART_BM, hardware: drain the node"));
	CHECK(ROW(c, "do: drain, reboot/power-cycle; reseat or RMA if it repeats"));

	keys(c, "5");   /* jobs: the one the test started, after the simulator's */
	CHECK(ROW(c, "Jobs", "18 running"));
	CHECK(ROW(c, "4242", "zoe", "probe-sweep", "2", "gpu[0030-0031]", "16", "RUNNING", "1h02m"));

	console_show_node(c, 2);   /* node: gpu0003, its lost GPU's last XID and the fault */
	console_draw(c, 1);
	CHECK(ROW(c, "gpu0003", "SU01", "rack 1"));
	CHECK(ROW(c, "  2 ", "00000000:3A:00.0"));
	CHECK(ROW(c, "  2 ", "79"));
	CHECK(ROW(c, "xid", "GPU has fallen off the bus"));

	keys(c, "7");   /* log: the operator's note */
	CHECK(ROW(c, "ops: reseated gpu0003 GPU 2"));

	console_free(c);
	app->console = NULL;
	app_free(app);
}

/* The same state at 80x24: each panel still shows what matters. */
TEST(ui_console_small_screen_keeps_the_constructed_state)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1,accel=0", 3);
	struct console *c = console_new(app, NULL, 80, 24);

	app->console = c;
	construct(app);
	keys(c, "1");
	/* the header in short form keeps the counts that matter */
	CHECK(ROW(c, "myriad", "sim-256", "00:00:03Z", "LIVE", "32up", "0st", "0dn", "1dr", "3flt", "3new", "18job"));
	keys(c, "3");
	CHECK(ROW(c, "facility 1,234 kW", "IT 1,000 kW"));
	keys(c, "4");
	CHECK(ROW(c, "gpu0003", "79", "GPU has fallen off"));
	CHECK(ROW(c, "gpu0005", "48", "Double-bit ECC"));
	keys(c, "5G");   /* the last job */
	CHECK(ROW(c, "4242", "zoe", "probe-sweep"));
	keys(c, "7");
	CHECK(ROW(c, "ops: reseated gpu0003 GPU 2"));
	console_free(c);
	app->console = NULL;
	app_free(app);
}

TEST(ui_console_help_lists_every_bound_key)
{
	struct myriad *app = ui_test_start("gpus=256", 2);
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

/* At every size from the smallest the console draws, paging through the
 * help reaches every section's title, and a title is never the last row of
 * the help (its keys under it, not in another column). */
TEST(ui_console_help_pages_reach_every_section_at_any_size)
{
	static const char *const titles[] = {"Utilization panel", "Global keys", "Topology panel", "Power panel",
					     "Faults panel", "Jobs panel", "Node panel", "Log panel"};
	static const int sizes[][2] = {{40, 10}, {60, 16}, {80, 24}, {120, 40}, {200, 60}, {300, 80}, {160, 12}};
	struct myriad *app = ui_test_start("gpus=256", 2);

	for (unsigned z = 0; z < ARRAY_LEN(sizes); z++) {
		struct console *c = console_new(app, NULL, sizes[z][0], sizes[z][1]);
		unsigned seen = 0;
		char row[2048];

		app->console = c;
		keys(c, "?");
		for (int page = 0; page < 60; page++) {
			const char *pg;
			int n, m;

			for (int y = 2; y < c->h - 2; y++) {
				grid_row_text(&c->grid, y, row, sizeof row);
				for (unsigned t = 0; t < ARRAY_LEN(titles); t++)
					if (strstr(row, titles[t])) {
						seen |= 1u << t;
						CHECK(y < c->h - 4);
					}
			}
			pg = strstr(grid_row_text(&c->grid, c->h - 3, row, sizeof row), "page ");
			if (!pg || sscanf(pg, "page %d of %d", &n, &m) != 2 || n >= m)
				break;
			console_key(c, UK_NPAGE);
			console_draw(c, 1);
		}
		if (seen != (1u << ARRAY_LEN(titles)) - 1) {
			fprintf(stderr, "  at %dx%d the help's pages show sections 0x%x of 0xff\n", sizes[z][0], sizes[z][1],
				seen);
			test_failures++;
		}
		console_free(c);
		app->console = NULL;
	}
	app_free(app);
}

TEST(ui_console_drain_key_builds_the_tcl_command_and_asks)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1", 3);
	struct console *c = console_new(app, NULL, 200, 60);

	app->console = c;
	keys(c, "1lld");   /* utilization panel, cursor two nodes right, drain */
	CHECK_INT(c->mode, MODE_COMMAND);   /* no fault says why: the operator does */
	CHECK(shows(c, "drain gpu0003: no fault says why; reason"));
	keys(c, "maint psu-swap\r");
	CHECK_INT(c->mode, MODE_CONFIRM);
	CHECK(c->confirm.cmd && !strcmp(c->confirm.cmd, "node drain {gpu0003} -reason {maint psu-swap}"));
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

/* The worst first in two keys: w lists the allocated GPUs a running job
 * leaves idlest, m the hottest; the first row is the model's extreme, and
 * temperature has its own colour ramp. */
TEST(ui_console_ranks_the_worst_gpus_first)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1,accel=0", 3);
	struct console *c = console_new(app, NULL, 200, 60);
	const struct model *m = &app->model;
	int32_t idlest = -1, hottest = -1;
	char want[64];

	app->console = c;
	construct(app);
	for (int32_t g = 0; g < m->ngpus; g++) {
		int32_t j = m->gpu_job[g];

		if (j >= 0 && m->jobs[j].state == JOB_RUNNING && m->met[MET_UTIL][g] != MET_UNKNOWN &&
		    (idlest < 0 || m->met[MET_UTIL][g] < m->met[MET_UTIL][idlest]))
			idlest = g;
		if (m->met[MET_TEMP][g] != MET_UNKNOWN && (hottest < 0 || m->met[MET_TEMP][g] > m->met[MET_TEMP][hottest]))
			hottest = g;
	}
	CHECK(idlest >= 0 && hottest >= 0);
	keys(c, "1w");
	CHECK(ROW(c, "least utilized first"));
	snprintf(want, sizeof want, "%d%% util", m->met[MET_UTIL][idlest]);
	CHECK(ROW(c, "    1  gpu", want));
	keys(c, "m");
	CHECK(ROW(c, "hottest GPUs first"));
	snprintf(want, sizeof want, "%d C", m->met[MET_TEMP][hottest]);
	CHECK(ROW(c, "    1  gpu", want));
	CHECK(c->theme.s[R_HOT7].fg != c->theme.s[R_HEAT7].fg);   /* a hot ramp of its own */
	keys(c, "w");
	CHECK(ROW(c, "a cell = 2 GPUs"));   /* the map again */
	console_free(c);
	app_free(app);
}

/* The mouse wheel scrolls what the arrow keys move, three rows a notch. */
TEST(ui_console_wheel_moves_the_cursor)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1", 3);
	struct console *c = console_new(app, NULL, 200, 60);
	struct target t0 = TARGET_NONE, t1 = TARGET_NONE, t2 = TARGET_NONE;

	app->console = c;
	keys(c, "5");
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t0));
	keys(c, "jjj");
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t1));
	keys(c, "kkk");
	console_wheel(c, 1);
	console_draw(c, 1);
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t2));
	CHECK(t1.job != t0.job);
	CHECK_INT(t2.job, t1.job);   /* a notch down: as three Downs */
	console_wheel(c, -1);
	console_draw(c, 1);
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t2));
	CHECK_INT(t2.job, t0.job);
	console_free(c);
	app_free(app);
}

/* In the GPU view the arrow keys reach every GPU: Down goes through the 8
 * GPUs of the node, then on to the node below. */
TEST(ui_console_arrows_reach_a_single_gpu)
{
	struct myriad *app = ui_test_start("gpus=2048,seed=1", 3);
	struct console *c = console_new(app, NULL, 200, 60);
	struct target t = TARGET_NONE;

	app->console = c;
	keys(c, "1");
	CHECK(ROW(c, "a cell = 2 GPUs"));
	keys(c, "jjjjjjj");   /* GPUs 1..7 of gpu0001 */
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t));
	CHECK_INT(t.node, 0);
	keys(c, "j");         /* on to the node below */
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t));
	CHECK(t.node != 0);
	keys(c, "k");         /* back to gpu0001's last GPU */
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t));
	CHECK_INT(t.node, 0);
	console_free(c);
	app_free(app);
}

/* The power panel ranks its scalable units: s puts the hungriest first. */
TEST(ui_console_power_sorts_sus_highest_first)
{
	struct myriad *app = ui_test_start("gpus=2048,seed=1", 3);
	struct console *c = console_new(app, NULL, 200, 60);
	const struct model *m = &app->model;
	double w[64] = {0};
	int best = 0;
	char row[2048], want[16];

	app->console = c;
	for (int32_t g = 0; g < m->ngpus; g++)
		if (m->met[MET_POWER][g] != MET_UNKNOWN)
			w[m->nodes[g / m->gpus_per_node].su] += m->met[MET_POWER][g];
	for (int su = 1; su < m->topo.sus; su++)
		if (w[su] > w[best])
			best = su;
	CHECK(best != 0 || w[0] > w[1]);
	keys(c, "3s");
	CHECK(ROW(c, "per scalable unit", "highest first (s)"));
	snprintf(want, sizeof want, " SU%02d ", best + 1);
	CHECK(!strncmp(grid_row_text(&c->grid, row_of(c, "per scalable unit") + 1, row, sizeof row), want, strlen(want)));
	keys(c, "s");
	CHECK(ROW(c, "per scalable unit", "in SU order (s)"));
	CHECK(!strncmp(grid_row_text(&c->grid, row_of(c, "per scalable unit") + 1, row, sizeof row), " SU01 ", 6));
	console_free(c);
	app_free(app);
}

/* A fleet whose nodes do not fit the screen is drawn a cell per SU: every
 * SU visible at 80x24, a fault anywhere colours its SU's cell in the mean
 * and the worst mode, Enter opens the SU's nodes and back returns. */
TEST(ui_console_the_whole_fleet_in_one_view)
{
	struct myriad *app = ui_test_start("gpus=20480,seed=1,accel=0", 2);   /* 80 SUs */
	struct console *c = console_new(app, NULL, 80, 24);
	static const char kmsg[] = "NVRM: Xid (PCI:0000:3a:00): 79, pid=0, GPU has fallen off the bus.\n";
	struct stream st;
	struct target t = TARGET_NONE;
	int32_t node = 62 * 32 + 5;   /* SU63 */

	app->console = c;
	stream_init(&st, &app->bus, &app->model, node, FMT_XID, "test");
	stream_feed(&st, kmsg, sizeof kmsg - 1, app->now);
	stream_free(&st);
	bus_flush(&app->bus);
	keys(c, "1");
	CHECK(ROW(c, "a cell = an SU, its mean (v)"));
	CHECK(ROW(c, "SU1 "));
	CHECK(ROW(c, "SU61 "));   /* 30 SUs a row: all 80 in three rows */
	CHECK_INT(c->grid.c[row_of(c, "SU61 ") * c->grid.w + 5 + 2 * 2].role, R_GPU_FAULT);   /* SU63 */
	keys(c, "v");
	CHECK(ROW(c, "a cell = an SU, its worst (v)"));
	CHECK_INT(c->grid.c[row_of(c, "SU61 ") * c->grid.w + 5 + 2 * 2].role, R_GPU_FAULT);
	keys(c, "jjll");          /* SU1 -> SU61 -> SU63 */
	CHECK(c->ops[c->cur]->target(c->st[c->cur], &t));
	CHECK_INT(t.node, 62 * 32);
	console_key(c, UK_ENTER);    /* its nodes */
	console_draw(c, 1);
	CHECK(ROW(c, "a cell = a node"));
	console_key(c, UK_ESCAPE);   /* back to the fleet */
	console_draw(c, 1);
	CHECK(ROW(c, "a cell = an SU"));
	keys(c, "3");                /* power: 80 SUs do not fit 80x24: pages */
	CHECK(ROW(c, "SUs 1-", "of 80 in this order: PgDn, PgUp"));
	console_key(c, UK_NPAGE);
	console_draw(c, 1);
	CHECK(row_of(c, "SUs 1-") == c->grid.h && ROW(c, "of 80 in this order"));
	console_free(c);
	app_free(app);
}

TEST(ui_console_filter_and_unbound_keys)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1", 3);
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
	struct myriad *app = ui_test_start("", 2);
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
	struct myriad *app = ui_test_start("gpus=256,seed=1", 2);
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
	struct myriad *app = ui_test_start("gpus=256,seed=1", 2);
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
