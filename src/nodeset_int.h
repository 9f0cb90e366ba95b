/*
 * nodeset_int.h - what nodeset.c (the sets: storage, algebra, fold) and
 * nodeset_parse.c (the syntax) share. Not for use outside those two files.
 */
#ifndef MYRIAD_NODESET_INT_H
#define MYRIAD_NODESET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nodeset.h"
#include "util.h"

#define MAX_DIGITS 18              /* indexes stay below 10^18 */
#define PARSE_BUDGET (1ULL << 17)  /* expansion work one nodeset_parse may do */

enum op { OP_UNION, OP_INTER, OP_DIFF, OP_XOR };

struct range {
	uint64_t lo, hi;
};

struct rset {
	struct range *r;   /* sorted, disjoint, not adjacent (once normalized) */
	size_t n, cap;
};

struct pattern {
	char *prefix, *suffix;
	int width;         /* -1: no index, 0: unpadded, >= 2: zero padded */
	struct rset rs;    /* {0, 0} when width is -1 */
};

struct nodeset {
	struct pattern *p; /* sorted by prefix, suffix, width */
	size_t n, cap;
};

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_namechar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '-' || c == '_' || c == '.' || c == ':';
}

static inline bool is_op(char c)
{
	return c == ',' || c == '!' || c == '&' || c == '^';
}

static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void nsi_rs_append(struct rset *s, uint64_t lo, uint64_t hi);
void nsi_rs_normalize(struct rset *s);
uint64_t nsi_rs_count(const struct rset *s);
struct pattern *nsi_ns_grow(struct nodeset *ns);
void nsi_pat_copy(struct pattern *dst, const struct pattern *src);
void nsi_ns_combine(struct nodeset *dst, const struct nodeset *src, enum op op);
void nsi_ns_apply(struct nodeset *dst, const struct nodeset *src, enum op op);
void nsi_raw_add(struct nodeset *ns, const char *pre, size_t plen, const char *suf,
		    size_t slen, int width, uint64_t lo, uint64_t hi);
void nsi_raw_add_name(struct nodeset *ns, const char *s, size_t len);
void nsi_ns_normalize(struct nodeset *ns);
void nsi_add_index(struct sbuf *b, uint64_t v, int width);

#endif
