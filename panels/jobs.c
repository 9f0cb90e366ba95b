/*
 * jobs.c - the scheduler's jobs: id, user, name, nodes (folded), GPUs,
 * state, runtime, and a mark when any of its nodes is faulted (!) or drained
 * (D). Names and users come from outside: they are drawn by display width,
 * so a CJK name keeps every column aligned. Sort with s/S, filter with /,
 * f for jobs on faulted nodes only; r reroutes, c checkpoints.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "ui/ui_int.h"
#include "ui/filter.h"

enum { J_ID, J_RUNTIME, J_GPUS, J_USER, J_NAME, J_STATE, J_COUNT };
static const char *const sort_names[J_COUNT] = {"id", "runtime", "gpus", "user", "name", "state"};

struct jobs {
	struct console *c;
	struct list l;
	int sort, reverse, faulted_only;
	char filter[128];
	struct node_filter nodes;  /* the filter read as nodes (a nodeset or text) */
	int32_t *rows;
	int cap;
	uint32_t sel;
	const struct model *m;
};

static struct jobs *sorting;

static void *jobs_init(struct console *c)
{
	struct jobs *j = xcalloc(1, sizeof *j);

	j->c = c;
	j->reverse = 0;
	return j;
}

static void jobs_free(void *st)
{
	struct jobs *j = st;

	filter_done(&j->nodes);
	free(j->rows);
	free(j);
}

/* '!' if a node of the job has an open fault, 'D' if one is drained or down. */
static char job_mark(const struct model *m, const struct job *jb)
{
	char mark = ' ';

	for (int32_t k = 0; k < jb->nnodes; k++) {
		const struct node *n = &m->nodes[jb->node_idx[k]];

		if (n->open_faults)
			return '!';
		if (node_is_drained(n) || node_down(n))
			mark = 'D';
	}
	return mark;
}

static int matches(const struct jobs *js, const struct model *m, const struct job *jb)
{
	char id[16];

	if (!jb->id)
		return 0;
	if (js->faulted_only && job_mark(m, jb) == ' ')
		return 0;
	if (!js->filter[0])
		return 1;
	if (js->nodes.is_set) {   /* a job on any of the set's nodes */
		for (int32_t k = 0; k < jb->nnodes; k++)
			if (filter_node(&js->nodes, jb->node_idx[k]))
				return 1;
		return 0;
	}
	snprintf(id, sizeof id, "%u", jb->id);
	return strstr(id, js->filter) || strcasestr(jb->user, js->filter) || strcasestr(jb->name, js->filter) ||
	       (jb->nodes && strcasestr(jb->nodes, js->filter)) ||
	       strcasestr(job_state_name(jb->state), js->filter) || strcasestr(jb->partition, js->filter);
}

static void no_match(const struct jobs *js, const struct view *v)
{
	char line[300];

	if (js->nodes.error[0])
		snprintf(line, sizeof line, "%s", js->nodes.error);
	else if (js->filter[0])
		snprintf(line, sizeof line, "no job matches %s%s", js->filter, js->faulted_only ? " on a faulted node" : "");
	else
		snprintf(line, sizeof line, "%s", js->faulted_only ? "no job on a faulted node" : "no jobs");
	view_text(v, 2, 3, -1, R_DIM, line);
}

static int cmp_jobs(const void *pa, const void *pb)
{
	const struct jobs *js = sorting;
	const struct job *a = &js->m->jobs[*(const int32_t *)pa], *b = &js->m->jobs[*(const int32_t *)pb];
	int r = 0;

	switch (js->sort) {
	case J_RUNTIME: r = (a->start_time > b->start_time) - (a->start_time < b->start_time); break;
	case J_GPUS: r = b->gpus - a->gpus; break;
	case J_USER: r = strcmp(a->user, b->user); break;
	case J_NAME: r = strcmp(a->name, b->name); break;
	case J_STATE: r = a->state - b->state; break;
	default: break;
	}
	if (!r)
		r = (a->id > b->id) - (a->id < b->id);
	return js->reverse ? -r : r;
}

static void build(struct jobs *js)
{
	const struct model *m = &js->c->app->model;

	if (js->cap < m->njobs + 1) {
		js->cap = m->njobs + 64;
		js->rows = xrealloc(js->rows, sizeof *js->rows * (size_t)js->cap);
	}
	js->l.n = 0;
	filter_read(&js->nodes, m, js->filter);
	for (int32_t i = 0; i < m->njobs; i++)
		if (matches(js, m, &m->jobs[i]))
			js->rows[js->l.n++] = i;
	js->m = m;
	sorting = js;
	qsort(js->rows, (size_t)js->l.n, sizeof *js->rows, cmp_jobs);
	sorting = NULL;
	for (int i = 0; i < js->l.n; i++)
		if (m->jobs[js->rows[i]].id == js->sel) {
			js->l.cur = i;
			break;
		}
}

