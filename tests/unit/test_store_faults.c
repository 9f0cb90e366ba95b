/*
 * test_store_faults.c - the recorder on a disk that fails (faultvfs.h, no
 * root needed): a full disk for a while, an I/O error, a failed COMMIT, and
 * a failure inside each kind of row the recorder writes. What must hold on
 * every one: the run goes on, the status says the log is not written and
 * why, the recorder tries again RETRY_TICKS later and then says nothing,
 * the ticks that failed are the only ones missing, the file passes SQLite's
 * integrity check, every keyframe's static part is in the file, and replay
 * at every tick the file holds rebuilds the live run's model exactly.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "myriad.h"
#include "faultvfs.h"
#include "store/recorder.h"

#define T0 1767225600000000LL   /* the simulator's start: 2026-01-01T00:00:00Z */
#define MAXT 1000

struct run {
	struct myriad app;
	char *path;
	uint64_t h[MAXT + 1];      /* the live model's hash after each tick */
	char lost[MAXT + 1];       /* the recorder counted that tick as lost */
	int t;                     /* ticks run */
	int32_t nnodes;            /* the model's, at the end */
	int saved_stderr;
	char *stderr_path;
	int said;                  /* lines "myriad: log PATH: ...; going on without it" */
};

/* Under ASan/UBSan, where their reports go (sanitizer_common's interface). */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/* What the run writes on stderr goes to a file until finish(): its lines
 * that tell the operator the log is not written are counted (a batch run
 * has no status line), every other line is passed on. A sanitizer's report
 * goes to the real stderr meanwhile. */
static void capture_stderr(struct run *r)
{
	int fd;

	fflush(stderr);
	r->stderr_path = unit_tmp_file("stderr.txt");
	fd = open(r->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	r->saved_stderr = dup(2);
	if (__sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)r->saved_stderr);
	dup2(fd, 2);
	close(fd);
}

static void release_stderr(struct run *r)
{
	char line[1024], want[512];
	FILE *f;

	fflush(stderr);
	dup2(r->saved_stderr, 2);
	if (__sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)2);
	close(r->saved_stderr);
	snprintf(want, sizeof want, "myriad: log %s: ", r->path);
	r->said = 0;
	if ((f = fopen(r->stderr_path, "r")) != NULL) {
		while (fgets(line, sizeof line, f)) {
			if (!strncmp(line, want, strlen(want)) && strstr(line, "; going on without it, retrying every 10 ticks\n"))
				r->said++;
			else
				fputs(line, stderr);
		}
		fclose(f);
	}
	unlink(r->stderr_path);
	free(r->stderr_path);
}

static struct rec *rec_of(struct run *r)
{
	return r->app.recorder;
}

/* The recorder records to a fresh file, then the simulator starts; with
 * small_cache, the recorder's connection keeps one page, so that rows
 * spill to the file inside their statements (and fail there). */
static void start_armed(struct run *r, const char *name, const char *spec, int small_cache,
			const struct faultvfs_plan *plan)
{
	char *err = NULL;

	memset(r->h, 0, sizeof r->h);
	memset(r->lost, 0, sizeof r->lost);
	r->t = 0;
	r->path = unit_tmp_file(name);
	capture_stderr(r);
	app_init(&r->app);
	if (recorder_open(&r->app, r->path, &err) < 0) {
		fprintf(stderr, "  recorder_open: %s\n", err);
		free(err);
		test_failures++;
		return;
	}
	if (small_cache)
		CHECK_INT(sqlite3_exec(rec_of(r)->db, "PRAGMA cache_size = 1", NULL, NULL, NULL), SQLITE_OK);
	if (plan)
		faultvfs_fail(plan);
	CHECK(app_add_source(&r->app, "sim", spec, &err) == 0);
	r->h[0] = model_hash(&r->app.model);
}

static void start(struct run *r, const char *name, const char *spec, int small_cache)
{
	start_armed(r, name, spec, small_cache, NULL);
}

/* An operator's audit rows in the current tick, so that actions are written. */
static void audit(struct run *r)
{
	struct event ev = {.type = EV_ACTION, .time = r->app.now, .source = "operator"};

	ev.u.action = (struct ev_action){(uint32_t)r->t, ACT_REQUESTED, 1, 0, "node drain", "gpu0002",
					 "-reason {x}", "ops", "", "sent"};
	app_emit(&r->app, &ev);
	bus_flush(&r->app.bus);
}

