/*
 * trace.c - MYRIAD_TRACE (see trace.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace.h"

int trace_enabled = -1;
static FILE *trace_file;

void trace_line(const char *fmt, ...)
{
	va_list ap;

	if (trace_enabled < 0) {
		const char *path = getenv("MYRIAD_TRACE");

		trace_file = path && *path ? fopen(path, "a") : NULL;
		trace_enabled = trace_file != NULL;
	}
	if (!trace_file)
		return;
	fprintf(trace_file, "%lld ", (long long)wall_us());
	va_start(ap, fmt);
	vfprintf(trace_file, fmt, ap);
	va_end(ap);
	fputc('\n', trace_file);
	fflush(trace_file);
}
