/* ui_stub.c - placeholders for ui.h until the console lands. DELETE this
 * file when src/ui implements ui.h. */
#include "ui.h"

static int na(char **err)
{
	if (err)
		*err = xstrdup("not available without the console");
	return -1;
}
int console_run(struct myriad *app, const struct cli_opts *o) { (void)app; (void)o; return 1; }
int ui_bind(struct myriad *app, const char *t, const char *k, const char *s, char **err) { (void)app; (void)t; (void)k; (void)s; return na(err); }
int ui_panel(struct myriad *app, const char *name, char **err) { (void)app; (void)name; return na(err); }
int ui_theme(struct myriad *app, const char *name, char **err) { (void)app; (void)name; return na(err); }
int ui_message(struct myriad *app, const char *text) { (void)app; (void)text; return -1; }
int ui_confirm(struct myriad *app, const char *text, void (*done)(void *, int), void *ctx, char **err)
{
	(void)app; (void)text; (void)done; (void)ctx;
	return na(err);
}
