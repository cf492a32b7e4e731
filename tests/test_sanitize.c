#include <string.h>

#include "check.h"
#include "memz/sanitize.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_utf8_len(void)
{
#define U(s) (const unsigned char *)(s), sizeof(s) - 1
	CHECK_INT(memz_utf8_len(U("a")), 1);
	CHECK_INT(memz_utf8_len(U("\xc3\xa9")), 2);
	CHECK_INT(memz_utf8_len(U("\xe2\x82\xac")), 3);
	CHECK_INT(memz_utf8_len(U("\xf0\x9f\x98\x80")), 4);
	CHECK_INT(memz_utf8_len(U("\xc3")), 0);             /* cut */
	CHECK_INT(memz_utf8_len(U("\xc0\xaf")), 0);         /* overlong */
	CHECK_INT(memz_utf8_len(U("\xe0\x80\xaf")), 0);     /* overlong */
	CHECK_INT(memz_utf8_len(U("\xed\xa0\x80")), 0);     /* surrogate */
	CHECK_INT(memz_utf8_len(U("\xf4\x90\x80\x80")), 0); /* > U+10FFFF */
	CHECK_INT(memz_utf8_len(U("\xff")), 0);
	CHECK_INT(memz_utf8_len(U("\xc3x")), 0);
	CHECK_INT(memz_utf8_len((const unsigned char *)"a", 0), 0);
#undef U
}

int main(void)
{
	char out[64];

	test_utf8_len();
	CHECK_INT(memz_sanitize_id(S("nginx"), out, sizeof out), 5);
	CHECK_STR(out, "nginx");
	memz_sanitize_id(S("a b/c=d\"e\nf"), out, sizeof out);
	CHECK_STR(out, "a_b_c_d_e_f");
	memz_sanitize_id(S(""), out, sizeof out);
	CHECK_STR(out, "_");
	CHECK_INT(memz_sanitize_id(S("0123456789"), out, 5), 4);
	CHECK_STR(out, "0123");

	memz_sanitize_terminal(S("ok\n\x1b[31m\\"), out, sizeof out);
	CHECK_STR(out, "ok\\n\\x1b[31m\\\\");
	memz_sanitize_terminal(S("caf\xc3\xa9 \xff"), out, sizeof out);
	CHECK_STR(out, "caf\xc3\xa9 \\xff");
	/* an escape is never cut in half */
	CHECK_INT(memz_sanitize_terminal(S("ab\x01"), out, 5), 2);
	CHECK_STR(out, "ab");
	/* a UTF-8 sequence is never cut in half */
	CHECK_INT(memz_sanitize_terminal(S("a\xe2\x82\xac"), out, 3), 1);

	memz_sanitize_label(S("x=\"y\" 'z'\t\xc3\xa9\xed\xa0\x80"), out, sizeof out);
	CHECK_STR(out, "x__y_ _z__\xc3\xa9___");
	memz_sanitize_label(S(""), out, sizeof out);
	CHECK_STR(out, "_");
	return check_status();
}
