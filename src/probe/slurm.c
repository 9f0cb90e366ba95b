/*
 * slurm.c - the records of `sinfo --json` and `squeue --json`: a node or a
 * job from one element of the document's array, read with jtape.h (the
 * document itself, read as it arrives, is slurm_doc.c's).
 *
 * Shapes understood (verified against SchedMD's sources):
 *  - 22.05, openapi v0.0.38: {"nodes": [{"name", "state": "idle",
 *    "state_flags": ["DRAIN"], "reason", "reason_set_by_user",
 *    "reason_changed_at": 1700000000, "gres": "gpu:8",
 *    "gres_used": "gpu:8(IDX:0-7)"}]} and {"jobs": [{"job_id", "name",
 *    "user_name", "partition", "job_state": "RUNNING", "nodes",
 *    "submit_time", "start_time", "tres_alloc_str", "tres_req_str",
 *    "gres_detail": ["gpu:8(IDX:0-7)"]}]}.
 *  - 23.x and later (data_parser v0.0.39+): "state" and "job_state" are
 *    arrays (["IDLE", "DRAIN"]), numbers may be {"set", "infinite",
 *    "number"}; `sinfo --json` may print {"sinfo": [{"nodes": {"nodes":
 *    [names]}, "node": {"state": [...]}, "gres": {"total", "used"},
 *    "reason": "..." or {"description", "time", "user"}}]}.
 * GRES strings ("gpu:h100:8(S:0-1),tmpsize:7T", "gpu:2(IDX:0,3)") are
 * parsed here too. Strings are copied bounded; a bad record is skipped and
 * counted, a bad document is refused.
 *
 * A job's GPUs in all. Without AccountingStorageTRES=gres/gpu (the default)
 * the TRES strings have no gres/gpu, so the count comes from the first of:
 *  1. tres_alloc_str "gres/gpu=N" (else its typed "gres/gpu:h100=N" summed);
 *  2. gres_detail, one string per allocated node, "gpu:h100:8(IDX:0-7)" or
 *     "gpu(CNT:8)" for a GRES without device files: summed over nodes;
 *  3. tres_req_str, as 1 (Slurm's own total; it names GPUs only on clusters
 *     that account them, where it is what a pending job asked for);
 *  4. what the job asked for: tres_per_job "gres/gpu:16" as is, tres_per_node
 *     "gres/gpu:8" x node_count, tres_per_task "gres/gpu=1" x tasks,
 *     tres_per_socket x sockets_per_node x node_count (see per_entry_gpus()
 *     for the spellings); node_count is the allocated count once running,
 *     the minimum asked for while pending;
 *  5. else 0 or unknown (-1). 0 only when no source names a GPU and either
 *     all four tres_per_* fields are there (Slurm puts every GPU request,
 *     --gres --gpus --gpus-per-node/-socket/-task --tres-per-task, in one of
 *     them, so none naming a GPU is a job without GPUs), or the job is
 *     RUNNING or SUSPENDED and gres_detail is an array naming no GPU (Slurm
 *     sends gres_detail for every started, unfinished job that asked for
 *     GRES, an empty array otherwise: pending and finished jobs always have
 *     [], so an empty one says nothing about them). A source that names a
 *     GPU without a readable total (tres_per_task and no task count) makes it
 *     unknown, never 0. A mistyped tres_per_* counts as absent. Checked
 *     against a real 22.05.8 (tests/data/squeue-22.05-notres-live.json).
 * The job fields as Slurm prints them (SchedMD/slurm, branches slurm-22.05
 * to slurm-24.11):
 *  - 22.05, src/plugins/openapi/v0.0.38/jobs.c (`squeue --json` loads that
 *    plugin, src/squeue/data.c): gres_detail an array of strings; node_count
 *    a number; tasks a number or null; sockets_per_node a number or null;
 *    tres_per_job/node/socket/task strings, "" when unset (NULL strings are
 *    "" in src/plugins/serializer/json/serializer_json.c).
 *  - 23.02 (data_parser v0.0.39), 23.11 (v0.0.40), 24.05 (v0.0.41), 24.11
 *    (v0.0.42), src/plugins/data_parser/v0.0.4x/parsers.c: gres_detail an
 *    array of strings (JOB_INFO_GRES_DETAIL); node_count and tasks
 *    UINT32_NO_VAL, sockets_per_node UINT16_NO_VAL, i.e. {"set", "infinite",
 *    "number"} (in the "complex" mode a number, null or "Infinity"); the
 *    tres_per_* STRING, "" when unset (null in the complex mode).
 *  - the spellings: "gres:gpu:8" until 23.02 (xfmt_tres() with "gres:gpu" in
 *    src/common/slurm_opt.c, gres_prepend_tres_type() in src/common/gres.c),
 *    "gres/gpu:8" from 23.11 (commit 53ec8d6697, "it should be
 *    TRESType/TRESName"), tres_per_task "gres/gpu=1" from 24.05
 *    (slurm_option_update_tres_per_task()). gres_detail is written by
 *    gres_ctld_job_build_details() in src/slurmctld/gres_ctld.c (22.05 to
 *    23.11), gres_stepmgr_job_build_details() in src/stepmgr/gres_stepmgr.c
 *    (24.05+), and sent by _pack_job_gres() in src/slurmctld/job_mgr.c.
 */
