/*
 * sha1.c - SHA-1, HMAC-SHA1 and base64 decoding: just enough to match the
 * hashed entries of a known_hosts file ("|1|base64(salt)|base64(hmac)",
 * HMAC-SHA1 keyed by the salt over the host name) without linking libcrypto.
 * SHA-1 is used here only because OpenSSH's format uses it. Also the
 * hashing of a name for a new entry, as OpenSSH's HashKnownHosts writes it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include "hostkeys.h"

struct sha1 {
	uint32_t h[5];
	uint64_t len;
	uint8_t buf[64];
	size_t n;
};

static uint32_t rol(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

static void sha1_block(struct sha1 *c, const uint8_t *p)
{
	uint32_t w[80], a = c->h[0], b = c->h[1], d = c->h[3], e = c->h[4], cc = c->h[2];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;

		if (i < 20) {
			f = (b & cc) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ cc ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & cc) | (b & d) | (cc & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ cc ^ d;
			k = 0xca62c1d6;
		}
		uint32_t t = rol(a, 5) + f + e + k + w[i];

		e = d;
		d = cc;
		cc = rol(b, 30);
		b = a;
		a = t;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
}

static void sha1_init(struct sha1 *c)
{
	static const uint32_t h0[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};

	memset(c, 0, sizeof *c);
	memcpy(c->h, h0, sizeof h0);
}

static void sha1_add(struct sha1 *c, const uint8_t *p, size_t n)
{
	c->len += n;
	while (n > 0) {
		size_t take = 64 - c->n < n ? 64 - c->n : n;

		memcpy(c->buf + c->n, p, take);
		c->n += take;
		p += take;
		n -= take;
		if (c->n == 64) {
			sha1_block(c, c->buf);
			c->n = 0;
		}
	}
}

static void sha1_end(struct sha1 *c, uint8_t out[20])
{
	uint64_t bits = c->len * 8;
	uint8_t pad = 0x80, zero = 0, lenb[8];

	sha1_add(c, &pad, 1);
	while (c->n != 56)
		sha1_add(c, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_add(c, lenb, 8);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void hk_hmac_sha1(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len, uint8_t out[20])
{
	uint8_t k[64] = {0}, pad[64], inner[20];
	struct sha1 c;

	if (keylen > 64) {
		sha1_init(&c);
		sha1_add(&c, key, keylen);
		sha1_end(&c, k);
	} else {
		memcpy(k, key, keylen);
	}
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha1_init(&c);
	sha1_add(&c, pad, 64);
	sha1_add(&c, msg, len);
	sha1_end(&c, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha1_init(&c);
	sha1_add(&c, pad, 64);
	sha1_add(&c, inner, 20);
	sha1_end(&c, out);
}

static int b64_value(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -1;
}

int hk_base64_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t len = 0;

	while (n > 0 && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int v = b64_value(s[i]);

		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (len == cap)
				return -1;
			out[len++] = (uint8_t)(acc >> bits);
		}
	}
	return (int)len;
}

static void b64_encode(const uint8_t *p, size_t n, char *out)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);

		*out++ = abc[v >> 18 & 63];
		*out++ = abc[v >> 12 & 63];
		*out++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
		*out++ = i + 2 < n ? abc[v & 63] : '=';
	}
	*out = '\0';
}

int hk_hash_name(const char *name, char *out, size_t cap)
{
	uint8_t salt[20], mac[20];
	char s64[32], m64[32];

	if (getrandom(salt, sizeof salt, 0) != (ssize_t)sizeof salt || cap < 3 + 28 + 1 + 28 + 1)
		return -1;
	hk_hmac_sha1(salt, sizeof salt, (const uint8_t *)name, strlen(name), mac);
	b64_encode(salt, sizeof salt, s64);
	b64_encode(mac, sizeof mac, m64);
	snprintf(out, cap, "|1|%s|%s", s64, m64);
	return 0;
}
