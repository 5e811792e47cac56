/* jw.h: compact JSON text written straight from a game's state.
 *
 * A game's view is most of what a stored play answers, and building it as
 * a jansson tree to write it out at once cost more than the rest of the
 * request but SQLite (a Hanabi view: some 300 values, 59k instructions to
 * build, 40k more to write; callgrind, docs/benchmarks.md). A game may
 * write its view with these calls instead (game_ops.view_text); the text
 * is the bytes jansson's json_dumps(JSON_COMPACT | JSON_ENSURE_ASCII)
 * gives for the same value, which tests/unit/test_jw.c checks, and the
 * game's json_t view is that text parsed back by jansson, so there is one
 * view, not two.
 *
 * Strings of printable ASCII are copied; any other string is handed to
 * jansson's own writer (json_dumps of a json_string), so no escaping is
 * written here. Containers nest at most JW_MAX_DEPTH deep. Any failure
 * (out of memory, too deep, a string that is not UTF-8, a call out of
 * order) makes jw_take() answer NULL, and so does a writer given nothing.
 */
#ifndef CROUPIER_JW_H
#define CROUPIER_JW_H

#include <stddef.h>
#include <string.h>

enum { JW_MAX_DEPTH = 16 };

typedef struct jw {
    char *p;
    size_t n, cap;
    int failed;
    int depth;
    int pending;                      /* a value must come next, its separator
                                         (or its member's name) written */
    unsigned char more[JW_MAX_DEPTH]; /* the container holds a value already */
} jw;

/* The buffer under the writer, also for writers of their own built on it
 * (api/json_out.c): jw_grow makes room for `more` bytes past n (doubling,
 * from 256): 0, or -1 out of memory (the writer has failed then); bytes
 * put after a failure are never taken. */
int jw_grow(jw *w, size_t more);
static inline int jw_room(jw *w, size_t more) { return w->n + more <= w->cap ? 0 : jw_grow(w, more); }
static inline void jw_put(jw *w, const char *s, size_t n)
{
    if (jw_room(w, n) == 0) {
        memcpy(w->p + w->n, s, n);
        w->n += n;
    }
}
static inline void jw_putc(jw *w, char c)
{
    if (jw_room(w, 1) == 0)
        w->p[w->n++] = c;
}

/* An integer's digits, as raw bytes. */
void jw_put_int(jw *w, long long v);

/* An empty writer (no memory held yet). */
void jw_init(jw *w);
/* The text (NUL-terminated, malloc'ed, the caller frees) and *len (may be
 * NULL); NULL after any failure, with a container left open or nothing
 * written. The writer is empty again either way. */
char *jw_take(jw *w, size_t *len);

void jw_obj(jw *w);           /* { */
void jw_arr(jw *w);           /* [ */
void jw_end(jw *w);           /* } or ], whichever is open */
void jw_key(jw *w, const char *name); /* "name": in an object */
void jw_int(jw *w, long long v);
void jw_str(jw *w, const char *s);
void jw_strn(jw *w, const char *s, size_t n);
void jw_bool(jw *w, int v);
void jw_null(jw *w);
/* With jw_copy, a value written once is written again as the same bytes
 * (a view's cards share their marks): from = jw_mark(w) (the separator
 * before the value written, the value to come next), the value, then
 * to = jw_at(w). */
size_t jw_mark(jw *w);
size_t jw_at(const jw *w);
/* A value: the bytes [from, to) of one whole value this writer wrote
 * earlier, between jw_mark and jw_at. */
void jw_copy(jw *w, size_t from, size_t to);

#endif
