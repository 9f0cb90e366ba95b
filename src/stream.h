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

#define STREAM_IB_DEVS 32             /* IB ports one node may show */

struct stream {
	struct bus *bus;
	const struct model *model;
	int32_t node;                 /* -1 for a service */
	enum fmt fmt;
	char source[48];              /* "sim", "ssh:gpu0001", "slurm" */
	struct sbuf line;             /* partial line */
	int discarding;               /* inside a line longer than PARSE_LINE_MAX */
	struct sbuf doc;              /* JSON formats, Prometheus: the whole document */
	struct slurm_doc *slurm;      /* Slurm: the document read as it arrives */
	struct nvsmi_layout layout;   /* from a header line, else by column count: */
	int have_header;
	struct nvsmi_layout short_layout;   /* the older 11-column query */
	struct stream_ib *ib;         /* IB: the node's HCA ports, allocated as they come */
	int ib_ndev, ib_cap;          /* ports known; slots allocated (up to STREAM_IB_DEVS) */
	int ib_last;                  /* the slot of the previous line (a dump lists a port's files together) */
	int ib_nordered;              /* -1: rails to be assigned again (a port, a link layer, a mapping changed) */
	int8_t ib_order[STREAM_IB_DEVS];   /* slots that are fabric rails, in rail order */
	char **rails;                 /* site mapping (probe ib -rails): names in rail order */
	int nrails;
	int32_t *prom_xid;            /* Prometheus: each GPU's XID gauge last read (-1 none yet) */
	int32_t prom_nxid;
	uint64_t lines, records, rejected;
};

/* IB: one HCA port as a stream knows it. Ports are remembered (and their
 * link layer) from dump to dump, so a device missing from one dump does not
 * move the rails of the others; counters are gathered per dump. */
struct stream_ib {
	char name[40];                /* "mlx5_3", or "mlx4_0/2" for a second port */
	int32_t link_layer;           /* enum ib_link_layer, kept once seen */
	int32_t rail;                 /* its rail as last assigned, -1 none */
	int seen;                     /* data in the current dump */
	struct ev_ib ev;              /* the current dump's counters and state */
};

void stream_init(struct stream *s, struct bus *bus, const struct model *m, int32_t node,
		 enum fmt fmt, const char *source);
void stream_free(struct stream *s);
/* IB: rails from a site mapping (device names in rail order), instead of the
 * order of the InfiniBand devices (ib_assign_rails()). n = 0 clears it. */
void stream_set_rails(struct stream *s, const char *const *names, int n);
/* Feed bytes; complete lines are parsed at once, stamped with time now. */
void stream_feed(struct stream *s, const char *buf, size_t n, int64_t now);
/* End of output (command exited or document complete): parse what is left. */
void stream_end(struct stream *s, int64_t now);
/* Output cut short (the command failed): what was fed of it is dropped, as
 * if it never came. */
void stream_discard(struct stream *s);
/* A whole JSON document (Slurm, facility) in one piece: stream_feed() then
 * stream_end(), read where it lies when nothing is buffered (no copy). */
void stream_doc(struct stream *s, const char *buf, size_t n, int64_t now);

#endif
