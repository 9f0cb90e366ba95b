/*
 * job.c - one job whole: who runs what, its state and age, every GPU it
 * holds on a map of its nodes (coloured by utilization, faulted, drained,
 * stale and down GPUs in their own colours), the open faults on its nodes,
 * its state history and the actions taken on it as the log recorded them
 * (so a replay shows them as they were at the replayed time). r and c act
 * on it as in the jobs panel; Enter opens its worst node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/store.h"
#include "ui/ui_int.h"

#define HIST_MAX 12
#define HIST_REFRESH_US (5 * US_PER_SEC)

struct hist_line {
	int64_t time;
	char text[200];
};

struct jobp {
	struct console *c;
	int scroll;
	uint32_t read_for;         /* job whose history was read */
	int64_t read_at, read_now; /* mono_us() of the read; cluster time it covered */
	uint64_t read_seq;         /* the console log's count then (actions land there) */
	struct hist_line hist[HIST_MAX], acts[HIST_MAX];
	int nhist, nacts;
	char why[160];             /* why there is no history ("" when read) */
};

static void *job_init(struct console *c)
{
	struct jobp *p = xcalloc(1, sizeof *p);

	p->c = c;
	return p;
}

static void job_free(void *st)
{
	free(st);
}

/* ---- the log: state history and actions ---- */

struct reading {
	struct hist_line *lines;
	int *n;
	char last[200];
};

static void keep(struct reading *r, const char *when, const char *text)
{
	if (!strcmp(text, r->last))
		return;   /* the same again: not news */
	snprintf(r->last, sizeof r->last, "%s", text);
	if (*r->n == HIST_MAX) {   /* keep the newest */
		memmove(r->lines, r->lines + 1, sizeof *r->lines * (HIST_MAX - 1));
		(*r->n)--;
	}
	r->lines[*r->n].time = when ? strtoll(when, NULL, 10) : 0;
	snprintf(r->lines[*r->n].text, sizeof r->lines[*r->n].text, "%s", text);
	(*r->n)++;
}

/* A job event (time, state or NULL when it left the queue, nodes). */
static int add_state(void *ctx, int ncols, char **names, char **values)
{
	char text[200];
	int st = values[1] ? atoi(values[1]) : -1;

	(void)names;
	if (ncols < 3)
		return 0;
	if (!values[1])
		snprintf(text, sizeof text, "left the queue");
	else
		snprintf(text, sizeof text, "%s  %s", st >= 0 && st < JOB_STATE_COUNT ? job_state_name(st) : "?",
			 values[2] && values[2][0] ? values[2] : "(no nodes)");
	keep(ctx, values[0], text);
	return 0;
}

/* An action's latest phase (time, verb, status, detail). */
static int add_action(void *ctx, int ncols, char **names, char **values)
{
	char text[200];

	(void)names;
	if (ncols < 4)
		return 0;
	snprintf(text, sizeof text, "%s  %s  %s", values[1] ? values[1] : "", values[2] ? values[2] : "",
		 values[3] ? values[3] : "");
	keep(ctx, values[0], text);
	return 0;
}

static void read_log(struct jobp *p, uint32_t id)
{
	struct myriad *app = p->c->app;
	struct reading r;
	char sql[640], *err = NULL;

	p->nhist = p->nacts = 0;
	p->why[0] = '\0';
	snprintf(sql, sizeof sql,
		 "SELECT time, CASE type WHEN 'job' THEN json_extract(data, '$.state') END, "
		 "json_extract(data, '$.nodes') FROM events WHERE type IN ('job', 'job_end') "
		 "AND json_extract(data, '$.id') = %u AND time <= %lld ORDER BY id", id, (long long)app->now);
	r = (struct reading){p->hist, &p->nhist, ""};
	if (store_query(app, sql, add_state, &r, &err) == 0) {
		snprintf(sql, sizeof sql,
			 "SELECT time, verb, status, substr(detail, 1, 120) FROM actions WHERE id IN "
			 "(SELECT max(id) FROM actions WHERE target = '%u' AND verb LIKE 'job %%' AND time <= %lld "
			 "GROUP BY action) ORDER BY id", id, (long long)app->now);
		r = (struct reading){p->acts, &p->nacts, ""};
		store_query(app, sql, add_action, &r, &err);
	}
	if (err)
		snprintf(p->why, sizeof p->why, "%s", err);
	free(err);
	p->read_for = id;
	p->read_at = mono_us();
	p->read_now = app->now;
	p->read_seq = p->c->log_seq;
}

