/*
 * inventory.h - what myriad reaches over SSH: nodes, services, the probe
 * commands they run, the host keys to trust and the transport's options.
 *
 * The configuration (Tcl: myriad-tcl(7), CONFIGURATION) fills it through these calls;
 * the ssh source, `myriad fanout` and the Tcl `fanout` command read it. It
 * belongs to one application context (app->inventory) and app_free frees it.
 *
 * Tcl wiring: each of the configuration commands
 *     host NODESET ?-user U? ?-port P? ?-identity FILE? ?-via GATEWAY?
 *                  ?-hostname ADDR? ?-gpus N?
 *     service NAME -host H ?-user U? ?-port P? ?-identity FILE? ?-via GW?
 *                  ?-hostname ADDR? ?-command CMD? ?-every SECONDS?
 *                  (slurm:) ?-bin DIR? ?-conf SLURM_CONF? ?-sudo? ?-signal SIG?
 *     probe NAME -command CMD          (NAME: nvidia-smi, kmsg, ib)
 *     hostkey HOSTS TYPE BASE64        (a known_hosts line, trusted in memory)
 *     ssh ?-accept-new yes|no? ?-config FILE|none? ?-known-hosts FILE|none?
 *         ?-log FILE? ?-cluster NAME? ?-connect-timeout S? ?-silence-timeout S?
 *         ?-handshakes N? ?-backoff-max S?
 * is one call of inventory_command(app, argc, argv, &err) with the words of
 * the command (argv[0] is the command name). The typed calls below are the
 * same thing for C callers.
 *
 * In -user and -hostname, "%n" stands for the node's name ("-user %n" logs in
 * to myriad-sim serve as the simulated node).
 */
#ifndef MYRIAD_SSH_INVENTORY_H
#define MYRIAD_SSH_INVENTORY_H

#include <stdint.h>
#include "../myriad.h"

/* How to reach one host. Strings are owned by the inventory. */
struct inv_target {
	char *name;        /* the name in the model and in output ("gpu0042", "slurm") */
	char *hostname;    /* where to connect; NULL: the name, mapped by ssh_config */
	char *user;        /* NULL: ssh_config, else the local user */
	char *identity;    /* private key file; NULL: agent and the default keys */
	char *via;         /* gateway host (ProxyJump); NULL: direct */
	int port;          /* 0: ssh_config, else 22 */
};

struct inv_host {
	struct inv_target t;
	int gpus;          /* GPUs per node, default 8 */
};

enum svc_kind { SVC_SLURM, SVC_FACILITY };

struct inv_service {
	char *name;        /* "slurm", "facility" */
	struct inv_target t;
	enum svc_kind kind;
	char *command;     /* facility: the meter command; slurm: unused */
	int64_t every_us;  /* poll period */
	/* slurm: how its commands are run on the head node */
	char *bin;         /* directory of scontrol, sinfo ...; NULL: the login's PATH */
	char *conf;        /* SLURM_CONF for every command; NULL: the head node's default */
	int sudo;          /* run them through `sudo -n` */
	int signal;        /* the checkpoint signal (job checkpoint without -signal), 0: USR1 */
};

/* The options of `service` beyond the target's. */
struct svc_opts {
	const char *command;   /* -command: a facility-meter style JSON command */
	double every_s;        /* -every, 0: default */
	const char *bin, *conf;
	int sudo, signal;
};

/* The streaming probes every node runs (myriad-design(7), SOURCES AND FORMATS). */
enum probe_id { PROBE_NVSMI, PROBE_KMSG, PROBE_IB, PROBE_COUNT };

struct inv_probe {
	const char *name;  /* "nvidia-smi", "kmsg", "ib" */
	char *command;     /* "" disables the probe */
	int fmt;           /* enum fmt */
	int64_t silence_us;   /* restart when silent this long; 0 = never */
	char **rails;      /* ib: site mapping, device names in rail order (probe ib -rails) */
	int nrails;
};

struct hostkeys;

struct inventory {
	struct inv_host *hosts;
	int nhosts, hosts_cap;
	struct inv_service *services;
	int nservices;
	struct inv_probe probes[PROBE_COUNT];
	struct hostkeys *keys;      /* trusted host keys, in memory */
	char **known_hosts;         /* files to load once (NULL entries end) */
	int nknown_hosts, known_hosts_none;
	char *known_hosts_out;      /* where accept-new records keys; NULL: memory only */
	char *ssh_config;           /* NULL: ~/.ssh/config; "none": do not read */
	char *log;                  /* transport log file, NULL: none */
	char *cluster;              /* cluster name for the model */
	int accept_new;             /* trust an unknown host key on first use */
	int handshakes;             /* connections being set up at once */
	int64_t connect_timeout_us, silence_timeout_us, backoff_min_us, backoff_max_us;
	int64_t slurm_every_us, facility_every_us;
	/* name -> host index */
	int32_t *slots;
	uint32_t slot_cap;
};

/* The application's inventory, created empty on first use. */
struct inventory *inventory_of(struct myriad *app);
/* NULL if the configuration defined none. */
struct inventory *inventory_peek(struct myriad *app);
void inventory_free(struct myriad *app);

struct inv_opts {
	const char *user, *hostname, *identity, *via;
	int port;          /* 0: unset */
	int gpus;          /* 0: unset (8) */
};

/* Adds (or updates) every node of nodeset. 0, or -1 with *err (malloc'd). */
int inventory_add_hosts(struct myriad *app, const char *nodeset, const struct inv_opts *o, char **err);
/* A service on host: kind from the name ("slurm", "facility") unless
 * so->command is given (then a facility-meter style JSON command). */
int inventory_add_service(struct myriad *app, const char *name, const char *host, const struct inv_opts *o,
			  const struct svc_opts *so, char **err);
/* The configured service called name, NULL if none. */
const struct inv_service *inventory_service(const struct inventory *inv, const char *name);
/* Overrides a probe's command ("" disables it). */
int inventory_set_probe(struct myriad *app, const char *name, const char *command, char **err);
/* probe ib -rails LIST: the site's HCA names in rail order ("mlx5_0 mlx5_1
 * mlx5_4 ..."; a second port as "mlx4_0/2"); "" goes back to the order of
 * the InfiniBand devices. Names must be distinct, at most 32. */
int inventory_set_rails(struct myriad *app, const char *list, char **err);
/* Trusts a host key: hosts as in known_hosts ("gpu0001,[10.0.0.1]:2222"). */
int inventory_trust_key(struct myriad *app, const char *hosts, const char *type, const char *base64, char **err);
/* A transport option (the `ssh` command's options without the dash). */
int inventory_set(struct myriad *app, const char *option, const char *value, char **err);
/* One configuration command, argv[0] its name: host, service, probe, hostkey, ssh. */
int inventory_command(struct myriad *app, int argc, char **argv, char **err);

/* Loads a configuration file through the Tcl interpreter (started if need
 * be), its one reader. 0, or -1 with *err (FILE:LINE: message). */
int inventory_load_config(struct myriad *app, const char *path, char **err);

/* Index of a host by name, -1 if not in the inventory. */
int inventory_find(const struct inventory *inv, const char *name);
/* How to reach name: a host's or a service host's target; NULL if neither. */
const struct inv_target *inventory_target(const struct inventory *inv, const char *name);
/* Loads the known_hosts files once (the first call); later calls do nothing. */
void inventory_load_keys(struct inventory *inv);

/* Appends to b the value of a target field with %n replaced by name. */
char *inv_expand(const char *s, const char *name);

#endif
