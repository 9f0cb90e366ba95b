/*
 * term.c - the one module that speaks ncurses: start and restore the
 * terminal, colour pairs for theme roles, flushing the cell grid (only the
 * cells that changed since the last flush, then one doupdate), and reading
 * keys and mouse clicks. Everything else draws into the grid.
 */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "ui_int.h"

static SCREEN *screen;
static struct cell *shadow;     /* what the terminal shows */
static int shadow_w, shadow_h;
static int pairs[R_COUNT][R_COUNT + 1];   /* (role, bg role) -> pair, 0 = not yet */
static int cursor_on = -1;

void term_forget(void)
{
	for (int i = 0; shadow && i < shadow_w * shadow_h; i++)
		shadow[i].ch = 0xffffffffu;
	if (screen)
		clearok(curscr, TRUE);
}

void term_theme(struct console *c)
{
	(void)c;
	memset(pairs, 0, sizeof pairs);
	if (screen && has_colors())
		reset_color_pairs();
	term_forget();
}

int term_init(struct console *c, char **err)
{
	const char *term = getenv("TERM");

	if (!isatty(0) || !isatty(1)) {
		*err = xstrdup("the console needs a terminal on stdin and stdout");
		return -1;
	}
	if (!(screen = newterm(NULL, stdout, stdin))) {
		*err = xasprintf("cannot use the terminal (TERM=%s)", term ? term : "unset");
		return -1;
	}
	set_escdelay(25);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	c->colours = 0;
	if (has_colors()) {
		start_color();
		use_default_colors();
		c->colours = COLORS;
	}
	if (!c->colours && !c->no_colour) {   /* a monochrome terminal */
		char *e = NULL;

		c->no_colour = 1;
		if (!strcmp(c->theme.name, "default") && theme_load(&c->theme, "mono", &e) < 0)
			free(e);
		theme_strip_colour(&c->theme);
	}
	memset(pairs, 0, sizeof pairs);
	cursor_on = -1;
	term_forget();
	return 0;
}

void term_end(void)
{
	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	free(shadow);
	shadow = NULL;
	shadow_w = shadow_h = 0;
}

/* Ctrl-Z: gives the terminal back and stops the process as the shell's
 * ^Z would (the console reads keys raw, so the terminal sends no SIGTSTP);
 * on fg (SIGCONT) it takes the terminal again and redraws it whole. */
int term_suspend(void)
{
	struct sigaction dfl = {0}, old;

	if (!screen)
		return -1;
	def_prog_mode();
	endwin();
	fflush(stdout);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, &dfl, &old);
	raise(SIGTSTP);   /* stopped here until fg */
	sigaction(SIGTSTP, &old, NULL);
	reset_prog_mode();
	clearok(curscr, TRUE);
	term_forget();
	return 0;
}

void term_size(int *w, int *h)
{
	struct winsize ws;

	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*w = ws.ws_col;
		*h = ws.ws_row;
	} else {
		getmaxyx(stdscr, *h, *w);
	}
}

void term_resize(int w, int h)
{
	if (screen)
		resizeterm(h, w);
}

static int colour(const struct console *c, int col)
{
	return col < 0 ? -1 : colour_downgrade(col, c->colours);
}

/* The colour pair and attributes of a cell. */
static int cell_pair(const struct console *c, const struct cell *cl, attr_t *attr)
{
	const struct style *s = &c->theme.s[cl->role < R_COUNT ? cl->role : 0];
	int *p = &pairs[cl->role < R_COUNT ? cl->role : 0][cl->bg <= R_COUNT ? cl->bg : 0];

	*attr = (s->attr & TA_BOLD ? A_BOLD : 0) | (s->attr & TA_DIM ? A_DIM : 0) |
		(s->attr & TA_REVERSE ? A_REVERSE : 0) | (s->attr & TA_UNDERLINE ? A_UNDERLINE : 0) |
		(s->attr & TA_ITALIC ? A_ITALIC : 0);
	if (!c->colours || c->no_colour)
		return 0;
	if (!*p) {
		int fg = colour(c, s->fg);
		int bg = cl->bg ? colour(c, c->theme.s[cl->bg].fg) : colour(c, s->bg);

		*p = fg < 0 && bg < 0 ? -1 : alloc_pair(fg, bg);
		if (*p == 0)   /* alloc_pair never hands out pair 0; keep "not yet" distinct */
			*p = -1;
	}
	return *p > 0 ? *p : 0;
}

