/*
 * keyframe.c - the model serializer and deserializer of the log (see
 * keyframe.h).
 *
 * Arrays of plain structs (nodes, IB ports, faults) are stored as byte
 * columns (byte k of every element, then byte k+1 ...), each column either
 * constant or through the block codec: names, counters and times that differ
 * little from one element to the next cost a few bits. Per-GPU metric arrays
 * go through the block codec as they are. Jobs are rebuilt by applying
 * EV_JOB events, so the model's own code builds its maps; the GPU->job map
 * and everything else is then set as saved.
 */
#include <stdio.h>
#include <string.h>
#include "codec.h"
#include "keyframe.h"
#include "../nodeset.h"

#define KF_VERSION 1

static void put_signature(struct sbuf *b)
{
	put_uvarint(b, KF_VERSION);
	put_uvarint(b, sizeof(struct model));
	put_uvarint(b, sizeof(struct node));
	put_uvarint(b, sizeof(struct ib_port));
	put_uvarint(b, sizeof(struct fault));
	put_uvarint(b, sizeof(struct xid_wait));
	put_uvarint(b, sizeof(struct facility));
	put_uvarint(b, sizeof(struct topo));
	put_uvarint(b, sizeof(struct job));
	put_uvarint(b, MET_COUNT);
}

static int check_signature(struct rd *r)
{
	struct sbuf want = {0};
	int ok;

	put_signature(&want);
	ok = (size_t)(r->end - r->p) >= want.len && !memcmp(r->p, want.s, want.len);
	if (ok)
		r->p += want.len;
	sbuf_free(&want);
	return ok ? 0 : -1;
}

/* ---- columns (kfcols.c) ---- */

#define put_col kf_put_col
#define get_col kf_get_col

static void put_i32s(struct sbuf *b, const int32_t *a, size_t n, int64_t *tmp)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = a[i];
	put_col(b, tmp, n);
}

