/*
 * sim.c - the simulated cluster's lifecycle: the spec ("gpus=2048,seed=7,..."),
 * creation (topology, fleet, pre-existing faults, warm-started workload,
 * facility), the one-second step and its order, the scheduler face that
 * the "sim" backend calls as it would call scontrol / scancel (and that
 * myriad-sim serve's head node calls for them), and faults injected between
 * steps with their kernel lines printed at once (myriad-sim serve --control).
 *
 * A step advances the virtual clock by one second, then: faults (queued and
 * natural XIDs, garbled lines, health check, repairs), workload (job ends,
 * requeue phases, submissions, scheduling), GPU telemetry and nvidia-smi
 * lines, the facility document, the IB dumps due, and every 5 s the sinfo and
 * squeue documents. Text goes to the sink as it is produced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_int.h"

#define GPUS_MAX 262144

void sim_spec_default(struct sim_spec *s)
{
	s->gpus = 10240;
	s->seed = 1;
	s->accel = 1.0;
	s->start = 1767225600LL * US_PER_SEC;   /* 2026-01-01T00:00:00Z */
	s->load = 0.9;
	s->garble = 0.005;
}

/* ---- spec ---- */

/* A plain decimal number ("3000", "0.85", "1e5"), locale-independent. */
static int parse_num(const char *p, double *out)
{
	double v = 0, scale = 1;
	int digits = 0, ex = 0, exsign = 1;

	if (*p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		v = v * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			v = v * 10 + (*p - '0');
			scale *= 10;
		}
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			exsign = *p++ == '-' ? -1 : 1;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9' && ex < 400; p++)
			ex = ex * 10 + (*p - '0');
	}
	if (*p)
		return -1;
	for (; ex > 0; ex--)
		scale = exsign > 0 ? scale / 10 : scale * 10;
	*out = v / scale;
	return 0;
}

