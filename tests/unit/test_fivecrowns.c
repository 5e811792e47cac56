/* test_fivecrowns.c: unit tests of Five Crowns (engine/fivecrowns).
 *
 * Rule clauses are tested on positions built by hand: blank() puts all 116
 * cards in the draw pile and the helpers move named cards to hands and the
 * discard pile, so each card still appears exactly twice. The arranger is
 * checked against an independent brute force (every subset of the hand as a
 * group, memoised on the set of cards left) on thousands of seeded hands.
 * Five Crowns has no autograder functions, so its examples stay C; the
 * guarantees every game keeps (round trips, determinism, refusals, legal
 * vs check, bots legal, views) are test_games.c's.
 * The save fixtures are other programs' saves in tests/fixtures/fivecrowns
 * (its README says where each comes from; paths relative to the repository
 * root, where tests/run.sh runs the tests).
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
#include "core/rng.h"
#include "fivecrowns/fc.h"

extern const game_ops fivecrowns_ops;
#define OPS (&fivecrowns_ops)

#if defined(__SANITIZE_ADDRESS__)
#define SLOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOW 1
#endif
#endif
#ifndef SLOW
#define SLOW 0
#endif

/* --- helpers --------------------------------------------------------------- */

static fc_state *new_state(void) { return calloc(1, sizeof(fc_state)); }

static int C(const char *s)
{
    int c = fc_card_parse(s);
    if (!c)
        fail_msg("bad card %s", s);
    return c;
}

static json_t *J(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
    if (!j)
        fail_msg("bad test JSON: %s in %s", err.text, text);
    return j;
}

/* All 116 cards in the draw pile, no hands, round r, seat 0 to draw. */
static void blank(fc_state *st, int np, int round)
{
    fc_new_game(st, np, 7, 1, -1);
    for (int i = 0; i < FC_DECK; i++)
        st->draw[i] = (uint8_t)(i % FC_NTYPES + 1);
    st->ndraw = FC_DECK;
    st->ndisc = 0;
    memset(st->nhand, 0, sizeof st->nhand);
    st->round = (uint8_t)round;
    st->cur = 0;
    st->starter = 0;
    st->phase = FC_PH_DRAW;
}

static uint8_t take(fc_state *st, int c)
{
    for (int i = 0; i < st->ndraw; i++)
        if (st->draw[i] == c) {
            memmove(&st->draw[i], &st->draw[i + 1], (size_t)(st->ndraw - i - 1));
            st->ndraw--;
            return (uint8_t)c;
        }
    fail_msg("no more %s in the draw pile", fc_card_str(c));
    return 0;
}

/* "7H 8H J1" -> hand of p */
static void give(fc_state *st, int p, const char *cards)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", cards);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        st->hand[p][st->nhand[p]++] = take(st, C(t));
}

static void disc_push(fc_state *st, const char *card) { st->disc[st->ndisc++] = take(st, C(card)); }
static void draw_top(fc_state *st, const char *card) { uint8_t c = take(st, C(card)); st->draw[st->ndraw++] = c; }

static int apply_s(fc_state *st, int seat, const char *play, json_t **rec, game_err *e)
{
    json_t *p = J(play);
    memset(e, 0, sizeof *e);
    int rc = game_apply(OPS, st, seat, p, rec, e);
    json_decref(p);
    return rc;
}

static void apply_ok(fc_state *st, int seat, const char *play)
{
    game_err e;
    int rc = apply_s(st, seat, play, NULL, &e);
    if (rc)
        fail_msg("apply %s: %d %s (%s)", play, rc, e.detail, e.rule);
}

static void apply_illegal(fc_state *st, int seat, const char *play, const char *rule)
{
    fc_state *copy = new_state();
    memcpy(copy, st, sizeof *st);
    game_err e;
    int rc = apply_s(st, seat, play, NULL, &e);
    if (rc != ERR_ILLEGAL || strcmp(e.rule, rule) != 0)
        fail_msg("apply %s: rc %d rule %s (%s), expected illegal %s", play, rc, e.rule, e.detail, rule);
    assert_memory_equal(copy, st, sizeof *st); /* nothing half-applied */
    free(copy);
}

static char *dump(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
    return s;
}

static int count_cards(const fc_state *st, int *count)
{
    memset(count, 0, sizeof(int) * (FC_NTYPES + 1));
    int total = st->ndraw + st->ndisc;
    for (int i = 0; i < st->ndraw; i++) count[st->draw[i]]++;
    for (int i = 0; i < st->ndisc; i++) count[st->disc[i]]++;
    for (int p = 0; p < st->np; p++) {
        total += st->nhand[p];
        for (int i = 0; i < st->nhand[p]; i++) count[st->hand[p][i]]++;
    }
    return total;
}

/* Play one whole game with the given bots; calls `each` on every state. */
typedef void (*visit_fn)(fc_state *st, void *ctx);
static void play_game(fc_state *st, int np, uint64_t seed, const char *const *bots, visit_fn each, void *ctx)
{
    game_err e;
    assert_int_equal(game_init(OPS, st, NULL, np, seed, NULL, &e), 0);
    game_status gs;
    for (int guard = 0; guard < 100000; guard++) {
        if (each)
            each(st, ctx);
        OPS->status(st, &gs);
        if (gs.over)
            return;
        char ex[320];
        if (game_bot_play(OPS, st, bots[gs.to_move], NULL, ex, sizeof ex, &e))
            fail_msg("bot %s failed: %s", bots[gs.to_move], e.detail);
    }
    fail_msg("game did not end");
}

/* --- cards ----------------------------------------------------------------- */

static void test_cards(void **u)
{
    (void)u;
    assert_int_equal(fc_card_parse("XH"), fc_card(10, 3));
    assert_int_equal(fc_card_parse("10H"), fc_card(10, 3));
    assert_int_equal(fc_card_parse("10h"), fc_card(10, 3));
    assert_int_equal(fc_card_parse("3S"), fc_card(3, 0));
    assert_int_equal(fc_card_parse("KT"), fc_card(13, 4));
    assert_int_equal(fc_card_parse("J1"), FC_JOKER1);
    assert_int_equal(fc_card_parse("J3"), FC_JOKER1 + 2);
    assert_int_equal(fc_card_parse("JT"), fc_card(11, 4));
    const char *bad[] = {"J4", "J0", "2S", "AS", "1H", "7X", "", "7", "7HH", "11H", "100H", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(fc_card_parse(bad[i]), 0);
    for (int c = 1; c <= FC_NTYPES; c++)
        assert_int_equal(fc_card_parse(fc_card_str(c)), c);
    char nm[40];
    fc_card_name(C("7H"), nm, sizeof nm);
    assert_string_equal(nm, "7 of hearts");
    fc_card_name(C("XS"), nm, sizeof nm);
    assert_string_equal(nm, "10 of spades");
    fc_card_name(C("KT"), nm, sizeof nm);
    assert_string_equal(nm, "king of tridents");
    fc_card_name(C("J2"), nm, sizeof nm);
    assert_string_equal(nm, "joker");
    /* values: face, J/Q/K 11/12/13, wild 20, joker 50 */
    assert_int_equal(fc_value(C("7H"), 3), 7);
    assert_int_equal(fc_value(C("XH"), 3), 10);
    assert_int_equal(fc_value(C("JC"), 3), 11);
    assert_int_equal(fc_value(C("QC"), 3), 12);
    assert_int_equal(fc_value(C("KC"), 3), 13);
    assert_int_equal(fc_value(C("KC"), 13), 20);
    assert_int_equal(fc_value(C("3D"), 3), 20);
    assert_int_equal(fc_value(C("J1"), 3), 50);
}

/* --- deal, rounds, toss ------------------------------------------------------ */

static void test_deck_and_deal(void **u)
{
    (void)u;
    fc_state *st = new_state();
    int count[FC_NTYPES + 1];
    for (int np = 2; np <= 7; np++)
        for (int r = 1; r <= 11; r++) {
            fc_new_game(st, np, (uint64_t)(np * 100 + r), 1, -1);
            st->round = (uint8_t)r;
            fc_deal_round(st, 1 % np);
            assert_int_equal(count_cards(st, count), 116);
            for (int c = 1; c <= FC_NTYPES; c++)
                assert_int_equal(count[c], 2); /* every card twice, jokers J1 J2 J3 twice each */
            for (int p = 0; p < np; p++)
                assert_int_equal(st->nhand[p], r + 2);
            assert_int_equal(st->ndisc, 1);
            assert_int_equal(st->ndraw, 116 - np * (r + 2) - 1);
            assert_int_equal(st->cur, 1 % np);
            assert_int_equal(st->phase, FC_PH_DRAW);
            assert_int_equal(fc_wild_rank(r), r + 2);
        }
    /* the view names the wild rank: 3 in round 1, X (ten) in round 8, K in round 11 */
    const char *want[] = {"3", "4", "5", "6", "7", "8", "9", "X", "J", "Q", "K"};
    for (int r = 1; r <= 11; r++) {
        fc_new_game(st, 2, 5, 1, -1);
        st->round = (uint8_t)r;
        fc_deal_round(st, 0);
        json_t *v = OPS->view(st, 0);
        assert_string_equal(json_string_value(json_object_get(v, "wild_rank")), want[r - 1]);
        assert_int_equal(json_integer_value(json_object_get(v, "cards_dealt")), r + 2);
        json_decref(v);
    }
    free(st);
}

/* Every round of a played game is dealt r+2 cards from 116. */
typedef struct rounds_seen {
    int seen[12];
    int last_round, last_out;
} rounds_seen;

static void check_round_start(fc_state *st, void *vctx)
{
    rounds_seen *c = vctx;
    int count[FC_NTYPES + 1];
    if (st->phase == FC_PH_DRAW && st->round_turns == 0 && !c->seen[st->round]) {
        c->seen[st->round] = 1;
        assert_int_equal(count_cards(st, count), 116);
        for (int p = 0; p < st->np; p++)
            assert_int_equal(st->nhand[p], st->round + 2);
        if (st->round > 1) {
            const fc_round *rd = &st->rounds[st->round - 2];
            if (rd->ended == FC_END_OUT) /* whoever went out starts the next round */
                assert_int_equal(st->cur, rd->went_out);
            else
                assert_int_equal(st->cur, st->starter);
        }
    }
}

static void test_rounds_of_a_game(void **u)
{
    (void)u;
    fc_state *st = new_state();
    const char *bots[] = {"strategy", "greedy", "strategy", "random"};
    for (int np = 2; np <= 4; np++) {
        rounds_seen c = {{0}, 0, 0};
        play_game(st, np, 42 + (uint64_t)np, bots, check_round_start, &c);
        for (int r = 1; r <= 11; r++)
            assert_true(c.seen[r]);
        game_status gs;
        OPS->status(st, &gs);
        assert_true(gs.over);
        assert_int_equal(gs.lower_is_better, 1);
        /* totals are the sums of the round points; the winner has the lowest */
        int best = 0, ties = 0;
        for (int p = 0; p < np; p++) {
            int sum = 0;
            for (int r = 0; r < 11; r++)
                sum += st->rounds[r].points[p];
            assert_int_equal(sum, st->score[p]);
            assert_int_equal((int)gs.score[p], st->score[p]);
            if (st->score[p] < st->score[best])
                best = p;
        }
        for (int p = 0; p < np; p++)
            ties += st->score[p] == st->score[best];
        assert_int_equal(gs.winner, ties > 1 ? -1 : best);
        assert_string_equal(gs.result, ties > 1 ? "tie" : "won");
        for (int r = 0; r < 11; r++)
            if (st->rounds[r].ended == FC_END_OUT)
                assert_int_equal(st->rounds[r].points[st->rounds[r].went_out], 0);
    }
    free(st);
}

static void test_coin_toss(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    int starts0 = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        int starter[2];
        for (int call = 0; call < 2; call++) {
            json_t *o = J(call ? "{\"call\":\"tails\"}" : "{\"call\":\"heads\"}");
            assert_int_equal(game_init(OPS, st, "standard", 2, seed, o, &e), 0);
            json_decref(o);
            starter[call] = st->cur;
            assert_int_equal(st->cur == 0, st->toss == call); /* the caller starts when the call is right */
            json_t *v = OPS->view(st, 0);
            json_t *t = json_object_get(v, "toss");
            assert_string_equal(json_string_value(json_object_get(t, "call")), call ? "tails" : "heads");
            assert_string_equal(json_string_value(json_object_get(t, "result")), st->toss ? "tails" : "heads");
            json_decref(v);
        }
        assert_int_not_equal(starter[0], starter[1]); /* same toss, opposite calls */
        assert_int_equal(game_init(OPS, st, NULL, 2, seed, NULL, &e), 0);
        assert_int_equal(st->cur, st->toss); /* no call: heads seat 0, tails seat 1 */
        starts0 += st->cur == 0;
    }
    assert_true(starts0 > 10 && starts0 < 50);
    /* more players: a right call starts seat 0, a wrong one someone else */
    for (uint64_t seed = 1; seed <= 20; seed++) {
        json_t *o = J("{\"call\":\"heads\"}");
        assert_int_equal(game_init(OPS, st, NULL, 5, seed, o, &e), 0);
        json_decref(o);
        assert_int_equal(st->cur == 0, st->toss == 0);
    }
    free(st);
}

