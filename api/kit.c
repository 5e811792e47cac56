/* kit.c: the autograder kit's suites written out (see kit.h).
 *
 * The pytest file is the harness (cli/kit_harness.py, embedded at build
 * time) with its line "SUITE_JSON = None ..." replaced by the suite as a raw
 * triple-quoted string, one case per line. Inside it every escaped quote
 * of the JSON text is written \u0022, so the text holds a double quote only
 * where a JSON string starts or ends and can never close the Python string.
 */
#include "kit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *p;
    size_t n, cap;
    int failed;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static void putf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* JSON text s; in_python: \" written as \u0022 (see the top). */
static void put_text(buf *b, const char *s, int in_python)
{
    if (!in_python) {
        puts_(b, s);
        return;
    }
    for (const char *c = s; *c; c++) {
        if (c[0] == '\\' && c[1]) {
            if (c[1] == '"')
                puts_(b, "\\u0022");
            else
                put(b, c, 2);
            c++;
        } else {
            put(b, c, 1);
        }
    }
}

static void put_json(buf *b, const json_t *v, int in_python)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
    if (!s) {
        b->failed = 1;
        return;
    }
    put_text(b, s, in_python);
    free(s);
}

int kit_format_known(const char *format)
{
    return !format || strcmp(format, "jsonl") == 0 || strcmp(format, "json") == 0 ||
           strcmp(format, "pytest") == 0;
}

static json_t *header(const game_ops *ops, const game_suite *s, uint64_t seed, int n)
{
    json_t *shapes = json_loads(s->shapes, 0, NULL), *clauses = json_array();
    for (int k = 0; k < s->nclauses; k++)
        json_array_append_new(clauses, json_pack("{s:s,s:s}", "id", s->clauses[k].id, "sentence",
                                                 s->clauses[k].sentence));
    return json_pack("{s:s,s:s,s:s,s:s,s:I,s:i,s:o,s:o}", "game", ops->name, "fn", s->fn, "course_name",
                     s->course_name, "variant", s->variant, "seed", (json_int_t)seed, "n", n, "shapes",
                     shapes ? shapes : json_null(), "clauses", clauses);
}

/* The document ({header..., "cases": [one per line]}) into b. */
static int put_document(buf *b, const game_ops *ops, const game_suite *s, uint64_t seed, int n, int in_python,
                        game_err *e)
{
    json_t *h = header(ops, s, seed, n);
    char *hs = json_dumps(h, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(h);
    if (!hs)
        return err_set(e, ERR_INTERNAL, NULL, "out of memory");
    hs[strlen(hs) - 1] = 0; /* the closing brace: the cases follow */
    put_text(b, hs, in_python);
    free(hs);
    puts_(b, ",\"cases\":[\n");
    for (int i = 0; i < n; i++) {
        json_t *c;
        if (game_case(s, seed, i, &c, NULL, e))
            return ERR_INTERNAL;
        put_json(b, c, in_python);
        json_decref(c);
        puts_(b, i + 1 < n ? ",\n" : "\n");
    }
    puts_(b, "]}\n");
    return 0;
}

static int put_stats(buf *b, const game_suite *s, uint64_t seed, int n, game_err *e)
{
    int *count = calloc((size_t)s->nclauses, sizeof *count);
    json_t *answers = json_array(); /* per clause: {answer text: count} */
    if (!count)
        return err_set(e, ERR_INTERNAL, NULL, "out of memory");
    for (int k = 0; k < s->nclauses; k++)
        json_array_append_new(answers, json_object());
    for (int i = 0; i < n; i++) {
        json_t *c;
        int k;
        if (game_case(s, seed, i, &c, &k, e)) {
            free(count);
            json_decref(answers);
            return ERR_INTERNAL;
        }
        count[k]++;
        const json_t *x = json_object_get(c, "expected");
        if (x) {
            char *t = json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY);
            json_t *o = json_array_get(answers, (size_t)k);
            if (t)
                json_object_set_new(o, t, json_integer(json_integer_value(json_object_get(o, t)) + 1));
            free(t);
        }
        json_decref(c);
    }
    int least = n;
    for (int k = 0; k < s->nclauses; k++)
        least = count[k] < least ? count[k] : least;
    putf(b, "%s (%s): %d cases, seed %llu, %d clauses, at least %d cases each\n", s->course_name, s->variant,
         n, (unsigned long long)seed, s->nclauses, least);
    putf(b, "%-40s %6s  %-24s %s\n", "clause", "cases", "answers", "sentence");
    for (int k = 0; k < s->nclauses; k++) {
        char ans[256] = "-";
        size_t used = 0;
        const char *key;
        json_t *v, *per = json_array_get(answers, (size_t)k);
        if (json_object_size(per) > 4)
            snprintf(ans, sizeof ans, "%zu answers", json_object_size(per));
        else
            json_object_foreach(per, key, v)
        {
            int w = snprintf(ans + used, sizeof ans - used, "%s%s:%lld", used ? " " : "", key,
                             (long long)json_integer_value(v));
            if (w < 0 || (size_t)w >= sizeof ans - used)
                break;
            used += (size_t)w;
        }
        putf(b, "%-40s %6d  %-24s %s\n", s->clauses[k].id, count[k], ans, s->clauses[k].sentence);
    }
    free(count);
    json_decref(answers);
    return 0;
}

