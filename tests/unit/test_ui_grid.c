/*
 * test_ui_grid.c - the cell grid (clipping, wide characters, columns that
 * stay aligned), key names and key tables, and the theme parser (errors name
 * file and line; the built-in themes equal themes/default.theme and
 * themes/mono.theme; colours downgrade on small terminals).
 */
#include <locale.h>
#include <stdio.h>
#include "test.h"
#include "ui/grid.h"
#include "ui/keys.h"
#include "ui/text.h"
#include "ui/theme.h"

static char row[1024];

static const char *line(struct grid *g, int y)
{
	return grid_row_text(g, y, row, sizeof row);
}

TEST(ui_grid_text_is_clipped_to_its_view)
{
	struct grid g = {0};
	struct view v, sub;

	setlocale(LC_CTYPE, "C.UTF-8");
	text_utf8 = 1;
	grid_resize(&g, 10, 3);
	v = grid_view(&g);
	sub = view_sub(&v, 2, 1, 4, 1);
	CHECK_INT(view_text(&sub, 0, 0, -1, R_NORMAL, "abcdefgh"), 4);
	view_text(&sub, 0, 1, -1, R_NORMAL, "outside");   /* row 1 of a 1-row view */
	view_text(&sub, -3, 0, -1, R_NORMAL, "neg");
	CHECK_STR(line(&g, 0), "          ");
	CHECK_STR(line(&g, 1), "  abcd    ");
	CHECK_STR(line(&g, 2), "          ");
	grid_free(&g);
}

TEST(ui_grid_wide_characters_take_two_cells)
{
	struct grid g = {0};
	struct view v;

	setlocale(LC_CTYPE, "C.UTF-8");
	grid_resize(&g, 8, 2);
	v = grid_view(&g);
	CHECK_INT(view_text(&v, 0, 0, -1, R_NORMAL, "\xe8\xae\xad\xe7\xbb\x83-x"), 6);
	CHECK_STR(line(&g, 0), "\xe8\xae\xad\xe7\xbb\x83-x  ");
	CHECK(g.c[1].ch == GRID_WIDE_CONT);
	/* a wide char that does not fit in the last column becomes a space */
	CHECK_INT(view_text(&v, 0, 1, 3, R_NORMAL, "ab\xe8\xae\xad"), 3);
	CHECK_STR(line(&g, 1), "ab      ");
	/* writing over half of a wide char blanks the other half */
	view_cell(&v, 1, 0, 'Z', R_NORMAL, 0);
	CHECK_STR(line(&g, 0), " Z\xe7\xbb\x83-x  ");
	grid_free(&g);
}

TEST(ui_grid_fields_keep_columns_aligned)
{
	static const char *const names[] = {"\xe8\xae\xad\xe7\xbb\x83-llama3-405b", "plain-job",
					    "\033[31mPWNED\033[0m", "\xe5\xbe\xae\xe8\xb0\x83-qwen2-72b-long-name"};
	struct grid g = {0};
	struct view v;

	setlocale(LC_CTYPE, "C.UTF-8");
	grid_resize(&g, 30, 4);
	v = grid_view(&g);
	for (int i = 0; i < 4; i++) {
		int x = view_field(&v, 0, i, 20, 0, R_NORMAL, names[i]);

		view_text(&v, x + 1, i, -1, R_NORMAL, "|end");
	}
	for (int i = 0; i < 4; i++) {   /* "|end" starts at display column 21 on every row */
		int col = 0;
		const char *p = line(&g, i);

		for (uint32_t cp; (cp = text_next(&p)) && cp != '|';)
			col += text_cpwidth(cp);
		CHECK_INT(col, 21);
	}
	CHECK(strstr(line(&g, 2), "PWNED") != NULL);
	CHECK(strchr(line(&g, 2), '\033') == NULL);
	grid_free(&g);
}

TEST(ui_grid_scrolled_view_clips_rows_above)
{
	struct grid g = {0};
	struct view v, s;

	grid_resize(&g, 5, 4);
	v = grid_view(&g);
	s = view_sub(&v, 0, 1, 5, 2);
	s.sy = 3;   /* rows 3 and 4 of the content are visible */
	for (int y = 0; y < 6; y++)
		view_textf(&s, 0, y, -1, R_NORMAL, "r%d", y);
	CHECK_STR(line(&g, 0), "     ");
	CHECK_STR(line(&g, 1), "r3   ");
	CHECK_STR(line(&g, 2), "r4   ");
	CHECK_STR(line(&g, 3), "     ");
	grid_free(&g);
}

