/*
 * test_parse.c - unit tests of the parsers in src/probe/ (nvidia-smi CSV,
 * kernel Xid lines, IB sysfs counters, Slurm JSON, facility JSON) and of
 * `myriad parse`, with real lines from domain.md and hostile input.
 * JSON fixtures live in tests/data/ (tests run from the repo root).
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "probe/parse.h"
#include "util.h"

#define L(s) (s), (sizeof(s) - 1)

/* domain.md section 2: the query of the real H100 sample line */
#define H100_QUERY                                                                          \
	"index,uuid,name,pci.bus_id,utilization.gpu,utilization.memory,memory.used,"        \
	"memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,"                   \
	"ecc.errors.uncorrected.volatile.total,remapped_rows.pending,"                      \
	"clocks_throttle_reasons.active"
#define H100_NOUNITS                                                                        \
	"0, GPU-00000000-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, "             \
	"00000000:00:09.0, 100, 11, 19818, 81559, 59, 631.95, 700.00, 1980, 0, No, "       \
	"0x0000000000000000"
#define H100_UNITS                                                                          \
	"0, GPU-00000000-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, "             \
	"00000000:00:09.0, 100 %, 11 %, 19818 MiB, 81559 MiB, 59, 631.95 W, 700.00 W, "    \
	"1980 MHz, 0, No, 0x0000000000000000"
#define DEF_LINE                                                                            \
	"3, GPU-927d7444-b45a-7c49-8402-5e686e46a026, 00000000:5D:00.0, 87, 40000, "       \
	"81559, 61, 512.34, 700.00, 1755, 0, 0x0000000000000040"

static void check_h100(const struct nvsmi_rec *r)
{
	CHECK_INT(r->index, 0);
	CHECK_STR(r->uuid, "GPU-00000000-0000-0000-0000-000000000000");
	CHECK_STR(r->pci, "00000000:00:09.0");
	CHECK_INT(r->m[MET_UTIL], 100);
	CHECK_INT(r->m[MET_MEM_USED], 19818);
	CHECK_INT(r->m[MET_MEM_TOTAL], 81559);
	CHECK_INT(r->m[MET_TEMP], 59);
	CHECK_INT(r->m[MET_POWER], 63195);
	CHECK_INT(r->m[MET_POWER_LIMIT], 70000);
	CHECK_INT(r->m[MET_SM_CLOCK], 1980);
	CHECK_INT(r->m[MET_ECC_UNCORR], 0);
	CHECK_INT(r->m[MET_THROTTLE], 0);
}

TEST(nvsmi_h100_sample_line)
{
	struct nvsmi_layout l;
	struct nvsmi_rec r;
	const char *err = NULL;

	nvsmi_layout_from_query(&l, H100_QUERY);
	CHECK_INT(l.ncols, 15);
	CHECK_INT(nvsmi_parse_line(L(H100_NOUNITS), &l, &r, &err), 0);
	check_h100(&r);
	CHECK_INT(nvsmi_parse_line(L(H100_UNITS), &l, &r, &err), 0);
	check_h100(&r);
	CHECK_INT(nvsmi_parse_line(L(H100_NOUNITS "\r"), &l, &r, &err), 0);
	check_h100(&r);
}

static int def_parse(const char *s, size_t n, struct nvsmi_rec *r, const char **err)
{
	struct nvsmi_layout l;

	nvsmi_layout_from_query(&l, NVSMI_DEFAULT_QUERY);
	*err = NULL;
	return nvsmi_parse_line(s, n, &l, r, err);
}

TEST(nvsmi_default_and_short_query)
{
	struct nvsmi_layout l;
	struct nvsmi_rec r;
	const char *err;

	CHECK_INT(def_parse(L(DEF_LINE), &r, &err), 0);
	CHECK_INT(r.index, 3);
	CHECK_STR(r.pci, "00000000:5D:00.0");
	CHECK_INT(r.m[MET_POWER], 51234);
	CHECK_INT(r.m[MET_THROTTLE], THR_HW_THERMAL);
	CHECK_INT(nvsmi_count_fields(L(DEF_LINE)), 12);
	nvsmi_layout_from_query(&l, NVSMI_SHORT_QUERY);
	CHECK_INT(l.ncols, 11);
	CHECK_INT(nvsmi_parse_line(L("7, GPU-x, 0, 0, 81559, 34, 70.12, 700.00, 345, 0, 0x1"),
				   &l, &r, &err), 0);
	CHECK_INT(r.index, 7);
	CHECK_STR(r.pci, "");
	CHECK_INT(r.m[MET_THROTTLE], THR_GPU_IDLE);
	/* comma without a space */
	CHECK_INT(nvsmi_parse_line(L("7,GPU-x,0,0,81559,34,70.12,700.00,345,0,0x1"), &l, &r, &err), 0);
	CHECK_INT(r.m[MET_SM_CLOCK], 345);
}

TEST(nvsmi_header_switches_layout)
{
	struct nvsmi_layout l;
	struct nvsmi_rec r;
	const char *err;

	CHECK_INT(nvsmi_parse_header(L("index, uuid, utilization.gpu [%], memory.used [MiB], "
				       "memory.total [MiB], temperature.gpu, power.draw [W], "
				       "clocks.current.sm [MHz], clocks_throttle_reasons.active"), &l), 1);
	CHECK_INT(l.ncols, 9);
	CHECK_INT(l.col[2], NVC_UTIL);
	CHECK_INT(l.col[7], NVC_SM_CLOCK);
	CHECK_INT(l.col[8], NVC_THROTTLE);
	CHECK_INT(nvsmi_parse_line(L("1, GPU-a, 55 %, 100 MiB, 81559 MiB, 40, 99.99 W, 1410 MHz, 0x20"),
				   &l, &r, &err), 0);
	CHECK_INT(r.m[MET_UTIL], 55);
	CHECK_INT(r.m[MET_POWER], 9999);
	CHECK_INT(r.m[MET_POWER_LIMIT], MET_UNKNOWN);
	CHECK_INT(nvsmi_parse_header(L("name, pci.bus_id, vbios_version"), &l), 1);
	CHECK_INT(l.col[0], NVC_OTHER);
	CHECK_INT(l.col[1], NVC_PCI);
	nvsmi_layout_from_query(&l, "gpu_uuid,gpu_bus_id,clocks_event_reasons.active");
	CHECK_INT(l.col[0], NVC_UUID);
	CHECK_INT(l.col[1], NVC_PCI);
	CHECK_INT(l.col[2], NVC_THROTTLE);
	/* data, errors and junk are not headers */
	CHECK_INT(nvsmi_parse_header(L(H100_NOUNITS), &l), 0);
	CHECK_INT(nvsmi_parse_header(L("Field \"xyz\" is not a valid field to query."), &l), 0);
	CHECK_INT(nvsmi_parse_header(L("foo, bar"), &l), 0);
	CHECK_INT(nvsmi_parse_header(L("index, uuid [x"), &l), 0);
	CHECK_INT(nvsmi_parse_header(L("index\0, uuid"), &l), 0);
	CHECK_INT(nvsmi_parse_header(L(""), &l), 0);
}

