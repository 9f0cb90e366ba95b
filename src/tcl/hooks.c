/*
 * hooks.c - `on`, `off`, `every` and `hooks`: Tcl scripts run by events.
 *
 * One bus subscriber (after the model, so it sees the state after each
 * event) turns events into hook calls: a fault that opened (or was
 * acknowledged or closed), a node whose scheduler state changed, a job that
 * appeared, changed state or ended, a connection state, a tick, and `every`
 * period of cluster time. Node and job states are remembered here so a hook
 * fires on a change, never on a repeated poll; nothing fires for what the
 * sources announce at tick 0 (the inventory and the first queue).
 *
 * A hook's script runs as the body of `apply {ev} {dict with ev {}; ...}`
 * in the interpreter that made it: its variables ($node, $code ...) come from
 * the event dict, values never pasted into script text. Each run has a
 * command budget (guard -hook-commands); a hook that fails guard -hook-errors
 * times is disabled.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "hooks.h"
#include "../xidcat.h"

const char *const tc_hook_kinds[HK_COUNT] = {"fault", "node", "job", "conn", "tick", "event", "every"};

int tc_in_hook(struct tcl_state *ts)
{
	return ts->hooks && ts->hooks->depth > 0;
}

/* ---- remembered states ---- */

static struct job_seen *job_slot(struct hooks *hs, uint32_t id, int add);

static void jobs_grow(struct hooks *hs)
{
	struct job_seen *old = hs->jobs;
	uint32_t ocap = hs->jcap;

	hs->jcap = hs->jcap ? hs->jcap * 2 : 1024;
	hs->jobs = xcalloc(hs->jcap, sizeof *hs->jobs);
	hs->jn = 0;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].id && old[i].state != -2)
			*job_slot(hs, old[i].id, 1) = old[i];
	free(old);
}

static struct job_seen *job_slot(struct hooks *hs, uint32_t id, int add)
{
	uint32_t h;

	if (add && (hs->jn + 1) * 2 > hs->jcap)
		jobs_grow(hs);
	if (!hs->jcap)
		return NULL;
	for (h = id * 2654435761u;; h++) {
		struct job_seen *s = &hs->jobs[h & (hs->jcap - 1)];

		if (s->id == id)
			return s;
		if (!s->id) {
			if (!add)
				return NULL;
			s->id = id;
			s->state = -1;
			hs->jn++;
			return s;
		}
	}
}

static void nodes_resize(struct hooks *hs, int32_t n)
{
	hs->nnodes = n;
	hs->base = xrealloc(hs->base, sizeof *hs->base * (size_t)(n + 1));
	hs->flags = xrealloc(hs->flags, sizeof *hs->flags * (size_t)(n + 1));
	hs->reason = xrealloc(hs->reason, sizeof *hs->reason * (size_t)(n + 1));
	for (int32_t i = 0; i < n; i++)
		hs->base[i] = -1;
}

/* ---- event dicts ---- */

static int is_xid(const struct fault *f)
{
	return !strncmp(f->text, "XID ", 4);
}

static void gpu_name(const struct model *m, int32_t node, int32_t gpu, char *out, size_t n)
{
	if (node >= 0 && node < m->nnodes && gpu >= 0)
		snprintf(out, n, "%s:%d", m->nodes[node].name, gpu);
	else
		out[0] = '\0';
}

Tcl_Obj *tc_fault_dict(const struct model *m, const struct fault *f)
{
	Tcl_Obj *d = Tcl_NewDictObj();
	char gpu[NAME_MAX_LEN + 16];
	const struct xid_info *x = xid_lookup(f->code);
	int xid = is_xid(f);

	gpu_name(m, f->node, f->kind == FK_IB ? -1 : f->gpu, gpu, sizeof gpu);
	tc_dint(d, "id", f->id);
	tc_dtime(d, "time", f->time);
	tc_dstr(d, "node", f->node >= 0 && f->node < m->nnodes ? m->nodes[f->node].name : "");
	tc_dstr(d, "gpu", gpu);
	tc_dint(d, "index", f->gpu);
	tc_dstr(d, "kind", fault_kind_name(f->kind));
	tc_dint(d, "code", f->code);
	tc_dint(d, "xid", xid ? f->code : 0);
	tc_dstr(d, "severity", severity_name(f->severity));
	tc_dstr(d, "text", f->text);
	tc_dstr(d, "action", f->remedy);   /* the remedy: "action" to runbooks */
	tc_dint(d, "count", f->count);
	tc_dint(d, "burst", f->burst);
	tc_dint(d, "hardware", xid && x->hardware);
	tc_dint(d, "sympathetic", xid && x->sympathetic);
	tc_dstr(d, "acked_by", f->ack_who);
	tc_dtime(d, "acked", f->ack_time);
	tc_dtime(d, "closed", f->close_time);
	return d;
}

