/*
 * jtape.h - a strict JSON reader for large documents read one value at a
 * time: a value (a record of a document, as it arrives) is read into a flat
 * tape of tokens, then looked at through a small DOM (objects by key,
 * arrays in order, strings unescaped on demand).
 *
 * It accepts exactly what jansson's json_loadb(JSON_REJECT_DUPLICATES)
 * accepts (RFC 8259; valid UTF-8; no \u0000; integers that fit int64_t;
 * reals that do not overflow; no duplicate key in any object; nesting up to
 * 2048), and reads the same values; what it refuses, jansson refuses too,
 * so a caller may ask jansson why (its messages are the ones users see).
 * A value that runs past the end of the bytes so far is "more": read it
 * again from its start once more bytes are there.
 */
#ifndef MYRIAD_PROBE_JTAPE_H
#define MYRIAD_PROBE_JTAPE_H

#include <stddef.h>
#include <stdint.h>
#include "../util.h"

enum jt_type { JT_NULL, JT_FALSE, JT_TRUE, JT_INT, JT_REAL, JT_STR, JT_ARR, JT_OBJ };
enum { JT_OK = 0, JT_MORE = 1, JT_BAD = -1 };
#define JT_MAX_DEPTH 2048        /* jansson's JSON_PARSER_DEFAULT_DEPTH */

struct jt_tok {
	uint8_t type;                 /* enum jt_type */
	uint8_t esc;                  /* a string with escapes */
	uint32_t next;                /* the token after this value and all it holds */
	uint32_t n;                   /* members of an object, elements of an array */
	uint32_t off, len;            /* a string's bytes between the quotes, a number's text; an object: its key slots */
	uint32_t hash;                /* a key's hash */
	int64_t i;                    /* an integer */
};

struct jtape {
	const char *src;              /* the bytes the tokens point into */
	struct jt_tok *tok;
	uint32_t ntok, cap;
	uint32_t *slots;              /* objects' key tables (open addressing, token indexes) */
	uint32_t nslots, slots_cap;
	struct arena strs;            /* unescaped strings, NUL-terminated copies */
	char num[64];                 /* scratch for a real's text */
};

void jt_free(struct jtape *t);
/* Reads the value starting at or after src[*pos] (whitespace first) into a
 * fresh tape; on JT_OK *pos is just past it. depth: the nesting of the
 * value's container (0 for a whole document). final: no more bytes will
 * come (the end of the bytes ends the value instead of waiting). */
int jt_read(struct jtape *t, const char *src, size_t *pos, size_t end, int depth, int final);

/* ---- the DOM: a value is a token index, -1 for none ---- */

static inline int jt_type(const struct jtape *t, int v)
{
	return v < 0 ? -1 : t->tok[v].type;
}
static inline int jt_is_obj(const struct jtape *t, int v) { return jt_type(t, v) == JT_OBJ; }
static inline int jt_is_arr(const struct jtape *t, int v) { return jt_type(t, v) == JT_ARR; }
static inline int jt_is_str(const struct jtape *t, int v) { return jt_type(t, v) == JT_STR; }
static inline int jt_is_int(const struct jtape *t, int v) { return jt_type(t, v) == JT_INT; }
static inline int jt_is_null(const struct jtape *t, int v) { return jt_type(t, v) == JT_NULL; }
static inline int jt_is_bool(const struct jtape *t, int v)
{
	return jt_type(t, v) == JT_TRUE || jt_type(t, v) == JT_FALSE;
}
static inline int jt_is_true(const struct jtape *t, int v) { return jt_type(t, v) == JT_TRUE; }
static inline int64_t jt_int(const struct jtape *t, int v) { return t->tok[v].i; }
/* Elements (or members) of a container; 0 for anything else. */
static inline uint32_t jt_size(const struct jtape *t, int v)
{
	return v >= 0 && (t->tok[v].type == JT_ARR || t->tok[v].type == JT_OBJ) ? t->tok[v].n : 0;
}
/* An array's first element, and the element after v. */
static inline int jt_first(const struct jtape *t, int arr) { return jt_size(t, arr) ? arr + 1 : -1; }
static inline int jt_after(const struct jtape *t, int v) { return (int)t->tok[v].next; }
#define jt_foreach(t, arr, i, v) \
	for ((i) = 0, (v) = jt_first(t, arr); (i) < jt_size(t, arr); (i)++, (v) = (i) < jt_size(t, arr) ? jt_after(t, v) : -1)

/* The value of key in object obj, -1 if obj is not an object or lacks it. */
int jt_get(const struct jtape *t, int obj, const char *key);
/* A number's value as a double (strtod of its text, as jansson reads it);
 * 0 for anything else. */
double jt_real(struct jtape *t, int v);
/* A string's text, unescaped and NUL-terminated (in the tape's arena);
 * NULL if v is not a string. */
const char *jt_str(struct jtape *t, int v);

#endif
