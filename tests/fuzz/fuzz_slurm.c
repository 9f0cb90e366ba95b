/*
 * fuzz_slurm.c - libFuzzer target for the JSON parsers: the whole input goes
 * to slurm_parse_nodes, slurm_parse_jobs and facility_parse. Records handed
 * to the callbacks must be within their contract.
 */
#include <stdlib.h>
#include <string.h>
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_node(void *ctx, const struct slurm_node_rec *r)
{
	(void)ctx;
	if (!r->name[0] || strlen(r->name) >= sizeof r->name || strlen(r->reason) >= sizeof r->reason ||
	    strlen(r->reason_who) >= sizeof r->reason_who || r->base < 0 || r->base >= NODE_BASE_COUNT ||
	    r->reason_time < 0)
		__builtin_trap();
}

static void on_job(void *ctx, const struct slurm_job_rec *r)
{
	(void)ctx;
	if (!r->id || strlen(r->name) >= sizeof r->name || strlen(r->user) >= sizeof r->user ||
	    strlen(r->partition) >= sizeof r->partition || strlen(r->nodes) >= sizeof r->nodes ||
	    r->state < 0 || r->state >= JOB_STATE_COUNT || r->submit_time < 0 || r->start_time < 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct ev_power p;
	char *err = NULL;
	int bad = 0;

	if (slurm_parse_nodes(s, size, on_node, NULL, &bad, &err) < 0 && !err)
		__builtin_trap();
	free(err);
	err = NULL;
	if (slurm_parse_jobs(s, size, on_job, NULL, &bad, &err) < 0 && !err)
		__builtin_trap();
	free(err);
	err = NULL;
	if (facility_parse(s, size, &p, &err) < 0 && !err)
		__builtin_trap();
	free(err);
	return 0;
}
