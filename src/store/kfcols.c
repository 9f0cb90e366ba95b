/*
 * kfcols.c - a keyframe's columns (keyframe.h): an integer column (flag 1
 * and the value when every value is the same, else flag 0 and the block
 * codec), and an array of structs as one byte column per byte of the struct.
 *
 * The struct arrays are the bulk of a keyframe at 102,400 GPUs: 102,400 IB
 * ports of 176 bytes, the GPUs' UUIDs, PCI ids and names, 12,800 nodes of
 * 400 bytes. Gathering byte k of every element walks the whole array once
 * per byte of the struct; instead the array is transposed into byte columns
 * a tile of elements at a time, and a column whose bytes are all the same
 * (most of them) is found with one memcmp. The bytes written are the same.
 */
#include <string.h>
#include "codec.h"
#include "keyframe.h"

/* scratch holds at least n bytes (kept from keyframe to keyframe). */
static uint8_t *room(struct sbuf *scratch, size_t n)
{
	if (scratch->cap < n + 1) {
		scratch->s = xrealloc(scratch->s, n + 1);
		scratch->cap = n + 1;
	}
	scratch->len = 0;
	return (uint8_t *)scratch->s;
}

void kf_put_col(struct sbuf *b, const int64_t *v, size_t n)
{
	size_t i = 1;

	while (i < n && v[i] == v[0])
		i++;
	if (n && i == n) {   /* constant: flag 1 and the value */
		put_uvarint(b, 1);
		put_svarint(b, v[0]);
		return;
	}
	put_uvarint(b, 0);
	col_encode(b, v, n);
}

int kf_get_col(struct rd *r, int64_t *v, size_t n)
{
	uint64_t flag = rd_uvarint(r);

	if (flag == 1) {
		int64_t x = rd_svarint(r);

		for (size_t i = 0; i < n; i++)
			v[i] = x;
		return r->err ? -1 : 0;
	}
	return flag == 0 ? col_decode(r, v, n) : -1;
}

#define TILE 64                   /* elements transposed at a time */

/* Byte columns cols_of[0..nc) of n structs into cols (column c at c * n),
 * a tile of elements at a time. */
static void transpose_some(const uint8_t *p, size_t n, size_t size, const size_t *cols_of, size_t nc, uint8_t *cols)
{
	for (size_t i0 = 0; i0 < n; i0 += TILE) {
		size_t i1 = MIN(n, i0 + TILE);

		for (size_t c = 0; c < nc; c++) {
			uint8_t *dst = cols + c * n;
			const uint8_t *e = p + cols_of[c];

			for (size_t i = i0; i < i1; i++)
				dst[i] = e[i * size];
		}
	}
}

/* Between n structs of `size` bytes at p and their byte columns
 * (cols[k * n + i] = byte k of element i), a tile of elements at a time:
 * the tile stays in the cache while each of its bytes is copied. */
static void transpose(uint8_t *p, size_t n, size_t size, uint8_t *cols, int to_cols)
{
	for (size_t i0 = 0; i0 < n; i0 += TILE) {
		size_t i1 = MIN(n, i0 + TILE);

		for (size_t k = 0; k < size; k++) {
			uint8_t *c = cols + k * n, *e = p + k;

			if (to_cols)
				for (size_t i = i0; i < i1; i++)
					c[i] = e[i * size];
			else
				for (size_t i = i0; i < i1; i++)
					e[i * size] = c[i];
		}
	}
}

static int kf_get_structs_all(struct rd *r, void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch)
{
	uint8_t *cols = room(scratch, n * size);

	for (size_t k = 0; k < size; k++) {
		uint8_t *c = cols + k * n;
		uint64_t flag = rd_uvarint(r);

		if (flag == 1) {
			memset(c, (uint8_t)rd_svarint(r), n);
		} else if (flag == 0 && col_decode(r, tmp, n) == 0) {
			for (size_t i = 0; i < n; i++)
				c[i] = (uint8_t)tmp[i];
		} else {
			return -1;
		}
		if (r->err)
			return -1;
	}
	transpose(base, n, size, cols, 0);
	return 0;
}

static void kf_put_structs_all(struct sbuf *b, const void *base, size_t n, size_t size, int64_t *tmp,
			       struct sbuf *scratch)
{
	uint8_t *cols = room(scratch, n * size);

