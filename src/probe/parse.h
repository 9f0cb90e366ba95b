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

/* ---- Prometheus: text exposition format 0.0.4 (and OpenMetrics 1.0's
 * differences where easy), the HTTP API's instant-query answer, and the
 * mapping of dcgm-exporter's series onto what the model knows ----
 *
 * A sample is one record: metric name, labels, value, optional timestamp.
 * Label names and unescaped values live in text[], found by offsets, so a
 * record can be copied with memcpy. Values are doubles; NaN and +-Inf are
 * kept as such (the mapper makes them unknown). */
#define PROM_NAME_MAX 256
#define PROM_LABELS_MAX 32
struct prom_rec {
	char name[PROM_NAME_MAX];      /* "" for a scalar or an unnamed API series */
	int nlabels;
	struct { uint16_t name, value; } lab[PROM_LABELS_MAX];   /* offsets in text */
	double value;
	int has_time;
	int64_t time_ms;               /* ms since the epoch when has_time */
	char text[2 * PARSE_LINE_MAX]; /* names and values; the upper half is scratch */
};
const char *prom_label_name(const struct prom_rec *r, int i);
const char *prom_label_value(const struct prom_rec *r, int i);
/* The value of label `name`, NULL if the record has none. */
const char *prom_label(const struct prom_rec *r, const char *name);
typedef void (*prom_fn)(void *ctx, const struct prom_rec *r);

/* One line of the text format (no newline). 1: a sample in *out; 0: a line
 * without one (blank, comment, HELP, TYPE, UNIT, "# EOF"); -1: a line that
 * cannot be read, with a short static *err. Never a number from garbage. */
int prom_parse_line(const char *line, size_t len, struct prom_rec *out, const char **err);
/* A whole exposition (a /metrics body): fn for each sample. Returns the
 * number of samples; malformed lines are skipped, counted in *rejected (if
 * not NULL), and reported to bad (may be NULL) with their 1-based number.
 * Lines longer than PARSE_LINE_MAX and anything after "# EOF" are malformed. */
int prom_parse_text(const char *s, size_t len, prom_fn fn, void *ctx, int *rejected,
		    void (*bad)(void *ctx, long lineno, const char *err));

/* An answer of GET /api/v1/query (resultType vector, matrix or scalar):
 * fn for each sample ("__name__" becomes the name, the value string "NaN",
 * "+Inf", "1.5" a double, the float seconds time_ms). Returns the number of
 * samples, or -1 with *err (malloc'd) for an answer that is not usable:
 * not JSON, "status":"error" (err says "Prometheus error bad_data: ..."),
 * no data. A series that is malformed is skipped and counted in *rejected. */
int prom_parse_api(const char *json, size_t len, prom_fn fn, void *ctx, int *rejected, char **err);

/* DCGM's blank values (dcgm_structs.h): INT32_BLANK 0x7ffffff0.., INT64_BLANK
 * 0x7ffffffffffffff0.. (NOT_SUPPORTED 9223372036854775794), FP64_BLANK 2^47..
 * 1 if v is one of those, NaN or infinite: an unknown value, never a number. */
int prom_dcgm_blank(double v);

/* What dcgm-exporter says about one GPU, in the units of the nvidia-smi path
 * (struct nvsmi_rec): m[] as MET_* (MET_UNKNOWN when absent, blank, NaN or
 * out of range). Keyed by the Hostname label (else instance without its
 * port) and the gpu label. Read: DCGM_FI_DEV_GPU_UTIL, FB_USED, FB_FREE,
 * FB_RESERVED (total = used + free + reserved), GPU_TEMP, POWER_USAGE (W ->
 * centiwatts), POWER_MGMT_LIMIT or ENFORCED_POWER_LIMIT, SM_CLOCK,
 * ECC_DBE_VOL_TOTAL, CLOCK_THROTTLE_REASONS / CLOCKS_EVENT_REASONS, and
 * XID_ERRORS; any other DCGM_FI_* series only makes its GPU known (identity,
 * no values). The model has no field for the remapped-row and NVLink
 * counters: they are kept here (-1 when absent) for the caller. MIG series
 * (GPU_I_ID) of one GPU carry the GPU's own fields: the last one read wins. */
struct prom_gpu {
	char host[64];
	int32_t gpu;                   /* the gpu label: index on the node */
	char uuid[48];                 /* UUID label, "" if absent */
	char pci[24];                  /* pci_bus_id as printed, "00000000:18:00.0" */
	char model[64];                /* modelName */
	int32_t m[MET_COUNT];
	int32_t xid;                   /* the XID_ERRORS gauge: last code, 0 none, -1 unknown */
	int64_t remap_uncorr, remap_corr, remap_failure, nvlink_bw, pcie_replay;   /* -1 absent */
	int64_t time;                  /* us: newest sample time, 0 if none had one */
};
typedef void (*prom_gpu_fn)(void *ctx, const struct prom_gpu *g);

/* Incremental: add records as they are parsed, then flush once per poll
 * (fn once per GPU, in the order first seen; the state is then empty). */
struct prom_dcgm;
struct prom_dcgm *prom_dcgm_new(void);
void prom_dcgm_free(struct prom_dcgm *d);
/* 1 if the record was about a GPU and used, 0 if ignored (another metric,
 * no gpu label, no host). */
int prom_dcgm_add(struct prom_dcgm *d, const struct prom_rec *r);
/* Returns the number of GPUs handed to fn. */
int prom_dcgm_flush(struct prom_dcgm *d, prom_gpu_fn fn, void *ctx);
/* The same over an array of records, at once. */
int prom_dcgm_map(const struct prom_rec *recs, size_t n, prom_gpu_fn fn, void *ctx);

/* The events of the nvidia-smi path for one GPU of node `node` (the caller
 * resolves g->host to its model index): EV_SAMPLE's body, EV_GPU_INFO's
 * (strings point into g; emit it when uuid or pci differ from the model's). */
void prom_dcgm_sample(const struct prom_gpu *g, int32_t node, struct ev_sample *out);
void prom_dcgm_info(const struct prom_gpu *g, int32_t node, struct ev_gpu_info *out);
/* XID_ERRORS is a gauge holding the last code. prev is the value the caller
 * kept from its previous poll of this GPU (-1: none yet). Returns the code of
 * an XID that happened since (the gauge changed to a nonzero code, or is
 * nonzero at first sight), 0 if none. The gauge cannot tell the same code
 * twice in a row apart (dcgm-exporter keeps it until restarted). */
int32_t prom_dcgm_xid_new(int32_t prev, int32_t now);
/* EV_XID's body for code on g: pci in the kernel's "0000:18:00" form (the
 * 40-byte buf holds it), pid -1, text naming the gauge. */
void prom_dcgm_xid(const struct prom_gpu *g, int32_t node, int32_t code, char buf[40], struct ev_xid *out);

#endif
