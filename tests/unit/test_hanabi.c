/* test_hanabi.c: unit tests of Hanabi (engine/hanabi).
 *
 * Positions are built with rig(): a game started (hn_start) from a deck
 * whose first cards are given (the hands, dealt player by player from
 * player 0, then the draws) and whose rest is the remaining cards of the
 * variant, so every rigged state is one the rules can reach and decode()
 * accepts. Plays go through the ops table, as api/ calls them. Hanabi
 * has no autograder functions, so its examples stay here as C scenarios;
 * the guarantees every game keeps (round trips, determinism, refusals,
 * legal vs check, bots legal, views) are test_games.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "hanabi/hn.h"

extern const game_ops hanabi_ops;
#define OPS (&hanabi_ops)

/* --- helpers --------------------------------------------------------------- */

static json_t *J(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
    if (!j)
        fail_msg("bad test JSON: %s in %s", err.text, text);
    return j;
}

#include "hanabi_rig.h"


static int apply_text(hn_state *st, int seat, const char *play, json_t **rec, game_err *e)
{
    json_t *p = J(play);
    memset(e, 0, sizeof *e);
    int rc = game_apply(OPS, st, seat, p, rec, e);
    json_decref(p);
    return rc;
}

static void ok(hn_state *st, int seat, const char *play)
{
    game_err e;
    int rc = apply_text(st, seat, play, NULL, &e);
    if (rc)
        fail_msg("apply %s: %d %s (%s)", play, rc, e.detail, e.rule);
}

/* An illegal play: ERR_ILLEGAL with `rule`, state bytes unchanged. */
static void illegal(hn_state *st, int seat, const char *play, const char *rule)
{
    static hn_state before;
    game_err e;
    game_verdict v;
    memcpy(&before, st, sizeof before);
    json_t *p = J(play);
    assert_int_equal(game_judge(OPS, st, seat, p, NULL, &v, &e), 0);
    assert_false(v.valid);
    assert_string_equal(v.rule, rule);
    json_decref(p);
    int rc = apply_text(st, seat, play, NULL, &e);
    if (rc != ERR_ILLEGAL || strcmp(e.rule, rule) != 0)
        fail_msg("%s: rc %d rule %s (%s), expected %s", play, rc, e.rule, e.detail, rule);
    assert_memory_equal(&before, st, sizeof before);
}

/* A malformed play: ERR_BAD_MEMBER at `pointer`, state unchanged. */
static void malformed(hn_state *st, int seat, const char *play, const char *pointer)
{
    static hn_state before;
    game_err e;
    memcpy(&before, st, sizeof before);
    int rc = apply_text(st, seat, play, NULL, &e);
    if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, pointer) != 0)
        fail_msg("%s: rc %d pointer \"%s\" (%s), expected \"%s\"", play, rc, e.pointer, e.detail, pointer);
    assert_memory_equal(&before, st, sizeof before);
}

static char *text_of(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
    json_decref(j);
    return s;
}

static int C(const char *s)
{
    int c = hn_card_parse(s, 6);
    assert_true(c > 0);
    return c;
}

static void play_game(hn_state *st, const char *variant, int np, uint64_t seed, const char *bot,
                      const char *end)
{
    game_err e;
    char why[320];
    json_t *opt = json_pack("{s:s}", "end", end);
    assert_int_equal(game_init(OPS, st, variant, np, seed, opt, &e), 0);
    json_decref(opt);
    for (int guard = 0; guard < 400 && !st->over; guard++)
        assert_int_equal(game_bot_play(OPS, st, bot, NULL, why, sizeof why, &e), 0);
    assert_true(st->over);
}

/* --- deck, deal ---------------------------------------------------------- */

static void test_deck_and_deal(void **unused)
{
    (void)unused;
    static hn_state st;
    game_err e;
    int firsts[HN_MAXP] = {0};
    for (int v = 0; v < 2; v++)
        for (int np = 2; np <= 5; np++)
            for (uint64_t seed = 1; seed <= 20; seed++) {
                assert_int_equal(game_init(OPS, &st, v ? "rainbow" : "standard", np, seed, NULL, &e), 0);
                int count[31] = {0};
                assert_int_equal(st.ndeck, v ? 60 : 50);
                for (int i = 0; i < st.ndeck; i++)
                    count[st.deck[i]]++;
                for (int s = 0; s < 6; s++)
                    for (int r = 1; r <= 5; r++)
                        assert_int_equal(count[hn_card(s, r)], s < 5 || v ? hn_copies(r) : 0);
                int hs = np <= 3 ? 5 : 4;
                for (int p = 0; p < np; p++) {
                    assert_int_equal(st.nhand[p], hs);
                    for (int i = 0; i < hs; i++) /* player by player */
                        assert_int_equal(st.hand[p][i], st.deck[p * hs + i]);
                }
                assert_int_equal(st.next, np * hs);
                assert_int_equal(st.hints, 8);
                assert_int_equal(st.errors, 0);
                assert_int_equal(st.cur, st.first);
                assert_true(st.first < np);
                if (np == 5)
                    firsts[st.first]++;
                game_status s;
                OPS->status(&st, &s);
                assert_int_equal(s.max_score, v ? 30 : 25);
                assert_int_equal(s.winner, -1);
                assert_string_equal(s.result, "playing");
            }
    for (int p = 0; p < 5; p++) /* the seed picks the starting player */
        assert_true(firsts[p] > 0);
    assert_int_equal(game_init(OPS, &st, "standard", 1, 1, NULL, &e), ERR_BAD_MEMBER);
    assert_int_equal(game_init(OPS, &st, "standard", 6, 1, NULL, &e), ERR_BAD_MEMBER);
    assert_int_equal(game_init(OPS, &st, "bonus", 2, 1, NULL, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/variant");
}

static void test_options(void **unused)
{
    (void)unused;
    static hn_state st;
    game_err e;
    json_t *o = J("{\"end\":\"standard\"}");
    assert_int_equal(game_init(OPS, &st, "standard", 3, 9, o, &e), 0);
    assert_int_equal(st.endrule, HN_RULE_STANDARD);
    json_decref(o);
    o = J("{\"end\":\"seed\"}");
    assert_int_equal(game_init(OPS, &st, "standard", 3, 9, o, &e), 0);
    assert_int_equal(st.endrule, HN_RULE_SEED);
    json_decref(o);
    assert_int_equal(game_init(OPS, &st, "standard", 3, 9, json_null(), &e), 0);
    const char *bad[][2] = {{"{\"foo\":1}", "/options/foo"},
                            {"{\"end\":\"hanab\"}", "/options/end"},
                            {"{\"end\":1}", "/options/end"},
                            {"{\"end\":null}", "/options/end"},
                            {"[]", "/options"},
                            {"{\"end\":\"seed\",\"a/b\":1}", "/options/a~1b"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = J(bad[i][0]);
        assert_int_equal(game_init(OPS, &st, "standard", 3, 9, o, &e), ERR_BAD_MEMBER);
        assert_string_equal(e.pointer, bad[i][1]);
        json_decref(o);
    }
}

/* --- actions -------------------------------------------------------------- */

#define P0 "R1 R2 Y1 B1 G1 "
#define P1 "W1 W2 R3 B1 G5 "

static void test_hints(void **unused)
{
    (void)unused;
    static hn_state st;
    json_t *rec;
    game_err e;
    rig(&st, 0, 2, 0, 0, P0 P1);
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":0,\"color\":\"R\"}", "hint.self");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":2,\"number\":1}", "hint.target");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":-1,\"number\":1}", "hint.target");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"Y\"}", "hint.empty");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"number\":4}", "hint.empty");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"M\"}", "hint.rainbow");
    illegal(&st, 0, "{\"actionType\":0,\"target\":1,\"color\":5}", "hint.rainbow");
    assert_int_equal(apply_text(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"W\"}", &rec, &e), 0);
    char *s = text_of(rec);
    assert_string_equal(s, "{\"n\":1,\"play\":{\"color\":\"W\",\"target\":1,\"type\":\"hint\"},\"seat\":0,\"touched\":[0,1],\"turn_ending\":true}");
    free(s);
    assert_int_equal(st.hints, 7);
    assert_int_equal(st.cur, 1);
    /* knowledge: touched and not */
    assert_int_equal(st.know[1][0].pos_col, 1 << 4);
    assert_int_equal(st.know[1][2].neg_col, 1 << 4);
    ok(&st, 1, "{\"type\":\"hint\",\"target\":0,\"number\":1}");
    assert_int_equal(st.know[0][0].pos_num, 1 << 1);
    assert_int_equal(st.know[0][1].neg_num, 1 << 1);
    /* no tokens */
    st.hints = 0;
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"number\":5}", "hint.no-tokens");
    illegal(&st, 0, "{\"actionType\":1,\"target\":1,\"number\":5}", "hint.no-tokens");
}

