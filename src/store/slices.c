/*
 * slices.c - a closed window's chunks, written a slice per tick.
 *
 * Encoding and inserting every node's chunks when a window closes costs
 * the recorder (and the console) one long tick a minute at 10,240 GPUs.
 * Instead the window that closes becomes the "old" window and the next one
 * starts on a second set of buffers; each group then writes a slice of the
 * old window's chunks in its transaction, in the order a whole window was
 * always written (every node's GPU chunk, then every node's IB chunk, which
 * keeps the samples table's pages as full). A slice is about 1/SPREAD_TICKS
 * of the window's values, more if the log fell behind (it was down), so
 * that the old window is in before the current one closes.
 *
 * Until the last slice commits, the old window's tail rows stay: a reader
 * takes a window that has tail rows from its tail rows (reader.c), so a
 * file killed at any moment, or read while it is written, has every sample
 * exactly once. The last slice's transaction deletes the tail rows and
 * applies the age and size bounds. A slice whose transaction fails is
 * written again later; an old window that cannot be written before the next
 * one closes stays in its tail rows, as a window the log could not pack has
 * always done. The groups with no old window to write down-sample a slice
 * instead (retention.c), so that neither costs one long tick either.
 */
#include <stdio.h>
#include <string.h>
#include "recorder.h"

#define CHUNK_COST 64             /* a chunk's insert, in values encoded */

static int writable(const struct rec *r)
{
	return r->in_txn && !r->failed && !r->down;
}

/* The old window's chunks: unit u < nnodes is node u's GPU samples, then
 * node u - nnodes's IB readings. */
static int32_t old_units(const struct rec *r)
{
	return r->old[PK_GPU].nnodes + r->old[PK_IB].nnodes;
}

/* Writes one chunk; returns what it cost (its values, plus an insert). */
static int64_t write_unit(struct rec *r, int32_t u)
{
	int kind = u >= r->old[PK_GPU].nnodes ? PK_IB : PK_GPU;
	int32_t node = kind == PK_IB ? u - r->old[PK_GPU].nnodes : u, rows = 0;
	struct window *w = &r->old[kind];
	sqlite3_stmt *st = r->st.chunk;

	for (int32_t i = 0; i < w->per_node; i++)
		rows += window_series(w, node, i)->n;
	if (!rows)
		return 1;
	sbuf_reset(&r->buf2);
	chunk_encode(&r->buf2, w, node, r->old_w0, (const char *const *)r->srcs, NULL, NULL);
	sqlite3_bind_text(st, 1, pack_kind_name(kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, r->old_w0);
	sqlite3_bind_int(st, 3, node);
	sqlite3_bind_int64(st, 4, r->old_t1);
	sqlite3_bind_int(st, 5, rows);
	sqlite3_bind_blob(st, 6, r->buf2.s, (int)r->buf2.len, SQLITE_STATIC);
	if (rec_step(r, st, "samples") == 0)
		r->stats.chunks++;
	return (int64_t)rows * w->nv + CHUNK_COST;
}

/* The old window's tail rows, once its chunks are written. Their samples
 * are all in the file still, so their pages need not be zeroed: an SQLite
 * built with SECURE_DELETE (Debian's) would write every freed page again,
 * megabytes at 10,240 GPUs. Other deletions keep the connection's setting. */
static void drop_tail(struct rec *r)
{
	int64_t secure = db_i64(r->db, "PRAGMA secure_delete", 0);
	char sql[40];

	if (secure)
		db_exec(r->db, "PRAGMA secure_delete = 0", NULL);
	sqlite3_bind_int64(r->st.del_tail, 1, r->old_w0);
	sqlite3_bind_int64(r->st.del_tail, 2, r->old_t1);
	rec_step(r, r->st.del_tail, "tail");
	if (secure) {
		snprintf(sql, sizeof sql, "PRAGMA secure_delete = %d", (int)secure);
		db_exec(r->db, sql, NULL);
	}
}

/* Writes chunks from old_upto on until they cost budget; after the last,
 * drops the tail rows and applies the age and size bounds. */
static void write_units(struct rec *r, int64_t budget)
{
	int64_t spent = 0;

	while (r->old_upto < old_units(r) && spent < budget && writable(r))
		spent += write_unit(r, r->old_upto++);
	r->old_spent += spent;
	if (r->old_upto < old_units(r) || !writable(r))
		return;
	drop_tail(r);
	if (writable(r))
		retention_run(r);
}

/* The buffers of a window that was written (or given up) serve the next
 * current window: cleared if they fit, else made anew. */
static void reuse(struct window *w, int kind, const struct window *like)
{
	if (w->s && w->nnodes == like->nnodes && w->per_node == like->per_node) {
		window_clear(w);
		return;
	}
	window_free(w);
	window_init(w, kind, like->nnodes, like->per_node);
}

void spread_close(struct rec *r, int64_t t1)
{
	struct window spare[PK_COUNT];

	if (r->have_old)   /* behind: the rest now, or never (the tail rows keep it) */
		write_units(r, INT64_MAX);
	memcpy(spare, r->old, sizeof spare);
	memcpy(r->old, r->win, sizeof r->old);
	r->have_old = 1;
	r->old_w0 = r->w0;
	r->old_t1 = t1;
	r->old_next = r->old_upto = 0;
	r->old_cost = r->old_spent = r->old_spent_next = 0;
	for (int k = 0; k < PK_COUNT; k++) {
		r->old_cost += r->old[k].rows * r->old[k].nv + (int64_t)r->old[k].nnodes * CHUNK_COST;
		if (r->topo_changed)
			window_free(&spare[k]);
		else
			reuse(&spare[k], k, &r->old[k]);
	}
	memcpy(r->win, spare, sizeof r->win);
	if (r->topo_changed) {
		r->have_win = 0;
		return;
	}
	r->w0 = r->w_end;
	r->w_end += r->chunk_ticks;
}

/* This group's slice: an even share, or what is left over the groups
 * before the next window closes if that is more. In the groups between (no
 * closed window to write), down-sampling instead: a window's GPU chunks in
 * SPREAD_TICKS / 2 groups, twice the pace windows come. At close, all. */
void spread_step(struct rec *r)
{
	int64_t left = r->old_cost - r->old_spent, share = (r->old_cost + SPREAD_TICKS - 1) / SPREAD_TICKS;
	int64_t groups = MAX(r->old_t1 - 1 + r->chunk_ticks - r->group, 1);

	if (!writable(r))
		return;
	if (r->have_old)
		write_units(r, r->flush_all ? INT64_MAX : MAX(share, (left + groups - 1) / groups));
	if (r->flush_all)   /* at close: the window being down-sampled, all of it */
		retention_step(r, INT32_MAX);
	else if (!r->have_old && !r->win_tail)   /* tail rows are not down-sampled (myriad-log(5)) */
		retention_step(r, (2 * r->win[PK_GPU].nnodes + SPREAD_TICKS - 1) / SPREAD_TICKS);
}

void spread_end_group(struct rec *r, int ok)
{
	if (!r->have_old)
		return;
	if (!ok) {   /* written again by a later group */
		r->old_upto = r->old_next;
		r->old_spent = r->old_spent_next;
		return;
	}
	r->old_next = r->old_upto;
	r->old_spent_next = r->old_spent;
	if (r->old_next < old_units(r))
		return;
	r->have_old = 0;
	for (int k = 0; k < PK_COUNT; k++)
		window_clear(&r->old[k]);
}
