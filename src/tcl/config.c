/*
 * config.c - the configuration: a Tcl script (-c FILE, or
 * $XDG_CONFIG_HOME/myriad/myriad.tcl) using the same commands as everything
 * else plus sim, host, service, probe, plugin and theme. host, service,
 * probe, hostkey and ssh hand their words to the SSH inventory
 * (inventory_command); the configuration may not act on the cluster. An error names file and line,
 * and the console does not start.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tcl_int.h"
#include "../plugin_int.h"
#include "../ui/ui.h"
#include "../ssh/inventory.h"

/* ---- inventory (src/ssh owns it) ---- */

/* host, service, probe, hostkey, ssh: the words go to the SSH inventory as
 * they are (inventory.h documents their options). */
int tc_inventory_word(struct tcl_call *c)
{
	char *argv[TC_MAX_ARGS + 1], *err = NULL;
	char name[32];

	snprintf(name, sizeof name, "%s", c->cmd->name);
	argv[0] = name;
	for (int i = 0; i < c->argc; i++)
		argv[i + 1] = Tcl_GetString(c->argv[i]);
	if (inventory_command(c->app, c->argc + 1, argv, &err) < 0) {
		tc_err(c, "INPUT", "%s: %s", name, err ? err : "failed");
		free(err);
		return TCL_ERROR;
	}
	return TCL_OK;
}

int tc_inventory_cmd(struct tcl_call *c)
{
	const struct inventory *inv = inventory_peek(c->app);
	Tcl_Obj *d = Tcl_NewDictObj(), *svcs = Tcl_NewListObj(0, NULL), *probes = Tcl_NewDictObj();
	struct nodeset *hosts = nodeset_new();
	char *folded;

	for (int i = 0; inv && i < inv->nhosts; i++)
		nodeset_add(hosts, inv->hosts[i].t.name);
	for (int i = 0; inv && i < inv->nservices; i++) {
		Tcl_Obj *s = Tcl_NewDictObj();
		const struct inv_target *t = &inv->services[i].t;

		tc_dstr(s, "name", inv->services[i].name);
		tc_dstr(s, "host", t->hostname ? t->hostname : t->name);
		tc_dstr(s, "user", t->user);
		tc_dint(s, "port", t->port);
		tc_dstr(s, "command", inv->services[i].command);
		Tcl_ListObjAppendElement(NULL, svcs, s);
	}
	for (int i = 0; inv && i < PROBE_COUNT; i++)
		tc_dstr(probes, inv->probes[i].name, inv->probes[i].command);
	folded = nodeset_fold(hosts);
	tc_dstr(d, "hosts", folded);
	tc_dint(d, "nhosts", inv ? inv->nhosts : 0);
	tc_dput(d, "services", svcs);
	tc_dput(d, "probes", probes);
	tc_dstr(d, "cluster", inv ? inv->cluster : "");
	free(folded);
	nodeset_free(hosts);
	Tcl_SetObjResult(c->interp, d);
	return TCL_OK;
}

/* ---- sim, plugin, theme ---- */

int tc_sim(struct tcl_call *c)
{
	const char *spec = c->argc ? Tcl_GetString(c->argv[0]) : "";
	char *err = NULL;

	if (c->ts->cli_sim)
		return TCL_OK;   /* --sim SPEC on the command line wins */
	if (c->app->nsources)
		return tc_err(c, "USAGE", "sim: a source already runs (the simulator starts from the configuration)");
	if (app_add_source(c->app, "sim", spec, &err) < 0) {
		tc_err(c, "INPUT", "sim: %s", err);
		free(err);
		return TCL_ERROR;
	}
	return TCL_OK;
}

/* plugin load NAME ?-budget MS? ?-commands N? ?-time MS? ?ARG ...?: the
 * options before the plugin's own words are myriad's. */
