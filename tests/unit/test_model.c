/*
 * test_model.c - the model as a fold: determinism, the hash, jobs holding
 * GPUs, fault rules (open, fold, burst, close on resume, conditions that
 * clear), IB counter deltas and resets, parse errors.
 */
#include <string.h>
#include "test.h"
#include "model.h"
#include "fault.h"

#define T0 ((int64_t)1767225600 * US_PER_SEC)   /* 2026-01-01T00:00:00Z */

static struct event mk(enum ev_type t, int64_t sec)
{
	struct event e;

	memset(&e, 0, sizeof e);
	e.type = t;
	e.time = T0 + sec * US_PER_SEC;
	e.source = "test";
	return e;
}

/* A 64-node (2 SU) cluster with names gpu0001..gpu0064. */
static void inventory(struct model *m)
{
	struct event e = mk(EV_TOPOLOGY, 0);
	char name[16];

	e.u.topology = (struct ev_topology){2, 32, 8, 64, 512, "t"};
	model_apply(m, &e);
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof name, "gpu%04d", i + 1);
		e = mk(EV_NODE, 0);
		e.u.node = (struct ev_node){i, i / 32, i / 4, 8, name};
		model_apply(m, &e);
	}
}

static void sample(struct model *m, int sec, int node, int gpu, int util, int temp)
{
	struct event e = mk(EV_SAMPLE, sec);

	e.u.sample.node = node;
	e.u.sample.gpu = gpu;
	for (int k = 0; k < MET_COUNT; k++)
		e.u.sample.m[k] = 0;
	e.u.sample.m[MET_UTIL] = util;
	e.u.sample.m[MET_TEMP] = temp;
	e.u.sample.m[MET_POWER] = 50000;
	model_apply(m, &e);
}

static void job(struct model *m, int sec, uint32_t id, int state, const char *nodes, uint32_t mask)
{
	struct event e = mk(EV_JOB, sec);

	e.u.job = (struct ev_job){id, state, 8, mask, 0, 0, "train", "alice", "batch", nodes};
	model_apply(m, &e);
}

static void xid(struct model *m, int sec, int node, int gpu, int code)
{
	struct event e = mk(EV_XID, sec);

	e.u.xid = (struct ev_xid){node, gpu, code, 0, "0000:18:00", "GPU has fallen off the bus.", 0, -1, -1};
	model_apply(m, &e);
}

static void node_state(struct model *m, int sec, int node, int base, uint32_t flags, const char *reason)
{
	struct event e = mk(EV_NODE_STATE, sec);

	e.u.node_state = (struct ev_node_state){node, base, flags, 0, reason, "root"};
	model_apply(m, &e);
}

static void script(struct model *m)
{
	inventory(m);
	for (int s = 1; s <= 5; s++)
		for (int g = 0; g < 8; g++)
			sample(m, s, 3, g, 90 + g, 60);
	job(m, 2, 1001, JOB_RUNNING, "gpu[0001-0004]", 0xff);
	job(m, 3, 1002, JOB_RUNNING, "gpu0005", 0x0f);
	xid(m, 4, 4, 2, 79);
	job(m, 5, 1002, JOB_RUNNING, "gpu0005", 0xf0);
}

TEST(model_fold_is_deterministic)
{
	struct model a, b;

	model_init(&a);
	model_init(&b);
	script(&a);
	script(&b);
	CHECK(model_hash(&a) == model_hash(&b));
	sample(&b, 6, 3, 0, 91, 60);
	CHECK(model_hash(&a) != model_hash(&b));
	model_free(&a);
	model_free(&b);
}

TEST(model_hash_covers_reason_and_fault_ack)
{
	struct model a, b;
	struct event e;

	model_init(&a);
	model_init(&b);
	script(&a);
	script(&b);
	node_state(&a, 6, 9, NODE_IDLE, NODE_F_DRAIN, "xid79 gpu2");
	node_state(&b, 6, 9, NODE_IDLE, NODE_F_DRAIN, "xid79 gpu3");
	CHECK(model_hash(&a) != model_hash(&b));
	node_state(&b, 6, 9, NODE_IDLE, NODE_F_DRAIN, "xid79 gpu2");
	CHECK(model_hash(&a) == model_hash(&b));
	e = mk(EV_FAULT_ACK, 7);
	e.u.fault_ack = (struct ev_fault_ack){1, "ops", ""};
	model_apply(&a, &e);
	CHECK(model_hash(&a) != model_hash(&b));
	model_free(&a);
	model_free(&b);
}

