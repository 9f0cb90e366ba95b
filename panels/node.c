/*
 * node.c - one node in detail: its state and drain reason, connection and
 * data age, which GPU model it has (nvidia-smi's "name"), its 8 GPUs with every metric, its InfiniBand ports with their
 * counters and the increase since the previous reading, its faults and its
 * jobs. n/p step through the nodes; Up/Down scroll when it does not fit.
 */
#include <stdio.h>
#include <string.h>
#include "ui/ui_int.h"
#include "xidcat.h"

struct nodep {
	struct console *c;
	int scroll;
};

static void *node_init(struct console *c)
{
	struct nodep *p = xcalloc(1, sizeof *p);

	p->c = c;
	return p;
}

static void node_free(void *st)
{
	free(st);
}

/* A metric fitted into its column of w (fmt_fit: shortened, never cut). */
static void metric(char *buf, size_t size, int w, int32_t v, int div, const char *unit)
{
	if (v == MET_UNKNOWN)
		snprintf(buf, size, "-");
	else
		fmt_fit(v / (double)MAX(div, 1), div > 1 && div != 100, unit, w, buf, size);
}

/* "value +delta" in w columns: both exact when they fit, else the value
 * shortened first, then the increase (fmt_fit). */
static void counter_text(uint64_t val, uint64_t d, int w, char *b, size_t size)
{
	char dv[32];
	int dw = d ? 2 + fmt_fit_u64(d, "", 20, dv, sizeof dv) : 0;
	int vw = fmt_fit_u64(val, "", w - dw >= 4 ? w - dw : MAX(1, (w - 2) / 2), b, size);

	if (!d)
		return;
	if (vw + dw > w)   /* the increase gets what the value leaves */
		fmt_fit_u64(d, "", MAX(1, w - vw - 2), dv, sizeof dv);
	snprintf(b + strlen(b), size - strlen(b), " +%s", dv);
}

static void throttle_text(int32_t t, char *buf, size_t size)
{
	static const struct { int bit; const char *name; } bits[] = {
		{THR_HW_SLOWDOWN, "hw-slow"}, {THR_SW_THERMAL, "sw-therm"}, {THR_HW_THERMAL, "hw-therm"},
		{THR_HW_POWER_BRAKE, "pwr-brake"}, {THR_SW_POWER_CAP, "pwr-cap"}, {THR_GPU_IDLE, "idle"},
	};

	buf[0] = '\0';
	if (t == MET_UNKNOWN) {
		snprintf(buf, size, "-");
		return;
	}
	for (unsigned i = 0; i < ARRAY_LEN(bits); i++)
		if (t & bits[i].bit) {
			size_t n = strlen(buf);

			snprintf(buf + n, size - n, "%s%s", n ? "," : "", bits[i].name);
		}
	if (!buf[0])
		snprintf(buf, size, "none");
}

/* "gpus: NVIDIA H100 80GB HBM3 x8" (several models: each with its count);
 * "" when no query named them. */
static void gpu_models(const struct model *m, int32_t ni, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int32_t g = 0; g < m->gpus_per_node; g++) {
		const char *name = m->gpu_name[model_gpu(m, ni, g)];
		int count = 0, first = 1;

		for (int32_t h = 0; h < m->gpus_per_node; h++) {
			const char *o = m->gpu_name[model_gpu(m, ni, h)];

			if (strcmp(o, name))
				continue;
			first &= h >= g;
			count++;
		}
		if (!name[0] || !first || n + 1 >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s x%d", n ? ", " : "gpus: ", name, count);
		n = MIN(n, size - 1);
	}
}

