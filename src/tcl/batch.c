/*
 * batch.c - runs with no terminal: `myriad ... -e SCRIPT` and
 * `myriad ... run RUNBOOK.tcl ARGS...`. Output goes to stdout, errors with
 * their errorInfo to stderr; the exit status is 0 ok, 1 script error, 2 could
 * not reach what it needed (an errorCode of MYRIAD NOTAVAIL, NOBACKEND,
 * UNREACHABLE or TIMEOUT, or a runbook that cannot be read). With --json stdout holds
 * one JSON object: ok, status, result, error, errorinfo, output (what the
 * script printed), actions (the audit: each action's decision and result),
 * tick and time.
 *
 * Time: with the simulator the cluster's clock is virtual and Tcl's clock
 * follows it. It moves only while the run waits - `advance`, a synchronous
 * `after MS`, `vwait` - and, with --ticks T, after the script until tick T,
 * with hooks and timers running after every tick. Also here: quit/exit,
 * advance and the test-only inject.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tcl_int.h"
#include "../sim/sim.h"
#include "../sim/sim_test.h"

/* ---- capturing stdout for --json ---- */

static struct sbuf captured;
static int want_capture;

static int cap_close(ClientData cd, Tcl_Interp *in)
{
	(void)cd;
	(void)in;
	return 0;
}

static int cap_input(ClientData cd, char *buf, int size, int *err)
{
	(void)cd;
	(void)buf;
	(void)size;
	*err = 0;
	return 0;
}

static int cap_output(ClientData cd, const char *buf, int size, int *err)
{
	(void)cd;
	*err = 0;
	if (captured.len < (64u << 20))
		sbuf_add(&captured, buf, (size_t)size);
	return size;
}

static void cap_watch(ClientData cd, int mask)
{
	(void)cd;
	(void)mask;
}

static int cap_handle(ClientData cd, int dir, ClientData *h)
{
	(void)cd;
	(void)dir;
	(void)h;
	return TCL_ERROR;
}

