/* store_pg.c: the PostgreSQL store (libpq), for several servers on several
 * machines sharing one database. Schema version 5 (store.h): games (with
 * the origin and a snapshot cache), plays (the append-only log, cascading
 * from games), idempotency_claims and idempotency_answers (the keys),
 * card_notes (the seats' notes, cascading from games) and schema_version.
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
 * undoes the whole statement. So a failed commit changes nothing. A write
 * that stores its answer under an idempotency key adds the answer to the
 * statement, and runs in BEGIN ... COMMIT, committed only when the game's
 * row and the answer were both written (another request may have answered
 * the key first): three round trips.
 *
 * Connections: a small pool of nonblocking connections; each carries its
 * prepared statements (prepared once per server session, on its first
 * use). Binary parameters for bytea and for the play arrays; binary results
 * where they save a decoding. Every answer is waited for with a deadline
 * (a database that stops answering), and a write whose answer is lost is
 * settled before anything else is said or done (write_q, below).
 */
#include "store.h"

#include <errno.h>
#include <libpq-fe.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"

enum { PG_POOL_MAX = 32 };

/* libpq parameter lengths are ints */
#define PG_LEN_MAX INT_MAX

/* The channel of the games' changes (LISTEN/NOTIFY; per database), and
 * the length of a process's name in its payloads. */
#define PG_CHANNEL "croupier"
enum { PG_INSTANCE_LEN = 16 };

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
_Static_assert(STORE_SCHEMA_VERSION == 5, "this file creates and migrates to schema 5");

/* --- statements ------------------------------------------------------------ */

enum { Q_GET, Q_ORIGIN, Q_EXISTS, Q_CREATE, Q_CREATE_K, Q_SAME, Q_COMMIT, Q_COMMIT_K, Q_LANDED,
       Q_OVER, Q_SNAP, Q_PLAYS, Q_DEL, Q_PING, Q_SCHEMA, Q_IDEM_CLAIM, Q_IDEM_GET, Q_IDEM_TAKE,
       Q_IDEM_RELEASE, Q_IDEM_PURGE, Q_AGES, Q_SIZE, Q_NOTES, Q_NOTE_SET, Q_NOTE_DEL, Q_REWIND, Q__COUNT };

#define PLAY_COLS "game_id, n, version, seat, kind, bot, play, record, explanation, at_ms"
#define NOW_MS "(extract(epoch FROM now()) * 1000)::bigint"
#define MAXP 18

/* Pieces of the writes. A new game and its first plays ($1-$13); a commit's
 * compare-and-swap and its plays ($1-$11); an answer stored under its key
 * (from its first parameter: id, fingerprint, the sealed answer and how
 * many seconds it is kept) when the write wrote its row, unless the key has
 * a live answer (another request stored one first), and the key's claim
 * deleted. */
#define CREATE_GAME                                                                    \
    "WITH g AS (INSERT INTO games (id, game, version, meta, origin, snap, snap_version)" \
    " VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6 IS NULL THEN -1 ELSE $3 END)"        \
    " RETURNING id, version)"
#define CREATE_PLAYS                                                                   \
    " SELECT g.id, p.n, g.version, p.seat, p.kind, p.bot, p.play, p.record,"           \
    " p.explanation, " NOW_MS " FROM g, unnest($7, $8, $9, $10, $11, $12, $13)"         \
    " AS p(n, seat, kind, bot, play, record, explanation)"
#define CREATE_TYPES                                                                   \
    OID_TEXT, OID_TEXT, OID_INT8, OID_TEXT, OID_TEXT, OID_BYTEA, OID_INT8_ARRAY,        \
        OID_INT4_ARRAY, OID_INT4_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY, \
        OID_TEXT_ARRAY
#define COMMIT_CTES                                                                    \
    "WITH u AS (UPDATE games SET version = version + 1, meta = $3, snap = $4,"         \
    " snap_version = CASE WHEN $4 IS NULL THEN -1 ELSE version + 1 END,"               \
    " updated_at = now() WHERE id = $1 AND version = $2 RETURNING version),"           \
    " i AS (INSERT INTO plays (" PLAY_COLS ")"                                          \
    " SELECT $1, p.n, u.version, p.seat, p.kind, p.bot, p.play, p.record,"             \
    " p.explanation, " NOW_MS " FROM u, unnest($5, $6, $7, $8, $9, $10, $11)"           \
    " AS p(n, seat, kind, bot, play, record, explanation))"
#define COMMIT_TYPES                                                                   \
    OID_TEXT, OID_INT8, OID_TEXT, OID_BYTEA, OID_INT8_ARRAY, OID_INT4_ARRAY,            \
        OID_INT4_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY, OID_TEXT_ARRAY
#define ANSWER_PUT(id, fp, answer, keep, from)                                         \
    "INSERT INTO idempotency_answers (id, fingerprint, answer, expires_at)"            \
    " SELECT " id ", " fp ", " answer ", now() + make_interval(secs => " keep ") FROM " \
    from " ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint,"         \
    " answer = excluded.answer, expires_at = excluded.expires_at"                      \
    " WHERE idempotency_answers.expires_at <= now() RETURNING 1),"                     \
    " d AS (DELETE FROM idempotency_claims WHERE id = " id " AND EXISTS (SELECT 1 FROM " from ")"
#define ANSWER_TYPES OID_BYTEA, OID_BYTEA, OID_BYTEA, OID_INT8

/* A key as idem_row() reads it (binary results): its answer when it has
 * one (a, live only for a claim), else its claim (c). */
#define IDEM_COLS                                                                      \
    "coalesce(a.fingerprint, c.fingerprint), c.owner, a.id IS NOT NULL,"               \
    " coalesce(a.expires_at, c.expires_at) > now(), a.answer"