#include <string.h>
#include <strings.h>
#include "jtape.h"
#include "slurm_int.h"

#define EPOCH_MAX 253402300799LL   /* 9999-12-31T23:59:59Z */
#define NO_GPU (-2)                 /* a GPU source that names no GPU (-1: names one, unreadable) */

/* ---- JSON helpers ---- */

/* 1: a number in *out; 0: absent, null or not set; -1: wrong type. */
static int get_num(struct jtape *t, int o, const char *key, int64_t *out)
{
	int v = jt_get(t, o, key);

	*out = 0;
	if (v < 0 || jt_is_null(t, v))
		return 0;
	if (jt_is_obj(t, v)) {
		int set = jt_get(t, v, "set"), inf = jt_get(t, v, "infinite");

		if ((set >= 0 && !jt_is_bool(t, set)) || (inf >= 0 && !jt_is_bool(t, inf)))
			return -1;
		if ((set >= 0 && !jt_is_true(t, set)) || (inf >= 0 && jt_is_true(t, inf)))
			return 0;
		v = jt_get(t, v, "number");
		if (v < 0)
			return 0;
	}
	if (!jt_is_int(t, v))
		return -1;
	*out = jt_int(t, v);
	return 1;
}

/* 1: a string in *out; 0: absent or null; -1: wrong type. */
static int get_str(struct jtape *t, int o, const char *key, const char **out)
{
	int v = jt_get(t, o, key);

	*out = "";
	if (v < 0 || jt_is_null(t, v))
		return 0;
	if (!jt_is_str(t, v))
		return -1;
	*out = jt_str(t, v);
	return 1;
}

static int copy_str(struct jtape *t, int o, const char *key, char *dst, size_t cap)
{
	const char *s;
	int rc = get_str(t, o, key, &s);

	parse_copy(dst, cap, s, strlen(s));
	return rc;
}

