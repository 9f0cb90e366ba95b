/*
 * nodeset_check.h - helpers of the nodeset unit tests (test_nodeset.c,
 * test_nodeset_ops.c): a nodeset's fold, parse error, count, names and
 * Slurm fold from its text, and CHECK_ macros comparing them.
 */
#ifndef MYRIAD_NODESET_CHECK_H
#define MYRIAD_NODESET_CHECK_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nodeset.h"
#include "util.h"
#include "test.h"

/* fold(parse(in)), or "ERR: message". Caller frees. */
static inline char *fold_of(const char *in)
{
	char *err = NULL, *out;
	struct nodeset *ns = nodeset_from(in, &err);

	if (!ns) {
		out = xasprintf("ERR: %s", err ? err : "(no message)");
		free(err);
		return out;
	}
	out = nodeset_fold(ns);
	nodeset_free(ns);
	return out;
}

/* The parse error for in, or "OK". Caller frees. */
static inline char *err_of(const char *in)
{
	char *err = NULL;
	struct nodeset *ns = nodeset_from(in, &err);

	if (ns) {
		nodeset_free(ns);
		return xstrdup("OK");
	}
	return err ? err : xstrdup("(no message)");
}

static inline size_t count_of(const char *in)
{
	struct nodeset *ns = nodeset_from(in, NULL);
	size_t n = ns ? nodeset_count(ns) : (size_t)-1;

	nodeset_free(ns);
	return n;
}

#define CHECK_FOLD(in, want)                  \
	do {                                  \
		char *got_ = fold_of(in);     \
		CHECK_STR(got_, want);        \
		free(got_);                   \
	} while (0)

#define CHECK_ERR(in, want)                   \
	do {                                  \
		char *got_ = err_of(in);      \
		CHECK_STR(got_, want);        \
		free(got_);                   \
	} while (0)

static inline int append_name(void *ctx, const char *name)
{
	struct sbuf *b = ctx;

	if (b->len)
		sbuf_addc(b, ' ');
	sbuf_adds(b, name);
	return 0;
}

/* Names of in, space separated, in foreach order. Caller frees. */
static inline char *expand_of(const char *in)
{
	struct nodeset *ns = nodeset_from(in, NULL);
	struct sbuf b = {0};

	if (ns)
		nodeset_foreach(ns, append_name, &b);
	nodeset_free(ns);
	return b.s ? b.s : xstrdup("");
}

/* fold(from_slurm(in)), or fold_slurm(from(in)); "ERR: ..." on error. */
static inline char *slurm_of(const char *in, bool fold_slurm)
{
	char *err = NULL, *out;
	struct nodeset *ns = fold_slurm ? nodeset_from(in, &err) : nodeset_from_slurm(in, &err);

	if (!ns) {
		out = xasprintf("ERR: %s", err ? err : "(no message)");
		free(err);
		return out;
	}
	out = fold_slurm ? nodeset_fold_slurm(ns) : nodeset_fold(ns);
	nodeset_free(ns);
	return out;
}

#define CHECK_SLURM(in, fold_slurm, want)              \
	do {                                           \
		char *got_ = slurm_of(in, fold_slurm); \
		CHECK_STR(got_, want);                 \
		free(got_);                            \
	} while (0)

#define CHECK_EXPAND(in, want)                \
	do {                                  \
		char *got_ = expand_of(in);   \
		CHECK_STR(got_, want);        \
		free(got_);                   \
	} while (0)

#endif
