/*
 * cmd_nodeset.c - the nodeset command: expand, fold, count, the set algebra
 * (and, or, diff, xor), membership (contains, subset) and positions (index,
 * slice, split, contiguous), on nodesets in ClusterShell's syntax
 * (src/nodeset.h). Pure functions of their arguments, with groups resolved
 * against the model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tcl_int.h"

static int ok(struct tcl_call *c, Tcl_Obj *result)
{
	Tcl_SetObjResult(c->interp, result);
	return TCL_OK;
}

static int add_name(void *ctx, const char *name)
{
	Tcl_ListObjAppendElement(NULL, ctx, Tcl_NewStringObj(name, -1));
	return 0;
}

int tc_nodeset_expand(struct tcl_call *c)
{
	struct nodeset *ns = tc_nodeset(c, c->argv[0]);
	Tcl_Obj *l;

	if (!ns)
		return TCL_ERROR;
	if (nodeset_count(ns) > 1000000) {
		nodeset_free(ns);
		return tc_err(c, "INPUT", "nodeset too large to expand");
	}
	l = Tcl_NewListObj(0, NULL);
	nodeset_foreach(ns, add_name, l);
	nodeset_free(ns);
	return ok(c, l);
}

static Tcl_Obj *fold_obj(const struct nodeset *ns)
{
	char *f = nodeset_fold(ns);
	Tcl_Obj *o = Tcl_NewStringObj(f, -1);

	free(f);
	return o;
}

static int result_fold(struct tcl_call *c, struct nodeset *ns)
{
	Tcl_SetObjResult(c->interp, fold_obj(ns));
	nodeset_free(ns);
	return TCL_OK;
}

int tc_nodeset_fold(struct tcl_call *c)
{
	struct nodeset *all = nodeset_new();

	for (int i = 0; i < c->argc; i++) {
		Tcl_Obj **e;
		int n;

		if (Tcl_ListObjGetElements(c->interp, c->argv[i], &n, &e) != TCL_OK) {
			nodeset_free(all);
			return TCL_ERROR;
		}
		for (int k = 0; k < n; k++) {
			struct nodeset *ns = tc_nodeset(c, e[k]);

			if (!ns) {
				nodeset_free(all);
				return TCL_ERROR;
			}
			nodeset_union(all, ns);
			nodeset_free(ns);
		}
	}
	return result_fold(c, all);
}

int tc_nodeset_count(struct tcl_call *c)
{
	struct nodeset *ns = tc_nodeset(c, c->argv[0]);
	size_t n;

	if (!ns)
		return TCL_ERROR;
	n = nodeset_count(ns);
	nodeset_free(ns);
	return ok(c, Tcl_NewWideIntObj((Tcl_WideInt)MIN(n, (size_t)INT64_MAX)));
}

int tc_nodeset_op(struct tcl_call *c)
{
	const char *op = strchr(c->cmd->name, ' ') + 1;
	struct nodeset *acc = tc_nodeset(c, c->argv[0]);

	if (!acc)
		return TCL_ERROR;
	for (int i = 1; i < c->argc; i++) {
		struct nodeset *ns = tc_nodeset(c, c->argv[i]);

		if (!ns) {
			nodeset_free(acc);
			return TCL_ERROR;
		}
		if (!strcmp(op, "and"))
			nodeset_intersect(acc, ns);
		else if (!strcmp(op, "or"))
			nodeset_union(acc, ns);
		else if (!strcmp(op, "diff"))
			nodeset_difference(acc, ns);
		else
			nodeset_xor(acc, ns);
		nodeset_free(ns);
	}
	return result_fold(c, acc);
}

/* nodeset contains A B: B within A; nodeset subset A B: A within B. */
int tc_nodeset_member(struct tcl_call *c)
{
	struct nodeset *a = tc_nodeset(c, c->argv[0]), *b = a ? tc_nodeset(c, c->argv[1]) : NULL;
	int in;

	if (!b) {
		nodeset_free(a);
		return TCL_ERROR;
	}
	in = strcmp(c->cmd->name, "nodeset subset") ? nodeset_subset(b, a) : nodeset_subset(a, b);
	nodeset_free(a);
	nodeset_free(b);
	return ok(c, Tcl_NewBooleanObj(in));
}

