/*
 * fault.c - opening, folding, acknowledging and closing faults (see fault.h).
 *
 * A fault is opened by an event that shows something wrong: an XID line, an
 * IB counter that moved, a GPU too hot, a CDU out of range, a line a parser
 * rejected, a host key that changed. Repeats of the same fault (same node,
 * GPU, kind and code) while it is open fold into it (count). Faults on one
 * node less than 3 minutes apart share a burst id, as NVIDIA's fleet tools
 * group XIDs. Conditions (heat, a port down, cooling) close themselves when
 * they clear; events (XIDs, link_downed) stay open until the node is resumed
 * or an operator closes them. An XID whose PCI address names no GPU yet
 * waits for the GPU's identity (model.h, struct xid_wait).
 */
#include <stdio.h>
#include <string.h>
#include "fault.h"
#include "xidcat.h"
#include "probe/parse.h"

static const char *const kind_names[FK_COUNT] = {
	"xid", "ecc", "nvlink", "ib", "thermal", "cooling", "power", "parse", "conn", "host",
};
static const char *const sev_names[] = {"info", "warn", "error", "critical"};

const char *fault_kind_name(enum fault_kind k)
{
	return (unsigned)k < FK_COUNT ? kind_names[k] : "?";
}

int fault_kind_from_name(const char *s)
{
	for (int i = 0; i < FK_COUNT; i++)
		if (!strcmp(kind_names[i], s))
			return i;
	return -1;
}

const char *severity_name(enum severity s)
{
	return (unsigned)s < 4 ? sev_names[s] : "?";
}

int severity_from_name(const char *s)
{
	for (int i = 0; i < (int)ARRAY_LEN(sev_names); i++)
		if (!strcmp(sev_names[i], s))
			return i;
	return -1;
}

/* Copies text, replacing control bytes so nothing raw is stored. */
static void copy_printable(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	memset(dst, 0, size);
	for (; src && *src && i + 1 < size; src++)
		dst[i++] = ((unsigned char)*src < 0x20 || *src == 0x7f) ? '?' : *src;
}

struct fault *model_fault(const struct model *m, uint32_t id)
{
	int32_t lo = 0, hi = m->nfaults - 1;

