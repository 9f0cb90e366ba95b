/*
 * text.h - sanitising and display width of strings that came from outside.
 *
 * Job names, users, drain reasons, fault text and host output may carry
 * anything: control bytes, terminal escape sequences (colour, cursor moves,
 * window titles), invalid UTF-8, bidi overrides. Nothing of that reaches the
 * terminal: text_next() yields only printable code points, skipping whole
 * escape sequences, and every string the console draws goes through it.
 * Columns are counted by display width (wcwidth), so a CJK job name such as
 * `训练-llama3-405b` takes two columns per character and is cut at a
 * character boundary, never inside one.
 *
 * In the ASCII fallback (the locale is not UTF-8) every non-ASCII character
 * becomes '?', one column wide.
 */
#ifndef MYRIAD_UI_TEXT_H
#define MYRIAD_UI_TEXT_H

#include <stddef.h>
#include <stdint.h>

extern int text_utf8;   /* 1 (default): UTF-8 output; 0: ASCII fallback */

/* Decodes one UTF-8 sequence from s (n bytes available, n > 0). Returns its
 * length; an invalid, overlong or truncated sequence gives 1 and U+FFFD. */
int utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encodes cp; returns the number of bytes (1-4). */
int utf8_encode(uint32_t cp, char out[4]);

/* Display columns of a printable code point: 1 or 2 (0 for zero-width). */
int text_cpwidth(uint32_t cp);

/* The next printable code point of *s (advanced past it), or 0 at the end.
 * Controls, escape sequences (CSI, OSC, DCS, ...), zero-width and bidi
 * control characters are skipped; tabs and newlines become a space;
 * unprintable or invalid bytes become U+FFFD ('?' in ASCII mode). */
uint32_t text_next(const char **s);

/* Copies the printable form of src into dst (size > 0 bytes), cut at a
 * character boundary; returns the bytes written. */
size_t text_sanitize(char *dst, size_t size, const char *src);
/* Display width of src as it would be drawn. */
int text_width(const char *src);
/* Display width of the longest prefix of src fitting in cols columns; *end
 * (if not NULL) is set past the last code point that fits. */
int text_fit(const char *src, int cols, const char **end);

#endif
