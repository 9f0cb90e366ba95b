/*
 * action.c - the action engine (see action.h): the guards in a fixed order,
 * the blast-radius window, held actions and their continuation, calls to
 * the backend with a deadline each, and an audit event for every phase.
 * The records of held, sent and recently finished actions are in record.c.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "action_int.h"
#include "../trace.h"

static const char *const kind_names[AK_COUNT] = {
	"node drain", "node resume", "job requeue", "job checkpoint", "fault ack", "guard raise",
};

const char *action_kind_name(enum action_kind k)
{
	return k < AK_COUNT ? kind_names[k] : "?";
}

const char *action_status_name(enum action_status s)
{
	static const char *const names[] = {"done", "partial", "failed", "timed-out", "dry-run", "refused",
					    "confirm", "sent"};

	return s <= AS_SENT ? names[s] : "?";
}

struct action_engine *engine_of(struct myriad *app)
{
	struct action_engine *e = app->actions;

	if (!e) {
		e = xcalloc(1, sizeof *e);
		e->app = app;
		e->next_id = 1;
		e->lim = (struct action_limits){ACTION_DEFAULT_NODES, ACTION_DEFAULT_GPUS, ACTION_DEFAULT_WINDOW,
						ACTION_DEFAULT_TIMEOUT};
		app->actions = e;
		app_started(app, PART_ACTIONS, action_free);
	}
	return e;
}

void action_get_limits(struct myriad *app, struct action_limits *l)
{
	*l = engine_of(app)->lim;
}

void action_set_limits(struct myriad *app, const struct action_limits *l)
{
	engine_of(app)->lim = *l;
}

/* ---- the blast-radius window ---- */

static void prune(struct action_engine *e, int64_t now)
{
	int k = 0;

	for (int i = 0; i < e->nt; i++)
		if (e->t[i].time > now - e->lim.window_us && e->t[i].time <= now)
			e->t[k++] = e->t[i];
	e->nt = k;
}

void action_window(struct myriad *app, int32_t *nodes, int32_t *gpus)
{
	struct action_engine *e = engine_of(app);

	prune(e, app->now);
	*nodes = *gpus = 0;
	for (int i = 0; i < e->nt; i++) {
		*nodes += e->t[i].nodes;
		*gpus += e->t[i].gpus;
	}
}

static void remember(struct action_engine *e, int64_t now, int32_t nodes, int32_t gpus)
{
	if (!nodes && !gpus)
		return;
	if (e->nt == e->ct) {
		e->ct = e->ct ? e->ct * 2 : 16;
		e->t = xrealloc(e->t, sizeof *e->t * (size_t)e->ct);
	}
	e->t[e->nt++] = (struct touch){now, nodes, gpus};
}

/* Length of the UTF-8 sequence at p (1-4), 0 if it is not one. */
static int utf8_seq(const unsigned char *p)
{
	int n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		: p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;   /* overlong, surrogate, beyond U+10FFFF */
	return n;
}

/* A drain reason is shown by sinfo and stored by Slurm as given, except
 * that scontrol drops a leading and a trailing double quote: so no control
 * character (C0, DEL, C1), no comma, no double quote, valid UTF-8, at most
 * 64 characters (not bytes). */
