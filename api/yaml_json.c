/* yaml_json.c: the OpenAPI document as JSON (/openapi.json, and the check of
 * --openapi at start), converted from openapi.yaml with libyaml. Plain
 * scalars follow YAML 1.2's core schema (null, booleans, integers, floats);
 * quoted scalars stay strings.
 *
 * The file is an operator's, but it is read as input all the same: libyaml's
 * document loader builds the whole tree before we could look at it (a
 * 10^5-deep file took 50 s of CPU) and an alias is a reference, so a "billion
 * laughs" file of a few hundred bytes expands to gigabytes of JSON. So the
 * document is built here from libyaml's events, with bounds checked as the
 * events come: YAML_MAX_BYTES of file, YAML_MAX_DEPTH levels (the parse
 * stops at the first level past it), YAML_MAX_ANCHORS anchors, and
 * YAML_MAX_NODES nodes as the JSON would hold them, aliases expanded (an
 * alias counts every node of what it names). An alias shares the anchored
 * value (jansson counts references); it can only name a node that is
 * complete, so the tree has no cycle. */
#include "yaml_json.h"
#include "json_arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

enum {
    YAML_MAX_BYTES = 4 << 20, /* as /openapi.yaml serves it (h_service.c) */
    YAML_MAX_DEPTH = 64,
    YAML_MAX_ANCHORS = 1024,
    YAML_MAX_NODES = 1000000, /* the project's own document: about 30,000 */
};

static json_t *scalar(const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return json_stringn(s, len);
    if (!*s || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL") || !strcmp(s, "~"))
        return json_null();
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        return json_true();
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        return json_false();
    char *end;
    errno = 0;
    long long i = strtoll(s, &end, 10);
    if (!*end && end != s && !errno && (s[0] != '0' || s[1] == 0) &&
        !(s[0] == '-' && s[1] == '0' && s[2]))
        return json_integer(i);
    double d = strtod(s, &end);
    if (!*end && end != s && strspn(s, "+-.0123456789eE") == strlen(s))
        return json_real(d);
    return json_stringn(s, len);
}

/* An open sequence or mapping; `key` a mapping's key waiting for its value. */
typedef struct frame {
    json_t *v;
    char *key;
    char *anchor;
    long nodes; /* nodes inside it so far, itself included */
} frame;

typedef struct anchor {
    char *name;
    json_t *v;
    long nodes;
} anchor;

typedef struct builder {
    frame stack[YAML_MAX_DEPTH + 1];
    int depth;
    anchor *anchors;
    int nanchors;
    long nodes;
    json_t *root;
    char *why;
    size_t whylen;
} builder;

static int fail(builder *b, const char *fmt, const yaml_event_t *ev)
{
    snprintf(b->why, b->whylen, fmt, ev ? (unsigned long)ev->start_mark.line + 1 : 0UL);
    return -1;
}

static int remember(builder *b, const char *name, json_t *v, long nodes, const yaml_event_t *ev)
{
    if (!name)
        return 0;
    if (b->nanchors == YAML_MAX_ANCHORS)
        return fail(b, "more than 1024 anchors (line %lu)", ev);
    if (b->nanchors % 64 == 0) {
        anchor *a = realloc(b->anchors, (size_t)(b->nanchors + 64) * sizeof *a);
        if (!a)
            return fail(b, "out of memory (line %lu)", ev);
        b->anchors = a;
    }
    /* a later anchor of the same name wins (YAML 1.2: the most recent one) */
    anchor *a = &b->anchors[b->nanchors++];
    a->name = strdup(name);
    a->v = json_incref(v);
    a->nodes = nodes;
    return a->name ? 0 : fail(b, "out of memory (line %lu)", ev);
}

/* Put v (taken), worth `nodes`, where the open frame wants it. */
static int attach(builder *b, json_t *v, long nodes, const yaml_event_t *ev)
{
    if (!v)
        return fail(b, "out of memory (line %lu)", ev);
    b->nodes += nodes;
    if (b->nodes > YAML_MAX_NODES) {
        json_decref(v);
        return fail(b, "more than 1,000,000 nodes once its aliases are expanded (line %lu)", ev);
    }
    if (b->depth == 0) {
        json_decref(b->root);
        b->root = v;
        return 0;
    }
    frame *f = &b->stack[b->depth - 1];
    f->nodes += nodes;
    int rc = json_is_array(f->v) ? json_array_append_new(f->v, v)
                                 : json_object_set_new(f->v, f->key, v);
    free(f->key);
    f->key = NULL;
    return rc ? fail(b, "a key that is not UTF-8, or out of memory (line %lu)", ev) : 0;
}

static int on_event(builder *b, const yaml_event_t *ev)
{
    frame *top = b->depth ? &b->stack[b->depth - 1] : NULL;
    int wants_key = top && json_is_object(top->v) && !top->key;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        if (wants_key) { /* a key is its text, whatever it would read as */
            top->key = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
            return top->key ? 0 : fail(b, "out of memory (line %lu)", ev);
        } else {
            json_t *v = scalar(ev);
            if (remember(b, (const char *)ev->data.scalar.anchor, v, 1, ev)) {
                json_decref(v);
                return -1;
            }
            return attach(b, v, 1, ev);
        }
    case YAML_ALIAS_EVENT:
        if (wants_key)
            return fail(b, "a key that is an alias (line %lu)", ev);
        for (int i = b->nanchors - 1; i >= 0; i--)
            if (strcmp(b->anchors[i].name, (const char *)ev->data.alias.anchor) == 0)
                return attach(b, json_incref(b->anchors[i].v), b->anchors[i].nodes, ev);
        return fail(b, "an alias of no complete anchor (line %lu)", ev);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (wants_key)
            return fail(b, "a key that is not a scalar (line %lu)", ev);
        if (b->depth == YAML_MAX_DEPTH)
            return fail(b, "nested deeper than 64 levels (line %lu)", ev);
        const yaml_char_t *name = ev->type == YAML_SEQUENCE_START_EVENT
                                      ? ev->data.sequence_start.anchor
                                      : ev->data.mapping_start.anchor;
        frame *f = &b->stack[b->depth];
        memset(f, 0, sizeof *f);
        f->v = ev->type == YAML_SEQUENCE_START_EVENT ? json_array() : json_object();
        f->anchor = name ? strdup((const char *)name) : NULL;
        f->nodes = 1;
        if (!f->v || (name && !f->anchor)) {
            json_decref(f->v);
            free(f->anchor);
            return fail(b, "out of memory (line %lu)", ev);
        }
        b->depth++;
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        frame f = b->stack[--b->depth];
        free(f.key);
        int rc = remember(b, f.anchor, f.v, f.nodes, ev);
        free(f.anchor);
        if (rc) {
            json_decref(f.v);
            return -1;
        }
        return attach(b, f.v, f.nodes, ev);
    }
    default: /* stream and document starts and ends */
        return 0;
    }
}

