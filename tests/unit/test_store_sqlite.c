/* test_store_sqlite.c: the SQLite store (api/store_sqlite.c) on real files.
 *
 * Each test works in a fresh temporary directory: schema 5 on an empty
 * file, create/get/origin_get, the compare-and-swap of commit (one winner,
 * clean conflicts, nothing written by a failed commit), the play log and its
 * paging, the snapshot cache, delete, threads (and two store handles, as two
 * processes would have) racing on one game, opening one file from several
 * threads at once, and the in-place migration of a schema-3 database of the
 * previous release, of a schema-2 database of the one before and of a
 * schema-1 database of the one before that (built here with their own DDL),
 * including a migration that fails and must leave the file as it was, and a
 * newer schema refused; the checkpointer (the WAL
 * bounded under a stream of commits, the rest copied once they stop) and
 * its write-behind (the WAL synced every megabyte); the idempotency keys
 * (store_cases.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "store.h"
#include "store_cases.h"

/* --- fixture: a temporary directory and a database path in it ----------------- */

typedef struct fx {
    char dir[64];
    char path[128];
} fx;

static void rm_db(const char *path)
{
    static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
    char f[200];
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        snprintf(f, sizeof f, "%s%s", path, sfx[i]);
        unlink(f);
    }
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/croupier-store-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/games.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    rm_db(f->path);
    char other[160];
    snprintf(other, sizeof other, "%s/other.db", f->dir);
    rm_db(other);
    rmdir(f->dir);
    free(f);
    return 0;
}

static store *open_ok(const char *path)
{
    store *s = NULL;
    char err[512] = "";
    int rc = store_sqlite_open(&s, path, err, sizeof err);
    if (rc)
        fail_msg("store_sqlite_open(%s): %d %s", path, rc, err);
    assert_non_null(s);
    return s;
}

/* --- raw SQL helpers (a separate connection, as another program would) ------- */

static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char m[512];
        snprintf(m, sizeof m, "%s", msg ? msg : "?");
        sqlite3_free(msg);
        fail_msg("SQL failed: %s: %s", sql, m);
    }
}

/* The first column of the first row as an integer (-999 if no row or NULL). */
static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db = raw_open(path);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
    long long v = -999;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The first column of the first row as text, into buf ("<none>" if no row,
 * "<null>" for NULL). */
static const char *raw_text(const char *path, const char *sql, char *buf, size_t n)
{
    sqlite3 *db = raw_open(path);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW)
        snprintf(buf, n, "<none>");
    else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        snprintf(buf, n, "<null>");
    else
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* --- builders ------------------------------------------------------------------ */

static store_play P(long n, int seat, int kind, const char *bot, const char *play,
                    const char *record, const char *expl)
{
    store_play p = {.n = n, .version = 999, .seat = seat, .kind = kind, .bot = (char *)bot,
                    .play = (char *)play, .record = (char *)record,
                    .explanation = (char *)expl, .at_ms = 1};
    return p;
}

static void create_game(store *s, const char *id, int64_t version, const char *origin,
                        const char *snap, const store_play *plays, int k, int expect)
{
    store_row row = {.version = version, .meta = "{\"seats\":[]}", .origin = (char *)origin,
                     .snap = (unsigned char *)snap, .snap_len = snap ? strlen(snap) : 0,
                     .snap_version = 12345 /* ignored: the snapshot is of row->version */};
    snprintf(row.id, sizeof row.id, "%s", id);
    snprintf(row.game, sizeof row.game, "hanabi");
    assert_int_equal(store_create(s, &row, plays, k), expect);
}

/* --- tests --------------------------------------------------------------------- */

/* Schema 4's idempotency tables, and no schema 3 one: claims keyed by the
 * key's hash, answers a rowid table (appended in order) with the hash
 * unique beside it and an index on their expiry. */
static void check_idem_tables(const char *path)
{
    char buf[256];
    assert_string_equal(
        raw_text(path, "SELECT group_concat(name, ',') FROM pragma_table_info('card_notes')",
                 buf, sizeof buf),
        "game_id,seat,card,text,at_ms");
    assert_string_equal(
        raw_text(path, "SELECT group_concat(name, ',') FROM pragma_table_info('idempotency_claims')",
                 buf, sizeof buf),
        "id,fingerprint,owner,expires_at");
    assert_string_equal(
        raw_text(path, "SELECT group_concat(name, ',') FROM pragma_table_info('idempotency_answers')",
                 buf, sizeof buf),
        "id,fingerprint,answer,expires_at");
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name ="
                                   " 'idempotency_answers' AND sql LIKE '%WITHOUT ROWID%'"),
                     0);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_index_list('idempotency_answers')"
                                   " WHERE \"unique\" = 1"),
                     1);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name ="
                                   " 'idempotency_answers_expires'"),
                     1);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'idempotency'"),
                     0);
}

static void test_fresh_schema(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    assert_string_equal(s->vt->kind, "sqlite");
    assert_int_equal(store_ping(s), 0);
    store_close(s);
    char buf[256];
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_version"), 1);
    assert_int_equal(raw_int(f->path, "SELECT version FROM schema_version"), 5);
    long long at = raw_int(f->path, "SELECT applied_at FROM schema_version");
    assert_true(at > 1600000000 && at <= (long long)time(NULL));
    assert_string_equal(raw_text(f->path, "SELECT note FROM schema_version", buf, sizeof buf),
                        "origin + play log + snapshot cache + idempotency claims and answers"
                        " + card notes");
    assert_string_equal(raw_text(f->path, "PRAGMA journal_mode", buf, sizeof buf), "wal");
    /* The column names other programs rely on, in order. */
    assert_string_equal(
        raw_text(f->path, "SELECT group_concat(name, ',') FROM pragma_table_info('games')", buf,
                 sizeof buf),
        "id,game,version,meta,origin,snap,snap_version,created_at,updated_at");
    assert_string_equal(
        raw_text(f->path, "SELECT group_concat(name, ',') FROM pragma_table_info('plays')", buf,
                 sizeof buf),
        "game_id,n,version,seat,kind,bot,play,record,explanation,at_ms");
    check_idem_tables(f->path);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name = 'plays'"
                                      " AND sql LIKE '%WITHOUT ROWID%'"),
                     1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name = 'notes'"),
                     0);
    /* Opening again changes nothing. */
    s = open_ok(f->path);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_version"), 1);
}

