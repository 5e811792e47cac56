/* store_pg.c: the PostgreSQL store (libpq), for several servers on several
 * machines sharing one database.
 *
 * Same contract as the SQLite store: one row per game, and the
 * compare-and-swap is a single UPDATE ... WHERE version = $n, atomic in
 * PostgreSQL under any isolation level. A small pool of connections; a
 * broken connection is reset once and the statement retried (reads and the
 * conditional writes are safe to retry: a retried CAS that had in fact
 * committed reports a conflict, never a double write).
 */
#include "store.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

enum { PG_POOL_MAX = 32 };

typedef struct pg_store {
    store base;
    char *url;
    pthread_mutex_t mu;
    PGconn *idle[PG_POOL_MAX];
    int nidle;
} pg_store;

static const char *SCHEMA =
    "CREATE TABLE IF NOT EXISTS games ("
    " id text PRIMARY KEY,"
    " game text NOT NULL,"
    " version bigint NOT NULL,"
    " meta text NOT NULL,"
    " state text NOT NULL,"
    " created_at timestamptz NOT NULL DEFAULT now(),"
    " updated_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE IF NOT EXISTS notes ("
    " game_id text NOT NULL,"
    " n bigint NOT NULL,"
    " text text NOT NULL,"
    " PRIMARY KEY (game_id, n))";

static PGconn *conn_new(const char *url, char *err, size_t errlen)
{
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK) {
        if (err)
            snprintf(err, errlen, "postgres: %s", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

static PGconn *conn_take(pg_store *s)
{
    PGconn *c = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->nidle > 0)
        c = s->idle[--s->nidle];
    pthread_mutex_unlock(&s->mu);
    if (c && PQstatus(c) != CONNECTION_OK)
        PQreset(c);
    return c ? c : conn_new(s->url, NULL, 0);
}

static void conn_give(pg_store *s, PGconn *c)
{
    if (!c)
        return;
    if (PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        return;
    }
    pthread_mutex_lock(&s->mu);
    if (s->nidle < PG_POOL_MAX) {
        s->idle[s->nidle++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    PQfinish(c);
}

/* Run a parameterized statement; reset and retry once on a dead connection. */
static PGresult *exec(PGconn *c, const char *sql, int n, const char *const *params)
{
    PGresult *r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
    if (PQstatus(c) != CONNECTION_OK) {
        PQclear(r);
        PQreset(c);
        r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
    }
    return r;
}

static char *dup_val(PGresult *r, int col)
{
    const char *v = PQgetvalue(r, 0, col);
    return strdup(v ? v : "");
}

static int pg_get(store *base, const char *id, store_row *out)
{
    pg_store *s = (pg_store *)base;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    memset(out, 0, sizeof *out);
    const char *p[1] = {id};
    PGresult *r = exec(c, "SELECT game, version, meta, state FROM games WHERE id = $1", 1, p);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        if (PQntuples(r) == 0) {
            ret = ERR_NOT_FOUND;
        } else {
            snprintf(out->id, sizeof out->id, "%s", id);
            snprintf(out->game, sizeof out->game, "%s", PQgetvalue(r, 0, 0));
            out->version = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
            out->meta = dup_val(r, 2);
            out->state = dup_val(r, 3);
            ret = out->meta && out->state ? 0 : ERR_STORE;
            if (ret)
                store_row_free(out);
        }
    }
    PQclear(r);
    conn_give(s, c);
    return ret;
}

static int pg_create(store *base, const store_row *row)
{
    pg_store *s = (pg_store *)base;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)row->version);
    const char *p[5] = {row->id, row->game, v, row->meta, row->state};
    PGresult *r = exec(c,
                       "INSERT INTO games (id, game, version, meta, state) VALUES ($1, $2, $3, $4, $5)",
                       5, p);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK) {
        ret = 0;
    } else {
        const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (state && strcmp(state, "23505") == 0) /* unique_violation */
            ret = ERR_CONFLICT;
    }
    PQclear(r);
    conn_give(s, c);
    return ret;
}