#define IDEM_JOIN(answer_cond)                                                         \
    " FROM (SELECT 1) one LEFT JOIN idempotency_answers a ON a.id = $1" answer_cond     \
    " LEFT JOIN idempotency_claims c ON c.id = $1 AND a.id IS NULL"

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
    [Q_CREATE] = {"croupier_create", CREATE_GAME " INSERT INTO plays (" PLAY_COLS ")" CREATE_PLAYS,
                  13, {CREATE_TYPES}},
    /* a create with its answer: the second count is 0 when another request
     * stored an answer for the key first (then the caller rolls back) */
    [Q_CREATE_K] = {"croupier_create_k",
                    CREATE_GAME ", p AS (INSERT INTO plays (" PLAY_COLS ")" CREATE_PLAYS "),"
                    " k AS (" ANSWER_PUT("$14", "$15", "$16", "$17", "g") ")"
                    " SELECT (SELECT count(*) FROM g), (SELECT count(*) FROM k)",
                    17, {CREATE_TYPES, ANSWER_TYPES}},
    /* after a create's answer was lost: is the row the one it wrote? */
    [Q_SAME] = {"croupier_same",
                "SELECT 1 FROM games WHERE id = $1 AND version = $2 AND meta = $3",
                3, {OID_TEXT, OID_INT8, OID_TEXT}},
    /* the game's change is announced (NOTIFY, sent when it commits) to the
     * listening processes: $12 (a commit) or $16 (with an answer) is the
     * payload "<process> <game id>" */
    [Q_COMMIT] = {"croupier_commit",
                  COMMIT_CTES " SELECT count(*), count(pg_notify('" PG_CHANNEL "', $12)) FROM u",
                  12, {COMMIT_TYPES, OID_TEXT}},
    /* a commit with its answer (counts as Q_CREATE_K's) */
    [Q_COMMIT_K] = {"croupier_commit_k",
                    COMMIT_CTES ", k AS (" ANSWER_PUT("$12", "$13", "$14", "$15", "u") ")"
                    " SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM k),"
                    " (SELECT count(pg_notify('" PG_CHANNEL "', $16)) FROM u)",
                    16, {COMMIT_TYPES, ANSWER_TYPES, OID_TEXT}},
    /* after a commit's answer was lost: the game's version, and whether the
     * play numbered $2 is the commit's (logged under which version) */
    [Q_LANDED] = {"croupier_landed",
                  "SELECT g.version, g.meta = $3, p.version,"
                  " p.seat = $4 AND p.play IS NOT DISTINCT FROM $5"
                  " FROM games g LEFT JOIN plays p ON p.game_id = g.id AND p.n = $2"
                  " WHERE g.id = $1",
                  5, {OID_TEXT, OID_INT8, OID_TEXT, OID_INT4, OID_TEXT}},
    /* is the session $1 (pid), started at $2 on a server started at $3,
     * over? If it still runs, end it, waiting $4 ms at most: true when it
     * is over (whatever it was doing has committed or never will) */
    [Q_OVER] = {"croupier_over",
                "SELECT CASE WHEN extract(epoch FROM pg_postmaster_start_time())::text <> $3"
                " OR NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1"
                " AND extract(epoch FROM backend_start)::text = $2)"
                " THEN true ELSE pg_terminate_backend($1, $4) END",
                4, {OID_INT4, OID_TEXT, OID_TEXT, OID_INT8}},
    [Q_SNAP] = {"croupier_snap_put",
                "UPDATE games SET snap = $3, snap_version = CASE WHEN $3 IS NULL THEN -1 ELSE $2 END"
                " WHERE id = $1 AND version = $2",
                3, {OID_TEXT, OID_INT8, OID_BYTEA}},
    [Q_PLAYS] = {"croupier_plays",
                 "SELECT n, version, seat, kind, bot, play, record, explanation, at_ms FROM plays"
                 " WHERE game_id = $1 AND n > $2 AND ($3 OR kind <> 3) ORDER BY n LIMIT $4",
                 4, {OID_TEXT, OID_INT8, OID_BOOL, OID_INT8}},
    /* $2: only when the game's last write is before it (unix seconds; NULL: any) */
    [Q_DEL] = {"croupier_del",
               "DELETE FROM games WHERE id = $1"
               " AND ($2::bigint IS NULL OR updated_at < to_timestamp($2::double precision))",
               2, {OID_TEXT, OID_INT8}},
    [Q_PING] = {"croupier_ping", "SELECT 1 FROM games LIMIT 1", 0, {0}},
    [Q_SCHEMA] = {"croupier_schema", "SELECT max(version) FROM schema_version", 0, {0}},
    /* idempotency keys: when the key has no live answer, a new claim, or an
     * expired one made new; then the key as it is (when the claim did not
     * take it) */
    [Q_IDEM_CLAIM] = {"croupier_idem_claim",
                      "WITH n AS (INSERT INTO idempotency_claims (id, fingerprint, owner, expires_at)"
                      " SELECT $1, $2, $3, now() + make_interval(secs => $4) WHERE NOT EXISTS"
                      " (SELECT 1 FROM idempotency_answers WHERE id = $1 AND expires_at > now())"
                      " ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint,"
                      " owner = excluded.owner, expires_at = excluded.expires_at"
                      " WHERE idempotency_claims.expires_at <= now() RETURNING 1)"
                      " SELECT (SELECT count(*) FROM n), " IDEM_COLS
                      IDEM_JOIN(" AND a.expires_at > now()"),
                      4, {OID_BYTEA, OID_BYTEA, OID_TEXT, OID_INT8}},
    [Q_IDEM_GET] = {"croupier_idem_get", "SELECT 0::bigint, " IDEM_COLS IDEM_JOIN(""), 1,
                    {OID_BYTEA}},
    [Q_IDEM_TAKE] = {"croupier_idem_take",
                     "UPDATE idempotency_claims SET owner = $3,"
                     " expires_at = now() + make_interval(secs => $4) WHERE id = $1 AND owner = $2",
                     4, {OID_BYTEA, OID_TEXT, OID_TEXT, OID_INT8}},
    [Q_IDEM_RELEASE] = {"croupier_idem_release",
                        "DELETE FROM idempotency_claims WHERE id = $1 AND owner = $2", 2,
                        {OID_BYTEA, OID_TEXT}},
    [Q_IDEM_PURGE] = {"croupier_idem_purge",
                      "WITH a AS (DELETE FROM idempotency_answers WHERE id IN (SELECT id FROM"
                      " idempotency_answers WHERE expires_at <= now() LIMIT 10000) RETURNING 1),"
                      " c AS (DELETE FROM idempotency_claims WHERE expires_at <= now() RETURNING 1)"
                      " SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM c)",
                      0, {0}},
    [Q_AGES] = {"croupier_ages",
                "SELECT id, extract(epoch FROM updated_at)::bigint FROM games WHERE id > $1"
                " ORDER BY id LIMIT $2",
                2, {OID_TEXT, OID_INT8}},
    [Q_SIZE] = {"croupier_size", "SELECT pg_database_size(current_database())", 0, {0}},
    /* card notes: $2 < 0 every seat's */
    [Q_NOTES] = {"croupier_notes",
                 "SELECT seat, card, text, at_ms FROM card_notes WHERE game_id = $1"
                 " AND ($2 < 0 OR seat = $2) ORDER BY seat, card",
                 2, {OID_TEXT, OID_INT4}},
    /* set a note while the game exists and the seat holds fewer than $6
     * others; then (inserted or updated, the game exists) */
    [Q_NOTE_SET] = {"croupier_note_set",
                    "WITH i AS (INSERT INTO card_notes (game_id, seat, card, text, at_ms)"
                    " SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM games WHERE id = $1)"
                    " AND (SELECT count(*) FROM card_notes WHERE game_id = $1 AND seat = $2"
                    " AND card <> $3) < $6"
                    " ON CONFLICT (game_id, seat, card) DO UPDATE SET text = excluded.text,"
                    " at_ms = excluded.at_ms RETURNING 1)"
                    " SELECT (SELECT count(*) FROM i), EXISTS (SELECT 1 FROM games WHERE id = $1)",
                    6, {OID_TEXT, OID_INT4, OID_TEXT, OID_TEXT, OID_INT8, OID_INT8}},
    /* plays taken back (store.h: rewind): the compare-and-swap, the plays
     * after $5 deleted only from the row the UPDATE returned, the NOTIFY */
    [Q_REWIND] = {"croupier_rewind",
                  "WITH u AS (UPDATE games SET version = version + 1, meta = $3, snap = $4,"
                  " snap_version = CASE WHEN $4 IS NULL THEN -1 ELSE version + 1 END,"
                  " updated_at = now() WHERE id = $1 AND version = $2 RETURNING version),"
                  " d AS (DELETE FROM plays WHERE game_id = $1 AND n > $5 AND kind <> 3"
                  " AND EXISTS (SELECT 1 FROM u))"
                  " SELECT count(*), count(pg_notify('" PG_CHANNEL "', $6)) FROM u",
                  6, {OID_TEXT, OID_INT8, OID_TEXT, OID_BYTEA, OID_INT8, OID_TEXT}},
    [Q_NOTE_DEL] = {"croupier_note_del",
                    "WITH d AS (DELETE FROM card_notes WHERE game_id = $1 AND seat = $2"
                    " AND card = $3 RETURNING 1)"
                    " SELECT (SELECT count(*) FROM d), EXISTS (SELECT 1 FROM games WHERE id = $1)",
                    3, {OID_TEXT, OID_INT4, OID_TEXT}},
};

/* --- connections and the pool ---------------------------------------------- */

/* How long the store waits for PostgreSQL (docs/operations.md). A
 * database that refuses is seen at once; one that stops answering (a
 * frozen host, a lost network) would hold a request for the kernel's TCP
 * timeouts, so: connecting gives up after PG_CONNECT_S; a statement is
 * cancelled by the server after PG_STATEMENT_MS (unless the URL, the role
 * or the database sets statement_timeout), and the store gives up on its
 * answer PG_DEADLINE_MS later than that, dropping the connection; TCP
 * keepalives find a dead peer of an idle connection within about 20 s. A
 * write whose answer was lost is settled by reading the store again within
 * PG_RESOLVE_MS (resolve_*, below). URL parameters override every default
 * here but the deadline's margin.
 *
 * And every operation of the store (op_begin) waits no longer than the
 * deadline in all, its connecting and preparing included; a write
 * PG_RESOLVE_MS more, to settle an answer that was lost. After an answer
 * that did not come in time (the database stopped answering), the store
 * refuses at once for PG_QUIET_MS, so that the next calls of the request
 * (and everyone else's) do not each wait the deadline again. */
enum {
    PG_CONNECT_S = 3,
    PG_STATEMENT_MS = 3000,
    PG_IDLE_TX_MS = 10000, /* idle_in_transaction_session_timeout */
    PG_DEADLINE_MS = 1000, /* past the statement timeout */
    PG_RESOLVE_MS = 4000,
    PG_QUIET_MS = 1000,
};

/* Which server session a connection is: its backend's pid and start, and
 * the server's start (epoch seconds as text), to tell, after its answer
 * was lost, whether that backend may still be working on it. */
typedef struct pg_session {
    int pid;
    char backend_start[40], server_start[40];
} pg_session;

typedef struct pg_conn {
    PGconn *pg;
    int prepared; /* Q[] prepared in the current server session */
    int broken;   /* an answer was given up on: never reused */
    int late;     /* ... because none came in time (the server does not answer) */
    pg_session who;
} pg_conn;

typedef struct pg_store {
    store base;
    char *url;
    pthread_mutex_t mu;
    pg_conn *idle[PG_POOL_MAX];
    int nidle;
    int deadline_ms; /* the statement timeout of the first pooled session + the margin */
    long long quiet_until; /* mono_ms: the database did not answer in time; refuse till then
                              (atomic) */
    /* writes whose answer was lost, by what write_q then found (metrics) */
    unsigned long lost_found[4];
    /* the listener (listen(), below) */
    char instance[PG_INSTANCE_LEN + 1]; /* this process, in its NOTIFY payloads */
    void (*changed)(const char *id, void *arg);
    void *changed_arg;
    pthread_t listener;
    int listening;   /* the thread runs (joined on close) */
    int stop;        /* close: it ends (atomic) */
    int live;        /* its connection listens now (atomic; metrics) */
    unsigned long heard, connects; /* notifications passed on, connections made (atomic) */
    /* the database's size (room()), looked at every PG_SIZE_EVERY_S at most */
    long long size, sized_ms; /* atomic */
    int sizing;               /* the sizer thread looks (atomic) */
    pthread_t sizer;
    int sizer_made;           /* a sizer thread was started (joined on close) */
} pg_store;

enum { PG_SIZE_EVERY_S = 30 };

enum { FOUND_LANDED, FOUND_ABSENT, FOUND_OTHER, FOUND_UNKNOWN };

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
        m = "no answer in time";
    int k = snprintf(err, errlen, "postgres: %s: ", what);
    /* one line: libpq's messages have several ("... failed: Connection
     * refused\n\tIs the server running ...", one per address tried) */
    for (; *m && k >= 0 && (size_t)k + 1 < errlen; m++)
        if (*m != '\n' && *m != '\t' && *m != '\r')
            err[k++] = *m;
        else if (k > 0 && err[k - 1] != ' ')
            err[k++] = ' ';
    while (k > 0 && err[k - 1] == ' ')
        k--;
    if (k >= 0 && (size_t)k < errlen)
        err[k] = 0;
}

/* An unexpected failure of an operation: one line on stderr for the operator. */
static void log_fail(const char *op, pg_conn *pc, const PGresult *r)
{
    char m[512];
    set_err(m, sizeof m, op, pc ? pc->pg : NULL, r);
    fprintf(stderr, "%s\n", m);
}

