/*
 * workload.c - the jobs, and the simulator's stand-in for Slurm's scheduler.
 *
 * Jobs: many small ones (1, 2, 4 or 8 GPUs on one node, an aligned subset of
 * the node's GPUs), many of 2-32 whole nodes, a few of 64-128 nodes, and now
 * and then a pre-training job of 128-512 nodes (never more than a quarter of
 * the cluster). Run times are log-uniform per class, from minutes to two days,
 * scaled so that a 10,240-GPU cluster sees a couple of starts and ends a
 * minute. They end COMPLETED (~90 %), FAILED, CANCELLED or TIMEOUT; a hardware
 * fault ends them NODE_FAIL and, since the cluster runs with JobRequeue=1,
 * they go REQUEUED, then PENDING (BeginTime for SIM_REQUEUE_DELAY s), then run
 * again elsewhere with the work they had left plus what was lost since their
 * last checkpoint. Large and pre-training jobs also requeue themselves when
 * their application fails (an auto-restart wrapper). Job ids count up from
 * 1000.
 *
 * Scheduler: FIFO by job id with first fit, plus EASY-style backfill: when the
 * first pending job does not fit, later jobs may start only if their time
 * limit ends before the time (the "shadow") at which enough GPUs are expected
 * to be free for it. Multi-node jobs go inside one scalable unit when one has
 * room; small jobs pack onto partly used nodes. Drained, down, silent and
 * faulted nodes get nothing (the last stands in for the prolog health check
 * that would fail a launch on a broken GPU), nor do a job's excluded nodes.
 * The load target is a QOS-style cap: running GPUs <= load x GPUs; the
 * submitter keeps running + pending a little above the cap so that a few jobs
 * wait in the queue, as on a real cluster. At start the cluster is already
 * loaded (jobs started in the past).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"

static const char *const job_names[] = {
	/* JC_SMALL: 0-11 */
	"eval-mmlu", "eval-gsm8k", "eval-humaneval", "nccl-tests", "jupyter",
	"tokenize-shards", "whisper-ft", "sd3-finetune", "vllm-bench", "dcgm-diag",
	"bert-large-mlm", "embed-index",
	/* JC_MEDIUM: 12-21 */
	"sft-mixtral-8x22b", "llama3-70b-sft", "rlhf-ppo", "dpo-llama3-8b",
	"vit-h14-pretrain", "moe-ablation", "distill-llama3-8b", "nccl-tests",
	"mlperf-llama2-70b-lora", "reward-model",
	/* JC_LARGE: 22-25 */
	"llama3-70b-pretrain", "mlperf-gpt3-175b", "moe-16x7b-pretrain", "rlhf-ppo-405b",
	/* JC_PRETRAIN: 26-27 */
	"llama3-405b-pretrain", "frontier-1t-pretrain",
};
static const uint8_t name_first[JC_COUNT] = {0, 12, 22, 26};
static const uint8_t name_count[JC_COUNT] = {12, 10, 4, 2};

static const char *const users[] = {
	"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi",
	"ivan", "judy", "mlperf", "svc-eval", "ops",
};
enum { U_PEOPLE = 10, U_MLPERF = 10, U_EVAL = 11, U_OPS = 12 };

/* class weights per 10,000 submissions, and run times (s, log-uniform) */
static const int cls_weight[JC_COUNT] = {7000, 2935, 60, 5};
static const double cls_tmin[JC_COUNT] = {180, 600, 3600, 6 * 3600};
static const double cls_tmax[JC_COUNT] = {2 * 3600, 2 * 3600, 6 * 3600, 48 * 3600};

const char *wl_job_name(const struct sjob *j) { return job_names[j->name]; }
const char *wl_user_name(const struct sjob *j) { return users[j->user]; }
uint32_t wl_user_uid(const struct sjob *j) { return 1001u + j->user; }

uint32_t wl_pid(const struct sjob *j, int32_t node)
{
	uint64_t h = ((uint64_t)j->id << 32 | (uint32_t)node) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	return 10000u + (uint32_t)(h % 3990000u) + (uint32_t)j->restarts * 17u;
}

static int64_t job_gpus(const struct sjob *j) { return (int64_t)j->nnodes * j->gpn; }

static int is_terminal(const struct sjob *j)
{
	switch (j->state) {
	case JOB_COMPLETED: case JOB_FAILED: case JOB_CANCELLED: case JOB_TIMEOUT:
		return 1;
	case JOB_NODE_FAIL:
		return !j->requeue;
	default:
		return 0;
	}
}

