/*
 * replaylog.c - what a recording says happened up to the replay's position,
 * for the console's log panel (store.h, replay_log): the recorded events of
 * the types asked for and the faults the model opened (the `faults` table),
 * merged in the order of their ticks and times, after the audit's rows from
 * before the first tick the recording keeps (retention drops old events but
 * keeps the `actions` table). Each comes with the time it was recorded at.
 */
#include <stdio.h>
#include <string.h>
#include "evjson.h"
#include "store_int.h"

/* One statement's rows: tick and time are its first two columns. */
struct cursor {
	sqlite3_stmt *st;
	int row;                      /* 1: a row is there */
	int64_t tick, time;
};

static int next_row(struct cursor *c)
{
	c->row = sqlite3_step(c->st) == SQLITE_ROW;
	if (c->row) {
		c->tick = sqlite3_column_int64(c->st, 0);
		c->time = sqlite3_column_int64(c->st, 1);
	}
	return c->row;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

static int32_t col_i32(sqlite3_stmt *st, int i, int32_t null)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? null : sqlite3_column_int(st, i);
}

/* tick, time, type, source, data -> ev (strings in a); -1 if malformed. */
static int event_row(sqlite3_stmt *st, struct event *ev, struct arena *a)
{
	int t = ev_type_from_name(col_text(st, 2));

	memset(ev, 0, sizeof *ev);
	if (t <= 0)
		return -1;
	ev->type = (enum ev_type)t;
	ev->time = sqlite3_column_int64(st, 1);
	ev->source = arena_strdup(a, col_text(st, 3));
	return evjson_decode(ev, col_text(st, 4), (size_t)sqlite3_column_bytes(st, 4), a);
}

/* tick, time, fault, node, gpu, kind, code, severity, text, action -> f */
static void fault_row(sqlite3_stmt *st, struct fault *f)
{
	int kind = fault_kind_from_name(col_text(st, 5)), sev = severity_from_name(col_text(st, 7));

	memset(f, 0, sizeof *f);
	f->time = sqlite3_column_int64(st, 1);
	f->id = (uint32_t)sqlite3_column_int64(st, 2);
	f->node = col_i32(st, 3, -1);
	f->gpu = col_i32(st, 4, -1);
	f->kind = kind < 0 ? FK_COUNT : kind;
	f->code = col_i32(st, 6, 0);
	f->severity = sev < 0 ? SEV_INFO : sev;
	f->count = 1;
	snprintf(f->text, sizeof f->text, "%s", col_text(st, 8));
	snprintf(f->remedy, sizeof f->remedy, "%s", col_text(st, 9));
}

/* tick, time, action, phase, ok, dry_run, verb, target, args, who, detail,
 * source, status -> an EV_ACTION event (strings borrowed from the row) */
static void action_row(sqlite3_stmt *st, struct event *ev)
{
	static const char *const phases[ACT_PHASE_COUNT] = {"requested", "decided", "sent", "result"};
	struct ev_action *a = &ev->u.action;
	const char *phase = col_text(st, 3);

	memset(ev, 0, sizeof *ev);
	ev->type = EV_ACTION;
	ev->time = sqlite3_column_int64(st, 1);
	ev->source = col_text(st, 11);
	a->id = (uint32_t)sqlite3_column_int64(st, 2);
	a->phase = -1;
	for (int i = 0; i < ACT_PHASE_COUNT; i++)
		if (!strcmp(phase, phases[i]))
			a->phase = i;
	a->ok = sqlite3_column_int(st, 4);
	a->dry_run = sqlite3_column_int(st, 5);
	a->verb = col_text(st, 6);
	a->target = col_text(st, 7);
	a->args = col_text(st, 8);
	a->who = col_text(st, 9);
	a->detail = col_text(st, 10);
	a->status = col_text(st, 12);
}

static int audit_before(struct reader *r, const struct replay_log_fns *fns, void *ctx, char **err)
{
	struct cursor c = {db_prep(r->db,
				   "SELECT tick, time, action, phase, ok, dry_run, verb, target, args, who, detail, "
				   "source, status FROM actions WHERE tick < ? ORDER BY id", err), 0, 0, 0};
	struct event ev;

	if (!c.st)
		return -1;
	sqlite3_bind_int64(c.st, 1, r->first);
	while (next_row(&c)) {
		action_row(c.st, &ev);
		fns->event(ctx, c.tick, &ev);
	}
	sqlite3_finalize(c.st);
	return 0;
}

/* "SELECT ... WHERE type IN ('a', 'b')" for the types in mask. */
static char *events_sql(uint32_t mask)
{
	struct sbuf b = {0};
	const char *sep = "";

	sbuf_adds(&b, "SELECT tick, time, type, source, data FROM events WHERE id < ? AND type IN (");
	for (int t = 1; t < EV_TYPE_COUNT; t++)
		if (mask & BUS_MASK(t)) {
			sbuf_printf(&b, "%s'%s'", sep, ev_type_name((enum ev_type)t));
			sep = ", ";
		}
	sbuf_adds(&b, ") ORDER BY id");
	return b.s;
}

/* The events and the faults, each in its order, merged by tick and time (an
 * event before a fault of the same moment: the fault is its consequence). */
static void merge(struct cursor *ev, struct cursor *fa, const struct replay_log_fns *fns, void *ctx)
{
	struct arena a = {0};
	struct event e;
	struct fault f;

	next_row(ev);
	next_row(fa);
	while (ev->row || fa->row) {
		if (fa->row && (!ev->row || fa->tick < ev->tick || (fa->tick == ev->tick && fa->time < ev->time))) {
			fault_row(fa->st, &f);
			fns->fault(ctx, fa->tick, &f);
			next_row(fa);
			continue;
		}
		arena_reset(&a);
		if (event_row(ev->st, &e, &a) == 0)
			fns->event(ctx, ev->tick, &e);
		next_row(ev);
	}
	arena_free(&a);
}

int replay_log(const struct myriad *app, uint32_t mask, const struct replay_log_fns *fns, void *ctx, char **err)
{
	int64_t pos;
	struct reader *r = replay_reader(app, &pos);
	char *sql;
	struct cursor ev = {0}, fa = {0};
	int rc = -1;

	if (!r)
		return 0;
	if (audit_before(r, fns, ctx, err) < 0)
		return -1;
	sql = events_sql(mask);
	ev.st = db_prep(r->db, sql, err);
	free(sql);
	fa.st = ev.st ? db_prep(r->db, "SELECT tick, time, fault, node, gpu, kind, code, severity, text, action "
					"FROM faults WHERE tick <= ? ORDER BY id", err) : NULL;
	if (fa.st) {
		sqlite3_bind_int64(ev.st, 1, (pos + 1) * 4294967296LL);
		sqlite3_bind_int64(fa.st, 1, pos);
		merge(&ev, &fa, fns, ctx);
		rc = 0;
	}
	sqlite3_finalize(ev.st);
	sqlite3_finalize(fa.st);
	return rc;
}
