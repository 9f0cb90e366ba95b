/*
 * bench.c - `make bench`: the foundation's numbers on the full 10,240-GPU
 * embedded cluster, each beside a reference measured in the same run:
 *   parse+apply of nvidia-smi lines   vs a naive strtok/strtod parser
 *   one full tick (sim + parse + apply + faults) at 10,240 and at 102,400
 *     GPUs, and the first frame at 102,400 GPUs (bench_scale.c)
 *   nodeset fold of 10,240 names      vs ClusterShell's NodeSet (python3),
 *     gpu[00001-10240] and gpu[0001-1280]-ib[0-7]
 *   one Slurm poll at 102,400 GPUs  vs jansson on the whole documents
 *     (bench_slurm_doc.c)
 *   one tick through Prometheus     vs the same through 1,280 SSH streams
 *     (bench_prom.c), and 102,400 GPUs through Prometheus
 *   the what-if twin's error against the simulator, and its speed
 *     (bench_twin.c)
 *   resident memory
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "myriad.h"
#include "nodeset.h"
#include "stream.h"
#include "sim/sim.h"

void bench_prometheus(struct myriad *app);   /* bench_prom.c */
void bench_slurm_docs(void);                 /* bench_slurm_doc.c */
void bench_scale(struct myriad *app);        /* bench_scale.c */
void bench_twin(void);                       /* bench_twin.c */

struct capture {
	struct sbuf *node_text;   /* per node: one tick of nvidia-smi output */
	int32_t nodes;
};

static void capture_text(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n)
{
	struct capture *c = ctx;

	if (s == SIM_NVSMI && node >= 0 && node < c->nodes)
		sbuf_add(&c->node_text[node], buf, n);
}

/* The reference: how a first attempt usually parses CSV. */
struct naive_rec {
	int index, util, mem_used, mem_total, temp, sm, ecc;
	double power, limit;
	char *uuid, *pci;
	unsigned long long thr;
};

static int naive_parse(const char *line, struct naive_rec *r)
{
	char *copy = strdup(line), *save = NULL, *f[16];
	int n = 0;

	for (char *t = strtok_r(copy, ",", &save); t && n < 16; t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n != 12) {
		free(copy);
		return -1;
	}
	r->index = atoi(f[0]);
	r->uuid = strdup(f[1]);
	r->pci = strdup(f[2]);
	r->util = atoi(f[3]);
	r->mem_used = atoi(f[4]);
	r->mem_total = atoi(f[5]);
	r->temp = atoi(f[6]);
	r->power = strtod(f[7], NULL);
	r->limit = strtod(f[8], NULL);
	r->sm = atoi(f[9]);
	r->ecc = atoi(f[10]);
	r->thr = strtoull(f[11], NULL, 16);
	free(copy);
	return 0;
}

static double naive_ms(const struct capture *c, int iters, long *lines)
{
	int64_t t0 = cpu_us();
	struct naive_rec r;
	char line[512];

	*lines = 0;
	for (int it = 0; it < iters; it++)
		for (int32_t i = 0; i < c->nodes; i++) {
			const char *p = c->node_text[i].s, *nl;

			for (; p && (nl = strchr(p, '\n')); p = nl + 1) {
				size_t n = MIN((size_t)(nl - p), sizeof line - 1);

				memcpy(line, p, n);
				line[n] = '\0';
				if (naive_parse(line, &r) == 0) {
					free(r.uuid);
					free(r.pci);
				}
				(*lines)++;
			}
		}
	return (double)(cpu_us() - t0) / 1000.0 / iters;
}

static double parse_apply_ms(struct myriad *app, const struct capture *c, int iters)
{
	struct stream *st = xcalloc((size_t)c->nodes, sizeof *st);
	int64_t t0;

	for (int32_t i = 0; i < c->nodes; i++)
		stream_init(&st[i], &app->bus, &app->model, i, FMT_NVSMI, "bench");
	t0 = cpu_us();
	for (int it = 0; it < iters; it++) {
		for (int32_t i = 0; i < c->nodes; i++)
			stream_feed(&st[i], c->node_text[i].s, c->node_text[i].len, app->now + it);
		bus_flush(&app->bus);
	}
	double ms = (double)(cpu_us() - t0) / 1000.0 / iters;

	for (int32_t i = 0; i < c->nodes; i++)
		stream_free(&st[i]);
	free(st);
	return ms;
}