static const Tcl_ChannelType capture_type = {
	"capture", TCL_CHANNEL_VERSION_5, cap_close, cap_input, cap_output, NULL, NULL, NULL,
	cap_watch, cap_handle, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

void tc_capture_request(int on)
{
	want_capture = on;
}

/* Called by tcl_init before the interpreter exists. */
void tc_capture_start(struct tcl_state *ts)
{
	Tcl_Channel ch;

	if (!want_capture)
		return;
	ch = Tcl_CreateChannel(&capture_type, "capture", NULL, TCL_WRITABLE);
	Tcl_SetChannelOption(NULL, ch, "-translation", "lf");
	Tcl_SetChannelOption(NULL, ch, "-buffering", "none");
	Tcl_SetChannelOption(NULL, ch, "-encoding", "utf-8");
	Tcl_SetStdChannel(ch, TCL_STDOUT);
	ts->capture = &captured;
}

/* ---- the audit for --json ---- */

static void audit(void *ctx, const struct event *ev)
{
	struct tcl_state *ts = ctx;
	const struct ev_action *a = &ev->u.action;
	char iso[32];

	if (a->phase != ACT_RESULT && a->phase != ACT_DECIDED)
		return;
	fmt_iso(ev->time, iso);
	sbuf_printf(&ts->audit, "%s{\"id\":%u,\"verb\":", ts->naudit++ ? "," : "", a->id);
	sbuf_json_str(&ts->audit, a->verb);
	sbuf_adds(&ts->audit, ",\"target\":");
	sbuf_json_str(&ts->audit, a->target);
	sbuf_adds(&ts->audit, ",\"args\":");
	sbuf_json_str(&ts->audit, a->args);
	sbuf_printf(&ts->audit, ",\"phase\":\"%s\",\"ok\":%s,\"dry_run\":%s,\"time\":\"%s\",\"source\":",
		    a->phase == ACT_RESULT ? "result" : "decided", a->ok ? "true" : "false", a->dry_run ? "true" : "false",
		    iso);
	sbuf_json_str(&ts->audit, ev->source ? ev->source : "");
	sbuf_adds(&ts->audit, ",\"detail\":");
	sbuf_json_str(&ts->audit, a->detail);
	sbuf_addc(&ts->audit, '}');
}

/* ---- running ---- */

static int status_of(struct tcl_state *ts, int rc)
{
	Tcl_Obj *code;
	Tcl_Obj *w[2] = {NULL, NULL};
	const char *kind;
	int n;
	Tcl_Obj **e;

	if (ts->exiting)
		return ts->exit_code;
	if (ts->app->quit)
		return 128 + ts->app->quit;   /* a signal ended the wait (vwait) */
	if (rc != TCL_ERROR)
		return 0;
	code = Tcl_GetVar2Ex(ts->interp, "errorCode", NULL, TCL_GLOBAL_ONLY);
	if (code && Tcl_ListObjGetElements(NULL, code, &n, &e) == TCL_OK && n >= 2) {
		w[0] = e[0];
		w[1] = e[1];
	}
	if (!w[0] || strcmp(Tcl_GetString(w[0]), "MYRIAD"))
		return 1;
	kind = Tcl_GetString(w[1]);
	return !strcmp(kind, "NOTAVAIL") || !strcmp(kind, "NOBACKEND") || !strcmp(kind, "UNREACHABLE") ||
			       !strcmp(kind, "TIMEOUT") ? 2 : 1;
}

static void set_args(struct tcl_state *ts, const char *runbook, int argc, char **argv)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	for (int i = 0; i < argc; i++)
		Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj(argv[i], -1));
	Tcl_SetVar2Ex(ts->interp, "argv", NULL, l, TCL_GLOBAL_ONLY);
	Tcl_SetVar2Ex(ts->interp, "argc", NULL, Tcl_NewIntObj(argc), TCL_GLOBAL_ONLY);
	Tcl_SetVar2Ex(ts->interp, "argv0", NULL, Tcl_NewStringObj(runbook ? runbook : "myriad", -1), TCL_GLOBAL_ONLY);
}

static void print_json(struct tcl_state *ts, int status, int rc)
{
	struct sbuf b = {0};
	const char *info = rc == TCL_ERROR && !ts->exiting ? Tcl_GetVar(ts->interp, "errorInfo", TCL_GLOBAL_ONLY) : NULL;
	char iso[32];

	fmt_iso(ts->app->now, iso);
	sbuf_printf(&b, "{\"ok\":%s,\"status\":%d,\"result\":", status ? "false" : "true", status);
	if (rc == TCL_ERROR)
		sbuf_adds(&b, "null");
	else
		tc_json(Tcl_GetObjResult(ts->interp), &b);
	sbuf_adds(&b, ",\"error\":");
	if (info)
		sbuf_json_str(&b, Tcl_GetString(Tcl_GetObjResult(ts->interp)));
	else
		sbuf_adds(&b, "null");
	sbuf_adds(&b, ",\"errorinfo\":");
	if (info)
		sbuf_json_str(&b, info);
	else
		sbuf_adds(&b, "null");
	sbuf_adds(&b, ",\"output\":");
	sbuf_json_str(&b, captured.s ? captured.s : "");
	sbuf_printf(&b, ",\"actions\":[%s],\"tick\":%lld,\"time\":\"%s\"}", ts->audit.s ? ts->audit.s : "",
		    (long long)ts->app->tick, iso);
	puts(b.s);
	sbuf_free(&b);
}