static void refresh(struct jobp *p, uint32_t id)
{
	int moved = p->read_now != p->c->app->now;

	if (p->read_for != id || p->read_now > p->c->app->now || p->read_seq != p->c->log_seq ||
	    (moved && (!p->nhist || mono_us() - p->read_at > HIST_REFRESH_US)))
		read_log(p, id);
}

/* ---- drawing ---- */

static int gpu_role(const struct model *m, const uint8_t *gs, int32_t g)
{
	int32_t u = m->met[MET_UTIL][g];

	if (gs[g] != GS_OK)
		return gpu_state_role(gs[g]);
	return u == MET_UNKNOWN ? R_GPU_NONE : R_HEAT0 + MIN(HEAT_LEVELS - 1, u * HEAT_LEVELS / 100);
}

static int header(const struct view *v, const struct model *m, const struct job *jb)
{
	char age[32], detail[400];

	fmt_duration(jb->start_time ? m->time - jb->start_time : m->time - jb->submit_time, age, sizeof age);
	snprintf(detail, sizeof detail, "%u  %s  %s  %s %s  %s  %d GPUs on %d nodes  %s", jb->id, jb->user, jb->name,
		 job_state_name(jb->state), age, jb->partition, jb->gpus, jb->nnodes, jb->nodes ? jb->nodes : "");
	draw_title(v, "Job", detail);
	view_text(v, 0, 1, -1, R_DIM, "r reroute  c checkpoint  Enter its worst node  Esc back");
	return 3;
}

/* Its nodes, a cell each: '!' when the node has open faults, the name, a
 * block per GPU the job holds, a dot for one it does not. */
static int gpu_map(struct jobp *p, const struct view *v, int y, const struct job *jb)
{
	const struct model *m = &p->c->app->model;
	const uint8_t *gs = gpu_states(p->c);
	int gpn = m->gpus_per_node, namew = 4, cellw, cols;

	for (int32_t k = 0; k < jb->nnodes; k++)
		namew = MAX(namew, MIN(24, (int)strlen(m->nodes[jb->node_idx[k]].name)));
	cellw = 1 + namew + 1 + gpn + 2;
	cols = MAX(1, (v->w - 1) / cellw);

	view_text(v, 0, y++, -1, R_COLHEAD, "GPUs  (utilization; fault, drained, stale, down in their colours)");
	if (!jb->nnodes)
		view_text(v, 1, y++, -1, R_DIM, "none yet: the job is not running");
	for (int32_t k = 0; k < jb->nnodes; k++) {
		int32_t ni = jb->node_idx[k];
		const struct node *n = &m->nodes[ni];
		int x = 1 + (k % cols) * cellw, row = y + k / cols;

		view_text(v, x, row, 1, R_ERROR, n->open_faults ? "!" : " ");
		view_field(v, x + 1, row, namew, 0, n->open_faults ? R_ERROR : R_NORMAL, n->name);
		for (int g = 0; g < gpn; g++) {
			int mine = (jb->gpu_mask >> g) & 1;

			view_cell(v, x + 2 + namew + g, row, mine ? 0x2588 : 0xB7,
				  mine ? gpu_role(m, gs, model_gpu(m, ni, g)) : R_DIM, 0);
		}
	}
	return y + (jb->nnodes + cols - 1) / cols + 1;
}

