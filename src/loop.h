/*
 * loop.h - the one event loop: epoll over file descriptors (SSH sockets, the
 * terminal, pipes), timers, and signals through a self-pipe. No threads.
 *
 * Callbacks run from loop_run(); a "before sleep" hook runs once per
 * iteration after all ready callbacks (flush the bus, redraw).
 */
#ifndef MYRIAD_LOOP_H
#define MYRIAD_LOOP_H

#include <stdint.h>

struct loop;

#define LOOP_READ 0x1
#define LOOP_WRITE 0x4

typedef void (*loop_fd_fn)(void *ctx, int fd, int events);
typedef void (*loop_timer_fn)(void *ctx, int64_t id);
typedef void (*loop_signal_fn)(void *ctx, int sig);
typedef void (*loop_hook_fn)(void *ctx);

struct loop *loop_new(void);
void loop_free(struct loop *l);

/* Watch fd for events (LOOP_READ | LOOP_WRITE); again to change, 0 to stop.
 * A watch belongs to its ctx: a descriptor number closed behind the loop's
 * back (libssh closes a failed session's socket itself) and reused by a new
 * one is taken over by the new watcher, and loop_unwatch from the old owner
 * then does nothing. */
int loop_watch(struct loop *l, int fd, int events, loop_fd_fn fn, void *ctx);
void loop_unwatch(struct loop *l, int fd, const void *ctx);

/* A timer firing after ms milliseconds, then every `every_ms` if nonzero.
 * Returns an id for loop_timer_cancel. */
int64_t loop_timer(struct loop *l, int64_t ms, int64_t every_ms, loop_timer_fn fn, void *ctx);
void loop_timer_cancel(struct loop *l, int64_t id);

/* Deliver signal sig through the loop (SIGINT, SIGTERM, SIGWINCH, SIGCHLD). */
int loop_signal(struct loop *l, int sig, loop_signal_fn fn, void *ctx);

/* Hooks run in the order added, before each wait (at most LOOP_MAX_HOOKS). */
#define LOOP_MAX_HOOKS 4
void loop_before_sleep(struct loop *l, loop_hook_fn fn, void *ctx);
void loop_before_sleep_remove(struct loop *l, loop_hook_fn fn, void *ctx);
/* Runs until loop_stop(); returns the value given to loop_stop. */
int loop_run(struct loop *l);
void loop_stop(struct loop *l, int rc);
/* One iteration, waiting at most ms (0: do not wait). */
void loop_once(struct loop *l, int ms);

#endif
