/*
 * source_ssh.c - the "ssh" source: every host of the inventory over one
 * persistent session, running the streaming probes (nvidia-smi, the kernel
 * log follower, IB counters) on long-lived exec channels whose output feeds
 * streams exactly as the embedded simulator's does; services (the Slurm head
 * node, the facility meter) polled on their own sessions.
 *
 * Probes that exit or fall silent are restarted with backoff; a probe that
 * floods (more than FLOOD_BYTES or FLOOD_REJECTS per window) is closed for a
 * minute so one bad node cannot disturb the others. Connection states become
 * EV_CONN events; data age is the model's node.last_sample.
 *
 * The source registers like the built-in "sim" one and lives on the
 * application's loop; between ticks the clock lets that loop run (clock.h),
 * so a headless run's --ticks T takes T seconds of real time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "source_ssh.h"
#include "fanout.h"
#include "inventory.h"
#include "pool.h"
#include "probes.h"
#include "../fdlimit.h"
#include "../stream.h"
#include "../trace.h"
#include "../action/slurm.h"

#define FLOOD_WINDOW_US (10 * US_PER_SEC)
#define FLOOD_BYTES (512 * 1024)
#define FLOOD_REJECTS 200
#define FLOOD_PAUSE_US (60 * US_PER_SEC)
#define DOC_MAX ((size_t)64 << 20)

struct ssh_source;

struct probe_run {
	struct node_ctx *node;
	int probe;                 /* enum probe_id */
	struct stream st;
	struct ssh_chan *chan;
	int64_t restart_at, started, window_start;
	uint64_t window_bytes, window_rejected;
	int failures;
	char errline[160];         /* the last line on stderr, for the report */
};

struct node_ctx {
	struct ssh_source *ss;
	int32_t index;
	struct ssh_host *h;
	struct probe_run probes[PROBE_COUNT];
	int stale, streaming, up;
};

struct svc_job {
	struct svc_ctx *sc;
	char *command;
	struct stream st;
	struct ssh_chan *chan;
	size_t got;                /* bytes of this poll's output, fed to st as they come */
	char errline[160];
	int64_t next_at;
	int again;                 /* polled while busy: poll again when it ends */
};

struct svc_run;

struct svc_ctx {
	struct ssh_source *ss;
	const struct inv_service *svc;
	struct ssh_host *h;
	struct svc_job jobs[2];
	int njobs;
	struct svc_run *waiting;   /* commands asked for while the session was being set up */
};

struct ssh_source {
	struct myriad *app;
	struct inventory *inv;
	struct ssh_pool *pool;
	struct loop *loop;
	struct node_ctx *nodes;
	int nnodes, nup, nstreaming;
	struct svc_ctx *svcs;
	int nsvcs;
	int64_t timer, t0, last_stats;
	int stopping, logged_up, logged_streaming;
	FILE *log;
};

static void source_log(struct ssh_source *ss, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void source_log(struct ssh_source *ss, const char *fmt, ...)
{
	va_list ap;
	char iso[32];
	int64_t now = wall_us();

	if (!ss->log)
		return;
	fmt_iso(now, iso);
	fprintf(ss->log, "%.19s.%03dZ ", iso, (int)(now / 1000 % 1000));
	va_start(ap, fmt);
	vfprintf(ss->log, fmt, ap);
	va_end(ap);
	fputc('\n', ss->log);
	fflush(ss->log);
}

/* ---- events ---- */

static void emit_conn(struct ssh_source *ss, int32_t node, const char *host, int state, const char *detail)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_CONN;
	ev.time = wall_us();
	ev.source = "ssh";
	ev.u.conn = (struct ev_conn){node, state, host, detail};
	app_emit(ss->app, &ev);
}

static void emit_error(struct ssh_source *ss, int32_t node, int fmt, const char *error, const char *excerpt)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_PARSE_ERROR;
	ev.time = wall_us();
	ev.source = "ssh";
	ev.u.parse_error = (struct ev_parse_error){node, fmt, error, excerpt};
	app_emit(ss->app, &ev);
}