static int64_t lost_so_far(struct run *r)
{
	struct recorder_stats s;

	return recorder_get_stats(&r->app, &s) == 0 ? s.lost : -1;
}

/* n ticks; a tick's group ends (is committed, or lost) with the next tick. */
static void ticks(struct run *r, int n)
{
	for (int i = 0; i < n && r->t < MAXT; i++) {
		int64_t was = lost_so_far(r);

		app_tick(&r->app);
		r->h[++r->t] = model_hash(&r->app.model);
		if (lost_so_far(r) > was)
			r->lost[r->t - 1] = 1;
		audit(r);
	}
}

static const char *status(struct run *r)
{
	return recorder_status(&r->app);
}

/* Ticks until the recorder says nothing (it wrote again), at most limit. */
static int until_recovered(struct run *r, int limit)
{
	for (int i = 0; i < limit; i++) {
		if (!status(r)[0])
			return 1;
		ticks(r, 1);
	}
	return !status(r)[0];
}

static int64_t q(sqlite3 *db, const char *sql)
{
	return db_i64(db, sql, -1);
}

/* The file after the run: intact, keyframes whole, the inventory there;
 * from its first tick on, every tick the recorder did not count as lost is
 * in it and no other; replay at those ticks (every stride-th, each first
 * tick after a gap, the last) rebuilds the live run's model. */
