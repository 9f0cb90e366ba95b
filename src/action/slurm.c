/*
 * slurm.c - the Slurm backend (see slurm.h): the command lines of each
 * action, running them on the head node over the ssh source's session, and
 * reading the answer: exit status 0 is done; otherwise Slurm's own message
 * on stderr is the detail. A whole nodeset is one command; only when that
 * fails is it tried node by node, to say which nodes failed (done, partial
 * or failed). A reroute is two steps: the requeue, then - retried every
 * 100 ms while the job is still leaving its nodes (Slurm refuses to change
 * a job that is not pending) - the exclusion and StartTime=now (without it
 * a requeued job waits out its credential's expiry before it may start).
 */
#include <stdio.h>
#include <string.h>
#include "slurm.h"
#include "../ssh/quote.h"
#include "../ssh/source_ssh.h"

#define RETRY_MS 100
#define RETRY_FOR_US (10 * US_PER_SEC)

struct slurm {
	struct myriad *app;
	const struct inv_service *svc;   /* the inventory outlives the backend */
};

struct scall {                       /* one call in flight (call->priv) */
	struct slurm *sl;
	struct backend_call *call;
	struct svc_run *run;
	int step;                    /* reroute: 0 requeue, 1 exclusion; nodes: -1 group, else the node */
	int64_t retry_until, timer;
	int32_t failed;              /* node by node: the nodes that failed */
	struct sbuf errs;
};

/* ---- command lines ---- */

char *slurm_command(const struct inv_service *svc, int argc, const char *const *argv)
{
	struct sbuf b = {0};

	if (svc && svc->sudo)
		sbuf_adds(&b, "sudo -n ");
	if (svc && svc->conf) {
		char *kv = xasprintf("SLURM_CONF=%s", svc->conf);

		sbuf_adds(&b, "env ");
		sh_quote(&b, kv);
		sbuf_addc(&b, ' ');
		free(kv);
	}
	for (int i = 0; i < argc; i++) {
		if (i)
			sbuf_addc(&b, ' ');
		if (i == 0 && svc && svc->bin) {
			char *path = xasprintf("%s/%s", svc->bin, argv[0]);

			sh_quote(&b, path);
			free(path);
		} else {
			sh_quote(&b, argv[i]);
		}
	}
	return b.s ? b.s : xstrdup("");
}

/* The command of step `step` of call (nodes: one node's name when >= 0). */
static char *call_command(const struct slurm *sl, const struct backend_call *call, int step)
{
	const struct model *m = &sl->app->model;
	char a1[600], a2[80], a3[40], job[16], sigbuf[8];
	const char *set = call->nodeset;
	int sig = call->sig ? call->sig : sl->svc && sl->svc->signal ? sl->svc->signal : 10;

	snprintf(job, sizeof job, "%u", call->job);
	if ((call->verb == BV_DRAIN || call->verb == BV_RESUME) && step >= 0 && step < call->nnodes)
		set = call->nodes[step] >= 0 && call->nodes[step] < m->nnodes ? m->nodes[call->nodes[step]].name : "?";
	switch (call->verb) {
	case BV_DRAIN:
	case BV_RESUME:
		snprintf(a1, sizeof a1, "NodeName=%s", set);
		snprintf(a3, sizeof a3, "State=%s", call->verb == BV_DRAIN ? "DRAIN" : "RESUME");
		snprintf(a2, sizeof a2, "Reason=%s", call->reason);
		return slurm_command(sl->svc, call->verb == BV_DRAIN ? 5 : 4,
				     (const char *const[]){"scontrol", "update", a1, a3, a2});
	case BV_REQUEUE:
		if (step == 0)
			return slurm_command(sl->svc, 3, (const char *const[]){"scontrol", "requeue", job});
		snprintf(a1, sizeof a1, "JobId=%s", job);
		snprintf(a2, sizeof a2, "ExcNodeList=%s", call->nodeset);
		return call->nnodes ? slurm_command(sl->svc, 5, (const char *const[]){"scontrol", "update", a1, a2,
										       "StartTime=now"})
				    : slurm_command(sl->svc, 4, (const char *const[]){"scontrol", "update", a1, "StartTime=now"});
	case BV_SIGNAL:
	default:
		snprintf(a1, sizeof a1, "--signal=%s", sig_name(sig, sigbuf));
		return slurm_command(sl->svc, 4, (const char *const[]){"scancel", "--full", a1, job});
	}
}

static void slurm_describe(struct backend *b, const struct backend_call *call, struct sbuf *out)
{
	char *c = call_command(b->priv, call, call->verb == BV_REQUEUE ? 0 : -1);

	sbuf_printf(out, "%s\n", c);
	free(c);
	if (call->verb == BV_REQUEUE) {
		c = call_command(b->priv, call, 1);
		sbuf_printf(out, "%s\n", c);
		free(c);
	}
}

/* ---- answers ---- */

/* Slurm's message as one line: stderr (else stdout, else why), trimmed. */
static void message(struct sbuf *out, int status, const char *so, const char *se, const char *why)
{
	const char *t = *se ? se : *so ? so : why;
	size_t n = strlen(t), start = out->len;

	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		n--;
	if (n > 400)
		t += n - 400, n = 400;
	if (!n)
		sbuf_printf(out, status >= 0 ? "exited with status %d" : "failed", status);
	sbuf_add(out, t, n);
	for (size_t i = start; i < out->len; i++)
		if (out->s[i] == '\n')
			out->s[i] = ';';
}

