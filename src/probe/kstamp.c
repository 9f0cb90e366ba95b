/*
 * kstamp.c - what comes before a kernel message, in every form dmesg and
 * journald print it, and PCI addresses in one form (parse.h):
 *
 *   [12345.678901] MSG                                  dmesg (monotonic: no time)
 *   [Tue Aug 11 03:14:22 2026] MSG                       dmesg -T / --time-format=ctime
 *   2025-01-21T04:41:44,283302+00:00 MSG                 dmesg --time-format=iso (comma)
 *   kern  :err   : 2025-01-21T04:41:44,283302+00:00 MSG  dmesg --decode --time-format=iso
 *   [Jan21 04:41] MSG, [  +0.000123] MSG, [<  0.000000>] dmesg reltime/delta (no time)
 *   Aug 11 03:14:22 host kernel: MSG                     journald short (no year: no time)
 *   Aug 11 03:14:22.123456 host kernel: MSG              short-precise (no time)
 *   2026-08-11T03:14:22+0000 host kernel: MSG            short-iso
 *   2026-08-11T03:14:22.123456+00:00 host kernel: MSG    short-iso-precise, rsyslog RFC 3339
 *   Tue 2026-08-11 03:14:22 UTC host kernel: MSG         short-full (UTC/GMT only)
 *   1754882062.123456 host kernel: MSG                   short-unix
 *   [ 1234.567890] host kernel: MSG                      short-monotonic
 *   kernel: MSG                                          a bare syslog ident
 *
 * dmesg -T prints local time; it is taken as UTC (nodes run in UTC).
 */
#include <string.h>
#include "parse.h"

static int dig(char c) { return c >= '0' && c <= '9'; }
static int lower(char c) { return c >= 'a' && c <= 'z'; }

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

/* "03:14:22" (8 bytes, the caller checked n) */
static int parse_hms(const char *s, struct civil *c)
{
	if (s[2] != ':' || s[5] != ':')
		return -1;
	c->h = num2(s);
	c->mi = num2(s + 3);
	c->s = num2(s + 6);
	return c->h < 0 || c->mi < 0 || c->s < 0 ? -1 : 0;
}

