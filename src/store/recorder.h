/*
 * recorder.h - the recorder's state, shared by recorder.c (the event path:
 * groups, packing, transactions) and recfile.c (opening the file, statements,
 * keyframes, failures, closing).
 */
#ifndef MYRIAD_STORE_RECORDER_H
#define MYRIAD_STORE_RECORDER_H

#include "keyframe.h"
#include "store_int.h"

#define RETRY_TICKS 10            /* after a failed write, try again this much later */

struct rec_stmts {
	sqlite3_stmt *event, *tick, *tail, *chunk, *del_tail, *kf, *kfstatic, *action, *fault, *node;
};

struct rec {
	struct myriad *app;           /* NULL once the app is gone (exit) */
	sqlite3 *db;
	char *path;
	int deferred;                 /* path chosen at EV_TOPOLOGY */
	struct event *pend;           /* events seen before the file is open */
	size_t npend, cpend;
	struct arena pend_strings;
	char status[240];
	int sub;
	struct rec_stmts st;
	int in_txn;
	/* the group being recorded */
	int have_group, any_group;
	int64_t group, tick_time, tick_num;
	int has_tick;
	char tick_src[64];
	int64_t seq;
	struct arrival *arr;
	size_t narr, carr;
	int canonical;
	uint64_t last_key;
	uint32_t fault_mark;          /* model's next_fault_id already recorded */
	int nopack;
	/* the window of packed events */
	int have_win, topo_changed;
	int64_t w0, w_end;
	struct window win[PK_COUNT];
	char **srcs;
	int nsrcs, last_src;
	int chunk_ticks, kf_ticks, kf_ticks_fixed;
	struct kf_pred hist;          /* each port's last two IB readings... */
	int64_t *hist_group;          /* ...their groups: [2 * port], [2 * port + 1] */
	int kf_first;                 /* opened on a model with an inventory */
	uint64_t last_static;
	/* failures */
	int failed;                   /* a write of this group failed */
	int down;                     /* not writing until retry_group */
	int64_t retry_group;
	int need_kf;
	struct retention ret;
	int64_t last_retention;
	struct sbuf buf, buf2;
	struct recorder_stats stats;
	int trace;                    /* MYRIAD_LOG_TRACE: say each commit on stderr */
};

/* recfile.c */
int rec_open_file(struct rec *r, const char *path, char **err);
void rec_close_file(struct rec *r);
void rec_fail(struct rec *r, const char *what);
int rec_step(struct rec *r, sqlite3_stmt *st, const char *what);   /* 0, or -1 (failed) */
void rec_keyframe(struct rec *r, const struct model *m, const struct kf_pred *pred);
void rec_faults(struct rec *r, const struct model *m);
void rec_nodes_from_model(struct rec *r, const struct model *m);
/* recorder.c */
void rec_event(struct rec *r, const struct event *ev);
void rec_topology_meta(struct rec *r, const struct ev_topology *t);
void rec_finish(struct rec *r);
/* retention.c: runs within the open transaction after a window is flushed */
void retention_run(struct rec *r);

#endif
