/* test_comp10001bo.c: the rule examples of Comp10001-Bo (engine/comp10001bo)
 * that are scenarios, not one call: a turn, a deal, a game's end.
 *
 * The one-call examples (match_build, match_discard, is_valid_play and the
 * play function, seed 002's among them) are data in
 * tests/unit/rules/comp10001bo.rules, run by test_rules.c; the guarantees
 * every game keeps (round trips, determinism, refusals, legal vs check,
 * bots, views) are test_games.c's. Game flow tests build positions by
 * taking cards out of the draw pile of a dealt state (so the state still
 * holds each card exactly twice).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "comp10001bo/bo.h"
#include "testkit.h"

extern const game_ops comp10001bo_ops;
#define OPS (&comp10001bo_ops)

/* --- helpers --------------------------------------------------------------- */

static json_t *py(const char *text) { return tk_py(text); }
static const game_fn *fn(const char *name) { return tk_fn(OPS, name); }

static int call(const char *name, const char *pyargs, json_t **res, game_err *e)
{
    return tk_call(OPS, name, NULL, pyargs, res, e);
}

static int C(const char *s)
{
    int c = bo_card_parse(s, 0);
    assert_true(c > 0);
    return c;
}

/* A dealt state emptied: every card in the draw pile, player `cur` to move. */
static void blank(bo_state *st, int cur)
{
    bo_deal(st, 7);
    memset(&st->b, 0, sizeof st->b);
    memset(st->nhand, 0, sizeof st->nhand);
    memset(st->nstock, 0, sizeof st->nstock);
    for (int i = 0; i < BO_NCARDS; i++)
        st->draw[i] = (uint8_t)(i % 52 + 1);
    st->ndraw = BO_NCARDS;
    st->cur = (uint8_t)cur;
}

static uint8_t take(bo_state *st, const char *card)
{
    int c = C(card);
    for (int i = 0; i < st->ndraw; i++)
        if (st->draw[i] == c) {
            memmove(&st->draw[i], &st->draw[i + 1], (size_t)(st->ndraw - i - 1));
            st->ndraw--;
            return (uint8_t)c;
        }
    fail_msg("no more %s in the draw pile", card);
    return 0;
}

static void hand(bo_state *st, int p, const char *card) { st->hand[p][st->nhand[p]++] = take(st, card); }
static void stock(bo_state *st, int p, const char *card) { st->stock[p][st->nstock[p]++] = take(st, card); }
static void disc(bo_state *st, int p, int k, const char *card)
{
    st->b.disc[p][k][st->b.ndisc[p][k]++] = take(st, card);
}
static void build(bo_state *st, int b, const char *card) { st->b.build[b][st->b.nbuild[b]++] = take(st, card); }

/* An empty draw pile with every card still in the game (as the invariants
 * the ASan build checks want): the draw pile goes under player p's discard
 * pile k, whose top stays on top. */
static void bury(bo_state *st, int p, int k)
{
    uint8_t *pile = st->b.disc[p][k];
    int n = st->b.ndisc[p][k];
    assert_true(n + st->ndraw <= BO_PILE);
    memmove(pile + st->ndraw, pile, (size_t)n);
    memcpy(pile, st->draw, st->ndraw);
    st->b.ndisc[p][k] = (uint8_t)(n + st->ndraw);
    st->ndraw = 0;
}

/* Every player gets a stockpile of 8 (`top` on top) so nobody wins by
 * accident; the 7 fillers are one copy each of the 7s..Ks. */
static void stocks(bo_state *st, const char *t0, const char *t1, const char *t2, const char *t3)
{
    const char *tops[4] = {t0, t1, t2, t3};
    for (int p = 0; p < BO_NP; p++) {
        for (int i = 0; i < 7; i++) /* filler: one copy each of 7..K */
            st->stock[p][st->nstock[p]++] = st->draw[--st->ndraw];
        stock(st, p, tops[p]);
    }
}

static void stocks_n(bo_state *st, int p, int n) /* keep the top n cards */
{
    int drop = st->nstock[p] - n;
    for (int i = 0; i < drop; i++)
        st->draw[st->ndraw++] = st->stock[p][i];
    memmove(st->stock[p], st->stock[p] + drop, (size_t)n);
    st->nstock[p] = (uint8_t)n;
}

static int apply_text(bo_state *st, int seat, const char *pyplay, json_t **rec, game_err *e)
{
    json_t *p = py(pyplay);
    memset(e, 0, sizeof *e);
    int rc = game_apply(OPS, st, seat, p, rec, e);
    json_decref(p);
    return rc;
}

static void apply_ok(bo_state *st, int seat, const char *pyplay)
{
    game_err e;
    int rc = apply_text(st, seat, pyplay, NULL, &e);
    if (rc)
        fail_msg("apply %s: %d %s (%s)", pyplay, rc, e.detail, e.rule);
}

static void verdict_of(const bo_state *st, int seat, const char *pyplay, int *valid, int *ending,
                       char *rule)
{
    json_t *p = py(pyplay);
    game_verdict v;
    game_err e;
    assert_int_equal(game_judge(OPS, st, seat, p, NULL, &v, &e), 0);
    json_decref(p);
    *valid = v.valid;
    *ending = v.turn_ending;
    if (rule)
        strcpy(rule, v.rule);
}

/* A game to its end with the given bots per seat ("random"/"planner"). */
static void play_game(bo_state *st, uint64_t seed, const char *const bots[4])
{
    game_err e;
    char why[320];
    assert_int_equal(game_init(OPS, st, "standard", 4, seed, NULL, &e), 0);
    for (int guard = 0; guard < 2000; guard++) {
        game_status s;
        OPS->status(st, &s);
        if (s.over)
            return;
        if (game_autoplay(OPS, st, NULL))
            continue;
        assert_int_equal(game_bot_play(OPS, st, bots[s.to_move], NULL, why, sizeof why, &e), 0);
    }
    fail_msg("game did not end");
}

static const char *const RANDOM4[4] = {"random", "random", "random", "random"};

/* --- the function table ----------------------------------------------------- */

/* The rows /validate and /play serve (their examples are data:
 * tests/unit/rules/comp10001bo.rules). */
