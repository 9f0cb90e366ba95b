/*
 * recfile.c - the recorder's file: opening it (now, or when the cluster has
 * a name), prepared statements, keyframes and fault rows, what happens when
 * a write fails (the console goes on; the recorder says why and tries again
 * RETRY_TICKS later, starting over with a keyframe), and closing: the
 * recorder is the first part of a run to start and the last to stop
 * (app_free, and a fatal error), so the last tick and the chunks not yet
 * written are committed by its own stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "evjson.h"
#include "keyframe.h"
#include "recorder.h"

void rec_fail(struct rec *r, const char *what)
{
	char *msg = db_errmsg(r->db, what);
	int first = !r->status[0];

	snprintf(r->status, sizeof r->status, "log not written (%s); retrying", msg);
	if (first && r->app && !r->app->console)
		fprintf(stderr, "myriad: log %s: %s; going on without it, retrying every %d ticks\n",
			r->path ? r->path : "", msg, RETRY_TICKS);
	free(msg);
	r->failed = 1;
	r->rewrite_inventory = 1;   /* what failed may have held it */
}

int rec_begin(struct rec *r)
{
	if (db_exec(r->db, "BEGIN", NULL) < 0) {
		rec_fail(r, "begin");
		return -1;
	}
	r->in_txn = 1;
	if (!r->stats.groups && !r->stats.lost)   /* the recording's first group: its start */
		db_meta_set_i64(r->db, "start", r->tick_time);
	return 0;
}

int rec_step(struct rec *r, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	rec_fail(r, what);
	return -1;
}

static int prepare(struct rec *r, char **err)
{
	static const char *const sql[] = {
		"INSERT INTO events(id, tick, seq, time, type, node, source, data) VALUES(?1 * 4294967296 + ?2, ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
		"INSERT OR REPLACE INTO ticks(tick, time, num, source, events, layout) VALUES(?,?,?,?,?,?)",
		"INSERT OR REPLACE INTO tail(tick, data) VALUES(?,?)",
		"INSERT OR REPLACE INTO samples(kind, t0, node, t1, rows, step, data) VALUES(?,?,?,?,?,1,?)",
		"DELETE FROM tail WHERE tick >= ? AND tick < ?",
		"INSERT OR REPLACE INTO keyframes(tick, time, hash, static, data) VALUES(?,?,?,?,?)",
		"INSERT OR IGNORE INTO kfstatic(digest, data) VALUES(?,?)",
		"INSERT INTO actions(tick, time, action, phase, ok, dry_run, verb, target, args, who, detail, source,"
		" status) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
		"INSERT INTO faults(fault, tick, time, node, gpu, kind, code, severity, text, action) VALUES(?,?,?,?,?,?,?,?,?,?)",
		"INSERT OR REPLACE INTO nodes(node, name, su, rack, gpus) VALUES(?,?,?,?,?)",
		"UPDATE faults SET gpu = ? WHERE id = ? AND fault = ?",
	};
	sqlite3_stmt **out[] = {&r->st.event, &r->st.tick, &r->st.tail, &r->st.chunk, &r->st.del_tail,
				&r->st.kf, &r->st.kfstatic, &r->st.action, &r->st.fault, &r->st.node,
				&r->st.fault_gpu};

	for (unsigned i = 0; i < ARRAY_LEN(sql); i++)
		if (!(*out[i] = db_prep(r->db, sql[i], err)))
			return -1;
	return 0;
}

