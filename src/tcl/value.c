/*
 * value.c - reading and building the values commands trade in: dicts,
 * durations and times, nodesets (groups: model_groups.c), nodes, GPUs and job
 * ids, node state names, and Tcl values as JSON for --json.
 *
 * Names and numbers that people type count SUs and racks from 1 (as the
 * switch names leaf-s03-r5 do) and GPU indexes and rails from 0 (as
 * nvidia-smi does).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "tcl_int.h"

void tc_dput(Tcl_Obj *d, const char *key, Tcl_Obj *v)
{
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj(key, -1), v);
}

void tc_dstr(Tcl_Obj *d, const char *key, const char *s)
{
	tc_dput(d, key, Tcl_NewStringObj(s ? s : "", -1));
}

void tc_dint(Tcl_Obj *d, const char *key, int64_t v)
{
	tc_dput(d, key, Tcl_NewWideIntObj((Tcl_WideInt)v));
}

void tc_ddbl(Tcl_Obj *d, const char *key, double v)
{
	if (isfinite(v))
		tc_dput(d, key, Tcl_NewDoubleObj(round(v * 1000.0) / 1000.0));
	else
		tc_dstr(d, key, "");
}

void tc_dtime(Tcl_Obj *d, const char *key, int64_t us)
{
	char iso[32] = "";

	if (us)
		fmt_iso(us, iso);
	tc_dstr(d, key, iso);
}

/* ---- durations and times ---- */

int tc_duration(const char *s, int64_t *us)
{
	static const struct { const char *unit; int64_t us; } units[] = {
		{"", US_PER_SEC}, {"s", US_PER_SEC}, {"ms", 1000}, {"m", 60 * US_PER_SEC},
		{"h", 3600 * US_PER_SEC}, {"d", 86400 * US_PER_SEC},
	};
	const char *p = s;
	int64_t n;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s || parse_i64(s, (size_t)(p - s), &n) < 0 || n > 1000000000)
		return -1;
	for (unsigned i = 0; i < ARRAY_LEN(units); i++)
		if (!strcmp(p, units[i].unit)) {
			*us = n * units[i].us;
			return 0;
		}
	return -1;
}

int tc_when(struct myriad *app, const char *s, int64_t *us)
{
	int64_t d;

	if (s[0] == '+' && !tc_duration(s + 1, &d)) {
		*us = app->start + d;
		return 0;
	}
	if (s[0] == '-' && !tc_duration(s + 1, &d)) {
		*us = app->now - d;
		return 0;
	}
	if (!parse_iso(s, us))
		return 0;
	if (!tc_duration(s, &d)) {   /* "1h": that long ago */
		*us = app->now - d;
		return 0;
	}
	return -1;
}

/* ---- nodesets ---- */

struct nodeset *tc_nodeset(struct tcl_call *c, Tcl_Obj *text)
{
	struct nodeset *ns = nodeset_new();
	char *err = NULL;

	if (nodeset_parse(ns, Tcl_GetString(text), model_group, &c->app->model, &err) < 0) {
		tc_err(c, "INPUT", "bad nodeset \"%s\": %s", Tcl_GetString(text), err ? err : "?");
		free(err);
		nodeset_free(ns);
		return NULL;
	}
	return ns;
}

struct collect {
	const struct model *m;
	int32_t *idx;
	int32_t n;
	struct sbuf unknown;
	int nunknown;
};

static int collect_name(void *ctx, const char *name)
{
	struct collect *k = ctx;
	int32_t i = model_node_index(k->m, name);

	if (i >= 0)
		k->idx[k->n++] = i;
	else if (k->nunknown++ < 3)
		sbuf_printf(&k->unknown, "%s%s", k->nunknown > 1 ? ", " : "", name);
	return 0;
}

int tc_node_indexes(struct tcl_call *c, Tcl_Obj *text, int32_t **idx, int32_t *n, char **folded)
{
	struct nodeset *ns = tc_nodeset(c, text);
	struct collect k = {&c->app->model, NULL, 0, {0}, 0};
	size_t count;

	if (!ns)
		return -1;
	count = nodeset_count(ns);
	if (count > (size_t)c->app->model.nnodes + 1000) {
		nodeset_free(ns);
		return tc_err(c, "INPUT", "nodeset \"%s\" names %zu nodes; the cluster has %d", Tcl_GetString(text),
			      count, c->app->model.nnodes), -1;
	}
	k.idx = xmalloc(sizeof *k.idx * (count + 1));
	nodeset_foreach(ns, collect_name, &k);
	if (k.nunknown) {
		tc_err(c, "INPUT", "unknown node%s: %s%s", k.nunknown > 1 ? "s" : "", k.unknown.s,
		       k.nunknown > 3 ? ", ..." : "");
		free(k.idx);
		sbuf_free(&k.unknown);
		nodeset_free(ns);
		return -1;
	}
	if (folded)
		*folded = nodeset_fold(ns);
	nodeset_free(ns);
	*idx = k.idx;
	*n = k.n;
	return 0;
}

int tc_node(struct tcl_call *c, Tcl_Obj *name, int32_t *node)
{
	*node = model_node_index(&c->app->model, Tcl_GetString(name));
	if (*node < 0)
		return tc_err(c, "INPUT", "unknown node \"%s\"", Tcl_GetString(name)), -1;
	return 0;
}