static int header(struct nodep *p, const struct view *v, int y, int32_t ni)
{
	const struct model *m = &p->c->app->model;
	const struct node *n = &m->nodes[ni];
	char st[96], age[32], t[16], models[200];
	int x;

	x = view_text(v, 0, y, -1, R_TITLE, n->name);
	x += 2 + view_textf(v, x + 2, y, -1, R_NORMAL, "SU%02d  rack %d  leaves leaf-s%02d-r[0-%d]", n->su + 1,
			    n->rack + 1, n->su + 1, m->topo.rails - 1);
	x += 2 + view_text(v, x + 2, y, -1, node_is_drained(n) || node_down(n) ? R_WARN : R_GOOD,
			   node_state_text(n, st, sizeof st));
	fmt_duration(m->time - n->last_sample, age, sizeof age);
	x += 2 + view_textf(v, x + 2, y, -1, R_NORMAL, "conn %s", conn_state_name(n->conn));
	view_textf(v, x + 2, y, -1, node_stale(p->c, n) ? R_WARN : R_DIM, n->last_sample ? "data %s old" : "no data yet",
		   age);
	y++;
	if (n->reason[0]) {
		fmt_clock(n->reason_time, t, sizeof t);
		view_textf(v, 2, y++, -1, R_WARN, "reason: %s%s%s%s%s", n->reason, n->reason_who[0] ? "  by " : "",
			   n->reason_who, n->reason_time ? "  at " : "", n->reason_time ? t : "");
	}
	gpu_models(m, ni, models, sizeof models);
	if (models[0])   /* nvidia-smi's text: drawn inert like any */
		view_text(v, 2, y++, -1, R_NORMAL, models);
	if (n->conn_why[0])   /* text from libssh and servers: drawn inert like any */
		view_textf(v, 2, y++, -1, n->conn == CONN_UP ? R_DIM : R_WARN, "connection: %s", n->conn_why);
	if (n->parse_errors)
		view_textf(v, 2, y++, -1, R_WARN, "%u lines from this node were rejected by the parsers", n->parse_errors);
	return y + 1;
}

static int gpus(struct nodep *p, const struct view *v, int y, int32_t ni)
{
	const struct model *m = &p->c->app->model;
	static const char *const heads[] = {"gpu", "util", "mem used", "total", "temp", "power", "limit", "sm MHz",
					    "ecc", "throttle", "xid", "job", "uuid", "pci"};
	static const int w[] = {3, 5, 9, 7, 5, 7, 7, 7, 4, 18, 4, 10, 14, 17};
	char b[64];
	int x = 0;

	view_fill(v, 0, y, v->w, ' ', R_COLHEAD);
	for (unsigned i = 0; i < ARRAY_LEN(heads) && x + w[i] <= v->w; i++)
		x += view_field(v, x, y, w[i], i < 9 || i == 10, R_COLHEAD, heads[i]) + 1;
	y++;
	for (int32_t g = 0; g < m->gpus_per_node; g++, y++) {
		int32_t k = model_gpu(m, ni, g), j = m->gpu_job[k], t = m->met[MET_TEMP][k];
		char vals[ARRAY_LEN(heads)][48];
		const uint8_t *gs = gpu_states(p->c);

		fmt_fit(g, 0, "", w[0], vals[0], 48);
		metric(vals[1], 48, w[1], m->met[MET_UTIL][k], 1, "%");
		metric(vals[2], 48, w[2], m->met[MET_MEM_USED][k], 1, "");
		metric(vals[3], 48, w[3], m->met[MET_MEM_TOTAL][k], 1, "");
		metric(vals[4], 48, w[4], t, 1, "C");
		metric(vals[5], 48, w[5], m->met[MET_POWER][k], 100, "W");
		metric(vals[6], 48, w[6], m->met[MET_POWER_LIMIT][k], 100, "W");
		metric(vals[7], 48, w[7], m->met[MET_SM_CLOCK][k], 1, "");
		metric(vals[8], 48, w[8], m->met[MET_ECC_UNCORR][k], 1, "");
		throttle_text(m->met[MET_THROTTLE][k], vals[9], 48);
		vals[10][0] = '\0';
		if (m->last_xid[k])
			fmt_fit(m->last_xid[k], 0, "", w[10], vals[10], 48);
		snprintf(vals[11], 48, "idle");
		if (j >= 0 && j < m->njobs)   /* a job id is never shortened: its column holds 2^32 */
			fmt_fit_u64(m->jobs[j].id, "", w[11], vals[11], 48);
		snprintf(vals[12], 48, "%.14s", m->uuid ? m->uuid[k] : "");
		snprintf(vals[13], 48, "%s", m->pci ? m->pci[k] : "");
		x = 0;
		for (unsigned i = 0; i < ARRAY_LEN(heads) && x + w[i] <= v->w; i++) {
			int role = R_NORMAL;

			if (i == 4 && t != MET_UNKNOWN)
				role = t >= p->c->theme.thr[T_TEMP_CRIT] ? R_ERR : t >= p->c->theme.thr[T_TEMP_WARN] ? R_WARN : R_NORMAL;
			if (i == 0 && gs[k] == GS_FAULT)
				role = R_ERR;
			if (i == 10 && m->last_xid[k])
				role = severity_role(xid_lookup(m->last_xid[k])->severity);
			if (i == 8 && m->met[MET_ECC_UNCORR][k] > 0 && m->met[MET_ECC_UNCORR][k] != MET_UNKNOWN)
				role = R_ERR;
			x += view_field(v, x, y, w[i], i < 9 || i == 10, role, vals[i]) + 1;
		}
	}
	snprintf(b, sizeof b, "mem in MiB; power in W; xid: the last XID seen on that GPU");
	view_text(v, 0, y, -1, R_DIM, b);
	return y + 2;
}

