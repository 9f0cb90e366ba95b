/*
 * test_parse_docs.c - unit tests of the document parsers in src/probe/
 * (Slurm sinfo/squeue JSON of 22.05 and newer, the facility meter's JSON)
 * and of `myriad parse`, with fixtures from tests/data/ (tests run from the
 * repo root) and hostile input.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "probe/parse.h"
#include "util.h"

#define L(s) (s), (sizeof(s) - 1)
/* a line of the default query (as in test_parse.c) */
#define DEF_LINE                                                                            \
	"3, GPU-927d7444-b45a-7c49-8402-5e686e46a026, 00000000:5D:00.0, 87, 40000, "       \
	"81559, 61, 512.34, 700.00, 1755, 0, 0x0000000000000040"

/* ---- Slurm ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char chunk[4096];
	size_t k;

	if (!f) {
		fprintf(stderr, "  cannot open %s (run from the repo root)\n", path);
		return NULL;
	}
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, k);
	fclose(f);
	*len = b.len;
	return b.s;
}

struct nodes {
	int n;
	struct slurm_node_rec r[16];
};

static void on_node(void *ctx, const struct slurm_node_rec *r)
{
	struct nodes *c = ctx;

	if (c->n < 16)
		c->r[c->n] = *r;
	c->n++;
}

struct jobs {
	int n;
	struct slurm_job_rec r[8];
};

static void on_job(void *ctx, const struct slurm_job_rec *r)
{
	struct jobs *c = ctx;

	if (c->n < 8)
		c->r[c->n] = *r;
	c->n++;
}

static int nodes_of(const char *s, size_t n, struct nodes *c, int *bad)
{
	char *err = NULL;
	int rc;

	memset(c, 0, sizeof *c);
	rc = slurm_parse_nodes(s, n, on_node, c, bad, &err);
	CHECK((rc < 0) == (err != NULL));
	free(err);
	return rc;
}

static int jobs_of(const char *s, size_t n, struct jobs *c, int *bad)
{
	char *err = NULL;
	int rc;

	memset(c, 0, sizeof *c);
	rc = slurm_parse_jobs(s, n, on_job, c, bad, &err);
	CHECK((rc < 0) == (err != NULL));
	free(err);
	return rc;
}

struct node_want {
	const char *name;
	int base;
	uint32_t flags;
	int gpus, used;
	const char *reason, *who;
	int64_t time;   /* seconds */
};

static void check_nodes(const char *path, const struct node_want *w, int n)
{
	size_t len;
	char *doc = slurp(path, &len);
	struct nodes c;
	int bad = -1;

	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(nodes_of(doc, len, &c, &bad), n);
	CHECK_INT(bad, 0);
	for (int i = 0; i < n && i < c.n; i++) {
		CHECK_STR(c.r[i].name, w[i].name);
		CHECK_INT(c.r[i].base, w[i].base);
		CHECK_INT(c.r[i].flags, w[i].flags);
		CHECK_INT(c.r[i].gpus, w[i].gpus);
		CHECK_INT(c.r[i].gpus_used, w[i].used);
		CHECK_STR(c.r[i].reason, w[i].reason);
		CHECK_STR(c.r[i].reason_who, w[i].who);
		CHECK_INT(c.r[i].reason_time, w[i].time * US_PER_SEC);
	}
	free(doc);
}

TEST(slurm_sinfo_22_05)
{
	static const struct node_want w[] = {
		{"gpu0001", NODE_ALLOC, 0, 8, 8, "", "", 0},
		{"gpu0002", NODE_MIXED, 0, 8, 2, "", "", 0},
		{"gpu0003", NODE_IDLE, NODE_F_DRAIN, 8, 0, "xid79 gpu3 fallen-off-bus", "ops", 1786418062},
		{"gpu0004", NODE_DOWN, NODE_F_NOT_RESPONDING, 8, 0, "Not responding", "slurm", 1786410000},
		{"gpu0005", NODE_MIXED, NODE_F_DRAIN, 8, 4, "hc dcgmi-diag-r2 fail gpu0", "root", 1786399200},
		{"gpu0006", NODE_IDLE, NODE_F_MAINT, 8, 0, "", "", 0},
	};

	check_nodes("tests/data/sinfo-22.05.json", w, (int)ARRAY_LEN(w));
}

