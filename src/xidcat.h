/*
 * xidcat.h - the XID catalogue (myriad-design(7), FACTS: XID catalogue): what each code
 * means, how serious it is, and what an operator should do about it.
 */
#ifndef MYRIAD_XIDCAT_H
#define MYRIAD_XIDCAT_H

#include <stdint.h>

struct xid_info {
	int32_t code;
	const char *meaning;      /* "GPU has fallen off the bus" */
	const char *bucket;       /* NVIDIA resolution bucket: "RESTART_BM" */
	const char *remedy;       /* what operators do: "drain, reboot/power-cycle" */
	int32_t kind;             /* enum fault_kind */
	int32_t severity;         /* enum severity */
	int hardware;             /* 1: the node should be drained */
	int sympathetic;          /* 1: follows another XID; not a cause */
};

/* The entry for code, or a generic "unknown XID" entry (never NULL). */
const struct xid_info *xid_lookup(int32_t code);
int xid_count(void);
const struct xid_info *xid_at(int i);

#endif
