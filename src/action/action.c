/*
 * action.c - the action engine (see action.h): audit events for every phase,
 * the guards in a fixed order, the blast-radius window, confirmation through
 * the console, and the calls into app->backend.
 */
#include <stdio.h>
#include <string.h>
#include "action.h"
#include "../ui/ui.h"

struct touch {                     /* one sent action in the window */
	int64_t time;
	int32_t nodes, gpus;
};

struct pending {                   /* an action waiting for the operator */
	struct myriad *app;
	struct action a;
	uint32_t id;
	int32_t *nodes;
	char *strs[7];
	struct pending *next;
};

struct engine {
	uint32_t next_id;
	struct action_limits lim;
	struct touch *t;
	int nt, ct;
	struct pending *pending;
};

static const char *const kind_names[AK_COUNT] = {
	"node drain", "node resume", "job requeue", "job checkpoint", "fault ack",
};

const char *action_kind_name(enum action_kind k)
{
	return k < AK_COUNT ? kind_names[k] : "?";
}

const char *action_status_name(enum action_status s)
{
	static const char *const names[] = {"done", "partial", "failed", "dry-run", "refused", "pending"};

	return s <= AS_PENDING ? names[s] : "?";
}

static struct engine *engine(struct myriad *app)
{
	struct engine *e = app->actions;

	if (!e) {
		e = xcalloc(1, sizeof *e);
		e->next_id = 1;
		e->lim = (struct action_limits){ACTION_DEFAULT_NODES, ACTION_DEFAULT_GPUS, ACTION_DEFAULT_WINDOW};
		app->actions = e;
	}
	return e;
}

void action_get_limits(struct myriad *app, struct action_limits *l)
{
	*l = engine(app)->lim;
}

void action_set_limits(struct myriad *app, const struct action_limits *l)
{
	engine(app)->lim = *l;
}

static void prune(struct engine *e, int64_t now)
{
	int k = 0;

	for (int i = 0; i < e->nt; i++)
		if (e->t[i].time > now - e->lim.window_us && e->t[i].time <= now)
			e->t[k++] = e->t[i];
	e->nt = k;
}

void action_window(struct myriad *app, int32_t *nodes, int32_t *gpus)
{
	struct engine *e = engine(app);

	prune(e, app->now);
	*nodes = *gpus = 0;
	for (int i = 0; i < e->nt; i++) {
		*nodes += e->t[i].nodes;
		*gpus += e->t[i].gpus;
	}
}

static void remember(struct engine *e, int64_t now, int32_t nodes, int32_t gpus)
{
	if (!nodes && !gpus)
		return;
	if (e->nt == e->ct) {
		e->ct = e->ct ? e->ct * 2 : 16;
		e->t = xrealloc(e->t, sizeof *e->t * (size_t)e->ct);
	}
	e->t[e->nt++] = (struct touch){now, nodes, gpus};
}

static void free_pending(struct pending *p)
{
	for (unsigned i = 0; i < ARRAY_LEN(p->strs); i++)
		free(p->strs[i]);
	free(p->nodes);
	free(p);
}

void action_free(struct myriad *app)
{
	struct engine *e = app->actions;

	if (!e)
		return;
	while (e->pending) {
		struct pending *p = e->pending;

		e->pending = p->next;
		free_pending(p);
	}
	free(e->t);
	free(e);
	app->actions = NULL;
}

const char *action_check_reason(const char *r)
{
	if (!r || !*r)
		return "a drain needs a reason (-reason TEXT), e.g. \"xid79 gpu3 fallen-off-bus\"";
	if (strlen(r) > 64)
		return "the reason is longer than 64 characters";
	for (const unsigned char *p = (const unsigned char *)r; *p; p++) {
		if (*p == ',')
			return "the reason must not contain commas (sinfo output readability)";
		if (*p < 0x20 || *p == 0x7f)
			return "the reason must not contain control characters";
	}
	return NULL;
}

/* ---- audit events ---- */

static void emit(struct myriad *app, const struct action *a, uint32_t id, int phase, int ok, int dry,
		 const char *detail)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_ACTION;
	ev.source = a->source ? a->source : "tcl";
	ev.u.action = (struct ev_action){id, phase, ok, dry, action_kind_name(a->kind), a->target ? a->target : "",
					 a->args ? a->args : "", a->who ? a->who : "", detail ? detail : ""};
	app_emit(app, &ev);
	if (!app->bus.flushing)
		bus_flush(&app->bus);
}

static int refuse(struct myriad *app, const struct action *a, struct action_outcome *out, enum action_why why,
		  const char *fmt, ...) PRINTF_LIKE(5, 6);

static int refuse(struct myriad *app, const struct action *a, struct action_outcome *out, enum action_why why,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->detail, sizeof out->detail, fmt, ap);
	va_end(ap);
	out->status = AS_REFUSED;
	out->why = why;
	emit(app, a, out->id, ACT_DECIDED, 0, 0, out->detail);
	return -1;
}