TEST(nvsmi_unknown_values)
{
	static const char *const tokens[] = {
		"[N/A]", "[Not Supported]", "N/A", "[Requested functionality has been deprecated]",
		"[Unknown Error]", "[GPU requires reset]", "[Insufficient Permissions]",
	};
	struct nvsmi_rec r;
	const char *err;
	char line[1024];

	for (unsigned i = 0; i < ARRAY_LEN(tokens); i++) {
		const char *t = tokens[i];
		int n = snprintf(line, sizeof line, "0, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s",
				 t, t, t, t, t, t, t, t, t, t, t);

		CHECK(n > 0 && (size_t)n < sizeof line);
		CHECK_INT(def_parse(line, (size_t)n, &r, &err), 0);
		CHECK_STR(r.uuid, "");
		CHECK_STR(r.pci, "");
		for (int m = 0; m < MET_COUNT; m++)
			CHECK_INT(r.m[m], MET_UNKNOWN);
	}
	CHECK_INT(def_parse(L("[N/A], GPU-a, 0:0:0.0, 1, 1, 1, 1, 1.00, 1.00, 1, 0, 0x0"), &r, &err), -1);
}

static int32_t power_of(const char *v)
{
	char line[256];
	struct nvsmi_rec r;
	const char *err;
	int n = snprintf(line, sizeof line, "0, GPU-a, 0:0:0.0, 1, 1, 1, 1, %s, 1.00, 1, 0, 0x0", v);

	return def_parse(line, (size_t)n, &r, &err) ? -999 : r.m[MET_POWER];
}

TEST(nvsmi_power_centiwatts)
{
	CHECK_INT(power_of("631.95"), 63195);
	CHECK_INT(power_of("631.95 W"), 63195);
	CHECK_INT(power_of("700"), 70000);
	CHECK_INT(power_of("0.5"), 50);
	CHECK_INT(power_of("0.005"), 1);
	CHECK_INT(power_of("0.004"), 0);
	CHECK_INT(power_of("631.954"), 63195);
	CHECK_INT(power_of("631.955"), 63196);
	CHECK_INT(power_of("99999.999"), 10000000);
	CHECK_INT(power_of("6.3.1"), -999);
	CHECK_INT(power_of(".5"), -999);
	CHECK_INT(power_of("5."), -999);
	CHECK_INT(power_of("-1.00"), -999);
	CHECK_INT(power_of("1e3"), -999);
	CHECK_INT(power_of("abc"), -999);
	CHECK_INT(power_of("631.95 MHz"), -999);
	CHECK_INT(power_of("100001"), -999);
	CHECK_INT(power_of("99999999999999999999999.5"), -999);
}

static int32_t throttle_of(const char *v, int *rc)
{
	char line[256];
	struct nvsmi_rec r;
	const char *err;
	int n = snprintf(line, sizeof line, "0, GPU-a, 0:0:0.0, 1, 1, 1, 1, 1.00, 1.00, 1, 0, %s", v);

	*rc = def_parse(line, (size_t)n, &r, &err);
	return r.m[MET_THROTTLE];
}

TEST(nvsmi_throttle_hex)
{
	int rc;

	CHECK_INT(throttle_of("0x0000000000000040", &rc), 0x40);
	CHECK_INT(rc, 0);
	CHECK_INT(throttle_of("0xFFFFFFFF000001a5", &rc), 0x1a5);
	CHECK_INT(rc, 0);
	throttle_of("0x", &rc);
	CHECK_INT(rc, -1);
	throttle_of("0x00000000000000000", &rc);
	CHECK_INT(rc, -1);
	throttle_of("0x00000000000000g0", &rc);
	CHECK_INT(rc, -1);
	throttle_of("40", &rc);
	CHECK_INT(rc, -1);
}

TEST(nvsmi_rejects_bad_lines)
{
	static const char *const bad[] = {
		"3, GPU-a, 0:0:0.0, 87, 40000, 81559, 61, 512.34, 700.00, 1755, 0",           /* 11 */
		DEF_LINE ", 5",                                                                  /* 13 */
		DEF_LINE ",",                                                                    /* trailing */
		"3, GPU-a, 0:0:0.0, 101, 40000, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",       /* util */
		"3, GPU-a, 0:0:0.0, 87, -1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",           /* mem < 0 */
		"64, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",           /* index */
		"-1, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",
		"3, GPU-a, 0:0:0.0, 87 %x, 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",         /* garbage */
		"3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755 MHz junk, 0, 0x0",
		"3, GPU-a, 0:0:0.0, 87, 19818 MB, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",     /* unit */
		"3, GPU-a, 0:0:0.0, 87, 99999999999999999999, 81559, 61, 5.0, 7.0, 1, 0, 0x0",  /* huge */
		"3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755, 4294967296, 0x0",
		"3, GPU-a, 0:0:0.0, , 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",              /* empty */
		"3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 17",                      /* cut */
		"3, GPU a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",            /* uuid */
		"3, GPU-a, 0:0:0.0;x, 87, 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0",          /* pci */
		"3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755, 0, 0x0\x1b[2J",     /* ESC */
		"3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, [N/A, 700.00, 1755, 0, 0x0",
		"3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, [<script>], 700.00, 1755, 0, 0x0",
		"",
	};
	struct nvsmi_rec r;
	const char *err;

	for (unsigned i = 0; i < ARRAY_LEN(bad); i++) {
		err = NULL;
		CHECK_INT(def_parse(bad[i], strlen(bad[i]), &r, &err), -1);
		CHECK(err != NULL);
	}
	/* an embedded NUL */
	CHECK_INT(def_parse(L("3, GPU-a, 0:0:0.0, 87, 1, 81559, 61, 512.34, 700.00, 1755, 0\0, 0x0"),
			    &r, &err), -1);
	/* too long, and an unusable layout */
	char *big = xmalloc(PARSE_LINE_MAX + 10);
	struct nvsmi_layout l;

	memset(big, ' ', PARSE_LINE_MAX + 10);
	memcpy(big, DEF_LINE, sizeof DEF_LINE - 1);
	CHECK_INT(def_parse(big, PARSE_LINE_MAX + 10, &r, &err), -1);
	free(big);
	struct sbuf q = {0};

	for (int i = 0; i < NVSMI_MAX_COLS + 1; i++)
		sbuf_adds(&q, i ? ",index" : "index");
	nvsmi_layout_from_query(&l, q.s);
	CHECK_INT(l.ncols, 0);
	CHECK_INT(nvsmi_parse_line(L("0"), &l, &r, &err), -1);
	sbuf_free(&q);
}

