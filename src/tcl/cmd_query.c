/*
 * cmd_query.c - the query commands: cluster, now, nodes, node info, gpu
 * info/get, power, links and xid. Jobs and faults are in cmd_jobs.c, the
 * nodeset commands in cmd_nodeset.c.
 * Everything here reads the model and nothing else, so it works the same on
 * a live cluster, the simulator and a replay.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "tcl_int.h"
#include "../xidcat.h"
#include "../store/store.h"

static int ok(struct tcl_call *c, Tcl_Obj *result)
{
	Tcl_SetObjResult(c->interp, result);
	return TCL_OK;
}

int tc_cluster(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	Tcl_Obj *d = Tcl_NewDictObj();
	int32_t drained = 0, down = 0, busy_gpus = 0, pending = 0, unacked = 0;
	char hash[20];

	for (int32_t i = 0; i < m->nnodes; i++) {
		drained += node_is_drained(&m->nodes[i]);
		down += m->nodes[i].base == NODE_DOWN;
	}
	for (int32_t g = 0; g < m->ngpus; g++)
		busy_gpus += m->gpu_job[g] >= 0;
	for (int32_t j = 0; j < m->njobs; j++)
		pending += m->jobs[j].id && m->jobs[j].state == JOB_PENDING;
	for (int32_t f = 0; f < m->nfaults; f++)
		unacked += !m->faults[f].close_time && !m->faults[f].ack_time;
	snprintf(hash, sizeof hash, "%016llx", (unsigned long long)model_hash(m));
	tc_dstr(d, "cluster", m->cluster);
	tc_dint(d, "gpus", m->ngpus);
	tc_dint(d, "nodes", m->nnodes);
	tc_dint(d, "sus", m->topo.sus);
	tc_dint(d, "jobs", model_running_jobs(m));
	tc_dint(d, "faults_open", model_open_faults(m));
	tc_ddbl(d, "it_kw", m->fac.known ? m->fac.it_kw : NAN);
	tc_ddbl(d, "facility_kw", m->fac.known ? m->fac.facility_kw : NAN);
	tc_ddbl(d, "pue", m->fac.known ? m->fac.pue : NAN);
	tc_dint(d, "tick", m->tick);
	tc_dtime(d, "time", m->time);
	tc_dstr(d, "model_hash", hash);
	tc_dint(d, "jobs_pending", pending);
	tc_dint(d, "faults_unacked", unacked);
	tc_dint(d, "drained", drained);
	tc_dint(d, "down", down);
	tc_dint(d, "gpus_busy", busy_gpus);
	tc_dint(d, "parse_errors", (int64_t)m->parse_errors);
	tc_dint(d, "seconds", c->app->now / US_PER_SEC);
	tc_dstr(d, "mode", c->ts->batch ? "batch" : c->app->console ? "console" : "headless");
	tc_dint(d, "read_only", c->app->read_only);
	tc_dint(d, "dry_run", c->app->dry_run);
	tc_dstr(d, "backend", c->app->backend ? c->app->backend->ops->name : "");
	tc_dstr(d, "recording", recorder_path(c->app));
	return ok(c, d);
}

/* Cluster time: the clock's, or that of the last event when a replay
 * delivers a tick's events before its clock moves. */
int64_t tc_now_us(const struct myriad *app)
{
	return MAX(app->now, app->model.time);
}

int tc_now(struct tcl_call *c)
{
	char iso[32];

	if (!tc_flag(c, "iso"))
		return ok(c, Tcl_NewWideIntObj(tc_now_us(c->app) / US_PER_SEC));
	fmt_iso(tc_now_us(c->app), iso);
	return ok(c, Tcl_NewStringObj(iso, -1));
}

/* ---- nodes ---- */

struct node_filter {
	Tcl_Obj **states;
	int nstates;
	int32_t *sus, *racks;
	int nsus, nracks;
	uint8_t *faulty;               /* per node, when -fault is given */
	struct nodeset *within;        /* -job, NODESET */
};

