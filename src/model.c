/*
 * model.c - the cluster model as a fold of events (see model.h): applying
 * inventory, samples, scheduler state and jobs, the name and job-id maps, and
 * the model hash. Fault rules live in fault.c.
 */
#include <string.h>
#include "model.h"
#include "nodeset.h"
#include "fault.h"
#include "probe/parse.h"

void model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	m->next_fault_id = 1;
	m->next_burst_id = 1;
}

static void free_jobs(struct model *m)
{
	for (int32_t i = 0; i < m->njobs; i++) {
		free(m->jobs[i].nodes);
		free(m->jobs[i].node_idx);
	}
	free(m->jobs);
	free(m->job_slots);
	m->jobs = NULL;
	m->job_slots = NULL;
	m->njobs = m->jobs_cap = 0;
	m->job_cap = 0;
}

void model_free(struct model *m)
{
	free(m->nodes);
	for (int i = 0; i < MET_COUNT; i++)
		free(m->met[i]);
	free(m->last_xid);
	free(m->gpu_job);
	free(m->uuid);
	free(m->pci);
	free(m->gpu_name);
	free(m->ports);
	free_jobs(m);
	free(m->faults);
	if (m->open)
		free(m->open->pos);
	free(m->open);
	free(m->xid_wait);
	free(m->node_last_fault);
	free(m->node_burst);
	free(m->name_slots);
	memset(m, 0, sizeof *m);
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	memset(dst, 0, size);   /* whole field: the model hash reads all of it */
	memcpy(dst, src ? src : "", n);
}

/* ---- name map: open addressing, linear probing ---- */

static void name_insert(struct model *m, int32_t idx)
{
	uint32_t mask = m->name_cap - 1, h = (uint32_t)hash_str(HASH_INIT, m->nodes[idx].name);

	while (m->name_slots[h & mask] >= 0) {
		if (m->name_slots[h & mask] == idx)
			return;
		h++;
	}
	m->name_slots[h & mask] = idx;
}

static void name_rebuild(struct model *m)
{
	for (uint32_t i = 0; i < m->name_cap; i++)
		m->name_slots[i] = -1;
	for (int32_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].name[0])
			name_insert(m, i);
}

void model_index_names(struct model *m)
{
	name_rebuild(m);
}

int32_t model_node_index(const struct model *m, const char *name)
{
	if (!m->name_cap)
		return -1;
	uint32_t mask = m->name_cap - 1, h = (uint32_t)hash_str(HASH_INIT, name);

	for (;; h++) {
		int32_t i = m->name_slots[h & mask];

		if (i < 0)
			return -1;
		if (!strcmp(m->nodes[i].name, name))
			return i;
	}
}

/* ---- inventory ---- */

static void apply_topology(struct model *m, const struct ev_topology *t)
{
	struct topo topo;

	if (topo_build(&topo, t->nodes, t->nodes_per_su, t->gpus_per_node) < 0)
		return;
	char cluster[NAME_MAX_LEN];

	copy_str(cluster, sizeof cluster, t->name);
	int64_t time = m->time, start = m->start_time, tick = m->tick;

	model_free(m);
	model_init(m);
	m->time = time;
	m->start_time = start;
	m->tick = tick;
	memcpy(m->cluster, cluster, sizeof cluster);
	m->topo = topo;
	m->nnodes = topo.nodes;
	m->ngpus = topo.gpus;
	m->gpus_per_node = topo.gpus_per_node;
	m->nodes = xcalloc((size_t)m->nnodes, sizeof *m->nodes);
	for (int i = 0; i < MET_COUNT; i++) {
		m->met[i] = xmalloc(sizeof(int32_t) * (size_t)m->ngpus);
		for (int32_t g = 0; g < m->ngpus; g++)
			m->met[i][g] = MET_UNKNOWN;
	}
	m->last_xid = xcalloc((size_t)m->ngpus, sizeof *m->last_xid);
	m->gpu_job = xmalloc(sizeof *m->gpu_job * (size_t)m->ngpus);
	for (int32_t g = 0; g < m->ngpus; g++)
		m->gpu_job[g] = -1;
	m->uuid = xcalloc((size_t)m->ngpus, sizeof *m->uuid);
	m->pci = xcalloc((size_t)m->ngpus, sizeof *m->pci);
	m->gpu_name = xcalloc((size_t)m->ngpus, sizeof *m->gpu_name);
	m->ports = xcalloc((size_t)m->nnodes * (size_t)topo.rails, sizeof *m->ports);
	m->node_last_fault = xcalloc((size_t)m->nnodes, sizeof *m->node_last_fault);
	m->node_burst = xcalloc((size_t)m->nnodes, sizeof *m->node_burst);
	for (m->name_cap = 16; m->name_cap < (uint32_t)m->nnodes * 2; m->name_cap *= 2)
		;
	m->name_slots = xmalloc(sizeof *m->name_slots * m->name_cap);
	name_rebuild(m);
}

