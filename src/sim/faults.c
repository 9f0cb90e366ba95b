/*
 * faults.c - the fault injector, the kernel log (NVRM Xid lines as
 * `journalctl -k -o short-iso` prints them), the health check and the repair
 * crew.
 *
 * Rate: 4.7e-4 unexpected interruptions per GPU-day, all causes (Llama 3 405B
 * on 16,384 H100s: 419 in 54 days; myriad-design(7), FACTS: Failure rates), times `accel`.
 * That is 4.81 a day on 10,240 GPUs at accel=1 (one every ~5 h) and 4,813 a day
 * (one every ~18 s) at accel=1000. Faults arrive as a Poisson process (one draw
 * per step, so accel up to 10^5 and beyond stays sane); a fault that lands on
 * a node that already has one, or is silent or down, is absorbed (counted,
 * no effect). The mix follows the Llama 3 table, renormalised over the causes
 * that show: faulty GPU 30.1 % (XID 79 / 74, or a hardware-caused XID 13),
 * HBM 17.2 % (48 then 63, 94, 95, 63 then 64), software 12.9 % (XID 13 / 31
 * from python3), host 11.5 % (unplanned maintenance + PSU/SSD/CPU/DIMM: the
 * node hangs and prints nothing), network 8.4 % (IB link down, or a
 * symbol_error burst), SRAM 4.5 % (95 on LTC), GSP 4.1 % (119 / 120), NIC
 * 1.7 %, NCCL watchdog 1.7 % (the job fails, no kernel line), thermal 1.4 %
 * (climbing past 87 C, HW slowdown). Silent data corruption (1.4 %) shows
 * nothing and is left out. Primary XIDs are followed by the sympathetic 45
 * (or 43) and 154 a second later; the first XID of a GPU since boot is
 * preceded by the driver's "NVRM: GPU at PCI:..." line.
 *
 * Garbled lines (spec key `garble`, per node-hour, default 0.005: about one
 * every 9 min on 1,280 nodes): a kernel Xid line cut off inside its PCI tag,
 * as a full console buffer leaves it, so the console's parse-error path is
 * exercised. They have no consequences.
 *
 * Health check (NHC as Slurm's HealthCheckProgram): 30-90 s after a hardware
 * fault it drains the node as root with a reason after the convention of myriad-design(7), FACTS: Slurm
 * ("xid79 gpu3 fallen-off-bus", "ib mlx5_4 link_downed"), unless the node is
 * already drained. A hung host is Slurm's business instead: after
 * SlurmdTimeout (120 s) the node goes DOWN+NOT_RESPONDING, reason "Not
 * responding", and its jobs end NODE_FAIL. Repair crew: once a faulted node is
 * drained or down, it is fixed 2-8 h / accel later (at least 1 s): jobs still on
 * it are requeued, GPUs reset (volatile ECC counts back to 0), links up (IB
 * counters keep their values), the host back, and the node resumed (idle, no
 * drain flag, reason cleared).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "sim_int.h"

#define RATE_PER_GPU_DAY 4.7e-4

enum cause {
	CA_GPU, CA_HBM, CA_SW, CA_HOST, CA_NET, CA_SRAM, CA_GSP, CA_NIC, CA_NCCL,
	CA_THERMAL, CA_COUNT
};
/* per mille of the Llama 3 table; they sum to 935 and are renormalised */
static const int cause_weight[CA_COUNT] = {301, 172, 129, 115, 84, 45, 41, 17, 17, 14};


double faults_per_gpu_day(void) { return RATE_PER_GPU_DAY; }

static struct sgpu *gpu_of(struct sim *s, int32_t node, int32_t gpu)
{
	return &s->gpus[(int64_t)node * SIM_GPN + gpu];
}

