/*
 * replay.c - a recording as app's only source: its events go through app's
 * bus into a fresh model, so panels and Tcl see a replay as they see a live
 * cluster. Seek = the nearest keyframe at or before the target, then the
 * events after it (or, going forward a little, just the events in between).
 * Play runs from a timer on app->loop (or replay_pump) at a chosen speed.
 */
#include <stdio.h>
#include <string.h>
#include "store_int.h"

struct replay {
	struct myriad *app;
	struct reader rd;
	int have_pos;
	int64_t pos;                  /* the last group applied */
	int64_t pos_time;
	double speed;
	int64_t timer;
	int64_t wall0, t0;            /* play origin: monotonic clock and recording time */
	int downsampled;
	int warned_kf;
	uint64_t jumps;               /* the model replaced, not continued (replay_jumps) */
	uint64_t rec_from, rec_to;    /* the bus's numbers of the events read from the file */
};

static int replay_start(struct source *src, const char *args, char **err);
static int replay_tick(struct source *src, int64_t now);
static void replay_stop(struct source *src);

/* The replay owns time: a tick is the recording's next group (stepped), or
 * what is due at the playing speed (running, see clock.h). */
static const struct source_ops replay_source_ops = {
	.name = "replay",
	.abi = MYRIAD_ABI,
	.flags = SOURCE_OWNS_TIME,
	.start = replay_start,
	.tick = replay_tick,
	.stop = replay_stop,
};

static struct replay *replay_of(const struct myriad *app)
{
	for (int i = 0; app && i < app->nsources; i++)
		if (app->sources[i]->ops == &replay_source_ops)
			return app->sources[i]->priv;
	return NULL;
}

static int not_replaying(char **err)
{
	if (err)
		*err = xstrdup("not replaying a recording");
	return -1;
}

static void emit(void *ctx, const struct event *ev)
{
	bus_emit(ctx, ev);
}

static int apply_group(struct replay *rp, const struct tick_row *tr, int64_t from_seq, char **err)
{
	struct myriad *app = rp->app;
	uint64_t from = app->bus.emitted;

	if (reader_group(&rp->rd, tr, from_seq, emit, &app->bus, err) < 0)
		return -1;
	if (from != rp->rec_to)   /* groups emitted back to back (within a running flush) join */
		rp->rec_from = from;
	rp->rec_to = app->bus.emitted;
	bus_flush(&app->bus);
	rp->pos = tr->tick;
	rp->pos_time = tr->time;
	rp->have_pos = 1;
	rp->downsampled |= rp->rd.downsampled_hit;
	app->tick = tr->tick;
	app->now = tr->time;
	return 0;
}

static void fresh_model(struct replay *rp)
{
	model_free(&rp->app->model);
	model_init(&rp->app->model);
	rp->have_pos = 0;
	rp->downsampled = 0;
	rp->rd.downsampled_hit = 0;
}

/* The model at the end of the newest keyframe's group at or before g (or a
 * fresh model when there is none). */
static int restore(struct replay *rp, int64_t g, char **err)
{
	int64_t k = -1, next = rp->have_pos ? rp->pos + 1 : -1;
	char *why = NULL;
	int rc = reader_keyframe(&rp->rd, g, &rp->app->model, &k, &why);
	struct tick_row tr;

	if (rc != 0 || k != next)   /* not the group that comes next: a jump */
		rp->jumps++;
	if (rc < 0) {
		if (!rp->warned_kf++) {
			char *msg = xasprintf("replay: %s; replaying from the start instead", why);

			app_notice(rp->app, 1, "replay", msg);
			free(msg);
		}
		rp->rd.kf_usable = 0;
	}
	free(why);
	if (rc != 0) {
		fresh_model(rp);
		return 0;
	}
	rp->downsampled = 0;
	if (reader_tick(&rp->rd, k, &tr) != 0) {   /* keyframe without its tick: start after it */
		rp->have_pos = 1;
		rp->pos = k;
		rp->pos_time = rp->app->model.time;
		return 0;
	}
	return apply_group(rp, &tr, 1, err);
}

/* The group after the current position, 1 if none. */
static int next_group(struct replay *rp, struct tick_row *tr)
{
	if (!rp->have_pos)
		return reader_find(&rp->rd, rp->rd.first, 1, tr);
	if (reader_tick(&rp->rd, rp->pos + 1, tr) == 0)
		return 0;
	return reader_find(&rp->rd, rp->pos + 1, 1, tr);
}

static int forward_to(struct replay *rp, int64_t g, char **err)
{
	struct tick_row tr;

	while (next_group(rp, &tr) == 0 && tr.tick <= g) {
		int64_t k = -1;

		/* a gap: resync on its keyframe (when keyframes are usable: else
		 * restore starts over from the first group, and so on forever) */
		if (rp->have_pos && tr.tick != rp->pos + 1 && rp->rd.kf_usable) {
			char sql[96];

			snprintf(sql, sizeof sql, "SELECT tick FROM keyframes WHERE tick = %lld", (long long)tr.tick);
			k = db_i64(rp->rd.db, sql, -1);
		}
		if (k == tr.tick) {
			if (restore(rp, k, err) < 0)
				return -1;
			continue;
		}
		if (apply_group(rp, &tr, 0, err) < 0)
			return -1;
	}
	return 0;
}

