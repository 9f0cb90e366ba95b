/*
 * test_ui_numbers.c - numbers in fixed columns (panelkit.c's fmt_fit): a
 * value that does not fit is shortened with a unit (k M G T P E) or marked
 * with the bound it passes, never cut; and the panels that print counters
 * (the node panel's IB ports, the topology drill-down) show huge counters and
 * increases whole, with their fields apart.
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "test.h"
#include "myriad.h"
#include "ui/ui_int.h"

/* Does tok, as fmt_fit writes a number ("123", "11.9T", "-1k", ">9k",
 * "<-9"), stand for want: within half of its last digit, or past its mark?
 * unit (may be "") must end it. */
static int stands_for(const char *tok, const char *unit, double want)
{
	static const char pre[] = "kMGTPE";
	int mark = tok[0] == '>' ? 1 : tok[0] == '<' ? -1 : 0;
	const char *s = tok + (mark != 0), *dot, *p;
	char *end;
	double v = strtod(s, &end), scale = 1, ulp;

	if (mark && !*s && !*unit)   /* the mark alone: past what one column holds */
		return mark > 0 ? want > 9 : want < 0;
	if (end == s)
		return 0;
	dot = memchr(s, '.', (size_t)(end - s));
	ulp = pow(10, dot ? -(double)(end - dot - 1) : 0);
	if (*end && (p = strchr(pre, *end)) != NULL) {
		scale = pow(1000, (double)(p - pre + 1));
		end++;
	}
	if (strcmp(end, unit))
		return 0;
	v *= scale;
	if (mark)
		return mark > 0 ? want > v : want < v;
	return fabs(v - want) <= ulp * scale / 2 * (1 + 1e-9);
}

static const char *fit(double v, int cols)
{
	static char buf[64];

	CHECK_INT(fmt_fit(v, 0, "", cols, buf, sizeof buf), (int)strlen(buf));
	return buf;
}

TEST(ui_fit_shortens_with_a_unit_never_cuts)
{
	char buf[64];

	CHECK_STR(fit(0, 1), "0");
	CHECK_STR(fit(999, 3), "999");
	CHECK_STR(fit(1000, 4), "1000");
	CHECK_STR(fit(1000, 3), "1k");
	CHECK_STR(fit(9999, 4), "9999");
	CHECK_STR(fit(9999, 3), "10k");
	CHECK_STR(fit(999999, 4), "1.0M");          /* not "1000k" */
	CHECK_STR(fit(1e15, 16), "1000000000000000");
	CHECK_STR(fit(1e15, 4), "1.0P");
	CHECK_STR(fit(1e15, 2), "1P");
	CHECK_STR(fit(11949999999999.0, 5), "11.9T");
	CHECK_STR(fit(-1234, 5), "-1234");
	CHECK_STR(fit(-1234, 4), "-1k");
	CHECK_STR(fit(-123456, 5), "-123k");
	CHECK_STR(fit(500, 2), ">9");                 /* not "0k" */
	CHECK_STR(fit(123456, 3), ">9k");             /* no form fits: the bound it passes */
	CHECK_STR(fit(-5, 1), "<");
	CHECK_STR(fit(-123456, 3), "<-9");
	CHECK_STR(fit(7, 0), "");
	CHECK_STR(fit(1e21, 5), "1000E");             /* past the last prefix */
	CHECK_STR(fit(NAN, 3), "?");
	CHECK_INT(fmt_fit(687.4, 0, "W", 7, buf, sizeof buf), 4);
	CHECK_STR(buf, "687W");
	CHECK_INT(fmt_fit(5.6e15, 0, "B", 10, buf, sizeof buf), 5);
	CHECK_STR(buf, "5.6PB");
	fmt_fit(12.34, 1, "", 4, buf, sizeof buf);
	CHECK_STR(buf, "12.3");
	fmt_fit(12.34, 1, "", 3, buf, sizeof buf);
	CHECK_STR(buf, "12");
	/* counters: exact to the last digit when they fit, beyond a double's 53 bits */
	CHECK_INT(fmt_fit_u64(UINT64_MAX, "", 20, buf, sizeof buf), 20);
	CHECK_STR(buf, "18446744073709551615");
	fmt_fit_u64(UINT64_MAX, "", 6, buf, sizeof buf);
	CHECK_STR(buf, "18.4E");
	fmt_fit_u64(UINT64_MAX, "", 2, buf, sizeof buf);
	CHECK_STR(buf, ">9");
}

/* Every value in every width: never wider than asked, and what it says is
 * the value (to its last digit) or a true bound. */
