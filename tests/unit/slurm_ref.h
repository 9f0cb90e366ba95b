/*
 * slurm_ref.h - the jansson reference of the Slurm parsers (slurm_ref.c).
 */
#ifndef MYRIAD_TEST_SLURM_REF_H
#define MYRIAD_TEST_SLURM_REF_H

#include "probe/parse.h"

int ref_slurm_parse_nodes(const char *json, size_t len,
			  void (*fn)(void *ctx, const struct slurm_node_rec *r), void *ctx,
			  int *rejected, char **err);
int ref_slurm_parse_jobs(const char *json, size_t len,
			 void (*fn)(void *ctx, const struct slurm_job_rec *r), void *ctx,
			 int *rejected, char **err);

#endif