/* ---- what an action touches ---- */

static void measure(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	const struct model *m = &app->model;
	const struct job *j;

	out->nodes = out->gpus = 0;
	switch (a->kind) {
	case AK_DRAIN:
	case AK_RESUME:
		out->nodes = a->nnodes;
		for (int32_t i = 0; i < a->nnodes; i++)
			if (a->nodes[i] >= 0 && a->nodes[i] < m->nnodes)
				out->gpus += m->nodes[a->nodes[i]].gpus ? m->nodes[a->nodes[i]].gpus : m->gpus_per_node;
		break;
	case AK_REQUEUE:
	case AK_SIGNAL:
		if ((j = model_job(m, a->job))) {
			out->nodes = j->nnodes;
			out->gpus = j->gpus;
		}
		break;
	default:
		break;
	}
}

static int over_limit(struct myriad *app, const struct action_outcome *out, char *why, size_t n)
{
	struct engine *e = engine(app);
	int32_t wn, wg;

	action_window(app, &wn, &wg);
	if ((e->lim.nodes && wn + out->nodes > e->lim.nodes) || (e->lim.gpus && wg + out->gpus > e->lim.gpus)) {
		snprintf(why, n,
			 "blast radius: %d nodes (%d GPUs) in the last %llds with this action, over the limit of %d nodes / %d GPUs",
			 wn + out->nodes, wg + out->gpus, (long long)(e->lim.window_us / US_PER_SEC), e->lim.nodes,
			 e->lim.gpus);
		return 1;
	}
	return 0;
}

/* ---- sending ---- */

static void note_error(struct action_outcome *out, const char *target, const char *err)
{
	size_t len = strlen(out->detail);

	out->failed++;
	if (len < sizeof out->detail - 1)
		snprintf(out->detail + len, sizeof out->detail - len, "%s%s: %s", len ? "; " : "", target, err);
}

static void send_nodes(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	struct backend *b = app->backend;
	char err[256];

	for (int32_t i = 0; i < a->nnodes; i++) {
		int rc;

		err[0] = '\0';
		out->sent++;
		if (a->kind == AK_DRAIN)
			rc = b->ops->drain(b, a->nodes[i], a->reason, a->who, err, sizeof err);
		else
			rc = b->ops->resume(b, a->nodes[i], err, sizeof err);
		if (rc < 0) {
			const char *name = a->nodes[i] >= 0 && a->nodes[i] < app->model.nnodes
				? app->model.nodes[a->nodes[i]].name : "?";

			note_error(out, name, err[0] ? err : "failed");
		}
	}
}

static void send_ack(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_FAULT_ACK;
	ev.source = a->source ? a->source : "tcl";
	ev.u.fault_ack = (struct ev_fault_ack){a->fault, a->who ? a->who : "", a->note ? a->note : ""};
	app_emit(app, &ev);
	out->sent = 1;
}

static void send(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	struct backend *b = app->backend;
	char err[256] = "", target[32];

	out->detail[0] = '\0';
	snprintf(target, sizeof target, "%u", a->kind == AK_ACK ? a->fault : a->job);
	switch (a->kind) {
	case AK_DRAIN:
	case AK_RESUME:
		send_nodes(app, a, out);
		return;
	case AK_ACK:
		send_ack(app, a, out);
		return;
	case AK_REQUEUE:
		out->sent = 1;
		if (b->ops->requeue(b, a->job, a->nodes, a->nnodes, err, sizeof err) < 0)
			note_error(out, target, err[0] ? err : "failed");
		return;
	case AK_SIGNAL:
		out->sent = 1;
		if (b->ops->signal(b, a->job, a->sig, err, sizeof err) < 0)
			note_error(out, target, err[0] ? err : "failed");
		return;
	default:
		return;
	}
}

static int input_error(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	const char *why = NULL;

	if (a->kind == AK_DRAIN)
		why = action_check_reason(a->reason);
	else if (a->kind == AK_ACK && !model_fault(&app->model, a->fault))
		why = "no such fault";
	else if (a->kind == AK_SIGNAL && (a->sig < 1 || a->sig > 64))
		why = "invalid signal";
	else if ((a->kind == AK_DRAIN || a->kind == AK_RESUME) && a->nnodes == 0)
		why = "no nodes to act on";
	if (a->force && (!a->force_reason || !*a->force_reason))
		why = "-force needs -reason TEXT saying why";
	if (why)
		return refuse(app, a, out, AW_INPUT, "%s", why);
	return 0;
}

static void confirmed(void *ctx, int yes);

