/*
 * hostkeys.c - the in-memory trust store (see hostkeys.h). Exact host names
 * are hashed for O(1) lookup; wildcard and hashed entries are kept in a list
 * that is scanned (a hashed entry costs one HMAC-SHA1 per check).
 */
#include <stdio.h>
#include <string.h>
#include "hostkeys.h"
#include "../util.h"

enum hk_kind { HKE_NAME, HKE_PATTERN, HKE_HASHED };

struct hk_entry {
	int kind;            /* enum hk_kind */
	int revoked;         /* @revoked: this key is refused for these hosts */
	char *hosts;         /* the name, the pattern list, or NULL for hashed */
	uint8_t salt[64], hash[20];
	int saltlen;
	char *type, *b64;
	int32_t next;        /* next entry of the same name, -1 */
};

struct hostkeys {
	struct hk_entry *e;
	int32_t n, cap;
	int32_t *slots;      /* name -> first entry, open addressing */
	uint32_t slot_cap;
	int32_t *scan;       /* patterns and hashed entries */
	int32_t nscan, scan_cap;
};

struct hostkeys *hostkeys_new(void)
{
	struct hostkeys *hk = xcalloc(1, sizeof *hk);

	hk->slot_cap = 64;
	hk->slots = xmalloc(sizeof *hk->slots * hk->slot_cap);
	memset(hk->slots, 0xff, sizeof *hk->slots * hk->slot_cap);
	return hk;
}

void hostkeys_free(struct hostkeys *hk)
{
	if (!hk)
		return;
	for (int32_t i = 0; i < hk->n; i++) {
		free(hk->e[i].hosts);
		free(hk->e[i].type);
		free(hk->e[i].b64);
	}
	free(hk->e);
	free(hk->slots);
	free(hk->scan);
	free(hk);
}

size_t hostkeys_count(const struct hostkeys *hk) { return hk ? (size_t)hk->n : 0; }

void hostkeys_name(const char *host, int port, char *out, size_t outlen)
{
	if (port == 0 || port == 22)
		snprintf(out, outlen, "%s", host);
	else
		snprintf(out, outlen, "[%s]:%d", host, port);
}

/* ---- the name map ---- */

static int32_t *slot_of(const struct hostkeys *hk, const char *name)
{
	uint32_t mask = hk->slot_cap - 1, h = (uint32_t)hash_str(HASH_INIT, name);

	for (;; h++) {
		int32_t i = hk->slots[h & mask];

		if (i < 0 || !strcmp(hk->e[i].hosts, name))
			return &hk->slots[h & mask];
	}
}

static void grow_slots(struct hostkeys *hk)
{
	int32_t *old = hk->slots;
	uint32_t oldcap = hk->slot_cap;

	hk->slot_cap *= 2;
	hk->slots = xmalloc(sizeof *hk->slots * hk->slot_cap);
	memset(hk->slots, 0xff, sizeof *hk->slots * hk->slot_cap);
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i] >= 0)
			*slot_of(hk, hk->e[old[i]].hosts) = old[i];
	free(old);
}

static int32_t first_of(const struct hostkeys *hk, const char *name)
{
	return *slot_of(hk, name);
}

/* ---- adding ---- */

static struct hk_entry *new_entry(struct hostkeys *hk, int kind, const char *type, const char *b64, int revoked)
{
	if (hk->n == hk->cap) {
		hk->cap = hk->cap ? hk->cap * 2 : 64;
		hk->e = xrealloc(hk->e, sizeof *hk->e * (size_t)hk->cap);
	}
	struct hk_entry *e = &hk->e[hk->n++];

	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->revoked = revoked;
	e->type = xstrdup(type);
	e->b64 = xstrdup(b64);
	e->next = -1;
	return e;
}

static void add_scan(struct hostkeys *hk, int32_t idx)
{
	if (hk->nscan == hk->scan_cap) {
		hk->scan_cap = hk->scan_cap ? hk->scan_cap * 2 : 16;
		hk->scan = xrealloc(hk->scan, sizeof *hk->scan * (size_t)hk->scan_cap);
	}
	hk->scan[hk->nscan++] = idx;
}

