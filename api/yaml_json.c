/* yaml_json.c: the OpenAPI document as JSON (/openapi.json), converted from
 * openapi.yaml with libyaml. Plain scalars follow YAML 1.2's core schema
 * (null, booleans, integers, floats); quoted scalars stay strings. Aliases
 * are resolved by libyaml's document loader; depth is bounded. */
#include "yaml_json.h"
#include "json_arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static json_t *scalar(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return json_stringn(s, n->data.scalar.length);
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
    return json_stringn(s, n->data.scalar.length);
}

static json_t *node(yaml_document_t *doc, yaml_node_t *n, int depth)
{
    if (!n || depth > 64)
        return NULL;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return scalar(n);
    case YAML_SEQUENCE_NODE: {
        json_t *a = json_array();
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            json_t *v = node(doc, yaml_document_get_node(doc, *it), depth + 1);
            if (!v) {
                json_decref(a);
                return NULL;
            }
            json_array_append_new(a, v);
        }
        return a;
    }
    case YAML_MAPPING_NODE: {
        json_t *o = json_object();
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            json_t *v = node(doc, yaml_document_get_node(doc, p->value), depth + 1);
            if (!k || k->type != YAML_SCALAR_NODE || !v) {
                json_decref(v);
                json_decref(o);
                return NULL;
            }
            json_object_set_new(o, (const char *)k->data.scalar.value, v);
        }
        return o;
    }
    default:
        return NULL;
    }
}

char *yaml_file_to_json(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    yaml_parser_t parser;
    yaml_document_t doc;
    char *out = NULL;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return NULL;
    }
    yaml_parser_set_input_file(&parser, f);
    if (yaml_parser_load(&parser, &doc)) {
        json_t *j = node(&doc, yaml_document_get_root_node(&doc), 0);
        if (j)
            out = json_text(j, JSON_COMPACT | JSON_ENSURE_ASCII);
        json_decref(j);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    if (out)
        *len = strlen(out);
    return out;
}
