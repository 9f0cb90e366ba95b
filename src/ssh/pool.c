/*
 * pool.c - the session pool's hosts (see pool.h): the loop watches, the
 * connect / host key / auth steps, failures, backoff with jitter, the queue
 * that bounds handshakes in flight, and the 100 ms housekeeping timer.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "pool_int.h"
#include "hostkeys.h"
#include "resolve.h"

#define TIMER_MS 100

static void on_fd(void *ctx, int fd, int events);
static void start_queued(struct ssh_pool *p);

void quickack(int fd)
{
	int one = 1;

	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
}

void pool_log(struct ssh_pool *p, const char *fmt, ...)
{
	va_list ap;
	char iso[32];
	int64_t now = wall_us();

	if (!p->log)
		return;
	fmt_iso(now, iso);
	fprintf(p->log, "%.19s.%03dZ ", iso, (int)(now / 1000 % 1000));
	va_start(ap, fmt);
	vfprintf(p->log, fmt, ap);
	va_end(ap);
	fputc('\n', p->log);
	fflush(p->log);
}

static void set_state(struct ssh_host *h, int state, const char *detail)
{
	struct ssh_pool *p = h->pool;

	snprintf(h->detail, sizeof h->detail, "%s", detail ? detail : "");
	for (char *c = h->detail; *c; c++)   /* server-sent text (disconnect reasons) is untrusted */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (state == h->state)
		return;
	h->state = state;
	pool_log(p, "%s %s%s%s", h->t.name, conn_state_name(state), h->detail[0] ? ": " : "", h->detail);
	if (p->ops->state && !h->gateway)
		p->ops->state(p->ctx, h, state, h->detail);
}

/* ---- the loop ---- */

void host_watch(struct ssh_host *h)
{
	struct loop *l = h->pool->loop;
	int want = 0;

	if (h->fd >= 0 && h->s) {
		want = LOOP_READ;
		if (ssh_get_poll_flags(h->s) & SSH_WRITE_PENDING)
			want |= LOOP_WRITE;
	}
	if (want == h->watched)
		return;
	if (!want)
		loop_unwatch(l, h->fd, h);
	else
		loop_watch(l, h->fd, want, on_fd, h);
	h->watched = want;
}

static void unwatch(struct ssh_host *h)
{
	if (h->fd >= 0 && h->watched)
		loop_unwatch(h->pool->loop, h->fd, h);
	h->watched = 0;
	h->fd = -1;
}

/* ---- teardown, failure, backoff ---- */

static void teardown(struct ssh_host *h, const char *why, int silent)
{
	struct ssh_pool *p = h->pool;
	int phase = h->phase;

	h->phase = PH_IDLE;   /* callbacks below see a host that is not up */
	chan_fail_all(h, why);
	unwatch(h);
	if (h->ev) {
		ssh_event_remove_session(h->ev, h->s);
		ssh_event_free(h->ev);
		h->ev = NULL;
	}
	if (h->gateway)
		gateway_down(h, why);   /* before libssh frees the links' channels (in ssh_disconnect) */
	if (h->s) {
		if (silent)
			ssh_silent_disconnect(h->s);
		else
			ssh_disconnect(h->s);
		ssh_free(h->s);
		h->s = NULL;
	}
	if (h->link)
		gateway_unlink(h);
	if (phase == PH_CONNECTING || phase == PH_AUTH)
		p->inflight--;
	if (phase == PH_CONNECTING || phase == PH_AUTH || phase == PH_UP)
		p->busy--;
}

static int64_t backoff(struct ssh_host *h, int state)
{
	const struct inventory *inv = h->pool->inv;
	int64_t d = inv->backoff_min_us;

	if (state == CONN_AUTH_FAILED || state == CONN_HOSTKEY_CHANGED || state == CONN_HOSTKEY_UNKNOWN)
		return inv->backoff_max_us;   /* needs an operator: do not hammer */
	for (int i = 1; i < h->attempts && d < inv->backoff_max_us; i++)
		d *= 2;
	d = MIN(d, inv->backoff_max_us);
	return d / 2 + (int64_t)(rng_unit(&h->pool->rng) * (double)(d / 2));   /* jitter: [d/2, d) */
}

