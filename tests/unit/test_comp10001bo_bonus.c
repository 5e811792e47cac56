/* test_comp10001bo_bonus.c: the bonus variant of Comp10001-Bo (jokers ZZ and
 * embargo cards), engine/comp10001bo: the rule examples that are scenarios.
 *
 * The one-call examples (the seed's worked joker examples, the validators
 * and the bonus play function in bonus mode) are data in
 * tests/unit/rules/comp10001bo.rules, run by test_rules.c; round trips,
 * refusals, legal vs check and bots legal are test_games.c's, for every
 * game. Here: the readings of jokers, embargoes in play, hostile blobs,
 * what views hold, and the strategies (the bonus planner beats random and
 * the standard planner at the bonus game). Positions are built from a dealt
 * bonus state whose cards all sit in the draw pile, so every state still
 * holds each card exactly twice and ZZ four times.
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

/* Python literal -> JSON: tuples to arrays, quotes, None/True/False. */
static json_t *py(const char *text) { return tk_py(text); }
static const game_fn *fn(const char *name) { return tk_fn(OPS, name); }

static int call(const char *name, const char *variant, const char *pyargs, json_t **res, game_err *e)
{
    return tk_call(OPS, name, variant, pyargs, res, e);
}


static int C(const char *s)
{
    int c = bo_card_parse(s, 1);
    assert_true(c > 0);
    return c;
}

