/*
 * store_int.h - what the files of src/store share: the schema and its
 * migrations (db.c), the recorder (recorder.c, slices.c), the reader that
 * turns a recording back into events (reader.c), retention (retention.c).
 *
 * Vocabulary: a "group" is one tick of the recording: its EV_TICK (seq 0)
 * and every event delivered until the next EV_TICK, numbered by seq. Packed
 * events (GPU samples, IB readings) live in `samples`/`tail` (pack.h); every
 * other event is a row of `events` at its seq, and packed events fill the
 * seqs in between.
 */
#ifndef MYRIAD_STORE_INT_H
#define MYRIAD_STORE_INT_H

#include <stdio.h>
#include <sqlite3.h>
#include "store.h"
#include "pack.h"

#define SCHEMA_VERSION 3
#define CHUNK_TICKS 60
#define MAX_CHUNK_TICKS 3600          /* the most a reader takes from a file's meta */
#define KF_TICKS_MAX 600
/* From this size on a recording keeps its samples in tail rows, a row per
 * tick, instead of packing each window into chunks per node (myriad-log(5)):
 * a seek then reads the rows from the keyframe on, not a whole window of
 * chunks (70 million values at 102,400 GPUs), and keyframes come every
 * TAIL_KF_GPU_TICKS / GPUs ticks (5 at 102,400) so that a seek applies a
 * few ticks of events, not fifteen. The rows are no bigger than chunks at
 * that size (the samples of one tick relative to the tick before). */
#define TAIL_ONLY_GPUS 32768
#define TAIL_KF_GPU_TICKS 512000
/* Their files have pages of 16 KB, not 1 KB: a tick's row of 600 KB is 38
 * pages to read, not 600 (chosen while the file is still empty). */
#define TAIL_PAGE_SIZE 16384
/* Their IB rows start over every TAIL_IB_TICKS ticks too, not only with a
 * window: a keyframe's prediction (the IB readings of the 30 ticks before
 * it) is then read from at most 59 rows back, not 89 (some 2 % more bytes:
 * a tick's IB readings relative to nothing cost 80 KB more). */
#define TAIL_IB_TICKS 30

/* ---- db.c ---- */
/* Opens (creating if create) a log. Newer schema: opened read-only with a
 * message in *warn. Older: migrated (needs write access). 0 or -1 + *err. */
int db_open(const char *path, int create, int readonly, sqlite3 **db, char **warn, char **err);
/* Creates the tables of schema version `version` (tests build old files). */
int db_create_schema(sqlite3 *db, int version, char **err);
/* Another page size for a file with no transaction open (VACUUM). */
int db_set_page_size(sqlite3 *db, int size, char **err);
int db_exec(sqlite3 *db, const char *sql, char **err);
sqlite3_stmt *db_prep(sqlite3 *db, const char *sql, char **err);
int db_meta_set(sqlite3 *db, const char *key, const char *value);
int db_meta_set_i64(sqlite3 *db, const char *key, int64_t value);
char *db_meta_get(sqlite3 *db, const char *key);                    /* malloc'd or NULL */
int64_t db_meta_i64(sqlite3 *db, const char *key, int64_t dflt);
int64_t db_i64(sqlite3 *db, const char *sql, int64_t dflt);         /* first column of first row */
char *db_errmsg(sqlite3 *db, const char *what);                     /* malloc'd */
const char *pack_kind_name(int kind);                              /* "gpu", "ib" */
int64_t file_size(const char *path);                               /* 0 if none */

/* ---- recorder.c ---- */
struct retention {
	int64_t full_ticks;           /* keep every sample for this long (ticks = s) */
	int64_t coarse_step;          /* beyond: one sample in step ticks */
	int64_t max_age;              /* drop what is older, 0 = never */
	int64_t max_bytes;            /* drop the oldest stretch beyond, 0 = no bound */
	int64_t keyframe_ticks;       /* tuning: keyframe interval, 0 = by cluster size */
};
void retention_default(struct retention *r);
/* MYRIAD_LOG_RETENTION="full=21600,step=10,age=604800,size=4G[,keyframe=60]"
 * on top of r. */
int retention_parse(struct retention *r, const char *text, char **err);

/* ---- reader.c ---- */
struct tick_row {
	int64_t tick, time, num, nevents;
	int has_tick;                 /* the group starts with an EV_TICK */
	char source[64];
};

struct rowref {                   /* one row of a series of the loaded window */
	const void *v;                /* its values: int32 (GPU) or int64 (IB) */
	const char *source;
	int64_t tdelta;
	int32_t node;
	int16_t idx;
	uint8_t kind;
};