static void test_fn_table(void **unused)
{
    (void)unused;
    assert_int_equal(OPS->nfns, 5);
    assert_string_equal(fn("match_build")->kind, "validate");
    assert_int_equal(fn("match_build")->nrequired, 2);
    assert_int_equal(fn("match_discard")->nrequired, 4);
    assert_string_equal(fn("match_discard")->params[4], "from_hand");
    assert_int_equal(fn("is_valid_play")->nrequired, 6);
    assert_string_equal(fn("")->kind, "play");
    assert_string_equal(fn("")->params[5], "play_history");
    /* result types: bool stays bool, int stays int */
    json_t *r;
    game_err e;
    assert_int_equal(call("match_build", "('2C', [])", &r, &e), 0);
    assert_true(json_is_boolean(r));
    json_decref(r);
    assert_int_equal(call("match_discard", "('2C', [], 0, 0)", &r, &e), 0);
    assert_true(json_is_integer(r));
    json_decref(r);
}

/* --- game flow -------------------------------------------------------------- */

static void test_deal(void **unused)
{
    (void)unused;
    bo_state st;
    game_err e;
    assert_int_equal(game_init(OPS, &st, "standard", 4, 42, NULL, &e), 0);
    for (int p = 0; p < 4; p++)
        assert_int_equal(st.nstock[p], 8);
    assert_int_equal(st.nhand[0], 5);
    assert_int_equal(st.nhand[1], 0);
    assert_int_equal(st.ndraw, 104 - 32 - 5);
    assert_int_equal(st.cur, 0);
    /* conservation holds: decode accepts the encoding */
    json_t *j = OPS->encode(&st);
    bo_state st2;
    assert_int_equal(OPS->decode(&st2, j, &e), 0);
    json_decref(j);
    assert_int_equal(game_init(OPS, &st, "nosuch", 4, 1, NULL, &e), ERR_BAD_MEMBER);
    assert_int_equal(game_init(OPS, &st, "standard", 3, 1, NULL, &e), ERR_BAD_MEMBER);
    json_t *o = json_pack("{s:i}", "speed", 3);
    assert_int_equal(game_init(OPS, &st, NULL, 4, 1, o, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/options/speed");
    json_decref(o);
    o = json_object();
    assert_int_equal(game_init(OPS, &st, NULL, 4, 1, o, &e), 0);
    json_decref(o);
    o = json_array();
    assert_int_equal(game_init(OPS, &st, NULL, 4, 1, o, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/options");
    json_decref(o);
}

static void test_build_start_and_complete(void **unused)
{
    (void)unused;
    bo_state st;
    int valid, ending;
    char rule[64];
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    hand(&st, 0, "3C");
    hand(&st, 0, "2S");
    hand(&st, 0, "AC");
    hand(&st, 0, "KH");
    hand(&st, 0, "5D");
    verdict_of(&st, 0, "(0, '3C', (0, 0))", &valid, &ending, rule);
    assert_false(valid);
    assert_string_equal(rule, "build.start");
    verdict_of(&st, 0, "(0, 'AC', (0, 0))", &valid, &ending, rule);
    assert_false(valid);
    apply_ok(&st, 0, "(0, '2S', (0, 0))");
    verdict_of(&st, 0, "(0, '3C', (0, 0))", &valid, &ending, NULL);
    assert_true(valid);
    assert_false(ending);
    verdict_of(&st, 0, "(0, 'KH', (0, 0))", &valid, &ending, rule);
    assert_false(valid);
    assert_string_equal(rule, "build.colour");
    apply_ok(&st, 0, "(0, '3C', (0, 0))");
    int ndraw = st.ndraw;
    json_t *rec;
    game_err e;
    assert_int_equal(apply_text(&st, 0, "(0, 'AC', (0, 0))", &rec, &e), 0);
    assert_int_equal(st.b.nbuild[0], 0);
    assert_int_equal(st.ndraw, ndraw + 3);
    assert_int_equal(json_integer_value(json_object_get(rec, "completed_build")), 0);
    assert_false(json_is_true(json_object_get(rec, "turn_ending")));
    json_decref(rec);
    /* a K placed adjacently on a non-empty pile completes it too */
    apply_ok(&st, 0, "(0, 'KH', (0, 1))");
    assert_int_equal(st.b.nbuild[1], 1);
    verdict_of(&st, 0, "(0, '5D', (0, 1))", &valid, &ending, rule);
    assert_string_equal(rule, "build.adjacent");
}

static void test_build_completion_reshuffles(void **unused)
{
    (void)unused;
    bo_state st;
    blank(&st, 0);
    stocks(&st, "QS", "0D", "3H", "QD");
    build(&st, 2, "KC");
    hand(&st, 0, "KS");
    hand(&st, 0, "9H");
    uint8_t before[BO_NCARDS];
    int n = st.ndraw;
    memcpy(before, st.draw, (size_t)n);
    apply_ok(&st, 0, "(2, 'QS', (0, 2))");
    apply_ok(&st, 0, "(0, 'KS', (0, 2))"); /* K on Q: completes */
    assert_int_equal(st.b.nbuild[2], 0);
    assert_int_equal(st.ndraw, n + 3);
    /* the draw pile was shuffled (not just appended to) */
    assert_true(memcmp(before, st.draw, (size_t)n) != 0);
    int count = 0;
    for (int i = 0; i < st.ndraw; i++)
        count += st.draw[i] == C("KC") || st.draw[i] == C("KS") || st.draw[i] == C("QS");
    assert_true(count >= 3);
}

static void test_discard_rules_in_game(void **unused)
{
    (void)unused;
    bo_state st;
    int valid, ending;
    char rule[64];
    blank(&st, 1);
    stocks(&st, "9C", "0D", "3H", "QD");
    disc(&st, 0, 0, "JC");
    disc(&st, 1, 2, "2H");
    disc(&st, 2, 3, "KS");
    hand(&st, 1, "AD");
    hand(&st, 1, "0H");
    hand(&st, 1, "0S");
    hand(&st, 1, "5C");
    verdict_of(&st, 1, "(0, 'AD', (1, (1, 0)))", &valid, &ending, rule);
    assert_false(valid);
    assert_string_equal(rule, "discard.ace");
    verdict_of(&st, 1, "(0, '5C', (1, (0, 1)))", &valid, &ending, rule);
    assert_false(valid);
    assert_string_equal(rule, "discard.start-own");
    verdict_of(&st, 1, "(0, '5C', (1, (1, 1)))", &valid, &ending, rule);
    assert_true(valid && ending);
    assert_string_equal(rule, "discard.start");
    verdict_of(&st, 1, "(0, '0H', (1, (0, 0)))", &valid, &ending, NULL);
    assert_true(valid && !ending);
    verdict_of(&st, 1, "(0, '0S', (1, (0, 0)))", &valid, &ending, rule);
    assert_true(valid && ending);
    assert_string_equal(rule, "discard.restart");
    /* wrap: 2H <- KS from discard pile (2,3) */
    verdict_of(&st, 1, "(1, ('KS', (2, 3)), (1, (1, 2)))", &valid, &ending, NULL);
    assert_true(valid && !ending);
    verdict_of(&st, 1, "(1, ('KS', (2, 3)), (1, (2, 3)))", &valid, &ending, rule);
    assert_false(valid);
    assert_string_equal(rule, "discard.same-pile");
    verdict_of(&st, 1, "(1, ('JC', (2, 3)), (1, (1, 2)))", &valid, &ending, rule);
    assert_string_equal(rule, "source.not-top");
    verdict_of(&st, 1, "(1, ('JC', (0, 0)), (1, (2, 3)))", &valid, &ending, rule);
    assert_false(valid); /* illegal from a discard pile is no restart */
    verdict_of(&st, 1, "(2, '9C', (1, (0, 0)))", &valid, &ending, rule);
    assert_string_equal(rule, "stock.not-top");
    verdict_of(&st, 1, "(0, '9D', (1, (1, 1)))", &valid, &ending, rule);
    assert_string_equal(rule, "source.not-held");
    verdict_of(&st, 1, "(3, None, (None, None))", &valid, &ending, rule);
    assert_false(valid);
    assert_string_equal(rule, "noplay.exists");
    /* the turn-ending restart passes the turn; nothing else */
    apply_ok(&st, 1, "(0, '0H', (1, (0, 0)))");
    assert_int_equal(st.cur, 1);
    apply_ok(&st, 1, "(0, '0S', (1, (1, 2)))");
    assert_int_equal(st.cur, 2);
    assert_int_equal(st.turns[1], 1);
    assert_int_equal(st.nhand[2], 5);
}

static void test_five_play_limit_and_refill(void **unused)
{
    (void)unused;
    bo_state st;
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    hand(&st, 0, "2C");
    hand(&st, 0, "3S");
    hand(&st, 0, "4C");
    hand(&st, 0, "5S");
    hand(&st, 0, "6C");
    apply_ok(&st, 0, "(0, '2C', (0, 0))");
    apply_ok(&st, 0, "(0, '3S', (0, 0))");
    apply_ok(&st, 0, "(0, '4C', (0, 0))");
    apply_ok(&st, 0, "(0, '5S', (0, 0))");
    assert_int_equal(st.cur, 0);
    assert_int_equal(st.plays_this_turn, 4);
    int valid, ending;
    verdict_of(&st, 0, "(0, '6C', (0, 0))", &valid, &ending, NULL);
    assert_true(valid && ending); /* the 5th play ends the turn */
    int ndraw = st.ndraw;
    apply_ok(&st, 0, "(0, '6C', (0, 0))");
    assert_int_equal(st.cur, 1);
    assert_int_equal(st.turns[0], 1);
    assert_int_equal(st.plays_this_turn, 0);
    assert_int_equal(st.nhand[0], 0); /* no refill: the turn was over */
    assert_int_equal(st.nhand[1], 5);
    assert_int_equal(st.ndraw, ndraw - 5);

    /* refill mid-turn when the hand empties */
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    hand(&st, 0, "2C");
    hand(&st, 0, "3S");
    ndraw = st.ndraw;
    apply_ok(&st, 0, "(0, '2C', (0, 0))");
    assert_int_equal(st.nhand[0], 1);
    apply_ok(&st, 0, "(0, '3S', (0, 0))");
    assert_int_equal(st.cur, 0);
    assert_int_equal(st.nhand[0], 5);
    assert_int_equal(st.ndraw, ndraw - 5);
    /* the drawn cards are the top of the draw pile, top first */
    assert_int_equal(st.hand[0][0], st.draw[ndraw - 1 - 5 + 5]);
}

static void test_win(void **unused)
{
    (void)unused;
    bo_state st;
    blank(&st, 2);
    stocks(&st, "9C", "0D", "3H", "QD");
    stocks_n(&st, 2, 1);
    build(&st, 3, "2D");
    hand(&st, 2, "5S");
    json_t *rec;
    game_err e;
    int valid, ending;
    verdict_of(&st, 2, "(2, '3H', (0, 3))", &valid, &ending, NULL);
    assert_true(valid && ending);
    assert_int_equal(apply_text(&st, 2, "(2, '3H', (0, 3))", &rec, &e), 0);
    assert_true(json_is_true(json_object_get(rec, "won")));
    json_decref(rec);
    game_status s;
    OPS->status(&st, &s);
    assert_true(s.over);
    assert_int_equal(s.winner, 2);
    assert_string_equal(s.result, "won");
    assert_int_equal(s.to_move, -1);
    assert_true(s.score[2] == 8.0);
    assert_int_equal(apply_text(&st, 2, "(0, '5S', (1, (2, 0)))", NULL, &e), ERR_GAME_OVER);
    assert_int_equal(game_bot_play(OPS, &st, "planner", NULL, NULL, 0, &e), ERR_GAME_OVER);
    json_t *h;
    assert_int_equal(game_hint(OPS, &st, 2, &h, &e), ERR_GAME_OVER);
    json_t *l = OPS->legal(&st, 2);
    assert_int_equal(json_array_size(l), 0);
    json_decref(l);
    assert_int_equal(OPS->autoplay(&st, NULL), 0);
    /* round trip of a finished game */
    json_t *j = OPS->encode(&st);
    bo_state st2;
    assert_int_equal(OPS->decode(&st2, j, &e), 0);
    json_t *j2 = OPS->encode(&st2);
    assert_true(json_equal(j, j2));
    json_decref(j);
    json_decref(j2);
}

static void test_turn_limit(void **unused)
{
    (void)unused;
    bo_state st;
    blank(&st, 3);
    stocks(&st, "9C", "0D", "3H", "QD");
    for (int p = 0; p < 3; p++)
        st.turns[p] = 20;
    st.turns[3] = 19;
    hand(&st, 3, "5S");
    apply_ok(&st, 3, "(0, '5S', (1, (3, 0)))");
    game_status s;
    OPS->status(&st, &s);
    assert_true(s.over);
    assert_string_equal(s.result, "turn-limit");
    assert_int_equal(s.winner, -1);
    assert_int_equal(s.turns, 80);
    /* full games: every game ends, turns never exceed 20 each */
    for (uint64_t seed = 1; seed <= 30; seed++) {
        static bo_state g;
        play_game(&g, seed, RANDOM4);
        for (int p = 0; p < 4; p++)
            assert_true(g.turns[p] <= 20);
        OPS->status(&g, &s);
        if (strcmp(s.result, "turn-limit") == 0)
            for (int p = 0; p < 4; p++)
                assert_int_equal(g.turns[p], 20);
    }
}

static void test_pass_and_abandoned(void **unused)
{
    (void)unused;
    bo_state st;
    json_t *rec;
    /* a pass with cards left in the draw pile: the turn passes */
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    hand(&st, 0, "AC");
    hand(&st, 0, "AS");
    hand(&st, 0, "AH");
    hand(&st, 0, "AD");
    hand(&st, 0, "AC");
    json_t *l = OPS->legal(&st, 0);
    char *txt = json_dumps(l, JSON_COMPACT);
    assert_string_equal(txt, "[[3,null,[null,null]]]");
    free(txt);
    json_decref(l);
    assert_int_equal(OPS->autoplay(&st, &rec), 1);
    assert_string_equal(json_string_value(json_object_get(rec, "explanation")) , "no possible play: the hand holds only Aces that no build pile takes, the stockpile top 9C fits no pile, and no discard pile top can move");
    assert_true(json_is_true(json_object_get(rec, "turn_ending")));
    json_decref(rec);
    assert_int_equal(st.cur, 1);
    assert_int_equal(st.turns[0], 1);
    assert_int_equal(st.passes, 1);
    assert_int_equal(OPS->autoplay(&st, NULL), 0); /* player 1 holds cards */

    /* the draw pile is empty and nobody can play: abandoned */
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    disc(&st, 1, 0, "5S");
    bury(&st, 1, 0);
    int valid, ending;
    verdict_of(&st, 0, "(3, None, (None, None))", &valid, &ending, NULL);
    assert_true(valid && ending);
    apply_ok(&st, 0, "(3, None, (None, None))");
    game_status s;
    OPS->status(&st, &s);
    assert_true(s.over);
    assert_string_equal(s.result, "abandoned");

    /* empty draw pile but someone else can still play: go on */
    blank(&st, 0);
    stocks(&st, "9C", "2D", "3H", "QD");
    bury(&st, 1, 0);
    assert_int_equal(OPS->autoplay(&st, NULL), 1);
    OPS->status(&st, &s);
    assert_false(s.over);
    assert_int_equal(s.to_move, 1);
    assert_int_equal(OPS->autoplay(&st, NULL), 0);
}

static void test_not_your_turn_and_shapes(void **unused)
{
    (void)unused;
    bo_state st;
    game_err e;
    game_verdict v;
    assert_int_equal(game_init(OPS, &st, NULL, 4, 5, NULL, &e), 0);
    assert_int_equal(apply_text(&st, 1, "(3, None, (None, None))", NULL, &e), ERR_NOT_YOUR_TURN);
    assert_int_equal(apply_text(&st, SEAT_SPECTATOR, "(3, None, (None, None))", NULL, &e), ERR_NOT_YOUR_TURN);
    static const struct { const char *play, *ptr; } bad[] = {
        {"(0, '2C')", ""},
        {"'2C'", ""},
        {"(5, '2C', (0, 0))", "/0"},
        {"('0', '2C', (0, 0))", "/0"},
        {"(0, '2c', (0, 0))", "/1"},
        {"(0, 'ZZ', (0, 0))", "/1"},
        {"(0, '2C', (0, 4))", "/2/1"},
        {"(0, '2C', (2, 0))", "/2/0"},
        {"(0, '2C', (1, (0, 4)))", "/2/1/1"},
        {"(0, '2C', (1, (-1, 0)))", "/2/1/0"},
        {"(0, '2C', (1, 0))", "/2/1"},
        {"(1, '2C', (0, 0))", "/1"},
        {"(1, ('2C', [0]), (0, 0))", "/1/1"},
        {"(1, ('2C', (0, 9)), (0, 0))", "/1/1/1"},
        {"(3, '2C', (None, None))", "/1"},
        {"(3, None, None)", "/2"},
        {"(3, None, (None, 0))", "/2/1"},
    };
    unsigned char before[sizeof st];
    memcpy(before, &st, sizeof st);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *p = py(bad[i].play);
        int rc = game_judge(OPS, &st, 0, p, NULL, &v, &e);
        if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, bad[i].ptr) != 0)
            fail_msg("check %s: rc %d at \"%s\", expected \"%s\"", bad[i].play, rc, e.pointer, bad[i].ptr);
        assert_int_equal(game_apply(OPS, &st, 0, p, NULL, &e), ERR_BAD_MEMBER);
        json_decref(p);
    }
    assert_memory_equal(before, &st, sizeof st);
}

static void test_illegal_leaves_state_unchanged(void **unused)
{
    (void)unused;
    static bo_state st;
    static unsigned char before[sizeof(bo_state)];
    game_err e;
    char rule[64];
    int valid, ending;
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    hand(&st, 0, "3C");
    memcpy(before, &st, sizeof st);
    assert_int_equal(apply_text(&st, 0, "(0, '3C', (0, 0))", NULL, &e), ERR_ILLEGAL);
    assert_string_equal(e.rule, "build.start");
    assert_true(strlen(e.detail) > 10);
    assert_int_equal(apply_text(&st, 0, "(2, '0D', (1, (0, 0)))", NULL, &e), ERR_ILLEGAL);
    assert_string_equal(e.rule, "stock.not-top");
    assert_int_equal(apply_text(&st, 0, "(3, None, (None, None))", NULL, &e), ERR_ILLEGAL);
    assert_string_equal(e.rule, "noplay.exists");
    assert_memory_equal(before, &st, sizeof st);
    verdict_of(&st, 0, "(0, '3C', (1, (0, 0)))", &valid, &ending, rule);
    assert_memory_equal(before, &st, sizeof st);
    /* check's reason reads like a sentence */
    blank(&st, 0);
    stocks(&st, "9C", "0D", "3H", "QD");
    disc(&st, 0, 0, "5S");
    hand(&st, 0, "9D");
    json_t *p = py("(0, '9D', (1, (0, 0)))");
    game_verdict v;
    assert_int_equal(game_judge(OPS, &st, 0, p, NULL, &v, &e), 0);
    json_decref(p);
    assert_string_equal(v.reason, "9D on 5S is not adjacent in value: a turn-ending restart of the pile");
    assert_string_equal(v.rule, "discard.restart");
}

/* Decode `blob` after `mutate` applied a JSON-pointer edit; expect pointer. */
static void expect_decode_bad(json_t *good, const char *path, json_t *value, const char *pointer)
{
    json_t *blob = json_deep_copy(good);
    /* walk the path: "/a/0/b" */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *parent = blob;
    char *last = NULL;
    char *tok = strtok(buf + 1, "/");
    while (tok) {
        char *next = strtok(NULL, "/");
        if (!next) {
            last = tok;
            break;
        }
        parent = json_is_array(parent) ? json_array_get(parent, (size_t)atoi(tok)) : json_object_get(parent, tok);
        assert_non_null(parent);
        tok = next;
    }
    if (json_is_array(parent)) {
        if (value)
            json_array_set_new(parent, (size_t)atoi(last), value);
        else
            json_array_remove(parent, (size_t)atoi(last));
    } else {
        if (value)
            json_object_set_new(parent, last, value);
        else
            json_object_del(parent, last);
    }
    static bo_state st;
    memset(&st, 0xAB, sizeof st);
    static unsigned char before[sizeof(bo_state)];
    memcpy(before, &st, sizeof st);
    game_err e;
    int rc = OPS->decode(&st, blob, &e);
    if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, pointer) != 0)
        fail_msg("decode with %s changed: rc %d at \"%s\" (%s), expected \"%s\"", path, rc, e.pointer,
                 e.detail, pointer);
    assert_memory_equal(before, &st, sizeof st); /* untouched on error */
    json_decref(blob);
}

