/* test_jsonx.c: the engine's JSON helpers that run on every request before
 * anything is known to be wrong (engine/core/jsonx.c).
 *
 * jx_nested_deeper, the depth scan on the raw bytes before jansson parses
 * them, against the plain byte-by-byte scan it replaced (kept here as the
 * reference): the same answer for 300,000 random texts made of the bytes
 * that matter (brackets, quotes, backslashes) at random limits, and for
 * the cases written out. jx_fail_at, which puts a member's place in front
 * of a pointer found relative to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/jsonx.h"

/* The scan as it was written first: every byte compared. */
static int ref_deeper(const char *s, size_t n, int limit)
{
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return 1;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return 0;
}

static void test_deeper_cases(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int limit, want;
    } cases[] = {
        {"", 0, 0},
        {"[]", 0, 1},
        {"[]", 1, 0},
        {"[[]]", 1, 1},
        {"[[]]", 2, 0},
        {"[{}, [{}]]", 2, 1},
        {"[{}, [{}]]", 3, 0},
        {"\"[[[\"", 0, 0},             /* brackets in a string */
        {"[\"\\\"[[\"]", 1, 0},        /* an escaped quote does not end it */
        {"[\"\\\\\"[]]", 1, 1},        /* an escaped backslash does: then [ */
        {"[\"\\\\\"[]]", 2, 0},
        {"\"unterminated [[[", 0, 0}, /* the parser's to refuse */
        {"\"ends in a backslash\\", 0, 0},
        {"]]]][[", 0, 0},             /* closers first: not this scan's to judge */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].text);
        int got = jx_nested_deeper(cases[i].text, n, cases[i].limit);
        if (got != cases[i].want)
            fail_msg("%s at limit %d: %d, want %d", cases[i].text, cases[i].limit, got,
                     cases[i].want);
        assert_int_equal(got, ref_deeper(cases[i].text, n, cases[i].limit));
    }
}

static void test_deeper_random(void **state)
{
    (void)state;
    static const char alphabet[] = "[]{}\"\\a,[\"";
    uint64_t x = 0x9E3779B97F4A7C15u;
    char text[80];
    int deeper = 0;
    for (int t = 0; t < 300000; t++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = (size_t)(x % sizeof text);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            text[i] = alphabet[x % (sizeof alphabet - 1)];
        }
        int limit = (int)(x >> 40) % 8;
        int got = jx_nested_deeper(text, n, limit), want = ref_deeper(text, n, limit);
        if (got != want)
            fail_msg("%.*s at limit %d: %d, want %d", (int)n, text, limit, got, want);
        deeper += got;
    }
    /* both answers came up often (the texts are not all of one kind) */
    assert_true(deeper > 30000 && deeper < 270000);
}

static void test_fail_at(void **state)
{
    (void)state;
    game_err e = {0};
    err_set(&e, ERR_BAD_MEMBER, "", "expected a card");
    assert_int_equal(jx_fail_at(&e, 3, (size_t[]){3, 1, 0}), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/3/1/0");
    assert_string_equal(e.detail, "expected a card");
    err_set(&e, ERR_BAD_MEMBER, "/2", "expected a card");
    jx_fail_at(&e, 2, (size_t[]){4, 12});
    assert_string_equal(e.pointer, "/4/12/2");
    assert_int_equal(jx_fail_at(NULL, 1, (size_t[]){0}), ERR_BAD_MEMBER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deeper_cases),
        cmocka_unit_test(test_deeper_random),
        cmocka_unit_test(test_fail_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
