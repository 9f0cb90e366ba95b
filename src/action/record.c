/*
 * record.c - the engine's records of actions: a copy of what was asked (the
 * submitter's strings do not outlive its call), the backend call built from
 * it, the list of held and sent actions, the ring of recently finished ones,
 * the backend's reply, waiting for an end (batch), listing, and freeing.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "action_int.h"
#include "../trace.h"
#include "../nodeset.h"

static const enum backend_verb verbs[AK_COUNT] = {
	[AK_DRAIN] = BV_DRAIN, [AK_RESUME] = BV_RESUME, [AK_REQUEUE] = BV_REQUEUE, [AK_SIGNAL] = BV_SIGNAL,
};

static char *fold_nodes(const struct model *m, const int32_t *nodes, int32_t n)
{
	struct nodeset *ns = nodeset_new();
	char *s;

	for (int32_t i = 0; i < n; i++)
		if (nodes[i] >= 0 && nodes[i] < m->nnodes)
			nodeset_add(ns, m->nodes[nodes[i]].name);
	s = nodeset_fold_slurm(ns);   /* for scontrol and sinfo */
	nodeset_free(ns);
	return s;
}

struct act *act_new(struct action_engine *e, const struct action *a, const struct action_outcome *out)
{
	struct act *r = xcalloc(1, sizeof *r);
	const char **fields[] = {&r->a.source, &r->a.who, &r->a.reason, &r->a.note, &r->a.target, &r->a.args,
				 &r->a.force_reason};

	r->e = e;
	r->a = *a;
	r->out = *out;
	r->submitted = e->app->now;
	for (unsigned i = 0; i < ARRAY_LEN(fields); i++)
		if (*fields[i])
			*fields[i] = r->strs[i] = xstrdup(*fields[i]);
	if (a->nnodes) {
		r->nodes = xmalloc(sizeof *r->nodes * (size_t)a->nnodes);
		memcpy(r->nodes, a->nodes, sizeof *r->nodes * (size_t)a->nnodes);
	}
	r->a.nodes = r->nodes;
	r->nodeset = fold_nodes(&e->app->model, r->nodes, a->nnodes);
	r->call = (struct backend_call){out->id, a->kind < AK_COUNT ? verbs[a->kind] : BV_DRAIN, r->nodes, a->nnodes,
					r->nodeset, a->job, a->sig, r->a.reason ? r->a.reason : "",
					r->a.who ? r->a.who : "", NULL};
	return r;
}

void act_free(struct act *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < ARRAY_LEN(r->strs); i++)
		free(r->strs[i]);
	free(r->nodes);
	free(r->nodeset);
	free(r);
}

void act_live(struct act *r)
{
	r->next = r->e->live;
	r->e->live = r;
}

struct act *act_find(struct action_engine *e, uint32_t id)
{
	for (struct act *r = e->live; r; r = r->next)
		if (r->out.id == id)
			return r;
	for (int i = 0; i < e->ndone; i++)
		if (e->done[i]->out.id == id)
			return e->done[i];
	return NULL;
}

static void unlink_live(struct act *r)
{
	for (struct act **pp = &r->e->live; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			r->next = NULL;
			return;
		}
}

static void keep_done(struct act *r)
{
	struct action_engine *e = r->e;

	if (e->ndone < ACT_KEEP) {
		e->done[e->ndone++] = r;
		return;
	}
	act_free(e->done[e->done_at]);
	e->done[e->done_at] = r;
	e->done_at = (e->done_at + 1) % ACT_KEEP;
}

void act_finish(struct act *r, enum action_status status, enum action_why why, int32_t failed, const char *detail)
{
	struct myriad *app = r->e->app;
	int was_sent = r->out.status == AS_SENT || AK_LOCAL(r->a.kind);

	if (r->timer) {
		loop_timer_cancel(app->loop, r->timer);
		r->timer = 0;
	}
	r->out.status = status;
	r->out.why = why;
	r->out.failed = failed;
	if (detail)
		snprintf(r->out.detail, sizeof r->out.detail, "%s", detail);
	trace("action %u %s", r->out.id, action_status_name(status));
	if (was_sent && status != AS_REFUSED)
		act_emit(app, &r->a, r->out.id, ACT_RESULT, status == AS_DONE, 0, action_status_name(status),
			 status == AS_DONE && !*r->out.detail ? "ok" : r->out.detail);
	unlink_live(r);
	keep_done(r);
	if (r->fn && !r->in_submit) {
		action_result_fn fn = r->fn;

		r->fn = NULL;
		fn(r->ctx, &r->out);
	}
	r->fn = NULL;
}

