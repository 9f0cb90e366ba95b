/*
 * pack.h - how the log stores the bulk of its data: GPU samples and IB port
 * readings ("packed events"), per node and window of ticks, columnar, with
 * the block codec of codec.h.
 *
 * A window buffers, for each series (one GPU, or one IB port), its rows: the
 * tick (group) of each event, the event's time relative to its tick's time,
 * its source, and its values. After a window closes each node's series are
 * encoded into one BLOB (the `samples` table), a slice of nodes per tick
 * (slices.c); until the last of them is in, each tick's packed events are
 * also in the `tail` table (one row per tick, columnar, each value relative
 * to the same series' previous row in the window) so that a killed recorder
 * loses at most its last tick. A window that has tail rows is read from them.
 *
 * Order: within a tick, packed events replay in "canonical" order (GPU
 * samples before IB readings, then by node, GPU or port, then time) unless
 * the tick's layout lists the order they arrived in.
 */
#ifndef MYRIAD_STORE_PACK_H
#define MYRIAD_STORE_PACK_H

#include <stdint.h>
#include "../event.h"
#include "../util.h"

enum pack_kind { PK_GPU, PK_IB, PK_COUNT };
#define NV_GPU MET_COUNT          /* the 9 metrics, int32 */
#define NV_IB (2 + IBC_COUNT)     /* state, have, 10 counters, 64 bit */
#define PACK_MAX_SRC 65535

static inline int pack_nv(int kind)
{
	return kind == PK_GPU ? NV_GPU : NV_IB;
}

struct series {
	int32_t n, cap;
	int64_t *tick;                /* group of each row */
	int64_t *tdelta;              /* event time - tick time, us; NULL: all 0 */
	uint16_t *src;                /* source id; NULL: all 0 */
	int32_t *v32;                 /* GPU: n x nv values, row-major */
	int64_t *v64;                 /* IB: n x nv values, row-major */
	int32_t pos;                  /* reader: next row to emit */
	int32_t tail_base;            /* recorder: last row written to a tail, -1 none */
};

/* The series of one kind for every node and index of the topology. */
struct window {
	int kind, nv;
	int32_t nnodes, per_node;
	struct series *s;             /* nnodes * per_node */
	int64_t rows;
	int64_t *scratch;             /* tail encoding's columns, kept between ticks */
	size_t scratch_cap;
};

void window_init(struct window *w, int kind, int32_t nnodes, int32_t per_node);
void window_free(struct window *w);
void window_clear(struct window *w);          /* drop rows, keep memory */
static inline int64_t series_value(const struct series *s, int nv, int32_t row, int c)
{
	return s->v32 ? s->v32[(size_t)row * (size_t)nv + (size_t)c] : s->v64[(size_t)row * (size_t)nv + (size_t)c];
}
static inline struct series *window_series(struct window *w, int32_t node, int32_t idx)
{
	return &w->s[(size_t)node * (size_t)w->per_node + (size_t)idx];
}
/* Appends one row; returns its index. */
int32_t series_append(struct series *s, int kind, int64_t tick, int64_t tdelta, uint16_t src, const int64_t *v);

/* Event <-> values of a packed event. */
void pack_values(const struct event *ev, int64_t *v);
void unpack_values(struct event *ev, int kind, int32_t node, int32_t idx, const int64_t *v);

/* A node's series of one window as a BLOB. srcs maps source ids to strings.
 * keep(tick) (NULL: all) selects rows, for down-sampling. */
void chunk_encode(struct sbuf *out, const struct window *w, int32_t node, int64_t t0, const char *const *srcs,
		  int (*keep)(void *ctx, int64_t tick), void *ctx);
/* Decodes a BLOB into s[0 .. per_node) (replacing their rows); the source
 * strings go to a and their table to *srcs. 0, or -1 if malformed. */
int chunk_decode(struct series *s, int32_t per_node, int kind, int64_t t0, const void *blob, size_t len,
		 struct arena *a, const char ***srcs, int *nsrcs);

/* One arrival of a packed event in a tick. */
struct arrival {
	uint8_t kind;
	int32_t node, idx, row;
};
/* The order list of a tick whose packed events were not canonical. */
void layout_encode(struct sbuf *out, const struct arrival *a, size_t n);
/* Decodes into a growable array; returns the count, -1 if malformed. */
long layout_decode(const void *blob, size_t len, struct arrival **out, size_t *cap);

/* A tail row: one tick's packed events (a[0..n), of window w0) in
 * canonical order, columnar; a value is relative to its series' tail_base
 * row when there is one. Updates tail_base. srcs: the nsrcs source strings. */
