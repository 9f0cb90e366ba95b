/*
 * prometheus.c - a source plugin: GPU telemetry from a Prometheus server
 * that scrapes dcgm-exporter (or straight from an exporter's /metrics), for
 * sites that will not open an SSH session per node.
 *
 *   plugin load prometheus -url http://10.1.2.3:9090 ?-via HOST? ?-every 1?
 *                          ?-mode federate|api|metrics? ?-nodes NODESET? ?-gpus 8?
 *
 * Every -every ticks (seconds) it asks, on the one event loop and never blocking:
 *   federate GET /federate?match[]={__name__=~"DCGM_FI_DEV_(...)"} (the
 *            default) - the latest sample of every series myriad reads, in
 *            the text exposition format: for 10,240 GPUs a tenth or less of
 *            the CPU of the same answer as JSON (make bench);
 *   api      GET /api/v1/query?query=... - the same as an instant query's
 *            JSON answer;
 *   metrics  GET /metrics of one exporter (the text exposition format).
 * The answer goes through myriad's own Prometheus parsers (FMT_PROMETHEUS,
 * a stream of the host table): dcgm-exporter's Hostname and gpu labels
 * name the model's GPUs, blank sentinels are unknown values, a rising
 * XID_ERRORS gauge is an XID with its code, and a series that stops leaves
 * its GPU stale as any silent GPU. With -via the server is reached through
 * that configured host's SSH session (a forwarded channel); without, the
 * address must be numeric (a trusted network). -nodes announces the nodes
 * when no other source does (a Prometheus-only configuration).
 *
 * HTTP/1.1, one request per connection (Connection: close), the answer read
 * to its end (Content-Length, chunked, or the server closing), at most 1
 * GiB; a request that does not end within the period is dropped and said.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plugin.h"

#define BODY_MAX ((size_t)1 << 30)   /* /federate for 102,400 GPUs is some 280 MB */
enum { MODE_FEDERATE, MODE_API, MODE_METRICS };
#define QUERY "{__name__=~\"DCGM_FI_DEV_(GPU_UTIL|FB_USED|FB_FREE|FB_RESERVED|GPU_TEMP|POWER_USAGE|" \
	      "POWER_MGMT_LIMIT|SM_CLOCK|ECC_DBE_VOL_TOTAL|CLOCK_THROTTLE_REASONS|XID_ERRORS)\"}"

struct buf {
	char *s;
	size_t len, cap;
};

static struct prom {
	const struct myriad_host *h;
	char host[256], path[512], via[128], nodes[512];
	int port, gpus, mode;          /* MODE_* */
	int64_t every, ticks;
	/* the request in flight */
	int fd, sent_all;
	struct buf out, in;
	size_t out_off;
	int64_t started;
	void *stream;
	int64_t polls, failures;
	int announced;
} P;

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n + 1)
			cap *= 2;
		char *t = realloc(b->s, cap);

		if (!t)
			abort();
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void say(enum plugin_log level, const char *fmt, const char *a)
{
	char msg[512];

	snprintf(msg, sizeof msg, fmt, a);
	P.h->log(P.h, level, msg);
}

/* ---- the answer ---- */

/* Decodes a chunked body that is complete (it ends with the last chunk). */
static int dechunk(const char *p, const char *lim, struct buf *out)
{
	for (;;) {
		const char *eol = memmem(p, (size_t)(lim - p), "\r\n", 2);
		char *e;
		unsigned long long sz;

		if (!eol)
			return -1;
		sz = strtoull(p, &e, 16);
		if (e == p)
			return -1;
		if (sz == 0)
			return 0;
		if ((unsigned long long)(lim - (eol + 2)) < sz + 2)
			return -1;
		buf_add(out, eol + 2, (size_t)sz);
		p = eol + 2 + sz + 2;
	}
}

/* The body of a complete answer into *body, 1; 0 not complete yet; -1 not
 * a usable answer (not 200, a broken chunk). */