static void keep_line(char *dst, size_t cap, const char *buf, size_t n)
{
	const char *end = buf + n;

	while (end > buf && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == buf)
		return;
	const char *start = end;

	while (start > buf && start[-1] != '\n')
		start--;
	n = MIN((size_t)(end - start), cap - 1);
	memcpy(dst, start, n);
	dst[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20)
			dst[i] = '?';
}

/* ---- probes ---- */

static const struct chan_ops probe_ops;

static void start_probe(struct probe_run *pr)
{
	struct ssh_source *ss = pr->node->ss;
	const struct inv_probe *p = &ss->inv->probes[pr->probe];
	int64_t now = mono_us();

	pr->restart_at = 0;
	if (pr->chan || !p->command[0] || !host_is_up(pr->node->h))
		return;
	pr->chan = pool_exec(pr->node->h, p->command, &probe_ops, pr);
	if (!pr->chan) {
		pr->restart_at = now + US_PER_SEC;
		return;
	}
	chan_set_timeouts(pr->chan, 0, pr->probe == PROBE_NVSMI ? ss->inv->silence_timeout_us : p->silence_us);
	pr->started = pr->window_start = now;
	pr->window_bytes = 0;
	pr->window_rejected = pr->st.rejected;
	pr->errline[0] = '\0';
}

static int flooding(struct probe_run *pr, size_t n, int64_t now)
{
	if (now - pr->window_start > FLOOD_WINDOW_US) {
		pr->window_start = now;
		pr->window_bytes = 0;
		pr->window_rejected = pr->st.rejected;
	}
	pr->window_bytes += n;
	return pr->window_bytes > FLOOD_BYTES || pr->st.rejected - pr->window_rejected > FLOOD_REJECTS;
}

static void probe_data(void *ctx, struct ssh_chan *c, const char *buf, size_t n, int is_stderr)
{
	struct probe_run *pr = ctx;
	struct node_ctx *nd = pr->node;
	struct ssh_source *ss = nd->ss;
	int64_t now = mono_us();
	char msg[128];

	if (ss->stopping || pr->chan != c)
		return;
	if (is_stderr) {
		keep_line(pr->errline, sizeof pr->errline, buf, n);
		return;
	}
	uint64_t before = pr->st.records;

	stream_feed(&pr->st, buf, n, wall_us());
	if (pr->probe == PROBE_NVSMI && pr->st.records > before) {
		if (!nd->streaming++)
			ss->nstreaming++;
		if (nd->stale) {
			nd->stale = 0;
			emit_conn(ss, nd->index, host_name(nd->h), CONN_UP, "");
		}
	}
	if (flooding(pr, n, now)) {
		snprintf(msg, sizeof msg, "%s probe flooded (%llu bytes, %llu rejected lines in 10 s): closed for 60 s",
			 ss->inv->probes[pr->probe].name, (unsigned long long)pr->window_bytes,
			 (unsigned long long)(pr->st.rejected - pr->window_rejected));
		emit_error(ss, nd->index, ss->inv->probes[pr->probe].fmt, msg, "");
		source_log(ss, "%s: %s", host_name(nd->h), msg);
		chan_close(c);
		pr->chan = NULL;
		stream_end(&pr->st, wall_us());
		pr->restart_at = now + FLOOD_PAUSE_US;
	}
}

