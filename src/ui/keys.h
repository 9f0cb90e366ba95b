/*
 * keys.h - key codes, key names and key tables, as tmux has them.
 *
 * A key is a Unicode code point ('q', '?', 'é') or one of the UK_* codes
 * below. Names: a single character ("q", "?"), "Space", "Enter", "Tab",
 * "BTab" (Shift-Tab), "Escape", "BSpace", "Up", "Down", "Left", "Right",
 * "PPage"/"PageUp", "NPage"/"PageDown", "Home", "End", "IC", "DC"/"Delete",
 * "F1".."F12", "C-a".."C-z".
 *
 * A key table ("global", or a panel's name) maps keys to a command string.
 * The console runs a command itself when its first word names a built-in
 * action ("cursor-down", "panel jobs"); anything else is a Tcl script.
 */
#ifndef MYRIAD_UI_KEYS_H
#define MYRIAD_UI_KEYS_H

#include <stddef.h>

#define UK_BASE 0x200000
enum {
	UK_UP = UK_BASE + 1, UK_DOWN, UK_LEFT, UK_RIGHT, UK_PPAGE, UK_NPAGE, UK_HOME, UK_END,
	UK_ENTER, UK_TAB, UK_BTAB, UK_ESCAPE, UK_BSPACE, UK_IC, UK_DC,
	UK_F1, UK_F12 = UK_F1 + 11,
	UK_MOUSE, UK_RESIZE
};

/* The key named name, or -1. */
int key_from_name(const char *name);
/* The canonical name of key into out. */
void key_to_name(int key, char *out, size_t size);

struct binding {
	int key;
	char *cmd;
};

struct key_table {
	char *name;
	struct binding *b;
	int n, cap;
};

struct keymap {
	struct key_table *t;
	int n;
};

/* The table called name; created if create is set, else NULL if missing. */
struct key_table *keymap_table(struct keymap *km, const char *name, int create);
/* Binds (cmd non-empty) or unbinds (cmd NULL or "") key in table. */
int keymap_bind(struct keymap *km, const char *table, const char *key, const char *cmd, char **err);
const struct binding *keymap_lookup(const struct keymap *km, const char *table, int key);
void keymap_free(struct keymap *km);

/* The built-in bindings: {table, key, command} rows ending in a NULL table. */
struct default_binding {
	const char *table, *key, *cmd;
};
extern const struct default_binding default_bindings[];
void keymap_defaults(struct keymap *km);

#endif
