/*
 * fuzz_ib.c - libFuzzer target for the InfiniBand sysfs counter parser:
 * every line of the input; kept records must name a known counter, the port
 * state or the link layer, an unknown counter ("N/A (no PMA)") must carry no
 * number, and the device name must stay bounded. The devices of the input
 * then get rails (ib_assign_rails()): each rail at most once, Ethernet
 * devices none, and with the input's first line as a site mapping, only
 * mapped devices.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_lines.h"
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXD 32

struct devs {
	char name[MAXD][32];
	const char *p[MAXD];
	int32_t ll[MAXD];
	int n;
};

static void one(const char *s, size_t n, void *ctx)
{
	struct devs *d = ctx;
	struct ib_rec r;
	const char *err = NULL;
	int rc = ib_parse_line(s, n, &r, &err);

	if (rc < -1 || rc > 1 || (rc < 0 && !err) || strlen(r.dev) >= sizeof r.dev)
		__builtin_trap();
	if (rc != 1)
		return;
	if (r.counter < IB_LINK_LAYER_FILE || r.counter >= IBC_COUNT || r.port < 0 || r.port > 255 ||
	    (r.counter == IB_STATE_FILE && (r.state < 0 || r.state > IBP_ACTIVE)) ||
	    (r.counter == IB_LINK_LAYER_FILE && r.link_layer != IBL_INFINIBAND && r.link_layer != IBL_ETHERNET) ||
	    (r.unknown && (r.value != 0 || r.counter < 0)))
		__builtin_trap();
	int i;

	for (i = 0; i < d->n && strcmp(d->name[i], r.dev); i++)
		;
	if (i == d->n && d->n < MAXD) {
		memcpy(d->name[d->n], r.dev, sizeof r.dev);
		d->p[d->n] = d->name[d->n];
		d->ll[d->n++] = IBL_UNKNOWN;
	}
	if (i < d->n && r.counter == IB_LINK_LAYER_FILE)
		d->ll[i] = r.link_layer;
}

static void check_rails(const struct devs *d, const char *const *map, int nmap)
{
	int32_t rail[MAXD];
	uint64_t used = 0;

	ib_assign_rails(d->p, d->ll, d->n, map, nmap, rail);
	for (int i = 0; i < d->n; i++) {
		if (rail[i] < -1 || rail[i] >= (nmap ? nmap : d->n))
			__builtin_trap();
		if (rail[i] < 0)
			continue;
		if (!nmap && d->ll[i] == IBL_ETHERNET)
			__builtin_trap();
		if (used & (1ull << rail[i]))
			__builtin_trap();
		used |= 1ull << rail[i];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct devs *d = calloc(1, sizeof *d);
	const char *map[MAXD];
	char *first;
	int nmap = 0;

	fuzz_lines(data, size, one, d);
	check_rails(d, NULL, 0);
	/* the first line's words as a mapping: distinct names only */
	p = (const char *)data;
	first = strndup(p, (size_t)((memchr(p, '\n', size) ? (const char *)memchr(p, '\n', size) : end) - p));
	for (char *save = NULL, *w = strtok_r(first, " ", &save); w && nmap < MAXD; w = strtok_r(NULL, " ", &save)) {
		int dup = 0;

		for (int k = 0; k < nmap; k++)
			dup |= !strcmp(map[k], w);
		if (!dup)
			map[nmap++] = w;
	}
	check_rails(d, map, nmap);
	(void)ib_dev_cmp(nmap ? map[0] : "", d->n ? d->name[0] : "");
	free(first);
	free(d);
	return 0;
}
