/*
 * fleet.c - what the nodes themselves print: per-GPU telemetry of an H100 SXM
 * 80GB as `nvidia-smi --query-gpu=index,uuid,pci.bus_id,utilization.gpu,
 * memory.used,memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,
 * ecc.errors.uncorrected.volatile.total,clocks_event_reasons.active
 * --format=csv,noheader,nounits` (every node, every second), and the
 * InfiniBand port counters as `grep -H` over sysfs (every node every 10 s,
 * staggered by node index, one empty line ending each dump).
 *
 * Busy GPUs: utilization 85-100, 40-78 GiB used, 550-700 W (SW power cap 0x4
 * and a lower SM clock when they would exceed the 700 W limit), temperature
 * following power with a lag (about 55-80 C), a dip while loading and at
 * each checkpoint. Idle GPUs: 0 %, a few MiB, 70-100 W, 30-40 C, GPU-idle
 * 0x1, 345 MHz. A thermal fault (failed thermal interface) drives the GPU
 * toward 90-96 C, busy or not: past 85 C SW thermal slowdown (0x20), past
 * 87 C HW thermal slowdown (0x40), clocks fall and so does power.
 * A GPU that fell off the bus (XID 79) prints "[GPU requires reset]" in its
 * metric fields, one whose GSP stopped answering (XID 119/120) prints
 * "[Unknown Error]"; index, uuid and PCI bus id stay. A silent (hung) host
 * prints nothing at all.
 *
 * Numbers are formatted by hand (textfmt.c): about 10,240 lines a second.
 */
#include <string.h>
#include "sim_int.h"

const uint8_t sim_pci_bus[SIM_GPN] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};


