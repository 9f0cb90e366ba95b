/*
 * whatif.c - what-if futures of the model (whatif.h): the model described as
 * a twin seed, futures run with and without the actions per workload seed,
 * and what differs between them.
 *
 * The seed: every node's state (drained, or down: Slurm DOWN, not
 * responding, failed), every job running or waiting with its size, nodes,
 * GPUs, submit and start times, and the utilization and power its GPUs
 * reported last; the idle GPUs' power; the facility meter's last reading.
 * Slurm does not say when a job will end: the twin draws it (twin.c), which
 * is what the spread over seeds shows.
 *
 * Waits are those of the jobs that started in the horizon (start - submit)
 * and, so far, of those still waiting at its end. A job is delayed when it
 * starts later with the actions than without (or not at all in the
 * horizon: delayed until the horizon, at least) by a minute or more;
 * killed when it ends cancelled, failed or node-failed with the actions but
 * not without, having started at the same time in both (a job that starts
 * only in one future may end by its own draw: that is not the actions');
 * requeued when it restarts more often with them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "whatif.h"

void whatif_opts_default(struct whatif_opts *o)
{
	o->horizon_s = 1800;
	o->runs = 1;
	o->seed = 1;
	o->sample_s = 60;
}

/* ---- the seed ---- */

struct seed_buf {
	struct twin_seed seed;
	uint8_t *state;
	struct twin_job *jobs;
};

static uint8_t node_state(const struct node *n)
{
	if (n->base == NODE_DOWN || (n->flags & (NODE_F_NOT_RESPONDING | NODE_F_FAIL)))
		return TN_DOWN;
	return (n->flags & NODE_F_DRAIN) ? TN_DRAIN : TN_UP;
}

/* Mean utilization (%) and power (W) of a job's GPUs, -1 when unknown. */
static void job_levels(const struct model *m, const struct job *j, double *util, double *watts)
{
	double u = 0, w = 0;
	int64_t nu = 0, nw = 0;

	for (int32_t k = 0; k < j->nnodes; k++)
		for (int32_t g = 0; g < m->gpus_per_node && g < 32; g++) {
			int32_t gi = model_gpu(m, j->node_idx[k], g);

			if (!(j->gpu_mask >> g & 1) || gi < 0 || gi >= m->ngpus)
				continue;
			if (m->met[MET_UTIL][gi] != MET_UNKNOWN)
				u += m->met[MET_UTIL][gi], nu++;
			if (m->met[MET_POWER][gi] != MET_UNKNOWN)
				w += m->met[MET_POWER][gi] / 100.0, nw++;
		}
	*util = nu ? u / (double)nu : -1;
	*watts = nw ? w / (double)nw : -1;
}

static double idle_watts(const struct model *m)
{
	double w = 0;
	int64_t n = 0;

	for (int32_t gi = 0; gi < m->ngpus; gi++)
		if (m->gpu_job[gi] < 0 && m->met[MET_POWER][gi] != MET_UNKNOWN && m->met[MET_UTIL][gi] == 0)
			w += m->met[MET_POWER][gi] / 100.0, n++;
	return n ? w / (double)n : 0;
}

static int describe(const struct model *m, struct seed_buf *b, char *err, size_t errlen)
{
	struct twin_seed *s = &b->seed;
	int32_t nj = 0;

	memset(b, 0, sizeof *b);
	if (m->nnodes < 1 || m->gpus_per_node < 1) {
		snprintf(err, errlen, "no cluster to fork a twin of yet (no nodes known)");
		return -1;
	}
	if (topo_build(&s->topo, m->nnodes, m->topo.nodes_per_su > 0 ? m->topo.nodes_per_su : 32, m->gpus_per_node)) {
		snprintf(err, errlen, "cannot lay out %d nodes of %d GPUs", m->nnodes, m->gpus_per_node);
		return -1;
	}
	b->state = xmalloc((size_t)m->nnodes);
	for (int32_t n = 0; n < m->nnodes; n++)
		b->state[n] = node_state(&m->nodes[n]);
	b->jobs = xcalloc((size_t)(m->njobs ? m->njobs : 1), sizeof *b->jobs);
	for (int32_t i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		struct twin_job *t = &b->jobs[nj];

		if (!j->id)
			continue;
		*t = (struct twin_job){j->id, j->state, j->gpus, j->nnodes, j->node_idx, (uint8_t)(j->gpu_mask & 0xff),
				       j->submit_time, j->start_time, -1, -1};
		if (j->state == JOB_RUNNING)
			job_levels(m, j, &t->util, &t->watts);
		nj++;
	}
	s->node_state = b->state;
	s->jobs = b->jobs;
	s->njobs = nj;
	s->now = m->time;
	s->fac_known = m->fac.known;
	s->it_kw = m->fac.it_kw;
	s->facility_kw = m->fac.facility_kw;
	s->outside_c = m->fac.outside_c;
	s->idle_watts = idle_watts(m);
	return 0;
}

