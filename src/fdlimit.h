/*
 * fdlimit.h - room for file descriptors: a session, a socket, a pipe each
 * take one. The console, `myriad fanout` and `myriad-sim serve` work out how
 * many they need before they connect or listen, raise the soft
 * RLIMIT_NOFILE towards the hard limit, and refuse at once, saying how many
 * are needed and how to allow them, when the hard limit is too low.
 */
#ifndef MYRIAD_FDLIMIT_H
#define MYRIAD_FDLIMIT_H

#define FD_SPARE 64   /* logs, the loop, the resolver, Tcl, the terminal */

/* Descriptors this process has open now (/proc/self/fd; 3 if unknown). */
long fd_open_count(void);

/* Makes room for `more` descriptors beyond those open now (plus FD_SPARE):
 * raises the soft limit to the hard one if needed. 0; or -1 with *err
 * ("N file descriptors are needed but the limit is S (hard H): allow them
 * with `ulimit -n N` ..."), nothing changed. */
int fd_limit_room(long more, char **err);

#endif
