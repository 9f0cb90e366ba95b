/*
 * recorder.h - the recorder's state, shared by recorder.c (the event path:
 * groups, packing, transactions), slices.c (writing a closed window's chunks
 * a slice per tick) and recfile.c (opening the file, statements, keyframes,
 * failures, closing).
 */
#ifndef MYRIAD_STORE_RECORDER_H
#define MYRIAD_STORE_RECORDER_H

#include "keyframe.h"
#include "store_int.h"

#define RETRY_TICKS 10            /* after a failed write, try again this much later */
#define SPREAD_TICKS 30           /* a closed window's chunks are written over this many ticks */

struct rec_stmts {
	sqlite3_stmt *event, *tick, *tail, *chunk, *del_tail, *kf, *kfstatic, *action, *fault, *node, *fault_gpu;
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
	struct rec_wait {             /* faults written while their XID waited for its GPU */
		uint32_t fault;
		int64_t row;              /* their row in `faults` */
	} *wait;
	int32_t nwait;
	int nopack;
	/* the window of packed events */
	int have_win, topo_changed;
	int64_t w0, w_end;
	struct window win[PK_COUNT];
	int tail_only;                /* new windows keep their samples in tail rows (rectail.c) */
	int win_tail;                 /* the current window does */
	struct tail_chain chain;      /* tail rows: each series' last values */
	struct tev *tev;              /* tail rows: the group's packed events */
	size_t ntev, ctev;
	char **srcs;
	int nsrcs, last_src;
	uint32_t *src_slots, src_cap;   /* srcs by name (recorder.c src_id) */
	int chunk_ticks, kf_ticks, kf_ticks_fixed;
	/* the window closed last, until its chunks are all in (slices.c) */
	int have_old;
	int64_t old_w0, old_t1;       /* its ticks: [old_w0, old_t1) */
	struct window old[PK_COUNT];
	int32_t old_next;             /* its chunks [0, old_next) are committed */
	int32_t old_upto;             /* [old_next, old_upto) are in the open transaction */
	int64_t old_cost;             /* writing them all costs this (values + inserts) */
	int64_t old_spent, old_spent_next;   /* up to old_upto, old_next */
	int flush_all;                /* rec_finish: write everything now */
	struct kf_pred hist;          /* each port's last two IB readings... */
	int64_t *hist_group;          /* ...their groups: [2 * port], [2 * port + 1] */
	struct ib_undo {              /* ...as they were before this group's readings */
		int32_t port;
		struct port_pred was;
		int64_t group[2];
	} *undo;
	size_t nundo, cundo;
	int kf_first;                 /* opened on a model with an inventory */
	uint64_t last_static;         /* the kfstatic row written last (0: none, or maybe lost) */
	uint64_t static_ids;          /* the hash of the GPUs' UUIDs, PCI ids and names it was made of */
	struct kf_scratch kf;         /* keyframe buffers, kept */
	struct sbuf kf_stat, kf_dyn;
	/* failures */
	int failed;                   /* a write of this group failed */
	int down;                     /* not writing until retry_group */
	int64_t retry_group;
	int need_kf;
	int rewrite_inventory;        /* a failure may have lost the inventory rows... */
	int inventory_in_txn;         /* ...written again in this group */
	struct retention ret;
	int64_t last_retention;
	int64_t ds_from;              /* windows before this one are down-sampled */
	struct sbuf buf, buf2;
	struct recorder_stats stats;
	int trace;                    /* MYRIAD_LOG_TRACE: say each commit on stderr */
};

/* Tests: the recorder's choices by size (tail rows, the keyframe interval,
 * the page size) take the cluster for this many times bigger than it is. */
extern int rec_scale;

/* recfile.c */
int rec_open_file(struct rec *r, const char *path, char **err);
void rec_close_file(struct rec *r);
void rec_fail(struct rec *r, const char *what);
int rec_begin(struct rec *r);   /* BEGIN, and the start of a new recording; 0, or -1 (failed) */
int rec_step(struct rec *r, sqlite3_stmt *st, const char *what);   /* 0, or -1 (failed) */
void rec_keyframe(struct rec *r, const struct model *m, const struct kf_pred *pred);
void rec_faults(struct rec *r, const struct model *m);
void rec_fault_gpus(struct rec *r, const struct model *m);   /* after a GPU's identity */
void rec_nodes_from_model(struct rec *r, const struct model *m);
void rec_inventory(struct rec *r, const struct model *m);           /* meta rows and nodes */
void rec_page_size(struct rec *r, int64_t gpus);   /* a large cluster's file, while still empty */
/* recorder.c */
void rec_event(struct rec *r, const struct event *ev);
void rec_topology_meta(struct rec *r, const struct ev_topology *t);
void rec_finish(struct rec *r);
/* slices.c: the current window [w0, t1) closes; a slice of the closed
 * window's chunks per group (all of them with flush_all), within the
 * group's transaction; then, once the group committed (ok) or not, the
 * bookkeeping. */
void spread_close(struct rec *r, int64_t t1);
void spread_step(struct rec *r);
void spread_end_group(struct rec *r, int ok);
/* rectail.c: the windows of a recording that keeps its samples in tail
 * rows: an event packed (its row, or -1 if out of the inventory), a window
 * started and closed, the group's tail row */
int rectail_pack(struct rec *r, const struct event *ev, int kind, int32_t node, int32_t idx, uint16_t src);
void rectail_start(struct rec *r, const struct model *m);
void rectail_close(struct rec *r);
void rectail_encode(struct rec *r, struct sbuf *out);
/* retention.c, within the open transaction: down-sampling, up to n chunks a
 * group; the age and size bounds, after a window's chunks are all written */
void retention_step(struct rec *r, int n);
void retention_run(struct rec *r);

#endif
