/*
 * logfeed.c - the lines of the log panel: the ring; the lines this run says
 * (console_log: command lines, their output, messages); and the lines events
 * make (faults opened, acknowledged and closed, nodes drained and resumed,
 * connections, rejected lines, every phase of an action, marks, notices),
 * each at the time its event or fault carries, so that the log of a live
 * run and of its replay agree.
 *
 * In a replay, a line made from an event read from the recording is marked
 * as recorded. When the replay jumps (a seek back, or forward past a
 * keyframe: replay_jumps), the model is restored without the events before
 * the new position, so those lines are made again from the recording up to
 * that position (replay_log, through the same formatting as live), and the
 * lines of this run follow them.
 */
#include <stdio.h>
#include <string.h>
#include "ui_int.h"
#include "../fault.h"
#include "../store/store.h"

/* The events that make log lines (faults come from the model). */
#define LOG_EVENTS (BUS_MASK(EV_NODE_STATE) | BUS_MASK(EV_FAULT_ACK) | BUS_MASK(EV_FAULT_CLOSE) | \
		    BUS_MASK(EV_CONN) | BUS_MASK(EV_PARSE_ERROR) | BUS_MASK(EV_ACTION) | BUS_MASK(EV_MARK) | \
		    BUS_MASK(EV_NOTICE))
#define PARSE_ERRORS_PER_TICK 5

/* Where the lines of events go: the live log, or the log made again. */
struct feed {
	struct console *c;
	int recorded;                 /* the event was read from the recording */
	int live;                     /* also says failures on the message line */
	uint32_t *flags;              /* NODE_F_* per node as last seen */
	int32_t nflags;
	int *parse_errors;            /* rejected lines logged this tick */
};

/* ---- the ring ---- */

static void ring_put(struct console *c, const struct log_line *line)
{
	if (c->log_n == LOG_CAP) {
		free(c->log[c->log_head].text);
		c->log_head = (c->log_head + 1) % LOG_CAP;
		c->log_n--;
	}
	c->log[(c->log_head + c->log_n) % LOG_CAP] = *line;
	c->log_n++;
	c->log_seq++;
	if (c->cur == console_panel_index("log"))
		c->dirty |= DIRTY_PANEL;
}

static void log_add(struct console *c, int64_t time, int recorded, int role, const char *kind, const char *text)
{
	struct log_line l = {time, (uint8_t)role, (uint8_t)recorded, "", xmalloc(strlen(text) + 1)};

	snprintf(l.kind, sizeof l.kind, "%s", kind);
	text_sanitize(l.text, strlen(text) + 1, text);
	ring_put(c, &l);
}

void console_log(struct console *c, int role, const char *kind, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	log_add(c, c->app->model.time, 0, role, kind, buf);
}

const struct log_line *console_log_at(const struct console *c, int i)
{
	if (i < 0 || i >= c->log_n)
		return NULL;
	return &c->log[(c->log_head + i) % LOG_CAP];
}

/* ---- events to lines ---- */

static void feed_line(struct feed *f, int64_t time, int role, const char *kind, const char *fmt, ...)
	PRINTF_LIKE(5, 6);
static void feed_line(struct feed *f, int64_t time, int role, const char *kind, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	log_add(f->c, time ? time : f->c->app->model.time, f->recorded, role, kind, buf);
}

static const char *str(const char *s)
{
	return s ? s : "";
}

static void feed_fault(struct feed *fd, const struct fault *f)
{
	char where[80];

	fault_where(&fd->c->app->model, f, where, sizeof where);
	feed_line(fd, f->time, severity_role(f->severity), "fault", "#%u %s %s %s -> %s", f->id, where,
		  fault_kind_name(f->kind), f->text, f->remedy);
}

static void feed_node_state(struct feed *f, const struct event *ev)
{
	const struct ev_node_state *e = &ev->u.node_state;
	const struct model *m = &f->c->app->model;

	if (e->node < 0 || e->node >= f->nflags || e->node >= m->nnodes)
		return;
	if ((e->flags ^ f->flags[e->node]) & NODE_F_DRAIN) {
		if (e->flags & NODE_F_DRAIN)
			feed_line(f, ev->time, R_WARN, "node", "%s drained: %s%s%s", m->nodes[e->node].name,
				  str(e->reason), e->who && e->who[0] ? " by " : "", str(e->who));
		else
			feed_line(f, ev->time, R_GOOD, "node", "%s back in service", m->nodes[e->node].name);
	}
	f->flags[e->node] = e->flags;
}

