/* store_sqlite.c: the embedded default store (one SQLite file, WAL).
 *
 * A small pool of connections, one per concurrent request at most, so that
 * readers never wait for each other (WAL) and writers wait on SQLite's busy
 * timeout rather than on our lock. The compare-and-swap is a single UPDATE
 * ... WHERE version = ?; SQLite's write lock makes it atomic across threads
 * and processes sharing the file.
 */
#include "store.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"

enum { POOL_MAX = 32 };

typedef struct sqlite_store {
    store base;
    char *path;
    pthread_mutex_t mu;
    sqlite3 *idle[POOL_MAX];
    int nidle;
} sqlite_store;

static const char *SCHEMA =
    "CREATE TABLE IF NOT EXISTS games ("
    " id TEXT PRIMARY KEY,"
    " game TEXT NOT NULL,"
    " version INTEGER NOT NULL,"
    " meta TEXT NOT NULL,"
    " state TEXT NOT NULL,"
    " created_at INTEGER NOT NULL,"
    " updated_at INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS notes ("
    " game_id TEXT NOT NULL,"
    " n INTEGER NOT NULL,"
    " text TEXT NOT NULL,"
    " PRIMARY KEY (game_id, n))";

static sqlite3 *conn_new(const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        if (err)
            snprintf(err, errlen, "sqlite open %s: %s", path,
                     db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    if (sqlite3_exec(db,
                     "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                     "PRAGMA foreign_keys=ON;",
                     NULL, NULL, &msg) != SQLITE_OK) {
        if (err)
            snprintf(err, errlen, "sqlite %s: %s", path, msg ? msg : "pragma failed");
        sqlite3_free(msg);
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

static sqlite3 *conn_take(sqlite_store *s)
{
    sqlite3 *db = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->nidle > 0)
        db = s->idle[--s->nidle];
    pthread_mutex_unlock(&s->mu);
    return db ? db : conn_new(s->path, NULL, 0);
}

static void conn_give(sqlite_store *s, sqlite3 *db)
{
    if (!db)
        return;
    pthread_mutex_lock(&s->mu);
    if (s->nidle < POOL_MAX) {
        s->idle[s->nidle++] = db;
        db = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    if (db)
        sqlite3_close(db);
}

static char *dup_col(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    int n = sqlite3_column_bytes(st, i);
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    memcpy(s, t ? (const char *)t : "", (size_t)n);
    s[n] = 0;
    return s;
}

static int sq_get(store *base, const char *id, store_row *out)
{
    sqlite_store *s = (sqlite_store *)base;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof *out);
    if (sqlite3_prepare_v2(db,
                           "SELECT game, version, meta, state FROM games WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        ret = ERR_NOT_FOUND;
        goto done;
    }
    if (rc != SQLITE_ROW)
        goto done;
    snprintf(out->id, sizeof out->id, "%s", id);
    snprintf(out->game, sizeof out->game, "%s", (const char *)sqlite3_column_text(st, 0));
    out->version = sqlite3_column_int64(st, 1);
    out->meta = dup_col(st, 2);
    out->state = dup_col(st, 3);
    if (!out->meta || !out->state) {
        store_row_free(out);
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(st);
    conn_give(s, db);
    return ret;
}

static int sq_create(store *base, const store_row *row)
{
    sqlite_store *s = (sqlite_store *)base;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO games (id, game, version, meta, state, created_at, updated_at)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    sqlite3_bind_text(st, 1, row->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, row->game, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, row->version);
    sqlite3_bind_text(st, 4, row->meta, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, row->state, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, now);
    sqlite3_bind_int64(st, 7, now);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        ret = 0;
    else if (rc == SQLITE_CONSTRAINT)
        ret = ERR_CONFLICT;
done:
    sqlite3_finalize(st);
    conn_give(s, db);
    return ret;
}

static int exists(sqlite3 *db, const char *id)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM games WHERE id = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

static int sq_cas(store *base, const char *id, int64_t expect, const char *meta,
                  const char *state)
{
    sqlite_store *s = (sqlite_store *)base;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "UPDATE games SET meta = ?, state = ?, version = version + 1,"
                           " updated_at = ? WHERE id = ? AND version = ?",
                           -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(st, 1, meta, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
    sqlite3_bind_text(st, 4, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, expect);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto done;
    if (sqlite3_changes(db) == 1)
        ret = 0;
    else
        ret = exists(db, id) ? ERR_CONFLICT : ERR_NOT_FOUND;
done:
    sqlite3_finalize(st);
    conn_give(s, db);
    return ret;
}

static int sq_del(store *base, const char *id)
{
    sqlite_store *s = (sqlite_store *)base;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM games WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto done;
    ret = sqlite3_changes(db) == 1 ? 0 : ERR_NOT_FOUND;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM notes WHERE game_id = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_step(st);
    }
done:
    sqlite3_finalize(st);
    conn_give(s, db);
    return ret;
}

static int sq_notes_add(store *base, const char *id, const long *n,
                        const char *const *text, int k)
{
    sqlite_store *s = (sqlite_store *)base;
    if (k <= 0)
        return 0;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO notes (game_id, n, text) VALUES (?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        goto rollback;
    for (int i = 0; i < k; i++) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, n[i]);
        sqlite3_bind_text(st, 3, text[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto rollback;
        sqlite3_reset(st);
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) {
        ret = 0;
        goto done;
    }
rollback:
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
done:
    sqlite3_finalize(st);
    conn_give(s, db);
    return ret;
}

static int sq_notes_get(store *base, const char *id, char **json)
{
    sqlite_store *s = (sqlite_store *)base;
    *json = NULL;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT json_group_object(n, text) FROM notes WHERE game_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *json = dup_col(st, 0);
        ret = *json ? 0 : ERR_STORE;
    }
done:
    sqlite3_finalize(st);
    conn_give(s, db);
    return ret;
}

static int sq_ping(store *base)
{
    sqlite_store *s = (sqlite_store *)base;
    sqlite3 *db = conn_take(s);
    if (!db)
        return ERR_STORE;
    int rc = sqlite3_exec(db, "SELECT 1 FROM games LIMIT 1", NULL, NULL, NULL);
    conn_give(s, db);
    return rc == SQLITE_OK ? 0 : ERR_STORE;
}

static void sq_close(store *base)
{
    sqlite_store *s = (sqlite_store *)base;
    if (!s)
        return;
    for (int i = 0; i < s->nidle; i++)
        sqlite3_close(s->idle[i]);
    pthread_mutex_destroy(&s->mu);
    free(s->path);
    free(s);
}

static const store_vtable VT = {
    .kind = "sqlite", .get = sq_get, .create = sq_create, .cas = sq_cas, .del = sq_del,
    .notes_add = sq_notes_add, .notes_get = sq_notes_get, .ping = sq_ping, .close = sq_close,
};

int store_sqlite_open(store **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    sqlite_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return ERR_STORE;
    }
    s->base.vt = &VT;
    pthread_mutex_init(&s->mu, NULL);
    sqlite3 *db = conn_new(path, err, errlen);
    if (!db) {
        sq_close(&s->base);
        return ERR_STORE;
    }
    char *msg = NULL;
    if (sqlite3_exec(db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite schema: %s", msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_close(db);
        sq_close(&s->base);
        return ERR_STORE;
    }
    conn_give(s, db);
    *out = &s->base;
    return 0;
}
