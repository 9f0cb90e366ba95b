/*
 * inventory.c - the inventory of hosts, services, probes, trusted keys and
 * transport options (see inventory.h), one per application context
 * (app->inventory), freed by app_free.
 */
#include <stdio.h>
#include <string.h>
#include "inventory.h"
#include "hostkeys.h"
#include "probes.h"
#include "../nodeset.h"

static void inv_defaults(struct inventory *inv)
{
	static const char *const names[PROBE_COUNT] = {"nvidia-smi", "kmsg", "ib"};
	static const char *const cmds[PROBE_COUNT] = {PROBE_NVSMI_CMD, PROBE_KMSG_CMD, PROBE_IB_CMD};
	static const int fmts[PROBE_COUNT] = {FMT_NVSMI, FMT_XID, FMT_IB};
	static const int64_t silence_s[PROBE_COUNT] = {0, 0, 60};

	for (int i = 0; i < PROBE_COUNT; i++)
		inv->probes[i] = (struct inv_probe){names[i], xstrdup(cmds[i]), fmts[i], silence_s[i] * US_PER_SEC, NULL, 0};
	inv->keys = hostkeys_new();
	inv->handshakes = 48;
	inv->connect_timeout_us = 10 * US_PER_SEC;
	inv->silence_timeout_us = 15 * US_PER_SEC;
	inv->backoff_min_us = 1 * US_PER_SEC;
	inv->backoff_max_us = 60 * US_PER_SEC;
	inv->slurm_every_us = 5 * US_PER_SEC;
	inv->facility_every_us = 1 * US_PER_SEC;
	inv->cluster = xstrdup("myriad");
}

struct inventory *inventory_peek(struct myriad *app)
{
	return app->inventory;
}

struct inventory *inventory_of(struct myriad *app)
{
	if (!app->inventory) {
		app->inventory = xcalloc(1, sizeof *app->inventory);
		inv_defaults(app->inventory);
		app_started(app, PART_INVENTORY, inventory_free);
	}
	return app->inventory;
}

static void target_free(struct inv_target *t)
{
	free(t->name);
	free(t->hostname);
	free(t->user);
	free(t->identity);
	free(t->via);
}

static void inv_destroy(struct inventory *inv)
{
	for (int i = 0; i < inv->nhosts; i++)
		target_free(&inv->hosts[i].t);
	for (int i = 0; i < inv->nservices; i++) {
		free(inv->services[i].name);
		free(inv->services[i].command);
		free(inv->services[i].bin);
		free(inv->services[i].conf);
		target_free(&inv->services[i].t);
	}
	for (int i = 0; i < PROBE_COUNT; i++) {
		free(inv->probes[i].command);
		for (int k = 0; k < inv->probes[i].nrails; k++)
			free(inv->probes[i].rails[k]);
		free(inv->probes[i].rails);
	}
	for (int i = 0; i < inv->nknown_hosts; i++)
		free(inv->known_hosts[i]);
	free(inv->known_hosts);
	free(inv->known_hosts_out);
	free(inv->hosts);
	free(inv->services);
	free(inv->slots);
	free(inv->ssh_config);
	free(inv->log);
	free(inv->cluster);
	hostkeys_free(inv->keys);
	free(inv);
}

void inventory_free(struct myriad *app)
{
	if (app->inventory)
		inv_destroy(app->inventory);
	app->inventory = NULL;
	app_stopped(app, PART_INVENTORY);
}

/* ---- hosts ---- */

static int32_t *slot(const struct inventory *inv, const char *name)
{
	uint32_t mask = inv->slot_cap - 1, h = (uint32_t)hash_str(HASH_INIT, name);

	for (;; h++) {
		int32_t *s = &inv->slots[h & mask];

		if (*s < 0 || !strcmp(inv->hosts[*s].t.name, name))
			return s;
	}
}

int inventory_find(const struct inventory *inv, const char *name)
{
	return inv->slot_cap ? *slot(inv, name) : -1;
}

const struct inv_target *inventory_target(const struct inventory *inv, const char *name)
{
	int i = inventory_find(inv, name);

	if (i >= 0)
		return &inv->hosts[i].t;
	for (i = 0; i < inv->nservices; i++)
		if (!strcmp(inv->services[i].t.name, name))
			return &inv->services[i].t;
	return NULL;
}

