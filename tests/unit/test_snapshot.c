/* test_snapshot.c: api/snapshot.c over every game of the registry.
 *
 * A snapshot stores a state's first ops->state_used(st) bytes (all of them
 * for a game without state_used) and unpacking zeroes the rest, so every
 * state a game reaches must come back byte for byte: seeded games played
 * by the default bot at each game's smallest and largest table, every
 * position packed and unpacked into a buffer of garbage and compared with
 * the original. A snapshot of another game, id or version, or with a byte
 * changed, is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "game.h"
#include "snapshot.h"

enum { SEEDS = 2, MAX_MOVES = 4000 };

static void round_trip(const game_ops *ops, const void *st, void *back, int move)
{
    unsigned char *snap = NULL;
    size_t len = 0;
    assert_int_equal(snap_pack(ops, "g1", move, st, &snap, &len), 0);
    memset(back, 0xa5, ops->state_size); /* garbage: unpacking must set every byte */
    assert_int_equal(snap_unpack(ops, "g1", move, snap, len, back), 0);
    if (memcmp(st, back, ops->state_size) != 0)
        fail_msg("%s move %d: the unpacked state differs from the packed one", ops->name, move);
    if (ops->state_used)
        assert_true(ops->state_used(st) <= ops->state_size);
    assert_int_not_equal(snap_unpack(ops, "g2", move, snap, len, back), 0);
    assert_int_not_equal(snap_unpack(ops, "g1", move + 1, snap, len, back), 0);
    snap[len - 1] ^= 1;
    assert_int_not_equal(snap_unpack(ops, "g1", move, snap, len, back), 0);
    free(snap);
}

static void test_every_position(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        void *st = calloc(1, ops->state_size), *back = malloc(ops->state_size);
        assert_non_null(st);
        assert_non_null(back);
        int tables[2] = {ops->min_players, ops->max_players};
        for (int t = 0; t < 2; t++)
            for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                game_err e = {0};
                game_status gs;
                assert_int_equal(game_init(ops, st, ops->variants[0], tables[t], seed, NULL, &e), 0);
                int m = 0;
                for (ops->status(st, &gs); !gs.over && m < MAX_MOVES; ops->status(st, &gs), m++) {
                    round_trip(ops, st, back, m);
                    if (!game_autoplay(ops, st, NULL))
                        assert_int_equal(game_bot_play(ops, st, ops->bots[0].name, NULL, NULL, 0, &e), 0);
                }
                round_trip(ops, st, back, m);
            }
        free(st);
        free(back);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
