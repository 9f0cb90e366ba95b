/*
 * topology.c - the fabric by scalable unit: core, spine and leaf tiers as
 * topo.h derives them (DGX SuperPOD pattern), and for every SU the state of
 * its node ports rail by rail (each rail is one leaf switch): how many are
 * ACTIVE, which rails have ports down, and the error counters' increase
 * since the previous reading. Enter drills into an SU: its 32 nodes x 8
 * rails, port by port, with the counters of the selected port.
 */
#include <stdio.h>
#include <string.h>
#include "ui/ui_int.h"

struct topop {
	struct console *c;
	struct list l;         /* SUs, or the nodes of the drilled SU */
	int drill;             /* -1: overview; else the SU shown */
	int rail;              /* drill: selected rail */
	int saved;             /* overview cursor while drilled */
};

struct rail_sum {
	int active, down, unknown;
	uint64_t sym, rcv, downed;
};

static void *topo_init(struct console *c)
{
	struct topop *p = xcalloc(1, sizeof *p);

	p->c = c;
	p->drill = -1;
	return p;
}

static void topo_free(void *st)
{
	free(st);
}

static int npsu(const struct model *m)
{
	return m->topo.nodes_per_su > 0 ? m->topo.nodes_per_su : 32;
}

static void sum_rail(const struct model *m, int su, int r, struct rail_sum *s)
{
	int n = npsu(m);

	memset(s, 0, sizeof *s);
	for (int32_t i = su * n; i < MIN((su + 1) * n, m->nnodes); i++) {
		const struct ib_port *pt = &m->ports[i * m->topo.rails + r];

		s->active += pt->state == IBP_ACTIVE;
		s->unknown += pt->state == IBP_UNKNOWN;
		s->down += pt->state != IBP_ACTIVE && pt->state != IBP_UNKNOWN;
		s->sym += pt->delta[IBC_SYMBOL_ERROR];
		s->rcv += pt->delta[IBC_PORT_RCV_ERRORS];
		s->downed += pt->delta[IBC_LINK_DOWNED];
	}
}

static int tiers(struct topop *p, const struct view *v, int y)
{
	const struct model *m = &p->c->app->model;
	const struct topo *t = &m->topo;
	int active = 0, down = 0, unknown = 0, x;
	uint64_t sym = 0, rcv = 0, downed = 0;
	char ports[32];

	for (int32_t i = 0; i < m->nnodes * t->rails; i++) {
		const struct ib_port *pt = &m->ports[i];

		active += pt->state == IBP_ACTIVE;
		unknown += pt->state == IBP_UNKNOWN;
		down += pt->state != IBP_ACTIVE && pt->state != IBP_UNKNOWN;
		sym += pt->delta[IBC_SYMBOL_ERROR];
		rcv += pt->delta[IBC_PORT_RCV_ERRORS];
		downed += pt->delta[IBC_LINK_DOWNED];
	}
	fmt_count((long long)m->nnodes * t->rails, ports, sizeof ports);
	if (t->tiers == 3)
		view_textf(v, 1, y++, -1, R_NORMAL, "core %d  -  spine %d (%d rail groups)  -  leaf %d (one per rail per SU)  -  "
			   "%s node ports", t->cores, t->spines, t->rails, t->leaves, ports);
	else
		view_textf(v, 1, y++, -1, R_NORMAL, "spine %d (every leaf to every spine)  -  leaf %d (one per rail per SU)  -  "
			   "%s node ports", t->spines, t->leaves, ports);
	/* one after the other: a count of any length never runs into the next */
	x = 1 + view_textf(v, 1, y, -1, down ? R_ERR : R_GOOD, "%d active", active);
	x = MAX(16, x + 3) + view_textf(v, MAX(16, x + 3), y, -1, down ? R_ERR : R_DIM, "%d down", down);
	x = MAX(28, x + 3) + view_textf(v, MAX(28, x + 3), y, -1, unknown ? R_WARN : R_DIM, "%d not read yet", unknown);
	view_textf(v, MAX(48, x + 3), y++, -1, sym || rcv || downed ? R_WARN : R_DIM,
		   "since the last reading: symbol errors +%llu  rcv errors +%llu  link_downed +%llu",
		   (unsigned long long)sym, (unsigned long long)rcv, (unsigned long long)downed);
	return y + 1;
}

