/*
 * stream.c - lines to events (see stream.h): for each format, parse a line
 * or a document and emit what it says about the node, its GPUs, its ports,
 * the scheduler and the facility. Rejected input becomes EV_PARSE_ERROR.
 */
#include <stdio.h>
#include <string.h>
#include "stream.h"
#include "trace.h"

void stream_init(struct stream *s, struct bus *bus, const struct model *m, int32_t node,
		 enum fmt fmt, const char *source)
{
	static struct nvsmi_layout dflt, shrt;   /* the queries' layouts, read once (a stream per node and format) */

	if (!dflt.ncols) {
		nvsmi_layout_from_query(&dflt, NVSMI_DEFAULT_QUERY);
		nvsmi_layout_from_query(&shrt, NVSMI_SHORT_QUERY);
	}
	memset(s, 0, sizeof *s);
	s->bus = bus;
	s->model = m;
	s->node = node;
	s->fmt = fmt;
	snprintf(s->source, sizeof s->source, "%s", source);
	s->layout = dflt;
	s->short_layout = shrt;
	s->ib_nordered = -1;
	if (fmt == FMT_SLURM_NODES || fmt == FMT_SLURM_JOBS)
		s->slurm = slurm_doc_new(fmt == FMT_SLURM_JOBS);
}

void stream_set_rails(struct stream *s, const char *const *names, int n)
{
	for (int i = 0; i < s->nrails; i++)
		free(s->rails[i]);
	free(s->rails);
	s->rails = NULL;
	s->nrails = 0;
	s->ib_nordered = -1;
	if (n <= 0)
		return;
	s->rails = xcalloc((size_t)n, sizeof *s->rails);
	for (int i = 0; i < n; i++)
		s->rails[i] = xstrdup(names[i]);
	s->nrails = n;
}

void stream_free(struct stream *s)
{
	sbuf_free(&s->line);
	sbuf_free(&s->doc);
	slurm_doc_free(s->slurm);   /* and what its reader kept for the next poll */
	s->slurm = NULL;
	free(s->ib);
	s->ib = NULL;
	s->ib_ndev = s->ib_cap = 0;
	free(s->prom_xid);
	s->prom_xid = NULL;
	stream_set_rails(s, NULL, 0);
}

static struct event ev_new(const struct stream *s, enum ev_type t, int64_t now)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = t;
	ev.time = now;
	ev.source = s->source;
	return ev;
}

static void reject(struct stream *s, const char *line, size_t len, const char *error, int64_t now)
{
	struct event ev = ev_new(s, EV_PARSE_ERROR, now);
	char excerpt[81];
	size_t n = MIN(len, sizeof excerpt - 1);

	memcpy(excerpt, line, n);
	excerpt[n] = '\0';
	for (size_t i = 0; i < n; i++)   /* NULs would cut the copy short */
		if (!excerpt[i])
			excerpt[i] = '?';
	ev.u.parse_error = (struct ev_parse_error){s->node, (int32_t)s->fmt, error, excerpt};
	s->rejected++;
	bus_emit(s->bus, &ev);
}

/* ---- nvidia-smi ---- */

/* The line read with the stream's layout; without a header, a line with
 * the older query's count of columns with that one's. Only a line whose
 * count is not the layout's is counted, for that choice or the error. */
static int nvsmi_read(struct stream *s, const char *line, size_t len, struct nvsmi_rec *r, const char **err,
		      char *why, size_t whylen)
{
	const struct nvsmi_layout *l = &s->layout;
	int n;

	if (nvsmi_parse_line(line, len, l, r, err) == 0)
		return 0;
	if (!*err || strcmp(*err, "wrong number of columns"))
		return -1;
	n = nvsmi_count_fields(line, len);
	if (!s->have_header && n == s->short_layout.ncols) {
		l = &s->short_layout;
		*err = NULL;
		if (nvsmi_parse_line(line, len, l, r, err) == 0)
			return 0;
		if (!*err || strcmp(*err, "wrong number of columns"))
			return -1;
	}
	*err = nvsmi_reject_reason(s->have_header, n, l->ncols, why, whylen);
	return -1;
}