/* ---- making jobs ---- */

static int pick_class(struct rng *r)
{
	int u = (int)rng_below(r, 10000);

	for (int c = 0; c < JC_COUNT; c++) {
		if (u < cls_weight[c])
			return c;
		u -= cls_weight[c];
	}
	return JC_SMALL;
}

static int32_t pick_nodes(struct sim *s, int cls)
{
	static const int32_t med[] = {2, 2, 2, 4, 4, 4, 8, 8, 16, 32};
	struct rng *r = &s->r_job;
	int32_t n, maxn = MAX(1, s->topo.nodes / (cls == JC_MEDIUM ? 8 : 4));

	switch (cls) {
	case JC_MEDIUM: n = med[rng_below(r, 10)]; break;
	case JC_LARGE: n = rng_below(r, 3) ? 64 : 128; break;
	case JC_PRETRAIN: n = 128 << rng_below(r, 3); break;
	default: n = 1;
	}
	return MIN(n, maxn);
}

static void pick_size(struct sim *s, struct sjob *j)
{
	uint32_t u = rng_below(&s->r_job, 100);

	j->nnodes = pick_nodes(s, j->cls);
	j->gpn = 8;
	if (j->cls == JC_SMALL)
		j->gpn = u < 35 ? 1 : u < 48 ? 2 : u < 65 ? 4 : 8;
	j->mask = 0;
}

static void pick_identity(struct sim *s, struct sjob *j)
{
	struct rng *r = &s->r_job;
	const char *name;

	j->name = (uint8_t)(name_first[j->cls] + rng_below(r, name_count[j->cls]));
	name = job_names[j->name];
	j->user = (uint8_t)rng_below(r, U_PEOPLE);
	if (!strncmp(name, "eval-", 5) && rng_below(r, 2))
		j->user = U_EVAL;
	else if (!strncmp(name, "mlperf-", 7))
		j->user = U_MLPERF;
	else if (!strcmp(name, "nccl-tests") || !strcmp(name, "dcgm-diag"))
		j->user = U_OPS;
	j->requeue = strcmp(name, "jupyter") != 0;
}

static int64_t round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }

/* Run time, time limit and how the job will end. */
static void pick_times(struct sim *s, struct sjob *j)
{
	struct rng *r = &s->r_job;
	double lo = cls_tmin[j->cls], hi = cls_tmax[j->cls];
	int64_t d = (int64_t)(lo * exp(rng_unit(r) * log(hi / lo)));
	uint32_t u = rng_below(r, 1000);

	j->limit = MIN(round_up((int64_t)((double)d * (1.2 + 1.8 * rng_unit(r))) + 600, 1800), 7 * 86400);
	j->end_state = JOB_COMPLETED;
	j->work = d;
	if (u >= 970) {
		j->limit = round_up((int64_t)((double)d * (0.5 + 0.4 * rng_unit(r))), 600);
		j->work = j->limit;
		j->end_state = JOB_TIMEOUT;
	} else if (u >= 945) {
		j->work = MAX(60, (int64_t)((double)d * (0.05 + 0.95 * rng_unit(r))));
		j->end_state = JOB_CANCELLED;
	} else if (u >= 905) {
		j->work = MAX(30, (int64_t)((double)d * (0.02 + 0.98 * rng_unit(r))));
		j->end_state = JOB_FAILED;
	}
	j->debug = j->cls == JC_SMALL && j->limit <= 3600;
}

static void pick_telemetry(struct sim *s, struct sjob *j)
{
	struct rng *r = &s->r_job;

	j->util = (uint8_t)(88 + rng_below(r, 13));
	j->watts = (uint16_t)(370 + rng_below(r, 131));   /* W above 265 at 100 % */
	j->mem = MIN(40960 + (int32_t)rng_below(r, 38913), SIM_MEM_TOTAL - 700);
	j->stall_period = 0;
	j->stall_len = 0;
	if (j->cls != JC_SMALL) {   /* periodic checkpoints dip the utilization */
		j->stall_period = (uint16_t)(900 + rng_below(r, 1800));
		j->stall_len = (uint16_t)(15 + rng_below(r, 31));
	}
}

static struct sjob *job_append(struct sim *s)
{
	struct sjob *j;

