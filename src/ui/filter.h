/*
 * filter.h - what the console's / filter selects (filter.c).
 */
#ifndef MYRIAD_UI_FILTER_H
#define MYRIAD_UI_FILTER_H

#include <stdint.h>
#include "model.h"

/* A filter's text reads one of two ways. As a nodeset when it has a
 * bracket, a comma or an @group (gpu[0100-0131], @su:3, @job:1001,
 * @state:drained), or is a node's exact name: it then selects exactly those
 * nodes, as a Tcl command given the same text would. Otherwise it is text
 * matched case-insensitively inside names, reasons, users and job names. */
struct node_filter {
	const char *text;          /* "" when there is no filter */
	int is_set;                /* text read as a nodeset */
	char error[160];           /* why a nodeset did not read ("" if it did) */
	uint8_t *mark;             /* per node: selected (is_set, and text marks) */
	int32_t nmark, marked;     /* entries; nodes selected */
};

/* Reads text against m (groups such as @job:ID follow the model, so call it
 * again when the model changed); fills f->mark. text must outlive f's use. */
void filter_read(struct node_filter *f, const struct model *m, const char *text);
void filter_done(struct node_filter *f);
/* Does text contain the filter's text (case-insensitive)? 0 for a nodeset. */
int filter_text(const struct node_filter *f, const char *text);
/* Is node i selected? (1 when there is no filter) */
static inline int filter_node(const struct node_filter *f, int32_t i)
{
	return !f->text || !f->text[0] || (i >= 0 && i < f->nmark && f->mark[i]);
}
/* "3 nodes", "no node matches gpu[9000]", "bad nodeset: ..." for a title. */
void filter_say(const struct node_filter *f, char *out, size_t size);

#endif