struct docs {
	struct sbuf doc[SIM_STREAM_COUNT];
};

static void capture_doc(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n)
{
	(void)node;
	sbuf_add(&((struct docs *)ctx)->doc[s], buf, n);
}

/* sinfo --json + squeue --json for the whole cluster: what one Slurm poll costs. */
static void bench_slurm_poll(struct myriad *app)
{
	struct docs d = {0};
	struct sim_sink sink = {&d, capture_doc};
	struct stream nodes, jobs;
	const int n = 10;

	sim_print_service(app_sim(app), SIM_SINFO, &sink);
	sim_print_service(app_sim(app), SIM_SQUEUE, &sink);
	stream_init(&nodes, &app->bus, &app->model, -1, FMT_SLURM_NODES, "bench");
	stream_init(&jobs, &app->bus, &app->model, -1, FMT_SLURM_JOBS, "bench");
	int64_t t0 = cpu_us();

	for (int i = 0; i < n; i++) {
		stream_feed(&nodes, d.doc[SIM_SINFO].s, d.doc[SIM_SINFO].len, app->now);
		stream_end(&nodes, app->now);
		stream_feed(&jobs, d.doc[SIM_SQUEUE].s, d.doc[SIM_SQUEUE].len, app->now);
		stream_end(&jobs, app->now);
		bus_flush(&app->bus);
	}
	printf("slurm poll (sinfo --json %zu KB + squeue --json %zu KB, %d nodes): %.2f ms CPU per poll (every 5 s)\n",
	       d.doc[SIM_SINFO].len / 1024, d.doc[SIM_SQUEUE].len / 1024, app->model.nnodes,
	       (double)(cpu_us() - t0) / 1000.0 / n);
	stream_free(&nodes);
	stream_free(&jobs);
	for (int i = 0; i < SIM_STREAM_COUNT; i++)
		sbuf_free(&d.doc[i]);
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

static void bench_parse(struct myriad *app)
{
	struct sim *sim = app_sim(app);
	struct capture c = {0};
	long lines = 0;

	c.nodes = app->model.nnodes;
	c.node_text = xcalloc((size_t)c.nodes, sizeof *c.node_text);
	sim_step(sim, &(struct sim_sink){&c, capture_text});
	double ours = parse_apply_ms(app, &c, 50);
	double naive = naive_ms(&c, 50, &lines);

	lines /= 50;
	printf("parse+apply nvidia-smi, %ld lines (one tick of %d GPUs): %.2f ms CPU = %.2f M lines/s per core\n",
	       lines, app->model.ngpus, ours, lines / ours / 1000.0);
	printf("  reference, naive strtok/strtod parse only (no apply):   %.2f ms CPU; ratio ours/naive = %.2f\n",
	       naive, ours / naive);
	printf("  target: under 10 ms per 10,240-line tick: %s\n", ours < 10.0 ? "met" : "NOT met");
	for (int32_t i = 0; i < c.nodes; i++)
		sbuf_free(&c.node_text[i]);
	free(c.node_text);
}

static double clustershell_ms(const char *names_file)
{
	char cmd[1024];
	FILE *p;
	double ms = -1;

	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 -c 'import time,sys\n"
		 "from ClusterShell.NodeSet import NodeSet\n"
		 "names=open(sys.argv[1]).read().split()\n"
		 "t=time.process_time()\n"
		 "for i in range(20): s=str(NodeSet.fromlist(names))\n"
		 "print((time.process_time()-t)*1000/20)' %s 2>/dev/null",
		 names_file);
	if ((p = popen(cmd, "r"))) {
		if (fscanf(p, "%lf", &ms) != 1)
			ms = -1;
		pclose(p);
	}
	return ms;
}

/* Adds the names in `order` to a new set and folds it, n times; ms per fold. */
static double fold_ms(char **names, const int32_t *order, int32_t count, int n, char **folded)
{
	int64_t t0 = cpu_us();

	for (int it = 0; it < n; it++) {
		struct nodeset *ns = nodeset_new();

		for (int32_t i = 0; i < count; i++)
			nodeset_add(ns, names[order[i]]);
		free(*folded);
		*folded = nodeset_fold(ns);
		nodeset_free(ns);
	}
	return (double)(cpu_us() - t0) / 1000.0 / n;
}

