/*
 * slurm_json.c - the scheduler's documents, as Slurm 22.05 prints them with
 * `sinfo --json` and `squeue --json` (openapi v0.0.38: plain integers for
 * times, lower-case base node state plus a "state_flags" list, job_state a
 * string). Fields follow the order of Slurm's own dumper; a subset of the job
 * fields is kept (the rest are constants a console has no use for). Compact,
 * one document per call, ending in a newline. Nothing here draws a random
 * number: printing a document never changes what the simulation does.
 * Strings are escaped byte by byte (sbuf_json_str): a drain reason may hold any
 * byte an operator sent through scontrol.
 */
#include <string.h>
#include "sim_int.h"

#define META "{\"meta\":{\"plugin\":{\"type\":\"openapi\\/v0.0.38\",\"name\":\"Slurm OpenAPI v0.0.38\"}," \
	"\"Slurm\":{\"version\":{\"major\":22,\"micro\":8,\"minor\":5},\"release\":\"22.05.8\"}},\"errors\":[],"

static int popcount8(uint8_t m)
{
	return __builtin_popcount(m);
}

static void key_str(struct sbuf *b, const char *key, const char *v)
{
	sbuf_adds(b, key);
	sbuf_json_str(b, v);
}

static void key_int(struct sbuf *b, const char *key, int64_t v)
{
	sbuf_adds(b, key);
	sb_i64(b, v);
}

/* ---- sinfo ---- */

static const char *node_state(const struct snode *nd)
{
	if (nd->down)
		return "down";
	if (!nd->used)
		return "idle";
	return nd->used == 0xff ? "allocated" : "mixed";
}

static void node_flags(struct sbuf *b, const struct snode *nd)
{
	int first = 1;

	SB_LIT(b, ",\"state_flags\":[");
	if (nd->flags & NODE_F_DRAIN) {
		SB_LIT(b, "\"DRAIN\"");
		first = 0;
	}
	if (nd->flags & NODE_F_NOT_RESPONDING) {
		if (!first)
			sbuf_addc(b, ',');
		SB_LIT(b, "\"NOT_RESPONDING\"");
	}
	sbuf_addc(b, ']');
}

static void node_gres_used(struct sbuf *b, const struct snode *nd)
{
	SB_LIT(b, ",\"gres_used\":\"gpu:");
	if (!nd->used) {
		SB_LIT(b, "0(IDX:N/A)\"");
		return;
	}
	sb_u64(b, (uint64_t)popcount8(nd->used));
	SB_LIT(b, "(IDX:");
	sb_idx_list(b, nd->used);
	SB_LIT(b, ")\"");
}

static void node_alloc(struct sbuf *b, const struct snode *nd)
{
	int k = popcount8(nd->used);

	key_int(b, ",\"alloc_memory\":", (int64_t)k * SIM_MEM_PER_GPU);
	key_int(b, ",\"alloc_cpus\":", k * (SIM_CPUS / SIM_GPN));
	key_int(b, ",\"idle_cpus\":", SIM_CPUS - k * (SIM_CPUS / SIM_GPN));
	if (!k) {
		SB_LIT(b, ",\"tres_used\":null,\"tres_weighted\":0.0}");
		return;
	}
	SB_LIT(b, ",\"tres_used\":\"cpu=");
	sb_u64(b, (uint64_t)k * (SIM_CPUS / SIM_GPN));
	SB_LIT(b, ",mem=");
	sb_u64(b, (uint64_t)k * SIM_MEM_PER_GPU);
	SB_LIT(b, "M,gres/gpu=");
	sb_u64(b, (uint64_t)k);
	SB_LIT(b, "\",\"tres_weighted\":");
	sb_u64(b, (uint64_t)k * (SIM_CPUS / SIM_GPN));
	SB_LIT(b, ".0}");
}

