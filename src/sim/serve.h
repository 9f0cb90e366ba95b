/*
 * serve.h - the simulated fleet over SSH: `myriad-sim serve`.
 *
 * One process on libssh's server API serves every node of the embedded
 * simulator on one loopback address and port. The login name selects the
 * node (gpu0042@127.0.0.1), "head01" is the Slurm head node and "bms01" the
 * facility meter. Each node answers the probe commands of src/ssh/probes.h
 * with the simulator's text for that node (one sim_step per second, routed
 * to the node's open channels), `hostname`, and on the head node
 * `squeue --json`, `sinfo --json` and the scontrol / scancel commands of a
 * Slurm backend, acting on the simulator (serve_slurm.c); anything else is
 * refused with a clear message on stderr and exit status 127. Only the
 * client key written beside the configuration is accepted.
 *
 * With --exporter, the same fleet is served as dcgm-exporter's /metrics on a
 * loopback HTTP port, on the same loop (serve_exporter.c).
 *
 * With --control -, commands read from standard input inject faults while
 * serving, one answer line each on standard output (serve_control.c).
 */
#ifndef MYRIAD_SIM_SERVE_H
#define MYRIAD_SIM_SERVE_H

struct serve_opts {
	const char *spec;          /* --sim SPEC */
	const char *addr;          /* 127.x.y.z */
	int port;                  /* 0: any free port (printed) */
	const char *config;        /* --write-config FILE (the key goes to FILE.key) */
	const char *hostkey;       /* --hostkey FILE: keep the host key there; NULL: a new one */
	double speed;              /* simulated seconds per real second, default 1 */
	int control;               /* --control -: commands on stdin, answers on stdout */
	const char *exporter;      /* --exporter ADDR:PORT: dcgm-exporter over HTTP, NULL: none */
	int exporter_port;         /* 0: any free port (printed) */
};

/* Runs until SIGINT or SIGTERM. Returns the exit status. */
int serve_run(const struct serve_opts *o);

#endif