/* The audit trail: the request in full, then one short line per phase. */
static void feed_action(struct feed *f, const struct event *ev)
{
	const struct ev_action *a = &ev->u.action;
	const char *detail = a->detail && a->detail[0] ? a->detail : NULL;
	int confirm = a->status && !strcmp(a->status, "confirm");

	if (a->phase == ACT_REQUESTED)
		feed_line(f, ev->time, R_INFO, "action", "#%u %s %s %s%s%s%s", a->id, str(a->verb), str(a->target),
			  str(a->args), a->who && a->who[0] ? "  by " : "", str(a->who), a->dry_run ? "  (dry run)" : "");
	else if (a->phase == ACT_DECIDED)
		feed_line(f, ev->time, a->ok ? R_GOOD : confirm ? R_WARN : R_ERR, "action", "#%u %s%s%s", a->id,
			  a->ok ? (a->dry_run ? "dry run" : "allowed") : confirm ? "held" : "refused",
			  detail ? ": " : "", str(detail));
	else if (a->phase == ACT_SENT)
		feed_line(f, ev->time, R_INFO, "action", "#%u sent%s%s", a->id, detail ? " to " : "", str(detail));
	if (a->phase != ACT_RESULT)
		return;
	feed_line(f, ev->time, a->ok ? R_GOOD : R_ERR, "action", "#%u %s%s%s", a->id,
		  a->status && a->status[0] ? a->status : a->ok ? "done" : "failed", detail ? ": " : "", str(detail));
	if (!a->ok && f->live)
		console_set_message(f->c, R_ERROR, "%s %s: %s: %s", str(a->verb), str(a->target),
				    a->status ? a->status : "failed", str(detail));
}

static void feed_parse_error(struct feed *f, const struct event *ev)
{
	const struct ev_parse_error *e = &ev->u.parse_error;
	const struct model *m = &f->c->app->model;

	if ((*f->parse_errors)++ >= PARSE_ERRORS_PER_TICK)
		return;
	feed_line(f, ev->time, R_WARN, "parse", "%s from %s: %s: %.80s", fmt_name(e->fmt),
		  e->node >= 0 && e->node < m->nnodes ? m->nodes[e->node].name : (ev->source ? ev->source : "?"),
		  str(e->error), str(e->excerpt));
}

static void feed_event(struct feed *f, const struct event *ev)
{
	const struct ev_fault_ack *ack = &ev->u.fault_ack;
	const struct ev_conn *conn = &ev->u.conn;
	const struct ev_notice *no = &ev->u.notice;

	switch (ev->type) {
	case EV_NODE_STATE: feed_node_state(f, ev); break;
	case EV_ACTION: feed_action(f, ev); break;
	case EV_PARSE_ERROR: feed_parse_error(f, ev); break;
	case EV_FAULT_ACK:
		feed_line(f, ev->time, R_ACKED, "fault", "#%u acknowledged by %s%s%s", ack->id, ack->who ? ack->who : "?",
			  ack->note ? ": " : "", str(ack->note));
		break;
	case EV_FAULT_CLOSE:
		feed_line(f, ev->time, R_INFO, "fault", "#%u closed: %s", ev->u.fault_close.id, str(ev->u.fault_close.why));
		break;
	case EV_CONN:
		feed_line(f, ev->time, conn->state == CONN_UP ? R_GOOD : R_WARN, "conn", "%s: %s%s%s",
			  conn->host ? conn->host : "?", conn_state_name(conn->state),
			  conn->detail && conn->detail[0] ? " -- " : "", str(conn->detail));
		break;
	case EV_MARK:
		feed_line(f, ev->time, R_INFO, "mark", "%s: %s", ev->u.mark.who ? ev->u.mark.who : "?", str(ev->u.mark.text));
		break;
	case EV_NOTICE:
		feed_line(f, ev->time, no->level >= 2 ? R_ERR : no->level ? R_WARN : R_INFO, no->who ? no->who : "note",
			  "%s", str(no->text));
		if (no->level >= 2 && f->live)
			console_set_message(f->c, R_ERROR, "%s", str(no->text));
		break;
	default:
		break;
	}
}

