/*
 * event.c - names of event types (from the schema, event_schema.c),
 * states and counters, both ways.
 * These names are what the log, the snapshot JSON and Tcl show.
 */
#include <strings.h>
#include <string.h>
#include "event.h"


static const char *const metric_names[MET_COUNT] = {
	"util", "mem_used", "mem_total", "temp", "power", "power_limit",
	"sm_clock", "ecc_uncorr", "throttle",
};

static const char *const node_base_names[NODE_BASE_COUNT] = {
	"unknown", "idle", "allocated", "mixed", "down", "future",
};

static const char *const job_state_names[JOB_STATE_COUNT] = {
	"PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "COMPLETED", "CANCELLED",
	"FAILED", "TIMEOUT", "NODE_FAIL", "REQUEUED", "PREEMPTED", "OUT_OF_MEMORY",
};

static const char *const conn_names[CONN_STATE_COUNT] = {
	"none", "connecting", "up", "auth-failed", "hostkey-unknown",
	"hostkey-changed", "unreachable", "timeout", "closed",
};

static const char *const fmt_names[FMT_COUNT] = {
	"nvidia-smi", "xid", "ib-counters", "slurm-nodes", "slurm-jobs",
	"facility", "prometheus",
};

static const char *const ibc_names[IBC_COUNT] = {
	"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
	"local_link_integrity_errors", "excessive_buffer_overrun_errors",
	"port_xmit_discards", "port_xmit_wait", "port_xmit_data", "port_rcv_data",
};

static int lookup(const char *const *names, int n, const char *s, int nocase)
{
	for (int i = 0; i < n; i++)
		if (names[i] && (nocase ? !strcasecmp(names[i], s) : !strcmp(names[i], s)))
			return i;
	return -1;
}

const char *ev_type_name(enum ev_type t)
{
	const struct ev_schema *s = ev_schema(t);

	return s ? s->name : "?";
}

int ev_type_from_name(const char *s)
{
	for (int t = 1; t < EV_TYPE_COUNT; t++)
		if (ev_schema(t) && !strcmp(ev_schema(t)->name, s))
			return t;
	return -1;
}

const char *metric_name(enum metric m)
{
	return (unsigned)m < MET_COUNT ? metric_names[m] : "?";
}

const char *node_base_name(enum node_base b)
{
	return (unsigned)b < NODE_BASE_COUNT ? node_base_names[b] : "?";
}

int node_base_from_name(const char *s)
{
	int r = lookup(node_base_names, NODE_BASE_COUNT, s, 1);

	if (r >= 0)
		return r;
	if (!strcasecmp(s, "alloc") || !strcasecmp(s, "allocated"))
		return NODE_ALLOC;
	if (!strcasecmp(s, "mix"))
		return NODE_MIXED;
	if (!strcasecmp(s, "unk"))
		return NODE_UNKNOWN;
	if (!strcasecmp(s, "futr"))
		return NODE_FUTURE;
	return -1;
}

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_STATE_COUNT ? job_state_names[s] : "?";
}

/* Names Slurm prints in job_state that are flags or other spellings of a
 * state we keep (job_state_string() in Slurm's slurm_protocol_defs.c). */
static const struct {
	const char *name;
	enum job_state s;
} job_aliases[] = {
	{"COMPLETE", JOB_COMPLETED}, {"CONFIGURING", JOB_RUNNING},
	{"RESIZING", JOB_RUNNING}, {"SIGNALING", JOB_RUNNING},
	{"POWER_UP_NODE", JOB_RUNNING}, {"STAGE_OUT", JOB_COMPLETING},
	{"REQUEUE_FED", JOB_REQUEUED}, {"REQUEUE_HOLD", JOB_REQUEUED},
	{"SPECIAL_EXIT", JOB_REQUEUED}, {"STOPPED", JOB_SUSPENDED},
	{"RESV_DEL_HOLD", JOB_PENDING}, {"REVOKED", JOB_CANCELLED},
	{"BOOT_FAIL", JOB_NODE_FAIL}, {"DEADLINE", JOB_TIMEOUT},
};

int job_state_from_name(const char *s)
{
	int r = lookup(job_state_names, JOB_STATE_COUNT, s, 1);

	for (unsigned i = 0; r < 0 && i < sizeof job_aliases / sizeof job_aliases[0]; i++)
		if (!strcasecmp(job_aliases[i].name, s))
			r = job_aliases[i].s;
	return r;
}

const char *conn_state_name(enum conn_state s)
{
	return (unsigned)s < CONN_STATE_COUNT ? conn_names[s] : "?";
}

const char *fmt_name(enum fmt f)
{
	return (unsigned)f < FMT_COUNT ? fmt_names[f] : "?";
}

int fmt_from_name(const char *s) { return lookup(fmt_names, FMT_COUNT, s, 0); }

const char *ib_counter_name(enum ib_counter c)
{
	return (unsigned)c < IBC_COUNT ? ibc_names[c] : "?";
}

int ib_counter_from_name(const char *s) { return lookup(ibc_names, IBC_COUNT, s, 0); }
