/*
 * probes.h - the remote commands of the built-in probes and services
 * (myriad-design(7), SOURCES AND FORMATS). The ssh source runs them on every node; myriad-sim
 * serve recognises them and answers with the embedded simulator's text.
 * A site overrides them with `probe NAME -command {...}`.
 */
#ifndef MYRIAD_SSH_PROBES_H
#define MYRIAD_SSH_PROBES_H

#include "../probe/parse.h"

/* GPU telemetry, one CSV line per GPU every second, on one long-lived channel. */
#define PROBE_NVSMI_CMD \
	"nvidia-smi --query-gpu=" NVSMI_DEFAULT_QUERY " --format=csv,noheader,nounits -lms 1000"

/* Kernel log follower: new lines only (-n 0), so a restart does not replay XIDs. */
#define PROBE_KMSG_CMD "journalctl -kf -n 0 -o short-iso"

/* InfiniBand counters, port state and link layer (InfiniBand or Ethernet:
 * RoCE devices and bonds are not fabric rails), "PATH:VALUE" lines, a blank
 * line after each dump, every 10 s. */
#define PROBE_IB_CMD \
	"while :; do grep -H . /sys/class/infiniband/*/ports/*/link_layer " \
	"/sys/class/infiniband/*/ports/*/counters/* " \
	"/sys/class/infiniband/*/ports/*/state 2>/dev/null; echo; sleep 10; done"

/* Services. */
#define SVC_FACILITY_CMD "bmsctl power --json"

#endif
