/*
 * source_sim.c - the embedded simulator as a source and a backend.
 *
 * The source announces the inventory (topology and nodes), then each tick
 * steps the simulator and feeds what it printed into one stream per node and
 * format, and one per service, exactly as SSH channels would. The backend
 * hands actions to the simulator's scheduler as scontrol would to slurmctld.
 */
#include <stdio.h>
#include <string.h>
#include "myriad.h"
#include "stream.h"
#include "sim/sim.h"

struct sim_source {
	struct sim *sim;
	struct stream *node_streams;   /* nodes x 3: nvidia-smi, kernel log, IB */
	struct stream services[3];     /* sinfo, squeue, facility */
	int32_t nodes;
	int64_t now;
};

static struct stream *stream_for(struct sim_source *ss, enum sim_stream which, int32_t node)
{
	switch (which) {
	case SIM_NVSMI: return &ss->node_streams[node * 3];
	case SIM_KMSG: return &ss->node_streams[node * 3 + 1];
	case SIM_IB: return &ss->node_streams[node * 3 + 2];
	case SIM_SINFO: return &ss->services[0];
	case SIM_SQUEUE: return &ss->services[1];
	default: return &ss->services[2];
	}
}

static void sink_text(void *ctx, enum sim_stream which, int32_t node, const char *buf, size_t n)
{
	struct sim_source *ss = ctx;

	if (which < SIM_SINFO && (node < 0 || node >= ss->nodes))
		return;
	struct stream *st = stream_for(ss, which, node);

	stream_feed(st, buf, n, ss->now);
	if (which >= SIM_SINFO)
		stream_end(st, ss->now);
}

static void announce(struct myriad *app, struct sim_source *ss)
{
	const struct topo *t = sim_topo(ss->sim);
	struct event ev;
	char cluster[NAME_MAX_LEN], name[NAME_MAX_LEN];

	snprintf(cluster, sizeof cluster, "sim-%d", t->gpus);
	memset(&ev, 0, sizeof ev);
	ev.type = EV_TICK;
	ev.source = "sim";
	app_emit(app, &ev);
	ev.type = EV_TOPOLOGY;
	ev.u.topology = (struct ev_topology){t->sus, t->nodes_per_su, t->gpus_per_node, t->nodes, t->gpus, cluster};
	app_emit(app, &ev);
	for (int32_t i = 0; i < t->nodes; i++) {
		sim_node_name(ss->sim, i, name, sizeof name);
		ev.type = EV_NODE;
		ev.u.node = (struct ev_node){i, i / t->nodes_per_su, i / 4, t->gpus_per_node, name};
		app_emit(app, &ev);
	}
	bus_flush(&app->bus);   /* the inventory is in the model before any line is parsed */
}

static int sim_start(struct source *src, const char *args, char **err)
{
	struct myriad *app = src->app;
	struct sim_spec spec;
	struct sim_source *ss;
	static const enum fmt node_fmts[3] = {FMT_NVSMI, FMT_XID, FMT_IB};
	static const enum fmt svc_fmts[3] = {FMT_SLURM_NODES, FMT_SLURM_JOBS, FMT_FACILITY};
	static const char *const svc_names[3] = {"slurm", "slurm", "facility"};

	sim_spec_default(&spec);
	if (args && *args && sim_spec_parse(&spec, args, err) < 0)
		return -1;
	ss = xcalloc(1, sizeof *ss);
	ss->sim = sim_new(&spec);
	ss->nodes = sim_topo(ss->sim)->nodes;
	app->virtual_time = 1;
	app->start = app->now = ss->now = sim_now(ss->sim);
	app->tick = 0;
	src->priv = ss;
	announce(app, ss);
	ss->node_streams = xcalloc((size_t)ss->nodes * 3, sizeof *ss->node_streams);
	for (int32_t i = 0; i < ss->nodes; i++)
		for (int k = 0; k < 3; k++)
			stream_init(&ss->node_streams[i * 3 + k], &app->bus, &app->model, i, node_fmts[k], "sim");
	for (int k = 0; k < 3; k++)
		stream_init(&ss->services[k], &app->bus, &app->model, -1, svc_fmts[k], svc_names[k]);
	struct sim_sink sink = {ss, sink_text};

	sim_print_service(ss->sim, SIM_SINFO, &sink);
	sim_print_service(ss->sim, SIM_SQUEUE, &sink);
	sim_print_service(ss->sim, SIM_FACILITY, &sink);
	if (!app->backend) {
		app->backend = xcalloc(1, sizeof *app->backend);
		app->backend->ops = &sim_backend_ops;
		app->backend->app = app;
		app->backend->priv = ss->sim;
	}
	return 0;
}

static void sim_tick_fn(struct source *src, int64_t now)
{
	struct sim_source *ss = src->priv;
	struct sim_sink sink = {ss, sink_text};

	ss->now = now;
	sim_step(ss->sim, &sink);
}

static void sim_stop(struct source *src)
{
	struct sim_source *ss = src->priv;

	if (!ss)
		return;
	for (int32_t i = 0; i < ss->nodes * 3; i++)
		stream_free(&ss->node_streams[i]);
	for (int k = 0; k < 3; k++)
		stream_free(&ss->services[k]);
	free(ss->node_streams);
	if (src->app->backend && src->app->backend->priv == ss->sim) {
		free(src->app->backend);
		src->app->backend = NULL;
	}
	sim_free(ss->sim);
	free(ss);
	src->priv = NULL;
}

const struct source_ops sim_source_ops = {
	.name = "sim",
	.abi = MYRIAD_ABI,
	.start = sim_start,
	.tick = sim_tick_fn,
	.stop = sim_stop,
};

struct sim *app_sim(struct myriad *app)
{
	for (int i = 0; i < app->nsources; i++)
		if (app->sources[i]->ops == &sim_source_ops)
			return ((struct sim_source *)app->sources[i]->priv)->sim;
	return NULL;
}

static int be_drain(struct backend *b, int32_t node, const char *reason, const char *who, char *err, size_t errlen)
{
	return sim_drain(b->priv, node, reason, who, err, errlen);
}

static int be_resume(struct backend *b, int32_t node, char *err, size_t errlen)
{
	return sim_resume(b->priv, node, err, errlen);
}

static int be_requeue(struct backend *b, uint32_t job, const int32_t *exclude, int nexclude, char *err, size_t errlen)
{
	return sim_requeue(b->priv, job, exclude, nexclude, err, errlen);
}

static int be_signal(struct backend *b, uint32_t job, int sig, char *err, size_t errlen)
{
	return sim_signal(b->priv, job, sig, err, errlen);
}

const struct backend_ops sim_backend_ops = {
	.name = "sim",
	.abi = MYRIAD_ABI,
	.drain = be_drain,
	.resume = be_resume,
	.requeue = be_requeue,
	.signal = be_signal,
};