TEST(slurm_sinfo_newer)
{
	static const struct node_want w24[] = {
		{"gpu0001", NODE_ALLOC, 0, 8, 8, "", "", 0},
		{"gpu0003", NODE_IDLE, NODE_F_DRAIN, 8, 0, "xid79 gpu3 fallen-off-bus", "ops", 1786418062},
		{"gpu0004", NODE_DOWN, NODE_F_NOT_RESPONDING, 8, 0, "Not responding", "slurm", 1786410000},
		{"gpu0005", NODE_IDLE, 0, 8, 0, "", "", 0},
		{"gpu0006", NODE_IDLE, 0, 8, 0, "", "", 0},
	};
	static const struct node_want w23[] = {
		{"gpu0001", NODE_MIXED, NODE_F_DRAIN | NODE_F_REBOOT, 8, 8, "rma pending", "ops", 1786418062},
	};

	check_nodes("tests/data/sinfo-24.11.json", w24, (int)ARRAY_LEN(w24));
	check_nodes("tests/data/nodes-23.11.json", w23, (int)ARRAY_LEN(w23));
}

TEST(slurm_squeue_22_05_and_newer)
{
	size_t len;
	char *doc = slurp("tests/data/squeue-22.05.json", &len);
	struct jobs c;
	int bad = -1;

	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(jobs_of(doc, len, &c, &bad), 5);
	CHECK_INT(bad, 0);
	CHECK_INT(c.r[0].id, 4711);
	CHECK_INT(c.r[0].state, JOB_RUNNING);
	CHECK_STR(c.r[0].name, "llama-70b-pretrain");
	CHECK_STR(c.r[0].user, "alice");
	CHECK_STR(c.r[0].partition, "gpu");
	CHECK_STR(c.r[0].nodes, "gpu[0001-0004]");
	CHECK_INT(c.r[0].gpus, 32);
	CHECK_INT(c.r[0].gpu_mask, 0xff);
	CHECK_INT(c.r[0].submit_time, 1786399200LL * US_PER_SEC);
	CHECK_INT(c.r[0].start_time, 1786399260LL * US_PER_SEC);
	CHECK_INT(c.r[1].state, JOB_PENDING);
	CHECK_STR(c.r[1].nodes, "");
	CHECK_INT(c.r[1].gpus, 8);   /* from tres_req_str */
	CHECK_INT(c.r[1].start_time, 0);
	CHECK_INT(c.r[2].gpu_mask, 0x9);
	CHECK_INT(c.r[3].state, JOB_COMPLETING);
	CHECK_INT(c.r[3].gpu_mask, 0x33);
	CHECK_INT(c.r[3].gpus, 4);   /* typed only: gres/gpu:h100=4 */
	/* hostile name: unchanged, bytes and all (sanitising is the screen's job) */
	CHECK_STR(c.r[3].name, "\x1b]0;pwned\x07\x1b[31mred\"quote\\");
	CHECK_INT(c.r[4].state, JOB_RUNNING);   /* CONFIGURING */
	free(doc);
	doc = slurp("tests/data/squeue-24.11.json", &len);
	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(jobs_of(doc, len, &c, &bad), 3);
	CHECK_INT(bad, 0);
	CHECK_INT(c.r[0].state, JOB_RUNNING);
	CHECK_INT(c.r[0].submit_time, 1786399200LL * US_PER_SEC);
	CHECK_INT(c.r[0].gpu_mask, 0xff);
	CHECK_INT(c.r[1].start_time, 0);
	CHECK_INT(c.r[2].state, JOB_COMPLETING);
	free(doc);
}

