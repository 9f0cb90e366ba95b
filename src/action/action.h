/*
 * action.h - the action engine: the one way anything acts on the cluster.
 *
 * Every acting command (from the `:` line, a key, a hook, a runbook) builds a
 * struct action and calls action_submit. The engine emits an EV_ACTION event
 * for each phase (requested, decided, sent, result) so the recorder audits
 * them, applies the guards in order, and reaches the scheduler only through
 * app->backend (backend.h):
 *
 *   1. read-only (--read-only): every acting command is refused (a dry
 *      run, which sends nothing, still says what would happen: runbook
 *      regression on a recording is a read-only dry run);
 *   2. configuration: the configuration file itself may not act;
 *   3. input: a drain needs a reason (at most 64 characters, no commas or
 *      control characters: Slurm shows it in sinfo);
 *   4. dry-run (--dry-run or -dry-run): decided, nothing sent; the outcome
 *      says what would happen and which commands the backend would run;
 *   5. blast radius: when the nodes or GPUs touched by actions in the last
 *      window (cluster time) would exceed the limits, the action is held
 *      and needs confirmation: the outcome is AS_CONFIRM and whoever
 *      submitted it decides with action_confirm() (the console asks the
 *      operator, as tmux's confirm-before does; a batch run declines), or
 *      the action says `-force -reason TEXT`;
 *   6. backend: none (a recording) is "could not reach".
 *
 * The engine never calls the screen. A sent action is pending until the
 * backend answers or its deadline passes; it then ends as done, partial,
 * failed (with the scheduler's own message) or timed out, reported through
 * the submitter's callback and the result event. The effect itself comes
 * back from the scheduler: a drain shows in the model when sinfo says so.
 */
#ifndef MYRIAD_ACTION_H
#define MYRIAD_ACTION_H

#include <stdint.h>
#include "../myriad.h"

/* AK_ACK and AK_GUARD act on myriad itself (a fault acknowledged, the
 * blast-radius limits raised), not on the cluster: no backend, but the same
 * guards and the same audit. */
enum action_kind { AK_DRAIN, AK_RESUME, AK_REQUEUE, AK_SIGNAL, AK_ACK, AK_GUARD, AK_COUNT };
#define AK_LOCAL(k) ((k) == AK_ACK || (k) == AK_GUARD)

struct action {
	enum action_kind kind;
	const char *source;        /* event source: "tcl", "hook:3", "batch", "config" */
	const char *who;           /* the operator (user name) */
	const int32_t *nodes;      /* drain/resume: targets; requeue: excluded */
	int32_t nnodes;
	uint32_t job;              /* requeue, signal */
	int sig;                   /* signal number; 0: the backend's checkpoint signal */
	uint32_t fault;            /* ack */
	const char *reason;        /* drain reason */
	const char *note;          /* fault ack note */
	const char *target;        /* for the audit: folded nodeset, job or fault id */
	const char *args;          /* for the audit: Tcl list of the other arguments */
	int dry_run;               /* this action only; --dry-run applies to all */
	int force;                 /* pass the blast-radius guard ... */
	const char *force_reason;  /* ... with this reason (required) */
	int ask;                   /* held for the operator whatever the limits
				    * (typed at the console's : line, as keys ask) */
};

enum action_status {
	AS_DONE,      /* the backend did all of it */
	AS_PARTIAL,   /* some targets failed */
	AS_FAILED,    /* nothing was done: the scheduler's message says why */
	AS_TIMEOUT,   /* no answer before the deadline */
	AS_DRY_RUN,   /* decided, not sent */
	AS_REFUSED,   /* a guard said no */
	AS_CONFIRM,   /* held: needs the operator's confirmation (action_confirm) */
	AS_SENT       /* sent: waiting for the backend's answer */
};
#define AS_FINAL(s) ((s) <= AS_REFUSED)
/* Why a refusal or failure happened: maps to exit status and errorCode. */
enum action_why {
	AW_NONE, AW_READ_ONLY, AW_CONFIG, AW_INPUT, AW_GUARD, AW_NO_BACKEND,
	AW_BACKEND,       /* the scheduler refused or failed it */
	AW_TIMEOUT,       /* no answer in time */
	AW_UNREACHABLE    /* the scheduler could not be reached (head node down) */
};

