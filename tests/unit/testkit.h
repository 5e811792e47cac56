/* testkit.h: helpers shared by the engine unit tests (header-only; each
 * test file is its own program). Python literals of the seeds' examples are
 * turned into JSON, and a game's autograder functions are called by name
 * exactly as api/ calls them. */
#ifndef CROUPIER_TESTKIT_H
#define CROUPIER_TESTKIT_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "game.h"

/* Random JSON values, for the tests of what writes JSON text
 * (test_json_out, test_jw): xorshift64 on *s. */
static inline uint64_t tk_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The UTF-8 bytes of code point cp at b + *k (*k moves past them). */
static inline void tk_put_utf8(char *b, size_t *k, uint32_t cp)
{
    if (cp < 0x80) {
        b[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        b[(*k)++] = (char)(0xC0 | (cp >> 6));
        b[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        b[(*k)++] = (char)(0xE0 | (cp >> 12));
        b[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        b[(*k)++] = (char)(0xF0 | (cp >> 18));
        b[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* Up to 11 random code points: controls (NUL too when nul), quotes and
 * slashes, ASCII, 2-, 3- and 4-byte UTF-8. */
static inline json_t *tk_rnd_string(uint64_t *s, int nul)
{
    char b[64];
    size_t k = 0;
    int n = (int)(tk_rnd(s) % 12);
    for (int i = 0; i < n; i++) {
        uint32_t cp;
        switch (tk_rnd(s) % 6) {
        case 0: cp = (uint32_t)(tk_rnd(s) % 0x20); cp += !nul && !cp; break;
        case 1: cp = (uint32_t)"\"\\/'<>&"[tk_rnd(s) % 7]; break;
        case 2: cp = 0x20 + (uint32_t)(tk_rnd(s) % 0x60); break;
        case 3: cp = 0x80 + (uint32_t)(tk_rnd(s) % 0x780); break;
        case 4: do cp = 0x800 + (uint32_t)(tk_rnd(s) % 0xF800); while (cp >= 0xD800 && cp <= 0xDFFF); break;
        default: cp = 0x10000 + (uint32_t)(tk_rnd(s) % 0x100000); break;
        }
        tk_put_utf8(b, &k, cp);
    }
    return json_stringn(b, k);
}

/* A random value: arrays and objects (up to 4 members) while depth is
 * below max_depth, reals when reals, strings with NULs when nul (keys too);
 * when share, an array now and then holds one value twice (a reference
 * held in two places). */
static inline json_t *tk_rnd_value(uint64_t *s, int depth, int max_depth, int reals, int nul,
                                   int share)
{
    static const json_int_t ints[] = {0, 1, -1, 9, 10, 99, 100, -100, INT32_MAX, INT32_MIN,
                                      INT64_MAX, INT64_MIN, INT64_MIN + 1, 1234567890123LL};
    static const double real[] = {0.0, -0.0, 0.5, 1e300, -2.25e-300, 3.141592653589793, 1e21, 123456789.0};
    int kind = (int)(tk_rnd(s) % (depth < max_depth ? 8 : 6));
    if (kind == 4 && !reals)
        kind = 3;
    switch (kind) {
    case 0: return json_null();
    case 1: return json_boolean(tk_rnd(s) & 1);
    case 2: return json_integer(ints[tk_rnd(s) % (sizeof ints / sizeof ints[0])]);
    case 3: return json_integer((json_int_t)tk_rnd(s));
    case 4: return json_real(real[tk_rnd(s) % (sizeof real / sizeof real[0])]);
    case 5: return tk_rnd_string(s, nul);
    case 6: {
        json_t *a = json_array(), *last = NULL;
        int n = (int)(tk_rnd(s) % 5);
        for (int i = 0; i < n; i++) {
            json_t *v = share && last && tk_rnd(s) % 3 == 0
                            ? json_incref(last)
                            : tk_rnd_value(s, depth + 1, max_depth, reals, nul, share);
            last = v;
            json_array_append_new(a, v);
        }
        return a;
    }
    default: {
        json_t *o = json_object();
        int n = (int)(tk_rnd(s) % 5);
        for (int i = 0; i < n; i++) {
            json_t *key = tk_rnd_string(s, nul);
            json_object_setn_new(o, json_string_value(key), json_string_length(key),
                                 tk_rnd_value(s, depth + 1, max_depth, reals, nul, share));
            json_decref(key);
        }
        return o;
    }
    }
}

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