static int body_of(struct buf *in, struct buf *body, int at_eof)
{
	char *end = in->s ? strstr(in->s, "\r\n\r\n") : NULL, *cl, *te;
	const char *start;
	size_t head;

	if (!end)
		return at_eof ? -1 : 0;
	head = (size_t)(end - in->s) + 4;
	start = in->s + head;
	if (strncmp(in->s, "HTTP/1.", 7) || strncmp(in->s + 8, " 200", 4))
		return -1;
	*end = '\0';
	cl = strcasestr(in->s, "\r\ncontent-length:");
	te = strcasestr(in->s, "\r\ntransfer-encoding: chunked");
	*end = '\r';
	if (te) {
		if (!(in->len - head >= 5 && !memcmp(in->s + in->len - 5, "0\r\n\r\n", 5)) && !at_eof)
			return 0;
		return dechunk(start, in->s + in->len, body) < 0 ? -1 : 1;
	}
	if (cl) {
		size_t want = (size_t)strtoull(cl + 17, NULL, 10);

		if (in->len - head < want)
			return at_eof ? -1 : 0;
		buf_add(body, start, want);
		return 1;
	}
	if (!at_eof)
		return 0;
	buf_add(body, start, in->len - head);
	return 1;
}

static void close_request(void)
{
	if (P.fd >= 0) {
		P.h->unwatch(P.h, P.fd, &P);
		close(P.fd);
	}
	P.fd = -1;
	P.out.len = P.in.len = P.out_off = 0;
	P.sent_all = 0;
}

static void answered(int at_eof)
{
	struct buf body = {0};
	int rc = body_of(&P.in, &body, at_eof);

	if (rc == 0) {
		free(body.s);
		return;   /* more to come */
	}
	if (rc < 0) {
		char first[160];

		snprintf(first, sizeof first, "%.*s", (int)strcspn(P.in.s ? P.in.s : "", "\r\n"), P.in.s ? P.in.s : "");
		P.failures++;
		say(PLOG_WARN, "the server answered \"%s\"", *first ? first : "nothing");
	} else {
		P.h->stream_feed(P.stream, body.s ? body.s : "", body.len);
		P.h->stream_end(P.stream);
	}
	free(body.s);
	close_request();
}

/* ---- the request ---- */

static void on_fd(void *ctx, int fd, int events)
{
	char tmp[65536];
	ssize_t r;

	(void)ctx;
	if ((events & LOOP_WRITE) && !P.sent_all) {
		ssize_t w = write(fd, P.out.s + P.out_off, P.out.len - P.out_off);

		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			P.failures++;
			say(PLOG_WARN, "cannot send the request: %s", strerror(errno));
			close_request();
			return;
		}
		if (w > 0 && (P.out_off += (size_t)w) == P.out.len) {
			P.sent_all = 1;
			P.h->watch(P.h, fd, LOOP_READ, on_fd, &P);
		}
	}
	if (!(events & LOOP_READ))
		return;
	while ((r = read(fd, tmp, sizeof tmp)) > 0 && P.in.len + (size_t)r <= BODY_MAX)
		buf_add(&P.in, tmp, (size_t)r);
	if (r > 0) {
		say(PLOG_WARN, "the answer is larger than %s: dropped", "1 GiB");
		close_request();
		return;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
		answered(0);
		return;
	}
	answered(1);
}

static void url_escape(struct buf *b, const char *s)
{
	char hex[4];

	for (; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("-_.~", *s)) {
			buf_add(b, s, 1);
		} else {
			snprintf(hex, sizeof hex, "%%%02X", (unsigned char)*s);
			buf_add(b, hex, 3);
		}
	}
}

static void poll_now(void)
{
	char *err = NULL, line[1024];

	if (P.fd >= 0) {   /* the last one never ended */
		P.failures++;
		say(PLOG_WARN, "no answer within the period from %s: dropped", P.host);
		close_request();
	}
	if ((P.fd = P.h->connect(P.h, P.host, P.port, *P.via ? P.via : NULL, &err)) < 0) {
		P.failures++;
		say(PLOG_WARN, "%s", err ? err : "cannot connect");
		free(err);
		return;
	}
	P.polls++;
	snprintf(line, sizeof line, "GET %s", P.path);
	buf_add(&P.out, line, strlen(line));
	if (P.mode != MODE_METRICS) {
		buf_add(&P.out, P.mode == MODE_API ? "?query=" : "?match%5B%5D=", P.mode == MODE_API ? 7 : 13);
		url_escape(&P.out, QUERY);
	}
	snprintf(line, sizeof line, " HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: myriad\r\nAccept: */*\r\n"
		 "Connection: close\r\n\r\n", P.host, P.port);
	buf_add(&P.out, line, strlen(line));
	P.h->watch(P.h, P.fd, LOOP_WRITE, on_fd, &P);
}

