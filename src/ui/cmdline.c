/*
 * cmdline.c - the `:` command line: GNU readline in callback mode, never
 * blocking the loop (one loop: myriad-design(7), DATA FLOW). Keys arrive from term.c as the
 * loop reads them; they are turned back into the bytes a terminal would send
 * and handed to readline through our own rl_getc_function. readline never
 * touches the terminal: its redisplay draws into the grid's last row, its
 * terminal preparation is a no-op, its output stream is /dev/null, and it
 * catches no signals (rl_catch_signals = rl_catch_sigwinch = 0) and leaves
 * LINES/COLUMNS alone (rl_change_environment = 0).
 *
 * History is kept in $XDG_STATE_HOME/myriad/history; Tab completes command
 * names (tcl_complete, or the built-in console commands without Tcl) and node names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <readline/readline.h>
#include <readline/history.h>
#include "ui_int.h"
#include "../tcl/tcl.h"

static struct console *con;      /* the console whose line is open */
static unsigned char q[256];     /* bytes waiting for readline */
static int qh, qn;
static int ready;
static FILE *devnull;
static char hist_path[512];
static char prompt[128] = ":";
static void (*prompt_done)(void *ctx, const char *line);   /* a Tcl `prompt` waits */
static void *prompt_ctx;

static int getc_cb(FILE *f)
{
	int ch;

	(void)f;
	if (!qn)
		return 0;   /* not asked for when empty: cmdline_key feeds while qn > 0 */
	ch = q[qh];
	qh = (qh + 1) % (int)sizeof q;
	qn--;
	return ch;
}

static int input_available(void)
{
	return qn > 0;
}

static void redisplay(void)
{
	if (con)
		con->dirty |= DIRTY_STATUS;
}

static void prep_term(int meta)
{
	(void)meta;
}

static void deprep_term(void)
{
}

static void history_file(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[400];

	if (state && *state)
		snprintf(dir, sizeof dir, "%s/myriad", state);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/myriad", home);
	else
		return;
	for (char *p = dir + 1; *p; p++)   /* mkdir -p */
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return;
	snprintf(hist_path, sizeof hist_path, "%s/history", dir);
}

/* ---- completion ---- */

struct cands {
	char **v;
	int n, cap;
	const char *line;    /* the line up to the word being completed */
	int start;
};

static void cand_add(struct cands *c, const char *w, size_t len)
{
	for (int i = 0; i < c->n; i++)
		if (strlen(c->v[i]) == len && !strncmp(c->v[i], w, len))
			return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = xrealloc(c->v, sizeof *c->v * (size_t)c->cap);
	}
	c->v[c->n++] = xstrndup(w, len);
}

/* A command name ("node drain") offered for the line: the word at start. */
static void add_command(void *ctx, const char *name)
{
	struct cands *c = ctx;
	size_t len;

	if ((int)strlen(name) < c->start || strncmp(name, c->line, (size_t)c->start))
		return;
	name += c->start;
	len = strcspn(name, " ");
	cand_add(c, name, len);
}

static struct cands cands;
static int cand_i;

static char *generator(const char *text, int state)
{
	(void)text;
	if (!state)
		cand_i = 0;
	return cand_i < cands.n ? xstrdup(cands.v[cand_i++]) : NULL;
}

static char **complete(const char *text, int start, int end)
{
	const struct model *m = &con->app->model;
	char line[512];
	size_t tl = strlen(text);

	rl_attempted_completion_over = 1;
	for (int i = 0; i < cands.n; i++)
		free(cands.v[i]);
	cands.n = 0;
	snprintf(line, sizeof line, "%.*s", end, rl_line_buffer);
	cands.line = line;
	cands.start = start;
	if (con->tcl_ok)
		tcl_complete(con->app, line, add_command, &cands);
	else if (start == 0)
		action_complete(text, add_command, &cands);
	if (start > 0 && tl)
		for (int32_t i = 0; i < m->nnodes && cands.n < 4000; i++)
			if (!strncmp(m->nodes[i].name, text, tl))
				cand_add(&cands, m->nodes[i].name, strlen(m->nodes[i].name));
	if (!cands.n)
		return NULL;
	return rl_completion_matches(text, generator);
}

