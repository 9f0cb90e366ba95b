/*
 * sim_int.h - the simulator's internal state, shared by the files of src/sim/.
 * Nothing outside src/sim/ includes this (tests use sim_test.h).
 *
 * Layout: flat arrays indexed by node (struct snode), GPU (struct sgpu, node *
 * 8 + index) and IB port (struct sport, node * 8 + rail); jobs in an array kept
 * sorted by id (struct sjob). Every random draw comes from one of four seeded
 * generators (telemetry, workload, faults, facility) so that changing one part
 * does not shift the others, and nothing depends on time() or hash order.
 *
 * Files: sim.c (spec, lifecycle, step, scontrol face), workload.c (jobs and the
 * stand-in scheduler), fleet.c (GPU telemetry, nvidia-smi and IB text),
 * faults.c (fault injector, XID text, health check, repair crew), facility.c
 * (power, PUE, cooling), slurm_json.c (sinfo/squeue documents), textfmt.c
 * (fast number formatting, nodeset folding), sim_test.c (read-only views for
 * tests, declared in sim_test.h).
 */
#ifndef MYRIAD_SIM_INT_H
#define MYRIAD_SIM_INT_H

#include <stdint.h>
#include <string.h>
#include "sim.h"
#include "../event.h"
#include "../util.h"

#define SIM_GPN 8                    /* GPUs (and IB rails) per node */
/* PCI bus of each GPU of a DGX H100 (a real 8-GPU set: myriad-design(7), SOURCES AND FORMATS) */
extern const uint8_t sim_pci_bus[SIM_GPN];
#define SIM_MEM_TOTAL 81559          /* H100 SXM 80GB memory.total, MiB */
#define SIM_POWER_LIMIT_W 700.0
#define SIM_CLOCK_MAX 1980           /* SM clock, MHz */
#define SIM_CLOCK_IDLE 345
#define SIM_SLURMD_TIMEOUT 120       /* s until a silent node is marked DOWN */
#define SIM_MIN_JOB_AGE 300          /* s a finished job stays in squeue */
#define SIM_PHASE_SECS 5             /* s shown as NODE_FAIL, then REQUEUED */
#define SIM_REQUEUE_DELAY 60         /* s a requeued job waits (BeginTime) */
#define SIM_CPUS 224                 /* 2 x 56 cores x 2 threads */
#define SIM_REAL_MEMORY 2000000      /* MB */
#define SIM_MEM_PER_GPU 250000       /* MB allocated per GPU */
#define SIM_NO_TIME INT64_MAX

/* ---- faults ---- */

enum fault_kind {
	FK_NONE,
	FK_XID,        /* a GPU XID that needs a reset: drained, repaired */
	FK_THERMAL,    /* temperature climbing past 87 C, HW thermal slowdown */
	FK_LINK_DOWN,  /* IB link down on one rail */
	FK_SYMBOL,     /* IB symbol_error burst on one rail */
	FK_NIC,        /* HCA failure on one rail */
	FK_HOST,       /* host hung: the node prints nothing */
};

struct sfault {
	int kind;                  /* enum fault_kind */
	int32_t gpu, rail, code;   /* gpu index 0-7 or -1; XID code or 0 */
	int64_t at;                /* us, when it happened */
	int64_t check_at;          /* us, health check (or slurmd timeout) due; 0 done */
	int64_t repair_at;         /* us, repair crew done; 0 not scheduled */
	char reason[64];           /* the health check's drain reason */
};

/* ---- nodes, GPUs, ports ---- */

struct snode {
	char name[16];
	uint8_t used;              /* mask of GPUs allocated to jobs */
	uint8_t silent;            /* host hung: no nvidia-smi, IB, kernel lines */
	uint8_t down;              /* Slurm DOWN */
	uint32_t flags;            /* NODE_F_DRAIN, NODE_F_NOT_RESPONDING */
	char reason[128], who[32];
	int64_t reason_time;       /* us; 0 if no reason */
	int64_t boot_time;         /* us */
	int64_t last_busy;         /* us */
	struct sfault fault;
};