/* The store's defaults first, then the URL (expanded), whose parameters
 * override them (libpq keeps the last value of a keyword): a connection
 * made (`wait`) or started (PQconnectStartParams). */
static PGconn *connect_with(const char *url, int wait)
{
    char connect_s[16];
    snprintf(connect_s, sizeof connect_s, "%d", (int)PG_CONNECT_S);
    const char *const keys[] = {"connect_timeout", "keepalives", "keepalives_idle",
                                "keepalives_interval", "keepalives_count", "tcp_user_timeout",
                                "dbname", NULL};
    const char *const vals[] = {connect_s, "1", "10", "3", "3", "15000", url, NULL};
    return wait ? PQconnectdbParams(keys, vals, 1) : PQconnectStartParams(keys, vals, 1);
}

/* Connect, waiting as libpq does (connect_timeout). */
static PGconn *pg_connect(const char *url, char *err, size_t errlen)
{
    PGconn *c = connect_with(url, 1);
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

static long long mono_ms(void);
static int sock_wait(PGconn *c, short events, long long end);

/* The connect_timeout a connection was given (the store's default or the
 * URL's), in ms. */
static long long connect_ms(PGconn *c)
{
    long long ms = PG_CONNECT_S * 1000LL;
    PQconninfoOption *o = PQconninfo(c);
    for (PQconninfoOption *p = o; p && p->keyword; p++)
        if (strcmp(p->keyword, "connect_timeout") == 0 && p->val && *p->val)
            ms = strtoll(p->val, NULL, 10) * 1000;
    PQconninfoFree(o);
    return ms > 0 ? ms : PG_CONNECT_S * 1000LL;
}

/* Connect as pg_connect does, but waiting until `end` (mono_ms) at the
 * most: libpq's own connect_timeout counts for each address apart. NULL
 * when it fails or time is up (*late: the whole connect_timeout was up,
 * not only what the caller had left). */
static PGconn *pg_connect_by(const char *url, long long end, int *late)
{
    *late = 0;
    PGconn *c = connect_with(url, 0);
    if (!c || PQstatus(c) == CONNECTION_BAD) {
        PQfinish(c);
        return NULL;
    }
    long long by = mono_ms() + connect_ms(c);
    int full = by <= end;
    if (full)
        end = by;
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        int w = sock_wait(c, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, end);
        if (w <= 0) {
            *late = w == 0 && full;
            PQfinish(c);
            return NULL;
        }
        st = PQconnectPoll(c);
    }
    if (st == PGRES_POLLING_FAILED) {
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeReceiver(c, notice_rx, NULL);
    return c;
}

static void conn_drop(pg_conn *pc)
{
    if (!pc)
        return;
    PQfinish(pc->pg);
    free(pc);
}

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for the socket of c to be ready for `events` until `end` (ms,
 * mono_ms). 1 ready, 0 time is up, -1 error. */
static int sock_wait(PGconn *c, short events, long long end)
{
    struct pollfd p = {.fd = PQsocket(c), .events = events};
    if (p.fd < 0)
        return -1;
    for (;;) {
        long long left = end - mono_ms();
        if (left <= 0)
            return 0;
        int n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (n > 0)
            return 1;
        if (n == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

/* What became of a statement sent with send_q() (its *lost). */
enum { SENT_NOT = 0, SENT_LOST = 1 };

/* The answer to what was just queued on pc (PQsend*), within ms: the last
 * result (an error result when there was one), or NULL, then *lost says
 * whether the whole request had reached the server (SENT_LOST: it may have
 * run) or not (SENT_NOT). A connection given up on is marked broken (the
 * server may still be working on it). */
static PGresult *await(pg_conn *pc, int ms, int *lost)
{
    PGconn *c = pc->pg;
    long long end = mono_ms() + ms;
    *lost = SENT_NOT;
    int f, w = 1;
    while ((f = PQflush(c)) == 1) /* nonblocking: the rest of the request */
        if ((w = sock_wait(c, POLLOUT | POLLIN, end)) <= 0 || !PQconsumeInput(c))
            goto gone;
    if (f < 0)
        goto gone;
    *lost = SENT_LOST;
    PGresult *res = NULL;
    for (;;) {
        while (PQisBusy(c))
            if ((w = sock_wait(c, POLLIN, end)) <= 0 || !PQconsumeInput(c)) {
                PQclear(res);
                goto gone;
            }
        PGresult *r = PQgetResult(c);
        if (!r)
            break;
        if (res && PQresultStatus(res) == PGRES_FATAL_ERROR) { /* the error is the answer */
            PQclear(r);
            continue;
        }
        PQclear(res);
        res = r;
    }
    if (PQstatus(c) == CONNECTION_OK)
        *lost = SENT_NOT; /* an answer came */
    else if (!res || PQresultStatus(res) == PGRES_FATAL_ERROR)
        goto broke; /* the answer is the connection's end */
    return res;
broke:
    PQclear(res);
gone:
    pc->broken = 1;
    pc->late = w == 0;
    return NULL;
}

/* A simple-protocol statement on pc within ms. */
static PGresult *exec_sql(pg_conn *pc, const char *sql, int ms)
{
    int lost;
    return PQsendQuery(pc->pg, sql) ? await(pc, ms, &lost) : NULL;
}

/* Set the session's timeouts where nothing else set them, note which
 * session it is, and prepare every statement of Q[] in it. 0 or -1. */
static int prepare_all(pg_conn *pc, int ms)
{
    char set[512];
    snprintf(set, sizeof set,
             "SELECT set_config('statement_timeout', '%d', false)"
             " WHERE current_setting('statement_timeout') = '0';"
             "SELECT set_config('idle_in_transaction_session_timeout', '%d', false)"
             " WHERE current_setting('idle_in_transaction_session_timeout') = '0';"
             "SELECT extract(epoch FROM backend_start)::text,"
             " extract(epoch FROM pg_postmaster_start_time())::text"
             " FROM pg_stat_activity WHERE pid = pg_backend_pid()",
             (int)PG_STATEMENT_MS, (int)PG_IDLE_TX_MS);
    PGresult *r = exec_sql(pc, set, ms);
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQnfields(r) == 2;
    if (ok) {
        pc->who.pid = PQbackendPID(pc->pg);
        snprintf(pc->who.backend_start, sizeof pc->who.backend_start, "%s", PQgetvalue(r, 0, 0));
        snprintf(pc->who.server_start, sizeof pc->who.server_start, "%s", PQgetvalue(r, 0, 1));
    }
    PQclear(r);
    for (int i = 0; ok && i < Q__COUNT; i++) {
        int lost;
        r = PQsendPrepare(pc->pg, Q[i].name, Q[i].sql, Q[i].n, Q[i].types) ? await(pc, ms, &lost)
                                                                            : NULL;
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok && !pc->broken && PQstatus(pc->pg) == CONNECTION_OK)
            log_fail("prepare", pc, r); /* a bug in Q[] or a schema that is not ours */
        PQclear(r);
    }
    if (!ok)
        return -1;
    pc->prepared = 1;
    return 0;
}

/* --- how long an operation may wait ----------------------------------------- */

/* The end (mono_ms) of the store operation this thread runs: each of its
 * waits (connecting, preparing, a statement, settling a lost answer) is cut
 * to what is left of it. 0: none (the store's own connection at open). */
static _Thread_local long long op_end;

/* A store operation starts: a read, a claim, a cache write may wait the
 * store's deadline in all; a write (`write`) PG_RESOLVE_MS more. */
static void op_begin(const pg_store *s, int write)
{
    op_end = mono_ms() + s->deadline_ms + (write ? PG_RESOLVE_MS : 0);
}

/* How long one wait may last: the deadline, cut to what the operation has
 * left (0: nothing). */
static int op_left(const pg_store *s)
{
    long long left = op_end ? op_end - mono_ms() : s->deadline_ms;
    return left < 0 ? 0 : left > s->deadline_ms ? s->deadline_ms : (int)left;
}

/* pc's last answer did not come within `ms`: when that was the whole
 * deadline (not only what the operation had left), the database stops
 * answering. */
static void note_late(pg_store *s, const pg_conn *pc, int ms)
{
    if (pc && pc->late && ms >= s->deadline_ms)
        __atomic_store_n(&s->quiet_until, mono_ms() + PG_QUIET_MS, __ATOMIC_RELAXED);
}

static int quiet(pg_store *s)
{
    return mono_ms() < __atomic_load_n(&s->quiet_until, __ATOMIC_RELAXED);
}

/* A new connection to the store's database, nonblocking, within what the
 * operation has left. */
static pg_conn *conn_new(pg_store *s)
{
    pg_conn *pc = calloc(1, sizeof *pc);
    int late = 0;
    if (pc && !(pc->pg = pg_connect_by(s->url, mono_ms() + op_left(s), &late))) {
        pc->late = late;
        note_late(s, pc, s->deadline_ms);
        free(pc);
        return NULL;
    }
    if (pc && PQsetnonblocking(pc->pg, 1) != 0) {
        conn_drop(pc);
        return NULL;
    }
    return pc;
}

/* An idle connection has nothing to read: when its socket is readable,
 * the server ended the session (a restart, a terminated backend: a FATAL
 * message, then the end). 1 when it is dead. */
static int idle_dead(pg_conn *pc)
{
    struct pollfd p = {.fd = PQsocket(pc->pg), .events = POLLIN};
    if (p.fd < 0)
        return 1;
    if (poll(&p, 1, 0) <= 0)
        return 0;
    return !PQconsumeInput(pc->pg) || PQstatus(pc->pg) != CONNECTION_OK;
}

/* A connection ready to run Q[], or NULL (the database is unreachable, or
 * did not answer in time a moment ago). */
static pg_conn *conn_take(pg_store *s)
{
    pg_conn *pc = NULL;
    if (quiet(s))
        return NULL;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        pc = s->nidle > 0 ? s->idle[--s->nidle] : NULL;
        pthread_mutex_unlock(&s->mu);
        if (!pc || !idle_dead(pc))
            break;
        conn_drop(pc); /* its server session ended while it sat in the pool */
    }
    if (!pc && !(pc = conn_new(s)))
        return NULL;
    int ms = op_left(s);
    if (pc->prepared || prepare_all(pc, ms) == 0)
        return pc;
    note_late(s, pc, ms);
    conn_drop(pc);
    return NULL;
}

static void conn_give(pg_store *s, pg_conn *pc)
{
    if (!pc)
        return;
    /* never pool a broken connection or one left inside a transaction */
    if (pc->broken || PQstatus(pc->pg) != CONNECTION_OK ||
        PQtransactionStatus(pc->pg) != PQTRANS_IDLE) {
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

/* Send prepared statement q on *pcp and wait for its answer (the store's
 * deadline). NULL when none came: *lost (may be NULL) says whether the
 * request may have run (SENT_LOST). The result may be an error result;
 * PQresultStatus(NULL) is PGRES_FATAL_ERROR and PQclear(NULL) is fine. */
static PGresult *send_q(pg_store *s, pg_conn *pc, int q, const char *const *vals, const int *lens,
                        const int *fmts, int binary_result, int *lost)
{
    int l = SENT_NOT, ms = op_left(s);
    PGresult *r = PQsendQueryPrepared(pc->pg, Q[q].name, Q[q].n, vals, lens, fmts, binary_result)
                      ? await(pc, ms, &l)
                      : NULL;
    if (!r && l == SENT_NOT && PQstatus(pc->pg) != CONNECTION_OK)
        pc->broken = 1;
    note_late(s, pc, ms);
    if (lost)
        *lost = r ? SENT_NOT : l;
    return r;
}

/* A statement that may run twice (reads, snap_put's conditional UPDATE):
 * on a connection found broken (a server restart, a killed backend) it
 * runs once more on a new one (*pcp replaced); not after a timeout (a
 * server that does not answer would only make the caller wait twice). */
static PGresult *run(pg_store *s, pg_conn **pcp, int q, const char *const *vals, const int *lens,
                     const int *fmts, int binary_result)
{
    PGresult *r = send_q(s, *pcp, q, vals, lens, fmts, binary_result, NULL);
    if (r || !(*pcp)->broken || (*pcp)->late)
        return r;
    conn_drop(*pcp);
    if (!(*pcp = conn_take(s)))
        return NULL;
    return send_q(s, *pcp, q, vals, lens, fmts, binary_result, NULL);
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

/* --- writes whose answer was lost ------------------------------------------ */

/* The answer to a write may be lost after the request reached the server
 * (a restart, a killed backend, a frozen host): it may or may not have
 * committed, and the backend that got it may even be working on it still
 * (a frozen process resumes and commits). Such a write is never reported
 * as failed nor sent again blindly: write_q() takes a new connection,
 * makes sure the session that got the write is over (the server was
 * restarted, the backend is gone, or it is ended now: Q_OVER), then reads
 * the store to find out (landed(): 1 it is there, 0 it is not, or a final
 * ERR_ answer; ERR_STORE when the check itself got no answer), sends it
 * again only when it is not there, and gives up after PG_RESOLVE_MS with
 * ERR_OUTCOME_UNKNOWN when the store could not tell (a client retries
 * with the same Idempotency-Key, or reads the game). */
typedef int (*landed_fn)(pg_store *s, pg_conn *pc, const void *arg);

enum { WQ_ANSWER = 1, PG_END_WAIT_MS = 1500 };

/* A write: prepared statement q and its parameters; `tx`: it stores an
 * answer (Q_CREATE_K, Q_COMMIT_K) and runs in a transaction of its own,
 * committed only when its counts say it wrote and stored (both 1). */
typedef struct wparams {
    int q, tx;
    const char *const *vals;
    const int *lens, *fmts;
} wparams;

/* Simple-protocol `sql` on pc: 0, or -1 (*lost as await()). */
static int send_sql(pg_store *s, pg_conn *pc, const char *sql, int *lost)
{
    *lost = SENT_NOT;
    int ms = op_left(s);
    PGresult *r = PQsendQuery(pc->pg, sql) ? await(pc, ms, lost) : NULL;
    note_late(s, pc, ms);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok && !pc->broken)
        pc->broken = 1; /* a transaction in an unknown state: never reused */
    return ok ? 0 : -1;
}

/* Both counts of a keyed write's answer are 1. */
static int wrote_and_stored(const PGresult *r)
{
    return PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQnfields(r) >= 2 &&
           strcmp(PQgetvalue(r, 0, 0), "1") == 0 && strcmp(PQgetvalue(r, 0, 1), "1") == 0;
}

/* Send write w on pc: its answer, or NULL with *lost (SENT_LOST only when
 * a COMMIT may have landed: before it, a transaction cannot commit). */
static PGresult *send_write(pg_store *s, pg_conn *pc, const wparams *w, int *lost)
{
    if (!w->tx)
        return send_q(s, pc, w->q, w->vals, w->lens, w->fmts, 0, lost);
    *lost = SENT_NOT;
    int l;
    if (send_sql(s, pc, "BEGIN", &l))
        return NULL;
    PGresult *r = send_q(s, pc, w->q, w->vals, w->lens, w->fmts, 0, &l);
    if (!r) {
        pc->broken = 1;
        return NULL;
    }
    int commit = wrote_and_stored(r);
    if (send_sql(s, pc, commit ? "COMMIT" : "ROLLBACK", &l) == 0 || !commit)
        return r; /* a ROLLBACK without answer: nothing was committed either way */
    PQclear(r);
    *lost = l;
    return NULL;
}

/* 1 the session `who` is over, 0 it still runs (frozen: not ended in
 * time), ERR_STORE no answer. */
static int session_over(pg_store *s, pg_conn *pc, const pg_session *who)
{
    char pid[16], wait[16];
    snprintf(pid, sizeof pid, "%d", who->pid);
    snprintf(wait, sizeof wait, "%d", (int)PG_END_WAIT_MS);
    const char *v[4] = {pid, who->backend_start, who->server_start, wait};
    PGresult *r = send_q(s, pc, Q_OVER, v, NULL, NULL, 0, NULL);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                  ? *PQgetvalue(r, 0, 0) == 't'
                  : ERR_STORE;
    PQclear(r);
    return ret;
}

/* WQ_ANSWER with *r the answer to interpret (*pcp the connection it came
 * on), or 0 (the write landed), or an ERR_ code. */
static int write_q(pg_store *s, pg_conn **pcp, const wparams *w, landed_fn landed,
                   const void *arg, PGresult **r)
{
    pg_conn *pc = *pcp;
    long long end = -1; /* set at the first lost answer or failed send */
    int ret;
    for (;;) {
        int lost = SENT_NOT;
        if (pc && (*r = send_write(s, pc, w, &lost))) {
            ret = WQ_ANSWER;
            break;
        }
        if (end < 0) /* within what the write has left */
            end = mono_ms() + PG_RESOLVE_MS < op_end ? mono_ms() + PG_RESOLVE_MS : op_end;
        pg_session who = pc ? pc->who : (pg_session){0};
        while (lost == SENT_LOST) { /* it may commit: look before anything else */
            conn_drop(pc);
            pc = conn_take(s);
            int l = pc ? session_over(s, pc, &who) : ERR_STORE;
            if (l == 1)
                l = landed(s, pc, arg);
            else if (l == 0)
                l = ERR_STORE; /* still running: ask again */
            if (l != ERR_STORE) {
                int found = l == 1 ? FOUND_LANDED : l == 0 ? FOUND_ABSENT
                            : l == ERR_OUTCOME_UNKNOWN ? FOUND_UNKNOWN : FOUND_OTHER;
                __atomic_add_fetch(&s->lost_found[found], 1, __ATOMIC_RELAXED);
                if (l != 0) {
                    ret = l == 1 ? 0 : l;
                    goto done;
                }
                lost = SENT_NOT; /* not there and never will be: send it again */
            } else if (mono_ms() >= end) {
                __atomic_add_fetch(&s->lost_found[FOUND_UNKNOWN], 1, __ATOMIC_RELAXED);
                ret = ERR_OUTCOME_UNKNOWN;
                goto done;
            } else {
                usleep(200 * 1000);
            }
        }
        if (pc && pc->broken) {
            conn_drop(pc);
            pc = NULL;
        }
        if (!pc && !(pc = conn_take(s))) { /* nothing was sent: a plain failure */
            if (mono_ms() >= end) {
                ret = ERR_STORE;
                goto done;
            }
            usleep(200 * 1000);
        }
    }
done:
    *pcp = pc;
    return ret;
}

/* --- operations ------------------------------------------------------------ */

static int pg_get(store *base, const char *id, store_row *out)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    memset(out, 0, sizeof *out);
    out->snap_version = -1;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    const char *v[1] = {id};
    PGresult *r = run(s, &pc, Q_GET, v, NULL, NULL, 1);
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
    op_begin(s, 0);
    *origin = NULL;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    const char *v[1] = {id};
    PGresult *r = run(s, &pc, Q_ORIGIN, v, NULL, NULL, 0);
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

/* landed() of a create: does the games row hold exactly (id, version,
 * meta)? The meta holds the new seats' token hashes: no other request
 * writes the same. */
static int create_landed(pg_store *s, pg_conn *pc, const void *arg)
{
    const store_row *row = arg;
    char vb[24];
    fmt_i64(vb, sizeof vb, row->version);
    const char *v[3] = {row->id, vb, row->meta};
    PGresult *r = send_q(s, pc, Q_SAME, v, NULL, NULL, 0, NULL);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) > 0 : ERR_STORE;
    PQclear(r);
    return ret;
}

/* landed() of a keyed write, by its key's row: stored by this write (its
 * owner): landed; stored by another request with the key: ERR_IDEM_BUSY
 * (the caller answers what that one stored); not stored: not landed. */
static int answer_landed(pg_store *s, pg_conn *pc, const void *arg);

/* The answer's parameters at v[first..first+3] (binary key, fingerprint
 * and answer, text keep). */
static void answer_params(const store_answer *a, const char **v, int *lens, int *fmts, int first,
                          char keep[16])
{
    snprintf(keep, 16, "%d", a->keep_s);
    const unsigned char *bin[3] = {a->id, a->fingerprint, a->answer};
    size_t n[3] = {STORE_IDEM_HASH, STORE_IDEM_HASH, a->answer_len};
    for (int i = 0; i < 3; i++) {
        v[first + i] = (const char *)bin[i];
        lens[first + i] = (int)n[i];
        fmts[first + i] = 1;
    }
    v[first + 3] = keep;
}

/* A keyed write's counts (Q_CREATE_K, Q_COMMIT_K): 1 wrote and stored, 0
 * wrote nothing, ERR_IDEM_BUSY the key was answered by another request. */
static int keyed_counts(const PGresult *r)
{
    if (wrote_and_stored(r))
        return 1;
    return strcmp(PQgetvalue(r, 0, 0), "1") == 0 ? ERR_IDEM_BUSY : 0;
}

static int pg_create(store *base, const store_row *row, const store_play *plays, int k,
                     const store_answer *a)
{
    pg_store *s = (pg_store *)base;
    if (!row || !row->meta || !row->origin || k < 0 || (k > 0 && !plays) ||
        (row->snap && row->snap_len > (size_t)PG_LEN_MAX) ||
        (a && a->answer_len > (size_t)PG_LEN_MAX))
        return ERR_STORE;
    bbuf b = {0};
    size_t off[PA__COUNT], len[PA__COUNT];
    op_begin(s, 1);
    pg_conn *pc = encode_and_take(s, plays, k, &b, off, len);
    if (!pc)
        return ERR_STORE;
    char vb[24], keep[16];
    fmt_i64(vb, sizeof vb, row->version);
    const char *v[MAXP] = {row->id, row->game, vb, row->meta, row->origin, (const char *)row->snap};
    int lens[MAXP] = {0}, fmts[MAXP] = {0};
    lens[5] = row->snap ? (int)row->snap_len : 0;
    fmts[5] = 1;
    plays_params(&b, off, len, v, lens, fmts, 6);
    if (a)
        answer_params(a, v, lens, fmts, 13, keep);
    wparams w = {.q = a ? Q_CREATE_K : Q_CREATE, .tx = a != NULL, .vals = v, .lens = lens,
                 .fmts = fmts};
    PGresult *r = NULL;
    int ret = a ? write_q(s, &pc, &w, answer_landed, a, &r)
                : write_q(s, &pc, &w, create_landed, row, &r);
    if (ret == WQ_ANSWER) {
        if (PQresultStatus(r) == PGRES_COMMAND_OK) {
            ret = 0;
        } else if (PQresultStatus(r) == PGRES_TUPLES_OK && a) {
            ret = keyed_counts(r) == 1 ? 0 : ERR_IDEM_BUSY;
        } else if (is_unique_violation(r)) {
            ret = ERR_CONFLICT; /* the id is taken (a send again after a lost answer looked first) */
        } else {
            log_fail("create", pc, r);
            ret = ERR_STORE;
        }
    }
    PQclear(r);
    conn_give(s, pc);
    free(b.p);
    return ret;
}

/* What a commit wrote, for commit_landed(). */
typedef struct commit_arg {
    const char *id, *meta;
    int64_t expect;
    const store_play *first; /* its first play, or NULL */
} commit_arg;

/* landed() of a commit, by the game's version and log: its first play is
 * logged under version expect + 1 (a play number is taken once per game),
 * or, for a commit without plays, the game is at expect + 1 with its meta;
 * not there while the game is still at `expect`; another writer's when the
 * game moved on without it (ERR_CONFLICT). */
static int commit_landed(pg_store *s, pg_conn *pc, const void *arg)
{
    const commit_arg *a = arg;
    char nb[24];
    fmt_i64(nb, sizeof nb, a->first ? a->first->n : INT64_MIN);
    char seat[16];
    snprintf(seat, sizeof seat, "%d", a->first ? a->first->seat : -1);
    const char *v[5] = {a->id, nb, a->meta, seat, a->first ? a->first->play : NULL};
    PGresult *r = send_q(s, pc, Q_LANDED, v, NULL, NULL, 0, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 4) {
        ret = ERR_STORE;
    } else if (PQntuples(r) == 0) {
        ret = ERR_NOT_FOUND;
    } else {
        int64_t version = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        int meta_same = *PQgetvalue(r, 0, 1) == 't';
        int logged = !PQgetisnull(r, 0, 2) &&
                     strtoll(PQgetvalue(r, 0, 2), NULL, 10) == a->expect + 1 &&
                     *PQgetvalue(r, 0, 3) == 't';
        if (version == a->expect)
            ret = 0;
        else if (a->first)
            ret = logged ? 1 : ERR_CONFLICT; /* its play number went to another write */
        else /* no play to tell by: the meta, when nothing came after */
            ret = version == a->expect + 1 && meta_same ? 1 : ERR_OUTCOME_UNKNOWN;
    }
    PQclear(r);
    return ret;
}

/* After a compare-and-swap that wrote nothing: ERR_CONFLICT when game `id`
 * exists (its version moved), ERR_NOT_FOUND when not, ERR_STORE when the
 * store did not say (logged as `what`'s). */
static int moved_or_gone(pg_store *s, pg_conn **pc, const char *id, const char *what)
{
    const char *e[1] = {id};
    PGresult *x = run(s, pc, Q_EXISTS, e, NULL, NULL, 0);
    int ret = ERR_STORE;
    if (PQresultStatus(x) == PGRES_TUPLES_OK)
        ret = PQntuples(x) ? ERR_CONFLICT : ERR_NOT_FOUND;
    else
        log_fail(what, *pc, x);
    PQclear(x);
    return ret;
}

static int pg_commit(store *base, const char *id, int64_t expect, const char *meta,
                     const unsigned char *snap, size_t snap_len, const store_play *plays, int k,
                     const store_answer *a)
{
    pg_store *s = (pg_store *)base;
    if (!id || !meta || k < 0 || (k > 0 && !plays) || (snap && snap_len > (size_t)PG_LEN_MAX) ||
        (a && a->answer_len > (size_t)PG_LEN_MAX))
        return ERR_STORE;
    bbuf b = {0};
    size_t off[PA__COUNT], len[PA__COUNT];
    op_begin(s, 1);
    pg_conn *pc = encode_and_take(s, plays, k, &b, off, len);
    if (!pc)
        return ERR_STORE;
    char eb[24], keep[16];
    fmt_i64(eb, sizeof eb, expect);
    const char *v[MAXP] = {id, eb, meta, (const char *)snap};
    int lens[MAXP] = {0}, fmts[MAXP] = {0};
    lens[3] = snap ? (int)snap_len : 0;
    fmts[3] = 1;
    plays_params(&b, off, len, v, lens, fmts, 4);
    if (a)
        answer_params(a, v, lens, fmts, 11, keep);
    char payload[PG_INSTANCE_LEN + 2 + 64];
    snprintf(payload, sizeof payload, "%s %s", s->instance, id);
    v[a ? 15 : 11] = payload;
    commit_arg arg = {.id = id, .meta = meta, .expect = expect, .first = k ? &plays[0] : NULL};
    wparams w = {.q = a ? Q_COMMIT_K : Q_COMMIT, .tx = a != NULL, .vals = v, .lens = lens,
                 .fmts = fmts};
    PGresult *r = NULL;
    int ret = a ? write_q(s, &pc, &w, answer_landed, a, &r)
                : write_q(s, &pc, &w, commit_landed, &arg, &r);
    if (ret == WQ_ANSWER) {
        ret = ERR_STORE;
        int wrote = -1; /* 1 it wrote, 0 nothing (version moved or no game) */
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
            wrote = a ? keyed_counts(r) : strcmp(PQgetvalue(r, 0, 0), "1") == 0;
            if (wrote == ERR_IDEM_BUSY)
                ret = ERR_IDEM_BUSY;
        } else if (is_unique_violation(r) || is_sqlstate(r, "40001") || is_sqlstate(r, "40P01")) {
            /* a play number already taken, a serialization failure or a deadlock
             * (under a stricter default isolation): another writer won */
            ret = ERR_CONFLICT;
        } else {
            log_fail("commit", pc, r);
        }
        if (wrote == 1)
            ret = 0;
        else if (wrote == 0) /* nothing written: the version moved, or no such game */
            ret = moved_or_gone(s, &pc, id, "commit");
    }
    PQclear(r);
    conn_give(s, pc);
    free(b.p);
    return ret;
}

/* As pg_commit without plays or answer: one statement, settled by
 * commit_landed (no play to tell by: the version and the meta) when its
 * answer is lost. */
static int pg_rewind(store *base, const char *id, int64_t expect, const char *meta,
                     const unsigned char *snap, size_t snap_len, long keep)
{
    pg_store *s = (pg_store *)base;
    if (!id || !meta || keep < -1 || (snap && snap_len > (size_t)PG_LEN_MAX))
        return ERR_STORE;
    op_begin(s, 1);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char eb[24], kb[24], payload[PG_INSTANCE_LEN + 2 + 64];
    fmt_i64(eb, sizeof eb, expect);
    fmt_i64(kb, sizeof kb, keep);
    snprintf(payload, sizeof payload, "%s %s", s->instance, id);
    const char *v[6] = {id, eb, meta, (const char *)snap, kb, payload};
    int lens[6] = {0, 0, 0, snap ? (int)snap_len : 0, 0, 0}, fmts[6] = {0, 0, 0, 1, 0, 0};
    commit_arg arg = {.id = id, .meta = meta, .expect = expect, .first = NULL};
    wparams w = {.q = Q_REWIND, .tx = 0, .vals = v, .lens = lens, .fmts = fmts};
    PGresult *r = NULL;
    int ret = write_q(s, &pc, &w, commit_landed, &arg, &r);
    if (ret == WQ_ANSWER) {
        ret = ERR_STORE;
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
            ret = strcmp(PQgetvalue(r, 0, 0), "1") == 0 ? 0 : moved_or_gone(s, &pc, id, "rewind");
        } else if (is_sqlstate(r, "40001") || is_sqlstate(r, "40P01")) {
            ret = ERR_CONFLICT;
        } else {
            log_fail("rewind", pc, r);
        }
    }
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_snap_put(store *base, const char *id, int64_t version, const unsigned char *snap,
                       size_t snap_len)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    if (snap && snap_len > (size_t)PG_LEN_MAX)
        return ERR_STORE;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char vb[24];
    fmt_i64(vb, sizeof vb, version);
    const char *v[3] = {id, vb, (const char *)snap};
    int lens[3] = {0, 0, snap ? (int)snap_len : 0}, fmts[3] = {0, 0, 1};
    PGresult *r = run(s, &pc, Q_SNAP, v, lens, fmts, 0); /* conditional: may run twice */
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
    op_begin(s, 0);
    *out = NULL;
    *k = 0;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char ab[24], lb[24];
    fmt_i64(ab, sizeof ab, after);
    fmt_i64(lb, sizeof lb, limit);
    const char *v[4] = {id, ab, with_notes ? "t" : "f", limit > 0 ? lb : NULL}; /* LIMIT NULL: all */
    PGresult *r = run(s, &pc, Q_PLAYS, v, NULL, NULL, 0);
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

/* A delete run again after a lost answer finds the game gone when the
 * first run had deleted it: ERR_NOT_FOUND, which is what the caller then
 * sees (the game is gone either way). `before`: only when the game's last
 * write is before it (NULL: any). */
static int del_before(pg_store *s, const char *id, const char *before)
{
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    const char *v[2] = {id, before};
    PGresult *r = run(s, &pc, Q_DEL, v, NULL, NULL, 0); /* plays, notes: ON DELETE CASCADE */
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK)
        ret = strcmp(PQcmdTuples(r), "0") == 0 ? ERR_NOT_FOUND : 0;
    else
        log_fail("delete", pc, r);
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_notes(store *base, const char *id, int seat, store_card_note **out, int *k)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    *out = NULL;
    *k = 0;
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char sb[16];
    snprintf(sb, sizeof sb, "%d", seat);
    const char *v[2] = {id, sb};
    PGresult *r = run(s, &pc, Q_NOTES, v, NULL, NULL, 0);
    int ret = ERR_STORE, n = 0;
    store_card_note *p = NULL;
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 4) {
        log_fail("notes", pc, r);
        goto done;
    }
    n = PQntuples(r);
    if (n && !(p = calloc((size_t)n, sizeof *p)))
        goto done;
    for (int i = 0; i < n; i++) {
        p[i].seat = (int)strtol(PQgetvalue(r, i, 0), NULL, 10);
        snprintf(p[i].card, sizeof p[i].card, "%s", PQgetvalue(r, i, 1));
        p[i].at_ms = strtoll(PQgetvalue(r, i, 3), NULL, 10);
        if (dup_val(r, i, 2, &p[i].text)) {
            store_notes_free(p, i + 1);
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

/* One statement (the upsert or the delete, and whether the game exists),
 * the same when run twice: run() may. */
static int pg_note_put(store *base, const char *id, int seat, const char *card, const char *text,
                       int max)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    int set = text && *text;
    char sb[16], tb[24], mb[24];
    snprintf(sb, sizeof sb, "%d", seat);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fmt_i64(tb, sizeof tb, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    fmt_i64(mb, sizeof mb, max);
    const char *v[6] = {id, sb, card, text, tb, mb};
    PGresult *r = run(s, &pc, set ? Q_NOTE_SET : Q_NOTE_DEL, v, NULL, NULL, 0);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQnfields(r) == 2) {
        int done = strcmp(PQgetvalue(r, 0, 0), "0") != 0, game = *PQgetvalue(r, 0, 1) == 't';
        ret = !game ? ERR_NOT_FOUND : done || !set ? 0 : ERR_FORBIDDEN;
    } else {
        log_fail("note_put", pc, r);
    }
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_del(store *base, const char *id)
{
    return del_before((pg_store *)base, id, NULL);
}

static int pg_del_aged(store *base, const char *id, int64_t before)
{
    char b[24];
    fmt_i64(b, sizeof b, before);
    return del_before((pg_store *)base, id, b);
}

static int pg_ages(store *base, const char *after, int limit, store_age *out, int *k)
{
    pg_store *s = (pg_store *)base;
    *k = 0;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char lb[24];
    fmt_i64(lb, sizeof lb, limit);
    const char *v[2] = {after ? after : "", lb};
    PGresult *r = run(s, &pc, Q_AGES, v, NULL, NULL, 0);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 2) {
        for (int i = 0; i < PQntuples(r) && *k < limit; i++) {
            snprintf(out[*k].id, sizeof out[*k].id, "%s", PQgetvalue(r, i, 0));
            out[(*k)++].written = strtoll(PQgetvalue(r, i, 1), NULL, 10);
        }
        ret = 0;
    } else {
        log_fail("ages", pc, r);
    }
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

/* The database's size from pg_database_size into s->size: it sums the
 * database's files, not a thing to do per request. */
static void size_now(pg_store *s)
{
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    PGresult *r = pc ? run(s, &pc, Q_SIZE, NULL, NULL, NULL, 0) : NULL;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        __atomic_store_n(&s->size, strtoll(PQgetvalue(r, 0, 0), NULL, 10), __ATOMIC_RELAXED);
    PQclear(r);
    conn_give(s, pc);
    __atomic_store_n(&s->sized_ms, mono_ms(), __ATOMIC_RELAXED); /* an answer or not */
}

static void *sizer(void *arg)
{
    pg_store *s = arg;
    size_now(s);
    __atomic_store_n(&s->sizing, 0, __ATOMIC_RELEASE);
    return NULL;
}

/* The size as of its last look (at open, then every PG_SIZE_EVERY_S at
 * most, in a thread of its own: a database that does not answer holds no
 * request). PostgreSQL's free disk space is not known here. */
static int pg_room(store *base, store_room *out)
{
    pg_store *s = (pg_store *)base;
    memset(out, 0, sizeof *out);
    out->free_bytes = -1;
    int idle = 0;
    if (mono_ms() - __atomic_load_n(&s->sized_ms, __ATOMIC_RELAXED) >= PG_SIZE_EVERY_S * 1000LL &&
        __atomic_compare_exchange_n(&s->sizing, &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        if (s->sizer_made) /* the last one, done (sizing was 0) */
            pthread_join(s->sizer, NULL);
        s->sizer_made = pthread_create(&s->sizer, NULL, sizer, s) == 0;
        if (!s->sizer_made)
            __atomic_store_n(&s->sizing, 0, __ATOMIC_RELEASE);
    }
    out->bytes = __atomic_load_n(&s->size, __ATOMIC_RELAXED);
    return 0;
}

static int pg_ping(store *base)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    PGresult *r = run(s, &pc, Q_PING, NULL, NULL, NULL, 0);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : ERR_STORE;
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

/* --- idempotency keys ----------------------------------------------------- */

/* A text or bytea value of a binary result, copied into out (n bytes). */
static void bin_text(const PGresult *r, int row, int col, char *out, size_t n)
{
    snprintf(out, n, "%.*s", PQgetisnull(r, row, col) ? 0 : PQgetlength(r, row, col),
             PQgetvalue(r, row, col));
}

/* Columns 1.. of Q_IDEM_CLAIM / Q_IDEM_GET (IDEM_COLS, binary) into *k.
 * 0, ERR_NOT_FOUND (NULLs: no row), ERR_STORE (no memory). */
static int idem_row(const PGresult *r, store_idem *k)
{
    if (PQgetisnull(r, 0, 1) || PQgetlength(r, 0, 1) != STORE_IDEM_HASH)
        return ERR_NOT_FOUND;
    memcpy(k->fingerprint, PQgetvalue(r, 0, 1), STORE_IDEM_HASH);
    bin_text(r, 0, 2, k->owner, sizeof k->owner);
    k->done = PQgetlength(r, 0, 3) == 1 && *PQgetvalue(r, 0, 3) == 1;
    k->live = PQgetlength(r, 0, 4) == 1 && *PQgetvalue(r, 0, 4) == 1;
    store_idem_free(k);
    char *answer = NULL;
    if (dup_val(r, 0, 5, &answer))
        return ERR_STORE;
    k->answer = (unsigned char *)answer;
    k->answer_len = answer ? (size_t)PQgetlength(r, 0, 5) : 0;
    return 0;
}

/* The parameters of a statement on a key ($1, binary) and text ones after
 * it (at most 3). */
typedef struct key_params {
    const char *v[4];
    int lens[4], fmts[4];
} key_params;

static key_params key_and(const unsigned char *id, const char *a, const char *b, const char *c)
{
    key_params p = {.v = {(const char *)id, a, b, c}, .lens = {STORE_IDEM_HASH}, .fmts = {1}};
    return p;
}

static int pg_idem_claim(store *base, store_idem *k, int lease_s)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    char ls[16];
    snprintf(ls, sizeof ls, "%d", lease_s);
    key_params p = key_and(k->id, (const char *)k->fingerprint, k->owner, ls);
    p.lens[1] = STORE_IDEM_HASH;
    p.fmts[1] = 1;
    int ret = ERR_STORE;
    /* a row that came in between this statement's snapshot and its insert
     * shows in neither: ask again */
    for (int tries = 0; tries < 3 && ret == ERR_STORE; tries++) {
        PGresult *r = run(s, &pc, Q_IDEM_CLAIM, p.v, p.lens, p.fmts, 1);
        int64_t claimed = 0;
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
            bin_i64(r, 0, 0, &claimed)) {
            log_fail("idempotency claim", pc, r);
            PQclear(r);
            break;
        }
        if (claimed == 1)
            ret = 0;
        else if (idem_row(r, k) == 0)
            ret = ERR_IDEM_BUSY;
        PQclear(r);
    }
    conn_give(s, pc);
    return ret;
}

/* A conditional write of a key's claim (take, release): 0 when a row
 * changed, else `none`. */
static int idem_write(pg_store *s, int q, const key_params *p, int none)
{
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    PGresult *r = run(s, &pc, q, p->v, p->lens, p->fmts, 0); /* conditional: may run twice */
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_COMMAND_OK)
        ret = strcmp(PQcmdTuples(r), "0") == 0 ? none : 0;
    else
        log_fail("idempotency", pc, r);
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static int pg_idem_take(store *base, const unsigned char *id, const char *from, const char *to,
                        int lease_s)
{
    char ls[16];
    snprintf(ls, sizeof ls, "%d", lease_s);
    key_params p = key_and(id, from, to, ls);
    return idem_write((pg_store *)base, Q_IDEM_TAKE, &p, ERR_IDEM_BUSY);
}

static int pg_idem_release(store *base, const unsigned char *id, const char *owner)
{
    key_params p = key_and(id, owner, NULL, NULL);
    return idem_write((pg_store *)base, Q_IDEM_RELEASE, &p, 0);
}

/* The key's row, read on pc (no second try). */
static int idem_get_on(pg_store *s, pg_conn *pc, store_idem *k)
{
    key_params p = key_and(k->id, NULL, NULL, NULL);
    PGresult *r = send_q(s, pc, Q_IDEM_GET, p.v, p.lens, p.fmts, 1, NULL);
    int ret = ERR_STORE;
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        log_fail("idempotency get", pc, r);
    else
        ret = idem_row(r, k);
    PQclear(r);
    return ret;
}

static int pg_idem_get(store *base, store_idem *k)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    int ret = idem_get_on(s, pc, k);
    if (ret == ERR_STORE && pc->broken && !pc->late) { /* once more on a new connection */
        conn_drop(pc);
        if (!(pc = conn_take(s)))
            return ERR_STORE;
        ret = idem_get_on(s, pc, k);
    }
    conn_give(s, pc);
    return ret;
}

/* landed() of a keyed write: the key's answer is this write's (the same
 * sealed bytes: each sealing has a nonce of its own), another request's
 * (ERR_IDEM_BUSY), or there is none (not landed). */
static int answer_landed(pg_store *s, pg_conn *pc, const void *arg)
{
    const store_answer *a = arg;
    store_idem k = {0};
    memcpy(k.id, a->id, sizeof k.id);
    int ret = idem_get_on(s, pc, &k);
    int mine = ret == 0 && k.done && k.answer_len == a->answer_len &&
               memcmp(k.answer, a->answer, a->answer_len) == 0;
    int done = k.done;
    store_idem_free(&k);
    if (ret == ERR_NOT_FOUND)
        return 0;
    if (ret)
        return ERR_STORE;
    if (!done)
        return 0;
    return mine ? 1 : ERR_IDEM_BUSY;
}

static int pg_idem_purge(store *base)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    PGresult *r = run(s, &pc, Q_IDEM_PURGE, NULL, NULL, NULL, 0);
    int ret = ERR_STORE;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        ret = (int)strtol(PQgetvalue(r, 0, 0), NULL, 10);
    else
        log_fail("idempotency purge", pc, r);
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

/* --- live events across processes (LISTEN/NOTIFY) ------------------------
 * Every commit announces its game on PG_CHANNEL (pg_notify in the commit's
 * statement: sent when, and only if, it commits). One thread per process
 * listens on a connection of its own and passes each game id that another
 * process wrote to `changed` (api: notify.h, which wakes that game's event
 * streams; they read the store again). Its own writes it skips (the
 * payload names the process): they woke their streams already. Whenever
 * the listening connection is (re)made, changed(NULL): everything may
 * have moved while nobody listened. A broken connection is made again
 * (after a second, then up to 8 s apart); the streams keep polling the
 * store meanwhile, as they always do, only less often when nothing
 * happens. */

enum { LISTEN_POLL_MS = 500, LISTEN_RETRY_MAX_MS = 8000 };

/* Sleep ms, or less when the store closes. */
static void nap(pg_store *s, int ms)
{
    for (int t = 0; t < ms && !__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE); t += 50)
        usleep(50 * 1000);
}

