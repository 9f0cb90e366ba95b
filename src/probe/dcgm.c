/*
 * dcgm.c - dcgm-exporter's series (parsed by prom.c, from a /metrics body or
 * a Prometheus API answer) mapped onto what the model knows: per GPU, the
 * metrics of the nvidia-smi path in its units, its identity, and the XID
 * gauge (see parse.h). Pure: no model, no globals; the caller resolves the
 * Hostname to a node and keeps the previous XID gauge.
 *
 * DCGM's fields and units (dcgm_fields.h; dcgm-exporter etc/default-counters.csv):
 * GPU_UTIL %, FB_* MiB, GPU_TEMP C, POWER_USAGE W (a double), SM_CLOCK MHz,
 * ECC_DBE_VOL_TOTAL count, XID_ERRORS "value of the last XID error
 * encountered". Blank values (dcgm_structs.h DCGM_*_BLANK and the
 * NOT_FOUND / NOT_SUPPORTED / NOT_PERMISSIONED values after each) are
 * unknown, as are NaN, infinities, negative and out-of-range numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "../util.h"

#define INT32_BLANK 2147483632.0            /* 0x7ffffff0 */
#define FP64_BLANK 140737488355328.0        /* 2^47 */
#define INT64_BLANK 9223372036854775792.0   /* 0x7ffffffffffffff0: 2^63 as a double */

int prom_dcgm_blank(double v)
{
	return isnan(v) || isinf(v) || (v >= INT32_BLANK && v <= 2147483647.0) ||
	       (v >= FP64_BLANK && v < FP64_BLANK + 16.0) || v >= INT64_BLANK;
}

enum dfield {
	DF_UTIL, DF_FB_USED, DF_FB_FREE, DF_FB_RESERVED, DF_TEMP, DF_POWER, DF_POWER_LIMIT,
	DF_SM_CLOCK, DF_ECC_DBE, DF_THROTTLE, DF_XID, DF_REMAP_UNCORR, DF_REMAP_CORR,
	DF_REMAP_FAIL, DF_NVLINK_BW, DF_PCIE_REPLAY, DF_COUNT
};

static const struct {
	const char *name;   /* after "DCGM_FI_DEV_" */
	int field;
} fields[] = {
	{"GPU_UTIL", DF_UTIL},
	{"FB_USED", DF_FB_USED},
	{"FB_FREE", DF_FB_FREE},
	{"FB_RESERVED", DF_FB_RESERVED},
	{"GPU_TEMP", DF_TEMP},
	{"POWER_USAGE", DF_POWER},
	{"POWER_MGMT_LIMIT", DF_POWER_LIMIT},
	{"ENFORCED_POWER_LIMIT", DF_POWER_LIMIT},
	{"SM_CLOCK", DF_SM_CLOCK},
	{"ECC_DBE_VOL_TOTAL", DF_ECC_DBE},
	{"CLOCK_THROTTLE_REASONS", DF_THROTTLE},
	{"CLOCKS_EVENT_REASONS", DF_THROTTLE},
	{"XID_ERRORS", DF_XID},
	{"UNCORRECTABLE_REMAPPED_ROWS", DF_REMAP_UNCORR},
	{"CORRECTABLE_REMAPPED_ROWS", DF_REMAP_CORR},
	{"ROW_REMAP_FAILURE", DF_REMAP_FAIL},
	{"NVLINK_BANDWIDTH_TOTAL", DF_NVLINK_BW},
	{"PCIE_REPLAY_COUNTER", DF_PCIE_REPLAY},
};

static int field_of(const char *name)
{
	if (strncmp(name, "DCGM_FI_DEV_", 12))
		return -1;
	for (size_t i = 0; i < ARRAY_LEN(fields); i++)
		if (!strcmp(name + 12, fields[i].name))
			return fields[i].field;
	return -1;
}

/* One GPU being gathered: raw values, NAN when absent. */
struct dgpu {
	struct prom_gpu g;
	double v[DF_COUNT];
	uint64_t hash;
};

struct prom_dcgm {
	struct dgpu *gpus;
	int32_t n, cap;
	int32_t *slot;              /* open addressing: index + 1, 0 empty */
	uint32_t nslots;
};

struct prom_dcgm *prom_dcgm_new(void)
{
	return xcalloc(1, sizeof(struct prom_dcgm));
}

