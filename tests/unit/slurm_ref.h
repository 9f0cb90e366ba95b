/*
 * slurm_ref.h - the jansson reference of the Slurm parsers (slurm_ref.c).
 */
#ifndef MYRIAD_TEST_SLURM_REF_H
#define MYRIAD_TEST_SLURM_REF_H

#include "probe/parse.h"
#include "util.h"

int ref_slurm_parse_nodes(const char *json, size_t len,
			  void (*fn)(void *ctx, const struct slurm_node_rec *r), void *ctx,
			  int *rejected, char **err);
int ref_slurm_parse_jobs(const char *json, size_t len,
			 void (*fn)(void *ctx, const struct slurm_job_rec *r), void *ctx,
			 int *rejected, char **err);

/* One reading of a document, to compare two readers: its status, the
 * records rejected, the error's words and the records as bytes. */
struct slurm_got {
	int rc, bad;
	char *err;
	struct sbuf recs;
};
void slurm_got_node(void *ctx, const struct slurm_node_rec *r);   /* ctx: the recs */
void slurm_got_job(void *ctx, const struct slurm_job_rec *r);
/* The reference's reading of the whole document (jobs: squeue, else sinfo). */
void slurm_got_ref(int jobs, const char *s, size_t n, struct slurm_got *g);
int slurm_got_same(const struct slurm_got *a, const struct slurm_got *b);
void slurm_got_free(struct slurm_got *g);

#endif