enum gpu_health { GH_OK, GH_LOST, GH_GSP };

struct sgpu {
	float temp, watts;         /* state, C and W */
	float heat;                /* extra C from a thermal fault */
	uint32_t job;              /* job id, 0 when idle */
	int64_t job_start;         /* s */
	int64_t ckpt_until;        /* s: checkpoint dip (USR1) until then */
	int32_t mem, job_mem, ecc;
	uint16_t idle_mem, job_watts, stall_period, stall_len;
	uint8_t util, job_util, health, announced;
	uint8_t multi;             /* its job spans nodes (uses the IB rail) */
	uint32_t thr;              /* clocks_event_reasons.active */
	int32_t clock;             /* MHz */
	uint8_t prefix_len;
	char prefix[72];           /* "3, GPU-..., 00000000:5D:00.0, " */
};

struct sport {
	uint64_t c[IBC_COUNT];
	uint8_t state;             /* enum ib_port_state */
	float sym_rate;            /* symbol errors per second (FK_SYMBOL) */
};

/* ---- jobs ---- */

enum job_class { JC_SMALL, JC_MEDIUM, JC_LARGE, JC_PRETRAIN, JC_COUNT };

struct sjob {
	uint32_t id;
	uint8_t state;             /* enum job_state */
	uint8_t cls, name, user;   /* indexes into the name and user tables */
	uint8_t debug;             /* partition "debug" rather than "batch" */
	uint8_t gpn;               /* GPUs per node */
	uint8_t mask;              /* GPU mask on each node */
	uint8_t end_state;         /* how it will end if nothing happens */
	uint8_t requeue;           /* --requeue (JobRequeue=1) */
	uint8_t util;              /* telemetry: target utilization */
	int32_t nnodes;
	int32_t *nodes;            /* sorted node indexes, nnodes of them */
	int32_t *excl;             /* sorted excluded node indexes */
	int32_t nexcl;
	int32_t restarts, last_sig, exit_code;
	int32_t mem;               /* MiB per GPU */
	uint16_t watts, stall_period, stall_len;
	int64_t submit, eligible, start, end;   /* s; end = planned or actual */
	int64_t limit;             /* s, time limit */
	int64_t work;              /* s of run time left when started */
	int64_t phase_until;       /* s: NODE_FAIL / REQUEUED display phase */
	int64_t ckpt;              /* s of the last USR1 checkpoint, 0 none */
	int shown_nodes;           /* list nodes while in NODE_FAIL/terminal */
	const char *reason;        /* pending reason */
};

struct sxq {                   /* a queued kernel event (injected, sympathetic) */
	int64_t at;                /* s */
	int32_t node, gpu, code;
	uint32_t pid;              /* process named in the line, 0 unknown */
	int primary;               /* 1: has consequences (injected) */
};

/* ---- facility ---- */

struct sfac {
	double gpu_kw, host_kw, switch_kw, it_kw;
	double cooling_kw, other_kw, facility_kw, pue;
	double outside_c, supply_c, return_c, flow_lpm;
	double liquid_kw;          /* lagged heat into the liquid loop */
	double it_design_kw, flow_design;
	double outside_drift;
	double gpu_inlet_offset;   /* C added to every GPU's inlet (cooling fault) */
	double util_mean;          /* mean GPU utilization, 0..1 */
	int cool_fault;            /* 0 none, 1 pump (flow), 2 chiller (supply) */
	int64_t cool_until;        /* s */
	double cool_level;         /* 0..1, ramps in and out */
};

