/*
 * twin.c - one future of a what-if twin (twin.h).
 *
 * Forking: a struct sim is built from the seed instead of sim_new's warm
 * start: the seed's topology, node states (drained, down) and jobs, each
 * running one placed on its nodes with the utilization and power measured
 * for it, its run time left drawn from its size class's run times beyond
 * what it has run (workload.c), pending ones queued with theirs drawn. The
 * facility is calibrated to the meter's reading at the fork: the IT power
 * the twin computes is offset to the meter's, and its cooling and losses are
 * scaled so that the PUE starts where the meter says.
 *
 * Admission: when a pending job would fit on free nodes at the fork, what
 * holds it is not room but a limit (a QOS cap, or Slurm's next pass): the
 * twin then holds the GPUs busy at the fork as its cap. Otherwise there is
 * no cap beyond the fleet.
 *
 * Stepping, one second at a time: the scheduler (wl_step_twin: ends,
 * requeue phases, the submitter keeping the demand the fork shows - the
 * GPUs running and waiting, the jobs waiting - its jobs drawn from a random
 * stream of their own; FIFO and backfill), power from the running jobs (their
 * level, the loading and checkpoint dips) and the facility's physics
 * (facility.c). No telemetry text, no faults: the twin
 * carries the faults and drains it was forked with, and invents none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"
#include "twin.h"

struct twin {
	struct sim *s;
	struct rng r_arr;          /* the submitter's jobs */
	double idle_w, it_offset, overhead_k;
	int64_t t0;                /* s */
};

