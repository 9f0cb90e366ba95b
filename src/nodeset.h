/*
 * nodeset.h - sets of node names in ClusterShell/Slurm syntax.
 *
 *   gpu[0001-1280]            a range; zero padding is kept ("gpu0001")
 *   gpu[0001-0032,0100]       several ranges and single indexes
 *   gpu[0001-0064/2]          a step
 *   gpu0001,login1,io[1-4]    any mix of prefixes, names without digits
 *   rack[1-2]-n[01-04]        several bracket groups: their cartesian product
 *   @su:3  @leaf:3.5  @rack:17  topology groups, resolved by a callback
 *   A!B  A&B  A^B             difference, intersection, symmetric difference,
 *                             left to right, like ClusterShell; "," is union
 *
 * Operators: ",", "!", "&" and "^" all have the same precedence and apply left
 * to right to what is accumulated so far, as in ClusterShell's "extended string
 * patterns": "a,b!b" is a, "a!b,b" is a and b, "n[1-9]&n[5-20],n30" is
 * n[5-9,30]. There are no parentheses.
 *
 * Names are letters, digits and "-_.:", and must not start with a digit (so a
 * bracket needs text before it: "[1-2]" is an error). Spaces may surround names
 * and operators but not split a name. Indexes have at most 18 digits. "" (or
 * only spaces) is the empty set; an empty name between operators is an error.
 *
 * Padding: a bracket's width is that of its first zero-padded number, as in
 * ClusterShell: "n[01-100]" is n01..n09, n10..n100 (numbers wider than the pad
 * print unpadded). Every number in that bracket must print the same way, so
 * "n[1-0100]", "n[1,01]" and "n[001-01]" are rejected ("n1,n01" is fine).
 * A name is keyed by its last run of digits: gpu0007 and gpu[0001-0006] fold
 * to gpu[0001-0007]; gpu1 and gpu0001 are different names; gpu1280 folds into
 * gpu[0001-1279] as gpu[0001-1280]. Several brackets give the cartesian product
 * and fold only along the last numeric field: "rack[1-2]-n[01-02]" folds to
 * "rack1-n[01-02],rack2-n[01-02]". Brackets whose digits run into other
 * digits ("a1[2-3]", "a[1-2]7", "a[1-2][0-1]") are expanded into names first,
 * so "a1[2-3]" folds to "a[12-13]" (ClusterShell rejects the last two). A name
 * whose last run of digits is longer than 18 is kept whole, without an index.
 * Fold prints one prefix and suffix unpadded first, then by width:
 * "gpu[1-5],gpu[0001-0009]".
 *
 * @group (the group may hold brackets: "@su:[1-2]") is resolved through the
 * callback, which gets an empty set to fill (a callback that parses group
 * definitions must guard against cycles itself); its error is reported as
 * "position N: <callback's message>". One parse may expand at most about
 * 10^5 names or stepped indexes; beyond that it fails ("nodeset is too large
 * to expand"). Plain ranges are not expanded, so "gpu[1-1000000000]" is cheap,
 * and a fold always parses back.
 *
 * Internally a set is a list of patterns (prefix, suffix, padding width) each
 * holding a sorted set of integer ranges, so 10,240 names fold fast.
 */
#ifndef MYRIAD_NODESET_H
#define MYRIAD_NODESET_H

#include <stddef.h>

struct nodeset;

/* Resolve a group name ("su:3", without the '@') into names added to out.
 * Returns 0, or -1 with *err set (malloc'd). */
typedef int (*nodeset_group_fn)(void *ctx, const char *group, struct nodeset *out, char **err);

struct nodeset *nodeset_new(void);
void nodeset_free(struct nodeset *ns);
void nodeset_clear(struct nodeset *ns);
struct nodeset *nodeset_copy(const struct nodeset *ns);

/* Parses text and adds it to ns. On a syntax error returns -1, leaves ns as it
 * was and sets *err (if err is not NULL) to a malloc'd message naming the
 * 1-based position: "position 5: expected ']'". On success *err is NULL.
 * groups may be NULL (then @group is an error). */
int nodeset_parse(struct nodeset *ns, const char *text, nodeset_group_fn groups, void *ctx, char **err);
/* Convenience: a new set from text, or NULL with *err set. */
struct nodeset *nodeset_from(const char *text, char **err);

/* One plain name, no brackets: 0, or -1 if it is not a valid name. */
int nodeset_add(struct nodeset *ns, const char *name);
/* 1 if name was in ns and is now removed, 0 if absent, -1 if invalid. */
int nodeset_remove(struct nodeset *ns, const char *name);
int nodeset_contains(const struct nodeset *ns, const char *name);
/* The number of names (SIZE_MAX if it would overflow). */
size_t nodeset_count(const struct nodeset *ns);
/* 1 if a and b hold the same names. */
int nodeset_equal(const struct nodeset *a, const struct nodeset *b);

void nodeset_union(struct nodeset *dst, const struct nodeset *src);
void nodeset_intersect(struct nodeset *dst, const struct nodeset *src);
void nodeset_difference(struct nodeset *dst, const struct nodeset *src);
void nodeset_xor(struct nodeset *dst, const struct nodeset *src);

/* The folded form, malloc'd: "gpu[0001-0004,0007],login1". Deterministic:
 * patterns sorted by prefix, suffix and width. "" for an empty set. */
char *nodeset_fold(const struct nodeset *ns);
/* Calls fn for every name in the same order as fold. Stops if fn returns nonzero
 * and returns that value. */
int nodeset_foreach(const struct nodeset *ns, int (*fn)(void *ctx, const char *name), void *ctx);

#endif