/* One listening connection until it breaks or the store closes. Nothing
 * here blocks longer than the connection's timeout or LISTEN_POLL_MS (a
 * frozen server must not hold the store's close). */
static void listen_once(pg_store *s)
{
    PGconn *c = pg_connect(s->url, NULL, 0);
    if (!c || PQsetnonblocking(c, 1) != 0 || !PQsendQuery(c, "LISTEN " PG_CHANNEL)) {
        PQfinish(c);
        return;
    }
    size_t self = strlen(s->instance);
    int listening = 0;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        struct pollfd p = {.fd = PQsocket(c), .events = POLLIN | (PQflush(c) == 1 ? POLLOUT : 0)};
        int n = poll(&p, 1, LISTEN_POLL_MS);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && !PQconsumeInput(c))
            break;
        while (!PQisBusy(c)) { /* LISTEN's answer */
            PGresult *r = PQgetResult(c);
            if (!r)
                break;
            int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
            PQclear(r);
            if (!ok)
                goto done;
            if (!listening) {
                listening = 1;
                __atomic_add_fetch(&s->connects, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&s->live, 1, __ATOMIC_RELEASE);
                s->changed(NULL, s->changed_arg);
            }
        }
        PGnotify *note;
        while ((note = PQnotifies(c))) {
            const char *pl = note->extra ? note->extra : "";
            const char *id = strchr(pl, ' ');
            if (id && !((size_t)(id - pl) == self && strncmp(pl, s->instance, self) == 0)) {
                __atomic_add_fetch(&s->heard, 1, __ATOMIC_RELAXED);
                s->changed(id + 1, s->changed_arg);
            }
            PQfreemem(note);
        }
        if (PQstatus(c) != CONNECTION_OK)
            break;
    }