/* One rail of an SU: its active ports in 4 columns, a mark if any is down. */
static void rail_cell(const struct view *v, int x, int y, const struct rail_sum *s)
{
	char b[16];

	fmt_fit(s->active, 0, "", 4, b, sizeof b);
	view_field(v, x, y, 4, 1, s->down ? R_ERR : s->unknown ? R_DIM : s->sym || s->rcv ? R_WARN : R_GOOD, b);
	view_text(v, x + 4, y, 1, s->down ? R_ERR : R_DIM, s->down ? (text_utf8 ? "\u2717" : "x") : " ");
}

/* An SU's totals under " down   symbol+   rcv+  downed+", each in its
 * columns (fmt_fit: shortened, never cut) with a space between. */
static void sums(const struct view *v, int x, int y, const struct rail_sum *t)
{
	const uint64_t val[] = {(uint64_t)t->down, t->sym, t->rcv, t->downed};
	static const int at[] = {0, 6, 16, 23}, w[] = {5, 9, 6, 8};
	const int role[] = {t->down ? R_ERR : R_DIM, t->sym ? R_WARN : R_DIM, t->rcv ? R_WARN : R_DIM,
			    t->downed ? R_ERR : R_DIM};
	char b[32];

	for (int i = 0; i < 4; i++) {
		fmt_fit_u64(val[i], "", w[i], b, sizeof b);
		view_field(v, x + at[i], y, w[i], 1, role[i], b);
	}
}

static void overview(struct topop *p, const struct view *v)
{
	const struct model *m = &p->c->app->model;
	int rails = m->topo.rails, y = tiers(p, v, 1), rows, x;

	p->l.n = m->topo.sus;
	view_fill(v, 0, y, v->w, ' ', R_COLHEAD);
	view_text(v, 1, y, -1, R_COLHEAD, "SU");
	for (int r = 0; r < rails; r++)
		view_textf(v, 6 + r * 7, y, 6, R_COLHEAD, "   r%d", r);
	x = 6 + rails * 7;
	view_text(v, x, y++, -1, R_COLHEAD, " down   symbol+   rcv+  downed+   leaves");
	rows = MAX(1, v->h - y);
	list_fix(&p->l, rows);
	if (p->l.n > rows)   /* 400 SUs do not fit: say which are shown */
		view_textf(v, x + 42, y - 1, -1, R_COLHEAD, "SUs %d-%d of %d (PgDn PgUp)", p->l.top + 1,
			   MIN(p->l.n, p->l.top + rows), p->l.n);
	for (int su = p->l.top; su < p->l.n && su < p->l.top + rows; su++, y++) {
		struct rail_sum s, tot = {0};

		view_textf(v, 1, y, -1, R_LABEL, "SU%02d", su + 1);
		for (int r = 0; r < rails; r++) {
			sum_rail(m, su, r, &s);
			tot.down += s.down;
			tot.sym += s.sym;
			tot.rcv += s.rcv;
			tot.downed += s.downed;
			rail_cell(v, 6 + r * 7, y, &s);
		}
		sums(v, x, y, &tot);
		view_textf(v, x + 34, y, -1, R_DIM, "leaf-s%02d-r[0-%d]", su + 1, rails - 1);
		if (su == p->l.cur)
			view_recolor(v, 0, y, 5, R_SELECTED);
	}
}

/* One counter as "name value +increase" (fmt_fit: shortened to w columns
 * each when w > 0, else exact); returns its width. */
