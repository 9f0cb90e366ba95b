/*
 * slurm.c - the Slurm backend (see slurm.h): the command lines of each
 * action, running them on the head node over the ssh source's session, and
 * reading the answer: exit status 0 is done; otherwise Slurm's own message
 * on stderr is the detail. A whole nodeset is one command. When it fails,
 * Slurm has still acted on the nodes it could (a RESUME of gpu[0003-0005]
 * with only gpu0004 drained resumes gpu0004 and exits 1 with one message
 * naming no node), so the states are read back with sinfo to say which
 * nodes failed: done, partial or failed. A reroute is two steps: the
 * requeue; then, once squeue says the job is PENDING again (asked every
 * 100 ms: while it is still leaving its nodes Slurm refuses to change it,
 * or takes a StartTime that the end of the requeue then overwrites), the
 * exclusion and StartTime=now (without it a requeued job waits out its
 * credential's expiry before it may start again).
 */
#include <stdio.h>
#include <string.h>
#include "slurm.h"
#include "../ssh/quote.h"
#include "../ssh/source_ssh.h"

#define RETRY_MS 100
#define RETRY_FOR_US (15 * US_PER_SEC)

struct slurm {
	struct myriad *app;
	const struct inv_service *svc;   /* the inventory outlives the backend */
};

enum phase { PH_BEFORE, PH_NODES, PH_READBACK, PH_REQUEUE, PH_PENDING, PH_EXCLUDE, PH_SIGNAL };

