/* test_store_pg.c: the PostgreSQL store (api/store_pg.c) against a real
 * server.
 *
 * Skipped unless CROUPIER_TEST_PG_URL names a database (a libpq URI, e.g.
 * the throwaway cluster of tests/run.sh: postgres://croupier@/croupier?
 * host=DIR&port=PORT). Everything happens in a PostgreSQL schema of its
 * own, croupier_unit (search_path set through the URL's options), dropped
 * and created again before each test, so the database may be shared with
 * other tests; the store's connections carry application_name
 * croupier-unit, which the reconnection test uses to kill them.
 *
 * Covered: schema 5 on an empty database; create / get / origin_get;
 * commit (ok, stale, unknown, a failed commit changes nothing); plays
 * paging and notes; snap_put; delete (plays cascade); threads racing
 * commits; reset-and-retry of killed connections; a commit whose answer
 * is lost on a frozen backend (ERR_OUTCOME_UNKNOWN), and writes whose answer
 * is lost after they committed (a proxy drops it: settled as landed); the in-place migration
 * of a schema-3, a schema-2 and a schema-1 database (and its rollback when a
 * step fails), reopening, refusal of a newer or unknown schema; servers opening
 * at once; the idempotency keys (store_cases.h).
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "store.h"
#include "store_cases.h"

#define SCHEMA "croupier_unit"

static char URL[2048];

/* --- helpers ------------------------------------------------------------- */

static void need_pg(void)
{
    if (!URL[0]) {
        print_message("CROUPIER_TEST_PG_URL not set: skipped\n");
        skip();
    }
}

static void quiet(void *arg, const PGresult *r)
{
    (void)arg;
    (void)r;
}

static PGconn *raw(void)
{
    PGconn *c = PQconnectdb(URL);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("connect %s: %s", URL, PQerrorMessage(c));
    PQsetNoticeReceiver(c, quiet, NULL);
    return c;
}

static void sql(PGconn *c, const char *q)
{
    PGresult *r = PQexec(c, q);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        char m[1024];
        snprintf(m, sizeof m, "%s", PQresultErrorMessage(r));
        PQclear(r);
        fail_msg("%s: %s", q, m);
    }
    PQclear(r);
}

/* The first value of the first row as a malloc'd string ("(null)" for NULL,
 * "(none)" without rows). */
static char *sql1(PGconn *c, const char *q)
{
    PGresult *r = PQexec(c, q);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        char m[1024];
        snprintf(m, sizeof m, "%s", PQresultErrorMessage(r));
        PQclear(r);
        fail_msg("%s: %s", q, m);
    }
    char *v = strdup(PQntuples(r) == 0      ? "(none)"
                     : PQgetisnull(r, 0, 0) ? "(null)"
                                            : PQgetvalue(r, 0, 0));
    PQclear(r);
    return v;
}

static void sql_eq(PGconn *c, const char *q, const char *want)
{
    char *v = sql1(c, q);
    if (strcmp(v, want) != 0) {
        char m[2048];
        snprintf(m, sizeof m, "%s\n  got:  %s\n  want: %s", q, v, want);
        free(v);
        fail_msg("%s", m);
    }
    free(v);
}

static long long sqlnum(PGconn *c, const char *q)
{
    char *v = sql1(c, q);
    long long n = strtoll(v, NULL, 10);
    free(v);
    return n;
}

/* An empty schema croupier_unit. */
static void reset_schema(void)
{
    PGconn *c = raw();
    sql(c, "DROP SCHEMA IF EXISTS " SCHEMA " CASCADE");
    sql(c, "CREATE SCHEMA " SCHEMA);
    PQfinish(c);
}

static store *open_ok(void)
{
    store *s = NULL;
    char err[512] = "";
    int rc = store_open(&s, URL, err, sizeof err);
    if (rc != 0)
        fail_msg("store_open: %d %s", rc, err);
    assert_non_null(s);
    assert_string_equal(s->vt->kind, "postgres");
    return s;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static store_row mkrow(const char *id, const char *game, int64_t version, const char *meta,
                       const char *origin, const void *snap, size_t snap_len)
{
    store_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.game, sizeof r.game, "%s", game);
    r.version = version;
    r.meta = (char *)meta;
    r.origin = (char *)origin;
    r.snap = (unsigned char *)snap;
    r.snap_len = snap_len;
    r.snap_version = snap ? version : -1;
    return r;
}

static store_play mkplay(long n, int seat, int kind, const char *bot, const char *play,
                         const char *record, const char *explanation)
{
    store_play p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.seat = seat;
    p.kind = kind;
    p.bot = (char *)bot;
    p.play = (char *)play;
    p.record = (char *)record;
    p.explanation = (char *)explanation;
    return p;
}

static void assert_str_or_null(const char *got, const char *want)
{
    if (!want)
        assert_null(got);
    else {
        assert_non_null(got);
        assert_string_equal(got, want);
    }
}

static void assert_get(store *s, const char *id, int64_t version, const char *meta,
                       const void *snap, size_t snap_len, int64_t snap_version)
{
    store_row r;
    assert_int_equal(store_get(s, id, &r), 0);
    assert_string_equal(r.id, id);
    assert_int_equal(r.version, version);
    assert_string_equal(r.meta, meta);
    assert_null(r.origin);
    if (!snap) {
        assert_null(r.snap);
        assert_int_equal(r.snap_len, 0);
    } else {
        assert_non_null(r.snap);
        assert_int_equal(r.snap_len, snap_len);
        if (snap_len)
            assert_memory_equal(r.snap, snap, snap_len);
    }
    assert_int_equal(r.snap_version, snap_version);
    store_row_free(&r);
}

static int count_plays(store *s, const char *id, int with_notes)
{
    store_play *p = NULL;
    int k = -1;
    assert_int_equal(store_plays(s, id, 0, 0, with_notes, &p, &k), 0);
    store_plays_free(p, k);
    return k;
}

/* Exact column sets (sorted by name) of the schema-2 tables, fresh or migrated. */
#define COLS_SQL(table)                                                                   \
    "SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||"   \
    " coalesce(column_default, '-'), ', ' ORDER BY column_name) FROM information_schema.columns" \
    " WHERE table_schema = '" SCHEMA "' AND table_name = '" table "'"
static const char *GAMES_COLS =
    "created_at timestamp with time zone NO now(), game text NO -, id text NO -,"
    " meta text NO -, origin text NO -, snap bytea YES -, snap_version bigint NO '-1'::integer,"
    " updated_at timestamp with time zone NO now(), version bigint NO -";
static const char *PLAYS_COLS =
    "at_ms bigint NO -, bot text YES -, explanation text YES -, game_id text NO -,"
    " kind integer NO -, n bigint NO -, play text YES -, record text YES -, seat integer NO -,"
    " version bigint NO -";
static const char *SV_COLS =
    "applied_at timestamp with time zone NO now(), note text NO -, version integer NO -";
static const char *CLAIMS_COLS =
    "expires_at timestamp with time zone NO -, fingerprint bytea NO -, id bytea NO -,"
    " owner text NO -";
