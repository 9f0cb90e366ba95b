/*
 * fuzz_xid.c - libFuzzer target for the kernel Xid line parser: every line
 * of the input, then the whole input as one line. Checks that results stay
 * within their contract (bounded strings, code range, -1 with an error).
 */
#include <string.h>
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *s, size_t n)
{
	struct xid_rec r;
	const char *err = NULL;
	int rc = xid_parse_line(s, n, &r, &err);

	if (rc < -1 || rc > 1 || (rc < 0 && !err))
		__builtin_trap();
	if (strlen(r.pci) >= sizeof r.pci || strlen(r.host) >= sizeof r.host ||
	    strlen(r.name) >= sizeof r.name || strlen(r.text) >= sizeof r.text)
		__builtin_trap();
	if (rc == 1 && (r.code < 0 || r.code > 100000 || r.pid < -1 || (r.sxid != 0 && r.sxid != 1)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		one(p, n);
		p += n + 1;
	}
	one((const char *)data, size);
	return 0;
}
