/*
 * pool_int.h - the session pool's internal state, shared by pool.c (hosts:
 * connect, host key, auth, backoff, the loop) and chan.c (exec channels).
 */
#ifndef MYRIAD_SSH_POOL_INT_H
#define MYRIAD_SSH_POOL_INT_H

#include <libssh/libssh.h>
#include <libssh/callbacks.h>
#include "pool.h"

enum phase { PH_IDLE, PH_QUEUED, PH_CONNECTING, PH_AUTH, PH_UP, PH_DONE };
enum chan_step { CH_OPENING, CH_EXEC, CH_RUNNING, CH_ENDED };

struct ssh_chan {
	struct ssh_host *host;
	struct ssh_chan *next;
	ssh_channel ch;
	struct ssh_channel_callbacks_struct cb;
	const struct chan_ops *ops;
	void *ctx;
	char *command;
	int step;                 /* enum chan_step */
	int exit_status;          /* -1 until received */
	char signal[32];          /* exit signal, "" if none */
	int eof, closed, cancelled, failed;
	char why[160];            /* set when the pool ends it (timeout, lost) */
	int64_t started, last_data, step_deadline, deadline, silence;
};

struct ssh_host {
	struct ssh_pool *pool;
	struct inv_target t;      /* borrowed from the inventory */
	void *udata;
	int index;
	int phase;                /* enum phase */
	int state;                /* enum conn_state, as last reported */
	char detail[400];
	ssh_session s;
	ssh_event ev;             /* one-session event while up */
	int fd, watched;          /* watched: LOOP_* flags registered */
	int attempts;
	int64_t retry_at, deadline, up_since;
	int want_close;
	int fail_state;           /* a failure found while pumping, handled by settle() */
	char fail_why[160];
	struct ssh_chan *chans;
	int nchans;
	int gateway;              /* a -via gateway: internal to the pool, no ops callbacks */
	char *gwname;             /* a gateway's key: the -via name, or user@host:port of a ProxyJump */
	char *gwstr[2];           /* a gateway's own copies of t.name and t.user */
	struct ssh_link *links;   /* a gateway's links to its nodes */
	int link_work;            /* links flagged for gateway_pump */
	struct ssh_link *link;    /* a node behind a gateway: its link */
	char *keyhost;            /* the name host keys are checked under, once resolved to an address */
	int resolving;            /* waiting for the resolver (PH_CONNECTING) */
};

struct key_cache {
	char *path;
	ssh_key key;              /* NULL: could not be read (use agent/auto) */
};

struct ssh_pool {
	struct loop *loop;
	struct inventory *inv;
	const struct pool_ops *ops;
	void *ctx;
	int reconnect, max_busy;
	struct ssh_host **hosts;
	int nhosts, cap;
	int *queue;               /* hosts waiting to connect, FIFO */
	int qhead, qlen, qcap;
	int inflight, busy, pending;
	int64_t timer;
	struct rng rng;
	struct key_cache *keys;
	int nkeys;
	FILE *log;
	int64_t handshakes_done, failures;
	int in_dispatch, in_libssh;
	struct resolver *res;     /* host names, looked up off the loop */
	int64_t connect_timeout_us;   /* 0: the inventory's (pool_set_limits) */
	int handshakes;
};

static inline int64_t pool_connect_timeout(const struct ssh_pool *p)
{
	return p->connect_timeout_us ? p->connect_timeout_us : p->inv->connect_timeout_us;
}

/* pool.c */
void pool_log(struct ssh_pool *p, const char *fmt, ...) PRINTF_LIKE(2, 3);
void host_watch(struct ssh_host *h);
void host_fail(struct ssh_host *h, int state, const char *detail);
void quickack(int fd);

void host_connect(struct ssh_host *h);         /* the socket is ready: connect over it */
void host_start_now(struct ssh_host *h);       /* a gateway: start now, outside the queue */
struct ssh_host *pool_add_gateway(struct ssh_pool *p, const struct inv_target *t, const char *name);

/* gateway.c */
int gateway_link_via(struct ssh_host *node);   /* start a node behind its -via gateway; -1: failed */
int gateway_from_config(struct ssh_host *node);   /* 1: its ssh_config ProxyJump is carried so */
int gateway_link(struct ssh_host *node, struct ssh_host *gw);
void gateway_unlink(struct ssh_host *node);    /* the node's session is gone */
void gateway_pump(struct ssh_host *gw);        /* open, pump, reap links (outside libssh) */
void gateway_down(struct ssh_host *gw, const char *why);

/* chan.c */
void chan_pump(struct ssh_host *h);          /* opens, execs, reaps */
void chan_check_time(struct ssh_chan *c, int64_t now);
void chan_fail_all(struct ssh_host *h, const char *why);
int chan_needs_handshake(const struct ssh_host *h);

#endif