static const char *ANSWERS_COLS =
    "answer bytea NO -, expires_at timestamp with time zone NO -, fingerprint bytea NO -,"
    " id bytea NO -";

static const char *NOTES_COLS =
    "at_ms bigint NO -, card text NO -, game_id text NO -, seat integer NO -, text text NO -";

static void assert_schema5(PGconn *c)
{
    sql_eq(c, COLS_SQL("card_notes"), NOTES_COLS);
    sql_eq(c, COLS_SQL("games"), GAMES_COLS);
    sql_eq(c, COLS_SQL("plays"), PLAYS_COLS);
    sql_eq(c, COLS_SQL("schema_version"), SV_COLS);
    sql_eq(c, COLS_SQL("idempotency_claims"), CLAIMS_COLS);
    sql_eq(c, COLS_SQL("idempotency_answers"), ANSWERS_COLS);
    sql_eq(c, "SELECT to_regclass('notes') IS NULL AND to_regclass('idempotency') IS NULL", "t");
    sql_eq(c, "SELECT to_regclass('idempotency_answers_expires') IS NOT NULL", "t");
    /* keys: card_notes(game_id, seat, card) and plays(game_id, n) cascading
     * from games(id), the keys' claims and answers (id),
     * schema_version(version) */
    sql_eq(c,
           "SELECT string_agg(conrelid::regclass::text || ':' || contype::text || ':' ||"
           " pg_get_constraintdef(oid), '; ' ORDER BY conrelid::regclass::text, contype)"
           " FROM pg_constraint WHERE connamespace = '" SCHEMA "'::regnamespace",
           "card_notes:f:FOREIGN KEY (game_id) REFERENCES games(id) ON DELETE CASCADE; "
           "card_notes:p:PRIMARY KEY (game_id, seat, card); "
           "games:p:PRIMARY KEY (id); idempotency_answers:p:PRIMARY KEY (id); "
           "idempotency_claims:p:PRIMARY KEY (id); plays:f:FOREIGN KEY "
           "(game_id) REFERENCES games(id) ON DELETE CASCADE; plays:p:PRIMARY KEY (game_id, n); "
           "schema_version:p:PRIMARY KEY (version)");
}

/* Schema 1 exactly as the previous release's store_pg.c created it. */
static const char *SCHEMA1 =
    "CREATE TABLE games ("
    " id text PRIMARY KEY,"
    " game text NOT NULL,"
    " version bigint NOT NULL,"
    " meta text NOT NULL,"
    " state text NOT NULL,"
    " created_at timestamptz NOT NULL DEFAULT now(),"
    " updated_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE notes ("
    " game_id text NOT NULL,"
    " n bigint NOT NULL,"
    " text text NOT NULL,"
    " PRIMARY KEY (game_id, n))";

/* Schema 2 exactly as the previous release's store_pg.c created it, with
 * a game at version 7 (snapshot of 7) and two plays. */
static const char *SCHEMA2 =
    "CREATE TABLE schema_version (version integer PRIMARY KEY,"
    " applied_at timestamptz NOT NULL DEFAULT now(), note text NOT NULL);"
    "CREATE TABLE games (id text PRIMARY KEY, game text NOT NULL, version bigint NOT NULL,"
    " meta text NOT NULL, origin text NOT NULL, snap bytea,"
    " snap_version bigint NOT NULL DEFAULT -1,"
    " created_at timestamptz NOT NULL DEFAULT now(),"
    " updated_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE plays (game_id text NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    " n bigint NOT NULL, version bigint NOT NULL, seat integer NOT NULL,"
    " kind integer NOT NULL, bot text, play text, record text, explanation text,"
    " at_ms bigint NOT NULL, PRIMARY KEY (game_id, n));"
    "INSERT INTO schema_version (version, note) VALUES (2, 'origin + play log + snapshot cache');"
    "INSERT INTO games (id, game, version, meta, origin, snap, snap_version)"
    " VALUES ('g2', 'hanabi', 7, '{}', '{}', 'snap7', 7);"
    "INSERT INTO plays VALUES ('g2', 1, 3, 0, 0, NULL, '[1]', '{}', NULL, 1),"
    " ('g2', 2, 7, 1, 1, 'rules', '[2]', '{}', 'why', 2)";

/* Schema 3's idempotency table exactly as the previous release's
 * store_pg.c created it (on schema 2), with an answered key, a pending one
 * and an expired answer. */
static const char *SCHEMA3_IDEM =
    "CREATE TABLE idempotency (id text PRIMARY KEY, fingerprint text NOT NULL,"
    " owner text NOT NULL, state smallint NOT NULL, answer bytea,"
    " expires_at timestamptz NOT NULL);"
    "CREATE INDEX idempotency_expires ON idempotency (expires_at);"
    "INSERT INTO schema_version (version, note) VALUES (3, 'migrated: idempotency keys');"
    "INSERT INTO idempotency VALUES"
    " ('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',"
    "  'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',"
    "  '0123456789abcdef:7', 1, '\\x000102ff', now() + interval '1 hour'),"
    " ('aa112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',"
    "  'bbeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',"
    "  '0123456789abcdef:8', 0, NULL, now() + interval '30 seconds'),"
    " ('cc112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',"
    "  'ddeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',"
    "  '0123456789abcdef:9', 1, '\\x05', now() - interval '1 second')";

static const char *SV_ROWS_SQL =
    "SELECT string_agg(version || ':' || note, ' | ' ORDER BY version) FROM schema_version";
#define V2_MIGRATED                                                                     \
    "2:origin + play log + snapshot cache | 3:migrated: idempotency keys | "            \
    "4:migrated: idempotency claims and compact answers apart | 5:migrated: card notes"
#define V3_MIGRATED V2_MIGRATED

/* --- tests --------------------------------------------------------------- */

