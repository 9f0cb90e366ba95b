/*
 * loop.c - epoll event loop with timers and a signal self-pipe (see loop.h).
 * Timers are few (ticks, redraw, reconnect backoff), so they live in a small
 * array scanned for the nearest deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "loop.h"
#include "util.h"

struct watch {
	loop_fd_fn fn;
	void *ctx;
	int events;
};

struct timer {
	int64_t id, due, every;
	loop_timer_fn fn;
	void *ctx;
};

struct sigwatch {
	int sig;
	loop_signal_fn fn;
	void *ctx;
};

struct loop {
	int ep;
	struct watch *w;          /* indexed by fd */
	int nw;
	struct timer *t;
	int nt, tcap;
	int64_t next_id;
	struct sigwatch sigs[16];
	int nsigs;
	struct {
		loop_hook_fn fn;
		void *ctx;
	} hooks[LOOP_MAX_HOOKS];
	int nhooks;
	int stop, rc;
};

static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t sig_pending[65];

/* A signal goes through the pipe to the loop. If the same one comes again
 * before the loop has read the first (a batch script busy in a loop that
 * never lets the event loop run), the second takes its default action:
 * SIGTERM twice always ends the process. */
static void on_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	int saved = errno;

	if (sig > 0 && sig < 65 && sig_pending[sig] && sig != SIGWINCH && sig != SIGCHLD) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (sig > 0 && sig < 65)
		sig_pending[sig] = 1;
	if (write(sig_pipe[1], &c, 1) < 0) {
		/* pipe full: the signal is already pending in it */
	}
	errno = saved;
}

static void read_signals(void *ctx, int fd, int events)
{
	struct loop *l = ctx;
	unsigned char buf[64];
	ssize_t n;

	(void)events;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] < 65)
				sig_pending[buf[i]] = 0;
			for (int k = 0; k < l->nsigs; k++)
				if (l->sigs[k].sig == buf[i])
					l->sigs[k].fn(l->sigs[k].ctx, buf[i]);
		}
}

struct loop *loop_new(void)
{
	struct loop *l = xcalloc(1, sizeof *l);

	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0)
		fatal("epoll_create1: %s", strerror(errno));
	l->next_id = 1;
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nsigs; i++)
		signal(l->sigs[i].sig, SIG_DFL);
	if (l->nsigs && sig_pipe[0] >= 0) {
		close(sig_pipe[0]);
		close(sig_pipe[1]);
		sig_pipe[0] = sig_pipe[1] = -1;
	}
	close(l->ep);
	free(l->w);
	free(l->t);
	free(l);
}

int loop_watch(struct loop *l, int fd, int events, loop_fd_fn fn, void *ctx)
{
	struct epoll_event ee;
	int op;

	if (fd < 0)
		return -1;
	if (!events) {
		loop_unwatch(l, fd, ctx);
		return 0;
	}
	if (fd >= l->nw) {
		int n = MAX(fd + 1, l->nw * 2);

		l->w = xrealloc(l->w, sizeof *l->w * (size_t)n);
		memset(l->w + l->nw, 0, sizeof *l->w * (size_t)(n - l->nw));
		l->nw = n;
	}
	op = l->w[fd].fn ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	memset(&ee, 0, sizeof ee);
	ee.events = (events & LOOP_READ ? EPOLLIN : 0) | (events & LOOP_WRITE ? EPOLLOUT : 0);
	ee.data.fd = fd;
	if (epoll_ctl(l->ep, op, fd, &ee) < 0) {
		/* ENOENT: the number was closed and reused, the kernel dropped the
		 * old watch; EEXIST: the reverse. Anything else is a real error. */
		if (!(op == EPOLL_CTL_MOD && errno == ENOENT) && !(op == EPOLL_CTL_ADD && errno == EEXIST))
			goto fail;
		op = op == EPOLL_CTL_MOD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
		if (epoll_ctl(l->ep, op, fd, &ee) < 0)
			goto fail;
	}
	l->w[fd] = (struct watch){fn, ctx, events};
	return 0;
fail:
	if (l->w[fd].ctx == ctx)
		l->w[fd].fn = NULL;   /* e.g. EBADF: the descriptor is gone */
	return -1;
}

