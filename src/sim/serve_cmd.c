/*
 * serve_cmd.c - what a simulated node does with the command of an exec
 * channel (see serve.h), and the routing of the simulator's per-node text
 * to the channels that stream it.
 *
 * Commands are split into words as a POSIX shell would for simple commands
 * (quotes and backslashes, no expansion); anything with unquoted shell
 * syntax is refused, except the IB counter loop of probes.h, matched whole.
 * Glob characters (* ? [) stay as typed, as a pattern that matches no file
 * does in sh: an unquoted NodeName=gpu[0001-0004] reaches scontrol whole.
 * The head node's scontrol and scancel are in serve_slurm.c.
 */
#include <stdio.h>
#include <string.h>
#include "serve_int.h"
#include "../ssh/probes.h"

int srv_node_of(const struct srv *srv, const char *user)
{
	char name[32];

	if (!strcmp(user, "head01"))
		return NODE_HEAD;
	if (!strcmp(user, "bms01"))
		return NODE_BMS;
	if (strncmp(user, "gpu", 3) || strlen(user) > 12 || !user[3] || strspn(user + 3, "0123456789") != strlen(user + 3))
		return -1;
	long i = strtol(user + 3, NULL, 10) - 1;

	if (i < 0 || i >= srv->nodes)
		return -1;
	sim_node_name(srv->sim, (int32_t)i, name, sizeof name);
	return strcmp(name, user) ? -1 : (int)i;
}

void srv_node_name(const struct srv *srv, int node, char *out, size_t cap)
{
	if (node == NODE_HEAD)
		snprintf(out, cap, "head01");
	else if (node == NODE_BMS)
		snprintf(out, cap, "bms01");
	else
		sim_node_name(srv->sim, node, out, (int)cap);
}

/* ---- words ---- */

#define MAX_WORDS 64

/* Splits cmd into words in buf; returns the count, or -1 if it is not a
 * simple command (unquoted | & ; < > ( ) $ ` ~ or newline). */
static int split_words(const char *cmd, char **w, char *buf)
{
	int n = 0;
	char *o = buf;

	for (const char *p = cmd;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == MAX_WORDS)
			return -1;
		w[n++] = o;
		for (; *p && *p != ' ' && *p != '\t'; p++) {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					*o++ = *p;
				if (!*p)
					return -1;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '$' || *p == '`')
						return -1;
					if (*p == '\\' && strchr("\"\\$`", p[1]) && p[1])
						p++;
					*o++ = *p;
				}
				if (!*p)
					return -1;
			} else if (*p == '\\') {
				if (!*++p)
					return -1;
				*o++ = *p;
			} else if (strchr("|&;<>()$`~\n#", *p) && !(*p == '#' && o > w[n - 1])) {
				return -1;
			} else {
				*o++ = *p;
			}
		}
		*o++ = '\0';
	}
}

static int has_arg(int n, char **w, const char *const *any)
{
	for (int i = 1; i < n; i++)
		for (int k = 0; any[k]; k++)
			if (!strcmp(w[i], any[k]) || (any[k][0] == '=' && !strncmp(w[i], any[k] + 1, strlen(any[k] + 1))))
				return 1;
	return 0;
}

/* ---- channels ---- */

void chan_queue(struct schan *c, const char *buf, size_t n)
{
	if (c->out.len - c->off + n > OUT_MAX) {   /* the client stopped reading: drop, do not grow */
		c->sess->srv->dropped += (int64_t)(c->out.len - c->off);
		sbuf_reset(&c->out);
		c->off = 0;
	}
	sbuf_add(&c->out, buf, n);
}

static void subscribe(struct schan *c, int kind)
{
	struct srv *srv = c->sess->srv;
	struct schan **head = &srv->subs[c->sess->node * 3 + (kind - CK_NVSMI)];

	c->kind = kind;
	c->sub_next = *head;
	*head = c;
	if (kind == CK_NVSMI) {   /* nvidia-smi prints at once, then every period */
		const struct sbuf *last = &srv->last_nvsmi[c->sess->node];

		if (last->len)
			chan_queue(c, last->s, last->len);
	}
}

int srv_subscribers(const struct srv *srv, int node, int kind)
{
	int n = 0;

	for (const struct schan *c = srv->subs[node * 3 + (kind - CK_NVSMI)]; c; c = c->sub_next)
		n++;
	return n;
}

void chan_unsubscribe(struct schan *c)
{
	struct srv *srv = c->sess->srv;

	if (c->kind < CK_NVSMI || c->kind > CK_IB)
		return;
	for (struct schan **pp = &srv->subs[c->sess->node * 3 + (c->kind - CK_NVSMI)]; *pp; pp = &(*pp)->sub_next)
		if (*pp == c) {
			*pp = c->sub_next;
			break;
		}
	c->kind = CK_NONE;
}

static void reply(struct schan *c, int status, const char *text, size_t n)
{
	c->kind = CK_ONESHOT;
	if (n)
		chan_queue(c, text, n);
	c->status = status;
	c->finishing = 1;
}

/* A one-shot command's end: out on stdout, err (if any) on stderr, status. */
void chan_answer(struct schan *c, int status, const char *out, size_t n, const char *err)
{
	if (err && *err)
		ssh_channel_write_stderr(c->ch, err, (uint32_t)strlen(err));
	reply(c, status, out, n);
}

static void refuse(struct schan *c, const char *why)
{
	char name[32], msg[600];
	int n;

	srv_node_name(c->sess->srv, c->sess->node, name, sizeof name);
	n = snprintf(msg, sizeof msg, "myriad-sim: %s: %s: %.400s\n", name, why, c->cmd);
	if (n > (int)sizeof msg - 1)
		n = (int)sizeof msg - 1;
	ssh_channel_write_stderr(c->ch, msg, (uint32_t)n);
	reply(c, 127, NULL, 0);
}

