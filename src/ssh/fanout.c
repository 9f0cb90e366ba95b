/*
 * fanout.c - one command on many nodes (see fanout.h): a run over a
 * one-shot session pool on any loop (the console's, so the screen keeps
 * living, or a private one for the blocking form), printing by line or
 * gathering.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fanout.h"
#include "inventory.h"
#include "pool.h"
#include "quote.h"
#include "source_ssh.h"
#include "../fdlimit.h"
#include "../nodeset.h"

struct fo_node {
	struct fanout *run;
	struct fanout_result *r;
	struct sbuf part[2];     /* partial lines, stdout and stderr (line mode) */
	const struct inv_target *t;
	struct ssh_chan *live;   /* running on a session the console keeps (not ours to close) */
	int done;
};

struct fanout {
	struct fanout_opts o;
	char *command;
	struct fo_node *nodes;
	struct inv_target *own;  /* targets for names outside the inventory */
	struct fanout_result *res;
	int n, ndone;
	struct loop *loop;
	struct ssh_pool *pool;
	int64_t end_timer;       /* scheduled once every node is done */
	fanout_done_fn done;
	void *ctx;
};

/* One descriptor per session connecting or running at once; refused before
 * any connection when the limit cannot be raised that far. */
static int room_for_sessions(int nodes, int fan, char **err)
{
	int at_once = MIN(nodes, fan);
	char *why = NULL;

	if (fd_limit_room(at_once, &why) == 0)
		return 0;
	*err = xasprintf("%d nodes, %d sessions at once (fan-out %d): %s; or a smaller fan-out (myriad fanout -f N)",
			 nodes, at_once, fan, why);
	free(why);
	return -1;
}

/* ---- output ---- */

static void emit_lines(struct fo_node *nd, const char *buf, size_t n, int is_stderr, int flush)
{
	const struct fanout_opts *o = &nd->run->o;
	struct sbuf *p = &nd->part[is_stderr];

	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;

		if (!nl && p->len + take < 65536) {   /* longer lines are cut into pieces */
			sbuf_add(p, buf, take);
			break;
		}
		sbuf_add(p, buf, take);
		o->line(o->ctx, nd->r->name, p->s, p->len, is_stderr);
		sbuf_reset(p);
		if (!nl)
			break;
		buf = nl + 1;
		n -= take + 1;
	}
	if (flush && p->len) {
		o->line(o->ctx, nd->r->name, p->s, p->len, is_stderr);
		sbuf_reset(p);
	}
}

static void on_data(void *ctx, struct ssh_chan *c, const char *buf, size_t n, int is_stderr)
{
	struct fo_node *nd = ctx;
	struct sbuf *b = is_stderr ? &nd->r->err : &nd->r->out;

	(void)c;
	if (!nd->run->o.gather) {
		emit_lines(nd, buf, n, is_stderr, 0);
		return;
	}
	if (b->len + n > FANOUT_OUTPUT_MAX) {
		n = FANOUT_OUTPUT_MAX - b->len;
		nd->r->truncated = 1;
	}
	sbuf_add(b, buf, n);
}

static void schedule_end(struct fanout *f);

static void node_done(struct fo_node *nd, int status, int conn, const char *why)
{
	if (nd->done)
		return;
	nd->done = 1;
	nd->r->status = status;
	nd->r->conn = conn;
	nd->r->why = why && *why ? xstrdup(why) : NULL;
	if (!nd->run->o.gather)
		for (int k = 0; k < 2; k++)
			emit_lines(nd, "", 0, k, 1);
	if (++nd->run->ndone == nd->run->n)
		schedule_end(nd->run);
}

static void on_done(void *ctx, struct ssh_chan *c, int status, const char *why)
{
	struct fo_node *nd = ctx;

	if (!nd->live) {
		node_done(nd, status, CONN_UP, why);
		pool_disconnect(chan_host(c));
		return;
	}
	nd->live = NULL;
	if (!chan_opened(c) && !nd->done)   /* the command never ran there: log in as the one-shot form does */
		pool_add(nd->run->pool, nd->t, nd);
	else
		node_done(nd, status, CONN_UP, why);
}

static const struct chan_ops fo_chan_ops = {on_data, on_done};

static void on_state(void *ctx, struct ssh_host *h, int state, const char *detail)
{
	struct fo_node *nd = host_udata(h);

	(void)ctx;
	if (state != CONN_CONNECTING && state != CONN_UP)
		node_done(nd, -1, state, detail);
}

static void on_up(void *ctx, struct ssh_host *h)
{
	struct fo_node *nd = host_udata(h);
	struct ssh_chan *c = pool_exec(h, nd->run->command, &fo_chan_ops, nd);

	(void)ctx;
	if (!c) {
		node_done(nd, -1, CONN_CLOSED, "cannot open a channel");
		pool_disconnect(h);
		return;
	}
	if (nd->run->o.timeout_s > 0)
		chan_set_timeouts(c, (int64_t)(nd->run->o.timeout_s * US_PER_SEC), 0);
}

static const struct pool_ops fo_pool_ops = {on_state, on_up};

/* On the console's loop, a node whose session the console holds runs the
 * command on an exec channel there: no new login. 0: log in instead. */
static int start_live(struct myriad *app, struct fo_node *nd)
{
	struct ssh_host *h = ssh_live_session(app, nd->run->loop, nd->r->name);

	if (!h || !(nd->live = pool_exec(h, nd->run->command, &fo_chan_ops, nd)))
		return 0;
	if (nd->run->o.timeout_s > 0)
		chan_set_timeouts(nd->live, (int64_t)(nd->run->o.timeout_s * US_PER_SEC), 0);
	return 1;
}

