/*
 * slurm.h - the Slurm backend: actions become the operator's own Slurm
 * commands, run on the head node over the SSH session the ssh source keeps
 * to it (`service slurm -host head01 ...` in the configuration):
 *
 *   drain      scontrol update NodeName=SET State=DRAIN Reason=TEXT
 *   resume     scontrol update NodeName=SET State=RESUME
 *   reroute    scontrol requeue JOB, then, once it is pending again,
 *              scontrol update JobId=JOB ExcNodeList=SET StartTime=now
 *   checkpoint scancel --full --signal=SIG JOB
 *
 * Every word is quoted for the remote shell. What Slurm says on stderr is
 * the action's detail; what it did shows when sinfo and squeue are read
 * again, at once after every action.
 */
#ifndef MYRIAD_ACTION_SLURM_H
#define MYRIAD_ACTION_SLURM_H

#include "backend.h"
#include "../ssh/inventory.h"

extern const struct backend_ops slurm_backend_ops;

/* The command line that runs argv (a Slurm command and its arguments) on
 * the head node as the service says (-sudo, -conf, -bin), every word
 * quoted. malloc'd. */
char *slurm_command(const struct inv_service *svc, int argc, const char *const *argv);
/* Makes the Slurm backend of service svc app's backend (the ssh source
 * calls it when the configuration names `service slurm`). */
void slurm_backend_start(struct myriad *app, const struct inv_service *svc);

#endif
