/*
 * run.c - console_run(): the console in the one event loop, and the API of
 * ui.h that Tcl (`ui bind`, `ui panel`, `ui theme`, `ui message`, `confirm`)
 * and the rest of myriad call.
 *
 * The loop carries the terminal (fd 0), the clock's tick (clock.h: the
 * console subscribes to it), SIGWINCH/SIGINT/SIGTERM through its self-pipe,
 * and the redraw in its before-sleep hook: what input and events marked
 * dirty is drawn once, after every callback of the iteration has run.
 */
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "ui_int.h"
#include "../stream.h"
#include "../tcl/tcl.h"

static char default_theme[64];

void ui_default_theme(const char *name)
{
	snprintf(default_theme, sizeof default_theme, "%s", name ? name : "");
}

static struct console *console_of(struct myriad *app, char **err)
{
	if (app && app->console)
		return app->console;
	if (err)
		*err = xstrdup("not available without the console");
	return NULL;
}

int ui_bind(struct myriad *app, const char *table, const char *key, const char *script, char **err)
{
	struct console *c = console_of(app, err);

	if (!c)
		return -1;
	if (!table || !*table || !strcmp(table, "root"))
		table = "global";
	if (strcmp(table, "global") && console_panel_index(table) < 0) {
		*err = xasprintf("no key table \"%s\" (global, utilization, topology, power, faults, jobs, node, log)",
				 table);
		return -1;
	}
	if (keymap_bind(&c->keys, table, key, script, err) < 0)
		return -1;
	c->dirty |= DIRTY_STATUS;
	return 0;
}

int ui_panel(struct myriad *app, const char *name, char **err)
{
	struct console *c = console_of(app, err);
	int i;

	if (!c)
		return -1;
	if ((i = console_panel_index(name)) < 0) {
		*err = xasprintf("no panel \"%s\" (utilization, topology, power, faults, jobs, node, log)", name);
		return -1;
	}
	c->cur = i;
	c->dirty = DIRTY_ALL;
	return 0;
}

int ui_theme(struct myriad *app, const char *name, char **err)
{
	struct console *c = console_of(app, err);
	struct theme t;

	if (!c)
		return -1;
	if (theme_load(&t, name, err) < 0)
		return -1;
	if (c->no_colour)
		theme_strip_colour(&t);
	c->theme = t;
	term_theme(c);
	c->dirty = DIRTY_ALL;
	return 0;
}

int ui_message(struct myriad *app, const char *text)
{
	struct console *c = console_of(app, NULL);

	if (!c)
		return -1;
	console_set_message(c, R_MESSAGE, "%s", text);
	console_log(c, R_MESSAGE, "msg", "%s", text);
	return 0;
}

int ui_log(struct myriad *app, const char *kind, const char *text)
{
	struct console *c = console_of(app, NULL);
	const char *p = text, *nl;

	if (!c)
		return -1;
	do {
		nl = strchr(p, '\n');
		console_log(c, R_NORMAL, kind && *kind ? kind : "out", "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
	return 0;
}

int ui_confirm(struct myriad *app, const char *text, void (*done)(void *ctx, int yes), void *ctx, char **err)
{
	struct console *c = console_of(app, err);

	if (!c)
		return -1;
	if (c->mode == MODE_CONFIRM) {
		*err = xstrdup("another confirmation is waiting for an answer");
		return -1;
	}
	if (c->mode == MODE_COMMAND)
		cmdline_close(c);
	c->confirm = (struct confirm){xstrdup(text), NULL, done, ctx};
	c->mode = MODE_CONFIRM;
	c->dirty = DIRTY_ALL;
	return 0;
}

/* ---- the loop ---- */

static void before_sleep(void *ctx)
{
	struct console *c = ctx;

	if (c->quit) {
		loop_stop(c->app->loop, 0);
		return;
	}
	if (c->msg_until && mono_us() > c->msg_until) {
		c->msg_until = 0;
		c->message[0] = '\0';
		c->dirty |= DIRTY_STATUS;
	}
	if (!c->dirty)
		return;
	console_draw(c, 0);
	term_flush(c, c->cursor_x, c->cursor_y);
	if (c->app->start_pending) {   /* the first frame is up: the rest of the start, then the frame again */
		app_finish_start(c->app);
		before_sleep(c);
	}
}

static void on_input(void *ctx, int fd, int events)
{
	(void)fd;
	(void)events;
	term_read(ctx);
}

static void on_winch(void *ctx, int sig)
{
	struct console *c = ctx;
	int w, h;

	(void)sig;
	term_size(&w, &h);
	term_resize(w, h);
	console_resize(c, w, h);
	term_forget();
}

static void console_stop(struct myriad *app)
{
	(void)app;
	term_end();
}

/* Test only: MYRIAD_TEST_SQUEUE=FILE feeds FILE to a slurm-jobs stream after
 * every tick, as if squeue had printed it. tests/console.test uses it to put
 * hostile and CJK job names into the model; the simulator has only ASCII. */
static void test_feed(struct console *c)
{
	const char *path = getenv("MYRIAD_TEST_SQUEUE");
	struct myriad *app = c->app;
	char buf[8192];
	size_t n;
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "r")))
		return;
	if (!c->test_stream) {
		c->test_stream = xcalloc(1, sizeof(struct stream));
		stream_init(c->test_stream, &app->bus, &app->model, -1, FMT_SLURM_JOBS, "test");
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		stream_feed(c->test_stream, buf, n, app->now);
	fclose(f);
	stream_end(c->test_stream, app->now);
	bus_flush(&app->bus);
}