static void test_create_get_origin(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_play p[2] = {P(1, 0, STORE_PERSON, NULL, "[0,\"2C\"]", "{\"r\":1}", NULL),
                       P(2, 1, STORE_BOT, "planner", "[1,\"3C\"]", "{\"r\":2}", "because")};
    create_game(s, "g1", 1, "{\"origin\":true}", "SNAP\0BYTES", p, 2, 0);

    store_row r;
    assert_int_equal(store_get(s, "g1", &r), 0);
    assert_string_equal(r.id, "g1");
    assert_string_equal(r.game, "hanabi");
    assert_int_equal(r.version, 1);
    assert_string_equal(r.meta, "{\"seats\":[]}");
    assert_null(r.origin);
    assert_non_null(r.snap);
    assert_int_equal(r.snap_len, 4); /* strlen of "SNAP" */
    assert_memory_equal(r.snap, "SNAP", 4);
    assert_int_equal(r.snap_version, 1);
    store_row_free(&r);

    char *o = NULL;
    assert_int_equal(store_origin_get(s, "g1", &o), 0);
    assert_string_equal(o, "{\"origin\":true}");
    free(o);
    assert_int_equal(store_origin_get(s, "nope", &o), ERR_NOT_FOUND);
    assert_null(o);
    assert_int_equal(store_get(s, "nope", &r), ERR_NOT_FOUND);
    assert_null(r.meta);
    assert_null(r.snap);

    /* A duplicate id: ERR_CONFLICT and nothing written (not its origin, not its plays). */
    store_play p2[1] = {P(3, 2, STORE_PERSON, NULL, "[2]", "{}", NULL)};
    create_game(s, "g1", 5, "{\"other\":1}", NULL, p2, 1, ERR_CONFLICT);
    assert_int_equal(store_origin_get(s, "g1", &o), 0);
    assert_string_equal(o, "{\"origin\":true}");
    free(o);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'g1'"), 2);
    assert_int_equal(raw_int(f->path, "SELECT version FROM games WHERE id = 'g1'"), 1);

    /* A game without a snapshot: snap NULL, snap_version -1; a binary
     * snapshot with NUL bytes and an empty one survive. */
    create_game(s, "g2", 1, "{}", NULL, NULL, 0, 0);
    assert_int_equal(store_get(s, "g2", &r), 0);
    assert_null(r.snap);
    assert_int_equal(r.snap_len, 0);
    assert_int_equal(r.snap_version, -1);
    store_row_free(&r);
    static const unsigned char bin[] = {0, 1, 2, 0, 255, 0};
    assert_int_equal(store_snap_put(s, "g2", 1, bin, sizeof bin), 0);
    assert_int_equal(store_get(s, "g2", &r), 0);
    assert_int_equal(r.snap_len, sizeof bin);
    assert_memory_equal(r.snap, bin, sizeof bin);
    assert_int_equal(r.snap_version, 1);
    store_row_free(&r);
    assert_int_equal(store_snap_put(s, "g2", 1, bin, 0), 0);
    assert_int_equal(store_get(s, "g2", &r), 0);
    assert_non_null(r.snap);
    assert_int_equal(r.snap_len, 0);
    assert_int_equal(r.snap_version, 1);
    store_row_free(&r);

    /* created_at/updated_at are unix seconds. */
    long long c = raw_int(f->path, "SELECT created_at FROM games WHERE id = 'g1'");
    assert_true(c > 1600000000 && c <= (long long)time(NULL));
    store_close(s);
}

static void test_commit(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_play p0[1] = {P(1, 0, STORE_PERSON, NULL, "[0]", "{\"n\":1}", NULL)};
    create_game(s, "g", 1, "{\"o\":1}", "s1", p0, 1, 0);

    store_play p1[2] = {P(2, 1, STORE_BOT, "random", "[1]", "{\"n\":2}", "x"),
                        P(3, 2, STORE_FORCED, NULL, "[2]", "{\"n\":3}", NULL)};
    /* at_ms is the wall clock in milliseconds: within an hour of now (not 0,
     * not seconds), wide enough for a clock that steps under a loaded VM */
    int64_t t0 = (int64_t)time(NULL) * 1000 - 3600 * 1000;
    assert_int_equal(store_commit(s, "g", 1, "{\"m\":2}", (const unsigned char *)"s2", 2, p1, 2),
                     0);
    store_row r;
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_int_equal(r.version, 2);
    assert_string_equal(r.meta, "{\"m\":2}");
    assert_int_equal(r.snap_len, 2);
    assert_memory_equal(r.snap, "s2", 2);
    assert_int_equal(r.snap_version, 2);
    store_row_free(&r);
    store_play *pl = NULL;
    int k = -1;
    assert_int_equal(store_plays(s, "g", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 3);
    assert_int_equal(pl[0].version, 1);
    assert_int_equal(pl[1].version, 2); /* .version of the input is ignored */
    assert_int_equal(pl[2].version, 2);
    assert_true(pl[1].at_ms >= t0 && pl[1].at_ms <= (int64_t)time(NULL) * 1000 + 3600 * 1000);
    store_plays_free(pl, k);

    /* Stale version: ERR_CONFLICT; unknown id: ERR_NOT_FOUND. Neither writes. */
    store_play p2[1] = {P(4, 3, STORE_PERSON, NULL, "[3]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 1, "{\"bad\":1}", (const unsigned char *)"zz", 2, p2, 1),
                     ERR_CONFLICT);
    assert_int_equal(store_commit(s, "g", 7, "{\"bad\":1}", (const unsigned char *)"zz", 2, p2, 1),
                     ERR_CONFLICT);
    assert_int_equal(
        store_commit(s, "nope", 1, "{\"bad\":1}", (const unsigned char *)"zz", 2, p2, 1),
        ERR_NOT_FOUND);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE n = 4"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'nope'"), 0);

    /* A commit whose plays collide with the log (a play number taken): the
     * version bump and the snapshot are rolled back with it. */
    store_play p3[2] = {P(4, 3, STORE_PERSON, NULL, "[3]", "{}", NULL),
                        P(3, 0, STORE_PERSON, NULL, "[dup]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 2, "{\"bad\":2}", (const unsigned char *)"zz", 2, p3, 2),
                     ERR_CONFLICT);
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_int_equal(r.version, 2);
    assert_string_equal(r.meta, "{\"m\":2}");
    assert_memory_equal(r.snap, "s2", 2);
    assert_int_equal(r.snap_version, 2);
    store_row_free(&r);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'g'"), 3);
    char buf[64];
    assert_string_equal(raw_text(f->path, "SELECT play FROM plays WHERE game_id = 'g' AND n = 3",
                                 buf, sizeof buf),
                        "[2]");
    /* A failure inside the database after the compare-and-swap (here a
     * trigger refusing play 99) is ERR_STORE and writes nothing either; so
     * is a create that fails on its plays: no games row is left. */
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, "CREATE TRIGGER boom BEFORE INSERT ON plays WHEN NEW.n = 99"
                 " BEGIN SELECT RAISE(ABORT, 'boom'); END");
    sqlite3_close(db);
    store_play p4[2] = {P(4, 3, STORE_PERSON, NULL, "[3]", "{}", NULL),
                        P(99, 0, STORE_PERSON, NULL, "[boom]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g", 2, "{\"bad\":3}", (const unsigned char *)"zz", 2, p4, 2),
                     ERR_STORE);
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_int_equal(r.version, 2);
    assert_string_equal(r.meta, "{\"m\":2}");
    assert_memory_equal(r.snap, "s2", 2);
    store_row_free(&r);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'g'"), 3);
    create_game(s, "boom", 1, "{}", "x", p4, 2, ERR_STORE);
    assert_int_equal(store_get(s, "boom", &r), ERR_NOT_FOUND);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'boom'"), 0);
    db = raw_open(f->path);
    raw_exec(db, "DROP TRIGGER boom");
    sqlite3_close(db);
    /* Bad inputs are refused before any SQL. */
    assert_int_equal(store_commit(s, "g", 2, NULL, NULL, 0, NULL, 0), ERR_STORE);
    assert_int_equal(store_commit(s, "g", 2, "{}", NULL, 0, NULL, 1), ERR_STORE);

    /* The next commit still works (connections went back clean), with no
     * plays and no snapshot. */
    assert_int_equal(store_commit(s, "g", 2, "{\"m\":3}", NULL, 0, NULL, 0), 0);
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_int_equal(r.version, 3);
    assert_null(r.snap);
    assert_int_equal(r.snap_version, -1);
    store_row_free(&r);
    store_close(s);
}

