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
	int active = 0, down = 0, unknown = 0;
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
	view_textf(v, 1, y, -1, down ? R_ERR : R_GOOD, "%d active", active);
	view_textf(v, 16, y, -1, down ? R_ERR : R_DIM, "%d down", down);
	view_textf(v, 28, y, -1, unknown ? R_WARN : R_DIM, "%d not read yet", unknown);
	view_textf(v, 48, y++, -1, sym || rcv || downed ? R_WARN : R_DIM,
		   "since the last reading: symbol errors +%llu  rcv errors +%llu  link_downed +%llu",
		   (unsigned long long)sym, (unsigned long long)rcv, (unsigned long long)downed);
	return y + 1;
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
	for (int su = p->l.top; su < p->l.n && su < p->l.top + rows; su++, y++) {
		struct rail_sum s, tot = {0};

		view_textf(v, 1, y, -1, R_LABEL, "SU%02d", su + 1);
		for (int r = 0; r < rails; r++) {
			sum_rail(m, su, r, &s);
			tot.down += s.down;
			tot.sym += s.sym;
			tot.rcv += s.rcv;
			tot.downed += s.downed;
			view_textf(v, 6 + r * 7, y, 6, s.down ? R_ERR : s.unknown ? R_DIM : s.sym || s.rcv ? R_WARN : R_GOOD,
				   "%4d%s", s.active, s.down ? (text_utf8 ? "\u2717" : "x") : " ");
		}
		view_textf(v, x, y, -1, tot.down ? R_ERR : R_DIM, "%5d", tot.down);
		view_textf(v, x + 6, y, -1, tot.sym ? R_WARN : R_DIM, "%9llu", (unsigned long long)tot.sym);
		view_textf(v, x + 16, y, -1, tot.rcv ? R_WARN : R_DIM, "%6llu", (unsigned long long)tot.rcv);
		view_textf(v, x + 23, y, -1, tot.downed ? R_ERR : R_DIM, "%8llu", (unsigned long long)tot.downed);
		view_textf(v, x + 34, y, -1, R_DIM, "leaf-s%02d-r[0-%d]", su + 1, rails - 1);
		if (su == p->l.cur)
			view_recolor(v, 0, y, 5, R_SELECTED);
	}
}

static void port_detail(struct topop *p, const struct view *v, int y, int32_t node)
{
	const struct model *m = &p->c->app->model;
	const struct ib_port *pt = &m->ports[node * m->topo.rails + p->rail];
	char leaf[32];
	int x = 1;

	topo_switch_name(&m->topo, topo_leaf(&m->topo, p->drill, p->rail), leaf, sizeof leaf);
	static const char *const states[] = {"not read yet", "DOWN", "INIT", "ARMED", "ACTIVE"};

	view_textf(v, 1, y++, -1, R_COLHEAD, "%s rail %d (mlx5_%d) -> %s: %s", m->nodes[node].name, p->rail, p->rail,
		   leaf, states[pt->state >= 0 && pt->state <= 4 ? pt->state : 0]);
	for (int c = 0; c < IBC_COUNT; c++) {
		char b[96];
		int w;

		snprintf(b, sizeof b, "%s %llu%s", ib_counter_name(c), (unsigned long long)pt->c[c],
			 pt->delta[c] ? "" : "");
		w = text_width(b) + 3;
		if (x + w > v->w) {
			x = 1;
			y++;
		}
		view_text(v, x, y, -1, pt->delta[c] && c < IBC_PORT_XMIT_WAIT ? R_WARN : R_NORMAL, b);
		if (pt->delta[c])
			view_textf(v, x + text_width(b), y, -1, R_WARN, " +%llu", (unsigned long long)pt->delta[c]);
		x += w + (pt->delta[c] ? 8 : 0);
	}
}

static void drilled(struct topop *p, const struct view *v)
{
	const struct model *m = &p->c->app->model;
	int n = npsu(m), first = p->drill * n, rails = m->topo.rails, y = 2, rows;
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
	rows = MAX(1, v->h - y - 4);
	list_fix(&p->l, rows);
	for (int i = p->l.top; i < p->l.n && i < p->l.top + rows; i++, y++) {
		int32_t node = first + i;

		view_text(v, 1, y, 8, i == p->l.cur ? R_SELECTED : R_LABEL, m->nodes[node].name);
		for (int r = 0; r < rails; r++) {
			const struct ib_port *pt = &m->ports[node * rails + r];
			uint64_t err = pt->delta[IBC_SYMBOL_ERROR] + pt->delta[IBC_PORT_RCV_ERRORS];
			int role = pt->state == IBP_ACTIVE ? (err ? R_WARN : R_GOOD) : pt->state ? R_ERR : R_DIM;
			char b[24];

			snprintf(b, sizeof b, "%s%s", pt->state == IBP_ACTIVE ? (text_utf8 ? "\u25cf" : "o")
						       : pt->state ? (text_utf8 ? "\u2717" : "x") : ".", "");
			if (err)
				snprintf(b + strlen(b), sizeof b - strlen(b), " +%llu", (unsigned long long)err);
			view_text(v, 10 + r * 9, y, 8, i == p->l.cur && r == p->rail ? R_SELECTED : role, b);
		}
	}
	if (p->l.n)
		port_detail(p, v, v->h - 3, first + p->l.cur);
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