TEST(slurm_bad_documents)
{
	static const char *const docs[] = {
		"", "not json", "[]", "{\"nodes\": 5}", "{\"jobs\": []}", "{\"nodes\": [}", "null",
		"{\"nodes\": [], \"nodes\": []}",
	};
	struct nodes n;
	struct jobs j;
	char *err = NULL;
	int bad;

	for (unsigned i = 0; i < ARRAY_LEN(docs); i++)
		CHECK_INT(nodes_of(docs[i], strlen(docs[i]), &n, &bad), -1);
	CHECK_INT(jobs_of(L("{\"nodes\": []}"), &j, &bad), -1);
	CHECK_INT(jobs_of(L("{\"jobs\": [] } trailing"), &j, &bad), -1);
	CHECK_INT(slurm_parse_nodes(NULL, 0, on_node, &n, NULL, &err), -1);
	free(err);
	CHECK_INT(nodes_of(L("{\"nodes\": []}"), &n, &bad), 0);
	CHECK_INT(nodes_of(L("{\"nodes\": [{\"name\": \"a\", \"state\": \"idle\"}]}\0junk"), &n, &bad), -1);
}

TEST(slurm_bad_records_skipped)
{
	size_t nl, jl;
	char *nodes = slurp("tests/data/sinfo-bad-records.json", &nl);
	char *jobs = slurp("tests/data/squeue-bad-records.json", &jl);
	struct nodes n;
	struct jobs j;
	int bad;

	CHECK(nodes && jobs);
	if (!nodes || !jobs)
		return;
	CHECK_INT(nodes_of(nodes, nl, &n, &bad), 2);
	CHECK_INT(bad, 12);
	CHECK_INT(n.r[0].gpus, 8);
	CHECK_INT(n.r[0].gpus_used, 0);
	CHECK_STR(n.r[1].name, "gpu0007");
	CHECK_INT(n.r[1].flags, NODE_F_DRAIN | NODE_F_NOT_RESPONDING);
	CHECK_INT(n.r[1].gpus, -1);   /* a GPU entry without a count: unknown */
	CHECK_INT(n.r[1].gpus_used, -1);

	char *long_nodes = xmalloc(2048);
	int k = snprintf(long_nodes, 2048, "{\"jobs\": [{\"job_id\": 12, \"job_state\": \"RUNNING\", "
			 "\"nodes\": \"");

	memset(long_nodes + k, 'n', 1100);
	snprintf(long_nodes + k + 1100, 2048 - (size_t)k - 1100, "\"}]}");
	CHECK_INT(jobs_of(long_nodes, strlen(long_nodes), &j, &bad), 0);
	CHECK_INT(bad, 1);
	free(long_nodes);

	CHECK_INT(jobs_of(jobs, jl, &j, &bad), 2);
	CHECK_INT(bad, 8);
	CHECK_INT(j.r[0].id, 1);
	CHECK_INT(j.r[0].gpu_mask, 0);    /* index 40 does not fit: unknown */
	CHECK_INT(j.r[0].gpus, 8);        /* the count is still readable */
	CHECK_INT(j.r[1].id, 11);
	CHECK_INT(j.r[1].state, JOB_PENDING);
	CHECK_INT(j.r[1].submit_time, 0);
	free(nodes);
	free(jobs);
}

TEST(slurm_gres_masks)
{
	static const struct {
		const char *detail;
		uint32_t mask;
	} cases[] = {
		{"gpu:8(IDX:0-7)", 0xff}, {"gpu:2(IDX:0,3)", 0x9}, {"gpu:4(IDX:0-1,4-5)", 0x33},
		{"gpu:h100:1(IDX:7)", 0x80}, {"gpu:0(IDX:N/A)", 0}, {"gpu:2(IDX:3-1)", 0},
		{"gpu:2(IDX:0-", 0}, {"gpu:1(IDX:31)", 0x80000000u}, {"gpu:1(IDX:32)", 0},
		{"gpu:1(IDX:0-4294967295)", 0}, {"tmpsize:7T", 0}, {"gpu:8", 0},
	};
	char doc[256];
	struct jobs j;
	int bad;

	for (unsigned i = 0; i < ARRAY_LEN(cases); i++) {
		int n = snprintf(doc, sizeof doc, "{\"jobs\": [{\"job_id\": 1, \"job_state\": \"RUNNING\", "
				 "\"gres_detail\": [\"%s\"]}]}", cases[i].detail);

		CHECK_INT(jobs_of(doc, (size_t)n, &j, &bad), 1);
		CHECK_INT(j.r[0].gpu_mask, cases[i].mask);
	}
}

