/*
 * test_action.c - the action engine: the guards in order and their audit,
 * a held action continued or declined by its submitter, a backend that
 * answers later, one that never answers (the deadline), a late answer, and
 * one backend call for a whole nodeset.
 */
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "myriad.h"
#include "action/action.h"
#include "action/backend.h"

struct phases {
	int n[ACT_PHASE_COUNT];
	char last[256], status[32];
};

static void count_phase(void *ctx, const struct event *ev)
{
	struct phases *p = ctx;

	p->n[ev->u.action.phase]++;
	snprintf(p->last, sizeof p->last, "%s", ev->u.action.detail);
	snprintf(p->status, sizeof p->status, "%s", ev->u.action.status ? ev->u.action.status : "");
}

static void start(struct myriad *app)
{
	char *err = NULL;

	app_init(app);
	CHECK(app_add_source(app, "sim", "gpus=256,seed=3", &err) == 0);
	free(err);
}

TEST(action_engine_guards_and_audit)
{
	struct myriad app;
	struct phases ph = {{0}, "", ""};
	struct action_outcome o;
	struct action_limits l;
	int32_t nodes[40];
	struct action a = {.kind = AK_DRAIN, .source = "test", .who = "tester", .nodes = nodes, .nnodes = 2,
			   .reason = "hc unit", .target = "gpu[0001-0002]", .args = ""};

	for (int i = 0; i < 40; i++)
		nodes[i] = i;
	start(&app);
	bus_subscribe(&app.bus, BUS_MASK(EV_ACTION), count_phase, &ph);
	app.read_only = 1;
	CHECK(action_submit(&app, &a, &o, NULL, NULL) < 0);
	CHECK_INT(o.status, AS_REFUSED);
	CHECK_INT(o.why, AW_READ_ONLY);
	CHECK_INT(ph.n[ACT_REQUESTED], 1);
	CHECK_INT(ph.n[ACT_DECIDED], 1);
	CHECK_INT(ph.n[ACT_SENT], 0);
	CHECK_STR(ph.status, "refused");
	app.read_only = 0;
	a.dry_run = 1;
	CHECK(action_submit(&app, &a, &o, NULL, NULL) == 0);
	CHECK_INT(o.status, AS_DRY_RUN);
	CHECK_INT(o.gpus, 16);
	CHECK(strstr(o.detail, "would run sim: drain gpu[0001-0002]") != NULL);
	CHECK_INT(ph.n[ACT_SENT], 0);
	a.dry_run = 0;
	CHECK(action_submit(&app, &a, &o, NULL, NULL) == 0);
	CHECK_INT(o.status, AS_DONE);
	CHECK_INT(ph.n[ACT_SENT], 1);
	CHECK_INT(ph.n[ACT_RESULT], 1);
	CHECK_STR(ph.last, "ok");
	CHECK_STR(ph.status, "done");
	a.reason = "xid79, gpu3";
	CHECK(action_submit(&app, &a, &o, NULL, NULL) < 0);
	CHECK_INT(o.why, AW_INPUT);
	a.reason = "hc unit";
	action_get_limits(&app, &l);
	CHECK_INT(l.nodes, ACTION_DEFAULT_NODES);
	l.nodes = 10;
	action_set_limits(&app, &l);
	a.nnodes = 9;   /* 2 already in the window: held for the operator */
	CHECK(action_submit(&app, &a, &o, NULL, NULL) == 0);
	CHECK_INT(o.status, AS_CONFIRM);
	CHECK(strstr(o.detail, "blast radius") != NULL);
	CHECK_INT(action_pending(&app), 1);
	CHECK_INT(action_confirm(&app, o.id, 0, "no one to ask"), 0);
	CHECK_INT(action_pending(&app), 0);
	CHECK_STR(ph.last, "no one to ask");
	CHECK_INT(action_confirm(&app, o.id, 1, NULL), -1);   /* no longer held */
	a.force = 1;
	CHECK(action_submit(&app, &a, &o, NULL, NULL) < 0);   /* -force needs a reason */
	CHECK_INT(o.why, AW_INPUT);
	a.force_reason = "maintenance window";
	CHECK(action_submit(&app, &a, &o, NULL, NULL) == 0);
	CHECK_INT(o.status, AS_DONE);
	a = (struct action){.kind = AK_ACK, .source = "test", .who = "tester", .fault = 77, .target = "77"};
	CHECK(action_submit(&app, &a, &o, NULL, NULL) < 0);
	CHECK_INT(o.why, AW_INPUT);
	a = (struct action){.kind = AK_SIGNAL, .source = "config", .job = 1001, .sig = 10, .target = "1001"};
	CHECK(action_submit(&app, &a, &o, NULL, NULL) < 0);
	CHECK_INT(o.why, AW_CONFIG);
	l.nodes = 0;   /* no limit */
	action_set_limits(&app, &l);
	free(app.backend);   /* a recording: no backend */
	app.backend = NULL;
	a.source = "test";
	CHECK(action_submit(&app, &a, &o, NULL, NULL) < 0);
	CHECK_INT(o.why, AW_NO_BACKEND);
	app_free(&app);
}