static void finished(struct ssh_host *h)
{
	if (h->phase != PH_DONE) {
		h->phase = PH_DONE;
		if (!h->gateway)
			h->pool->pending--;
	}
}

void host_fail(struct ssh_host *h, int state, const char *detail)
{
	struct ssh_pool *p = h->pool;
	char why[400];
	int was_up = h->phase == PH_UP;

	snprintf(why, sizeof why, "%s", detail && *detail ? detail : conn_state_name(state));
	if (h->link && h->fail_state && strcmp(why, h->fail_why))   /* the gateway knows better */
		snprintf(why, sizeof why, "%s (%s)", h->fail_why, detail && *detail ? detail : conn_state_name(state));
	h->fail_state = 0;
	if (was_up && mono_us() - h->up_since >= 60 * US_PER_SEC)
		h->attempts = 0;   /* it was fine for a while: retry soon */
	teardown(h, why, !was_up);
	p->failures++;
	set_state(h, state, why);
	if (!p->reconnect || h->want_close) {
		finished(h);
		return;
	}
	h->attempts++;
	h->phase = PH_IDLE;
	h->retry_at = mono_us() + backoff(h, state);
}

/* ---- connecting ---- */

static ssh_key identity_key(struct ssh_pool *p, const char *path)
{
	for (int i = 0; i < p->nkeys; i++)
		if (!strcmp(p->keys[i].path, path))
			return p->keys[i].key;
	ssh_key key = NULL;
	char *full = path[0] == '~' && path[1] == '/' && getenv("HOME") ? xasprintf("%s%s", getenv("HOME"), path + 1)
									   : xstrdup(path);

	if (ssh_pki_import_privkey_file(full, NULL, NULL, NULL, &key) != SSH_OK)
		key = NULL;   /* encrypted or unreadable: leave it to the agent and publickey_auto */
	free(full);
	p->keys = xrealloc(p->keys, sizeof *p->keys * (size_t)(p->nkeys + 1));
	p->keys[p->nkeys++] = (struct key_cache){xstrdup(path), key};
	return key;
}

static int configure(struct ssh_host *h, ssh_session s)
{
	const struct inventory *inv = h->pool->inv;
	const struct inv_target *t = &h->t;
	int one = 1, rc = 0;
	bool no = false;
	char algs[512], *str = NULL;
	unsigned int port = 22;

	rc |= ssh_options_set(s, SSH_OPTIONS_HOST, t->name);
	if (!inv->ssh_config)
		rc |= ssh_options_parse_config(s, NULL);
	else if (strcmp(inv->ssh_config, "none"))
		rc |= ssh_options_parse_config(s, inv->ssh_config);
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
	const char *fields[2] = {t->hostname, t->user};
	const enum ssh_options_e opts[2] = {SSH_OPTIONS_HOST, SSH_OPTIONS_USER};

	for (int i = 0; i < 2; i++)
		if (fields[i]) {
			char *v = inv_expand(fields[i], t->name);

			rc |= ssh_options_set(s, opts[i], v);
			free(v);
		}
	if (t->port) {
		port = (unsigned)t->port;
		rc |= ssh_options_set(s, SSH_OPTIONS_PORT, &port);
	}
	if (t->identity && !identity_key(h->pool, t->identity))
		ssh_options_set(s, SSH_OPTIONS_ADD_IDENTITY, t->identity);
	rc |= ssh_options_set(s, SSH_OPTIONS_NODELAY, &one);
	ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");   /* we check keys ourselves, in memory */
	ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
	if (ssh_options_get(s, SSH_OPTIONS_HOST, &str) == SSH_OK && str) {
		ssh_options_get_port(s, &port);
		hostkeys_algorithms(inv->keys, str, (int)port, algs, sizeof algs);
		ssh_options_set(s, SSH_OPTIONS_HOSTKEYS, algs);
		ssh_string_free_char(str);
	}
	return rc ? -1 : 0;
}

static void step_auth(struct ssh_host *h);

