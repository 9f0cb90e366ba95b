/*
 * event.h - the typed events of myriad (myriad-design(7), EVENTS).
 *
 * Everything the model knows arrives as one of these. Sources (the embedded
 * simulator, SSH probes, services) turn text into events through the parsers;
 * the bus hands each event to the model, the recorder, Tcl hooks and panels,
 * in that order. Replay feeds recorded events through the same bus.
 *
 * Strings in an event are borrowed: valid while the event is being delivered.
 * bus_emit() copies them, so an emitter may pass stack buffers.
 */
#ifndef MYRIAD_EVENT_H
#define MYRIAD_EVENT_H

#include <stdint.h>

enum ev_type {
	EV_TICK = 1,    /* a new tick: cluster time advanced */
	EV_TOPOLOGY,    /* fabric shape: SUs, nodes per SU, GPUs per node */
	EV_NODE,        /* one node of the inventory */
	EV_GPU_INFO,    /* a GPU's identity: uuid, PCI bus id */
	EV_SAMPLE,      /* one GPU's metrics (one nvidia-smi line) */
	EV_XID,         /* a kernel XID line */
	EV_IB,          /* one IB port's counters and state */
	EV_POWER,       /* facility meter: facility/IT kW, cooling */
	EV_NODE_STATE,  /* scheduler view of a node: state, drain reason */
	EV_JOB,         /* a job appeared or changed */
	EV_JOB_END,     /* a job left the queue */
	EV_FAULT_ACK,   /* an operator acknowledged a fault */
	EV_FAULT_CLOSE, /* a fault was closed */
	EV_PARSE_ERROR, /* a source sent a line its parser rejected */
	EV_CONN,        /* a host's connection state changed */
	EV_ACTION,      /* the action engine: requested/decided/sent/result */
	EV_MARK,        /* an operator's note */
	EV_NOTICE,      /* a part of myriad says something to the operator (a plugin disabled) */
	EV_TYPE_COUNT
};

const char *ev_type_name(enum ev_type t);
int ev_type_from_name(const char *name);   /* -1 if unknown */

/* The one schema of events (event_schema.c): each type's fields, by name,
 * kind and offset in struct event. A field added to a type after files
 * were written is optional: a recording without it still reads. */
enum ev_field_kind { EVF_I32, EVF_U32, EVF_I64, EVF_U64, EVF_F64, EVF_STR, EVF_MET };
#define EVF_OPTIONAL 1

struct ev_field {
	const char *name;
	uint8_t kind;              /* enum ev_field_kind */
	uint16_t off;              /* offsetof(struct event, u.xxx.field) */
	uint8_t optional;
};

struct ev_schema {
	const char *name;          /* "xid": the log's, the snapshot's and Tcl's name */
	const struct ev_field *f;
	int n;
	int node_off;              /* offset of the node index field, -1 if none */
};

struct event;
/* NULL for an unknown type. */
const struct ev_schema *ev_schema(int type);
/* The node the event is about, -1 if none. */
int32_t ev_node(const struct event *ev);
/* Replaces the event's borrowed strings (source included) by dup's copies. */
void ev_own_strings(struct event *ev, char *(*dup)(void *ctx, const char *s), void *ctx);

/* Per-GPU metrics, stored as int32. MET_UNKNOWN marks [N/A] and no data. */
enum metric {
	MET_UTIL,         /* utilization.gpu, % */
	MET_MEM_USED,     /* memory.used, MiB */
	MET_MEM_TOTAL,    /* memory.total, MiB */
	MET_TEMP,         /* temperature.gpu, C */
	MET_POWER,        /* power.draw, centiwatts (2 decimals in nvidia-smi) */
	MET_POWER_LIMIT,  /* power.limit, centiwatts */
	MET_SM_CLOCK,     /* clocks.sm, MHz */
	MET_ECC_UNCORR,   /* ecc.errors.uncorrected.volatile.total */
	MET_THROTTLE,     /* clocks_event_reasons.active, low 32 bits */
	MET_COUNT
};
#define MET_UNKNOWN INT32_MIN
const char *metric_name(enum metric m);   /* "util", "mem_used", ... */

