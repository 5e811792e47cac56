/* test_hanabi_info.c: unit tests of `info`, the hat-guessing information
 * strategy (engine/hanabi/hn_info.c).
 *
 * The strategy may read only what its seat may know. The main test plays
 * many seeded games of both variants, 2 to 5 players and both end rules,
 * and at every turn asks the bot twice: with the masked state (hn_mask, as
 * the server calls it) and with the FULL state (own cards and the undrawn
 * deck present). A bot that reads only what the seat may know chooses the
 * same play, with the same explanation, both times; every play must be
 * legal (hn_judge).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "hanabi/hn.h"

extern const game_ops hanabi_ops;
#define OPS (&hanabi_ops)

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static void start(hn_state *st, int variant, int np, int endrule, uint64_t seed)
{
    game_err e;
    json_t *opt = json_pack("{s:s}", "end", endrule == HN_RULE_STANDARD ? "standard" : "seed");
    assert_int_equal(game_init(OPS, st, variant ? "rainbow" : "standard", np, seed, opt, &e), 0);
    json_decref(opt);
}

/* No card name ("R3", "M5") in an explanation: it is shown to every reader. */
static void assert_public(const char *why)
{
    static regex_t re;
    static int ready;
    if (!ready) {
        assert_int_equal(regcomp(&re, "[RYBGWM][1-5]", REG_EXTENDED | REG_NOSUB), 0);
        ready = 1;
    }
    if (regexec(&re, why, 0, NULL, 0) == 0)
        fail_msg("explanation names a card: %s", why);
    assert_true(strlen(why) > 10);
}

/* Plays one game with every seat `info`; at each turn the masked and the
 * full state must give the same play and explanation. Returns the score. */
static int play_checked(int variant, int np, int endrule, uint64_t seed, long *turns)
{
    static hn_state st, m;
    start(&st, variant, np, endrule, seed);
    while (!st.over) {
        hn_play a, b;
        char wa[320], wb[320];
        int seat = st.cur;
        hn_mask(&st, seat, &m);
        hn_info_bot(&m, seat, &a, wa, sizeof wa);
        hn_info_bot(&st, seat, &b, wb, sizeof wb);
        if (a.type != b.type || a.target != b.target || a.value != b.value || strcmp(wa, wb) != 0)
            fail_msg("variant %d np %d end %d seed %llu turn %d seat %d: masked (%d %d %d) \"%s\" "
                     "but full (%d %d %d) \"%s\"",
                     variant, np, endrule, (unsigned long long)seed, st.nhist, seat, a.type, a.target,
                     a.value, wa, b.type, b.target, b.value, wb);
        char why[200];
        if (!hn_judge(&st, &a, why, sizeof why, NULL))
            fail_msg("illegal play (%d %d %d): %s", a.type, a.target, a.value, why);
        assert_public(wa);
        hn_do(&st, &a);
        (*turns)++;
    }
    return hn_score(&st);
}

static void test_masked_equals_full(void **unused)
{
    (void)unused;
    int per = UNDER_ASAN ? 4 : 25;
    long turns = 0;
    for (int variant = 0; variant < 2; variant++)
        for (int np = 2; np <= 5; np++)
            for (int endrule = 0; endrule < 2; endrule++)
                for (int g = 0; g < per; g++)
                    play_checked(variant, np, endrule, 1000 + 37 * (uint64_t)g + (uint64_t)np, &turns);
    assert_true(turns > 2 * 4 * 2 * per * 40);
}

/* Through the ops table as the server plays it: legal, over, a fair score. */
static void test_strength(void **unused)
{
    (void)unused;
    static hn_state st;
    int games = UNDER_ASAN ? 6 : 60;
    for (int variant = 0; variant < 2; variant++)
        for (int np = 3; np <= 5; np++) {
            long sum = 0;
            for (int g = 0; g < games; g++) {
                game_err e;
                char why[320];
                start(&st, variant, np, HN_RULE_STANDARD, 7 + (uint64_t)g);
                for (int guard = 0; guard < 400 && !st.over; guard++)
                    assert_int_equal(game_bot_play(OPS, &st, "info", NULL, why, sizeof why, &e), 0);
                assert_true(st.over);
                sum += hn_score(&st);
            }
            /* the strategy averages about 24.8+ (25-point game) at 3-5 players */
            double avg = (double)sum / games, max = variant ? 30 : 25;
            if (avg < max - 1.0)
                fail_msg("variant %d np %d: average %.2f", variant, np, avg);
        }
}

/* The bot is a pure function of the state: same state, same play. */
static void test_deterministic(void **unused)
{
    (void)unused;
    static hn_state st, m;
    start(&st, 1, 4, HN_RULE_SEED, 99);
    for (int t = 0; t < 30 && !st.over; t++) {
        hn_play a, b;
        char wa[320], wb[320];
        hn_mask(&st, st.cur, &m);
        hn_info_bot(&m, st.cur, &a, wa, sizeof wa);
        hn_info_bot(&m, st.cur, &b, wb, sizeof wb);
        assert_memory_equal(&a, &b, sizeof a);
        assert_string_equal(wa, wb);
        hn_do(&st, &a);
    }
}

/* A tiny explanation buffer is fine (truncated, never overrun). */
static void test_short_buffer(void **unused)
{
    (void)unused;
    static hn_state st, m;
    start(&st, 0, 3, HN_RULE_STANDARD, 5);
    char why[8];
    memset(why, 'x', sizeof why);
    hn_play p;
    hn_mask(&st, st.cur, &m);
    hn_info_bot(&m, st.cur, &p, why, sizeof why);
    assert_int_equal(why[7], 0);
    assert_true(hn_judge(&st, &p, NULL, 0, NULL));
    hn_info_bot(&m, st.cur, &p, NULL, 0);
    assert_true(hn_judge(&st, &p, NULL, 0, NULL));
}

/* Engine code runs on threads with small stacks: a whole game of calls on
 * a 48 KiB stack (the strategy itself stays within about 16 KiB). */
static void *stack_game(void *arg)
{
    static hn_state st, m;
    int *ok = arg;
    game_err e;
    json_t *opt = json_pack("{s:s}", "end", "standard");
    if (game_init(OPS, &st, "rainbow", 5, 3, opt, &e) != 0)
        return NULL;
    json_decref(opt);
    while (!st.over) {
        hn_play p;
        char why[320];
        hn_mask(&st, st.cur, &m);
        hn_info_bot(&m, st.cur, &p, why, sizeof why);
        if (!hn_judge(&st, &p, NULL, 0, NULL))
            return NULL;
        hn_do(&st, &p);
    }
    *ok = 1;
    return NULL;
}

static void test_small_stack(void **unused)
{
    (void)unused;
    if (UNDER_ASAN)
        skip(); /* sanitizers grow every frame */
    pthread_attr_t at;
    pthread_t th;
    int ok = 0;
    assert_int_equal(pthread_attr_init(&at), 0);
    assert_int_equal(pthread_attr_setstacksize(&at, 48 * 1024), 0);
    assert_int_equal(pthread_create(&th, &at, stack_game, &ok), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&at);
    assert_true(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_equals_full),
        cmocka_unit_test(test_strength),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_short_buffer),
        cmocka_unit_test(test_small_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
