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

/* Longer lines are rejected by streams. 64 KiB: an nvidia-smi header of every
 * field the driver knows (200-250 columns) is 6-8 KiB. */
#define PARSE_LINE_MAX 65536

/* PCI addresses as the kernel ("0000:18:00"), nvidia-smi ("00000000:18:00.0")
 * and NVSwitch lines ("0000:0b:00.0") print them, in one form: lower-case hex,
 * a 4-digit domain (more when it is wider), "dddd:bb:dd", and ".f" when keep_fn
 * and the input had a function. A missing domain is 0. Returns 0, or -1 if s
 * is not a PCI address (out is then ""). out must hold 24 bytes. */
int pci_normalize(const char *s, size_t n, int keep_fn, char out[24]);
/* Same domain, bus and device (the function is ignored); 0 if either is not
 * a PCI address. */
int pci_same_device(const char *a, const char *b);

/* Copies at most cap-1 bytes of src[0..n) into dst and NUL-terminates it
 * (cap > 0). A cut never splits a UTF-8 sequence. Returns bytes copied. */
size_t parse_copy(char *dst, size_t cap, const char *src, size_t n);

/* `myriad parse FORMAT [FILE]` (myriad(1)). argv[0] is the
 * subcommand ("parse"), argv[1] the format, argv[2] the file ("-" or none:
 * stdin). Returns the exit status: 0 all parsed, 1 something rejected or a
 * bad request, 2 FILE cannot be opened. */
int parse_cli(int argc, char **argv);

/* ---- nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] ---- */

/* The columns myriad understands; others are skipped. */
enum nvsmi_col {
	NVC_INDEX, NVC_UUID, NVC_PCI, NVC_UTIL, NVC_MEM_USED, NVC_MEM_TOTAL,
	NVC_TEMP, NVC_POWER, NVC_POWER_LIMIT, NVC_SM_CLOCK, NVC_ECC_UNCORR,
	NVC_THROTTLE, NVC_NAME, NVC_OTHER, NVC_COUNT
};

/* A layout holds the number of columns and where the known ones are, so a
 * query of any width costs the same few bytes: sites query 100-250 fields
 * (every one --help-query-gpu lists) and the header names map them. */
#define NVSMI_MAX_COLS 32768    /* a 64 KiB line holds no more fields */
struct nvsmi_layout {
	int ncols;                  /* 0: unusable, every line is rejected */
	int nknown;                 /* known columns, in column order */
	uint16_t pos[NVC_OTHER];
	uint8_t col[NVC_OTHER];     /* enum nvsmi_col */
};

/* The query myriad runs by default (myriad-design(7), SOURCES AND FORMATS, plus pci.bus_id so
 * XID lines can be tied to a GPU index). */
#define NVSMI_DEFAULT_QUERY \
	"index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,temperature.gpu," \
	"power.draw,power.limit,clocks.sm,ecc.errors.uncorrected.volatile.total," \
	"clocks_event_reasons.active"

/* The older 11-column probe query (11 columns, no pci.bus_id). */
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
	char name[64];                 /* "NVIDIA H100 80GB HBM3"; "" if absent or [N/A] */
};
/* One data line, with or without units ("100 %", "631.95 W"). 0 or -1.
 * A line whose field count is not the layout's gives -1 with err
 * "wrong number of columns" (nvsmi_reject_reason() says more). */
int nvsmi_parse_line(const char *line, size_t len, const struct nvsmi_layout *l,
		     struct nvsmi_rec *out, const char **err);

/* Why a data line does not fit: "no header, cannot map columns" when no
 * header was seen and the count matches no built-in query, else the counts.
 * Writes into buf (cap bytes) and returns it. */
const char *nvsmi_reject_reason(int have_header, int ncols_line, int ncols_layout,
				char *buf, size_t cap);

/* ---- kernel log: NVRM Xid and NVSwitch SXid lines ----
 * Every time stamp dmesg and journald print: dmesg's "[  12.345678]",
 * -T/--ctime, --time-format=iso ("2025-01-21T04:41:44,283302+00:00"),
 * --decode's "kern  :err   : " prefix; journald's short, short-precise,
 * short-iso, short-iso-precise, short-full, short-unix, short-monotonic. */

/* SXid lines come in parts: the event ("Non-fatal, Link 44 ..."), then
 * "Severity 0 Engine instance 44 ..." and "Data {0x...}" lines. */
enum sxid_part { SXID_NONE, SXID_EVENT, SXID_SEVERITY, SXID_DATA };

struct xid_rec {
	int32_t code;
	int32_t pid;                   /* -1 for "<unknown>" or absent */
	char pci[24];                  /* normalised: "0000:18:00", ".f" kept for SXid */
	char host[64];                 /* host from a journald prefix, "" otherwise */
	char name[64];                 /* process name= field, "" if absent or <unknown> */
	int64_t time;                  /* us since the epoch; 0 if the stamp has none
	                                * (journald's "Aug 11 03:14:22" has no year) */
	int sxid;                      /* 1 for NVSwitch "SXid" lines */
	char text[256];                /* message after the pid/name fields */
	int32_t sxid_part;             /* enum sxid_part, SXID_NONE for an Xid */
	int32_t link;                  /* SXid "Link 44": 44; -1 if none */
	int32_t fatal;                 /* SXid: 1 "Fatal", 0 "Non-fatal", -1 not said */
	int32_t severity;              /* SXid "Severity N" line: N; -1 otherwise */
};
/* Returns 1 for an XID line, 0 for a line that is not about an XID (ignore
 * it), -1 for an XID line that is malformed. */
