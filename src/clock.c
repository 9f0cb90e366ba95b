/*
 * clock.c - the one clock (see clock.h): ticks made by a timer on the loop
 * (running) or on request (stepped), and the subscribers told after each.
 */
#include <stdlib.h>
#include "myriad.h"

static void after_tick(struct myriad *app)
{
	struct clock *c = &app->clock;

	for (int i = 0; i < c->nsubs; i++)
		c->subs[i].fn(c->subs[i].ctx);
}

static int tick_once(struct myriad *app)
{
	int rc = app_tick(app);

	after_tick(app);
	return rc;
}

void clock_tick(struct myriad *app)
{
	tick_once(app);
}

int64_t clock_due(const struct myriad *app)
{
	int64_t now = mono_us();

	if (app->virtual_time)
		return now;
	return app->clock.due ? app->clock.due : now + US_PER_SEC;   /* the first: a second from now */
}

void clock_pump(struct myriad *app, int64_t until, const int *done)
{
	int64_t now;

	while ((!done || !*done) && (now = mono_us()) < until)
		loop_once(app->loop, (int)MIN((until - now + 999) / 1000, 1000));
}

int clock_step(struct myriad *app)
{
	if (!app->nsources || app->quit)
		return -1;
	if (!app->virtual_time) {
		int64_t due = clock_due(app);

		app->clock.due = due;
		clock_pump(app, due, NULL);
		app->clock.due = MAX(due, mono_us() - US_PER_SEC / 2) + US_PER_SEC;
	} else {
		loop_once(app->loop, 0);   /* what arrived meanwhile (a backend's answer, a signal) */
	}
	if (app->quit)
		return -1;
	return tick_once(app);
}

static void on_timer(void *ctx, int64_t id)
{
	(void)id;
	tick_once(ctx);
}

int clock_run(struct myriad *app, int64_t tick_ms)
{
	struct clock *c = &app->clock;
	int rc;

	c->tick_ms = tick_ms > 0 ? tick_ms : 1000;
	c->running = 1;
	c->timer = loop_timer(app->loop, c->tick_ms, c->tick_ms, on_timer, app);
	rc = loop_run(app->loop);
	loop_timer_cancel(app->loop, c->timer);
	c->timer = 0;
	c->running = 0;
	return rc;
}

int clock_is_running(const struct myriad *app)
{
	return app->clock.running;
}

int clock_subscribe(struct myriad *app, clock_fn fn, void *ctx)
{
	struct clock *c = &app->clock;

	if (c->nsubs == CLOCK_MAX_SUBS)
		return -1;
	c->subs[c->nsubs].fn = fn;
	c->subs[c->nsubs].ctx = ctx;
	c->nsubs++;
	return 0;
}

void clock_unsubscribe(struct myriad *app, clock_fn fn, void *ctx)
{
	struct clock *c = &app->clock;

	for (int i = 0; i < c->nsubs; i++)
		if (c->subs[i].fn == fn && c->subs[i].ctx == ctx) {
			for (int k = i; k + 1 < c->nsubs; k++)
				c->subs[k] = c->subs[k + 1];
			c->nsubs--;
			return;
		}
}

int64_t clock_tick_ms_from_env(void)
{
	const char *s = getenv("MYRIAD_TICK_MS");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v >= 10 && v <= 10000 ? v : 1000;
}
