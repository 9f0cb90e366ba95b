/*
 * help.c - the `?` page, built from the key tables as they are now (so a
 * binding made in Tcl shows up at once): the current panel's keys, the
 * global keys, then the other panels' keys. Sections are laid out into
 * columns by their measured height (wrapped lines included), each whole in
 * its column when it fits, else continued under its title again; the
 * columns that do not fit the screen go on further pages (PgDn), so that
 * nothing overlaps and nothing is cut.
 */
#include <stdio.h>
#include <string.h>
#include "ui_int.h"

enum { HL_HEAD, HL_DESC, HL_KEY };

struct help_line {
	char key[48];
	char text[200];
	int kind;              /* HL_*: a section's title, its description, a key */
};

struct help_lines {
	struct help_line *l;
	int n, cap;
};

static void add(struct help_lines *h, int kind, const char *key, const char *text)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 128;
		h->l = xrealloc(h->l, sizeof *h->l * (size_t)h->cap);
	}
	snprintf(h->l[h->n].key, sizeof h->l[h->n].key, "%s", key);
	snprintf(h->l[h->n].text, sizeof h->l[h->n].text, "%s", text);
	h->l[h->n++].kind = kind;
}

/* An action's help: "%s" takes its argument; "a|b" is a for a backward
 * argument ("-1", "slower") and b otherwise. */
static void describe(const char *cmd, char *out, size_t size)
{
	const char *help = action_help(cmd), *bar, *pct;
	const char *arg = cmd + strcspn(cmd, " ");
	char h[160];

	while (*arg == ' ')
		arg++;
	if (!help) {
		snprintf(out, size, "Tcl: %s", cmd);
		return;
	}
	snprintf(h, sizeof h, "%s", help);
	if ((bar = strchr(h, '|'))) {
		int back = *arg == '-' || !strcmp(arg, "slower");

		if (back)
			h[bar - h] = '\0';
		else
			memmove(h, bar + 1, strlen(bar + 1) + 1);
		snprintf(out, size, "%s", h);
	} else if ((pct = strstr(h, "%s"))) {
		snprintf(out, size, "%.*s%s%s", (int)(pct - h), h, arg, pct + 2);
	} else if (*arg) {
		snprintf(out, size, "%s: %s", h, arg);
	} else {
		snprintf(out, size, "%s", h);
	}
}

/* The keys of a table, one line per command (its keys together). */
static void add_table(struct console *c, struct help_lines *h, const char *table, const char *title,
		      const char *desc)
{
	struct key_table *t = keymap_table(&c->keys, table, 0);
	char key[48], name[24], text[200];

	add(h, HL_HEAD, "", title);
	if (desc)
		add(h, HL_DESC, "", desc);
	if (!t || !t->n)
		add(h, HL_KEY, "", "(no keys of its own)");
	for (int i = 0; t && i < t->n; i++) {
		int dup = 0;

		for (int k = 0; k < i; k++)
			dup |= !strcmp(t->b[k].cmd, t->b[i].cmd);
		if (dup)
			continue;
		key_to_name(t->b[i].key, key, sizeof key);
		for (int k = i + 1; k < t->n; k++) {   /* a name that does not fit whole is left out */
			key_to_name(t->b[k].key, name, sizeof name);
			if (!strcmp(t->b[k].cmd, t->b[i].cmd) && strlen(key) + 1 + strlen(name) < sizeof key)
				snprintf(key + strlen(key), sizeof key - strlen(key), " %s", name);
		}
		describe(t->b[i].cmd, text, sizeof text);
		add(h, HL_KEY, key, text);
	}
}

static void build(struct console *c, struct help_lines *h)
{
	char title[96];

	snprintf(title, sizeof title, "%s panel", c->ops[c->cur]->title);
	add_table(c, h, c->ops[c->cur]->name, title, c->ops[c->cur]->help);
	add_table(c, h, "global", "Global keys", NULL);
	for (int i = 0; i < NPANELS; i++) {
		if (i == c->cur)
			continue;
		snprintf(title, sizeof title, "%s panel", c->ops[i]->title);
		add_table(c, h, c->ops[i]->name, title, NULL);
	}
}

