/*
 * notifier.c - Tcl's event sources on myriad's one loop, and cluster time.
 *
 * Debian's Tcl is threaded and its default notifier waits in select() on a
 * helper thread. We replace it (Tcl_SetNotifier) before Tcl starts:
 *
 *   console  Tcl's next timer becomes a loop timer and its file handlers
 *            loop_watch()es; when they fire, Tcl_ServiceAll() runs what is
 *            due. A nested wait (vwait, update-and-wait) is refused: nothing
 *            may block the loop.
 *   batch    the clock is stepped (clock.h). Tcl's clock is the cluster's
 *            (Tcl_SetTimeProc) when the simulator keeps virtual time; a wait
 *            (vwait) lets the cluster tick, one tick at a time, up to the
 *            run's horizon (--ticks), and `advance` or a synchronous `after`
 *            let it tick until a given time. After every tick hooks have run
 *            (from the bus) and Tcl_ServiceAll() runs the timers that came
 *            due. Tcl's own files are polled while the clock waits.
 *
 * One interpreter per process is served (the one tcl_init made last).
 */
#include <poll.h>
#include <string.h>
#include <time.h>
#include "tcl_int.h"

struct nt_fd {
	int fd, mask;
	Tcl_FileProc *proc;
	ClientData cd;
};

struct nt_event {
	Tcl_Event header;
	int fd, ready;
};

static struct {
	struct tcl_state *ts;
	struct loop *loop;         /* the console's loop once attached; NULL in batch */
	int64_t timer;             /* loop timer for Tcl's next timer */
	struct nt_fd *fds;
	int nfds, cfds;
	int64_t wall_deadline;     /* monotonic us; a time limit under a virtual clock */
} nt;

/* The loop we are attached to, if it is still the app's. */
static struct loop *cur_loop(void)
{
	if (nt.loop && (!nt.ts || nt.ts->app->loop != nt.loop)) {
		nt.loop = NULL;    /* freed under us: forget it */
		nt.timer = 0;
	}
	return nt.loop;
}

/* ---- clock ---- */

#define FAR_AHEAD (2 * 366 * 86400L)   /* seconds: a limit under a virtual clock */