static void record_key(struct ssh_host *h, const char *name, const char *type, const char *b64)
{
	const char *path = h->pool->inv->known_hosts_out;
	FILE *f = path ? fopen(path, "a") : NULL;
	char *err = NULL;

	hostkeys_add(h->pool->inv->keys, name, type, b64, &err);
	free(err);
	if (f) {   /* hashed, as OpenSSH's HashKnownHosts (Debian's default) writes it */
		char hashed[80];

		fprintf(f, "%s %s %s\n", hk_hash_name(name, hashed, sizeof hashed) ? name : hashed, type, b64);
		fclose(f);
	}
	pool_log(h->pool, "%s: accepted the new host key of %s (%s)%s%s", h->t.name, name, type,
		 f ? ", recorded in " : ", in memory only", f ? path : "");
}

/* 0 if the server's key is trusted; else the host has failed. */
static int check_hostkey(struct ssh_host *h)
{
	ssh_key key = NULL;
	char *b64 = NULL, *host = NULL, *fp = NULL, name[300], msg[400];
	unsigned char *hash = NULL;
	size_t hlen = 0;
	unsigned int port = 22;
	int r = -1, state = CONN_HOSTKEY_CHANGED;

	if (ssh_get_server_publickey(h->s, &key) != SSH_OK || ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK ||
	    (h->keyhost ? !(host = xstrdup(h->keyhost)) : ssh_options_get(h->s, SSH_OPTIONS_HOST, &host) != SSH_OK)) {
		snprintf(msg, sizeof msg, "cannot read the server's host key");
		goto out;
	}
	ssh_options_get_port(h->s, &port);
	hostkeys_name(host, (int)port, name, sizeof name);
	const char *type = ssh_key_type_to_char(ssh_key_type(key));

	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0)
		fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	switch (hostkeys_check(h->pool->inv->keys, host, (int)port, type ? type : "?", b64)) {
	case HK_OK:
		r = 0;
		break;
	case HK_UNKNOWN:
		if (h->pool->inv->accept_new) {
			record_key(h, name, type, b64);
			r = 0;
			break;
		}
		state = CONN_HOSTKEY_UNKNOWN;
		snprintf(msg, sizeof msg, "unknown host key for %.200s (%s %.60s): refused; trust it with a hostkey line, "
			 "known_hosts, or ssh -accept-new yes", name, type, fp ? fp : "");
		break;
	case HK_REVOKED:
		snprintf(msg, sizeof msg, "REVOKED host key offered by %.200s (%s %.60s): refused", name, type, fp ? fp : "");
		break;
	default:
		snprintf(msg, sizeof msg, "HOST KEY CHANGED for %.200s: it offers %s %.60s, not the key on record; refused "
			 "(possible man-in-the-middle; verify out of band)", name, type, fp ? fp : "");
		break;
	}
out:
	if (r < 0)
		host_fail(h, state, msg);
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_string_free_char(host);
	ssh_string_free_char(b64);
	ssh_key_free(key);
	return r;
}

static void step_connect(struct ssh_host *h)
{
	int rc;

	quickack(h->fd);
	rc = ssh_connect(h->s);
	if (h->fd < 0)
		h->fd = ssh_get_fd(h->s);
	if (rc == SSH_AGAIN) {
		host_watch(h);
		return;
	}
	if (rc != SSH_OK) {
		host_fail(h, CONN_UNREACHABLE, ssh_get_error(h->s));
		return;
	}
	if (check_hostkey(h) < 0)
		return;
	h->phase = PH_AUTH;
	h->deadline = mono_us() + pool_connect_timeout(h->pool);   /* authentication gets its own */
	step_auth(h);
}

static void host_up(struct ssh_host *h)
{
	struct ssh_pool *p = h->pool;

	p->inflight--;
	p->handshakes_done++;
	h->phase = PH_UP;
	h->up_since = mono_us();
	h->ev = ssh_event_new();
	ssh_event_add_session(h->ev, h->s);
	set_state(h, CONN_UP, "");
	if (h->phase == PH_UP && p->ops->up && !h->gateway)
		p->ops->up(p->ctx, h);
	if (h->phase == PH_UP && h->gateway)
		gateway_pump(h);   /* the nodes waiting for it */
	if (h->phase == PH_UP) {
		chan_pump(h);
		host_watch(h);
	}
}

