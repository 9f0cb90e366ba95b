/*
 * fuzz_facility.c - libFuzzer target for the facility meter's JSON parser
 * (facility_parse()): the whole input as one document, then each line as
 * one. A usable document gives numbers within their physical ranges or NAN,
 * never infinity; an unusable one gives -1, an error and all NAN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in(double v, double lo, double hi)
{
	return isnan(v) || (v >= lo && v <= hi);
}

static void one(const char *s, size_t n)
{
	struct ev_power p;
	char *err = NULL;
	int rc = facility_parse(s, n, &p, &err);

	if (rc == 0 && (err || !in(p.facility_kw, 0, 1e7) || !in(p.it_kw, 0, 1e7) || !in(p.cooling_kw, 0, 1e7) ||
			!in(p.outside_c, -100, 100) || !in(p.supply_c, -50, 150) || !in(p.return_c, -50, 150) ||
			!in(p.flow_lpm, 0, 1e7)))
		__builtin_trap();
	if (rc == -1 && (!err || !isnan(p.facility_kw) || !isnan(p.it_kw) || !isnan(p.supply_c) ||
			 !isnan(p.flow_lpm)))
		__builtin_trap();
	if (rc != 0 && rc != -1)
		__builtin_trap();
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	one(p, size);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		one(p, n);
		p += n + 1;
	}
	return 0;
}
