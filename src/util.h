/*
 * util.h - small helpers every part of myriad uses: allocation that never
 * returns NULL, fatal errors that restore the terminal first, time, a growable
 * string buffer, a bump arena, a 64-bit hash and a seeded random generator.
 */
#ifndef MYRIAD_UTIL_H
#define MYRIAD_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* fatal prints the message, runs the registered hook (the console uses it to
 * restore the terminal) and exits with status 1. */
void fatal(const char *fmt, ...) PRINTF_LIKE(1, 2) __attribute__((noreturn));
void fatal_set_hook(void (*hook)(void));

/* Time is int64 microseconds since the Unix epoch, UTC, everywhere. */
#define US_PER_SEC ((int64_t)1000000)
int64_t wall_us(void);     /* CLOCK_REALTIME */
int64_t mono_us(void);     /* CLOCK_MONOTONIC */
int64_t cpu_us(void);      /* CPU time of this process */
/* ISO 8601 UTC, "2026-01-01T00:00:00Z" (fractional seconds dropped). */
void fmt_iso(int64_t us, char out[32]);
/* Parses "2026-01-01T00:00:00Z", "2026-01-01 00:00:00" (UTC) or a plain
 * number of seconds since the epoch. Returns 0 on success. */
int parse_iso(const char *s, int64_t *us);

/* Growable string buffer; s is always NUL-terminated when cap > 0. */
struct sbuf {
	char *s;
	size_t len, cap;
};
void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sbuf_vprintf(struct sbuf *b, const char *fmt, va_list ap);
void sbuf_reset(struct sbuf *b);
void sbuf_free(struct sbuf *b);
/* Length of the well-formed UTF-8 character at p (no overlong forms, no
 * surrogates, nothing past U+10FFFF), 0 if it is not one; 1 for ASCII. */
size_t utf8_len(const unsigned char *p);
/* Appends s as a JSON string literal, quotes included: valid JSON whatever
 * the bytes (controls and C1 escaped, bad UTF-8 as U+FFFD). */
void sbuf_json_str(struct sbuf *b, const char *s);

/* Bump allocator: many small allocations freed together. */
struct arena {
	struct arena_block *head;
	struct arena_block *spare;   /* blocks kept by reset, reused before malloc */
	size_t used;   /* bytes handed out since the last reset */
};
void *arena_alloc(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_reset(struct arena *a);   /* keeps its blocks for reuse */
void arena_free(struct arena *a);

/* FNV-1a, 64 bit: model hashes and name maps. */
#define HASH_INIT 0xcbf29ce484222325ULL
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
/* Not FNV: a hash of a large array, 32 bytes a step in four independent
 * lanes (model hashes of version 2 on: model.h; the model hash at 102,400
 * GPUs about 5 times faster, bench-store). */
uint64_t hash_block(uint64_t h, const void *p, size_t n);
typedef uint64_t (*hash_fn)(uint64_t h, const void *p, size_t n);
uint64_t hash_str(uint64_t h, const char *s);   /* includes the length */

/* splitmix64 seeded generator: deterministic across runs and machines. */
struct rng {
	uint64_t s;
};
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
double rng_unit(struct rng *r);                   /* [0, 1) */
uint32_t rng_below(struct rng *r, uint32_t n);    /* [0, n) */
double rng_normal(struct rng *r);                 /* mean 0, sd 1 */

/* Integer parsing that reports errors instead of guessing. */
int parse_i64(const char *s, size_t n, int64_t *out);   /* 0 on success */
/* A signal by name ("USR1", "SIGUSR1", "usr1") or number (1..64); -1 if
 * neither. sig_name gives the name Slurm's scancel takes ("USR1"), or the
 * number as text for one without a name (buf holds it). */
int sig_parse(const char *s);
const char *sig_name(int sig, char buf[8]);

#endif
