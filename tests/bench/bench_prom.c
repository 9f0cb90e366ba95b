/*
 * bench_prom.c - `make bench`: what one tick of GPU telemetry costs the
 * console when it comes through Prometheus (dcgm-exporter's series) instead
 * of nvidia-smi lines over 1,280 SSH probe streams, in the same run, for
 * the same GPUs and values: the text a Prometheus server's /federate
 * answers (the plugin's default; the exporters' /metrics is the same text
 * without timestamps) and its /api/v1/query answer as JSON, each parsed,
 * mapped and applied to the model (the console's CPU, transport left out:
 * the SSH transport's own cost is bench_ssh.sh's). Then /federate for
 * 102,400 GPUs, the size myriad is designed for.
 */
#include <stdio.h>
#include <string.h>
#include "myriad.h"
#include "stream.h"
#include "sim/sim.h"

void bench_prometheus(struct myriad *app);

static const struct {
	const char *name;
	int met;        /* MET_*, or -1: 0 (XID) */
	int div;        /* the model's unit to DCGM's: centiwatts to watts */
} series[] = {
	{"GPU_UTIL", MET_UTIL, 1}, {"FB_USED", MET_MEM_USED, 1}, {"FB_FREE", MET_MEM_TOTAL, 1},
	{"GPU_TEMP", MET_TEMP, 1}, {"POWER_USAGE", MET_POWER, 100}, {"POWER_MGMT_LIMIT", MET_POWER_LIMIT, 100},
	{"SM_CLOCK", MET_SM_CLOCK, 1}, {"ECC_DBE_VOL_TOTAL", MET_ECC_UNCORR, 1},
	{"CLOCK_THROTTLE_REASONS", MET_THROTTLE, 1}, {"XID_ERRORS", -1, 1},
};

static void put_value(struct sbuf *b, const struct model *m, int k, int32_t g)
{
	int32_t v = series[k].met < 0 ? 0 : m->met[series[k].met][g];

	if (v == MET_UNKNOWN)
		sbuf_adds(b, "NaN");
	else if (series[k].met == MET_MEM_TOTAL)
		sbuf_printf(b, "%d", v - m->met[MET_MEM_USED][g]);
	else if (series[k].div > 1)
		sbuf_printf(b, "%d.%02d", v / series[k].div, v % series[k].div);
	else
		sbuf_printf(b, "%d", v);
}

static void put_labels(struct sbuf *b, const struct model *m, int32_t n, int i)
{
	int32_t g = model_gpu(m, n, i);

	sbuf_printf(b, "gpu=\"%d\",UUID=\"%s\",pci_bus_id=\"%s\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\","
		    "Hostname=\"%s\",DCGM_FI_DRIVER_VERSION=\"535.183.01\"", i, m->uuid[g], m->pci[g], i, m->nodes[n].name);
}

/* Prometheus's /federate text for every GPU of m: the exporters' series with
 * the scrape's instance and job labels and a timestamp. */
static void federate_text(const struct model *m, struct sbuf *b)
{
	for (unsigned k = 0; k < ARRAY_LEN(series); k++) {
		sbuf_printf(b, "# HELP DCGM_FI_DEV_%s dcgm\n# TYPE DCGM_FI_DEV_%s gauge\n", series[k].name, series[k].name);
		for (int32_t n = 0; n < m->nnodes; n++)
			for (int i = 0; i < m->gpus_per_node; i++) {
				sbuf_printf(b, "DCGM_FI_DEV_%s{", series[k].name);
				put_labels(b, m, n, i);
				sbuf_printf(b, ",instance=\"%s:9400\",job=\"dcgm\"} ", m->nodes[n].name);
				put_value(b, m, k, model_gpu(m, n, i));
				sbuf_adds(b, " 1767225600123\n");
			}
	}
}