static void test_decode_hostile(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    char why[320];
    assert_int_equal(game_init(OPS, &st, "standard", 4, 8, NULL, &e), 0);
    for (int i = 0; i < 40; i++)
        if (!OPS->autoplay(&st, NULL))
            game_bot_play(OPS, &st, "random", NULL, why, sizeof why, &e);
    json_t *good = OPS->encode(&st);
    /* make sure the paths below exist */
    assert_true(json_array_size(json_object_get(good, "draw")) > 2);
    assert_true(json_array_size(json_object_get(good, "history")) > 2);

    expect_decode_bad(good, "/game", json_string("hanabi"), "/game");
    expect_decode_bad(good, "/variant", json_string("nosuch"), "/variant");
    expect_decode_bad(good, "/variant", json_string("bonus"), ""); /* no jokers: not a bonus pack */
    expect_decode_bad(good, "/variant", NULL, "/variant");
    expect_decode_bad(good, "/rng", json_string("x"), "/rng");
    expect_decode_bad(good, "/rng/inc", json_string("2"), "/rng/inc");
    expect_decode_bad(good, "/bot_key", json_string("xyz"), "/bot_key");
    expect_decode_bad(good, "/draw/1", json_string("1S"), "/draw/1");
    expect_decode_bad(good, "/draw/0", json_integer(3), "/draw/0");
    expect_decode_bad(good, "/draw/0", json_string("ZZ"), "/draw/0");
    expect_decode_bad(good, "/draw", json_object(), "/draw");
    expect_decode_bad(good, "/hands/2", json_pack("[s,s,s,s,s,s]", "2C", "2C", "3C", "4C", "5C", "6C"), "/hands/2");
    expect_decode_bad(good, "/hands", json_pack("[[],[],[]]"), "/hands");
    expect_decode_bad(good, "/stockpiles/1", json_string("2C"), "/stockpiles/1");
    expect_decode_bad(good, "/stockpiles/1/0", json_null(), "/stockpiles/1/0");
    expect_decode_bad(good, "/discard_piles/3/1", json_pack("[s]", "AS"), "/discard_piles/3/1/0");
    expect_decode_bad(good, "/discard_piles/3", json_pack("[[],[],[]]"), "/discard_piles/3");
    expect_decode_bad(good, "/build_piles/0", json_pack("[s]", "3C"), "/build_piles/0/0");
    expect_decode_bad(good, "/build_piles/0", json_pack("[s,s]", "2C", "3H"), "/build_piles/0/1");
    expect_decode_bad(good, "/build_piles/0", json_pack("[s,s]", "2C", "AS"), "/build_piles/0/1");
    expect_decode_bad(good, "/current", json_integer(4), "/current");
    expect_decode_bad(good, "/current", json_integer(-1), "/current");
    expect_decode_bad(good, "/current", json_true(), "/current");
    expect_decode_bad(good, "/turns/0", json_integer(-2), "/turns/0");
    expect_decode_bad(good, "/turns/0", json_integer(21), "/turns/0");
    expect_decode_bad(good, "/plays_this_turn", json_integer(6), "/plays_this_turn");
    expect_decode_bad(good, "/result", json_string("draw"), "/result");
    expect_decode_bad(good, "/winner", json_integer(1), "/winner");
    expect_decode_bad(good, "/result", json_string("won"), "/winner");
    expect_decode_bad(good, "/passes", json_integer(-1), "/passes");
    expect_decode_bad(good, "/history/1/seat", json_integer(9), "/history/1/seat");
    expect_decode_bad(good, "/history/1/turn", json_integer(0), "/history/1/turn");
    expect_decode_bad(good, "/history/1/play", json_pack("[i,s,[i,i]]", 0, "2C", 0, 7), "/history/1/play/2/1");
    expect_decode_bad(good, "/history/0", json_integer(1), "/history/0");
    /* conservation: a card replaced by another (3 copies of one, 1 of another) */
    const char *d0 = json_string_value(json_array_get(json_object_get(good, "draw"), 0));
    const char *other = strcmp(d0, "5H") == 0 ? "6H" : "5H";
    expect_decode_bad(good, "/draw/0", json_string(other), "");
    /* a card removed / too many cards */
    expect_decode_bad(good, "/draw/0", NULL, "");
    json_t *more = json_deep_copy(good);
    json_array_append_new(json_object_get(more, "draw"), json_string("5H"));
    assert_int_equal(OPS->decode(&st, more, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "");
    json_decref(more);
    /* not an object at all, deep garbage */
    json_t *junk = py("[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]");
    assert_int_equal(OPS->decode(&st, junk, &e), ERR_BAD_MEMBER);
    json_decref(junk);
    json_decref(good);
}

/* What each reader's view holds (that no view depends on the cards its
 * reader may not see is test_games.c's, for every game). */
static void test_views_hide_cards(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    char why[320];
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assert_int_equal(game_init(OPS, &st, NULL, 4, seed, NULL, &e), 0);
        for (int i = 0; i < (int)(seed * 3) && st.result == BO_PLAYING; i++)
            if (!OPS->autoplay(&st, NULL))
                game_bot_play(OPS, &st, "random", NULL, why, sizeof why, &e);
        if (st.result != BO_PLAYING)
            continue; /* a finished game shows everything (below) */
        for (int seat = SEAT_OBSERVER; seat < 4; seat++) {
            if (seat == SEAT_ADMIN)
                continue;
            json_t *v = OPS->view(&st, seat);
            if (seat == SEAT_OBSERVER) { /* "spectators": "all": every hand, nothing face down */
                assert_int_equal(json_array_size(json_object_get(v, "hands")), 4);
                assert_null(json_object_get(v, "draw"));
                for (int p = 0; p < 4; p++)
                    assert_null(json_object_get(json_array_get(json_object_get(v, "stockpiles"), (size_t)p), "cards"));
                json_decref(v);
                continue;
            }
            assert_null(json_object_get(v, "hands"));
            assert_null(json_object_get(v, "draw"));
            for (int p = 0; p < 4; p++)
                assert_null(json_object_get(json_array_get(json_object_get(v, "stockpiles"), (size_t)p), "cards"));
            if (seat < 0)
                assert_null(json_object_get(v, "hand"));
            else
                assert_int_equal(json_array_size(json_object_get(v, "hand")), st.nhand[seat]);
            json_decref(v);
        }
        json_t *a = OPS->view(&st, SEAT_ADMIN);
        assert_int_equal(json_array_size(json_object_get(a, "hands")), 4);
        assert_int_equal(json_array_size(json_object_get(a, "draw")), st.ndraw);
        if (st.ndraw)
            assert_string_equal(json_string_value(json_array_get(json_object_get(a, "draw"), 0)),
                                bo_card_name(st.draw[st.ndraw - 1]));
        json_decref(a);
    }
    /* a finished game shows every card to everyone */
    assert_int_equal(game_init(OPS, &st, NULL, 4, 3, NULL, &e), 0);
    while (st.result == BO_PLAYING)
        if (!OPS->autoplay(&st, NULL))
            assert_int_equal(game_bot_play(OPS, &st, "planner", NULL, why, sizeof why, &e), 0);
    for (int seat = SEAT_OBSERVER; seat < 4; seat++) {
        json_t *v = OPS->view(&st, seat);
        assert_int_equal(json_array_size(json_object_get(v, "hands")), 4);
        assert_non_null(json_object_get(v, "draw"));
        json_decref(v);
    }
    /* the shape of a view */
    assert_int_equal(game_init(OPS, &st, NULL, 4, 1, NULL, &e), 0);
    json_t *v = OPS->view(&st, 0);
    assert_string_equal(json_string_value(json_object_get(v, "game")), "comp10001bo");
    assert_int_equal(json_integer_value(json_object_get(v, "seat")), 0);
    assert_int_equal(json_integer_value(json_object_get(v, "current")), 0);
    assert_int_equal(json_integer_value(json_object_get(v, "turn")), 1);
    assert_false(json_is_true(json_object_get(v, "over")));
    assert_string_equal(json_string_value(json_object_get(v, "result")), "playing");
    assert_true(json_is_null(json_object_get(v, "winner")));
    assert_int_equal(json_integer_value(json_object_get(v, "draw_pile")), 67);
    json_t *sp = json_array_get(json_object_get(v, "stockpiles"), 3);
    assert_int_equal(json_integer_value(json_object_get(sp, "count")), 8);
    assert_string_equal(json_string_value(json_object_get(sp, "top")), bo_card_name(st.stock[3][7]));
    assert_int_equal(json_array_size(json_object_get(v, "discard_piles")), 4);
    assert_int_equal(json_array_size(json_array_get(json_object_get(v, "discard_piles"), 0)), 4);
    assert_int_equal(json_array_size(json_object_get(v, "build_piles")), 4);
    json_decref(v);
    v = OPS->view(&st, SEAT_SPECTATOR);
    assert_true(json_is_null(json_object_get(v, "seat")));
    json_decref(v);
}

