/*
 * slurm_ref.c - the reference for the Slurm parsers' tests: src/probe/slurm.c
 * as it was before documents were read as they arrive (jansson's json_loadb
 * of the whole document, JSON_REJECT_DUPLICATES, then the records). The
 * parser of src/probe must give the same records, the same rejected count
 * and an error for the same documents (tests/unit/test_slurm_stream.c).
 * See src/probe/slurm.c for the shapes and the rules.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "probe/parse.h"
#include "util.h"
#include "slurm_ref.h"

#define EPOCH_MAX 253402300799LL   /* 9999-12-31T23:59:59Z */
#define NO_GPU (-2)                 /* a GPU source that names no GPU (-1: names one, unreadable) */

/* ---- JSON helpers ---- */

/* 1: a number in *out; 0: absent, null or not set; -1: wrong type. */
static int get_num(json_t *o, const char *key, int64_t *out)
{
	json_t *v = json_object_get(o, key);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_object(v)) {
		json_t *set = json_object_get(v, "set"), *inf = json_object_get(v, "infinite");

		if ((set && !json_is_boolean(set)) || (inf && !json_is_boolean(inf)))
			return -1;
		if ((set && !json_is_true(set)) || (inf && json_is_true(inf)))
			return 0;
		v = json_object_get(v, "number");
		if (!v)
			return 0;
	}
	if (!json_is_integer(v))
		return -1;
	*out = json_integer_value(v);
	return 1;
}

/* 1: a string in *out; 0: absent or null; -1: wrong type. */
static int get_str(json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = "";
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 1;
}

static int copy_str(json_t *o, const char *key, char *dst, size_t cap)
{
	const char *s;
	int rc = get_str(o, key, &s);

	parse_copy(dst, cap, s, strlen(s));
	return rc;
}

/* Epoch seconds -> us; 0 when unset; -1 when out of range or mistyped. */
static int get_time(json_t *o, const char *key, int64_t *us)
{
	int64_t s;
	int rc = get_num(o, key, &s);

	*us = 0;
	if (rc < 0 || (rc > 0 && (s < 0 || s > EPOCH_MAX)))
		return -1;
	*us = s * US_PER_SEC;
	return 0;
}

/* ---- GRES strings ---- */

struct span {
	const char *p;
	size_t n;
};

static int dig(char c) { return c >= '0' && c <= '9'; }

/* Next comma-separated entry at parenthesis depth 0. 0 at the end. */
static int next_entry(const char **s, struct span *e)
{
	const char *p = *s;
	int depth = 0;

	if (!*p)
		return 0;
	e->p = p;
	for (; *p && !(*p == ',' && depth == 0); p++)
		depth += (*p == '(') - (*p == ')');
	e->n = (size_t)(p - e->p);
	*s = *p ? p + 1 : p;
	return 1;
}

