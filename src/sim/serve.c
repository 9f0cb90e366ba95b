/*
 * serve.c - `myriad-sim serve` (see serve.h): keys, the listening socket,
 * sessions with non-blocking key exchange, server and channel callbacks, the
 * one-second simulator step, output flow control, and the configuration
 * file for myriad.
 *
 * Everything runs on myriad's epoll loop. Each session has an ssh_event of
 * its own, so a wake-up touches one session, and so a session replying
 * (send_eof, close: libssh polls the event inside them) never processes
 * another session's packets (myriad-design(7), FACTS: SSH at fleet scale: with one shared event that lost
 * replies). Callbacks only record what happened; replies are written after
 * the event returns.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "serve_int.h"

#define KEX_TIMEOUT_US (30 * US_PER_SEC)

static void on_sess_fd(void *ctx, int fd, int events);

/* ---- callbacks: record only ---- */

static int cb_chan_data(ssh_session s, ssh_channel ch, void *data, uint32_t len, int is_stderr, void *ud)
{
	(void)s, (void)ch, (void)data, (void)is_stderr, (void)ud;
	return (int)len;   /* the simulated commands read no input */
}

static void cb_chan_close(ssh_session s, ssh_channel ch, void *ud)
{
	(void)s, (void)ch;
	((struct schan *)ud)->closed = 1;
}

static int cb_exec(ssh_session s, ssh_channel ch, const char *command, void *ud)
{
	struct schan *c = ud;

	(void)s, (void)ch;
	if (c->cmd || c->kind != CK_NONE)
		return 1;
	c->cmd = xstrdup(command);
	return 0;
}

static int cb_env(ssh_session s, ssh_channel ch, const char *name, const char *value, void *ud)
{
	(void)s, (void)ch, (void)name, (void)value, (void)ud;
	return 0;   /* accepted and ignored (OpenSSH sends LANG) */
}

static int cb_deny_shell(ssh_session s, ssh_channel ch, void *ud)
{
	(void)s, (void)ch, (void)ud;
	return 1;
}

static int cb_deny_pty(ssh_session s, ssh_channel ch, const char *term, int w, int h, int pw, int ph, void *ud)
{
	(void)s, (void)ch, (void)term, (void)w, (void)h, (void)pw, (void)ph, (void)ud;
	return 1;
}

static int cb_deny_subsystem(ssh_session s, ssh_channel ch, const char *sub, void *ud)
{
	(void)s, (void)ch, (void)sub, (void)ud;
	return 1;
}

static ssh_channel cb_open_session(ssh_session s, void *ud)
{
	struct sess *se = ud;
	struct schan *c;

	if (se->node == -1)
		return NULL;
	c = xcalloc(1, sizeof *c);
	c->sess = se;
	c->ch = ssh_channel_new(s);
	if (!c->ch) {
		free(c);
		return NULL;
	}
	ssh_callbacks_init(&c->cb);
	c->cb.userdata = c;
	c->cb.channel_data_function = cb_chan_data;
	c->cb.channel_close_function = cb_chan_close;
	c->cb.channel_exec_request_function = cb_exec;
	c->cb.channel_env_request_function = cb_env;
	c->cb.channel_shell_request_function = cb_deny_shell;
	c->cb.channel_pty_request_function = cb_deny_pty;
	c->cb.channel_subsystem_request_function = cb_deny_subsystem;
	ssh_set_channel_callbacks(c->ch, &c->cb);
	c->next = se->chans;
	se->chans = c;
	return c->ch;
}

static int cb_auth_pubkey(ssh_session s, const char *user, struct ssh_key_struct *key, char state, void *ud)
{
	struct sess *se = ud;
	int node = srv_node_of(se->srv, user);

	(void)s;
	if (node == -1 || ssh_key_cmp(key, se->srv->client, SSH_KEY_CMP_PUBLIC) != 0)
		return SSH_AUTH_DENIED;
	if (state == SSH_PUBLICKEY_STATE_NONE)
		return SSH_AUTH_SUCCESS;   /* "this key would do": the client signs next */
	if (state != SSH_PUBLICKEY_STATE_VALID)
		return SSH_AUTH_DENIED;
	se->node = node;
	se->srv->logins++;
	snprintf(se->user, sizeof se->user, "%s", user);
	return SSH_AUTH_SUCCESS;
}

