/*
 * filter.c - what the console's / filter selects: a nodeset when the text
 * reads as one (the same sets and @groups as the Tcl commands, through
 * model_group), otherwise text found inside names, reasons, users and job
 * names. Panels ask it which nodes are selected; each panel decides what a
 * row of its own (a job, a fault) has to do with them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "nodeset.h"
#include "ui/filter.h"

static int looks_like_set(const struct model *m, const char *text)
{
	return text[0] == '@' || strpbrk(text, "[,") || model_node_index(m, text) >= 0;
}

struct marking {
	const struct model *m;
	struct node_filter *f;
};

static int mark_name(void *ctx, const char *name)
{
	struct marking *k = ctx;
	int32_t i = model_node_index(k->m, name);

	if (i >= 0 && i < k->f->nmark && !k->f->mark[i]) {
		k->f->mark[i] = 1;
		k->f->marked++;
	}
	return 0;
}

static void mark(struct node_filter *f, int32_t i)
{
	if (!f->mark[i]) {
		f->mark[i] = 1;
		f->marked++;
	}
}

static void read_set(struct node_filter *f, const struct model *m)
{
	struct nodeset *ns = nodeset_new();
	struct marking k = {m, f};
	char *err = NULL;

	if (nodeset_parse(ns, f->text, model_group, (void *)m, &err) < 0)
		snprintf(f->error, sizeof f->error, "bad nodeset: %s", err ? err : "?");
	else
		nodeset_foreach(ns, mark_name, &k);
	free(err);
	nodeset_free(ns);
}

static void read_text(struct node_filter *f, const struct model *m)
{
	for (int32_t i = 0; i < m->nnodes; i++)
		if (filter_text(f, m->nodes[i].name) || filter_text(f, m->nodes[i].reason))
			mark(f, i);
	for (int32_t j = 0; j < m->njobs; j++) {
		const struct job *jb = &m->jobs[j];
		char id[16];

		if (!jb->id)
			continue;
		snprintf(id, sizeof id, "%u", jb->id);
		if (!strcmp(id, f->text) || filter_text(f, jb->user) || filter_text(f, jb->name))
			for (int32_t k = 0; k < jb->nnodes; k++)
				mark(f, jb->node_idx[k]);
	}
}

void filter_read(struct node_filter *f, const struct model *m, const char *text)
{
	f->text = text ? text : "";
	f->error[0] = '\0';
	f->marked = 0;
	f->is_set = f->text[0] && looks_like_set(m, f->text);
	if (f->nmark != m->nnodes) {
		free(f->mark);
		f->nmark = m->nnodes;
		f->mark = xcalloc((size_t)f->nmark + 1, 1);
	} else if (f->mark) {
		memset(f->mark, 0, (size_t)f->nmark);
	}
	if (!f->text[0])
		return;
	if (f->is_set)
		read_set(f, m);
	else
		read_text(f, m);
}

void filter_done(struct node_filter *f)
{
	free(f->mark);
	memset(f, 0, sizeof *f);
	f->text = "";
}

int filter_text(const struct node_filter *f, const char *text)
{
	return !f->is_set && f->text[0] && text && strcasestr(text, f->text) != NULL;
}

void filter_say(const struct node_filter *f, char *out, size_t size)
{
	if (!f->text[0])
		snprintf(out, size, "%s", "");
	else if (f->error[0])
		snprintf(out, size, "%s", f->error);
	else if (!f->marked)
		snprintf(out, size, "no node matches %s", f->text);
	else
		snprintf(out, size, "%d node%s", f->marked, f->marked == 1 ? "" : "s");
}
