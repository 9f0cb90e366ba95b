/*
 * bus.h - the event bus: one queue, subscribers called in a fixed order.
 *
 * bus_emit() copies an event (and its strings) into the queue; bus_flush()
 * delivers every queued event to every subscriber whose mask wants it, in
 * emission order, including events emitted by subscribers during the flush.
 * The model subscribes first, so later subscribers see the state after the
 * event. Nothing is delivered outside bus_flush(): no re-entrancy.
 */
#ifndef MYRIAD_BUS_H
#define MYRIAD_BUS_H

#include "event.h"
#include "util.h"

typedef void (*bus_fn)(void *ctx, const struct event *ev);

#define BUS_ALL 0xffffffffu
#define BUS_MASK(t) (1u << (t))

struct bus_sub {
	bus_fn fn;
	void *ctx;
	uint32_t mask;
	int id;
};

struct bus {
	struct event *q;
	size_t qlen, qcap, qhead;
	struct arena strings;        /* the queued events' strings, until the flush */
	const char *last_copy;       /* the string copied last (a tick's lines share their source) */
	struct bus_sub *subs;
	int nsubs, next_id;
	uint64_t delivered;          /* events delivered since start */
	uint64_t emitted;            /* events emitted since start: the queue holds [emitted - qlen, emitted) */
	uint64_t current;            /* while delivering: the event's number in emission order */
	int flushing;
	int urgent;                  /* the queue holds an event that should not wait for the tick */
};

/* Events that wait for the tick's flush (telemetry, many per tick); any
 * other event (an XID, a node state, a connection, a job) is delivered as
 * soon as the loop is about to sleep, so hooks answer a fault in
 * milliseconds rather than at the next tick. */
#define BUS_BATCHED (BUS_MASK(EV_TICK) | BUS_MASK(EV_SAMPLE) | BUS_MASK(EV_IB) | BUS_MASK(EV_POWER) | \
		     BUS_MASK(EV_GPU_INFO) | BUS_MASK(EV_PARSE_ERROR))

void bus_init(struct bus *b);
void bus_free(struct bus *b);
int bus_subscribe(struct bus *b, uint32_t mask, bus_fn fn, void *ctx);   /* returns id */
void bus_unsubscribe(struct bus *b, int id);
void bus_emit(struct bus *b, const struct event *ev);
void bus_flush(struct bus *b);

#endif