int tc_plugin(struct tcl_call *c)
{
	const char *name = Tcl_GetString(c->argv[0]);
	Tcl_WideInt cmds = 100000, ms = 1000, budget = 100;
	const char *argv[TC_MAX_ARGS];
	int argc = 0, rc;
	size_t n = strlen(name);
	char *err = NULL;

	for (int i = 1; i < c->argc; i++) {
		const char *w = Tcl_GetString(c->argv[i]);
		Tcl_WideInt *v = !strcmp(w, "-commands") ? &cmds : !strcmp(w, "-time") ? &ms : !strcmp(w, "-budget") ? &budget : NULL;

		if (v && i + 1 < c->argc) {
			if (Tcl_GetWideIntFromObj(NULL, c->argv[++i], v) != TCL_OK || *v < 1 || (v == &cmds && *v < 100))
				return tc_err(c, "INPUT", "%s wants a number%s", w, v == &cmds ? " of at least 100" : "");
			continue;
		}
		argv[argc++] = w;
	}
	if (n > 4 && !strcmp(name + n - 4, ".tcl"))
		return tc_plugin_load(c->ts, c->interp, name, cmds, ms);
	if (!strchr(name, '/') && !strchr(name, '.')) {   /* NAME: NAME.so, else NAME.tcl */
		char *so = plugin_file(name, ".so"), *tcl = so ? NULL : plugin_file(name, ".tcl");

		free(so);
		if (tcl) {
			rc = tc_plugin_load(c->ts, c->interp, tcl, cmds, ms);
			free(tcl);
			return rc;
		}
	}
	if (plugin_load(c->app, name, argc, argv, budget, &err) < 0) {
		rc = tc_err(c, "PLUGIN", "%s", err);
		free(err);
		return rc;
	}
	return TCL_OK;
}

static void add_plugin(void *ctx, const struct plugin_info *i)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	tc_dstr(d, "name", i->name);
	tc_dstr(d, "version", i->version);
	tc_dstr(d, "state", i->state);
	tc_dstr(d, "why", i->why ? i->why : "");
	tc_dstr(d, "path", i->path);
	tc_dstr(d, "summary", i->summary);
	tc_dstr(d, "provides", i->provides);
	Tcl_ListObjAppendElement(NULL, ctx, d);
}

int tc_plugin_list(struct tcl_call *c)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	plugin_each(c->app, add_plugin, l);
	Tcl_SetObjResult(c->interp, l);
	return TCL_OK;
}

int tc_theme(struct tcl_call *c)
{
	char *err = NULL;

	free(c->ts->theme);
	c->ts->theme = xstrdup(Tcl_GetString(c->argv[0]));
	ui_default_theme(c->ts->theme);
	if (c->ts->console_ready && c->app->console && ui_theme(c->app, c->ts->theme, &err) < 0) {
		tc_err(c, "UI", "theme: %s", err ? err : "failed");
		free(err);
		return TCL_ERROR;
	}
	return TCL_OK;
}

/* ---- files ---- */