static int faults(struct jobp *p, const struct view *v, int y, const struct job *jb)
{
	const struct model *m = &p->c->app->model;
	int shown = 0;

	view_text(v, 0, y++, -1, R_COLHEAD, "Open faults on its nodes");
	for (int32_t i = m->nfaults - 1; i >= 0 && shown < 8; i--) {
		const struct fault *f = &m->faults[i];
		char when[16];
		int32_t k;

		if (f->close_time || f->node < 0)
			continue;
		for (k = 0; k < jb->nnodes && jb->node_idx[k] != f->node; k++)
			;
		if (k == jb->nnodes)
			continue;
		fmt_clock(f->time, when, sizeof when);
		view_textf(v, 1, y++, -1, severity_role(f->severity), "%s  %-8s gpu %-2d %s", when,
			   m->nodes[f->node].name, f->gpu, f->text);
		shown++;
	}
	if (!shown)
		view_text(v, 1, y++, -1, R_DIM, "none");
	return y + 1;
}

static int lines(const struct view *v, int y, const char *title, const struct hist_line *l, int n, const char *why)
{
	char when[16];

	view_text(v, 0, y++, -1, R_COLHEAD, title);
	if (why[0])
		view_text(v, 1, y++, -1, R_DIM, why);
	else if (!n)
		view_text(v, 1, y++, -1, R_DIM, "none recorded");
	for (int i = 0; i < n; i++) {
		fmt_clock(l[i].time, when, sizeof when);
		view_textf(v, 1, y++, -1, R_NORMAL, "%s  %s", when, l[i].text);
	}
	return y + 1;
}

static void job_draw(void *st, const struct view *v)
{
	struct jobp *p = st;
	const struct model *m = &p->c->app->model;
	const struct job *jb = p->c->job_sel ? model_job(m, p->c->job_sel) : NULL;
	struct view sv = *v;
	int y;

	if (!p->c->job_sel) {
		view_text(v, 0, 0, -1, R_DIM, "no job selected: Enter on a job in the jobs panel");
		return;
	}
	if (!jb) {
		view_textf(v, 0, 0, -1, R_DIM, "job %u is not in the queue (any more)", p->c->job_sel);
		return;
	}
	refresh(p, jb->id);
	p->scroll = MAX(0, p->scroll);
	sv.sy = p->scroll;
	y = header(&sv, m, jb);
	y = gpu_map(p, &sv, y, jb);
	y = faults(p, &sv, y, jb);
	y = lines(&sv, y, "State history (from the log)", p->hist, p->nhist, p->why);
	lines(&sv, y, "Actions on it (from the log, latest phase)", p->acts, p->nacts, p->why);
}

/* Its node with open faults, else its first node; -1 if it has none. */
static int32_t worst_node(const struct model *m, const struct job *jb)
{
	for (int32_t k = 0; k < jb->nnodes; k++)
		if (m->nodes[jb->node_idx[k]].open_faults)
			return jb->node_idx[k];
	return jb->nnodes ? jb->node_idx[0] : -1;
}

static int job_key(void *st, enum panel_cmd a)
{
	struct jobp *p = st;
	const struct job *jb = p->c->job_sel ? model_job(&p->c->app->model, p->c->job_sel) : NULL;

	switch (a) {
	case PC_DOWN: p->scroll++; return 1;
	case PC_UP: p->scroll = MAX(0, p->scroll - 1); return 1;
	case PC_PGDN: p->scroll += 10; return 1;
	case PC_PGUP: p->scroll = MAX(0, p->scroll - 10); return 1;
	case PC_TOP: p->scroll = 0; return 1;
	case PC_SELECT:
		if (jb && worst_node(&p->c->app->model, jb) >= 0)
			console_show_node(p->c, worst_node(&p->c->app->model, jb));
		return 1;
	default: return 0;
	}
}

static int job_target(void *st, struct target *t)
{
	struct jobp *p = st;

	if (!p->c->job_sel || !model_job(&p->c->app->model, p->c->job_sel))
		return 0;
	t->job = p->c->job_sel;
	return 1;
}

const struct panel_ops panel_job = {
	.name = "job",
	.title = "Job",
	.short_title = "Job",
	.help = "one job: its GPUs on a map of its nodes, their faults, its history and actions",
	.init = job_init,
	.free = job_free,
	.draw = job_draw,
	.key = job_key,
	.target = job_target,
};
