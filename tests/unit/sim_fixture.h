/*
 * sim_fixture.h - shared by the simulator's unit tests (test_sim.c,
 * test_sim_faults.c): a capture of every stream the simulator prints, a
 * simulator made from a spec string, stepping, a JSON syntax check.
 */
#ifndef MYRIAD_TEST_SIM_FIXTURE_H
#define MYRIAD_TEST_SIM_FIXTURE_H

#include <stdint.h>
#include "util.h"
#include "event.h"
#include "sim/sim.h"
#include "sim/sim_test.h"

struct cap {
	uint64_t hash;
	int64_t bytes[SIM_STREAM_COUNT];
	int64_t chunks[SIM_STREAM_COUNT];
	int keep[SIM_STREAM_COUNT];     /* append to all[] */
	struct sbuf all[SIM_STREAM_COUNT];
	struct sbuf last[SIM_STREAM_COUNT];   /* last chunk of each stream */
	int32_t last_node[SIM_STREAM_COUNT];
	int64_t per_node[SIM_STREAM_COUNT][256];   /* chunks per node (first 256) */
	int bad_nvsmi_chunks;           /* nvidia-smi chunks without 8 lines */
};

void cap_text(void *ctx, enum sim_stream st, int32_t node, const char *buf, size_t n);
void cap_init(struct cap *c);
void cap_free(struct cap *c);
struct sim *make(const char *spec);          /* NULL (and a message) for a bad spec */
void run(struct sim *s, struct cap *c, int steps);   /* c may be NULL */
int json_ok(const char *doc);                /* syntax only */
double json_num(const char *doc, const char *key);   /* the number after "key": */
/* Busy GPUs that belong to no running job or to two, jobs whose GPUs do not
 * point back, running GPUs over the load cap: 0 when all is well. */
int conservation_errors(const struct sim *s);

#endif