static uint64_t seed_mix(uint64_t seed, uint64_t salt)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL ^ salt;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_job_id(const void *a, const void *b)
{
	const struct twin_job *x = *(const struct twin_job *const *)a, *y = *(const struct twin_job *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static int64_t round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }

static int popcount8(uint8_t m)
{
	int n = 0;

	for (; m; m &= (uint8_t)(m - 1))
		n++;
	return n;
}

/* A pending job's shape: whole nodes, or an aligned part of one. */
static void pending_shape(struct sjob *j, int32_t gpus)
{
	if (gpus < SIM_GPN) {
		j->nnodes = 1;
		j->gpn = gpus <= 1 ? 1 : gpus <= 2 ? 2 : gpus <= 4 ? 4 : 8;
	} else {
		j->nnodes = (gpus + SIM_GPN - 1) / SIM_GPN;
		j->gpn = SIM_GPN;
	}
}

static void seed_running(struct twin *tw, struct sjob *j, const struct twin_job *tj)
{
	struct sim *s = tw->s;
	int64_t now = sim_sec(s), elapsed = tj->start > 0 ? MAX(0, now - tj->start / US_PER_SEC) : 0;
	int32_t k = 0;

	j->nodes = xmalloc((size_t)tj->nnodes * sizeof *j->nodes);
	for (int32_t i = 0; i < tj->nnodes; i++)
		if (tj->nodes[i] >= 0 && tj->nodes[i] < s->topo.nodes)
			j->nodes[k++] = tj->nodes[i];
	qsort(j->nodes, (size_t)k, sizeof *j->nodes, cmp_i32);
	j->nnodes = k;
	j->mask = tj->mask ? tj->mask : 0xff;
	j->gpn = (uint8_t)popcount8(j->mask);
	j->cls = (uint8_t)wl_class_of(j->nnodes, j->gpn);
	j->state = JOB_RUNNING;
	j->start = now - elapsed;
	j->work = wl_draw_remaining(&s->r_job, j->cls, elapsed);
	j->end = now + j->work;
	j->limit = round_up((int64_t)((double)(elapsed + j->work) * 1.5) + 600, 1800);
	if (tj->util >= 20 && tj->watts > 0) {   /* as measured: watts = 265 + util% x job watts */
		j->util = (uint8_t)MIN(100.0, tj->util);
		j->watts = (uint16_t)MAX(0.0, MIN(600.0, (tj->watts - 265.0) / (tj->util / 100.0)));
	}
	wl_seed_place(s, j);
}

static void seed_pending(struct twin *tw, struct sjob *j, const struct twin_job *tj)
{
	struct sim *s = tw->s;

	pending_shape(j, MAX(1, tj->gpus));
	j->cls = (uint8_t)wl_class_of(j->nnodes, j->gpn);
	j->state = JOB_PENDING;
	j->work = wl_draw_remaining(&s->r_job, j->cls, 0);
	j->limit = round_up((int64_t)((double)j->work * 1.5) + 600, 1800);
	j->submit = j->eligible = tj->submit > 0 ? MIN(tj->submit / US_PER_SEC, sim_sec(s)) : sim_sec(s);
	j->eligible = MAX(j->eligible, sim_sec(s));
}

static void seed_jobs(struct twin *tw, const struct twin_seed *seed)
{
	struct sim *s = tw->s;
	const struct twin_job **order = xmalloc((size_t)MAX(1, seed->njobs) * sizeof *order);
	int32_t n = 0;

	for (int32_t i = 0; i < seed->njobs; i++) {
		const struct twin_job *tj = &seed->jobs[i];
		int pending = tj->state == JOB_PENDING || tj->state == JOB_REQUEUED || tj->state == JOB_NODE_FAIL;

		if (tj->id && (pending || (tj->state == JOB_RUNNING && tj->nnodes > 0)))
			order[n++] = tj;
	}
	qsort(order, (size_t)n, sizeof *order, cmp_job_id);
	for (int32_t i = 0; i < n; i++) {
		struct sjob *j;

		if (i && order[i]->id == order[i - 1]->id)
			continue;
		j = wl_seed_job(s, order[i]->id);
		j->requeue = 1;
		j->end_state = JOB_COMPLETED;
		j->util = 94;
		j->watts = 435;
		j->submit = j->eligible = order[i]->submit / US_PER_SEC;
		if (order[i]->state == JOB_RUNNING)
			seed_running(tw, j, order[i]);
		else
			seed_pending(tw, j, order[i]);
	}
	free(order);
}

/* Is something other than room holding the queue (see the top)? */
static int capped(const struct sim *s)
{
	int32_t free_nodes = 0;

	for (int32_t n = 0; n < s->topo.nodes; n++)
		free_nodes += !s->nodes[n].used && !(s->nodes[n].flags & NODE_F_DRAIN) && !s->nodes[n].down;
	for (int32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == JOB_PENDING && s->jobs[i].nnodes <= free_nodes)
			return 1;
	return 0;
}

/* The submitter keeps what the fork shows: the GPUs running and waiting,
 * and the jobs waiting (at least one GPU, so that an idle cluster's twin
 * stays idle but not empty of demand). */
static void demand(struct sim *s)
{
	int64_t pending = 0;
	int32_t jobs = 0;

	for (int32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == JOB_PENDING) {
			pending += (int64_t)s->jobs[i].nnodes * s->jobs[i].gpn;
			jobs++;
		}
	s->twin_demand = MAX(1, s->running_gpus + pending);
	s->twin_want = jobs;
}

/* ---- power ---- */

/* A running job's utilization now: loading, checkpoint dips, or its level. */
static int job_util(const struct sjob *j, int64_t now, double *watts)
{
	int64_t t = now - j->start;

	if (t < 45) {
		*watts = 150;
		return 15;
	}
	if ((j->ckpt && now < j->ckpt + 30) || (j->stall_period && t % j->stall_period < j->stall_len)) {
		*watts = 205;
		return 12;
	}
	*watts = MIN(SIM_POWER_LIMIT_W, 265.0 + j->util * 0.01 * j->watts);
	return j->util;
}

static void power(struct twin *tw, int32_t *busy_out, double *util_out)
{
	struct sim *s = tw->s;
	int64_t now = sim_sec(s), busy = 0;
	double util = 0, busy_w = 0;

	for (int32_t i = 0; i < s->njobs; i++) {
		const struct sjob *j = &s->jobs[i];
		int64_t g = (int64_t)j->nnodes * j->gpn;
		double w;
		int u;

		if (j->state != JOB_RUNNING)
			continue;
		u = job_util(j, now, &w);
		busy += g;
		util += (double)u * (double)g;
		busy_w += w * (double)g;
	}
	s->fac.gpu_kw = (busy_w + (double)(s->topo.gpus - busy) * tw->idle_w) / 1000.0;
	s->fac.host_kw = s->topo.nodes * 1.5 + 3.0 * util / (100.0 * SIM_GPN) + tw->it_offset;
	s->fac.util_mean = util / (100.0 * s->topo.gpus);
	*busy_out = (int32_t)busy;
	*util_out = util / s->topo.gpus;
}

static void facility(struct twin *tw)
{
	struct sfac *f = &tw->s->fac;

	fac_step(tw->s);
	f->facility_kw = f->it_kw + (f->cooling_kw + f->other_kw) * tw->overhead_k;
	f->pue = f->facility_kw / f->it_kw;
}

/* The GPUs' power at the fork, for fac_init's first reading. */
static void gpus_at_fork(struct twin *tw)
{
	struct sim *s = tw->s;
	int64_t now = sim_sec(s);

	for (int64_t g = 0; g < s->topo.gpus; g++)
		s->gpus[g].watts = (float)tw->idle_w;
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct sjob *j = &s->jobs[i];
		double w;
		int u;

		if (j->state != JOB_RUNNING)
			continue;
		u = job_util(j, now, &w);
		for (int32_t k = 0; k < j->nnodes; k++)
			for (int g = 0; g < SIM_GPN; g++)
				if (j->mask >> g & 1) {
					s->gpus[(int64_t)j->nodes[k] * SIM_GPN + g].watts = (float)w;
					s->gpus[(int64_t)j->nodes[k] * SIM_GPN + g].util = (uint8_t)u;
				}
	}
}