static int int_list(struct tcl_call *c, const char *opt, int32_t **out, int *n)
{
	Tcl_Obj *o = tc_opt(c, opt), **e;
	int k;

	*out = NULL;
	*n = 0;
	if (!o)
		return 0;
	if (Tcl_ListObjGetElements(c->interp, o, &k, &e) != TCL_OK)
		return -1;
	*out = xmalloc(sizeof **out * (size_t)(k + 1));
	for (int i = 0; i < k; i++) {
		int v;

		if (Tcl_GetIntFromObj(NULL, e[i], &v) != TCL_OK || v < 1) {
			free(*out);
			*out = NULL;
			return tc_err(c, "INPUT", "-%s wants numbers from 1, not \"%s\"", opt, Tcl_GetString(e[i])), -1;
		}
		(*out)[(*n)++] = v - 1;
	}
	return 0;
}

static int fault_nodes(struct tcl_call *c, const char *kind, uint8_t **out)
{
	const struct model *m = &c->app->model;
	int k = fault_kind_from_name(kind), any = !strcmp(kind, "any"), xid = !strcmp(kind, "xid");

	if (k < 0 && !any && !xid)
		return tc_err(c, "INPUT", "bad fault kind \"%s\"", kind), -1;
	*out = xcalloc((size_t)m->nnodes + 1, 1);
	for (int32_t i = 0; i < m->nfaults; i++) {
		const struct fault *f = &m->faults[i];

		if (f->close_time || f->node < 0 || f->node >= m->nnodes)
			continue;
		if (any || f->kind == k || (xid && !strncmp(f->text, "XID ", 4)))
			(*out)[f->node] = 1;
	}
	return 0;
}

static int within(struct tcl_call *c, struct node_filter *nf)
{
	Tcl_Obj *job = tc_opt(c, "job");

	if (c->argc && !(nf->within = tc_nodeset(c, c->argv[0])))
		return -1;
	if (job) {
		uint32_t id;
		const struct job *j;
		struct nodeset *ns;

		if (tc_job_id(c, job, &id) < 0)
			return -1;
		if (!(j = model_job(&c->app->model, id)))
			return tc_err(c, "INPUT", "no job %s", Tcl_GetString(job)), -1;
		ns = nodeset_new();
		for (int32_t k = 0; k < j->nnodes; k++)
			nodeset_add(ns, c->app->model.nodes[j->node_idx[k]].name);
		if (nf->within) {
			nodeset_intersect(nf->within, ns);
			nodeset_free(ns);
		} else {
			nf->within = ns;
		}
	}
	return 0;
}

static int node_filter_init(struct tcl_call *c, struct node_filter *nf)
{
	Tcl_Obj *st = tc_opt(c, "state");
	struct node dummy = {0};

	memset(nf, 0, sizeof *nf);
	if (st && Tcl_ListObjGetElements(c->interp, st, &nf->nstates, &nf->states) != TCL_OK)
		return -1;
	for (int i = 0; i < nf->nstates; i++)
		if (model_state_match(&dummy, Tcl_GetString(nf->states[i])) < 0)
			return tc_err(c, "INPUT", "bad state \"%s\": idle alloc mixed down future unknown drain drained "
				      "draining busy up maint reboot completing fail noresp", Tcl_GetString(nf->states[i])), -1;
	if (int_list(c, "su", &nf->sus, &nf->nsus) < 0 || int_list(c, "rack", &nf->racks, &nf->nracks) < 0)
		return -1;
	if (tc_opt(c, "fault") && fault_nodes(c, tc_optstr(c, "fault"), &nf->faulty) < 0)
		return -1;
	return within(c, nf);
}

static void node_filter_free(struct node_filter *nf)
{
	free(nf->sus);
	free(nf->racks);
	free(nf->faulty);
	if (nf->within)
		nodeset_free(nf->within);
}

static int in_list(const int32_t *l, int n, int32_t v)
{
	for (int i = 0; i < n; i++)
		if (l[i] == v)
			return 1;
	return 0;
}

static int node_passes(const struct node_filter *nf, const struct node *n, int32_t i)
{
	int st = !nf->nstates;

	for (int k = 0; k < nf->nstates && !st; k++)
		st = model_state_match(n, Tcl_GetString(nf->states[k])) == 1;
	return st && (!nf->nsus || in_list(nf->sus, nf->nsus, n->su)) &&
	       (!nf->nracks || in_list(nf->racks, nf->nracks, n->rack)) && (!nf->faulty || nf->faulty[i]) &&
	       (!nf->within || nodeset_contains(nf->within, n->name));
}

