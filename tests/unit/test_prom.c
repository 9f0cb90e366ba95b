/*
 * test_prom.c - unit tests of the Prometheus parsers and the DCGM mapper
 * (src/probe/prom.c, dcgm.c): the text format line by line with hostile
 * input, real dcgm-exporter output and real Prometheus 2.42 API answers from
 * tests/data/ (origins in tests/data/README), blank sentinels and NaN as
 * unknown, and the XID gauge.
 */
#include <math.h>
#include <stdlib.h>
#include "test.h"
#include "probe/parse.h"
#include "util.h"

#define L(s) (s), (sizeof(s) - 1)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char chunk[4096];
	size_t k;

	if (!f) {
		fprintf(stderr, "  cannot open %s (run from the repo root)\n", path);
		return xstrdup("");
	}
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, k);
	fclose(f);
	*len = b.len;
	return b.s ? b.s : xstrdup("");
}

static struct prom_rec rec;

static int line(const char *s, const char **err)
{
	return prom_parse_line(s, strlen(s), &rec, err);
}

TEST(prom_text_samples)
{
	const char *err;

	CHECK_INT(line("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-927d7444-b45a-7c49-8402-5e686e46a026\","
		       "pci_bus_id=\"00000000:00:09.0\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\","
		       "Hostname=\"6d6d7dc3ce21\",DCGM_FI_DRIVER_VERSION=\"535.183.01\"} 345", &err), 1);
	CHECK_STR(rec.name, "DCGM_FI_DEV_SM_CLOCK");
	CHECK_INT(rec.nlabels, 7);
	CHECK_STR(prom_label(&rec, "modelName"), "NVIDIA H100 80GB HBM3");
	CHECK_STR(prom_label(&rec, "Hostname"), "6d6d7dc3ce21");
	CHECK(prom_label(&rec, "nope") == NULL);
	CHECK_NEAR(rec.value, 345, 0);
	CHECK_INT(rec.has_time, 0);

	CHECK_INT(line("x{a=\"b\\\\c\\\"d\\ne\", z = \"\" ,} -1.5e3 1700000000123", &err), 1);
	CHECK_STR(prom_label(&rec, "a"), "b\\c\"d\ne");
	CHECK_STR(prom_label(&rec, "z"), "");
	CHECK_NEAR(rec.value, -1500, 0);
	CHECK_INT(rec.has_time, 1);
	CHECK_INT(rec.time_ms, 1700000000123LL);
	CHECK_INT(line("  up NaN", &err), 1);
	CHECK(isnan(rec.value));
	CHECK_INT(line("up +Inf", &err), 1);
	CHECK(isinf(rec.value) && rec.value > 0);
	CHECK_INT(line("up -Inf\r", &err), 1);
	CHECK(isinf(rec.value) && rec.value < 0);
	CHECK_INT(line("node:cpu_seconds:rate5m .5", &err), 1);
	CHECK_NEAR(rec.value, 0.5, 0);
	/* OpenMetrics: float-second timestamps, exemplars */
	CHECK_INT(line("foo_total 17 1520879607.789", &err), 1);
	CHECK_INT(rec.time_ms, 1520879607789LL);
	CHECK_INT(line("foo_bucket{le=\"0.1\"} 8 # {id=\"abc\"} 0.043 1520879607.789", &err), 1);
	CHECK_NEAR(rec.value, 8, 0);
	CHECK_STR(prom_label(&rec, "le"), "0.1");
	/* the sentinel survives as a number: the mapper makes it unknown */
	CHECK_INT(line("m 9223372036854775794", &err), 1);
	CHECK(prom_dcgm_blank(rec.value));
}

TEST(prom_text_no_sample)
{
	const char *err;

	CHECK_INT(line("", &err), 0);
	CHECK_INT(line("   \t", &err), 0);
	CHECK_INT(line("# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).", &err), 0);
	CHECK_INT(line("# TYPE DCGM_FI_DEV_SM_CLOCK gauge", &err), 0);
	CHECK_INT(line("# TYPE foo gaugehistogram", &err), 0);
	CHECK_INT(line("# UNIT foo_seconds seconds", &err), 0);
	CHECK_INT(line("# any comment {at all} 12", &err), 0);
	CHECK_INT(line("# EOF", &err), 0);
}

