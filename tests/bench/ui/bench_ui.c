/*
 * bench_ui.c - `make bench`: the console's numbers on the embedded
 * 10,240-GPU cluster.
 *   CPU per full redraw of the utilization panel into the cell grid
 *   (target <= 2 ms), beside the cost of one tick of the simulator + model;
 *   steady CPU of the real console at 1 Hz in a 200x60 tmux (target <= 5 %
 *   of one core), from /proc/PID/stat over BENCH_UI_SECONDS (default 30).
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "myriad.h"
#include "ui/ui_int.h"

static double redraw_ms(struct console *c, int iters)
{
	int64_t t0 = cpu_us();

	for (int i = 0; i < iters; i++)
		console_draw(c, 1);
	return (double)(cpu_us() - t0) / iters / 1000.0;
}

static double panel_ms(struct console *c, int iters)
{
	struct view v = grid_view(&c->grid), pv = view_sub(&v, 0, 2, c->w, c->h - 4);
	int64_t t0 = cpu_us();

	for (int i = 0; i < iters; i++) {
		c->gstate_events = 0;   /* recompute GPU states each time, as after a tick */
		c->ops[0]->draw(c->st[0], &pv);
	}
	return (double)(cpu_us() - t0) / iters / 1000.0;
}

static double tick_ms(struct myriad *app, int ticks)
{
	int64_t t0 = cpu_us();

	for (int i = 0; i < ticks; i++)
		app_tick(app);
	return (double)(cpu_us() - t0) / ticks / 1000.0;
}

/* utime + stime of pid in clock ticks, or -1. */
static long long proc_cpu(int pid)
{
	char path[64], buf[1024], *p;
	long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return -1;
	if (!fgets(buf, sizeof buf, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if (!(p = strrchr(buf, ')')))
		return -1;
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld", &ut, &st) != 2)
		return -1;
	return ut + st;
}

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

/* The real binary in tmux at 1 Hz: CPU share over secs seconds, or -1. */
static double steady_cpu(const char *bin, int secs)
{
	char dir[] = "/tmp/myriad-bench-ui-XXXXXX", sock[64], cmd[1024], out[64];
	long long a, b;
	int pid = -1;
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, sizeof sock, "%s/tmux.sock", dir);
	/* as an operator runs it: recording to its state directory (a private one here) */
	snprintf(cmd, sizeof cmd, "env -u TMUX LANG=C.UTF-8 tmux -S %s -f /dev/null new-session -d -x 200 -y 60 "
		 "'exec env XDG_STATE_HOME=%s %s' 2>/dev/null", sock, dir, bin);
	if (run(cmd) < 0)
		return -1;
	snprintf(cmd, sizeof cmd, "env -u TMUX tmux -S %s display-message -p '#{pane_pid}'", sock);
	sleep(3);   /* start-up and the first ticks */
	if ((f = popen(cmd, "r"))) {
		if (fgets(out, sizeof out, f))
			pid = atoi(out);
		pclose(f);
	}
	a = pid > 0 ? proc_cpu(pid) : -1;
	sleep((unsigned)secs);
	b = pid > 0 ? proc_cpu(pid) : -1;
	snprintf(cmd, sizeof cmd, "env -u TMUX tmux -S %s kill-server 2>/dev/null; sleep 0.5; rm -rf %s", sock, dir);
	run(cmd);
	if (a < 0 || b < 0)
		return -1;
	return 100.0 * (double)(b - a) / (double)sysconf(_SC_CLK_TCK) / secs;
}

int main(int argc, char **argv)
{
	struct myriad app;
	struct console *c;
	char *err = NULL, bin[512];
	const char *env = getenv("BENCH_UI_SECONDS");
	int secs = env ? atoi(env) : 30;
	double tick, full, panel, steady;

	(void)argc;
	setlocale(LC_ALL, "C.UTF-8");
	app_init(&app);
	if (app_add_source(&app, "sim", "", &err) < 0) {
		fprintf(stderr, "bench-ui: %s\n", err);
		return 1;
	}
	tick = tick_ms(&app, 10);
	c = console_new(&app, NULL, 200, 60);
	app.console = c;
	console_draw(c, 1);
	full = redraw_ms(c, 200);
	panel = panel_ms(c, 200);
	printf("console: utilization panel, %d GPUs at 200x60: %.3f ms CPU per panel redraw, %.3f ms per whole "
	       "screen (target <= 2 ms)\n", app.model.ngpus, panel, full);
	printf("console: one tick of the simulator + parsers + model for comparison: %.2f ms\n", tick);
	console_free(c);
	app_free(&app);
	snprintf(bin, sizeof bin, "%s", argv[0]);
	if (strrchr(bin, '/'))
		strcpy(strrchr(bin, '/') + 1, "myriad");
	if (secs <= 0 || access(bin, X_OK) < 0 || run("command -v tmux >/dev/null") < 0) {
		printf("console: steady CPU at 1 Hz: skipped (needs tmux and %s)\n", bin);
		return 0;
	}
	steady = steady_cpu(bin, secs);
	if (steady < 0)
		printf("console: steady CPU at 1 Hz: could not measure\n");
	else
		printf("console: steady CPU at 1 Hz, %d GPUs, 200x60, recording, over %d s: %.2f %% of one core "
		       "(target <= 5 %%), of which ~%.2f %% is the simulator itself\n", 10240, secs, steady, tick / 10.0);
	return 0;
}