static void test_rainbow_hints(void **unused)
{
    (void)unused;
    static hn_state st;
    json_t *rec;
    game_err e;
    /* player 1 holds one rainbow card and no red, yellow or blue */
    rig(&st, 1, 2, 0, 0, "R1 R2 Y1 B1 G1 M3 W2 G2 W1 G4");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"M\"}", "hint.rainbow");
    /* every colour hint touches the rainbow card, even a colour they lack */
    for (int c = 0; c < 5; c++) {
        static hn_state t;
        memcpy(&t, &st, sizeof t);
        json_t *p = json_pack("{s:i,s:i,s:i}", "actionType", 0, "target", 1, "color", c);
        assert_int_equal(game_apply(OPS, &t, 0, p, &rec, &e), 0);
        json_decref(p);
        json_t *touched = json_object_get(rec, "touched");
        assert_int_equal(json_integer_value(json_array_get(touched, 0)), 0);
        if (c == 3) /* green: the rainbow card and the two greens */
            assert_int_equal(json_array_size(touched), 3);
        else if (c == 4)
            assert_int_equal(json_array_size(touched), 3);
        else
            assert_int_equal(json_array_size(touched), 1);
        json_decref(rec);
        /* the touched card may be that colour or rainbow */
        json_t *v = OPS->view(&t, 1);
        json_t *card0 = json_array_get(json_array_get(json_object_get(v, "hands"), 1), 0);
        json_t *cols = json_object_get(json_object_get(card0, "possible"), "colors");
        char *s = json_dumps(cols, JSON_COMPACT);
        char expect[32];
        snprintf(expect, sizeof expect, "[\"%c\",\"M\"]", hn_color_letter(c));
        assert_string_equal(s, expect);
        free(s);
        json_decref(v);
    }
    /* a player holding only non-matching cards: hint.empty still applies */
    rig(&st, 1, 2, 0, 0, "R1 R2 Y1 B1 G1 W3 W2 G2 W1 G4");
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"R\"}", "hint.empty");
    /* standard variant: no rainbow suit, M can't be named either */
    rig(&st, 0, 2, 0, 0, P0 P1);
    illegal(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"M\"}", "hint.rainbow");
    /* played rainbow cards form their own pile */
    rig(&st, 1, 2, 0, 0, "M1 M2 Y1 B1 G1 M3 W2 G2 W1 G4");
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}");
    assert_int_equal(st.fire[HN_RAINBOW], 1);
    assert_int_equal(st.fire[0], 0);
}

static void test_discard_and_draw_order(void **unused)
{
    (void)unused;
    static hn_state st;
    json_t *rec;
    game_err e;
    rig(&st, 0, 2, 0, 0, P0 P1 "B4 B5");
    illegal(&st, 0, "{\"type\":\"discard\",\"card\":1}", "discard.full-tokens");
    illegal(&st, 0, "{\"actionType\":2,\"target\":1}", "discard.full-tokens");
    ok(&st, 0, "{\"type\":\"hint\",\"target\":1,\"number\":5}");
    illegal(&st, 1, "{\"type\":\"discard\",\"card\":5}", "card.index");
    illegal(&st, 1, "{\"type\":\"discard\",\"card\":-1}", "card.index");
    illegal(&st, 1, "{\"type\":\"play\",\"card\":99999999999}", "card.index");
    /* player 1 discards W2 (index 1): the later cards move left, B4 appended */
    st.know[1][2].pos_num = 1 << 3; /* a mark to follow the card */
    assert_int_equal(apply_text(&st, 1, "{\"type\":\"discard\",\"card\":1}", &rec, &e), 0);
    char *s = text_of(rec);
    assert_string_equal(s, "{\"card\":\"W2\",\"drew\":\"??\",\"n\":2,\"play\":{\"card\":1,\"type\":\"discard\"},\"seat\":1,\"turn_ending\":true}");
    free(s);
    assert_int_equal(st.hints, 8);
    assert_int_equal(st.ndisc, 1);
    assert_int_equal(st.disc[0], C("W2"));
    assert_int_equal(st.nhand[1], 5);
    assert_int_equal(st.hand[1][0], C("W1"));
    assert_int_equal(st.hand[1][1], C("R3"));
    assert_int_equal(st.know[1][1].pos_num, 1 << 3);
    assert_int_equal(st.hand[1][4], C("B4"));
    assert_int_equal(st.know[1][4].pos_num, 0);
    /* the others see what was drawn; the drawer does not, nor a spectator
     * (no hand card is public); an observer ("spectators": "all") does */
    json_t *h0 = OPS->history(&st, 0), *h1 = OPS->history(&st, 1), *hs = OPS->history(&st, SEAT_SPECTATOR),
           *ho = OPS->history(&st, SEAT_OBSERVER);
    assert_string_equal(json_string_value(json_object_get(json_array_get(h0, 1), "drew")), "B4");
    assert_string_equal(json_string_value(json_object_get(json_array_get(h1, 1), "drew")), "??");
    assert_string_equal(json_string_value(json_object_get(json_array_get(hs, 1), "drew")), "??");
    assert_string_equal(json_string_value(json_object_get(json_array_get(ho, 1), "drew")), "B4");
    assert_string_equal(json_string_value(json_object_get(json_array_get(hs, 1), "card")), "W2"); /* public */
    json_decref(h0);
    json_decref(h1);
    json_decref(hs);
    json_decref(ho);
}

static void test_play_rules(void **unused)
{
    (void)unused;
    static hn_state st;
    json_t *rec;
    game_err e;
    rig(&st, 0, 2, 0, 0, "R1 R2 R3 R4 R5 Y2 Y1 B1 G1 W1");
    /* correct 1 on an empty pile */
    assert_int_equal(apply_text(&st, 0, "{\"type\":\"play\",\"card\":0}", &rec, &e), 0);
    assert_true(json_is_true(json_object_get(rec, "correct")));
    assert_string_equal(json_string_value(json_object_get(rec, "card")), "R1");
    json_decref(rec);
    assert_int_equal(st.fire[0], 1);
    /* a wrong play: discarded, +1 error */
    assert_int_equal(apply_text(&st, 1, "{\"type\":\"play\",\"card\":0}", &rec, &e), 0);
    assert_true(json_is_false(json_object_get(rec, "correct")));
    json_decref(rec);
    assert_int_equal(st.errors, 1);
    assert_int_equal(st.disc[0], C("Y2"));
    assert_int_equal(st.fire[1], 0);
    assert_int_equal(st.hints, 8);
    /* the seed's numeric form: 3 = play */
    ok(&st, 0, "{\"actionType\":3,\"target\":0,\"color\":null,\"number\":null}"); /* R2 */
    ok(&st, 1, "{\"actionType\":3,\"target\":0,\"color\":-1}");                   /* Y1 */
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}");                                  /* R3 */
    ok(&st, 1, "{\"type\":\"hint\",\"target\":0,\"number\":4}");
    assert_int_equal(st.hints, 7);
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}"); /* R4 */
    ok(&st, 1, "{\"type\":\"hint\",\"target\":0,\"number\":5}");
    assert_int_equal(st.hints, 6);
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}"); /* R5: a token back */
    assert_int_equal(st.fire[0], 5);
    assert_int_equal(st.hints, 7);
    assert_int_equal(hn_score(&st), 6);
    /* at 8 tokens the bonus is lost (capped): R1-R4 played, the partner
     * playing a 1 each turn, no token spent */
    rig(&st, 0, 2, 0, 0, "R1 R2 R3 R4 R5 Y1 B1 G1 W1 Y2");
    for (int i = 0; i < 4; i++) {
        ok(&st, 0, "{\"type\":\"play\",\"card\":0}"); /* R1..R4 */
        ok(&st, 1, "{\"type\":\"play\",\"card\":0}"); /* Y1, B1, G1, W1 */
    }
    assert_int_equal(st.fire[0], 4);
    assert_int_equal(st.hints, 8);
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}"); /* R5 */
    assert_int_equal(st.fire[0], 5);
    assert_int_equal(st.hints, 8);
}

static void test_errors_end_keeps_score(void **unused)
{
    (void)unused;
    static hn_state st;
    rig(&st, 0, 3, 0, 1, "Y1 Y1 Y1 Y2 Y2 R1 R2 R3 B3 B4 G1 G3 G4 W3 W4");
    ok(&st, 1, "{\"type\":\"play\",\"card\":0}"); /* R1 */
    ok(&st, 2, "{\"type\":\"play\",\"card\":0}"); /* G1 */
    ok(&st, 0, "{\"type\":\"play\",\"card\":3}"); /* Y2: wrong */
    ok(&st, 1, "{\"type\":\"play\",\"card\":2}"); /* B3: wrong */
    assert_int_equal(st.errors, 2);
    assert_false(st.over);
    ok(&st, 2, "{\"type\":\"play\",\"card\":2}"); /* W3: wrong, the 3rd error */
    assert_true(st.over);
    assert_int_equal(st.reason, HN_END_ERRORS);
    game_status s;
    OPS->status(&st, &s);
    assert_string_equal(s.result, "errors");
    for (int p = 0; p < 3; p++)
        assert_true(s.score[p] == 2.0); /* the field still counts */
    assert_int_equal(s.turns, 5);
    assert_int_equal(s.to_move, -1);
    game_err e;
    game_verdict v;
    json_t *p = J("{\"type\":\"play\",\"card\":0}");
    assert_int_equal(game_judge(OPS, &st, 0, p, NULL, &v, &e), ERR_GAME_OVER);
    json_decref(p);
    json_t *legal = OPS->legal(&st, 0);
    assert_int_equal(json_array_size(legal), 0);
    json_decref(legal);
}

static void test_all_fives_end(void **unused)
{
    (void)unused;
    static hn_state st;
    for (int v = 0; v < 2; v++) {
        rig(&st, v, 2, 0, 0, v ? "R5 Y5 B5 G5 W5 M5 R1 R1 Y1 Y1" : "R5 Y5 B5 G5 W5 R1 R1 Y1 Y1 B1");
        rig_fireworks(&st, 4);
        int turns = 0;
        while (!st.over) {
            if (st.cur == 0 || st.hand[1][0] == C("M5"))
                ok(&st, st.cur, "{\"type\":\"play\",\"card\":0}");
            else
                ok(&st, 1, "{\"type\":\"hint\",\"target\":0,\"number\":5}");
            turns++;
        }
        assert_int_equal(turns, 9); /* p0 plays its five 5s on turns 1, 3, .. 9 */
        int n = st.nsuits;
        assert_true(st.over);
        assert_int_equal(st.reason, HN_END_FIVES);
        assert_int_equal(hn_score(&st), 5 * n);
        game_status s;
        OPS->status(&st, &s);
        assert_string_equal(s.result, "all-fives");
        assert_true(s.score[0] == s.max_score);
    }
}