/* ---- backend.h ---- */

void backend_reply(struct backend_call *call, enum backend_status status, int32_t failed, const char *detail)
{
	struct act *r = (struct act *)((char *)call - offsetof(struct act, call));
	static const enum action_status map[] = {AS_DONE, AS_PARTIAL, AS_FAILED, AS_FAILED};

	if (r->out.status != AS_SENT)
		return;   /* already ended (timed out): a late answer changes nothing */
	if (status > BS_UNREACHABLE)
		status = BS_FAILED;
	act_finish(r, map[status], status == BS_DONE ? AW_NONE : status == BS_UNREACHABLE ? AW_UNREACHABLE : AW_BACKEND,
		   failed, detail ? detail : "");
}

static void backend_stop(struct myriad *app)
{
	if (app->backend && app->backend->ops->free)
		app->backend->ops->free(app->backend);
	free(app->backend);
	app->backend = NULL;
	app_stopped(app, PART_BACKEND);
}

void backend_install(struct myriad *app, const struct backend_ops *ops, void *priv)
{
	backend_stop(app);
	app->backend = xcalloc(1, sizeof *app->backend);
	app->backend->ops = ops;
	app->backend->app = app;
	app->backend->priv = priv;
	app_started(app, PART_BACKEND, backend_stop);
}

/* ---- waiting, listing ---- */

int action_wait(struct myriad *app, uint32_t id, int64_t until, struct action_outcome *out)
{
	struct action_engine *e = engine_of(app);
	struct act *r;
	int64_t now;

	while ((r = act_find(e, id)) && !AS_FINAL(r->out.status) && (now = mono_us()) < until)
		loop_once(app->loop, (int)MIN((until - now + 999) / 1000, 100));
	if (!r)
		return -1;
	*out = r->out;
	return AS_FINAL(r->out.status) ? 0 : -1;
}

void action_detach(struct myriad *app, uint32_t id)
{
	struct act *r = act_find(engine_of(app), id);

	if (r)
		r->fn = NULL;
}

static void info_of(const struct act *r, struct action_info *i)
{
	memset(i, 0, sizeof *i);
	i->id = r->out.id;
	i->kind = r->a.kind;
	i->status = r->out.status;
	snprintf(i->target, sizeof i->target, "%s", r->a.target ? r->a.target : "");
	i->source = r->a.source ? r->a.source : "";
	i->who = r->a.who ? r->a.who : "";
	i->submitted = r->submitted;
	i->age_us = r->out.status == AS_SENT ? mono_us() - r->sent_mono : 0;
	i->detail = r->out.detail;
}

void action_each(struct myriad *app, int all, void (*fn)(void *ctx, const struct action_info *i), void *ctx)
{
	struct action_engine *e = engine_of(app);
	struct action_info i;

	for (struct act *r = e->live; r; r = r->next) {
		info_of(r, &i);
		fn(ctx, &i);
	}
	for (int k = 0; all && k < e->ndone; k++) {   /* newest first */
		info_of(e->done[(e->done_at + e->ndone - 1 - k) % e->ndone], &i);
		fn(ctx, &i);
	}
}

int action_pending(struct myriad *app)
{
	int n = 0;

	if (!app->actions)
		return 0;
	for (struct act *r = engine_of(app)->live; r; r = r->next)
		n++;
	return n;
}

void action_free(struct myriad *app)
{
	struct action_engine *e = app->actions;

	if (!e)
		return;
	while (e->live) {
		struct act *r = e->live;

		if (r->out.status == AS_SENT && app->backend && app->backend->ops->cancel)
			app->backend->ops->cancel(app->backend, &r->call);
		act_finish(r, r->out.status == AS_SENT ? AS_TIMEOUT : AS_REFUSED, AW_TIMEOUT, r->out.failed,
			   "myriad stopped before the answer");
	}
	for (int i = 0; i < e->ndone; i++)
		act_free(e->done[i]);
	free(e->t);
	free(e);
	app->actions = NULL;
	app_stopped(app, PART_ACTIONS);
}
