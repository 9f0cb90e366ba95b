/*
 * fuzz_prom_api.c - libFuzzer target for the parser of Prometheus's
 * /api/v1/query answers (prom_parse_api) and the DCGM mapper behind it:
 * an unusable answer must say why, records must be within their contract.
 */
#include <stdlib.h>
#include <string.h>
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_gpu(void *ctx, const struct prom_gpu *g)
{
	(void)ctx;
	if (!g->host[0] || g->gpu < 0 || strlen(g->model) >= sizeof g->model || g->xid < -1)
		__builtin_trap();
}

static void on_rec(void *ctx, const struct prom_rec *r)
{
	if (strlen(r->name) >= sizeof r->name || r->nlabels > PROM_LABELS_MAX || !r->has_time)
		__builtin_trap();
	for (int i = 0; i < r->nlabels; i++)
		if (prom_label(r, prom_label_name(r, i)) != prom_label_value(r, i))
			__builtin_trap();
	prom_dcgm_add(ctx, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prom_dcgm *d = prom_dcgm_new();
	char *err = NULL;
	int bad = 0, n = prom_parse_api((const char *)data, size, on_rec, d, &bad, &err);

	if ((n < 0) != (err != NULL) || bad < 0)
		__builtin_trap();
	free(err);
	prom_dcgm_flush(d, on_gpu, NULL);
	prom_dcgm_free(d);
	return 0;
}