static void add_name(struct hostkeys *hk, const char *name, const char *type, const char *b64, int revoked)
{
	if ((uint32_t)(hk->n + 1) * 2 > hk->slot_cap)
		grow_slots(hk);
	struct hk_entry *e = new_entry(hk, HKE_NAME, type, b64, revoked);
	int32_t idx = hk->n - 1;

	e->hosts = xstrdup(name);
	int32_t *slot = slot_of(hk, name);

	if (*slot >= 0) {   /* chain behind the first entry of this name */
		e->next = hk->e[*slot].next;
		hk->e[*slot].next = idx;
	} else {
		*slot = idx;
	}
}

static int add_hashed(struct hostkeys *hk, const char *h, const char *type, const char *b64, int revoked, char **err)
{
	const char *bar = strchr(h + 3, '|');
	uint8_t salt[64], hash[32];
	int sl, hl;

	if (!bar || (sl = hk_base64_decode(h + 3, (size_t)(bar - h - 3), salt, sizeof salt)) <= 0 ||
	    (hl = hk_base64_decode(bar + 1, strlen(bar + 1), hash, sizeof hash)) != 20) {
		*err = xstrdup("malformed hashed host name");
		return -1;
	}
	struct hk_entry *e = new_entry(hk, HKE_HASHED, type, b64, revoked);

	memcpy(e->salt, salt, (size_t)sl);
	e->saltlen = sl;
	memcpy(e->hash, hash, 20);
	add_scan(hk, hk->n - 1);
	return 0;
}

static int add_marked(struct hostkeys *hk, const char *hosts, const char *type, const char *b64, int revoked,
		      char **err)
{
	*err = NULL;
	if (!*hosts || !*type || !*b64 || strpbrk(type, " \t") || strpbrk(b64, " \t")) {
		*err = xstrdup("a host key needs hosts, a key type and a base64 key");
		return -1;
	}
	if (!strncmp(hosts, "|1|", 3))
		return add_hashed(hk, hosts, type, b64, revoked, err);
	if (strpbrk(hosts, "*?!")) {
		struct hk_entry *e = new_entry(hk, HKE_PATTERN, type, b64, revoked);

		e->hosts = xstrdup(hosts);
		add_scan(hk, hk->n - 1);
		return 0;
	}
	char *copy = xstrdup(hosts), *save = NULL;

	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
		add_name(hk, name, type, b64, revoked);
	free(copy);
	return 0;
}

int hostkeys_add(struct hostkeys *hk, const char *hosts, const char *type, const char *b64, char **err)
{
	return add_marked(hk, hosts, type, b64, 0, err);
}

/* Splits the next whitespace-separated word off *p into out. */
static int word(const char **p, char *out, size_t cap)
{
	const char *s = *p;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
		if (n + 1 < cap)
			out[n++] = *s;
		s++;
	}
	out[n] = '\0';
	*p = s;
	return n > 0;
}

int hostkeys_add_line(struct hostkeys *hk, const char *line, char **err)
{
	char hosts[4096], type[64], b64[8192];
	const char *p = line;
	int revoked = 0;

	*err = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == '\n' || *p == '\r')
		return 0;
	if (*p == '@') {
		char marker[32];

		word(&p, marker, sizeof marker);
		if (!strcmp(marker, "@cert-authority"))
			return 0;   /* certificates are not supported: such lines trust nothing */
		if (strcmp(marker, "@revoked")) {
			*err = xasprintf("unknown marker %s", marker);
			return -1;
		}
		revoked = 1;
	}
	if (!word(&p, hosts, sizeof hosts) || !word(&p, type, sizeof type) || !word(&p, b64, sizeof b64)) {
		*err = xstrdup("expected: hosts key-type base64-key [comment]");
		return -1;
	}
	return add_marked(hk, hosts, type, b64, revoked, err);
}