static int counter_item(const struct ib_port *pt, int c, int w, char *b, size_t size)
{
	char val[32], d[32] = "";

	fmt_fit_u64(pt->c[c], "", w > 0 ? w : 20, val, sizeof val);
	if (pt->delta[c])
		fmt_fit_u64(pt->delta[c], "", w > 0 ? w : 20, d, sizeof d);
	snprintf(b, size, "%s %s%s%s", ib_counter_name(c), val, d[0] ? " +" : "", d);
	return text_width(b);
}

/* The counters of a port flowed over rows from y, three spaces apart, in
 * full, or shortened when an item alone is wider than a row. Returns the
 * rows used; draws only when draw is set. */
static int port_counters(const struct view *v, int y, const struct ib_port *pt, int draw)
{
	int x = 1, rows = 1;

	for (int c = 0; c < IBC_COUNT; c++) {
		char b[128];
		int w = counter_item(pt, c, 0, b, sizeof b), role;

		if (w > v->w - 1)
			w = counter_item(pt, c, 6, b, sizeof b);
		if (x > 1 && x + w > v->w) {
			x = 1;
			y++;
			rows++;
		}
		role = pt->delta[c] && c < IBC_PORT_XMIT_WAIT ? R_WARN : R_NORMAL;
		if (draw)
			view_text(v, x, y, -1, role, b);
		x += w + 3;
	}
	return rows;
}

/* The selected port: its node, rail, leaf and state, then its counters, in
 * the rows at the bottom of v. Returns the rows it takes. */
static int port_detail(struct topop *p, const struct view *v, int32_t node, int draw)
{
	static const char *const states[] = {"not read yet", "DOWN", "INIT", "ARMED", "ACTIVE"};
	const struct model *m = &p->c->app->model;
	const struct ib_port *pt = &m->ports[node * m->topo.rails + p->rail];
	int rows = 1 + port_counters(v, 0, pt, 0), y = v->h - rows;
	char leaf[32];

	if (!draw)
		return rows;
	topo_switch_name(&m->topo, topo_leaf(&m->topo, p->drill, p->rail), leaf, sizeof leaf);
	view_textf(v, 1, y, -1, R_COLHEAD, "%s rail %d (mlx5_%d) -> %s: %s", m->nodes[node].name, p->rail, p->rail,
		   leaf, states[pt->state >= 0 && pt->state <= 4 ? pt->state : 0]);
	port_counters(v, y + 1, pt, 1);
	return rows;
}

/* A node's port on one rail in the drill-down: its state, and the new
 * symbol and receive errors (fmt_fit into the cell's 8 columns). */
static void port_cell(const struct view *v, int x, int y, const struct ib_port *pt, int selected)
{
	uint64_t err = pt->delta[IBC_SYMBOL_ERROR] + pt->delta[IBC_PORT_RCV_ERRORS];
	int role = pt->state == IBP_ACTIVE ? (err ? R_WARN : R_GOOD) : pt->state ? R_ERR : R_DIM;
	char b[32];

	snprintf(b, sizeof b, "%s", pt->state == IBP_ACTIVE ? (text_utf8 ? "\u25cf" : "o")
				    : pt->state ? (text_utf8 ? "\u2717" : "x") : ".");
	if (err) {   /* "● +" and the count in the 5 columns left */
		snprintf(b + strlen(b), sizeof b - strlen(b), " +");
		fmt_fit_u64(err, "", 5, b + strlen(b), sizeof b - strlen(b));
	}
	view_text(v, x, y, 8, selected ? R_SELECTED : role, b);
}