int kit_render(const game_ops *ops, const game_suite *s, uint64_t seed, int n, const char *format,
               int stats, char **out, size_t *len, const char **media_type, game_err *e)
{
    buf b = {0};
    int rc = 0;
    *out = NULL;
    *len = 0;
    if (!format)
        format = "jsonl";
    if (n < 1 || n > GAME_CASES_MAX)
        return err_set(e, ERR_BAD_QUERY, NULL, "n is 1..%d", GAME_CASES_MAX);
    if (stats) {
        *media_type = "text/plain; charset=utf-8";
        rc = put_stats(&b, s, seed, n, e);
    } else if (strcmp(format, "jsonl") == 0) {
        *media_type = "application/x-ndjson";
        for (int i = 0; i < n && !rc; i++) {
            json_t *c;
            if ((rc = game_case(s, seed, i, &c, NULL, e)))
                break;
            put_json(&b, c, 0);
            puts_(&b, "\n");
            json_decref(c);
        }
    } else if (strcmp(format, "json") == 0) {
        *media_type = "application/json";
        rc = put_document(&b, ops, s, seed, n, 0, e);
    } else {
        static const char marker[] = "\nSUITE_JSON = None";
        const char *h = (const char *)kit_harness_py;
        size_t hn = kit_harness_py_len;
        const char *at = memmem(h, hn, marker, sizeof marker - 1);
        const char *eol = at ? memchr(at + 1, '\n', hn - (size_t)(at + 1 - h)) : NULL;
        if (!eol)
            return err_set(e, ERR_INTERNAL, NULL, "the embedded harness has no SUITE_JSON line");
        *media_type = "text/x-python; charset=utf-8";
        const char *nl = memchr(h, '\n', hn);
        put(&b, h, (size_t)(nl + 1 - h)); /* the #! line */
        putf(&b, "# croupier cases --game %s --fn %s --variant %s --n %d --seed %llu --format pytest\n",
             ops->name, s->fn, s->variant, n, (unsigned long long)seed);
        put(&b, nl + 1, (size_t)(at + 1 - (nl + 1)));
        puts_(&b, "SUITE_JSON = r\"\"\"\n");
        rc = put_document(&b, ops, s, seed, n, 1, e);
        puts_(&b, "\"\"\"");
        put(&b, eol, hn - (size_t)(eol - h));
    }
    if (!rc && b.failed)
        rc = err_set(e, ERR_INTERNAL, NULL, "out of memory");
    if (rc) {
        free(b.p);
        return rc;
    }
    *out = b.p ? b.p : calloc(1, 1);
    *len = b.n;
    return 0;
}
