/*
 * theme.c - role names, the built-in themes, the theme file parser and
 * colour downgrading for 8/16-colour terminals (see theme.h). The built-in
 * texts are the same as themes/default.theme and themes/mono.theme (a unit
 * test keeps them equal), so the console looks right even when installed
 * without its theme files.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "theme.h"
#include "../util.h"

static const char *const role_names[R_COUNT] = {
	"normal", "dim", "bold", "header", "header-key", "header-warn", "header-err", "header-info", "live", "replay", "tab", "tab-active",
	"title", "label", "colhead", "selected", "cursor", "status", "status-key", "message",
	"error", "prompt", "key", "ok", "warn", "err", "crit", "info", "acked", "spark",
	"bar", "bar-empty", "border", "dialog", "dialog-title", "match",
	"heat0", "heat1", "heat2", "heat3", "heat4", "heat5", "heat6", "heat7",
	"hot0", "hot1", "hot2", "hot3", "hot4", "hot5", "hot6", "hot7",
	"gpu-fault", "gpu-drain", "gpu-stale", "gpu-down", "gpu-none", "gpu-dimmed",
};

static const char *const thr_names[T_COUNT] = {
	"pue-warn", "pue-crit", "supply-max", "delta-max", "temp-warn", "temp-crit", "stale-secs",
};
static const double thr_default[T_COUNT] = {1.20, 1.30, 30.0, 20.0, 80.0, 87.0, 5.0};

/* Copies of themes/default.theme and themes/mono.theme (tests/unit/test_ui.c
 * checks they stay equal). */
static const char builtin_default[] =
	"# default.theme - myriad's dark theme (the default): calm greys, teal heat.\n"
	"# role           foreground   background   attributes\n"
	"normal           colour252    default\n"
	"dim              colour244    default\n"
	"bold             colour255    default      bold\n"
	"header           colour252    colour236\n"
	"header-key       colour117    colour236    bold\n"
	"header-warn      colour214    colour236    bold\n"
	"header-err       colour203    colour236    bold\n"
	"header-info      colour110    colour236\n"
	"live             colour16     colour71     bold\n"
	"replay           colour16     colour214    bold\n"
	"tab              colour246    colour235\n"
	"tab-active       colour16     colour74     bold\n"
	"title            colour117    default      bold\n"
	"label            colour245    default\n"
	"colhead          colour250    colour235    bold\n"
	"selected         colour255    colour24\n"
	"cursor           colour226    default      bold\n"
	"status           colour248    colour236\n"
	"status-key       colour229    colour236    bold\n"
	"message          colour252    default\n"
	"error            colour203    default      bold\n"
	"prompt           colour117    default      bold\n"
	"key              colour229    default      bold\n"
	"ok               colour71     default\n"
	"warn             colour214    default\n"
	"err              colour203    default      bold\n"
	"crit             colour231    colour160    bold\n"
	"info             colour110    default\n"
	"acked            colour242    default\n"
	"spark            colour110    default\n"
	"bar              colour67     default\n"
	"bar-empty        colour237    default\n"
	"border           colour240    default\n"
	"dialog           colour252    colour237\n"
	"dialog-title     colour231    colour237    bold\n"
	"match            colour16     colour186\n"
	"# GPU cells: heat scale from idle to full, then the states that override it\n"
	"heat0            colour237\n"
	"heat1            colour23\n"
	"heat2            colour24\n"
	"heat3            colour30\n"
	"heat4            colour31\n"
	"heat5            colour37\n"
	"heat6            colour43\n"
	"heat7            colour79\n"
	"# temperature cells: a hot ramp, cool to hot\n"
	"hot0             colour237\n"
	"hot1             colour58\n"
	"hot2             colour94\n"
	"hot3             colour136\n"
	"hot4             colour172\n"
	"hot5             colour208\n"
	"hot6             colour202\n"
	"hot7             colour196\n"
	"gpu-fault        colour196\n"
	"gpu-drain        colour135\n"
	"gpu-stale        colour252\n"
	"gpu-down         colour124\n"
	"gpu-none         colour239\n"
	"gpu-dimmed       colour235\n"
	"# limits the panels colour against\n"
	"threshold        pue-warn     1.20\n"
	"threshold        pue-crit     1.30\n"
	"threshold        supply-max   30\n"
	"threshold        delta-max    20\n"
	"threshold        temp-warn    80\n"
	"threshold        temp-crit    87\n"
	"threshold        stale-secs   5\n";