static void draw_row(struct jobs *js, const struct view *v, int y, int i, int namew, int nodew)
{
	const struct model *m = &js->c->app->model;
	const struct job *jb = &m->jobs[js->rows[i]];
	char buf[48], mark = job_mark(m, jb);
	int x = 0, role = jb->state == JOB_RUNNING ? R_NORMAL : R_DIM;

	view_field(v, x, y, 1, 0, mark == '!' ? R_ERR : R_INFO, (char[]){mark, 0});
	x += 2;
	fmt_fit_u64(jb->id, "", 10, buf, sizeof buf);   /* 2^32 is 10 digits: never shortened */
	x += view_field(v, x, y, 10, 1, role, buf) + 2;
	x += view_field(v, x, y, 12, 0, role, jb->user) + 1;
	x += view_field(v, x, y, namew, 0, role, jb->name) + 1;
	fmt_fit(jb->nnodes, 0, "", 5, buf, sizeof buf);
	x += view_field(v, x, y, 5, 1, role, buf) + 1;
	if (nodew)   /* narrow screens leave the node list to the node panel */
		x += view_field(v, x, y, nodew, 0, role, jb->nodes && jb->nodes[0] ? jb->nodes : "(pending)") + 1;
	if (jb->gpus < 0)   /* Slurm did not say */
		snprintf(buf, sizeof buf, "?");
	else
		fmt_fit(jb->gpus, 0, "", 6, buf, sizeof buf);
	x += view_field(v, x, y, 6, 1, role, buf) + 1;
	x += view_field(v, x, y, 10, 0, jb->state == JOB_RUNNING ? R_GOOD : R_DIM, job_state_name(jb->state)) + 1;
	if (jb->start_time && jb->state == JOB_RUNNING)
		fmt_duration(m->time - jb->start_time, buf, sizeof buf);
	else
		buf[0] = '\0';
	view_field(v, x, y, 9, 1, role, buf);
	if (i == js->l.cur)
		view_recolor(v, 2, y, v->w - 2, R_SELECTED);
}

static void jobs_draw(void *st, const struct view *v)
{
	struct jobs *js = st;
	const struct model *m = &js->c->app->model;
	int fixed = 2 + 12 + 13 + 6 + 7 + 11 + 9 + 2, flex = MAX(16, v->w - fixed);
	int namew = v->w < 110 ? flex - 1 : MIN(40, flex * 2 / 5), nodew = v->w < 110 ? 0 : flex - namew - 1;
	int rows = MAX(1, v->h - 2);
	int running = 0, pending = 0, faulted = 0, unknown = 0;
	long gpus = 0;
	char title[200], g[32];

	build(js);
	for (int32_t i = 0; i < m->njobs; i++) {
		const struct job *jb = &m->jobs[i];

		if (!jb->id)
			continue;
		running += jb->state == JOB_RUNNING;
		pending += jb->state == JOB_PENDING;
		gpus += jb->state == JOB_RUNNING ? MAX(jb->gpus, 0) : 0;
		unknown += jb->state == JOB_RUNNING && jb->gpus < 0;
		faulted += jb->state == JOB_RUNNING && job_mark(m, jb) == '!';
	}
	fmt_count(gpus, g, sizeof g);
	if (unknown)   /* some job's count is unknown: at least that many */
		snprintf(g + strlen(g), sizeof g - strlen(g), "+?");
	snprintf(title, sizeof title, "%d running on %s GPUs, %d pending, %d on faulted nodes   sort %s%s (s S)   "
		 "faulted only %s (f)", running, g, pending, faulted, sort_names[js->sort], js->reverse ? " reversed" : "",
		 js->faulted_only ? "on" : "off");
	draw_title(v, "Jobs", title);
	{
		static const char *const heads[] = {"job", "user", "name", "nodes", "nodelist", "gpus", "state", "runtime"};
		const int w[] = {10, 12, namew, 5, nodew, 6, 10, 9}, right[] = {1, 0, 0, 1, 0, 1, 0, 1};
		int x = 2;

		view_fill(v, 0, 1, v->w, ' ', R_COLHEAD);
		for (int i = 0; i < 8; i++)
			if (w[i])
				x += view_field(v, x, 1, w[i], right[i], R_COLHEAD, heads[i]) + (i == 0 ? 2 : 1);
	}
	list_fix(&js->l, rows);
	if (js->l.n)
		js->sel = m->jobs[js->rows[js->l.cur]].id;
	else
		no_match(js, v);
	for (int i = js->l.top; i < js->l.n && i < js->l.top + rows; i++)
		draw_row(js, v, 2 + i - js->l.top, i, namew, nodew);
}

static int jobs_key(void *st, enum panel_cmd a)
{
	struct jobs *js = st;
	const struct model *m = &js->c->app->model;

	if (list_key(&js->l, a, js->c->h - 6)) {
		if (js->l.n)
			js->sel = m->jobs[js->rows[js->l.cur]].id;
		return 1;
	}
	switch (a) {
	case PC_SORT_NEXT: js->sort = (js->sort + 1) % J_COUNT; return 1;
	case PC_SORT_REVERSE: js->reverse = !js->reverse; return 1;
	case PC_FAULTED_ONLY: js->faulted_only = !js->faulted_only; return 1;
	case PC_SELECT:
		if (js->sel)
			console_show_job(js->c, js->sel);
		return 1;
	default: return 0;
	}
}

static void jobs_filter(void *st, const char *text)
{
	struct jobs *js = st;

	snprintf(js->filter, sizeof js->filter, "%s", text);
}

static int jobs_target(void *st, struct target *t)
{
	struct jobs *js = st;

	if (!js->sel || !model_job(&js->c->app->model, js->sel))
		return 0;
	t->job = js->sel;
	return 1;
}

static void jobs_click(void *st, int x, int y)
{
	struct jobs *js = st;

	(void)x;
	if (y >= 2 && js->l.top + y - 2 < js->l.n) {
		js->l.cur = js->l.top + y - 2;
		js->sel = js->c->app->model.jobs[js->rows[js->l.cur]].id;
	}
}

const struct panel_ops panel_jobs = {
	.name = "jobs",
	.title = "Jobs",
	.short_title = "Jobs",
	.help = "the scheduler's jobs; ! marks one with a faulted node",
	.init = jobs_init,
	.free = jobs_free,
	.draw = jobs_draw,
	.key = jobs_key,
	.filter = jobs_filter,
	.target = jobs_target,
	.click = jobs_click,
};