static void test_plays_paging(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_play a[2] = {P(1, -1, STORE_NOTE, NULL, NULL, NULL, "imported note"),
                       P(2, 0, STORE_PERSON, NULL, "[\"p2\"]", "{\"r\":2}", NULL)};
    create_game(s, "g", 1, "{}", NULL, a, 2, 0);
    store_play b[2] = {P(3, 1, STORE_BOT, "planner", "[\"p3\"]", "{\"r\":3}", "plan"),
                       P(4, 2, STORE_FORCED, NULL, "[\"p4\"]", "{\"r\":4}", NULL)};
    assert_int_equal(store_commit(s, "g", 1, "{}", NULL, 0, b, 2), 0);
    store_play c[2] = {P(5, -1, STORE_NOTE, NULL, NULL, NULL, "note 5"),
                       P(6, 3, STORE_PERSON, NULL, "[\"p6\"]", "{\"r\":6}", "six")};
    assert_int_equal(store_commit(s, "g", 2, "{}", NULL, 0, c, 2), 0);
    create_game(s, "other", 1, "{}", NULL, a, 2, 0); /* same n, another game */

    store_play *pl = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "g", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 6);
    for (int i = 0; i < k; i++)
        assert_int_equal(pl[i].n, i + 1);
    assert_int_equal(pl[0].kind, STORE_NOTE);
    assert_int_equal(pl[0].seat, -1);
    assert_null(pl[0].play);
    assert_null(pl[0].record);
    assert_null(pl[0].bot);
    assert_string_equal(pl[0].explanation, "imported note");
    assert_int_equal(pl[0].version, 1);
    assert_int_equal(pl[2].kind, STORE_BOT);
    assert_string_equal(pl[2].bot, "planner");
    assert_string_equal(pl[2].play, "[\"p3\"]");
    assert_string_equal(pl[2].record, "{\"r\":3}");
    assert_string_equal(pl[2].explanation, "plan");
    assert_int_equal(pl[2].seat, 1);
    assert_int_equal(pl[2].version, 2);
    assert_int_equal(pl[3].kind, STORE_FORCED);
    assert_null(pl[3].explanation);
    assert_int_equal(pl[5].version, 3);
    store_plays_free(pl, k);

    /* Without notes. */
    assert_int_equal(store_plays(s, "g", 0, -1, 0, &pl, &k), 0);
    assert_int_equal(k, 4);
    long want[] = {2, 3, 4, 6};
    for (int i = 0; i < k; i++) {
        assert_int_equal(pl[i].n, want[i]);
        assert_int_not_equal(pl[i].kind, STORE_NOTE);
    }
    store_plays_free(pl, k);

    /* after / limit */
    assert_int_equal(store_plays(s, "g", 2, 2, 1, &pl, &k), 0);
    assert_int_equal(k, 2);
    assert_int_equal(pl[0].n, 3);
    assert_int_equal(pl[1].n, 4);
    store_plays_free(pl, k);
    assert_int_equal(store_plays(s, "g", 4, 1, 0, &pl, &k), 0);
    assert_int_equal(k, 1);
    assert_int_equal(pl[0].n, 6);
    store_plays_free(pl, k);
    assert_int_equal(store_plays(s, "g", 4, 1, 1, &pl, &k), 0);
    assert_int_equal(k, 1);
    assert_int_equal(pl[0].n, 5);
    store_plays_free(pl, k);
    assert_int_equal(store_plays(s, "g", 6, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 0);
    assert_null(pl);
    assert_int_equal(store_plays(s, "g", -100, 3, 1, &pl, &k), 0);
    assert_int_equal(k, 3);
    store_plays_free(pl, k);
    /* an unknown game has no plays */
    assert_int_equal(store_plays(s, "nope", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 0);
    assert_null(pl);

    /* Many plays: the array grows past its first allocation. */
    enum { MANY = 300 };
    store_play *m = calloc(MANY, sizeof *m);
    assert_non_null(m);
    for (int i = 0; i < MANY; i++)
        m[i] = P(i + 1, i % 4, i % 3 ? STORE_BOT : STORE_NOTE, i % 3 ? "random" : NULL,
                 i % 3 ? "[0]" : NULL, i % 3 ? "{}" : NULL, NULL);
    create_game(s, "many", 1, "{}", NULL, m, MANY, 0);
    free(m);
    assert_int_equal(store_plays(s, "many", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, MANY);
    assert_int_equal(pl[MANY - 1].n, MANY);
    store_plays_free(pl, k);
    assert_int_equal(store_plays(s, "many", 0, 0, 0, &pl, &k), 0);
    assert_int_equal(k, MANY - MANY / 3);
    store_plays_free(pl, k);
    store_close(s);
}

static void test_snap_put(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    create_game(s, "g", 1, "{}", NULL, NULL, 0, 0);
    assert_int_equal(store_commit(s, "g", 1, "{}", NULL, 0, NULL, 0), 0); /* now version 2 */

    /* A rebuild of version 1 arrives late: ignored. */
    assert_int_equal(store_snap_put(s, "g", 1, (const unsigned char *)"old", 3), 0);
    store_row r;
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_null(r.snap);
    assert_int_equal(r.snap_version, -1);
    store_row_free(&r);
    /* Of the current version: stored. */
    assert_int_equal(store_snap_put(s, "g", 2, (const unsigned char *)"new", 3), 0);
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_int_equal(r.version, 2);
    assert_int_equal(r.snap_len, 3);
    assert_memory_equal(r.snap, "new", 3);
    assert_int_equal(r.snap_version, 2);
    store_row_free(&r);
    /* A future version, or an unknown game: nothing, and 0. */
    assert_int_equal(store_snap_put(s, "g", 3, (const unsigned char *)"fut", 3), 0);
    assert_int_equal(store_snap_put(s, "nope", 1, (const unsigned char *)"x", 1), 0);
    assert_int_equal(store_get(s, "g", &r), 0);
    assert_memory_equal(r.snap, "new", 3);
    assert_int_equal(r.snap_version, 2);
    store_row_free(&r);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM games"), 1);
    store_close(s);
}

static void test_delete(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_play p[2] = {P(1, 0, STORE_PERSON, NULL, "[0]", "{}", NULL),
                       P(2, -1, STORE_NOTE, NULL, NULL, NULL, "n")};
    create_game(s, "g", 1, "{}", "x", p, 2, 0);
    create_game(s, "keep", 1, "{}", "x", p, 2, 0);
    assert_int_equal(store_delete(s, "g"), 0);
    store_row r;
    assert_int_equal(store_get(s, "g", &r), ERR_NOT_FOUND);
    store_play *pl = NULL;
    int k = -1;
    assert_int_equal(store_plays(s, "g", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'g'"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'keep'"), 2);
    assert_int_equal(store_delete(s, "g"), ERR_NOT_FOUND);
    assert_int_equal(store_delete(s, "never"), ERR_NOT_FOUND);
    /* The id can be used again, with a fresh log. */
    create_game(s, "g", 1, "{}", NULL, p, 1, 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'g'"), 1);
    store_close(s);
}

/* --- threads racing on one game ---------------------------------------------- */

enum { RACE_THREADS = 4, RACE_TARGET = 160 };

typedef struct racer {
    store *s;
    int seat;
    int wins;
    int conflicts;
    int errors;
    int won[RACE_TARGET + 2]; /* won[v]: this racer committed version v -> v+1 */
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    char meta[32], play[32];
    for (;;) {
        store_row row;
        if (store_get(r->s, "race", &row)) {
            r->errors++;
            return NULL;
        }
        int64_t v = row.version;
        store_row_free(&row);
        if (v > RACE_TARGET)
            return NULL;
        snprintf(meta, sizeof meta, "{\"by\":%d}", r->seat);
        snprintf(play, sizeof play, "[%d,%lld]", r->seat, (long long)v);
        /* The play number is the version it is played on: one per version. */
        store_play p = {.n = (long)v, .seat = r->seat, .kind = STORE_PERSON, .play = play,
                        .record = "{}"};
        int rc = store_commit(r->s, "race", v, meta, (const unsigned char *)meta, strlen(meta),
                              &p, 1);
        if (rc == 0) {
            r->wins++;
            r->won[v]++;
        } else if (rc == ERR_CONFLICT) {
            r->conflicts++;
        } else {
            r->errors++;
            return NULL;
        }
    }
}

static void test_race(void **state)
{
    fx *f = *state;
    /* Two handles on one file (two processes would have that), two threads each. */
    store *s1 = open_ok(f->path), *s2 = open_ok(f->path);
    create_game(s1, "race", 1, "{}", NULL, NULL, 0, 0);
    racer r[RACE_THREADS];
    pthread_t t[RACE_THREADS];
    memset(r, 0, sizeof r);
    for (int i = 0; i < RACE_THREADS; i++) {
        r[i].s = i % 2 ? s2 : s1;
        r[i].seat = i;
        assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
    }
    int wins = 0, conflicts = 0;
    for (int i = 0; i < RACE_THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(r[i].errors, 0);
        wins += r[i].wins;
        conflicts += r[i].conflicts;
    }
    /* Exactly one winner for each version 1..TARGET. */
    assert_int_equal(wins, RACE_TARGET);
    for (int v = 1; v <= RACE_TARGET; v++) {
        int w = 0;
        for (int i = 0; i < RACE_THREADS; i++)
            w += r[i].won[v];
        assert_int_equal(w, 1);
    }
    store_row row;
    assert_int_equal(store_get(s2, "race", &row), 0);
    assert_int_equal(row.version, RACE_TARGET + 1);
    assert_int_equal(row.snap_version, RACE_TARGET + 1);
    assert_int_equal((int)row.snap_len, (int)strlen(row.meta));
    assert_memory_equal(row.snap, row.meta, row.snap_len); /* snapshot and meta of one write */
    store_row_free(&row);
    /* No lost or doubled play: n = 1..TARGET, each by its version's winner. */
    store_play *pl = NULL;
    int k = 0;
    assert_int_equal(store_plays(s1, "race", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, RACE_TARGET);
    for (int i = 0; i < k; i++) {
        long v = i + 1;
        assert_int_equal(pl[i].n, v);
        assert_int_equal(pl[i].version, v + 1);
        assert_true(r[pl[i].seat].won[v] == 1);
        char want[32];
        snprintf(want, sizeof want, "[%d,%ld]", pl[i].seat, v);
        assert_string_equal(pl[i].play, want);
    }
    store_plays_free(pl, k);
    print_message("race: %d commits, %d conflicts across %d threads\n", wins, conflicts,
                  RACE_THREADS);
    store_close(s1);
    store_close(s2);
}

/* --- schema 1: the previous release ------------------------------------------- */

/* The DDL of the previous release's store_sqlite.c, verbatim. */
static const char *const SCHEMA_1 =
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

/* The previous release's schema 2 (its store_sqlite.c's DDL, verbatim),
 * with a game at version 7 (snapshot of 7) and two plays. */
static const char *const SCHEMA_2 =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE schema_version ( version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL,"
    " note TEXT NOT NULL);"
    "CREATE TABLE games ( id TEXT PRIMARY KEY, game TEXT NOT NULL, version INTEGER NOT NULL,"
    " meta TEXT NOT NULL, origin TEXT NOT NULL, snap BLOB,"
    " snap_version INTEGER NOT NULL DEFAULT -1, created_at INTEGER NOT NULL,"
    " updated_at INTEGER NOT NULL);"
    "CREATE TABLE plays ( game_id TEXT NOT NULL, n INTEGER NOT NULL, version INTEGER NOT NULL,"
    " seat INTEGER NOT NULL, kind INTEGER NOT NULL, bot TEXT, play TEXT, record TEXT,"
    " explanation TEXT, at_ms INTEGER NOT NULL, PRIMARY KEY (game_id, n)) WITHOUT ROWID;"
    "INSERT INTO schema_version VALUES (2, 1700000000, 'origin + play log + snapshot cache');"
    "INSERT INTO games VALUES ('g2', 'hanabi', 7, '{\"seats\":[]}', '{}', 'snap7', 7,"
    " 1700000000, 1700000000);"
    "INSERT INTO plays VALUES ('g2', 1, 3, 0, 0, NULL, '[1]', '{}', NULL, 1),"
    " ('g2', 2, 7, 1, 1, 'rules', '[2]', '{}', 'why', 2);";

static void make_schema1(const char *path, const char *extra_sql)
{
    sqlite3 *db = raw_open(path);
    raw_exec(db, "PRAGMA journal_mode=WAL");
    raw_exec(db, SCHEMA_1);
    raw_exec(db,
             "INSERT INTO games VALUES"
             " ('a1', 'hanabi', 3, '{\"seats\":[1]}', '{\"state\":\"a1\",\"deck\":[1,2,3]}',"
             "  1700000000, 1700000100),"
             " ('b2', 'phazed', 1, '{\"seats\":[2]}', '{\"state\":\"b2\"}', 1700000001, 1700000001),"
             " ('c3', 'fivecrowns', 17, '{\"seats\":[3]}', '{\"state\":\"c3\",\"s\":\"it''s\"}',"
             "  1700000002, 1700000200);"
             "INSERT INTO notes VALUES"
             " ('a1', 2, 'a1 note two'), ('a1', 5, 'a1 note five'), ('c3', 1, 'c3 note'),"
             " ('gone', 1, 'a note of a game that no longer exists');");
    if (extra_sql)
        raw_exec(db, extra_sql);
    sqlite3_close(db);
}

static void check_migrated(const char *path)
{
    char buf[256];
    store *s = open_ok(path);
    static const struct {
        const char *id, *game, *meta, *state;
        int64_t version;
    } want[] = {
        {"a1", "hanabi", "{\"seats\":[1]}", "{\"state\":\"a1\",\"deck\":[1,2,3]}", 3},
        {"b2", "phazed", "{\"seats\":[2]}", "{\"state\":\"b2\"}", 1},
        {"c3", "fivecrowns", "{\"seats\":[3]}", "{\"state\":\"c3\",\"s\":\"it's\"}", 17},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        store_row r;
        assert_int_equal(store_get(s, want[i].id, &r), 0);
        assert_string_equal(r.game, want[i].game);
        assert_int_equal(r.version, want[i].version);
        assert_string_equal(r.meta, want[i].meta);
        assert_null(r.snap);
        assert_int_equal(r.snap_version, -1);
        store_row_free(&r);
        char *o = NULL;
        assert_int_equal(store_origin_get(s, want[i].id, &o), 0);
        assert_string_equal(o, want[i].state);
        free(o);
    }
    assert_int_equal(raw_int(path, "SELECT count(*) FROM games"), 3);
    assert_int_equal(raw_int(path, "SELECT created_at FROM games WHERE id = 'a1'"), 1700000000);
    assert_int_equal(raw_int(path, "SELECT updated_at FROM games WHERE id = 'c3'"), 1700000200);

    /* The notes became kind-3 plays of their game's version; the orphan went. */
    store_play *pl = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "a1", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 2);
    assert_int_equal(pl[0].n, 2);
    assert_int_equal(pl[1].n, 5);
    assert_string_equal(pl[0].explanation, "a1 note two");
    assert_string_equal(pl[1].explanation, "a1 note five");
    for (int i = 0; i < k; i++) {
        assert_int_equal(pl[i].kind, STORE_NOTE);
        assert_int_equal(pl[i].seat, -1);
        assert_int_equal(pl[i].version, 3);
        assert_int_equal(pl[i].at_ms, 0);
        assert_null(pl[i].play);
        assert_null(pl[i].record);
        assert_null(pl[i].bot);
    }
    store_plays_free(pl, k);
    assert_int_equal(store_plays(s, "a1", 0, 0, 0, &pl, &k), 0);
    assert_int_equal(k, 0);
    assert_int_equal(store_plays(s, "c3", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 1);
    assert_int_equal(pl[0].version, 17);
    assert_string_equal(pl[0].explanation, "c3 note");
    store_plays_free(pl, k);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM plays"), 3);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM plays WHERE game_id = 'gone'"), 0);

    /* notes gone, games.state renamed, schema_version 1, 2 and 3. */
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'notes'"), 0);
    assert_int_equal(
        raw_int(path, "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'state'"), 0);
    assert_string_equal(
        raw_text(path,
                 "SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info('games')"
                 " ORDER BY name)",
                 buf, sizeof buf),
        "created_at,game,id,meta,origin,snap,snap_version,updated_at,version");
    assert_string_equal(
        raw_text(path, "SELECT group_concat(version || ':' || note, '|') FROM"
                       " (SELECT * FROM schema_version ORDER BY version)",
                 buf, sizeof buf),
        "1:found: the previous release (games.state + notes)|"
        "2:migrated: origin + play log + snapshot cache|3:migrated: idempotency keys|"
        "4:migrated: idempotency claims and compact answers apart|5:migrated: card notes");
    check_idem_tables(path);
    long long at = raw_int(path, "SELECT min(applied_at) FROM schema_version");
    assert_true(at > 1600000000 && at <= (long long)time(NULL));

    /* The migrated games take writes; new games sit beside them. */
    store_play p[1] = {P(6, 0, STORE_PERSON, NULL, "[0]", "{}", NULL)};
    assert_int_equal(store_commit(s, "a1", 3, "{\"seats\":[1]}", (const unsigned char *)"sn", 2,
                                  p, 1),
                     0);
    assert_int_equal(store_plays(s, "a1", 0, 0, 1, &pl, &k), 0);
    assert_int_equal(k, 3);
    assert_int_equal(pl[2].version, 4);
    store_plays_free(pl, k);
    assert_int_equal(store_commit(s, "a1", 3, "{}", NULL, 0, NULL, 0), ERR_CONFLICT);
    create_game(s, "new", 1, "{}", "x", p, 1, 0);
    store_close(s);
}

/* The checkpointer thread: under a stream of commits the WAL stays bounded
 * (its pages are copied back and it starts over, where without checkpoints
 * it would hold everything written here) and the database file gets the
 * pages; once the commits stop, the rest is copied within a few seconds (the
 * idle checkpoint: two quiet periods of CKPT_IDLE_S, 2 s). */
static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Play n of game "ck" (version n before it), with a long explanation. */
static void commit_long(store *s, int n, char *expl)
{
    store_play p = P(n, 0, STORE_PERSON, NULL, "{\"type\":\"discard\",\"card\":0}", "{}", expl);
    assert_int_equal(store_commit(s, "ck", n, "{\"seats\":[]}", (const unsigned char *)"{}", 2, &p, 1), 0);
}

/* Every page of the database as a reader sees it (the WAL's included), in
 * bytes: the size of the file once all of them were copied into it. */
static long long db_bytes(const char *path)
{
    return raw_int(path, "PRAGMA page_count") * raw_int(path, "PRAGMA page_size");
}

/* Wait up to 15 s for the database file to hold every page; fail if not. */
static void wait_copied(const char *path, const char *after)
{
    long long want = db_bytes(path);
    for (int t = 0; t < 30 && file_size(path) < want; t++)
        usleep(500 * 1000);
    if (file_size(path) < want)
        fail_msg("15 s after %s the database file has %lld bytes of %lld", after, file_size(path),
                 want);
}

static void test_checkpointer(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    create_game(s, "ck", 1, "{\"seed\":1}", "{}", NULL, 0, 0);
    enum { EXPL = 16000, COMMITS = 20000 };
    char *expl = malloc(EXPL + 1);
    assert_non_null(expl);
    unsigned x = 12345;
    for (int i = 0; i < EXPL; i++) {
        x = x * 1103515245u + 12345u;
        expl[i] = (char)('a' + (x >> 16) % 26);
    }
    expl[EXPL] = 0;
    char wal[200];
    snprintf(wal, sizeof wal, "%s-wal", f->path);
    long long max_wal = 0;
    for (int i = 0; i < COMMITS; i++) {
        commit_long(s, i + 1, expl);
        if (i % 25 == 0 && file_size(wal) > max_wal)
            max_wal = file_size(wal);
    }
    /* 16000 pages of 4 KB with their frame headers (66 MB), and what was
     * committed while a checkpoint ran: this loop writes as fast as SQLite
     * goes, about as fast as the checkpointer copies, and is held back at
     * twice that (132 MB); without checkpoints it grows with every commit,
     * past the 320 MB written */
    assert_true(max_wal > 0);
    if (max_wal >= 140LL << 20)
        fail_msg("the WAL grew to %lld bytes", max_wal);
    if (file_size(f->path) < 32LL << 20)
        fail_msg("no checkpoint during the commits: the database file has %lld bytes",
                 file_size(f->path));
    assert_true(db_bytes(f->path) >= (long long)COMMITS * EXPL);
    wait_copied(f->path, "the last commit");
    /* a few commits more, far below the threshold: only the idle checkpoint
     * copies them (two quiet periods of 2 s) */
    for (int i = COMMITS; i < COMMITS + 10; i++)
        commit_long(s, i + 1, expl);
    if (file_size(f->path) >= db_bytes(f->path))
        fail_msg("the last commits are in the file at once (%lld bytes of %lld)", file_size(f->path),
                 db_bytes(f->path));
    wait_copied(f->path, "the last commits");
    /* the idle checkpoint gives the WAL's disk space back (under load the
     * file is written over in place, never truncated by a writer) */
    for (int t = 0; t < 30 && file_size(wal) != 0; t++)
        usleep(500 * 1000);
    if (file_size(wal) != 0)
        fail_msg("15 s after the last commits the WAL file still has %lld bytes", file_size(wal));
    char buf[64];
    assert_string_equal(raw_text(f->path, "SELECT count(*) FROM plays WHERE game_id = 'ck'", buf,
                                 sizeof buf),
                        "20010");
    store_close(s);
    free(expl);
}

/* The value of the metric line `name ` in the store's /metrics text. */
static long long metric(store *s, const char *name)
{
    char m[2048], key[128];
    assert_true(s->vt->metrics(s, m, sizeof m) > 0);
    snprintf(key, sizeof key, "\n%s ", name);
    const char *n = strstr(m, key);
    if (!n)
        fail_msg("no %s in %s", name, m);
    return atoll(n + strlen(key));
}

/* The pages of the WAL the kernel holds unwritten (dirty or being
 * written), by cachestat(2) (Linux 6.5); -1 where the kernel has none. */
static long long wal_unwritten(const char *wal)
{
    struct { unsigned long long off, len; } range = {0, 0};
    struct { unsigned long long cache, dirty, writeback, evicted, recently_evicted; } cs;
    int fd = open(wal, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long rc = syscall(451 /* __NR_cachestat */, fd, &range, &cs, 0);
    close(fd);
    return rc == 0 ? (long long)(cs.dirty + cs.writeback) : -1;
}

/* The write-behind: 34 MB committed (below the checkpoint's 64 MB), and
 * within a second of the last commit the kernel holds no more than a few MB
 * of the WAL unwritten. SQLite alone leaves all of it to the kernel, which
 * writes it out after 30 s (or at the checkpoint's sync, all at once: the
 * stall, docs/benchmarks.md); the store's metrics count the syncs (checked
 * on every kernel). */
static void test_wal_writeback(void **state)
{
    fx *f = *state;
    char wal[200];
    snprintf(wal, sizeof wal, "%s-wal", f->path);
    store *s = open_ok(f->path);
    create_game(s, "ck", 1, "{\"seed\":1}", "{}", NULL, 0, 0);
    int kernel_tells = wal_unwritten(wal) >= 0; /* cachestat(2): Linux 6.5 and later */
    enum { EXPL = 16000, COMMITS = 1000 };
    char *expl = malloc(EXPL + 1);
    assert_non_null(expl);
    for (int i = 0; i < EXPL; i++)
        expl[i] = (char)('a' + (i * 7919) % 26);
    expl[EXPL] = 0;
    for (int i = 0; i < COMMITS; i++)
        commit_long(s, i + 1, expl);
    free(expl);
    if (file_size(wal) < 16LL << 20)
        fail_msg("the WAL has %lld bytes: the commits did not reach it", file_size(wal));
    long long left = -1;
    for (int t = 0; kernel_tells && t < 20; t++) {
        left = wal_unwritten(wal);
        if (left <= 2 * 256) /* two write-behinds' worth (4 KB pages) */
            break;
        usleep(50 * 1000);
    }
    if (left > 2 * 256)
        fail_msg("a second after the last commit the kernel holds %lld pages of the WAL unwritten",
                 left);
    /* the syncs themselves, on every kernel (the checkpointer's, so waited for) */
    long long syncs = 0;
    for (int t = 0; t < 40 && syncs < 1; t++) {
        if (t)
            usleep(50 * 1000);
        syncs = metric(s, "croupier_sqlite_wal_syncs_total");
    }
    if (syncs < 1)
        fail_msg("no write-behind sync two seconds after 34 MB of commits");
    store_close(s);
}

/* One game's player: reads the game, then stores a play on it, as a
 * request does, `n` times. */
typedef struct {
    store *s;
    char id[8];
    int n, errors;
} player_loop;

static void *write_loop(void *arg)
{
    player_loop *w = arg;
    for (int i = 0; i < w->n; i++) {
        store_row row;
        if (store_get(w->s, w->id, &row)) {
            w->errors++;
            continue;
        }
        usleep(100); /* the request's work between its read and its write */
        store_play p = P((int)row.version + 1, 0, STORE_PERSON, NULL, "{\"type\":\"discard\",\"card\":0}",
                         "{}", "an explanation of some length, as a bot's play has one");
        if (store_commit(w->s, w->id, row.version, "{\"seats\":[]}", (const unsigned char *)"{}", 2,
                         &p, 1))
            w->errors++;
        store_row_free(&row);
    }
    return NULL;
}

/* The writes of four threads go through one connection, the primary
 * (and the reads when it is free), whose page cache stays good from one
 * use to the next: SQLite drops a connection's whole cache when another
 * connection of the file has written, so with the writes spread over the
 * pool each read its B-tree pages again. The store's metrics count the
 * pages the primary found in its cache and those it read from the files. */
static void test_primary_cache(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    enum { N = 200, T = 4 };
    player_loop w[T];
    pthread_t t[T];
    for (int i = 0; i < T; i++) {
        w[i] = (player_loop){.s = s, .n = N};
        snprintf(w[i].id, sizeof w[i].id, "w%d", i);
        create_game(s, w[i].id, 1, "{}", NULL, NULL, 0, 0);
    }
    for (int i = 0; i < T; i++)
        assert_int_equal(pthread_create(&t[i], NULL, write_loop, &w[i]), 0);
    for (int i = 0; i < T; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].errors, 0);
    }
    long long writes = metric(s, "croupier_sqlite_writes_total");
    long long hit = metric(s, "croupier_sqlite_primary_pages_total{from=\"cache\"}");
    long long miss = metric(s, "croupier_sqlite_primary_pages_total{from=\"file\"}");
    assert_int_equal(writes, T * N + T);
    if (hit < T * N)
        fail_msg("%lld pages found in the primary's cache over %lld writes", hit, writes);
    if (miss > 50) /* the first writes fill the cache */
        fail_msg("%lld pages read from the files over %lld writes (%lld from the cache)", miss,
                 writes, hit);
    store_close(s);
}

static void test_migrate_schema1(void **state)
{
    fx *f = *state;
    make_schema1(f->path, NULL);
    check_migrated(f->path);
    /* Opening again is a no-op: still five schema_version rows, same data. */
    store *s = open_ok(f->path);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_version"), 5);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM games"), 4);
    assert_int_equal(raw_int(f->path, "SELECT version FROM games WHERE id = 'a1'"), 4);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays"), 5);
}

