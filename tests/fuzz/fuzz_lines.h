/*
 * fuzz_lines.h - the line splitting the libFuzzer targets share (included
 * by tests/fuzz/fuzz_*.c): fuzz_lines() calls fn(line, n, ctx) for each
 * '\n'-separated line of the input, empty ones included, the last one also
 * without a newline after it. Each line is handed over in a buffer of its
 * own, exactly n + 1 bytes with a NUL at n, so that AddressSanitizer stops a
 * parser that reads past the length it was given, and parsers that want a
 * C string (known_hosts) get one.
 */
#ifndef MYRIAD_FUZZ_LINES_H
#define MYRIAD_FUZZ_LINES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void fuzz_lines(const uint8_t *data, size_t size, void (*fn)(const char *line, size_t n, void *ctx),
			      void *ctx)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(n + 1);

		if (!line)
			abort();
		memcpy(line, p, n);
		line[n] = '\0';
		fn(line, n, ctx);
		free(line);
		p += n + 1;
	}
}

#endif
