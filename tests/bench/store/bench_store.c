/*
 * bench_store.c - `make bench`, the log's numbers (issue 4), each beside a
 * reference measured in the same run:
 *   bytes per sample of an hour of a 1,024-GPU simulated cluster at 1 Hz,
 *     projected to 10,240 GPUs x 24 h, against a naive one-row-per-sample
 *     SQLite table and against Prometheus (promtool tsdb create-blocks-from
 *     openmetrics on the OpenMetrics export of the same recording);
 *   the column codec against simpler ones, on the same samples;
 *   recorder CPU per tick at 10,240 GPUs: the whole tick with and without
 *     it, and the recorder's own time (mean, slowest tick, over 3 runs);
 *   seek time (keyframe + events, model rebuilt) in the hour, in a projected
 *     day (the hour repeated 24 times in one file) and at 10,240 GPUs.
 * and at 102,400 GPUs (bench_big.c): the recorder's CPU per tick, bytes per
 *   sample and seeks, beside today's figures.
 * BENCH_STORE_TICKS shortens the hour; BENCH_PROM_NODES sets the nodeset
 * given to Prometheus (default gpu[0001-0016]; "all" for every node);
 * BENCH_STORE_BIG=0 leaves out 102,400 GPUs.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "myriad.h"
#include "store/codec.h"
#include "store/keyframe.h"
#include "store/store_int.h"

static char dir[128];

void bench_big(const char *dir);   /* bench_big.c */
void bench_replay_open(struct myriad *app, const char *db, int64_t *first, int64_t *last);

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static double run_ms(const char *cmd, int *rc)
{
	int64_t t0 = mono_us();

	*rc = system(cmd);
	return (double)(mono_us() - t0) / 1000.0;
}

/* ---- naive reference: one row per sample ---- */

struct naive {
	sqlite3 *db;
	sqlite3_stmt *ins;
	int64_t rows, until_tick;
	struct myriad *app;
};

static void naive_row(struct naive *n, int64_t time, int32_t node, int32_t idx, int metric, double v)
{
	sqlite3_bind_int64(n->ins, 1, time);
	sqlite3_bind_int(n->ins, 2, node);
	sqlite3_bind_int(n->ins, 3, idx);
	sqlite3_bind_int(n->ins, 4, metric);
	if (v == (double)(int64_t)v)
		sqlite3_bind_int64(n->ins, 5, (int64_t)v);
	else
		sqlite3_bind_double(n->ins, 5, v);
	sqlite3_step(n->ins);
	sqlite3_reset(n->ins);
	n->rows++;
}

static void naive_sub(void *ctx, const struct event *ev)
{
	struct naive *n = ctx;

	if (n->app->tick > n->until_tick)
		return;
	if (ev->type == EV_TICK && ev->u.tick.tick > 0) {
		sqlite3_exec(n->db, "COMMIT; BEGIN", NULL, NULL, NULL);
	} else if (ev->type == EV_SAMPLE) {
		for (int m = 0; m < MET_COUNT; m++)
			if (ev->u.sample.m[m] != MET_UNKNOWN)
				naive_row(n, ev->time, ev->u.sample.node, ev->u.sample.gpu, m, ev->u.sample.m[m]);
	} else if (ev->type == EV_IB) {
		naive_row(n, ev->time, ev->u.ib.node, ev->u.ib.port, 100, ev->u.ib.state);
		for (int c = 0; c < IBC_COUNT; c++)
			if (ev->u.ib.have & (1u << c))
				naive_row(n, ev->time, ev->u.ib.node, ev->u.ib.port, 101 + c, (double)ev->u.ib.c[c]);
	} else if (ev->type == EV_POWER) {
		const struct ev_power *p = &ev->u.power;
		double v[7] = {p->facility_kw, p->it_kw, p->cooling_kw, p->supply_c, p->return_c, p->flow_lpm, p->outside_c};

		for (int i = 0; i < 7; i++)
			naive_row(n, ev->time, -1, -1, 200 + i, v[i]);
	}
}

/* ---- the hour ---- */

struct hour {
	char *db, *naive_db;
	int64_t ticks, samples, naive_rows;
	double rec_wall_s, naive_bytes;
};