static Tcl_Obj *base_dict(const char *event, int64_t time)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	tc_dstr(d, "event", event);
	tc_dtime(d, "time", time);
	return d;
}

/* ---- filters ---- */

static int match_words(const struct hook *h, const char *a, const char *b)
{
	if (!h->nwords)
		return 1;
	for (int i = 0; i < h->nwords; i++)
		if (!strcasecmp(h->words[i], a) || (b && !strcasecmp(h->words[i], b)))
			return 1;
	return 0;
}

static int match_fault(const struct hook *h, const struct model *m, const struct fault *f, const char *event)
{
	int code = f->code, hit = !h->ncodes;

	if (strcmp(h->event, "any") && strcmp(h->event, event))
		return 0;
	if (h->kinds && !(h->kinds & (1u << f->kind)) && !((h->kinds & XID_BIT) && is_xid(f)))
		return 0;
	if ((h->kinds & XID_BIT) && h->ncodes && !is_xid(f))
		return 0;
	for (int i = 0; i < h->ncodes; i++)
		hit |= h->codes[i] == code;
	if (!hit || f->severity < h->min_sev)
		return 0;
	return !h->nodes || (f->node >= 0 && f->node < m->nnodes && nodeset_contains(h->nodes, m->nodes[f->node].name));
}

static int match_node(const struct hook *h, const struct node *n)
{
	if (h->nodes && !nodeset_contains(h->nodes, n->name))
		return 0;
	if (!h->nwords)
		return 1;
	for (int i = 0; i < h->nwords; i++)
		if (model_state_match(n, h->words[i]) == 1)
			return 1;
	return 0;
}

static int match_job(const struct hook *h, const struct model *m, const struct job *j, const char *event,
		     const char *state)
{
	int on = !h->nodes;

	if (!match_words(h, state, event))
		return 0;
	if (h->user && (!j || strcmp(h->user, j->user)))
		return 0;
	for (int32_t k = 0; !on && j && k < j->nnodes; k++)
		on = nodeset_contains(h->nodes, m->nodes[j->node_idx[k]].name);
	return on;
}

/* ---- running ---- */

static void hook_failed(struct tcl_state *ts, struct hook *h, Tcl_Interp *in)
{
	const char *info = Tcl_GetVar(in, "errorInfo", TCL_GLOBAL_ONLY);

	h->errors++;
	free(h->last_error);
	h->last_error = xstrdup(Tcl_GetString(Tcl_GetObjResult(in)));
	tc_report(ts, "hook%d (on %s %s): %s", h->id, tc_hook_kinds[h->kind], Tcl_GetString(h->filter),
		  info ? info : h->last_error);
	if ((int)h->errors >= ts->hook_errors && !h->disabled) {
		h->disabled = 1;
		tc_report(ts, "hook%d disabled after %llu errors (see `hooks`)", h->id, (unsigned long long)h->errors);
	}
}

/* Sets h's limits; returns what tc_time_limit_end() restores. */
static int64_t set_budget(struct tcl_state *ts, struct hook *h)
{
	static Tcl_Obj *count;
	Tcl_WideInt n = 0;

	if (h->safe)
		return tc_safe_limits(ts, h->interp);
	if (!count) {
		count = Tcl_NewStringObj("info cmdcount", -1);
		Tcl_IncrRefCount(count);
	}
	if (Tcl_EvalObjEx(h->interp, count, 0) == TCL_OK)
		Tcl_GetWideIntFromObj(NULL, Tcl_GetObjResult(h->interp), &n);
	Tcl_LimitTypeSet(h->interp, TCL_LIMIT_COMMANDS);
	Tcl_LimitSetCommands(h->interp, (int)MIN((Tcl_WideInt)INT32_MAX, n + ts->hook_commands));
	return tc_time_limit(h->interp, ts->hook_ms);   /* the count misses `while 1 {}` */
}

