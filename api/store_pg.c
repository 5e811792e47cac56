/* store_pg.c: the PostgreSQL store (libpq), for several servers on several
 * machines sharing one database. Schema version 2 (store.h): games (with
 * the origin and a snapshot cache), plays (the append-only log, cascading
 * from games) and schema_version.
 *
 * Every write is ONE statement, hence one transaction of its own, and one
 * round trip whatever the number of plays:
 *
 *   create   WITH g AS (INSERT INTO games ... RETURNING) INSERT INTO plays
 *            SELECT ... FROM g, unnest(<the plays as binary arrays>)
 *   commit   WITH u AS (UPDATE games ... WHERE id AND version = expect
 *            RETURNING version), i AS (INSERT INTO plays ... FROM u,
 *            unnest(...)) SELECT count(*) FROM u
 *
 * The compare-and-swap is the UPDATE's WHERE version = expect, atomic under
 * any isolation level (READ COMMITTED re-checks it after waiting for a
 * concurrent writer of the row); the plays are appended only from the row
 * the UPDATE returned, and any error (a play number already taken, ...)
 * undoes the whole statement. So a failed commit changes nothing.
 *
 * Connections: a small pool; each pooled connection carries its prepared
 * statements (PQprepare'd once per server session: on the first use of the
 * connection, again after a reset). Binary parameters for bytea and for the
 * play arrays; binary results for get() (bytea and bigints).
 *
 * A broken connection (server restart, killed backend, idle timeout in
 * between) is reset once and the statement run again. That is safe for
 * every statement here: reads are reads; snap_put is a conditional,
 * idempotent UPDATE; a commit that had in fact committed before the break
 * fails its compare-and-swap on the rerun and reports ERR_CONFLICT (never a
 * doubled play); a create that had committed finds its own row (same id,
 * version, meta: the meta holds fresh token hashes) and reports success; a
 * delete that had committed reports ERR_NOT_FOUND.
 */
#include "store.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

enum { PG_POOL_MAX = 32 };

/* libpq parameter lengths are ints (32 bits here); <limits.h> is shadowed by
 * api/limits.h under -Iapi, hence stdint's INT32_MAX. */
#define PG_LEN_MAX INT32_MAX

/* Serializes schema creation/migration between servers opening the same
 * database at once (pg_advisory_xact_lock; per database). 'CROUPIER'. */
#define SCHEMA_LOCK_KEY "4851026976469239122"

/* Type OIDs (fixed in PostgreSQL's catalog, pg_type.dat). */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_INT8 = 20,
    OID_INT4 = 23,
    OID_TEXT = 25,
    OID_INT4_ARRAY = 1007,
    OID_TEXT_ARRAY = 1009,
    OID_INT8_ARRAY = 1016,
};

_Static_assert(STORE_NOTE == 3, "the SQL below spells STORE_NOTE as 3");
_Static_assert(STORE_SCHEMA_VERSION == 2, "this file creates and migrates to schema 2");

/* --- statements ------------------------------------------------------------ */

enum { Q_GET, Q_ORIGIN, Q_EXISTS, Q_CREATE, Q_SAME, Q_COMMIT, Q_SNAP, Q_PLAYS, Q_DEL, Q_PING,
       Q__COUNT };

#define PLAY_COLS "game_id, n, version, seat, kind, bot, play, record, explanation, at_ms"
#define NOW_MS "(extract(epoch FROM now()) * 1000)::bigint"
#define MAXP 14