static void probe_done(void *ctx, struct ssh_chan *c, int status, const char *why)
{
	struct probe_run *pr = ctx;
	struct node_ctx *nd = pr->node;
	struct ssh_source *ss = nd->ss;
	const char *name = ss->inv->probes[pr->probe].name;
	int64_t now = mono_us();
	char msg[400];

	if (ss->stopping || pr->chan != c)
		return;
	pr->chan = NULL;
	stream_end(&pr->st, wall_us());
	if (now - pr->started > 60 * US_PER_SEC)
		pr->failures = 0;
	pr->failures++;
	pr->restart_at = now + MIN((int64_t)1 << MIN(pr->failures - 1, 6), 60) * US_PER_SEC;
	if (!host_is_up(nd->h))
		return;   /* the session went: its state says why */
	if (why && !strncmp(why, "silent", 6)) {
		snprintf(msg, sizeof msg, "%s %s; restarting it", name, why);
		if (pr->probe == PROBE_NVSMI && !nd->stale) {
			nd->stale = 1;
			emit_conn(ss, nd->index, host_name(nd->h), CONN_TIMEOUT, msg);
		}
	} else if (status >= 0) {
		snprintf(msg, sizeof msg, "%s probe exited with status %d%s%s", name, status, pr->errline[0] ? ": " : "",
			 pr->errline);
	} else {
		snprintf(msg, sizeof msg, "%s probe ended: %s", name, why ? why : "?");
	}
	emit_error(ss, nd->index, ss->inv->probes[pr->probe].fmt, msg, pr->errline);
	source_log(ss, "%s: %s", host_name(nd->h), msg);
}

static const struct chan_ops probe_ops = {probe_data, probe_done};

/* ---- services ---- */

static const struct chan_ops svc_ops;

static void poll_job(struct svc_job *j)
{
	struct svc_ctx *sc = j->sc;

	j->next_at = mono_us() + sc->svc->every_us;
	j->again = j->chan != NULL;
	if (j->chan || !host_is_up(sc->h))
		return;
	stream_discard(&j->st);
	j->got = 0;
	j->errline[0] = '\0';
	j->chan = pool_exec(sc->h, j->command, &svc_ops, j);
	if (j->chan)
		chan_set_timeouts(j->chan, MAX(sc->svc->every_us * 4, 30 * US_PER_SEC), 0);
}

static void svc_data(void *ctx, struct ssh_chan *c, const char *buf, size_t n, int is_stderr)
{
	struct svc_job *j = ctx;

	if (j->sc->ss->stopping || j->chan != c)
		return;
	if (is_stderr) {
		keep_line(j->errline, sizeof j->errline, buf, n);
	} else if (j->got + n <= DOC_MAX) {
		j->got += n;
		stream_feed(&j->st, buf, n, wall_us());   /* a Slurm document is read as it comes */
	} else {
		j->got = DOC_MAX + 1;
		snprintf(j->errline, sizeof j->errline, "output larger than 64 MiB");
	}
}

static void svc_done(void *ctx, struct ssh_chan *c, int status, const char *why)
{
	struct svc_job *j = ctx;
	struct ssh_source *ss = j->sc->ss;
	char msg[400];

	if (ss->stopping || j->chan != c)
		return;
	j->chan = NULL;
	if (status == 0 && j->got <= DOC_MAX && strcmp(j->errline, "output larger than 64 MiB")) {
		trace("polled %s %s", j->sc->svc->name, j->command);
		stream_end(&j->st, wall_us());
	} else if (host_is_up(j->sc->h)) {
		snprintf(msg, sizeof msg, "%s on %s: %s%s%s", j->command, host_name(j->sc->h),
			 status >= 0 ? "exited with a failure" : why ? why : "failed", j->errline[0] ? ": " : "", j->errline);
		emit_error(ss, -1, j->st.fmt, msg, j->errline);
		source_log(ss, "%s", msg);
	}
	stream_discard(&j->st);   /* what a failed poll printed says nothing */
	j->got = 0;
	if (j->again)
		poll_job(j);
}

static const struct chan_ops svc_ops = {svc_data, svc_done};

/* ---- commands on a service's host, for the backends ---- */

#define RUN_OUT_MAX ((size_t)1 << 20)
#define RUN_ERR_MAX ((size_t)16 << 10)

struct svc_run {
	struct ssh_source *ss;
	struct svc_ctx *sc;
	struct ssh_chan *chan;
	char *command;             /* while waiting for the session */
	struct svc_run *next;      /* in sc->waiting */
	struct sbuf out, err;
	svc_run_fn done;
	void *ctx;
};

