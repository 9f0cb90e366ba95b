/*
 * test_sim_faults.c - the simulated cluster when things break: faults, the
 * health check and the repair crew, kernel Xid lines, the scontrol face and
 * its Slurm wording, requeue with exclusions, IB sysfs dumps, and the rates
 * of garbled lines and faults.
 */
#include <ctype.h>
#include <stdlib.h>
#include "test.h"
#include "sim_fixture.h"

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
	CHECK(job != 0);   /* seed 3: gpu0006's GPU 4 is busy; its job ended NODE_FAIL and was requeued */
	int seen = 0;

	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.id == job) {
			seen++;
			CHECK(j.state == JOB_NODE_FAIL && j.restarts == 1);
		}
	}
	CHECK_INT(seen, 1);
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
	CHECK(other != 0);
	CHECK_INT(sim_signal(s, other, 9, err, sizeof err), 0);
	run(s, NULL, 1);
	int seen = 0;

	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.id == other) {
			seen++;
			CHECK_INT(j.state, JOB_CANCELLED);
		}
	}
	CHECK_INT(seen, 1);
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
	int seen = 0;

	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		sim_test_job(s, i, &j);
		if (j.id == id) {
			seen++;
			CHECK_INT(j.nexcl, nexcl);
			CHECK_INT(j.restarts, 1);
		}
	}
	CHECK_INT(seen, 1);
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
