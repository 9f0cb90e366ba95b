/*
 * tcl_int.h - private to src/tcl: the command table and its calling
 * convention, the interpreter state, and the helpers the command files share.
 *
 * A command is one entry of tc_table (table.c): name ("node drain"), usage,
 * one-line help, options, flags and a C function. interp.c registers every
 * head word ("node") as one Tcl command that dispatches on the subcommand,
 * parses -option value pairs (an argument is an option only when it is
 * exactly the name of one of the command's options; "--" ends them), checks
 * the number of positional arguments and calls the function with a
 * struct tcl_call. help.c builds help, completion and the man page from the
 * same table.
 */
#ifndef MYRIAD_TCL_INT_H
#define MYRIAD_TCL_INT_H

#include <stdio.h>
#include <tcl.h>
#include "tcl.h"
#include "../nodeset.h"
#include "../action/action.h"
#include "../action/backend.h"

/* Command flags. */
#define TC_ACTS 0x01       /* acts on the cluster, through the action engine */
#define TC_BACKEND 0x02    /* needs a backend (the scheduler) */
#define TC_RO 0x04         /* allowed in read-only mode */
#define TC_SAFE 0x08       /* allowed in the safe (plugin) interpreter */
#define TC_TEST 0x10       /* test and demo only */
#define TC_NA 0x20         /* its part is not built yet: answers "not available" */
#define TC_RAW 0x40        /* no option parsing: every word is an argument */
#define TC_TRUSTED 0x80    /* reads files or reaches hosts it is told: not in a sandboxed run */

enum tc_section { SEC_QUERY, SEC_ACT, SEC_EVENT, SEC_LOG, SEC_UI, SEC_FANOUT, SEC_CONFIG, SEC_RUN, SEC_COUNT };

#define TC_MAX_OPTS 12
#define TC_MAX_ARGS 64

struct tcl_call;
typedef int (*tc_fn)(struct tcl_call *c);

struct tcl_cmd {
	const char *name;          /* "node drain" */
	const char *usage;         /* arguments after the name */
	const char *help;          /* one line */
	const char *opts;          /* "reason= dry-run force": '=' takes a value */
	int min, max;              /* positional arguments; max -1 = any number */
	int flags;                 /* TC_* */
	int section;               /* enum tc_section */
	tc_fn fn;
};

extern const struct tcl_cmd tc_table[];
extern const int tc_count;
extern const char *const tc_section_names[SEC_COUNT];

struct tcl_state;
struct tplugin;

/* The client data of commands in one interpreter. */
struct tc_interp {
	struct tcl_state *ts;
	Tcl_Interp *interp;
	int safe;
	Tcl_CmdInfo tcl_after, tcl_vwait;   /* Tcl's own, called by myriad's after and vwait */
	char **allow;              /* a Tcl plugin's manifest: the commands it may call; NULL: every safe one */
	int nallow;
};
/* May ci call the command called name ("fault list")? */
int tc_allowed(const struct tc_interp *ci, const struct tcl_cmd *cmd);

struct tcl_call {
	struct tcl_state *ts;
	struct myriad *app;
	Tcl_Interp *interp;
	const struct tcl_cmd *cmd;
	int safe;                  /* called in the safe interpreter */
	int argc;                  /* positional arguments */
	Tcl_Obj *argv[TC_MAX_ARGS];
	Tcl_Obj *opt[TC_MAX_OPTS]; /* by position in cmd->opts; flags get "1" */
};

struct binding {
	char *table, *key, *script;
};

struct hooks;

struct tcl_state {
	struct myriad *app;
	Tcl_Interp *interp;
	struct tc_interp main_ci;
	struct tplugin *tplugins;  /* Tcl plugins, each in a safe interpreter (safe.c) */
	Tcl_Obj *apply;            /* "apply", shared */
	/* how we run */
	int batch;                 /* a batch run: no console */
	int typed;                 /* evaluating a line typed at the console's : line */
	int ask_typed;             /* ui confirm: such a line's actions ask first (1) */
	int sandboxed;             /* a safe interpreter now (tc_sandbox) */
	int in_config;             /* evaluating the configuration */
	int virtual_clock;         /* batch: Tcl's clock follows virtual cluster time */
	int64_t horizon;           /* batch: waits may let time pass up to here */
	int cli_sim;               /* --sim given: `sim` in the configuration is ignored */
	char via[32];              /* source of actions evaluated now */
	int exiting, exit_code;    /* `exit` was called */
	/* hooks, bindings, inventory */
	struct hooks *hooks;
	struct binding *bind;
	int nbind, cbind;
	char *theme;
	struct tcl_console_ops console;
	int console_ready;
	int64_t hook_commands;     /* command budget of one hook run */
	int64_t hook_ms;           /* time budget of one hook run (console) */
	int64_t command_ms;        /* time budget of a `:` line or key script (console) */
	int hook_errors;           /* errors before a hook is disabled */
	int64_t plugin_ms;         /* time budget of one plugin call (console) */
	/* batch output */
	struct sbuf *capture;      /* --json: what the script printed */
	struct sbuf audit;         /* --json: actions as JSON objects */
	int naudit, audit_sub;
	struct fo_wait *fanouts;   /* fan-outs running on the console's loop */
	struct whatif_take *whatif;   /* evaluating a what-if's script: actions are taken, not sent */
};