static void nvsmi_line(struct stream *s, const char *line, size_t len, int64_t now)
{
	struct nvsmi_rec r;
	const char *err = NULL;
	const struct model *m = s->model;
	char why[160];

	if (nvsmi_parse_header(line, len, &s->layout)) {
		s->have_header = 1;
		return;
	}
	if (nvsmi_read(s, line, len, &r, &err, why, sizeof why) < 0) {
		reject(s, line, len, err ? err : "malformed line", now);
		return;
	}
	if (r.index < 0 || r.index >= m->gpus_per_node || s->node < 0 || s->node >= m->nnodes) {
		reject(s, line, len, "GPU index out of range for this node", now);
		return;
	}
	int32_t g = model_gpu(m, s->node, r.index);

	if ((r.uuid[0] && strcmp(r.uuid, m->uuid[g])) || (r.pci[0] && strcmp(r.pci, m->pci[g])) ||
	    (r.name[0] && strcmp(r.name, m->gpu_name[g]))) {
		struct event gi = ev_new(s, EV_GPU_INFO, now);

		gi.u.gpu_info = (struct ev_gpu_info){s->node, r.index, r.uuid[0] ? r.uuid : m->uuid[g],
						     r.pci[0] ? r.pci : m->pci[g],
						     r.name[0] ? r.name : m->gpu_name[g]};
		bus_emit(s->bus, &gi);
	}
	struct event ev = ev_new(s, EV_SAMPLE, now);

	ev.u.sample.node = s->node;
	ev.u.sample.gpu = r.index;
	memcpy(ev.u.sample.m, r.m, sizeof r.m);
	s->records++;
	bus_emit(s->bus, &ev);
}

/* ---- kernel log ---- */

static void xid_line(struct stream *s, const char *line, size_t len, int64_t now)
{
	struct xid_rec r;
	const char *err = NULL;
	int rc = xid_parse_line(line, len, &r, &err);

	if (rc == 0)
		return;
	if (rc < 0) {
		reject(s, line, len, err ? err : "malformed XID line", now);
		return;
	}
	if (sxid_continuation(&r))
		return;   /* Severity / Data lines of the SXid event just emitted */
	struct event ev = ev_new(s, EV_XID, now);

	ev.u.xid = (struct ev_xid){s->node, r.sxid ? -1 : model_gpu_of_pci(s->model, s->node, r.pci), r.code, r.pid,
				   r.pci, r.text, r.sxid, r.link, r.fatal};
	s->records++;
	trace("%s node %d code %d", r.sxid ? "sxid" : "xid", s->node, r.code);
	bus_emit(s->bus, &ev);
}

/* ---- IB counters: one dump per blank line ---- */

/* Rails of the ports seen so far (ib_assign_rails()), kept until a port or
 * a link layer is new or the mapping changes: the fabric rails' slots in
 * rail order. */
static void ib_order_rails(struct stream *s)
{
	const char *names[STREAM_IB_DEVS];
	int32_t ll[STREAM_IB_DEVS], rail[STREAM_IB_DEVS];
	int n = s->ib_ndev;

	for (int i = 0; i < n; i++) {
		names[i] = s->ib[i].name;
		ll[i] = s->ib[i].link_layer;
	}
	ib_assign_rails(names, ll, n, (const char *const *)s->rails, s->nrails, rail);
	s->ib_nordered = 0;
	for (int32_t r = 0; r < STREAM_IB_DEVS; r++)
		for (int i = 0; i < n; i++)
			if (rail[i] == r)
				s->ib_order[s->ib_nordered++] = (int8_t)i;
	for (int i = 0; i < n; i++)
		s->ib[i].rail = rail[i];
}

/* One event per port of this dump that is a fabric rail, in rail order.
 * Ethernet ports (RoCE, bonds) are not rails and their counters are not
 * reported. */
