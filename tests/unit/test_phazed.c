/* test_phazed.c: the rule examples of Phazed (engine/phazed) that are
 * scenarios, not one call: a hand, a game, a view after a draw.
 *
 * The one-call examples (group_type, phase_type, is_valid_play, score, the
 * play function) are data in tests/unit/rules/phazed.rules, run by
 * test_rules.c; the guarantees every game keeps (round trips, determinism,
 * refusals, legal vs check, bots, views) are test_games.c's. Game flow
 * tests build positions by moving cards out of the deck of a dealt state
 * (so the state still holds every card as often as the decks do).
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
#include "testkit.h"

extern const game_ops phazed_ops;
#define OPS (&phazed_ops)

/* --- helpers --------------------------------------------------------------- */

static json_t *py(const char *text) { return tk_py(text); }
static const game_fn *fn(const char *name) { return tk_fn(OPS, name); }

static int call_v(const char *name, const char *variant, const char *pyargs, json_t **res, game_err *e)
{
    return tk_call(OPS, name, variant, pyargs, res, e);
}

static char *result_text(const char *name, const char *variant, const char *pyargs)
{
    return tk_result_text(OPS, name, variant, pyargs);
}


static int C(const char *s)
{
    int c = pz_card_parse(s, 1);
    assert_true(c > 0);
    return c;
}

/* A dealt state emptied: every card in the deck, nothing on the table,
 * player `cur` to move (not yet picked up), `top` on the discard pile. */
static void blank(pz_state *st, int variant, int cur)
{
    pz_new(st, variant, 4, 20, 7);
    int n = 0;
    int ncards = variant ? PZ_NCARDS : PZ_DECK;
    for (int i = 0; i < ncards; i++)
        st->deck[n++] = (uint8_t)(i < PZ_DECK ? i % 52 + 1 : PZ_JOKER);
    st->ndeck = (uint8_t)n;
    memset(st->nhand, 0, sizeof st->nhand);
    memset(&st->t, 0, sizeof st->t);
    st->ndisc = 0;
    st->cur = (uint8_t)cur;
    st->dealer = (uint8_t)((cur + 3) % 4);
    st->mid = 0;
}

static uint8_t take(pz_state *st, const char *card)
{
    int c = C(card);
    for (int i = 0; i < st->ndeck; i++)
        if (st->deck[i] == c) {
            memmove(&st->deck[i], &st->deck[i + 1], (size_t)(st->ndeck - i - 1));
            st->ndeck--;
            return (uint8_t)c;
        }
    fail_msg("no more %s in the deck", card);
    return 0;
}

/* "2S 3H AC" into player p's hand */
static void give(pz_state *st, int p, const char *cards)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", cards);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        st->hand[p][st->nhand[p]++] = take(st, t);
}

static void discard_top(pz_state *st, const char *card) { st->disc[st->ndisc++] = take(st, card); }

/* "2S 2S 2C|AS 5S 5S" as player p's phase on the table */
static void table(pz_state *st, int p, int phase, const char *groups)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", groups);
    st->t.phase[p] = (uint8_t)phase;
    st->t.ng[p] = 0;
    char *save = NULL;
    for (char *g = strtok_r(buf, "|", &save); g; g = strtok_r(NULL, "|", &save)) {
        pz_group *G = &st->t.g[p][st->t.ng[p]++];
        G->n = 0;
        char *s2 = NULL;
        for (char *t = strtok_r(g, " ", &s2); t; t = strtok_r(NULL, " ", &s2))
            G->c[G->n++] = take(st, t);
    }
}

static int apply_text(pz_state *st, int seat, const char *pyplay, json_t **rec, game_err *e)
{
    json_t *p = py(pyplay);
    memset(e, 0, sizeof *e);
    int rc = game_apply(OPS, st, seat, p, rec, e);
    json_decref(p);
    return rc;
}

static void apply_ok(pz_state *st, int seat, const char *pyplay)
{
    game_err e;
    int rc = apply_text(st, seat, pyplay, NULL, &e);
    if (rc)
        fail_msg("apply %s: %d %s (%s)", pyplay, rc, e.detail, e.rule);
}

static void apply_illegal(pz_state *st, int seat, const char *pyplay, const char *rule)
{
    static pz_state before;
    game_err e;
    memcpy(&before, st, sizeof before);
    int rc = apply_text(st, seat, pyplay, NULL, &e);
    if (rc != ERR_ILLEGAL || (rule && strcmp(e.rule, rule) != 0))
        fail_msg("apply %s: rc %d rule %s (%s), expected ILLEGAL %s", pyplay, rc, e.rule, e.detail,
                 rule ? rule : "");
    assert_memory_equal(&before, st, sizeof before);
}

static char *dump(json_t *j)
{
    char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    return s;
}