/* Policy: discard the oldest card when allowed, else hint number of the
 * next player's first card. Never errs, never plays. */
static void discard_policy(hn_state *st)
{
    game_err e;
    json_t *p;
    if (st->hints < 8)
        p = json_pack("{s:s,s:i}", "type", "discard", "card", 0);
    else
        p = json_pack("{s:s,s:i,s:i}", "type", "hint", "target", (st->cur + 1) % st->np, "number",
                      hn_rank(st->hand[(st->cur + 1) % st->np][0]));
    assert_int_equal(game_apply(OPS, st, st->cur, p, NULL, &e), 0);
    json_decref(p);
}

static void test_end_deck_both_options(void **unused)
{
    (void)unused;
    static hn_state st;
    /* 2 players, standard deck: 40 draws; hints at even turns (0-based),
     * discards at odd ones, so the 40th draw is turn 79. */
    rig(&st, 0, 2, HN_RULE_STANDARD, 0, "");
    while (!st.over)
        discard_policy(&st);
    assert_int_equal(st.reason, HN_END_DECK);
    assert_int_equal(st.nhist, 82); /* turns 80 and 81 after the last draw */
    assert_int_equal(st.hist[79].drew != 0, 1);
    assert_int_equal(st.hist[81].drew, 0);

    rig(&st, 0, 2, HN_RULE_SEED, 0, "");
    while (!st.over)
        discard_policy(&st);
    /* turn 80 is a hint (no draw needed), turn 81 a discard that cannot
     * draw: then each player, that one included, one more turn */
    assert_int_equal(st.reason, HN_END_DECK);
    assert_int_equal(st.nhist, 84);

    /* general: over exactly np turns after the trigger, for 2-5 players */
    for (int endrule = 0; endrule < 2; endrule++)
        for (int np = 2; np <= 5; np++)
            for (int v = 0; v < 2; v++) {
                rig(&st, v, np, endrule, np - 1, "");
                int trigger = -1;
                while (!st.over) {
                    int before = st.next, deckless = st.next == st.ndeck;
                    int hint = st.hints == 8;
                    discard_policy(&st);
                    if (trigger < 0 && endrule == HN_RULE_STANDARD && before < st.ndeck && st.next == st.ndeck)
                        trigger = st.nhist - 1;
                    if (trigger < 0 && endrule == HN_RULE_SEED && deckless && !hint)
                        trigger = st.nhist - 1;
                    if (trigger >= 0 && !st.over)
                        assert_int_equal(st.final_left, np - (st.nhist - 1 - trigger));
                }
                assert_int_equal(st.reason, HN_END_DECK);
                assert_int_equal(st.nhist, trigger + 1 + np);
                json_t *v2 = OPS->view(&st, 0);
                assert_true(json_is_null(json_object_get(v2, "final_turns_left")));
                json_decref(v2);
            }

    /* seed rule: hints after the last draw postpone the final round */
    rig(&st, 0, 2, HN_RULE_SEED, 0, "");
    while (st.next < st.ndeck)
        discard_policy(&st);
    int t = st.nhist;
    st.hints = 3; /* spend them: three hints, no trigger */
    for (int i = 0; i < 3; i++) {
        json_t *p = json_pack("{s:s,s:i,s:i}", "type", "hint", "target", (st.cur + 1) % 2, "number",
                              hn_rank(st.hand[(st.cur + 1) % 2][0]));
        game_err e;
        assert_int_equal(game_apply(OPS, &st, st.cur, p, NULL, &e), 0);
        json_decref(p);
        assert_int_equal(st.final_left, -1);
    }
    ok(&st, st.cur, "{\"type\":\"discard\",\"card\":0}");
    assert_int_equal(st.final_left, 2);
    ok(&st, st.cur, "{\"type\":\"discard\",\"card\":0}");
    assert_false(st.over);
    json_t *v = OPS->view(&st, 0);
    assert_int_equal(json_integer_value(json_object_get(v, "final_turns_left")), 1);
    json_decref(v);
    ok(&st, st.cur, "{\"type\":\"discard\",\"card\":0}");
    assert_true(st.over);
    assert_int_equal(st.nhist, t + 6);
}

/* --- forms ---------------------------------------------------------------- */

static json_t *numeric_form(const json_t *ours)
{
    const char *t = json_string_value(json_object_get(ours, "type"));
    if (strcmp(t, "play") == 0)
        return json_pack("{s:i,s:O,s:n,s:n}", "actionType", 3, "target", json_object_get(ours, "card"), "color", "number");
    if (strcmp(t, "discard") == 0)
        return json_pack("{s:i,s:O}", "actionType", 2, "target", json_object_get(ours, "card"));
    const json_t *c = json_object_get(ours, "color");
    if (c)
        return json_pack("{s:i,s:O,s:i,s:n}", "actionType", 0, "target", json_object_get(ours, "target"), "color",
                         hn_color_parse(json_string_value(c)[0]), "number");
    return json_pack("{s:i,s:O,s:O}", "actionType", 1, "target", json_object_get(ours, "target"), "number",
                     json_object_get(ours, "number"));
}

static void test_numeric_form_equals_ours(void **unused)
{
    (void)unused;
    static hn_state st, a, b;
    game_err e;
    for (int g = 0; g < 12; g++) {
        play_game(&st, g % 2 ? "rainbow" : "standard", 2 + g % 4, 300 + g, "random", "seed");
        /* replay its actions both ways from the deal */
        memcpy(&a, &st, sizeof a);
        hn_start(&a, st.variant, st.np, st.endrule, st.first, st.deck, st.ndeck);
        memcpy(&b, &a, sizeof b);
        for (int i = 0; i < st.nhist; i++) {
            hn_play p = {st.hist[i].type, st.hist[i].target, st.hist[i].value};
            json_t *ours = hn_play_json(&p), *num = numeric_form(ours), *ra, *rb;
            assert_int_equal(game_apply(OPS, &a, a.cur, ours, &ra, &e), 0);
            assert_int_equal(game_apply(OPS, &b, b.cur, num, &rb, &e), 0);
            assert_true(json_equal(ra, rb));
            assert_memory_equal(&a, &b, sizeof a);
            json_decref(ours);
            json_decref(num);
            json_decref(ra);
            json_decref(rb);
        }
        assert_memory_equal(&a, &st, sizeof a);
    }
}

static void test_play_shapes(void **unused)
{
    (void)unused;
    static hn_state st;
    rig(&st, 0, 2, 0, 0, P0 P1);
    malformed(&st, 0, "[3,0]", "");
    malformed(&st, 0, "\"play\"", "");
    malformed(&st, 0, "{}", "/type");
    malformed(&st, 0, "{\"type\":7}", "/type");
    malformed(&st, 0, "{\"type\":\"pass\"}", "/type");
    malformed(&st, 0, "{\"type\":\"play\"}", "/card");
    malformed(&st, 0, "{\"type\":\"play\",\"card\":\"0\"}", "/card");
    malformed(&st, 0, "{\"type\":\"play\",\"card\":0.5}", "/card");
    malformed(&st, 0, "{\"type\":\"play\",\"card\":0,\"x\":1}", "/x");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1}", "/color");
    malformed(&st, 0, "{\"type\":\"hint\",\"color\":\"R\"}", "/target");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"R\",\"number\":1}", "/number");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"red\"}", "/color");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"X\"}", "/color");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":0}", "/color");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1,\"number\":6}", "/number");
    malformed(&st, 0, "{\"type\":\"hint\",\"target\":1,\"number\":\"1\"}", "/number");
    malformed(&st, 0, "{\"type\":\"play\",\"actionType\":3,\"card\":0}", "/actionType");
    malformed(&st, 0, "{\"actionType\":4,\"target\":0}", "/actionType");
    malformed(&st, 0, "{\"actionType\":-1,\"target\":0}", "/actionType");
    malformed(&st, 0, "{\"actionType\":3}", "/target");
    malformed(&st, 0, "{\"actionType\":0,\"target\":1}", "/color");
    malformed(&st, 0, "{\"actionType\":0,\"target\":1,\"color\":6}", "/color");
    malformed(&st, 0, "{\"actionType\":0,\"target\":1,\"color\":-1}", "/color");
    malformed(&st, 0, "{\"actionType\":1,\"target\":1,\"number\":0}", "/number");
    malformed(&st, 0, "{\"actionType\":1,\"target\":1,\"number\":1,\"color\":\"R\"}", "/color");
    malformed(&st, 0, "{\"actionType\":3,\"target\":0,\"event\":\"turn\"}", "/event");
    /* turn and game over come first */
    game_err e;
    assert_int_equal(apply_text(&st, 1, "{\"type\":\"play\",\"card\":0}", NULL, &e), ERR_NOT_YOUR_TURN);
    assert_int_equal(apply_text(&st, 7, "{\"type\":\"play\",\"card\":0}", NULL, &e), ERR_NOT_YOUR_TURN);
    assert_int_equal(apply_text(&st, SEAT_SPECTATOR, "{\"type\":\"play\",\"card\":0}", NULL, &e), ERR_NOT_YOUR_TURN);
}