static void test_options_and_players(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    struct { const char *opts; const char *ptr; } bad[] = {
        {"{\"colour\":1}", "/options/colour"},
        {"{\"open\":1}", "/options/open"},
        {"{\"call\":\"edge\"}", "/options/call"},
        {"{\"call\":true}", "/options/call"},
        {"[1]", "/options"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *o = J(bad[i].opts);
        memset(&e, 0, sizeof e);
        assert_int_equal(game_init(OPS, st, NULL, 2, 1, o, &e), ERR_BAD_MEMBER);
        assert_string_equal(e.pointer, bad[i].ptr);
        json_decref(o);
    }
    assert_int_equal(game_init(OPS, st, NULL, 1, 1, NULL, &e), ERR_BAD_MEMBER);
    assert_int_equal(game_init(OPS, st, NULL, 8, 1, NULL, &e), ERR_BAD_MEMBER);
    assert_int_equal(game_init(OPS, st, "bonus", 2, 1, NULL, &e), ERR_BAD_MEMBER);
    json_t *o = J("{\"open\":false,\"call\":\"tails\"}");
    assert_int_equal(game_init(OPS, st, "standard", 7, 1, o, &e), 0);
    json_decref(o);
    assert_int_equal(st->open, 0);
    assert_int_equal(st->np, 7);
    json_t *r = game_rules_json(OPS);
    assert_non_null(json_object_get(r, "plays"));
    json_decref(r);
    free(st);
}

/* --- turns ----------------------------------------------------------------- */

static void test_draw_and_discard(void **u)
{
    (void)u;
    fc_state *st = new_state();
    json_t *rec;
    game_err e;
    blank(st, 2, 1);
    give(st, 0, "5H 9C KD");
    give(st, 1, "4S 8D QT");
    disc_push(st, "7H");
    draw_top(st, "6C");
    apply_illegal(st, 0, "{\"discard\":\"5H\"}", "draw-first");
    assert_int_equal(apply_s(st, 1, "{\"draw\":\"draw\"}", NULL, &e), ERR_NOT_YOUR_TURN);
    /* draw the discard pile's top */
    assert_int_equal(apply_s(st, 0, "{\"draw\":\"discard\"}", &rec, &e), 0);
    assert_string_equal(json_string_value(json_object_get(rec, "card")), "7H");
    assert_false(json_is_true(json_object_get(rec, "turn_ending")));
    json_decref(rec);
    assert_int_equal(st->nhand[0], 4);
    assert_int_equal(st->ndisc, 0);
    game_status gs;
    OPS->status(st, &gs);
    assert_int_equal(gs.to_move, 0); /* the same seat discards */
    apply_illegal(st, 0, "{\"draw\":\"draw\"}", "one-draw");
    apply_illegal(st, 0, "{\"discard\":\"QT\"}", "not-in-hand");
    apply_illegal(st, 0, "{\"discard\":\"KD\",\"go_out\":true}", "incomplete");
    assert_int_equal(apply_s(st, 0, "{\"discard\":\"KD\"}", &rec, &e), 0);
    assert_true(json_is_true(json_object_get(rec, "turn_ending")));
    json_decref(rec);
    assert_int_equal(st->disc[st->ndisc - 1], C("KD"));
    assert_int_equal(st->cur, 1);
    /* seat 1 draws blind: 6C */
    apply_ok(st, 1, "{\"draw\":\"draw\"}");
    assert_int_equal(st->hand[1][3], C("6C"));
    apply_ok(st, 1, "{\"discard\":\"6C\"}"); /* the card just drawn may go straight back */
    assert_int_equal(st->cur, 0);
    /* shapes */
    const char *shapes[][2] = {
        {"{\"draw\":\"pile\",\"x\":1}", "/x"}, {"{\"draw\":3}", "/draw"}, {"{\"draw\":\"table\"}", "/draw"},
        {"{\"discard\":\"ZZ\"}", "/discard"}, {"{\"discard\":\"7H\",\"go_out\":\"yes\"}", "/go_out"},
        {"{\"draw\":\"draw\",\"go_out\":true}", "/go_out"}, {"{}", ""}, {"[]", ""},
        {"{\"draw\":\"draw\",\"discard\":\"7H\"}", "/discard"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        fc_state *copy = new_state();
        memcpy(copy, st, sizeof *st);
        assert_int_equal(apply_s(st, 0, shapes[i][0], NULL, &e), ERR_BAD_MEMBER);
        assert_string_equal(e.pointer, shapes[i][1]);
        assert_memory_equal(copy, st, sizeof *st);
        free(copy);
    }
    free(st);
}

static void test_empty_draw_pile_reshuffles(void **u)
{
    (void)u;
    fc_state *st = new_state();
    blank(st, 2, 1);
    give(st, 0, "5H 9C KD");
    give(st, 1, "4S 8D QT");
    /* everything else onto the discard pile; 7H on top */
    while (st->ndraw) {
        st->disc[st->ndisc++] = st->draw[--st->ndraw];
    }
    int k = st->ndisc;
    for (int i = 0; i < st->ndisc; i++)
        if (st->disc[i] == C("7H")) {
            st->disc[i] = st->disc[k - 1];
            st->disc[k - 1] = (uint8_t)C("7H");
            break;
        }
    apply_ok(st, 0, "{\"draw\":\"draw\"}");
    assert_int_equal(st->ndisc, 1);
    assert_int_equal(st->disc[0], C("7H"));
    assert_int_equal(st->ndraw, 116 - 6 - 1 - 1);
    free(st);
}

static void test_going_out_last_turn_and_scoring(void **u)
{
    (void)u;
    fc_state *st = new_state();
    json_t *rec;
    game_err e;
    blank(st, 3, 1); /* round 1: 3 cards, 3s wild */
    give(st, 0, "5H 6H KC");
    give(st, 1, "J1 KS 9D");
    give(st, 2, "3S QD QC");
    disc_push(st, "7H");
    draw_top(st, "8C");
    st->score[0] = 10, st->score[1] = 20, st->score[2] = 30;
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    /* legal() offers going out with KC only */
    json_t *l = OPS->legal(st, 0);
    char *ls = dump(l);
    assert_non_null(strstr(ls, "{\"discard\":\"KC\",\"go_out\":true}"));
    assert_null(strstr(ls, "{\"discard\":\"5H\",\"go_out\":true}"));
    free(ls);
    assert_int_equal(apply_s(st, 0, "{\"discard\":\"KC\",\"go_out\":true}", &rec, &e), 0);
    assert_true(json_is_true(json_object_get(rec, "went_out")));
    json_decref(rec);
    assert_int_equal(st->went_out, 0);
    assert_int_equal(st->cur, 1);
    /* seat 1's last turn: no going out then */
    apply_ok(st, 1, "{\"draw\":\"draw\"}"); /* 8C */
    apply_illegal(st, 1, "{\"discard\":\"9D\",\"go_out\":true}", "already-out");
    apply_ok(st, 1, "{\"discard\":\"8C\"}");
    assert_int_equal(st->round, 1);
    /* seat 2: takes the 8C, discards QD; its 3S (wild) + QC + ... */
    apply_ok(st, 2, "{\"draw\":\"discard\"}");
    assert_int_equal(apply_s(st, 2, "{\"discard\":\"8C\"}", &rec, &e), 0);
    /* the round ended: 0 for seat 0; joker 50 + 13 + 9 for seat 1 (no group);
     * seat 2 lays out 3S QD QC as a book of queens with the wild 3: 0 */
    json_t *re = json_object_get(rec, "round_end");
    assert_non_null(re);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(re, "points"), 1)), 72);
    json_decref(rec);
    assert_int_equal(st->rounds[0].points[0], 0);
    assert_int_equal(st->rounds[0].points[1], 72);
    assert_int_equal(st->rounds[0].points[2], 0);
    assert_int_equal(st->score[0], 10);
    assert_int_equal(st->score[1], 92);
    assert_int_equal(st->score[2], 30);
    /* round 2 is dealt 4 cards each, started by the player who went out */
    assert_int_equal(st->round, 2);
    assert_int_equal(st->cur, 0);
    assert_int_equal(st->phase, FC_PH_DRAW);
    for (int p = 0; p < 3; p++)
        assert_int_equal(st->nhand[p], 4);
    free(st);
}

static void test_wild_scores_20(void **u)
{
    (void)u;
    uint8_t h[3] = {(uint8_t)C("3S"), (uint8_t)C("KC"), (uint8_t)C("9D")};
    fc_arr a;
    assert_int_equal(fc_arrange(h, 3, 3, &a), 42); /* wild 3 = 20 when unused */
    assert_int_equal(a.nleft, 3);
    assert_int_equal(fc_arrange(h, 3, 9, &a), 3 + 13 + 20);
    uint8_t h2[4] = {(uint8_t)C("J1"), (uint8_t)C("J2"), (uint8_t)C("3S"), (uint8_t)C("KC")};
    assert_int_equal(fc_arrange(h2, 4, 3, &a), 0); /* 3 wilds + K: a book */
    uint8_t h3[2] = {(uint8_t)C("J1"), (uint8_t)C("J2")};
    assert_int_equal(fc_arrange(h3, 2, 3, &a), 100);
}

static void test_game_end_winner_lowest(void **u)
{
    (void)u;
    fc_state *st = new_state();
    blank(st, 2, 11);
    give(st, 0, "3H 4H 5H 6H 7H 8H 9H XH JH QH 3S 3C 3D");
    give(st, 1, "3T 5T 7T 9T JT 4S 6S 8S XS QS 4C 6C 8C");
    disc_push(st, "3S");
    draw_top(st, "4D");
    st->score[0] = 100;
    st->score[1] = 90;
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    apply_ok(st, 0, "{\"discard\":\"3S\",\"go_out\":true}");
    apply_ok(st, 1, "{\"draw\":\"draw\"}");
    apply_ok(st, 1, "{\"discard\":\"4D\"}");
    game_status gs;
    OPS->status(st, &gs);
    assert_true(gs.over);
    assert_int_equal(gs.to_move, -1);
    assert_true(st->score[1] > 100);
    assert_int_equal(gs.winner, 0);
    assert_string_equal(gs.result, "won");
    game_err e;
    assert_int_equal(apply_s(st, 0, "{\"draw\":\"draw\"}", NULL, &e), ERR_GAME_OVER);
    json_t *h;
    assert_int_equal(game_hint(OPS, st, 0, &h, &e), ERR_GAME_OVER);
    free(st);
}