static inline struct tcl_state *tc_state(struct myriad *app)
{
	return app->tcl;
}

/* ---- interp.c ---- */
const struct tcl_cmd *tc_find(const char *name);
int tc_register_all(struct tcl_state *ts, Tcl_Interp *interp, struct tc_interp *ci);
Tcl_Obj *tc_opt(struct tcl_call *c, const char *name);
const char *tc_optstr(struct tcl_call *c, const char *name);
int tc_flag(struct tcl_call *c, const char *name);
int tc_err(struct tcl_call *c, const char *code, const char *fmt, ...) PRINTF_LIKE(3, 4);
int tc_ierr(Tcl_Interp *in, const char *code, const char *fmt, ...) PRINTF_LIKE(3, 4);
int tc_usage(struct tcl_call *c);
/* Reports a message where the operator sees it: stderr in batch, the
 * console's message line otherwise. */
void tc_report(struct tcl_state *ts, const char *fmt, ...) PRINTF_LIKE(2, 3);
const char *tc_user(void);
int tc_eval_top(struct tcl_state *ts, Tcl_Interp *in, Tcl_Obj *script, const char *via);
int64_t tc_time_limit(Tcl_Interp *in, int64_t ms);   /* a time limit ms from now (wall clock) */
void tc_time_limit_end(Tcl_Interp *in, int64_t saved);
void tc_wrap_builtins(Tcl_Interp *in, struct tc_interp *ci);

/* ---- value.c: building and reading values ---- */
void tc_dput(Tcl_Obj *d, const char *key, Tcl_Obj *v);
void tc_dstr(Tcl_Obj *d, const char *key, const char *s);
void tc_dint(Tcl_Obj *d, const char *key, int64_t v);
void tc_ddbl(Tcl_Obj *d, const char *key, double v);
void tc_dtime(Tcl_Obj *d, const char *key, int64_t us);   /* ISO, "" for 0 */
int tc_duration(const char *s, int64_t *us);               /* "10s" "5m" "2h" "1d" "500ms" "30" */
int tc_when(struct myriad *app, const char *s, int64_t *us); /* ISO, epoch s, +N from start, -10m ago */
/* Nodeset text (with @groups) to a set; NULL with an error in the interp. */
struct nodeset *tc_nodeset(struct tcl_call *c, Tcl_Obj *text);
/* A nodeset of known nodes to model indexes; -1 with an error naming the
 * unknown ones. *idx is malloc'd. */
int tc_node_indexes(struct tcl_call *c, Tcl_Obj *text, int32_t **idx, int32_t *n, char **folded);
int tc_node(struct tcl_call *c, Tcl_Obj *name, int32_t *node);
int tc_gpu(struct tcl_call *c, Tcl_Obj *node, Tcl_Obj *idx, int32_t *n, int32_t *g);
int tc_job_id(struct tcl_call *c, Tcl_Obj *o, uint32_t *id);
void tc_json(Tcl_Obj *v, struct sbuf *out);
int64_t tc_now_us(const struct myriad *app);
Tcl_Obj *tc_fault_dict(const struct model *m, const struct fault *f);
/* An event as a dict, field by field from the event schema: event (its
 * type's name), time, source, and the fields; a node index also as the
 * node's name (node) with the index in node_index; unknown metrics "". */
Tcl_Obj *tc_event_dict(const struct model *m, const struct event *ev);

/* ---- notifier.c: Tcl's events on the console's loop, virtual time ---- */
void tc_notifier_install(void);
void tc_notifier_attach(struct tcl_state *ts);
void tc_notifier_detach(struct tcl_state *ts);
void tc_virtual_clock(struct tcl_state *ts, int on);
int tc_virtual(const struct tcl_state *ts);   /* Tcl's clock is the cluster's now */
/* Lets cluster time pass in a batch run until `until` (us), servicing hooks
 * and timers after every tick. 0, or -1 with an error in the interp. */
int tc_advance(struct tcl_state *ts, Tcl_Interp *in, int64_t until);
/* batch.c: a signal (app->quit) ends the run: the script unwinds as by exit. */
int tc_stopped(struct tcl_state *ts, Tcl_Interp *in);

/* ---- hooks.c ---- */
void tc_hooks_init(struct tcl_state *ts);
void tc_hooks_free(struct tcl_state *ts);
void tc_hooks_forget_interp(struct tcl_state *ts, Tcl_Interp *in);
int tc_in_hook(struct tcl_state *ts);

