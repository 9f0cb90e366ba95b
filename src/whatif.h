/*
 * whatif.h - "what will this action do?" answered on twins of the model.
 *
 * whatif_run describes the model (live or replayed) as a twin seed
 * (src/sim/twin.h) and runs it forward twice per workload seed: once as it
 * is, once with the actions applied at the start, both futures drawing the
 * same random streams. It reports each future and their difference: GPUs
 * and nodes taken out, jobs killed, requeued and delayed (and by how much),
 * queue wait p50/p95, utilization, IT power and PUE over the horizon. With
 * several seeds it reports the spread. It reads the model and nothing else:
 * no action is sent, no event emitted, nothing logged.
 */
#ifndef MYRIAD_WHATIF_H
#define MYRIAD_WHATIF_H

#include <stdint.h>
#include "model.h"
#include "sim/twin.h"

#define WHATIF_RUNS_MAX 32
#define WHATIF_LIST_MAX 64        /* job ids listed per kind */
#define WHATIF_DELAY_MIN 60       /* s: a later start by less is not a delay */

struct whatif_opts {
	int64_t horizon_s;            /* default 1800 */
	int runs;                     /* workload seeds, default 1 */
	uint64_t seed;                /* the first; run k uses seed + k */
	int32_t sample_s;             /* default 60 */
};

struct whatif_future {            /* one future, over the horizon */
	double util_mean, util_end;   /* % of every GPU */
	double it_kw_mean, it_kw_end, pue_mean, pue_end;
	int32_t avail_start, avail_end, busy_end;   /* GPUs */
	int32_t started, pending_end; /* jobs started in the horizon; waiting at its end */
	double wait_p50, wait_p95;    /* s: started jobs, and waiting ones so far */
};

struct whatif_diff {              /* with the actions, against without */
	int32_t gpus_out, nodes_out;  /* taken out of service at once */
	int32_t killed, requeued, delayed;
	double delay_p50, delay_max;  /* s, of the delayed jobs */
	int32_t requeued_gpus;
};

struct whatif_report {
	int runs;
	int64_t horizon_s;
	uint64_t seed;
	struct whatif_future base[WHATIF_RUNS_MAX], with[WHATIF_RUNS_MAX];
	struct whatif_diff diff[WHATIF_RUNS_MAX];
	/* the first seed's futures, for the sparklines */
	struct twin_point *base_pts, *with_pts;
	int32_t npts;
	/* the first seed's jobs, by kind (at most WHATIF_LIST_MAX each) */
	uint32_t killed_ids[WHATIF_LIST_MAX], requeued_ids[WHATIF_LIST_MAX], delayed_ids[WHATIF_LIST_MAX];
	int32_t nkilled_ids, nrequeued_ids, ndelayed_ids;
	int32_t act_failed;           /* actions the twin's scheduler refused */
	char act_err[256];
	double cpu_s;                 /* CPU spent, all runs */
};

void whatif_opts_default(struct whatif_opts *o);
/* 0, or -1 with err (the model cannot be twinned). */
int whatif_run(const struct model *m, const struct twin_act *acts, int nacts, const struct whatif_opts *o,
	       struct whatif_report *r, char *err, size_t errlen);
void whatif_report_free(struct whatif_report *r);
/* The difference of two futures (the same definitions for the simulator's
 * own futures in the twin's benchmark); r, if not NULL, gets the job ids. */
void whatif_compare(const struct twin_result *base, const struct twin_result *with, int64_t horizon, int32_t gpn,
		    struct whatif_report *r, struct whatif_diff *d);

/* The mean, least and greatest of n values (a figure over the runs). */
struct whatif_spread {
	double mean, min, max;
};
struct whatif_spread whatif_spread(const double *v, int n);

#endif