static void run_hook(struct tcl_state *ts, struct hook *h, Tcl_Obj *ev)
{
	Tcl_Interp *in = h->interp;
	Tcl_Obj *objv[3] = {ts->apply, h->lambda, ev};
	char saved[sizeof ts->via];
	int64_t saved_limit;
	int rc;

	h->runs++;
	ts->hooks->depth++;
	Tcl_Preserve(in);
	memcpy(saved, ts->via, sizeof saved);
	snprintf(ts->via, sizeof ts->via, "hook:%d", h->id);
	saved_limit = set_budget(ts, h);
	rc = Tcl_EvalObjv(in, 3, objv, TCL_EVAL_GLOBAL);
	Tcl_LimitTypeReset(in, TCL_LIMIT_COMMANDS);
	tc_time_limit_end(in, saved_limit);
	memcpy(ts->via, saved, sizeof saved);
	ts->hooks->depth--;
	if (rc == TCL_ERROR && !ts->exiting)
		hook_failed(ts, h, in);
	Tcl_ResetResult(in);
	Tcl_Release(in);
}

/* Runs every live hook of kind that pred accepts, with ev (owned here). */
static void fire(struct tcl_state *ts, enum hook_kind kind, Tcl_Obj *ev,
		 int (*pred)(const struct hook *h, const void *arg), const void *arg)
{
	struct hooks *hs = ts->hooks;
	int n = hs->n;

	Tcl_IncrRefCount(ev);
	for (int i = 0; i < n && !ts->exiting; i++) {
		struct hook *h = hs->h[i];

		if (h->kind == kind && !h->removed && !h->disabled && (!pred || pred(h, arg)))
			run_hook(ts, h, ev);
	}
	Tcl_DecrRefCount(ev);
}

static int any_hooks(struct hooks *hs, enum hook_kind kind)
{
	for (int i = 0; i < hs->n; i++)
		if (hs->h[i]->kind == kind && !hs->h[i]->removed && !hs->h[i]->disabled)
			return 1;
	return 0;
}

void tc_hook_free(struct hook *h)
{
	Tcl_DecrRefCount(h->lambda);
	Tcl_DecrRefCount(h->filter);
	for (int i = 0; i < h->nwords; i++)
		free(h->words[i]);
	free(h->words);
	free(h->event);
	free(h->user);
	free(h->host);
	free(h->last_error);
	if (h->nodes)
		nodeset_free(h->nodes);
	free(h);
}

void tc_hooks_compact(struct hooks *hs)
{
	int k = 0;

	if (hs->depth)
		return;
	for (int i = 0; i < hs->n; i++) {
		if (hs->h[i]->removed)
			tc_hook_free(hs->h[i]);
		else
			hs->h[k++] = hs->h[i];
	}
	hs->n = k;
	hs->dirty = 0;
}


/* ---- from events ---- */

struct fault_arg {
	const struct model *m;
	const struct fault *f;
	const char *event;
};

static int fault_pred(const struct hook *h, const void *arg)
{
	const struct fault_arg *a = arg;

	return match_fault(h, a->m, a->f, a->event);
}

static void fire_fault(struct tcl_state *ts, const struct fault *f, const char *event)
{
	struct fault_arg a = {&ts->app->model, f, event};
	Tcl_Obj *d = tc_fault_dict(a.m, f);

	tc_dstr(d, "event", event);
	fire(ts, HK_FAULT, d, fault_pred, &a);
}

static void new_faults(struct tcl_state *ts)
{
	struct hooks *hs = ts->hooks;
	const struct model *m = &ts->app->model;

	while (hs->last_fault < m->next_fault_id) {
		const struct fault *f = model_fault(m, hs->last_fault++);

		if (f && any_hooks(hs, HK_FAULT))
			fire_fault(ts, f, "open");
	}
}

static int node_pred(const struct hook *h, const void *arg)
{
	return match_node(h, arg);
}

static void node_changed(struct tcl_state *ts, const struct event *ev)
{
	struct hooks *hs = ts->hooks;
	const struct model *m = &ts->app->model;
	int32_t i = ev->u.node_state.node;
	const struct node *n;
	struct node prev;
	uint64_t reason;
	char *now, *was;
	Tcl_Obj *d;

	if (hs->nnodes != m->nnodes)
		nodes_resize(hs, m->nnodes);
	if (i < 0 || i >= m->nnodes)
		return;
	n = &m->nodes[i];
	reason = hash_str(HASH_INIT, n->reason);
	prev = *n;
	prev.base = hs->base[i];
	prev.flags = hs->flags[i];
	if (prev.base == n->base && prev.flags == n->flags && hs->reason[i] == reason)
		return;
	hs->base[i] = n->base;
	hs->flags[i] = n->flags;
	hs->reason[i] = reason;
	if (prev.base < 0 || !ts->app->tick || !any_hooks(hs, HK_NODE))
		return;
	now = model_state_name(n);
	was = model_state_name(&prev);
	d = base_dict("change", ev->time);
	tc_dstr(d, "node", n->name);
	tc_dstr(d, "state", now);
	tc_dstr(d, "previous", was);
	tc_dint(d, "drain", node_is_drained(n));
	tc_dstr(d, "reason", n->reason);
	tc_dstr(d, "who", n->reason_who);
	free(now);
	free(was);
	fire(ts, HK_NODE, d, node_pred, n);
}