/* Every play of every type, target and value is listed exactly when
 * check() calls it valid, and every valid one ends the turn (that the seat
 * not to move has none is test_games.c's). */
static void test_legal_lists_every_valid_play(void **unused)
{
    (void)unused;
    static hn_state st;
    game_err e;
    char why[320];
    for (int g = 0; g < 8; g++) {
        json_t *opt = NULL;
        assert_int_equal(game_init(OPS, &st, g % 2 ? "rainbow" : "standard", 2 + g % 4, 700 + g, opt, &e), 0);
        while (!st.over) {
            json_t *legal = OPS->legal(&st, st.cur);
            int nvalid = 0;
            for (int type = 0; type < 4; type++)
                for (int target = -1; target <= 5; target++)
                    for (int value = 0; value <= 6; value++) {
                        if (type >= 2 && value > 0)
                            continue;
                        hn_play p = {type, target, value};
                        if ((type == 0 && value > 5) || (type == 1 && (value < 1 || value > 5)))
                            continue;
                        json_t *j = json_pack("{s:i,s:i,s:i,s:i}", "actionType", type, "target", target, "color",
                                              type == 0 ? value : 0, "number", type == 1 ? value : 1);
                        game_verdict v;
                        assert_int_equal(game_judge(OPS, &st, st.cur, j, NULL, &v, &e), 0);
                        json_decref(j);
                        json_t *ours = hn_play_json(&p);
                        int listed = 0;
                        for (size_t i = 0; i < json_array_size(legal); i++)
                            listed |= json_equal(json_array_get(legal, i), ours);
                        json_decref(ours);
                        assert_int_equal(v.valid, listed);
                        if (v.valid)
                            assert_int_equal(v.turn_ending, 1);
                        nvalid += v.valid;
                    }
            assert_int_equal(nvalid, (int)json_array_size(legal));
            assert_true(nvalid > 0);
            json_decref(legal);
            assert_int_equal(game_bot_play(OPS, &st, "random", NULL, why, sizeof why, &e), 0);
        }
    }
}

/* --- views, history ----------------------------------------------------------- */

static void test_views_hide_own_cards(void **unused)
{
    (void)unused;
    static hn_state st;
    /* W5 and B5 exist once: player 0 holds W5, player 1 holds B5 */
    rig(&st, 0, 2, 0, 0, "W5 R1 R1 Y3 Y3 B5 G2 G2 G3 G3 R5 Y5 G5");
    char *v0 = text_of(OPS->view(&st, 0)), *v1 = text_of(OPS->view(&st, 1));
    char *vs = text_of(OPS->view(&st, SEAT_SPECTATOR)), *va = text_of(OPS->view(&st, SEAT_ADMIN));
    char *vo = text_of(OPS->view(&st, SEAT_OBSERVER));
    assert_null(strstr(v0, "W5"));
    assert_null(strstr(v0, "Y3"));
    assert_non_null(strstr(v0, "B5"));
    assert_null(strstr(v1, "B5"));
    assert_null(strstr(v1, "G3"));
    assert_non_null(strstr(v1, "W5"));
    /* a spectator: no hand card at all (each is hidden from its owner) */
    assert_null(strstr(vs, "W5"));
    assert_null(strstr(vs, "B5"));
    assert_null(strstr(vs, "Y3"));
    assert_null(strstr(vs, "G3"));
    /* an observer ("spectators": "all"): every hand */
    assert_non_null(strstr(vo, "W5"));
    assert_non_null(strstr(vo, "B5"));
    /* the deck order: only the admin sees it (R5, Y5, G5 are next) */
    assert_null(strstr(v0, "R5"));
    assert_null(strstr(vs, "R5"));
    assert_null(strstr(vo, "R5"));
    assert_null(strstr(vs, "deck_order"));
    assert_null(strstr(vo, "deck_order"));
    assert_non_null(strstr(va, "\"deck_order\":[\"R5\",\"Y5\",\"G5\""));
    assert_non_null(strstr(v0, "\"deck\":40"));
    free(v0);
    free(v1);
    free(vs);
    free(va);
    free(vo);
}

static void test_view_shape_and_negative_info(void **unused)
{
    (void)unused;
    static hn_state st;
    rig(&st, 0, 2, 0, 0, P0 P1);
    ok(&st, 0, "{\"type\":\"hint\",\"target\":1,\"color\":\"R\"}"); /* touches R3 (index 2) */
    ok(&st, 1, "{\"type\":\"hint\",\"target\":0,\"number\":1}");    /* touches 0, 2, 3, 4 */
    json_t *v = OPS->view(&st, 1);
    json_t *mine = json_array_get(json_object_get(v, "hands"), 1);
    char *c0 = text_of(json_incref(json_array_get(mine, 0)));
    char *c2 = text_of(json_incref(json_array_get(mine, 2)));
    assert_string_equal(c0, "{\"card\":\"??\",\"not\":{\"colors\":[\"R\"],\"numbers\":[]},"
                            "\"possible\":{\"colors\":[\"Y\",\"B\",\"G\",\"W\"],\"numbers\":[1,2,3,4,5]},"
                            "\"touched\":{\"colors\":[],\"numbers\":[]}}");
    assert_string_equal(c2, "{\"card\":\"??\",\"not\":{\"colors\":[],\"numbers\":[]},"
                            "\"possible\":{\"colors\":[\"R\"],\"numbers\":[1,2,3,4,5]},"
                            "\"touched\":{\"colors\":[\"R\"],\"numbers\":[]}}");
    free(c0);
    free(c2);
    /* the other hand: cards shown, with what its holder knows */
    json_t *theirs = json_array_get(json_object_get(v, "hands"), 0);
    assert_string_equal(json_string_value(json_object_get(json_array_get(theirs, 1), "card")), "R2");
    char *k1 = text_of(json_incref(json_object_get(json_array_get(theirs, 1), "not")));
    assert_string_equal(k1, "{\"colors\":[],\"numbers\":[1]}");
    free(k1);
    assert_int_equal(json_integer_value(json_object_get(v, "hints")), 6);
    assert_int_equal(json_integer_value(json_object_get(v, "deck")), 40);
    assert_int_equal(json_integer_value(json_object_get(v, "turn")), 3);
    assert_int_equal(json_integer_value(json_object_get(v, "current")), 0);
    assert_int_equal(json_integer_value(json_object_get(v, "max_score")), 25);
    assert_true(json_is_null(json_object_get(v, "end_reason")));
    assert_string_equal(json_string_value(json_object_get(v, "result")), "playing");
    char *fw = text_of(json_incref(json_object_get(v, "fireworks")));
    assert_string_equal(fw, "{\"B\":0,\"G\":0,\"R\":0,\"W\":0,\"Y\":0}");
    free(fw);
    json_decref(v);
}

/* --- who sees what (game.h readers), on the serialized text ------------------- */

/* Everything `reader` is shown: view, history, events, legal plays and (on
 * its turn) help mode, as one text. */
static char *shown(const hn_state *st, int reader)
{
    json_t *all = json_pack("{s:o,s:o,s:o}", "view", OPS->view(st, reader), "history", OPS->history(st, reader),
                            "events", OPS->events(st, reader, 0));
    if (reader >= 0) {
        json_t *h = NULL;
        game_err e;
        json_object_set_new(all, "legal", OPS->legal(st, reader));
        if (game_hint(OPS, st, reader, &h, &e) == 0)
            json_object_set_new(all, "hint", h);
    }
    return text_of(all);
}

/* Once the deck is empty hands shrink: no slot of a masked state, held or
 * vacated, may still hold a card of the masked seat. */
static void test_mask_clears_vacated_slots(void **unused)
{
    (void)unused;
    static hn_state st, m;
    game_err e;
    char why[320];
    int checked = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assert_int_equal(game_init(OPS, &st, "standard", 2 + (int)(seed % 4), seed, NULL, &e), 0);
        for (int guard = 0; guard < 400 && !st.over; guard++) {
            assert_int_equal(game_bot_play(OPS, &st, "rules", NULL, why, sizeof why, &e), 0);
            if (st.next < st.ndeck)
                continue;
            for (int s = 0; s < st.np; s++) {
                hn_mask(&st, s, &m);
                for (int i = 0; i < HN_MAXHAND; i++)
                    assert_int_equal(m.hand[s][i], 0);
                for (int i = st.nhand[s]; i < HN_MAXHAND; i++) /* and the state has none there */
                    assert_int_equal(st.hand[s][i], 0);
                checked++;
            }
        }
    }
    assert_true(checked > 100);
}