TEST(model_jobs_hold_gpus_exclusively)
{
	struct model m;
	struct event e;

	model_init(&m);
	script(&m);
	CHECK_INT(model_running_jobs(&m), 2);
	struct job *j1 = model_job(&m, 1001), *j2 = model_job(&m, 1002);

	CHECK(j1 && j2);
	CHECK_INT(j1->nnodes, 4);
	for (int n = 0; n < 4; n++)
		for (int g = 0; g < 8; g++)
			CHECK_INT(m.gpu_job[model_gpu(&m, n, g)], j1 - m.jobs);
	/* job 1002 moved from GPUs 0-3 to 4-7 of gpu0005 */
	for (int g = 0; g < 4; g++)
		CHECK_INT(m.gpu_job[model_gpu(&m, 4, g)], -1);
	for (int g = 4; g < 8; g++)
		CHECK_INT(m.gpu_job[model_gpu(&m, 4, g)], j2 - m.jobs);
	e = mk(EV_JOB_END, 9);
	e.u.job_end = (struct ev_job_end){1001, JOB_COMPLETED};
	model_apply(&m, &e);
	CHECK(model_job(&m, 1001) == NULL);
	CHECK(model_job(&m, 1002) != NULL);
	for (int g = 0; g < 8; g++)
		CHECK_INT(m.gpu_job[model_gpu(&m, 0, g)], -1);
	job(&m, 10, 1003, JOB_PENDING, "", 0);
	CHECK_INT(model_running_jobs(&m), 1);
	model_free(&m);
}

TEST(model_xid_faults_fold_burst_and_close_on_resume)
{
	struct model m;

	model_init(&m);
	inventory(&m);
	xid(&m, 10, 7, 3, 79);
	xid(&m, 11, 7, 3, 79);   /* same GPU, same code: folded */
	xid(&m, 12, 7, 3, 45);   /* sympathetic, same burst */
	CHECK_INT(m.nfaults, 2);
	CHECK_INT(m.faults[0].count, 2);
	CHECK_INT(m.faults[0].severity, SEV_CRITICAL);
	CHECK_INT(m.faults[0].burst, m.faults[1].burst);
	CHECK_INT(m.last_xid[model_gpu(&m, 7, 3)], 45);
	CHECK_INT(m.nodes[7].open_faults, 2);
	xid(&m, 400, 7, 1, 48);  /* > 3 minutes later: a new burst */
	CHECK(m.faults[2].burst != m.faults[0].burst);
	CHECK_INT(model_open_faults(&m), 3);
	node_state(&m, 500, 7, NODE_IDLE, NODE_F_DRAIN, "xid79 gpu3");
	CHECK_INT(model_open_faults(&m), 3);   /* draining does not close */
	node_state(&m, 600, 7, NODE_IDLE, 0, "");
	CHECK_INT(model_open_faults(&m), 0);
	CHECK_INT(m.nodes[7].open_faults, 0);
	CHECK_STR(m.faults[0].close_why, "node resumed");
	model_free(&m);
}

TEST(model_thermal_condition_opens_and_clears)
{
	struct model m;

	model_init(&m);
	inventory(&m);
	sample(&m, 1, 2, 5, 100, 75);
	CHECK_INT(model_open_faults(&m), 0);
	sample(&m, 2, 2, 5, 100, 89);
	sample(&m, 3, 2, 5, 100, 90);
	CHECK_INT(model_open_faults(&m), 1);
	CHECK_INT(m.faults[0].kind, FK_THERMAL);
	CHECK_INT(m.faults[0].count, 2);
	sample(&m, 4, 2, 5, 100, 85);           /* between clear and open: stays */
	CHECK_INT(model_open_faults(&m), 1);
	sample(&m, 5, 2, 5, 100, 70);
	CHECK_INT(model_open_faults(&m), 0);
	CHECK_STR(m.faults[0].close_why, "cleared");
	model_free(&m);
}

static void conn(struct model *m, int sec, int node, int state, const char *detail)
{
	struct event e = mk(EV_CONN, sec);

	e.u.conn = (struct ev_conn){node, state, "gpu", detail};
	model_apply(m, &e);
}

TEST(model_connection_reason_is_kept_until_up)
{
	struct model m;

	model_init(&m);
	inventory(&m);
	conn(&m, 1, 6, CONN_CONNECTING, "");
	conn(&m, 2, 6, CONN_UNREACHABLE, "via bastion: the gateway could not connect to gpu0007:22");
	conn(&m, 3, 6, CONN_CONNECTING, "");   /* a retry: the reason stays for the operator */
	CHECK_STR(m.nodes[6].conn_why, "via bastion: the gateway could not connect to gpu0007:22");
	CHECK_INT(model_open_faults(&m), 0);   /* unreachable alone is not a fault */
	conn(&m, 4, 6, CONN_HOSTKEY_UNKNOWN, "unknown host key for gpu0007 (ssh-ed25519 SHA256:x): refused");
	CHECK_INT(model_open_faults(&m), 1);
	CHECK_INT(m.faults[0].kind, FK_CONN);
	CHECK_INT(m.faults[0].severity, SEV_WARN);
	CHECK_STR(m.nodes[6].conn_why, "unknown host key for gpu0007 (ssh-ed25519 SHA256:x): refused");
	conn(&m, 5, 6, CONN_UP, "");
	CHECK_STR(m.nodes[6].conn_why, "");
	CHECK_INT(model_open_faults(&m), 0);
	model_free(&m);
}

