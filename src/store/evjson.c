/*
 * evjson.c - event payloads as JSON, both ways (see evjson.h). One table
 * lists every field of every event type with its JSON name and kind.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "evjson.h"

enum fkind { F_I32, F_U32, F_I64, F_U64, F_F64, F_STR, F_MET,
	     F_OSTR, F_OI32 };   /* optional: absent in older recordings, read as "" or 0 */

struct field {
	const char *name;
	uint8_t kind;
	uint16_t off;
};

#define U(f) ((uint16_t)offsetof(struct event, u.f))
static const struct field f_tick[] = {{"tick", F_I64, U(tick.tick)}};
static const struct field f_topology[] = {
	{"sus", F_I32, U(topology.sus)}, {"nodes_per_su", F_I32, U(topology.nodes_per_su)},
	{"gpus_per_node", F_I32, U(topology.gpus_per_node)}, {"nodes", F_I32, U(topology.nodes)},
	{"gpus", F_I32, U(topology.gpus)}, {"name", F_STR, U(topology.name)},
};
static const struct field f_node[] = {
	{"node", F_I32, U(node.node)}, {"su", F_I32, U(node.su)}, {"rack", F_I32, U(node.rack)},
	{"gpus", F_I32, U(node.gpus)}, {"name", F_STR, U(node.name)},
};
static const struct field f_gpu_info[] = {
	{"node", F_I32, U(gpu_info.node)}, {"gpu", F_I32, U(gpu_info.gpu)},
	{"uuid", F_STR, U(gpu_info.uuid)}, {"pci", F_STR, U(gpu_info.pci)},
	{"name", F_OSTR, U(gpu_info.name)},
};
static const struct field f_sample[] = {
	{"node", F_I32, U(sample.node)}, {"gpu", F_I32, U(sample.gpu)},
	{"util", F_MET, U(sample.m[MET_UTIL])}, {"mem_used", F_MET, U(sample.m[MET_MEM_USED])},
	{"mem_total", F_MET, U(sample.m[MET_MEM_TOTAL])}, {"temp", F_MET, U(sample.m[MET_TEMP])},
	{"power", F_MET, U(sample.m[MET_POWER])}, {"power_limit", F_MET, U(sample.m[MET_POWER_LIMIT])},
	{"sm_clock", F_MET, U(sample.m[MET_SM_CLOCK])}, {"ecc_uncorr", F_MET, U(sample.m[MET_ECC_UNCORR])},
	{"throttle", F_MET, U(sample.m[MET_THROTTLE])},
};
static const struct field f_xid[] = {
	{"node", F_I32, U(xid.node)}, {"gpu", F_I32, U(xid.gpu)}, {"code", F_I32, U(xid.code)},
	{"pid", F_I32, U(xid.pid)}, {"pci", F_STR, U(xid.pci)}, {"text", F_STR, U(xid.text)},
	{"sxid", F_OI32, U(xid.sxid)}, {"link", F_OI32, U(xid.link)}, {"fatal", F_OI32, U(xid.fatal)},
};
static const struct field f_ib[] = {
	{"node", F_I32, U(ib.node)}, {"port", F_I32, U(ib.port)}, {"state", F_I32, U(ib.state)},
	{"have", F_U32, U(ib.have)},
	{"symbol_error", F_U64, U(ib.c[IBC_SYMBOL_ERROR])},
	{"link_error_recovery", F_U64, U(ib.c[IBC_LINK_ERROR_RECOVERY])},
	{"link_downed", F_U64, U(ib.c[IBC_LINK_DOWNED])},
	{"port_rcv_errors", F_U64, U(ib.c[IBC_PORT_RCV_ERRORS])},
	{"local_link_integrity_errors", F_U64, U(ib.c[IBC_LOCAL_LINK_INTEGRITY_ERRORS])},
	{"excessive_buffer_overrun_errors", F_U64, U(ib.c[IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS])},
	{"port_xmit_discards", F_U64, U(ib.c[IBC_PORT_XMIT_DISCARDS])},
	{"port_xmit_wait", F_U64, U(ib.c[IBC_PORT_XMIT_WAIT])},
	{"port_xmit_data", F_U64, U(ib.c[IBC_PORT_XMIT_DATA])},
	{"port_rcv_data", F_U64, U(ib.c[IBC_PORT_RCV_DATA])},
};
static const struct field f_power[] = {
	{"facility_kw", F_F64, U(power.facility_kw)}, {"it_kw", F_F64, U(power.it_kw)},
	{"cooling_kw", F_F64, U(power.cooling_kw)}, {"supply_c", F_F64, U(power.supply_c)},
	{"return_c", F_F64, U(power.return_c)}, {"flow_lpm", F_F64, U(power.flow_lpm)},
	{"outside_c", F_F64, U(power.outside_c)},
};
static const struct field f_node_state[] = {
	{"node", F_I32, U(node_state.node)}, {"base", F_I32, U(node_state.base)},
	{"flags", F_U32, U(node_state.flags)}, {"reason_time", F_I64, U(node_state.reason_time)},
	{"reason", F_STR, U(node_state.reason)}, {"who", F_STR, U(node_state.who)},
};
static const struct field f_job[] = {
	{"id", F_U32, U(job.id)}, {"state", F_I32, U(job.state)}, {"gpus", F_I32, U(job.gpus)},
	{"gpu_mask", F_U32, U(job.gpu_mask)}, {"submit_time", F_I64, U(job.submit_time)},
	{"start_time", F_I64, U(job.start_time)}, {"name", F_STR, U(job.name)},
	{"user", F_STR, U(job.user)}, {"partition", F_STR, U(job.partition)},
	{"nodes", F_STR, U(job.nodes)},
};
static const struct field f_job_end[] = {{"id", F_U32, U(job_end.id)}, {"state", F_I32, U(job_end.state)}};
static const struct field f_fault_ack[] = {
	{"id", F_U32, U(fault_ack.id)}, {"who", F_STR, U(fault_ack.who)}, {"note", F_STR, U(fault_ack.note)},
};
static const struct field f_fault_close[] = {{"id", F_U32, U(fault_close.id)}, {"why", F_STR, U(fault_close.why)}};
static const struct field f_parse_error[] = {
	{"node", F_I32, U(parse_error.node)}, {"fmt", F_I32, U(parse_error.fmt)},
	{"error", F_STR, U(parse_error.error)}, {"excerpt", F_STR, U(parse_error.excerpt)},
};
static const struct field f_conn[] = {
	{"node", F_I32, U(conn.node)}, {"state", F_I32, U(conn.state)},
	{"host", F_STR, U(conn.host)}, {"detail", F_STR, U(conn.detail)},
};
static const struct field f_action[] = {
	{"id", F_U32, U(action.id)}, {"phase", F_I32, U(action.phase)}, {"ok", F_I32, U(action.ok)},
	{"dry_run", F_I32, U(action.dry_run)}, {"verb", F_STR, U(action.verb)},
	{"target", F_STR, U(action.target)}, {"args", F_STR, U(action.args)},
	{"who", F_STR, U(action.who)}, {"detail", F_STR, U(action.detail)},
	{"status", F_STR, U(action.status)},
};
static const struct field f_mark[] = {{"who", F_STR, U(mark.who)}, {"text", F_STR, U(mark.text)}};

