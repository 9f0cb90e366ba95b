/*
 * grid.c - the cell grid and clipped drawing into it (see grid.h).
 */
#include <stdio.h>
#include <string.h>
#include "grid.h"
#include "text.h"
#include "../util.h"

void grid_resize(struct grid *g, int w, int h)
{
	w = MAX(w, 1);
	h = MAX(h, 1);
	free(g->c);
	g->w = w;
	g->h = h;
	g->c = xcalloc((size_t)w * (size_t)h, sizeof *g->c);
	for (int i = 0; i < w * h; i++)
		g->c[i].ch = ' ';
}

void grid_free(struct grid *g)
{
	free(g->c);
	memset(g, 0, sizeof *g);
}

struct view grid_view(struct grid *g)
{
	return (struct view){g, 0, 0, g->w, g->h, 0};
}

struct view view_sub(const struct view *v, int x, int y, int w, int h)
{
	struct view s;

	y -= v->sy;
	s = (struct view){v->g, v->x + x, v->y + y, w, h, 0};

	if (x < 0) {
		s.x = v->x;
		s.w += x;
	}
	if (y < 0) {
		s.y = v->y;
		s.h += y;
	}
	s.w = MIN(s.w, v->x + v->w - s.x);
	s.h = MIN(s.h, v->y + v->h - s.y);
	s.w = MAX(s.w, 0);
	s.h = MAX(s.h, 0);
	return s;
}

static struct cell *at(const struct view *v, int x, int y)
{
	y -= v->sy;
	if (x < 0 || y < 0 || x >= v->w || y >= v->h)
		return NULL;
	return &v->g->c[(v->y + y) * v->g->w + v->x + x];
}

/* Writing over half of a wide character blanks its other half. */
static void unsplit(const struct view *v, int x, int y)
{
	struct cell *row = &v->g->c[(v->y + y - v->sy) * v->g->w];
	int gx = v->x + x;

	if (row[gx].ch == GRID_WIDE_CONT && gx > 0)
		row[gx - 1].ch = ' ';
	if (gx + 1 < v->g->w && row[gx + 1].ch == GRID_WIDE_CONT)
		row[gx + 1].ch = ' ';
}

void view_cell(const struct view *v, int x, int y, uint32_t ch, int role, int bg)
{
	struct cell *c = at(v, x, y);
	int w = ch > 0x7f ? text_cpwidth(ch) : 1;

	if (!c)
		return;
	unsplit(v, x, y);
	if (w == 2) {
		struct cell *c2 = at(v, x + 1, y);

		if (!c2) {
			*c = (struct cell){' ', (uint8_t)role, 0, 0};
			return;
		}
		unsplit(v, x + 1, y);
		*c2 = (struct cell){GRID_WIDE_CONT, (uint8_t)role, 0, 0};
	}
	*c = (struct cell){w ? ch : ' ', (uint8_t)role, (uint8_t)bg, 0};
}

int view_text(const struct view *v, int x, int y, int maxw, int role, const char *s)
{
	int col = 0, limit = maxw < 0 ? v->w - x : MIN(maxw, v->w - x);
	uint32_t cp;

	if (y - v->sy < 0 || y - v->sy >= v->h || x < 0)
		return 0;
	while (s && (cp = text_next(&s))) {
		int w = text_cpwidth(cp);

		if (!w)
			continue;
		if (col + w > limit) {
			if (col < limit)   /* a wide char that does not fit */
				view_cell(v, x + col++, y, ' ', role, 0);
			break;
		}
		view_cell(v, x + col, y, cp, role, 0);
		col += w;
	}
	return col;
}

int view_textf(const struct view *v, int x, int y, int maxw, int role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return view_text(v, x, y, maxw, role, buf);
}

int view_field(const struct view *v, int x, int y, int w, int right, int role, const char *s)
{
	int tw;

	if (w <= 0)
		return 0;
	if (right && (tw = text_width(s)) < w) {
		view_fill(v, x, y, w - tw, ' ', role);
		view_text(v, x + w - tw, y, tw, role, s);
		return w;
	}
	tw = view_text(v, x, y, w, role, s);
	view_fill(v, x + tw, y, w - tw, ' ', role);
	return w;
}

void view_fill(const struct view *v, int x, int y, int n, uint32_t ch, int role)
{
	for (int i = 0; i < n; i++)
		view_cell(v, x + i, y, ch, role, 0);
}

void view_clear(const struct view *v, int role)
{
	for (int y = 0; y < v->h; y++)
		for (int x = 0; x < v->w; x++)
			v->g->c[(v->y + y) * v->g->w + v->x + x] = (struct cell){' ', (uint8_t)role, 0, 0};
}

void view_recolor(const struct view *v, int x, int y, int n, int role)
{
	for (int i = 0; i < n; i++) {
		struct cell *c = at(v, x + i, y);

		if (c) {
			c->role = (uint8_t)role;
			c->bg = 0;
		}
	}
}

char *grid_row_text(const struct grid *g, int y, char *out, size_t size)
{
	size_t n = 0;

	if (!size)
		return out;
	for (int x = 0; y >= 0 && y < g->h && x < g->w; x++) {
		char buf[4];
		uint32_t ch = g->c[y * g->w + x].ch;
		int len;

		if (ch == GRID_WIDE_CONT)
			continue;
		len = utf8_encode(ch, buf);
		if (n + (size_t)len >= size)
			break;
		memcpy(out + n, buf, (size_t)len);
		n += (size_t)len;
	}
	out[n] = '\0';
	return out;
}

char *grid_text(const struct grid *g)
{
	struct sbuf b = {0};
	char row[2048];

	for (int y = 0; y < g->h; y++) {
		sbuf_adds(&b, grid_row_text(g, y, row, sizeof row));
		sbuf_addc(&b, '\n');
	}
	if (!b.s)
		sbuf_adds(&b, "");
	return b.s;
}