done:
    __atomic_store_n(&s->live, 0, __ATOMIC_RELEASE);
    PQfinish(c);
}

static void *listener(void *arg)
{
    pg_store *s = arg;
    int wait = 1000;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        unsigned long before = __atomic_load_n(&s->connects, __ATOMIC_RELAXED);
        listen_once(s);
        if (__atomic_load_n(&s->connects, __ATOMIC_RELAXED) != before)
            wait = 1000; /* it listened for a while: try again soon */
        nap(s, wait);
        if (wait < LISTEN_RETRY_MAX_MS)
            wait *= 2;
    }
    return NULL;
}

static int pg_listen(store *base, void (*changed)(const char *id, void *arg), void *arg)
{
    pg_store *s = (pg_store *)base;
    if (s->listening || !changed)
        return ERR_STORE;
    s->changed = changed;
    s->changed_arg = arg;
    if (pthread_create(&s->listener, NULL, listener, s) != 0)
        return ERR_STORE;
    s->listening = 1;
    return 0;
}

static size_t pg_metrics(store *base, char *buf, size_t n)
{
    pg_store *s = (pg_store *)base;
    static const char *const found[4] = {"landed", "absent", "other", "unknown"};
    size_t k = (size_t)snprintf(
        buf, n,
        "# HELP croupier_store_answers_lost_total Writes whose answer from PostgreSQL was lost"
        " (a restart, a killed backend, no answer in time), by what the server then found:"
        " landed (answered as done), absent (sent again), other (the game moved on or is"
        " gone), unknown (answered 503 outcome-unknown).\n"
        "# TYPE croupier_store_answers_lost_total counter\n");
    for (int i = 0; i < 4 && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "croupier_store_answers_lost_total{found=\"%s\"} %lu\n",
                              found[i], __atomic_load_n(&s->lost_found[i], __ATOMIC_RELAXED));
    if (k < n)
        k += (size_t)snprintf(
            buf + k, n - k,
            "# HELP croupier_store_listening 1 while this process listens for other processes'"
            " writes (LISTEN/NOTIFY), else 0.\n"
            "# TYPE croupier_store_listening gauge\n"
            "croupier_store_listening %d\n"
            "# HELP croupier_store_notifications_total Writes of other processes heard of.\n"
            "# TYPE croupier_store_notifications_total counter\n"
            "croupier_store_notifications_total %lu\n"
            "# HELP croupier_store_listen_connects_total Listening connections made.\n"
            "# TYPE croupier_store_listen_connects_total counter\n"
            "croupier_store_listen_connects_total %lu\n",
            __atomic_load_n(&s->live, __ATOMIC_ACQUIRE),
            __atomic_load_n(&s->heard, __ATOMIC_RELAXED),
            __atomic_load_n(&s->connects, __ATOMIC_RELAXED));
    return k < n ? k : n ? n - 1 : 0;
}

