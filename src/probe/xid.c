/*
 * xid.c - parser for kernel log lines that report an NVIDIA Xid or an
 * NVSwitch SXid (domain.md section 3), in every shape they reach us:
 *
 *   NVRM: Xid (PCI:0000:10:00): 79, pid=0, GPU has fallen off the bus.
 *   kernel: NVRM: Xid ...                                (syslog ident)
 *   [12345.678901] NVRM: Xid ...                         (dmesg)
 *   [Tue Aug 11 03:14:22 2026] NVRM: Xid ...             (dmesg -T: time)
 *   Aug 11 03:14:22 host kernel: NVRM: Xid ...           (journald short: host;
 *                                                         no year, so time 0)
 *   2026-08-11T03:14:22+0000 host kernel: NVRM: Xid ...  (short-iso: time, host)
 *   nvidia-nvswitch2: SXid (PCI:0000:0b:00.0): 12028, ... (sxid = 1)
 *
 * dmesg -T prints local time; it is taken as UTC (nodes run in UTC).
 * Also here: parse_copy(), the bounded UTF-8-safe copy all parsers use.
 */
#include <string.h>
#include "parse.h"

#define XID_CODE_MAX 100000

size_t parse_copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (!cap)
		return 0;
	if (n > cap - 1) {
		size_t cut = n = cap - 1;

		/* src[cut] is the first byte dropped: if it continues a UTF-8
		 * sequence, drop that sequence's first bytes too. */
		for (int i = 0; i < 3 && cut > 0 && ((unsigned char)src[cut] & 0xc0) == 0x80; i++)
			cut--;
		if (((unsigned char)src[cut] & 0xc0) == 0xc0)
			n = cut;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

/* ---- time prefixes ---- */

static int dig(char c) { return c >= '0' && c <= '9'; }

/* Two digits, or -1. */
static int num2(const char *s)
{
	return dig(s[0]) && dig(s[1]) ? (s[0] - '0') * 10 + (s[1] - '0') : -1;
}

static int month_from_name(const char *s)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (int i = 0; i < 12; i++)
		if (!memcmp(names + 3 * i, s, 3))
			return i + 1;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

struct civil {
	int y, mo, d, h, mi, s;
};

static int civil_to_us(const struct civil *c, int64_t *us)
{
	static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (c->y % 4 == 0 && c->y % 100 != 0) || c->y % 400 == 0;

	if (c->y < 1970 || c->y > 9999 || c->mo < 1 || c->mo > 12 || c->d < 1 ||
	    c->d > mdays[c->mo - 1] || (c->mo == 2 && c->d == 29 && !leap) ||
	    c->h < 0 || c->h > 23 || c->mi < 0 || c->mi > 59 || c->s < 0 || c->s > 60)
		return -1;
	*us = ((days_from_civil(c->y, c->mo, c->d) * 24 + c->h) * 60 + c->mi) * 60 + c->s;
	*us *= 1000000;
	return 0;
}

/* "03:14:22" */
static int parse_hms(const char *s, struct civil *c)
{
	if (s[2] != ':' || s[5] != ':')
		return -1;
	c->h = num2(s);
	c->mi = num2(s + 3);
	c->s = num2(s + 6);
	return c->h < 0 || c->mi < 0 || c->s < 0 ? -1 : 0;
}

/* "Aug 11" or "Aug  1": month, space, two characters of day. */
static int parse_mon_day(const char *s, struct civil *c)
{
	c->mo = month_from_name(s);
	if (!c->mo || s[3] != ' ')
		return -1;
	if (s[4] == ' ' && dig(s[5]))
		c->d = s[5] - '0';
	else
		c->d = num2(s + 4);
	return c->d < 1 ? -1 : 0;
}

/* "[Tue Aug 11 03:14:22 2026]" -> length consumed, or 0. */
static size_t prefix_dmesg_t(const char *s, size_t n, int64_t *time)
{
	struct civil c;

	if (n < 26 || s[0] != '[' || s[4] != ' ' || s[11] != ' ' || s[20] != ' ' || s[25] != ']')
		return 0;
	if (parse_mon_day(s + 5, &c) || parse_hms(s + 12, &c))
		return 0;
	c.y = num2(s + 21) * 100 + num2(s + 23);
	if (num2(s + 21) < 0 || num2(s + 23) < 0 || civil_to_us(&c, time))
		return 0;
	return 26;
}

/* "[12345.678901]" (dmesg, syslog): skipped, it is not wall time. */
static size_t prefix_mono(const char *s, size_t n)
{
	size_t i = 1;

	if (!n || s[0] != '[')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	if (i == n || !dig(s[i]))
		return 0;
	while (i < n && (dig(s[i]) || s[i] == '.'))
		i++;
	return i < n && s[i] == ']' ? i + 1 : 0;
}

/* "+0000", "+00:00", "-0530", "Z" -> seconds east of UTC; length or 0. */
static size_t parse_tz(const char *s, size_t n, int64_t *off)
{
	int h, m, colon;

	if (n >= 1 && s[0] == 'Z') {
		*off = 0;
		return 1;
	}
	if (n < 5 || (s[0] != '+' && s[0] != '-'))
		return 0;
	colon = s[3] == ':';
	if (colon && n < 6)
		return 0;
	h = num2(s + 1);
	m = num2(s + 3 + colon);
	if (h < 0 || h > 23 || m < 0 || m > 59)
		return 0;
	*off = (h * 3600 + m * 60) * (s[0] == '-' ? -1 : 1);
	return (size_t)(5 + colon);
}

/* "2026-08-11T03:14:22[.123456](+0000|+00:00|Z)" -> length or 0. */
static size_t prefix_iso(const char *s, size_t n, int64_t *time)
{
	struct civil c;
	int64_t us, frac = 0, scale = 100000, off;
	size_t i = 19, k;

	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T')
		return 0;
	c.y = num2(s) * 100 + num2(s + 2);
	c.mo = num2(s + 5);
	c.d = num2(s + 8);
	if (num2(s) < 0 || num2(s + 2) < 0 || parse_hms(s + 11, &c) || civil_to_us(&c, &us))
		return 0;
	if (s[i] == '.') {
		for (i++; i < n && dig(s[i]); i++, scale /= 10)
			frac += (s[i] - '0') * scale;
	}
	k = parse_tz(s + i, n - i, &off);
	if (!k)
		return 0;
	*time = us + frac - off * 1000000;
	return i + k;
}

/* "Aug 11 03:14:22" -> length or 0 (no year: the time stays 0). */
static size_t prefix_syslog(const char *s, size_t n)
{
	struct civil c;

	if (n < 16 || s[6] != ' ' || parse_mon_day(s, &c) || parse_hms(s + 7, &c))
		return 0;
	return 15;
}

/* After a journald stamp: " host ". Copies the host; length or 0. */
static size_t take_host(const char *s, size_t n, struct xid_rec *r)
{
	size_t i = 0;

	if (n < 2 || s[0] != ' ')
		return 0;
	while (1 + i < n && s[1 + i] > ' ' && s[1 + i] < 0x7f)
		i++;
	if (!i || 1 + i == n || s[1 + i] != ' ')
		return 0;
	parse_copy(r->host, sizeof r->host, s + 1, i);
	return i + 2;
}

static int starts(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && !memcmp(s, lit, k);
}

/* Skips timestamps, host and "kernel: ": offset of the message. */
static size_t skip_prefixes(const char *s, size_t n, struct xid_rec *r)
{
	size_t o = 0, k;

	if ((k = prefix_dmesg_t(s, n, &r->time)) != 0) {
		o = k;
	} else if ((k = prefix_iso(s, n, &r->time)) != 0 ||
		   (k = prefix_syslog(s, n)) != 0) {
		size_t h = take_host(s + k, n - k, r);

		if (h)
			o = k + h;
		else
			r->time = 0;
	}
	while (o < n && s[o] == ' ')
		o++;
	if (starts(s + o, n - o, "kernel: "))
		o += 8;
	if ((k = prefix_mono(s + o, n - o)) != 0)
		o += k;
	while (o < n && s[o] == ' ')
		o++;
	return o;
}

/* ---- the Xid itself ---- */

/* Offset of an "Xid" that reports an error, or -1. Accepted: "NVRM: Xid",
 * "SXid" as a word, or "Xid" first in the message. *sxid is set. */
static long find_xid(const char *s, size_t n, size_t msg, int *sxid)
{
	const char *p = s + msg;

	while ((p = memmem(p, n - (size_t)(p - s), "Xid", 3)) != NULL) {
		size_t i = (size_t)(p - s);
		size_t after = i + 3;

		if (after == n || s[after] == ' ') {
			if (i == msg || (i >= 6 && !memcmp(s + i - 6, "NVRM: ", 6))) {
				*sxid = 0;
				return (long)i;
			}
			if (i > msg && s[i - 1] == 'S' && (i - 1 == msg || s[i - 2] == ' ')) {
				*sxid = 1;
				return (long)i;
			}
		}
		p += 3;
	}
	return -1;
}

/* "(PCI:0000:01:00 GPU-I:05)" at s: copies the bus id; length or 0. */
static size_t parse_pci_tag(const char *s, size_t n, struct xid_rec *r, const char **err)
{
	const char *close = memchr(s, ')', n);
	size_t i = 5, start;

	if (!close) {
		*err = "unterminated PCI tag";
		return 0;
	}
	if (!starts(s, n, "(PCI:")) {
		*err = "bad PCI tag";
		return 0;
	}
	start = i;
	while (s + i < close && (dig(s[i]) || (s[i] >= 'a' && s[i] <= 'f') ||
				 (s[i] >= 'A' && s[i] <= 'F') || s[i] == ':' || s[i] == '.'))
		i++;
	if (i == start || i - start >= sizeof r->pci || (s + i < close && s[i] != ' ')) {
		*err = "bad PCI bus id";
		return 0;
	}
	parse_copy(r->pci, sizeof r->pci, s + start, i - start);
	for (; s + i < close; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == '(') {
			*err = "bad PCI tag";
			return 0;
		}
	return (size_t)(close - s) + 1;
}

/* Decimal of 1..max_digits digits; length consumed or 0. */
static size_t parse_uint(const char *s, size_t n, int max_digits, int64_t *v)
{
	size_t i = 0;

	*v = 0;
	while (i < n && dig(s[i]) && (int)i < max_digits)
		*v = *v * 10 + (s[i++] - '0');
	return i < n && dig(s[i]) ? 0 : i;
}

/* After the code: ", " or end. Returns offset of what follows, or 0. */
static size_t after_field(const char *s, size_t n, size_t o)
{
	if (o == n)
		return o;
	if (s[o] != ',')
		return 0;
	o++;
	while (o < n && s[o] == ' ')
		o++;
	return o;
}

static size_t parse_pid(const char *s, size_t n, size_t o, struct xid_rec *r, const char **err)
{
	int64_t v;
	size_t k;

	o += 4;   /* "pid=" */
	if (starts(s + o, n - o, "'<unknown>'"))
		k = 11;
	else if (starts(s + o, n - o, "<unknown>"))
		k = 9;
	else if ((k = parse_uint(s + o, n - o, 10, &v)) == 0 || v > INT32_MAX)
		k = 0;
	else
		r->pid = (int32_t)v;
	if (!k || !(o = after_field(s, n, o + k))) {
		*err = "bad pid";
		return 0;
	}
	return o;
}

/* name= ends at the next ", " (the name may hold brackets and colons). */
static size_t parse_name(const char *s, size_t n, size_t o, struct xid_rec *r)
{
	size_t start = o + 5, e = start;   /* "name=" */

	while (e < n && !(s[e] == ',' && e + 1 < n && s[e + 1] == ' '))
		e++;
	if (!(e - start == 9 && !memcmp(s + start, "<unknown>", 9)))
		parse_copy(r->name, sizeof r->name, s + start, e - start);
	if (e == n)
		return n;
	return after_field(s, n, e);
}

/* code, then optional pid= and name=, then the text. */
static int parse_tail(const char *s, size_t n, size_t o, struct xid_rec *r, const char **err)
{
	int64_t code;
	size_t k = parse_uint(s + o, n - o, 9, &code);

	if (!k) {
		*err = o < n && dig(s[o]) ? "Xid code out of range" : "Xid without a numeric code";
		return -1;
	}
	if (code > XID_CODE_MAX) {
		*err = "Xid code out of range";
		return -1;
	}
	r->code = (int32_t)code;
	o += k;
	if (o < n && s[o] == ' ' && !r->pci[0])
		o++;   /* bare "Xid 154 GPU recovery action ..." */
	else if (!(o = after_field(s, n, o))) {
		*err = "garbage after Xid code";
		return -1;
	}
	if (starts(s + o, n - o, "pid=") && !(o = parse_pid(s, n, o, r, err)))
		return -1;
	if (starts(s + o, n - o, "name="))
		o = parse_name(s, n, o, r);
	while (n > o && s[n - 1] == ' ')
		n--;
	parse_copy(r->text, sizeof r->text, s + o, n - o);
	return 1;
}

static void rec_init(struct xid_rec *r)
{
	memset(r, 0, sizeof *r);
	r->pid = -1;
}

int xid_parse_line(const char *line, size_t len, struct xid_rec *out, const char **err)
{
	size_t msg, o;
	long x;
	int sxid = 0;

	rec_init(out);
	if (len && line[len - 1] == '\r')
		len--;
	msg = skip_prefixes(line, len, out);
	x = find_xid(line, len, msg, &sxid);
	if (x < 0) {
		rec_init(out);
		return 0;
	}
	out->sxid = sxid;
	if (memchr(line, '\0', len)) {
		*err = "NUL byte in Xid line";
		return -1;
	}
	o = (size_t)x + 3;
	if (o + 1 < len && line[o] == ' ' && line[o + 1] == '(') {
		size_t k = parse_pci_tag(line + o + 1, len - o - 1, out, err);

		if (!k)
			return -1;
		o += 1 + k;
		if (o >= len || line[o] != ':') {
			*err = "no ':' after PCI tag";
			return -1;
		}
		o++;
		while (o < len && line[o] == ' ')
			o++;
	} else if (o + 1 < len && line[o] == ' ' && dig(line[o + 1])) {
		o++;
	} else {
		*err = "Xid without a PCI tag or code";
		return -1;
	}
	return parse_tail(line, len, o, out, err);
}
