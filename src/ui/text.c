/*
 * text.c - sanitising and display width (see text.h). The escape-sequence
 * grammar follows ECMA-48: CSI = ESC [ params (0x30-0x3f) intermediates
 * (0x20-0x2f) final (0x40-0x7e); OSC/DCS/PM/APC/SOS strings run to BEL or ST;
 * other escapes are ESC, intermediates, one final byte. The 8-bit C1 forms
 * (U+009B CSI, U+009D OSC, ...) are treated the same way.
 */
#include <string.h>
#include <wchar.h>
#include "text.h"

int text_utf8 = 1;

#define REPLACEMENT 0xfffd

int utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c, min;
	int len;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if ((u[0] & 0xe0) == 0xc0) {
		len = 2, c = u[0] & 0x1f, min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		len = 3, c = u[0] & 0x0f, min = 0x800;
	} else if ((u[0] & 0xf8) == 0xf0) {
		len = 4, c = u[0] & 0x07, min = 0x10000;
	} else {
		*cp = REPLACEMENT;
		return 1;
	}
	if ((size_t)len > n)
		goto bad;
	for (int i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			goto bad;
		c = (c << 6) | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*cp = c;
	return len;
bad:
	*cp = REPLACEMENT;
	return 1;
}

int utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int text_cpwidth(uint32_t cp)
{
	int w;

	if (cp < 0x80 || !text_utf8)
		return 1;
	w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w > 2 ? 2 : w;
}

/* Bytes available at s, up to 4 (stops at the NUL). */
static size_t avail(const char *s)
{
	size_t n = 0;

	while (n < 4 && s[n])
		n++;
	return n;
}

/* Skips a control string (OSC, DCS, ...) body up to and including BEL, ST
 * (ESC \ or U+009C); an unterminated one runs to the end. */
static const char *skip_string(const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c == 0x07)
			return s + 1;
		if (c == 0x1b && s[1] == '\\')
			return s + 2;
		if (c == 0xc2 && (unsigned char)s[1] == 0x9c)
			return s + 2;
		s++;
	}
	return s;
}

/* Skips CSI parameters, intermediates and the final byte. A control byte
 * inside ends the sequence there (it is handled on its own). */
static const char *skip_csi(const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x40 && c <= 0x7e)
			return s + 1;
		if (c < 0x20 || c > 0x7e)
			return s;
		s++;
	}
	return s;
}

/* s points at ESC: returns the first byte after the escape sequence. */
static const char *skip_escape(const char *s)
{
	unsigned char c = (unsigned char)s[1];

	if (c == '[')
		return skip_csi(s + 2);
	if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')
		return skip_string(s + 2);
	s++;
	while (*s >= 0x20 && *s <= 0x2f)   /* intermediates */
		s++;
	if (*s >= 0x30 && *s <= 0x7e)      /* final */
		s++;
	return s;
}

static int invisible(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff || (cp >= 0x200b && cp <= 0x200d);
}

/* A non-ASCII code point decoded at s (len bytes): what to yield (0 to skip)
 * and where the scan continues. */
static uint32_t wide_char(const char **sp, uint32_t cp, int len)
{
	const char *s = *sp + len;

	*sp = s;
	if (cp == 0x9b) {
		*sp = skip_csi(s);
		return 0;
	}
	if (cp == 0x90 || cp == 0x9d || cp == 0x98 || cp == 0x9e || cp == 0x9f) {
		*sp = skip_string(s);
		return 0;
	}
	if (cp < 0xa0 || invisible(cp))
		return 0;
	if (cp == 0x2028 || cp == 0x2029 || cp == 0x85)
		return ' ';
	if (!text_utf8)
		return '?';
	if (cp != REPLACEMENT) {
		int w = wcwidth((wchar_t)cp);

		if (w == 0)
			return 0;
		if (w < 0)
			return REPLACEMENT;
	}
	return cp;
}

uint32_t text_next(const char **sp)
{
	const char *s = *sp;

	for (;;) {
		unsigned char c = (unsigned char)*s;
		uint32_t cp;
		int len;

		if (!c) {
			*sp = s;
			return 0;
		}
		if (c == 0x1b) {
			s = skip_escape(s);
			continue;
		}
		if (c < 0x80) {
			s++;
			if (c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
				*sp = s;
				return ' ';
			}
			if (c < 0x20 || c == 0x7f)
				continue;
			*sp = s;
			return c;
		}
		len = utf8_decode(s, avail(s), &cp);
		cp = wide_char(&s, cp, len);
		if (cp) {
			*sp = s;
			return cp == REPLACEMENT && !text_utf8 ? '?' : cp;
		}
	}
}

size_t text_sanitize(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	uint32_t cp;

	if (!size)
		return 0;
	while (src && (cp = text_next(&src))) {
		char buf[4];
		int len = utf8_encode(cp, buf);

		if (n + (size_t)len >= size)
			break;
		memcpy(dst + n, buf, (size_t)len);
		n += (size_t)len;
	}
	dst[n] = '\0';
	return n;
}

int text_width(const char *src)
{
	int w = 0;
	uint32_t cp;

	while (src && (cp = text_next(&src)))
		w += text_cpwidth(cp);
	return w;
}

int text_fit(const char *src, int cols, const char **end)
{
	int w = 0;
	uint32_t cp;
	const char *p = src;

	while (src) {
		const char *before = p;
		int cw;

		if (!(cp = text_next(&p)) || w + (cw = text_cpwidth(cp)) > cols) {
			p = before;
			break;
		}
		w += cw;
	}
	if (end)
		*end = p;
	return w;
}
