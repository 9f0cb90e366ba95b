/*
 * fuzz_ib.c - libFuzzer target for the InfiniBand sysfs counter parser:
 * every line of the input; kept records must name a known counter or the
 * port state, and the device name must stay bounded.
 */
#include <string.h>
#include "fuzz_lines.h"
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *s, size_t n, void *ctx)
{
	struct ib_rec r;
	const char *err = NULL;
	int rc = ib_parse_line(s, n, &r, &err);

	(void)ctx;
	if (rc < -1 || rc > 1 || (rc < 0 && !err) || strlen(r.dev) >= sizeof r.dev)
		__builtin_trap();
	if (rc == 1 && (r.counter < -1 || r.counter >= IBC_COUNT || r.port < 0 || r.port > 255 ||
			(r.counter == -1 && (r.state < 0 || r.state > IBP_ACTIVE))))
		__builtin_trap();
	(void)ib_dev_rail(r.dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_lines(data, size, one, NULL);
	return 0;
}
