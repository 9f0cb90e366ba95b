/*
 * fuzz_xid.c - libFuzzer target for the kernel Xid line parser: every line
 * of the input, then the whole input as one line. Checks that results stay
 * within their contract (bounded strings, code range, -1 with an error).
 */
#include <string.h>
#include "fuzz_lines.h"
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *s, size_t n, void *ctx)
{
	struct xid_rec r;
	const char *err = NULL;
	int rc = xid_parse_line(s, n, &r, &err);

	(void)ctx;
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
	fuzz_lines(data, size, one, NULL);
	one((const char *)data, size, NULL);
	return 0;
}
