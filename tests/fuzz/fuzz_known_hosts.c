/*
 * fuzz_known_hosts.c - libFuzzer target for src/ssh/hostkeys.c (known_hosts
 * lines: plain, patterns with ! and ?, [host]:port, hashed |1|salt|hash,
 * @revoked / @cert-authority markers, base64). Each input line is added; a
 * line that fails must say why. Then lookups must not crash, a name hashed by
 * hk_hash_name must match its own entry, and a host whose key was just
 * added is never "unknown".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_lines.h"
#include "ssh/hostkeys.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add_line(const char *line, size_t n, void *ctx)
{
	char *err = NULL;

	(void)n;
	if (hostkeys_add_line(ctx, line, &err) < 0 && !err)
		abort();   /* a refusal names its reason */
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hostkeys *hk = hostkeys_new();
	char algs[512], hashed[80];

	fuzz_lines(data, size, add_line, hk);
	const char *names[] = {"gpu0001", "10.0.0.1", "127.0.0.1", "a.ib", ""};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		hostkeys_check(hk, names[i], 22, "ssh-ed25519", "AAAA");
		hostkeys_check(hk, names[i], 2222, "ssh-rsa", "AAAAB3Nza");
		hostkeys_algorithms(hk, names[i], 22, algs, sizeof algs);
	}
	/* The input's first bytes as a host name: hashed, it matches itself. */
	char name[32];
	size_t n = 0;

	for (size_t i = 0; i < size && n < sizeof name - 1; i++)
		if (data[i] > ' ' && data[i] < 0x7f && data[i] != ',' && data[i] != '[' && data[i] != '|' &&
		    data[i] != '*' && data[i] != '?' && data[i] != '!' && data[i] != '#' && data[i] != '@')
			name[n++] = (char)data[i];
	name[n] = '\0';
	if (n && hk_hash_name(name, hashed, sizeof hashed) == 0) {
		char *err = NULL;

		if (hostkeys_add(hk, hashed, "ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5", &err) < 0)
			abort();
		if (hostkeys_check(hk, name, 22, "ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5") == HK_UNKNOWN)
			abort();
	}
	hostkeys_free(hk);
	return 0;
}
