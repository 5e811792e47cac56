/* json_out.c: compact, ASCII-only JSON text of a jansson value (json_out.h
 * says why it exists and what it promises: json_dumps's exact bytes).
 *
 * One buffer grows by doubling; a write that fails (out of memory, a depth
 * beyond JSON_OUT_MAX_DEPTH, bytes that are not UTF-8) marks it failed and
 * json_out() then asks json_dumps for the answer.
 */
#include "json_out.h"
#include "json_arena.h"
#include "core/jw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A value held in several places of one answer (a refcount above 1: the
 * Hanabi view shares each distinct set of card marks among the cards) is
 * written once; its later places copy those bytes (the same value gives the
 * same text; a copy does not recurse, so the depth limit, there for the
 * stack, does not apply to it). The first SHARED_MEMO such values of an
 * answer are kept. */
enum { SHARED_MEMO = 16 };

typedef struct outbuf {
    jw w; /* its buffer only (core/jw.h) */
    int nshared;
    struct {
        const json_t *j;
        size_t at, len;
    } shared[SHARED_MEMO];
} outbuf;

static void put_u16(outbuf *b, unsigned cp)
{
    static const char hex[] = "0123456789ABCDEF"; /* as jansson writes them */
    char e[6] = {'\\', 'u', hex[(cp >> 12) & 15], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15]};
    jw_put(&b->w, e, sizeof e);
}

/* The code point of the UTF-8 sequence at s[0..n) (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF); *len its bytes; -1 if invalid. */
static long utf8_at(const unsigned char *s, size_t n, int *len)
{
    unsigned c = s[0];
    int k = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!k || (size_t)k > n)
        return -1;
    unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (s[1] < lo || s[1] > hi)
        return -1;
    long cp = (long)(c & (k == 2 ? 0x1F : k == 3 ? 0x0F : 0x07));
    for (int i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = k;
    return cp;
}

/* Whether any of the eight bytes of w is a control (< 0x20), '"', '\\' or
 * not ASCII (the classic "has a byte less than / equal to" bit tricks). */
static inline int needs_care(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');
    uint64_t t = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((bs - ones) & ~bs) | w;
    return (t & high) != 0;
}

/* A string as jansson writes it with JSON_ENSURE_ASCII: \" \\ \b \f \n \r
 * \t, other controls and every non-ASCII code point as \u escapes (UTF-16
 * surrogate pairs beyond U+FFFF), '/' as is. */
