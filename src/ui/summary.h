/*
 * summary.h - a plain-text live summary of the model, for terminals without
 * the full console and for logs: header, power, utilisation per SU, faults.
 */
#ifndef MYRIAD_SUMMARY_H
#define MYRIAD_SUMMARY_H

#include <stdio.h>
#include "model.h"

/* Writes one screenful; ansi = 1 adds colour and clears the screen first. */
void summary_print(FILE *out, const struct model *m, int ansi, int rows);

#endif