static const struct {
    const char *name;
    const char *sql;
    int n;
    Oid types[MAXP];
} Q[Q__COUNT] = {
    [Q_GET] = {"croupier_get",
               "SELECT game, version, meta, snap, snap_version FROM games WHERE id = $1",
               1, {OID_TEXT}},
    [Q_ORIGIN] = {"croupier_origin", "SELECT origin FROM games WHERE id = $1", 1, {OID_TEXT}},
    [Q_EXISTS] = {"croupier_exists", "SELECT 1 FROM games WHERE id = $1", 1, {OID_TEXT}},
    [Q_CREATE] = {"croupier_create",
                  "WITH g AS (INSERT INTO games (id, game, version, meta, origin, snap, snap_version)"
                  " VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6 IS NULL THEN -1 ELSE $3 END)"
                  " RETURNING id, version)"
                  " INSERT INTO plays (" PLAY_COLS ")"
                  " SELECT g.id, p.n, g.version, p.seat, p.kind, p.bot, p.play, p.record,"
                  " p.explanation, " NOW_MS
                  " FROM g, unnest($7, $8, $9, $10, $11, $12, $13)"
                  " AS p(n, seat, kind, bot, play, record, explanation)",
                  13,
                  {OID_TEXT, OID_TEXT, OID_INT8, OID_TEXT, OID_TEXT, OID_BYTEA, OID_INT8_ARRAY,
                   OID_INT4_ARRAY, OID_INT4_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY,
                   OID_TEXT_ARRAY}},
    /* after a create rerun on a reset connection: is the row the one we wrote? */
    [Q_SAME] = {"croupier_same",
                "SELECT 1 FROM games WHERE id = $1 AND version = $2 AND meta = $3",
                3, {OID_TEXT, OID_INT8, OID_TEXT}},
    [Q_COMMIT] = {"croupier_commit",
                  "WITH u AS (UPDATE games SET version = version + 1, meta = $3, snap = $4,"
                  " snap_version = CASE WHEN $4 IS NULL THEN -1 ELSE version + 1 END,"
                  " updated_at = now() WHERE id = $1 AND version = $2 RETURNING version),"
                  " i AS (INSERT INTO plays (" PLAY_COLS ")"
                  " SELECT $1, p.n, u.version, p.seat, p.kind, p.bot, p.play, p.record,"
                  " p.explanation, " NOW_MS
                  " FROM u, unnest($5, $6, $7, $8, $9, $10, $11)"
                  " AS p(n, seat, kind, bot, play, record, explanation))"
                  " SELECT count(*) FROM u",
                  11,
                  {OID_TEXT, OID_INT8, OID_TEXT, OID_BYTEA, OID_INT8_ARRAY, OID_INT4_ARRAY,
                   OID_INT4_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY,
                   OID_TEXT_ARRAY}},
    [Q_SNAP] = {"croupier_snap_put",
                "UPDATE games SET snap = $3, snap_version = CASE WHEN $3 IS NULL THEN -1 ELSE $2 END"
                " WHERE id = $1 AND version = $2",
                3, {OID_TEXT, OID_INT8, OID_BYTEA}},
    [Q_PLAYS] = {"croupier_plays",
                 "SELECT n, version, seat, kind, bot, play, record, explanation, at_ms FROM plays"
                 " WHERE game_id = $1 AND n > $2 AND ($3 OR kind <> 3) ORDER BY n LIMIT $4",
                 4, {OID_TEXT, OID_INT8, OID_BOOL, OID_INT8}},
    [Q_DEL] = {"croupier_del", "DELETE FROM games WHERE id = $1", 1, {OID_TEXT}},
    [Q_PING] = {"croupier_ping", "SELECT 1 FROM games LIMIT 1", 0, {0}},
};

/* --- connections and the pool ---------------------------------------------- */

typedef struct pg_conn {
    PGconn *pg;
    int prepared; /* Q[] prepared in the current server session */
} pg_conn;

typedef struct pg_store {
    store base;
    char *url;
    pthread_mutex_t mu;
    pg_conn *idle[PG_POOL_MAX];
    int nidle;
} pg_store;

/* NOTICEs (and below) are noise; WARNINGs go to stderr. */
static void notice_rx(void *arg, const PGresult *r)
{
    (void)arg;
    const char *sev = PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (sev && strcmp(sev, "WARNING") == 0)
        fprintf(stderr, "postgres: %s", PQresultErrorMessage(r));
}

/* "what: message" into err, the message without its trailing newline. */
static void set_err(char *err, size_t errlen, const char *what, PGconn *c, const PGresult *r)
{
    if (!err || !errlen)
        return;
    /* the server's own words without the "ERROR:  " and LINE decorations */
    const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!m || !*m)
        m = r ? PQresultErrorMessage(r) : "";
    if (!m || !*m)
        m = c ? PQerrorMessage(c) : "";
    if (!m || !*m)
        m = "out of memory";
    int n = (int)strlen(m);
    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    snprintf(err, errlen, "postgres: %s: %.*s", what, n, m);
}

/* An unexpected failure of an operation: one line on stderr for the operator. */
static void log_fail(const char *op, pg_conn *pc, const PGresult *r)
{
    char m[512];
    set_err(m, sizeof m, op, pc ? pc->pg : NULL, r);
    fprintf(stderr, "%s\n", m);
}

