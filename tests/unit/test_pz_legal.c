/* test_pz_legal.c: Phazed's legal plays in a hand that holds thousands of
 * phase plays, counted and paged.
 *
 * A dealt game is turned into the position to test by swapping cards
 * between places (so every card is still where one copy of it can be: the
 * state keeps its invariants), seat 0 to move after its pick-up, phases 1-4
 * done: phase 5, a run of eight, with six Aces (Wilds) among eleven cards.
 * The count is checked against a brute force that knows nothing of the
 * enumerator: every ordered choice of 8 of the 11 cards, judged a run by
 * pz_group_types, the distinct card sequences counted. Then every page of
 * ops->legal_page, as GET /games/{id}/legal walks them, is compared with
 * the whole list: no play missing, none twice, the total right.
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

extern const game_ops phazed_ops;

static const char *const HAND[11] = {"AS", "AS", "AH", "AH", "AD", "AD", "2S", "3H", "4D", "5C", "6S"};

/* Where the cards of a state lie: its deck, its discard pile, each hand. */
static uint8_t *find_card(pz_state *st, int c, int skip_seat0_upto)
{
    for (int i = 0; i < st->ndeck; i++)
        if (st->deck[i] == c)
            return &st->deck[i];
    for (int i = 0; i < st->ndisc; i++)
        if (st->disc[i] == c)
            return &st->disc[i];
    for (int p = 0; p < st->np; p++)
        for (int i = p ? 0 : skip_seat0_upto; i < st->nhand[p]; i++)
            if (st->hand[p][i] == c)
                return &st->hand[p][i];
    return NULL;
}

/* Seat 0 after its pick-up, holding HAND, phases 1-4 done. */
static void position(pz_state *st)
{
    pz_new(st, 0, 4, 20, 5);
    st->cur = 0;
    st->hand[0][st->nhand[0]++] = st->deck[--st->ndeck]; /* the pick-up */
    st->mid = 1;
    st->status[0] = 4;
    assert_int_equal(st->nhand[0], 11);
    for (int i = 0; i < 11; i++) {
        uint8_t *at = find_card(st, pz_card_parse(HAND[i], 0), i), c = st->hand[0][i];
        assert_non_null(at);
        st->hand[0][i] = *at;
        *at = c;
    }
    game_err e = {0};
    assert_int_equal(pz_invariants(st, &e), 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every ordered choice of 8 of the 11 cards that pz_group_types calls a run
 * of eight, as distinct card sequences. */
static long brute_force_runs(void)
{
    enum { K = 8, N = 11 };
    uint8_t h[N], seq[K];
    int idx[K] = {0}, used[N] = {0}, depth = 0;
    size_t n = 0, cap = 1 << 16;
    uint64_t *found = malloc(cap * sizeof *found);
    assert_non_null(found);
    for (int i = 0; i < N; i++)
        h[i] = (uint8_t)pz_card_parse(HAND[i], 0);
    idx[0] = -1;
    while (depth >= 0) { /* an odometer over distinct positions */
        if (idx[depth] >= 0)
            used[idx[depth]] = 0;
        do
            idx[depth]++;
        while (idx[depth] < N && used[idx[depth]]);
        if (idx[depth] == N) {
            depth--;
            continue;
        }
        used[idx[depth]] = 1;
        seq[depth] = h[idx[depth]];
        if (depth + 1 < K) {
            idx[++depth] = -1;
            continue;
        }
        if (pz_group_types(seq, K) & (1u << 4)) {
            uint64_t key = 0;
            for (int i = 0; i < K; i++)
                key = key << 8 | seq[i];
            if (n == cap)
                assert_non_null(found = realloc(found, (cap *= 2) * sizeof *found));
            found[n++] = key;
        }
    }
    qsort(found, n, sizeof *found, cmp_u64);
    long distinct = 0;
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || found[i] != found[i - 1];
    free(found);
    return distinct;
}

/* pz_each's fn: tally the phase plays and the others. */
static int tally(void *ctx, const pz_play *p)
{
    long *n = ctx;
    n[p->type == PZ_PHASE]++;
    return 0;
}

static void test_phase_plays_counted(void **unused)
{
    (void)unused;
    pz_state *st = calloc(1, sizeof *st);
    pz_obs o;
    position(st);
    pz_observe(st, 0, &o);
    long n[2] = {0, 0}, brute = brute_force_runs();
    pz_each each = {tally, n, 0, 0};
    pz_gen_each(&o, &each);
    assert_true(brute > 4096); /* past the old cap */
    assert_int_equal(n[1], brute);
    assert_int_equal(n[0], 8); /* a discard of each of the 8 distinct cards: no phase down, no Skip */
    size_t total;
    json_t *none = phazed_ops.legal_page(st, 0, 0, 0, &total);
    assert_int_equal(json_array_size(none), 0);
    assert_int_equal((long)total, n[0] + n[1]);
    json_decref(none);
    free(st);
}

/* The pages of GET /legal, walked as a client does: together the whole list. */
static void test_pages_walk_the_list(void **unused)
{
    (void)unused;
    pz_state *st = calloc(1, sizeof *st);
    position(st);
    json_t *whole = phazed_ops.legal(st, 0), *walked = json_array();
    size_t total = 0, offset = 0;
    const size_t limit = 1000;
    int pages = 0;
    do {
        json_t *page = game_legal_page(&phazed_ops, st, 0, offset, limit, &total);
        assert_true(json_array_size(page) <= limit);
        assert_true(json_array_size(page) > 0);
        json_array_extend(walked, page);
        offset += json_array_size(page);
        json_decref(page);
        pages++;
    } while (offset < total);
    assert_int_equal(total, json_array_size(whole));
    assert_int_equal(pages, (int)((total + limit - 1) / limit));
    assert_true(json_equal(walked, whole));
    /* none twice: the compact texts, sorted, all differ */
    size_t n = json_array_size(whole);
    char **t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++)
        t[i] = json_dumps(json_array_get(whole, i), JSON_COMPACT | JSON_ENCODE_ANY);
    qsort(t, n, sizeof *t, (int (*)(const void *, const void *))strcmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(t[i], t[i - 1]) == 0)
            fail_msg("listed twice: %s", t[i]);
    for (size_t i = 0; i < n; i++)
        free(t[i]);
    free(t);
    /* past the end: nothing, the same total; another seat: nothing */
    json_t *past = game_legal_page(&phazed_ops, st, 0, total, limit, &offset);
    assert_int_equal(json_array_size(past), 0);
    assert_int_equal(offset, total);
    json_decref(past);
    json_t *other = game_legal_page(&phazed_ops, st, 1, 0, limit, &offset);
    assert_int_equal(json_array_size(other), 0);
    assert_int_equal(offset, 0);
    json_decref(other);
    json_decref(whole);
    json_decref(walked);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_plays_counted),
        cmocka_unit_test(test_pages_walk_the_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
