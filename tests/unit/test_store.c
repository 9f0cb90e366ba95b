/*
 * test_store.c - the log end to end in one process: keyframes restore the
 * model exactly (and it evolves the same afterwards), a recording replays
 * every event with every field, in order, from chunks and from the tail,
 * seeks land on the live hashes, old files migrate, newer ones open
 * read-only, and retention down-samples and trims without breaking replay.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "myriad.h"
#include "snapshot.h"
#include "store/evjson.h"
#include "store/keyframe.h"
#include "store/recorder.h"
#include "store/store_int.h"

/* ---- keyframes ---- */

static void apply_too(void *ctx, const struct event *ev)
{
	model_apply(ctx, ev);
}

TEST(store_keyframe_restores_the_model_and_its_future)
{
	struct myriad app;
	struct model m;
	struct sbuf st = {0}, dyn = {0}, a = {0}, b = {0};
	char *err = NULL;

	app_init(&app);
	CHECK(app_add_source(&app, "sim", "gpus=256,seed=11,accel=20000", &err) == 0);
	for (int i = 0; i < 400; i++)
		app_tick(&app);
	CHECK(model_open_faults(&app.model) > 0);
	kf_encode(&app.model, NULL, &st, &dyn);
	model_init(&m);
	CHECK(kf_decode(&m, NULL, st.s, st.len, dyn.s, dyn.len, NULL, &err) == 0);
	CHECK_INT(model_hash(&m), model_hash(&app.model));
	snapshot_json(&app.model, SNAP_DETAIL, &a);
	snapshot_json(&m, SNAP_DETAIL, &b);
	CHECK_STR(b.s, a.s);
	bus_subscribe(&app.bus, BUS_ALL, apply_too, &m);   /* both models see what follows */
	for (int i = 0; i < 300; i++)
		app_tick(&app);
	CHECK_INT(model_hash(&m), model_hash(&app.model));
	CHECK(kf_decode(&m, NULL, st.s, st.len, dyn.s, 10, NULL, &err) < 0);   /* truncated */
	CHECK(err != NULL);
	free(err);
	model_free(&m);
	sbuf_free(&st);
	sbuf_free(&dyn);
	sbuf_free(&a);
	sbuf_free(&b);
	app_free(&app);
}

/* A small cluster may hold more faults than it has GPUs and ports: the
 * decoder's column buffer must grow to the fault count (it was sized by the
 * topology, and a keyframe of 256 GPUs with 6,000 faults wrote past it). */
TEST(store_keyframe_of_more_faults_than_gpus)
{
	struct myriad app;
	struct model m;
	struct sbuf st = {0}, dyn = {0};
	char *err = NULL;
	int32_t n0;

	app_init(&app);
	CHECK(app_add_source(&app, "sim", "gpus=256,seed=11,accel=20000", &err) == 0);
	for (int i = 0; i < 200; i++)
		app_tick(&app);
	n0 = app.model.nfaults;
	CHECK(n0 > 0);
	app.model.faults = xrealloc(app.model.faults, sizeof *app.model.faults * 6000);
	for (int32_t i = n0; i < 6000; i++) {
		app.model.faults[i] = app.model.faults[i % n0];
		app.model.faults[i].id = app.model.next_fault_id++;
	}
	app.model.nfaults = app.model.faults_alloc = 6000;
	app.model.faults_cap = 8192;
	kf_encode(&app.model, NULL, &st, &dyn);
	model_init(&m);
	CHECK(kf_decode(&m, NULL, st.s, st.len, dyn.s, dyn.len, NULL, &err) == 0);
	CHECK_INT(m.nfaults, 6000);
	CHECK_INT(model_hash(&m), model_hash(&app.model));
	model_free(&m);
	sbuf_free(&st);
	sbuf_free(&dyn);
	app_free(&app);
}

/* ---- every event, exactly ---- */

struct capture {
	struct sbuf text;
	int64_t n;
};

static void capture(void *ctx, const struct event *ev)
{
	struct capture *c = ctx;

	sbuf_printf(&c->text, "%s %lld %s ", ev_type_name(ev->type), (long long)ev->time, ev->source ? ev->source : "");
	evjson_encode(&c->text, ev);
	sbuf_addc(&c->text, '\n');
	c->n++;
}

static void emit(struct myriad *app, struct event *ev)
{
	bus_emit(&app->bus, ev);
}

