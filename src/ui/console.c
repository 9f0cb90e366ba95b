/*
 * console.c - the full-screen console's state: the panels, the bus
 * subscription that marks panels dirty and feeds the log panel (logfeed.c),
 * key dispatch through the key tables, the message line. Its life in the one event loop
 * (terminal input, the clock's ticks, SIGWINCH, the before-sleep redraw) and
 * the API of ui.h are in run.c.
 *
 * Key dispatch is a chain (NeoMutt's dispatchers, tmux's key tables): a modal
 * part (command line, filter, confirmation, help, what-if) gets the key first; then
 * the current panel's table, then the global table. A binding's command is a
 * built-in console command (commands.c) or a Tcl script.
 */
#include <locale.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ui_int.h"
#include "../tcl/tcl.h"

const struct panel_ops *const all_panels[NPANELS] = {
	&panel_utilization, &panel_topology, &panel_power, &panel_faults, &panel_jobs, &panel_node, &panel_log, &panel_job,
};

int console_panel_index(const char *name)
{
	for (int i = 0; i < NPANELS; i++)
		if (!strcmp(all_panels[i]->name, name))
			return i;
	return -1;
}

void console_set_message(struct console *c, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->message, sizeof c->message, fmt, ap);
	va_end(ap);
	c->msg_role = role;
	c->msg_until = mono_us() + (role == R_ERROR ? 10 : 6) * US_PER_SEC;
	c->dirty |= DIRTY_STATUS;
}

/* ---- events from the bus ---- */

static void console_event(void *ctx, const struct event *ev)
{
	struct console *c = ctx;

	c->dirty |= DIRTY_PANEL | DIRTY_HEADER;
	if (ev->type == EV_TICK)
		c->dirty |= DIRTY_STATUS;
	console_log_event(c, ev);
}

/* ---- construction ---- */

struct console *console_new(struct myriad *app, const struct cli_opts *o, int w, int h)
{
	struct console *c = xcalloc(1, sizeof *c);

	c->app = app;
	c->opts = o;
	c->colours = 256;
	theme_builtin(&c->theme);
	keymap_defaults(&c->keys);
	for (int i = 0; i < NPANELS; i++) {
		c->ops[i] = all_panels[i];
		keymap_table(&c->keys, c->ops[i]->name, 1);
	}
	c->log = xcalloc(LOG_CAP, sizeof *c->log);
	c->seen_fault_id = app->model.next_fault_id;
	c->node_sel = 0;
	c->ticks_left = o && o->ticks >= 0 ? o->ticks : -1;
	for (int i = 0; i < NPANELS; i++)
		c->st[i] = c->ops[i]->init(c);
	c->bus_sub = bus_subscribe(&app->bus, BUS_ALL, console_event, c);
	console_resize(c, w, h);
	return c;
}

void console_free(struct console *c)
{
	if (!c)
		return;
	bus_unsubscribe(&c->app->bus, c->bus_sub);
	for (int i = 0; i < NPANELS; i++)
		c->ops[i]->free(c->st[i]);
	for (int i = 0; i < c->log_n; i++)
		free(console_log_at(c, i)->text);
	free(c->log);
	free(c->node_flags);
	free(c->gstate);
	free(c->confirm.text);
	free(c->confirm.cmd);
	whatif_view_close(c);
	keymap_free(&c->keys);
	grid_free(&c->grid);
	if (c->app->console == c)
		c->app->console = NULL;
	free(c);
}

void console_resize(struct console *c, int w, int h)
{
	c->w = w;
	c->h = h;
	grid_resize(&c->grid, w, h);
	for (int i = 0; i < NPANELS; i++)
		if (c->ops[i]->resize)
			c->ops[i]->resize(c->st[i], w, MAX(h - 4, 1));
	c->dirty = DIRTY_ALL;
}

void console_quit(struct console *c)
{
	c->quit = 1;
	if (c->app->loop && c->app->console == c)
		loop_stop(c->app->loop, 0);
}

/* Opening a panel from another (Enter on a node, a job) remembers where it
 * came from; back returns there, with that panel's cursor and filter as they
 * were (panels keep their own state). Switching panels by key does not: back
 * then forgets what lies behind a panel that is no longer the current one. */
void console_open_panel(struct console *c, int panel)
{
	if (panel < 0 || panel == c->cur)
		return;
	if (c->nback == (int)ARRAY_LEN(c->back)) {
		memmove(c->back, c->back + 1, sizeof c->back - sizeof c->back[0]);
		c->nback--;
	}
	c->back[c->nback].from = c->cur;
	c->back[c->nback].to = panel;
	c->nback++;
	c->cur = panel;
	c->dirty = DIRTY_ALL;
}

int console_go_back(struct console *c)
{
	while (c->nback && c->back[c->nback - 1].to != c->cur)
		c->nback--;   /* the operator went elsewhere by key since */
	if (!c->nback)
		return 0;
	c->cur = c->back[--c->nback].from;
	c->dirty = DIRTY_ALL;
	return 1;
}