static void apply_node(struct model *m, const struct ev_node *e)
{
	if (e->node < 0 || e->node >= m->nnodes)
		return;
	struct node *n = &m->nodes[e->node];
	int renamed = strcmp(n->name, e->name ? e->name : "") != 0, had_name = n->name[0] != '\0';

	copy_str(n->name, sizeof n->name, e->name);
	n->su = e->su;
	n->rack = e->rack;
	n->gpus = e->gpus;
	if (renamed && had_name)
		name_rebuild(m);   /* a rename (rare): the old name's slot goes */
	else if (renamed)
		name_insert(m, e->node);   /* naming the inventory: one insertion, not a rebuild per node */
}

static int gpu_ok(const struct model *m, int32_t node, int32_t gpu)
{
	return node >= 0 && node < m->nnodes && gpu >= 0 && gpu < m->gpus_per_node;
}

static void apply_gpu_info(struct model *m, const struct ev_gpu_info *e)
{
	if (!gpu_ok(m, e->node, e->gpu))
		return;
	int32_t g = model_gpu(m, e->node, e->gpu);

	copy_str(m->uuid[g], sizeof m->uuid[g], e->uuid);
	copy_str(m->pci[g], sizeof m->pci[g], e->pci);
	if (e->name && e->name[0])   /* a query without "name" leaves it as it was */
		copy_str(m->gpu_name[g], sizeof m->gpu_name[g], e->name);
	if (m->nxid_wait)
		fault_on_gpu_identity(m, e->node, e->gpu);
}

int32_t model_gpu_of_pci(const struct model *m, int32_t node, const char *pci)
{
	if (node < 0 || node >= m->nnodes || !pci || !pci[0])
		return -1;
	for (int32_t i = 0; i < m->gpus_per_node; i++) {
		const char *p = m->pci[model_gpu(m, node, i)];

		if (p[0] && pci_same_device(p, pci))
			return i;
	}
	return -1;
}

static void apply_sample(struct model *m, const struct event *ev)
{
	const struct ev_sample *e = &ev->u.sample;

	if (!gpu_ok(m, e->node, e->gpu))
		return;
	int32_t g = model_gpu(m, e->node, e->gpu);
	int32_t old_ecc = m->met[MET_ECC_UNCORR][g];

	for (int i = 0; i < MET_COUNT; i++)
		m->met[i][g] = e->m[i];
	m->nodes[e->node].last_sample = ev->time;
	fault_check_sample(m, ev, g, old_ecc);
}

static void apply_node_state(struct model *m, const struct event *ev)
{
	const struct ev_node_state *e = &ev->u.node_state;

	if (e->node < 0 || e->node >= m->nnodes)
		return;
	struct node *n = &m->nodes[e->node];
	int was_out = (n->flags & NODE_F_DRAIN) || n->base == NODE_DOWN;
	int now_out = (e->flags & NODE_F_DRAIN) || e->base == NODE_DOWN;

	n->base = e->base;
	n->flags = e->flags;
	n->reason_time = e->reason_time;
	copy_str(n->reason, sizeof n->reason, e->reason);
	copy_str(n->reason_who, sizeof n->reason_who, e->who);
	if (was_out && !now_out)
		fault_close_node(m, e->node, ev->time, "node resumed");
}

static void apply_conn(struct model *m, const struct event *ev)
{
	const struct ev_conn *e = &ev->u.conn;

	if (e->node >= 0 && e->node < m->nnodes) {
		struct node *n = &m->nodes[e->node];

		n->conn = e->state;
		if (e->state == CONN_UP || (e->detail && *e->detail)) {   /* kept through the reconnect attempts */
			memset(n->conn_why, 0, sizeof n->conn_why);   /* whole: keyframes store nodes as bytes */
			if (e->state != CONN_UP)
				copy_str(n->conn_why, sizeof n->conn_why, e->detail);
		}
		fault_check_conn(m, ev);
	}
}

/* ---- jobs ---- */

static void job_slot_insert(struct model *m, uint32_t id, int32_t idx)
{
	uint32_t mask = m->job_cap - 1, h = id * 2654435761u;

	while (m->job_slots[h & mask] >= 0)
		h++;
	m->job_slots[h & mask] = idx;
}

