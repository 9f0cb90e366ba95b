/* tcl_stub.c - placeholders for tcl.h until the interpreter lands. DELETE
 * this file when src/tcl implements tcl.h. */
#include "tcl.h"

int tcl_init(struct myriad *app, char **err) { (void)app; *err = xstrdup("Tcl is not available in this build"); return -1; }
void tcl_free(struct myriad *app) { (void)app; }
int tcl_eval(struct myriad *app, const char *script, struct sbuf *out)
{
	(void)app; (void)script;
	if (out)
		sbuf_adds(out, "Tcl is not available in this build");
	return 1;
}
int tcl_load_config(struct myriad *app, const char *path, char **err)
{
	(void)app; (void)path;
	*err = xstrdup("configuration files need Tcl, not available in this build");
	return -1;
}
void tcl_complete(struct myriad *app, const char *prefix, void (*fn)(void *, const char *), void *ctx)
{
	(void)app; (void)prefix; (void)fn; (void)ctx;
}