	if (s->njobs == s->jcap) {
		s->jcap = s->jcap ? s->jcap * 2 : 256;
		s->jobs = xrealloc(s->jobs, (size_t)s->jcap * sizeof *s->jobs);
	}
	j = &s->jobs[s->njobs++];
	memset(j, 0, sizeof *j);
	j->id = s->next_id++;
	j->state = JOB_PENDING;
	j->reason = "None";
	return j;
}

static void job_make(struct sim *s, struct sjob *j, int cls, int64_t submit)
{
	j->cls = (uint8_t)cls;
	pick_size(s, j);
	pick_identity(s, j);
	pick_times(s, j);
	pick_telemetry(s, j);
	j->submit = submit;
	j->eligible = submit;
}

/* ---- placement ---- */

static int excluded(const struct sjob *j, int32_t n)
{
	int32_t lo = 0, hi = j->nexcl;

	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;

		if (j->excl[mid] == n)
			return 1;
		if (j->excl[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int node_ok(const struct sim *s, const struct sjob *j, int32_t n)
{
	const struct snode *nd = &s->nodes[n];

	if ((nd->flags & NODE_F_DRAIN) || nd->down || nd->silent || nd->fault.kind != FK_NONE)
		return 0;
	return !j->nexcl || !excluded(j, n);
}

static uint8_t fit_mask(uint8_t used, int gpn)
{
	uint8_t block = (uint8_t)((1u << gpn) - 1);

	for (int off = 0; off < SIM_GPN; off += gpn) {
		uint8_t m = (uint8_t)(block << off);

		if (!(used & m))
			return m;
	}
	return 0;
}

/* One node, part of it: partly used nodes first, so small jobs pack. */
static int place_single(struct sim *s, struct sjob *j, int32_t *out)
{
	for (int pass = j->gpn == SIM_GPN; pass < 2; pass++)
		for (int32_t n = 0; n < s->topo.nodes; n++) {
			uint8_t used = s->nodes[n].used, m;

			if ((pass == 0) != (used != 0) || !node_ok(s, j, n))
				continue;
			if ((m = fit_mask(used, j->gpn)) != 0) {
				j->mask = m;
				out[0] = n;
				return 1;
			}
		}
	return 0;
}

static int32_t take_free(struct sim *s, struct sjob *j, int32_t from, int32_t to, int32_t want, int32_t *out)
{
	int32_t k = 0;

	for (int32_t n = from; n < to && k < want; n++)
		if (!s->nodes[n].used && node_ok(s, j, n))
			out[k++] = n;
	return k;
}

/* Whole nodes: inside the first SU with room, else first fit across SUs. */
static int place_multi(struct sim *s, struct sjob *j, int32_t *out)
{
	int32_t per = s->topo.nodes_per_su;

	j->mask = 0xff;
	if (j->nnodes <= per)
		for (int32_t su = 0; su < s->topo.sus; su++) {
			int32_t from = su * per, to = MIN(from + per, s->topo.nodes);

			if (take_free(s, j, from, to, j->nnodes, out) == j->nnodes)
				return 1;
		}
	return take_free(s, j, 0, s->topo.nodes, j->nnodes, out) == j->nnodes;
}

static void assign_gpus(struct sim *s, struct sjob *j, int64_t start)
{
	for (int32_t i = 0; i < j->nnodes; i++) {
		struct snode *nd = &s->nodes[j->nodes[i]];

		nd->used |= j->mask;
		nd->last_busy = s->now;
		for (int g = 0; g < SIM_GPN; g++) {
			struct sgpu *gp = &s->gpus[(int64_t)j->nodes[i] * SIM_GPN + g];
			uint32_t h = (uint32_t)(j->id * 2654435761u) ^ (uint32_t)(j->nodes[i] * 8 + g) * 40503u;

			if (!(j->mask >> g & 1))
				continue;
			gp->job = j->id;
			gp->job_start = start;
			gp->ckpt_until = 0;
			gp->job_util = j->util;
			gp->job_watts = (uint16_t)(j->watts - 12 + (int)(h % 25));
			gp->job_mem = j->mem - 200 + (int32_t)(h >> 8) % 400;
			gp->stall_period = j->stall_period;
			gp->stall_len = j->stall_len;
			gp->multi = j->nnodes > 1;
		}
	}
}

static void release_gpus(struct sim *s, struct sjob *j)
{
	for (int32_t i = 0; i < j->nnodes; i++) {
		struct snode *nd = &s->nodes[j->nodes[i]];

		nd->used &= (uint8_t)~j->mask;
		nd->last_busy = s->now;
		for (int g = 0; g < SIM_GPN; g++)
			if (j->mask >> g & 1)
				s->gpus[(int64_t)j->nodes[i] * SIM_GPN + g].job = 0;
	}
	s->running_gpus -= job_gpus(j);
}

static int try_start(struct sim *s, struct sjob *j, int64_t start)
{
	int32_t *tmp = xmalloc((size_t)j->nnodes * sizeof *tmp);
	int ok = j->nnodes == 1 ? place_single(s, j, tmp) : place_multi(s, j, tmp);

	if (!ok) {
		free(tmp);
		return 0;
	}
	free(j->nodes);
	j->nodes = tmp;
	j->state = JOB_RUNNING;
	j->reason = "None";
	j->start = start;
	j->end = start + j->work;
	j->shown_nodes = 1;
	assign_gpus(s, j, start);
	s->running_gpus += job_gpus(j);
	s->n_starts++;
	return 1;
}

/* ---- ending ---- */

static void finish(struct sim *s, struct sjob *j, int state, int exit_code)
{
	int64_t now = sim_sec(s);

	if (j->state == JOB_RUNNING)
		release_gpus(s, j);
	j->state = (uint8_t)state;
	j->end = now;
	j->exit_code = exit_code;
	j->shown_nodes = 1;
	j->reason = state == JOB_FAILED ? "NonZeroExitCode" : state == JOB_TIMEOUT ? "TimeLimit"
		: state == JOB_NODE_FAIL ? "NodeDown" : "None";
	s->n_ends++;
}

void wl_cancel(struct sim *s, struct sjob *j)
{
	finish(s, j, JOB_CANCELLED, 0);
}

static void add_excludes(struct sjob *j, const int32_t *excl, int nexcl)
{
	for (int i = 0; i < nexcl; i++) {
		int32_t n = excl[i], k;

		if (excluded(j, n))
			continue;
		j->excl = xrealloc(j->excl, (size_t)(j->nexcl + 1) * sizeof *j->excl);
		for (k = j->nexcl; k > 0 && j->excl[k - 1] > n; k--)
			j->excl[k] = j->excl[k - 1];
		j->excl[k] = n;
		j->nexcl++;
	}
}

/* Work left when it stops now, plus up to 20 min lost since its checkpoint. */
static void stop_for_requeue(struct sim *s, struct sjob *j)
{
	int64_t now = sim_sec(s), lost = (int64_t)rng_below(&s->r_job, 1200);

	j->work = MAX(60, MIN(j->end - now + lost, j->limit));
	release_gpus(s, j);
	j->restarts++;
	j->eligible = now + SIM_REQUEUE_DELAY;
}

/* Shown as REQUEUED (reason BeginTime) for a phase, then PENDING again. */
static void enter_requeued(struct sim *s, struct sjob *j)
{
	j->state = JOB_REQUEUED;
	j->reason = "BeginTime";
	j->shown_nodes = 0;
	j->phase_until = sim_sec(s) + SIM_PHASE_SECS;
}

void wl_node_fail(struct sim *s, struct sjob *j)
{
	if (j->state != JOB_RUNNING)
		return;
	if (!j->requeue) {
		finish(s, j, JOB_NODE_FAIL, 0);
		return;
	}
	stop_for_requeue(s, j);
	j->state = JOB_NODE_FAIL;
	j->reason = "NodeDown";
	j->shown_nodes = 1;
	j->phase_until = sim_sec(s) + SIM_PHASE_SECS;
	s->n_ends++;
}

void wl_requeue(struct sim *s, struct sjob *j, const int32_t *excl, int nexcl)
{
	add_excludes(j, excl, nexcl);
	if (j->state != JOB_RUNNING)
		return;
	stop_for_requeue(s, j);
	enter_requeued(s, j);
}

/* Large and pre-training jobs run under an auto-restart wrapper (a trap that
 * calls `scontrol requeue`): an application failure requeues them. */
void wl_app_fail(struct sim *s, struct sjob *j)
{
	if (j->state != JOB_RUNNING)
		return;
	if (j->cls < JC_LARGE || !j->requeue) {
		finish(s, j, JOB_FAILED, 1);
		return;
	}
	stop_for_requeue(s, j);
	enter_requeued(s, j);
	s->n_ends++;
}

void wl_checkpoint(struct sim *s, struct sjob *j)
{
	int64_t now = sim_sec(s), until = now + 20 + (int64_t)rng_below(&s->r_job, 21);

	j->ckpt = now;
	for (int32_t i = 0; i < j->nnodes; i++)
		for (int g = 0; g < SIM_GPN; g++)
			if (j->mask >> g & 1)
				s->gpus[(int64_t)j->nodes[i] * SIM_GPN + g].ckpt_until = until;
}

struct sjob *wl_find(struct sim *s, uint32_t id)
{
	int32_t lo = 0, hi = s->njobs;

	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;

		if (s->jobs[mid].id == id)
			return &s->jobs[mid];
		if (s->jobs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- the step ---- */

static void end_and_advance(struct sim *s)
{
	int64_t now = sim_sec(s);

	for (int32_t i = 0; i < s->njobs; i++) {
		struct sjob *j = &s->jobs[i];

		if (j->state == JOB_RUNNING && j->end <= now)
			finish(s, j, j->end_state, j->end_state == JOB_FAILED ? 1 : 0);
		else if (j->state == JOB_NODE_FAIL && j->requeue && now >= j->phase_until) {
			enter_requeued(s, j);
		} else if (j->state == JOB_REQUEUED && now >= j->phase_until) {
			j->state = JOB_PENDING;
			j->submit = now;   /* Slurm resets the submit time on requeue */
		}
	}
}

static void purge(struct sim *s)
{
	int64_t now = sim_sec(s);
	int32_t k = 0;

	for (int32_t i = 0; i < s->njobs; i++) {
		struct sjob *j = &s->jobs[i];

		if (is_terminal(j) && j->end + SIM_MIN_JOB_AGE <= now) {
			free(j->nodes);
			free(j->excl);
			continue;
		}
		if (k != i)
			s->jobs[k] = *j;
		k++;
	}
	s->njobs = k;
}

static void count_pending(struct sim *s)
{
	s->pending_gpus = 0;
	s->pending_jobs = 0;
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct sjob *j = &s->jobs[i];

		if (j->state == JOB_PENDING || j->state == JOB_REQUEUED
		    || (j->state == JOB_NODE_FAIL && j->requeue)) {
			s->pending_gpus += job_gpus(j);
			s->pending_jobs++;
		}
	}
}

static int64_t backlog(const struct sim *s)
{
	return MAX(8, s->cap_gpus / 30);
}

/* Keep running + pending a little above the cap, and always a few jobs
 * waiting (so that backfill has work while a big job waits for room). */
static void submit(struct sim *s)
{
	int32_t want = 4 + s->topo.nodes / 64;

	for (int k = 0; k < 64; k++) {
		struct sjob *j;

		if (s->running_gpus + s->pending_gpus >= s->cap_gpus + backlog(s) && s->pending_jobs >= want)
			break;
		if (s->pending_jobs >= 4 * want)
			break;
		j = job_append(s);
		job_make(s, j, pick_class(&s->r_job), sim_sec(s));
		s->pending_gpus += job_gpus(j);
		s->pending_jobs++;
	}
}

static void sift_down(int64_t *h, int32_t n, int32_t i)
{
	for (;;) {
		int32_t l = 2 * i + 1, m = i;

		if (l < n && h[l] < h[m])
			m = l;
		if (l + 1 < n && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return;
		int64_t t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* When will `need` more GPUs be free, going by time limits as Slurm does?
 * Each entry packs end time (high bits) and GPU count (low 20 bits); they
 * are taken earliest first from a heap built in place (no allocation, as
 * qsort's merge sort makes one, and most calls stop after a few). */
static int64_t shadow_time(struct sim *s, int64_t need)
{
	int32_t n = 0;

	if (s->scratch_cap < s->njobs) {
		s->scratch_cap = s->njobs * 2;
		s->scratch = xrealloc(s->scratch, (size_t)s->scratch_cap * sizeof *s->scratch);
	}
	for (int32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == JOB_RUNNING)
			s->scratch[n++] = (s->jobs[i].start + s->jobs[i].limit) << 20 | job_gpus(&s->jobs[i]);
	for (int32_t i = n / 2 - 1; i >= 0; i--)
		sift_down(s->scratch, n, i);
	while (n > 0) {
		int64_t e = s->scratch[0];

		need -= e & 0xfffff;
		if (need <= 0)
			return e >> 20;
		s->scratch[0] = s->scratch[--n];
		sift_down(s->scratch, n, 0);
	}
	return SIM_NO_TIME;
}

static void schedule(struct sim *s)
{
	int64_t now = sim_sec(s), shadow = SIM_NO_TIME;
	int blocked = 0;

	for (int32_t i = 0; i < s->njobs; i++) {
		struct sjob *j = &s->jobs[i];

		if (j->state != JOB_PENDING)
			continue;
		if (now < j->eligible) {
			j->reason = "BeginTime";
			continue;
		}
		if (blocked && (shadow == SIM_NO_TIME ? 0 : now + j->limit > shadow)) {
			j->reason = "Priority";
			continue;
		}
		if (s->running_gpus + job_gpus(j) <= s->cap_gpus && try_start(s, j, now))
			continue;
		j->reason = blocked ? "Priority" : "Resources";
		if (!blocked) {
			blocked = 1;
			shadow = shadow_time(s, MAX(job_gpus(j) - (s->cap_gpus - s->running_gpus), j->gpn));
		}
	}
}

void wl_step(struct sim *s)
{
	end_and_advance(s);
	purge(s);
	count_pending(s);
	submit(s);
	schedule(s);
}

/* ---- warm start ---- */

static int cmp_submit(const void *a, const void *b)
{
	const struct sjob *x = a, *y = b;

	return x->submit < y->submit ? -1 : x->submit > y->submit ? 1 : (x->id > y->id) - (x->id < y->id);
}

static void renumber(struct sim *s, int32_t first)
{
	qsort(s->jobs + first, (size_t)(s->njobs - first), sizeof *s->jobs, cmp_submit);
	for (int32_t i = first; i < s->njobs; i++)
		s->jobs[i].id = 1000u + (uint32_t)(i - first);
}

/* Candidates for the warm start: a pre-training job on a fifth of the
 * cluster (on clusters of 64 nodes or more) started days ago, then the usual
 * mix, each somewhere inside its run, up to the cap plus the backlog. */
static void warm_candidates(struct sim *s, int32_t first)
{
	int64_t now = sim_sec(s), total = 0;

	while (total < s->cap_gpus + backlog(s)) {
		struct sjob *j = job_append(s);
		int pre = s->njobs - first == 1 && s->topo.nodes >= 64;
		int64_t run, elapsed;

		job_make(s, j, pre ? JC_PRETRAIN : pick_class(&s->r_job), 0);
		if (pre) {
			j->nnodes = MIN(256, s->topo.nodes / 5);
			j->name = name_first[JC_PRETRAIN];
			j->requeue = 1;
			j->end_state = JOB_COMPLETED;
			j->work = 2 * 86400 + (int64_t)rng_below(&s->r_job, 86400);
			j->limit = 7 * 86400;
		}
		run = j->work;
		elapsed = (int64_t)(rng_unit(&s->r_job) * (double)(run - 1));
		j->start = now - elapsed;
		j->submit = j->start - (int64_t)rng_below(&s->r_job, 1800);
		j->eligible = j->submit;
		j->work = run - elapsed;
		total += job_gpus(j);
	}
}

/* Jobs already running at t=0 (those that do not fit wait in the queue). */
static void warm_running(struct sim *s)
{
	int64_t now = sim_sec(s);
	int32_t first = s->njobs;

	warm_candidates(s, first);
	renumber(s, first);
	for (int32_t i = first; i < s->njobs; i++) {
		struct sjob *j = &s->jobs[i];
		int64_t start = j->start;

		if (s->running_gpus + job_gpus(j) > s->cap_gpus || !try_start(s, j, start)) {
			j->state = JOB_PENDING;
			j->submit = now - (int64_t)rng_below(&s->r_job, 600);
			j->eligible = j->submit;
			continue;
		}
		j->end = now + j->work;
		j->work = j->end - start;
	}
	renumber(s, first);
	for (int32_t i = first; i < s->njobs; i++)   /* point the GPUs at the new ids */
		if (s->jobs[i].state == JOB_RUNNING)
			assign_gpus(s, &s->jobs[i], s->jobs[i].start);
	s->next_id = 1000u + (uint32_t)(s->njobs - first);
}

void wl_init(struct sim *s)
{
	s->next_id = 1000;
	s->cap_gpus = (int64_t)(s->spec.load * (double)s->topo.gpus);
	warm_running(s);
	s->n_starts = s->n_ends = 0;
	count_pending(s);
	submit(s);
	schedule(s);
}

void wl_free(struct sim *s)
{
	for (int32_t i = 0; i < s->njobs; i++) {
		free(s->jobs[i].nodes);
		free(s->jobs[i].excl);
	}
	free(s->jobs);
	free(s->scratch);
	s->jobs = NULL;
	s->njobs = s->jcap = 0;
}
