/*
 * utilization.c - every GPU of the cluster as a coloured cell.
 *
 * GPU view: a half-block cell (U+2580, foreground = upper GPU, background =
 * lower GPU) holds two GPUs, so a node of 8 GPUs is one column of 4 cells and
 * a scalable unit of 32 nodes a block of 32x4; 10,240 GPUs fit in 160x32
 * cells plus labels. Node view (when every GPU does not fit, or `z`): a
 * whole cell per node and a row segment per SU; only when even that does
 * not fit, a half cell per node and two SUs per text row. Colour follows the metric (util,
 * temperature, power, memory; `m` cycles); faulted, drained, stale, down and
 * silent GPUs have colours of their own. Without colours (mono, NO_COLOR,
 * ASCII) a cell is a glyph: X fault, # down, D drained, ? stale, and a bar of
 * eighths for the metric.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "ui/ui_int.h"
#include "ui/filter.h"
#include "fault.h"

enum { M_UTIL, M_TEMP, M_POWER, M_MEM, M_ERRORS, M_COUNT };
static const char *const metric_names[M_COUNT] = {"utilization %", "temperature C", "power / limit", "memory used",
						  "ECC errors, XID"};
static const char *const metric_range[M_COUNT][2] = {{"0", "100%"}, {"30", "90 C"}, {"0", "100%"}, {"0", "100%"},
						     {"0", "64+"}};
/* A legend swatch's label: the values of level l. */
static const struct { int lo, hi; const char *unit; } metric_scale[M_COUNT] = {
	{0, 100, "%"}, {30, 90, " C"}, {0, 100, "%"}, {0, 100, "%"}, {0, 0, ""},
};
/* What the ranked view (w) puts first for each colour. */
static const enum rank_by metric_rank[M_COUNT] = {RANK_IDLE, RANK_HOT, RANK_POWER, RANK_MEM, RANK_ERRORS};
#define RANK_ROWS 500

struct util {
	struct console *c;
	int metric, zoom;          /* zoom: 0 auto, 1 GPUs, 2 nodes */
	int32_t cursor;
	int gpu_cur;               /* the GPU of the cursor's node (GPU view: Up/Down reach it) */
	char filter[128];
	struct node_filter sel;    /* what the filter selects, read every frame */
	int ranked;                /* the worst GPUs as a list (w), not the map */
	struct rank_row *rank;     /* RANK_ROWS */
	int nrank;
	struct list rl;            /* the ranked list's cursor */
	int gpu_view, per_row, band_h, top_band, bands, grid_w, rows_per_node;
	int single;                /* node view: one SU per row segment (a whole cell per node), no pairs */
	int lw;                    /* node view: the width of an SU label ("SU400 ", "399/400 ") */
	int fleet;                 /* a cell per SU (the whole fleet), this frame */
	int worst;                 /* a: SU cells show the worst level, not the mean */
	int su_cur, drilled;       /* the SU under the cursor; Enter went from it to its nodes */
	struct su_cell *cells;
	int ncells;
	struct fleet_map fm;
	int16_t *nx, *ny;          /* per node: column, first row (half rows in node view) */
	int32_t nalloc;
};

static void *util_init(struct console *c)
{
	struct util *u = xcalloc(1, sizeof *u);

	u->c = c;
	return u;
}

static void util_free(void *st)
{
	struct util *u = st;

	filter_done(&u->sel);
	free(u->rank);
	free(u->cells);
	free(u->nx);
	free(u->ny);
	free(u);
}

static int npsu(const struct model *m)
{
	return m->topo.nodes_per_su > 0 ? m->topo.nodes_per_su : 32;
}

/* Metric level 0..7 of GPU g, or -1 if unknown. */
static int level(const struct model *m, int metric, int32_t g)
{
	int32_t v, lim;
	double f;

	switch (metric) {
	case M_TEMP:
		v = m->met[MET_TEMP][g];
		f = (v - 30) / 60.0;
		break;
	case M_POWER:
		v = m->met[MET_POWER][g];
		lim = m->met[MET_POWER_LIMIT][g];
		f = v / (double)(lim > 0 && lim != MET_UNKNOWN ? lim : 70000);
		break;
	case M_MEM:
		v = m->met[MET_MEM_USED][g];
		lim = m->met[MET_MEM_TOTAL][g];
		f = lim > 0 && lim != MET_UNKNOWN ? v / (double)lim : 0;
		break;
	case M_ERRORS:   /* none: level 0; an XID or 1 ECC error: 1; then doubling */
		v = m->met[MET_ECC_UNCORR][g];
		if (v == MET_UNKNOWN && !m->last_xid[g])
			return -1;
		v = (v == MET_UNKNOWN ? 0 : v) + (m->last_xid[g] != 0);
		for (f = 0; v >> (int)f && f < HEAT_LEVELS - 1; f++)
			;
		return (int)f;
	default:
		v = m->met[MET_UTIL][g];
		f = v / 100.0;
	}
	if (v == MET_UNKNOWN)
		return -1;
	return (int)(MAX(0.0, MIN(0.999, f)) * HEAT_LEVELS);
}