static PGconn *pg_connect(const char *url, char *err, size_t errlen)
{
    PGconn *c = PQconnectdb(url);
    if (!c) {
        if (err && errlen)
            snprintf(err, errlen, "postgres: out of memory");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        set_err(err, errlen, "connect", c, NULL);
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeReceiver(c, notice_rx, NULL); /* kept across PQreset */
    return c;
}

static void conn_drop(pg_conn *pc)
{
    if (!pc)
        return;
    PQfinish(pc->pg);
    free(pc);
}

/* Prepare every statement of Q[] in this session. 0 or -1. */
static int prepare_all(pg_conn *pc)
{
    for (int i = 0; i < Q__COUNT; i++) {
        PGresult *r = PQprepare(pc->pg, Q[i].name, Q[i].sql, Q[i].n, Q[i].types);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok && PQstatus(pc->pg) == CONNECTION_OK)
            log_fail("prepare", pc, r); /* a bug in Q[] or a schema that is not ours */
        PQclear(r);
        if (!ok)
            return -1;
    }
    pc->prepared = 1;
    return 0;
}

/* Reconnect (a new server session: nothing prepared) and prepare. 0 or -1. */
static int revive(pg_conn *pc)
{
    pc->prepared = 0;
    PQreset(pc->pg);
    if (PQstatus(pc->pg) != CONNECTION_OK)
        return -1;
    return prepare_all(pc);
}

/* A connection ready to run Q[], or NULL (the database is unreachable). */
static pg_conn *conn_take(pg_store *s)
{
    pg_conn *pc = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->nidle > 0)
        pc = s->idle[--s->nidle];
    pthread_mutex_unlock(&s->mu);
    if (!pc) {
        pc = calloc(1, sizeof *pc);
        if (!pc)
            return NULL;
        if (!(pc->pg = pg_connect(s->url, NULL, 0))) {
            free(pc);
            return NULL;
        }
    }
    if (pc->prepared)
        return pc;
    /* first use (or a reset): prepare, once more on a fresh session if the
     * connection turned out dead */
    if (PQstatus(pc->pg) == CONNECTION_OK && prepare_all(pc) == 0)
        return pc;
    if (PQstatus(pc->pg) != CONNECTION_OK && revive(pc) == 0)
        return pc;
    conn_drop(pc);
    return NULL;
}

