/*
 * serve_control.c - `myriad-sim serve --control -`: commands read from
 * standard input on the server's one epoll loop, each answered by exactly
 * one line on standard output, so that a test or a benchmark injects faults
 * on chosen nodes while the fleet is being served.
 *
 *   xid NODE:GPU CODE      the XID now (sim_inject_xid_now): the simulator
 *                          takes it as it would from sim_inject_xid (failed
 *                          GPU, the job's node failure, the health check,
 *                          sympathetic lines a second later), and its kernel
 *                          lines go at once to every open kernel-log channel
 *                          of the node, not at the next step, and only once.
 *                          -> ok xid NODE:GPU CODE WALL_US CHANNELS
 *   fault NODE[:GPU] [GPU] KIND
 *                          a test fault as sim_test_fault makes it (host
 *                          thermal link_down symbol nic gpu hbm sram gsp; GPU
 *                          0 if not given), its kernel lines sent at once.
 *                          -> ok fault NODE:GPU KIND WALL_US CHANNELS
 *   time                   -> ok WALL_US
 *   channels NODE          -> ok channels NODE NVSMI KMSG IB (how many
 *                          channels stream each of the node's probes)
 *   stats                  -> ok stats ACCEPTED LOGINS SESSIONS COMMANDS
 *                          (connections accepted and logins so far, sessions
 *                          open now, exec commands run so far)
 *
 * Anything else, or a command that cannot be done, is answered "error WHY".
 * WALL_US is CLOCK_REALTIME in microseconds, taken when the lines were
 * queued to the channels; CHANNELS is how many kernel-log channels of the
 * node (journalctl -kf, dmesg -w) they were queued to.
 *
 * Nothing blocks: a pipe, socket or terminal on stdin is watched on the
 * loop (a pipe or socket is made non-blocking); a regular file or /dev/null
 * cannot be watched and is read whole at start. Answers to a pipe or socket
 * wait in a buffer until the reader takes them, and input is not read while
 * more than ANS_MAX bytes of answers wait. End of input only ends the
 * commands: the server serves on until SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "serve_int.h"

#define CTL_LINE_MAX 4096
#define ANS_MAX ((size_t)1 << 20)
#define MAX_ARGS 8

static void on_in(void *ctx, int fd, int events);

/* ---- answers ---- */

static void watch_in(struct srv *srv, int on)
{
	struct srv_ctl *k = &srv->ctl;

	if (k->in < 0 || on == k->in_watched)
		return;
	if (on)
		on = loop_watch(srv->loop, k->in, LOOP_READ, on_in, srv) == 0;
	else
		loop_unwatch(srv->loop, k->in, srv);
	k->in_watched = on;
}

static void on_out(void *ctx, int fd, int events);

static void out_closed(struct srv *srv)
{
	struct srv_ctl *k = &srv->ctl;

	if (k->out_watched)
		loop_unwatch(srv->loop, k->out, srv);
	k->out = -1;
	k->out_watched = 0;
	sbuf_reset(&k->ans);
	k->ans_off = 0;
	fprintf(stderr, "myriad-sim: --control: standard output closed; answers are dropped\n");
}

static void out_flush(struct srv *srv)
{
	struct srv_ctl *k = &srv->ctl;
	int want;

	while (k->out >= 0 && k->ans_off < k->ans.len) {
		ssize_t n = write(k->out, k->ans.s + k->ans_off, k->ans.len - k->ans_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			out_closed(srv);   /* the reader left: serve on */
			break;
		}
		k->ans_off += (size_t)n;
	}
	if (k->ans_off == k->ans.len) {
		sbuf_reset(&k->ans);
		k->ans_off = 0;
	}
	want = k->out >= 0 && k->ans_off < k->ans.len ? LOOP_WRITE : 0;
	if (k->out >= 0 && want != k->out_watched) {
		if (!want)
			loop_unwatch(srv->loop, k->out, srv);
		else if (loop_watch(srv->loop, k->out, LOOP_WRITE, on_out, srv) < 0)
			want = 0;   /* not pollable: the next answer writes the rest */
		k->out_watched = want;
	}
	watch_in(srv, k->ans.len - k->ans_off <= ANS_MAX);
}

static void on_out(void *ctx, int fd, int events)
{
	(void)fd, (void)events;
	out_flush(ctx);
}

