/*
 * fuzz_slurm_doc.c - libFuzzer target for the Slurm documents read as they
 * arrive (src/probe/slurm_doc.c, jtape.c). The input's first byte chooses
 * the pieces; the rest is the document, fed to slurm_doc_more a piece at a
 * time as an SSH channel would deliver it, in a buffer of exactly the bytes
 * so far that moves at every piece (as a growing sbuf may), then ended with
 * slurm_doc_end. Whatever the pieces, the verdict must be the reference's
 * (tests/unit/slurm_ref.c, jansson on the whole document, the parser as it
 * was), as in the unit test test_slurm_doc.c: the same count, the same
 * records byte for byte, the same count of rejected ones and the same error
 * words. A crash or a disagreement aborts.
 *
 * First byte h: bit 0 squeue (else sinfo); bits 1-4 the largest piece,
 * 1 << that many bytes (0: the whole document in one piece); bits 5-7 and
 * the length seed the sizes drawn up to it. Seeds: tests/fuzz/seed/
 * fuzz_slurm_doc (the fuzz_slurm documents with a first byte).
 */
#include <stdlib.h>
#include <string.h>
#include "probe/parse.h"
#include "util.h"
#include "../unit/slurm_ref.c"   /* the reference, linked into this target alone */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t next_size(uint32_t *x, int maxlog)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return 1 + *x % (1u << maxlog);
}

static struct slurm_doc *reader[2];   /* kept across inputs, as a stream keeps its reader between polls */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slurm_got a, b = {0, -7, NULL, {0}};
	const char *s = (const char *)data + 1;
	int jobs, maxlog;
	uint32_t x;
	size_t n;
	char *buf = NULL;

	if (size < 1)
		return 0;
	jobs = data[0] & 1;
	maxlog = (data[0] >> 1) & 15;
	x = 0x9e3779b9u ^ ((uint32_t)data[0] << 24) ^ (uint32_t)size;
	n = size - 1;
	if (!reader[jobs])
		reader[jobs] = slurm_doc_new(jobs);

	slurm_got_ref(jobs, s, n, &a);

	size_t len = 0;

	if (maxlog) {
		while (len < n) {
			size_t k = next_size(&x, maxlog);   /* not inside MIN: it is a macro */
			char *moved;

			k = MIN(k, n - len);
			moved = xmalloc(len + k);   /* exactly the bytes so far, somewhere else */
			if (len)
				memcpy(moved, buf, len);
			memcpy(moved + len, s + len, k);
			free(buf);
			buf = moved;
			len += k;
			slurm_doc_more(reader[jobs], buf, len);
			if (!(x & 7))
				slurm_doc_more(reader[jobs], buf, len);   /* no new bytes: a wake-up with nothing read */
		}
	} else if (n) {
		buf = xmalloc(n);
		memcpy(buf, s, n);
		len = n;
	}
	b.rc = slurm_doc_end(reader[jobs], buf ? buf : "", len, jobs ? NULL : slurm_got_node, jobs ? slurm_got_job : NULL,
			     &b.recs, &b.bad, &b.err);
	if (b.rc < 0 && !b.err)
		__builtin_trap();
	if (!slurm_got_same(&a, &b)) {
		fprintf(stderr, "disagreement (%s, %zu bytes, pieces up to %d): reference rc %d bad %d err %s; "
			"ours rc %d bad %d err %s\n", jobs ? "jobs" : "nodes", n, maxlog ? 1 << maxlog : 0, a.rc, a.bad,
			a.err ? a.err : "-", b.rc, b.bad, b.err ? b.err : "-");
		abort();
	}
	free(buf);
	slurm_got_free(&a);
	slurm_got_free(&b);
	return 0;
}
