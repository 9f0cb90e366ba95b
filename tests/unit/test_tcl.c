/*
 * test_tcl.c - the command table's consistency (every option in its usage,
 * no duplicate names, acting commands never read-only or safe), the
 * interpreter in-process (eval, completion, time parsing), and the action
 * engine's guards and audit events without Tcl in the way.
 */
#include <string.h>
#include "test.h"
#include "myriad.h"
#include "tcl/tcl_int.h"
#include "action/action.h"

TEST(tcl_table_is_consistent)
{
	for (int i = 0; i < tc_count; i++) {
		const struct tcl_cmd *t = &tc_table[i];
		const char *p = t->opts;

		CHECK(t->fn != NULL);
		CHECK(t->help && *t->help);
		CHECK(t->section >= 0 && t->section < SEC_COUNT);
		CHECK(t->max < 0 || t->max >= t->min);
		for (int k = i + 1; k < tc_count; k++)
			if (!strcmp(t->name, tc_table[k].name)) {
				fprintf(stderr, "  duplicate %s\n", t->name);
				test_failures++;
			}
		if (t->flags & TC_ACTS)
			CHECK(!(t->flags & (TC_RO | TC_SAFE)));
		while (*p) {   /* every option appears in the usage */
			char opt[40];
			size_t len = strcspn(p, " ");

			snprintf(opt, sizeof opt, "-%.*s", (int)(len - (p[len - 1] == '=')), p);
			if (!strstr(t->usage, opt)) {
				fprintf(stderr, "  %s: %s not in usage \"%s\"\n", t->name, opt, t->usage);
				test_failures++;
			}
			p += len;
			p += *p == ' ';
		}
	}
	CHECK(tc_find("node drain") != NULL);
	CHECK(tc_find("node") == NULL);
}

static void start(struct myriad *app)
{
	char *err = NULL;

	app_init(app);
	CHECK(app_add_source(app, "sim", "gpus=256,seed=3", &err) == 0);
	CHECK(tcl_init(app, &err) == 0);
	free(err);
}

static void stop(struct myriad *app)
{
	tcl_free(app);
	app_free(app);
}

static void collect(void *ctx, const char *word)
{
	struct sbuf *b = ctx;

	sbuf_printf(b, "%s|", word);
}

TEST(tcl_eval_and_complete_in_process)
{
	struct myriad app;
	struct sbuf out = {0}, words = {0};

	start(&app);
	CHECK_INT(tcl_eval(&app, "nodes -su 1", &out), 0);
	CHECK_STR(out.s, "gpu[0001-0032]");
	sbuf_reset(&out);
	CHECK_INT(tcl_eval(&app, "node drain", &out), 1);
	CHECK(strstr(out.s, "wrong # args") != NULL);
	sbuf_reset(&out);
	sbuf_reset(&out);
	CHECK_INT(tcl_eval(&app, "advance 5", &out), 0);   /* headless: time passes when asked */
	CHECK_STR(out.s, "5");
	tcl_complete(&app, "node", collect, &words);
	CHECK(strstr(words.s, "node|") && strstr(words.s, "node info|") && strstr(words.s, "node drain|"));
	CHECK(strstr(words.s, "nodes|") && strstr(words.s, "nodeset expand|"));
	sbuf_reset(&words);
	tcl_complete(&app, "job r", collect, &words);
	CHECK_STR(words.s, "job requeue|");
	sbuf_reset(&words);
	tcl_complete(&app, "coro", collect, &words);   /* Tcl's own commands too */
	CHECK_STR(words.s, "coroutine|");
	sbuf_free(&out);
	sbuf_free(&words);
	stop(&app);
}

TEST(tcl_durations_and_times)
{
	struct myriad app;
	int64_t us;

	memset(&app, 0, sizeof app);
	app.start = 1000 * US_PER_SEC;
	app.now = 5000 * US_PER_SEC;
	CHECK(tc_duration("10s", &us) == 0 && us == 10 * US_PER_SEC);
	CHECK(tc_duration("5m", &us) == 0 && us == 300 * US_PER_SEC);
	CHECK(tc_duration("2h", &us) == 0 && us == 7200 * US_PER_SEC);
	CHECK(tc_duration("1d", &us) == 0 && us == 86400 * US_PER_SEC);
	CHECK(tc_duration("500ms", &us) == 0 && us == 500000);
	CHECK(tc_duration("30", &us) == 0 && us == 30 * US_PER_SEC);
	CHECK(tc_duration("", &us) < 0);
	CHECK(tc_duration("10x", &us) < 0);
	CHECK(tc_duration("-5s", &us) < 0);
	CHECK(tc_when(&app, "+60", &us) == 0 && us == 1060 * US_PER_SEC);
	CHECK(tc_when(&app, "-60", &us) == 0 && us == 4940 * US_PER_SEC);
	CHECK(tc_when(&app, "1h", &us) == 0 && us == 1400 * US_PER_SEC);
	CHECK(tc_when(&app, "2026-01-01T00:00:00Z", &us) == 0 && us == 1767225600 * US_PER_SEC);
	CHECK(tc_when(&app, "yesterday", &us) < 0);
}

