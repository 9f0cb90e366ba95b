/*
 * facility.c - power, PUE and cooling of the hall, printed every second as
 * the facility meter's JSON document.
 *
 * IT kW = the GPUs' power.draw (fleet.c) + per node the rest of a DGX H100
 * (CPUs, NICs, NVSwitches, fans: 1.5 kW idle to 4.5 kW at full load, so a
 * busy node draws about 10 kW, the 10.2 kW of the reference architecture)
 * + the InfiniBand switches (QM9700 class, 1.2-1.5 kW each, count from topo).
 * Direct liquid cooling takes 80 % of the IT heat: CDU supply about 25 C,
 * the pumps hold the flow so that dT is about 12 K (with a floor at 35 % of
 * design flow, so dT falls at low load), and return = supply + dT with
 * Q[L/min] = 60 * P[kW] / (4.18 * dT) (myriad-design(7), FACTS: PUE and cooling); the heat into
 * the loop lags the IT load by about a minute. Cooling kW = pumps (affinity
 * law, cube of flow) + dry coolers (2.5 % of IT) + chillers trimming when the
 * outside air is above 16 C + air handlers for the 20 % of heat that stays
 * in the air. Other overhead = UPS and distribution losses (3.5 % of IT) +
 * fixed hall load (1 % of design IT). PUE = facility / IT lands in
 * 1.08-1.20, higher on hot afternoons and at low load. Outside temperature
 * follows a daily cycle (14 +- 7 C, warmest at 15:00) with a slow drift.
 *
 * Cooling faults (about one a month per facility at accel=1, times accel):
 * a CDU pump losing 45 % of its flow (return temperature climbs), or the
 * chilled water supply rising 5 C; they ramp in and out over ~20 s, last
 * 1-4 h / accel (at least 60 s) and warm every GPU's inlet.
 */
#include <math.h>
#include "sim_int.h"

#define COOL_FAULTS_PER_DAY (1.0 / 30.0)
#define LIQUID_SHARE 0.8
#define DT_SET 12.0

static double switches_kw(const struct sim *s, double u)
{
	return topo_switches(&s->topo) * (1.2 + 0.3 * u);
}

/* IT power from the GPUs' present state (used before the first step). */
static double it_now(struct sim *s)
{
	double gpu_w = 0, host = 0, util = 0;

	for (int32_t n = 0; n < s->topo.nodes; n++) {
		double nu = 0;

		for (int i = 0; i < SIM_GPN; i++) {
			gpu_w += s->gpus[(int64_t)n * SIM_GPN + i].watts;
			nu += s->gpus[(int64_t)n * SIM_GPN + i].util;
		}
		host += 1.5 + 3.0 * nu / (100.0 * SIM_GPN);
		util += nu;
	}
	s->fac.gpu_kw = gpu_w / 1000.0;
	s->fac.host_kw = host;
	s->fac.util_mean = util / (100.0 * s->topo.gpus);
	return s->fac.gpu_kw + host + switches_kw(s, s->fac.util_mean);
}

void fac_init(struct sim *s)
{
	struct sfac *f = &s->fac;

	f->it_design_kw = s->topo.nodes * 10.2 + topo_switches(&s->topo) * 1.5;
	f->flow_design = 60.0 * LIQUID_SHARE * f->it_design_kw / (4.18 * DT_SET);
	f->supply_c = 25.0;
	f->liquid_kw = LIQUID_SHARE * it_now(s);
	f->outside_drift = 0;
	fac_step(s);
}

static void outside(struct sim *s)
{
	struct sfac *f = &s->fac;
	double day = (double)(sim_sec(s) % 86400) / 86400.0;

	f->outside_drift += (rng_unit(&s->r_fac) - 0.5) * 0.02;
	f->outside_drift = f->outside_drift > 2.0 ? 2.0 : f->outside_drift < -2.0 ? -2.0 : f->outside_drift;
	f->outside_c = 14.0 + 7.0 * sin(2.0 * M_PI * (day - 0.375)) + f->outside_drift;
}

