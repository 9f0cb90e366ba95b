/*
 * resolve.c - host names to addresses without blocking the loop (see
 * resolve.h). libssh resolves inside ssh_connect, with getaddrinfo, on the
 * calling thread: one slow or dead DNS server would freeze the console for
 * every host. Here each distinct name gets one getaddrinfo_a request (glibc
 * runs it on its own helper thread; we poll gai_error from the pool's
 * timer), and answers are cached: a fleet of 10,000 names costs 10,000
 * lookups once, not one per reconnect.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include "resolve.h"
#include "../util.h"

#define OK_TTL_US (300 * US_PER_SEC)
#define FAIL_TTL_US (5 * US_PER_SEC)

struct entry {
	struct entry *next;
	char *name;
	int state;                /* RES_* */
	char addr[INET6_ADDRSTRLEN];
	char err[120];
	int64_t expires;
	struct gaicb *req;        /* while RES_WAIT */
	struct addrinfo hints;
};

struct resolver {
	struct entry **slots;
	uint32_t nslots, n;
	int unanswered;           /* lookups in a row that got no answer in time */
};

struct resolver *resolver_new(void)
{
	struct resolver *r = xcalloc(1, sizeof *r);

	r->nslots = 256;
	r->slots = xcalloc(r->nslots, sizeof *r->slots);
	return r;
}

static void grow(struct resolver *r)
{
	uint32_t n = r->nslots * 4;
	struct entry **s = xcalloc(n, sizeof *s);

	for (uint32_t i = 0; i < r->nslots; i++)
		for (struct entry *e = r->slots[i], *next; e; e = next) {
			next = e->next;
			uint32_t k = (uint32_t)hash_str(0, e->name) & (n - 1);

			e->next = s[k];
			s[k] = e;
		}
	free(r->slots);
	r->slots = s;
	r->nslots = n;
}

static struct entry *find(struct resolver *r, const char *name)
{
	uint32_t k = (uint32_t)hash_str(0, name) & (r->nslots - 1);

	for (struct entry *e = r->slots[k]; e; e = e->next)
		if (!strcmp(e->name, name))
			return e;
	if (r->n >= r->nslots * 2)
		grow(r);
	k = (uint32_t)hash_str(0, name) & (r->nslots - 1);
	struct entry *e = xcalloc(1, sizeof *e);

	e->name = xstrdup(name);
	e->state = RES_FAIL;   /* expired at once: a lookup starts */
	e->next = r->slots[k];
	r->slots[k] = e;
	r->n++;
	return e;
}

static void start(struct entry *e)
{
	struct gaicb *list[1];

	e->req = xcalloc(1, sizeof *e->req);
	memset(&e->hints, 0, sizeof e->hints);
	e->hints.ai_family = AF_UNSPEC;
	e->hints.ai_socktype = SOCK_STREAM;
	e->req->ar_name = e->name;
	e->req->ar_request = &e->hints;
	list[0] = e->req;
	e->state = RES_WAIT;
	int rc = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL);

	if (rc) {
		free(e->req);
		e->req = NULL;
		e->state = RES_FAIL;
		snprintf(e->err, sizeof e->err, "%s", gai_strerror(rc));
		e->expires = mono_us() + FAIL_TTL_US;
	}
}

static void finish(struct resolver *r, struct entry *e)
{
	int rc = gai_error(e->req);
	struct addrinfo *ai = e->req->ar_result;

	if (rc == EAI_INPROGRESS)
		return;
	e->state = RES_FAIL;
	r->unanswered = 0;   /* the name service answers, even "no such name" */
	if (rc == 0 && ai && getnameinfo(ai->ai_addr, ai->ai_addrlen, e->addr, sizeof e->addr, NULL, 0,
					 NI_NUMERICHOST) == 0)
		e->state = RES_DONE;
	else
		snprintf(e->err, sizeof e->err, "%s", rc ? gai_strerror(rc) : "no address");
	e->expires = mono_us() + (e->state == RES_DONE ? OK_TTL_US : FAIL_TTL_US);
	if (ai)
		freeaddrinfo(ai);
	free(e->req);
	e->req = NULL;
}

int resolver_get(struct resolver *r, const char *name, char *out, size_t cap, char *why, size_t whycap)
{
	unsigned char bin[16];

	if (inet_pton(AF_INET, name, bin) == 1 || inet_pton(AF_INET6, name, bin) == 1) {
		snprintf(out, cap, "%s", name);
		return RES_DONE;
	}
	struct entry *e = find(r, name);

	if (e->state == RES_WAIT) {
		finish(r, e);
	} else if (mono_us() >= e->expires) {
		if (r->unanswered >= RES_UNANSWERED_MAX) {   /* no name service: fail at once, not one wait per name */
			snprintf(why, whycap, "name not looked up: the name service answered none of the last %d "
				 "lookups in time", RES_UNANSWERED_MAX);
			return RES_FAIL;
		}
		start(e);
	}
	if (e->state == RES_DONE)
		snprintf(out, cap, "%s", e->addr);
	else if (e->state == RES_FAIL)
		snprintf(why, whycap, "cannot resolve %s: %s", name, e->err);
	return e->state;
}

void resolver_unanswered(struct resolver *r)
{
	r->unanswered++;
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nslots; i++)
		for (struct entry *e = r->slots[i], *next; e; e = next) {
			next = e->next;
			if (e->req && gai_cancel(e->req) != EAI_CANCELED && gai_error(e->req) == EAI_INPROGRESS)
				continue;   /* glibc's thread still owns it: left to the exit */
			if (e->req && e->req->ar_result)
				freeaddrinfo(e->req->ar_result);
			free(e->req);
			free(e->name);
			free(e);
		}
	free(r->slots);
	free(r);
}
