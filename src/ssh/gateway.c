/*
 * gateway.c - nodes behind a gateway (`host NODESET -via GW`): one SSH
 * session to the gateway carries every node's connection as a direct-tcpip
 * channel, inside this process (myriad-design(7), FACTS: SSH at fleet scale: ProxyJump's `ssh -W` costs one
 * OpenSSH process per node, ~1.4 MB each, not an option for 1,280 nodes).
 *
 * Each node's own libssh session runs over one end of a socketpair
 * (SSH_OPTIONS_FD); a link pumps bytes between the other end and the
 * forwarded channel: channel -> socket from libssh's data callback (kept in
 * a buffer when the socket is full), socket -> channel when the socket is
 * readable and the channel's window allows. The node's host key and login
 * are checked end to end as for a direct connection; the gateway is an
 * ordinary pool host (its own key check, auth, backoff) that nobody outside
 * the pool sees.
 *
 * A tunnel (pool_tunnel) is a link without a node: a plugin reaching a
 * service (a Prometheus server) through a host's session gets the other
 * end of the socketpair at once; what it writes waits in the socket until
 * the channel opens, and when the channel ends its end reads EOF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "pool_int.h"
#include "inventory.h"

#define TO_NODE_MAX ((size_t)8 << 20)   /* a node that stops reading this long is cut */

struct ssh_link {
	struct ssh_link *next;     /* on the gateway's list */
	struct ssh_host *gw, *node;   /* node NULL: a tunnel */
	struct ssh_pool *pool;
	char *dest;                /* a tunnel's destination host and port */
	int dport;
	ssh_channel ch;
	struct ssh_channel_callbacks_struct cb;
	int fd;                    /* our end of the node session's socket, -1 before the channel opens */
	int opened, eof, closed, dead, watched;
	int need;                  /* gateway_pump must look at it (opening, eof, window full, reap) */
	char why[160];             /* why it died, for the node */
	struct sbuf to_node;       /* from the channel, not yet written to fd */
	size_t to_node_off;
	char up[16384];            /* from fd, not yet written to the channel */
	size_t up_len, up_off;
};

static void link_watch(struct ssh_link *k);

/* Only flagged links are visited after a gateway packet: visiting all 1,280
 * with a read() each made the console spin. */
static void flag(struct ssh_link *k)
{
	if (!k->need && k->gw) {
		k->need = 1;
		k->gw->link_work++;
	}
}

static void link_die(struct ssh_link *k, const char *why)
{
	if (k->dead)
		return;
	k->dead = 1;
	flag(k);   /* to be reaped */
	snprintf(k->why, sizeof k->why, "%s", why);
	if (k->fd >= 0) {
		if (k->watched)
			loop_unwatch(k->pool->loop, k->fd, k);
		close(k->fd);   /* the node's session sees the end of its connection */
		k->fd = -1;
	}
	if (k->node && !k->node->fail_state) {   /* settle() or the timer fails it */
		k->node->fail_state = CONN_UNREACHABLE;
		snprintf(k->node->fail_why, sizeof k->node->fail_why, "via %s: %s", k->gw ? k->gw->gwname : "?", why);
	}
}

/* ---- channel -> node ---- */

static void flush_to_node(struct ssh_link *k)
{
	while (k->fd >= 0 && k->to_node_off < k->to_node.len) {
		ssize_t w = write(k->fd, k->to_node.s + k->to_node_off, k->to_node.len - k->to_node_off);

		if (w < 0) {
			if (errno != EAGAIN && errno != EINTR)
				link_die(k, "the node's session is gone");
			break;
		}
		k->to_node_off += (size_t)w;
	}
	if (k->to_node_off == k->to_node.len) {
		sbuf_reset(&k->to_node);
		k->to_node_off = 0;
	}
}

