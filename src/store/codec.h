/*
 * codec.h - integer codecs of the log: LEB128 varints, zigzag, a bounded
 * reader, and the block codec that packs a column of int64 values (one
 * metric of one GPU over a chunk of ticks, or a byte column of a keyframe).
 *
 * The block codec (chosen by measurement, see tests/bench/bench_store.c):
 * the first value as a signed varint, then blocks of CODEC_BLOCK values, each
 * in the cheapest of three modes, bit-packed at the block's width:
 *   DELTA  zigzag(v[i] - v[i-1])
 *   DOD    zigzag(delta[i] - delta[i-1])   (counters growing at a rate)
 *   FOR    v[i] - min(block)                (noise around a level)
 * A constant block costs one byte, a constant column one byte. Arithmetic wraps (uint64), so any int64
 * or uint64 column round-trips exactly.
 */
#ifndef MYRIAD_STORE_CODEC_H
#define MYRIAD_STORE_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "../util.h"

#define CODEC_BLOCK 32
#define CODEC_ALL_SAME 255          /* first block header: every value equals the first */

static inline uint64_t zz_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zz_dec(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* A varint into p (room for 10 bytes); returns the bytes written. */
static inline size_t uvarint_to(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void put_uvarint(struct sbuf *b, uint64_t v);
void put_svarint(struct sbuf *b, int64_t v);
void put_bytes(struct sbuf *b, const void *p, size_t n);   /* length-prefixed */

/* A bounded reader: any read past the end sets err and returns zeros. */
struct rd {
	const uint8_t *p, *end;
	int err;
};
static inline struct rd rd_make(const void *p, size_t n)
{
	return (struct rd){(const uint8_t *)p, p ? (const uint8_t *)p + n : NULL, 0};   /* NULL + 0 is undefined */
}
uint64_t rd_uvarint(struct rd *r);
int64_t rd_svarint(struct rd *r);
/* A length-prefixed byte string: pointer into the buffer and its length. */
const uint8_t *rd_bytes(struct rd *r, size_t *n);

/* The column codec. n is not stored: the caller knows it. */
void col_encode(struct sbuf *b, const int64_t *v, size_t n);
int col_decode(struct rd *r, int64_t *v, size_t n);   /* 0, or -1 if malformed */
int col_skip(struct rd *r, size_t n);                 /* past a column without its values */

/* The same with a choice of block size and modes (bit 0 DELTA, 1 DOD,
 * 2 FOR), for the codec measurements of the benchmark. */
#define COL_DELTA 0x1
#define COL_DOD 0x2
#define COL_FOR 0x4
void col_encode_opts(struct sbuf *b, const int64_t *v, size_t n, size_t block, unsigned modes);

/* The simpler codecs measured against it (encode only): delta + zigzag
 * varint per value, and the same with runs of zero deltas counted. */
void col_encode_varint(struct sbuf *b, const int64_t *v, size_t n);
void col_encode_varint_rle(struct sbuf *b, const int64_t *v, size_t n);

#endif