	while (lo <= hi) {
		int32_t mid = (lo + hi) / 2;

		if (m->faults[mid].id == id)
			return &m->faults[mid];
		if (m->faults[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

int32_t model_open_faults(const struct model *m)
{
	int32_t n = 0;

	for (int32_t i = 0; i < m->nfaults; i++)
		if (!m->faults[i].close_time)
			n++;
	return n;
}

/* ---- the open faults' positions (model.h: struct fault_open), so that
 * finding an open fault walks the open ones, not the thousands of closed
 * ones kept ---- */

static void open_push(struct fault_open *o, int32_t pos)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->pos = xrealloc(o->pos, sizeof *o->pos * (size_t)o->cap);
	}
	o->pos[o->n++] = pos;
}

static struct fault_open *open_faults(struct model *m)
{
	struct fault_open *o = m->open ? m->open : (m->open = xcalloc(1, sizeof *m->open));

	if (!o->ok) {
		o->n = 0;
		for (int32_t i = 0; i < m->nfaults; i++)
			if (!m->faults[i].close_time)
				open_push(o, i);
		o->ok = 1;
	}
	return o;
}

static void open_drop(struct fault_open *o, int32_t pos)
{
	for (int32_t k = o->n - 1; k >= 0; k--)
		if (o->pos[k] == pos) {
			memmove(&o->pos[k], &o->pos[k + 1], sizeof *o->pos * (size_t)(o->n - k - 1));
			o->n--;
			return;
		}
}

/* The newest open fault of this node, GPU, kind and code. */
static struct fault *find_open(struct model *m, int32_t node, int32_t gpu, int32_t kind, int32_t code)
{
	const struct fault_open *o = open_faults(m);

	for (int32_t k = o->n - 1; k >= 0; k--) {
		struct fault *f = &m->faults[o->pos[k]];

		if (f->node == node && f->gpu == gpu && f->kind == kind && f->code == code)
			return f;
	}
	return NULL;
}

/* Drops the oldest closed faults once more than FAULTS_KEEP_CLOSED are kept. */
static void trim_closed(struct model *m)
{
	int32_t closed = 0, drop, w = 0;

	for (int32_t i = 0; i < m->nfaults; i++)
		closed += m->faults[i].close_time != 0;
	if (closed <= FAULTS_KEEP_CLOSED + FAULTS_KEEP_CLOSED / 4)
		return;
	drop = closed - FAULTS_KEEP_CLOSED;
	for (int32_t i = 0; i < m->nfaults; i++) {
		if (drop > 0 && m->faults[i].close_time) {
			drop--;
			continue;
		}
		m->faults[w++] = m->faults[i];
	}
	m->nfaults = w;
	if (m->open)
		m->open->ok = 0;   /* the open ones moved */
}

/* A new fault, never folded into an open one. */
static struct fault *fault_new(struct model *m, int64_t time, int32_t node, int32_t gpu,
			       int32_t kind, int32_t code, int32_t sev, const char *text, const char *remedy)
{
	struct fault *f;

	if (m->nfaults == m->faults_cap) {
		trim_closed(m);
		if (m->nfaults == m->faults_cap)
			m->faults_cap = m->faults_cap ? m->faults_cap * 2 : 256;
	}
	if (m->nfaults == m->faults_alloc) {   /* memory as it is used, up to faults_cap */
		m->faults_alloc = MIN(m->faults_cap, MAX(m->faults_alloc * 2, 256));
		m->faults = xrealloc(m->faults, sizeof *m->faults * (size_t)m->faults_alloc);
	}
	f = &m->faults[m->nfaults++];
	if (m->open && m->open->ok)
		open_push(m->open, m->nfaults - 1);
	memset(f, 0, sizeof *f);
	f->id = m->next_fault_id++;
	f->time = time;
	f->node = node;
	f->gpu = gpu;
	f->kind = kind;
	f->code = code;
	f->severity = sev;
	f->count = 1;
	copy_printable(f->text, sizeof f->text, text);
	copy_printable(f->remedy, sizeof f->remedy, remedy);
	if (node >= 0 && node < m->nnodes) {
		if (!m->node_last_fault[node] || time - m->node_last_fault[node] > BURST_GAP_US)
			m->node_burst[node] = m->next_burst_id++;
		m->node_last_fault[node] = time;
		f->burst = m->node_burst[node];
		m->nodes[node].open_faults++;
	}
	return f;
}

static struct fault *fault_open(struct model *m, int64_t time, int32_t node, int32_t gpu,
				int32_t kind, int32_t code, int32_t sev, const char *text, const char *remedy)
{
	struct fault *f = find_open(m, node, gpu, kind, code);

	if (f) {
		f->count++;
		return f;
	}
	return fault_new(m, time, node, gpu, kind, code, sev, text, remedy);
}

static void close_one(struct model *m, struct fault *f, int64_t time, const char *why)
{
	if (f->close_time)
		return;
	if (m->open && m->open->ok)
		open_drop(m->open, (int32_t)(f - m->faults));
	f->close_time = time > 0 ? time : 1;
	copy_printable(f->close_why, sizeof f->close_why, why);
	if (f->node >= 0 && f->node < m->nnodes && m->nodes[f->node].open_faults)
		m->nodes[f->node].open_faults--;
}

int fault_close(struct model *m, uint32_t id, int64_t time, const char *why)
{
	struct fault *f = model_fault(m, id);

	if (!f || f->close_time)
		return -1;
	close_one(m, f, time, why);
	return 0;
}

void fault_close_node(struct model *m, int32_t node, int64_t time, const char *why)
{
	for (int32_t i = 0; i < m->nfaults; i++)
		if (m->faults[i].node == node && !m->faults[i].close_time)
			close_one(m, &m->faults[i], time, why);
}

static void clear_condition(struct model *m, int64_t time, int32_t node, int32_t gpu, int32_t kind, int32_t code)
{
	struct fault *f = find_open(m, node, gpu, kind, code);

	if (f)
		close_one(m, f, time, "cleared");
}

void fault_ack(struct model *m, const struct event *ev)
{
	struct fault *f = model_fault(m, ev->u.fault_ack.id);

	if (!f || f->ack_time)
		return;
	f->ack_time = ev->time > 0 ? ev->time : 1;
	copy_printable(f->ack_who, sizeof f->ack_who, ev->u.fault_ack.who);
}

/* An NVSwitch SXid: a fault of the switch, on the node whose tray holds it
 * (on an HGX baseboard the switches and the GPUs are one node), with no GPU
 * index; one fault per switch and SXid code, links folded into its count. */
static void fault_on_sxid(struct model *m, const struct event *ev)
{
	const struct ev_xid *e = &ev->u.xid;
	char text[TEXT_MAX_LEN], link[24] = "";

	if (e->link >= 0)
		snprintf(link, sizeof link, " link %d", e->link);
	snprintf(text, sizeof text, "NVSwitch %s%s SXid %d%s%s%s", e->pci && e->pci[0] ? e->pci : "?", link, e->code,
		 e->fatal == 1 ? " (fatal)" : e->fatal == 0 ? " (non-fatal)" : "", e->text && e->text[0] ? " -- " : "",
		 e->text ? e->text : "");
	fault_open(m, ev->time, e->node, -1, FK_NVLINK, e->code, e->fatal == 1 ? SEV_CRITICAL : SEV_WARN, text,
		   e->fatal == 1 ? "drain; reset the GPUs and NVSwitches (reboot the node)"
				 : "watch the switch's links; drain if it repeats");
}

/* ---- XIDs waiting for their GPU's identity ---- */

/* The open fault of this code that waits on node for the GPU at pci, or NULL. */
static struct fault *waiting(const struct model *m, int32_t node, const char *pci, int32_t code)
{
	for (int32_t i = 0; i < m->nxid_wait; i++) {
		const struct xid_wait *w = &m->xid_wait[i];
		struct fault *f;

		if (w->node == node && pci_same_device(w->pci, pci) && (f = model_fault(m, w->fault)) &&
		    !f->close_time && f->code == code)
			return f;
	}
	return NULL;
}

static void wait_add(struct model *m, const struct fault *f, const char *pci)
{
	struct xid_wait *w;

	if (m->nxid_wait == XID_WAIT_MAX) {
		memmove(m->xid_wait, m->xid_wait + 1, sizeof *m->xid_wait * (XID_WAIT_MAX - 1));
		m->nxid_wait--;
	}
	m->xid_wait = xrealloc(m->xid_wait, sizeof *m->xid_wait * (size_t)(m->nxid_wait + 1));
	w = &m->xid_wait[m->nxid_wait++];
	memset(w, 0, sizeof *w);   /* whole: hashed as bytes */
	w->fault = f->id;
	w->node = f->node;
	memcpy(w->pci, pci, strnlen(pci, sizeof w->pci - 1));
}

/* GPU gpu of node has said its identity: the faults waiting for its PCI
 * address name it (and it has their XID as its last); waits whose fault is
 * no longer kept go too. */
void fault_on_gpu_identity(struct model *m, int32_t node, int32_t gpu)
{
	int32_t g = model_gpu(m, node, gpu), keep = 0;

	for (int32_t i = 0; i < m->nxid_wait; i++) {
		struct xid_wait w = m->xid_wait[i];
		struct fault *f = model_fault(m, w.fault);

		if (f && w.node == node && m->pci[g][0] && pci_same_device(m->pci[g], w.pci)) {
			f->gpu = gpu;
			m->last_xid[g] = f->code;
		} else if (f) {
			m->xid_wait[keep++] = w;
		}
	}
	m->nxid_wait = keep;
}

void fault_on_xid(struct model *m, const struct event *ev)
{
	const struct ev_xid *e = &ev->u.xid;
	const struct xid_info *x = xid_lookup(e->code);
	char text[TEXT_MAX_LEN];
	int32_t gpu = e->gpu >= 0 && e->gpu < m->gpus_per_node ? e->gpu : -1;
	struct fault *f;

	if (e->node < 0 || e->node >= m->nnodes)
		return;
	if (e->sxid) {
		fault_on_sxid(m, ev);
		return;
	}
	if (gpu < 0)   /* the GPU's identity may have come since the line was read */
		gpu = model_gpu_of_pci(m, e->node, e->pci);
	if (gpu >= 0)
		m->last_xid[model_gpu(m, e->node, gpu)] = e->code;
	snprintf(text, sizeof text, "XID %d: %s%s%s", e->code, x->meaning, e->text && e->text[0] ? " -- " : "",
		 e->text ? e->text : "");
	if (gpu >= 0 || !e->pci || !e->pci[0]) {
		fault_open(m, ev->time, e->node, gpu, x->kind, e->code, x->severity, text, x->remedy);
	} else if ((f = waiting(m, e->node, e->pci, e->code))) {
		f->count++;   /* the same GPU again, still unnamed */
	} else {
		f = fault_new(m, ev->time, e->node, -1, x->kind, e->code, x->severity, text, x->remedy);
		wait_add(m, f, e->pci);
	}
}

static void ib_rules(struct model *m, const struct event *ev, struct ib_port *p, int32_t state_was, double secs)
{
	const struct ev_ib *e = &ev->u.ib;
	char text[TEXT_MAX_LEN];

	if (p->delta[IBC_LINK_DOWNED] > 0) {
		snprintf(text, sizeof text, "mlx5_%d link_downed +%llu", e->port,
			 (unsigned long long)p->delta[IBC_LINK_DOWNED]);
		fault_open(m, ev->time, e->node, e->port, FK_IB, IBC_LINK_DOWNED, SEV_CRITICAL, text,
			   "drain; reseat or replace cable/transceiver");
	}
	if (p->delta[IBC_LOCAL_LINK_INTEGRITY_ERRORS] > 0 || p->delta[IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] > 0) {
		snprintf(text, sizeof text, "mlx5_%d link integrity/buffer overrun errors", e->port);
		fault_open(m, ev->time, e->node, e->port, FK_IB, IBC_LOCAL_LINK_INTEGRITY_ERRORS, SEV_ERROR, text,
			   "check cable and HCA; drain if it repeats");
	}
	if (secs > 0 && (double)p->delta[IBC_SYMBOL_ERROR] * 3600.0 / secs > SYMBOL_ERR_PER_HOUR) {
		snprintf(text, sizeof text, "mlx5_%d symbol_error %.0f/h", e->port,
			 (double)p->delta[IBC_SYMBOL_ERROR] * 3600.0 / secs);
		fault_open(m, ev->time, e->node, e->port, FK_IB, IBC_SYMBOL_ERROR, SEV_WARN, text,
			   "clean or replace the fibre/transceiver");
	}
	if (secs > 0 && (double)p->delta[IBC_PORT_RCV_ERRORS] / secs > RCV_ERR_PER_SEC) {
		snprintf(text, sizeof text, "mlx5_%d port_rcv_errors %.0f/s", e->port,
			 (double)p->delta[IBC_PORT_RCV_ERRORS] / secs);
		fault_open(m, ev->time, e->node, e->port, FK_IB, IBC_PORT_RCV_ERRORS, SEV_WARN, text,
			   "check cable; watch for link_downed");
	}
	if (p->state != IBP_UNKNOWN && p->state != IBP_ACTIVE && state_was != p->state) {
		snprintf(text, sizeof text, "mlx5_%d port not active (state %d)", e->port, p->state);
		fault_open(m, ev->time, e->node, e->port, FK_IB, IB_STATE_CODE, SEV_ERROR, text,
			   "drain; check cable, switch port and HCA");
		p->downs++;
	} else if (p->state == IBP_ACTIVE && m->nodes[e->node].open_faults) {
		/* a node with no open fault has no condition to clear: no walk through the kept faults per port */
		clear_condition(m, ev->time, e->node, e->port, FK_IB, IB_STATE_CODE);
	}
}

void fault_on_ib(struct model *m, const struct event *ev)
{
	const struct ev_ib *e = &ev->u.ib;

	if (e->node < 0 || e->node >= m->nnodes || e->port < 0 || e->port >= m->topo.rails)
		return;
	struct ib_port *p = &m->ports[e->node * m->topo.rails + e->port];
	int first = p->last == 0;
	int32_t state_was = p->state;
	double secs = first ? 0 : (double)(ev->time - p->last) / US_PER_SEC;

	for (int c = 0; c < IBC_COUNT; c++) {
		if (!(e->have & (1u << c))) {
			p->delta[c] = 0;
			continue;
		}
		/* a counter that went back was reset (driver reload): count from 0 */
		p->delta[c] = first ? 0 : e->c[c] >= p->c[c] ? e->c[c] - p->c[c] : e->c[c];
		p->c[c] = e->c[c];
	}
	if (e->state != IBP_UNKNOWN)
		p->state = e->state;
	p->last = ev->time;
	ib_rules(m, ev, p, state_was, secs);
}

void fault_check_sample(struct model *m, const struct event *ev, int32_t g, int32_t old_ecc)
{
	const struct ev_sample *e = &ev->u.sample;
	int32_t t = e->m[MET_TEMP], thr = e->m[MET_THROTTLE], ecc = e->m[MET_ECC_UNCORR];
	int hot_bits = thr != MET_UNKNOWN && (thr & (THR_HW_THERMAL | THR_SW_THERMAL));
	char text[TEXT_MAX_LEN];

	(void)g;
	if (t != MET_UNKNOWN && (t >= THERMAL_OPEN_C || hot_bits)) {
		snprintf(text, sizeof text, "GPU %d C%s", t, hot_bits ? ", thermal slowdown active" : "");
		fault_open(m, ev->time, e->node, e->gpu, FK_THERMAL, 0, t >= THERMAL_OPEN_C + 5 ? SEV_ERROR : SEV_WARN,
			   text, "check cold plate, CDU flow and fans; drain if it persists");
	} else if (t != MET_UNKNOWN && t < THERMAL_CLEAR_C && !hot_bits && m->nodes[e->node].open_faults) {
		clear_condition(m, ev->time, e->node, e->gpu, FK_THERMAL, 0);
	}
	if (ecc != MET_UNKNOWN && old_ecc != MET_UNKNOWN && ecc > old_ecc) {
		snprintf(text, sizeof text, "uncorrectable ECC errors rose to %d", ecc);
		fault_open(m, ev->time, e->node, e->gpu, FK_ECC, 0, SEV_ERROR, text,
			   "drain, reset GPU; RMA if it recurs");
	}
}

void fault_check_power(struct model *m, const struct event *ev)
{
	const struct ev_power *e = &ev->u.power;
	char text[TEXT_MAX_LEN];
	double dt = e->return_c - e->supply_c;

	if (e->supply_c >= CDU_SUPPLY_MAX_C) {
		snprintf(text, sizeof text, "CDU supply %.1f C (limit %.0f C)", e->supply_c, CDU_SUPPLY_MAX_C);
		fault_open(m, ev->time, -1, -1, FK_COOLING, 1, SEV_WARN, text, "check facility water and CDU");
	} else if (e->supply_c == e->supply_c) {   /* not NaN */
		clear_condition(m, ev->time, -1, -1, FK_COOLING, 1);
	}
	if (dt >= CDU_DELTA_MAX_K) {
		snprintf(text, sizeof text, "CDU delta T %.1f K at %.0f kW: flow too low for the load", dt, e->it_kw);
		fault_open(m, ev->time, -1, -1, FK_COOLING, 2, SEV_ERROR, text, "check pumps, filters and valves");
	} else if (dt == dt) {
		clear_condition(m, ev->time, -1, -1, FK_COOLING, 2);
	}
}

void fault_check_conn(struct model *m, const struct event *ev)
{
	const struct ev_conn *e = &ev->u.conn;
	char text[TEXT_MAX_LEN];

	if (e->state == CONN_HOSTKEY_CHANGED || e->state == CONN_AUTH_FAILED) {
		snprintf(text, sizeof text, "%s: %s", conn_state_name(e->state), e->detail ? e->detail : "");
		fault_open(m, ev->time, e->node, -1, FK_CONN, e->state,
			   e->state == CONN_HOSTKEY_CHANGED ? SEV_CRITICAL : SEV_ERROR, text,
			   e->state == CONN_HOSTKEY_CHANGED ? "verify the host key out of band; never auto-accept"
							    : "check user, key and authorized_keys");
	} else if (e->state == CONN_HOSTKEY_UNKNOWN) {
		snprintf(text, sizeof text, "%s: %s", conn_state_name(e->state), e->detail ? e->detail : "");
		fault_open(m, ev->time, e->node, -1, FK_CONN, e->state, SEV_WARN, text,
			   "compare the fingerprint out of band, then trust it (hostkey, known_hosts)");
	} else if (e->state == CONN_UP) {
		clear_condition(m, ev->time, e->node, -1, FK_CONN, CONN_HOSTKEY_CHANGED);
		clear_condition(m, ev->time, e->node, -1, FK_CONN, CONN_AUTH_FAILED);
		clear_condition(m, ev->time, e->node, -1, FK_CONN, CONN_HOSTKEY_UNKNOWN);
	}
}

void fault_on_parse_error(struct model *m, const struct event *ev)
{
	const struct ev_parse_error *e = &ev->u.parse_error;
	char text[TEXT_MAX_LEN];
	int32_t node = e->node >= 0 && e->node < m->nnodes ? e->node : -1;

	m->parse_errors++;
	if (node >= 0)
		m->nodes[node].parse_errors++;
	snprintf(text, sizeof text, "%s: %s: %.120s", fmt_name(e->fmt), e->error ? e->error : "",
		 e->excerpt ? e->excerpt : "");
	fault_open(m, ev->time, node, -1, FK_PARSE, e->fmt, SEV_WARN, text,
		   "check the probe's command and the node's tools");
}

uint64_t fault_hash(const struct model *m, uint64_t h, hash_fn bulk)
{
	h = hash_bytes(h, &m->next_fault_id, sizeof m->next_fault_id);
	h = hash_bytes(h, &m->next_burst_id, sizeof m->next_burst_id);
	if (m->nfaults)
		h = bulk(h, m->faults, sizeof *m->faults * (size_t)m->nfaults);
	if (m->nxid_wait)   /* only while an XID waits: runs without one hash as before */
		h = bulk(h, m->xid_wait, sizeof *m->xid_wait * (size_t)m->nxid_wait);
	return h;
}

const char *fault_where(const struct model *m, const struct fault *f, char *buf, size_t size)
{
	const char *node = f->node >= 0 && f->node < m->nnodes ? m->nodes[f->node].name : NULL;

	if (node && f->gpu >= 0)
		snprintf(buf, size, f->kind == FK_IB ? "%s r%d" : "%s:%d", node, f->gpu);
	else
		snprintf(buf, size, "%s", node ? node : "facility");
	return buf;
}
