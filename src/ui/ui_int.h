/*
 * ui_int.h - the console's insides, shared by src/ui and the panels.
 *
 * The console owns the cell grid, the theme, the key tables, the log ring
 * and the panels. A panel (a file in panels/) is one vtable, struct panel_ops: it
 * draws into a view of the grid from the model, runs the panel commands its
 * keys are bound to, and says what the action keys (d r c a) act on. Panels
 * read the model; they never write it and never talk to sources or the store.
 *
 * Redraw is deferred (as tmux's CLIENT_REDRAW flags): input and events only
 * mark parts dirty; the loop's before-sleep hook draws what is dirty into the
 * grid and term.c flushes the grid to the terminal once.
 */
#ifndef MYRIAD_UI_INT_H
#define MYRIAD_UI_INT_H

#include "ui.h"
#include "grid.h"
#include "keys.h"
#include "text.h"
#include "theme.h"

struct console;

/* Panel commands: what panel key tables bind to. */
enum panel_cmd {
	PC_UP, PC_DOWN, PC_LEFT, PC_RIGHT, PC_PGUP, PC_PGDN, PC_TOP, PC_BOTTOM, PC_SELECT, PC_BACK,
	PC_METRIC_NEXT, PC_METRIC_PREV, PC_ZOOM, PC_SORT_NEXT, PC_SORT_REVERSE, PC_SHOW_CLOSED,
	PC_GROUP_BURSTS, PC_UNACKED_ONLY, PC_FAULTED_ONLY, PC_NODE_NEXT, PC_NODE_PREV, PC_FOLLOW,
	PC_RANK, PC_AGGREGATE, PC_COUNT
};

/* What the action keys act on: the panel fills what applies. */
struct target {
	int32_t node;          /* model node index, -1 = none */
	uint32_t job;          /* job id, 0 = none */
	uint32_t fault;        /* fault id, 0 = none */
	uint32_t burst;        /* fault burst id when a whole burst is selected, 0 = none */
};

struct panel_ops {
	const char *name;      /* "faults": `ui panel` name and its key table */
	const char *title;     /* "Faults" on the tab bar */
	const char *short_title;   /* on narrow screens */
	const char *help;      /* one line for the help page */
	void *(*init)(struct console *c);
	void (*free)(void *st);
	void (*resize)(void *st, int w, int h);   /* may be NULL */
	void (*draw)(void *st, const struct view *v);
	/* Runs a panel command; 1 if it applied, 0 if not here. */
	int (*key)(void *st, enum panel_cmd a);
	void (*filter)(void *st, const char *text);     /* may be NULL */
	int (*target)(void *st, struct target *t);      /* may be NULL; 0 if nothing */
	void (*click)(void *st, int x, int y);          /* view-relative; may be NULL */
};

#define NPANELS 8
extern const struct panel_ops panel_utilization, panel_topology, panel_power, panel_faults,
	panel_jobs, panel_node, panel_log, panel_job;
extern const struct panel_ops *const all_panels[NPANELS];   /* in tab order */

/* The log ring: events, command output and the audit trail. */
struct log_line {
	int64_t time;          /* cluster time, us: the event's or the fault's own */
	uint8_t role;
	uint8_t recorded;      /* made from an event a replay read from its recording */
	char kind[10];         /* "fault", "action", "cmd", "out", "node", ... */
	char *text;            /* sanitised, owned */
};
#define LOG_CAP 4000

enum ui_mode { MODE_NORMAL, MODE_HELP, MODE_CONFIRM, MODE_COMMAND, MODE_FILTER };

#define DIRTY_HEADER 0x1
#define DIRTY_PANEL 0x2
#define DIRTY_STATUS 0x4
#define DIRTY_ALL 0x7

struct confirm {
	char *text;            /* what will happen */
	char *cmd;             /* the Tcl command, or NULL (ui_confirm) */
	void (*done)(void *ctx, int yes);
	void *ctx;
};

