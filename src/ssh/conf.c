/*
 * conf.c - the configuration commands of the inventory (host, service,
 * probe, hostkey, ssh) from their words, and loading a configuration file.
 *
 * A minimal reader understands Tcl's word syntax ({braces}, "quotes" with
 * backslash escapes, # comments, ; and newlines) but no substitution, and
 * only the five commands above - exactly what `myriad-sim serve
 * --write-config` writes. A file made only of those is read here, whatever
 * the build; any other file goes to the Tcl interpreter, if any. It is
 * TEMPORARY: delete read_minimal() once src/tcl loads configurations and its
 * host, service, probe, hostkey and ssh commands call inventory_command().
 */
#include <stdio.h>
#include <string.h>
#include "inventory.h"
#include "../tcl/tcl.h"

static int want(int i, int argc, char **argv, char **err)
{
	if (i + 1 < argc)
		return 1;
	*err = xasprintf("%s: %s needs a value", argv[0], argv[i]);
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* -user -port -identity -via -hostname -gpus: 1 if argv[i] was one (i advanced), 0 if not, -1 error. */
static int target_opt(int *i, int argc, char **argv, struct inv_opts *o, char **err)
{
	const char *a = argv[*i];
	const char **dst = !strcmp(a, "-user") ? &o->user : !strcmp(a, "-identity") ? &o->identity
			   : !strcmp(a, "-via") ? &o->via : !strcmp(a, "-hostname") ? &o->hostname : NULL;

	if (!dst && strcmp(a, "-port") && strcmp(a, "-gpus"))
		return 0;
	if (!want(*i, argc, argv, err))
		return -1;
	const char *v = argv[++*i];

	if (dst) {
		*dst = v;
	} else if (parse_int(v, !strcmp(a, "-port") ? 1 : 1, !strcmp(a, "-port") ? 65535 : 32,
			     !strcmp(a, "-port") ? &o->port : &o->gpus) < 0) {
		*err = xasprintf("%s: bad %s \"%s\"", argv[0], a, v);
		return -1;
	}
	return 1;
}

static int cmd_host(struct myriad *app, int argc, char **argv, char **err)
{
	struct inv_opts o = {0};

	if (argc < 2 || argv[1][0] == '-') {
		*err = xstrdup("usage: host NODESET ?-user U? ?-port P? ?-identity FILE? ?-via GATEWAY? "
			       "?-hostname ADDR? ?-gpus N?");
		return -1;
	}
	for (int i = 2; i < argc; i++) {
		int r = target_opt(&i, argc, argv, &o, err);

		if (r < 0)
			return -1;
		if (r == 0) {
			*err = xasprintf("host: unknown option %s", argv[i]);
			return -1;
		}
	}
	return inventory_add_hosts(app, argv[1], &o, err);
}

/* The options of `service` that are not the target's: 1 taken, -1 error. */
static int service_opt(int *i, int argc, char **argv, const char **host, struct svc_opts *so, char **err)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-sudo")) {
		so->sudo = 1;
		return 1;
	}
	if (!want(*i, argc, argv, err))
		return -1;
	const char *v = argv[++*i];

	if (!strcmp(a, "-host"))
		*host = v;
	else if (!strcmp(a, "-command"))
		so->command = v;
	else if (!strcmp(a, "-every"))
		so->every_s = strtod(v, NULL);
	else if (!strcmp(a, "-bin"))
		so->bin = v;
	else if (!strcmp(a, "-conf"))
		so->conf = v;
	else if (!strcmp(a, "-signal") && (so->signal = sig_parse(v)) > 0)
		;
	else {
		*err = !strcmp(a, "-signal") ? xasprintf("service: bad -signal \"%s\" (USR1, USR2, TERM, ... or 1..64)", v)
					    : xasprintf("service: unknown option %s", a);
		return -1;
	}
	return 1;
}

