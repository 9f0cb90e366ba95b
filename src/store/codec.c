/*
 * codec.c - varints and the block codec for integer columns (see codec.h).
 */
#include <endian.h>
#include <string.h>
#include "codec.h"

enum { M_DELTA, M_DOD, M_FOR, M_COUNT };

void put_uvarint(struct sbuf *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	sbuf_add(b, (const char *)buf, n);
}

void put_svarint(struct sbuf *b, int64_t v)
{
	put_uvarint(b, zz_enc(v));
}

void put_bytes(struct sbuf *b, const void *p, size_t n)
{
	put_uvarint(b, n);
	if (n)
		sbuf_add(b, p, n);
}

uint64_t rd_uvarint(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->err = 1;
			return 0;
		}
		uint8_t c = *r->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->err = 1;
	return 0;
}

int64_t rd_svarint(struct rd *r)
{
	return zz_dec(rd_uvarint(r));
}

const uint8_t *rd_bytes(struct rd *r, size_t *n)
{
	uint64_t len = rd_uvarint(r);
	const uint8_t *p = r->p;

	if (r->err || len > (uint64_t)(r->end - r->p)) {
		r->err = 1;
		*n = 0;
		return NULL;
	}
	r->p += len;
	*n = (size_t)len;
	return p;
}

static unsigned bits_of(uint64_t x)
{
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

/* Appends n values of `width` bits, LSB first, padded to a byte. */
static void pack_bits(struct sbuf *b, const uint64_t *x, size_t n, unsigned width)
{
	uint64_t acc = 0;
	unsigned nacc = 0;
	uint8_t out[8];

	if (!width)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = width < 64 ? x[i] & ((1ull << width) - 1) : x[i];

		acc |= v << nacc;
		if (nacc + width >= 64) {
			for (int k = 0; k < 8; k++)
				out[k] = (uint8_t)(acc >> (8 * k));
			sbuf_add(b, (const char *)out, 8);
			acc = nacc ? v >> (64 - nacc) : 0;
			nacc = nacc + width - 64;
		} else {
			nacc += width;
		}
	}
	for (unsigned k = 0; k * 8 < nacc; k++)
		out[k] = (uint8_t)(acc >> (8 * k));
	sbuf_add(b, (const char *)out, (nacc + 7) / 8);
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return le64toh(v);
}

/* Reads n values of `width` bits from the reader into x. */
static int unpack_bits(struct rd *r, uint64_t *x, size_t n, unsigned width)
{
	size_t nbytes = (n * width + 7) / 8;
	uint8_t buf[CODEC_BLOCK * 8 + 16];
	const uint8_t *src = r->p;
	uint64_t mask = width < 64 ? (1ull << width) - 1 : ~0ull;

	if (!width) {
		memset(x, 0, n * sizeof *x);
		return 0;
	}
	if (nbytes > (size_t)(r->end - r->p) || nbytes > sizeof buf - 16) {
		r->err = 1;
		return -1;
	}
	if ((size_t)(r->end - r->p) < nbytes + 16) {   /* near the end: a padded copy */
		memcpy(buf, r->p, nbytes);
		memset(buf + nbytes, 0, 16);
		src = buf;
	}
	r->p += nbytes;
	for (size_t i = 0; i < n; i++) {
		size_t bit = i * width, byte = bit >> 3;
		unsigned shift = bit & 7;
		uint64_t v = load64(src + byte) >> shift;

		if (shift && shift + width > 64)
			v |= (uint64_t)src[byte + 8] << (64 - shift);
		x[i] = v & mask;
	}
	return 0;
}

/* The values of a block [i0, i0+n) in one mode; returns the width. */
static unsigned block_values(const int64_t *v, size_t i0, size_t n, int mode, uint64_t *x, int64_t *base)
{
	uint64_t all = 0;

	if (mode == M_FOR) {
		int64_t lo = v[i0];

		for (size_t i = 1; i < n; i++)
			lo = v[i0 + i] < lo ? v[i0 + i] : lo;
		*base = lo;
		for (size_t i = 0; i < n; i++)
			all |= x[i] = (uint64_t)v[i0 + i] - (uint64_t)lo;
		return bits_of(all);
	}
	uint64_t pd = mode == M_DOD && i0 >= 2 ? (uint64_t)v[i0 - 1] - (uint64_t)v[i0 - 2] : 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)v[i0 + i] - (uint64_t)v[i0 + i - 1];

		all |= x[i] = zz_enc((int64_t)(mode == M_DOD ? d - pd : d));
		pd = d;
	}
	return bits_of(all);
}