TEST(action_reason_convention)
{
	CHECK(action_check_reason("xid79 gpu3 fallen-off-bus") == NULL);
	CHECK(action_check_reason("") != NULL);
	CHECK(action_check_reason(NULL) != NULL);
	CHECK(action_check_reason("a,b") != NULL);
	CHECK(action_check_reason("a\nb") != NULL);
	CHECK(action_check_reason("0123456789012345678901234567890123456789012345678901234567890123x") != NULL);
	CHECK(action_check_reason("say \"hi\"") != NULL);             /* scontrol would drop the quotes */
	CHECK(action_check_reason("a\xc2\x9b[2Jb") != NULL);          /* C1 CSI */
	CHECK(action_check_reason("a\x7f") != NULL);
	CHECK(action_check_reason("bad \xff utf8") != NULL);
	CHECK(action_check_reason("\xed\xa0\x80 surrogate") != NULL);
	/* 64 characters of three bytes each are 64 characters, not 192 */
	char cjk[64 * 3 + 4] = "";

	for (int i = 0; i < 64; i++)
		strcat(cjk, "\xe6\xb8\xa9");
	CHECK(action_check_reason(cjk) == NULL);
	strcat(cjk, "\xe6\xb8\xa9");
	CHECK(action_check_reason(cjk) != NULL);
}

/* ---- a backend that answers when the test says so ---- */

struct late {
	struct backend_call *call;   /* the call waiting for an answer */
	int sends, cancels;
	char nodeset[64];
	int32_t nnodes;
};

static struct late late;

static void late_send(struct backend *b, struct backend_call *call)
{
	(void)b;
	late.call = call;
	late.sends++;
	late.nnodes = call->nnodes;
	snprintf(late.nodeset, sizeof late.nodeset, "%s", call->nodeset);
}

static void late_cancel(struct backend *b, struct backend_call *call)
{
	(void)b;
	if (late.call == call)
		late.call = NULL;
	late.cancels++;
}

static const struct backend_ops late_ops = {.name = "late", .abi = MYRIAD_ABI, .send = late_send,
					    .cancel = late_cancel};

struct ended {
	int calls;
	struct action_outcome out;
};

static void on_end(void *ctx, const struct action_outcome *o)
{
	struct ended *e = ctx;

	e->calls++;
	e->out = *o;
}