struct job_arg {
	const struct model *m;
	const struct job *j;
	const char *event, *state;
};

static int job_pred(const struct hook *h, const void *arg)
{
	const struct job_arg *a = arg;

	return match_job(h, a->m, a->j, a->event, a->state);
}

static void job_changed(struct tcl_state *ts, const struct event *ev)
{
	struct hooks *hs = ts->hooks;
	const struct model *m = &ts->app->model;
	uint32_t id = ev->type == EV_JOB ? ev->u.job.id : ev->u.job_end.id;
	const struct job *j = ev->type == EV_JOB ? model_job(m, id) : NULL;
	struct job_seen *s = job_slot(hs, id, ev->type == EV_JOB);
	int32_t prev = s ? s->state : -1, state = ev->type == EV_JOB ? ev->u.job.state : ev->u.job_end.state;
	struct job_arg a = {m, j, ev->type == EV_JOB_END ? "end" : prev < 0 ? "new" : "change", job_state_name(state)};
	Tcl_Obj *d;

	if (!s || prev == state || prev == -2)
		return;
	s->state = ev->type == EV_JOB_END ? -2 : state;
	if (!ts->app->tick || !any_hooks(hs, HK_JOB))
		return;
	d = base_dict(a.event, ev->time);
	tc_dint(d, "id", id);
	tc_dstr(d, "state", a.state);
	tc_dstr(d, "previous", prev >= 0 ? job_state_name(prev) : "");
	tc_dstr(d, "name", j ? j->name : "");
	tc_dstr(d, "user", j ? j->user : "");
	tc_dstr(d, "partition", j ? j->partition : "");
	tc_dstr(d, "nodes", j && j->nodes ? j->nodes : "");
	if (j && j->gpus >= 0)
		tc_dint(d, "gpus", j->gpus);
	else
		tc_dstr(d, "gpus", "");   /* unknown (or the job is gone), as job info says */
	fire(ts, HK_JOB, d, job_pred, &a);
}

struct conn_arg {
	const struct event *ev;
	const char *node;
};

static int conn_pred(const struct hook *h, const void *arg)
{
	const struct conn_arg *a = arg;
	const char *host = a->ev->u.conn.host ? a->ev->u.conn.host : "";

	if (!match_words(h, conn_state_name(a->ev->u.conn.state), NULL))
		return 0;
	if (h->host && strcmp(h->host, host))
		return 0;
	return !h->nodes || nodeset_contains(h->nodes, a->node);
}

static void conn_changed(struct tcl_state *ts, const struct event *ev)
{
	const struct model *m = &ts->app->model;
	struct conn_arg a = {ev, ev->u.conn.node >= 0 && ev->u.conn.node < m->nnodes ? m->nodes[ev->u.conn.node].name : ""};
	Tcl_Obj *d;

	if (!any_hooks(ts->hooks, HK_CONN))
		return;
	d = base_dict("conn", ev->time);
	tc_dstr(d, "node", a.node);
	tc_dstr(d, "host", ev->u.conn.host);
	tc_dstr(d, "state", conn_state_name(ev->u.conn.state));
	tc_dstr(d, "detail", ev->u.conn.detail);
	fire(ts, HK_CONN, d, conn_pred, &a);
}

