/*
 * plugin_int.h - the core's side of plugins (plugin.c), shared with app.c
 * (the registry, source ticks) and src/tcl (Tcl plugins, plugin commands).
 */
#ifndef MYRIAD_PLUGIN_INT_H
#define MYRIAD_PLUGIN_INT_H

#include "plugin.h"

struct tramp;

struct plugin_rec {                /* one plugin: built in, loaded, or failed */
	struct myriad *app;
	char *name, *version, *summary, *path, *why;
	char *provides;                /* "source sim, backend sim" */
	const char *state;             /* "built-in", "loaded", "disabled", "failed" */
	void *dl;                      /* dlopen handle */
	const struct myriad_plugin *p;
	struct myriad_host host;       /* the table it was handed */
	int64_t budget_us, slowest_us;
	int overruns, disabled;
	struct tramp *tramps;          /* its loop watches and timers */
	const void *classes[8];        /* the source and backend classes it registered */
	int nclasses, builtin;
	struct plugin_rec *next;
};

struct plugin_rec *plugin_find(struct myriad *app, const char *name);
/* NAME+EXT on the search path (or NAME itself when it is a path); malloc'd, NULL if nowhere. */
char *plugin_file(const char *name, const char *ext);
/* Records a plugin loaded elsewhere (a Tcl plugin), or its new state. */
void plugin_note(struct myriad *app, const char *name, const char *version, const char *summary, const char *path,
		 const char *state, const char *why);
void plugin_host_init(struct myriad_host *h, struct myriad *app, const char *name);
/* A call into r began at t0 (mono us): over its budget five times disables it. */
void plugin_timed(struct plugin_rec *r, int64_t t0);
void plugin_disable(struct plugin_rec *r, const char *why);
void plugins_stop(struct myriad *app);
/* Says msg where the operator sees it: an EV_NOTICE (log panel, recording),
 * and stderr when there is no console. */
void plugin_report(struct myriad *app, int level, const char *msg);
/* Set by the Tcl part: adds a plugin's command to the interpreter. */
extern int (*plugin_command_hook)(struct myriad *app, const char *plugin, const struct plugin_command *cmd);

/* app.c: a class registered by plugin r (NULL: myriad's own); a class
 * forgotten when its plugin is unloaded. */
int registry_add_source_from(const struct source_ops *ops, struct plugin_rec *r);
void registry_remove(const void *ops);

/* net.c: a non-blocking TCP connection to host:port (numeric, or localhost). */
int tcp_connect(const char *host, int port, char **err);

#endif