static void show_matches(char **matches, int num, int maxlen)
{
	struct sbuf b = {0};

	(void)maxlen;
	sbuf_printf(&b, "%d matches:", num);
	for (int i = 1; i <= num && b.len < 400; i++)
		sbuf_printf(&b, " %s", matches[i]);
	console_set_message(con, R_MESSAGE, "%s", b.s);
	sbuf_free(&b);
}

/* ---- the line ---- */

static void on_line(char *line);

static void init_readline(void)
{
	if (ready)
		return;
	ready = 1;
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_readline_name = "myriad";
	rl_getc_function = getc_cb;
	rl_input_available_hook = input_available;
	rl_redisplay_function = redisplay;
	rl_prep_term_function = prep_term;
	rl_deprep_term_function = deprep_term;
	devnull = fopen("/dev/null", "w");
	rl_outstream = devnull;
	rl_attempted_completion_function = complete;
	rl_completion_display_matches_hook = show_matches;
	rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{([";
	using_history();
	stifle_history(1000);
	history_file();
	if (hist_path[0])
		read_history(hist_path);
}

void cmdline_open(struct console *c, const char *initial)
{
	if (c->mode == MODE_COMMAND)
		cmdline_close(c);
	init_readline();
	con = c;
	c->mode = MODE_COMMAND;
	rl_callback_handler_install(prompt, on_line);
	rl_variable_bind("enable-bracketed-paste", "off");
	rl_variable_bind("bell-style", "none");
	if (initial && *initial) {
		rl_insert_text(initial);
		rl_point = rl_end;
	}
	c->dirty |= DIRTY_STATUS;
}

void cmdline_prompt(struct console *c, const char *text, void (*done)(void *ctx, const char *line), void *ctx)
{
	if (c->mode == MODE_COMMAND)
		cmdline_close(c);
	text_sanitize(prompt, sizeof prompt - 2, text);
	strcat(prompt, " ");
	prompt_done = done;
	prompt_ctx = ctx;
	cmdline_open(c, NULL);
}

void cmdline_close(struct console *c)
{
	void (*done)(void *, const char *) = prompt_done;

	if (c->mode != MODE_COMMAND)
		return;
	rl_replace_line("", 0);
	rl_callback_sigcleanup();
	rl_callback_handler_remove();
	qn = 0;
	c->mode = MODE_NORMAL;
	c->dirty |= DIRTY_STATUS;
	strcpy(prompt, ":");
	prompt_done = NULL;
	if (done)   /* closed without an answer */
		done(prompt_ctx, NULL);
}

static void on_line(char *line)
{
	struct console *c = con;
	void (*done)(void *, const char *) = prompt_done;

	prompt_done = NULL;
	cmdline_close(c);
	if (done) {
		done(prompt_ctx, line);
		free(line);
		return;
	}
	if (!line)
		return;
	if (*line) {
		add_history(line);
		if (hist_path[0] && (append_history(1, hist_path) != 0))
			write_history(hist_path);
		cmdline_eval(c, line, 1);
	}
	free(line);
}

/* The bytes a terminal sends for key; 0 if readline has no use for it. */
static int key_bytes(int key, char out[8])
{
	static const struct { int key; const char *seq; } seqs[] = {
		{UK_ENTER, "\r"}, {UK_TAB, "\t"}, {UK_BSPACE, "\x7f"}, {UK_DC, "\033[3~"},
		{UK_LEFT, "\033[D"}, {UK_RIGHT, "\033[C"}, {UK_UP, "\033[A"}, {UK_DOWN, "\033[B"},
		{UK_HOME, "\033[H"}, {UK_END, "\033[F"},
	};

	for (unsigned i = 0; i < ARRAY_LEN(seqs); i++)
		if (seqs[i].key == key) {
			strcpy(out, seqs[i].seq);
			return (int)strlen(out);
		}
	if (key > 0 && key < 0x20)
		return out[0] = (char)key, 1;
	if (key >= 0x20 && key < UK_BASE && key != 0x7f)
		return utf8_encode((uint32_t)key, out);
	return 0;
}

void cmdline_key(struct console *c, int key)
{
	char b[8];
	int n;

	if (key == UK_ESCAPE || key == 3) {   /* Escape, C-c */
		cmdline_close(c);
		return;
	}
	if ((n = key_bytes(key, b)) == 0 || qn + n > (int)sizeof q)
		return;
	for (int i = 0; i < n; i++)
		q[(qh + qn++) % (int)sizeof q] = (unsigned char)b[i];
	while (qn > 0 && c->mode == MODE_COMMAND)
		rl_callback_read_char();
	if (c->mode != MODE_COMMAND)
		qn = 0;
	c->dirty |= DIRTY_STATUS;
}

void cmdline_draw(struct console *c, const struct view *row)
{
	const char *line = rl_line_buffer ? rl_line_buffer : "";
	char before[1024];
	int pw, bw, skip = 0;

	pw = view_text(row, 0, 0, -1, R_PROMPT, prompt);
	snprintf(before, sizeof before, "%.*s", rl_point, line);
	bw = text_width(before);
	while (pw + bw - skip >= row->w - 1 && *line) {   /* scroll left to show the cursor */
		const char *p = line;
		uint32_t cp = text_next(&p);

		skip += cp ? text_cpwidth(cp) : 1;
		line = p;
	}
	view_text(row, pw, 0, -1, R_NORMAL, line);
	c->cursor_x = row->x + pw + bw - skip;
	c->cursor_y = row->y;
}

void cmdline_eval(struct console *c, const char *line, int typed)
{
	struct sbuf out = {0};
	int rc, lines = 0;
	int64_t shown;
	const char *p, *nl;

	console_log(c, R_PROMPT, "cmd", "%s", line);
	if (!c->tcl_ok) {
		if (ui_cmd_run(c, line))
			return;
		console_set_message(c, R_ERROR, "Tcl is not available: only built-in console commands work here "
				    "(panel NAME, help, quit, ...; Tab completes)");
		return;
	}
	shown = c->msg_until;
	rc = tcl_eval_console(c->app, line, typed, &out);
	for (p = out.s; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		console_log(c, rc ? R_ERR : R_NORMAL, rc ? "error" : "out", "%.*s",
			    nl ? (int)(nl - p) : (int)strlen(p), p);
		lines++;
		if (!nl)
			break;
	}
	if (out.s && *out.s) {
		size_t first = strcspn(out.s, "\n");

		console_set_message(c, rc ? R_ERROR : R_MESSAGE, "%.*s%s", (int)MIN(first, 400), out.s,
				    lines > 1 ? "  (more in the log, 7)" : "");
	} else if (!rc && c->msg_until == shown) {   /* keep what the command itself said */
		console_set_message(c, R_DIM, "ok");
	}
	sbuf_free(&out);
	c->dirty = DIRTY_ALL;
}

void cmdline_free(void)
{
	for (int i = 0; i < cands.n; i++)
		free(cands.v[i]);
	free(cands.v);
	memset(&cands, 0, sizeof cands);
	if (con && con->mode == MODE_COMMAND)
		cmdline_close(con);
	if (hist_path[0])
		history_truncate_file(hist_path, 1000);
	if (ready) {
		clear_history();
		rl_callback_handler_remove();
	}
	if (devnull)
		fclose(devnull);
	devnull = NULL;
	rl_outstream = NULL;
	con = NULL;
	ready = 0;
}
