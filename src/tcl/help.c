/*
 * help.c - what the command table says about itself: `help`, `help CMD`,
 * completion (tcl_complete) and the manual page man/myriad-tcl.7, which
 * `help -man` prints and tests/tcl.test compares with the committed file.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "tcl_int.h"

static size_t head_of(const char *name)
{
	const char *sp = strchr(name, ' ');

	return sp ? (size_t)(sp - name) : strlen(name);
}

static void flags_text(const struct tcl_cmd *t, struct sbuf *b)
{
	sbuf_adds(b, t->flags & TC_ACTS ? "acts on the cluster (through the action engine)" : "does not act on the cluster");
	if (t->flags & TC_BACKEND)
		sbuf_adds(b, "; needs a backend");
	sbuf_adds(b, t->flags & TC_RO ? "; allowed in read-only mode" : "; refused in read-only mode");
	sbuf_adds(b, t->flags & TC_SAFE ? "; allowed in the safe interpreter" : "; not in the safe interpreter");
	if (t->flags & TC_TEST)
		sbuf_adds(b, "; test and demo only");
	if (t->flags & TC_NA)
		sbuf_adds(b, "; not available in this build");
}

static void one(const struct tcl_cmd *t, struct sbuf *b)
{
	sbuf_printf(b, "%s %s\n  %s\n  ", t->name, t->usage, t->help);
	flags_text(t, b);
	sbuf_addc(b, '\n');
}

static void list_all(struct sbuf *b)
{
	for (int s = 0; s < SEC_COUNT; s++) {
		sbuf_printf(b, "%s%s\n", s ? "\n" : "", tc_section_names[s]);
		for (int i = 0; i < tc_count; i++)
			if (tc_table[i].section == s)
				sbuf_printf(b, "  %-16s %s\n", tc_table[i].name, tc_table[i].help);
	}
	sbuf_adds(b, "\nhelp COMMAND for usage; Tcl's own commands (after, coroutine, dict ...) work as usual.\n");
}

int tc_help(struct tcl_call *c)
{
	struct sbuf b = {0};
	char name[64] = "";
	int found = 0;

	if (tc_flag(c, "man")) {
		tc_man(&b);
	} else if (!c->argc) {
		list_all(&b);
	} else {
		snprintf(name, sizeof name, "%s%s%s", Tcl_GetString(c->argv[0]), c->argc > 1 ? " " : "",
			 c->argc > 1 ? Tcl_GetString(c->argv[1]) : "");
		for (int i = 0; i < tc_count; i++) {
			const struct tcl_cmd *t = &tc_table[i];

			if (!strcmp(t->name, name) || (head_of(t->name) == strlen(name) && !strncmp(t->name, name, strlen(name)))) {
				one(t, &b);
				found++;
			}
		}
		if (!found) {
			sbuf_free(&b);
			return tc_err(c, "INPUT", "help: no command \"%s\"", name);
		}
	}
	Tcl_SetObjResult(c->interp, Tcl_NewStringObj(b.s ? b.s : "", (int)b.len));
	sbuf_free(&b);
	return TCL_OK;
}

/* ---- completion ---- */

void tcl_complete(struct myriad *app, const char *prefix, void (*fn)(void *ctx, const char *word), void *ctx)
{
	struct tcl_state *ts = app->tcl;
	size_t n = strlen(prefix);
	char last[64] = "";
	Tcl_Obj *pattern, *cmds, **e;
	int ne;

	for (int i = 0; i < tc_count; i++) {
		const char *name = tc_table[i].name;
		size_t hl = head_of(name);

		if (hl < sizeof last && (strlen(last) != hl || strncmp(last, name, hl)) && hl >= n && !strncmp(name, prefix, n)) {
			snprintf(last, sizeof last, "%.*s", (int)hl, name);
			fn(ctx, last);
		}
		if (name[hl] && !strncmp(name, prefix, n))
			fn(ctx, name);
	}
	if (!ts || strchr(prefix, ' '))
		return;
	pattern = Tcl_ObjPrintf("lsort [info commands {%s*}]", prefix);
	Tcl_IncrRefCount(pattern);
	if (!strpbrk(prefix, "{}\\[]*?") && Tcl_EvalObjEx(ts->interp, pattern, TCL_EVAL_GLOBAL) == TCL_OK &&
	    Tcl_ListObjGetElements(NULL, cmds = Tcl_GetObjResult(ts->interp), &ne, &e) == TCL_OK) {
		Tcl_IncrRefCount(cmds);
		for (int i = 0; i < ne; i++) {
			const char *w = Tcl_GetString(e[i]);
			int in_table = w[0] == '_';

			for (int k = 0; k < tc_count && !in_table; k++)
				in_table = head_of(tc_table[k].name) == strlen(w) && !strncmp(tc_table[k].name, w, strlen(w));
			if (!in_table)
				fn(ctx, w);
		}
		Tcl_DecrRefCount(cmds);
	}
	Tcl_ResetResult(ts->interp);
	Tcl_DecrRefCount(pattern);
}

/* ---- the manual page ---- */

/* Text for troff: backslashes, hyphens and leading dots escaped. */
static void man_text(struct sbuf *b, const char *s)
{
	if (*s == '.' || *s == '\'')
		sbuf_adds(b, "\\&");
	for (; *s; s++) {
		if (*s == '\\')
			sbuf_adds(b, "\\e");
		else if (*s == '-')
			sbuf_adds(b, "\\-");
		else
			sbuf_addc(b, *s);
	}
}

static void man_lines(struct sbuf *b, const char *const *lines)
{
	for (; *lines; lines++) {
		if ((*lines)[0] == '.' && isalpha((unsigned char)(*lines)[1]))
			sbuf_adds(b, *lines);   /* a request */
		else
			man_text(b, *lines);
		sbuf_addc(b, '\n');
	}
}

#include "man_text.h"

void tc_man(struct sbuf *b)
{
	sbuf_printf(b, ".\\\" Generated from the command table (src/tcl/table.c, src/tcl/man_text.h):\n"
		       ".\\\" regenerate with: build/myriad --record none --sim gpus=256 -e 'help -man' > man/myriad-tcl.7\n"
		       ".TH MYRIAD-TCL 7 \"\" \"myriad %s\" \"myriad manual\"\n", MYRIAD_VERSION);
	man_lines(b, man_intro);
	for (int s = 0; s < SEC_COUNT; s++) {
		sbuf_adds(b, ".SS ");
		man_text(b, tc_section_names[s]);
		sbuf_addc(b, '\n');
		for (int i = 0; i < tc_count; i++) {
			const struct tcl_cmd *t = &tc_table[i];
			struct sbuf f = {0};

			if (t->section != s)
				continue;
			sbuf_adds(b, ".TP\n\\fB");
			man_text(b, t->name);
			sbuf_adds(b, "\\fR");
			if (*t->usage) {
				sbuf_adds(b, " \\fI");
				man_text(b, t->usage);
				sbuf_adds(b, "\\fR");
			}
			sbuf_addc(b, '\n');
			man_text(b, t->help);
			sbuf_adds(b, ".\n.br\n");
			flags_text(t, &f);
			sbuf_adds(b, "(");
			man_text(b, f.s);
			sbuf_adds(b, ")\n");
			sbuf_free(&f);
		}
	}
	man_lines(b, man_rest);
}