/* --- legal / check / bots --------------------------------------------------- */

/* Every well-formed play of a hand card, a discard top or the stockpile
 * top to every destination is listed exactly when check() calls it valid
 * (that every listed play is valid, once, is test_games.c's). */
static void test_legal_lists_every_valid_play(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    char why[320];
    for (uint64_t seed = 1; seed <= 12; seed++) {
        assert_int_equal(game_init(OPS, &st, NULL, 4, seed, NULL, &e), 0);
        for (int step = 0; step < 400 && st.result == BO_PLAYING; step++) {
            int cur = st.cur;
            json_t *l = OPS->legal(&st, cur);
            assert_true(json_array_size(l) > 0);
            size_t i;
            json_t *p;
            /* every well-formed play not listed is rejected: hand cards
             * and discard tops to every destination */
            bo_obs o;
            bo_observe(&st, cur, &o);
            for (int t = 0; t < 3; t++) {
                for (int dk = 0; dk < 2; dk++)
                    for (int d = 0; d < (dk ? 16 : 4); d++) {
                        int card = t == 0 ? (o.nhand ? o.hand[0] : C("5S"))
                                          : t == 2 ? (o.stock_top[cur] ? o.stock_top[cur] : C("5S")) : 0;
                        json_t *play;
                        if (t == 1) {
                            int sp = (d + 5) % 16;
                            int n = o.b.ndisc[sp / 4][sp % 4];
                            if (!n)
                                continue;
                            card = o.b.disc[sp / 4][sp % 4][n - 1];
                            play = json_pack("[i,[s,[i,i]],o]", 1, bo_card_name(card), sp / 4, sp % 4,
                                             dk ? json_pack("[i,[i,i]]", 1, d / 4, d % 4) : json_pack("[i,i]", 0, d));
                        } else {
                            play = json_pack("[i,s,o]", t, bo_card_name(card),
                                             dk ? json_pack("[i,[i,i]]", 1, d / 4, d % 4) : json_pack("[i,i]", 0, d));
                        }
                        game_verdict v;
                        assert_int_equal(game_judge(OPS, &st, cur, play, NULL, &v, &e), 0);
                        int listed = 0;
                        json_array_foreach(l, i, p) listed |= json_equal(p, play);
                        assert_int_equal(listed, v.valid);
                        json_decref(play);
                    }
            }
            json_decref(l);
            if (!OPS->autoplay(&st, NULL))
                assert_int_equal(game_bot_play(OPS, &st, "random", NULL, why, sizeof why, &e), 0);
        }
    }
}