static int cb_data(ssh_session s, ssh_channel ch, void *data, uint32_t len, int is_stderr, void *ud)
{
	struct ssh_link *k = ud;

	(void)s, (void)ch;
	if (k->dead || is_stderr)
		return (int)len;
	if (k->to_node.len - k->to_node_off + len > TO_NODE_MAX) {
		link_die(k, "the node's session stopped reading");
		return (int)len;
	}
	sbuf_add(&k->to_node, data, len);
	flush_to_node(k);
	link_watch(k);   /* the socket was full: on when it drains */
	return (int)len;
}

static void cb_eof(ssh_session s, ssh_channel ch, void *ud)
{
	(void)s, (void)ch;
	((struct ssh_link *)ud)->eof = 1;
	flag(ud);
}

static void cb_close(ssh_session s, ssh_channel ch, void *ud)
{
	(void)s, (void)ch;
	((struct ssh_link *)ud)->closed = 1;
	flag(ud);
}

/* ---- node -> channel ---- */

static void pump_up(struct ssh_link *k)
{
	while (!k->dead && k->opened) {
		if (k->up_off == k->up_len) {
			ssize_t r = k->fd >= 0 ? read(k->fd, k->up, sizeof k->up) : 0;

			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (r <= 0) {
				link_die(k, "closed");   /* the node's session ended: close the channel */
				break;
			}
			k->up_len = (size_t)r;
			k->up_off = 0;
		}
		uint32_t win = ssh_channel_window_size(k->ch);
		size_t n = MIN((size_t)win, k->up_len - k->up_off);
		int w = n ? ssh_channel_write(k->ch, k->up + k->up_off, (uint32_t)n) : 0;

		if (w == SSH_ERROR) {
			link_die(k, ssh_get_error(k->gw->s));
			break;
		}
		k->up_off += (size_t)w;
		if (k->up_off < k->up_len) {
			flag(k);   /* the window is full: on with it when the gateway answers */
			break;
		}
	}
}

static void on_link_fd(void *ctx, int fd, int events)
{
	struct ssh_link *k = ctx;

	(void)fd;
	if (events & LOOP_WRITE)
		flush_to_node(k);
	if (events & LOOP_READ)
		pump_up(k);
	if (k->gw && k->gw->s)
		host_watch(k->gw);   /* what pump_up queued goes out */
	link_watch(k);
}

static void link_watch(struct ssh_link *k)
{
	int want = 0;

	if (k->fd < 0 || k->dead)
		return;
	if (k->up_off == k->up_len)
		want |= LOOP_READ;
	if (k->to_node_off < k->to_node.len)
		want |= LOOP_WRITE;
	if (want == k->watched)
		return;
	if (want)
		loop_watch(k->pool->loop, k->fd, want, on_link_fd, k);
	else
		loop_unwatch(k->pool->loop, k->fd, k);
	k->watched = want;
}

/* ---- opening ---- */

static void link_opened(struct ssh_link *k)
{
	struct ssh_host *node = k->node;
	int sv[2];

	if (!node) {   /* a tunnel: its socket is there since it was asked for */
		k->opened = 1;
		link_watch(k);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) {
		link_die(k, strerror(errno));
		return;
	}
	k->opened = 1;
	k->fd = sv[1];
	if (ssh_options_set(node->s, SSH_OPTIONS_FD, &sv[0]) < 0) {
		close(sv[0]);
		link_die(k, "cannot hand the connection to libssh");
		return;
	}
	link_watch(k);
	host_connect(node);
}

static void link_advance(struct ssh_link *k)
{
	char *host = NULL;
	unsigned int port = 22;
	int rc;

	if (!k->ch) {
		k->ch = ssh_channel_new(k->gw->s);
		if (!k->ch) {
			link_die(k, "cannot open a channel on the gateway");
			return;
		}
		ssh_callbacks_init(&k->cb);
		k->cb.userdata = k;
		k->cb.channel_data_function = cb_data;
		k->cb.channel_eof_function = cb_eof;
		k->cb.channel_close_function = cb_close;
		ssh_set_channel_callbacks(k->ch, &k->cb);
	}
	if (!k->node) {
		host = strdup(k->dest);
		port = (unsigned)k->dport;
	} else if (ssh_options_get(k->node->s, SSH_OPTIONS_HOST, &host) != SSH_OK || !host) {
		link_die(k, "no host name");
		return;
	} else {
		ssh_options_get_port(k->node->s, &port);
	}
	rc = ssh_channel_open_forward(k->ch, host, (int)port, "127.0.0.1", 0);
	if (rc == SSH_OK) {
		link_opened(k);
	} else if (rc != SSH_AGAIN) {
		char why[300];

		snprintf(why, sizeof why, "the gateway could not connect to %.100s:%u: %.120s", host, port,
			 ssh_get_error(k->gw->s));
		link_die(k, why);
	}
	ssh_string_free_char(host);
}

