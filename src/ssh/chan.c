/*
 * chan.c - exec channels of the session pool (see pool.h): open and exec
 * without blocking, output through libssh's channel callbacks straight to
 * the caller, exit status, deadlines and silence, and a cleanup that never
 * frees a channel while libssh is still inside it (closing is deferred to
 * the pump that runs after each read).
 */
#include <stdio.h>
#include <string.h>
#include "pool_int.h"

static int cb_data(ssh_session s, ssh_channel ch, void *data, uint32_t len, int is_stderr, void *ud)
{
	struct ssh_chan *c = ud;

	(void)s;
	(void)ch;
	if (!c->cancelled && !c->failed) {
		c->last_data = mono_us();
		c->ops->data(c->ctx, c, data, len, is_stderr);
	}
	return (int)len;
}

static void cb_eof(ssh_session s, ssh_channel ch, void *ud)
{
	(void)s;
	(void)ch;
	((struct ssh_chan *)ud)->eof = 1;
}

static void cb_close(ssh_session s, ssh_channel ch, void *ud)
{
	(void)s;
	(void)ch;
	((struct ssh_chan *)ud)->closed = 1;
}

static void cb_exit_status(ssh_session s, ssh_channel ch, int status, void *ud)
{
	(void)s;
	(void)ch;
	((struct ssh_chan *)ud)->exit_status = status;
}

static void cb_exit_signal(ssh_session s, ssh_channel ch, const char *sig, int core, const char *msg,
			   const char *lang, void *ud)
{
	struct ssh_chan *c = ud;

	(void)s;
	(void)ch;
	(void)core;
	(void)msg;
	(void)lang;
	snprintf(c->signal, sizeof c->signal, "%s", sig ? sig : "?");
}

static void fail(struct ssh_chan *c, const char *why)
{
	if (c->failed)
		return;
	c->failed = 1;
	snprintf(c->why, sizeof c->why, "%s", why);
}

static void host_must_fail(struct ssh_host *h, int state, const char *why)
{
	if (!h->fail_state) {
		h->fail_state = state;
		snprintf(h->fail_why, sizeof h->fail_why, "%s", why);
	}
}

static void advance(struct ssh_chan *c)
{
	struct ssh_host *h = c->host;
	char why[160];
	int rc;

	if (c->step == CH_OPENING) {
		rc = ssh_channel_open_session(c->ch);
		if (rc == SSH_AGAIN)
			return;
		if (rc != SSH_OK) {
			snprintf(why, sizeof why, "cannot open a channel: %s", ssh_get_error(h->s));
			fail(c, why);
			return;
		}
		c->step = CH_EXEC;
	}
	if (c->step == CH_EXEC) {
		rc = ssh_channel_request_exec(c->ch, c->command);
		if (rc == SSH_AGAIN)
			return;
		if (rc != SSH_OK) {
			snprintf(why, sizeof why, "the server refused to run the command: %s", ssh_get_error(h->s));
			fail(c, why);
			return;
		}
		c->step = CH_RUNNING;
		c->last_data = mono_us();
	}
}

static void destroy(struct ssh_chan *c)
{
	struct ssh_host *h = c->host;

	if (c->ch) {
		ssh_remove_channel_callbacks(c->ch, &c->cb);
		if (!c->closed && c->step == CH_RUNNING && h->s && ssh_is_connected(h->s))
			ssh_channel_request_send_signal(c->ch, "TERM");   /* best effort: a hung command */
		ssh_channel_free(c->ch);   /* libssh sends the close and keeps it until the peer's */
	}
	h->nchans--;
	free(c->command);
	free(c);
}

static void report(struct ssh_chan *c)
{
	char why[160];
	int status = -1;

	if (c->failed) {
		snprintf(why, sizeof why, "%s", c->why);
	} else if (c->exit_status >= 0) {
		status = c->exit_status;
		why[0] = '\0';
	} else if (c->signal[0]) {
		snprintf(why, sizeof why, "killed by signal %s", c->signal);
	} else {
		snprintf(why, sizeof why, "closed without an exit status");
	}
	c->ops->done(c->ctx, c, status, status >= 0 ? NULL : why);
}