void tail_encode(struct sbuf *out, struct window *win, int64_t w0, int64_t tick, const struct arrival *a, size_t n,
		 const char *const *srcs, int nsrcs);
#define TAIL_VERSION 2
/* Forgets every tail_base (after a write failed: later rows are absolute). */
void tail_reset_bases(struct window *w);
/* The window a tail row belongs to (its w0), -1 if malformed. */
int64_t tail_window(const void *blob, size_t len);
/* Appends a tail row's events to the series of win (rows of the same
 * window, decoded in tick order). tick_time and the row's deltas give each
 * row's tdelta; source ids index *srcs (allocated in a). 0 or -1. */
int tail_decode(struct window *win, int64_t tick, const void *blob, size_t len, struct arena *a,
		const char ***srcs, int *nsrcs);

/* ---- tail rows from dense arrays (a recording that keeps its samples in
 * tail rows, store_int.h) ---- */

/* Each series' value in the row it was last written to (or read from) in
 * a tail row, and whether it has one: what the next row is relative to. */
struct tail_chain {
	int32_t nnodes, per_node[PK_COUNT];
	int64_t *last[PK_COUNT];      /* series x pack_nv(kind) */
	uint8_t *has[PK_COUNT];       /* series */
	int64_t *buf;                 /* the encoder's columns */
	size_t buf_cap;
};
void chain_init(struct tail_chain *c, int32_t nnodes, int32_t gpus_per_node, int32_t ports_per_node);
void chain_free(struct tail_chain *c);
void chain_reset(struct tail_chain *c, int kind);   /* the next rows of kind are absolute */

/* One packed event of a tick, held densely by the recorder. */
struct tev {
	int64_t v[NV_IB];             /* its values (a GPU sample: NV_GPU of them, as int32) */
	int64_t tdelta;
	int32_t node, idx;
	uint16_t src;
	uint8_t kind;
};
/* tail_encode of events ev[a[i].row], relative to c and advancing it. */
void tail_encode_dense(struct sbuf *out, struct tail_chain *c, int64_t w0, const struct tev *ev, const struct arrival *a,
		       size_t n, const char *const *srcs, int nsrcs);
/* One kind's rows of a tail row read densely: row i is series (node[i],
 * idx[i]), its source src[i] (an index of the reader's table), its time
 * offset tdelta[i] (tdelta NULL: all 0), its values v[i * nv ...]. */
struct dense_rows {
	int kind, nv;
	size_t n;
	const int32_t *node, *idx;
	const int64_t *src, *tdelta, *v;
};
/* The row's events of the kinds asked for, relative to c and advancing it
 * (the other kind skipped, c unchanged for it): rows(ctx, d) once per kind
 * read, in the row's order. 0, -1 if malformed, -2 if a value is relative
 * to one c does not have. */
struct tail_scratch;
int tail_read_dense(struct tail_chain *c, const void *blob, size_t len, unsigned kinds, struct tail_scratch *ts,
		    struct arena *a, const char ***srcs, int *nsrcs,
		    void (*rows)(void *ctx, const struct dense_rows *d), void *ctx);

/* pack.c, for both encoders */
size_t *pack_canonical(const struct arrival *a, size_t n);   /* arrival indexes in canonical order, malloc'd */
void pack_put_runs(struct sbuf *out, const struct arrival *a, const size_t *ix, size_t n);
/* A tail row's head (version, w0, the sources of ids[0..n) numbered in
 * first-seen order into local[]); local: nsrcs + 1 entries. */
void tail_put_head(struct sbuf *out, int64_t w0, const uint16_t *ids, size_t n, const char *const *srcs, int nsrcs,
		   int32_t *local);

/* ---- tailread.c ---- */
struct tail_scratch {             /* a row's columns, kept from row to row */
	int32_t *node, *idx;
	int64_t *col, *td, *src, *v, *out;
	size_t cap, vcap;
};
void tail_scratch_free(struct tail_scratch *t);
/* tail_decode for the kinds in `kinds` (bit 1 << kind), the others skipped
 * without reading their values; ts: buffers (or NULL); row(ctx, kind, node,
 * idx, r), when not NULL, for each row appended (series row r), in the
 * row's order. 0; -1 if malformed; -2 if a value is relative to a row the
 * series does not hold (its chain starts before what was read). */
#define TAIL_KINDS ((1u << PK_COUNT) - 1)
int tail_read(struct window *win, int64_t tick, const void *blob, size_t len, unsigned kinds, struct tail_scratch *ts,
	      struct arena *a, const char ***srcs, int *nsrcs,
	      void (*row)(void *ctx, int kind, int32_t node, int32_t idx, int32_t r), void *ctx);

#endif
