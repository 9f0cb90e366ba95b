/*
 * hooks.h - private to hooks.c and hooks_cmd.c: a hook, the hook table, and
 * the states remembered so that hooks fire on changes only.
 */
#ifndef MYRIAD_TCL_HOOKS_H
#define MYRIAD_TCL_HOOKS_H

#include "tcl_int.h"

enum hook_kind { HK_FAULT, HK_NODE, HK_JOB, HK_CONN, HK_TICK, HK_EVENT, HK_EVERY, HK_COUNT };
extern const char *const tc_hook_kinds[HK_COUNT];
#define XID_BIT (1u << FK_COUNT)   /* filter word "xid": faults from XID lines */

struct hook {
	int id;
	enum hook_kind kind;
	Tcl_Interp *interp;
	int safe, removed, disabled;
	Tcl_Obj *lambda, *filter;
	uint32_t kinds;                /* fault kinds (bits), XID_BIT */
	int32_t codes[32];
	int ncodes;
	int min_sev;
	char *event;                   /* fault: open (default), ack, close, any */
	char *user, *host;
	struct nodeset *nodes;
	char **words;                  /* node/job/conn states */
	int nwords;
	int64_t every_us, next_us;
	uint64_t runs, errors;
	char *last_error;
};

struct job_seen {
	uint32_t id;
	int32_t state;                 /* -2 ended */
};

struct hooks {
	struct hook **h;
	int n, cap, next_id, depth, sub, dirty;
	uint32_t last_fault;
	int32_t nnodes;
	int32_t *base;                 /* per node: last base state, -1 unknown */
	uint32_t *flags;
	uint64_t *reason;
	struct job_seen *jobs;
	uint32_t jcap, jn;
};

void tc_hook_free(struct hook *h);
void tc_hooks_compact(struct hooks *hs);
int tc_hook_parse_filter(struct tcl_call *c, struct hook *h, Tcl_Obj *filter);

#endif
