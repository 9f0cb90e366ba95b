/*
 * ib.c - parser for InfiniBand sysfs counter lines (myriad-design(7), SOURCES AND FORMATS: InfiniBand):
 * "PATH VALUE" or "PATH:VALUE", the latter being what
 * `grep -H . /sys/class/infiniband/STAR/ports/STAR/counters/STAR` prints.
 *
 *   /sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error:12
 *   /sys/class/infiniband/mlx5_3/ports/1/hw_counters/rnr_nak_retry_err 0
 *   /sys/class/infiniband/mlx5_3/ports/1/counters_ext/port_xmit_data_64:123
 *   /sys/class/infiniband/mlx5_3/ports/1/state:4: ACTIVE
 *   /sys/class/infiniband/mlx5_bond_0/ports/1/link_layer:Ethernet
 *   /sys/class/infiniband/mlx4_0/ports/1/counters/link_downed:N/A (no PMA)
 *
 * Counters of enum ib_counter, the port state and the link layer are kept
 * (1); other well-formed files are not (0); anything else is malformed (-1).
 * A counter the HCA cannot give ("N/A (no PMA)": no performance management
 * agent) is kept as unknown, never as a number. Rails come from the link
 * layer and the order of the devices, or from a site mapping, never from the
 * digits of a name (ib_assign_rails()).
 */
#include <string.h>
#include "parse.h"

#define IB_ROOT "/sys/class/infiniband/"

struct span {
	const char *p;
	size_t n;
};

static int dig(char c) { return c >= '0' && c <= '9'; }

static int span_is(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && !memcmp(s.p, lit, n);
}

