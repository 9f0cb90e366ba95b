/*
 * fanout.c - one command on many nodes (see fanout.h): the run over a
 * one-shot session pool, printing by line or gathering, the summary and the
 * `myriad fanout` subcommand.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "fanout.h"
#include "inventory.h"
#include "pool.h"
#include "quote.h"
#include "../nodeset.h"

struct fo_node {
	struct fo_run *run;
	struct fanout_result *r;
	struct sbuf part[2];     /* partial lines, stdout and stderr (line mode) */
	int done;
};

struct fo_run {
	const struct fanout_opts *o;
	const char *command;
	struct fo_node *nodes;
	struct inv_target *own;  /* targets for names outside the inventory */
	int n;
};

void fanout_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- output ---- */

static void emit_lines(struct fo_node *nd, const char *buf, size_t n, int is_stderr, int flush)
{
	const struct fanout_opts *o = nd->run->o;
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
	if (!nd->run->o->gather) {
		emit_lines(nd, buf, n, is_stderr, 0);
		return;
	}
	if (b->len + n > FANOUT_OUTPUT_MAX) {
		n = FANOUT_OUTPUT_MAX - b->len;
		nd->r->truncated = 1;
	}
	sbuf_add(b, buf, n);
}

static void node_done(struct fo_node *nd, int status, int conn, const char *why)
{
	if (nd->done)
		return;
	nd->done = 1;
	nd->r->status = status;
	nd->r->conn = conn;
	nd->r->why = why && *why ? xstrdup(why) : NULL;
	if (!nd->run->o->gather)
		for (int k = 0; k < 2; k++)
			emit_lines(nd, "", 0, k, 1);
}

static void on_done(void *ctx, struct ssh_chan *c, int status, const char *why)
{
	struct fo_node *nd = ctx;

	node_done(nd, status, CONN_UP, why);
	pool_disconnect(chan_host(c));
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
	if (nd->run->o->timeout_s > 0)
		chan_set_timeouts(c, (int64_t)(nd->run->o->timeout_s * US_PER_SEC), 0);
}

static const struct pool_ops fo_pool_ops = {on_state, on_up};

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

static void run_pool(struct myriad *app, struct fo_run *run, char **names)
{
	struct inventory *inv = inventory_of(app);
	struct loop *l = loop_new();
	int64_t saved_timeout = inv->connect_timeout_us;
	int saved_hs = inv->handshakes, fan = run->o->fanout > 0 ? run->o->fanout : 256;

	if (run->o->timeout_s > 0)
		inv->connect_timeout_us = MIN(inv->connect_timeout_us, (int64_t)(run->o->timeout_s * US_PER_SEC));
	inv->handshakes = MIN(inv->handshakes, fan);
	struct ssh_pool *pool = pool_new(l, inv, &fo_pool_ops, run, 0, fan);

	for (int i = 0; i < run->n; i++) {
		const struct inv_target *t = inventory_target(inv, names[i]);

		if (!t)
			t = &run->own[i];

		run->own[i].name = names[i];   /* outside the inventory: ssh_config and defaults */
		pool_add(pool, t, &run->nodes[i]);
	}
	while (pool_pending(pool) > 0)
		loop_once(l, 1000);
	pool_free(pool);
	loop_free(l);
	inv->connect_timeout_us = saved_timeout;
	inv->handshakes = saved_hs;
}

int fanout_run(struct myriad *app, const char *nodeset, const char *command, const struct fanout_opts *o,
	       struct fanout_result **res, int *nres, char **err)
{
	struct nodeset *ns = nodeset_from(nodeset, err);
	struct collect names = {0};
	struct fo_run run;

	*res = NULL;
	*nres = 0;
	if (!ns)
		return -1;
	nodeset_foreach(ns, collect_name, &names);
	nodeset_free(ns);
	fanout_raise_fd_limit();
	memset(&run, 0, sizeof run);
	run.o = o;
	run.command = command;
	run.n = names.n;
	run.nodes = xcalloc((size_t)names.n + 1, sizeof *run.nodes);
	run.own = xcalloc((size_t)names.n + 1, sizeof *run.own);
	*res = xcalloc((size_t)names.n + 1, sizeof **res);
	for (int i = 0; i < names.n; i++) {
		run.nodes[i].run = &run;
		run.nodes[i].r = &(*res)[i];
		(*res)[i].name = names.names[i];
		(*res)[i].status = -1;
	}
	if (names.n)
		run_pool(app, &run, names.names);
	for (int i = 0; i < names.n; i++) {
		sbuf_free(&run.nodes[i].part[0]);
		sbuf_free(&run.nodes[i].part[1]);
	}
	free(run.nodes);
	free(run.own);
	free(names.names);
	*nres = names.n;
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
