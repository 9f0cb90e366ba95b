/*
 * export.c - `myriad log export`: a recording for other tools. JSON lines
 * (every event, in order, lossless), CSV (GPU samples, IB readings or the
 * other events) and OpenMetrics text (every GPU metric, IB counter and
 * facility reading as a series, each series contiguous and in time order, so
 * `promtool tsdb create-blocks-from openmetrics` ingests the same samples).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "evjson.h"
#include "store_int.h"
#include "../nodeset.h"

struct exp {
	struct reader *r;
	const struct export_opts *o;
	FILE *out;
	char **names;                 /* node names by index */
	uint8_t *want;                /* node filter */
	int32_t nnames;
	int64_t tick, seq;
	int64_t *ticks, *times;       /* the ticks and their times, by tick */
	int64_t ntimes;
};

/* ---- helpers ---- */

static void print_double(FILE *f, double v)
{
	char buf[40];

	if (isnan(v)) {
		fputs("NaN", f);
		return;
	}
	if (isinf(v)) {
		fputs(v > 0 ? "+Inf" : "-Inf", f);
		return;
	}
	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	fputs(buf, f);
}

static void print_centi(FILE *f, int32_t v)
{
	int64_t a = v < 0 ? -(int64_t)v : v;

	fprintf(f, "%s%" PRId64 ".%02" PRId64, v < 0 ? "-" : "", a / 100, a % 100);
}

static void print_ts(FILE *f, int64_t us)
{
	int64_t s = us / US_PER_SEC, frac = us % US_PER_SEC;

	if (frac < 0) {
		s--;
		frac += US_PER_SEC;
	}
	if (!frac)
		fprintf(f, "%" PRId64, s);
	else if (frac % 1000 == 0)
		fprintf(f, "%" PRId64 ".%03" PRId64, s, frac / 1000);
	else
		fprintf(f, "%" PRId64 ".%06" PRId64, s, frac);
}

static const char *node_name(const struct exp *e, int32_t node)
{
	return node >= 0 && node < e->nnames && e->names[node] ? e->names[node] : "?";
}

static int wanted(const struct exp *e, int32_t node)
{
	return !e->want || (node >= 0 && node < e->nnames && e->want[node]);
}