/* A bot's record: its number, its explanation ("plays ..."), whether it
 * ends the turn; the history's first entry (that bots play legally and
 * hints advise bots[0] is test_games.c's). */
static void test_bot_records(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    char why[320];
    assert_int_equal(game_init(OPS, &st, NULL, 4, 21, NULL, &e), 0);
    assert_string_equal(OPS->bots[0].name, "planner");
    assert_int_equal(game_bot_play(OPS, &st, "nobody", NULL, why, sizeof why, &e), ERR_BAD_MEMBER);
    for (int step = 0; step < 200 && st.result == BO_PLAYING; step++) {
        json_t *rec = NULL;
        if (OPS->autoplay(&st, &rec)) {
            assert_non_null(json_object_get(rec, "explanation"));
            json_decref(rec);
            continue;
        }
        int n = st.nhist;
        assert_int_equal(game_bot_play(OPS, &st, step % 2 ? "planner" : "random", &rec, why, sizeof why, &e), 0);
        assert_int_equal(json_integer_value(json_object_get(rec, "n")), n);
        assert_string_equal(json_string_value(json_object_get(rec, "explanation")), why);
        assert_true(strncmp(why, "plays ", 6) == 0);
        assert_true(json_is_boolean(json_object_get(rec, "turn_ending")));
        json_decref(rec);
    }
    json_t *hist = OPS->history(&st, SEAT_SPECTATOR);
    assert_int_equal(json_array_size(hist), st.nhist);
    json_t *h0 = json_array_get(hist, 0);
    assert_int_equal(json_integer_value(json_object_get(h0, "n")), 0);
    assert_int_equal(json_integer_value(json_object_get(h0, "seat")), 0);
    assert_int_equal(json_integer_value(json_object_get(h0, "turn")), 1);
    assert_true(json_is_array(json_object_get(h0, "play")));
    json_decref(hist);
}

