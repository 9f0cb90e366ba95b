/*
 * net.c - a non-blocking TCP connection for plugins that talk to a service
 * directly on a trusted network (plugin.h: connect without via). The
 * address must be numeric (or localhost): a name lookup would block the
 * one loop; a name is reached through an SSH session (via) instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "plugin_int.h"

int tcp_connect(const char *host, int port, char **err)
{
	struct addrinfo hints = {0}, *ai = NULL;
	char svc[16];
	int fd, rc;

	if (!strcmp(host, "localhost"))
		host = "127.0.0.1";
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(svc, sizeof svc, "%d", port);
	if ((rc = getaddrinfo(host, svc, &hints, &ai)) != 0) {
		*err = xasprintf("%s: not a numeric address (%s): reach a named host through an SSH session (-via)", host,
				 gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)) {
		*err = xasprintf("%s:%d: %s", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}
