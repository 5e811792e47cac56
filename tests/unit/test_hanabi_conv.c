/* test_hanabi_conv.c: unit tests of the `conventions` Hanabi strategy
 * (engine/hanabi/hn_conv.c).
 *
 * - It never depends on what the masked state hides: over many positions of
 *   seeded games (2-5 players, standard and rainbow, both end rules) the
 *   play chosen from the masked state, from the full state and from a state
 *   whose hidden cards (the seat's own hand, the undrawn deck) were
 *   exchanged is the same, explanation included; and every play is legal.
 * - It reads clues by the conventions whoever gave them: positions rigged
 *   (rig(): the hands dealt from a deck whose first cards are given), the
 *   clue applied by hn_do() as a person's, then the receiver's choice.
 * - Its explanations name no card and count cards 1..n; its sure plays and
 *   play clues are never wrong; it scores as a convention bot should.
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

#include "hanabi_rig.h"


/* The bot's choice for the seat to move, from the masked state. */
static void choose(const hn_state *st, hn_play *p, char *why, size_t whylen)
{
    static hn_state m;
    hn_mask(st, st->cur, &m);
    hn_conv_bot(&m, st->cur, p, why, whylen);
    assert_true(hn_judge(st, p, NULL, 0, NULL));
}

/* A person's play, applied as the server would after judging it. */
static void person(hn_state *st, int type, int target, int value)
{
    hn_play p = {type, target, value};
    assert_true(hn_judge(st, &p, NULL, 0, NULL));
    hn_do(st, &p);
}

static void expect(const hn_play *p, int type, int target, int value)
{
    if (p->type != type || p->target != target || (type <= HN_HINT_NUMBER && p->value != value))
        fail_msg("play {%d,%d,%d}, expected {%d,%d,%d}", p->type, p->target, p->value, type, target, value);
}

/* --- hidden information ------------------------------------------------------ */

/* The full state with the seat's own cards and the undrawn deck exchanged
 * (both hidden from the seat): a position it cannot tell from the real one. */
static void exchange_hidden(const hn_state *st, int seat, hn_state *alt)
{
    *alt = *st;
    int k = alt->next;
    for (int i = 0; i < alt->nhand[seat]; i++) {
        if (k >= alt->ndeck)
            break;
        uint8_t c = alt->hand[seat][i];
        alt->hand[seat][i] = alt->deck[k];
        alt->deck[alt->order[seat][i]] = alt->deck[k];
        alt->deck[k++] = c;
    }
    for (int i = alt->ndeck - 1; i > k; i--) { /* and reverse the rest of the deck */
        int j = k + (alt->ndeck - 1 - i);
        if (j >= i)
            break;
        uint8_t c = alt->deck[i];
        alt->deck[i] = alt->deck[j];
        alt->deck[j] = c;
    }
}

static void test_masked_full_and_exchanged_agree(void **unused)
{
    (void)unused;
    static hn_state st, m, alt;
    long positions = 0;
    for (int np = 2; np <= 5; np++)
        for (int variant = 0; variant <= 1; variant++)
            for (int g = 0; g < 6; g++) {
                int endrule = g % 2 ? HN_RULE_STANDARD : HN_RULE_SEED;
                hn_deal(&st, variant, np, endrule, 7000 + (uint64_t)(np * 100 + variant * 10 + g));
                while (!st.over) {
                    hn_play a, b, c;
                    char wa[320], wb[320], wc[320];
                    int s = st.cur;
                    hn_mask(&st, s, &m);
                    hn_conv_bot(&m, s, &a, wa, sizeof wa);
                    hn_conv_bot(&st, s, &b, wb, sizeof wb); /* the full state as `masked` */
                    exchange_hidden(&st, s, &alt);
                    hn_conv_bot(&alt, s, &c, wc, sizeof wc);
                    if (memcmp(&a, &b, sizeof a) || memcmp(&a, &c, sizeof a) || strcmp(wa, wb) ||
                        strcmp(wa, wc))
                        fail_msg("np %d variant %d game %d turn %d: masked {%d,%d,%d} %s / full {%d,%d,%d} "
                                 "%s / exchanged {%d,%d,%d} %s", np, variant, g, st.nhist, a.type, a.target,
                                 a.value, wa, b.type, b.target, b.value, wb, c.type, c.target, c.value, wc);
                    char reason[200];
                    if (!hn_judge(&st, &a, reason, sizeof reason, NULL))
                        fail_msg("illegal play {%d,%d,%d}: %s", a.type, a.target, a.value, reason);
                    hn_do(&st, &a);
                    positions++;
                }
            }
    assert_true(positions > 2500);
}