static void test_readers_see_only_what_they_may(void **unused)
{
    (void)unused;
    static hn_state st;
    /* The five 5s exist once each. Player 0 holds R5 and draws G5, player 1
     * holds Y5 and draws W5, player 2 holds B5. */
    rig(&st, 0, 3, 0, 0, "R5 R1 Y1 B1 G1 Y5 W1 R1 Y1 B1 B5 G1 W1 R2 Y2 G5 W5");
    ok(&st, 0, "{\"type\":\"hint\",\"target\":1,\"number\":5}");
    ok(&st, 1, "{\"type\":\"hint\",\"target\":2,\"number\":5}");
    ok(&st, 2, "{\"type\":\"hint\",\"target\":0,\"number\":1}");
    ok(&st, 0, "{\"type\":\"play\",\"card\":1}"); /* R1, draws G5 */
    ok(&st, 1, "{\"type\":\"play\",\"card\":1}"); /* W1, draws W5 */
    static const char *const fives[5] = {"\"R5\"", "\"G5\"", "\"Y5\"", "\"W5\"", "\"B5\""};
    static const int owner[5] = {0, 0, 1, 1, 2};
    const int readers[] = {0, 1, 2, SEAT_SPECTATOR, SEAT_OBSERVER, SEAT_ADMIN};
    for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++) {
        int who = readers[r];
        char *t = shown(&st, who);
        for (int k = 0; k < 5; k++) {
            int may = who == SEAT_ADMIN || who == SEAT_OBSERVER || (who >= 0 && who != owner[k]);
            if (may != (strstr(t, fives[k]) != NULL))
                fail_msg("reader %d %s %s: %s", who, may ? "misses" : "is shown", fives[k], t);
        }
        /* the deck order and the seed: the admin's only */
        assert_true((strstr(t, "deck_order") != NULL) == (who == SEAT_ADMIN));
        assert_true((strstr(t, "\"seed\":\"") != NULL) == (who == SEAT_ADMIN));
        /* played cards and what hints told are public: every reader has them */
        assert_non_null(strstr(t, "\"card\":\"R1\""));
        assert_non_null(strstr(t, "\"touched\":{\"colors\":[],\"numbers\":[5]}"));
        free(t);
    }
    /* a spectator: not one hand card, by any route */
    json_t *v = OPS->view(&st, SEAT_SPECTATOR);
    json_t *hand;
    size_t i, j;
    json_array_foreach(json_object_get(v, "hands"), i, hand) {
        json_t *c;
        json_array_foreach(hand, j, c) assert_string_equal(json_string_value(json_object_get(c, "card")), "??");
    }
    json_decref(v);
    char *t = text_of(OPS->history(&st, SEAT_SPECTATOR));
    assert_null(strstr(t, "\"drew\":\"G5\""));
    assert_non_null(strstr(t, "\"drew\":\"??\""));
    free(t);
    t = text_of(OPS->events(&st, SEAT_SPECTATOR, 0));
    assert_non_null(strstr(t, "\"handNumber\":[[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1]]"));
    assert_null(strstr(t, "\"draw\":[3,5]")); /* G5 */
    free(t);
    /* a spectator or an observer is never a seat: no plays, no advice */
    json_t *h = (json_t *)1;
    game_err e;
    assert_int_equal(game_hint(OPS, &st, SEAT_OBSERVER, &h, &e), ERR_NOT_YOUR_TURN);
    assert_null(h);
    t = text_of(OPS->legal(&st, SEAT_OBSERVER));
    assert_string_equal(t, "[]");
    free(t);

    /* once the game is over every reader sees every card */
    play_game(&st, "standard", 3, 5, "rules", "seed");
    for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++) {
        int who = readers[r];
        char *all = shown(&st, who);
        assert_null(strstr(all, "??"));
        assert_non_null(strstr(all, "deck_order"));
        /* ... except its own cards in the events of a seat: the seed's
         * protocol sends them as -1, and a sent event never changes */
        json_t *evs = OPS->events(&st, who, 0);
        json_t *colors = json_object_get(json_array_get(evs, 0), "handColor");
        for (int p = 0; p < st.np; p++) {
            char *row = text_of(json_incref(json_array_get(colors, (size_t)p)));
            if (p == who)
                assert_string_equal(row, "[-1,-1,-1,-1,-1]");
            else
                assert_null(strstr(row, "-1"));
            free(row);
        }
        /* and the acting seat's own draws stay -1, to the last play */
        size_t ei;
        json_t *ev;
        int actor = -1, own_draws = 0;
        json_array_foreach(evs, ei, ev) {
            const char *name = json_string_value(json_object_get(ev, "event"));
            if (strcmp(name, "onTurnStart") == 0)
                actor = (int)json_integer_value(json_object_get(ev, "index"));
            else if (json_object_get(ev, "draw") && actor == who && who >= 0) {
                char *d = text_of(json_incref(json_object_get(ev, "draw")));
                assert_string_equal(d, "[-1,-1]");
                free(d);
                own_draws++;
            }
        }
        assert_true(who < 0 || own_draws > 0);
        json_decref(evs);
        v = OPS->view(&st, who);
        for (int p = 0; p < st.np; p++)
            for (int k = 0; k < st.nhand[p]; k++)
                assert_string_equal(json_string_value(json_object_get(
                                        json_array_get(json_array_get(json_object_get(v, "hands"), (size_t)p), (size_t)k), "card")),
                                    hn_card_name(st.hand[p][k]));
        json_decref(v);
        free(all);
    }
}

/* Bot explanations (the public line, ops->explain) are stored and shown to
 * every reader: they may only say the play, public facts and the
 * strategy's rule. Every one fits a public template, and the facts it
 * states hold. (test_games.c checks that none changes with a hidden card.) */
static void test_explanations_say_only_public_things(void **unused)
{
    (void)unused;
    static hn_state st, before;
    static const char *const PATTERNS[] = {
        "^plays card [1-5]: the hints prove it fits a firework pile$",
        "^(HINT): then they know (a touched card|one of their cards) is playable$",
        "^(HINT): it touches their oldest unhinted card, so they keep it rather than discard it$",
        "^(HINT): with [4-8] hint tokens to spare, a hint that tells them something new$",
        "^(HINT): all 8 tokens are in hand, so a hint costs nothing$",
        "^plays card [1-5]: the deck is empty and an error can be afforded, so it plays its likeliest card rather than discard$",
        "^discards card [1-5]: the hints prove it can no longer be played$",
        "^discards card [1-5], the oldest card no hint touched, to gain a token$",
        "^discards card 1, the oldest card \\(every card is hinted\\), to gain a token$",
        "^((HINT)|plays card [1-5]|discards card [1-5]): chosen at random among the legal plays$",
        /* a proof that counts the copies in the hands the bot sees: said, not shown */
        "^plays card [1-5]: the hints and the cards it sees prove it fits a firework pile$",
        "^discards card [1-5]: the hints and the cards it sees prove it can no longer be played$",
    };
    enum { NPAT = sizeof PATTERNS / sizeof PATTERNS[0] };
    regex_t re[NPAT];
    for (int k = 0; k < NPAT; k++) {
        char pat[400], *at;
        snprintf(pat, sizeof pat, "%s", PATTERNS[k]);
        while ((at = strstr(pat, "HINT"))) { /* expand */
            char tail[400];
            snprintf(tail, sizeof tail, "%s", at + 4);
            snprintf(at, sizeof pat - (size_t)(at - pat),
                     "hints player [1-5] about their ((red|yellow|blue|green|white) cards|[1-5]s)%s", tail);
        }
        assert_int_equal(regcomp(&re[k], pat, REG_EXTENDED | REG_NOSUB), 0);
    }
    game_err e;
    char why[320], text[120];
    long n = 0, used[NPAT] = {0};
    for (int g = 0; g < 48; g++) {
        json_t *opt = json_pack("{s:s}", "end", g % 3 ? "seed" : "standard");
        assert_int_equal(game_init(OPS, &st, g % 2 ? "rainbow" : "standard", 2 + g % 4, 900 + (uint64_t)g, opt, &e), 0);
        json_decref(opt);
        const char *bot = g % 4 == 3 ? "random" : "rules";
        while (!st.over) {
            memcpy(&before, &st, sizeof st);
            assert_int_equal(game_bot_play(OPS, &st, bot, NULL, why, sizeof why, &e), 0);
            int k = 0;
            while (k < NPAT && regexec(&re[k], why, 0, NULL, 0) != 0)
                k++;
            if (k == NPAT)
                fail_msg("not a public explanation: %s", why);
            used[k]++;
            n++;
            /* it begins with the play it made */
            const hn_hist *h = &st.hist[st.nhist - 1];
            hn_play p = {h->type, h->target, h->value};
            hn_play_text(&p, text, sizeof text);
            if (strncmp(why, text, strlen(text)) != 0)
                fail_msg("explanation \"%s\" does not begin with its play \"%s\"", why, text);
            if (k == 2) { /* the save: it touches the oldest card no hint touched before */
                int i = 0;
                while (i < before.nhand[h->target] &&
                       (before.know[h->target][i].pos_col || before.know[h->target][i].pos_num))
                    i++;
                assert_true(h->touched >> i & 1);
            }
        }
    }
    assert_true(n > 2000);
    for (int k = 0; k < NPAT; k++) {
        if (k != 8 && k != 11 && used[k] == 0) /* every rule but the rare all-hinted discard and a
                                                 private proof of a useless card shows up */
            fail_msg("no explanation matched %s", PATTERNS[k]);
        regfree(&re[k]);
    }
}

/* --- events ------------------------------------------------------------------- */

static json_t *ev(json_t *a, const char *name, int k) /* the k-th event of that name */
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *x = json_array_get(a, i);
        if (strcmp(json_string_value(json_object_get(x, "event")), name) == 0 && k-- == 0)
            return x;
    }
    return NULL;
}

static void keys_are(json_t *o, const char *expected)
{
    char buf[200] = "";
    const char *k;
    json_t *x;
    /* sorted keys */
    const char *names[16];
    int n = 0;
    json_object_foreach(o, k, x) names[n++] = k;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                const char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (int i = 0; i < n; i++) {
        strcat(buf, names[i]);
        strcat(buf, i + 1 < n ? "," : "");
    }
    assert_string_equal(buf, expected);
}