static void ib_flush(struct stream *s, int64_t now)
{
	if (s->ib_nordered < 0)
		ib_order_rails(s);
	for (int k = 0; k < s->ib_nordered; k++) {
		struct stream_ib *d = &s->ib[s->ib_order[k]];

		if (!d->seen)
			continue;
		if (d->rail >= s->model->topo.rails) {
			char why[96];

			snprintf(why, sizeof why, "IB device %s would be rail %d; the cluster has %d rails",
				 d->name, d->rail, s->model->topo.rails);
			reject(s, d->name, strlen(d->name), why, now);
			continue;
		}
		struct event ev = ev_new(s, EV_IB, now);

		ev.u.ib = d->ev;
		ev.u.ib.node = s->node;
		ev.u.ib.port = d->rail;
		bus_emit(s->bus, &ev);
		s->records++;
	}
	for (int i = 0; i < s->ib_ndev; i++) {
		s->ib[i].seen = 0;
		memset(&s->ib[i].ev, 0, sizeof s->ib[i].ev);
	}
}

/* A port's name in the table: "mlx5_3" for port 1, "mlx4_0/2" for another. */
static void ib_port_name(const struct ib_rec *r, char name[40])
{
	size_t n = strnlen(r->dev, sizeof r->dev - 1);

	if (r->port < 0 || r->port > 999) {
		snprintf(name, 40, "%s/%d", r->dev, r->port);
		return;
	}
	memcpy(name, r->dev, n);
	if (r->port != 1) {
		name[n++] = '/';
		if (r->port >= 100)
			name[n++] = (char)('0' + r->port / 100);
		if (r->port >= 10)
			name[n++] = (char)('0' + r->port / 10 % 10);
		name[n++] = (char)('0' + r->port % 10);
	}
	name[n] = '\0';
}

/* The port's slot, added if new; NULL when the table is full. The slot of
 * the previous line and the one after it are tried first. */
static struct stream_ib *ib_port(struct stream *s, const struct ib_rec *r)
{
	char name[40];

	ib_port_name(r, name);
	for (int k = 0; k < 2; k++) {   /* a dump lists a port's files together, the ports in order */
		int i = s->ib_last + k;

		if (i < s->ib_ndev && !strcmp(s->ib[i].name, name))
			return &s->ib[s->ib_last = i];
	}
	for (int i = 0; i < s->ib_ndev; i++)
		if (!strcmp(s->ib[i].name, name))
			return &s->ib[s->ib_last = i];
	if (s->ib_ndev == STREAM_IB_DEVS)
		return NULL;
	if (s->ib_ndev == s->ib_cap) {   /* 8 slots, then 32: most nodes show 8-10 ports */
		s->ib_cap = s->ib_cap ? STREAM_IB_DEVS : 8;
		s->ib = xrealloc(s->ib, sizeof *s->ib * (size_t)s->ib_cap);
	}
	struct stream_ib *p = &s->ib[s->ib_last = s->ib_ndev++];

	memset(p, 0, sizeof *p);
	memcpy(p->name, name, sizeof p->name);
	s->ib_nordered = -1;
	return p;
}

static void ib_line(struct stream *s, const char *line, size_t len, int64_t now)
{
	struct ib_rec r;
	const char *err = NULL;
	int rc;

	if (len == 0) {
		ib_flush(s, now);
		return;
	}
	if ((rc = ib_parse_line(line, len, &r, &err)) <= 0) {
		if (rc < 0)
			reject(s, line, len, err ? err : "malformed counter line", now);
		return;
	}
	struct stream_ib *d = ib_port(s, &r);

	if (!d) {
		reject(s, line, len, "more than 32 IB ports on one node", now);
		return;
	}
	if (r.counter == IB_LINK_LAYER_FILE) {
		if (d->link_layer != r.link_layer)
			s->ib_nordered = -1;
		d->link_layer = r.link_layer;
		return;
	}
	struct ev_ib *p = &d->ev;
	uint32_t bit = r.counter < 0 ? 0x80000000u : 1u << r.counter;

	if (d->seen && (p->have & bit)) {
		ib_flush(s, now);   /* a counter again: a new dump without a blank line */
		p = &d->ev;
	}
	d->seen = 1;
	if (r.unknown)
		return;   /* "N/A (no PMA)": unknown, its have bit stays clear */
	p->have |= bit;
	if (r.counter < 0)
		p->state = r.state;
	else
		p->c[r.counter] = r.value;
}