static const struct {
	const struct field *f;
	int n;
} fields[EV_TYPE_COUNT] = {
#define F(t, a) [t] = {a, (int)ARRAY_LEN(a)}
	F(EV_TICK, f_tick), F(EV_TOPOLOGY, f_topology), F(EV_NODE, f_node), F(EV_GPU_INFO, f_gpu_info),
	F(EV_SAMPLE, f_sample), F(EV_XID, f_xid), F(EV_IB, f_ib), F(EV_POWER, f_power),
	F(EV_NODE_STATE, f_node_state), F(EV_JOB, f_job), F(EV_JOB_END, f_job_end),
	F(EV_FAULT_ACK, f_fault_ack), F(EV_FAULT_CLOSE, f_fault_close), F(EV_PARSE_ERROR, f_parse_error),
	F(EV_CONN, f_conn), F(EV_ACTION, f_action), F(EV_MARK, f_mark),
#undef F
};

/* Length of a valid UTF-8 sequence at p, 0 if invalid. */
static size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;

	if (!n || (n == 3 && p[0] >= 0xf0))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
	    (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;   /* overlong, surrogate, beyond U+10FFFF */
	return n;
}

static void put_str(struct sbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	for (const unsigned char *q = p; *q;) {
		size_t n = utf8_len(q);

		if (!n) {   /* not UTF-8: the bytes in hex */
			sbuf_adds(b, "{\"hex\":\"");
			for (q = p; *q; q++)
				sbuf_printf(b, "%02x", *q);
			sbuf_adds(b, "\"}");
			return;
		}
		q += n;
	}
	sbuf_json_str(b, (const char *)p);
}

static void put_f64(struct sbuf *b, double v)
{
	if (isnan(v))
		sbuf_adds(b, "\"nan\"");
	else if (isinf(v))
		sbuf_adds(b, v > 0 ? "\"inf\"" : "\"-inf\"");
	else {   /* the shortest text that reads back as the same double */
		char buf[32];

		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		sbuf_adds(b, buf);
	}
}