static void test_fresh_create_get(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    PGconn *c = raw();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL, "5:origin + play log + snapshot cache + idempotency claims and answers"
                          " + card notes");

    static const unsigned char snap[] = {0, 1, 2, 0xff, 0, 'x', 0x80, 0};
    store_row row = mkrow("g1", "hanabi", 3, "{\"m\":1}", "{\"o\":1}", snap, sizeof snap);
    store_play pl[3] = {
        mkplay(1, -1, STORE_NOTE, NULL, NULL, NULL, "an imported note"),
        mkplay(2, 0, STORE_PERSON, NULL, "[\"play\",2]", "{\"r\":2}", "because \"quoted\" ü"),
        mkplay(3, 1, STORE_BOT, "planner", "[3]", "{\"r\":3}", NULL),
    };
    int64_t t0 = now_ms();
    assert_int_equal(store_create(s, &row, pl, 3), 0);
    int64_t t1 = now_ms();
    assert_get(s, "g1", 3, "{\"m\":1}", snap, sizeof snap, 3);

    char *origin = NULL;
    assert_int_equal(store_origin_get(s, "g1", &origin), 0);
    assert_string_equal(origin, "{\"o\":1}");
    free(origin);

    store_play *p = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "g1", 0, 0, 1, &p, &k), 0);
    assert_int_equal(k, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(p[i].n, pl[i].n);
        assert_int_equal(p[i].version, 3);
        assert_int_equal(p[i].seat, pl[i].seat);
        assert_int_equal(p[i].kind, pl[i].kind);
        assert_str_or_null(p[i].bot, pl[i].bot);
        assert_str_or_null(p[i].play, pl[i].play);
        assert_str_or_null(p[i].record, pl[i].record);
        assert_str_or_null(p[i].explanation, pl[i].explanation);
        assert_true(p[i].at_ms >= t0 - 3600000 && p[i].at_ms <= t1 + 3600000); /* a stepping clock */
    }
    store_plays_free(p, k);

    /* unknown ids */
    store_row r;
    assert_int_equal(store_get(s, "nope", &r), ERR_NOT_FOUND);
    assert_null(r.meta);
    assert_null(r.snap);
    origin = (char *)"x";
    assert_int_equal(store_origin_get(s, "nope", &origin), ERR_NOT_FOUND);
    assert_null(origin);

    /* a duplicate id: ERR_CONFLICT, nothing written */
    store_row dup = mkrow("g1", "phazed", 0, "{\"other\":1}", "{}", NULL, 0);
    store_play dp[1] = {mkplay(9, 0, STORE_PERSON, NULL, "[9]", "{}", NULL)};
    assert_int_equal(store_create(s, &dup, dp, 1), ERR_CONFLICT);
    assert_get(s, "g1", 3, "{\"m\":1}", snap, sizeof snap, 3);
    assert_int_equal(count_plays(s, "g1", 1), 3);

    /* no snapshot, no plays */
    store_row g2 = mkrow("g2", "phazed", 0, "{}", "{\"o\":2}", NULL, 0);
    assert_int_equal(store_create(s, &g2, NULL, 0), 0);
    assert_get(s, "g2", 0, "{}", NULL, 0, -1);
    store_play dummy;
    p = &dummy;
    k = 7;
    assert_int_equal(store_plays(s, "g2", 0, 0, 1, &p, &k), 0);
    assert_null(p);
    assert_int_equal(k, 0);

    /* two plays with one number: ERR_CONFLICT and no game either */
    store_row g3 = mkrow("g3", "phazed", 0, "{}", "{}", NULL, 0);
    store_play two[2] = {mkplay(1, 0, STORE_PERSON, NULL, "[1]", "{}", NULL),
                         mkplay(1, 1, STORE_PERSON, NULL, "[1]", "{}", NULL)};
    assert_int_equal(store_create(s, &g3, two, 2), ERR_CONFLICT);
    assert_int_equal(store_get(s, "g3", &r), ERR_NOT_FOUND);
    assert_int_equal(sqlnum(c, "SELECT count(*) FROM plays WHERE game_id = 'g3'"), 0);

    /* NULL meta / origin: refused, no crash */
    store_row bad = mkrow("g4", "phazed", 0, NULL, "{}", NULL, 0);
    assert_int_equal(store_create(s, &bad, NULL, 0), ERR_STORE);

    assert_int_equal(store_ping(s), 0);
    PQfinish(c);
    store_close(s);
}

