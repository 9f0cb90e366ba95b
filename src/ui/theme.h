/*
 * theme.h - UI roles and the themes that map them to styles.
 *
 * Drawing code asks for a role (R_HEADER, R_CRIT, R_HEAT3, ...), never for a
 * colour. A theme file (themes/NAME.theme) has one line per role:
 *
 *     # role        foreground   background   attributes
 *     header        colour252    colour236    bold
 *     crit          bright-red   default      bold,reverse
 *     threshold     pue-warn     1.20
 *
 * Colours: default, black, red, green, yellow, blue, magenta, cyan, white,
 * bright-<name>, colourN / colorN / N (0-255), #rrggbb (nearest of 256).
 * Attributes: none, bold, dim, reverse, underline, italic, joined by ','.
 * Roles a file leaves out keep the built-in default (`base none` starts from
 * no colours instead). `threshold NAME VALUE` sets the limits panels colour
 * against. An error names file and line.
 */
#ifndef MYRIAD_UI_THEME_H
#define MYRIAD_UI_THEME_H

#include <stdint.h>

enum role {
	R_NORMAL, R_DIM, R_BOLD, R_HEADER, R_HEADER_KEY, R_HEADER_WARN, R_HEADER_ERR, R_HEADER_INFO, R_LIVE, R_REPLAY, R_TAB, R_TAB_ACTIVE,
	R_TITLE, R_LABEL, R_COLHEAD, R_SELECTED, R_CURSOR, R_STATUS, R_STATUS_KEY, R_MESSAGE,
	R_ERROR, R_PROMPT, R_KEY, R_GOOD, R_WARN, R_ERR, R_CRIT, R_INFO, R_ACKED, R_SPARK,
	R_BAR, R_BAR_EMPTY, R_BORDER, R_DIALOG, R_DIALOG_TITLE, R_MATCH,
	R_HEAT0, R_HEAT1, R_HEAT2, R_HEAT3, R_HEAT4, R_HEAT5, R_HEAT6, R_HEAT7,
	R_HOT0, R_HOT1, R_HOT2, R_HOT3, R_HOT4, R_HOT5, R_HOT6, R_HOT7,   /* temperature: a hot ramp */
	R_GPU_FAULT, R_GPU_DRAIN, R_GPU_STALE, R_GPU_DOWN, R_GPU_NONE, R_GPU_DIMMED,
	R_COUNT
};
#define HEAT_LEVELS 8

#define TA_BOLD 0x1
#define TA_DIM 0x2
#define TA_REVERSE 0x4
#define TA_UNDERLINE 0x8
#define TA_ITALIC 0x10

#define COLOUR_DEFAULT (-1)

struct style {
	int16_t fg, bg;     /* 0-255 or COLOUR_DEFAULT */
	uint16_t attr;      /* TA_* */
};

enum threshold {
	T_PUE_WARN, T_PUE_CRIT, T_SUPPLY_MAX, T_DELTA_MAX, T_TEMP_WARN, T_TEMP_CRIT,
	T_STALE_SECS, T_COUNT
};

struct theme {
	char name[64];
	struct style s[R_COUNT];
	double thr[T_COUNT];
	int colour;          /* 1 if any role has a colour */
};

const char *role_name(int r);
const char *threshold_name(int t);
/* The built-in default (dark) theme. */
void theme_builtin(struct theme *t);
/* Parses theme text on top of t; fname names it in errors. 0, or -1 with *err
 * "FILE:LINE: what is wrong" (malloc'd). */
int theme_parse(struct theme *t, const char *text, const char *fname, char **err);
/* Loads a theme by name (searched in $MYRIAD_THEMES, next to the binary,
 * ./themes) or by path (a name with '/' or ending in ".theme"). "default"
 * and "mono" exist even without files. 0, or -1 with *err (malloc'd). */
int theme_load(struct theme *t, const char *name, char **err);
/* Removes every colour, keeping attributes (NO_COLOR, monochrome). */
void theme_strip_colour(struct theme *t);
/* Nearest of the first `colours` colours (8, 16 or 256) for an xterm-256
 * colour index; used on terminals with fewer colours. */
int colour_downgrade(int c, int colours);

#endif