/* ---- GPUs of jobs where the TRES strings lack gres/gpu ----
 * The *-notres fixtures are clusters without AccountingStorageTRES=gres/gpu
 * (see tests/data/README); the inline jobs are the cases no Slurm prints. */

#define NOTRES22 "tests/data/squeue-22.05-notres.json"
#define NOTRES23 "tests/data/squeue-23.11-notres.json"
#define NOTRES24 "tests/data/squeue-24.11-notres.json"

/* The GPU count the parser gives job `id` of a fixture; -2 if it is not there. */
static int fixture_gpus(const char *path, uint32_t id)
{
	size_t len;
	char *doc = slurp(path, &len);
	struct jobs c;
	int bad = -1, gpus = -2;

	CHECK(doc != NULL);
	if (!doc)
		return -2;
	CHECK(jobs_of(doc, len, &c, &bad) > 0);
	CHECK_INT(bad, 0);
	for (int i = 0; i < c.n && i < 8; i++)
		if (c.r[i].id == id)
			gpus = c.r[i].gpus;
	free(doc);
	return gpus;
}

/* The GPU count of a document holding the one job `job` (its JSON object). */
static int job_gpus(const char *job)
{
	char doc[1024];
	struct jobs c;
	int bad = -1, n = snprintf(doc, sizeof doc, "{\"jobs\": [%s]}", job);

	CHECK_INT(jobs_of(doc, (size_t)n, &c, &bad), 1);
	CHECK_INT(bad, 0);
	return c.n == 1 ? c.r[0].gpus : -2;
}

TEST(slurm_jobs_gpus_gres_detail_only)
{
	CHECK_INT(fixture_gpus(NOTRES22, 5101), 12);   /* 8 + 4 over its two nodes */
	CHECK_INT(fixture_gpus(NOTRES23, 5201), 8);
	CHECK_INT(fixture_gpus(NOTRES24, 5301), 8);
	/* a GRES without device files: "NAME(CNT:N)" */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"RUNNING\", "
			   "\"gres_detail\": [\"gpu(CNT:2)\", \"gpu:h100(CNT:2),tmpdisk(CNT:100)\"]}"), 4);
}

TEST(slurm_jobs_gpus_tres_per_node)
{
	CHECK_INT(fixture_gpus(NOTRES22, 5102), 8);   /* "gres:gpu:4" x node_count 2 */
	CHECK_INT(fixture_gpus(NOTRES23, 5202), 8);   /* "gres/gpu:4" x {"number": 2} */
	CHECK_INT(fixture_gpus(NOTRES24, 5302), 8);
	CHECK_INT(fixture_gpus(NOTRES23, 5206), 6);   /* typed: "gres/gpu:h100:2" x 3 */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"PENDING\", \"node_count\": 2, "
			   "\"tres_per_node\": \"gres/gpu=8\"}"), 16);
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"PENDING\", \"node_count\": 2, "
			   "\"tres_per_node\": \"gres:gpu,gres:tmpdisk:100\"}"), 2);   /* no count: 1 */
	/* the TRES strings come first: Slurm's own totals */
	CHECK_INT(fixture_gpus("tests/data/squeue-22.05.json", 4712), 8);
	CHECK_INT(fixture_gpus("tests/data/squeue-22.05.json", 4713), 2);
}

TEST(slurm_jobs_gpus_tres_per_job)
{
	CHECK_INT(fixture_gpus(NOTRES22, 5103), 16);   /* "gres:gpu:16" */
	CHECK_INT(fixture_gpus(NOTRES23, 5203), 16);   /* "gres/gpu:16" */
	CHECK_INT(fixture_gpus(NOTRES24, 5303), 16);
}

TEST(slurm_jobs_gpus_tres_per_task)
{
	CHECK_INT(fixture_gpus(NOTRES22, 5104), 4);   /* "gres:gpu:1" x tasks 4 */
	CHECK_INT(fixture_gpus(NOTRES23, 5204), 4);   /* "cpu:8,gres/gpu:1" x 4 */
	CHECK_INT(fixture_gpus(NOTRES24, 5304), 8);   /* "cpu=4,gres/gpu=1" x 8 */
	CHECK_INT(fixture_gpus(NOTRES22, 5106), 4);   /* per socket: 2 x 2 sockets x 1 node */
}