static void run_free(struct svc_run *r)
{
	sbuf_free(&r->out);
	sbuf_free(&r->err);
	free(r->command);
	free(r);
}

static void unlink_waiting(struct svc_run *r)
{
	for (struct svc_run **pp = &r->sc->waiting; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			return;
		}
}

static void run_data(void *ctx, struct ssh_chan *c, const char *buf, size_t n, int is_stderr)
{
	struct svc_run *r = ctx;
	struct sbuf *b = is_stderr ? &r->err : &r->out;

	(void)c;
	if (b->len + n <= (is_stderr ? RUN_ERR_MAX : RUN_OUT_MAX))
		sbuf_add(b, buf, n);
}

static void run_done(void *ctx, struct ssh_chan *c, int status, const char *why)
{
	struct svc_run *r = ctx;

	(void)c;
	r->chan = NULL;
	if (!r->ss->stopping)
		r->done(r->ctx, status, r->out.s ? r->out.s : "", r->err.s ? r->err.s : "", why ? why : "");
	run_free(r);
}

static const struct chan_ops run_ops = {run_data, run_done};

static struct ssh_source *ssh_source_of(struct myriad *app)
{
	for (int i = 0; i < app->nsources; i++)
		if (app->sources[i]->ops == &ssh_source_ops)
			return app->sources[i]->priv;
	return NULL;
}

struct ssh_host *ssh_live_session(struct myriad *app, const struct loop *l, const char *name)
{
	struct ssh_source *ss = ssh_source_of(app);
	struct ssh_host *h = NULL;
	int i;

	if (!ss || ss->stopping || ss->loop != l)
		return NULL;
	if ((i = inventory_find(ss->inv, name)) >= 0 && i < ss->nnodes)
		h = ss->nodes[i].h;
	for (i = 0; !h && i < ss->nsvcs; i++)
		if (!strcmp(ss->svcs[i].svc->t.name, name))
			h = ss->svcs[i].h;
	return h && host_is_up(h) ? h : NULL;
}

static struct svc_ctx *service_of(struct ssh_source *ss, const char *service)
{
	for (int i = 0; ss && i < ss->nsvcs; i++)
		if (!strcmp(ss->svcs[i].svc->name, service))
			return &ss->svcs[i];
	return NULL;
}

static char *not_up(struct svc_ctx *sc)
{
	const char *d = host_detail(sc->h);

	return xasprintf("%s (%s) is not connected: %s%s%s", host_name(sc->h), sc->svc->name,
			 conn_state_name(host_state(sc->h)), *d ? ": " : "", d);
}

static int run_start(struct svc_run *r, const char *command)
{
	struct svc_ctx *sc = r->sc;

	if (!(r->chan = pool_exec(sc->h, command, &run_ops, r)))
		return -1;
	trace("run %s %s", sc->svc->name, command);
	source_log(sc->ss, "%s: run: %s", host_name(sc->h), command);
	return 0;
}

/* The service's session came up (start what waited) or failed (tell them). */
static void run_waiting(struct svc_ctx *sc)
{
	while (sc->waiting) {
		struct svc_run *r = sc->waiting;
		char *why = NULL;

		sc->waiting = r->next;
		if (host_is_up(sc->h) && run_start(r, r->command) == 0)
			continue;
		why = host_is_up(sc->h) ? xasprintf("%s: cannot open a channel", host_name(sc->h)) : not_up(sc);
		r->done(r->ctx, -2, "", "", why);
		free(why);
		run_free(r);
	}
}

