/*
 * stream.h - a byte stream from one node or service, cut into lines and
 * turned into events by the parser of its format.
 *
 * The embedded simulator, SSH exec channels and files all feed streams the
 * same way, so the same code runs in the demo, the tests and production.
 * A stream belongs to one node (or to a service, node = -1) and knows the
 * model only to read names, GPU identities and what changed since last time.
 */
#ifndef MYRIAD_STREAM_H
#define MYRIAD_STREAM_H

#include "bus.h"
#include "model.h"
#include "probe/parse.h"

struct stream {
	struct bus *bus;
	const struct model *model;
	int32_t node;                 /* -1 for a service */
	enum fmt fmt;
	char source[48];              /* "sim", "ssh:gpu0001", "slurm" */
	struct sbuf line;             /* partial line */
	int discarding;               /* inside a line longer than PARSE_LINE_MAX */
	struct sbuf doc;              /* JSON formats: the whole document */
	struct nvsmi_layout layout;   /* from a header line, else by column count: */
	int have_header;
	struct nvsmi_layout short_layout;   /* the 11-column query of DESIGN.md 5 */
	struct ev_ib *ib;             /* IB: counters gathered per rail (32) in one dump */
	uint32_t ib_seen;             /* rails with data in the current dump */
	uint64_t lines, records, rejected;
};

void stream_init(struct stream *s, struct bus *bus, const struct model *m, int32_t node,
		 enum fmt fmt, const char *source);
void stream_free(struct stream *s);
/* Feed bytes; complete lines are parsed at once, stamped with time now. */
void stream_feed(struct stream *s, const char *buf, size_t n, int64_t now);
/* End of output (command exited or document complete): parse what is left. */
void stream_end(struct stream *s, int64_t now);

#endif
