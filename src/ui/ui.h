/*
 * ui.h - what the rest of myriad may ask of the console: bind keys, switch
 * panels and themes, show a message, ask for confirmation. In batch mode
 * (no console) each returns -1 with "not available without the console".
 *
 * Key tables: "global" (also "root" or NULL), and one per panel:
 * "utilization", "topology", "power", "faults", "jobs", "node", "log". The
 * panel's table is looked up first, then "global". A binding's script whose
 * first word is a built-in console command runs in C without Tcl; anything else is
 * evaluated as Tcl. Built-in console commands (`?` lists them with their keys):
 *   panel NAME, panel-next, panel-prev, help, filter, command-prompt, quit,
 *   redraw, theme-next, cursor-up/-down/-left/-right, page-up, page-down,
 *   top, bottom, select, back, drain, reroute, checkpoint, ack,
 *   replay-step ±N, replay-seek ±SECONDS, replay-fault ±1, replay-play,
 *   replay-speed faster|slower, and panel commands: metric-next, metric-prev,
 *   zoom, sort-next, sort-reverse, show-closed, group-bursts, unacked-only,
 *   faulted-only, node-next, node-prev, follow.
 * Key names: q, ?, C-x, Enter, Tab, BTab, Escape, BSpace, Space, Up, Down,
 * Left, Right, PPage, NPage, Home, End, IC, DC, F1..F12.
 *
 * Environment: NO_COLOR (attributes only), MYRIAD_THEME (a theme when
 * --theme is not given), MYRIAD_THEMES (where theme files are looked for
 * first), XDG_STATE_HOME (the command line's history: myriad/history),
 * MYRIAD_TICK_MS (wall-clock ms per tick, default 1000: fast-forward for
 * tests and demos), MYRIAD_TEST_SQUEUE (tests only: a `squeue --json` file
 * fed after every tick).
 */
#ifndef MYRIAD_UI_H
#define MYRIAD_UI_H

#include "../myriad.h"

/* Runs the full-screen console until the operator quits. Returns exit status.
 * With o->ticks >= 0 it quits by itself after that many ticks. */
int console_run(struct myriad *app, const struct cli_opts *o);

/* Binds key in table to script ("" or NULL unbinds). */
int ui_bind(struct myriad *app, const char *table, const char *key, const char *script, char **err);
int ui_panel(struct myriad *app, const char *name, char **err);
int ui_theme(struct myriad *app, const char *name, char **err);
int ui_message(struct myriad *app, const char *text);
/* Asks the operator; calls done(ctx, 1) on yes, done(ctx, 0) on no. Never
 * blocks the loop. -1 with *err when there is no console. */
int ui_confirm(struct myriad *app, const char *text, void (*done)(void *ctx, int yes), void *ctx, char **err);

/* Appends text (one log line per line) to the log panel: command output,
 * runbook progress. kind is a short tag ("out", "runbook"). -1 without the
 * console. */
int ui_log(struct myriad *app, const char *kind, const char *text);
/* The theme to use when neither --theme nor MYRIAD_THEME names one: the
 * configuration's `theme NAME` may call this before the console starts. */
void ui_default_theme(const char *name);
/* The default key bindings as text (`myriad keys`) or as the roff of
 * myriad(1)'s KEYS section (`myriad keys -man`), from the one key table. */
void ui_keys_text(struct sbuf *out, int man);

#endif
