/* test_cases.c: the autograder kit's generators (engine/cases.c and each
 * game's <game>_cases.c), for every suite of every game of the registry:
 * a suite of K cases (K clauses) aims at and lands on every clause once,
 * and 3K cases three times; the same seed gives the same cases and case i
 * does not depend on the suite's size; every expected answer and clause is
 * what the function's own row answers when called again on the arguments
 * (the code behind /validate); a play function's legal plays are valid
 * plays of the game's is_valid_play. The preconditions are checked apart,
 * by tests/cli/lib/preconditions.mjs (another language, no shared code).
 */
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "game.h"

static char *text(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
    assert_non_null(s);
    return s;
}

static const game_fn *fn_named(const game_ops *ops, const char *kind, const char *name)
{
    for (int i = 0; i < ops->nfns; i++)
        if (strcmp(ops->fns[i].kind, kind) == 0 && strcmp(ops->fns[i].name, name) == 0)
            return &ops->fns[i];
    return NULL;
}

/* Call f on the JSON array args; the result (new ref) and the verdict. */
static json_t *call(const game_fn *f, const char *variant, const json_t *args, game_verdict *v)
{
    json_t *argv[16] = {0}, *r = NULL;
    game_err e = {0};
    for (size_t i = 0; i < json_array_size(args) && i < 16; i++)
        argv[i] = json_array_get(args, i);
    memset(v, 0, sizeof *v);
    if (f->call(argv, variant, &r, v, &e))
        fail_msg("%s refused %s: %s at %s", f->signature, text(args), e.detail, e.pointer);
    return r;
}

static void each_suite(void (*check)(const game_ops *, const game_suite *))
{
    int n = 0;
    for (const game_ops *const *g = game_registry; *g; g++)
        for (int k = 0; k < (*g)->nsuites; k++, n++)
            check(*g, &(*g)->suites[k]);
    assert_true(n >= 18);
}

static void lands_on_every_clause(const game_ops *ops, const game_suite *s)
{
    int *count = calloc((size_t)s->nclauses, sizeof *count);
    assert_non_null(count);
    for (int i = 0; i < 3 * s->nclauses; i++) {
        json_t *c;
        int k;
        game_err e = {0};
        if (game_case(s, 7, i, &c, &k, &e))
            fail_msg("%s %s case %d: %s", ops->name, s->course_name, i, e.detail);
        if (k != i % s->nclauses)
            fail_msg("%s %s (%s) case %d aimed at %s landed on %s", ops->name, s->course_name, s->variant, i,
                     s->clauses[i % s->nclauses].id, s->clauses[k].id);
        assert_string_equal(json_string_value(json_object_get(c, "rule")), s->clauses[k].id);
        count[k]++;
        json_decref(c);
    }
    for (int k = 0; k < s->nclauses; k++)
        assert_int_equal(count[k], 3);
    free(count);
}

static void test_every_clause(void **unused)
{
    (void)unused;
    each_suite(lands_on_every_clause);
}

static void clause_list(const game_ops *ops, const game_suite *s)
{
    assert_non_null(game_suite_find(ops, s->fn, s->variant));
    assert_ptr_equal(game_suite_find(ops, s->fn, s->variant), s);
    assert_true(game_has_variant(ops, s->variant));
    json_t *shapes = json_loads(s->shapes, 0, NULL);
    assert_non_null(shapes);
    int np = 0;
    while (s->call->params[np])
        np++;
    assert_int_equal(json_array_size(json_object_get(shapes, "params")), np);
    json_decref(shapes);
    for (int k = 0; k < s->nclauses; k++) {
        char game_dot[32];
        snprintf(game_dot, sizeof game_dot, "%s.", ops->name);
        assert_true(strncmp(s->clauses[k].id, game_dot, strlen(game_dot)) == 0);
        assert_true(strlen(s->clauses[k].sentence) > 10);
        for (int j = 0; j < k; j++)
            assert_true(strcmp(s->clauses[j].id, s->clauses[k].id) != 0);
    }
}

