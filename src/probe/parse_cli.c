/*
 * parse_cli.c - `myriad parse FORMAT [FILE]` (myriad(1)): runs one
 * parser over a file or stdin and prints one JSON object per record on
 * stdout, so that what a node prints can be checked by hand and in tests.
 *
 * Line formats (nvidia-smi, xid, ib-counters) go line by line; lines longer
 * than PARSE_LINE_MAX are rejected without being held in memory. SXid
 * events are folded (one record per event, not per line); IB records wait
 * for the end of their dump (a blank line or the end) to know their rails,
 * which come from the link layer and the order of the devices. Document
 * formats (slurm-nodes, slurm-jobs, facility) read the whole input, and so
 * does prometheus: a /metrics body in the text format, or (first byte '{')
 * an answer of Prometheus's /api/v1/query; one object per sample.
 * stderr gets "myriad: parse: line N: ERROR" per rejected line and a final
 * "myriad: parse: R records, E rejected". Exit 0 if nothing was rejected,
 * 1 if something was (or the request was bad), 2 if FILE cannot be opened.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "parse.h"
#include "../util.h"

#define DOC_MAX ((size_t)1 << 30)

struct run {
	enum fmt fmt;
	long records, rejected;
	struct sbuf out;
	struct nvsmi_layout def, shrt, hdr;
	int have_hdr;
	struct ib_rec *ib;          /* ib-counters: the current dump's records */
	size_t nib, ib_cap;
	char ib_devs[32][40];       /* every port seen, for the rails */
	int32_t ib_ll[32];
	int ib_ndev;
};

/* ---- JSON output ---- */

/* begin() opened the object: every key after the first needs a comma. */
static void key(struct sbuf *b, const char *k)
{
	if (b->len > 1)
		sbuf_addc(b, ',');
	sbuf_json_str(b, k);
	sbuf_addc(b, ':');
}

static void put_str(struct sbuf *b, const char *k, const char *v)
{
	key(b, k);
	if (v && *v)
		sbuf_json_str(b, v);
	else
		sbuf_adds(b, "null");
}

static void put_int(struct sbuf *b, const char *k, int64_t v, int known)
{
	key(b, k);
	if (known)
		sbuf_printf(b, "%" PRId64, v);
	else
		sbuf_adds(b, "null");
}

static void put_time(struct sbuf *b, const char *k, int64_t us)
{
	char iso[32];

	if (!us) {
		put_str(b, k, NULL);
		return;
	}
	fmt_iso(us, iso);
	put_str(b, k, iso);
}

static void put_real(struct sbuf *b, const char *k, double v)
{
	key(b, k);
	if (isfinite(v))
		sbuf_printf(b, "%.10g", v);
	else
		sbuf_adds(b, "null");
}

static void begin(struct run *r)
{
	sbuf_reset(&r->out);
	sbuf_addc(&r->out, '{');
}

static void emit(struct run *r)
{
	sbuf_adds(&r->out, "}\n");
	fwrite(r->out.s, 1, r->out.len, stdout);
	r->records++;
}

/* ---- records ---- */

static void out_nvsmi(struct run *r, const struct nvsmi_rec *g)
{
	struct sbuf *b = &r->out;

	begin(r);
	put_int(b, "index", g->index, g->index >= 0);
	put_str(b, "uuid", g->uuid);
	put_str(b, "pci", g->pci);
	for (int m = 0; m < MET_COUNT; m++) {
		int32_t v = g->m[m];

		if (v != MET_UNKNOWN && (m == MET_POWER || m == MET_POWER_LIMIT)) {
			key(b, metric_name((enum metric)m));
			sbuf_printf(b, "%" PRId32 ".%02" PRId32, v / 100, v % 100);
		} else {
			put_int(b, metric_name((enum metric)m), v, v != MET_UNKNOWN);
		}
	}
	put_str(b, "name", g->name);
	emit(r);
}

static void out_xid(struct run *r, const struct xid_rec *x)
{
	struct sbuf *b = &r->out;

	begin(r);
	put_int(b, "code", x->code, 1);
	put_int(b, "pid", x->pid, x->pid >= 0);
	put_str(b, "pci", x->pci);
	put_str(b, "host", x->host);
	put_str(b, "name", x->name);
	put_time(b, "time", x->time);
	key(b, "sxid");
	sbuf_adds(b, x->sxid ? "true" : "false");
	if (x->sxid) {
		put_int(b, "link", x->link, x->link >= 0);
		key(b, "fatal");
		sbuf_adds(b, x->fatal == 1 ? "true" : x->fatal == 0 ? "false" : "null");
	}
	key(b, "text");
	sbuf_json_str(b, x->text);
	emit(r);
}

static void ib_name(const struct ib_rec *i, char name[40])
{
	if (i->port == 1)
		snprintf(name, 40, "%s", i->dev);
	else
		snprintf(name, 40, "%s/%d", i->dev, i->port);
}