static int load_names(struct exp *e, char **err)
{
	sqlite3_stmt *st = NULL;

	/* node numbers beyond what a reader takes (reader_open) are damage */
	e->nnames = (int32_t)MAX(e->r->nnodes, db_i64(e->r->db, "SELECT max(node) + 1 FROM nodes WHERE node < 1048576", 0));
	e->names = xcalloc((size_t)e->nnames + 1, sizeof *e->names);
	if (sqlite3_prepare_v2(e->r->db, "SELECT node, name FROM nodes", -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW) {
			int32_t i = sqlite3_column_int(st, 0);

			if (i >= 0 && i < e->nnames && sqlite3_column_type(st, 1) == SQLITE_TEXT && !e->names[i])
				e->names[i] = xstrdup((const char *)sqlite3_column_text(st, 1));
		}
	sqlite3_finalize(st);
	if (!e->o->nodes)
		return 0;
	struct nodeset *ns = nodeset_from(e->o->nodes, err);

	if (!ns)
		return -1;
	e->want = xcalloc((size_t)e->nnames + 1, 1);
	for (int32_t i = 0; i < e->nnames; i++)
		e->want[i] = e->names[i] && nodeset_contains(ns, e->names[i]);
	nodeset_free(ns);
	return 0;
}

/* ---- the event stream: JSON lines and CSV ---- */

static void jsonl_event(void *ctx, const struct event *ev)
{
	struct exp *e = ctx;
	struct sbuf b = {0};

	if (!wanted(e, ev_node(ev)) && ev_node(ev) >= 0) {
		e->seq++;
		return;
	}
	sbuf_printf(&b, "{\"tick\":%" PRId64 ",\"seq\":%" PRId64 ",\"time\":%" PRId64 ",\"type\":\"%s\",\"source\":",
		    e->tick, e->seq++, ev->time, ev_type_name(ev->type));
	sbuf_json_str(&b, ev->source ? ev->source : "");
	size_t mark = b.len;

	evjson_encode(&b, ev);
	b.s[mark] = ',';   /* splice the payload's fields in */
	if (b.len == mark + 2)
		b.len = mark, sbuf_addc(&b, '}');
	fwrite(b.s, 1, b.len, e->out);
	fputc('\n', e->out);
	sbuf_free(&b);
}

static void csv_event(void *ctx, const struct event *ev)
{
	struct exp *e = ctx;
	int64_t seq = e->seq++;
	const char *t = e->o->table ? e->o->table : "gpu";
	int32_t node = ev_node(ev);

	if (node >= 0 && !wanted(e, node))
		return;
	if (!strcmp(t, "gpu") && ev->type == EV_SAMPLE) {
		fprintf(e->out, "%" PRId64 ",%" PRId64 ",%s,%d", ev->time, e->tick, node_name(e, node), ev->u.sample.gpu);
		for (int m = 0; m < MET_COUNT; m++) {
			int32_t v = ev->u.sample.m[m];

			fputc(',', e->out);
			if (v == MET_UNKNOWN)
				continue;
			if (m == MET_POWER || m == MET_POWER_LIMIT)
				print_centi(e->out, v);
			else
				fprintf(e->out, "%" PRId32, v);
		}
		fputc('\n', e->out);
	} else if (!strcmp(t, "ib") && ev->type == EV_IB) {
		fprintf(e->out, "%" PRId64 ",%" PRId64 ",%s,%d,%d", ev->time, e->tick, node_name(e, node), ev->u.ib.port,
			ev->u.ib.state);
		for (int c = 0; c < IBC_COUNT; c++)
			if (ev->u.ib.have & (1u << c))
				fprintf(e->out, ",%" PRIu64, ev->u.ib.c[c]);
			else
				fputc(',', e->out);
		fputc('\n', e->out);
	} else if (!strcmp(t, "events") && ev->type != EV_SAMPLE && ev->type != EV_IB) {
		struct sbuf b = {0};

		evjson_encode(&b, ev);
		fprintf(e->out, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,", ev->time, e->tick, seq, ev_type_name(ev->type));
		if (node >= 0)
			fprintf(e->out, "%s", node_name(e, node));
		fprintf(e->out, ",%s,\"", ev->source ? ev->source : "");
		for (size_t i = 0; i < b.len; i++) {
			if (b.s[i] == '"')
				fputc('"', e->out);
			fputc(b.s[i], e->out);
		}
		fputs("\"\n", e->out);
		sbuf_free(&b);
	}
}

static int stream(struct exp *e, void (*fn)(void *, const struct event *), char **err)
{
	struct tick_row tr;
	int64_t g = MAX(e->o->from, e->r->first);

	while (reader_find(e->r, g, 1, &tr) == 0 && tr.tick <= e->o->to) {
		e->tick = tr.tick;
		e->seq = 0;
		if (reader_group(e->r, &tr, 0, fn, e, err) < 0)
			return -1;
		if (tr.tick >= e->o->to)
			break;
		g = tr.tick + 1;
	}
	return 0;
}

static int csv(struct exp *e, char **err)
{
	const char *t = e->o->table ? e->o->table : "gpu";

	if (!strcmp(t, "gpu")) {
		fputs("time_us,tick,node,gpu", e->out);
		for (int m = 0; m < MET_COUNT; m++)
			fprintf(e->out, ",%s", metric_name(m));
		fputc('\n', e->out);
	} else if (!strcmp(t, "ib")) {
		fputs("time_us,tick,node,port,state", e->out);
		for (int c = 0; c < IBC_COUNT; c++)
			fprintf(e->out, ",%s", ib_counter_name(c));
		fputc('\n', e->out);
	} else if (!strcmp(t, "events")) {
		fputs("time_us,tick,seq,type,node,source,data\n", e->out);
	} else {
		*err = xasprintf("--table %s: one of gpu, ib, events", t);
		return -1;
	}
	return stream(e, csv_event, err);
}

static int export_openmetrics(struct exp *e, char **err);

int export_log(struct reader *r, const struct export_opts *o, FILE *out, char **err)
{
	struct exp e = {r, o, out, NULL, NULL, 0, 0, 0, NULL, 0, 0};
	int rc = load_names(&e, err);

	if (rc == 0) {
		if (o->fmt == EXPORT_JSONL)
			rc = stream(&e, jsonl_event, err);
		else if (o->fmt == EXPORT_CSV)
			rc = csv(&e, err);
		else
			rc = export_openmetrics(&e, err);
	}
	for (int32_t i = 0; i < e.nnames; i++)
		free(e.names[i]);
	free(e.names);
	free(e.want);
	free(e.ticks);
	free(e.times);
	if (rc == 0 && fflush(out) != 0) {
		*err = xstrdup("write error");
		rc = -1;
	}
	return rc;
}

/* ---- OpenMetrics ---- */

enum { F_GPU = 0, F_IB_STATE = MET_COUNT, F_IB = F_IB_STATE + 1, F_FAC = F_IB + IBC_COUNT, F_COUNT = F_FAC + 7 };

static const char *const gpu_fam[MET_COUNT] = {
	"myriad_gpu_utilization_percent", "myriad_gpu_memory_used_mebibytes", "myriad_gpu_memory_total_mebibytes",
	"myriad_gpu_temperature_celsius", "myriad_gpu_power_watts", "myriad_gpu_power_limit_watts",
	"myriad_gpu_sm_clock_megahertz", "myriad_gpu_ecc_uncorrected_errors", "myriad_gpu_throttle_reasons",
};
static const char *const fac_fam[7] = {
	"myriad_facility_power_kilowatts", "myriad_facility_it_power_kilowatts",
	"myriad_facility_cooling_power_kilowatts", "myriad_facility_supply_celsius", "myriad_facility_return_celsius",
	"myriad_facility_flow_liters_per_minute", "myriad_facility_outside_celsius",
};

struct om {
	FILE *tmp[F_COUNT];
	char *names[F_COUNT];
	struct window tail[PK_COUNT];
	struct series *cur;           /* per_node series of one node */
	struct series *dec;
	char *cluster;
	int64_t *win_t0;              /* the windows: of the samples table, then of the tail rows */
	uint8_t *win_temp;            /* the window's chunks are the tail rows' (temp.tailchunks) */
	size_t nwin;
	int have_temp;
};

/* The ticks' times, as many as the ticks table holds rows (a damaged tick
 * number sizes nothing). */
static void load_times(struct exp *e)
{
	sqlite3_stmt *st = NULL;
	int64_t cap = db_i64(e->r->db, "SELECT count(*) FROM ticks", 0);

	e->ntimes = 0;
	e->ticks = xmalloc(sizeof *e->ticks * (size_t)(cap + 1));
	e->times = xmalloc(sizeof *e->times * (size_t)(cap + 1));
	if (sqlite3_prepare_v2(e->r->db, "SELECT tick, time FROM ticks WHERE tick BETWEEN ? AND ? ORDER BY tick", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, e->r->first);
		sqlite3_bind_int64(st, 2, e->r->last);
		while (e->ntimes < cap && sqlite3_step(st) == SQLITE_ROW) {
			e->ticks[e->ntimes] = sqlite3_column_int64(st, 0);
			e->times[e->ntimes++] = sqlite3_column_int64(st, 1) ? sqlite3_column_int64(st, 1) : 1;
		}
	}
	sqlite3_finalize(st);
}

/* The time of a row, or 0 when its tick is outside the export or absent. */
static int64_t row_time(const struct exp *e, int64_t tick, int64_t tdelta)
{
	int64_t lo = 0, hi = e->ntimes;

	if (tick < e->o->from || tick > e->o->to || !e->ntimes)
		return 0;
	if (tick - e->ticks[0] >= 0 && tick - e->ticks[0] < e->ntimes && e->ticks[tick - e->ticks[0]] == tick)
		return e->times[tick - e->ticks[0]] + tdelta;   /* no hole before it: where it would be */
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (e->ticks[mid] < tick)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->ntimes && e->ticks[lo] == tick ? e->times[lo] + tdelta : 0;
}

static void add_window(struct om *om, int64_t t0, int temp)
{
	om->win_t0 = xrealloc(om->win_t0, sizeof *om->win_t0 * (om->nwin + 1));
	om->win_temp = xrealloc(om->win_temp, sizeof *om->win_temp * (om->nwin + 1));
	om->win_t0[om->nwin] = t0;
	om->win_temp[om->nwin++] = (uint8_t)temp;
}

/* One window's tail rows, decoded, as chunks of the temporary table. */
static void tail_window_chunks(struct exp *e, struct om *om, int64_t w0, const char *const *srcs, sqlite3_stmt *ins)
{
	struct sbuf b = {0};

	for (int k = 0; k < PK_COUNT; k++)
		for (int32_t node = 0; node < e->r->nnodes; node++) {
			int rows = 0;

			for (int32_t i = 0; i < om->tail[k].per_node; i++)
				rows += window_series(&om->tail[k], node, i)->n > 0;
			if (!rows)
				continue;
			sbuf_reset(&b);
			chunk_encode(&b, &om->tail[k], node, w0, srcs, NULL, NULL);
			sqlite3_bind_text(ins, 1, pack_kind_name(k), -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, 2, w0);
			sqlite3_bind_int(ins, 3, node);
			sqlite3_bind_blob(ins, 4, b.s, (int)b.len, SQLITE_STATIC);
			sqlite3_step(ins);
			sqlite3_reset(ins);
		}
	for (int k = 0; k < PK_COUNT; k++)
		window_clear(&om->tail[k]);
	sbuf_free(&b);
	add_window(om, w0, 1);
}

/* The windows kept in tail rows become chunks of a temporary table, a
 * window at a time: a recording of 102,400 GPUs that keeps its samples in
 * tail rows (store_int.h) is exported in the memory of one window, node by
 * node as a file of chunks is. */
static void tail_to_chunks(struct exp *e, struct om *om)
{
	sqlite3_stmt *st = NULL, *ins = NULL;
	struct arena a = {0};
	const char **srcs = NULL;
	int nsrcs = 0;
	int64_t w0 = -1;

	for (int k = 0; k < PK_COUNT; k++)
		window_init(&om->tail[k], k, e->r->nnodes, e->r->per_node[k]);
	if (db_exec(e->r->db, "CREATE TEMP TABLE tailchunks(kind TEXT, t0 INTEGER, node INTEGER, data BLOB,"
			      " PRIMARY KEY (t0, kind, node))", NULL) < 0 ||
	    sqlite3_prepare_v2(e->r->db, "INSERT INTO temp.tailchunks VALUES(?,?,?,?)", -1, &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(e->r->db, "SELECT tick, data FROM tail ORDER BY tick", -1, &st, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		int64_t w = tail_window(blob, len);

		if (w != w0 && w0 >= 0)
			tail_window_chunks(e, om, w0, srcs, ins);
		w0 = w;
		tail_decode(om->tail, sqlite3_column_int64(st, 0), blob, len, &a, &srcs, &nsrcs);
	}
	if (w0 >= 0)
		tail_window_chunks(e, om, w0, srcs, ins);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	free(srcs);
	arena_free(&a);
}

static void append_rows(const struct exp *e, struct series *dst, const struct series *src, int kind)
{
	int nv = pack_nv(kind);
	int64_t v[NV_IB];

	for (int32_t i = 0; i < src->n; i++) {
		if (!row_time(e, src->tick[i], 0))
			continue;
		for (int c = 0; c < nv; c++)
			v[c] = series_value(src, nv, i, c);
		series_append(dst, kind, src->tick[i], src->tdelta ? src->tdelta[i] : 0, 0, v);
	}
}

/* Every row of one node and kind, window by window (chunks, or the tail
 * rows' chunks), in tick order. */
static int collect(struct exp *e, struct om *om, int kind, int32_t node, char **err)
{
	int32_t pn = e->r->per_node[kind];
	sqlite3_stmt *st[2] = {NULL, NULL};
	struct arena a = {0};
	int rc = 0;

	for (int32_t i = 0; i < pn; i++)
		om->cur[i].n = 0;
	if (sqlite3_prepare_v2(e->r->db, "SELECT data FROM samples WHERE t0 = ? AND kind = ? AND node = ?", -1, &st[0],
			       NULL) != SQLITE_OK ||
	    (om->have_temp && sqlite3_prepare_v2(e->r->db, "SELECT data FROM temp.tailchunks WHERE t0 = ? AND kind = ?"
					     " AND node = ?", -1, &st[1], NULL) != SQLITE_OK)) {
		sqlite3_finalize(st[0]);
		return -1;
	}
	for (size_t w = 0; w < om->nwin && rc == 0; w++) {
		sqlite3_stmt *q = st[om->win_temp[w]];
		const char **srcs;
		int nsrcs;

		sqlite3_bind_int64(q, 1, om->win_t0[w]);
		sqlite3_bind_text(q, 2, pack_kind_name(kind), -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 3, node);
		if (sqlite3_step(q) == SQLITE_ROW) {
			if (chunk_decode(om->dec, pn, kind, om->win_t0[w], sqlite3_column_blob(q, 0),
					 (size_t)sqlite3_column_bytes(q, 0), &a, &srcs, &nsrcs) < 0) {
				*err = xasprintf("malformed chunk of node %d", node);
				rc = -1;
			}
			for (int32_t i = 0; i < pn && rc == 0; i++)
				append_rows(e, &om->cur[i], &om->dec[i], kind);
		}
		sqlite3_reset(q);
		arena_reset(&a);
	}
	sqlite3_finalize(st[0]);
	sqlite3_finalize(st[1]);
	arena_free(&a);
	return rc;
}

static void labels(FILE *f, const struct om *om, const char *node, const char *key, int32_t idx)
{
	fprintf(f, "{cluster=\"%s\",node=\"%s\",%s=\"%d\"} ", om->cluster, node, key, idx);
}

static void print_gpu(struct exp *e, struct om *om, int32_t node)
{
	for (int m = 0; m < MET_COUNT; m++)
		for (int32_t i = 0; i < e->r->per_node[PK_GPU]; i++) {
			const struct series *s = &om->cur[i];

			for (int32_t k = 0; k < s->n; k++) {
				int32_t v = (int32_t)series_value(s, NV_GPU, k, m);

				if (v == MET_UNKNOWN)
					continue;
				fputs(gpu_fam[m], om->tmp[F_GPU + m]);
				labels(om->tmp[F_GPU + m], om, node_name(e, node), "gpu", i);
				if (m == MET_POWER || m == MET_POWER_LIMIT)
					print_centi(om->tmp[F_GPU + m], v);
				else
					fprintf(om->tmp[F_GPU + m], "%" PRId32, v);
				fputc(' ', om->tmp[F_GPU + m]);
				print_ts(om->tmp[F_GPU + m], row_time(e, s->tick[k], s->tdelta ? s->tdelta[k] : 0));
				fputc('\n', om->tmp[F_GPU + m]);
			}
		}
}

static void print_ib(struct exp *e, struct om *om, int32_t node)
{
	for (int f = F_IB_STATE; f < F_FAC; f++)
		for (int32_t i = 0; i < e->r->per_node[PK_IB]; i++) {
			const struct series *s = &om->cur[i];

			for (int32_t k = 0; k < s->n; k++) {
				uint64_t have = (uint64_t)series_value(s, NV_IB, k, 1);
				int c = f - F_IB;

				if (f > F_IB_STATE && !(have & (1u << c)))
					continue;
				FILE *o = om->tmp[f];

				fputs(f == F_IB_STATE ? "myriad_ib_port_state" : om->names[f], o);
				if (f > F_IB_STATE)
					fputs("_total", o);
				labels(o, om, node_name(e, node), "port", i);
				fprintf(o, "%" PRIu64 " ", (uint64_t)series_value(s, NV_IB, k, f == F_IB_STATE ? 0 : 2 + c));
				print_ts(o, row_time(e, s->tick[k], s->tdelta ? s->tdelta[k] : 0));
				fputc('\n', o);
			}
		}
}

static void print_facility(struct exp *e, struct om *om)
{
	sqlite3_stmt *st = NULL;
	struct arena a = {0};

	if (sqlite3_prepare_v2(e->r->db, "SELECT tick, time, data FROM events WHERE type = 'power' ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct event ev = {.type = EV_POWER};
		int64_t tick = sqlite3_column_int64(st, 0);

		if (tick < e->o->from || tick > e->o->to ||
		    evjson_decode(&ev, (const char *)sqlite3_column_text(st, 2), (size_t)sqlite3_column_bytes(st, 2), &a) < 0)
			continue;
		double v[7] = {ev.u.power.facility_kw, ev.u.power.it_kw, ev.u.power.cooling_kw, ev.u.power.supply_c,
			       ev.u.power.return_c, ev.u.power.flow_lpm, ev.u.power.outside_c};

		for (int i = 0; i < 7; i++) {
			FILE *o = om->tmp[F_FAC + i];

			fprintf(o, "%s{cluster=\"%s\"} ", fac_fam[i], om->cluster);
			print_double(o, v[i]);
			fputc(' ', o);
			print_ts(o, sqlite3_column_int64(st, 1));
			fputc('\n', o);
		}
		arena_reset(&a);
	}
	sqlite3_finalize(st);
	arena_free(&a);
}

static int om_setup(struct exp *e, struct om *om, char **err)
{
	for (int f = 0; f < F_COUNT; f++) {
		if (!(om->tmp[f] = tmpfile())) {
			*err = xstrdup("cannot create a temporary file");
			return -1;
		}
		om->names[f] = f < MET_COUNT ? xstrdup(gpu_fam[f])
			       : f == F_IB_STATE ? xstrdup("myriad_ib_port_state")
			       : f < F_FAC	 ? xasprintf("myriad_ib_%s", ib_counter_name(f - F_IB))
						 : xstrdup(fac_fam[f - F_FAC]);
	}
	om->cluster = db_meta_get(e->r->db, "cluster");
	if (!om->cluster)
		om->cluster = xstrdup("");
	load_times(e);
	sqlite3_stmt *st = NULL;

	/* a window that still has tail rows is read from them (reader.c) */
	if (sqlite3_prepare_v2(e->r->db, "SELECT DISTINCT t0 FROM samples WHERE NOT EXISTS (SELECT 1 FROM tail"
			       " WHERE tail.tick >= samples.t0 AND tail.tick < samples.t1) ORDER BY t0", -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW)
			add_window(om, sqlite3_column_int64(st, 0), 0);
	sqlite3_finalize(st);
	om->have_temp = db_i64(e->r->db, "SELECT 1 FROM tail LIMIT 1", 0) != 0;
	if (om->have_temp)
		tail_to_chunks(e, om);   /* after the chunks' windows: the tail rows' are the newest */
	om->cur = xcalloc(33, sizeof *om->cur);
	om->dec = xcalloc(33, sizeof *om->dec);
	return 0;
}

static void om_free(struct om *om)
{
	struct window w = {.nnodes = 1, .per_node = 33};

	for (int f = 0; f < F_COUNT; f++) {
		if (om->tmp[f])
			fclose(om->tmp[f]);
		free(om->names[f]);
	}
	for (int k = 0; k < PK_COUNT; k++)
		window_free(&om->tail[k]);
	w.s = om->cur;
	window_free(&w);
	w = (struct window){.nnodes = 1, .per_node = 33, .s = om->dec};
	window_free(&w);
	free(om->cluster);
	free(om->win_t0);
	free(om->win_temp);
}

static void om_write(struct exp *e, struct om *om)
{
	char buf[65536];
	size_t n;

	for (int f = 0; f < F_COUNT; f++) {
		if (!ftell(om->tmp[f]))
			continue;
		fprintf(e->out, "# TYPE %s %s\n", om->names[f], f > F_IB_STATE && f < F_FAC ? "counter" : "gauge");
		fprintf(e->out, "# HELP %s %s\n", om->names[f],
			f < MET_COUNT ? "nvidia-smi, as recorded by myriad"
			: f == F_IB_STATE ? "InfiniBand port state (4 = ACTIVE), as recorded by myriad"
			: f < F_FAC ? "InfiniBand port counter (sysfs), as recorded by myriad"
				    : "facility meter, as recorded by myriad");
		rewind(om->tmp[f]);
		while ((n = fread(buf, 1, sizeof buf, om->tmp[f])) > 0)
			fwrite(buf, 1, n, e->out);
	}
	fputs("# EOF\n", e->out);
}

static int export_openmetrics(struct exp *e, char **err)
{
	struct om om = {0};
	int rc = om_setup(e, &om, err);

	for (int32_t node = 0; rc == 0 && node < e->r->nnodes; node++) {
		if (!wanted(e, node))
			continue;
		if ((rc = collect(e, &om, PK_GPU, node, err)) == 0)
			print_gpu(e, &om, node);
		if (rc == 0 && (rc = collect(e, &om, PK_IB, node, err)) == 0)
			print_ib(e, &om, node);
	}
	if (rc == 0) {
		print_facility(e, &om);
		om_write(e, &om);
	}
	om_free(&om);
	return rc;
}
