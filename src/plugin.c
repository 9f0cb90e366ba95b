/*
 * plugin.c - plugins (see plugin.h): the host table every plugin gets, the
 * built-in ones (sim, ssh, slurm) registered through it, loading a shared
 * object (dlopen, the ABI check, load()), the time budget of a plugin's
 * loop callbacks and source ticks, disabling, the search path and the list.
 * Tcl plugins (.tcl, a safe interpreter each) are loaded by src/tcl and
 * recorded here with plugin_note so that the list shows every plugin.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "plugin.h"
#include "plugin_int.h"
#include "nodeset.h"
#include "stream.h"
#include "action/slurm.h"
#include "ssh/source_ssh.h"

#define OVERRUNS_MAX 5

static char *search_dirs[8];
static int nsearch;

void plugin_path_add(const char *dir)
{
	if (nsearch == (int)ARRAY_LEN(search_dirs))
		return;
	memmove(search_dirs + 1, search_dirs, sizeof *search_dirs * (size_t)nsearch);
	search_dirs[0] = xstrdup(dir);
	nsearch++;
}

/* -P dirs first, then $XDG_DATA_HOME/myriad/plugins (~/.local/share/...),
 * then the install prefix's. */
static int dirs(char *out[10])
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n = 0;

	for (int i = 0; i < nsearch; i++)
		out[n++] = xstrdup(search_dirs[i]);
	if (xdg && *xdg)
		out[n++] = xasprintf("%s/myriad/plugins", xdg);
	else if (home && *home)
		out[n++] = xasprintf("%s/.local/share/myriad/plugins", home);
	out[n++] = xstrdup(MYRIAD_PLUGIN_DIR);
	return n;
}

/* ---- records ---- */

static struct plugin_rec *rec_new(struct myriad *app, const char *name)
{
	struct plugin_rec *r = xcalloc(1, sizeof *r), **pp;

	r->app = app;
	r->name = xstrdup(name);
	r->budget_us = 100000;
	for (pp = &app->plugins; *pp; pp = &(*pp)->next)
		;
	*pp = r;
	return r;
}

