/*
 * test_store_codec.c - the log's codecs on their own: the integer column
 * codec (every mode, edge values, lengths around the block size), chunk and
 * tail encodings of packed events, layouts, and event payloads as JSON for
 * every event type, bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include "test.h"
#include "myriad.h"
#include "store/codec.h"
#include "store/evjson.h"
#include "evjson_ref.h"
#include "store/pack.h"

static int roundtrip(const int64_t *v, size_t n, size_t block, unsigned modes)
{
	struct sbuf b = {0};
	int64_t *out = xcalloc(n + 1, sizeof *out);
	int ok;

	if (block)
		col_encode_opts(&b, v, n, block, modes);
	else
		col_encode(&b, v, n);
	struct rd r = rd_make(b.s, b.len);

	ok = col_decode(&r, out, n) == 0 && r.p == r.end && (!n || !memcmp(v, out, n * sizeof *v));
	sbuf_free(&b);
	free(out);
	return ok;
}

TEST(store_codec_columns_round_trip)
{
	static const size_t lens[] = {0, 1, 2, 3, 31, 32, 33, 34, 64, 65, 100, 1000};
	struct rng r;
	int64_t v[1000];

	rng_seed(&r, 7);
	for (unsigned li = 0; li < ARRAY_LEN(lens); li++) {
		size_t n = lens[li];

		for (int kind = 0; kind < 6; kind++) {
			for (size_t i = 0; i < n; i++) {
				uint64_t x = rng_next(&r);

				v[i] = kind == 0   ? 42
				       : kind == 1 ? (int64_t)(i * 1000 + x % 7)           /* counter */
				       : kind == 2 ? (int64_t)(x % 600) - 300             /* noise */
				       : kind == 3 ? (int64_t)x                           /* anything */
				       : kind == 4 ? (i % 2 ? INT64_MIN : INT64_MAX)      /* extremes */
						   : (i % 5 ? 65000 : MET_UNKNOWN);       /* gaps */
			}
			CHECK(roundtrip(v, n, 0, 0));
			for (unsigned m = 1; m < 8; m++)
				CHECK(roundtrip(v, n, CODEC_BLOCK, m));
		}
	}
}

TEST(store_codec_rejects_truncated_input)
{
	int64_t v[100], out[100];
	struct sbuf b = {0};

	for (int i = 0; i < 100; i++)
		v[i] = i * i * 1000;
	col_encode(&b, v, 100);
	for (size_t cut = 0; cut < b.len; cut++) {
		struct rd r = rd_make(b.s, cut);

		CHECK(col_decode(&r, out, 100) < 0);
	}
	sbuf_free(&b);
}

TEST(store_codec_constant_columns_are_cheap)
{
	int64_t v[60];
	struct sbuf b = {0};

	for (int i = 0; i < 60; i++)
		v[i] = 81559;
	col_encode(&b, v, 60);
	CHECK(b.len <= 5);
	sbuf_free(&b);
}

static struct event ev_of(enum ev_type t)
{
	struct event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = t;
	ev.time = 1767225600123456LL;
	ev.source = "ssh:gpu0001";
	return ev;
}

static int payload_roundtrip(const struct event *ev)
{
	struct sbuf a = {0}, b = {0};
	struct arena ar = {0};
	struct event back = *ev;
	int ok;

	evjson_encode(&a, ev);
	ok = evjson_decode(&back, a.s, a.len, &ar) == 0;
	evjson_encode(&b, &back);
	ok = ok && a.len == b.len && !memcmp(a.s, b.s, a.len);
	if (!ok)
		fprintf(stderr, "  payload %s: %s -> %s\n", ev_type_name(ev->type), a.s, b.s ? b.s : "(error)");
	sbuf_free(&a);
	sbuf_free(&b);
	arena_free(&ar);
	return ok;
}