/* ---- documents ---- */

struct doc_ctx {
	struct stream *s;
	int64_t now;
	uint8_t *seen;    /* jobs: job slots seen in this document */
};

static void slurm_node(void *ctx, const struct slurm_node_rec *r)
{
	struct doc_ctx *c = ctx;
	const struct model *m = c->s->model;
	int32_t i = model_node_index(m, r->name);

	if (i < 0)
		return;   /* not in our inventory (login nodes, other partitions) */
	const struct node *n = &m->nodes[i];

	if (n->base == r->base && n->flags == r->flags && n->reason_time == r->reason_time &&
	    !strcmp(n->reason, r->reason) && !strcmp(n->reason_who, r->reason_who))
		return;
	struct event ev = ev_new(c->s, EV_NODE_STATE, c->now);

	ev.u.node_state = (struct ev_node_state){i, r->base, r->flags, r->reason_time, r->reason, r->reason_who};
	bus_emit(c->s->bus, &ev);
}

static int job_terminal(int32_t st)
{
	return st != JOB_PENDING && st != JOB_RUNNING && st != JOB_SUSPENDED && st != JOB_COMPLETING &&
	       st != JOB_REQUEUED;
}

static void slurm_job(void *ctx, const struct slurm_job_rec *r)
{
	struct doc_ctx *c = ctx;
	const struct model *m = c->s->model;
	const struct job *j = model_job(m, r->id);

	if (j)
		c->seen[j - m->jobs] = 1;
	if (job_terminal(r->state)) {
		if (j) {
			struct event ev = ev_new(c->s, EV_JOB_END, c->now);

			ev.u.job_end = (struct ev_job_end){r->id, r->state};
			bus_emit(c->s->bus, &ev);
		}
		return;
	}
	if (j && j->state == r->state && j->gpus == r->gpus && j->gpu_mask == r->gpu_mask &&
	    j->start_time == r->start_time && j->submit_time == r->submit_time && !strcmp(j->name, r->name) &&
	    !strcmp(j->user, r->user) && !strcmp(j->partition, r->partition) && !strcmp(j->nodes, r->nodes))
		return;
	struct event ev = ev_new(c->s, EV_JOB, c->now);

	ev.u.job = (struct ev_job){r->id, r->state, r->gpus, r->gpu_mask, r->submit_time, r->start_time,
				   r->name, r->user, r->partition, r->nodes};
	bus_emit(c->s->bus, &ev);
}

static void doc_error(struct stream *s, const char *doc, size_t len, const char *what, char *err, int64_t now)
{
	reject(s, doc ? doc : "", len, err ? err : what, now);
	free(err);
}

static void slurm_document(struct stream *s, const char *doc, size_t len, int64_t now)
{
	struct doc_ctx c = {s, now, NULL};
	char *err = NULL;
	int rejected = 0, n;
	const struct model *m = s->model;

	if (s->fmt == FMT_SLURM_NODES) {
		if (slurm_doc_end(s->slurm, doc, len, slurm_node, NULL, &c, &rejected, &err) < 0)
			doc_error(s, doc, len, "bad sinfo document", err, now);
		return;
	}
	c.seen = xcalloc((size_t)m->njobs + 1, 1);
	n = slurm_doc_end(s->slurm, doc, len, NULL, slurm_job, &c, &rejected, &err);
	if (n < 0) {
		doc_error(s, doc, len, "bad squeue document", err, now);
	} else {
		for (int32_t i = 0; i < m->njobs; i++) {   /* gone from squeue: ended */
			if (!m->jobs[i].id || c.seen[i])
				continue;
			struct event ev = ev_new(s, EV_JOB_END, now);

			ev.u.job_end = (struct ev_job_end){m->jobs[i].id, JOB_COMPLETED};
			bus_emit(s->bus, &ev);
		}
	}
	free(c.seen);
}

