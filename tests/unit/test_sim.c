/*
 * test_sim.c - the embedded simulated cluster: spec parsing, topology,
 * determinism, the exact text formats (nvidia-smi, kernel Xid lines, IB sysfs
 * dumps, Slurm JSON, facility JSON), job/GPU conservation, power physics,
 * faults, health check and repair, the scontrol face and its Slurm wording,
 * requeue with exclusions, and the garbled-line feature's rate.
 */
#include <ctype.h>
#include <stdlib.h>
#include "test.h"
#include "util.h"
#include "event.h"
#include "sim/sim.h"
#include "sim/sim_test.h"

/* ---- capturing what the simulator prints ---- */

struct cap {
	uint64_t hash;
	int64_t bytes[SIM_STREAM_COUNT];
	int64_t chunks[SIM_STREAM_COUNT];
	int keep[SIM_STREAM_COUNT];     /* append to all[] */
	struct sbuf all[SIM_STREAM_COUNT];
	struct sbuf last[SIM_STREAM_COUNT];   /* last chunk of each stream */
	int32_t last_node[SIM_STREAM_COUNT];
	int64_t per_node[SIM_STREAM_COUNT][256];   /* chunks per node (first 256) */
	int bad_nvsmi_chunks;           /* nvidia-smi chunks without 8 lines */
};

static void cap_text(void *ctx, enum sim_stream st, int32_t node, const char *buf, size_t n)
{
	struct cap *c = ctx;
	int lines = 0;

	c->hash = hash_bytes(c->hash, &st, sizeof st);
	c->hash = hash_bytes(c->hash, &node, sizeof node);
	c->hash = hash_bytes(c->hash, buf, n);
	c->bytes[st] += (int64_t)n;
	c->chunks[st]++;
	if (c->keep[st])
		sbuf_add(&c->all[st], buf, n);
	sbuf_reset(&c->last[st]);
	sbuf_add(&c->last[st], buf, n);
	c->last_node[st] = node;
	if (node >= 0 && node < 256)
		c->per_node[st][node]++;
	if (st == SIM_NVSMI) {
		for (size_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
		if (lines != 8 || buf[n - 1] != '\n')
			c->bad_nvsmi_chunks++;
	}
}

static void cap_init(struct cap *c)
{
	memset(c, 0, sizeof *c);
	c->hash = HASH_INIT;
}

static void cap_free(struct cap *c)
{
	for (int i = 0; i < SIM_STREAM_COUNT; i++) {
		sbuf_free(&c->all[i]);
		sbuf_free(&c->last[i]);
	}
}

static struct sim *make(const char *spec)
{
	struct sim_spec sp;
	char *err = NULL;

	sim_spec_default(&sp);
	if (sim_spec_parse(&sp, spec, &err)) {
		fprintf(stderr, "  bad spec %s: %s\n", spec, err);
		free(err);
		return NULL;
	}
	return sim_new(&sp);
}

static void run(struct sim *s, struct cap *c, int steps)
{
	struct sim_sink sink = {c, cap_text};

	for (int i = 0; i < steps; i++)
		sim_step(s, c ? &sink : NULL);
}

/* ---- a small JSON checker (syntax only) ---- */

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (!*p || !strchr("\"\\/bfnrtu", *p))
				return NULL;
		}
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *js_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	return p > s ? p : NULL;
}

