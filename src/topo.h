/*
 * topo.h - the fabric of a DGX SuperPOD-style cluster, derived from its size.
 *
 * Scalable units (SU) of 32 nodes x 8 GPUs, one rail per GPU, one leaf switch
 * per rail per SU. Up to 8 SUs: two tiers, spines = 4 x SU, every leaf linked to
 * every spine. From 9 SUs: three tiers, spines = leaves, cores = leaves / 2.
 * (myriad-design(7), FACTS: Topology; the 40-SU case is an extrapolation.)
 *
 * Switches are numbered leaves first, then spines, then cores. Links are
 * numbered node ports first (node * rails + rail, to the leaf of that rail and
 * SU), then leaf uplinks, then spine uplinks.
 */
#ifndef MYRIAD_TOPO_H
#define MYRIAD_TOPO_H

#include <stdint.h>

#define TOPO_LEAF_UP 32   /* uplinks per leaf (and per spine, in 3 tiers) */

enum switch_tier { TIER_LEAF, TIER_SPINE, TIER_CORE };

struct topo {
	int32_t sus, nodes_per_su, gpus_per_node, rails;
	int32_t nodes, gpus;
	int32_t tiers;                  /* 2 or 3 */
	int32_t leaves, spines, cores;
	int32_t node_links, leaf_links, spine_links, links;
};

/* Fills t for a cluster of `nodes` nodes. Returns 0, or -1 if out of range. */
int topo_build(struct topo *t, int32_t nodes, int32_t nodes_per_su, int32_t gpus_per_node);
int32_t topo_switches(const struct topo *t);
int32_t topo_leaf(const struct topo *t, int32_t su, int32_t rail);
/* Tier and position of a switch, and its name ("leaf-s03-r5", "spine-017", "core-004"). */
enum switch_tier topo_switch_tier(const struct topo *t, int32_t sw);
void topo_switch_name(const struct topo *t, int32_t sw, char *out, int outlen);
/* Endpoints of a switch-to-switch link (link >= node_links): lower and upper switch. */
void topo_link_ends(const struct topo *t, int32_t link, int32_t *lower, int32_t *upper);
/* Node name for index i: "gpu0001" ... (at least four digits). */
void topo_node_name(const struct topo *t, int32_t i, char *out, int outlen);

#endif
