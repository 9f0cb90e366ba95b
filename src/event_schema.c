/*
 * event_schema.c - the one schema of events (see event.h): for each type
 * its name and its fields (name, kind, offset). The bus copies an event's
 * strings with it, the recorder writes and replay reads the JSON of the log
 * with it (store/evjson.c), export prints it, and Tcl's `on event` hooks
 * get their dicts from it: a new event type is one row here.
 */
#include <stddef.h>
#include "event.h"
#include "util.h"

#define U(f) ((uint16_t)offsetof(struct event, u.f))
static const struct ev_field f_tick[] = {{"tick", EVF_I64, U(tick.tick), 0}};
static const struct ev_field f_topology[] = {
	{"sus", EVF_I32, U(topology.sus), 0}, {"nodes_per_su", EVF_I32, U(topology.nodes_per_su), 0},
	{"gpus_per_node", EVF_I32, U(topology.gpus_per_node), 0}, {"nodes", EVF_I32, U(topology.nodes), 0},
	{"gpus", EVF_I32, U(topology.gpus), 0}, {"name", EVF_STR, U(topology.name), 0},
};
static const struct ev_field f_node[] = {
	{"node", EVF_I32, U(node.node), 0}, {"su", EVF_I32, U(node.su), 0}, {"rack", EVF_I32, U(node.rack), 0},
	{"gpus", EVF_I32, U(node.gpus), 0}, {"name", EVF_STR, U(node.name), 0},
};
static const struct ev_field f_gpu_info[] = {
	{"node", EVF_I32, U(gpu_info.node), 0}, {"gpu", EVF_I32, U(gpu_info.gpu), 0},
	{"uuid", EVF_STR, U(gpu_info.uuid), 0}, {"pci", EVF_STR, U(gpu_info.pci), 0},
	{"name", EVF_STR, U(gpu_info.name), 1},
};
static const struct ev_field f_sample[] = {
	{"node", EVF_I32, U(sample.node), 0}, {"gpu", EVF_I32, U(sample.gpu), 0},
	{"util", EVF_MET, U(sample.m[MET_UTIL]), 0}, {"mem_used", EVF_MET, U(sample.m[MET_MEM_USED]), 0},
	{"mem_total", EVF_MET, U(sample.m[MET_MEM_TOTAL]), 0}, {"temp", EVF_MET, U(sample.m[MET_TEMP]), 0},
	{"power", EVF_MET, U(sample.m[MET_POWER]), 0}, {"power_limit", EVF_MET, U(sample.m[MET_POWER_LIMIT]), 0},
	{"sm_clock", EVF_MET, U(sample.m[MET_SM_CLOCK]), 0}, {"ecc_uncorr", EVF_MET, U(sample.m[MET_ECC_UNCORR]), 0},
	{"throttle", EVF_MET, U(sample.m[MET_THROTTLE]), 0},
};
static const struct ev_field f_xid[] = {
	{"node", EVF_I32, U(xid.node), 0}, {"gpu", EVF_I32, U(xid.gpu), 0}, {"code", EVF_I32, U(xid.code), 0},
	{"pid", EVF_I32, U(xid.pid), 0}, {"pci", EVF_STR, U(xid.pci), 0}, {"text", EVF_STR, U(xid.text), 0},
	{"sxid", EVF_I32, U(xid.sxid), 1}, {"link", EVF_I32, U(xid.link), 1}, {"fatal", EVF_I32, U(xid.fatal), 1},
};
static const struct ev_field f_ib[] = {
	{"node", EVF_I32, U(ib.node), 0}, {"port", EVF_I32, U(ib.port), 0}, {"state", EVF_I32, U(ib.state), 0},
	{"have", EVF_U32, U(ib.have), 0},
	{"symbol_error", EVF_U64, U(ib.c[IBC_SYMBOL_ERROR]), 0},
	{"link_error_recovery", EVF_U64, U(ib.c[IBC_LINK_ERROR_RECOVERY]), 0},
	{"link_downed", EVF_U64, U(ib.c[IBC_LINK_DOWNED]), 0},
	{"port_rcv_errors", EVF_U64, U(ib.c[IBC_PORT_RCV_ERRORS]), 0},
	{"local_link_integrity_errors", EVF_U64, U(ib.c[IBC_LOCAL_LINK_INTEGRITY_ERRORS]), 0},
	{"excessive_buffer_overrun_errors", EVF_U64, U(ib.c[IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS]), 0},
	{"port_xmit_discards", EVF_U64, U(ib.c[IBC_PORT_XMIT_DISCARDS]), 0},
	{"port_xmit_wait", EVF_U64, U(ib.c[IBC_PORT_XMIT_WAIT]), 0},
	{"port_xmit_data", EVF_U64, U(ib.c[IBC_PORT_XMIT_DATA]), 0},
	{"port_rcv_data", EVF_U64, U(ib.c[IBC_PORT_RCV_DATA]), 0},
};
static const struct ev_field f_power[] = {
	{"facility_kw", EVF_F64, U(power.facility_kw), 0}, {"it_kw", EVF_F64, U(power.it_kw), 0},
	{"cooling_kw", EVF_F64, U(power.cooling_kw), 0}, {"supply_c", EVF_F64, U(power.supply_c), 0},
	{"return_c", EVF_F64, U(power.return_c), 0}, {"flow_lpm", EVF_F64, U(power.flow_lpm), 0},
	{"outside_c", EVF_F64, U(power.outside_c), 0},
};
static const struct ev_field f_node_state[] = {
	{"node", EVF_I32, U(node_state.node), 0}, {"base", EVF_I32, U(node_state.base), 0},
	{"flags", EVF_U32, U(node_state.flags), 0}, {"reason_time", EVF_I64, U(node_state.reason_time), 0},
	{"reason", EVF_STR, U(node_state.reason), 0}, {"who", EVF_STR, U(node_state.who), 0},
};
static const struct ev_field f_job[] = {
	{"id", EVF_U32, U(job.id), 0}, {"state", EVF_I32, U(job.state), 0}, {"gpus", EVF_I32, U(job.gpus), 0},
	{"gpu_mask", EVF_U32, U(job.gpu_mask), 0}, {"submit_time", EVF_I64, U(job.submit_time), 0},
	{"start_time", EVF_I64, U(job.start_time), 0}, {"name", EVF_STR, U(job.name), 0},
	{"user", EVF_STR, U(job.user), 0}, {"partition", EVF_STR, U(job.partition), 0},
	{"nodes", EVF_STR, U(job.nodes), 0},
};
static const struct ev_field f_job_end[] = {{"id", EVF_U32, U(job_end.id), 0}, {"state", EVF_I32, U(job_end.state), 0}};
static const struct ev_field f_fault_ack[] = {
	{"id", EVF_U32, U(fault_ack.id), 0}, {"who", EVF_STR, U(fault_ack.who), 0}, {"note", EVF_STR, U(fault_ack.note), 0},
};
static const struct ev_field f_fault_close[] = {{"id", EVF_U32, U(fault_close.id), 0}, {"why", EVF_STR, U(fault_close.why), 0}};
static const struct ev_field f_parse_error[] = {
	{"node", EVF_I32, U(parse_error.node), 0}, {"fmt", EVF_I32, U(parse_error.fmt), 0},
	{"error", EVF_STR, U(parse_error.error), 0}, {"excerpt", EVF_STR, U(parse_error.excerpt), 0},
};
static const struct ev_field f_conn[] = {
	{"node", EVF_I32, U(conn.node), 0}, {"state", EVF_I32, U(conn.state), 0},
	{"host", EVF_STR, U(conn.host), 0}, {"detail", EVF_STR, U(conn.detail), 0},
};
static const struct ev_field f_action[] = {
	{"id", EVF_U32, U(action.id), 0}, {"phase", EVF_I32, U(action.phase), 0}, {"ok", EVF_I32, U(action.ok), 0},
	{"dry_run", EVF_I32, U(action.dry_run), 0}, {"verb", EVF_STR, U(action.verb), 0},
	{"target", EVF_STR, U(action.target), 0}, {"args", EVF_STR, U(action.args), 0},
	{"who", EVF_STR, U(action.who), 0}, {"detail", EVF_STR, U(action.detail), 0},
	{"status", EVF_STR, U(action.status), EVF_OPTIONAL},   /* since schema 3 */
};
static const struct ev_field f_notice[] = {
	{"level", EVF_I32, U(notice.level), 0}, {"who", EVF_STR, U(notice.who), 0}, {"text", EVF_STR, U(notice.text), 0},
};
static const struct ev_field f_mark[] = {{"who", EVF_STR, U(mark.who), 0}, {"text", EVF_STR, U(mark.text), 0}};