static size_t uvarint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void encode_block(struct sbuf *b, const int64_t *v, size_t i0, size_t n, unsigned modes)
{
	uint64_t x[CODEC_BLOCK], best_x[CODEC_BLOCK];
	int best = -1;
	unsigned best_w = 0;
	size_t best_cost = SIZE_MAX;
	int64_t base = 0, best_base = 0;

	for (int m = 0; m < M_COUNT; m++) {
		if (!(modes & (1u << m)))
			continue;
		unsigned w = block_values(v, i0, n, m, x, &base);
		size_t cost = (n * w + 7) / 8;

		if (m == M_FOR)
			cost += uvarint_len(zz_enc((int64_t)((uint64_t)base - (uint64_t)v[i0 - 1])));
		if (cost < best_cost) {
			best_cost = cost;
			best = m;
			best_w = w;
			best_base = base;
			memcpy(best_x, x, n * sizeof *x);
		}
	}
	sbuf_addc(b, (char)(uint8_t)(best * 65 + (int)best_w));
	if (best == M_FOR)
		put_svarint(b, (int64_t)((uint64_t)best_base - (uint64_t)v[i0 - 1]));
	pack_bits(b, best_x, n, best_w);
}

void col_encode_opts(struct sbuf *b, const int64_t *v, size_t n, size_t block, unsigned modes)
{
	if (!n)
		return;
	if (!block || block > CODEC_BLOCK)
		block = CODEC_BLOCK;
	if (!(modes & 7))
		modes = COL_DELTA;
	put_svarint(b, v[0]);
	size_t same = 1;

	while (same < n && v[same] == v[0])
		same++;
	if (n > 1 && same == n) {   /* a constant column: one byte for all the rest */
		sbuf_addc(b, (char)CODEC_ALL_SAME);
		return;
	}
	for (size_t i = 1; i < n; i += block)
		encode_block(b, v, i, MIN(block, n - i), modes);
}

void col_encode(struct sbuf *b, const int64_t *v, size_t n)
{
	col_encode_opts(b, v, n, CODEC_BLOCK, COL_DELTA | COL_DOD | COL_FOR);
}

int col_decode(struct rd *r, int64_t *v, size_t n)
{
	uint64_t x[CODEC_BLOCK];

	if (!n)
		return 0;
	v[0] = rd_svarint(r);
	for (size_t i = 1; i < n && !r->err; i += CODEC_BLOCK) {
		size_t k = MIN((size_t)CODEC_BLOCK, n - i);
		unsigned h, mode, w;

		if (r->p >= r->end) {
			r->err = 1;
			break;
		}
		h = *r->p++;
		if (h == CODEC_ALL_SAME && i == 1) {
			for (size_t j = 1; j < n; j++)
				v[j] = v[0];
			break;
		}
		mode = h / 65;
		w = h % 65;
		if (mode >= M_COUNT) {
			r->err = 1;
			break;
		}
		uint64_t base = mode == M_FOR ? (uint64_t)v[i - 1] + (uint64_t)rd_svarint(r) : 0;

		if (unpack_bits(r, x, k, w) < 0)
			break;
		uint64_t pd = i >= 2 ? (uint64_t)v[i - 1] - (uint64_t)v[i - 2] : 0;

		for (size_t j = 0; j < k; j++) {
			uint64_t prev = (uint64_t)v[i + j - 1], d;

			if (mode == M_FOR) {
				v[i + j] = (int64_t)(base + x[j]);
				continue;
			}
			d = mode == M_DOD ? pd + (uint64_t)zz_dec(x[j]) : (uint64_t)zz_dec(x[j]);
			v[i + j] = (int64_t)(prev + d);
			pd = d;
		}
	}
	return r->err ? -1 : 0;
}

int col_skip(struct rd *r, size_t n)
{
	if (!n)
		return 0;
	rd_svarint(r);
	for (size_t i = 1; i < n && !r->err; i += CODEC_BLOCK) {
		size_t k = MIN((size_t)CODEC_BLOCK, n - i), bytes;
		unsigned h;

		if (r->p >= r->end) {
			r->err = 1;
			break;
		}
		h = *r->p++;
		if (h == CODEC_ALL_SAME && i == 1)
			break;
		if (h / 65 >= M_COUNT) {
			r->err = 1;
			break;
		}
		if (h / 65 == M_FOR)
			rd_svarint(r);
		bytes = (k * (h % 65) + 7) / 8;
		if (bytes > (size_t)(r->end - r->p)) {
			r->err = 1;
			break;
		}
		r->p += bytes;
	}
	return r->err ? -1 : 0;
}

void col_encode_varint(struct sbuf *b, const int64_t *v, size_t n)
{
	if (!n)
		return;
	put_svarint(b, v[0]);
	for (size_t i = 1; i < n; i++)
		put_uvarint(b, zz_enc((int64_t)((uint64_t)v[i] - (uint64_t)v[i - 1])));
}

void col_encode_varint_rle(struct sbuf *b, const int64_t *v, size_t n)
{
	if (!n)
		return;
	put_svarint(b, v[0]);
	for (size_t i = 1; i < n;) {
		size_t run = 0;

		while (i + run < n && v[i + run] == v[i + run - 1])
			run++;
		if (run) {
			put_uvarint(b, 0);
			put_uvarint(b, run);
			i += run;
			continue;
		}
		put_uvarint(b, zz_enc((int64_t)((uint64_t)v[i] - (uint64_t)v[i - 1])));
		i++;
	}
}