int tc_nodes(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	struct node_filter nf;
	struct nodeset *out;
	char *folded;

	if (node_filter_init(c, &nf) < 0) {
		node_filter_free(&nf);
		return TCL_ERROR;
	}
	out = nodeset_new();
	for (int32_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].name[0] && node_passes(&nf, &m->nodes[i], i))
			nodeset_add(out, m->nodes[i].name);
	folded = nodeset_fold(out);
	Tcl_SetObjResult(c->interp, Tcl_NewStringObj(folded, -1));
	free(folded);
	nodeset_free(out);
	node_filter_free(&nf);
	return TCL_OK;
}

/* ---- nodes and GPUs ---- */

static Tcl_Obj *node_jobs(const struct model *m, int32_t node)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);
	int32_t last = -1;

	for (int32_t g = 0; g < m->gpus_per_node; g++) {
		int32_t j = m->gpu_job[model_gpu(m, node, g)];

		if (j >= 0 && j != last && m->jobs[j].id) {
			int dup = 0;
			Tcl_Obj **e;
			int n;

			Tcl_ListObjGetElements(NULL, l, &n, &e);
			for (int k = 0; k < n; k++) {
				Tcl_WideInt v;

				dup |= Tcl_GetWideIntFromObj(NULL, e[k], &v) == TCL_OK && v == m->jobs[j].id;
			}
			if (!dup)
				Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(m->jobs[j].id));
			last = j;
		}
	}
	return l;
}

int tc_node_info(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	Tcl_Obj *d = Tcl_NewDictObj();
	int32_t i;
	const struct node *n;
	char *state;

	if (tc_node(c, c->argv[0], &i) < 0) {
		Tcl_DecrRefCount(d);
		return TCL_ERROR;
	}
	n = &m->nodes[i];
	state = model_state_name(n);
	tc_dstr(d, "name", n->name);
	tc_dstr(d, "state", state);
	tc_dstr(d, "base", node_base_name(n->base));
	tc_dint(d, "drain", node_is_drained(n));
	tc_dstr(d, "reason", n->reason);
	tc_dstr(d, "who", n->reason_who);
	tc_dtime(d, "reason_time", n->reason_time);
	tc_dint(d, "su", n->su + 1);
	tc_dint(d, "rack", n->rack + 1);
	tc_dint(d, "gpus", n->gpus);
	tc_dput(d, "jobs", node_jobs(m, i));
	tc_dint(d, "open_faults", n->open_faults);
	tc_dstr(d, "conn", conn_state_name(n->conn));
	tc_dtime(d, "last_sample", n->last_sample);
	tc_dint(d, "age", n->last_sample ? (m->time - n->last_sample) / US_PER_SEC : -1);
	tc_dint(d, "parse_errors", n->parse_errors);
	free(state);
	return ok(c, d);
}

static const char *const throttle_names[] = {
	"gpu_idle", "app_clocks", "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal", "hw_power_brake",
};

static Tcl_Obj *metric(const struct model *m, int32_t g, const char *field)
{
	int k = -1;

	if (!strcmp(field, "ecc"))
		field = "ecc_uncorr";
	for (int i = 0; i < MET_COUNT; i++)
		if (!strcmp(metric_name(i), field))
			k = i;
	if (k >= 0) {
		int32_t v = m->met[k][g];

		if (v == MET_UNKNOWN)
			return Tcl_NewObj();
		if (k == MET_POWER || k == MET_POWER_LIMIT)
			return Tcl_NewDoubleObj(v / 100.0);
		return Tcl_NewIntObj(v);
	}
	if (!strcmp(field, "last_xid"))
		return Tcl_NewIntObj(m->last_xid[g]);
	if (!strcmp(field, "job"))
		return m->gpu_job[g] >= 0 ? Tcl_NewWideIntObj(m->jobs[m->gpu_job[g]].id) : Tcl_NewObj();
	if (!strcmp(field, "uuid"))
		return Tcl_NewStringObj(m->uuid[g], -1);
	if (!strcmp(field, "pci"))
		return Tcl_NewStringObj(m->pci[g], -1);
	if (!strcmp(field, "model"))   /* nvidia-smi's "name"; "" when not queried */
		return Tcl_NewStringObj(m->gpu_name[g], -1);
	return NULL;
}

