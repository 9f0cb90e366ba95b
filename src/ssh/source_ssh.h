/*
 * source_ssh.h - the "ssh" source class: the inventory's hosts and services
 * over SSH (source_ssh.c), and the start-up call main.c makes for -c FILE.
 */
#ifndef MYRIAD_SSH_SOURCE_SSH_H
#define MYRIAD_SSH_SOURCE_SSH_H

#include "../myriad.h"

extern const struct source_ops ssh_source_ops;

/* For -c FILE: loads the configuration into the inventory and, if it names
 * hosts or services, starts the "ssh" source. *started tells whether it did
 * (if not, the caller runs the embedded simulator). 0, or -1 with *err. */
int ssh_configure(struct myriad *app, const char *config, int *started, char **err);

/* A command on a service's host (the Slurm head node), on the session the
 * source keeps to it: for backends. While that session is being set up the
 * command waits for it. done(ctx, status, out, err, why) comes once, later,
 * from the loop: status is the exit status (0-255); -1 when the command
 * ended without one (why: "connection lost", ...); -2 when it never ran
 * (why: the session failed while it waited). NULL when the host is down
 * (refused, auth failed, backing off), with *why (malloc'd) saying so;
 * done is then never called. */
struct svc_run;
typedef void (*svc_run_fn)(void *ctx, int status, const char *out, const char *err, const char *why);
struct svc_run *ssh_service_run(struct myriad *app, const char *service, const char *command, svc_run_fn done,
				void *ctx, char **why);
/* Stops caring: the remote command gets TERM, done is not called. */
void ssh_service_run_cancel(struct svc_run *r);
/* Polls the service now (sinfo and squeue for Slurm), so that the effect of
 * an action shows at once, not at the next period. */
void ssh_service_poll_now(struct myriad *app, const char *service);
/* The session the source keeps to name (a node, or a service's host) on
 * loop l, if it is up now; NULL otherwise. A fan-out on the console's loop
 * runs its command there as an exec channel instead of logging in again. */
struct ssh_host;
struct loop;
struct ssh_host *ssh_live_session(struct myriad *app, const struct loop *l, const char *name);
/* A stream to host:port through the session to via (pool_tunnel). */
int ssh_tunnel(struct myriad *app, const char *via, const char *host, int port, char **err);

#endif
