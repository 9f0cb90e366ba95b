/*
 * recorder.c - the recorder's event path: a bus subscriber that writes every
 * event of a tick in one transaction, committed when the next EV_TICK
 * arrives (and at close). GPU samples and IB readings are packed per node and
 * window of CHUNK_TICKS (pack.h); meanwhile each tick's packed events are
 * kept in a tail row. A window that closes is written over the next ticks
 * (slices.c). The public functions of store.h's recorder part are here; the
 * file itself is recfile.c's.
 */
#include <stdio.h>
#include <string.h>
#include "evjson.h"
#include "recorder.h"

int rec_scale = 1;

static struct rec *rec_of(const struct myriad *app)
{
	return app ? app->recorder : NULL;
}

/* ---- packing ---- */

/* The sources' ids by name: an open-addressing table of id + 1. A console
 * over SSH has a source per host (12,800 at 102,400 GPUs); a sample's id
 * was a linear search, half the console's CPU there. */
static int src_find(const struct rec *r, const char *s, uint32_t *slot)
{
	uint32_t mask = r->src_cap - 1, i = (uint32_t)hash_str(HASH_INIT, s) & mask;

	for (; r->src_slots[i]; i = (i + 1) & mask)
		if (!strcmp(r->srcs[r->src_slots[i] - 1], s))
			return (int)r->src_slots[i] - 1;
	*slot = i;
	return -1;
}

static void src_grow(struct rec *r)
{
	uint32_t slot;

	r->src_cap = r->src_cap ? r->src_cap * 2 : 64;
	free(r->src_slots);
	r->src_slots = xcalloc(r->src_cap, sizeof *r->src_slots);
	for (int i = 0; i < r->nsrcs; i++)
		if (src_find(r, r->srcs[i], &slot) < 0)
			r->src_slots[slot] = (uint32_t)i + 1;
}

static int src_id(struct rec *r, const char *s)
{
	uint32_t slot = 0;
	int id;

	if (r->last_src < r->nsrcs && !strcmp(r->srcs[r->last_src], s))
		return r->last_src;
	if ((uint32_t)r->nsrcs * 2 >= r->src_cap)
		src_grow(r);
	if ((id = src_find(r, s, &slot)) >= 0)
		return r->last_src = id;
	if (r->nsrcs >= PACK_MAX_SRC)
		return -1;
	r->srcs = xrealloc(r->srcs, sizeof *r->srcs * (size_t)(r->nsrcs + 1));
	r->srcs[r->nsrcs] = xstrdup(s);
	r->src_slots[slot] = (uint32_t)r->nsrcs + 1;
	return r->last_src = r->nsrcs++;
}

/* Before a port's first reading in the group: what it replaces. */
static void keep_for_undo(struct rec *r, int32_t port)
{
	if (r->nundo == r->cundo) {
		r->cundo = r->cundo ? r->cundo * 2 : 256;
		r->undo = xrealloc(r->undo, sizeof *r->undo * r->cundo);
	}
	r->undo[r->nundo++] = (struct ib_undo){port, r->hist.p[port], {r->hist_group[2 * port], r->hist_group[2 * port + 1]}};
}

static void remember_ib(struct rec *r, int32_t port, int64_t time, const int64_t *v)
{
	if (port < 0 || port >= r->hist.nports)
		return;
	struct port_pred *q = &r->hist.p[port];

	if (r->hist_group[2 * port] != r->group)
		keep_for_undo(r, port);
	memcpy(q->prev, q->last, sizeof q->prev);
	memcpy(q->last, v, sizeof q->last);
	q->time = time;
	r->hist_group[2 * port + 1] = r->hist_group[2 * port];
	r->hist_group[2 * port] = r->group;
}

/* A group that could not be written: its readings are not in the file, so
 * they are no prediction either; the readings of the groups before it are
 * (the reader predicts from the file). */
