/* test_fc_strategy.c: the Five Crowns "strategy" bot's concrete choices
 * (engine/fivecrowns/fc_bots.c).
 *
 * Positions are built by hand as in test_fivecrowns.c: blank() puts all 116
 * cards in the draw pile and the helpers move named cards to hands, the
 * discard pile or the draw pile's top, so every card still appears exactly
 * twice; the plays before the bot's turn go through the game's own apply(),
 * so the history the bot reads is the one a real game records.
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

static int C(const char *s)
{
    int c = fc_card_parse(s);
    if (!c)
        fail_msg("bad card %s", s);
    return c;
}

/* All 116 cards in the draw pile, no hands, round r, seat `cur` to draw. */
static void blank(fc_state *st, int np, int round, int cur)
{
    fc_new_game(st, np, 7, 1, -1);
    for (int i = 0; i < FC_DECK; i++)
        st->draw[i] = (uint8_t)(i % FC_NTYPES + 1);
    st->ndraw = FC_DECK;
    st->ndisc = 0;
    memset(st->nhand, 0, sizeof st->nhand);
    st->round = (uint8_t)round;
    st->cur = (uint8_t)cur;
    st->starter = (uint8_t)cur;
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

static void give(fc_state *st, int p, const char *cards)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", cards);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        st->hand[p][st->nhand[p]++] = take(st, C(t));
}

static void disc_push(fc_state *st, const char *card) { st->disc[st->ndisc++] = take(st, C(card)); }
static void draw_top(fc_state *st, const char *card) { uint8_t c = take(st, C(card)); st->draw[st->ndraw++] = c; }

static void apply_ok(fc_state *st, int seat, const char *play)
{
    json_error_t jerr;
    json_t *p = json_loads(play, 0, &jerr);
    game_err e;
    memset(&e, 0, sizeof e);
    if (!p)
        fail_msg("bad play %s", play);
    int rc = game_apply(OPS, st, seat, p, NULL, &e);
    json_decref(p);
    if (rc)
        fail_msg("apply %s: %d %s (%s)", play, rc, e.detail, e.rule);
}

static fc_advice *advise(const fc_state *st, int seat)
{
    static fc_advice adv; /* tests only: too big for a small stack */
    fc_obs o;
    fc_observe(st, seat, &o);
    fc_strategy(&o, 0, &adv);
    return &adv;
}

/* Round 2 (4s wild). Seat 1 gets a card (the queen of clubs) either from the
 * discard pile (everybody sees it) or blind from the draw pile (nobody but
 * seat 1 does), then discards the 9 of spades; seat 0 draws the queen of
 * diamonds blind and holds 5H 6H 7H JS QD: the jack and the queen fit
 * nothing and weigh nearly the same. */
static void queen_position(fc_state *st, int picked_up)
{
    blank(st, 2, 2, 1);
    give(st, 0, "5H 6H 7H JS");
    give(st, 1, "9S 8D 3T KT");
    disc_push(st, "XS");
    if (picked_up)
        disc_push(st, "QC");
    else
        draw_top(st, "QC");
    apply_ok(st, 1, picked_up ? "{\"draw\":\"discard\"}" : "{\"draw\":\"draw\"}");
    apply_ok(st, 1, "{\"discard\":\"9S\"}");
    draw_top(st, "QD");
    apply_ok(st, 0, "{\"draw\":\"draw\"}");
    assert_int_equal(st->cur, 0);
    assert_int_equal(st->phase, FC_PH_DISCARD);
}

/* The observation holds the public record of the round: pick-ups from the
 * discard pile and discards, never a card drawn blind. */
static void test_observe_pickups(void **u)
{
    (void)u;
    fc_state *st = calloc(1, sizeof *st);
    fc_obs o;
    queen_position(st, 1);
    fc_observe(st, 0, &o);
    assert_int_equal(o.took[1][C("QC")], 1);
    assert_int_equal(o.dropped[1][C("9S")], 1);
    assert_int_equal(o.took[0][C("QD")], 0); /* drawn blind */
    assert_int_equal(o.round_turns, 1);
    queen_position(st, 0);
    fc_observe(st, 0, &o);
    for (int c = 1; c <= FC_NTYPES; c++)
        assert_int_equal(o.took[1][c], 0); /* seat 1's blind draw stays hidden */
    assert_int_equal(o.dropped[1][C("9S")], 1);
    /* a new round forgets the last one's record */
    st->round = 3;
    fc_observe(st, 0, &o);
    assert_int_equal(o.dropped[1][C("9S")], 0);
    free(st);
}

/* Without the pick-up it drops the queen (the higher of two useless cards);
 * when the next player took a queen from the discard pile it keeps the
 * queen from them and drops the jack instead. */
