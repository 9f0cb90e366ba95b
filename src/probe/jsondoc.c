/*
 * jsondoc.c - JSON documents read without a malloc per value (jsondoc.h).
 *
 * sinfo --json for 12,800 nodes is millions of JSON values: allocated and
 * freed one by one they cost about as much as reading them (malloc, free,
 * glibc consolidating its fast bins). While a document is read, jansson
 * takes its memory from an arena, all of it taken back at once when the
 * document is done: the tree is neither freed value by value nor walked.
 * The arena keeps its blocks for the next document. The records' callbacks
 * copy what they keep, so nothing made from the document outlives it.
 */
#include "jsondoc.h"
#include "../util.h"

static struct arena mem;
static json_malloc_t prev_malloc;
static json_free_t prev_free;
static int open_doc;

static void *doc_alloc(size_t n)
{
	return arena_alloc(&mem, n);
}

static void doc_free(void *p)
{
	(void)p;   /* the arena goes at once */
}

json_t *jsondoc_load(const char *json, size_t len, char **err)
{
	json_error_t je;
	json_t *root;

	if (!json) {
		*err = xstrdup("no input");
		return NULL;
	}
	json_get_alloc_funcs(&prev_malloc, &prev_free);
	json_set_alloc_funcs(doc_alloc, doc_free);
	open_doc = 1;
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		*err = xasprintf("not JSON (line %d, column %d)", je.line, je.column);
		jsondoc_done();
		return NULL;
	}
	if (!json_is_object(root)) {
		*err = xstrdup("not a JSON object");
		jsondoc_done();
		return NULL;
	}
	return root;
}

void jsondoc_done(void)
{
	if (!open_doc)
		return;
	open_doc = 0;
	json_set_alloc_funcs(prev_malloc, prev_free);
	arena_reset(&mem);
}

void jsondoc_release(void)
{
	if (!open_doc)
		arena_free(&mem);
}
