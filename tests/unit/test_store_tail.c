/*
 * test_store_tail.c - tail rows from dense arrays (src/store/tailpack.c)
 * and read back densely (tailread.c): the same bytes as tail_encode from
 * series, for ticks with several rows of one series, arrivals out of order,
 * sources, time offsets and bases forgotten (a window's start, a keyframe,
 * a failed write); read back the same values, with one kind skipped, and -2
 * for a row relative to what was not read. A recording kept in tail rows
 * (a small cluster taken for 102,400 GPUs: rec_scale) lands on the live
 * hash at every tick, seeked to in any order, and played on.
 */
#include <stdlib.h>
#include "test.h"
#include "myriad.h"
#include "store/pack.h"
#include "store/recorder.h"
#include "store/store_int.h"
#include "util.h"

#define NODES 5
#define PER 4
#define TICKS 12
#define PER_TICK 30

struct got {
	int n;
	struct {
		int kind, src;
		int32_t node, idx;
		int64_t tdelta, v[NV_IB];
	} e[PER_TICK];
};

static void on_rows(void *ctx, const struct dense_rows *d)
{
	struct got *g = ctx;

	for (size_t i = 0; i < d->n; i++, g->n++) {
		if (g->n >= PER_TICK)
			continue;
		g->e[g->n].kind = d->kind;
		g->e[g->n].node = d->node[i];
		g->e[g->n].idx = d->idx[i];
		g->e[g->n].src = (int)d->src[i];
		g->e[g->n].tdelta = d->tdelta ? d->tdelta[i] : 0;
		memcpy(g->e[g->n].v, d->v + i * (size_t)d->nv, sizeof g->e[g->n].v[0] * (size_t)d->nv);
	}
}

/* A tick's events: random series (some twice), values near the last ones;
 * a[] (row: the event) for the dense encoder, sa[] (row: the series' row)
 * for tail_encode. */
static size_t make_tick(struct rng *r, struct tev *ev, struct arrival *a, struct arrival *sa, struct window *win,
			int64_t t)
{
	size_t n = 5 + rng_below(r, PER_TICK - 5);

	for (size_t i = 0; i < n; i++) {
		struct tev *e = &ev[i];
		int kind = rng_below(r, 3) == 0 ? PK_IB : PK_GPU;

		memset(e, 0, sizeof *e);
		e->kind = (uint8_t)kind;
		e->node = (int32_t)rng_below(r, NODES);
		e->idx = (int32_t)rng_below(r, PER);
		e->src = (uint16_t)rng_below(r, 3);
		e->tdelta = rng_below(r, 4) ? 0 : (int64_t)rng_below(r, 900000);
		for (int c = 0; c < pack_nv(kind); c++) {
			int64_t x = (int64_t)(t * 1000 + rng_below(r, 50)) * (c + 1);

			e->v[c] = kind == PK_GPU ? (int32_t)(c == 3 ? MET_UNKNOWN : x) : x * 1000000007LL + (c == 1 ? INT64_MIN : 0);
		}
		a[i] = (struct arrival){e->kind, e->node, e->idx, (int32_t)i};
		sa[i] = a[i];
		sa[i].row = series_append(window_series(&win[kind], e->node, e->idx), kind, t, e->tdelta, e->src, e->v);
	}
	return n;
}

static void check_same(const struct got *g, const struct tev *ev, const struct arrival *a, size_t n, unsigned kinds,
		       const char *const *srcs, const char *const *rs)
{
	size_t *ix = pack_canonical(a, n);
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tev *e = &ev[a[ix[i]].row];

		if (!(kinds & (1u << e->kind)))
			continue;
		CHECK(k < g->n);
		if (k >= g->n)
			break;
		CHECK_INT(g->e[k].kind, e->kind);
		CHECK_INT(g->e[k].node, e->node);
		CHECK_INT(g->e[k].idx, e->idx);
		CHECK_STR(rs[g->e[k].src], srcs[e->src]);
		CHECK_INT(g->e[k].tdelta, e->tdelta);
		CHECK(!memcmp(g->e[k].v, e->v, sizeof e->v[0] * (size_t)pack_nv(e->kind)));
		k++;
	}
	CHECK_INT(g->n, k);
	free(ix);
}