/* ---- config.c / safe.c / batch.c ---- */
int tc_plugin_load(struct tcl_state *ts, Tcl_Interp *caller, const char *path, int64_t commands, int64_t ms);
int64_t tc_safe_limits(struct tcl_state *ts, Tcl_Interp *in);   /* returns tc_time_limit()'s */
void tc_safe_free(struct tcl_state *ts);
/* Tcl plugins' interpreters see ch under name (output.c changed stdout). */
void tc_safe_rebind(struct tcl_state *ts, const char *name, Tcl_Channel ch);
/* output.c: scripts' stdout and stderr to the log panel (console), or
 * sanitised when they are terminals (batch); s printed the same way. */
void tc_output_console(struct tcl_state *ts);
void tc_output_batch(struct tcl_state *ts);
void tc_print_safe(FILE *f, const char *s);
void tc_rebind_channel(Tcl_Interp *in, const char *name, Tcl_Channel ch);
void tc_sandbox(struct tcl_state *ts);
int tc_apply_console(struct tcl_state *ts, char **err);
char *tc_script_path(const char *name);   /* where scripts/NAME is, malloc'd; NULL if nowhere */
void tc_man(struct sbuf *out);
void tc_capture_request(int on);
void tc_capture_start(struct tcl_state *ts);

/* Command functions, by file. */
int tc_cluster(struct tcl_call *c);
int tc_now(struct tcl_call *c);
int tc_nodes(struct tcl_call *c);
int tc_nodeset_expand(struct tcl_call *c);
int tc_nodeset_fold(struct tcl_call *c);
int tc_nodeset_count(struct tcl_call *c);
int tc_nodeset_op(struct tcl_call *c);
int tc_nodeset_member(struct tcl_call *c);
int tc_nodeset_index(struct tcl_call *c);
int tc_nodeset_slice(struct tcl_call *c);
int tc_nodeset_split(struct tcl_call *c);
int tc_nodeset_contiguous(struct tcl_call *c);
int tc_node_info(struct tcl_call *c);
int tc_gpu_info(struct tcl_call *c);
int tc_gpu_get(struct tcl_call *c);
int tc_job_list(struct tcl_call *c);
int tc_job_info(struct tcl_call *c);
int tc_fault_list(struct tcl_call *c);
int tc_fault_info(struct tcl_call *c);
int tc_power(struct tcl_call *c);
int tc_links(struct tcl_call *c);
int tc_xid(struct tcl_call *c);
int tc_node_drain(struct tcl_call *c);
int tc_node_resume(struct tcl_call *c);
int tc_job_requeue(struct tcl_call *c);
int tc_job_checkpoint(struct tcl_call *c);
int tc_whatif(struct tcl_call *c);
/* cmd_whatif.c: inside `whatif`, an acting command's action goes here
 * instead of to the engine (jobs: the jobs it affects, or NULL; taken). */
int tc_whatif_take(struct tcl_call *c, const struct action *a, Tcl_Obj *jobs);
/* One line on what a would do over the next 30 minutes (the blast-radius
 * prompt shows it), malloc'd; NULL for an action on myriad itself. */
char *tc_whatif_brief(struct myriad *app, const struct action *a);
int tc_fault_ack(struct tcl_call *c);
int tc_guard(struct tcl_call *c);
int tc_action_list(struct tcl_call *c);
int tc_action_info(struct tcl_call *c);
int tc_action_wait(struct tcl_call *c);
int tc_on(struct tcl_call *c);
int tc_off(struct tcl_call *c);
int tc_every(struct tcl_call *c);
int tc_hooks_cmd(struct tcl_call *c);
int tc_advance_cmd(struct tcl_call *c);
int tc_log_query(struct tcl_call *c);
int tc_log_mark(struct tcl_call *c);
int tc_replay(struct tcl_call *c);
int tc_ui_bind(struct tcl_call *c);
int tc_ui_bindings(struct tcl_call *c);
int tc_ui_panel(struct tcl_call *c);
int tc_ui_theme(struct tcl_call *c);
int tc_ui_message(struct tcl_call *c);
int tc_ui_confirm(struct tcl_call *c);
int tc_ui_selection(struct tcl_call *c);
int tc_ui_do(struct tcl_call *c);
int tc_confirm(struct tcl_call *c);
int tc_prompt(struct tcl_call *c);
int tc_notify(struct tcl_call *c);
int tc_fanout(struct tcl_call *c);
void tc_fanout_cancel_all(struct tcl_state *ts);   /* cmd_fanout.c */
int tc_sim(struct tcl_call *c);
int tc_inventory_word(struct tcl_call *c);
int tc_plugin(struct tcl_call *c);
int tc_plugin_list(struct tcl_call *c);
int tc_theme(struct tcl_call *c);
int tc_inventory_cmd(struct tcl_call *c);
int tc_help(struct tcl_call *c);
int tc_quit(struct tcl_call *c);
int tc_inject(struct tcl_call *c);

#endif
