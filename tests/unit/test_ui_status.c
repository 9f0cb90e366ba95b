/*
 * test_ui_status.c - what the console says about the log: on a disk that
 * fails (tests/unit/faultvfs.c), the header names the error and the status
 * line stops saying "recording" until the recorder has written again.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "faultvfs.h"
#include "myriad.h"
#include "store/store.h"
#include "ui/ui_int.h"

static char *screen_of(struct console *c)
{
	console_draw(c, 1);
	return grid_text(&c->grid);
}

/* The header (the first row) and the status line (the last row that says
 * the tick). */
static void rows(struct console *c, char *top, char *bottom, size_t n)
{
	char *s = screen_of(c), *nl = strchr(s, '\n');

	snprintf(top, n, "%.*s", nl ? (int)(nl - s) : 0, s);
	*bottom = '\0';
	for (char *line = s, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		if (strstr(line, " tick "))
			snprintf(bottom, n, "%s", line);
	}
	free(s);
}

TEST(ui_status_line_says_when_the_log_is_not_written)
{
	static struct myriad app;
	char *err = NULL, *path = unit_tmp_file("status.db"), top[2048], bottom[2048];
	struct console *c;

	setlocale(LC_CTYPE, "C.UTF-8");
	faultvfs_install();
	app_init(&app);
	CHECK(app_add_source(&app, "sim", "gpus=64,seed=2", &err) == 0);
	CHECK(recorder_open(&app, path, &err) == 0);
	c = console_new(&app, NULL, 200, 60);
	app.console = c;
	for (int i = 0; i < 5; i++)
		app_tick(&app);
	rows(c, top, bottom, sizeof top);
	CHECK(strstr(bottom, " recording ") && !strstr(bottom, "NOT RECORDING"));
	CHECK(!strstr(top, "log:"));
	faultvfs_fail(&(struct faultvfs_plan){FV_WRITE | FV_SYNC | FV_TRUNCATE, "status.db", 0, SQLITE_FULL, 0, NULL});
	for (int i = 0; i < 3; i++)
		app_tick(&app);
	rows(c, top, bottom, sizeof top);
	if (!strstr(bottom, "NOT RECORDING: log failing, retrying"))
		fprintf(stderr, "  header: %s\n  status: %s\n", top, bottom);
	CHECK(strstr(bottom, "NOT RECORDING: log failing, retrying") != NULL);
	CHECK(!strstr(bottom, " recording "));
	CHECK(strstr(top, "log: log not written") != NULL);   /* the header says why */
	faultvfs_heal();
	for (int i = 0; i < 30 && strstr(bottom, "NOT RECORDING"); i++) {   /* the next retry writes */
		app_tick(&app);
		rows(c, top, bottom, sizeof top);
	}
	CHECK(strstr(bottom, " recording ") && !strstr(bottom, "NOT RECORDING"));
	CHECK(!strstr(top, "log:"));
	app.console = NULL;
	console_free(c);
	app_free(&app);
	faultvfs_uninstall();
	unit_remove_db(path);
}
