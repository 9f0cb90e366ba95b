/*
 * model.h - the state of the cluster, as a fold of the event stream.
 *
 * model_apply() is the only way the model changes. It is deterministic: the
 * same events give the same state, bit for bit, and model_hash() covers all of
 * it (a node's conn_why only when it is set, so that runs without connections
 * hash as before), so a live run and a replay of its recording can be compared.
 *
 * Laid out for 10,240+ GPUs: per-GPU metrics are flat int32 arrays indexed by
 * global GPU number (node * gpus_per_node + gpu); nodes are an array; names
 * map to indexes once (model_node_index), hot paths use indexes.
 */
#ifndef MYRIAD_MODEL_H
#define MYRIAD_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "topo.h"
#include "util.h"

#define NAME_MAX_LEN 64
#define REASON_MAX_LEN 128
#define TEXT_MAX_LEN 256

/* Fault kinds; severity; what the operator should do. */
enum fault_kind {
	FK_XID, FK_ECC, FK_NVLINK, FK_IB, FK_THERMAL, FK_COOLING, FK_POWER,
	FK_PARSE, FK_CONN, FK_HOST, FK_COUNT
};
enum severity { SEV_INFO, SEV_WARN, SEV_ERROR, SEV_CRITICAL };
const char *fault_kind_name(enum fault_kind k);
int fault_kind_from_name(const char *s);
const char *severity_name(enum severity s);
int severity_from_name(const char *s);   /* -1 if unknown */

struct node {
	char name[NAME_MAX_LEN];
	int32_t su, rack, gpus;
	int32_t base;                 /* enum node_base */
	uint32_t flags;               /* NODE_F_* */
	char reason[REASON_MAX_LEN];
	char reason_who[NAME_MAX_LEN];
	int64_t reason_time;
	int32_t conn;                 /* enum conn_state */
	char conn_why[REASON_MAX_LEN];   /* why the last connection failed ("" once up) */
	int64_t last_sample;          /* us of the last EV_SAMPLE, 0 = never */
	uint32_t parse_errors;        /* lines rejected from this node */
	uint32_t open_faults;
};

struct ib_port {                  /* no padding: hashed as bytes */
	int32_t state;                /* enum ib_port_state */
	int32_t downs;                /* times seen going down */
	uint64_t c[IBC_COUNT];        /* last value seen */
	uint64_t delta[IBC_COUNT];    /* increase over the previous reading */
	int64_t last;                 /* us of the last reading */
};

struct job {
	uint32_t id;
	int32_t state;
	int32_t gpus;
	uint32_t gpu_mask;
	int64_t submit_time, start_time;
	char name[NAME_MAX_LEN * 2];
	char user[NAME_MAX_LEN];
	char partition[NAME_MAX_LEN];
	char *nodes;                  /* folded nodeset, owned */
	int32_t *node_idx;            /* its nodes as model indexes, owned */
	int32_t nnodes;
};

struct fault {                    /* no padding: hashed as bytes */
	int64_t time;
	int64_t ack_time;             /* 0 = not acknowledged */
	int64_t close_time;           /* 0 = open */
	uint32_t id;
	int32_t node, gpu;            /* -1 when not applicable (gpu: rail for IB) */
	int32_t kind;                 /* enum fault_kind */
	int32_t code;                 /* XID number, IB counter, ... */
	int32_t severity;             /* enum severity */
	uint32_t count;               /* repeats folded into this fault */
	uint32_t burst;               /* burst id: faults on a node < 180 s apart */
	char text[TEXT_MAX_LEN];
	char remedy[64];              /* what operators do about it (the Tcl dict and the log call it action) */
	char ack_who[NAME_MAX_LEN];
	char close_why[64];
};

/* An XID whose PCI address names no GPU the node has reported yet (the
 * kernel log read on connect comes before nvidia-smi's first sample): its
 * fault waits, GPU unknown, until a GPU with that pci.bus_id is reported. */
struct xid_wait {                 /* no padding: hashed and keyframed as bytes */
	uint32_t fault;               /* the fault's id */
	int32_t node;
	char pci[24];                 /* "0000:18:00", as the XID line said it */
};
#define XID_WAIT_MAX 1024         /* the oldest wait is dropped beyond */

struct facility {
	int known;
	double facility_kw, it_kw, cooling_kw, pue;
	double supply_c, return_c, flow_lpm, outside_c;
	int64_t time;
#define PUE_HISTORY 3600
	float pue_hist[PUE_HISTORY];  /* one per power event, ring */
	float it_hist[PUE_HISTORY];
	int32_t hist_len, hist_head;
};

