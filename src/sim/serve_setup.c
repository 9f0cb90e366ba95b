/*
 * serve_setup.c - starting `myriad-sim serve`: the simulator, the host and
 * client keys, the listening socket (loopback only, a deep backlog), the
 * configuration file for myriad, the loop (and --control and --exporter on
 * it), and the orderly stop.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "serve_int.h"
#include "../fdlimit.h"

/* Loads the key at path, or makes one and saves it there. NULL path: a new key. */
static ssh_key key_at(const char *path)
{
	ssh_key key = NULL;

	if (path && access(path, R_OK) == 0) {
		if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL, &key) != SSH_OK)
			fprintf(stderr, "myriad-sim: %s: not a private key\n", path);
		return key;
	}
	if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
		return NULL;
	if (path) {
		if (ssh_pki_export_privkey_file(key, NULL, NULL, NULL, path) != SSH_OK) {
			fprintf(stderr, "myriad-sim: cannot write %s\n", path);
			ssh_key_free(key);
			return NULL;
		}
		chmod(path, 0600);
	}
	return key;
}

static char *pub_line(ssh_key key)
{
	char *b64 = NULL, *line;

	if (ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK)
		return NULL;
	line = xasprintf("%s %s", ssh_key_type_to_char(ssh_key_type(key)), b64);
	ssh_string_free_char(b64);
	return line;
}

static int listen_on(struct srv *srv, ssh_key hostkey, int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int zero = 0;

	srv->bind = ssh_bind_new();
	if (!srv->bind)
		return -1;
	ssh_bind_options_set(srv->bind, SSH_BIND_OPTIONS_PROCESS_CONFIG, &zero);
	ssh_bind_options_set(srv->bind, SSH_BIND_OPTIONS_BINDADDR, srv->o->addr);
	ssh_bind_options_set(srv->bind, SSH_BIND_OPTIONS_BINDPORT, port);
	ssh_bind_options_set(srv->bind, SSH_BIND_OPTIONS_IMPORT_KEY, hostkey);   /* the bind owns it now */
	if (ssh_bind_listen(srv->bind) != SSH_OK) {
		fprintf(stderr, "myriad-sim: listen on %s:%d: %s\n", srv->o->addr, *port, ssh_get_error(srv->bind));
		return -1;
	}
	srv->bind_fd = ssh_bind_get_fd(srv->bind);
	listen(srv->bind_fd, 4096);   /* ssh_bind_listen's backlog of 10 overflows in bursts */
	fcntl(srv->bind_fd, F_SETFL, fcntl(srv->bind_fd, F_GETFL) | O_NONBLOCK);
	if (getsockname(srv->bind_fd, (struct sockaddr *)&sa, &len) == 0)
		*port = ntohs(sa.sin_port);
	return 0;
}

static int write_config(struct srv *srv, int port, const char *hostkey, const char *keyfile)
{
	const char *path = srv->o->config;
	char *tmp = xasprintf("%s.tmp", path), first[32], last[32];
	FILE *f = fopen(tmp, "w");
	int ok;

	if (!f) {
		fprintf(stderr, "myriad-sim: cannot write %s\n", tmp);
		free(tmp);
		return -1;
	}
	sim_node_name(srv->sim, 0, first, sizeof first);
	sim_node_name(srv->sim, srv->nodes - 1, last, sizeof last);
	fprintf(f, "# myriad configuration for the simulated fleet of myriad-sim serve (pid %d),\n"
		   "# --sim %s. Every node is %s:%d; the login name selects the node.\n"
		   "ssh -config none -known-hosts none -cluster sim-%d\n"
		   "hostkey {[%s]:%d} %s\n",
		(int)getpid(), srv->o->spec && *srv->o->spec ? srv->o->spec : "(the default)", srv->o->addr, port, sim_topo(srv->sim)->gpus,
		srv->o->addr, port, hostkey);
	fprintf(f, "host {gpu[%s-%s]} -hostname %s -port %d -user %%n -identity {%s}\n", first + 3, last + 3,
		srv->o->addr, port, keyfile);
	fprintf(f, "service slurm -host head01 -hostname %s -port %d -user head01 -identity {%s}\n", srv->o->addr,
		port, keyfile);
	fprintf(f, "service facility -host bms01 -hostname %s -port %d -user bms01 -identity {%s} "
		   "-command {bmsctl power --json}\n", srv->o->addr, port, keyfile);
	if (srv->exp)   /* a comment for myriad; tests read the URL from here */
		fprintf(f, "# dcgm-exporter http://%s:%d/metrics\n", srv->o->exporter, srv->exp_port);
	ok = fclose(f) == 0 && rename(tmp, path) == 0;
	if (!ok)
		fprintf(stderr, "myriad-sim: cannot write %s\n", path);
	free(tmp);
	return ok ? 0 : -1;
}

