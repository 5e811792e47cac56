/* test_notify.c: "a game changed" inside the process (api/notify.c).
 *
 * A write wakes only the threads that wait on its bucket, and a write with
 * nobody waiting takes no lock and wakes nobody (the usual case: no event
 * stream open). What is checked: the generations move with every write
 * (its game's bucket and the total); a wait returns at once when the
 * generation already moved before it began; and a waiter is never left
 * asleep by a write that races with it going to sleep. That last one is a
 * ping-pong of two threads, each waiting for the other's write with a
 * 5 s timeout: a lost wake-up would show as a wait that timed out
 * (notify_wait returns 1 once the generation moved, whenever that was, so
 * the test counts the waits that ran to their deadline instead).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cmocka.h>

#include "../../api/notify.h"

enum { ROUNDS = 2000, WAIT_MS = 5000 };

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void test_generations_move(void **state)
{
    (void)state;
    unsigned long g = notify_seen("game-a"), t = notify_total();
    notify_game("game-a");
    assert_int_equal(notify_seen("game-a"), g + 1);
    assert_int_equal(notify_total(), t + 1);
    notify_game("game-a");
    notify_game("game-b");
    assert_true(notify_seen("game-a") >= g + 2); /* game-b may share its bucket */
    assert_int_equal(notify_total(), t + 3);
}

static void test_wait_after_a_write_returns_at_once(void **state)
{
    (void)state;
    unsigned long g = notify_seen("game-c"), t = notify_total();
    notify_game("game-c");
    int64_t t0 = now_ms();
    assert_int_equal(notify_wait("game-c", g, WAIT_MS), 1);
    assert_int_equal(notify_wait_any(t, WAIT_MS), 1);
    assert_true(now_ms() - t0 < WAIT_MS); /* did not sleep to the deadline */
}

static void test_wait_times_out_without_a_write(void **state)
{
    (void)state;
    unsigned long g = notify_seen("game-quiet");
    assert_int_equal(notify_wait("game-quiet", g, 30), 0);
}

/* Two threads, two games: each writes its game, then waits for the other's
 * next write. */
typedef struct side {
    const char *mine, *theirs;
    unsigned long base; /* theirs' generation before either side began */
    int late;           /* waits that ran to their deadline */
} side;

static void *play(void *arg)
{
    side *s = arg;
    unsigned long base = s->base;
    for (unsigned long i = 1; i <= ROUNDS; i++) {
        notify_game(s->mine);
        /* until the other side has made its i-th write (only it writes to
         * that bucket) */
        int64_t t0 = now_ms();
        unsigned long g;
        while ((g = notify_seen(s->theirs)) - base < i) {
            notify_wait(s->theirs, g, WAIT_MS);
            if (now_ms() - t0 >= WAIT_MS) {
                s->late++;
                return NULL; /* the other side may now wait for ever too */
            }
        }
    }
    return NULL;
}

static void test_no_lost_wakeups(void **state)
{
    (void)state;
    /* games in different buckets, so each side's wait is woken only by the
     * other side's writes */
    char a[16] = "ping", b[16] = "pong";
    for (int i = 0; i < 1000; i++) {
        snprintf(b, sizeof b, "pong-%d", i);
        unsigned long ga = notify_seen(a), gb = notify_seen(b);
        notify_game(b);
        if (notify_seen(a) == ga && notify_seen(b) == gb + 1)
            break;
    }
    side x = {a, b, notify_seen(b), 0}, y = {b, a, notify_seen(a), 0};
    pthread_t tx, ty;
    assert_int_equal(pthread_create(&tx, NULL, play, &x), 0);
    assert_int_equal(pthread_create(&ty, NULL, play, &y), 0);
    pthread_join(tx, NULL);
    pthread_join(ty, NULL);
    assert_int_equal(x.late, 0);
    assert_int_equal(y.late, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generations_move),
        cmocka_unit_test(test_wait_after_a_write_returns_at_once),
        cmocka_unit_test(test_wait_times_out_without_a_write),
        cmocka_unit_test(test_no_lost_wakeups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
