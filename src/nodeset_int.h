/*
 * nodeset_int.h - what the nodeset files share: nodeset.c (storage, set
 * algebra, single names), nodeset_ranges.c (keys, range sets),
 * nodeset_parse.c (the syntax), nodeset_fold.c and nodeset_boxes.c (fold and
 * iteration) and nodeset_pick.c (index, slice, split, contiguous runs). Not
 * for use outside them.
 *
 * The model is ClusterShell 1.9's. A name is a pattern and a vector of
 * indexes: every run of up to 18 digits is one index, the rest is the
 * pattern, written with "%s" where the indexes go: "gpu0007-ib3" is
 * ("gpu%s-ib%s", "0007", "3"). An index is a digit string; "1", "01" and
 * "001" are different indexes. It is stored as a key, (length - 1) * 10^18 +
 * value, so keys order indexes as ClusterShell does (by length, then by
 * value: 1 2 01 10 001) and the indexes of one length are consecutive keys:
 * 0999 and 1000 are neighbours. Runs longer than 18 digits stay in the
 * pattern as text.
 *
 * A pattern of dim indexes keeps its names as rows: the first dim - 1 keys
 * (sorted, unique) and the set of last keys as ranges. One index: one row
 * with no keys; no index: one row whose range set is {0} ("present").
 * Additions go to an unsorted pending list first (fast one-at-a-time adds),
 * merged into the rows by nsi_flush() before anything reads the set.
 */
#ifndef MYRIAD_NODESET_INT_H
#define MYRIAD_NODESET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nodeset.h"
#include "util.h"

#define MAX_DIGITS 18                       /* an index has at most 18 digits */
#define KEY_SEG 1000000000000000000ULL      /* 10^18: keys of one index length */
#define PARSE_BUDGET (1ULL << 17)           /* expansion work one parse may do */
#define RANGE_LIMIT 1000000000ULL           /* ClusterShell: a range holds < 10^9 */

enum op { OP_UNION, OP_INTER, OP_DIFF, OP_XOR };

struct range {
	uint64_t lo, hi;
};

struct rset {
	struct range *r;   /* sorted, disjoint, not adjacent (once normalized) */
	size_t n, cap;
};

struct pattern {
	char *pat;         /* "gpu%s-ib%s"; no '%' otherwise */
	int dim;           /* number of "%s" */
	size_t n, cap;     /* rows */
	uint64_t *keys;    /* n * (dim - 1) keys when dim >= 2, sorted rows */
	struct rset *rs;   /* n: the last index's keys (dim 0: {0}) */
	uint64_t *pend;    /* unsorted additions: (dim - 1 keys, lo, hi) each */
	size_t npend, cappend;
};

struct nodeset {
	struct pattern *p; /* sorted by pat (strcmp, as ClusterShell sorts) */
	size_t n, cap;
	size_t last;       /* the pattern the last addition went to */
	bool dirty;        /* some pattern has pending additions */
};

extern const uint64_t nsi_p10[MAX_DIGITS + 1];

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

/* The whitespace ClusterShell strips (Python's, restricted to ASCII). */
static inline bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline int key_len(uint64_t k)
{
	return (int)(k / KEY_SEG) + 1;
}

static inline uint64_t key_val(uint64_t k)
{
	return k % KEY_SEG;
}

static inline uint64_t key_make(int len, uint64_t v)
{
	return (uint64_t)(len - 1) * KEY_SEG + v;
}

static inline size_t pat_kw(const struct pattern *p)
{
	return p->dim >= 2 ? (size_t)p->dim - 1 : 0;
}

/* The first keys of row r (NULL when the pattern has fewer than 2 indexes). */
static inline const uint64_t *row_keys(const struct pattern *p, size_t r)
{
	return p->keys ? p->keys + r * pat_kw(p) : NULL;
}

int nsi_ndigits(uint64_t v);
bool nsi_key_padded(uint64_t k);
size_t nsi_key_str(char *buf, uint64_t k);         /* buf: at least 20 bytes */
void nsi_add_key(struct sbuf *b, uint64_t k);

