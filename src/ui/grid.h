/*
 * grid.h - the in-memory cell grid the console draws into (as tmux's grid
 * and htop's RichString): one code point and a theme role per cell, flushed
 * to the terminal by term.c alone. Views are clipped rectangles of the grid:
 * a panel draws with coordinates relative to its view and cannot write
 * outside it.
 *
 * Every string drawn goes through text_next(), so it is sanitised and laid
 * out by display width: a wide character takes two cells (the second holds
 * GRID_WIDE_CONT) and one that does not fit is replaced by a space.
 */
#ifndef MYRIAD_UI_GRID_H
#define MYRIAD_UI_GRID_H

#include <stdint.h>
#include "../util.h"

#define GRID_WIDE_CONT 0   /* ch of the right half of a wide character */

struct cell {
	uint32_t ch;        /* code point; GRID_WIDE_CONT after a wide one */
	uint8_t role;       /* enum role: colours and attributes */
	uint8_t bg;         /* 0: the role's background; else the foreground
			       colour of role `bg` (two-colour half blocks) */
	uint16_t pad;
};

struct grid {
	int w, h;
	struct cell *c;
};

struct view {
	struct grid *g;
	int x, y, w, h;     /* in grid coordinates, already clipped */
	int sy;             /* scrolled: relative row sy is the view's first row */
};

void grid_resize(struct grid *g, int w, int h);
void grid_free(struct grid *g);
struct view grid_view(struct grid *g);
/* A rectangle of v (relative coordinates), clipped to v. */
struct view view_sub(const struct view *v, int x, int y, int w, int h);

void view_clear(const struct view *v, int role);
/* One cell; a wide ch needs two cells (else a space is drawn). */
void view_cell(const struct view *v, int x, int y, uint32_t ch, int role, int bg);
/* Draws s (sanitised) from x on row y in at most maxw columns (maxw < 0:
 * to the right edge). Returns the columns used. */
int view_text(const struct view *v, int x, int y, int maxw, int role, const char *s);
int view_textf(const struct view *v, int x, int y, int maxw, int role, const char *fmt, ...) PRINTF_LIKE(6, 7);
/* Draws s in exactly w columns: cut, or padded with spaces (left-aligned;
 * right-aligned when right != 0). Returns w. */
int view_field(const struct view *v, int x, int y, int w, int right, int role, const char *s);
/* n spaces, or n copies of ch. */
void view_fill(const struct view *v, int x, int y, int n, uint32_t ch, int role);
/* Changes the role of n cells (keeps their characters): selection bars. */
void view_recolor(const struct view *v, int x, int y, int n, int role);

/* Row y of the grid as UTF-8 (for tests and dumps); returns out. */
char *grid_row_text(const struct grid *g, int y, char *out, size_t size);
/* The whole grid as UTF-8, a line per row (malloc'd; for tests and dumps). */
char *grid_text(const struct grid *g);

#endif