/* ---- channels: output, the end of a command, cleanup ---- */

static void chan_flush(struct schan *c)
{
	while (c->off < c->out.len && !c->dead) {
		uint32_t win = ssh_channel_window_size(c->ch);
		size_t n = MIN((size_t)win, MIN(c->out.len - c->off, (size_t)65536));
		int rc;

		if (n == 0)
			return;
		rc = ssh_channel_write(c->ch, c->out.s + c->off, (uint32_t)n);
		if (rc == SSH_ERROR) {
			c->dead = 1;
			return;
		}
		if (rc == 0)
			return;
		c->off += (size_t)rc;
	}
	if (c->off == c->out.len && c->out.len) {
		sbuf_reset(&c->out);
		c->off = 0;
	}
	if (c->finishing == 1 && c->off == c->out.len) {
		ssh_channel_request_send_exit_status(c->ch, c->status);
		ssh_channel_send_eof(c->ch);
		ssh_channel_close(c->ch);
		c->finishing = 2;
	}
}

static void chan_free(struct schan *c)
{
	chan_unsubscribe(c);
	if (c->ch) {
		ssh_remove_channel_callbacks(c->ch, &c->cb);
		ssh_channel_free(c->ch);
	}
	sbuf_free(&c->out);
	free(c->cmd);
	free(c);
}

/* Handles exec requests, writes what is pending, ends finished commands. */
static void sess_work(struct sess *se)
{
	int64_t now = mono_us();

	for (struct schan **pp = &se->chans; *pp;) {
		struct schan *c = *pp;

		if (c->cmd && !c->closed)
			chan_start(c);
		if (c->kind == CK_SLEEP && now >= c->wake) {
			c->kind = CK_ONESHOT;
			c->status = 0;
			c->finishing = 1;
		}
		if (!c->closed && !c->dead)
			chan_flush(c);
		if (c->closed || c->dead || c->finishing == 2) {
			*pp = c->next;
			chan_free(c);
			continue;
		}
		pp = &c->next;
	}
}

static void sess_watch(struct sess *se)
{
	int want = LOOP_READ | (ssh_get_poll_flags(se->s) & SSH_WRITE_PENDING ? LOOP_WRITE : 0);

	if (want == se->watched)
		return;
	if (loop_watch(se->srv->loop, se->fd, want, on_sess_fd, se) < 0)
		se->dead = 1;
	se->watched = want;
}

static void sess_free(struct sess *se)
{
	struct srv *srv = se->srv;

	for (struct sess **pp = &srv->sessions; *pp; pp = &(*pp)->next)
		if (*pp == se) {
			*pp = se->next;
			break;
		}
	srv->nsessions--;
	while (se->chans) {
		struct schan *c = se->chans;

		se->chans = c->next;
		chan_free(c);
	}
	loop_unwatch(srv->loop, se->fd, se);
	ssh_event_remove_session(se->ev, se->s);
	ssh_event_free(se->ev);
	ssh_disconnect(se->s);
	ssh_free(se->s);
	free(se);
}


/* libssh closes a failed session's socket itself (a write to a peer that
 * left, a disconnect message), so the number may already belong to a newer
 * session: a closed session is freed before the loop sleeps again. */
static int sess_alive(struct sess *se)
{
	return !se->dead && ssh_is_connected(se->s) && ssh_get_fd(se->s) == se->fd &&
	       !(ssh_get_status(se->s) & (SSH_CLOSED | SSH_CLOSED_ERROR));
}