static void sinfo_node(struct sim *s, struct sbuf *b, int32_t n)
{
	const struct snode *nd = &s->nodes[n];
	int k = popcount8(nd->used);
	int64_t boot = nd->boot_time / US_PER_SEC;

	key_int(b, "{\"architecture\":\"x86_64\",\"burstbuffer_network_address\":\"\",\"boards\":1,\"boot_time\":", boot);
	SB_LIT(b, ",\"comment\":\"\",\"cores\":56,\"cpu_binding\":0");
	key_int(b, ",\"cpu_load\":", nd->silent ? 0 : k * 350 + n % 37);
	SB_LIT(b, ",\"extra\":\"\"");
	key_int(b, ",\"free_memory\":", SIM_REAL_MEMORY - (int64_t)k * SIM_MEM_PER_GPU * 9 / 10 - 41000);
	key_int(b, ",\"cpus\":", SIM_CPUS);
	key_int(b, ",\"last_busy\":", nd->last_busy / US_PER_SEC);
	SB_LIT(b, ",\"features\":\"h100,ib\",\"active_features\":\"h100,ib\",\"gres\":\"gpu:8\",\"gres_drained\":\"N/A\"");
	node_gres_used(b, nd);
	key_str(b, ",\"mcs_label\":\"\",\"name\":", nd->name);
	SB_LIT(b, ",\"next_state_after_reboot\":\"invalid\"");
	key_str(b, ",\"address\":", nd->name);
	key_str(b, ",\"hostname\":", nd->name);
	key_str(b, ",\"state\":", node_state(nd));
	node_flags(b, nd);
	SB_LIT(b, ",\"next_state_after_reboot_flags\":[],\"operating_system\":\"Linux 5.15.0-1053-nvidia #54-Ubuntu SMP "
	       "Tue Apr 16 13:33:49 UTC 2024\",\"owner\":null,\"partitions\":[\"batch\",\"debug\"],\"port\":6818");
	key_int(b, ",\"real_memory\":", SIM_REAL_MEMORY);
	key_str(b, ",\"reason\":", nd->reason);
	key_int(b, ",\"reason_changed_at\":", nd->reason_time / US_PER_SEC);
	key_str(b, ",\"reason_set_by_user\":", nd->who);
	key_int(b, ",\"slurmd_start_time\":", boot + 95);
	SB_LIT(b, ",\"sockets\":2,\"threads\":2,\"temporary_disk\":0,\"weight\":1,"
	       "\"tres\":\"cpu=224,mem=2000000M,billing=224,gres/gpu=8\",\"slurmd_version\":\"22.05.8\"");
	node_alloc(b, nd);
}

void sj_sinfo(struct sim *s)
{
	struct sbuf *b = &s->doc;

	if (!sim_printing(s))
		return;
	sbuf_reset(b);
	SB_LIT(b, META "\"nodes\":[");
	for (int32_t n = 0; n < s->topo.nodes; n++) {
		if (n)
			sbuf_addc(b, ',');
		sinfo_node(s, b, n);
	}
	SB_LIT(b, "]}\n");
	sim_emit(s, SIM_SINFO, -1, b);
}

/* ---- squeue ---- */

static int running_like(const struct sjob *j)
{
	return j->state == JOB_RUNNING;
}

static void tres(struct sbuf *b, const struct sjob *j)
{
	int64_t gpus = (int64_t)j->nnodes * j->gpn, cpus = gpus * (SIM_CPUS / SIM_GPN);

	SB_LIT(b, "\"cpu=");
	sb_i64(b, cpus);
	SB_LIT(b, ",mem=");
	sb_i64(b, gpus * SIM_MEM_PER_GPU);
	SB_LIT(b, "M,node=");
	sb_i64(b, j->nnodes);
	SB_LIT(b, ",billing=");
	sb_i64(b, cpus);
	SB_LIT(b, ",gres/gpu=");
	sb_i64(b, gpus);
	sbuf_addc(b, '"');
}

static void gres_detail(struct sbuf *b, const struct sjob *j)
{
	SB_LIT(b, ",\"gres_detail\":[");
	if (running_like(j))
		for (int32_t i = 0; i < j->nnodes; i++) {
			if (i)
				sbuf_addc(b, ',');
			SB_LIT(b, "\"gpu:");
			sb_u64(b, j->gpn);
			SB_LIT(b, "(IDX:");
			sb_idx_list(b, j->mask);
			SB_LIT(b, ")\"");
		}
	sbuf_addc(b, ']');
}

static void job_nodes(struct sim *s, struct sbuf *b, const struct sjob *j)
{
	SB_LIT(b, ",\"nodes\":\"");
	if (j->shown_nodes && j->nodes)
		sb_fold(b, s, j->nodes, j->nnodes);
	sbuf_addc(b, '"');
}

