/*
 * bench_scale.c - `make bench`: the whole tick at 10,240 and at 102,400 GPUs
 * in the same run, and the start-up to the console's first frame.
 *
 * A whole tick is what app_tick() costs: the simulator prints, the streams
 * parse, the bus delivers, the model folds, the fault rules run. Every fifth
 * tick also carries the Slurm poll (sinfo --json and squeue --json printed
 * and parsed), so the mean is taken over a multiple of five ticks and the
 * two kinds are shown apart as well. The cost per GPU at both sizes says
 * whether the tick grows faster than the fleet; each size is measured three
 * times, in turn with the other, and its least mean kept (RUNS). Ten ticks of
 * warm-up come first: the first IB dump of every node (one in ten per tick)
 * is a start.
 *
 * The first frame: build/myriad --sim gpus=102400 started on a
 * pseudo-terminal (200x60), timed from fork to the console's header on the
 * terminal, with the CPU the process had used by then (/proc/PID/stat);
 * once recording (the default, into a scratch directory) and once with
 * --record none. A figure, not an assertion.
 */
#include <dirent.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "myriad.h"
#include "sim/sim.h"

void bench_scale(struct myriad *app);

/* Both sizes measured RUNS times, one after the other, and each size's
 * least mean kept: this machine's speed drifts by up to 1.6 times between
 * runs, and a drift in the middle would otherwise count against one size. */
#define RUNS 3

struct tick_fig {
	int32_t gpus, jobs;
	double mean, telem, telem_max, poll, sim;   /* ms of CPU */
};

static void discard(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n)
{
	(void)ctx;
	(void)s;
	(void)node;
	(void)buf;
	(void)n;
}

/* After 10 ticks of warm-up (every node's first IB dump: its ports, the
 * rails), n ticks (a multiple of 5), each timed. */
static void measure(struct myriad *app, int n, struct tick_fig *f)
{
	double sum = 0, telem = 0, poll_ms = 0;
	int ntelem = 0, npoll = 0;

	for (int i = 0; i < 10; i++)
		app_tick(app);
	memset(f, 0, sizeof *f);
	f->gpus = app->model.ngpus;
	for (int i = 0; i < n; i++) {
		int64_t t0 = cpu_us();

		app_tick(app);
		double ms = (double)(cpu_us() - t0) / 1000.0;

		sum += ms;
		if (sim_tick(app_sim(app)) % 5 == 0) {   /* the simulator printed sinfo and squeue */
			poll_ms += ms;
			npoll++;
		} else {
			telem += ms;
			ntelem++;
			f->telem_max = MAX(f->telem_max, ms);
		}
	}
	for (int32_t i = 0; i < app->model.njobs; i++)
		f->jobs += app->model.jobs[i].id != 0;
	f->mean = sum / n;
	f->telem = ntelem ? telem / ntelem : 0;
	f->poll = npoll ? poll_ms / npoll : 0;
}

/* The simulator alone, n steps, its output discarded. */
static double sim_alone(struct myriad *app, int n)
{
	struct sim_sink none = {NULL, discard};
	int64_t t0 = cpu_us();

	for (int i = 0; i < n; i++)
		sim_step(app_sim(app), &none);
	return (double)(cpu_us() - t0) / 1000.0 / n;
}

static void print_fig(const struct tick_fig *f, int n)
{
	printf("full tick, %d GPUs (simulator prints + parse + apply + faults, mean of %d ticks with the Slurm poll every 5th,"
	       " the least of %d runs of both sizes in turn):"
	       " %.2f ms CPU = %.0f ns per GPU\n", f->gpus, n, RUNS, f->mean, f->mean * 1e6 / f->gpus);
	printf("  telemetry ticks %.2f ms (slowest %.2f), Slurm-poll ticks %.2f ms (%d jobs in the model); simulator alone %.2f ms\n",
	       f->telem, f->telem_max, f->poll, f->jobs, f->sim);
}

static int big_app(struct myriad *big)
{
	char *err = NULL;

	app_init(big);
	if (app_add_source(big, "sim", "gpus=102400,seed=1", &err) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		free(err);
		app_free(big);
		return -1;
	}
	app_tick(big);
	return 0;
}

