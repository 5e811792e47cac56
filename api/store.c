/* store.c: pick a store implementation from its URL. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

int store_open(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    if (strncmp(url, "sqlite:", 7) == 0) {
        const char *path = url + 7;
        if (strncmp(path, "//", 2) == 0) /* sqlite:///abs/path */
            path += 2;
        if (!*path) {
            snprintf(err, errlen, "sqlite store needs a path: sqlite:PATH");
            return ERR_STORE;
        }
        return store_sqlite_open(out, path, err, errlen);
    }
    if (strncmp(url, "postgres://", 11) == 0 || strncmp(url, "postgresql://", 13) == 0)
        return store_pg_open(out, url, err, errlen);
    snprintf(err, errlen,
             "unsupported store URL '%s' (expected sqlite:PATH or postgres://...)", url);
    return ERR_STORE;
}

void store_row_free(store_row *row)
{
    free(row->meta);
    free(row->origin);
    free(row->snap);
    row->meta = row->origin = NULL;
    row->snap = NULL;
    row->snap_len = 0;
}

void store_plays_free(store_play *p, int k)
{
    for (int i = 0; p && i < k; i++) {
        free(p[i].bot);
        free(p[i].play);
        free(p[i].record);
        free(p[i].explanation);
    }
    free(p);
}

void store_idem_free(store_idem *k)
{
    free(k->answer);
    k->answer = NULL;
    k->answer_len = 0;
}