TEST(prom_text_garbage)
{
	static const char *const bad[] = {
		"12 34", "{a=\"b\"} 1", "m{a=\"b\" 1", "m{a=\"b} 1", "m{a=b} 1", "m{a} 1", "m{1a=\"x\"} 1",
		"m{a=\"x\"b=\"y\"} 1", "m{a=\"x\",a=\"y\"} 1", "m{a=\"\\q\"} 1", "m", "m ", "m{}", "m 12abc",
		"m 0x10", "m 1_000", "m 1e", "m +nan", "m 1 2 3", "m 1 1.5.5", "m 1 abc", "m{a=\"\xff\"} 1",
		"m{a=\"\xc0\xaf\"} 1", "m\x01 1", "# TYPE m bogus", "# TYPE", "# HELP", "m 1 # no exemplar",
		"m{a=\"x\"}1",
	};
	const char *err;

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err = NULL;
		if (line(bad[i], &err) != -1 || !err)
			fprintf(stderr, "  accepted: %s\n", bad[i]), test_failures++;
	}
	CHECK_INT(prom_parse_line(L("m{a=\"x\0y\"} 1"), &rec, &err), -1);
	CHECK_INT(prom_parse_line(L("m 1\0"), &rec, &err), -1);
}

TEST(prom_text_limits)
{
	struct sbuf b = {0};
	const char *err;
	int bad = 0;

	/* 32 labels are fine, 33 are not */
	sbuf_adds(&b, "m{");
	for (int i = 0; i < 32; i++)
		sbuf_printf(&b, "l%d=\"v\",", i);
	sbuf_adds(&b, "} 1");
	CHECK_INT(prom_parse_line(b.s, b.len, &rec, &err), 1);
	CHECK_INT(rec.nlabels, 32);
	sbuf_reset(&b);
	sbuf_adds(&b, "m{");
	for (int i = 0; i < 33; i++)
		sbuf_printf(&b, "l%d=\"v\",", i);
	sbuf_adds(&b, "} 1");
	CHECK_INT(prom_parse_line(b.s, b.len, &rec, &err), -1);
	/* a long label value within a line of PARSE_LINE_MAX */
	sbuf_reset(&b);
	sbuf_adds(&b, "m{a=\"");
	for (int i = 0; i < 4000; i++)
		sbuf_addc(&b, 'x');
	sbuf_adds(&b, "\"} 7\n");
	CHECK_INT(prom_parse_text(b.s, b.len, NULL, NULL, &bad, NULL), 1);
	CHECK_INT(bad, 0);
	/* a line past PARSE_LINE_MAX, text after # EOF */
	sbuf_reset(&b);
	for (int i = 0; i < 5000; i++)
		sbuf_addc(&b, 'x');
	sbuf_adds(&b, " 1\nok 2\n# EOF\nafter 3\n");
	CHECK_INT(prom_parse_text(b.s, b.len, NULL, NULL, &bad, NULL), 1);
	CHECK_INT(bad, 2);
	sbuf_free(&b);
}

/* ---- mapping ---- */

struct gpus {
	int n;
	struct prom_gpu g[16];
};

static void on_gpu(void *ctx, const struct prom_gpu *g)
{
	struct gpus *c = ctx;

	if (c->n < 16)
		c->g[c->n] = *g;
	c->n++;
}

struct mapped {
	struct prom_dcgm *d;
	int samples;
};

static void on_rec(void *ctx, const struct prom_rec *r)
{
	struct mapped *m = ctx;

	m->samples++;
	prom_dcgm_add(m->d, r);
}

/* Parses a fixture (text, or an API answer if api) and maps it. */
static int map_file(const char *path, int api, struct gpus *out, int *bad)
{
	size_t len = 0;
	char *doc = slurp(path, &len), *err = NULL;
	struct mapped m = {prom_dcgm_new(), 0};
	int n;

	memset(out, 0, sizeof *out);
	n = api ? prom_parse_api(doc, len, on_rec, &m, bad, &err) : prom_parse_text(doc, len, on_rec, &m, bad, NULL);
	CHECK(n == m.samples);
	if (err)
		fprintf(stderr, "  %s: %s\n", path, err);
	free(err);
	prom_dcgm_flush(m.d, on_gpu, out);
	prom_dcgm_free(m.d);
	free(doc);
	return n;
}

static void check_unknown_except(const struct prom_gpu *g, unsigned known)
{
	for (int m = 0; m < MET_COUNT; m++)
		if (!(known & (1u << m)) && g->m[m] != MET_UNKNOWN)
			fprintf(stderr, "  %s gpu %d: %s = %d, expected unknown\n", g->host, g->gpu,
				metric_name((enum metric)m), g->m[m]), test_failures++;
}

TEST(prom_fixture_readme)
{
	struct gpus g;
	int bad = -1;

	/* NVIDIA/dcgm-exporter README: ", " between labels, NOT_SUPPORTED, no Hostname */
	CHECK_INT(map_file("tests/data/dcgm-readme.prom", 0, &g, &bad), 6);
	CHECK_INT(bad, 0);
	CHECK_INT(g.n, 0);   /* no Hostname and no instance: no node to give it to */
}

