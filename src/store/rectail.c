/*
 * rectail.c - the recorder of a cluster whose samples stay in tail rows
 * (store_int.h, TAIL_ONLY_GPUS): no series and no chunks. A tick's packed
 * events are kept densely (struct tev) and written as its tail row relative
 * to each series' value in its last row (struct tail_chain), which restarts
 * for IB readings with each window and for GPU samples with each keyframe:
 * a seek reads a window's IB readings from its start and its GPU samples
 * only from the keyframe on, at most keyframe_ticks rows of them.
 */
#include <string.h>
#include "recorder.h"

int rectail_pack(struct rec *r, const struct event *ev, int kind, int32_t node, int32_t idx, uint16_t src)
{
	struct tev *e;

	if (node < 0 || node >= r->chain.nnodes || idx < 0 || idx >= r->chain.per_node[kind])
		return -1;
	if (r->ntev == r->ctev) {
		r->ctev = r->ctev ? r->ctev * 2 : 16384;
		r->tev = xrealloc(r->tev, sizeof *r->tev * r->ctev);
	}
	e = &r->tev[r->ntev];
	pack_values(ev, e->v);
	if (kind == PK_GPU)
		for (int c = 0; c < NV_GPU; c++)
			e->v[c] = (int32_t)e->v[c];   /* as a series would hold it */
	e->tdelta = ev->time - r->tick_time;
	e->node = node;
	e->idx = idx;
	e->src = src;
	e->kind = (uint8_t)kind;
	return (int)r->ntev++;
}

void rectail_start(struct rec *r, const struct model *m)
{
	chain_init(&r->chain, m->nnodes, m->gpus_per_node, m->topo.rails);
	r->win_tail = 1;
}

/* The window ends: IB readings are absolute again; the age and size bounds
 * (retention.c) are applied here, having no closed window's last slice. */
void rectail_close(struct rec *r)
{
	chain_reset(&r->chain, PK_IB);
	if (r->in_txn && !r->failed && !r->down)
		retention_run(r);
	if (r->topo_changed) {
		chain_free(&r->chain);
		r->have_win = r->win_tail = 0;
		return;
	}
	r->w0 = r->w_end;
	r->w_end += r->chunk_ticks;
}

void rectail_encode(struct rec *r, struct sbuf *out)
{
	tail_encode_dense(out, &r->chain, r->w0, r->tev, r->arr, r->narr, (const char *const *)r->srcs, r->nsrcs);
}
