/*
 * quote.h - putting words into a remote command line safely.
 *
 * A remote command is always run by the login shell on the other side
 * (`sh -c COMMAND`), so every argument myriad places into one is quoted for
 * a POSIX shell: a word of plain characters stays as it is, anything else is
 * wrapped in single quotes with each ' written as '\''. Nothing a node or an
 * operator's argument contains can then become shell syntax.
 */
#ifndef MYRIAD_SSH_QUOTE_H
#define MYRIAD_SSH_QUOTE_H

#include "../util.h"

/* Appends s, quoted, to b. */
void sh_quote(struct sbuf *b, const char *s);
/* The command for argv: one word is taken as the operator's own shell
 * command line and passed as it is; several words are an argument vector and
 * each is quoted. Returns a malloc'd string. */
char *sh_command(int argc, char *const *argv);

#endif