static void calibrate(struct twin *tw, const struct twin_seed *seed)
{
	struct sfac *f = &tw->s->fac;
	double over;

	tw->overhead_k = 1;
	tw->it_offset = 0;
	if (!seed->fac_known || !(seed->it_kw > 0) || !(seed->facility_kw >= seed->it_kw))
		return;
	tw->it_offset = seed->it_kw - f->it_kw;
	f->host_kw += tw->it_offset;
	f->it_kw = seed->it_kw;
	over = f->cooling_kw + f->other_kw;
	if (over > 0)
		tw->overhead_k = MAX(0.2, MIN(5.0, (seed->facility_kw - seed->it_kw) / over));
	f->facility_kw = f->it_kw + over * tw->overhead_k;
	f->pue = f->facility_kw / f->it_kw;
}

/* ---- forking ---- */

static struct sim *fork_sim(const struct twin_seed *seed, uint64_t wseed)
{
	struct sim *s = xcalloc(1, sizeof *s);

	sim_spec_default(&s->spec);
	s->spec.gpus = seed->topo.gpus;
	s->spec.seed = wseed;
	s->spec.accel = 0;   /* no cooling faults of its own */
	s->spec.load = 1;
	s->topo = seed->topo;
	s->now = seed->now / US_PER_SEC * US_PER_SEC;
	rng_seed(&s->r_tel, seed_mix(wseed, 1));
	rng_seed(&s->r_job, seed_mix(wseed, 2));
	rng_seed(&s->r_flt, seed_mix(wseed, 3));
	rng_seed(&s->r_fac, seed_mix(wseed, 4));
	s->nodes = xcalloc((size_t)s->topo.nodes, sizeof *s->nodes);
	s->gpus = xcalloc((size_t)s->topo.gpus, sizeof *s->gpus);
	for (int32_t n = 0; n < s->topo.nodes; n++) {
		uint8_t st = seed->node_state ? seed->node_state[n] : TN_UP;

		topo_node_name(&s->topo, n, s->nodes[n].name, sizeof s->nodes[n].name);
		if (st == TN_DRAIN)
			s->nodes[n].flags |= NODE_F_DRAIN;
		s->nodes[n].down = st == TN_DOWN;
	}
	s->next_id = 1;
	return s;
}

static int twin_fork(struct twin *tw, const struct twin_seed *seed, uint64_t wseed, char *err, size_t errlen)
{
	struct sim *s;

	memset(tw, 0, sizeof *tw);
	if (seed->topo.gpus_per_node < 1 || seed->topo.gpus_per_node > SIM_GPN || seed->topo.nodes < 1 ||
	    seed->topo.gpus != seed->topo.nodes * SIM_GPN) {
		snprintf(err, errlen, "the twin models nodes of %d GPUs; this cluster has %d GPUs on %d nodes", SIM_GPN,
			 seed->topo.gpus, seed->topo.nodes);
		return -1;
	}
	tw->s = s = fork_sim(seed, wseed);
	tw->t0 = sim_sec(s);
	tw->idle_w = seed->idle_watts > 0 ? seed->idle_watts : 80.0;
	seed_jobs(tw, seed);
	s->cap_gpus = capped(s) ? s->running_gpus : s->topo.gpus;
	demand(s);
	rng_seed(&tw->r_arr, seed_mix(wseed, 5));
	gpus_at_fork(tw);
	fac_init(s);
	calibrate(tw, seed);
	return 0;
}

/* ---- actions: what the sim backend would do with them ---- */

static void act_fail(struct twin_result *out, const char *what, const char *err)
{
	if (!out->act_failed++)
		snprintf(out->act_err, sizeof out->act_err, "%s: %s", what, err);
}

static void apply(struct twin *tw, const struct twin_act *a, struct twin_result *out)
{
	char err[160], what[32];

	snprintf(what, sizeof what, "job %u", a->job);
	switch (a->verb) {
	case TV_DRAIN:
	case TV_RESUME:
		for (int32_t i = 0; i < a->nnodes; i++) {
			int rc = a->verb == TV_DRAIN ? sim_drain(tw->s, a->nodes[i], "whatif", "whatif", err, sizeof err)
						     : sim_resume(tw->s, a->nodes[i], err, sizeof err);

			snprintf(what, sizeof what, "node %d", a->nodes[i]);
			if (rc < 0)
				act_fail(out, what, err);
		}
		break;
	case TV_REQUEUE:
		if (sim_requeue(tw->s, a->job, a->nodes, a->nnodes, err, sizeof err) < 0)
			act_fail(out, what, err);
		break;
	case TV_SIGNAL:
		if (sim_signal(tw->s, a->job, a->sig ? a->sig : 10, err, sizeof err) < 0)
			act_fail(out, what, err);
		break;
	}
}