static void builder_free(builder *b)
{
    while (b->depth > 0) {
        frame *f = &b->stack[--b->depth];
        json_decref(f->v);
        free(f->key);
        free(f->anchor);
    }
    for (int i = 0; i < b->nanchors; i++) {
        free(b->anchors[i].name);
        json_decref(b->anchors[i].v);
    }
    free(b->anchors);
    json_decref(b->root);
}

char *yaml_file_to_json(const char *path, size_t *len, char *why, size_t whylen)
{
    char ignored[8];
    if (!why || !whylen) {
        why = ignored;
        whylen = sizeof ignored;
    }
    why[0] = 0;
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    if (sb.st_size > YAML_MAX_BYTES) {
        snprintf(why, whylen, "larger than 4 MiB");
        fclose(f);
        return NULL;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(why, whylen, "out of memory");
        fclose(f);
        return NULL;
    }
    yaml_parser_set_input_file(&parser, f);
    builder b = {.why = why, .whylen = whylen};
    int rc = 0, docs = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            snprintf(why, whylen, "not YAML: %s (line %lu)",
                     parser.problem ? parser.problem : "unreadable",
                     (unsigned long)parser.problem_mark.line + 1);
            rc = -1;
            break;
        }
        int end = ev.type == YAML_STREAM_END_EVENT;
        if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1)
            rc = fail(&b, "more than one document (line %lu)", &ev);
        else
            rc = on_event(&b, &ev);
        yaml_event_delete(&ev);
        if (rc || end)
            break;
    }
    char *out = NULL;
    if (!rc && b.root) {
        out = json_text(b.root, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (!out)
            snprintf(why, whylen, "out of memory");
    } else if (!rc) {
        snprintf(why, whylen, "empty");
    }
    builder_free(&b);
    yaml_parser_delete(&parser);
    fclose(f);
    if (out)
        *len = strlen(out);
    return out;
}
