/*
 * serve_exporter.c - `myriad-sim serve --exporter ADDR:PORT`: the simulated
 * fleet as dcgm-exporter, so that a real Prometheus can scrape it.
 *
 * One loopback HTTP/1.1 listener on the serve loop (non-blocking, several
 * clients, keep-alive, pipelined requests answered in order, a request head
 * bounded to 8 KiB, idle connections closed after 30 s). GET /metrics answers
 * the text exposition format 0.0.4 for every GPU of every node that prints
 * nvidia-smi lines (a hung node's series stop, as its exporter's would), with
 * dcgm-exporter's labels (gpu, UUID, pci_bus_id, device, modelName, Hostname,
 * DCGM_FI_DRIVER_VERSION) and its default counters, plus three a site adds
 * to its counters file (ECC_DBE_VOL_TOTAL, POWER_MGMT_LIMIT,
 * CLOCK_THROTTLE_REASONS) so that every field of the nvidia-smi probe has its
 * DCGM twin.
 *
 * Values come from the simulator's state after the last step, rounded as the
 * nvidia-smi text rounds them, so a GPU read here and one read over SSH agree
 * within one step. A GPU that nvidia-smi cannot read ("[GPU requires reset]")
 * shows DCGM's blank values. XID_ERRORS holds the last XID code of each GPU:
 * it is read from the same kernel lines the node prints (exp_kmsg), as DCGM
 * learns of XIDs from the driver, and, like dcgm-exporter, keeps it until the
 * process restarts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "serve_int.h"
#include "sim_int.h"
#include "../probe/parse.h"

#define REQ_MAX 8192
#define IDLE_US (30 * US_PER_SEC)
#define CONN_MAX 256
#define OUT_LIMIT ((size_t)512 << 20)   /* queued answers per connection */
#define MEM_RESERVED 479                  /* MiB, an H100 SXM's memory.reserved */
#define MEM_CLOCK 2619

struct hconn {
	struct exporter *x;
	struct hconn *next;
	int fd, closing, watched;
	struct sbuf in, out;
	size_t off;
	int64_t last;                /* mono us of the last activity */
};

struct exporter {
	struct srv *srv;
	int fd;
	struct hconn *conns;
	int nconns;
	int32_t *xid;                /* per GPU: last XID code, 0 none */
	double *energy;              /* per GPU: mJ since the serve started */
	int64_t energy_at;           /* sim us of the last accumulation */
	int64_t body_tick;           /* sim tick and XID count the body was built for */
	int64_t body_xids, xids;
	struct sbuf body;
	int64_t timer;
};

/* ---- XIDs, from the node's kernel lines ---- */

void exp_kmsg(struct srv *srv, int32_t node, const char *buf, size_t n)
{
	struct exporter *x = srv->exp;
	struct xid_rec r;
	const char *err;

	if (!x || node < 0 || node >= srv->nodes)
		return;
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t len = nl ? (size_t)(nl - buf) : n;

		if (xid_parse_line(buf, len, &r, &err) == 1 && !r.sxid) {
			unsigned dom, bus, dev;

			if (sscanf(r.pci, "%x:%x:%x", &dom, &bus, &dev) == 3)
				for (int g = 0; g < SIM_GPN; g++)
					if (sim_pci_bus[g] == bus) {
						x->xid[(int64_t)node * SIM_GPN + g] = r.code;
						x->xids++;
					}
		}
		if (!nl)
			break;
		buf = nl + 1;
		n -= len + 1;
	}
}

/* ---- the exposition ---- */

enum col {
	C_SM_CLOCK, C_MEM_CLOCK, C_MEM_TEMP, C_GPU_TEMP, C_POWER, C_ENERGY, C_PCIE_REPLAY, C_UTIL,
	C_COPY_UTIL, C_ENC_UTIL, C_DEC_UTIL, C_XID, C_FB_FREE, C_FB_USED, C_FB_RESERVED, C_NVLINK_BW,
	C_VGPU, C_REMAP_UNCORR, C_REMAP_CORR, C_REMAP_FAIL, C_ECC_DBE, C_POWER_LIMIT, C_THROTTLE, C_COUNT
};