static void cooling_faults(struct sim *s)
{
	struct sfac *f = &s->fac;
	int64_t now = sim_sec(s);
	double p = COOL_FAULTS_PER_DAY * s->spec.accel / 86400.0;
	double u = rng_unit(&s->r_fac);

	if (!f->cool_fault && u < p) {
		double div = s->spec.accel > 0 ? s->spec.accel : 1.0;
		double secs = (1.0 + 3.0 * rng_unit(&s->r_fac)) * 3600.0 / div;

		f->cool_fault = 1 + (int)rng_below(&s->r_fac, 2);
		f->cool_until = now + (int64_t)MAX(60.0, secs);
	}
	if (f->cool_fault && now < f->cool_until)
		f->cool_level = MIN(1.0, f->cool_level + 0.05);
	else if (f->cool_level > 0)
		f->cool_level = MAX(0.0, f->cool_level - 0.05);
	if (f->cool_fault && now >= f->cool_until && f->cool_level <= 0)
		f->cool_fault = 0;
}

static void cdu(struct sim *s)
{
	struct sfac *f = &s->fac;
	double pump = f->cool_fault == 1 ? f->cool_level : 0, chill = f->cool_fault == 2 ? f->cool_level : 0;
	double flow, dt, noise = (rng_unit(&s->r_fac) - 0.5) * 0.1;

	f->liquid_kw += (LIQUID_SHARE * f->it_kw - f->liquid_kw) / 60.0;
	flow = 60.0 * f->liquid_kw / (4.18 * DT_SET);
	flow = MIN(f->flow_design, MAX(0.35 * f->flow_design, flow));
	flow *= 1.0 - 0.45 * pump;
	dt = 60.0 * f->liquid_kw / (4.18 * flow);
	f->flow_lpm = flow;
	f->supply_c = 25.0 + 0.15 * MAX(0.0, f->outside_c - 28.0) + 5.0 * chill + noise;
	f->return_c = f->supply_c + dt;
	f->gpu_inlet_offset = (f->supply_c - 25.0) + 0.5 * MAX(0.0, dt - DT_SET);
}

void fac_step(struct sim *s)
{
	struct sfac *f = &s->fac;
	double fr, pumps, dry, chill, air;

	outside(s);
	cooling_faults(s);
	f->switch_kw = switches_kw(s, f->util_mean);
	f->it_kw = f->gpu_kw + f->host_kw + f->switch_kw;
	cdu(s);
	fr = f->flow_lpm / f->flow_design;
	pumps = 0.008 * f->it_design_kw * fr * fr * fr;
	dry = 0.025 * f->it_kw;
	chill = f->it_kw * 0.006 * MAX(0.0, f->outside_c - 16.0);
	air = (1.0 - LIQUID_SHARE) * f->it_kw * 0.08;
	f->cooling_kw = pumps + dry + chill + air;
	f->other_kw = 0.035 * f->it_kw + 0.01 * f->it_design_kw;
	f->facility_kw = f->it_kw + f->cooling_kw + f->other_kw;
	f->pue = f->facility_kw / f->it_kw;
}

void fac_print(struct sim *s)
{
	const struct sfac *f = &s->fac;
	struct sbuf *b = &s->doc;
	char iso[32];

	if (!sim_printing(s))
		return;
	fmt_iso(s->now, iso);
	sbuf_reset(b);
	SB_LIT(b, "{\"time\":\"");
	sbuf_adds(b, iso);
	SB_LIT(b, "\",\"facility_kw\":");
	sb_fixed(b, f->facility_kw, 1);
	SB_LIT(b, ",\"it_kw\":");
	sb_fixed(b, f->it_kw, 1);
	SB_LIT(b, ",\"cooling_kw\":");
	sb_fixed(b, f->cooling_kw, 1);
	SB_LIT(b, ",\"outside_c\":");
	sb_fixed(b, f->outside_c, 1);
	SB_LIT(b, ",\"cdu\":{\"supply_c\":");
	sb_fixed(b, f->supply_c, 2);
	SB_LIT(b, ",\"return_c\":");
	sb_fixed(b, f->return_c, 2);
	SB_LIT(b, ",\"flow_lpm\":");
	sb_fixed(b, f->flow_lpm, 1);
	SB_LIT(b, "}}\n");
	sim_emit(s, SIM_FACILITY, -1, b);
}
