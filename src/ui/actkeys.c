/*
 * actkeys.c - the action keys (d drain, r reroute, c checkpoint, a ack):
 * from what the panel has selected, build the Tcl command for the action
 * engine and a plain description of what it will do, ask, then evaluate it.
 * Names and reasons are brace-quoted, and a reason is reduced to characters
 * that cannot break out of its braces.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "ui_int.h"
#include "../nodeset.h"
#include "../xidcat.h"

/* A word safe inside Tcl braces: letters, digits and " -_.:/+@#%=,". */
static void tcl_safe(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	uint32_t cp;

	while (src && (cp = text_next(&src)) && n + 1 < size) {
		if (cp < 0x80 && (isalnum((int)cp) || strchr(" -_.:/+@#%=,", (int)cp)))
			dst[n++] = (char)cp;
		else if (n && dst[n - 1] != '-')
			dst[n++] = '-';
	}
	while (n && (dst[n - 1] == '-' || dst[n - 1] == ' '))
		n--;
	dst[n] = '\0';
}

/* "GPU has fallen off the bus" -> "fallen-off-bus": the words that say
 * something, joined by '-', as in the reason convention of myriad-design(7), FACTS: Slurm. */
static void slug(char *dst, size_t size, const char *s)
{
	static const char *const skip[] = {"gpu", "has", "the", "of", "a", "an", "is"};
	size_t n = 0;

	while (*s && n + 1 < size && n < 32) {
		char w[32];
		size_t k = 0, i;

		while (*s && !isalnum((unsigned char)*s))
			s++;
		while (isalnum((unsigned char)*s) && k + 1 < sizeof w)
			w[k++] = (char)tolower((unsigned char)*s++);
		w[k] = '\0';
		for (i = 0; i < ARRAY_LEN(skip) && strcmp(w, skip[i]); i++)
			;
		if (!k || i < ARRAY_LEN(skip))
			continue;
		n += (size_t)snprintf(dst + n, size - n, "%s%s", n ? "-" : "", w);
	}
	dst[MIN(n, size - 1)] = '\0';
}

/* The newest open fault of a node, or NULL. */
static const struct fault *node_fault(const struct model *m, int32_t node)
{
	for (int32_t i = m->nfaults - 1; i >= 0; i--)
		if (m->faults[i].node == node && !m->faults[i].close_time && m->faults[i].severity >= SEV_WARN)
			return &m->faults[i];
	return NULL;
}

/* A drain reason in the console's convention: "xid79 gpu3 gpu-has-fallen-off-the-bus". */
void action_drain_reason(const struct model *m, int32_t node, char *out, size_t size)
{
	const struct fault *f = node >= 0 ? node_fault(m, node) : NULL;
	char s[48];

	if (!f) {
		snprintf(out, size, "operator drain");
	} else if (fault_xid(f) >= 0) {
		slug(s, sizeof s, xid_lookup(f->code)->meaning);
		snprintf(out, size, "xid%d gpu%d %s", f->code, f->gpu, s);
	} else if (f->kind == FK_IB) {
		snprintf(out, size, "ib mlx5_%d %s", f->gpu, f->code < IBC_COUNT ? ib_counter_name(f->code) : "port-down");
	} else {
		slug(s, sizeof s, f->text);
		snprintf(out, size, "%s %s", fault_kind_name(f->kind), s);
	}
}

/* The first job holding GPUs on node, or NULL. */
static const struct job *node_job(const struct model *m, int32_t node)
{
	for (int32_t g = 0; node >= 0 && g < m->gpus_per_node; g++) {
		int32_t j = m->gpu_job[model_gpu(m, node, g)];

		if (j >= 0 && j < m->njobs && m->jobs[j].id)
			return &m->jobs[j];
	}
	return NULL;
}

static int jobs_on(const struct model *m, int32_t node, struct sbuf *b)
{
	uint32_t seen[8];
	int n = 0;

	for (int32_t g = 0; node >= 0 && g < m->gpus_per_node; g++) {
		int32_t j = m->gpu_job[model_gpu(m, node, g)];
		int dup = 0;

		if (j < 0 || j >= m->njobs || !m->jobs[j].id)
			continue;
		for (int k = 0; k < n; k++)
			dup |= seen[k] == m->jobs[j].id;
		if (dup || n == 8)
			continue;
		seen[n++] = m->jobs[j].id;
		sbuf_printf(b, "%s%u %s '%s' on %d nodes", n > 1 ? "; " : "", m->jobs[j].id, m->jobs[j].user,
			    m->jobs[j].name, m->jobs[j].nnodes);
	}
	return n;
}

