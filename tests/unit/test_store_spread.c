/*
 * test_store_slices.c - the recorder writes a closed window's chunks a slice
 * of nodes per tick (src/store/slices.c). A recording read while that is
 * under way, closed while it is under way, or killed (SIGKILL) while it is
 * under way gives back every event of its committed ticks exactly once, as
 * the live run delivered it; its keyframes restore; seeks land on the live
 * hashes. The first window is [1, 60) (tick 0 is the inventory), the next
 * [60, 120).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "myriad.h"
#include "store/evjson.h"
#include "store/recorder.h"
#include "store/store_int.h"

#define SPEC "gpus=512,seed=7,accel=2000"
#define NODES 64                  /* a window's chunks are written over 30 ticks, GPU chunks first */
#define TICKS 130
#define MAX_TICKS 200

struct live {
	struct sbuf text;             /* every event delivered, one line each */
	size_t at[MAX_TICKS + 2];     /* text.len when EV_TICK t came: groups < t */
	uint64_t hash[MAX_TICKS + 1]; /* the model after tick t */
	int64_t tick, samples;        /* GPU samples delivered in ticks >= 1 */
	int ticks;                    /* the run's */
};

static void line(struct sbuf *b, const struct event *ev)
{
	sbuf_printf(b, "%s %lld %s ", ev_type_name(ev->type), (long long)ev->time, ev->source ? ev->source : "");
	evjson_encode(b, ev);
	sbuf_addc(b, '\n');
}

static void capture(void *ctx, const struct event *ev)
{
	struct live *lv = ctx;

	if (ev->type == EV_TICK && ev->u.tick.tick >= 0 && ev->u.tick.tick <= MAX_TICKS + 1)
		lv->at[lv->tick = ev->u.tick.tick] = lv->text.len;
	lv->samples += ev->type == EV_SAMPLE && lv->tick >= 1;
	line(&lv->text, ev);
}

static void capture_back(void *ctx, const struct event *ev)
{
	line(ctx, ev);
}

/* The live run (recording to path unless NULL) for `ticks` ticks; with
 * kill, the process kills itself then, in the middle of a transaction. */
static void run(struct live *lv, const char *path, int ticks, int kill)
{
	struct myriad app;
	char *err = NULL;

	app_init(&app);
	setenv("MYRIAD_LOG_RETENTION", "keyframe=60", 1);
	CHECK(!path || recorder_open(&app, path, &err) == 0);
	unsetenv("MYRIAD_LOG_RETENTION");
	if (lv) {
		lv->ticks = ticks;
		bus_subscribe(&app.bus, BUS_ALL, capture, lv);
	}
	CHECK(app_add_source(&app, "sim", SPEC, &err) == 0);
	for (int k = 1; k <= ticks; k++) {
		app_tick(&app);
		if (lv)
			lv->hash[k] = model_hash(&app.model);
	}
	if (kill)
		raise(SIGKILL);
	if (path)
		recorder_close(&app);
	app_free(&app);
}

static int same_text(const struct sbuf *got, const char *want, size_t len)
{
	size_t i = 0;

	while (i < got->len && i < len && got->s[i] == want[i])
		i++;
	if (i == len && got->len == len)
		return 1;
	fprintf(stderr, "  %zu bytes back, %zu live; first difference at %zu:\n  %.160s\n  vs %.160s\n", got->len, len,
		i, i < got->len ? got->s + i : "(end)", i < len ? want + i : "(end)");
	return 0;
}

/* Each group the file holds reads back as the live run delivered it, each
 * event once; the groups it lost (the log could not be written) are absent.
 * Returns how many it holds. */
static int64_t check_groups(const char *path, const struct live *lv)
{
	struct reader r;
	struct tick_row tr;
	struct sbuf back = {0};
	char *warn = NULL, *err = NULL;
	int64_t held = 0;

	CHECK(reader_open(&r, path, &warn, &err) == 0);
	CHECK(r.last <= lv->ticks);
	for (int64_t t = 0; t <= r.last; t++) {
		size_t from = t ? lv->at[t] : 0, to = t < lv->ticks ? lv->at[t + 1] : lv->text.len;

		if (reader_tick(&r, t, &tr) != 0)
			continue;
		held++;
		sbuf_reset(&back);
		CHECK(reader_group(&r, &tr, 0, capture_back, &back, &err) == 0);
		if (!same_text(&back, lv->text.s + from, to - from))
			fprintf(stderr, "  (group %lld)\n", (long long)t);
	}
	reader_close(&r);
	sbuf_free(&back);
	free(warn);
	free(err);
	return held;
}

/* The file holds groups 0 .. upto - 1, every one. */
static void check_events(const char *path, const struct live *lv, int64_t upto)
{
	CHECK_INT(check_groups(path, lv), upto);
}

/* The window [w0, w1) is half written: some of its GPU chunks, all its
 * tail rows. */