/* ---- XID ---- */

static int xid(const char *s, struct xid_rec *r)
{
	const char *err = NULL;
	int rc = xid_parse_line(s, strlen(s), r, &err);

	if (rc < 0)
		CHECK(err != NULL);
	return rc;
}

/* Every Xid line of domain.md section 3, and the variants around them. */
static const struct xid_case {
	const char *line;
	int rc, code, pid;
	const char *pci, *name, *text;
} xid_cases[] = {
	{"NVRM: Xid (PCI:0000:01:00): 94, pid=7062, Contained: CE User Channel (0x9). RST: No, D-RST: No",
	 1, 94, 7062, "0000:01:00", "", "Contained: CE User Channel (0x9). RST: No, D-RST: No"},
	{"NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, "
	 "D-RST: No", 1, 94, 7194, "0000:01:00", "", "Contained: CE User Channel (0x9). RST: No, D-RST: No"},
	{"NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No",
	 1, 95, 7062, "0000:01:00", "", "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No"},
	{"kernel: NVRM: GPU at PCI:0000:10:00: GPU-072931a9-3c93-2239-0583-43798217258d", 0, 0, -1, "", "", ""},
	{"kernel: NVRM: Xid (PCI:0000:10:00): 79, pid=0, GPU has fallen off the bus.",
	 1, 79, 0, "0000:10:00", "", "GPU has fallen off the bus."},
	{"kernel: NVRM: GPU 0000:10:00.0: GPU has fallen off the bus.", 0, 0, -1, "", "", ""},
	{"NVRM: Xid (PCI:0000:c6:00): 79, pid=1101234, name=nvc:[driver], GPU has fallen off the bus.",
	 1, 79, 1101234, "0000:c6:00", "nvc:[driver]", "GPU has fallen off the bus."},
	{"NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu "
	 "to activate.", 1, 63, 1896, "0000:10:1c", "",
	 "Row Remapper: New row marked for remapping, reset gpu to activate."},
	{"NVRM: Xid (PCI:0002:00:00): 119, pid=1582259, name=nvc:[driver], Timeout after 6s of waiting for "
	 "RPC response from GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).",
	 1, 119, 1582259, "0002:00:00", "nvc:[driver]", "Timeout after 6s of waiting for RPC response from "
	 "GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)."},
	{"NVRM: Xid (PCI:0002:00:00): 13, pid=2519562, name=python3, Graphics Exception: ChID 000c, Class "
	 "0000cbc0, Offset 00000000, Data 00000000", 1, 13, 2519562, "0002:00:00", "python3",
	 "Graphics Exception: ChID 000c, Class 0000cbc0, Offset 00000000, Data 00000000"},
	{"NVRM: Xid (PCI:0001:00:00): 31, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Misaligned "
	 "Address", 1, 31, -1, "0001:00:00", "",
	 "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Misaligned Address"},
	{"NVRM: Xid (PCI:0000:65:00): 31, pid=31245, name=python3, Ch 00000018, intr 00000000. MMU Fault: "
	 "ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2c_4a000000. Fault is of type FAULT_PDE "
	 "ACCESS_TYPE_READ", 1, 31, 31245, "0000:65:00", "python3", "Ch 00000018, intr 00000000. MMU "
	 "Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2c_4a000000. Fault is of type FAULT_PDE "
	 "ACCESS_TYPE_READ"},
	{"Xid 154 GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
	 1, 154, -1, "", "", "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"},
	{"nvidia-nvswitch2: SXid (PCI:0000:0b:00.0): 12028, ...", 1, 12028, -1, "0000:0b:00.0", "", "..."},
	{"NVRM: Xid (PCI:0000:10:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
	 1, 79, -1, "0000:10:00", "", "GPU has fallen off the bus."},
	{"NVRM: Xid (PCI:0000:10:00): 43, pid=<unknown>, Ch 00000008", 1, 43, -1, "0000:10:00", "", "Ch 00000008"},
	{"NVRM: Xid (PCI:0000:10:00): 45", 1, 45, -1, "0000:10:00", "", ""},
	{"NVRM: Xid (PCI:0000:10:00): 13, pid=9, name=a, b, c", 1, 13, 9, "0000:10:00", "a", "b, c"},
};

TEST(xid_domain_lines)
{
	struct xid_rec r;

	for (unsigned i = 0; i < ARRAY_LEN(xid_cases); i++) {
		const struct xid_case *c = &xid_cases[i];

		CHECK_INT(xid(c->line, &r), c->rc);
		CHECK_INT(r.code, c->code);
		CHECK_INT(r.pid, c->pid);
		CHECK_STR(r.pci, c->pci);
		CHECK_STR(r.name, c->name);
		CHECK_STR(r.text, c->text);
		CHECK_INT(r.sxid, c->code == 12028);
	}
}