/* The /play function, fed each real decision point's observation, answers
 * a play that is_valid_play rates 1 or 2, or the no-play claim exactly
 * when is_valid_play rates it 3. */
static json_t *obs_args(const bo_state *st, int seat, json_t *hist)
{
    bo_obs o;
    bo_observe(st, seat, &o);
    json_t *hand = json_array(), *stocks_j = json_array(), *d = json_array(), *b = json_array();
    for (int i = 0; i < o.nhand; i++)
        json_array_append_new(hand, bo_card_json(o.hand[i]));
    for (int p = 0; p < 4; p++) {
        json_array_append_new(stocks_j, json_pack("[o,i]", bo_card_json(o.stock_top[p]), o.nstock[p]));
        json_t *mine = json_array();
        for (int k = 0; k < 4; k++) {
            json_t *pile = json_array();
            for (int i = 0; i < o.b.ndisc[p][k]; i++)
                json_array_append_new(pile, bo_card_json(o.b.disc[p][k][i]));
            json_array_append_new(mine, pile);
        }
        json_array_append_new(d, mine);
        json_t *pile = json_array();
        for (int i = 0; i < o.b.nbuild[p]; i++)
            json_array_append_new(pile, bo_card_json(o.b.build[p][i]));
        json_array_append_new(b, pile);
    }
    return json_pack("[i,o,o,o,o,O]", seat, hand, stocks_j, d, b, hist);
}

