/*
 * ui.h - what the rest of myriad may ask of the console: bind keys, switch
 * panels and themes, show a message, ask for confirmation. In batch mode
 * (no console) each returns -1 with "not available without the console".
 */
#ifndef MYRIAD_UI_H
#define MYRIAD_UI_H

#include "../myriad.h"

/* Runs the full-screen console until the operator quits. Returns exit status. */
int console_run(struct myriad *app, const struct cli_opts *o);

int ui_bind(struct myriad *app, const char *table, const char *key, const char *script, char **err);
int ui_panel(struct myriad *app, const char *name, char **err);
int ui_theme(struct myriad *app, const char *name, char **err);
int ui_message(struct myriad *app, const char *text);
/* Asks the operator; calls done(ctx, 1) on yes, done(ctx, 0) on no. Never
 * blocks the loop. -1 with *err when there is no console. */
int ui_confirm(struct myriad *app, const char *text, void (*done)(void *ctx, int yes), void *ctx, char **err);

#endif
