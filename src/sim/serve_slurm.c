/*
 * serve_slurm.c - the head node's scontrol and scancel (myriad-sim serve):
 * the commands a Slurm backend sends, acting on the simulator the way the
 * "sim" backend does (sim_drain, sim_resume, sim_requeue, sim_signal, and
 * sim_job_update for a pending job), answered as Slurm 22.05 answers: no
 * output and exit status 0 on success; on error its message on stderr and
 * exit status 1.
 *
 *   scontrol update NodeName=NODESET State=DRAIN Reason=TEXT
 *   scontrol update NodeName=NODESET State=RESUME
 *   scontrol requeue JOBID[,JOBID...] ...
 *   scontrol update JobId=JOBID [ExcNodeList=NODESET] [StartTime=now|now+N|ISO]
 *   scancel [-f|--full] [-b|--batch] [-Q|--quiet] [-s SIG|--signal=SIG|--signal SIG] JOBID ...
 *
 * Keys match as scontrol matches them: case-insensitive prefixes of at
 * least Slurm's minimum length ("state=drain", "St=now"). Node names are
 * Slurm hostlists (src/nodeset.h), taken in sorted order: a drain stops at
 * the first unknown name, a resume goes on past nodes that are not drained,
 * each reporting one error at the end, as slurmctld's update_node does.
 *
 * Requeue then ExcNodeList: `scontrol requeue` stops a running job at once
 * (REQUEUED, pending a few seconds later, eligible after its requeue
 * delay), and the update adds the excluded nodes to that pending job by the
 * simulator's own path for pending jobs. Nothing is remembered between the
 * two commands, and the job does not start again in between (it waits out
 * its requeue delay, which StartTime=now ends). Exclusions are added to the
 * job's list (Slurm replaces the list: the same when the backend sends the
 * whole list; an empty ExcNodeList clears nothing here).
 *
 * Jobs: "pending" includes the simulator's NODE_FAIL and REQUEUED phases of
 * a job on its way back to the queue (Slurm shows those pending). Requeue of
 * a pending job: "Job is pending execution". scancel of a pending job with a
 * signal other than KILL: "Job can not be altered now, try again later"
 * (what scancel prints after its retries; no retry delay here). scancel of
 * an unknown or finished job: "Invalid job id specified", except a plain
 * `scancel ID` (KILL, no option), which Slurm lets pass silently.
 *
 * Who drained: the login's user name (head01, the user the backend logs in
 * as). A Reason is stored as text, never interpreted, cut to the
 * simulator's 127 bytes on a UTF-8 character boundary. After any change the
 * head node's sinfo and squeue documents are printed again at once
 * (simulated time does not move).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "serve_int.h"
#include "../nodeset.h"

#define REASON_MAX 127            /* what struct snode keeps */
#define TRY_HELP "Try \"scancel --help\" for more information\n"

struct act {                      /* one command's outcome */
	struct srv *srv;
	struct sess *sess;
	struct sbuf err;              /* stderr */
	int status, changed;
};

