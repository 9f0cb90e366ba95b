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

/* Buffers kept from keyframe to keyframe (a keyframe of 102,400 GPUs
 * transposes some 20 MB): zero-initialised, kf_scratch_free at the end. */
struct kf_scratch {
	struct sbuf cols, copy;
	int64_t *tmp;
	size_t ntmp;
	struct sbuf stat, stat_raw;   /* decode: the static part read last, and what it holds */
};
void kf_scratch_free(struct kf_scratch *s);

/* The static part (stat) and the rest (dyn); kf_encode both at once. */
void kf_encode_static(const struct model *m, struct sbuf *stat, struct kf_scratch *s);
void kf_encode_dyn(const struct model *m, const struct kf_pred *pred, struct sbuf *dyn, struct kf_scratch *s);
void kf_encode(const struct model *m, const struct kf_pred *pred, struct sbuf *stat, struct sbuf *dyn);
/* Replaces m with the decoded model (pred: the same prediction, or NULL if
 * none could be made; s: buffers, or NULL). 0, or -1 with *err (malloc'd);
 * on error m is left empty (model_init). A keyframe written by a binary
 * whose model layout differs is refused (the caller replays from the start). */
int kf_decode(struct model *m, const struct kf_pred *pred, const void *stat, size_t slen, const void *dyn,
	      size_t dlen, struct kf_scratch *s, char **err);
uint64_t kf_digest(const struct sbuf *stat);

/* ---- columns (kfcols.c) ---- */
/* An int64 column: flag 1 and the value when all are the same, else flag 0
 * and the block codec (codec.h). */
struct rd;
void kf_put_col(struct sbuf *b, const int64_t *v, size_t n);
int kf_get_col(struct rd *r, int64_t *v, size_t n);
/* n structs of `size` bytes as `size` byte columns, each a kf_put_col of
 * its bytes. tmp: n int64s; scratch: room for n * size bytes (kept). */
void kf_put_structs(struct sbuf *b, const void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch);
int kf_get_structs(struct rd *r, void *base, size_t n, size_t size, int64_t *tmp, struct sbuf *scratch);

#endif