static void report(struct tcl_state *ts, const struct cli_opts *o, int status, int rc)
{
	Tcl_Channel out = Tcl_GetStdChannel(TCL_STDOUT);
	const char *result = Tcl_GetString(Tcl_GetObjResult(ts->interp));

	if (out)
		Tcl_Flush(out);
	if (rc == TCL_ERROR && !ts->exiting) {
		const char *info = Tcl_GetVar(ts->interp, "errorInfo", TCL_GLOBAL_ONLY);

		fputs("myriad: ", stderr);
		tc_print_safe(stderr, info ? info : result);   /* a job name in an error stays inert */
		fputc('\n', stderr);
	} else if (ts->app->quit) {
		fprintf(stderr, "myriad: %s\n", result);   /* stopped by signal N at tick T */
	}
	if (o->json) {
		print_json(ts, status, rc);
	} else if (rc != TCL_ERROR && *result) {
		tc_print_safe(stdout, result);
		fputc('\n', stdout);
	}
	fflush(stdout);
	(void)status;
}

static int eval_runbook(struct tcl_state *ts, const char *path)
{
	char saved[sizeof ts->via];
	int rc;

	memcpy(saved, ts->via, sizeof saved);
	snprintf(ts->via, sizeof ts->via, "batch");
	rc = Tcl_EvalFile(ts->interp, path);
	memcpy(ts->via, saved, sizeof saved);
	return rc;
}

int tcl_run_batch(struct myriad *app, const struct cli_opts *o, const char *runbook, int argc, char **argv)
{
	struct tcl_state *ts;
	char *err = NULL;
	int rc = TCL_OK, status;

	if (!app->tcl && o->json)
		tc_capture_request(1);   /* replay --run starts Tcl here */
	if (!app->tcl && tcl_init(app, &err) < 0) {
		fprintf(stderr, "myriad: %s\n", err);
		free(err);
		return 2;
	}
	ts = app->tcl;
	ts->batch = 1;
	ts->horizon = o->ticks >= 0 ? app->start + o->ticks * US_PER_SEC : app->now + 3600 * US_PER_SEC;
	tc_virtual_clock(ts, 1);   /* when the cluster's time is virtual (the simulator, a replay) */
	set_args(ts, runbook, argc, argv);
	tc_output_batch(ts);   /* to a terminal: sanitised */
	if (app->read_only || app->dry_run)   /* trying a runbook: it may not touch the machine either */
		tc_sandbox(ts);
	Tcl_SetVar(ts->interp, "::myriad::batch", "1", TCL_GLOBAL_ONLY);
	Tcl_SetVar(ts->interp, "::myriad::json", o->json ? "1" : "0", TCL_GLOBAL_ONLY);
	Tcl_SetVar2Ex(ts->interp, "::myriad::ticks", NULL,   /* the run's end, which advance alone reaches */
		      o->ticks >= 0 ? Tcl_NewWideIntObj((Tcl_WideInt)o->ticks) : Tcl_NewObj(), TCL_GLOBAL_ONLY);
	if (o->json)
		ts->audit_sub = bus_subscribe(&app->bus, BUS_MASK(EV_ACTION), audit, ts);
	if (runbook && access(runbook, R_OK)) {
		fprintf(stderr, "myriad: run %s: cannot read the runbook\n", runbook);
		return 2;
	}
	if (o->eval)
		rc = tc_eval_top(ts, ts->interp, Tcl_NewStringObj(o->eval, -1), "batch");
	if (rc != TCL_ERROR && !ts->exiting && runbook)
		rc = eval_runbook(ts, runbook);
	if (rc != TCL_ERROR && !ts->exiting) {
		Tcl_Obj *keep = Tcl_GetObjResult(ts->interp);

		Tcl_IncrRefCount(keep);
		Tcl_ServiceAll();
		if (o->ticks >= 0 && !ts->exiting)
			rc = tc_advance(ts, ts->interp, app->start + o->ticks * US_PER_SEC);
		if (rc == TCL_OK)
			Tcl_SetObjResult(ts->interp, keep);
		Tcl_DecrRefCount(keep);
	}
	status = status_of(ts, rc);
	report(ts, o, status, rc);
	return status;
}

void tcl_set_var(struct myriad *app, const char *name, const char *value)
{
	if (app->tcl)
		Tcl_SetVar(tc_state(app)->interp, name, value, TCL_GLOBAL_ONLY);
}

