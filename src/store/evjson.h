/*
 * evjson.h - an event's fields as a JSON object, both ways: the payload of
 * the log's `events` table and the lines of `myriad log export --format
 * jsonl`. Lossless: integers exact, doubles printed with 17 digits (NaN and
 * infinities as the strings "nan", "inf", "-inf"), strings that are not
 * valid UTF-8 as {"hex":"..."}; decoding an encoded event gives back every
 * field bit for bit.
 */
#ifndef MYRIAD_STORE_EVJSON_H
#define MYRIAD_STORE_EVJSON_H

#include "../event.h"
#include "../util.h"

/* Appends the payload object of ev (its type-specific fields; not type,
 * time or source). */
void evjson_encode(struct sbuf *b, const struct event *ev);
/* Fills ev->u from a payload for ev->type; strings are allocated in a.
 * 0, or -1 if the text is not a payload of that type. */
int evjson_decode(struct event *ev, const char *json, size_t len, struct arena *a);
/* The bytes a string that is not UTF-8 was written as ({"hex":"..."}),
 * from the hex text s, NUL-terminated in a; NULL if s is not hex. */
const char *evjson_unhex(const char *s, struct arena *a);
/* Copies the strings ev borrows (source included) into a. */
void evjson_own(struct event *ev, struct arena *a);



#endif