static void conn_give(pg_store *s, pg_conn *pc)
{
    if (!pc)
        return;
    /* never pool a broken connection or one left inside a transaction */
    if (PQstatus(pc->pg) != CONNECTION_OK || PQtransactionStatus(pc->pg) != PQTRANS_IDLE) {
        conn_drop(pc);
        return;
    }
    pthread_mutex_lock(&s->mu);
    if (s->nidle < PG_POOL_MAX) {
        s->idle[s->nidle++] = pc;
        pc = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    conn_drop(pc);
}

/* Run prepared statement q; on a broken connection reset, re-prepare and run
 * it once more (*rerun = 1). The result may be NULL (PQresultStatus(NULL) is
 * PGRES_FATAL_ERROR, PQclear(NULL) is fine). */
static PGresult *run(pg_conn *pc, int q, const char *const *vals, const int *lens,
                     const int *fmts, int binary_result, int *rerun)
{
    if (rerun)
        *rerun = 0;
    PGresult *r = PQexecPrepared(pc->pg, Q[q].name, Q[q].n, vals, lens, fmts, binary_result);
    if (PQstatus(pc->pg) == CONNECTION_OK)
        return r;
    PQclear(r);
    if (revive(pc) != 0)
        return NULL;
    if (rerun)
        *rerun = 1;
    return PQexecPrepared(pc->pg, Q[q].name, Q[q].n, vals, lens, fmts, binary_result);
}

static int is_sqlstate(const PGresult *r, const char *code)
{
    const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    return st && strcmp(st, code) == 0;
}

static int is_unique_violation(const PGresult *r) { return is_sqlstate(r, "23505"); }

/* --- parameters and results ------------------------------------------------ */

/* A growable byte buffer; bad after an allocation failure or an overflow. */
typedef struct bbuf {
    unsigned char *p;
    size_t n, cap;
    int bad;
} bbuf;

static void bb_put(bbuf *b, const void *src, size_t n)
{
    if (b->bad)
        return;
    if (n > (size_t)PG_LEN_MAX - b->n) { /* a libpq parameter length is an int */
        b->bad = 1;
        return;
    }
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->bad = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void bb_u32(bbuf *b, uint32_t v)
{
    unsigned char t[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    bb_put(b, t, 4);
}

static void bb_u64(bbuf *b, uint64_t v)
{
    bb_u32(b, (uint32_t)(v >> 32));
    bb_u32(b, (uint32_t)v);
}

/* PostgreSQL's binary array format (array_send): ndim, has-nulls flag,
 * element type, then per dimension its size and lower bound; then each
 * element as a length (-1: NULL) and its bytes. An empty array has ndim 0. */
static void arr_head(bbuf *b, Oid elem, int k, int has_null)
{
    bb_u32(b, k > 0 ? 1 : 0);
    bb_u32(b, has_null ? 1 : 0);
    bb_u32(b, (uint32_t)elem);
    if (k > 0) {
        bb_u32(b, (uint32_t)k);
        bb_u32(b, 1);
    }
}

/* The k plays as the 7 binary arrays n, seat, kind, bot, play, record,
 * explanation, in one buffer: array j at off[j], len[j] bytes. */
enum { PA_N, PA_SEAT, PA_KIND, PA_BOT, PA_PLAY, PA_RECORD, PA_EXPL, PA__COUNT };

static int plays_encode(bbuf *b, size_t off[PA__COUNT], size_t len[PA__COUNT],
                        const store_play *p, int k)
{
    static const size_t text_field[PA__COUNT] = {
        [PA_BOT] = offsetof(store_play, bot),
        [PA_PLAY] = offsetof(store_play, play),
        [PA_RECORD] = offsetof(store_play, record),
        [PA_EXPL] = offsetof(store_play, explanation),
    };
    for (int a = 0; a < PA__COUNT; a++) {
        off[a] = b->n;
        if (a == PA_N) {
            arr_head(b, OID_INT8, k, 0);
            for (int i = 0; i < k; i++) {
                bb_u32(b, 8);
                bb_u64(b, (uint64_t)(int64_t)p[i].n);
            }
        } else if (a == PA_SEAT || a == PA_KIND) {
            arr_head(b, OID_INT4, k, 0);
            for (int i = 0; i < k; i++) {
                bb_u32(b, 4);
                bb_u32(b, (uint32_t)(a == PA_SEAT ? p[i].seat : p[i].kind));
            }
        } else {
            int has_null = 0;
            for (int i = 0; i < k; i++)
                has_null |= !*(char *const *)((const char *)&p[i] + text_field[a]);
            arr_head(b, OID_TEXT, k, has_null);
            for (int i = 0; i < k; i++) {
                const char *t = *(char *const *)((const char *)&p[i] + text_field[a]);
                if (!t) {
                    bb_u32(b, UINT32_MAX); /* -1: NULL */
                    continue;
                }
                size_t n = strlen(t);
                if (n > (size_t)PG_LEN_MAX) {
                    b->bad = 1;
                    break;
                }
                bb_u32(b, (uint32_t)n);
                bb_put(b, t, n);
            }
        }
        len[a] = b->n - off[a];
    }
    return b->bad ? -1 : 0;
}

/* Point params [first, first + PA__COUNT) at the encoded arrays (binary). */
static void plays_params(const bbuf *b, const size_t off[PA__COUNT], const size_t len[PA__COUNT],
                         const char **vals, int *lens, int *fmts, int first)
{
    for (int a = 0; a < PA__COUNT; a++) {
        vals[first + a] = (const char *)b->p + off[a];
        lens[first + a] = (int)len[a];
        fmts[first + a] = 1;
    }
}

static int64_t be64(const char *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = u << 8 | (unsigned char)p[i];
    return (int64_t)u;
}

/* A bigint of a binary result. 0 or -1. */
static int bin_i64(const PGresult *r, int row, int col, int64_t *v)
{
    if (PQgetisnull(r, row, col) || PQgetlength(r, row, col) != 8)
        return -1;
    *v = be64(PQgetvalue(r, row, col));
    return 0;
}

/* A malloc'd copy of a value (NUL-terminated; NULL stays NULL). 0 or -1 (no memory). */
static int dup_val(const PGresult *r, int row, int col, char **out)
{
    *out = NULL;
    if (PQgetisnull(r, row, col))
        return 0;
    size_t n = (size_t)PQgetlength(r, row, col);
    char *d = malloc(n + 1);
    if (!d)
        return -1;
    memcpy(d, PQgetvalue(r, row, col), n);
    d[n] = 0;
    *out = d;
    return 0;
}

static void fmt_i64(char *buf, size_t n, int64_t v) { snprintf(buf, n, "%lld", (long long)v); }

/* --- operations ------------------------------------------------------------ */

static int pg_get(store *base, const char *id, store_row *out)
{
    pg_store *s = (pg_store *)base;
    memset(out, 0, sizeof *out);
    out->snap_version = -1;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    const char *v[1] = {id};
    PGresult *r = run(pc, Q_GET, v, NULL, NULL, 1, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        log_fail("get", pc, r);
    } else if (PQntuples(r) == 0) {
        ret = ERR_NOT_FOUND;
    } else if (PQnfields(r) == 5 && bin_i64(r, 0, 1, &out->version) == 0 &&
               bin_i64(r, 0, 4, &out->snap_version) == 0 && !PQgetisnull(r, 0, 2)) {
        snprintf(out->id, sizeof out->id, "%s", id);
        snprintf(out->game, sizeof out->game, "%.*s", PQgetlength(r, 0, 0), PQgetvalue(r, 0, 0));
        char *snap = NULL;
        if (dup_val(r, 0, 2, &out->meta) == 0 && dup_val(r, 0, 3, &snap) == 0) {
            out->snap = (unsigned char *)snap; /* bytea, binary: the bytes themselves */
            out->snap_len = snap ? (size_t)PQgetlength(r, 0, 3) : 0;
            ret = 0;
        }
    }
    if (ret) {
        store_row_free(out);
        memset(out, 0, sizeof *out);
        out->snap_version = -1;
    }
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_origin_get(store *base, const char *id, char **origin)
{
    pg_store *s = (pg_store *)base;
    *origin = NULL;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    const char *v[1] = {id};
    PGresult *r = run(pc, Q_ORIGIN, v, NULL, NULL, 0, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        log_fail("origin", pc, r);
    else if (PQntuples(r) == 0)
        ret = ERR_NOT_FOUND;
    else if (dup_val(r, 0, 0, origin) == 0 && *origin)
        ret = 0;
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

/* Does the games row hold exactly (id, version, meta)? 1, 0, -1 error. */
static int row_is(pg_conn *pc, const char *id, int64_t version, const char *meta)
{
    char vb[24];
    fmt_i64(vb, sizeof vb, version);
    const char *v[3] = {id, vb, meta};
    PGresult *r = run(pc, Q_SAME, v, NULL, NULL, 0, NULL);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) > 0 : -1;
    PQclear(r);
    return ret;
}

/* The plays as binary array parameters (into b, freed here on failure),
 * and a connection to send them on; NULL when either fails. */
static pg_conn *encode_and_take(pg_store *s, const store_play *plays, int k, bbuf *b,
                                size_t *off, size_t *len)
{
    pg_conn *pc = plays_encode(b, off, len, plays, k) == 0 ? conn_take(s) : NULL;
    if (!pc) {
        free(b->p);
        b->p = NULL;
    }
    return pc;
}

static int pg_create(store *base, const store_row *row, const store_play *plays, int k)
{
    pg_store *s = (pg_store *)base;
    if (!row || !row->meta || !row->origin || k < 0 || (k > 0 && !plays) ||
        (row->snap && row->snap_len > (size_t)PG_LEN_MAX))
        return ERR_STORE;
    bbuf b = {0};
    size_t off[PA__COUNT], len[PA__COUNT];
    pg_conn *pc = encode_and_take(s, plays, k, &b, off, len);
    if (!pc)
        return ERR_STORE;
    char vb[24];
    fmt_i64(vb, sizeof vb, row->version);
    const char *v[MAXP] = {row->id, row->game, vb, row->meta, row->origin, (const char *)row->snap};
    int lens[MAXP] = {0}, fmts[MAXP] = {0};
    lens[5] = row->snap ? (int)row->snap_len : 0;
    fmts[5] = 1;
    plays_params(&b, off, len, v, lens, fmts, 6);
    int rerun = 0;
    PGresult *r = run(pc, Q_CREATE, v, lens, fmts, 0, &rerun);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK) {
        ret = 0;
    } else if (is_unique_violation(r)) {
        const char *table = PQresultErrorField(r, PG_DIAG_TABLE_NAME);
        ret = ERR_CONFLICT;
        /* a rerun after a broken connection may meet the row its first run
         * wrote: then it is a success */
        if (rerun && table && strcmp(table, "games") == 0 &&
            row_is(pc, row->id, row->version, row->meta) == 1)
            ret = 0;
    } else {
        log_fail("create", pc, r);
    }
    PQclear(r);
    conn_give(s, pc);
    free(b.p);
    return ret;
}

static int pg_commit(store *base, const char *id, int64_t expect, const char *meta,
                     const unsigned char *snap, size_t snap_len, const store_play *plays, int k)
{
    pg_store *s = (pg_store *)base;
    if (!id || !meta || k < 0 || (k > 0 && !plays) || (snap && snap_len > (size_t)PG_LEN_MAX))
        return ERR_STORE;
    bbuf b = {0};
    size_t off[PA__COUNT], len[PA__COUNT];
    pg_conn *pc = encode_and_take(s, plays, k, &b, off, len);
    if (!pc)
        return ERR_STORE;
    char eb[24];
    fmt_i64(eb, sizeof eb, expect);
    const char *v[MAXP] = {id, eb, meta, (const char *)snap};
    int lens[MAXP] = {0}, fmts[MAXP] = {0};
    lens[3] = snap ? (int)snap_len : 0;
    fmts[3] = 1;
    plays_params(&b, off, len, v, lens, fmts, 4);
    PGresult *r = run(pc, Q_COMMIT, v, lens, fmts, 0, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
        if (strcmp(PQgetvalue(r, 0, 0), "1") == 0) {
            ret = 0;
        } else { /* nothing written: the version moved, or no such game */
            const char *e[1] = {id};
            PGresult *q = run(pc, Q_EXISTS, e, NULL, NULL, 0, NULL);
            if (PQresultStatus(q) == PGRES_TUPLES_OK)
                ret = PQntuples(q) ? ERR_CONFLICT : ERR_NOT_FOUND;
            else
                log_fail("commit", pc, q);
            PQclear(q);
        }
    } else if (is_unique_violation(r) || is_sqlstate(r, "40001") || is_sqlstate(r, "40P01")) {
        /* a play number already taken, a serialization failure or a deadlock
         * (under a stricter default isolation): another writer won */
        ret = ERR_CONFLICT;
    } else {
        log_fail("commit", pc, r);
    }
    PQclear(r);
    conn_give(s, pc);
    free(b.p);
    return ret;
}

static int pg_snap_put(store *base, const char *id, int64_t version, const unsigned char *snap,
                       size_t snap_len)
{
    pg_store *s = (pg_store *)base;
    if (snap && snap_len > (size_t)PG_LEN_MAX)
        return ERR_STORE;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char vb[24];
    fmt_i64(vb, sizeof vb, version);
    const char *v[3] = {id, vb, (const char *)snap};
    int lens[3] = {0, 0, snap ? (int)snap_len : 0}, fmts[3] = {0, 0, 1};
    PGresult *r = run(pc, Q_SNAP, v, lens, fmts, 0, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK)
        ret = 0; /* 0 rows: the game moved on (or is gone); nothing to do */
    else
        log_fail("snap_put", pc, r);
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_plays(store *base, const char *id, long after, long limit, int with_notes,
                    store_play **out, int *k)
{
    pg_store *s = (pg_store *)base;
    *out = NULL;
    *k = 0;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char ab[24], lb[24];
    fmt_i64(ab, sizeof ab, after);
    fmt_i64(lb, sizeof lb, limit);
    const char *v[4] = {id, ab, with_notes ? "t" : "f", limit > 0 ? lb : NULL}; /* LIMIT NULL: all */
    PGresult *r = run(pc, Q_PLAYS, v, NULL, NULL, 0, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 9) {
        log_fail("plays", pc, r);
        goto done;
    }
    int n = PQntuples(r);
    if (n == 0) {
        ret = 0;
        goto done;
    }
    store_play *p = calloc((size_t)n, sizeof *p);
    if (!p)
        goto done;
    for (int i = 0; i < n; i++) {
        p[i].n = strtol(PQgetvalue(r, i, 0), NULL, 10);
        p[i].version = strtoll(PQgetvalue(r, i, 1), NULL, 10);
        p[i].seat = (int)strtol(PQgetvalue(r, i, 2), NULL, 10);
        p[i].kind = (int)strtol(PQgetvalue(r, i, 3), NULL, 10);
        p[i].at_ms = strtoll(PQgetvalue(r, i, 8), NULL, 10);
        if (dup_val(r, i, 4, &p[i].bot) || dup_val(r, i, 5, &p[i].play) ||
            dup_val(r, i, 6, &p[i].record) || dup_val(r, i, 7, &p[i].explanation)) {
            store_plays_free(p, i + 1);
            goto done;
        }
    }
    *out = p;
    *k = n;
    ret = 0;
done:
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_del(store *base, const char *id)
{
    pg_store *s = (pg_store *)base;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    const char *v[1] = {id};
    PGresult *r = run(pc, Q_DEL, v, NULL, NULL, 0, NULL); /* plays: ON DELETE CASCADE */
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK)
        ret = strcmp(PQcmdTuples(r), "0") == 0 ? ERR_NOT_FOUND : 0;
    else
        log_fail("delete", pc, r);
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_ping(store *base)
{
    pg_store *s = (pg_store *)base;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    PGresult *r = run(pc, Q_PING, NULL, NULL, NULL, 0, NULL);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : ERR_STORE;
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static void pg_close(store *base)
{
    pg_store *s = (pg_store *)base;
    if (!s)
        return;
    for (int i = 0; i < s->nidle; i++)
        conn_drop(s->idle[i]);
    pthread_mutex_destroy(&s->mu);
    free(s->url);
    free(s);
}

static const store_vtable VT = {
    .kind = "postgres",
    .get = pg_get,
    .origin_get = pg_origin_get,
    .create = pg_create,
    .commit = pg_commit,
    .snap_put = pg_snap_put,
    .plays = pg_plays,
    .del = pg_del,
    .ping = pg_ping,
    .close = pg_close,
};

/* --- schema ---------------------------------------------------------------- */

#define DDL_SCHEMA_VERSION                                                              \
    "CREATE TABLE schema_version (version integer PRIMARY KEY,"                       \
    " applied_at timestamptz NOT NULL DEFAULT now(), note text NOT NULL)"
#define DDL_PLAYS                                                                       \
    "CREATE TABLE plays (game_id text NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
    " n bigint NOT NULL, version bigint NOT NULL, seat integer NOT NULL,"              \
    " kind integer NOT NULL, bot text, play text, record text, explanation text,"      \
    " at_ms bigint NOT NULL, PRIMARY KEY (game_id, n))"

static const char *const CREATE_V2[] = {
    DDL_SCHEMA_VERSION,
    "CREATE TABLE games (id text PRIMARY KEY, game text NOT NULL, version bigint NOT NULL,"
    " meta text NOT NULL, origin text NOT NULL, snap bytea,"
    " snap_version bigint NOT NULL DEFAULT -1,"
    " created_at timestamptz NOT NULL DEFAULT now(),"
    " updated_at timestamptz NOT NULL DEFAULT now())",
    DDL_PLAYS,
    "INSERT INTO schema_version (version, note) VALUES (2, 'origin + play log + snapshot cache')",
};

/* Schema 1 -> 2, inside the open's transaction. The state a game had
 * becomes its origin (no plays to replay), its notes STORE_NOTE rows. */
static const struct {
    const char *step;
    const char *sql;
    int needs_notes;
} MIGRATE_V1[] = {
    {"rename games.state to origin", "ALTER TABLE games RENAME COLUMN state TO origin", 0},
    {"add the snapshot columns",
     "ALTER TABLE games ADD COLUMN snap bytea,"
     " ADD COLUMN snap_version bigint NOT NULL DEFAULT -1,"
     " ALTER COLUMN game SET NOT NULL, ALTER COLUMN version SET NOT NULL,"
     " ALTER COLUMN meta SET NOT NULL, ALTER COLUMN origin SET NOT NULL,"
     " ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN updated_at SET NOT NULL",
     0},
    {"create plays", DDL_PLAYS, 0},
    {"copy notes into plays",
     "INSERT INTO plays (" PLAY_COLS ")"
     " SELECT o.game_id, o.n, g.version, -1, 3, NULL, NULL, NULL, o.text, 0"
     " FROM notes o JOIN games g ON g.id = o.game_id",
     1},
    {"drop notes", "DROP TABLE notes", 1},
    {"create schema_version", DDL_SCHEMA_VERSION, 0},
    {"record schema versions",
     "INSERT INTO schema_version (version, note) VALUES"
     " (1, 'found: the previous release (games.state + notes)'),"
     " (2, 'migrated: origin + play log + snapshot cache')",
     0},
};

/* Run sql on c; 0, or -1 with "postgres: what: message" in err. */
static int exec_ok(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        set_err(err, errlen, what, c, r);
    PQclear(r);
    return ok ? 0 : -1;
}

static int migrate_v1(PGconn *c, int has_notes, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof MIGRATE_V1 / sizeof MIGRATE_V1[0]; i++) {
        if (MIGRATE_V1[i].needs_notes && !has_notes)
            continue;
        char what[160];
        snprintf(what, sizeof what,
                 "migrating schema 1 to 2 failed at \"%s\" (rolled back, nothing changed)",
                 MIGRATE_V1[i].step);
        if (exec_ok(c, MIGRATE_V1[i].sql, what, err, errlen))
            return -1;
    }
    return 0;
}

/* Create, migrate or accept the schema, in one transaction under the
 * schema lock. 0 or -1 with a message in err. */
static int schema_setup(PGconn *c, char *err, size_t errlen)
{
    if (exec_ok(c, "BEGIN", "begin", err, errlen))
        return -1;
    int rc = -1;
    PGresult *r = NULL;
    if (exec_ok(c, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK_KEY ")", "schema lock", err,
                errlen))
        goto out;
    r = PQexec(c, "SELECT to_regclass('schema_version') IS NOT NULL,"
                  " to_regclass('games') IS NOT NULL,"
                  " EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('games')"
                  " AND attname = 'state' AND attnum > 0 AND NOT attisdropped),"
                  " to_regclass('notes') IS NOT NULL");
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 || PQnfields(r) != 4) {
        set_err(err, errlen, "reading the schema", c, r);
        goto out;
    }
    int has_sv = *PQgetvalue(r, 0, 0) == 't', has_games = *PQgetvalue(r, 0, 1) == 't';
    int has_state = *PQgetvalue(r, 0, 2) == 't', has_notes = *PQgetvalue(r, 0, 3) == 't';
    PQclear(r);
    r = NULL;
    if (has_sv) {
        r = PQexec(c, "SELECT max(version) FROM schema_version");
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
            set_err(err, errlen, "reading schema_version", c, r);
            goto out;
        }
        if (PQgetisnull(r, 0, 0)) {
            snprintf(err, errlen, "postgres: the schema_version table is empty");
            goto out;
        }
        long long v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        if (v == STORE_SCHEMA_VERSION)
            rc = 0;
        else if (v > STORE_SCHEMA_VERSION)
            snprintf(err, errlen,
                     "postgres: the database has schema %lld, newer than this build (%d)", v,
                     STORE_SCHEMA_VERSION);
        else
            snprintf(err, errlen,
                     "postgres: schema_version records %lld, which this build (%d) cannot open", v,
                     STORE_SCHEMA_VERSION);
    } else if (!has_games) {
        rc = 0;
        for (size_t i = 0; !rc && i < sizeof CREATE_V2 / sizeof CREATE_V2[0]; i++)
            rc = exec_ok(c, CREATE_V2[i], "creating schema 2", err, errlen);
    } else if (has_state) {
        rc = migrate_v1(c, has_notes, err, errlen);
    } else {
        snprintf(err, errlen,
                 "postgres: a games table with neither games.state (schema 1) nor a "
                 "schema_version table: not a database of this program, left untouched");
    }
out:
    PQclear(r);
    if (rc == 0)
        rc = exec_ok(c, "COMMIT", "committing the schema", err, errlen);
    else
        PQclear(PQexec(c, "ROLLBACK"));
    return rc;
}

int store_pg_open(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    pg_store *s = calloc(1, sizeof *s);
    if (!s || !(s->url = strdup(url))) {
        free(s);
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return ERR_STORE;
    }
    s->base.vt = &VT;
    pthread_mutex_init(&s->mu, NULL);
    pg_conn *pc = calloc(1, sizeof *pc);
    if (!pc) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        pg_close(&s->base);
        return ERR_STORE;
    }
    if (!(pc->pg = pg_connect(url, err, errlen)) || schema_setup(pc->pg, err, errlen) != 0) {
        conn_drop(pc);
        pg_close(&s->base);
        return ERR_STORE;
    }
    conn_give(s, pc); /* prepared on its first use */
    *out = &s->base;
    return 0;
}
