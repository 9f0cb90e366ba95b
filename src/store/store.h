/*
 * store.h - the SQLite log: the recorder, replay with time travel, and the
 * files cut and exported from a recording. Nothing outside src/store speaks
 * SQL (the Tcl `log query` command goes through store_query).
 */
#ifndef MYRIAD_STORE_H
#define MYRIAD_STORE_H

#include <stdint.h>
#include "../myriad.h"

/* ---- recorder ---- */
/* Opens (creates) path and subscribes to app's bus; must be called before any
 * source starts so the inventory is recorded. 0, or -1 with *err (malloc'd).
 * A log that cannot be written later never stops the console: the recorder
 * reports it (recorder_status) and keeps trying. */
int recorder_open(struct myriad *app, const char *path, char **err);
void recorder_close(struct myriad *app);
const char *recorder_path(const struct myriad *app);            /* NULL if none */
/* "" when healthy, else why the log is not being written ("disk full") */
const char *recorder_status(const struct myriad *app);
/* The default path: $XDG_STATE_HOME/myriad/<cluster>-<UTC time>.db (malloc'd). */
char *recorder_default_path(void);

/* ---- replay ---- */
struct replay_info {
	int64_t start, end, now;      /* us */
	double speed;                 /* 0 = paused */
	int downsampled;              /* now lies in a down-sampled stretch */
	const char *path;
};
/* Opens a recording and makes it app's only source: the model is rebuilt
 * from it through app's bus. */
int replay_open(struct myriad *app, const char *path, char **err);
int replay_seek(struct myriad *app, int64_t t_us, char **err);     /* absolute time */
int replay_step(struct myriad *app, int64_t ticks, char **err);    /* +/- ticks */
int replay_seek_fault(struct myriad *app, int dir, char **err);    /* next (+1) / previous (-1) fault */
void replay_play(struct myriad *app, double speed);                /* 0 pauses */
int replay_get_info(const struct myriad *app, struct replay_info *out);   /* -1 if not replaying */

/* ---- queries ---- */
/* Runs a read-only SQL query on the current recording; rows via fn
 * (column names and values as text, NULL for SQL NULL). 0, or -1 with *err. */
int store_query(struct myriad *app, const char *sql,
		int (*fn)(void *ctx, int ncols, char **names, char **values), void *ctx, char **err);

#endif