static void undo_ib(struct rec *r)
{
	while (r->nundo > 0) {
		const struct ib_undo *u = &r->undo[--r->nundo];

		r->hist.p[u->port] = u->was;
		r->hist_group[2 * u->port] = u->group[0];
		r->hist_group[2 * u->port + 1] = u->group[1];
	}
}

/* The prediction for a keyframe at the current group: readings of the last
 * KF_PRED_TICKS groups only, as the reader will find them. */
static struct kf_pred *predict(struct rec *r)
{
	int64_t lo = r->group - KF_PRED_TICKS;

	for (int32_t i = 0; i < r->hist.nports; i++) {
		r->hist.p[i].have = r->hist_group[2 * i] >= lo;
		r->hist.p[i].have_prev = r->hist.p[i].have && r->hist_group[2 * i + 1] >= lo;
	}
	return &r->hist;
}

static int pack(struct rec *r, const struct event *ev)
{
	int kind = ev->type == EV_SAMPLE ? PK_GPU : ev->type == EV_IB ? PK_IB : -1;
	int32_t node, idx;
	int64_t v[NV_IB];

	if (kind < 0 || r->nopack || !r->have_win)
		return 0;
	node = kind == PK_GPU ? ev->u.sample.node : ev->u.ib.node;
	idx = kind == PK_GPU ? ev->u.sample.gpu : ev->u.ib.port;
	if (!r->win_tail && (node < 0 || node >= r->win[kind].nnodes || idx < 0 || idx >= r->win[kind].per_node))
		return 0;
	int id = src_id(r, ev->source ? ev->source : ""), per_ib = r->win_tail ? r->chain.per_node[PK_IB] : r->win[PK_IB].per_node;
	int32_t row;

	if (id < 0)
		return 0;
	pack_values(ev, v);
	if (r->win_tail) {
		if ((row = rectail_pack(r, ev, kind, node, idx, (uint16_t)id)) < 0)
			return 0;
	} else {
		row = series_append(window_series(&r->win[kind], node, idx), kind, r->group, ev->time - r->tick_time,
				    (uint16_t)id, v);
		r->win[kind].rows++;
	}
	uint64_t key = (uint64_t)kind << 56 | (uint64_t)node << 24 | (uint64_t)idx;

	if (kind == PK_IB && !r->down && !r->failed)
		remember_ib(r, node * per_ib + idx, ev->time, v);
	if (r->narr == r->carr) {
		r->carr = r->carr ? r->carr * 2 : 16384;
		r->arr = xrealloc(r->arr, sizeof *r->arr * r->carr);
	}
	r->arr[r->narr++] = (struct arrival){(uint8_t)kind, node, idx, row};
	if (key < r->last_key)
		r->canonical = 0;
	r->last_key = key;
	return 1;
}

/* ---- rows ---- */

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_STATIC);
}

static void write_action(struct rec *r, const struct event *ev)
{
	static const char *const phases[ACT_PHASE_COUNT] = {"requested", "decided", "sent", "result"};
	const struct ev_action *a = &ev->u.action;
	sqlite3_stmt *st = r->st.action;

	sqlite3_bind_int64(st, 1, r->group);
	sqlite3_bind_int64(st, 2, ev->time);
	sqlite3_bind_int64(st, 3, a->id);
	bind_text(st, 4, a->phase >= 0 && a->phase < ACT_PHASE_COUNT ? phases[a->phase] : "?");
	sqlite3_bind_int(st, 5, a->ok);
	sqlite3_bind_int(st, 6, a->dry_run);
	bind_text(st, 7, a->verb);
	bind_text(st, 8, a->target);
	bind_text(st, 9, a->args);
	bind_text(st, 10, a->who);
	bind_text(st, 11, a->detail);
	bind_text(st, 12, ev->source);
	bind_text(st, 13, a->status);
	rec_step(r, st, "audit");
}

static void write_node(struct rec *r, const struct ev_node *n)
{
	sqlite3_stmt *st = r->st.node;

	sqlite3_bind_int(st, 1, n->node);
	bind_text(st, 2, n->name);
	sqlite3_bind_int(st, 3, n->su);
	sqlite3_bind_int(st, 4, n->rack);
	sqlite3_bind_int(st, 5, n->gpus);
	rec_step(r, st, "nodes");
}