static const char *js_items(const char *p, char close, int object, int depth)
{
	p = js_ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (!(p = js_string(js_ws(p))))
				return NULL;
			p = js_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		if (!(p = js_value(p, depth + 1)))
			return NULL;
		p = js_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *js_value(const char *p, int depth)
{
	p = js_ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{')
		return js_items(p + 1, '}', 1, depth);
	if (*p == '[')
		return js_items(p + 1, ']', 0, depth);
	if (*p == '"')
		return js_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return js_number(p);
}

static int json_ok(const char *doc)
{
	const char *end = js_value(doc, 0);

	return end && *js_ws(end) == '\0';
}

/* The number after "key": in doc (first match at or after from). */
static double json_num(const char *doc, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = strstr(doc, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1e300;
}

/* ---- spec and topology ---- */

TEST(sim_spec)
{
	struct sim_spec sp;
	char *err = NULL;

	sim_spec_default(&sp);
	CHECK_INT(sp.gpus, 10240);
	CHECK_INT(sp.seed, 1);
	CHECK_NEAR(sp.accel, 1.0, 1e-12);
	CHECK_NEAR(sp.load, 0.9, 1e-12);
	CHECK_INT(sp.start, 1767225600LL * US_PER_SEC);
	CHECK_INT(sim_spec_parse(&sp, "gpus=2048, seed=7,accel=3000,load=0.75,garble=0.5", &err), 0);
	CHECK(err == NULL);
	CHECK_INT(sp.gpus, 2048);
	CHECK_INT(sp.seed, 7);
	CHECK_NEAR(sp.accel, 3000, 1e-9);
	CHECK_NEAR(sp.load, 0.75, 1e-12);
	CHECK_NEAR(sp.garble, 0.5, 1e-12);
	CHECK_INT(sim_spec_parse(&sp, "start=2026-03-01T12:00:00Z,accel=1e5", &err), 0);
	CHECK_INT(sp.start, 1772366400LL * US_PER_SEC);
	CHECK_NEAR(sp.accel, 100000, 1e-6);
	CHECK_INT(sim_spec_parse(&sp, "start=1767225600", &err), 0);
	CHECK_INT(sp.start, 1767225600LL * US_PER_SEC);

	CHECK_INT(sim_spec_parse(&sp, "gpus=lots", &err), -1);
	CHECK(err && strstr(err, "gpus") && strstr(err, "lots"));
	free(err);
	err = NULL;
	CHECK_INT(sim_spec_parse(&sp, "seed=3,colour=blue", &err), -1);
	CHECK(err && strstr(err, "colour"));
	free(err);
	err = NULL;
	CHECK_INT(sp.seed, 7);   /* a failed parse leaves the spec as it was */
	CHECK_INT(sim_spec_parse(&sp, "load=1.5", &err), -1);
	CHECK(err && strstr(err, "load"));
	free(err);
	err = NULL;
	CHECK_INT(sim_spec_parse(&sp, "start=yesterday", &err), -1);
	CHECK(err && strstr(err, "start"));
	free(err);
	err = NULL;
	CHECK_INT(sim_spec_parse(&sp, "accel", &err), -1);
	CHECK(err && strstr(err, "accel"));
	free(err);
}

TEST(sim_topology)
{
	struct sim *s = make("gpus=2048");
	const struct topo *t = sim_topo(s);
	char name[16];

	CHECK_INT(t->nodes, 256);
	CHECK_INT(t->sus, 8);
	CHECK_INT(t->tiers, 2);
	CHECK_INT(t->leaves, 64);
	CHECK_INT(t->spines, 32);
	CHECK_INT(t->cores, 0);
	sim_node_name(s, 0, name, sizeof name);
	CHECK_STR(name, "gpu0001");
	sim_node_name(s, 255, name, sizeof name);
	CHECK_STR(name, "gpu0256");
	sim_free(s);

	s = make("gpus=10240");
	t = sim_topo(s);
	CHECK_INT(t->nodes, 1280);
	CHECK_INT(t->gpus, 10240);
	CHECK_INT(t->sus, 40);
	CHECK_INT(t->tiers, 3);
	CHECK_INT(t->leaves, 320);
	CHECK_INT(t->spines, 320);
	CHECK_INT(t->cores, 160);
	sim_node_name(s, 1279, name, sizeof name);
	CHECK_STR(name, "gpu1280");
	CHECK_INT(sim_now(s), 1767225600LL * US_PER_SEC);
	CHECK_INT(sim_tick(s), 0);
	sim_free(s);

	s = make("gpus=12");   /* rounds up to whole 8-GPU nodes */
	CHECK_INT(sim_topo(s)->nodes, 2);
	sim_free(s);
}

/* ---- determinism ---- */

static uint64_t run_hash(const char *spec, int steps)
{
	struct cap c;
	struct sim *s = make(spec);
	uint64_t h;

	cap_init(&c);
	run(s, &c, steps);
	h = c.hash;
	sim_free(s);
	cap_free(&c);
	return h;
}

TEST(sim_deterministic)
{
	uint64_t a = run_hash("gpus=512,seed=5,accel=3000,garble=2", 300);
	uint64_t b = run_hash("gpus=512,seed=5,accel=3000,garble=2", 300);
	uint64_t c = run_hash("gpus=512,seed=6,accel=3000,garble=2", 300);

	CHECK(a == b);
	CHECK(a != c);
}

/* Printing or not never changes what happens. */
TEST(sim_sink_independent)
{
	struct sim *a = make("gpus=256,seed=9,accel=5000"), *b = make("gpus=256,seed=9,accel=5000");
	struct cap ca, cb;
	struct sim_sink sa = {&ca, cap_text}, sb = {&cb, cap_text};

	cap_init(&ca);
	cap_init(&cb);
	run(a, &ca, 200);
	run(b, NULL, 200);
	sim_print_service(a, SIM_SQUEUE, &sa);
	sim_print_service(b, SIM_SQUEUE, &sb);
	sim_print_service(a, SIM_SINFO, &sa);
	sim_print_service(b, SIM_SINFO, &sb);
	CHECK_STR(ca.last[SIM_SINFO].s, cb.last[SIM_SINFO].s);
	CHECK_STR(ca.last[SIM_SQUEUE].s, cb.last[SIM_SQUEUE].s);
	sim_free(a);
	sim_free(b);
	cap_free(&ca);
	cap_free(&cb);
}

/* ---- nvidia-smi ---- */

static int all_digits(const char *p, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

static int is_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

static int uuid_ok(const char *p, size_t n)
{
	static const int dash[] = {12, 17, 22, 27};

	if (n != 40 || strncmp(p, "GPU-", 4))
		return 0;
	for (int i = 4; i < 40; i++) {
		int want_dash = i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3];

		if (want_dash ? p[i] != '-' : !(isdigit((unsigned char)p[i]) || (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	}
	return 1;
}

/* Checks one line; returns 1 for a live GPU line, 2 for a dead one, 0 bad. */
static int nvsmi_line_ok(const char *line, size_t len, int want_index)
{
	static const char *const bus[] = {"18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"};
	const char *f[16];
	size_t fl[16];
	int nf = 0;
	const char *p = line, *end = line + len;
	char pci[24];

	while (nf < 16) {
		const char *q = p;

		while (q + 1 < end && !(q[0] == ',' && q[1] == ' '))
			q++;
		if (q + 1 >= end)
			q = end;
		f[nf] = p;
		fl[nf++] = (size_t)(q - p);
		if (q == end)
			break;
		p = q + 2;
	}
	if (nf != 12 || !all_digits(f[0], fl[0]) || atoi(f[0]) != want_index || !uuid_ok(f[1], fl[1]))
		return 0;
	snprintf(pci, sizeof pci, "00000000:%s:00.0", bus[want_index]);
	if (fl[2] != 16 || strncmp(f[2], pci, 16))
		return 0;
	if (f[3][0] == '[') {
		for (int i = 3; i < 12; i++)
			if (fl[i] != fl[3] || strncmp(f[i], f[3], fl[3]) || f[i][fl[i] - 1] != ']')
				return 0;
		return 2;
	}
	if (!all_digits(f[3], fl[3]) || atoi(f[3]) > 100 || !all_digits(f[4], fl[4]))
		return 0;
	if (fl[5] != 5 || strncmp(f[5], "81559", 5) || !all_digits(f[6], fl[6]))
		return 0;
	if (fl[7] < 4 || f[7][fl[7] - 3] != '.' || !all_digits(f[7], fl[7] - 3) || !all_digits(f[7] + fl[7] - 2, 2))
		return 0;
	if (fl[8] != 6 || strncmp(f[8], "700.00", 6) || !all_digits(f[9], fl[9]) || !all_digits(f[10], fl[10]))
		return 0;
	if (fl[11] != 18 || strncmp(f[11], "0x", 2) || !is_hex(f[11] + 2, 16))
		return 0;
	return 1;
}

TEST(sim_nvsmi_lines)
{
	struct sim *s = make("gpus=512,seed=3,accel=20000");
	struct cap c;
	int64_t lines = 0, bad = 0, dead = 0, idx = 0;
	const char *p, *nl;

	cap_init(&c);
	c.keep[SIM_NVSMI] = 1;
	sim_inject_xid(s, 5, 3, 79);
	run(s, &c, 60);
	for (p = c.all[SIM_NVSMI].s; p && *p; p = nl + 1) {
		int r;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		r = nvsmi_line_ok(p, (size_t)(nl - p), (int)(idx % 8));
		if (!r) {
			if (bad < 3)
				fprintf(stderr, "  bad line: %.*s\n", (int)(nl - p), p);
			bad++;
		}
		dead += r == 2;
		lines++;
		idx++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(c.bad_nvsmi_chunks, 0);
	CHECK(lines > 60 * 60 * 8 / 2);
	CHECK(dead >= 59);   /* the injected XID 79 GPU, every step after */
	CHECK(strstr(c.all[SIM_NVSMI].s, "[GPU requires reset], [GPU requires reset]") != NULL);
	sim_free(s);
	cap_free(&c);
}

/* Busy and idle GPUs look like H100s under load and at rest. */
TEST(sim_nvsmi_values)
{
	struct sim *s = make("gpus=1024,seed=4,accel=0");
	struct cap c;
	int busy = 0, idle = 0, wrong = 0;
	const char *p, *nl;

	cap_init(&c);
	run(s, &c, 120);
	c.keep[SIM_NVSMI] = 1;
	run(s, &c, 1);
	for (p = c.all[SIM_NVSMI].s; (nl = strchr(p, '\n')); p = nl + 1) {
		int index, util, mem, temp, clock, ecc;
		double watts;
		unsigned long long thr;
		char uuid[48], pci[24];

		if (memchr(p, '[', (size_t)(nl - p)))
			continue;   /* a dead GPU (the node drained before t=0) */
		if (sscanf(p, "%d, %47[^,], %23[^,], %d, %d, 81559, %d, %lf, 700.00, %d, %d, 0x%llx", &index, uuid,
			   pci, &util, &mem, &temp, &watts, &clock, &ecc, &thr) != 10) {
			wrong++;
			continue;
		}
		if (util == 0 && thr == THR_GPU_IDLE) {
			idle++;
			/* a GPU whose job just ended is still warm: temperature lags */
			if (mem > 500 || watts < 70 || watts > 100 || temp < 28 || temp > 80 || clock != 345) {
				fprintf(stderr, "  idle: %.*s", (int)(nl - p + 1), p);
				wrong++;
			}
		} else if (util >= 85) {
			busy++;
			if (mem < 40000 || mem > 80000 || watts < 540 || watts > 700 || temp < 50 || temp > 84
			    || ((thr & THR_SW_POWER_CAP) ? clock >= 1980 : clock != 1980)) {
				fprintf(stderr, "  busy: %.*s", (int)(nl - p + 1), p);
				wrong++;
			}
		}
	}
	CHECK_INT(wrong, 0);
	CHECK(busy > 1024 * 6 / 10);
	CHECK(idle > 20);
	sim_free(s);
	cap_free(&c);
}

/* ---- conservation ---- */

static int job_has_gpu(const struct sim_test_job *j, int64_t gpu)
{
	int32_t node = (int32_t)(gpu / 8);

	if (!(j->mask >> (gpu % 8) & 1))
		return 0;
	for (int32_t i = 0; i < j->nnodes; i++)
		if (j->nodes[i] == node)
			return 1;
	return 0;
}

/* Every busy GPU belongs to exactly one running job, every running job's
 * GPUs point back at it, and running GPUs stay within the load cap. */
static int conservation_errors(const struct sim *s)
{
	int64_t gpus = sim_topo(s)->gpus, used = 0, errors = 0;
	struct sim_test_stats st;

	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.state != JOB_RUNNING)
			continue;
		used += (int64_t)j.nnodes * j.gpus_per_node;
		errors += __builtin_popcount(j.mask) != j.gpus_per_node;
		for (int32_t k = 0; k < j.nnodes; k++)
			for (int g = 0; g < 8; g++)
				if (j.mask >> g & 1)
					errors += sim_test_gpu_job(s, (int64_t)j.nodes[k] * 8 + g) != j.id;
	}
	for (int64_t g = 0; g < gpus; g++) {
		uint32_t id = sim_test_gpu_job(s, g);
		int owners = 0;

		for (int32_t i = 0; id && i < sim_test_job_count(s); i++) {
			struct sim_test_job j;

			sim_test_job(s, i, &j);
			owners += j.state == JOB_RUNNING && job_has_gpu(&j, g);
		}
		errors += id && owners != 1;
		used -= id != 0;
	}
	sim_test_stats(s, &st);
	errors += used != 0;
	errors += st.running_gpus > st.cap_gpus;
	return (int)errors;
}

TEST(sim_conservation)
{
	struct sim *s = make("gpus=1024,seed=11,accel=20000");
	int errors = conservation_errors(s);
	struct sim_test_stats st;

	for (int i = 0; i < 6; i++) {
		run(s, NULL, 50);
		errors += conservation_errors(s);
	}
	sim_test_stats(s, &st);
	CHECK_INT(errors, 0);
	CHECK(st.starts > 0 && st.ends > 0);
	CHECK(st.running_gpus > st.cap_gpus / 2);
	sim_free(s);
}

/* Warm start: jobs already running at t=0, started in the past, ids from 1000. */
TEST(sim_warm_start)
{
	struct sim *s = make("gpus=10240");
	struct sim_test_stats st;
	struct sim_test_job j;
	int running = 0, past = 0, big = 0;

	sim_test_stats(s, &st);
	CHECK(st.running_gpus >= st.cap_gpus * 95 / 100);
	CHECK_INT(st.cap_gpus, 9216);
	CHECK_INT(sim_test_job(s, 0, &j), 0);
	CHECK_INT(j.id, 1000);
	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		sim_test_job(s, i, &j);
		running += j.state == JOB_RUNNING;
		big += j.state == JOB_RUNNING && j.nnodes * j.gpus_per_node >= 1024;
	}
	past = running;   /* start times are checked through squeue below */
	CHECK(running > 100);
	CHECK(big >= 1);
	CHECK_INT(conservation_errors(s), 0);
	{
		struct cap c;
		struct sim_sink sink = {&c, cap_text};
		const char *p;
		long long t0 = 1767225600;

		cap_init(&c);
		sim_print_service(s, SIM_SQUEUE, &sink);
		CHECK(json_ok(c.last[SIM_SQUEUE].s));
		past = 0;
		for (p = c.last[SIM_SQUEUE].s; (p = strstr(p, "\"start_time\":")); p++)
			past += strtoll(p + 13, NULL, 10) > 0 && strtoll(p + 13, NULL, 10) < t0;
		CHECK(past == running);
		cap_free(&c);
	}
	sim_free(s);
}

/* ---- Slurm documents ---- */

/* The folded nodeset the squeue document should show for these nodes. */
static void fold(char *out, size_t outlen, const int32_t *idx, int32_t n)
{
	size_t len = 0;

	out[0] = '\0';
	if (n == 1) {
		snprintf(out, outlen, "gpu%04d", idx[0] + 1);
		return;
	}
	len += (size_t)snprintf(out + len, outlen - len, "gpu[");
	for (int32_t i = 0; i < n && len < outlen;) {
		int32_t k = i;

		while (k + 1 < n && idx[k + 1] == idx[k] + 1)
			k++;
		len += (size_t)snprintf(out + len, outlen - len, "%s%04d", i ? "," : "", idx[i] + 1);
		if (k > i && len < outlen)
			len += (size_t)snprintf(out + len, outlen - len, "-%04d", idx[k] + 1);
		i = k + 1;
	}
	if (len < outlen)
		snprintf(out + len, outlen - len, "]");
}

TEST(sim_slurm_json)
{
	struct sim *s = make("gpus=2048,seed=2,accel=3000");
	struct cap c;
	struct sim_sink sink = {&c, cap_text};
	char want[4096], key[64];
	int checked = 0, missing = 0;

	cap_init(&c);
	run(s, &c, 100);
	CHECK(c.chunks[SIM_SINFO] == 20 && c.chunks[SIM_SQUEUE] == 20);
	sim_print_service(s, SIM_SINFO, &sink);
	sim_print_service(s, SIM_SQUEUE, &sink);
	CHECK(json_ok(c.last[SIM_SINFO].s));
	CHECK(json_ok(c.last[SIM_SQUEUE].s));
	CHECK(strstr(c.last[SIM_SINFO].s, "\"release\":\"22.05.8\"") != NULL);
	CHECK(strstr(c.last[SIM_SINFO].s, "\"name\":\"gpu0256\",") != NULL);
	CHECK(strstr(c.last[SIM_SINFO].s, "\"gres\":\"gpu:8\"") != NULL);
	CHECK(strstr(c.last[SIM_SQUEUE].s, "\"job_id\":1000,") != NULL);
	/* every running job's nodes, folded */
	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;
		const char *p;

		sim_test_job(s, i, &j);
		if (j.state != JOB_RUNNING)
			continue;
		snprintf(key, sizeof key, "\"job_id\":%u,", j.id);
		fold(want, sizeof want, j.nodes, j.nnodes);
		p = strstr(c.last[SIM_SQUEUE].s, key);
		if (!p || !(p = strstr(p, "\"nodes\":\"")) || strncmp(p + 9, want, strlen(want))
		    || p[9 + strlen(want)] != '"')
			missing++;
		checked++;
	}
	CHECK(checked > 20);
	CHECK_INT(missing, 0);
	sim_free(s);
	cap_free(&c);
}

/* ---- facility ---- */

TEST(sim_power_physics)
{
	struct sim *s = make("gpus=2048,seed=8,accel=0");
	struct cap c;
	double gpu_w = 0, fac, it, pue, tfac, tit, tpue, supply, ret, flow;
	const char *p, *nl, *doc;
	int nodes = 256, switches = 64 + 32;

	cap_init(&c);
	run(s, &c, 30);
	c.keep[SIM_NVSMI] = 1;
	run(s, &c, 1);
	doc = c.last[SIM_FACILITY].s;
	CHECK(json_ok(doc));
	CHECK(strstr(doc, "{\"time\":\"2026-01-01T00:00:31Z\",\"facility_kw\":") == doc);
	fac = json_num(doc, "facility_kw");
	it = json_num(doc, "it_kw");
	supply = json_num(doc, "supply_c");
	ret = json_num(doc, "return_c");
	flow = json_num(doc, "flow_lpm");
	sim_test_power(s, &tfac, &tit, &tpue);
	pue = fac / it;
	CHECK(pue >= 1.05 && pue <= 1.30);
	CHECK_NEAR(pue, tpue, 0.002);
	CHECK_NEAR(fac, tfac, 0.06);
	CHECK_NEAR(it, tit, 0.06);
	for (p = c.all[SIM_NVSMI].s; (nl = strchr(p, '\n')); p = nl + 1) {
		const char *f = p;

		for (int k = 0; k < 7; k++)
			f = strstr(f, ", ") + 2;
		gpu_w += strtod(f, NULL);
	}
	/* IT = GPUs + hosts (1.5-4.5 kW per node) + switches (1.2-1.5 kW) */
	CHECK(it > gpu_w / 1000 + nodes * 1.5 + switches * 1.2);
	CHECK(it < gpu_w / 1000 + nodes * 4.5 + switches * 1.5);
	CHECK(it > nodes * 6.0 && it < nodes * 10.5);
	CHECK(supply > 24.0 && supply < 32.0);
	CHECK(ret > supply + 3 && ret < supply + 25);
	/* Q = 60 P / (4.18 dT) with P the liquid loop's 80 % share (lagged) */
	CHECK(flow > 60 * 0.6 * it / (4.18 * (ret - supply)));
	CHECK(flow < 60 * 1.0 * it / (4.18 * (ret - supply)));
	sim_free(s);
	cap_free(&c);
}

/* ---- faults, health check, repair ---- */

static int64_t count_str(const char *hay, const char *needle)
{
	int64_t n = 0;

	for (const char *p = hay; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

TEST(sim_faults_and_drains)
{
	struct sim *s = make("gpus=2048,seed=1,accel=3000");
	struct cap c;
	struct sim_test_stats st;
	int drained_docs = 0;

	cap_init(&c);
	c.keep[SIM_KMSG] = 1;
	for (int i = 0; i < 80; i++) {
		run(s, &c, 5);
		if (strstr(c.last[SIM_SINFO].s, "\"state_flags\":[\"DRAIN\"")
		    && strstr(c.last[SIM_SINFO].s, "\"reason_set_by_user\":\"root\""))
			drained_docs++;
	}
	sim_test_stats(s, &st);
	CHECK(count_str(c.all[SIM_KMSG].s, "kernel: NVRM: Xid (PCI:0000:") >= 3);
	CHECK(st.faults >= 3);
	CHECK(st.drains >= 1);
	CHECK(st.repairs >= 1);
	CHECK(drained_docs >= 1);
	CHECK_INT(conservation_errors(s), 0);
	sim_free(s);
	cap_free(&c);
}

static int node_drained(const struct sim *s, int32_t node, const char **reason, const char **who)
{
	uint32_t flags;
	int down;

	sim_test_node(s, node, &flags, &down, reason, who);
	return (flags & NODE_F_DRAIN) != 0;
}

TEST(sim_inject_xid79)
{
	struct sim *s = make("gpus=256,seed=3,accel=1");
	struct cap c;
	uint32_t job = sim_test_gpu_job(s, 5 * 8 + 4);
	const char *reason, *who;
	int drained_at = -1;

	cap_init(&c);
	c.keep[SIM_KMSG] = 1;
	sim_inject_xid(s, 5, 4, 79);
	run(s, &c, 1);
	CHECK(strstr(c.all[SIM_KMSG].s, "2026-01-01T00:00:01+0000 gpu0006 kernel: NVRM: Xid (PCI:0000:9a:00): 79, "
		     "pid=0, GPU has fallen off the bus.\n") != NULL);
	CHECK(strstr(c.all[SIM_KMSG].s, "gpu0006 kernel: NVRM: GPU at PCI:0000:9a:00: GPU-") != NULL);
	CHECK_INT(sim_test_gpu_job(s, 5 * 8 + 4), 0);
	if (job) {   /* its job ended NODE_FAIL and was requeued */
		for (int32_t i = 0; i < sim_test_job_count(s); i++) {
			struct sim_test_job j;

			sim_test_job(s, i, &j);
			if (j.id == job)
				CHECK(j.state == JOB_NODE_FAIL && j.restarts == 1);
		}
	}
	for (int i = 0; i < 95 && drained_at < 0; i++) {
		run(s, &c, 1);
		if (node_drained(s, 5, &reason, &who))
			drained_at = i + 2;
	}
	CHECK(drained_at >= 31 && drained_at <= 91);
	CHECK(node_drained(s, 5, &reason, &who));
	CHECK_STR(reason, "xid79 gpu4 fallen-off-bus");
	CHECK_STR(who, "root");
	sim_free(s);
	cap_free(&c);
}

/* The n-th (1-based) nvidia-smi line of the given bus id in text. */
static const char *nth_line(const char *text, const char *bus, int n)
{
	const char *p = text - 1;

	for (int i = 0; i < n && p; i++)
		p = strstr(p + 1, bus);
	return p;
}

/* ", <ecc>, 0x<16 hex>\n" ends the line: is the ECC column `ecc`? */
static int ecc_is(const char *p, int ecc)
{
	const char *nl = p ? strchr(p, '\n') : NULL;
	char want[16];

	snprintf(want, sizeof want, ", %d, 0x", ecc);
	return nl && nl - p > 30 && !strncmp(nl - 18 - (long)strlen(want) + 2, want, strlen(want));
}

/* A DBE shows in the ECC column; the crew's repair resets it and resumes. */
TEST(sim_inject_xid48_repair)
{
	struct sim *s = make("gpus=64,seed=3,accel=20000");
	struct cap c;
	const char *reason, *who;
	int drained = 0, repaired = 0;

	cap_init(&c);
	c.keep[SIM_KMSG] = 1;
	c.keep[SIM_NVSMI] = 1;
	sim_inject_xid(s, 2, 1, 48);
	run(s, &c, 1);
	CHECK(ecc_is(nth_line(c.all[SIM_NVSMI].s, "00000000:2A:00.0", 3), 1));
	CHECK(ecc_is(nth_line(c.all[SIM_NVSMI].s, "00000000:2A:00.0", 2), 0));
	c.keep[SIM_NVSMI] = 0;
	for (int i = 0; i < 120 && !repaired; i++) {
		run(s, &c, 1);
		if (node_drained(s, 2, &reason, &who)) {
			drained = 1;
			CHECK_STR(reason, "xid48 gpu1 dbe");
			CHECK_STR(who, "root");
		} else if (drained) {
			repaired = 1;
		}
	}
	CHECK(strstr(c.all[SIM_KMSG].s, "gpu0003 kernel: NVRM: Xid (PCI:0000:2a:00): 48, ") != NULL);
	CHECK(strstr(c.all[SIM_KMSG].s, "gpu0003 kernel: NVRM: Xid (PCI:0000:2a:00): 63, ") != NULL);
	CHECK(strstr(c.all[SIM_KMSG].s, "gpu0003 kernel: NVRM: Xid (PCI:0000:2a:00): 45, ") != NULL);
	CHECK(drained);
	CHECK(repaired);
	CHECK_STR(reason, "");
	sbuf_reset(&c.all[SIM_NVSMI]);
	c.keep[SIM_NVSMI] = 1;
	run(s, &c, 1);
	CHECK(ecc_is(nth_line(c.all[SIM_NVSMI].s, "00000000:2A:00.0", 3), 0));   /* volatile count reset */
	sim_free(s);
	cap_free(&c);
}

/* A hung host prints nothing; Slurm marks it DOWN after SlurmdTimeout. */
TEST(sim_host_silent)
{
	struct sim *s = make("gpus=256,seed=7,accel=1");
	struct cap c;
	struct sim_sink sink = {&c, cap_text};
	uint32_t job = sim_test_gpu_job(s, 4 * 8), flags;
	int down;
	const char *reason, *who;

	cap_init(&c);
	CHECK_INT(sim_test_fault(s, 4, 0, "host"), 0);
	CHECK_INT(sim_test_fault(s, 4, 0, "thermal"), -1);   /* one fault per node */
	run(s, &c, 119);
	sim_test_node(s, 4, &flags, &down, &reason, &who);
	CHECK_INT(down, 0);
	CHECK_INT(sim_test_gpu_job(s, 4 * 8), job);   /* Slurm does not know yet */
	run(s, &c, 1);
	sim_test_node(s, 4, &flags, &down, &reason, &who);
	CHECK_INT(down, 1);
	CHECK(flags & NODE_F_NOT_RESPONDING);
	CHECK_STR(reason, "Not responding");
	CHECK_STR(who, "slurm");
	CHECK_INT(sim_test_gpu_job(s, 4 * 8), 0);
	CHECK_INT(c.per_node[SIM_NVSMI][4], 0);
	CHECK_INT(c.per_node[SIM_IB][4], 0);
	CHECK_INT(c.per_node[SIM_NVSMI][5], 120);
	sim_print_service(s, SIM_SINFO, &sink);
	CHECK(strstr(c.last[SIM_SINFO].s, "\"hostname\":\"gpu0005\",\"state\":\"down\",\"state_flags\":[\"NOT_RESPONDING\"]")
	      != NULL);
	CHECK_INT(conservation_errors(s), 0);
	sim_free(s);
	cap_free(&c);
}

TEST(sim_thermal)
{
	struct sim *s = make("gpus=64,seed=7,accel=1");
	struct cap c;
	const char *reason, *who, *line;
	int temp = 0, drained = 0;
	unsigned long long thr = 0;

	cap_init(&c);
	CHECK_INT(sim_test_fault(s, 1, 5, "thermal"), 0);
	for (int i = 0; i < 91; i++) {
		run(s, &c, 1);
		drained |= node_drained(s, 1, &reason, &who);
	}
	CHECK(drained);
	CHECK_STR(reason, "thermal gpu5 hw-slowdown");
	c.keep[SIM_NVSMI] = 1;
	run(s, &c, 1);
	line = nth_line(c.all[SIM_NVSMI].s, "00000000:AB:00.0", 2);
	CHECK(line && sscanf(line, "00000000:AB:00.0, %*d, %*d, 81559, %d, %*f, 700.00, %*d, %*d, 0x%llx", &temp, &thr) == 2);
	CHECK(temp >= 87);
	CHECK(thr & THR_HW_THERMAL);
	sim_free(s);
	cap_free(&c);
}

TEST(sim_link_down)
{
	struct sim *s = make("gpus=160,seed=7,accel=1");
	struct cap c;
	const char *reason = "", *who, *p;
	char want[64];
	int rail = -1, drained = 0;

	cap_init(&c);
	c.keep[SIM_IB] = 1;
	CHECK_INT(sim_test_fault(s, 3, 0, "link_down"), 0);
	run(s, &c, 10);
	p = strstr(c.all[SIM_IB].s, "/ports/1/state:1: DOWN\n");
	CHECK(p != NULL);
	CHECK_INT(count_str(c.all[SIM_IB].s, "state:1: DOWN"), 1);
	if (p) {
		const char *q = c.all[SIM_IB].s, *last = NULL;

		rail = p[-1] - '0';   /* "...mlx5_R/ports/1/state:1: DOWN" */
		snprintf(want, sizeof want, "mlx5_%d/ports/1/counters/link_downed:", rail);
		while ((q = strstr(q, want)) && q < p) {   /* the same dump's line */
			last = q;
			q++;
		}
		CHECK(last && strtoull(last + strlen(want), NULL, 10) >= 1);
	}
	for (int i = 0; i < 85 && !drained; i++) {
		run(s, &c, 1);
		drained = node_drained(s, 3, &reason, &who);
	}
	snprintf(want, sizeof want, "ib mlx5_%d link_downed", rail);
	CHECK(drained);
	CHECK_STR(reason, want);
	CHECK_INT(conservation_errors(s), 0);
	sim_free(s);
	cap_free(&c);
}

/* ---- the scontrol face ---- */

static uint32_t find_job(const struct sim *s, int state, int min_nodes)
{
	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.state == state && j.nnodes >= min_nodes)
			return j.id;
	}
	return 0;
}

TEST(sim_scontrol_wording)
{
	struct sim *s = make("gpus=256,seed=4,accel=0");
	struct cap c;
	struct sim_sink sink = {&c, cap_text};
	char err[256];
	const char *reason, *who;
	uint32_t done;

	cap_init(&c);
	err[0] = '\0';
	CHECK_INT(sim_drain(s, 3, "", "ops", err, sizeof err), -1);
	CHECK_STR(err, "You must specify a reason when DOWNING or DRAINING a node. Request denied");
	CHECK_INT(sim_drain(s, 3, NULL, "ops", err, sizeof err), -1);
	CHECK_INT(sim_resume(s, 3, err, sizeof err), -1);
	CHECK_STR(err, "Invalid node state specified");
	CHECK_INT(sim_drain(s, 9999, "x", "ops", err, sizeof err), -1);
	CHECK_STR(err, "Invalid node name specified");
	CHECK_INT(sim_drain(s, 3, "hc dcgmi-diag-r2 fail gpu0", "ops", err, sizeof err), 0);
	CHECK(node_drained(s, 3, &reason, &who));
	CHECK_STR(reason, "hc dcgmi-diag-r2 fail gpu0");
	CHECK_STR(who, "ops");
	sim_print_service(s, SIM_SINFO, &sink);
	CHECK(strstr(c.last[SIM_SINFO].s, "\"reason\":\"hc dcgmi-diag-r2 fail gpu0\",\"reason_changed_at\":1767225600,"
		     "\"reason_set_by_user\":\"ops\"") != NULL);
	run(s, NULL, 300);   /* an operator drain stays: no fault, no repair */
	CHECK(node_drained(s, 3, &reason, &who));
	CHECK_INT(sim_resume(s, 3, err, sizeof err), 0);
	CHECK(!node_drained(s, 3, &reason, &who));
	CHECK_INT(sim_resume(s, 3, err, sizeof err), -1);
	CHECK_STR(err, "Invalid node state specified");

	CHECK_INT(sim_requeue(s, 999999, NULL, 0, err, sizeof err), -1);
	CHECK_STR(err, "Invalid job id specified");
	CHECK_INT(sim_signal(s, 999999, 10, err, sizeof err), -1);
	CHECK_STR(err, "Invalid job id specified");
	done = find_job(s, JOB_COMPLETED, 1);
	CHECK(done != 0);
	CHECK_INT(sim_requeue(s, done, NULL, 0, err, sizeof err), -1);
	CHECK_STR(err, "Job/step already completing or completed");
	CHECK_INT(sim_signal(s, done, 10, err, sizeof err), -1);
	CHECK_STR(err, "Job/step already completing or completed");
	sim_free(s);
	cap_free(&c);
}

TEST(sim_signal_checkpoint)
{
	struct sim *s = make("gpus=256,seed=4,accel=0");
	struct cap c;
	struct sim_sink sink = {&c, cap_text};
	uint32_t job = find_job(s, JOB_RUNNING, 2), other = 0;
	char err[256], key[64];
	const char *p;

	cap_init(&c);
	CHECK(job != 0);
	CHECK_INT(sim_signal(s, job, 10, err, sizeof err), 0);
	run(s, NULL, 5);
	sim_print_service(s, SIM_SQUEUE, &sink);
	snprintf(key, sizeof key, "\"job_id\":%u,", job);
	p = strstr(c.last[SIM_SQUEUE].s, key);
	CHECK(p != NULL);
	/* the comment precedes job_id in the record: look back to its start */
	while (p && p > c.last[SIM_SQUEUE].s && strncmp(p, "{\"account\"", 10))
		p--;
	CHECK(p && strstr(p, "\"comment\":\"checkpoint (USR1) 2026-01-01T00:00:00Z\"") == strstr(p, "\"comment\""));
	for (int32_t i = 0; i < sim_test_job_count(s) && !other; i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.state == JOB_RUNNING && j.id != job)
			other = j.id;
	}
	CHECK_INT(sim_signal(s, other, 9, err, sizeof err), 0);
	run(s, NULL, 1);
	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.id == other)
			CHECK_INT(j.state, JOB_CANCELLED);
	}
	CHECK_INT(conservation_errors(s), 0);
	sim_free(s);
	cap_free(&c);
}

