/*
 * fleetmap.c - the whole fleet at once: a cell per scalable unit, for the
 * utilization panel's coarsest zoom. 400 SUs (102,400 GPUs) fit 200x60 and
 * 80x24. A cell's colour is its SU's mean or worst level of the measure
 * shown (the operator chooses, the legend says which); a GPU in a worse state
 * (fault, down, drained, stale) colours the cell in every mode, a fault
 * before anything else, so a fault anywhere is visible at this zoom too.
 * Rows start with the number of their first SU, wide enough for four digits.
 */
#include <stdio.h>
#include "ui_int.h"
#include "filter.h"

/* Worse states rank higher: fault, down, drained, stale, no data, fine. */
int gpu_state_rank(int s)
{
	static const int r[] = {[GS_OK] = 0, [GS_NONE] = 1, [GS_STALE] = 2, [GS_DRAIN] = 3, [GS_DOWN] = 4,
				[GS_FAULT] = 5};

	return s >= 0 && s <= GS_DOWN ? r[s] : 0;
}

int gpu_state_role(int s)
{
	switch (s) {
	case GS_FAULT: return R_GPU_FAULT;
	case GS_DRAIN: return R_GPU_DRAIN;
	case GS_STALE: return R_GPU_STALE;
	case GS_DOWN: return R_GPU_DOWN;
	default: return R_GPU_NONE;
	}
}

void fleet_aggregate(const struct model *m, const uint8_t *gs, int worst, struct fleet_level lv,
		     const struct node_filter *f, struct su_cell *out, int sus)
{
	int npsu = m->topo.nodes_per_su > 0 ? m->topo.nodes_per_su : 32, gpn = m->gpus_per_node;

	for (int su = 0; su < sus; su++) {
		struct su_cell *c = &out[su];
		int sum = 0, k = 0, none = 0, n = 0;

		*c = (struct su_cell){GS_OK, 0, 0, 0};
		for (int32_t i = su * npsu; i < (su + 1) * npsu && i < m->nnodes; i++) {
			c->matched |= filter_node(f, i);
			for (int g = 0; g < gpn; g++) {
				int32_t gi = model_gpu(m, i, g);
				int l = gs[gi] == GS_OK ? lv.level(lv.ctx, gi) : -1;

				n++;
				c->faults += gs[gi] == GS_FAULT;
				none += gs[gi] == GS_NONE || (gs[gi] == GS_OK && l < 0);
				if (gs[gi] != GS_OK && gs[gi] != GS_NONE && gpu_state_rank(gs[gi]) > gpu_state_rank(c->state))
					c->state = gs[gi];
				if (l >= 0)
					sum += l, k++, c->lvl = worst ? MAX(c->lvl, l) : c->lvl;
			}
		}
		if (!worst && k)
			c->lvl = sum / k;
		if (c->faults)
			c->state = GS_FAULT;   /* seen at every zoom, whatever the mode */
		else if (!worst && c->state != GS_DOWN && k)
			c->state = GS_OK;      /* the mean: the states show in worst mode */
		if (c->state == GS_OK && !k && none == n)
			c->state = GS_NONE;
	}
}

void fleet_layout(struct fleet_map *fm, int sus, int w, int h)
{
	int digits = sus >= 1000 ? 4 : sus >= 100 ? 3 : 2;

	fm->sus = sus;
	fm->lw = 2 + digits + 1;   /* "SU" + number + space */
	for (fm->cw = 2; fm->cw >= 1; fm->cw--) {   /* a gap between cells, unless that does not fit */
		fm->per_row = MAX(1, (w - fm->lw) / fm->cw);
		fm->rows = (sus + fm->per_row - 1) / fm->per_row;
		if (fm->per_row >= 10 && (sus + fm->per_row / 10 * 10 - 1) / (fm->per_row / 10 * 10) <= h)
			fm->per_row -= fm->per_row % 10;   /* rows of tens are easier to count */
		fm->rows = (sus + fm->per_row - 1) / fm->per_row;
		if (fm->rows <= h)
			return;
	}
	fm->cw = 1;
}

void fleet_draw(const struct fleet_map *fm, const struct view *v, int y0, int rows, const struct su_cell *cells,
		int cursor, fleet_look_fn look, void *ctx)
{
	int top = 0;

	if (cursor / fm->per_row >= rows)   /* keep the cursor's row in view */
		top = cursor / fm->per_row - rows + 1;
	for (int r = top; r < fm->rows && r - top < rows; r++) {
		int y = y0 + r - top;

		view_textf(v, 0, y, fm->lw, r == cursor / fm->per_row ? R_CURSOR : R_LABEL, "SU%d", r * fm->per_row + 1);
		for (int k = 0; k < fm->per_row && r * fm->per_row + k < fm->sus; k++) {
			int su = r * fm->per_row + k, role;
			uint32_t ch;

			look(ctx, &cells[su], &role, &ch);
			if (su == cursor)
				role = R_CURSOR;
			view_cell(v, fm->lw + fm->cw * k, y, ch, role, 0);
			if (fm->cw == 2)
				view_cell(v, fm->lw + 2 * k + 1, y, su == cursor ? (text_utf8 ? 0x258c : '<') : ' ', role, 0);
		}
	}
}