/* keys and range sets (nodeset_ranges.c) */
void nsi_rs_append(struct rset *s, uint64_t lo, uint64_t hi);
void nsi_rs_push(struct rset *s, uint64_t lo, uint64_t hi);  /* sorted append */
void nsi_rs_normalize(struct rset *s);
uint64_t nsi_rs_count(const struct rset *s);
size_t nsi_rs_find(const struct rset *s, uint64_t k);
int nsi_rs_cmp(const struct rset *a, const struct rset *b);
/* Adds the indexes lo..hi printed at least width digits wide, as keys. */
void nsi_rs_add_values(struct rset *s, uint64_t lo, uint64_t hi, int width);
void nsi_rs_op(struct rset *out, const struct rset *a, const struct rset *b, enum op op);
bool nsi_rs_within(const struct rset *a, const struct rset *b);

/* patterns and sets (nodeset.c) */
struct pattern *nsi_pattern(struct nodeset *ns, const char *pat, size_t len, int dim);
void nsi_pend(struct nodeset *ns, struct pattern *p, const uint64_t *keys, uint64_t lo, uint64_t hi);
void nsi_row_append(struct pattern *p, const uint64_t *keys, uint64_t lo, uint64_t hi);
void nsi_flush(const struct nodeset *ns);
void nsi_combine(struct nodeset *dst, const struct nodeset *src, enum op op);
/* A growable vector of keys, without malloc while it holds few. */
struct keyvec {
	uint64_t *k;
	size_t n, cap;
	uint64_t small[8];
};
void nsi_kv_init(struct keyvec *kv);
void nsi_kv_push(struct keyvec *kv, uint64_t key);
void nsi_kv_free(struct keyvec *kv);
/* Splits a name into its pattern (appended to pat) and keys (appended to
 * kv); the number of keys, or -1 if a digit run is beyond ClusterShell's
 * limit (1e100), with *bad (if not NULL) its offset. */
int nsi_name_scan(const char *s, size_t len, struct sbuf *pat, struct keyvec *kv, size_t *bad);

/* The slices of a range set as ClusterShell folds it (nodeset_fold.c):
 * runs of consecutive indexes with one padding, each whole ranges [a, b). */
struct slice {
	uint64_t lo, hi;
	size_t a, b;
};
struct slices {
	struct slice *sl;
	size_t n, cap;
};
void nsi_slices(const struct rset *s, struct slices *out);
void nsi_print_rset(struct sbuf *b, const struct rset *s);

/* A fold: the set as boxes, each the product of one range set per index
 * (nodeset_fold.c). Box x of pattern pi has its range sets at
 * ptrs[x.off .. x.off + dim); they belong to the set or to pool. */
struct box {
	size_t pi, off;
};
struct boxes {
	struct box *b;
	size_t n, cap;
	const struct rset **ptrs;
	size_t nptrs, capptrs;
	struct rset **pool;
	size_t npool, cappool;
};
void nsi_boxes(const struct nodeset *ns, struct boxes *out);
/* The range sets of box i (NULL if the boxes have no index at all). */
static inline const struct rset **box_dims(const struct boxes *bx, size_t i)
{
	return bx->ptrs ? bx->ptrs + bx->b[i].off : NULL;
}
void nsi_boxes_free(struct boxes *bx);
void nsi_print_box(struct sbuf *b, const struct nodeset *ns, const struct boxes *bx, size_t i);
/* Sorts n entries of stride words by their first nkey words (stable). */
void nsi_sort_entries(uint64_t *a, size_t n, size_t stride, size_t nkey);
/* The name of p with first keys k (dim - 1 of them) and last key last. */
void nsi_format_name(struct sbuf *b, const struct pattern *p, const uint64_t *k, uint64_t last);
/* Positions in ClusterShell's RangeSet syntax ("0-9/2,15") as plain values
 * (nodeset_parse.c). */
int nsi_parse_positions(const char *text, struct rset *out, char **err);

#endif