static int32_t poisson(struct rng *r, double lambda)
{
	double p = 1.0, limit;
	int32_t k = 0;

	if (lambda <= 0)
		return 0;
	if (lambda > 30) {
		double v = lambda + sqrt(lambda) * rng_normal(r);

		return v < 0 ? 0 : (int32_t)(v + 0.5);
	}
	limit = exp(-lambda);
	do {
		k++;
		p *= rng_unit(r);
	} while (p > limit);
	return k - 1;
}

static double repair_secs(struct sim *s)
{
	double h = 2.0 + 6.0 * rng_unit(&s->r_flt);
	double div = s->spec.accel > 0 ? s->spec.accel : 1.0;

	return MAX(1.0, h * 3600.0 / div);
}

/* ---- kernel lines ---- */

static void kline_begin(struct sim *s, int32_t node)
{
	sbuf_reset(&s->out);
	sbuf_adds(&s->out, s->ts);
	sbuf_addc(&s->out, ' ');
	sbuf_adds(&s->out, s->nodes[node].name);
	SB_LIT(&s->out, " kernel: ");
}

static void kline_end(struct sim *s, int32_t node)
{
	sbuf_addc(&s->out, '\n');
	s->n_xid_lines++;
	sim_emit(s, SIM_KMSG, node, &s->out);
}

static void xid_head(struct sim *s, int32_t gpu, int32_t code, uint32_t pid)
{
	sbuf_printf(&s->out, "NVRM: Xid (PCI:0000:%02x:00): %d, ", sim_pci_bus[gpu], code);
	if (code == 79)
		SB_LIT(&s->out, "pid=0, ");
	else if (pid)
		sbuf_printf(&s->out, "pid=%u, name=python3, ", pid);
	else
		SB_LIT(&s->out, "pid='<unknown>', name=<unknown>, ");
}