/* ---- the source: a poll every -every ticks ---- */

static int src_start(struct source *src, const char *args, char **err)
{
	(void)src, (void)args;
	P.stream = P.h->stream_open(P.h, -1, FMT_PROMETHEUS);
	return *P.nodes ? P.h->announce_nodes(P.h, P.nodes, P.gpus, err) : 0;
}

static int src_tick(struct source *src, int64_t now)
{
	(void)src, (void)now;
	if (P.ticks++ % P.every == 0)
		poll_now();
	return 0;
}

static void src_stop(struct source *src)
{
	(void)src;
	close_request();
	P.h->stream_close(P.stream);
	P.stream = NULL;
}

static const struct source_ops src_ops = {
	.name = "prometheus",
	.abi = MYRIAD_ABI,
	.start = src_start,
	.tick = src_tick,
	.stop = src_stop,
};

/* ---- load ---- */

static int parse_url(const char *url, char **err)
{
	const char *p = url, *slash, *colon;

	if (strncmp(p, "http://", 7)) {
		*err = strdup("prometheus: -url must be http://HOST:PORT[/path] (https: put a TLS proxy beside it)");
		return -1;
	}
	p += 7;
	slash = strchr(p, '/');
	colon = memchr(p, ':', slash ? (size_t)(slash - p) : strlen(p));
	snprintf(P.host, sizeof P.host, "%.*s", (int)((colon ? colon : slash ? slash : p + strlen(p)) - p), p);
	P.port = colon ? atoi(colon + 1) : 80;
	snprintf(P.path, sizeof P.path, "%s", P.mode == MODE_API ? "/api/v1/query" : P.mode == MODE_FEDERATE ? "/federate"
		 : slash ? slash : "/metrics");
	if (!*P.host || P.port <= 0 || P.port > 65535) {
		*err = strdup("prometheus: -url: no host or a bad port");
		return -1;
	}
	return 0;
}

static int load(const struct myriad_host *h, int argc, const char *const *argv, char **err)
{
	const char *url = NULL;
	double every = 1;

	memset(&P, 0, sizeof P);
	P.h = h;
	P.fd = -1;
	P.gpus = 8;
	for (int i = 0; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "-url"))
			url = v;
		else if (!strcmp(k, "-via"))
			snprintf(P.via, sizeof P.via, "%s", v);
		else if (!strcmp(k, "-every"))
			every = atof(v);
		else if (!strcmp(k, "-mode") && (!strcmp(v, "federate") || !strcmp(v, "api") || !strcmp(v, "metrics")))
			P.mode = v[0] == 'f' ? MODE_FEDERATE : v[0] == 'a' ? MODE_API : MODE_METRICS;
		else if (!strcmp(k, "-nodes"))
			snprintf(P.nodes, sizeof P.nodes, "%s", v);
		else if (!strcmp(k, "-gpus"))
			P.gpus = atoi(v);
		else {
			if (asprintf(err, "prometheus: unknown option %s %s (-url -via -every -mode federate|api|metrics "
				     "-nodes -gpus)", k, v) < 0)
				*err = NULL;
			return -1;
		}
	}
	if (argc % 2 || !url) {
		*err = strdup("prometheus: usage: plugin load prometheus -url http://HOST:PORT ?-via HOST? ?-every S? "
			      "?-mode federate|api|metrics? ?-nodes NODESET? ?-gpus N?");
		return -1;
	}
	if (parse_url(url, err) < 0)
		return -1;
	if (every < 1 || every > 3600) {
		*err = strdup("prometheus: -every wants seconds (ticks) from 1 to 3600");
		return -1;
	}
	P.every = (int64_t)every;
	if (h->add_source(h, &src_ops) < 0)
		return -1;
	return h->start_source(h, "prometheus", "", err);
}

static void unload(const struct myriad_host *h)
{
	(void)h;
	free(P.out.s);
	free(P.in.s);
}

static const struct myriad_plugin plugin = {
	MYRIAD_PLUGIN_ABI, "prometheus", "1.0",
	"GPU telemetry from a Prometheus server scraping dcgm-exporter, or from an exporter's /metrics", load, unload,
};

const struct myriad_plugin *myriad_plugin(void);

const struct myriad_plugin *myriad_plugin(void)
{
	return &plugin;
}
