/* jw.c: compact JSON text written value by value (jw.h says why). */
#include "jw.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void jw_init(jw *w) { memset(w, 0, sizeof *w); }

int jw_grow(jw *w, size_t more)
{
    if (w->failed)
        return -1;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->n + more)
        cap *= 2;
    char *q = realloc(w->p, cap);
    if (!q) {
        w->failed = 1;
        return -1;
    }
    w->p = q;
    w->cap = cap;
    return 0;
}

/* Before a value: the comma after the container's last one (unless
 * written already: jw_key, jw_mark); in an object a value must follow its
 * name. */
static void value(jw *w)
{
    if (w->pending) {
        w->pending = 0;
        return;
    }
    if ((w->depth > 0 && (w->more[w->depth - 1] & 0x7f) == '{') || (w->depth == 0 && w->n > 0)) {
        w->failed = 1; /* a member without a name, a second value at the top */
        return;
    }
    if (w->depth > 0) {
        if (w->more[w->depth - 1] & 0x80)
            jw_putc(w, ',');
        w->more[w->depth - 1] |= 0x80;
    }
}

/* more[d]: the container's opening byte, with 0x80 once it holds a value */
static void open_container(jw *w, char c)
{
    value(w);
    if (w->depth == JW_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    w->more[w->depth++] = (unsigned char)c;
    jw_putc(w, c);
}

void jw_obj(jw *w) { open_container(w, '{'); }
void jw_arr(jw *w) { open_container(w, '['); }

void jw_end(jw *w)
{
    if (w->depth == 0 || w->pending) {
        w->failed = 1;
        return;
    }
    jw_putc(w, (char)(w->more[--w->depth] & 0x7f) == '{' ? '}' : ']');
}

/* The bytes a string holds as they are: printable ASCII but '"' and '\\'. */
static const unsigned char PLAIN[256] = {
    [' '] = 1, ['!'] = 1, ['#' ... '['] = 1, [']' ... '~'] = 1,
};

/* A string's JSON text, quotes included: copied as it is checked, or, if a
 * byte needs escaping, jansson's. */
static void string(jw *w, const char *s, size_t n)
{
    if (jw_room(w, n + 2))
        return;
    char *d = w->p + w->n;
    *d++ = '"';
    size_t i = 0;
    while (i < n && PLAIN[(unsigned char)s[i]]) {
        d[i] = s[i];
        i++;
    }
    if (i == n) {
        d[n] = '"';
        w->n += n + 2;
        return;
    }
    json_t *j = json_stringn(s, n); /* NULL when not UTF-8: json_dumps refuses it too */
    size_t flags = JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY;
    size_t need = j ? json_dumpb(j, NULL, 0, flags) : 0;
    if (!need || jw_room(w, need)) {
        w->failed = 1;
    } else {
        json_dumpb(j, w->p + w->n, need, flags);
        w->n += need;
    }
    json_decref(j);
}

void jw_key(jw *w, const char *name)
{
    if (w->pending || w->depth == 0 || (w->more[w->depth - 1] & 0x7f) != '{') {
        w->failed = 1;
        return;
    }
    if (w->more[w->depth - 1] & 0x80)
        jw_putc(w, ',');
    w->more[w->depth - 1] |= 0x80;
    string(w, name, strlen(name));
    jw_putc(w, ':');
    w->pending = 1;
}

void jw_put_int(jw *w, long long v)
{
    char t[24];
    int i = (int)sizeof t;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        t[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        t[--i] = '-';
    jw_put(w, t + i, sizeof t - (size_t)i);
}

void jw_int(jw *w, long long v)
{
    value(w);
    jw_put_int(w, v);
}

void jw_strn(jw *w, const char *s, size_t n)
{
    value(w);
    string(w, s, n);
}

void jw_str(jw *w, const char *s) { jw_strn(w, s, strlen(s)); }

void jw_bool(jw *w, int v)
{
    value(w);
    jw_put(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(jw *w)
{
    value(w);
    jw_put(w, "null", 4);
}

size_t jw_mark(jw *w)
{
    value(w);
    w->pending = 1;
    return w->n;
}

size_t jw_at(const jw *w) { return w->n; }

void jw_copy(jw *w, size_t from, size_t to)
{
    value(w);
    if (from > to || to > w->n || jw_room(w, to - from)) {
        w->failed = 1;
        return;
    }
    memmove(w->p + w->n, w->p + from, to - from); /* the buffer may have moved: offsets */
    w->n += to - from;
}

char *jw_take(jw *w, size_t *len)
{
    char *p = NULL;
    if (!w->failed && w->depth == 0 && !w->pending && w->n > 0 && jw_room(w, 1) == 0) {
        w->p[w->n] = 0;
        p = w->p;
        if (len)
            *len = w->n;
    } else {
        free(w->p);
    }
    jw_init(w);
    return p;
}
