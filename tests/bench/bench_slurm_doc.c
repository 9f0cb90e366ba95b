/*
 * bench_slurm_doc.c - `make bench`: one Slurm poll at 12,800 nodes (102,400
 * GPUs): the simulator's `sinfo --json` and `squeue --json` (what a real
 * 22.05 prints; src/sim/slurm_json.c) fed to the console's streams in pieces
 * of 32 KB, as an SSH channel delivers them, each piece read as it comes
 * (src/probe/slurm_doc.c), the records applied when the document ends. The
 * CPU of a whole poll, and of the longest single step (a piece, or the end),
 * which is what the loop waits for at once; beside them, the reference:
 * jansson's json_loadb of the same two documents, whole (how the poll read
 * them before, records not even counted).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include "myriad.h"
#include "stream.h"
#include "sim/sim.h"

void bench_slurm_docs(void);

#define PIECE 32768
#define POLLS 7

struct docs {
	struct sbuf doc[SIM_STREAM_COUNT];
};

static void capture(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n)
{
	(void)node;
	sbuf_add(&((struct docs *)ctx)->doc[s], buf, n);
}

/* Feeds one document in pieces, then ends it; the longest step into *worst. */
static void poll_doc(struct myriad *app, struct stream *st, const struct sbuf *doc, double *worst)
{
	for (size_t off = 0; off < doc->len; off += PIECE) {
		int64_t t0 = cpu_us();

		stream_feed(st, doc->s + off, MIN((size_t)PIECE, doc->len - off), app->now);
		*worst = MAX(*worst, (double)(cpu_us() - t0) / 1000.0);
	}
	int64_t t0 = cpu_us();

	stream_end(st, app->now);
	bus_flush(&app->bus);
	*worst = MAX(*worst, (double)(cpu_us() - t0) / 1000.0);
}

static double jansson_ms(const struct docs *d)
{
	int64_t t0 = cpu_us();

	for (int k = SIM_SINFO; k <= SIM_SQUEUE; k++) {
		json_error_t je;
		json_t *root = json_loadb(d->doc[k].s, d->doc[k].len, JSON_REJECT_DUPLICATES, &je);

		json_decref(root);
	}
	return (double)(cpu_us() - t0) / 1000.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One poll of both documents: its CPU, and its longest step in *worst. */
static double one_poll(struct myriad *app, struct stream *nodes, struct stream *jobs, const struct docs *d,
		       double *worst)
{
	int64_t t0 = cpu_us();

	*worst = 0;
	poll_doc(app, nodes, &d->doc[SIM_SINFO], worst);
	poll_doc(app, jobs, &d->doc[SIM_SQUEUE], worst);
	return (double)(cpu_us() - t0) / 1000.0;
}

static void report(const struct myriad *app, const struct docs *d, double first, double *poll, double *step,
		   double ref, double print_ms)
{
	qsort(poll, POLLS, sizeof *poll, cmp_double);
	qsort(step, POLLS, sizeof *step, cmp_double);
	double p = poll[POLLS / 2], s = step[POLLS / 2];

	printf("slurm poll at 102,400 GPUs (%d nodes; sinfo --json %.1f MB + squeue --json %.1f MB, %d jobs), fed in "
	       "32 KB pieces: %.1f ms CPU per poll (median of %d, %.1f-%.1f; target <= 100 ms: %s); the longest single "
	       "step %.1f ms (median of the polls' longest, %.1f-%.1f; target <= 50 ms: %s)\n",
	       app->model.nnodes, d->doc[SIM_SINFO].len / 1e6, d->doc[SIM_SQUEUE].len / 1e6, app->model.njobs, p,
	       POLLS, poll[0], poll[POLLS - 1], p <= 100 ? "met" : "NOT met", s, step[0], step[POLLS - 1],
	       s <= 50 ? "met" : "NOT met");
	printf("  the first poll after start (buffers grown): %.1f ms; reference, jansson json_loadb of the two documents"
	       " whole (the poll before, records not read): %.1f ms CPU, all at once; ratio ours/jansson = %.3f; the "
	       "simulator printing them: %.1f ms\n", first, ref, p / ref, print_ms);
}

void bench_slurm_docs(void)
{
	struct myriad app;
	struct docs d = {0};
	struct sim_sink sink = {&d, capture};
	struct stream nodes, jobs;
	char *err = NULL;
	double poll[POLLS], step[POLLS], first, ref = 1e9;

	app_init(&app);
	if (app_add_source(&app, "sim", "gpus=102400,seed=1", &err) < 0) {
		printf("slurm poll at 102,400 GPUs: %s\n", err);
		free(err);
		return;
	}
	for (int i = 0; i < 12; i++)
		app_tick(&app);   /* jobs running, the queue and the nodes known */
	int64_t t0 = cpu_us();

	sim_print_service(app_sim(&app), SIM_SINFO, &sink);
	sim_print_service(app_sim(&app), SIM_SQUEUE, &sink);
	double print_ms = (double)(cpu_us() - t0) / 1000.0;

	stream_init(&nodes, &app.bus, &app.model, -1, FMT_SLURM_NODES, "bench");
	stream_init(&jobs, &app.bus, &app.model, -1, FMT_SLURM_JOBS, "bench");
	first = one_poll(&app, &nodes, &jobs, &d, &step[0]);
	for (int i = 0; i < POLLS; i++)
		poll[i] = one_poll(&app, &nodes, &jobs, &d, &step[i]);
	for (int i = 0; i < 3; i++)
		ref = MIN(ref, jansson_ms(&d));
	report(&app, &d, first, poll, step, ref, print_ms);
	stream_free(&nodes);
	stream_free(&jobs);
	for (int i = 0; i < SIM_STREAM_COUNT; i++)
		sbuf_free(&d.doc[i]);
	app_free(&app);
}
