/*
 * test_slurm_doc.c - the Slurm documents read as they arrive (src/probe/
 * slurm_doc.c, jtape.c) against the reference, jansson on the whole
 * document (slurm_ref.c, the parser as it was): for every fixture of
 * tests/data, the simulator's documents, and thousands of documents made
 * bad or odd from them (cut, bytes changed, keys doubled, escapes, deep
 * nesting, numbers at the edges of int64 and double, bytes that are not
 * UTF-8), whole and in pieces of every size: the same records, the same
 * count of rejected ones, and an error (the same words) for the same
 * documents.
 */
#include <stdlib.h>
#include "test.h"
#include "slurm_ref.h"
#include "util.h"
#include "sim/sim.h"
#include "probe/jtape.h"

/* Fed in pieces of `piece` bytes (0: whole) through slurm_doc_more. */
static void ours_of(int jobs, const char *s, size_t n, size_t piece, struct slurm_got *g)
{
	struct slurm_doc *d = slurm_doc_new(jobs);
	struct sbuf buf = {0};

	memset(g, 0, sizeof *g);
	g->bad = -7;
	for (size_t off = 0; piece && off < n; off += piece) {
		sbuf_add(&buf, s + off, MIN(piece, n - off));   /* the buffer moves as it grows */
		slurm_doc_more(d, buf.s, buf.len);
	}
	g->rc = slurm_doc_end(d, piece ? (buf.s ? buf.s : "") : s, piece ? buf.len : n, jobs ? NULL : slurm_got_node,
			      jobs ? slurm_got_job : NULL, &g->recs, &g->bad, &g->err);
	slurm_doc_free(d);
	sbuf_free(&buf);
}

static int fails;

/* Both readers on doc; 0 when they agree. */
static int agree(int jobs, const char *s, size_t n, size_t piece, const char *what)
{
	struct slurm_got a, b;
	int same;

	slurm_got_ref(jobs, s, n, &a);
	ours_of(jobs, s, n, piece, &b);
	same = slurm_got_same(&a, &b);
	if (!same && fails++ < 8) {
		fprintf(stderr, "  %s (%s, %zu bytes, pieces of %zu): reference rc %d bad %d err %s; ours rc %d bad %d err %s\n",
			what, jobs ? "jobs" : "nodes", n, piece, a.rc, a.bad, a.err ? a.err : "-", b.rc, b.bad,
			b.err ? b.err : "-");
		fprintf(stderr, "    %.*s\n", (int)MIN(n, 300), s);
	}
	slurm_got_free(&a);
	slurm_got_free(&b);
	return same ? 0 : -1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char chunk[4096];
	size_t k;

	if (!f)
		return NULL;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, k);
	fclose(f);
	*len = b.len;
	return b.s;
}

static const char *const fixtures[] = {
	"tests/data/sinfo-22.05.json", "tests/data/sinfo-24.11.json", "tests/data/nodes-23.11.json",
	"tests/data/sinfo-bad-records.json", "tests/data/squeue-22.05.json", "tests/data/squeue-24.11.json",
	"tests/data/squeue-22.05-notres.json", "tests/data/squeue-22.05-notres-live.json",
	"tests/data/squeue-23.11-notres.json", "tests/data/squeue-24.11-notres.json",
	"tests/data/squeue-bad-records.json", "tests/data/squeue-hostile.json", "tests/data/facility.json",
};

TEST(slurm_doc_fixtures_whole_and_in_pieces)
{
	static const size_t pieces[] = {0, 1, 2, 3, 7, 64, 1000, 4096};

	fails = 0;
	for (size_t f = 0; f < ARRAY_LEN(fixtures); f++) {
		size_t n;
		char *s = slurp(fixtures[f], &n);

		CHECK(s != NULL);
		for (size_t p = 0; s && p < ARRAY_LEN(pieces); p++)
			for (int jobs = 0; jobs < 2; jobs++)
				CHECK_INT(agree(jobs, s, n, pieces[p], fixtures[f]), 0);
		free(s);
	}
}

struct docs {
	struct sbuf doc[SIM_STREAM_COUNT];
};

static void capture(void *ctx, enum sim_stream st, int32_t node, const char *buf, size_t n)
{
	(void)node;
	sbuf_add(&((struct docs *)ctx)->doc[st], buf, n);
}