static int pg_cas(store *base, const char *id, int64_t expect, const char *meta,
                  const char *state)
{
    pg_store *s = (pg_store *)base;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)expect);
    const char *p[4] = {meta, state, id, v};
    PGresult *r = exec(c,
                       "UPDATE games SET meta = $1, state = $2, version = version + 1,"
                       " updated_at = now() WHERE id = $3 AND version = $4",
                       4, p);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK) {
        if (strcmp(PQcmdTuples(r), "1") == 0) {
            ret = 0;
        } else {
            PGresult *q = exec(c, "SELECT 1 FROM games WHERE id = $1", 1, p + 2);
            if (PQresultStatus(q) == PGRES_TUPLES_OK)
                ret = PQntuples(q) ? ERR_CONFLICT : ERR_NOT_FOUND;
            PQclear(q);
        }
    }
    PQclear(r);
    conn_give(s, c);
    return ret;
}

static int pg_del(store *base, const char *id)
{
    pg_store *s = (pg_store *)base;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    const char *p[1] = {id};
    PGresult *r = exec(c, "DELETE FROM games WHERE id = $1", 1, p);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK)
        ret = strcmp(PQcmdTuples(r), "1") == 0 ? 0 : ERR_NOT_FOUND;
    PQclear(r);
    PQclear(exec(c, "DELETE FROM notes WHERE game_id = $1", 1, p));
    conn_give(s, c);
    return ret;
}

static int pg_notes_add(store *base, const char *id, const long *n,
                        const char *const *text, int k)
{
    pg_store *s = (pg_store *)base;
    if (k <= 0)
        return 0;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = 0;
    PQclear(exec(c, "BEGIN", 0, NULL));
    for (int i = 0; i < k && !ret; i++) {
        char nb[32];
        snprintf(nb, sizeof nb, "%ld", n[i]);
        const char *p[3] = {id, nb, text[i]};
        PGresult *r = exec(c,
                           "INSERT INTO notes (game_id, n, text) VALUES ($1, $2, $3)"
                           " ON CONFLICT (game_id, n) DO UPDATE SET text = EXCLUDED.text",
                           3, p);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            ret = ERR_STORE;
        PQclear(r);
    }
    PQclear(exec(c, ret ? "ROLLBACK" : "COMMIT", 0, NULL));
    conn_give(s, c);
    return ret;
}

static int pg_notes_get(store *base, const char *id, char **json)
{
    pg_store *s = (pg_store *)base;
    *json = NULL;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    const char *p[1] = {id};
    PGresult *r = exec(c, "SELECT coalesce(json_object_agg(n, text), '{}')::text FROM notes"
                          " WHERE game_id = $1", 1, p);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
        *json = dup_val(r, 0);
        ret = *json ? 0 : ERR_STORE;
    }
    PQclear(r);
    conn_give(s, c);
    return ret;
}

static int pg_ping(store *base)
{
    pg_store *s = (pg_store *)base;
    PGconn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    PGresult *r = exec(c, "SELECT 1 FROM games LIMIT 1", 0, NULL);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : ERR_STORE;
    PQclear(r);
    conn_give(s, c);
    return ret;
}

static void pg_close(store *base)
{
    pg_store *s = (pg_store *)base;
    if (!s)
        return;
    for (int i = 0; i < s->nidle; i++)
        PQfinish(s->idle[i]);
    pthread_mutex_destroy(&s->mu);
    free(s->url);
    free(s);
}

static const store_vtable VT = {
    .kind = "postgres", .get = pg_get, .create = pg_create, .cas = pg_cas, .del = pg_del,
    .notes_add = pg_notes_add, .notes_get = pg_notes_get, .ping = pg_ping, .close = pg_close,
};

int store_pg_open(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    pg_store *s = calloc(1, sizeof *s);
    if (!s || !(s->url = strdup(url))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return ERR_STORE;
    }
    s->base.vt = &VT;
    pthread_mutex_init(&s->mu, NULL);
    PGconn *c = conn_new(url, err, errlen);
    if (!c) {
        pg_close(&s->base);
        return ERR_STORE;
    }
    /* quiet "already exists" notices; the schema is idempotent */
    PGresult *r = PQexec(c, "SET client_min_messages = warning");
    PQclear(r);
    r = PQexec(c, SCHEMA);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        snprintf(err, errlen, "postgres schema: %s", PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        pg_close(&s->base);
        return ERR_STORE;
    }
    PQclear(r);
    conn_give(s, c);
    *out = &s->base;
    return 0;
}