static const char builtin_mono[] =
	"# mono.theme - no colours, attributes only (used for NO_COLOR and monochrome\n"
	"# terminals). GPU cells then show glyphs: X fault, D drained, ? stale, # down,\n"
	"# and a block of 1-8 eighths for the metric.\n"
	"base             none\n"
	"# role           foreground   background   attributes\n"
	"normal           default\n"
	"dim              default      default      dim\n"
	"bold             default      default      bold\n"
	"header           default      default      reverse\n"
	"header-key       default      default      reverse,bold\n"
	"header-warn      default      default      reverse,underline\n"
	"header-err       default      default      reverse,bold,underline\n"
	"header-info      default      default      reverse\n"
	"live             default      default      bold\n"
	"replay           default      default      bold,underline\n"
	"tab              default\n"
	"tab-active       default      default      reverse,bold\n"
	"title            default      default      bold\n"
	"label            default      default      dim\n"
	"colhead          default      default      underline\n"
	"selected         default      default      reverse\n"
	"cursor           default      default      reverse,bold\n"
	"status           default      default      reverse\n"
	"status-key       default      default      reverse,bold\n"
	"message          default\n"
	"error            default      default      bold\n"
	"prompt           default      default      bold\n"
	"key              default      default      bold\n"
	"ok               default\n"
	"warn             default      default      underline\n"
	"err              default      default      bold\n"
	"crit             default      default      bold,reverse\n"
	"info             default\n"
	"acked            default      default      dim\n"
	"spark            default\n"
	"bar              default\n"
	"bar-empty        default      default      dim\n"
	"border           default      default      dim\n"
	"dialog           default\n"
	"dialog-title     default      default      bold\n"
	"match            default      default      underline\n"
	"heat0            default      default      dim\n"
	"heat1            default      default      dim\n"
	"heat2            default\n"
	"heat3            default\n"
	"heat4            default\n"
	"heat5            default\n"
	"heat6            default      default      bold\n"
	"heat7            default      default      bold\n"
	"hot0             default      default      dim\n"
	"hot1             default      default      dim\n"
	"hot2             default\n"
	"hot3             default\n"
	"hot4             default\n"
	"hot5             default\n"
	"hot6             default      default      bold\n"
	"hot7             default      default      bold\n"
	"gpu-fault        default      default      bold,reverse\n"
	"gpu-drain        default      default      bold\n"
	"gpu-stale        default      default      dim\n"
	"gpu-down         default      default      bold\n"
	"gpu-none         default      default      dim\n"
	"gpu-dimmed       default      default      dim\n";

const char *role_name(int r)
{
	return r >= 0 && r < R_COUNT ? role_names[r] : "?";
}

const char *threshold_name(int t)
{
	return t >= 0 && t < T_COUNT ? thr_names[t] : "?";
}

static void theme_plain(struct theme *t, const char *name)
{
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	for (int r = 0; r < R_COUNT; r++)
		t->s[r] = (struct style){COLOUR_DEFAULT, COLOUR_DEFAULT, 0};
	memcpy(t->thr, thr_default, sizeof t->thr);
}

/* Does the theme text set a hot role (a line beginning "hot")? */
static int hot_named(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "hot", 3) && p[3] >= '0' && p[3] <= '7')
			return 1;
	}
	return 0;
}

static void update_colour_flag(struct theme *t)
{
	t->colour = 0;
	for (int r = R_HEAT0; r <= R_GPU_DIMMED; r++)
		if (t->s[r].fg != COLOUR_DEFAULT)
			t->colour = 1;
}

void theme_builtin(struct theme *t)
{
	char *err = NULL;

	theme_plain(t, "default");
	if (theme_parse(t, builtin_default, "built-in default", &err) < 0)
		fatal("%s", err);   /* cannot happen: tested */
}

static const char *const names8[] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};