static void job_slots_rebuild(struct model *m)
{
	uint32_t want = 64;

	while (want < (uint32_t)m->jobs_cap * 2)
		want *= 2;
	if (want != m->job_cap) {
		m->job_cap = want;
		m->job_slots = xrealloc(m->job_slots, sizeof *m->job_slots * want);
	}
	for (uint32_t i = 0; i < m->job_cap; i++)
		m->job_slots[i] = -1;
	for (int32_t i = 0; i < m->njobs; i++)
		if (m->jobs[i].id)
			job_slot_insert(m, m->jobs[i].id, i);
}

struct job *model_job(const struct model *m, uint32_t id)
{
	if (!m->job_cap || !id)
		return NULL;
	uint32_t mask = m->job_cap - 1, h = id * 2654435761u;

	for (;; h++) {
		int32_t i = m->job_slots[h & mask];

		if (i < 0)
			return NULL;
		if (m->jobs[i].id == id)
			return &m->jobs[i];
	}
}

static int job_holds_gpus(int32_t state)
{
	return state == JOB_RUNNING || state == JOB_COMPLETING || state == JOB_SUSPENDED;
}

static void job_release(struct model *m, struct job *j)
{
	int32_t idx = (int32_t)(j - m->jobs);

	for (int32_t k = 0; k < j->nnodes; k++)
		for (int32_t gi = 0; gi < m->gpus_per_node; gi++) {
			int32_t g = model_gpu(m, j->node_idx[k], gi);

			if (m->gpu_job[g] == idx)
				m->gpu_job[g] = -1;
		}
}

static int collect_node(void *ctx, const char *name);

struct collect {
	struct model *m;
	struct job *j;
};

static int collect_node(void *ctx, const char *name)
{
	struct collect *c = ctx;
	int32_t i = model_node_index(c->m, name);

	if (i >= 0)
		c->j->node_idx[c->j->nnodes++] = i;
	return 0;
}

static void job_claim(struct model *m, struct job *j)
{
	int32_t idx = (int32_t)(j - m->jobs);
	uint32_t mask = j->gpu_mask ? j->gpu_mask : (1u << m->gpus_per_node) - 1;

	for (int32_t k = 0; k < j->nnodes; k++)
		for (int32_t gi = 0; gi < m->gpus_per_node; gi++)
			if (mask & (1u << gi))
				m->gpu_job[model_gpu(m, j->node_idx[k], gi)] = idx;
}

static void job_set_nodes(struct model *m, struct job *j, const char *nodes)
{
	struct nodeset *ns;
	char *err = NULL;

	free(j->nodes);
	free(j->node_idx);
	j->nodes = xstrdup(nodes ? nodes : "");
	j->node_idx = NULL;
	j->nnodes = 0;
	if (!j->nodes[0] || !(ns = nodeset_from_slurm(j->nodes, &err))) {
		free(err);
		return;
	}
	if (nodeset_count(ns) > (size_t)m->nnodes) {   /* names are unique: more cannot all be ours */
		nodeset_free(ns);
		return;
	}
	j->node_idx = xmalloc(sizeof *j->node_idx * (nodeset_count(ns) + 1));
	struct collect c = {m, j};

	nodeset_foreach(ns, collect_node, &c);
	nodeset_free(ns);
}

static struct job *job_new(struct model *m, uint32_t id)
{
	int32_t i;

	for (i = 0; i < m->njobs; i++)
		if (!m->jobs[i].id)
			break;
	if (i == m->njobs) {
		if (m->njobs == m->jobs_cap) {
			m->jobs_cap = m->jobs_cap ? m->jobs_cap * 2 : 256;
			m->jobs = xrealloc(m->jobs, sizeof *m->jobs * (size_t)m->jobs_cap);
		}
		m->njobs++;
	}
	memset(&m->jobs[i], 0, sizeof m->jobs[i]);
	m->jobs[i].id = id;
	if ((uint32_t)m->njobs * 2 > m->job_cap)
		job_slots_rebuild(m);
	else
		job_slot_insert(m, id, i);
	return &m->jobs[i];
}

static void apply_job(struct model *m, const struct ev_job *e)
{
	struct job *j;

	if (!e->id || !m->nnodes)
		return;
	if (!(j = model_job(m, e->id)))
		j = job_new(m, e->id);
	if (job_holds_gpus(j->state))
		job_release(m, j);
	j->state = e->state;
	j->gpus = e->gpus;
	j->gpu_mask = e->gpu_mask;
	j->submit_time = e->submit_time;
	j->start_time = e->start_time;
	copy_str(j->name, sizeof j->name, e->name);
	copy_str(j->user, sizeof j->user, e->user);
	copy_str(j->partition, sizeof j->partition, e->partition);
	if (!j->nodes || strcmp(j->nodes, e->nodes ? e->nodes : ""))
		job_set_nodes(m, j, e->nodes);
	if (job_holds_gpus(j->state))
		job_claim(m, j);
}

