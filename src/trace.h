/*
 * trace.h - time-stamped lines for measuring latency across the parts of
 * one run: an XID line parsed, an action sent to the backend, a command run
 * on a service's host, an action's end. Off unless MYRIAD_TRACE names a
 * file; then each line is "WALL_US WHAT ..." appended to it, flushed at
 * once (the fault-to-drain benchmark reads it while the console runs).
 */
#ifndef MYRIAD_TRACE_H
#define MYRIAD_TRACE_H

#include "util.h"

extern int trace_enabled;   /* -1 not looked at yet, 0 off, 1 on */

void trace_line(const char *fmt, ...) PRINTF_LIKE(1, 2);
#define trace(...)                                  \
	do {                                        \
		if (trace_enabled)                  \
			trace_line(__VA_ARGS__);    \
	} while (0)

#endif