static void xid_body(struct sim *s, int32_t gpu, int32_t code)
{
	struct rng *r = &s->r_flt;
	struct sbuf *b = &s->out;

	switch (code) {
	case 13:
		sbuf_printf(b, "Graphics SM Warp Exception on (GPC %u, TPC %u, SM %u): Out Of Range Address",
			    rng_below(r, 8), rng_below(r, 9), rng_below(r, 2));
		break;
	case 31:
		sbuf_printf(b, "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%u faulted @ "
			    "0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_READ",
			    8 + rng_below(r, 40), rng_below(r, 8), rng_below(r, 256), rng_below(r, 1u << 24) << 8);
		break;
	case 48:
		sbuf_printf(b, "An uncorrectable double bit error (DBE) has been detected on GPU in the "
			    "framebuffer at partition %u, subpartition %u.", rng_below(r, 12), rng_below(r, 2));
		break;
	case 62: SB_LIT(b, "Internal micro-controller halt"); break;
	case 63: SB_LIT(b, "Row Remapper: New row marked for remapping, reset gpu to activate."); break;
	case 64:
		sbuf_printf(b, "Row Remapper Error: (0x%016llx) - All reserved rows for bank are remapped",
			    (unsigned long long)(rng_next(r) & 0xffffffffffULL));
		break;
	case 74:
		sbuf_printf(b, "NVLink: fatal error detected on link %u(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
			    rng_below(r, 18));
		break;
	case 79: SB_LIT(b, "GPU has fallen off the bus."); break;
	case 92: SB_LIT(b, "High single-bit ECC error rate"); break;
	case 94: SB_LIT(b, "Contained: SM (0x1). RST: No, D-RST: No"); break;
	case 95: SB_LIT(b, "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No"); break;
	case 109:
		sbuf_printf(b, "Ch %08x, errorString CTX SWITCH TIMEOUT, Info 0x%x", 8 + rng_below(r, 40),
			    0x2c000 + rng_below(r, 0x1000));
		break;
	case 119:
		sbuf_printf(b, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function "
			    "76 (GSP_RM_CONTROL) (0x20802a02 0x8).", gpu);
		break;
	case 120: SB_LIT(b, "GSP task exception: load access fault"); break;
	case 154: SB_LIT(b, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"); break;
	default:
		sbuf_printf(b, "Ch %08x", 8 + rng_below(r, 40));
	}
}

/* One Xid line. The text is built even with no sink, so that printing or
 * not never changes the random sequence. */
static void xid_line(struct sim *s, int32_t node, int32_t gpu, int32_t code, uint32_t pid)
{
	kline_begin(s, node);
	xid_head(s, gpu, code, pid);
	xid_body(s, gpu, code);
	kline_end(s, node);
	if (code == 13) {   /* the engine exception that follows the warp one */
		kline_begin(s, node);
		xid_head(s, gpu, code, pid);
		sbuf_printf(&s->out, "Graphics Exception: ChID %04x, Class 0000cbc0, Offset 00000000, "
			    "Data 00000000", 8 + rng_below(&s->r_flt, 40));
		kline_end(s, node);
	}
}

static void announce(struct sim *s, int32_t node, int32_t gpu)
{
	struct sgpu *g = gpu_of(s, node, gpu);

	if (g->announced)
		return;
	g->announced = 1;
	kline_begin(s, node);
	sbuf_printf(&s->out, "NVRM: GPU at PCI:0000:%02x:00: ", sim_pci_bus[gpu]);
	sbuf_add(&s->out, g->prefix + 3, 40);   /* the uuid */
	kline_end(s, node);
}

void faults_queue(struct sim *s, int32_t node, int32_t gpu, int32_t code, int64_t at, uint32_t pid, int primary)
{
	if (s->nxq == s->xqcap) {
		s->xqcap = s->xqcap ? s->xqcap * 2 : 64;
		s->xq = xrealloc(s->xq, (size_t)s->xqcap * sizeof *s->xq);
	}
	s->xq[s->nxq++] = (struct sxq){at, node, gpu, code, pid, primary};
}

/* ---- node faults ---- */

static int set_fault(struct sim *s, int32_t node, int kind, int32_t gpu, int32_t rail, int32_t code)
{
	struct sfault *f = &s->nodes[node].fault;

	if (f->kind != FK_NONE)
		return 0;
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->gpu = gpu;
	f->rail = rail;
	f->code = code;
	f->at = s->now;
	f->check_at = s->now + (kind == FK_HOST ? SIM_SLURMD_TIMEOUT
				: 30 + (int64_t)rng_below(&s->r_flt, 61)) * US_PER_SEC;
	s->faulted = xrealloc(s->faulted, (size_t)(s->nfaulted + 1) * sizeof *s->faulted);
	s->faulted[s->nfaulted++] = node;
	return 1;
}

static void fail_node_jobs(struct sim *s, int32_t node, int multi_only)
{
	for (int i = 0; i < SIM_GPN; i++) {
		uint32_t id = gpu_of(s, node, i)->job;
		struct sjob *j = id ? wl_find(s, id) : NULL;

		if (j && (!multi_only || j->nnodes > 1))
			wl_node_fail(s, j);
	}
}

static const char *xid_reason(int32_t code, int sram)
{
	switch (code) {
	case 48: return "dbe";
	case 62: return "uc-halt";
	case 64: return "remap-fail rma";
	case 74: return "nvlink";
	case 79: return "fallen-off-bus";
	case 95: return sram ? "sram-uncontained" : "uncontained";
	case 109: return "ctxsw-timeout";
	case 119: return "gsp-timeout";
	case 120: return "gsp-error";
	default: return "xid";
	}
}

static int is_hw_xid(int32_t code)
{
	return code == 48 || code == 62 || code == 64 || code == 74 || code == 79 || code == 95
		|| code == 109 || code == 119 || code == 120;
}

/* A GPU-fatal XID: the node gets a fault (if it has none), the GPU's job ends
 * NODE_FAIL, the sympathetic lines follow a second later. */
static void hw_xid(struct sim *s, int32_t node, int32_t gpu, int32_t code, uint32_t pid, int sram)
{
	struct sgpu *g = gpu_of(s, node, gpu);
	struct sjob *j = g->job ? wl_find(s, g->job) : NULL;
	int64_t next = sim_sec(s) + 1;

	if (code == 64)
		xid_line(s, node, gpu, 63, pid);
	xid_line(s, node, gpu, code, pid);
	if (code == 48)
		xid_line(s, node, gpu, 63, pid);
	if (code == 48 || code == 64 || code == 95)
		g->ecc++;
	if (code == 79) {
		kline_begin(s, node);
		sbuf_printf(&s->out, "NVRM: GPU 0000:%02x:00.0: GPU has fallen off the bus.", sim_pci_bus[gpu]);
		kline_end(s, node);
		g->health = GH_LOST;
	} else {
		if (code == 119 || code == 120)
			g->health = GH_GSP;
		if (code != 119 && code != 120)
			faults_queue(s, node, gpu, code == 109 ? 43 : 45, next, pid, 0);
		faults_queue(s, node, gpu, 154, next, 0, 0);
	}
	if (set_fault(s, node, FK_XID, gpu, -1, code))
		snprintf(s->nodes[node].fault.reason, sizeof s->nodes[node].fault.reason, "xid%d gpu%d %s",
			 code, gpu, xid_reason(code, sram));
	if (j)
		wl_node_fail(s, j);
}

/* Any XID on one GPU, with the consequences of its code. */
static void apply_xid(struct sim *s, int32_t node, int32_t gpu, int32_t code, int sram)
{
	struct sgpu *g = gpu_of(s, node, gpu);
	struct sjob *j = g->job ? wl_find(s, g->job) : NULL;
	uint32_t pid = j ? wl_pid(j, node) : 0;

	if (s->nodes[node].silent || g->health == GH_LOST)
		return;
	announce(s, node, gpu);
	if (is_hw_xid(code)) {
		hw_xid(s, node, gpu, code, pid, sram);
		return;
	}
	xid_line(s, node, gpu, code, pid);
	if (code == 94) {
		g->ecc++;
		faults_queue(s, node, gpu, 63, sim_sec(s) + 1, pid, 0);
	}
	if ((code == 13 || code == 31 || code == 94) && j)
		wl_app_fail(s, j);
}

static void link_fault(struct sim *s, int32_t node, int kind)
{
	int32_t rail = (int32_t)rng_below(&s->r_flt, SIM_GPN);
	struct sport *pt = &s->ports[(int64_t)node * SIM_GPN + rail];
	struct sfault *f = &s->nodes[node].fault;

	if (!set_fault(s, node, kind, -1, rail, 0))
		return;
	if (kind == FK_SYMBOL) {
		pt->sym_rate = (float)(0.05 + 2.0 * rng_unit(&s->r_flt));
		snprintf(f->reason, sizeof f->reason, "ib mlx5_%d symbol_error %d/h", rail,
			 (int)(pt->sym_rate * 3600.0f + 0.5f));
		return;
	}
	pt->state = IBP_DOWN;
	pt->c[IBC_LINK_DOWNED]++;
	if (kind == FK_LINK_DOWN) {
		pt->c[IBC_LINK_ERROR_RECOVERY] += 1 + rng_below(&s->r_flt, 3);
		pt->c[IBC_SYMBOL_ERROR] += 20 + rng_below(&s->r_flt, 400);
		pt->c[IBC_PORT_RCV_ERRORS] += rng_below(&s->r_flt, 20);
		snprintf(f->reason, sizeof f->reason, "ib mlx5_%d link_downed", rail);
	} else {
		pt->c[IBC_LOCAL_LINK_INTEGRITY_ERRORS] += 1 + rng_below(&s->r_flt, 3);
		pt->c[IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] += rng_below(&s->r_flt, 2);
		snprintf(f->reason, sizeof f->reason, "nic mlx5_%d hca-fail", rail);
	}
	fail_node_jobs(s, node, 1);   /* NCCL over that rail breaks */
}

static void host_fault(struct sim *s, int32_t node)
{
	if (set_fault(s, node, FK_HOST, -1, -1, 0))
		s->nodes[node].silent = 1;   /* Slurm notices after SlurmdTimeout */
}

static void thermal_fault(struct sim *s, int32_t node, int32_t gpu)
{
	if (set_fault(s, node, FK_THERMAL, gpu, -1, 0))
		snprintf(s->nodes[node].fault.reason, sizeof s->nodes[node].fault.reason,
			 "thermal gpu%d hw-slowdown", gpu);
}

/* Software and NCCL faults hit a running job: look for a busy GPU. */
static void job_fault(struct sim *s, int cause, int32_t code)
{
	for (int tries = 0; tries < 16; tries++) {
		int64_t gi = rng_below(&s->r_flt, (uint32_t)s->topo.gpus);
		int32_t node = (int32_t)(gi / SIM_GPN), gpu = (int32_t)(gi % SIM_GPN);
		struct sgpu *g = &s->gpus[gi];
		struct sjob *j;

		if (!g->job || g->health != GH_OK || s->nodes[node].silent)
			continue;
		if (cause == CA_NCCL) {
			if (!g->multi || !(j = wl_find(s, g->job)))
				continue;
			wl_app_fail(s, j);   /* watchdog timeout: the job dies, no XID */
			return;
		}
		apply_xid(s, node, gpu, code, 0);
		return;
	}
	s->n_dropped++;
}

static int pick_cause(struct rng *r)
{
	int u = (int)rng_below(r, 935);

	for (int c = 0; c < CA_COUNT; c++) {
		if (u < cause_weight[c])
			return c;
		u -= cause_weight[c];
	}
	return CA_GPU;
}

static void hw_fault(struct sim *s, int cause, int32_t node, int32_t gpu)
{
	uint32_t u = rng_below(&s->r_flt, 100);

	switch (cause) {
	case CA_GPU: apply_xid(s, node, gpu, u < 59 ? 79 : 74, 0); break;
	case CA_HBM: apply_xid(s, node, gpu, u < 35 ? 48 : u < 60 ? 94 : u < 80 ? 95 : 64, 0); break;
	case CA_SRAM: apply_xid(s, node, gpu, 95, 1); break;
	case CA_GSP: apply_xid(s, node, gpu, u < 80 ? 119 : 120, 0); break;
	case CA_NET: link_fault(s, node, u < 50 ? FK_LINK_DOWN : FK_SYMBOL); break;
	case CA_NIC: link_fault(s, node, FK_NIC); break;
	case CA_HOST: host_fault(s, node); break;
	default: thermal_fault(s, node, gpu); break;
	}
}

static void natural_fault(struct sim *s)
{
	int cause = pick_cause(&s->r_flt);
	int64_t gi = rng_below(&s->r_flt, (uint32_t)s->topo.gpus);
	int32_t node = (int32_t)(gi / SIM_GPN), gpu = (int32_t)(gi % SIM_GPN);
	const struct snode *nd = &s->nodes[node];

	s->n_faults++;
	if (cause == CA_SW || cause == CA_NCCL) {
		job_fault(s, cause, rng_below(&s->r_flt, 10) < 6 ? 13 : 31);
		return;
	}
	if (cause == CA_GPU && rng_below(&s->r_flt, 100) < 15) {   /* a GPU that fails the app */
		job_fault(s, CA_SW, 13);
		return;
	}
	if (nd->fault.kind != FK_NONE || nd->silent || nd->down || s->gpus[gi].health != GH_OK) {
		s->n_dropped++;
		return;
	}
	hw_fault(s, cause, node, gpu);
}

/* Tests: a fault of a given kind now, as the injector would make it. */
int faults_force(struct sim *s, int32_t node, int32_t gpu, const char *kind)
{
	static const char *const kinds[] = {"gpu", "hbm", "sw", "host", "net", "sram", "gsp", "nic", "nccl", "thermal"};
	const struct snode *nd = &s->nodes[node];

	if (!strcmp(kind, "link_down") || !strcmp(kind, "symbol")) {
		if (nd->fault.kind != FK_NONE)
			return -1;
		link_fault(s, node, kind[0] == 'l' ? FK_LINK_DOWN : FK_SYMBOL);
		return 0;
	}
	for (int c = 0; c < CA_COUNT; c++)
		if (!strcmp(kind, kinds[c])) {
			if (nd->fault.kind != FK_NONE || nd->silent)
				return -1;
			hw_fault(s, c, node, gpu);
			return 0;
		}
	return -1;
}

/* ---- garbled lines ---- */

static void garbled_line(struct sim *s)
{
	int32_t node = (int32_t)rng_below(&s->r_flt, (uint32_t)s->topo.nodes);
	int32_t gpu = (int32_t)rng_below(&s->r_flt, SIM_GPN);
	size_t start, end, cut;

	if (s->nodes[node].silent)
		return;
	kline_begin(s, node);
	start = s->out.len + 11;            /* after "NVRM: Xid (" */
	sbuf_printf(&s->out, "NVRM: Xid (PCI:0000:%02x:00): ", sim_pci_bus[gpu]);
	end = s->out.len;                   /* just before the code */
	cut = start + 1 + rng_below(&s->r_flt, (uint32_t)(end - start));
	s->out.len = cut;
	s->out.s[cut] = '\0';
	s->n_garbled++;
	kline_end(s, node);
	s->n_xid_lines--;
}

/* ---- health check and repair ---- */

static void slurm_down(struct sim *s, struct snode *nd, int32_t node)
{
	nd->down = 1;
	nd->flags |= NODE_F_NOT_RESPONDING;
	snprintf(nd->reason, sizeof nd->reason, "Not responding");
	snprintf(nd->who, sizeof nd->who, "slurm");
	nd->reason_time = s->now;
	fail_node_jobs(s, node, 0);
}

static void health_check(struct sim *s, struct snode *nd, int32_t node)
{
	struct sfault *f = &nd->fault;

	f->check_at = 0;
	if (f->kind == FK_HOST) {
		slurm_down(s, nd, node);
		return;
	}
	if (nd->flags & NODE_F_DRAIN)
		return;   /* already drained (by an operator): keep that reason */
	nd->flags |= NODE_F_DRAIN;
	snprintf(nd->reason, sizeof nd->reason, "%s", f->reason);
	snprintf(nd->who, sizeof nd->who, "root");
	nd->reason_time = s->now;
	s->n_drains++;
}

static void repair(struct sim *s, struct snode *nd, int32_t node)
{
	for (int i = 0; i < SIM_GPN; i++) {
		uint32_t id = gpu_of(s, node, i)->job;
		struct sjob *j = id ? wl_find(s, id) : NULL;

		if (j && j->requeue)
			wl_requeue(s, j, NULL, 0);
		else if (j)
			wl_cancel(s, j);
	}
	fleet_gpu_reset(s, node);
	if (nd->fault.kind == FK_HOST)
		nd->boot_time = s->now;
	memset(&nd->fault, 0, sizeof nd->fault);
	nd->silent = 0;
	nd->down = 0;
	nd->flags &= ~(uint32_t)(NODE_F_DRAIN | NODE_F_NOT_RESPONDING);
	nd->reason[0] = nd->who[0] = '\0';
	nd->reason_time = 0;
	s->n_repairs++;
}

/* Returns 1 when the node's fault is gone. */
static int tend(struct sim *s, int32_t node)
{
	struct snode *nd = &s->nodes[node];
	struct sfault *f = &nd->fault;

	if (f->kind == FK_THERMAL) {
		struct sgpu *g = gpu_of(s, node, f->gpu);

		g->heat = MIN(25.0f, g->heat + 0.8f);
	}
	if (f->check_at && s->now >= f->check_at)
		health_check(s, nd, node);
	if (!f->repair_at && ((nd->flags & NODE_F_DRAIN) || nd->down))
		f->repair_at = s->now + (int64_t)(repair_secs(s) * US_PER_SEC);
	if (f->repair_at && s->now >= f->repair_at) {
		repair(s, nd, node);
		return 1;
	}
	return 0;
}

static void tend_all(struct sim *s)
{
	int32_t k = 0;

	for (int32_t i = 0; i < s->nfaulted; i++)
		if (!tend(s, s->faulted[i]))
			s->faulted[k++] = s->faulted[i];
	s->nfaulted = k;
}

void faults_resumed(struct sim *s, int32_t node)
{
	struct sfault *f = &s->nodes[node].fault;

	if (f->kind == FK_NONE)
		return;
	f->repair_at = 0;
	f->check_at = s->now + (f->kind == FK_HOST ? SIM_SLURMD_TIMEOUT
				: 30 + (int64_t)rng_below(&s->r_flt, 61)) * US_PER_SEC;
}

/* ---- the step ---- */

static void run_queue(struct sim *s)
{
	int64_t now = sim_sec(s);
	int32_t k = 0, n = s->nxq;

	for (int32_t i = 0; i < n; i++) {
		struct sxq q = s->xq[i];

		if (q.at > now) {
			s->xq[k++] = q;
			continue;
		}
		if (q.primary)
			apply_xid(s, q.node, q.gpu, q.code, 0);
		else if (!s->nodes[q.node].silent && gpu_of(s, q.node, q.gpu)->health != GH_LOST)
			xid_line(s, q.node, q.gpu, q.code, q.pid);
	}
	/* entries queued while running (sympathetic ones) were appended after n */
	for (int32_t i = n; i < s->nxq; i++)
		s->xq[k++] = s->xq[i];
	s->nxq = k;
}

void faults_step(struct sim *s)
{
	int32_t n;

	run_queue(s);
	n = MIN(poisson(&s->r_flt, s->lambda), s->topo.nodes);
	for (int32_t i = 0; i < n; i++)
		natural_fault(s);
	n = MIN(poisson(&s->r_flt, s->garble_p * s->topo.nodes), s->topo.nodes);
	for (int32_t i = 0; i < n; i++)
		garbled_line(s);
	tend_all(s);
}

/* Nodes already drained for a hardware fault before t=0 (one per 512 nodes,
 * plus one on clusters of 64 nodes or more). */
void faults_init(struct sim *s)
{
	int32_t count = s->topo.nodes / 512 + (s->topo.nodes >= 64);
	double accel = s->spec.accel;

	s->lambda = RATE_PER_GPU_DAY / 86400.0 * s->topo.gpus * accel;
	s->garble_p = s->spec.garble / 3600.0;
	for (int32_t i = 0; i < count; i++) {
		int32_t node = (int32_t)rng_below(&s->r_flt, (uint32_t)s->topo.nodes);
		int32_t gpu = (int32_t)rng_below(&s->r_flt, SIM_GPN);
		struct snode *nd = &s->nodes[node];

		if (nd->fault.kind != FK_NONE)
			continue;
		s->gpus[(int64_t)node * SIM_GPN + gpu].health = i % 2 ? GH_OK : GH_LOST;
		s->gpus[(int64_t)node * SIM_GPN + gpu].ecc = i % 2;
		set_fault(s, node, FK_XID, gpu, -1, i % 2 ? 48 : 79);
		snprintf(nd->fault.reason, sizeof nd->fault.reason, "xid%d gpu%d %s", nd->fault.code, gpu,
			 xid_reason(nd->fault.code, 0));
		nd->fault.check_at = 0;
		nd->flags |= NODE_F_DRAIN;
		snprintf(nd->reason, sizeof nd->reason, "%s", nd->fault.reason);
		snprintf(nd->who, sizeof nd->who, "root");
		nd->reason_time = s->now - (600 + (int64_t)rng_below(&s->r_flt, 3 * 3600)) * US_PER_SEC;
		nd->fault.at = nd->reason_time - 60 * US_PER_SEC;
	}
}