static void scall_free(struct scall *sc)
{
	if (sc->timer)
		loop_timer_cancel(sc->sl->app->loop, sc->timer);
	ssh_service_run_cancel(sc->run);
	sbuf_free(&sc->errs);
	free(sc);
}

static void finish(struct scall *sc, enum backend_status st, int32_t failed, const char *detail)
{
	struct backend_call *call = sc->call;
	struct myriad *app = sc->sl->app;
	const char *name = sc->sl->svc ? sc->sl->svc->name : "slurm";

	sc->run = NULL;   /* the source frees a run that ended */
	call->priv = NULL;
	if (st == BS_DONE || st == BS_PARTIAL)
		ssh_service_poll_now(app, name);   /* what Slurm did shows at once */
	scall_free(sc);
	backend_reply(call, st, failed, detail);
}

static void start_step(struct scall *sc, int step);

static int targets(const struct backend_call *call)
{
	return call->verb == BV_DRAIN || call->verb == BV_RESUME ? MAX(call->nnodes, 1) : 1;
}

/* Node by node: the answer for one node, then the next, then the end. */
static void node_answered(struct scall *sc, int status, const char *so, const char *se, const char *why)
{
	struct backend_call *call = sc->call;
	const struct model *m = &sc->sl->app->model;
	int32_t n = call->nodes[sc->step];

	if (status != 0) {
		sc->failed++;
		sbuf_printf(&sc->errs, "%s%s: ", sc->errs.len ? "; " : "", n >= 0 && n < m->nnodes ? m->nodes[n].name : "?");
		message(&sc->errs, status, so, se, why);
	}
	if (sc->step + 1 < call->nnodes) {
		start_step(sc, sc->step + 1);
		return;
	}
	finish(sc, !sc->failed ? BS_DONE : sc->failed < call->nnodes ? BS_PARTIAL : BS_FAILED, sc->failed,
	       sc->errs.s ? sc->errs.s : "");
}

static void on_retry(void *ctx, int64_t id)
{
	struct scall *sc = ctx;

	(void)id;
	sc->timer = 0;
	start_step(sc, 1);
}

static void answered(void *ctx, int status, const char *so, const char *se, const char *why)
{
	struct scall *sc = ctx;
	struct backend_call *call = sc->call;
	struct sbuf m = {0};

	sc->run = NULL;
	if (status == -2) {   /* never ran: the head node could not be reached */
		finish(sc, BS_UNREACHABLE, targets(call), why);
	} else if (status < 0) {   /* the session went: what Slurm did is not known */
		sbuf_printf(&m, "the connection to the head node ended during the command (%s): the next poll tells "
			    "what Slurm did", *why ? why : "lost");
		finish(sc, BS_UNREACHABLE, targets(call), m.s);
	} else if ((call->verb == BV_DRAIN || call->verb == BV_RESUME) && sc->step >= 0) {
		node_answered(sc, status, so, se, why);
	} else if (status == 0 && call->verb == BV_REQUEUE && sc->step == 0) {
		sc->retry_until = mono_us() + RETRY_FOR_US;
		start_step(sc, 1);
	} else if (status == 0) {
		finish(sc, BS_DONE, 0, "");
	} else if (call->nnodes > 1 && (call->verb == BV_DRAIN || call->verb == BV_RESUME)) {
		start_step(sc, 0);   /* which nodes failed? one by one */
	} else if (call->verb == BV_REQUEUE && sc->step == 1 && mono_us() < sc->retry_until) {
		sc->timer = loop_timer(sc->sl->app->loop, RETRY_MS, 0, on_retry, sc);   /* not pending yet */
	} else {
		if (call->verb == BV_REQUEUE && sc->step == 1)
			sbuf_adds(&m, "requeued, but the exclusion was not set: ");
		message(&m, status, so, se, why);
		finish(sc, call->verb == BV_REQUEUE && sc->step == 1 ? BS_PARTIAL : BS_FAILED, 1, m.s);
	}
	sbuf_free(&m);
}

static void start_step(struct scall *sc, int step)
{
	char *cmd = call_command(sc->sl, sc->call, step), *why = NULL;

	sc->step = step;
	sc->run = ssh_service_run(sc->sl->app, sc->sl->svc ? sc->sl->svc->name : "slurm", cmd, answered, sc, &why);
	free(cmd);
	if (!sc->run) {
		finish(sc, BS_UNREACHABLE, targets(sc->call), why);
		free(why);
	}
}

/* ---- the table ---- */

static void slurm_send(struct backend *b, struct backend_call *call)
{
	struct scall *sc = xcalloc(1, sizeof *sc);

	sc->sl = b->priv;
	sc->call = call;
	call->priv = sc;
	start_step(sc, call->verb == BV_REQUEUE ? 0 : -1);
}

static void slurm_cancel(struct backend *b, struct backend_call *call)
{
	(void)b;
	if (call->priv)
		scall_free(call->priv);
	call->priv = NULL;
}

static void slurm_free(struct backend *b)
{
	free(b->priv);
	b->priv = NULL;
}

const struct backend_ops slurm_backend_ops = {
	.name = "slurm",
	.abi = MYRIAD_ABI,
	.send = slurm_send,
	.cancel = slurm_cancel,
	.describe = slurm_describe,
	.free = slurm_free,
};

void slurm_backend_start(struct myriad *app, const struct inv_service *svc)
{
	struct slurm *sl = xcalloc(1, sizeof *sl);

	sl->app = app;
	sl->svc = svc;
	backend_install(app, &slurm_backend_ops, sl);
}