const char *action_check_reason(const char *r)
{
	int chars = 0;

	if (!r || !*r)
		return "a drain needs a reason (-reason TEXT), e.g. \"xid79 gpu3 fallen-off-bus\"";
	for (const unsigned char *p = (const unsigned char *)r; *p; chars++) {
		int n = utf8_seq(p);

		if (!n)
			return "the reason is not valid UTF-8";
		if (*p < 0x20 || *p == 0x7f || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			return "the reason must not contain control characters";
		if (*p == ',')
			return "the reason must not contain commas (sinfo output readability)";
		if (*p == '"')
			return "the reason must not contain double quotes (scontrol drops them)";
		p += n;
	}
	return chars > 64 ? "the reason is longer than 64 characters" : NULL;
}

/* ---- audit events ---- */

#define AUDIT_TEXT_MAX 4096

/* s, or when longer than the audit keeps, its first AUDIT_TEXT_MAX bytes (a
 * whole character last) and how long it was, in *keep (freed by the caller):
 * a refused 100 MB argument costs the log a few kilobytes, not four copies. */
static const char *bounded(const char *s, char **keep)
{
	size_t n = s ? strlen(s) : 0, cut = AUDIT_TEXT_MAX;

	*keep = NULL;
	if (n <= AUDIT_TEXT_MAX)
		return s ? s : "";
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	*keep = xasprintf("%.*s... (%zu bytes)", (int)cut, s, n);
	return *keep;
}

void act_emit(struct myriad *app, const struct action *a, uint32_t id, int phase, int ok, int dry,
	      const char *status, const char *detail)
{
	struct event ev;
	char *k1, *k2, *k3;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_ACTION;
	ev.source = a->source ? a->source : "tcl";
	ev.u.action = (struct ev_action){id, phase, ok, dry, action_kind_name(a->kind), bounded(a->target, &k1),
					 bounded(a->args, &k2), a->who ? a->who : "", bounded(detail, &k3),
					 status ? status : ""};
	app_emit(app, &ev);   /* the bus copies the strings */
	free(k1);
	free(k2);
	free(k3);
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
	act_emit(app, a, out->id, ACT_DECIDED, 0, 0, action_status_name(AS_REFUSED), out->detail);
	return -1;
}

/* ---- what an action touches ---- */

static int32_t node_gpus(const struct model *m, int32_t node)
{
	if (node < 0 || node >= m->nnodes)
		return 0;
	return m->nodes[node].gpus > 0 ? m->nodes[node].gpus : m->gpus_per_node;
}

/* A checkpoint signal (USR1, USR2, CONT) asks a job to save its work and
 * leaves it running: it takes nothing out of service, so it does not count
 * towards the blast radius. Any other signal may end the job: it counts. */
static int harmless_signal(int sig)
{
	return sig == 0 || sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGCONT;
}

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
			out->gpus += node_gpus(m, a->nodes[i]);
		break;
	case AK_REQUEUE:
	case AK_SIGNAL:
		if ((j = model_job(m, a->job)) && !(a->kind == AK_SIGNAL && harmless_signal(a->sig))) {
			out->nodes = j->nnodes;
			out->gpus = j->gpus >= 0 ? j->gpus : j->nnodes * m->gpus_per_node;   /* unknown: all */
		}
		break;
	default:
		break;
	}
}

static int over_limit_with(struct myriad *app, const struct action_outcome *out, int32_t wn, int32_t wg, char *why,
			   size_t n)
{
	struct action_engine *e = engine_of(app);
	if ((e->lim.nodes && wn + out->nodes > e->lim.nodes) || (e->lim.gpus && wg + out->gpus > e->lim.gpus)) {
		snprintf(why, n,
			 "blast radius: %d nodes (%d GPUs) in the last %llds with this action, over the limit of %d nodes / %d GPUs",
			 wn + out->nodes, wg + out->gpus, (long long)(e->lim.window_us / US_PER_SEC), e->lim.nodes,
			 e->lim.gpus);
		return 1;
	}
	return 0;
}

static const char *input_why(struct myriad *app, const struct action *a);

static int over_limit(struct myriad *app, const struct action_outcome *out, char *why, size_t n)
{
	int32_t wn, wg;

	action_window(app, &wn, &wg);
	return over_limit_with(app, out, wn, wg, why, n);
}

int action_judge(struct myriad *app, const struct action *a, int32_t nodes_before, int32_t gpus_before,
		 struct action_outcome *out)
{
	const char *why;
	int32_t wn, wg;

	memset(out, 0, sizeof *out);
	measure(app, a, out);
	out->status = AS_DONE;
	if ((why = input_why(app, a))) {
		out->status = AS_REFUSED;
		out->why = AW_INPUT;
		snprintf(out->detail, sizeof out->detail, "%s", why);
		return out->status;
	}
	action_window(app, &wn, &wg);
	if (!AK_LOCAL(a->kind) && over_limit_with(app, out, wn + nodes_before, wg + gpus_before, out->detail,
						  sizeof out->detail)) {
		out->status = a->force ? AS_DONE : AS_CONFIRM;
		out->why = AW_GUARD;
	}
	return out->status;
}

static int finished_job(struct myriad *app, uint32_t id)
{
	const struct job *j = model_job(&app->model, id);

	return j && j->state != JOB_PENDING && j->state != JOB_RUNNING && j->state != JOB_SUSPENDED &&
	       j->state != JOB_COMPLETING && j->state != JOB_REQUEUED;
}