static void test_events(void **unused)
{
    (void)unused;
    static hn_state st;
    rig(&st, 0, 3, 0, 1, "R1 R2 Y1 B1 G1 W1 W2 R3 B1 G5 Y4 Y4 G3 B2 B3 R4 W3");
    ok(&st, 1, "{\"type\":\"hint\",\"target\":2,\"color\":\"Y\"}");     /* touches 0, 1 */
    ok(&st, 2, "{\"type\":\"hint\",\"target\":0,\"number\":1}");        /* touches 0, 2, 3, 4 */
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}");                        /* R1, draws R4 */
    ok(&st, 1, "{\"type\":\"discard\",\"card\":1}");                     /* W2, draws W3 */

    json_t *e0 = OPS->events(&st, 0, 0), *e1 = OPS->events(&st, 1, 0), *e2 = OPS->events(&st, 2, 0),
           *es = OPS->events(&st, SEAT_SPECTATOR, 0);
    /* onStart: own cards -1 */
    char *s = text_of(json_incref(ev(e0, "onStart", 0)));
    assert_string_equal(s, "{\"event\":\"onStart\",\"handColor\":[[-1,-1,-1,-1,-1],[4,4,0,2,3],[1,1,3,2,2]],"
                           "\"handNumber\":[[-1,-1,-1,-1,-1],[1,2,3,1,5],[4,4,3,2,3]],\"n\":1}");
    free(s);
    s = text_of(json_incref(ev(es, "onStart", 0))); /* a spectator: no hand card */
    assert_string_equal(s, "{\"event\":\"onStart\",\"handColor\":[[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1]],"
                           "\"handNumber\":[[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1]],\"n\":1}");
    free(s);
    json_t *eo = OPS->events(&st, SEAT_OBSERVER, 0); /* an observer: every hand */
    s = text_of(json_incref(ev(eo, "onStart", 0)));
    assert_non_null(strstr(s, "\"handColor\":[[0,0,1,2,3],"));
    free(s);
    s = text_of(json_incref(ev(eo, "onPlayerAction", 2)));
    assert_string_equal(s, "{\"actionType\":3,\"draw\":[0,4],\"event\":\"onPlayerAction\",\"n\":7,\"play\":[0,1],\"target\":0}");
    free(s);
    s = text_of(json_incref(ev(es, "onPlayerAction", 2))); /* the play is public, the draw is not */
    assert_string_equal(s, "{\"actionType\":3,\"draw\":[-1,-1],\"event\":\"onPlayerAction\",\"n\":7,\"play\":[0,1],\"target\":0}");
    free(s);
    assert_null(ev(eo, "onHintColor", 0));
    assert_null(ev(eo, "onHintNumber", 0));
    json_decref(eo);
    /* order: onTurnStart, (hint to the target), onPlayerAction, ... */
    assert_string_equal(json_string_value(json_object_get(json_array_get(e2, 1), "event")), "onTurnStart");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(e2, 1), "index")), 1);
    s = text_of(json_incref(json_array_get(e2, 2)));
    assert_string_equal(s, "{\"event\":\"onHintColor\",\"hintColor\":[1,1,-1,-1,-1],\"hintNumber\":[-1,-1,-1,-1,-1],\"n\":3}");
    free(s);
    s = text_of(json_incref(ev(e0, "onHintNumber", 0)));
    assert_string_equal(s, "{\"event\":\"onHintNumber\",\"hintColor\":[-1,-1,-1,-1,-1],\"hintNumber\":[1,-1,1,1,1],\"n\":5}");
    free(s);
    /* hints go to the target only */
    assert_null(ev(e0, "onHintColor", 0));
    assert_null(ev(e1, "onHintColor", 0));
    assert_null(ev(e1, "onHintNumber", 0));
    assert_null(ev(es, "onHintColor", 0));
    /* onPlayerAction keys exactly as the seed */
    json_t *a;
    a = ev(e1, "onPlayerAction", 0);
    keys_are(a, "actionType,color,event,n,target");
    assert_int_equal(json_integer_value(json_object_get(a, "color")), 1);
    a = ev(e1, "onPlayerAction", 1);
    keys_are(a, "actionType,event,n,number,target");
    a = ev(e1, "onPlayerAction", 2);
    keys_are(a, "actionType,draw,event,n,play,target");
    s = text_of(json_incref(a));
    assert_string_equal(s, "{\"actionType\":3,\"draw\":[0,4],\"event\":\"onPlayerAction\",\"n\":7,\"play\":[0,1],\"target\":0}");
    free(s);
    s = text_of(json_incref(ev(e0, "onPlayerAction", 2))); /* the actor: own draw hidden */
    assert_string_equal(s, "{\"actionType\":3,\"draw\":[-1,-1],\"event\":\"onPlayerAction\",\"n\":8,\"play\":[0,1],\"target\":0}");
    free(s);
    a = ev(e0, "onPlayerAction", 3);
    keys_are(a, "actionType,discard,draw,event,n,target");
    s = text_of(json_incref(json_object_get(a, "discard")));
    assert_string_equal(s, "[4,2]");
    free(s);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(a, "draw"), 0)), 4);
    /* the pending turn is announced last */
    json_t *last = json_array_get(e0, json_array_size(e0) - 1);
    assert_string_equal(json_string_value(json_object_get(last, "event")), "onTurnStart");
    assert_int_equal(json_integer_value(json_object_get(last, "index")), 2);
    /* numbering and after */
    for (size_t i = 0; i < json_array_size(e2); i++)
        assert_int_equal(json_integer_value(json_object_get(json_array_get(e2, i), "n")), (json_int_t)i + 1);
    json_t *tail = OPS->events(&st, 2, 5);
    assert_int_equal(json_array_size(tail), json_array_size(e2) - 5);
    assert_true(json_equal(json_array_get(tail, 0), json_array_get(e2, 5)));
    json_decref(tail);
    tail = OPS->events(&st, 2, 1000);
    assert_int_equal(json_array_size(tail), 0);
    json_decref(tail);
    json_decref(e0);
    json_decref(e1);
    json_decref(e2);
    json_decref(es);

    /* onGameEnd: reason and score, after the last onPlayerAction */
    play_game(&st, "standard", 4, 77, "rules", "seed");
    json_t *all = OPS->events(&st, 3, 0);
    json_t *end = json_array_get(all, json_array_size(all) - 1);
    keys_are(end, "event,n,reason,score");
    assert_int_equal(json_integer_value(json_object_get(end, "reason")), st.reason);
    assert_int_equal(json_integer_value(json_object_get(end, "score")), hn_score(&st));
    assert_string_equal(json_string_value(json_object_get(json_array_get(all, json_array_size(all) - 2), "event")),
                        "onPlayerAction");
    /* every turn: one onTurnStart and one onPlayerAction */
    int ts = 0, pa = 0;
    for (size_t i = 0; i < json_array_size(all); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(all, i), "event"));
        ts += strcmp(name, "onTurnStart") == 0;
        pa += strcmp(name, "onPlayerAction") == 0;
    }
    assert_int_equal(ts, st.nhist);
    assert_int_equal(pa, st.nhist);
    json_decref(all);
}

/* --- export ------------------------------------------------------------------- */

static void test_export_hanablive(void **unused)
{
    (void)unused;
    static hn_state st;
    /* 3 players, player 1 starts. Our deck: p0 R1 R2 Y1 B1 G1, p1 W1 W2 R3
     * B1 G5, p2 Y4 Y4 G3 B2 B3, then R4 W3 ... hanab.live deals from its
     * first player (our 1), so its deck is our p1 hand, p2 hand, p0 hand,
     * then the draws; its players are our 1, 2, 0. */
    rig(&st, 0, 3, HN_RULE_STANDARD, 1, "R1 R2 Y1 B1 G1 W1 W2 R3 B1 G5 Y4 Y4 G3 B2 B3 R4 W3");
    ok(&st, 1, "{\"type\":\"play\",\"card\":0}");                 /* W1: order 0 */
    ok(&st, 2, "{\"type\":\"hint\",\"target\":0,\"color\":\"B\"}"); /* to hanab.live player 2, Blue = 3 */
    ok(&st, 0, "{\"type\":\"discard\",\"card\":2}");              /* Y1: order 10 + 2 */
    ok(&st, 1, "{\"type\":\"hint\",\"target\":2,\"number\":4}");  /* to hanab.live player 1 */
    ok(&st, 2, "{\"type\":\"play\",\"card\":2}");                 /* G3: wrong, order 5 + 2 */
    ok(&st, 0, "{\"type\":\"play\",\"card\":4}");                 /* the card drawn at turn 3: W3, order 16 */
    char *out = NULL;
    size_t len = 0;
    const char *mt = NULL;
    game_err e;
    assert_int_equal(OPS->export_as(&st, "hanablive", &out, &len, &mt, &e), 0);
    assert_string_equal(mt, "application/json");
    assert_int_equal(strlen(out), len);
    json_t *j = J(out);
    free(out);
    char *s = text_of(json_incref(json_object_get(j, "players")));
    assert_string_equal(s, "[\"Bob\",\"Cathy\",\"Alice\"]");
    free(s);
    s = text_of(json_incref(json_object_get(j, "actions")));
    assert_string_equal(s, "[{\"target\":0,\"type\":0,\"value\":0},{\"target\":2,\"type\":2,\"value\":3},"
                           "{\"target\":12,\"type\":1,\"value\":0},{\"target\":1,\"type\":3,\"value\":4},"
                           "{\"target\":7,\"type\":0,\"value\":0},{\"target\":16,\"type\":0,\"value\":0}]");
    free(s);
    json_t *deck = json_object_get(j, "deck");
    assert_int_equal(json_array_size(deck), 50);
    /* hanab.live suits: Red 0 Yellow 1 Green 2 Blue 3 Purple(our white) 4 */
    s = text_of(json_incref(json_array_get(deck, 0)));
    assert_string_equal(s, "{\"rank\":1,\"suitIndex\":4}"); /* W1 */
    free(s);
    s = text_of(json_incref(json_array_get(deck, 5)));
    assert_string_equal(s, "{\"rank\":4,\"suitIndex\":1}"); /* Y4 */
    free(s);
    s = text_of(json_incref(json_array_get(deck, 7)));
    assert_string_equal(s, "{\"rank\":3,\"suitIndex\":2}"); /* G3 */
    free(s);
    s = text_of(json_incref(json_array_get(deck, 12)));
    assert_string_equal(s, "{\"rank\":1,\"suitIndex\":1}"); /* Y1 */
    free(s);
    s = text_of(json_incref(json_array_get(deck, 13)));
    assert_string_equal(s, "{\"rank\":1,\"suitIndex\":3}"); /* B1 */
    free(s);
    s = text_of(json_incref(json_array_get(deck, 16)));
    assert_string_equal(s, "{\"rank\":3,\"suitIndex\":4}"); /* W3 */
    free(s);
    s = text_of(json_incref(json_object_get(j, "options")));
    assert_string_equal(s, "{\"variant\":\"No Variant\"}");
    free(s);
    assert_null(json_object_get(j, "croupier")); /* nothing differs from hanab.live */
    json_decref(j);
    rig(&st, 1, 2, 0, 0, "");
    assert_int_equal(OPS->export_as(&st, "hanablive", &out, &len, &mt, &e), 0);
    j = J(out);
    free(out);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "options"), "variant")), "Rainbow (6 Suits)");
    assert_int_equal(json_array_size(json_object_get(j, "deck")), 60);
    json_decref(j);
    assert_int_equal(OPS->export_as(&st, "pgn", &out, &len, &mt, &e), ERR_NOT_FOUND);
    assert_string_equal(OPS->export_formats[0], "hanablive");
    assert_null(OPS->export_formats[1]);
}

