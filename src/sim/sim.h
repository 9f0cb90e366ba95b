/*
 * sim.h - the embedded simulated cluster.
 *
 * A DGX SuperPOD-shaped cluster (topo.h) with a workload, a facility and a
 * fault injector, advanced one second of virtual time per sim_step(). It does
 * not talk to the model: like a real fleet it only prints text in the real
 * formats (nvidia-smi CSV, kernel XID lines, IB sysfs counters, Slurm JSON, the
 * facility meter's JSON), which the console reads through its parsers.
 *
 * The simulated scheduler stands in for Slurm in tests and demos only; actions
 * reach it through sim_drain() and friends (the "sim" backend), as they would
 * reach slurmctld through scontrol.
 *
 * Deterministic: the same spec gives the same text, byte for byte.
 */
#ifndef MYRIAD_SIM_H
#define MYRIAD_SIM_H

#include <stddef.h>
#include <stdint.h>
#include "../topo.h"

struct sim_spec {
	int32_t gpus;         /* default 10240 */
	uint64_t seed;        /* default 1 */
	double accel;         /* fault-rate acceleration, default 1 */
	int64_t start;        /* us; default 2026-01-01T00:00:00Z */
	double load;          /* target fraction of nodes busy, default 0.9 */
	double garble;        /* garbled kernel lines per node-hour, default 0.005 */
};
void sim_spec_default(struct sim_spec *s);
/* Parses "gpus=2048,seed=7,accel=60,start=2026-01-01T00:00:00Z,load=0.8" on top
 * of what s holds (also "garble=0.5": truncated Xid lines per node-hour, which
 * exercise the console's parse-error path). Returns 0, or -1 with *err
 * (malloc'd) naming the bad key. */
int sim_spec_parse(struct sim_spec *s, const char *text, char **err);

struct sim;

/* Where the text goes. node is the node index (0-based), -1 for services. */
enum sim_stream {
	SIM_NVSMI,            /* node: nvidia-smi CSV lines, noheader,nounits */
	SIM_KMSG,             /* node: kernel log lines, journalctl -k -o short-iso */
	SIM_IB,               /* node: "path value" sysfs lines, one dump per poll */
	SIM_SINFO,            /* service: sinfo --json document */
	SIM_SQUEUE,           /* service: squeue --json document */
	SIM_FACILITY,         /* service: facility meter JSON document */
	SIM_STREAM_COUNT
};
struct sim_sink {
	void *ctx;
	/* A chunk of text: whole lines ending in '\n' for node streams, a whole
	 * document for services. */
	void (*text)(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n);
};

struct sim *sim_new(const struct sim_spec *spec);
void sim_free(struct sim *s);
const struct topo *sim_topo(const struct sim *s);
int64_t sim_now(const struct sim *s);        /* virtual clock, us */
int64_t sim_tick(const struct sim *s);       /* steps taken */
void sim_node_name(const struct sim *s, int32_t node, char *out, int outlen);

/* Advance one second and print what a real fleet would print during it.
 * nvidia-smi: every node, every second. Kernel log: when faults happen.
 * IB counters: every 10 s per node (staggered). sinfo/squeue: every 5 s.
 * Facility: every second. */
void sim_step(struct sim *s, const struct sim_sink *sink);
/* Print the service documents now (used at start and on demand). */
void sim_print_service(struct sim *s, enum sim_stream which, const struct sim_sink *sink);

/* The scheduler face, as scontrol/scancel would offer it. Each returns 0 or -1
 * with a message in err (Slurm's wording where it has one). */
int sim_drain(struct sim *s, int32_t node, const char *reason, const char *who, char *err, size_t errlen);
int sim_resume(struct sim *s, int32_t node, char *err, size_t errlen);
int sim_requeue(struct sim *s, uint32_t job, const int32_t *exclude, int nexclude, char *err, size_t errlen);
int sim_signal(struct sim *s, uint32_t job, int sig, char *err, size_t errlen);

/* How scontrol and scancel see a job. PENDING includes the phases between
 * a node failure or a requeue and pending again (Slurm shows those jobs
 * pending); GONE is an unknown id or a finished job already purged. */
enum sim_job_phase { SIM_JOB_GONE, SIM_JOB_PENDING, SIM_JOB_RUNNING, SIM_JOB_DONE };
enum sim_job_phase sim_job_phase(struct sim *s, uint32_t job);
/* scontrol update JobId=job ExcNodeList=... StartTime=...: a pending job gets
 * the excluded nodes added (nexclude may be 0) and, if begin >= 0, may start
 * from begin (us; now if earlier). Running ones: "Job is no longer pending
 * execution". 0, or -1 with Slurm's message in err. */
int sim_job_update(struct sim *s, uint32_t job, const int32_t *exclude, int nexclude, int64_t begin, char *err,
		   size_t errlen);

/* Fault injection for tests: make node's GPU emit XID code at the next step. */
void sim_inject_xid(struct sim *s, int32_t node, int32_t gpu, int32_t code);
/* The same XID now, between steps: its kernel lines (stamped with the
 * current second) go to sink at once and its consequences happen now, as
 * sim_inject_xid's would at the next step; its sympathetic lines still come
 * a second later. Returns the number of kernel lines printed (0: the node is
 * hung or that GPU has already fallen off the bus, nothing happened), -1 for
 * a bad node, GPU or code. */
int sim_inject_xid_now(struct sim *s, int32_t node, int32_t gpu, int32_t code, const struct sim_sink *sink);
/* sim_test_fault (sim_test.h) with its kernel lines going to sink at once. */
int sim_fault_now(struct sim *s, int32_t node, int32_t gpu, const char *kind, const struct sim_sink *sink);

#endif
