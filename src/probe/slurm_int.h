/*
 * slurm_int.h - what the Slurm document reader (slurm_doc.c) takes from the
 * record parsers (slurm.c): one element of the document's array, read into
 * a jtape, to a record.
 */
#ifndef MYRIAD_PROBE_SLURM_INT_H
#define MYRIAD_PROBE_SLURM_INT_H

#include "jtape.h"
#include "parse.h"

/* A node of the "nodes" array (22.05, scontrol, slurmrestd). 0, or -1 if
 * the record is malformed. */
int slurm_node_of(struct jtape *t, int o, struct slurm_node_rec *r);
/* A group of the "sinfo" array (23.02+): the group's state into r (its
 * name left empty) and its node names' array into *names. 0 or -1. */
int slurm_sinfo_group(struct jtape *t, int o, struct slurm_node_rec *r, int *names);
/* A job of the "jobs" array. 0 or -1. */
int slurm_job_of(struct jtape *t, int o, struct slurm_job_rec *r);

#endif
