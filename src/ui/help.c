/*
 * help.c - the `?` page, built from the key tables as they are now (so a
 * binding made in Tcl shows up at once): the current panel's keys, the
 * global keys, then the other panels' keys, flowed into columns.
 */
#include <stdio.h>
#include <string.h>
#include "ui_int.h"

struct help_line {
	char key[24];
	char text[200];
	int head;              /* a section title */
};

struct help_lines {
	struct help_line *l;
	int n, cap;
};

static void add(struct help_lines *h, int head, const char *key, const char *text)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 128;
		h->l = xrealloc(h->l, sizeof *h->l * (size_t)h->cap);
	}
	snprintf(h->l[h->n].key, sizeof h->l[h->n].key, "%s", key);
	snprintf(h->l[h->n].text, sizeof h->l[h->n].text, "%s", text);
	h->l[h->n++].head = head;
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

static void add_table(struct console *c, struct help_lines *h, const char *table, const char *title)
{
	struct key_table *t = keymap_table(&c->keys, table, 0);
	char key[24], text[200];

	add(h, 1, "", title);
	if (!t || !t->n)
		add(h, 0, "", "(no keys of its own)");
	for (int i = 0; t && i < t->n; i++) {   /* keys with the same command share a line */
		int dup = 0;
		size_t n;

		for (int k = 0; k < i; k++)
			dup |= !strcmp(t->b[k].cmd, t->b[i].cmd);
		if (dup)
			continue;
		key_to_name(t->b[i].key, key, sizeof key);
		for (int k = i + 1; k < t->n; k++)
			if (!strcmp(t->b[k].cmd, t->b[i].cmd) && (n = strlen(key)) + 2 < sizeof key) {
				key[n] = ' ';
				key_to_name(t->b[k].key, key + n + 1, sizeof key - n - 1);
			}
		describe(t->b[i].cmd, text, sizeof text);
		add(h, 0, key, text);
	}
	add(h, 0, "", "");
}

static void build(struct console *c, struct help_lines *h)
{
	char title[96];

	snprintf(title, sizeof title, "%s panel: %s", c->ops[c->cur]->title, c->ops[c->cur]->help);
	add_table(c, h, c->ops[c->cur]->name, title);
	add_table(c, h, "global", "Global keys");
	for (int i = 0; i < NPANELS; i++) {
		if (i == c->cur)
			continue;
		snprintf(title, sizeof title, "%s panel", c->ops[i]->title);
		add_table(c, h, c->ops[i]->name, title);
	}
}

void help_draw(struct console *c, const struct view *v)
{
	struct help_lines h = {0};
	int rows = v->h - 2, colw = MIN(v->w, 66), cols = MAX(1, v->w / colw), per;

	build(c, &h);
	view_text(v, 0, 0, -1, R_TITLE, "Keys");
	view_text(v, 6, 0, -1, R_DIM, "Escape or ? closes, j/k and PgUp/PgDn scroll. "
		  "Bindings change with `ui bind KEY SCRIPT` on the : line; Tcl `help` lists the commands.");
	rows = MAX(rows, 1);
	per = rows * cols;
	c->help_top = MAX(0, MIN(c->help_top, h.n - per));
	for (int i = c->help_top; i < h.n && i < c->help_top + per; i++) {
		int k = i - c->help_top, x = (k / rows) * colw, y = 2 + k % rows;
		const struct help_line *l = &h.l[i];

		if (l->head) {
			view_text(v, x, y, colw - 2, R_COLHEAD, l->text);
			continue;
		}
		view_field(v, x + 1, y, 14, 0, R_KEY, l->key);
		view_text(v, x + 16, y, colw - 18, R_NORMAL, l->text);
	}
	if (c->help_top + per < h.n)
		view_text(v, v->w - 12, v->h - 1, -1, R_DIM, "more: PgDn");
	free(h.l);
}

void help_key(struct console *c, int key)
{
	int page = MAX(c->h - 6, 1);

	switch (key) {
	case UK_ESCAPE: case 'q': case '?': case UK_ENTER: case 3:
		c->mode = MODE_NORMAL;
		break;
	case UK_DOWN: case 'j': c->help_top++; break;
	case UK_UP: case 'k': c->help_top--; break;
	case UK_NPAGE: case ' ': c->help_top += page; break;
	case UK_PPAGE: c->help_top -= page; break;
	case UK_HOME: case 'g': c->help_top = 0; break;
	default: break;
	}
	c->help_top = MAX(0, c->help_top);
	c->dirty = DIRTY_ALL;
}
