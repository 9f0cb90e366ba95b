/*
 * fuzz_nvsmi.c - libFuzzer target for the nvidia-smi CSV parser: each line
 * of the input is tried as a header (which then sets the layout) and as a
 * data line under both the current and the default layout; the first line
 * is also tried as a --query-gpu list. Invariants are checked, not just
 * the absence of crashes: bounded strings, ranges, and layouts whose known
 * columns are distinct, in order and inside the column count (a header may
 * have any number of columns).
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_lines.h"
#include "probe/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct nvsmi_rec *r, int rc)
{
	if (strlen(r->uuid) >= sizeof r->uuid || strlen(r->pci) >= sizeof r->pci || strlen(r->name) >= sizeof r->name)
		__builtin_trap();
	if (rc == 0 && (r->index < -1 || r->index > 63))
		__builtin_trap();
	if (rc == 0 && r->m[MET_UTIL] != MET_UNKNOWN && (r->m[MET_UTIL] < 0 || r->m[MET_UTIL] > 100))
		__builtin_trap();
}

static void check_layout(const struct nvsmi_layout *l)
{
	unsigned seen = 0;

	if (l->ncols < 0 || l->ncols > NVSMI_MAX_COLS || l->nknown < 0 || l->nknown > NVC_OTHER)
		__builtin_trap();
	for (int i = 0; i < l->nknown; i++) {
		if (l->col[i] >= NVC_OTHER || (seen & (1u << l->col[i])) || l->pos[i] >= l->ncols ||
		    (i && l->pos[i] <= l->pos[i - 1]))
			__builtin_trap();
		seen |= 1u << l->col[i];
	}
}

struct layouts {
	struct nvsmi_layout cur, def;
};

static void one_line(const char *s, size_t n, void *ctx)
{
	struct layouts *l = ctx;
	struct nvsmi_layout *cur = &l->cur;
	const struct nvsmi_layout *def = &l->def;
	struct nvsmi_rec r;
	const char *err = NULL;
	int rc;

	if (nvsmi_parse_header(s, n, cur)) {
		check_layout(cur);
		return;
	}
	rc = nvsmi_parse_line(s, n, cur, &r, &err);
	if (rc < 0 && !err)
		__builtin_trap();
	check(&r, rc);
	rc = nvsmi_parse_line(s, n, def, &r, &err);
	check(&r, rc);
	(void)nvsmi_count_fields(s, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct layouts l;
	struct nvsmi_layout q;
	const char *nl = memchr(p, '\n', size);
	size_t first = nl ? (size_t)(nl - p) : size;
	char *query = malloc(first + 1);

	memcpy(query, p, first);
	query[first] = '\0';
	nvsmi_layout_from_query(&q, query);
	free(query);
	check_layout(&q);
	nvsmi_layout_from_query(&l.def, NVSMI_DEFAULT_QUERY);
	l.cur = l.def;
	fuzz_lines(data, size, one_line, &l);
	return 0;
}