TEST(xid_prefixes)
{
	struct xid_rec r;

	CHECK_INT(xid("[12345.678901] NVRM: Xid (PCI:0000:18:00): 48, pid=0, DBE", &r), 1);
	CHECK_INT(r.time, 0);
	CHECK_INT(xid("[    5.000001] NVRM: Xid (PCI:0000:18:00): 48, pid=0, DBE", &r), 1);
	CHECK_INT(xid("[Tue Aug 11 03:14:22 2026] NVRM: Xid (PCI:0000:18:00): 48, pid=0, DBE", &r), 1);
	CHECK_INT(r.time, 1786418062LL * US_PER_SEC);
	CHECK_STR(r.host, "");
	CHECK_INT(xid("[Sat Aug  1 00:00:00 2026] NVRM: Xid (PCI:0000:18:00): 48", &r), 1);
	CHECK_INT(r.time, (1786418062LL - 10 * 86400 - 3 * 3600 - 14 * 60 - 22) * US_PER_SEC);
	CHECK_INT(xid("Aug 11 03:14:22 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=0, x", &r), 1);
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(r.time, 0);
	CHECK_INT(r.code, 79);
	CHECK_INT(xid("2026-08-11T03:14:22+0000 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=0, x", &r), 1);
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(r.time, 1786418062LL * US_PER_SEC);
	CHECK_INT(xid("2026-08-11T05:14:22.250000+02:00 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79", &r), 1);
	CHECK_INT(r.time, 1786418062LL * US_PER_SEC + 250000);
	CHECK_INT(xid("2026-08-11T03:14:22Z gpu0007 kernel: [ 77.1] NVRM: Xid (PCI:0000:18:00): 79", &r), 1);
	CHECK_INT(r.time, 1786418062LL * US_PER_SEC);
	/* a stamp that does not parse is not an error: the Xid still is */
	CHECK_INT(xid("2026-13-11T03:14:22+0000 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79", &r), 1);
	CHECK_INT(r.time, 0);
}

TEST(xid_not_mine_and_malformed)
{
	static const char *const not_mine[] = {
		"", "random kernel line", "systemd[1]: Started Xid collector.", "NVRM: loading NVIDIA UNIX",
		"Xidious", "kernel: mlx5_core 0000:18:00.0: Port module event: module 0, Cable plugged",
	};
	static const char *const bad[] = {
		"NVRM: Xid (PCI:0000:10:00", "NVRM: Xid (PCI:0000:10:00): x", "NVRM: Xid (PCI:0000:10:00): ",
		"NVRM: Xid (PCI:0000:10:00): 100001, big", "NVRM: Xid (PCI:0000:10:00): 99999999999999999999",
		"NVRM: Xid", "NVRM: Xid ", "NVRM: Xid (PCI:zz): 79", "NVRM: Xid (0000:10:00): 79",
		"NVRM: Xid (PCI:0000:10:00) 79", "NVRM: Xid (PCI:0000:10:00): 79x",
		"NVRM: Xid (PCI:0000:10:00): 79, pid=abc, x", "NVRM: Xid (PCI:0000:10:00): 79, pid=99999999999",
		"Xid foo", "nvidia-nvswitch0: SXid (PCI:0000:0b:00.0", "NVRM: Xid (PCI:0000:10:00 (x)): 79",
	};
	struct xid_rec r;

	for (unsigned i = 0; i < ARRAY_LEN(not_mine); i++)
		CHECK_INT(xid(not_mine[i], &r), 0);
	for (unsigned i = 0; i < ARRAY_LEN(bad); i++)
		CHECK_INT(xid(bad[i], &r), -1);
	const char *err;

	CHECK_INT(xid_parse_line(L("NVRM: Xid (PCI:0000:10:00): 79, pid=0, GPU\0 has fallen"), &r, &err), -1);
	CHECK_INT(xid_parse_line(L("NVRM: Xid (PCI:0000:10:00): 100000, ok"), &r, &err), 1);
}

TEST(xid_bounded_copies)
{
	struct sbuf b = {0};
	struct xid_rec r;
	const char *err;

	sbuf_adds(&b, "NVRM: Xid (PCI:0000:10:00): 13, pid=1, name=");
	for (int i = 0; i < 100; i++)
		sbuf_addc(&b, 'n');
	sbuf_adds(&b, ", ");
	for (int i = 0; i < 254; i++)
		sbuf_addc(&b, 't');
	sbuf_adds(&b, "\xc3\xa9\xe2\x82\xac tail");   /* e-acute at 254..255, euro after */
	CHECK_INT(xid_parse_line(b.s, b.len, &r, &err), 1);
	CHECK_INT(strlen(r.name), sizeof r.name - 1);
	CHECK_INT(strlen(r.text), 254);   /* the e-acute would not fit: cut before it */
	sbuf_free(&b);

	char dst[4];

	CHECK_INT(parse_copy(dst, sizeof dst, "ab\xe2\x82\xac", 5), 2);
	CHECK_STR(dst, "ab");
	CHECK_INT(parse_copy(dst, sizeof dst, "abc", 3), 3);
	CHECK_STR(dst, "abc");
	CHECK_INT(parse_copy(dst, sizeof dst, "a\xc3\xa9z", 4), 3);
	CHECK_STR(dst, "a\xc3\xa9");
	CHECK_INT(parse_copy(dst, 1, "abc", 3), 0);
	CHECK_STR(dst, "");
}

/* ---- IB ---- */

