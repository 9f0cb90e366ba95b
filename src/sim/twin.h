/*
 * twin.h - a what-if twin: the simulator's scheduler stand-in, workload and
 * power/cooling physics, seeded from a described cluster state instead of a
 * warm start, and stepped at full speed without printing or parsing text.
 *
 * whatif.c describes the model (live or replayed) as a twin_seed; twin_run
 * then runs one future of it: the actions applied at its start (the same
 * verbs a scheduler backend receives), a horizon, and a workload seed that
 * draws the run times left of the jobs and the jobs that arrive. The same
 * seed, actions and workload seed give the same future, bit for bit; the
 * arrivals do not depend on the actions, so two futures differ only by what
 * the actions changed. The twin never touches a model, a log or a backend.
 */
#ifndef MYRIAD_SIM_TWIN_H
#define MYRIAD_SIM_TWIN_H

#include <stdint.h>
#include "../topo.h"

enum twin_node_state { TN_UP, TN_DRAIN, TN_DOWN };

struct twin_job {
	uint32_t id;
	int32_t state;             /* enum job_state: RUNNING, or pending (PENDING, REQUEUED, NODE_FAIL) */
	int32_t gpus;              /* in all */
	int32_t nnodes;
	const int32_t *nodes;      /* running: its node indexes */
	uint8_t mask;              /* running: GPU indexes it uses on each node */
	int64_t submit, start;     /* us */
	double util;               /* running: mean utilization of its GPUs, %; < 0 unknown */
	double watts;              /* running: mean power of its GPUs, W; < 0 unknown */
};

struct twin_seed {
	struct topo topo;          /* 8 GPUs a node at most */
	const uint8_t *node_state; /* topo.nodes of enum twin_node_state */
	const struct twin_job *jobs;
	int32_t njobs;
	int64_t now;               /* us */
	int fac_known;             /* the facility meter was read: calibrate to it */
	double it_kw, facility_kw, outside_c;
	double idle_watts;         /* power of an idle GPU, W (0: 80) */
};

enum twin_verb { TV_DRAIN, TV_RESUME, TV_REQUEUE, TV_SIGNAL };

struct twin_act {
	int verb;                  /* enum twin_verb */
	const int32_t *nodes;      /* drain/resume: targets; requeue: nodes to exclude */
	int32_t nnodes;
	uint32_t job;              /* requeue, signal */
	int sig;                   /* 0: USR1 (checkpoint) */
};

struct twin_point {            /* the fleet at one moment of the future */
	int64_t t;                 /* s after the fork */
	float util;                /* mean utilization of every GPU, % */
	int32_t busy, avail;       /* GPUs running jobs; GPUs on nodes neither drained nor down */
	int32_t running, pending;  /* jobs */
	float it_kw, pue;
};

struct twin_fate {             /* a job in one future, as it stands at the horizon */
	uint32_t id;
	int32_t gpus;
	int64_t submit;            /* s after the fork (<= 0: before it) */
	int64_t start;             /* s after the fork of its first start at or after the fork;
				    * INT64_MAX none; the job was running at the fork: <= 0 */
	int32_t restarts;          /* requeues during the horizon */
	int32_t state;             /* enum job_state at the horizon (or when it ended) */
	uint8_t at_fork;           /* it was there when the twin was forked */
};

struct twin_result {
	struct twin_point *pts;    /* one every sample_s, the fork's moment first */
	int32_t npts;
	struct twin_fate *fates;   /* every job seen, ascending id */
	int32_t nfates, cfates;
	int32_t act_failed;        /* actions (targets) the twin's scheduler refused */
	char act_err[256];         /* its words for the first */
};

/* Runs one future of horizon_s seconds, sampled every sample_s. 0, or -1
 * with err filled when the seed cannot be twinned (more than 8 GPUs a node). */
int twin_run(const struct twin_seed *seed, const struct twin_act *acts, int nacts, int64_t horizon_s,
	     int32_t sample_s, uint64_t wseed, struct twin_result *out, char *err, size_t errlen);
void twin_result_free(struct twin_result *r);
/* A job's fate in r, or NULL. */
const struct twin_fate *twin_fate_find(const struct twin_result *r, uint32_t id);

#endif
