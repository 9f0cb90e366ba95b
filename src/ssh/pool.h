/*
 * pool.h - non-blocking libssh sessions driven by the one event loop.
 *
 * One persistent session per host, several exec channels per session. The
 * loop watches each session's socket with the interest libssh asks for
 * (ssh_get_poll_flags: never POLLOUT during connect unless libssh wants it);
 * an up session is pumped through its own one-session ssh_event, so a wake-up
 * costs O(1) whatever the number of hosts (myriad-design(7), FACTS: SSH at fleet scale: epoll 6 % of a core
 * at 1,280 sessions, a shared poll 58 %). At most `handshakes` connections
 * are being set up at once; failures are retried with exponential backoff and
 * jitter. Host keys are checked against the inventory's in-memory store.
 *
 * Every callback runs from the loop; none may block. Callbacks may call any
 * pool function, including closing the channel or host they are about.
 */
#ifndef MYRIAD_SSH_POOL_H
#define MYRIAD_SSH_POOL_H

#include <stddef.h>
#include <stdint.h>
#include "inventory.h"
#include "../loop.h"

struct ssh_pool;
struct ssh_host;
struct ssh_chan;

struct pool_ops {
	/* The host's connection state changed (enum conn_state). */
	void (*state)(void *ctx, struct ssh_host *h, int state, const char *detail);
	/* The host is connected and authenticated: open channels now. */
	void (*up)(void *ctx, struct ssh_host *h);
};

struct chan_ops {
	/* Output of the remote command; is_stderr for its standard error. */
	void (*data)(void *ctx, struct ssh_chan *c, const char *buf, size_t n, int is_stderr);
	/* The command ended: status is its exit status (0-255), or -1 with why
	 * ("killed by signal TERM", "timed out after 5 s", "connection lost").
	 * The channel is freed after this returns. */
	void (*done)(void *ctx, struct ssh_chan *c, int status, const char *why);
};

/* reconnect = 1: keep every host connected, retrying with backoff (the
 * console). 0: one attempt per host, then the host is finished (fan-out).
 * max_busy > 0 bounds the hosts connecting or connected at once. */
struct ssh_pool *pool_new(struct loop *l, struct inventory *inv, const struct pool_ops *ops, void *ctx,
			  int reconnect, int max_busy);
void pool_free(struct ssh_pool *p);
/* This pool's own connect timeout and handshakes in flight (0: the
 * inventory's), e.g. a fan-out's -t, without touching the console's pool. */
void pool_set_limits(struct ssh_pool *p, int64_t connect_timeout_us, int handshakes);

/* Adds a host; it connects as soon as the loop runs. udata is the caller's. */
struct ssh_host *pool_add(struct ssh_pool *p, const struct inv_target *t, void *udata);
/* Closes the host's session; with reconnect = 0 the host is finished. */
void pool_disconnect(struct ssh_host *h);
/* Hosts not finished yet (fan-out waits for 0). */
int pool_pending(const struct ssh_pool *p);

const char *host_name(const struct ssh_host *h);
void *host_udata(const struct ssh_host *h);
int host_state(const struct ssh_host *h);          /* enum conn_state */
int host_is_up(const struct ssh_host *h);          /* authenticated and not being torn down */
const char *host_detail(const struct ssh_host *h); /* why it is not up, "" when up */

/* Runs command on an up host; NULL if the host is not up. */
struct ssh_chan *pool_exec(struct ssh_host *h, const char *command, const struct chan_ops *ops, void *ctx);
/* A deadline for the whole command and one for silence (0: none), from now. */
void chan_set_timeouts(struct ssh_chan *c, int64_t total_us, int64_t silence_us);
/* Closes the channel (the remote command gets TERM); no callback follows. */
void chan_close(struct ssh_chan *c);
struct ssh_host *chan_host(const struct ssh_chan *c);
/* Whether the server opened the channel (if not, its command never ran). */
int chan_opened(const struct ssh_chan *c);

/* A stream to host:port through the session of `via` (a configured host or
 * service, or an ssh_config name) as a forwarded channel: the returned
 * socket (non-blocking) is the caller's, to read, write and close. The
 * session is opened if it is not up; when it or the channel ends, the
 * socket reads EOF. -1 with *err. */
int pool_tunnel(struct ssh_pool *p, const char *via, const char *host, int port, char **err);

/* Counters for the log and the benchmark. */
struct pool_stats {
	int hosts, up, connecting, channels;
	int64_t handshakes_done, failures;
};
void pool_stats(const struct ssh_pool *p, struct pool_stats *s);

#endif
