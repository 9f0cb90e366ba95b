/*
 * evjson_ref.h - the jansson reference of the events' JSON reader
 * (evjson_ref.c).
 */
#ifndef MYRIAD_TEST_EVJSON_REF_H
#define MYRIAD_TEST_EVJSON_REF_H

#include "event.h"
#include "util.h"

/* evjson_decode as it was, with jansson: 0, or -1. */
int evjson_decode_ref(struct event *ev, const char *json, size_t len, struct arena *a);
/* 1 if the schema's fields of a and b hold the same values. */
int evjson_same_fields(const struct event *a, const struct event *b);

#endif
