/*
 * test_ui_text.c - the sanitiser and display width (src/ui/text.c): escape
 * sequences of every family vanish whole, controls and invalid UTF-8 never
 * reach the terminal, CJK takes two columns, cuts fall on character
 * boundaries, and the ASCII fallback turns everything else into '?'.
 */
#include <locale.h>
#include "test.h"
#include "ui/text.h"

static const char *clean(const char *s)
{
	static char buf[512];

	setlocale(LC_CTYPE, "C.UTF-8");
	text_utf8 = 1;
	text_sanitize(buf, sizeof buf, s);
	return buf;
}

TEST(ui_text_strips_escape_sequences_whole)
{
	CHECK_STR(clean("\033[31mPWNED\033[0m"), "PWNED");
	CHECK_STR(clean("a\033]0;owned-title\007b"), "ab");              /* OSC, BEL */
	CHECK_STR(clean("a\033]8;;http://x\033\\link\033]8;;\033\\b"), "alinkb");   /* OSC 8, ST */
	CHECK_STR(clean("a\033P1;2|junk\033\\b"), "ab");                   /* DCS */
	CHECK_STR(clean("a\033[2J\033[H\033[?1049hb"), "ab");              /* clear, home, alt screen */
	CHECK_STR(clean("a\033(Bb\0337c"), "abc");                          /* charset, save cursor */
	CHECK_STR(clean("a\xc2\x9b" "31mb"), "ab");                         /* 8-bit CSI */
	CHECK_STR(clean("a\xc2\x9d" "0;t\xc2\x9c" "b"), "ab");              /* 8-bit OSC .. ST */
	CHECK_STR(clean("a\033]0;never ends"), "a");                        /* unterminated */
	CHECK_STR(clean("x\033"), "x");
}

TEST(ui_text_controls_and_invalid_bytes)
{
	CHECK_STR(clean("a\tb\nc\rd"), "a b c d");
	CHECK_STR(clean("bell\007\010\177del"), "belldel");
	CHECK_STR(clean("bad\xff\xfe!"), "bad\xef\xbf\xbd\xef\xbf\xbd!");    /* U+FFFD each */
	CHECK_STR(clean("over\xc0\xaflong"), "over\xef\xbf\xbd\xef\xbf\xbdlong");
	CHECK_STR(clean("cut\xe8\xae"), "cut\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(clean("rtl\xe2\x80\xae" "evil"), "rtlevil");              /* U+202E */
	CHECK_STR(clean("zw\xe2\x80\x8bj"), "zwj");                         /* U+200B */
	CHECK_STR(clean(""), "");
}

TEST(ui_text_width_counts_cjk_as_two)
{
	clean("");
	CHECK_INT(text_width("\xe8\xae\xad\xe7\xbb\x83-llama3-405b"), 2 + 2 + 12);   /* 训练-llama3-405b */
	CHECK_INT(text_width("plain"), 5);
	CHECK_INT(text_width("\033[31mred\033[0m"), 3);
	CHECK_INT(text_width("e\xcc\x81"), 1);                              /* combining mark: zero */
	CHECK_INT(text_cpwidth(0x4e2d), 2);
	CHECK_INT(text_cpwidth('a'), 1);
}

TEST(ui_text_fit_cuts_at_character_boundaries)
{
	const char *s = "\xe8\xae\xad\xe7\xbb\x83-x", *end;   /* 训练-x: widths 2 2 1 1 */

	clean("");
	CHECK_INT(text_fit(s, 3, &end), 2);          /* the second CJK char does not fit */
	CHECK(end == s + 3);
	CHECK_INT(text_fit(s, 4, &end), 4);
	CHECK(end == s + 6);
	CHECK_INT(text_fit(s, 100, &end), 6);
	CHECK(*end == '\0');
	CHECK_INT(text_fit(s, 0, &end), 0);
	CHECK(end == s);
}

TEST(ui_text_sanitize_never_splits_a_character)
{
	char small[6];

	clean("");
	text_sanitize(small, sizeof small, "ab\xe8\xae\xad\xe7\xbb\x83");   /* room for ab + one */
	CHECK_STR(small, "ab\xe8\xae\xad");
	text_sanitize(small, 1, "abc");
	CHECK_STR(small, "");
}

TEST(ui_text_ascii_fallback)
{
	char buf[64];

	clean("");
	text_utf8 = 0;
	text_sanitize(buf, sizeof buf, "\xe8\xae\xad-\033[1mok\xff");
	CHECK_STR(buf, "?-ok?");
	CHECK_INT(text_width("\xe8\xae\xad\xe7\xbb\x83"), 2);
	text_utf8 = 1;
}

TEST(ui_text_utf8_round_trip)
{
	static const uint32_t cps[] = {'A', 0xe9, 0x4e2d, 0x1f600, 0x10ffff};
	char buf[4];
	uint32_t cp;

	for (unsigned i = 0; i < sizeof cps / sizeof cps[0]; i++) {
		int n = utf8_encode(cps[i], buf);

		CHECK_INT(utf8_decode(buf, (size_t)n, &cp), n);
		CHECK_INT(cp, cps[i]);
	}
	CHECK_INT(utf8_decode("\xed\xa0\x80", 3, &cp), 1);   /* a surrogate is invalid */
	CHECK_INT(cp, 0xfffd);
}