static void out_ib(struct run *r, const struct ib_rec *i, int32_t rail)
{
	static const char *const ll_names[] = {NULL, "InfiniBand", "Ethernet"};
	struct sbuf *b = &r->out;

	begin(r);
	put_str(b, "dev", i->dev);
	put_int(b, "port", i->port, 1);
	put_int(b, "rail", rail, rail >= 0);
	if (i->counter == IB_LINK_LAYER_FILE) {
		put_str(b, "counter", "link_layer");
		put_str(b, "link_layer", ll_names[i->link_layer]);
	} else if (i->counter == IB_STATE_FILE) {
		put_str(b, "counter", "state");
		put_int(b, "state", i->state, 1);
	} else {
		put_str(b, "counter", ib_counter_name((enum ib_counter)i->counter));
		key(b, "value");
		if (i->unknown)
			sbuf_adds(b, "null");
		else
			sbuf_printf(b, "%" PRIu64, i->value);
	}
	emit(r);
}

/* The end of a dump: rails for every port seen so far, then its records. */
static void ib_dump_end(struct run *r)
{
	const char *names[32];
	int32_t rail[32];
	char name[40];

	for (size_t k = 0; k < r->nib; k++) {
		int i;

		ib_name(&r->ib[k], name);
		for (i = 0; i < r->ib_ndev && strcmp(r->ib_devs[i], name); i++)
			;
		if (i == r->ib_ndev && i < 32) {
			memcpy(r->ib_devs[i], name, sizeof name);
			r->ib_ll[i] = IBL_UNKNOWN;
			r->ib_ndev++;
		}
		if (i < 32 && r->ib[k].counter == IB_LINK_LAYER_FILE)
			r->ib_ll[i] = r->ib[k].link_layer;
	}
	for (int i = 0; i < r->ib_ndev; i++)
		names[i] = r->ib_devs[i];
	ib_assign_rails(names, r->ib_ll, r->ib_ndev, NULL, 0, rail);
	for (size_t k = 0; k < r->nib; k++) {
		int i;

		ib_name(&r->ib[k], name);
		for (i = 0; i < r->ib_ndev && strcmp(r->ib_devs[i], name); i++)
			;
		out_ib(r, &r->ib[k], i < r->ib_ndev ? rail[i] : -1);
	}
	r->nib = 0;
}

static void out_node(void *ctx, const struct slurm_node_rec *n)
{
	static const char *const flag_names[] = {
		"drain", "not_responding", "maint", "reboot", "completing", "fail",
	};
	struct run *r = ctx;
	struct sbuf *b = &r->out;
	int first = 1;

	begin(r);
	put_str(b, "name", n->name);
	put_str(b, "base", node_base_name((enum node_base)n->base));
	key(b, "flags");
	sbuf_addc(b, '[');
	for (unsigned i = 0; i < ARRAY_LEN(flag_names); i++) {
		if (!(n->flags & (1u << i)))
			continue;
		if (!first)
			sbuf_addc(b, ',');
		sbuf_json_str(b, flag_names[i]);
		first = 0;
	}
	sbuf_addc(b, ']');
	put_str(b, "reason", n->reason);
	put_str(b, "reason_who", n->reason_who);
	put_time(b, "reason_time", n->reason_time);
	put_int(b, "gpus", n->gpus, n->gpus >= 0);
	put_int(b, "gpus_used", n->gpus_used, n->gpus_used >= 0);
	emit(r);
}

static void out_job(void *ctx, const struct slurm_job_rec *j)
{
	struct run *r = ctx;
	struct sbuf *b = &r->out;

	begin(r);
	put_int(b, "id", j->id, 1);
	put_str(b, "state", job_state_name((enum job_state)j->state));
	put_str(b, "name", j->name);
	put_str(b, "user", j->user);
	put_str(b, "partition", j->partition);
	put_str(b, "nodes", j->nodes);
	put_int(b, "gpus", j->gpus, j->gpus >= 0);
	put_int(b, "gpu_mask", j->gpu_mask, 1);
	put_time(b, "submit_time", j->submit_time);
	put_time(b, "start_time", j->start_time);
	emit(r);
}

static void out_power(struct run *r, const struct ev_power *p)
{
	struct sbuf *b = &r->out;

	begin(r);
	put_real(b, "facility_kw", p->facility_kw);
	put_real(b, "it_kw", p->it_kw);
	put_real(b, "cooling_kw", p->cooling_kw);
	put_real(b, "supply_c", p->supply_c);
	put_real(b, "return_c", p->return_c);
	put_real(b, "flow_lpm", p->flow_lpm);
	put_real(b, "outside_c", p->outside_c);
	emit(r);
}

