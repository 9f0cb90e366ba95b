/*
 * action.h - the action engine: the one way anything acts on the cluster.
 *
 * Every acting command (from the `:` line, a key, a hook, a runbook) builds a
 * struct action and calls action_submit. The engine emits EV_ACTION events for
 * each phase (requested, decided, sent, result) so the recorder audits them,
 * applies the guards in order, and reaches the scheduler only through
 * app->backend:
 *
 *   1. read-only (--read-only): every acting command is refused (a dry
 *      run, which sends nothing, still says what would happen: runbook
 *      regression on a recording is a read-only dry run);
 *   2. configuration: the configuration file itself may not act;
 *   3. input: a drain needs a reason in the convention of domain.md section 8
 *      (at most 64 characters, no commas or control characters);
 *   4. dry-run (--dry-run or -dry-run): decided, nothing sent, the outcome
 *      says what would happen;
 *   5. blast radius: when the nodes or GPUs touched by actions in the last
 *      window (cluster time) would exceed the limits, the action stops and
 *      needs confirmation: asked with ui_confirm in the console (the action
 *      runs when the operator says yes), or `-force -reason TEXT`;
 *   6. backend: none (a recording) is "could not reach".
 *
 * Results come back as events: a drain shows in the next sinfo poll.
 */
#ifndef MYRIAD_ACTION_H
#define MYRIAD_ACTION_H

#include <stdint.h>
#include "../myriad.h"

enum action_kind { AK_DRAIN, AK_RESUME, AK_REQUEUE, AK_SIGNAL, AK_ACK, AK_COUNT };

struct action {
	enum action_kind kind;
	const char *source;        /* event source: "tcl", "hook:3", "batch", "config" */
	const char *who;           /* the operator (user name) */
	const int32_t *nodes;      /* drain/resume: targets; requeue: excluded */
	int32_t nnodes;
	uint32_t job;              /* requeue, signal */
	int sig;                   /* signal number */
	uint32_t fault;            /* ack */
	const char *reason;        /* drain reason */
	const char *note;          /* fault ack note */
	const char *target;        /* for the audit: folded nodeset, job or fault id */
	const char *args;          /* for the audit: Tcl list of the other arguments */
	int dry_run;               /* this action only; --dry-run applies to all */
	int force;                 /* pass the blast-radius guard ... */
	const char *force_reason;  /* ... with this reason (required) */
};

enum action_status {
	AS_DONE,      /* sent, the backend accepted all of it */
	AS_PARTIAL,   /* sent, some targets failed */
	AS_FAILED,    /* sent, nothing accepted */
	AS_DRY_RUN,   /* decided, not sent */
	AS_REFUSED,   /* a guard said no */
	AS_PENDING    /* waiting for the operator's confirmation */
};
/* Why a refusal or failure happened: maps to exit status and errorCode. */
enum action_why { AW_NONE, AW_READ_ONLY, AW_CONFIG, AW_INPUT, AW_GUARD, AW_NO_BACKEND, AW_BACKEND };

struct action_outcome {
	uint32_t id;               /* audit id, the same in every phase's event */
	enum action_status status;
	enum action_why why;
	int32_t nodes, gpus;       /* what it touches */
	int32_t sent, failed;      /* backend calls made, and those that failed */
	char detail[512];          /* the guard decision or the errors */
};

struct action_limits {
	int32_t nodes, gpus;       /* per window; 0 = no limit */
	int64_t window_us;         /* cluster time */
};
#define ACTION_DEFAULT_NODES 64
#define ACTION_DEFAULT_GPUS 512
#define ACTION_DEFAULT_WINDOW (60 * US_PER_SEC)

const char *action_kind_name(enum action_kind k);    /* "node drain" */
const char *action_status_name(enum action_status s); /* "done", "dry-run" */
/* Runs a through the guards and the backend; fills out. Returns 0 when the
 * action was done or dry-run (also partially), -1 otherwise. */
int action_submit(struct myriad *app, const struct action *a, struct action_outcome *out);
void action_get_limits(struct myriad *app, struct action_limits *l);
void action_set_limits(struct myriad *app, const struct action_limits *l);
/* Nodes and GPUs counted in the current window. */
void action_window(struct myriad *app, int32_t *nodes, int32_t *gpus);
/* Frees the engine's state (and any action still waiting for confirmation). */
void action_free(struct myriad *app);
/* Checks a drain reason: NULL if fine, else why not (static text). */
const char *action_check_reason(const char *reason);

#endif
