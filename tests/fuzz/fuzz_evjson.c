/*
 * fuzz_evjson.c - libFuzzer target for the events' JSON reader
 * (src/store/evjson.c, read with jtape). The input's first byte chooses the
 * event type; the rest is the payload. The verdict must be the reference's
 * (tests/unit/evjson_ref.c: jansson, the reader as it was; a payload with a
 * raw NUL byte, never JSON, refused) and, when both
 * accept it, every field the same; an accepted payload encodes and reads
 * back to the same fields. A crash or a disagreement aborts. Seeds:
 * tests/fuzz/seed/fuzz_evjson (a payload of each type, as the recorder
 * writes them).
 */
#include <stdlib.h>
#include <string.h>
#include "store/evjson.h"
#include "../unit/evjson_ref.c"   /* the reference, linked into this target alone */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event a, b, c;
	struct arena ar = {0};
	struct sbuf s = {0};
	char *json;
	int ra, rb;

	if (size < 1)
		return 0;
	memset(&a, 0, sizeof a);
	a.type = (enum ev_type)(1 + data[0] % (EV_TYPE_COUNT - 1));
	b = c = a;
	json = malloc(size);   /* exactly the bytes: a read past them is ASan's to see */
	memcpy(json, data + 1, size - 1);
	ra = evjson_decode(&a, json, size - 1, &ar);
	if (memchr(json, 0, size - 1))   /* never JSON; jansson reads on past it (evjson_ref.c) */
		rb = -1;
	else
		rb = evjson_decode_ref(&b, json, size - 1, &ar);
	if (ra != rb || (ra == 0 && !evjson_same_fields(&a, &b)))
		abort();
	if (ra == 0) {
		evjson_encode(&s, &a);
		if (evjson_decode(&c, s.s, s.len, &ar) != 0 || !evjson_same_fields(&a, &c))
			abort();
	}
	free(json);
	sbuf_free(&s);
	arena_free(&ar);
	return 0;
}