/* What is wrong with a's input, or NULL. */
static const char *input_why(struct myriad *app, const struct action *a)
{
	const char *why = NULL;

	if (a->kind == AK_DRAIN)
		why = action_check_reason(a->reason);
	else if (a->kind == AK_ACK && !model_fault(&app->model, a->fault))
		why = "no such fault";
	else if (a->kind == AK_SIGNAL && (a->sig < 0 || a->sig > 64))
		why = "invalid signal";
	else if ((a->kind == AK_DRAIN || a->kind == AK_RESUME) && a->nnodes == 0)
		why = "no nodes to act on";
	else if (a->kind == AK_REQUEUE && finished_job(app, a->job))
		why = "the job has ended: a requeue would run it again (Slurm requeues a finished job it still remembers)";
	if (a->force && (!a->force_reason || !*a->force_reason))
		why = "-force needs -reason TEXT saying why";
	if (a->kind == AK_GUARD && !a->force)
		why = "raising the blast-radius limits needs -force -reason TEXT (the configuration may set them freely)";
	return why;
}

static int input_error(struct myriad *app, const struct action *a, struct action_outcome *out)
{
	const char *why = input_why(app, a);

	if (why)
		return refuse(app, a, out, AW_INPUT, "%s", why);
	return 0;
}

/* ---- sending ---- */

static void ack_fault(struct myriad *app, const struct action *a)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_FAULT_ACK;
	ev.source = a->source ? a->source : "tcl";
	ev.u.fault_ack = (struct ev_fault_ack){a->fault, a->who ? a->who : "", a->note ? a->note : ""};
	app_emit(app, &ev);
}

/* The backend's commands for a (dry-run and the audit's "sent" phase). */
static void describe(struct myriad *app, struct act *r, struct sbuf *out)
{
	struct backend *b = app->backend;

	sbuf_printf(out, "%s", b->ops->name);
	if (b->ops->describe) {
		size_t at = out->len;

		sbuf_adds(out, ": ");
		b->ops->describe(b, &r->call, out);
		while (out->len > at && out->s[out->len - 1] == '\n')
			out->s[--out->len] = '\0';
		for (size_t i = at; i < out->len; i++)
			if (out->s[i] == '\n')
				out->s[i] = ';';
	}
}

static void on_deadline(void *ctx, int64_t id)
{
	struct act *r = ctx;
	struct myriad *app = r->e->app;
	struct backend *b = app->backend;
	char msg[160];

	(void)id;
	r->timer = 0;
	if (b && b->ops->cancel)
		b->ops->cancel(b, &r->call);
	snprintf(msg, sizeof msg, "no answer from %s after %lld s", b ? b->ops->name : "the backend",
		 (long long)((mono_us() - r->sent_mono + US_PER_SEC / 2) / US_PER_SEC));
	act_finish(r, AS_TIMEOUT, AW_TIMEOUT, r->out.nodes, msg);
}

/* Sends r; r->out is final afterwards when the backend answered at once. */
static void send_call(struct myriad *app, struct act *r, const char *decision)
{
	struct action_engine *e = engine_of(app);
	struct backend *b = app->backend;
	struct sbuf d = {0};

	act_emit(app, &r->a, r->out.id, ACT_DECIDED, 1, 0, "allowed", decision);
	remember(e, app->now, r->out.nodes, r->out.gpus);
	if (AK_LOCAL(r->a.kind)) {
		act_emit(app, &r->a, r->out.id, ACT_SENT, 1, 0, action_status_name(AS_SENT), "myriad");
		if (r->a.kind == AK_ACK)
			ack_fault(app, &r->a);   /* a guard raise is applied by its submitter once done */
		act_finish(r, AS_DONE, AW_NONE, 0, "");
		return;
	}
	describe(app, r, &d);
	act_emit(app, &r->a, r->out.id, ACT_SENT, 1, 0, action_status_name(AS_SENT), d.s);
	snprintf(r->out.detail, sizeof r->out.detail, "sent: %s", d.s);
	sbuf_free(&d);
	r->out.status = AS_SENT;
	r->sent_mono = mono_us();
	r->timer = loop_timer(app->loop, (e->lim.timeout_us + 999) / 1000, 0, on_deadline, r);
	trace("action %u sent %s %s", r->out.id, action_kind_name(r->a.kind), r->a.target ? r->a.target : "");
	b->ops->send(b, &r->call);
}

static int execute(struct myriad *app, struct act *r, const char *decision)
{
	if (!app->backend && !AK_LOCAL(r->a.kind)) {
		refuse(app, &r->a, &r->out, AW_NO_BACKEND, "no backend to send it to (a recording, or no scheduler)");
		act_finish(r, AS_REFUSED, AW_NO_BACKEND, 0, NULL);
		return -1;
	}
	send_call(app, r, decision);
	return r->out.status == AS_FAILED || r->out.status == AS_TIMEOUT ? -1 : 0;
}