static const struct ib_case {
	const char *line;
	int rc, counter;
	uint64_t value;   /* the state for counter -1 */
} ib_cases[] = {
	{"/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:12", 1, IBC_SYMBOL_ERROR, 12},
	{"/sys/class/infiniband/mlx5_3/ports/1/counters/link_downed 3", 1, IBC_LINK_DOWNED, 3},
	{"/sys/class/infiniband/mlx5_3/ports/1/counters/port_xmit_data:18446744073709551615\r", 1,
	 IBC_PORT_XMIT_DATA, UINT64_MAX},
	{"/sys/class/infiniband/mlx5_3/ports/1/counters_ext/port_xmit_data_64:99", 1, IBC_PORT_XMIT_DATA, 99},
	{"/sys/class/infiniband/mlx5_3/ports/1/counters_ext/port_rcv_data_64:7", 1, IBC_PORT_RCV_DATA, 7},
	{"/sys/class/infiniband/mlx5_3/ports/1/counters_ext/port_xmit_packets_64:7", 0, -1, 0},
	{"/sys/class/infiniband/mlx5_3/ports/1/hw_counters/rnr_nak_retry_err:0", 0, -1, 0},
	{"/sys/class/infiniband/mlx5_3/ports/1/hw_counters/port_xmit_wait:5", 1, IBC_PORT_XMIT_WAIT, 5},
	{"/sys/class/infiniband/mlx5_3/ports/1/counters/VL15_dropped:0", 0, -1, 0},
	{"/sys/class/infiniband/mlx5_3/ports/1/state:4: ACTIVE", 1, -1, IBP_ACTIVE},
	{"/sys/class/infiniband/mlx5_3/ports/1/state 1: DOWN", 1, -1, IBP_DOWN},
	{"/sys/class/infiniband/mlx5_3/ports/1/phys_state:5: LinkUp", 0, -1, 0},
	{"/sys/class/infiniband/mlx5_3/ports/1/rate:400 Gb/sec (4X NDR)", 0, -1, 0},
	{"/sys/class/infiniband/mlx5_3/fw_ver:28.39.1002", 0, -1, 0},
	{"", 0, -1, 0},
};

TEST(ib_counter_lines)
{
	struct ib_rec r;
	const char *err;

	for (unsigned i = 0; i < ARRAY_LEN(ib_cases); i++) {
		const struct ib_case *c = &ib_cases[i];

		CHECK_INT(ib_parse_line(c->line, strlen(c->line), &r, &err), c->rc);
		if (c->rc != 1)
			continue;
		CHECK_STR(r.dev, "mlx5_3");
		CHECK_INT(r.port, 1);
		CHECK_INT(r.counter, c->counter);
		CHECK(c->counter < 0 ? r.state == (int32_t)c->value : r.value == c->value);
	}
}

TEST(ib_rejects_and_rail)
{
	static const char *const bad[] = {
		"/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:18446744073709551616",
		"/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:-1",
		"/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:12abc",
		"/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:",
		"/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error",
		"/sys/class/infiniband/mlx5_3/ports/x/counters/symbol_error:1",
		"/sys/class/infiniband/mlx5_3/ports/1/state:9: WEIRD",
		"/sys/class/infiniband/mlx5_3/ports/1/state:ACTIVE",
		"/sys/class/infiniband/../ports/1/counters/symbol_error:1",
		"/sys/class/infiniband//ports/1/counters/symbol_error:1",
		"/etc/passwd:root",
		"/sys/class/infiniband/mlx5_3\x1b[2J/ports/1/counters/symbol_error:1",
		"/sys/class/infiniband/mlx5_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/ports/1/state:4: ACTIVE",
	};
	struct ib_rec r;
	const char *err;

	for (unsigned i = 0; i < ARRAY_LEN(bad); i++) {
		err = NULL;
		CHECK_INT(ib_parse_line(bad[i], strlen(bad[i]), &r, &err), -1);
		CHECK(err != NULL);
	}
	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:1\0"), &r, &err), -1);
	CHECK_INT(ib_dev_rail("mlx5_3"), 3);
	CHECK_INT(ib_dev_rail("mlx5_ib7"), 7);
	CHECK_INT(ib_dev_rail("mlx5_10"), 10);
	CHECK_INT(ib_dev_rail("ib"), -1);
	CHECK_INT(ib_dev_rail(""), -1);
	CHECK_INT(ib_dev_rail("mlx5_99999999999"), -1);
}

/* ---- Slurm ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char chunk[4096];
	size_t k;

	if (!f) {
		fprintf(stderr, "  cannot open %s (run from the repo root)\n", path);
		return NULL;
	}
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, k);
	fclose(f);
	*len = b.len;
	return b.s;
}

struct nodes {
	int n;
	struct slurm_node_rec r[16];
};

static void on_node(void *ctx, const struct slurm_node_rec *r)
{
	struct nodes *c = ctx;

	if (c->n < 16)
		c->r[c->n] = *r;
	c->n++;
}

struct jobs {
	int n;
	struct slurm_job_rec r[8];
};

static void on_job(void *ctx, const struct slurm_job_rec *r)
{
	struct jobs *c = ctx;

	if (c->n < 8)
		c->r[c->n] = *r;
	c->n++;
}

static int nodes_of(const char *s, size_t n, struct nodes *c, int *bad)
{
	char *err = NULL;
	int rc;

	memset(c, 0, sizeof *c);
	rc = slurm_parse_nodes(s, n, on_node, c, bad, &err);
	CHECK((rc < 0) == (err != NULL));
	free(err);
	return rc;
}

static int jobs_of(const char *s, size_t n, struct jobs *c, int *bad)
{
	char *err = NULL;
	int rc;

	memset(c, 0, sizeof *c);
	rc = slurm_parse_jobs(s, n, on_job, c, bad, &err);
	CHECK((rc < 0) == (err != NULL));
	free(err);
	return rc;
}

struct node_want {
	const char *name;
	int base;
	uint32_t flags;
	int gpus, used;
	const char *reason, *who;
	int64_t time;   /* seconds */
};

static void check_nodes(const char *path, const struct node_want *w, int n)
{
	size_t len;
	char *doc = slurp(path, &len);
	struct nodes c;
	int bad = -1;

	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(nodes_of(doc, len, &c, &bad), n);
	CHECK_INT(bad, 0);
	for (int i = 0; i < n && i < c.n; i++) {
		CHECK_STR(c.r[i].name, w[i].name);
		CHECK_INT(c.r[i].base, w[i].base);
		CHECK_INT(c.r[i].flags, w[i].flags);
		CHECK_INT(c.r[i].gpus, w[i].gpus);
		CHECK_INT(c.r[i].gpus_used, w[i].used);
		CHECK_STR(c.r[i].reason, w[i].reason);
		CHECK_STR(c.r[i].reason_who, w[i].who);
		CHECK_INT(c.r[i].reason_time, w[i].time * US_PER_SEC);
	}
	free(doc);
}