TEST(ui_fit_always_fits_and_tells_the_truth)
{
	static const double vals[] = {0, 1, 9, 10, 99, 100, 999, 999.5, 1000, 1001, 9999, 10000, 65535, 99999,
				      123456, 999999, 1e6, 4294967295.0, 1e12, 11.9e12, 1e15, 9.99e17, 1e18,
				      1.8e19, -1, -9, -10, -999, -1000, -123456, -1e15, 0.5, 12.34, -0.25};
	char buf[64];

	for (unsigned i = 0; i < ARRAY_LEN(vals); i++)
		for (int cols = 1; cols <= 22; cols++)
			for (int dec = 0; dec <= 1; dec++) {
				int w = fmt_fit(vals[i], dec, "", cols, buf, sizeof buf);

				if (w != (int)strlen(buf) || w > cols || !w || !stands_for(buf, "", vals[i])) {
					fprintf(stderr, "  fmt_fit(%g, %d decimals, %d cols) = \"%s\"\n", vals[i], dec,
						cols, buf);
					test_failures++;
				}
			}
}

/* ---- the panels, with huge counters ---- */

static struct myriad *start(void)
{
	static struct myriad app;
	char *err = NULL;

	setlocale(LC_CTYPE, "C.UTF-8");
	text_utf8 = 1;
	app_init(&app);
	if (app_add_source(&app, "sim", "gpus=256,seed=1,accel=0", &err) < 0) {
		fprintf(stderr, "  sim: %s\n", err);
		free(err);
		test_failures++;
	}
	for (int i = 0; i < 3; i++)
		app_tick(&app);
	return &app;
}

/* What gpu0001's rail 0 reads twice: its first reading, and the increase
 * to the second (0, 999, 1000, 9999, 1e15, 2^64 - 1, 11.9 T, 14.5 G). */