static void errf(struct act *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void errf(struct act *a, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sbuf_adds(&a->err, buf);
	a->status = 1;
}

/* scontrol's xstrncasecmp(tag, name, MAX(taglen, min)) == 0 */
static int tag_is(const char *tag, size_t len, const char *name, size_t min)
{
	return len >= min && len <= strlen(name) && !strncasecmp(tag, name, len);
}

/* A job id: 1 to 4294967295, digits only. */
static int job_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9' || strlen(s) > 10)
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || v == 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* ---- node names ---- */

struct names {
	struct act *a;
	int32_t *idx;
	int n, cap, unknown;
};

static int add_name(void *ctx, const char *name)
{
	struct names *nm = ctx;
	int node = srv_node_of(nm->a->srv, name);

	if (nm->n == nm->cap) {
		nm->cap = nm->cap ? nm->cap * 2 : 16;
		nm->idx = xrealloc(nm->idx, (size_t)nm->cap * sizeof *nm->idx);
	}
	nm->idx[nm->n++] = node >= 0 ? node : -1;
	if (node < 0)
		nm->unknown = 1;
	return node < 0;   /* stop at the first unknown name, as update_node does */
}

/* The nodes of a hostlist in order, an unknown one last as -1. -1 if the
 * list is not a hostlist or holds no name. */
static int expand(struct act *a, const char *text, struct names *nm)
{
	char *err = NULL;
	struct nodeset *ns = nodeset_from_slurm(text, &err);
	int rc = -1;

	memset(nm, 0, sizeof *nm);
	nm->a = a;
	if (ns && nodeset_count(ns) > 0) {
		nodeset_foreach(ns, add_name, nm);
		rc = 0;
	}
	nodeset_free(ns);
	free(err);
	return rc;
}

/* ---- scontrol update NodeName= ---- */

enum { ST_NONE, ST_DRAIN, ST_RESUME };

struct node_req {
	const char *names, *reason;
	int state, count;
};

/* Slurm's state names other than DRAIN and RESUME: valid there, not here. */
static int other_state(const char *v)
{
	static const char *const known[] = {"NoResp", "CANCEL_REBOOT", "FAIL", "FUTURE", "POWER_DOWN",
					    "POWER_DOWN_ASAP", "POWER_DOWN_FORCE", "POWER_UP", "UNDRAIN", "DOWN",
					    "IDLE", "ALLOCATED", "MIXED", "COMPLETING", "ERROR", "UNKNOWN", NULL};
	size_t len = strlen(v);

	for (int i = 0; known[i]; i++)
		if (tag_is(v, len, known[i], 3))
			return 1;
	return 0;
}

static int node_state_arg(struct act *a, const char *arg, const char *v, struct node_req *r)
{
	size_t len = strlen(v);

	if (tag_is(v, len, "DRAIN", 3)) {
		r->state = ST_DRAIN;
	} else if (tag_is(v, len, "RESUME", 3)) {
		r->state = ST_RESUME;
	} else if (other_state(v)) {
		errf(a, "myriad-sim: head01: scontrol update: %.100s is not simulated (State=DRAIN and State=RESUME are)\n",
		     arg);
		return -1;
	} else {
		errf(a, "Invalid input: %.200s\nRequest aborted\nValid states are: NoResp DRAIN FAIL FUTURE RESUME "
		     "POWER_DOWN POWER_UP UNDRAIN\nNot all states are valid given a node's prior state\n", arg);
		return -1;
	}
	r->count++;
	return 0;
}

/* One NAME=VALUE of a node update, in scontrol's order of keys. */
static int node_arg(struct act *a, const char *arg, struct node_req *r)
{
	static const struct { const char *name; size_t min; } other[] = {
		{"NodeAddr", 5}, {"NodeHostName", 5}, {"ActiveFeatures", 3}, {"CpuBind", 7}, {"Extra", 1},
		{"Features", 1}, {"AvailableFeatures", 3}, {"Gres", 1}, {"Weight", 1}, {"Comment", 2}};
	const char *v = strchr(arg, '=');
	size_t len = v ? (size_t)(v - arg) : 0;

	if (!v) {
		errf(a, "scontrol: error: Invalid input: %.200s  Request aborted\n", arg);
		return -1;
	}
	v++;
	if (tag_is(arg, len, "NodeName", 1) && !tag_is(arg, len, "NodeAddr", 5) && !tag_is(arg, len, "NodeHostName", 5)) {
		r->names = v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_LEN(other); i++)
		if (tag_is(arg, len, other[i].name, other[i].min)) {
			errf(a, "myriad-sim: head01: scontrol update: %.*s is not simulated (NodeName, State and Reason are)\n",
			     (int)MIN(len, 40), arg);
			return -1;
		}
	if (tag_is(arg, len, "Reason", 1)) {
		r->reason = v;
		r->count++;
		return 0;
	}
	if (tag_is(arg, len, "State", 1))
		return node_state_arg(a, arg, v, r);
	errf(a, "Update of this parameter is not supported: %.200s\nRequest aborted\n", arg);
	return -1;
}

/* scontrol strips one leading and one trailing double quote; the simulator
 * keeps 127 bytes, cut here where a UTF-8 character starts. */
static void reason_text(const char *v, char *out)
{
	size_t n;

	if (*v == '"')
		v++;
	n = strlen(v);
	if (n && v[n - 1] == '"')
		n--;
	if (n > REASON_MAX) {
		n = REASON_MAX;
		while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, v, n);
	out[n] = '\0';
}

static void node_apply(struct act *a, const struct node_req *r, const char *reason)
{
	const char *who = a->sess->user[0] ? a->sess->user : "slurm";
	char e[160], last[160] = "";
	struct names nm;

	if (!r->names || expand(a, r->names, &nm) < 0) {
		errf(a, "slurm_update error: Invalid node name specified\n");
		return;
	}
	for (int i = 0; i < nm.n; i++) {
		int rc;

		if (nm.idx[i] < 0) {
			snprintf(last, sizeof last, "Invalid node name specified");
			break;
		}
		rc = r->state == ST_DRAIN ? sim_drain(a->srv->sim, nm.idx[i], reason, who, e, sizeof e)
					  : sim_resume(a->srv->sim, nm.idx[i], e, sizeof e);
		if (rc < 0)
			snprintf(last, sizeof last, "%s", e);
		else
			a->changed = 1;
	}
	free(nm.idx);
	if (last[0])
		errf(a, "slurm_update error: %s\n", last);
}

static void update_node(struct act *a, int n, char **w)
{
	struct node_req r = {0};
	char reason[REASON_MAX + 1] = "";

	for (int i = 0; i < n; i++)
		if (node_arg(a, w[i], &r) < 0)
			return;
	if (r.reason)
		reason_text(r.reason, reason);
	if (r.state == ST_DRAIN && !reason[0]) {
		errf(a, "You must specify a reason when DOWNING or DRAINING a node. Request denied\n");
		return;
	}
	if (!r.count) {
		errf(a, "No changes specified\n");
		return;
	}
	if (r.state == ST_NONE) {
		errf(a, "myriad-sim: head01: scontrol update: a Reason without State=DRAIN is not simulated\n");
		return;
	}
	node_apply(a, &r, reason);
}

/* ---- scontrol update JobId= ---- */

struct job_req {
	const char *ids, *exclude;
	int64_t begin;                /* us, -1 unchanged */
	int count;
};

/* now, now+N or now-N (seconds, or with a unit: minutes hours days weeks), an
 * ISO 8601 time or epoch seconds, on the simulator's clock. */
static int parse_start(struct srv *srv, const char *v, int64_t *out)
{
	static const struct { const char *unit; int64_t secs; } units[] = {
		{"seconds", 1}, {"minutes", 60}, {"hours", 3600}, {"days", 86400}, {"weeks", 604800}};
	char *end;
	long long k;

	if (strncasecmp(v, "now", 3))
		return parse_iso(v, out);
	*out = sim_now(srv->sim);
	if (!v[3])
		return 0;
	if ((v[3] != '+' && v[3] != '-') || v[4] < '0' || v[4] > '9')
		return -1;
	k = strtoll(v + 4, &end, 10);
	if (k > 100LL * 365 * 86400)
		return -1;
	for (size_t i = 0; *end && i < ARRAY_LEN(units); i++)
		if (!strncasecmp(end, units[i].unit, strlen(end))) {
			k *= units[i].secs;
			end += strlen(end);
		}
	if (*end)
		return -1;
	*out += (v[3] == '-' ? -k : k) * US_PER_SEC;
	return 0;
}

static int job_arg(struct act *a, const char *tag, size_t len, const char *v, struct job_req *r)
{
	if (tag_is(tag, len, "JobId", 3)) {
		r->ids = v;
	} else if (tag_is(tag, len, "ExcNodeList", 3)) {
		r->exclude = v;
		r->count++;
	} else if (tag_is(tag, len, "BeginTime", 2) || tag_is(tag, len, "StartTime", 2)) {
		if (parse_start(a->srv, v, &r->begin) < 0)
			sbuf_printf(&a->err, "Invalid time specification (pos=0): %.100s\n", v);
		else
			r->count++;
	} else {
		errf(a, "Update of this parameter is not supported: %.*s=%.100s\nRequest aborted\n", (int)MIN(len, 40), tag, v);
		return -1;
	}
	return 0;
}

/* NAME=VALUE or, as scontrol also takes them, NAME VALUE. */
static int job_args(struct act *a, int n, char **w, struct job_req *r)
{
	for (int i = 0; i < n; i++) {
		const char *tag = w[i], *v = strchr(tag, '=');
		size_t len = v ? (size_t)(v - tag) : strlen(tag);

		if (v) {
			v++;
		} else if (i + 1 < n) {
			v = w[++i];
		} else {
			errf(a, "Invalid input: %.200s\nRequest aborted\n", tag);
			return -1;
		}
		if (job_arg(a, tag, len, v, r) < 0)
			return -1;
	}
	return 0;
}

static void job_apply(struct act *a, const struct job_req *r, const struct names *ex)
{
	char *ids = xstrdup(r->ids), *save = NULL, e[160];

	for (char *id = strtok_r(ids, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
		uint32_t job;

		if (job_id(id, &job) < 0)
			errf(a, "Invalid job id specified for job %.40s\n", id);
		else if (sim_job_update(a->srv->sim, job, ex->idx, ex->n, r->begin, e, sizeof e) < 0)
			errf(a, "%s for job %u\n", e, job);
		else
			a->changed = 1;
	}
	free(ids);
}

static void update_job(struct act *a, int n, char **w)
{
	struct job_req r = {NULL, NULL, -1, 0};
	struct names ex = {0};

	if (job_args(a, n, w, &r) < 0)
		return;
	if (!r.count) {
		errf(a, "No changes specified\n");
		return;
	}
	if (!r.ids || !*r.ids) {
		errf(a, "scontrol: error: No job ID specified\n");
		return;
	}
	if (r.exclude && *r.exclude && expand(a, r.exclude, &ex) < 0) {
		ex.idx = xmalloc(sizeof *ex.idx);
		ex.idx[0] = -1;   /* not a hostlist: "Invalid node name specified" once pending */
		ex.n = 1;
	}
	job_apply(a, &r, &ex);
	free(ex.idx);
}

/* ---- scontrol ---- */

static void update(struct act *a, int n, char **w)
{
	int job = 0, node = 0;

	for (int i = 0; i < n; i++) {
		const char *v = strchr(w[i], '=');
		size_t len = v ? (size_t)(v - w[i]) : strlen(w[i]);

		job |= tag_is(w[i], len, "JobId", 3) || tag_is(w[i], len, "JobName", 3);
		node |= tag_is(w[i], len, "NodeName", 3);
	}
	if (job)
		update_job(a, n, w);
	else if (node)
		update_node(a, n, w);
	else
		errf(a, "No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\", "
		     "\"Reservation\", \"JobId\", or \"SlurmctldDebug\"\n");
}

static void requeue_one(struct act *a, const char *id)
{
	uint32_t job;
	char e[160];
	int pending;

	if (job_id(id, &job) < 0) {
		errf(a, "Invalid job id specified for job %.40s\n", id);
		return;
	}
	/* pending: nothing to do for the simulator, but a job that cannot be
	 * requeued is refused for that first, as slurmctld checks */
	pending = sim_job_phase(a->srv->sim, job) == SIM_JOB_PENDING;
	if (sim_requeue(a->srv->sim, job, NULL, 0, e, sizeof e) < 0)
		errf(a, "%s for job %u\n", e, job);
	else if (pending)
		errf(a, "Job is pending execution for job %u\n", job);
	else
		a->changed = 1;
}

static void requeue(struct act *a, int n, char **w)
{
	if (n < 1) {
		errf(a, "too few arguments for keyword:requeue\n");
		return;
	}
	for (int i = 0; i < n; i++) {
		char *ids = xstrdup(w[i]), *save = NULL, *p = ids;

		if (!strcasecmp(p, "Incomplete") || !strncasecmp(p, "State=", 6))
			continue;   /* requeue flags: no meaning here */
		if (!strncasecmp(p, "jobid=", 6))
			p += 6;
		else if (!strncasecmp(p, "job=", 4))
			p += 4;
		for (char *id = strtok_r(p, ",", &save); id; id = strtok_r(NULL, ",", &save))
			requeue_one(a, id);
		free(ids);
	}
}

static void scontrol(struct act *a, int n, char **w)
{
	int i = 1;

	while (i < n && w[i][0] == '-')
		i++;   /* -Q, -o, --details: no bearing on these commands */
	if (i < n && !strcasecmp(w[i], "update"))
		update(a, n - i - 1, w + i + 1);
	else if (i < n && !strcasecmp(w[i], "requeue"))
		requeue(a, n - i - 1, w + i + 1);
	else
		errf(a, "myriad-sim: head01: scontrol %.40s is not simulated (update and requeue are)\n",
		     i < n ? w[i] : "without a command");
}

/* ---- scancel ---- */

/* Slurm's sig_name2num: a number, or a name with or without SIG. 0 if neither. */
static int signal_number(const char *s)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{"HUP", 1}, {"INT", 2}, {"QUIT", 3}, {"ABRT", 6}, {"KILL", 9}, {"ALRM", 14}, {"TERM", 15},
		{"USR1", 10}, {"USR2", 12}, {"URG", 23}, {"CONT", 18}, {"STOP", 19}, {"TSTP", 20},
		{"TTIN", 21}, {"TTOU", 22}, {"XCPU", 24}};
	char *end;
	long v = strtol(s, &end, 10);

	if (end != s)
		return *end || v < 0 || v > 0xffff ? 0 : (int)v;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < ARRAY_LEN(sigs); i++)
		if (!strcasecmp(s, sigs[i].name))
			return sigs[i].sig;
	return 0;
}