static void test_play_fn_over_real_games(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    char why[320];
    const game_fn *play = fn(""), *valid = fn("is_valid_play");
    int decisions = 0, passes = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        assert_int_equal(game_init(OPS, &st, NULL, 4, seed, NULL, &e), 0);
        json_t *hist = json_array();
        while (st.result == BO_PLAYING) {
            json_t *args = obs_args(&st, st.cur, hist);
            json_t *argv[6];
            for (int i = 0; i < 6; i++)
                argv[i] = json_array_get(args, (size_t)i);
            json_t *r = NULL;
            assert_int_equal(play->call(argv, NULL, &r, NULL, &e), 0);
            json_t *vargs[6] = {r, argv[0], argv[1], argv[2], argv[3], argv[4]};
            json_t *vr = NULL;
            assert_int_equal(valid->call(vargs, NULL, &vr, NULL, &e), 0);
            long long v = json_integer_value(vr);
            int is_pass = json_integer_value(json_array_get(r, 0)) == 3;
            if (is_pass ? v != 3 : (v != 1 && v != 2)) {
                char *s = json_dumps(r, JSON_COMPACT);
                fail_msg("seed %llu: /play answered %s rated %lld", (unsigned long long)seed, s, v);
            }
            decisions++;
            passes += is_pass;
            json_decref(vr);
            json_decref(r);
            json_decref(args);
            /* the game moves on with the planner (or the forced pass) */
            int n = st.nhist;
            if (!OPS->autoplay(&st, NULL))
                assert_int_equal(game_bot_play(OPS, &st, seed % 2 ? "planner" : "random", NULL, why, sizeof why, &e), 0);
            for (int i = n; i < st.nhist; i++)
                json_array_append_new(hist, json_pack("[i,o]", st.hist[i].seat, bo_play_json(&st.hist[i].play)));
        }
        json_decref(hist);
    }
    assert_true(decisions > 1000);
    assert_true(passes > 0);
}