/* --- the arranger vs brute force ----------------------------------------------- */

static int bf_valid(const uint8_t *g, int n, int wild)
{
    int nat[FC_HANDMAX], k = 0, w = 0;
    if (n < 3)
        return 0;
    for (int i = 0; i < n; i++) {
        if (fc_is_joker(g[i]) || fc_rank(g[i]) == wild)
            w++;
        else
            nat[k++] = g[i];
    }
    if (k == 0)
        return 1;
    int book = 1;
    for (int i = 1; i < k; i++)
        if (fc_rank(nat[i]) != fc_rank(nat[0]))
            book = 0;
    if (book)
        return 1;
    int lo = 99, hi = 0;
    for (int i = 0; i < k; i++) {
        if (fc_suit(nat[i]) != fc_suit(nat[0]))
            return 0;
        for (int j = 0; j < i; j++)
            if (fc_rank(nat[j]) == fc_rank(nat[i]))
                return 0;
        if (fc_rank(nat[i]) < lo) lo = fc_rank(nat[i]);
        if (fc_rank(nat[i]) > hi) hi = fc_rank(nat[i]);
    }
    return hi - lo + 1 - k <= w && n <= 11;
}

static int16_t *bf_memo;
static const uint8_t *bf_cards;
static int bf_wild;

static int bf(unsigned m)
{
    if (!m)
        return 0;
    if (bf_memo[m] >= 0)
        return bf_memo[m];
    int i = __builtin_ctz(m);
    unsigned rest = m & ~(1u << i);
    int best = fc_value(bf_cards[i], bf_wild) + bf(rest);
    for (unsigned s = rest; s; s = (s - 1) & rest) {
        if (__builtin_popcount(s) < 2)
            continue;
        uint8_t g[FC_HANDMAX];
        int n = 0;
        g[n++] = bf_cards[i];
        for (int j = 0; j < 16; j++)
            if (s >> j & 1)
                g[n++] = bf_cards[j];
        if (bf_valid(g, n, bf_wild)) {
            int v = bf(rest & ~s);
            if (v < best)
                best = v;
        }
    }
    bf_memo[m] = (int16_t)best;
    return best;
}

static void check_hand(const uint8_t *h, int n, int wild)
{
    fc_arr a;
    int got = fc_arrange(h, n, wild, &a);
    bf_cards = h;
    bf_wild = wild;
    memset(bf_memo, 0xff, sizeof(int16_t) << n);
    int want = bf((1u << n) - 1);
    if (got != want) {
        char s[200] = "";
        for (int i = 0; i < n; i++) {
            strcat(s, fc_card_str(h[i]));
            strcat(s, " ");
        }
        fail_msg("hand %s wild %d: arranger %d, brute force %d", s, wild, got, want);
    }
    /* the arrangement itself: valid groups, all cards used once, points = left */
    int count[FC_NTYPES + 1] = {0}, pts = 0;
    for (int i = 0; i < n; i++) count[h[i]]++;
    for (int g = 0; g < a.ngroups; g++) {
        assert_true(bf_valid(a.g[g].cards, a.g[g].n, wild));
        for (int j = 0; j < a.g[g].n; j++) count[a.g[g].cards[j]]--;
        if (a.g[g].kind == FC_RUN) /* in order: each card stands for the next rank */
            for (int j = 0; j < a.g[g].n; j++) {
                int c = a.g[g].cards[j];
                assert_true(a.g[g].as[j] >= 3 && a.g[g].as[j] <= 13);
                if (j) assert_int_equal(a.g[g].as[j], a.g[g].as[j - 1] + 1);
                if (!fc_is_wild(c, wild)) assert_int_equal(fc_rank(c), a.g[g].as[j]);
            }
    }
    for (int i = 0; i < a.nleft; i++) {
        count[a.left[i]]--;
        pts += fc_value(a.left[i], wild);
    }
    for (int c = 0; c <= FC_NTYPES; c++)
        assert_int_equal(count[c], 0);
    assert_int_equal(pts, got);
}

static void test_arranger_vs_brute_force(void **u)
{
    (void)u;
    bf_memo = malloc(sizeof(int16_t) << 14);
    rng r;
    rng_seed(&r, 2024, 7);
    int hands = 0;
    struct { int lo, hi, count; } plan[] = {
        {3, 9, SLOW ? 1500 : 4000}, {10, 11, SLOW ? 150 : 600}, {12, 12, SLOW ? 20 : 120}, {13, 14, SLOW ? 4 : 30}};
    for (size_t pi = 0; pi < sizeof plan / sizeof plan[0]; pi++)
        for (int k = 0; k < plan[pi].count; k++) {
            int n = plan[pi].lo + (int)rng_below(&r, (uint32_t)(plan[pi].hi - plan[pi].lo + 1));
            int wild = 3 + (int)rng_below(&r, 11);
            /* a deck, sometimes narrowed to 2 suits and 6 ranks so groups are common */
            uint8_t deck[FC_DECK];
            int nd = 0, narrow = rng_below(&r, 3) != 0;
            int s0 = (int)rng_below(&r, 5), r0 = 3 + (int)rng_below(&r, 6);
            for (int i = 0; i < FC_DECK; i++) {
                int c = i % FC_NTYPES + 1;
                if (narrow && !fc_is_joker(c) && fc_rank(c) != wild &&
                    ((fc_suit(c) != s0 && fc_suit(c) != (s0 + 1) % 5) || fc_rank(c) < r0 || fc_rank(c) > r0 + 5))
                    continue;
                deck[nd++] = (uint8_t)c;
            }
            rng_shuffle_u8(&r, deck, (size_t)nd);
            check_hand(deck, n, wild);
            hands++;
        }
    /* hand-made corners: a run of 11 with spare wilds must split */
    const char *corner[] = {"3H 4H 5H 6H 7H 8H 9H XH JH QH J1 J2 J3", "J1 J2", "J1 J2 J3", "5H J1",
                            "5H 5H 5H", "5H 6H 8H 9H J1", "QH KH J1", "3H J1 J2", "7S 7S 7C KD KD J2", NULL};
    for (int i = 0; corner[i]; i++) {
        uint8_t h[FC_HANDMAX];
        int n = 0;
        char buf[128];
        snprintf(buf, sizeof buf, "%s", corner[i]);
        for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
            h[n++] = (uint8_t)C(t);
        for (int wild = 3; wild <= 13; wild++)
            check_hand(h, n, wild);
    }
    free(bf_memo);
    assert_true(hands > 1000);
}

/* --- bots, explanations, help -------------------------------------------------- */

static int names_a_card(const char *s)
{
    static const char *const words[] = {" of spades", " of clubs", " of diamonds", " of hearts", " of tridents",
                                        "joker", NULL};
    for (int i = 0; words[i]; i++)
        if (strstr(s, words[i]))
            return 1;
    return 0;
}

static void test_explanations(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    int n = 0;
    for (uint64_t seed = 1; seed <= (SLOW ? 2 : 6); seed++) {
        assert_int_equal(game_init(OPS, st, NULL, 2, seed, NULL, &e), 0);
        game_status gs;
        for (OPS->status(st, &gs); !gs.over; OPS->status(st, &gs)) {
            json_t *rec;
            char ex[320];
            int top = st->ndisc ? st->disc[st->ndisc - 1] : 0;
            assert_int_equal(game_bot_play(OPS, st, "strategy", &rec, ex, sizeof ex, &e), 0);
            const char *x = json_string_value(json_object_get(rec, "explanation"));
            assert_non_null(x);
            if (!strstr(x, ": ") || !names_a_card(x))
                fail_msg("explanation without card or reason: %s", x);
            /* the log's voice: the play without a subject, then its reason */
            if (strncmp(x, "takes the ", 10) != 0 && strncmp(x, "draws from ", 11) != 0 && strncmp(x, "discards the ", 13) != 0)
                fail_msg("an explanation not in the log's voice: %s", x);
            json_t *pl = json_object_get(rec, "play");
            char nm[40];
            if (json_object_get(pl, "discard")) {
                fc_card_name(fc_card_parse(json_string_value(json_object_get(pl, "discard"))), nm, sizeof nm);
                assert_non_null(strstr(x, nm));
            } else if (strcmp(json_string_value(json_object_get(pl, "draw")), "discard") == 0) {
                fc_card_name(top, nm, sizeof nm);
                assert_non_null(strstr(x, nm));
                assert_non_null(strstr(x, "from the discard pile"));
                /* a count it names went down (the learnt draw also takes a
                 * top that leaves the points as they were) */
                const char *cnt = strstr(x, "the count of the hand from ");
                int before, after;
                if (cnt) {
                    assert_int_equal(sscanf(cnt, "the count of the hand from %d to %d points", &before, &after), 2);
                    if (after >= before)
                        fail_msg("a count that did not go down: %s", x);
                }
            } else {
                assert_non_null(strstr(x, "from the draw pile"));
            }
            json_decref(rec);
            n++;
        }
    }
    assert_true(n > 50);
    /* a completing card is named with the run it completes */
    blank(st, 2, 2); /* 4s wild */
    give(st, 0, "5H 6H KC QS");
    give(st, 1, "3S 8D QT 9S");
    disc_push(st, "7H");
    fc_obs o;
    fc_advice adv;
    fc_observe(st, 0, &o);
    fc_strategy(&o, 0, &adv);
    assert_int_equal(adv.play.kind, FC_PLAY_DRAW_DISCARD);
    assert_string_equal(adv.why, "takes the 7 of hearts from the discard pile: it completes a run of hearts 5-6-7.");
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    fc_observe(st, 0, &o);
    fc_strategy(&o, 0, &adv);
    assert_int_equal(adv.play.card, C("KC"));
    assert_string_equal(adv.why, "discards the king of clubs: it is the highest card that fits no run or book.");
    free(st);
}

