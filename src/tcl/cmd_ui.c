/*
 * cmd_ui.c - the console commands (ui bind/bindings/panel/theme/message/
 * selection/do, confirm, prompt, notify). Bindings made before the
 * console exists (in the configuration) are kept and applied by
 * tcl_console_ready; without a console the others answer "not available
 * without the console". confirm and prompt never block: in a coroutine they
 * yield until the operator answers, else they call SCRIPT later.
 */
#include <stdio.h>
#include <string.h>
#include "tcl_int.h"
#include "../ui/ui.h"

static int ui_error(struct tcl_call *c, char *err)
{
	int rc = tc_err(c, err && strstr(err, "not available") ? "NOTAVAIL" : "UI", "%s: %s", c->cmd->name,
			err ? err : "failed");

	free(err);
	return rc;
}

static int have_console(struct tcl_call *c)
{
	return c->ts->console_ready && c->app->console;
}

static void remember(struct tcl_state *ts, const char *table, const char *key, const char *script)
{
	int i;

	for (i = 0; i < ts->nbind; i++)
		if (!strcmp(ts->bind[i].table, table) && !strcmp(ts->bind[i].key, key))
			break;
	if (i == ts->nbind) {
		if (ts->nbind == ts->cbind) {
			ts->cbind = ts->cbind ? ts->cbind * 2 : 32;
			ts->bind = xrealloc(ts->bind, sizeof *ts->bind * (size_t)ts->cbind);
		}
		ts->bind[ts->nbind++] = (struct binding){xstrdup(table), xstrdup(key), NULL};
	}
	free(ts->bind[i].script);
	ts->bind[i].script = xstrdup(script);
}

int tc_ui_bind(struct tcl_call *c)
{
	const char *table = tc_optstr(c, "table"), *key = Tcl_GetString(c->argv[0]);
	char *err = NULL;

	if (!table)
		table = "root";
	if (!*key)
		return tc_err(c, "INPUT", "ui bind: an empty key");
	if (have_console(c) && ui_bind(c->app, table, key, Tcl_GetString(c->argv[1]), &err) < 0)
		return ui_error(c, err);
	remember(c->ts, table, key, Tcl_GetString(c->argv[1]));
	return TCL_OK;
}

int tc_ui_bindings(struct tcl_call *c)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	for (int i = 0; i < c->ts->nbind; i++) {
		Tcl_Obj *b[3] = {Tcl_NewStringObj(c->ts->bind[i].table, -1), Tcl_NewStringObj(c->ts->bind[i].key, -1),
				 Tcl_NewStringObj(c->ts->bind[i].script, -1)};

		Tcl_ListObjAppendElement(NULL, l, Tcl_NewListObj(3, b));
	}
	Tcl_SetObjResult(c->interp, l);
	return TCL_OK;
}

int tc_ui_panel(struct tcl_call *c)
{
	char *err = NULL;

	if (ui_panel(c->app, Tcl_GetString(c->argv[0]), &err) < 0)
		return ui_error(c, err);
	return TCL_OK;
}

int tc_ui_theme(struct tcl_call *c)
{
	char *err = NULL;

	if (ui_theme(c->app, Tcl_GetString(c->argv[0]), &err) < 0)
		return ui_error(c, err);
	return TCL_OK;
}

int tc_ui_message(struct tcl_call *c)
{
	if (ui_message(c->app, Tcl_GetString(c->argv[0])) < 0)
		return ui_error(c, xstrdup("not available without the console"));
	return TCL_OK;
}

int tc_ui_confirm(struct tcl_call *c)
{
	int on;

	if (c->argc == 1) {
		if (Tcl_GetBooleanFromObj(NULL, c->argv[0], &on) != TCL_OK)
			return tc_err(c, "INPUT", "ui confirm: on or off, not \"%s\"", Tcl_GetString(c->argv[0]));
		c->ts->ask_typed = on;
	}
	Tcl_SetObjResult(c->interp, Tcl_NewIntObj(c->ts->ask_typed));
	return TCL_OK;
}

