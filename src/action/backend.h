/*
 * backend.h - what a scheduler backend provides to the action engine, and
 * how it answers. Slurm (slurm.c), the embedded simulator (source_sim.c)
 * and a site's plugin implement the same table; a second scheduler
 * (Kubernetes: cordon, drain, evict) is one more file of this shape.
 *
 * A call is sent now and answered later. send() must not block: it starts
 * the work (an SSH command on the head node) and returns; the backend then
 * answers exactly once with backend_reply(), from a loop callback, or
 * before send() returns when the work is immediate (the simulator). The
 * engine owns the deadline: a call that takes longer ends as "timed out",
 * the engine calls cancel(), and the backend must not answer it after that.
 *
 * One call acts on a whole nodeset (call->nodeset, folded as Slurm writes
 * it) - one scontrol for 64 nodes, not 64.
 */
#ifndef MYRIAD_ACTION_BACKEND_H
#define MYRIAD_ACTION_BACKEND_H

#include <stdint.h>
#include "../myriad.h"
#include "../util.h"

/* What the engine asks for (enum action_kind in action.h). */
enum backend_verb { BV_DRAIN, BV_RESUME, BV_REQUEUE, BV_SIGNAL };

struct backend_call {
	uint32_t id;               /* the action's audit id */
	enum backend_verb verb;
	const int32_t *nodes;      /* drain/resume: targets; requeue: nodes to exclude */
	int32_t nnodes;
	const char *nodeset;       /* the same nodes folded: "gpu[0001-0064]"; "" if none */
	uint32_t job;              /* requeue, signal */
	int sig;                   /* signal number; 0: the site's checkpoint signal (USR1) */
	const char *reason;        /* drain */
	const char *who;           /* the operator */
	void *priv;                /* the backend's own state for this call */
};

struct backend_ops {
	const char *name;          /* "slurm", "sim" */
	int abi;                   /* MYRIAD_ABI */
	/* Starts the work of call; answers later with backend_reply. */
	void (*send)(struct backend *b, struct backend_call *call);
	/* The call timed out: stop caring about it and free call->priv (optional). */
	void (*cancel)(struct backend *b, struct backend_call *call);
	/* The commands send() would run, one per line (for --dry-run and the audit). */
	void (*describe)(struct backend *b, const struct backend_call *call, struct sbuf *out);
	void (*free)(struct backend *b);   /* optional */
};

/* The outcome of a call: all done, some targets failed, nothing done (the
 * scheduler said why), or the scheduler could not be reached at all. */
enum backend_status { BS_DONE, BS_PARTIAL, BS_FAILED, BS_UNREACHABLE };

/* The backend's answer: how it went, how many targets failed, and the
 * scheduler's own words (its error message, or "" when all went well). */
void backend_reply(struct backend_call *call, enum backend_status status, int32_t failed, const char *detail);

/* Sets app's backend (freeing the one it had). */
void backend_install(struct myriad *app, const struct backend_ops *ops, void *priv);

#endif
