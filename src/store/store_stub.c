/* store_stub.c - placeholders for store.h until the store lands. DELETE this
 * file when src/store implements store.h. */
#include "store.h"

static int na(char **err)
{
	if (err)
		*err = xstrdup("the log is not available in this build");
	return -1;
}
int recorder_open(struct myriad *app, const char *path, char **err) { (void)app; (void)path; return na(err); }
void recorder_close(struct myriad *app) { (void)app; }
const char *recorder_path(const struct myriad *app) { (void)app; return NULL; }
const char *recorder_status(const struct myriad *app) { (void)app; return "not recording"; }
char *recorder_default_path(void) { return NULL; }
int replay_open(struct myriad *app, const char *path, char **err) { (void)app; (void)path; return na(err); }
int replay_seek(struct myriad *app, int64_t t, char **err) { (void)app; (void)t; return na(err); }
int replay_step(struct myriad *app, int64_t n, char **err) { (void)app; (void)n; return na(err); }
int replay_seek_fault(struct myriad *app, int dir, char **err) { (void)app; (void)dir; return na(err); }
void replay_play(struct myriad *app, double speed) { (void)app; (void)speed; }
int replay_get_info(const struct myriad *app, struct replay_info *out) { (void)app; (void)out; return -1; }
int store_query(struct myriad *app, const char *sql, int (*fn)(void *, int, char **, char **), void *ctx, char **err)
{
	(void)app; (void)sql; (void)fn; (void)ctx;
	return na(err);
}