/* Counters in the order `grep -H` lists the sysfs files (alphabetical). */
static const enum ib_counter ib_sorted[IBC_COUNT] = {
	IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS, IBC_LINK_DOWNED, IBC_LINK_ERROR_RECOVERY,
	IBC_LOCAL_LINK_INTEGRITY_ERRORS, IBC_PORT_RCV_DATA, IBC_PORT_RCV_ERRORS,
	IBC_PORT_XMIT_DATA, IBC_PORT_XMIT_DISCARDS, IBC_PORT_XMIT_WAIT, IBC_SYMBOL_ERROR,
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* "3, GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, 00000000:5D:00.0, " */
static void make_prefix(struct sim *s, int64_t gi)
{
	static const char hex[] = "0123456789abcdef", HEX[] = "0123456789ABCDEF";
	struct sgpu *g = &s->gpus[gi];
	uint64_t a = mix64(s->spec.seed * 0x9e3779b97f4a7c15ULL + (uint64_t)gi * 2 + 1);
	uint64_t b = mix64(a ^ (uint64_t)gi);
	char *p = g->prefix;
	int idx = (int)(gi % SIM_GPN);

	*p++ = (char)('0' + idx);
	memcpy(p, ", GPU-", 6);
	p += 6;
	for (int i = 0; i < 32; i++) {
		uint64_t w = i < 16 ? a : b;

		if (i == 8 || i == 12 || i == 16 || i == 20)
			*p++ = '-';
		*p++ = hex[(w >> ((i % 16) * 4)) & 15];
	}
	memcpy(p, ", 00000000:", 11);
	p += 11;
	*p++ = HEX[sim_pci_bus[idx] >> 4];
	*p++ = HEX[sim_pci_bus[idx] & 15];
	memcpy(p, ":00.0, ", 7);
	p += 7;
	*p = '\0';
	g->prefix_len = (uint8_t)(p - g->prefix);
}

static void init_ports(struct sim *s, int32_t n)
{
	for (int r = 0; r < SIM_GPN; r++) {
		struct sport *pt = &s->ports[(int64_t)n * SIM_GPN + r];
		double up = (double)(s->now - s->nodes[n].boot_time) / US_PER_SEC;
		uint64_t data = (uint64_t)(up * 1.2e9 * (0.5 + rng_unit(&s->r_tel)));

		memset(pt, 0, sizeof *pt);
		pt->state = IBP_ACTIVE;
		pt->c[IBC_PORT_XMIT_DATA] = data;
		pt->c[IBC_PORT_RCV_DATA] = data - data / 64 + rng_below(&s->r_tel, 1u << 30);
		pt->c[IBC_PORT_XMIT_WAIT] = data / 700;
		pt->c[IBC_SYMBOL_ERROR] = rng_below(&s->r_tel, 8) == 0 ? rng_below(&s->r_tel, 4) : 0;
		pt->c[IBC_LINK_ERROR_RECOVERY] = rng_below(&s->r_tel, 16) == 0;
		pt->c[IBC_LINK_DOWNED] = rng_below(&s->r_tel, 10) == 0;
	}
}

void fleet_init(struct sim *s)
{
	for (int64_t gi = 0; gi < s->topo.gpus; gi++) {
		struct sgpu *g = &s->gpus[gi];

		memset(g, 0, sizeof *g);
		make_prefix(s, gi);
		g->idle_mem = (uint16_t)rng_below(&s->r_tel, 5);
		g->temp = 31.0f + (float)rng_below(&s->r_tel, 60) * 0.1f;
		g->watts = 72.0f;
		g->health = GH_OK;
		g->thr = THR_GPU_IDLE;
		g->clock = SIM_CLOCK_IDLE;
	}
	for (int32_t n = 0; n < s->topo.nodes; n++)
		init_ports(s, n);
}

/* ---- telemetry ---- */

static void busy_sample(struct sgpu *g, int64_t now, uint64_t r)
{
	int64_t t = now - g->job_start;
	int n1 = (int)(r & 0xff), n2 = (int)(r >> 8 & 0xff), n3 = (int)(r >> 16 & 0xff);
	int util;

	if (t < 45) {                      /* loading data, building the model */
		util = n1 % 30;
		g->mem = (int32_t)((int64_t)g->job_mem * (t + 1) / 45);
		g->watts = (float)(120 + n2 % 60);
	} else if (now < g->ckpt_until || (g->stall_period && t % g->stall_period < g->stall_len)) {
		util = n1 % 25;                /* writing a checkpoint */
		g->mem = g->job_mem;
		g->watts = (float)(160 + n2 % 90);
	} else {
		util = g->job_util - n1 % 5 + (n2 % 3 == 0);
		util = util > 100 ? 100 : util < 85 ? 85 : util;
		g->mem = g->job_mem + n3 % 64 - 32;
		g->watts = 265.0f + (float)util * 0.01f * g->job_watts + (float)(n2 % 25 - 12);
	}
	g->util = (uint8_t)util;
	g->thr = 0;
	g->clock = SIM_CLOCK_MAX;
	if (g->watts > SIM_POWER_LIMIT_W) {
		int over = (int)(g->watts - SIM_POWER_LIMIT_W);

		g->thr |= THR_SW_POWER_CAP;
		g->clock = SIM_CLOCK_MAX - MIN(225, 15 + over * 3) / 15 * 15;
		g->watts = (float)SIM_POWER_LIMIT_W - (float)(n3 % 400) * 0.01f;
	}
}

static void idle_sample(struct sgpu *g, uint64_t r)
{
	float w = 70.0f + (g->temp - 28.0f) * 1.2f + (float)(r % 600) * 0.01f;

	g->util = 0;
	g->mem = g->idle_mem;
	g->watts = w < 70.0f ? 70.0f : w > 100.0f ? 100.0f : w;
	g->thr = THR_GPU_IDLE;
	g->clock = SIM_CLOCK_IDLE;
}

static void thermal(struct sgpu *g, double inlet, uint64_t r)
{
	double target = inlet + 8.0 + g->watts * 0.065;
	double noise = (double)((int)(r >> 40 & 7) - 3) * 0.1;

	if (g->heat > 0)   /* failed thermal interface: climbs toward 90-96 C */
		target = MAX(target, 64.0 + g->heat + g->watts * 0.01);

	g->temp += (float)((target - g->temp) * 0.07 + noise);
	if (g->temp > 85.0f) {
		g->thr |= THR_SW_THERMAL;
		g->clock = MIN(g->clock, 1830);
	}
	if (g->temp >= 87.0f) {
		int clock = 1980 - (int)((g->temp - 85.0f) * 40.0f) / 15 * 15;

		g->thr |= THR_HW_THERMAL;
		g->clock = MIN(g->clock, MAX(clock, 1095));
		g->watts *= 0.8f;
	}
}

static void gpu_update(struct sim *s, struct sgpu *g, int64_t now, double inlet)
{
	uint64_t r = rng_next(&s->r_tel);

	if (g->health == GH_LOST) {
		g->watts = 0;
		return;
	}
	if (g->health == GH_GSP) {
		g->watts = 90.0f;
		return;
	}
	if (g->job)
		busy_sample(g, now, r);
	else
		idle_sample(g, r >> 24);
	thermal(g, inlet, r);
}

static char *dead_fields(char *p, const char *what, size_t n)
{
	for (int i = 0; i < 9; i++) {
		memcpy(p, what, n);
		p += n;
		if (i < 8)
			p = TX_LIT(p, ", ");
	}
	*p++ = '\n';
	return p;
}

/* One line, written into a buffer and added at once: at most the prefix
 * (72), nine dead fields (197) or the numbers. */
static void print_gpu(struct sbuf *b, const struct sgpu *g)
{
	char line[320], *p = line;

	memcpy(p, g->prefix, g->prefix_len);
	p += g->prefix_len;
	if (g->health == GH_LOST) {
		p = dead_fields(p, "[GPU requires reset]", 20);
	} else if (g->health == GH_GSP) {
		p = dead_fields(p, "[Unknown Error]", 15);
	} else {
		p = tx_u64(p, g->util);
		p = TX_LIT(p, ", ");
		p = tx_u64(p, (uint64_t)g->mem);
		p = TX_LIT(p, ", 81559, ");
		p = tx_u64(p, (uint64_t)(g->temp + 0.5f));
		p = TX_LIT(p, ", ");
		p = tx_fixed(p, g->watts, 2);
		p = TX_LIT(p, ", 700.00, ");
		p = tx_u64(p, (uint64_t)g->clock);
		p = TX_LIT(p, ", ");
		p = tx_u64(p, (uint64_t)g->ecc);
		p = TX_LIT(p, ", 0x");
		p = tx_hex16(p, g->thr);
		*p++ = '\n';
	}
	sbuf_add(b, line, (size_t)(p - line));
}

/* Advance every GPU one second and print each live node's 8 lines. Also sums
 * GPU and host power for the facility (host: CPUs, NICs, NVSwitches, fans). */
void fleet_step(struct sim *s)
{
	int64_t now = sim_sec(s);
	double inlet = s->fac.supply_c + s->fac.gpu_inlet_offset;
	double gpu_w = 0, host_kw = 0, util = 0;
	int print = sim_printing(s);

	for (int32_t n = 0; n < s->topo.nodes; n++) {
		struct sgpu *g = &s->gpus[(int64_t)n * SIM_GPN];
		int node_util = 0;

		sbuf_reset(&s->out);
		for (int i = 0; i < SIM_GPN; i++) {
			gpu_update(s, &g[i], now, inlet);
			gpu_w += g[i].watts;
			node_util += g[i].util;
			if (print)
				print_gpu(&s->out, &g[i]);
		}
		host_kw += 1.5 + 3.0 * node_util / (100.0 * SIM_GPN);
		util += node_util;
		if (print && !s->nodes[n].silent)
			sim_emit(s, SIM_NVSMI, n, &s->out);
	}
	s->fac.gpu_kw = gpu_w / 1000.0;
	s->fac.host_kw = host_kw;
	s->fac.util_mean = util / (100.0 * (double)s->topo.gpus);
}

/* Temperatures and power at their steady state for the warm start. */
void fleet_settle(struct sim *s)
{
	int64_t now = sim_sec(s);

	for (int64_t gi = 0; gi < s->topo.gpus; gi++) {
		struct sgpu *g = &s->gpus[gi];
		uint64_t r = rng_next(&s->r_tel);

		if (g->job)
			busy_sample(g, now, r);
		else
			idle_sample(g, r >> 24);
		g->temp = (float)(25.0 + 8.0 + g->watts * 0.065) + (float)(r >> 40 & 15) * 0.1f;
	}
}

void fleet_gpu_reset(struct sim *s, int32_t node)
{
	for (int i = 0; i < SIM_GPN; i++) {
		struct sgpu *g = &s->gpus[(int64_t)node * SIM_GPN + i];

		g->health = GH_OK;
		g->ecc = 0;          /* volatile counts start again after a reset */
		g->heat = 0;
		g->announced = 0;
	}
	for (int r = 0; r < SIM_GPN; r++) {
		struct sport *pt = &s->ports[(int64_t)node * SIM_GPN + r];

		pt->state = IBP_ACTIVE;
		pt->sym_rate = 0;
	}
}

/* ---- InfiniBand ---- */

static void port_advance(struct sim *s, struct sport *pt, const struct sgpu *g)
{
	uint64_t r = rng_next(&s->r_tel);
	double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
	uint64_t words = 2000000;   /* 10 s of background traffic */

	if (pt->state != IBP_ACTIVE)
		return;
	if (g->job && g->multi)
		words += (uint64_t)(g->util * 0.01 * (2.5e10 + 2.5e10 * u));
	pt->c[IBC_PORT_XMIT_DATA] += words;
	pt->c[IBC_PORT_RCV_DATA] += words - words / 50 + (r & 0xffff);
	pt->c[IBC_PORT_XMIT_WAIT] += (uint64_t)((double)words * 0.004 * u);
	if (pt->sym_rate > 0) {
		uint64_t sym = (uint64_t)(pt->sym_rate * 10.0 * (0.5 + u));

		pt->c[IBC_SYMBOL_ERROR] += sym;
		pt->c[IBC_PORT_RCV_ERRORS] += sym / 25;
		pt->c[IBC_LINK_ERROR_RECOVERY] += (r & 0xff) < (uint64_t)(pt->sym_rate * 12.0);
	} else if ((r & 0xfffff) == 0x5a5a5) {
		pt->c[IBC_SYMBOL_ERROR]++;   /* a healthy link's rare bit error */
	}
}

/* A port's eleven lines, written into a buffer and added at once (each
 * line at most 37 + 9 + 31 + 1 + 20 + 1 bytes). */
static void print_port(struct sbuf *b, const struct sport *pt, int rail)
{
	char buf[1280], *p = buf, pre[64];
	size_t n;

	memcpy(pre, "/sys/class/infiniband/mlx5_", 27);
	n = 27;
	pre[n++] = (char)('0' + rail);
	memcpy(pre + n, "/ports/1/", 9);
	n += 9;
	for (int i = 0; i < IBC_COUNT; i++) {
		const char *name = ib_counter_name(ib_sorted[i]);
		size_t len = strlen(name);

		memcpy(p, pre, n);
		p = TX_LIT(p + n, "counters/");
		memcpy(p, name, len);
		p += len;
		*p++ = ':';
		p = tx_u64(p, pt->c[ib_sorted[i]]);
		*p++ = '\n';
	}
	memcpy(p, pre, n);
	p += n;
	if (pt->state == IBP_ACTIVE)
		p = TX_LIT(p, "state:4: ACTIVE\n");
	else
		p = TX_LIT(p, "state:1: DOWN\n");
	sbuf_add(b, buf, (size_t)(p - buf));
}

/* Nodes whose index ends in the tick's last digit dump their 8 ports. */
void fleet_ib(struct sim *s)
{
	int print = sim_printing(s);

	for (int32_t n = (int32_t)(s->tick % 10); n < s->topo.nodes; n += 10) {
		if (s->nodes[n].silent)
			continue;
		sbuf_reset(&s->out);
		for (int r = 0; r < SIM_GPN; r++) {
			struct sport *pt = &s->ports[(int64_t)n * SIM_GPN + r];

			port_advance(s, pt, &s->gpus[(int64_t)n * SIM_GPN + r]);
			if (print)
				print_port(&s->out, pt, r);
		}
		if (print) {
			sbuf_addc(&s->out, '\n');
			sim_emit(s, SIM_IB, n, &s->out);
		}
	}
}
