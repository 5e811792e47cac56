/* test_json_out.c: api/json_out.c writes exactly the bytes of jansson's
 * json_dumps(JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY).
 *
 * Reference: jansson itself. Compared on (1) every answer the service
 * builds for every game: the view of every seat, the spectator and the
 * admin, the legal plays, the history and the events, at every position of
 * bot games of every game, variant and a few table sizes; (2) generated
 * values: random trees of every type with strings of random code points
 * (controls, quotes, backslashes, 2-, 3- and 4-byte UTF-8), extreme
 * integers, reals, empty keys; (3) what json_dumps refuses (bytes that are
 * not UTF-8, a cycle) or nests too deep for json_out: the same answer. */
#include <stdint.h>
#include <stdio.h>

#include "testkit.h"
#include "json_out.h"

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void) { return tk_rnd(&rs); }

static void same(const json_t *j, const char *what)
{
    char *want = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
    size_t len = 0;
    char *got = json_out(j, &len);
    if (!want) {
        if (got)
            fail_msg("%s: json_dumps refused, json_out wrote %s", what, got);
    } else {
        if (!got)
            fail_msg("%s: json_out failed where json_dumps wrote %s", what, want);
        if (strcmp(want, got) != 0)
            fail_msg("%s:\n json_dumps %s\n json_out   %s", what, want, got);
        assert_int_equal(len, strlen(want));
    }
    free(want);
    free(got);
    /* json_out_without: as json_dumps of a copy without one member (each
     * member of an object in turn, and a key it does not have) */
    if (json_is_object(j)) {
        const char *key;
        size_t klen;
        json_t *v;
        int k = 0;
        json_object_keylen_foreach((json_t *)j, key, klen, v) {
            if (k++ == 3)
                break;
            if (memchr(key, 0, klen))
                continue; /* json_out_without names the member as a C string */
            json_t *c = json_object(); /* the copy: keys with their lengths */
            const char *k2;
            size_t l2;
            json_t *v2;
            json_object_keylen_foreach((json_t *)j, k2, l2, v2) {
                if (l2 != klen || memcmp(k2, key, klen) != 0)
                    json_object_setn(c, k2, l2, v2);
            }
            char *w = json_dumps(c, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
            char *g = json_out_without(j, key, NULL);
            if ((w == NULL) != (g == NULL) || (w && strcmp(w, g) != 0))
                fail_msg("%s without %s:\n json_dumps %s\n json_out   %s", what, key, w ? w : "(null)",
                         g ? g : "(null)");
            free(w);
            free(g);
            json_decref(c);
        }
        /* json_out_spliced: as json_dumps of a copy whose member (the first,
         * and one it lacks, which the copy gets last) is the text parsed */
        static const char *const splice[] = {"[1,\"\\u00E9\",{\"a\":null}]", "{}", "-3"};
        const char *first = NULL;
        size_t flen = 0;
        json_t *fv;
        json_object_keylen_foreach((json_t *)j, first, flen, fv) break;
        for (int side = 0; side < 2; side++) {
            const char *name = side == 0 ? first : "no such member \x01";
            if (!name || (side == 0 && memchr(first, 0, flen)))
                continue;
            const char *text = splice[rnd() % 3];
            json_t *c = json_object(); /* the copy: keys with their lengths */
            const char *k2;
            size_t l2;
            json_t *v2;
            json_object_keylen_foreach((json_t *)j, k2, l2, v2) {
                int it = l2 == strlen(name) && memcmp(k2, name, l2) == 0;
                json_object_setn_new(c, k2, l2, it ? json_loads(text, JSON_DECODE_ANY, NULL) : json_incref(v2));
            }
            if (side == 1)
                json_object_set_new(c, name, json_loads(text, JSON_DECODE_ANY, NULL));
            char *w = json_dumps(c, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
            size_t glen = 0;
            char *g = json_out_spliced(j, name, text, strlen(text), &glen);
            if ((w == NULL) != (g == NULL) || (w && strcmp(w, g) != 0))
                fail_msg("%s with %s spliced as %s:\n json_dumps %s\n json_out   %s", what, name, text,
                         w ? w : "(null)", g ? g : "(null)");
            if (g)
                assert_int_equal(glen, strlen(g));
            free(w);
            free(g);
            json_decref(c);
        }
        char *w = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
        char *g = json_out_without(j, "no such member \x01", NULL);
        if ((w == NULL) != (g == NULL) || (w && strcmp(w, g) != 0))
            fail_msg("%s without a member it lacks", what);
        free(w);
        free(g);
    }
}

static void check_take(json_t *j, const char *what)
{
    assert_non_null(j);
    same(j, what);
    json_decref(j);
}

/* (1) every answer of every game at every position of bot games */
static void test_every_game_answer(void **unused)
{
    (void)unused;
    long compared = 0;
    char what[160], why[512];
    for (int gi = 0; game_registry[gi]; gi++) {
        const game_ops *o = game_registry[gi];
        for (int vi = 0; o->variants[vi]; vi++) {
            for (int np = o->min_players; np <= o->max_players && np <= o->min_players + 2; np++) {
                void *st = calloc(1, o->state_size);
                assert_non_null(st);
                game_err e;
                memset(&e, 0, sizeof e);
                if (game_init(o, st, o->variants[vi], np, 1000 + (uint64_t)np, NULL, &e) != 0)
                    fail_msg("%s %s %d: init: %s", o->name, o->variants[vi], np, e.detail);
                const char *bot = o->bots[0].name;
                if (game_seating(o, (const char *const[]){bot, bot, bot, bot, bot, bot, bot, bot}, np, &e) != 0)
                    bot = "random";
                for (int step = 0; step < 4000; step++) {
                    game_status s;
                    o->status(st, &s);
                    if (step % 3 == 0 || s.over) {
                        for (int seat = -3; seat < np; seat++) {
                            int who = seat == -3 ? SEAT_ADMIN : seat == -2 ? SEAT_SPECTATOR : seat == -1 ? SEAT_OBSERVER : seat;
                            snprintf(what, sizeof what, "%s %s %dp step %d seat %d", o->name, o->variants[vi], np, step, seat);
                            check_take(o->view(st, who), what);
                            if (seat >= 0)
                                check_take(o->legal(st, who), what);
                            if (o->history)
                                check_take(o->history(st, who), what);
                            if (o->events)
                                check_take(o->events(st, who, 0), what);
                            compared++;
                        }
                        check_take(o->encode(st), "encode");
                    }
                    if (s.over)
                        break;
                    json_t *rec = NULL;
                    if (game_bot_play(o, st, bot, &rec, why, sizeof why, &e) != 0)
                        fail_msg("%s: bot %s: %s", o->name, bot, e.detail);
                    if (rec)
                        check_take(rec, "record");
                }
                free(st);
            }
        }
    }
    printf("  compared %ld positions x readers\n", compared);
    assert_true(compared > 1000);
}

/* (2) generated values */
static void test_generated_values(void **unused)
{
    (void)unused;
    char what[48];
    for (int i = 0; i < 20000; i++) {
        snprintf(what, sizeof what, "generated value %d", i);
        check_take(tk_rnd_value(&rs, 0, 7, 1, 1, 0), what);
    }
}

/* (2b) values held in several places of one tree (json_out writes such a
 * value once and copies its text to its later places): more distinct
 * shared values than it keeps, and a shared value met both near the top and
 * past JSON_OUT_MAX_DEPTH, in either order (json_dumps's bytes each time) */
static void test_shared_values(void **unused)
{
    (void)unused;
    json_t *top = json_array();
    for (int i = 0; i < 40; i++) {
        json_t *v = json_pack("{s:i,s:[s,i],s:{}}", "k", i, "a", "x\"y\u00e9", i * 7, "o");
        for (int k = 0; k < 3; k++)
            json_array_append(top, v);
        /* and every one holds the first (shared twice over) */
        json_object_set(json_object_get(v, "o"), "first",
                        json_array_get(top, 0) == v ? json_null() : json_array_get(top, 0));
        json_decref(v);
    }
    check_take(json_incref(top), "40 shared values, 3 places each");
    json_t *leaf = json_pack("[[[s]]]", "leaf"); /* 3 levels of its own */
    json_t *deep = json_incref(leaf);
    for (int i = 0; i < JSON_OUT_MAX_DEPTH - 3; i++)
        deep = json_pack("[o]", deep);
    check_take(json_pack("[O,o]", leaf, deep), "shared, shallow then too deep");
    deep = json_incref(leaf);
    for (int i = 0; i < JSON_OUT_MAX_DEPTH - 6; i++)
        deep = json_pack("[o]", deep);
    check_take(json_pack("[o,O]", deep, leaf), "shared, deep then shallow");
    json_decref(leaf);
    json_decref(top);
}

/* (3) what json_dumps refuses, and the depth limit */
static void test_refusals_and_depth(void **unused)
{
    (void)unused;
    /* bytes that are not UTF-8, through jansson's unchecked constructors */
    static const char *bad[] = {"\xff", "a\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "ok\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_take(json_string_nocheck(bad[i]), "invalid UTF-8 string");
        json_t *o = json_object();
        json_object_set_new_nocheck(o, bad[i], json_true());
        check_take(json_pack("[o]", o), "invalid UTF-8 key");
    }
    /* a cycle: both refuse */
    json_t *a = json_array(), *b = json_array();
    json_array_append(a, b);
    json_array_append(b, a);
    char *t = json_out(a, NULL);
    assert_null(t);
    assert_null(json_dumps(a, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY));
    json_array_clear(b);
    json_decref(a);
    json_decref(b);
    /* deeper than JSON_OUT_MAX_DEPTH: json_dumps's own answer */
    json_t *deep = json_string("bottom");
    for (int i = 0; i < JSON_OUT_MAX_DEPTH * 2; i++)
        deep = i % 2 ? json_pack("[o]", deep) : json_pack("{s:o}", "k", deep);
    check_take(deep, "nested 128 deep");
    assert_null(json_out(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_game_answer),
        cmocka_unit_test(test_generated_values),
        cmocka_unit_test(test_shared_values),
        cmocka_unit_test(test_refusals_and_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