static void test_help_mode(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *h;
    blank(st, 2, 2); /* 4s wild */
    give(st, 0, "5H 6H KC J1");
    give(st, 1, "3S 8D QT 9S");
    disc_push(st, "7H");
    draw_top(st, "3C");
    assert_int_equal(game_hint(OPS, st, 1, &h, &e), ERR_NOT_YOUR_TURN);
    assert_int_equal(game_hint(OPS, st, 0, &h, &e), 0);
    assert_string_equal(json_string_value(json_object_get(h, "strategy")), "strategy");
    json_t *d = json_object_get(h, "draw");
    assert_string_equal(json_string_value(json_object_get(d, "source")), "discard");
    assert_non_null(strstr(json_string_value(json_object_get(d, "why")), "7 of hearts"));
    assert_true(strncmp(json_string_value(json_object_get(h, "explanation")), "Take the 7 of hearts from the discard pile: ", 44) == 0);
    assert_non_null(json_object_get(h, "arrangement"));
    assert_true(json_is_boolean(json_object_get(h, "go_out")));
    char *ps = dump(json_incref(json_object_get(h, "play")));
    assert_string_equal(ps, "{\"draw\":\"discard\"}");
    free(ps);
    json_decref(h);
    /* after the draw: discard KC and go out (5H 6H 7H + joker) */
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    assert_int_equal(game_hint(OPS, st, 0, &h, &e), 0);
    json_t *dc = json_object_get(h, "discard");
    assert_string_equal(json_string_value(json_object_get(dc, "card")), "KC");
    assert_true(json_is_true(json_object_get(h, "go_out")));
    assert_non_null(strstr(json_string_value(json_object_get(h, "go_out_why")), "king of clubs"));
    json_t *a = json_object_get(h, "arrangement");
    assert_int_equal(json_integer_value(json_object_get(a, "points")), 0);
    assert_int_equal(json_array_size(json_object_get(a, "runs")), 1);
    assert_int_equal(json_array_size(json_object_get(a, "left")), 0);
    assert_non_null(strstr(json_string_value(json_object_get(a, "why")), "run of hearts"));
    ps = dump(json_incref(json_object_get(h, "play")));
    assert_string_equal(ps, "{\"discard\":\"KC\",\"go_out\":true}");
    free(ps);
    /* said to the player: an instruction, then its reason about your hand */
    assert_string_equal(json_string_value(json_object_get(h, "explanation")),
                        "Discard the king of clubs and go out: the rest of your hand forms a run of hearts 5-6-7-8 "
                        "(the joker as the 8), with no card left over.");
    json_decref(h);

    /* hints follow the strategy bot, use only the seat's view, and are legal */
    for (uint64_t seed = 1; seed <= (SLOW ? 2 : 5); seed++) {
        assert_int_equal(game_init(OPS, st, NULL, 2, seed, NULL, &e), 0);
        game_status gs;
        for (OPS->status(st, &gs); !gs.over; OPS->status(st, &gs)) {
            int s = gs.to_move;
            assert_int_equal(game_hint(OPS, st, s, &h, &e), 0);
            char *hp = dump(json_incref(json_object_get(h, "play")));
            json_t *lg = OPS->legal(st, s);
            char *ls = dump(lg);
            assert_non_null(strstr(ls, hp));
            free(ls);
            /* change what the seat cannot see: the other hand and the draw order */
            fc_state *alt = new_state();
            memcpy(alt, st, sizeof *st);
            int other = 1 - s;
            uint8_t tmp[FC_HANDMAX];
            int k = alt->nhand[other] < alt->ndraw ? alt->nhand[other] : alt->ndraw;
            memcpy(tmp, alt->hand[other], (size_t)k);
            memcpy(alt->hand[other], alt->draw, (size_t)k);
            memcpy(alt->draw, tmp, (size_t)k);
            json_t *h2;
            assert_int_equal(game_hint(OPS, alt, s, &h2, &e), 0);
            char *a1 = dump(json_incref(h)), *a2 = dump(h2);
            assert_string_equal(a1, a2);
            free(a1);
            free(a2);
            free(alt);
            json_decref(h);
            json_t *rec;
            char ex[320];
            assert_int_equal(game_bot_play(OPS, st, "strategy", &rec, ex, sizeof ex, &e), 0);
            char *bp = dump(json_incref(json_object_get(rec, "play")));
            assert_string_equal(bp, hp);
            free(bp);
            free(hp);
            json_decref(rec);
        }
    }
    free(st);
}

typedef struct legal_ctx {
    int states;
} legal_ctx;

static void check_legal(fc_state *st, void *vctx)
{
    legal_ctx *c = vctx;
    game_status gs;
    OPS->status(st, &gs);
    if (gs.over)
        return;
    c->states++;
    int s = gs.to_move;
    json_t *lg = OPS->legal(st, s);
    char *ls = dump(json_incref(lg));
    assert_true(json_array_size(lg) > 0);
    /* every discard and draw is listed exactly when check() calls it valid */
    char buf[64];
    for (int c0 = 1; c0 <= FC_NTYPES; c0++)
        for (int g = 0; g < 2; g++) {
            snprintf(buf, sizeof buf, g ? "{\"discard\":\"%s\",\"go_out\":true}" : "{\"discard\":\"%s\"}",
                     fc_card_str(c0));
            json_t *pj = J(buf);
            char *pj_s = dump(json_incref(pj));
            game_verdict v;
            game_err e;
            assert_int_equal(game_judge(OPS, st, s, pj, NULL, &v, &e), 0);
            assert_int_equal(v.valid, strstr(ls, pj_s) != NULL);
            free(pj_s);
            json_decref(pj);
        }
    for (int d = 0; d < 2; d++) {
        json_t *pj = J(d ? "{\"draw\":\"discard\"}" : "{\"draw\":\"draw\"}");
        char *pj_s = dump(json_incref(pj));
        game_verdict v;
        game_err e;
        assert_int_equal(game_judge(OPS, st, s, pj, NULL, &v, &e), 0);
        assert_int_equal(v.valid, strstr(ls, pj_s) != NULL);
        free(pj_s);
        json_decref(pj);
    }
    free(ls);
    json_decref(lg);
}

/* legal() lists every valid play (that every listed play is valid and the
 * seat not to move has none is test_games.c's). */
static void test_legal_lists_every_valid_play(void **u)
{
    (void)u;
    fc_state *st = new_state();
    const char *bots[] = {"random", "strategy", "greedy"};
    legal_ctx c = {0};
    play_game(st, 3, 9, bots, check_legal, &c);
    assert_true(c.states > 50);
    free(st);
}

static double avg_score(const char *a, const char *b, int games, double *other)
{
    fc_state *st = new_state();
    double sa = 0, sb = 0;
    for (int g = 0; g < games; g++) {
        const char *bots[2] = {g % 2 ? b : a, g % 2 ? a : b};
        play_game(st, 2, 9000 + (uint64_t)g, bots, NULL, NULL);
        sa += st->score[g % 2];
        sb += st->score[1 - g % 2];
    }
    free(st);
    *other = sb / games;
    return sa / games;
}

static void test_strategy_beats_random_and_greedy(void **u)
{
    (void)u;
    double r, gr;
    double s1 = avg_score("strategy", "random", 12, &r); /* 2.8 against 389 points: a few games tell */
    double s2 = avg_score("strategy", "greedy", SLOW ? 30 : 60, &gr);
    print_message("strategy %.1f vs random %.1f; strategy %.1f vs greedy %.1f (average game scores, lower wins)\n",
                  s1, r, s2, gr);
    assert_true(s1 * 5 < r);
    assert_true(s2 + 15 < gr);
}

/* --- JSON state, views, history ------------------------------------------------ */

static void check_roundtrip(fc_state *st, void *vctx)
{
    (void)vctx;
    json_t *j = OPS->encode(st);
    char *a = dump(json_incref(j));
    fc_state *back = new_state();
    game_err e;
    if (OPS->decode(back, j, &e))
        fail_msg("decode of encode failed: %s at %s", e.detail, e.pointer);
    assert_memory_equal(back, st, sizeof *st);
    char *b = dump(OPS->encode(back));
    assert_string_equal(a, b);
    free(a);
    free(b);
    free(back);
    json_decref(j);
}

static void test_hostile_decode(void **u)
{
    (void)u;
    fc_state *st = new_state(), *target = new_state(), *copy = new_state();
    game_err e;
    game_init(OPS, st, NULL, 2, 3, NULL, &e);
    apply_ok(st, st->cur, "{\"draw\":\"draw\"}");
    memset(target, 0x5a, sizeof *target);
    memcpy(copy, target, sizeof *target);
    struct { const char *key; const char *value; const char *ptr; } bad[] = {
        {"game", "\"hanabi\"", "/game"}, {"variant", "\"bonus\"", "/variant"}, {"players", "9", "/players"},
        {"players", "\"2\"", "/players"}, {"open", "1", "/open"}, {"round", "12", "/round"},
        {"round", "0", "/round"}, {"phase", "\"bidding\"", "/phase"}, {"current", "2", "/current"},
        {"starter", "-1", "/starter"}, {"went_out", "5", "/went_out"}, {"scores", "[1]", "/scores"},
        {"scores", "[1,-1]", "/scores/1"}, {"hands", "[[],[]]", "/hands/0"}, {"hands", "{}", "/hands"},
        {"draw_pile", "[\"ZZ\"]", "/draw_pile/0"}, {"draw_pile", "7", "/draw_pile"},
        {"discard_pile", "[1]", "/discard_pile/0"}, {"result", "\"won\"", "/result"},
        {"winner", "0", "/winner"}, {"rounds", "[{}]", "/rounds"}, {"history", "[1]", "/history/0"},
        {"history", "[{\"seat\":0,\"round\":1,\"play\":{\"draw\":\"sky\"},\"card\":\"7H\"}]", "/history/0/play/draw"},
        {"history", "[{\"seat\":0,\"round\":1,\"play\":{\"draw\":\"discard\"}}]", "/history/0/card"},
        {"history", "[{\"seat\":0,\"round\":1,\"play\":{\"draw\":\"draw\"},\"card\":null}]", "/history/0/card"},
        {"rng", "{\"state\":\"zz\",\"inc\":\"1\"}", "/rng/state"}, {"toss", "{\"call\":\"edge\",\"result\":\"heads\"}", "/toss/call"},
        {"round_turns", "100000", "/round_turns"}, {"first_round", "3", "/first_round"}, {"imported", "null", "/imported"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = OPS->encode(st);
        json_object_set_new(j, bad[i].key, J(bad[i].value));
        memset(&e, 0, sizeof e);
        int rc = OPS->decode(target, j, &e);
        if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, bad[i].ptr) != 0)
            fail_msg("%s=%s: rc %d at \"%s\" (%s), expected \"%s\"", bad[i].key, bad[i].value, rc, e.pointer,
                     e.detail, bad[i].ptr);
        assert_memory_equal(target, copy, sizeof *target);
        json_decref(j);
    }
    /* missing members, and non-objects */
    const char *keys[] = {"game", "players", "hands", "history", "rng", "bot_key", "toss", "went_out", NULL};
    for (int i = 0; keys[i]; i++) {
        json_t *j = OPS->encode(st);
        json_object_del(j, keys[i]);
        assert_int_equal(OPS->decode(target, j, &e), ERR_BAD_MEMBER);
        json_decref(j);
    }
    json_t *j = J("[]");
    assert_int_equal(OPS->decode(target, j, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "");
    json_decref(j);
    assert_memory_equal(target, copy, sizeof *target);
    free(st);
    free(target);
    free(copy);
}

static void test_views(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *o = J("{\"open\":false}");
    assert_int_equal(game_init(OPS, st, NULL, 2, 11, o, &e), 0);
    json_decref(o);
    int s = st->cur, other = 1 - s;
    apply_ok(st, s, "{\"draw\":\"draw\"}");
    int drawn = st->hand[s][st->nhand[s] - 1];
    /* the other hand as JSON text, and the draw pile's top cards, must not show */
    char *oh = dump(fc_cards_json(st->hand[s], st->nhand[s]));
    char *dp = dump(fc_pile_json(st->draw + st->ndraw - 5, 5));
    char *v = dump(OPS->view(st, other));
    assert_null(strstr(v, oh));
    assert_null(strstr(v, "\"draw_pile\""));
    assert_null(strstr(v, dp));
    assert_non_null(strstr(v, "\"draw_count\""));
    char hid[64];
    snprintf(hid, sizeof hid, "%s", s == 0 ? "\"hands\":[null,[" : "],null],\"open\"");
    if (!strstr(v, hid))
        fail_msg("%s not in %s", hid, v);
    free(v);
    v = dump(OPS->view(st, SEAT_SPECTATOR));
    assert_null(strstr(v, oh));
    assert_null(strstr(v, "\"draw_pile\""));
    free(v);
    v = dump(OPS->view(st, s)); /* one's own hand is shown */
    assert_non_null(strstr(v, oh));
    free(v);
    v = dump(OPS->view(st, SEAT_ADMIN));
    assert_non_null(strstr(v, oh));
    assert_non_null(strstr(v, "\"draw_pile\""));
    free(v);
    /* history: the blind draw's card only for the drawer */
    json_t *h = OPS->history(st, other);
    assert_null(json_object_get(json_array_get(h, 0), "card"));
    json_decref(h);
    h = OPS->history(st, s);
    assert_string_equal(json_string_value(json_object_get(json_array_get(h, 0), "card")), fc_card_str(drawn));
    json_decref(h);
    free(oh);
    free(dp);

    /* open (the course program's table): both hands and the draw pile for everybody */
    json_t *open = J("{\"open\": true}");
    game_init(OPS, st, NULL, 2, 11, open, &e);
    json_decref(open);
    s = st->cur;
    oh = dump(fc_cards_json(st->hand[s], st->nhand[s]));
    dp = dump(fc_pile_json(st->draw, st->ndraw));
    v = dump(OPS->view(st, 1 - s));
    assert_non_null(strstr(v, oh));
    assert_non_null(strstr(v, dp));
    free(v);
    free(oh);
    free(dp);
    apply_ok(st, s, "{\"draw\":\"draw\"}");
    h = OPS->history(st, SEAT_SPECTATOR);
    assert_non_null(json_object_get(json_array_get(h, 0), "card"));
    json_decref(h);
    free(st);
}

