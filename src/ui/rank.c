/*
 * rank.c - the worst GPUs first: the top N of the fleet by one measure, for
 * the utilization panel's ranked view (w). Each measure says which way is
 * worse: the allocated GPUs a running job leaves idle (they cost money),
 * the hottest, the nearest their power limit, the fullest memory, the most
 * uncorrected ECC errors or an XID. A bounded heap keeps the N worst, so a
 * ranking of 102,400 GPUs costs one pass.
 */
#include <stdio.h>
#include "ui_int.h"

static const char *const titles[RANK_COUNT] = {
	"allocated GPUs, least utilized first (idle in a running job)",
	"hottest GPUs first",
	"GPUs nearest their power limit first",
	"fullest GPU memory first",
	"GPUs with the most uncorrected ECC errors, then an XID",
};

const char *rank_title(enum rank_by by)
{
	return by < RANK_COUNT ? titles[by] : "?";
}

static int running(const struct model *m, int32_t g)
{
	int32_t j = m->gpu_job[g];

	return j >= 0 && j < m->njobs && m->jobs[j].id && m->jobs[j].state == JOB_RUNNING;
}

/* How bad GPU g is by `by` (larger is worse); 0 when it does not take part. */
static int score(const struct model *m, const uint8_t *gs, enum rank_by by, int32_t g, double *s)
{
	int32_t v = MET_UNKNOWN, lim;

	if (gs[g] == GS_NONE || gs[g] == GS_DOWN || gs[g] == GS_STALE)
		return 0;   /* no reading worth ranking */
	switch (by) {
	case RANK_IDLE:
		v = m->met[MET_UTIL][g];
		*s = 100.0 - v;
		return v != MET_UNKNOWN && running(m, g);
	case RANK_HOT:
		v = m->met[MET_TEMP][g];
		*s = v;
		return v != MET_UNKNOWN;
	case RANK_POWER:
		v = m->met[MET_POWER][g];
		lim = m->met[MET_POWER_LIMIT][g];
		*s = v / (double)(lim > 0 && lim != MET_UNKNOWN ? lim : 70000);
		return v != MET_UNKNOWN;
	case RANK_MEM:
		v = m->met[MET_MEM_USED][g];
		lim = m->met[MET_MEM_TOTAL][g];
		*s = lim > 0 && lim != MET_UNKNOWN ? v / (double)lim : 0;
		return v != MET_UNKNOWN && lim > 0 && lim != MET_UNKNOWN;
	default:
		v = m->met[MET_ECC_UNCORR][g];
		*s = (v == MET_UNKNOWN ? 0 : v) * 2.0 + (m->last_xid[g] != 0);
		return *s > 0;
	}
}

/* A min-heap on score: the root is the least bad of the kept. */
static void sift_down(struct rank_row *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i;
		struct rank_row t;

		if (l < n && h[l].score < h[min].score)
			min = l;
		if (r < n && h[r].score < h[min].score)
			min = r;
		if (min == i)
			return;
		t = h[i], h[i] = h[min], h[min] = t;
		i = min;
	}
}

static void sift_up(struct rank_row *h, int i)
{
	while (i > 0 && h[(i - 1) / 2].score > h[i].score) {
		struct rank_row t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static int worse_first(const void *a, const void *b)
{
	const struct rank_row *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;   /* stable: by GPU */
}

int rank_gpus(const struct model *m, const uint8_t *gs, enum rank_by by, struct rank_row *out, int max)
{
	int n = 0;

	for (int32_t g = 0; g < m->ngpus && max > 0; g++) {
		struct rank_row r = {g, 0};

		if (!score(m, gs, by, g, &r.score))
			continue;
		if (n < max) {
			out[n] = r;
			sift_up(out, n++);
		} else if (r.score > out[0].score) {
			out[0] = r;
			sift_down(out, n, 0);
		}
	}
	qsort(out, (size_t)n, sizeof *out, worse_first);
	return n;
}

void rank_value(const struct model *m, enum rank_by by, int32_t g, char *buf, size_t size)
{
	int32_t v, lim;

	switch (by) {
	case RANK_IDLE: snprintf(buf, size, "%d%% util", m->met[MET_UTIL][g]); break;
	case RANK_HOT: snprintf(buf, size, "%d C", m->met[MET_TEMP][g]); break;
	case RANK_POWER:
		v = m->met[MET_POWER][g];
		lim = m->met[MET_POWER_LIMIT][g];
		if (lim > 0 && lim != MET_UNKNOWN)
			snprintf(buf, size, "%d W, %d%% of %d", v / 100, (int)(100.0 * v / lim), lim / 100);
		else
			snprintf(buf, size, "%d W", v / 100);
		break;
	case RANK_MEM:
		snprintf(buf, size, "%d%% of %d G", (int)(100.0 * m->met[MET_MEM_USED][g] / m->met[MET_MEM_TOTAL][g]),
			 m->met[MET_MEM_TOTAL][g] / 1024);
		break;
	default:
		v = m->met[MET_ECC_UNCORR][g];
		if (m->last_xid[g])
			snprintf(buf, size, "%d ECC, XID %d", v == MET_UNKNOWN ? 0 : v, m->last_xid[g]);
		else
			snprintf(buf, size, "%d ECC", v);
	}
}