/* A dealt bonus state emptied: all 108 cards in the draw pile. */
static void blank(bo_state *st, int cur)
{
    bo_deal_variant(st, 7, 1);
    memset(&st->b, 0, sizeof st->b);
    memset(st->nhand, 0, sizeof st->nhand);
    memset(st->nstock, 0, sizeof st->nstock);
    for (int i = 0; i < BO_NCARDS_BONUS; i++)
        st->draw[i] = (uint8_t)(i < BO_NCARDS ? i % 52 + 1 : BO_JOKER);
    st->ndraw = BO_NCARDS_BONUS;
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

/* Give `card` to player p; a full hand gives its last card back to the draw pile. */
static void hand(bo_state *st, int p, const char *card)
{
    uint8_t c = take(st, card);
    if (st->nhand[p] == BO_HAND)
        st->draw[st->ndraw++] = st->hand[p][--st->nhand[p]];
    st->hand[p][st->nhand[p]++] = c;
}
static void stock(bo_state *st, int p, const char *card) { st->stock[p][st->nstock[p]++] = take(st, card); }
static void disc(bo_state *st, int p, int k, const char *card)
{
    st->b.disc[p][k][st->b.ndisc[p][k]++] = take(st, card);
}
static void build(bo_state *st, int b, const char *card) { st->b.build[b][st->b.nbuild[b]++] = take(st, card); }

/* Stockpiles of n[p] cards with the given tops; the fillers are the bottom
 * cards of the draw pile (one deck's Aces, 2s, ... in order). */
static void stocks(bo_state *st, const int n[4], const char *t0, const char *t1, const char *t2, const char *t3)
{
    const char *tops[4] = {t0, t1, t2, t3};
    for (int p = 0; p < BO_NP; p++) {
        for (int i = 0; i < n[p] - 1; i++) {
            st->stock[p][st->nstock[p]++] = st->draw[0];
            memmove(&st->draw[0], &st->draw[1], (size_t)(st->ndraw - 1));
            st->ndraw--;
        }
        stock(st, p, tops[p]);
    }
}
static const int FULL[4] = {8, 8, 8, 8};

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

/* check(): valid, turn_ending and the rule id. */
static void verdict(const bo_state *st, int seat, const char *pyplay, int valid, int ending, const char *rule)
{
    json_t *p = py(pyplay);
    game_verdict v;
    game_err e;
    int rc = game_judge(OPS, st, seat, p, NULL, &v, &e);
    json_decref(p);
    if (rc)
        fail_msg("check %s: rc %d %s at %s", pyplay, rc, e.detail, e.pointer);
    if (v.valid != valid || (valid && v.turn_ending != ending) || (rule && strcmp(rule, v.rule) != 0))
        fail_msg("check %s: valid %d ending %d rule %s (%s); expected %d %d %s", pyplay, v.valid,
                 v.turn_ending, v.rule, v.reason, valid, ending, rule ? rule : "-");
}

static void roundtrip(const bo_state *st)
{
    game_err e;
    static bo_state st2;
    json_t *j = OPS->encode(st);
    int rc = OPS->decode(&st2, j, &e);
    if (rc)
        fail_msg("decode of an encoding failed: %s at %s", e.detail, e.pointer);
    json_t *j2 = OPS->encode(&st2);
    assert_true(json_equal(j, j2));
    json_decref(j);
    json_decref(j2);
}

static void step(bo_state *st, const char *const bots[4])
{
    game_err e;
    char why[320];
    if (OPS->autoplay(st, NULL))
        return;
    int rc = game_bot_play(OPS, st, bots[st->cur], NULL, why, sizeof why, &e);
    if (rc)
        fail_msg("bot %s: %d %s", bots[st->cur], rc, e.detail);
}

static void play_game(bo_state *st, uint64_t seed, const char *const bots[4])
{
    game_err e;
    assert_int_equal(game_init(OPS, st, "bonus", 4, seed, NULL, &e), 0);
    for (int guard = 0; guard < 3000 && st->result == BO_PLAYING; guard++)
        step(st, bots);
    assert_int_not_equal(st->result, BO_PLAYING);
}

static uint32_t R(int v, int red) { return 1u << ((v - 2) * 2 + red); }

/* --- the seed's joker examples ----------------------------------------------- */

static void test_seed_joker_examples(void **unused)
{
    (void)unused;
    /* the readings behind the seed's examples (the examples themselves are
     * data, tests/unit/rules/comp10001bo.rules): a joker starting a build
     * pile is a 2 or a K of any colour */
    assert_int_equal(bo_build_top((const uint8_t[]){BO_JOKER}, 1), R(2, 0) | R(2, 1) | R(13, 0) | R(13, 1));
    /* a joker on 4C on a discard pile: a red 3 or a red 5 */
    uint8_t p4[2] = {(uint8_t)C("4C"), BO_JOKER};
    assert_int_equal(bo_disc_top(p4, 2), R(3, 1) | R(5, 1));
    /* two jokers on a Jack clear a build pile: the top can be a King */
    uint8_t bj[4] = {(uint8_t)C("KS"), (uint8_t)C("QC"), (uint8_t)C("JS"), BO_JOKER};
    assert_false(bo_build_completes(BO_JOKER, bj, 3)); /* 10 or Q */
    assert_true(bo_build_completes(BO_JOKER, bj, 4));  /* 9, J or K */
}

/* 6S played on the joker (fixing it as a 5), then moved to a build pile: the
 * joker is ambiguous again (3 or 5) and a 2S from the stockpile fits. */
static void test_seed_joker_reading_not_frozen(void **unused)
{
    (void)unused;
    static bo_state st;
    blank(&st, 0);
    stocks(&st, FULL, "6S", "2S", "9D", "9H");
    disc(&st, 3, 0, "4C");
    build(&st, 0, "2C");
    build(&st, 0, "3C");
    build(&st, 0, "4S");
    hand(&st, 0, "ZZ");
    hand(&st, 0, "5C");
    hand(&st, 0, "9C");
    apply_ok(&st, 0, "(0, 'ZZ', (1, (3, 0)))");  /* joker on 4C: red 3 or 5 */
    apply_ok(&st, 0, "(2, '6S', (1, (3, 0)))");  /* 6S on it: the joker reads 5 */
    assert_int_equal(bo_disc_top(st.b.disc[3][0], 2), R(3, 1) | R(5, 1));
    verdict(&st, 0, "(0, '9C', (1, (3, 0)))", 1, 1, "discard.restart"); /* 9C on 6S */
    apply_ok(&st, 0, "(0, '5C', (0, 0))");       /* build pile 0 now needs a black 6 */
    apply_ok(&st, 0, "(1, ('6S', (3, 0)), (0, 0))");
    assert_int_equal(st.b.ndisc[3][0], 2);
    assert_int_equal(bo_disc_top(st.b.disc[3][0], 2), R(3, 1) | R(5, 1));
    apply_ok(&st, 0, "(0, '9C', (1, (0, 0)))");  /* ends player 0's turn */
    assert_int_equal(st.cur, 1);
    verdict(&st, 1, "(2, '2S', (1, (3, 0)))", 1, 0, "discard.joker"); /* on the red 3 */
}

/* --- joker clauses ------------------------------------------------------------ */

static void test_joker_build_piles(void **unused)
{
    (void)unused;
    /* (the one-call examples are data: tests/unit/rules/comp10001bo.rules)
     * completion: the top can be read as 2 or K */
    uint8_t p[8];
    p[0] = (uint8_t)C("2C");
    p[1] = (uint8_t)C("3S");
    assert_true(bo_build_completes(BO_JOKER, p, 2));    /* 2 or 4: a 2 */
    assert_false(bo_build_completes(BO_JOKER, p, 1));   /* on 2C: only 3 */
    p[0] = (uint8_t)C("KH");
    assert_false(bo_build_completes(BO_JOKER, p, 1));   /* on KH: only Q */
    assert_false(bo_build_completes(BO_JOKER, p, 0));   /* starting: no */
    p[0] = BO_JOKER;
    p[1] = BO_JOKER;
    assert_false(bo_build_completes(BO_JOKER, p, 1));   /* 3 or Q */
    assert_true(bo_build_completes(BO_JOKER, p, 2));    /* 2, 4, J or K */
    assert_true(bo_build_completes(C("AD"), p, 2));
    assert_false(bo_match_build(C("2S"), p, 1));        /* a lone joker is a 2 or K */
    assert_true(bo_match_build(C("2S"), p, 2));         /* on the second (a 3) ... */
    assert_true(bo_build_completes(C("2S"), p, 2));     /* ... a natural 2 completes */
    p[0] = (uint8_t)C("2C");
    p[1] = (uint8_t)C("3C");
    p[2] = (uint8_t)C("4C");
    assert_false(bo_build_completes(BO_JOKER, p, 3));   /* 3 or 5 */

    /* in a game: two jokers on a Jack clear the pile into the draw pile */
    static bo_state st;
    blank(&st, 1);
    stocks(&st, FULL, "9D", "9D", "9H", "9H");
    build(&st, 2, "KS");
    build(&st, 2, "QC");
    build(&st, 2, "JS");
    hand(&st, 1, "ZZ");
    hand(&st, 1, "ZZ");
    hand(&st, 1, "5H");
    int nd = st.ndraw;
    verdict(&st, 1, "(0, 'ZZ', (0, 2))", 1, 0, "build.joker");
    apply_ok(&st, 1, "(0, 'ZZ', (0, 2))");
    assert_int_equal(st.b.nbuild[2], 4);
    verdict(&st, 1, "(0, 'ZZ', (0, 2))", 1, 0, "build.complete");
    json_t *rec;
    game_err e;
    assert_int_equal(apply_text(&st, 1, "(0, 'ZZ', (0, 2))", &rec, &e), 0);
    assert_int_equal(json_integer_value(json_object_get(rec, "completed_build")), 2);
    json_decref(rec);
    assert_int_equal(st.b.nbuild[2], 0);
    assert_int_equal(st.ndraw, nd + 5);
    /* a joker starts a build pile; a natural that fits no reading is rejected */
    hand(&st, 1, "ZZ");
    apply_ok(&st, 1, "(0, 'ZZ', (0, 3))");
    verdict(&st, 1, "(0, '5H', (0, 3))", 0, 0, "build.joker");
    verdict(&st, 1, "(0, '5H', (0, 1))", 0, 0, "build.start");
    roundtrip(&st);
}

static void test_joker_discard_piles(void **unused)
{
    (void)unused;
    /* (the one-call examples are data: tests/unit/rules/comp10001bo.rules) */
    static bo_state st;
    blank(&st, 2);
    stocks(&st, FULL, "9D", "9D", "ZZ", "9H");
    disc(&st, 0, 0, "5C");
    disc(&st, 1, 0, "ZZ");
    hand(&st, 2, "ZZ");
    hand(&st, 2, "0S");
    verdict(&st, 2, "(0, 'ZZ', (1, (2, 0)))", 1, 1, "discard.start");
    verdict(&st, 2, "(0, 'ZZ', (1, (1, 1)))", 0, 0, "discard.start-own");
    verdict(&st, 2, "(2, 'ZZ', (1, (2, 0)))", 0, 0, "discard.start-own");
    verdict(&st, 2, "(2, 'ZZ', (1, (0, 0)))", 1, 0, "discard.joker");
    verdict(&st, 2, "(1, ('ZZ', (1, 0)), (1, (0, 0)))", 1, 0, "discard.joker");
    verdict(&st, 2, "(1, ('ZZ', (1, 0)), (1, (1, 0)))", 0, 0, "discard.same-pile");
    apply_ok(&st, 2, "(0, 'ZZ', (1, (0, 0)))");
    verdict(&st, 2, "(0, '0S', (1, (0, 0)))", 1, 1, "discard.restart");
    verdict(&st, 2, "(1, ('ZZ', (0, 0)), (0, 0))", 1, 0, "build.start");
    verdict(&st, 2, "(1, ('5C', (0, 0)), (0, 0))", 0, 0, "source.not-top");
    roundtrip(&st);
}

/* --- embargo ------------------------------------------------------------------ */

static void test_embargo_targets(void **unused)
{
    (void)unused;
    static bo_state st;
    static unsigned char before[sizeof(bo_state)];
    const int n[4] = {8, 4, 3, 1};
    blank(&st, 0);
    stocks(&st, n, "9D", "9D", "9H", "9H");
    hand(&st, 0, "5C");
    for (int p = 0; p < 4; p++)
        assert_true(st.holds_embargo[p] && st.embargoed_by[p] == -1);
    verdict(&st, 0, "(4, None, (2, 0))", 0, 0, "embargo.self");
    verdict(&st, 0, "(4, None, (2, 1))", 0, 0, "embargo.stockpile"); /* 4 cards */
    verdict(&st, 0, "(4, None, (2, 2))", 1, 1, "embargo.play");      /* 3 cards */
    verdict(&st, 0, "(4, None, (2, 3))", 1, 1, "embargo.play");
    verdict(&st, 0, "(5, None, (0, 0))", 0, 0, "embargo.not-embargoed");
    memcpy(before, &st, sizeof st);
    game_err e;
    assert_int_equal(apply_text(&st, 0, "(4, None, (2, 1))", NULL, &e), ERR_ILLEGAL);
    assert_string_equal(e.rule, "embargo.stockpile");
    assert_memory_equal(before, &st, sizeof st);
    /* legal() lists exactly the two embargo plays among the turn-ending ones */
    json_t *l = OPS->legal(&st, 0);
    int emb = 0;
    size_t i;
    json_t *p;
    json_array_foreach(l, i, p) emb += json_integer_value(json_array_get(p, 0)) == 4;
    assert_int_equal(emb, 2);
    json_decref(l);
    /* the embargo ends the turn */
    json_t *rec;
    assert_int_equal(apply_text(&st, 0, "(4, None, (2, 3))", &rec, &e), 0);
    assert_true(json_is_true(json_object_get(rec, "turn_ending")));
    char *s = json_dumps(json_object_get(rec, "play"), JSON_COMPACT);
    assert_string_equal(s, "[4,null,[2,3]]");
    free(s);
    json_decref(rec);
    assert_int_equal(st.cur, 1);
    assert_false(st.holds_embargo[0]);
    assert_int_equal(st.embargoed_by[3], 0);
    /* already embargoed: nobody else may embargo player 3 */
    hand(&st, 1, "5S");
    verdict(&st, 1, "(4, None, (2, 3))", 0, 0, "embargo.already");
    verdict(&st, 1, "(4, None, (2, 2))", 1, 1, "embargo.play");
    apply_ok(&st, 1, "(4, None, (2, 2))");
    /* player 2 is embargoed: it may not embargo anyone (only stock or clear) */
    verdict(&st, 2, "(4, None, (2, 3))", 0, 0, "embargo.restricted");
    apply_ok(&st, 2, "(5, None, (1, (0, 1)))");
    assert_int_equal(st.embargoed_by[2], -1);
    assert_int_equal(st.cur, 3);
    /* player 3 (embargoed by 0) clears; player 0's card is spent for good */
    apply_ok(&st, 3, "(5, None, (0, 2))");
    assert_int_equal(st.embargoed_by[3], -1);
    assert_int_equal(st.b.nbuild[2], 0); /* the card left play: not stacked */
    verdict(&st, 0, "(4, None, (2, 3))", 0, 0, "embargo.used");
    verdict(&st, 0, "(4, None, (2, 2))", 0, 0, "embargo.used");
    apply_ok(&st, 0, "(0, '5C', (1, (0, 0)))"); /* starts a pile: turn-ending */
    /* re-embargo after clearing, by another player's unused card */
    assert_int_equal(st.cur, 1);
    verdict(&st, 1, "(4, None, (2, 3))", 0, 0, "embargo.used");
    apply_ok(&st, 1, "(0, '5S', (1, (1, 0)))");
    assert_int_equal(st.cur, 2);
    hand(&st, 2, "5H");
    verdict(&st, 2, "(4, None, (2, 3))", 1, 1, "embargo.play");
    apply_ok(&st, 2, "(4, None, (2, 3))");
    assert_int_equal(st.embargoed_by[3], 2);
    roundtrip(&st);
}

static void test_embargoed_player_restricted(void **unused)
{
    (void)unused;
    static bo_state st;
    const int n[4] = {8, 3, 8, 8};
    blank(&st, 1);
    stocks(&st, n, "9D", "3C", "9H", "9H");
    st.holds_embargo[0] = 0;
    st.embargoed_by[1] = 0;
    build(&st, 0, "2S");
    disc(&st, 2, 0, "5H");
    disc(&st, 1, 0, "4D");
    hand(&st, 1, "3S");
    hand(&st, 1, "ZZ");
    hand(&st, 1, "6C");
    verdict(&st, 1, "(0, '3S', (0, 0))", 0, 0, "embargo.restricted");
    verdict(&st, 1, "(0, 'ZZ', (0, 1))", 0, 0, "embargo.restricted");
    verdict(&st, 1, "(0, '6C', (1, (1, 1)))", 0, 0, "embargo.restricted");
    verdict(&st, 1, "(1, ('5H', (2, 0)), (1, (1, 0)))", 0, 0, "embargo.restricted");
    verdict(&st, 1, "(3, None, (None, None))", 0, 0, "noplay.exists");
    verdict(&st, 1, "(2, '3C', (0, 0))", 1, 0, "build.adjacent");
    /* legal(): stockpile plays and the 20 clears, nothing from the hand */
    json_t *l = OPS->legal(&st, 1);
    size_t i;
    json_t *p;
    int clears = 0, stock = 0;
    json_array_foreach(l, i, p) {
        long long t = json_integer_value(json_array_get(p, 0));
        assert_true(t == 2 || t == 5);
        clears += t == 5;
        stock += t == 2;
    }
    assert_int_equal(clears, 20);
    assert_true(stock >= 1);
    json_decref(l);
    apply_ok(&st, 1, "(2, '3C', (0, 0))");
    assert_int_equal(st.cur, 1);
    /* nothing left from the stockpile: the clear is still possible, no pass */
    assert_int_equal(OPS->autoplay(&st, NULL), 0);
    int nd = st.b.ndisc[2][0];
    json_t *rec;
    game_err e;
    assert_int_equal(apply_text(&st, 1, "(5, None, (1, (2, 0)))", &rec, &e), 0);
    char *s = json_dumps(json_object_get(rec, "play"), JSON_COMPACT);
    assert_string_equal(s, "[5,null,[1,[2,0]]]");
    free(s);
    assert_true(json_is_true(json_object_get(rec, "turn_ending")));
    json_decref(rec);
    assert_int_equal(st.b.ndisc[2][0], nd); /* nothing stacked */
    assert_int_equal(st.embargoed_by[1], -1);
    assert_int_equal(st.cur, 2);
    roundtrip(&st);

    /* an embargoed player still wins by emptying the stockpile */
    const int m[4] = {8, 1, 8, 8};
    blank(&st, 1);
    stocks(&st, m, "9D", "3C", "9H", "9H");
    st.holds_embargo[3] = 0;
    st.embargoed_by[1] = 3;
    build(&st, 0, "2S");
    apply_ok(&st, 1, "(2, '3C', (0, 0))");
    assert_int_equal(st.result, BO_WON);
    assert_int_equal(st.winner, 1);
    roundtrip(&st);
}

/* Embargo plays are possible plays: no pass while one exists. */
static void test_embargo_counts_as_a_play(void **unused)
{
    (void)unused;
    static bo_state st;
    const int n[4] = {8, 8, 2, 8};
    blank(&st, 0);
    stocks(&st, n, "9D", "9D", "9H", "9H");
    hand(&st, 0, "AC");
    hand(&st, 0, "AS");
    assert_int_equal(OPS->autoplay(&st, NULL), 0);
    verdict(&st, 0, "(3, None, (None, None))", 0, 0, "noplay.exists");
    json_t *l = OPS->legal(&st, 0);
    char *s = json_dumps(l, JSON_COMPACT);
    assert_string_equal(s, "[[4,null,[2,2]]]");
    free(s);
    json_decref(l);
    /* without the card, the pass is recorded */
    st.holds_embargo[0] = 0;
    assert_int_equal(OPS->autoplay(&st, NULL), 1);
    assert_int_equal(st.cur, 1);
    /* the standard variant knows no plays 4/5 (a bad shape) */
    static bo_state sd;
    game_err e;
    game_verdict v;
    assert_int_equal(game_init(OPS, &sd, "standard", 4, 3, NULL, &e), 0);
    json_t *p = py("(4, None, (2, 1))");
    assert_int_equal(game_judge(OPS, &sd, 0, p, NULL, &v, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/0");
    json_decref(p);
    p = py("(0, 'ZZ', (0, 0))");
    assert_int_equal(game_judge(OPS, &sd, 0, p, NULL, &v, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/1");
    json_decref(p);
}

static void test_embargo_play_shapes(void **unused)
{
    (void)unused;
    static bo_state st;
    static unsigned char before[sizeof(bo_state)];
    game_err e;
    game_verdict v;
    assert_int_equal(game_init(OPS, &st, "bonus", 4, 5, NULL, &e), 0);
    static const struct { const char *play, *ptr; } bad[] = {
        {"(4, '2C', (2, 1))", "/1"},
        {"(4, None, (1, 1))", "/2/0"},
        {"(4, None, (2, 4))", "/2/1"},
        {"(4, None, (2, (1, 0)))", "/2/1"},
        {"(4, None)", ""},
        {"(5, '2C', (0, 0))", "/1"},
        {"(5, None, (0, 4))", "/2/1"},
        {"(5, None, (2, 1))", "/2/0"},
        {"(5, None, (None, None))", "/2/0"},
        {"(6, None, (0, 0))", "/0"},
        {"(0, 'Z', (0, 0))", "/1"},
    };
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

/* --- the deal, codec, views ---------------------------------------------------- */

static void test_bonus_deal(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    assert_int_equal(game_init(OPS, &st, "bonus", 4, 42, NULL, &e), 0);
    assert_int_equal(st.variant, 1);
    assert_int_equal(st.ndraw, 108 - 32 - 5);
    int count[BO_JOKER + 1] = {0};
    for (int i = 0; i < st.ndraw; i++) count[st.draw[i]]++;
    for (int p = 0; p < 4; p++) {
        for (int i = 0; i < st.nstock[p]; i++) count[st.stock[p][i]]++;
        for (int i = 0; i < st.nhand[p]; i++) count[st.hand[p][i]]++;
        assert_true(st.holds_embargo[p]);
        assert_int_equal(st.embargoed_by[p], -1);
    }
    for (int c = 1; c <= 52; c++)
        assert_int_equal(count[c], 2);
    assert_int_equal(count[BO_JOKER], 4);
    roundtrip(&st);
    /* standard deals stay standard */
    assert_int_equal(game_init(OPS, &st, "standard", 4, 42, NULL, &e), 0);
    assert_int_equal(st.ndraw, 104 - 32 - 5);
    json_t *j = OPS->encode(&st);
    assert_null(json_object_get(j, "holds_embargo"));
    json_decref(j);
}

/* The strategies play the bonus game's own plays: embargoes, clears and
 * jokers all come up in 50 games (that their states round trip is
 * test_games.c's). */
static void test_bonus_plays_come_up(void **unused)
{
    (void)unused;
    static bo_state st;
    static const char *const mixes[][4] = {
        {"planner", "planner", "planner", "planner"},
        {"planner", "standard", "random", "standard"},
        {"random", "random", "random", "random"},
    };
    int embargoes = 0, clears = 0, jokers_played = 0;
    game_err e;
    for (int g = 0; g < 50; g++) {
        assert_int_equal(game_init(OPS, &st, "bonus", 4, (uint64_t)(7000 + g), NULL, &e), 0);
        for (int i = 0; i < 3000 && st.result == BO_PLAYING; i++)
            step(&st, mixes[g % 3]);
        assert_int_not_equal(st.result, BO_PLAYING);
        for (int i = 0; i < st.nhist; i++) {
            embargoes += st.hist[i].play.type == BO_EMBARGO;
            clears += st.hist[i].play.type == BO_CLEAR;
            jokers_played += st.hist[i].play.card == BO_JOKER;
        }
    }
    print_message("50 bonus games: %d embargoes, %d clears, %d joker plays\n", embargoes, clears, jokers_played);
    assert_true(embargoes > 20 && clears > 10 && jokers_played > 100);
}

static void expect_decode_bad(const json_t *good, const char *member, json_t *value, const char *pointer)
{
    json_t *blob = json_deep_copy(good);
    if (value)
        json_object_set_new(blob, member, value);
    else
        json_object_del(blob, member);
    static bo_state st;
    static unsigned char before[sizeof(bo_state)];
    memset(&st, 0xAB, sizeof st);
    memcpy(before, &st, sizeof st);
    game_err e;
    int rc = OPS->decode(&st, blob, &e);
    if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, pointer) != 0)
        fail_msg("decode with %s changed: rc %d at \"%s\" (%s), expected \"%s\"", member, rc, e.pointer,
                 e.detail, pointer);
    assert_memory_equal(before, &st, sizeof st);
    json_decref(blob);
}

static void test_bonus_decode_hostile(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    const int n[4] = {8, 3, 2, 8};
    blank(&st, 0);
    stocks(&st, n, "9D", "9D", "9H", "9H");
    st.holds_embargo[0] = 0;
    st.embargoed_by[2] = 0;
    build(&st, 0, "ZZ");
    hand(&st, 0, "ZZ");
    json_t *good = OPS->encode(&st);
    assert_int_equal(OPS->decode(&st, good, &e), 0);
    expect_decode_bad(good, "holds_embargo", json_pack("[b,b,b]", 1, 1, 1), "/holds_embargo");
    expect_decode_bad(good, "holds_embargo", json_pack("[b,i,b,b]", 1, 1, 1, 1), "/holds_embargo/1");
    expect_decode_bad(good, "holds_embargo", json_pack("[b,b,b,b]", 1, 1, 1, 1), "/embargoed_by/2");
    expect_decode_bad(good, "embargoed_by", NULL, "/embargoed_by");
    expect_decode_bad(good, "embargoed_by", json_pack("[n,n,i,n]", 2), "/embargoed_by/2");     /* self */
    expect_decode_bad(good, "embargoed_by", json_pack("[n,n,i,n]", 4), "/embargoed_by/2");
    expect_decode_bad(good, "embargoed_by", json_pack("[n,n,i,n]", 1), "/embargoed_by/2");     /* 1 holds it */
    expect_decode_bad(good, "embargoed_by", json_pack("[n,i,i,n]", 0, 0), "/embargoed_by/2"); /* one card */
    expect_decode_bad(good, "embargoed_by", json_pack("[n,n,n,i]", 0), "/embargoed_by/3");     /* 8 cards */
    expect_decode_bad(good, "embargoed_by", json_pack("[n,n,s,n]", "0"), "/embargoed_by/2");
    /* jokers: 4 exactly; build piles only as play could leave them */
    json_t *draw = json_deep_copy(json_object_get(good, "draw"));
    json_array_append_new(draw, json_string("ZZ"));
    expect_decode_bad(good, "draw", draw, "");
    expect_decode_bad(good, "build_piles", json_pack("[[s,s,s],[],[],[]]", "ZZ", "ZZ", "ZZ"), "/build_piles/0/2");
    expect_decode_bad(good, "build_piles", json_pack("[[s,s],[],[],[]]", "ZZ", "AS"), "/build_piles/0/1");
    expect_decode_bad(good, "build_piles", json_pack("[[s,s,s],[],[],[]]", "KS", "QS", "ZZ"), "/build_piles/0/2");
    expect_decode_bad(good, "build_piles", json_pack("[[s,s],[],[],[]]", "2C", "ZZ"), "");
    expect_decode_bad(good, "variant", json_string("standard"), "/draw/0"); /* no ZZ in standard */
    json_decref(good);
    /* a standard blob is not a bonus one */
    assert_int_equal(game_init(OPS, &st, "standard", 4, 1, NULL, &e), 0);
    good = OPS->encode(&st);
    expect_decode_bad(good, "variant", json_string("bonus"), "");
    json_decref(good);
}

static int has_text(const json_t *j, const char *needle)
{
    char *s = json_dumps(j, JSON_COMPACT);
    int r = strstr(s, needle) != NULL;
    free(s);
    return r;
}

static void test_bonus_views(void **unused)
{
    (void)unused;
    static bo_state st;
    const int n[4] = {8, 3, 2, 8};
    blank(&st, 0);
    stocks(&st, n, "9D", "9D", "9H", "9H");
    st.holds_embargo[3] = 0;
    st.embargoed_by[2] = 3;
    hand(&st, 1, "ZZ");
    for (int seat = SEAT_ADMIN; seat < 4; seat++) {
        json_t *v = OPS->view(&st, seat);
        char *s = json_dumps(json_object_get(v, "holds_embargo"), JSON_COMPACT);
        assert_string_equal(s, "[true,true,true,false]");
        free(s);
        s = json_dumps(json_object_get(v, "embargoed_by"), JSON_COMPACT);
        assert_string_equal(s, "[null,null,3,null]");
        free(s);
        assert_string_equal(json_string_value(json_object_get(v, "variant")), "bonus");
        /* the joker in player 1's hand shows to player 1 and the admin only */
        assert_int_equal(has_text(v, "\"ZZ\""), seat == 1 || seat == SEAT_ADMIN);
        json_decref(v);
    }
    game_err e;
    /* standard views keep their shape */
    assert_int_equal(game_init(OPS, &st, "standard", 4, 1, NULL, &e), 0);
    json_t *v = OPS->view(&st, 0);
    assert_null(json_object_get(v, "holds_embargo"));
    assert_null(json_object_get(v, "embargoed_by"));
    json_decref(v);
}

/* joker_reads: what a joker on top of a pile stands for, in every view */
static void test_bonus_views_joker_reads(void **unused)
{
    (void)unused;
    static bo_state st;
    blank(&st, 0);
    stocks(&st, FULL, "9D", "9D", "9H", "9H");
    build(&st, 0, "KS");
    build(&st, 0, "ZZ"); /* on a black King: a black Queen only */
    build(&st, 1, "ZZ"); /* starting a pile: a 2 or a King, either colour */
    build(&st, 2, "2C"); /* a natural top: null */
    disc(&st, 2, 1, "5C");
    disc(&st, 2, 1, "ZZ"); /* on 5C: a red 4 or a red 6 */
    for (int seat = SEAT_ADMIN; seat < 4; seat++) {
        json_t *v = OPS->view(&st, seat);
        json_t *r = json_object_get(v, "joker_reads");
        char *s = json_dumps(json_object_get(r, "build_piles"), JSON_COMPACT);
        assert_string_equal(s, "[[{\"value\":\"Q\",\"colour\":\"black\"}],"
                               "[{\"value\":\"2\",\"colour\":\"black\"},{\"value\":\"2\",\"colour\":\"red\"},"
                               "{\"value\":\"K\",\"colour\":\"black\"},{\"value\":\"K\",\"colour\":\"red\"}],"
                               "null,null]");
        free(s);
        s = json_dumps(json_object_get(r, "discard_piles"), JSON_COMPACT);
        assert_string_equal(s, "[[null,null,null,null],[null,null,null,null],"
                               "[null,[{\"value\":\"4\",\"colour\":\"red\"},{\"value\":\"6\",\"colour\":\"red\"}],null,null],"
                               "[null,null,null,null]]");
        free(s);
        json_decref(v);
    }
    game_err e;
    assert_int_equal(game_init(OPS, &st, "standard", 4, 1, NULL, &e), 0);
    json_t *v = OPS->view(&st, 0);
    assert_null(json_object_get(v, "joker_reads")); /* no jokers in the standard game */
    json_decref(v);
}

/* --- legal / check --------------------------------------------------------------- */

/* Every embargo, clear and joker play is listed exactly when check() calls
 * it valid (that every listed play is valid is test_games.c's). */
static void test_bonus_legal_lists_every_valid_play(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    static const char *const mix[4] = {"planner", "random", "standard", "random"};
    for (uint64_t seed = 1; seed <= 10; seed++) {
        assert_int_equal(game_init(OPS, &st, "bonus", 4, seed, NULL, &e), 0);
        for (int n = 0; n < 500 && st.result == BO_PLAYING; n++) {
            int cur = st.cur;
            json_t *l = OPS->legal(&st, cur);
            assert_true(json_array_size(l) > 0);
            size_t i;
            json_t *p;
            /* every embargo / clear / joker play not listed is rejected */
            for (int t = 0; t < 4 + 20 + 20; t++) {
                json_t *play;
                if (t < 4)
                    play = json_pack("[i,n,[i,i]]", 4, 2, t);
                else if (t < 24)
                    play = t - 4 < 4 ? json_pack("[i,n,[i,i]]", 5, 0, t - 4)
                                     : json_pack("[i,n,[i,[i,i]]]", 5, 1, (t - 8) / 4, (t - 8) % 4);
                else
                    play = t - 24 < 4 ? json_pack("[i,s,[i,i]]", 0, "ZZ", 0, t - 24)
                                      : json_pack("[i,s,[i,[i,i]]]", 0, "ZZ", 1, (t - 28) / 4, (t - 28) % 4);
                game_verdict v;
                assert_int_equal(game_judge(OPS, &st, cur, play, NULL, &v, &e), 0);
                int listed = 0;
                json_array_foreach(l, i, p) listed |= json_equal(p, play);
                if (listed != v.valid) {
                    char *s = json_dumps(play, JSON_COMPACT);
                    fail_msg("%s: listed %d valid %d (%s)", s, listed, v.valid, v.reason);
                }
                json_decref(play);
            }
            json_decref(l);
            step(&st, mix);
        }
    }
}

/* --- autograder functions in bonus mode ---------------------------------------------- */

#define EMPTY_D "(([], [], [], []), ([], [], [], []), ([], [], [], []), ([], [], [], []))"

#define BARGS(hand, holds, emb, stk, hist) "(0, " hand ", " holds ", " emb ", " stk ", " EMPTY_D ", ([], [], [], []), " hist ")"

static void test_bonus_fn(void **unused)
{
    (void)unused;
    assert_string_equal(fn("bonus")->kind, "play");
    assert_int_equal(fn("bonus")->nrequired, 8);
    assert_string_equal(fn("bonus")->params[2], "holds_embargo");
    assert_string_equal(fn("bonus")->params[3], "embargoed");
    /* embargoed, the stockpile stuck: a clear (which one is the strategy's;
     * the other examples are data, tests/unit/rules/comp10001bo.rules) */
    char *s;
    json_t *r;
    game_err e;
    assert_int_equal(call("bonus", NULL, BARGS("['2C', 'ZZ']", "False", "3", "(('9C', 2), ('0D', 8), ('3H', 2), ('KD', 8))", "[(3, (4, None, (2, 0)))]"), &r, &e), 0);
    s = json_dumps(r, JSON_COMPACT);
    assert_int_equal(json_integer_value(json_array_get(r, 0)), 5);
    json_decref(r);
    free(s);
}

/* The bonus function, fed every decision point of seeded bonus games (the
 * seat's hand, its embargo state and the public history), answers a play
 * the stored game accepts. */
static void test_bonus_fn_always_legal(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    const game_fn *f = fn("bonus");
    static const char *const mix[4] = {"planner", "standard", "random", "planner"};
    int decisions = 0, embargoes = 0, clears = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        assert_int_equal(game_init(OPS, &st, "bonus", 4, seed, NULL, &e), 0);
        json_t *hist = json_array();
        while (st.result == BO_PLAYING) {
            int seat = st.cur;
            bo_obs o;
            bo_observe(&st, seat, &o);
            json_t *hand_j = json_array(), *stk = json_array(), *d = json_array(), *b = json_array();
            for (int i = 0; i < o.nhand; i++)
                json_array_append_new(hand_j, bo_card_json(o.hand[i]));
            for (int p = 0; p < 4; p++) {
                json_array_append_new(stk, json_pack("[o,i]", bo_card_json(o.stock_top[p]), o.nstock[p]));
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
            json_t *argv[8] = {json_integer(seat), hand_j, json_boolean(st.holds_embargo[seat]),
                               st.embargoed_by[seat] >= 0 ? json_integer(st.embargoed_by[seat]) : json_null(),
                               stk, d, b, json_incref(hist)};
            json_t *r = NULL;
            assert_int_equal(f->call(argv, "bonus", &r, NULL, &e), 0);
            game_verdict v;
            assert_int_equal(game_judge(OPS, &st, seat, r, NULL, &v, &e), 0);
            if (!v.valid) {
                char *s = json_dumps(r, JSON_COMPACT);
                fail_msg("seed %llu: the bonus function answered %s: %s", (unsigned long long)seed, s, v.reason);
            }
            decisions++;
            embargoes += json_integer_value(json_array_get(r, 0)) == 4;
            clears += json_integer_value(json_array_get(r, 0)) == 5;
            for (int i = 0; i < 8; i++)
                json_decref(argv[i]);
            int n = st.nhist;
            /* the game goes on with the answer half of the time, else a bot */
            if (seed % 2 == 0 || OPS->autoplay(&st, NULL) == 0) {
                if (seed % 2 == 0)
                    assert_int_equal(game_apply(OPS, &st, seat, r, NULL, &e), 0);
                else
                    step(&st, mix);
            }
            json_decref(r);
            for (int i = n; i < st.nhist; i++)
                json_array_append_new(hist, json_pack("[i,o]", st.hist[i].seat, bo_play_json(&st.hist[i].play)));
        }
        json_decref(hist);
    }
    print_message("bonus function: %d decisions, %d embargoes, %d clears\n", decisions, embargoes, clears);
    assert_true(decisions > 2000 && embargoes > 10 && clears > 10);
}

/* --- strategies --------------------------------------------------------------------- */

/* The planner explains its embargoes (that bots play legally and hints
 * advise bots[0] is test_games.c's). */
static void test_bonus_bot_explains_embargo(void **unused)
{
    (void)unused;
    static bo_state st;
    game_err e;
    char why[320];
    assert_int_equal(game_init(OPS, &st, "bonus", 4, 77, NULL, &e), 0);
    int explained_embargo = 0;
    for (int g = 0; g < 40; g++) {
        assert_int_equal(game_init(OPS, &st, "bonus", 4, 300 + (uint64_t)g, NULL, &e), 0);
        while (st.result == BO_PLAYING) {
            json_t *rec = NULL;
            if (OPS->autoplay(&st, &rec)) {
                json_decref(rec);
                continue;
            }
            assert_int_equal(game_bot_play(OPS, &st, "planner", &rec, why, sizeof why, &e), 0);
            const json_t *pl = json_object_get(rec, "play");
            if (json_integer_value(json_array_get(pl, 0)) == 4 && strstr(why, "closest to winning"))
                explained_embargo++;
            assert_true(strlen(why) > 10);
            json_decref(rec);
        }
    }
    assert_true(explained_embargo > 0);
}

static int wins_of(const char *hero, const char *other, int games, uint64_t seed0)
{
    static bo_state st;
    int wins = 0;
    for (int g = 0; g < games; g++) {
        const char *bots[4] = {other, other, other, other};
        bots[g % 4] = hero;
        play_game(&st, seed0 + (uint64_t)g, bots);
        wins += st.result == BO_WON && st.winner == g % 4;
    }
    return wins;
}

/* Win rates at the bonus game: the hero seat rotates among 3 copies of the
 * other strategy. */
static void test_bonus_strategy_win_rates(void **unused)
{
    (void)unused;
    int few = 80, games = 400;
    int bonus_vs_random = wins_of("planner", "random", few, 9000);
    int random_vs_random = wins_of("random", "random", few, 9000);
    int bonus_vs_std = wins_of("planner", "standard", games, 9000);
    int std_vs_std = wins_of("standard", "standard", games, 9000);
    print_message("bonus game: planner vs 3 random %d/%d; random vs 3 random %d/%d; "
                  "planner vs 3 standard %d/%d; standard vs 3 standard %d/%d\n",
                  bonus_vs_random, few, random_vs_random, few, bonus_vs_std, games, std_vs_std, games);
    assert_true(bonus_vs_random > 2 * random_vs_random + few / 2);
    assert_true(bonus_vs_std > std_vs_std);
    assert_true(bonus_vs_std > games / 4); /* better than an equal share */
}

static void test_bonus_rules_json(void **unused)
{
    (void)unused;
    json_t *r = game_rules_json(OPS);
    char *s = json_dumps(json_object_get(r, "variants"), JSON_COMPACT);
    assert_string_equal(s, "[\"standard\",\"bonus\"]");
    free(s);
    assert_non_null(json_object_get(json_object_get(r, "notation"), "jokers"));
    assert_true(json_array_size(json_object_get(r, "bonus")) >= 5);
    json_t *f = json_array_get(json_object_get(r, "functions"), 4);
    assert_string_equal(json_string_value(json_object_get(f, "path")), "/play/comp10001bo/bonus");
    assert_true(has_text(json_object_get(r, "plays"), "[4,null,[2,2]]"));
    assert_true(has_text(json_object_get(r, "plays"), "[5,null,[0,0]]"));
    json_decref(r);
    assert_true(game_has_variant(OPS, "bonus"));
    assert_true(game_has_bot(OPS, "standard"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_joker_examples),
        cmocka_unit_test(test_seed_joker_reading_not_frozen),
        cmocka_unit_test(test_joker_build_piles),
        cmocka_unit_test(test_joker_discard_piles),
        cmocka_unit_test(test_embargo_targets),
        cmocka_unit_test(test_embargoed_player_restricted),
        cmocka_unit_test(test_embargo_counts_as_a_play),
        cmocka_unit_test(test_embargo_play_shapes),
        cmocka_unit_test(test_bonus_deal),
        cmocka_unit_test(test_bonus_plays_come_up),
        cmocka_unit_test(test_bonus_decode_hostile),
        cmocka_unit_test(test_bonus_views),
        cmocka_unit_test(test_bonus_views_joker_reads),
        cmocka_unit_test(test_bonus_legal_lists_every_valid_play),
        cmocka_unit_test(test_bonus_fn),
        cmocka_unit_test(test_bonus_fn_always_legal),
        cmocka_unit_test(test_bonus_bot_explains_embargo),
        cmocka_unit_test(test_bonus_strategy_win_rates),
        cmocka_unit_test(test_bonus_rules_json),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