/* An empty schema-1 database (the previous release opened once, no game). */
static void test_migrate_empty_schema1(void **state)
{
    fx *f = *state;
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, SCHEMA_1);
    sqlite3_close(db);
    store *s = open_ok(f->path);
    create_game(s, "g", 1, "{}", NULL, NULL, 0, 0);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT max(version) FROM schema_version"), 5);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name = 'notes'"),
                     0);
}

/* A migration that fails half-way (here: a `plays` table already there)
 * fails the open with a message and leaves the file exactly as it was. */
static void test_migrate_failure_rolls_back(void **state)
{
    fx *f = *state;
    make_schema1(f->path, "CREATE TABLE plays (x INTEGER)");
    store *s = NULL;
    char err[512] = "";
    assert_int_equal(store_sqlite_open(&s, f->path, err, sizeof err), ERR_STORE);
    assert_null(s);
    assert_non_null(strstr(err, "migrating schema 1 to 2"));
    assert_non_null(strstr(err, "plays"));
    assert_int_equal(
        raw_int(f->path, "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'state'"),
        1);
    assert_int_equal(
        raw_int(f->path, "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'snap'"),
        0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM notes"), 4);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM games"), 3);
    assert_int_equal(
        raw_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'"), 0);
    /* Remove the obstacle: the migration then goes through. */
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, "DROP TABLE plays");
    sqlite3_close(db);
    check_migrated(f->path);
}