/* Shuffled names: fold must sort. */
static void shuffle(int32_t *order, int32_t count, uint64_t seed)
{
	struct rng r;

	rng_seed(&r, seed);
	for (int32_t i = 0; i < count; i++)
		order[i] = i;
	for (int32_t i = count - 1; i > 0; i--) {
		int32_t j = (int32_t)rng_below(&r, (uint32_t)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/* count names made by fmt from i (one number) or i / per, i % per (two),
 * shuffled, folded by us and by ClusterShell on the same names. */
static void bench_fold_names(const char *what, int32_t count, int32_t per, const char *fmt1, const char *fmt2)
{
	char tmpl[] = "/tmp/myriad-bench-XXXXXX";
	int fd = mkstemp(tmpl);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int32_t *order = xmalloc(sizeof *order * (size_t)count);
	char **names = xmalloc(sizeof *names * (size_t)count);
	char *folded = NULL;

	for (int32_t i = 0; i < count; i++)
		names[i] = per ? xasprintf(fmt2, i / per + 1, i % per) : xasprintf(fmt1, i + 1);
	shuffle(order, count, 42);
	double ours = fold_ms(names, order, count, 100, &folded);

	for (int32_t i = 0; f && i < count; i++)
		fprintf(f, "%s\n", names[order[i]]);
	if (f)
		fclose(f);
	double ref = clustershell_ms(tmpl);

	printf("nodeset add+fold of %d %s names (shuffled) -> %s: %.3f ms CPU\n", count, what, folded, ours);
	if (ref > 0) {
		printf("  reference, ClusterShell NodeSet.fromlist + str on the same names: %.1f ms CPU; ratio ours/ClusterShell = %.4f (%.0fx faster)\n",
		       ref, ours / ref, ref / ours);
		printf("  target: at least 20x faster than ClusterShell: %s\n", ref / ours >= 20 ? "met" : "NOT met");
	} else
		printf("  reference ClusterShell not available (apt-get install clustershell)\n");
	unlink(tmpl);
	free(folded);
	for (int32_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	free(order);
}

static void bench_nodeset(const struct model *m)
{
	char *folded = NULL;
	char **nn = xmalloc(sizeof *nn * (size_t)m->nnodes);
	int32_t *ord = xmalloc(sizeof *ord * (size_t)m->nnodes);

	for (int32_t i = 0; i < m->nnodes; i++)
		nn[i] = (char *)m->nodes[i].name;
	shuffle(ord, m->nnodes, 42);
	fold_ms(nn, ord, m->nnodes, 1, &folded);   /* warm-up */
	double nodes_ms = fold_ms(nn, ord, m->nnodes, 200, &folded);

	printf("nodeset add+fold of the %d node names (shuffled): %.3f ms CPU\n", m->nnodes, nodes_ms);
	free(folded);
	free(ord);
	free(nn);
	bench_fold_names("one-number", 10240, 0, "gpu%05d", NULL);
	bench_fold_names("two-number", 10240, 8, NULL, "gpu%04d-ib%d");
}

int main(void)
{
	struct myriad app;
	char *err = NULL;
	long rss0 = rss_kb();
	const char *only = getenv("BENCH_ONLY");

	if (only && !strcmp(only, "twin")) {   /* BENCH_ONLY=twin: the what-if twin alone (or scale, below) */
		bench_twin();
		return 0;
	}
	app_init(&app);
	if (app_add_source(&app, "sim", "gpus=10240,seed=1", &err) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		return 1;
	}
	app_tick(&app);
	long rss1 = rss_kb();   /* before the benchmarks that load 102,400 GPUs */

	if (only && !strcmp(only, "scale")) {   /* BENCH_ONLY=scale: the ticks and the first frame alone */
		bench_scale(&app);
		app_free(&app);
		return 0;
	}

	printf("myriad bench: embedded cluster of %d GPUs, %d nodes, %d SUs\n", app.model.ngpus, app.model.nnodes,
	       app.model.topo.sus);
	bench_parse(&app);
	bench_scale(&app);
	bench_slurm_poll(&app);
	bench_slurm_docs();
	bench_prometheus(&app);
	bench_nodeset(&app.model);
	bench_twin();
	printf("resident memory with the 10,240-GPU cluster loaded: %.1f MB (process start: %.1f MB; at the end, after the"
	       " 102,400-GPU benchmarks: %.1f MB)\n", rss1 / 1024.0, rss0 / 1024.0, rss_kb() / 1024.0);
	app_free(&app);
	return 0;
}
