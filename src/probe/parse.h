/*
 * parse.h - parsers for what nodes and services print.
 *
 * Each parser is a pure function of its input (no model, no globals), so it
 * can be fuzzed, reused by `myriad parse`, and fed by the embedded simulator,
 * by SSH channels or by a file. Lines come without their trailing newline;
 * they may contain NULs and be of any length (the caller bounds them).
 * A parser never trusts its input: every field is checked, and a malformed
 * line gives -1 and a short static error message.
 */
#ifndef MYRIAD_PARSE_H
#define MYRIAD_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "../event.h"

#define PARSE_LINE_MAX 4096     /* longer lines are rejected by streams */

/* Copies at most cap-1 bytes of src[0..n) into dst and NUL-terminates it
 * (cap > 0). A cut never splits a UTF-8 sequence. Returns bytes copied. */
size_t parse_copy(char *dst, size_t cap, const char *src, size_t n);

/* `myriad parse FORMAT [FILE]` (DESIGN.md section 9). argv[0] is the
 * subcommand ("parse"), argv[1] the format, argv[2] the file ("-" or none:
 * stdin). Returns the exit status: 0 all parsed, 1 something rejected or a
 * bad request, 2 FILE cannot be opened. */
int parse_cli(int argc, char **argv);

/* ---- nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] ---- */

/* The columns myriad understands; others are skipped. */
enum nvsmi_col {
	NVC_INDEX, NVC_UUID, NVC_PCI, NVC_UTIL, NVC_MEM_USED, NVC_MEM_TOTAL,
	NVC_TEMP, NVC_POWER, NVC_POWER_LIMIT, NVC_SM_CLOCK, NVC_ECC_UNCORR,
	NVC_THROTTLE, NVC_OTHER, NVC_COUNT
};

#define NVSMI_MAX_COLS 64
struct nvsmi_layout {
	int ncols;
	enum nvsmi_col col[NVSMI_MAX_COLS];
};

/* The query myriad runs by default (DESIGN.md section 5, plus pci.bus_id so
 * XID lines can be tied to a GPU index). */
#define NVSMI_DEFAULT_QUERY \
	"index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,temperature.gpu," \
	"power.draw,power.limit,clocks.sm,ecc.errors.uncorrected.volatile.total," \
	"clocks_event_reasons.active"

/* The probe query of DESIGN.md section 5 (11 columns, no pci.bus_id). */
#define NVSMI_SHORT_QUERY \
	"index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu," \
	"power.draw,power.limit,clocks.sm,ecc.errors.uncorrected.volatile.total," \
	"clocks_event_reasons.active"

/* Number of CSV fields in a line (commas + 1), to pick a layout. */
int nvsmi_count_fields(const char *line, size_t len);
/* Layout from a --query-gpu field list ("index,uuid,...", aliases accepted). */
void nvsmi_layout_from_query(struct nvsmi_layout *l, const char *query);
/* Is this line a CSV header ("index, uuid, utilization.gpu [%], ...")?
 * If so, fills l from it and returns 1; 0 if not a header. */
int nvsmi_parse_header(const char *line, size_t len, struct nvsmi_layout *l);

struct nvsmi_rec {
	int32_t index;                 /* -1 if absent */
	char uuid[48];                 /* "" if absent or [N/A] */
	char pci[24];                  /* "" if absent or [N/A] */
	int32_t m[MET_COUNT];          /* MET_UNKNOWN for [N/A], [Not Supported], absent */
};
/* One data line, with or without units ("100 %", "631.95 W"). 0 or -1. */
int nvsmi_parse_line(const char *line, size_t len, const struct nvsmi_layout *l,
		     struct nvsmi_rec *out, const char **err);

/* ---- kernel log: NVRM Xid lines (plain dmesg, dmesg -T, journald, short-iso) ---- */

struct xid_rec {
	int32_t code;
	int32_t pid;                   /* -1 for "<unknown>" or absent */
	char pci[24];                  /* "0000:18:00" as printed */
	char host[64];                 /* host from a journald prefix, "" otherwise */
	char name[64];                 /* process name= field, "" if absent */
	int64_t time;                  /* us from a dmesg -T or short-iso prefix; 0 if none
	                                * (journald's "Aug 11 03:14:22" has no year: 0) */
	int sxid;                      /* 1 for NVSwitch "SXid" lines */
	char text[256];                /* message after the pid/name fields */
};
/* Returns 1 for an XID line, 0 for a line that is not about an XID (ignore
 * it), -1 for an XID line that is malformed. */
int xid_parse_line(const char *line, size_t len, struct xid_rec *out, const char **err);

/* ---- InfiniBand sysfs counters: "PATH VALUE" or "PATH:VALUE" lines ----
 * PATH like /sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error
 * or .../ports/1/state with value "4: ACTIVE". */
struct ib_rec {
	char dev[32];                  /* "mlx5_3" */
	int32_t port;                  /* 1 */
	int32_t counter;               /* enum ib_counter, or -1 for the state file */
	int32_t state;                 /* enum ib_port_state when counter == -1 */
	uint64_t value;
};
/* 1 for a counter/state line we keep, 0 for a well-formed line we do not
 * keep (another counter, blank), -1 for a malformed line. */
int ib_parse_line(const char *line, size_t len, struct ib_rec *out, const char **err);
/* "mlx5_3" -> 3, the rail. -1 if the name has no trailing number. */
int ib_dev_rail(const char *dev);

/* ---- Slurm JSON (sinfo --json, squeue --json; openapi v0.0.37+) ---- */

struct slurm_node_rec {
	char name[64];
	int32_t base;                  /* enum node_base */
	uint32_t flags;                /* NODE_F_* */
	char reason[128];
	char reason_who[64];
	int64_t reason_time;           /* us */
	int32_t gpus, gpus_used;       /* from gres / gres_used, -1 if unknown */
};
struct slurm_job_rec {
	uint32_t id;
	int32_t state;                 /* enum job_state */
	char name[128], user[64], partition[64];
	char nodes[1024];              /* folded nodeset as Slurm prints it */
	int32_t gpus;                  /* from tres_alloc_str / tres_req_str, -1 unknown */
	uint32_t gpu_mask;             /* from gres_detail "gpu:8(IDX:0-7)", 0 unknown */
	int64_t submit_time, start_time;   /* us */
};
/* Parse a whole document; call fn (may be NULL) for each record. Return the
 * number of records, or -1 with *err (malloc'd) if the document is not usable.
 * Records that are individually malformed are skipped and counted: *rejected
 * (if not NULL) is set to their number. Nodes come from a "nodes" array
 * (22.05 sinfo, scontrol, slurmrestd) or a "sinfo" array (newer sinfo). */
int slurm_parse_nodes(const char *json, size_t len,
		      void (*fn)(void *ctx, const struct slurm_node_rec *r), void *ctx,
		      int *rejected, char **err);
int slurm_parse_jobs(const char *json, size_t len,
		     void (*fn)(void *ctx, const struct slurm_job_rec *r), void *ctx,
		     int *rejected, char **err);

/* ---- facility meter JSON ----
 * {"time": "...", "facility_kw": 1234.5, "it_kw": 1100.2, "cooling_kw": 100.1,
 *  "outside_c": 18.5, "cdu": {"supply_c": 25.1, "return_c": 41.3, "flow_lpm": 1400.0}}
 * Missing numbers are NAN. */
int facility_parse(const char *json, size_t len, struct ev_power *out, char **err);

#endif