/* Level l of the colour ramp: temperature has its own (hot), the others heat. */
static int ramp(const struct util *u, int l)
{
	return (u->metric == M_TEMP ? R_HOT0 : R_HEAT0) + l;
}

/* Severity order of states for "worst of". */
static uint32_t glyph_of(int state, int lvl)
{
	static const uint32_t eighths[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	static const char ascii[] = "_.-~=+*@";

	switch (state) {
	case GS_FAULT: return 'X';
	case GS_DOWN: return '#';
	case GS_DRAIN: return 'D';
	case GS_STALE: return '?';
	case GS_NONE: return text_utf8 ? 0xb7 : '.';
	default: return text_utf8 ? eighths[lvl] : (uint32_t)ascii[lvl];
	}
}

/* ---- filter ---- */

static void util_filter(void *st, const char *text)
{
	struct util *u = st;

	snprintf(u->filter, sizeof u->filter, "%s", text);
}

/* ---- layout ---- */

static void layout(struct util *u, const struct model *m, int w, int h)
{
	int n = npsu(m), sus = (m->nnodes + n - 1) / n, gpn = MAX(m->gpus_per_node, 1);
	int digits = sus >= 1000 ? 4 : sus >= 100 ? 3 : 2;

	u->rows_per_node = (gpn + 1) / 2;
	u->gpu_view = 1;
	u->grid_w = w;
	u->per_row = MAX(1, (w + 2) / (n + 2));
	u->band_h = u->rows_per_node + 1;
	u->bands = (sus + u->per_row - 1) / u->per_row;
	u->single = 0;
	u->fleet = 0;
	if (u->zoom >= 2 || (u->zoom == 0 && u->bands * u->band_h > h)) {
		u->gpu_view = 0;
		u->lw = 2 + digits + 1;   /* "SU400 " */
		u->per_row = MAX(1, (w + 1) / (n + u->lw + 1));
		u->band_h = 1;
		u->single = (sus + u->per_row - 1) / u->per_row <= h;   /* room for a row per SU: no pairs */
		if (!u->single) {   /* "399/400 " */
			u->lw = 2 * digits + 2;
			u->per_row = MAX(1, (w + 1) / (n + u->lw + 1));
		}
		u->bands = ((u->single ? sus : (sus + 1) / 2) + u->per_row - 1) / u->per_row;
		fleet_layout(&u->fm, sus, w, h);
		u->fleet = !u->drilled && (u->zoom == 3 || (u->zoom == 0 && u->bands > h && u->fm.rows <= h));
	}
	if (u->nalloc != m->nnodes) {
		u->nx = xrealloc(u->nx, sizeof *u->nx * (size_t)(m->nnodes + 1));
		u->ny = xrealloc(u->ny, sizeof *u->ny * (size_t)(m->nnodes + 1));
		u->nalloc = m->nnodes;
	}
	for (int32_t i = 0; i < m->nnodes; i++) {
		int su = i / n, p = i % n;

		if (u->gpu_view) {
			u->nx[i] = (int16_t)((su % u->per_row) * (n + 2) + p);
			u->ny[i] = (int16_t)((su / u->per_row) * u->band_h);
		} else if (u->single) {
			u->nx[i] = (int16_t)((su % u->per_row) * (n + u->lw + 1) + u->lw + p);
			u->ny[i] = (int16_t)((su / u->per_row) * 2);   /* half rows, the upper one */
		} else {
			int pair = su / 2;

			u->nx[i] = (int16_t)((pair % u->per_row) * (n + u->lw + 1) + u->lw + p);
			u->ny[i] = (int16_t)((pair / u->per_row) * 2 + su % 2);   /* half rows */
		}
	}
}

/* ---- drawing ---- */

static int gpu_role(struct util *u, const uint8_t *gs, int32_t node, int32_t g, int *lvl)
{
	const struct model *m = &u->c->app->model;
	int s = gs[g];

	*lvl = s == GS_OK ? level(m, u->metric, g) : -1;
	if (s == GS_OK && *lvl < 0)
		s = GS_NONE;
	if (!filter_node(&u->sel, node))
		return R_GPU_DIMMED;
	return s == GS_OK ? ramp(u, *lvl) : gpu_state_role(s);
}

static void draw_gpu_view(struct util *u, const struct view *v, int y0, int rows)
{
	const struct model *m = &u->c->app->model;
	const uint8_t *gs = gpu_states(u->c);
	int n = npsu(m), gpn = m->gpus_per_node, colour = u->c->theme.colour && text_utf8;

	for (int32_t i = 0; i < m->nnodes; i++) {
		int band = u->ny[i] / u->band_h, y = y0 + (band - u->top_band) * u->band_h;

		if (band < u->top_band || y + u->band_h > y0 + rows)
			continue;
		if (i % n == 0)   /* the label moves right when the cursor marker needs its place */
			view_textf(v, u->nx[i] + (u->cursor - i >= 0 && u->cursor - i < 5 ? 6 : 0), y, n,
				   i / n == u->cursor / n ? R_CURSOR : R_LABEL, "SU%02d", i / n + 1);
		if (i == u->cursor)
			view_cell(v, u->nx[i], y, text_utf8 ? 0x25bc : 'v', R_CURSOR, 0);
		for (int r = 0; r < u->rows_per_node; r++) {
			int32_t g0 = model_gpu(m, i, 2 * r), l0, l1;
			int top = gpu_role(u, gs, i, g0, &l0), bot = 2 * r + 1 < gpn ? gpu_role(u, gs, i, g0 + 1, &l1) : 0;

			if (i == u->cursor && u->gpu_cur / 2 == r)   /* the GPU under the cursor */
				*(u->gpu_cur % 2 ? &bot : &top) = R_CURSOR;

			if (colour) {
				view_cell(v, u->nx[i], y + 1 + r, 0x2580, top, bot);
			} else {
				int s0 = gs[g0], s1 = bot ? gs[g0 + 1] : GS_OK, s = gpu_state_rank(s0) >= gpu_state_rank(s1) ? s0 : s1;
				int lv = MAX(l0, bot ? l1 : 0);

				view_cell(v, u->nx[i], y + 1 + r, glyph_of(s, MAX(lv, 0)),
					  s == GS_OK ? ramp(u, MAX(lv, 0)) : gpu_state_role(s), 0);
			}
		}
	}
}

/* Worst state and mean level of a node's GPUs. */
static int node_cell(struct util *u, const uint8_t *gs, int32_t i, int *lvl)
{
	const struct model *m = &u->c->app->model;
	int worst = GS_OK, sum = 0, k = 0;

	for (int32_t g = 0; g < m->gpus_per_node; g++) {
		int32_t gi = model_gpu(m, i, g);
		int l = gs[gi] == GS_OK ? level(m, u->metric, gi) : -1;

		if (gpu_state_rank(gs[gi]) > gpu_state_rank(worst))
			worst = gs[gi];
		if (l >= 0)
			sum += l, k++;
	}
	*lvl = k ? sum / k : 0;
	if (worst == GS_OK && !k)
		worst = GS_NONE;
	return worst;
}

/* An SU's label in the 5 columns before its row segment: "SU07", from SU
 * 1000 on "1234"; of a pair of SUs "07/08", from 99 on "123+" (that SU
 * and the next), never a cut "123/1". */
static const char *su_label(int su, int pair, int digits, char *buf, size_t size)
{
	char a[16], b[16];

	snprintf(a, sizeof a, digits >= 4 ? "%04d" : digits == 3 ? "%03d" : "%02d", su % 10000);
	snprintf(b, sizeof b, digits >= 4 ? "%04d" : digits == 3 ? "%03d" : "%02d", (su + 1) % 10000);
	snprintf(buf, size, pair ? "%s/%s" : "SU%s", a, b);
	return buf;
}

static void draw_node_view(struct util *u, const struct view *v, int y0, int rows)
{
	const struct model *m = &u->c->app->model;
	const uint8_t *gs = gpu_states(u->c);
	int n = npsu(m), colour = u->c->theme.colour && text_utf8;
	char buf[32];

	for (int32_t i = 0; i < m->nnodes; i += (u->single ? 1 : 2) * n)   /* labels: one per SU or SU pair */
		if (u->ny[i] / 2 >= u->top_band && u->ny[i] / 2 - u->top_band < rows) {
			view_text(v, u->nx[i] - u->lw, y0 + u->ny[i] / 2 - u->top_band, u->lw - 1, R_LABEL,
				  su_label(i / n + 1, !u->single, u->single ? u->lw - 3 : (u->lw - 2) / 2, buf, sizeof buf));
		}
	for (int32_t i = 0; i < m->nnodes; i++) {
		int y = y0 + u->ny[i] / 2 - u->top_band, lvl, s = node_cell(u, gs, i, &lvl);
		int role = !filter_node(&u->sel, i) ? R_GPU_DIMMED : s == GS_OK ? ramp(u, lvl) : gpu_state_role(s);
		int32_t other = u->ny[i] % 2 ? i - n : i + n;
		int orole = 0, olvl = 0, os = GS_OK;

		if (y < y0 || y >= y0 + rows || (u->ny[i] % 2 && colour))
			continue;   /* a lower half is drawn with its upper half */
		if (i == u->cursor)
			role = R_CURSOR;
		if (u->single) {   /* a whole cell per node */
			view_cell(v, u->nx[i], y, colour ? 0x2588 : glyph_of(s, MAX(lvl, 0)), role, 0);
			continue;
		}
		if (other >= 0 && other < m->nnodes && u->ny[other] / 2 == u->ny[i] / 2) {
			os = node_cell(u, gs, other, &olvl);
			orole = !filter_node(&u->sel, other) ? R_GPU_DIMMED : os == GS_OK ? ramp(u, olvl) : gpu_state_role(os);
			if (other == u->cursor)
				orole = R_CURSOR;
		}
		if (colour) {
			view_cell(v, u->nx[i], y, 0x2580, role, orole);
		} else if (!(u->ny[i] % 2) || other < 0) {
			int ws = gpu_state_rank(s) >= gpu_state_rank(os) ? s : os;

			view_cell(v, u->nx[i], y, glyph_of(ws, MAX(lvl, olvl)),
				  i == u->cursor || other == u->cursor ? R_CURSOR
				  : ws == GS_OK ? ramp(u, MAX(lvl, olvl)) : gpu_state_role(ws), 0);
		}
	}
}

/* A legend swatch: the cell as the grid draws it, then a label. */
static int swatch(struct util *u, const struct view *v, int x, int y, int role, int state, int lvl, const char *label)
{
	int colour = u->c->theme.colour && text_utf8;

	view_cell(v, x, y, colour ? 0x2588 : glyph_of(state, lvl), role, 0);
	return 2 + view_text(v, x + 2, y, -1, R_NORMAL, label);
}

struct counts {
	int32_t st[GS_DOWN + 1], busy, known;
	double util, temp, watts;
};

static void count(struct util *u, struct counts *k)
{
	const struct model *m = &u->c->app->model;
	const uint8_t *gs = gpu_states(u->c);

	memset(k, 0, sizeof *k);
	for (int32_t g = 0; g < m->ngpus; g++) {
		k->st[gs[g]]++;
		if (m->met[MET_UTIL][g] == MET_UNKNOWN)
			continue;
		k->known++;
		k->util += m->met[MET_UTIL][g];
		k->busy += m->gpu_job[g] >= 0;
		if (m->met[MET_TEMP][g] != MET_UNKNOWN)
			k->temp += m->met[MET_TEMP][g];
		if (m->met[MET_POWER][g] != MET_UNKNOWN)
			k->watts += m->met[MET_POWER][g] / 100.0;
	}
}

/* The legend as a column (sidebar) or, when w is small, as one line. */
static int legend(struct util *u, const struct view *v, int x, int y, int w, const struct counts *k)
{
	static const struct { int state; int role; const char *name; } st[] = {
		{GS_FAULT, R_GPU_FAULT, "fault"}, {GS_DRAIN, R_GPU_DRAIN, "drained"}, {GS_STALE, R_GPU_STALE, "stale"},
		{GS_DOWN, R_GPU_DOWN, "down"}, {GS_NONE, R_GPU_NONE, "no data"},
	};
	char buf[64];
	if (w < 24) {   /* one line */
		x += view_textf(v, x, y, -1, R_LABEL, "%s %s", metric_names[u->metric], metric_range[u->metric][0]);
		for (int l = 0; l < HEAT_LEVELS; l++)
			view_cell(v, ++x, y, u->c->theme.colour && text_utf8 ? 0x2588 : glyph_of(GS_OK, l), ramp(u, l), 0);
		x += 1 + view_textf(v, x + 1, y, -1, R_LABEL, "%s", metric_range[u->metric][1]) + 2;
		for (unsigned i = 0; i < ARRAY_LEN(st); i++) {
			snprintf(buf, sizeof buf, "%s %d", st[i].name, k->st[st[i].state]);
			x += swatch(u, v, x, y, st[i].role, st[i].state, 0, buf) + 2;
		}
		return y + 1;
	}
	view_text(v, x, y++, w, R_COLHEAD, metric_names[u->metric]);
	for (int l = 0; l < HEAT_LEVELS; l++) {
		int lo = metric_scale[u->metric].lo, span = metric_scale[u->metric].hi - lo;

		if (u->metric == M_ERRORS)   /* 0, 1, 2-3, 4-7, ... 64+ */
			snprintf(buf, sizeof buf, l == 0 ? "none" : l == HEAT_LEVELS - 1 ? "%d+" : l == 1 ? "%d" : "%d-%d",
				 l ? 1 << (l - 1) : 0, (1 << l) - 1);
		else
			snprintf(buf, sizeof buf, "%d-%d%s", lo + l * span / HEAT_LEVELS, lo + (l + 1) * span / HEAT_LEVELS,
				 metric_scale[u->metric].unit);
		swatch(u, v, x + (l % 2) * (w / 2), y + l / 2, ramp(u, l), GS_OK, l, buf);
	}
	y += HEAT_LEVELS / 2 + 1;
	view_text(v, x, y++, w, R_COLHEAD, "GPUs by state");
	for (unsigned i = 0; i < ARRAY_LEN(st); i++) {
		swatch(u, v, x, y, st[i].role, st[i].state, 0, st[i].name);
		fmt_count(k->st[st[i].state], buf, sizeof buf);
		view_field(v, x + 12, y++, w - 13, 1, k->st[st[i].state] && i < 2 ? R_WARN : R_NORMAL, buf);
	}
	y++;
	view_text(v, x, y++, w, R_COLHEAD, "cluster");
	fmt_count(k->known, buf, sizeof buf);
	view_textf(v, x, y++, w, R_NORMAL, "GPUs reporting %s", buf);
	if (k->known) {
		view_textf(v, x, y++, w, R_NORMAL, "busy %d%%  util %.0f%%", (int)(100.0 * k->busy / k->known),
			   k->util / k->known);
		view_textf(v, x, y++, w, R_NORMAL, "mean %.0f C  %.2f MW", k->temp / k->known, k->watts / 1e6);
	}
	y++;
	view_text(v, x, y++, w, R_DIM, u->fleet ? (u->worst ? "cell: an SU, its worst" : "cell: an SU, its mean")
		  : u->gpu_view ? "cell: 2 GPUs, column: node" : u->single ? "cell: a node" : "cell: 2 nodes (SU pair)");
	view_text(v, x, y++, w, R_DIM, "blocks: scalable units");
	return y;
}

/* The node under the cursor: state, jobs, its GPUs. */
static void cursor_info(struct util *u, const struct view *v, int y, int h)
{
	const struct model *m = &u->c->app->model;
	const struct node *n = &m->nodes[u->cursor];
	static const struct { int met; const char *name; int div; const char *unit; } rows[] = {
		{MET_UTIL, "util", 1, "%"}, {MET_TEMP, "temp", 1, "C"}, {MET_POWER, "power", 100, "W"},
		{MET_MEM_USED, "mem", 1024, "G"}, {MET_SM_CLOCK, "sm", 1, ""},
	};
	char st[64], age[32], buf[64];
	int x, yend = y + h;

	if (y >= yend)
		return;
	fmt_duration(n->last_sample ? m->time - n->last_sample : 0, age, sizeof age);
	x = view_text(v, 0, y, -1, R_TITLE, n->name);
	x += 2 + view_textf(v, x + 2, y, -1, R_NORMAL, "SU%02d rack %d", n->su + 1, n->rack + 1);
	x += 2 + view_text(v, x + 2, y, -1, node_is_drained(n) || node_down(n) ? R_WARN : R_GOOD,
			   node_state_text(n, st, sizeof st));
	x += 2 + view_textf(v, x + 2, y, -1, node_stale(u->c, n) ? R_WARN : R_DIM, n->last_sample ? "data %s old"
			    : "no data yet", age);
	if (n->open_faults)
		view_textf(v, x + 4, y, -1, R_ERR, "%u open fault%s", n->open_faults, n->open_faults > 1 ? "s" : "");
	y++;
	if (n->reason[0] && y < yend)
		view_textf(v, 2, y++, -1, R_WARN, "reason: %s%s%s", n->reason, n->reason_who[0] ? "  by " : "",
			   n->reason_who);
	x = 2;
	for (int32_t g = 0; g < m->gpus_per_node && y < yend; g++) {
		int32_t j = m->gpu_job[model_gpu(m, u->cursor, g)];

		if (j < 0 || (g > 0 && m->gpu_job[model_gpu(m, u->cursor, g - 1)] == j))
			continue;
		x += 3 + view_textf(v, x, y, v->w - x, R_NORMAL, "job %u %s '%s' (%d nodes)", m->jobs[j].id,
				    m->jobs[j].user, m->jobs[j].name, m->jobs[j].nnodes);
	}
	if (x > 2)
		y++;
	if (y >= yend)
		return;
	view_text(v, 2, y, -1, R_COLHEAD, "GPU  ");
	for (int32_t g = 0; g < m->gpus_per_node; g++)
		view_textf(v, 8 + g * 7, y, 7, u->gpu_view && g == u->gpu_cur ? R_SELECTED : R_COLHEAD, "%6d ", g);
	y++;
	for (unsigned r = 0; r < ARRAY_LEN(rows) && y < yend; r++, y++) {
		view_text(v, 2, y, -1, R_LABEL, rows[r].name);
		for (int32_t g = 0; g < m->gpus_per_node; g++) {
			int32_t val = m->met[rows[r].met][model_gpu(m, u->cursor, g)];

			if (val == MET_UNKNOWN)
				snprintf(buf, sizeof buf, "-");
			else   /* whole units, as before; shortened, never cut */
				fmt_fit(val / rows[r].div, 0, rows[r].unit, 6, buf, sizeof buf);
			view_field(v, 8 + g * 7, y, 6, 1, u->gpu_view && g == u->gpu_cur ? R_SELECTED : R_NORMAL, buf);
		}
	}
}

/* Scrolls so that the cursor's band is visible in rows. */
static void follow_cursor(struct util *u, int rows)
{
	int cb = u->gpu_view ? u->ny[u->cursor] / u->band_h : u->ny[u->cursor] / 2;
	int vis = MAX(1, rows / u->band_h);

	if (cb < u->top_band)
		u->top_band = cb;
	if (cb >= u->top_band + vis)
		u->top_band = cb - vis + 1;
	u->top_band = MAX(0, MIN(u->top_band, u->bands - vis));
}

static void fault_row(const struct model *m, const struct fault *f, const struct view *v, int y)
{
	char t[16], where[80];

	fmt_clock(f->time, t, sizeof t);
	fault_where(m, f, where, sizeof where);
	view_text(v, 2, y, 8, R_DIM, t);
	view_field(v, 11, y, 10, 0, R_NORMAL, where);
	view_field(v, 22, y, 9, 0, f->ack_time ? R_ACKED : severity_role(f->severity), severity_name(f->severity));
	view_text(v, 32, y, -1, f->ack_time ? R_ACKED : R_NORMAL, f->text);
}

/* The worst open faults of the cluster in the rows left at the bottom: the
 * most severe first, unacknowledged before acknowledged, newest first. */
static void worst_faults(struct util *u, const struct view *v, int y, int h)
{
	const struct model *m = &u->c->app->model;
	int shown = 0;

	if (h < 3)
		return;
	view_text(v, 0, y++, -1, R_COLHEAD, "worst open faults");
	for (int sev = SEV_CRITICAL; sev >= 0 && shown < h - 1; sev--)
		for (int acked = 0; acked < 2 && shown < h - 1; acked++)
			for (int32_t i = m->nfaults - 1; i >= 0 && shown < h - 1; i--) {
				const struct fault *f = &m->faults[i];

				if (f->close_time || f->severity != sev || !f->ack_time != !acked)
					continue;
				fault_row(m, f, v, y++);
				shown++;
			}
	if (!shown)
		view_text(v, 2, y, -1, R_DIM, "none");
}

/* ---- the whole fleet: a cell per SU (fleetmap.c) ---- */

static int gpu_level(void *ctx, int32_t g)
{
	struct util *u = ctx;

	return level(&u->c->app->model, u->metric, g);
}

static void su_look(void *ctx, const struct su_cell *c, int *role, uint32_t *ch)
{
	struct util *u = ctx;

	*role = !c->matched ? R_GPU_DIMMED : c->state == GS_OK ? ramp(u, c->lvl) : gpu_state_role(c->state);
	*ch = u->c->theme.colour && text_utf8 ? 0x2588 : glyph_of(c->state, c->lvl);
}

static void draw_fleet(struct util *u, const struct view *v, int y0, int rows)
{
	const struct model *m = &u->c->app->model;

	if (u->ncells != u->fm.sus) {
		free(u->cells);
		u->ncells = u->fm.sus;
		u->cells = xcalloc((size_t)u->ncells + 1, sizeof *u->cells);
	}
	u->su_cur = MAX(0, MIN(u->su_cur, u->fm.sus - 1));
	fleet_aggregate(m, gpu_states(u->c), u->worst, (struct fleet_level){gpu_level, u}, &u->sel, u->cells,
			u->fm.sus);
	fleet_draw(&u->fm, v, y0, rows, u->cells, u->su_cur, su_look, u);
	u->cursor = MIN(m->nnodes - 1, u->su_cur * npsu(m));   /* the info rows show its first node */
}

/* Keys in the fleet view: the arrows move by SU, Enter opens its nodes. */
static int fleet_key(struct util *u, const struct model *m, enum panel_cmd a)
{
	int n = u->fm.sus, row = u->fm.per_row;

	switch (a) {
	case PC_LEFT: u->su_cur--; break;
	case PC_RIGHT: u->su_cur++; break;
	case PC_UP: u->su_cur -= row; break;
	case PC_DOWN: u->su_cur += row; break;
	case PC_PGUP: u->su_cur -= 10 * row; break;
	case PC_PGDN: u->su_cur += 10 * row; break;
	case PC_TOP: u->su_cur = 0; break;
	case PC_BOTTOM: u->su_cur = n - 1; break;
	case PC_SELECT:   /* drill down: the SU's nodes, at the finest zoom that fits */
		u->drilled = 1;
		u->cursor = MIN(m->nnodes - 1, MAX(0, u->su_cur) * npsu(m));
		u->c->node_sel = u->cursor;
		return 1;
	default: return 0;
	}
	u->su_cur = MAX(0, MIN(u->su_cur, n - 1));
	u->cursor = MIN(m->nnodes - 1, u->su_cur * npsu(m));
	u->c->node_sel = u->cursor;
	return 1;
}

/* The ranked view: the worst GPUs by the colour's measure, a row each. */
static void draw_ranked(struct util *u, const struct view *v, int y0, int rows)
{
	const struct model *m = &u->c->app->model;
	enum rank_by by = metric_rank[u->metric];
	char val[48], gpu[80], st[32];

	if (!u->rank)
		u->rank = xcalloc(RANK_ROWS, sizeof *u->rank);
	u->nrank = rank_gpus(m, gpu_states(u->c), by, u->rank, RANK_ROWS);
	u->rl.n = u->nrank;
	list_fix(&u->rl, rows - 1);
	view_textf(v, 0, y0, -1, R_COLHEAD, "%5s  %-14s %-22s %-8s %-10s %s", "rank", "gpu", metric_names[u->metric],
		   "job", "user", "node");
	if (!u->nrank)
		view_text(v, 2, y0 + 1, -1, R_DIM, by == RANK_IDLE ? "no GPU of a running job reports its utilization"
			  : by == RANK_ERRORS ? "no GPU has an uncorrected ECC error or an XID" : "no GPU reports it");
	for (int i = u->rl.top; i < u->nrank && i < u->rl.top + rows - 1; i++) {
		int32_t g = u->rank[i].gpu, node = g / m->gpus_per_node, j = m->gpu_job[g];
		const struct job *jb = j >= 0 && j < m->njobs && m->jobs[j].id ? &m->jobs[j] : NULL;
		int y = y0 + 1 + i - u->rl.top;
		char id[16];

		rank_value(m, by, g, val, sizeof val);
		snprintf(gpu, sizeof gpu, "%s:%d", m->nodes[node].name, g % m->gpus_per_node);
		snprintf(id, sizeof id, jb ? "%u" : "-", jb ? jb->id : 0);
		view_textf(v, 0, y, -1, R_NORMAL, "%5d  %-14.14s %-22.22s %-8s %-10.10s %s", i + 1, gpu, val, id,
			   jb ? jb->user : "", node_state_text(&m->nodes[node], st, sizeof st));
		if (i == u->rl.cur)
			view_recolor(v, 0, y, v->w, R_SELECTED);
	}
	if (u->nrank) {   /* the cursor's node is the selected row's */
		u->cursor = u->rank[u->rl.cur].gpu / m->gpus_per_node;
		u->c->node_sel = u->cursor;
	}
}

static void util_draw(void *st, const struct view *v)
{
	struct util *u = st;
	const struct model *m = &u->c->app->model;
	struct counts k;
	int side = v->w >= 110 ? 26 : 0, gy = 1, rows, y;
	char detail[560], said[200];

	if (!m->nnodes) {
		view_text(v, 0, 0, -1, R_DIM, "no nodes yet");
		return;
	}
	u->cursor = MAX(0, MIN(u->cursor, m->nnodes - 1));
	filter_read(&u->sel, m, u->filter);
	filter_say(&u->sel, said, sizeof said);
	count(u, &k);
	/* the grid gets what the title, the legend line and 6 info rows leave */
	layout(u, m, side ? v->w - side - 2 : v->w, v->h - gy - (side ? 0 : 1) - 7);
	rows = MAX(1, MIN(u->fleet ? u->fm.rows : u->bands * u->band_h, v->h - gy - (side ? 0 : 1) - 7));
	snprintf(detail, sizeof detail, "colour: %s (m)   %s (%s)%s%s%s%s", metric_names[u->metric],
		 u->ranked ? rank_title(metric_rank[u->metric]) : u->fleet ? (u->worst ? "a cell = an SU, its worst (v)"
		 : "a cell = an SU, its mean (v)") : u->gpu_view ? "a cell = 2 GPUs, a column = a node"
		 : u->single ? "a cell = a node, a row segment = an SU" : "a cell = a node, 2 SUs per row",
		 u->ranked ? "w: the map" : "z; w: worst first",
		 u->filter[0] ? "   filter: " : "", u->filter, said[0] ? " - " : "", said);
	draw_title(v, "Utilization", detail);
	if (!u->fleet)
		follow_cursor(u, rows);
	if (u->ranked)
		draw_ranked(u, v, gy, rows);
	else if (u->fleet)
		draw_fleet(u, v, gy, rows);
	else if (u->gpu_view)
		draw_gpu_view(u, v, gy, rows);
	else
		draw_node_view(u, v, gy, rows);
	y = gy + rows + 1;
	if (side) {
		struct view sv = view_sub(v, v->w - side, gy, side, v->h - gy);

		legend(u, &sv, 0, 0, side, &k);
	} else {
		y = legend(u, v, 0, y - 1, 0, &k) + 1;
	}
	cursor_info(u, v, y, MIN(v->h - y, 9));
	if (v->h - y > 11)
		worst_faults(u, v, y + 10, v->h - y - 10);
}

/* ---- keys, clicks, targets ---- */

/* In the GPU view Up and Down reach each GPU: within the node first, then
 * on to the node above or below. 1 if it moved within the node. */
static int gpu_step(struct util *u, const struct model *m, int dir)
{
	int g = u->gpu_cur + dir;

	if (g < 0 || g >= m->gpus_per_node)
		return 0;
	u->gpu_cur = g;
	return 1;
}

/* The nearest node in the same column above (dir -1) or below (dir +1). */
static int32_t vertical(struct util *u, const struct model *m, int dir)
{
	int32_t best = -1;
	int cx = u->nx[u->cursor], cy = u->ny[u->cursor];

	for (int32_t i = 0; i < m->nnodes; i++) {
		if (u->nx[i] != cx || (dir > 0 ? u->ny[i] <= cy : u->ny[i] >= cy))
			continue;
		if (best < 0 || (dir > 0 ? u->ny[i] < u->ny[best] : u->ny[i] > u->ny[best]))
			best = i;
	}
	return best;
}

static int util_key(void *st, enum panel_cmd a)
{
	struct util *u = st;
	const struct model *m = &u->c->app->model;
	int32_t next = u->cursor;

	if (!m->nnodes)
		return 0;
	if (a == PC_RANK) {
		u->ranked = !u->ranked;
		u->rl = (struct list){0};
		return 1;
	}
	if (u->ranked && list_key(&u->rl, a, MAX(1, u->c->h - 20)))
		return 1;
	if (a == PC_AGGREGATE) {
		u->worst = !u->worst;
		return 1;
	}
	if (a == PC_BACK && u->drilled) {   /* back up to the fleet */
		u->drilled = 0;
		u->su_cur = u->cursor / npsu(m);
		return 1;
	}
	if (u->fleet && !u->ranked && fleet_key(u, m, a))
		return 1;
	switch (a) {
	case PC_LEFT: next--; break;
	case PC_RIGHT: next++; break;
	case PC_UP: case PC_DOWN:
		if (u->gpu_view && gpu_step(u, m, a == PC_UP ? -1 : 1))
			return 1;   /* to the next GPU of the same node */
		if (!u->nx || u->nalloc != m->nnodes)   /* not laid out yet: by SU */
			next += a == PC_UP ? -npsu(m) : npsu(m);
		else if ((next = vertical(u, m, a == PC_UP ? -1 : 1)) < 0)
			next = u->cursor;
		if (u->gpu_view && next >= 0 && next < m->nnodes && next != u->cursor)
			u->gpu_cur = a == PC_UP ? m->gpus_per_node - 1 : 0;   /* enters at its near end */
		break;
	case PC_PGUP: next -= npsu(m); break;
	case PC_PGDN: next += npsu(m); break;
	case PC_TOP: next = 0; break;
	case PC_BOTTOM: next = m->nnodes - 1; break;
	case PC_SELECT: console_show_node(u->c, u->cursor); return 1;
	case PC_METRIC_NEXT: u->metric = (u->metric + 1) % M_COUNT; return 1;
	case PC_METRIC_PREV: u->metric = (u->metric + M_COUNT - 1) % M_COUNT; return 1;
	case PC_ZOOM:
		u->zoom = (u->zoom + 1) % 4;   /* auto, GPUs, nodes, SUs */
		u->drilled = 0;
		return 1;
	default: return 0;
	}
	u->cursor = MAX(0, MIN(next, m->nnodes - 1));
	u->c->node_sel = u->cursor;
	return 1;
}

static void util_click(void *st, int x, int y)
{
	struct util *u = st;
	const struct model *m = &u->c->app->model;

	for (int32_t i = 0; u->nx && i < m->nnodes; i++) {
		int top = u->gpu_view ? 1 + (u->ny[i] / u->band_h - u->top_band) * u->band_h + 1
				      : 1 + u->ny[i] / 2 - u->top_band;
		int bottom = u->gpu_view ? top + u->rows_per_node - 1 : top;

		if (u->nx[i] == x && y >= top && y <= bottom) {
			u->cursor = i;
			u->c->node_sel = i;
			return;
		}
	}
}

static int util_target(void *st, struct target *t)
{
	struct util *u = st;

	if (!u->c->app->model.nnodes)
		return 0;
	t->node = u->cursor;
	return 1;
}

const struct panel_ops panel_utilization = {
	.name = "utilization",
	.title = "Utilization",
	.short_title = "Util",
	.help = "every GPU as a cell, coloured by a metric; cursor over nodes",
	.init = util_init,
	.free = util_free,
	.draw = util_draw,
	.key = util_key,
	.filter = util_filter,
	.target = util_target,
	.click = util_click,
};