static void check_half_written(const char *path, int64_t w0, int64_t w1)
{
	sqlite3 *db = NULL;
	char sql[160];

	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM samples WHERE t0 = %lld AND kind = 'gpu'", (long long)w0);
	int64_t n = db_i64(db, sql, -1);

	CHECK(n > 0 && n < NODES);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM tail WHERE tick >= %lld AND tick < %lld", (long long)w0,
		 (long long)w1);
	CHECK_INT(db_i64(db, sql, -1), w1 - w0);
	sqlite3_close(db);
}

/* The keyframe at tick k restores (its IB prediction read the readings of
 * [k - 30, k) once each, from chunks and tail rows) and seeks to ticks
 * land on the live hashes. */
static void check_seeks(const char *path, const struct live *lv, int64_t k, const int64_t *at, int n)
{
	struct reader r;
	struct model m;
	struct myriad app;
	char *warn = NULL, *err = NULL;
	int64_t kt = -1;

	CHECK(reader_open(&r, path, &warn, &err) == 0);
	model_init(&m);
	CHECK(reader_keyframe(&r, k, &m, &kt, &err) == 0);
	if (err)
		fprintf(stderr, "  keyframe: %s\n", err);
	CHECK_INT(kt, k);
	model_free(&m);
	reader_close(&r);
	free(err);
	err = NULL;
	app_init(&app);
	CHECK(replay_open(&app, path, &err) == 0);
	for (int i = 0; i < n; i++) {
		CHECK(replay_goto(&app, at[i], &err) == 0);
		CHECK_INT(model_hash(&app.model), lv->hash[at[i]]);
	}
	free(err);
	app_free(&app);
}

TEST(store_spread_read_and_closed_mid_window_keep_every_event)
{
	struct live lv = {0}, mid = {0};
	char *path = unit_tmp_file("spread.db");
	struct myriad app;
	char *err = NULL;

	run(&lv, NULL, TICKS, 0);   /* the run to compare with */
	app_init(&app);
	setenv("MYRIAD_LOG_RETENTION", "keyframe=60", 1);
	CHECK(recorder_open(&app, path, &err) == 0);
	unsetenv("MYRIAD_LOG_RETENTION");
	bus_subscribe(&app.bus, BUS_ALL, capture, &mid);
	CHECK(app_add_source(&app, "sim", SPEC, &err) == 0);
	for (int k = 1; k <= TICKS; k++) {
		app_tick(&app);
		if (k == 70) {   /* window 1-59 half written, read while recording */
			check_half_written(path, 1, 60);
			check_events(path, &lv, 70);
			check_seeks(path, &lv, 60, (const int64_t[]){30, 61, 69}, 3);
		}
	}
	check_half_written(path, 60, 120);
	recorder_close(&app);   /* in the middle of writing window 60-119 */
	app_free(&app);
	CHECK(mid.text.len == lv.text.len && !memcmp(mid.text.s, lv.text.s, lv.text.len));   /* deterministic */
	check_events(path, &lv, TICKS + 1);
	check_seeks(path, &lv, 120, (const int64_t[]){59, 60, 119, 121, 130}, 5);
	sqlite3 *db = NULL;

	sqlite3_open(path, &db);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM tail", -1), 0);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM samples WHERE t0 = 1 AND kind = 'gpu'", -1), NODES);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM samples WHERE t0 = 60 AND kind = 'gpu'", -1), NODES);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM samples WHERE t0 = 120 AND kind = 'gpu' AND t1 = 131", -1), NODES);
	CHECK_INT(db_i64(db, "SELECT sum(rows) FROM samples WHERE kind = 'gpu'", -1) +
		  db_i64(db, "SELECT count(*) FROM events WHERE type = 'sample' AND tick >= 1", -1), lv.samples);
	CHECK(lv.samples > 500LL * TICKS);
	sqlite3_close(db);
	sbuf_free(&lv.text);
	sbuf_free(&mid.text);
	unit_remove_db(path);
}

