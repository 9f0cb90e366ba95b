/*
 * model_groups.c - nodesets over the model: the @groups a nodeset may name
 * (@all @su:N @rack:N @leaf:SU.RAIL @job:ID @state:S) and node states by
 * name ("mixed+drain", "drained", "up"). The Tcl commands, hooks and the
 * console's filter all read nodesets through these, so a set means the same
 * nodes wherever it is typed.
 *
 * Numbers people type count SUs and racks from 1 (as switch names such as
 * leaf-s03-r5 do) and rails from 0.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "model.h"
#include "nodeset.h"

static const struct { uint32_t flag; const char *name; } node_flags[] = {
	{NODE_F_DRAIN, "drain"}, {NODE_F_NOT_RESPONDING, "not_responding"}, {NODE_F_MAINT, "maint"},
	{NODE_F_REBOOT, "reboot"}, {NODE_F_COMPLETING, "completing"}, {NODE_F_FAIL, "fail"},
};

char *model_state_name(const struct node *n)
{
	struct sbuf b = {0};

	sbuf_adds(&b, node_base_name(n->base));
	for (unsigned i = 0; i < ARRAY_LEN(node_flags); i++)
		if (n->flags & node_flags[i].flag)
			sbuf_printf(&b, "+%s", node_flags[i].name);
	return b.s;
}

static int busy(const struct node *n)
{
	return n->base == NODE_ALLOC || n->base == NODE_MIXED;
}

int model_state_match(const struct node *n, const char *s)
{
	int b = node_base_from_name(s);

	if (b >= 0)
		return n->base == b;
	if (!strcasecmp(s, "drained"))
		return (n->flags & NODE_F_DRAIN) && !busy(n);
	if (!strcasecmp(s, "draining"))
		return (n->flags & NODE_F_DRAIN) && busy(n);
	if (!strcasecmp(s, "busy"))
		return busy(n);
	if (!strcasecmp(s, "up"))
		return (n->base == NODE_IDLE || busy(n)) && !(n->flags & (NODE_F_DRAIN | NODE_F_NOT_RESPONDING | NODE_F_FAIL));
	if (!strcasecmp(s, "noresp"))
		return (n->flags & NODE_F_NOT_RESPONDING) != 0;
	for (unsigned i = 0; i < ARRAY_LEN(node_flags); i++)
		if (!strcasecmp(s, node_flags[i].name))
			return (n->flags & node_flags[i].flag) != 0;
	return -1;
}

typedef int (*node_pred)(const struct model *m, int32_t i, const void *arg);

static void add_if(const struct model *m, struct nodeset *out, node_pred pred, const void *arg)
{
	for (int32_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].name[0] && pred(m, i, arg))
			nodeset_add(out, m->nodes[i].name);
}

static int in_su(const struct model *m, int32_t i, const void *arg)
{
	return m->nodes[i].su == *(const int32_t *)arg;
}

static int in_rack(const struct model *m, int32_t i, const void *arg)
{
	return m->nodes[i].rack == *(const int32_t *)arg;
}

static int any_node(const struct model *m, int32_t i, const void *arg)
{
	(void)m;
	(void)i;
	(void)arg;
	return 1;
}

static int in_state(const struct model *m, int32_t i, const void *arg)
{
	return model_state_match(&m->nodes[i], arg) == 1;
}

static int add_job_nodes(const struct model *m, struct nodeset *out, uint32_t id)
{
	const struct job *j = model_job(m, id);

	if (!j)
		return -1;
	for (int32_t k = 0; k < j->nnodes; k++)
		nodeset_add(out, m->nodes[j->node_idx[k]].name);
	return 0;
}

int model_group(void *ctx, const char *group, struct nodeset *out, char **err)
{
	const struct model *m = ctx;
	int32_t a, b;
	char extra;

	if (!strcmp(group, "all")) {
		add_if(m, out, any_node, NULL);
		return 0;
	}
	if (sscanf(group, "su:%d%c", &a, &extra) == 1 && a >= 1) {
		a--;
		add_if(m, out, in_su, &a);
		return 0;
	}
	if (sscanf(group, "rack:%d%c", &a, &extra) == 1 && a >= 1) {
		a--;
		add_if(m, out, in_rack, &a);
		return 0;
	}
	if (sscanf(group, "leaf:%d.%d%c", &a, &b, &extra) == 2 && a >= 1 && b >= 0 && b < m->topo.rails) {
		a--;   /* every node of the SU has one port on that rail's leaf */
		add_if(m, out, in_su, &a);
		return 0;
	}
	if (sscanf(group, "job:%d%c", &a, &extra) == 1 && a > 0) {
		if (add_job_nodes(m, out, (uint32_t)a) < 0) {
			*err = xasprintf("no job %d", a);
			return -1;
		}
		return 0;
	}
	if (!strncmp(group, "state:", 6) && model_state_match(&(struct node){0}, group + 6) >= 0) {
		add_if(m, out, in_state, group + 6);
		return 0;
	}
	*err = xasprintf("unknown group @%s (groups: @all @su:N @rack:N @leaf:SU.RAIL @job:ID @state:S)", group);
	return -1;
}