/* One row per event type: its name in the log, the snapshot and Tcl, its
 * fields, and which field (if any) is the node it is about. */
static const struct ev_schema schemas[EV_TYPE_COUNT] = {
#define S(t, name, a, node) [t] = {name, a, (int)ARRAY_LEN(a), node}
	S(EV_TICK, "tick", f_tick, -1),
	S(EV_TOPOLOGY, "topology", f_topology, -1),
	S(EV_NODE, "node", f_node, U(node.node)),
	S(EV_GPU_INFO, "gpu_info", f_gpu_info, U(gpu_info.node)),
	S(EV_SAMPLE, "sample", f_sample, U(sample.node)),
	S(EV_XID, "xid", f_xid, U(xid.node)),
	S(EV_IB, "ib", f_ib, U(ib.node)),
	S(EV_POWER, "power", f_power, -1),
	S(EV_NODE_STATE, "node_state", f_node_state, U(node_state.node)),
	S(EV_JOB, "job", f_job, -1),
	S(EV_JOB_END, "job_end", f_job_end, -1),
	S(EV_FAULT_ACK, "fault_ack", f_fault_ack, -1),
	S(EV_FAULT_CLOSE, "fault_close", f_fault_close, -1),
	S(EV_PARSE_ERROR, "parse_error", f_parse_error, U(parse_error.node)),
	S(EV_CONN, "conn", f_conn, U(conn.node)),
	S(EV_ACTION, "action", f_action, -1),
	S(EV_MARK, "mark", f_mark, -1),
	S(EV_NOTICE, "notice", f_notice, -1),
#undef S
};

const struct ev_schema *ev_schema(int type)
{
	return type > 0 && type < EV_TYPE_COUNT && schemas[type].name ? &schemas[type] : NULL;
}

int32_t ev_node(const struct event *ev)
{
	const struct ev_schema *s = ev_schema(ev->type);

	return s && s->node_off >= 0 ? *(const int32_t *)((const char *)ev + s->node_off) : -1;
}

void ev_own_strings(struct event *ev, char *(*dup)(void *ctx, const char *s), void *ctx)
{
	const struct ev_schema *s = ev_schema(ev->type);

	ev->source = dup(ctx, ev->source ? ev->source : "");
	for (int i = 0; s && i < s->n; i++)
		if (s->f[i].kind == EVF_STR) {
			const char **p = (const char **)((char *)ev + s->f[i].off);

			*p = dup(ctx, *p ? *p : "");
		}
}