int replay_goto(struct myriad *app, int64_t g, char **err)
{
	struct replay *rp = replay_of(app);
	char sql[96];
	int64_t kf;

	if (!rp)
		return not_replaying(err);
	snprintf(sql, sizeof sql, "SELECT max(tick) FROM keyframes WHERE tick <= %lld", (long long)g);
	kf = rp->rd.kf_usable ? db_i64(rp->rd.db, sql, -1) : -1;
	if (!rp->have_pos || g < rp->pos || (kf > rp->pos && kf <= g)) {
		if (restore(rp, g, err) < 0)
			return -1;
	}
	return forward_to(rp, g, err);
}

/* Applies groups g1..g2 (for `log cut`), from the current position. */
int replay_through(struct myriad *app, int64_t g2, char **err)
{
	struct replay *rp = replay_of(app);

	return rp ? forward_to(rp, g2, err) : not_replaying(err);
}

/* A damaged row the reader skipped, said where the operator looks. */
static void said_bad(void *ctx, const char *msg)
{
	struct replay *rp = ctx;

	app_notice(rp->app, 1, "replay", msg);
}

static int replay_start(struct source *src, const char *args, char **err)
{
	struct myriad *app = src->app;
	struct replay *rp = xcalloc(1, sizeof *rp);
	char *warn = NULL;

	rp->app = app;
	if (reader_open(&rp->rd, args, &warn, err) < 0) {
		free(rp);
		return -1;
	}
	rp->rd.on_bad = said_bad;
	rp->rd.bad_ctx = rp;
	if (warn)
		app_notice(app, 1, "replay", warn);
	free(warn);
	if (rp->rd.last < rp->rd.first) {
		*err = xasprintf("%s: the recording holds no tick", args);
		reader_close(&rp->rd);
		free(rp);
		return -1;
	}
	src->priv = rp;
	app->read_only = 1;
	app->virtual_time = 1;
	app->start = rp->rd.start_time;
	fresh_model(rp);
	return 0;
}

static void replay_stop(struct source *src)
{
	struct replay *rp = src->priv;

	if (!rp)
		return;
	if (rp->timer)
		loop_timer_cancel(rp->app->loop, rp->timer);
	reader_close(&rp->rd);
	free(rp);
	src->priv = NULL;
}

/* ---- store.h ---- */

int replay_open(struct myriad *app, const char *path, char **err)
{
	if (replay_of(app)) {
		*err = xstrdup("already replaying");
		return -1;
	}
	registry_add_source(&replay_source_ops);
	if (app_add_source(app, "replay", path, err) < 0)
		return -1;
	return replay_goto(app, replay_of(app)->rd.first, err);
}

int replay_seek(struct myriad *app, int64_t t_us, char **err)
{
	struct replay *rp = replay_of(app);
	struct tick_row tr;

	if (!rp)
		return not_replaying(err);
	if (reader_at_time(&rp->rd, t_us, &tr) != 0 || tr.tick < rp->rd.first)
		tr.tick = rp->rd.first;   /* before the first tick kept */
	return replay_goto(app, tr.tick, err);
}

int replay_step(struct myriad *app, int64_t ticks, char **err)
{
	struct replay *rp = replay_of(app);
	struct tick_row tr;
	int64_t want;

	if (!rp)
		return not_replaying(err);
	want = (rp->have_pos ? rp->pos : rp->rd.first - 1) + ticks;
	if (reader_find(&rp->rd, want, ticks >= 0 ? -1 : 1, &tr) != 0 &&
	    reader_find(&rp->rd, want, ticks >= 0 ? 1 : -1, &tr) != 0)
		return 0;
	return replay_goto(app, tr.tick, err);
}

int replay_seek_fault(struct myriad *app, int dir, char **err)
{
	struct replay *rp = replay_of(app);
	char sql[160];
	int64_t g;

	if (!rp)
		return not_replaying(err);
	snprintf(sql, sizeof sql,
		 dir >= 0 ? "SELECT min(tick) FROM faults WHERE tick > %lld" : "SELECT max(tick) FROM faults WHERE tick < %lld",
		 (long long)(rp->have_pos ? rp->pos : rp->rd.first - 1));
	if ((g = db_i64(rp->rd.db, sql, -1)) < 0) {
		*err = xstrdup(dir >= 0 ? "no fault opens after this moment" : "no fault opens before this moment");
		return -1;
	}
	return replay_goto(app, g, err);
}

static void on_timer(void *ctx, int64_t id)
{
	(void)id;
	replay_pump(ctx);
}