static void after_tick(void *ctx)
{
	struct console *c = ctx;

	test_feed(c);
	tclops_tick(c);
	if (c->ticks_left > 0 && --c->ticks_left == 0)
		console_quit(c);
}

static void start_tcl(struct console *c)
{
	char *err = NULL;

	c->own_tcl = c->app->tcl == NULL;
	if (tcl_init(c->app, &err) == 0) {
		c->tcl_ok = 1;
		return;
	}
	console_log(c, R_WARN, "tcl", "%s: the built-in key bindings apply", err ? err : "Tcl failed");
	free(err);
}

static int pick_theme(struct console *c, const struct cli_opts *o, char **err)
{
	const char *env = getenv("MYRIAD_THEME"), *nc = getenv("NO_COLOR");
	const char *name = o && o->theme ? o->theme : env && *env ? env : default_theme[0] ? default_theme : NULL;

	c->no_colour = nc && *nc;
	if (!name)
		name = c->no_colour ? "mono" : "default";
	if (theme_load(&c->theme, name, err) < 0)
		return -1;
	if (c->no_colour)
		theme_strip_colour(&c->theme);
	return 0;
}

static void attach(struct console *c)
{
	struct loop *l = c->app->loop;
	int w, h;

	term_size(&w, &h);
	console_resize(c, w, h);
	loop_watch(l, 0, LOOP_READ, on_input, c);
	loop_signal(l, SIGWINCH, on_winch, c);   /* SIGINT, SIGTERM: the application stops the loop */
	loop_before_sleep(l, before_sleep, c);
	clock_subscribe(c->app, after_tick, c);
	if (c->ticks_left == 0)
		c->quit = 1;
}

static void detach(struct console *c)
{
	struct myriad *app = c->app;

	loop_unwatch(app->loop, 0, c);
	clock_unsubscribe(app, after_tick, c);
	loop_before_sleep_remove(app->loop, before_sleep, c);
	if (c->test_stream) {
		stream_free(c->test_stream);
		free(c->test_stream);
	}
	if (c->own_tcl && c->tcl_ok)
		tcl_free(app);
}

int console_run(struct myriad *app, const struct cli_opts *o)
{
	struct console *c;
	char *err = NULL;
	int rc;

	setlocale(LC_ALL, "");
	text_utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	c = console_new(app, o, 80, 24);
	if (pick_theme(c, o, &err) < 0) {
		fprintf(stderr, "myriad: %s\n", err);
		free(err);
		console_free(c);
		return 1;
	}
	app->console = c;
	start_tcl(c);
	if (term_init(c, &err) < 0) {
		fprintf(stderr, "myriad: %s\n", err);
		free(err);
		detach(c);
		console_free(c);
		return 2;
	}
	app_started(app, PART_CONSOLE, console_stop);   /* a fatal error gives the terminal back */
	attach(c);
	tclops_console_ready(c);   /* Tcl: scripts/keys.tcl, the configuration's bindings and theme */
	rc = clock_run(app, clock_tick_ms_from_env());
	cmdline_free();
	term_end();
	app_stopped(app, PART_CONSOLE);
	detach(c);
	console_free(c);
	return rc;
}
