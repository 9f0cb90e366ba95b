/*
 * safe.c - the safe interpreter for plugin and untrusted scripts: a Tcl safe
 * interpreter (no files, no exec, no sockets) holding only the commands the
 * table marks safe (queries, hooks, notify, log mark, help). Every call into
 * it - loading a plugin, each hook it made - runs with a command budget and,
 * in the console, a time budget; exceeding either is an error (which counts
 * towards disabling the hook).
 */
#include <stdio.h>
#include <string.h>
#include "tcl_int.h"

static int64_t safe_cmds = 100000;

void tc_safe_limits(struct tcl_state *ts, Tcl_Interp *in)
{
	Tcl_WideInt n = 0;

	if (Tcl_EvalEx(in, "info cmdcount", -1, 0) == TCL_OK)
		Tcl_GetWideIntFromObj(NULL, Tcl_GetObjResult(in), &n);
	Tcl_ResetResult(in);
	Tcl_LimitTypeSet(in, TCL_LIMIT_COMMANDS);
	Tcl_LimitSetCommands(in, (int)MIN((Tcl_WideInt)INT32_MAX, n + safe_cmds));
	if (!tc_virtual(ts))   /* cluster time does not move inside a call */
		tc_time_limit(in, ts->plugin_ms);
}

static Tcl_Interp *safe_interp(struct tcl_state *ts)
{
	if (ts->safe)
		return ts->safe;
	ts->safe = Tcl_CreateSlave(ts->interp, "plugins", 1);
	if (!ts->safe)
		return NULL;
	ts->safe_ci.safe = 1;
	tc_register_all(ts, ts->safe, &ts->safe_ci);
	tc_wrap_builtins(ts->safe, &ts->safe_ci);
	return ts->safe;
}

static char *slurp(const char *path, char **err)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char buf[4096];
	size_t n;

	if (!f) {
		*err = xasprintf("plugin %s: cannot read it", path);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0 && b.len < (1u << 22))
		sbuf_add(&b, buf, n);
	fclose(f);
	if (!b.s)
		sbuf_adds(&b, "");
	return b.s;
}

int tc_plugin_load(struct tcl_state *ts, Tcl_Interp *caller, const char *path, int64_t commands, int64_t ms)
{
	Tcl_Interp *in = safe_interp(ts);
	char *err = NULL, *text;
	int rc;

	if (!in)
		return tc_ierr(caller, "SAFE", "plugin %s: cannot create the safe interpreter", path);
	if (!(text = slurp(path, &err))) {
		rc = tc_ierr(caller, "NOTAVAIL", "%s", err);
		free(err);
		return rc;
	}
	safe_cmds = commands;
	ts->plugin_ms = ms;
	tc_safe_limits(ts, in);
	rc = tc_eval_top(ts, in, Tcl_NewStringObj(text, -1), "plugin");
	Tcl_LimitTypeReset(in, TCL_LIMIT_COMMANDS);
	Tcl_LimitTypeReset(in, TCL_LIMIT_TIME);
	free(text);
	if (rc == TCL_ERROR) {
		rc = tc_ierr(caller, "PLUGIN", "plugin %s line %d: %s", path, Tcl_GetErrorLine(in), Tcl_GetString(Tcl_GetObjResult(in)));
		Tcl_ResetResult(in);
		return rc;
	}
	Tcl_ResetResult(in);
	return TCL_OK;
}

void tc_safe_free(struct tcl_state *ts)
{
	if (!ts->safe)
		return;
	tc_hooks_forget_interp(ts, ts->safe);
	Tcl_DeleteInterp(ts->safe);
	ts->safe = NULL;
}