int tc_gpu(struct tcl_call *c, Tcl_Obj *node, Tcl_Obj *idx, int32_t *n, int32_t *g)
{
	const char *s = Tcl_GetString(node), *colon = strrchr(s, ':');
	char name[NAME_MAX_LEN];
	int64_t v;
	const char *num;
	size_t len;

	if (idx) {
		num = Tcl_GetString(idx);
		len = strlen(s);
	} else if (colon) {
		num = colon + 1;
		len = (size_t)(colon - s);
	} else {
		return tc_err(c, "INPUT", "a GPU is NODE:INDEX (gpu0007:3) or NODE INDEX, not \"%s\"", s), -1;
	}
	snprintf(name, sizeof name, "%.*s", (int)MIN(len, sizeof name - 1), s);
	*n = model_node_index(&c->app->model, name);
	if (*n < 0)
		return tc_err(c, "INPUT", "unknown node \"%s\"", name), -1;
	if (parse_i64(num, strlen(num), &v) < 0 || v < 0 || v >= c->app->model.gpus_per_node)
		return tc_err(c, "INPUT", "GPU index \"%s\" is not 0..%d", num, c->app->model.gpus_per_node - 1), -1;
	*g = (int32_t)v;
	return 0;
}

int tc_job_id(struct tcl_call *c, Tcl_Obj *o, uint32_t *id)
{
	Tcl_WideInt v;

	if (Tcl_GetWideIntFromObj(NULL, o, &v) != TCL_OK || v <= 0 || v > UINT32_MAX)
		return tc_err(c, "INPUT", "a job id is a positive number, not \"%s\"", Tcl_GetString(o)), -1;
	*id = (uint32_t)v;
	return 0;
}

/* ---- node states ---- */

/* ---- JSON ---- */

static void json_list(Tcl_Obj *v, struct sbuf *out)
{
	Tcl_Obj **e;
	int n;

	Tcl_ListObjGetElements(NULL, v, &n, &e);
	sbuf_addc(out, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			sbuf_addc(out, ',');
		tc_json(e[i], out);
	}
	sbuf_addc(out, ']');
}

static void json_dict(Tcl_Obj *v, struct sbuf *out)
{
	Tcl_DictSearch s;
	Tcl_Obj *k, *val;
	int done, first = 1;

	sbuf_addc(out, '{');
	for (Tcl_DictObjFirst(NULL, v, &s, &k, &val, &done); !done; Tcl_DictObjNext(&s, &k, &val, &done)) {
		if (!first)
			sbuf_addc(out, ',');
		first = 0;
		sbuf_json_str(out, Tcl_GetString(k));
		sbuf_addc(out, ':');
		tc_json(val, out);
	}
	Tcl_DictObjDone(&s);
	sbuf_addc(out, '}');
}

/* By the value's current Tcl type: dicts become objects, lists arrays,
 * integers and doubles numbers, everything else a string. */
void tc_json(Tcl_Obj *v, struct sbuf *out)
{
	static const Tcl_ObjType *dict_t, *list_t, *int_t, *wide_t, *dbl_t;
	double d;

	if (!dict_t) {
		dict_t = Tcl_GetObjType("dict");
		list_t = Tcl_GetObjType("list");
		int_t = Tcl_GetObjType("int");
		wide_t = Tcl_GetObjType("wideInt");
		dbl_t = Tcl_GetObjType("double");
	}
	if (v->typePtr && v->typePtr == dict_t)
		json_dict(v, out);
	else if (v->typePtr && v->typePtr == list_t)
		json_list(v, out);
	else if (v->typePtr && (v->typePtr == int_t || v->typePtr == wide_t))
		sbuf_adds(out, Tcl_GetString(v));
	else if (v->typePtr && v->typePtr == dbl_t && Tcl_GetDoubleFromObj(NULL, v, &d) == TCL_OK && isfinite(d))
		sbuf_adds(out, Tcl_GetString(v));
	else
		sbuf_json_str(out, Tcl_GetString(v));
}

/* ---- events from the schema ---- */

static Tcl_Obj *field_obj(const struct event *ev, const struct ev_field *f)
{
	const char *p = (const char *)ev + f->off;

	switch (f->kind) {
	case EVF_I32: return Tcl_NewWideIntObj(*(const int32_t *)p);
	case EVF_U32: return Tcl_NewWideIntObj(*(const uint32_t *)p);
	case EVF_I64: return Tcl_NewWideIntObj(*(const int64_t *)p);
	case EVF_U64: return Tcl_ObjPrintf("%llu", (unsigned long long)*(const uint64_t *)p);
	case EVF_F64: return Tcl_NewDoubleObj(*(const double *)p);
	case EVF_MET:
		return *(const int32_t *)p == MET_UNKNOWN ? Tcl_NewObj() : Tcl_NewWideIntObj(*(const int32_t *)p);
	default: return Tcl_NewStringObj(*(const char *const *)p ? *(const char *const *)p : "", -1);
	}
}

Tcl_Obj *tc_event_dict(const struct model *m, const struct event *ev)
{
	const struct ev_schema *s = ev_schema(ev->type);
	Tcl_Obj *d = Tcl_NewDictObj();

	tc_dstr(d, "event", ev_type_name(ev->type));
	tc_dtime(d, "time", ev->time);
	tc_dstr(d, "source", ev->source ? ev->source : "");
	for (int i = 0; s && i < s->n; i++) {
		if ((int)s->f[i].off == s->node_off) {
			int32_t n = *(const int32_t *)((const char *)ev + s->f[i].off);

			tc_dint(d, "node_index", n);
			tc_dstr(d, "node", n >= 0 && n < m->nnodes ? m->nodes[n].name : "");
			continue;
		}
		tc_dput(d, s->f[i].name, field_obj(ev, &s->f[i]));
	}
	return d;
}
