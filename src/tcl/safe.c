/*
 * safe.c - Tcl plugins: each runs in a safe interpreter of its own (no
 * files, no exec, no sockets) holding only the commands its manifest asks
 * for, among those the table marks safe (queries, hooks, notify, log mark,
 * help): a Tcl plugin can watch and tell, never act. The file's first
 * command is its manifest:
 *
 *     manifest name NAME version V ?summary TEXT? commands {nodes {fault list} on notify}
 *
 * (without one the plugin gets every safe command, and the plugin list
 * says so). Every call into a plugin - loading it, each hook it made - runs
 * with a command budget and, in the console, a time budget; exceeding
 * either is an error (which counts towards disabling the hook).
 */
#include <stdio.h>
#include <string.h>
#include "tcl_int.h"
#include "../plugin_int.h"

struct tplugin {                   /* a Tcl plugin: its interpreter and limits */
	struct tc_interp ci;
	char *name;
	int64_t commands, ms;
	struct tplugin *next;
};

static struct tplugin *tplugin_of(struct tcl_state *ts, Tcl_Interp *in)
{
	for (struct tplugin *p = ts->tplugins; p; p = p->next)
		if (p->ci.interp == in)
			return p;
	return NULL;
}

int64_t tc_safe_limits(struct tcl_state *ts, Tcl_Interp *in)
{
	struct tplugin *p = tplugin_of(ts, in);
	Tcl_WideInt n = 0;

	if (Tcl_EvalEx(in, "info cmdcount", -1, 0) == TCL_OK)
		Tcl_GetWideIntFromObj(NULL, Tcl_GetObjResult(in), &n);
	Tcl_ResetResult(in);
	Tcl_LimitTypeSet(in, TCL_LIMIT_COMMANDS);
	Tcl_LimitSetCommands(in, (int)MIN((Tcl_WideInt)INT32_MAX, n + (p ? p->commands : 100000)));
	return tc_time_limit(in, p ? p->ms : ts->plugin_ms);
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

/* ---- the manifest ---- */

struct manifest {
	Tcl_Obj *words;                /* the manifest command as a list, or NULL */
	const char *name, *version, *summary;
	Tcl_Obj *commands;
	const char *rest;              /* the script after the manifest */
};

/* The first command of text, if it is `manifest KEY VALUE ...`. */
static int read_manifest(Tcl_Interp *in, const char *text, struct manifest *m, char **err)
{
	Tcl_Parse parse;
	Tcl_Obj **w;
	int n;

	memset(m, 0, sizeof *m);
	m->rest = text;
	if (Tcl_ParseCommand(NULL, text, -1, 0, &parse) != TCL_OK)
		return 0;   /* the whole script reports its own syntax error */
	if (parse.numWords < 1 || parse.tokenPtr[0].type != TCL_TOKEN_SIMPLE_WORD ||
	    parse.tokenPtr[1].size != 8 || strncmp(parse.tokenPtr[1].start, "manifest", 8)) {
		Tcl_FreeParse(&parse);
		return 0;
	}
	m->words = Tcl_NewStringObj(parse.commandStart, parse.commandSize);
	m->rest = parse.commandStart + parse.commandSize;
	Tcl_FreeParse(&parse);
	Tcl_IncrRefCount(m->words);
	if (Tcl_ListObjGetElements(in, m->words, &n, &w) != TCL_OK || n % 2 == 0) {
		*err = xstrdup("manifest wants KEY VALUE pairs: name, version, summary, commands");
		return -1;
	}
	for (int i = 1; i + 1 < n; i += 2) {
		const char *k = Tcl_GetString(w[i]);

		if (!strcmp(k, "name"))
			m->name = Tcl_GetString(w[i + 1]);
		else if (!strcmp(k, "version"))
			m->version = Tcl_GetString(w[i + 1]);
		else if (!strcmp(k, "summary"))
			m->summary = Tcl_GetString(w[i + 1]);
		else if (!strcmp(k, "commands"))
			m->commands = w[i + 1];
		else {
			*err = xasprintf("manifest: unknown key \"%s\" (name, version, summary, commands)", k);
			return -1;
		}
	}
	return 1;
}

/* The manifest's commands: each must exist and be allowed in a plugin. */
static int allow_list(struct tplugin *p, Tcl_Obj *commands, char **err)
{
	Tcl_Obj **w;
	int n;

	if (!commands)
		return 0;
	if (Tcl_ListObjGetElements(NULL, commands, &n, &w) != TCL_OK) {
		*err = xstrdup("manifest: commands is not a list");
		return -1;
	}
	p->ci.allow = xcalloc((size_t)n + 1, sizeof *p->ci.allow);
	for (int i = 0; i < n; i++) {
		const char *c = Tcl_GetString(w[i]);
		int known = 0, safe = 0;

		for (int k = 0; k < tc_count; k++)
			if (!strcmp(tc_table[k].name, c) ||
			    (!strncmp(tc_table[k].name, c, strlen(c)) && tc_table[k].name[strlen(c)] == ' ')) {
				known = 1;
				safe |= (tc_table[k].flags & TC_SAFE) != 0;
			}
		if (!known || !safe) {
			*err = xasprintf("manifest: %s \"%s\"%s", known ? "a plugin may not have" : "no command", c,
					 known ? " (Tcl plugins may watch and tell, not act)" : "");
			return -1;
		}
		p->ci.allow[p->ci.nallow++] = xstrdup(c);
	}
	return 0;
}

/* ---- loading ---- */

static void tplugin_free(struct tplugin *p)
{
	for (int i = 0; i < p->ci.nallow; i++)
		free(p->ci.allow[i]);
	free(p->ci.allow);
	free(p->name);
	free(p);
}

static struct tplugin *tplugin_new(struct tcl_state *ts, const char *name, int64_t commands, int64_t ms)
{
	struct tplugin *p = xcalloc(1, sizeof *p);
	char *iname = xasprintf("plugin_%s", name);

	p->name = xstrdup(name);
	p->commands = commands;
	p->ms = ms;
	p->ci.ts = ts;
	p->ci.safe = 1;
	p->ci.interp = Tcl_CreateSlave(ts->interp, iname, 1);
	free(iname);
	if (!p->ci.interp) {
		tplugin_free(p);
		return NULL;
	}
	p->next = ts->tplugins;
	ts->tplugins = p;
	return p;
}

static void tplugin_drop(struct tcl_state *ts, struct tplugin *p)
{
	for (struct tplugin **pp = &ts->tplugins; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	tc_hooks_forget_interp(ts, p->ci.interp);
	Tcl_DeleteInterp(p->ci.interp);
	tplugin_free(p);
}

static int load_text(struct tcl_state *ts, struct tplugin *p, const char *path, const char *text, char **err)
{
	Tcl_Interp *in = p->ci.interp;
	struct manifest m;
	int rc = read_manifest(in, text, &m, err);

	if (rc >= 0 && allow_list(p, m.commands, err) < 0)
		rc = -1;
	if (rc >= 0) {
		tc_register_all(ts, in, &p->ci);
		tc_wrap_builtins(in, &p->ci);
		int64_t saved = tc_safe_limits(ts, in);

		if (tc_eval_top(ts, in, Tcl_NewStringObj(m.rest, -1), "plugin") == TCL_ERROR) {
			*err = xasprintf("plugin %s line %d: %s", path, Tcl_GetErrorLine(in),
					 Tcl_GetString(Tcl_GetObjResult(in)));
			rc = -1;
		}
		Tcl_LimitTypeReset(in, TCL_LIMIT_COMMANDS);
		tc_time_limit_end(in, saved);
		Tcl_ResetResult(in);
	}
	if (rc >= 0)
		plugin_note(ts->app, p->name, m.version, m.summary, path, "loaded",
			    m.words ? NULL : "no manifest: every command a plugin may have");
	if (m.words)
		Tcl_DecrRefCount(m.words);
	return rc < 0 ? -1 : 0;
}

int tc_plugin_load(struct tcl_state *ts, Tcl_Interp *caller, const char *path, int64_t commands, int64_t ms)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char name[64], *err = NULL, *text;
	struct tplugin *p;
	int rc;

	snprintf(name, sizeof name, "%.*s", (int)strcspn(base, "."), base);
	for (char *c = name; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *c))
			*c = '_';
	if (!(text = slurp(path, &err))) {
		rc = tc_ierr(caller, "NOTAVAIL", "%s", err);
		free(err);
		return rc;
	}
	if (!(p = tplugin_new(ts, name, commands, ms))) {
		free(text);
		return tc_ierr(caller, "SAFE", "plugin %s: cannot create its safe interpreter (loaded already?)", path);
	}
	if (load_text(ts, p, path, text, &err) < 0) {
		plugin_note(ts->app, name, "", "", path, "failed", err);
		tplugin_drop(ts, p);
		rc = tc_ierr(caller, "PLUGIN", "%s", err);
		free(err);
		free(text);
		return rc;
	}
	free(text);
	return TCL_OK;
}

void tc_safe_free(struct tcl_state *ts)
{
	while (ts->tplugins)
		tplugin_drop(ts, ts->tplugins);
}

void tc_safe_rebind(struct tcl_state *ts, const char *name, Tcl_Channel ch)
{
	for (struct tplugin *p = ts->tplugins; p; p = p->next)
		tc_rebind_channel(p->ci.interp, name, ch);
}