TEST(prom_fixture_v100)
{
	struct gpus g;
	int bad = -1;

	CHECK_INT(map_file("tests/data/dcgm-v100-4gpu.prom", 0, &g, &bad), 9);
	CHECK_INT(bad, 0);
	CHECK_INT(g.n, 4);
	for (int i = 0; i < 4 && i < g.n; i++) {
		CHECK_STR(g.g[i].host, "r6i3n0");
		CHECK_INT(g.g[i].gpu, i);
		CHECK_STR(g.g[i].model, "Tesla V100-SXM2-32GB");
		CHECK_STR(g.g[i].pci, "");
		CHECK_INT(g.g[i].pcie_replay, 0);
		CHECK_INT(g.g[i].xid, -1);
	}
	CHECK_STR(g.g[0].uuid, "GPU-a6158b59-2c1e-1e63-0068-9178c4298abd");
	CHECK_INT(g.g[0].m[MET_SM_CLOCK], 135);
	CHECK_INT(g.g[0].m[MET_UTIL], 0);
	check_unknown_except(&g.g[0], 1u << MET_SM_CLOCK | 1u << MET_UTIL);
	CHECK_INT(g.g[2].m[MET_POWER_LIMIT], 30000);
	check_unknown_except(&g.g[2], 1u << MET_POWER_LIMIT);
}

TEST(prom_fixture_h100_mig)
{
	struct gpus g;
	int bad = -1;

	CHECK_INT(map_file("tests/data/dcgm-h100-mig.prom", 0, &g, &bad), 8);
	CHECK_INT(bad, 0);
	CHECK_INT(g.n, 5);   /* known by their identity: neither field is mapped */
	CHECK_STR(g.g[0].host, "***h100-007");
	CHECK_STR(g.g[0].pci, "00000000:1A:00.0");
	CHECK_STR(g.g[3].pci, "00000000:66:00.0");
	CHECK_INT(g.g[3].gpu, 3);
	CHECK_STR(g.g[4].host, "gsrh100-074");
	CHECK_STR(g.g[4].uuid, "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77");
	for (int i = 0; i < g.n && i < 5; i++)
		check_unknown_except(&g.g[i], 0);
}

TEST(prom_fixture_a30_xid)
{
	struct gpus g;
	int bad = -1;

	CHECK_INT(map_file("tests/data/dcgm-a30-xid.prom", 0, &g, &bad), 6);
	CHECK_INT(g.n, 2);   /* MIG instances of one GPU are that GPU */
	CHECK_INT(g.g[0].xid, 0);
	CHECK_INT(g.g[1].xid, 0);
	CHECK_INT(prom_dcgm_xid_new(-1, g.g[0].xid), 0);
}

static void check_blank_gpus(const struct gpus *g)
{
	const struct prom_gpu *a = &g->g[0], *b = &g->g[1];
	char buf[40];
	struct ev_xid x;
	struct ev_sample s;

	CHECK_INT(g->n, 2);
	CHECK_STR(a->host, "6d6d7dc3ce21");
	CHECK_INT(a->m[MET_SM_CLOCK], 345);
	CHECK_INT(a->m[MET_UTIL], 100);
	CHECK_INT(a->m[MET_MEM_USED], 19818);
	CHECK_INT(a->m[MET_POWER], 63195);
	CHECK_INT(a->xid, 79);
	prom_dcgm_xid(a, 12, 79, buf, &x);
	CHECK_STR(x.pci, "0000:00:09");
	CHECK_INT(x.gpu, 0);
	CHECK_INT(x.node, 12);
	CHECK_INT(x.pid, -1);
	prom_dcgm_sample(a, 12, &s);
	CHECK_INT(s.m[MET_POWER], 63195);
	CHECK_INT(s.gpu, 0);
	/* GPU 1: every blank family and NaN is unknown, never a number */
	CHECK_INT(b->gpu, 1);
	CHECK_INT(b->m[MET_MEM_USED], 19818);
	check_unknown_except(b, 1u << MET_MEM_USED);
	CHECK_INT(b->xid, -1);
	CHECK_INT(prom_dcgm_xid_new(-1, b->xid), 0);
}

TEST(prom_fixture_blank)
{
	struct gpus g;
	int bad = -1;

	CHECK_INT(map_file("tests/data/dcgm-blank.prom", 0, &g, &bad), 17);
	CHECK_INT(bad, 0);
	check_blank_gpus(&g);
	CHECK_INT(g.g[0].m[MET_TEMP], 59);
	CHECK_INT(g.g[0].m[MET_MEM_TOTAL], 81559);
	CHECK_INT(g.g[0].m[MET_ECC_UNCORR], 0);
	CHECK_STR(g.g[0].uuid, "GPU-927d7444-b45a-7c49-8402-5e686e46a026");
}