struct action_outcome {
	uint32_t id;               /* audit id, the same in every phase's event */
	enum action_status status;
	enum action_why why;
	int32_t nodes, gpus;       /* what it touches */
	int32_t failed;            /* targets that failed */
	int over;                  /* held: over the blast-radius limits (not only typed) */
	char detail[512];          /* the guard decision, the commands, or the errors */
};

struct action_limits {
	int32_t nodes, gpus;       /* per window; 0 = no limit */
	int64_t window_us;         /* cluster time */
	int64_t timeout_us;        /* how long a backend call may take (wall time) */
};
#define ACTION_DEFAULT_NODES 64
#define ACTION_DEFAULT_GPUS 512
#define ACTION_DEFAULT_WINDOW (60 * US_PER_SEC)
#define ACTION_DEFAULT_TIMEOUT (20 * US_PER_SEC)

/* Told once when a submitted action reaches its final status. */
typedef void (*action_result_fn)(void *ctx, const struct action_outcome *out);

const char *action_kind_name(enum action_kind k);    /* "node drain" */
const char *action_status_name(enum action_status s); /* "done", "timed-out", "sent" */
/* Runs a through the guards and, if they allow it, sends it to the backend.
 * out says where it stands when this returns: final, AS_CONFIRM (held until
 * action_confirm) or AS_SENT (fn tells the end). fn may be NULL; it is not
 * called for a status that is already final here. Returns 0 when the action
 * was done, dry-run, held or sent; -1 when it was refused or failed. */
int action_submit(struct myriad *app, const struct action *a, struct action_outcome *out,
		  action_result_fn fn, void *ctx);
/* The verdict of the input and blast-radius guards on a, as if submitted
 * now after other actions that touched nodes_before nodes and gpus_before
 * GPUs (a what-if's earlier ones): AS_DONE (allowed), AS_CONFIRM (held:
 * over the blast radius) or AS_REFUSED (bad input), with the guard's words
 * in out->detail. What belongs to this session rather than to the action
 * (read-only, a recording without backend, --dry-run) is not consulted.
 * Nothing is audited, held or sent. */
int action_judge(struct myriad *app, const struct action *a, int32_t nodes_before, int32_t gpus_before,
		 struct action_outcome *out);
/* Continues (yes) or declines (why says so) an action held for
 * confirmation. -1 if id is not held. The end comes through its fn. */
int action_confirm(struct myriad *app, uint32_t id, int yes, const char *why);
/* The submitter of id is gone: its fn is not called any more. */
void action_detach(struct myriad *app, uint32_t id);
/* Waits, letting the loop run, until id is final or `until` (mono us).
 * Fills out with where it stands. 0 when final. (Batch runs.) */
int action_wait(struct myriad *app, uint32_t id, int64_t until, struct action_outcome *out);

/* Actions the engine knows: the held and sent ones, then the last finished. */
struct action_info {
	uint32_t id;
	enum action_kind kind;
	enum action_status status;
	char target[64];
	const char *source, *who;
	int64_t submitted;         /* cluster time */
	int64_t age_us;            /* wall time since it was sent (sent ones) */
	const char *detail;
};
/* Calls fn for each (pending first); all = 0: only held and sent ones. */
void action_each(struct myriad *app, int all, void (*fn)(void *ctx, const struct action_info *i), void *ctx);
/* Held and sent actions right now. */
int action_pending(struct myriad *app);

void action_get_limits(struct myriad *app, struct action_limits *l);
void action_set_limits(struct myriad *app, const struct action_limits *l);
/* Nodes and GPUs counted in the current window. */
void action_window(struct myriad *app, int32_t *nodes, int32_t *gpus);
/* Frees the engine's state; actions still pending end as timed out (their
 * callbacks are told). */
void action_free(struct myriad *app);
/* Checks a drain reason: NULL if fine, else why not (static text). */
const char *action_check_reason(const char *reason);

#endif
