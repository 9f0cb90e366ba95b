/*
 * action_int.h - private to src/action: the engine's state and the record
 * of one action (held, sent or recently finished), shared by action.c (the
 * guards and sending) and record.c (records, replies, waiting, listing).
 */
#ifndef MYRIAD_ACTION_INT_H
#define MYRIAD_ACTION_INT_H

#include "action.h"
#include "backend.h"

#define ACT_KEEP 64                /* finished actions kept for `action list -all` */

struct touch {                     /* one sent action in the blast-radius window */
	int64_t time;
	int32_t nodes, gpus;
};

struct action_engine;

struct act {                       /* one action the engine knows */
	struct action_engine *e;
	struct action a;               /* its strings and nodes are the record's own */
	struct action_outcome out;
	struct backend_call call;
	action_result_fn fn;
	void *ctx;
	int in_submit;                 /* action_submit is still running: no fn */
	int64_t submitted;             /* cluster time */
	int64_t sent_mono;             /* mono us when it was sent */
	int64_t timer;                 /* its deadline on app->loop */
	char *strs[7];
	int32_t *nodes;
	char *nodeset;
	struct act *next;              /* in e->live */
};

struct action_engine {
	struct myriad *app;
	uint32_t next_id;
	struct action_limits lim;
	struct touch *t;
	int nt, ct;
	struct act *live;              /* held and sent, newest first */
	struct act *done[ACT_KEEP];    /* finished, a ring */
	int ndone, done_at;
};

struct action_engine *engine_of(struct myriad *app);
void act_emit(struct myriad *app, const struct action *a, uint32_t id, int phase, int ok, int dry,
	      const char *status, const char *detail);

/* record.c */
struct act *act_new(struct action_engine *e, const struct action *a, const struct action_outcome *out);
void act_free(struct act *r);
void act_live(struct act *r);
struct act *act_find(struct action_engine *e, uint32_t id);
/* Ends r: status and detail (NULL keeps r->out.detail), the result event for
 * a sent action, the finished ring, and the submitter's fn. */
void act_finish(struct act *r, enum action_status status, enum action_why why, int32_t failed, const char *detail);

#endif