struct cancel_req {
	const char *sig;              /* as given, NULL: KILL */
	int flags, quiet;             /* flags: --full or --batch given */
	char **ids;
	int nids;
};

static int cancel_short(struct act *a, int n, char **w, int *i, struct cancel_req *r)
{
	for (const char *p = w[*i] + 1; *p; p++) {
		if (*p == 'f' || *p == 'b') {
			r->flags = 1;
		} else if (*p == 'Q') {
			r->quiet = 1;
		} else if (*p == 'v') {
			continue;
		} else if (*p == 's') {
			if (!p[1] && *i + 1 >= n) {
				errf(a, "scancel: option requires an argument -- 's'\n" TRY_HELP);
				return -1;
			}
			r->sig = p[1] ? p + 1 : w[++*i];
			return 0;
		} else {
			errf(a, "scancel: invalid option -- '%c'\n" TRY_HELP, *p);
			return -1;
		}
	}
	return 0;
}

static int cancel_long(struct act *a, int n, char **w, int *i, struct cancel_req *r)
{
	const char *o = w[*i];

	if (!strcmp(o, "--full") || !strcmp(o, "--batch")) {
		r->flags = 1;
	} else if (!strcmp(o, "--quiet")) {
		r->quiet = 1;
	} else if (!strcmp(o, "--verbose")) {
		return 0;
	} else if (!strncmp(o, "--signal=", 9)) {
		r->sig = o + 9;
	} else if (!strcmp(o, "--signal") && *i + 1 < n) {
		r->sig = w[++*i];
	} else if (!strcmp(o, "--signal")) {
		errf(a, "scancel: option '--signal' requires an argument\n" TRY_HELP);
		return -1;
	} else {
		errf(a, "scancel: unrecognized option '%.60s'\n" TRY_HELP, o);
		return -1;
	}
	return 0;
}