static void test_newer_schema_refused(void **state)
{
    fx *f = *state;
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
                 " applied_at INTEGER NOT NULL, note TEXT NOT NULL);"
                 "INSERT INTO schema_version VALUES (5, 1, 'x'), (6, 2, 'from the future');");
    sqlite3_close(db);
    store *s = NULL;
    char err[512] = "";
    assert_int_equal(store_sqlite_open(&s, f->path, err, sizeof err), ERR_STORE);
    assert_null(s);
    assert_non_null(strstr(err, "the database has schema 6, newer than this build (5)"));
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_version"), 2);

    /* Unknown shapes are refused too, and nothing is created. */
    char other[160];
    snprintf(other, sizeof other, "%s/other.db", f->dir);
    db = raw_open(other);
    raw_exec(db, "CREATE TABLE games (id TEXT PRIMARY KEY, something TEXT)");
    sqlite3_close(db);
    err[0] = 0;
    assert_int_equal(store_sqlite_open(&s, other, err, sizeof err), ERR_STORE);
    assert_null(s);
    assert_true(strlen(err) > 0);
    assert_int_equal(raw_int(other, "SELECT count(*) FROM sqlite_master WHERE name = 'plays'"),
                     0);

    /* An unopenable path: a message, no store. */
    err[0] = 0;
    assert_int_equal(store_sqlite_open(&s, "/nonexistent-dir/x/y.db", err, sizeof err),
                     ERR_STORE);
    assert_null(s);
    assert_non_null(strstr(err, "/nonexistent-dir/x/y.db"));
}

