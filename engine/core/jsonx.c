/* jsonx.c: checked readers; see jsonx.h. */
#include "jsonx.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

int jx_int(const json_t *v, const char *ptr, long long lo, long long hi,
           long long *out, game_err *e)
{
    if (!v)
        return err_set(e, ERR_BAD_MEMBER, ptr, "required integer is missing");
    if (!json_is_integer(v))
        return err_set(e, ERR_BAD_MEMBER, ptr,
                       "expected an integer, got %s", kind(v));
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return err_set(e, ERR_BAD_MEMBER, ptr,
                       "expected an integer from %lld to %lld, got %lld", lo, hi, x);
    *out = x;
    return 0;
}

int jx_bool(const json_t *v, const char *ptr, int *out, game_err *e)
{
    if (!v)
        return err_set(e, ERR_BAD_MEMBER, ptr, "required boolean is missing");
    if (!json_is_boolean(v))
        return err_set(e, ERR_BAD_MEMBER, ptr, "expected a boolean, got %s", kind(v));
    *out = json_is_true(v);
    return 0;
}

int jx_array(const json_t *v, const char *ptr, size_t min, size_t max,
             game_err *e)
{
    if (!v)
        return err_set(e, ERR_BAD_MEMBER, ptr, "required array is missing");
    if (!json_is_array(v))
        return err_set(e, ERR_BAD_MEMBER, ptr, "expected an array, got %s", kind(v));
    size_t n = json_array_size(v);
    if (n < min || n > max) {
        if (min == max)
            return err_set(e, ERR_BAD_MEMBER, ptr,
                           "expected an array of %zu elements, got %zu", min, n);
        return err_set(e, ERR_BAD_MEMBER, ptr,
                       "expected an array of %zu to %zu elements, got %zu", min, max, n);
    }
    return 0;
}

int jx_object(const json_t *v, const char *ptr, game_err *e)
{
    if (!v)
        return err_set(e, ERR_BAD_MEMBER, ptr, "required object is missing");
    if (!json_is_object(v))
        return err_set(e, ERR_BAD_MEMBER, ptr, "expected an object, got %s", kind(v));
    return 0;
}

int jx_string(const json_t *v, const char *ptr, const char **out, game_err *e)
{
    if (!v)
        return err_set(e, ERR_BAD_MEMBER, ptr, "required string is missing");
    if (!json_is_string(v))
        return err_set(e, ERR_BAD_MEMBER, ptr, "expected a string, got %s", kind(v));
    *out = json_string_value(v);
    return 0;
}

const json_t *jx_get(const json_t *obj, const char *key)
{
    return json_object_get(obj, key);
}

/* out = base + "/", truncated to n - 1 bytes; the length written. These
 * run for every member of every request before it is known to be wrong (the
 * pointer is only read on error), so they copy bytes rather than format. */
static size_t ptr_base(char *out, size_t n, const char *base)
{
    size_t k = base ? strlen(base) : 0;
    if (k > n - 1)
        k = n - 1;
    memcpy(out, base ? base : "", k);
    if (k < n - 1)
        out[k++] = '/';
    out[k] = 0;
    return k;
}