TEST(slurm_sinfo_22_05)
{
	static const struct node_want w[] = {
		{"gpu0001", NODE_ALLOC, 0, 8, 8, "", "", 0},
		{"gpu0002", NODE_MIXED, 0, 8, 2, "", "", 0},
		{"gpu0003", NODE_IDLE, NODE_F_DRAIN, 8, 0, "xid79 gpu3 fallen-off-bus", "ops", 1786418062},
		{"gpu0004", NODE_DOWN, NODE_F_NOT_RESPONDING, 8, 0, "Not responding", "slurm", 1786410000},
		{"gpu0005", NODE_MIXED, NODE_F_DRAIN, 8, 4, "hc dcgmi-diag-r2 fail gpu0", "root", 1786399200},
		{"gpu0006", NODE_IDLE, NODE_F_MAINT, 8, 0, "", "", 0},
	};

	check_nodes("tests/data/sinfo-22.05.json", w, (int)ARRAY_LEN(w));
}

TEST(slurm_sinfo_newer)
{
	static const struct node_want w24[] = {
		{"gpu0001", NODE_ALLOC, 0, 8, 8, "", "", 0},
		{"gpu0003", NODE_IDLE, NODE_F_DRAIN, 8, 0, "xid79 gpu3 fallen-off-bus", "ops", 1786418062},
		{"gpu0004", NODE_DOWN, NODE_F_NOT_RESPONDING, 8, 0, "Not responding", "slurm", 1786410000},
		{"gpu0005", NODE_IDLE, 0, 8, 0, "", "", 0},
		{"gpu0006", NODE_IDLE, 0, 8, 0, "", "", 0},
	};
	static const struct node_want w23[] = {
		{"gpu0001", NODE_MIXED, NODE_F_DRAIN | NODE_F_REBOOT, 8, 8, "rma pending", "ops", 1786418062},
	};

	check_nodes("tests/data/sinfo-24.11.json", w24, (int)ARRAY_LEN(w24));
	check_nodes("tests/data/nodes-23.11.json", w23, (int)ARRAY_LEN(w23));
}

TEST(slurm_squeue_22_05_and_newer)
{
	size_t len;
	char *doc = slurp("tests/data/squeue-22.05.json", &len);
	struct jobs c;
	int bad = -1;

	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(jobs_of(doc, len, &c, &bad), 5);
	CHECK_INT(bad, 0);
	CHECK_INT(c.r[0].id, 4711);
	CHECK_INT(c.r[0].state, JOB_RUNNING);
	CHECK_STR(c.r[0].name, "llama-70b-pretrain");
	CHECK_STR(c.r[0].user, "alice");
	CHECK_STR(c.r[0].partition, "gpu");
	CHECK_STR(c.r[0].nodes, "gpu[0001-0004]");
	CHECK_INT(c.r[0].gpus, 32);
	CHECK_INT(c.r[0].gpu_mask, 0xff);
	CHECK_INT(c.r[0].submit_time, 1786399200LL * US_PER_SEC);
	CHECK_INT(c.r[0].start_time, 1786399260LL * US_PER_SEC);
	CHECK_INT(c.r[1].state, JOB_PENDING);
	CHECK_STR(c.r[1].nodes, "");
	CHECK_INT(c.r[1].gpus, 8);   /* from tres_req_str */
	CHECK_INT(c.r[1].start_time, 0);
	CHECK_INT(c.r[2].gpu_mask, 0x9);
	CHECK_INT(c.r[3].state, JOB_COMPLETING);
	CHECK_INT(c.r[3].gpu_mask, 0x33);
	CHECK_INT(c.r[3].gpus, 4);   /* typed only: gres/gpu:h100=4 */
	/* hostile name: unchanged, bytes and all (sanitising is the screen's job) */
	CHECK_STR(c.r[3].name, "\x1b]0;pwned\x07\x1b[31mred\"quote\\");
	CHECK_INT(c.r[4].state, JOB_RUNNING);   /* CONFIGURING */
	free(doc);
	doc = slurp("tests/data/squeue-24.11.json", &len);
	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(jobs_of(doc, len, &c, &bad), 3);
	CHECK_INT(bad, 0);
	CHECK_INT(c.r[0].state, JOB_RUNNING);
	CHECK_INT(c.r[0].submit_time, 1786399200LL * US_PER_SEC);
	CHECK_INT(c.r[0].gpu_mask, 0xff);
	CHECK_INT(c.r[1].start_time, 0);
	CHECK_INT(c.r[2].state, JOB_COMPLETING);
	free(doc);
}

TEST(slurm_bad_documents)
{
	static const char *const docs[] = {
		"", "not json", "[]", "{\"nodes\": 5}", "{\"jobs\": []}", "{\"nodes\": [}", "null",
		"{\"nodes\": [], \"nodes\": []}",
	};
	struct nodes n;
	struct jobs j;
	char *err = NULL;
	int bad;

	for (unsigned i = 0; i < ARRAY_LEN(docs); i++)
		CHECK_INT(nodes_of(docs[i], strlen(docs[i]), &n, &bad), -1);
	CHECK_INT(jobs_of(L("{\"nodes\": []}"), &j, &bad), -1);
	CHECK_INT(jobs_of(L("{\"jobs\": [] } trailing"), &j, &bad), -1);
	CHECK_INT(slurm_parse_nodes(NULL, 0, on_node, &n, NULL, &err), -1);
	free(err);
	CHECK_INT(nodes_of(L("{\"nodes\": []}"), &n, &bad), 0);
	CHECK_INT(nodes_of(L("{\"nodes\": [{\"name\": \"a\", \"state\": \"idle\"}]}\0junk"), &n, &bad), -1);
}