static const struct {
	const char *name, *type, *help;
	int fp;                      /* a double field in DCGM (blank 2^47) */
} cols[C_COUNT] = {
	{"SM_CLOCK", "gauge", "SM clock frequency (in MHz).", 0},
	{"MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", 0},
	{"MEMORY_TEMP", "gauge", "Memory temperature (in C).", 0},
	{"GPU_TEMP", "gauge", "GPU temperature (in C).", 0},
	{"POWER_USAGE", "gauge", "Power draw (in W).", 1},
	{"TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", 0},
	{"PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", 0},
	{"GPU_UTIL", "gauge", "GPU utilization (in %).", 0},
	{"MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", 0},
	{"ENC_UTIL", "gauge", "Encoder utilization (in %).", 0},
	{"DEC_UTIL", "gauge", "Decoder utilization (in %).", 0},
	{"XID_ERRORS", "gauge", "Value of the last XID error encountered.", 0},
	{"FB_FREE", "gauge", "Framebuffer memory free (in MiB).", 0},
	{"FB_USED", "gauge", "Framebuffer memory used (in MiB).", 0},
	{"FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", 0},
	{"NVLINK_BANDWIDTH_TOTAL", "counter", "Total number of NVLink bandwidth counters for all lanes.", 0},
	{"VGPU_LICENSE_STATUS", "gauge", "vGPU License status", 0},
	{"UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors", 0},
	{"CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors", 0},
	{"ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed", 0},
	{"ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.", 0},
	{"POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).", 1},
	{"CLOCK_THROTTLE_REASONS", "gauge", "Current clock throttle reasons (bitmask).", 0},
};

/* Energy: watts x simulated seconds since the last render, per GPU. */
static void accumulate(struct exporter *x)
{
	struct sim *s = x->srv->sim;
	int64_t now = sim_now(s);
	double dt = x->energy_at ? (double)(now - x->energy_at) / 1e3 : 0;   /* ms */

	if (dt <= 0 && x->energy_at)
		return;
	for (int64_t i = 0; i < s->topo.gpus; i++)
		x->energy[i] += s->gpus[i].watts * dt;
	x->energy_at = now;
}

static void value(struct exporter *x, struct sbuf *b, int c, int64_t gi)
{
	const struct sgpu *g = &x->srv->sim->gpus[gi];
	int dead = g->health != GH_OK;
	int32_t reserved = MIN(MEM_RESERVED, SIM_MEM_TOTAL - g->mem);

	if (dead && c != C_XID && c != C_ENERGY && c != C_POWER_LIMIT && c != C_VGPU) {
		sbuf_adds(b, cols[c].fp ? "140737488355328" : "9223372036854775794");   /* blank, NOT_SUPPORTED */
		return;
	}
	switch (c) {
	case C_SM_CLOCK: sb_u64(b, (uint64_t)g->clock); break;
	case C_MEM_CLOCK: sb_u64(b, g->util ? MEM_CLOCK : 1593); break;
	case C_MEM_TEMP: sb_u64(b, (uint64_t)(g->temp + 0.5f) > 5 ? (uint64_t)(g->temp + 0.5f) - 5 : 0); break;
	case C_GPU_TEMP: sb_u64(b, (uint64_t)(g->temp + 0.5f)); break;
	case C_POWER:
		sb_fixed(b, g->watts, 2);
		SB_LIT(b, "0000");   /* dcgm-exporter prints six decimals */
		break;
	case C_ENERGY: sb_u64(b, (uint64_t)x->energy[gi]); break;
	case C_UTIL: sb_u64(b, g->util); break;
	case C_COPY_UTIL: sb_u64(b, (uint64_t)g->util / 3); break;
	case C_XID: sb_i64(b, x->xid[gi]); break;
	case C_FB_FREE: sb_i64(b, SIM_MEM_TOTAL - g->mem - reserved); break;
	case C_FB_USED: sb_i64(b, g->mem); break;
	case C_FB_RESERVED: sb_i64(b, reserved); break;
	case C_NVLINK_BW: sb_u64(b, (uint64_t)(x->energy[gi] / 1e3) * g->multi); break;
	case C_REMAP_FAIL: sbuf_addc(b, x->xid[gi] == 64 ? '1' : '0'); break;
	case C_ECC_DBE: sb_u64(b, (uint64_t)g->ecc); break;
	case C_POWER_LIMIT: SB_LIT(b, "700.000000"); break;
	case C_THROTTLE: sb_u64(b, g->thr); break;
	default: sbuf_addc(b, '0');
	}
}

