/*
 * nodeset.h - sets of node names in ClusterShell 1.9's syntax, read as
 * ClusterShell reads it and folded as it folds, every number folded:
 *
 *   gpu[0001-1280]            a range; zero padding is kept ("gpu0001")
 *   gpu[0001-0032,0100]       several ranges and single indexes
 *   gpu[0001-0064/2]          a step
 *   n[1,03,05]                mixed padding: n1 n03 n05
 *   gpu0001,login1,io[1-4]    any mix of names, names without digits
 *   gpu[0001-1280]-ib[0-7]    several brackets: their cartesian product
 *   @su:3  @leaf:3.5  @rack:17  topology groups, resolved by a callback
 *   A!B  A&B  A^B             difference, intersection, symmetric difference,
 *                             left to right, like ClusterShell; "," is union
 *
 * Operators: ",", "!", "&" and "^" all have the same precedence and apply left
 * to right to what is accumulated so far, as in ClusterShell's "extended string
 * patterns": "a,b!b" is a, "a!b,b" is a and b, "n[1-9]&n[5-20],n30" is
 * n[5-9,30]. There are no parentheses.
 *
 * Names: letters, digits and "-_.:"; they may begin with a digit ("0cn",
 * "[1-2]" is 1 and 2). Whitespace (space, tab, newline, CR, VT, FF) may
 * surround the text, the names and operators, and the numbers inside a
 * bracket ("n[ 1 - 2 ]"), as ClusterShell strips it; it may not split a
 * name ("n 1" is an error where ClusterShell keeps the name "n 1"). "" (or
 * only whitespace) is the empty set; an empty name between operators is an
 * error.
 *
 * A name is a pattern and one index per run of digits (at most 18 digits;
 * longer runs are text): "gpu0007-ib3" is gpu%s-ib%s with 0007 and 3. An
 * index is its digits: gpu1 and gpu01 are different names. Brackets:
 * "lo-hi", "lo-hi/step", "n"; a zero-padded bound needs the other of the
 * same width ("n[01-100]" is an error, as in ClusterShell; "n[1-100]" and
 * "n[001-100]" are not); a range holds fewer than 10^9 indexes. Digits next
 * to a bracket join its numbers as text, ClusterShell's reading: "a1[2-3]"
 * is a[12-13], "prod-1[10-345]" is prod-[110-1345], "n[1-2]0" is n[10,20];
 * digits after a bracket with a step, and a bracket right after a bracket
 * or after its trailing digits ("n[1-4]0[3-4]", "n[1-2][3]") are errors.
 *
 * Order: patterns as ClusterShell sorts them (by text, "%s" for indexes),
 * then by the indexes, each by length and then value: n1 n2 n10 n01 n001.
 * The fold prints one bracket per index of a box, the shortest boxes found
 * (see nodeset_boxes.c): "gpu[0001-1280]-ib[0-7]", "n[1-2,01,10,001]"; with
 * one index it is ClusterShell's fold. It depends on the set only and parses
 * back to it (ranges of 10^9 indexes or more are cut).
 *
 * @group (the group may hold brackets: "@su:[1-2]") is resolved through the
 * callback, which gets an empty set to fill (a callback that parses group
 * definitions must guard against cycles itself); its error is reported as
 * "position N: <callback's message>". One parse may expand at most about
 * 10^5 names or stepped indexes (only the last index of a name stays a
 * range); beyond that it fails ("nodeset is too large to expand").
 *
 * ClusterShell accepts a few things refused here: typos it reads by the
 * accident of Python's int() (signs and "_" in numbers: "n[+1]", "n[1_0]";
 * negative indexes and "1-2-3"; empty items when digits follow the bracket:
 * "n[]5"), whitespace inside names and characters other than letters,
 * digits and "-_.:" (node names go to shells, Slurm and the screen), numbers
 * over 18 digits in brackets, and sets beyond the expansion budget.
 *
 * Sets may be read while names are added to them (one at a time is fast);
 * every function reading a set may first merge what was added, so a set is
 * not to be shared between threads.
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
/* A hostlist as Slurm prints it: the same syntax, plus Slurm's padding
 * ("n[01-100]" is n01..n99 and n100), minus text after the last bracket
 * (which Slurm refuses). */
struct nodeset *nodeset_from_slurm(const char *text, char **err);

/* One plain name, no brackets: 0, or -1 if it is not a valid name. */
int nodeset_add(struct nodeset *ns, const char *name);
/* 1 if name was in ns and is now removed, 0 if absent, -1 if invalid. */
int nodeset_remove(struct nodeset *ns, const char *name);
int nodeset_contains(const struct nodeset *ns, const char *name);
/* The number of names (SIZE_MAX if it would overflow). */
size_t nodeset_count(const struct nodeset *ns);
/* 1 if a and b hold the same names. */
int nodeset_equal(const struct nodeset *a, const struct nodeset *b);
/* 1 if every name of a is in b. */
int nodeset_subset(const struct nodeset *a, const struct nodeset *b);

void nodeset_union(struct nodeset *dst, const struct nodeset *src);
void nodeset_intersect(struct nodeset *dst, const struct nodeset *src);
void nodeset_difference(struct nodeset *dst, const struct nodeset *src);
void nodeset_xor(struct nodeset *dst, const struct nodeset *src);

/* The folded form, malloc'd: "gpu[0001-0004,0007],login1". "" for an empty
 * set. */
char *nodeset_fold(const struct nodeset *ns);
/* The same set as Slurm's hostlist reads it, for scontrol and sinfo: like
 * the fold, but a box with text after its last index is written name by
 * name, and a single last index is bracketed ("r[1-2]-n[01]"). */
char *nodeset_fold_slurm(const struct nodeset *ns);
/* Calls fn for every name in order. Stops if fn returns nonzero and returns
 * that value. */
int nodeset_foreach(const struct nodeset *ns, int (*fn)(void *ctx, const char *name), void *ctx);

/* By position, in the order of nodeset_foreach, 0 first: */
/* the name at i (malloc'd), or NULL if the set has no more than i names; */
char *nodeset_name_at(const struct nodeset *ns, size_t i);
/* the names at positions given in ClusterShell's RangeSet syntax ("0-9/2,15",
 * as `nodeset -I`); positions past the end are ignored. NULL with *err
 * ("position N: ...") on a syntax error. */
struct nodeset *nodeset_slice(const struct nodeset *ns, const char *positions, char **err);
/* n parts (fewer if there are fewer names), in order, their sizes differing by
 * at most one, the larger first (`nodeset --split`); *nparts is set. */
struct nodeset **nodeset_split(const struct nodeset *ns, size_t n, size_t *nparts);
/* The runs of consecutive indexes with one padding, in every index of the
 * fold's boxes (`nodeset --contiguous`): "n[1-3,5]" is n[1-3] and n5. */
struct nodeset **nodeset_contiguous(const struct nodeset *ns, size_t *nparts);
void nodeset_free_parts(struct nodeset **parts, size_t n);

#endif