TEST(store_event_payloads_round_trip)
{
	static const char bad_utf8[] = "caf\xc3 \xff\xfe \"quoted\" \\ \n\t\x01 \xe2\x82\xac";
	struct event ev;

	for (int t = 1; t < EV_TYPE_COUNT; t++) {
		ev = ev_of(t);
		CHECK(payload_roundtrip(&ev));
	}
	ev = ev_of(EV_XID);
	ev.u.xid = (struct ev_xid){17, 3, 79, -1, "0000:18:00", bad_utf8, 0, -1, -1};
	CHECK(payload_roundtrip(&ev));
	ev = ev_of(EV_POWER);
	ev.u.power = (struct ev_power){1280.2, 1170.8, 0.1 + 0.2, NAN, INFINITY, -INFINITY, 5e-324};
	CHECK(payload_roundtrip(&ev));
	struct arena ar = {0};
	struct sbuf s = {0};
	struct event back = ev;

	evjson_encode(&s, &ev);
	CHECK(evjson_decode(&back, s.s, s.len, &ar) == 0);
	CHECK(!memcmp(&back.u.power.facility_kw, &ev.u.power.facility_kw, sizeof(double) * 3));
	CHECK(isnan(back.u.power.supply_c) && isinf(back.u.power.return_c) && back.u.power.flow_lpm < 0);
	CHECK(back.u.power.outside_c == 5e-324);
	ev = ev_of(EV_IB);
	ev.u.ib.c[IBC_PORT_XMIT_DATA] = UINT64_MAX;
	ev.u.ib.have = 0x3ff;
	CHECK(payload_roundtrip(&ev));
	ev = ev_of(EV_JOB);
	ev.u.job = (struct ev_job){4711, JOB_RUNNING, 64, 0xff, 1, 2, "train \"big\"", "alice", "batch", "gpu[0001-0008]"};
	CHECK(payload_roundtrip(&ev));
	ev = ev_of(EV_SAMPLE);
	for (int m = 0; m < MET_COUNT; m++)
		ev.u.sample.m[m] = m % 2 ? MET_UNKNOWN : INT32_MAX - m;
	CHECK(payload_roundtrip(&ev));
	back = ev;
	sbuf_reset(&s);
	evjson_encode(&s, &ev);
	CHECK(evjson_decode(&back, s.s, s.len, &ar) == 0 && !memcmp(&back.u.sample, &ev.u.sample, sizeof ev.u.sample));
	back.type = EV_JOB;
	CHECK(evjson_decode(&back, "{\"id\":1}", 8, &ar) < 0);   /* fields missing */
	CHECK(evjson_decode(&back, "not json", 8, &ar) < 0);
	sbuf_free(&s);
	arena_free(&ar);
}

/* jtape reads the events' payloads as jansson did (evjson_ref.c): the same
 * verdict, the same fields; make fuzz (fuzz_evjson) tries the rest. */
static int reads_as_jansson(int type, const char *json)
{
	struct event a = {.type = (enum ev_type)type}, b = a;
	struct arena ar = {0};
	int ra = evjson_decode(&a, json, strlen(json), &ar), rb = evjson_decode_ref(&b, json, strlen(json), &ar);
	int ok = ra == rb && (ra < 0 || evjson_same_fields(&a, &b));

	if (!ok)
		fprintf(stderr, "  %s %s: jtape %d, jansson %d\n", ev_type_name(type), json, ra, rb);
	arena_free(&ar);
	return ok;
}

TEST(store_event_payloads_read_as_jansson_read_them)
{
	static const char *const gpu_info[] = {
		"{\"node\":0,\"gpu\":1,\"uuid\":\"GPU-1\",\"pci\":\"00000000:18:00.0\",\"name\":\"\"} \n",
		"{\"node\":0,\"gpu\":1,\"uuid\":\"GPU-1\",\"pci\":\"p\",\"name\":\"\"}x",
		"{\"node\":0,\"node\":2,\"gpu\":1,\"uuid\":\"u\",\"pci\":\"p\",\"name\":\"\"}",
		"{\"node\":0,\"gpu\":1,\"uuid\":{\"hex\":\"ff00e9\"},\"pci\":\"\\u00e9\\ud83d\\ude00\",\"name\":\"\"}",
		"{\"node\":0,\"gpu\":1,\"uuid\":{\"hex\":\"f\"},\"pci\":\"p\",\"name\":\"\"}",
		"{\"node\":0,\"gpu\":1,\"uuid\":\"\\ud83d\",\"pci\":\"p\",\"name\":\"\"}",
		"{\"node\":1.5,\"gpu\":1,\"uuid\":\"u\",\"pci\":\"p\",\"name\":\"\"}",
		"{\"node\":-0,\"gpu\":9223372036854775807,\"uuid\":\"u\",\"pci\":\"p\",\"x\":[1,{\"a\":null}]}",
		"{\"node\":0,\"gpu\":18446744073709551615,\"uuid\":\"u\",\"pci\":\"p\"}",
		"{\"node\":0,\"gpu\":1,\"uuid\":\"a\\u0000b\",\"pci\":\"p\"}",
		"", "  ", "[]", "5", "{", "{}", "{\"node\":0}",
	};
	static const char *const power[] = {
		"{\"facility_kw\":1e400,\"it_kw\":1,\"pue\":1,\"supply_c\":1,\"return_c\":1,\"flow_lpm\":1,\"outside_c\":1}",
		"{\"facility_kw\":-0.0,\"it_kw\":1E-320,\"pue\":\"nan\",\"supply_c\":\"-inf\",\"return_c\":0.1,"
		"\"flow_lpm\":12,\"outside_c\":\"inf\"}",
		"{\"facility_kw\":\"1\",\"it_kw\":1,\"pue\":1,\"supply_c\":1,\"return_c\":1,\"flow_lpm\":1,\"outside_c\":1}",
	};
	static const char *const ib[] = {
		"{\"node\":3,\"port\":1,\"state\":4,\"have\":1023,\"c\":[1,2]}",
	};
	struct sbuf s = {0};
	struct event ev = {.type = EV_GPU_INFO};
	struct arena ar = {0};
	static const char nul[] = "{\"node\":0\0,\"gpu\":1,\"uuid\":\"u\",\"pci\":\"p\",\"name\":\"\"}";

	CHECK(evjson_decode(&ev, nul, sizeof nul - 1, &ar) < 0);   /* jansson took it: evjson_ref.c */
	arena_free(&ar);
	for (size_t i = 0; i < ARRAY_LEN(gpu_info); i++)
		CHECK(reads_as_jansson(EV_GPU_INFO, gpu_info[i]));
	for (size_t i = 0; i < ARRAY_LEN(power); i++)
		CHECK(reads_as_jansson(EV_POWER, power[i]));
	for (size_t i = 0; i < ARRAY_LEN(ib); i++)
		CHECK(reads_as_jansson(EV_IB, ib[i]));
	for (int t = 1; t < EV_TYPE_COUNT; t++) {   /* every type as the recorder writes it */
		ev = ev_of(t);
		sbuf_reset(&s);
		evjson_encode(&s, &ev);
		CHECK(reads_as_jansson(t, s.s));
	}
	sbuf_free(&s);
}