void rec_topology_meta(struct rec *r, const struct ev_topology *t)
{
	if (db_meta_set(r->db, "cluster", t->name ? t->name : "") < 0 || db_meta_set_i64(r->db, "gpus", t->gpus) < 0 ||
	    db_meta_set_i64(r->db, "nodes", t->nodes) < 0 ||
	    db_meta_set_i64(r->db, "gpus_per_node", t->gpus_per_node) < 0 || db_meta_set_i64(r->db, "sus", t->sus) < 0)
		rec_fail(r, "meta");
	int64_t gpus = (int64_t)t->gpus * rec_scale;

	r->tail_only = gpus >= TAIL_ONLY_GPUS;   /* from the next window on */
	if (!r->kf_ticks_fixed) {
		/* seek = keyframe + up to kf_ticks of events, whose cost grows
		 * with the cluster: 120 s at 1,024 GPUs, 15 s at 10,240, 5 s at
		 * 102,400 (a multiple or a divisor of the window) */
		int64_t k = gpus > 0 ? (r->tail_only ? TAIL_KF_GPU_TICKS : 150LL * 1024) / gpus : KF_TICKS_MAX;

		if (k >= r->chunk_ticks)
			k = k / r->chunk_ticks * r->chunk_ticks;
		else
			while (k > 1 && r->chunk_ticks % k)
				k--;
		r->kf_ticks = (int)MIN(MAX(k, 1), KF_TICKS_MAX);
		db_meta_set_i64(r->db, "keyframe_ticks", r->kf_ticks);
	}
}

static void on_topology(struct rec *r, const struct ev_topology *t)
{
	r->topo_changed = 1;
	r->nopack = 1;
	if (!r->down && !r->failed) {
		rec_page_size(r, t->gpus);
		rec_topology_meta(r, t);
	}
}

static void write_event(struct rec *r, const struct event *ev, int64_t seq)
{
	sqlite3_stmt *st = r->st.event;
	int32_t node = ev_node(ev);

	if (ev->type == EV_TOPOLOGY)
		on_topology(r, &ev->u.topology);
	if (r->down || r->failed)
		return;
	sbuf_reset(&r->buf);
	evjson_encode(&r->buf, ev);
	sqlite3_bind_int64(st, 1, r->group);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_int64(st, 3, ev->time);
	bind_text(st, 4, ev_type_name(ev->type));
	if (node >= 0)
		sqlite3_bind_int(st, 5, node);
	else
		sqlite3_bind_null(st, 5);
	bind_text(st, 6, ev->source);
	sqlite3_bind_text(st, 7, r->buf.s, (int)r->buf.len, SQLITE_STATIC);
	rec_step(r, st, "events");
	if (ev->type == EV_ACTION)
		write_action(r, ev);
	else if (ev->type == EV_NODE)
		write_node(r, &ev->u.node);
}

/* ---- windows ---- */

static void window_start(struct rec *r, const struct model *m)
{
	if (r->tail_only) {
		rectail_start(r, m);
	} else {
		window_init(&r->win[PK_GPU], PK_GPU, m->nnodes, m->gpus_per_node);
		window_init(&r->win[PK_IB], PK_IB, m->nnodes, m->topo.rails);
	}
	if (r->hist.nports != m->nnodes * m->topo.rails) {
		free(r->hist.p);
		free(r->hist_group);
		r->hist.nports = m->nnodes * m->topo.rails;
		/* the IB history behind keyframe predictions (keyframe.h): zeroed,
		 * no reading, its 21 MB at 102,400 GPUs left untouched
		 * (before the console's first frame) until the ports' first readings */
		r->hist.p = xcalloc((size_t)r->hist.nports + 1, sizeof *r->hist.p);
		r->hist_group = xmalloc(sizeof *r->hist_group * 2 * ((size_t)r->hist.nports + 1));
		for (int32_t i = 0; i < 2 * r->hist.nports; i++)
			r->hist_group[i] = INT64_MIN;   /* no reading */
	}
	r->have_win = 1;
	r->w0 = r->group;
	r->w_end = (r->group / r->chunk_ticks + 1) * r->chunk_ticks;
}

