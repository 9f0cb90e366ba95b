/*
 * tcl.h - the embedded Tcl interpreter: the console's command language,
 * configuration, key bindings and runbooks. Every way in (the `:` line, a
 * key, a hook, a batch runbook) goes through tcl_eval and one command table.
 *
 * The command table, the hooks, the batch runner and the configuration are
 * described in man/myriad-tcl.7, which is generated from the table
 * (`myriad -e {help -man}`).
 */
#ifndef MYRIAD_TCL_H
#define MYRIAD_TCL_H

#include "../myriad.h"
#include "../util.h"

/* Creates app->tcl (once). 0, or -1 with *err. */
int tcl_init(struct myriad *app, char **err);
void tcl_free(struct myriad *app);
/* Evaluates script; the result (or the error message with errorInfo) is
 * appended to out when out is not NULL. Returns 0 ok, 1 script error. */
int tcl_eval(struct myriad *app, const char *script, struct sbuf *out);
/* The console's way in: as tcl_eval, but an action's outcome reads as a line,
 * a nodeset Tcl took for a command gets a hint, and when typed (a line typed
 * at the : line, not a command a key built and the operator confirmed) its
 * acting commands ask the operator first, as keys do (`ui confirm`). */
int tcl_eval_console(struct myriad *app, const char *script, int typed, struct sbuf *out);
/* Loads a configuration file; an error names file and line. 0 or -1. */
int tcl_load_config(struct myriad *app, const char *path, char **err);
/* Command names for completion: calls fn for each command (and subcommand
 * as "node drain") that starts with prefix. */
void tcl_complete(struct myriad *app, const char *prefix, void (*fn)(void *ctx, const char *word), void *ctx);

/* ---- start-up (main.c) ---- */

/* Everything before the sources start (after the recorder opened): creates
 * the interpreter and applies the global options (read-only, dry-run; the
 * batch flag and --json capture for -e and run). *config is the
 * configuration to load (malloc'd, NULL for none): -c FILE, or else
 * $XDG_CONFIG_HOME/myriad/myriad.tcl when it exists and --sim was not given.
 * main.c loads it through ssh_configure (which calls tcl_load_config, so
 * host and service fill the SSH inventory) and starts the simulator when no
 * source runs afterwards; with --sim the configuration's `sim` is ignored.
 * Returns 0, or the exit status (2: the configuration cannot be read) with
 * *err. */
int tcl_configure(struct myriad *app, const struct cli_opts *o, char **config, char **err);

/* `myriad ... -e SCRIPT` and `myriad ... run RUNBOOK.tcl ARGS...` with no
 * terminal: output on stdout, errors with errorInfo on stderr, --json for a
 * JSON object on stdout; -e runs before the runbook when both are given.
 * Returns the exit status: 0 ok, 1 script error, 2 could not reach what it
 * needed. With the simulator, cluster time is virtual: it passes only while
 * the run waits (`advance`, a synchronous `after`, `vwait`) and, with
 * --ticks T, after the script until tick T; see man/myriad-tcl.7. When a
 * recording is being replayed, each tick is replay_step(1) and the run ends
 * with the recording: `replay FILE --run RUNBOOK` is this with
 * app->dry_run set (what the runbook would have done, with timestamps). */
int tcl_run_batch(struct myriad *app, const struct cli_opts *o, const char *runbook, int argc, char **argv);
/* The `run` subcommand, for main.c's table. */
/* Sets the global Tcl variable name to value (after tcl_init). */
void tcl_set_var(struct myriad *app, const char *name, const char *value);
int tcl_cli_run(struct myriad *app, const struct cli_opts *o, int argc, char **argv);

/* ---- the console (src/ui) ---- */

struct tcl_console_ops {
	/* The console's own actions by name, for key bindings: "help",
	 * "filter", "command-line", "quit", "refresh", "select" (arg: up, down,
	 * ...). 0, or -1 with *err (malloc'd). */
	int (*action)(struct myriad *app, const char *name, const char *arg, char **err);
	/* Asks the operator for a line; calls done(ctx, line) or done(ctx, NULL)
	 * when cancelled. Never blocks the loop. 0, or -1 with *err. */
	int (*prompt)(struct myriad *app, const char *text, void (*done)(void *ctx, const char *line),
		      void *ctx, char **err);
};
/* Called by the console once app->loop and app->console exist: Tcl's timers
 * and file events move onto the loop, the default key bindings
 * (scripts/keys.tcl) are applied, then those of the configuration and its
 * theme. ops may be NULL. 0, or -1 with *err. */
int tcl_console_ready(struct myriad *app, const struct tcl_console_ops *ops, char **err);
/* What the cursor is on, for key bindings (`ui selection WHAT`): what is
 * "node", "gpu", "job", "fault" or "panel"; value "" clears it. */
void tcl_set_selection(struct myriad *app, const char *what, const char *value);
/* Services Tcl's due timers and queued events now (the console calls it
 * after each tick; it is also driven by loop timers). */
void tcl_service(struct myriad *app);

#endif