int tcl_cli_run(struct myriad *app, const struct cli_opts *o, int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "myriad: usage: myriad [GLOBAL] run RUNBOOK.tcl [ARGS...]\n");
		return 1;
	}
	return tcl_run_batch(app, o, argv[1], argc - 2, argv + 2);
}

/* ---- quit, advance, inject ---- */

/* A signal ended the run while the script waited: it unwinds like exit. */
int tc_stopped(struct tcl_state *ts, Tcl_Interp *in)
{
	ts->exiting = 1;
	ts->exit_code = 128 + ts->app->quit;
	Tcl_SetObjResult(in, Tcl_ObjPrintf("stopped by signal %d at tick %lld", ts->app->quit, (long long)ts->app->tick));
	Tcl_SetErrorCode(in, "MYRIAD", "EXIT", Tcl_GetString(Tcl_ObjPrintf("%d", ts->exit_code)), NULL);
	return TCL_ERROR;
}

int tc_quit(struct tcl_call *c)
{
	int code = 0;

	if (c->argc && Tcl_GetIntFromObj(NULL, c->argv[0], &code) != TCL_OK)
		return tc_err(c, "USAGE", "quit wants a number, not \"%s\"", Tcl_GetString(c->argv[0]));
	if (c->ts->in_config)
		return tc_err(c, "CONFIG", "%s is not allowed in the configuration", c->cmd->name);
	if (!c->ts->batch && clock_is_running(c->app)) {
		loop_stop(c->app->loop, code);
		return TCL_OK;
	}
	c->ts->exiting = 1;
	c->ts->exit_code = code;
	Tcl_SetObjResult(c->interp, Tcl_ObjPrintf("exit %d", code));
	Tcl_SetErrorCode(c->interp, "MYRIAD", "EXIT", Tcl_GetString(Tcl_ObjPrintf("%d", code)), NULL);
	return TCL_ERROR;
}

int tc_advance_cmd(struct tcl_call *c)
{
	int64_t d, until;

	if (c->argc) {
		if (tc_duration(Tcl_GetString(c->argv[0]), &d) < 0)
			return tc_err(c, "INPUT", "bad duration \"%s\": as 30, 10s, 5m, 2h or 1d", Tcl_GetString(c->argv[0]));
		until = c->app->now + d;
	} else {
		until = c->ts->horizon;
	}
	return tc_advance(c->ts, c->interp, until);
}

int tc_inject(struct tcl_call *c)
{
	struct sim *s = app_sim(c->app);
	int32_t node, gpu = 0;
	int code;

	if (!s)
		return tc_err(c, "NOTAVAIL", "%s: needs the embedded simulator", c->cmd->name);
	if (!strcmp(c->cmd->name, "inject xid")) {
		if (tc_gpu(c, c->argv[0], NULL, &node, &gpu) < 0)
			return TCL_ERROR;
		if (Tcl_GetIntFromObj(NULL, c->argv[1], &code) != TCL_OK || code <= 0)
			return tc_err(c, "INPUT", "an XID is a positive number, not \"%s\"", Tcl_GetString(c->argv[1]));
		sim_inject_xid(s, node, gpu, code);
		return TCL_OK;
	}
	if (tc_node(c, c->argv[0], &node) < 0)
		return TCL_ERROR;
	if (c->argc > 2 && (Tcl_GetIntFromObj(NULL, c->argv[2], &gpu) != TCL_OK || gpu < 0 ||
			    gpu >= c->app->model.gpus_per_node))
		return tc_err(c, "INPUT", "bad GPU index \"%s\"", Tcl_GetString(c->argv[2]));
	if (sim_test_fault(s, node, gpu, Tcl_GetString(c->argv[1])) < 0)
		return tc_err(c, "INPUT", "inject fault: unknown kind \"%s\", or %s already has a fault",
			      Tcl_GetString(c->argv[1]), Tcl_GetString(c->argv[0]));
	return TCL_OK;
}