int xid_parse_line(const char *line, size_t len, struct xid_rec *out, const char **err);
/* kstamp.c: skips the time stamp, host and "kernel: " before a kernel
 * message; sets *time (us, 0 if the stamp has none) and host ("" if none,
 * hostcap > 0). Returns the offset of the message. */
size_t kmsg_skip_prefixes(const char *s, size_t n, int64_t *time, char *host, size_t hostcap);

/* NVSwitch SXid events span lines: the event line ("Non-fatal, Link 44 ...")
 * is the record; the driver prints its "Severity ..." and "Data {...}" lines
 * right after it, and they are folded into it: sxid_continuation() is 1 for
 * them and the caller makes no record of them (so one fault does not count
 * three times). One with no event line before it is the tail of an event
 * printed before the capture began: folded away the same. */
int sxid_continuation(const struct xid_rec *r);

/* ---- InfiniBand sysfs counters: "PATH VALUE" or "PATH:VALUE" lines ----
 * PATH like /sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error,
 * .../ports/1/state with value "4: ACTIVE", .../ports/1/link_layer with
 * "InfiniBand" or "Ethernet" (RoCE). */
#define IB_STATE_FILE (-1)              /* ib_rec.counter for ports/N/state */
#define IB_LINK_LAYER_FILE (-2)         /* ib_rec.counter for ports/N/link_layer */
enum ib_link_layer { IBL_UNKNOWN, IBL_INFINIBAND, IBL_ETHERNET };
struct ib_rec {
	char dev[32];                  /* "mlx5_3" */
	int32_t port;                  /* 1 */
	int32_t counter;               /* enum ib_counter, IB_STATE_FILE or IB_LINK_LAYER_FILE */
	int32_t state;                 /* enum ib_port_state for IB_STATE_FILE */
	uint64_t value;
	int32_t unknown;               /* 1: the counter cannot be read ("N/A (no PMA)") */
	int32_t link_layer;            /* enum ib_link_layer for IB_LINK_LAYER_FILE */
};
/* 1 for a counter/state/link_layer line we keep, 0 for a well-formed line we
 * do not keep (another counter, blank), -1 for a malformed line. */
int ib_parse_line(const char *line, size_t len, struct ib_rec *out, const char **err);

/* Rails from the hardware, not from names. devs[0..n) are the HCAs a node
 * showed, ll[i] their link layer (enum ib_link_layer). With a site mapping
 * (map[0..nmap), device names in rail order) a device's rail is its place
 * in the map, -1 if it is not in it. Without one, Ethernet devices (RoCE,
 * bonds) are not fabric rails (-1) and the others take rails 0, 1, ... in
 * natural name order (mlx5_2 before mlx5_10). rail[i] gets the result. */
void ib_assign_rails(const char *const *devs, const int32_t *ll, int n,
		     const char *const *map, int nmap, int32_t *rail);
/* Natural order of device names: "mlx5_2" < "mlx5_10". */
int ib_dev_cmp(const char *a, const char *b);

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
/* The same, read as the document arrives (slurm_doc.c): a document of
 * 12,800 nodes is some 13 MB, read a piece at a time off the loop. jobs: an
 * squeue document (else sinfo). slurm_doc_more: the document so far is
 * buf[0..len) (the buffer may have moved; its bytes before len never
 * change); whatever is complete of it is read. slurm_doc_end: the document
 * is whole: its records go to the callback and the return value is that of
 * slurm_parse_nodes or slurm_parse_jobs, nothing being said before it is
 * whole; the reader is then ready for the next document (as after
 * slurm_doc_reset, which forgets a document cut short). */
struct slurm_doc;
struct slurm_doc *slurm_doc_new(int jobs);
void slurm_doc_free(struct slurm_doc *d);
void slurm_doc_reset(struct slurm_doc *d);
void slurm_doc_more(struct slurm_doc *d, const char *buf, size_t len);
int slurm_doc_end(struct slurm_doc *d, const char *buf, size_t len,
		  void (*node_fn)(void *ctx, const struct slurm_node_rec *r),
		  void (*job_fn)(void *ctx, const struct slurm_job_rec *r), void *ctx, int *rejected, char **err);

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
 * an XID that happened since (the gauge changed to a nonzero code), 0 if
 * none. The first reading is the baseline, as the kernel log's past is for
 * the SSH path: an XID from before the console started is not news. The
 * gauge cannot tell the same code twice in a row apart (dcgm-exporter keeps
 * it until restarted). */
int32_t prom_dcgm_xid_new(int32_t prev, int32_t now);
/* EV_XID's body for code on g: pci in the kernel's "0000:18:00" form (the
 * 40-byte buf holds it), pid -1, text naming the gauge. */
void prom_dcgm_xid(const struct prom_gpu *g, int32_t node, int32_t code, char buf[40], struct ev_xid *out);

#endif
