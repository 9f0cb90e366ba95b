/*
 * source_sim.c - the embedded simulator as a source and a backend.
 *
 * The source announces the inventory (topology and nodes), then each tick
 * steps the simulator and feeds what it printed into one stream per node and
 * format, and one per service, exactly as SSH channels would. The backend
 * hands actions to the simulator's scheduler as scontrol would to slurmctld.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "myriad.h"
#include "stream.h"
#include "sim/sim.h"
#include "action/backend.h"

struct sim_source {
	struct sim *sim;
	struct stream *node_streams;   /* nodes x 3: nvidia-smi, kernel log, IB */
	struct stream services[3];     /* sinfo, squeue, facility */
	int32_t nodes;
	int64_t now;
	int docs_pending;              /* the start's service documents are still to come (defer_start) */
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

	if (which >= SIM_SINFO)
		stream_doc(st, buf, n, ss->now);   /* a service prints a whole document at once */
	else
		stream_feed(st, buf, n, ss->now);
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

/* What the services say at start, as their first poll would: the nodes'
 * states, the jobs, the facility. Stamped with the start time. */
static void start_docs(struct sim_source *ss)
{
	struct sim_sink sink = {ss, sink_text};

	sim_print_service(ss->sim, SIM_SINFO, &sink);
	sim_print_service(ss->sim, SIM_SQUEUE, &sink);
	sim_print_service(ss->sim, SIM_FACILITY, &sink);
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
	if (app->defer_start) {
		ss->docs_pending = 1;
		app->start_pending++;
	} else {
		start_docs(ss);
	}
	if (!app->backend)
		backend_install(app, &sim_backend_ops, ss->sim);
	return 0;
}

void app_finish_start(struct myriad *app)
{
	for (int i = 0; i < app->nsources && app->start_pending; i++) {
		struct source *src = app->sources[i];
		struct sim_source *ss = src->ops == &sim_source_ops ? src->priv : NULL;

		if (ss && ss->docs_pending) {
			ss->docs_pending = 0;
			app->start_pending--;
			start_docs(ss);
		}
	}
	app->start_pending = 0;
	app->defer_start = 0;   /* only the run's first start waits for a frame */
	bus_flush(&app->bus);
}

static int sim_tick_fn(struct source *src, int64_t now)
{
	struct sim_source *ss = src->priv;
	struct sim_sink sink = {ss, sink_text};

	ss->now = now;
	sim_step(ss->sim, &sink);
	return 0;
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

/* ---- the backend: the simulator's scheduler, answered at once ---- */

static void note(struct sbuf *errs, const char *who, const char *err)
{
	sbuf_printf(errs, "%s%s: %s", errs->len ? "; " : "", who, err[0] ? err : "failed");
}

static int32_t act_on_nodes(struct backend *b, const struct backend_call *call, struct sbuf *errs)
{
	const struct model *m = &b->app->model;
	int32_t failed = 0;
	char err[256];

	for (int32_t i = 0; i < call->nnodes; i++) {
		int32_t n = call->nodes[i];
		int rc;

		err[0] = '\0';
		rc = call->verb == BV_DRAIN ? sim_drain(b->priv, n, call->reason, call->who, err, sizeof err)
					    : sim_resume(b->priv, n, err, sizeof err);
		if (rc < 0) {
			failed++;
			note(errs, n >= 0 && n < m->nnodes ? m->nodes[n].name : "?", err);
		}
	}
	return failed;
}

static void be_send(struct backend *b, struct backend_call *call)
{
	struct sbuf errs = {0};
	int32_t failed = 0, targets = 1;
	char err[256] = "", job[16];

	snprintf(job, sizeof job, "%u", call->job);
	switch (call->verb) {
	case BV_DRAIN:
	case BV_RESUME:
		targets = call->nnodes;
		failed = act_on_nodes(b, call, &errs);
		break;
	case BV_REQUEUE:
		if (sim_requeue(b->priv, call->job, call->nodes, call->nnodes, err, sizeof err) < 0)
			failed = 1, note(&errs, job, err);
		break;
	case BV_SIGNAL:
		if (sim_signal(b->priv, call->job, call->sig ? call->sig : SIGUSR1, err, sizeof err) < 0)
			failed = 1, note(&errs, job, err);
		break;
	}
	backend_reply(call, !failed ? BS_DONE : failed < targets ? BS_PARTIAL : BS_FAILED, failed,
		      errs.s ? errs.s : "");
	sbuf_free(&errs);
}

static void be_describe(struct backend *b, const struct backend_call *call, struct sbuf *out)
{
	static const char *const verbs[] = {"drain", "resume", "requeue", "signal"};

	(void)b;
	sbuf_printf(out, "%s %s", verbs[call->verb], call->verb <= BV_RESUME ? call->nodeset : "");
	if (call->verb >= BV_REQUEUE)
		sbuf_printf(out, "%u", call->job);
	if (call->verb == BV_REQUEUE && call->nnodes)
		sbuf_printf(out, " excluding %s", call->nodeset);
	if (call->verb == BV_SIGNAL)
		sbuf_printf(out, " signal %d", call->sig ? call->sig : SIGUSR1);
	if (call->verb == BV_DRAIN)
		sbuf_printf(out, " reason %s", call->reason);
	sbuf_addc(out, '\n');
}

const struct backend_ops sim_backend_ops = {
	.name = "sim",
	.abi = MYRIAD_ABI,
	.send = be_send,
	.describe = be_describe,
};