struct svc_run *ssh_service_run(struct myriad *app, const char *service, const char *command, svc_run_fn done,
				void *ctx, char **why)
{
	struct svc_ctx *sc = service_of(ssh_source_of(app), service);
	struct svc_run *r;
	int state;

	if (!sc) {
		*why = xasprintf("no service %s is configured", service);
		return NULL;
	}
	state = host_state(sc->h);
	if (!host_is_up(sc->h) && state != CONN_CONNECTING && state != CONN_NONE) {
		*why = not_up(sc);
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	r->ss = sc->ss;
	r->sc = sc;
	r->done = done;
	r->ctx = ctx;
	if (!host_is_up(sc->h)) {   /* being set up: runs as soon as it is */
		r->command = xstrdup(command);
		r->next = sc->waiting;
		sc->waiting = r;
		return r;
	}
	if (run_start(r, command) < 0) {
		*why = xasprintf("%s (%s): cannot open a channel", host_name(sc->h), service);
		run_free(r);
		return NULL;
	}
	return r;
}

void ssh_service_run_cancel(struct svc_run *r)
{
	if (!r)
		return;
	if (r->chan)
		chan_close(r->chan);
	else
		unlink_waiting(r);
	run_free(r);
}

int ssh_tunnel(struct myriad *app, const char *via, const char *host, int port, char **err)
{
	struct ssh_source *ss = ssh_source_of(app);

	if (!ss) {
		*err = xasprintf("no SSH session to %s: the configuration names no host or service", via);
		return -1;
	}
	return pool_tunnel(ss->pool, via, host, port, err);
}

void ssh_service_poll_now(struct myriad *app, const char *service)
{
	struct svc_ctx *sc = service_of(ssh_source_of(app), service);

	for (int k = 0; sc && k < sc->njobs; k++)
		poll_job(&sc->jobs[k]);
}

/* ---- the pool's callbacks ---- */

static struct node_ctx *node_of(struct ssh_source *ss, struct ssh_host *h)
{
	void *u = host_udata(h);

	return u >= (void *)ss->nodes && u < (void *)(ss->nodes + ss->nnodes) ? u : NULL;
}

static void on_state(void *ctx, struct ssh_host *h, int state, const char *detail)
{
	struct ssh_source *ss = ctx;
	struct node_ctx *nd = node_of(ss, h);

	if (ss->stopping)
		return;
	if (nd) {
		nd->stale = 0;
		ss->nup += (state == CONN_UP) - nd->up;
		nd->up = state == CONN_UP;
		emit_conn(ss, nd->index, host_name(h), state, detail);
	} else {
		struct svc_ctx *sc = host_udata(h);

		emit_conn(ss, -1, sc->svc->name, state, detail);
		if (state != CONN_UP && state != CONN_CONNECTING)
			run_waiting(sc);   /* it failed: those waiting hear why */
	}
}

static void on_up(void *ctx, struct ssh_host *h)
{
	struct ssh_source *ss = ctx;
	struct node_ctx *nd = node_of(ss, h);

	if (nd) {
		for (int k = 0; k < PROBE_COUNT; k++)
			start_probe(&nd->probes[k]);
		return;
	}
	struct svc_ctx *sc = host_udata(h);

	for (int k = 0; k < sc->njobs; k++)
		poll_job(&sc->jobs[k]);
	run_waiting(sc);
}

static const struct pool_ops src_pool_ops = {on_state, on_up};

/* ---- housekeeping: restarts, polls, milestones ---- */

static void milestones(struct ssh_source *ss, int64_t now)
{
	double t = (double)(now - ss->t0) / US_PER_SEC;

	if (!ss->logged_up && ss->nnodes && ss->nup == ss->nnodes) {
		ss->logged_up = 1;
		source_log(ss, "all %d hosts up after %.3f s", ss->nnodes, t);
	}
	if (!ss->logged_streaming && ss->nnodes && ss->nstreaming == ss->nnodes) {
		ss->logged_streaming = 1;
		source_log(ss, "all %d hosts streaming after %.3f s", ss->nnodes, t);
	}
	if (now - ss->last_stats >= 10 * US_PER_SEC) {
		struct pool_stats st;

		ss->last_stats = now;
		pool_stats(ss->pool, &st);
		source_log(ss, "stats: %d/%d hosts up, %d connecting, %d channels, %d streaming, %lld handshakes, "
			   "%lld failures", st.up, st.hosts, st.connecting, st.channels, ss->nstreaming,
			   (long long)st.handshakes_done, (long long)st.failures);
	}
}

static void on_timer(void *ctx, int64_t id)
{
	struct ssh_source *ss = ctx;
	int64_t now = mono_us();

	(void)id;
	for (int i = 0; i < ss->nnodes; i++) {
		struct node_ctx *nd = &ss->nodes[i];

		if (!nd->up)
			continue;
		for (int k = 0; k < PROBE_COUNT; k++)
			if (nd->probes[k].restart_at && now >= nd->probes[k].restart_at)
				start_probe(&nd->probes[k]);
	}
	for (int i = 0; i < ss->nsvcs; i++)
		for (int k = 0; k < ss->svcs[i].njobs; k++)
			if (now >= ss->svcs[i].jobs[k].next_at)
				poll_job(&ss->svcs[i].jobs[k]);
	milestones(ss, now);
}

/* ---- the source ---- */

static void announce(struct ssh_source *ss)
{
	struct myriad *app = ss->app;
	const struct inventory *inv = ss->inv;
	struct event ev;
	int gpn = 1;

	for (int i = 0; i < inv->nhosts; i++)
		gpn = MAX(gpn, inv->hosts[i].gpus);
	memset(&ev, 0, sizeof ev);
	ev.type = EV_TOPOLOGY;
	ev.source = "ssh";
	ev.u.topology = (struct ev_topology){(inv->nhosts + 31) / 32, 32, gpn, inv->nhosts, inv->nhosts * gpn,
					     inv->cluster};
	app_emit(app, &ev);
	for (int32_t i = 0; i < inv->nhosts; i++) {
		ev.type = EV_NODE;
		ev.u.node = (struct ev_node){i, i / 32, i / 4, inv->hosts[i].gpus, inv->hosts[i].t.name};
		app_emit(app, &ev);
	}
	bus_flush(&app->bus);
}

static void setup_nodes(struct ssh_source *ss)
{
	struct myriad *app = ss->app;
	char src[48];

	ss->nnodes = ss->inv->nhosts;
	ss->nodes = xcalloc((size_t)ss->nnodes + 1, sizeof *ss->nodes);
	for (int i = 0; i < ss->nnodes; i++) {
		struct node_ctx *nd = &ss->nodes[i];

		nd->ss = ss;
		nd->index = i;
		snprintf(src, sizeof src, "ssh:%s", ss->inv->hosts[i].t.name);
		for (int k = 0; k < PROBE_COUNT; k++) {
			nd->probes[k].node = nd;
			nd->probes[k].probe = k;
			stream_init(&nd->probes[k].st, &app->bus, &app->model, i, ss->inv->probes[k].fmt, src);
			if (k == PROBE_IB)
				stream_set_rails(&nd->probes[k].st, (const char *const *)ss->inv->probes[k].rails,
						 ss->inv->probes[k].nrails);
		}
		nd->h = pool_add(ss->pool, &ss->inv->hosts[i].t, nd);
	}
}

static void setup_services(struct ssh_source *ss)
{
	struct myriad *app = ss->app;

	ss->nsvcs = ss->inv->nservices;
	ss->svcs = xcalloc((size_t)ss->nsvcs + 1, sizeof *ss->svcs);
	for (int i = 0; i < ss->nsvcs; i++) {
		struct svc_ctx *sc = &ss->svcs[i];
		const struct inv_service *svc = &ss->inv->services[i];

		sc->ss = ss;
		sc->svc = svc;
		if (svc->kind == SVC_SLURM) {
			sc->njobs = 2;
			sc->jobs[0].command = slurm_command(svc, 2, (const char *const[]){"sinfo", "--json"});
			sc->jobs[1].command = slurm_command(svc, 2, (const char *const[]){"squeue", "--json"});
			stream_init(&sc->jobs[0].st, &app->bus, &app->model, -1, FMT_SLURM_NODES, svc->name);
			stream_init(&sc->jobs[1].st, &app->bus, &app->model, -1, FMT_SLURM_JOBS, svc->name);
		} else {
			sc->njobs = 1;
			sc->jobs[0].command = xstrdup(svc->command);
			stream_init(&sc->jobs[0].st, &app->bus, &app->model, -1, FMT_FACILITY, svc->name);
		}
		for (int k = 0; k < sc->njobs; k++)
			sc->jobs[k].sc = sc;
		sc->h = pool_add(ss->pool, &svc->t, sc);
	}
}

/* A session per host reached directly (those behind -via ride their
 * gateway's), per service, and room for one fan-out at its default width. */
static int room_for_sessions(const struct inventory *inv, char **err)
{
	long direct = inv->nservices + 256;
	char *why = NULL;

	for (int i = 0; i < inv->nhosts; i++)
		direct += !inv->hosts[i].t.via;
	if (fd_limit_room(direct, &why) == 0)
		return 0;
	*err = xasprintf("%d hosts and %d services: %s", inv->nhosts, inv->nservices, why);
	free(why);
	return -1;
}

static int ssh_start(struct source *src, const char *args, char **err)
{
	struct myriad *app = src->app;
	struct inventory *inv = inventory_peek(app);
	struct ssh_source *ss;

	(void)args;
	if (!inv || (inv->nhosts == 0 && inv->nservices == 0)) {
		*err = xstrdup("the configuration names no host and no service");
		return -1;
	}
	if (room_for_sessions(inv, err) < 0)
		return -1;
	ss = xcalloc(1, sizeof *ss);
	ss->app = app;
	ss->inv = inv;
	src->priv = ss;
	app->virtual_time = 0;
	app->start = app->now = wall_us();
	if (inv->nhosts)
		announce(ss);
	ss->loop = app->loop;
	if (inv->log && !(ss->log = fopen(inv->log, "a")))
		fprintf(stderr, "myriad: ssh -log %s: cannot open\n", inv->log);
	ss->t0 = ss->last_stats = mono_us();
	ss->pool = pool_new(ss->loop, inv, &src_pool_ops, ss, 1, 0);
	setup_nodes(ss);
	setup_services(ss);
	if (inventory_service(inv, "slurm"))   /* actions go to the site's own Slurm */
		slurm_backend_start(app, inventory_service(inv, "slurm"));
	ss->timer = loop_timer(ss->loop, 200, 200, on_timer, ss);
	source_log(ss, "started: %d hosts, %d services", ss->nnodes, ss->nsvcs);
	return 0;
}

static void ssh_stop(struct source *src)
{
	struct ssh_source *ss = src->priv;

	if (!ss)
		return;
	ss->stopping = 1;
	loop_timer_cancel(ss->loop, ss->timer);
	pool_free(ss->pool);
	for (int i = 0; i < ss->nnodes; i++)
		for (int k = 0; k < PROBE_COUNT; k++)
			stream_free(&ss->nodes[i].probes[k].st);
	for (int i = 0; i < ss->nsvcs; i++)
		for (int k = 0; k < ss->svcs[i].njobs; k++) {
			stream_free(&ss->svcs[i].jobs[k].st);
			free(ss->svcs[i].jobs[k].command);
		}
	for (int i = 0; i < ss->nsvcs; i++)
		while (ss->svcs[i].waiting) {
			struct svc_run *r = ss->svcs[i].waiting;

			ss->svcs[i].waiting = r->next;
			run_free(r);
		}
	if (ss->log)
		fclose(ss->log);
	free(ss->nodes);
	free(ss->svcs);
	free(ss);
	src->priv = NULL;
}

const struct source_ops ssh_source_ops = {
	.name = "ssh",
	.abi = MYRIAD_ABI,
	.start = ssh_start,
	.stop = ssh_stop,
};

int ssh_configure(struct myriad *app, const char *config, int *started, char **err)
{
	const struct inventory *inv;

	*started = 0;
	if (inventory_load_config(app, config, err) < 0)
		return -1;
	inv = inventory_peek(app);
	if (!inv || (inv->nhosts == 0 && inv->nservices == 0))
		return 0;
	if (app_add_source(app, "ssh", "", err) < 0)
		return -1;
	*started = 1;
	return 0;
}