static int pg_schema(store *base)
{
    pg_store *s = (pg_store *)base;
    op_begin(s, 0);
    pg_conn *pc = conn_take(s);
    if (!pc)
        return ERR_STORE;
    PGresult *r = run(s, &pc, Q_SCHEMA, NULL, NULL, NULL, 0);
    int ret = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                  ? (int)strtol(PQgetvalue(r, 0, 0), NULL, 10)
                  : ERR_STORE;
    PQclear(r);
    conn_give(s, pc);
    return ret;
}

static void pg_close(store *base)
{
    pg_store *s = (pg_store *)base;
    if (!s)
        return;
    if (s->listening) {
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
        pthread_join(s->listener, NULL);
    }
    if (s->sizer_made)
        pthread_join(s->sizer, NULL);
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
    .rewind = pg_rewind,
    .snap_put = pg_snap_put,
    .plays = pg_plays,
    .del = pg_del,
    .ping = pg_ping,
    .schema = pg_schema,
    .idem_claim = pg_idem_claim,
    .idem_take = pg_idem_take,
    .idem_release = pg_idem_release,
    .idem_get = pg_idem_get,
    .idem_purge = pg_idem_purge,
    .listen = pg_listen,
    .metrics = pg_metrics,
    .close = pg_close,
    .room = pg_room,
    .ages = pg_ages,
    .del_aged = pg_del_aged,
    .notes = pg_notes,
    .note_put = pg_note_put,
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

/* Schema 3's idempotency keys, one table whose pending rows a write grew
 * into answered ones (kept only to migrate a schema-2 database on through
 * schema 3). */
#define DDL_IDEMPOTENCY_V3                                                              \
    "CREATE TABLE idempotency (id text PRIMARY KEY, fingerprint text NOT NULL,"        \
    " owner text NOT NULL, state smallint NOT NULL, answer bytea,"                     \
    " expires_at timestamptz NOT NULL)"
#define DDL_IDEMPOTENCY_V3_INDEX "CREATE INDEX idempotency_expires ON idempotency (expires_at)"

/* Schema 4: the keys' claims (small, short-lived) and answers (inserted
 * once, at their final size, by the write they answer), apart (store.h). */
#define DDL_IDEMPOTENCY_CLAIMS                                                          \
    "CREATE TABLE idempotency_claims (id bytea PRIMARY KEY, fingerprint bytea NOT NULL," \
    " owner text NOT NULL, expires_at timestamptz NOT NULL)"
#define DDL_IDEMPOTENCY_ANSWERS                                                         \
    "CREATE TABLE idempotency_answers (id bytea PRIMARY KEY, fingerprint bytea NOT NULL," \
    " answer bytea NOT NULL, expires_at timestamptz NOT NULL)"
#define DDL_IDEMPOTENCY_ANSWERS_INDEX                                                   \
    "CREATE INDEX idempotency_answers_expires ON idempotency_answers (expires_at)"

/* Schema 5: the seats' card notes (store.h: store_card_note). */
#define DDL_CARD_NOTES                                                                  \
    "CREATE TABLE card_notes (game_id text NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
    " seat integer NOT NULL, card text NOT NULL, text text NOT NULL, at_ms bigint NOT NULL," \
    " PRIMARY KEY (game_id, seat, card))"

static const char *const CREATE_V5[] = {
    DDL_SCHEMA_VERSION,
    "CREATE TABLE games (id text PRIMARY KEY, game text NOT NULL, version bigint NOT NULL,"
    " meta text NOT NULL, origin text NOT NULL, snap bytea,"
    " snap_version bigint NOT NULL DEFAULT -1,"
    " created_at timestamptz NOT NULL DEFAULT now(),"
    " updated_at timestamptz NOT NULL DEFAULT now())",
    DDL_PLAYS,
    DDL_IDEMPOTENCY_CLAIMS,
    DDL_IDEMPOTENCY_ANSWERS,
    DDL_IDEMPOTENCY_ANSWERS_INDEX,
    DDL_CARD_NOTES,
    "INSERT INTO schema_version (version, note)"
    " VALUES (5, 'origin + play log + snapshot cache + idempotency claims and answers"
    " + card notes')",
};

/* Schema 4 -> 5: the card notes' table. */
static const char *const MIGRATE_V4[] = {
    DDL_CARD_NOTES,
    "INSERT INTO schema_version (version, note) VALUES (5, 'migrated: card notes')",
};

/* Schema 2 -> 3: the idempotency keys' table (as schema 3 had it). */
static const char *const MIGRATE_V2[] = {
    DDL_IDEMPOTENCY_V3,
    DDL_IDEMPOTENCY_V3_INDEX,
    "INSERT INTO schema_version (version, note) VALUES (3, 'migrated: idempotency keys')",
};

/* Schema 3 -> 4: schema 3's rows into the two tables (their hex hashes as
 * bytes, cut to STORE_IDEM_HASH; the answers as they were sealed, which
 * api/idem.c still opens; the pending rows as claims, which run out within
 * their lease), then the old table dropped. */
#define HASH_OF_HEX(col) "decode(substr(" col ", 1, 32), 'hex')"
static const char *const MIGRATE_V3[] = {
    DDL_IDEMPOTENCY_CLAIMS,
    DDL_IDEMPOTENCY_ANSWERS,
    DDL_IDEMPOTENCY_ANSWERS_INDEX,
    "INSERT INTO idempotency_answers (id, fingerprint, answer, expires_at)"
    " SELECT " HASH_OF_HEX("id") ", " HASH_OF_HEX("fingerprint") ", answer, expires_at"
    " FROM idempotency WHERE state = 1 AND answer IS NOT NULL",
    "INSERT INTO idempotency_claims (id, fingerprint, owner, expires_at)"
    " SELECT " HASH_OF_HEX("id") ", " HASH_OF_HEX("fingerprint") ", owner, expires_at"
    " FROM idempotency WHERE state = 0",
    "DROP TABLE idempotency",
    "INSERT INTO schema_version (version, note)"
    " VALUES (4, 'migrated: idempotency claims and compact answers apart')",
};
_Static_assert(STORE_IDEM_HASH == 16, "HASH_OF_HEX takes 32 hex digits");

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

/* Run the n statements of sql[] on c, stopping at the first failure. */
static int exec_all(PGconn *c, const char *const *sql, size_t n, const char *what, char *err,
                    size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++)
        rc = exec_ok(c, sql[i], what, err, errlen);
    return rc;
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

/* Schema `from` (2, 3 or 4) on to 5, step by step. 0 or -1 with a message. */
static int migrate_from(PGconn *c, int from, char *err, size_t errlen)
{
    int rc = from == 2 ? exec_all(c, MIGRATE_V2, sizeof MIGRATE_V2 / sizeof MIGRATE_V2[0],
                                  "migrating schema 2 to 3", err, errlen)
                       : 0;
    if (!rc && from <= 3)
        rc = exec_all(c, MIGRATE_V3, sizeof MIGRATE_V3 / sizeof MIGRATE_V3[0],
                      "migrating schema 3 to 4", err, errlen);
    return rc ? rc
              : exec_all(c, MIGRATE_V4, sizeof MIGRATE_V4 / sizeof MIGRATE_V4[0],
                         "migrating schema 4 to 5", err, errlen);
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
        else if (v == 4 || v == 3 || v == 2) /* an earlier release */
            rc = migrate_from(c, (int)v, err, errlen);
        else if (v > STORE_SCHEMA_VERSION)
            snprintf(err, errlen,
                     "postgres: the database has schema %lld, newer than this build (%d)", v,
                     STORE_SCHEMA_VERSION);
        else
            snprintf(err, errlen,
                     "postgres: schema_version records %lld, which this build (%d) cannot open", v,
                     STORE_SCHEMA_VERSION);
    } else if (!has_games) {
        rc = exec_all(c, CREATE_V5, sizeof CREATE_V5 / sizeof CREATE_V5[0], "creating schema 5",
                      err, errlen);
    } else if (has_state) {
        rc = migrate_v1(c, has_notes, err, errlen);
        if (!rc)
            rc = migrate_from(c, 2, err, errlen);
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

/* How long to wait for an answer: the statement timeout the sessions will
 * have (the URL's, the role's or the database's, else PG_STATEMENT_MS)
 * and PG_DEADLINE_MS more. -1 with a message when it cannot be read. */
static int deadline_of(PGconn *c, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, "SELECT extract(epoch FROM"
                            " current_setting('statement_timeout')::interval) * 1000");
    long long ms = -1;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        ms = (long long)strtod(PQgetvalue(r, 0, 0), NULL);
    else
        set_err(err, errlen, "reading statement_timeout", c, r);
    PQclear(r);
    if (ms < 0)
        return -1;
    if (ms == 0)
        ms = PG_STATEMENT_MS;
    ms += PG_DEADLINE_MS;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
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
    s->size = -1;
    pthread_mutex_init(&s->mu, NULL);
    unsigned char r[PG_INSTANCE_LEN / 2];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        memset(r, 0, sizeof r); /* the name only tells its own notifications apart */
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(s->instance + 2 * i, 3, "%02x", r[i]);
    pg_conn *pc = calloc(1, sizeof *pc);
    if (!pc) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        pg_close(&s->base);
        return ERR_STORE;
    }
    if (!(pc->pg = pg_connect(url, err, errlen)) || schema_setup(pc->pg, err, errlen) != 0 ||
        (s->deadline_ms = deadline_of(pc->pg, err, errlen)) < 0 ||
        PQsetnonblocking(pc->pg, 1) != 0) {
        conn_drop(pc);
        pg_close(&s->base);
        return ERR_STORE;
    }
    conn_give(s, pc); /* prepared on its first use */
    size_now(s);
    *out = &s->base;
    return 0;
}

/* The back end's row (store.c): libpq takes the URL as it is. */
const store_backend store_pg_backend = {
    .name = "postgres",
    .schemes = {"postgres://", "postgresql://", NULL},
    .usage = "postgres://...",
    .open = store_pg_open,
    .no_backup = "a PostgreSQL store is backed up with PostgreSQL's own tool, which reads one "
                 "consistent snapshot while the servers run: pg_dump --format=custom "
                 "--file=FILE 'URL' (restore: pg_restore --dbname=URL FILE; "
                 "docs/operations.md)",
};