int tc_gpu_info(struct tcl_call *c)
{
	static const char *const fields[] = {"util", "mem_used", "mem_total", "temp", "power", "power_limit",
					     "sm_clock", "ecc", "last_xid", "job", "uuid", "pci", "model"};
	const struct model *m = &c->app->model;
	Tcl_Obj *d, *thr;
	int32_t n, gi, g;
	char name[NAME_MAX_LEN + 8];

	if (tc_gpu(c, c->argv[0], c->argc > 1 ? c->argv[1] : NULL, &n, &gi) < 0)
		return TCL_ERROR;
	g = model_gpu(m, n, gi);
	d = Tcl_NewDictObj();
	snprintf(name, sizeof name, "%s:%d", m->nodes[n].name, gi);
	tc_dstr(d, "gpu", name);
	tc_dstr(d, "node", m->nodes[n].name);
	tc_dint(d, "index", gi);
	for (unsigned i = 0; i < ARRAY_LEN(fields); i++)
		tc_dput(d, fields[i], metric(m, g, fields[i]));
	thr = Tcl_NewListObj(0, NULL);
	if (m->met[MET_THROTTLE][g] != MET_UNKNOWN)
		for (unsigned b = 0; b < ARRAY_LEN(throttle_names); b++)
			if (m->met[MET_THROTTLE][g] & (1 << b))
				Tcl_ListObjAppendElement(NULL, thr, Tcl_NewStringObj(throttle_names[b], -1));
	tc_dput(d, "throttle", thr);
	return ok(c, d);
}

int tc_gpu_get(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	const char *field = Tcl_GetString(c->argv[1]);
	int32_t *idx, n;
	Tcl_Obj *d;

	if (m->ngpus && !metric(m, 0, field) && strcmp(field, "throttle"))
		return tc_err(c, "INPUT", "bad field \"%s\": util mem_used mem_total temp power power_limit sm_clock "
			      "ecc throttle last_xid job uuid pci model", field);
	if (tc_node_indexes(c, c->argv[0], &idx, &n, NULL) < 0)
		return TCL_ERROR;
	d = Tcl_NewDictObj();
	for (int32_t k = 0; k < n; k++) {
		Tcl_Obj *l = Tcl_NewListObj(0, NULL);

		for (int32_t gi = 0; gi < m->gpus_per_node; gi++) {
			int32_t g = model_gpu(m, idx[k], gi);
			Tcl_Obj *v = metric(m, g, field);

			if (!v)
				v = m->met[MET_THROTTLE][g] == MET_UNKNOWN ? Tcl_NewObj() : Tcl_NewIntObj(m->met[MET_THROTTLE][g]);
			Tcl_ListObjAppendElement(NULL, l, v);
		}
		tc_dput(d, m->nodes[idx[k]].name, l);
	}
	free(idx);
	return ok(c, d);
}

/* ---- facility, fabric, catalogue ---- */

int tc_power(struct tcl_call *c)
{
	const struct facility *f = &c->app->model.fac;
	Tcl_Obj *d = Tcl_NewDictObj(), *h;
	int n = 0;

	tc_dint(d, "known", f->known);
	tc_ddbl(d, "facility_kw", f->known ? f->facility_kw : NAN);
	tc_ddbl(d, "it_kw", f->known ? f->it_kw : NAN);
	tc_ddbl(d, "cooling_kw", f->known ? f->cooling_kw : NAN);
	tc_ddbl(d, "pue", f->known ? f->pue : NAN);
	tc_ddbl(d, "supply_c", f->known ? f->supply_c : NAN);
	tc_ddbl(d, "return_c", f->known ? f->return_c : NAN);
	tc_ddbl(d, "flow_lpm", f->known ? f->flow_lpm : NAN);
	tc_ddbl(d, "outside_c", f->known ? f->outside_c : NAN);
	tc_dtime(d, "time", f->time);
	if (tc_opt(c, "history")) {
		if (Tcl_GetIntFromObj(NULL, tc_opt(c, "history"), &n) != TCL_OK || n < 0) {
			Tcl_DecrRefCount(d);
			return tc_err(c, "INPUT", "-history wants a count");
		}
		n = MIN(n, f->hist_len);
		h = Tcl_NewListObj(0, NULL);
		for (int i = n; i > 0; i--) {
			int k = ((f->hist_head - i) % PUE_HISTORY + PUE_HISTORY) % PUE_HISTORY;

			Tcl_ListObjAppendElement(NULL, h, Tcl_NewDoubleObj(((int)(f->pue_hist[k] * 1000.0f + 0.5f)) / 1000.0));
		}
		tc_dput(d, "history", h);
	}
	return ok(c, d);
}

