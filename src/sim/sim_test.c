/*
 * sim_test.c - read-only views into the simulator for tests (sim_test.h).
 */
#include "sim_int.h"
#include "sim_test.h"

uint32_t sim_test_gpu_job(const struct sim *s, int64_t gpu)
{
	return gpu >= 0 && gpu < s->topo.gpus ? s->gpus[gpu].job : 0;
}

int32_t sim_test_job_count(const struct sim *s) { return s->njobs; }

int sim_test_job(const struct sim *s, int32_t i, struct sim_test_job *out)
{
	const struct sjob *j;

	if (i < 0 || i >= s->njobs)
		return -1;
	j = &s->jobs[i];
	out->id = j->id;
	out->state = j->state;
	out->nnodes = j->nnodes;
	out->gpus_per_node = j->gpn;
	out->mask = j->mask;
	out->nodes = j->nodes;
	out->excl = j->excl;
	out->nexcl = j->nexcl;
	out->restarts = j->restarts;
	return 0;
}

void sim_test_node(const struct sim *s, int32_t node, uint32_t *flags, int *down, const char **reason,
		   const char **who)
{
	const struct snode *nd = &s->nodes[node];

	*flags = nd->flags;
	*down = nd->down;
	*reason = nd->reason;
	*who = nd->who;
}

void sim_test_power(const struct sim *s, double *facility_kw, double *it_kw, double *pue)
{
	*facility_kw = s->fac.facility_kw;
	*it_kw = s->fac.it_kw;
	*pue = s->fac.pue;
}

double sim_test_util(const struct sim *s)
{
	double sum = 0;

	for (int64_t g = 0; g < s->topo.gpus; g++)
		sum += s->gpus[g].util;
	return sum / (double)s->topo.gpus;
}

void sim_test_stats(const struct sim *s, struct sim_test_stats *out)
{
	out->faults = s->n_faults;
	out->absorbed = s->n_dropped;
	out->xid_lines = s->n_xid_lines;
	out->garbled = s->n_garbled;
	out->drains = s->n_drains;
	out->repairs = s->n_repairs;
	out->starts = s->n_starts;
	out->ends = s->n_ends;
	out->faulted_nodes = s->nfaulted;
	out->running_gpus = s->running_gpus;
	out->cap_gpus = s->cap_gpus;
}

double sim_test_rate_per_gpu_day(void) { return faults_per_gpu_day(); }

int sim_test_fault(struct sim *s, int32_t node, int32_t gpu, const char *kind)
{
	if (node < 0 || node >= s->topo.nodes || gpu < 0 || gpu >= SIM_GPN)
		return -1;
	return faults_force(s, node, gpu, kind);
}
