/*
 * topo.c - switch counts, names and link endpoints of a rail-optimised
 * leaf/spine(/core) fabric, derived from the number of nodes (see topo.h).
 */
#include <stdio.h>
#include <string.h>
#include "topo.h"

int topo_build(struct topo *t, int32_t nodes, int32_t nodes_per_su, int32_t gpus_per_node)
{
	memset(t, 0, sizeof *t);
	if (nodes < 1 || nodes > 1000000 || nodes_per_su < 1 || gpus_per_node < 1 || gpus_per_node > 32)
		return -1;
	t->nodes = nodes;
	t->nodes_per_su = nodes_per_su;
	t->gpus_per_node = gpus_per_node;
	t->rails = gpus_per_node;
	t->gpus = nodes * gpus_per_node;
	t->sus = (nodes + nodes_per_su - 1) / nodes_per_su;
	t->leaves = t->sus * t->rails;
	if (t->sus <= 8) {
		t->tiers = 2;
		t->spines = 4 * t->sus;
		t->cores = 0;
	} else {
		t->tiers = 3;
		t->spines = t->leaves;
		t->cores = (t->leaves + 1) / 2;
	}
	t->node_links = nodes * t->rails;
	t->leaf_links = t->leaves * TOPO_LEAF_UP;
	t->spine_links = t->tiers == 3 ? t->spines * TOPO_LEAF_UP : 0;
	t->links = t->node_links + t->leaf_links + t->spine_links;
	return 0;
}

int32_t topo_switches(const struct topo *t)
{
	return t->leaves + t->spines + t->cores;
}

int32_t topo_leaf(const struct topo *t, int32_t su, int32_t rail)
{
	return su * t->rails + rail;
}

enum switch_tier topo_switch_tier(const struct topo *t, int32_t sw)
{
	if (sw < t->leaves)
		return TIER_LEAF;
	if (sw < t->leaves + t->spines)
		return TIER_SPINE;
	return TIER_CORE;
}

void topo_switch_name(const struct topo *t, int32_t sw, char *out, int outlen)
{
	switch (topo_switch_tier(t, sw)) {
	case TIER_LEAF:
		snprintf(out, (size_t)outlen, "leaf-s%02d-r%d", sw / t->rails + 1, sw % t->rails);
		break;
	case TIER_SPINE:
		snprintf(out, (size_t)outlen, "spine-%03d", sw - t->leaves + 1);
		break;
	default:
		snprintf(out, (size_t)outlen, "core-%03d", sw - t->leaves - t->spines + 1);
	}
}

/*
 * Two tiers: uplink k of a leaf goes to spine k mod spines (every leaf reaches
 * every spine). Three tiers: spines are grouped per rail, `sus` spines in each;
 * uplink k of leaf (su, rail) goes to spine (rail, (su + k) mod sus), and
 * uplink k of spine j goes to core (j * 32 + k) mod cores.
 */
void topo_link_ends(const struct topo *t, int32_t link, int32_t *lower, int32_t *upper)
{
	int32_t i = link - t->node_links;

	if (i < t->leaf_links) {
		int32_t leaf = i / TOPO_LEAF_UP, k = i % TOPO_LEAF_UP, spine;

		if (t->tiers == 2)
			spine = k % t->spines;
		else
			spine = (leaf % t->rails) * t->sus + (leaf / t->rails + k) % t->sus;
		*lower = leaf;
		*upper = t->leaves + spine;
		return;
	}
	i -= t->leaf_links;
	*lower = t->leaves + i / TOPO_LEAF_UP;
	*upper = t->leaves + t->spines + (int32_t)(((int64_t)(i / TOPO_LEAF_UP) * TOPO_LEAF_UP + i % TOPO_LEAF_UP) % t->cores);
}

void topo_node_name(const struct topo *t, int32_t i, char *out, int outlen)
{
	unsigned width = 4;

	for (int32_t n = t->nodes; n > 9999 && width < 10; n /= 10)
		width++;
	snprintf(out, (size_t)outlen, "gpu%0*u", (int)width, (unsigned)(i + 1) % 1000000000u);
}