int rec_open_file(struct rec *r, const char *path, char **err)
{
	char *warn = NULL;

	if (db_open(path, 1, 0, &r->db, &warn, err) < 0)
		return -1;
	free(warn);
	if (db_exec(r->db, "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-16384; PRAGMA temp_store=MEMORY;", err) < 0 ||
	    prepare(r, err) < 0) {
		rec_close_file(r);
		return -1;
	}
	r->path = xstrdup(path);
	db_meta_set_i64(r->db, "tick_us", US_PER_SEC);
	db_meta_set_i64(r->db, "chunk_ticks", r->chunk_ticks);
	db_meta_set_i64(r->db, "keyframe_ticks", r->kf_ticks);
	db_meta_set_i64(r->db, "hash_version", MODEL_HASH_VERSION);   /* of the keyframes' hashes */
	if (r->app && r->app->model.nnodes > 0) {   /* opened on a running cluster */
		rec_page_size(r, r->app->model.ngpus);
		/* in one transaction, not one per node: 12,800 commits at 102,400
		 * GPUs took 0.6 s (before the console's first frame); the commit's
		 * comment names it for test_store_faults.c */
		if (db_exec(r->db, "BEGIN", NULL) == 0) {
			rec_inventory(r, &r->app->model);
			if (r->failed || db_exec(r->db, "COMMIT -- the inventory", NULL) < 0) {
				if (!r->failed)
					rec_fail(r, "nodes");   /* written again at the next group */
				db_exec(r->db, "ROLLBACK", NULL);
			}
		}
	}
	return 0;
}

/* A file that will keep its samples in tail rows gets TAIL_PAGE_SIZE pages,
 * if nothing is in it yet but its meta rows (else it keeps its pages: the
 * group being recorded, if any, starts over in the new file). */
void rec_page_size(struct rec *r, int64_t gpus)
{
	int txn = r->in_txn;

	if (gpus * rec_scale < TAIL_ONLY_GPUS || r->failed || r->down || db_i64(r->db, "PRAGMA page_size", 0) >= TAIL_PAGE_SIZE ||
	    db_i64(r->db, "SELECT (SELECT count(*) FROM ticks) + (SELECT count(*) FROM events) + (SELECT count(*) FROM nodes)"
			  " + (SELECT count(*) FROM tail) + (SELECT count(*) FROM keyframes) + (SELECT count(*) FROM samples)",
		   -1) != 0)
		return;
	if (txn)
		db_exec(r->db, "ROLLBACK", NULL);
	r->in_txn = 0;
	db_set_page_size(r->db, TAIL_PAGE_SIZE, NULL);   /* if it fails, the pages stay as they were */
	if (!txn)
		return;
	rec_begin(r);
}

void rec_close_file(struct rec *r)
{
	sqlite3_stmt **all[] = {&r->st.event, &r->st.tick, &r->st.tail, &r->st.chunk, &r->st.del_tail,
				&r->st.kf, &r->st.kfstatic, &r->st.action, &r->st.fault, &r->st.node,
				&r->st.fault_gpu};

	for (unsigned i = 0; i < ARRAY_LEN(all); i++) {
		sqlite3_finalize(*all[i]);
		*all[i] = NULL;
	}
	if (r->db) {
		if (r->in_txn)
			db_exec(r->db, "ROLLBACK", NULL);
		db_exec(r->db, "PRAGMA incremental_vacuum", NULL);   /* the freed tail pages */
		sqlite3_close(r->db);
	}
	r->db = NULL;
	for (int k = 0; k < PK_COUNT; k++) {
		window_free(&r->win[k]);
		window_free(&r->old[k]);
	}
	chain_free(&r->chain);
	free(r->tev);
	r->tev = NULL;
	r->ntev = r->ctev = 0;
	r->have_win = r->have_old = r->win_tail = 0;
	for (int i = 0; i < r->nsrcs; i++)
		free(r->srcs[i]);
	free(r->srcs);
	free(r->src_slots);
	r->src_slots = NULL;
	r->src_cap = 0;
	free(r->arr);
	free(r->hist.p);
	free(r->hist_group);
	free(r->undo);
	free(r->wait);
	r->wait = NULL;
	r->nwait = 0;
	r->hist.p = NULL;
	r->hist_group = NULL;
	r->undo = NULL;
	r->nundo = r->cundo = 0;
	free(r->path);
	free(r->pend);
	arena_free(&r->pend_strings);
	sbuf_free(&r->buf);
	sbuf_free(&r->buf2);
	sbuf_free(&r->kf_stat);
	sbuf_free(&r->kf_dyn);
	kf_scratch_free(&r->kf);
	r->srcs = NULL;
	r->arr = NULL;
	r->path = NULL;
	r->pend = NULL;
	r->nsrcs = 0;
}