/* /play on the largest arguments it accepts: a 104-card hand, 104-card piles. */
static void test_play_fn_extreme_arguments(void **unused)
{
    (void)unused;
    static char text[16384];
    int k = snprintf(text, sizeof text, "(0, [");
    for (int i = 0; i < 104; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "%s'%s'", i ? "," : "", bo_card_name(i % 52 + 1));
    k += snprintf(text + k, sizeof text - (size_t)k, "], (('4S', 8), ('0D', 8), ('3H', 8), ('KD', 8)), ((");
    for (int pile = 0; pile < 4; pile++) {
        k += snprintf(text + k, sizeof text - (size_t)k, "%s[", pile ? "," : "");
        for (int i = 0; i < 104; i++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%s'5H'", i ? "," : "");
        k += snprintf(text + k, sizeof text - (size_t)k, "]");
    }
    k += snprintf(text + k, sizeof text - (size_t)k, "), ([], [], [], []), ([], [], [], []), ([], [], [], [])), ([");
    for (int i = 0; i < 104; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "%s'3C'", i ? "," : "");
    k += snprintf(text + k, sizeof text - (size_t)k, "], [], [], []), [])");
    assert_true((size_t)k < sizeof text - 8);
    json_t *r;
    game_err e;
    assert_int_equal(call("", text, &r, &e), 0);
    /* judge the answer with is_valid_play on the same arguments */
    json_t *a = py(text);
    json_t *argv[6] = {r, json_array_get(a, 0), json_array_get(a, 1), json_array_get(a, 2),
                       json_array_get(a, 3), json_array_get(a, 4)};
    json_t *v;
    assert_int_equal(fn("is_valid_play")->call(argv, NULL, &v, NULL, &e), 0);
    assert_true(json_integer_value(v) == 1 || json_integer_value(v) == 2);
    json_decref(v);
    json_decref(a);
    json_decref(r);
}

/* Win rates: the planner must clearly beat random. */
static void test_planner_beats_random(void **unused)
{
    (void)unused;
    static bo_state st;
    int planner_wins = 0, random_wins = 0, games = 120;
    for (int g = 0; g < games; g++) {
        int seat = g % 4;
        const char *bots[4] = {"random", "random", "random", "random"};
        bots[seat] = "planner";
        play_game(&st, 1000 + (uint64_t)g, bots);
        if (st.result == BO_WON && st.winner == seat)
            planner_wins++;
        play_game(&st, 1000 + (uint64_t)g, RANDOM4);
        if (st.result == BO_WON && st.winner == seat)
            random_wins++;
    }
    print_message("planner seat wins %d/%d; random seat wins %d/%d\n", planner_wins, games, random_wins, games);
    assert_true(planner_wins > 2 * random_wins + 10);
}

static void test_rules_json(void **unused)
{
    (void)unused;
    json_t *r = game_rules_json(OPS);
    assert_string_equal(json_string_value(json_object_get(r, "title")), "Comp10001-Bo");
    assert_int_equal(json_array_size(json_object_get(r, "functions")), 5);
    assert_string_equal(OPS->bots[2].name, "random"); /* three strategies */
    assert_null(OPS->bots[3].name);
    assert_non_null(json_object_get(r, "notation"));
    assert_non_null(json_object_get(json_object_get(r, "plays"), "examples"));
    json_t *f = json_array_get(json_object_get(r, "functions"), 3);
    assert_string_equal(json_string_value(json_object_get(f, "path")), "/play/comp10001bo");
    json_decref(r);
    assert_string_equal(OPS->name, "comp10001bo");
    assert_int_equal(OPS->min_players, 4);
    assert_int_equal(OPS->max_players, 4);
    assert_string_equal(OPS->variants[0], "standard");
    assert_string_equal(OPS->variants[1], "bonus");
    assert_null(OPS->variants[2]);
    assert_int_equal(OPS->state_size, sizeof(bo_state));
    assert_ptr_equal(game_find("comp10001bo"), OPS);
}

static void test_cards(void **unused)
{
    (void)unused;
    assert_int_equal(bo_card_parse("AS", 0), 1);
    assert_int_equal(bo_card_parse("KC", 0), 52);
    assert_int_equal(bo_card_parse("ZZ", 0), 0);
    assert_int_equal(bo_card_parse("ZZ", 1), BO_JOKER);
    assert_int_equal(bo_card_parse("10S", 0), 0);
    assert_int_equal(bo_card_parse("", 0), 0);
    assert_int_equal(bo_card_parse("A", 0), 0);
    assert_int_equal(bo_card_parse("as", 0), 0);
    for (int c = 1; c <= 52; c++)
        assert_int_equal(bo_card_parse(bo_card_name(c), 0), c);
    assert_true(bo_red(C("5H")) && bo_red(C("5D")) && !bo_red(C("5S")) && !bo_red(C("5C")));
    assert_int_equal(bo_val(C("0D")), 10);
    assert_int_equal(bo_val(C("JD")), 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cards),
        cmocka_unit_test(test_fn_table),
        cmocka_unit_test(test_deal),
        cmocka_unit_test(test_build_start_and_complete),
        cmocka_unit_test(test_build_completion_reshuffles),
        cmocka_unit_test(test_discard_rules_in_game),
        cmocka_unit_test(test_five_play_limit_and_refill),
        cmocka_unit_test(test_win),
        cmocka_unit_test(test_turn_limit),
        cmocka_unit_test(test_pass_and_abandoned),
        cmocka_unit_test(test_not_your_turn_and_shapes),
        cmocka_unit_test(test_illegal_leaves_state_unchanged),
        cmocka_unit_test(test_decode_hostile),
        cmocka_unit_test(test_views_hide_cards),
        cmocka_unit_test(test_legal_lists_every_valid_play),
        cmocka_unit_test(test_bot_records),
        cmocka_unit_test(test_play_fn_over_real_games),
        cmocka_unit_test(test_play_fn_extreme_arguments),
        cmocka_unit_test(test_planner_beats_random),
        cmocka_unit_test(test_rules_json),
    };
    if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='test_win*' */
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