struct plugin_rec *plugin_find(struct myriad *app, const char *name)
{
	for (struct plugin_rec *r = app->plugins; r; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

static void rec_set(struct plugin_rec *r, const char *state, const char *why)
{
	r->state = state;
	free(r->why);
	r->why = why ? xstrdup(why) : NULL;
}

void plugin_note(struct myriad *app, const char *name, const char *version, const char *summary, const char *path,
		 const char *state, const char *why)
{
	struct plugin_rec *r = plugin_find(app, name);

	if (!r)
		r = rec_new(app, name);
	free(r->version);
	free(r->summary);
	free(r->path);
	r->version = xstrdup(version ? version : "");
	r->summary = xstrdup(summary ? summary : "");
	r->path = xstrdup(path ? path : "");
	rec_set(r, state, why);
}

/* ---- the budget: timed callbacks ---- */

static void unwatch_all(struct plugin_rec *r);

void plugin_disable(struct plugin_rec *r, const char *why)
{
	struct myriad *app = r->app;
	char msg[400];

	if (r->disabled)
		return;
	r->disabled = 1;
	rec_set(r, "disabled", why);
	unwatch_all(r);
	for (int i = 0; i < app->nsources; i++)
		if (app->sources[i]->plugin == r)
			app->sources[i]->disabled = 1;
	snprintf(msg, sizeof msg, "plugin %s disabled: %s", r->name, why);
	plugin_report(app, PLOG_ERROR, msg);
}

void plugin_timed(struct plugin_rec *r, int64_t t0)
{
	int64_t took = mono_us() - t0;
	char why[160];

	if (!r || took <= r->budget_us)
		return;
	r->overruns++;
	r->slowest_us = MAX(r->slowest_us, took);
	if (r->overruns >= OVERRUNS_MAX) {
		snprintf(why, sizeof why, "%d calls took longer than its budget of %lld ms (the slowest %lld ms)",
			 r->overruns, (long long)(r->budget_us / 1000), (long long)(r->slowest_us / 1000));
		plugin_disable(r, why);
	}
}

struct tramp {                     /* a plugin's loop callback, timed */
	struct plugin_rec *r;
	loop_fd_fn fn;
	loop_timer_fn tfn;
	void *ctx;
	int fd;
	int64_t timer;
	struct tramp *next;
};

static void tramp_drop(struct plugin_rec *r, struct tramp *t)
{
	for (struct tramp **pp = &r->tramps; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			free(t);
			return;
		}
}

static void on_fd(void *ctx, int fd, int events)
{
	struct tramp *t = ctx;
	struct plugin_rec *r = t->r;
	int64_t t0 = mono_us();

	if (r->disabled)
		return;
	t->fn(t->ctx, fd, events);   /* may unwatch: t may be gone */
	plugin_timed(r, t0);
}

static void on_timer(void *ctx, int64_t id)
{
	struct tramp *t = ctx;
	struct plugin_rec *r = t->r;
	loop_timer_fn fn = t->tfn;
	void *uctx = t->ctx;
	int64_t t0 = mono_us();

	if (r->disabled)
		return;
	fn(uctx, t->timer ? t->timer : id);
	plugin_timed(r, t0);
}

static void unwatch_all(struct plugin_rec *r)
{
	while (r->tramps) {
		struct tramp *t = r->tramps;

		if (t->fn)
			loop_unwatch(r->app->loop, t->fd, t);
		else
			loop_timer_cancel(r->app->loop, t->timer);
		r->tramps = t->next;
		free(t);
	}
}

/* ---- the host table ---- */

static struct plugin_rec *rec_of(const struct myriad_host *h)
{
	return plugin_find(h->app, h->plugin);
}

/* r registered ops, a source or a backend called name: kept to forget it
 * when r is unloaded, and listed by myriad plugins. */
static void note_class(struct plugin_rec *r, const void *ops, const char *kind, const char *name)
{
	if (!r)
		return;
	if (!r->builtin && r->nclasses < (int)ARRAY_LEN(r->classes))
		r->classes[r->nclasses++] = ops;
	char *p = xasprintf("%s%s%s %s", r->provides ? r->provides : "", r->provides ? ", " : "", kind, name);

	free(r->provides);
	r->provides = p;
}

static int h_add_source(const struct myriad_host *h, const struct source_ops *ops)
{
	struct plugin_rec *r = rec_of(h);

	if (registry_add_source_from(ops, r && !r->builtin ? r : NULL) < 0)
		return -1;
	note_class(r, ops, "source", ops->name);
	return 0;
}

static int h_add_backend(const struct myriad_host *h, const struct backend_ops *ops)
{
	if (registry_add_backend(ops) < 0)
		return -1;
	note_class(rec_of(h), ops, "backend", ops->name);
	return 0;
}

static void h_use_backend(const struct myriad_host *h, const struct backend_ops *ops, void *priv)
{
	backend_install(h->app, ops, priv);
}

struct announce {
	struct myriad *app;
	int32_t i;
	int gpus;
};

static int announce_one(void *ctx, const char *name)
{
	struct announce *a = ctx;
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_NODE;
	ev.source = "plugin";
	ev.u.node = (struct ev_node){a->i, a->i / 32, a->i / 4, a->gpus, name};
	app_emit(a->app, &ev);
	a->i++;
	return 0;
}

static int h_announce_nodes(const struct myriad_host *h, const char *set, int gpus, char **err)
{
	struct nodeset *ns = nodeset_from(set, err);
	struct announce a = {h->app, 0, gpus > 0 && gpus <= 64 ? gpus : 8};
	struct event ev;
	int32_t n;

	if (!ns)
		return -1;
	if (h->app->model.nnodes) {   /* another source announced them */
		nodeset_free(ns);
		return 0;
	}
	n = (int32_t)nodeset_count(ns);
	memset(&ev, 0, sizeof ev);
	ev.type = EV_TOPOLOGY;
	ev.source = h->plugin;
	ev.u.topology = (struct ev_topology){(n + 31) / 32, 32, a.gpus, n, n * a.gpus, h->plugin};
	app_emit(h->app, &ev);
	nodeset_foreach(ns, announce_one, &a);
	nodeset_free(ns);
	bus_flush(&h->app->bus);
	return 0;
}

static int h_start_source(const struct myriad_host *h, const char *cls, const char *args, char **err)
{
	return app_add_source(h->app, cls, args, err);
}

static void h_emit(const struct myriad_host *h, struct event *ev)
{
	if (!ev->source)
		ev->source = h->plugin;
	app_emit(h->app, ev);
}

struct pstream {
	struct myriad *app;
	struct stream st;
};

static void *h_stream_open(const struct myriad_host *h, int32_t node, int fmt)
{
	struct pstream *p = xcalloc(1, sizeof *p);

	p->app = h->app;
	stream_init(&p->st, &h->app->bus, &h->app->model, node, (enum fmt)fmt, h->plugin);
	return p;
}

static void h_stream_feed(void *s, const char *buf, size_t n)
{
	struct pstream *p = s;

	stream_feed(&p->st, buf, n, wall_us());
}

static void h_stream_end(void *s)
{
	struct pstream *p = s;

	stream_end(&p->st, wall_us());
}

static void h_stream_close(void *s)
{
	struct pstream *p = s;

	if (!p)
		return;
	stream_free(&p->st);
	free(p);
}

static int h_watch(const struct myriad_host *h, int fd, int events, loop_fd_fn fn, void *ctx)
{
	struct plugin_rec *r = rec_of(h);
	struct tramp *t;

	for (t = r->tramps; t && !(t->fn && t->fd == fd && t->ctx == ctx); t = t->next)
		;
	if (!t) {
		t = xcalloc(1, sizeof *t);
		*t = (struct tramp){r, fn, NULL, ctx, fd, 0, r->tramps};
		r->tramps = t;
	}
	t->fn = fn;
	return loop_watch(h->app->loop, fd, events, on_fd, t);
}

static void h_unwatch(const struct myriad_host *h, int fd, void *ctx)
{
	struct plugin_rec *r = rec_of(h);

	for (struct tramp *t = r->tramps; t; t = t->next)
		if (t->fn && t->fd == fd && t->ctx == ctx) {
			loop_unwatch(h->app->loop, fd, t);
			tramp_drop(r, t);
			return;
		}
}

static int64_t h_timer(const struct myriad_host *h, int64_t ms, int64_t every_ms, loop_timer_fn fn, void *ctx)
{
	struct plugin_rec *r = rec_of(h);
	struct tramp *t = xcalloc(1, sizeof *t);

	*t = (struct tramp){r, NULL, fn, ctx, -1, 0, r->tramps};
	r->tramps = t;
	t->timer = loop_timer(h->app->loop, ms, every_ms, on_timer, t);
	return t->timer;
}

static void h_timer_cancel(const struct myriad_host *h, int64_t id)
{
	struct plugin_rec *r = rec_of(h);

	for (struct tramp *t = r->tramps; t; t = t->next)
		if (!t->fn && t->timer == id) {
			loop_timer_cancel(h->app->loop, id);
			tramp_drop(r, t);
			return;
		}
}

static void h_log(const struct myriad_host *h, enum plugin_log level, const char *msg)
{
	char line[600];

	snprintf(line, sizeof line, "%s: %s", h->plugin, msg);
	plugin_report(h->app, level, line);
}

static int h_connect(const struct myriad_host *h, const char *host, int port, const char *via, char **err)
{
	if (via && *via)
		return ssh_tunnel(h->app, via, host, port, err);
	return tcp_connect(host, port, err);
}

static const struct model *h_model(const struct myriad_host *h)
{
	return &h->app->model;
}

static int64_t h_now(const struct myriad_host *h)
{
	return h->app->now;
}

int plugin_add_command(const struct myriad_host *h, const struct plugin_command *cmd);

void plugin_host_init(struct myriad_host *h, struct myriad *app, const char *name)
{
	*h = (struct myriad_host){
		MYRIAD_PLUGIN_ABI, sizeof *h, app, name,
		h_add_source, h_add_backend, plugin_add_command, h_start_source, h_emit,
		h_stream_open, h_stream_feed, h_stream_end, h_stream_close,
		h_watch, h_unwatch, h_timer, h_timer_cancel, h_log, backend_reply, h_connect, h_model, h_now,
		h_use_backend, h_announce_nodes,
	};
}

/* ---- loading ---- */

char *plugin_file(const char *name, const char *ext)
{
	char *d[10], *found = NULL;
	int n = dirs(d);

	if (strchr(name, '/'))
		found = !access(name, R_OK) ? xstrdup(name) : NULL;
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s%s", d[i], name, ext);

		if (!found && !access(p, R_OK))
			found = p;
		else
			free(p);
		free(d[i]);
	}
	return found;
}

static int load_so(struct plugin_rec *r, const char *path, int argc, const char *const *argv, char **err)
{
	myriad_plugin_fn entry;
	const struct myriad_plugin *p;

	if (!(r->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		*err = xasprintf("plugin %s: %s", r->name, dlerror());
		return -1;
	}
	*(void **)&entry = dlsym(r->dl, MYRIAD_PLUGIN_SYMBOL);
	if (!entry || !(p = entry())) {
		*err = xasprintf("plugin %s: %s exports no %s() (see myriad-plugins(7))", r->name, path,
				 MYRIAD_PLUGIN_SYMBOL);
		return -1;
	}
	if (p->abi != MYRIAD_PLUGIN_ABI) {
		*err = xasprintf("plugin %s: built for plugin ABI %d, this myriad speaks ABI %d: rebuild it against "
				 "this version's headers", r->name, p->abi, MYRIAD_PLUGIN_ABI);
		return -1;
	}
	r->p = p;
	free(r->version);
	free(r->summary);
	r->version = xstrdup(p->version ? p->version : "");
	r->summary = xstrdup(p->summary ? p->summary : "");
	plugin_host_init(&r->host, r->app, r->name);
	if (p->load(&r->host, argc, argv, err) < 0) {
		if (!*err)
			*err = xstrdup("its load() failed");
		return -1;
	}
	return 0;
}

int plugin_load(struct myriad *app, const char *name, int argc, const char *const *argv, int64_t budget_ms,
		char **err)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	char key[64], *path;
	struct plugin_rec *r;

	snprintf(key, sizeof key, "%.*s", (int)strcspn(base, "."), base);
	if ((r = plugin_find(app, key)) && r->state && strcmp(r->state, "failed")) {
		*err = xasprintf("plugin %s is loaded already (%s)", key, r->state);
		return -1;
	}
	if (!(path = plugin_file(name, strchr(base, '.') ? "" : ".so"))) {
		*err = xasprintf("plugin %s: no %s%s on the search path (myriad plugins lists it)", name, name,
				 strchr(base, '.') ? "" : ".so");
		return -1;
	}
	r = r ? r : rec_new(app, key);
	free(r->path);
	r->path = path;
	r->budget_us = (budget_ms > 0 ? budget_ms : 100) * 1000;
	app_started(app, PART_PLUGINS, plugins_stop);
	if (load_so(r, path, argc, argv, err) < 0) {
		unwatch_all(r);
		rec_set(r, "failed", *err);
		return -1;
	}
	rec_set(r, "loaded", NULL);
	return 0;
}

/* ---- the list ---- */

static void list_available(struct myriad *app, void (*fn)(void *ctx, const struct plugin_info *i), void *ctx)
{
	char *d[10];
	int n = dirs(d);

	for (int k = 0; k < n; k++) {
		DIR *dir = opendir(d[k]);
		struct dirent *e;

		while (dir && (e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			int so = len > 3 && !strcmp(e->d_name + len - 3, ".so");
			int tcl = len > 4 && !strcmp(e->d_name + len - 4, ".tcl");
			char key[64], *path;

			if (!so && !tcl)
				continue;
			snprintf(key, sizeof key, "%.*s", (int)(len - (so ? 3 : 4)), e->d_name);
			if (plugin_find(app, key))
				continue;
			path = xasprintf("%s/%s", d[k], e->d_name);
			fn(ctx, &(struct plugin_info){key, "", "", "available", NULL, path, ""});
			free(path);
		}
		if (dir)
			closedir(dir);
		free(d[k]);
	}
}

void plugin_each(struct myriad *app, void (*fn)(void *ctx, const struct plugin_info *i), void *ctx)
{
	for (struct plugin_rec *r = app->plugins; r; r = r->next)
		fn(ctx, &(struct plugin_info){r->name, r->version ? r->version : "", r->summary ? r->summary : "",
					      r->state ? r->state : "?", r->why, r->path ? r->path : "",
					      r->provides ? r->provides : ""});
	list_available(app, fn, ctx);
}

/* ---- the end ---- */

void plugins_stop(struct myriad *app)
{
	while (app->plugins) {
		struct plugin_rec *r = app->plugins;

		app->plugins = r->next;
		if (r->p && r->p->unload && !r->disabled)
			r->p->unload(&r->host);
		unwatch_all(r);
		for (int i = 0; i < r->nclasses; i++)
			registry_remove(r->classes[i]);
		if (r->dl)
			dlclose(r->dl);
		free(r->name);
		free(r->version);
		free(r->summary);
		free(r->provides);
		free(r->path);
		free(r->why);
		free(r);
	}
	app_stopped(app, PART_PLUGINS);
}

/* ---- built in: the same table, the same registry ---- */

static int sim_load(const struct myriad_host *h, int argc, const char *const *argv, char **err)
{
	(void)argc, (void)argv, (void)err;
	return h->add_source(h, &sim_source_ops) < 0 || h->add_backend(h, &sim_backend_ops) < 0 ? -1 : 0;
}

static int ssh_load(const struct myriad_host *h, int argc, const char *const *argv, char **err)
{
	(void)argc, (void)argv, (void)err;
	return h->add_source(h, &ssh_source_ops);
}

static int slurm_load(const struct myriad_host *h, int argc, const char *const *argv, char **err)
{
	(void)argc, (void)argv, (void)err;
	return h->add_backend(h, &slurm_backend_ops);
}

static const struct myriad_plugin builtins[] = {
	{MYRIAD_PLUGIN_ABI, "sim", MYRIAD_VERSION, "the embedded simulated cluster: a source and its scheduler", sim_load, NULL},
	{MYRIAD_PLUGIN_ABI, "ssh", MYRIAD_VERSION, "nodes and services over SSH: probes, polls, fan-out", ssh_load, NULL},
	{MYRIAD_PLUGIN_ABI, "slurm", MYRIAD_VERSION, "actions as scontrol and scancel on the Slurm head node", slurm_load, NULL},
};

void plugins_builtin(struct myriad *app)
{
	char *err = NULL;

	for (unsigned i = 0; i < ARRAY_LEN(builtins); i++) {
		struct plugin_rec *r = rec_new(app, builtins[i].name);

		r->builtin = 1;
		r->p = &builtins[i];
		r->version = xstrdup(builtins[i].version);
		r->summary = xstrdup(builtins[i].summary);
		r->path = xstrdup("");
		plugin_host_init(&r->host, app, r->name);
		if (builtins[i].load(&r->host, 0, NULL, &err) < 0)
			fatal("built-in plugin %s does not register", r->name);   /* cannot happen: tested */
		rec_set(r, "built-in", NULL);
	}
	app_started(app, PART_PLUGINS, plugins_stop);
}

/* ---- reports ---- */

int (*plugin_command_hook)(struct myriad *app, const char *plugin, const struct plugin_command *cmd);

int plugin_add_command(const struct myriad_host *h, const struct plugin_command *cmd)
{
	return plugin_command_hook ? plugin_command_hook(h->app, h->plugin, cmd) : -1;
}

void plugin_report(struct myriad *app, int level, const char *msg)
{
	app_notice(app, level, "plugin", msg);
}