int ib_dev_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (dig(*a) && dig(*b)) {   /* compare digit runs as numbers */
			const char *x = a, *y = b;

			while (*x == '0' && dig(x[1]))
				x++;
			while (*y == '0' && dig(y[1]))
				y++;
			a = x;
			b = y;
			while (dig(*x))
				x++;
			while (dig(*y))
				y++;
			if (x - a != y - b)
				return x - a < y - b ? -1 : 1;
			int c = memcmp(a, b, (size_t)(x - a));

			if (c)
				return c < 0 ? -1 : 1;
			a = x;
			b = y;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

void ib_assign_rails(const char *const *devs, const int32_t *ll, int n, const char *const *map, int nmap,
		     int32_t *rail)
{
	for (int i = 0; i < n; i++) {
		rail[i] = -1;
		if (nmap > 0) {
			for (int k = 0; k < nmap; k++)
				if (!strcmp(devs[i], map[k]))
					rail[i] = k;
			continue;
		}
		if (ll[i] == IBL_ETHERNET)
			continue;
		rail[i] = 0;   /* its rank among the fabric devices */
		for (int k = 0; k < n; k++)
			if (k != i && ll[k] != IBL_ETHERNET &&
			    (ib_dev_cmp(devs[k], devs[i]) < 0 || (ib_dev_cmp(devs[k], devs[i]) == 0 && k < i)))
				rail[i]++;
	}
}

/* Unsigned 64-bit decimal, digits only. */
static int parse_u64(struct span s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s.n)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		unsigned d = (unsigned)(s.p[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* What a byte of a path is: a byte a component may hold ([A-Za-z0-9_.-]),
 * the separator of components, or one that ends the path. */
enum { PB_NAME = 1, PB_SLASH = 2, PB_END = 4 };
#define N_ PB_NAME
static const unsigned char path_byte[256] = {
	['\t'] = PB_END, [' '] = PB_END, [':'] = PB_END, ['/'] = PB_SLASH,
	['-'] = N_, ['.'] = N_, ['_'] = N_,
	['0'] = N_, ['1'] = N_, ['2'] = N_, ['3'] = N_, ['4'] = N_, ['5'] = N_, ['6'] = N_, ['7'] = N_, ['8'] = N_,
	['9'] = N_,
	['A'] = N_, ['B'] = N_, ['C'] = N_, ['D'] = N_, ['E'] = N_, ['F'] = N_, ['G'] = N_, ['H'] = N_, ['I'] = N_,
	['J'] = N_, ['K'] = N_, ['L'] = N_, ['M'] = N_, ['N'] = N_, ['O'] = N_, ['P'] = N_, ['Q'] = N_, ['R'] = N_,
	['S'] = N_, ['T'] = N_, ['U'] = N_, ['V'] = N_, ['W'] = N_, ['X'] = N_, ['Y'] = N_, ['Z'] = N_,
	['a'] = N_, ['b'] = N_, ['c'] = N_, ['d'] = N_, ['e'] = N_, ['f'] = N_, ['g'] = N_, ['h'] = N_, ['i'] = N_,
	['j'] = N_, ['k'] = N_, ['l'] = N_, ['m'] = N_, ['n'] = N_, ['o'] = N_, ['p'] = N_, ['q'] = N_, ['r'] = N_,
	['s'] = N_, ['t'] = N_, ['u'] = N_, ['v'] = N_, ['w'] = N_, ['x'] = N_, ['y'] = N_, ['z'] = N_,
};
#undef N_

static int bad_component(struct span c)
{
	return !c.n || (c.n <= 2 && (span_is(c, ".") || span_is(c, "..")));
}

/* Splits the path into components after IB_ROOT; -1 if a component is
 * empty, "." or "..", or holds a byte outside [A-Za-z0-9_.-]. */
static int split_path(struct span path, struct span *c, int max)
{
	size_t root = sizeof IB_ROOT - 1, start;
	int k = 0;

	if (path.n <= root || memcmp(path.p, IB_ROOT, root))
		return -1;
	start = root;
	for (size_t i = root; i <= path.n; i++) {
		if (i < path.n && path.p[i] != '/') {
			if (!(path_byte[(unsigned char)path.p[i]] & PB_NAME))
				return -1;
			continue;
		}
		if (k == max)
			return -1;
		c[k] = (struct span){path.p + start, i - start};
		if (bad_component(c[k]))
			return -1;
		k++;
		start = i + 1;
	}
	return k;
}

/* The common line in one pass: the path up to its end (a blank or ':')
 * split as split_path() splits it, k >= 1 and *end at the byte that ends
 * it; -1 for anything else, which the general path then reads (and names
 * what is wrong with it). */
static int split_line(const char *line, size_t len, struct span *c, int max, size_t *end)
{
	size_t root = sizeof IB_ROOT - 1, start = root;
	int k = 0;

	if (len <= root || memcmp(line, IB_ROOT, root))
		return -1;
	for (size_t i = root; i < len; i++) {
		unsigned b = path_byte[(unsigned char)line[i]];

		if (b & PB_NAME)
			continue;
		if (!b || k == max)
			return -1;
		c[k] = (struct span){line + start, i - start};
		if (bad_component(c[k++]))
			return -1;
		start = i + 1;
		if (b & PB_END) {
			*end = i;
			return k;
		}
	}
	return -1;
}

/* "4: ACTIVE" (or just "4"). ACTIVE_DEFER (5) counts as active. */
static int parse_state(struct span v, int32_t *state)
{
	if (!v.n || !dig(v.p[0]) || (v.n > 1 && v.p[1] != ':'))
		return -1;
	*state = v.p[0] - '0';
	if (*state > 5)
		return -1;
	if (*state == 5)
		*state = IBP_ACTIVE;
	for (size_t i = 2; i < v.n; i++)
		if (!(v.p[i] == ' ' || v.p[i] == '_' || (v.p[i] >= 'A' && v.p[i] <= 'Z')))
			return -1;
	return 0;
}

/* counters_ext: only the 64-bit data counters map onto ours. Otherwise the
 * name as ib_counter_from_name() reads it, compared in place. */
static int counter_from(struct span dir, struct span name)
{
	if (span_is(dir, "counters_ext")) {
		if (span_is(name, "port_xmit_data_64"))
			return IBC_PORT_XMIT_DATA;
		if (span_is(name, "port_rcv_data_64"))
			return IBC_PORT_RCV_DATA;
		return -1;
	}
	static size_t len[IBC_COUNT];   /* the names' lengths, taken once */

	if (!len[0])
		for (int c = 0; c < IBC_COUNT; c++)
			len[c] = strlen(ib_counter_name((enum ib_counter)c));
	for (int c = 0; c < IBC_COUNT; c++)
		if (name.n == len[c] && !memcmp(name.p, ib_counter_name((enum ib_counter)c), len[c]))
			return c;
	return -1;
}

static int set_port(struct span p, struct ib_rec *out)
{
	uint64_t v;

	if (p.n > 3 || parse_u64(p, &v) || v > 255)
		return -1;
	out->port = (int32_t)v;
	return 0;
}

/* Components: <dev> ports <p> (state | <dir> <name> | other...). */
static int classify(struct span *c, int k, struct span v, struct ib_rec *out, const char **err)
{
	if (c[0].n >= sizeof out->dev) {
		*err = "device name too long";
		return -1;
	}
	parse_copy(out->dev, sizeof out->dev, c[0].p, c[0].n);
	if (k < 3 || !span_is(c[1], "ports"))
		return 0;   /* node_guid, fw_ver, ... */
	if (set_port(c[2], out)) {
		*err = "bad port number";
		return -1;
	}
	if (k == 4 && span_is(c[3], "link_layer")) {
		out->counter = IB_LINK_LAYER_FILE;
		if (span_is(v, "InfiniBand"))
			out->link_layer = IBL_INFINIBAND;
		else if (span_is(v, "Ethernet"))
			out->link_layer = IBL_ETHERNET;
		else {
			*err = "bad link layer (InfiniBand or Ethernet)";
			return -1;
		}
		return 1;
	}
	if (k == 4 && span_is(c[3], "state")) {
		if (parse_state(v, &out->state)) {
			*err = "bad port state";
			return -1;
		}
		out->counter = IB_STATE_FILE;
		return 1;
	}
	if (k == 5 && (span_is(c[3], "counters") || span_is(c[3], "hw_counters") ||
		       span_is(c[3], "counters_ext"))) {
		out->counter = counter_from(c[3], c[4]);
		if (span_is(v, "N/A (no PMA)") || span_is(v, "N/A")) {
			out->unknown = 1;   /* the HCA cannot count it: unknown, not 0 */
			return out->counter >= 0;
		}
		if (parse_u64(v, &out->value)) {
			*err = "counter value is not an unsigned 64-bit number";
			out->counter = -1;
			return -1;
		}
		return out->counter >= 0;
	}
	return 0;   /* phys_state, rate, gids/0, ... */
}

int ib_parse_line(const char *line, size_t len, struct ib_rec *out, const char **err)
{
	struct span c[8], path, v;
	size_t i = 0;
	int k;

	memset(out, 0, sizeof *out);
	out->counter = IB_STATE_FILE;
	if (len && line[len - 1] == '\r')
		len--;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return 0;
	if (memchr(line, '\0', len)) {
		*err = "NUL byte in line";
		return -1;
	}
	if ((k = split_line(line, len, c, 8, &i)) > 0) {
		for (i++; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		return classify(c, k, (struct span){line + i, len - i}, out, err);
	}
	i = 0;
	while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != ':')
		i++;
	if (i == len) {
		*err = "no value after the path";
		return -1;
	}
	path = (struct span){line, i};
	i++;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	v = (struct span){line + i, len - i};
	k = split_path(path, c, 8);
	if (k < 1) {
		*err = "not a /sys/class/infiniband path";
		return -1;
	}
	return classify(c, k, v, out, err);
}
