/*
 * interp.c - the interpreter: creating and freeing it, registering the
 * command table (one Tcl command per head word, dispatching on the
 * subcommand), parsing -option value arguments, errors, and the wrappers
 * that keep Tcl's own `after`, `vwait` and `exit` from blocking or killing
 * the console.
 */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tcl_int.h"
#include "../plugin_int.h"
#include "../ui/ui.h"

struct tc_reg {                    /* one head word registered in one interpreter */
	struct tc_interp *ci;
	int first, n;                  /* its entries: idx[0..n) */
	int idx[32];
};

/* ---- the table ---- */

const struct tcl_cmd *tc_find(const char *name)
{
	for (int i = 0; i < tc_count; i++)
		if (!strcmp(tc_table[i].name, name))
			return &tc_table[i];
	return NULL;
}

static size_t head_len(const char *name)
{
	const char *sp = strchr(name, ' ');

	return sp ? (size_t)(sp - name) : strlen(name);
}

/* Index of option name in spec ("reason= dry-run"), -1 if none; *value set
 * when it takes a value. */
static int opt_index(const char *spec, const char *name, int *value)
{
	size_t n = strlen(name);
	int k = 0;

	for (const char *p = spec; *p; k++) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int takes = len && p[len - 1] == '=';

		if (len - (size_t)takes == n && !strncmp(p, name, n)) {
			if (value)
				*value = takes;
			return k;
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	return -1;
}

Tcl_Obj *tc_opt(struct tcl_call *c, const char *name)
{
	int k = opt_index(c->cmd->opts, name, NULL);

	return k >= 0 && k < TC_MAX_OPTS ? c->opt[k] : NULL;
}

const char *tc_optstr(struct tcl_call *c, const char *name)
{
	Tcl_Obj *o = tc_opt(c, name);

	return o ? Tcl_GetString(o) : NULL;
}

int tc_flag(struct tcl_call *c, const char *name)
{
	return tc_opt(c, name) != NULL;
}

/* ---- errors ---- */

static int verr(Tcl_Interp *in, const char *code, const char *fmt, va_list ap)
{
	struct sbuf b = {0};

	sbuf_vprintf(&b, fmt, ap);
	Tcl_SetObjResult(in, Tcl_NewStringObj(b.s ? b.s : "", -1));
	Tcl_SetErrorCode(in, "MYRIAD", code, NULL);
	sbuf_free(&b);
	return TCL_ERROR;
}

int tc_err(struct tcl_call *c, const char *code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr(c->interp, code, fmt, ap);
	va_end(ap);
	return rc;
}

int tc_ierr(Tcl_Interp *in, const char *code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr(in, code, fmt, ap);
	va_end(ap);
	return rc;
}

int tc_usage(struct tcl_call *c)
{
	return tc_err(c, "USAGE", "wrong # args: should be \"%s%s%s\"", c->cmd->name, *c->cmd->usage ? " " : "",
		      c->cmd->usage);
}

void tc_report(struct tcl_state *ts, const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (ts->batch || !ts->app->console || ui_message(ts->app, b.s) < 0)
		fprintf(stderr, "myriad: %s\n", b.s);
	else
		ui_log(ts->app, "tcl", b.s);   /* the log panel keeps the whole text */
	sbuf_free(&b);
}

const char *tc_user(void)
{
	static char name[64];
	const char *u;
	struct passwd *pw;

	if (name[0])
		return name;
	u = getenv("USER");
	if ((!u || !*u) && (pw = getpwuid(getuid())))
		u = pw->pw_name;
	snprintf(name, sizeof name, "%s", u && *u ? u : "operator");
	return name;
}

/* ---- dispatch ---- */

static const struct tcl_cmd *find_sub(struct tcl_call *c, const struct tc_reg *r, const char *sub)
{
	const struct tcl_cmd *hit = NULL;
	size_t hl = head_len(tc_table[r->first].name), n = strlen(sub);
	int hits = 0;
	struct sbuf b = {0};

	for (int k = 0; k < r->n; k++) {
		const char *s = tc_table[r->idx[k]].name + hl + 1;

		if (!strcmp(s, sub))
			return &tc_table[r->idx[k]];
		if (n && !strncmp(s, sub, n)) {
			hit = &tc_table[r->idx[k]];
			hits++;
		}
	}
	if (hits == 1)
		return hit;
	for (int k = 0; k < r->n; k++)
		sbuf_printf(&b, "%s%s", !k ? "" : k < r->n - 1 ? ", " : r->n > 2 ? ", or " : " or ",
			    tc_table[r->idx[k]].name + hl + 1);
	tc_err(c, "USAGE", "unknown or ambiguous subcommand \"%s\": must be %s", sub, b.s);
	sbuf_free(&b);
	return NULL;
}

static Tcl_Obj *one_obj(void)
{
	static Tcl_Obj *one;

	if (!one) {
		one = Tcl_NewIntObj(1);
		Tcl_IncrRefCount(one);
	}
	return one;
}

static int parse_args(struct tcl_call *c, int objc, Tcl_Obj *const objv[])
{
	int dashdash = 0;

	for (int i = 0; i < objc; i++) {
		const char *s = Tcl_GetString(objv[i]);
		int value = 0, k;

		if (!dashdash && s[0] == '-' && s[1] && !(c->cmd->flags & TC_RAW)) {
			if (!strcmp(s, "--")) {
				dashdash = 1;
				continue;
			}
			if ((k = opt_index(c->cmd->opts, s + 1, &value)) >= 0 && k < TC_MAX_OPTS) {
				if (!value) {
					c->opt[k] = one_obj();
					continue;
				}
				if (i + 1 >= objc)
					return tc_err(c, "USAGE", "option %s needs a value: %s %s", s, c->cmd->name,
						      c->cmd->usage);
				c->opt[k] = objv[++i];
				continue;
			}
		}
		if (c->argc == TC_MAX_ARGS)
			return tc_err(c, "USAGE", "too many arguments to %s", c->cmd->name);
		c->argv[c->argc++] = objv[i];
	}
	if (c->argc < c->cmd->min || (c->cmd->max >= 0 && c->argc > c->cmd->max))
		return tc_usage(c);
	return TCL_OK;
}

static int dispatch(ClientData cd, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	struct tc_reg *r = cd;
	struct tcl_call c;
	int skip = 1;

	memset(&c, 0, sizeof c);
	c.ts = r->ci->ts;
	c.app = c.ts->app;
	c.interp = in;
	c.safe = r->ci->safe;
	c.cmd = &tc_table[r->first];
	if (r->n > 1 || strchr(c.cmd->name, ' ')) {   /* an ensemble */
		if (objc < 2)
			return tc_ierr(in, "USAGE", "wrong # args: should be \"%.*s subcommand ?arg ...?\"",
				       (int)head_len(c.cmd->name), c.cmd->name);
		if (!(c.cmd = find_sub(&c, r, Tcl_GetString(objv[1]))))
			return TCL_ERROR;
		skip = 2;
	}
	if (c.safe && !(c.cmd->flags & TC_SAFE))
		return tc_err(&c, "SAFE", "\"%s\" is not allowed in the safe interpreter", c.cmd->name);
	if (!tc_allowed(r->ci, c.cmd))
		return tc_err(&c, "SAFE", "\"%s\" is not in the plugin's manifest", c.cmd->name);
	if (c.ts->sandboxed && ((c.cmd->flags & TC_TRUSTED) || (c.cmd->section == SEC_CONFIG && !(c.cmd->flags & TC_SAFE))))
		return tc_err(&c, "SANDBOX", "%s: not in a sandboxed run (--read-only, --dry-run, replay --run): "
			      "it reads files or reaches hosts", c.cmd->name);
	if (parse_args(&c, objc - skip, objv + skip) != TCL_OK)
		return TCL_ERROR;
	if (c.cmd->flags & TC_NA)
		return tc_err(&c, "NOTAVAIL", "%s: not available in this build", c.cmd->name);
	return c.cmd->fn(&c);
}

static int dispatch_std(ClientData cd, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	return Tcl_NRCallObjProc(in, dispatch, cd, objc, objv);
}

static void free_regs(ClientData cd, Tcl_Interp *in)
{
	(void)in;
	free(cd);
}

int tc_allowed(const struct tc_interp *ci, const struct tcl_cmd *cmd)
{
	if (!ci->allow)
		return !ci->safe || (cmd->flags & TC_SAFE);
	for (int i = 0; i < ci->nallow; i++) {
		size_t n = strlen(ci->allow[i]);

		if (!strcmp(ci->allow[i], cmd->name) || (!strncmp(ci->allow[i], cmd->name, n) && cmd->name[n] == ' '))
			return 1;
	}
	return !strcmp(cmd->name, "help");   /* help is always there */
}

/* ---- commands that C plugins add (plugin.h, add_command) ---- */

struct pcmd {
	struct myriad *app;
	char *plugin;
	struct plugin_command cmd;
};

static int run_pcmd(ClientData cd, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	struct pcmd *p = cd;
	struct plugin_rec *r = plugin_find(p->app, p->plugin);
	const char *argv[TC_MAX_ARGS];
	char *result = NULL;
	int64_t t0 = mono_us();
	int rc;

	if (r && r->disabled)
		return tc_ierr(in, "PLUGIN", "%s: plugin %s is disabled: %s", p->cmd.name, p->plugin, r->why ? r->why : "");
	if (objc - 1 > TC_MAX_ARGS)
		return tc_ierr(in, "USAGE", "%s: too many arguments", p->cmd.name);
	for (int i = 1; i < objc; i++)
		argv[i - 1] = Tcl_GetString(objv[i]);
	rc = p->cmd.fn(p->cmd.ctx, objc - 1, argv, &result);
	plugin_timed(r, t0);
	if (rc < 0) {
		tc_ierr(in, "PLUGIN", "%s", result ? result : "failed");
	} else {
		Tcl_SetObjResult(in, Tcl_NewStringObj(result ? result : "", -1));
	}
	free(result);
	return rc < 0 ? TCL_ERROR : TCL_OK;
}

static void free_pcmd(ClientData cd)
{
	struct pcmd *p = cd;

	free(p->plugin);
	free(p);
}

static int add_plugin_command(struct myriad *app, const char *plugin, const struct plugin_command *cmd)
{
	struct tcl_state *ts = app->tcl;
	struct pcmd *p;
	Tcl_CmdInfo info;

	if (!ts || !cmd->name || !*cmd->name || strchr(cmd->name, ' ') || Tcl_GetCommandInfo(ts->interp, cmd->name, &info))
		return -1;   /* no interpreter, a bad name, or one taken */
	p = xcalloc(1, sizeof *p);
	p->app = app;
	p->plugin = xstrdup(plugin);
	p->cmd = *cmd;
	Tcl_CreateObjCommand(ts->interp, cmd->name, run_pcmd, p, free_pcmd);
	return 0;
}

int tc_register_all(struct tcl_state *ts, Tcl_Interp *in, struct tc_interp *ci)
{
	struct tc_reg *regs = xcalloc((size_t)tc_count, sizeof *regs);
	int nregs = 0;

	ci->ts = ts;
	ci->interp = in;
	for (int i = 0; i < tc_count; i++) {
		size_t hl = head_len(tc_table[i].name);
		struct tc_reg *r;
		char head[64];
		int seen = 0;

		for (int k = 0; k < i && !seen; k++)   /* the head's first entry registers it */
			seen = head_len(tc_table[k].name) == hl && !strncmp(tc_table[k].name, tc_table[i].name, hl);
		if (seen)
			continue;
		r = &regs[nregs];
		*r = (struct tc_reg){ci, i, 0, {0}};
		int allowed = 0;

		for (int k = i; k < tc_count && r->n < (int)ARRAY_LEN(r->idx); k++)
			if (head_len(tc_table[k].name) == hl && !strncmp(tc_table[k].name, tc_table[i].name, hl)) {
				r->idx[r->n++] = k;
				allowed |= tc_allowed(ci, &tc_table[k]);
			}
		if (!allowed)
			continue;   /* nothing of it is allowed here */
		r->first = r->idx[0];
		snprintf(head, sizeof head, "%.*s", (int)hl, tc_table[i].name);
		Tcl_NRCreateCommand(in, head, dispatch_std, dispatch, r, NULL);
		nregs++;
	}
	/* the array lives as long as the interpreter */
	Tcl_CallWhenDeleted(in, free_regs, regs);
	return 0;
}

/* ---- Tcl's own after, vwait, exit ---- */

/* Tcl's own after or vwait (replaced by myriad's, which call it when the
 * call cannot block the console): nothing of it is left for a script to
 * reach, not even as a hidden command. */
static int call_tcl(const Tcl_CmdInfo *info, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	return info->objProc(info->objClientData, in, objc, objv);
}

static int console_mode(struct tcl_state *ts)
{
	return !ts->batch && clock_is_running(ts->app);
}

static int wrap_after(ClientData cd, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	struct tc_interp *ci = cd;
	struct tcl_state *ts = ci->ts;
	Tcl_WideInt ms;

	if (objc == 2 && Tcl_GetWideIntFromObj(NULL, objv[1], &ms) == TCL_OK) {
		if (console_mode(ts))
			return tc_ierr(in, "BLOCK", "after %lld without a script would block the console: use "
				       "after MS SCRIPT, or after MS [info coroutine]; yield in a coroutine", (long long)ms);
		if (tc_in_hook(ts))
			return tc_ierr(in, "BLOCK", "after %lld inside a hook would stop the cluster's time: use a coroutine",
				       (long long)ms);
		return tc_advance(ts, in, ts->app->now + (ms > 0 ? ms : 0) * 1000);
	}
	if (ts->in_config && objc >= 3 && Tcl_GetWideIntFromObj(NULL, objv[1], &ms) == TCL_OK)
		return tc_ierr(in, "CONFIG", "after %lld SCRIPT in a configuration would run before the cluster's time "
			       "starts: use every DURATION SCRIPT, or on tick SCRIPT", (long long)ms);
	return call_tcl(&ci->tcl_after, in, objc, objv);
}

static int wrap_vwait(ClientData cd, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	struct tc_interp *ci = cd;
	int rc;

	if (console_mode(ci->ts))
		return tc_ierr(in, "BLOCK", "vwait would block the console: wait in a coroutine "
			       "(after MS [info coroutine]; yield) or with on/every");
	if (tc_in_hook(ci->ts))
		return tc_ierr(in, "BLOCK", "vwait inside a hook would stop the cluster's time: use a coroutine");
	if (objc != 2)
		return tc_ierr(in, "USAGE", "wrong # args: should be \"vwait name\"");
	rc = call_tcl(&ci->tcl_vwait, in, objc, objv);
	if (rc == TCL_ERROR && ci->ts->batch && strstr(Tcl_GetString(Tcl_GetObjResult(in)), "would wait forever") && (Tcl_ResetResult(in), 1))
		return tc_ierr(in, "TIME", "vwait %s: the run reached its end (tick %lld; --ticks sets it) or the wait was inside a hook",
			       Tcl_GetString(objv[1]), (long long)ci->ts->app->tick);
	return rc;
}

static int wrap_exit(ClientData cd, Tcl_Interp *in, int objc, Tcl_Obj *const objv[])
{
	static const struct tcl_cmd exit_cmd = {"exit", "?STATUS?", "Tcl's exit: as quit", "", 0, 1, TC_RO, SEC_RUN, tc_quit};
	struct tc_interp *ci = cd;
	struct tcl_call c;

	memset(&c, 0, sizeof c);
	c.ts = ci->ts;
	c.app = ci->ts->app;
	c.interp = in;
	c.cmd = &exit_cmd;
	if (objc > 2)
		return tc_ierr(in, "USAGE", "wrong # args: should be \"exit ?returnCode?\"");
	c.argc = objc - 1;
	if (objc == 2)
		c.argv[0] = objv[1];
	return tc_quit(&c);
}

/* Replaces Tcl's command name by fn (its own kept in *orig, if asked). */
static void wrap(Tcl_Interp *in, struct tc_interp *ci, const char *name, Tcl_ObjCmdProc *fn, Tcl_CmdInfo *orig)
{
	Tcl_CmdInfo info;

	if (!Tcl_GetCommandInfo(in, name, &info) || !info.isNativeObjectProc)
		return;
	if (orig)
		*orig = info;
	Tcl_DeleteCommand(in, name);
	Tcl_CreateObjCommand(in, name, fn, ci, NULL);
}

void tc_wrap_builtins(Tcl_Interp *in, struct tc_interp *ci)
{
	wrap(in, ci, "after", wrap_after, &ci->tcl_after);
	wrap(in, ci, "vwait", wrap_vwait, &ci->tcl_vwait);
	if (!ci->safe)
		wrap(in, ci, "exit", wrap_exit, NULL);
}

/* A sandboxed run (--read-only, --dry-run, replay --run): from here on the
 * main interpreter is a safe one - no exec, open, socket, file, source,
 * load, cd, interp invokehidden, env - and myriad's commands that read
 * files or reach hosts (TC_TRUSTED, the configuration's) are refused. The
 * configuration, read before, was trusted; the runbook tried is not. */
void tc_sandbox(struct tcl_state *ts)
{
	Tcl_Interp *in = ts->interp;
	Tcl_Channel out = Tcl_GetStdChannel(TCL_STDOUT), err = Tcl_GetStdChannel(TCL_STDERR);
	Tcl_Channel inp = Tcl_GetStdChannel(TCL_STDIN);

	if (ts->sandboxed)
		return;
	Tcl_Eval(in, "clock format 0; clock scan 1970-01-01 -format %Y-%m-%d");   /* clock's library, while source works */
	Tcl_ResetResult(in);
	/* kept open while MakeSafe takes them from the interpreter: Tcl closes a
	 * standard channel unregistered with fewer than two other references */
	for (int i = 0; i < 2; i++) {
		if (out)
			Tcl_RegisterChannel(NULL, out);
		if (err)
			Tcl_RegisterChannel(NULL, err);
		if (inp)
			Tcl_RegisterChannel(NULL, inp);   /* the descriptor stays 0, the script loses it */
	}
	Tcl_MakeSafe(in);   /* unsafe commands hidden, std channels gone */
	if (out)
		tc_rebind_channel(in, "stdout", out);
	if (err)
		tc_rebind_channel(in, "stderr", err);
	Tcl_CreateObjCommand(in, "exit", wrap_exit, &ts->main_ci, NULL);   /* MakeSafe hid ours */
	ts->sandboxed = 1;
}

/* ---- the interpreter ---- */

static void set_vars(struct tcl_state *ts)
{
	char *dir = tc_script_path("");

	Tcl_Eval(ts->interp, "namespace eval ::myriad {}");
	Tcl_SetVar(ts->interp, "::myriad::version", MYRIAD_VERSION, TCL_GLOBAL_ONLY);
	Tcl_SetVar(ts->interp, "::myriad::user", tc_user(), TCL_GLOBAL_ONLY);
	Tcl_SetVar(ts->interp, "::myriad::scripts", dir ? dir : "", TCL_GLOBAL_ONLY);
	Tcl_SetVar(ts->interp, "::myriad::batch", "0", TCL_GLOBAL_ONLY);
	Tcl_SetVar(ts->interp, "::myriad::json", "0", TCL_GLOBAL_ONLY);
	Tcl_SetVar(ts->interp, "::myriad::ticks", "", TCL_GLOBAL_ONLY);
	free(dir);
}

int tcl_init(struct myriad *app, char **err)
{
	static int once;
	struct tcl_state *ts;

	if (app->tcl)
		return 0;
	if (!once) {
		tc_notifier_install();
		Tcl_FindExecutable(NULL);
		once = 1;
	}
	ts = xcalloc(1, sizeof *ts);
	ts->app = app;
	tc_capture_start(ts);
	ts->interp = Tcl_CreateInterp();
	if (Tcl_Init(ts->interp) != TCL_OK) {
		*err = xasprintf("Tcl: %s", Tcl_GetString(Tcl_GetObjResult(ts->interp)));
		Tcl_DeleteInterp(ts->interp);
		free(ts);
		return -1;
	}
	app->tcl = ts;
	plugin_command_hook = add_plugin_command;
	app_started(app, PART_TCL, tcl_free);
	Tcl_SetServiceMode(TCL_SERVICE_ALL);
	ts->apply = Tcl_NewStringObj("::apply", -1);
	Tcl_IncrRefCount(ts->apply);
	ts->hook_commands = 1000000;
	ts->hook_errors = 5;
	ts->hook_ms = 1000;
	ts->command_ms = 10000;
	ts->ask_typed = 1;
	ts->plugin_ms = 1000;
	snprintf(ts->via, sizeof ts->via, "tcl");
	tc_register_all(ts, ts->interp, &ts->main_ci);
	tc_wrap_builtins(ts->interp, &ts->main_ci);
	set_vars(ts);
	tc_hooks_init(ts);
	tc_notifier_attach(ts);
	return 0;
}

void tcl_free(struct myriad *app)
{
	struct tcl_state *ts = app->tcl;

	if (!ts)
		return;
	tc_fanout_cancel_all(ts);
	tc_notifier_detach(ts);
	tc_hooks_free(ts);
	tc_safe_free(ts);
	Tcl_DeleteInterp(ts->interp);
	Tcl_DecrRefCount(ts->apply);
	for (int i = 0; i < ts->nbind; i++) {
		free(ts->bind[i].table);
		free(ts->bind[i].key);
		free(ts->bind[i].script);
	}
	free(ts->bind);
	free(ts->theme);
	sbuf_free(&ts->audit);
	if (ts->audit_sub)
		bus_unsubscribe(&app->bus, ts->audit_sub);
	free(ts);
	app->tcl = NULL;
	app_stopped(app, PART_TCL);
}

int tc_eval_top(struct tcl_state *ts, Tcl_Interp *in, Tcl_Obj *script, const char *via)
{
	char saved[sizeof ts->via];
	int rc;

	memcpy(saved, ts->via, sizeof saved);
	snprintf(ts->via, sizeof ts->via, "%s", via);
	Tcl_IncrRefCount(script);
	rc = Tcl_EvalObjEx(in, script, TCL_EVAL_GLOBAL);
	Tcl_DecrRefCount(script);
	memcpy(ts->via, saved, sizeof saved);
	return rc;
}

/* "gpu[0500-0501]" read by Tcl as a command substitution fails with
 * invalid command name "0500-0501": say how to write the nodeset. */
static void bracket_hint(const char *script, const char *msg, struct sbuf *out)
{
	const char *q = msg ? strstr(msg, "invalid command name \"") : NULL, *e, *at, *w, *end;
	char sub[128];

	if (!q)
		return;
	q += strlen("invalid command name \"");
	if (!(e = strchr(q, '"')) || e == q || (size_t)(e - q) + 3 > sizeof sub)
		return;
	snprintf(sub, sizeof sub, "[%.*s]", (int)(e - q), q);
	if (!(at = strstr(script, sub)) || at == script || at[-1] == ' ' || at[-1] == '\t')
		return;   /* a real command substitution, not a name with a range */
	for (w = at; w > script && !strchr(" \t{\"", w[-1]); w--)
		;
	for (end = at + strlen(sub); *end && !strchr(" \t}\";", *end); end++)
		;
	sbuf_printf(out, "brace the nodeset, or Tcl runs [...] as a command: {%.*s}\n", (int)(end - w), w);
}

/* An action's outcome dict as a line: "#7 node drain gpu0001: done (1 node,
 * 8 GPUs) detail". 0 if result is not one. */
static int outcome_line(Tcl_Interp *in, const char *result, struct sbuf *out)
{
	static const char *const keys[] = {"id", "verb", "target", "status", "nodes", "gpus", "detail"};
	Tcl_Obj *d = Tcl_NewStringObj(result, -1), *v[7];
	int size, ok = 1;

	Tcl_IncrRefCount(d);
	if (Tcl_DictObjSize(NULL, d, &size) != TCL_OK)
		ok = 0;
	for (int i = 0; ok && i < 7; i++)
		if (Tcl_DictObjGet(NULL, d, Tcl_NewStringObj(keys[i], -1), &v[i]) != TCL_OK || (!v[i] && i < 4))
			ok = 0;
	if (ok) {
		const char *status = Tcl_GetString(v[3]);

		sbuf_printf(out, "#%s %s %s: %s", Tcl_GetString(v[0]), Tcl_GetString(v[1]), Tcl_GetString(v[2]),
			    !strcmp(status, "confirm") ? "waiting for your answer" : status);
		if (v[4] && v[5] && strcmp(Tcl_GetString(v[4]), "0"))
			sbuf_printf(out, " (%s node%s, %s GPUs)", Tcl_GetString(v[4]),
				    strcmp(Tcl_GetString(v[4]), "1") ? "s" : "", Tcl_GetString(v[5]));
		if (v[6] && *Tcl_GetString(v[6]))
			sbuf_printf(out, " %s", Tcl_GetString(v[6]));
	}
	(void)in;
	Tcl_DecrRefCount(d);
	return ok;
}

int tcl_eval_console(struct myriad *app, const char *script, int typed, struct sbuf *out)
{
	struct tcl_state *ts = app->tcl;
	struct sbuf raw = {0};
	int rc;

	if (!ts)
		return tcl_eval(app, script, out);
	ts->typed = typed;
	rc = tcl_eval(app, script, &raw);
	ts->typed = 0;
	if (rc)   /* the hint first: the status line shows the first line */
		bracket_hint(script, raw.s, out);
	if (rc || !raw.s || !outcome_line(ts->interp, raw.s, out))
		sbuf_adds(out, raw.s ? raw.s : "");
	sbuf_free(&raw);
	return rc;
}

/* The console's `:` line and key scripts: a time budget (guard -command-ms),
 * so that a slip like `while 1 {}` cannot freeze the screen for good. */
int tcl_eval(struct myriad *app, const char *script, struct sbuf *out)
{
	struct tcl_state *ts = app->tcl;
	int rc, limited;
	int64_t saved = 0;

	if (!ts) {
		if (out)
			sbuf_adds(out, "Tcl is not running");
		return 1;
	}
	limited = !ts->batch && !tc_in_hook(ts);
	if (limited)
		saved = tc_time_limit(ts->interp, ts->command_ms);
	rc = tc_eval_top(ts, ts->interp, Tcl_NewStringObj(script, -1), "tcl");
	if (limited) {
		int over = rc == TCL_ERROR && Tcl_LimitExceeded(ts->interp);

		tc_time_limit_end(ts->interp, saved);
		if (over) {
			if (out)
				sbuf_printf(out, "stopped after %lld ms (guard -command-ms)", (long long)ts->command_ms);
			Tcl_ResetResult(ts->interp);
			return 1;
		}
	}
	if (out) {
		const char *info = rc == TCL_ERROR ? Tcl_GetVar(ts->interp, "errorInfo", TCL_GLOBAL_ONLY) : NULL;

		sbuf_adds(out, info ? info : Tcl_GetString(Tcl_GetObjResult(ts->interp)));
	}
	Tcl_ResetResult(ts->interp);
	return rc == TCL_ERROR ? 1 : 0;
}
