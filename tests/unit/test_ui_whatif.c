/*
 * test_ui_whatif.c - the what-if key (W) without a terminal: on a node, a
 * filter's nodeset, an SU cell and a job it opens the overlay with both
 * futures; the overlay fits whole at 80x24 and at 200x60 (every part on its
 * own rows, in order, inside the panel's rows); Escape closes it; nothing
 * was drained, sent or audited.
 */
#include <locale.h>
#include <stdio.h>
#include "test.h"
#include "myriad.h"
#include "ui/ui_int.h"
#include "action/action.h"

struct myriad *ui_test_start(const char *spec, int ticks);   /* test_ui_console.c */

static void keys(struct console *c, const char *ks)
{
	console_draw(c, 1);
	for (; *ks; ks++) {
		console_key(c, *ks);
		console_draw(c, 1);
	}
}

/* The first row holding text, or -1 (and the screen on stderr). */
static int row_of(struct console *c, const char *text)
{
	char buf[2048];

	for (int y = 0; y < c->grid.h; y++)
		if (strstr(grid_row_text(&c->grid, y, buf, sizeof buf), text))
			return y;
	char *s = grid_text(&c->grid);

	fprintf(stderr, "  no row holds \"%s\":\n%s", text, s);
	free(s);
	return -1;
}

static void count_action(void *ctx, const struct action_info *i)
{
	(void)i;
	(*(int *)ctx)++;
}

static int actions(struct myriad *app)
{
	int n = 0;

	action_each(app, 1, count_action, &n);
	return n;
}

/* The overlay's parts in their order, each on rows of its own, all between
 * the tab bar and the status line. */
static void check_layout(struct console *c)
{
	static const char *const parts[] = {"What if", "Guard:", "without", "GPUs in service", "utilization %, mean",
		"utilization %, at the end", "IT kW, mean", "PUE, mean", "queue wait p50", "queue wait p95",
		"jobs waiting at the end", "jobs killed", "scale, +30 min", "utilization %", "IT kW ", "jobs pending"};
	int prev = 1;

	for (unsigned i = 0; i < ARRAY_LEN(parts); i++) {
		int y = row_of(c, parts[i]);

		if (i == 13)   /* the sparkline's label: the row after its header */
			y = row_of(c, "scale, +30 min") + 1;
		CHECK(y > prev);
		CHECK(y >= 2 && y <= c->h - 3);
		prev = y;
	}
}

/* The GPUs-in-service row: its change column. */
static int gpus_change(struct console *c)
{
	char buf[2048], a[32], b[32], ch[32];
	int y = row_of(c, "GPUs in service");

	if (y < 0 || sscanf(strstr(grid_row_text(&c->grid, y, buf, sizeof buf), "service") + 7, "%31s %31s %31s", a, b,
			    ch) != 3)
		return 0;
	return atoi(ch);
}

TEST(ui_whatif_drain_of_a_node_fits_80x24_and_sends_nothing)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1", 3);
	static const int sizes[][2] = {{80, 24}, {200, 60}};

	for (unsigned s = 0; s < ARRAY_LEN(sizes); s++) {
		struct console *c = console_new(app, NULL, sizes[s][0], sizes[s][1]);
		int top;

		app->console = c;
		keys(c, "1W");   /* the cursor's node: gpu0001 */
		CHECK_INT(c->mode, MODE_WHATIF);
		top = row_of(c, "What if gpu0001 is drained now?");
		CHECK(s == 0 ? top == 2 : top > 2);   /* the whole panel, or a box in its middle */
		CHECK(row_of(c, "1 node, 8 GPUs") == top);
		CHECK(row_of(c, "Guard: the guards would let it through") >= 0);
		CHECK_INT(gpus_change(c), -8);
		check_layout(c);
		CHECK(row_of(c, "Esc or q closes it") == c->h - 1);
		console_key(c, UK_ESCAPE);
		CHECK_INT(c->mode, MODE_NORMAL);
		CHECK(c->whatif == NULL);
		console_free(c);
		app->console = NULL;
	}
	{
		struct console *c = console_new(app, NULL, 80, 24);

		app->console = c;
		keys(c, "1/gpu[0005-0009]");   /* the filter's nodeset */
		console_key(c, UK_ENTER);
		keys(c, "W");
		CHECK(row_of(c, "What if gpu[0005-0009] are drained now?") == 2);
		CHECK(row_of(c, "5 nodes, 40 GPUs") == 2);
		CHECK_INT(gpus_change(c), -40);
		keys(c, "q");
		console_free(c);
		app->console = NULL;
	}
	for (int i = 0; i < 10; i++)
		CHECK(!node_is_drained(&app->model.nodes[i]));
	CHECK_INT(actions(app), 0);
	app_free(app);
}

TEST(ui_whatif_on_a_nodeset_an_su_and_a_job)
{
	struct myriad *app = ui_test_start("gpus=20480,seed=1,accel=0", 2);   /* 80 SUs: the fleet view at 80x24 */
	struct console *c = console_new(app, NULL, 80, 24);

	app->console = c;
	keys(c, "1jllW");   /* SU1 -> SU31 -> SU33 */
	CHECK(row_of(c, "What if SU33 gpu[1025-1056] are drained now?") == 2);
	CHECK(row_of(c, "32 nodes, 256 GPUs") == 2);
	CHECK_INT(gpus_change(c), -256);
	check_layout(c);
	keys(c, "q5W");      /* the jobs panel's first job */
	CHECK(row_of(c, "is requeued now?") == 2);
	CHECK(row_of(c, " nodes, 2,048 GPUs") == 2);   /* its size, whole on the right */
	CHECK(row_of(c, "Guard: the guards would hold it for your confirmation: blast radius") >= 0);
	CHECK(row_of(c, "GPUs in service") > 0);
	check_layout(c);
	keys(c, "q");
	CHECK_INT(c->mode, MODE_NORMAL);
	CHECK_INT(actions(app), 0);
	for (int32_t i = 32 * 32; i < 33 * 32; i++)
		CHECK(!node_is_drained(&app->model.nodes[i]));
	console_free(c);
	app_free(app);
}

/* Where nothing is selected the key says so and opens nothing. */
TEST(ui_whatif_needs_a_selection)
{
	struct myriad *app = ui_test_start("gpus=256,seed=1", 2);
	struct console *c = console_new(app, NULL, 120, 40);

	app->console = c;
	keys(c, "7W");     /* the log panel selects nothing */
	CHECK_INT(c->mode, MODE_NORMAL);
	CHECK(row_of(c, "nothing selected here for a what-if") >= 0);
	console_free(c);
	app_free(app);
}