/* The GPUs' identities (a keyframe's static part: their UUIDs, PCI ids and
 * names), hashed. The same as when the static part was written last? Then
 * it needs no encoding: at 102,400 GPUs it is 14 MB of byte columns, and it
 * seldom changes. A hash of them, not a copy: a copy is 14 MB more memory
 * to touch (and a stale static part would still be caught: a keyframe's
 * restore checks the model hash). */
static uint64_t static_hash(const struct model *m)
{
	size_t n = (size_t)m->ngpus;
	uint64_t h = hash_block(HASH_INIT, m->uuid, sizeof *m->uuid * n);

	h = hash_block(h, m->pci, sizeof *m->pci * n);
	return hash_block(h, m->gpu_name, sizeof *m->gpu_name * n);
}

/* The static part's digest, its row written if it is new. */
static uint64_t write_static(struct rec *r, const struct model *m)
{
	struct sbuf *stat = &r->kf_stat;
	uint64_t digest, ids = static_hash(m);

	if (r->last_static && ids == r->static_ids)
		return r->last_static;
	sbuf_reset(stat);
	kf_encode_static(m, stat, &r->kf);
	digest = kf_digest(stat);
	if (digest != r->last_static) {
		sqlite3_bind_int64(r->st.kfstatic, 1, (int64_t)digest);
		sqlite3_bind_blob(r->st.kfstatic, 2, stat->s, (int)stat->len, SQLITE_STATIC);
		if (rec_step(r, r->st.kfstatic, "keyframes") == 0) {
			r->last_static = digest;
			r->static_ids = ids;
		}
	}
	return digest;
}

