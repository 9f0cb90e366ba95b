/*
 * jump.h - a gateway on the way to a host (`host ... -via GW`): the system
 * ssh, run as `ssh -o BatchMode=yes [-F CONFIG] -W HOST:PORT -- GW` with a
 * socket as its stdin and stdout. GW is an ssh destination: an alias of the
 * ssh_config, user@host, or ssh://user@host:port. The gateway's own host key
 * is checked by that ssh (its known_hosts); the host's key is still checked
 * by myriad over the relayed connection.
 */
#ifndef MYRIAD_SSH_JUMP_H
#define MYRIAD_SSH_JUMP_H

#include <stddef.h>
#include <sys/types.h>

struct jump {
	pid_t pid;          /* 0: none */
	int err_fd;         /* the child's stderr, non-blocking; -1: none */
	char err[200];      /* its last non-empty line, made printable */
};

/* Starts the relay; returns our end of its socket (for SSH_OPTIONS_FD), or
 * -1 with the reason in why. */
int jump_start(struct jump *j, const char *ssh_config, const char *via, const char *host, int port, char *why,
	       size_t cap);

/* What the relay said on stderr so far (its last line), or NULL. */
const char *jump_error(struct jump *j);

/* Ends the relay if it still runs, reaps it, forgets its stderr. */
void jump_stop(struct jump *j);

#endif
