/* test_json_arena.c: a request's JSON values in blocks (api/json_arena.c).
 *
 * The hooks are installed as the server installs them; each test brackets
 * its values with json_arena_begin()/json_arena_end() as api_handle() does.
 * What is checked: values made inside come from the blocks (json_decref of
 * them does not reach free(), and a value made after end() does not land in
 * a freed block); text from json_text() is free()'s to take (the release
 * build would abort on a bad free, ASan names it); a request that outgrows
 * its 112 KB of blocks takes more from the budget shared by all threads
 * (8 MB), gives them back at json_arena_end(), and past the budget goes on
 * with malloc, json_arena_release() then freeing its tree value by value
 * (LeakSanitizer names a leak otherwise); values made outside any request are plain
 * malloc. The ASan build of this test also reports any use of a block after
 * json_arena_end() (the blocks are freed, not reused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../api/json_arena.h"

/* A value of n members, each a string of len bytes. */
static json_t *object_of(int n, size_t len)
{
    json_t *o = json_object();
    char *s = malloc(len + 1);
    memset(s, 'x', len);
    s[len] = 0;
    for (int i = 0; i < n; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        json_object_set_new(o, key, json_string(s));
    }
    free(s);
    return o;
}

static void test_values_in_blocks(void **state)
{
    (void)state;
    json_arena_begin();
    json_t *a = object_of(50, 20);
    json_t *b = object_of(50, 20);
    /* bump allocation: b's values follow a's in the same block */
    const char *pa = json_string_value(json_object_get(a, "k0"));
    const char *pb = json_string_value(json_object_get(b, "k0"));
    assert_true(pb > pa && pb - pa < 32 * 1024);
    char *t = json_text(a, JSON_COMPACT);
    assert_non_null(t);
    assert_non_null(strstr(t, "\"k49\":\"xxxxxxxxxxxxxxxxxxxx\""));
    free(t); /* malloc'd text: a block address would abort here */
    json_decref(a);
    json_decref(b);
    json_arena_end();
}

static void test_outside_a_request(void **state)
{
    (void)state;
    json_arena_begin();
    json_t *in = object_of(10, 10);
    json_decref(in);
    json_arena_end();
    /* after end(): plain malloc, freed on decref (LeakSanitizer would name
     * it otherwise), usable after a later request's end() */
    json_t *out = object_of(10, 10);
    json_arena_begin();
    json_t *mid = object_of(10, 10);
    json_arena_release(mid);
    json_arena_end();
    assert_string_equal(json_string_value(json_object_get(out, "k9")), "xxxxxxxxxx");
    json_decref(out);
}

static void test_hold_gives_malloc(void **state)
{
    (void)state;
    json_arena_begin();
    int held = json_arena_hold();
    json_t *h = json_string("made while held: malloc, kept past end()");
    json_arena_resume(held);
    json_t *in = json_string("in a block");
    json_decref(in);
    json_arena_end();
    assert_string_equal(json_string_value(h), "made while held: malloc, kept past end()");
    json_decref(h);
}

/* ~600 KB of values: past the first 112 KB, blocks from the shared budget */
static json_t *big_tree(int n)
{
    json_t *big = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(big, object_of(100, 1000));
    return big;
}

static void test_past_the_first_blocks(void **state)
{
    (void)state;
    assert_int_equal(json_arena_shared(), 0);
    json_arena_begin();
    json_t *big = big_tree(6);
    size_t used = json_arena_shared();
    assert_true(used >= 400 * 1024 && used <= 8 * 1024 * 1024);
    assert_int_equal(json_string_length(json_object_get(json_array_get(big, 5), "k99")), 1000);
    json_arena_release(big); /* in blocks: nothing to walk */
    json_arena_end();
    assert_int_equal(json_arena_shared(), 0); /* given back */
}

static void test_spill_past_the_budget(void **state)
{
    (void)state;
    json_arena_begin();
    /* ~9.6 MB: the budget (8 MB) runs out, the rest from malloc */
    json_t *big = big_tree(96);
    assert_true(json_arena_shared() <= 8 * 1024 * 1024);
    assert_int_equal(json_array_size(big), 96);
    assert_int_equal(json_string_length(json_object_get(json_array_get(big, 95), "k99")), 1000);
    json_arena_release(big); /* spilled: freed value by value (no leak) */
    json_arena_end();
    assert_int_equal(json_arena_shared(), 0);
}

/* Without the hooks (json_arena_install not called yet), json_arena_release
 * must free the tree: LeakSanitizer names it otherwise (test_stack runs
 * api_handle() that way). Runs first. */
static long g_live; /* blocks malloc'd and not yet freed by counting_* */
static void *counting_malloc(size_t n)
{
    g_live++;
    return malloc(n);
}
static void counting_free(void *p)
{
    if (p)
        g_live--;
    free(p);
}

static void test_release_without_hooks(void **state)
{
    (void)state;
    json_set_alloc_funcs(counting_malloc, counting_free);
    g_live = 0;
    json_arena_begin();
    json_t *v = object_of(20, 20);
    assert_true(g_live > 20); /* the object, its table, 20 keys and strings */
    json_arena_release(v);
    json_arena_end();
    json_set_alloc_funcs(malloc, free);
    assert_int_equal(g_live, 0); /* every block given back */
}

static int install(void **state)
{
    (void)state;
    json_arena_install();
    return 0;
}

int main(void)
{
    const struct CMUnitTest plain[] = {
        cmocka_unit_test(test_release_without_hooks),
    };
    if (cmocka_run_group_tests(plain, NULL, NULL))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_in_blocks),
        cmocka_unit_test(test_outside_a_request),
        cmocka_unit_test(test_hold_gives_malloc),
        cmocka_unit_test(test_past_the_first_blocks),
        cmocka_unit_test(test_spill_past_the_budget),
    };
    return cmocka_run_group_tests(tests, install, NULL);
}
