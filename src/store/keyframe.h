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

void kf_encode(const struct model *m, struct sbuf *stat, struct sbuf *dyn);
/* Replaces m with the decoded model. 0, or -1 with *err (malloc'd); on
 * error m is left empty (model_init). A keyframe written by a binary whose
 * model layout differs is refused (the caller replays from the start). */
int kf_decode(struct model *m, const void *stat, size_t slen, const void *dyn, size_t dlen, char **err);
uint64_t kf_digest(const struct sbuf *stat);

#endif