static void check_file(struct run *r, int stride)
{
	sqlite3 *db = NULL;
	struct myriad app;
	char *err = NULL, sql[96];
	int64_t first, seeks = 0, wrong = 0, downsampled = 0;
	struct replay_info info;

	CHECK_INT(sqlite3_open_v2(r->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	CHECK_INT(q(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), 1);
	CHECK_INT(q(db, "SELECT count(*) FROM keyframes WHERE static NOT IN (SELECT digest FROM kfstatic)"), 0);
	CHECK(r->nnodes > 0);
	CHECK_INT(q(db, "SELECT count(*) FROM nodes"), r->nnodes);
	CHECK_INT(q(db, "SELECT value FROM meta WHERE key = 'nodes'"), r->nnodes);
	CHECK_INT(q(db, "SELECT max(tick) FROM ticks"), r->t);
	first = MAX(q(db, "SELECT min(tick) FROM ticks"), db_meta_i64(db, "first_tick", 0));
	app_init(&app);
	CHECK(replay_open(&app, r->path, &err) == 0);
	for (int64_t t = first; t <= r->t && !err; t++) {
		snprintf(sql, sizeof sql, "SELECT count(*) FROM ticks WHERE tick = %lld", (long long)t);
		if (q(db, sql) != !r->lost[t]) {
			if (wrong++ < 5)
				fprintf(stderr, "  tick %lld: %s\n", (long long)t,
					r->lost[t] ? "in the file, though the recorder counted it lost" : "missing");
			continue;
		}
		if (r->lost[t] || !(t % stride == 0 || (t > first && r->lost[t - 1]) || t == r->t))
			continue;
		seeks++;
		if (replay_seek(&app, T0 + t * US_PER_SEC, &err) < 0)
			fprintf(stderr, "  replay at +%lld: %s\n", (long long)t, err);
		else if (replay_get_info(&app, &info) == 0 && info.downsampled)
			downsampled++;   /* samples kept in coarser steps: not the live model */
		else if (model_hash(&app.model) != r->h[t] && wrong++ < 5)
			fprintf(stderr, "  replay at +%lld: another model than the live run's\n", (long long)t);
	}
	CHECK_INT(wrong, 0);
	CHECK(err == NULL);
	CHECK(seeks > 2 * downsampled);
	free(err);
	sqlite3_close(db);
	app_free(&app);
}

static void finish(struct run *r)
{
	r->nnodes = r->app.model.nnodes;
	recorder_close(&r->app);
	app_free(&r->app);
	release_stderr(r);
}

/* The disk fills up for a while: the ticks from the first failed commit
 * until the first retry after the space came back are lost, no other; the
 * status says so meanwhile, and nothing once it writes again. The file's
 * first keyframe is written by a retry whose commit failed (issue 17, item 2:
 * its static part was then taken as written, and the next keyframe,
 * written without it, could not be read). */
static void outage(int code, const char *says)
{
	struct run r;
	struct recorder_stats s;
	char want[160];

	faultvfs_install();
	start(&r, "outage.db", "gpus=64,seed=2", 0);
	ticks(&r, 20);
	CHECK_STR(status(&r), "");
	faultvfs_fail(&(struct faultvfs_plan){FV_WRITE | FV_SYNC | FV_TRUNCATE, "outage.db", 0, code, 0, NULL});
	ticks(&r, 1);   /* group 20 does not commit */
	snprintf(want, sizeof want, "log not written (commit: %s); retrying", says);
	CHECK_STR(status(&r), want);
	CHECK(faultvfs_failures() > 0);
	ticks(&r, 15);  /* the retry at 30 fails too */
	CHECK_STR(status(&r), want);
	faultvfs_heal();
	ticks(&r, 4);   /* tick 40: the retry that writes */
	CHECK_STR(status(&r), want);   /* the retry at 40 is not committed yet */
	ticks(&r, 1);
	CHECK_STR(status(&r), "");
	ticks(&r, 79);
	CHECK_STR(status(&r), "");
	CHECK_INT(recorder_get_stats(&r.app, &s), 0);
	CHECK_INT(s.lost, 20);                  /* groups 20-39 */
	CHECK_INT(s.groups, r.t - 20);          /* the others (the last still open) */
	for (int t = 0; t <= r.t; t++)
		CHECK_INT(r.lost[t], t >= 20 && t < 40);
	finish(&r);
	CHECK_INT(r.said, 1);   /* once, at the first failure */
	faultvfs_uninstall();
	check_file(&r, 7);
	unit_remove_db(r.path);
}

TEST(store_faults_disk_full_for_a_while_loses_only_those_ticks)
{
	outage(SQLITE_FULL, "disk full");
}

TEST(store_faults_io_error_for_a_while_loses_only_those_ticks)
{
	outage(SQLITE_IOERR_WRITE, "disk I/O error");
}

/* Syncs failing alone lose nothing: in WAL mode with synchronous=NORMAL a
 * commit does not sync, and a failed checkpoint leaves the frames in the
 * WAL, which readers use. */
TEST(store_faults_failing_syncs_lose_nothing)
{
	struct run r;
	struct recorder_stats s;

	setenv("MYRIAD_LOG_RETENTION", "keyframe=60", 1);
	faultvfs_install();
	start(&r, "sync.db", "gpus=64,seed=2", 0);
	unsetenv("MYRIAD_LOG_RETENTION");
	faultvfs_fail(&(struct faultvfs_plan){FV_SYNC, "sync.db", 0, SQLITE_IOERR_FSYNC, 0, NULL});
	for (int i = 0; i < 130; i++) {
		ticks(&r, 1);
		CHECK_STR(status(&r), "");
	}
	CHECK_INT(recorder_get_stats(&r.app, &s), 0);
	CHECK_INT(s.lost, 0);
	finish(&r);
	CHECK_INT(r.said, 0);
	faultvfs_heal();
	faultvfs_uninstall();
	for (int t = 0; t <= r.t; t++)
		CHECK_INT(r.lost[t], 0);
	check_file(&r, 9);
	unit_remove_db(r.path);
}

/* A write that fails inside each kind of row the recorder writes, one
 * after the other in one run (its connection keeps one page, so rows spill
 * to the file in their own statements): each time the status names the
 * rows and the reason, the retry writes again, and the file holds exactly
 * the ticks that were not lost. Retention down-samples and drops old
 * windows meanwhile. (BEGIN touches no file, and a keyframe's static part,
 * its first write in a transaction, does not spill: neither fails this way;
 * a COMMIT that fails after the static part was written is the outage's.) */
TEST(store_faults_each_kind_of_write_fails_cleanly)
{
	static const struct {
		const char *during, *label;
		int code;
	} paths[] = {
		{"INSERT INTO events", "events", SQLITE_FULL},
		{"INSERT INTO actions", "audit", SQLITE_IOERR_WRITE},
		{"INSERT INTO faults", "faults", SQLITE_FULL},
		{"INTO ticks", "ticks", SQLITE_IOERR_WRITE},
		{"INTO tail", "tail", SQLITE_FULL},
		{"INTO samples", "samples", SQLITE_FULL},
		{"DELETE FROM tail", "tail", SQLITE_IOERR_WRITE},
		{"INTO keyframes", "keyframes", SQLITE_IOERR_WRITE},
		{"COMMIT", "commit", SQLITE_FULL},
		{"UPDATE samples", "retention", SQLITE_FULL},
		{"DELETE FROM events", "retention", SQLITE_IOERR_WRITE},
	};
	struct run r;
	char want[160];

	setenv("MYRIAD_LOG_RETENTION", "full=120,step=10,age=300,keyframe=60", 1);
	faultvfs_install();
	start(&r, "paths.db", "gpus=64,seed=2,accel=20000", 1);
	unsetenv("MYRIAD_LOG_RETENTION");
	ticks(&r, 3);
	for (unsigned i = 0; i < ARRAY_LEN(paths); i++) {
		int n = 0;

		faultvfs_fail(&(struct faultvfs_plan){FV_WRITE, "paths.db", 0, paths[i].code, 1, paths[i].during});
		while (!faultvfs_failures() && n++ < 300)
			ticks(&r, 1);
		if (!faultvfs_failures()) {
			fprintf(stderr, "  no write failed during \"%s\" in 300 ticks (at tick %d)\n", paths[i].during, r.t);
			test_failures++;
			faultvfs_heal();
			continue;
		}
		snprintf(want, sizeof want, "log not written (%s: %s); retrying", paths[i].label,
			 paths[i].code == SQLITE_FULL ? "disk full" : "disk I/O error");
		if (strcmp(status(&r), want)) {
			fprintf(stderr, "  failed during \"%s\" at tick %d: status \"%s\", expected \"%s\"\n",
				paths[i].during, r.t, status(&r), want);
			test_failures++;
		}
		if (!until_recovered(&r, RETRY_TICKS + 2)) {
			fprintf(stderr, "  after \"%s\": still \"%s\" at tick %d\n", paths[i].during, status(&r), r.t);
			test_failures++;
		}
	}
	ticks(&r, 3);
	CHECK_STR(status(&r), "");
	finish(&r);
	CHECK_INT(r.said, (int)ARRAY_LEN(paths));   /* once for each */
	faultvfs_uninstall();
	check_file(&r, 5);
	unit_remove_db(r.path);
}

/* The disk is full from the start: the first group, which holds the
 * cluster's inventory (the meta rows readers size everything by, the node
 * names exports use), is lost; once it writes again, the inventory must be
 * in the file all the same. */
TEST(store_faults_inventory_lost_with_the_first_ticks_is_written_again)
{
	struct run r;

	faultvfs_install();
	start_armed(&r, "first.db", "gpus=64,seed=2", 0,
		    &(struct faultvfs_plan){FV_WRITE, "first.db", 0, SQLITE_FULL, 0, NULL});
	ticks(&r, 3);
	CHECK_STR(status(&r), "log not written (commit: disk full); retrying");
	faultvfs_heal();
	CHECK(until_recovered(&r, RETRY_TICKS + 2));
	ticks(&r, 20);
	CHECK(r.lost[0] && !r.lost[r.t - 1]);
	finish(&r);
	CHECK_INT(r.said, 1);
	faultvfs_uninstall();
	check_file(&r, 3);
	unit_remove_db(r.path);
}

/* Opened on a running cluster, the recorder writes the node rows at once,
 * outside any tick, in one transaction; its commit fails: the status says
 * so, and the rows are all in the file once it writes again. */
TEST(store_faults_node_rows_written_at_open_are_written_again)
{
	struct run r;
	char *err = NULL;

	memset(&r, 0, sizeof r);
	r.path = unit_tmp_file("open.db");
	capture_stderr(&r);
	app_init(&r.app);
	CHECK(app_add_source(&r.app, "sim", "gpus=64,seed=2", &err) == 0);
	r.h[0] = model_hash(&r.app.model);
	faultvfs_install();
	faultvfs_fail(&(struct faultvfs_plan){FV_WRITE, "open.db", 0, SQLITE_FULL, 1, "the inventory"});
	CHECK(recorder_open(&r.app, r.path, &err) == 0);
	CHECK_INT(faultvfs_failures(), 1);
	CHECK_STR(status(&r), "log not written (nodes: disk full); retrying");
	CHECK(until_recovered(&r, RETRY_TICKS + 2));
	ticks(&r, 20);
	finish(&r);
	CHECK_INT(r.said, 1);
	faultvfs_uninstall();
	check_file(&r, 3);
	unit_remove_db(r.path);
}