/* --- several "processes" opening one file at once ----------------------------- */

enum { OPENERS = 6 };

typedef struct opener {
    const char *path;
    pthread_barrier_t *go;
    int rc;
    char err[512];
} opener;

static void *open_one(void *arg)
{
    opener *o = arg;
    store *s = NULL;
    pthread_barrier_wait(o->go);
    o->rc = store_sqlite_open(&s, o->path, o->err, sizeof o->err);
    if (!o->rc) {
        o->rc = store_ping(s);
        store_close(s);
    }
    return NULL;
}

static void open_concurrently(const char *path)
{
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, OPENERS);
    opener o[OPENERS];
    pthread_t t[OPENERS];
    memset(o, 0, sizeof o);
    for (int i = 0; i < OPENERS; i++) {
        o[i].path = path;
        o[i].go = &go;
        assert_int_equal(pthread_create(&t[i], NULL, open_one, &o[i]), 0);
    }
    for (int i = 0; i < OPENERS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < OPENERS; i++)
        if (o[i].rc)
            fail_msg("opener %d: %d %s", i, o[i].rc, o[i].err);
}

static void test_concurrent_open_empty(void **state)
{
    fx *f = *state;
    open_concurrently(f->path);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_version"), 1);
    assert_int_equal(raw_int(f->path, "SELECT version FROM schema_version"), 5);
}

