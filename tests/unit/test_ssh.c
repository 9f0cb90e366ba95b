/*
 * test_ssh.c - unit tests of the SSH transport's pure parts: shell quoting
 * (checked against a real /bin/sh with hostile words), the in-memory host
 * key store (plain, [host]:port, hashed, wildcard, revoked, changed, other
 * type), HMAC-SHA1 and base64, the inventory commands and the minimal
 * configuration reader.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "tcl/tcl.h"
#include "myriad.h"
#include "ssh/hostkeys.h"
#include "ssh/inventory.h"
#include "ssh/quote.h"

static const char *const hostile[] = {
	"plain", "a'b", "'", "''", "$(id)", "`id`", "; rm -rf /", "a b", "\"q\"", "\\", "*", "~", "-n", "new\nline",
	"$HOME", "", "!x", "#c", "a=b", "%s", "\t", "{a,b}", "[x]", "&", "|", ">f", "\xc3\xa9",
};

static char *sh_echo(const char *quoted)
{
	char *cmd = xasprintf("printf '%%s|' %s", quoted);
	char sh[] = "/bin/sh", dash_c[] = "-c";
	char *argv[] = {sh, dash_c, cmd, NULL};
	int fd[2];
	char buf[4096];
	ssize_t n, len = 0;

	if (pipe(fd) < 0)
		return NULL;
	pid_t pid = fork();

	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + len, sizeof buf - 1 - (size_t)len)) > 0)
		len += n;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	buf[len] = '\0';
	free(cmd);
	return xstrdup(buf);
}

TEST(ssh_quote_survives_a_real_shell)
{
	struct sbuf want = {0};
	char *cmd = sh_command((int)ARRAY_LEN(hostile), (char *const *)hostile);

	for (unsigned i = 0; i < ARRAY_LEN(hostile); i++) {
		sbuf_adds(&want, hostile[i]);
		sbuf_addc(&want, '|');
	}
	char *got = sh_echo(cmd);

	CHECK_STR(got, want.s);
	free(got);
	free(cmd);
	sbuf_free(&want);
	char line[] = "uname -r | cut -d. -f1", *one[] = {line};
	char *single = sh_command(1, one);

	CHECK_STR(single, "uname -r | cut -d. -f1");   /* one word: the operator's own command line */
	free(single);
}

TEST(ssh_hmac_sha1_and_base64)
{
	uint8_t key[20], mac[20], out[64];
	static const uint8_t want[20] = {0xb6, 0x17, 0x31, 0x86, 0x55, 0x05, 0x72, 0x64, 0xe2, 0x8b,
					 0xc0, 0xb6, 0xfb, 0x37, 0x8c, 0x8e, 0xf1, 0x46, 0xbe, 0x00};

	memset(key, 0x0b, sizeof key);
	hk_hmac_sha1(key, sizeof key, (const uint8_t *)"Hi There", 8, mac);   /* RFC 2202, case 1 */
	CHECK(!memcmp(mac, want, 20));
	CHECK_INT(hk_base64_decode("aGVsbG8=", 8, out, sizeof out), 5);
	CHECK(!memcmp(out, "hello", 5));
	CHECK_INT(hk_base64_decode("aGV$bG8=", 8, out, sizeof out), -1);
}

#define KEY_A "AAAAC3NzaC1lZDI1NTE5AAAAIHcbGD2884XpRT9ybHsmm+3OQVhYRhB535ODaL6sb5AH"
#define KEY_B "AAAAC3NzaC1lZDI1NTE5AAAAIL/lW8PnIApEksbnbIZGJLE1Jso2K4jXNQacB1Y6+G1V"

