/*
 * commands.c - the console's built-in commands that key bindings name
 * ("panel jobs", "cursor-down", "drain", "replay-seek +60"; the word
 * "action" is kept for what the action engine does), and the action keys: d drain,
 * r reroute, c checkpoint, a acknowledge. An action key never acts by
 * itself: it builds the Tcl command the action engine understands (`node
 * drain {gpu0042} -reason {...}`), shows what it will do, and evaluates it
 * only after the operator says yes, so every path into the cluster goes
 * through Tcl, the engine's guards and the audit log.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "ui_int.h"
#include "../nodeset.h"
#include "../xidcat.h"
#include "../store/store.h"

struct ui_cmd {
	const char *name, *help;
	void (*fn)(struct console *c, const char *arg);
	int pa;                  /* panel command, or -1 */
};

static void a_panel(struct console *c, const char *arg)
{
	int i = console_panel_index(arg);

	if (i < 0)
		console_set_message(c, R_ERROR, "no panel \"%s\"", arg);
	else
		c->cur = i;
}

static void a_panel_next(struct console *c, const char *arg)
{
	(void)arg;
	c->cur = (c->cur + 1) % NPANELS;
}

static void a_panel_prev(struct console *c, const char *arg)
{
	(void)arg;
	c->cur = (c->cur + NPANELS - 1) % NPANELS;
}

static void a_help(struct console *c, const char *arg)
{
	(void)arg;
	c->mode = MODE_HELP;
	c->help_top = 0;
}

static void a_filter(struct console *c, const char *arg)
{
	(void)arg;
	if (!c->ops[c->cur]->filter) {
		console_set_message(c, R_DIM, "the %s panel has nothing to filter", c->ops[c->cur]->name);
		return;
	}
	snprintf(c->edit, sizeof c->edit, "%s", c->filter[c->cur]);
	c->mode = MODE_FILTER;
}

static void a_command(struct console *c, const char *arg)
{
	cmdline_open(c, arg);
}

static void a_quit(struct console *c, const char *arg)
{
	(void)arg;
	console_quit(c);
}

static void a_redraw(struct console *c, const char *arg)
{
	(void)arg;
	c->dirty = DIRTY_ALL;
	term_forget();
}

static void a_suspend(struct console *c, const char *arg)
{
	(void)arg;
	if (term_suspend() < 0) {
		console_set_message(c, R_DIM, "no terminal to give back");
		return;
	}
	c->dirty = DIRTY_ALL;
}

static void a_theme_next(struct console *c, const char *arg)
{
	static const char *const names[] = {"default", "light", "high-contrast", "mono"};
	unsigned i;
	char *err = NULL;

	(void)arg;
	for (i = 0; i < ARRAY_LEN(names) && strcmp(names[i], c->theme.name); i++)
		;
	i = (i + 1) % ARRAY_LEN(names);
	if (ui_theme(c->app, names[i], &err) < 0) {
		console_set_message(c, R_ERROR, "%s", err);
		free(err);
	} else {
		console_set_message(c, R_MESSAGE, "theme %s", names[i]);
	}
}

static void a_action_key(struct console *c, const char *arg)
{
	action_key(c, arg);
}

/* ---- replay time keys (the store's replay_* functions) ---- */

static int replaying(struct console *c, struct replay_info *ri)
{
	if (replay_get_info(c->app, ri) == 0)
		return 1;
	console_set_message(c, R_ERROR, "not replaying: the time keys work in `myriad replay FILE`");
	return 0;
}

static void replay_done(struct console *c, int rc, char *err)
{
	if (rc < 0) {
		console_set_message(c, R_ERROR, "%s", err ? err : "replay failed");
		free(err);
	}
	c->dirty = DIRTY_ALL;
}

static void a_replay_step(struct console *c, const char *arg)
{
	struct replay_info ri;
	char *err = NULL;

	if (replaying(c, &ri))
		replay_done(c, replay_step(c->app, strtoll(arg, NULL, 10), &err), err);
}

static void a_replay_seek(struct console *c, const char *arg)
{
	struct replay_info ri;
	char *err = NULL;

	if (replaying(c, &ri))
		replay_done(c, replay_seek(c->app, ri.now + strtoll(arg, NULL, 10) * US_PER_SEC, &err), err);
}

static void a_replay_fault(struct console *c, const char *arg)
{
	struct replay_info ri;
	char *err = NULL;

	if (replaying(c, &ri))
		replay_done(c, replay_seek_fault(c->app, atoi(arg) < 0 ? -1 : 1, &err), err);
}

static void a_replay_play(struct console *c, const char *arg)
{
	static double last = 1;
	struct replay_info ri;

	(void)arg;
	if (!replaying(c, &ri))
		return;
	if (ri.speed > 0)
		last = ri.speed;
	replay_play(c->app, ri.speed > 0 ? 0 : last);
}

static void a_replay_speed(struct console *c, const char *arg)
{
	struct replay_info ri;
	double s;

	if (!replaying(c, &ri))
		return;
	s = ri.speed > 0 ? ri.speed : 1;
	s = !strcmp(arg, "slower") ? s / 2 : s * 2;
	replay_play(c->app, MAX(0.25, MIN(64.0, s)));
}