void chan_pump(struct ssh_host *h)
{
	struct ssh_chan **pp = &h->chans;

	while (*pp) {
		struct ssh_chan *c = *pp;

		if (!c->cancelled && !c->failed && c->step < CH_RUNNING && h->phase == PH_UP)
			advance(c);
		if (c->cancelled || c->closed || c->failed) {
			*pp = c->next;
			if (!c->cancelled)
				report(c);
			destroy(c);
			continue;
		}
		pp = &c->next;
	}
}

int chan_needs_handshake(const struct ssh_host *h)
{
	for (const struct ssh_chan *c = h->chans; c; c = c->next)
		if (c->step < CH_RUNNING)
			return 1;
	return 0;
}

void chan_check_time(struct ssh_chan *c, int64_t now)
{
	char why[96];

	if (c->cancelled || c->closed || c->failed)
		return;
	if (c->step < CH_RUNNING && now > c->step_deadline) {
		host_must_fail(c->host, CONN_TIMEOUT, "the session stopped answering (channel open or exec)");
	} else if (c->deadline && now > c->deadline) {
		snprintf(why, sizeof why, "timed out after %.1f s", (double)(c->deadline - c->started) / US_PER_SEC);
		fail(c, why);
	} else if (c->silence && c->step == CH_RUNNING && now - c->last_data > c->silence) {
		snprintf(why, sizeof why, "silent for %.0f s", (double)c->silence / US_PER_SEC);
		fail(c, why);
	}
}

void chan_fail_all(struct ssh_host *h, const char *why)
{
	while (h->chans) {
		struct ssh_chan *c = h->chans;

		h->chans = c->next;
		if (!c->cancelled) {
			fail(c, why);
			report(c);
		}
		destroy(c);
	}
}

struct ssh_chan *pool_exec(struct ssh_host *h, const char *command, const struct chan_ops *ops, void *ctx)
{
	struct ssh_chan *c;
	int64_t now = mono_us();

	if (h->phase != PH_UP || !h->s)
		return NULL;
	c = xcalloc(1, sizeof *c);
	c->ch = ssh_channel_new(h->s);
	if (!c->ch) {
		free(c);
		return NULL;
	}
	c->host = h;
	c->ops = ops;
	c->ctx = ctx;
	c->command = xstrdup(command);
	c->exit_status = -1;
	c->step = CH_OPENING;
	c->started = c->last_data = now;
	c->step_deadline = now + pool_connect_timeout(h->pool);
	ssh_callbacks_init(&c->cb);
	c->cb.userdata = c;
	c->cb.channel_data_function = cb_data;
	c->cb.channel_eof_function = cb_eof;
	c->cb.channel_close_function = cb_close;
	c->cb.channel_exit_status_function = cb_exit_status;
	c->cb.channel_exit_signal_function = cb_exit_signal;
	ssh_set_channel_callbacks(c->ch, &c->cb);
	c->next = h->chans;
	h->chans = c;
	h->nchans++;
	if (!h->pool->in_libssh) {
		quickack(h->fd);
		advance(c);
		host_watch(h);
	}
	return c;
}

void chan_set_timeouts(struct ssh_chan *c, int64_t total_us, int64_t silence_us)
{
	int64_t now = mono_us();

	c->deadline = total_us > 0 ? now + total_us : 0;
	c->silence = silence_us > 0 ? silence_us : 0;
	c->last_data = now;
}

void chan_close(struct ssh_chan *c)
{
	c->cancelled = 1;   /* freed by the next pump, never inside libssh */
}

struct ssh_host *chan_host(const struct ssh_chan *c) { return c->host; }
int chan_opened(const struct ssh_chan *c) { return c->step != CH_OPENING; }