static void test_commit(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_row row = mkrow("g", "comp10001bo", 0, "{\"v\":0}", "{\"deal\":1}", "s0", 2);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);

    store_play a[2] = {mkplay(1, 0, STORE_PERSON, NULL, "[1]", "{\"a\":1}", "one"),
                       mkplay(2, 1, STORE_FORCED, NULL, "[2]", "{\"a\":2}", NULL)};
    a[0].version = 99; /* ignored */
    int64_t t0 = now_ms();
    assert_int_equal(store_commit(s, "g", 0, "{\"v\":1}", (const unsigned char *)"s1", 2, a, 2), 0);
    assert_get(s, "g", 1, "{\"v\":1}", "s1", 2, 1);
    store_play *p = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "g", 0, 0, 1, &p, &k), 0);
    assert_int_equal(k, 2);
    assert_int_equal(p[0].version, 1);
    assert_int_equal(p[1].version, 1);
    assert_int_equal(p[1].kind, STORE_FORCED);
    assert_true(p[0].at_ms >= t0 - 3600000);
    store_plays_free(p, k);

    /* stale: ERR_CONFLICT, nothing changed */
    store_play b[1] = {mkplay(3, 2, STORE_PERSON, NULL, "[3]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 0, "{\"v\":\"stale\"}", (const unsigned char *)"sx", 2, b, 1),
                     ERR_CONFLICT);
    assert_get(s, "g", 1, "{\"v\":1}", "s1", 2, 1);
    assert_int_equal(count_plays(s, "g", 1), 2);

    /* unknown */
    assert_int_equal(store_commit(s, "nope", 0, "{}", NULL, 0, b, 1), ERR_NOT_FOUND);
    PGconn *c = raw();
    assert_int_equal(sqlnum(c, "SELECT count(*) FROM plays WHERE game_id = 'nope'"), 0);

    /* a play number already taken: ERR_CONFLICT, and the version, meta and
     * snapshot did not move (the UPDATE is undone with the INSERT) */
    store_play d[2] = {mkplay(3, 0, STORE_PERSON, NULL, "[3]", "{}", NULL),
                       mkplay(2, 0, STORE_PERSON, NULL, "[2]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 1, "{\"v\":2}", (const unsigned char *)"s2", 2, d, 2),
                     ERR_CONFLICT);
    assert_get(s, "g", 1, "{\"v\":1}", "s1", 2, 1);
    assert_int_equal(count_plays(s, "g", 1), 2);
    assert_int_equal(sqlnum(c, "SELECT count(*) FROM plays WHERE game_id = 'g' AND n = 3"), 0);

    /* no plays, no snapshot */
    assert_int_equal(store_commit(s, "g", 1, "{\"v\":2}", NULL, 0, NULL, 0), 0);
    assert_get(s, "g", 2, "{\"v\":2}", NULL, 0, -1);
    sql_eq(c, "SELECT updated_at > created_at FROM games WHERE id = 'g'", "t");

    /* bad arguments: refused, no crash */
    assert_int_equal(store_commit(s, "g", 2, NULL, NULL, 0, NULL, 0), ERR_STORE);
    assert_int_equal(store_commit(s, "g", 2, "{}", NULL, 0, NULL, 1), ERR_STORE);
    assert_get(s, "g", 2, "{\"v\":2}", NULL, 0, -1);
    PQfinish(c);
    store_close(s);
}

static void test_plays_paging(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_play pl[10];
    char play[10][16];
    for (int i = 0; i < 10; i++) {
        snprintf(play[i], sizeof play[i], "[%d]", i + 1);
        int note = i + 1 == 3 || i + 1 == 7;
        pl[i] = note ? mkplay(i + 1, -1, STORE_NOTE, NULL, NULL, NULL, "note")
                     : mkplay(i + 1, i % 4, i % 2 ? STORE_BOT : STORE_PERSON,
                              i % 2 ? "random" : NULL, play[i], "{}", NULL);
    }
    store_row row = mkrow("g", "fivecrowns", 7, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, pl, 10), 0);

    static const struct {
        long after, limit;
        int notes, k;
        long first, last;
    } cases[] = {
        {0, 0, 1, 10, 1, 10}, {0, -5, 1, 10, 1, 10}, {0, 4, 1, 4, 1, 4}, {4, 4, 1, 4, 5, 8},
        {8, 4, 1, 2, 9, 10},  {10, 4, 1, 0, 0, 0},   {-100, 1, 1, 1, 1, 1},
        {0, 0, 0, 8, 1, 10},  {2, 2, 0, 2, 4, 5},    {6, 1, 0, 1, 8, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        store_play *p = NULL;
        int k = -1;
        assert_int_equal(store_plays(s, "g", cases[i].after, cases[i].limit, cases[i].notes, &p, &k), 0);
        assert_int_equal(k, cases[i].k);
        if (k) {
            assert_int_equal(p[0].n, cases[i].first);
            assert_int_equal(p[k - 1].n, cases[i].last);
            for (int j = 0; j < k; j++) {
                if (j)
                    assert_true(p[j].n > p[j - 1].n);
                if (!cases[i].notes)
                    assert_int_not_equal(p[j].kind, STORE_NOTE);
                assert_int_equal(p[j].version, 7);
                if (p[j].kind == STORE_BOT)
                    assert_string_equal(p[j].bot, "random");
            }
        } else {
            assert_null(p);
        }
        store_plays_free(p, k);
    }
    store_play *p = NULL;
    int k = -1;
    assert_int_equal(store_plays(s, "unknown", 0, 0, 1, &p, &k), 0);
    assert_int_equal(k, 0);
    assert_null(p);
    store_close(s);
}

static void test_snap_put(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_row row = mkrow("g", "hanabi", 5, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    assert_get(s, "g", 5, "{}", NULL, 0, -1);

    assert_int_equal(store_snap_put(s, "g", 5, (const unsigned char *)"abc", 3), 0);
    assert_get(s, "g", 5, "{}", "abc", 3, 5);
    /* stale or unknown: 0, nothing */
    assert_int_equal(store_snap_put(s, "g", 4, (const unsigned char *)"old", 3), 0);
    assert_get(s, "g", 5, "{}", "abc", 3, 5);
    assert_int_equal(store_snap_put(s, "nope", 5, (const unsigned char *)"x", 1), 0);

    /* 1 MiB of every byte value */
    size_t n = 1 << 20;
    unsigned char *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (unsigned char)(i * 7 + (i >> 9));
    assert_int_equal(store_snap_put(s, "g", 5, big, n), 0);
    assert_get(s, "g", 5, "{}", big, n, 5);
    free(big);

    /* an empty snapshot is a snapshot; NULL is none */
    assert_int_equal(store_snap_put(s, "g", 5, (const unsigned char *)"", 0), 0);
    assert_get(s, "g", 5, "{}", "", 0, 5);
    assert_int_equal(store_snap_put(s, "g", 5, NULL, 0), 0);
    assert_get(s, "g", 5, "{}", NULL, 0, -1);
    /* a commit's snapshot is of the new version */
    assert_int_equal(store_commit(s, "g", 5, "{}", (const unsigned char *)"s6", 2, NULL, 0), 0);
    assert_get(s, "g", 6, "{}", "s6", 2, 6);
    store_close(s);
}

static void test_delete(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_play pl[2] = {mkplay(1, 0, STORE_PERSON, NULL, "[1]", "{}", NULL),
                        mkplay(2, -1, STORE_NOTE, NULL, NULL, NULL, "n")};
    store_row row = mkrow("g", "hanabi", 1, "{}", "{}", "s", 1);
    assert_int_equal(store_create(s, &row, pl, 2), 0);
    store_row keep = mkrow("k", "hanabi", 1, "{}", "{}", "s", 1);
    assert_int_equal(store_create(s, &keep, pl, 2), 0);

    assert_int_equal(store_delete(s, "g"), 0);
    store_row r;
    assert_int_equal(store_get(s, "g", &r), ERR_NOT_FOUND);
    assert_int_equal(count_plays(s, "g", 1), 0);
    PGconn *c = raw();
    assert_int_equal(sqlnum(c, "SELECT count(*) FROM plays WHERE game_id = 'g'"), 0);
    assert_int_equal(sqlnum(c, "SELECT count(*) FROM plays WHERE game_id = 'k'"), 2);
    PQfinish(c);
    assert_int_equal(store_delete(s, "g"), ERR_NOT_FOUND);
    assert_int_equal(store_commit(s, "g", 1, "{}", NULL, 0, NULL, 0), ERR_NOT_FOUND);
    assert_get(s, "k", 1, "{}", "s", 1, 1);
    store_close(s);
}

/* --- threads racing commits on one game ------------------------------------ */

enum { RACERS = 8, WINS = 25 };

typedef struct racer {
    store *s;
    int seat;
    int wins, conflicts, errors;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    char meta[32], snap[32];
    snprintf(meta, sizeof meta, "{\"by\":%d}", r->seat);
    while (r->wins < WINS && r->errors == 0) {
        store_row row;
        if (store_get(r->s, "g", &row) != 0) {
            r->errors++;
            break;
        }
        int64_t v = row.version;
        store_row_free(&row);
        int len = snprintf(snap, sizeof snap, "snap-%lld", (long long)v + 1);
        store_play p[2] = {mkplay((long)(2 * v + 1), r->seat, STORE_PERSON, NULL, "[1]", "{}", NULL),
                           mkplay((long)(2 * v + 2), r->seat, STORE_BOT, "planner", "[2]", "{}", NULL)};
        int rc = store_commit(r->s, "g", v, meta, (const unsigned char *)snap, (size_t)len, p, 2);
        if (rc == 0)
            r->wins++;
        else if (rc == ERR_CONFLICT)
            r->conflicts++;
        else
            r->errors++;
    }
    return NULL;
}

static void test_race(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_row row = mkrow("g", "hanabi", 0, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    pthread_t t[RACERS];
    racer r[RACERS];
    for (int i = 0; i < RACERS; i++) {
        r[i] = (racer){.s = s, .seat = i};
        assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
    }
    int conflicts = 0;
    for (int i = 0; i < RACERS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(r[i].errors, 0);
        assert_int_equal(r[i].wins, WINS);
        conflicts += r[i].conflicts;
    }
    print_message("%d threads x %d commits, %d conflicts\n", RACERS, WINS, conflicts);
    const int64_t total = RACERS * WINS;
    store_row g;
    assert_int_equal(store_get(s, "g", &g), 0);
    assert_int_equal(g.version, total);
    assert_int_equal(g.snap_version, total);
    char want[32];
    snprintf(want, sizeof want, "snap-%lld", (long long)total);
    assert_int_equal(g.snap_len, strlen(want));
    assert_memory_equal(g.snap, want, strlen(want));
    store_row_free(&g);

    /* every write appended exactly its two plays, numbered 1..2*total, of its version */
    store_play *p = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "g", 0, 0, 1, &p, &k), 0);
    assert_int_equal(k, 2 * total);
    int per_seat[RACERS] = {0};
    for (int i = 0; i < k; i++) {
        assert_int_equal(p[i].n, i + 1);
        assert_int_equal(p[i].version, i / 2 + 1);
        assert_in_range(p[i].seat, 0, RACERS - 1);
        if (i % 2)
            assert_int_equal(p[i].seat, p[i - 1].seat);
        per_seat[p[i].seat]++;
    }
    for (int i = 0; i < RACERS; i++)
        assert_int_equal(per_seat[i], 2 * WINS);
    store_plays_free(p, k);
    store_close(s);
}

/* --- broken connections ----------------------------------------------------- */

/* Kill the store's pooled connections (not ours). */
static void kill_store_conns(void)
{
    PGconn *c = raw();
    long long n = sqlnum(c, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                            " WHERE application_name = 'croupier-unit' AND pid <> pg_backend_pid()");
    assert_true(n >= 1);
    for (int i = 0; i < 200; i++) { /* until they are gone */
        if (sqlnum(c, "SELECT count(*) FROM pg_stat_activity WHERE application_name ="
                      " 'croupier-unit' AND pid <> pg_backend_pid()") == 0)
            break;
        usleep(10000);
    }
    PQfinish(c);
}

static void test_reconnect(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_row row = mkrow("g", "hanabi", 0, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    assert_get(s, "g", 0, "{}", NULL, 0, -1);

    kill_store_conns();
    assert_get(s, "g", 0, "{}", NULL, 0, -1); /* reset, prepared again, rerun */

    kill_store_conns();
    store_play p[1] = {mkplay(1, 0, STORE_PERSON, NULL, "[1]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 0, "{\"v\":1}", (const unsigned char *)"s", 1, p, 1), 0);
    assert_get(s, "g", 1, "{\"v\":1}", "s", 1, 1);
    assert_int_equal(count_plays(s, "g", 1), 1);

    kill_store_conns();
    store_row g2 = mkrow("g2", "hanabi", 0, "{\"t\":2}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &g2, p, 1), 0);
    assert_int_equal(count_plays(s, "g2", 1), 1);

    kill_store_conns();
    assert_int_equal(store_snap_put(s, "g", 1, (const unsigned char *)"t", 1), 0);
    kill_store_conns();
    assert_int_equal(count_plays(s, "g", 1), 1);
    kill_store_conns();
    char *o = NULL;
    assert_int_equal(store_origin_get(s, "g", &o), 0);
    free(o);
    kill_store_conns();
    assert_int_equal(store_ping(s), 0);
    kill_store_conns();
    assert_int_equal(store_delete(s, "g2"), 0);
    store_close(s);
}

/* --- a write whose answer is lost ----------------------------------------- */

typedef struct committer {
    store *s;
    int rc;
} committer;

static void *commit_one(void *arg)
{
    committer *c = arg;
    store_play p[1] = {mkplay(1, 0, STORE_PERSON, NULL, "[1]", "{}", NULL)};
    c->rc = store_commit(c->s, "g", 0, "{\"v\":1}", (const unsigned char *)"s", 1, p, 1);
    return NULL;
}

/* The pid of the store's backend running a commit, waiting for it (0: none). */
static int commit_backend(PGconn *c)
{
    for (int i = 0; i < 500; i++) {
        long long pid = sqlnum(c, "SELECT coalesce(max(pid), 0) FROM pg_stat_activity"
                                  " WHERE application_name = 'croupier-unit' AND state = 'active'"
                                  " AND query LIKE 'WITH u AS (UPDATE games%'");
        if (pid)
            return (int)pid;
        usleep(10000);
    }
    return 0;
}

/* The backend that got a commit freezes (SIGSTOP) in the middle of it: no
 * answer comes, and the store cannot end that session (a stopped process
 * does not act on its SIGTERM) nor so tell whether it will commit: the
 * commit is ERR_OUTCOME_UNKNOWN, not a failure. Woken, the session acts on
 * the SIGTERM the store sent and its write never lands. */
static void test_lost_answer(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_row row = mkrow("g", "hanabi", 0, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    PGconn *c = raw();
    sql(c, "CREATE FUNCTION " SCHEMA ".slow() RETURNS trigger LANGUAGE plpgsql"
           " AS $$BEGIN PERFORM pg_sleep(1); RETURN NEW; END$$");
    sql(c, "CREATE TRIGGER slow BEFORE INSERT ON " SCHEMA ".plays"
           " FOR EACH ROW EXECUTE FUNCTION " SCHEMA ".slow()");
    committer w = {.s = s};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, commit_one, &w), 0);
    int pid = commit_backend(c);
    assert_true(pid > 0);
    int stopped = kill(pid, SIGSTOP) == 0;
    pthread_join(t, NULL);
    if (!stopped) { /* the server runs as another user */
        PQfinish(c);
        store_close(s);
        print_message("cannot signal the server's processes: skipped\n");
        skip();
    }
    kill(pid, SIGCONT);
    assert_int_equal(w.rc, ERR_OUTCOME_UNKNOWN);
    char m[2048];
    s->vt->metrics(s, m, sizeof m);
    assert_non_null(strstr(m, "croupier_store_answers_lost_total{found=\"unknown\"} 1\n"));
    for (int i = 0; i < 500; i++) { /* it acts on the store's SIGTERM */
        char q[160];
        snprintf(q, sizeof q, "SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pid);
        if (sqlnum(c, q) == 0)
            break;
        usleep(10000);
    }
    assert_get(s, "g", 0, "{}", NULL, 0, -1); /* its write never landed */
    assert_int_equal(count_plays(s, "g", 1), 0);
    sql(c, "DROP TRIGGER slow ON " SCHEMA ".plays");
    commit_one(&w);
    assert_int_equal(w.rc, 0);
    assert_int_equal(count_plays(s, "g", 1), 1);
    PQfinish(c);
    store_close(s);
}

/* A proxy between the store and the server (a unix socket in a directory
 * of its own, named as libpq looks for it), for answers that are lost
 * after the server committed: once armed, the next bytes the server sends
 * on any connection are dropped and that connection is closed both ways,
 * as a network that fails just then would. */
typedef struct proxy {
    char dir[40], real[100], path[100]; /* sun_path holds 108 */
    int lfd, port, stop;
    int armed; /* atomic: the answer to drop, counted from 1 (0: none) */
    pthread_t acceptor;
} proxy;

typedef struct pipe_pair {
    proxy *px;
    int down, up; /* the store's side, the server's side */
} pipe_pair;

static void *pump(void *arg)
{
    pipe_pair *pp = arg;
    char buf[65536];
    for (;;) {
        struct pollfd p[2] = {{.fd = pp->down, .events = POLLIN}, {.fd = pp->up, .events = POLLIN}};
        if (poll(p, 2, 200) < 0 || __atomic_load_n(&pp->px->stop, __ATOMIC_RELAXED))
            break;
        if (p[0].revents) {
            ssize_t n = read(pp->down, buf, sizeof buf);
            if (n <= 0 || write(pp->up, buf, (size_t)n) != n)
                break;
        }
        if (p[1].revents) {
            ssize_t n = read(pp->up, buf, sizeof buf);
            int left = __atomic_load_n(&pp->px->armed, __ATOMIC_SEQ_CST);
            while (n > 0 && left > 0 &&
                   !__atomic_compare_exchange_n(&pp->px->armed, &left, left - 1, 0,
                                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
                ;
            if (n > 0 && left == 1)
                break; /* the answer is lost */
            if (n <= 0 || write(pp->down, buf, (size_t)n) != n)
                break;
        }
    }
    close(pp->down);
    close(pp->up);
    free(pp);
    return NULL;
}

static void *accept_loop(void *arg)
{
    proxy *px = arg;
    for (;;) {
        int c = accept(px->lfd, NULL, NULL);
        if (c < 0)
            break;
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", px->real);
        int u = socket(AF_UNIX, SOCK_STREAM, 0);
        if (u < 0 || connect(u, (struct sockaddr *)&a, sizeof a) != 0) {
            close(c);
            if (u >= 0)
                close(u);
            continue;
        }
        pipe_pair *pp = malloc(sizeof *pp);
        pthread_t t;
        *pp = (pipe_pair){px, c, u};
        pthread_create(&t, NULL, pump, pp);
        pthread_detach(t);
    }
    return NULL;
}

/* A proxy to the cluster of URL (a unix socket: host=DIR&port=PORT), and
 * the URL that goes through it into `url`. 0, or -1 (not a socket URL). */
static int proxy_start(proxy *px, char *url, size_t n)
{
    const char *h = strstr(URL, "host="), *pt = strstr(URL, "port=");
    if (!h || !pt || h[5] != '/')
        return -1;
    memset(px, 0, sizeof *px);
    px->port = atoi(pt + 5);
    int hl = (int)strcspn(h + 5, "&");
    if (hl > 80)
        return -1;
    snprintf(px->real, sizeof px->real, "%.*s/.s.PGSQL.%d", hl, h + 5, px->port);
    snprintf(px->dir, sizeof px->dir, "/tmp/croupier-proxy-XXXXXX");
    if (!mkdtemp(px->dir))
        return -1;
    snprintf(px->path, sizeof px->path, "%s/.s.PGSQL.%d", px->dir, px->port);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", px->path);
    px->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (px->lfd < 0 || bind(px->lfd, (struct sockaddr *)&a, sizeof a) || listen(px->lfd, 16))
        return -1;
    pthread_create(&px->acceptor, NULL, accept_loop, px);
    /* the test's URL with the proxy's directory as its host */
    snprintf(url, n, "%.*shost=%s%s", (int)(h - URL), URL, px->dir, h + 5 + strcspn(h + 5, "&"));
    return 0;
}

static void proxy_stop(proxy *px)
{
    __atomic_store_n(&px->stop, 1, __ATOMIC_RELAXED);
    shutdown(px->lfd, SHUT_RDWR);
    close(px->lfd);
    pthread_join(px->acceptor, NULL);
    unlink(px->path);
    rmdir(px->dir);
}

/* The answer to a write is lost after the server committed it: the store
 * learns that it landed (by the game's version and log, or by the key's
 * row) and reports success, not a failure, and nothing is written twice. */
static void test_answer_lost_after_commit(void **state)
{
    (void)state;
    need_pg();
    proxy px;
    char url[2048];
    if (proxy_start(&px, url, sizeof url)) {
        print_message("not a unix-socket URL: skipped\n");
        skip();
    }
    reset_schema();
    store *s = NULL;
    char err[512] = "";
    assert_int_equal(store_open(&s, url, err, sizeof err), 0);
    store_row row = mkrow("g", "hanabi", 0, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);

    /* a commit without a key: settled by the game's version and log */
    __atomic_store_n(&px.armed, 1, __ATOMIC_SEQ_CST);
    store_play p[1] = {mkplay(1, 0, STORE_PERSON, NULL, "[1]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 0, "{\"v\":1}", (const unsigned char *)"s", 1, p, 1), 0);
    assert_int_equal(__atomic_load_n(&px.armed, __ATOMIC_SEQ_CST), 0); /* an answer was lost */
    assert_get(s, "g", 1, "{\"v\":1}", "s", 1, 1);
    assert_int_equal(count_plays(s, "g", 1), 1);

    /* a keyed commit (BEGIN, the write, COMMIT: the third answer is
     * COMMIT's): settled by its key's row */
    store_idem k = sc_key("key", "fp", "me:1");
    assert_int_equal(s->vt->idem_claim(s, &k, 30), 0);
    store_answer a = {.id = k.id, .fingerprint = k.fingerprint,
                      .answer = (const unsigned char *)"A", .answer_len = 1, .keep_s = 60};
    __atomic_store_n(&px.armed, 3, __ATOMIC_SEQ_CST);
    p[0] = mkplay(2, 0, STORE_PERSON, NULL, "[2]", "{}", NULL);
    assert_int_equal(s->vt->commit(s, "g", 1, "{\"v\":2}", NULL, 0, p, 1, &a), 0);
    assert_int_equal(__atomic_load_n(&px.armed, __ATOMIC_SEQ_CST), 0);
    assert_get(s, "g", 2, "{\"v\":2}", NULL, 0, -1);
    assert_int_equal(count_plays(s, "g", 1), 2);
    /* a create: settled by its row */
    __atomic_store_n(&px.armed, 1, __ATOMIC_SEQ_CST);
    store_row g2 = mkrow("g2", "hanabi", 1, "{\"t\":1}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &g2, p, 1), 0);
    assert_int_equal(__atomic_load_n(&px.armed, __ATOMIC_SEQ_CST), 0);
    assert_int_equal(count_plays(s, "g2", 1), 1);

    char m[2048];
    s->vt->metrics(s, m, sizeof m);
    assert_non_null(strstr(m, "croupier_store_answers_lost_total{found=\"landed\"} 3\n"));
    store_close(s);
    proxy_stop(&px);
}

static void test_open_errors(void **state)
{
    (void)state;
    need_pg();
    store *s = (store *)&s;
    char err[512] = "";
    assert_int_equal(store_open(&s, "postgres://croupier@/croupier?host=/nonexistent&port=1", err,
                                sizeof err),
                     ERR_STORE);
    assert_null(s);
    assert_non_null(strstr(err, "postgres: connect"));
}

/* --- schema 1 -> 2 ----------------------------------------------------------- */

static void make_schema1(PGconn *c)
{
    sql(c, SCHEMA1);
    sql(c, "INSERT INTO games (id, game, version, meta, state) VALUES"
           " ('g1', 'hanabi', 5, '{\"seats\":[1]}', '{\"state\":\"one\",\"history\":[1,2,3]}'),"
           " ('g2', 'phazed', 0, '{}', '{\"state\":\"two\"}')");
    sql(c, "INSERT INTO notes (game_id, n, text) VALUES"
           " ('g1', 1, 'first'), ('g1', 3, 'third ü'), ('gone', 2, 'an orphan')");
}

static void test_migrate_v1(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    PGconn *c = raw();
    make_schema1(c);
    sql(c, "UPDATE games SET created_at = '2020-01-02T03:04:05Z' WHERE id = 'g1'");

    store *s = open_ok();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL,
           "1:found: the previous release (games.state + notes) | "
           "2:migrated: origin + play log + snapshot cache | 3:migrated: idempotency keys | "
           "4:migrated: idempotency claims and compact answers apart | 5:migrated: card notes");
    sql_eq(c, "SELECT created_at = '2020-01-02T03:04:05Z' FROM games WHERE id = 'g1'", "t");

    assert_get(s, "g1", 5, "{\"seats\":[1]}", NULL, 0, -1);
    assert_get(s, "g2", 0, "{}", NULL, 0, -1);
    char *o = NULL;
    assert_int_equal(store_origin_get(s, "g1", &o), 0);
    assert_string_equal(o, "{\"state\":\"one\",\"history\":[1,2,3]}");
    free(o);
    assert_int_equal(store_origin_get(s, "g2", &o), 0);
    assert_string_equal(o, "{\"state\":\"two\"}");
    free(o);

    store_play *p = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "g1", 0, 0, 1, &p, &k), 0);
    assert_int_equal(k, 2);
    static const struct {
        long n;
        const char *text;
    } want[2] = {{1, "first"}, {3, "third ü"}};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(p[i].n, want[i].n);
        assert_int_equal(p[i].kind, STORE_NOTE);
        assert_int_equal(p[i].seat, -1);
        assert_int_equal(p[i].version, 5);
        assert_null(p[i].bot);
        assert_null(p[i].play);
        assert_null(p[i].record);
        assert_string_equal(p[i].explanation, want[i].text);
        assert_int_equal(p[i].at_ms, 0);
    }
    store_plays_free(p, k);
    assert_int_equal(count_plays(s, "g1", 0), 0);
    assert_int_equal(count_plays(s, "gone", 1), 0); /* notes of no game are not kept */
    assert_int_equal(sqlnum(c, "SELECT count(*) FROM plays"), 2);

    /* the migrated store works */
    store_play np[1] = {mkplay(4, 0, STORE_PERSON, NULL, "[4]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g1", 5, "{\"seats\":[1]}", (const unsigned char *)"s6", 2, np, 1), 0);
    assert_get(s, "g1", 6, "{\"seats\":[1]}", "s6", 2, 6);
    assert_int_equal(store_delete(s, "g2"), 0);
    store_close(s);

    /* reopening: nothing to do */
    s = open_ok();
    sql_eq(c, SV_ROWS_SQL,
           "1:found: the previous release (games.state + notes) | "
           "2:migrated: origin + play log + snapshot cache | 3:migrated: idempotency keys | "
           "4:migrated: idempotency claims and compact answers apart | 5:migrated: card notes");
    assert_get(s, "g1", 6, "{\"seats\":[1]}", "s6", 2, 6);
    assert_int_equal(count_plays(s, "g1", 1), 3);
    store_close(s);

    /* a newer schema: refused */
    sql(c, "INSERT INTO schema_version (version, note) VALUES (6, 'from the future')");
    s = (store *)&s;
    char err[512] = "";
    assert_int_equal(store_open(&s, URL, err, sizeof err), ERR_STORE);
    assert_null(s);
    assert_non_null(strstr(err, "the database has schema 6, newer than this build (5)"));
    sql_eq(c, "SELECT count(*) FROM schema_version", "6");
    PQfinish(c);
}

static void test_migrate_failure_rolls_back(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    PGconn *c = raw();
    make_schema1(c);
    sql(c, "CREATE TABLE plays (x integer)"); /* the "create plays" step will fail */

    store *s = (store *)&s;
    char err[512] = "";
    assert_int_equal(store_open(&s, URL, err, sizeof err), ERR_STORE);
    assert_null(s);
    print_message("refused as expected: %s\n", err);
    assert_non_null(strstr(err, "migrating schema 1 to 2 failed"));
    assert_non_null(strstr(err, "create plays"));
    /* nothing half-done */
    sql_eq(c,
           "SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns"
           " WHERE table_schema = '" SCHEMA "' AND table_name = 'games'",
           "created_at,game,id,meta,state,updated_at,version");
    sql_eq(c, "SELECT count(*) FROM notes", "3");
    sql_eq(c, "SELECT to_regclass('schema_version') IS NULL", "t");

    /* once the stray table is gone the migration goes through */
    sql(c, "DROP TABLE plays");
    s = open_ok();
    assert_schema5(c);
    assert_int_equal(count_plays(s, "g1", 1), 2);
    store_close(s);
    PQfinish(c);
}

static void test_unknown_schema_refused(void **state)
{
    (void)state;
    need_pg();
    char err[512];
    store *s;

    reset_schema();
    PGconn *c = raw();
    sql(c, "CREATE TABLE games (id text PRIMARY KEY, something text)");
    s = (store *)&s;
    err[0] = 0;
    assert_int_equal(store_open(&s, URL, err, sizeof err), ERR_STORE);
    assert_null(s);
    assert_non_null(strstr(err, "neither games.state"));
    sql_eq(c, "SELECT to_regclass('schema_version') IS NULL", "t");

    reset_schema();
    sql(c, "CREATE TABLE schema_version (version integer PRIMARY KEY,"
           " applied_at timestamptz NOT NULL DEFAULT now(), note text NOT NULL)");
    err[0] = 0;
    assert_int_equal(store_open(&s, URL, err, sizeof err), ERR_STORE);
    assert_non_null(strstr(err, "schema_version table is empty"));
    sql(c, "INSERT INTO schema_version (version, note) VALUES (1, 'odd')");
    err[0] = 0;
    assert_int_equal(store_open(&s, URL, err, sizeof err), ERR_STORE);
    assert_non_null(strstr(err, "cannot open"));
    PQfinish(c);
}

/* --- servers opening at once ---------------------------------------------- */

enum { OPENERS = 6 };

typedef struct opener {
    pthread_barrier_t *go;
    store *s;
    int rc;
    char err[512];
} opener;

static void *do_open(void *arg)
{
    opener *o = arg;
    pthread_barrier_wait(o->go);
    o->rc = store_open(&o->s, URL, o->err, sizeof o->err);
    return NULL;
}

static void open_at_once(void)
{
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, OPENERS);
    pthread_t t[OPENERS];
    opener o[OPENERS];
    for (int i = 0; i < OPENERS; i++) {
        memset(&o[i], 0, sizeof o[i]);
        o[i].go = &go;
        assert_int_equal(pthread_create(&t[i], NULL, do_open, &o[i]), 0);
    }
    for (int i = 0; i < OPENERS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < OPENERS; i++) {
        if (o[i].rc != 0)
            fail_msg("opener %d: %d %s", i, o[i].rc, o[i].err);
        assert_int_equal(store_ping(o[i].s), 0);
        store_close(o[i].s);
    }
}

static void test_concurrent_open(void **state)
{
    (void)state;
    need_pg();
    PGconn *c = raw();

    reset_schema();
    open_at_once();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL, "5:origin + play log + snapshot cache + idempotency claims and answers"
                          " + card notes");

    reset_schema();
    make_schema1(c);
    open_at_once();
    assert_schema5(c);
    sql_eq(c, "SELECT count(*) FROM schema_version", "5");
    sql_eq(c, "SELECT count(*) FROM plays", "2");

    reset_schema();
    sql(c, SCHEMA2);
    open_at_once();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL, V2_MIGRATED);

    reset_schema();
    sql(c, SCHEMA2);
    sql(c, SCHEMA3_IDEM);
    open_at_once();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL, V3_MIGRATED);
    sql_eq(c, "SELECT count(*) FROM idempotency_answers", "2");
    PQfinish(c);
}

