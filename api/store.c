/* store.c: pick a store implementation from its URL. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

/* The path of a sqlite: URL (sqlite:PATH or sqlite:///abs/path), or NULL. */
static const char *sqlite_path(const char *url)
{
    if (strncmp(url, "sqlite:", 7) != 0)
        return NULL;
    const char *path = url + 7;
    if (strncmp(path, "//", 2) == 0) /* sqlite:///abs/path */
        path += 2;
    return path;
}

static int is_pg(const char *url)
{
    return strncmp(url, "postgres://", 11) == 0 || strncmp(url, "postgresql://", 13) == 0;
}

int store_open(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    const char *path = sqlite_path(url);
    if (path) {
        if (!*path) {
            snprintf(err, errlen, "sqlite store needs a path: sqlite:PATH");
            return ERR_STORE;
        }
        return store_sqlite_open(out, path, err, errlen);
    }
    if (is_pg(url))
        return store_pg_open(out, url, err, errlen);
    snprintf(err, errlen,
             "unsupported store URL '%s' (expected sqlite:PATH or postgres://...)", url);
    return ERR_STORE;
}

int store_backup(const char *url, const char *file, store_backup_info *info, char *err,
                 size_t errlen)
{
    const char *path = sqlite_path(url);
    if (path && *path)
        return store_sqlite_backup(path, file, info, err, errlen);
    if (is_pg(url))
        snprintf(err, errlen,
                 "a PostgreSQL store is backed up with PostgreSQL's own tool, which reads one "
                 "consistent snapshot while the servers run: pg_dump --format=custom "
                 "--file=FILE 'URL' (restore: pg_restore --dbname=URL FILE; "
                 "docs/operations.md)");
    else
        snprintf(err, errlen, "unsupported store URL '%s' (expected sqlite:PATH)", url);
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
