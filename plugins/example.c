/*
 * example.c - a plugin a site can copy (myriad-plugins(7)): a source class
 * "tail" that follows files some other tool writes (one per node, in one of
 * the formats myriad parses: nvidia-smi CSV, kernel XID lines, IB counters)
 * and feeds them through myriad's own parsers, and a Tcl command
 * `tail_status` that says what it follows.
 *
 *   plugin load example gpu0001:nvidia-smi:/var/spool/telemetry/gpu0001.csv ...
 *   tail_status
 *
 * FORMAT is nvidia-smi, xid or ib. Each word after the name starts the
 * "tail" source with it (host->start_source).
 *
 * It uses nothing of myriad but the host table: it builds with
 *   cc -std=c11 -fPIC -shared -I.../include/myriad example.c -o example.so
 * and runs on the one event loop without blocking: a timer reads what the
 * files grew by, a bounded amount at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugin.h"

#define READ_MAX 65536             /* per file per tick */

struct tailed {
	char node[64], path[512];
	int fmt;
	long off;
	void *stream;
};

static const struct myriad_host *host;
static struct tailed files[64];
static int nfiles;

static int node_index(const char *name)
{
	const struct model *m = host->model(host);

	for (int32_t i = 0; i < m->nnodes; i++)
		if (!strcmp(m->nodes[i].name, name))
			return i;
	return -1;
}

/* "gpu0001:nvidia-smi:/var/spool/telemetry/gpu0001.csv,..." */
static int tail_start(struct source *src, const char *args, char **err)
{
	char *copy = strdup(args ? args : ""), *save = NULL;

	(void)src;
	for (char *t = strtok_r(copy, ",", &save); t && nfiles < 64; t = strtok_r(NULL, ",", &save)) {
		char *a = strchr(t, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		struct tailed *f = &files[nfiles];

		if (!b) {
			free(copy);
			if (asprintf(err, "tail: \"%s\" is not NODE:FORMAT:PATH", t) < 0)
				*err = NULL;
			return -1;
		}
		*a = *b = '\0';
		snprintf(f->node, sizeof f->node, "%s", t);
		snprintf(f->path, sizeof f->path, "%s", b + 1);
		f->fmt = !strcmp(a + 1, "xid") ? FMT_XID : !strcmp(a + 1, "ib") ? FMT_IB : FMT_NVSMI;
		nfiles++;   /* its stream opens at the first tick: the nodes may not be announced yet */
	}
	free(copy);
	return 0;
}

static int tail_tick(struct source *src, int64_t now)
{
	char buf[8192];

	(void)src, (void)now;
	for (int i = 0; i < nfiles; i++) {
		FILE *fp;
		size_t n, total = 0;

		if (!files[i].stream && node_index(files[i].node) >= 0)
			files[i].stream = host->stream_open(host, node_index(files[i].node), files[i].fmt);
		if (!files[i].stream || !(fp = fopen(files[i].path, "r")))
			continue;
		if (fseek(fp, files[i].off, SEEK_SET) == 0)
			while (total < READ_MAX && (n = fread(buf, 1, sizeof buf, fp)) > 0) {
				host->stream_feed(files[i].stream, buf, n);
				total += n;
			}
		files[i].off += (long)total;
		fclose(fp);
	}
	return 0;
}

static void tail_stop(struct source *src)
{
	(void)src;
	for (int i = 0; i < nfiles; i++)
		host->stream_close(files[i].stream);
	nfiles = 0;
}

static const struct source_ops tail_ops = {
	.name = "tail",
	.abi = MYRIAD_ABI,
	.start = tail_start,
	.tick = tail_tick,
	.stop = tail_stop,
};

static int status(void *ctx, int argc, const char *const *argv, char **result)
{
	size_t cap = 64 + (size_t)nfiles * 600, len = 0;

	(void)ctx, (void)argc, (void)argv;
	*result = malloc(cap);
	len += (size_t)snprintf(*result + len, cap - len, "%d file(s)", nfiles);
	for (int i = 0; i < nfiles; i++)
		len += (size_t)snprintf(*result + len, cap - len, "; %s %s at %ld", files[i].node, files[i].path,
					files[i].off);
	return 0;
}

static int load(const struct myriad_host *h, int argc, const char *const *argv, char **err)
{
	static const struct plugin_command cmd = {"tail_status", "", "what the tail source follows", status, NULL};

	host = h;
	if (h->add_source(h, &tail_ops) < 0 || h->add_command(h, &cmd) < 0) {
		*err = strdup("example: cannot register the tail source or the tail_status command");
		return -1;
	}
	for (int i = 0; i < argc; i++)
		if (h->start_source(h, "tail", argv[i], err) < 0)
			return -1;
	h->log(h, PLOG_INFO, "the tail source is ready");
	return 0;
}

static const struct myriad_plugin plugin = {
	MYRIAD_PLUGIN_ABI, "example", "1.0", "follows files of node output (a template for a site's own)", load, NULL,
};

const struct myriad_plugin *myriad_plugin(void);

const struct myriad_plugin *myriad_plugin(void)
{
	return &plugin;
}