static int cmd_service(struct myriad *app, int argc, char **argv, char **err)
{
	struct inv_opts o = {0};
	struct svc_opts so = {0};
	const char *host = NULL;

	if (argc < 2 || argv[1][0] == '-') {
		*err = xstrdup("usage: service NAME -host H ?-user U? ?-port P? ?-identity FILE? ?-via GW? "
			       "?-hostname ADDR? ?-command CMD? ?-every SECONDS? ?-bin DIR? ?-conf FILE? ?-sudo? "
			       "?-signal SIG?");
		return -1;
	}
	for (int i = 2; i < argc; i++) {
		int r = target_opt(&i, argc, argv, &o, err);

		if (r == 0)
			r = service_opt(&i, argc, argv, &host, &so, err);
		if (r < 0)
			return -1;
	}
	return inventory_add_service(app, argv[1], host, &o, &so, err);
}

/* probe NAME ?-command CMD? ?-rails LIST? (-rails: ib only) */
static int cmd_probe(struct myriad *app, int argc, char **argv, char **err)
{
	int ok = argc >= 4 && argc % 2 == 0;

	for (int i = 2; ok && i < argc; i += 2)
		ok = !strcmp(argv[i], "-command") || (!strcmp(argv[i], "-rails") && !strcmp(argv[1], "ib"));
	if (!ok) {
		*err = xstrdup("usage: probe NAME ?-command CMD? ?-rails LIST?   (NAME: nvidia-smi, kmsg, ib; "
			       "{} disables it; -rails: ib only, HCA names in rail order)");
		return -1;
	}
	for (int i = 2; i < argc; i += 2)
		if (!strcmp(argv[i], "-command") ? inventory_set_probe(app, argv[1], argv[i + 1], err) < 0
						 : inventory_set_rails(app, argv[i + 1], err) < 0)
			return -1;
	return 0;
}

static int cmd_hostkey(struct myriad *app, int argc, char **argv, char **err)
{
	if (argc != 4) {
		*err = xstrdup("usage: hostkey HOSTS TYPE BASE64   (as a known_hosts line)");
		return -1;
	}
	return inventory_trust_key(app, argv[1], argv[2], argv[3], err);
}

static int cmd_ssh(struct myriad *app, int argc, char **argv, char **err)
{
	for (int i = 1; i < argc; i += 2) {
		if (argv[i][0] != '-' || !want(i, argc, argv, err)) {
			if (!*err)
				*err = xasprintf("ssh: expected -option value, got \"%s\"", argv[i]);
			return -1;
		}
		if (inventory_set(app, argv[i] + 1, argv[i + 1], err) < 0)
			return -1;
	}
	return 0;
}