/* ---- one future, summed up ---- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(double *v, int32_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, (size_t)n, sizeof *v, cmp_dbl);
	return v[MIN(n - 1, (int32_t)(p * (double)(n - 1) + 0.5))];
}

static int pending_like(int state)
{
	return state == JOB_PENDING || state == JOB_REQUEUED || (state == JOB_NODE_FAIL);
}

static void sum_up(const struct twin_result *r, int64_t horizon, struct whatif_future *f)
{
	double *waits = xmalloc((size_t)MAX(1, r->nfates) * sizeof *waits);
	int32_t nw = 0;

	memset(f, 0, sizeof *f);
	for (int32_t i = 0; i < r->npts; i++) {
		f->util_mean += r->pts[i].util;
		f->it_kw_mean += r->pts[i].it_kw;
		f->pue_mean += r->pts[i].pue;
	}
	if (r->npts) {
		const struct twin_point *last = &r->pts[r->npts - 1];

		f->util_mean /= r->npts;
		f->it_kw_mean /= r->npts;
		f->pue_mean /= r->npts;
		f->util_end = last->util;
		f->it_kw_end = last->it_kw;
		f->pue_end = last->pue;
		f->avail_start = r->pts[0].avail;
		f->avail_end = last->avail;
		f->busy_end = last->busy;
		f->pending_end = last->pending;
	}
	for (int32_t i = 0; i < r->nfates; i++) {
		const struct twin_fate *t = &r->fates[i];

		if (t->start != INT64_MAX && t->start > 0) {
			waits[nw++] = (double)(t->start - t->submit);
			f->started++;
		} else if (t->start == INT64_MAX && pending_like(t->state)) {
			waits[nw++] = (double)(horizon - t->submit);
		}
	}
	f->wait_p50 = pct(waits, nw, 0.5);
	f->wait_p95 = pct(waits, nw, 0.95);
	free(waits);
}

/* ---- the difference ---- */

static int killed_state(int s)
{
	return s == JOB_CANCELLED || s == JOB_FAILED || s == JOB_NODE_FAIL;
}

static void note_id(uint32_t *ids, int32_t *n, uint32_t id)
{
	if (*n < WHATIF_LIST_MAX)
		ids[(*n)++] = id;
}

void whatif_compare(const struct twin_result *base, const struct twin_result *with, int64_t horizon, int32_t m_gpn,
		    struct whatif_report *r, struct whatif_diff *d)
{
	int list = r != NULL;

	double *delays = xmalloc((size_t)MAX(1, with->nfates) * sizeof *delays);

	memset(d, 0, sizeof *d);
	if (base->npts && with->npts) {
		d->gpus_out = base->pts[0].avail - with->pts[0].avail;
		d->nodes_out = d->gpus_out / MAX(1, m_gpn);
	}
	for (int32_t i = 0; i < with->nfates; i++) {
		const struct twin_fate *w = &with->fates[i], *b = twin_fate_find(base, w->id);
		int64_t bs, ws;

		if (!b)
			continue;
		if (killed_state(w->state) && !killed_state(b->state) && w->start == b->start) {
			d->killed++;
			if (list)
				note_id(r->killed_ids, &r->nkilled_ids, w->id);
		}
		if (w->restarts > b->restarts) {
			d->requeued++;
			d->requeued_gpus += w->gpus;
			if (list)
				note_id(r->requeued_ids, &r->nrequeued_ids, w->id);
		}
		if (b->start <= 0 && b->start != INT64_MAX)
			continue;   /* running at the fork: requeued or not */
		bs = MIN(b->start, horizon);
		ws = MIN(w->start, horizon);
		if (ws >= bs + WHATIF_DELAY_MIN) {
			delays[d->delayed++] = (double)(ws - bs);
			if (list)
				note_id(r->delayed_ids, &r->ndelayed_ids, w->id);
		}
	}
	d->delay_max = d->delayed ? pct(delays, d->delayed, 1.0) : 0;
	d->delay_p50 = pct(delays, d->delayed, 0.5);
	free(delays);
}

int whatif_run(const struct model *m, const struct twin_act *acts, int nacts, const struct whatif_opts *o,
	       struct whatif_report *r, char *err, size_t errlen)
{
	struct seed_buf b;
	int64_t cpu0 = cpu_us();
	int rc = 0;

	memset(r, 0, sizeof *r);
	r->runs = MAX(1, MIN(WHATIF_RUNS_MAX, o->runs));
	r->horizon_s = o->horizon_s;
	r->seed = o->seed;
	if (describe(m, &b, err, errlen) < 0)
		return -1;
	for (int k = 0; k < r->runs && !rc; k++) {
		struct twin_result base, with;

		if (twin_run(&b.seed, NULL, 0, o->horizon_s, o->sample_s, o->seed + (uint64_t)k, &base, err, errlen) < 0) {
			rc = -1;
			break;
		}
		if (twin_run(&b.seed, acts, nacts, o->horizon_s, o->sample_s, o->seed + (uint64_t)k, &with, err, errlen) < 0) {
			twin_result_free(&base);
			rc = -1;
			break;
		}
		sum_up(&base, o->horizon_s, &r->base[k]);
		sum_up(&with, o->horizon_s, &r->with[k]);
		whatif_compare(&base, &with, o->horizon_s, m->gpus_per_node, k == 0 ? r : NULL, &r->diff[k]);
		if (k == 0) {
			r->act_failed = with.act_failed;
			memcpy(r->act_err, with.act_err, sizeof r->act_err);
			r->npts = MIN(base.npts, with.npts);
			r->base_pts = base.pts;
			r->with_pts = with.pts;
			base.pts = with.pts = NULL;
		}
		twin_result_free(&base);
		twin_result_free(&with);
	}
	free(b.state);
	free(b.jobs);
	r->cpu_s = (double)(cpu_us() - cpu0) / 1e6;
	return rc;
}

void whatif_report_free(struct whatif_report *r)
{
	free(r->base_pts);
	free(r->with_pts);
	r->base_pts = r->with_pts = NULL;
}

struct whatif_spread whatif_spread(const double *v, int n)
{
	struct whatif_spread s = {0, n > 0 ? v[0] : 0, n > 0 ? v[0] : 0};

	for (int k = 0; k < n; k++) {
		s.mean += v[k];
		s.min = MIN(s.min, v[k]);
		s.max = MAX(s.max, v[k]);
	}
	s.mean /= MAX(1, n);
	return s;
}