static void apply_job_end(struct model *m, const struct ev_job_end *e)
{
	struct job *j = model_job(m, e->id);

	if (!j)
		return;
	job_release(m, j);
	free(j->nodes);
	free(j->node_idx);
	memset(j, 0, sizeof *j);
	while (m->njobs > 0 && !m->jobs[m->njobs - 1].id)
		m->njobs--;
	job_slots_rebuild(m);
}

int32_t model_running_jobs(const struct model *m)
{
	int32_t n = 0;

	for (int32_t i = 0; i < m->njobs; i++)
		if (m->jobs[i].id && m->jobs[i].state == JOB_RUNNING)
			n++;
	return n;
}

/* ---- facility ---- */

static void apply_power(struct model *m, const struct event *ev)
{
	const struct ev_power *e = &ev->u.power;
	struct facility *f = &m->fac;

	f->known = 1;
	f->facility_kw = e->facility_kw;
	f->it_kw = e->it_kw;
	f->cooling_kw = e->cooling_kw;
	f->pue = e->it_kw > 0 ? e->facility_kw / e->it_kw : 0;
	f->supply_c = e->supply_c;
	f->return_c = e->return_c;
	f->flow_lpm = e->flow_lpm;
	f->outside_c = e->outside_c;
	f->time = ev->time;
	f->pue_hist[f->hist_head] = (float)f->pue;
	f->it_hist[f->hist_head] = (float)f->it_kw;
	f->hist_head = (f->hist_head + 1) % PUE_HISTORY;
	if (f->hist_len < PUE_HISTORY)
		f->hist_len++;
	fault_check_power(m, ev);
}

void model_apply(struct model *m, const struct event *ev)
{
	m->events++;
	if (ev->time > m->time)
		m->time = ev->time;
	switch (ev->type) {
	case EV_TICK:
		m->tick = ev->u.tick.tick;
		if (!m->start_time || m->tick == 0)
			m->start_time = ev->time - m->tick * US_PER_SEC;
		break;
	case EV_TOPOLOGY: apply_topology(m, &ev->u.topology); break;
	case EV_NODE: apply_node(m, &ev->u.node); break;
	case EV_GPU_INFO: apply_gpu_info(m, &ev->u.gpu_info); break;
	case EV_SAMPLE: apply_sample(m, ev); break;
	case EV_XID: fault_on_xid(m, ev); break;
	case EV_IB: fault_on_ib(m, ev); break;
	case EV_POWER: apply_power(m, ev); break;
	case EV_NODE_STATE: apply_node_state(m, ev); break;
	case EV_JOB: apply_job(m, &ev->u.job); break;
	case EV_JOB_END: apply_job_end(m, &ev->u.job_end); break;
	case EV_FAULT_ACK: fault_ack(m, ev); break;
	case EV_FAULT_CLOSE: fault_close(m, ev->u.fault_close.id, ev->time, ev->u.fault_close.why); break;
	case EV_PARSE_ERROR: fault_on_parse_error(m, ev); break;
	case EV_CONN: apply_conn(m, ev); break;
	default: break;
	}
}

/* ---- hash ---- */

static int cmp_job_ptr(const void *a, const void *b)
{
	uint32_t x = (*(const struct job *const *)a)->id, y = (*(const struct job *const *)b)->id;

	return x < y ? -1 : x > y;
}

static uint64_t hash_jobs(const struct model *m, uint64_t h)
{
	const struct job **v = xmalloc(sizeof *v * (size_t)(m->njobs + 1));
	int32_t n = 0;

	for (int32_t i = 0; i < m->njobs; i++)
		if (m->jobs[i].id)
			v[n++] = &m->jobs[i];
	qsort(v, (size_t)n, sizeof *v, cmp_job_ptr);
	for (int32_t i = 0; i < n; i++) {
		const struct job *j = v[i];

		h = hash_bytes(h, &j->id, sizeof j->id);
		h = hash_bytes(h, &j->state, sizeof j->state);
		h = hash_bytes(h, &j->gpus, sizeof j->gpus);
		h = hash_bytes(h, &j->gpu_mask, sizeof j->gpu_mask);
		h = hash_bytes(h, &j->submit_time, sizeof j->submit_time);
		h = hash_bytes(h, &j->start_time, sizeof j->start_time);
		h = hash_str(h, j->name);
		h = hash_str(h, j->user);
		h = hash_str(h, j->partition);
		h = hash_str(h, j->nodes ? j->nodes : "");
	}
	free(v);
	return h;
}