static void put_field(struct sbuf *b, const struct event *ev, const struct field *f)
{
	const char *p = (const char *)ev + f->off;

	switch (f->kind) {
	case F_I32:
	case F_OI32: sbuf_printf(b, "%" PRId32, *(const int32_t *)p); break;
	case F_U32: sbuf_printf(b, "%" PRIu32, *(const uint32_t *)p); break;
	case F_I64: sbuf_printf(b, "%" PRId64, *(const int64_t *)p); break;
	case F_U64: {
		uint64_t v = *(const uint64_t *)p;

		sbuf_printf(b, v > INT64_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
		break;
	}
	case F_F64: put_f64(b, *(const double *)p); break;
	case F_STR:
	case F_OSTR: put_str(b, *(const char *const *)p); break;
	case F_MET: {
		int32_t v = *(const int32_t *)p;

		if (v == MET_UNKNOWN)
			sbuf_adds(b, "null");
		else
			sbuf_printf(b, "%" PRId32, v);
		break;
	}
	}
}

void evjson_encode(struct sbuf *b, const struct event *ev)
{
	int t = ev->type > 0 && ev->type < EV_TYPE_COUNT ? ev->type : 0;

	sbuf_addc(b, '{');
	for (int i = 0; t && i < fields[t].n; i++) {
		if (i)
			sbuf_addc(b, ',');
		sbuf_printf(b, "\"%s\":", fields[t].f[i].name);
		put_field(b, ev, &fields[t].f[i]);
	}
	sbuf_addc(b, '}');
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static const char *get_str(json_t *v, struct arena *a)
{
	if (json_is_string(v))
		return arena_strndup(a, json_string_value(v), json_string_length(v));
	json_t *h = json_is_object(v) ? json_object_get(v, "hex") : NULL;
	const char *s = json_is_string(h) ? json_string_value(h) : NULL;
	size_t n = s ? strlen(s) : 1;

	if (!s || n % 2)
		return NULL;
	char *out = arena_alloc(a, n / 2 + 1);

	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return NULL;
		out[i] = (char)(hi << 4 | lo);
	}
	out[n / 2] = '\0';
	return out;
}

static int get_f64(json_t *v, double *out)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	if (json_is_number(v))
		*out = json_number_value(v);
	else if (s && !strcmp(s, "nan"))
		*out = NAN;
	else if (s && (!strcmp(s, "inf") || !strcmp(s, "-inf")))
		*out = s[0] == '-' ? -INFINITY : INFINITY;
	else
		return -1;
	return 0;
}

static int get_field(struct event *ev, const struct field *f, json_t *v, struct arena *a)
{
	char *p = (char *)ev + f->off;
	json_int_t i = json_is_integer(v) ? json_integer_value(v) : 0;

	switch (f->kind) {
	case F_STR:
	case F_OSTR: return (*(const char **)p = get_str(v, a)) ? 0 : -1;
	case F_F64: return get_f64(v, (double *)p);
	case F_MET:
		*(int32_t *)p = json_is_null(v) ? MET_UNKNOWN : (int32_t)i;
		return json_is_null(v) || json_is_integer(v) ? 0 : -1;
	case F_U64:
		if (json_is_string(v)) {
			char *end;

			*(uint64_t *)p = strtoull(json_string_value(v), &end, 10);
			return *end ? -1 : 0;
		}
		*(uint64_t *)p = (uint64_t)i;
		break;
	case F_I32:
	case F_OI32: *(int32_t *)p = (int32_t)i; break;
	case F_U32: *(uint32_t *)p = (uint32_t)i; break;
	case F_I64: *(int64_t *)p = (int64_t)i; break;
	}
	return json_is_integer(v) ? 0 : -1;
}

int evjson_decode(struct event *ev, const char *json, size_t len, struct arena *a)
{
	int t = ev->type;
	json_t *o;
	int rc = 0;

	if (t <= 0 || t >= EV_TYPE_COUNT)
		return -1;
	if (!(o = json_loadb(json, len, 0, NULL)))
		return -1;
	memset(&ev->u, 0, sizeof ev->u);
	for (int i = 0; i < fields[t].n && !rc; i++) {
		const struct field *f = &fields[t].f[i];
		json_t *v = json_object_get(o, f->name);

		if (!v && (f->kind == F_OSTR || f->kind == F_OI32)) {   /* older recording */
			if (f->kind == F_OSTR)
				*(const char **)((char *)ev + f->off) = "";
			continue;
		}
		rc = v ? get_field(ev, f, v, a) : -1;
	}
	json_decref(o);
	return rc;
}

void evjson_own(struct event *ev, struct arena *a)
{
	int t = ev->type > 0 && ev->type < EV_TYPE_COUNT ? ev->type : 0;

	ev->source = arena_strdup(a, ev->source ? ev->source : "");
	for (int i = 0; t && i < fields[t].n; i++)
		if (fields[t].f[i].kind == F_STR || fields[t].f[i].kind == F_OSTR) {
			const char **p = (const char **)((char *)ev + fields[t].f[i].off);

			*p = arena_strdup(a, *p ? *p : "");
		}
}

int32_t evjson_node(const struct event *ev)
{
	switch (ev->type) {
	case EV_NODE: return ev->u.node.node;
	case EV_GPU_INFO: return ev->u.gpu_info.node;
	case EV_SAMPLE: return ev->u.sample.node;
	case EV_XID: return ev->u.xid.node;
	case EV_IB: return ev->u.ib.node;
	case EV_NODE_STATE: return ev->u.node_state.node;
	case EV_PARSE_ERROR: return ev->u.parse_error.node;
	case EV_CONN: return ev->u.conn.node;
	default: return -1;
	}
}