static void build(struct exporter *x)
{
	struct sim *s = x->srv->sim;
	struct sbuf *b = &x->body;
	char host[32];

	if (x->body.len && x->body_tick == sim_tick(s) && x->body_xids == x->xids)
		return;
	accumulate(x);
	sbuf_reset(b);
	for (int c = 0; c < C_COUNT; c++) {
		sbuf_printf(b, "# HELP DCGM_FI_DEV_%s %s\n# TYPE DCGM_FI_DEV_%s %s\n", cols[c].name, cols[c].help,
			    cols[c].name, cols[c].type);
		for (int32_t n = 0; n < s->topo.nodes; n++) {
			if (s->nodes[n].silent)
				continue;
			sim_node_name(s, n, host, sizeof host);
			for (int i = 0; i < SIM_GPN; i++) {
				int64_t gi = (int64_t)n * SIM_GPN + i;
				const struct sgpu *g = &s->gpus[gi];

				SB_LIT(b, "DCGM_FI_DEV_");
				sbuf_adds(b, cols[c].name);
				SB_LIT(b, "{gpu=\"");
				sb_u64(b, (uint64_t)i);
				SB_LIT(b, "\",UUID=\"");
				sbuf_add(b, g->prefix + 3, 40);
				SB_LIT(b, "\",pci_bus_id=\"");
				sbuf_add(b, g->prefix + 45, 16);
				SB_LIT(b, "\",device=\"nvidia");
				sb_u64(b, (uint64_t)i);
				SB_LIT(b, "\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"");
				sbuf_adds(b, host);
				SB_LIT(b, "\",DCGM_FI_DRIVER_VERSION=\"535.183.01\"} ");
				value(x, b, c, gi);
				sbuf_addc(b, '\n');
			}
		}
	}
	x->body_tick = sim_tick(s);
	x->body_xids = x->xids;
}

/* ---- HTTP ---- */

static void on_conn(void *ctx, int fd, int events);

static void conn_free(struct hconn *c)
{
	struct exporter *x = c->x;

	for (struct hconn **p = &x->conns; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	x->nconns--;
	loop_unwatch(x->srv->loop, c->fd, c);
	close(c->fd);
	sbuf_free(&c->in);
	sbuf_free(&c->out);
	free(c);
}

static void answer(struct hconn *c, int code, const char *reason, const char *type, const char *body, size_t n,
		   int head_only)
{
	sbuf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n", code, reason,
		    type, n, c->closing ? "Connection: close\r\n" : "");
	if (!head_only)
		sbuf_add(&c->out, body, n);
}

/* Does the head have header `name` (case-insensitive) whose value contains word? */
static int header_has(const char *head, size_t n, const char *name, const char *word)
{
	size_t nl = strlen(name), wl = strlen(word);

	for (const char *p = head; p && p < head + n;) {
		const char *eol = memchr(p, '\n', (size_t)(head + n - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(head + n - p);

		if (len > nl && !strncasecmp(p, name, nl) && p[nl] == ':')
			for (const char *q = p + nl + 1; q + wl <= p + len; q++)
				if (!strncasecmp(q, word, wl))
					return 1;
		p = eol ? eol + 1 : NULL;
	}
	return 0;
}

/* One request head s[0..n) (without the blank line). */
static void request(struct hconn *c, const char *s, size_t n)
{
	const char *sp1 = memchr(s, ' ', n), *sp2, *eol = memchr(s, '\r', n);
	size_t line = eol ? (size_t)(eol - s) : n, plen;
	int head = 0, http10;
	static const char idx[] = "myriad-sim: simulated dcgm-exporter; metrics at /metrics\n";

	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(s + line - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || s + line - sp2 < 9 || memcmp(sp2 + 1, "HTTP/1.", 7)) {
		c->closing = 1;
		answer(c, 400, "Bad Request", "text/plain", "bad request\n", 12, 0);
		return;
	}
	http10 = sp2[8] == '0';
	if (header_has(s, n, "Connection", "close") || (http10 && !header_has(s, n, "Connection", "keep-alive")))
		c->closing = 1;
	if (header_has(s, n, "Content-Length", "") && !header_has(s, n, "Content-Length", " 0")) {
		c->closing = 1;
		answer(c, 400, "Bad Request", "text/plain", "no request body expected\n", 25, 0);
		return;
	}
	if (header_has(s, n, "Transfer-Encoding", "")) {
		c->closing = 1;
		answer(c, 400, "Bad Request", "text/plain", "no request body expected\n", 25, 0);
		return;
	}
	head = sp1 - s == 4 && !memcmp(s, "HEAD", 4);
	if (!head && !(sp1 - s == 3 && !memcmp(s, "GET", 3))) {
		answer(c, 405, "Method Not Allowed", "text/plain", "GET or HEAD\n", 12, 0);
		return;
	}
	plen = (size_t)(sp2 - sp1 - 1);
	for (size_t i = 0; i < plen; i++)
		if (sp1[1 + i] == '?') {
			plen = i;
			break;
		}
	if (plen == 8 && !memcmp(sp1 + 1, "/metrics", 8)) {
		build(c->x);
		answer(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", c->x->body.s, c->x->body.len, head);
	} else if (plen == 1 && sp1[1] == '/') {
		answer(c, 200, "OK", "text/plain; charset=utf-8", idx, sizeof idx - 1, head);
	} else {
		answer(c, 404, "Not Found", "text/plain", "not found\n", 10, head);
	}
}

static void conn_settle(struct hconn *c)
{
	int want = c->off < c->out.len ? LOOP_WRITE : (c->closing ? 0 : LOOP_READ);

	if (want != c->watched) {
		loop_watch(c->x->srv->loop, c->fd, want, on_conn, c);
		c->watched = want;
	}
}

static void on_conn(void *ctx, int fd, int events)
{
	struct hconn *c = ctx;
	char buf[4096];
	ssize_t k = -1;

	(void)fd;
	c->last = mono_us();
	if (events & LOOP_READ) {
		while (!c->closing && (k = read(c->fd, buf, sizeof buf)) > 0)
			sbuf_add(&c->in, buf, (size_t)k);
		if (!c->closing && (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))) {
			conn_free(c);
			return;
		}
		for (;;) {   /* every whole request head, in order */
			char *end = c->in.len ? memmem(c->in.s, c->in.len, "\r\n\r\n", 4) : NULL;
			size_t hl;

			if (c->closing)
				break;
			if (!end) {
				if (c->in.len > REQ_MAX) {
					c->closing = 1;
					answer(c, 431, "Request Header Fields Too Large", "text/plain", "request too large\n", 18, 0);
				}
				break;
			}
			hl = (size_t)(end - c->in.s);
			if (hl + 4 > REQ_MAX) {
				c->closing = 1;
				answer(c, 431, "Request Header Fields Too Large", "text/plain", "request too large\n", 18, 0);
				break;
			}
			request(c, c->in.s, hl);
			memmove(c->in.s, c->in.s + hl + 4, c->in.len - hl - 4);
			c->in.len -= hl + 4;
			c->in.s[c->in.len] = '\0';
			if (c->out.len - c->off > OUT_LIMIT) {
				conn_free(c);   /* a client that asks and never reads */
				return;
			}
		}
	}
	while (c->off < c->out.len) {
		k = write(c->fd, c->out.s + c->off, c->out.len - c->off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			break;
		if (k <= 0) {
			conn_free(c);
			return;
		}
		c->off += (size_t)k;
	}
	if (c->off == c->out.len) {
		sbuf_reset(&c->out);
		c->off = 0;
		if (c->closing) {
			conn_free(c);
			return;
		}
	}
	conn_settle(c);
}

static void on_listen(void *ctx, int fd, int events)
{
	struct exporter *x = ctx;
	int cfd;

	(void)events;
	while ((cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct hconn *c;

		if (x->nconns >= CONN_MAX) {
			close(cfd);
			continue;
		}
		c = xcalloc(1, sizeof *c);
		c->x = x;
		c->fd = cfd;
		c->last = mono_us();
		c->next = x->conns;
		x->conns = c;
		x->nconns++;
		conn_settle(c);
	}
}

static void on_tick(void *ctx, int64_t id)
{
	struct exporter *x = ctx;
	int64_t now = mono_us();

	(void)id;
	for (struct hconn *c = x->conns, *next; c; c = next) {
		next = c->next;
		if (now - c->last > IDLE_US)
			conn_free(c);
	}
}

int exp_start(struct srv *srv, const char *addr, int *port)
{
	struct exporter *x;
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int fd, one = 1;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)*port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1 || (ntohl(sa.sin_addr.s_addr) >> 24) != 127) {
		fprintf(stderr, "myriad-sim: --exporter: %s is not a loopback address (127.x.y.z)\n", addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		fprintf(stderr, "myriad-sim: --exporter %s:%d: %s\n", addr, *port, strerror(errno));
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	x = xcalloc(1, sizeof *x);
	x->srv = srv;
	x->fd = fd;
	x->xid = xcalloc((size_t)sim_topo(srv->sim)->gpus, sizeof *x->xid);
	x->energy = xcalloc((size_t)sim_topo(srv->sim)->gpus, sizeof *x->energy);
	srv->exp = x;
	loop_watch(srv->loop, fd, LOOP_READ, on_listen, x);
	x->timer = loop_timer(srv->loop, 1000, 1000, on_tick, x);
	return 0;
}

void exp_free(struct srv *srv)
{
	struct exporter *x = srv->exp;

	if (!x)
		return;
	while (x->conns)
		conn_free(x->conns);
	loop_unwatch(srv->loop, x->fd, x);
	loop_timer_cancel(srv->loop, x->timer);
	close(x->fd);
	sbuf_free(&x->body);
	free(x->xid);
	free(x->energy);
	free(x);
	srv->exp = NULL;
}
