/* testkit.h: helpers shared by the engine unit tests (header-only; each
 * test file is its own program). Python literals of the seeds' examples are
 * turned into JSON, and a game's autograder functions are called by name
 * exactly as api/ calls them. */
#ifndef CROUPIER_TESTKIT_H
#define CROUPIER_TESTKIT_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "game.h"

/* Python literal -> JSON: tuples to arrays, quotes, None/True/False. */
static inline json_t *tk_py(const char *text)
{
    size_t cap = strlen(text) * 2 + 16, k = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (const char *s = text; *s && k + 8 < cap; s++) {
        if (*s == '(') buf[k++] = '[';
        else if (*s == ')') buf[k++] = ']';
        else if (*s == '\'') buf[k++] = '"';
        else if (strncmp(s, "None", 4) == 0) { memcpy(buf + k, "null", 4); k += 4; s += 3; }
        else if (strncmp(s, "True", 4) == 0) { memcpy(buf + k, "true", 4); k += 4; s += 3; }
        else if (strncmp(s, "False", 5) == 0) { memcpy(buf + k, "false", 5); k += 5; s += 4; }
        else buf[k++] = *s;
    }
    buf[k] = 0;
    json_error_t err;
    json_t *j = json_loads(buf, JSON_DECODE_ANY, &err);
    if (!j)
        fail_msg("bad test JSON: %s in %s", err.text, buf);
    free(buf);
    return j;
}

static inline const game_fn *tk_fn(const game_ops *ops, const char *name)
{
    for (int i = 0; i < ops->nfns; i++)
        if (strcmp(ops->fns[i].name, name) == 0)
            return &ops->fns[i];
    fail_msg("no function %s", name);
    return NULL;
}

/* Call `name` with positional args (a Python tuple/list text). */
static inline int tk_call(const game_ops *ops, const char *name, const char *variant,
                          const char *pyargs, json_t **res, game_err *e)
{
    const game_fn *f = tk_fn(ops, name);
    json_t *a = tk_py(pyargs);
    json_t *args[16] = {0};
    int np = 0;
    while (f->params[np])
        np++;
    assert_true(json_is_array(a));
    assert_true(json_array_size(a) <= (size_t)np);
    for (size_t i = 0; i < json_array_size(a); i++)
        args[i] = json_array_get(a, i);
    memset(e, 0, sizeof *e);
    *res = NULL;
    int rc = f->call(args, variant, res, NULL, e);
    json_decref(a);
    return rc;
}

/* The result of a call that must succeed, as compact JSON text (free it). */
static inline char *tk_result_text(const game_ops *ops, const char *name, const char *variant,
                                   const char *pyargs)
{
    json_t *r;
    game_err e;
    if (tk_call(ops, name, variant, pyargs, &r, &e))
        fail_msg("%s(%s) failed: %s at %s", name, pyargs, e.detail, e.pointer);
    char *s = json_dumps(r, JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(r);
    return s;
}

#endif