TEST(ssh_hostkeys_plain_ports_patterns_and_hashes)
{
	struct hostkeys *hk = hostkeys_new();
	char *err = NULL;

	CHECK_INT(hostkeys_add_line(hk, "gpu0001,10.0.0.1 ssh-ed25519 " KEY_A " comment", &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "[127.0.0.1]:2222 ssh-ed25519 " KEY_B, &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "*.ib,!bad.ib ssh-ed25519 " KEY_A, &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "|1|AAECAwQFBgcICQoLDA0ODxAREhM=|vnt03nZK+3j/3K0CGv1aadOfBi8= ssh-ed25519 " KEY_B, &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "# a comment", &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "@cert-authority *.x ssh-ed25519 " KEY_A, &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "justonefield", &err), -1);
	free(err);
	CHECK_INT(hostkeys_check(hk, "gpu0001", 22, "ssh-ed25519", KEY_A), HK_OK);
	CHECK_INT(hostkeys_check(hk, "10.0.0.1", 22, "ssh-ed25519", KEY_A), HK_OK);
	CHECK_INT(hostkeys_check(hk, "gpu0001", 22, "ssh-ed25519", KEY_B), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "gpu0001", 22, "ecdsa-sha2-nistp256", "AAAA"), HK_OTHER);
	CHECK_INT(hostkeys_check(hk, "gpu0001", 2222, "ssh-ed25519", KEY_A), HK_UNKNOWN);   /* other port */
	CHECK_INT(hostkeys_check(hk, "127.0.0.1", 2222, "ssh-ed25519", KEY_B), HK_OK);
	CHECK_INT(hostkeys_check(hk, "127.0.0.1", 22, "ssh-ed25519", KEY_B), HK_UNKNOWN);
	CHECK_INT(hostkeys_check(hk, "n1.ib", 22, "ssh-ed25519", KEY_A), HK_OK);
	CHECK_INT(hostkeys_check(hk, "bad.ib", 22, "ssh-ed25519", KEY_A), HK_UNKNOWN);
	CHECK_INT(hostkeys_check(hk, "gpu0007", 22, "ssh-ed25519", KEY_B), HK_OK);        /* hashed */
	CHECK_INT(hostkeys_check(hk, "gpu0007", 22, "ssh-ed25519", KEY_A), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "gpu0008", 22, "ssh-ed25519", KEY_B), HK_UNKNOWN);
	CHECK_INT(hostkeys_add_line(hk, "@revoked * ssh-ed25519 " KEY_B, &err), 0);
	CHECK_INT(hostkeys_check(hk, "127.0.0.1", 2222, "ssh-ed25519", KEY_B), HK_REVOKED);
	char algs[256];

	hostkeys_algorithms(hk, "gpu0001", 22, algs, sizeof algs);
	CHECK(!strncmp(algs, "ssh-ed25519,", 12));
	hostkeys_free(hk);
}

TEST(ssh_hostkeys_are_held_in_memory_once_loaded)
{
	struct hostkeys *hk = hostkeys_new();
	char path[] = "/tmp/myriad-known-hosts.XXXXXX", name[32], *err = NULL;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CHECK(f != NULL);
	if (!f)
		return;
	for (int i = 1; i <= 10240; i++)
		fprintf(f, "gpu%05d ssh-ed25519 %s\n", i, i % 2 ? KEY_A : KEY_B);
	fclose(f);
	CHECK_INT(hostkeys_load_file(hk, path, &err), 10240);
	unlink(path);   /* later checks cannot read the file again */
	for (int i = 1; i <= 10240; i++) {
		snprintf(name, sizeof name, "gpu%05d", i);
		if (hostkeys_check(hk, name, 22, "ssh-ed25519", i % 2 ? KEY_A : KEY_B) != HK_OK)
			test_failures++;
	}
	CHECK_INT((long long)hostkeys_count(hk), 10240);
	hostkeys_free(hk);
}

