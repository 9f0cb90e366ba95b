/*
 * keyframe.h - the whole model as two BLOBs and back: a keyframe of the
 * log, so that a seek is "restore the nearest keyframe, then replay the
 * events after it". The restored model hashes (model_hash) like the one
 * that was saved.
 *
 * The static part (GPU UUIDs and PCI ids) rarely changes: the log stores it
 * once per distinct content and keyframes refer to it by digest.
 */
#ifndef MYRIAD_STORE_KEYFRAME_H
#define MYRIAD_STORE_KEYFRAME_H

#include "../model.h"

/* IB ports cost most (counters 2^40 apart from port to port): a keyframe
 * stores each port as the difference from a prediction that the recorder
 * and the reader both make from the IB readings of the KF_PRED_TICKS ticks
 * before the keyframe (the last reading, the one before it). Exactness never
 * depends on the prediction, only the size. */
#define KF_PRED_TICKS 30
struct kf_pred {
	int32_t nports;
	struct port_pred {
		int have, have_prev;
		int64_t last[2 + IBC_COUNT], prev[2 + IBC_COUNT];   /* state, have, counters */
		int64_t time;             /* of the last reading */
	} *p;
};

void kf_encode(const struct model *m, const struct kf_pred *pred, struct sbuf *stat, struct sbuf *dyn);
/* Replaces m with the decoded model (pred: the same prediction, or NULL if
 * none could be made). 0, or -1 with *err (malloc'd); on error m is left
 * empty (model_init). A keyframe written by a binary whose model layout
 * differs is refused (the caller replays from the start). */
int kf_decode(struct model *m, const struct kf_pred *pred, const void *stat, size_t slen, const void *dyn,
	      size_t dlen, char **err);
uint64_t kf_digest(const struct sbuf *stat);

#endif