/* ---- the gateway host ---- */

/* The gateway named key: found, or added (target: the inventory's host or
 * service of that name, else what ssh_config makes of the name). */
static struct ssh_host *find_gateway(struct ssh_pool *p, const char *key, const struct inv_target *t)
{
	struct inv_target plain = {0};

	for (int i = 0; i < p->nhosts; i++)
		if (p->hosts[i]->gateway && !strcmp(p->hosts[i]->gwname, key))
			return p->hosts[i];
	if (!t)
		t = inventory_target(p->inv, key);
	if (!t) {
		plain.name = (char *)key;
		t = &plain;
	}
	return pool_add_gateway(p, t, key);
}

/* libssh turns an ssh_config ProxyJump into the ProxyCommand
 * "ssh [-l USER] [-p PORT] -W '[%h]:%p' HOST". One hop of exactly that
 * shape is carried in-process like -via; several hops or a site's own
 * ProxyCommand stay with libssh (a process per node). */
static int parse_proxyjump(const char *cmd, char *host, size_t hcap, char *user, size_t ucap, int *port)
{
	char buf[512], *w[10], *save = NULL;
	int n = 0, i = 1;

	if (!cmd || strlen(cmd) >= sizeof buf)
		return -1;
	snprintf(buf, sizeof buf, "%s", cmd);
	for (char *t = strtok_r(buf, " ", &save); t && n < 10; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	*user = '\0';
	*port = 0;
	if (n < 4 || strcmp(w[0], "ssh"))
		return -1;
	if (i + 1 < n && !strcmp(w[i], "-l")) {
		snprintf(user, ucap, "%s", w[i + 1]);
		i += 2;
	}
	if (i + 1 < n && !strcmp(w[i], "-p")) {
		*port = atoi(w[i + 1]);
		i += 2;
	}
	if (i + 3 != n || strcmp(w[i], "-W") || strcmp(w[i + 1], "'[%h]:%p'") || w[i + 2][0] == '-')
		return -1;
	snprintf(host, hcap, "%s", w[i + 2]);
	return *port < 0 || *port > 65535 ? -1 : 0;
}

int gateway_from_config(struct ssh_host *node)
{
	char *cmd = NULL, host[256], user[64], key[400];
	int port, rc;

	if (ssh_options_get(node->s, SSH_OPTIONS_PROXYCOMMAND, &cmd) != SSH_OK)
		return 0;
	rc = parse_proxyjump(cmd, host, sizeof host, user, sizeof user, &port);
	ssh_string_free_char(cmd);
	if (rc < 0)
		return 0;
	struct inv_target t = {.name = host, .user = user[0] ? user : NULL, .port = port};

	snprintf(key, sizeof key, "%s%s%s:%d", user, user[0] ? "@" : "", host, port);
	ssh_options_set(node->s, SSH_OPTIONS_PROXYCOMMAND, "none");
	struct ssh_host *gw = find_gateway(node->pool, key, &t);

	if (gw == node)   /* "Host * ProxyJump bastion" reaches the bastion too */
		host_fail(node, CONN_UNREACHABLE, "its ssh_config ProxyJump names itself");
	else
		gateway_link(node, gw);
	return 1;
}

int gateway_link_via(struct ssh_host *node)
{
	return gateway_link(node, find_gateway(node->pool, node->t.via, NULL));
}

int gateway_link(struct ssh_host *node, struct ssh_host *gw)
{
	struct ssh_link *k;

	if (gw->phase == PH_DONE) {   /* a one-shot pool (fan-out): the gateway already failed */
		char why[sizeof gw->detail + 64];

		snprintf(why, sizeof why, "via %s: %s", gw->gwname, gw->detail[0] ? gw->detail : "not reachable");
		host_fail(node, CONN_UNREACHABLE, why);
		return -1;
	}
	k = xcalloc(1, sizeof *k);
	k->gw = gw;
	k->node = node;
	k->pool = node->pool;
	k->fd = -1;
	k->next = gw->links;
	gw->links = k;
	node->link = k;
	flag(k);   /* to be opened */
	if (gw->phase == PH_IDLE || gw->phase == PH_QUEUED)
		host_start_now(gw);
	else if (gw->phase == PH_UP)
		link_advance(k);
	return 0;
}

static void link_free(struct ssh_link *k)
{
	free(k->dest);
	if (k->ch) {
		ssh_remove_channel_callbacks(k->ch, &k->cb);
		if (k->gw && k->gw->s && !k->closed)
			ssh_channel_close(k->ch);
		ssh_channel_free(k->ch);
	}
	sbuf_free(&k->to_node);
	free(k);
}

/* The node lets go (its session is torn down): the gateway reaps the link
 * at its next pump, outside libssh. */
void gateway_unlink(struct ssh_host *node)
{
	struct ssh_link *k = node->link;

	if (!k)
		return;
	node->link = NULL;
	k->node = NULL;
	link_die(k, "closed");
	if (!k->gw)
		link_free(k);
	else
		flag(k);   /* reaped by the next pump */
}

void gateway_pump(struct ssh_host *gw)
{
	if (!gw->link_work)
		return;
	gw->link_work = 0;
	for (struct ssh_link **pp = &gw->links; *pp;) {
		struct ssh_link *k = *pp;

		if (!k->need) {
			pp = &k->next;
			continue;
		}
		k->need = 0;
		if (!k->dead && gw->phase == PH_UP && !k->opened)
			link_advance(k);
		if (!k->dead && k->opened) {
			pump_up(k);
			flush_to_node(k);
			if ((k->eof || k->closed) && k->to_node_off == k->to_node.len)
				link_die(k, "the gateway closed the connection");
		}
		if (k->dead && !k->node) {
			if (k->need)
				gw->link_work--;
			*pp = k->next;
			link_free(k);
			continue;
		}
		if (!k->dead && !k->opened)
			flag(k);   /* still opening */
		if (!k->dead)
			link_watch(k);
		pp = &k->next;
	}
}

/* The gateway's session is going away: every link dies with it (libssh
 * frees their channels with the session). */
void gateway_down(struct ssh_host *gw, const char *why)
{
	while (gw->links) {
		struct ssh_link *k = gw->links;

		gw->links = k->next;
		if (k->ch)
			ssh_remove_channel_callbacks(k->ch, &k->cb);
		k->ch = NULL;
		link_die(k, why);
		k->gw = NULL;
		if (!k->node)
			link_free(k);
	}
}

int pool_tunnel(struct ssh_pool *p, const char *via, const char *host, int port, char **err)
{
	struct ssh_link *k;
	struct ssh_host *gw;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) {
		*err = xasprintf("tunnel to %s:%d: %s", host, port, strerror(errno));
		return -1;
	}
	gw = find_gateway(p, via, NULL);
	k = xcalloc(1, sizeof *k);
	k->gw = gw;
	k->pool = p;
	k->fd = sv[1];
	k->dest = xstrdup(host);
	k->dport = port;
	k->next = gw->links;
	gw->links = k;
	flag(k);   /* to be opened */
	if (gw->phase == PH_IDLE || gw->phase == PH_QUEUED)
		host_start_now(gw);
	else if (gw->phase == PH_UP)
		link_advance(k);
	return sv[0];
}
