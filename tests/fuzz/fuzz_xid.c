/*
 * fuzz_xid.c - libFuzzer target for the kernel Xid line parser: every line
 * of the input, then the whole input as one line. Checks that results stay
 * within their contract (bounded strings, code range, -1 with an error, a
 * time only from a stamp that has one), that a PCI address is in its one
 * form (lower-case hex "dddd:bb:dd", ".f" only on a switch), and that SXid
 * parts are consistent (sxid_continuation() only for Severity/Data lines).
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
	if (rc == 1 && r.pci[0]) {
		char again[24];
		size_t k = strlen(r.pci);

		if (pci_normalize(r.pci, k, 1, again) || strcmp(again, r.pci) || strspn(r.pci, "0123456789abcdef:.") != k ||
		    (!r.sxid && strchr(r.pci, '.')))
			__builtin_trap();
	}
	if (rc == 1 && (sxid_continuation(&r) != (r.sxid && (r.sxid_part == SXID_SEVERITY || r.sxid_part == SXID_DATA)) ||
			(!r.sxid && r.sxid_part != SXID_NONE) || r.link < -1 || r.fatal < -1 || r.fatal > 1))
		__builtin_trap();
	if (rc == 1 && r.time < 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_lines(data, size, one, NULL);
	one((const char *)data, size, NULL);
	return 0;
}