static const char *port_state(int32_t s)
{
	static const char *const names[] = {"unknown", "down", "init", "armed", "active"};

	return s >= 0 && s <= IBP_ACTIVE ? names[s] : "unknown";
}

static int port_matches(const char *want, int32_t s)
{
	if (!want)
		return 1;
	if (!strcmp(want, "down"))
		return s == IBP_DOWN || s == IBP_INIT || s == IBP_ARMED;
	return !strcmp(want, port_state(s));
}

static Tcl_Obj *port_dict(const struct model *m, int32_t i, int32_t r)
{
	const struct ib_port *p = &m->ports[(size_t)i * (size_t)m->topo.rails + (size_t)r];
	Tcl_Obj *d = Tcl_NewDictObj();
	char leaf[32];

	topo_switch_name(&m->topo, topo_leaf(&m->topo, m->nodes[i].su, r), leaf, sizeof leaf);
	tc_dstr(d, "node", m->nodes[i].name);
	tc_dint(d, "rail", r);
	tc_dstr(d, "leaf", leaf);
	tc_dstr(d, "state", port_state(p->state));
	tc_dint(d, "downs", p->downs);
	tc_dint(d, "symbol_error", (int64_t)p->c[IBC_SYMBOL_ERROR]);
	tc_dint(d, "link_downed", (int64_t)p->c[IBC_LINK_DOWNED]);
	tc_dint(d, "link_error_recovery", (int64_t)p->c[IBC_LINK_ERROR_RECOVERY]);
	tc_dint(d, "port_rcv_errors", (int64_t)p->c[IBC_PORT_RCV_ERRORS]);
	tc_dtime(d, "time", p->last);
	return d;
}

int tc_links(struct tcl_call *c)
{
	const struct model *m = &c->app->model;
	const char *want = tc_optstr(c, "state");
	struct nodeset *ns = NULL;
	Tcl_Obj *l;
	int rail = -1;

	if (want && strcmp(want, "down") && strcmp(want, "active") && strcmp(want, "init") && strcmp(want, "armed") &&
	    strcmp(want, "unknown"))
		return tc_err(c, "INPUT", "bad link state \"%s\": down active init armed unknown", want);
	if (tc_opt(c, "rail") && (Tcl_GetIntFromObj(NULL, tc_opt(c, "rail"), &rail) != TCL_OK || rail < 0 ||
				  rail >= m->topo.rails))
		return tc_err(c, "INPUT", "-rail wants 0..%d", m->topo.rails - 1);
	if (tc_opt(c, "node") && !(ns = tc_nodeset(c, tc_opt(c, "node"))))
		return TCL_ERROR;
	l = Tcl_NewListObj(0, NULL);
	for (int32_t i = 0; m->ports && i < m->nnodes; i++) {
		if (ns && !nodeset_contains(ns, m->nodes[i].name))
			continue;
		for (int32_t r = 0; r < m->topo.rails; r++)
			if ((rail < 0 || r == rail) && port_matches(want, m->ports[(size_t)i * (size_t)m->topo.rails + (size_t)r].state))
				Tcl_ListObjAppendElement(NULL, l, port_dict(m, i, r));
	}
	if (ns)
		nodeset_free(ns);
	return ok(c, l);
}

int tc_xid(struct tcl_call *c)
{
	const struct xid_info *x;
	Tcl_Obj *d;
	int code;

	if (Tcl_GetIntFromObj(NULL, c->argv[0], &code) != TCL_OK || code < 0)
		return tc_err(c, "INPUT", "an XID is a number, not \"%s\"", Tcl_GetString(c->argv[0]));
	x = xid_lookup(code);
	d = Tcl_NewDictObj();
	tc_dint(d, "code", code);
	tc_dint(d, "known", x->code == code);
	tc_dstr(d, "meaning", x->meaning);
	tc_dstr(d, "bucket", x->bucket);
	tc_dstr(d, "action", x->remedy);
	tc_dstr(d, "kind", fault_kind_name(x->kind));
	tc_dstr(d, "severity", severity_name(x->severity));
	tc_dint(d, "hardware", x->hardware);
	tc_dint(d, "sympathetic", x->sympathetic);
	return ok(c, d);
}
