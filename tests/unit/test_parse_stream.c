/*
 * test_parse_stream.c - real output (tests/data/real/) through streams into
 * the model of a small simulated cluster: a 212-column nvidia-smi query
 * names the node's GPU model (model, event JSON, node panel), an SXid event
 * of three lines is one fault on the switch, InfiniBand rails come from the
 * link layer or a site mapping and RoCE devices are not rails, counters a
 * port cannot give are unknown; and the new event fields replay from
 * recordings made before they existed.
 */
#include <locale.h>
#include <stdlib.h>
#include "test.h"
#include "myriad.h"
#include "stream.h"
#include "store/evjson.h"
#include "ui/ui_int.h"

static void start(struct myriad *app)
{
	char *err = NULL;

	app_init(app);
	if (app_add_source(app, "sim", "gpus=64,seed=1", &err) < 0) {
		fprintf(stderr, "  sim: %s\n", err);
		free(err);
		test_failures++;
		return;
	}
	app_tick(app);
	app_tick(app);
}

/* Feeds a file through a stream of node `node`, in 1000-byte pieces (lines
 * cross pieces), then ends it and applies what it said. */
static void feed_file(struct myriad *app, struct stream *st, const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[1000];
	size_t k;

	if (!f) {
		fprintf(stderr, "  cannot open %s\n", path);
		test_failures++;
		return;
	}
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		stream_feed(st, buf, k, app->now);
	fclose(f);
	stream_end(st, app->now);
	bus_flush(&app->bus);
}

struct seen {
	int xid, sxid, ib, gpu_info;
	int32_t links[8];
	uint32_t ib_rails;                /* bit r: an EV_IB for rail r */
	struct ev_ib ib_ev[8];
	char name[64];
};

static void watch(void *ctx, const struct event *ev)
{
	struct seen *s = ctx;

	if (ev->type == EV_XID && ev->u.xid.sxid) {
		if (s->sxid < 8)
			s->links[s->sxid] = ev->u.xid.link;
		s->sxid++;
	} else if (ev->type == EV_XID) {
		s->xid++;
	} else if (ev->type == EV_IB) {
		s->ib++;
		if (ev->u.ib.port >= 0 && ev->u.ib.port < 8) {
			s->ib_rails |= 1u << ev->u.ib.port;
			s->ib_ev[ev->u.ib.port] = ev->u.ib;
		}
	} else if (ev->type == EV_GPU_INFO) {
		s->gpu_info++;
		snprintf(s->name, sizeof s->name, "%s", ev->u.gpu_info.name ? ev->u.gpu_info.name : "(null)");
	}
}

static char *screen(struct console *c)
{
	return grid_text(&c->grid);
}

TEST(stream_wide_nvsmi_query_names_the_gpu_model)
{
	struct myriad app;
	struct stream st;
	struct seen s;
	int32_t g;

	memset(&s, 0, sizeof s);
	start(&app);
	bus_subscribe(&app.bus, 1u << EV_GPU_INFO, watch, &s);
	g = model_gpu(&app.model, 5, 0);
	CHECK_STR(app.model.gpu_name[g], "");   /* the simulator's query has no name */
	stream_init(&st, &app.bus, &app.model, 5, FMT_NVSMI, "test");
	feed_file(&app, &st, "tests/data/real/nvsmi-h100-590.48.01.csv");
	CHECK_INT(st.rejected, 0);
	CHECK_INT(st.records, 2);
	CHECK_INT(app.model.nodes[5].parse_errors, 0);
	CHECK_STR(app.model.gpu_name[g], "NVIDIA H100 80GB HBM3");
	CHECK_STR(app.model.pci[g], "00000000:00:09.0");
	CHECK_INT(app.model.met[MET_POWER][g], 63195);
	CHECK(s.gpu_info >= 1);
	CHECK_STR(s.name, "NVIDIA H100 80GB HBM3");

	/* the node panel says which GPU model the node has */
	setlocale(LC_CTYPE, "C.UTF-8");
	struct console *c = console_new(&app, NULL, 200, 60);

	app.console = c;
	c->node_sel = 5;
	console_draw(c, 1);
	console_key(c, '6');
	console_draw(c, 1);
	char *text = screen(c);

	CHECK(strstr(text, "gpus: NVIDIA H100 80GB HBM3 x1") != NULL);
	free(text);
	console_free(c);
	app.console = NULL;

	/* a header-less line of another width: the reason says what to do */
	static const char narrow[] = "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13\n";

	stream_feed(&st, narrow, sizeof narrow - 1, app.now);
	CHECK_INT(st.rejected, 1);
	stream_free(&st);
	stream_init(&st, &app.bus, &app.model, 7, FMT_NVSMI, "test");
	stream_feed(&st, narrow, sizeof narrow - 1, app.now);
	bus_flush(&app.bus);
	int found = 0;

	for (int32_t i = 0; i < app.model.nfaults; i++)
		found |= app.model.faults[i].kind == FK_PARSE && app.model.faults[i].node == 7 &&
			 strstr(app.model.faults[i].text, "no header, cannot map columns") != NULL;
	CHECK(found);
	stream_free(&st);
	app_free(&app);
}