TEST(slurm_bad_records_skipped)
{
	size_t nl, jl;
	char *nodes = slurp("tests/data/sinfo-bad-records.json", &nl);
	char *jobs = slurp("tests/data/squeue-bad-records.json", &jl);
	struct nodes n;
	struct jobs j;
	int bad;

	CHECK(nodes && jobs);
	if (!nodes || !jobs)
		return;
	CHECK_INT(nodes_of(nodes, nl, &n, &bad), 2);
	CHECK_INT(bad, 12);
	CHECK_INT(n.r[0].gpus, 8);
	CHECK_INT(n.r[0].gpus_used, 0);
	CHECK_STR(n.r[1].name, "gpu0007");
	CHECK_INT(n.r[1].flags, NODE_F_DRAIN | NODE_F_NOT_RESPONDING);
	CHECK_INT(n.r[1].gpus, -1);   /* a GPU entry without a count: unknown */
	CHECK_INT(n.r[1].gpus_used, -1);

	char *long_nodes = xmalloc(2048);
	int k = snprintf(long_nodes, 2048, "{\"jobs\": [{\"job_id\": 12, \"job_state\": \"RUNNING\", "
			 "\"nodes\": \"");

	memset(long_nodes + k, 'n', 1100);
	snprintf(long_nodes + k + 1100, 2048 - (size_t)k - 1100, "\"}]}");
	CHECK_INT(jobs_of(long_nodes, strlen(long_nodes), &j, &bad), 0);
	CHECK_INT(bad, 1);
	free(long_nodes);

	CHECK_INT(jobs_of(jobs, jl, &j, &bad), 2);
	CHECK_INT(bad, 8);
	CHECK_INT(j.r[0].id, 1);
	CHECK_INT(j.r[0].gpu_mask, 0);    /* index 40 does not fit: unknown */
	CHECK_INT(j.r[0].gpus, -1);
	CHECK_INT(j.r[1].id, 11);
	CHECK_INT(j.r[1].state, JOB_PENDING);
	CHECK_INT(j.r[1].submit_time, 0);
	free(nodes);
	free(jobs);
}

TEST(slurm_gres_masks)
{
	static const struct {
		const char *detail;
		uint32_t mask;
	} cases[] = {
		{"gpu:8(IDX:0-7)", 0xff}, {"gpu:2(IDX:0,3)", 0x9}, {"gpu:4(IDX:0-1,4-5)", 0x33},
		{"gpu:h100:1(IDX:7)", 0x80}, {"gpu:0(IDX:N/A)", 0}, {"gpu:2(IDX:3-1)", 0},
		{"gpu:2(IDX:0-", 0}, {"gpu:1(IDX:31)", 0x80000000u}, {"gpu:1(IDX:32)", 0},
		{"gpu:1(IDX:0-4294967295)", 0}, {"tmpsize:7T", 0}, {"gpu:8", 0},
	};
	char doc[256];
	struct jobs j;
	int bad;

	for (unsigned i = 0; i < ARRAY_LEN(cases); i++) {
		int n = snprintf(doc, sizeof doc, "{\"jobs\": [{\"job_id\": 1, \"job_state\": \"RUNNING\", "
				 "\"gres_detail\": [\"%s\"]}]}", cases[i].detail);

		CHECK_INT(jobs_of(doc, (size_t)n, &j, &bad), 1);
		CHECK_INT(j.r[0].gpu_mask, cases[i].mask);
	}
}

/* ---- facility ---- */

TEST(facility_meter)
{
	size_t len;
	char *doc = slurp("tests/data/facility.json", &len), *err = NULL;
	struct ev_power p;

	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK_INT(facility_parse(doc, len, &p, &err), 0);
	CHECK_NEAR(p.facility_kw, 1234.5, 1e-9);
	CHECK_NEAR(p.it_kw, 1100.2, 1e-9);
	CHECK_NEAR(p.cooling_kw, 100.1, 1e-9);
	CHECK_NEAR(p.outside_c, 18.5, 1e-9);
	CHECK_NEAR(p.supply_c, 25.1, 1e-9);
	CHECK_NEAR(p.return_c, 41.3, 1e-9);
	CHECK_NEAR(p.flow_lpm, 1400.0, 1e-9);
	free(doc);
	CHECK_INT(facility_parse(L("{\"it_kw\": 900}"), &p, &err), 0);
	CHECK_NEAR(p.it_kw, 900, 1e-9);
	CHECK(isnan(p.facility_kw) && isnan(p.supply_c) && isnan(p.flow_lpm));
	static const char *const bad[] = {
		"", "[1]", "{\"it_kw\": \"900\"}", "{\"cdu\": 5}", "{\"it_kw\": -1}", "{\"it_kw\": 1e300}",
		"{\"cdu\": {\"flow_lpm\": true}}", "{\"it_kw\": NaN}",
	};
	for (unsigned i = 0; i < ARRAY_LEN(bad); i++) {
		err = NULL;
		CHECK_INT(facility_parse(bad[i], strlen(bad[i]), &p, &err), -1);
		CHECK(err != NULL);
		free(err);
	}
}

/* ---- myriad parse ---- */

struct captured {
	int rc;
	char *out, *errs;
};

static struct captured run_cli(const char *fmt, const char *input, size_t len)
{
	char in[] = "/tmp/myriad-test-parse-in-XXXXXX";
	char out[] = "/tmp/myriad-test-parse-out-XXXXXX";
	char errp[] = "/tmp/myriad-test-parse-err-XXXXXX";
	int fi = mkstemp(in), fo = mkstemp(out), fe = mkstemp(errp);
	int so = dup(1), se = dup(2);
	struct captured c;
	size_t n;

	CHECK(write(fi, input, len) == (ssize_t)len);
	close(fi);
	fflush(stdout);
	fflush(stderr);
	dup2(fo, 1);
	dup2(fe, 2);
	char *argv[] = {(char *)"parse", (char *)fmt, in, NULL};