static int ports(struct nodep *p, const struct view *v, int y, int32_t ni)
{
	const struct model *m = &p->c->app->model;
	static const char *const heads[] = {"rail", "leaf", "state", "symbol", "link rcv", "downed", "rcv err",
					    "integrity", "overrun", "xmit disc", "xmit wait", "received", "age"};
	static const int w[] = {4, 12, 7, 12, 10, 10, 10, 10, 10, 10, 12, 10, 7};   /* "1.0P +1.0P" fits 10 */
	static const int ctr[] = {-1, -1, -1, IBC_SYMBOL_ERROR, IBC_LINK_ERROR_RECOVERY, IBC_LINK_DOWNED,
				  IBC_PORT_RCV_ERRORS, IBC_LOCAL_LINK_INTEGRITY_ERRORS,
				  IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS, IBC_PORT_XMIT_DISCARDS, IBC_PORT_XMIT_WAIT, -1, -1};
	static const char *const states[] = {"?", "DOWN", "INIT", "ARMED", "ACTIVE"};
	int x = 0;

	if (!m->ports || m->topo.rails <= 0)
		return y;
	view_fill(v, 0, y, v->w, ' ', R_COLHEAD);
	for (unsigned i = 0; i < ARRAY_LEN(heads) && x + w[i] <= v->w; i++)
		x += view_field(v, x, y, w[i], i >= 3, R_COLHEAD, heads[i]) + 1;
	y++;
	for (int32_t r = 0; r < m->topo.rails; r++, y++) {
		const struct ib_port *pt = &m->ports[ni * m->topo.rails + r];
		char b[48];

		x = 0;
		snprintf(b, sizeof b, "r%d", r);
		x += view_field(v, x, y, w[0], 0, R_NORMAL, b) + 1;
		topo_switch_name(&m->topo, topo_leaf(&m->topo, m->nodes[ni].su, r), b, sizeof b);
		x += view_field(v, x, y, w[1], 0, R_DIM, b) + 1;
		x += view_field(v, x, y, w[2], 0, pt->state == IBP_ACTIVE ? R_GOOD : pt->state ? R_ERR : R_DIM,
				states[pt->state >= 0 && pt->state <= 4 ? pt->state : 0]) + 1;
		for (unsigned i = 3; i < ARRAY_LEN(heads) && x + w[i] <= v->w; i++) {
			int role = R_NORMAL;

			if (ctr[i] >= 0) {
				uint64_t d = pt->delta[ctr[i]];

				counter_text(pt->c[ctr[i]], d, w[i], b, sizeof b);
				role = d && i <= 8 ? R_ERR : d ? R_WARN : R_NORMAL;
			} else if (i == 11) {   /* 4-byte words */
				fmt_fit(pt->c[IBC_PORT_RCV_DATA] * 4.0, 0, "B", w[i], b, sizeof b);
			} else {
				if (pt->last)
					fmt_duration(m->time - pt->last, b, sizeof b);
				else
					snprintf(b, sizeof b, "never");
				role = R_DIM;
			}
			x += view_field(v, x, y, w[i], 1, role, b) + 1;
		}
	}
	view_text(v, 0, y, -1, R_DIM, "counters as read from sysfs; +N: increase since the previous reading");
	return y + 2;
}