/* Prometheus's answer to the plugin's one instant query for all of them. */
static void api_answer(const struct model *m, struct sbuf *b)
{
	int first = 1;

	sbuf_adds(b, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
	for (unsigned k = 0; k < ARRAY_LEN(series); k++)
		for (int32_t n = 0; n < m->nnodes; n++)
			for (int i = 0; i < m->gpus_per_node; i++) {
				sbuf_printf(b, "%s{\"metric\":{\"__name__\":\"DCGM_FI_DEV_%s\",\"instance\":\"%s:9400\",\"job\":\"dcgm\","
					    "\"gpu\":\"%d\",\"UUID\":\"%s\",\"pci_bus_id\":\"%s\",\"Hostname\":\"%s\"},"
					    "\"value\":[1767225600.123,\"", first ? "" : ",", series[k].name,
					    m->nodes[n].name, i, m->uuid[model_gpu(m, n, i)], m->pci[model_gpu(m, n, i)],
					    m->nodes[n].name);
				put_value(b, m, k, model_gpu(m, n, i));
				sbuf_adds(b, "\"]}");
				first = 0;
			}
	sbuf_adds(b, "]}}");
}

/* CPU ms to feed doc to one Prometheus stream, parse, map and apply it. */
static double prom_ms(struct myriad *app, const struct sbuf *doc, int iters)
{
	struct stream st;
	int64_t t0;

	stream_init(&st, &app->bus, &app->model, -1, FMT_PROMETHEUS, "bench");
	stream_feed(&st, doc->s, doc->len, app->now);   /* the first reading: identities and XID baselines */
	stream_end(&st, app->now);
	bus_flush(&app->bus);
	t0 = cpu_us();
	for (int it = 0; it < iters; it++) {
		stream_feed(&st, doc->s, doc->len, app->now + it);
		stream_end(&st, app->now + it);
		bus_flush(&app->bus);
	}
	double ms = (double)(cpu_us() - t0) / 1000.0 / iters;

	if (st.rejected)
		printf("  (%llu records rejected: the bench's text is wrong)\n", (unsigned long long)st.rejected);
	stream_free(&st);
	return ms;
}

struct texts {
	struct sbuf *node;
	int32_t nodes;
};

static void capture_nvsmi(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n)
{
	struct texts *t = ctx;

	if (s == SIM_NVSMI && node >= 0 && node < t->nodes)
		sbuf_add(&t->node[node], buf, n);
}

/* CPU ms for the same tick as nvidia-smi lines through one stream per node. */
static double nvsmi_ms(struct myriad *app, int iters, size_t *bytes)
{
	struct texts t = {xcalloc((size_t)app->model.nnodes, sizeof *t.node), app->model.nnodes};
	struct stream *st = xcalloc((size_t)t.nodes, sizeof *st);
	int64_t t0;

	sim_step(app_sim(app), &(struct sim_sink){&t, capture_nvsmi});
	*bytes = 0;
	for (int32_t i = 0; i < t.nodes; i++)
		*bytes += t.node[i].len;
	for (int32_t i = 0; i < t.nodes; i++)
		stream_init(&st[i], &app->bus, &app->model, i, FMT_NVSMI, "bench");
	t0 = cpu_us();
	for (int it = 0; it < iters; it++) {
		for (int32_t i = 0; i < t.nodes; i++)
			stream_feed(&st[i], t.node[i].s, t.node[i].len, app->now + it);
		bus_flush(&app->bus);
	}
	double ms = (double)(cpu_us() - t0) / 1000.0 / iters;

	for (int32_t i = 0; i < t.nodes; i++) {
		stream_free(&st[i]);
		sbuf_free(&t.node[i]);
	}
	free(st);
	free(t.node);
	return ms;
}

void bench_prometheus(struct myriad *app)
{
	struct sbuf text = {0}, api = {0};
	struct myriad big;
	char *err = NULL;

	federate_text(&app->model, &text);
	api_answer(&app->model, &api);
	size_t csv = 0;
	double smi = nvsmi_ms(app, 20, &csv), mt = prom_ms(app, &text, 10), qa = prom_ms(app, &api, 10);

	printf("one tick of %d GPUs into the model (console CPU, transport left out):\n", app->model.ngpus);
	printf("  nvidia-smi over %d SSH probe streams (%.1f MB of CSV):   %8.2f ms\n", app->model.nnodes,
	       csv / 1e6, smi);
	printf("  Prometheus /federate text (%.1f MB):                    %8.2f ms  ratio to SSH %.2f\n",
	       text.len / 1e6, mt, mt / smi);
	printf("  Prometheus /api/v1/query answer (%.1f MB of JSON):      %8.2f ms  ratio to SSH %.2f\n",
	       api.len / 1e6, qa, qa / smi);
	sbuf_free(&text);
	sbuf_free(&api);
	app_init(&big);
	if (app_add_source(&big, "sim", "gpus=102400,seed=1", &err) < 0) {
		printf("  102,400 GPUs: %s\n", err);
		free(err);
		app_free(&big);
		return;
	}
	app_tick(&big);
	federate_text(&big.model, &text);
	double big_mt = prom_ms(&big, &text, 3);

	printf("one tick of %d GPUs through Prometheus /federate (%.1f MB): %.1f ms CPU; %.2f times 10,240 GPUs' "
	       "(10 is linear)\n", big.model.ngpus, text.len / 1e6, big_mt, big_mt / mt);
	sbuf_free(&text);
	sbuf_free(&api);
	app_free(&big);
}
