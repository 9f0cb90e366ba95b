/*
 * cmd_log.c - log query, log mark and replay: the recording, reached only
 * through src/store (nothing here speaks SQL itself). What the store cannot
 * do in this build answers "not available" (exit status 2 in batch).
 */
#include <string.h>
#include "tcl_int.h"
#include "../store/store.h"

static int store_error(struct tcl_call *c, char *err)
{
	int rc = tc_err(c, err && strstr(err, "not available") ? "NOTAVAIL" : "STORE", "%s: %s", c->cmd->name,
			err ? err : "failed");

	free(err);
	return rc;
}

static int add_row(void *ctx, int ncols, char **names, char **values)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	for (int i = 0; i < ncols; i++)
		tc_dstr(d, names[i], values[i] ? values[i] : "");
	Tcl_ListObjAppendElement(NULL, ctx, d);
	return 0;
}

int tc_log_query(struct tcl_call *c)
{
	Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
	char *err = NULL;

	Tcl_IncrRefCount(rows);
	if (store_query(c->app, Tcl_GetString(c->argv[0]), add_row, rows, &err) < 0) {
		Tcl_DecrRefCount(rows);
		return store_error(c, err);
	}
	Tcl_SetObjResult(c->interp, rows);
	Tcl_DecrRefCount(rows);
	return TCL_OK;
}

int tc_log_mark(struct tcl_call *c)
{
	struct event ev;
	char iso[32];

	memset(&ev, 0, sizeof ev);
	ev.type = EV_MARK;
	ev.source = c->ts->via;
	ev.u.mark = (struct ev_mark){tc_user(), Tcl_GetString(c->argv[0])};
	app_emit(c->app, &ev);
	if (!c->app->bus.flushing)
		bus_flush(&c->app->bus);
	fmt_iso(c->app->now, iso);
	Tcl_SetObjResult(c->interp, Tcl_NewStringObj(iso, -1));
	return TCL_OK;
}

static int replay_info(struct tcl_call *c)
{
	struct replay_info ri;
	Tcl_Obj *d;

	if (replay_get_info(c->app, &ri) < 0)
		return tc_err(c, "NOTAVAIL", "replay info: not replaying");
	d = Tcl_NewDictObj();
	tc_dtime(d, "start", ri.start);
	tc_dtime(d, "end", ri.end);
	tc_dtime(d, "now", ri.now);
	tc_ddbl(d, "speed", ri.speed);
	tc_dint(d, "downsampled", ri.downsampled);
	tc_dstr(d, "path", ri.path);
	Tcl_SetObjResult(c->interp, d);
	return TCL_OK;
}

static int replay_seek_cmd(struct tcl_call *c, char **err)
{
	const char *when = Tcl_GetString(c->argv[0]);
	int64_t t;

	if (!strcmp(when, "next") || !strcmp(when, "prev"))
		return replay_seek_fault(c->app, when[0] == 'n' ? 1 : -1, err);
	if (when[0] == '+' || tc_when(c->app, when, &t) < 0) {
		struct replay_info ri;
		int64_t d;

		if (when[0] != '+' || tc_duration(when + 1, &d) < 0) {
			*err = xasprintf("bad time \"%s\": +SECONDS from the start, ISO 8601, next or prev", when);
			return -1;
		}
		t = (replay_get_info(c->app, &ri) == 0 ? ri.start : c->app->start) + d;
	}
	return replay_seek(c->app, t, err);
}

int tc_replay(struct tcl_call *c)
{
	const char *sub = strchr(c->cmd->name, ' ') + 1;
	char *err = NULL;
	int rc = 0;

	if (tc_in_hook(c->ts) || c->app->bus.flushing)
		return tc_err(c, "USAGE", "%s: not inside a hook (the model is rebuilt)", c->cmd->name);
	if (!strcmp(sub, "info"))
		return replay_info(c);
	if (!strcmp(sub, "open")) {
		if (store_can_read(Tcl_GetString(c->argv[0]), &err) < 0) {   /* exit status 2, as myriad replay */
			int r = tc_err(c, "NOTAVAIL", "%s: %s", c->cmd->name, err);

			free(err);
			return r;
		}
		rc = replay_open(c->app, Tcl_GetString(c->argv[0]), &err);
	} else if (!strcmp(sub, "seek")) {
		rc = replay_seek_cmd(c, &err);
	} else if (!strcmp(sub, "step")) {
		Tcl_WideInt n;

		if (Tcl_GetWideIntFromObj(NULL, c->argv[0], &n) != TCL_OK)
			return tc_err(c, "INPUT", "replay step wants a number of ticks");
		rc = replay_step(c->app, n, &err);
	} else if (!strcmp(sub, "play")) {
		double speed = 1;
		struct replay_info ri;

		if (c->argc && (Tcl_GetDoubleFromObj(NULL, c->argv[0], &speed) != TCL_OK || speed < 0))
			return tc_err(c, "INPUT", "replay play wants a speed >= 0");
		if (replay_get_info(c->app, &ri) < 0)
			return tc_err(c, "NOTAVAIL", "replay play: not available (not replaying)");
		replay_play(c->app, speed);
	}
	if (rc < 0)
		return store_error(c, err);
	return TCL_OK;
}