static int hexval(const char *s)
{
	int v = 0;

	for (int i = 0; i < 2; i++) {
		int c = tolower((unsigned char)s[i]);

		if (!isxdigit(c))
			return -1;
		v = v * 16 + (isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	return v;
}

static void xterm_rgb(int c, int rgb[3])
{
	static const int base[16][3] = {
		{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205},
		{229, 229, 229}, {127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {92, 92, 255},
		{255, 0, 255}, {0, 255, 255}, {255, 255, 255},
	};
	static const int lv[6] = {0, 95, 135, 175, 215, 255};

	if (c < 16) {
		memcpy(rgb, base[c], sizeof base[c]);
	} else if (c < 232) {
		c -= 16;
		rgb[0] = lv[c / 36];
		rgb[1] = lv[(c / 6) % 6];
		rgb[2] = lv[c % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + (c - 232) * 10;
	}
}

static int nearest(const int rgb[3], int from, int to)
{
	int best = from, bestd = 1 << 30;

	for (int i = from; i < to; i++) {
		int o[3], d = 0;

		xterm_rgb(i, o);
		for (int k = 0; k < 3; k++)
			d += (o[k] - rgb[k]) * (o[k] - rgb[k]);
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best;
}

int colour_downgrade(int c, int colours)
{
	int rgb[3];

	if (c < 0 || c < colours)
		return c;
	xterm_rgb(c, rgb);
	return nearest(rgb, 0, colours >= 16 ? 16 : 8);
}

/* Parses a colour word; 0 or -1. */
static int parse_colour(const char *w, int16_t *out)
{
	const char *p = w;
	int bright = 0;
	char *end;

	if (!strcmp(w, "default")) {
		*out = COLOUR_DEFAULT;
		return 0;
	}
	if (w[0] == '#' && strlen(w) == 7) {
		int rgb[3];

		for (int k = 0; k < 3; k++)
			if ((rgb[k] = hexval(w + 1 + 2 * k)) < 0)
				return -1;
		*out = (int16_t)nearest(rgb, 16, 256);
		return 0;
	}
	if (!strncmp(p, "colour", 6))
		p += 6;
	else if (!strncmp(p, "color", 5))
		p += 5;
	if (isdigit((unsigned char)*p)) {
		long v = strtol(p, &end, 10);

		if (*end || v < 0 || v > 255)
			return -1;
		*out = (int16_t)v;
		return 0;
	}
	if (!strncmp(w, "bright-", 7)) {
		bright = 8;
		w += 7;
	}
	for (int i = 0; i < 8; i++)
		if (!strcmp(w, names8[i])) {
			*out = (int16_t)(i + bright);
			return 0;
		}
	return -1;
}

static int parse_attrs(char *w, uint16_t *out)
{
	static const struct { const char *name; uint16_t bit; } attrs[] = {
		{"none", 0}, {"bold", TA_BOLD}, {"dim", TA_DIM}, {"reverse", TA_REVERSE},
		{"underline", TA_UNDERLINE}, {"italic", TA_ITALIC},
	};
	char *save = NULL;

	*out = 0;
	for (char *a = strtok_r(w, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		unsigned k;

		for (k = 0; k < ARRAY_LEN(attrs) && strcmp(a, attrs[k].name); k++)
			;
		if (k == ARRAY_LEN(attrs))
			return -1;
		*out |= attrs[k].bit;
	}
	return 0;
}

static int find_name(const char *const *names, int n, const char *w)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], w))
			return i;
	return -1;
}

/* One non-comment line split into words; 0 or -1 with *why. */
static int parse_line(struct theme *t, char **w, int n, const char **why, const char **bad)
{
	int r;

	if (!strcmp(w[0], "base")) {
		if (n != 2 || (strcmp(w[1], "none") && strcmp(w[1], "default"))) {
			*why = "base wants \"none\" or \"default\"";
			return -1;
		}
		if (!strcmp(w[1], "none"))
			theme_plain(t, t->name);
		else
			theme_builtin(t);
		return 0;
	}
	if (!strcmp(w[0], "threshold")) {
		char *end;
		double v;

		if (n != 3) {
			*why = "threshold wants a name and a value";
			return -1;
		}
		if ((r = find_name(thr_names, T_COUNT, w[1])) < 0) {
			*why = "unknown threshold", *bad = w[1];
			return -1;
		}
		v = strtod(w[2], &end);
		if (*end || end == w[2] || !(v >= 0)) {
			*why = "bad number", *bad = w[2];
			return -1;
		}
		t->thr[r] = v;
		return 0;
	}
	if ((r = find_name(role_names, R_COUNT, w[0])) < 0) {
		*why = "unknown role", *bad = w[0];
		return -1;
	}
	if (n < 2 || n > 4) {
		*why = "a role wants: foreground [background [attributes]]";
		return -1;
	}
	struct style s = {COLOUR_DEFAULT, COLOUR_DEFAULT, 0};

	if (parse_colour(w[1], &s.fg) < 0) {
		*why = "bad colour", *bad = w[1];
		return -1;
	}
	if (n > 2 && parse_colour(w[2], &s.bg) < 0) {
		*why = "bad colour", *bad = w[2];
		return -1;
	}
	if (n > 3 && parse_attrs(w[3], &s.attr) < 0) {
		*why = "bad attributes", *bad = w[3];
		return -1;
	}
	t->s[r] = s;
	return 0;
}

int theme_parse(struct theme *t, const char *text, const char *fname, char **err)
{
	struct theme work = *t;
	char *copy = xstrdup(text), *save = NULL, *line;
	int lineno = 0;
	const char *p = copy;

	for (line = copy; line; line = p ? (char *)p : NULL) {
		char *nl = strchr(line, '\n'), *w[8], *wsave = NULL, *tok;
		const char *why = NULL, *bad = NULL;
		int n = 0;

		p = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		for (tok = line; *tok == ' ' || *tok == '\t'; tok++)
			;
		if (*tok == '#')   /* a comment line; or " # ..." after the words */
			*tok = '\0';
		else if ((tok = strstr(line, " #")) && (!tok[2] || tok[2] == ' '))
			*tok = '\0';
		for (tok = strtok_r(line, " \t\r", &wsave); tok && n < 8; tok = strtok_r(NULL, " \t\r", &wsave))
			w[n++] = tok;
		if (!n)
			continue;
		if (n == 8)
			why = "too many words";
		if (why || parse_line(&work, w, n, &why, &bad) < 0) {
			*err = bad ? xasprintf("%s:%d: %s '%s'", fname, lineno, why, bad)
				   : xasprintf("%s:%d: %s", fname, lineno, why);
			free(copy);
			return -1;
		}
	}
	(void)save;
	free(copy);
	if (!hot_named(text))   /* an older theme: temperature takes the heat ramp */
		memcpy(&work.s[R_HOT0], &work.s[R_HEAT0], sizeof work.s[0] * HEAT_LEVELS);
	update_colour_flag(&work);
	*t = work;
	return 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	struct sbuf b = {0};
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0 && b.len < (1u << 20))
		sbuf_add(&b, buf, n);
	fclose(f);
	if (!b.s)
		sbuf_adds(&b, "");
	return b.s;
}

/* Candidate paths for a theme name, in search order; *n returned. */
static int theme_paths(const char *name, char paths[4][512])
{
	char exe[400];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	const char *env = getenv("MYRIAD_THEMES");
	int n = 0;

	if (env && *env)
		snprintf(paths[n++], 512, "%s/%s.theme", env, name);
	if (len > 0) {
		char *slash;

		exe[len] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		snprintf(paths[n++], 512, "%s/../themes/%s.theme", exe, name);
		snprintf(paths[n++], 512, "%s/../share/myriad/themes/%s.theme", exe, name);
	}
	snprintf(paths[n++], 512, "themes/%s.theme", name);
	return n;
}

static int valid_name(const char *name)
{
	if (!*name || strlen(name) > 48)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return 0;
	return 1;
}

int theme_load(struct theme *t, const char *name, char **err)
{
	struct theme work;
	char paths[4][512], *text = NULL;
	const char *path = name;
	size_t len = strlen(name);
	int rc;

	theme_builtin(&work);
	if (strchr(name, '/') || (len > 6 && !strcmp(name + len - 6, ".theme"))) {
		if (!(text = read_file(name))) {
			*err = xasprintf("theme %s: %s", name, strerror(errno));
			return -1;
		}
	} else if (!valid_name(name)) {
		*err = xasprintf("theme \"%s\": not a theme name", name);
		return -1;
	} else {
		int n = theme_paths(name, paths);

		for (int i = 0; i < n && !text; i++)
			if ((text = read_file(paths[i])))
				path = paths[i];
		if (!text && !strcmp(name, "default"))
			text = xstrdup(builtin_default), path = "built-in default";
		if (!text && !strcmp(name, "mono"))
			text = xstrdup(builtin_mono), path = "built-in mono";
		if (!text) {
			*err = xasprintf("theme \"%s\" not found (looked in $MYRIAD_THEMES, next to the binary and ./themes)",
					 name);
			return -1;
		}
	}
	rc = theme_parse(&work, text, path, err);
	free(text);
	if (rc < 0)
		return -1;
	snprintf(work.name, sizeof work.name, "%s", name);
	*t = work;
	return 0;
}

void theme_strip_colour(struct theme *t)
{
	for (int r = 0; r < R_COUNT; r++)
		t->s[r].fg = t->s[r].bg = COLOUR_DEFAULT;
	t->colour = 0;
}