	transpose((uint8_t *)(uintptr_t)base, n, size, cols, 1);
	for (size_t k = 0; k < size; k++) {
		const uint8_t *c = cols + k * n;

		if (!memcmp(c, c + 1, n - 1)) {
			put_uvarint(b, 1);
			put_svarint(b, c[0]);
			continue;
		}
		for (size_t i = 0; i < n; i++)
			tmp[i] = c[i];
		put_uvarint(b, 0);
		col_encode(b, tmp, n);
	}
}

/* Which byte columns differ from element 0 somewhere: diff[k] != 0. One
 * sequential pass of 64-bit XORs (the byte columns of IB ports, nodes and
 * GPU identities are mostly constant). */
static void differing(const uint8_t *p, size_t n, size_t size, uint8_t *diff)
{
	size_t words = size / 8;
	uint64_t acc[64] = {0}, first[64];

	if (words > 64)
		words = 64;
	memset(diff, 0, size);
	memcpy(first, p, words * 8);
	for (size_t i = 1; i < n; i++) {
		const uint8_t *e = p + i * size;

		for (size_t w = 0; w < words; w++) {
			uint64_t x;

			memcpy(&x, e + w * 8, 8);
			acc[w] |= x ^ first[w];
		}
		for (size_t k = words * 8; k < size; k++)
			diff[k] |= e[k] ^ p[k];
	}
	for (size_t w = 0; w < words; w++)
		for (int b = 0; b < 8; b++)
			diff[w * 8 + (size_t)b] = ((const uint8_t *)&acc[w])[b];
}

void kf_put_structs(struct sbuf *b, const void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch)
{
	const uint8_t *p = base;
	uint8_t diff[512];
	size_t *cols_of = NULL, nc = 0;

	if (!n) {
		for (size_t k = 0; k < size; k++)
			put_uvarint(b, 0);   /* an empty column */
		return;
	}
	if (size > sizeof diff) {
		kf_put_structs_all(b, base, n, size, tmp, scratch);
		return;
	}
	differing(p, n, size, diff);
	cols_of = xmalloc(sizeof *cols_of * size);
	for (size_t k = 0; k < size; k++)
		if (diff[k])
			cols_of[nc++] = k;
	uint8_t *cols = room(scratch, n * (nc ? nc : 1));

	transpose_some(p, n, size, cols_of, nc, cols);
	for (size_t k = 0, c = 0; k < size; k++) {
		if (!diff[k]) {   /* every element has the byte of the first */
			put_uvarint(b, 1);
			put_svarint(b, p[k]);
			continue;
		}
		const uint8_t *col = cols + c++ * n;

		for (size_t i = 0; i < n; i++)
			tmp[i] = col[i];
		put_uvarint(b, 0);
		col_encode(b, tmp, n);
	}
	free(cols_of);
}

/* Byte columns cols_of[0..nc) (column c at c * n) into n structs. */
static void scatter_some(uint8_t *p, size_t n, size_t size, const size_t *cols_of, size_t nc, const uint8_t *cols)
{
	for (size_t i0 = 0; i0 < n; i0 += TILE) {
		size_t i1 = MIN(n, i0 + TILE);

		for (size_t c = 0; c < nc; c++) {
			const uint8_t *src = cols + c * n;
			uint8_t *e = p + cols_of[c];

			for (size_t i = i0; i < i1; i++)
				e[i * size] = src[i];
		}
	}
}

/* The constant columns go into a template copied into every element, the
 * others (decoded into scratch) are then scattered over it. */
int kf_get_structs(struct rd *r, void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch)
{
	uint8_t one[512], *cols;
	size_t cols_of[512], nc = 0;

	if (n && size > sizeof one)
		return kf_get_structs_all(r, base, n, size, tmp, scratch);
	if (!n) {
		for (size_t k = 0; k < size; k++)
			if (kf_get_col(r, tmp, 0) < 0)
				return -1;
		return 0;
	}
	cols = room(scratch, n * size);
	for (size_t k = 0; k < size; k++) {
		uint64_t flag = rd_uvarint(r);

		if (flag == 1) {
			one[k] = (uint8_t)rd_svarint(r);
		} else if (flag == 0 && col_decode(r, tmp, n) == 0) {
			uint8_t *c = cols + nc * n;

			for (size_t i = 0; i < n; i++)
				c[i] = (uint8_t)tmp[i];
			one[k] = 0;
			cols_of[nc++] = k;
		} else {
			return -1;
		}
		if (r->err)
			return -1;
	}
	for (size_t i = 0; i < n; i++)
		memcpy((uint8_t *)base + i * size, one, size);
	scatter_some(base, n, size, cols_of, nc, cols);
	return 0;
}