/* ---- live: from the bus ---- */

/* Nodes the inventory added are tracked from the model's state. */
static void track_nodes(struct console *c)
{
	const struct model *m = &c->app->model;

	if (c->nnodes_seen == m->nnodes)
		return;
	c->node_flags = xrealloc(c->node_flags, sizeof *c->node_flags * (size_t)(m->nnodes + 1));
	for (int32_t i = c->nnodes_seen; i < m->nnodes; i++)
		c->node_flags[i] = m->nodes[i].flags;
	c->nnodes_seen = m->nnodes;
}

/* What the log knows of the model (nodes drained, faults logged) is the
 * model's own: after a jump, its log is made from the recording instead. */
static void sync_with_model(struct console *c)
{
	const struct model *m = &c->app->model;

	c->nnodes_seen = 0;
	track_nodes(c);
	c->seen_fault_id = m->next_fault_id;
}

/* 1 when the replay jumped since last asked (the log is to be made again). */
static int replay_jumped(struct console *c)
{
	uint64_t j = replay_jumps(c->app);

	if (j == c->replay_jumps)
		return 0;
	c->replay_jumps = j;
	c->log_rebuild = 1;
	sync_with_model(c);
	return 1;
}

void console_log_event(struct console *c, const struct event *ev)
{
	const struct model *m = &c->app->model;
	struct feed f = {c, 0, 1, NULL, 0, &c->parse_errors_this_tick};

	if (ev->type == EV_TICK)
		c->parse_errors_this_tick = 0;
	if (!(BUS_MASK(ev->type) & LOG_EVENTS) && c->seen_fault_id == m->next_fault_id && ev->type != EV_NODE)
		return;   /* telemetry that opened no fault: the common case */
	replay_jumped(c);
	track_nodes(c);
	f.recorded = replay_delivering_recorded(c->app);
	f.flags = c->node_flags;
	f.nflags = c->nnodes_seen;
	if (BUS_MASK(ev->type) & LOG_EVENTS)
		feed_event(&f, ev);
	for (; c->seen_fault_id < m->next_fault_id; c->seen_fault_id++) {
		const struct fault *flt = model_fault(m, c->seen_fault_id);

		if (flt)
			feed_fault(&f, flt);
	}
}

/* ---- a replay's log made again ---- */

struct remake {
	struct feed f;
	int64_t tick;
	int parse_errors;
};

static void remake_event(void *ctx, int64_t tick, const struct event *ev)
{
	struct remake *r = ctx;

	if (tick != r->tick)
		r->parse_errors = 0;
	r->tick = tick;
	feed_event(&r->f, ev);
}

static void remake_fault(void *ctx, int64_t tick, const struct fault *f)
{
	struct remake *r = ctx;

	r->tick = tick;
	feed_fault(&r->f, f);
}

/* The recorded lines go; the recording's log up to the replay's position
 * comes in their place, and this run's lines follow it. */
static void remake(struct console *c)
{
	static const struct replay_log_fns fns = {remake_event, remake_fault};
	int32_t nnodes = c->app->model.nnodes, nown = 0;
	struct log_line *own = xcalloc((size_t)c->log_n + 1, sizeof *own);
	struct remake r = {{c, 1, 0, xcalloc((size_t)nnodes + 1, sizeof(uint32_t)), nnodes, NULL}, -1, 0};
	char *err = NULL;

	for (int i = 0; i < c->log_n; i++) {
		const struct log_line *l = console_log_at(c, i);

		if (l->recorded)
			free(l->text);
		else
			own[nown++] = *l;
	}
	c->log_head = c->log_n = 0;
	r.f.parse_errors = &r.parse_errors;
	if (replay_log(c->app, LOG_EVENTS, &fns, &r, &err) < 0)
		log_add(c, c->app->model.time, 1, R_ERR, "replay", err ? err : "the recording's log cannot be read");
	free(err);
	free(r.f.flags);
	for (int i = 0; i < nown; i++)
		ring_put(c, &own[i]);
	free(own);
	c->dirty |= DIRTY_PANEL;
}

void console_log_sync(struct console *c)
{
	replay_jumped(c);
	if (!c->log_rebuild)
		return;
	c->log_rebuild = 0;
	remake(c);
}
