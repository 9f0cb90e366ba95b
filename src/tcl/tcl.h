/*
 * tcl.h - the embedded Tcl interpreter: the console's command language,
 * configuration, key bindings and runbooks. Every way in (the `:` line, a
 * key, a hook, a batch runbook) goes through tcl_eval and one command table.
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
/* Loads a configuration file; an error names file and line. 0 or -1. */
int tcl_load_config(struct myriad *app, const char *path, char **err);
/* Command names for completion: calls fn for each command (and subcommand
 * as "node drain") that starts with prefix. */
void tcl_complete(struct myriad *app, const char *prefix, void (*fn)(void *ctx, const char *word), void *ctx);

#endif
