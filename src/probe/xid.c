/*
 * xid.c - parser for kernel log lines that report an NVIDIA Xid or an
 * NVSwitch SXid (myriad-design(7), SOURCES AND FORMATS: kernel log), after any time stamp, host and ident
 * (kstamp.c lists the forms):
 *
 *   NVRM: Xid (PCI:0000:10:00): 79, pid=0, GPU has fallen off the bus.
 *   NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, ...
 *   nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Non-fatal, Link 44 Minion Link DLREQ interrupt
 *   nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Severity 0 Engine instance 44 Sub-engine instance 00
 *   nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Data {0x0000002c, ...}
 *
 * An SXid event is those three lines: sxid_continuation() picks out the
 * Severity and Data lines, so that callers make one record of the three.
 * PCI addresses are normalised (pci_normalize(): "0000:cb:00"; the switch's
 * keeps its function). Also here: parse_copy(), the bounded UTF-8-safe copy
 * all parsers use.
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

static int dig(char c) { return c >= '0' && c <= '9'; }

static int starts(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && !memcmp(s, lit, k);
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
	if (pci_normalize(s + start, i - start, r->sxid, r->pci) < 0) {
		*err = "bad PCI bus id";
		return 0;
	}
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
	if (!(e - start == 9 && !memcmp(s + start, "<unknown>", 9)) &&
	    !(e - start == 11 && !memcmp(s + start, "'<unknown>'", 11)))
		parse_copy(r->name, sizeof r->name, s + start, e - start);
	if (e == n)
		return n;
	return after_field(s, n, e);
}

/* "Link 44" anywhere in s[0..n): 44, or -1. */
static int32_t find_link(const char *s, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++) {
		int64_t v;
		size_t k;

		if (memcmp(s + i, "Link ", 5) || (i && s[i - 1] != ' '))
			continue;
		k = parse_uint(s + i + 5, n - i - 5, 4, &v);
		if (k && (i + 5 + k == n || s[i + 5 + k] == ' ' || s[i + 5 + k] == ','))
			return (int32_t)v;
	}
	return -1;
}

/* What part of an SXid event this line's text is (parse.h). */
static void sxid_part(const char *s, size_t n, struct xid_rec *r)
{
	int64_t v;
	size_t k;

	if (starts(s, n, "Severity ")) {
		r->sxid_part = SXID_SEVERITY;
		k = parse_uint(s + 9, n - 9, 3, &v);
		r->severity = k ? (int32_t)v : -1;
		return;
	}
	if (starts(s, n, "Data {") || starts(s, n, "Data{")) {
		r->sxid_part = SXID_DATA;
		return;
	}
	r->sxid_part = SXID_EVENT;
	if (starts(s, n, "Fatal,") || starts(s, n, "Fatal "))
		r->fatal = 1;
	else if (starts(s, n, "Non-fatal") || starts(s, n, "Non-Fatal") || starts(s, n, "Nonfatal"))
		r->fatal = 0;
	r->link = find_link(s, n);
}

int sxid_continuation(const struct xid_rec *r)
{
	return r->sxid && (r->sxid_part == SXID_SEVERITY || r->sxid_part == SXID_DATA);
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
	if (r->sxid)
		sxid_part(s + o, n - o, r);
	return 1;
}

static void rec_init(struct xid_rec *r)
{
	memset(r, 0, sizeof *r);
	r->pid = -1;
	r->link = r->fatal = r->severity = -1;
}

int xid_parse_line(const char *line, size_t len, struct xid_rec *out, const char **err)
{
	size_t msg, o;
	long x;
	int sxid = 0;

	rec_init(out);
	if (len && line[len - 1] == '\r')
		len--;
	msg = kmsg_skip_prefixes(line, len, &out->time, out->host, sizeof out->host);
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
