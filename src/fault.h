/*
 * fault.h - fault rules of the model: which events open, fold into, or close
 * a fault. Called only from model_apply(), so faults are part of the fold and
 * replay reproduces them exactly.
 */
#ifndef MYRIAD_FAULT_H
#define MYRIAD_FAULT_H

#include "model.h"

/* Thresholds (myriad-design(7), FACTS: IB counter thresholds, PUE and cooling). */
#define THERMAL_OPEN_C 87        /* H100 slowdown region */
#define THERMAL_CLEAR_C 83
#define SYMBOL_ERR_PER_HOUR 120  /* IBTA 1e-12 BER */
#define RCV_ERR_PER_SEC 10
#define CDU_SUPPLY_MAX_C 30.0
#define CDU_DELTA_MAX_K 20.0     /* wider delta T at the same load = low flow */
#define IB_STATE_CODE IBC_COUNT  /* fault code for "port not ACTIVE" */

void fault_on_xid(struct model *m, const struct event *ev);
/* A GPU's identity (its pci.bus_id) became known: XIDs waiting for it name it. */
void fault_on_gpu_identity(struct model *m, int32_t node, int32_t gpu);
void fault_on_ib(struct model *m, const struct event *ev);
void fault_on_parse_error(struct model *m, const struct event *ev);
void fault_check_sample(struct model *m, const struct event *ev, int32_t g, int32_t old_ecc);
void fault_check_power(struct model *m, const struct event *ev);
void fault_check_conn(struct model *m, const struct event *ev);
void fault_ack(struct model *m, const struct event *ev);
int fault_close(struct model *m, uint32_t id, int64_t time, const char *why);
void fault_close_node(struct model *m, int32_t node, int64_t time, const char *why);
uint64_t fault_hash(const struct model *m, uint64_t h, hash_fn bulk);
/* Where a fault is, as the console and panels say it: gpu0007:3 (a GPU),
 * gpu0007 r4 (an IB rail), gpu0007 (a node), facility. Returns buf. */
const char *fault_where(const struct model *m, const struct fault *f, char *buf, size_t size);

#endif