void console_show_node(struct console *c, int32_t node)
{
	if (node < 0 || node >= c->app->model.nnodes)
		return;
	c->node_sel = node;
	console_open_panel(c, console_panel_index("node"));
}

void console_show_job(struct console *c, uint32_t id)
{
	if (!model_job(&c->app->model, id))
		return;
	c->job_sel = id;
	console_open_panel(c, console_panel_index("job"));
}

/* ---- keys ---- */

static void run_binding(struct console *c, const char *cmd)
{
	struct sbuf out = {0};

	if (ui_cmd_run(c, cmd))
		return;
	if (!c->tcl_ok) {
		console_set_message(c, R_ERROR, "this key runs Tcl, which is not available: %s", cmd);
		return;
	}
	if (tcl_eval(c->app, cmd, &out))
		console_set_message(c, R_ERROR, "%s", out.s ? out.s : "error");
	else if (out.len)
		console_set_message(c, R_MESSAGE, "%s", out.s);
	sbuf_free(&out);
	c->dirty = DIRTY_ALL;
}

static void filter_key(struct console *c, int key)
{
	size_t n = strlen(c->edit);

	if (key == UK_ENTER || key == UK_ESCAPE) {
		if (key == UK_ESCAPE)
			c->edit[0] = '\0';
		c->mode = MODE_NORMAL;
	} else if (key == UK_BSPACE || key == 8 || key == 127) {
		while (n > 0 && ((unsigned char)c->edit[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
		c->edit[n] = '\0';
	} else if (key == 21) {   /* C-u */
		c->edit[0] = '\0';
	} else if (key >= 0x20 && key < UK_BASE && key != 0x7f) {
		char buf[4];
		int len = utf8_encode((uint32_t)key, buf);

		if (n + (size_t)len < sizeof c->edit - 1) {
			memcpy(c->edit + n, buf, (size_t)len);
			c->edit[n + (size_t)len] = '\0';
		}
	}
	snprintf(c->filter[c->cur], sizeof c->filter[c->cur], "%s", c->edit);
	if (c->ops[c->cur]->filter)
		c->ops[c->cur]->filter(c->st[c->cur], c->edit);
	c->dirty = DIRTY_ALL;
}

void console_key(struct console *c, int key)
{
	const struct binding *b;
	char name[32];

	c->dirty |= DIRTY_PANEL | DIRTY_STATUS;
	switch (c->mode) {
	case MODE_COMMAND: cmdline_key(c, key); return;
	case MODE_FILTER: filter_key(c, key); return;
	case MODE_HELP: help_key(c, key); return;
	case MODE_WHATIF: whatif_view_key(c, key); return;
	case MODE_CONFIRM:
		if (key == 'y' || key == 'Y')
			action_confirm_answer(c, 1, 0);
		else if (key == 'e' && c->confirm.cmd)
			action_confirm_answer(c, 0, 1);
		else if (key == 'n' || key == 'N' || key == UK_ESCAPE || key == 'q' || key == 3)
			action_confirm_answer(c, 0, 0);
		return;
	default:
		break;
	}
	if (!(b = keymap_lookup(&c->keys, c->ops[c->cur]->name, key)))
		b = keymap_lookup(&c->keys, "global", key);
	if (b) {
		char *cmd = xstrdup(b->cmd);   /* the binding may be replaced while it runs */

		run_binding(c, cmd);
		free(cmd);
		tclops_selection(c);
		return;
	}
	key_to_name(key, name, sizeof name);
	console_set_message(c, R_ERROR, "%s is not bound (? lists the keys)", name);
}

/* The wheel scrolls what the arrow keys move: three steps a notch. */
void console_wheel(struct console *c, int dir)
{
	if (c->mode == MODE_HELP) {
		help_key(c, dir < 0 ? UK_UP : UK_DOWN);
		return;
	}
	if (c->mode != MODE_NORMAL)
		return;
	for (int i = 0; i < 3; i++)
		ui_cmd_run(c, dir < 0 ? "cursor-up" : "cursor-down");
	tclops_selection(c);
}

void console_mouse(struct console *c, int x, int y)
{
	if (c->mode == MODE_HELP) {
		c->mode = MODE_NORMAL;
	} else if (c->mode == MODE_WHATIF) {
		whatif_view_close(c);
	} else if (c->mode != MODE_NORMAL) {
		return;
	} else if (y == 1) {
		for (int i = 0; i < NPANELS; i++)
			if (x >= c->tab_x[i] && x < c->tab_x[i + 1])
				c->cur = i;
	} else if (y >= 2 && y < c->h - 2 && c->ops[c->cur]->click) {
		c->ops[c->cur]->click(c->st[c->cur], x, y - 2);
	}
	c->dirty = DIRTY_ALL;
	tclops_selection(c);
}