/* A real 22.05.8 `squeue --json` of the test cluster (tests/lib/slurm_cluster.tcl,
 * AccountingStorageType=none, gpu:4 on 2 nodes); jobs by id. */
TEST(slurm_jobs_gpus_live_22_05)
{
	static const int want[] = {8, 0, 6, 4, 2, 4, 0};   /* jobs 1..7 */

	for (unsigned i = 0; i < ARRAY_LEN(want); i++)
		CHECK_INT(fixture_gpus("tests/data/squeue-22.05-notres-live.json", i + 1), want[i]);
}

TEST(slurm_jobs_gpus_unknown)
{
	/* nothing says: pending, TRES without gres/gpu, no tres_per_* fields */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"PENDING\", \"gres_detail\": [], "
			   "\"tres_req_str\": \"cpu=1,mem=4G,node=1,billing=1\", \"tres_alloc_str\": \"\"}"), -1);
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"RUNNING\", "
			   "\"tres_alloc_str\": \"cpu=8,mem=8G,node=1,billing=8\"}"), -1);
	/* some tres_per_* fields only */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"PENDING\", \"tres_per_node\": \"\", "
			   "\"tres_per_job\": \"\", \"tres_req_str\": \"cpu=1\"}"), -1);
	/* a GPU asked for, but not how many in all */
	CHECK_INT(fixture_gpus(NOTRES22, 5107), -1);   /* per task, "tasks": null */
	CHECK_INT(fixture_gpus(NOTRES24, 5306), -1);   /* per task, tasks not set */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"PENDING\", \"node_count\": 1, "
			   "\"tres_per_node\": \"gres/gpu:1k\", \"tres_per_job\": \"\", \"tres_per_socket\": \"\", "
			   "\"tres_per_task\": \"\"}"), -1);
	/* a finished job: Slurm prints no gres_detail for it */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"COMPLETING\", \"gres_detail\": []}"), -1);
}

TEST(slurm_jobs_gpus_cpu_only)
{
	/* every tres_per_* field there and none names a GPU */
	CHECK_INT(fixture_gpus(NOTRES22, 5105), 0);
	CHECK_INT(fixture_gpus(NOTRES23, 5205), 0);
	CHECK_INT(fixture_gpus(NOTRES24, 5305), 0);   /* "cpu=4" per task */
	/* running with a gres_detail that names no GPU */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"RUNNING\", \"gres_detail\": []}"), 0);
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": [\"SUSPENDED\"], "
			   "\"gres_detail\": [\"tmpdisk(CNT:100)\"]}"), 0);
	/* a TRES string that says 0 */
	CHECK_INT(job_gpus("{\"job_id\": 1, \"job_state\": \"RUNNING\", \"tres_alloc_str\": \"cpu=1,gres/gpu=0\"}"), 0);
}

/* ---- facility ---- */

TEST(facility_meter)
{
	size_t len;
	char *doc = slurp("tests/data/facility.json", &len), *err = NULL;
	struct ev_power p;

	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(facility_parse(doc, len, &p, &err), 0);
	CHECK_NEAR(p.facility_kw, 1234.5, 1e-9);
	CHECK_NEAR(p.it_kw, 1100.2, 1e-9);
	CHECK_NEAR(p.cooling_kw, 100.1, 1e-9);
	CHECK_NEAR(p.outside_c, 18.5, 1e-9);
	CHECK_NEAR(p.supply_c, 25.1, 1e-9);
	CHECK_NEAR(p.return_c, 41.3, 1e-9);
	CHECK_NEAR(p.flow_lpm, 1400.0, 1e-9);
	free(doc);
	CHECK_INT(facility_parse(L("{\"it_kw\": 900}"), &p, &err), 0);
	CHECK_NEAR(p.it_kw, 900, 1e-9);
	CHECK(isnan(p.facility_kw) && isnan(p.supply_c) && isnan(p.flow_lpm));
	static const char *const bad[] = {
		"", "[1]", "{\"it_kw\": \"900\"}", "{\"cdu\": 5}", "{\"it_kw\": -1}", "{\"it_kw\": 1e300}",
		"{\"cdu\": {\"flow_lpm\": true}}", "{\"it_kw\": NaN}",
	};
	for (unsigned i = 0; i < ARRAY_LEN(bad); i++) {
		err = NULL;
		CHECK_INT(facility_parse(bad[i], strlen(bad[i]), &p, &err), -1);
		CHECK(err != NULL);
		free(err);
	}
}