static void test_closed_bot_records_hide_blind_draws(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *o = J("{\"open\":false}");
    game_init(OPS, st, NULL, 2, 12, o, &e);
    json_decref(o);
    int hidden = 0;
    for (int i = 0; i < 40; i++) {
        json_t *rec;
        char ex[320];
        assert_int_equal(game_bot_play(OPS, st, "strategy", &rec, ex, sizeof ex, &e), 0);
        json_t *pl = json_object_get(rec, "play");
        const char *d = json_string_value(json_object_get(pl, "draw"));
        if (d && strcmp(d, "draw") == 0) {
            assert_null(json_object_get(rec, "card"));
            hidden++;
        }
        json_decref(rec);
    }
    assert_true(hidden > 0);
    free(st);
}

/* Every discard of every card, going out without a complete hand, is
 * refused without a change or applies whole (refusals of malformed plays
 * and of a seat not to move are test_games.c's, for every game). */
static void test_nothing_half_applied(void **u)
{
    (void)u;
    fc_state *st = new_state(), *copy = new_state();
    game_err e;
    game_init(OPS, st, NULL, 2, 5, NULL, &e);
    int s = st->cur;
    apply_ok(st, s, "{\"draw\":\"draw\"}");
    /* a card not in the hand, going out without a complete hand */
    for (int c = 1; c <= FC_NTYPES; c++) {
        char buf[64];
        snprintf(buf, sizeof buf, "{\"discard\":\"%s\",\"go_out\":true}", fc_card_str(c));
        memcpy(copy, st, sizeof *st);
        json_t *p = J(buf);
        json_t *rec = NULL;
        if (game_apply(OPS, st, s, p, &rec, &e) != 0) {
            assert_null(rec);
            assert_memory_equal(copy, st, sizeof *st);
        } else {
            json_decref(rec);
            memcpy(st, copy, sizeof *st);
        }
        json_decref(p);
    }
    free(st);
    free(copy);
}

/* --- save files ---------------------------------------------------------------- */

static char *slurp(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/fivecrowns/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (run from the repository root)", path);
    char *buf = malloc(1 << 16);
    *len = fread(buf, 1, (1 << 16) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

/* Normal form of a save: lines trimmed, blank lines dropped, tokens single-
 * spaced, 10 written X. */
static void normalise(const char *in, char *out, size_t n)
{
    size_t k = 0;
    int sp = 0, start = 1;
    for (const char *s = in; *s && k + 2 < n; s++) {
        char c = *s;
        if (c == '\r')
            continue;
        if (c == '\n') {
            if (!start)
                out[k++] = '\n';
            start = 1;
            sp = 0;
            continue;
        }
        if (c == ' ' || c == '\t') {
            sp = !start;
            continue;
        }
        if (sp)
            out[k++] = ' ';
        sp = 0;
        start = 0;
        if (c == '1' && s[1] == '0') {
            out[k++] = 'X';
            s++;
            continue;
        }
        out[k++] = c;
    }
    if (k && out[k - 1] != '\n')
        out[k++] = '\n';
    out[k] = 0;
}

static int import_file(fc_state *st, const char *name, json_t **warnings, game_err *e)
{
    size_t len;
    char *t = slurp(name, &len);
    json_t *seats = NULL;
    memset(e, 0, sizeof *e);
    int rc = OPS->import_text(st, t, len, &seats, warnings, e);
    if (rc == 0) {
        char *s = dump(seats);
        assert_string_equal(s, "[{\"name\":\"Human\"},{\"bot\":\"strategy\",\"name\":\"Computer\"}]");
        free(s);
        /* round trip: export gives the same file, normalised */
        char *out;
        size_t olen;
        const char *mt;
        if (OPS->export_as(st, "fivecrowns-text", &out, &olen, &mt, e))
            fail_msg("%s: export failed: %s", name, e->detail);
        assert_int_equal(strlen(out), olen);
        char *na = malloc(1 << 16), *nb = malloc(1 << 16);
        normalise(t, na, 1 << 16);
        normalise(out, nb, 1 << 16);
        if (strcmp(na, nb) != 0)
            fail_msg("%s: round trip differs:\n%s\n---\n%s", name, na, nb);
        /* and reading the export back gives the same game */
        fc_state *again = new_state();
        json_t *s2, *w2;
        assert_int_equal(OPS->import_text(again, out, olen, &s2, &w2, e), 0);
        assert_int_equal(again->round, st->round);
        assert_int_equal(again->cur, st->cur);
        assert_memory_equal(again->hand, st->hand, sizeof st->hand);
        assert_memory_equal(again->draw, st->draw, st->ndraw);
        assert_memory_equal(again->disc, st->disc, st->ndisc);
        assert_memory_equal(again->score, st->score, sizeof st->score);
        json_decref(s2);
        json_decref(w2);
        free(again);
        free(na);
        free(nb);
        free(out);
    }
    free(t);
    return rc;
}

static int has_warning(json_t *w, const char *needle)
{
    size_t i;
    json_t *x;
    json_array_foreach(w, i, x) if (strstr(json_string_value(x), needle)) return 1;
    return 0;
}

static void resume_to_the_end(fc_state *st)
{
    game_err e;
    const char *bots[2] = {"strategy", "strategy"};
    game_status gs;
    json_t *h;
    OPS->status(st, &gs);
    assert_int_equal(game_hint(OPS, st, gs.to_move, &h, &e), 0); /* help works on a resumed game */
    json_decref(h);
    check_roundtrip(st, NULL);
    for (int guard = 0; guard < 20000; guard++) {
        OPS->status(st, &gs);
        if (gs.over)
            return;
        char ex[320];
        assert_int_equal(game_bot_play(OPS, st, bots[gs.to_move], NULL, ex, sizeof ex, &e), 0);
    }
    fail_msg("resumed game did not end");
}

static void test_fixtures(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *w;
    /* case1: round 2, computer to move, scores 6 / 0 */
    assert_int_equal(import_file(st, "case1.txt", &w, &e), 0);
    assert_int_equal(st->round, 2);
    assert_int_equal(st->cur, 1);
    assert_int_equal(st->score[1], 6);
    assert_int_equal(st->score[0], 0);
    assert_int_equal(st->hand[1][0], C("9C"));
    assert_int_equal(st->disc[st->ndisc - 1], C("JD")); /* first card listed = top */
    assert_int_equal(st->draw[st->ndraw - 1], C("4H"));
    assert_int_equal(st->phase, FC_PH_DRAW);
    json_decref(w);
    resume_to_the_end(st);
    /* case2 */
    assert_int_equal(import_file(st, "case2.txt", &w, &e), 0);
    assert_int_equal(st->round, 3);
    assert_int_equal(st->cur, 0);
    json_decref(w);
    resume_to_the_end(st);
    /* case3: 5H three times -> a warning */
    assert_int_equal(import_file(st, "case3.txt", &w, &e), 0);
    assert_int_equal(st->round, 11);
    assert_true(has_warning(w, "5H appears 3 times"));
    json_decref(w);
    resume_to_the_end(st);
    /* tabs and 10 */
    assert_int_equal(import_file(st, "round5-tabs-10.txt", &w, &e), 0);
    assert_int_equal(st->round, 5);
    assert_int_equal(st->cur, 1);
    json_decref(w);
    resume_to_the_end(st);
    assert_int_equal(import_file(st, "round11-tabs-10.txt", &w, &e), 0);
    assert_int_equal(st->hand[1][4], C("XD"));
    json_decref(w);
    resume_to_the_end(st);
    /* round4: 6C three times and no 8C */
    assert_int_equal(import_file(st, "round4-tabs-10.txt", &w, &e), 0);
    assert_true(has_warning(w, "6C appears 3 times"));
    assert_true(has_warning(w, "missing from the save:"));
    assert_true(has_warning(w, " 8C"));
    json_decref(w);
    resume_to_the_end(st);
    /* only 97 cards */
    assert_int_equal(import_file(st, "round1-97-cards.txt", &w, &e), 0);
    assert_true(has_warning(w, "97 cards"));
    json_decref(w);
    resume_to_the_end(st);
    /* 24 cards in round 10: rejected, naming the line */
    fc_state *copy = new_state();
    memcpy(copy, st, sizeof *st);
    w = NULL;
    assert_int_equal(import_file(st, "bad-hand-size-round10.txt", &w, &e), ERR_BAD_MEMBER);
    assert_null(w);
    assert_non_null(strstr(e.detail, "line 9"));
    assert_non_null(strstr(e.detail, "24"));
    assert_memory_equal(copy, st, sizeof *st);
    free(copy);
    free(st);
}

static void test_text_errors(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *seats, *w;
    struct { const char *text; int rc; const char *needle; } cases[] = {
        {"{\"game\":\"hanabi\"}", ERR_NOT_FOUND, "Round:"},
        {"", ERR_NOT_FOUND, "Round:"},
        {"Round: 1\nComputer:\nScore: 0\nHand: XS KH J1\nHuman:\nScore: 0\nHand: JD 3T QQ\nDraw Pile: 6S\nDiscard Pile: 8T\nNext Player: Human",
         ERR_BAD_MEMBER, "line 7: unknown card \"QQ\""},
        {"Round: 1\nComputer:\nScore: 0\nHand: XS KH J1\nHuman:\nScore: 0\nHand: JD 3T QC\nDraw Pile: 6S\nNext Player: Human",
         ERR_BAD_MEMBER, "\"Discard Pile:\" section is missing"},
        {"Round: 1\nComputer:\nScore: 0\nHand: XS KH J1\nHuman:\nScore: 0\nHand: JD 3T QC 4C\nDraw Pile: 6S\nDiscard Pile: 8T\nNext Player: Human",
         ERR_BAD_MEMBER, "line 7: the Human hand holds 4 cards; round 1 deals 3"},
        {"Round: 12\n", ERR_BAD_MEMBER, "line 1"},
        {"Round: 1\nComputer:\nScore: x\n", ERR_BAD_MEMBER, "line 3"},
        {"Round: 1\nComputer:\nScore: 0\nHand: XS KH J1\nHuman:\nScore: 0\nHand: JD 3T QC\nDraw Pile: 6S\nDiscard Pile: 8T\nNext Player: Dealer",
         ERR_BAD_MEMBER, "line 10"},
        {"Round: 1\nHello there\n", ERR_BAD_MEMBER, "line 2: unexpected text"},
        {"Round: 1\nRound: 2\n", ERR_BAD_MEMBER, "line 2"},
        {"Round: 1\nScore: 3\n", ERR_BAD_MEMBER, "line 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&e, 0, sizeof e);
        seats = w = NULL;
        int rc = OPS->import_text(st, cases[i].text, strlen(cases[i].text), &seats, &w, &e);
        if (rc != cases[i].rc || !strstr(e.detail, cases[i].needle))
            fail_msg("case %zu: rc %d \"%s\", expected %d with \"%s\"", i, rc, e.detail, cases[i].rc, cases[i].needle);
        assert_null(seats);
        assert_null(w);
    }
    /* lenient: CR LF, lower case labels, 10, no final newline, blocks swapped */
    const char *ok = "  round:1\r\n\r\n\thuman:\r\n score : 4\r\n hand: 10S kh j1  \r\ncomputer:\r\nScore: 0\r\nHand: jd 3t qc\r\n"
                     "draw  pile: 6s\r\ndiscard pile: 8t 9t\r\nnext player: computer";
    assert_int_equal(OPS->import_text(st, ok, strlen(ok), &seats, &w, &e), 0);
    assert_int_equal(st->hand[0][0], C("XS"));
    assert_int_equal(st->score[0], 4);
    assert_int_equal(st->cur, 1);
    assert_int_equal(st->disc[st->ndisc - 1], C("8T"));
    assert_true(has_warning(w, "9 cards"));
    json_decref(seats);
    json_decref(w);
    free(st);
}

static void test_export_rules(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    char *out;
    size_t len;
    const char *mt;
    game_init(OPS, st, NULL, 3, 1, NULL, &e);
    assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out, &len, &mt, &e), ERR_BAD_QUERY);
    assert_non_null(strstr(e.detail, "2-player"));
    game_init(OPS, st, NULL, 2, 1, NULL, &e);
    assert_int_equal(OPS->export_as(st, "csv", &out, &len, &mt, &e), ERR_BAD_QUERY);
    assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out, &len, &mt, &e), 0);
    assert_string_equal(mt, "text/plain; charset=utf-8");
    assert_true(strncmp(out, "Round: 1\n\nComputer:\n   Score: 0\n   Hand: ", 40) == 0);
    assert_non_null(strstr(out, st->cur == 0 ? "Next Player: Human\n" : "Next Player: Computer\n"));
    free(out);
    /* mid-turn: refused */
    apply_ok(st, st->cur, "{\"draw\":\"draw\"}");
    assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out, &len, &mt, &e), ERR_BAD_QUERY);
    assert_non_null(strstr(e.detail, "before a player's turn"));
    /* during the last turns after someone went out: refused */
    blank(st, 2, 1);
    give(st, 0, "5H 6H KC");
    give(st, 1, "4S 8D QT");
    disc_push(st, "7H");
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    apply_ok(st, 0, "{\"discard\":\"KC\",\"go_out\":true}");
    assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out, &len, &mt, &e), ERR_BAD_QUERY);
    assert_non_null(strstr(e.detail, "gone out"));
    /* game over: refused */
    const char *bots[] = {"strategy", "strategy"};
    play_game(st, 2, 4, bots, NULL, NULL);
    assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out, &len, &mt, &e), ERR_BAD_QUERY);
    /* a saved game at every turn boundary of a game reads back the same */
    game_init(OPS, st, NULL, 2, 8, NULL, &e);
    fc_state *back = new_state();
    for (int i = 0; i < 200 && st->phase != FC_PH_OVER; i++) {
        if (st->phase == FC_PH_DRAW && st->went_out < 0) {
            json_t *s2, *w2;
            assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out, &len, &mt, &e), 0);
            assert_int_equal(OPS->import_text(back, out, len, &s2, &w2, &e), 0);
            assert_int_equal(json_array_size(w2), 0); /* a game dealt here has 116 cards, 2 of each */
            assert_memory_equal(back->hand, st->hand, sizeof st->hand);
            assert_int_equal(back->ndraw, st->ndraw);
            assert_memory_equal(back->draw, st->draw, st->ndraw);
            assert_memory_equal(back->disc, st->disc, st->ndisc);
            assert_int_equal(back->cur, st->cur);
            assert_int_equal(back->round, st->round);
            json_decref(s2);
            json_decref(w2);
            free(out);
        }
        char ex[320];
        assert_int_equal(game_bot_play(OPS, st, "strategy", NULL, ex, sizeof ex, &e), 0);
    }
    free(back);
    free(st);
}