/* Epoch seconds -> us; 0 when unset; -1 when out of range or mistyped. */
static int get_time(struct jtape *t, int o, const char *key, int64_t *us)
{
	int64_t s;
	int rc = get_num(t, o, key, &s);

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

static int node_words(struct jtape *t, int arr, int32_t *base, uint32_t *flags)
{
	char w[64];
	uint32_t i;
	int e;

	if (!jt_is_arr(t, arr))
		return -1;
	jt_foreach(t, arr, i, e) {
		const char *s = jt_str(t, e);

		if (!s)
			return -1;
		parse_copy(w, sizeof w, s, strlen(s));
		node_word(w, base, flags);
	}
	return 0;
}

/* "idle", "IDLE+DRAIN" or ["IDLE", "DRAIN"]. -1 if no base state. */
static int node_state(struct jtape *t, int v, int32_t *base, uint32_t *flags)
{
	char w[64];

	if (jt_is_str(t, v)) {
		const char *s = jt_str(t, v);

		while (*s) {
			size_t n = strcspn(s, "+");

			parse_copy(w, sizeof w, s, n);
			node_word(w, base, flags);
			s += n + (s[n] == '+');
		}
	} else if (node_words(t, v, base, flags)) {
		return -1;
	}
	return *base >= 0 ? 0 : -1;
}

/* A job state as Slurm prints it, or an array (base first, then flags):
 * the first known name counts, except that COMPLETING wins. */
static int job_state(struct jtape *t, int v)
{
	int st = -1, completing = 0, arr = jt_is_arr(t, v);
	uint32_t n = arr ? jt_size(t, v) : 1;
	int e = arr ? jt_first(t, v) : v;

	for (uint32_t i = 0; i < n; i++, e = i < n ? jt_after(t, e) : -1) {
		const char *name = jt_str(t, e);
		int s;

		if (!name)
			return -1;
		s = job_state_from_name(name);
		completing |= s == JOB_COMPLETING;
		if (st < 0)
			st = s;
	}
	return completing ? JOB_COMPLETING : st;
}

/* ---- nodes ---- */

static int node_gres(struct slurm_node_rec *r, struct jtape *t, int o, const char *k_total, const char *k_used)
{
	const char *gres, *used;
	int hg = get_str(t, o, k_total, &gres), hu = get_str(t, o, k_used, &used);

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

int slurm_node_of(struct jtape *t, int o, struct slurm_node_rec *r)
{
	const char *name;
	int fl;

	node_init(r);
	if (!jt_is_obj(t, o) || get_str(t, o, "name", &name) <= 0 || !*name || strlen(name) >= sizeof r->name)
		return -1;
	parse_copy(r->name, sizeof r->name, name, strlen(name));
	if (node_state(t, jt_get(t, o, "state"), &r->base, &r->flags))
		return -1;
	fl = jt_get(t, o, "state_flags");
	if (fl >= 0 && !jt_is_null(t, fl) && node_words(t, fl, &r->base, &r->flags))
		return -1;
	if (copy_str(t, o, "reason", r->reason, sizeof r->reason) < 0 ||
	    copy_str(t, o, "reason_set_by_user", r->reason_who, sizeof r->reason_who) < 0 ||
	    get_time(t, o, "reason_changed_at", &r->reason_time) < 0)
		return -1;
	return node_gres(r, t, o, "gres", "gres_used");
}

/* "reason": "text" or {"description", "time", "user"} (sinfo shape). */
static int sinfo_reason(struct jtape *t, int o, struct slurm_node_rec *r)
{
	int v = jt_get(t, o, "reason");

	if (v < 0 || jt_is_null(t, v) || jt_is_str(t, v))
		return copy_str(t, o, "reason", r->reason, sizeof r->reason) < 0 ? -1 : 0;
	if (!jt_is_obj(t, v))
		return -1;
	if (copy_str(t, v, "description", r->reason, sizeof r->reason) < 0 ||
	    copy_str(t, v, "user", r->reason_who, sizeof r->reason_who) < 0 || get_time(t, v, "time", &r->reason_time) < 0)
		return -1;
	return 0;
}

int slurm_sinfo_group(struct jtape *t, int o, struct slurm_node_rec *r, int *names)
{
	int node = jt_get(t, o, "node"), nodes = jt_get(t, o, "nodes"), gres = jt_get(t, o, "gres");

	node_init(r);
	if (!jt_is_obj(t, o) || !jt_is_obj(t, node) || !jt_is_obj(t, nodes))
		return -1;
	*names = jt_get(t, nodes, "nodes");
	if (!jt_is_arr(t, *names))
		return -1;
	if (node_state(t, jt_get(t, node, "state"), &r->base, &r->flags) || sinfo_reason(t, o, r))
		return -1;
	if (gres >= 0 && !jt_is_obj(t, gres))
		return -1;
	return gres >= 0 ? node_gres(r, t, gres, "total", "used") : 0;
}

/* ---- jobs ---- */

/* node_count, tasks, sockets_per_node: > 0, or -1 if not set or mistyped
 * (the complex mode of data_parser prints "Infinity"). */
static int64_t job_count(struct jtape *t, int o, const char *key)
{
	int64_t v;

	return get_num(t, o, key, &v) > 0 && v > 0 && v <= 1000000 ? v : -1;
}

/* GPUs the job asked for: tres_per_job as is, tres_per_node x node_count,
 * tres_per_task x tasks, tres_per_socket x sockets_per_node x node_count;
 * the first that gives a total. NO_GPU if none names a GPU, -1 if one does
 * but the total is unknown. *all: the four fields are there (string or null). */
static int64_t asked_gpus(struct jtape *t, int o, int *all)
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
		int rc = get_str(t, o, f[i].key, &s);
		int64_t n;

		*all &= rc > 0 || (rc == 0 && jt_get(t, o, f[i].key) >= 0);
		if (rc <= 0 || (n = per_gpus(s)) == NO_GPU)
			continue;
		for (int k = 0; k < 2 && f[i].by[k] && n >= 0; k++) {
			int64_t m = job_count(t, o, f[i].by[k]);

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
static int64_t detail_gpus(struct jtape *t, int o, int *there)
{
	int d = jt_get(t, o, "gres_detail"), e;
	int64_t sum = NO_GPU;
	uint32_t i;

	*there = jt_is_arr(t, d);
	jt_foreach(t, d, i, e) {
		int named = 0;
		const char *s = jt_str(t, e);
		int32_t c = s ? gres_gpus(s, &named) : -1;

		if (c < 0)
			return -1;
		if (named)
			sum = MAX(sum, 0) + c;
	}
	return sum;
}

/* The job's GPUs in all: the first source that gives a count, in the order
 * and with the rule for 0 of the comment at the top. */
static int job_gpus(struct jtape *t, int o, struct slurm_job_rec *r)
{
	const char *alloc, *req;
	int ha = get_str(t, o, "tres_alloc_str", &alloc), hr = get_str(t, o, "tres_req_str", &req);
	int detail, all, started = r->state == JOB_RUNNING || r->state == JOB_SUSPENDED;
	int64_t src[4], worst = NO_GPU;

	if (ha < 0 || hr < 0)
		return -1;
	src[0] = tres_gpus(alloc);
	src[1] = detail_gpus(t, o, &detail);
	src[2] = tres_gpus(req);
	src[3] = asked_gpus(t, o, &all);
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

static int job_mask(struct jtape *t, int o, struct slurm_job_rec *r)
{
	int d = jt_get(t, o, "gres_detail"), e;
	uint32_t i;

	if (d < 0 || jt_is_null(t, d))
		return 0;
	if (!jt_is_arr(t, d))
		return -1;
	jt_foreach(t, d, i, e) {
		const char *s = jt_str(t, e);
		int64_t m;

		if (!s)
			return -1;
		m = gres_mask(s);
		if (m < 0) {
			r->gpu_mask = 0;   /* unreadable: unknown */
			return 0;
		}
		r->gpu_mask |= (uint32_t)m;
	}
	return 0;
}

int slurm_job_of(struct jtape *t, int o, struct slurm_job_rec *r)
{
	const char *nodes;
	int64_t id;

	memset(r, 0, sizeof *r);
	r->gpus = -1;
	if (!jt_is_obj(t, o) || get_num(t, o, "job_id", &id) <= 0 || id <= 0 || id > UINT32_MAX)
		return -1;
	r->id = (uint32_t)id;
	r->state = job_state(t, jt_get(t, o, "job_state"));
	if (r->state < 0)
		return -1;
	if (copy_str(t, o, "name", r->name, sizeof r->name) < 0 ||
	    copy_str(t, o, "user_name", r->user, sizeof r->user) < 0 ||
	    copy_str(t, o, "partition", r->partition, sizeof r->partition) < 0 ||
	    get_str(t, o, "nodes", &nodes) < 0 || strlen(nodes) >= sizeof r->nodes)
		return -1;
	parse_copy(r->nodes, sizeof r->nodes, nodes, strlen(nodes));
	if (get_time(t, o, "submit_time", &r->submit_time) || get_time(t, o, "start_time", &r->start_time))
		return -1;
	return job_gpus(t, o, r) || job_mask(t, o, r) ? -1 : 0;
}