/* The release before the previous one (schema 2) gains the idempotency
 * tables and rows 3 and 4 in place; its games are untouched and take writes. */
static void test_migrate_v2(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    PGconn *c = raw();
    sql(c, SCHEMA2);
    store *s = open_ok();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL, V2_MIGRATED);
    assert_get(s, "g2", 7, "{}", "snap7", 5, 7);
    assert_int_equal(count_plays(s, "g2", 1), 2);
    store_play p[1] = {mkplay(3, 0, STORE_PERSON, NULL, "[3]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g2", 7, "{}", NULL, 0, p, 1), 0);
    assert_int_equal(count_plays(s, "g2", 1), 3);
    store_close(s);
    PQfinish(c);
}

/* The previous release's schema 4 (this schema without card_notes) gains
 * the table and row 5 in place; its games are untouched. */
static void test_migrate_v4(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    store_row row = mkrow("g4", "hanabi", 3, "{}", "{}", NULL, 0);
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    store_close(s);
    PGconn *c = raw();
    sql(c, "DROP TABLE card_notes");
    sql(c, "UPDATE schema_version SET version = 4,"
           " note = 'origin + play log + snapshot cache + idempotency claims and answers'");
    s = open_ok();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL,
           "4:origin + play log + snapshot cache + idempotency claims and answers | "
           "5:migrated: card notes");
    assert_get(s, "g4", 3, "{}", NULL, 0, -1);
    assert_int_equal(s->vt->note_put(s, "g4", 0, "d0.0", "kept", 100), 0);
    store_close(s);
    PQfinish(c);
}