/* The current hand's turn_history in `seat`'s view, as text (caller frees). */
static char *turn_history(const pz_state *st, int seat)
{
    json_t *v = OPS->view(st, seat);
    char *s = json_dumps(json_object_get(v, "turn_history"), JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(v);
    return s;
}

/* Play a game to its end with the given bots; returns its status. */
static void play_game(pz_state *st, const char *variant, uint64_t seed, const char *const bots[4],
                      const json_t *opts, game_status *s)
{
    game_err e;
    char why[320];
    assert_int_equal(game_init(OPS, st, variant, 4, seed, opts, &e), 0);
    for (int guard = 0; guard < 100000; guard++) {
        OPS->status(st, s);
        if (s->over)
            return;
        assert_int_equal(OPS->autoplay(st, NULL), 0);
        if (game_bot_play(OPS, st, bots[s->to_move], NULL, why, sizeof why, &e))
            fail_msg("bot %s: %s", bots[s->to_move], e.detail);
        assert_true(why[0] != 0 && strchr(why, '\n') == NULL);
    }
    fail_msg("game did not end");
}

static const char *const PLANNER1[4] = {"planner", "random", "random", "random"};

/* At the start of a hand the play function picks up: the deck or the
 * discard, either is a sound play (the other examples of the reference are
 * in tests/unit/rules/phazed.rules). */
static void test_ref_play(void **unused)
{
    (void)unused;
    char *s = result_text("", NULL, "(0, [(None, []), (None, []), (None, []), (None, [])], [], [0, 0, 0, 0], "
                                    "['2S', '3S', '4S', '5S', '6S', '7S', '8S', '9S', '0S', 'JS'], '7H')");
    assert_true(strcmp(s, "[1,null]") == 0 || strcmp(s, "[2,\"7H\"]") == 0);
    free(s);
}

/* --- the game -------------------------------------------------------------- */

static void test_deal_and_rotation(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    assert_int_equal(game_init(OPS, &st, NULL, 4, 5, NULL, &e), 0);
    for (int p = 0; p < 4; p++)
        assert_int_equal(st.nhand[p], 10);
    assert_int_equal(st.ndisc, 1);
    assert_int_equal(st.ndeck, 104 - 41);
    assert_int_equal(st.dealer, 3);
    assert_int_equal(st.cur, 0); /* left of the dealer leads */
    assert_int_equal(game_init(OPS, &st, "bonus", 4, 5, NULL, &e), 0);
    assert_int_equal(st.ndeck, 108 - 41);
    assert_int_equal(game_init(OPS, &st, NULL, 2, 5, NULL, &e), 0);
    assert_int_equal(st.ndeck, 104 - 21);
    assert_int_equal(game_init(OPS, &st, NULL, 5, 5, NULL, &e), ERR_BAD_MEMBER);
    assert_int_equal(game_init(OPS, &st, "nosuch", 4, 5, NULL, &e), ERR_BAD_MEMBER);
    json_t *o = py("{'hands': 21}");
    assert_int_equal(game_init(OPS, &st, NULL, 4, 5, o, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/options/hands");
    json_decref(o);
    o = py("{'x': 1}");
    assert_int_equal(game_init(OPS, &st, NULL, 4, 5, o, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/options/x");
    json_decref(o);
    /* the dealer rotates (hand 2: dealer 0, player 1 leads): see
     * test_hand_end_out_and_scoring */
}

static void test_hand_end_out_and_scoring(void **unused)
{
    (void)unused;
    static pz_state st;
    json_t *rec;
    game_err e;
    blank(&st, 0, 0);
    give(&st, 0, "2S");
    give(&st, 1, "3D JC AS");   /* 3 + 11 + 25 = 39 */
    give(&st, 2, "QH KS 0C");   /* 35 */
    give(&st, 3, "4D");
    table(&st, 0, 1, "2D 2H 2C|5D 5H 5C");
    st.status[0] = 1;
    discard_top(&st, "9C");
    apply_ok(&st, 0, "(2, '9C')");
    apply_illegal(&st, 0, "(4, ('9C', (0, 0, 3)))", "place-fit");
    apply_ok(&st, 0, "(4, ('2S', (0, 0, 3)))");
    assert_int_equal(apply_text(&st, 0, "(5, '9C')", &rec, &e), 0);
    assert_non_null(json_object_get(rec, "hand_over"));
    char *s = dump(rec);
    assert_non_null(strstr(s, "\"penalties\":[0,39,35,4]"));
    assert_non_null(strstr(s, "\"reason\":\"out\""));
    free(s);
    assert_int_equal(st.score[1], 39);
    assert_int_equal(st.hands_done, 1);
    /* the next hand: dealer 0, player 1 leads, table cleared, turn_history [] */
    assert_int_equal(st.dealer, 0);
    assert_int_equal(st.cur, 1);
    assert_int_equal(st.t.phase[0], 0);
    for (int p = 0; p < 4; p++)
        assert_int_equal(st.nhand[p], 10);
    s = turn_history(&st, 1);
    assert_string_equal(s, "[]");
    free(s);
    /* out by a placement (no discard needed) */
    blank(&st, 0, 0);
    give(&st, 0, "2S");
    give(&st, 1, "3D");
    give(&st, 2, "3D");
    give(&st, 3, "3H");
    table(&st, 0, 1, "2D 2H 2C|5D 5H 5C");
    st.status[0] = 1;
    discard_top(&st, "5S");
    apply_ok(&st, 0, "(2, '5S')");
    apply_ok(&st, 0, "(4, ('5S', (0, 1, 0)))");
    assert_int_equal(apply_text(&st, 0, "(4, ('2S', (0, 0, 0)))", &rec, &e), 0);
    assert_true(json_is_true(json_object_get(rec, "turn_ending")));
    assert_non_null(json_object_get(rec, "hand_over"));
    json_decref(rec);
    assert_int_equal(st.hands_done, 1);
    assert_int_equal(st.score[0], 0);
    assert_int_equal(st.score[1], 3);
}

static void test_hand_end_deck_and_turns(void **unused)
{
    (void)unused;
    static pz_state st;
    json_t *rec;
    game_err e;
    /* the deck's last card: the hand ends when its drawer discards */
    blank(&st, 0, 0);
    give(&st, 0, "2S 9H");
    give(&st, 1, "3D");
    give(&st, 2, "4D");
    give(&st, 3, "5D");
    discard_top(&st, "9C");
    while (st.ndeck > 1)
        st.disc[st.ndisc++] = st.deck[--st.ndeck]; /* the rest under the discard */
    uint8_t top = st.disc[st.ndisc - 1];
    st.disc[st.ndisc - 1] = st.disc[0];
    st.disc[0] = top;
    apply_ok(&st, 0, "(1, None)");
    assert_int_equal(st.ndeck, 0);
    assert_int_equal(st.hands_done, 0);
    assert_int_equal(apply_text(&st, 0, "(5, '2S')", &rec, &e), 0);
    char *s = dump(rec);
    assert_non_null(strstr(s, "\"reason\":\"deck-exhausted\""));
    free(s);
    assert_int_equal(st.hands_done, 1);
    /* 50 turns each */
    blank(&st, 0, 0);
    give(&st, 0, "2S 9H");
    give(&st, 1, "3D");
    give(&st, 2, "4D");
    give(&st, 3, "5D");
    discard_top(&st, "9C");
    st.turns_hand = 4 * 50 - 2;
    apply_ok(&st, 0, "(2, '9C')");
    apply_ok(&st, 0, "(5, '9C')");
    assert_int_equal(st.hands_done, 0);
    apply_ok(&st, 1, "(2, '9C')");
    assert_int_equal(apply_text(&st, 1, "(5, '9C')", &rec, &e), 0);
    s = dump(rec);
    assert_non_null(strstr(s, "\"reason\":\"turn-limit\""));
    free(s);
    assert_int_equal(st.hands_done, 1);
    assert_int_equal(st.score[0], 11);
}

static void test_game_end(void **unused)
{
    (void)unused;
    static pz_state st;
    game_status s;
    /* all phases: player 1 completes phase 7 and goes out; player 0 finished
     * earlier but has more points: player 1 wins anyway (both done, lowest) */
    blank(&st, 0, 1);
    give(&st, 0, "KD KH");
    give(&st, 1, "4H 5D AC 7H 7S 7C AH 9S");
    give(&st, 2, "2C");
    give(&st, 3, "2D");
    st.status[1] = 6;
    st.score[0] = 10;
    st.pen[0][0] = 10;
    st.hands_done = 1;
    st.end_reason[0] = PZ_END_OUT;
    discard_top(&st, "7D");
    apply_ok(&st, 1, "(2, '7D')");
    apply_ok(&st, 1, "(3, (7, [['4H', '5D', 'AC', '7H'], ['7S', '7C', 'AH', '7D']]))");
    assert_int_equal(st.status[1], 7);
    assert_int_equal(st.result, PZ_PLAYING); /* the hand goes on */
    apply_ok(&st, 1, "(5, '9S')");
    OPS->status(&st, &s);
    assert_true(s.over);
    assert_int_equal(s.winner, 1);
    assert_string_equal(s.result, "won");
    assert_true(s.lower_is_better);
    assert_int_equal(s.rounds, 2);
    game_err e;
    json_t *p = py("(1, None)");
    assert_int_equal(game_apply(OPS, &st, 2, p, NULL, &e), ERR_GAME_OVER);
    json_decref(p);
    char *t = dump(OPS->view(&st, 0));
    assert_non_null(strstr(t, "\"winners\":[1]"));
    free(t);
    /* 20 hands: lowest points; equal lowest: tied */
    blank(&st, 0, 0);
    give(&st, 0, "2S 9H");
    give(&st, 1, "3D");
    give(&st, 2, "6D");
    give(&st, 3, "5D");
    discard_top(&st, "9C");
    st.hands_done = 19;
    st.score[1] = st.pen[0][1] = 1;
    st.turns_hand = 199;
    apply_ok(&st, 0, "(2, '9C')");
    apply_ok(&st, 0, "(5, '9C')");
    OPS->status(&st, &s);
    assert_true(s.over);
    assert_int_equal(s.winner, 1); /* 1 + 3 = 4 against 11, 6, 5 */
    assert_int_equal(s.rounds, 20);
    blank(&st, 0, 0);
    give(&st, 0, "2S 9H");
    give(&st, 1, "4D");
    give(&st, 2, "4S");
    give(&st, 3, "5D");
    discard_top(&st, "9C");
    st.hands_done = 19;
    st.turns_hand = 199;
    apply_ok(&st, 0, "(2, '9C')");
    apply_ok(&st, 0, "(5, '9C')");
    OPS->status(&st, &s);
    assert_true(s.over);
    assert_int_equal(s.winner, -1);
    assert_string_equal(s.result, "tied");
    /* the option "hands" */
    json_t *o = py("{'hands': 1}");
    assert_int_equal(game_init(OPS, &st, NULL, 4, 3, o, &e), 0);
    json_decref(o);
    for (int guard = 0; guard < 5000 && st.result == PZ_PLAYING; guard++)
        assert_int_equal(game_bot_play(OPS, &st, "planner", NULL, NULL, 0, &e), 0);
    assert_int_equal(st.hands_done, 1);
    assert_true(st.result != PZ_PLAYING);
}

static void test_phase_order_in_game(void **unused)
{
    (void)unused;
    static pz_state st;
    blank(&st, 0, 0);
    give(&st, 0, "2S 2H 2C 7S 7D 9S 0S JS QH 4C");
    give(&st, 1, "3D");
    give(&st, 2, "4D");
    give(&st, 3, "5D");
    discard_top(&st, "7H");
    apply_illegal(&st, 0, "(3, (1, [['2S', '2H', '2C'], ['7S', '7D', '7H']]))", "pick-up-first");
    apply_illegal(&st, 0, "(5, '4C')", "pick-up-first");
    apply_illegal(&st, 0, "(2, '7D')", "discard-top");
    apply_ok(&st, 0, "(2, '7H')");
    apply_illegal(&st, 0, "(1, None)", "pick-up-first");
    apply_illegal(&st, 0, "(4, ('2S', (0, 0, 0)))", "place-before-phase");
    apply_illegal(&st, 0, "(3, (2, [['2S', '2H', '2C', '7S', '7D', '7H', '9S']]))", "phase-order");
    apply_illegal(&st, 0, "(3, (1, [['2S', '2H', '2D'], ['7S', '7D', '7H']]))", "not-held");
    apply_ok(&st, 0, "(3, (1, [['2S', '2H', '2C'], ['7S', '7D', '7H']]))");
    assert_int_equal(st.status[0], 1);
    apply_illegal(&st, 0, "(3, (2, [['9S', '0S', 'JS', 'QH', '4C', '2S', '2S']]))", "phase-once");
    game_err e;
    json_t *p = py("(6, 1)");
    assert_int_equal(game_apply(OPS, &st, 0, p, NULL, &e), ERR_BAD_MEMBER); /* no Skip here */
    json_decref(p);
    p = py("(5, '4C')");
    assert_int_equal(game_apply(OPS, &st, 1, p, NULL, &e), ERR_NOT_YOUR_TURN);
    json_decref(p);
}

static void test_accumulation_in_game(void **unused)
{
    (void)unused;
    static pz_state st;
    blank(&st, 0, 0);
    give(&st, 0, "KH 8D 9H 2C");
    give(&st, 1, "3D KD");
    give(&st, 2, "4D");
    give(&st, 3, "5D");
    table(&st, 0, 1, "2D 2H 2C|5D 5H 5C");
    table(&st, 1, 3, "KS 0D 8C 3S|KC 0C 8H 3H");
    st.status[0] = 1;
    st.status[1] = 3;
    discard_top(&st, "7H");
    apply_ok(&st, 0, "(2, '7H')");
    /* 34 + 9 = 43 leaves 12 to find in KH 8D 2C 7H: impossible */
    apply_illegal(&st, 0, "(4, ('9H', (1, 0, 0)))", "acc-unreachable");
    apply_ok(&st, 0, "(4, ('KH', (1, 0, 4)))");                    /* 47 */
    apply_illegal(&st, 0, "(5, '9H')", "acc-incomplete");
    apply_illegal(&st, 0, "(4, ('9H', (1, 0, 5)))", "acc-target"); /* 56 > 55 */
    apply_illegal(&st, 0, "(4, ('8D', (0, 0, 0)))", "place-fit");
    apply_ok(&st, 0, "(4, ('8D', (1, 0, 5)))");                    /* 55: the 21 is done */
    apply_illegal(&st, 0, "(4, ('9H', (1, 0, 6)))", "acc-unreachable"); /* 64: 4 more from 2C 7H */
    char *v = dump(OPS->view(&st, 0));
    assert_non_null(strstr(v, "\"accumulations\":[[null,null],[{\"complete\":true,\"next\":68,\"total\":55}"));
    free(v);
    apply_ok(&st, 0, "(5, '9H')");
    /* the sequence is shared: the next play to that group must total 13 */
    blank(&st, 0, 2);
    give(&st, 0, "3C");
    give(&st, 1, "3D");
    give(&st, 2, "KH 4C 9S");
    give(&st, 3, "5D");
    table(&st, 0, 3, "KS 0D 8C 3S KD 8D|KC 0C 8H 3H"); /* 55: someone played the 21 */
    table(&st, 2, 1, "2D 2H 2C|5D 5H 5C");
    st.status[0] = 3;
    st.status[2] = 1;
    discard_top(&st, "7H");
    apply_ok(&st, 2, "(2, '7H')");
    apply_illegal(&st, 2, "(4, ('KH', (0, 1, 0)))", "acc-unreachable"); /* 47: 8 from 4C 9S 7H */
    apply_ok(&st, 2, "(4, ('KH', (0, 0, 0)))");                         /* 68: the 13 */
    apply_illegal(&st, 2, "(4, ('9S', (0, 0, 0)))", "acc-target");     /* 77 > 76 */
    apply_ok(&st, 2, "(5, '4C')");
}

static void test_bonus_game(void **unused)
{
    (void)unused;
    static pz_state st;
    json_t *rec;
    game_err e;
    blank(&st, 1, 0);
    give(&st, 0, "ZZ ZZ 4C 5C");
    give(&st, 1, "ZZ 3D");
    give(&st, 2, "4D 6D");
    give(&st, 3, "5D 6S");
    discard_top(&st, "9C");
    apply_ok(&st, 0, "(2, '9C')");
    apply_illegal(&st, 0, "(5, 'ZZ')", "joker-discard");
    apply_illegal(&st, 0, "(6, 0)", "skip-target");
    assert_int_equal(apply_text(&st, 0, "(6, 1)", &rec, &e), 0);
    char *s = dump(rec);
    assert_non_null(strstr(s, "\"skipped\":[1]"));
    free(s);
    assert_int_equal(st.cur, 2);
    /* the Joker on the pile cannot be taken */
    apply_illegal(&st, 2, "(2, 'ZZ')", "joker-pickup");
    apply_ok(&st, 2, "(1, None)");
    apply_ok(&st, 2, "(5, '4D')");
    /* two Skips on player 1 before its turn: one skipped turn only */
    apply_ok(&st, 3, "(2, '4D')");
    apply_ok(&st, 3, "(5, '4D')");
    apply_ok(&st, 0, "(1, None)");
    apply_ok(&st, 0, "(6, 2)");
    assert_int_equal(st.cur, 1);
    apply_ok(&st, 1, "(1, None)");
    apply_ok(&st, 1, "(6, 3)");
    assert_int_equal(st.cur, 0); /* 2 and 3 skipped */
    s = turn_history(&st, 0);
    assert_non_null(strstr(s, "[2,[]],[3,[]]"));
    assert_non_null(strstr(s, "[1,[]]"));
    free(s);
    /* a Skip at a player already skipped: no effect */
    blank(&st, 1, 0);
    give(&st, 0, "ZZ 4C");
    give(&st, 1, "ZZ 3D");
    give(&st, 2, "4D 6D");
    give(&st, 3, "5D 6S");
    discard_top(&st, "9C");
    apply_ok(&st, 0, "(2, '9C')");
    apply_ok(&st, 0, "(6, 2)");
    apply_ok(&st, 1, "(1, None)");
    apply_ok(&st, 1, "(6, 2)");
    assert_int_equal(st.cur, 3);
    apply_ok(&st, 3, "(1, None)");
    apply_ok(&st, 3, "(5, '5D')");
    assert_int_equal(st.cur, 0);
    apply_ok(&st, 0, "(1, None)");
    apply_ok(&st, 0, "(5, '4C')");
    assert_int_equal(st.cur, 1);
    apply_ok(&st, 1, "(1, None)");
    apply_ok(&st, 1, "(5, '3D')");
    assert_int_equal(st.cur, 2); /* skipped once only */
    /* Jokers score 15 at the end of a hand */
    blank(&st, 1, 0);
    give(&st, 0, "2S");
    give(&st, 1, "ZZ ZZ");
    give(&st, 2, "4D");
    give(&st, 3, "5D");
    table(&st, 0, 1, "2D 2H 2C|5D 5H 5C");
    st.status[0] = 1;
    discard_top(&st, "9C");
    apply_ok(&st, 0, "(2, '9C')");
    apply_ok(&st, 0, "(4, ('2S', (0, 0, 0)))");
    apply_ok(&st, 0, "(5, '9C')");
    assert_int_equal(st.hands_done, 1);
    assert_int_equal(st.score[1], 30);
    /* declared phases in any order, each once */
    blank(&st, 1, 0);
    give(&st, 0, "2S 3D 4C 5D 6S 7C 8H 9S 0S");
    give(&st, 1, "3D");
    give(&st, 2, "4D");
    give(&st, 3, "5D");
    st.status[0] = 0x01;
    discard_top(&st, "JS");
    apply_ok(&st, 0, "(2, 'JS')");
    apply_ok(&st, 0, "(3, (5, [['2S', '3D', '4C', '5D', '6S', '7C', '8H', '9S']]))");
    assert_int_equal(st.status[0], 0x11);
    s = dump(OPS->view(&st, 1));
    assert_non_null(strstr(s, "\"phase_status\":[[true,false,false,false,true,false,false],[false"));
    assert_non_null(strstr(s, "\"skips_pending\""));
    free(s);
}

/* --- views, history, records ------------------------------------------------ */

/* The admin sees it all; a deck draw is "XX" to the others, the card to its
 * drawer (that no reader's view, history or events depend on the cards it
 * may not see is test_games.c's, for every game). */
static void test_views_hide_cards(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    assert_int_equal(game_init(OPS, &st, NULL, 4, 5, NULL, &e), 0);
    json_t *p = py("(1, None)"), *rec;
    int drawn = st.deck[st.ndeck - 1];
    assert_int_equal(game_apply(OPS, &st, 0, p, &rec, &e), 0);
    json_decref(p);
    char *s = dump(rec);
    assert_non_null(strstr(s, "\"play\":[1,\"XX\"]"));
    free(s);
    char want[32];
    snprintf(want, sizeof want, "[[0,[[1,\"%s\"]]]]", pz_card_name(drawn));
    s = turn_history(&st, 0);
    assert_string_equal(s, want);
    free(s);
    s = turn_history(&st, 1);
    assert_string_equal(s, "[[0,[[1,\"XX\"]]]]");
    free(s);
    s = turn_history(&st, SEAT_SPECTATOR);
    assert_string_equal(s, "[[0,[[1,\"XX\"]]]]");
    free(s);
    s = turn_history(&st, SEAT_OBSERVER); /* "spectators": "all" sees every hand */
    assert_string_equal(s, want);
    free(s);
    /* the whole game's plays as records, the draw hidden the same way */
    snprintf(want, sizeof want, "\"play\":[1,\"%s\"]", pz_card_name(drawn));
    s = dump(OPS->history(&st, 0));
    assert_non_null(strstr(s, want));
    assert_non_null(strstr(s, "\"n\":1"));
    free(s);
    s = dump(OPS->history(&st, 2));
    assert_null(strstr(s, want));
    assert_non_null(strstr(s, "\"play\":[1,\"XX\"]"));
    free(s);
    s = dump(OPS->view(&st, SEAT_OBSERVER));
    assert_non_null(strstr(s, "\"hands\""));
    assert_null(strstr(s, "\"deck\":"));
    free(s);
    s = dump(OPS->view(&st, SEAT_SPECTATOR));
    assert_null(strstr(s, "\"hands\""));
    assert_null(strstr(s, "\"hand\""));
    free(s);
    s = dump(OPS->view(&st, SEAT_ADMIN));
    assert_non_null(strstr(s, "\"hands\""));
    free(s);
    s = dump(OPS->view(&st, 1)); /* a seat sees its own hand only, and no deck */
    assert_null(strstr(s, "\"hands\""));
    assert_null(strstr(s, "\"deck\":"));
    free(s);
}

static void test_events_and_records(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    char why[320];
    json_t *o = py("{'hands': 2}");
    assert_int_equal(game_init(OPS, &st, NULL, 4, 11, o, &e), 0);
    json_decref(o);
    int n = 0;
    while (st.result == PZ_PLAYING) {
        json_t *rec;
        assert_int_equal(game_bot_play(OPS, &st, "planner", &rec, why, sizeof why, &e), 0);
        assert_string_equal(json_string_value(json_object_get(rec, "explanation")), why);
        assert_int_equal(json_integer_value(json_object_get(rec, "n")), ++n);
        json_decref(rec);
    }
    json_t *ev = OPS->events(&st, 1, 0);
    size_t k = json_array_size(ev);
    assert_int_equal(k, (size_t)n + 2 + 1); /* plays, two hand_over, game_over */
    assert_string_equal(json_string_value(json_object_get(json_array_get(ev, k - 1), "event")), "game_over");
    json_decref(ev);
    ev = OPS->events(&st, 1, (long)k - 1);
    assert_int_equal(json_array_size(ev), 1);
    json_decref(ev);
}

/* A record's n is the number of its own history entry, also when the play
 * made another player skip a turn (bonus Skips log the skipped turn after
 * the play): the play log and the explanations are keyed by it. */
static void test_record_n_is_history_n(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    char why[320];
    int skips = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        assert_int_equal(game_init(OPS, &st, "bonus", 3, seed, NULL, &e), 0);
        json_t *recs = json_array();
        while (st.result == PZ_PLAYING) {
            json_t *rec;
            assert_int_equal(game_bot_play(OPS, &st, "random", &rec, why, sizeof why, &e), 0);
            skips += json_object_get(rec, "skipped") != NULL;
            json_array_append_new(recs, rec);
        }
        json_t *h = OPS->history(&st, SEAT_ADMIN);
        assert_int_equal(json_array_size(h), json_array_size(recs));
        size_t i;
        json_t *rec;
        json_array_foreach(recs, i, rec) {
            json_t *x = json_array_get(h, i);
            assert_int_equal(json_integer_value(json_object_get(rec, "n")),
                             json_integer_value(json_object_get(x, "n")));
            assert_int_equal(json_integer_value(json_object_get(rec, "seat")),
                             json_integer_value(json_object_get(x, "seat")));
        }
        json_decref(h);
        json_decref(recs);
    }
    assert_true(skips > 0); /* the case was met */
}

/* --- state blob ----------------------------------------------------------- */

static void roundtrip(const pz_state *st, int views)
{
    static pz_state back;
    game_err e;
    json_t *j = OPS->encode(st);
    memset(&back, 0xA5, sizeof back);
    if (OPS->decode(&back, j, &e))
        fail_msg("decode of encode failed: %s at %s", e.detail, e.pointer);
    char *a = dump(j), *b = dump(OPS->encode(&back));
    if (strcmp(a, b) != 0)
        fail_msg("round trip differs");
    free(a);
    free(b);
    for (int seat = -2; views && seat < st->np; seat++) {
        a = dump(OPS->view(st, seat));
        b = dump(OPS->view(&back, seat));
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    if (!views)
        return;
    a = dump(OPS->legal(st, st->cur));
    b = dump(OPS->legal(&back, back.cur));
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* Whole games (no hand limit): the hand goes on after a player completes
 * their last phase, and every such state must decode (a stored game that a
 * person keeps playing is decoded at every request). */
static void test_roundtrip_whole_games(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    char why[320];
    int after_last_phase = 0, games = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        assert_int_equal(game_init(OPS, &st, seed % 2 ? "bonus" : "standard", 2 + (int)(seed % 3), seed, NULL, &e), 0);
        while (st.result == PZ_PLAYING) {
            assert_int_equal(game_bot_play(OPS, &st, "planner", NULL, why, sizeof why, &e), 0);
            int done = 0;
            for (int q = 0; q < st.np; q++)
                done |= pz_all_done(st.variant, st.status[q]);
            if (done && st.result == PZ_PLAYING)
                after_last_phase++;
            roundtrip(&st, done);
        }
        games++;
    }
    assert_int_equal(games, 12);
    assert_true(after_last_phase > 0); /* the states of the defect were met */
}

static void expect_decode_bad(json_t *good, const char *path, json_t *value, const char *pointer)
{
    static pz_state st, before;
    game_err e;
    json_t *j = json_deep_copy(good);
    /* walk the path: "/a/1/b" */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *parent = j;
    char *key = buf + 1, *slash;
    while ((slash = strchr(key, '/'))) {
        *slash = 0;
        parent = json_is_array(parent) ? json_array_get(parent, (size_t)atoi(key)) : json_object_get(parent, key);
        key = slash + 1;
    }
    if (json_is_array(parent)) {
        if (value)
            json_array_set_new(parent, (size_t)atoi(key), value);
        else
            json_array_remove(parent, (size_t)atoi(key));
    } else {
        if (value)
            json_object_set_new(parent, key, value);
        else
            json_object_del(parent, key);
    }
    memset(&st, 0x5A, sizeof st);
    memcpy(&before, &st, sizeof st);
    int rc = OPS->decode(&st, j, &e);
    size_t plen = strlen(pointer);
    int prefix = plen && pointer[plen - 1] == '*'; /* "/table/1*": any pointer below */
    if (rc != ERR_BAD_MEMBER ||
        (prefix ? strncmp(e.pointer, pointer, plen - 1) != 0 : strcmp(e.pointer, pointer) != 0))
        fail_msg("decode with %s changed: rc %d at \"%s\" (%s), expected \"%s\"", path, rc, e.pointer, e.detail,
                 pointer);
    assert_memory_equal(&st, &before, sizeof st); /* untouched */
    json_decref(j);
}

static void test_decode_hostile(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    char why[320];
    assert_int_equal(game_init(OPS, &st, NULL, 4, 8, NULL, &e), 0);
    /* until a phase is on the table */
    for (int i = 0; i < 3000 && !(st.t.phase[0] || st.t.phase[1] || st.t.phase[2] || st.t.phase[3]); i++)
        assert_int_equal(game_bot_play(OPS, &st, "planner", NULL, why, sizeof why, &e), 0);
    int p = 0;
    while (!st.t.phase[p])
        p++;
    json_t *good = OPS->encode(&st);
    char path[64], ptr[64];
    expect_decode_bad(good, "/game", json_string("hanabi"), "/game");
    expect_decode_bad(good, "/variant", json_string("nosuch"), "/variant");
    expect_decode_bad(good, "/variant", json_string("bonus"), "/phase_status/0"); /* booleans there */
    expect_decode_bad(good, "/variant", NULL, "/variant");
    expect_decode_bad(good, "/players", json_integer(5), "/players");
    expect_decode_bad(good, "/players", json_integer(1), "/players");
    expect_decode_bad(good, "/max_hands", json_integer(0), "/max_hands");
    expect_decode_bad(good, "/rng", json_string("x"), "/rng");
    expect_decode_bad(good, "/result", json_string("draw"), "/result");
    expect_decode_bad(good, "/result", json_string("won"), "/winner");
    expect_decode_bad(good, "/winner", json_integer(1), "/winner");
    expect_decode_bad(good, "/current", json_integer(4), "/current");
    expect_decode_bad(good, "/picked_up", json_integer(1), "/picked_up");
    /* every scalar member (the decoder's field table): out of its range, of
     * another type, or missing, each refused by name */
    static const struct { const char *name; long long below, above; } SCALARS[] = {
        {"players", 1, 5},         {"max_hands", 0, 21},    {"dealer", -1, 4},        {"current", -1, 4},
        {"turns_hand", -1, 201},   {"turns_total", -1, 4001}, {"hand_log", -1, 100000},
        {"picked_up", -1, -1},     {"deck_out", -1, -1},
    };
    for (size_t i = 0; i < sizeof SCALARS / sizeof SCALARS[0]; i++) {
        snprintf(path, sizeof path, "/%s", SCALARS[i].name);
        expect_decode_bad(good, path, json_integer(SCALARS[i].below), path);
        if (SCALARS[i].above >= 0)
            expect_decode_bad(good, path, json_integer(SCALARS[i].above), path);
        expect_decode_bad(good, path, json_string("1"), path);
        expect_decode_bad(good, path, NULL, path);
    }
    assert_true(st.turns_hand > 0);
    expect_decode_bad(good, "/turns_total", json_integer(st.turns_hand - 1), "/turns_total"); /* below turns_hand */
    expect_decode_bad(good, "/skip/0", json_true(), "/skip/0");
    expect_decode_bad(good, "/phase_status/0", json_integer(8), "/phase_status/0");
    expect_decode_bad(good, "/phase_status/0", json_integer(7), "/phase_status/0"); /* finished in an earlier hand */
    expect_decode_bad(good, "/scores/0", json_integer(5), "/scores/0");
    expect_decode_bad(good, "/deck/0", json_string("1S"), "/deck/0");
    expect_decode_bad(good, "/deck/0", json_string("ZZ"), "/deck/0");
    expect_decode_bad(good, "/deck", json_object(), "/deck");
    expect_decode_bad(good, "/hands", json_pack("[[],[],[]]"), "/hands");
    expect_decode_bad(good, "/hands/1", json_pack("[]"), "/hands/1");
    expect_decode_bad(good, "/table/0", json_pack("[i,[]]", 1), "/table/0/1");
    snprintf(path, sizeof path, "/table/%d/0", p);
    snprintf(ptr, sizeof ptr, "/table/%d*", p);
    expect_decode_bad(good, path, json_integer(st.t.phase[p] == 1 ? 4 : 1), ptr);
    snprintf(path, sizeof path, "/table/%d/1/0/0", p);
    snprintf(ptr, sizeof ptr, "/table/%d/1/0/0", p);
    expect_decode_bad(good, path, json_string("1X"), ptr);
    snprintf(path, sizeof path, "/table/%d/1/0", p);
    snprintf(ptr, sizeof ptr, "/table/%d/1/0", p);
    expect_decode_bad(good, path, json_pack("[s,s,s,s,s,s,s,s,s]", "2S", "3S", "5S", "KD", "9C", "QH", "4D", "7C", "8H"),
                      ptr);
    expect_decode_bad(good, "/log/0", json_integer(1), "/log/0");
    expect_decode_bad(good, "/log/0/2", json_pack("[i,n]", 1), "/log/0/2");
    expect_decode_bad(good, "/log/0/2", json_pack("[i,s]", 9, "2S"), "/log/0/2/0");
    expect_decode_bad(good, "/log/0/0", json_integer(3), "/log/0/0");
    expect_decode_bad(good, "/hand_log", json_integer(100000), "/hand_log");
    /* conservation: a deck card replaced by another */
    const char *d0 = json_string_value(json_array_get(json_object_get(good, "deck"), 0));
    expect_decode_bad(good, "/deck/0", json_string(strcmp(d0, "5H") == 0 ? "6H" : "5H"), "");
    expect_decode_bad(good, "/deck/0", NULL, "");
    json_t *junk = py("[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]");
    assert_int_equal(OPS->decode(&st, junk, &e), ERR_BAD_MEMBER);
    json_decref(junk);
    junk = py("{'game': 'phazed'}");
    assert_int_equal(OPS->decode(&st, junk, &e), ERR_BAD_MEMBER);
    assert_string_equal(e.pointer, "/variant");
    json_decref(junk);
    json_decref(good);
}

/* Every legal play checks valid and applies; every valid single play found
 * by brute force (pick-ups, discards, Skips, placements at every index) is
 * listed (sets and accumulations at their end index); an illegal play
 * changes nothing. */
/* Every valid pick-up, discard and placing of one card (tried by brute
 * force over the hand, the discard and a card nobody holds) is listed by
 * legal() in its listed form, and every invalid one is refused without a
 * change (that every listed play is valid is test_games.c's). */
static void test_legal_lists_every_single_play(void **unused)
{
    (void)unused;
    static pz_state st, copy;
    game_err e;
    char why[320];
    int checked = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        json_t *o = py("{'hands': 1}");
        assert_int_equal(game_init(OPS, &st, seed % 2 ? "bonus" : "standard", 4, seed + 100, o, &e), 0);
        json_decref(o);
        while (st.result == PZ_PLAYING) {
            int seat = st.cur;
            json_t *legal = OPS->legal(&st, seat);
            char *ltext = dump(json_deep_copy(legal));
            /* brute force over single plays */
            char buf[128];
            int cards[PZ_NCARDS], nc = 0;
            for (int i2 = 0; i2 < st.nhand[seat]; i2++)
                cards[nc++] = st.hand[seat][i2];
            cards[nc++] = st.ndisc ? st.disc[st.ndisc - 1] : 1;
            cards[nc++] = 1; /* and one card nobody holds, often */
            for (int ci = 0; ci < nc; ci++) {
                int c = cards[ci];
                const char *cn = pz_card_name(c);
                int kinds[3] = {2, 5, 4};
                for (int k = 0; k < 3; k++) {
                    int maxq = kinds[k] == 4 ? 4 : 1;
                    for (int q = 0; q < maxq; q++)
                        for (int g = 0; g < (kinds[k] == 4 ? 2 : 1); g++)
                            for (int idx = 0; idx <= (kinds[k] == 4 ? st.t.g[q][g].n + 1 : 0); idx++) {
                                if (kinds[k] == 4)
                                    snprintf(buf, sizeof buf, "[4,[\"%s\",[%d,%d,%d]]]", cn, q, g, idx);
                                else
                                    snprintf(buf, sizeof buf, "[%d,\"%s\"]", kinds[k], cn);
                                json_t *p = json_loads(buf, 0, NULL);
                                game_verdict v;
                                int rc = game_judge(OPS, &st, seat, p, NULL, &v, &e);
                                if (rc == 0 && v.valid) {
                                    /* the listed form: sets/accumulations at the end */
                                    if (kinds[k] == 4) {
                                        int kind = pz_group_kind(st.t.phase[q], g), len = st.t.g[q][g].n;
                                        if (kind != PZ_K_RUN && kind != PZ_K_CRUN)
                                            snprintf(buf, sizeof buf, "[4,[\"%s\",[%d,%d,%d]]]", cn, q, g, len);
                                    }
                                    if (!strstr(ltext, buf))
                                        fail_msg("valid play %s missing from legal %s", buf, ltext);
                                    checked++;
                                } else if (rc == 0 && idx < 3 && q < 2) {
                                    memcpy(&copy, &st, sizeof st);
                                    assert_int_not_equal(game_apply(OPS, &copy, seat, p, NULL, &e), 0);
                                    assert_memory_equal(&copy, &st, sizeof st);
                                }
                                json_decref(p);
                            }
                }
            }
            free(ltext);
            json_decref(legal);
            assert_int_equal(game_bot_play(OPS, &st, seed % 3 ? "random" : "planner", NULL, why, sizeof why, &e), 0);
        }
    }
    assert_true(checked > 300);
}

#define T4 "[(None, []), (None, []), (None, []), (None, [])]"

/* The autograder arguments of `seat` from its view. */
static json_t *fn_args(const pz_state *st, int seat)
{
    json_t *v = OPS->view(st, seat);
    json_t *a = json_pack("[i,O,O,O,O,O]", seat, json_object_get(v, "table"), json_object_get(v, "turn_history"),
                          json_object_get(v, "phase_status"), json_object_get(v, "hand"),
                          st->mid ? json_null() : json_object_get(v, "discard"));
    json_decref(v);
    return a;
}

static void test_play_fn_over_real_games(void **unused)
{
    (void)unused;
    static pz_state st;
    game_err e;
    char why[320];
    const game_fn *play = fn(""), *valid = fn("is_valid_play");
    int decisions = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        const char *variant = seed % 2 ? "standard" : "bonus";
        json_t *o = py("{'hands': 1}");
        assert_int_equal(game_init(OPS, &st, variant, 4, seed * 7919, o, &e), 0);
        json_decref(o);
        while (st.result == PZ_PLAYING) {
            json_t *args = fn_args(&st, st.cur);
            json_t *argv[6];
            for (int i = 0; i < 6; i++)
                argv[i] = json_array_get(args, (size_t)i);
            json_t *r = NULL;
            if (play->call(argv, variant, &r, NULL, &e))
                fail_msg("play fn: %s at %s", e.detail, e.pointer);
            json_t *vargs[7] = {r, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]};
            json_t *vr = NULL;
            assert_int_equal(valid->call(vargs, variant, &vr, NULL, &e), 0);
            if (!json_is_true(vr)) {
                char *s = dump(json_incref(r)), *t = dump(json_incref(args));
                fail_msg("seed %llu: /play answered %s, invalid for %s", (unsigned long long)seed, s, t);
            }
            /* the game agrees */
            game_verdict gv;
            assert_int_equal(game_judge(OPS, &st, st.cur, r, NULL, &gv, &e), 0);
            if (!gv.valid)
                fail_msg("game rejects /play's %s: %s", json_dumps(r, JSON_COMPACT), gv.reason);
            decisions++;
            json_decref(vr);
            json_decref(r);
            json_decref(args);
            assert_int_equal(game_bot_play(OPS, &st, seed % 3 ? "planner" : "random", NULL, why, sizeof why, &e), 0);
        }
    }
    assert_true(decisions > 5000);
}

/* /play on large arguments: a 52-card hand, big groups. */
static void test_play_fn_extreme_arguments(void **unused)
{
    (void)unused;
    static char text[16384];
    int k = snprintf(text, sizeof text, "(0, [(1, [['2S', '2S', '2C'], ['5S', '5D', '5H']]), (3, [[");
    for (int i = 0; i < 34; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "%s'AS'", i ? "," : "");
    k += snprintf(text + k, sizeof text - (size_t)k, "], ['KS', '0C', '8C', '3S']]), (None, []), (None, [])], [(0, [(1, 'XX')])], [1, 3, 0, 0], [");
    for (int i = 0; i < 52; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "%s'%s'", i ? "," : "", pz_card_name(i + 1));
    snprintf(text + k, sizeof text - (size_t)k, "], None)");
    json_t *r;
    game_err e;
    assert_int_equal(call_v("", NULL, text, &r, &e), 0);
    assert_true(json_is_array(r));
    json_decref(r);
    /* before the phase, same hand: finds a phase */
    k = snprintf(text, sizeof text, "(0, " T4 ", [(0, [(1, 'XX')])], [3, 0, 0, 0], [");
    for (int i = 0; i < 52; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "%s'%s'", i ? "," : "", pz_card_name(i + 1));
    snprintf(text + k, sizeof text - (size_t)k, "], None)");
    assert_int_equal(call_v("", NULL, text, &r, &e), 0);
    assert_int_equal(json_integer_value(json_array_get(r, 0)), 3);
    json_decref(r);
}

static void test_planner_beats_random(void **unused)
{
    (void)unused;
    static pz_state st;
    game_status s;
    int wins = 0, games = 24;
    double mine = 0, theirs = 0;
    for (uint64_t seed = 1; seed <= (uint64_t)games; seed++) {
        play_game(&st, seed % 2 ? "bonus" : "standard", seed + 500, PLANNER1, NULL, &s);
        wins += s.winner == 0;
        mine += s.score[0];
        theirs += (s.score[1] + s.score[2] + s.score[3]) / 3;
    }
    if (wins < games * 3 / 4 || mine * 2 > theirs)
        fail_msg("planner won %d of %d, %.1f points against %.1f", wins, games, mine / games, theirs / games);
}

static void test_rules_json(void **unused)
{
    (void)unused;
    json_t *r = game_rules_json(OPS);
    char *s = dump(r);
    assert_non_null(strstr(s, "\"game\":\"phazed\""));
    assert_non_null(strstr(s, "/validate/phazed/is_valid_play"));
    assert_non_null(strstr(s, "/play/phazed\""));
    free(s);
    assert_int_equal(OPS->nfns, 5);
    assert_int_equal(OPS->cooperative, 0);
    assert_string_equal(OPS->bots[0].name, "planner");
}

/* --- every phase play -------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Cards as "AS,5D,5H" (sorted names): one set of cards, whatever its order. */
static void canon_group(char **names, int n, char *out, size_t len)
{
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "", names[i]);
}

static char *canon_pair(const char *a, const char *b)
{
    char *out = malloc(128);
    snprintf(out, 128, "%s|%s", strcmp(a, b) <= 0 ? a : b, strcmp(a, b) <= 0 ? b : a);
    return out;
}

/* A set of three as the rules say it: at least two naturals (non-Aces),
 * all of one value, the rest Aces (wild). */
static int set_of_3(const uint8_t *c)
{
    int nat = 0, rank = 0;
    for (int i = 0; i < 3; i++) {
        if (pz_rank(c[i]) == 14)
            continue;
        if (nat++ && pz_rank(c[i]) != rank)
            return 0;
        rank = pz_rank(c[i]);
    }
    return nat >= 2;
}

/* GET /legal lists every phase play of a hand that holds many (the bots'
 * finder, which it once used, stops at 16): the same sets of cards, each
 * once, as pairs of disjoint 3-card subsets of the hand that are sets. */
static void test_legal_every_phase(void **unused)
{
    (void)unused;
    pz_state st;
    blank(&st, 0, 0);
    give(&st, 0, "5S 5H 5D 5C 9S 9H 9D 9C AS AH KD");
    st.mid = 1;
    json_t *legal = OPS->legal(&st, 0);
    char *listed[400], *want[4000];
    int nl = 0, nw = 0;
    size_t i;
    json_t *play;
    json_array_foreach(legal, i, play) {
        if (json_integer_value(json_array_get(play, 0)) != 3)
            continue;
        json_t *groups = json_array_get(json_array_get(play, 1), 1);
        char g[2][64];
        assert_int_equal(json_array_size(groups), 2);
        for (int k = 0; k < 2; k++) {
            json_t *grp = json_array_get(groups, (size_t)k);
            char *names[3];
            assert_int_equal(json_array_size(grp), 3);
            for (int j = 0; j < 3; j++)
                names[j] = (char *)json_string_value(json_array_get(grp, (size_t)j));
            canon_group(names, 3, g[k], sizeof g[k]);
        }
        assert_true(nl < 400);
        listed[nl++] = canon_pair(g[0], g[1]);
    }
    json_decref(legal);
    const uint8_t *h = st.hand[0];
    int n = st.nhand[0];
    for (int a = 0; a < (1 << n); a++) {
        if (__builtin_popcount((unsigned)a) != 3)
            continue;
        for (int b = a + 1; b < (1 << n); b++) {
            if (__builtin_popcount((unsigned)b) != 3 || (a & b))
                continue;
            uint8_t c[2][3];
            char *names[2][3], g[2][64];
            for (int k = 0, m[2] = {0, 0}; k < n; k++)
                for (int x = 0; x < 2; x++)
                    if ((x ? b : a) & (1 << k)) {
                        c[x][m[x]] = h[k];
                        names[x][m[x]++] = (char *)pz_card_name(h[k]);
                    }
            if (!set_of_3(c[0]) || !set_of_3(c[1]))
                continue;
            canon_group(names[0], 3, g[0], sizeof g[0]);
            canon_group(names[1], 3, g[1], sizeof g[1]);
            char *pair = canon_pair(g[0], g[1]);
            int seen = 0;
            for (int k = 0; k < nw && !seen; k++)
                seen = strcmp(want[k], pair) == 0;
            if (seen || nw >= 4000)
                free(pair);
            else
                want[nw++] = pair;
        }
    }
    qsort(listed, (size_t)nl, sizeof *listed, cmp_str);
    qsort(want, (size_t)nw, sizeof *want, cmp_str);
    if (nl != nw)
        fail_msg("legal lists %d phase plays, the hand holds %d", nl, nw);
    for (int k = 0; k < nl; k++)
        assert_string_equal(listed[k], want[k]);
    assert_true(nw > 16); /* a hand with many */
    for (int k = 0; k < nl; k++)
        free(listed[k]);
    for (int k = 0; k < nw; k++)
        free(want[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legal_every_phase),
        cmocka_unit_test(test_ref_play),
        cmocka_unit_test(test_deal_and_rotation),
        cmocka_unit_test(test_hand_end_out_and_scoring),
        cmocka_unit_test(test_hand_end_deck_and_turns),
        cmocka_unit_test(test_game_end),
        cmocka_unit_test(test_phase_order_in_game),
        cmocka_unit_test(test_accumulation_in_game),
        cmocka_unit_test(test_bonus_game),
        cmocka_unit_test(test_views_hide_cards),
        cmocka_unit_test(test_events_and_records),
        cmocka_unit_test(test_record_n_is_history_n),
        cmocka_unit_test(test_roundtrip_whole_games),
        cmocka_unit_test(test_decode_hostile),
        cmocka_unit_test(test_legal_lists_every_single_play),
        cmocka_unit_test(test_play_fn_over_real_games),
        cmocka_unit_test(test_play_fn_extreme_arguments),
        cmocka_unit_test(test_planner_beats_random),
        cmocka_unit_test(test_rules_json),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