void jx_ptr_idx(char *out, size_t n, const char *base, size_t i)
{
    if (n == 0)
        return;
    size_t k = ptr_base(out, n, base);
    char d[24];
    int m = 0;
    do {
        d[m++] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    while (m > 0 && k + 1 < n)
        out[k++] = d[--m];
    out[k] = 0;
}

int jx_fail_at(game_err *e, int n, const size_t *idx)
{
    char p[128] = "";
    size_t k = 0;
    for (int i = 0; i < n && k + 1 < sizeof p; i++) { /* each "/<i>" after the last */
        jx_ptr_idx(p + k, sizeof p - k, "", idx[i]);
        k += strlen(p + k);
    }
    err_prefix(e, p);
    return ERR_BAD_MEMBER;
}

void jx_ptr_key(char *out, size_t n, const char *base, const char *key)
{
    if (n == 0)
        return;
    size_t k = ptr_base(out, n, base);
    for (; *key && k + 3 < n; key++) {
        if (*key == '~') {
            out[k++] = '~';
            out[k++] = '0';
        } else if (*key == '/') {
            out[k++] = '~';
            out[k++] = '1';
        } else {
            out[k++] = *key;
        }
    }
    if (k < n)
        out[k] = 0;
}

int jx_nested_deeper(const char *s, size_t n, int limit)
{
    /* what a byte outside strings is: 0 nothing to count, 1 a quote
     * opening a string, 2 an opening bracket, 3 a closing one (one load a
     * byte, where comparing with each of five took ten instructions) */
    static const unsigned char what[256] = {['"'] = 1, ['['] = 2, ['{'] = 2, [']'] = 3, ['}'] = 3};
    const unsigned char *u = (const unsigned char *)s;
    int depth = 0;
    for (size_t i = 0; i < n;) {
        unsigned k = what[u[i++]];
        if (k == 2) {
            if (++depth > limit)
                return 1;
        } else if (k == 3) {
            depth--;
        } else if (k == 1) { /* to the closing quote, past escapes */
            while (i < n && u[i] != '"')
                i += u[i] == '\\' ? 2 : 1;
            i++;
        }
    }
    return 0;
}

json_t *jx_u8_array(const uint8_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* Put v in c (under key when c is an object), or free it once c failed;
 * 0 once anything failed. */
static int take(json_t *c, const char *key, json_t *v, int ok)
{
    if (!v || !ok) {
        json_decref(v);
        return 0;
    }
    return (key ? json_object_set_new_nocheck(c, key, v) : json_array_append_new(c, v)) == 0;
}

static json_t *done_or_null(json_t *c, int ok)
{
    if (ok)
        return c;
    json_decref(c);
    return NULL;
}

json_t *jx_obj(int n, ...)
{
    json_t *o = json_object();
    int ok = o != NULL;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *key = va_arg(ap, const char *);
        ok = take(o, key, va_arg(ap, json_t *), ok);
    }
    va_end(ap);
    return done_or_null(o, ok);
}

json_t *jx_arr(int n, ...)
{
    json_t *a = json_array();
    int ok = a != NULL;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        ok = take(a, NULL, va_arg(ap, json_t *), ok);
    va_end(ap);
    return done_or_null(a, ok);
}

json_t *jx_str(const char *s) { return s ? json_string_nocheck(s) : NULL; }

json_t *jx_u16_array(const uint16_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

int jx_header(const json_t *j, const char *game, const char *const *variants, int *variant,
              game_err *e)
{
    const char *s;
    if (jx_object(j, "", e) || jx_string(jx_get(j, "game"), "/game", &s, e))
        return ERR_BAD_MEMBER;
    if (strcmp(s, game) != 0)
        return err_set(e, ERR_BAD_MEMBER, "/game", "expected \"%s\"", game);
    if (jx_string(jx_get(j, "variant"), "/variant", &s, e))
        return ERR_BAD_MEMBER;
    for (int i = 0; variants[i]; i++)
        if (strcmp(s, variants[i]) == 0) {
            *variant = i;
            return 0;
        }
    char list[160] = "";
    for (int i = 0; variants[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                 variants[i]);
    return err_set(e, ERR_BAD_MEMBER, "/variant", "unsupported variant \"%.32s\" (%s)", s, list);
}

json_t *jx_rng_encode(const rng *r)
{
    char s[17], i[17];
    snprintf(s, sizeof s, "%016" PRIx64, r->state);
    snprintf(i, sizeof i, "%016" PRIx64, r->inc);
    return json_pack("{s:s,s:s}", "state", s, "inc", i);
}

int jx_hex64(const char *s, uint64_t *out)
{
    uint64_t x = 0;
    size_t n = strlen(s);
    if (n == 0 || n > 16)
        return -1;
    for (; *s; s++) {
        int d;
        if (*s >= '0' && *s <= '9') d = *s - '0';
        else if (*s >= 'a' && *s <= 'f') d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F') d = *s - 'A' + 10;
        else return -1;
        x = (x << 4) | (uint64_t)d;
    }
    *out = x;
    return 0;
}

int jx_known(const json_t *obj, const char *base, const char *const *known, game_err *e)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        const char *const *a = known;
        while (*a && strcmp(*a, k) != 0)
            a++;
        if (*a)
            continue;
        char p[160], list[160] = "";
        size_t used = 0;
        for (a = known; *a && used < sizeof list; a++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", a == known ? "" : ", ", *a);
        jx_ptr_key(p, sizeof p, base, k);
        return err_set(e, ERR_BAD_MEMBER, p, "unknown member '%.64s' (%s%s)", k,
                       *known ? "known: " : "there are none", list);
    }
    return 0;
}

json_t *jx_bot_key_encode(uint64_t key)
{
    char s[17];
    snprintf(s, sizeof s, "%016" PRIx64, key);
    return json_string(s);
}

int jx_bot_key_decode(const json_t *state, uint64_t *key, game_err *e)
{
    const json_t *k = jx_get(state, "bot_key"), *old = jx_get(state, "bot_rng");
    const char *s;
    rng r;
    if (old && jx_rng_decode(old, "/bot_rng", &r, e))
        return ERR_BAD_MEMBER;
    if (!k && old) {
        *key = rng_mix64(r.state) ^ r.inc;
        return 0;
    }
    if (jx_string(k, "/bot_key", &s, e))
        return ERR_BAD_MEMBER;
    if (jx_hex64(s, key))
        return err_set(e, ERR_BAD_MEMBER, "/bot_key", "expected up to 16 hex digits");
    return 0;
}

int jx_rng_decode(const json_t *v, const char *ptr, rng *r, game_err *e)
{
    char p[192];
    const char *s;
    if (jx_object(v, ptr, e))
        return ERR_BAD_MEMBER;
    jx_ptr_key(p, sizeof p, ptr, "state");
    if (jx_string(jx_get(v, "state"), p, &s, e))
        return ERR_BAD_MEMBER;
    if (jx_hex64(s, &r->state))
        return err_set(e, ERR_BAD_MEMBER, p, "expected up to 16 hex digits");
    jx_ptr_key(p, sizeof p, ptr, "inc");
    if (jx_string(jx_get(v, "inc"), p, &s, e))
        return ERR_BAD_MEMBER;
    if (jx_hex64(s, &r->inc) || !(r->inc & 1))
        return err_set(e, ERR_BAD_MEMBER, p, "expected up to 16 hex digits, odd");
    return 0;
}