int hostkeys_load_file(struct hostkeys *hk, const char *path, char **err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int32_t before = hk->n;
	int lineno = 0;

	*err = NULL;
	if (!f) {
		*err = xasprintf("%s: cannot read", path);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		char *e = NULL;

		lineno++;
		if (hostkeys_add_line(hk, line, &e) < 0 && !*err)   /* keep the first complaint, load the rest */
			*err = xasprintf("%s:%d: %s", path, lineno, e);
		free(e);
	}
	free(line);
	fclose(f);
	return (int)(hk->n - before);
}

/* ---- lookup ---- */

/* * and ? matching in linear time: on a mismatch, only the latest * takes
 * one more character (a pattern of many stars, as a malformed or hostile
 * known_hosts line may hold, would be exponential with recursion). */
static int glob(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = ++pat;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

/* OpenSSH pattern lists: any positive match and no negated match. */
static int pattern_match(const char *list, const char *name)
{
	char *copy = xstrdup(list), *save = NULL;
	int yes = 0, no = 0;

	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (*p == '!')
			no |= glob(p + 1, name);
		else
			yes |= glob(p, name);
	}
	free(copy);
	return yes && !no;
}

static int hashed_match(const struct hk_entry *e, const char *name)
{
	uint8_t mac[20];

	hk_hmac_sha1(e->salt, (size_t)e->saltlen, (const uint8_t *)name, strlen(name), mac);
	return !memcmp(mac, e->hash, 20);
}

struct verdict {
	int same, same_type, other, revoked;
};

static void judge(const struct hk_entry *e, const char *type, const char *b64, struct verdict *v)
{
	int key_equal = !strcmp(e->type, type) && !strcmp(e->b64, b64);

	if (e->revoked) {
		v->revoked |= key_equal;
		return;
	}
	if (key_equal)
		v->same = 1;
	else if (!strcmp(e->type, type))
		v->same_type = 1;
	else
		v->other = 1;
}

static void collect(const struct hostkeys *hk, const char *name, const char *type, const char *b64,
		    struct verdict *v)
{
	for (int32_t i = hk->n ? first_of(hk, name) : -1; i >= 0; i = hk->e[i].next)
		judge(&hk->e[i], type, b64, v);
	for (int32_t k = 0; k < hk->nscan; k++) {
		const struct hk_entry *e = &hk->e[hk->scan[k]];

		if (e->kind == HKE_PATTERN ? pattern_match(e->hosts, name) : hashed_match(e, name))
			judge(e, type, b64, v);
	}
}

enum hk_result hostkeys_check(const struct hostkeys *hk, const char *host, int port, const char *type,
			      const char *b64)
{
	char name[512];
	struct verdict v = {0};

	hostkeys_name(host, port, name, sizeof name);
	collect(hk, name, type, b64, &v);
	if (v.revoked)
		return HK_REVOKED;
	if (v.same)
		return HK_OK;
	if (v.same_type)
		return HK_CHANGED;
	return v.other ? HK_OTHER : HK_UNKNOWN;
}

static const char *const default_algs[] = {
	"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "rsa-sha2-512",
	"rsa-sha2-256",
};

static void types_of(const struct hostkeys *hk, const char *name, int known[6])
{
	static const char *const key_types[6] = {
		"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa", "ssh-rsa",
	};

	for (int t = 0; t < 6; t++) {
		struct verdict v = {0};

		collect(hk, name, key_types[t], "", &v);
		known[t] = v.same_type;
	}
}

void hostkeys_algorithms(const struct hostkeys *hk, const char *host, int port, char *out, size_t outlen)
{
	char name[512];
	int known[6] = {0};
	struct sbuf b = {0};

	hostkeys_name(host, port, name, sizeof name);
	if (hk && hk->n)
		types_of(hk, name, known);
	for (int pass = 0; pass < 2; pass++)
		for (int t = 0; t < 6; t++)
			if (known[t] == !pass) {
				if (b.len)
					sbuf_addc(&b, ',');
				sbuf_adds(&b, default_algs[t]);
			}
	snprintf(out, outlen, "%s", b.s ? b.s : "");
	sbuf_free(&b);
}
