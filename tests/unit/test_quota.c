/* test_quota.c: api/quota.c's token buckets, on the real clock (a bucket
 * refills a minute's allowance in a minute: nothing here waits long enough
 * for a refill to matter but the one test that waits on purpose). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "quota.h"

/* A minute's allowance of n from one address, total from all. */
static void allow(long n, long total) { quota_configure(QUOTA_CREATE, n, total); }

static void test_a_client_gets_its_allowance_then_waits(void **unused)
{
    (void)unused;
    allow(10, 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(quota_take(QUOTA_CREATE, "10.0.0.1", 1, NULL), 0);
    int whole = -1, wait = quota_take(QUOTA_CREATE, "10.0.0.1", 1, &whole);
    assert_int_equal(whole, 0);
    assert_true(wait >= 1 && wait <= 7); /* one unit of 10 a minute: 6 s */
    /* another address is not touched */
    assert_int_equal(quota_take(QUOTA_CREATE, "10.0.0.2", 1, NULL), 0);
}

static void test_the_total_refuses_new_addresses(void **unused)
{
    (void)unused;
    allow(100, 5);
    char a[32];
    for (int i = 0; i < 5; i++) {
        snprintf(a, sizeof a, "10.1.0.%d", i);
        assert_int_equal(quota_take(QUOTA_CREATE, a, 1, NULL), 0);
    }
    int whole = 0;
    assert_true(quota_take(QUOTA_CREATE, "10.1.0.99", 1, &whole) >= 1);
    assert_int_equal(whole, 1);
}

static void test_ipv6_counts_by_its_64(void **unused)
{
    (void)unused;
    allow(3, 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "2001:db8:1:2::1", 1, NULL), 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "2001:db8:1:2:ffff::7", 1, NULL), 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "2001:db8:1:2:aaaa:bbbb:cccc:dddd", 1, NULL), 0);
    assert_true(quota_take(QUOTA_CREATE, "2001:db8:1:2::42", 1, NULL) >= 1); /* the same /64 */
    assert_int_equal(quota_take(QUOTA_CREATE, "2001:db8:1:3::1", 1, NULL), 0);  /* another */
    /* a v4-mapped address is its IPv4 address, not a /64 of them */
    assert_int_equal(quota_take(QUOTA_CREATE, "::ffff:10.2.0.1", 1, NULL), 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "::ffff:10.2.0.2", 1, NULL), 0);
}

static void test_a_charge_after_leaves_a_debt_that_is_waited_out(void **unused)
{
    (void)unused;
    allow(10, 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "10.3.0.1", 1, NULL), 0);
    quota_end(QUOTA_CREATE, "10.3.0.1", 1000); /* far past the allowance: a minute's debt at most */
    int wait = quota_take(QUOTA_CREATE, "10.3.0.1", 1, NULL);
    assert_true(wait > 60 && wait <= 67); /* back to 1 from -10: 66 s */
}

static void test_work_runs_one_at_a_time_per_address(void **unused)
{
    (void)unused;
    quota_configure(QUOTA_WORK, 20, 0);
    assert_int_equal(quota_take(QUOTA_WORK, "10.4.0.1", 1, NULL), 0);
    assert_int_equal(quota_take(QUOTA_WORK, "10.4.0.1", 1, NULL), 1); /* the first runs */
    assert_int_equal(quota_take(QUOTA_WORK, "10.4.0.2", 1, NULL), 0);
    quota_end(QUOTA_WORK, "10.4.0.1", 500);
    assert_int_equal(quota_take(QUOTA_WORK, "10.4.0.1", 1, NULL), 0); /* done: the next one */
    quota_end(QUOTA_WORK, "10.4.0.1", 0);
    quota_end(QUOTA_WORK, "10.4.0.2", 0);
}

static void test_the_table_is_bounded_and_full_rows_are_reused(void **unused)
{
    (void)unused;
    allow(2, 0);
    char a[32];
    /* far more addresses than rows, each spending its allowance: every one
     * is served its first unit (a row is taken from the fullest) */
    for (int i = 0; i < 3 * QUOTA_CLIENTS; i++) {
        snprintf(a, sizeof a, "10.%d.%d.%d", 5 + i / 65536, (i / 256) % 256, i % 256);
        assert_int_equal(quota_take(QUOTA_CREATE, a, 1, NULL), 0);
    }
    /* an address spent and kept: still refused (its row is not the fullest) */
    assert_int_equal(quota_take(QUOTA_CREATE, "10.200.0.1", 2, NULL), 0);
    assert_true(quota_take(QUOTA_CREATE, "10.200.0.1", 1, NULL) >= 1);
}

static void test_zero_is_no_limit(void **unused)
{
    (void)unused;
    allow(0, 0);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(quota_take(QUOTA_CREATE, "10.6.0.1", 1, NULL), 0);
}

static void test_a_bucket_refills_with_time(void **unused)
{
    (void)unused;
    allow(600, 0); /* ten a second */
    for (int i = 0; i < 600; i++)
        assert_int_equal(quota_take(QUOTA_CREATE, "10.7.0.1", 1, NULL), 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "10.7.0.1", 1, NULL), 1);
    struct timespec t = {0, 250 * 1000 * 1000};
    nanosleep(&t, NULL); /* a quarter second: two units back */
    assert_int_equal(quota_take(QUOTA_CREATE, "10.7.0.1", 1, NULL), 0);
    assert_int_equal(quota_take(QUOTA_CREATE, "10.7.0.1", 1, NULL), 0);
}

static void test_metrics_count_refusals(void **unused)
{
    (void)unused;
    char buf[2048];
    size_t k = 0;
    quota_metrics(buf, sizeof buf, &k);
    assert_true(k < sizeof buf);
    assert_non_null(strstr(buf, "croupier_quota_refused_total{quota=\"create\",bucket=\"client\"} "));
    assert_non_null(strstr(buf, "croupier_quota_refused_total{quota=\"work\",bucket=\"total\"} "));
    assert_null(strstr(buf, "{quota=\"create\",bucket=\"client\"} 0\n")); /* refused above */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_client_gets_its_allowance_then_waits),
        cmocka_unit_test(test_the_total_refuses_new_addresses),
        cmocka_unit_test(test_ipv6_counts_by_its_64),
        cmocka_unit_test(test_a_charge_after_leaves_a_debt_that_is_waited_out),
        cmocka_unit_test(test_work_runs_one_at_a_time_per_address),
        cmocka_unit_test(test_the_table_is_bounded_and_full_rows_are_reused),
        cmocka_unit_test(test_zero_is_no_limit),
        cmocka_unit_test(test_a_bucket_refills_with_time),
        cmocka_unit_test(test_metrics_count_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