char *tc_script_path(const char *name)
{
	char exe[PATH_MAX], *slash, *p;
	const char *env = getenv("MYRIAD_SCRIPTS");
	ssize_t n;

	if (env && *env) {
		p = xasprintf("%s/%s", env, name);
		if (!access(p, R_OK))
			return p;
		free(p);
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')))
		*slash = '\0';
	static const char *const rel[] = {"../scripts", "../share/myriad/scripts", "../../scripts"};

	for (unsigned i = 0; i < ARRAY_LEN(rel); i++) {
		p = xasprintf("%s/%s/%s", exe, rel[i], name);
		if (!access(p, R_OK))
			return p;
		free(p);
	}
	return NULL;
}

static char *default_config(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p;

	if (x && *x)
		p = xasprintf("%s/myriad/myriad.tcl", x);
	else if (home && *home)
		p = xasprintf("%s/.config/myriad/myriad.tcl", home);
	else
		return NULL;
	if (!access(p, F_OK))
		return p;
	free(p);
	return NULL;
}

/* "FILE:LINE: message", naming the innermost file of errorInfo. */
static char *located(Tcl_Interp *in, const char *path)
{
	const char *info = Tcl_GetVar(in, "errorInfo", TCL_GLOBAL_ONLY), *f = info ? strstr(info, "(file \"") : NULL;
	const char *msg = Tcl_GetString(Tcl_GetObjResult(in));
	int line = Tcl_GetErrorLine(in);

	if (f) {
		const char *name = f + 7, *q = strstr(name, "\" line ");

		if (q && sscanf(q + 7, "%d", &line) == 1)
			return xasprintf("%.*s:%d: %s", (int)(q - name), name, line, msg);
	}
	return xasprintf("%s:%d: %s", path, line, msg);
}

/* Parses every command of the file without running any: a syntax error
 * anywhere (an unbalanced brace, say) stops the configuration before its
 * first command runs. -1 with *err naming the line of the command. */
static int syntax_check(Tcl_Interp *in, const char *path, char **err)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char buf[4096];
	size_t n;
	const char *p, *end;
	int rc = 0;

	if (!f)
		return 0;   /* Tcl_EvalFile says why */
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&b, buf, n);
	fclose(f);
	for (p = b.s, end = b.s + b.len; p && p < end;) {
		Tcl_Parse parse;

		if (Tcl_ParseCommand(in, p, (int)(end - p), 0, &parse) != TCL_OK) {
			int line = 1;

			for (const char *q = b.s; q < p; q++)
				line += *q == '\n';
			for (;;) {   /* the line of the command, past blank and comment lines */
				for (; p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ';'); p++)
					line += *p == '\n';
				if (p >= end || *p != '#')
					break;
				for (; p < end && *p != '\n'; p++)   /* a comment, continued by a backslash-newline */
					if (*p == '\\' && p + 1 < end && p[1] == '\n')
						line++, p++;
			}
			*err = xasprintf("%s:%d: %s", path, line, Tcl_GetString(Tcl_GetObjResult(in)));
			Tcl_ResetResult(in);
			rc = -1;
			break;
		}
		p = parse.commandStart + parse.commandSize;
		Tcl_FreeParse(&parse);
	}
	sbuf_free(&b);
	return rc;
}

int tcl_load_config(struct myriad *app, const char *path, char **err)
{
	struct tcl_state *ts = app->tcl;
	char saved[sizeof ts->via];
	int rc;

	if (!ts && tcl_init(app, err) < 0)
		return -1;
	ts = app->tcl;
	if (access(path, R_OK)) {
		*err = xasprintf("%s: cannot read the configuration: %s", path, strerror(errno));
		return -1;
	}
	if (syntax_check(ts->interp, path, err) < 0)
		return -1;
	memcpy(saved, ts->via, sizeof saved);
	snprintf(ts->via, sizeof ts->via, "config");
	ts->in_config = 1;
	rc = Tcl_EvalFile(ts->interp, path);
	ts->in_config = 0;
	memcpy(ts->via, saved, sizeof saved);
	if (rc == TCL_ERROR) {
		*err = located(ts->interp, path);
		Tcl_ResetResult(ts->interp);
		return -1;
	}
	Tcl_ResetResult(ts->interp);
	return 0;
}

static int is_batch(const struct cli_opts *o)
{
	if (o->eval || (o->nargs > 0 && !strcmp(o->args[0], "run")))
		return 1;
	for (int i = 1; o->nargs > 0 && !strcmp(o->args[0], "replay") && i < o->nargs; i++)
		if (!strcmp(o->args[i], "--run"))   /* a runbook on a recording */
			return 1;
	return 0;
}

int tcl_configure(struct myriad *app, const struct cli_opts *o, char **config, char **err)
{
	struct tcl_state *ts;

	*config = NULL;
	app->read_only = o->read_only;
	app->dry_run = o->dry_run;
	tc_capture_request(is_batch(o) && o->json);
	if (tcl_init(app, err) < 0)
		return 1;
	ts = app->tcl;
	ts->batch = is_batch(o);
	ts->cli_sim = o->sim != NULL;
	Tcl_SetVar(ts->interp, "::myriad::batch", ts->batch ? "1" : "0", TCL_GLOBAL_ONLY);
	*config = o->config ? xstrdup(o->config) : o->sim ? NULL : default_config();
	if (*config && access(*config, R_OK)) {
		*err = xasprintf("%s: cannot read the configuration: %s", *config, strerror(errno));
		free(*config);
		*config = NULL;
		return 2;
	}
	return 0;
}