/* Throttle / clock event reasons (nvml.h nvmlClocksEventReason*). */
#define THR_GPU_IDLE 0x1
#define THR_SW_POWER_CAP 0x4
#define THR_HW_SLOWDOWN 0x8
#define THR_SW_THERMAL 0x20
#define THR_HW_THERMAL 0x40
#define THR_HW_POWER_BRAKE 0x80

/* Slurm's base node states; flags are separate. */
enum node_base {
	NODE_UNKNOWN, NODE_IDLE, NODE_ALLOC, NODE_MIXED, NODE_DOWN, NODE_FUTURE,
	NODE_BASE_COUNT
};
#define NODE_F_DRAIN 0x1
#define NODE_F_NOT_RESPONDING 0x2
#define NODE_F_MAINT 0x4
#define NODE_F_REBOOT 0x8
#define NODE_F_COMPLETING 0x10
#define NODE_F_FAIL 0x20
const char *node_base_name(enum node_base b);       /* "idle" */
int node_base_from_name(const char *s);             /* -1 if unknown; case-insensitive */

enum job_state {
	JOB_PENDING, JOB_RUNNING, JOB_SUSPENDED, JOB_COMPLETING, JOB_COMPLETED,
	JOB_CANCELLED, JOB_FAILED, JOB_TIMEOUT, JOB_NODE_FAIL, JOB_REQUEUED,
	JOB_PREEMPTED, JOB_OUT_OF_MEMORY, JOB_STATE_COUNT
};
const char *job_state_name(enum job_state s);       /* "RUNNING" */
int job_state_from_name(const char *s);             /* -1 if unknown */

enum conn_state {
	CONN_NONE,          /* not a remote host (embedded simulator) */
	CONN_CONNECTING, CONN_UP, CONN_AUTH_FAILED, CONN_HOSTKEY_UNKNOWN,
	CONN_HOSTKEY_CHANGED, CONN_UNREACHABLE, CONN_TIMEOUT, CONN_CLOSED,
	CONN_STATE_COUNT
};
const char *conn_state_name(enum conn_state s);

/* Input formats, for streams, parse errors and `myriad parse`. */
enum fmt {
	FMT_NVSMI, FMT_XID, FMT_IB, FMT_SLURM_NODES, FMT_SLURM_JOBS,
	FMT_FACILITY, FMT_PROMETHEUS, FMT_COUNT
};
const char *fmt_name(enum fmt f);    /* "nvidia-smi", "xid", "ib-counters", ... */
int fmt_from_name(const char *s);    /* -1 if unknown */

/* IB port counters kept per port (sysfs names in ib_counter_name()). */
enum ib_counter {
	IBC_SYMBOL_ERROR, IBC_LINK_ERROR_RECOVERY, IBC_LINK_DOWNED,
	IBC_PORT_RCV_ERRORS, IBC_LOCAL_LINK_INTEGRITY_ERRORS,
	IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS, IBC_PORT_XMIT_DISCARDS,
	IBC_PORT_XMIT_WAIT, IBC_PORT_XMIT_DATA, IBC_PORT_RCV_DATA,
	IBC_COUNT
};
const char *ib_counter_name(enum ib_counter c);
int ib_counter_from_name(const char *s);   /* -1 if not one we keep */

/* IB port state as in sysfs ports/<p>/state ("4: ACTIVE"). */
enum ib_port_state { IBP_UNKNOWN = 0, IBP_DOWN = 1, IBP_INIT = 2, IBP_ARMED = 3, IBP_ACTIVE = 4 };

enum action_phase { ACT_REQUESTED, ACT_DECIDED, ACT_SENT, ACT_RESULT, ACT_PHASE_COUNT };

struct ev_topology {
	int32_t sus, nodes_per_su, gpus_per_node, nodes, gpus;
	const char *name;   /* cluster name */
};

struct ev_node {
	int32_t node;       /* index in the model, 0-based, dense */
	int32_t su, rack, gpus;
	const char *name;
};

struct ev_gpu_info {
	int32_t node, gpu;
	const char *uuid;   /* "GPU-..." */
	const char *pci;    /* "00000000:18:00.0" as nvidia-smi prints it */
	const char *name;   /* "NVIDIA H100 80GB HBM3"; "" if not queried */
};