static void ib(struct model *m, int sec, int node, int port, int state, uint64_t downed, uint64_t sym)
{
	struct event e = mk(EV_IB, sec);

	e.u.ib.node = node;
	e.u.ib.port = port;
	e.u.ib.state = state;
	e.u.ib.have = (1u << IBC_LINK_DOWNED) | (1u << IBC_SYMBOL_ERROR);
	e.u.ib.c[IBC_LINK_DOWNED] = downed;
	e.u.ib.c[IBC_SYMBOL_ERROR] = sym;
	model_apply(m, &e);
}

TEST(model_ib_deltas_resets_and_link_faults)
{
	struct model m;

	model_init(&m);
	inventory(&m);
	ib(&m, 10, 1, 4, IBP_ACTIVE, 5, 1000);   /* first reading: no delta */
	CHECK_INT(model_open_faults(&m), 0);
	ib(&m, 20, 1, 4, IBP_ACTIVE, 5, 1001);
	CHECK_INT(m.ports[1 * 8 + 4].delta[IBC_SYMBOL_ERROR], 1);   /* 360/h: over 120/h */
	CHECK_INT(model_open_faults(&m), 1);
	ib(&m, 30, 1, 4, IBP_DOWN, 6, 1001);
	CHECK_INT(model_open_faults(&m), 3);      /* + link_downed, + port down */
	ib(&m, 40, 1, 4, IBP_ACTIVE, 2, 1001);    /* counter went back: reset, delta = value */
	CHECK_INT(m.ports[1 * 8 + 4].delta[IBC_LINK_DOWNED], 2);
	CHECK_INT(model_open_faults(&m), 2);      /* port up again: that one cleared */
	model_free(&m);
}

TEST(model_parse_errors_fold_into_one_fault_per_node_and_format)
{
	struct model m;
	struct event e;

	model_init(&m);
	inventory(&m);
	for (int i = 0; i < 5; i++) {
		e = mk(EV_PARSE_ERROR, i);
		e.u.parse_error = (struct ev_parse_error){6, FMT_NVSMI, "wrong number of fields", "0, GPU-\033[31m"};
		model_apply(&m, &e);
	}
	CHECK_INT(m.parse_errors, 5);
	CHECK_INT(m.nodes[6].parse_errors, 5);
	CHECK_INT(model_open_faults(&m), 1);
	CHECK_INT(m.faults[0].kind, FK_PARSE);
	CHECK_INT(m.faults[0].count, 5);
	CHECK(strchr(m.faults[0].text, '\033') == NULL);   /* stored inert */
	model_free(&m);
}

TEST(model_node_index_maps_names)
{
	struct model m;

	model_init(&m);
	inventory(&m);
	CHECK_INT(model_node_index(&m, "gpu0001"), 0);
	CHECK_INT(model_node_index(&m, "gpu0064"), 63);
	CHECK_INT(model_node_index(&m, "gpu0065"), -1);
	CHECK_INT(model_node_index(&m, ""), -1);
	model_free(&m);
}

/* ---- the bus ---- */

#include "bus.h"

struct unsub_ctx {
	struct bus *b;
	int other, calls_self, calls_other;
};

static void unsub_self(void *ctx, const struct event *ev)
{
	struct unsub_ctx *c = ctx;

	(void)ev;
	c->calls_self++;
	bus_unsubscribe(c->b, c->other - 1);   /* itself: ids are handed out in order */
}

static void count_other(void *ctx, const struct event *ev)
{
	(void)ev;
	((struct unsub_ctx *)ctx)->calls_other++;
}

TEST(bus_unsubscribe_during_a_flush_skips_no_one)
{
	struct bus b;
	struct unsub_ctx c = {&b, 0, 0, 0};
	struct event e = mk(EV_MARK, 1);

	bus_init(&b);
	bus_subscribe(&b, BUS_ALL, unsub_self, &c);
	c.other = bus_subscribe(&b, BUS_ALL, count_other, &c);
	bus_emit(&b, &e);
	bus_emit(&b, &e);
	bus_flush(&b);
	CHECK_INT(c.calls_self, 1);    /* gone after its first event */
	CHECK_INT(c.calls_other, 2);   /* the next subscriber saw both */
	CHECK_INT(b.nsubs, 1);
	bus_free(&b);
}