struct console {
	struct myriad *app;
	const struct cli_opts *opts;
	struct grid grid;
	int w, h;
	struct theme theme;
	int colours;           /* colours the terminal has (0: monochrome) */
	int no_colour;         /* NO_COLOR or monochrome: attributes only */
	struct keymap keys;
	const struct panel_ops *ops[NPANELS];
	void *st[NPANELS];
	char filter[NPANELS][128];
	int cur;
	int tab_x[NPANELS + 1];   /* where each tab starts on the tab bar */
	unsigned dirty;
	enum ui_mode mode;
	struct confirm confirm;
	int help_top;
	char edit[128];        /* the filter being typed */
	char message[512];
	int msg_role;
	int64_t msg_until;     /* mono_us() */
	int tcl_ok;
	int32_t node_sel;      /* the node the node panel shows */
	uint32_t job_sel;      /* the job the job panel shows */
	struct { int from, to; } back[16];   /* where Enter came from, for back */
	int nback;
	int cursor_x, cursor_y;   /* terminal cursor (command line), -1 = hidden */
	void *test_stream;     /* MYRIAD_TEST_SQUEUE (tests only): struct stream */
	int own_tcl;
	struct log_line *log;
	int log_head, log_n;
	uint64_t log_seq;      /* lines ever added (panels notice news) */
	uint64_t replay_jumps; /* replay_jumps() as the log last saw it */
	int log_rebuild;       /* the replay jumped: the log is made again before it is drawn */
	int bus_sub;
	uint32_t seen_fault_id;
	uint32_t *node_flags;  /* last NODE_F_* seen per node, for the log */
	int32_t nnodes_seen;
	int64_t ticks_left;    /* --ticks with the console: stop after these */
	int quit;
	int parse_errors_this_tick;
	/* per tick: node health for the header and the panels */
	int32_t up, stale, down, drained, nodata;
	uint8_t *gstate;       /* gpu_states() cache */
	uint64_t gstate_events;
	int32_t gstate_n;
};

/* ---- console.c ---- */
void console_set_message(struct console *c, int role, const char *fmt, ...) PRINTF_LIKE(3, 4);
void console_open_panel(struct console *c, int panel);   /* as Enter does: back returns */
int console_go_back(struct console *c);                  /* 1 if it went back */
void console_show_node(struct console *c, int32_t node);   /* node panel */
void console_show_job(struct console *c, uint32_t id);      /* job panel */
void console_quit(struct console *c);   /* leaves the loop after this iteration */
int console_panel_index(const char *name);
void console_log(struct console *c, int role, const char *kind, const char *fmt, ...) PRINTF_LIKE(4, 5);
const struct log_line *console_log_at(const struct console *c, int i);   /* 0 = oldest */
/* ---- logfeed.c ---- */
void console_log_event(struct console *c, const struct event *ev);   /* the bus's event, after the model */
void console_log_sync(struct console *c);   /* before drawing: a replay's jump remakes the log */
/* Draws everything into the grid (what is dirty, or all). */
void console_draw(struct console *c, int all);
/* Feeds one key (UK_* or a code point) as the terminal would. */
void console_key(struct console *c, int key);
void console_mouse(struct console *c, int x, int y);
void console_wheel(struct console *c, int dir);   /* the mouse wheel: -1 up, 1 down */
void console_resize(struct console *c, int w, int h);
/* A console without a terminal, for unit tests and benchmarks. */
struct console *console_new(struct myriad *app, const struct cli_opts *o, int w, int h);
void console_free(struct console *c);

/* ---- commands.c ---- */
/* Runs a built-in console command ("cursor-down", "panel jobs"): 1 if cmd names one
 * (ran, or failed with a message), 0 if it is not a built-in (a Tcl script). */
int ui_cmd_run(struct console *c, const char *cmd);
int ui_cmd_exists(const char *cmd);
const char *action_help(const char *cmd);
/* Action keys: build the Tcl command, show what it will do, confirm, run. */
void action_key(struct console *c, const char *verb);
void action_confirm_answer(struct console *c, int yes, int edit);
/* Completion of built-in console command names (the command line without Tcl). */
void action_complete(const char *prefix, void (*fn)(void *ctx, const char *word), void *ctx);

/* ---- cmdline.c ---- */
void cmdline_open(struct console *c, const char *initial);
void cmdline_key(struct console *c, int key);
void cmdline_close(struct console *c);
/* Asks for a line (Tcl's `prompt`): done(ctx, line), or done(ctx, NULL)
 * when cancelled. */
void cmdline_prompt(struct console *c, const char *text, void (*done)(void *ctx, const char *line), void *ctx);
void cmdline_draw(struct console *c, const struct view *row);
void cmdline_free(void);
/* Evaluates a command line (Tcl, or a built-in console command without Tcl); the
 * output goes to the log and the message line. typed: the operator typed it
 * at the : line (its acting commands ask first); 0: a key built it and the
 * operator already said yes. */
void cmdline_eval(struct console *c, const char *line, int typed);

/* ---- tclops.c: the Tcl interpreter's and the store's console hooks ---- */
int tclops_console_ready(struct console *c);   /* 0 without Tcl */
void tclops_selection(struct console *c);
void tclops_tick(struct console *c);

/* ---- help.c ---- */
void help_draw(struct console *c, const struct view *v);
void help_key(struct console *c, int key);

/* ---- term.c: the only file that speaks ncurses ---- */
int term_init(struct console *c, char **err);
void term_end(void);
void term_flush(struct console *c, int cursor_x, int cursor_y);
void term_forget(void);    /* the terminal was cleared: flush everything */
int term_suspend(void);    /* Ctrl-Z: stop until fg; -1 without a terminal */
void term_read(struct console *c);
void term_size(int *w, int *h);
void term_resize(int w, int h);
void term_theme(struct console *c);   /* the theme changed: new colour pairs */

