/*
 * clock.h - the one clock: what a tick is, and who makes the next one.
 *
 * A tick is one step of cluster time: with the simulator one simulated
 * second (virtual time: it takes no wall time), with real hosts one second
 * of wall time, in a replay the next recorded tick. Everything that happens
 * between ticks (SSH data, backend answers, Tcl file events) arrives through
 * the application's one loop (app->loop, which exists for the whole run).
 *
 * Two ways to drive it, one clock:
 *   running   clock_run(): a timer on app->loop ticks every tick_ms and
 *             loop_run() serves everything else (the console, the live
 *             summary). The loop stops with loop_stop().
 *   stepped   clock_step(): the caller asks for the next tick (batch runs,
 *             --once, Tcl's advance, `after MS`, vwait). With real hosts it
 *             first lets the loop run until the tick is due.
 * Only this file asks whether a replay is running: a replay's tick is the
 * recording's next group (at the chosen speed when running).
 *
 * After every tick the subscribers run in the order they subscribed (the
 * console's redraw, Tcl's due timers, a summary printer).
 */
#ifndef MYRIAD_CLOCK_H
#define MYRIAD_CLOCK_H

#include <stdint.h>

struct myriad;

typedef void (*clock_fn)(void *ctx);

#define CLOCK_MAX_SUBS 8

struct clock {
	int running;               /* clock_run() is serving the loop */
	int64_t tick_ms;           /* wall ms per tick when running */
	int64_t timer;             /* the tick timer when running */
	int64_t due;               /* mono us of the next real-time tick */
	struct {
		clock_fn fn;
		void *ctx;
	} subs[CLOCK_MAX_SUBS];
	int nsubs;
};

/* One tick now, then the subscribers. */
void clock_tick(struct myriad *app);
/* Stepped: lets the loop run until the next tick is due (real time only),
 * then ticks. -1 when there is nothing to tick (no source; the end of a
 * replay; a signal asked the run to end: app->quit), 0 otherwise. */
int clock_step(struct myriad *app);
/* Lets the loop run, without ticking, until mono time `until` or until
 * *done becomes nonzero (done may be NULL). A wait for a backend's answer. */
void clock_pump(struct myriad *app, int64_t until, const int *done);
/* Mono us when the next stepped tick is due (now for virtual time). */
int64_t clock_due(const struct myriad *app);
/* Running: ticks every tick_ms until loop_stop(); returns loop_run's value. */
int clock_run(struct myriad *app, int64_t tick_ms);
/* Is the loop serving (console, live summary) rather than a stepped run? */
int clock_is_running(const struct myriad *app);
/* Runs fn(ctx) after every tick; -1 when full. */
int clock_subscribe(struct myriad *app, clock_fn fn, void *ctx);
void clock_unsubscribe(struct myriad *app, clock_fn fn, void *ctx);
/* Wall-clock ms per tick for the console: MYRIAD_TICK_MS (10..10000) or 1000. */
int64_t clock_tick_ms_from_env(void);

#endif