/* GPU names are hashed only where known, so a model whose queries never
 * asked for "name" (the simulator's) hashes as it did before names existed. */
static uint64_t hash_gpu_names(const struct model *m, uint64_t h)
{
	for (int32_t g = 0; g < m->ngpus; g++)
		if (m->gpu_name[g][0]) {
			h = hash_bytes(h, &g, sizeof g);
			h = hash_str(h, m->gpu_name[g]);
		}
	return h;
}

/* The GPU->job map is hashed as job ids, not slot numbers, so a model rebuilt
 * in another order hashes the same. */
static uint64_t hash_gpu_jobs(const struct model *m, uint64_t h, hash_fn bulk)
{
	uint32_t id[1024];
	int n = 0;

	for (int32_t g = 0; g < m->ngpus; g++) {
		id[n++] = m->gpu_job[g] >= 0 ? m->jobs[m->gpu_job[g]].id : 0;
		if (n == (int)ARRAY_LEN(id) || g == m->ngpus - 1) {   /* FNV of the pieces = FNV of the whole */
			h = bulk(h, id, sizeof *id * (size_t)n);
			n = 0;
		}
	}
	return h;
}

static uint64_t hash_facility(const struct facility *f, uint64_t h)
{
	double v[] = {f->facility_kw, f->it_kw, f->cooling_kw, f->pue, f->supply_c,
		      f->return_c, f->flow_lpm, f->outside_c};

	h = hash_bytes(h, &f->known, sizeof f->known);
	h = hash_bytes(h, v, sizeof v);
	h = hash_bytes(h, &f->time, sizeof f->time);
	h = hash_bytes(h, f->pue_hist, sizeof f->pue_hist);
	h = hash_bytes(h, f->it_hist, sizeof f->it_hist);
	h = hash_bytes(h, &f->hist_len, sizeof f->hist_len);
	return hash_bytes(h, &f->hist_head, sizeof f->hist_head);
}

uint64_t model_hash(const struct model *m)
{
	return model_hash_v(m, MODEL_HASH_VERSION);
}

uint64_t model_hash_v(const struct model *m, int version)
{
	hash_fn bulk = version >= 2 ? hash_block : hash_bytes;   /* the large arrays */
	uint64_t h = HASH_INIT;

	h = hash_str(h, m->cluster);
	h = hash_bytes(h, &m->topo, sizeof m->topo);
	h = hash_bytes(h, &m->time, sizeof m->time);
	h = hash_bytes(h, &m->tick, sizeof m->tick);
	for (int32_t i = 0; i < m->nnodes; i++) {
		const struct node *n = &m->nodes[i];

		h = hash_str(h, n->name);
		h = hash_bytes(h, &n->su, sizeof n->su * 5);   /* su rack gpus base flags */
		h = hash_str(h, n->reason);
		h = hash_str(h, n->reason_who);
		h = hash_bytes(h, &n->reason_time, sizeof n->reason_time);
		h = hash_bytes(h, &n->conn, sizeof n->conn);
		if (n->conn_why[0])
			h = hash_str(h, n->conn_why);
		h = hash_bytes(h, &n->last_sample, sizeof n->last_sample);
		h = hash_bytes(h, &n->parse_errors, sizeof n->parse_errors);
		h = hash_bytes(h, &n->open_faults, sizeof n->open_faults);
	}
	for (int i = 0; i < MET_COUNT; i++)
		h = bulk(h, m->met[i], sizeof(int32_t) * (size_t)m->ngpus);
	if (m->ngpus) {
		h = bulk(h, m->last_xid, sizeof(int32_t) * (size_t)m->ngpus);
		h = bulk(h, m->uuid, sizeof *m->uuid * (size_t)m->ngpus);
		h = bulk(h, m->pci, sizeof *m->pci * (size_t)m->ngpus);
		h = hash_gpu_names(m, h);
		h = bulk(h, m->ports, sizeof *m->ports * (size_t)m->nnodes * (size_t)m->topo.rails);
		h = bulk(h, m->node_last_fault, sizeof *m->node_last_fault * (size_t)m->nnodes);
		h = bulk(h, m->node_burst, sizeof *m->node_burst * (size_t)m->nnodes);
		h = hash_gpu_jobs(m, h, bulk);
	}
	h = hash_jobs(m, h);
	h = fault_hash(m, h, bulk);
	h = hash_facility(&m->fac, h);
	h = hash_bytes(h, &m->parse_errors, sizeof m->parse_errors);
	return h;
}
