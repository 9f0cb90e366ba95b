/*
 * test_parse_real.c - the parsers on real output (tests/data/real/, origins
 * in its README): nvidia-smi queries of 200-241 columns with 4-8 KiB headers,
 * kernel lines in every dmesg and journald time stamp form, NVSwitch SXid
 * events spread over three lines, InfiniBand dumps with RoCE devices and
 * counters a port cannot give; then the same through streams into the model
 * (GPU names, SXid faults on the switch, rails from the link layer or a site
 * mapping). The stream helpers are in test_parse_stream.c.
 */
#include <stdlib.h>
#include "test.h"
#include "probe/parse.h"
#include "util.h"

#define L(s) (s), (sizeof(s) - 1)

/* The file's lines, NUL-separated in one buffer; NULL (and a failure) if
 * it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = {0};
	char buf[4096];
	size_t k;

	if (!f) {
		fprintf(stderr, "  cannot open %s (tests run from the repository root)\n", path);
		test_failures++;
		return NULL;
	}
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&b, buf, k);
	fclose(f);
	*len = b.len;
	return b.s ? b.s : xstrdup("");
}

/* Calls fn for each line of the file (without its newline). */
static void each_line(const char *path, void (*fn)(void *ctx, const char *s, size_t n), void *ctx)
{
	size_t len = 0;
	char *all = slurp(path, &len), *p = all, *end;

	if (!all)
		return;
	for (end = all + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		fn(ctx, p, n);
		p += n + 1;
	}
	free(all);
}

/* ---- nvidia-smi ---- */

struct nv_run {
	struct nvsmi_layout l;
	int header, rows, rejected;
	struct nvsmi_rec last;
	size_t header_len;
};

static void nv_line(void *ctx, const char *s, size_t n)
{
	struct nv_run *r = ctx;
	struct nvsmi_rec rec;
	const char *err = NULL;

	if (!n)
		return;
	if (nvsmi_parse_header(s, n, &r->l)) {
		r->header++;
		r->header_len = n;
		return;
	}
	if (nvsmi_parse_line(s, n, r->header ? &r->l : NULL, &rec, &err) < 0) {
		fprintf(stderr, "  rejected: %s\n", err);
		r->rejected++;
		return;
	}
	r->rows++;
	r->last = rec;
}

static const struct nv_expect {
	const char *file;
	int ncols, rows;
	const char *name, *pci;
	int32_t util, mem_total, temp, power, power_limit, sm_clock, ecc, throttle;   /* the last row */
} nv_files[] = {
	{"tests/data/real/nvsmi-h100-590.48.01.csv", 212, 2, "NVIDIA H100 80GB HBM3", "00000000:00:09.0",
	 100, 81559, 59, 63195, 70000, 1980, 0, 0},
	{"tests/data/real/nvsmi-h100-mig-590.48.01.csv", 212, 2, "NVIDIA H100 80GB HBM3", "00000000:00:09.0",
	 MET_UNKNOWN, 81559, 53, 43378, 70000, 1980, 0, 0},   /* MIG: utilization.gpu [N/A] */
	{"tests/data/real/nvsmi-h200-590.48.01.csv", 212, 2, "NVIDIA H200", "00000000:83:00.0",
	 100, 143771, 52, 62740, 70000, 1980, 0, 0},
	{"tests/data/real/nvsmi-l40s-595.80.csv", 202, 2, "NVIDIA L40S", "00000000:01:00.0",
	 9, 46068, 54, 11023, 35000, 2520, 0, 0},
	{"tests/data/real/nvsmi-rtx2080s-610.57.04.csv", 241, 2, "NVIDIA GeForce RTX 2080 SUPER",
	 "00000000:0C:00.0", 8, 8192, 38, 9814, 25000, 2070, MET_UNKNOWN, 0},
	/* driver 465: clocks_throttle_reasons.* (renamed clocks_event_reasons.* in 535) */
	{"tests/data/real/nvsmi-rtx2080s-465.27.csv", 115, 1, "NVIDIA GeForce RTX 2080 SUPER",
	 "00000000:0C:00.0", 0, 7979, 32, 3037, 25000, 300, MET_UNKNOWN, 1},
};