static void ask(struct console *c, struct sbuf *text, struct sbuf *cmd)
{
	if (c->app->read_only)
		sbuf_adds(text, "\nRead-only mode: the action engine will refuse this.");
	if (c->app->dry_run)
		sbuf_adds(text, "\nDry run: the action engine will only say what it would do.");
	free(c->confirm.text);
	free(c->confirm.cmd);
	c->confirm = (struct confirm){text->s, cmd->s, NULL, NULL};
	c->mode = MODE_CONFIRM;
}

/* The drain of node for why (the fault's reason, or the operator's). */
static void drain(struct console *c, int32_t node, const char *why, struct sbuf *text, struct sbuf *cmd)
{
	const struct model *m = &c->app->model;
	const struct node *n = &m->nodes[node];
	char reason[96], st[64];
	struct sbuf jobs = {0};
	int nj;

	tcl_safe(reason, sizeof reason, why);
	sbuf_printf(cmd, "node drain {%s} -reason {%s}", n->name, reason);
	sbuf_printf(text, "Drain %s (SU%02d, rack %d, %s): the scheduler places no new jobs on it and its %d GPUs "
		    "leave service.", n->name, n->su + 1, n->rack + 1, node_state_text(n, st, sizeof st), n->gpus);
	nj = jobs_on(m, node, &jobs);
	if (nj)
		sbuf_printf(text, " %d job%s running there keep%s running until %s end%s (or reroute it with r): %s.",
			    nj, nj > 1 ? "s" : "", nj > 1 ? "" : "s", nj > 1 ? "they" : "it", nj > 1 ? "" : "s", jobs.s);
	else
		sbuf_adds(text, " No job runs there.");
	if (node_is_drained(n))
		sbuf_printf(text, "\nIt is already drained (%s); this replaces the reason.", n->reason);
	sbuf_printf(text, "\nReason: %s", reason);
	sbuf_free(&jobs);
}

static const struct job *target_job(struct console *c, const struct target *t)
{
	const struct model *m = &c->app->model;
	const struct job *j = t->job ? model_job(m, t->job) : node_job(m, t->node);

	if (!j)
		console_set_message(c, R_ERROR, t->node >= 0 ? "no job runs on %s" : "select a job or a node%s",
				    t->node >= 0 ? m->nodes[t->node].name : "");
	return j;
}

int32_t action_job_avoid(const struct model *m, const struct job *j, int32_t also, int32_t *out)
{
	int32_t n = 0;

	for (int32_t k = 0; k < j->nnodes; k++) {
		const struct node *nd = &m->nodes[j->node_idx[k]];

		if (nd->open_faults || node_is_drained(nd) || node_down(nd))
			out[n++] = j->node_idx[k];
	}
	if (also >= 0)
		out[n++] = also;
	return n;
}

/* The nodes a requeued job must avoid (action_job_avoid), folded. */
static char *exclude_set(const struct model *m, const struct job *j, int32_t also)
{
	struct nodeset *ns = nodeset_new();
	int32_t *idx = xcalloc((size_t)j->nnodes + 1, sizeof *idx), n = action_job_avoid(m, j, also, idx);
	char *s;

	for (int32_t k = 0; k < n; k++)
		nodeset_add(ns, m->nodes[idx[k]].name);
	s = nodeset_fold(ns);
	nodeset_free(ns);
	free(idx);
	return s;
}

static void reroute(struct console *c, const struct job *j, int32_t node, struct sbuf *text, struct sbuf *cmd)
{
	const struct model *m = &c->app->model;
	char *ex = exclude_set(m, j, node), run[32], gpus[16];

	fmt_duration(j->start_time ? m->time - j->start_time : 0, run, sizeof run);
	snprintf(gpus, sizeof gpus, j->gpus >= 0 ? "%d" : "?", j->gpus);
	sbuf_printf(cmd, "job requeue %u", j->id);
	if (*ex)
		sbuf_printf(cmd, " -exclude {%s}", ex);
	sbuf_printf(text, "Requeue job %u (%s, '%s', %d nodes, %s GPUs, running %s): the scheduler stops it and "
		    "starts its batch script again; it resumes from its last checkpoint.", j->id, j->user, j->name,
		    j->nnodes, gpus, run);
	if (*ex)
		sbuf_printf(text, "\nIt will not be placed on %s.", ex);
	free(ex);
}