/* INDEX: 0 first, -1 last (ClusterShell), or end, end-N (Tcl). */
static int index_of(struct tcl_call *c, Tcl_Obj *arg, size_t count, size_t *at)
{
	const char *s = Tcl_GetString(arg);
	Tcl_WideInt i;
	char *end;

	if (!strncmp(s, "end", 3)) {
		errno = 0;
		i = s[3] ? strtoll(s + 3, &end, 10) : 0;
		if ((s[3] && (s[3] != '-' || !s[4] || *end || errno)) || i > 0)
			return tc_err(c, "USAGE", "bad index \"%s\": an integer, end or end-N", s);
		i = (Tcl_WideInt)count - 1 + i;
	} else if (Tcl_GetWideIntFromObj(NULL, arg, &i) != TCL_OK) {
		return tc_err(c, "USAGE", "bad index \"%s\": an integer, end or end-N", s);
	} else if (i < 0) {
		i += (Tcl_WideInt)count;
	}
	if (i < 0 || (size_t)i >= count)
		return tc_err(c, "INPUT", "index %s out of range: the nodeset holds %zu name%s", s, count,
			      count == 1 ? "" : "s");
	*at = (size_t)i;
	return TCL_OK;
}

int tc_nodeset_index(struct tcl_call *c)
{
	struct nodeset *ns = tc_nodeset(c, c->argv[0]);
	size_t at = 0;
	char *name;

	if (!ns)
		return TCL_ERROR;
	if (index_of(c, c->argv[1], nodeset_count(ns), &at) != TCL_OK) {
		nodeset_free(ns);
		return TCL_ERROR;
	}
	name = nodeset_name_at(ns, at);
	nodeset_free(ns);
	Tcl_SetObjResult(c->interp, Tcl_NewStringObj(name ? name : "", -1));
	free(name);
	return TCL_OK;
}

int tc_nodeset_slice(struct tcl_call *c)
{
	struct nodeset *ns = tc_nodeset(c, c->argv[0]), *part;
	char *err = NULL;

	if (!ns)
		return TCL_ERROR;
	part = nodeset_slice(ns, Tcl_GetString(c->argv[1]), &err);
	nodeset_free(ns);
	if (!part) {
		tc_err(c, "INPUT", "bad positions \"%s\": %s", Tcl_GetString(c->argv[1]), err ? err : "?");
		free(err);
		return TCL_ERROR;
	}
	return result_fold(c, part);
}

static int result_parts(struct tcl_call *c, struct nodeset **parts, size_t n)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	for (size_t i = 0; i < n; i++)
		Tcl_ListObjAppendElement(NULL, l, fold_obj(parts[i]));
	nodeset_free_parts(parts, n);
	return ok(c, l);
}

int tc_nodeset_split(struct tcl_call *c)
{
	struct nodeset *ns;
	Tcl_WideInt n;
	size_t nparts;
	struct nodeset **parts;

	if (Tcl_GetWideIntFromObj(NULL, c->argv[1], &n) != TCL_OK || n < 1)
		return tc_err(c, "USAGE", "bad count \"%s\": a positive integer", Tcl_GetString(c->argv[1]));
	if (!(ns = tc_nodeset(c, c->argv[0])))
		return TCL_ERROR;
	parts = nodeset_split(ns, (size_t)MIN(n, (Tcl_WideInt)(SIZE_MAX / 2)), &nparts);
	nodeset_free(ns);
	return result_parts(c, parts, nparts);
}

int tc_nodeset_contiguous(struct tcl_call *c)
{
	struct nodeset *ns = tc_nodeset(c, c->argv[0]);
	struct nodeset **parts;
	size_t nparts;

	if (!ns)
		return TCL_ERROR;
	parts = nodeset_contiguous(ns, &nparts);
	nodeset_free(ns);
	return result_parts(c, parts, nparts);
}
