/*
 * myriad.h - the application context and the registry through which sources
 * and backends plug in.
 *
 * A source produces text (or events) about the cluster: the embedded
 * simulator, SSH probes, a Slurm head node, a facility meter. A backend
 * carries actions to the engine that executes them: Slurm, or the simulator's
 * scheduler. Built-ins register exactly as a loadable plugin would
 * (MYRIAD_ABI), so a site's own source is written the same way.
 */
#ifndef MYRIAD_MYRIAD_H
#define MYRIAD_MYRIAD_H

#include <stddef.h>
#include <stdint.h>
#include "bus.h"
#include "clock.h"
#include "loop.h"
#include "model.h"

#define MYRIAD_ABI 2
#define MYRIAD_VERSION "0.1.0"

struct myriad;
struct source;
struct rec;
struct inventory;
struct tcl_state;
struct action_engine;
struct console;
struct backend;
struct backend_ops;

#define SOURCE_OWNS_TIME 0x1   /* its tick sets app->tick and app->now (a replay) */

struct source_ops {
	const char *name;
	int abi;                                  /* MYRIAD_ABI */
	int flags;                                /* SOURCE_* */
	/* Create and start from an argument string ("gpus=2048,seed=7" for sim). */
	int (*start)(struct source *src, const char *args, char **err);
	/* Once per tick, before the bus is flushed; now is cluster time. A
	 * source that owns time returns -1 when it has no tick left. */
	int (*tick)(struct source *src, int64_t now);
	void (*stop)(struct source *src);
};

struct plugin_rec;

struct source {
	const struct source_ops *ops;
	struct myriad *app;
	void *priv;
	struct plugin_rec *plugin;    /* the plugin whose class it is; NULL: myriad's own */
	int disabled;                 /* its plugin was disabled: no more ticks */
};

struct backend {
	const struct backend_ops *ops;   /* src/action/backend.h */
	struct myriad *app;
	void *priv;
};

/* The parts of a run, in the order they start; they stop in the reverse
 * order, on the one path every exit takes: app_free() (the end of main, q
 * in the console, Tcl's exit, SIGTERM and SIGINT, the end of a batch run).
 * A part records its stop function when it starts (app_started) and clears
 * it when it stops by itself (app_stopped). A fatal error stops only the
 * console (the terminal comes back) and the recorder (the last tick is
 * committed). */
enum app_part {
	PART_RECORDER,    /* first in, last out: it records the inventory, commits the last tick */
	PART_INVENTORY,   /* hosts, services, keys of the configuration */
	PART_TCL,         /* the interpreter: configuration, hooks, runbooks */
	PART_PLUGINS,     /* loaded plugins (their sources and backends stop first) */
	PART_SOURCES,     /* simulator, SSH, replay */
	PART_BACKEND,     /* where actions go */
	PART_ACTIONS,     /* the action engine: pending actions end (audited) first */
	PART_CONSOLE,     /* the terminal */
	PART_COUNT
};

struct myriad {
	struct model model;
	struct bus bus;
	struct loop *loop;            /* the one event loop, for the whole run */
	struct clock clock;           /* who makes the next tick (clock.h) */
	struct source *sources[16];
	int nsources;
	struct backend *backend;      /* where actions go; NULL = none */
	int virtual_time;             /* 1: the clock is start + tick seconds */
	int64_t start, now, tick;
	int read_only, dry_run;
	int quit;                     /* a signal (SIGTERM, SIGINT) asked the run to end */
	int defer_start;              /* set before the sources start: they may leave part of their start for later */
	int start_pending;            /* sources that did: app_finish_start() completes them */
	/* parts that plug in beside the model; NULL when not running. They
	 * start in this order and stop in the reverse one, on the one path
	 * every exit takes (app_free; a fatal error runs it too). */
	struct rec *recorder;         /* store: the SQLite recorder (first in, last out) */
	struct inventory *inventory;  /* transport: hosts, services, keys of the configuration */
	struct tcl_state *tcl;        /* script: the Tcl interpreter */
	struct action_engine *actions;/* action engine: guards, pending actions, audit ids */
	struct console *console;      /* ui: the ncurses console */
	struct plugin_rec *plugins;   /* built-in and loaded plugins (plugin.c) */
	void (*stop[PART_COUNT])(struct myriad *app);   /* what app_free runs, last part first */
};

/* Global options of the command line (myriad(1)). */
struct cli_opts {
	const char *config, *sim, *theme, *record, *eval;
	int read_only, dry_run, json, once, detail;
	int plain;                    /* --plain: the text summary, not the console */
	int64_t ticks;
	int nargs;
	char **args;                  /* the subcommand and its arguments */
};

/* A subcommand: `myriad NAME ARGS...`. exec returns the exit status
 * (0 ok, 1 error in what was asked, 2 could not reach what it needed). */
#define CMD_NEEDS_CLUSTER 0x1     /* start the configured sources first */
struct cli_command {
	const char *name, *usage, *help;
	int flags;
	int (*exec)(struct myriad *app, const struct cli_opts *o, int argc, char **argv);
};

/* Registry of classes, by name: what plugins (built in or loaded) register
 * through their host table (plugin.h). 0, or -1 for a name taken or a
 * wrong ABI. */
int registry_add_source(const struct source_ops *ops);
int registry_add_backend(const struct backend_ops *ops);
const struct source_ops *registry_source(const char *name);
const struct backend_ops *registry_backend(const char *name);

void app_init(struct myriad *app);
/* Stops every part that started, last first, then frees the context. */
void app_free(struct myriad *app);
void app_started(struct myriad *app, enum app_part part, void (*stop)(struct myriad *app));
void app_stopped(struct myriad *app, enum app_part part);
/* Starts a source of class name with args; 0, or -1 with *err. */
int app_add_source(struct myriad *app, const char *name, const char *args, char **err);
/* One tick: EV_TICK, every source's tick, then the bus is flushed (or the
 * tick of the source that owns time). -1 when that source has no tick left.
 * Callers go through the clock (clock.h), which also tells subscribers. */
int app_tick(struct myriad *app);
/* Emit an event stamped with the current cluster time and source. */
void app_emit(struct myriad *app, struct event *ev);
/* Says msg where the operator sees it: an EV_NOTICE from who (the log
 * panel, the recording), and stderr when there is no console. */
void app_notice(struct myriad *app, int level, const char *who, const char *msg);

/* The embedded simulator as a source and a backend (source_sim.c). */
extern const struct source_ops sim_source_ops;
extern const struct backend_ops sim_backend_ops;
struct sim *app_sim(struct myriad *app);   /* NULL if no simulator runs */
/* With defer_start, a source may leave the slow part of its start (the
 * simulator: its first sinfo, squeue and facility documents) for after the
 * console's first frame. This completes it, in the order the start would
 * have, and flushes the bus; the console calls it once the frame is drawn,
 * app_tick before a tick. Nothing to do otherwise. */
void app_finish_start(struct myriad *app);

#endif