static int cancel_args(struct act *a, int n, char **w, struct cancel_req *r)
{
	r->ids = xcalloc((size_t)n, sizeof *r->ids);
	for (int i = 1, opts = 1; i < n; i++) {
		int rc = 0;

		if (opts && !strcmp(w[i], "--"))
			opts = 0;
		else if (opts && !strncmp(w[i], "--", 2))
			rc = cancel_long(a, n, w, &i, r);
		else if (opts && w[i][0] == '-' && w[i][1])
			rc = cancel_short(a, n, w, &i, r);
		else
			r->ids[r->nids++] = w[i];
		if (rc < 0)
			return -1;
	}
	return 0;
}

static void cancel_one(struct act *a, const struct cancel_req *r, uint32_t job, int sig)
{
	enum sim_job_phase ph = sim_job_phase(a->srv->sim, job);
	char e[160];

	if (ph == SIM_JOB_GONE || ph == SIM_JOB_DONE) {
		if (r->sig || r->flags)   /* plain `scancel ID` of a finished job: quietly done */
			errf(a, "scancel: error: Kill job error on job id %u: Invalid job id specified\n", job);
	} else if (ph == SIM_JOB_PENDING && sig != 9) {
		errf(a, "scancel: error: Kill job error on job id %u: Job can not be altered now, try again later\n", job);
	} else if (sim_signal(a->srv->sim, job, sig, e, sizeof e) < 0) {
		errf(a, "scancel: error: Kill job error on job id %u: %s\n", job, e);
	} else {
		a->changed = 1;
	}
}