void prom_dcgm_free(struct prom_dcgm *d)
{
	if (!d)
		return;
	free(d->gpus);
	free(d->slot);
	free(d);
}

static void rehash(struct prom_dcgm *d)
{
	uint32_t ns = d->nslots ? d->nslots * 2 : 256;

	free(d->slot);
	d->slot = xcalloc(ns, sizeof *d->slot);
	d->nslots = ns;
	for (int32_t i = 0; i < d->n; i++) {
		uint32_t h = (uint32_t)d->gpus[i].hash & (ns - 1);

		while (d->slot[h])
			h = (h + 1) & (ns - 1);
		d->slot[h] = i + 1;
	}
}

/* The GPU (host, index), made if new. */
static struct dgpu *gpu_at(struct prom_dcgm *d, const char *host, size_t hlen, int32_t idx)
{
	uint64_t hash = hash_bytes(hash_bytes(HASH_INIT, host, hlen), &idx, sizeof idx);
	uint32_t h;
	struct dgpu *g;

	if ((uint32_t)(d->n + 1) * 2 > d->nslots)
		rehash(d);
	for (h = (uint32_t)hash & (d->nslots - 1); d->slot[h]; h = (h + 1) & (d->nslots - 1)) {
		g = &d->gpus[d->slot[h] - 1];
		if (g->hash == hash && g->g.gpu == idx && strlen(g->g.host) == hlen && !memcmp(g->g.host, host, hlen))
			return g;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->gpus = xrealloc(d->gpus, (size_t)d->cap * sizeof *d->gpus);
	}
	g = &d->gpus[d->n];
	memset(g, 0, sizeof *g);
	g->hash = hash;
	g->g.gpu = idx;
	memcpy(g->g.host, host, hlen);
	for (int f = 0; f < DF_COUNT; f++)
		g->v[f] = NAN;
	d->slot[h] = ++d->n;
	return g;
}

int prom_dcgm_add(struct prom_dcgm *d, const struct prom_rec *r)
{
	int f = field_of(r->name);
	const char *host = prom_label(r, "Hostname"), *gl = prom_label(r, "gpu"), *s;
	size_t hlen;
	int64_t idx;
	struct dgpu *g;

	if ((f < 0 && strncmp(r->name, "DCGM_FI_", 8)) || !gl || parse_i64(gl, strlen(gl), &idx) || idx < 0 || idx > 4095)
		return 0;
	if (!host)
		host = prom_label(r, "hostname");   /* some exporters spell it so */
	if (host) {
		hlen = strlen(host);
	} else {   /* older exporters: no Hostname; Prometheus's instance, without the port */
		const char *colon;

		if (!(host = prom_label(r, "instance")))
			return 0;
		colon = strrchr(host, ':');
		hlen = colon && !strchr(colon, ']') ? (size_t)(colon - host) : strlen(host);
	}
	if (!hlen || hlen >= sizeof g->g.host)
		return 0;
	g = gpu_at(d, host, hlen, (int32_t)idx);
	if (f >= 0)   /* other DCGM fields only make the GPU known */
		g->v[f] = r->value;
	if ((s = prom_label(r, "UUID")) && *s)
		parse_copy(g->g.uuid, sizeof g->g.uuid, s, strlen(s));
	if ((s = prom_label(r, "pci_bus_id")) && *s)
		parse_copy(g->g.pci, sizeof g->g.pci, s, strlen(s));
	if ((s = prom_label(r, "modelName")) && *s)
		parse_copy(g->g.model, sizeof g->g.model, s, strlen(s));
	if (r->has_time && r->time_ms > 0 && r->time_ms < INT64_MAX / 1000 && r->time_ms * 1000 > g->g.time)
		g->g.time = r->time_ms * 1000;
	return 1;
}

/* v as an int32 metric in [0, max] after scaling, else MET_UNKNOWN. */
static int32_t met(double v, double scale, double max)
{
	if (prom_dcgm_blank(v) || v < 0)
		return MET_UNKNOWN;
	v = v * scale;
	if (v > max)
		return MET_UNKNOWN;
	return (int32_t)llround(v);
}

static int64_t counter(double v)
{
	return prom_dcgm_blank(v) || v < 0 || v > 9.0e18 ? -1 : (int64_t)llround(v);
}

