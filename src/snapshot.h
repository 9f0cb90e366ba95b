/*
 * snapshot.h - the snapshot object of myriad(1) (--once --json), as JSON:
 * what `--once --json` prints, live or from a replay.
 */
#ifndef MYRIAD_SNAPSHOT_H
#define MYRIAD_SNAPSHOT_H

#include "model.h"
#include "util.h"

#define SNAP_DETAIL 0x1

/* Appends the JSON object (one line, no trailing newline) to out. */
void snapshot_json(const struct model *m, int flags, struct sbuf *out);

#endif