/* "2026-08-11" (10 bytes) */
static int parse_ymd(const char *s, struct civil *c)
{
	if (s[4] != '-' || s[7] != '-' || num2(s) < 0 || num2(s + 2) < 0)
		return -1;
	c->y = num2(s) * 100 + num2(s + 2);
	c->mo = num2(s + 5);
	c->d = num2(s + 8);
	return c->mo < 0 || c->d < 0 ? -1 : 0;
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

/* ".123456" or ",123456" at s: microseconds in *frac; length (0 if none). */
static size_t parse_frac(const char *s, size_t n, int64_t *frac)
{
	int64_t scale = 100000;
	size_t i = 1;

	*frac = 0;
	if (n < 2 || (s[0] != '.' && s[0] != ',') || !dig(s[1]))
		return 0;
	for (; i < n && dig(s[i]); i++, scale /= 10)
		*frac += (s[i] - '0') * scale;
	return i;
}

/* "[Tue Aug 11 03:14:22 2026]" -> length consumed, or 0. */
static size_t prefix_ctime(const char *s, size_t n, int64_t *time)
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

/* dmesg --time-format=reltime "[Jan21 04:41]", "[  +0.000123]", delta
 * "[<    0.000000>]": skipped, no wall time. Short, and only these bytes. */
static size_t prefix_other_bracket(const char *s, size_t n)
{
	size_t i = 1;

	if (!n || s[0] != '[')
		return 0;
	for (; i < n && i < 24 && s[i] != ']'; i++)
		if (!(dig(s[i]) || lower(s[i]) || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == ' ' || s[i] == ':' ||
		      s[i] == '+' || s[i] == '.' || s[i] == ',' || s[i] == '<' || s[i] == '>'))
			return 0;
	return i > 1 && i < n && s[i] == ']' ? i + 1 : 0;
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

/* "2026-08-11T03:14:22[.,frac](+0000|+00:00|Z)" -> length or 0. */
static size_t prefix_iso(const char *s, size_t n, int64_t *time)
{
	struct civil c;
	int64_t us, frac, off;
	size_t i = 19, k;

	if (n < 20 || s[10] != 'T' || parse_ymd(s, &c) || parse_hms(s + 11, &c) || civil_to_us(&c, &us))
		return 0;
	i += parse_frac(s + i, n - i, &frac);
	k = parse_tz(s + i, n - i, &off);
	if (!k || us + frac - off * 1000000 <= 0)
		return 0;
	*time = us + frac - off * 1000000;
	return i + k;
}

/* journald short-full "Tue 2026-08-11 03:14:22 UTC" -> length or 0; the
 * time only for UTC or GMT (another zone's offset is not printed). */
static size_t prefix_full(const char *s, size_t n, int64_t *time)
{
	struct civil c;
	int64_t us;
	size_t i = 24;

	if (n < 27 || s[3] != ' ' || s[14] != ' ' || s[23] != ' ' || !(s[0] >= 'A' && s[0] <= 'Z') ||
	    !lower(s[1]) || !lower(s[2]) || parse_ymd(s + 4, &c) || parse_hms(s + 15, &c) ||
	    civil_to_us(&c, &us))
		return 0;
	while (i < n && i < 34 && s[i] >= 'A' && s[i] <= 'Z')
		i++;
	if (i == 24 || i == n || s[i] != ' ')
		return 0;
	if ((i == 27 && !memcmp(s + 24, "UTC", 3)) || (i == 27 && !memcmp(s + 24, "GMT", 3)))
		*time = us;
	return i;
}

/* "Aug 11 03:14:22[.123456]" -> length or 0 (no year: the time stays 0). */
static size_t prefix_syslog(const char *s, size_t n)
{
	struct civil c;
	int64_t frac;

	if (n < 16 || s[6] != ' ' || parse_mon_day(s, &c) || parse_hms(s + 7, &c))
		return 0;
	return 15 + parse_frac(s + 15, n - 15, &frac);
}

/* journald short-unix "1754882062.123456" -> length or 0. */
static size_t prefix_unix(const char *s, size_t n, int64_t *time)
{
	int64_t sec = 0, frac;
	size_t i = 0;

	while (i < n && i < 11 && dig(s[i]))
		sec = sec * 10 + (s[i++] - '0');
	if (i < 9 || i >= n || s[i] != '.')
		return 0;
	i += parse_frac(s + i, n - i, &frac);
	if (i < n && s[i] != ' ')
		return 0;
	*time = sec * 1000000 + frac;
	return i;
}

/* After a journald stamp: " host ident: " (ident "kernel:" or "name[pid]:").
 * Copies the host; length of " host " or 0. */
static size_t take_host(const char *s, size_t n, char *host, size_t cap)
{
	size_t i = 0, j;

	if (n < 2 || s[0] != ' ')
		return 0;
	while (1 + i < n && s[1 + i] > ' ' && s[1 + i] < 0x7f)
		i++;
	if (!i || 1 + i == n || s[1 + i] != ' ' || s[i] == ':')
		return 0;
	for (j = i + 2; j < n && s[j] > ' ' && s[j] < 0x7f && s[j] != ':'; j++)
		;
	if (j == i + 2 || j == n || s[j] != ':')
		return 0;   /* no ident after it: not a host */
	parse_copy(host, cap, s + 1, i);
	return i + 2;
}

/* dmesg --decode "kern  :err   : " (facility, level, padded) -> length or 0. */
static size_t prefix_decode(const char *s, size_t n)
{
	size_t i = 0;

	for (int part = 0; part < 2; part++) {
		size_t start = i;

		while (i < n && (lower(s[i]) || dig(s[i])))
			i++;
		if (i == start || i - start > 8)
			return 0;
		while (i < n && s[i] == ' ')
			i++;
		if (i == n || s[i] != ':')
			return 0;
		i++;
	}
	return i < n && s[i] == ' ' ? i + 1 : 0;
}

static int starts(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && !memcmp(s, lit, k);
}

size_t kmsg_skip_prefixes(const char *s, size_t n, int64_t *time, char *host, size_t hostcap)
{
	size_t o = prefix_decode(s, n), k;
	int64_t t = 0;

	*time = 0;
	host[0] = '\0';
	if ((k = prefix_ctime(s + o, n - o, &t)) != 0) {
		o += k;
	} else if ((k = prefix_iso(s + o, n - o, &t)) != 0 || (k = prefix_full(s + o, n - o, &t)) != 0) {
		o += k;
		o += take_host(s + o, n - o, host, hostcap);
	} else if ((k = prefix_syslog(s + o, n - o)) != 0) {
		o += k;
		o += take_host(s + o, n - o, host, hostcap);
	} else if ((k = prefix_unix(s + o, n - o, &t)) != 0) {
		size_t h = take_host(s + o + k, n - o - k, host, hostcap);

		o += h ? k + h : 0;
		t = h ? t : 0;
	} else if ((k = prefix_mono(s + o, n - o)) != 0) {
		o += k;
		o += take_host(s + o, n - o, host, hostcap);   /* short-monotonic */
	} else if ((k = prefix_other_bracket(s + o, n - o)) != 0) {
		o += k;
	}
	*time = t;
	while (o < n && s[o] == ' ')
		o++;
	if (starts(s + o, n - o, "kernel: "))
		o += 8;
	if ((k = prefix_mono(s + o, n - o)) != 0)   /* syslog files: "kernel: [ 12.3] NVRM: ..." */
		o += k;
	while (o < n && s[o] == ' ')
		o++;
	return o;
}

/* ---- PCI addresses ---- */

static int hexval(char c)
{
	return dig(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Up to max hex digits at s[*i]: the value, -1 if none or too many. */
static long hex_field(const char *s, size_t n, size_t *i, int max)
{
	long v = 0;
	int k = 0;

	while (*i < n && hexval(s[*i]) >= 0) {
		if (++k > max)
			return -1;
		v = v * 16 + hexval(s[(*i)++]);
	}
	return k ? v : -1;
}

int pci_normalize(const char *s, size_t n, int keep_fn, char out[24])
{
	long f[3], fn = -1;
	int nf = 0;
	size_t i = 0;
	static const char hx[] = "0123456789abcdef";
	char *p = out;

	out[0] = '\0';
	for (;;) {
		long v = hex_field(s, n, &i, 8);

		if (v < 0 || nf == 3)
			return -1;
		f[nf++] = v;
		if (i < n && s[i] == ':') {
			i++;
			continue;
		}
		break;
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i >= n || hexval(s[i]) < 0 || hexval(s[i]) > 7)
			return -1;
		fn = hexval(s[i++]);
	}
	if (i != n || nf < 2)
		return -1;
	if (nf == 2) {   /* "18:00.0": domain 0 */
		f[2] = f[1];
		f[1] = f[0];
		f[0] = 0;
	}
	if (f[1] > 0xff || f[2] > 0x1f || f[0] > 0xffffffffL)
		return -1;
	int dd = 4;

	for (long d = f[0] >> 16; d; d >>= 4)
		dd++;
	for (int k = dd - 1; k >= 0; k--)
		*p++ = hx[(f[0] >> (4 * k)) & 15];
	*p++ = ':';
	*p++ = hx[f[1] >> 4];
	*p++ = hx[f[1] & 15];
	*p++ = ':';
	*p++ = hx[f[2] >> 4];
	*p++ = hx[f[2] & 15];
	if (keep_fn && fn >= 0) {
		*p++ = '.';
		*p++ = hx[fn];
	}
	*p = '\0';
	return 0;
}

int pci_same_device(const char *a, const char *b)
{
	char x[24], y[24];

	return a && b && !pci_normalize(a, strlen(a), 0, x) && !pci_normalize(b, strlen(b), 0, y) &&
	       !strcmp(x, y);
}