static void facility_doc(struct stream *s, const char *doc, size_t len, int64_t now)
{
	struct event ev = ev_new(s, EV_POWER, now);
	char *err = NULL;

	if (facility_parse(doc, len, &ev.u.power, &err) < 0) {
		doc_error(s, doc, len, "bad facility document", err, now);
		return;
	}
	bus_emit(s->bus, &ev);
}

/* ---- Prometheus: dcgm-exporter series, mapped to the nvidia-smi path ---- */

struct prom_ctx {
	struct stream *s;
	int64_t now;
	struct prom_dcgm *dcgm;
	char last_unknown[64];        /* one rejection per unknown host, not per GPU */
};

static void prom_add(void *ctx, const struct prom_rec *r)
{
	prom_dcgm_add(((struct prom_ctx *)ctx)->dcgm, r);
}

static void prom_bad_line(void *ctx, long lineno, const char *err)
{
	struct prom_ctx *c = ctx;
	char why[160];

	snprintf(why, sizeof why, "line %ld: %s", lineno, err);
	reject(c->s, why, strlen(why), why, c->now);
}

/* One GPU's series: the same events an nvidia-smi line and a kernel XID
 * line of its node give (its node by the exporter's Hostname label). */
static void prom_gpu(void *ctx, const struct prom_gpu *g)
{
	struct prom_ctx *c = ctx;
	struct stream *s = c->s;
	const struct model *m = s->model;
	int32_t node = model_node_index(m, g->host), gi;

	if (node < 0 || g->gpu < 0 || g->gpu >= m->gpus_per_node) {
		if (strcmp(c->last_unknown, g->host)) {
			char why[160];

			snprintf(why, sizeof why, node < 0 ? "no node named %s in the inventory"
					   : "GPU index out of range for node %s", g->host);
			reject(s, g->host, strlen(g->host), why, c->now);
			snprintf(c->last_unknown, sizeof c->last_unknown, "%s", g->host);
		}
		return;
	}
	gi = model_gpu(m, node, g->gpu);
	struct event ev = ev_new(s, EV_GPU_INFO, c->now);

	prom_dcgm_info(g, node, &ev.u.gpu_info);
	if ((ev.u.gpu_info.uuid[0] && strcmp(ev.u.gpu_info.uuid, m->uuid[gi])) ||
	    (ev.u.gpu_info.pci[0] && strcmp(ev.u.gpu_info.pci, m->pci[gi])) ||
	    (ev.u.gpu_info.name && ev.u.gpu_info.name[0] && strcmp(ev.u.gpu_info.name, m->gpu_name[gi])))
		bus_emit(s->bus, &ev);
	ev = ev_new(s, EV_SAMPLE, c->now);
	prom_dcgm_sample(g, node, &ev.u.sample);
	bus_emit(s->bus, &ev);
	s->records++;
	if (s->prom_nxid != m->ngpus) {   /* a new inventory: no gauge read yet */
		free(s->prom_xid);
		s->prom_xid = xmalloc(sizeof *s->prom_xid * (size_t)(m->ngpus + 1));
		for (int32_t i = 0; i < m->ngpus; i++)
			s->prom_xid[i] = -1;
		s->prom_nxid = m->ngpus;
	}
	int32_t code = prom_dcgm_xid_new(s->prom_xid[gi], g->xid);
	char pci[40];

	if (g->xid >= 0)   /* unknown keeps the last reading */
		s->prom_xid[gi] = g->xid;
	if (code > 0) {
		ev = ev_new(s, EV_XID, c->now);
		prom_dcgm_xid(g, node, code, pci, &ev.u.xid);
		trace("prometheus xid node %d gpu %d code %d", node, g->gpu, code);
		bus_emit(s->bus, &ev);
	}
}

/* A /metrics body, or (first byte '{') an answer of /api/v1/query. */
static void prom_doc(struct stream *s, const char *doc, size_t len, int64_t now)
{
	struct prom_ctx c = {s, now, prom_dcgm_new(), ""};
	const char *p = doc;
	char *err = NULL;

	while (p < doc + len && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p < doc + len && *p == '{') {
		if (prom_parse_api(doc, len, prom_add, &c, NULL, &err) < 0)
			doc_error(s, doc, len, "bad Prometheus answer", err, now);
	} else {
		prom_parse_text(doc, len, prom_add, &c, NULL, prom_bad_line);
	}
	prom_dcgm_flush(c.dcgm, prom_gpu, &c);
	prom_dcgm_free(c.dcgm);
}