TEST(prom_api_answer)
{
	struct gpus g;
	int bad = -1;

	/* the same exposition through a real Prometheus 2.42: "NaN", and
	 * 9223372036854775793 printed back as "9223372036854776000" */
	CHECK_INT(map_file("tests/data/prom-api-dcgm.json", 1, &g, &bad), 12);
	CHECK_INT(bad, 0);
	CHECK_INT(g.n, 2);
	if (g.n == 2 && g.g[0].gpu == 1) {   /* the answer lists GPU 1 first */
		struct prom_gpu t = g.g[0];

		g.g[0] = g.g[1];
		g.g[1] = t;
	}
	check_blank_gpus(&g);
	CHECK_INT(g.g[0].m[MET_MEM_TOTAL], 81080);   /* no FB_RESERVED in that query */
	CHECK(g.g[0].time > 1700000000LL * 1000000);
}

TEST(prom_api_errors)
{
	size_t len = 0;
	char *doc = slurp("tests/data/prom-api-error.json", &len), *err = NULL;
	int bad = 0;

	CHECK_INT(prom_parse_api(doc, len, NULL, NULL, &bad, &err), -1);
	CHECK(err && strstr(err, "bad_data") && strstr(err, "unclosed left parenthesis"));
	free(err);
	free(doc);
	static const char *const docs[] = {
		"", "not json", "[]", "{\"status\":\"success\"}", "{\"status\":\"success\",\"data\":{}}",
		"{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"x\"]}}",
		"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,2]}}",
		"{\"status\":\"error\"}",
	};
	for (size_t i = 0; i < ARRAY_LEN(docs); i++) {
		err = NULL;
		if (prom_parse_api(docs[i], strlen(docs[i]), NULL, NULL, &bad, &err) != -1 || !err)
			fprintf(stderr, "  accepted: %s\n", docs[i]), test_failures++;
		free(err);
	}
	/* a bad series is skipped and counted; the rest is read */
	const char *v = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			"{\"metric\":{\"__name__\":\"a\"},\"value\":[1,\"12abc\"]},"
			"{\"metric\":{\"__name__\":\"a\",\"x\":1},\"value\":[1,\"1\"]},"
			"{\"metric\":{\"__name__\":\"a\"},\"value\":[1,2]},"
			"{\"metric\":{\"__name__\":\"b\",\"gpu\":\"0\"},\"value\":[1.5,\"+Inf\"]}]}}";

	err = NULL;
	CHECK_INT(prom_parse_api(v, strlen(v), NULL, NULL, &bad, &err), 1);
	CHECK_INT(bad, 3);
	CHECK(err == NULL);
	const char *mx = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
			 "{\"metric\":{\"__name__\":\"a\"},\"values\":[[1,\"1\"],[2,\"2\"],[3,\"x\"]]}]}}";

	CHECK_INT(prom_parse_api(mx, strlen(mx), NULL, NULL, &bad, &err), 2);
	CHECK_INT(bad, 1);
	const char *sc = "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1.25,\"NaN\"]}}";

	CHECK_INT(prom_parse_api(sc, strlen(sc), NULL, NULL, &bad, &err), 1);
}

TEST(prom_dcgm_xid_gauge)
{
	CHECK_INT(prom_dcgm_xid_new(-1, 0), 0);
	CHECK_INT(prom_dcgm_xid_new(-1, 79), 0);     /* first sight: the baseline */
	CHECK_INT(prom_dcgm_xid_new(79, 79), 0);     /* unchanged */
	CHECK_INT(prom_dcgm_xid_new(0, 48), 48);
	CHECK_INT(prom_dcgm_xid_new(48, 79), 79);    /* a change to another code */
	CHECK_INT(prom_dcgm_xid_new(79, 0), 0);      /* exporter restarted */
	CHECK_INT(prom_dcgm_xid_new(79, -1), 0);     /* unknown */
	CHECK(prom_dcgm_blank(NAN) && prom_dcgm_blank(INFINITY) && prom_dcgm_blank(-INFINITY));
	CHECK(prom_dcgm_blank(2147483632.0) && prom_dcgm_blank(2147483635.0) && !prom_dcgm_blank(2147483631.0));
	CHECK(prom_dcgm_blank(140737488355328.0) && prom_dcgm_blank(140737488355331.0));
	CHECK(!prom_dcgm_blank(140737488355327.0));
	CHECK(prom_dcgm_blank(9223372036854775794.0) && !prom_dcgm_blank(0) && !prom_dcgm_blank(700.5));
}