static void drilled(struct topop *p, const struct view *v)
{
	const struct model *m = &p->c->app->model;
	int n = npsu(m), first = p->drill * n, rails = m->topo.rails, y = 2, rows, detail_rows;
	char detail[160];

	p->l.n = MAX(0, MIN(n, m->nnodes - first));
	p->rail = MAX(0, MIN(p->rail, rails - 1));
	snprintf(detail, sizeof detail, "%s; each leaf has %d uplinks   (Escape: all SUs, Left/Right: rail)",
		 m->topo.tiers == 3 ? "leaves go up to the spines of their rail group, spines to the cores"
				    : "every leaf links to every spine", TOPO_LEAF_UP);
	view_textf(v, 0, 0, -1, R_TITLE, "SU%02d", p->drill + 1);
	view_text(v, 6, 0, -1, R_DIM, detail);
	view_fill(v, 0, 1, v->w, ' ', R_COLHEAD);
	view_text(v, 1, 1, -1, R_COLHEAD, "node");
	for (int r = 0; r < rails; r++)
		view_textf(v, 10 + r * 9, 1, 9, R_COLHEAD, "r%d", r);
	/* the list gets what the port's detail leaves, a row apart from it */
	detail_rows = p->l.n ? port_detail(p, v, first + MAX(0, MIN(p->l.cur, p->l.n - 1)), 0) : 0;
	rows = MAX(1, v->h - y - 1 - detail_rows);
	list_fix(&p->l, rows);
	for (int i = p->l.top; i < p->l.n && i < p->l.top + rows; i++, y++) {
		int32_t node = first + i;

		view_text(v, 1, y, 8, i == p->l.cur ? R_SELECTED : R_LABEL, m->nodes[node].name);
		for (int r = 0; r < rails; r++)
			port_cell(v, 10 + r * 9, y, &m->ports[node * rails + r], i == p->l.cur && r == p->rail);
	}
	if (p->l.n)
		port_detail(p, v, first + p->l.cur, 1);
}

static void topo_draw(void *st, const struct view *v)
{
	struct topop *p = st;
	const struct model *m = &p->c->app->model;
	char title[128];

	if (!m->nnodes || !m->ports) {
		view_text(v, 0, 0, -1, R_DIM, "no fabric yet");
		return;
	}
	if (p->drill >= 0) {
		drilled(p, v);
		return;
	}
	snprintf(title, sizeof title, "%d tiers, %d SUs: node ports per rail (active of %d), errors since the last "
		 "reading   Enter: drill into an SU", m->topo.tiers, m->topo.sus, npsu(m));
	draw_title(v, "Topology", title);
	overview(p, v);
}

static int topo_key(void *st, enum panel_cmd a)
{
	struct topop *p = st;

	if (p->drill >= 0 && (a == PC_LEFT || a == PC_RIGHT)) {
		p->rail += a == PC_LEFT ? -1 : 1;
		return 1;
	}
	if (list_key(&p->l, a, p->c->h - 10))
		return 1;
	if (a == PC_SELECT && p->drill < 0 && p->l.n) {
		p->saved = p->l.cur;
		p->drill = p->l.cur;
		p->l.cur = p->l.top = 0;
		return 1;
	}
	if (a == PC_SELECT && p->drill >= 0) {
		console_show_node(p->c, p->drill * npsu(&p->c->app->model) + p->l.cur);
		return 1;
	}
	if (a == PC_BACK && p->drill >= 0) {
		p->drill = -1;
		p->l.cur = p->saved;
		return 1;
	}
	return 0;
}

static int topo_target(void *st, struct target *t)
{
	struct topop *p = st;

	if (p->drill < 0 || !p->l.n)
		return 0;
	t->node = p->drill * npsu(&p->c->app->model) + p->l.cur;
	return 1;
}

static void topo_click(void *st, int x, int y)
{
	struct topop *p = st;
	int first = p->drill >= 0 ? 2 : 5;

	if (y >= first && p->l.top + y - first < p->l.n) {
		p->l.cur = p->l.top + y - first;
		if (p->drill >= 0 && x >= 10)
			p->rail = (x - 10) / 9;
	}
}

const struct panel_ops panel_topology = {
	.name = "topology",
	.title = "Topology",
	.short_title = "Topo",
	.help = "the fabric by SU: leaf/spine/core, port state per rail, error rates",
	.init = topo_init,
	.free = topo_free,
	.draw = topo_draw,
	.key = topo_key,
	.target = topo_target,
	.click = topo_click,
};