/* ---- the default keys for myriad(1) and `myriad keys` ---- */

/* A roff word: \ - and a leading . or ' escaped. */
static void roff(struct sbuf *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		sbuf_adds(out, "\\&");
	for (; *s; s++)
		sbuf_adds(out, *s == '\\' ? "\\e" : *s == '-' ? "\\-" : (char[2]){*s, 0});
}

void ui_keys_text(struct sbuf *out, int man)
{
	struct console c;
	struct help_lines h = {0};

	memset(&c, 0, sizeof c);
	keymap_defaults(&c.keys);
	for (int i = 0; i < NPANELS; i++)
		c.ops[i] = all_panels[i];
	add_table(&c, &h, "global", "Global keys", NULL);
	for (int i = 0; i < NPANELS; i++) {
		char title[96];

		snprintf(title, sizeof title, "%s panel", all_panels[i]->title);
		add_table(&c, &h, all_panels[i]->name, title, all_panels[i]->help);
	}
	for (int i = 0; i < h.n; i++) {
		const struct help_line *l = &h.l[i];

		if (!man) {
			sbuf_printf(out, l->kind == HL_HEAD ? "%s%s\n" : l->kind == HL_DESC ? "  %s%s\n" : "  %-14s %s\n",
				    l->kind == HL_HEAD ? (i ? "\n" : "") : l->key, l->text);
			continue;
		}
		if (l->kind == HL_HEAD) {
			sbuf_adds(out, ".SS \"");
			roff(out, l->text);
			sbuf_adds(out, "\"\n");
		} else if (l->kind == HL_DESC) {
			roff(out, l->text);
			sbuf_adds(out, ".\n");
		} else {
			sbuf_adds(out, ".TP\n.B \"");
			roff(out, l->key[0] ? l->key : "-");
			sbuf_adds(out, "\"\n");
			roff(out, l->text);
			sbuf_adds(out, "\n");
		}
	}
	free(h.l);
	keymap_free(&c.keys);
}

/* ---- layout: sections into columns by measured height, columns into pages ---- */

#define HELP_COLW 58   /* the narrowest column worth a second one */
#define HELP_MAXW 80   /* the widest column while there is room for more */
#define HELP_GAP 2

/* A row of one line: its bytes off..off+len, and whether the key is drawn. */
struct piece {
	int off, len, key;
};

/* Where a piece goes: page, column, row. head: a section's title repeated
 * at the top of a column it continues into. */
struct help_cell {
	int page, col, y, line, head;
	struct piece p;
};

struct help_layout {
	int rows, cols, colw, keyw;
	int page, col, y;      /* the next free row */
	int tallest;           /* rows of the tallest section */
	struct help_cell *c;
	int n, cap;
};

/* Bytes of s for a row of w columns: all of it, or up to the last space
 * that fits; a word longer than the row is broken (at a character). */
static int wrap_at(const char *s, int w)
{
	const char *end, *sp = NULL;
	uint32_t cp;

	text_fit(s, w, &end);
	if (!*end || *end == ' ')
		return (int)(end - s);
	for (const char *p = s; p < end; p++)
		if (*p == ' ')
			sp = p;
	if (sp)
		return (int)(sp - s);
	return end > s ? (int)(end - s) : utf8_decode(s, strlen(s), &cp);
}

/* Splits text into rows of w columns, appended to p[n..max-1] (the first
 * row draws the key when key is set); returns the new count. */
static int wrap_text(const char *text, int w, int key, struct piece *p, int n, int max)
{
	int off = 0, len = (int)strlen(text);

	while (n < max && (off < len || key)) {
		int k = wrap_at(text + off, w);

		p[n++] = (struct piece){off, k, key};
		key = 0;
		off += k;
		while (text[off] == ' ')
			off++;
	}
	return n;
}