/* ---- panelkit.c: what panels share ---- */
enum gpu_state { GS_OK, GS_NONE, GS_STALE, GS_DRAIN, GS_FAULT, GS_DOWN };
/* Is the node's data older than the theme's stale-secs (or missing)? */
int node_stale(const struct console *c, const struct node *n);
int node_down(const struct node *n);
/* Per-GPU states for the whole model (ngpus bytes, enum gpu_state),
 * recomputed when the model moved on; owned by the console. */
const uint8_t *gpu_states(struct console *c);
const char *node_state_text(const struct node *n, char *buf, size_t size);
void fmt_duration(int64_t us, char *buf, size_t size);   /* "2h03m", "45s" */
void fmt_clock(int64_t us, char *buf, size_t size);      /* "12:34:56" */
void fmt_count(long long v, char *buf, size_t size);     /* "10,240" */
void fmt_si(double v, const char *unit, char *buf, size_t size);   /* "228.4 G", "6.3 PB" */
/* v in at most cols columns, never cut: as it is with `decimals` decimals
 * ("1234", "-12.5"), else with fewer, else scaled by k M G T P E with one
 * decimal or none ("11.9T", "120k", "-1.2M"), else marked with the bound it
 * passes (">99", ">9k", "<-9"; ">" alone in one column). unit (ASCII, may be
 * "") follows and counts ("5.6PB", "687W"). Returns the columns used. */
int fmt_fit(double v, int decimals, const char *unit, int cols, char *buf, size_t size);
/* The same for a counter: exact to the last digit when it fits. */
int fmt_fit_u64(uint64_t v, const char *unit, int cols, char *buf, size_t size);
/* A fault's XID code, or -1 if the fault did not come from an XID line. */
int fault_xid(const struct fault *f);
int severity_role(int sev);
/* A sparkline of n values into w cells at (x, y), scaled to their range
 * but to at least min_range (so noise does not look like a cliff). */
void draw_spark(const struct view *v, int x, int y, int w, const float *vals, int n, double min_range, int role);
/* A horizontal bar of frac (0..1) in w cells. */
void draw_bar(const struct view *v, int x, int y, int w, double frac, int role);
/* Draws a panel title line "Title  detail" and returns the next row. */
int draw_title(const struct view *v, const char *title, const char *detail);

/* ---- rank.c: the worst GPUs first ---- */
enum rank_by { RANK_IDLE, RANK_HOT, RANK_POWER, RANK_MEM, RANK_ERRORS, RANK_COUNT };
struct rank_row {
	int32_t gpu;
	double score;          /* larger is worse */
};
/* The (at most) max worst GPUs by `by`, worst first; returns how many. */
int rank_gpus(const struct model *m, const uint8_t *gs, enum rank_by by, struct rank_row *out, int max);
const char *rank_title(enum rank_by by);
void rank_value(const struct model *m, enum rank_by by, int32_t g, char *buf, size_t size);

/* ---- fleetmap.c: a cell per scalable unit ---- */
struct node_filter;
struct su_cell {
	int state;             /* enum gpu_state: GS_FAULT when any GPU has one */
	int lvl;               /* mean or worst level of the measure, 0..HEAT_LEVELS-1 */
	int faults;            /* GPUs with an open fault */
	int matched;           /* a node of the SU matches the filter */
};
struct fleet_level {
	int (*level)(void *ctx, int32_t gpu);   /* 0..HEAT_LEVELS-1, or -1 unknown */
	void *ctx;
};
struct fleet_map {
	int sus, lw, cw, per_row, rows;   /* lw: the label's width; cw: a cell's (2 with a gap, or 1) */
};
typedef void (*fleet_look_fn)(void *ctx, const struct su_cell *c, int *role, uint32_t *ch);
int gpu_state_rank(int state);   /* worse states rank higher */
int gpu_state_role(int state);   /* a GPU cell's role for a state other than GS_OK */
void fleet_aggregate(const struct model *m, const uint8_t *gs, int worst, struct fleet_level lv,
		     const struct node_filter *f, struct su_cell *out, int sus);
void fleet_layout(struct fleet_map *fm, int sus, int w, int h);
void fleet_draw(const struct fleet_map *fm, const struct view *v, int y0, int rows, const struct su_cell *cells,
		int cursor, fleet_look_fn look, void *ctx);

/* A scrolling list with a cursor (faults, jobs, log, topology). */
struct list {
	int cur, top, n;
};
/* Moves the cursor for a panel command; 1 if the command was a movement. */
int list_key(struct list *l, enum panel_cmd a, int page);
/* Keeps cur inside 0..n-1 and visible in `rows` rows. */
void list_fix(struct list *l, int rows);

#endif