void loop_unwatch(struct loop *l, int fd, const void *ctx)
{
	if (fd < 0 || fd >= l->nw || !l->w[fd].fn || l->w[fd].ctx != ctx)
		return;   /* not watched, or watched now by whoever reused the number */
	epoll_ctl(l->ep, EPOLL_CTL_DEL, fd, NULL);
	l->w[fd].fn = NULL;
}

int64_t loop_timer(struct loop *l, int64_t ms, int64_t every_ms, loop_timer_fn fn, void *ctx)
{
	if (l->nt == l->tcap) {
		l->tcap = l->tcap ? l->tcap * 2 : 16;
		l->t = xrealloc(l->t, sizeof *l->t * (size_t)l->tcap);
	}
	l->t[l->nt] = (struct timer){l->next_id, mono_us() + ms * 1000, every_ms * 1000, fn, ctx};
	l->nt++;
	return l->next_id++;
}

void loop_timer_cancel(struct loop *l, int64_t id)
{
	for (int i = 0; i < l->nt; i++)
		if (l->t[i].id == id) {
			l->t[i] = l->t[--l->nt];
			return;
		}
}

int loop_signal(struct loop *l, int sig, loop_signal_fn fn, void *ctx)
{
	struct sigaction sa;

	if (l->nsigs == (int)ARRAY_LEN(l->sigs))
		return -1;
	if (sig_pipe[0] < 0) {
		if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
			return -1;
		loop_watch(l, sig_pipe[0], LOOP_READ, read_signals, l);
	}
	l->sigs[l->nsigs++] = (struct sigwatch){sig, fn, ctx};
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

void loop_before_sleep(struct loop *l, loop_hook_fn fn, void *ctx)
{
	if (l->nhooks == LOOP_MAX_HOOKS)
		fatal("loop: more than %d before-sleep hooks", LOOP_MAX_HOOKS);
	l->hooks[l->nhooks].fn = fn;
	l->hooks[l->nhooks].ctx = ctx;
	l->nhooks++;
}

void loop_before_sleep_remove(struct loop *l, loop_hook_fn fn, void *ctx)
{
	for (int i = 0; i < l->nhooks; i++)
		if (l->hooks[i].fn == fn && l->hooks[i].ctx == ctx) {
			for (int k = i; k + 1 < l->nhooks; k++)
				l->hooks[k] = l->hooks[k + 1];
			l->nhooks--;
			return;
		}
}

static int next_timeout_ms(struct loop *l, int cap_ms)
{
	int64_t now = mono_us(), best = (int64_t)cap_ms * 1000;

	if (cap_ms < 0)
		best = INT64_MAX;
	for (int i = 0; i < l->nt; i++)
		best = MIN(best, MAX(0, l->t[i].due - now));
	if (best == INT64_MAX)
		return -1;
	return (int)((best + 999) / 1000);
}

static void run_timers(struct loop *l)
{
	int64_t now = mono_us();

	for (int i = 0; i < l->nt; i++) {
		struct timer t = l->t[i];

		if (t.due > now)
			continue;
		if (t.every) {
			l->t[i].due = MAX(t.due + t.every, now);   /* no catch-up bursts */
		} else {
			l->t[i] = l->t[--l->nt];
			i--;
		}
		t.fn(t.ctx, t.id);   /* may add or cancel timers */
	}
}

void loop_once(struct loop *l, int ms)
{
	struct epoll_event ev[256];
	int n, timeout = next_timeout_ms(l, ms);

	for (int i = 0; i < l->nhooks; i++)
		l->hooks[i].fn(l->hooks[i].ctx);
	n = epoll_wait(l->ep, ev, (int)ARRAY_LEN(ev), timeout);
	for (int i = 0; i < n; i++) {
		int fd = ev[i].data.fd, events = 0;

		if (fd >= l->nw || !l->w[fd].fn)
			continue;   /* unwatched by an earlier callback */
		if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			events |= LOOP_READ;
		if (ev[i].events & EPOLLOUT)
			events |= LOOP_WRITE;
		l->w[fd].fn(l->w[fd].ctx, fd, events);
	}
	run_timers(l);
}

int loop_run(struct loop *l)
{
	l->stop = 0;
	while (!l->stop)
		loop_once(l, -1);
	return l->rc;
}

void loop_stop(struct loop *l, int rc)
{
	l->stop = 1;
	l->rc = rc;
}