static void finish(struct dgpu *d)
{
	struct prom_gpu *g = &d->g;
	const double *v = d->v;
	double total = NAN;

	for (int m = 0; m < MET_COUNT; m++)
		g->m[m] = MET_UNKNOWN;
	g->m[MET_UTIL] = met(v[DF_UTIL], 1, 100);
	g->m[MET_MEM_USED] = met(v[DF_FB_USED], 1, INT32_MAX / 2);
	if (!prom_dcgm_blank(v[DF_FB_USED]) && !prom_dcgm_blank(v[DF_FB_FREE]))
		total = v[DF_FB_USED] + v[DF_FB_FREE] +
			(prom_dcgm_blank(v[DF_FB_RESERVED]) || v[DF_FB_RESERVED] < 0 ? 0 : v[DF_FB_RESERVED]);
	g->m[MET_MEM_TOTAL] = met(total, 1, INT32_MAX / 2);
	g->m[MET_TEMP] = met(v[DF_TEMP], 1, 1000);
	g->m[MET_POWER] = met(v[DF_POWER], 100, 100000000);
	g->m[MET_POWER_LIMIT] = met(v[DF_POWER_LIMIT], 100, 100000000);
	g->m[MET_SM_CLOCK] = met(v[DF_SM_CLOCK], 1, 100000);
	g->m[MET_ECC_UNCORR] = met(v[DF_ECC_DBE], 1, INT32_MAX - 1);
	if (!prom_dcgm_blank(v[DF_THROTTLE]) && v[DF_THROTTLE] >= 0 && v[DF_THROTTLE] < 1.8e19)
		g->m[MET_THROTTLE] = (int32_t)(uint32_t)((uint64_t)v[DF_THROTTLE] & 0xffffffffu);
	g->xid = met(v[DF_XID], 1, 100000);
	if (g->xid == MET_UNKNOWN)
		g->xid = -1;
	g->remap_uncorr = counter(v[DF_REMAP_UNCORR]);
	g->remap_corr = counter(v[DF_REMAP_CORR]);
	g->remap_failure = counter(v[DF_REMAP_FAIL]);
	g->nvlink_bw = counter(v[DF_NVLINK_BW]);
	g->pcie_replay = counter(v[DF_PCIE_REPLAY]);
}

int prom_dcgm_flush(struct prom_dcgm *d, prom_gpu_fn fn, void *ctx)
{
	int32_t n = d->n;

	for (int32_t i = 0; i < n; i++) {
		finish(&d->gpus[i]);
		if (fn)
			fn(ctx, &d->gpus[i].g);
	}
	d->n = 0;
	if (d->slot)
		memset(d->slot, 0, d->nslots * sizeof *d->slot);
	return n;
}

int prom_dcgm_map(const struct prom_rec *recs, size_t n, prom_gpu_fn fn, void *ctx)
{
	struct prom_dcgm *d = prom_dcgm_new();
	int count;

	for (size_t i = 0; i < n; i++)
		prom_dcgm_add(d, &recs[i]);
	count = prom_dcgm_flush(d, fn, ctx);
	prom_dcgm_free(d);
	return count;
}

/* ---- to events ---- */

void prom_dcgm_sample(const struct prom_gpu *g, int32_t node, struct ev_sample *out)
{
	out->node = node;
	out->gpu = g->gpu;
	memcpy(out->m, g->m, sizeof out->m);
}

void prom_dcgm_info(const struct prom_gpu *g, int32_t node, struct ev_gpu_info *out)
{
	out->node = node;
	out->gpu = g->gpu;
	out->uuid = g->uuid;
	out->pci = g->pci;
	out->name = g->model;   /* modelName, as nvidia-smi names it */
}

int32_t prom_dcgm_xid_new(int32_t prev, int32_t now)
{
	return prev >= 0 && now > 0 && now != prev ? now : 0;
}

void prom_dcgm_xid(const struct prom_gpu *g, int32_t node, int32_t code, char buf[40], struct ev_xid *out)
{
	unsigned dom, bus, dev;

	buf[0] = '\0';
	if (sscanf(g->pci, "%x:%x:%x", &dom, &bus, &dev) == 3)
		snprintf(buf, 40, "%04x:%02x:%02x", dom & 0xffff, bus & 0xff, dev & 0xff);
	out->node = node;
	out->gpu = g->gpu;
	out->code = code;
	out->pid = -1;
	out->pci = buf;
	out->text = "reported by dcgm-exporter (DCGM_FI_DEV_XID_ERRORS)";
}
