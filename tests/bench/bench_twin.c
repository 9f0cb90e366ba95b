/*
 * bench_twin.c - `make bench`: how good and how fast is the what-if twin
 * (src/whatif.c, src/sim/twin.c)?
 *
 * Where the truth is known: at each of several moments (a 10,240-GPU
 * embedded cluster, each moment its own seed, read through the real
 * parsers into the model for a minute), the twin is forked from the model
 * and asked what "requeue the largest running job away from its nodes and
 * drain those nodes" will do, with a workload seed of its own. The real
 * simulator is then run forward twice from the same moment (it is
 * deterministic: two clusters of the same seed are the same cluster), once
 * with that action and once without, and the twin's prediction is compared
 * at 5, 15 and 30 minutes: utilization and PUE against the simulator's with
 * the action, jobs affected (killed + requeued + delayed, by the same
 * definitions, whatif_compare) against the difference of its two runs.
 * Beside each error, the error of the reference predictor "nothing
 * changes" (the values at the fork; no job affected beyond the one
 * requeued), measured in the same run: a ratio under 1 is the twin doing
 * better than persistence.
 *
 * Speed: CPU per future of 30 minutes, at 10,240 and at 102,400 GPUs
 * (target: 1 s at 10,240). BENCH_TWIN_MOMENTS (default 8) sets the moments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "myriad.h"
#include "whatif.h"
#include "sim/sim.h"
#include "sim/sim_test.h"

void bench_twin(void);

#define CHECKS 3
static const int64_t check_s[CHECKS] = {300, 900, 1800};

struct real_job {                 /* a job as the real simulator ran it */
	struct twin_fate f;
	int32_t restarts0;
};

struct real_run {
	struct sim *sim;
	struct real_job *jobs;
	int32_t n, cap;
	struct twin_result snap[CHECKS];   /* the fates as they stood at each check */
	double util[CHECKS], pue[CHECKS];
};

static struct real_job *real_job(struct real_run *r, uint32_t id, int *fresh)
{
	int32_t lo = 0, hi = r->n;

	*fresh = 0;
	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;

		if (r->jobs[mid].f.id == id)
			return &r->jobs[mid];
		if (r->jobs[mid].f.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->jobs = xrealloc(r->jobs, (size_t)r->cap * sizeof *r->jobs);
	}
	memmove(&r->jobs[lo + 1], &r->jobs[lo], (size_t)(r->n - lo) * sizeof *r->jobs);
	r->n++;
	memset(&r->jobs[lo], 0, sizeof r->jobs[lo]);
	r->jobs[lo].f.id = id;
	r->jobs[lo].f.start = INT64_MAX;
	*fresh = 1;
	return &r->jobs[lo];
}

/* Every job's fate so far, t seconds after the fork. */
static void follow(struct real_run *r, int64_t t)
{
	int32_t n = sim_test_job_count(r->sim);

	for (int32_t i = 0; i < n; i++) {
		struct sim_test_job j;
		struct real_job *rj;
		int fresh;

		if (sim_test_job(r->sim, i, &j) < 0)
			continue;
		rj = real_job(r, j.id, &fresh);
		if (fresh) {
			rj->restarts0 = j.restarts;
			rj->f.at_fork = t == 0;
			rj->f.submit = t;
		}
		rj->f.gpus = j.nnodes * j.gpus_per_node;
		rj->f.state = j.state;
		rj->f.restarts = j.restarts - rj->restarts0;
		if (j.state == JOB_RUNNING && rj->f.start == INT64_MAX)
			rj->f.start = t;
	}
}

static void snapshot(struct real_run *r, int c)
{
	struct twin_result *s = &r->snap[c];
	double fac, it;

	memset(s, 0, sizeof *s);
	s->fates = xmalloc((size_t)MAX(1, r->n) * sizeof *s->fates);
	for (int32_t i = 0; i < r->n; i++)
		s->fates[i] = r->jobs[i].f;
	s->nfates = s->cfates = r->n;
	r->util[c] = sim_test_util(r->sim);
	sim_test_power(r->sim, &fac, &it, &r->pue[c]);
}

static void run_forward(struct real_run *r)
{
	int c = 0;

	follow(r, 0);
	for (int64_t t = 1; t <= check_s[CHECKS - 1]; t++) {
		sim_step(r->sim, NULL);
		if (t % 10 == 0)
			follow(r, t);
		if (t == check_s[c])
			snapshot(r, c++);
	}
}

static void real_free(struct real_run *r)
{
	for (int c = 0; c < CHECKS; c++)
		free(r->snap[c].fates);
	free(r->jobs);
}