static void rehash(struct inventory *inv)
{
	free(inv->slots);
	for (inv->slot_cap = 64; inv->slot_cap < (uint32_t)inv->hosts_cap * 2; inv->slot_cap *= 2)
		;
	inv->slots = xmalloc(sizeof *inv->slots * inv->slot_cap);
	memset(inv->slots, 0xff, sizeof *inv->slots * inv->slot_cap);
	for (int i = 0; i < inv->nhosts; i++)
		*slot(inv, inv->hosts[i].t.name) = i;
}

static void set_str(char **dst, const char *v)
{
	if (!v)
		return;
	free(*dst);
	*dst = *v ? xstrdup(v) : NULL;
}

static void apply_opts(struct inv_target *t, const struct inv_opts *o)
{
	set_str(&t->user, o->user);
	set_str(&t->hostname, o->hostname);
	set_str(&t->identity, o->identity);
	set_str(&t->via, o->via);
	if (o->port)
		t->port = o->port;
}

struct add_ctx {
	struct inventory *inv;
	const struct inv_opts *o;
};

static int add_one(void *ctx, const char *name)
{
	struct add_ctx *c = ctx;
	struct inventory *inv = c->inv;
	int i = inventory_find(inv, name);

	if (i < 0) {
		if (inv->nhosts == inv->hosts_cap) {
			inv->hosts_cap = inv->hosts_cap ? inv->hosts_cap * 2 : 64;
			inv->hosts = xrealloc(inv->hosts, sizeof *inv->hosts * (size_t)inv->hosts_cap);
			rehash(inv);
		}
		i = inv->nhosts++;
		memset(&inv->hosts[i], 0, sizeof inv->hosts[i]);
		inv->hosts[i].t.name = xstrdup(name);
		inv->hosts[i].gpus = 8;
		*slot(inv, name) = i;
	}
	apply_opts(&inv->hosts[i].t, c->o);
	if (c->o->gpus)
		inv->hosts[i].gpus = c->o->gpus;
	return 0;
}

static int check_opts(const struct inv_opts *o, char **err)
{
	if (o->port < 0 || o->port > 65535) {
		*err = xasprintf("port %d is out of range", o->port);
		return -1;
	}
	if (o->gpus < 0 || o->gpus > 32) {
		*err = xasprintf("-gpus %d is out of range (1-32)", o->gpus);
		return -1;
	}
	/* These reach libssh and, for -via, a ProxyCommand: keep them plain. */
	const char *fields[4] = {o->user, o->hostname, o->via, o->identity};

	for (int i = 0; i < 4; i++) {
		const char *s = fields[i];

		if (s && (s[0] == '-' || strpbrk(s, i == 3 ? "\n\r" : " \t\n\r'\"`$;&|<>()\\*?!{}"))) {
			*err = xasprintf("\"%s\" is not a plain user, host or file name", s);
			return -1;
		}
	}
	return 0;
}

int inventory_add_hosts(struct myriad *app, const char *nodeset, const struct inv_opts *o, char **err)
{
	struct nodeset *ns;
	struct add_ctx c;

	*err = NULL;
	if (check_opts(o, err) < 0)
		return -1;
	if (!(ns = nodeset_from(nodeset, err)))
		return -1;
	if (nodeset_count(ns) > 1000000) {
		nodeset_free(ns);
		*err = xstrdup("more than a million hosts");
		return -1;
	}
	c.inv = inventory_of(app);
	c.o = o;
	nodeset_foreach(ns, add_one, &c);
	nodeset_free(ns);
	return 0;
}

/* ---- services, probes, keys, options ---- */

static int check_path(const char *what, const char *p, char **err)
{
	if (p && (!*p || strpbrk(p, "\n\r") || p[0] != '/')) {
		*err = xasprintf("service slurm: %s wants an absolute path, not \"%s\"", what, p);
		return -1;
	}
	return 0;
}

const struct inv_service *inventory_service(const struct inventory *inv, const char *name)
{
	for (int i = 0; inv && i < inv->nservices; i++)
		if (!strcmp(inv->services[i].name, name))
			return &inv->services[i];
	return NULL;
}