void rec_keyframe(struct rec *r, const struct model *m, const struct kf_pred *pred)
{
	struct sbuf *dyn = &r->kf_dyn;
	uint64_t digest = write_static(r, m);
	char hash[24];

	sbuf_reset(dyn);
	kf_encode_dyn(m, pred, dyn, &r->kf);
	snprintf(hash, sizeof hash, "%016" PRIx64, model_hash(m));
	sqlite3_bind_int64(r->st.kf, 1, r->group);
	sqlite3_bind_int64(r->st.kf, 2, r->tick_time);
	sqlite3_bind_text(r->st.kf, 3, hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(r->st.kf, 4, (int64_t)digest);
	sqlite3_bind_blob(r->st.kf, 5, dyn->s, (int)dyn->len, SQLITE_STATIC);
	if (rec_step(r, r->st.kf, "keyframes") == 0) {
		r->need_kf = 0;
		r->stats.keyframes++;
	}
}

static int xid_waits(const struct model *m, uint32_t id)
{
	for (int32_t i = 0; i < m->nxid_wait; i++)
		if (m->xid_wait[i].fault == id)
			return 1;
	return 0;
}

static void write_fault(struct rec *r, const struct model *m, const struct fault *f)
{
	sqlite3_stmt *st = r->st.fault;

	sqlite3_bind_int64(st, 1, f->id);
	sqlite3_bind_int64(st, 2, r->group);
	sqlite3_bind_int64(st, 3, f->time);
	sqlite3_bind_int(st, 4, f->node);
	sqlite3_bind_int(st, 5, f->gpu);
	sqlite3_bind_text(st, 6, fault_kind_name(f->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 7, f->code);
	sqlite3_bind_text(st, 8, severity_name(f->severity), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, f->text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, f->remedy, -1, SQLITE_STATIC);
	if (rec_step(r, st, "faults") == 0 && f->gpu < 0 && xid_waits(m, f->id)) {
		r->wait = xrealloc(r->wait, sizeof *r->wait * (size_t)(r->nwait + 1));
		r->wait[r->nwait++] = (struct rec_wait){f->id, sqlite3_last_insert_rowid(r->db)};
	}
}

/* The faults opened since the last call (ids from fault_mark on). */
void rec_faults(struct rec *r, const struct model *m)
{
	int32_t i = m->nfaults;

	if (m->next_fault_id < r->fault_mark)
		r->fault_mark = 1;   /* the model was reset */
	while (i > 0 && m->faults[i - 1].id >= r->fault_mark)
		i--;
	for (; i < m->nfaults && !r->down && !r->failed && r->have_group; i++)
		write_fault(r, m, &m->faults[i]);
	r->fault_mark = m->next_fault_id;
}

/* A fault written while its XID waited for the GPU's identity names the GPU
 * in its row once the model's fault does, so that the log says what a replay
 * shows. */
void rec_fault_gpus(struct rec *r, const struct model *m)
{
	sqlite3_stmt *st = r->st.fault_gpu;
	int32_t keep = 0;

	for (int32_t i = 0; i < r->nwait; i++) {
		const struct fault *f = model_fault(m, r->wait[i].fault);

		if (f && f->gpu >= 0 && !r->down && !r->failed) {
			sqlite3_bind_int(st, 1, f->gpu);
			sqlite3_bind_int64(st, 2, r->wait[i].row);
			sqlite3_bind_int64(st, 3, f->id);
			rec_step(r, st, "faults");
		} else if (f && xid_waits(m, f->id)) {
			r->wait[keep++] = r->wait[i];
		}
	}
	r->nwait = keep;
}

/* The cluster's inventory from the model: the meta rows and node names
 * that a group with EV_TOPOLOGY and EV_NODE holds. At open on a running
 * cluster, and again once the file is written after a failure. */
void rec_inventory(struct rec *r, const struct model *m)
{
	struct ev_topology t = {m->topo.sus, m->topo.nodes_per_su, m->gpus_per_node, m->nnodes, m->ngpus, m->cluster};

	rec_topology_meta(r, &t);
	rec_nodes_from_model(r, m);
}

void rec_nodes_from_model(struct rec *r, const struct model *m)
{
	for (int32_t i = 0; i < m->nnodes; i++) {
		sqlite3_stmt *st = r->st.node;

		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, m->nodes[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, m->nodes[i].su);
		sqlite3_bind_int(st, 4, m->nodes[i].rack);
		sqlite3_bind_int(st, 5, m->nodes[i].gpus);
		rec_step(r, st, "nodes");
	}
}

/* ---- the default path ---- */

static int mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;

	for (char *s = p + 1; *s && !rc; s++)
		if (*s == '/') {
			*s = '\0';
			rc = mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
			*s = '/';
		}
	if (!rc && mkdir(p, 0700) < 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* DIR/NAME-STAMP.db, or NAME-STAMP-2.db, -3 ... when a run in the same
 * second took it: the file is created empty and exclusively (O_EXCL), so two
 * runs never share one and an existing file is never written over. */
static char *claim_name(const char *dir, const char *name, const char *stamp)
{
	for (int n = 1;; n++) {
		char *path = n == 1 ? xasprintf("%s/%s-%s.db", dir, name, stamp)
				    : xasprintf("%s/%s-%s-%d.db", dir, name, stamp, n);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd >= 0) {
			close(fd);
			return path;
		}
		if (errno != EEXIST || n >= 10000)
			return path;   /* opening it says why */
		free(path);
	}
}

char *recorder_default_path_for(const char *cluster)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *dir = xdg && *xdg ? xasprintf("%s/myriad", xdg) : xasprintf("%s/.local/state/myriad", home ? home : "/tmp");
	char iso[32], stamp[32];
	size_t k = 0;

	fmt_iso(wall_us(), iso);
	for (const char *s = iso; *s && k + 1 < sizeof stamp; s++)
		if (*s != '-' && *s != ':')
			stamp[k++] = *s;
	stamp[k] = '\0';
	mkdirs(dir);
	char *path = claim_name(dir, cluster && *cluster ? cluster : "myriad", stamp);

	free(dir);
	return path;
}

char *recorder_default_path(void)
{
	return recorder_default_path_for(NULL);
}

/* ---- deferred opening ---- */

static void defer(struct rec *r, const struct event *ev)
{
	if (r->npend == r->cpend) {
		r->cpend = r->cpend ? r->cpend * 2 : 64;
		r->pend = xrealloc(r->pend, sizeof *r->pend * r->cpend);
	}
	r->pend[r->npend] = *ev;
	evjson_own(&r->pend[r->npend], &r->pend_strings);
	r->npend++;
}

static void open_deferred(struct rec *r, const char *cluster)
{
	char *path = recorder_default_path_for(cluster), *err = NULL;

	r->deferred = 0;
	if (rec_open_file(r, path, &err) < 0) {
		struct stat st;

		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
			unlink(path);   /* the name claimed for it */
		snprintf(r->status, sizeof r->status, "not recording: %s", err);
		if (r->app && !r->app->console)
			fprintf(stderr, "myriad: log: %s; going on without recording\n", err);
		free(err);
		free(path);
		return;
	}
	free(path);
	for (size_t i = 0; i < r->npend; i++)
		rec_event(r, &r->pend[i]);
	r->npend = 0;
}

static void on_event(void *ctx, const struct event *ev)
{
	struct rec *r = ctx;

	if (r->deferred) {
		if (ev->type == EV_TOPOLOGY || r->npend >= 100000)
			open_deferred(r, ev->type == EV_TOPOLOGY ? ev->u.topology.name : NULL);
		else
			defer(r, ev);
		if (r->deferred || !r->db)
			return;
	}
	if (r->db)
		rec_event(r, ev);
}

/* ---- store.h ---- */

int recorder_open(struct myriad *app, const char *path, char **err)
{
	struct rec *r;
	const char *env = getenv("MYRIAD_LOG_RETENTION");

	if (app->recorder) {
		*err = xstrdup("already recording");
		return -1;
	}
	r = xcalloc(1, sizeof *r);
	r->app = app;
	r->chunk_ticks = CHUNK_TICKS;
	r->kf_ticks = KF_TICKS_MAX;
	r->kf_first = app->model.nnodes > 0;
	r->trace = getenv("MYRIAD_LOG_TRACE") != NULL;
	r->fault_mark = app->model.next_fault_id;
	retention_default(&r->ret);
	if (env && retention_parse(&r->ret, env, err) < 0) {
		free(r);
		return -1;
	}
	if (r->ret.keyframe_ticks > 0) {
		r->kf_ticks = (int)MAX(r->ret.keyframe_ticks / r->chunk_ticks * r->chunk_ticks, r->chunk_ticks);
		r->kf_ticks_fixed = 1;
	}
	if (path) {
		if (rec_open_file(r, path, err) < 0) {
			rec_close_file(r);
			free(r);
			return -1;
		}
	} else {
		r->deferred = 1;
	}
	r->sub = bus_subscribe(&app->bus, BUS_ALL, on_event, r);
	app->recorder = r;
	app_started(app, PART_RECORDER, recorder_close);
	return 0;
}

void recorder_close(struct myriad *app)
{
	struct rec *r = app->recorder;

	if (!r)
		return;
	bus_unsubscribe(&app->bus, r->sub);
	app_stopped(app, PART_RECORDER);
	rec_finish(r);
	rec_close_file(r);
	free(r);
	app->recorder = NULL;
}

int recorder_set_retention(struct myriad *app, const char *spec, char **err)
{
	struct rec *r = app->recorder;

	if (!r) {
		*err = xstrdup("not recording");
		return -1;
	}
	return retention_parse(&r->ret, spec, err);
}
