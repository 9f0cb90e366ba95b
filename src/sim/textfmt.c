/*
 * textfmt.c - the simulator's fast text helpers: integers, fixed-point
 * numbers and hex without snprintf (the per-step output is about 2 MB at
 * 10,240 GPUs), appended to an sbuf (sb_*) or written at a pointer into a
 * buffer the caller sized (tx_*, for the per-line output), the
 * "0-3,6" GPU index lists of Slurm's gres strings, and a small fold of sorted
 * gpuNNNN node indexes into Slurm's "gpu[0001-0004,0007]" form (the general
 * nodeset library lives in src/nodeset.c; the simulator does not depend on it).
 */
#include <string.h>
#include "sim_int.h"

static char *put_u64(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Digits counted first, then written in place from the last (a loop
 * copying from a scratch buffer would become a call to memcpy). */
char *tx_u64(char *p, uint64_t v)
{
	int n = 1;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	put_u64(p + n, v);
	return p + n;
}

void sb_u64(struct sbuf *b, uint64_t v)
{
	char tmp[24];

	sbuf_add(b, tmp, (size_t)(tx_u64(tmp, v) - tmp));
}

void sb_i64(struct sbuf *b, int64_t v)
{
	if (v < 0) {
		sbuf_addc(b, '-');
		sb_u64(b, (uint64_t)0 - (uint64_t)v);
		return;
	}
	sb_u64(b, (uint64_t)v);
}

/* v rounded half away from zero to 1 or 2 decimals: "631.95", "-3.5" */
char *tx_fixed(char *out, double v, int decimals)
{
	int64_t scale = decimals >= 2 ? 100 : 10, n, frac;

	if (v < 0) {
		*out++ = '-';
		v = -v;
	}
	if (v > 9e15)
		v = 9e15;
	n = (int64_t)(v * (double)scale + 0.5);
	out = tx_u64(out, (uint64_t)(n / scale));
	*out++ = '.';
	frac = n % scale;
	if (scale == 100)
		*out++ = (char)('0' + frac / 10);
	*out++ = (char)('0' + frac % 10);
	return out;
}

void sb_fixed(struct sbuf *b, double v, int decimals)
{
	char tmp[40];

	sbuf_add(b, tmp, (size_t)(tx_fixed(tmp, v, decimals) - tmp));
}

char *tx_hex16(char *p, uint64_t v)
{
	static const char hex[] = "0123456789ABCDEF";

	for (int i = 15; i >= 0; i--, v >>= 4)
		p[i] = hex[v & 15];
	return p + 16;
}

void sb_hex16(struct sbuf *b, uint64_t v)
{
	char tmp[16];

	sbuf_add(b, tmp, (size_t)(tx_hex16(tmp, v) - tmp));
}

void sb_idx_list(struct sbuf *b, uint8_t mask)
{
	int first = 1;

	for (int i = 0; i < 8; i++) {
		int j = i;

		if (!(mask >> i & 1))
			continue;
		while (j + 1 < 8 && (mask >> (j + 1) & 1))
			j++;
		if (!first)
			sbuf_addc(b, ',');
		first = 0;
		sb_u64(b, (uint64_t)i);
		if (j > i) {
			sbuf_addc(b, '-');
			sb_u64(b, (uint64_t)j);
		}
		i = j;
	}
}

/* Digits of node numbers: 4, wider only past 9,999 nodes (as topo_node_name). */
int sim_name_width(const struct sim *s)
{
	int width = 4;

	for (int32_t n = s->topo.nodes; n > 9999 && width < 10; n /= 10)
		width++;
	return width;
}

static void put_num(struct sbuf *b, int64_t v, int width)
{
	char tmp[24], *end = tmp + sizeof tmp, *p = put_u64(end, (uint64_t)v);

	while (end - p < width)
		*--p = '0';
	sbuf_add(b, p, (size_t)(end - p));
}

/* idx: sorted, distinct node indexes. "" for none, "gpu0007" for one. */
void sb_fold(struct sbuf *b, const struct sim *s, const int32_t *idx, int32_t n)
{
	int width = sim_name_width(s);

	if (n <= 0)
		return;
	SB_LIT(b, "gpu");
	if (n == 1) {
		put_num(b, idx[0] + 1, width);
		return;
	}
	sbuf_addc(b, '[');
	for (int32_t i = 0; i < n;) {
		int32_t j = i;

		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		if (i)
			sbuf_addc(b, ',');
		put_num(b, idx[i] + 1, width);
		if (j > i) {
			sbuf_addc(b, '-');
			put_num(b, idx[j] + 1, width);
		}
		i = j + 1;
	}
	sbuf_addc(b, ']');
}