static int cluster_at(struct myriad *app, uint64_t seed, int ticks)
{
	char spec[64], *err = NULL;

	snprintf(spec, sizeof spec, "gpus=10240,seed=%llu", (unsigned long long)seed);
	app_init(app);
	if (app_add_source(app, "sim", spec, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		free(err);
		return -1;
	}
	for (int i = 0; i < ticks; i++)
		app_tick(app);
	return 0;
}

static const struct job *largest_running(const struct model *m)
{
	const struct job *best = NULL;

	for (int32_t i = 0; i < m->njobs; i++)
		if (m->jobs[i].id && m->jobs[i].state == JOB_RUNNING && m->jobs[i].nnodes > 0 &&
		    (!best || m->jobs[i].gpus > best->gpus))
			best = &m->jobs[i];
	return best;
}

struct errs {                     /* sums over the moments */
	double util, pue, jobs;           /* absolute errors, twin */
	double util0, pue0, jobs0;        /* the same, persistence */
	double util_real, jobs_real;      /* the truth, for scale */
};

static int one_moment(int i, struct errs *e)
{
	struct myriad a, b;
	struct real_run ra = {0}, rb = {0};
	const struct job *j;
	struct twin_act acts[2];
	char err[160];
	int rc = -1;

	if (cluster_at(&a, 11 + (uint64_t)i, 60) < 0 || cluster_at(&b, 11 + (uint64_t)i, 60) < 0)
		return -1;
	if (!(j = largest_running(&a.model)))
		goto out;
	acts[0] = (struct twin_act){TV_REQUEUE, j->node_idx, j->nnodes, j->id, 0};
	acts[1] = (struct twin_act){TV_DRAIN, j->node_idx, j->nnodes, 0, 0};
	double util0 = 0, pue0 = a.model.fac.pue, p_util[CHECKS], p_pue[CHECKS], p_jobs[CHECKS];
	for (int32_t g = 0; g < a.model.ngpus; g++)
		util0 += a.model.met[MET_UTIL][g] != MET_UNKNOWN ? a.model.met[MET_UTIL][g] : 0;
	util0 /= a.model.ngpus;
	for (int c = 0; c < CHECKS; c++) {   /* the twin's prediction, before the real run moves the model */
		struct whatif_opts o;
		struct whatif_report r;

		whatif_opts_default(&o);
		o.horizon_s = check_s[c];
		o.seed = 1000 + (uint64_t)i;
		if (whatif_run(&a.model, acts, 2, &o, &r, err, sizeof err) < 0) {
			fprintf(stderr, "bench: whatif: %s\n", err);
			goto out;
		}
		p_util[c] = r.with_pts[r.npts - 1].util;
		p_pue[c] = r.with_pts[r.npts - 1].pue;
		p_jobs[c] = r.diff[0].killed + r.diff[0].requeued + r.diff[0].delayed;
		whatif_report_free(&r);
	}
	char why[160];
	ra.sim = app_sim(&a);
	rb.sim = app_sim(&b);
	sim_requeue(ra.sim, j->id, j->node_idx, j->nnodes, why, sizeof why);
	for (int32_t k = 0; k < j->nnodes; k++)
		sim_drain(ra.sim, j->node_idx[k], "bench twin", "bench", why, sizeof why);
	run_forward(&ra);
	run_forward(&rb);
	for (int c = 0; c < CHECKS; c++) {
		struct whatif_diff d;
		double jobs;

		whatif_compare(&rb.snap[c], &ra.snap[c], check_s[c], 8, NULL, &d);
		jobs = d.killed + d.requeued + d.delayed;
		e[c].util += fabs(p_util[c] - ra.util[c]);
		e[c].pue += fabs(p_pue[c] - ra.pue[c]);
		e[c].jobs += fabs(p_jobs[c] - jobs);
		e[c].util0 += fabs(util0 - ra.util[c]);
		e[c].pue0 += fabs(pue0 - ra.pue[c]);
		e[c].jobs0 += fabs(1 - jobs);   /* persistence: the one job requeued, nothing else */
		e[c].util_real += ra.util[c];
		e[c].jobs_real += jobs;
	}
	rc = 0;
out:
	real_free(&ra);
	real_free(&rb);
	app_free(&a);
	app_free(&b);
	return rc;
}

static double future_cpu(uint64_t gpus)
{
	struct myriad app;
	struct whatif_opts o;
	struct whatif_report r;
	char spec[64], err[160], *e = NULL;
	double s;

	snprintf(spec, sizeof spec, "gpus=%llu,seed=1", (unsigned long long)gpus);
	app_init(&app);
	if (app_add_source(&app, "sim", spec, &e) < 0) {
		free(e);
		return -1;
	}
	app_tick(&app);
	whatif_opts_default(&o);
	o.runs = 3;
	if (whatif_run(&app.model, NULL, 0, &o, &r, err, sizeof err) < 0)
		return -1;
	s = r.cpu_s / (2.0 * o.runs);
	whatif_report_free(&r);
	app_free(&app);
	return s;
}

void bench_twin(void)
{
	const char *env = getenv("BENCH_TWIN_MOMENTS");
	int moments = env ? atoi(env) : 8, done = 0;
	struct errs abs_e[CHECKS];

	if (moments <= 0)
		return;
	memset(abs_e, 0, sizeof abs_e);
	for (int i = 0; i < moments; i++)
		done += one_moment(i, abs_e) == 0;
	printf("what-if twin against the simulator (10,240 GPUs, %d moments; action: requeue the largest job away from its"
	       " nodes and drain them; mean absolute error, twin vs persistence):\n", done);
	for (int c = 0; c < CHECKS && done; c++) {
		struct errs *x = &abs_e[c];

		printf("  at %2lld min: utilization %.2f pts vs %.2f (ratio %.2f; real mean %.1f %%), PUE %.4f vs %.4f (ratio %.2f),"
		       " jobs affected %.1f vs %.1f (ratio %.2f; real mean %.1f)\n",
		       (long long)(check_s[c] / 60), x->util / done, x->util0 / done, x->util / MAX(1e-9, x->util0),
		       x->util_real / done, x->pue / done, x->pue0 / done, x->pue / MAX(1e-9, x->pue0), x->jobs / done,
		       x->jobs0 / done, x->jobs / MAX(1e-9, x->jobs0), x->jobs_real / done);
	}
	double small = future_cpu(10240), large = future_cpu(102400);
	printf("  one future of 30 minutes: %.3f s CPU at 10,240 GPUs (target 1 s: %s), %.3f s at 102,400 GPUs\n", small,
	       small >= 0 && small <= 1.0 ? "met" : "NOT met", large);
}
