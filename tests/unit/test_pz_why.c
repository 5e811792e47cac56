/* test_pz_why.c: why a phase play's groups are not its phase
 * (pz_phase_why, the detail of pz_judge's "phase-type" refusal), for each
 * kind of group a phase is made of: sets of one value, the set of one
 * suit, runs, the run of one colour, accumulations and accumulations of
 * one colour; the count of groups and phase 7's order. Each message names
 * the group and speaks only of the play's own cards. Then the same
 * sentence as the game's refusal (pz_state_judge) in a dealt position.
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
#include "phazed/pz.h"

/* "2S 2H AD | 7H 7S" -> groups; returns the count of groups */
static int groups(const char *text, uint8_t c[2][PZ_PHMAX], int gn[2])
{
    int ng = 1;
    gn[0] = gn[1] = 0;
    for (const char *s = text; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        if (*s == '|') {
            ng++;
            s++;
            continue;
        }
        char name[3] = {s[0], s[1], 0};
        int card = pz_card_parse(name, 1);
        assert_true(card > 0);
        c[ng - 1][gn[ng - 1]++] = (uint8_t)card;
        s += 2;
    }
    return ng;
}

/* pz_phase_why's sentence for `text` as phase `phase`, "" when it forms it */
static const char *why_of(int phase, const char *text)
{
    static char why[320];
    uint8_t c[2][PZ_PHMAX];
    int gn[2];
    int ng = groups(text, c, gn);
    const uint8_t *g[2] = {c[0], c[1]};
    why[0] = 0;
    int r = pz_phase_why(phase, ng, g, gn, why, sizeof why);
    unsigned t = pz_phase_types(ng, g, gn);
    /* it says something exactly when the groups do not form the phase */
    assert_int_equal(r, !(t & (1u << phase)));
    if (!r)
        assert_string_equal(why, "");
    return why;
}

#define SAYS(phase, text, expected) assert_string_equal(why_of(phase, text), expected)

static void test_valid_phases_say_nothing(void **unused)
{
    (void)unused;
    SAYS(1, "2S 2S 2H | 7H 7S AD", "");
    SAYS(2, "2C 7C 7C 8C JC AS KC", "");
    SAYS(3, "KS 0D 8C 3S | 9D 9S 9S 6C AH", "");
    SAYS(4, "2S 2S 2H 2D | 7H 7S 7D AD", "");
    SAYS(5, "KH 2S 3D AC 5D 6C 7D 8H", "");
    SAYS(6, "KS 0C 8C 3S | 9C 9S 9S 6C AS", "");
    SAYS(7, "KC 2S AH 4C | 7C 7S 7D 7D", "");
}

static void test_sets_of_one_value(void **unused)
{
    (void)unused;
    SAYS(1, "2S 2H | 7H 7S 7D", "group 1 needs 3 cards (a set of 3 of one value); it has 2 cards");
    SAYS(1, "2S 2H 2D | 7H 7S 8D", "group 2 is not a set of one value: 7H and 8D differ");
    SAYS(1, "9D AH AD | KH KH 9C",
         "group 1 has 1 natural card: a set of 3 of one value needs two at least besides the wild Aces");
    SAYS(4, "2S 2S 2H 2D | 7H 7S AD", "group 2 needs 4 cards (a set of 4 of one value); it has 3 cards");
    SAYS(4, "AS 5S 5H 6D | 7H 7S 7D 7C", "group 1 is not a set of one value: 5S and 6D differ");
    SAYS(4, "2S 2S 2H 2D | AH AS AD AC",
         "group 2 has 0 natural cards: a set of 4 of one value needs two at least besides the wild Aces");
}

static void test_set_of_one_suit(void **unused)
{
    (void)unused;
    SAYS(2, "2C 7C 7C 8C JC QC", "group 1 needs 7 cards (a set of 7 of one suit); it has 6 cards");
    SAYS(2, "2C 7C 7H 8C JC QC KC", "group 1 is not a set of one suit: 2C and 7H differ");
}