TEST(action_answered_later_timed_out_and_late)
{
	struct myriad app;
	struct phases ph = {{0}, "", ""};
	struct action_outcome o;
	struct action_limits l;
	struct ended end = {0};
	int32_t nodes[32];
	struct action a = {.kind = AK_DRAIN, .source = "test", .who = "tester", .nodes = nodes, .nnodes = 32,
			   .reason = "hc unit", .target = "t", .args = ""};

	for (int i = 0; i < 32; i++)
		nodes[i] = i;
	memset(&late, 0, sizeof late);
	start(&app);
	backend_install(&app, &late_ops, NULL);
	bus_subscribe(&app.bus, BUS_MASK(EV_ACTION), count_phase, &ph);
	action_get_limits(&app, &l);
	l.timeout_us = 150000;
	l.nodes = l.gpus = 0;   /* no blast-radius limit here */
	action_set_limits(&app, &l);
	/* sent: one call for the whole nodeset, answered later */
	CHECK_INT(action_submit(&app, &a, &o, on_end, &end), 0);
	CHECK_INT(o.status, AS_SENT);
	CHECK_INT(late.sends, 1);
	CHECK_INT(late.nnodes, 32);
	CHECK_STR(late.nodeset, "gpu[0001-0032]");
	CHECK_INT(action_pending(&app), 1);
	CHECK_INT(end.calls, 0);
	backend_reply(late.call, BS_PARTIAL, 2, "gpu0003: refused; gpu0007: refused");
	CHECK_INT(end.calls, 1);
	CHECK_INT(end.out.status, AS_PARTIAL);
	CHECK_INT(end.out.failed, 2);
	CHECK_STR(ph.status, "partial");
	CHECK_INT(action_pending(&app), 0);
	/* never answered: the deadline ends it, the backend is told */
	a.nnodes = 1;
	CHECK_INT(action_submit(&app, &a, &o, on_end, &end), 0);
	struct backend_call *first = late.call;

	CHECK_INT(action_wait(&app, o.id, mono_us() + 2 * US_PER_SEC, &o), 0);
	CHECK_INT(o.status, AS_TIMEOUT);
	CHECK_INT(o.why, AW_TIMEOUT);
	CHECK_INT(end.calls, 2);
	CHECK_INT(end.out.status, AS_TIMEOUT);
	CHECK_INT(late.cancels, 1);
	CHECK(strstr(ph.last, "no answer from late") != NULL);
	CHECK_STR(ph.status, "timed-out");
	/* a late answer after the deadline changes nothing */
	backend_reply(first, BS_DONE, 0, "");
	CHECK_INT(end.calls, 2);
	/* unreachable is a failure of its own kind (exit status 2 in batch) */
	CHECK_INT(action_submit(&app, &a, &o, on_end, &end), 0);
	backend_reply(late.call, BS_UNREACHABLE, 1, "head01: connection refused");
	CHECK_INT(end.out.status, AS_FAILED);
	CHECK_INT(end.out.why, AW_UNREACHABLE);
	app_free(&app);
}

TEST(action_held_then_confirmed_runs)
{
	struct myriad app;
	struct action_outcome o;
	struct action_limits l;
	struct ended end = {0};
	int32_t nodes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct action a = {.kind = AK_DRAIN, .source = "test", .who = "tester", .nodes = nodes, .nnodes = 8,
			   .reason = "hc unit", .target = "t", .args = ""};

	memset(&late, 0, sizeof late);
	start(&app);
	backend_install(&app, &late_ops, NULL);
	action_get_limits(&app, &l);
	l.nodes = 4;
	action_set_limits(&app, &l);
	CHECK_INT(action_submit(&app, &a, &o, on_end, &end), 0);
	CHECK_INT(o.status, AS_CONFIRM);
	CHECK_INT(late.sends, 0);
	CHECK_INT(action_confirm(&app, o.id, 1, NULL), 0);
	CHECK_INT(late.sends, 1);   /* the continuation sent it */
	CHECK_INT(end.calls, 0);
	backend_reply(late.call, BS_DONE, 0, "");
	CHECK_INT(end.calls, 1);
	CHECK_INT(end.out.status, AS_DONE);
	app_free(&app);
}