TEST(store_tail_dense_same_bytes_and_values)
{
	static struct tev ev[TICKS][PER_TICK];
	static struct arrival a[TICKS][PER_TICK], sa[PER_TICK];
	size_t n[TICKS];
	struct window win[PK_COUNT];
	struct tail_chain enc = {0}, dec = {0}, part = {0};
	struct sbuf b[TICKS] = {{0}}, d = {0};
	const char *srcs[] = {"sim", "ssh:gpu0001", "x"};
	const char **rs = NULL;
	struct arena ar = {0};
	struct tail_scratch ts = {0};
	struct rng r;
	int nrs = 0;

	rng_seed(&r, 7);
	for (int k = 0; k < PK_COUNT; k++)
		window_init(&win[k], k, NODES, PER);
	chain_init(&enc, NODES, PER, PER);
	chain_init(&dec, NODES, PER, PER);
	chain_init(&part, NODES, PER, PER);
	for (int t = 0; t < TICKS; t++) {
		if (t == 4 || t == 8) {   /* a keyframe: GPU rows absolute from here */
			tail_reset_bases(&win[PK_GPU]);
			chain_reset(&enc, PK_GPU);
		}
		if (t == 6) {              /* a failed write: both */
			tail_reset_bases(&win[PK_GPU]);
			tail_reset_bases(&win[PK_IB]);
			chain_reset(&enc, PK_GPU);
			chain_reset(&enc, PK_IB);
		}
		n[t] = make_tick(&r, ev[t], a[t], sa, win, t);
		tail_encode(&b[t], win, 0, t, sa, n[t], srcs, 3);
		sbuf_reset(&d);
		tail_encode_dense(&d, &enc, 0, ev[t], a[t], n[t], srcs, 3);
		CHECK(d.len == b[t].len && !memcmp(d.s, b[t].s, d.len));
	}
	for (int t = 0; t < TICKS; t++) {   /* all of it; and IB only until 8, then all */
		struct got g = {0}, h = {0};
		unsigned kinds = t < 8 ? 1u << PK_IB : TAIL_KINDS;

		CHECK_INT(tail_read_dense(&dec, b[t].s, b[t].len, TAIL_KINDS, &ts, &ar, &rs, &nrs, on_rows, &g), 0);
		check_same(&g, ev[t], a[t], n[t], TAIL_KINDS, srcs, rs);
		CHECK_INT(tail_read_dense(&part, b[t].s, b[t].len, kinds, &ts, &ar, &rs, &nrs, on_rows, &h), 0);
		check_same(&h, ev[t], a[t], n[t], kinds, srcs, rs);
	}
	/* GPU rows from tick 5 on: relative to tick 4's, which were not read */
	struct tail_chain late = {0};
	int rc = 0;

	chain_init(&late, NODES, PER, PER);
	for (int t = 5; t < 8 && rc == 0; t++)
		rc = tail_read_dense(&late, b[t].s, b[t].len, TAIL_KINDS, &ts, &ar, &rs, &nrs, NULL, NULL);
	CHECK_INT(rc, -2);
	CHECK_INT(tail_read_dense(&dec, b[1].s, b[1].len / 2, TAIL_KINDS, &ts, &ar, &rs, &nrs, NULL, NULL), -1);
	chain_free(&late);
	chain_free(&enc);
	chain_free(&dec);
	chain_free(&part);
	tail_scratch_free(&ts);
	free(rs);
	arena_free(&ar);
	sbuf_free(&d);
	for (int t = 0; t < TICKS; t++)
		sbuf_free(&b[t]);
	for (int k = 0; k < PK_COUNT; k++)
		window_free(&win[k]);
}

#define SEEK_TICKS 130

/* Every tick's live hash, recording to path as 200 times the cluster. */
static void record_scaled(const char *path, uint64_t *hash)
{
	struct myriad app;
	char *err = NULL;

	rec_scale = 200;
	app_init(&app);
	CHECK_INT(recorder_open(&app, path, &err), 0);
	CHECK_INT(app_add_source(&app, "sim", "gpus=512,seed=9,accel=2000", &err), 0);
	for (int t = 1; t <= SEEK_TICKS; t++) {
		app_tick(&app);
		hash[t] = model_hash(&app.model);
	}
	recorder_close(&app);
	app_free(&app);
	rec_scale = 1;
}

/* The age bound drops the oldest stretch, keyframe to keyframe: what is
 * left of a recording kept in tail rows still seeks to the live hashes
 * (its first rows start where their IB readings start over). */
TEST(store_tail_recording_cut_by_age_seeks_land_on_the_live_hash)
{
	static uint64_t hash[SEEK_TICKS + 1];
	char *path = unit_tmp_file("tailage.db"), *err = NULL;
	struct myriad app;
	int bad = 0;
	int64_t first;
	sqlite3 *db = NULL;

	setenv("MYRIAD_LOG_RETENTION", "age=50", 1);
	record_scaled(path, hash);
	unsetenv("MYRIAD_LOG_RETENTION");
	sqlite3_open(path, &db);
	first = db_meta_i64(db, "first_tick", 0);
	CHECK(first > 60);
	CHECK(db_i64(db, "SELECT min(tick) FROM tail", 0) % 30 == 0);
	sqlite3_close(db);
	app_init(&app);
	CHECK_INT(replay_open(&app, path, &err), 0);
	for (int64_t g = SEEK_TICKS; g >= first; g -= 3) {
		CHECK_INT(replay_goto(&app, g, &err), 0);
		bad += model_hash(&app.model) != hash[g];
	}
	CHECK_INT(bad, 0);
	app_free(&app);
	unit_remove_db(path);
}

TEST(store_tail_recording_seeks_land_on_the_live_hash)
{
	static uint64_t hash[SEEK_TICKS + 1];
	char *path = unit_tmp_file("tailseek.db"), *err = NULL;
	struct myriad app;
	struct rng r;
	int bad = 0;

	record_scaled(path, hash);
	app_init(&app);
	CHECK_INT(replay_open(&app, path, &err), 0);
	sqlite3 *db = NULL;

	sqlite3_open(path, &db);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM samples", -1), 0);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM keyframes WHERE tick % 5 = 0", -1), SEEK_TICKS / 5);
	sqlite3_close(db);
	rng_seed(&r, 3);
	for (int i = 0, prev = 1; i < 120; i++) {   /* anywhere, a tick back, a tick on */
		int g = i % 4 == 2 ? MAX(prev - 1, 1) : i % 4 == 3 ? MIN(prev + 1, SEEK_TICKS) : 1 + (int)rng_below(&r, SEEK_TICKS);

		CHECK_INT(replay_goto(&app, g, &err), 0);
		bad += model_hash(&app.model) != hash[g];
		prev = g;
	}
	for (int64_t g = 55; g <= 70; g++) {   /* played on across a window's end */
		CHECK_INT(replay_goto(&app, g, &err), 0);
		bad += model_hash(&app.model) != hash[g];
	}
	CHECK_INT(bad, 0);
	app_free(&app);
	unit_remove_db(path);
}