int tc_ui_selection(struct tcl_call *c)
{
	Tcl_Obj *sel = Tcl_GetVar2Ex(c->ts->interp, "::myriad::selection", NULL, TCL_GLOBAL_ONLY), *v = NULL;

	if (c->argc == 0) {
		Tcl_SetObjResult(c->interp, sel ? sel : Tcl_NewDictObj());
		return TCL_OK;
	}
	if (sel && Tcl_DictObjGet(NULL, sel, c->argv[0], &v) != TCL_OK)
		v = NULL;
	Tcl_SetObjResult(c->interp, v ? v : Tcl_NewObj());
	return TCL_OK;
}

void tcl_set_selection(struct myriad *app, const char *what, const char *value)
{
	struct tcl_state *ts = app->tcl;
	Tcl_Obj *sel;

	if (!ts)
		return;
	sel = Tcl_GetVar2Ex(ts->interp, "::myriad::selection", NULL, TCL_GLOBAL_ONLY);
	sel = sel ? Tcl_DuplicateObj(sel) : Tcl_NewDictObj();
	if (value && *value)
		tc_dstr(sel, what, value);
	else
		Tcl_DictObjRemove(NULL, sel, Tcl_NewStringObj(what, -1));
	Tcl_SetVar2Ex(ts->interp, "::myriad::selection", NULL, sel, TCL_GLOBAL_ONLY);
}

int tc_ui_do(struct tcl_call *c)
{
	char *err = NULL;

	if (!have_console(c) || !c->ts->console.action)
		return ui_error(c, xstrdup("not available without the console"));
	if (c->ts->console.action(c->app, Tcl_GetString(c->argv[0]), c->argc > 1 ? Tcl_GetString(c->argv[1]) : "",
				  &err) < 0)
		return ui_error(c, err);
	return TCL_OK;
}

/* ---- asking the operator ---- */

struct answer {
	struct tcl_state *ts;
	Tcl_Interp *interp;
	Tcl_Obj *then;                 /* SCRIPT, or the coroutine to resume */
};

static void answered(struct answer *a, Tcl_Obj *value)
{
	Tcl_Obj *cmd = Tcl_DuplicateObj(a->then);
	int rc;

	Tcl_IncrRefCount(cmd);
	Tcl_ListObjAppendElement(NULL, cmd, value);
	rc = tc_eval_top(a->ts, a->interp, cmd, "tcl");
	if (rc == TCL_ERROR)
		tc_report(a->ts, "after an answer: %s", Tcl_GetString(Tcl_GetObjResult(a->interp)));
	Tcl_ResetResult(a->interp);
	Tcl_DecrRefCount(cmd);
	Tcl_DecrRefCount(a->then);
	Tcl_Release(a->interp);
	free(a);
}

static void on_yes_no(void *ctx, int yes)
{
	answered(ctx, Tcl_NewIntObj(yes != 0));
}

static void on_line(void *ctx, const char *line)
{
	answered(ctx, line ? Tcl_NewStringObj(line, -1) : Tcl_NewObj());
}

/* SCRIPT, or the current coroutine with yield scheduled; NULL if neither. */
static struct answer *answer_for(struct tcl_call *c)
{
	struct answer *a;
	Tcl_Obj *then;

	if (c->argc > 1) {
		then = c->argv[1];
	} else {
		if (Tcl_EvalEx(c->interp, "::info coroutine", -1, 0) != TCL_OK || !*Tcl_GetString(Tcl_GetObjResult(c->interp))) {
			tc_err(c, "USAGE", "%s without SCRIPT must run in a coroutine", c->cmd->name);
			return NULL;
		}
		then = Tcl_NewListObj(1, (Tcl_Obj *[]){Tcl_GetObjResult(c->interp)});
	}
	a = xcalloc(1, sizeof *a);
	a->ts = c->ts;
	a->interp = c->interp;
	a->then = then;
	Tcl_IncrRefCount(then);
	Tcl_Preserve(c->interp);
	return a;
}

static int asked(struct tcl_call *c, struct answer *a, int rc, char *err)
{
	if (rc < 0) {
		Tcl_DecrRefCount(a->then);
		Tcl_Release(a->interp);
		free(a);
		return ui_error(c, err);
	}
	if (c->argc > 1)
		return TCL_OK;
	return Tcl_NREvalObj(c->interp, Tcl_NewStringObj("::yield", -1), 0);
}