static int ask(struct myriad *app, const struct action *a, struct action_outcome *out, const char *why)
{
	struct pending *p = xcalloc(1, sizeof *p);
	struct engine *e = engine(app);
	char *err = NULL, *text;
	const char **fields[] = {&p->a.source, &p->a.who, &p->a.reason, &p->a.note, &p->a.target, &p->a.args,
				 &p->a.force_reason};

	p->app = app;
	p->a = *a;
	p->id = out->id;
	for (unsigned i = 0; i < ARRAY_LEN(fields); i++)
		if (*fields[i])
			*fields[i] = p->strs[i] = xstrdup(*fields[i]);
	if (a->nnodes) {
		p->nodes = xmalloc(sizeof *p->nodes * (size_t)a->nnodes);
		memcpy(p->nodes, a->nodes, sizeof *p->nodes * (size_t)a->nnodes);
		p->a.nodes = p->nodes;
	}
	text = xasprintf("%s %s: %s. Go ahead?", action_kind_name(a->kind), a->target ? a->target : "", why);
	p->next = e->pending;
	e->pending = p;
	if (ui_confirm(app, text, confirmed, p, &err) < 0) {
		e->pending = p->next;
		free_pending(p);
		free(text);
		refuse(app, a, out, AW_GUARD, "%s; and the console cannot ask (%s)", why, err ? err : "?");
		free(err);
		return -1;
	}
	free(text);
	snprintf(out->detail, sizeof out->detail, "%s: waiting for the operator's confirmation", why);
	out->status = AS_PENDING;
	out->why = AW_GUARD;
	emit(app, a, out->id, ACT_DECIDED, 0, 0, out->detail);
	return -1;
}

static int execute(struct myriad *app, const struct action *a, struct action_outcome *out, const char *decision)
{
	struct engine *e = engine(app);

	if (!app->backend && a->kind != AK_ACK)
		return refuse(app, a, out, AW_NO_BACKEND, "no backend to send it to (a recording, or no scheduler)");
	emit(app, a, out->id, ACT_DECIDED, 1, 0, decision);
	remember(e, app->now, out->nodes, out->gpus);
	emit(app, a, out->id, ACT_SENT, 1, 0, a->kind == AK_ACK ? "model" : app->backend->ops->name);
	send(app, a, out);
	out->status = !out->failed ? AS_DONE : out->failed < out->sent ? AS_PARTIAL : AS_FAILED;
	out->why = out->failed ? AW_BACKEND : AW_NONE;
	emit(app, a, out->id, ACT_RESULT, !out->failed, 0, out->failed ? out->detail : "ok");
	return out->status == AS_FAILED ? -1 : 0;
}

static void confirmed(void *ctx, int yes)
{
	struct pending *p = ctx, **pp;
	struct myriad *app = p->app;
	struct engine *e = engine(app);
	struct action_outcome out;

	for (pp = &e->pending; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (!*pp)
		return;   /* already gone */
	*pp = p->next;
	memset(&out, 0, sizeof out);
	out.id = p->id;
	measure(app, &p->a, &out);
	if (!yes)
		refuse(app, &p->a, &out, AW_GUARD, "declined by the operator");
	else if (app->read_only)
		refuse(app, &p->a, &out, AW_READ_ONLY, "read-only: acting commands are refused");
	else
		execute(app, &p->a, &out, "confirmed by the operator");
	free_pending(p);
}

int action_submit(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	struct engine *e = engine(app);
	char why[256];
	int over;

	memset(out, 0, sizeof *out);
	out->id = e->next_id++;
	measure(app, a, out);
	emit(app, a, out->id, ACT_REQUESTED, 1, a->dry_run || app->dry_run, "");
	if (app->read_only && !a->dry_run && !app->dry_run)
		return refuse(app, a, out, AW_READ_ONLY, "read-only: acting commands are refused (--read-only)");
	if (a->source && !strcmp(a->source, "config"))
		return refuse(app, a, out, AW_CONFIG,
			      "the configuration may not act on the cluster (define a hook with `on` instead)");
	if (input_error(app, a, out))
		return -1;
	over = a->kind != AK_ACK && over_limit(app, out, why, sizeof why);
	if (a->dry_run || app->dry_run) {
		snprintf(out->detail, sizeof out->detail, "dry-run: %s %s would touch %d nodes (%d GPUs)%s%s%s",
			 action_kind_name(a->kind), a->target ? a->target : "", out->nodes, out->gpus,
			 over ? "; " : "", over ? (a->force ? "forced past the blast-radius guard" : "needs confirmation: over the blast-radius limit") : "",
			 app->read_only ? "; read-only: it would be refused" : "");
		out->status = AS_DRY_RUN;
		emit(app, a, out->id, ACT_DECIDED, 1, 1, out->detail);
		return 0;
	}
	if (over && !a->force) {
		if (app->console && app->loop)
			return ask(app, a, out, why);
		return refuse(app, a, out, AW_GUARD, "%s: confirm in the console, or give -force -reason TEXT", why);
	}
	if (over) {
		char decision[300];

		snprintf(decision, sizeof decision, "forced past the blast-radius guard: %s", a->force_reason);
		return execute(app, a, out, decision);
	}
	return execute(app, a, out, a->force ? "allowed (-force)" : "allowed");
}