/* n digits at p -> value; -1 if none, more than 7 or not digits. */
static int64_t count_of(const char *p, size_t n)
{
	int64_t v = 0;

	if (!n || n > 7)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!dig(p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

static int is_gpu(struct span e)
{
	return e.n >= 3 && !memcmp(e.p, "gpu", 3) && (e.n == 3 || e.p[3] == ':' || e.p[3] == '(');
}

/* "gpu:h100:8(IDX:0-7)" or "gpu:h100(CNT:8)" -> count 8 when the entry is a
 * GPU; 0 if it is not a GPU, -1 if it is but has no count. */
static int64_t gpu_entry_count(struct span e)
{
	size_t end = 0, last = 0;

	if (!is_gpu(e))
		return 0;
	while (end < e.n && e.p[end] != '(')
		end++;
	if (e.n - end > 6 && !memcmp(e.p + end, "(CNT:", 5) && e.p[e.n - 1] == ')')
		return count_of(e.p + end + 5, e.n - end - 6);
	for (size_t i = 0; i < end; i++)
		if (e.p[i] == ':')
			last = i + 1;
	if (!last || end - last > 6)
		return -1;
	return count_of(e.p + last, end - last);
}

/* Sum of GPU counts in a GRES string; -1 if a GPU entry is unreadable.
 * *named (if not NULL) is set when an entry is a GPU. */
static int32_t gres_gpus(const char *s, int *named)
{
	struct span e;
	int64_t sum = 0;

	if (!strcmp(s, "(null)"))
		return 0;
	while (next_entry(&s, &e)) {
		int64_t c = gpu_entry_count(e);

		if (named && is_gpu(e))
			*named = 1;
		if (c < 0)
			return -1;
		sum += c;
		if (sum > 1000000)
			return -1;
	}
	return (int32_t)sum;
}

/* "0-1,4-5" up to ')' -> bit mask; -1 on an index > 31 or garbage. */
static int64_t idx_mask(const char *p, const char *end)
{
	uint32_t m = 0;

	if (end - p == 3 && !memcmp(p, "N/A", 3))
		return 0;
	while (p < end) {
		int a = 0, b, nd = 0;

		for (; p < end && dig(*p) && nd < 3; p++, nd++)
			a = a * 10 + (*p - '0');
		if (!nd)
			return -1;
		b = a;
		if (p < end && *p == '-') {
			p++;
			for (b = 0, nd = 0; p < end && dig(*p) && nd < 3; p++, nd++)
				b = b * 10 + (*p - '0');
			if (!nd)
				return -1;
		}
		if (a > b || b > 31 || (p < end && *p != ','))
			return -1;
		for (int i = a; i <= b; i++)
			m |= 1u << i;
		p += p < end;
	}
	return m;
}

/* Union of "gpu...(IDX:...)" masks of a GRES string; -1 if unreadable. */
static int64_t gres_mask(const char *s)
{
	struct span e;
	int64_t m = 0;

	while (next_entry(&s, &e)) {
		const char *idx, *close;
		int64_t k;

		if (gpu_entry_count(e) <= 0)
			continue;
		idx = memmem(e.p, e.n, "(IDX:", 5);
		if (!idx)
			continue;
		close = memchr(idx, ')', e.n - (size_t)(idx - e.p));
		if (!close || (k = idx_mask(idx + 5, close)) < 0)
			return -1;
		m |= k;
	}
	return m;
}

/* "cpu=64,mem=1T,node=4,billing=64,gres/gpu=32" -> 32. Without "gres/gpu"
 * the typed counts ("gres/gpu:h100=32") are summed; none at all -> NO_GPU. */
static int64_t tres_gpus(const char *s)
{
	struct span e;
	int64_t plain = -1, typed = NO_GPU;

	while (next_entry(&s, &e)) {
		size_t eq = 0;
		int64_t v = 0;

		while (eq < e.n && e.p[eq] != '=')
			eq++;
		if (eq < 8 || memcmp(e.p, "gres/gpu", 8) || (eq > 8 && e.p[8] != ':'))
			continue;
		if (eq + 1 >= e.n || e.n - eq - 1 > 9)
			return -1;
		for (size_t i = eq + 1; i < e.n; i++) {
			if (!dig(e.p[i]))
				return -1;
			v = v * 10 + (e.p[i] - '0');
		}
		if (eq == 8)
			plain = v;
		else
			typed = MAX(typed, 0) + v;
	}
	return plain >= 0 ? plain : typed;
}

/* A tres_per_* entry: "gres:gpu:8", "gres:gpu:h100:8" (22.05, 23.02),
 * "gres/gpu:8" (23.11+), "gres/gpu=1", "gres/gpu:a100=2" (tres_per_task,
 * 24.05+), "gres/gpu" or "gres/gpu:h100" (a count of 1, Slurm's default).
 * NO_GPU if not a GPU, -1 if the count is unreadable ("gres/gpu:1k"). */
static int64_t per_entry_gpus(struct span e)
{
	size_t eq = 0, last = 0;

	if (e.n < 8 || memcmp(e.p, "gres", 4) || (e.p[4] != '/' && e.p[4] != ':') ||
	    memcmp(e.p + 5, "gpu", 3) || (e.n > 8 && e.p[8] != ':' && e.p[8] != '='))
		return NO_GPU;
	for (size_t i = 8; i < e.n; i++) {
		eq = e.p[i] == '=' ? i + 1 : eq;
		last = e.p[i] == ':' ? i + 1 : last;
	}
	if (eq)
		return count_of(e.p + eq, e.n - eq);
	if (!last || (last < e.n && !dig(e.p[last])))
		return 1;
	return count_of(e.p + last, e.n - last);
}

/* Sum over a tres_per_* string; NO_GPU if it names no GPU, -1 if unreadable. */
static int64_t per_gpus(const char *s)
{
	struct span e;
	int64_t sum = NO_GPU;

	while (next_entry(&s, &e)) {
		int64_t c = per_entry_gpus(e);

		if (c == NO_GPU)
			continue;
		if (c < 0 || (sum = MAX(sum, 0) + c) > 1000000)
			return -1;
	}
	return sum;
}

/* ---- state names ---- */

static const struct {
	const char *name;
	uint32_t flag;
} node_flags[] = {
	{"DRAIN", NODE_F_DRAIN}, {"DRAINED", NODE_F_DRAIN}, {"DRAINING", NODE_F_DRAIN},
	{"NOT_RESPONDING", NODE_F_NOT_RESPONDING}, {"MAINTENANCE", NODE_F_MAINT},
	{"MAINT", NODE_F_MAINT}, {"REBOOT_REQUESTED", NODE_F_REBOOT},
	{"REBOOT_ISSUED", NODE_F_REBOOT}, {"REBOOT", NODE_F_REBOOT},
	{"COMPLETING", NODE_F_COMPLETING}, {"FAIL", NODE_F_FAIL}, {"FAILING", NODE_F_FAIL},
};

static uint32_t flag_from_name(const char *w)
{
	for (size_t i = 0; i < ARRAY_LEN(node_flags); i++)
		if (!strcasecmp(node_flags[i].name, w))
			return node_flags[i].flag;
	return 0;   /* CLOUD, POWERED_DOWN, INVALID_REG, ...: not kept */
}

/* One state word: the first base state counts; other words are flags. */
static void node_word(const char *w, int32_t *base, uint32_t *flags)
{
	int b = node_base_from_name(w);

	if (b >= 0 && *base < 0)
		*base = b;
	else if (b < 0)
		*flags |= flag_from_name(w);
}

static int node_words(json_t *arr, int32_t *base, uint32_t *flags)
{
	char w[64];
	size_t i;
	json_t *e;

	if (!json_is_array(arr))
		return -1;
	json_array_foreach(arr, i, e) {
		if (!json_is_string(e))
			return -1;
		parse_copy(w, sizeof w, json_string_value(e), strlen(json_string_value(e)));
		node_word(w, base, flags);
	}
	return 0;
}

/* "idle", "IDLE+DRAIN" or ["IDLE", "DRAIN"]. -1 if no base state. */
static int node_state(json_t *v, int32_t *base, uint32_t *flags)
{
	char w[64];

	if (json_is_string(v)) {
		const char *s = json_string_value(v);

		while (*s) {
			size_t n = strcspn(s, "+");

			parse_copy(w, sizeof w, s, n);
			node_word(w, base, flags);
			s += n + (s[n] == '+');
		}
	} else if (node_words(v, base, flags)) {
		return -1;
	}
	return *base >= 0 ? 0 : -1;
}

/* A job state as Slurm prints it, or an array (base first, then flags):
 * the first known name counts, except that COMPLETING wins. */
static int job_state(json_t *v)
{
	int st = -1, completing = 0;
	size_t n = json_is_array(v) ? json_array_size(v) : 1;

	for (size_t i = 0; i < n; i++) {
		json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
		int s;

		if (!json_is_string(e))
			return -1;
		s = job_state_from_name(json_string_value(e));
		completing |= s == JOB_COMPLETING;
		if (st < 0)
			st = s;
	}
	return completing ? JOB_COMPLETING : st;
}

/* ---- documents ---- */

static json_t *load(const char *json, size_t len, char **err)
{
	json_error_t je;
	json_t *root;

	if (!json) {
		*err = xstrdup("no input");
		return NULL;
	}
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		*err = xasprintf("not JSON (line %d, column %d)", je.line, je.column);
		return NULL;
	}
	if (!json_is_object(root)) {
		*err = xstrdup("not a JSON object");
		json_decref(root);
		return NULL;
	}
	return root;
}

static int node_gres(struct slurm_node_rec *r, json_t *o, const char *k_total,
		     const char *k_used)
{
	const char *gres, *used;
	int hg = get_str(o, k_total, &gres), hu = get_str(o, k_used, &used);

	if (hg < 0 || hu < 0)
		return -1;
	r->gpus = hg ? gres_gpus(gres, NULL) : -1;
	r->gpus_used = hu ? gres_gpus(used, NULL) : -1;
	return 0;
}

static void node_init(struct slurm_node_rec *r)
{
	memset(r, 0, sizeof *r);
	r->base = -1;
	r->gpus = r->gpus_used = -1;
}

/* 22.05 / scontrol / slurmrestd shape: one object per node. */
static int node_from_obj(json_t *o, struct slurm_node_rec *r)
{
	const char *name;
	json_t *fl;

	node_init(r);
	if (!json_is_object(o) || get_str(o, "name", &name) <= 0 || !*name ||
	    strlen(name) >= sizeof r->name)
		return -1;
	parse_copy(r->name, sizeof r->name, name, strlen(name));
	if (node_state(json_object_get(o, "state"), &r->base, &r->flags))
		return -1;
	fl = json_object_get(o, "state_flags");
	if (fl && !json_is_null(fl) && node_words(fl, &r->base, &r->flags))
		return -1;
	if (copy_str(o, "reason", r->reason, sizeof r->reason) < 0 ||
	    copy_str(o, "reason_set_by_user", r->reason_who, sizeof r->reason_who) < 0 ||
	    get_time(o, "reason_changed_at", &r->reason_time) < 0)
		return -1;
	return node_gres(r, o, "gres", "gres_used");
}

/* "reason": "text" or {"description", "time", "user"} (sinfo shape). */
static int sinfo_reason(json_t *o, struct slurm_node_rec *r)
{
	json_t *v = json_object_get(o, "reason");

	if (!v || json_is_null(v) || json_is_string(v))
		return copy_str(o, "reason", r->reason, sizeof r->reason) < 0 ? -1 : 0;
	if (!json_is_object(v))
		return -1;
	if (copy_str(v, "description", r->reason, sizeof r->reason) < 0 ||
	    copy_str(v, "user", r->reason_who, sizeof r->reason_who) < 0 ||
	    get_time(v, "time", &r->reason_time) < 0)
		return -1;
	return 0;
}

/* Newer `sinfo --json` shape: one object per group of nodes in one state. */
static int sinfo_group(json_t *o, struct slurm_node_rec *r, json_t **names)
{
	json_t *node = json_object_get(o, "node"), *nodes = json_object_get(o, "nodes");
	json_t *gres = json_object_get(o, "gres");

	node_init(r);
	if (!json_is_object(o) || !json_is_object(node) || !json_is_object(nodes))
		return -1;
	*names = json_object_get(nodes, "nodes");
	if (!json_is_array(*names))
		return -1;
	if (node_state(json_object_get(node, "state"), &r->base, &r->flags) ||
	    sinfo_reason(o, r))
		return -1;
	if (gres && !json_is_object(gres))
		return -1;
	return gres ? node_gres(r, gres, "total", "used") : 0;
}

static int sinfo_nodes(json_t *arr, void (*fn)(void *, const struct slurm_node_rec *),
		       void *ctx, int *bad)
{
	struct slurm_node_rec r;
	size_t i, j;
	json_t *g, *names, *nm;
	int n = 0;

	json_array_foreach(arr, i, g) {
		if (sinfo_group(g, &r, &names)) {
			(*bad)++;
			continue;
		}
		json_array_foreach(names, j, nm) {
			const char *s = json_string_value(nm);

			if (!s || !*s || strlen(s) >= sizeof r.name) {
				(*bad)++;
				continue;
			}
			parse_copy(r.name, sizeof r.name, s, strlen(s));
			if (fn)
				fn(ctx, &r);
			n++;
		}
	}
	return n;
}

/* The prologue of both parsers: the document, and its array under key (or
 * alt); NULL with *err when either is missing. *root is the caller's to free. */
static json_t *doc_array(const char *json, size_t len, const char *key, const char *alt, json_t **root,
			 int *rejected, char **err)
{
	json_t *arr;

	if (rejected)
		*rejected = 0;
	if (!(*root = load(json, len, err)))
		return NULL;
	arr = json_object_get(*root, key);
	if (!json_is_array(arr) && alt)
		arr = json_object_get(*root, alt);
	if (json_is_array(arr))
		return arr;
	*err = alt ? xasprintf("no \"%s\" or \"%s\" array", key, alt) : xasprintf("no \"%s\" array", key);
	json_decref(*root);
	return NULL;
}

/* ... and their epilogue: the count of records, and of rejected ones. */
static int doc_done(json_t *root, int n, int bad, int *rejected)
{
	json_decref(root);
	if (rejected)
		*rejected = bad;
	return n;
}

int ref_slurm_parse_nodes(const char *json, size_t len,
		      void (*fn)(void *ctx, const struct slurm_node_rec *r), void *ctx,
		      int *rejected, char **err)
{
	struct slurm_node_rec r;
	json_t *root, *arr = doc_array(json, len, "nodes", "sinfo", &root, rejected, err), *o;
	size_t i;
	int n = 0, bad = 0;

	if (!arr)
		return -1;
	if (arr != json_object_get(root, "nodes")) {
		n = sinfo_nodes(arr, fn, ctx, &bad);
	} else {
		json_array_foreach(arr, i, o) {
			if (node_from_obj(o, &r)) {
				bad++;
				continue;
			}
			if (fn)
				fn(ctx, &r);
			n++;
		}
	}
	return doc_done(root, n, bad, rejected);
}

/* ---- jobs ---- */

/* node_count, tasks, sockets_per_node: > 0, or -1 if not set or mistyped
 * (the complex mode of data_parser prints "Infinity"). */
static int64_t job_count(json_t *o, const char *key)
{
	int64_t v;

	return get_num(o, key, &v) > 0 && v > 0 && v <= 1000000 ? v : -1;
}

/* GPUs the job asked for: tres_per_job as is, tres_per_node x node_count,
 * tres_per_task x tasks, tres_per_socket x sockets_per_node x node_count;
 * the first that gives a total. NO_GPU if none names a GPU, -1 if one does
 * but the total is unknown. *all: the four fields are there (string or null). */
static int64_t asked_gpus(json_t *o, int *all)
{
	static const struct {
		const char *key, *by[2];
	} f[] = {
		{"tres_per_job", {NULL, NULL}}, {"tres_per_node", {"node_count", NULL}},
		{"tres_per_task", {"tasks", NULL}}, {"tres_per_socket", {"sockets_per_node", "node_count"}},
	};
	int64_t worst = NO_GPU;

	*all = 1;
	for (size_t i = 0; i < ARRAY_LEN(f); i++) {
		const char *s;
		int rc = get_str(o, f[i].key, &s);
		int64_t n;

		*all &= rc > 0 || (rc == 0 && json_object_get(o, f[i].key));
		if (rc <= 0 || (n = per_gpus(s)) == NO_GPU)
			continue;
		for (int k = 0; k < 2 && f[i].by[k] && n >= 0; k++) {
			int64_t m = job_count(o, f[i].by[k]);

			n = m < 0 ? -1 : n * m;
		}
		if (n >= 0)
			return n;
		worst = -1;
	}
	return worst;
}

/* GPUs of gres_detail (one string per allocated node), summed. NO_GPU if it
 * names none, -1 if unreadable. *there: it is an array. */
static int64_t detail_gpus(json_t *o, int *there)
{
	json_t *d = json_object_get(o, "gres_detail"), *e;
	int64_t sum = NO_GPU;
	size_t i;

	*there = json_is_array(d);
	json_array_foreach(d, i, e) {
		int named = 0;
		int32_t c = json_is_string(e) ? gres_gpus(json_string_value(e), &named) : -1;

		if (c < 0)
			return -1;
		if (named)
			sum = MAX(sum, 0) + c;
	}
	return sum;
}

/* The job's GPUs in all: the first source that gives a count, in the order
 * and with the rule for 0 of the comment at the top. */
static int job_gpus(json_t *o, struct slurm_job_rec *r)
{
	const char *alloc, *req;
	int ha = get_str(o, "tres_alloc_str", &alloc), hr = get_str(o, "tres_req_str", &req);
	int detail, all, started = r->state == JOB_RUNNING || r->state == JOB_SUSPENDED;
	int64_t src[4], worst = NO_GPU;

	if (ha < 0 || hr < 0)
		return -1;
	src[0] = tres_gpus(alloc);
	src[1] = detail_gpus(o, &detail);
	src[2] = tres_gpus(req);
	src[3] = asked_gpus(o, &all);
	for (size_t i = 0; i < ARRAY_LEN(src); i++) {
		if (src[i] >= 0) {
			r->gpus = src[i] > INT32_MAX ? -1 : (int32_t)src[i];
			return 0;
		}
		worst = MAX(worst, src[i]);
	}
	r->gpus = worst == NO_GPU && (all || (detail && started)) ? 0 : -1;
	return 0;
}

static int job_mask(json_t *o, struct slurm_job_rec *r)
{
	json_t *d = json_object_get(o, "gres_detail"), *e;
	size_t i;

	if (!d || json_is_null(d))
		return 0;
	if (!json_is_array(d))
		return -1;
	json_array_foreach(d, i, e) {
		int64_t m;

		if (!json_is_string(e))
			return -1;
		m = gres_mask(json_string_value(e));
		if (m < 0) {
			r->gpu_mask = 0;   /* unreadable: unknown */
			return 0;
		}
		r->gpu_mask |= (uint32_t)m;
	}
	return 0;
}

static int job_from_obj(json_t *o, struct slurm_job_rec *r)
{
	const char *nodes;
	int64_t id;

	memset(r, 0, sizeof *r);
	r->gpus = -1;
	if (!json_is_object(o) || get_num(o, "job_id", &id) <= 0 || id <= 0 || id > UINT32_MAX)
		return -1;
	r->id = (uint32_t)id;
	r->state = job_state(json_object_get(o, "job_state"));
	if (r->state < 0)
		return -1;
	if (copy_str(o, "name", r->name, sizeof r->name) < 0 ||
	    copy_str(o, "user_name", r->user, sizeof r->user) < 0 ||
	    copy_str(o, "partition", r->partition, sizeof r->partition) < 0 ||
	    get_str(o, "nodes", &nodes) < 0 || strlen(nodes) >= sizeof r->nodes)
		return -1;
	parse_copy(r->nodes, sizeof r->nodes, nodes, strlen(nodes));
	if (get_time(o, "submit_time", &r->submit_time) ||
	    get_time(o, "start_time", &r->start_time))
		return -1;
	return job_gpus(o, r) || job_mask(o, r) ? -1 : 0;
}

int ref_slurm_parse_jobs(const char *json, size_t len,
		     void (*fn)(void *ctx, const struct slurm_job_rec *r), void *ctx,
		     int *rejected, char **err)
{
	struct slurm_job_rec r;
	json_t *root, *arr = doc_array(json, len, "jobs", NULL, &root, rejected, err), *o;
	size_t i;
	int n = 0, bad = 0;

	if (!arr)
		return -1;
	json_array_foreach(arr, i, o) {
		if (job_from_obj(o, &r)) {
			bad++;
			continue;
		}
		if (fn)
			fn(ctx, &r);
		n++;
	}
	return doc_done(root, n, bad, rejected);
}

/* ---- comparing a reader with the reference ---- */

void slurm_got_node(void *ctx, const struct slurm_node_rec *r)
{
	sbuf_add(ctx, (const char *)r, sizeof *r);
}

void slurm_got_job(void *ctx, const struct slurm_job_rec *r)
{
	sbuf_add(ctx, (const char *)r, sizeof *r);
}

void slurm_got_ref(int jobs, const char *s, size_t n, struct slurm_got *g)
{
	memset(g, 0, sizeof *g);
	g->bad = -7;
	g->rc = jobs ? ref_slurm_parse_jobs(s, n, slurm_got_job, &g->recs, &g->bad, &g->err)
		     : ref_slurm_parse_nodes(s, n, slurm_got_node, &g->recs, &g->bad, &g->err);
}

int slurm_got_same(const struct slurm_got *a, const struct slurm_got *b)
{
	return a->rc == b->rc && a->bad == b->bad && !a->err == !b->err && (!a->err || !strcmp(a->err, b->err)) &&
	       a->recs.len == b->recs.len && (!a->recs.len || !memcmp(a->recs.s, b->recs.s, a->recs.len));
}

void slurm_got_free(struct slurm_got *g)
{
	free(g->err);
	sbuf_free(&g->recs);
}