static void step_auth(struct ssh_host *h)
{
	ssh_key key = h->t.identity ? identity_key(h->pool, h->t.identity) : NULL;
	char *user = NULL, msg[256];
	int rc;

	quickack(h->fd);
	rc = key ? ssh_userauth_publickey(h->s, NULL, key) : ssh_userauth_publickey_auto(h->s, NULL, NULL);
	switch (rc) {
	case SSH_AUTH_AGAIN:
		host_watch(h);
		break;
	case SSH_AUTH_SUCCESS:
		host_up(h);
		break;
	case SSH_AUTH_DENIED:
	case SSH_AUTH_PARTIAL:
		ssh_options_get(h->s, SSH_OPTIONS_USER, &user);
		snprintf(msg, sizeof msg, "public key authentication refused for user %s (%s)", user ? user : "?",
			 h->t.identity ? h->t.identity : "agent and default keys");
		ssh_string_free_char(user);
		host_fail(h, CONN_AUTH_FAILED, msg);
		break;
	default:
		host_fail(h, CONN_CLOSED, ssh_get_error(h->s));
		break;
	}
}

/* The name is looked up here, not in ssh_connect (which would block the
 * loop on a slow DNS server); the connection then goes to the address and
 * the host key is checked under the name. RES_WAIT: the timer asks again. */
static void step_resolve(struct ssh_host *h)
{
	char *host = NULL, *proxy = NULL, addr[64], why[300];
	int r = RES_DONE;

	if (ssh_options_get(h->s, SSH_OPTIONS_PROXYCOMMAND, &proxy) != SSH_OK &&   /* a proxy resolves */
	    ssh_options_get(h->s, SSH_OPTIONS_HOST, &host) == SSH_OK && host) {
		r = resolver_get(h->pool->res, host, addr, sizeof addr, why, sizeof why);
		if (r == RES_DONE && strcmp(addr, host)) {
			free(h->keyhost);
			h->keyhost = xstrdup(host);
			ssh_options_set(h->s, SSH_OPTIONS_HOST, addr);
		}
	}
	ssh_string_free_char(host);
	ssh_string_free_char(proxy);
	h->resolving = r == RES_WAIT;
	if (r == RES_FAIL) {
		host_fail(h, CONN_UNREACHABLE, why);
	} else if (r == RES_DONE) {
		ssh_set_blocking(h->s, 0);
		step_connect(h);
	}
}

static void start_host(struct ssh_host *h)
{
	struct ssh_pool *p = h->pool;

	h->s = ssh_new();
	h->fd = -1;
	h->phase = PH_CONNECTING;
	h->resolving = 0;
	p->inflight++;
	p->busy++;
	h->deadline = mono_us() + pool_connect_timeout(p);
	set_state(h, CONN_CONNECTING, "");
	if (!h->s || configure(h, h->s) < 0) {
		host_fail(h, CONN_UNREACHABLE, h->s ? ssh_get_error(h->s) : "cannot create a session");
		return;
	}
	if (h->t.via)
		gateway_link_via(h);   /* connects when the gateway's channel opens */
	else if (!gateway_from_config(h))   /* an ssh_config ProxyJump of one hop: the same */
		step_resolve(h);
}

void host_connect(struct ssh_host *h)
{
	ssh_set_blocking(h->s, 0);
	step_connect(h);
}

void host_start_now(struct ssh_host *h)
{
	if (h->phase == PH_IDLE || h->phase == PH_QUEUED)
		start_host(h);
}

/* ---- dispatch ---- */

/* Deferred work: failures found while channels were pumped, closes asked for in callbacks. */
static void settle(struct ssh_host *h)
{
	if (h->fail_state) {
		int st = h->fail_state;

		if (h->phase == PH_UP || h->phase == PH_CONNECTING || h->phase == PH_AUTH)
			host_fail(h, st, h->fail_why);
		h->fail_state = 0;
	}
	if (h->phase == PH_UP && h->s && (!ssh_is_connected(h->s) || (ssh_get_status(h->s) & (SSH_CLOSED | SSH_CLOSED_ERROR)))) {
		char why[256];

		snprintf(why, sizeof why, "connection lost: %s", ssh_get_error(h->s));
		host_fail(h, CONN_CLOSED, why);
	}
	if (h->want_close && h->phase != PH_DONE) {
		if (h->phase != PH_IDLE && h->phase != PH_QUEUED)
			teardown(h, "disconnected", 0);
		set_state(h, CONN_CLOSED, "disconnected");
		finished(h);
	}
	if (h->phase == PH_UP)
		host_watch(h);
}