static const char L_FATAL[] = "[ 1108.858286] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 24007, Fatal, Link 28 "
			      "sourcetrack timeout error (First)\n";

TEST(stream_sxid_event_is_one_fault_on_the_switch)
{
	struct myriad app;
	struct stream st;
	struct seen s;
	const struct fault *f = NULL;
	int n = 0;

	memset(&s, 0, sizeof s);
	start(&app);
	bus_subscribe(&app.bus, 1u << EV_XID, watch, &s);
	stream_init(&st, &app.bus, &app.model, 3, FMT_XID, "test");
	feed_file(&app, &st, "tests/data/real/kmsg-h100-hgx-sxid-570.195.03.txt");
	CHECK_INT(st.rejected, 0);
	CHECK_INT(s.sxid, 3);   /* 9 lines, 3 switch events (one Data line is the tail of an earlier one) */
	CHECK_INT(s.xid, 0);
	CHECK_INT(s.links[0], 44);
	CHECK_INT(s.links[2], 46);
	for (int32_t i = 0; i < app.model.nfaults; i++)
		if (app.model.faults[i].node == 3 && app.model.faults[i].kind == FK_NVLINK) {
			f = &app.model.faults[i];
			n++;
		}
	CHECK_INT(n, 1);
	if (f) {
		CHECK_INT(f->gpu, -1);   /* the switch, not a GPU index */
		CHECK_INT(f->code, 22013);
		CHECK_INT(f->count, 3);
		CHECK_INT(f->severity, SEV_WARN);
		CHECK(strstr(f->text, "NVSwitch 0000:04:00.0 link 44 SXid 22013 (non-fatal)") != NULL);
	}
	for (int gpu = 0; gpu < 8; gpu++)
		CHECK_INT(app.model.last_xid[model_gpu(&app.model, 3, gpu)], 0);
	/* a fatal one is critical */
	stream_feed(&st, L_FATAL, sizeof L_FATAL - 1, app.now);
	bus_flush(&app.bus);
	n = 0;
	for (int32_t i = 0; i < app.model.nfaults; i++)
		n += app.model.faults[i].node == 3 && app.model.faults[i].code == 24007 &&
		     app.model.faults[i].severity == SEV_CRITICAL;
	CHECK_INT(n, 1);
	stream_free(&st);
	app_free(&app);
}

TEST(stream_xid_meets_the_gpu_by_any_pci_form)
{
	struct myriad app;
	struct stream nv, k;
	static const char hdr[] = "index, pci.bus_id, name\n";
	static const char row[] = "2, 00000019:01:00.0, NVIDIA GB200\n";
	static const char line[] = "[  12.5] NVRM: Xid (PCI:0019:01:00): 79, pid=0, GPU has fallen off the bus.\n";

	start(&app);
	stream_init(&nv, &app.bus, &app.model, 6, FMT_NVSMI, "test");
	stream_feed(&nv, hdr, sizeof hdr - 1, app.now);
	stream_feed(&nv, row, sizeof row - 1, app.now);
	bus_flush(&app.bus);
	CHECK_STR(app.model.gpu_name[model_gpu(&app.model, 6, 2)], "NVIDIA GB200");
	stream_init(&k, &app.bus, &app.model, 6, FMT_XID, "test");
	stream_feed(&k, line, sizeof line - 1, app.now);
	bus_flush(&app.bus);
	CHECK_INT(app.model.last_xid[model_gpu(&app.model, 6, 2)], 79);
	stream_free(&nv);
	stream_free(&k);
	app_free(&app);
}