/* The previous release (schema 3: one idempotency table whose pending rows
 * were grown into answers) is migrated in place: its answers become rows of
 * idempotency_answers as they were sealed (the hashes as their first 16
 * bytes), its pending rows claims, the old table is gone; the store reads
 * the answers. */
static void test_migrate_v3(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    PGconn *c = raw();
    sql(c, SCHEMA2);
    sql(c, SCHEMA3_IDEM);
    store *s = open_ok();
    assert_schema5(c);
    sql_eq(c, SV_ROWS_SQL, V3_MIGRATED);
    sql_eq(c,
           "SELECT string_agg(encode(id, 'hex') || ':' || encode(fingerprint, 'hex') || ':' ||"
           " encode(answer, 'hex') || ':' || (expires_at > now()), '|' ORDER BY id)"
           " FROM idempotency_answers",
           "00112233445566778899aabbccddeeff:ffeeddccbbaa99887766554433221100:000102ff:true|"
           "cc112233445566778899aabbccddeeff:ddeeddccbbaa99887766554433221100:05:false");
    sql_eq(c,
           "SELECT string_agg(encode(id, 'hex') || ':' || encode(fingerprint, 'hex') || ':' ||"
           " owner, '|') FROM idempotency_claims",
           "aa112233445566778899aabbccddeeff:bbeeddccbbaa99887766554433221100:0123456789abcdef:8");
    store_migrated_answer_case(s);
    assert_get(s, "g2", 7, "{}", "snap7", 5, 7);
    store_close(s);
    PQfinish(c);
}

