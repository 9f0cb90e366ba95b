/*
 * test_loop.c - the event loop: watches belong to their owner, so a
 * descriptor number closed behind the loop's back and reused by another
 * watcher is not dropped when the old owner lets go (the simulated fleet
 * server lost whole batches of new sessions that way).
 */
#include <unistd.h>
#include "loop.h"
#include "test.h"

struct seen {
	int calls;
};

static void on_read(void *ctx, int fd, int events)
{
	char buf[16];

	(void)events;
	((struct seen *)ctx)->calls++;
	if (read(fd, buf, sizeof buf) < 0)
		return;
}

TEST(loop_reused_descriptor_keeps_new_owner)
{
	struct loop *l = loop_new();
	struct seen old = {0}, cur = {0};
	int a[2], b[2];

	CHECK(pipe(a) == 0 && pipe(b) == 0);
	CHECK(loop_watch(l, a[0], LOOP_READ, on_read, &old) == 0);
	int num = a[0];

	close(a[0]);   /* closed behind the loop's back, as libssh does */
	close(a[1]);
	CHECK(dup2(b[0], num) == num);   /* the number comes back for someone else */
	close(b[0]);
	CHECK(loop_watch(l, num, LOOP_READ, on_read, &cur) == 0);
	loop_unwatch(l, num, &old);       /* the stale owner lets go: no effect */
	CHECK(write(b[1], "x", 1) == 1);
	loop_once(l, 200);
	CHECK_INT(cur.calls, 1);
	CHECK_INT(old.calls, 0);
	loop_unwatch(l, num, &cur);
	CHECK(write(b[1], "y", 1) == 1);
	loop_once(l, 50);
	CHECK_INT(cur.calls, 1);          /* the owner's unwatch works */
	close(num);
	close(b[1]);
	loop_free(l);
}

TEST(loop_watch_again_after_number_reused)
{
	struct loop *l = loop_new();
	struct seen s = {0};
	int a[2], b[2];

	CHECK(pipe(a) == 0 && pipe(b) == 0);
	CHECK(loop_watch(l, a[0], LOOP_READ, on_read, &s) == 0);
	int num = a[0];

	close(a[0]);
	close(a[1]);
	CHECK(dup2(b[0], num) == num);
	close(b[0]);
	/* the kernel forgot the old watch; watching the new file must not fail */
	CHECK(loop_watch(l, num, LOOP_READ | LOOP_WRITE, on_read, &s) == 0);
	CHECK(loop_watch(l, num, LOOP_READ, on_read, &s) == 0);
	CHECK(write(b[1], "x", 1) == 1);
	loop_once(l, 200);
	CHECK_INT(s.calls, 1);
	loop_unwatch(l, num, &s);
	close(num);
	close(b[1]);
	loop_free(l);
}