static void test_clause_lists(void **unused)
{
    (void)unused;
    each_suite(clause_list);
    assert_null(game_suite_find(game_find("phazed"), "nosuch", NULL));
    assert_null(game_suite_find(game_find("phazed"), "score", "rainbow"));
}

static void same_seed_same_cases(const game_ops *ops, const game_suite *s)
{
    (void)ops;
    int n = s->nclauses + 2;
    for (int i = 0; i < n; i += 3) {
        json_t *a, *b, *c;
        game_err e = {0};
        assert_int_equal(game_case(s, 42, i, &a, NULL, &e), 0);
        assert_int_equal(game_case(s, 42, i, &b, NULL, &e), 0);
        assert_int_equal(game_case(s, 43, i, &c, NULL, &e), 0);
        char *ta = text(a), *tb = text(b), *tc = text(c);
        assert_string_equal(ta, tb);
        if (strcmp(ta, tc) == 0 && strlen(ta) > 200)
            fail_msg("%s: seeds 42 and 43 drew the same case %d", s->course_name, i);
        free(ta);
        free(tb);
        free(tc);
        json_decref(a);
        json_decref(b);
        json_decref(c);
    }
}

static void test_determinism(void **unused)
{
    (void)unused;
    each_suite(same_seed_same_cases);
}

/* The answer and the clause are the function's own, called again. */
static void answers_are_the_functions(const game_ops *ops, const game_suite *s)
{
    const game_fn *valid = fn_named(ops, "validate", "is_valid_play");
    for (int i = 0; i < 2 * s->nclauses; i++) {
        json_t *c;
        game_err e = {0};
        assert_int_equal(game_case(s, 99, i, &c, NULL, &e), 0);
        json_t *args = json_object_get(c, "args");
        game_verdict v;
        json_t *r = call(s->call, s->variant, args, &v);
        assert_string_equal(v.rule, json_string_value(json_object_get(c, "rule")));
        assert_string_equal(v.reason, json_string_value(json_object_get(c, "why")));
        if (!s->judge) {
            char *want = text(json_object_get(c, "expected")), *got = text(r);
            assert_string_equal(want, got);
            free(want);
            free(got);
        } else { /* every legal play is one that is_valid_play accepts */
            json_t *legal = json_object_get(c, "legal");
            assert_true(json_array_size(legal) > 0);
            for (size_t k = 0; k < json_array_size(legal); k++) {
                json_t *p = json_array_get(legal, k);
                /* is_valid_play's arguments: the play, then the state as the validator takes it */
                size_t from = 0, skip_lo = 99, skip_hi = 99;
                if (strcmp(ops->name, "comp10001bo") == 0) {
                    if (json_integer_value(json_array_get(p, 0)) >= 4)
                        continue; /* embargo plays: no embargo arguments there */
                    if (strcmp(s->variant, "bonus") == 0) {
                        skip_lo = 2;
                        skip_hi = 3;
                    }
                }
                json_t *ivp = json_array();
                json_array_append(ivp, p);
                size_t np = strcmp(ops->name, "comp10001bo") == 0 ? json_array_size(args) - 1 : json_array_size(args);
                for (size_t a = from; a < np; a++)
                    if (a < skip_lo || a > skip_hi)
                        json_array_append(ivp, json_array_get(args, a));
                game_verdict w;
                json_t *ok = call(valid, s->variant, ivp, &w);
                if (!(json_is_true(ok) || json_integer_value(ok) > 0))
                    fail_msg("%s: legal play %s judged invalid (%s) in %s", s->course_name, text(p), w.rule,
                             text(args));
                json_decref(ok);
                json_decref(ivp);
            }
        }
        json_decref(r);
        json_decref(c);
    }
}

static void test_answers(void **unused)
{
    (void)unused;
    each_suite(answers_are_the_functions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clause_lists),
        cmocka_unit_test(test_every_clause),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
