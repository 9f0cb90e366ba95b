/*
 * fdlimit.c - room for file descriptors (see fdlimit.h).
 */
#include <dirent.h>
#include <sys/resource.h>
#include "fdlimit.h"
#include "util.h"

long fd_open_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;

	if (!d)
		return 3;
	while (readdir(d))
		n++;
	closedir(d);
	return MAX(n - 3, 3);   /* ".", ".." and the directory's own descriptor */
}

static int set_soft(struct rlimit *rl, rlim_t soft)
{
	struct rlimit want = {soft, rl->rlim_max};

	if (setrlimit(RLIMIT_NOFILE, &want) < 0)
		return -1;
	rl->rlim_cur = soft;
	return 0;
}

int fd_limit_room(long more, char **err)
{
	long need = fd_open_count() + MAX(more, 0) + FD_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;   /* nothing known: let the sockets tell */
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)need && rl.rlim_max > rl.rlim_cur)
		if (set_soft(&rl, rl.rlim_max) < 0 && rl.rlim_max >= (rlim_t)need)
			set_soft(&rl, (rlim_t)need);   /* the kernel's nr_open is below the hard limit */
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)need)
		return 0;
	*err = xasprintf("%ld file descriptors are needed but the limit is %lu (hard %lu): allow them with `ulimit -n %ld` "
			 "in the shell that starts it (above the hard limit: as root, LimitNOFILE=%ld in a systemd unit, "
			 "or nofile in /etc/security/limits.conf)",
			 need, (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max, need, need);
	return -1;
}