int inventory_add_service(struct myriad *app, const char *name, const char *host, const struct inv_opts *o,
			  const struct svc_opts *so, char **err)
{
	const char *command = so->command;
	double every_s = so->every_s;
	struct inventory *inv;
	struct inv_service *s;
	int kind;

	*err = NULL;
	if (check_opts(o, err) < 0)
		return -1;
	if (!host || !*host || host[0] == '-' || strpbrk(host, " \t\n'\"`$;&|<>()\\")) {
		*err = xasprintf("service %s: -host needs a host name", name);
		return -1;
	}
	if (!strcmp(name, "slurm") && !command)
		kind = SVC_SLURM;
	else if (!strcmp(name, "facility") || command)
		kind = SVC_FACILITY;
	else {
		*err = xasprintf("service %s: unknown service (slurm, facility, or give -command)", name);
		return -1;
	}
	if (every_s < 0 || every_s > 86400) {
		*err = xstrdup("-every wants seconds between 0 and 86400");
		return -1;
	}
	if (check_path("-bin", so->bin, err) < 0 || check_path("-conf", so->conf, err) < 0)
		return -1;
	if (kind != SVC_SLURM && (so->bin || so->conf || so->sudo || so->signal)) {
		*err = xasprintf("service %s: -bin, -conf, -sudo and -signal are options of the slurm service", name);
		return -1;
	}
	inv = inventory_of(app);
	inv->services = xrealloc(inv->services, sizeof *inv->services * (size_t)(inv->nservices + 1));
	s = &inv->services[inv->nservices++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->kind = kind;
	s->t.name = xstrdup(host);
	apply_opts(&s->t, o);
	s->command = xstrdup(command ? command : SVC_FACILITY_CMD);
	s->every_us = every_s > 0 ? (int64_t)(every_s * US_PER_SEC)
		      : kind == SVC_SLURM ? inv->slurm_every_us : inv->facility_every_us;
	s->bin = so->bin ? xstrdup(so->bin) : NULL;
	s->conf = so->conf ? xstrdup(so->conf) : NULL;
	s->sudo = so->sudo;
	s->signal = so->signal;
	return 0;
}

int inventory_set_probe(struct myriad *app, const char *name, const char *command, char **err)
{
	struct inventory *inv = inventory_of(app);

	*err = NULL;
	for (int i = 0; i < PROBE_COUNT; i++)
		if (!strcmp(name, inv->probes[i].name) || (i == PROBE_NVSMI && !strcmp(name, "gpu"))) {
			set_str(&inv->probes[i].command, command ? command : "");
			if (!inv->probes[i].command)
				inv->probes[i].command = xstrdup("");
			return 0;
		}
	*err = xasprintf("probe %s: unknown probe (nvidia-smi, kmsg, ib)", name);
	return -1;
}

int inventory_set_rails(struct myriad *app, const char *list, char **err)
{
	struct inv_probe *p = &inventory_of(app)->probes[PROBE_IB];
	char *copy = xstrdup(list ? list : ""), *save = NULL, *w;
	char **v = NULL;
	int n = 0;

	*err = NULL;
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		int dup = 0;

		for (int k = 0; k < n; k++)
			dup |= !strcmp(v[k], w);
		if (dup || n == 32 || strlen(w) >= 40 || strspn(w, "abcdefghijklmnopqrstuvwxyz"
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") != strlen(w)) {
			*err = dup ? xasprintf("probe ib -rails: %s is named twice", w)
			     : n == 32 ? xstrdup("probe ib -rails: more than 32 rails")
				       : xasprintf("probe ib -rails: %s is not an HCA name (mlx5_0, mlx4_0/2)", w);
			break;
		}
		v = xrealloc(v, sizeof *v * (size_t)(n + 1));
		v[n++] = xstrdup(w);
	}
	free(copy);
	if (*err) {
		for (int k = 0; k < n; k++)
			free(v[k]);
		free(v);
		return -1;
	}
	for (int k = 0; k < p->nrails; k++)
		free(p->rails[k]);
	free(p->rails);
	p->rails = v;
	p->nrails = n;
	return 0;
}

int inventory_trust_key(struct myriad *app, const char *hosts, const char *type, const char *b64, char **err)
{
	return hostkeys_add(inventory_of(app)->keys, hosts, type, b64, err);
}

static int parse_seconds(const char *v, int64_t *us)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !(d >= 0) || d > 86400)
		return -1;
	*us = (int64_t)(d * US_PER_SEC);
	return 0;
}

