/*
 * app.c - the application context: the model subscribed to the bus, the
 * sources, the tick, and the registry of source and backend classes.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "myriad.h"
#include "action/action.h"
#include "action/backend.h"
#include "action/slurm.h"
#include "plugin_int.h"
#include "ssh/source_ssh.h"

static struct {
	const struct source_ops *ops;
	struct plugin_rec *plugin;
} source_classes[32];
static const struct backend_ops *backend_classes[32];
static int nsource_classes, nbackend_classes;

int registry_add_source_from(const struct source_ops *ops, struct plugin_rec *r)
{
	if (registry_source(ops->name) == ops)
		return 0;   /* a second application context registers the built-ins again */
	if (ops->abi != MYRIAD_ABI || registry_source(ops->name) || nsource_classes == 32)
		return -1;
	source_classes[nsource_classes].ops = ops;
	source_classes[nsource_classes++].plugin = r;
	return 0;
}

int registry_add_source(const struct source_ops *ops)
{
	return registry_add_source_from(ops, NULL);
}

int registry_add_backend(const struct backend_ops *ops)
{
	if (registry_backend(ops->name) == ops)
		return 0;
	if (ops->abi != MYRIAD_ABI || registry_backend(ops->name) || nbackend_classes == 32)
		return -1;
	backend_classes[nbackend_classes++] = ops;
	return 0;
}

/* A plugin goes away (unloaded): a class it registered with it. */
void registry_remove(const void *ops)
{
	int k = 0;

	for (int i = 0; i < nsource_classes; i++)
		if ((const void *)source_classes[i].ops != ops)
			source_classes[k++] = source_classes[i];
	nsource_classes = k;
	k = 0;
	for (int i = 0; i < nbackend_classes; i++)
		if ((const void *)backend_classes[i] != ops)
			backend_classes[k++] = backend_classes[i];
	nbackend_classes = k;
}

static int source_class(const char *name)
{
	for (int i = 0; i < nsource_classes; i++)
		if (!strcmp(source_classes[i].ops->name, name))
			return i;
	return -1;
}

const struct source_ops *registry_source(const char *name)
{
	int i = source_class(name);

	return i >= 0 ? source_classes[i].ops : NULL;
}

const struct backend_ops *registry_backend(const char *name)
{
	for (int i = 0; i < nbackend_classes; i++)
		if (!strcmp(backend_classes[i]->name, name))
			return backend_classes[i];
	return NULL;
}

static void model_sub(void *ctx, const struct event *ev)
{
	model_apply(ctx, ev);
}

void app_started(struct myriad *app, enum app_part part, void (*stop)(struct myriad *app))
{
	app->stop[part] = stop;
}

void app_stopped(struct myriad *app, enum app_part part)
{
	app->stop[part] = NULL;
}

static void stop_sources(struct myriad *app)
{
	for (int i = app->nsources - 1; i >= 0; i--) {
		if (app->sources[i]->ops->stop)
			app->sources[i]->ops->stop(app->sources[i]);
		free(app->sources[i]);
	}
	app->nsources = 0;
	app_stopped(app, PART_SOURCES);
}

/* A fatal error (fatal() in util.c): the terminal back, the last tick
 * committed; nothing else is trusted to run. */
static struct myriad *fatal_app;

static void on_fatal(void)
{
	struct myriad *app = fatal_app;

	fatal_app = NULL;
	if (!app)
		return;
	if (app->stop[PART_CONSOLE])
		app->stop[PART_CONSOLE](app);
	if (app->stop[PART_RECORDER])
		app->stop[PART_RECORDER](app);
}

/* SIGTERM, SIGINT: the run ends through app_free like any other exit. */
static void on_signal(void *ctx, int sig)
{
	struct myriad *app = ctx;

	app->quit = sig;
	loop_stop(app->loop, 128 + sig);
}

/* Before the loop sleeps: what should not wait for the tick (an XID, a
 * node's new state, a connection) reaches the model, the recorder and the
 * hooks now. Telemetry waits for the tick (bus.h: BUS_BATCHED). */
