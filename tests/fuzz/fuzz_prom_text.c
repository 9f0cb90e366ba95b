/*
 * fuzz_prom_text.c - libFuzzer target for the Prometheus text format: the
 * input goes to prom_parse_text as a body and, line by line, to
 * prom_parse_line; every sample is also fed to the DCGM mapper. Records
 * must be within their contract (NUL-terminated name and labels, offsets in
 * the record, a known label lookup that finds itself).
 */
#include <stdlib.h>
#include <string.h>
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct prom_rec *r)
{
	if (strlen(r->name) >= sizeof r->name || r->nlabels < 0 || r->nlabels > PROM_LABELS_MAX)
		__builtin_trap();
	for (int i = 0; i < r->nlabels; i++) {
		const char *n = prom_label_name(r, i), *v = prom_label_value(r, i);

		if (r->lab[i].name >= sizeof r->text || r->lab[i].value >= sizeof r->text || !n[0] ||
		    strlen(v) >= sizeof r->text || prom_label(r, n) != v)
			__builtin_trap();
	}
}

static void on_gpu(void *ctx, const struct prom_gpu *g)
{
	(void)ctx;
	if (!g->host[0] || g->gpu < 0 || strlen(g->uuid) >= sizeof g->uuid || strlen(g->pci) >= sizeof g->pci)
		__builtin_trap();
	for (int m = 0; m < MET_COUNT; m++)
		if (g->m[m] != MET_UNKNOWN && g->m[m] < 0 && m != MET_THROTTLE)
			__builtin_trap();
}

static void on_rec(void *ctx, const struct prom_rec *r)
{
	check(r);
	prom_dcgm_add(ctx, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct prom_dcgm *d = prom_dcgm_new();
	struct prom_rec *r = malloc(sizeof *r);
	const char *err;
	int bad = 0, n = prom_parse_text(s, size, on_rec, d, &bad, NULL);

	if (n < 0 || bad < 0)
		__builtin_trap();
	prom_dcgm_flush(d, on_gpu, NULL);
	prom_dcgm_free(d);
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(s + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (s + i)) : size - i;
		int rc = prom_parse_line(s + i, len, r, &err);

		if (rc == 1)
			check(r);
		else if (rc == -1 && !err)
			__builtin_trap();
		i += len + 1;
	}
	free(r);
	return 0;
}