static int answer(struct srv *srv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Queues one answer line and writes what it can. Returns 0. */
static int answer(struct srv *srv, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	n = n < 0 ? 0 : MIN(n, (int)sizeof buf - 2);
	buf[n++] = '\n';
	if (srv->ctl.out < 0)
		return 0;
	sbuf_add(&srv->ctl.ans, buf, (size_t)n);
	out_flush(srv);
	return 0;
}

/* ---- commands ---- */

/* A whole decimal number in [lo, hi]. */
static int number(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9' || strlen(s) > 9)
		return -1;
	v = strtol(s, &end, 10);
	if (*end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* NODE or NODE:GPU, a GPU node of the fleet. gpu is left alone without ":". */
static int gpu_ref(struct srv *srv, const char *ref, int *node, long *gpu, char *name, size_t cap)
{
	const char *colon = strchr(ref, ':');
	size_t len = colon ? (size_t)(colon - ref) : strlen(ref);

	if (len >= cap)
		return -1;
	memcpy(name, ref, len);
	name[len] = '\0';
	if ((*node = srv_node_of(srv, name)) < 0)
		return -1;
	return colon ? number(colon + 1, 0, sim_topo(srv->sim)->gpus_per_node - 1, gpu) : 0;
}

static int cmd_xid(struct srv *srv, int n, char **w)
{
	struct sim_sink sink = {srv, srv_sim_text};
	char name[32];
	int node, lines, chans;
	long gpu = -1, code;
	int64_t t;

	if (n != 3 || !strchr(w[1], ':'))
		return answer(srv, "error usage: xid NODE:GPU CODE");
	if (gpu_ref(srv, w[1], &node, &gpu, name, sizeof name) < 0)
		return answer(srv, "error xid: no GPU %.40s in the simulated fleet", w[1]);
	if (number(w[2], 1, 9999, &code) < 0)
		return answer(srv, "error xid: an XID code is a number from 1 to 9999, not \"%.40s\"", w[2]);
	chans = srv_subscribers(srv, node, CK_KMSG);
	lines = sim_inject_xid_now(srv->sim, node, (int32_t)gpu, (int32_t)code, &sink);
	t = wall_us();
	if (lines <= 0)
		return answer(srv, "error xid %s:%ld %ld: nothing happened (the node is hung, or GPU %ld has already "
			      "fallen off the bus)", name, gpu, code, gpu);
	srv_kick(srv, node);
	return answer(srv, "ok xid %s:%ld %ld %lld %d", name, gpu, code, (long long)t, chans);
}

static int fault_kind(const char *k)
{
	static const char *const kinds[] = {"host", "thermal", "link_down", "symbol", "nic", "gpu", "hbm",
					    "sram", "gsp", NULL};

	for (int i = 0; kinds[i]; i++)
		if (!strcmp(k, kinds[i]))
			return 1;
	return 0;
}

static int cmd_fault(struct srv *srv, int n, char **w)
{
	struct sim_sink sink = {srv, srv_sim_text};
	const char *kind = NULL;
	char name[32];
	int node, chans;
	long gpu = -1;
	int64_t t;

	if (n < 3 || n > 4)
		return answer(srv, "error usage: fault NODE ?GPU? KIND");
	if (gpu_ref(srv, w[1], &node, &gpu, name, sizeof name) < 0)
		return answer(srv, "error fault: no GPU node %.40s in the simulated fleet", w[1]);
	for (int i = 2; i < n; i++) {
		if (gpu < 0 && number(w[i], 0, sim_topo(srv->sim)->gpus_per_node - 1, &gpu) == 0)
			continue;
		if (kind || !fault_kind(w[i]))
			return answer(srv, "error fault: \"%.40s\" is not a GPU index or a kind (host thermal link_down "
				      "symbol nic gpu hbm sram gsp)", w[i]);
		kind = w[i];
	}
	if (!kind)
		return answer(srv, "error usage: fault NODE ?GPU? KIND");
	gpu = gpu < 0 ? 0 : gpu;
	chans = srv_subscribers(srv, node, CK_KMSG);
	if (sim_fault_now(srv->sim, node, (int32_t)gpu, kind, &sink) < 0)
		return answer(srv, "error fault %s:%ld %s: the node already has a fault or is hung", name, gpu, kind);
	t = wall_us();
	srv_kick(srv, -1);   /* "gpu" and the like may pick a GPU on another node */
	return answer(srv, "ok fault %s:%ld %s %lld %d", name, gpu, kind, (long long)t, chans);
}

/* How many channels stream the node: a client knows when a console is
 * listening before it injects. */
static int cmd_channels(struct srv *srv, int n, char **w)
{
	char name[32];
	int node;
	long gpu = -1;

	if (n != 2 || strchr(w[1], ':'))
		return answer(srv, "error usage: channels NODE");
	if (gpu_ref(srv, w[1], &node, &gpu, name, sizeof name) < 0)
		return answer(srv, "error channels: no GPU node %.40s in the simulated fleet", w[1]);
	return answer(srv, "ok channels %s %d %d %d", name, srv_subscribers(srv, node, CK_NVSMI),
		      srv_subscribers(srv, node, CK_KMSG), srv_subscribers(srv, node, CK_IB));
}

static int ctl_line(struct srv *srv, char *line)
{
	char *w[MAX_ARGS + 1], *save = NULL;
	int n = 0;

	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_ARGS)
			return answer(srv, "error too many words");
		w[n++] = t;
	}
	if (n == 0)
		return answer(srv, "error empty command");
	if (!strcmp(w[0], "xid"))
		return cmd_xid(srv, n, w);
	if (!strcmp(w[0], "fault"))
		return cmd_fault(srv, n, w);
	if (!strcmp(w[0], "time") && n == 1)
		return answer(srv, "ok %lld", (long long)wall_us());
	if (!strcmp(w[0], "channels"))
		return cmd_channels(srv, n, w);
	if (!strcmp(w[0], "stats") && n == 1)
		return answer(srv, "ok stats %lld %lld %d %lld", (long long)srv->accepted, (long long)srv->logins,
			      srv->nsessions, (long long)srv->commands);
	return answer(srv, "error unknown command \"%.40s\" (xid NODE:GPU CODE, fault NODE ?GPU? KIND, time, "
		      "channels NODE, stats)", w[0]);
}

/* ---- input ---- */

static void feed(struct srv *srv, const char *p, size_t n)
{
	struct srv_ctl *k = &srv->ctl;
	char none[1] = "";

	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;

		if (!k->discarding)
			sbuf_add(&k->line, p, take);
		if (!k->discarding && k->line.len > CTL_LINE_MAX) {
			answer(srv, "error line too long (at most %d bytes)", CTL_LINE_MAX);
			k->discarding = 1;
			sbuf_reset(&k->line);
		}
		if (nl) {
			if (!k->discarding)
				ctl_line(srv, k->line.s ? k->line.s : none);
			k->discarding = 0;
			sbuf_reset(&k->line);
			take++;
		}
		p += take;
		n -= take;
	}
}