static void flush_urgent(void *ctx)
{
	struct myriad *app = ctx;

	if (app->bus.urgent && !app->bus.flushing)
		bus_flush(&app->bus);
}

void app_init(struct myriad *app)
{
	memset(app, 0, sizeof *app);
	model_init(&app->model);
	bus_init(&app->bus);
	bus_subscribe(&app->bus, BUS_ALL, model_sub, &app->model);   /* first: others see the new state */
	app->loop = loop_new();
	plugins_builtin(app);   /* sim, ssh, slurm: through the host table, as a loaded plugin would */
	loop_before_sleep(app->loop, flush_urgent, app);
	loop_signal(app->loop, SIGTERM, on_signal, app);
	loop_signal(app->loop, SIGINT, on_signal, app);
	fatal_app = app;
	fatal_set_hook(on_fatal);
	app->now = app->start = wall_us();
}

void app_free(struct myriad *app)
{
	for (int p = PART_COUNT - 1; p >= 0; p--)
		if (app->stop[p]) {
			void (*stop)(struct myriad *) = app->stop[p];

			app->stop[p] = NULL;
			stop(app);
		}
	if (fatal_app == app)
		fatal_app = NULL;
	bus_free(&app->bus);
	model_free(&app->model);
	loop_free(app->loop);
	memset(app, 0, sizeof *app);
}

int app_add_source(struct myriad *app, const char *name, const char *args, char **err)
{
	const struct source_ops *ops = registry_source(name);
	struct source *src;

	if (!ops) {
		*err = xasprintf("no source named \"%s\"", name);
		return -1;
	}
	if (app->nsources == (int)ARRAY_LEN(app->sources)) {
		*err = xstrdup("too many sources");
		return -1;
	}
	src = xcalloc(1, sizeof *src);
	src->ops = ops;
	src->app = app;
	src->plugin = source_classes[source_class(name)].plugin;
	if (ops->start(src, args, err) < 0) {
		free(src);
		return -1;
	}
	app->sources[app->nsources++] = src;
	app_started(app, PART_SOURCES, stop_sources);
	bus_flush(&app->bus);
	return 0;
}

void app_emit(struct myriad *app, struct event *ev)
{
	if (!ev->time)
		ev->time = app->now;
	bus_emit(&app->bus, ev);
}

void app_notice(struct myriad *app, int level, const char *who, const char *msg)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_NOTICE;
	ev.source = who;
	ev.u.notice = (struct ev_notice){level, who, msg};
	app_emit(app, &ev);
	if (!app->console)
		fprintf(stderr, "myriad: %s\n", msg);
}

static struct source *time_owner(struct myriad *app)
{
	for (int i = 0; i < app->nsources; i++)
		if (app->sources[i]->ops->flags & SOURCE_OWNS_TIME)
			return app->sources[i];
	return NULL;
}

int app_tick(struct myriad *app)
{
	struct source *owner = time_owner(app);
	struct event ev;

	if (app->start_pending)
		app_finish_start(app);   /* the start comes before the first tick, as without defer_start */
	if (owner)
		return owner->ops->tick(owner, app->now);
	app->tick++;
	app->now = app->virtual_time ? app->start + app->tick * US_PER_SEC : wall_us();
	memset(&ev, 0, sizeof ev);
	ev.type = EV_TICK;
	ev.time = app->now;
	ev.source = "clock";
	ev.u.tick.tick = app->tick;
	bus_emit(&app->bus, &ev);
	for (int i = 0; i < app->nsources; i++) {
		struct source *src = app->sources[i];
		int64_t t0 = mono_us();

		if (!src->ops->tick || src->disabled)
			continue;
		src->ops->tick(src, app->now);
		if (src->plugin)
			plugin_timed(src->plugin, t0);   /* a plugin's tick has a time budget */
	}
	bus_flush(&app->bus);
	return 0;
}