/* ---- the run ---- */

struct collect {
	char **names;
	int n, cap;
};

static int collect_name(void *ctx, const char *name)
{
	struct collect *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->names = xrealloc(c->names, sizeof *c->names * (size_t)c->cap);
	}
	c->names[c->n++] = xstrdup(name);
	return 0;
}

/* Frees the run; the results go to the caller (*res) or are freed. */
static void run_free(struct fanout *f, struct fanout_result **res)
{
	if (f->end_timer)
		loop_timer_cancel(f->loop, f->end_timer);
	pool_free(f->pool);   /* sessions still closing are closed now */
	for (int i = 0; i < f->n; i++) {
		if (f->nodes[i].live)
			chan_close(f->nodes[i].live);   /* the console's session goes on */
		sbuf_free(&f->nodes[i].part[0]);
		sbuf_free(&f->nodes[i].part[1]);
	}
	if (res)
		*res = f->res;
	else
		fanout_results_free(f->res, f->n);
	free(f->nodes);
	free(f->own);
	free(f->command);
	free(f);
}

/* Every node is done: hand the results over from the loop, not from inside
 * a pool callback (the pool is freed first). */
static void on_end(void *ctx, int64_t id)
{
	struct fanout *f = ctx;
	struct fanout_result *res;
	fanout_done_fn done = f->done;
	void *dctx = f->ctx;
	int n = f->n;

	(void)id;
	f->end_timer = 0;
	run_free(f, &res);
	done(dctx, res, n);
}

static void schedule_end(struct fanout *f)
{
	if (!f->end_timer)
		f->end_timer = loop_timer(f->loop, 0, 0, on_end, f);
}

struct fanout *fanout_start(struct myriad *app, struct loop *l, const char *nodeset, const char *command,
			    const struct fanout_opts *o, fanout_done_fn done, void *ctx, char **err)
{
	struct inventory *inv = inventory_of(app);
	struct nodeset *ns = nodeset_from(nodeset, err);
	struct collect names = {0};
	struct fanout *f;
	int fan = o->fanout > 0 ? o->fanout : 256;

	int most = o->max_nodes > 0 ? o->max_nodes : FANOUT_MAX_NODES;

	if (!ns)
		return NULL;
	if (nodeset_count(ns) > (size_t)most) {   /* before a name is made: gpu[1-99999999] is cheap to write */
		*err = xasprintf("%s names %zu nodes, more than one fan-out reaches (%d; raise it with myriad fanout -m N, Tcl fanout -max N, up to %d)",
				 nodeset, nodeset_count(ns), most, FANOUT_MAX_NODES_CAP);
		nodeset_free(ns);
		return NULL;
	}
	nodeset_foreach(ns, collect_name, &names);
	nodeset_free(ns);
	if (room_for_sessions(names.n, fan, err) < 0) {
		for (int i = 0; i < names.n; i++)
			free(names.names[i]);
		free(names.names);
		return NULL;
	}
	f = xcalloc(1, sizeof *f);
	f->o = *o;
	f->command = xstrdup(command);
	f->n = names.n;
	f->loop = l;
	f->done = done;
	f->ctx = ctx;
	f->nodes = xcalloc((size_t)f->n + 1, sizeof *f->nodes);
	f->own = xcalloc((size_t)f->n + 1, sizeof *f->own);
	f->res = xcalloc((size_t)f->n + 1, sizeof *f->res);
	f->pool = pool_new(l, inv, &fo_pool_ops, f, 0, fan);
	pool_set_limits(f->pool, o->timeout_s > 0 ? MIN(inv->connect_timeout_us, (int64_t)(o->timeout_s * US_PER_SEC)) : 0,
			MIN(inv->handshakes, fan));
	for (int i = 0; i < f->n; i++) {
		const struct inv_target *t = inventory_target(inv, names.names[i]);

		f->nodes[i].run = f;
		f->nodes[i].r = &f->res[i];
		f->res[i].name = names.names[i];
		f->res[i].status = -1;
		f->own[i].name = names.names[i];   /* outside the inventory: ssh_config and defaults */
		f->nodes[i].t = t ? t : &f->own[i];
		if (!start_live(app, &f->nodes[i]))
			pool_add(f->pool, f->nodes[i].t, &f->nodes[i]);
	}
	free(names.names);
	if (f->n == 0)
		schedule_end(f);
	return f;
}

void fanout_cancel(struct fanout *f)
{
	if (f)
		run_free(f, NULL);
}

int fanout_nodes(const struct fanout *f)
{
	return f->n;
}

struct sync_wait {
	struct fanout_result *res;
	int n, finished;
};

static void sync_done(void *ctx, struct fanout_result *res, int n)
{
	struct sync_wait *w = ctx;

	w->res = res;
	w->n = n;
	w->finished = 1;
}

int fanout_run(struct myriad *app, const char *nodeset, const char *command, const struct fanout_opts *o,
	       struct fanout_result **res, int *nres, char **err)
{
	struct loop *l = loop_new();
	struct sync_wait w = {0};

	*res = NULL;
	*nres = 0;
	if (!fanout_start(app, l, nodeset, command, o, sync_done, &w, err)) {
		loop_free(l);
		return -1;
	}
	while (!w.finished)
		loop_once(l, 1000);
	loop_free(l);
	*res = w.res;
	*nres = w.n;
	return 0;
}

void fanout_results_free(struct fanout_result *r, int n)
{
	for (int i = 0; r && i < n; i++) {
		free(r[i].name);
		free(r[i].why);
		sbuf_free(&r[i].out);
		sbuf_free(&r[i].err);
	}
	free(r);
}