TEST(real_nvsmi_queries_of_every_field)
{
	for (unsigned i = 0; i < ARRAY_LEN(nv_files); i++) {
		const struct nv_expect *e = &nv_files[i];
		struct nv_run r;

		memset(&r, 0, sizeof r);
		each_line(e->file, nv_line, &r);
		CHECK_INT(r.header, 1);
		CHECK_INT(r.l.ncols, e->ncols);
		CHECK(r.header_len > 3000);   /* 3.2-7.6 KB: over the old 4 KB limit, or 64 columns */
		CHECK_INT(r.rows, e->rows);
		CHECK_INT(r.rejected, 0);
		CHECK_INT(r.last.index, 0);
		CHECK_STR(r.last.name, e->name);
		CHECK_STR(r.last.pci, e->pci);
		CHECK_INT(r.last.m[MET_UTIL], e->util);
		CHECK_INT(r.last.m[MET_MEM_TOTAL], e->mem_total);
		CHECK_INT(r.last.m[MET_TEMP], e->temp);
		CHECK_INT(r.last.m[MET_POWER], e->power);
		CHECK_INT(r.last.m[MET_POWER_LIMIT], e->power_limit);
		CHECK_INT(r.last.m[MET_SM_CLOCK], e->sm_clock);
		CHECK_INT(r.last.m[MET_ECC_UNCORR], e->ecc);
		CHECK_INT(r.last.m[MET_THROTTLE], e->throttle);
	}
}

TEST(nvsmi_any_width_and_the_reasons_it_gives)
{
	struct sbuf h = {0}, row = {0};
	struct nvsmi_layout l;
	struct nvsmi_rec r;
	const char *err = NULL;
	char why[160];

	/* 2,000 columns (about 40 KB), the known ones at the far end */
	for (int i = 0; i < 1997; i++) {
		sbuf_printf(&h, "field.number_%d [MiB], ", i);
		sbuf_printf(&row, "%d MiB, ", i);
	}
	sbuf_adds(&h, "name, index, utilization.gpu [%]");
	sbuf_adds(&row, "NVIDIA B200, 7, 42 %");
	CHECK(h.len > 40000);
	CHECK_INT(nvsmi_parse_header(h.s, h.len, &l), 1);
	CHECK_INT(l.ncols, 2000);
	CHECK_INT(l.nknown, 3);
	CHECK_INT(nvsmi_parse_line(row.s, row.len, &l, &r, &err), 0);
	CHECK_STR(r.name, "NVIDIA B200");
	CHECK_INT(r.index, 7);
	CHECK_INT(r.m[MET_UTIL], 42);
	/* a row of another width: rejected, and the reason says what to do */
	CHECK_INT(nvsmi_parse_line(L("7, 42 %"), &l, &r, &err), -1);
	CHECK_STR(err, "wrong number of columns");
	CHECK_STR(nvsmi_reject_reason(0, 20, 12, why, sizeof why),
		  "no header, cannot map columns (20 columns; print the header: --format=csv without noheader)");
	CHECK_STR(nvsmi_reject_reason(1, 3, 2000, why, sizeof why), "wrong number of columns: 3, the header has 2000");
	/* a bad value in a column we read is still an error, one we skip is not */
	CHECK_INT(nvsmi_parse_line(L("x, 7, 42 %"), &l, &r, &err), -1);   /* wrong count */
	nvsmi_layout_from_query(&l, "name,index,utilization.gpu,vbios_version");
	CHECK_INT(nvsmi_parse_line(L("[N/A], 3, lots, ???"), &l, &r, &err), -1);
	CHECK_STR(err, "not a number");
	CHECK_INT(nvsmi_parse_line(L("[N/A], 3, 5, ???"), &l, &r, &err), 0);
	CHECK_STR(r.name, "");
	CHECK_INT(r.m[MET_UTIL], 5);
	sbuf_free(&h);
	sbuf_free(&row);
}

/* ---- kernel lines ---- */