/* The hanab.live export stops where hanab.live's server ends the game, and
 * names what it leaves out and a score it counts otherwise. */
static json_t *export_json(const hn_state *st)
{
    char *out = NULL;
    size_t len = 0;
    const char *mt = NULL;
    game_err e;
    assert_int_equal(OPS->export_as(st, "hanablive", &out, &len, &mt, &e), 0);
    json_t *j = J(out);
    free(out);
    return j;
}

static void test_export_hanablive_end(void **unused)
{
    (void)unused;
    static hn_state st;
    /* seed 2, 3 rules bots, the seed's end rule: 66 actions. The 61st draws
     * the last card; hanab.live (EndTurn = Turn + players + 1) plays 3 more
     * turns and ends after the 64th, at 17 points; the game goes on to 18. */
    play_game(&st, "standard", 3, 2, "rules", "seed");
    assert_int_equal(st.nhist, 66);
    assert_int_equal(hn_score(&st), 18);
    json_t *j = export_json(&st);
    assert_int_equal(json_array_size(json_object_get(j, "actions")), 64);
    char *s = text_of(json_incref(json_object_get(j, "croupier")));
    assert_string_equal(s, "{\"actions\":66,\"dropped_actions\":2,\"end\":\"seed\",\"exported_actions\":64,"
                           "\"hanablive_end\":\"final-round\",\"hanablive_score\":17,"
                           "\"note\":\"hanab.live ends this game after action 64, one round after the last card was "
                           "drawn; the 2 actions after it are not exported (this game is played with the seed's end "
                           "rule: its final round starts only when a player must draw from the empty deck); "
                           "hanab.live's replay scores 17, this game 18\",\"score\":18}");
    free(s);
    json_decref(j);

    /* the same seed under {"end":"standard"}: hanab.live's end, exported whole, unchanged */
    play_game(&st, "standard", 3, 2, "rules", "standard");
    assert_int_equal(st.nhist, 64);
    j = export_json(&st);
    assert_int_equal(json_array_size(json_object_get(j, "actions")), 64);
    assert_null(json_object_get(j, "croupier"));
    keys_are(j, "actions,deck,options,players");
    json_decref(j);

    /* hanab.live also ends as soon as no card that could still score is left
     * to a player with a turn to come (seed 3, standard: after action 63 of 64) */
    play_game(&st, "standard", 3, 3, "rules", "standard");
    assert_int_equal(st.nhist, 64);
    j = export_json(&st);
    assert_int_equal(json_array_size(json_object_get(j, "actions")), 63);
    json_t *c = json_object_get(j, "croupier");
    assert_string_equal(json_string_value(json_object_get(c, "hanablive_end")), "nothing-playable");
    assert_int_equal(json_integer_value(json_object_get(c, "dropped_actions")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "hanablive_score")), hn_score(&st));
    assert_non_null(strstr(json_string_value(json_object_get(c, "note")), "the score is the same, 18"));
    json_decref(j);

    /* the 3rd error: every action exported, but hanab.live scores it 0 */
    rig(&st, 0, 2, HN_RULE_STANDARD, 0, P0 P1);
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}"); /* R1 */
    ok(&st, 1, "{\"type\":\"play\",\"card\":1}"); /* W2: wrong */
    ok(&st, 0, "{\"type\":\"play\",\"card\":3}"); /* G1 */
    ok(&st, 1, "{\"type\":\"play\",\"card\":1}"); /* R3: wrong */
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}"); /* R2 */
    ok(&st, 1, "{\"type\":\"play\",\"card\":3}"); /* G5: wrong, the 3rd error */
    assert_true(st.over);
    assert_int_equal(st.reason, HN_END_ERRORS);
    assert_int_equal(hn_score(&st), 3);
    j = export_json(&st);
    assert_int_equal(json_array_size(json_object_get(j, "actions")), 6);
    c = json_object_get(j, "croupier");
    assert_string_equal(json_string_value(json_object_get(c, "hanablive_end")), "strikes");
    assert_int_equal(json_integer_value(json_object_get(c, "dropped_actions")), 0);
    assert_int_equal(json_integer_value(json_object_get(c, "hanablive_score")), 0);
    assert_int_equal(json_integer_value(json_object_get(c, "score")), 3);
    assert_non_null(strstr(json_string_value(json_object_get(c, "note")), "scores a game lost to the 3rd error 0"));
    json_decref(j);

    /* over many games: hanab.live never ends later than the game; the
     * standard rule differs only by its early end, at the same score */
    for (int g = 0; g < 80; g++) {
        int np = 2 + g % 4, standard = g % 2;
        play_game(&st, g % 3 ? "standard" : "rainbow", np, 3000 + (uint64_t)g, g % 5 ? "rules" : "random",
                  standard ? "standard" : "seed");
        j = export_json(&st);
        size_t kept = json_array_size(json_object_get(j, "actions"));
        c = json_object_get(j, "croupier");
        assert_true(kept <= st.nhist && kept > 0);
        if (!c) {
            assert_int_equal(kept, st.nhist);
        } else {
            assert_int_equal(json_integer_value(json_object_get(c, "exported_actions")), kept);
            assert_int_equal(json_integer_value(json_object_get(c, "dropped_actions")), st.nhist - (int)kept);
            assert_int_equal(json_integer_value(json_object_get(c, "score")), hn_score(&st));
            const char *why = json_string_value(json_object_get(c, "hanablive_end"));
            if (standard && strcmp(why, "strikes") != 0) {
                assert_string_equal(why, "nothing-playable");
                assert_int_equal(json_integer_value(json_object_get(c, "hanablive_score")), hn_score(&st));
            }
            if (strcmp(why, "strikes") == 0)
                assert_int_equal(st.reason, HN_END_ERRORS);
        }
        json_decref(j);
    }
}

/* --- state codec ------------------------------------------------------------------ */

static void roundtrip(const hn_state *st)
{
    static hn_state back;
    game_err e;
    json_t *j = OPS->encode(st);
    memset(&back, 0xAB, sizeof back);
    if (OPS->decode(&back, j, &e))
        fail_msg("decode: %s at %s", e.detail, e.pointer);
    assert_memory_equal(&back, st, sizeof back);
    json_t *k = OPS->encode(&back);
    assert_true(json_equal(j, k));
    json_decref(j);
    json_decref(k);
}

/* Every state of games under both end rules (the "end" option, which
 * test_games.c's default games do not vary) decodes to the very same bytes. */
static void test_roundtrip_all_states(void **unused)
{
    (void)unused;
    static hn_state st;
    game_err e;
    char why[320];
    const char *bots[2] = {"rules", "random"};
    for (int g = 0; g < 40; g++) {
        json_t *opt = json_pack("{s:s}", "end", g % 3 ? "seed" : "standard");
        assert_int_equal(game_init(OPS, &st, g % 2 ? "rainbow" : "standard", 2 + g % 4, 9000 + (uint64_t)g, opt, &e), 0);
        json_decref(opt);
        roundtrip(&st);
        while (!st.over) {
            assert_int_equal(game_bot_play(OPS, &st, bots[(g / 2) % 2], NULL, why, sizeof why, &e), 0);
            roundtrip(&st);
        }
        roundtrip(&st);
    }
}

static void expect_decode_bad(json_t *good, const char *key, json_t *value, const char *pointer)
{
    static hn_state st, before;
    game_err e;
    json_t *blob = json_deep_copy(good);
    if (value)
        json_object_set_new(blob, key, value);
    else
        json_object_del(blob, key);
    rig(&st, 0, 2, 0, 0, "");
    memcpy(&before, &st, sizeof st);
    int rc = OPS->decode(&st, blob, &e);
    if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, pointer) != 0)
        fail_msg("%s: rc %d pointer \"%s\" (%s), expected \"%s\"", key, rc, e.pointer, e.detail, pointer);
    assert_memory_equal(&st, &before, sizeof st);
    json_decref(blob);
}

