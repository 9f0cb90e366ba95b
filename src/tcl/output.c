/*
 * output.c - where what scripts print goes, never raw to a terminal. In the
 * console, Tcl's stdout and stderr become channels whose lines go to the log
 * panel (drawn through the console's sanitiser, like notify and `ui
 * message`): a hook's `puts "new job $name"` cannot set the operator's
 * clipboard (OSC 52) or blank the screen. In a batch run, output that goes
 * to a terminal is sanitised line by line (escape sequences and control
 * characters dropped, newlines and tabs kept); to a file or a pipe the bytes
 * are data and pass unchanged.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tcl_int.h"
#include "../ui/text.h"
#include "../ui/ui.h"

struct outchan {
	struct myriad *app;
	int fd;                    /* 1 or 2 */
	int console;               /* lines to the log panel; else sanitised to fd */
	struct sbuf line;
};

/* The printable form of one line (no newline), written to f. */
static void put_line(FILE *f, const char *s, size_t n, int nl)
{
	char *line = xmalloc(n + 1), *out = xmalloc(n * 4 + 8);
	char *p;
	const char *seg;

	memcpy(line, s, n);
	line[n] = '\0';
	for (p = line, seg = line;; p++) {   /* tabs survive: sanitise between them */
		if (*p == '\t' || !*p) {
			char saved = *p;

			*p = '\0';
			text_sanitize(out, n * 4 + 8, seg);
			fputs(out, f);
			if (!saved)
				break;
			fputc('\t', f);
			seg = p + 1;
		}
	}
	if (nl)
		fputc('\n', f);
	free(line);
	free(out);
}

void tc_print_safe(FILE *f, const char *s)
{
	if (!isatty(fileno(f))) {
		fputs(s, f);
		return;
	}
	for (const char *p = s; *p;) {
		const char *nl = strchr(p, '\n');

		put_line(f, p, nl ? (size_t)(nl - p) : strlen(p), nl != NULL);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

static void emit_lines(struct outchan *o, int all)
{
	size_t start = 0;

	for (size_t i = 0; i < o->line.len; i++) {
		if (o->line.s[i] != '\n' && !(all && i + 1 == o->line.len))
			continue;
		size_t end = o->line.s[i] == '\n' ? i : i + 1;

		if (o->console) {
			char *l = xasprintf("%.*s", (int)(end - start), o->line.s + start);

			ui_log(o->app, o->fd == 2 ? "err" : "out", l);
			free(l);
		} else {
			put_line(o->fd == 2 ? stderr : stdout, o->line.s + start, end - start, o->line.s[i] == '\n');
			fflush(o->fd == 2 ? stderr : stdout);
		}
		start = i + 1;
	}
	if (start) {
		memmove(o->line.s, o->line.s + start, o->line.len - start);
		o->line.len -= start;
		o->line.s[o->line.len] = '\0';
	}
}

static int oc_output(ClientData cd, const char *buf, int size, int *err)
{
	struct outchan *o = cd;

	*err = 0;
	if (o->line.len < (1u << 20))
		sbuf_add(&o->line, buf, (size_t)size);
	emit_lines(o, 0);
	return size;
}

static int oc_close(ClientData cd, Tcl_Interp *in)
{
	struct outchan *o = cd;

	(void)in;
	if (o->line.len)
		emit_lines(o, 1);
	sbuf_free(&o->line);
	free(o);
	return 0;
}

static int oc_input(ClientData cd, char *buf, int size, int *err)
{
	(void)cd, (void)buf, (void)size;
	*err = 0;
	return 0;
}

static void oc_watch(ClientData cd, int mask)
{
	(void)cd, (void)mask;
}

static int oc_handle(ClientData cd, int dir, ClientData *h)
{
	(void)cd, (void)dir, (void)h;
	return TCL_ERROR;
}

static const Tcl_ChannelType out_type = {
	"myriad-out", TCL_CHANNEL_VERSION_5, oc_close, oc_input, oc_output, NULL, NULL, NULL,
	oc_watch, oc_handle, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

/* The interpreter's channel called name becomes ch. The old one stays open
 * (it holds the process's descriptor 1 or 2), held by no interpreter. Called
 * before ch becomes the standard channel: an interpreter whose channel table
 * is made afterwards starts with ch already. */
void tc_rebind_channel(Tcl_Interp *in, const char *name, Tcl_Channel ch)
{
	Tcl_Channel old = Tcl_GetChannel(in, name, NULL);

	if (old == ch)
		return;
	if (old) {
		Tcl_RegisterChannel(NULL, old);
		Tcl_UnregisterChannel(in, old);
	}
	Tcl_RegisterChannel(in, ch);
}

static void replace(struct tcl_state *ts, int fd, int console)
{
	struct outchan *o = xcalloc(1, sizeof *o);
	const char *name = fd == 2 ? "stderr" : "stdout";
	Tcl_Channel ch;

	o->app = ts->app;
	o->fd = fd;
	o->console = console;
	ch = Tcl_CreateChannel(&out_type, name, o, TCL_WRITABLE);
	Tcl_SetChannelOption(NULL, ch, "-translation", "lf");
	Tcl_SetChannelOption(NULL, ch, "-buffering", "line");
	Tcl_SetChannelOption(NULL, ch, "-encoding", "utf-8");
	tc_rebind_channel(ts->interp, name, ch);
	tc_safe_rebind(ts, name, ch);
	Tcl_SetStdChannel(ch, fd == 2 ? TCL_STDERR : TCL_STDOUT);
}

void tc_output_console(struct tcl_state *ts)
{
	replace(ts, 1, 1);
	replace(ts, 2, 1);
}

void tc_output_batch(struct tcl_state *ts)
{
	if (!ts->capture && isatty(1))
		replace(ts, 1, 0);
	if (isatty(2))
		replace(ts, 2, 0);
}
