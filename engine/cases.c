/* cases.c: the autograder kit's cases (docs/autograder.md), for every game
 * that has suites.
 *
 * Case i of a suite aims at clause i mod K (K clauses), on that clause's
 * (i / K)-th visit, with its own PCG stream (seed, i), so a case never
 * depends on the suite's size. The game's generator draws arguments aimed at
 * the clause; the answer and the clause that decides it come from the
 * function's own row (call(), the code behind /validate). A draw whose
 * verdict lands on another clause is drawn again, up to CASE_TRIES times;
 * after that the last draw stands, under the clause its verdict named (the
 * unit tests check that this never happens for the suites we ship).
 */
#include "cases.h"
#include "game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CASE_TRIES = 200 };

int case_draw(rng *r, uint8_t *used, int n, int (*wanted)(const void *want, int code), const void *want)
{
    uint8_t c[255];
    int m = 0;
    for (int k = 1; k <= n && m < (int)sizeof c; k++)
        if (wanted(want, k))
            c[m++] = (uint8_t)k;
    if (!m)
        return 0;
    int k = c[rng_below(r, (uint32_t)m)];
    used[k]++;
    return k;
}

const game_suite *game_suite_find(const game_ops *ops, const char *fn, const char *variant)
{
    if (!variant)
        variant = ops->variants[0];
    for (int i = 0; i < ops->nsuites; i++)
        if (strcmp(ops->suites[i].fn, fn) == 0 && strcmp(ops->suites[i].variant, variant) == 0)
            return &ops->suites[i];
    return NULL;
}

static int clause_index(const game_suite *s, const char *id)
{
    for (int k = 0; k < s->nclauses; k++)
        if (strcmp(s->clauses[k].id, id) == 0)
            return k;
    return -1;
}

static int nparams(const game_fn *f)
{
    int n = 0;
    while (f->params[n])
        n++;
    return n;
}

/* Call the suite's function on `args` (a JSON array): *result (NULL for a
 * play function: only the verdict is wanted) and *v. */
static int answer(const game_suite *s, const json_t *args, json_t **result, game_verdict *v,
                  game_err *e)
{
    json_t *argv[16] = {0};
    int np = nparams(s->call), n = (int)json_array_size(args);
    if (n > np || n < s->call->nrequired || np > 16)
        return err_set(e, ERR_INTERNAL, NULL, "%s: %d arguments drawn for %d parameters", s->course_name,
                       n, np);
    for (int k = 0; k < n; k++)
        argv[k] = json_array_get(args, (size_t)k);
    memset(v, 0, sizeof *v);
    int rc = s->call->call(argv, s->variant, s->judge ? NULL : result, v, e);
    if (rc) {
        char bad[sizeof e->detail], at[sizeof e->pointer];
        snprintf(bad, sizeof bad, "%s", e->detail);
        snprintf(at, sizeof at, "%s", e->pointer);
        char *text = json_dumps(args, JSON_COMPACT);
        err_set(e, ERR_INTERNAL, NULL, "%s refused drawn arguments at %s: %s (%.120s)", s->course_name, at,
                bad, text ? text : "");
        free(text);
        return ERR_INTERNAL;
    }
    return 0;
}

int game_case(const game_suite *s, uint64_t seed, int i, json_t **out, int *clause, game_err *e)
{
    *out = NULL;
    if (s->nclauses < 1 || i < 0)
        return err_set(e, ERR_INTERNAL, NULL, "%s has no clauses", s->course_name);
    int k = i % s->nclauses, visit = i / s->nclauses, got = -1;
    rng r;
    rng_seed(&r, seed, (uint64_t)i);
    json_t *args = NULL, *result = NULL;
    game_verdict v;
    for (int t = 0; t < CASE_TRIES && got != k; t++) {
        json_decref(args);
        json_decref(result);
        result = NULL;
        args = s->args(s, &r, k, visit);
        if (!json_is_array(args)) {
            json_decref(args);
            return err_set(e, ERR_INTERNAL, NULL, "%s: no arguments drawn", s->course_name);
        }
        if (answer(s, args, &result, &v, e)) {
            json_decref(args);
            json_decref(result);
            return ERR_INTERNAL;
        }
        got = clause_index(s, v.rule);
    }
    if (got < 0) {
        json_decref(args);
        json_decref(result);
        return err_set(e, ERR_INTERNAL, NULL, "%s: the verdict's rule '%s' is not a clause of the suite",
                       s->course_name, v.rule);
    }
    json_t *c = json_pack("{s:i,s:o}", "id", i, "args", args);
    if (s->judge) {
        json_t *argv[16] = {0};
        for (size_t a = 0; a < json_array_size(args) && a < 16; a++)
            argv[a] = json_array_get(args, a);
        json_t *j = s->judge(s, argv);
        if (!json_is_object(j)) {
            json_decref(j);
            json_decref(c);
            return err_set(e, ERR_INTERNAL, NULL, "%s: no judge of the plays", s->course_name);
        }
        json_object_update(c, j);
        json_decref(j);
    } else {
        json_object_set_new(c, "expected", result);
    }
    json_object_set_new(c, "rule", json_string(v.rule));
    json_object_set_new(c, "why", json_string(v.reason));
    if (clause)
        *clause = got;
    *out = c;
    return 0;
}