static int get_i32s(struct rd *r, int32_t *a, size_t n, int64_t *tmp)
{
	if (get_col(r, tmp, n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		a[i] = (int32_t)tmp[i];
	return 0;
}

/* ---- encode ---- */

static void put_str(struct sbuf *b, const char *s)
{
	put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

static void put_jobs(struct sbuf *b, const struct model *m)
{
	put_uvarint(b, (uint64_t)m->njobs);
	for (int32_t i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];

		put_uvarint(b, j->id);
		if (!j->id)
			continue;
		put_svarint(b, j->state);
		put_svarint(b, j->gpus);
		put_uvarint(b, j->gpu_mask);
		put_svarint(b, j->submit_time);
		put_svarint(b, j->start_time);
		put_str(b, j->name);
		put_str(b, j->user);
		put_str(b, j->partition);
		put_str(b, j->nodes);
	}
}

static void put_facility(struct sbuf *b, const struct facility *f, int64_t *tmp)
{
	double d[] = {f->facility_kw, f->it_kw, f->cooling_kw, f->pue, f->supply_c, f->return_c, f->flow_lpm, f->outside_c};

	put_svarint(b, f->known);
	sbuf_add(b, (const char *)d, sizeof d);
	put_svarint(b, f->time);
	put_svarint(b, f->hist_len);
	put_svarint(b, f->hist_head);
	for (int h = 0; h < 2; h++) {
		const float *a = h ? f->it_hist : f->pue_hist;

		for (int i = 0; i < PUE_HISTORY; i++) {
			uint32_t u;

			memcpy(&u, &a[i], sizeof u);
			tmp[i] = u;
		}
		put_col(b, tmp, PUE_HISTORY);
	}
}

static void put_per_gpu(struct sbuf *b, const struct model *m, int64_t *tmp)
{
	for (int k = 0; k < MET_COUNT; k++)
		put_i32s(b, m->met[k], (size_t)m->ngpus, tmp);
	put_i32s(b, m->last_xid, (size_t)m->ngpus, tmp);
	for (int32_t g = 0; g < m->ngpus; g++)
		tmp[g] = m->gpu_job[g] >= 0 ? m->jobs[m->gpu_job[g]].id : 0;
	put_col(b, tmp, (size_t)m->ngpus);
}

/* Subtracts (sign -1) or adds back (+1) the prediction of every port. */
static void predict_ports(struct ib_port *ports, int32_t n, const struct kf_pred *pred, int sign)
{
	for (int32_t i = 0; i < n && pred && i < pred->nports; i++) {
		const struct port_pred *q = &pred->p[i];
		struct ib_port *p = &ports[i];
		uint64_t s = sign > 0 ? 1 : (uint64_t)-1;

		if (!q->have)
			continue;
		p->state = (int32_t)((uint32_t)p->state + (uint32_t)(s * (uint64_t)q->last[0]));
		p->last = (int64_t)((uint64_t)p->last + s * (uint64_t)q->time);
		for (int c = 0; c < IBC_COUNT; c++) {
			p->c[c] += s * (uint64_t)q->last[2 + c];
			if (q->have_prev)
				p->delta[c] += s * ((uint64_t)q->last[2 + c] - (uint64_t)q->prev[2 + c]);
		}
	}
}

/* tmp holds n int64s, the struct copy `copy` bytes (kept in s). */
static int64_t *scratch_fit(struct kf_scratch *s, size_t n)
{
	if (n + 1 > s->ntmp) {
		s->ntmp = n + 1;
		s->tmp = xrealloc(s->tmp, sizeof *s->tmp * s->ntmp);
	}
	return s->tmp;
}

void kf_scratch_free(struct kf_scratch *s)
{
	sbuf_free(&s->cols);
	sbuf_free(&s->copy);
	sbuf_free(&s->stat);
	sbuf_free(&s->stat_raw);
	free(s->tmp);
	memset(s, 0, sizeof *s);
}

void kf_encode_static(const struct model *m, struct sbuf *stat, struct kf_scratch *s)
{
	int64_t *tmp = scratch_fit(s, (size_t)m->ngpus);

	put_uvarint(stat, KF_VERSION);
	put_uvarint(stat, (uint64_t)m->ngpus);
	kf_put_structs(stat, m->uuid, (size_t)m->ngpus, sizeof *m->uuid, tmp, &s->cols);
	kf_put_structs(stat, m->pci, (size_t)m->ngpus, sizeof *m->pci, tmp, &s->cols);
	kf_put_structs(stat, m->gpu_name, (size_t)m->ngpus, sizeof *m->gpu_name, tmp, &s->cols);
}

/* The ports less their prediction (keyframe.h), in s->copy. */
static void put_ports(struct sbuf *dyn, const struct model *m, const struct kf_pred *pred, int64_t *tmp,
		      struct kf_scratch *s)
{
	size_t nports = (size_t)m->nnodes * (size_t)m->topo.rails, bytes = sizeof *m->ports * nports;
	int predicted = pred && pred->nports == (int32_t)nports;

	if (s->copy.cap < bytes + 1) {
		s->copy.s = xrealloc(s->copy.s, bytes + 1);
		s->copy.cap = bytes + 1;
	}
	struct ib_port *ports = (struct ib_port *)(void *)s->copy.s;

	memcpy(ports, m->ports, bytes);
	if (predicted)
		predict_ports(ports, (int32_t)nports, pred, -1);
	put_uvarint(dyn, (uint64_t)predicted);
	kf_put_structs(dyn, ports, nports, sizeof *ports, tmp, &s->cols);
}

void kf_encode_dyn(const struct model *m, const struct kf_pred *pred, struct sbuf *dyn, struct kf_scratch *s)
{
	size_t nports = (size_t)m->nnodes * (size_t)m->topo.rails;
	size_t most = MAX(MAX((size_t)m->ngpus, nports), MAX((size_t)m->nfaults, (size_t)PUE_HISTORY)) + 1;
	int64_t *tmp = scratch_fit(s, MAX(most, (size_t)m->nnodes + 1));

	put_signature(dyn);
	put_str(dyn, m->cluster);
	put_bytes(dyn, &m->topo, sizeof m->topo);
	put_svarint(dyn, m->nnodes);
	put_svarint(dyn, m->ngpus);
	put_svarint(dyn, m->gpus_per_node);
	put_svarint(dyn, m->time);
	put_svarint(dyn, m->start_time);
	put_svarint(dyn, m->tick);
	put_uvarint(dyn, m->events);
	put_uvarint(dyn, m->parse_errors);
	put_uvarint(dyn, m->next_fault_id);
	put_uvarint(dyn, m->next_burst_id);
	if (m->nnodes) {
		kf_put_structs(dyn, m->nodes, (size_t)m->nnodes, sizeof *m->nodes, tmp, &s->cols);
		put_jobs(dyn, m);
		put_per_gpu(dyn, m, tmp);
		put_ports(dyn, m, pred, tmp, s);
		for (int32_t i = 0; i < m->nnodes; i++)
			tmp[i] = m->node_last_fault[i];
		put_col(dyn, tmp, (size_t)m->nnodes);
		for (int32_t i = 0; i < m->nnodes; i++)
			tmp[i] = m->node_burst[i];
		put_col(dyn, tmp, (size_t)m->nnodes);
	}
	put_uvarint(dyn, (uint64_t)m->nfaults);
	put_uvarint(dyn, (uint64_t)m->faults_cap);
	kf_put_structs(dyn, m->faults, (size_t)m->nfaults, sizeof *m->faults, tmp, &s->cols);
	put_uvarint(dyn, (uint64_t)m->nxid_wait);
	kf_put_structs(dyn, m->xid_wait, (size_t)m->nxid_wait, sizeof *m->xid_wait, tmp, &s->cols);
	put_facility(dyn, &m->fac, tmp);
}

void kf_encode(const struct model *m, const struct kf_pred *pred, struct sbuf *stat, struct sbuf *dyn)
{
	struct kf_scratch s = {0};

	kf_encode_static(m, stat, &s);
	kf_encode_dyn(m, pred, dyn, &s);
	kf_scratch_free(&s);
}

uint64_t kf_digest(const struct sbuf *stat)
{
	return hash_bytes(HASH_INIT, stat->s, stat->len) & 0x7fffffffffffffffULL;
}

/* ---- decode ---- */

struct dec {
	struct rd r;
	struct model *m;
	struct arena *a;
	int64_t *tmp;              /* a column being decoded: ntmp entries */
	size_t ntmp;
	const struct kf_pred *pred;
	struct sbuf *cols;         /* byte columns (kfcols.c) */
	struct kf_scratch *s;
};

/* Makes d->tmp hold n entries (a count read from the file, already checked
 * against what the blob can hold). */
static void tmp_fit(struct dec *d, size_t n)
{
	if (n + 1 > d->ntmp) {
		d->ntmp = n + 1;
		d->tmp = xrealloc(d->tmp, sizeof *d->tmp * d->ntmp);
	}
}

static const char *get_str(struct dec *d)
{
	size_t n;
	const uint8_t *p = rd_bytes(&d->r, &n);

	return p ? arena_strndup(d->a, (const char *)p, n) : NULL;
}

static void apply(struct model *m, struct event *ev)
{
	ev->time = 0;
	ev->source = "keyframe";
	model_apply(m, ev);
}

/* The topology through the model's own code, then the node names (one
 * rename rebuilds the name map). */
static int get_inventory(struct dec *d, const char *cluster, const struct topo *t)
{
	struct model *m = d->m;
	struct event ev = {.type = EV_TOPOLOGY};

	ev.u.topology = (struct ev_topology){t->sus, t->nodes_per_su, t->gpus_per_node, t->nodes, t->gpus, cluster};
	apply(m, &ev);
	if (m->nnodes != t->nodes || memcmp(&m->topo, t, sizeof *t))
		return -1;
	if (kf_get_structs(&d->r, m->nodes, (size_t)m->nnodes, sizeof *m->nodes, d->tmp, d->cols) < 0)
		return -1;
	model_index_names(m);   /* the names came in with the nodes, not by events */
	return 0;
}

/* Jobs in their slots: holes are filled with placeholder jobs that end once
 * every slot exists, as the model leaves holes. */
static int get_jobs(struct dec *d)
{
	uint64_t n = rd_uvarint(&d->r);
	uint32_t *holes = xmalloc(sizeof *holes * (n + 1));
	size_t nh = 0;
	struct event ev;

	if (d->r.err || n > (uint64_t)(d->r.end - d->r.p)) {
		free(holes);
		return -1;
	}
	for (uint64_t i = 0; i < n && !d->r.err; i++) {
		memset(&ev, 0, sizeof ev);
		ev.type = EV_JOB;
		ev.u.job.id = (uint32_t)rd_uvarint(&d->r);
		if (!ev.u.job.id) {
			ev.u.job.id = holes[nh++] = 0xffffffffu - (uint32_t)i;
			ev.u.job.state = JOB_PENDING;
			apply(d->m, &ev);
			continue;
		}
		ev.u.job.state = (int32_t)rd_svarint(&d->r);
		ev.u.job.gpus = (int32_t)rd_svarint(&d->r);
		ev.u.job.gpu_mask = (uint32_t)rd_uvarint(&d->r);
		ev.u.job.submit_time = rd_svarint(&d->r);
		ev.u.job.start_time = rd_svarint(&d->r);
		ev.u.job.name = get_str(d);
		ev.u.job.user = get_str(d);
		ev.u.job.partition = get_str(d);
		ev.u.job.nodes = get_str(d);
		if (!d->r.err)
			apply(d->m, &ev);
	}
	for (size_t i = 0; i < nh; i++) {
		memset(&ev, 0, sizeof ev);
		ev.type = EV_JOB_END;
		ev.u.job_end.id = holes[i];
		apply(d->m, &ev);
	}
	free(holes);
	return d->r.err || d->m->njobs != (int32_t)n ? -1 : 0;
}

static int get_per_gpu(struct dec *d)
{
	struct model *m = d->m;
	size_t n = (size_t)m->ngpus;

	for (int k = 0; k < MET_COUNT; k++)
		if (get_i32s(&d->r, m->met[k], n, d->tmp) < 0)
			return -1;
	if (get_i32s(&d->r, m->last_xid, n, d->tmp) < 0 || get_col(&d->r, d->tmp, n) < 0)
		return -1;
	for (size_t g = 0; g < n; g++) {
		struct job *j = d->tmp[g] ? model_job(m, (uint32_t)d->tmp[g]) : NULL;

		if (d->tmp[g] && !j)
			return -1;
		m->gpu_job[g] = j ? (int32_t)(j - m->jobs) : -1;
	}
	return 0;
}

static int get_nodes_rest(struct dec *d)
{
	struct model *m = d->m;
	int32_t nports = m->nnodes * m->topo.rails;
	uint64_t predicted = rd_uvarint(&d->r);

	if (predicted > 1 || (predicted && (!d->pred || d->pred->nports != nports)))
		return -3;   /* needs the prediction */
	if (kf_get_structs(&d->r, m->ports, (size_t)nports, sizeof *m->ports, d->tmp, d->cols) < 0)
		return -1;
	if (predicted)
		predict_ports(m->ports, nports, d->pred, 1);
	if (get_col(&d->r, d->tmp, (size_t)m->nnodes) < 0)
		return -1;
	for (int32_t i = 0; i < m->nnodes; i++)
		m->node_last_fault[i] = d->tmp[i];
	if (get_col(&d->r, d->tmp, (size_t)m->nnodes) < 0)
		return -1;
	for (int32_t i = 0; i < m->nnodes; i++)
		m->node_burst[i] = (uint32_t)d->tmp[i];
	return 0;
}

static int get_faults(struct dec *d)
{
	struct model *m = d->m;
	uint64_t n = rd_uvarint(&d->r), cap = rd_uvarint(&d->r);

	if (d->r.err || n > cap || cap > (uint64_t)INT32_MAX / sizeof *m->faults ||
	    n > (uint64_t)(d->r.end - d->r.p))
		return -1;
	if (cap && (cap < 256 || cap > (1u << 24) || (cap & (cap - 1))))   /* the model doubles 256 */
		return -1;
	free(m->faults);
	m->faults = xcalloc((size_t)n + 1, sizeof *m->faults);   /* memory as the file holds faults */
	m->nfaults = (int32_t)n;
	m->faults_alloc = (int32_t)n;
	m->faults_cap = (int32_t)cap;
	tmp_fit(d, (size_t)MAX(n, (uint64_t)XID_WAIT_MAX));
	if (kf_get_structs(&d->r, m->faults, (size_t)n, sizeof *m->faults, d->tmp, d->cols) < 0)
		return -1;
	n = rd_uvarint(&d->r);   /* the XIDs waiting for their GPU */
	if (d->r.err || n > XID_WAIT_MAX)
		return -1;
	m->xid_wait = xcalloc((size_t)n + 1, sizeof *m->xid_wait);
	m->nxid_wait = (int32_t)n;
	return kf_get_structs(&d->r, m->xid_wait, (size_t)n, sizeof *m->xid_wait, d->tmp, d->cols);
}

static int get_facility(struct dec *d)
{
	struct facility *f = &d->m->fac;
	double v[8];

	f->known = (int)rd_svarint(&d->r);
	if ((size_t)(d->r.end - d->r.p) < sizeof v)
		return -1;
	memcpy(v, d->r.p, sizeof v);
	d->r.p += sizeof v;
	f->facility_kw = v[0], f->it_kw = v[1], f->cooling_kw = v[2], f->pue = v[3];
	f->supply_c = v[4], f->return_c = v[5], f->flow_lpm = v[6], f->outside_c = v[7];
	f->time = rd_svarint(&d->r);
	f->hist_len = (int32_t)rd_svarint(&d->r);
	f->hist_head = (int32_t)rd_svarint(&d->r);
	for (int h = 0; h < 2; h++) {
		float *a = h ? f->it_hist : f->pue_hist;

		if (get_col(&d->r, d->tmp, PUE_HISTORY) < 0)
			return -1;
		for (int i = 0; i < PUE_HISTORY; i++) {
			uint32_t u = (uint32_t)d->tmp[i];

			memcpy(&a[i], &u, sizeof u);
		}
	}
	return d->r.err ? -1 : 0;
}

static int get_static(struct model *m, const void *stat, size_t slen, int64_t *tmp, struct sbuf *cols)
{
	struct rd r = rd_make(stat, slen);

	if (rd_uvarint(&r) != KF_VERSION || rd_uvarint(&r) != (uint64_t)m->ngpus)
		return -1;
	if (kf_get_structs(&r, m->uuid, (size_t)m->ngpus, sizeof *m->uuid, tmp, cols) < 0 ||
	    kf_get_structs(&r, m->pci, (size_t)m->ngpus, sizeof *m->pci, tmp, cols) < 0)
		return -1;
	return kf_get_structs(&r, m->gpu_name, (size_t)m->ngpus, sizeof *m->gpu_name, tmp, cols);
}

/* The static part, or (the same blob as the one decoded last: one for a
 * whole recording, 14 MB of GPU identities at 102,400 GPUs) a copy of what
 * it held. */
static int get_static_kept(struct dec *d, const void *stat, size_t slen)
{
	struct model *m = d->m;
	struct kf_scratch *s = d->s;
	size_t n = (size_t)m->ngpus, parts[3] = {sizeof *m->uuid * n, sizeof *m->pci * n, sizeof *m->gpu_name * n};
	void *to[3] = {m->uuid, m->pci, m->gpu_name};
	const char *p = s->stat_raw.s;

	if (s->stat.len == slen && slen && s->stat_raw.len == parts[0] + parts[1] + parts[2] && !memcmp(s->stat.s, stat, slen)) {
		for (int i = 0; i < 3; p += parts[i], i++)
			memcpy(to[i], p, parts[i]);
		return 0;
	}
	sbuf_reset(&s->stat);
	sbuf_reset(&s->stat_raw);
	if (get_static(m, stat, slen, d->tmp, d->cols) < 0)
		return -1;
	sbuf_add(&s->stat, stat, slen);
	for (int i = 0; i < 3; i++)
		sbuf_add(&s->stat_raw, to[i], parts[i]);
	return 0;
}

static int decode(struct dec *d, const void *stat, size_t slen)
{
	struct model *m = d->m;
	const char *cluster;
	const uint8_t *tp;
	size_t tlen;
	struct topo topo;
	int64_t v[6];
	uint64_t u[4];

	if (check_signature(&d->r) < 0)
		return -2;
	cluster = get_str(d);
	tp = rd_bytes(&d->r, &tlen);
	for (int i = 0; i < 6; i++)
		v[i] = rd_svarint(&d->r);
	for (int i = 0; i < 4; i++)
		u[i] = rd_uvarint(&d->r);
	if (!cluster || !tp || tlen != sizeof topo || d->r.err || v[0] < 0 || v[0] > 1 << 24)
		return -1;
	memcpy(&topo, tp, sizeof topo);
	if (v[0] > 0) {
		struct topo built;

		/* a topology myriad builds, and no more nodes than the blob has bytes */
		if (topo.nodes != v[0] || v[0] > (int64_t)(d->r.end - d->r.p) ||
		    topo_build(&built, topo.nodes, topo.nodes_per_su, topo.gpus_per_node) < 0 ||
		    memcmp(&built, &topo, sizeof topo))
			return -1;
		tmp_fit(d, (size_t)(MAX(topo.gpus, topo.nodes * topo.rails) + PUE_HISTORY));
		int rc;

		if (topo.nodes != v[0] || get_inventory(d, cluster, &topo) < 0 || get_jobs(d) < 0 || get_per_gpu(d) < 0)
			return -1;
		if ((rc = get_nodes_rest(d)) < 0 || get_static_kept(d, stat, slen) < 0)
			return rc < 0 ? rc : -1;
	} else {
		tmp_fit(d, PUE_HISTORY);
		snprintf(m->cluster, sizeof m->cluster, "%s", cluster);
	}
	if (get_faults(d) < 0 || get_facility(d) < 0)
		return -1;
	m->time = v[3], m->start_time = v[4], m->tick = v[5];
	m->events = u[0], m->parse_errors = u[1];
	m->next_fault_id = (uint32_t)u[2], m->next_burst_id = (uint32_t)u[3];
	return 0;
}

int kf_decode(struct model *m, const struct kf_pred *pred, const void *stat, size_t slen, const void *dyn,
	      size_t dlen, struct kf_scratch *s, char **err)
{
	struct kf_scratch own = {0};
	struct arena a = {0};
	struct dec d = {rd_make(dyn, dlen), m, &a, NULL, 0, pred, NULL, NULL};
	int rc;

	if (!s)
		s = &own;
	d.tmp = s->tmp;
	d.ntmp = s->ntmp;
	d.cols = &s->cols;
	d.s = s;
	model_free(m);
	model_init(m);
	rc = decode(&d, stat, slen);
	s->tmp = d.tmp;
	s->ntmp = d.ntmp;
	arena_free(&a);
	kf_scratch_free(&own);
	if (rc < 0) {
		model_free(m);
		model_init(m);
		*err = xstrdup(rc == -2   ? "keyframe written by a build with another model layout"
			       : rc == -3 ? "keyframe without the IB readings it was predicted from"
					  : "malformed keyframe");
		return -1;
	}
	return 0;
}