/* Seats that play at random (a careless person: clues the conventions
 * misread, plays of unknown cards) next to the bot: it still chooses a legal
 * play, the same from the masked and the full state. */
static void test_mixed_tables_with_random_seats(void **unused)
{
    (void)unused;
    static hn_state st, m;
    long positions = 0;
    for (int g = 0; g < 40; g++) {
        int np = 2 + g % 4;
        hn_deal(&st, g / 4 % 2, np, g % 2 ? HN_RULE_STANDARD : HN_RULE_SEED, 3300 + (uint64_t)g);
        rng careless;
        rng_seed(&careless, 3300 + (uint64_t)g, 2);
        while (!st.over) {
            hn_play a, b;
            char wa[320], wb[320];
            int s = st.cur;
            if ((s + g) % 3 == 0) { /* a random seat */
                hn_obs o;
                hn_observe(&st, s, &o);
                hn_random_bot(&o, &careless, &a, wa, sizeof wa);
            } else {
                hn_mask(&st, s, &m);
                hn_conv_bot(&m, s, &a, wa, sizeof wa);
                hn_conv_bot(&st, s, &b, wb, sizeof wb);
                assert_memory_equal(&a, &b, sizeof a);
                assert_string_equal(wa, wb);
                positions++;
            }
            assert_true(hn_judge(&st, &a, NULL, 0, NULL));
            hn_do(&st, &a);
        }
    }
    assert_true(positions > 500);
}

/* --- explanations and soundness -------------------------------------------- */