static void record_hour(struct hour *h)
{
	struct myriad app;
	struct naive n = {0};
	char *err = NULL;

	h->db = path_in("hour.db");
	h->naive_db = path_in("naive.db");
	app_init(&app);
	n.app = &app;
	n.until_tick = MIN(h->ticks, 600);
	sqlite3_open(h->naive_db, &n.db);
	sqlite3_exec(n.db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
		     "CREATE TABLE sample(time INTEGER, node INTEGER, idx INTEGER, metric INTEGER, value); BEGIN",
		     NULL, NULL, NULL);
	sqlite3_prepare_v2(n.db, "INSERT INTO sample VALUES(?,?,?,?,?)", -1, &n.ins, NULL);
	if (recorder_open(&app, h->db, &err) < 0 || app_add_source(&app, "sim", "gpus=1024,seed=1", &err) < 0) {
		fprintf(stderr, "bench_store: %s\n", err);
		exit(1);
	}
	bus_subscribe(&app.bus, BUS_ALL, naive_sub, &n);
	int64_t t0 = mono_us();

	for (int64_t i = 0; i < h->ticks; i++)
		app_tick(&app);
	recorder_close(&app);
	h->rec_wall_s = (double)(mono_us() - t0) / 1e6;
	app_free(&app);
	sqlite3_exec(n.db, "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(n.ins);
	sqlite3_close(n.db);
	h->naive_rows = n.rows;
	h->naive_bytes = (double)file_size(h->naive_db);
}

/* Exports OpenMetrics (of `nodes`, or all) and counts the samples in it. */
static int64_t export_om(const char *db, const char *nodes, const char *out)
{
	char cmd[1024];
	int rc;
	int64_t n = -1;

	snprintf(cmd, sizeof cmd, "%s log export %s --format openmetrics %s%s%s -o %s", getenv("MYRIAD_BIN"), db,
		 nodes ? "--nodes '" : "", nodes ? nodes : "", nodes ? "'" : "", out);
	run_ms(cmd, &rc);
	if (rc != 0)
		return -1;
	snprintf(cmd, sizeof cmd, "grep -vc '^#' %s", out);
	FILE *p = popen(cmd, "r");

	if (p && fscanf(p, "%lld", (long long *)&n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static int64_t du_bytes(const char *path)
{
	char cmd[512];
	long long n = -1;

	snprintf(cmd, sizeof cmd, "du -sb %s 2>/dev/null", path);
	FILE *p = popen(cmd, "r");

	if (p && fscanf(p, "%lld", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void bench_bytes(struct hour *h)
{
	char *om = path_in("all.om"), *om_sub = path_in("sub.om"), *tsdb = path_in("tsdb"), cmd[1024];
	const char *pn = getenv("BENCH_PROM_NODES") ? getenv("BENCH_PROM_NODES") : "gpu[0001-0016]";
	int all = !strcmp(pn, "all"), rc;
	double ours = (double)file_size(h->db);

	h->samples = export_om(h->db, NULL, om);
	double per_gpu_s = (double)h->samples / (1024.0 * (double)h->ticks);
	double day = per_gpu_s * 10240.0 * 86400.0;

	printf("recording: %lld ticks of a 1,024-GPU cluster, %lld samples (GPU metrics, IB counters, facility), "
	       "recorded in %.1f s\n", (long long)h->ticks, (long long)h->samples, h->rec_wall_s);
	printf("  ours:  %.0f bytes on disk = %.3f bytes/sample -> %.1f GB for 10,240 GPUs x 24 h\n", ours,
	       ours / (double)h->samples, ours / (double)h->samples * day / 1e9);
	printf("  naive one-row-per-sample SQLite table (first %lld ticks, %lld rows, no index): %.2f bytes/sample"
	       " -> %.1f GB/day; ratio ours/naive = %.3f\n",
	       (long long)MIN(h->ticks, 600), (long long)h->naive_rows, h->naive_bytes / (double)h->naive_rows,
	       h->naive_bytes / (double)h->naive_rows * day / 1e9,
	       (ours / (double)h->samples) / (h->naive_bytes / (double)h->naive_rows));
	int64_t psamples = all ? h->samples : export_om(h->db, pn, om_sub);

	snprintf(cmd, sizeof cmd, "promtool tsdb create-blocks-from openmetrics %s %s >/dev/null 2>&1", all ? om : om_sub,
		 tsdb);
	double ms = run_ms(cmd, &rc);
	int64_t pbytes = du_bytes(tsdb);

	if (rc != 0 || pbytes <= 0 || psamples <= 0) {
		printf("  Prometheus: promtool not available or failed (apt-get install prometheus)\n");
	} else {
		double pb = (double)pbytes / (double)psamples;

		printf("  Prometheus 2.x TSDB (promtool create-blocks-from openmetrics, %s, %lld samples, %.1f s): "
		       "%.3f bytes/sample -> %.1f GB/day\n",
		       all ? "every node" : pn, (long long)psamples, ms / 1000, pb, pb * day / 1e9);
		printf("  ratio ours/Prometheus = %.3f (target <= 0.5): %s; lossless: integers as recorded, power in "
		       "centiwatts (nvidia-smi's 2 decimals)\n",
		       ours / (double)h->samples / pb, ours / (double)h->samples / pb <= 0.5 ? "met" : "NOT met");
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", om, om_sub, tsdb);
	run_ms(cmd, &rc);
	free(om);
	free(om_sub);
	free(tsdb);
}

/* ---- the codec against simpler ones, on the hour's GPU columns ---- */

static void bench_codec(struct hour *h)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct window w;
	struct arena a = {0};
	size_t bytes[4] = {0};
	int64_t values = 0, col[256];
	static const char *const names[4] = {"delta+zigzag varint", "  the same, runs of zero deltas counted",
					     "  bit-packed blocks, delta only", "  bit-packed blocks, best of delta/delta-of-delta/FOR (chosen)"};

	sqlite3_open(h->db, &db);
	sqlite3_prepare_v2(db, "SELECT t0, data FROM samples WHERE kind = 'gpu'", -1, &st, NULL);
	window_init(&w, PK_GPU, 1, 32);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char **srcs;
		int ns;

		if (chunk_decode(w.s, 32, PK_GPU, sqlite3_column_int64(st, 0), sqlite3_column_blob(st, 1),
				 (size_t)sqlite3_column_bytes(st, 1), &a, &srcs, &ns) < 0)
			continue;
		for (int i = 0; i < 32; i++) {
			struct series *s = &w.s[i];

			for (int m = 0; m < NV_GPU && s->n <= 256; m++) {
				struct sbuf b[4] = {{0}};

				for (int32_t k = 0; k < s->n; k++)
					col[k] = series_value(s, NV_GPU, k, m);
				col_encode_varint(&b[0], col, (size_t)s->n);
				col_encode_varint_rle(&b[1], col, (size_t)s->n);
				col_encode_opts(&b[2], col, (size_t)s->n, CODEC_BLOCK, COL_DELTA);
				col_encode(&b[3], col, (size_t)s->n);
				for (int c = 0; c < 4; c++) {
					bytes[c] += b[c].len;
					sbuf_free(&b[c]);
				}
				values += s->n;
			}
		}
		arena_reset(&a);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	window_free(&w);
	arena_free(&a);
	printf("column codec on the hour's %lld GPU metric values (values only, per column of a 60-tick chunk):\n",
	       (long long)values);
	for (int c = 0; c < 4; c++)
		printf("  %-66s %.3f bytes/value\n", names[c], (double)bytes[c] / (double)MAX(values, 1));
}

/* ---- recorder CPU at 10,240 GPUs ---- */

/* The recorder's own time, per tick: its bus subscriber wrapped. A tick's
 * EV_TICK is where it commits, writes chunks and keyframes: CPU time (a
 * system call, once a tick); every other event only packs (a microsecond):
 * the monotonic clock, which costs ~25 ns a call. */
struct rec_clock {
	bus_fn fn;
	void *ctx;
	int64_t us;
};

static void rec_timed(void *ctx, const struct event *ev)
{
	struct rec_clock *c = ctx;
	int tick = ev->type == EV_TICK;
	int64_t t0 = tick ? cpu_us() : mono_us();

	c->fn(c->ctx, ev);
	c->us += (tick ? cpu_us() : mono_us()) - t0;
}

static void clock_recorder(struct myriad *app, struct rec_clock *c)
{
	struct bus_sub *s = &app->bus.subs[app->bus.nsubs - 1];   /* recorder_open subscribes last */

	c->fn = s->fn;
	c->ctx = s->ctx;
	c->us = 0;
	s->fn = rec_timed;
	s->ctx = c;
}

#define CPU_TICKS 240
#define REC_RUNS 3                /* the recorder alone: each tick's least of these runs */

struct cpu_run {
	double mean, worst;           /* whole ticks, ms CPU */
	double rec[CPU_TICKS];        /* the recorder alone, each tick (with one) */
	double rec_close;             /* recorder_close: the final commit */
};

static void ticks_cpu_ms(const char *record, struct cpu_run *o)
{
	struct myriad app;
	struct rec_clock rc = {0};
	char *err = NULL;
	double total = 0;

	memset(o, 0, sizeof *o);
	app_init(&app);
	if (record && recorder_open(&app, record, &err) < 0) {
		fprintf(stderr, "bench_store: %s\n", err);
		exit(1);
	}
	if (record)
		clock_recorder(&app, &rc);
	app_add_source(&app, "sim", "gpus=10240,seed=1", &err);
	for (int i = 0; i < CPU_TICKS; i++) {
		int64_t t0 = cpu_us(), r0 = rc.us;

		app_tick(&app);
		double ms = (double)(cpu_us() - t0) / 1000.0;

		total += ms;
		o->worst = MAX(o->worst, ms);
		o->rec[i] = (double)(rc.us - r0) / 1000.0;
	}
	int64_t c0 = cpu_us();

	recorder_close(&app);
	o->rec_close = (double)(cpu_us() - c0) / 1000.0;
	app_free(&app);
	o->mean = total / CPU_TICKS;
}

/* The recorder's own time per tick, the least of REC_RUNS runs (another
 * process that takes the CPU in the middle of an event counts in one run,
 * seldom in all): mean, slowest and which; the final commit likewise. */
static void recorder_alone(const char *big, const struct cpu_run *first)
{
	static struct cpu_run more[REC_RUNS - 1];
	double least[CPU_TICKS], mean = 0, worst = 0, close = first->rec_close;
	int at = 0;

	for (int r = 0; r < REC_RUNS - 1; r++) {
		char *path = xasprintf("%s.%d", big, r + 1);

		ticks_cpu_ms(path, &more[r]);
		close = MIN(close, more[r].rec_close);
		free(path);
	}
	for (int i = 0; i < CPU_TICKS; i++) {
		least[i] = first->rec[i];
		for (int r = 0; r < REC_RUNS - 1; r++)
			least[i] = MIN(least[i], more[r].rec[i]);
		mean += least[i] / CPU_TICKS;
		if (least[i] > worst) {
			worst = least[i];
			at = i + 1;
		}
	}
	printf("  the recorder alone (inside its bus subscriber, each tick's least of %d runs): mean %.2f ms, slowest "
	       "tick %.1f ms at tick %d (target <= 25 ms): %s; the final commit at close %.1f ms\n",
	       REC_RUNS, mean, worst, at, worst <= 25 ? "met" : "NOT met", close);
}

static void bench_cpu(const char *big)
{
	static struct cpu_run base, rec;

	ticks_cpu_ms(NULL, &base);
	ticks_cpu_ms(big, &rec);
	printf("recorder CPU per tick at 10,240 GPUs (%d ticks, with minus without the recorder): %.2f ms "
	       "(target <= 10 ms): %s\n", CPU_TICKS, rec.mean - base.mean, rec.mean - base.mean <= 10 ? "met" : "NOT met");
	printf("  a whole tick without / with the recorder: %.2f / %.2f ms CPU; the slowest tick without / with it "
	       "%.1f / %.1f ms (the simulator's sinfo/squeue every 5 ticks)\n",
	       base.mean, rec.mean, base.worst, rec.worst);
	recorder_alone(big, &rec);
}

/* ---- seeks ---- */

/* app replaying db (exits if it cannot), and the first and last ticks it
 * holds (bench_big.c too). */
void bench_replay_open(struct myriad *app, const char *db, int64_t *first, int64_t *last)
{
	sqlite3 *q = NULL;
	char *err = NULL;

	sqlite3_open(db, &q);
	*first = db_i64(q, "SELECT min(tick) FROM ticks", 0);
	*last = db_i64(q, "SELECT max(tick) FROM ticks", 0);
	sqlite3_close(q);
	app_init(app);
	if (replay_open(app, db, &err) < 0) {
		fprintf(stderr, "bench_store: %s\n", err);
		exit(1);
	}
}

static void bench_seek(const char *db, const char *what, int n)
{
	struct myriad app;
	char *err = NULL;
	struct rng r;
	double sum = 0, worst = 0, cpu = 0, cworst = 0;
	int64_t first, last;

	bench_replay_open(&app, db, &first, &last);
	rng_seed(&r, 11);
	for (int i = 0; i < n; i++) {
		int64_t g = first + (int64_t)rng_below(&r, (uint32_t)(last - first + 1));
		int64_t t0 = mono_us(), c0 = cpu_us();

		if (replay_goto(&app, g, &err) < 0) {
			fprintf(stderr, "bench_store: %s\n", err);
			exit(1);
		}
		double ms = (double)(mono_us() - t0) / 1000.0, cms = (double)(cpu_us() - c0) / 1000.0;

		sum += ms;
		worst = MAX(worst, ms);
		cpu += cms;
		cworst = MAX(cworst, cms);
	}
	printf("seek to a random moment of %s (%d seeks, keyframe + events, model rebuilt): mean %.1f ms, worst %.1f ms"
	       " wall; CPU mean %.1f, worst %.1f ms (target <= 100 ms): %s\n",
	       what, n, sum / n, worst, cpu / n, cworst, worst <= 100 ? "met" : cworst <= 100 ? "met in CPU time" : "NOT met");
	app_free(&app);
}

/* A day-long file: the hour's rows repeated 24 times under new tick
 * numbers (times unchanged, so every keyframe and its prediction still
 * hold: the keyframes of the copies are those whose prediction, the IB
 * readings of the KF_PRED_TICKS ticks before them, lies in the same copy);
 * seeks in it go by tick. */
static char *make_day(const char *hour, int64_t ticks)
{
	char *day = path_in("day.db"), cmd[512], sql[2048];
	int rc;
	sqlite3 *db = NULL;

	snprintf(cmd, sizeof cmd, "cp %s %s", hour, day);
	run_ms(cmd, &rc);
	sqlite3_open(day, &db);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (int k = 1; k < 24; k++) {
		long long dt = (long long)k * (ticks + 1);

		snprintf(sql, sizeof sql,
			 "INSERT INTO ticks SELECT tick + %1$lld, time, num + %1$lld, source, events, layout FROM ticks WHERE tick <= %2$lld;"
			 "INSERT INTO events SELECT id + %1$lld * 4294967296, tick + %1$lld, seq, time, type, node, source, data FROM events WHERE tick <= %2$lld;"
			 "INSERT INTO samples SELECT kind, t0 + %1$lld, node, t1 + %1$lld, rows, step, data FROM samples WHERE t0 <= %2$lld;"
			 "INSERT INTO keyframes SELECT tick + %1$lld, time, hash, static, data FROM keyframes WHERE tick <= %2$lld"
			 " AND tick >= %3$d;",
			 dt, (long long)ticks, KF_PRED_TICKS);
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	return day;
}

int main(void)
{
	struct hour h = {0};
	const char *t = getenv("BENCH_STORE_TICKS");
	char cmd[256];
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!getenv("MYRIAD_BIN"))
		setenv("MYRIAD_BIN", "build/myriad", 1);
	snprintf(dir, sizeof dir, "/tmp/myriad-bench-store-%d", (int)getpid());
	mkdir(dir, 0700);
	h.ticks = t ? atoll(t) : 3600;
	printf("myriad bench_store: the log (SQLite recorder, replay)\n");
	record_hour(&h);
	bench_bytes(&h);
	bench_codec(&h);
	char *big = path_in("big.db");

	bench_cpu(big);
	bench_seek(h.db, "the hour (1,024 GPUs)", 50);
	char *day = make_day(h.db, h.ticks);

	printf("projected day: %.1f MB at 1,024 GPUs\n", (double)file_size(day) / 1e6);
	bench_seek(day, "a projected day (the hour x 24, 1,024 GPUs)", 50);
	bench_seek(big, "240 ticks of 10,240 GPUs", 30);
	if (!getenv("BENCH_STORE_BIG") || strcmp(getenv("BENCH_STORE_BIG"), "0"))
		bench_big(dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	run_ms(cmd, &rc);
	free(big);
	free(day);
	free(h.db);
	free(h.naive_db);
	return 0;
}