static int xid(const char *line, struct xid_rec *r)
{
	const char *err = NULL;

	return xid_parse_line(line, strlen(line), r, &err);
}

#define T2025 ((int64_t)1737434504 * US_PER_SEC)   /* 2025-01-21T04:41:44Z */

TEST(xid_every_dmesg_and_journald_stamp)
{
	struct xid_rec r;

	/* dmesg --time-format=iso: a comma before the fraction */
	CHECK_INT(xid("2025-01-21T04:41:44,283302+00:00 NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus.", &r),
		  1);
	CHECK_INT(r.time, T2025 + 283302);
	CHECK_STR(r.host, "");
	CHECK_STR(r.text, "GPU has fallen off the bus.");
	/* dmesg --decode --time-format=iso, from tests/data/real/kmsg-dmesg-decode-iso.txt */
	CHECK_INT(xid("syslog:err   : 2025-05-27T04:18:56,089671+00:00 NVRM: Xid (PCI:0000:04:00): 79, GPU has "
		      "fallen off the bus", &r), 1);
	CHECK_INT(r.time, (int64_t)1748319536 * US_PER_SEC + 89671);
	CHECK_INT(xid("kern  :err   : 2025-01-21T04:41:44,283302+00:00 NVRM: Xid (PCI:0000:18:00): 48, DBE", &r), 1);
	CHECK_INT(r.time, T2025 + 283302);
	CHECK_INT(r.code, 48);
	/* an offset */
	CHECK_INT(xid("2025-01-21T06:41:44,5+02:00 NVRM: Xid (PCI:0000:18:00): 48, DBE", &r), 1);
	CHECK_INT(r.time, T2025 + 500000);
	/* journald: short-full (UTC), short-unix, short-precise (no year), short-monotonic */
	CHECK_INT(xid("Tue 2025-01-21 04:41:44 UTC gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_INT(r.time, T2025);
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(xid("Tue 2025-01-21 05:41:44 CET gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_INT(r.time, 0);   /* a zone whose offset is not printed: no time */
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(xid("1737434504.283302 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_INT(r.time, T2025 + 283302);
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(xid("Jan 21 04:41:44.283302 gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_INT(r.time, 0);
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(xid("[ 1234.567890] gpu0007 kernel: NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_STR(r.host, "gpu0007");
	CHECK_INT(r.code, 79);
	/* dmesg reltime and delta: skipped, no wall time */
	CHECK_INT(xid("[Jan21 04:41] NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_INT(r.time, 0);
	CHECK_INT(xid("[  +0.000123] NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_INT(xid("[<    0.000123>] NVRM: Xid (PCI:0000:18:00): 79, x", &r), 1);
	CHECK_STR(r.text, "x");
	/* a word after the stamp that is no host (dmesg prints none) stays in the message */
	CHECK_INT(xid("2025-01-21T04:41:44,283302+00:00 nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Fatal, "
		      "Link 46 egress sequence ID error", &r), 1);
	CHECK_STR(r.host, "");
	CHECK_INT(r.time, T2025 + 283302);
	CHECK_INT(r.sxid, 1);
}

TEST(xid_quoted_unknown_process_and_pci_forms)
{
	struct xid_rec r;

	CHECK_INT(xid("NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name='<unknown>', Graphics Exception", &r), 1);
	CHECK_INT(r.pid, -1);
	CHECK_STR(r.name, "");
	CHECK_STR(r.text, "Graphics Exception");
	/* one form: lower case, 4-digit domain, no function for a GPU */
	CHECK_INT(xid("NVRM: Xid (PCI:0000:CB:00): 13, x", &r), 1);
	CHECK_STR(r.pci, "0000:cb:00");
	CHECK_INT(xid("NVRM: Xid (PCI:00000019:01:00.0): 149, x", &r), 1);
	CHECK_STR(r.pci, "0019:01:00");
	CHECK_INT(xid("NVRM: Xid (PCI:10000:01:00): 79, x", &r), 1);   /* a VMD domain */
	CHECK_STR(r.pci, "10000:01:00");
	CHECK_INT(xid("NVRM: Xid (PCI:0000:1:0): 79, x", &r), 1);
	CHECK_STR(r.pci, "0000:01:00");
	CHECK_INT(xid("NVRM: Xid (PCI:0000:100:00): 79, x", &r), -1);   /* bus > ff */
	CHECK_INT(xid("NVRM: Xid (PCI:0000:10:00:00): 79, x", &r), -1);
	CHECK_INT(xid("NVRM: Xid (PCI:0000:10:00.9): 79, x", &r), -1);

	char out[24];

	CHECK_INT(pci_normalize(L("00000000:5D:00.0"), 0, out), 0);
	CHECK_STR(out, "0000:5d:00");
	CHECK_INT(pci_normalize(L("00000000:5D:00.0"), 1, out), 0);
	CHECK_STR(out, "0000:5d:00.0");
	CHECK_INT(pci_normalize(L("5d:00.1"), 1, out), 0);
	CHECK_STR(out, "0000:5d:00.1");
	CHECK_INT(pci_normalize(L(""), 0, out), -1);
	CHECK_STR(out, "");
	CHECK_INT(pci_normalize(L("0x18:00"), 0, out), -1);
	CHECK_INT(pci_normalize(L("123456789:00:00"), 0, out), -1);
	CHECK(pci_same_device("00000000:5D:00.0", "0000:5d:00"));
	CHECK(pci_same_device("00000019:01:00.0", "0019:01:00"));
	CHECK(!pci_same_device("00000000:5D:00.0", "0001:5d:00"));
	CHECK(!pci_same_device("", ""));
}

struct sx_run {
	int records, continuation, rejected;
	struct xid_rec rec[8];
};

static void sx_line(void *ctx, const char *s, size_t n)
{
	struct sx_run *r = ctx;
	struct xid_rec x;
	const char *err = NULL;
	int rc = xid_parse_line(s, n, &x, &err);

	if (rc < 0)
		r->rejected++;
	else if (rc == 1 && sxid_continuation(&x))
		r->continuation++;
	else if (rc == 1 && r->records < 8)
		r->rec[r->records++] = x;
}

TEST(real_sxid_three_lines_are_one_event)
{
	struct sx_run r;

	memset(&r, 0, sizeof r);
	each_line("tests/data/real/kmsg-h100-hgx-sxid-570.195.03.txt", sx_line, &r);
	CHECK_INT(r.rejected, 0);
	CHECK_INT(r.records, 3);        /* Link 44, 45, 46 */
	CHECK_INT(r.continuation, 5);   /* a Data line of the event before, 2 x Severity + Data */
	for (int i = 0; i < 3; i++) {
		CHECK_INT(r.rec[i].sxid, 1);
		CHECK_INT(r.rec[i].sxid_part, SXID_EVENT);
		CHECK_INT(r.rec[i].code, 22013);
		CHECK_STR(r.rec[i].pci, "0000:04:00.0");   /* the switch */
		CHECK_INT(r.rec[i].link, 44 + i);
		CHECK_INT(r.rec[i].fatal, 0);
	}
	struct xid_rec x;

	CHECK_INT(xid("nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Severity 0 Engine instance 44 "
		      "Sub-engine instance 00", &x), 1);
	CHECK_INT(x.sxid_part, SXID_SEVERITY);
	CHECK_INT(x.severity, 0);
	CHECK_INT(xid("[ 1108.858286] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 24007, Fatal, Link 28 "
		      "sourcetrack timeout error (First)", &x), 1);
	CHECK_INT(x.fatal, 1);
	CHECK_INT(x.link, 28);
	/* older drivers: no link in the message */
	CHECK_INT(xid("nvidia-nvswitch0: SXid (PCI:0000:07:00.0): 10001, Non-fatal, PRI WRITE SYSB error, "
		      "instance=3", &x), 1);
	CHECK_INT(x.sxid_part, SXID_EVENT);
	CHECK_INT(x.link, -1);
	CHECK_INT(x.fatal, 0);
}

struct k_run {
	int records, rejected, timed;
};

static void k_line(void *ctx, const char *s, size_t n)
{
	struct k_run *r = ctx;
	struct xid_rec x;
	const char *err = NULL;
	int rc = xid_parse_line(s, n, &x, &err);

	r->rejected += rc < 0;
	if (rc == 1 && !sxid_continuation(&x)) {
		r->records++;
		r->timed += x.time != 0;
	}
}

TEST(real_kernel_lines)
{
	static const struct {
		const char *file;
		int records, timed;
	} files[] = {
		{"tests/data/real/kmsg-dmesg-ctime.txt", 4, 4},
		{"tests/data/real/kmsg-dmesg-decode-iso.txt", 1, 1},   /* the SXid Data line is a tail */
		{"tests/data/real/kmsg-kernel-ident-590.48.01.txt", 4, 0},
		{"tests/data/real/kmsg-gb200-nvlink-xid.txt", 4, 0},
		{"tests/data/real/kmsg-h100-hgx-sxid-570.195.03.txt", 3, 0},
	};

	for (unsigned i = 0; i < ARRAY_LEN(files); i++) {
		struct k_run r = {0, 0, 0};

		each_line(files[i].file, k_line, &r);
		CHECK_INT(r.records, files[i].records);
		CHECK_INT(r.timed, files[i].timed);
		CHECK_INT(r.rejected, 0);
	}
}

/* ---- InfiniBand ---- */

TEST(ib_link_layer_and_counters_without_pma)
{
	struct ib_rec r;
	const char *err = NULL;

	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx5_bond_0/ports/1/link_layer:Ethernet"), &r, &err), 1);
	CHECK_INT(r.counter, IB_LINK_LAYER_FILE);
	CHECK_INT(r.link_layer, IBL_ETHERNET);
	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx5_0/ports/1/link_layer:InfiniBand"), &r, &err), 1);
	CHECK_INT(r.link_layer, IBL_INFINIBAND);
	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx5_0/ports/1/link_layer:Token Ring"), &r, &err), -1);
	/* from tests/data/real/ib-mlx4-vf-no-pma.txt: unknown, never a number */
	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx4_0/ports/1/counters/link_downed:N/A (no PMA)"), &r, &err), 1);
	CHECK_INT(r.counter, IBC_LINK_DOWNED);
	CHECK_INT(r.unknown, 1);
	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx4_0/ports/1/counters/multicast_rcv_packets:N/A (no PMA)"),
				&r, &err), 0);
	CHECK_INT(ib_parse_line(L("/sys/class/infiniband/mlx4_0/ports/1/counters/link_downed:N/A (no"), &r, &err), -1);
}

TEST(ib_rails_from_link_layer_order_or_site_map)
{
	/* an H100 node: 8 InfiniBand HCAs named mlx5_0,1,4..9 and a RoCE bond */
	const char *devs[] = {"mlx5_bond_0", "mlx5_9", "mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5",
			      "mlx5_6", "mlx5_7", "mlx5_8"};
	int32_t ll[9], rail[9];
	const int32_t want[9] = {-1, 7, 0, 1, 2, 3, 4, 5, 6};

	for (int i = 0; i < 9; i++)
		ll[i] = i ? IBL_INFINIBAND : IBL_ETHERNET;
	ib_assign_rails(devs, ll, 9, NULL, 0, rail);
	for (int i = 0; i < 9; i++)
		CHECK_INT(rail[i], want[i]);
	/* link layer not known (an older probe command): order alone */
	for (int i = 0; i < 9; i++)
		ll[i] = IBL_UNKNOWN;
	ib_assign_rails(devs + 1, ll, 8, NULL, 0, rail);
	CHECK_INT(rail[0], 7);
	CHECK_INT(rail[1], 0);
	/* a site mapping wins, Ethernet or not; what it does not name is no rail */
	const char *map[] = {"mlx5_9", "mlx5_bond_0", "mlx5_0"};

	ib_assign_rails(devs, ll, 9, map, 3, rail);
	CHECK_INT(rail[0], 1);
	CHECK_INT(rail[1], 0);
	CHECK_INT(rail[2], 2);
	CHECK_INT(rail[3], -1);
}
