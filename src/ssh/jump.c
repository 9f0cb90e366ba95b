/*
 * jump.c - reaching a host through a gateway (`host ... -via GW`), see
 * jump.h. The system ssh relays with -W; it is started here, not as
 * libssh's ProxyCommand, so that no shell parses anything (an argv, not a
 * command line), none of our descriptors leak into it, it is reaped, and
 * what it says on stderr ("Host key verification failed.") becomes the
 * host's failure reason instead of a bare timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jump.h"
#include "../util.h"

extern char **environ;

/* posix_spawn: no copy of a large console's page tables, and every
 * descriptor above stderr closed (libssh's sockets are not close-on-exec). */
static int spawn(pid_t *pid, int sock, int err, const char *const *argv)
{
	posix_spawn_file_actions_t fa;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sock, 0);
	posix_spawn_file_actions_adddup2(&fa, sock, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	rc = posix_spawnp(pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int jump_start(struct jump *j, const char *ssh_config, const char *via, const char *host, int port, char *why,
	       size_t cap)
{
	int sv[2], ep[2];
	char target[300], portbuf[16];
	const char *argv[12];
	int n = 0;

	memset(j, 0, sizeof *j);
	j->err_fd = -1;
	snprintf(portbuf, sizeof portbuf, "%d", port);
	snprintf(target, sizeof target, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, portbuf);
	argv[n++] = "ssh";
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	if (ssh_config) {
		argv[n++] = "-F";
		argv[n++] = ssh_config;
	}
	argv[n++] = "-W";
	argv[n++] = target;
	argv[n++] = "--";
	argv[n++] = via;
	argv[n] = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(ep, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(why, cap, "cannot reach gateway %s: %s", via, strerror(errno));
		return -1;
	}
	int rc = spawn(&j->pid, sv[1], ep[1], argv);

	close(sv[1]);
	close(ep[1]);
	if (rc) {
		snprintf(why, cap, "cannot run ssh for gateway %s: %s", via, strerror(rc));
		close(sv[0]);
		close(ep[0]);
		j->pid = 0;
		return -1;
	}
	j->err_fd = ep[0];
	return sv[0];
}

const char *jump_error(struct jump *j)
{
	char buf[1024];
	ssize_t r;

	while (j->err_fd >= 0 && (r = read(j->err_fd, buf, sizeof buf - 1)) > 0) {
		buf[r] = '\0';
		/* keep the last non-empty line, printable ASCII only */
		for (char *line = strtok(buf, "\r\n"); line; line = strtok(NULL, "\r\n")) {
			size_t k = 0;

			for (const char *p = line; *p && k < sizeof j->err - 1; p++)
				j->err[k++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
			if (k)
				j->err[k] = '\0';
		}
	}
	return j->err[0] ? j->err : NULL;
}

void jump_stop(struct jump *j)
{
	if (j->pid > 0) {
		if (waitpid(j->pid, NULL, WNOHANG) == 0) {
			kill(j->pid, SIGKILL);
			while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		j->pid = 0;
	}
	if (j->err_fd >= 0)
		close(j->err_fd);
	j->err_fd = -1;
	j->err[0] = '\0';
}