/* --- capacity: no import holds what a later play cannot store ------------------ */

/* A save of round 1 whose draw and discard piles hold nd and nc cards
 * (cycling through the 58 card types): Draw Pile: on line 11, Discard Pile:
 * on line 13. */
static char *pile_save(int nd, int nc)
{
    size_t cap = 4096;
    char *t = malloc(cap);
    size_t k = (size_t)snprintf(t, cap, "Round: 1\n\nComputer:\n   Score: 0\n   Hand: XS KH J1\n\nHuman:\n"
                                         "   Score: 0\n   Hand: JD 3T QC\n\nDraw Pile:");
    for (int i = 0; i < nd; i++)
        k += (size_t)snprintf(t + k, cap - k, " %s", fc_card_str(i % FC_NTYPES + 1));
    k += (size_t)snprintf(t + k, cap - k, "\n\nDiscard Pile:");
    for (int i = 0; i < nc; i++)
        k += (size_t)snprintf(t + k, cap - k, " %s", fc_card_str((i + 7) % FC_NTYPES + 1));
    snprintf(t + k, cap - k, "\n\nNext Player: Human\n");
    return t;
}

static void play_to_the_end(fc_state *st, const char *const *bots)
{
    game_err e;
    game_status gs;
    for (int guard = 0; guard < 40000; guard++) {
        OPS->status(st, &gs);
        if (gs.over)
            return;
        char ex[320];
        if (game_bot_play(OPS, st, bots[gs.to_move % 3], NULL, ex, sizeof ex, &e))
            fail_msg("bot failed: %s", e.detail);
    }
    fail_msg("game did not end");
}

static void test_capacity_text_import(void **u)
{
    (void)u;
    fc_state *st = new_state(), *copy = new_state();
    game_err e;
    json_t *seats, *w;
    memset(st, 0x5a, sizeof *st);
    memcpy(copy, st, sizeof *st);
    struct { int nd, nc; const char *needle; } bad[] = {
        {10, 240, "line 13: the discard pile holds 240 cards"}, /* the save */
        {0, 240, "line 13: the discard pile holds 240 cards"},
        {100, 135, "line 13: the discard pile holds 135 cards"},  /* 241 in all */
        {240, 1, "line 11: the draw pile holds 240 cards"},
        {235, 0, "line 11: the draw pile holds 235 cards"},
        {0, 241, "line 13: more than 240 cards"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *t = pile_save(bad[i].nd, bad[i].nc);
        memset(&e, 0, sizeof e);
        seats = w = NULL;
        int rc = OPS->import_text(st, t, strlen(t), &seats, &w, &e);
        if (rc != ERR_BAD_MEMBER || !strstr(e.detail, bad[i].needle))
            fail_msg("draw %d discard %d: rc %d \"%s\", expected \"%s\"", bad[i].nd, bad[i].nc, rc, e.detail,
                     bad[i].needle);
        assert_null(seats);
        assert_null(w);
        assert_memory_equal(st, copy, sizeof *st);
        free(t);
    }
    /* exactly full (6 in the hands, 234 in the piles) loads, and plays to the
     * end (under ASan: nothing written past a pile), with a reshuffle */
    const char *bots[3] = {"random", "greedy", "strategy"};
    int fits[][2] = {{0, 234}, {234, 0}, {100, 134}};
    for (int i = 0; i < 3; i++) {
        char *t = pile_save(fits[i][0], fits[i][1]);
        assert_int_equal(OPS->import_text(st, t, strlen(t), &seats, &w, &e), 0);
        assert_int_equal(st->ndraw + st->ndisc, 234);
        json_decref(seats);
        json_decref(w);
        check_roundtrip(st, NULL);
        play_to_the_end(st, bots);
        free(t);
    }
    free(st);
    free(copy);
}

static void expect_decode_error(json_t *j, const char *ptr, const char *needle)
{
    fc_state *target = new_state(), *copy = new_state();
    game_err e;
    memset(target, 0x5a, sizeof *target);
    memcpy(copy, target, sizeof *target);
    memset(&e, 0, sizeof e);
    int rc = OPS->decode(target, j, &e);
    if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, ptr) != 0 || (needle && !strstr(e.detail, needle)))
        fail_msg("rc %d at \"%s\" (%s), expected \"%s\" (%s)", rc, e.pointer, e.detail, ptr, needle ? needle : "");
    assert_memory_equal(target, copy, sizeof *target);
    json_decref(j);
    free(target);
    free(copy);
}

static json_t *cards_array(int n, int from)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(fc_card_str((i + from) % FC_NTYPES + 1)));
    return a;
}