static void test_does_not_feed_picked_rank(void **u)
{
    (void)u;
    fc_state *st = calloc(1, sizeof *st);
    queen_position(st, 0);
    fc_advice *a = advise(st, 0);
    assert_int_equal(a->play.kind, FC_PLAY_DISCARD);
    assert_int_equal(a->play.card, C("QD"));
    queen_position(st, 1);
    a = advise(st, 0);
    assert_int_equal(a->play.kind, FC_PLAY_DISCARD);
    assert_int_equal(a->play.card, C("JS"));
    /* greedy, the baseline, does not look: the queen both times */
    fc_obs o;
    fc_play p;
    char why[300];
    fc_observe(st, 0, &o);
    fc_greedy(&o, &p, why, sizeof why);
    assert_int_equal(p.card, C("QD"));
    free(st);
}

/* It never throws a wild card to the other player while a natural card can
 * go, even when the wild is the card the hand uses least. (The joker and
 * the 5 of clubs make a book with the king or with the 9 of hearts, 11
 * points left either way: it gives away the 9, which the other player is
 * likelier to take instead of drawing blind.) */
static void test_keeps_wilds(void **u)
{
    (void)u;
    fc_state *st = calloc(1, sizeof *st);
    blank(st, 2, 3, 0); /* 5s wild */
    give(st, 0, "3S 8D KT 5C 9H");
    give(st, 1, "3T 4T 6D 7D XC");
    disc_push(st, "QH");
    draw_top(st, "J1");
    apply_ok(st, 0, "{\"draw\":\"draw\"}");
    fc_advice *a = advise(st, 0);
    assert_int_equal(a->play.kind, FC_PLAY_DISCARD);
    assert_false(fc_is_wild(a->play.card, 5));
    assert_int_equal(a->play.card, C("9H"));
    free(st);
}

/* With a pair of kings and a loose 3 it keeps the kings (one more king or
 * any wild makes a book and goes out) and drops the 3, a low card the other
 * player often takes instead of drawing blind where the wild cards are;
 * greedy drops a king (fewer points now). The learnt count scores the three
 * nearly alike: the one-draw look-ahead decides, so both kings must not
 * take its two places. */
static void test_gives_low_card(void **u)
{
    (void)u;
    fc_state *st = calloc(1, sizeof *st);
    blank(st, 2, 3, 0); /* 5s wild */
    give(st, 0, "6H 7H 8H KS KD");
    give(st, 1, "3T 4T 6D 9D XC");
    disc_push(st, "QH");
    draw_top(st, "3C");
    apply_ok(st, 0, "{\"draw\":\"draw\"}");
    fc_advice *a = advise(st, 0);
    assert_int_equal(a->play.kind, FC_PLAY_DISCARD);
    assert_int_equal(a->play.card, C("3C"));
    fc_obs o;
    fc_play p;
    char why[300];
    fc_observe(st, 0, &o);
    fc_greedy(&o, &p, why, sizeof why);
    assert_int_equal(fc_rank(p.card), 13);
    free(st);
}

/* The last turn (the other player went out): it takes the discard top when
 * that leaves fewer points than the average blind draw would, and draws
 * blind when the top barely helps. */
static void test_last_turn_draw(void **u)
{
    (void)u;
    fc_state *st = calloc(1, sizeof *st);
    /* seat 1 goes out with 8D 9D XD (after drawing and discarding KC) */
    blank(st, 2, 1, 1); /* 3s wild */
    give(st, 0, "5H 6H QS");
    give(st, 1, "8D 9D XD");
    disc_push(st, "7H");
    draw_top(st, "KC");
    apply_ok(st, 1, "{\"draw\":\"draw\"}");
    apply_ok(st, 1, "{\"discard\":\"KC\",\"go_out\":true}");
    assert_int_equal(st->went_out, 1);
    /* top KC: it would only replace the queen, and a blind draw may be a wild: it draws blind */
    fc_advice *a = advise(st, 0);
    assert_int_equal(a->play.kind, FC_PLAY_DRAW_PILE);
    /* top 7H (the second one; KC back in the draw pile): 5H 6H 7H and the
     * queen goes, 0 points: it takes it */
    st->disc[st->ndisc - 1] = take(st, C("7H"));
    st->draw[st->ndraw++] = (uint8_t)C("KC");
    a = advise(st, 0);
    assert_int_equal(a->play.kind, FC_PLAY_DRAW_DISCARD);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_observe_pickups),
        cmocka_unit_test(test_does_not_feed_picked_rank),
        cmocka_unit_test(test_keeps_wilds),
        cmocka_unit_test(test_gives_low_card),
        cmocka_unit_test(test_last_turn_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
