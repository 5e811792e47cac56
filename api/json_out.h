/* json_out.h: compact JSON text of a jansson value, fast.
 *
 * jansson builds, reads and parses every JSON value of the service; this
 * only writes one out. It writes exactly what jansson 2.14's
 * json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY) writes
 * (proven byte for byte by tests/unit/test_json_out.c over every game's
 * views, records and events and over generated values), at a fifth of the
 * cost: json_dumps guards every array and object against reference cycles
 * with an snprintf("%p") and a hash-table insert and delete, and formats
 * every integer with snprintf; a view of a long game is hundreds of small
 * arrays (a Phazed turn_history: 2 KB, 59 us in json_dumps, 11 us here).
 * Values built by the server have no cycles; a value nested deeper than
 * JSON_OUT_MAX_DEPTH, or a string that is not UTF-8 (jansson's _nocheck
 * constructors), is handed to json_dumps itself, which answers as it would
 * have (NULL for a cycle or invalid UTF-8).
 */
#ifndef CROUPIER_JSON_OUT_H
#define CROUPIER_JSON_OUT_H

#include <jansson.h>
#include <stddef.h>

enum { JSON_OUT_MAX_DEPTH = 64 };

/* The text of j (not consumed), NUL-terminated, malloc'ed (caller frees);
 * *len (may be NULL) its length. NULL when json_dumps would give NULL or on
 * out of memory. */
char *json_out(const json_t *j, size_t *len);
/* The same of the object obj without its member key (a record without its
 * explanation, which is stored beside it): as json_out of a copy of obj
 * with the member deleted, without making the copy. */
char *json_out_without(const json_t *obj, const char *key, size_t *len);

/* The same of the object obj with the value of its member key replaced by
 * the JSON text text[0..text_len) (a game's view written as text, core/jw.h):
 * as json_out of a copy of obj whose member is that text parsed (added
 * last if obj has none), without making the copy or parsing the text.
 * NULL when obj is not an object. */
char *json_out_spliced(const json_t *obj, const char *key, const char *text, size_t text_len,
                       size_t *len);

#endif