static void synthetic_tick(struct myriad *app, int64_t t)
{
	static const char *const srcs[] = {"ssh:gpu0001", "ssh:gpu0002", "sim"};
	struct event ev = {.type = EV_TICK, .time = 1767225600000000LL + t * US_PER_SEC, .source = "clock"};
	int64_t base = ev.time;

	ev.u.tick.tick = t;
	emit(app, &ev);
	for (int i = 0; i < 12; i++) {   /* out of canonical order, repeats, odd times */
		memset(&ev, 0, sizeof ev);
		ev.type = i % 4 == 3 ? EV_IB : EV_SAMPLE;
		ev.time = base + (i == 5 ? 12345 : 0) - (i == 7 ? 999 : 0);
		ev.source = srcs[(t + i) % 3];
		if (ev.type == EV_SAMPLE) {
			ev.u.sample.node = (int32_t)((t + 3 * i) % 4);
			ev.u.sample.gpu = i == 10 ? 99 : (int32_t)(i % 8);   /* 99: out of range */
			for (int m = 0; m < MET_COUNT; m++)
				ev.u.sample.m[m] = (i + m) % 7 == 0 ? MET_UNKNOWN : (int32_t)(t * 31 + i * 7 + m * 1000);
		} else {
			ev.u.ib.node = (int32_t)(i % 4);
			ev.u.ib.port = (int32_t)(t % 8);
			ev.u.ib.state = IBP_ACTIVE;
			ev.u.ib.have = 0x3ff;
			for (int c = 0; c < IBC_COUNT; c++)
				ev.u.ib.c[c] = (uint64_t)t * 1000000007ULL * (uint64_t)(c + 1) + (c == 9 ? UINT64_MAX / 2 : 0);
		}
		emit(app, &ev);
		if (i == 6) {
			struct event x = {.type = EV_MARK, .time = base + 1, .source = "operator"};

			x.u.mark = (struct ev_mark){"ops", t % 2 ? "note \xff\xfe" : "plain"};
			emit(app, &x);
		}
		if (i == 9 && t % 50 == 7) {   /* an operator action, its audit rows */
			struct event x = {.type = EV_ACTION, .time = base + 2, .source = "operator"};

			for (int ph = 0; ph < ACT_PHASE_COUNT; ph++) {
				x.u.action = (struct ev_action){(uint32_t)t, ph, 1, 0, "node drain", "gpu[0001-0002]",
								"-reason {xid 79}", "alice", ph == 1 ? "allowed" : "", "done"};
				emit(app, &x);
			}
		}
	}
	bus_flush(&app->bus);
}

static void synthetic_inventory(struct myriad *app)
{
	struct event ev = {.type = EV_CONN, .time = 1767225599000000LL, .source = "ssh"};
	char name[16];

	ev.u.conn = (struct ev_conn){-1, CONN_CONNECTING, "head01", "before any tick"};
	emit(app, &ev);
	bus_flush(&app->bus);
	memset(&ev, 0, sizeof ev);
	ev.type = EV_TICK;
	ev.time = 1767225600000000LL;
	ev.source = "sim";
	emit(app, &ev);
	ev.type = EV_TOPOLOGY;
	ev.u.topology = (struct ev_topology){1, 4, 8, 4, 32, "synthetic"};
	emit(app, &ev);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "gpu%04d", i + 1);
		ev.type = EV_NODE;
		ev.u.node = (struct ev_node){i, 0, 0, 8, name};
		emit(app, &ev);
	}
	bus_flush(&app->bus);
}

static int replay_all(const char *path, struct capture *c)
{
	struct myriad app;
	char *err = NULL;
	int rc;

	app_init(&app);
	bus_subscribe(&app.bus, BUS_ALL, capture, c);
	rc = replay_open(&app, path, &err);
	if (rc == 0)   /* group by group (a goto would jump to the last keyframe) */
		rc = replay_through(&app, INT64_MAX / 2, &err);
	if (rc < 0)
		fprintf(stderr, "  replay: %s\n", err);
	free(err);
	app_free(&app);
	return rc;
}

/* Seeks to random ticks (backwards and forwards, through keyframes and the
 * layouts of out-of-order ticks) that do not land on the live hash. */
static int seeks_off_the_live_hash(const char *path, const uint64_t *hash, int ticks)
{
	struct myriad app;
	char *err = NULL;
	struct rng r;
	int bad = 0;

	app_init(&app);
	if (replay_open(&app, path, &err) < 0) {
		free(err);
		app_free(&app);
		return -1;
	}
	rng_seed(&r, 5);
	for (int i = 0; i < 80; i++) {
		int64_t t = 1 + rng_below(&r, (uint32_t)ticks);

		bad += replay_seek(&app, 1767225600000000LL + t * US_PER_SEC, &err) < 0 || model_hash(&app.model) != hash[t];
	}
	app_free(&app);
	return bad;
}