int tc_confirm(struct tcl_call *c)
{
	struct answer *a;
	char *err = NULL;
	int rc;

	if (!have_console(c))
		return ui_error(c, xstrdup("not available without the console (in batch, acting commands take -force -reason)"));
	if (!(a = answer_for(c)))
		return TCL_ERROR;
	rc = ui_confirm(c->app, Tcl_GetString(c->argv[0]), on_yes_no, a, &err);
	return asked(c, a, rc, err);
}

int tc_prompt(struct tcl_call *c)
{
	struct answer *a;
	char *err = NULL;
	int rc;

	if (!have_console(c) || !c->ts->console.prompt)
		return ui_error(c, xstrdup("not available without the console"));
	if (!(a = answer_for(c)))
		return TCL_ERROR;
	rc = c->ts->console.prompt(c->app, Tcl_GetString(c->argv[0]), on_line, a, &err);
	return asked(c, a, rc, err);
}

int tc_notify(struct tcl_call *c)
{
	const char *level = tc_optstr(c, "level"), *text = Tcl_GetString(c->argv[0]);
	Tcl_Channel out;
	char iso[32];

	if (!level)
		level = "info";
	if (strcmp(level, "info") && strcmp(level, "warn") && strcmp(level, "error"))
		return tc_err(c, "INPUT", "bad level \"%s\": info, warn or error", level);
	if (!c->ts->batch && c->app->console) {
		char *msg = xasprintf("%s%s%s", strcmp(level, "info") ? level : "", strcmp(level, "info") ? ": " : "", text);

		ui_message(c->app, msg);
		ui_log(c->app, "runbook", msg);
		free(msg);
		return TCL_OK;
	}
	fmt_iso(tc_now_us(c->app), iso);
	if (!(out = Tcl_GetStdChannel(TCL_STDOUT)))
		return TCL_OK;
	Tcl_WriteObj(out, Tcl_ObjPrintf("%s %s: %s\n", iso, level, text));
	return TCL_OK;
}

/* ---- the console starts ---- */

static int apply_saved(struct tcl_state *ts, struct binding *saved, int n, char **err)
{
	for (int i = 0; i < n; i++) {
		if (ui_bind(ts->app, saved[i].table, saved[i].key, saved[i].script, err) < 0)
			return -1;
		remember(ts, saved[i].table, saved[i].key, saved[i].script);
	}
	return 0;
}

int tcl_console_ready(struct myriad *app, const struct tcl_console_ops *ops, char **err)
{
	struct tcl_state *ts = app->tcl;
	struct binding *saved;
	char *keys;
	int nsaved, rc = 0;

	if (!ts && tcl_init(app, err) < 0)
		return -1;
	ts = app->tcl;
	if (ops)
		ts->console = *ops;
	ts->console_ready = 1;
	tc_output_console(ts);   /* what scripts print goes to the log panel, sanitised */
	tc_notifier_attach(ts);
	saved = ts->bind;   /* the configuration's, applied after the defaults */
	nsaved = ts->nbind;
	ts->bind = NULL;
	ts->nbind = ts->cbind = 0;
	if ((keys = tc_script_path("keys.tcl"))) {
		Tcl_Obj *cmd[2] = {Tcl_NewStringObj("source", -1), Tcl_NewStringObj(keys, -1)};

		if (tc_eval_top(ts, ts->interp, Tcl_NewListObj(2, cmd), "keys") != TCL_OK) {
			*err = xasprintf("%s: %s", keys, Tcl_GetString(Tcl_GetObjResult(ts->interp)));
			rc = -1;
		}
		Tcl_ResetResult(ts->interp);
		free(keys);
	}
	if (!rc)
		rc = apply_saved(ts, saved, nsaved, err);
	for (int i = 0; i < nsaved; i++) {
		free(saved[i].table);
		free(saved[i].key);
		free(saved[i].script);
	}
	free(saved);
	if (!rc && ts->theme && ui_theme(app, ts->theme, err) < 0)
		rc = -1;
	return rc;
}