static void put_double(struct sbuf *b, double v)
{
	char tmp[40];

	if (isnan(v) || isinf(v)) {
		sbuf_adds(b, isnan(v) ? "\"NaN\"" : v > 0 ? "\"+Inf\"" : "\"-Inf\"");
		return;
	}
	snprintf(tmp, sizeof tmp, "%.15g", v);
	if (strtod(tmp, NULL) != v)
		snprintf(tmp, sizeof tmp, "%.17g", v);
	sbuf_adds(b, tmp);
}

/* {"name": "DCGM_FI_DEV_GPU_UTIL", "labels": {...}, "value": 87 or "NaN",
 *  "time": ms or null} */
static void out_prom(void *ctx, const struct prom_rec *p)
{
	struct run *r = ctx;
	struct sbuf *b = &r->out;

	begin(r);
	put_str(b, "name", p->name);
	key(b, "labels");
	sbuf_addc(b, '{');
	for (int i = 0; i < p->nlabels; i++) {
		if (i)
			sbuf_addc(b, ',');
		sbuf_json_str(b, prom_label_name(p, i));
		sbuf_addc(b, ':');
		sbuf_json_str(b, prom_label_value(p, i));
	}
	sbuf_addc(b, '}');
	key(b, "value");
	put_double(b, p->value);
	put_int(b, "time", p->time_ms, p->has_time);
	emit(r);
}

static void prom_bad(void *ctx, long lineno, const char *err)
{
	(void)ctx;
	fprintf(stderr, "myriad: parse: line %ld: %s\n", lineno, err);
}

/* ---- line formats ---- */

static void reject_line(struct run *r, long lineno, const char *err)
{
	fprintf(stderr, "myriad: parse: line %ld: %s\n", lineno, err ? err : "malformed line");
	r->rejected++;
}

static const struct nvsmi_layout *nvsmi_pick(const struct run *r, const char *s, size_t n)
{
	if (r->have_hdr)
		return &r->hdr;
	return nvsmi_count_fields(s, n) == r->shrt.ncols ? &r->shrt : &r->def;
}

/* Returns 1 for a record, 0 for a line that is not one, -1 if rejected. */
static int one_line(struct run *r, const char *s, size_t n, const char **err)
{
	int rc;

	switch (r->fmt) {
	case FMT_NVSMI: {
		struct nvsmi_rec g;

		static char why[160];
		const struct nvsmi_layout *l;

		if (nvsmi_parse_header(s, n, &r->hdr)) {
			r->have_hdr = 1;
			return 0;
		}
		l = nvsmi_pick(r, s, n);
		if (nvsmi_parse_line(s, n, l, &g, err) < 0) {
			if (*err && !strcmp(*err, "wrong number of columns"))
				*err = nvsmi_reject_reason(r->have_hdr, nvsmi_count_fields(s, n), l->ncols, why,
							   sizeof why);
			return -1;
		}
		out_nvsmi(r, &g);
		return 1;
	}
	case FMT_XID: {
		struct xid_rec x;

		if ((rc = xid_parse_line(s, n, &x, err)) == 1 && sxid_continuation(&x))
			return 0;   /* folded into its SXid event */
		if (rc == 1)
			out_xid(r, &x);
		return rc;
	}
	case FMT_IB: {
		struct ib_rec i;

		if ((rc = ib_parse_line(s, n, &i, err)) == 1) {
			if (r->nib == r->ib_cap) {
				r->ib_cap = r->ib_cap ? r->ib_cap * 2 : 64;
				r->ib = xrealloc(r->ib, sizeof *r->ib * r->ib_cap);
			}
			r->ib[r->nib++] = i;
		}
		return rc;
	}
	default:
		*err = "not a line format";
		return -1;
	}
}

static int is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* Reads lines of any length; those over PARSE_LINE_MAX are only flagged. */
struct reader {
	int fd;
	size_t start, end;
	int eof;
	char buf[2 * PARSE_LINE_MAX + 2];
};

static void fill(struct reader *rd)
{
	ssize_t k;

	if (rd->start) {
		memmove(rd->buf, rd->buf + rd->start, rd->end - rd->start);
		rd->end -= rd->start;
		rd->start = 0;
	}
	do   /* read(2), not fread: a pipe from `nvidia-smi -lms` shows each line */
		k = read(rd->fd, rd->buf + rd->end, sizeof rd->buf - rd->end);
	while (k < 0 && errno == EINTR);
	if (k <= 0)
		rd->eof = 1;
	else
		rd->end += (size_t)k;
}