struct fault_open {               /* positions in faults of the open ones, ascending */
	int32_t *pos;
	int32_t n, cap, ok;           /* ok 0: to be made again (closed ones were trimmed) */
};

struct model {
	char cluster[NAME_MAX_LEN];
	struct topo topo;
	int32_t nnodes, ngpus, gpus_per_node;
	struct node *nodes;
	int32_t *met[MET_COUNT];      /* ngpus each */
	int32_t *last_xid;            /* ngpus: last XID code, 0 = none */
	int32_t *gpu_job;             /* ngpus: index into jobs, -1 = idle */
	char (*uuid)[48];             /* ngpus */
	char (*pci)[24];              /* ngpus */
	char (*gpu_name)[64];         /* ngpus: "NVIDIA H100 80GB HBM3", "" until a query names it */
	struct ib_port *ports;        /* nnodes * topo.rails */
	struct job *jobs;             /* dense, unordered; index stable until removal */
	int32_t njobs, jobs_cap;
	struct fault *faults;         /* in id order; oldest closed ones dropped */
	int32_t nfaults, faults_cap;  /* faults_cap: when closed ones are trimmed (fault.c) */
	int32_t faults_alloc;         /* entries allocated, at most faults_cap */
	uint32_t next_fault_id, next_burst_id;
	struct xid_wait *xid_wait;    /* XIDs waiting for their GPU's identity, oldest first */
	int32_t nxid_wait;
	int64_t *node_last_fault;     /* nnodes: time of the node's last fault */
	uint32_t *node_burst;         /* nnodes: its current burst id */
	struct facility fac;
	int64_t time, start_time, tick;
	uint64_t events;              /* events applied */
	uint64_t parse_errors;
	/* name -> node index, open addressing; rebuilt when nodes are added;
	 * job id -> index into jobs */
	int32_t *name_slots, *job_slots;
	uint32_t name_cap, job_cap;
	/* the open faults' positions (fault.c): derived, neither hashed nor
	 * stored; made when first needed after model_init (a keyframe's faults
	 * come after it). The struct keeps its size: a keyframe's signature. */
	struct fault_open *open;
};

#define FAULTS_KEEP_CLOSED 4096   /* closed faults kept for history */
#define BURST_GAP_US (180 * US_PER_SEC)

void model_init(struct model *m);
void model_free(struct model *m);
void model_apply(struct model *m, const struct event *ev);
/* The hash of everything the model holds. Version 1 hashed it all with
 * FNV-1a; version 2 (MODEL_HASH_VERSION) hashes its large arrays with
 * hash_block. A recording says which version its keyframes' hashes are
 * (myriad-log(5), meta hash_version). */
#define MODEL_HASH_VERSION 2
uint64_t model_hash(const struct model *m);
uint64_t model_hash_v(const struct model *m, int version);

int32_t model_node_index(const struct model *m, const char *name);   /* -1 if unknown */
void model_index_names(struct model *m);   /* after node names were written directly (a keyframe) */
struct job *model_job(const struct model *m, uint32_t id);          /* NULL if unknown */
struct fault *model_fault(const struct model *m, uint32_t id);      /* NULL if unknown */
static inline int32_t model_gpu(const struct model *m, int32_t node, int32_t gpu)
{
	return node * m->gpus_per_node + gpu;
}
/* The index on its node of the GPU whose pci.bus_id is this address (any
 * form pci_normalize() reads; the function is ignored), or -1. */
int32_t model_gpu_of_pci(const struct model *m, int32_t node, const char *pci);
/* Counts used by the snapshot and the header. */
int32_t model_running_jobs(const struct model *m);
int32_t model_open_faults(const struct model *m);
/* Nodesets over the model (model_groups.c). */
struct nodeset;
char *model_state_name(const struct node *n);                 /* "mixed+drain", malloc'd */
int model_state_match(const struct node *n, const char *state);   /* 1, 0; -1 unknown state name */
/* A nodeset_group_fn over the model (ctx: the struct model *): @all @su:N ... */
int model_group(void *ctx, const char *group, struct nodeset *out, char **err);
/* Does this node count as "drained or draining"? */
static inline int node_is_drained(const struct node *n) { return (n->flags & NODE_F_DRAIN) != 0; }

#endif
