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

/* Parses text and adds it to ns. On a syntax error returns -1 and sets *err to
 * a malloc'd message naming the 1-based position: "position 5: expected ']'".
 * groups may be NULL (then @group is an error). */
int nodeset_parse(struct nodeset *ns, const char *text, nodeset_group_fn groups, void *ctx, char **err);
/* Convenience: a new set from text, or NULL with *err set. */
struct nodeset *nodeset_from(const char *text, char **err);

int nodeset_add(struct nodeset *ns, const char *name);   /* one plain name */
int nodeset_contains(const struct nodeset *ns, const char *name);
size_t nodeset_count(const struct nodeset *ns);

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
