/*
 * hostkeys.h - the host keys myriad trusts, held in memory.
 *
 * Loaded once from known_hosts files (plain, hashed "|1|salt|hash" and
 * wildcard entries, @revoked markers) and from `hostkey` lines of the
 * configuration, then consulted for every connection without touching the
 * disk: libssh's ssh_session_is_known_server re-reads the whole file at each
 * check (22 ms per check with 1,280 hashed entries, see myriad-design(7), FACTS: SSH at fleet scale).
 *
 * A changed key (same type, other key), a key of another type than the ones
 * on record, and a revoked key are all refused; an unknown key is refused
 * unless the operator allowed first use (`ssh -accept-new yes`).
 */
#ifndef MYRIAD_SSH_HOSTKEYS_H
#define MYRIAD_SSH_HOSTKEYS_H

#include <stddef.h>
#include <stdint.h>

struct hostkeys;

enum hk_result { HK_OK, HK_UNKNOWN, HK_CHANGED, HK_OTHER, HK_REVOKED };

struct hostkeys *hostkeys_new(void);
void hostkeys_free(struct hostkeys *hk);
/* Trust key (type "ssh-ed25519", base64 blob) for hosts, a known_hosts host
 * field ("gpu0001,10.0.0.1", "[127.0.0.1]:2222", "*.ib", "|1|salt|hash").
 * 0, or -1 with *err. */
int hostkeys_add(struct hostkeys *hk, const char *hosts, const char *type, const char *b64, char **err);
/* One known_hosts line (comments and blank lines are fine). 0, -1 malformed. */
int hostkeys_add_line(struct hostkeys *hk, const char *line, char **err);
/* A known_hosts file: number of keys loaded, or -1 if it cannot be read. */
int hostkeys_load_file(struct hostkeys *hk, const char *path, char **err);
size_t hostkeys_count(const struct hostkeys *hk);

/* The verdict for the key a server at host:port offered. */
enum hk_result hostkeys_check(const struct hostkeys *hk, const char *host, int port, const char *type,
			      const char *b64);
/* Key types on record for host:port first, then the other usual ones, as a
 * host key algorithm list for SSH_OPTIONS_HOSTKEYS. */
void hostkeys_algorithms(const struct hostkeys *hk, const char *host, int port, char *out, size_t outlen);
/* The known_hosts name of host:port: "host" or "[host]:port". */
void hostkeys_name(const char *host, int port, char *out, size_t outlen);

/* HMAC-SHA1 and base64, for hashed known_hosts entries. */
void hk_hmac_sha1(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len, uint8_t out[20]);
/* Decodes base64 into out (at most cap bytes); length, or -1 if malformed. */
int hk_base64_decode(const char *s, size_t n, uint8_t *out, size_t cap);
/* "|1|base64(salt)|base64(HMAC-SHA1(salt, name))" with a random salt; -1 on failure. */
int hk_hash_name(const char *name, char *out, size_t cap);

#endif