static int node_command(struct schan *c, int n, char **w)
{
	static const char *const loop_flags[] = {"-l", "-lms", "--loop", "=--loop=", "=--loop-ms=", "=-lms=", NULL};
	static const char *const follow[] = {"-f", "-kf", "-fk", "--follow", "-w", NULL};
	struct srv *srv = c->sess->srv;
	int node = c->sess->node;

	if (!strcmp(w[0], "nvidia-smi")) {
		if (has_arg(n, w, loop_flags))
			subscribe(c, CK_NVSMI);
		else
			reply(c, 0, srv->last_nvsmi[node].s, srv->last_nvsmi[node].len);
	} else if (!strcmp(w[0], "journalctl") || !strcmp(w[0], "dmesg")) {
		if (has_arg(n, w, follow))
			subscribe(c, CK_KMSG);
		else
			reply(c, 0, NULL, 0);
	} else {
		return -1;
	}
	return 0;
}

static int service_command(struct schan *c, int n, char **w)
{
	struct srv *srv = c->sess->srv;
	int node = c->sess->node;
	static const char *const json[] = {"--json", NULL};

	if (node == NODE_HEAD && slurm_command(c, n, w) == 0)
		return 0;
	if (node == NODE_HEAD && (!strcmp(w[0], "sinfo") || !strcmp(w[0], "squeue")) && has_arg(n, w, json)) {
		const struct sbuf *d = &srv->docs[w[0][1] == 'i' ? 0 : 1];

		reply(c, 0, d->s, d->len);
	} else if (node == NODE_BMS && !strcmp(w[0], "bmsctl") && n == 3 && !strcmp(w[1], "power") &&
		   !strcmp(w[2], "--json")) {
		reply(c, 0, srv->docs[2].s, srv->docs[2].len);
	} else {
		return -1;
	}
	return 0;
}

static int common_command(struct schan *c, int n, char **w)
{
	char name[40];
	struct sbuf b = {0};

	if (!strcmp(w[0], "hostname") && n == 1) {
		srv_node_name(c->sess->srv, c->sess->node, name, sizeof name - 1);
		strcat(name, "\n");
		reply(c, 0, name, strlen(name));
	} else if (!strcmp(w[0], "echo")) {
		for (int i = 1; i < n; i++) {
			sbuf_adds(&b, w[i]);
			sbuf_addc(&b, i + 1 < n ? ' ' : '\n');
		}
		if (n == 1)
			sbuf_addc(&b, '\n');
		reply(c, 0, b.s, b.len);
		sbuf_free(&b);
	} else if ((!strcmp(w[0], "true") || !strcmp(w[0], "false")) && n == 1) {
		reply(c, w[0][0] == 'f', NULL, 0);
	} else if (!strcmp(w[0], "sleep") && n == 2 && atof(w[1]) >= 0 && atof(w[1]) <= 3600) {
		c->kind = CK_SLEEP;
		c->wake = mono_us() + (int64_t)(atof(w[1]) * US_PER_SEC);
	} else {
		return -1;
	}
	return 0;
}

void chan_start(struct schan *c)
{
	char *w[MAX_WORDS], *buf = xmalloc(strlen(c->cmd) + 1);
	int n;

	c->sess->srv->commands++;
	if (!strcmp(c->cmd, PROBE_IB_CMD) && c->sess->node >= 0) {
		subscribe(c, CK_IB);
	} else if ((n = split_words(c->cmd, w, buf)) < 0) {
		refuse(c, "only simple commands are simulated");
	} else {
		int k = 0;

		while (k + 1 < n && (!strcmp(w[k], "exec") || (!strcmp(w[k], "sudo") && !strcmp(w[k + 1], "-n"))))
			k += strcmp(w[k], "exec") ? 2 : 1;   /* what a site's probe override may add */
		if (n == 0)
			refuse(c, "empty command");
		else if (common_command(c, n - k, w + k) < 0 &&
			 (c->sess->node < 0 ? service_command(c, n - k, w + k) : node_command(c, n - k, w + k)) < 0)
			refuse(c, "command not found on the simulated fleet");
	}
	free(buf);
	free(c->cmd);
	c->cmd = NULL;
}

/* ---- the simulator's text ---- */

void srv_sim_text(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n)
{
	struct srv *srv = ctx;

	if (s >= SIM_SINFO) {
		sbuf_reset(&srv->docs[s - SIM_SINFO]);
		sbuf_add(&srv->docs[s - SIM_SINFO], buf, n);
		return;
	}
	if (node < 0 || node >= srv->nodes)
		return;
	if (s == SIM_KMSG && srv->exp)
		exp_kmsg(srv, node, buf, n);
	if (s == SIM_NVSMI) {
		sbuf_reset(&srv->last_nvsmi[node]);
		sbuf_add(&srv->last_nvsmi[node], buf, n);
	}
	for (struct schan *c = srv->subs[node * 3 + (s == SIM_NVSMI ? 0 : s == SIM_KMSG ? 1 : 2)]; c; c = c->sub_next)
		chan_queue(c, buf, n);
}

/* After an action: the head node's documents now, as slurmctld answers
 * with the change at once. Printing a document draws nothing and does not
 * advance the clock, so the next step prints what it would have. */
void srv_refresh_docs(struct srv *srv)
{
	struct sim_sink sink = {srv, srv_sim_text};

	sim_print_service(srv->sim, SIM_SINFO, &sink);
	sim_print_service(srv->sim, SIM_SQUEUE, &sink);
}