static void test_decode_hostile(void **unused)
{
    (void)unused;
    static hn_state st;
    game_err e;
    rig(&st, 0, 3, 0, 2, "R1 R2 Y1 B1 G1 W1 W2 R3 B1 G5 Y4 Y4 G3 B2 B3 R4 W3");
    ok(&st, 2, "{\"type\":\"hint\",\"target\":0,\"number\":1}");
    ok(&st, 0, "{\"type\":\"play\",\"card\":0}");
    json_t *good = OPS->encode(&st);
    roundtrip(&st);
    json_t *deck = json_deep_copy(json_object_get(good, "deck"));
    expect_decode_bad(good, "game", json_string("comp10001bo"), "/game");
    expect_decode_bad(good, "game", NULL, "/game");
    expect_decode_bad(good, "variant", json_string("bonus"), "/variant");
    expect_decode_bad(good, "players", json_integer(6), "/players");
    expect_decode_bad(good, "players", json_string("3"), "/players");
    expect_decode_bad(good, "options", J("{\"end\":\"x\"}"), "/options/end");
    expect_decode_bad(good, "options", J("{\"x\":1}"), "/options/x");
    expect_decode_bad(good, "options", NULL, "/options");
    expect_decode_bad(good, "seed", json_string("xyz"), "/seed");
    expect_decode_bad(good, "seed", json_string("00000000000000000"), "/seed");
    expect_decode_bad(good, "rng", json_integer(1), "/rng");
    expect_decode_bad(good, "bot_rng", J("{\"state\":\"1\",\"inc\":\"2\"}"), "/bot_rng/inc");
    expect_decode_bad(good, "first", json_integer(3), "/first");
    expect_decode_bad(good, "first", json_integer(-1), "/first");
    expect_decode_bad(good, "junk", json_true(), "/junk");
    expect_decode_bad(good, "deck", J("[]"), "/deck");
    json_t *d = json_deep_copy(deck);
    json_array_set_new(d, 3, json_string("M1"));
    expect_decode_bad(good, "deck", d, "/deck/3");
    d = json_deep_copy(deck);
    json_array_set_new(d, 3, json_string("R1"));
    expect_decode_bad(good, "deck", d, "/deck/18"); /* the 4th R1: the rest is in suit order */
    d = json_deep_copy(deck);
    json_array_set_new(d, 3, json_integer(3));
    expect_decode_bad(good, "deck", d, "/deck/3");
    expect_decode_bad(good, "actions", J("{}"), "/actions");
    expect_decode_bad(good, "actions", J("[1]"), "/actions/0");
    expect_decode_bad(good, "actions", J("[{\"seat\":0,\"play\":{\"type\":\"play\",\"card\":0}}]"), "/actions/0/seat");
    expect_decode_bad(good, "actions", J("[{\"seat\":2,\"play\":{\"type\":\"hint\",\"target\":2,\"number\":1}}]"),
                      "/actions/0/play");
    expect_decode_bad(good, "actions", J("[{\"seat\":2,\"play\":{\"type\":\"discard\",\"card\":0}}]"), "/actions/0/play");
    expect_decode_bad(good, "actions", J("[{\"seat\":2,\"play\":{\"type\":\"hint\",\"target\":0}}]"),
                      "/actions/0/play/color");
    expect_decode_bad(good, "actions", J("[{\"seat\":2}]"), "/actions/0/play");
    expect_decode_bad(good, "actions", J("[{\"seat\":9,\"play\":{\"type\":\"play\",\"card\":0}}]"), "/actions/0/seat");
    /* an action after the end of the game */
    rig(&st, 0, 2, 0, 0, "R2 R2 R3 R3 R4 Y2 Y2 Y3 Y3 Y4");
    for (int i = 0; i < 3; i++)
        ok(&st, st.cur, "{\"type\":\"play\",\"card\":0}");
    assert_true(st.over);
    json_t *over = OPS->encode(&st);
    json_array_append_new(json_object_get(over, "actions"), J("{\"seat\":1,\"play\":{\"type\":\"play\",\"card\":0}}"));
    assert_int_equal(OPS->decode(&st, over, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/actions/3");
    json_decref(over);
    /* not an object, deep nesting */
    json_t *arr = J("[[[[[[[[[[[[[]]]]]]]]]]]]]");
    assert_int_equal(OPS->decode(&st, arr, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "");
    json_decref(arr);
    assert_int_equal(OPS->decode(&st, json_null(), &e), ERR_BAD_MEMBER);
    json_decref(deck);
    json_decref(good);
}

/* help mode reads only the seat's view: changing the seat's own cards
 * (keeping what hints said) does not change the advice */
static void test_hint_ignores_own_cards(void **unused)
{
    (void)unused;
    static hn_state st, alt;
    game_err e;
    char why[320];
    for (int g = 0; g < 60; g++) {
        game_init(OPS, &st, g % 2 ? "rainbow" : "standard", 2 + g % 4, 600 + (uint64_t)g, NULL, &e);
        for (int t = 0; t < 6 + g % 20 && !st.over; t++)
            game_bot_play(OPS, &st, "rules", NULL, why, sizeof why, &e);
        if (st.over || st.next >= st.ndeck)
            continue;
        memcpy(&alt, &st, sizeof st);
        int s = st.cur;
        for (int i = 0; i < alt.nhand[s] && alt.next + i < alt.ndeck; i++) { /* swap with deck cards */
            uint8_t c = alt.hand[s][i];
            alt.hand[s][i] = alt.deck[alt.next + i];
            alt.deck[alt.next + i] = c;
        }
        json_t *h1, *h2;
        assert_int_equal(game_hint(OPS, &st, s, &h1, &e), 0);
        assert_int_equal(game_hint(OPS, &alt, s, &h2, &e), 0);
        assert_true(json_equal(h1, h2));
        json_decref(h1);
        json_decref(h2);
    }
}

static void test_rules_beats_random(void **unused)
{
    (void)unused;
    static hn_state st;
    for (int np = 2; np <= 5; np++) {
        double rules = 0, rnd = 0;
        for (int g = 0; g < 40; g++) {
            play_game(&st, g % 2 ? "rainbow" : "standard", np, 100 + (uint64_t)g, "rules", g % 4 < 2 ? "seed" : "standard");
            rules += hn_score(&st);
            play_game(&st, g % 2 ? "rainbow" : "standard", np, 100 + (uint64_t)g, "random", "seed");
            rnd += hn_score(&st);
        }
        rules /= 40;
        rnd /= 40;
        if (!(rules > rnd + 8 && rules > 12))
            fail_msg("%d players: rules %.2f, random %.2f", np, rules, rnd);
    }
}

static void test_rules_json_and_registry(void **unused)
{
    (void)unused;
    json_t *r = game_rules_json(OPS);
    assert_string_equal(json_string_value(json_object_get(r, "game")), "hanabi");
    assert_non_null(json_object_get(r, "plays"));
    /* every example play is well-formed */
    json_t *ex = json_object_get(json_object_get(r, "plays"), "examples");
    static hn_state st;
    rig(&st, 0, 3, 0, 0, "R1 R2 Y1 B1 G1 W1 W2 R3 B1 G5 Y4 R4 G3 B2 B3");
    for (size_t i = 0; i < json_array_size(ex); i++) {
        game_verdict v;
        game_err e;
        assert_int_equal(game_judge(OPS, &st, 0, json_object_get(json_array_get(ex, i), "play"), NULL, &v, &e), 0);
    }
    json_decref(r);
    assert_ptr_equal(game_find("hanabi"), OPS);
    assert_true(OPS->cooperative);
    assert_int_equal(OPS->state_size, sizeof(hn_state));
    assert_string_equal(OPS->bots[0].name, "conventions"); /* people's partner, and /hint */
    assert_true(game_has_bot(OPS, "rules"));
    assert_true(game_has_variant(OPS, "rainbow"));
    assert_true(game_has_bot(OPS, "random"));
    assert_string_equal(hn_card_name(0), "??");
    for (int c = 1; c <= 30; c++)
        assert_int_equal(hn_card_parse(hn_card_name(c), 6), c);
    assert_int_equal(hn_card_parse("M1", 5), 0);
    assert_int_equal(hn_card_parse("R6", 5), 0);
    assert_int_equal(hn_card_parse("r1", 5), 0);
    assert_int_equal(hn_card_parse("R10", 5), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deck_and_deal),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_hints),
        cmocka_unit_test(test_rainbow_hints),
        cmocka_unit_test(test_discard_and_draw_order),
        cmocka_unit_test(test_play_rules),
        cmocka_unit_test(test_errors_end_keeps_score),
        cmocka_unit_test(test_all_fives_end),
        cmocka_unit_test(test_end_deck_both_options),
        cmocka_unit_test(test_numeric_form_equals_ours),
        cmocka_unit_test(test_play_shapes),
        cmocka_unit_test(test_legal_lists_every_valid_play),
        cmocka_unit_test(test_views_hide_own_cards),
        cmocka_unit_test(test_view_shape_and_negative_info),
        cmocka_unit_test(test_mask_clears_vacated_slots),
        cmocka_unit_test(test_readers_see_only_what_they_may),
        cmocka_unit_test(test_explanations_say_only_public_things),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_export_hanablive),
        cmocka_unit_test(test_export_hanablive_end),
        cmocka_unit_test(test_roundtrip_all_states),
        cmocka_unit_test(test_decode_hostile),
        cmocka_unit_test(test_hint_ignores_own_cards),
        cmocka_unit_test(test_rules_beats_random),
        cmocka_unit_test(test_rules_json_and_registry),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
