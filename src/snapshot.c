/*
 * snapshot.c - the model as the snapshot JSON object (see snapshot.h).
 * Numbers are printed with fixed precision so the text is deterministic.
 */
#include <inttypes.h>
#include <math.h>
#include "snapshot.h"

static void num(struct sbuf *b, const char *key, double v)
{
	if (isfinite(v))
		sbuf_printf(b, "\"%s\":%.3f,", key, v);
	else
		sbuf_printf(b, "\"%s\":null,", key);
}

static void metric_array(struct sbuf *b, const struct model *m, int32_t node, enum metric k)
{
	sbuf_printf(b, "\"%s\":[", metric_name(k));
	for (int32_t gi = 0; gi < m->gpus_per_node; gi++) {
		int32_t v = m->met[k][model_gpu(m, node, gi)];

		if (gi)
			sbuf_addc(b, ',');
		if (v == MET_UNKNOWN)
			sbuf_adds(b, "null");
		else if (k == MET_POWER || k == MET_POWER_LIMIT)
			sbuf_printf(b, "%.2f", v / 100.0);
		else
			sbuf_printf(b, "%d", v);
	}
	sbuf_addc(b, ']');
}

static void node_json(struct sbuf *b, const struct model *m, int32_t i)
{
	const struct node *n = &m->nodes[i];

	sbuf_adds(b, "{\"name\":");
	sbuf_json_str(b, n->name);
	sbuf_printf(b, ",\"su\":%d,\"rack\":%d,\"state\":\"%s\",\"drain\":%s,\"reason\":", n->su, n->rack,
		    node_base_name(n->base), node_is_drained(n) ? "true" : "false");
	sbuf_json_str(b, n->reason);
	sbuf_printf(b, ",\"open_faults\":%u,\"parse_errors\":%u,\"conn\":\"%s\",\"conn_why\":", n->open_faults,
		    n->parse_errors, conn_state_name(n->conn));
	sbuf_json_str(b, n->conn_why);
	sbuf_addc(b, ',');
	for (int k = 0; k < MET_COUNT; k++) {
		if (k)
			sbuf_addc(b, ',');
		metric_array(b, m, i, k);
	}
	sbuf_addc(b, '}');
}

static void job_json(struct sbuf *b, const struct job *j)
{
	sbuf_printf(b, "{\"id\":%u,\"state\":\"%s\",\"gpus\":", j->id, job_state_name(j->state));
	if (j->gpus < 0)   /* unknown */
		sbuf_adds(b, "null");
	else
		sbuf_printf(b, "%d", j->gpus);
	sbuf_adds(b, ",\"name\":");
	sbuf_json_str(b, j->name);
	sbuf_adds(b, ",\"user\":");
	sbuf_json_str(b, j->user);
	sbuf_adds(b, ",\"nodes\":");
	sbuf_json_str(b, j->nodes ? j->nodes : "");
	sbuf_printf(b, ",\"start_time\":%" PRId64 "}", j->start_time / US_PER_SEC);
}

static void detail(struct sbuf *b, const struct model *m)
{
	int first = 1;

	sbuf_adds(b, ",\"node_list\":[");
	for (int32_t i = 0; i < m->nnodes; i++) {
		if (i)
			sbuf_addc(b, ',');
		node_json(b, m, i);
	}
	sbuf_adds(b, "],\"job_list\":[");
	for (int32_t i = 0; i < m->njobs; i++) {
		if (!m->jobs[i].id)
			continue;
		if (!first)
			sbuf_addc(b, ',');
		first = 0;
		job_json(b, &m->jobs[i]);
	}
	sbuf_addc(b, ']');
}

void snapshot_json(const struct model *m, int flags, struct sbuf *b)
{
	char iso[32];

	fmt_iso(m->time, iso);
	sbuf_adds(b, "{\"cluster\":");
	sbuf_json_str(b, m->cluster);
	sbuf_printf(b, ",\"gpus\":%d,\"nodes\":%d,\"sus\":%d,\"jobs\":%d,\"faults_open\":%d,", m->ngpus, m->nnodes,
		    m->topo.sus, model_running_jobs(m), model_open_faults(m));
	num(b, "it_kw", m->fac.known ? m->fac.it_kw : NAN);
	num(b, "facility_kw", m->fac.known ? m->fac.facility_kw : NAN);
	num(b, "pue", m->fac.known ? m->fac.pue : NAN);
	sbuf_printf(b, "\"tick\":%" PRId64 ",\"time\":\"%s\",\"parse_errors\":%" PRIu64 ",\"model_hash\":\"%016" PRIx64 "\"",
		    m->tick, iso, m->parse_errors, model_hash(m));
	if (flags & SNAP_DETAIL)
		detail(b, m);
	sbuf_addc(b, '}');
}