/* scale: rec_scale, the recorder taking the 32 GPUs for as many more (1024:
 * samples kept in tail rows, store_int.h). */
static void replays_every_event(int scale)
{
	struct myriad app;
	struct capture live = {0}, back = {0}, part = {0};
	char *path = unit_tmp_file("exact.db"), *err = NULL;
	static uint64_t hash[151];

	rec_scale = scale;
	app_init(&app);
	CHECK(recorder_open(&app, path, &err) == 0);
	bus_subscribe(&app.bus, BUS_ALL, capture, &live);
	synthetic_inventory(&app);
	for (int64_t t = 1; t <= 150; t++) {
		synthetic_tick(&app, t);
		hash[t] = model_hash(&app.model);
		if (t == 100) {   /* while recording: committed ticks, window 60-119 from the tail */
			CHECK(replay_all(path, &part) == 0);
			CHECK(part.n > 0 && !strncmp(live.text.s, part.text.s, part.text.len));
		}
	}
	recorder_close(&app);
	rec_scale = 1;
	CHECK(replay_all(path, &back) == 0);
	CHECK_INT(seeks_off_the_live_hash(path, hash, 150), 0);
	CHECK_INT(back.n, live.n);
	CHECK(back.text.len == live.text.len && !memcmp(back.text.s, live.text.s, live.text.len));
	for (size_t i = 0; i < live.text.len && i < back.text.len; i++)
		if (live.text.s[i] != back.text.s[i]) {
			fprintf(stderr, "  first difference at byte %zu: %.120s\n  vs %.120s\n", i, live.text.s + i,
				back.text.s + i);
			break;
		}
	sqlite3 *db = NULL;   /* the recording took the paths this test means to take */

	sqlite3_open(path, &db);
	CHECK(db_i64(db, "SELECT count(*) FROM ticks WHERE layout IS NOT NULL", 0) > 100);
	CHECK(db_i64(db, "SELECT count(*) FROM events WHERE type = 'sample'", 0) >= 150);   /* gpu 99 */
	CHECK_INT(db_i64(db, "SELECT count(*) FROM ticks WHERE source IS NULL", 0), 1);    /* before a tick */
	CHECK(scale > 1 ? db_i64(db, "SELECT count(*) FROM samples", 0) == 0 : db_i64(db, "SELECT count(*) FROM samples", 0) > 0);
	CHECK(scale == 1 || db_i64(db, "SELECT count(*) FROM tail", 0) == 150);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM actions", 0), 3 * ACT_PHASE_COUNT);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM actions WHERE phase = 'decided' AND detail = 'allowed'"
			     " AND verb = 'node drain' AND who = 'alice'", 0), 3);
	sqlite3_close(db);
	sbuf_free(&live.text);
	sbuf_free(&back.text);
	sbuf_free(&part.text);
	app_free(&app);
	unit_remove_db(path);
}

TEST(store_replays_every_event_exactly)
{
	replays_every_event(1);
}

TEST(store_tail_rows_replay_every_event_exactly)
{
	replays_every_event(1024);
}

/* ---- seeks against the live run ---- */

struct hashes {
	struct myriad *app;
	uint64_t h[1000];
};

static void record_sim(const char *path, const char *spec, int ticks, uint64_t *h)
{
	struct myriad app;
	char *err = NULL;

	app_init(&app);
	CHECK(recorder_open(&app, path, &err) == 0);
	CHECK(app_add_source(&app, "sim", spec, &err) == 0);
	h[0] = model_hash(&app.model);
	for (int i = 1; i <= ticks; i++) {
		app_tick(&app);
		h[i] = model_hash(&app.model);
	}
	recorder_close(&app);
	app_free(&app);
}