int inventory_command(struct myriad *app, int argc, char **argv, char **err)
{
	static const struct {
		const char *name;
		int (*fn)(struct myriad *, int, char **, char **);
	} cmds[] = {
		{"host", cmd_host}, {"service", cmd_service}, {"probe", cmd_probe},
		{"hostkey", cmd_hostkey}, {"ssh", cmd_ssh},
	};

	*err = NULL;
	for (unsigned i = 0; argc > 0 && i < ARRAY_LEN(cmds); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(app, argc, argv, err);
	*err = xasprintf("%s: not an inventory command", argc > 0 ? argv[0] : "");
	return -1;
}

/* ---- the minimal reader (temporary, see the top of the file) ---- */

struct words {
	char *w[64];
	int n;
};

static void words_clear(struct words *ws)
{
	for (int i = 0; i < ws->n; i++)
		free(ws->w[i]);
	ws->n = 0;
}

static const char *braced(const char *p, struct sbuf *b, char **err)
{
	int depth = 1;

	for (p++; *p; p++) {
		if (*p == '\\' && p[1]) {
			sbuf_add(b, p, 2);
			p++;
			continue;
		}
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p + 1;
		sbuf_addc(b, *p);
	}
	*err = xstrdup("missing close-brace");
	return NULL;
}

static const char *quoted(const char *p, struct sbuf *b, char **err)
{
	for (p++; *p && *p != '"'; p++) {
		if (*p == '$' || *p == '[') {
			*err = xstrdup("substitution needs the Tcl interpreter, not in this build");
			return NULL;
		}
		if (*p == '\\' && p[1]) {
			p++;
			sbuf_addc(b, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
		} else {
			sbuf_addc(b, *p);
		}
	}
	if (!*p) {
		*err = xstrdup("missing close-quote");
		return NULL;
	}
	return p + 1;
}

/* Reads one command into ws; returns the position after it, NULL on error. */
static const char *command(const char *p, struct words *ws, int *line, char **err)
{
	for (;;) {
		struct sbuf b = {0};

		while (*p == ' ' || *p == '\t' || (*p == '\\' && p[1] == '\n' && ++*line))
			p += *p == '\\' ? 2 : 1;
		if (!*p)
			return p;
		if (*p == '\n' || *p == ';') {
			*line += *p == '\n';
			return p + 1;
		}
		if (*p == '#' && ws->n == 0) {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		const char *start = p;

		if (*p == '{')
			p = braced(p, &b, err);
		else if (*p == '"')
			p = quoted(p, &b, err);
		else
			for (; *p && !strchr(" \t\n;", *p); p++) {
				if (*p == '$' || *p == '[' || *p == '\\') {
					*err = xstrdup("substitution needs the Tcl interpreter, not in this build");
					p = NULL;
					break;
				}
				sbuf_addc(&b, *p);
			}
		if (p && p > start && *p && !strchr(" \t\n;", *p)) {
			*err = xstrdup("extra characters after close-brace or close-quote");
			p = NULL;
		}
		for (const char *q = start; p && q < p; q++)
			*line += *q == '\n';
		if (!p || ws->n == (int)ARRAY_LEN(ws->w)) {
			if (p)
				*err = xstrdup("too many words");
			sbuf_free(&b);
			return NULL;
		}
		ws->w[ws->n++] = b.s ? b.s : xstrdup("");
	}
}

static int is_inventory_command(const char *name)
{
	static const char *const names[] = {"host", "service", "probe", "hostkey", "ssh"};

	for (unsigned i = 0; i < ARRAY_LEN(names); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

struct cmdlist {
	struct words *c;
	int *line;
	int n;
};

static void cmdlist_free(struct cmdlist *l)
{
	for (int i = 0; i < l->n; i++)
		words_clear(&l->c[i]);
	free(l->c);
	free(l->line);
}

/* Parses the whole text first: 0 if it is only inventory commands, else -1
 * with *err saying what needs Tcl. Nothing is applied yet. */
static int parse_all(const char *path, const char *p, struct cmdlist *l, char **err)
{
	int line = 1;
	char *e = NULL;

	while (*p) {
		struct words ws = {0};
		int at = line;

		p = command(p, &ws, &line, &e);
		if (p && ws.n && !is_inventory_command(ws.w[0]))
			e = xasprintf("%s needs the Tcl interpreter, not in this build", ws.w[0]);
		if (!p || e) {
			*err = xasprintf("%s:%d: %s", path, at, e ? e : "syntax error");
			free(e);
			words_clear(&ws);
			return -1;
		}
		if (!ws.n)
			continue;
		l->c = xrealloc(l->c, sizeof *l->c * (size_t)(l->n + 1));
		l->line = xrealloc(l->line, sizeof *l->line * (size_t)(l->n + 1));
		l->c[l->n] = ws;
		l->line[l->n++] = at;
	}
	return 0;
}

/* 1: applied; 0: the file needs Tcl (nothing applied, *err says why); -1: error. */
static int read_minimal(struct myriad *app, const char *path, char **err)
{
	FILE *f = fopen(path, "r");
	struct sbuf text = {0};
	struct cmdlist l = {0};
	char buf[8192], *e = NULL;
	size_t n;
	int rc = 1;

	if (!f) {
		*err = xasprintf("%s: cannot read", path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&text, buf, n);
	fclose(f);
	if (parse_all(path, text.s ? text.s : "", &l, err) < 0)
		rc = 0;
	for (int i = 0; rc == 1 && i < l.n; i++)
		if (inventory_command(app, l.c[i].n, l.c[i].w, &e) < 0) {
			*err = xasprintf("%s:%d: %s", path, l.line[i], e);
			free(e);
			rc = -1;
		}
	cmdlist_free(&l);
	sbuf_free(&text);
	return rc;
}

int inventory_load_config(struct myriad *app, const char *path, char **err)
{
	char *why = NULL, *tcl_err = NULL;
	int rc;

	*err = NULL;
	if ((rc = read_minimal(app, path, &why)) != 0) {
		*err = why;
		return rc > 0 ? 0 : -1;
	}
	if (tcl_init(app, &tcl_err) == 0) {
		free(why);
		return tcl_load_config(app, path, err);
	}
	free(tcl_err);
	*err = why;
	return -1;
}