static int dry_run(struct myriad *app, const struct action *a, struct action_outcome *out, int over)
{
	struct sbuf d = {0};

	if (app->backend && !AK_LOCAL(a->kind)) {
		struct act *r = act_new(engine_of(app), a, out);

		describe(app, r, &d);
		act_free(r);
	}
	snprintf(out->detail, sizeof out->detail, "dry-run: %s %s would touch %d nodes (%d GPUs)%s%s%s%s%s",
		 action_kind_name(a->kind), a->target ? a->target : "", out->nodes, out->gpus,
		 over ? "; " : "", over ? (a->force ? "forced past the blast-radius guard" : "needs confirmation: over the blast-radius limit") : "",
		 app->read_only ? "; read-only: it would be refused" : "", d.len ? "; would run " : "", d.len ? d.s : "");
	sbuf_free(&d);
	out->status = AS_DRY_RUN;
	act_emit(app, a, out->id, ACT_DECIDED, 1, 1, action_status_name(AS_DRY_RUN), out->detail);
	return 0;
}

static int hold(struct myriad *app, const struct action *a, struct action_outcome *out, int over, const char *why,
		action_result_fn fn, void *ctx)
{
	struct act *r = act_new(engine_of(app), a, out);

	r->fn = fn;
	r->ctx = ctx;
	snprintf(out->detail, sizeof out->detail, "%s: needs confirmation", why);
	out->status = r->out.status = AS_CONFIRM;
	out->why = r->out.why = AW_GUARD;
	out->over = r->out.over = over;
	snprintf(r->out.detail, sizeof r->out.detail, "%s", out->detail);
	act_live(r);
	act_emit(app, a, out->id, ACT_DECIDED, 0, 0, action_status_name(AS_CONFIRM), out->detail);
	return 0;
}

static int decide(struct myriad *app, const struct action *a, struct action_outcome *out, action_result_fn fn,
		  void *ctx)
{
	char why[256], decision[300];
	int over;
	struct act *r;

	if (app->read_only && !a->dry_run && !app->dry_run)
		return refuse(app, a, out, AW_READ_ONLY, "read-only: acting commands are refused (--read-only)");
	if (a->source && !strcmp(a->source, "config") && a->kind != AK_GUARD)
		return refuse(app, a, out, AW_CONFIG,
			      "the configuration may not act on the cluster (define a hook with `on` instead)");
	if (input_error(app, a, out))
		return -1;
	over = !AK_LOCAL(a->kind) && over_limit(app, out, why, sizeof why);
	if (a->dry_run || app->dry_run)
		return dry_run(app, a, out, over);
	if (a->ask)   /* typed at the console: the operator says yes, as to a key */
		return hold(app, a, out, over, over ? why : "typed at the command line", fn, ctx);
	if (over && !a->force)
		return hold(app, a, out, 1, why, fn, ctx);
	if (over)
		snprintf(decision, sizeof decision, "forced past the blast-radius guard: %s", a->force_reason);
	else
		snprintf(decision, sizeof decision, a->force ? "allowed (-force: %s)" : "allowed", a->force_reason);
	r = act_new(engine_of(app), a, out);
	r->fn = fn;
	r->ctx = ctx;
	act_live(r);
	r->in_submit = 1;   /* what ends now is told through out, not fn */
	int rc = execute(app, r, decision);

	r->in_submit = 0;
	*out = r->out;
	return rc;
}

int action_submit(struct myriad *app, const struct action *a, struct action_outcome *out,
		  action_result_fn fn, void *ctx)
{
	struct action_engine *e = engine_of(app);

	memset(out, 0, sizeof *out);
	out->id = e->next_id++;
	measure(app, a, out);
	act_emit(app, a, out->id, ACT_REQUESTED, 1, a->dry_run || app->dry_run, "requested", "");
	return decide(app, a, out, fn, ctx);
}

int action_confirm(struct myriad *app, uint32_t id, int yes, const char *why)
{
	struct act *r = act_find(engine_of(app), id);

	if (!r || r->out.status != AS_CONFIRM)
		return -1;
	measure(app, &r->a, &r->out);
	if (!yes || app->read_only) {
		refuse(app, &r->a, &r->out, !yes ? AW_GUARD : AW_READ_ONLY, "%s",
		       !yes ? (why && *why ? why : "declined by the operator")
			    : "read-only: acting commands are refused");
		act_finish(r, AS_REFUSED, r->out.why, 0, NULL);
		return 0;
	}
	execute(app, r, "confirmed by the operator");
	return 0;
}