TEST(store_spread_killed_mid_window_keeps_every_committed_event)
{
	struct live lv = {0};
	char *path = unit_tmp_file("killed.db");
	int status = 0;
	pid_t pid;

	run(&lv, NULL, TICKS, 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		run(NULL, path, 75, 1);   /* never returns */
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	check_half_written(path, 1, 60);   /* groups 0-74 committed, 59-74 wrote 16 of 30 slices */
	check_events(path, &lv, 75);
	check_seeks(path, &lv, 60, (const int64_t[]){1, 59, 60, 74}, 4);
	sbuf_free(&lv.text);
	unit_remove_db(path);
}

static int deny_samples(void *ctx, int op, const char *table, const char *b, const char *c, const char *d)
{
	(void)ctx, (void)b, (void)c, (void)d;
	return op == SQLITE_INSERT && table && !strcmp(table, "samples") ? SQLITE_DENY : SQLITE_OK;
}

/* Makes the recorder's writes fail (how: 1 all, 2 chunks only), or work
 * again (0). */
static void fail_writes(struct myriad *app, int how)
{
	struct rec *rc = app->recorder;

	db_exec(rc->db, how == 1 ? "PRAGMA query_only = 1" : "PRAGMA query_only = 0", NULL);
	sqlite3_set_authorizer(rc->db, how == 2 ? deny_samples : NULL, NULL);
}

/* Records the run with writes failing (how: fail_writes) from tick `from`
 * to tick `to`; returns the ticks lost. */
static int64_t record_outage(const char *path, int ticks, int how, int from, int to)
{
	struct recorder_stats st = {0};
	struct myriad app;
	char *err = NULL;

	app_init(&app);
	setenv("MYRIAD_LOG_RETENTION", "keyframe=60", 1);
	CHECK(recorder_open(&app, path, &err) == 0);
	unsetenv("MYRIAD_LOG_RETENTION");
	CHECK(app_add_source(&app, "sim", SPEC, &err) == 0);
	for (int k = 1; k <= ticks; k++) {
		if (k == from || k == to)
			fail_writes(&app, k == from ? how : 0);
		app_tick(&app);
	}
	CHECK(recorder_get_stats(&app, &st) == 0);
	recorder_close(&app);
	app_free(&app);
	return st.lost;
}

/* Seeks to ticks the file holds land on the live hashes. */
static void check_held_seeks(const char *path, const struct live *lv, const int64_t *at, int n)
{
	struct myriad app;
	char *err = NULL;

	for (int i = 0; i < n; i++) {
		if (at[i] < 0)
			continue;
		app_init(&app);
		CHECK(replay_open(&app, path, &err) == 0);
		CHECK(replay_goto(&app, at[i], &err) == 0);
		CHECK_INT(model_hash(&app.model), lv->hash[at[i]]);
		app_free(&app);
	}
	free(err);
}

/* A keyframe after a gap that does not restore (here: its hash spoilt):
 * replay says so and plays from the first tick, across the gap, instead of
 * starting over at the gap forever (SIGALRM ends the tests if it does). */
static void check_bad_keyframe_at_gap(const char *path, int64_t k)
{
	struct myriad app;
	sqlite3 *db = NULL;
	char sql[96], *err = NULL;

	sqlite3_open(path, &db);
	snprintf(sql, sizeof sql, "UPDATE keyframes SET hash = '0' WHERE tick = %lld", (long long)k);
	CHECK(db_exec(db, sql, NULL) == 0 && sqlite3_changes(db) == 1);
	sqlite3_close(db);
	app_init(&app);
	CHECK(replay_open(&app, path, &err) == 0);
	alarm(60);
	CHECK(replay_goto(&app, k + 10, &err) == 0);
	alarm(0);
	CHECK(replay_position(&app, &k) == 0);
	free(err);
	app_free(&app);
}

/* The log cannot be written for a while in the middle of writing window
 * 1-59; it is down, then back, with a keyframe (its IB prediction made of
 * the readings in the file only) that replay crosses the gap on. A short
 * outage: the chunks of tick 64's slice cannot be inserted, the group is
 * rolled back (ticks 64-73 lost); the rest of the window, that slice too,
 * is written before window 60-119 closes. A long one (64-133 lost): window
 * 1-59 is still unwritten when 60-119 closes and stays in its tail rows;
 * 60-119 is written once the log is back. */
TEST(store_spread_survives_failed_writes)
{
	static const int outage[2][3] = {{2, 65, 66}, {1, 65, 125}};
	struct live lv = {0};
	int ticks = 190;

	run(&lv, NULL, ticks, 0);
	for (int o = 0; o < 2; o++) {
		char *path = unit_tmp_file("full.db");
		int64_t lost = record_outage(path, ticks, outage[o][0], outage[o][1], outage[o][2]);
		sqlite3 *db = NULL;

		CHECK_INT(lost, o ? 70 : 10);
		CHECK_INT(check_groups(path, &lv), ticks + 1 - lost);
		sqlite3_open(path, &db);
		CHECK_INT(db_i64(db, "SELECT count(*) FROM samples WHERE t0 = 1 AND kind = 'gpu'", -1) == NODES, !o);
		CHECK_INT(db_i64(db, "SELECT count(*) FROM tail WHERE tick < 60", -1), o ? 59 : 0);
		CHECK_INT(db_i64(db, "SELECT count(*) FROM samples WHERE t0 = 60 AND kind = 'gpu'", -1), NODES);
		CHECK_INT(db_i64(db, "SELECT count(*) FROM tail WHERE tick >= 60", -1), 0);
		int64_t at[] = {30, db_i64(db, "SELECT max(tick) FROM ticks WHERE tick < 65", -1),
				db_i64(db, "SELECT min(tick) FROM ticks WHERE tick > 65", -1), 150, 190};   /* around the gap */

		sqlite3_close(db);
		check_held_seeks(path, &lv, at, (int)ARRAY_LEN(at));
		if (!o)
			check_bad_keyframe_at_gap(path, at[2]);
		unit_remove_db(path);
	}
	sbuf_free(&lv.text);
}