struct reader {
	sqlite3 *db;
	char *path;
	int readonly;
	int64_t first, last;          /* groups present */
	int64_t start_time;           /* meta start (us) */
	int chunk_ticks;
	int kf_usable;                /* keyframes of this build's layout */
	int hash_version;             /* of its keyframes' model hashes (meta hash_version, 1 if none) */
	sqlite3_stmt *q_tick, *q_events, *q_chunks, *q_tail, *q_kf, *q_kfstatic, *q_window, *q_has_tail, *q_tail_rows;
	/* the window of packed events loaded */
	int64_t w0, w1;               /* [w0, w1) */
	int w_tail;                   /* from tail rows (arrival order) */
	int w_step;                   /* > 1: down-sampled */
	struct window win[PK_COUNT];
	int32_t nnodes, per_node[PK_COUNT];
	const char ***srcs;           /* per kind*nnodes+node: chunk's source table */
	struct arena w_arena;         /* window strings */
	struct arena g_arena;         /* group strings */
	struct arrival *lay;
	size_t lay_cap;
	size_t *bucket;               /* rows of tick w0 + t: refs[bucket[t] .. bucket[t + 1]) */
	struct rowref *refs, *lrefs;  /* canonical order; a layout's order */
	size_t nrefs, refs_cap, lrefs_cap;
	/* a window read from tail rows (readtail.c) */
	struct tail_chain chain, pchain;   /* each series' last value: the window's, a prediction's */
	struct tail_scratch ts;
	int64_t gpu_from;             /* GPU samples read from this tick on; the tick kept (tv) */
	int64_t pred_from, pred_k;    /* pchain holds the IB rows of [pred_from, pred_k), or pred_k -1 */
	struct tick_vals {            /* the tick kept (gpu_from): the values its references point into */
		int32_t *v32;
		int64_t *v64;
		size_t n32, cap32, n64, cap64;
	} tv;
	int64_t tail_upto;            /* tail window: rows decoded up to this tick */
	const char **tsrcs;           /* tail window: its source table */
	int ntsrcs;
	int downsampled_hit;          /* a group emitted from a down-sampled window */
	int64_t ticks_time[32];       /* keyframe prediction: tick times (>= KF_PRED_TICKS) */
	struct kf_scratch *kf;        /* keyframe buffers, kept */
	void *pred_buf;               /* a keyframe's IB prediction, kept (18 MB at 102,400 GPUs) */
	size_t pred_bytes;
	/* damaged rows skipped: said through on_bad (else stderr), once each */
	void (*on_bad)(void *ctx, const char *msg);
	void *bad_ctx;
	int nbad;
	uint64_t bad_seen[64];
};

int reader_open(struct reader *r, const char *path, char **warn, char **err);
void reader_bad(struct reader *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
void reader_close(struct reader *r);
void reader_refresh(struct reader *r);                             /* the file grew */
int reader_tick(struct reader *r, int64_t tick, struct tick_row *out);        /* 0, 1 = none */
/* The group at or after `tick` (dir > 0) or at or before it (dir < 0). */
int reader_find(struct reader *r, int64_t tick, int dir, struct tick_row *out);
/* The last group whose time <= t; 1 if none. */
int reader_at_time(struct reader *r, int64_t t, struct tick_row *out);
/* Emits group `tick`'s events with seq >= from_seq through fn. 0 or -1. */
int reader_group(struct reader *r, const struct tick_row *tr, int64_t from_seq,
		 void (*fn)(void *ctx, const struct event *ev), void *ctx, char **err);
/* The newest keyframe at or before tick into m: its tick in *kf_tick.
 * 1 if none usable, -1 on error. */
int reader_keyframe(struct reader *r, int64_t tick, struct model *m, int64_t *kf_tick, char **err);
/* Is the window holding tick down-sampled? */
int reader_downsampled(struct reader *r, int64_t tick);
/* readtail.c: the tail window [w0, w1) read up to tick; the IB readings
 * of the tail rows of [lo, k) into a keyframe's prediction (ok[t - lo]:
 * tick t is committed, its time in ticks_time). */
int readtail_window(struct reader *r, int64_t w0, int64_t w1, int64_t tick, char **err);
struct kf_pred;
void readtail_pred(struct reader *r, int64_t lo, int64_t k, const uint8_t *ok, struct kf_pred *pred);

/* ---- replay.c (for cli.c) ---- */
int replay_goto(struct myriad *app, int64_t group, char **err);     /* the model after that group */
int replay_through(struct myriad *app, int64_t group, char **err);  /* apply on up to group */
int replay_position(const struct myriad *app, int64_t *group);      /* -1 before the first */
const char *replay_path(const struct myriad *app);
/* The replay's reader and its position (the last group applied); NULL
 * before the first group or when not replaying (replaylog.c). */
struct reader *replay_reader(const struct myriad *app, int64_t *pos);

/* ---- export.c ---- */
enum export_fmt { EXPORT_CSV, EXPORT_JSONL, EXPORT_OPENMETRICS };
struct export_opts {
	enum export_fmt fmt;
	const char *table;            /* csv: "gpu" (default), "ib", "events" */
	int64_t from, to;             /* groups, inclusive */
	const char *nodes;            /* nodeset filter, NULL = all */
};
/* Writes the recording r to out. 0, or -1 with *err. */
int export_log(struct reader *r, const struct export_opts *o, FILE *out, char **err);

#endif
