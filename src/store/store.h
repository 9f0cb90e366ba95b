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
/* The default path: $XDG_STATE_HOME/myriad/<cluster>-<UTC time>.db, or
 * <cluster>-<UTC time>-2.db, -3 ... when that name is taken (malloc'd). The
 * file is created empty and exclusively, so two runs in the same second never
 * share one. */
char *recorder_default_path(void);
/* The same for a given cluster name (recorder_default_path uses "myriad").
 * recorder_open(app, NULL, ...) records to this path, named when the
 * cluster announces itself (EV_TOPOLOGY). */
char *recorder_default_path_for(const char *cluster);
/* Retention of the recording being written: "full=SECONDS,step=TICKS,
 * age=SECONDS,size=BYTES[K|M|G]" (any subset; see myriad-log(5)). The
 * environment variable MYRIAD_LOG_RETENTION is read at recorder_open.
 * 0, or -1 with *err. */
int recorder_set_retention(struct myriad *app, const char *spec, char **err);
/* Counts since recorder_open, for the header and the benchmark. */
struct recorder_stats {
	int64_t groups;               /* ticks committed */
	int64_t lost;                 /* ticks that could not be written */
	int64_t chunks, keyframes;
	int64_t bytes;                /* size of the file, WAL included */
};
int recorder_get_stats(const struct myriad *app, struct recorder_stats *out);

/* 0 if path is a file this process can read, else -1 with *err (malloc'd):
 * "PATH: cannot read it: WHY". The commands answer it with exit status 2
 * (myriad(1)): what they needed could not be read. */
int store_can_read(const char *path, char **err);

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
/* While replaying, the console must not call app_tick(): the replay feeds
 * the bus itself. replay_play installs a timer on app->loop when there is
 * one; a console that drives its own timer calls replay_pump instead (it
 * plays what is due at the current speed; nothing when paused). */
void replay_pump(struct myriad *app);
/* The recording's time of "+SECONDS" or an ISO time, as us. 0, or -1 with
 * *err (also when it lies outside the recording). */
int replay_parse_when(const struct myriad *app, const char *when, int64_t *t_us, char **err);
/* How many times the replay's model was replaced rather than continued (a
 * seek back, a seek forward past a keyframe, the first group): what was
 * built from the events the replay delivered (the console's log) is built
 * again from the recording (replay_log) when this moves. */
uint64_t replay_jumps(const struct myriad *app);
/* 1 while the bus delivers an event read from the recording; 0 for one of
 * this run (a notice, a refused action, what a hook emits). */
int replay_delivering_recorded(const struct myriad *app);
/* What the recording says happened up to the replay's position, oldest
 * first, as the log panel shows it: the recorded events of the types in
 * mask (BUS_MASK bits) through fn_event, and the faults opened (the faults
 * table, the GPU as it was later named) through fn_fault, in the order of
 * their ticks and times; the audit's rows (actions table) from before the
 * first tick the recording keeps come first, as EV_ACTION events. `tick` is
 * each one's group. 0, or -1 with *err. */
struct replay_log_fns {
	void (*event)(void *ctx, int64_t tick, const struct event *ev);
	void (*fault)(void *ctx, int64_t tick, const struct fault *f);
};
int replay_log(const struct myriad *app, uint32_t mask, const struct replay_log_fns *fns, void *ctx, char **err);

/* ---- queries ---- */
/* Runs a read-only SQL query on the current recording; rows via fn
 * (column names and values as text, NULL for SQL NULL). 0, or -1 with *err. */
int store_query(struct myriad *app, const char *sql,
		int (*fn)(void *ctx, int ncols, char **names, char **values), void *ctx, char **err);

/* ---- the command line (main.c) ---- */
/* Opens the recorder for start_sources(): to --record FILE, or for the live
 * console (no --once, no subcommand) to the default path; `--record none`
 * records nothing. A log that cannot be opened is reported on stderr and the
 * run goes on without it. */
void store_record_start(struct myriad *app, const struct cli_opts *o);
/* myriad replay FILE [--at WHEN] [--speed X] [--once --json [--detail]] [--run RUNBOOK.tcl] */
int store_cmd_replay(struct myriad *app, const struct cli_opts *o, int argc, char **argv);
/* myriad log cut FILE --from T1 --to T2 -o OUT | log export FILE --format csv|jsonl|openmetrics */
int store_cmd_log(struct myriad *app, const struct cli_opts *o, int argc, char **argv);

#endif