/* 1: a line (*p, *n), *too_long if it was over the limit; 0: the end. */
static int next_line(struct reader *rd, const char **p, size_t *n, int *too_long)
{
	*too_long = 0;
	for (;;) {
		char *s = rd->buf + rd->start;
		size_t avail = rd->end - rd->start;
		char *nl = memchr(s, '\n', avail);

		if (nl || (rd->eof && (avail || *too_long))) {
			*n = nl ? (size_t)(nl - s) : avail;
			*p = s;
			rd->start += *n + (nl != NULL);
			*too_long |= *n > PARSE_LINE_MAX;
			return 1;
		}
		if (rd->eof)
			return 0;
		if (avail > PARSE_LINE_MAX) {   /* keep scanning, drop the bytes */
			*too_long = 1;
			rd->start = rd->end;
		}
		fill(rd);
	}
}

static void run_lines(struct run *r, FILE *f)
{
	struct reader *rd = xcalloc(1, sizeof *rd);
	const char *s, *err;
	size_t n;
	int too_long;
	long lineno = 0;

	rd->fd = fileno(f);
	while (next_line(rd, &s, &n, &too_long)) {
		lineno++;
		err = NULL;
		if (too_long)
			reject_line(r, lineno, "line longer than 65536 bytes");
		else if (!is_blank(s, n) && one_line(r, s, n, &err) < 0)
			reject_line(r, lineno, err);
		else if (r->fmt == FMT_IB && is_blank(s, n))
			ib_dump_end(r);
	}
	if (r->fmt == FMT_IB)
		ib_dump_end(r);
	free(rd);
	free(r->ib);
}

/* ---- document formats ---- */

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0, k;
	char *buf = xmalloc(cap);

	while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			if (cap >= DOC_MAX) {
				free(buf);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	*len = n;
	return buf;
}

static void run_doc(struct run *r, FILE *f)
{
	size_t len;
	char *doc = read_all(f, &len), *err = NULL;
	int bad = 0, n = 0;

	if (!doc) {
		err = xstrdup("input larger than 1 GiB");
		n = -1;
	} else if (r->fmt == FMT_SLURM_NODES) {
		n = slurm_parse_nodes(doc, len, out_node, r, &bad, &err);
	} else if (r->fmt == FMT_SLURM_JOBS) {
		n = slurm_parse_jobs(doc, len, out_job, r, &bad, &err);
	} else if (r->fmt == FMT_PROMETHEUS) {
		size_t i = 0;

		while (i < len && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r' || doc[i] == '\n'))
			i++;
		if (i < len && doc[i] == '{')
			n = prom_parse_api(doc, len, out_prom, r, &bad, &err);
		else
			n = prom_parse_text(doc, len, out_prom, r, &bad, prom_bad);
		if (n >= 0 && bad && i < len && doc[i] != '{') {   /* each already reported by line */
			r->rejected += bad;
			bad = 0;
		}
	} else {
		struct ev_power p;

		if ((n = facility_parse(doc, len, &p, &err)) == 0)
			out_power(r, &p);
	}
	if (n < 0) {
		fprintf(stderr, "myriad: parse: %s\n", err ? err : "unusable document");
		r->rejected++;
	} else if (bad) {
		fprintf(stderr, "myriad: parse: %d malformed record%s skipped\n", bad,
			bad == 1 ? "" : "s");
		r->rejected += bad;
	}
	free(err);
	free(doc);
}

/* ---- entry ---- */

static int usage(void)
{
	fputs("usage: myriad parse FORMAT [FILE]\n"
	      "  FORMAT: nvidia-smi xid ib-counters slurm-nodes slurm-jobs facility prometheus\n", stderr);
	return 1;
}

int parse_cli(int argc, char **argv)
{
	struct run r = {0};
	const char *path = argc > 2 ? argv[2] : "-";
	FILE *f;
	int fmt;

	if (argc < 2 || argc > 3)
		return usage();
	fmt = fmt_from_name(argv[1]);
	if (fmt < 0) {
		fprintf(stderr, "myriad: parse: %s: not a format this command parses\n", argv[1]);
		return usage();
	}
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	struct stat st;

	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		fprintf(stderr, "myriad: parse: %s: %s\n", path, strerror(errno));
		return 2;
	}
	r.fmt = (enum fmt)fmt;
	nvsmi_layout_from_query(&r.def, NVSMI_DEFAULT_QUERY);
	nvsmi_layout_from_query(&r.shrt, NVSMI_SHORT_QUERY);
	if (fmt == FMT_NVSMI || fmt == FMT_XID || fmt == FMT_IB)
		run_lines(&r, f);
	else
		run_doc(&r, f);
	int failed = ferror(f);   /* a directory, an I/O error: nothing read is not "no records" */
	int why = errno;

	if (f != stdin)
		fclose(f);
	fflush(stdout);
	if (failed) {
		fprintf(stderr, "myriad: parse: %s: %s\n", path, strerror(why));
		sbuf_free(&r.out);
		return 2;
	}
	fprintf(stderr, "myriad: parse: %ld records, %ld rejected\n", r.records, r.rejected);
	sbuf_free(&r.out);
	return r.rejected ? 1 : 0;
}
