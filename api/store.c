/* store.c: pick a store back end from its URL.
 *
 * The back ends are rows of one table, as SQLite's VFS are: each row
 * (store_backend, store.h) names the URL schemes it serves and how it opens
 * and backs up a store; store_open() and store_backup() walk the table and
 * hand the URL to the first row whose scheme it starts with. A new back end
 * is a file that defines its row and one line here. The back ends know
 * nothing of this file (what they share is in store_rows.c).
 */
#include "store.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"

static const store_backend *const BACKENDS[] = {&store_sqlite_backend, &store_pg_backend};
enum { NBACKENDS = sizeof BACKENDS / sizeof BACKENDS[0] };

/* The row whose scheme `url` starts with, or NULL (err says which forms
 * there are). */
static const store_backend *backend_of(const char *url, char *err, size_t errlen)
{
    for (int i = 0; i < NBACKENDS; i++)
        for (const char *const *s = BACKENDS[i]->schemes; *s; s++)
            if (strncmp(url, *s, strlen(*s)) == 0)
                return BACKENDS[i];
    int k = snprintf(err, errlen, "unsupported store URL '%s' (expected", url);
    for (int i = 0; i < NBACKENDS && k >= 0 && (size_t)k < errlen; i++)
        k += snprintf(err + k, errlen - (size_t)k, "%s %s", i ? " or" : "", BACKENDS[i]->usage);
    if (k >= 0 && (size_t)k < errlen)
        snprintf(err + k, errlen - (size_t)k, ")");
    return NULL;
}

int store_open(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    const store_backend *b = backend_of(url, err, errlen);
    return b ? b->open(out, url, err, errlen) : ERR_STORE;
}

int store_backup(const char *url, const char *file, store_backup_info *info, char *err,
                 size_t errlen)
{
    const store_backend *b = backend_of(url, err, errlen);
    if (!b)
        return ERR_STORE;
    if (!b->backup) {
        snprintf(err, errlen, "%s", b->no_backup);
        return ERR_STORE;
    }
    return b->backup(url, file, info, err, errlen);
}