/* At the end of a group: close a full window (or one whose topology
 * changed); slices.c writes it over the next groups. */
static void window_advance(struct rec *r)
{
	if (!r->have_win || (r->group + 1 < r->w_end && !r->topo_changed))
		return;
	if (r->win_tail)
		rectail_close(r);
	else
		spread_close(r, r->group + 1);
}

/* ---- groups ---- */

static void write_group(struct rec *r)
{
	sqlite3_stmt *st = r->st.tick;

	sqlite3_bind_int64(st, 1, r->group);
	sqlite3_bind_int64(st, 2, r->tick_time);
	sqlite3_bind_int64(st, 3, r->tick_num);
	if (r->has_tick)
		sqlite3_bind_text(st, 4, r->tick_src, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, r->seq);
	sbuf_reset(&r->buf2);
	if (!r->canonical) {
		layout_encode(&r->buf2, r->arr, r->narr);
		sqlite3_bind_blob(st, 6, r->buf2.s, (int)r->buf2.len, SQLITE_STATIC);
	} else {
		sqlite3_bind_null(st, 6);
	}
	rec_step(r, st, "ticks");
	if (r->narr && !r->failed) {
		sbuf_reset(&r->buf2);
		if (r->win_tail)
			rectail_encode(r, &r->buf2);
		else
			tail_encode(&r->buf2, r->win, r->w0, r->group, r->arr, r->narr, (const char *const *)r->srcs,
				    r->nsrcs);
		sqlite3_bind_int64(r->st.tail, 1, r->group);
		sqlite3_bind_blob(r->st.tail, 2, r->buf2.s, (int)r->buf2.len, SQLITE_STATIC);
		rec_step(r, r->st.tail, "tail");
	}
}

static void end_group(struct rec *r)
{
	if (!r->have_group)
		return;
	if (!r->down && !r->failed)
		write_group(r);
	window_advance(r);
	spread_step(r);
	if (r->in_txn && !r->failed && !r->down) {
		if (db_exec(r->db, "COMMIT", NULL) < 0) {
			rec_fail(r, "commit");
		} else {
			r->in_txn = 0;
			if (r->trace)   /* MYRIAD_LOG_TRACE: for the kill -9 test */
				fprintf(stderr, "log: committed tick %lld\n", (long long)r->group);
		}
	}
	spread_end_group(r, !r->failed && !r->down);
	if (r->failed || r->down) {
		if (r->in_txn)
			db_exec(r->db, "ROLLBACK", NULL);
		r->in_txn = 0;
		r->stats.lost++;
		for (int k = 0; k < PK_COUNT && r->have_win; k++)   /* rows not in the file are no base */
			r->win_tail ? chain_reset(&r->chain, k) : tail_reset_bases(&r->win[k]);
		undo_ib(r);                             /* nor a prediction */
		r->last_static = 0;                     /* nor, maybe, the keyframe's static part */
		if (r->failed) {
			r->down = 1;
			r->retry_group = r->group + RETRY_TICKS;
			r->need_kf = 1;
		}
	} else {
		r->stats.groups++;
		r->status[0] = '\0';
		r->nundo = 0;
		if (r->inventory_in_txn)
			r->rewrite_inventory = 0;
	}
	r->inventory_in_txn = 0;
	r->failed = 0;
	r->have_group = 0;
}