static const uint64_t first_reading[IBC_COUNT] = {
	[IBC_SYMBOL_ERROR] = 0, [IBC_LINK_ERROR_RECOVERY] = 1, [IBC_LINK_DOWNED] = 1,
	[IBC_PORT_RCV_ERRORS] = 0, [IBC_LOCAL_LINK_INTEGRITY_ERRORS] = 18446744073709551000u,
	[IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = 5, [IBC_PORT_XMIT_DISCARDS] = 1000,
	[IBC_PORT_XMIT_WAIT] = 11900000000000u, [IBC_PORT_XMIT_DATA] = 1417322096829741u,
	[IBC_PORT_RCV_DATA] = 1000000000000000u,
};
static const uint64_t increase[IBC_COUNT] = {
	[IBC_SYMBOL_ERROR] = 999, [IBC_LINK_ERROR_RECOVERY] = 999, [IBC_LINK_DOWNED] = 9999,
	[IBC_PORT_RCV_ERRORS] = 1000000000000000u, [IBC_LOCAL_LINK_INTEGRITY_ERRORS] = 615,
	[IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = 123456, [IBC_PORT_XMIT_DISCARDS] = 0,
	[IBC_PORT_XMIT_WAIT] = 14460000123u, [IBC_PORT_XMIT_DATA] = 410487999,
	[IBC_PORT_RCV_DATA] = 40227847212u,
};

static void huge_counters(struct myriad *app)
{
	struct event ev;

	for (int k = 0; k < 2; k++) {
		memset(&ev, 0, sizeof ev);
		ev.type = EV_IB;
		ev.time = app->now + k;
		ev.source = "test";
		ev.u.ib.node = 0;
		ev.u.ib.port = 0;
		ev.u.ib.state = IBP_ACTIVE;
		ev.u.ib.have = (1u << IBC_COUNT) - 1;
		for (int c = 0; c < IBC_COUNT; c++)
			ev.u.ib.c[c] = first_reading[c] + (k ? increase[c] : 0);
		app_emit(app, &ev);
	}
	bus_flush(&app->bus);
}

static double now_reads(int c)
{
	return (double)(first_reading[c] + increase[c]);
}

/* The screen row that starts with prefix, below the row holding anchor. */
static const char *row_after(struct console *c, const char *anchor, const char *prefix, char *buf, size_t size)
{
	int seen = 0;

	for (int y = 0; y < c->grid.h; y++) {
		grid_row_text(&c->grid, y, buf, size);
		if (seen && !strncmp(buf, prefix, strlen(prefix)))
			return buf;
		seen |= strstr(buf, anchor) != NULL;
	}
	return NULL;
}

static void dump(struct console *c)
{
	char row[2048];

	for (int y = 0; y < c->grid.h; y++)
		fprintf(stderr, "  |%s\n", grid_row_text(&c->grid, y, row, sizeof row));
}

/* The node panel's ports: on rail 0's row, after rail, leaf and state, the
 * 8 counters as "value [+increase]", then the bytes received; every token
 * what the port read (shortened, not cut) and apart from the next. */
static void check_port_row(struct console *c)
{
	static const int order[] = {IBC_SYMBOL_ERROR, IBC_LINK_ERROR_RECOVERY, IBC_LINK_DOWNED, IBC_PORT_RCV_ERRORS,
				    IBC_LOCAL_LINK_INTEGRITY_ERRORS, IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
				    IBC_PORT_XMIT_DISCARDS, IBC_PORT_XMIT_WAIT};
	char row[2048], *tok, *save = NULL;
	const char *r = row_after(c, "xmit wait", "r0 ", row, sizeof row);
	int bad = 0;

	CHECK(r != NULL);
	if (!r)
		return;
	strtok_r(row, " ", &save);   /* r0, the leaf, the state */
	strtok_r(NULL, " ", &save);
	strtok_r(NULL, " ", &save);
	for (unsigned i = 0; i < ARRAY_LEN(order) && !bad; i++) {
		int k = order[i];

		tok = strtok_r(NULL, " ", &save);
		bad |= !tok || !stands_for(tok, "", now_reads(k));
		if (!bad && increase[k]) {
			tok = strtok_r(NULL, " ", &save);
			bad |= !tok || tok[0] != '+' || !stands_for(tok + 1, "", (double)increase[k]);
		}
		if (bad)
			fprintf(stderr, "  counter %s reads \"%s\", not %.0f +%.0f\n", ib_counter_name(k),
				tok ? tok : "(nothing)", now_reads(k), (double)increase[k]);
	}
	tok = bad ? NULL : strtok_r(NULL, " ", &save);   /* received: 4-byte words */
	bad |= !bad && (!tok || !stands_for(tok, "B", now_reads(IBC_PORT_RCV_DATA) * 4));
	if (bad) {
		dump(c);
		test_failures++;
	}
}

TEST(ui_node_panel_shows_huge_counters_whole)
{
	struct myriad *app = start();
	static const int sizes[][2] = {{200, 60}, {140, 40}};

	huge_counters(app);
	for (unsigned i = 0; i < ARRAY_LEN(sizes); i++) {
		struct console *c = console_new(app, NULL, sizes[i][0], sizes[i][1]);

		app->console = c;
		console_show_node(c, 0);
		console_draw(c, 1);
		check_port_row(c);
		console_free(c);
		app->console = NULL;
	}
	app_free(app);
}

/* The drill-down's port detail: every counter as "name value +increase",
 * exact, apart from the next by at least two spaces, none lost off the
 * screen's edge or bottom. */
static void check_port_detail(struct console *c)
{
	char all[16384] = "", row[2048];
	int bad = 0;

	for (int y = 0; y < c->grid.h; y++) {   /* rows after the port's heading */
		grid_row_text(&c->grid, y, row, sizeof row);
		if (all[0] || strstr(row, "gpu0001 rail 0 (mlx5_0)"))
			snprintf(all + strlen(all), sizeof all - strlen(all), "%s\n", row);
	}
	for (int k = 0; k < IBC_COUNT && !bad; k++) {
		char want[96], *at;

		snprintf(want, sizeof want, "%s %llu", ib_counter_name(k), (unsigned long long)(first_reading[k] + increase[k]));
		if (increase[k])
			snprintf(want + strlen(want), sizeof want - strlen(want), " +%llu", (unsigned long long)increase[k]);
		at = strstr(all, want);
		bad = !at || (at[strlen(want)] != '\n' && strncmp(at + strlen(want), "  ", 2));
		if (bad)
			fprintf(stderr, "  the port detail lacks \"%s\" followed by two spaces or the end of a row\n", want);
	}
	if (bad) {
		dump(c);
		test_failures++;
	}
}

TEST(ui_topology_drill_down_keeps_counters_whole_and_apart)
{
	struct myriad *app = start();
	static const int sizes[][2] = {{200, 60}, {80, 24}};

	huge_counters(app);
	for (unsigned i = 0; i < ARRAY_LEN(sizes); i++) {
		struct console *c = console_new(app, NULL, sizes[i][0], sizes[i][1]);
		char row[2048];
		const char *r;

		app->console = c;
		console_draw(c, 1);
		console_key(c, '2');
		console_draw(c, 1);
		console_key(c, UK_ENTER);   /* SU01: gpu0001 first, rail 0 */
		console_draw(c, 1);
		check_port_detail(c);
		/* the grid's cell of gpu0001 rail 0: symbol + rcv errors since the last reading */
		r = row_after(c, " node ", " gpu0001 ", row, sizeof row);
		CHECK(r && strstr(r, " +"));
		if (r && (r = strstr(r, " +")) != NULL) {
			char tok[16];

			sscanf(r + 2, "%15s", tok);
			CHECK(stands_for(tok, "", (double)(increase[IBC_SYMBOL_ERROR] + increase[IBC_PORT_RCV_ERRORS])));
		}
		console_free(c);
		app->console = NULL;
	}
	app_free(app);
}