static const struct ui_cmd actions[] = {
	{"panel", "show the %s panel", a_panel, -1},
	{"panel-next", "next panel", a_panel_next, -1},
	{"panel-prev", "previous panel", a_panel_prev, -1},
	{"help", "this help, built from the key tables", a_help, -1},
	{"filter", "filter the panel: a nodeset (gpu[1-8], @su:3, @job:ID) or text", a_filter, -1},
	{"command-prompt", "Tcl command line", a_command, -1},
	{"quit", "quit", a_quit, -1},
	{"redraw", "redraw the screen", a_redraw, -1},
	{"suspend", "give the terminal back to the shell (fg returns)", a_suspend, -1},
	{"theme-next", "next theme", a_theme_next, -1},
	{"cursor-up", "move up", NULL, PC_UP},
	{"cursor-down", "move down", NULL, PC_DOWN},
	{"cursor-left", "move left", NULL, PC_LEFT},
	{"cursor-right", "move right", NULL, PC_RIGHT},
	{"page-up", "page up", NULL, PC_PGUP},
	{"page-down", "page down", NULL, PC_PGDN},
	{"top", "first", NULL, PC_TOP},
	{"bottom", "last", NULL, PC_BOTTOM},
	{"select", "open the selection (node detail, drill down)", NULL, PC_SELECT},
	{"back", "back: clear the filter, leave the drill-down, or return to where Enter came from", NULL, PC_BACK},
	{"drain", "drain the selected node (asks first)", a_action_key, -1},
	{"reroute", "requeue the selected job away from faulted nodes (asks first)", a_action_key, -1},
	{"checkpoint", "ask the selected job to checkpoint (asks first)", a_action_key, -1},
	{"ack", "acknowledge the selected faults (asks first)", a_action_key, -1},
	{"replay-step", "replay: step %s tick(s)", a_replay_step, -1},
	{"replay-seek", "replay: jump %s seconds", a_replay_seek, -1},
	{"replay-fault", "replay: previous fault|replay: next fault", a_replay_fault, -1},
	{"replay-play", "replay: play or pause", a_replay_play, -1},
	{"replay-speed", "replay: slower|replay: faster", a_replay_speed, -1},
	{"metric-next", "colour by the next metric", NULL, PC_METRIC_NEXT},
	{"metric-prev", "colour by the previous metric", NULL, PC_METRIC_PREV},
	{"zoom", "the map's cells: auto, a GPU, a node, a scalable unit (the whole fleet)", NULL, PC_ZOOM},
	{"aggregate", "an SU cell shows its mean or its worst", NULL, PC_AGGREGATE},
	{"rank", "the worst GPUs first by the colour's measure (idle allocated, hottest, power, memory, errors), or the map again", NULL, PC_RANK},
	{"sort-next", "sort by the next column", NULL, PC_SORT_NEXT},
	{"sort-reverse", "reverse the order", NULL, PC_SORT_REVERSE},
	{"show-closed", "show closed faults too", NULL, PC_SHOW_CLOSED},
	{"group-bursts", "group faults by burst (per node, < 3 min apart)", NULL, PC_GROUP_BURSTS},
	{"unacked-only", "only unacknowledged faults", NULL, PC_UNACKED_ONLY},
	{"faulted-only", "only jobs on faulted or drained nodes", NULL, PC_FAULTED_ONLY},
	{"node-next", "next node", NULL, PC_NODE_NEXT},
	{"node-prev", "previous node", NULL, PC_NODE_PREV},
	{"follow", "follow the newest lines", NULL, PC_FOLLOW},
};

static const struct ui_cmd *find(const char *cmd, const char **arg)
{
	size_t n = strcspn(cmd, " \t");

	for (unsigned i = 0; i < ARRAY_LEN(actions); i++)
		if (strlen(actions[i].name) == n && !strncmp(actions[i].name, cmd, n)) {
			if (arg) {
				*arg = cmd + n;
				while (**arg == ' ' || **arg == '\t')
					(*arg)++;
			}
			return &actions[i];
		}
	return NULL;
}

int ui_cmd_exists(const char *cmd)
{
	return find(cmd, NULL) != NULL;
}

const char *action_help(const char *cmd)
{
	const struct ui_cmd *a = find(cmd, NULL);

	return a ? a->help : NULL;
}

void action_complete(const char *prefix, void (*fn)(void *ctx, const char *word), void *ctx)
{
	for (unsigned i = 0; i < ARRAY_LEN(actions); i++)
		if (!strncmp(actions[i].name, prefix, strlen(prefix)))
			fn(ctx, actions[i].name);
}

int ui_cmd_run(struct console *c, const char *cmd)
{
	const char *arg;
	const struct ui_cmd *a = find(cmd, &arg);

	if (!a)
		return 0;
	c->dirty = DIRTY_ALL;
	if (a->fn) {
		a->fn(c, a->fn == a_action_key ? a->name : arg);
		return 1;
	}
	if (c->ops[c->cur]->key(c->st[c->cur], (enum panel_cmd)a->pa))
		return 1;
	if (a->pa == PC_BACK && c->filter[c->cur][0]) {
		c->filter[c->cur][0] = '\0';
		if (c->ops[c->cur]->filter)
			c->ops[c->cur]->filter(c->st[c->cur], "");
		return 1;
	}
	if (a->pa == PC_BACK && !console_go_back(c))
		console_set_message(c, R_DIM, "nothing to go back to");
	if (a->pa != PC_BACK)
		console_set_message(c, R_DIM, "%s does nothing in the %s panel", a->name, c->ops[c->cur]->name);
	return 1;
}
