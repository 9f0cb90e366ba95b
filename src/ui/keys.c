/*
 * keys.c - key names, key tables and the default bindings (see keys.h).
 * The defaults are scripts/keys.tcl, compiled in at build time; when Tcl is
 * up the console sources that same file, so both ways bind the same keys.
 */
#include <stdio.h>
#include <string.h>
#include "keys.h"
#include "text.h"
#include "../util.h"

static const struct { const char *name; int key; } named[] = {
	{"Up", UK_UP}, {"Down", UK_DOWN}, {"Left", UK_LEFT}, {"Right", UK_RIGHT},
	{"PPage", UK_PPAGE}, {"PageUp", UK_PPAGE}, {"NPage", UK_NPAGE}, {"PageDown", UK_NPAGE},
	{"Home", UK_HOME}, {"End", UK_END}, {"Enter", UK_ENTER}, {"Tab", UK_TAB}, {"BTab", UK_BTAB},
	{"S-Tab", UK_BTAB}, {"Escape", UK_ESCAPE}, {"BSpace", UK_BSPACE}, {"IC", UK_IC},
	{"DC", UK_DC}, {"Delete", UK_DC}, {"Space", ' '},
};

int key_from_name(const char *name)
{
	uint32_t cp;
	int len;

	if (!name || !*name)
		return -1;
	for (unsigned i = 0; i < ARRAY_LEN(named); i++)
		if (!strcmp(name, named[i].name))
			return named[i].key;
	if (name[0] == 'F' && name[1] >= '1' && name[1] <= '9') {
		int n = atoi(name + 1);

		if (n >= 1 && n <= 12 && strlen(name) <= 3)
			return UK_F1 + n - 1;
	}
	if (name[0] == 'C' && name[1] == '-' && name[2] && !name[3]) {
		char c = name[2];

		if (c >= 'a' && c <= 'z')
			return c - 'a' + 1;
		if (c >= 'A' && c <= 'Z')
			return c - 'A' + 1;
		return -1;
	}
	len = utf8_decode(name, strlen(name), &cp);
	if (name[len] || cp < 0x21 || cp == 0x7f || cp == 0xfffd)
		return -1;
	return (int)cp;
}

void key_to_name(int key, char *out, size_t size)
{
	char buf[5];

	for (unsigned i = 0; i < ARRAY_LEN(named); i++)
		if (named[i].key == key) {
			snprintf(out, size, "%s", named[i].name);
			return;
		}
	if (key >= UK_F1 && key <= UK_F12) {
		snprintf(out, size, "F%d", key - UK_F1 + 1);
	} else if (key >= 1 && key <= 26) {
		snprintf(out, size, "C-%c", 'a' + key - 1);
	} else if (key > 0x20 && key < UK_BASE) {
		buf[utf8_encode((uint32_t)key, buf)] = '\0';
		snprintf(out, size, "%s", buf);
	} else {
		snprintf(out, size, "0x%x", (unsigned)key);
	}
}

struct key_table *keymap_table(struct keymap *km, const char *name, int create)
{
	for (int i = 0; i < km->n; i++)
		if (!strcmp(km->t[i].name, name))
			return &km->t[i];
	if (!create)
		return NULL;
	km->t = xrealloc(km->t, sizeof *km->t * (size_t)(km->n + 1));
	memset(&km->t[km->n], 0, sizeof km->t[km->n]);
	km->t[km->n].name = xstrdup(name);
	return &km->t[km->n++];
}

int keymap_bind(struct keymap *km, const char *table, const char *key, const char *cmd, char **err)
{
	int k = key_from_name(key);
	struct key_table *t;

	if (k < 0) {
		*err = xasprintf("unknown key \"%s\" (e.g. q, C-x, Enter, Tab, BTab, Up, PPage, F1)", key);
		return -1;
	}
	t = keymap_table(km, table, 1);
	for (int i = 0; i < t->n; i++) {
		if (t->b[i].key != k)
			continue;
		free(t->b[i].cmd);
		if (cmd && *cmd) {
			t->b[i].cmd = xstrdup(cmd);
		} else {
			memmove(&t->b[i], &t->b[i + 1], sizeof *t->b * (size_t)(t->n - i - 1));
			t->n--;
		}
		return 0;
	}
	if (!cmd || !*cmd)
		return 0;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->b = xrealloc(t->b, sizeof *t->b * (size_t)t->cap);
	}
	t->b[t->n++] = (struct binding){k, xstrdup(cmd)};
	return 0;
}

const struct binding *keymap_lookup(const struct keymap *km, const char *table, int key)
{
	struct key_table *t = keymap_table((struct keymap *)km, table, 0);

	for (int i = 0; t && i < t->n; i++)
		if (t->b[i].key == key)
			return &t->b[i];
	return NULL;
}

void keymap_free(struct keymap *km)
{
	for (int i = 0; i < km->n; i++) {
		for (int k = 0; k < km->t[i].n; k++)
			free(km->t[i].b[k].cmd);
		free(km->t[i].b);
		free(km->t[i].name);
	}
	free(km->t);
	memset(km, 0, sizeof *km);
}

/* The defaults, in the order help lists them: generated from
 * scripts/keys.tcl, their one source (src/ui/keys2c.tcl). */
#include "keys_default.h"

void keymap_defaults(struct keymap *km)
{
	char *err = NULL;

	for (const struct default_binding *d = default_bindings; d->table; d++)
		if (keymap_bind(km, d->table, d->key, d->cmd, &err) < 0)
			fatal("default binding %s: %s", d->key, err);   /* cannot happen: tested */
}