	c.rc = parse_cli(3, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	c.out = slurp(out, &n);
	c.errs = slurp(errp, &n);
	unlink(in);
	unlink(out);
	unlink(errp);
	return c;
}

static void free_captured(struct captured *c)
{
	free(c->out);
	free(c->errs);
}

TEST(parse_cli_nvidia_smi)
{
	static const char input[] =
		DEF_LINE "\n"
		"\n"
		"1, GPU-b, 100, 19818, 81559, 59, 631.95, 700.00, 1980, 0, 0x0000000000000000\n"
		"index, utilization.gpu [%], power.draw [W]\n"
		"2, 50 %, [N/A]\n"
		"2, 500 %, [N/A]\n";
	struct captured c = run_cli("nvidia-smi", input, sizeof input - 1);

	CHECK_INT(c.rc, 1);
	CHECK(c.out && strstr(c.out, "\"index\":3,\"uuid\":\"GPU-927d7444-b45a-7c49-8402-5e686e46a026\","
			      "\"pci\":\"00000000:5D:00.0\",\"util\":87"));
	CHECK(c.out && strstr(c.out, "\"power\":512.34,\"power_limit\":700.00"));
	CHECK(c.out && strstr(c.out, "\"throttle\":64}"));
	CHECK(c.out && strstr(c.out, "{\"index\":1,\"uuid\":\"GPU-b\",\"pci\":null,\"util\":100"));
	CHECK(c.out && strstr(c.out, "{\"index\":2,\"uuid\":null,\"pci\":null,\"util\":50,\"mem_used\":null"));
	CHECK(c.errs && strstr(c.errs, "myriad: parse: line 6: value out of range"));
	CHECK(c.errs && strstr(c.errs, "myriad: parse: 3 records, 1 rejected"));
	free_captured(&c);
}

TEST(parse_cli_lines_and_docs)
{
	struct sbuf in = {0};

	sbuf_adds(&in, "NVRM: Xid (PCI:0000:10:00): 79, pid=0, name=\x1b[2J\"x\", GPU has fallen off the bus.\n");
	sbuf_adds(&in, "random line\n");
	for (int i = 0; i < PARSE_LINE_MAX + 100; i++)
		sbuf_addc(&in, 'a');
	sbuf_adds(&in, "\nNVRM: Xid (PCI:0000:10:00): x\n");
	sbuf_add(&in, "NVRM: Xid (PCI:0000:10:00): 48\0\n", 32);
	sbuf_adds(&in, "2026-08-11T03:14:22+0000 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 48");
	struct captured c = run_cli("xid", in.s, in.len);

	CHECK_INT(c.rc, 1);
	CHECK(c.out && strstr(c.out, "{\"code\":79,\"pid\":0,\"pci\":\"0000:10:00\",\"host\":null,"
			      "\"name\":\"\\u001b[2J\\\"x\\\"\",\"time\":null,\"sxid\":false,"
			      "\"text\":\"GPU has fallen off the bus.\"}"));
	CHECK(c.out && strstr(c.out, "\"host\":\"gpu0007\",\"name\":null,\"time\":\"2026-08-11T03:14:22Z\""));
	CHECK(c.errs && strstr(c.errs, "line 3: line longer"));
	CHECK(c.errs && strstr(c.errs, "line 4: Xid without a numeric code"));
	CHECK(c.errs && strstr(c.errs, "line 5: NUL byte"));
	CHECK(c.errs && strstr(c.errs, "2 records, 3 rejected"));
	free_captured(&c);
	sbuf_free(&in);

	static const char ib[] = "/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:12\n"
				 "/sys/class/infiniband/mlx5_3/ports/1/state:4: ACTIVE\n"
				 "/sys/class/infiniband/mlx5_3/ports/1/rate:400 Gb/sec (4X NDR)\n";
	c = run_cli("ib-counters", ib, sizeof ib - 1);
	CHECK_INT(c.rc, 0);
	CHECK(c.out && strstr(c.out, "{\"dev\":\"mlx5_3\",\"port\":1,\"rail\":3,\"counter\":\"symbol_error\","
			      "\"value\":12}\n{\"dev\":\"mlx5_3\",\"port\":1,\"rail\":3,\"counter\":\"state\","
			      "\"state\":4}\n"));
	free_captured(&c);

	static const char jobs[] = "{\"jobs\": [{\"job_id\": 4711, \"job_state\": \"RUNNING\", "
				   "\"name\": \"a\\u001bb\", \"gres_detail\": [\"gpu:2(IDX:0,3)\"], "
				   "\"tres_alloc_str\": \"gres/gpu=2\", \"start_time\": 1786418062}, {\"job_id\": 0}]}";
	c = run_cli("slurm-jobs", jobs, sizeof jobs - 1);
	CHECK_INT(c.rc, 1);
	CHECK(c.out && strstr(c.out, "{\"id\":4711,\"state\":\"RUNNING\",\"name\":\"a\\u001bb\",\"user\":null,"
			      "\"partition\":null,\"nodes\":null,\"gpus\":2,\"gpu_mask\":9,\"submit_time\":null,"
			      "\"start_time\":\"2026-08-11T03:14:22Z\"}"));
	CHECK(c.errs && strstr(c.errs, "1 records, 1 rejected"));
	free_captured(&c);

	c = run_cli("slurm-nodes", L("{\"nodes\": [{\"name\": \"gpu0001\", \"state\": \"down\", "
				     "\"state_flags\": [\"DRAIN\", \"NOT_RESPONDING\"]}]}"));
	CHECK_INT(c.rc, 0);
	CHECK(c.out && strstr(c.out, "{\"name\":\"gpu0001\",\"base\":\"down\",\"flags\":[\"drain\","
			      "\"not_responding\"],\"reason\":null,\"reason_who\":null,\"reason_time\":null,"
			      "\"gpus\":null,\"gpus_used\":null}"));
	free_captured(&c);

	c = run_cli("facility", L("{\"it_kw\": 1100.25}"));
	CHECK_INT(c.rc, 0);
	CHECK(c.out && strstr(c.out, "{\"facility_kw\":null,\"it_kw\":1100.25,"));
	free_captured(&c);
	c = run_cli("facility", L("garbage"));
	CHECK_INT(c.rc, 1);
	free_captured(&c);
}

TEST(parse_cli_usage_and_missing_file)
{
	char *missing[] = {(char *)"parse", (char *)"xid", (char *)"/nonexistent/file", NULL};
	char *badfmt[] = {(char *)"parse", (char *)"yaml", NULL};
	int se = dup(2), dn = open("/dev/null", O_WRONLY);

	dup2(dn, 2);
	CHECK_INT(parse_cli(3, missing), 2);
	CHECK_INT(parse_cli(2, badfmt), 1);
	CHECK_INT(parse_cli(1, badfmt), 1);
	dup2(se, 2);
	close(se);
	close(dn);
}