static void ticked(struct tcl_state *ts, const struct event *ev)
{
	struct hooks *hs = ts->hooks;
	Tcl_Obj *d;

	if (any_hooks(hs, HK_TICK)) {
		d = base_dict("tick", ev->time);
		tc_dint(d, "tick", ev->u.tick.tick);
		tc_dint(d, "seconds", ev->time / US_PER_SEC);
		fire(ts, HK_TICK, d, NULL, NULL);
	}
	for (int i = 0, n = hs->n; i < n && !ts->exiting; i++) {
		struct hook *h = hs->h[i];

		if (h->kind != HK_EVERY || h->removed || h->disabled)
			continue;
		if (ev->time < h->next_us - h->every_us)   /* time went back (a replay seek) */
			h->next_us = ev->time + h->every_us;
		if (ev->time < h->next_us)
			continue;
		while (h->next_us <= ev->time)
			h->next_us += h->every_us;
		d = base_dict("every", ev->time);
		tc_dint(d, "tick", ev->u.tick.tick);
		tc_dint(d, "seconds", ev->time / US_PER_SEC);
		Tcl_IncrRefCount(d);
		run_hook(ts, h, d);
		Tcl_DecrRefCount(d);
	}
}

/* on event TYPES: the raw event as a dict, from the event schema. */
struct raw_arg {
	const struct event *ev;
	const char *node;            /* its node's name, "" if none */
};

static int raw_pred(const struct hook *h, const void *arg)
{
	const struct raw_arg *a = arg;

	if (!match_words(h, ev_type_name(a->ev->type), NULL))
		return 0;
	return !h->nodes || (*a->node && nodeset_contains(h->nodes, a->node));
}

static void raw_event(struct tcl_state *ts, const struct event *ev)
{
	const struct model *m = &ts->app->model;
	int32_t n = ev_node(ev);
	struct raw_arg a = {ev, n >= 0 && n < m->nnodes ? m->nodes[n].name : ""};

	if (!any_hooks(ts->hooks, HK_EVENT) || !ts->app->tick)
		return;
	fire(ts, HK_EVENT, tc_event_dict(m, ev), raw_pred, &a);
}

static void on_event(void *ctx, const struct event *ev)
{
	struct tcl_state *ts = ctx;
	const struct fault *f;

	raw_event(ts, ev);
	switch (ev->type) {
	case EV_TICK:
		ticked(ts, ev);
		break;
	case EV_NODE_STATE:
		node_changed(ts, ev);
		break;
	case EV_JOB:
	case EV_JOB_END:
		job_changed(ts, ev);
		break;
	case EV_CONN:
		conn_changed(ts, ev);
		break;
	case EV_FAULT_ACK:
	case EV_FAULT_CLOSE:
		f = model_fault(&ts->app->model, ev->type == EV_FAULT_ACK ? ev->u.fault_ack.id : ev->u.fault_close.id);
		if (f && any_hooks(ts->hooks, HK_FAULT))
			fire_fault(ts, f, ev->type == EV_FAULT_ACK ? "ack" : "close");
		break;
	case EV_TOPOLOGY:
		ts->hooks->last_fault = ts->app->model.next_fault_id;
		nodes_resize(ts->hooks, ts->app->model.nnodes);
		break;
	default:
		break;
	}
	new_faults(ts);
	if (ts->hooks->dirty)
		tc_hooks_compact(ts->hooks);
}

void tc_hooks_init(struct tcl_state *ts)
{
	struct hooks *hs = xcalloc(1, sizeof *hs);

	hs->next_id = 1;
	hs->last_fault = ts->app->model.next_fault_id;
	ts->hooks = hs;
	nodes_resize(hs, ts->app->model.nnodes);
	for (int32_t i = 0; i < ts->app->model.nnodes; i++) {
		hs->base[i] = ts->app->model.nodes[i].base;
		hs->flags[i] = ts->app->model.nodes[i].flags;
		hs->reason[i] = hash_str(HASH_INIT, ts->app->model.nodes[i].reason);
	}
	hs->sub = bus_subscribe(&ts->app->bus, BUS_ALL, on_event, ts);
}

void tc_hooks_free(struct tcl_state *ts)
{
	struct hooks *hs = ts->hooks;

	if (!hs)
		return;
	bus_unsubscribe(&ts->app->bus, hs->sub);
	for (int i = 0; i < hs->n; i++)
		tc_hook_free(hs->h[i]);
	free(hs->h);
	free(hs->base);
	free(hs->flags);
	free(hs->reason);
	free(hs->jobs);
	free(hs);
	ts->hooks = NULL;
}

void tc_hooks_forget_interp(struct tcl_state *ts, Tcl_Interp *in)
{
	struct hooks *hs = ts->hooks;

	for (int i = 0; hs && i < hs->n; i++)
		if (hs->h[i]->interp == in) {
			hs->h[i]->removed = 1;
			hs->dirty = 1;
		}
	if (hs)
		tc_hooks_compact(hs);
}