static void on_signal(void *ctx, int sig)
{
	(void)sig;
	loop_stop(((struct srv *)ctx)->loop, 0);
}

static int keys_and_config(struct srv *srv, int *port)
{
	char *keyfile = srv->o->config ? xasprintf("%s.key", srv->o->config) : NULL, *hostline = NULL;
	ssh_key host = key_at(srv->o->hostkey), client = key_at(keyfile);
	int rc = -1;

	if (host && client && (hostline = pub_line(host)) &&
	    ssh_pki_export_privkey_to_pubkey(client, &srv->client) == SSH_OK && listen_on(srv, host, port) == 0) {
		host = NULL;   /* owned by the bind */
		rc = srv->o->config ? write_config(srv, *port, hostline, keyfile) : 0;
	}
	if (host && !srv->bind)
		ssh_key_free(host);
	ssh_key_free(client);
	free(hostline);
	free(keyfile);
	return rc;
}

static void srv_free(struct srv *srv)
{
	if (srv->o->control)
		ctl_free(srv);
	exp_free(srv);
	srv_free_sessions(srv);
	if (srv->bind)
		ssh_bind_free(srv->bind);
	ssh_key_free(srv->client);
	for (int32_t i = 0; i < srv->nodes; i++)
		sbuf_free(&srv->last_nvsmi[i]);
	for (int k = 0; k < 3; k++)
		sbuf_free(&srv->docs[k]);
	free(srv->last_nvsmi);
	free(srv->subs);
	sim_free(srv->sim);
	loop_free(srv->loop);
}

/* A session per node (the console's), head01 and bms01, and a fan-out of
 * 256 sessions alongside; refused before listening when there is no room. */
static int room_for_sessions(int nodes)
{
	char *why = NULL;

	if (fd_limit_room((long)nodes + 2 + 256, &why) == 0)
		return 0;
	fprintf(stderr, "myriad-sim: serve: %d nodes: %s\n", nodes, why);
	free(why);
	return -1;
}

int serve_run(const struct serve_opts *o)
{
	struct srv srv;
	struct sim_spec spec;
	char *err = NULL;
	int port = o->port;
	double speed = o->speed > 0 ? o->speed : 1;

	memset(&srv, 0, sizeof srv);
	srv.o = o;
	srv.ctl.in = srv.ctl.out = -1;
	sim_spec_default(&spec);
	if (o->spec && sim_spec_parse(&spec, o->spec, &err) < 0) {
		fprintf(stderr, "myriad-sim: --sim: %s\n", err);
		free(err);
		return 1;
	}
	if (!(srv.sim = sim_new(&spec))) {
		fprintf(stderr, "myriad-sim: --sim: cannot build that cluster\n");
		return 1;
	}
	srv.nodes = sim_topo(srv.sim)->nodes;
	if (room_for_sessions(srv.nodes) < 0) {
		sim_free(srv.sim);
		return 1;
	}
	srv.subs = xcalloc((size_t)srv.nodes * 3, sizeof *srv.subs);
	srv.last_nvsmi = xcalloc((size_t)srv.nodes, sizeof *srv.last_nvsmi);
	srv.loop = loop_new();
	struct sim_sink sink = {&srv, srv_sim_text};

	srv.exp_port = o->exporter_port;
	if (o->exporter && exp_start(&srv, o->exporter, &srv.exp_port) < 0) {
		srv_free(&srv);
		return 2;
	}
	for (int k = SIM_SINFO; k <= SIM_FACILITY; k++)
		sim_print_service(srv.sim, k, &sink);
	srv_on_step(&srv, 0);   /* a first second of telemetry, so nvidia-smi answers at once */
	if (keys_and_config(&srv, &port) < 0) {
		srv_free(&srv);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	loop_signal(srv.loop, SIGINT, on_signal, &srv);
	loop_signal(srv.loop, SIGTERM, on_signal, &srv);
	loop_watch(srv.loop, srv.bind_fd, LOOP_READ, srv_on_bind, &srv);
	loop_timer(srv.loop, (int64_t)(1000 / speed), (int64_t)(1000 / speed), srv_on_step, &srv);
	loop_timer(srv.loop, 100, 100, srv_on_housekeeping, &srv);
	if (o->control)
		ctl_start(&srv);
	fprintf(stderr, "myriad-sim: serving %d nodes, head01 and bms01 on %s:%d%s%s\n", srv.nodes, o->addr, port,
		o->config ? "; configuration in " : "", o->config ? o->config : "");
	if (srv.exp)
		fprintf(stderr, "myriad-sim: dcgm-exporter at http://%s:%d/metrics\n", o->exporter, srv.exp_port);
	loop_run(srv.loop);
	fprintf(stderr, "myriad-sim: stopping (%lld connections, %lld commands, %lld bytes dropped)\n",
		(long long)srv.accepted, (long long)srv.commands, (long long)srv.dropped);
	srv_free(&srv);
	return 0;
}