static void job_head(struct sim *s, struct sbuf *b, const struct sjob *j)
{
	const char *user = wl_user_name(j);

	SB_LIT(b, "{\"account\":\"");
	sbuf_adds(b, j->cls == JC_SMALL ? "research" : "llm");
	key_int(b, "\",\"accrue_time\":", j->eligible);
	SB_LIT(b, ",\"array_job_id\":0,\"array_task_id\":null,\"batch_flag\":true,\"batch_host\":\"");
	if (running_like(j) && j->nodes)
		sbuf_adds(b, s->nodes[j->nodes[0]].name);
	SB_LIT(b, "\",\"cluster\":\"myriad\",\"command\":\"/home/");
	sbuf_adds(b, user);
	SB_LIT(b, "/jobs/");
	sbuf_adds(b, wl_job_name(j));
	SB_LIT(b, ".sbatch\",\"comment\":\"");
	if (j->ckpt) {
		char iso[32];

		fmt_iso(j->ckpt * US_PER_SEC, iso);
		SB_LIT(b, "checkpoint (USR1) ");
		sbuf_adds(b, iso);
	}
	SB_LIT(b, "\",\"billable_tres\":");
	sb_i64(b, (int64_t)j->nnodes * j->gpn * (SIM_CPUS / SIM_GPN));
	SB_LIT(b, ".0,\"cpus_per_task\":28");
}

static int64_t end_time(const struct sjob *j)
{
	if (j->state == JOB_RUNNING)
		return j->start + j->limit;
	if (j->state == JOB_PENDING || j->state == JOB_REQUEUED)
		return 0;
	return j->end;
}

static void job_middle(struct sim *s, struct sbuf *b, const struct sjob *j)
{
	key_int(b, ",\"eligible_time\":", j->eligible);
	key_int(b, ",\"end_time\":", end_time(j));
	SB_LIT(b, ",\"excluded_nodes\":\"");
	sb_fold(b, s, j->excl, j->nexcl);
	key_int(b, "\",\"exit_code\":", j->exit_code);
	gres_detail(b, j);
	key_int(b, ",\"group_id\":", 1000);
	key_int(b, ",\"job_id\":", j->id);
	key_str(b, ",\"job_state\":", job_state_name((enum job_state)j->state));
	key_int(b, ",\"last_sched_evaluation\":", sim_sec(s));
	key_str(b, ",\"name\":", wl_job_name(j));
	job_nodes(s, b, j);
	key_int(b, ",\"cpus\":", (int64_t)j->nnodes * j->gpn * (SIM_CPUS / SIM_GPN));
	key_int(b, ",\"node_count\":", j->nnodes);
	key_int(b, ",\"tasks\":", (int64_t)j->nnodes * j->gpn);
	key_str(b, ",\"partition\":", j->debug ? "debug" : "batch");
	key_int(b, ",\"memory_per_node\":", (int64_t)j->gpn * SIM_MEM_PER_GPU);
	key_int(b, ",\"priority\":", MAX(1, 1000000 - (int64_t)(j->id - 1000)));
	SB_LIT(b, ",\"qos\":\"normal\",\"requeue\":");
	sbuf_adds(b, j->requeue ? "true" : "false");
	key_int(b, ",\"restart_cnt\":", j->restarts);
}

static void job_tail(struct sbuf *b, const struct sjob *j)
{
	const char *user = wl_user_name(j);
	int pending = j->state == JOB_PENDING || j->state == JOB_REQUEUED;

	key_int(b, ",\"start_time\":", pending ? 0 : j->start);
	key_str(b, ",\"state_description\":\"\",\"state_reason\":", j->reason);
	SB_LIT(b, ",\"standard_output\":\"/home/");
	sbuf_adds(b, user);
	SB_LIT(b, "/logs/%j.out\"");
	key_int(b, ",\"submit_time\":", j->submit);
	key_int(b, ",\"time_limit\":", j->limit / 60);
	SB_LIT(b, ",\"tres_per_node\":\"gres:gpu:");
	sb_u64(b, j->gpn);
	SB_LIT(b, "\",\"tres_req_str\":");
	tres(b, j);
	SB_LIT(b, ",\"tres_alloc_str\":");
	if (pending)
		SB_LIT(b, "\"\"");
	else
		tres(b, j);
	key_int(b, ",\"user_id\":", wl_user_uid(j));
	key_str(b, ",\"user_name\":", user);
	SB_LIT(b, ",\"current_working_directory\":\"/home/");
	sbuf_adds(b, user);
	SB_LIT(b, "\"}");
}

void sj_squeue(struct sim *s)
{
	struct sbuf *b = &s->doc;

	if (!sim_printing(s))
		return;
	sbuf_reset(b);
	SB_LIT(b, META "\"jobs\":[");
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct sjob *j = &s->jobs[i];

		if (i)
			sbuf_addc(b, ',');
		job_head(s, b, j);
		job_middle(s, b, j);
		job_tail(b, j);
	}
	SB_LIT(b, "]}\n");
	sim_emit(s, SIM_SQUEUE, -1, b);
}