static void ack(struct console *c, const struct target *t, struct sbuf *text, struct sbuf *cmd)
{
	const struct model *m = &c->app->model;
	int n = 0;

	for (int32_t i = 0; i < m->nfaults && n < 50; i++) {
		const struct fault *f = &m->faults[i];
		int pick = t->burst ? f->burst == t->burst && f->node == t->node
			   : t->fault ? f->id == t->fault : f->node == t->node;

		if (!pick || f->ack_time || (f->close_time && f->id != t->fault))
			continue;
		sbuf_printf(cmd, "%sfault ack %u", n ? "; " : "", f->id);
		sbuf_printf(text, "%s#%u %s", n ? "\n" : "", f->id, f->text);
		n++;
	}
	if (!n) {
		sbuf_free(text);
		sbuf_free(cmd);
		return;
	}
	{
		struct sbuf head = {0};

		sbuf_printf(&head, "Acknowledge %d fault%s (marks %s as seen by you; the cluster is not changed):\n",
			    n, n > 1 ? "s" : "", n > 1 ? "them" : "it");
		sbuf_adds(&head, text->s);
		sbuf_free(text);
		*text = head;
	}
}

static struct {
	struct console *c;
	int32_t node;
} reason_for;   /* the node d asked a reason for */

static void on_reason(void *ctx, const char *line)
{
	struct console *c = reason_for.c;
	struct sbuf text = {0}, cmd = {0};

	(void)ctx;
	if (!c || reason_for.node >= c->app->model.nnodes)
		return;
	if (!line || !*line) {
		console_set_message(c, R_MESSAGE, "cancelled: a drain needs a reason");
		return;
	}
	drain(c, reason_for.node, line, &text, &cmd);
	ask(c, &text, &cmd);
}

static void ask_reason(struct console *c, int32_t node)
{
	char q[160];

	reason_for.c = c;
	reason_for.node = node;
	snprintf(q, sizeof q, "drain %s: no fault says why; reason (e.g. maint psu-swap; Esc cancels):",
		 c->app->model.nodes[node].name);
	cmdline_prompt(c, q, on_reason, NULL);
}

void action_key(struct console *c, const char *verb)
{
	const struct panel_ops *p = c->ops[c->cur];
	struct target t = TARGET_NONE;
	struct sbuf text = {0}, cmd = {0};
	const struct model *m = &c->app->model;
	const struct job *j;

	if (!p->target || !p->target(c->st[c->cur], &t) || (t.node >= m->nnodes)) {
		console_set_message(c, R_ERROR, "nothing selected here to %s", verb);
		return;
	}
	if (t.node < 0 && t.fault && model_fault(m, t.fault))
		t.node = model_fault(m, t.fault)->node;
	if (!strcmp(verb, "drain")) {
		char why[96];

		if (t.node < 0) {
			console_set_message(c, R_ERROR, "drain acts on a node: select one");
			return;
		}
		if (!node_fault(m, t.node)) {   /* nothing says why: the operator does */
			ask_reason(c, t.node);
			return;
		}
		action_drain_reason(m, t.node, why, sizeof why);
		drain(c, t.node, why, &text, &cmd);
	} else if (!strcmp(verb, "ack")) {
		ack(c, &t, &text, &cmd);
		if (!cmd.s) {
			console_set_message(c, R_MESSAGE, "no unacknowledged faults selected");
			return;
		}
	} else {
		if (!(j = target_job(c, &t)))
			return;
		if (!strcmp(verb, "reroute"))
			reroute(c, j, t.node, &text, &cmd);
		else {
			sbuf_printf(&cmd, "job checkpoint %u", j->id);
			sbuf_printf(&text, "Ask job %u (%s, '%s', %d nodes) to checkpoint: SIGUSR1 to its batch shell. "
				    "It keeps running.", j->id, j->user, j->name, j->nnodes);
		}
	}
	ask(c, &text, &cmd);
}

void action_confirm_answer(struct console *c, int yes, int edit)
{
	struct confirm k = c->confirm;

	memset(&c->confirm, 0, sizeof c->confirm);
	c->mode = MODE_NORMAL;
	c->dirty = DIRTY_ALL;
	if (k.done) {
		k.done(k.ctx, yes);
		if (!yes)
			console_set_message(c, R_MESSAGE, "cancelled");
	}
	else if (edit && k.cmd)
		cmdline_open(c, k.cmd);
	else if (yes && k.cmd && !c->tcl_ok)
		console_set_message(c, R_ERROR, "cannot act: the action engine needs Tcl, which is not available (%s)", k.cmd);
	else if (yes && k.cmd)
		cmdline_eval(c, k.cmd, 0);
	else
		console_set_message(c, R_MESSAGE, "cancelled");
	free(k.text);
	free(k.cmd);
}
