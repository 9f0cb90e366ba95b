/*
 * tmpfile.c - temporary files for the unit tests (test.h): a path in a
 * folder of this process under /tmp, and the removal of a SQLite file with
 * its -wal and -shm (the folder goes with the last file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "util.h"

static char dir[64];

char *unit_tmp_file(const char *name)
{
	snprintf(dir, sizeof dir, "/tmp/myriad-unit-%d", (int)getpid());
	mkdir(dir, 0700);   /* again after unit_remove_db took it away */
	char *p = xasprintf("%s/%s", dir, name);

	unlink(p);
	return p;
}

void unit_remove_db(char *path)
{
	char *w = xasprintf("%s-wal", path), *s = xasprintf("%s-shm", path);

	unlink(path);
	unlink(w);
	unlink(s);
	free(w);
	free(s);
	free(path);
	rmdir(dir);   /* once the last file is gone */
}
