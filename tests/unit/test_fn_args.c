/* test_fn_args.c: the encoder of a seat's course-function arguments
 * (game_ops.fn_args, the remote players of `croupier tournament`).
 *
 * For every decision of bot games of Comp10001-Bo and Phazed (both
 * variants): the encoded arguments must go through the game's own decoder
 * (the function row's call(), what POST /play/{game} runs), and the bot's
 * play chosen from the decoded arguments must be legal in the real state.
 * And the arguments must hold only what the seat may see: changing every
 * card hidden from it (other hands, the deck order, stockpiles below the
 * top) must not change one byte of them.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "game.h"
#include "comp10001bo/bo.h"
#include "phazed/pz.h"

/* Swap two other seats' hands and reverse the hidden piles. */
static void hide_bo(void *state, int seat)
{
    bo_state *st = state;
    int a = (seat + 1) % BO_NP, b = (seat + 2) % BO_NP;
    uint8_t h[BO_HAND], n = st->nhand[a];
    memcpy(h, st->hand[a], sizeof h);
    memcpy(st->hand[a], st->hand[b], sizeof h);
    st->nhand[a] = st->nhand[b];
    memcpy(st->hand[b], h, sizeof h);
    st->nhand[b] = n;
    for (int i = 0, j = st->ndraw - 1; i < j; i++, j--) {
        uint8_t t = st->draw[i];
        st->draw[i] = st->draw[j];
        st->draw[j] = t;
    }
    for (int p = 0; p < BO_NP; p++) /* below the face-up top */
        for (int i = 0, j = st->nstock[p] - 2; i < j; i++, j--) {
            uint8_t t = st->stock[p][i];
            st->stock[p][i] = st->stock[p][j];
            st->stock[p][j] = t;
        }
}

static void hide_pz(void *state, int seat)
{
    pz_state *st = state;
    if (st->np > 2) {
        int a = (seat + 1) % st->np, b = (seat + 2) % st->np;
        uint8_t h[PZ_HMAX], n = st->nhand[a];
        memcpy(h, st->hand[a], sizeof h);
        memcpy(st->hand[a], st->hand[b], sizeof h);
        st->nhand[a] = st->nhand[b];
        memcpy(st->hand[b], h, sizeof h);
        st->nhand[b] = n;
    } else { /* one other hand: change its cards, not its size */
        int a = 1 - seat;
        for (int i = 0; i < st->nhand[a]; i++)
            st->hand[a][i] = (uint8_t)(1 + (st->hand[a][i] + 7) % 52);
    }
    for (int i = 0, j = st->ndeck - 1; i < j; i++, j--) {
        uint8_t t = st->deck[i];
        st->deck[i] = st->deck[j];
        st->deck[j] = t;
    }
}

static char *dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_non_null(s);
    return s;
}

/* Play `games` games of `game`/`variant` with a mix of its bots; check every
 * decision until `max_steps`. Returns the decisions checked. */
static long run_games(const char *game, const char *variant, int nplayers, int games, int max_steps,
                      void (*hide)(void *, int))
{
    const game_ops *ops = game_find(game);
    assert_non_null(ops);
    assert_non_null(ops->fn_args);
    void *st = malloc(ops->state_size), *alt = malloc(ops->state_size);
    assert_non_null(st);
    assert_non_null(alt);
    int nbots = 0;
    while (ops->bots[nbots].name)
        nbots++;
    long checked = 0;
    for (int g = 0; g < games; g++) {
        game_err e = {0};
        assert_int_equal(game_init(ops, st, variant, nplayers, (uint64_t)(1000 + g), NULL, &e), 0);
        for (int step = 0; step < max_steps; step++) {
            if (game_autoplay(ops, st, NULL))
                continue;
            game_status gs;
            ops->status(st, &gs);
            if (gs.over)
                break;
            int seat = gs.to_move;
            const game_fn *fn = NULL;
            json_t *args = ops->fn_args(st, seat, &fn);
            assert_non_null(args);
            assert_non_null(fn);
            assert_string_equal(fn->kind, "play");
            size_t np = 0;
            while (fn->params[np])
                np++;
            assert_int_equal(json_array_size(args), np);
            /* the decoder: what POST /play/{game} does with the same JSON */
            char *wire = dump(args); /* through text, as on the wire */
            json_t *text_args = json_loads(wire, 0, NULL);
            free(wire);
            assert_non_null(text_args);
            json_t *argv[16] = {0};
            for (size_t i = 0; i < np; i++)
                argv[i] = json_array_get(text_args, i);
            json_t *play = NULL;
            memset(&e, 0, sizeof e);
            int rc = fn->call(argv, variant, &play, NULL, &e);
            if (rc) {
                char *a = dump(args);
                fail_msg("%s %s game %d step %d: the decoder refused the encoded arguments: %s at %s\n%s",
                         game, variant, g, step, e.detail, e.pointer, a);
            }
            game_verdict v;
            memset(&e, 0, sizeof e);
            assert_int_equal(game_judge(ops, st, seat, play, NULL, &v, &e), 0);
            if (!v.valid) {
                char *a = dump(args), *p = dump(play);
                fail_msg("%s %s game %d step %d: the play %s from the decoded arguments is illegal: %s\n%s",
                         game, variant, g, step, p, v.reason, a);
            }
            /* nothing hidden from the seat is in its arguments */
            memcpy(alt, st, ops->state_size);
            hide(alt, seat);
            const game_fn *fn2 = NULL;
            json_t *args2 = ops->fn_args(alt, seat, &fn2);
            char *s1 = dump(args), *s2 = dump(args2);
            assert_ptr_equal(fn, fn2);
            assert_string_equal(s1, s2);
            free(s1);
            free(s2);
            json_decref(args2);
            json_decref(play);
            json_decref(text_args);
            json_decref(args);
            checked++;
            /* advance with a mix of strategies (the random one reaches odd positions) */
            char expl[320];
            assert_int_equal(game_bot_play(ops, st, ops->bots[(seat + g) % nbots].name, NULL, expl, sizeof expl, &e), 0);
        }
    }
    free(st);
    free(alt);
    printf("    %s %s, %d players: %ld decisions checked\n", game, variant, nplayers, checked);
    return checked;
}

static void test_bo_standard(void **state)
{
    (void)state;
    assert_true(run_games("comp10001bo", "standard", 4, 24, 100000, hide_bo) > 800);
}

static void test_bo_bonus(void **state)
{
    (void)state;
    assert_true(run_games("comp10001bo", "bonus", 4, 24, 100000, hide_bo) > 600);
}

/* Phazed: four games at four seats (three until the bots' chance became
 * counter-based, CHANGELOG: the same seeds now give other, shorter games,
 * 881 decisions in three standard ones). */
static void test_pz_standard(void **state)
{
    (void)state;
    assert_true(run_games("phazed", "standard", 4, 4, 1500, hide_pz) > 1000);
    assert_true(run_games("phazed", "standard", 2, 2, 800, hide_pz) > 500);
}

static void test_pz_bonus(void **state)
{
    (void)state;
    assert_true(run_games("phazed", "bonus", 4, 4, 1500, hide_pz) > 1000);
}

/* Games without a course function have no encoder. */
static void test_no_function(void **state)
{
    (void)state;
    assert_null(game_find("hanabi")->fn_args);
    assert_null(game_find("fivecrowns")->fn_args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bo_standard), cmocka_unit_test(test_bo_bonus),
        cmocka_unit_test(test_pz_standard), cmocka_unit_test(test_pz_bonus),
        cmocka_unit_test(test_no_function),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
