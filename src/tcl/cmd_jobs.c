/*
 * cmd_jobs.c - job list, job info, fault list and fault info: jobs and
 * faults as the model holds them, as ids or dicts.
 */
#include <string.h>
#include <strings.h>
#include "tcl_int.h"

static Tcl_Obj *job_dict(const struct myriad *app, const struct job *j)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	tc_dint(d, "id", j->id);
	tc_dstr(d, "name", j->name);
	tc_dstr(d, "user", j->user);
	tc_dstr(d, "partition", j->partition);
	tc_dstr(d, "state", job_state_name(j->state));
	tc_dstr(d, "nodes", j->nodes ? j->nodes : "");
	tc_dint(d, "nnodes", j->nnodes);
	if (j->gpus < 0)   /* unknown: "", as tc_ddbl and tc_dtime give it */
		tc_dstr(d, "gpus", "");
	else
		tc_dint(d, "gpus", j->gpus);
	tc_dint(d, "gpu_mask", j->gpu_mask);
	tc_dtime(d, "submit_time", j->submit_time);
	tc_dtime(d, "start_time", j->start_time);
	tc_dint(d, "runtime", j->start_time && j->state == JOB_RUNNING ? (app->now - j->start_time) / US_PER_SEC : 0);
	return d;
}

static int in_words(Tcl_Obj **w, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(Tcl_GetString(w[i]), s))
			return 1;
	return !n;
}

static int job_on(const struct model *m, const struct job *j, const struct nodeset *ns)
{
	for (int32_t k = 0; k < j->nnodes; k++)
		if (nodeset_contains(ns, m->nodes[j->node_idx[k]].name))
			return 1;
	return 0;
}

int tc_job_list(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	Tcl_Obj **states = NULL, **users = NULL, *l;
	int nstates = 0, nusers = 0, detail = tc_flag(c, "detail");
	struct nodeset *ns = NULL;

	if (tc_opt(c, "state") && Tcl_ListObjGetElements(c->interp, tc_opt(c, "state"), &nstates, &states) != TCL_OK)
		return TCL_ERROR;
	for (int i = 0; i < nstates; i++)
		if (job_state_from_name(Tcl_GetString(states[i])) < 0)
			return tc_err(c, "INPUT", "bad job state \"%s\": PENDING RUNNING COMPLETING COMPLETED FAILED ...",
				      Tcl_GetString(states[i]));
	if (tc_opt(c, "user") && Tcl_ListObjGetElements(c->interp, tc_opt(c, "user"), &nusers, &users) != TCL_OK)
		return TCL_ERROR;
	if (tc_opt(c, "node") && !(ns = tc_nodeset(c, tc_opt(c, "node"))))
		return TCL_ERROR;
	l = Tcl_NewListObj(0, NULL);
	for (int32_t i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];

		if (!j->id || !in_words(states, nstates, job_state_name(j->state)) || !in_words(users, nusers, j->user))
			continue;
		if (ns && !job_on(m, j, ns))
			continue;
		Tcl_ListObjAppendElement(NULL, l, detail ? job_dict(c->app, j) : Tcl_NewWideIntObj(j->id));
	}
	if (ns)
		nodeset_free(ns);
	Tcl_SetObjResult(c->interp, l);
	return TCL_OK;
}

int tc_job_info(struct tcl_call *c)
{
	const struct job *j;
	uint32_t id;

	if (tc_job_id(c, c->argv[0], &id) < 0)
		return TCL_ERROR;
	if (!(j = model_job(&c->app->model, id)))
		return tc_err(c, "INPUT", "no job %u", id);
	Tcl_SetObjResult(c->interp, job_dict(c->app, j));
	return TCL_OK;
}

struct fault_filter {
	int unacked, all, detail, kind, xid;
	int64_t since;
	struct nodeset *nodes;
};

static int fault_passes(const struct model *m, const struct fault_filter *ff, const struct fault *f)
{
	if (!ff->all && f->close_time)
		return 0;
	if (ff->unacked && (f->ack_time || f->close_time))
		return 0;
	if (f->time < ff->since)
		return 0;
	if (ff->xid ? strncmp(f->text, "XID ", 4) != 0 : ff->kind >= 0 && f->kind != ff->kind)
		return 0;
	return !ff->nodes || (f->node >= 0 && f->node < m->nnodes && nodeset_contains(ff->nodes, m->nodes[f->node].name));
}

int tc_fault_list(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	struct fault_filter ff = {tc_flag(c, "unacked"), tc_flag(c, "all"), tc_flag(c, "detail"), -1, 0, 0, NULL};
	const char *kind = tc_optstr(c, "kind"), *since = tc_optstr(c, "since");
	Tcl_Obj *l;

	if (kind && !(ff.xid = !strcmp(kind, "xid")) && (ff.kind = fault_kind_from_name(kind)) < 0)
		return tc_err(c, "INPUT", "bad fault kind \"%s\": xid ecc nvlink ib thermal cooling power parse conn host",
			      kind);
	if (since && tc_when(c->app, since, &ff.since) < 0)
		return tc_err(c, "INPUT", "bad time \"%s\": ISO 8601, epoch seconds, an age (1h) or +SECONDS", since);
	if (tc_opt(c, "node") && !(ff.nodes = tc_nodeset(c, tc_opt(c, "node"))))
		return TCL_ERROR;
	l = Tcl_NewListObj(0, NULL);
	for (int32_t i = 0; i < m->nfaults; i++)
		if (fault_passes(m, &ff, &m->faults[i]))
			Tcl_ListObjAppendElement(NULL, l, ff.detail ? tc_fault_dict(m, &m->faults[i])
								    : Tcl_NewWideIntObj(m->faults[i].id));
	if (ff.nodes)
		nodeset_free(ff.nodes);
	Tcl_SetObjResult(c->interp, l);
	return TCL_OK;
}

int tc_fault_info(struct tcl_call *c)
{
	const struct fault *f;
	Tcl_WideInt id;

	if (Tcl_GetWideIntFromObj(NULL, c->argv[0], &id) != TCL_OK || id <= 0 || id > UINT32_MAX)
		return tc_err(c, "INPUT", "a fault id is a positive number, not \"%s\"", Tcl_GetString(c->argv[0]));
	if (!(f = model_fault(&c->app->model, (uint32_t)id)))
		return tc_err(c, "INPUT", "no fault %lld", (long long)id);
	Tcl_SetObjResult(c->interp, tc_fault_dict(&c->app->model, f));
	return TCL_OK;
}
