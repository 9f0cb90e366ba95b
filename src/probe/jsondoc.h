/*
 * jsondoc.h - a JSON document read with jansson, its values taken from one
 * arena and given back at once (jsondoc.c). One document at a time.
 */
#ifndef MYRIAD_JSONDOC_H
#define MYRIAD_JSONDOC_H

#include <jansson.h>
#include <stddef.h>

/* The document, which must be an object; NULL with *err (malloc'd): "no
 * input", "not JSON (line L, column C)", "not a JSON object". Until
 * jsondoc_done(), jansson allocates from the document's arena: nothing else
 * may be made with jansson in between. */
json_t *jsondoc_load(const char *json, size_t len, char **err);
/* The document is done: all of its values go at once (no json_decref). */
void jsondoc_done(void);
/* The arena's blocks, kept for the next document, given back. */
void jsondoc_release(void);

#endif
