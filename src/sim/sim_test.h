/*
 * sim_test.h - read-only views into the simulator for unit tests and
 * benchmarks. The console never uses these: it reads the simulator's text.
 */
#ifndef MYRIAD_SIM_TEST_H
#define MYRIAD_SIM_TEST_H

#include <stdint.h>
#include "sim.h"

struct sim_test_job {
	uint32_t id;
	int32_t state;              /* enum job_state */
	int32_t nnodes, gpus_per_node;
	uint8_t mask;               /* GPU indexes used on each node */
	const int32_t *nodes;       /* node indexes (sorted); valid until the next step */
	const int32_t *excl;        /* excluded node indexes (sorted) */
	int32_t nexcl;
	int32_t restarts;
};

struct sim_test_stats {
	int64_t faults;             /* natural faults drawn (absorbed ones included) */
	int64_t absorbed;           /* ... of which landed where nothing happened */
	int64_t xid_lines;          /* well-formed kernel lines printed */
	int64_t garbled;            /* garbled kernel lines printed */
	int64_t drains, repairs;    /* by the health check, by the repair crew */
	int64_t starts, ends;       /* job starts and ends since sim_new */
	int32_t faulted_nodes;      /* nodes with an active fault */
	int64_t running_gpus, cap_gpus;
};

/* The job id using GPU gpu (node * 8 + index), 0 if idle. */
uint32_t sim_test_gpu_job(const struct sim *s, int64_t gpu);
int32_t sim_test_job_count(const struct sim *s);
/* i-th job in the queue (0-based, id order). 0, or -1 if out of range. */
int sim_test_job(const struct sim *s, int32_t i, struct sim_test_job *out);
/* The node's Slurm view. */
void sim_test_node(const struct sim *s, int32_t node, uint32_t *flags, int *down, const char **reason,
		   const char **who);
/* Facility numbers of the last step. */
void sim_test_power(const struct sim *s, double *facility_kw, double *it_kw, double *pue);
void sim_test_stats(const struct sim *s, struct sim_test_stats *out);
/* Mean utilization of every GPU, % (as nvidia-smi printed it last). */
double sim_test_util(const struct sim *s);
/* Make a fault now, as the injector would: kind is "host", "thermal",
 * "link_down", "symbol", "nic" (rail chosen at random), or a cause that picks
 * its XID at random ("gpu", "hbm", "sram", "gsp"). 0, or -1 if the node
 * already has a fault or the kind is unknown. */
int sim_test_fault(struct sim *s, int32_t node, int32_t gpu, const char *kind);
/* Natural fault rate per GPU-day at accel=1. */
double sim_test_rate_per_gpu_day(void);

#endif