static void test_explanations_and_sure_plays(void **unused)
{
    (void)unused;
    static hn_state st;
    static const char *const PATTERNS[] = {
        "^plays card [1-5]: (a play clue asked for it|the clues prove it fits a pile|the clues and the cards "
        "it sees prove it fits a pile|a discard finesse: the discarded card was this one)$",
        "^plays card [1-5]: the deck is (empty|nearly out) and nothing is sure, so it takes a risk$",
        "^clues player [1-5]'s CLUE \\(cards? LIST\\): "
        "(a save clue on their chop, card [1-5]: keep it, it is the last copy of a card we still need|"
        "a play clue: card [1-5], the newest it touches that could be playable now, is playable now|"
        "now they know cards? LIST (is|are) playable|information only, none of the touched cards can be "
        "playable now)(; all 8 clue tokens are in, so no discard is allowed)?$",
        "^discards card [1-5], which everybody knows is playable: a discard finesse: player [1-5]'s "
        "newest card is that same card, so they should play it$",
        "^discards card [1-5]: the clues (and the cards it sees )?prove it can no longer be played$",
        "^discards its chop, card [1-5]: no play and no useful clue, and a discard gains a clue token$",
        "^discards card [1-5]: every card it holds is one to keep, and this one is needed last$",
    };
    enum { NPAT = sizeof PATTERNS / sizeof PATTERNS[0] };
    regex_t re[NPAT], name;
    for (int k = 0; k < NPAT; k++) {
        char pat[800], *at;
        snprintf(pat, sizeof pat, "%s", PATTERNS[k]);
        while ((at = strstr(pat, "CLUE")) || (at = strstr(pat, "LIST"))) {
            char tail[800];
            int clue = at[0] == 'C';
            snprintf(tail, sizeof tail, "%s", at + 4);
            snprintf(at, sizeof pat - (size_t)(at - pat), "%s%s",
                     clue ? "((red|yellow|blue|green|white)( \\(rainbow too\\))?|[1-5]s)" : "[1-5](, [1-5])*",
                     tail);
        }
        if (regcomp(&re[k], pat, REG_EXTENDED | REG_NOSUB))
            fail_msg("bad pattern %s", pat);
    }
    /* help mode's line: the same play, said to the player */
    regex_t hint;
    assert_int_equal(regcomp(&hint, "^(Play your card [1-5]|Discard your (chop, )?card [1-5]|Clue player "
                                    "[1-5]'s [a-z1-5 ()]+ \\(cards? [1-5, ]+\\))[:,] ",
                             REG_EXTENDED | REG_NOSUB), 0);
    regex_t mine;
    assert_int_equal(regcomp(&mine, "(^|[^A-Za-z])(I|my|me|mine|it holds|it sees)([^A-Za-z]|$)", REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regcomp(&name, "[RYBGWM][1-5]|(red|yellow|blue|green|white|rainbow) [1-5]",
                             REG_EXTENDED | REG_NOSUB), 0);
    long used[NPAT] = {0}, n = 0;
    for (int g = 0; g < 64; g++) {
        int np = 2 + g % 4, variant = g / 4 % 2;
        hn_deal(&st, variant, np, g / 8 % 2 ? HN_RULE_STANDARD : HN_RULE_SEED, 9100 + (uint64_t)g);
        while (!st.over) {
            hn_play p;
            char why[320];
            int s = st.cur;
            choose(&st, &p, why, sizeof why);
            int k = 0;
            while (k < NPAT && regexec(&re[k], why, 0, NULL, 0) != 0)
                k++;
            if (k == NPAT)
                fail_msg("not an explanation of ours: %s", why);
            if (regexec(&name, why, 0, NULL, 0) == 0)
                fail_msg("an explanation names a card: %s", why);
            used[k]++;
            n++;
            {
                static hn_state m;
                hn_play q;
                char said[320];
                hn_mask(&st, s, &m);
                hn_conv_hint(&m, s, &q, said, sizeof said);
                assert_memory_equal(&q, &p, sizeof q);
                if (regexec(&hint, said, 0, NULL, 0) != 0 || regexec(&mine, said, 0, NULL, 0) == 0)
                    fail_msg("a hint not said to the player: %s", said);
            }
            /* it describes the play it made, cards counted from 1 */
            char head[80];
            if (p.type == HN_PLAY || p.type == HN_DISCARD) {
                snprintf(head, sizeof head, "card %d", p.target + 1);
                assert_non_null(strstr(why, head));
            } else {
                snprintf(head, sizeof head, "clues player %d's ", p.target + 1); /* counted from 1 */
                assert_non_null(strstr(why, head));
            }
            if (p.type == HN_PLAY) { /* only a risk can fail */
                int c = st.hand[s][p.target];
                if (st.fire[hn_suit(c)] != hn_rank(c) - 1 && !strstr(why, "takes a risk"))
                    fail_msg("game %d turn %d: a sure play failed: %s", g, st.nhist, why);
            }
            const char *pc = strstr(why, "a play clue: card ");
            if (pc) { /* the card a play clue asks for is playable */
                int i = atoi(pc + strlen("a play clue: card ")) - 1;
                int c = st.hand[p.target][i];
                assert_true(hn_touch(&st, p.target, p.type, p.value) >> i & 1);
                assert_int_equal(st.fire[hn_suit(c)], hn_rank(c) - 1);
            }
            const char *sv = strstr(why, "a save clue on their chop, card ");
            if (sv) { /* a save touches a last copy, with a number clue, of the next player */
                int i = atoi(sv + strlen("a save clue on their chop, card ")) - 1;
                int c = st.hand[p.target][i], gone = 0;
                assert_int_equal(p.type, HN_HINT_NUMBER);
                assert_int_equal(p.target, (s + 1) % st.np);
                for (int j = 0; j < st.ndisc; j++)
                    gone += st.disc[j] == c;
                assert_int_equal(gone, hn_copies(hn_rank(c)) - 1);
            }
            hn_do(&st, &p);
        }
    }
    assert_true(n > 3000);
    for (int k = 0; k < NPAT; k++) {
        if (used[k] == 0 && k != 6) /* all but the rare every-card-a-keeper discard show up */
            fail_msg("no explanation matched %s", PATTERNS[k]);
        regfree(&re[k]);
    }
    regfree(&name);
    regfree(&hint);
    regfree(&mine);
}

/* --- clues read by the conventions ----------------------------------------- */

/* Player 1's oldest card (their chop) is a 5; nobody holds a playable card. */
#define SAVE_DEAL "Y4 B2 W4 R3 G3  G5 Y3 B4 W2 R4  Y2 B3 W3 R2 G2"

static void test_five_on_chop_is_saved(void **unused)
{
    (void)unused;
    static hn_state st;
    hn_play p;
    char why[320];
    rig(&st, 0, 3, HN_RULE_STANDARD, 0, SAVE_DEAL);
    choose(&st, &p, why, sizeof why); /* player 0 saves it with a 5 clue */
    expect(&p, HN_HINT_NUMBER, 1, 5);
    assert_non_null(strstr(why, "a save clue on their chop, card 1"));
    hn_do(&st, &p);
    choose(&st, &p, why, sizeof why); /* player 1 keeps it: their chop is now card 2 */
    expect(&p, HN_DISCARD, 1, 0);
    assert_non_null(strstr(why, "discards its chop, card 2"));
}

static void test_a_persons_save_reads_the_same(void **unused)
{
    (void)unused;
    static hn_state by_bot, by_person;
    hn_play a, b;
    char wa[320], wb[320];
    rig(&by_bot, 0, 3, HN_RULE_STANDARD, 0, SAVE_DEAL);
    choose(&by_bot, &a, wa, sizeof wa);
    hn_do(&by_bot, &a);
    rig(&by_person, 0, 3, HN_RULE_STANDARD, 0, SAVE_DEAL);
    person(&by_person, HN_HINT_NUMBER, 1, 5);
    choose(&by_bot, &a, wa, sizeof wa);
    choose(&by_person, &b, wb, sizeof wb);
    assert_memory_equal(&a, &b, sizeof a);
    assert_string_equal(wa, wb);
}

/* A number clue on the next player's chop that cannot be a last copy is a
 * play clue, not a save. */
static void test_chop_clue_that_cannot_save_is_a_play(void **unused)
{
    (void)unused;
    static hn_state st;
    hn_play p;
    char why[320];
    rig(&st, 0, 3, HN_RULE_STANDARD, 0, "Y4 B2 W4 R3 G3  R1 Y3 B4 W2 R4  Y2 B3 W3 R2 G2");
    person(&st, HN_HINT_NUMBER, 1, 1);
    choose(&st, &p, why, sizeof why);
    expect(&p, HN_PLAY, 0, 0);
}

/* A chop save whose other copy is discarded: a 3 whose twin is gone. */
static void test_last_copy_on_chop_is_saved(void **unused)
{
    (void)unused;
    static hn_state st;
    hn_play p;
    char why[320];
    /* player 2 discards their oldest card, a Y3; player 0's next player is 1,
     * whose chop is the other Y3 */
    rig(&st, 0, 3, HN_RULE_STANDARD, 2, "Y4 B2 W4 R3 G3  Y3 G4 B4 W2 R4  Y3 B3 W3 R2 G2");
    person(&st, HN_HINT_NUMBER, 0, 4); /* player 2: tokens spent first (discards need < 8); */
    person(&st, HN_HINT_NUMBER, 2, 3); /* player 0 (a person too); number clues on cards */
    person(&st, HN_HINT_NUMBER, 0, 2); /* player 1; that cannot be playable ask for nothing */
    person(&st, HN_DISCARD, 0, 0);     /* player 2 discards Y3 */
    choose(&st, &p, why, sizeof why); /* player 0: player 1's chop is the last Y3 */
    expect(&p, HN_HINT_NUMBER, 1, 3);
    assert_non_null(strstr(why, "save clue"));
}

/* A clue on cards other than the chop asks for a play of the newest that
 * could be playable: here the newest red card, not the older one. */
static void test_clue_off_chop_is_a_play(void **unused)
{
    (void)unused;
    static hn_state st;
    hn_play p;
    char why[320];
    rig(&st, 0, 3, HN_RULE_STANDARD, 0, "Y4 B2 W4 R3 G3  Y3 R3 B4 W2 R1  Y2 B3 W3 R2 G2");
    person(&st, HN_HINT_COLOR, 1, 0); /* red: cards 2 and 5 */
    choose(&st, &p, why, sizeof why);
    expect(&p, HN_PLAY, 4, 0);
    assert_string_equal(why, "plays card 5: a play clue asked for it");
    /* the older red card is not played after it */
    hn_do(&st, &p);
    person(&st, HN_HINT_NUMBER, 0, 4); /* player 2 */
    person(&st, HN_HINT_NUMBER, 2, 3); /* player 0 */
    choose(&st, &p, why, sizeof why);
    assert_false(p.type == HN_PLAY && p.target == 1);
}

/* Rainbow: a colour clue touches rainbow cards too; the newest touched card
 * that could be playable (the rainbow 1) is the one to play. */
static void test_rainbow_play_clue(void **unused)
{
    (void)unused;
    static hn_state st;
    hn_play p;
    char why[320];
    rig(&st, 1, 3, HN_RULE_STANDARD, 0, "Y4 B2 W4 R3 G3  Y3 B4 W2 G4 M1  Y2 B3 W3 R2 G2");
    person(&st, HN_HINT_COLOR, 1, 2); /* blue: B4 and M1 */
    choose(&st, &p, why, sizeof why);
    expect(&p, HN_PLAY, 4, 0);
}

/* The bot's own clues read as it meant them: its play clue makes the
 * receiver play that card. */
static void test_bot_play_clue_is_followed(void **unused)
{
    (void)unused;
    static hn_state st;
    hn_play p;
    char why[320];
    rig(&st, 0, 2, HN_RULE_STANDARD, 0, "Y4 B2 W4 R3 G3  Y3 G4 B4 W2 R1");
    choose(&st, &p, why, sizeof why);
    assert_true(p.type == HN_HINT_COLOR || p.type == HN_HINT_NUMBER);
    assert_int_equal(p.target, 1);
    assert_true(hn_touch(&st, 1, p.type, p.value) >> 4 & 1);
    hn_do(&st, &p);
    choose(&st, &p, why, sizeof why);
    expect(&p, HN_PLAY, 4, 0);
}

/* --- strength and rules text ------------------------------------------------ */

static void test_scores(void **unused)
{
    (void)unused;
    static hn_state st;
    static const double floor_[2][6] = {{0, 0, 22.0, 22.0, 21.3, 19.8}, {0, 0, 26.0, 26.5, 25.8, 24.3}};
    for (int variant = 0; variant <= 1; variant++)
        for (int np = 2; np <= 5; np++) {
            double sum = 0;
            int games = 40;
            for (int g = 0; g < games; g++) {
                hn_deal(&st, variant, np, HN_RULE_STANDARD, 500 + (uint64_t)g);
                while (!st.over) {
                    hn_play p;
                    char why[320];
                    choose(&st, &p, why, sizeof why);
                    hn_do(&st, &p);
                }
                sum += hn_score(&st);
            }
            if (sum / games < floor_[variant][np])
                fail_msg("%s %d players: mean %.2f below %.1f", variant ? "rainbow" : "standard", np,
                         sum / games, floor_[variant][np]);
        }
}

static void test_rules_text(void **unused)
{
    (void)unused;
    json_t *r = hn_conv_rules();
    assert_true(json_is_object(r));
    assert_true(json_is_string(json_object_get(r, "summary")));
    json_t *list = json_object_get(r, "rules");
    assert_true(json_is_array(list) && json_array_size(list) >= 6);
    size_t i;
    json_t *x;
    int numbering = 0;
    json_array_foreach(list, i, x) {
        assert_true(json_is_string(x));
        numbering |= strstr(json_string_value(x), "card 1 is the oldest") != NULL;
    }
    assert_true(numbering);
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_full_and_exchanged_agree),
        cmocka_unit_test(test_mixed_tables_with_random_seats),
        cmocka_unit_test(test_explanations_and_sure_plays),
        cmocka_unit_test(test_five_on_chop_is_saved),
        cmocka_unit_test(test_a_persons_save_reads_the_same),
        cmocka_unit_test(test_chop_clue_that_cannot_save_is_a_play),
        cmocka_unit_test(test_last_copy_on_chop_is_saved),
        cmocka_unit_test(test_clue_off_chop_is_a_play),
        cmocka_unit_test(test_rainbow_play_clue),
        cmocka_unit_test(test_bot_play_clue_is_followed),
        cmocka_unit_test(test_scores),
        cmocka_unit_test(test_rules_text),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