/* Requeue with exclusions: the job runs again, never on an excluded node. */
TEST(sim_requeue_exclude)
{
	struct sim *s = make("gpus=512,seed=6,accel=0");
	uint32_t id = find_job(s, JOB_RUNNING, 2);
	struct sim_test_job j;
	int32_t excl[64];
	int nexcl = 0, overlap = 0, restarted = 0, seen_requeued = 0;
	char err[256];

	CHECK(id != 0);
	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		sim_test_job(s, i, &j);
		if (j.id == id)
			for (int32_t k = 0; k < j.nnodes && nexcl < 64; k++)
				excl[nexcl++] = j.nodes[k];
	}
	CHECK(nexcl >= 2);
	CHECK_INT(sim_requeue(s, id, excl, nexcl, err, sizeof err), 0);
	for (int step = 0; step < 200; step++) {
		run(s, NULL, 1);
		for (int32_t i = 0; i < sim_test_job_count(s); i++) {
			sim_test_job(s, i, &j);
			if (j.id != id)
				continue;
			seen_requeued |= j.state == JOB_REQUEUED;
			if (j.state != JOB_RUNNING)
				continue;
			restarted = 1;
			for (int32_t k = 0; k < j.nnodes; k++)
				for (int e = 0; e < nexcl; e++)
					overlap += j.nodes[k] == excl[e];
		}
	}
	CHECK(seen_requeued);
	CHECK(restarted);
	CHECK_INT(overlap, 0);
	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		sim_test_job(s, i, &j);
		if (j.id == id) {
			CHECK_INT(j.nexcl, nexcl);
			CHECK_INT(j.restarts, 1);
		}
	}
	CHECK_INT(conservation_errors(s), 0);
	sim_free(s);
}