static void bench_ticks(struct myriad *app)
{
	struct tick_fig small, large, f;
	struct myriad big;
	const int n_small = 50, n_large = 20;

	if (big_app(&big) < 0)
		return;
	for (int k = 0; k < RUNS; k++) {
		measure(app, n_small, &f);
		if (!k || f.mean < small.mean)
			small = f;
		measure(&big, n_large, &f);
		if (!k || f.mean < large.mean)
			large = f;
	}
	small.sim = sim_alone(app, n_small);
	large.sim = sim_alone(&big, n_large);
	app_free(&big);
	print_fig(&small, n_small);
	print_fig(&large, n_large);
	double per_small = small.mean / small.gpus, per_large = large.mean / large.gpus;

	printf("  cost per GPU at 102,400 / at 10,240: %.2f (telemetry ticks %.2f); 1.00 or less: the tick grows no faster than the fleet\n",
	       per_large / per_small, (large.telem / large.gpus) / (small.telem / small.gpus));
	printf("  target: whole tick under 10 ms at 10,240 GPUs: %s; under 100 ms at 102,400 GPUs: %s; per GPU no higher at 102,400: %s\n",
	       small.mean <= 10.0 ? "met" : "NOT met", large.mean <= 100.0 ? "met" : "NOT met",
	       per_large <= per_small ? "met" : "NOT met");
	printf("  of which the Slurm poll (sinfo and squeue JSON every 5th tick, spread over the ticks): %.2f ms at 10,240 GPUs, %.2f ms at 102,400"
	       " (the simulated workload has %.2f times the jobs per GPU at 102,400)\n",
	       (small.poll - small.telem) / 5, (large.poll - large.telem) / 5,
	       ((double)large.jobs / large.gpus) / ((double)small.jobs / small.gpus));
}

/* ---- the first frame ---- */

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);

		if (unlink(p) < 0)
			remove_tree(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	char *p;

	fclose(f);
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')) || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Reads the terminal until the header's LIVE appears; 1 if it did. */
static int wait_header(int fd, int64_t deadline)
{
	char buf[8192], tail[16] = "";

	while (mono_us() < deadline) {
		struct pollfd p = {fd, POLLIN, 0};

		if (poll(&p, 1, 200) <= 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);

		if (n <= 0)
			return 0;
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		char *joined = xasprintf("%s%s", tail, buf);
		int found = strstr(joined, " LIVE ") != NULL;
		size_t len = strlen(joined);

		snprintf(tail, sizeof tail, "%s", joined + (len > 8 ? len - 8 : 0));
		free(joined);
		if (found)
			return 1;
	}
	return 0;
}

/* Stops the console (SIGTERM, the terminal drained so it can finish). */
static void stop_child(pid_t pid, int fd)
{
	char buf[8192];
	int64_t deadline = mono_us() + 10 * US_PER_SEC;

	kill(pid, SIGTERM);
	while (mono_us() < deadline && waitpid(pid, NULL, WNOHANG) == 0) {
		struct pollfd p = {fd, POLLIN, 0};

		if (poll(&p, 1, 100) > 0 && read(fd, buf, sizeof buf) <= 0)
			break;
	}
	if (waitpid(pid, NULL, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static int first_frame(const char *exe, int record, double *wall_s, double *cpu_s)
{
	char dir[] = "/tmp/myriad-bench-frame-XXXXXX";
	struct winsize ws = {60, 200, 0, 0};
	int fd, ok;

	if (!mkdtemp(dir))
		return -1;
	int64_t t0 = mono_us();
	pid_t pid = forkpty(&fd, NULL, NULL, &ws);

	if (pid < 0)
		return -1;
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		setenv("XDG_STATE_HOME", dir, 1);
		setenv("XDG_CONFIG_HOME", dir, 1);
		if (record)
			execl(exe, "myriad", "--sim", "gpus=102400,seed=1", (char *)NULL);
		else
			execl(exe, "myriad", "--record", "none", "--sim", "gpus=102400,seed=1", (char *)NULL);
		_exit(127);
	}
	ok = wait_header(fd, t0 + 60 * US_PER_SEC);
	*wall_s = (double)(mono_us() - t0) / 1e6;
	*cpu_s = proc_cpu_s(pid);
	stop_child(pid, fd);
	close(fd);
	remove_tree(dir);
	return ok ? 0 : -1;
}

static void bench_first_frame(void)
{
	char self[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 16);

	if (n <= 0)
		return;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')))
		strcpy(slash + 1, "myriad");
	for (int record = 1; record >= 0; record--) {
		double wall[3], cpu[3];
		int ok = 1;

		for (int i = 0; i < 3 && ok; i++)
			ok = first_frame(self, record, &wall[i], &cpu[i]) == 0;
		if (!ok) {
			printf("first frame at 102,400 GPUs%s: the console did not draw (is %s built?)\n",
			       record ? "" : " (--record none)", self);
			continue;
		}
		printf("first frame at 102,400 GPUs (console on a 200x60 pty%s): %.2f %.2f %.2f s from start, "
		       "%.2f %.2f %.2f s of CPU\n", record ? ", recording" : ", --record none", wall[0], wall[1], wall[2],
		       cpu[0], cpu[1], cpu[2]);
	}
}

void bench_scale(struct myriad *app)
{
	bench_ticks(app);
	bench_first_frame();
}