static void test_capacity_json_decode(void **u)
{
    (void)u;
    fc_state *st = new_state(), *back = new_state();
    game_err e;
    game_init(OPS, st, NULL, 2, 3, NULL, &e); /* round 1: 6 cards in the hands */
    json_t *j;
    /* piles: 240 discards, or 235 + 6 in all */
    j = OPS->encode(st);
    json_object_set_new(j, "discard_pile", cards_array(240, 0));
    expect_decode_error(j, "/discard_pile", "240 cards");
    j = OPS->encode(st);
    json_object_set_new(j, "draw_pile", cards_array(100, 0));
    json_object_set_new(j, "discard_pile", cards_array(135, 3));
    expect_decode_error(j, "/discard_pile", "241");
    j = OPS->encode(st);
    json_object_set_new(j, "draw_pile", cards_array(235, 0));
    json_object_set_new(j, "discard_pile", json_array());
    expect_decode_error(j, "/draw_pile", "235");
    /* exactly full decodes and plays to the end */
    j = OPS->encode(st);
    json_object_set_new(j, "draw_pile", cards_array(4, 0));
    json_object_set_new(j, "discard_pile", cards_array(230, 5));
    json_object_set_new(j, "imported", json_true()); /* a save's odd cards (fc_untidy) */
    assert_int_equal(OPS->decode(back, j, &e), 0);
    json_decref(j);
    const char *bots[3] = {"strategy", "random", "greedy"};
    play_to_the_end(back, bots);
    /* history: a full one at round 1 leaves no room for the rest of the game */
    j = OPS->encode(st);
    json_t *h = json_array();
    for (int i = 0; i < FC_MAXHIST - 100; i++)
        json_array_append_new(h, json_pack("{s:i,s:i,s:{s:s},s:s}", "seat", 0, "round", 1, "play", "draw", "discard",
                                           "card", "7H"));
    json_object_set_new(j, "history", h);
    expect_decode_error(j, "/history", "more than the");
    /* a round_end mark on the round under way */
    j = OPS->encode(st);
    json_object_set_new(j, "history", J("[{\"seat\":0,\"round\":1,\"play\":{\"discard\":\"7H\"},\"round_end\":true}]"));
    expect_decode_error(j, "/history/0/round_end", "under way");
    /* 16-bit counters: turns, and totals that the rounds left could overflow */
    j = OPS->encode(st);
    json_object_set_new(j, "turns", json_integer(65535));
    expect_decode_error(j, "/turns", NULL);
    j = OPS->encode(st);
    json_object_set_new(j, "scores", J("[0,60000]"));
    expect_decode_error(j, "/scores/1", NULL);
    j = OPS->encode(st);
    json_object_set_new(j, "scores", J("[50000,0]")); /* a saved total: fine */
    assert_int_equal(OPS->decode(back, j, &e), 0);
    json_decref(j);
    play_to_the_end(back, bots);
    assert_true(back->score[0] >= 50000);
    /* a hand at the draw always has room for the card drawn */
    memcpy(back, st, sizeof *st);
    back->round = 11;
    back->nhand[0] = FC_HANDMAX;
    memset(&e, 0, sizeof e);
    assert_int_equal(fc_check_capacity(back, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/hands/0");
    /* every state of real games is within capacity (roundtrip checks decode) */
    free(st);
    free(back);
}

/* --- who reads what (game.h's readers) ---------------------------------------- */

/* The explanation of a bot's play at a closed table names only the cards
 * everybody saw (the discard top before the play, the card discarded) and
 * no point count, arrangement or group of the hidden hand. */
static void check_public_explanation(const char *x, int top, int discarded)
{
    char buf[512], nm[40];
    snprintf(buf, sizeof buf, "%s", x);
    int allowed[2] = {top, discarded};
    for (int i = 0; i < 2; i++) {
        if (!allowed[i])
            continue;
        fc_card_name(allowed[i], nm, sizeof nm);
        for (char *p; (p = strstr(buf, nm));)
            memset(p, '_', strlen(nm));
    }
    static const char *const banned[] = {" of spades", " of clubs", " of diamonds", " of hearts", " of tridents",
                                         "joker", "run of ", "book of ", "-", NULL};
    for (int i = 0; banned[i]; i++)
        if (strstr(buf, banned[i]))
            fail_msg("closed table: \"%s\" in the explanation \"%s\"", banned[i], x);
    for (char *p; (p = strstr(buf, "player "));) /* "player 1 went out": public */
        for (memset(p, '_', 7), p += 7; *p >= '0' && *p <= '9'; p++)
            *p = '_';
    for (const char *p = buf; *p; p++)
        if (*p >= '0' && *p <= '9')
            fail_msg("closed table: a number in the explanation \"%s\"", x);
}

/* history(st, reader) with the bots' explanations merged as api/ does */
static char *history_text(const fc_state *st, int reader, char (*expl)[320])
{
    json_t *h = OPS->history(st, reader);
    size_t i;
    json_t *r;
    json_array_foreach(h, i, r) if (expl[i][0]) json_object_set_new(r, "explanation", json_string(expl[i]));
    return dump(h);
}

static void test_closed_table_explanations_are_public(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *o = J("{\"open\":false}");
    static const char *const all[] = {"strategy", "greedy", "random"};
    char(*expl)[320] = calloc(FC_MAXHIST, sizeof *expl);
    int checked = 0, games = SLOW ? 3 : 9;
    for (int g = 0; g < games; g++) {
        int np = 2 + g % 3;
        assert_int_equal(game_init(OPS, st, NULL, np, 900 + (uint64_t)g, o, &e), 0);
        memset(expl, 0, FC_MAXHIST * sizeof *expl);
        game_status gs;
        for (OPS->status(st, &gs); !gs.over; OPS->status(st, &gs)) {
            json_t *rec;
            char ex[320];
            int top = st->ndisc ? st->disc[st->ndisc - 1] : 0;
            const char *bot = all[(g + gs.to_move) % 3];
            assert_int_equal(game_bot_play(OPS, st, bot, &rec, ex, sizeof ex, &e), 0);
            const char *d = json_string_value(json_object_get(json_object_get(rec, "play"), "discard"));
            check_public_explanation(ex, top, d ? fc_card_parse(d) : 0);
            assert_string_equal(json_string_value(json_object_get(rec, "explanation")), ex);
            /* the bot's record (shown to the seat that played before it) hides its blind draw */
            const char *dr = json_string_value(json_object_get(json_object_get(rec, "play"), "draw"));
            if (dr && strcmp(dr, "draw") == 0)
                assert_null(json_object_get(rec, "card"));
            snprintf(expl[st->nhist - 1], sizeof expl[0], "%s", ex);
            json_decref(rec);
            checked++;
            /* now and then, every reader's history and view on the JSON text
             * (while the game runs: once it is over every card is public) */
            if (checked % 97 == 0 && st->phase != FC_PH_OVER) {
                for (int rd = SEAT_OBSERVER; rd < np; rd++) {
                    if (rd == SEAT_ADMIN)
                        continue;
                    char *ht = history_text(st, rd, expl);
                    json_t *h = J(ht);
                    size_t i;
                    json_t *r;
                    json_array_foreach(h, i, r) {
                        const fc_hist *x = &st->hist[i];
                        int sees = rd == SEAT_OBSERVER || rd == x->seat;
                        if (x->kind == FC_PLAY_DRAW_PILE && !sees && json_object_get(r, "card"))
                            fail_msg("reader %d sees the blind draw %zu of seat %d", rd, i, x->seat);
                    }
                    json_decref(h);
                    free(ht);
                    char *v = dump(OPS->view(st, rd));
                    for (int p = 0; p < np; p++) {
                        char *hand = dump(fc_cards_json(st->hand[p], st->nhand[p]));
                        int sees = rd == SEAT_OBSERVER || rd == p;
                        if (!sees && strstr(v, hand))
                            fail_msg("reader %d sees the hand of %d: %s", rd, p, v);
                        if (sees && !strstr(v, hand))
                            fail_msg("reader %d misses the hand of %d: %s", rd, p, v);
                        free(hand);
                    }
                    assert_null(strstr(v, "\"draw_pile\""));
                    assert_null(strstr(v, "\"rng\""));
                    free(v);
                }
            }
        }
    }
    assert_true(checked > 300);
    json_decref(o);
    free(expl);
    free(st);
}

/* The public line of a play (ops->explain), the play as JSON text. */
static void line(const fc_state *st, int seat, const char *play, const char *bot, char *out, size_t n)
{
    json_t *p = J(play);
    OPS->explain(st, seat, p, bot, out, n);
    json_decref(p);
}

/* At a closed table every reader is shown the public line: the card the
 * play shows and the strategy's rule, never the hand's groups, points or
 * that it can go out; the strategy's own sentence (the reasoning, for the
 * admin and after the game) names them. At an open table the two agree. */
static void test_closed_table_explanation_wording(void **u)
{
    (void)u;
    fc_state *st = new_state();
    fc_obs o;
    fc_advice adv;
    char pub[400], why[320];
    fc_play p;
    /* the completing card: named (it was face up), the run it completes not */
    blank(st, 2, 2);
    st->open = 0;
    give(st, 0, "5H 6H KC QS");
    give(st, 1, "3S 8D QT 9S");
    disc_push(st, "7H");
    fc_observe(st, 0, &o);
    fc_strategy(&o, 0, &adv);
    assert_string_equal(adv.why, "takes the 7 of hearts from the discard pile: it completes a run of hearts 5-6-7.");
    line(st, 0, "{\"draw\":\"discard\"}", "strategy", pub, sizeof pub);
    assert_string_equal(pub, "takes the 7 of hearts from the discard pile: it is worth more to the hand than a blind draw on average.");
    fc_strategy(&o, 1, &adv); /* help mode talks to the seat: its own cards */
    assert_non_null(strstr(adv.why, "a run of hearts 5-6-7"));
    st->open = 1; /* every hand on view: the strategy's own sentence is public */
    line(st, 0, "{\"draw\":\"discard\"}", "strategy", pub, sizeof pub);
    assert_string_equal(pub, "takes the 7 of hearts from the discard pile: it completes a run of hearts 5-6-7.");
    st->open = 0;
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    fc_observe(st, 0, &o);
    fc_strategy(&o, 0, &adv);
    assert_string_equal(adv.why, "discards the king of clubs: it is the highest card that fits no run or book.");
    line(st, 0, "{\"discard\":\"KC\"}", "strategy", pub, sizeof pub);
    assert_string_equal(pub, "discards the king of clubs: it is the card the hand misses least.");
    fc_greedy(&o, &p, why, sizeof why);
    assert_non_null(strchr(why, '(')); /* its reasoning counts the points */
    line(st, 0, "{\"discard\":\"KC\"}", "greedy", pub, sizeof pub);
    assert_string_equal(pub, "discards the king of clubs: that leaves the fewest points in the hand.");
    /* going out: the discard is named, the hand is not */
    blank(st, 2, 1);
    st->open = 0;
    give(st, 0, "5H 6H KC");
    give(st, 1, "4S 8D QT");
    disc_push(st, "7H");
    fc_observe(st, 0, &o);
    fc_strategy(&o, 0, &adv);
    assert_string_equal(adv.why, "takes the 7 of hearts from the discard pile: with it the hand can go out after discarding the king of clubs.");
    line(st, 0, "{\"draw\":\"discard\"}", "strategy", pub, sizeof pub);
    assert_null(strstr(pub, "go out")); /* that would tell every reader what the hand holds */
    apply_ok(st, 0, "{\"draw\":\"discard\"}");
    line(st, 0, "{\"discard\":\"KC\",\"go_out\":true}", "strategy", pub, sizeof pub);
    assert_string_equal(pub, "discards the king of clubs and goes out: the rest of the hand forms runs and books.");
    apply_ok(st, 0, "{\"discard\":\"KC\",\"go_out\":true}");
    /* the last turn: no point count of the hand before it is laid out */
    apply_ok(st, 1, "{\"draw\":\"draw\"}");
    fc_observe(st, 1, &o);
    fc_strategy(&o, 0, &adv);
    char play[64];
    snprintf(play, sizeof play, "{\"discard\":\"%s\"}", fc_card_str(adv.play.card));
    line(st, 1, play, "strategy", pub, sizeof pub);
    assert_non_null(strstr(pub, "last turn after player 1 went out")); /* seat 0, counted from 1 */
    assert_non_null(strstr(pub, "leaves the fewest points in the hand."));
    line(st, 1, play, "greedy", pub, sizeof pub);
    assert_null(strchr(pub, '('));
    free(st);
}

static void test_readers(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    json_t *o = J("{\"open\":false}");
    /* closed table, mid-game: the observer sees every hand, no pile */
    assert_int_equal(game_init(OPS, st, NULL, 3, 11, o, &e), 0);
    int s = st->cur;
    apply_ok(st, s, "{\"draw\":\"draw\"}");
    char *dp = dump(fc_pile_json(st->draw + st->ndraw - 6, 6));
    char *v = dump(OPS->view(st, SEAT_OBSERVER));
    for (int p = 0; p < 3; p++) {
        char *hand = dump(fc_cards_json(st->hand[p], st->nhand[p]));
        assert_non_null(strstr(v, hand));
        free(hand);
    }
    assert_null(strstr(v, "\"draw_pile\""));
    assert_null(strstr(v, dp));
    assert_null(strstr(v, "\"discard_pile\"")); /* no seat sees it at a closed table */
    assert_non_null(strstr(v, "\"seat\":null"));
    assert_null(strstr(v, "\"hand\":"));
    free(v);
    v = dump(OPS->view(st, SEAT_SPECTATOR));
    assert_non_null(strstr(v, "\"hands\":[null,null,null]"));
    assert_null(strstr(v, "\"draw_pile\""));
    assert_null(strstr(v, "\"discard_pile\""));
    free(v);
    json_t *h = OPS->history(st, SEAT_OBSERVER);
    assert_non_null(json_object_get(json_array_get(h, 0), "card"));
    json_decref(h);
    h = OPS->history(st, SEAT_SPECTATOR);
    assert_null(json_object_get(json_array_get(h, 0), "card"));
    json_decref(h);
    /* once over, everybody sees everything, blind draws included */
    const char *bots[] = {"strategy", "greedy", "random"};
    play_to_the_end(st, bots);
    for (int rd = SEAT_OBSERVER; rd < 3; rd++) {
        v = dump(OPS->view(st, rd));
        assert_non_null(strstr(v, "\"draw_pile\""));
        assert_non_null(strstr(v, "\"discard_pile\""));
        for (int p = 0; p < 3; p++) {
            char *hand = dump(fc_cards_json(st->hand[p], st->nhand[p]));
            assert_non_null(strstr(v, hand));
            free(hand);
        }
        free(v);
        h = OPS->history(st, rd);
        size_t i;
        json_t *r;
        json_array_foreach(h, i, r) if (st->hist[i].kind == FC_PLAY_DRAW_PILE) assert_non_null(json_object_get(r, "card"));
        json_decref(h);
    }
    free(dp);
    /* open table, mid-game: hands public; the draw pile's order only on the
     * seats' screens (the seed's), never to a spectator or an observer */
    json_t *open = J("{\"open\": true}");
    game_init(OPS, st, NULL, 2, 11, open, &e);
    json_decref(open);
    dp = dump(fc_pile_json(st->draw + st->ndraw - 6, 6));
    for (int rd = SEAT_OBSERVER; rd < 2; rd++) {
        if (rd == SEAT_ADMIN)
            continue;
        v = dump(OPS->view(st, rd));
        for (int p = 0; p < 2; p++) {
            char *hand = dump(fc_cards_json(st->hand[p], st->nhand[p]));
            assert_non_null(strstr(v, hand));
            free(hand);
        }
        assert_non_null(strstr(v, "\"discard_pile\"")); /* on every seat's screen */
        if (rd >= 0) {
            assert_non_null(strstr(v, "\"draw_pile\""));
        } else {
            assert_null(strstr(v, "\"draw_pile\""));
            assert_null(strstr(v, dp));
        }
        assert_null(strstr(v, "\"rng\""));
        free(v);
    }
    free(dp);
    json_decref(o);
    free(st);
}

/* --- conceal: a seat's save predicts nothing ------------------------------------ */

static void test_conceal(void **u)
{
    (void)u;
    fc_state *st = new_state(), *a = new_state(), *b = new_state(), *back = new_state();
    game_err e;
    const char *bots[] = {"strategy", "random", "greedy"};
    json_t *open = J("{\"open\": true}");
    game_init(OPS, st, NULL, 3, 41, open, &e);
    json_decref(open);
    for (int i = 0; i < 9; i++) {
        char ex[320];
        assert_int_equal(game_bot_play(OPS, st, bots[i % 3], NULL, ex, sizeof ex, &e), 0);
    }
    assert_true(st->ndraw > 50);
    memcpy(a, st, sizeof *st);
    memcpy(b, st, sizeof *st);
    OPS->conceal(a, 0, 1);
    OPS->conceal(b, 0, 2);
    for (fc_state *c = a; c; c = c == a ? b : NULL) {
        /* the visible position is unchanged ... */
        assert_memory_equal(c->hand, st->hand, sizeof st->hand);
        assert_memory_equal(c->nhand, st->nhand, sizeof st->nhand);
        assert_memory_equal(c->disc, st->disc, sizeof st->disc);
        assert_memory_equal(c->score, st->score, sizeof st->score);
        assert_memory_equal(c->hist, st->hist, sizeof st->hist);
        assert_int_equal(c->nhist, st->nhist);
        assert_int_equal(c->cur, st->cur);
        assert_int_equal(c->phase, st->phase);
        assert_int_equal(c->ndraw, st->ndraw);
        /* ... the draw pile holds the same cards in another order ... */
        int ca[FC_NTYPES + 1], cb[FC_NTYPES + 1];
        count_cards(st, ca);
        count_cards(c, cb);
        assert_memory_equal(ca, cb, sizeof ca);
        assert_true(memcmp(c->draw, st->draw, st->ndraw) != 0);
        /* ... and its RNG and the bots' key are new */
        assert_true(memcmp(&c->rng, &st->rng, sizeof st->rng) != 0);
        assert_true(c->bkey != st->bkey);
        /* it encodes, decodes and plays on */
        json_t *j = OPS->encode(c);
        assert_int_equal(OPS->decode(back, j, &e), 0);
        json_decref(j);
        assert_memory_equal(back, c, sizeof *c);
    }
    assert_true(memcmp(a->draw, b->draw, st->ndraw) != 0);
    /* deterministic in the salt (the engine has no randomness of its own) */
    memcpy(b, st, sizeof *st);
    OPS->conceal(b, 0, 1);
    assert_memory_equal(a, b, sizeof *a);
    /* the next round's deal from the save is not the real game's */
    memcpy(b, st, sizeof *st);
    b->round = 2;
    fc_deal_round(b, 0);
    memcpy(back, a, sizeof *a);
    back->round = 2;
    fc_deal_round(back, 0);
    assert_true(memcmp(b->hand, back->hand, sizeof b->hand) != 0);
    /* and the concealed copy plays to the end */
    play_to_the_end(a, bots);
    assert_int_equal(a->phase, FC_PH_OVER);
    /* the text save of a concealed copy reads back */
    game_init(OPS, st, NULL, 2, 5, NULL, &e);
    memcpy(a, st, sizeof *st);
    OPS->conceal(a, 0, 99);
    char *out, *out0;
    size_t len, len0;
    const char *mt;
    json_t *s2, *w2;
    assert_int_equal(OPS->export_as(a, "fivecrowns-text", &out, &len, &mt, &e), 0);
    assert_int_equal(OPS->export_as(st, "fivecrowns-text", &out0, &len0, &mt, &e), 0);
    assert_string_not_equal(out, out0);
    assert_int_equal(OPS->import_text(back, out, len, &s2, &w2, &e), 0);
    assert_int_equal(json_array_size(w2), 0);
    assert_memory_equal(back->hand[0], st->hand[0], sizeof st->hand[0]);
    assert_memory_equal(back->hand[1], a->hand[1], sizeof a->hand[1]);
    json_decref(s2);
    json_decref(w2);
    free(out);
    free(out0);
    free(st);
    free(a);
    free(b);
    free(back);
}

/* At a closed table (the default) a seat's save also deals the hands it
 * does not see anew and forgets the other seats' blind draws. */
static void test_conceal_closed(void **u)
{
    (void)u;
    fc_state *st = new_state(), *a = new_state(), *back = new_state();
    game_err e;
    const char *bots[] = {"strategy", "random", "greedy"};
    game_init(OPS, st, NULL, 3, 43, NULL, &e);
    assert_int_equal(st->open, 0);
    for (int i = 0; i < 30; i++) {
        char ex[320];
        assert_int_equal(game_bot_play(OPS, st, bots[i % 3], NULL, ex, sizeof ex, &e), 0);
    }
    int blind[FC_MAXP] = {0};
    for (int i = 0; i < st->nhist; i++)
        blind[st->hist[i].seat] += st->hist[i].kind == FC_PLAY_DRAW_PILE;
    assert_true(blind[0] > 0 && blind[1] > 0 && blind[2] > 0);
    memcpy(a, st, sizeof *st);
    OPS->conceal(a, 1, 7);
    /* seat 1's hand, the discard pile and the scores as they were */
    assert_memory_equal(a->hand[1], st->hand[1], st->nhand[1]);
    assert_memory_equal(a->nhand, st->nhand, sizeof st->nhand);
    assert_memory_equal(a->disc, st->disc, sizeof st->disc);
    assert_int_equal(a->ndraw, st->ndraw);
    /* the other hands are new, from the same cards as theirs and the draw pile */
    assert_true(memcmp(a->hand[0], st->hand[0], st->nhand[0]) != 0 ||
                memcmp(a->hand[2], st->hand[2], st->nhand[2]) != 0);
    int ca[FC_NTYPES + 1], cb[FC_NTYPES + 1];
    count_cards(st, ca);
    count_cards(a, cb);
    assert_memory_equal(ca, cb, sizeof ca);
    /* seat 1's own blind draws are kept, the others' forgotten */
    for (int i = 0; i < st->nhist; i++) {
        const fc_hist *x = &st->hist[i], *y = &a->hist[i];
        if (x->kind == FC_PLAY_DRAW_PILE && x->seat != 1)
            assert_int_equal(y->card, 0);
        else
            assert_int_equal(y->card, x->card);
    }
    /* nothing of it names a forgotten card: it encodes, decodes and plays on */
    json_t *j = OPS->encode(a);
    assert_int_equal(OPS->decode(back, j, &e), 0);
    json_decref(j);
    assert_memory_equal(back, a, sizeof *a);
    json_t *h = OPS->history(a, SEAT_ADMIN);
    size_t i;
    json_t *rec;
    json_array_foreach(h, i, rec)
        if (json_object_get(rec, "card") && json_is_null(json_object_get(rec, "card")))
            fail_msg("record %zu has a null card", i);
    json_decref(h);
    play_to_the_end(a, bots);
    assert_int_equal(a->phase, FC_PH_OVER);
    free(st);
    free(a);
    free(back);
}

/* --- card conservation (fc_check_cards) -------------------------------------- */

/* A state dealt here holds each card exactly twice in the hands and piles:
 * decode refuses one with a card more (naming its third copy) or less. */
static void test_decode_counts_the_cards(void **u)
{
    (void)u;
    fc_state *st = new_state(), *back = new_state();
    game_err e;
    game_init(OPS, st, NULL, 3, 11, NULL, &e);
    json_t *j = OPS->encode(st), *disc = json_object_get(j, "discard_pile");
    char ptr[32];
    snprintf(ptr, sizeof ptr, "/discard_pile/%zu", json_array_size(disc));
    json_array_append_new(disc, json_string(fc_card_str(st->draw[0]))); /* its bottom: the copy counted last */
    expect_decode_error(j, ptr, "a third");
    j = OPS->encode(st);
    json_array_remove(json_object_get(j, "draw_pile"), 0);
    expect_decode_error(j, "/draw_pile", "in play 1 time");
    /* the same odd cards in the first round of a game resumed from a save */
    j = OPS->encode(st);
    json_array_remove(json_object_get(j, "draw_pile"), 0);
    json_object_set_new(j, "imported", json_true());
    assert_int_equal(OPS->decode(back, j, &e), 0);
    json_decref(j);
    free(st);
    free(back);
}

/* A card copied over another breaks the invariants (a third copy). */
static void test_invariants_count_the_cards(void **u)
{
    (void)u;
    fc_state *st = new_state();
    game_err e;
    game_init(OPS, st, NULL, 2, 5, NULL, &e);
    assert_int_equal(OPS->invariants(st, &e), 0);
    int i = st->draw[0] == st->hand[0][0] ? 1 : 0;
    st->draw[i] = st->hand[0][0];
    memset(&e, 0, sizeof e);
    assert_int_equal(OPS->invariants(st, &e), ERR_INTERNAL);
    assert_non_null(strstr(e.detail, "a third"));
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cards),
        cmocka_unit_test(test_deck_and_deal),
        cmocka_unit_test(test_rounds_of_a_game),
        cmocka_unit_test(test_coin_toss),
        cmocka_unit_test(test_options_and_players),
        cmocka_unit_test(test_draw_and_discard),
        cmocka_unit_test(test_empty_draw_pile_reshuffles),
        cmocka_unit_test(test_going_out_last_turn_and_scoring),
        cmocka_unit_test(test_wild_scores_20),
        cmocka_unit_test(test_game_end_winner_lowest),
        cmocka_unit_test(test_arranger_vs_brute_force),
        cmocka_unit_test(test_explanations),
        cmocka_unit_test(test_help_mode),
        cmocka_unit_test(test_legal_lists_every_valid_play),
        cmocka_unit_test(test_strategy_beats_random_and_greedy),
        cmocka_unit_test(test_hostile_decode),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_closed_bot_records_hide_blind_draws),
        cmocka_unit_test(test_nothing_half_applied),
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_text_errors),
        cmocka_unit_test(test_export_rules),
        cmocka_unit_test(test_capacity_text_import),
        cmocka_unit_test(test_capacity_json_decode),
        cmocka_unit_test(test_closed_table_explanations_are_public),
        cmocka_unit_test(test_closed_table_explanation_wording),
        cmocka_unit_test(test_readers),
        cmocka_unit_test(test_conceal),
        cmocka_unit_test(test_conceal_closed),
        cmocka_unit_test(test_decode_counts_the_cards),
        cmocka_unit_test(test_invariants_count_the_cards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