/* ---- IB dumps ---- */

TEST(sim_ib_dump)
{
	struct sim *s = make("gpus=160,seed=2,accel=0");
	struct cap c;
	uint64_t prev[20][8] = {{0}}, v;
	int dumps = 0, bad = 0, decreasing = 0;

	cap_init(&c);
	for (int step = 0; step < 40; step++) {
		int64_t before = c.chunks[SIM_IB];
		const char *p;

		run(s, &c, 1);
		if (c.chunks[SIM_IB] == before)
			continue;
		/* the last dump of this step: 8 rails x 11 lines, then an empty line */
		p = c.last[SIM_IB].s;
		dumps++;
		bad += count_str(p, "\n") != 89 || strcmp(p + strlen(p) - 2, "\n\n") != 0;
		bad += count_str(p, "/ports/1/state:4: ACTIVE\n") != 8;
		bad += strncmp(p, "/sys/class/infiniband/mlx5_0/ports/1/counters/excessive_buffer_overrun_errors:", 78) != 0;
		for (int r = 0; r < 8; r++) {
			char path[96];
			const char *q;

			snprintf(path, sizeof path, "/sys/class/infiniband/mlx5_%d/ports/1/counters/port_xmit_data:", r);
			q = strstr(p, path);
			if (!q) {
				bad++;
				continue;
			}
			v = strtoull(q + strlen(path), NULL, 10);
			decreasing += v < prev[c.last_node[SIM_IB]][r];
			prev[c.last_node[SIM_IB]][r] = v;
		}
		bad += (c.last_node[SIM_IB] % 10) != (step + 1) % 10;
	}
	CHECK(dumps >= 38);
	CHECK_INT(bad, 0);
	CHECK_INT(decreasing, 0);
	CHECK(c.chunks[SIM_IB] == 40 * 20 / 10);   /* every node once per 10 s */
	sim_free(s);
	cap_free(&c);
}