static int faults(struct nodep *p, const struct view *v, int y, int32_t ni)
{
	const struct model *m = &p->c->app->model;
	int shown = 0;
	char t[16];

	view_text(v, 0, y++, -1, R_COLHEAD, "faults (open first, then recent closed)");
	for (int pass = 0; pass < 2; pass++)
		for (int32_t i = m->nfaults - 1; i >= 0 && shown < 12; i--) {
			const struct fault *f = &m->faults[i];

			if (f->node != ni || (pass == 0) != !f->close_time)
				continue;
			fmt_clock(f->time, t, sizeof t);
			view_textf(v, 1, y, -1, f->close_time || f->ack_time ? R_ACKED : severity_role(f->severity),
				   "#%-5u %s  %-7s %s", f->id, t, fault_kind_name(f->kind), f->text);
			y++;
			if (!f->close_time)
				view_textf(v, 8, y++, -1, R_DIM, "do: %s%s%s",
					   fault_xid(f) >= 0 ? xid_lookup(f->code)->remedy : f->remedy,
					   f->ack_time ? "   acked by " : "", f->ack_who);
			shown++;
		}
	if (!shown)
		view_text(v, 1, y++, -1, R_DIM, "none");
	return y + 1;
}

static int jobs(struct nodep *p, const struct view *v, int y, int32_t ni)
{
	const struct model *m = &p->c->app->model;
	int32_t last = -2;
	char run[32];

	view_text(v, 0, y++, -1, R_COLHEAD, "jobs on this node");
	for (int32_t g = 0; g < m->gpus_per_node; g++) {
		int32_t j = m->gpu_job[model_gpu(m, ni, g)];

		if (j < 0 || j == last || j >= m->njobs)
			continue;
		last = j;
		fmt_duration(m->jobs[j].start_time ? m->time - m->jobs[j].start_time : 0, run, sizeof run);
		view_textf(v, 1, y, 10, R_NORMAL, "%u", m->jobs[j].id);   /* 2^32 is 10 digits */
		view_field(v, 12, y, 12, 0, R_NORMAL, m->jobs[j].user);
		view_field(v, 25, y, 32, 0, R_NORMAL, m->jobs[j].name);
		view_textf(v, 58, y++, -1, R_DIM, "%d nodes  %d GPUs  running %s", m->jobs[j].nnodes, m->jobs[j].gpus, run);
	}
	if (last == -2)
		view_text(v, 1, y++, -1, R_DIM, "none");
	return y;
}

static void node_draw(void *st, const struct view *v)
{
	struct nodep *p = st;
	const struct model *m = &p->c->app->model;
	struct view sv;
	int32_t ni = p->c->node_sel;
	int y;

	if (ni < 0 || ni >= m->nnodes) {
		view_text(v, 0, 0, -1, R_DIM, "no node selected: Enter on a node in the utilization panel");
		return;
	}
	p->scroll = MAX(0, p->scroll);
	sv = *v;
	sv.sy = p->scroll;
	y = header(p, &sv, 0, ni);
	y = gpus(p, &sv, y, ni);
	y = ports(p, &sv, y, ni);
	y = faults(p, &sv, y, ni);
	jobs(p, &sv, y, ni);
}

static int node_key(void *st, enum panel_cmd a)
{
	struct nodep *p = st;
	int32_t n = p->c->app->model.nnodes;

	switch (a) {
	case PC_NODE_NEXT: case PC_RIGHT: p->c->node_sel = (p->c->node_sel + 1) % MAX(n, 1); return 1;
	case PC_NODE_PREV: case PC_LEFT: p->c->node_sel = (p->c->node_sel + n - 1) % MAX(n, 1); return 1;
	case PC_DOWN: p->scroll++; return 1;
	case PC_UP: p->scroll = MAX(0, p->scroll - 1); return 1;
	case PC_PGDN: p->scroll += 10; return 1;
	case PC_PGUP: p->scroll = MAX(0, p->scroll - 10); return 1;
	case PC_TOP: p->scroll = 0; return 1;
	default: return 0;
	}
}

static int node_target(void *st, struct target *t)
{
	struct nodep *p = st;

	if (p->c->node_sel < 0 || p->c->node_sel >= p->c->app->model.nnodes)
		return 0;
	t->node = p->c->node_sel;
	return 1;
}

const struct panel_ops panel_node = {
	.name = "node",
	.title = "Node",
	.short_title = "Node",
	.help = "one node: GPUs, IB ports and counters, faults, jobs",
	.init = node_init,
	.free = node_free,
	.draw = node_draw,
	.key = node_key,
	.target = node_target,
};