TEST(ssh_hostkeys_patterns_with_many_stars)
{
	struct hostkeys *hk = hostkeys_new();
	char *err = NULL, pat[200] = "";

	/* 60 stars then a literal that never comes: exponential for a
	 * backtracking matcher, immediate for ours (found by fuzz_known_hosts) */
	for (int i = 0; i < 60; i++)
		strcat(pat, "*");
	strcat(pat, "x.ib ssh-ed25519 " KEY_A);
	CHECK_INT(hostkeys_add_line(hk, pat, &err), 0);
	CHECK_INT(hostkeys_add_line(hk, "gpu?0*1,*.rack?.*,!gpu9* ssh-ed25519 " KEY_B, &err), 0);
	CHECK_INT(hostkeys_check(hk, "gpu0000000000000000000000000000000000000000000000000001", 22, "ssh-ed25519", KEY_B), HK_OK);
	CHECK_INT(hostkeys_check(hk, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax.ib", 22, "ssh-ed25519", KEY_A), HK_OK);
	CHECK_INT(hostkeys_check(hk, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.ib", 22, "ssh-ed25519", KEY_A), HK_UNKNOWN);
	CHECK_INT(hostkeys_check(hk, "gpu001", 22, "ssh-ed25519", KEY_B), HK_OK);
	CHECK_INT(hostkeys_check(hk, "gpu00", 22, "ssh-ed25519", KEY_B), HK_UNKNOWN);   /* no final 1 */
	CHECK_INT(hostkeys_check(hk, "n1.rack3.su1", 22, "ssh-ed25519", KEY_B), HK_OK);
	CHECK_INT(hostkeys_check(hk, "n1.rack.su1", 22, "ssh-ed25519", KEY_B), HK_UNKNOWN);   /* ? is one char */
	CHECK_INT(hostkeys_check(hk, "gpu9001", 22, "ssh-ed25519", KEY_B), HK_UNKNOWN);   /* negated */
	hostkeys_free(hk);
}

static int cmd(struct myriad *app, const char *line)
{
	char *copy = xstrdup(line), *argv[32], *save = NULL, *err = NULL;
	int argc = 0, rc;

	for (char *w = strtok_r(copy, " ", &save); w && argc < 32; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	rc = inventory_command(app, argc, argv, &err);
	free(err);
	free(copy);
	return rc;
}

/* inventory_command() on words that may hold spaces (a Tcl list word). */
static int words_cmd(struct myriad *app, int argc, const char *const *words, char **err)
{
	char *argv[8];
	int rc;

	for (int i = 0; i < argc; i++)
		argv[i] = xstrdup(words[i]);
	rc = inventory_command(app, argc, argv, err);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

/* probe ib -rails: the site's HCA names in rail order (a Tcl list word). */
TEST(ssh_probe_ib_rails_mapping)
{
	struct myriad app;
	char *err = NULL;
	const char *ok[] = {"probe", "ib", "-rails", "mlx5_0 mlx5_1\tmlx5_4  mlx4_0/2"};
	const char *both[] = {"probe", "ib", "-command", "cat /tmp/ib", "-rails", ""};
	const char *dup[] = {"probe", "ib", "-rails", "mlx5_0 mlx5_0"};
	const char *bad[] = {"probe", "ib", "-rails", "mlx5_0 $(reboot)"};
	const char *notib[] = {"probe", "kmsg", "-rails", "mlx5_0"};

	memset(&app, 0, sizeof app);
	CHECK_INT(words_cmd(&app, 4, ok, &err), 0);
	struct inventory *inv = inventory_peek(&app);

	CHECK(inv != NULL);
	if (!inv)
		return;
	CHECK_INT(inv->probes[PROBE_IB].nrails, 4);
	if (inv->probes[PROBE_IB].nrails == 4) {
		CHECK_STR(inv->probes[PROBE_IB].rails[2], "mlx5_4");
		CHECK_STR(inv->probes[PROBE_IB].rails[3], "mlx4_0/2");
	}
	CHECK_INT(words_cmd(&app, 4, dup, &err), -1);
	CHECK(err && strstr(err, "named twice"));
	free(err);
	err = NULL;
	CHECK_INT(words_cmd(&app, 4, bad, &err), -1);
	free(err);
	err = NULL;
	CHECK_INT(words_cmd(&app, 4, notib, &err), -1);
	free(err);
	err = NULL;
	CHECK_INT(inv->probes[PROBE_IB].nrails, 4);   /* a refused line changes nothing */
	CHECK_INT(words_cmd(&app, 6, both, &err), 0);
	CHECK_INT(inv->probes[PROBE_IB].nrails, 0);
	CHECK_STR(inv->probes[PROBE_IB].command, "cat /tmp/ib");
	inventory_free(&app);
}

TEST(ssh_inventory_commands)
{
	struct myriad app;

	memset(&app, 0, sizeof app);
	CHECK_INT(cmd(&app, "host gpu[0001-0004] -user %n -port 2222 -identity /k -hostname 127.0.0.1"), 0);
	CHECK_INT(cmd(&app, "host gpu0003 -port 22 -gpus 4"), 0);   /* a later line overrides */
	struct inventory *inv = inventory_peek(&app);

	CHECK(inv != NULL);
	if (!inv)
		return;
	CHECK_INT(inv->nhosts, 4);
	CHECK_INT(inventory_find(inv, "gpu0003"), 2);
	CHECK_INT(inv->hosts[2].t.port, 22);
	CHECK_INT(inv->hosts[2].gpus, 4);
	CHECK_STR(inv->hosts[1].t.identity, "/k");
	char *u = inv_expand(inv->hosts[1].t.user, inv->hosts[1].t.name);

	CHECK_STR(u, "gpu0002");
	free(u);
	CHECK_INT(cmd(&app, "service slurm -host head01 -user slurmops"), 0);
	CHECK_INT(cmd(&app, "service facility -host bms01 -every 2"), 0);
	CHECK_INT(inv->nservices, 2);
	CHECK_INT(inv->services[0].kind, SVC_SLURM);
	CHECK_INT(inv->services[1].every_us, 2 * US_PER_SEC);
	CHECK(inventory_target(inv, "bms01") == &inv->services[1].t);
	CHECK_INT(cmd(&app, "probe kmsg -command dmesg"), 0);
	CHECK_STR(inv->probes[PROBE_KMSG].command, "dmesg");
	CHECK_INT(cmd(&app, "ssh -accept-new yes -handshakes 32 -connect-timeout 2.5"), 0);
	CHECK_INT(inv->accept_new, 1);
	CHECK_INT(inv->handshakes, 32);
	CHECK_INT(inv->connect_timeout_us, 2500000);
	CHECK_INT(cmd(&app, "host gpu[0001-0002] -user a;b"), -1);     /* not a plain name */
	CHECK_INT(cmd(&app, "host gpu[0001-0002] -hostname -oProxyCommand=x"), -1);
	CHECK_INT(cmd(&app, "host gpu[0001-"), -1);
	CHECK_INT(cmd(&app, "host gpu0001 -port 70000"), -1);
	CHECK_INT(cmd(&app, "service x -host h"), -1);
	CHECK_INT(cmd(&app, "probe nope -command x"), -1);
	CHECK_INT(cmd(&app, "ssh -colour blue"), -1);
	CHECK_INT(cmd(&app, "hostkey h ssh-ed25519"), -1);
	CHECK_INT(inv->nhosts, 4);
	inventory_free(&app);
	CHECK(inventory_peek(&app) == NULL);
}

TEST(ssh_config_read_through_tcl)
{
	struct myriad app;
	char path[] = "/tmp/myriad-unit-conf-XXXXXX", *err = NULL;
	int fd = mkstemp(path);
	const char *text =
		"# written by myriad-sim serve\n"
		"ssh -config none -known-hosts none ; ssh -cluster {my cluster}\n"
		"hostkey {[127.0.0.1]:40000} ssh-ed25519 " KEY_A "\n"
		"host {gpu[0001-0008]} -hostname 127.0.0.1 -port 40000 \\\n  -user %n -identity {/tmp/k}\n"
		"service facility -host bms01 -command {bmsctl power --json}\n"
		"probe nvidia-smi -command \"nvidia-smi -q \\\"x\\\"\"\n";

	memset(&app, 0, sizeof app);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	CHECK_INT(inventory_load_config(&app, path, &err), 0);
	struct inventory *inv = inventory_peek(&app);

	CHECK(inv && inv->nhosts == 8 && inv->nservices == 1);
	if (inv) {
		CHECK_STR(inv->cluster, "my cluster");
		CHECK_STR(inv->services[0].command, "bmsctl power --json");
		CHECK_STR(inv->probes[PROBE_NVSMI].command, "nvidia-smi -q \"x\"");
		CHECK_INT(inv->hosts[7].t.port, 40000);
		CHECK_INT((long long)hostkeys_count(inv->keys), 1);
	}
	inventory_free(&app);
	FILE *f = fopen(path, "w");

	fputs("host {gpu[0001-0002]} -port 22\nhost gpu0003 -port {22\n", f);   /* wrong for Tcl too */
	fclose(f);
	CHECK_INT(inventory_load_config(&app, path, &err), -1);
	CHECK(err != NULL);
	free(err);
	CHECK(inventory_peek(&app) == NULL || inventory_peek(&app)->nhosts == 0);   /* nothing half-applied */
	inventory_free(&app);
	tcl_free(&app);          /* loading started the interpreter on this bare app */
	bus_free(&app.bus);
	unlink(path);
}