TEST(slurm_doc_simulator_documents)
{
	struct sim_spec spec;
	struct sim *sim;
	struct docs d = {0};
	struct sim_sink sink = {&d, capture};
	char *err = NULL;

	sim_spec_default(&spec);
	CHECK_INT(sim_spec_parse(&spec, "gpus=1024,seed=5,accel=2000", &err), 0);
	sim = sim_new(&spec);
	for (int i = 0; i < 300; i++)
		sim_step(sim, NULL);   /* drains, faults and a queue to print */
	sim_print_service(sim, SIM_SINFO, &sink);
	sim_print_service(sim, SIM_SQUEUE, &sink);
	fails = 0;
	CHECK_INT(agree(0, d.doc[SIM_SINFO].s, d.doc[SIM_SINFO].len, 0, "sim sinfo"), 0);
	CHECK_INT(agree(0, d.doc[SIM_SINFO].s, d.doc[SIM_SINFO].len, 32768, "sim sinfo"), 0);
	CHECK_INT(agree(1, d.doc[SIM_SQUEUE].s, d.doc[SIM_SQUEUE].len, 0, "sim squeue"), 0);
	CHECK_INT(agree(1, d.doc[SIM_SQUEUE].s, d.doc[SIM_SQUEUE].len, 1500, "sim squeue"), 0);
	for (int i = 0; i < SIM_STREAM_COUNT; i++)
		sbuf_free(&d.doc[i]);
	sim_free(sim);
	free(err);
}

/* Hand-written edges of JSON itself, around a node and a job record. */
TEST(slurm_doc_json_edges)
{
	static const char *const node[] = {
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"name\":\"gpu2\"}]}",
		"{\"nodes\":[{\"name\":\"gp\\u0075\\u00e9\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"n\\u0061me\":\"x\",\"name\":\"y\",\"state\":\"idle\"}]}",
		"{\"n\\u006fdes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"a\\u0000b\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\\ud83d\\ude00\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\\ud83d\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\\ude00\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\\ud83dx\\ude00\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\\x41\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\\u12g4\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"tab\there\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\xc3\xa9\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\xc0\xaf\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\xed\xa0\x80\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\xf4\x90\x80\x80\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\xf0\x9f\x98\x80\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\xe2\x82\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"\x7f\",\"state\":\"idle\"}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":9223372036854775807}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":9223372036854775808}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":-9223372036854775808}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":-9223372036854775809}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":1e999}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":-1e999}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":1e-999}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":1.5}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":01}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":-0}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":1.}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":.5}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":+1}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":1E+2}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"reason_changed_at\":{\"set\":true,\"number\":5}}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"x\":tru}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"x\":truex}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",\"x\":nul}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"},]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\",}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}],}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}]}x",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}]} \n\t",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}]}{}",
		"{\"nodes\":[],\"nodes\":[]}",
		"{\"nodes\":{},\"sinfo\":[]}",
		"{\"nodes\":5}",
		"{\"sinfo\":[],\"nodes\":[{\"name\":\"a\",\"state\":\"idle\"}]}",
		"{\"meta\":{\"a\":1,\"a\":2},\"nodes\":[]}",
		"{\"meta\":{\"\\u0061\":1,\"a\":2},\"nodes\":[]}",
		"[]", "{}", "", " ", "null", "\"nodes\"", "{\"nodes\":[1,\"x\",null,[],{}]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":\"idle\"}]", "{\"nodes\"", "{\"nodes\":", "{",
		"\xef\xbb\xbf{\"nodes\":[]}",
		"{\"nodes\":[{\"name\":\"gpu1\",\"state\":[\"IDLE\",\"DRAIN\"],\"gres\":\"gpu:8\"}]}",
	};
	static const char *const job[] = {
		"{\"jobs\":[{\"job_id\":1,\"job_state\":\"RUNNING\"}]}",
		"{\"jobs\":[{\"job_id\":1,\"job_state\":[\"RUNNING\"],\"nodes\":\"gpu[1-2]\",\"gres_detail\":[\"gpu:8(IDX:0-7)\"]}]}",
		"{\"jobs\":[{\"job_id\":4294967296,\"job_state\":\"RUNNING\"}]}",
		"{\"jobs\":[{\"job_id\":{\"set\":false,\"number\":3},\"job_state\":\"RUNNING\"}]}",
		"{\"jobs\":[{\"job_id\":1,\"job_state\":\"RUNNING\",\"name\":\"\\u001b[31m\"}]}",
		"{\"jobs\":[{\"job_id\":1,\"job_state\":\"RUNNING\"},{\"job_id\":1,\"job_state\":\"RUNNING\"}]}",
		"{\"jobs\":[{\"job_id\":1,\"job_state\":\"RUNNING\",\"job_id\":2}]}",
		"{\"jobs\":[]}", "{\"jobs\":null}", "{\"nodes\":[]}", "{\"jobs\":[],\"jobs\":[]}",
	};
	char deep[3 * JT_MAX_DEPTH + 64];
	int failures = 0;

	fails = 0;
	for (size_t i = 0; i < ARRAY_LEN(node); i++)
		for (size_t p = 0; p < 4; p++) {
			failures += agree(0, node[i], strlen(node[i]), p * 3, "edge") < 0;
			failures += agree(1, node[i], strlen(node[i]), p * 3, "edge") < 0;
		}
	for (size_t i = 0; i < ARRAY_LEN(job); i++)
		for (size_t p = 0; p < 4; p++)
			failures += agree(1, job[i], strlen(job[i]), p * 5, "edge") < 0;
	/* nesting: jansson allows 2048 values deep, counting scalars */
	for (int depth = 2040; depth <= 2050; depth++) {
		size_t n = 0;

		n += (size_t)snprintf(deep + n, sizeof deep - n, "{\"nodes\":[],\"x\":");
		for (int k = 2; k < depth; k++)
			deep[n++] = '[';
		deep[n++] = '1';
		for (int k = 2; k < depth; k++)
			deep[n++] = ']';
		deep[n++] = '}';
		failures += agree(0, deep, n, 0, "deep") < 0;
		failures += agree(0, deep, n, 100, "deep") < 0;
	}
	CHECK_INT(failures, 0);
}

