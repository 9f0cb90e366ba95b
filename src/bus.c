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

static const char *copy(struct bus *b, const char *s)
{
	return s ? arena_strdup(&b->strings, s) : "";
}

/* Copies the strings an event borrows into the bus's arena. */
static void own_strings(struct bus *b, struct event *e)
{
	e->source = copy(b, e->source);
	switch (e->type) {
	case EV_TOPOLOGY: e->u.topology.name = copy(b, e->u.topology.name); break;
	case EV_NODE: e->u.node.name = copy(b, e->u.node.name); break;
	case EV_GPU_INFO:
		e->u.gpu_info.uuid = copy(b, e->u.gpu_info.uuid);
		e->u.gpu_info.pci = copy(b, e->u.gpu_info.pci);
		e->u.gpu_info.name = copy(b, e->u.gpu_info.name);
		break;
	case EV_XID:
		e->u.xid.pci = copy(b, e->u.xid.pci);
		e->u.xid.text = copy(b, e->u.xid.text);
		break;
	case EV_NODE_STATE:
		e->u.node_state.reason = copy(b, e->u.node_state.reason);
		e->u.node_state.who = copy(b, e->u.node_state.who);
		break;
	case EV_JOB:
		e->u.job.name = copy(b, e->u.job.name);
		e->u.job.user = copy(b, e->u.job.user);
		e->u.job.partition = copy(b, e->u.job.partition);
		e->u.job.nodes = copy(b, e->u.job.nodes);
		break;
	case EV_FAULT_ACK:
		e->u.fault_ack.who = copy(b, e->u.fault_ack.who);
		e->u.fault_ack.note = copy(b, e->u.fault_ack.note);
		break;
	case EV_FAULT_CLOSE: e->u.fault_close.why = copy(b, e->u.fault_close.why); break;
	case EV_PARSE_ERROR:
		e->u.parse_error.error = copy(b, e->u.parse_error.error);
		e->u.parse_error.excerpt = copy(b, e->u.parse_error.excerpt);
		break;
	case EV_CONN:
		e->u.conn.host = copy(b, e->u.conn.host);
		e->u.conn.detail = copy(b, e->u.conn.detail);
		break;
	case EV_ACTION:
		e->u.action.verb = copy(b, e->u.action.verb);
		e->u.action.target = copy(b, e->u.action.target);
		e->u.action.args = copy(b, e->u.action.args);
		e->u.action.who = copy(b, e->u.action.who);
		e->u.action.detail = copy(b, e->u.action.detail);
		e->u.action.status = copy(b, e->u.action.status);
		break;
	case EV_MARK:
		e->u.mark.who = copy(b, e->u.mark.who);
		e->u.mark.text = copy(b, e->u.mark.text);
		break;
	default:
		break;
	}
}

void bus_emit(struct bus *b, const struct event *ev)
{
	if (b->qlen == b->qcap) {
		b->qcap = b->qcap ? b->qcap * 2 : 16384;
		b->q = xrealloc(b->q, sizeof *b->q * b->qcap);
	}
	b->q[b->qlen] = *ev;
	own_strings(b, &b->q[b->qlen]);
	b->qlen++;
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

		for (int i = 0; i < b->nsubs; i++)
			if ((b->subs[i].mask & bit) && b->subs[i].fn)
				b->subs[i].fn(b->subs[i].ctx, &ev);
		b->delivered++;
	}
	b->qhead = b->qlen = 0;
	arena_reset(&b->strings);
	b->flushing = 0;
	b->urgent = 0;
	drop_unsubscribed(b);
}