/* The rows line l takes in a column of L (at most max). */
static int pieces(const struct help_layout *L, const struct help_line *l, struct piece *p, int max)
{
	int n = 0;

	switch (l->kind) {
	case HL_HEAD: return wrap_text(l->text, L->colw, 0, p, 0, max);
	case HL_DESC: return wrap_text(l->text, L->colw - 1, 0, p, 0, max);
	default:
		if (text_width(l->key) > L->keyw)   /* a long key has a row of its own */
			p[n++] = (struct piece){0, 0, 1};
		return wrap_text(l->text, L->colw - L->keyw - 2, !n, p, n, max);
	}
}

static void put(struct help_layout *L, int line, int head, struct piece p)
{
	if (L->n == L->cap) {
		L->cap = L->cap ? L->cap * 2 : 256;
		L->c = xrealloc(L->c, sizeof *L->c * (size_t)L->cap);
	}
	L->c[L->n++] = (struct help_cell){L->page, L->col, L->y++, line, head, p};
}

static void next_column(struct help_layout *L)
{
	L->y = 0;
	if (++L->col == L->cols) {
		L->col = 0;
		L->page++;
	}
}

/* Section first..end-1: whole in a column when it fits there, else from
 * the top of the next one. One taller than a column starts where it is
 * (if its title and two lines fit) and goes on in the next column, under
 * its title again. */
static void place_section(struct help_layout *L, const struct help_lines *h, int first, int end)
{
	struct piece p[48];
	int height = 0;

	for (int i = first; i < end; i++)
		height += pieces(L, &h->l[i], p, ARRAY_LEN(p));
	L->tallest = MAX(L->tallest, height);
	if (L->y > 0 && L->y + 1 + height > L->rows && (height <= L->rows || L->y + 1 + 3 > L->rows))
		next_column(L);
	else if (L->y > 0)
		L->y++;   /* a blank row between sections */
	for (int i = first; i < end; i++) {
		int n = pieces(L, &h->l[i], p, ARRAY_LEN(p));

		for (int k = 0; k < n; k++) {
			if (L->y >= L->rows) {
				next_column(L);
				if (i > first)
					put(L, first, 1, (struct piece){0, (int)strlen(h->l[first].text), 0});
			}
			put(L, i, 0, p[k]);
		}
	}
}

/* The help in cols columns of w / cols; returns the pages it takes. */
static int lay_out_in(struct help_layout *L, const struct help_lines *h, int w, int rows, int cols)
{
	int keyw = 4;

	L->n = L->page = L->col = L->y = L->tallest = 0;
	L->cols = cols;
	L->colw = (w - HELP_GAP * (cols - 1)) / cols;
	L->rows = MAX(2, rows);
	for (int i = 0; i < h->n; i++)
		if (h->l[i].kind == HL_KEY)
			keyw = MAX(keyw, text_width(h->l[i].key));
	L->keyw = MIN(keyw, L->colw / 3);
	for (int i = 0, end; i < h->n; i = end) {
		for (end = i + 1; end < h->n && h->l[end].kind != HL_HEAD; end++)
			;
		place_section(L, h, i, end);
	}
	return L->n ? L->c[L->n - 1].page + 1 : 1;
}

/* As few columns as put it all on one page (the widest, the fewest
 * wrapped lines), none much wider than a line of text; else as many as
 * fit, over pages. Returns the pages. */
static int lay_out(struct help_layout *L, const struct help_lines *h, int w, int rows)
{
	int most = MAX(1, (w + HELP_GAP) / (HELP_COLW + HELP_GAP)), pages = 1;

	memset(L, 0, sizeof *L);
	for (int cols = MAX(1, (w + HELP_GAP) / (HELP_MAXW + HELP_GAP)); cols <= most; cols++) {
		int lo, hi = rows;

		if ((pages = lay_out_in(L, h, w, rows, cols)) > 1)
			continue;
		/* the shortest columns that still make one page, balanced, none
		 * shorter than the tallest section (that one stays whole) */
		lo = MAX(2, MIN(rows, L->tallest));
		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (lay_out_in(L, h, w, mid, cols) == 1)
				hi = mid;
			else
				lo = mid + 1;
		}
		return lay_out_in(L, h, w, hi, cols);
	}
	return pages;
}

