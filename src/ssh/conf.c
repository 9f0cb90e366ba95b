/*
 * conf.c - the configuration commands of the inventory (host, service,
 * probe, hostkey, ssh) from their words, as the Tcl configuration calls
 * them (inventory_command), and loading a configuration file: through the
 * Tcl interpreter, its one reader.
 */
#include <stdio.h>
#include <string.h>
#include "inventory.h"
#include "../tcl/tcl.h"

static int want(int i, int argc, char **argv, char **err)
{
	if (i + 1 < argc)
		return 1;
	*err = xasprintf("%s: %s needs a value", argv[0], argv[i]);
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* -user -port -identity -via -hostname -gpus: 1 if argv[i] was one (i advanced), 0 if not, -1 error. */
static int target_opt(int *i, int argc, char **argv, struct inv_opts *o, char **err)
{
	const char *a = argv[*i];
	const char **dst = !strcmp(a, "-user") ? &o->user : !strcmp(a, "-identity") ? &o->identity
			   : !strcmp(a, "-via") ? &o->via : !strcmp(a, "-hostname") ? &o->hostname : NULL;

	if (!dst && strcmp(a, "-port") && strcmp(a, "-gpus"))
		return 0;
	if (!want(*i, argc, argv, err))
		return -1;
	const char *v = argv[++*i];

	if (dst) {
		*dst = v;
	} else if (parse_int(v, !strcmp(a, "-port") ? 1 : 1, !strcmp(a, "-port") ? 65535 : 32,
			     !strcmp(a, "-port") ? &o->port : &o->gpus) < 0) {
		*err = xasprintf("%s: bad %s \"%s\"", argv[0], a, v);
		return -1;
	}
	return 1;
}

static int cmd_host(struct myriad *app, int argc, char **argv, char **err)
{
	struct inv_opts o = {0};

	if (argc < 2 || argv[1][0] == '-') {
		*err = xstrdup("usage: host NODESET ?-user U? ?-port P? ?-identity FILE? ?-via GATEWAY? "
			       "?-hostname ADDR? ?-gpus N?");
		return -1;
	}
	for (int i = 2; i < argc; i++) {
		int r = target_opt(&i, argc, argv, &o, err);

		if (r < 0)
			return -1;
		if (r == 0) {
			*err = xasprintf("host: unknown option %s", argv[i]);
			return -1;
		}
	}
	return inventory_add_hosts(app, argv[1], &o, err);
}

/* The options of `service` that are not the target's: 1 taken, -1 error. */
static int service_opt(int *i, int argc, char **argv, const char **host, struct svc_opts *so, char **err)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-sudo")) {
		so->sudo = 1;
		return 1;
	}
	if (!want(*i, argc, argv, err))
		return -1;
	const char *v = argv[++*i];

	if (!strcmp(a, "-host"))
		*host = v;
	else if (!strcmp(a, "-command"))
		so->command = v;
	else if (!strcmp(a, "-every"))
		so->every_s = strtod(v, NULL);
	else if (!strcmp(a, "-bin"))
		so->bin = v;
	else if (!strcmp(a, "-conf"))
		so->conf = v;
	else if (!strcmp(a, "-signal") && (so->signal = sig_parse(v)) > 0)
		;
	else {
		*err = !strcmp(a, "-signal") ? xasprintf("service: bad -signal \"%s\" (USR1, USR2, TERM, ... or 1..64)", v)
					    : xasprintf("service: unknown option %s", a);
		return -1;
	}
	return 1;
}

static int cmd_service(struct myriad *app, int argc, char **argv, char **err)
{
	struct inv_opts o = {0};
	struct svc_opts so = {0};
	const char *host = NULL;

	if (argc < 2 || argv[1][0] == '-') {
		*err = xstrdup("usage: service NAME -host H ?-user U? ?-port P? ?-identity FILE? ?-via GW? "
			       "?-hostname ADDR? ?-command CMD? ?-every SECONDS? ?-bin DIR? ?-conf FILE? ?-sudo? "
			       "?-signal SIG?");
		return -1;
	}
	for (int i = 2; i < argc; i++) {
		int r = target_opt(&i, argc, argv, &o, err);

		if (r == 0)
			r = service_opt(&i, argc, argv, &host, &so, err);
		if (r < 0)
			return -1;
	}
	return inventory_add_service(app, argv[1], host, &o, &so, err);
}

/* probe NAME ?-command CMD? ?-rails LIST? (-rails: ib only) */
static int cmd_probe(struct myriad *app, int argc, char **argv, char **err)
{
	int ok = argc >= 4 && argc % 2 == 0;

	for (int i = 2; ok && i < argc; i += 2)
		ok = !strcmp(argv[i], "-command") || (!strcmp(argv[i], "-rails") && !strcmp(argv[1], "ib"));
	if (!ok) {
		*err = xstrdup("usage: probe NAME ?-command CMD? ?-rails LIST?   (NAME: nvidia-smi, kmsg, ib; "
			       "{} disables it; -rails: ib only, HCA names in rail order)");
		return -1;
	}
	for (int i = 2; i < argc; i += 2)
		if (!strcmp(argv[i], "-command") ? inventory_set_probe(app, argv[1], argv[i + 1], err) < 0
						 : inventory_set_rails(app, argv[i + 1], err) < 0)
			return -1;
	return 0;
}

static int cmd_hostkey(struct myriad *app, int argc, char **argv, char **err)
{
	if (argc != 4) {
		*err = xstrdup("usage: hostkey HOSTS TYPE BASE64   (as a known_hosts line)");
		return -1;
	}
	return inventory_trust_key(app, argv[1], argv[2], argv[3], err);
}

static int cmd_ssh(struct myriad *app, int argc, char **argv, char **err)
{
	for (int i = 1; i < argc; i += 2) {
		if (argv[i][0] != '-' || !want(i, argc, argv, err)) {
			if (!*err)
				*err = xasprintf("ssh: expected -option value, got \"%s\"", argv[i]);
			return -1;
		}
		if (inventory_set(app, argv[i] + 1, argv[i + 1], err) < 0)
			return -1;
	}
	return 0;
}

int inventory_command(struct myriad *app, int argc, char **argv, char **err)
{
	static const struct {
		const char *name;
		int (*fn)(struct myriad *, int, char **, char **);
	} cmds[] = {
		{"host", cmd_host}, {"service", cmd_service}, {"probe", cmd_probe},
		{"hostkey", cmd_hostkey}, {"ssh", cmd_ssh},
	};

	*err = NULL;
	for (unsigned i = 0; argc > 0 && i < ARRAY_LEN(cmds); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(app, argc, argv, err);
	*err = xasprintf("%s: not an inventory command", argc > 0 ? argv[0] : "");
	return -1;
}

/* The configuration is Tcl and only Tcl reads it: its host, service,
 * probe, hostkey and ssh commands come back here as inventory_command(). */
int inventory_load_config(struct myriad *app, const char *path, char **err)
{
	*err = NULL;
	if (!app->tcl && tcl_init(app, err) < 0)
		return -1;
	return tcl_load_config(app, path, err);
}