static void db_sql(void *ctx, const char *q) { sql(ctx, q); }
static long long db_num(void *ctx, const char *q) { return sqlnum(ctx, q); }

static void test_idempotency(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    PGconn *c = raw();
    store_db db = {db_sql, db_num, c,
                   "UPDATE idempotency_answers SET expires_at = now() - interval '1 second'"
                   " WHERE id IN ('\\x6b320000000000000000000000000000'::bytea, '\\x6b330000000000000000000000000000'::bytea)"};
    store_idempotency_cases(s, &db);
    store_close(s);
    PQfinish(c);
}

static void test_retention(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    PGconn *c = raw();
    store_db db = {db_sql, db_num, c, NULL};
    store_retention_cases(s, &db,
                          "UPDATE games SET updated_at = updated_at - interval '10 days'"
                          " WHERE id IN ('ra', 'rc')");
    store_close(s);
    PQfinish(c);
}

static void test_card_notes(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    PGconn *c = raw();
    store_db db = {db_sql, db_num, c, NULL};
    store_note_cases(s, &db);
    store_close(s);
    PQfinish(c);
}

static void test_rewind(void **state)
{
    (void)state;
    need_pg();
    reset_schema();
    store *s = open_ok();
    PGconn *c = raw();
    store_db db = {db_sql, db_num, c, NULL};
    store_rewind_cases(s, &db);
    store_close(s);
    PQfinish(c);
}

