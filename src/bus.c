/*
 * bus.c - the event bus (see bus.h): a queue of copied events and an ordered
 * list of subscribers.
 */
#include <string.h>
#include "bus.h"

void bus_init(struct bus *b)
{
	memset(b, 0, sizeof *b);
}

void bus_free(struct bus *b)
{
	free(b->q);
	free(b->subs);
	arena_free(&b->strings);
	memset(b, 0, sizeof *b);
}

int bus_subscribe(struct bus *b, uint32_t mask, bus_fn fn, void *ctx)
{
	b->subs = xrealloc(b->subs, sizeof *b->subs * (size_t)(b->nsubs + 1));
	b->subs[b->nsubs] = (struct bus_sub){fn, ctx, mask, ++b->next_id};
	b->nsubs++;
	return b->next_id;
}

/* During a flush a subscriber only loses its function (the loop in
 * bus_flush walks the array by index); the slot is removed afterwards. */
void bus_unsubscribe(struct bus *b, int id)
{
	for (int i = 0; i < b->nsubs; i++)
		if (b->subs[i].id == id) {
			if (b->flushing) {
				b->subs[i].fn = NULL;
				return;
			}
			memmove(&b->subs[i], &b->subs[i + 1], sizeof *b->subs * (size_t)(b->nsubs - i - 1));
			b->nsubs--;
			return;
		}
}

static void drop_unsubscribed(struct bus *b)
{
	int w = 0;

	for (int i = 0; i < b->nsubs; i++)
		if (b->subs[i].fn)
			b->subs[w++] = b->subs[i];
	b->nsubs = w;
}

/* The queue's copy of an event's string. One made for the string before
 * serves again when this one is the same: every line a stream parses in a
 * tick names the same source, and the copies are read-only. */
static char *copy(void *ctx, const char *s)
{
	struct bus *b = ctx;

	if (b->last_copy && !strcmp(s, b->last_copy))
		return (char *)b->last_copy;
	return (char *)(b->last_copy = arena_strdup(&b->strings, s));
}

void bus_emit(struct bus *b, const struct event *ev)
{
	if (b->qlen == b->qcap) {
		b->qcap = b->qcap ? b->qcap * 2 : 16384;
		b->q = xrealloc(b->q, sizeof *b->q * b->qcap);
	}
	b->q[b->qlen] = *ev;
	ev_own_strings(&b->q[b->qlen], copy, b);   /* the schema says which fields are strings */
	b->qlen++;
	b->emitted++;
	if (!(BUS_MASK(ev->type) & BUS_BATCHED))
		b->urgent = 1;
}

void bus_flush(struct bus *b)
{
	if (b->flushing)
		return;   /* events emitted by subscribers join the running flush */
	b->flushing = 1;
	while (b->qhead < b->qlen) {
		struct event ev = b->q[b->qhead++];   /* q may move while delivering */
		uint32_t bit = BUS_MASK(ev.type);

		b->current = b->emitted - (b->qlen - b->qhead) - 1;
		for (int i = 0; i < b->nsubs; i++)
			if ((b->subs[i].mask & bit) && b->subs[i].fn)
				b->subs[i].fn(b->subs[i].ctx, &ev);
		b->delivered++;
	}
	b->qhead = b->qlen = 0;
	arena_reset(&b->strings);
	b->last_copy = NULL;
	b->flushing = 0;
	b->urgent = 0;
	drop_unsubscribed(b);
}
