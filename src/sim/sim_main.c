/*
 * sim_main.c - the myriad-sim command (myriad(1)):
 *
 *   myriad-sim serve --sim SPEC --listen ADDR:PORT --write-config FILE
 *                    [--hostkey FILE] [--speed X] [--control -]
 *                    [--exporter ADDR:PORT]
 *
 * serves the simulated fleet over SSH (serve.h). ADDR must be a loopback
 * address (127.0.0.0/8); PORT 0 picks a free port, printed on stderr and
 * written into FILE. FILE is written once the server listens, so a script
 * may wait for it to appear. --control - reads fault injections from
 * standard input and answers each on standard output (serve_control.c).
 * --exporter serves the fleet as dcgm-exporter over HTTP on another loopback
 * port (serve_exporter.c); PORT 0 picks one, printed and written into FILE.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include "serve.h"
#include "../util.h"

static void usage(FILE *f)
{
	fputs("usage: myriad-sim serve --sim SPEC --listen 127.0.0.1:PORT --write-config FILE\n"
	      "                        [--hostkey FILE] [--speed X] [--control -]\n"
	      "                        [--exporter 127.0.0.1:PORT]\n"
	      "  Serves every node of the simulated cluster over SSH from one process; the login\n"
	      "  name selects the node (gpu0042@127.0.0.1), head01 is the Slurm head node (sinfo,\n"
	      "  squeue, scontrol update/requeue, scancel), bms01 the facility meter. FILE is a\n"
	      "  myriad configuration (myriad -c FILE); the client key it names is written to\n"
	      "  FILE.key. PORT 0 picks a free port.\n"
	      "  --control -: one command a line on stdin, one answer line each on stdout:\n"
	      "    xid NODE:GPU CODE          -> ok xid NODE:GPU CODE WALL_US CHANNELS\n"
	      "    fault NODE ?GPU? KIND      -> ok fault NODE:GPU KIND WALL_US CHANNELS\n"
	      "    time                       -> ok WALL_US          (or: error WHY)\n"
	      "  --exporter: dcgm-exporter's /metrics (Prometheus text) for every node and GPU,\n"
	      "    over HTTP; the URL is printed on stderr and written into FILE as a comment.\n"
	      "SPEC: gpus=10240,seed=1,accel=1,start=2026-01-01T00:00:00Z,load=0.9\n",
	      f);
}

static int parse_listen(const char *s, struct serve_opts *o, char *addr, size_t cap)
{
	const char *colon = strrchr(s, ':');
	struct in_addr in;
	char *end;
	long port;

	if (!colon || (size_t)(colon - s) >= cap)
		return -1;
	memcpy(addr, s, (size_t)(colon - s));
	addr[colon - s] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535 || inet_pton(AF_INET, addr, &in) != 1)
		return -1;
	if ((ntohl(in.s_addr) >> 24) != 127) {
		fprintf(stderr, "myriad-sim: %s: only loopback addresses (127.0.0.0/8) are served\n", s);
		return -2;
	}
	o->addr = addr;
	o->port = (int)port;
	return 0;
}

int main(int argc, char **argv)
{
	struct serve_opts o = {0};
	char addr[64], xaddr[64];

	if (argc < 2 || strcmp(argv[1], "serve")) {
		usage(argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? stdout : stderr);
		return argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? 0 : 1;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, "myriad-sim: %s needs a value\n", a);
			return 1;
		}
		i++;
		if (!strcmp(a, "--sim")) {
			o.spec = v;
		} else if (!strcmp(a, "--listen")) {
			if ((rc = parse_listen(v, &o, addr, sizeof addr)) < 0) {
				if (rc == -1)
					fprintf(stderr, "myriad-sim: --listen wants ADDR:PORT, not \"%s\"\n", v);
				return 1;
			}
		} else if (!strcmp(a, "--exporter")) {
			struct serve_opts t = {0};

			if ((rc = parse_listen(v, &t, xaddr, sizeof xaddr)) < 0) {
				if (rc == -1)
					fprintf(stderr, "myriad-sim: --exporter wants ADDR:PORT, not \"%s\"\n", v);
				return 1;
			}
			o.exporter = t.addr;
			o.exporter_port = t.port;
		} else if (!strcmp(a, "--write-config")) {
			o.config = v;
		} else if (!strcmp(a, "--hostkey")) {
			o.hostkey = v;
		} else if (!strcmp(a, "--control")) {
			if (strcmp(v, "-") || fcntl(0, F_GETFD) < 0 || fcntl(1, F_GETFD) < 0) {
				fprintf(stderr, "myriad-sim: --control wants - (standard input and output, both open)\n");
				return 1;
			}
			o.control = 1;
		} else if (!strcmp(a, "--speed")) {
			o.speed = atof(v);
			if (!(o.speed > 0) || o.speed > 1000) {
				fprintf(stderr, "myriad-sim: --speed wants a factor between 0 and 1000\n");
				return 1;
			}
		} else {
			fprintf(stderr, "myriad-sim: unknown option %s\n", a);
			usage(stderr);
			return 1;
		}
	}
	if (!o.addr) {
		fprintf(stderr, "myriad-sim: serve needs --listen 127.0.0.1:PORT\n");
		return 1;
	}
	return serve_run(&o);
}