static void on_fd(void *ctx, int fd, int events)
{
	struct ssh_host *h = ctx;

	(void)fd;
	(void)events;
	h->pool->in_dispatch++;
	switch (h->phase) {
	case PH_CONNECTING:
		step_connect(h);
		break;
	case PH_AUTH:
		step_auth(h);
		break;
	case PH_UP:
		if (chan_needs_handshake(h))
			quickack(h->fd);
		h->pool->in_libssh++;
		ssh_event_dopoll(h->ev, 0);
		h->pool->in_libssh--;
		chan_pump(h);
		if (h->gateway)
			gateway_pump(h);
		break;
	default:
		unwatch(h);   /* should not happen: nothing to read */
		break;
	}
	settle(h);
	start_queued(h->pool);   /* a handshake ended: the next host may start now */
	h->pool->in_dispatch--;
}

static void enqueue(struct ssh_pool *p, struct ssh_host *h)
{
	if (p->qlen == p->qcap) {
		int *q = xmalloc(sizeof *q * (size_t)(p->qcap ? p->qcap * 2 : 64));

		for (int i = 0; i < p->qlen; i++)
			q[i] = p->queue[(p->qhead + i) % p->qcap];
		free(p->queue);
		p->queue = q;
		p->qhead = 0;
		p->qcap = p->qcap ? p->qcap * 2 : 64;
	}
	p->queue[(p->qhead + p->qlen++) % p->qcap] = h->index;
	h->phase = PH_QUEUED;
}

static void start_queued(struct ssh_pool *p)
{
	while (p->qlen > 0 && p->inflight < (p->handshakes ? p->handshakes : p->inv->handshakes) && (!p->max_busy || p->busy < p->max_busy)) {
		struct ssh_host *h = p->hosts[p->queue[p->qhead]];

		p->qhead = (p->qhead + 1) % p->qcap;
		p->qlen--;
		if (h->phase == PH_QUEUED)
			start_host(h);
	}
}

static void check_host(struct ssh_pool *p, struct ssh_host *h, int64_t now)
{
	char msg[128];

	switch (h->phase) {
	case PH_IDLE:
		if (now >= h->retry_at && !h->gateway)   /* a gateway starts when a node needs it */
			enqueue(p, h);
		break;
	case PH_CONNECTING:
	case PH_AUTH:
		if (h->resolving)
			step_resolve(h);
		if ((h->phase == PH_CONNECTING || h->phase == PH_AUTH) && now > h->deadline) {
			snprintf(msg, sizeof msg, "no answer within %.0f s while %s",
				 (double)pool_connect_timeout(p) / US_PER_SEC,
				 h->resolving ? "resolving its name"
				 : h->phase == PH_AUTH ? "authenticating"
				 : h->link && h->fd < 0 ? "waiting for its gateway" : "connecting");
			if (h->resolving)
				resolver_unanswered(p->res);
			host_fail(h, CONN_TIMEOUT, msg);
		}
		break;
	case PH_UP:
		for (struct ssh_chan *c = h->chans; c; c = c->next)
			chan_check_time(c, now);
		chan_pump(h);
		if (h->gateway)
			gateway_pump(h);
		break;
	default:
		break;
	}
	settle(h);
}

static void on_timer(void *ctx, int64_t id)
{
	struct ssh_pool *p = ctx;
	int64_t now = mono_us();

	(void)id;
	p->in_dispatch++;
	for (int i = 0; i < p->nhosts; i++)
		check_host(p, p->hosts[i], now);
	start_queued(p);
	p->in_dispatch--;
}

/* ---- the public face ---- */

