/*
 * sim_fixture.c - what the simulator's unit tests share (sim_fixture.h):
 * capturing what it prints, building one from a spec, stepping it, and a
 * small JSON syntax checker.
 */
#include <ctype.h>
#include <stdlib.h>
#include "test.h"
#include "sim_fixture.h"

/* ---- capturing what the simulator prints ---- */



void cap_text(void *ctx, enum sim_stream st, int32_t node, const char *buf, size_t n)
{
	struct cap *c = ctx;
	int lines = 0;

	c->hash = hash_bytes(c->hash, &st, sizeof st);
	c->hash = hash_bytes(c->hash, &node, sizeof node);
	c->hash = hash_bytes(c->hash, buf, n);
	c->bytes[st] += (int64_t)n;
	c->chunks[st]++;
	if (c->keep[st])
		sbuf_add(&c->all[st], buf, n);
	sbuf_reset(&c->last[st]);
	sbuf_add(&c->last[st], buf, n);
	c->last_node[st] = node;
	if (node >= 0 && node < 256)
		c->per_node[st][node]++;
	if (st == SIM_NVSMI) {
		for (size_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
		if (lines != 8 || buf[n - 1] != '\n')
			c->bad_nvsmi_chunks++;
	}
}

void cap_init(struct cap *c)
{
	memset(c, 0, sizeof *c);
	c->hash = HASH_INIT;
}

void cap_free(struct cap *c)
{
	for (int i = 0; i < SIM_STREAM_COUNT; i++) {
		sbuf_free(&c->all[i]);
		sbuf_free(&c->last[i]);
	}
}

struct sim *make(const char *spec)
{
	struct sim_spec sp;
	char *err = NULL;

	sim_spec_default(&sp);
	if (sim_spec_parse(&sp, spec, &err)) {
		fprintf(stderr, "  bad spec %s: %s\n", spec, err);
		free(err);
		return NULL;
	}
	return sim_new(&sp);
}

void run(struct sim *s, struct cap *c, int steps)
{
	struct sim_sink sink = {c, cap_text};

	for (int i = 0; i < steps; i++)
		sim_step(s, c ? &sink : NULL);
}

/* ---- a small JSON checker (syntax only) ---- */

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (!*p || !strchr("\"\\/bfnrtu", *p))
				return NULL;
		}
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *js_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	return p > s ? p : NULL;
}

static const char *js_items(const char *p, char close, int object, int depth)
{
	p = js_ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (!(p = js_string(js_ws(p))))
				return NULL;
			p = js_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		if (!(p = js_value(p, depth + 1)))
			return NULL;
		p = js_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *js_value(const char *p, int depth)
{
	p = js_ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{')
		return js_items(p + 1, '}', 1, depth);
	if (*p == '[')
		return js_items(p + 1, ']', 0, depth);
	if (*p == '"')
		return js_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return js_number(p);
}

int json_ok(const char *doc)
{
	const char *end = js_value(doc, 0);

	return end && *js_ws(end) == '\0';
}

/* The number after "key": in doc (first match at or after from). */
double json_num(const char *doc, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = strstr(doc, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1e300;
}

/* ---- conservation ---- */

static int job_has_gpu(const struct sim_test_job *j, int64_t gpu)
{
	int32_t node = (int32_t)(gpu / 8);

	if (!(j->mask >> (gpu % 8) & 1))
		return 0;
	for (int32_t i = 0; i < j->nnodes; i++)
		if (j->nodes[i] == node)
			return 1;
	return 0;
}

/* Every busy GPU belongs to exactly one running job, every running job's
 * GPUs point back at it, and running GPUs stay within the load cap. */
int conservation_errors(const struct sim *s)
{
	int64_t gpus = sim_topo(s)->gpus, used = 0, errors = 0;
	struct sim_test_stats st;

	for (int32_t i = 0; i < sim_test_job_count(s); i++) {
		struct sim_test_job j;

		sim_test_job(s, i, &j);
		if (j.state != JOB_RUNNING)
			continue;
		used += (int64_t)j.nnodes * j.gpus_per_node;
		errors += __builtin_popcount(j.mask) != j.gpus_per_node;
		for (int32_t k = 0; k < j.nnodes; k++)
			for (int g = 0; g < 8; g++)
				if (j.mask >> g & 1)
					errors += sim_test_gpu_job(s, (int64_t)j.nodes[k] * 8 + g) != j.id;
	}
	for (int64_t g = 0; g < gpus; g++) {
		uint32_t id = sim_test_gpu_job(s, g);
		int owners = 0;

		for (int32_t i = 0; id && i < sim_test_job_count(s); i++) {
			struct sim_test_job j;

			sim_test_job(s, i, &j);
			owners += j.state == JOB_RUNNING && job_has_gpu(&j, g);
		}
		errors += id && owners != 1;
		used -= id != 0;
	}
	sim_test_stats(s, &st);
	errors += used != 0;
	errors += st.running_gpus > st.cap_gpus;
	return (int)errors;
}