static void test_concurrent_open_schema1(void **state)
{
    fx *f = *state;
    make_schema1(f->path, NULL);
    open_concurrently(f->path);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_version"), 5);
    check_migrated(f->path);
}

/* Several openers at once migrated a schema-2 (or -3) database once: rows
 * 2, 3, 4 and 5, schema 5's tables. */
static void check_migrated_from2(const char *path)
{
    char buf[256];
    assert_string_equal(
        raw_text(path, "SELECT group_concat(version || ':' || note, '|') FROM"
                       " (SELECT * FROM schema_version ORDER BY version)",
                 buf, sizeof buf),
        "2:origin + play log + snapshot cache|3:migrated: idempotency keys|"
        "4:migrated: idempotency claims and compact answers apart|5:migrated: card notes");
    check_idem_tables(path);
}

/* A database of the release before the previous one (schema 2: no
 * idempotency table) gains the tables and schema_version rows 3 and 4, in
 * place; its games are untouched; several openers at once migrate it once. */
static void test_migrate_schema2(void **state)
{
    fx *f = *state;
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, SCHEMA_2);
    sqlite3_close(db);
    open_concurrently(f->path);
    check_migrated_from2(f->path);
    store *s = open_ok(f->path);
    store_row r;
    assert_int_equal(store_get(s, "g2", &r), 0);
    assert_int_equal(r.version, 7);
    assert_int_equal(r.snap_version, 7);
    assert_memory_equal(r.snap, "snap7", 5);
    store_row_free(&r);
    store_play p[1] = {P(3, 0, STORE_PERSON, NULL, "[3]", "{}", NULL)};
    assert_int_equal(store_commit(s, "g2", 7, "{}", NULL, 0, p, 1), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plays WHERE game_id = 'g2'"), 3);
    store_close(s);
}