static int keyframe_due(const struct rec *r)
{
	if (r->need_kf)
		return 1;
	if (!r->stats.groups && !r->stats.lost)
		return r->kf_first;
	/* a large recording that began with its cluster: one after its first
	 * group (the inventory) and one after its second (the GPUs' identities,
	 * the first samples), so that a seek near its start does not replay
	 * them (130,000 events, 450 ms at 102,400 GPUs; 45 ms at 10,240) */
	if (r->tail_only && (r->stats.groups == 1 || r->stats.groups == 2) && !r->stats.lost && !r->kf_first)
		return 1;
	return r->kf_ticks > 0 && r->group % r->kf_ticks == 0;
}

static void begin_group(struct rec *r, const struct event *ev, int has_tick)
{
	int64_t want = has_tick ? ev->u.tick.tick : 0;

	r->group = !r->any_group ? MAX(want, 0) : MAX(r->group + 1, want);
	r->any_group = r->have_group = 1;
	r->has_tick = has_tick;
	r->tick_time = ev->time;
	r->tick_num = has_tick ? ev->u.tick.tick : 0;
	snprintf(r->tick_src, sizeof r->tick_src, "%s", ev->source ? ev->source : "");
	r->seq = 0;
	r->narr = r->ntev = 0;
	r->canonical = 1;
	r->last_key = 0;
	r->nopack = 0;
	r->topo_changed = 0;
	if (!r->app)
		return;
	if (!r->have_win && r->app->model.nnodes > 0)
		window_start(r, &r->app->model);
	if (r->down && r->group >= r->retry_group)
		r->down = 0;   /* try again; a keyframe is due */
	if (r->down)
		return;
	if (rec_begin(r) < 0)
		return;
	if (r->rewrite_inventory && r->app->model.nnodes > 0) {
		rec_inventory(r, &r->app->model);
		r->inventory_in_txn = 1;
	}
	if (r->win_tail && r->group % TAIL_IB_TICKS == 0)
		chain_reset(&r->chain, PK_IB);    /* a keyframe's prediction reads IB rows from here */
	if (!keyframe_due(r))
		return;
	if (r->win_tail)
		chain_reset(&r->chain, PK_GPU);   /* a seek from it reads its GPU samples from here */
	rec_keyframe(r, &r->app->model, r->hist.nports ? predict(r) : NULL);
}

void rec_event(struct rec *r, const struct event *ev)
{
	if (ev->type == EV_TICK) {
		end_group(r);
		begin_group(r, ev, 1);
		r->seq = 1;
		return;
	}
	if (!r->have_group)
		begin_group(r, ev, 0);
	int64_t seq = r->seq++;

	if (ev->type == EV_TOPOLOGY)
		r->nopack = 1;
	if (!pack(r, ev))
		write_event(r, ev, seq);
	if (r->app && r->app->model.next_fault_id != r->fault_mark)
		rec_faults(r, &r->app->model);
	if (ev->type == EV_GPU_INFO && r->nwait && r->app)
		rec_fault_gpus(r, &r->app->model);
}

/* Commits the last group, the closed window's chunks not yet written and
 * the window so far; never touches the app. */
void rec_finish(struct rec *r)
{
	r->app = NULL;
	if (!r->db)
		return;
	if (r->have_group) {
		int64_t g = r->group;

		r->w_end = MIN(r->w_end, g + 1);   /* close the partial window */
		r->flush_all = 1;                  /* and write every window now */
		end_group(r);
	}
}

/* ---- the public part ---- */

const char *recorder_path(const struct myriad *app)
{
	struct rec *r = rec_of(app);

	return r && r->db ? r->path : NULL;
}

const char *recorder_status(const struct myriad *app)
{
	struct rec *r = rec_of(app);

	if (!r)
		return "not recording";
	if (!r->db && r->deferred)
		return "";
	return r->status;
}

int recorder_get_stats(const struct myriad *app, struct recorder_stats *out)
{
	struct rec *r = rec_of(app);

	if (!r)
		return -1;
	*out = r->stats;
	out->bytes = 0;
	if (r->path) {
		char *wal = xasprintf("%s-wal", r->path);

		out->bytes = file_size(r->path) + file_size(wal);
		free(wal);
	}
	return 0;
}
