/*
 * resolve.h - non-blocking, cached host-name lookups for the session pool.
 * A literal address answers at once; a name starts a lookup the first time
 * and answers RES_WAIT until it is done (ask again later, e.g. from a
 * timer). Answers are kept 5 minutes, failures 5 seconds.
 */
#ifndef MYRIAD_SSH_RESOLVE_H
#define MYRIAD_SSH_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

enum { RES_DONE, RES_WAIT, RES_FAIL };

struct resolver;

struct resolver *resolver_new(void);
void resolver_free(struct resolver *r);

/* RES_DONE: the numeric address is in out; RES_FAIL: the reason in why.
 * After RES_UNANSWERED_MAX lookups in a row got no answer in time (the
 * caller says so: resolver_unanswered), new lookups fail at once until an
 * answer comes, so that a dead name service costs one timeout, not one per
 * name: 1,000 names behind a dead DNS server fail in one -t, not in 1,000. */
#define RES_UNANSWERED_MAX 16
int resolver_get(struct resolver *r, const char *name, char *out, size_t cap, char *why, size_t whycap);
void resolver_unanswered(struct resolver *r);

#endif