/* ---- stepping and what it shows ---- */

/* Where id is in r's fates, or where it would go (*at). */
static int32_t fate_pos(const struct twin_result *r, uint32_t id, int *at)
{
	int32_t lo = 0, hi = r->nfates;

	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;

		if (r->fates[mid].id == id)
			return *at = 1, mid;
		if (r->fates[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return *at = 0, lo;
}

const struct twin_fate *twin_fate_find(const struct twin_result *r, uint32_t id)
{
	int at;
	int32_t i = fate_pos(r, id, &at);

	return at ? &r->fates[i] : NULL;
}

static struct twin_fate *fate_of(struct twin_result *r, uint32_t id)
{
	int at;
	int32_t lo = fate_pos(r, id, &at);

	if (at)
		return &r->fates[lo];
	if (r->nfates == r->cfates) {
		r->cfates = r->cfates ? r->cfates * 2 : 1024;
		r->fates = xrealloc(r->fates, (size_t)r->cfates * sizeof *r->fates);
	}
	memmove(&r->fates[lo + 1], &r->fates[lo], (size_t)(r->nfates - lo) * sizeof *r->fates);
	r->nfates++;
	memset(&r->fates[lo], 0, sizeof r->fates[lo]);
	r->fates[lo].id = id;
	r->fates[lo].start = INT64_MAX;
	return &r->fates[lo];
}

/* Each job's fate so far (jobs leave the array some minutes after they
 * end). Jobs are seeded with no restarts, so restarts count from the fork. */
static void follow(struct twin *tw, struct twin_result *out, int at_fork)
{
	struct sim *s = tw->s;

	for (int32_t i = 0; i < s->njobs; i++) {
		const struct sjob *j = &s->jobs[i];
		struct twin_fate *f = fate_of(out, j->id);

		f->at_fork |= (uint8_t)at_fork;
		f->gpus = (int32_t)((int64_t)j->nnodes * j->gpn);
		f->submit = j->submit - tw->t0;
		f->state = j->state;
		f->restarts = j->restarts;
		if (j->state == JOB_RUNNING && f->start == INT64_MAX)
			f->start = j->start - tw->t0;
	}
}

static void sample(struct twin *tw, struct twin_result *out, int32_t busy, double util)
{
	struct sim *s = tw->s;
	struct twin_point *p;
	int32_t avail = 0, running = 0;

	for (int32_t n = 0; n < s->topo.nodes; n++)
		avail += !(s->nodes[n].flags & NODE_F_DRAIN) && !s->nodes[n].down;
	for (int32_t i = 0; i < s->njobs; i++)
		running += s->jobs[i].state == JOB_RUNNING;
	out->pts = xrealloc(out->pts, (size_t)(out->npts + 1) * sizeof *out->pts);
	p = &out->pts[out->npts++];
	p->t = sim_sec(s) - tw->t0;
	p->util = (float)util;
	p->busy = busy;
	p->avail = avail * SIM_GPN;
	p->running = running;
	p->pending = s->pending_jobs;
	p->it_kw = (float)s->fac.it_kw;
	p->pue = (float)s->fac.pue;
}

int twin_run(const struct twin_seed *seed, const struct twin_act *acts, int nacts, int64_t horizon_s,
	     int32_t sample_s, uint64_t wseed, struct twin_result *out, char *err, size_t errlen)
{
	struct twin tw;
	int32_t busy;
	double util;

	memset(out, 0, sizeof *out);
	if (twin_fork(&tw, seed, wseed, err, errlen) < 0)
		return -1;
	sample_s = MAX(1, sample_s);
	follow(&tw, out, 1);
	for (int i = 0; i < nacts; i++)
		apply(&tw, &acts[i], out);
	power(&tw, &busy, &util);
	tw.s->pending_jobs = 0;
	for (int32_t i = 0; i < tw.s->njobs; i++)
		tw.s->pending_jobs += tw.s->jobs[i].state != JOB_RUNNING;
	sample(&tw, out, busy, util);
	for (int64_t t = 1; t <= horizon_s; t++) {
		tw.s->now += US_PER_SEC;
		tw.s->tick++;
		wl_step_twin(tw.s, &tw.r_arr);
		power(&tw, &busy, &util);
		facility(&tw);
		follow(&tw, out, 0);
		if (t % sample_s == 0 || t == horizon_s)
			sample(&tw, out, busy, util);
	}
	sim_free(tw.s);
	return 0;
}

void twin_result_free(struct twin_result *r)
{
	free(r->pts);
	free(r->fates);
	memset(r, 0, sizeof *r);
}
