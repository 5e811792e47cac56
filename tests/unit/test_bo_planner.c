/* test_bo_planner.c: the Comp10001-Bo "planner" strategy (the whole-turn
 * planner of engine/comp10001bo/bo_bots.c), on hand-built positions.
 *
 * Each position is a bo_obs (what seat 0 sees), the same input the game and
 * the hint route give the strategy. The planner is played out play by play
 * (bo_obs_do, one play fewer left each time) until its turn ends, so the
 * tests check whole-turn plans, not single moves:
 *   - a stockpile card reachable only through a three-play sequence of hand
 *     cards is played within the turn;
 *   - of two equal places for its stockpile card, it takes the one that
 *     does not open a pile to the next player's stockpile top;
 *   - a documented position where "planner" and "standard" differ: the
 *     turn-ending discard that would feed the next player's stockpile top.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comp10001bo/bo.h"

static int card(const char *s)
{
    int c = bo_card_parse(s, 1);
    assert_true(c != 0);
    return c;
}

/* An empty standard table seen by seat 0: full stockpiles, a full draw
 * pile, five plays left. */
static void table(bo_obs *o)
{
    memset(o, 0, sizeof *o);
    o->seat = 0;
    o->variant = 0;
    o->embargo_known = 0;
    for (int p = 0; p < BO_NP; p++) {
        o->embargoed_by[p] = -1;
        o->nstock[p] = BO_STOCK;
    }
    o->ndraw = 60;
    o->plays_left = BO_PLAYS;
}

static void hand(bo_obs *o, const char *const *cards, int n)
{
    o->nhand = n;
    for (int i = 0; i < n; i++)
        o->hand[i] = (uint8_t)card(cards[i]);
}

static void build(bo_obs *o, int pile, const char *const *cards, int n)
{
    o->b.nbuild[pile] = (uint8_t)n;
    for (int i = 0; i < n; i++)
        o->b.build[pile][i] = (uint8_t)card(cards[i]);
}

static void stock_tops(bo_obs *o, const char *a, const char *b, const char *c, const char *d)
{
    const char *t[BO_NP] = {a, b, c, d};
    for (int p = 0; p < BO_NP; p++)
        o->stock_top[p] = (uint8_t)card(t[p]);
}

/* Plays the planner's turn out on o (at most the plays left); out[] gets
 * the plays, the return value their count. Every play must be valid; the
 * turn stops at a turn-ending play or once a stockpile card is played
 * (the next stockpile card is unknown here). */
static int play_turn(bo_obs *o, int standard, bo_play *out, int max, int *stock_played)
{
    int n = 0;
    *stock_played = 0;
    char why[320];
    while (n < max && o->plays_left > 0) {
        bo_play p;
        if (standard)
            bo_plan_n(o, 1000, &p, why, sizeof why);
        else
            bo_plan(o, &p, why, sizeof why);
        int v = bo_judge(o, &p, NULL, 0, NULL);
        if (v == 0)
            fail_msg("invalid play chosen: %s", why);
        assert_true(strlen(why) > 0);
        out[n++] = p;
        int done;
        bo_obs_do(o, &p, &done);
        o->plays_left--;
        if (p.type == BO_FROM_STOCK) {
            *stock_played = 1;
            break;
        }
        if (v != 1)
            break;
    }
    return n;
}

/* Stockpile 6H; build pile 0 is 2D 3D; the hand holds 4H and 5D, the only
 * way to reach the 6H (three plays: 4H, 5D, then the stockpile card). */
static void test_three_play_sequence_to_the_stockpile(void **unused)
{
    (void)unused;
    bo_obs o;
    table(&o);
    static const char *const h[] = {"9C", "4H", "JS", "5D", "QC"};
    static const char *const b0[] = {"2D", "3D"};
    hand(&o, h, 5);
    build(&o, 0, b0, 2);
    stock_tops(&o, "6H", "8C", "9S", "JC");
    bo_play plays[BO_PLAYS];
    int stock;
    int n = play_turn(&o, 0, plays, BO_PLAYS, &stock);
    assert_true(stock);
    assert_int_equal(n, 3);
    assert_int_equal(plays[0].type, BO_FROM_HAND);
    assert_int_equal(plays[0].card, card("4H"));
    assert_int_equal(plays[1].card, card("5D"));
    assert_int_equal(plays[2].type, BO_FROM_STOCK);
    assert_int_equal(plays[2].dst_kind, BO_TO_BUILD);
    assert_int_equal(plays[2].dst_pile, 0);
    assert_int_equal(o.nstock[0], BO_STOCK - 1);
}

/* The stockpile card 6H may go on build pile 0 (2D..5D) or on our discard
 * pile 0,0 (7S): the same progress either way. The next player (1) shows
 * 5S. On the discard pile, 6H would open that pile to 5S (other colour,
 * adjacent); on the build pile it leaves 5S nowhere to go. The hand holds
 * only black cards that fit nowhere, so the stockpile play is the only
 * progress. */