TEST(store_tail_and_layout_round_trip)
{
	struct window win[PK_COUNT], back[PK_COUNT];
	struct arrival arr[3][8];
	const char *srcs[] = {"a", "bb"};
	int64_t v[NV_IB];
	struct sbuf b[3] = {{0}};
	struct arena ar = {0};
	const char **bsrcs = NULL;
	int nb = 0;

	for (int k = 0; k < PK_COUNT; k++) {
		window_init(&win[k], k, 4, 8);
		window_init(&back[k], k, 4, 8);
	}
	for (int t = 0; t < 3; t++) {   /* three ticks; the second's values are deltas on the first's */
		for (int i = 0; i < 8; i++) {
			int kind = i % 3 == 2 ? PK_IB : PK_GPU;
			int32_t node = 3 - i % 4, idx = (i * 5) % 8;

			for (int c = 0; c < NV_IB; c++)
				v[c] = (int64_t)(t * 77 + i * 1000003 + c) * (c == 3 && kind == PK_IB ? 1000000007LL : 1) -
				       (c == 2 ? INT64_MAX / 3 : 0);
			if (kind == PK_GPU)
				for (int c = 0; c < NV_GPU; c++)
					v[c] = c == 4 && i == 1 ? MET_UNKNOWN : (int32_t)v[c];
			arr[t][i] = (struct arrival){(uint8_t)kind, node, idx,
						     series_append(window_series(&win[kind], node, idx), kind, t,
								   i * 7 - 3, (uint16_t)((i + t) % 2), v)};
		}
		if (t == 1)
			tail_reset_bases(&win[PK_GPU]);   /* as after a failed write: absolute again */
		tail_encode(&b[t], win, 0, t, arr[t], 8, srcs, 2);
		CHECK_INT(tail_window(b[t].s, b[t].len), 0);
	}
	for (int t = 0; t < 3; t++)
		CHECK(tail_decode(back, t, b[t].s, b[t].len, &ar, &bsrcs, &nb) == 0);
	for (int k = 0; k < PK_COUNT; k++)
		for (int i = 0; i < 32; i++) {
			const struct series *x = &win[k].s[i], *y = &back[k].s[i];

			CHECK_INT(y->n, x->n);
			for (int32_t r = 0; r < x->n && r < y->n; r++) {
				CHECK_INT(y->tick[r], x->tick[r]);
				CHECK_INT(y->tdelta ? y->tdelta[r] : 0, x->tdelta ? x->tdelta[r] : 0);
				CHECK_STR(bsrcs[y->src ? y->src[r] : 0], srcs[x->src ? x->src[r] : 0]);
				for (int c = 0; c < pack_nv(k); c++)
					CHECK_INT(series_value(y, pack_nv(k), r, c), series_value(x, pack_nv(k), r, c));
			}
		}
	CHECK(tail_decode(back, 3, b[0].s, b[0].len / 2, &ar, &bsrcs, &nb) < 0);   /* truncated */
	struct sbuf l = {0};
	struct arrival *lb = NULL;
	size_t cap = 0;

	layout_encode(&l, arr[0], 8);
	CHECK_INT(layout_decode(l.s, l.len, &lb, &cap), 8);
	for (int i = 0; i < 8 && lb; i++)
		CHECK(lb[i].kind == arr[0][i].kind && lb[i].node == arr[0][i].node && lb[i].idx == arr[0][i].idx);
	free(lb);
	free(bsrcs);
	sbuf_free(&l);
	for (int t = 0; t < 3; t++)
		sbuf_free(&b[t]);
	arena_free(&ar);
	for (int k = 0; k < PK_COUNT; k++) {
		window_free(&win[k]);
		window_free(&back[k]);
	}
}