static void put_string(outbuf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    /* most strings need no escape: copied as they are scanned */
    if (jw_room(&b->w, n + 2))
        return;
    char *d = b->w.p + b->w.n;
    *d++ = '"';
    size_t i = 0;
    while (i + 8 <= n) { /* eight bytes at a time while none needs care */
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (needs_care(w))
            break;
        memcpy(d + i, &w, 8);
        i += 8;
    }
    while (i < n && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' && s[i] < 0x80) {
        d[i] = (char)s[i];
        i++;
    }
    if (i == n) {
        d[n] = '"';
        b->w.n += n + 2;
        return;
    }
    b->w.n += 1 + i;
    while (i < n && !b->w.failed) {
        size_t j = i;
        while (j < n && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' && s[j] < 0x80)
            j++;
        if (j > i)
            jw_put(&b->w, str + i, j - i);
        if (j >= n)
            break;
        unsigned c = s[j];
        if (c < 0x80) {
            const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                            : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
            if (esc)
                jw_put(&b->w, esc, 2);
            else
                put_u16(b, c);
            i = j + 1;
            continue;
        }
        int len = 0;
        long cp = utf8_at(s + j, n - j, &len);
        if (cp < 0) {
            b->w.failed = 1; /* not UTF-8: json_dumps refuses it */
            return;
        }
        if (cp >= 0x10000) {
            long v = cp - 0x10000;
            put_u16(b, 0xD800u | (unsigned)(v >> 10));
            put_u16(b, 0xDC00u | (unsigned)(v & 0x3FF));
        } else {
            put_u16(b, (unsigned)cp);
        }
        i = j + (size_t)len;
    }
    jw_putc(&b->w, '"');
}

static void put_value(outbuf *b, const json_t *j, int depth);

/* An object's members in order, but for the member named skip (if any):
 * left out, or with the text raw[0..raw_len) as its value when raw is not
 * NULL. */
static void put_object(outbuf *b, const json_t *j, int depth, const char *skip, const char *raw,
                       size_t raw_len)
{
    size_t skip_len = skip ? strlen(skip) : 0;
    jw_putc(&b->w, '{');
    int first = 1;
    for (void *it = json_object_iter((json_t *)j); it && !b->w.failed;
         it = json_object_iter_next((json_t *)j, it)) {
        const char *key = json_object_iter_key(it);
        size_t key_len = json_object_iter_key_len(it);
        int skipped = skip && key_len == skip_len && memcmp(key, skip, key_len) == 0;
        if (skipped && !raw)
            continue;
        if (!first)
            jw_putc(&b->w, ',');
        first = 0;
        put_string(b, key, key_len);
        jw_putc(&b->w, ':');
        if (skipped)
            jw_put(&b->w, raw, raw_len);
        else
            put_value(b, json_object_iter_value(it), depth + 1);
    }
    jw_putc(&b->w, '}');
}

static void put_plain(outbuf *b, const json_t *j, int depth);

static void put_value(outbuf *b, const json_t *j, int depth)
{
    if (b->w.failed)
        return;
    if (depth > JSON_OUT_MAX_DEPTH) {
        b->w.failed = 1;
        return;
    }
    if (j->refcount > 1 && (json_is_object(j) || json_is_array(j))) {
        for (int i = 0; i < b->nshared; i++)
            if (b->shared[i].j == j) {
                size_t at = b->shared[i].at, len = b->shared[i].len;
                if (jw_room(&b->w, len) == 0) { /* offsets: room() may move the buffer */
                    memcpy(b->w.p + b->w.n, b->w.p + at, len);
                    b->w.n += len;
                }
                return;
            }
        size_t at = b->w.n;
        put_plain(b, j, depth);
        if (!b->w.failed && b->nshared < SHARED_MEMO) {
            b->shared[b->nshared].j = j;
            b->shared[b->nshared].at = at;
            b->shared[b->nshared].len = b->w.n - at;
            b->nshared++;
        }
        return;
    }
    put_plain(b, j, depth);
}

/* Any value, written out in full. */
static void put_plain(outbuf *b, const json_t *j, int depth)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        put_object(b, j, depth, NULL, NULL, 0);
        break;
    case JSON_ARRAY: {
        jw_putc(&b->w, '[');
        size_t n = json_array_size(j);
        for (size_t i = 0; i < n && !b->w.failed; i++) {
            if (i)
                jw_putc(&b->w, ',');
            put_value(b, json_array_get(j, i), depth + 1);
        }
        jw_putc(&b->w, ']');
        break;
    }
    case JSON_STRING:
        put_string(b, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER:
        jw_put_int(&b->w, json_integer_value(j));
        break;
    case JSON_REAL: { /* rare in our answers: jansson's own formatting */
        char *t = json_text(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
        if (!t) {
            b->w.failed = 1;
            return;
        }
        jw_put(&b->w, t, strlen(t));
        free(t);
        break;
    }
    case JSON_TRUE:
        jw_put(&b->w, "true", 4);
        break;
    case JSON_FALSE:
        jw_put(&b->w, "false", 5);
        break;
    case JSON_NULL:
        jw_put(&b->w, "null", 4);
        break;
    }
}

/* The text; a large buffer cut to size. Records are stored many to a
 * request (a bot game's hundreds): the buffer starts small (256 bytes) so
 * that none holds much slack; cutting every buffer would cost an extra
 * realloc per answer, each a turn on glibc's arena lock. */
static char *finish(outbuf *b, size_t *len)
{
    if (len)
        *len = b->w.n - 1;
    if (b->w.cap - b->w.n > 4096) {
        char *q = realloc(b->w.p, b->w.n);
        if (q)
            b->w.p = q;
    }
    return b->w.p;
}

char *json_out_without(const json_t *obj, const char *key, size_t *len)
{
    if (!json_is_object(obj))
        return json_out(obj, len);
    outbuf b = {0};
    put_object(&b, obj, 0, key, NULL, 0);
    jw_put(&b.w, "", 1);
    if (b.w.failed) { /* json_dumps's answer, of a copy without the member */
        free(b.w.p);
        json_t *c = json_copy((json_t *)obj);
        json_object_deln(c, key, strlen(key));
        char *t = json_out(c, len);
        json_decref(c);
        return t;
    }
    return finish(&b, len);
}

char *json_out_spliced(const json_t *obj, const char *key, const char *text, size_t text_len,
                       size_t *len)
{
    if (!json_is_object(obj))
        return NULL;
    outbuf b = {0};
    if (json_object_get(obj, key)) {
        put_object(&b, obj, 0, key, text, text_len);
        jw_put(&b.w, "", 1);
        if (!b.w.failed)
            return finish(&b, len);
    }
    free(b.w.p);
    /* json_dumps's answer, of a copy (keys with their lengths) whose member
     * is the text parsed, placed last when obj has no such member */
    json_t *c = json_object(), *v = json_loadb(text, text_len, JSON_DECODE_ANY, NULL);
    char *t = NULL;
    if (c && v) {
        const char *k;
        size_t klen, want = strlen(key);
        json_t *x;
        int placed = 0;
        json_object_keylen_foreach((json_t *)obj, k, klen, x) {
            int it = klen == want && memcmp(k, key, klen) == 0;
            json_object_setn(c, k, klen, it ? v : x);
            placed |= it;
        }
        if (!placed)
            json_object_set(c, key, v);
        t = json_out(c, len);
    }
    json_decref(v);
    json_decref(c);
    return t;
}

char *json_out(const json_t *j, size_t *len)
{
    if (!j)
        return NULL;
    outbuf b = {0};
    put_value(&b, j, 0);
    jw_put(&b.w, "", 1);
    if (b.w.failed) {
        free(b.w.p);
        char *t = json_text(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
        if (t && len)
            *len = strlen(t);
        return t;
    }
    return finish(&b, len);
}
