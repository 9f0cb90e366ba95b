/*
 * quote.c - POSIX shell quoting for remote commands (see quote.h).
 */
#include <string.h>
#include "quote.h"

static int plain(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+:,./-", *s))
			return 0;
	return 1;
}

void sh_quote(struct sbuf *b, const char *s)
{
	if (plain(s)) {
		sbuf_adds(b, s);
		return;
	}
	sbuf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_adds(b, "'\\''");
		else
			sbuf_addc(b, *s);
	}
	sbuf_addc(b, '\'');
}

char *sh_command(int argc, char *const *argv)
{
	struct sbuf b = {0};

	if (argc == 1)
		return xstrdup(argv[0]);
	for (int i = 0; i < argc; i++) {
		if (i)
			sbuf_addc(&b, ' ');
		sh_quote(&b, argv[i]);
	}
	return b.s ? b.s : xstrdup("");
}
