/*
 * fanout.h - run one command on many nodes over the session pool:
 *
 *   myriad [-c FILE] fanout -w NODESET [-f FANOUT] [-t TIMEOUT] [-b] -- COMMAND...
 *
 * Output is printed as it arrives, each line prefixed by the node's name, or
 * with -b gathered as ClusterShell does: identical outputs folded under one
 * nodeset. A summary on stderr names the nodes that failed, timed out or
 * could not be reached. Exit status: 0 every node ran the command and it
 * exited 0; 1 some command exited non-zero (or was killed); 2 some node
 * could not be reached, refused us, or timed out.
 *
 * COMMAND: one word is a shell command line passed as it is ("uname -r |
 * cut -d. -f1"); several words are an argument vector, each word quoted for
 * the remote shell (quote.h). Nodes outside the inventory are reached with
 * the operator's ~/.ssh/config and defaults, as OpenSSH would.
 */
#ifndef MYRIAD_SSH_FANOUT_H
#define MYRIAD_SSH_FANOUT_H

#include "../myriad.h"

struct fanout_opts {
	int fanout;          /* nodes connecting or running at once; 0: 256 */
	double timeout_s;    /* per node, to connect and to run; 0: none (connect timeout still applies) */
	int gather;          /* -b: keep output for gathering instead of printing lines */
	/* without gather: called for each complete line (n excludes the newline) */
	void (*line)(void *ctx, const char *node, const char *buf, size_t n, int is_stderr);
	void *ctx;
	int max_nodes;       /* the most one fan-out may reach; 0: FANOUT_MAX_NODES */
};
#define FANOUT_MAX_NODES 131072     /* 12,800 nodes is the size designed for, ten times over */
#define FANOUT_MAX_NODES_CAP 1048576

struct fanout_result {
	char *name;
	int status;          /* exit status 0-255, or -1 */
	int conn;            /* enum conn_state: CONN_UP if the command ran */
	char *why;           /* why status is -1 ("timed out after 5.0 s", the connection error), or NULL */
	struct sbuf out, err;   /* with gather: the output, at most FANOUT_OUTPUT_MAX bytes each */
	int truncated;
};
#define FANOUT_OUTPUT_MAX ((size_t)16 << 20)

struct loop;
struct fanout;

/* Called once, from the loop, when every node is done: the results in
 * nodeset order, now the callee's (fanout_results_free). */
typedef void (*fanout_done_fn)(void *ctx, struct fanout_result *res, int n);

/* Starts command on every node of nodeset on loop l (the console's: the
 * screen and the other sessions keep going meanwhile). NULL with *err for a
 * bad request (nodeset syntax). */
struct fanout *fanout_start(struct myriad *app, struct loop *l, const char *nodeset, const char *command,
			    const struct fanout_opts *o, fanout_done_fn done, void *ctx, char **err);
/* Ends a run early: sessions closed, results dropped, done not called. */
void fanout_cancel(struct fanout *f);
/* Nodes in the run. */
int fanout_nodes(const struct fanout *f);

/* The blocking form (a private loop: batch use, `myriad fanout`). 0, or -1
 * with *err for a bad request. */
int fanout_run(struct myriad *app, const char *nodeset, const char *command, const struct fanout_opts *o,
	       struct fanout_result **res, int *nres, char **err);
void fanout_results_free(struct fanout_result *r, int n);

/* Appends the outputs (use_err: the stderr outputs) gathered as
 * ClusterShell's -b prints them. Raw node text: sanitise before display. */
void fanout_gather(const struct fanout_result *r, int n, int use_err, struct sbuf *out);
/* Appends one line per group of failed nodes with the same reason, then
 * "F of N nodes failed (S s)", each line starting with prefix. Returns 0
 * (all ran and exited 0), 1 (some command failed) or 2 (some node was not
 * reached or timed out). */
int fanout_summary(const struct fanout_result *r, int n, double seconds, const char *prefix, struct sbuf *out);

/* The subcommand (main.c's table). */
int cmd_fanout(struct myriad *app, const struct cli_opts *o, int argc, char **argv);

#endif