int main(void)
{
    const char *base = getenv("CROUPIER_TEST_PG_URL");
    if (base && *base)
        snprintf(URL, sizeof URL, "%s%coptions=-csearch_path%%3D" SCHEMA
                                  "&application_name=croupier-unit",
                 base, strchr(base, '?') ? '&' : '?');
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_create_get),
        cmocka_unit_test(test_commit),
        cmocka_unit_test(test_plays_paging),
        cmocka_unit_test(test_snap_put),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_race),
        cmocka_unit_test(test_reconnect),
        cmocka_unit_test(test_lost_answer),
        cmocka_unit_test(test_answer_lost_after_commit),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_migrate_v1),
        cmocka_unit_test(test_migrate_failure_rolls_back),
        cmocka_unit_test(test_unknown_schema_refused),
        cmocka_unit_test(test_concurrent_open),
        cmocka_unit_test(test_migrate_v2),
        cmocka_unit_test(test_migrate_v3),
        cmocka_unit_test(test_migrate_v4),
        cmocka_unit_test(test_card_notes),
        cmocka_unit_test(test_rewind),
        cmocka_unit_test(test_idempotency),
        cmocka_unit_test(test_retention),
    };
    int failed = cmocka_run_group_tests_name("store_pg", tests, NULL, NULL);
    if (URL[0] && !failed) { /* leave the shared database as we found it */
        PGconn *c = PQconnectdb(URL);
        PQsetNoticeReceiver(c, quiet, NULL);
        if (PQstatus(c) == CONNECTION_OK)
            PQclear(PQexec(c, "DROP SCHEMA IF EXISTS " SCHEMA " CASCADE"));
        PQfinish(c);
    }
    return failed;
}