static void in_eof(struct srv *srv)
{
	struct srv_ctl *k = &srv->ctl;

	if (k->line.len && !k->discarding)
		ctl_line(srv, k->line.s);
	sbuf_reset(&k->line);
	watch_in(srv, 0);
	k->in = -1;
	fprintf(stderr, "myriad-sim: --control: end of input; serving on until SIGTERM\n");
}

static void on_in(void *ctx, int fd, int events)
{
	struct srv *srv = ctx;
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof buf);

	(void)events;
	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		in_eof(srv);
		return;
	}
	feed(srv, buf, (size_t)n);
}

static void nonblock_if_stream(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* A regular file or /dev/null: epoll refuses it, and reading it never blocks. */
static void read_whole(struct srv *srv)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(srv->ctl.in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		feed(srv, buf, (size_t)n);
	}
	in_eof(srv);
}

void ctl_start(struct srv *srv)
{
	struct srv_ctl *k = &srv->ctl;

	k->in = 0;
	k->out = 1;
	nonblock_if_stream(0);
	nonblock_if_stream(1);
	watch_in(srv, 1);
	if (!k->in_watched)
		read_whole(srv);
}

void ctl_free(struct srv *srv)
{
	struct srv_ctl *k = &srv->ctl;

	if (k->in >= 0)
		watch_in(srv, 0);
	if (k->out_watched)
		loop_unwatch(srv->loop, k->out, srv);
	sbuf_free(&k->line);
	sbuf_free(&k->ans);
}
