/*
 * test_sim.c - the embedded simulated cluster: spec parsing, topology,
 * determinism, the exact text formats (nvidia-smi, Slurm JSON, facility
 * JSON), job/GPU conservation and power physics. Faults, repair, the
 * scontrol face, IB dumps and rates are in test_sim_faults.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include "test.h"
#include "sim_fixture.h"

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
