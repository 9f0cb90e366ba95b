/*
 * plugin.h - the plugin ABI: how a part of myriad (a source, a backend, Tcl
 * commands) plugs in, whether it is built in (the simulator, SSH, Slurm,
 * replay) or loaded from a shared object at run time.
 *
 * A loadable plugin is a shared object that exports one symbol,
 *
 *     const struct myriad_plugin *myriad_plugin(void);
 *
 * returning its description. myriad loads it with dlopen(RTLD_NOW |
 * RTLD_LOCAL), refuses it when its abi differs from MYRIAD_PLUGIN_ABI, and
 * calls its load() with the host table: the only way a plugin reaches
 * myriad. The table only grows (new members at the end; `size` says how
 * much of it a host has); a plugin uses nothing else of myriad's, so it
 * needs only these headers and libc (and its own libraries) to link.
 *
 * Everything a plugin registers runs on the one event loop and must not
 * block: its loop callbacks and source ticks are timed, and a plugin whose
 * calls exceed its time budget (plugin load NAME -budget MS; 100 ms) five
 * times, or that returns errors from load, is reported and disabled. What
 * in-process loading cannot contain is a crash or a call that never returns:
 * a plugin that segfaults takes myriad with it (the recorder's last tick is
 * lost, the log stays valid); run untrusted code as a Tcl plugin (a safe
 * interpreter) or out of process.
 */
#ifndef MYRIAD_PLUGIN_H
#define MYRIAD_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include "myriad.h"
#include "action/backend.h"

#define MYRIAD_PLUGIN_ABI 1
#define MYRIAD_PLUGIN_SYMBOL "myriad_plugin"

enum plugin_log { PLOG_INFO, PLOG_WARN, PLOG_ERROR };

/* A Tcl command a plugin adds: `NAME ARG...`. It returns 0 with *result
 * (malloc'd, may be NULL) or -1 with *result as the error message. */
struct plugin_command {
	const char *name;          /* one word, not one of myriad's */
	const char *usage, *help;
	int (*fn)(void *ctx, int argc, const char *const *argv, char **result);
	void *ctx;
};

struct myriad_host {
	int abi;                   /* MYRIAD_PLUGIN_ABI */
	size_t size;               /* sizeof(struct myriad_host) of this host */
	struct myriad *app;
	const char *plugin;        /* the name it was handed to */
	/* classes by name: `sim`, `ssh`, `slurm`, or the plugin's own */
	int (*add_source)(const struct myriad_host *h, const struct source_ops *ops);
	int (*add_backend)(const struct myriad_host *h, const struct backend_ops *ops);
	int (*add_command)(const struct myriad_host *h, const struct plugin_command *cmd);
	/* starts a source of a class (the plugin's own, say) with an argument string */
	int (*start_source)(const struct myriad_host *h, const char *class_name, const char *args, char **err);
	/* an event into the bus: time 0 is now, source NULL is the plugin's name */
	void (*emit)(const struct myriad_host *h, struct event *ev);
	/* text of a format myriad parses (enum fmt: FMT_NVSMI, FMT_PROMETHEUS ...)
	 * for a node (-1 for a service), through the same parsers as every
	 * other source: feed bytes, end a document. */
	void *(*stream_open)(const struct myriad_host *h, int32_t node, int fmt);
	void (*stream_feed)(void *stream, const char *buf, size_t n);
	void (*stream_end)(void *stream);
	void (*stream_close)(void *stream);
	/* the one loop; callbacks are timed against the plugin's budget */
	int (*watch)(const struct myriad_host *h, int fd, int events, loop_fd_fn fn, void *ctx);
	void (*unwatch)(const struct myriad_host *h, int fd, void *ctx);
	int64_t (*timer)(const struct myriad_host *h, int64_t ms, int64_t every_ms, loop_timer_fn fn, void *ctx);
	void (*timer_cancel)(const struct myriad_host *h, int64_t id);
	/* a line in the log panel (stderr without the console) */
	void (*log)(const struct myriad_host *h, enum plugin_log level, const char *msg);
	/* a backend answers its calls with this */
	void (*backend_reply)(struct backend_call *call, enum backend_status st, int32_t failed, const char *detail);
	/* a connected, non-blocking TCP stream to host:port: directly, or
	 * (via = a configured host or service) through that SSH session as a
	 * forwarded channel. -1 with *err (malloc'd). */
	int (*connect)(const struct myriad_host *h, const char *host, int port, const char *via, char **err);
	/* the model, read only; cluster time (us) */
	const struct model *(*model)(const struct myriad_host *h);
	int64_t (*now)(const struct myriad_host *h);
	/* makes a backend of the plugin the one actions go to, with its state */
	void (*use_backend)(const struct myriad_host *h, const struct backend_ops *ops, void *priv);
	/* announces the nodes of a nodeset (gpus each, 32 to a scalable unit)
	 * when no source has announced any: a source that is the only one */
	int (*announce_nodes)(const struct myriad_host *h, const char *nodeset, int gpus, char **err);
};

struct myriad_plugin {
	int abi;                   /* MYRIAD_PLUGIN_ABI it was built for */
	const char *name, *version, *summary;
	/* Registers what it brings; argv are the words after `plugin load NAME`.
	 * 0, or -1 with *err (malloc'd): the plugin is then disabled. */
	int (*load)(const struct myriad_host *h, int argc, const char *const *argv, char **err);
	void (*unload)(const struct myriad_host *h);   /* optional */
};

typedef const struct myriad_plugin *(*myriad_plugin_fn)(void);

/* ---- myriad's side ---- */

/* Registers the built-in plugins (sim, ssh, slurm) through the host table. */
void plugins_builtin(struct myriad *app);
/* Loads a plugin by name or path: NAME.so or NAME.tcl on the search path
 * (-P DIR, $XDG_DATA_HOME/myriad/plugins, PREFIX/lib/myriad/plugins) or a
 * path. 0, or -1 with *err. */
int plugin_load(struct myriad *app, const char *name, int argc, const char *const *argv, int64_t budget_ms,
		char **err);
/* The directories searched, first first (-P adds one in front). */
void plugin_path_add(const char *dir);
/* Calls fn for each plugin loaded (built in first) and each one found on
 * the search path but not loaded: name, version, state (built-in, loaded,
 * disabled: why, failed: why, available), where. */
struct plugin_info {
	const char *name, *version, *summary, *state, *why, *path;
	const char *provides;          /* "source sim, backend sim", or "" */
};
void plugin_each(struct myriad *app, void (*fn)(void *ctx, const struct plugin_info *i), void *ctx);

#endif