static int parse_bool(const char *v)
{
	if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "off"))
		return 0;
	return -1;
}

int inventory_set(struct myriad *app, const char *opt, const char *v, char **err)
{
	struct inventory *inv = inventory_of(app);
	int64_t us = 0;
	int b;

	*err = NULL;
	if (!strcmp(opt, "accept-new") && (b = parse_bool(v)) >= 0) {
		inv->accept_new = b;
	} else if (!strcmp(opt, "config")) {
		set_str(&inv->ssh_config, v);
	} else if (!strcmp(opt, "known-hosts")) {
		if (inv->nknown_hosts < 0) {
			*err = xstrdup("ssh -known-hosts: the host keys are already loaded");
			return -1;
		}
		if (!strcmp(v, "none")) {
			inv->known_hosts_none = 1;
		} else {
			if (!inv->known_hosts_out)
				inv->known_hosts_out = xstrdup(v);
			inv->known_hosts = xrealloc(inv->known_hosts, sizeof(char *) * (size_t)(inv->nknown_hosts + 1));
			inv->known_hosts[inv->nknown_hosts++] = xstrdup(v);
		}
	} else if (!strcmp(opt, "log")) {
		set_str(&inv->log, v);
	} else if (!strcmp(opt, "cluster") && *v) {
		set_str(&inv->cluster, v);
	} else if (!strcmp(opt, "handshakes") && (b = atoi(v)) >= 1 && b <= 4096) {
		inv->handshakes = b;
	} else if (!strcmp(opt, "connect-timeout") && !parse_seconds(v, &us) && us > 0) {
		inv->connect_timeout_us = us;
	} else if (!strcmp(opt, "silence-timeout") && !parse_seconds(v, &us)) {
		inv->silence_timeout_us = us;
	} else if (!strcmp(opt, "backoff-max") && !parse_seconds(v, &us) && us >= US_PER_SEC) {
		inv->backoff_max_us = us;
	} else {
		*err = xasprintf("ssh: bad option or value: -%s %s (options: -accept-new yes|no, -config FILE|none, "
				 "-known-hosts FILE|none, -log FILE, -cluster NAME, -handshakes N, "
				 "-connect-timeout S, -silence-timeout S, -backoff-max S)", opt, v);
		return -1;
	}
	return 0;
}

void inventory_load_keys(struct inventory *inv)
{
	static const char *const defaults[] = {"~/.ssh/known_hosts", "/etc/ssh/ssh_known_hosts"};
	char *err = NULL;

	if (inv->nknown_hosts < 0)
		return;   /* loaded */
	if (!inv->known_hosts_none && inv->nknown_hosts == 0 && getenv("HOME"))
		inv->known_hosts_out = xasprintf("%s/.ssh/known_hosts", getenv("HOME"));
	if (!inv->known_hosts_none && inv->nknown_hosts == 0)
		for (unsigned i = 0; i < ARRAY_LEN(defaults); i++) {
			char *p = defaults[i][0] == '~' && getenv("HOME")
				? xasprintf("%s%s", getenv("HOME"), defaults[i] + 1) : xstrdup(defaults[i]);

			hostkeys_load_file(inv->keys, p, &err);   /* a missing default file is fine */
			free(err);
			err = NULL;
			free(p);
		}
	for (int i = 0; i < inv->nknown_hosts; i++) {
		if (hostkeys_load_file(inv->keys, inv->known_hosts[i], &err) < 0 || err)
			fprintf(stderr, "myriad: known hosts: %s\n", err);
		free(err);
		err = NULL;
	}
	for (int i = 0; i < inv->nknown_hosts; i++)
		free(inv->known_hosts[i]);
	free(inv->known_hosts);
	inv->known_hosts = NULL;
	inv->nknown_hosts = -1;
}

char *inv_expand(const char *s, const char *name)
{
	struct sbuf b = {0};

	if (!s)
		return NULL;
	for (; *s; s++) {
		if (s[0] == '%' && s[1] == 'n') {
			sbuf_adds(&b, name);
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			sbuf_addc(&b, '%');
			s++;
		} else {
			sbuf_addc(&b, *s);
		}
	}
	return b.s ? b.s : xstrdup("");
}