/* ---- lines ---- */

static void dispatch_line(struct stream *s, const char *line, size_t len, int64_t now)
{
	if (len && line[len - 1] == '\r')
		len--;
	s->lines++;
	switch (s->fmt) {
	case FMT_NVSMI:
		if (len)
			nvsmi_line(s, line, len, now);
		break;
	case FMT_XID:
		if (len)
			xid_line(s, line, len, now);
		break;
	case FMT_IB: ib_line(s, line, len, now); break;
	default: break;
	}
}

static int is_document(enum fmt f)
{
	return f == FMT_SLURM_NODES || f == FMT_SLURM_JOBS || f == FMT_FACILITY || f == FMT_PROMETHEUS;
}

void stream_feed(struct stream *s, const char *buf, size_t n, int64_t now)
{
	if (is_document(s->fmt)) {
		/* Prometheus's answer for 102,400 GPUs is some 280 MB; a JSON document of 256 MiB is not one we parse */
		size_t most = s->fmt == FMT_PROMETHEUS ? (size_t)1 << 30 : (size_t)256 << 20;

		if (s->doc.len + n > most) {
			reject(s, buf, n, s->fmt == FMT_PROMETHEUS ? "document larger than 1 GiB" : "document larger than 256 MiB", now);
			stream_discard(s);
			return;
		}
		sbuf_add(&s->doc, buf, n);
		if (s->slurm)
			slurm_doc_more(s->slurm, s->doc.s, s->doc.len);
		return;
	}
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;

		if (s->discarding) {
			if (nl)
				s->discarding = 0;
		} else if (s->line.len + take > PARSE_LINE_MAX) {
			reject(s, s->line.len ? s->line.s : buf, s->line.len ? s->line.len : take,
			       "line longer than 65536 bytes", now);
			sbuf_reset(&s->line);
			s->discarding = nl == NULL;
		} else if (!nl) {
			sbuf_add(&s->line, buf, take);
		} else if (s->line.len) {
			sbuf_add(&s->line, buf, take);
			dispatch_line(s, s->line.s, s->line.len, now);
			sbuf_reset(&s->line);
		} else {
			dispatch_line(s, buf, take, now);   /* the common case: no copy */
		}
		if (!nl)
			break;
		buf = nl + 1;
		n -= take + 1;
	}
}

void stream_discard(struct stream *s)
{
	sbuf_reset(&s->doc);
	if (s->slurm)
		slurm_doc_reset(s->slurm);
	sbuf_reset(&s->line);
	s->discarding = 0;
}

static void read_doc(struct stream *s, const char *doc, size_t len, int64_t now)
{
	if (s->fmt == FMT_FACILITY)
		facility_doc(s, doc, len, now);
	else if (s->fmt == FMT_PROMETHEUS)
		prom_doc(s, doc, len, now);
	else
		slurm_document(s, doc, len, now);
}

void stream_doc(struct stream *s, const char *buf, size_t n, int64_t now)
{
	if (s->fmt == FMT_PROMETHEUS || !is_document(s->fmt) || s->doc.len || n > (size_t)256 << 20) {
		stream_feed(s, buf, n, now);
		stream_end(s, now);
		return;
	}
	if (n)
		read_doc(s, buf, n, now);   /* where it lies: no copy into s->doc */
}

void stream_end(struct stream *s, int64_t now)
{
	if (is_document(s->fmt)) {
		if (s->doc.len)
			read_doc(s, s->doc.s, s->doc.len, now);
		sbuf_reset(&s->doc);
		return;
	}
	if (s->line.len && !s->discarding)
		dispatch_line(s, s->line.s, s->line.len, now);
	sbuf_reset(&s->line);
	s->discarding = 0;
	if (s->fmt == FMT_IB)
		ib_flush(s, now);
}