static int parse_u64(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	int base = 10;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p)
		return -1;
	for (; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : 99;

		if (d >= base || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int spec_set(struct sim_spec *s, const char *key, const char *val, char **err)
{
	double d = 0;
	uint64_t u = 0;

	if (!strcmp(key, "gpus")) {
		if (parse_u64(val, &u) || u < 1 || u > GPUS_MAX)
			goto bad;
		s->gpus = (int32_t)u;
	} else if (!strcmp(key, "seed")) {
		if (parse_u64(val, &u))
			goto bad;
		s->seed = u;
	} else if (!strcmp(key, "accel")) {
		if (parse_num(val, &d) || d < 0 || d > 1e7)
			goto bad;
		s->accel = d;
	} else if (!strcmp(key, "start")) {
		if (parse_iso(val, &s->start))
			goto bad;
	} else if (!strcmp(key, "load")) {
		if (parse_num(val, &d) || d > 1)
			goto bad;
		s->load = d;
	} else if (!strcmp(key, "garble")) {
		if (parse_num(val, &d) || d > 3600)
			goto bad;
		s->garble = d;
	} else {
		*err = xasprintf("sim spec: unknown key '%s' (keys: gpus, seed, accel, start, load, garble)", key);
		return -1;
	}
	return 0;
bad:
	*err = xasprintf("sim spec: bad value for %s: '%s'", key, val);
	return -1;
}

static char *trim(char *p)
{
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return p;
}

int sim_spec_parse(struct sim_spec *s, const char *text, char **err)
{
	char *copy = xstrdup(text ? text : ""), *save = NULL, *item;
	struct sim_spec t = *s;
	char *dummy = NULL;
	int rc = 0;

	if (!err)
		err = &dummy;
	*err = NULL;
	for (item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');

		item = trim(item);
		if (!*item)
			continue;
		if (!eq) {
			*err = xasprintf("sim spec: expected key=value, got '%s'", item);
			rc = -1;
			break;
		}
		*eq = '\0';
		rc = spec_set(&t, trim(item), trim(eq + 1), err);
	}
	free(copy);
	free(dummy);
	if (!rc)
		*s = t;
	return rc;
}

/* ---- lifecycle ---- */

static void seed_streams(struct sim *s)
{
	struct rng m;

	rng_seed(&m, s->spec.seed ^ 0x6d79726961640001ULL);
	rng_seed(&s->r_tel, rng_next(&m));
	rng_seed(&s->r_job, rng_next(&m));
	rng_seed(&s->r_flt, rng_next(&m));
	rng_seed(&s->r_fac, rng_next(&m));
}

static void init_nodes(struct sim *s)
{
	for (int32_t n = 0; n < s->topo.nodes; n++) {
		struct snode *nd = &s->nodes[n];

		topo_node_name(&s->topo, n, nd->name, sizeof nd->name);
		nd->boot_time = s->now - (int64_t)(3 * 86400 + rng_below(&s->r_tel, 57 * 86400)) * US_PER_SEC;
		nd->last_busy = s->now;
	}
}

static void set_ts(struct sim *s)
{
	time_t t = (time_t)(s->now / US_PER_SEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(s->ts, sizeof s->ts, "%Y-%m-%dT%H:%M:%S+0000", &tm);
}

struct sim *sim_new(const struct sim_spec *spec)
{
	struct sim *s = xcalloc(1, sizeof *s);

	if (spec->gpus < 1 || spec->gpus > GPUS_MAX
	    || topo_build(&s->topo, (spec->gpus + SIM_GPN - 1) / SIM_GPN, 32, SIM_GPN)) {
		free(s);
		return NULL;
	}
	s->spec = *spec;
	if (!(s->spec.accel >= 0))
		s->spec.accel = 0;
	s->now = spec->start;
	seed_streams(s);
	s->nodes = xcalloc((size_t)s->topo.nodes, sizeof *s->nodes);
	s->gpus = xcalloc((size_t)s->topo.gpus, sizeof *s->gpus);
	s->ports = xcalloc((size_t)s->topo.gpus, sizeof *s->ports);
	init_nodes(s);
	fleet_init(s);
	faults_init(s);
	wl_init(s);
	fleet_settle(s);
	fac_init(s);
	set_ts(s);
	return s;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	wl_free(s);
	free(s->nodes);
	free(s->gpus);
	free(s->ports);
	free(s->xq);
	free(s->faulted);
	sbuf_free(&s->out);
	sbuf_free(&s->doc);
	free(s);
}

const struct topo *sim_topo(const struct sim *s) { return &s->topo; }
int64_t sim_now(const struct sim *s) { return s->now; }
int64_t sim_tick(const struct sim *s) { return s->tick; }

void sim_node_name(const struct sim *s, int32_t node, char *out, int outlen)
{
	if (outlen <= 0)
		return;
	if (node < 0 || node >= s->topo.nodes) {
		out[0] = '\0';
		return;
	}
	snprintf(out, (size_t)outlen, "%s", s->nodes[node].name);
}

void sim_emit(struct sim *s, enum sim_stream st, int32_t node, const struct sbuf *b)
{
	if (sim_printing(s) && b->len)
		s->sink->text(s->sink->ctx, st, node, b->s, b->len);
}

void sim_step(struct sim *s, const struct sim_sink *sink)
{
	s->sink = sink;
	s->now += US_PER_SEC;
	s->tick++;
	set_ts(s);
	faults_step(s);
	wl_step(s);
	fleet_step(s);
	fac_step(s);
	fac_print(s);
	fleet_ib(s);
	if (s->tick % 5 == 0) {
		sj_sinfo(s);
		sj_squeue(s);
	}
	s->sink = NULL;
}

void sim_print_service(struct sim *s, enum sim_stream which, const struct sim_sink *sink)
{
	s->sink = sink;
	if (which == SIM_SINFO)
		sj_sinfo(s);
	else if (which == SIM_SQUEUE)
		sj_squeue(s);
	else if (which == SIM_FACILITY)
		fac_print(s);
	s->sink = NULL;
}

/* ---- the scheduler face ---- */

#define ERR(...) do { if (err && errlen) snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int sim_drain(struct sim *s, int32_t node, const char *reason, const char *who, char *err, size_t errlen)
{
	struct snode *nd;

	if (node < 0 || node >= s->topo.nodes)
		ERR("Invalid node name specified");
	if (!reason || !*reason)
		ERR("You must specify a reason when DOWNING or DRAINING a node. Request denied");
	nd = &s->nodes[node];
	nd->flags |= NODE_F_DRAIN;
	snprintf(nd->reason, sizeof nd->reason, "%s", reason);
	snprintf(nd->who, sizeof nd->who, "%s", who && *who ? who : "root");
	nd->reason_time = s->now;
	return 0;
}

int sim_resume(struct sim *s, int32_t node, char *err, size_t errlen)
{
	struct snode *nd;

	if (node < 0 || node >= s->topo.nodes)
		ERR("Invalid node name specified");
	nd = &s->nodes[node];
	if (!(nd->flags & NODE_F_DRAIN) && !nd->down)
		ERR("Invalid node state specified");
	nd->flags &= ~(uint32_t)(NODE_F_DRAIN | NODE_F_NOT_RESPONDING);
	nd->down = 0;
	nd->reason[0] = nd->who[0] = '\0';
	nd->reason_time = 0;
	faults_resumed(s, node);   /* a fault still there is found again */
	return 0;
}

static int is_done(const struct sjob *j)
{
	return j->state == JOB_COMPLETED || j->state == JOB_FAILED || j->state == JOB_CANCELLED
		|| j->state == JOB_TIMEOUT || (j->state == JOB_NODE_FAIL && !j->requeue);
}

/* Running jobs are requeued; pending ones (also those between NODE_FAIL and
 * PENDING) only get the extra excluded nodes. */
int sim_requeue(struct sim *s, uint32_t job, const int32_t *exclude, int nexclude, char *err, size_t errlen)
{
	struct sjob *j = wl_find(s, job);

	if (!j)
		ERR("Invalid job id specified");
	if (is_done(j))
		ERR("Job/step already completing or completed");
	if (!j->requeue)
		ERR("Requested operation is presently disabled");
	for (int i = 0; i < nexclude; i++)
		if (exclude[i] < 0 || exclude[i] >= s->topo.nodes)
			ERR("Invalid node name specified");
	wl_requeue(s, j, exclude, nexclude);
	return 0;
}

/* KILL, TERM, INT end the job CANCELLED (pending ones too). USR1 on a running
 * job makes it write a checkpoint: a 20-40 s utilization dip on its GPUs and
 * "checkpoint (USR1) <time>" in its squeue comment; it keeps running. Other
 * signals are recorded only. */
int sim_signal(struct sim *s, uint32_t job, int sig, char *err, size_t errlen)
{
	struct sjob *j = wl_find(s, job);

	if (!j)
		ERR("Invalid job id specified");
	if (sig < 1 || sig > 64)
		ERR("Invalid signal");
	if (is_done(j))
		ERR("Job/step already completing or completed");
	if (sig == 9 || sig == 15 || sig == 2) {
		if (j->state == JOB_NODE_FAIL || j->state == JOB_REQUEUED)
			j->state = JOB_PENDING;
		wl_cancel(s, j);
		return 0;
	}
	if (j->state != JOB_RUNNING)
		ERR("Job is pending execution");
	j->last_sig = sig;
	if (sig == 10)
		wl_checkpoint(s, j);
	return 0;
}

void sim_inject_xid(struct sim *s, int32_t node, int32_t gpu, int32_t code)
{
	if (node < 0 || node >= s->topo.nodes || gpu < 0 || gpu >= SIM_GPN || code < 0)
		return;
	faults_queue(s, node, gpu, code, sim_sec(s) + 1, 0, 1);
}

/* ---- jobs as scontrol sees them ---- */

static int pending_like(const struct sjob *j)
{
	return j->state == JOB_PENDING || j->state == JOB_REQUEUED || (j->state == JOB_NODE_FAIL && j->requeue);
}

enum sim_job_phase sim_job_phase(struct sim *s, uint32_t job)
{
	struct sjob *j = wl_find(s, job);

	if (!j)
		return SIM_JOB_GONE;
	if (pending_like(j))
		return SIM_JOB_PENDING;
	return j->state == JOB_RUNNING ? SIM_JOB_RUNNING : SIM_JOB_DONE;
}

/* Slurm checks the excluded nodes, then the begin time; each needs a pending
 * job. wl_requeue on a job that is not running only adds the exclusions. */
int sim_job_update(struct sim *s, uint32_t job, const int32_t *exclude, int nexclude, int64_t begin, char *err,
		   size_t errlen)
{
	struct sjob *j = wl_find(s, job);

	if (!j)
		ERR("Invalid job id specified");
	if (is_done(j))
		ERR("Job has already finished");
	if (!pending_like(j))
		ERR("Job is no longer pending execution");
	for (int i = 0; i < nexclude; i++)
		if (exclude[i] < 0 || exclude[i] >= s->topo.nodes)
			ERR("Invalid node name specified");
	wl_requeue(s, j, exclude, nexclude);
	if (begin >= 0)
		j->eligible = MAX(begin / US_PER_SEC, sim_sec(s));
	return 0;
}

/* ---- faults now (myriad-sim serve --control) ---- */

/* Puts back the queue and faulted list set aside by sim_inject_xid_now,
 * followed by what the one XID added (its sympathetic lines, its node). */
static void xid_now_merge(struct sim *s, struct sxq *xq, int32_t nxq, int32_t xqcap, int32_t *faulted,
			  int32_t nfaulted)
{
	struct sxq *added = s->xq;
	int32_t nadded = s->nxq, *fnew = s->faulted, nfnew = s->nfaulted;

	s->xq = xq;
	s->nxq = nxq;
	s->xqcap = xqcap;
	for (int32_t i = 0; i < nadded; i++)
		faults_queue(s, added[i].node, added[i].gpu, added[i].code, added[i].at, added[i].pid, added[i].primary);
	free(added);
	s->faulted = faulted;
	s->nfaulted = nfaulted;
	if (nfnew) {
		s->faulted = xrealloc(s->faulted, (size_t)(nfaulted + nfnew) * sizeof *s->faulted);
		memcpy(s->faulted + nfaulted, fnew, (size_t)nfnew * sizeof *fnew);
		s->nfaulted += nfnew;
	}
	free(fnew);
}

/* faults_step on a queue holding only this XID, due this second, with no
 * natural fault or garbled line drawn (a zero rate draws nothing) and only
 * the node the XID faults, if any, tended: its health check is 30-90 s
 * away, so tending it at most books the repair crew of a node already
 * drained, as the next step would. Nothing else moves. */
int sim_inject_xid_now(struct sim *s, int32_t node, int32_t gpu, int32_t code, const struct sim_sink *sink)
{
	struct sxq *xq = s->xq;
	int32_t nxq = s->nxq, xqcap = s->xqcap, *faulted = s->faulted, nfaulted = s->nfaulted;
	double lambda = s->lambda, garble = s->garble_p;
	int64_t lines = s->n_xid_lines;

	if (node < 0 || node >= s->topo.nodes || gpu < 0 || gpu >= SIM_GPN || code < 0)
		return -1;
	s->xq = NULL;
	s->nxq = s->xqcap = 0;
	s->faulted = NULL;
	s->nfaulted = 0;
	s->lambda = s->garble_p = 0;
	faults_queue(s, node, gpu, code, sim_sec(s), 0, 1);
	s->sink = sink;
	faults_step(s);
	s->sink = NULL;
	s->lambda = lambda;
	s->garble_p = garble;
	xid_now_merge(s, xq, nxq, xqcap, faulted, nfaulted);
	return (int)(s->n_xid_lines - lines);
}

int sim_fault_now(struct sim *s, int32_t node, int32_t gpu, const char *kind, const struct sim_sink *sink)
{
	int rc;

	if (node < 0 || node >= s->topo.nodes || gpu < 0 || gpu >= SIM_GPN || !kind)
		return -1;
	s->sink = sink;
	rc = faults_force(s, node, gpu, kind);
	s->sink = NULL;
	return rc;
}
