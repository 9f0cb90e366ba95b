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

void kf_put_structs(struct sbuf *b, const void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch)
{
	if (!n) {
		for (size_t k = 0; k < size; k++)
			put_uvarint(b, 0);   /* an empty column */
		return;
	}
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

int kf_get_structs(struct rd *r, void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch)
{
	if (!n) {
		for (size_t k = 0; k < size; k++)
			if (kf_get_col(r, tmp, 0) < 0)
				return -1;
		return 0;
	}
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