static void get_time(Tcl_Time *t, ClientData cd)
{
	struct timespec ts;

	(void)cd;
	if (nt.ts && tc_virtual(nt.ts)) {
		int64_t now = nt.ts->app->now;

		if (nt.wall_deadline && mono_us() > nt.wall_deadline) {
			nt.wall_deadline = 0;   /* once: the limit below fires */
			now += 2 * FAR_AHEAD * US_PER_SEC;
		}
		t->sec = (long)(now / US_PER_SEC);
		t->usec = (long)(now % US_PER_SEC);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	t->sec = (long)ts.tv_sec;
	t->usec = (long)(ts.tv_nsec / 1000);
}

static void scale_time(Tcl_Time *t, ClientData cd)
{
	(void)t;
	(void)cd;
}

/* A time limit ms from now on interpreter in, returning what
 * tc_time_limit_end() restores. Under a virtual clock Tcl's time stands still
 * inside a call (a hook, a plugin), so the limit is set far ahead of the
 * cluster's time and a wall-clock deadline is armed: once it passes, the
 * clock reads once beyond the limit. Before that, scripts see the cluster's
 * time unchanged, so runs stay reproducible. */
int64_t tc_time_limit(Tcl_Interp *in, int64_t ms)
{
	int64_t saved = nt.wall_deadline;
	Tcl_Time t;

	Tcl_GetTime(&t);
	if (nt.ts && tc_virtual(nt.ts)) {
		t.sec += FAR_AHEAD;
		nt.wall_deadline = mono_us() + ms * 1000;
	} else {
		t.sec += (long)(ms / 1000);
		t.usec += (long)(ms % 1000 * 1000);
		if (t.usec >= 1000000) {
			t.sec++;
			t.usec -= 1000000;
		}
	}
	Tcl_LimitSetTime(in, &t);
	Tcl_LimitTypeSet(in, TCL_LIMIT_TIME);
	return saved;
}

void tc_time_limit_end(Tcl_Interp *in, int64_t saved)
{
	Tcl_LimitTypeReset(in, TCL_LIMIT_TIME);
	nt.wall_deadline = saved;
}

void tc_virtual_clock(struct tcl_state *ts, int on)
{
	ts->virtual_clock = on;
}

int tc_virtual(const struct tcl_state *ts)
{
	return ts->virtual_clock && ts->app->virtual_time;
}

/* ---- file events ---- */

static struct nt_fd *find_fd(int fd)
{
	for (int i = 0; i < nt.nfds; i++)
		if (nt.fds[i].fd == fd)
			return &nt.fds[i];
	return NULL;
}

static int file_event(Tcl_Event *ev, int flags)
{
	struct nt_event *e = (struct nt_event *)ev;
	struct nt_fd *f;

	if (!(flags & TCL_FILE_EVENTS))
		return 0;
	if ((f = find_fd(e->fd)) && (f->mask & e->ready))
		f->proc(f->cd, f->mask & e->ready);
	return 1;
}

static void queue_file(int fd, int ready)
{
	struct nt_event *e = (struct nt_event *)Tcl_Alloc(sizeof *e);

	e->header.proc = file_event;
	e->fd = fd;
	e->ready = ready;
	Tcl_QueueEvent(&e->header, TCL_QUEUE_TAIL);
}

static void on_fd(void *ctx, int fd, int events)
{
	struct nt_fd *f = find_fd(fd);

	(void)ctx;
	if (!f)
		return;
	queue_file(fd, (events & LOOP_READ ? TCL_READABLE : 0) | (events & LOOP_WRITE ? TCL_WRITABLE : 0));
	Tcl_ServiceAll();
}

static void watch(struct nt_fd *f)
{
	struct loop *l = cur_loop();

	if (l)
		loop_watch(l, f->fd, (f->mask & TCL_READABLE ? LOOP_READ : 0) | (f->mask & TCL_WRITABLE ? LOOP_WRITE : 0),
			   on_fd, NULL);
}

static void create_file_handler(int fd, int mask, Tcl_FileProc *proc, ClientData cd)
{
	struct nt_fd *f = find_fd(fd);

	if (!f) {
		if (nt.nfds == nt.cfds) {
			nt.cfds = nt.cfds ? nt.cfds * 2 : 8;
			nt.fds = xrealloc(nt.fds, sizeof *nt.fds * (size_t)nt.cfds);
		}
		f = &nt.fds[nt.nfds++];
	}
	*f = (struct nt_fd){fd, mask, proc, cd};
	watch(f);
}

static void delete_file_handler(int fd)
{
	struct nt_fd *f = find_fd(fd);
	struct loop *l = cur_loop();

	if (!f)
		return;
	if (l)
		loop_unwatch(l, fd, NULL);
	*f = nt.fds[--nt.nfds];
}

/* Batch: polls the file handlers, queueing what is ready. */
static int poll_fds(int ms)
{
	struct pollfd p[64];
	int n = MIN(nt.nfds, 64), found = 0;

	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){nt.fds[i].fd, (short)((nt.fds[i].mask & TCL_READABLE ? POLLIN : 0) |
							     (nt.fds[i].mask & TCL_WRITABLE ? POLLOUT : 0)), 0};
	if (poll(p, (nfds_t)n, ms) <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (p[i].revents) {
			queue_file(p[i].fd, (p[i].revents & (POLLIN | POLLHUP | POLLERR) ? TCL_READABLE : 0) |
						    (p[i].revents & POLLOUT ? TCL_WRITABLE : 0));
			found = 1;
		}
	return found;
}

/* ---- timers and waiting ---- */

static void on_timer(void *ctx, int64_t id)
{
	(void)ctx;
	(void)id;
	nt.timer = 0;
	Tcl_ServiceAll();
}

static void set_timer(const Tcl_Time *t)
{
	struct loop *l = cur_loop();

	if (!l)
		return;   /* batch: serviced after every tick */
	if (nt.timer)
		loop_timer_cancel(l, nt.timer);
	nt.timer = 0;
	if (t)
		nt.timer = loop_timer(l, (int64_t)t->sec * 1000 + (t->usec + 999) / 1000, 0, on_timer, NULL);
}

/* One tick of cluster time in a batch run (clock.h: one simulated second,
 * one second of wall time with real hosts, one recorded tick when
 * replaying), unless the run or the recording is over. With real hosts the
 * loop runs until the tick is due, and a file event of Tcl's own (a socket
 * a runbook opened) returns early, to be served before the tick: 1. */
static int batch_tick(struct tcl_state *ts)
{
	struct myriad *app = ts->app;

	if (app->now >= ts->horizon || ts->exiting)
		return -1;
	if (!app->virtual_time && app->nsources) {
		int64_t due = clock_due(app);

		while (mono_us() < due) {
			if (poll_fds(0))
				return 1;
			clock_pump(app, MIN(due, mono_us() + 50000), NULL);
		}
	}
	return clock_step(app);
}

static int wait_for_event(const Tcl_Time *t)
{
	struct tcl_state *ts = nt.ts;

	if (t && t->sec == 0 && t->usec == 0)
		return cur_loop() ? 0 : poll_fds(0);
	if (cur_loop() || !ts || !ts->batch || ts->app->bus.flushing || tc_in_hook(ts))
		return -1;   /* never block the console; never wait inside a hook */
	return batch_tick(ts) < 0 ? -1 : 1;
}

static ClientData init_notifier(void)
{
	return &nt;
}

static void finalize_notifier(ClientData cd)
{
	(void)cd;
}

static void alert_notifier(ClientData cd)
{
	(void)cd;
}

static void service_mode_hook(int mode)
{
	(void)mode;
}

void tc_notifier_install(void)
{
	static Tcl_NotifierProcs procs = {
		set_timer, wait_for_event, create_file_handler, delete_file_handler,
		init_notifier, finalize_notifier, alert_notifier, service_mode_hook,
	};

	Tcl_SetNotifier(&procs);
	Tcl_SetTimeProc(get_time, scale_time, NULL);
}

void tc_notifier_attach(struct tcl_state *ts)
{
	nt.ts = ts;
	if (!ts->app->console || nt.loop == ts->app->loop)
		return;   /* batch: Tcl's timers run after every tick, its files are polled */
	nt.loop = ts->app->loop;
	nt.timer = 0;
	for (int i = 0; i < nt.nfds; i++)
		watch(&nt.fds[i]);
	nt.timer = loop_timer(nt.loop, 0, 0, on_timer, NULL);   /* whatever is due already */
}

void tc_notifier_detach(struct tcl_state *ts)
{
	struct loop *l;

	if (nt.ts != ts)
		return;
	if ((l = cur_loop())) {
		if (nt.timer)
			loop_timer_cancel(l, nt.timer);
		for (int i = 0; i < nt.nfds; i++)
			loop_unwatch(l, nt.fds[i].fd, NULL);
	}
	nt.loop = NULL;
	nt.timer = 0;
	nt.ts = NULL;
}

void tcl_service(struct myriad *app)
{
	struct tcl_state *ts = app->tcl;

	if (!ts)
		return;
	if (nt.loop != app->loop)
		tc_notifier_attach(ts);
	Tcl_ServiceAll();
}

int tc_advance(struct tcl_state *ts, Tcl_Interp *in, int64_t until)
{
	struct myriad *app = ts->app;

	if (!ts->batch && clock_is_running(app))
		return tc_ierr(in, "TIME", "time passes by itself in the console");
	if (app->bus.flushing || tc_in_hook(ts))
		return tc_ierr(in, "TIME", "cannot let time pass inside a hook: use a coroutine with after");
	if (!app->nsources)
		return tc_ierr(in, "NOTAVAIL", "no source runs: there is no cluster time to let pass");
	while (app->now < until && !ts->exiting) {
		int64_t keep = ts->horizon;
		int rc;

		ts->horizon = INT64_MAX;   /* an explicit wait may go past the run's end */
		rc = batch_tick(ts);
		ts->horizon = keep;
		if (rc < 0)
			break;   /* the end of the recording, or a signal */
		Tcl_ServiceAll();
	}
	if (app->quit)
		return tc_stopped(ts, in);
	Tcl_SetObjResult(in, Tcl_NewWideIntObj((Tcl_WideInt)app->tick));
	return TCL_OK;
}