struct ev_sample {
	int32_t node, gpu;
	int32_t m[MET_COUNT];
};

struct ev_xid {
	int32_t node;
	int32_t gpu;        /* -1 when the PCI tag matches no known GPU */
	int32_t code;
	int32_t pid;        /* -1 when unknown */
	const char *pci;    /* "0000:18:00" (normalised); SXid: the switch, "0000:0b:00.0" */
	const char *text;   /* the message after "pid=..., " (sanitised later) */
	int32_t sxid;       /* 1: an NVSwitch SXid event (gpu -1, pci the switch) */
	int32_t link;       /* SXid: the NVLink port ("Link 44"), -1 if not said */
	int32_t fatal;      /* SXid: 1 Fatal, 0 Non-fatal, -1 not said */
};

struct ev_ib {
	int32_t node, port;          /* port = rail, 0..7 */
	int32_t state;               /* enum ib_port_state */
	uint32_t have;               /* bit c set: counter c present */
	uint64_t c[IBC_COUNT];
};

struct ev_power {
	double facility_kw, it_kw, cooling_kw;
	double supply_c, return_c, flow_lpm, outside_c;
};

struct ev_node_state {
	int32_t node;
	int32_t base;                /* enum node_base */
	uint32_t flags;              /* NODE_F_* */
	int64_t reason_time;         /* us; 0 if none */
	const char *reason;          /* "" if none */
	const char *who;             /* user who set the reason, "" if none */
};

struct ev_job {
	uint32_t id;
	int32_t state;               /* enum job_state */
	int32_t gpus;                /* GPUs allocated in all */
	uint32_t gpu_mask;           /* GPU indexes used on each of its nodes */
	int64_t submit_time, start_time;   /* us; 0 if unknown */
	const char *name, *user, *partition;
	const char *nodes;           /* folded nodeset, "" while pending */
};

struct ev_job_end {
	uint32_t id;
	int32_t state;               /* final enum job_state */
};

struct ev_fault_ack {
	uint32_t id;
	const char *who, *note;
};

struct ev_fault_close {
	uint32_t id;
	const char *why;
};

struct ev_parse_error {
	int32_t node;                /* -1 for a service */
	int32_t fmt;                 /* enum fmt */
	const char *error;           /* what was wrong */
	const char *excerpt;         /* start of the line, raw (sanitise to show) */
};

struct ev_conn {
	int32_t node;                /* -1 for a service */
	int32_t state;               /* enum conn_state */
	const char *host;            /* service or host name */
	const char *detail;
};

struct ev_action {
	uint32_t id;
	int32_t phase;               /* enum action_phase */
	int32_t ok;                  /* for ACT_DECIDED: allowed; ACT_RESULT: succeeded */
	int32_t dry_run;
	const char *verb;            /* "node drain" */
	const char *target;          /* nodeset or job id */
	const char *args;            /* Tcl list of the remaining arguments */
	const char *who;
	const char *detail;          /* guard decision, commands sent, or error text */
	const char *status;          /* requested; decided: allowed, confirm, refused,
	                              * dry-run; sent; result: done, partial, failed, timed-out */
};

struct ev_mark {
	const char *who, *text;
};

struct ev_notice {
	int32_t level;               /* 0 info, 1 warn, 2 error */
	const char *who;             /* "plugin" */
	const char *text;
};

struct event {
	enum ev_type type;
	int64_t time;                /* us since the epoch, UTC */
	const char *source;          /* "sim", "ssh:gpu0001", "slurm", "operator" */
	union {
		struct { int64_t tick; } tick;
		struct ev_topology topology;
		struct ev_node node;
		struct ev_gpu_info gpu_info;
		struct ev_sample sample;
		struct ev_xid xid;
		struct ev_ib ib;
		struct ev_power power;
		struct ev_node_state node_state;
		struct ev_job job;
		struct ev_job_end job_end;
		struct ev_fault_ack fault_ack;
		struct ev_fault_close fault_close;
		struct ev_parse_error parse_error;
		struct ev_conn conn;
		struct ev_action action;
		struct ev_mark mark;
		struct ev_notice notice;
	} u;
};

#endif
