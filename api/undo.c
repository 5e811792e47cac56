/* undo.c: the marks a take-back (DELETE /games/{id}/plays/{n}, h_games.c)
 * leaves in a game's meta, and how the event streams resume across them
 * (api.h: "Plays taken back"). */
#include <stdlib.h>
#include <string.h>

#include "api.h"

long undo_epoch(const json_t *meta)
{
    return (long)json_integer_value(json_object_get(json_object_get(meta, "undo"), "e"));
}

long undo_resume(const json_t *meta, long n, long epoch)
{
    long now = undo_epoch(meta);
    if (epoch == now)
        return n;
    if (epoch > now) /* a number this game never gave: from the start */
        return 0;
    const json_t *at = json_object_get(json_object_get(meta, "undo"), "at");
    long k = n, oldest = -1;
    size_t i;
    json_t *x;
    json_array_foreach(at, i, x) {
        long e = (long)json_integer_value(json_array_get(x, 0)),
             point = (long)json_integer_value(json_array_get(x, 1));
        if (oldest < 0 || e < oldest)
            oldest = e;
        if (e > epoch && point < k)
            k = point;
    }
    /* the takes after the reader's epoch must all be kept to know where */
    return oldest >= 0 && oldest <= epoch + 1 ? k : 0;
}

int undo_mark(json_t *meta, long keep)
{
    json_t *u = json_object_get(meta, "undo");
    if (!json_is_object(u)) {
        u = json_object();
        if (!u || json_object_set_new(meta, "undo", u))
            return ERR_INTERNAL;
    }
    json_t *at = json_object_get(u, "at");
    if (!json_is_array(at)) {
        at = json_array();
        if (!at || json_object_set_new(u, "at", at))
            return ERR_INTERNAL;
    }
    long e = undo_epoch(meta) + 1;
    if (json_object_set_new(u, "e", json_integer(e)) ||
        json_array_append_new(at, json_pack("[I,I]", (json_int_t)e, (json_int_t)keep)))
        return ERR_INTERNAL;
    while (json_array_size(at) > UNDO_KEPT)
        json_array_remove(at, 0);
    return 0;
}

int undo_id_parse(const char *s, long max, long *pos)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    long n = strtol(s, &end, 10), e = 0;
    if (*end == '.') {
        const char *t = end + 1;
        if (*t < '0' || *t > '9')
            return -1;
        e = strtol(t, &end, 10);
        if (e < 1 || e > 0x7fffffffL)
            return -1;
    }
    if (*end || n < 0 || n > max || n > 0xffffffffL)
        return -1;
    *pos = undo_pos(n, e);
    return 0;
}
