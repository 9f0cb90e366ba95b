/*
 * tclops.c - the console's side of the interface the Tcl interpreter offers
 * it (tcl.h: tcl_console_ready, tcl_set_selection, tcl_service). Tcl's
 * `ui do ACTION ?ARG?` and `prompt` come back through the ops table below.
 */
#include <stdio.h>
#include <string.h>
#include "ui_int.h"
#include "../tcl/tcl.h"

/* Tcl's action names (`ui do`) to the console's: "command-line" and
 * "refresh", and "select up|down|left|right|top|bottom|pageup|pagedown|open". */
static int glue_action(struct myriad *app, const char *name, const char *arg, char **err)
{
	static const char *const sel[][2] = {
		{"up", "cursor-up"}, {"down", "cursor-down"}, {"left", "cursor-left"}, {"right", "cursor-right"},
		{"top", "top"}, {"bottom", "bottom"}, {"pageup", "page-up"}, {"pagedown", "page-down"},
		{"open", "select"}, {"back", "back"},
	};
	struct console *c = app->console;
	char cmd[160];

	if (!c) {
		*err = xstrdup("not available without the console");
		return -1;
	}
	if (!strcmp(name, "command-line"))
		name = "command-prompt";
	else if (!strcmp(name, "refresh"))
		name = "redraw";
	else if (!strcmp(name, "select") && arg && *arg) {
		for (unsigned i = 0; i < ARRAY_LEN(sel); i++)
			if (!strcmp(arg, sel[i][0]))
				return ui_cmd_run(c, sel[i][1]) ? 0 : -1;
	}
	snprintf(cmd, sizeof cmd, "%s%s%s", name, arg && *arg ? " " : "", arg ? arg : "");
	if (!ui_cmd_exists(cmd)) {
		*err = xasprintf("no console action \"%s\"", cmd);
		return -1;
	}
	ui_cmd_run(c, cmd);
	return 0;
}

static int glue_prompt(struct myriad *app, const char *text, void (*done)(void *ctx, const char *line), void *ctx,
		       char **err)
{
	struct console *c = app->console;

	if (!c) {
		*err = xstrdup("not available without the console");
		return -1;
	}
	cmdline_prompt(c, text, done, ctx);
	return 0;
}

static const struct tcl_console_ops ops = {glue_action, glue_prompt};

int tclops_console_ready(struct console *c)
{
	char *err = NULL;

	if (!c->tcl_ok)
		return 0;
	if (tcl_console_ready(c->app, &ops, &err) < 0) {
		console_log(c, R_ERR, "tcl", "%s", err ? err : "the console's Tcl set-up failed");
		console_set_message(c, R_ERROR, "%s", err ? err : "the console's Tcl set-up failed");
	}
	free(err);
	return 1;
}

void tclops_selection(struct console *c)
{
	const struct model *m = &c->app->model;
	struct target t = TARGET_NONE;
	char buf[32];

	if (!c->tcl_ok)
		return;
	tcl_set_selection(c->app, "panel", c->ops[c->cur]->name);
	if (c->ops[c->cur]->target)
		c->ops[c->cur]->target(c->st[c->cur], &t);
	tcl_set_selection(c->app, "node", t.node >= 0 && t.node < m->nnodes ? m->nodes[t.node].name : "");
	*buf = '\0';
	if (t.job)
		snprintf(buf, sizeof buf, "%u", t.job);
	tcl_set_selection(c->app, "job", buf);
	*buf = '\0';
	if (t.fault)
		snprintf(buf, sizeof buf, "%u", t.fault);
	tcl_set_selection(c->app, "fault", buf);
}

void tclops_tick(struct console *c)
{
	if (c->tcl_ok)
		tcl_service(c->app);
}