/* ---- myriad parse ---- */

struct captured {
	int rc;
	char *out, *errs;
};

static struct captured run_cli(const char *fmt, const char *input, size_t len)
{
	char in[] = "/tmp/myriad-test-parse-in-XXXXXX";
	char out[] = "/tmp/myriad-test-parse-out-XXXXXX";
	char errp[] = "/tmp/myriad-test-parse-err-XXXXXX";
	int fi = mkstemp(in), fo = mkstemp(out), fe = mkstemp(errp);
	int so = dup(1), se = dup(2);
	struct captured c;
	size_t n;

	CHECK(write(fi, input, len) == (ssize_t)len);
	close(fi);
	fflush(stdout);
	fflush(stderr);
	dup2(fo, 1);
	dup2(fe, 2);
	char *argv[] = {(char *)"parse", (char *)fmt, in, NULL};

	c.rc = parse_cli(3, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	c.out = slurp(out, &n);
	c.errs = slurp(errp, &n);
	unlink(in);
	unlink(out);
	unlink(errp);
	return c;
}

static void free_captured(struct captured *c)
{
	free(c->out);
	free(c->errs);
}

TEST(parse_cli_nvidia_smi)
{
	static const char input[] =
		DEF_LINE "\n"
		"\n"
		"1, GPU-b, 100, 19818, 81559, 59, 631.95, 700.00, 1980, 0, 0x0000000000000000\n"
		"index, utilization.gpu [%], power.draw [W]\n"
		"2, 50 %, [N/A]\n"
		"2, 500 %, [N/A]\n";
	struct captured c = run_cli("nvidia-smi", input, sizeof input - 1);

	CHECK_INT(c.rc, 1);
	CHECK(c.out && strstr(c.out, "\"index\":3,\"uuid\":\"GPU-927d7444-b45a-7c49-8402-5e686e46a026\","
			      "\"pci\":\"00000000:5D:00.0\",\"util\":87"));
	CHECK(c.out && strstr(c.out, "\"power\":512.34,\"power_limit\":700.00"));
	CHECK(c.out && strstr(c.out, "\"throttle\":64,\"name\":null}"));
	CHECK(c.out && strstr(c.out, "{\"index\":1,\"uuid\":\"GPU-b\",\"pci\":null,\"util\":100"));
	CHECK(c.out && strstr(c.out, "{\"index\":2,\"uuid\":null,\"pci\":null,\"util\":50,\"mem_used\":null"));
	CHECK(c.errs && strstr(c.errs, "myriad: parse: line 6: value out of range"));
	CHECK(c.errs && strstr(c.errs, "myriad: parse: 3 records, 1 rejected"));
	free_captured(&c);
}

TEST(parse_cli_lines_and_docs)
{
	struct sbuf in = {0};

	sbuf_adds(&in, "NVRM: Xid (PCI:0000:10:00): 79, pid=0, name=\x1b[2J\"x\", GPU has fallen off the bus.\n");
	sbuf_adds(&in, "random line\n");
	for (int i = 0; i < PARSE_LINE_MAX + 100; i++)
		sbuf_addc(&in, 'a');
	sbuf_adds(&in, "\nNVRM: Xid (PCI:0000:10:00): x\n");
	sbuf_add(&in, "NVRM: Xid (PCI:0000:10:00): 48\0\n", 32);
	sbuf_adds(&in, "2026-08-11T03:14:22+0000 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 48");
	struct captured c = run_cli("xid", in.s, in.len);

	CHECK_INT(c.rc, 1);
	CHECK(c.out && strstr(c.out, "{\"code\":79,\"pid\":0,\"pci\":\"0000:10:00\",\"host\":null,"
			      "\"name\":\"\\u001b[2J\\\"x\\\"\",\"time\":null,\"sxid\":false,"
			      "\"text\":\"GPU has fallen off the bus.\"}"));
	CHECK(c.out && strstr(c.out, "\"host\":\"gpu0007\",\"name\":null,\"time\":\"2026-08-11T03:14:22Z\""));
	CHECK(c.errs && strstr(c.errs, "line 3: line longer"));
	CHECK(c.errs && strstr(c.errs, "line 4: Xid without a numeric code"));
	CHECK(c.errs && strstr(c.errs, "line 5: NUL byte"));
	CHECK(c.errs && strstr(c.errs, "2 records, 3 rejected"));
	free_captured(&c);
	sbuf_free(&in);

	static const char ib[] = "/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:12\n"
				 "/sys/class/infiniband/mlx5_3/ports/1/state:4: ACTIVE\n"
				 "/sys/class/infiniband/mlx5_3/ports/1/rate:400 Gb/sec (4X NDR)\n";
	c = run_cli("ib-counters", ib, sizeof ib - 1);
	CHECK_INT(c.rc, 0);
	/* the node's only HCA is rail 0, whatever its name says */
	CHECK(c.out && strstr(c.out, "{\"dev\":\"mlx5_3\",\"port\":1,\"rail\":0,\"counter\":\"symbol_error\","
			      "\"value\":12}\n{\"dev\":\"mlx5_3\",\"port\":1,\"rail\":0,\"counter\":\"state\","
			      "\"state\":4}\n"));
	free_captured(&c);

	static const char jobs[] = "{\"jobs\": [{\"job_id\": 4711, \"job_state\": \"RUNNING\", "
				   "\"name\": \"a\\u001bb\", \"gres_detail\": [\"gpu:2(IDX:0,3)\"], "
				   "\"tres_alloc_str\": \"gres/gpu=2\", \"start_time\": 1786418062}, {\"job_id\": 0}]}";
	c = run_cli("slurm-jobs", jobs, sizeof jobs - 1);
	CHECK_INT(c.rc, 1);
	CHECK(c.out && strstr(c.out, "{\"id\":4711,\"state\":\"RUNNING\",\"name\":\"a\\u001bb\",\"user\":null,"
			      "\"partition\":null,\"nodes\":null,\"gpus\":2,\"gpu_mask\":9,\"submit_time\":null,"
			      "\"start_time\":\"2026-08-11T03:14:22Z\"}"));
	CHECK(c.errs && strstr(c.errs, "1 records, 1 rejected"));
	free_captured(&c);

	c = run_cli("slurm-nodes", L("{\"nodes\": [{\"name\": \"gpu0001\", \"state\": \"down\", "
				     "\"state_flags\": [\"DRAIN\", \"NOT_RESPONDING\"]}]}"));
	CHECK_INT(c.rc, 0);
	CHECK(c.out && strstr(c.out, "{\"name\":\"gpu0001\",\"base\":\"down\",\"flags\":[\"drain\","
			      "\"not_responding\"],\"reason\":null,\"reason_who\":null,\"reason_time\":null,"
			      "\"gpus\":null,\"gpus_used\":null}"));
	free_captured(&c);

	c = run_cli("facility", L("{\"it_kw\": 1100.25}"));
	CHECK_INT(c.rc, 0);
	CHECK(c.out && strstr(c.out, "{\"facility_kw\":null,\"it_kw\":1100.25,"));
	free_captured(&c);
	c = run_cli("facility", L("garbage"));
	CHECK_INT(c.rc, 1);
	free_captured(&c);
}

TEST(parse_cli_usage_and_missing_file)
{
	char *missing[] = {(char *)"parse", (char *)"xid", (char *)"/nonexistent/file", NULL};
	char *badfmt[] = {(char *)"parse", (char *)"yaml", NULL};
	int se = dup(2), dn = open("/dev/null", O_WRONLY);

	dup2(dn, 2);
	CHECK_INT(parse_cli(3, missing), 2);
	CHECK_INT(parse_cli(2, badfmt), 1);
	CHECK_INT(parse_cli(1, badfmt), 1);
	dup2(se, 2);
	close(se);
	close(dn);
}