TEST(store_seeks_land_on_the_live_hashes)
{
	static uint64_t h[401];
	char *path = unit_tmp_file("seek.db"), *err = NULL;
	struct myriad app;
	struct rng r;
	int64_t g;

	setenv("MYRIAD_LOG_RETENTION", "keyframe=120", 1);
	record_sim(path, "gpus=128,seed=5,accel=20000", 400, h);
	unsetenv("MYRIAD_LOG_RETENTION");
	app_init(&app);
	CHECK(replay_open(&app, path, &err) == 0);
	rng_seed(&r, 3);
	for (int i = 0; i < 25; i++) {
		int64_t t = i < 5 ? (int64_t[]){400, 0, 120, 119, 121}[i] : (int64_t)rng_below(&r, 401);

		CHECK(replay_seek(&app, 1767225600000000LL + t * US_PER_SEC, &err) == 0);
		CHECK_INT(model_hash(&app.model), h[t]);
	}
	CHECK(replay_seek(&app, 1767225600000000LL + 200 * US_PER_SEC, &err) == 0);
	CHECK(replay_step(&app, 1, &err) == 0);
	CHECK_INT(model_hash(&app.model), h[201]);
	CHECK(replay_step(&app, -2, &err) == 0);
	CHECK_INT(model_hash(&app.model), h[199]);
	CHECK(replay_seek_fault(&app, 1, &err) == 0);
	CHECK(replay_position(&app, &g) == 0 && g > 199);
	CHECK_INT(model_hash(&app.model), h[g]);
	struct replay_info info;

	CHECK(replay_get_info(&app, &info) == 0);
	CHECK_INT(info.start, 1767225600000000LL);
	CHECK_INT(info.end, 1767225600000000LL + 400 * US_PER_SEC);
	CHECK(!info.downsampled);
	int64_t t;

	CHECK(replay_parse_when(&app, "+30", &t, &err) == 0 && t == info.start + 30 * US_PER_SEC);
	CHECK(replay_parse_when(&app, "-30", &t, &err) == 0 && t == info.end - 30 * US_PER_SEC);
	CHECK(replay_parse_when(&app, "2026-01-01T00:01:00Z", &t, &err) == 0 && t == info.start + 60 * US_PER_SEC);
	CHECK(replay_parse_when(&app, "+401", &t, &err) < 0);
	free(err);
	err = NULL;
	CHECK(replay_parse_when(&app, "soon", &t, &err) < 0);
	free(err);
	app_free(&app);
	unit_remove_db(path);
}

static void count_notices(void *ctx, const struct event *ev)
{
	if (ev->type == EV_NOTICE)
		(*(int *)ctx)++;
}

/* A file of model hash version 1 (FNV: before version 2; here a
 * recording whose keyframes' hashes are rewritten as version 1) has its
 * keyframes checked as version 1: seeks restore them, none is refused
 * ("replaying from the start", a notice). */
TEST(store_keyframes_are_checked_with_the_hash_their_file_names)
{
	static uint64_t h[131];
	int64_t kf[] = {1, 2, 60, 120};
	uint64_t v1[ARRAY_LEN(kf)];
	char *path = unit_tmp_file("hashv1.db"), *err = NULL, *warn = NULL;
	struct reader rd;
	struct model m;
	struct myriad app;
	sqlite3 *db = NULL;
	int notices = 0;

	setenv("MYRIAD_LOG_RETENTION", "keyframe=60", 1);
	rec_scale = 1024;   /* as large as a recording that keeps tail rows, keyframes near its start */
	record_sim(path, "gpus=128,seed=5", 130, h);
	rec_scale = 1;
	unsetenv("MYRIAD_LOG_RETENTION");
	model_init(&m);
	CHECK(reader_open(&rd, path, &warn, &err) == 0);
	CHECK_INT(rd.hash_version, 2);
	for (size_t i = 0; i < ARRAY_LEN(kf); i++) {
		int64_t k = -1;

		CHECK(reader_keyframe(&rd, kf[i], &m, &k, &err) == 0 && k == kf[i]);
		v1[i] = model_hash_v(&m, 1);
	}
	reader_close(&rd);
	model_free(&m);
	sqlite3_open(path, &db);
	for (size_t i = 0; i < ARRAY_LEN(kf); i++) {
		char sql[160];

		snprintf(sql, sizeof sql, "UPDATE keyframes SET hash = '%016llx' WHERE tick = %lld",
			 (unsigned long long)v1[i], (long long)kf[i]);
		CHECK(db_exec(db, sql, &err) == 0);
	}
	CHECK_INT(db_i64(db, "SELECT count(*) FROM keyframes", 0), 4);
	CHECK(db_meta_set_i64(db, "hash_version", 1) == 0);
	sqlite3_close(db);
	app_init(&app);
	bus_subscribe(&app.bus, BUS_ALL, count_notices, &notices);
	CHECK(replay_open(&app, path, &err) == 0);
	for (int i = 0; i < 5; i++) {
		int64_t t = (int64_t[]){125, 61, 3, 70, 2}[i];

		CHECK(replay_seek(&app, 1767225600000000LL + t * US_PER_SEC, &err) == 0);
		CHECK_INT(model_hash(&app.model), h[t]);
	}
	CHECK_INT(notices, 0);
	app_free(&app);
	unit_remove_db(path);
}