/* After work on a session: free it if it ended, or watch what it needs. */
static void sess_settle(struct sess *se)
{
	if (sess_alive(se))
		sess_watch(se);
	if (!sess_alive(se))
		sess_free(se);
}

static void on_sess_fd(void *ctx, int fd, int events)
{
	struct sess *se = ctx;

	(void)fd, (void)events;
	if (ssh_event_dopoll(se->ev, 0) == SSH_ERROR && !ssh_is_connected(se->s))
		se->dead = 1;
	if (!se->kex_done && !se->dead) {
		int rc = ssh_handle_key_exchange(se->s);

		if (rc == SSH_OK)
			se->kex_done = 1;
		else if (rc == SSH_ERROR)
			se->dead = 1;
	}
	if (!sess_alive(se)) {
		sess_free(se);
		return;
	}
	sess_work(se);
	sess_settle(se);
}

/* ---- accepting ---- */

static void accept_one(struct srv *srv, ssh_session s)
{
	struct sess *se = xcalloc(1, sizeof *se);
	int one = 1;

	se->srv = srv;
	se->s = s;
	se->node = -1;
	se->deadline = mono_us() + KEX_TIMEOUT_US;
	ssh_callbacks_init(&se->cb);
	se->cb.userdata = se;
	se->cb.auth_pubkey_function = cb_auth_pubkey;
	se->cb.channel_open_request_session_function = cb_open_session;
	ssh_set_server_callbacks(s, &se->cb);
	ssh_set_auth_methods(s, SSH_AUTH_METHOD_PUBLICKEY);
	ssh_set_blocking(s, 0);
	se->fd = ssh_get_fd(s);
	setsockopt(se->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);   /* small replies: no Nagle stalls */
	se->next = srv->sessions;
	srv->sessions = se;
	srv->nsessions++;
	srv->accepted++;
	int rc = ssh_handle_key_exchange(s);

	se->ev = ssh_event_new();
	ssh_event_add_session(se->ev, s);
	if (rc == SSH_ERROR) {
		sess_free(se);
		return;
	}
	se->kex_done = rc == SSH_OK;
	sess_settle(se);
}

void srv_on_bind(void *ctx, int fd, int events)
{
	struct srv *srv = ctx;

	(void)fd, (void)events;
	for (int i = 0; i < 256; i++) {
		ssh_session s = ssh_new();

		if (!s)
			return;
		if (ssh_bind_accept(srv->bind, s) != SSH_OK) {   /* EAGAIN: no more waiting */
			ssh_free(s);
			return;
		}
		accept_one(srv, s);
	}
}

/* ---- time ---- */

void srv_on_step(void *ctx, int64_t id)
{
	struct srv *srv = ctx;
	struct sim_sink sink = {srv, srv_sim_text};

	(void)id;
	sim_step(srv->sim, &sink);
	for (struct sess *se = srv->sessions, *next; se; se = next) {
		next = se->next;
		sess_work(se);
		sess_settle(se);
	}
}

void srv_on_housekeeping(void *ctx, int64_t id)
{
	struct srv *srv = ctx;
	int64_t now = mono_us();

	(void)id;
	for (struct sess *se = srv->sessions, *next; se; se = next) {
		next = se->next;
		if (se->node == -1 && now > se->deadline) {
			sess_free(se);
			continue;
		}
		for (struct schan *c = se->chans; c; c = c->next)
			if (c->kind == CK_SLEEP && now >= c->wake) {
				sess_work(se);
				sess_settle(se);
				break;
			}
	}
}

/* An injected fault's lines leave now rather than at the next step: the
 * sessions logged in as that node (every session if node < 0) write what
 * they have queued. */
void srv_kick(struct srv *srv, int node)
{
	for (struct sess *se = srv->sessions, *next; se; se = next) {
		next = se->next;
		if (node >= 0 && se->node != node)
			continue;
		sess_work(se);
		sess_settle(se);
	}
}

void srv_free_sessions(struct srv *srv)
{
	while (srv->sessions)
		sess_free(srv->sessions);
}
