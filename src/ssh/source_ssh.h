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

#endif