static void scancel(struct act *a, int n, char **w)
{
	struct cancel_req r = {0};
	int sig = 9;
	uint32_t job;

	if (cancel_args(a, n, w, &r) < 0)
		goto done;
	if (r.sig && !(sig = signal_number(r.sig))) {
		errf(a, "Unknown job signal: %.40s\n", r.sig);
		goto done;
	}
	if (!r.nids) {
		errf(a, "scancel: error: No job identification provided\n");
		goto done;
	}
	for (int i = 0; i < r.nids; i++)
		if (job_id(r.ids[i], &job) < 0) {
			errf(a, "scancel: error: Invalid job id %.40s\n", r.ids[i]);
			goto done;
		}
	for (int i = 0; i < r.nids; i++)
		if (job_id(r.ids[i], &job) == 0)
			cancel_one(a, &r, job, sig);
	if (r.quiet)
		sbuf_reset(&a->err);
done:
	free(r.ids);
}

/* ---- entry ---- */

int slurm_command(struct schan *c, int n, char **w)
{
	struct act a = {c->sess->srv, c->sess, {0}, 0, 0};

	if (!strcmp(w[0], "scontrol"))
		scontrol(&a, n, w);
	else if (!strcmp(w[0], "scancel"))
		scancel(&a, n, w);
	else
		return -1;
	if (a.changed)
		srv_refresh_docs(a.srv);
	chan_answer(c, a.status, NULL, 0, a.err.s);
	sbuf_free(&a.err);
	return 0;
}