TEST(stream_ib_rails_from_link_layer_not_names)
{
	struct myriad app;
	struct stream st;
	struct seen s;
	uint64_t errors;

	memset(&s, 0, sizeof s);
	start(&app);
	bus_subscribe(&app.bus, 1u << EV_IB, watch, &s);
	errors = app.model.nodes[4].parse_errors;
	stream_init(&st, &app.bus, &app.model, 4, FMT_IB, "test");
	feed_file(&app, &st, "tests/data/real/ib-h100-roce-bond-handmade.txt");
	CHECK_INT(st.rejected, 0);
	CHECK_INT(app.model.nodes[4].parse_errors, errors);
	CHECK_INT(s.ib, 16);            /* 8 rails x 2 dumps; the bond is no rail */
	CHECK_INT(s.ib_rails, 0xff);
	/* mlx5_9 is rail 7: its link_downed went 2 -> 3 */
	CHECK_INT(s.ib_ev[7].c[IBC_LINK_DOWNED], 3);
	CHECK_INT(s.ib_ev[0].c[IBC_SYMBOL_ERROR], 0);   /* not the bond's 90005 */
	int rail0 = 0, rail7 = 0;

	for (int32_t i = 0; i < app.model.nfaults; i++) {
		const struct fault *f = &app.model.faults[i];

		rail0 += f->node == 4 && f->kind == FK_IB && f->gpu == 0;
		rail7 += f->node == 4 && f->kind == FK_IB && f->gpu == 7 && f->code == IBC_LINK_DOWNED;
	}
	CHECK_INT(rail0, 0);
	CHECK_INT(rail7, 1);
	stream_free(&st);

	/* a site mapping: the named HCAs in that order, the others are not rails */
	const char *map[] = {"mlx5_9", "mlx5_bond_0"};

	memset(&s, 0, sizeof s);
	stream_init(&st, &app.bus, &app.model, 4, FMT_IB, "test");
	stream_set_rails(&st, map, 2);
	feed_file(&app, &st, "tests/data/real/ib-h100-roce-bond-handmade.txt");
	CHECK_INT(s.ib, 4);
	CHECK_INT(s.ib_rails, 0x3);
	CHECK_INT(s.ib_ev[1].c[IBC_SYMBOL_ERROR], 90005);
	stream_free(&st);
	app_free(&app);
}

TEST(stream_ib_counter_without_pma_is_unknown)
{
	struct myriad app;
	struct stream st;
	struct seen s;

	memset(&s, 0, sizeof s);
	start(&app);
	bus_subscribe(&app.bus, 1u << EV_IB, watch, &s);
	stream_init(&st, &app.bus, &app.model, 2, FMT_IB, "test");
	feed_file(&app, &st, "tests/data/real/ib-mlx4-vf-no-pma.txt");
	CHECK_INT(st.rejected, 0);
	CHECK_INT(s.ib, 1);
	CHECK_INT(s.ib_ev[0].have, 0);   /* no counter known */
	stream_free(&st);
	app_free(&app);
}

TEST(evjson_new_fields_and_older_recordings)
{
	struct event ev, back;
	struct sbuf b = {0};
	struct arena a = {0};

	memset(&ev, 0, sizeof ev);
	ev.type = EV_GPU_INFO;
	ev.u.gpu_info = (struct ev_gpu_info){1, 2, "GPU-x", "00000000:18:00.0", "NVIDIA H200"};
	evjson_encode(&b, &ev);
	CHECK(strstr(b.s, "\"name\":\"NVIDIA H200\"") != NULL);
	back.type = EV_GPU_INFO;
	CHECK_INT(evjson_decode(&back, b.s, b.len, &a), 0);
	CHECK_STR(back.u.gpu_info.name, "NVIDIA H200");
	/* a recording made before names: no "name" key */
	static const char old[] = "{\"node\":1,\"gpu\":2,\"uuid\":\"GPU-x\",\"pci\":\"00000000:18:00.0\"}";

	CHECK_INT(evjson_decode(&back, old, sizeof old - 1, &a), 0);
	CHECK_STR(back.u.gpu_info.name, "");
	static const char oldx[] = "{\"node\":1,\"gpu\":2,\"code\":79,\"pid\":0,\"pci\":\"0000:18:00\",\"text\":\"x\"}";

	back.type = EV_XID;
	CHECK_INT(evjson_decode(&back, oldx, sizeof oldx - 1, &a), 0);
	CHECK_INT(back.u.xid.sxid, 0);
	sbuf_reset(&b);
	ev.type = EV_XID;
	ev.u.xid = (struct ev_xid){1, -1, 22013, -1, "0000:04:00.0", "Non-fatal, Link 44", 1, 44, 0};
	evjson_encode(&b, &ev);
	CHECK_INT(evjson_decode(&back, b.s, b.len, &a), 0);
	CHECK_INT(back.u.xid.sxid, 1);
	CHECK_INT(back.u.xid.link, 44);
	CHECK_INT(back.u.xid.fatal, 0);
	sbuf_free(&b);
	arena_free(&a);
}
