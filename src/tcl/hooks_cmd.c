/*
 * hooks_cmd.c - the commands on, off, every and hooks, and the FILTER
 * language of `on` (see man/myriad-tcl.7, HOOKS):
 *
 *   on fault {xid 79 48}        words: fault kinds (xid = from an XID line,
 *                               ecc nvlink ib thermal cooling power parse conn
 *                               host, any) and codes (XID numbers for xid)
 *   on node {drain down}        words: node states, as `nodes -state`
 *   on job {COMPLETED FAILED end}  words: job states and new, change, end
 *   on conn {unreachable}       words: connection states
 *   options in any FILTER: -node NODESET, and -severity warn|error|critical
 *   and -event open|ack|close|any (fault), -user U (job), -host H (conn).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "hooks.h"

static int filter_option(struct tcl_call *c, struct hook *h, const char *opt, Tcl_Obj *val)
{
	const char *v = Tcl_GetString(val);

	if (!strcmp(opt, "-node")) {
		if (!(h->nodes = tc_nodeset(c, val)))
			return -1;
	} else if (!strcmp(opt, "-severity") && h->kind == HK_FAULT) {
		for (h->min_sev = 0; h->min_sev < 4 && strcasecmp(severity_name(h->min_sev), v); h->min_sev++)
			;
		if (h->min_sev == 4)
			return tc_err(c, "INPUT", "bad severity \"%s\": info, warn, error or critical", v), -1;
	} else if (!strcmp(opt, "-event") && h->kind == HK_FAULT) {
		if (strcmp(v, "open") && strcmp(v, "ack") && strcmp(v, "close") && strcmp(v, "any"))
			return tc_err(c, "INPUT", "bad event \"%s\": open, ack, close or any", v), -1;
		free(h->event);
		h->event = xstrdup(v);
	} else if (!strcmp(opt, "-user") && h->kind == HK_JOB) {
		h->user = xstrdup(v);
	} else if (!strcmp(opt, "-host") && h->kind == HK_CONN) {
		h->host = xstrdup(v);
	} else {
		return tc_err(c, "INPUT", "bad filter option \"%s\" for on %s", opt, tc_hook_kinds[h->kind]), -1;
	}
	return 0;
}

static int valid_word(const struct hook *h, const char *w)
{
	struct node dummy = {0};

	switch (h->kind) {
	case HK_NODE:
		return model_state_match(&dummy, w) >= 0;
	case HK_JOB:
		return job_state_from_name(w) >= 0 || !strcasecmp(w, "new") || !strcasecmp(w, "change") ||
		       !strcasecmp(w, "end");
	case HK_CONN:
		for (int s = 0; s < CONN_STATE_COUNT; s++)
			if (!strcasecmp(w, conn_state_name(s)))
				return 1;
		return 0;
	case HK_EVENT:
		return ev_type_from_name(w) > 0;
	default:
		return 0;
	}
}

static int fault_word(struct tcl_call *c, struct hook *h, Tcl_Obj *o)
{
	const char *w = Tcl_GetString(o);
	Tcl_WideInt code;
	int k;

	if (Tcl_GetWideIntFromObj(NULL, o, &code) == TCL_OK) {
		if (h->ncodes == (int)ARRAY_LEN(h->codes))
			return tc_err(c, "INPUT", "too many codes in one filter"), -1;
		h->codes[h->ncodes++] = (int32_t)code;
	} else if (!strcmp(w, "xid")) {
		h->kinds |= XID_BIT;
	} else if (!strcmp(w, "any") || !strcmp(w, "*")) {
		h->kinds = 0;
	} else if ((k = fault_kind_from_name(w)) >= 0) {
		h->kinds |= 1u << k;
	} else {
		return tc_err(c, "INPUT", "bad fault filter word \"%s\": a kind (xid ecc nvlink ib thermal cooling "
			      "power parse conn host any) or a code", w), -1;
	}
	return 0;
}

int tc_hook_parse_filter(struct tcl_call *c, struct hook *h, Tcl_Obj *filter)
{
	Tcl_Obj **w;
	int n;

	if (Tcl_ListObjGetElements(c->interp, filter, &n, &w) != TCL_OK)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *s = Tcl_GetString(w[i]);

		if (s[0] == '-' && s[1] && !(h->kind == HK_FAULT && Tcl_GetWideIntFromObj(NULL, w[i], &(Tcl_WideInt){0}) == TCL_OK)) {
			if (i + 1 >= n)
				return tc_err(c, "INPUT", "filter option %s needs a value", s), -1;
			if (filter_option(c, h, s, w[i + 1]) < 0)
				return -1;
			i++;
		} else if (h->kind == HK_FAULT) {
			if (fault_word(c, h, w[i]) < 0)
				return -1;
		} else if (h->kind != HK_TICK && valid_word(h, s)) {
			h->words = xrealloc(h->words, sizeof *h->words * (size_t)(h->nwords + 1));
			h->words[h->nwords++] = xstrdup(s);
		} else {
			return tc_err(c, "INPUT", "bad filter word \"%s\" for on %s", s, tc_hook_kinds[h->kind]), -1;
		}
	}
	return 0;
}

static Tcl_Obj *make_lambda(Tcl_Obj *script)
{
	Tcl_Obj *body = Tcl_NewStringObj("dict with ev {}\n", -1), *l = Tcl_NewListObj(0, NULL);

	Tcl_AppendObjToObj(body, script);
	Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj("ev", -1));
	Tcl_ListObjAppendElement(NULL, l, body);
	Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj("::", -1));
	return l;
}

static int add_hook(struct tcl_call *c, struct hook *h, Tcl_Obj *filter, Tcl_Obj *script)
{
	struct hooks *hs = c->ts->hooks;

	h->interp = c->interp;
	h->safe = c->safe;
	h->event = h->event ? h->event : xstrdup("open");
	h->filter = filter;
	Tcl_IncrRefCount(filter);
	h->lambda = make_lambda(script);
	Tcl_IncrRefCount(h->lambda);
	h->id = hs->next_id++;
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? hs->cap * 2 : 16;
		hs->h = xrealloc(hs->h, sizeof *hs->h * (size_t)hs->cap);
	}
	hs->h[hs->n++] = h;
	Tcl_SetObjResult(c->interp, Tcl_ObjPrintf("hook%d", h->id));
	return TCL_OK;
}

int tc_on(struct tcl_call *c)
{
	const char *kind = Tcl_GetString(c->argv[0]);
	Tcl_Obj *filter = c->argc == 3 ? c->argv[1] : Tcl_NewObj();
	struct hook *h;
	int k, rc;

	for (k = 0; k < HK_EVERY && strcmp(kind, tc_hook_kinds[k]); k++)
		;
	if (k == HK_EVERY)
		return tc_err(c, "USAGE", "bad event kind \"%s\": must be fault, node, job, conn, tick or event (or use every)",
			      kind);
	Tcl_IncrRefCount(filter);
	h = xcalloc(1, sizeof *h);
	h->kind = k;
	h->event = xstrdup("open");
	h->lambda = h->filter = NULL;
	if (tc_hook_parse_filter(c, h, filter) < 0) {
		h->lambda = h->filter = filter;
		Tcl_IncrRefCount(filter);
		Tcl_IncrRefCount(filter);
		tc_hook_free(h);
		rc = TCL_ERROR;
	} else {
		rc = add_hook(c, h, filter, c->argv[c->argc - 1]);
	}
	Tcl_DecrRefCount(filter);
	return rc;
}

int tc_every(struct tcl_call *c)
{
	struct hook *h;
	int64_t us;

	if (tc_duration(Tcl_GetString(c->argv[0]), &us) < 0 || us < US_PER_SEC)
		return tc_err(c, "INPUT", "bad duration \"%s\": at least one second, as 10s, 5m, 1h or 1d",
			      Tcl_GetString(c->argv[0]));
	h = xcalloc(1, sizeof *h);
	h->kind = HK_EVERY;
	h->every_us = us;
	h->next_us = c->app->now + us;
	return add_hook(c, h, c->argv[0], c->argv[1]);
}

static struct hook *find(struct tcl_call *c, Tcl_Obj *handle)
{
	struct hooks *hs = c->ts->hooks;
	const char *s = Tcl_GetString(handle);
	int id;

	if (sscanf(s, "hook%d", &id) != 1 && sscanf(s, "%d", &id) != 1)
		return NULL;
	for (int i = 0; i < hs->n; i++)
		if (hs->h[i]->id == id && !hs->h[i]->removed && hs->h[i]->interp == c->interp)
			return hs->h[i];
	return NULL;
}

int tc_off(struct tcl_call *c)
{
	struct hook *h = find(c, c->argv[0]);

	if (!h)
		return tc_err(c, "INPUT", "no hook \"%s\"", Tcl_GetString(c->argv[0]));
	h->removed = 1;
	c->ts->hooks->dirty = 1;
	tc_hooks_compact(c->ts->hooks);
	return TCL_OK;
}

int tc_hooks_cmd(struct tcl_call *c)
{
	struct hooks *hs = c->ts->hooks;
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	for (int i = 0; i < hs->n; i++) {
		struct hook *h = hs->h[i];
		Tcl_Obj *d;

		if (h->removed || (c->safe && h->interp != c->interp))
			continue;
		d = Tcl_NewDictObj();
		tc_dput(d, "handle", Tcl_ObjPrintf("hook%d", h->id));
		tc_dstr(d, "kind", tc_hook_kinds[h->kind]);
		tc_dput(d, "filter", h->filter);
		tc_dint(d, "runs", (int64_t)h->runs);
		tc_dint(d, "errors", (int64_t)h->errors);
		tc_dint(d, "disabled", h->disabled);
		tc_dstr(d, "last_error", h->last_error);
		tc_dstr(d, "interp", h->safe ? "safe" : "main");
		Tcl_ListObjAppendElement(NULL, l, d);
	}
	Tcl_SetObjResult(c->interp, l);
	return TCL_OK;
}