struct ssh_pool *pool_new(struct loop *l, struct inventory *inv, const struct pool_ops *ops, void *ctx,
			  int reconnect, int max_busy)
{
	struct ssh_pool *p = xcalloc(1, sizeof *p);

	p->loop = l;
	p->inv = inv;
	p->ops = ops;
	p->ctx = ctx;
	p->reconnect = reconnect;
	p->max_busy = max_busy;
	rng_seed(&p->rng, (uint64_t)wall_us() ^ (uint64_t)getpid() << 32);
	inventory_load_keys(inv);
	if (inv->log && !(p->log = fopen(inv->log, "a")))
		fprintf(stderr, "myriad: ssh -log %s: cannot open\n", inv->log);
	p->res = resolver_new();
	p->timer = loop_timer(l, 0, TIMER_MS, on_timer, p);
	return p;
}

void pool_set_limits(struct ssh_pool *p, int64_t connect_timeout_us, int handshakes)
{
	p->connect_timeout_us = connect_timeout_us;
	p->handshakes = handshakes;
}

void pool_free(struct ssh_pool *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nhosts; i++) {
		struct ssh_host *h = p->hosts[i];

		if (h->phase != PH_IDLE && h->phase != PH_QUEUED && h->phase != PH_DONE)
			teardown(h, "shutting down", 0);
		free(h->keyhost);
		free(h->gwname);
		free(h->gwstr[0]);
		free(h->gwstr[1]);
		free(h);
	}
	for (int i = 0; i < p->nkeys; i++) {
		free(p->keys[i].path);
		ssh_key_free(p->keys[i].key);
	}
	if (p->loop)
		loop_timer_cancel(p->loop, p->timer);
	if (p->log)
		fclose(p->log);
	resolver_free(p->res);
	free(p->keys);
	free(p->hosts);
	free(p->queue);
	free(p);
}

static struct ssh_host *new_host(struct ssh_pool *p, const struct inv_target *t, void *udata)
{
	struct ssh_host *h = xcalloc(1, sizeof *h);

	if (p->nhosts == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->hosts = xrealloc(p->hosts, sizeof *p->hosts * (size_t)p->cap);
	}
	h->pool = p;
	h->t = *t;
	h->udata = udata;
	h->index = p->nhosts;
	h->fd = -1;
	h->state = CONN_NONE;
	p->hosts[p->nhosts++] = h;
	return h;
}

struct ssh_host *pool_add(struct ssh_pool *p, const struct inv_target *t, void *udata)
{
	struct ssh_host *h = new_host(p, t, udata);

	p->pending++;
	enqueue(p, h);
	return h;
}

/* A gateway of -via: a host like the others, but nobody outside the pool
 * hears of it, it is not pending, and the first node that needs it starts it. */
struct ssh_host *pool_add_gateway(struct ssh_pool *p, const struct inv_target *t, const char *key)
{
	struct ssh_host *h = new_host(p, t, NULL);

	h->gateway = 1;
	h->gwname = xstrdup(key);
	h->gwstr[0] = xstrdup(t->name ? t->name : key);   /* t may be the caller's: keep our own copies */
	h->gwstr[1] = t->user ? xstrdup(t->user) : NULL;
	h->t.name = h->gwstr[0];
	h->t.user = h->gwstr[1];
	h->phase = PH_IDLE;
	return h;
}

void pool_disconnect(struct ssh_host *h)
{
	h->want_close = 1;
	if (!h->pool->in_dispatch) {
		settle(h);
		start_queued(h->pool);
	}
}

int pool_pending(const struct ssh_pool *p) { return p->pending; }
const char *host_name(const struct ssh_host *h) { return h->t.name; }
void *host_udata(const struct ssh_host *h) { return h->udata; }
int host_state(const struct ssh_host *h) { return h->state; }
int host_is_up(const struct ssh_host *h) { return h->phase == PH_UP; }
const char *host_detail(const struct ssh_host *h) { return h->detail; }

void pool_stats(const struct ssh_pool *p, struct pool_stats *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < p->nhosts; i++) {
		if (p->hosts[i]->gateway)
			continue;
		s->hosts++;
		s->up += p->hosts[i]->phase == PH_UP;
		s->connecting += p->hosts[i]->phase == PH_CONNECTING || p->hosts[i]->phase == PH_AUTH;
		s->channels += p->hosts[i]->nchans;
	}
	s->handshakes_done = p->handshakes_done;
	s->failures = p->failures;
}