static void test_runs(void **unused)
{
    (void)unused;
    SAYS(5, "2S 3D 4C 5D 7C 8D 9H 0S",
         "group 1 is not a run of 8: 5D then 7C (after 5 comes 6, or an Ace)");
    SAYS(5, "2S 3D 4C 5D AC 8D 9H 0S",
         "group 1 is not a run of 8: 5D, 1 Ace, then 8D (card 6 must be 7, or an Ace)");
    SAYS(5, "QS KD 2C 3D 4C 5D 6H 8S",
         "group 1 is not a run of 8: 6H then 8S (after 6 comes 7, or an Ace)");
    SAYS(5, "2S 3D 4C 5D 6C 7D 8H", "group 1 needs 8 cards (a run of 8); it has 7 cards");
    SAYS(5, "2S AD AC AD AC AD AH AS",
         "group 1 has 1 natural card: a run of 8 needs two at least besides the wild Aces");
    /* two groups for a one-group phase */
    SAYS(5, "2S 3D 4C 5D | 6C 7D 8H 9S", "phase 5 is one group: one run of 8; the play has 2");
}

static void test_run_of_one_colour_and_phase_7(void **unused)
{
    (void)unused;
    SAYS(7, "KC 2H 3C 4C | 7C 7S 7D 7D", "group 1 is not of one colour: KC is black, 2H is red");
    SAYS(7, "KC 3S 4C 5C | 7C 7S 7D 7D", "group 1 is not a run of 4: KC then 3S (after King comes 2, or an Ace)");
    SAYS(7, "KC 2S 3C 4C | 7C 7S 7D", "group 2 needs 4 cards (a set of 4 of one value); it has 3 cards");
    SAYS(7, "7C 7S 7D 7D | KC 2S 3C 4C",
         "phase 7 is the run of 4 of one colour first, then the set of 4: these groups are the other way round");
    SAYS(7, "KC 2S 3C 4C", "phase 7 is two groups: a run of 4 of one colour, then a set of 4 of one value; the play has 1");
}

static void test_accumulations(void **unused)
{
    (void)unused;
    SAYS(3, "KS 0D 8C 2S | 9D 9S 9S 6C AH", "group 1 totals 33, not 34: it needs an accumulation of 34");
    SAYS(3, "KS 0D 8C 3S | 9D 9S 9S 6C AH AS",
         "group 2 totals 35, not 34 (an Ace counts 1): it needs an accumulation of 34");
    SAYS(6, "KS 0C 8C 3S | 9C 9S 9H 6C AS",
         "group 2 is not of one colour: 9C is black, 9H is red (in an accumulation Aces count too)");
    SAYS(6, "KS 0C 8C 3S | 9C 9S 9S 6C AH",
         "group 2 is not of one colour: 9C is black, AH is red (in an accumulation Aces count too)");
    SAYS(6, "KS 0C 8C 3S | 9C 9S 9S 6C",
         "group 2 totals 33, not 34: it needs an accumulation of 34 of one colour");
    SAYS(3, "KS 0D 8C 3S", "phase 3 is two groups: two accumulations of 34; the play has 1");
}

static void test_joker_in_a_group(void **unused)
{
    (void)unused;
    SAYS(1, "2S 2H ZZ | 7H 7S 7D", "group 1 holds a Skip card (ZZ), which is never part of a group");
}

/* The game's refusal of a phase play carries the sentence: the seat to
 * move of a dealt game, after its pick-up, plays phase 1 (the sentence
 * comes before the check of the cards held, and names only the play's). */
static void test_game_refusal_names_the_group(void **unused)
{
    (void)unused;
    pz_state *st = calloc(1, sizeof *st);
    assert_non_null(st);
    pz_new(st, 0, 2, 20, 42);
    st->mid = 1;
    pz_play p;
    memset(&p, 0, sizeof p);
    p.type = PZ_PHASE;
    p.phase = 1;
    p.ng = 2;
    uint8_t c[2][PZ_PHMAX];
    int gn[2];
    groups("2S 3H 4D | 7H 7S 7D", c, gn);
    for (int k = 0; k < 2; k++) {
        p.gn[k] = (uint8_t)gn[k];
        memcpy(p.gc[k], c[k], PZ_PHMAX);
    }
    char why[320];
    const char *rule = NULL;
    assert_int_equal(pz_state_judge(st, &p, why, sizeof why, &rule), 0);
    assert_string_equal(rule, "phase-type");
    assert_string_equal(why, "group 1 is not a set of one value: 2S and 3H differ");
    /* without a why to fill (the walk over legal plays), the same answer */
    assert_int_equal(pz_state_judge(st, &p, NULL, 0, NULL), 0);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_phases_say_nothing),
        cmocka_unit_test(test_sets_of_one_value),
        cmocka_unit_test(test_set_of_one_suit),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_run_of_one_colour_and_phase_7),
        cmocka_unit_test(test_accumulations),
        cmocka_unit_test(test_joker_in_a_group),
        cmocka_unit_test(test_game_refusal_names_the_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