/* ---- drawing ---- */

static void draw_cell(const struct help_layout *L, const struct view *v, const struct help_line *l,
		      const struct help_cell *cell)
{
	int x = cell->col * (L->colw + HELP_GAP), y = 2 + cell->y, tx = x + L->keyw + 2;
	char piece[256];

	snprintf(piece, sizeof piece, "%.*s", cell->p.len, l->text + cell->p.off);
	if (l->kind == HL_HEAD) {
		x += view_text(v, x, y, L->colw, R_COLHEAD, piece);
		if (cell->head && x + 12 <= cell->col * (L->colw + HELP_GAP) + L->colw)
			view_text(v, x, y, 12, R_DIM, " (continued)");
	} else if (l->kind == HL_DESC) {
		view_text(v, x + 1, y, L->colw - 1, R_DIM, piece);
	} else {
		if (cell->p.key)
			view_text(v, x + 1, y, L->colw - 1, R_KEY, l->key);
		view_text(v, tx, y, L->colw - L->keyw - 2, R_NORMAL, piece);
	}
}

/* The first row: what closes the help, how to page, where bindings change;
 * each part drawn whole or not at all. */
static void draw_top(const struct view *v, int pages)
{
	const char *const parts[] = {
		"Escape or ? closes", pages > 1 ? "PgDn/PgUp (j/k, Space): the next/previous page" : "",
		"`ui bind KEY SCRIPT` on the : line changes a key", "Tcl `help` lists the commands",
	};
	int x = view_text(v, 0, 0, -1, R_TITLE, "Keys") + 2;

	for (unsigned i = 0; i < ARRAY_LEN(parts); i++) {
		int w = text_width(parts[i]);

		if (!w || x + w > v->w)
			continue;
		x += view_text(v, x, 0, w, R_DIM, parts[i]) + 3;
	}
}

void help_draw(struct console *c, const struct view *v)
{
	struct help_lines h = {0};
	struct help_layout L;
	int pages;
	char hint[64];

	build(c, &h);
	pages = lay_out(&L, &h, v->w, v->h - 3);   /* the title row, a blank row, the page row */
	c->help_top = MAX(0, MIN(c->help_top, pages - 1));
	draw_top(v, pages);
	for (int i = 0; i < L.n; i++)
		if (L.c[i].page == c->help_top)
			draw_cell(&L, v, &h.l[L.c[i].line], &L.c[i]);
	if (pages > 1) {
		snprintf(hint, sizeof hint, "page %d of %d: %s", c->help_top + 1, pages,
			 c->help_top + 1 < pages ? "PgDn for more" : "PgUp goes back");
		view_text(v, MAX(0, v->w - text_width(hint)), v->h - 1, -1, R_DIM, hint);
	}
	free(L.c);
	free(h.l);
}

void help_key(struct console *c, int key)
{
	switch (key) {
	case UK_ESCAPE: case 'q': case '?': case UK_ENTER: case 3:
		c->mode = MODE_NORMAL;
		break;
	case UK_DOWN: case 'j': case UK_NPAGE: case ' ': c->help_top++; break;   /* help_top: the page */
	case UK_UP: case 'k': case UK_PPAGE: c->help_top--; break;
	case UK_HOME: case 'g': c->help_top = 0; break;
	case UK_END: case 'G': c->help_top = 1 << 20; break;   /* help_draw stops it at the last */
	default: break;
	}
	c->help_top = MAX(0, c->help_top);
	c->dirty = DIRTY_ALL;
}