static void test_does_not_open_the_next_players_pile(void **unused)
{
    (void)unused;
    bo_obs o;
    table(&o);
    static const char *const h[] = {"9C", "JS", "0C", "9S", "QS"};
    static const char *const b0[] = {"2D", "3D", "4D", "5D"};
    hand(&o, h, 5);
    build(&o, 0, b0, 4);
    o.b.ndisc[0][0] = 1;
    o.b.disc[0][0][0] = (uint8_t)card("7S");
    stock_tops(&o, "6H", "5S", "QD", "JD");
    /* both destinations are legal */
    assert_true(bo_match_build(card("6H"), o.b.build[0], 4));
    assert_int_equal(bo_match_discard(card("6H"), o.b.disc[0][0], 1, 0, 0, 0), 1);
    bo_play plays[BO_PLAYS];
    int stock;
    int n = play_turn(&o, 0, plays, BO_PLAYS, &stock);
    assert_true(stock);
    assert_int_equal(plays[n - 1].type, BO_FROM_STOCK);
    assert_int_equal(plays[n - 1].dst_kind, BO_TO_BUILD);
    assert_int_equal(plays[n - 1].dst_pile, 0);
    /* the table it leaves: nowhere for 5S */
    for (int b = 0; b < BO_NBUILD; b++)
        assert_false(bo_match_build(card("5S"), o.b.build[b], o.b.nbuild[b]));
    for (int ow = 0; ow < BO_NP; ow++)
        for (int k = 0; k < BO_NDISC; k++)
            if (o.b.ndisc[ow][k])
                assert_int_not_equal(bo_match_discard(card("5S"), o.b.disc[ow][k], o.b.ndisc[ow][k], 1, ow, 0), 1);
}

/* A documented difference. The hand is 6H 6C, every pile is empty, so the
 * only plays are turn-ending discards onto one's own empty discard piles.
 * The next player shows 5S: a 6H on a discard pile takes it (other colour,
 * adjacent). "standard" weighs the colour backwards and discards 6H;
 * "planner" discards 6C, which no stockpile top shown can follow. */
static void test_planner_and_standard_differ_on_the_last_discard(void **unused)
{
    (void)unused;
    bo_obs o;
    table(&o);
    static const char *const h[] = {"6H", "6C"};
    hand(&o, h, 2);
    stock_tops(&o, "QD", "5S", "JS", "9S");
    char why[320];
    bo_play p, q;
    bo_plan(&o, &p, why, sizeof why);
    assert_int_equal(bo_judge(&o, &p, NULL, 0, NULL), 2);
    assert_int_equal(p.type, BO_FROM_HAND);
    assert_int_equal(p.card, card("6C"));
    assert_int_equal(p.dst_kind, BO_TO_DISCARD);
    assert_int_equal(p.dst_owner, 0);
    assert_non_null(strstr(why, "6C"));
    bo_plan_n(&o, 1000, &q, why, sizeof why);
    assert_int_equal(bo_judge(&o, &q, NULL, 0, NULL), 2);
    assert_int_equal(q.card, card("6H"));
}

/* The explanation names only what seat 0 may see: its own cards and the
 * tops of the piles, never another player's hand (here: the game's own
 * deal, observed by the seat to move, every decision of a whole game). */
static void test_explanations_name_only_visible_cards(void **unused)
{
    (void)unused;
    static bo_state st;
    for (int variant = 0; variant < 2; variant++) {
        bo_deal_variant(&st, 77 + (uint64_t)variant, variant);
        for (int guard = 0; guard < 1500 && st.result == BO_PLAYING; guard++) {
            bo_obs o;
            bo_play p;
            char why[320];
            bo_observe(&st, st.cur, &o);
            bo_plan(&o, &p, why, sizeof why);
            int v = bo_judge(&o, &p, NULL, 0, NULL);
            assert_true(v >= 1);
            for (int s = 0; s < BO_NP; s++) {
                if (s == st.cur)
                    continue;
                for (int i = 0; i < st.nhand[s]; i++) {
                    int c = st.hand[s][i];
                    int seen = 0; /* the same card may be visible elsewhere */
                    for (int j = 0; j < o.nhand; j++)
                        seen |= o.hand[j] == c;
                    for (int q = 0; q < BO_NP; q++)
                        seen |= o.stock_top[q] == c;
                    for (int b = 0; b < BO_NBUILD; b++)
                        for (int k = 0; k < o.b.nbuild[b]; k++)
                            seen |= o.b.build[b][k] == c;
                    for (int ow = 0; ow < BO_NP; ow++)
                        for (int d = 0; d < BO_NDISC; d++)
                            for (int k = 0; k < o.b.ndisc[ow][d]; k++)
                                seen |= o.b.disc[ow][d][k] == c;
                    if (!seen && !bo_joker(c))
                        assert_null(strstr(why, bo_card_name(c)));
                }
            }
            bo_effect fx;
            bo_do(&st, &p, v, &fx);
        }
        assert_int_not_equal(st.result, BO_PLAYING);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_play_sequence_to_the_stockpile),
        cmocka_unit_test(test_does_not_open_the_next_players_pile),
        cmocka_unit_test(test_planner_and_standard_differ_on_the_last_discard),
        cmocka_unit_test(test_explanations_name_only_visible_cards),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