struct scall {                       /* one call in flight (call->priv) */
	struct slurm *sl;
	struct backend_call *call;
	struct svc_run *run;
	enum phase phase;
	int64_t retry_until, timer;
	struct sbuf first;           /* Slurm's message to the nodeset's command */
	char *was_drained;           /* resume: per target, drained in the model when sent */
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

/* The command of phase ph of call. */
static char *call_command(const struct slurm *sl, const struct backend_call *call, enum phase ph)
{
	char a1[600], a2[80], a3[40], job[16], sigbuf[8];
	int sig = call->sig ? call->sig : sl->svc && sl->svc->signal ? sl->svc->signal : 10;

	snprintf(job, sizeof job, "%u", call->job);
	snprintf(a1, sizeof a1, "JobId=%s", job);
	snprintf(a2, sizeof a2, "ExcNodeList=%s", call->nodeset);
	switch (ph) {
	case PH_NODES:
		snprintf(a1, sizeof a1, "NodeName=%s", call->nodeset);
		snprintf(a3, sizeof a3, "State=%s", call->verb == BV_DRAIN ? "DRAIN" : "RESUME");
		snprintf(a2, sizeof a2, "Reason=%s", call->reason);
		return slurm_command(sl->svc, call->verb == BV_DRAIN ? 5 : 4,
				     (const char *const[]){"scontrol", "update", a1, a3, a2});
	case PH_BEFORE:
	case PH_READBACK:
		return slurm_command(sl->svc, 7, (const char *const[]){"sinfo", "-h", "-N", "-n", call->nodeset, "-o", "%N %t"});
	case PH_REQUEUE:
		return slurm_command(sl->svc, 3, (const char *const[]){"scontrol", "requeue", job});
	case PH_PENDING:
		return slurm_command(sl->svc, 6, (const char *const[]){"squeue", "-h", "-j", job, "-o", "%T"});
	case PH_EXCLUDE:
		return call->nnodes ? slurm_command(sl->svc, 5, (const char *const[]){"scontrol", "update", a1, a2,
										       "StartTime=now"})
				    : slurm_command(sl->svc, 4, (const char *const[]){"scontrol", "update", a1, "StartTime=now"});
	case PH_SIGNAL:
	default:
		snprintf(a1, sizeof a1, "--signal=%s", sig_name(sig, sigbuf));
		return slurm_command(sl->svc, 4, (const char *const[]){"scancel", "--full", a1, job});
	}
}

/* A resume of several nodes first reads which are drained: Slurm's answer
 * to the nodeset cannot tell a node it refused (not drained) from one it
 * resumed. */
static enum phase first_phase(const struct backend_call *call)
{
	return call->verb == BV_REQUEUE ? PH_REQUEUE : call->verb == BV_SIGNAL ? PH_SIGNAL
	       : call->verb == BV_RESUME && call->nnodes > 1 ? PH_BEFORE : PH_NODES;
}

static void slurm_describe(struct backend *b, const struct backend_call *call, struct sbuf *out)
{
	char *c = call_command(b->priv, call, first_phase(call) == PH_BEFORE ? PH_NODES : first_phase(call));

	sbuf_printf(out, "%s\n", c);
	free(c);
	if (call->verb == BV_REQUEUE) {
		c = call_command(b->priv, call, PH_EXCLUDE);
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
	sbuf_free(&sc->first);
	free(sc->was_drained);
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
	backend_reply(call, st, failed, detail);   /* detail may be sc's: free after */
	scall_free(sc);
}

static void start_phase(struct scall *sc, enum phase ph);

static int targets(const struct backend_call *call)
{
	return call->verb == BV_DRAIN || call->verb == BV_RESUME ? MAX(call->nnodes, 1) : 1;
}

/* Is this sinfo short state (%t) that of a drained or draining node? */
static int drained(const char *state, size_t n)
{
	return (n >= 5 && !memcmp(state, "drain", 5)) || (n >= 4 && !memcmp(state, "drng", 4));
}

/* In `sinfo -h -N -o '%N %t'` output: 1 drained, 0 not, -1 not listed. */
static int state_in(const char *out, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!strncmp(p, name, len) && p[len] == ' ')
			return drained(p + len + 1, strcspn(p + len + 1, " \n"));
	return -1;
}

static const char *target_name(const struct scall *sc, int32_t i)
{
	const struct model *m = &sc->sl->app->model;
	int32_t n = sc->call->nodes[i];

	return n >= 0 && n < m->nnodes ? m->nodes[n].name : "?";
}

static void note_before(struct scall *sc, const char *out)
{
	sc->was_drained = xcalloc((size_t)sc->call->nnodes + 1, 1);
	for (int32_t i = 0; i < sc->call->nnodes; i++)
		sc->was_drained[i] = state_in(out, target_name(sc, i)) == 1;
}

/* The nodes' states read back after the nodeset's command failed: a node
 * failed when it did not end as asked, or - resume - when it was not
 * drained in the first place (Slurm refused it; the others it resumed). */
static void read_back(struct scall *sc, const char *out)
{
	struct backend_call *call = sc->call;
	struct sbuf bad = {0};
	int32_t failed = 0;

	for (int32_t i = 0; i < call->nnodes; i++) {
		const char *name = target_name(sc, i);
		int now = state_in(out, name), known = now >= 0;
		int was_not = call->verb == BV_RESUME && sc->was_drained && !sc->was_drained[i];
		int ok = known && now == (call->verb == BV_DRAIN) && !was_not;

		if (!ok) {
			failed++;
			sbuf_printf(&bad, "%s%s (%s)", bad.len ? " " : "", name, !known ? "unknown to Slurm" : was_not
				    ? "was not drained" : call->verb == BV_DRAIN ? "not drained" : "still drained");
		}
	}
	if (failed)
		sbuf_printf(&sc->first, "; not %s: %s", call->verb == BV_DRAIN ? "drained" : "resumed", bad.s);
	sbuf_free(&bad);
	finish(sc, !failed ? BS_DONE : failed < call->nnodes ? BS_PARTIAL : BS_FAILED, failed, sc->first.s);
}

static void on_retry(void *ctx, int64_t id)
{
	struct scall *sc = ctx;

	(void)id;
	sc->timer = 0;
	start_phase(sc, PH_PENDING);
}

/* After the requeue: pending yet? Then the exclusion; else ask again. */
static void pending_yet(struct scall *sc, const char *out)
{
	if (!strncmp(out, "PENDING", 7))
		start_phase(sc, PH_EXCLUDE);
	else if (mono_us() < sc->retry_until)
		sc->timer = loop_timer(sc->sl->app->loop, RETRY_MS, 0, on_retry, sc);
	else
		finish(sc, BS_PARTIAL, 1, "requeued, but the job did not become pending again: the exclusion was not set");
}

static void failed_command(struct scall *sc, int status, const char *so, const char *se, const char *why)
{
	struct backend_call *call = sc->call;
	struct sbuf m = {0};

	if (sc->phase == PH_NODES && call->nnodes > 1) {   /* which nodes? read their states back */
		message(&sc->first, status, so, se, why);
		start_phase(sc, PH_READBACK);
		return;
	}
	if ((sc->phase == PH_EXCLUDE || sc->phase == PH_PENDING) && mono_us() < sc->retry_until) {   /* not yet */
		sc->timer = loop_timer(sc->sl->app->loop, RETRY_MS, 0, on_retry, sc);
		return;
	}
	if (sc->phase == PH_EXCLUDE || sc->phase == PH_PENDING)
		sbuf_adds(&m, "requeued, but the exclusion was not set: ");
	else if (sc->phase == PH_READBACK)
		sbuf_printf(&m, "%s; reading the nodes' states back failed: ", sc->first.s ? sc->first.s : "");
	else if (sc->phase == PH_BEFORE)
		sbuf_adds(&m, "reading the nodes' states failed: ");
	message(&m, status, so, se, why);
	finish(sc, sc->phase == PH_EXCLUDE || sc->phase == PH_PENDING ? BS_PARTIAL : BS_FAILED,
	       sc->phase == PH_READBACK || sc->phase == PH_BEFORE ? targets(call) : 1, m.s);
	sbuf_free(&m);
}

static void answered(void *ctx, int status, const char *so, const char *se, const char *why)
{
	struct scall *sc = ctx;
	char msg[400];

	sc->run = NULL;
	if (status == -2) {   /* never ran: the head node could not be reached */
		finish(sc, BS_UNREACHABLE, targets(sc->call), why);
	} else if (status < 0) {   /* the session went: what Slurm did is not known */
		snprintf(msg, sizeof msg, "the connection to the head node ended during the command (%s): the next "
			 "poll tells what Slurm did", *why ? why : "lost");
		finish(sc, BS_UNREACHABLE, targets(sc->call), msg);
	} else if (status != 0) {
		failed_command(sc, status, so, se, why);
	} else if (sc->phase == PH_BEFORE) {
		note_before(sc, so);
		start_phase(sc, PH_NODES);
	} else if (sc->phase == PH_READBACK) {
		read_back(sc, so);
	} else if (sc->phase == PH_REQUEUE) {
		sc->retry_until = mono_us() + RETRY_FOR_US;
		start_phase(sc, PH_PENDING);
	} else if (sc->phase == PH_PENDING) {
		pending_yet(sc, so);
	} else {
		finish(sc, BS_DONE, 0, "");
	}
}

static void start_phase(struct scall *sc, enum phase ph)
{
	char *cmd = call_command(sc->sl, sc->call, ph), *why = NULL;

	sc->phase = ph;
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

	start_phase(sc, first_phase(call));
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