/* ---- garbled lines, rates ---- */

TEST(sim_garbled_rate)
{
	struct sim *s = make("gpus=512,seed=12,accel=0,garble=36");
	struct cap c;
	struct sim_test_stats st;
	int64_t garbled = 0;
	const char *p, *nl;

	cap_init(&c);
	c.keep[SIM_KMSG] = 1;
	run(s, &c, 500);
	for (p = c.all[SIM_KMSG].s; p && (nl = strchr(p, '\n')); p = nl + 1) {
		const char *x = strstr(p, "NVRM: Xid (");

		if (x && x < nl && !memchr(x, ')', (size_t)(nl - x)))
			garbled++;
		else if (x && x < nl) {
			const char *close = memchr(x, ')', (size_t)(nl - x));

			garbled += close + 3 >= nl;   /* "): " with no code */
		}
	}
	sim_test_stats(s, &st);
	/* 64 nodes x 36 per node-hour = 0.64 a second: 320 in 500 s */
	CHECK_INT(garbled, st.garbled);
	CHECK(garbled > 320 * 3 / 4 && garbled < 320 * 5 / 4);
	sim_free(s);
	cap_free(&c);
}

TEST(sim_fault_rate)
{
	struct sim *s = make("gpus=2048,seed=13,accel=100000");
	struct sim_test_stats st;
	/* 4.7e-4 per GPU-day x 2048 x 1e5 / 86400 = 1.114 a second */
	double want = sim_test_rate_per_gpu_day() * 2048 * 100000 / 86400 * 300;

	CHECK_NEAR(sim_test_rate_per_gpu_day(), 4.7e-4, 1e-12);
	run(s, NULL, 300);
	sim_test_stats(s, &st);
	CHECK(st.faults > want * 0.8 && st.faults < want * 1.2);
	CHECK(st.faulted_nodes < 256);
	CHECK_INT(conservation_errors(s), 0);
	sim_free(s);
}