/* Cut, changed and spliced documents made from the fixtures. */
TEST(slurm_doc_mutations)
{
	static const char *const inserts[] = {
		",", "]", "}", "{", "[", "\"", "\\", "\\u0000", "\\ud800", "\xff", "\xc3", "\x01", " ", "0", "-",
		"1e999", "9223372036854775808", "null", "\"name\":\"x\",", "\"state\":\"idle\",", "[[[[",
		"\"job_id\":7,",
	};
	struct rng r;
	int failures = 0;

	rng_seed(&r, 42);
	fails = 0;
	for (size_t f = 0; f < ARRAY_LEN(fixtures); f++) {
		size_t n;
		char *s = slurp(fixtures[f], &n);

		if (!s)
			continue;
		for (int k = 0; k < 300; k++) {
			struct sbuf m = {0};
			size_t at = rng_below(&r, (uint32_t)n + 1), cut = at;

			switch (k % 4) {
			case 0:   /* cut short */
				sbuf_add(&m, s, at);
				break;
			case 1:   /* one byte changed */
				sbuf_add(&m, s, n);
				if (at < n)
					m.s[at] = (char)rng_below(&r, 256);
				break;
			case 2: { /* something inserted */
				const char *ins = inserts[rng_below(&r, ARRAY_LEN(inserts))];

				sbuf_add(&m, s, at);
				sbuf_adds(&m, ins);
				sbuf_add(&m, s + at, n - at);
				break;
			}
			default:  /* a stretch dropped */
				cut = at + rng_below(&r, 40);
				cut = MIN(n, cut);
				sbuf_add(&m, s, at);
				sbuf_add(&m, s + cut, n - cut);
			}
			size_t piece = k % 3 ? 1 + rng_below(&r, 700) : 0;

			failures += agree(0, m.s ? m.s : "", m.len, piece, fixtures[f]) < 0;
			failures += agree(1, m.s ? m.s : "", m.len, piece, fixtures[f]) < 0;
			sbuf_free(&m);
		}
		free(s);
	}
	CHECK_INT(failures, 0);
}