/* ASCII stand-ins when the terminal is not UTF-8. */
static wchar_t ascii_glyph(uint32_t ch)
{
	if (ch < 0x80)
		return (wchar_t)ch;
	if (ch == 0x2500 || ch == 0x2501 || ch == 0x2574 || ch == 0x2576)
		return '-';
	if (ch == 0x2502 || ch == 0x2503)
		return '|';
	if (ch >= 0x2580 && ch <= 0x259f)
		return '#';
	return '?';
}

static void put_cell(const struct console *c, int x, int y, const struct cell *cl)
{
	wchar_t wch[2] = {text_utf8 ? (wchar_t)cl->ch : ascii_glyph(cl->ch), 0};
	attr_t attr;
	int pair = cell_pair(c, cl, &attr);
	cchar_t cc;

	setcchar(&cc, wch, attr, 0, &pair);
	mvwadd_wch(stdscr, y, x, &cc);
}

void term_flush(struct console *c, int cx, int cy)
{
	const struct grid *g = &c->grid;

	if (!screen)
		return;
	if (shadow_w != g->w || shadow_h != g->h) {
		free(shadow);
		shadow = xmalloc(sizeof *shadow * (size_t)(g->w * g->h));
		shadow_w = g->w;
		shadow_h = g->h;
		term_forget();
	}
	for (int y = 0; y < g->h; y++)
		for (int x = 0; x < g->w; x++) {
			int i = y * g->w + x;
			const struct cell *cl = &g->c[i];

			if (!memcmp(cl, &shadow[i], sizeof *cl))
				continue;
			shadow[i] = *cl;
			if (cl->ch == GRID_WIDE_CONT)
				continue;
			if (cl->ch > 0x7f && text_utf8 && text_cpwidth(cl->ch) == 2 && x + 1 < g->w)
				shadow[i + 1].ch = 0xffffffffu;   /* its right half follows */
			put_cell(c, x, y, cl);
		}
	if ((cx >= 0) != cursor_on) {
		cursor_on = cx >= 0;
		curs_set(cursor_on ? 1 : 0);
	}
	if (cx >= 0)
		wmove(stdscr, cy, cx);
	wnoutrefresh(stdscr);
	doupdate();
}

static int special_key(wint_t k)
{
	static const struct { int curses, key; } map[] = {
		{KEY_UP, UK_UP}, {KEY_DOWN, UK_DOWN}, {KEY_LEFT, UK_LEFT}, {KEY_RIGHT, UK_RIGHT},
		{KEY_PPAGE, UK_PPAGE}, {KEY_NPAGE, UK_NPAGE}, {KEY_HOME, UK_HOME}, {KEY_END, UK_END},
		{KEY_ENTER, UK_ENTER}, {KEY_BTAB, UK_BTAB}, {KEY_BACKSPACE, UK_BSPACE}, {KEY_DC, UK_DC},
		{KEY_IC, UK_IC},
	};

	for (unsigned i = 0; i < ARRAY_LEN(map); i++)
		if (map[i].curses == (int)k)
			return map[i].key;
	if ((int)k >= KEY_F(1) && (int)k <= KEY_F(12))
		return UK_F1 + (int)k - KEY_F(1);
	return -1;
}

static int plain_key(wint_t k)
{
	switch (k) {
	case '\r': case '\n': return UK_ENTER;
	case '\t': return UK_TAB;
	case 27: return UK_ESCAPE;
	case 127: case 8: return UK_BSPACE;
	default: return (int)k;
	}
}

void term_read(struct console *c)
{
	wint_t k;
	int r;

	while (screen && !c->quit && (r = wget_wch(stdscr, &k)) != ERR) {
		if (r == KEY_CODE_YES && k == KEY_MOUSE) {
			MEVENT me;

			if (getmouse(&me) != OK)
				continue;
			if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
				console_mouse(c, me.x, me.y);
			else if (me.bstate & BUTTON4_PRESSED)   /* the wheel */
				console_wheel(c, -1);
			else if (me.bstate & BUTTON5_PRESSED)
				console_wheel(c, 1);
			continue;
		}
		if (r == KEY_CODE_YES && k == KEY_RESIZE)
			continue;   /* resizes come through SIGWINCH */
		int key = r == KEY_CODE_YES ? special_key(k) : plain_key(k);

		if (key >= 0)
			console_key(c, key);
	}
}