void replay_play(struct myriad *app, double speed)
{
	struct replay *rp = replay_of(app);

	if (!rp)
		return;
	rp->speed = speed > 0 ? speed : 0;
	rp->wall0 = mono_us();
	rp->t0 = rp->have_pos ? rp->pos_time : rp->rd.start_time;
	if (rp->speed > 0 && !rp->timer && clock_is_running(app))
		rp->timer = loop_timer(app->loop, 100, 100, on_timer, app);
}

void replay_pump(struct myriad *app)
{
	struct replay *rp = replay_of(app);
	struct tick_row tr;
	char *err = NULL;

	if (!rp || rp->speed <= 0)
		return;
	int64_t now = mono_us(), deadline = now + 80000;
	int64_t target = rp->t0 + (int64_t)((double)(now - rp->wall0) * rp->speed);

	while (rp->speed > 0) {
		if (next_group(rp, &tr) != 0) {
			reader_refresh(&rp->rd);
			if (next_group(rp, &tr) != 0) {
				rp->speed = 0;   /* the end of the recording */
				break;
			}
		}
		if (tr.time > target)
			break;
		if (replay_goto(app, tr.tick, &err) < 0) {
			fprintf(stderr, "myriad: replay: %s\n", err);
			free(err);
			rp->speed = 0;
			break;
		}
		if (mono_us() > deadline) {   /* behind: play on from here */
			rp->wall0 = mono_us();
			rp->t0 = rp->pos_time;
			break;
		}
	}
}

static int replay_tick(struct source *src, int64_t now)
{
	struct myriad *app = src->app;
	int64_t before = app->tick;
	char *err = NULL;
	int rc;

	(void)now;
	if (clock_is_running(app)) {
		replay_pump(app);
		return 0;
	}
	rc = replay_step(app, 1, &err);
	if (rc < 0)
		fprintf(stderr, "myriad: replay: %s\n", err);
	free(err);
	return rc < 0 || app->tick == before ? -1 : 0;
}

static int64_t tick_time(struct reader *rd, int64_t g, int dir)
{
	struct tick_row tr;

	return reader_find(rd, g, dir, &tr) == 0 ? tr.time : 0;
}

int replay_get_info(const struct myriad *app, struct replay_info *out)
{
	struct replay *rp = replay_of(app);

	if (!rp)
		return -1;
	out->start = tick_time(&rp->rd, rp->rd.first, 1);
	out->end = tick_time(&rp->rd, rp->rd.last, -1);
	out->now = rp->have_pos ? rp->pos_time : out->start;
	out->speed = rp->speed;
	out->downsampled = rp->downsampled;
	out->path = rp->rd.path;
	return 0;
}

int replay_parse_when(const struct myriad *app, const char *when, int64_t *t_us, char **err)
{
	struct replay *rp = replay_of(app);
	struct replay_info info;
	int64_t secs;

	if (!rp || replay_get_info(app, &info) < 0)
		return not_replaying(err);
	if ((when[0] == '+' || when[0] == '-') && parse_i64(when + 1, strlen(when + 1), &secs) == 0)
		*t_us = when[0] == '+' ? rp->rd.start_time + secs * US_PER_SEC : info.end - secs * US_PER_SEC;
	else if (parse_iso(when, t_us) != 0) {
		*err = xasprintf("\"%s\": a time is +SECONDS (from the start), -SECONDS (before the end) or ISO 8601 UTC",
				 when);
		return -1;
	}
	if (*t_us < MIN(info.start, rp->rd.start_time) || *t_us > info.end + US_PER_SEC - 1) {
		char a[32], b[32], w[32];

		fmt_iso(info.start, a);
		fmt_iso(info.end, b);
		fmt_iso(*t_us, w);
		*err = xasprintf("%s (%s) lies outside the recording, %s to %s (+%lld s)", when, w, a, b,
				 (long long)((info.end - rp->rd.start_time) / US_PER_SEC));
		return -1;
	}
	return 0;
}

int replay_position(const struct myriad *app, int64_t *group)
{
	struct replay *rp = replay_of(app);

	if (!rp || !rp->have_pos)
		return -1;
	*group = rp->pos;
	return 0;
}

uint64_t replay_jumps(const struct myriad *app)
{
	struct replay *rp = replay_of(app);

	return rp ? rp->jumps : 0;
}

int replay_delivering_recorded(const struct myriad *app)
{
	struct replay *rp = replay_of(app);

	return rp && app->bus.flushing && app->bus.current >= rp->rec_from && app->bus.current < rp->rec_to;
}

struct reader *replay_reader(const struct myriad *app, int64_t *pos)
{
	struct replay *rp = replay_of(app);

	if (!rp || !rp->have_pos)
		return NULL;
	*pos = rp->pos;
	return &rp->rd;
}

const char *replay_path(const struct myriad *app)
{
	struct replay *rp = replay_of(app);

	return rp ? rp->rd.path : NULL;
}