/* ---- schema versions ---- */

TEST(store_old_files_migrate_newer_open_read_only)
{
	char *path = unit_tmp_file("v1.db"), *err = NULL, *warn = NULL;
	sqlite3 *db = NULL;
	struct reader r;

	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(db_create_schema(db, 1, &err) == 0);
	db_exec(db, "INSERT INTO ticks(tick, time, num, source, events) VALUES(0, 1, 0, 'clock', 1)", NULL);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM sqlite_master WHERE name = 'faults'", -1), 0);
	sqlite3_close(db);
	CHECK(reader_open(&r, path, &warn, &err) == 0);
	CHECK(warn == NULL);
	CHECK_INT(db_meta_i64(r.db, "schema_version", 0), SCHEMA_VERSION);
	CHECK_INT(db_i64(r.db, "SELECT count(*) FROM faults", -1), 0);
	CHECK_INT(r.last, 0);
	reader_close(&r);
	sqlite3_open(path, &db);
	db_meta_set_i64(db, "schema_version", SCHEMA_VERSION + 7);
	sqlite3_close(db);
	CHECK(reader_open(&r, path, &warn, &err) == 0);
	CHECK(warn && strstr(warn, "newer") && strstr(warn, "read-only"));
	CHECK(sqlite3_db_readonly(r.db, "main") == 1);
	free(warn);
	reader_close(&r);
	struct myriad app;

	app_init(&app);
	CHECK(recorder_open(&app, path, &err) < 0);   /* never overwrites */
	CHECK(err && strstr(err, "exists"));
	free(err);
	err = NULL;
	CHECK(replay_open(&app, "/nonexistent/x.db", &err) < 0);
	free(err);
	app_free(&app);
	unit_remove_db(path);
}

/* ---- retention ---- */

TEST(store_retention_downsamples_and_trims)
{
	static uint64_t h[601];
	char *path = unit_tmp_file("ret.db"), *err = NULL;
	struct myriad app;
	struct replay_info info;

	setenv("MYRIAD_LOG_RETENTION", "full=240,step=10,age=0,size=0,keyframe=120", 1);
	record_sim(path, "gpus=64,seed=2,accel=2000", 600, h);
	unsetenv("MYRIAD_LOG_RETENTION");
	app_init(&app);
	CHECK(replay_open(&app, path, &err) == 0);
	CHECK(replay_seek(&app, 1767225600000000LL + 100 * US_PER_SEC, &err) == 0);
	CHECK(replay_get_info(&app, &info) == 0 && info.downsampled);
	CHECK(replay_seek(&app, 1767225600000000LL + 590 * US_PER_SEC, &err) == 0);
	CHECK(replay_get_info(&app, &info) == 0 && !info.downsampled);
	CHECK_INT(model_hash(&app.model), h[590]);
	CHECK(replay_seek(&app, 1767225600000000LL + 360 * US_PER_SEC, &err) == 0);   /* a keyframe */
	CHECK_INT(model_hash(&app.model), h[360]);
	app_free(&app);
	sqlite3 *db = NULL;

	sqlite3_open(path, &db);
	CHECK(db_i64(db, "SELECT count(*) FROM samples WHERE step = 10", 0) > 0);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM samples WHERE kind = 'gpu' AND step = 1 AND t1 <= 300", -1), 0);
	CHECK_INT(db_i64(db, "SELECT count(*) FROM ticks", 0), 601);   /* every tick's events kept */
	sqlite3_close(db);
	unit_remove_db(path);

	path = unit_tmp_file("age.db");
	setenv("MYRIAD_LOG_RETENTION", "age=300,keyframe=60", 1);
	record_sim(path, "gpus=64,seed=2", 600, h);
	unsetenv("MYRIAD_LOG_RETENTION");
	app_init(&app);
	CHECK(replay_open(&app, path, &err) == 0);
	CHECK(replay_get_info(&app, &info) == 0);
	CHECK(info.start >= 1767225600000000LL + 240 * US_PER_SEC);
	CHECK(replay_seek(&app, 1767225600000000LL + 500 * US_PER_SEC, &err) == 0);
	CHECK_INT(model_hash(&app.model), h[500]);
	app_free(&app);
	unit_remove_db(path);
}