TEST(ui_keys_names_round_trip)
{
	static const char *const names[] = {"q", "?", "C-c", "Enter", "Tab", "BTab", "Escape", "BSpace", "Space",
					    "Up", "PPage", "NPage", "F1", "F12", "DC", ":", "\xc3\xa9"};
	char buf[32];

	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
		int k = key_from_name(names[i]);

		CHECK(k >= 0);
		key_to_name(k, buf, sizeof buf);
		CHECK_STR(buf, names[i]);
	}
	CHECK_INT(key_from_name("PageUp"), UK_PPAGE);
	CHECK_INT(key_from_name("C-A"), 1);
	CHECK_INT(key_from_name(""), -1);
	CHECK_INT(key_from_name("ab"), -1);
	CHECK_INT(key_from_name("F13"), -1);
	CHECK_INT(key_from_name("C-1"), -1);
}

TEST(ui_keys_tables_bind_rebind_unbind)
{
	struct keymap km = {0};
	char *err = NULL;
	const struct binding *b;

	keymap_defaults(&km);
	CHECK((b = keymap_lookup(&km, "global", 'q')) && !strcmp(b->cmd, "quit"));
	CHECK((b = keymap_lookup(&km, "faults", 's')) && !strcmp(b->cmd, "sort-next"));
	CHECK(keymap_lookup(&km, "jobs", 'q') == NULL);   /* panel tables hold only their own */
	CHECK_INT(keymap_bind(&km, "global", "q", "node drain {gpu0001} -reason {x}", &err), 0);
	CHECK((b = keymap_lookup(&km, "global", 'q')) && !strncmp(b->cmd, "node drain", 10));
	CHECK_INT(keymap_bind(&km, "global", "q", "", &err), 0);
	CHECK(keymap_lookup(&km, "global", 'q') == NULL);
	CHECK_INT(keymap_bind(&km, "global", "nope", "quit", &err), -1);
	CHECK(err && strstr(err, "unknown key"));
	free(err);
	keymap_free(&km);
}

TEST(ui_theme_errors_name_file_and_line)
{
	struct theme t;
	char *err = NULL;

	theme_builtin(&t);
	CHECK_INT(theme_parse(&t, "# ok\nnormal white\nheadr red\n", "x.theme", &err), -1);
	CHECK_STR(err, "x.theme:3: unknown role 'headr'");
	free(err);
	err = NULL;
	CHECK_INT(theme_parse(&t, "\n\ncrit colour300 default\n", "y.theme", &err), -1);
	CHECK_STR(err, "y.theme:3: bad colour 'colour300'");
	free(err);
	err = NULL;
	CHECK_INT(theme_parse(&t, "warn red default blink\n", "z.theme", &err), -1);
	CHECK_STR(err, "z.theme:1: bad attributes 'blink'");
	free(err);
	err = NULL;
	CHECK_INT(theme_parse(&t, "threshold pue-warn x\n", "t.theme", &err), -1);
	CHECK_STR(err, "t.theme:1: bad number 'x'");
	free(err);
	err = NULL;
	CHECK_INT(theme_parse(&t, "warn #ff8700 bright-black bold,underline\nthreshold pue-warn 1.5\n", "ok", &err), 0);
	CHECK_INT(t.s[R_WARN].fg, 208);
	CHECK_INT(t.s[R_WARN].bg, 8);
	CHECK_INT(t.s[R_WARN].attr, TA_BOLD | TA_UNDERLINE);
	CHECK(t.thr[T_PUE_WARN] == 1.5);
}

TEST(ui_theme_files_parse_and_match_the_builtins)
{
	static const char *const names[] = {"default", "light", "high-contrast", "mono"};
	struct theme a, b;
	char *err = NULL, path[64];

	for (unsigned i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "themes/%s.theme", names[i]);
		if (theme_load(&a, path, &err) < 0) {
			fprintf(stderr, "  %s\n", err);
			free(err);
			err = NULL;
			test_failures++;
		}
	}
	theme_builtin(&b);
	CHECK_INT(theme_load(&a, "themes/default.theme", &err), 0);
	CHECK(!memcmp(a.s, b.s, sizeof a.s) && !memcmp(a.thr, b.thr, sizeof a.thr));
	CHECK_INT(theme_load(&a, "themes/mono.theme", &err), 0);
	CHECK_INT(a.colour, 0);
	CHECK_INT(b.colour, 1);
	CHECK_INT(theme_load(&a, "no-such-theme", &err), -1);
	CHECK(err && strstr(err, "not found"));
	free(err);
}

TEST(ui_theme_colours_downgrade)
{
	CHECK_INT(colour_downgrade(196, 256), 196);
	CHECK_INT(colour_downgrade(196, 16), 9);     /* bright red */
	CHECK_INT(colour_downgrade(196, 8), 1);      /* red */
	CHECK_INT(colour_downgrade(16, 8), 0);       /* black */
	CHECK_INT(colour_downgrade(231, 16), 15);    /* white */
	CHECK_INT(colour_downgrade(-1, 8), -1);
}
