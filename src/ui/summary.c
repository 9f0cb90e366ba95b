/*
 * summary.c - the plain-text live summary (see summary.h). One cell per node,
 * shaded by the mean utilisation of its GPUs ('\u00b7' idle); drained nodes show 'D', nodes
 * with an open fault '!', nodes with no data '?'.
 */
#include <string.h>
#include "summary.h"

static const char *const shades[] = {"\u00b7", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};

static int node_util(const struct model *m, int32_t i, int *known)
{
	int sum = 0, n = 0;

	for (int32_t g = 0; g < m->gpus_per_node; g++) {
		int32_t v = m->met[MET_UTIL][model_gpu(m, i, g)];

		if (v != MET_UNKNOWN) {
			sum += v;
			n++;
		}
	}
	*known = n > 0;
	return n ? sum / n : 0;
}

static void cell(FILE *out, const struct model *m, int32_t i, int ansi)
{
	const struct node *nd = &m->nodes[i];
	int known, u = node_util(m, i, &known);

	if (node_is_drained(nd) || nd->base == NODE_DOWN)
		fputs(ansi ? "\033[1;35mD\033[0m" : "D", out);
	else if (nd->open_faults)
		fputs(ansi ? "\033[1;31m!\033[0m" : "!", out);
	else if (!known)
		fputs(ansi ? "\033[2m?\033[0m" : "?", out);
	else if (ansi)
		fprintf(out, "\033[38;5;%dm%s\033[0m", u > 80 ? 46 : u > 40 ? 226 : u > 5 ? 214 : 240,
			shades[u * 8 / 100]);
	else
		fputs(shades[u * 8 / 100], out);
}

static void header(FILE *out, const struct model *m)
{
	char iso[32];
	int32_t busy = 0, drained = 0, down = 0, pending = 0;

	for (int32_t i = 0; i < m->nnodes; i++) {
		const struct node *n = &m->nodes[i];

		busy += n->base == NODE_ALLOC || n->base == NODE_MIXED;
		drained += node_is_drained(n);
		down += n->base == NODE_DOWN;
	}
	for (int32_t i = 0; i < m->njobs; i++)
		pending += m->jobs[i].id && m->jobs[i].state == JOB_PENDING;
	fmt_iso(m->time, iso);
	fprintf(out, "myriad  %s  %s  tick %lld\n", m->cluster, iso, (long long)m->tick);
	fprintf(out, "GPUs %d  nodes %d (busy %d, drained %d, down %d)  jobs %d running, %d pending  faults %d open\n",
		m->ngpus, m->nnodes, busy, drained, down, model_running_jobs(m), pending, model_open_faults(m));
	if (m->fac.known)
		fprintf(out, "power: IT %.0f kW  facility %.0f kW  PUE %.3f  CDU %.1f -> %.1f C  %.0f L/min  outside %.1f C\n",
			m->fac.it_kw, m->fac.facility_kw, m->fac.pue, m->fac.supply_c, m->fac.return_c,
			m->fac.flow_lpm, m->fac.outside_c);
}

static void faults(FILE *out, const struct model *m, int max)
{
	int shown = 0;

	for (int32_t i = m->nfaults - 1; i >= 0 && shown < max; i--) {
		const struct fault *f = &m->faults[i];
		char iso[32];

		if (f->close_time)
			continue;
		fmt_iso(f->time, iso);
		fprintf(out, "  %s %-8s%s%-2s %-8s %.70s -> %.50s\n", iso + 11,
			f->node >= 0 ? m->nodes[f->node].name : "facility", f->gpu >= 0 ? ":" : " ",
			f->gpu >= 0 ? (char[]){(char)('0' + f->gpu % 10), 0} : "", fault_kind_name(f->kind), f->text,
			f->remedy);
		shown++;
	}
}

void summary_print(FILE *out, const struct model *m, int ansi, int rows)
{
	int per_line = m->topo.nodes_per_su ? m->topo.nodes_per_su : 32;

	if (ansi)
		fputs("\033[H\033[2J", out);
	header(out, m);
	fputs("utilisation per node, one row per scalable unit (D drained, ! fault, ? no data):\n", out);
	for (int32_t i = 0; i < m->nnodes; i++) {
		if (i % per_line == 0)
			fprintf(out, "SU%02d ", i / per_line + 1);
		cell(out, m, i, ansi);
		if (i % per_line == per_line - 1 || i == m->nnodes - 1)
			fputc('\n', out);
	}
	fprintf(out, "open faults, newest first:\n");
	faults(out, m, MAX(3, rows - 8 - m->topo.sus));
	fflush(out);
}
