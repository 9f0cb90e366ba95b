/*
 * test_app.c - the whole path in one process: the embedded simulator prints
 * real formats, streams parse them, the bus folds them into the model.
 * Determinism of the fold, conservation laws, parse errors as faults, and
 * actions through the simulator backend coming back as scheduler state.
 */
#include <string.h>
#include "test.h"
#include "myriad.h"
#include "action/action.h"
#include "stream.h"
#include "sim/sim.h"

static void run_sim(struct myriad *app, const char *spec, int ticks)
{
	char *err = NULL;

	app_init(app);
	if (app_add_source(app, "sim", spec, &err) < 0) {
		fprintf(stderr, "  sim: %s\n", err);
		free(err);
		test_failures++;
		return;
	}
	for (int i = 0; i < ticks; i++)
		app_tick(app);
}

TEST(app_same_seed_same_hash_other_seed_differs)
{
	struct myriad a, b, c;

	run_sim(&a, "gpus=512,seed=3,accel=2000", 90);
	run_sim(&b, "gpus=512,seed=3,accel=2000", 90);
	run_sim(&c, "gpus=512,seed=4,accel=2000", 90);
	CHECK(model_hash(&a.model) == model_hash(&b.model));
	CHECK(model_hash(&a.model) != model_hash(&c.model));
	CHECK_INT(a.model.tick, 90);
	CHECK(a.model.time == a.model.start_time + 90 * US_PER_SEC);
	app_free(&a);
	app_free(&b);
	app_free(&c);
}

static int popcount(uint32_t x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

TEST(app_conservation_gpus_jobs_power)
{
	struct myriad app;
	const struct model *m = &app.model;
	int32_t claimed = 0, held = 0, samples = 0;

	run_sim(&app, "gpus=2048,seed=7,accel=500", 120);
	CHECK_INT(m->ngpus, 2048);
	CHECK_INT(m->nnodes, 256);
	CHECK_INT(m->topo.sus, 8);
	/* every GPU belongs to exactly one node: indexes are dense and disjoint */
	for (int32_t i = 0; i < m->nnodes; i++)
		CHECK_INT(m->nodes[i].gpus, 8);
	/* a busy GPU belongs to exactly one running job, and that job lists its node */
	for (int32_t g = 0; g < m->ngpus; g++) {
		int32_t j = m->gpu_job[g];

		if (m->met[MET_UTIL][g] != MET_UNKNOWN)
			samples++;
		if (j < 0)
			continue;
		claimed++;
		const struct job *jb = &m->jobs[j];
		int found = 0;

		CHECK(jb->id != 0);
		for (int32_t k = 0; k < jb->nnodes; k++)
			found |= jb->node_idx[k] == g / m->gpus_per_node;
		CHECK(found);
	}
	for (int32_t i = 0; i < m->njobs; i++)
		if (m->jobs[i].id && m->jobs[i].state == JOB_RUNNING)
			held += m->jobs[i].nnodes * popcount(m->jobs[i].gpu_mask ? m->jobs[i].gpu_mask : 0xff);
	CHECK_INT(claimed, held);          /* no GPU claimed twice */
	CHECK(claimed > m->ngpus / 2);     /* the simulator keeps the cluster busy */
	CHECK(samples > m->ngpus * 9 / 10);
	CHECK(m->fac.known);
	CHECK_NEAR(m->fac.pue, m->fac.facility_kw / m->fac.it_kw, 1e-9);
	CHECK(m->fac.pue > 1.0 && m->fac.pue < 1.4);
	app_free(&app);
}

TEST(app_malformed_lines_become_parse_faults_not_crashes)
{
	struct myriad app;
	struct stream st;
	static const char junk[] =
		"0, GPU-1, 00000000:18:00.0, 100\n"                    /* too few fields */
		"\0\0\0garbage\xff\xfe\n"                              /* NULs and bytes */
		"9, GPU-x, 00000000:18:00.0, 1, 1, 1, 1, 1.00, 700.00, 1, 0, 0x0\n";   /* index 9 */
	uint64_t before;

	run_sim(&app, "gpus=64,seed=1", 2);
	before = model_hash(&app.model);
	stream_init(&st, &app.bus, &app.model, 5, FMT_NVSMI, "test");
	stream_feed(&st, junk, sizeof junk - 1, app.now);
	char big[10000];

	memset(big, 'A', sizeof big);
	stream_feed(&st, big, sizeof big, app.now);   /* one line longer than the limit */
	stream_feed(&st, "\n", 1, app.now);
	bus_flush(&app.bus);
	CHECK_INT(st.rejected, 4);
	CHECK_INT(app.model.nodes[5].parse_errors, 4);
	CHECK(model_hash(&app.model) != before);
	int found = 0;

	for (int32_t i = 0; i < app.model.nfaults; i++)
		if (app.model.faults[i].kind == FK_PARSE && app.model.faults[i].node == 5)
			found = (int)app.model.faults[i].count;
	CHECK_INT(found, 4);
	/* the node's GPUs still hold their last good values */
	CHECK(app.model.met[MET_UTIL][model_gpu(&app.model, 5, 0)] != MET_UNKNOWN);
	stream_free(&st);
	app_free(&app);
}

static int act_on(struct myriad *app, enum action_kind kind, const int32_t *nodes, int32_t n,
		  struct action_outcome *o)
{
	struct action a = {.kind = kind, .source = "test", .who = "ops", .nodes = nodes, .nnodes = n,
			   .reason = "xid79 gpu3 test", .target = "t", .args = ""};

	return action_submit(app, &a, o, NULL, NULL);
}

TEST(app_drain_through_backend_comes_back_as_node_state)
{
	struct myriad app;
	struct action_outcome o;
	int32_t three = 3, four[2] = {4, 3};

	run_sim(&app, "gpus=256,seed=2", 3);
	CHECK(app.backend != NULL);
	CHECK_INT(act_on(&app, AK_DRAIN, &three, 1, &o), 0);
	CHECK_INT(o.status, AS_DONE);   /* the simulator answers at once */
	for (int i = 0; i < 6; i++)   /* sinfo is polled every 5 s */
		clock_tick(&app);
	CHECK(node_is_drained(&app.model.nodes[3]));
	CHECK_STR(app.model.nodes[3].reason, "xid79 gpu3 test");
	CHECK_INT(act_on(&app, AK_RESUME, four, 1, &o), -1);   /* gpu0005 is not drained */
	CHECK_INT(o.status, AS_FAILED);
	CHECK(strstr(o.detail, "Invalid node state") != NULL);
	CHECK_INT(act_on(&app, AK_RESUME, four, 2, &o), 0);    /* one of two: partial */
	CHECK_INT(o.status, AS_PARTIAL);
	CHECK_INT(o.failed, 1);
	for (int i = 0; i < 6; i++)
		clock_tick(&app);
	CHECK(!node_is_drained(&app.model.nodes[3]));
	app_free(&app);
}
