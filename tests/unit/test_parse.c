/*
 * test_parse.c - unit tests of the line parsers in src/probe/ (nvidia-smi
 * CSV, kernel Xid lines, IB sysfs counters) with real lines (tests/data/README says where each comes from)
 * and hostile input. Documents and `myriad parse`: test_parse_docs.c.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "probe/parse.h"
#include "util.h"

#define L(s) (s), (sizeof(s) - 1)

/* the query of a real H100 sample line (myriad-design(7), SOURCES AND FORMATS) */
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
	CHECK_INT(l.nknown, 9);
	CHECK_INT(l.pos[2], 2);
	CHECK_INT(l.col[2], NVC_UTIL);
	CHECK_INT(l.col[7], NVC_SM_CLOCK);
	CHECK_INT(l.col[8], NVC_THROTTLE);
	CHECK_INT(nvsmi_parse_line(L("1, GPU-a, 55 %, 100 MiB, 81559 MiB, 40, 99.99 W, 1410 MHz, 0x20"),
				   &l, &r, &err), 0);
	CHECK_INT(r.m[MET_UTIL], 55);
	CHECK_INT(r.m[MET_POWER], 9999);
	CHECK_INT(r.m[MET_POWER_LIMIT], MET_UNKNOWN);
	CHECK_INT(nvsmi_parse_header(L("vbios_version, pci.bus_id, name"), &l), 1);
	CHECK_INT(l.ncols, 3);
	CHECK_INT(l.nknown, 2);   /* vbios_version is not ours */
	CHECK_INT(l.pos[0], 1);
	CHECK_INT(l.col[0], NVC_PCI);
	CHECK_INT(l.pos[1], 2);
	CHECK_INT(l.col[1], NVC_NAME);
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

/* Real Xid lines (myriad-design(7), SOURCES AND FORMATS: kernel log), and the variants around them. */
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
	CHECK(ib_dev_cmp("mlx5_2", "mlx5_10") < 0);
	CHECK(ib_dev_cmp("mlx5_10", "mlx5_2") > 0);
	CHECK(ib_dev_cmp("mlx5_02", "mlx5_2") == 0);
	CHECK(ib_dev_cmp("mlx5_bond_0", "mlx5_9") > 0);
	CHECK(ib_dev_cmp("mlx4_0", "mlx4_0/2") < 0);
	CHECK(ib_dev_cmp("", "") == 0);
}