/* The previous release's schema 3 (its store_sqlite.c's DDL, verbatim), with
 * an answered key, a pending one and an expired answer. */
static const char *const SCHEMA_3_IDEM =
    "CREATE TABLE idempotency ( id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,"
    " owner TEXT NOT NULL, state INTEGER NOT NULL, answer BLOB,"
    " expires_at INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX idempotency_expires ON idempotency (expires_at);"
    "INSERT INTO schema_version VALUES (3, 1700000001, 'migrated: idempotency keys');"
    "INSERT INTO idempotency VALUES"
    " ('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',"
    "  'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',"
    "  '0123456789abcdef:7', 1, x'000102ff', 4000000000),"
    " ('aa112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',"
    "  'bbeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',"
    "  '0123456789abcdef:8', 0, NULL, 4000000001),"
    " ('cc112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',"
    "  'ddeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',"
    "  '0123456789abcdef:9', 1, x'05', 1);";

/* The previous release's database (schema 3: one idempotency table whose
 * pending rows were grown into answers) is migrated in place: its answers
 * become rows of idempotency_answers as they were sealed (the hashes as
 * their first 16 bytes; in the order they expire), its pending rows
 * claims, the old table is gone, schema_version gains row 4; the answers
 * are the store's (idem_get). */
/* The previous release's schema 4 (this schema without card_notes) gains
 * the table and schema_version row 5, its games untouched. */
static void test_migrate_schema4(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    create_game(s, "g4", 3, "{}", "snap3", NULL, 0, 0);
    store_close(s);
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, "DROP TABLE card_notes; UPDATE schema_version SET version = 4,"
                 " note = 'origin + play log + snapshot cache + idempotency claims and answers'");
    sqlite3_close(db);
    open_concurrently(f->path);
    char buf[256];
    assert_string_equal(
        raw_text(f->path, "SELECT group_concat(version || ':' || note, '|') FROM"
                          " (SELECT * FROM schema_version ORDER BY version)",
                 buf, sizeof buf),
        "4:origin + play log + snapshot cache + idempotency claims and answers|"
        "5:migrated: card notes");
    check_idem_tables(f->path);
    s = open_ok(f->path);
    store_row r;
    assert_int_equal(store_get(s, "g4", &r), 0);
    assert_int_equal(r.version, 3);
    store_row_free(&r);
    assert_int_equal(s->vt->note_put(s, "g4", 0, "d0.0", "kept", 100), 0);
    store_close(s);
}

static void test_migrate_schema3(void **state)
{
    fx *f = *state;
    sqlite3 *db = raw_open(f->path);
    raw_exec(db, SCHEMA_2);
    raw_exec(db, SCHEMA_3_IDEM);
    sqlite3_close(db);
    open_concurrently(f->path);
    check_migrated_from2(f->path);
    char buf[256];
    assert_string_equal(
        raw_text(f->path, "SELECT group_concat(hex(id) || ':' || hex(fingerprint) || ':' ||"
                          " hex(answer) || ':' || expires_at, '|') FROM idempotency_answers",
                 buf, sizeof buf),
        "CC112233445566778899AABBCCDDEEFF:DDEEDDCCBBAA99887766554433221100:05:1|"
        "00112233445566778899AABBCCDDEEFF:FFEEDDCCBBAA99887766554433221100:000102FF:4000000000");
    assert_string_equal(
        raw_text(f->path, "SELECT group_concat(hex(id) || ':' || hex(fingerprint) || ':' ||"
                          " owner || ':' || expires_at, '|') FROM idempotency_claims",
                 buf, sizeof buf),
        "AA112233445566778899AABBCCDDEEFF:BBEEDDCCBBAA99887766554433221100:"
        "0123456789abcdef:8:4000000001");
    store *s = open_ok(f->path);
    store_migrated_answer_case(s);
    store_row r;
    assert_int_equal(store_get(s, "g2", &r), 0);
    assert_int_equal(r.version, 7);
    store_row_free(&r);
    store_close(s);
}

/* --- idempotency keys ----------------------------------------------------------- */

static void db_sql(void *ctx, const char *sql)
{
    sqlite3 *db = raw_open(ctx);
    raw_exec(db, sql);
    sqlite3_close(db);
}

static long long db_num(void *ctx, const char *sql) { return raw_int(ctx, sql); }

static void test_idempotency(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_db db = {db_sql, db_num, f->path,
                   "UPDATE idempotency_answers SET expires_at = 1"
                   " WHERE id IN (x'6b320000000000000000000000000000', x'6b330000000000000000000000000000')"};
    store_idempotency_cases(s, &db);
    store_close(s);
}

static void test_retention(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_db db = {db_sql, db_num, f->path, NULL};
    store_retention_cases(s, &db,
                          "UPDATE games SET updated_at = updated_at - 10 * 86400"
                          " WHERE id IN ('ra', 'rc')");
    store_close(s);
}

static void test_card_notes(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_db db = {db_sql, db_num, f->path, NULL};
    store_note_cases(s, &db);
    store_close(s);
}

static void test_rewind(void **state)
{
    fx *f = *state;
    store *s = open_ok(f->path);
    store_db db = {db_sql, db_num, f->path, NULL};
    store_rewind_cases(s, &db);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fresh_schema, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_get_origin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plays_paging, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snap_put, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_race, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpointer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wal_writeback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_schema1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_empty_schema1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_failure_rolls_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_open_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_open_schema1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_schema2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_schema3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_schema4, setup, teardown),
        cmocka_unit_test_setup_teardown(test_card_notes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rewind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idempotency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_primary_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retention, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