struct sim {
	struct sim_spec spec;
	struct topo topo;
	int64_t now;               /* us */
	int64_t tick;
	struct rng r_tel, r_job, r_flt, r_fac;
	struct snode *nodes;
	struct sgpu *gpus;
	struct sport *ports;
	struct sjob *jobs;
	int32_t njobs, jcap;
	uint32_t next_id;
	int64_t cap_gpus;          /* QOS GrpTRES gres/gpu = load x GPUs */
	int64_t running_gpus, pending_gpus;
	int32_t pending_jobs;
	struct sxq *xq;
	int32_t nxq, xqcap;
	int32_t *faulted;          /* nodes with an active fault, oldest first */
	int32_t nfaulted;
	double lambda;             /* natural faults expected per step */
	double garble_p;           /* garbled kernel line chance per node-step */
	struct sfac fac;
	struct sbuf out, doc;      /* node chunks; service documents */
	int64_t *scratch;          /* workload: expected ends for backfill */
	int32_t scratch_cap;
	char ts[40];               /* "2026-01-01T00:12:34+0000" of this step */
	const struct sim_sink *sink;
	/* counters for tests and the report */
	int64_t n_faults, n_dropped, n_xid_lines, n_garbled, n_drains, n_repairs;
	int64_t n_starts, n_ends;
};

static inline int64_t sim_sec(const struct sim *s) { return s->now / US_PER_SEC; }
static inline int sim_printing(const struct sim *s) { return s->sink && s->sink->text; }
void sim_emit(struct sim *s, enum sim_stream st, int32_t node, const struct sbuf *b);

/* textfmt.c */
#define SB_LIT(b, lit) sbuf_add((b), (lit), sizeof(lit) - 1)
void sb_u64(struct sbuf *b, uint64_t v);
void sb_i64(struct sbuf *b, int64_t v);
void sb_fixed(struct sbuf *b, double v, int decimals);   /* rounded, 1 or 2 */
void sb_hex16(struct sbuf *b, uint64_t v);               /* 16 hex digits */
/* The same at p, returning the end: the caller holds the room (24 bytes a
 * number, 40 a fixed-point one, 16 the hex). */
#define TX_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)
char *tx_u64(char *p, uint64_t v);
char *tx_fixed(char *p, double v, int decimals);
char *tx_hex16(char *p, uint64_t v);
void sb_fold(struct sbuf *b, const struct sim *s, const int32_t *idx, int32_t n);
void sb_idx_list(struct sbuf *b, uint8_t mask);          /* "0-3,6" */
int sim_name_width(const struct sim *s);

/* workload.c */
void wl_init(struct sim *s);
void wl_step(struct sim *s);
struct sjob *wl_find(struct sim *s, uint32_t id);
void wl_node_fail(struct sim *s, struct sjob *j);      /* NODE_FAIL, requeue */
void wl_app_fail(struct sim *s, struct sjob *j);       /* FAILED, exit 1 */
void wl_requeue(struct sim *s, struct sjob *j, const int32_t *excl, int nexcl);
void wl_cancel(struct sim *s, struct sjob *j);
void wl_checkpoint(struct sim *s, struct sjob *j);
void wl_free(struct sim *s);
const char *wl_job_name(const struct sjob *j);
const char *wl_user_name(const struct sjob *j);
uint32_t wl_user_uid(const struct sjob *j);
uint32_t wl_pid(const struct sjob *j, int32_t node);

/* fleet.c */
void fleet_init(struct sim *s);
void fleet_settle(struct sim *s);                /* warm start: steady state */
void fleet_step(struct sim *s);                  /* telemetry + nvidia-smi */
void fleet_ib(struct sim *s);                    /* IB dumps due this step */
void fleet_gpu_reset(struct sim *s, int32_t node);

/* faults.c */
void faults_init(struct sim *s);
void faults_step(struct sim *s);
void faults_queue(struct sim *s, int32_t node, int32_t gpu, int32_t code, int64_t at, uint32_t pid, int primary);
void faults_resumed(struct sim *s, int32_t node);
double faults_per_gpu_day(void);
int faults_force(struct sim *s, int32_t node, int32_t gpu, const char *kind);

/* facility.c */
void fac_init(struct sim *s);
void fac_step(struct sim *s);                    /* after fleet_step */
void fac_print(struct sim *s);

/* slurm_json.c */
void sj_sinfo(struct sim *s);
void sj_squeue(struct sim *s);

#endif
