/* store_sqlite.c: the embedded default store (one SQLite file, WAL).
 *
 * Schema version 5 (store.h): games (one row per game: origin, snapshot
 * cache), plays (the append-only log, WITHOUT ROWID, keyed by game and play
 * number), idempotency_claims and idempotency_answers (the keys),
 * card_notes (the seats' notes) and schema_version. A database of an
 * earlier release (schema 4, 3, 2, or 1:
 * games.state + notes) is migrated in place on open, in one transaction.
 *
 * A small pool of connections, one per concurrent request at most, so that
 * readers never wait for each other (WAL). Writers of this process take
 * turns on a mutex held from BEGIN IMMEDIATE to COMMIT or ROLLBACK: a waiter
 * goes on the moment the holder commits, where SQLite's busy handler would
 * sleep 1 ms and more between tries (under two writing connections that
 * was most of a stored play's time); writers of other processes sharing the
 * file still wait on SQLite's busy timeout. Each pooled connection keeps its own
 * prepared statements (prepared on first use, reset after each), so the hot
 * paths never parse SQL. Every write is one BEGIN IMMEDIATE transaction: the
 * compare-and-swap (UPDATE ... WHERE version = ?), the snapshot and the
 * appended plays commit together; SQLite's write lock makes it atomic across
 * threads and processes sharing the file. WAL checkpoints run in a thread of
 * the store's own (the checkpointer, below), never inside a request's COMMIT.
 */
#include "store.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"

enum { POOL_MAX = 32, BUSY_MS = 5000, OPEN_WAIT_TRIES = 12 /* x BUSY_MS on open */,
       CACHE_KB = 512 };
/* Expired idempotency answers are deleted this many a transaction. */
enum { PURGE_BATCH = 5000 };
/* The primary connection's cache (primary_get) stays good from one use to
 * the next: SQLite's default size, 2 MB. */
#define PRIMARY_CACHE_PRAGMA "PRAGMA cache_size=-2000"

/* The checkpointer (below): a checkpoint when the WAL holds CKPT_FRAMES
 * pages (about 64 MB), or when it holds any and no commit came for
 * CKPT_IDLE_S seconds (that one also truncates the WAL file). */
enum { CKPT_FRAMES = 16000, CKPT_IDLE_S = 2 };
/* ... in PASSIVE passes (at most CKPT_PASSES) until no more than CKPT_TAIL
 * pages were committed during the last, then one with the writers held. */
enum { CKPT_PASSES = 4, CKPT_TAIL = 256 };
/* Write-behind (wal_writeback): each time the commits added FLUSH_PAGES
 * pages (256 KB) to the WAL, the checkpointer syncs it. A writer's own
 * append to the WAL waits while a sync writes it out, the longer the more
 * there is to write: with 1 MB a sync (4 MB was worse) a stored play's
 * p99 on an aged database was 10-13x its median, with 256 KB 8.3-10.5x,
 * for the same CPU per request (docs/benchmarks.md, the stall). */
enum { FLUSH_PAGES = 64 };
/* A disk short of room (docs/operations.md, the WAL's headroom). A
 * checkpoint copies the WAL's new pages into the database file, which
 * grows by as much as the WAL holds, before the WAL's own space comes
 * back: so the WAL is checkpointed before it holds a CKPT_ROOM_SHARE-th
 * of the filesystem's free space (less than CKPT_FRAMES pages only when
 * less than 512 MB is free), but not before it holds CKPT_MIN_FRAMES
 * pages (1 MB). */
enum { CKPT_ROOM_SHARE = 8, CKPT_MIN_FRAMES = 256 };
/* A WAL frame's bytes: SQLite's default page (croupier sets no other) and
 * the frame's header. */
enum { FRAME_BYTES = 4096 + 24 };
/* A write that fails for a full disk or an I/O error (writes_fail): the
 * checkpointer tries a checkpoint at once, and again every FULL_RETRY_MS,
 * until a write goes through, or a checkpoint does with FULL_OK_BYTES
 * free on the disk (then writes are said to work again). */
enum { FULL_RETRY_MS = 200 };
#define FULL_OK_BYTES (1LL << 20)

/* The statements of a connection, prepared once each. */
enum {
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_GET,
    Q_ORIGIN,
    Q_EXISTS,
    Q_INS_GAME,
    Q_INS_PLAY,
    Q_CAS,
    Q_SNAP_PUT,
    Q_PLAYS,
    Q_PLAYS_NO_NOTES,
    Q_DEL_GAME,
    Q_DEL_PLAYS,
    Q_PING,
    Q_SCHEMA,
    Q_IDEM_CLAIM,
    Q_IDEM_ANSWER,
    Q_IDEM_HELD,
    Q_IDEM_TAKE,
    Q_IDEM_RELEASE,
    Q_IDEM_DONE,
    Q_IDEM_UNCLAIM,
    Q_IDEM_PURGE,
    Q_IDEM_PURGE_CLAIMS,
    Q_AGES,
    Q_NOTES,
    Q_NOTE_OTHERS,
    Q_NOTE_SET,
    Q_NOTE_DEL,
    Q_DEL_NOTES,
    Q_DEL_PLAYS_AFTER,
    Q__COUNT
};

#define PLAY_COLS "n, version, seat, kind, bot, play, record, explanation, at_ms"

static const char *const SQL[Q__COUNT] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_GET] = "SELECT game, version, meta, snap, snap_version FROM games WHERE id = ?1",
    [Q_ORIGIN] = "SELECT origin FROM games WHERE id = ?1",
    [Q_EXISTS] = "SELECT 1 FROM games WHERE id = ?1",
    [Q_INS_GAME] = "INSERT INTO games (id, game, version, meta, origin, snap, snap_version,"
                   " created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
    [Q_INS_PLAY] = "INSERT INTO plays (game_id, " PLAY_COLS ")"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [Q_CAS] = "UPDATE games SET version = version + 1, meta = ?1, snap = ?2, snap_version = ?3,"
              " updated_at = ?4 WHERE id = ?5 AND version = ?6",
    [Q_SNAP_PUT] = "UPDATE games SET snap = ?1, snap_version = ?2 WHERE id = ?3 AND version = ?4",
    [Q_PLAYS] = "SELECT " PLAY_COLS " FROM plays WHERE game_id = ?1 AND n > ?2"
                " ORDER BY n LIMIT ?3",
    [Q_PLAYS_NO_NOTES] = "SELECT " PLAY_COLS " FROM plays WHERE game_id = ?1 AND n > ?2"
                         " AND kind <> 3 ORDER BY n LIMIT ?3",
    [Q_DEL_GAME] = "DELETE FROM games WHERE id = ?1 AND updated_at < ?2",
    [Q_DEL_PLAYS] = "DELETE FROM plays WHERE game_id = ?1",
    [Q_PING] = "SELECT 1 FROM games LIMIT 1",
    [Q_SCHEMA] = "SELECT max(version) FROM schema_version",
    /* a new claim, or an expired one made new */
    [Q_IDEM_CLAIM] = "INSERT INTO idempotency_claims (id, fingerprint, owner, expires_at)"
                     " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO UPDATE SET"
                     " fingerprint = excluded.fingerprint, owner = excluded.owner,"
                     " expires_at = excluded.expires_at WHERE idempotency_claims.expires_at <= ?5",
    [Q_IDEM_ANSWER] = "SELECT fingerprint, answer, expires_at > ?2 FROM idempotency_answers"
                      " WHERE id = ?1",
    [Q_IDEM_HELD] = "SELECT fingerprint, owner, expires_at > ?2 FROM idempotency_claims"
                    " WHERE id = ?1",
    [Q_IDEM_TAKE] = "UPDATE idempotency_claims SET owner = ?3, expires_at = ?4"
                    " WHERE id = ?1 AND owner = ?2",
    [Q_IDEM_RELEASE] = "DELETE FROM idempotency_claims WHERE id = ?1 AND owner = ?2",
    /* inside a write: its answer, unless the key has a live one already (an
     * expired one not purged yet is written over) */
    [Q_IDEM_DONE] = "INSERT INTO idempotency_answers (id, fingerprint, answer, expires_at)"
                    " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO UPDATE SET"
                    " fingerprint = excluded.fingerprint, answer = excluded.answer,"
                    " expires_at = excluded.expires_at"
                    " WHERE idempotency_answers.expires_at <= ?5",
    [Q_IDEM_UNCLAIM] = "DELETE FROM idempotency_claims WHERE id = ?1",
    /* a batch at a time (PURGE_BATCH): no write holds the others back long */
    [Q_IDEM_PURGE] = "DELETE FROM idempotency_answers WHERE rowid IN (SELECT rowid FROM"
                     " idempotency_answers WHERE expires_at <= ?1 LIMIT ?2)",
    [Q_IDEM_PURGE_CLAIMS] = "DELETE FROM idempotency_claims WHERE expires_at <= ?1",
    [Q_AGES] = "SELECT id, updated_at FROM games WHERE id > ?1 ORDER BY id LIMIT ?2",
    [Q_NOTES] = "SELECT seat, card, text, at_ms FROM card_notes WHERE game_id = ?1"
                " AND (?2 < 0 OR seat = ?2) ORDER BY seat, card",
    [Q_NOTE_OTHERS] = "SELECT count(*) FROM card_notes WHERE game_id = ?1 AND seat = ?2"
                      " AND card <> ?3",
    [Q_NOTE_SET] = "INSERT INTO card_notes (game_id, seat, card, text, at_ms)"
                   " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (game_id, seat, card)"
                   " DO UPDATE SET text = excluded.text, at_ms = excluded.at_ms",
    [Q_NOTE_DEL] = "DELETE FROM card_notes WHERE game_id = ?1 AND seat = ?2 AND card = ?3",
    [Q_DEL_NOTES] = "DELETE FROM card_notes WHERE game_id = ?1",
    [Q_DEL_PLAYS_AFTER] = "DELETE FROM plays WHERE game_id = ?1 AND n > ?2 AND kind <> 3",
};

_Static_assert(STORE_NOTE == 3, "Q_PLAYS_NO_NOTES spells STORE_NOTE as 3");

typedef struct sqlite_store sqlite_store;

typedef struct conn {
    sqlite3 *db;
    sqlite3_stmt *st[Q__COUNT];
    int primary; /* the store's primary connection (held with wmu) */
    sqlite_store *s; /* its store */
} conn;

struct sqlite_store {
    store base;
    char *path;
    char *wal, *dir; /* the WAL's path, and the directory of the files (statvfs) */
    pthread_mutex_t mu;
    pthread_mutex_t wmu; /* this process's writers, one at a time */
    conn *primary;       /* every write's connection, and reads' when free */
    long w_done;         /* writes (atomic; /metrics) */
    long p_hit, p_miss;  /* pages the primary found in its cache or read from
                            the files (atomic; /metrics) */
    conn *idle[POOL_MAX];
    int nidle;
    /* the checkpointer thread and what the commits tell it */
    pthread_mutex_t ck_mu;
    pthread_cond_t ck_cv;
    pthread_t ck_thread;
    int ck_running;  /* the thread was started (joined on close) */
    int ck_stop;     /* close: the thread ends */
    int ck_want;     /* a commit left the WAL at ck_next pages or more */
    int ck_next;     /* the WAL size (pages) that calls for the next checkpoint */
    int ck_pages;    /* the WAL size the last commit saw (atomic) */
    long ck_gen;     /* checkpoints done (ck_done is broadcast after each) */
    int ck_flush;    /* the commits added FLUSH_PAGES pages since the last write-behind */
    int ck_flushed;  /* the WAL size at the last write-behind (atomic) */
    long wal_syncs;  /* write-behind syncs done (atomic; /metrics) */
    pthread_cond_t ck_done;
    sqlite3 *ck_db;  /* its own connection */
    int ck_full;     /* a write failed for a full disk or an I/O error: a checkpoint at once */
    int ck_limit;    /* the WAL size (pages) that calls for a checkpoint: CKPT_FRAMES,
                        less on a disk short of room (atomic) */
    /* writes that fail (writes_fail) */
    int w_fail;           /* 0, or how the last write failed: ERR_STORE_FULL, ERR_STORE,
                             until a write or a rescue goes through (atomic) */
    long long w_fail_ms;  /* since when (mono_ms; atomic) */
    long w_failed;        /* writes that failed so (atomic; /metrics) */
    long w_rescues;       /* checkpoints run for them (atomic; /metrics) */
};

/* --- schema ----------------------------------------------------------------- */

static const char *const SCHEMA_V2 =
    "CREATE TABLE schema_version ("
    " version INTEGER PRIMARY KEY,"
    " applied_at INTEGER NOT NULL,"
    " note TEXT NOT NULL);"
    "CREATE TABLE games ("
    " id TEXT PRIMARY KEY,"
    " game TEXT NOT NULL,"
    " version INTEGER NOT NULL,"
    " meta TEXT NOT NULL,"
    " origin TEXT NOT NULL,"
    " snap BLOB,"
    " snap_version INTEGER NOT NULL DEFAULT -1,"
    " created_at INTEGER NOT NULL,"
    " updated_at INTEGER NOT NULL);";

static const char *const PLAYS_DDL =
    "CREATE TABLE plays ("
    " game_id TEXT NOT NULL,"
    " n INTEGER NOT NULL,"
    " version INTEGER NOT NULL,"
    " seat INTEGER NOT NULL,"
    " kind INTEGER NOT NULL,"
    " bot TEXT,"
    " play TEXT,"
    " record TEXT,"
    " explanation TEXT,"
    " at_ms INTEGER NOT NULL,"
    " PRIMARY KEY (game_id, n)) WITHOUT ROWID;";

/* Schema 5: a seat's notes on cards (store.h: store_card_note). */
static const char *const NOTES_DDL =
    "CREATE TABLE card_notes ("
    " game_id TEXT NOT NULL,"
    " seat INTEGER NOT NULL,"
    " card TEXT NOT NULL,"
    " text TEXT NOT NULL,"
    " at_ms INTEGER NOT NULL,"
    " PRIMARY KEY (game_id, seat, card)) WITHOUT ROWID;";

/* Schema 3's idempotency keys, one table whose pending rows a write grew
 * into answered ones (kept only to migrate a schema-2 database on through
 * schema 3). */
static const char *const IDEM_V3_DDL =
    "CREATE TABLE idempotency ("
    " id TEXT PRIMARY KEY,"
    " fingerprint TEXT NOT NULL,"
    " owner TEXT NOT NULL,"
    " state INTEGER NOT NULL,"
    " answer BLOB,"
    " expires_at INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX idempotency_expires ON idempotency (expires_at);";

/* Schema 4: the keys (store.h: store_idem), claims and answers apart. A
 * claim is small and short-lived. An answer is inserted once, at its final
 * size, by the write it answers: a rowid table, so that rows are appended
 * in the order they come and pages fill up (keyed by the key's random hash
 * the table's pages would be split and half empty), the key unique beside
 * it. `expires_at` (unix seconds): the end of a claim's lease or of an
 * answer's keeping; past it the row counts as absent and is purged. */
static const char *const IDEM_DDL =
    "CREATE TABLE idempotency_claims ("
    " id BLOB PRIMARY KEY,"
    " fingerprint BLOB NOT NULL,"
    " owner TEXT NOT NULL,"
    " expires_at INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE idempotency_answers ("
    " id BLOB NOT NULL UNIQUE,"
    " fingerprint BLOB NOT NULL,"
    " answer BLOB NOT NULL,"
    " expires_at INTEGER NOT NULL);"
    "CREATE INDEX idempotency_answers_expires ON idempotency_answers (expires_at);";

/* Schema 3 -> 4: schema 3's rows into the two tables (their hex hashes as
 * bytes, cut to STORE_IDEM_HASH; the answers as they were sealed, which
 * api/idem.c still opens; the pending rows as claims, which run out within
 * their lease), then the old table dropped. croupier_unhex() is
 * registered on the connection that migrates (schema_ensure). */
static const char *const MIGRATE_3_4 =
    "INSERT INTO idempotency_answers (id, fingerprint, answer, expires_at)"
    " SELECT croupier_unhex(id), croupier_unhex(fingerprint), answer, expires_at"
    " FROM idempotency WHERE state = 1 AND answer IS NOT NULL ORDER BY expires_at;"
    "INSERT INTO idempotency_claims (id, fingerprint, owner, expires_at)"
    " SELECT croupier_unhex(id), croupier_unhex(fingerprint), owner, expires_at"
    " FROM idempotency WHERE state = 0;"
    "DROP TABLE idempotency;";

/* Schema 1 -> 2, run inside the open's transaction (the schema_version rows
 * are inserted after, with the time). Notes of games that no longer exist
 * are dropped with the notes table. */
static const char *const MIGRATE_1_2 =
    "ALTER TABLE games RENAME COLUMN state TO origin;"
    "ALTER TABLE games ADD COLUMN snap BLOB;"
    "ALTER TABLE games ADD COLUMN snap_version INTEGER NOT NULL DEFAULT -1;";

static const char *const MIGRATE_NOTES =
    "INSERT INTO plays (game_id, n, version, seat, kind, bot, play, record, explanation, at_ms)"
    " SELECT notes.game_id, notes.n, games.version, -1, 3, NULL, NULL, NULL, notes.text, 0"
    " FROM notes JOIN games ON games.id = notes.game_id;"
    "DROP TABLE notes;";

/* --- connections ------------------------------------------------------------ */

static void conn_free(conn *c)
{
    if (!c)
        return;
    for (int i = 0; i < Q__COUNT; i++)
        sqlite3_finalize(c->st[i]);
    sqlite3_close_v2(c->db);
    free(c);
}

/* Raise one of the checkpointer's requests (ck_want, ck_flush, ck_stop)
 * and wake it, unless that request is already up. */
static void ck_wake(sqlite_store *s, int *flag)
{
    pthread_mutex_lock(&s->ck_mu);
    if (!*flag) {
        *flag = 1;
        pthread_cond_signal(&s->ck_cv);
    }
    pthread_mutex_unlock(&s->ck_mu);
}

/* After every commit of a pooled connection SQLite calls this with the
 * WAL's size in pages (the write lock already released): the checkpointer
 * is woken when the WAL has grown enough. No checkpoint runs in a request's
 * thread. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    sqlite_store *s = arg;
    __atomic_store_n(&s->ck_pages, pages, __ATOMIC_RELAXED);
    if (__atomic_load_n(&s->w_fail, __ATOMIC_RELAXED)) /* a write went through */
        __atomic_store_n(&s->w_fail, 0, __ATOMIC_RELEASE);
    if (pages >= __atomic_load_n(&s->ck_next, __ATOMIC_RELAXED)) {
        ck_wake(s, &s->ck_want);
    } else if ((unsigned)(pages - __atomic_load_n(&s->ck_flushed, __ATOMIC_RELAXED)) >=
               FLUSH_PAGES) { /* (or the WAL started over: pages fell) */
        __atomic_store_n(&s->ck_flushed, pages, __ATOMIC_RELAXED);
        ck_wake(s, &s->ck_flush);
    }
    return SQLITE_OK;
}

static conn *conn_new(sqlite_store *s, char *err, size_t errlen)
{
    const char *path = s->path;
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        if (err)
            snprintf(err, errlen, "sqlite %s: out of memory", path);
        return NULL;
    }
    c->s = s;
    int rc = sqlite3_open_v2(path, &c->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        if (err)
            snprintf(err, errlen, "sqlite open %s: %s", path,
                     c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
        conn_free(c);
        return NULL;
    }
    sqlite3_busy_timeout(c->db, BUSY_MS);
    char *msg = NULL;
    /* Turning a new file to WAL takes an exclusive lock, and SQLite does not
     * call the busy handler for it: when several processes create the file
     * at once, the losers retry here. */
    for (int waited = 0;; waited += 10) {
        rc = sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL, &msg);
        if (rc != SQLITE_BUSY || waited >= BUSY_MS)
            break;
        sqlite3_free(msg);
        msg = NULL;
        sqlite3_sleep(10);
    }
    /* journal_size_limit: the first commit after a checkpoint that reset the
     * WAL truncates it to this size, in the writer's own time. Truncating
     * some 30 MB away held every writer 60-170 ms after each checkpoint under
     * load (the WAL grows past CKPT_FRAMES while a checkpoint runs), so the
     * limit is above the most the back-pressure lets the WAL hold (twice
     * CKPT_FRAMES pages, 132 MB): under load the file is written over in
     * place, and the checkpointer truncates it once the store is idle.
     * cache_size: each pooled connection keeps at most CACHE_KB of pages
     * (SQLite's default is 2 MB, 64 MB over the pool): a connection's cache
     * starts over whenever another one has written (WAL), so a larger one
     * would mostly hold pages no longer good. */
    char pragmas[192];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
             "PRAGMA journal_size_limit=150994944; PRAGMA cache_size=-%d;",
             (int)CACHE_KB);
    if (rc != SQLITE_OK || sqlite3_exec(c->db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
        if (err)
            snprintf(err, errlen, "sqlite %s: %s", path, msg ? msg : "pragma failed");
        sqlite3_free(msg);
        conn_free(c);
        return NULL;
    }
    /* With the checkpointer running, a commit never checkpoints: SQLite's
     * autocheckpoint is itself a WAL hook, which this one replaces. Without
     * it, SQLite's default (1000 pages, in the committing thread). */
    if (s->ck_running)
        sqlite3_wal_hook(c->db, wal_hook, s);
    return c;
}

/* fsync a file of the checkpointer's connection (the database, or its WAL
 * with SQLITE_FCNTL_JOURNAL_POINTER), if that file is open: 1 when synced,
 * 0 not open, -1 the sync failed. */
static int ck_sync(sqlite_store *s, int which)
{
    sqlite3_file *f = NULL;
    if (sqlite3_file_control(s->ck_db, "main", which, &f) != SQLITE_OK || !f || !f->pMethods)
        return 0;
    return f->pMethods->xSync(f, SQLITE_SYNC_NORMAL) == SQLITE_OK ? 1 : -1;
}

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Free bytes on the filesystem of the store's files, or -1. */
static long long free_bytes(const sqlite_store *s)
{
    struct statvfs v;
    return statvfs(s->dir, &v) == 0 ? (long long)v.f_bavail * (long long)v.f_frsize : -1;
}

/* Writes fail (a full disk: ERR_STORE_FULL; an I/O error, or a WAL that
 * could not be synced: ERR_STORE): noted (/healthz, /metrics), and the
 * checkpointer is woken to checkpoint at once. Without the checkpointer
 * only counted. */
static void writes_fail(sqlite_store *s, int code)
{
    __atomic_add_fetch(&s->w_failed, 1, __ATOMIC_RELAXED);
    if (!s->ck_running)
        return;
    if (!__atomic_load_n(&s->w_fail, __ATOMIC_ACQUIRE))
        __atomic_store_n(&s->w_fail_ms, mono_ms(), __ATOMIC_RELAXED);
    __atomic_store_n(&s->w_fail, code, __ATOMIC_RELEASE);
    ck_wake(s, &s->ck_full);
}

/* What the last call on c says of the disk: ERR_STORE_FULL (SQLITE_FULL:
 * the disk is full) or ERR_STORE (SQLITE_IOERR), noted (writes_fail), or
 * 0 when it is not about the disk (a constraint, a busy lock, ...). */
static int disk_trouble(conn *c)
{
    int x = sqlite3_errcode(c->db) & 0xff;
    int code = x == SQLITE_FULL ? ERR_STORE_FULL : x == SQLITE_IOERR ? ERR_STORE : 0;
    if (code)
        writes_fail(c->s, code);
    return code;
}

/* The checkpoint's threshold for the room the disk has (CKPT_ROOM_SHARE):
 * ck_limit, and ck_next brought down to it. Only the checkpointer writes
 * ck_next. */
static void ck_room(sqlite_store *s)
{
    long long room = free_bytes(s), limit = CKPT_FRAMES;
    if (room >= 0 && room / CKPT_ROOM_SHARE / FRAME_BYTES < limit)
        limit = room / CKPT_ROOM_SHARE / FRAME_BYTES;
    if (limit < CKPT_MIN_FRAMES)
        limit = CKPT_MIN_FRAMES;
    __atomic_store_n(&s->ck_limit, (int)limit, __ATOMIC_RELAXED);
    if (__atomic_load_n(&s->ck_next, __ATOMIC_RELAXED) > limit)
        __atomic_store_n(&s->ck_next, (int)limit, __ATOMIC_RELAXED);
}

/* The checkpointer's connection, opened on first use: 0 when it cannot be. */
static int ck_open(sqlite_store *s)
{
    if (!s->ck_db &&
        (sqlite3_open_v2(s->path, &s->ck_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
             SQLITE_OK ||
         sqlite3_exec(s->ck_db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) != SQLITE_OK)) {
        sqlite3_close_v2(s->ck_db);
        s->ck_db = NULL;
    }
    return s->ck_db != NULL;
}

/* The checkpointer: one thread per store, with a connection of its own,
 * copies the WAL's pages back into the database file. SQLite would do that
 * inside the COMMIT of whichever request crossed its threshold (1000 pages),
 * with two fsyncs, this process's other writers waiting on the writer mutex
 * meanwhile: the store (A) loop's p99 was 5 ms and its CPUs idle a third of
 * the time. Here PASSIVE checkpoints copy while requests go on, then the few
 * pages committed meanwhile are copied with the writer mutex held, so that
 * the next writer starts the WAL over (SQLite does that when every page was
 * copied and no reader still uses them; otherwise a later writer does). A
 * larger WAL between checkpoints costs less per commit, since a page
 * written again and again is copied once (docs/store.md has the figures).
 *
 * The one design choice: no fsync of bulk data with the writers held. A
 * PASSIVE checkpoint syncs the WAL before it copies, but syncs the database
 * file only when it copied the WAL to its very end, which never happens
 * while writers go on: so the pass with the writer mutex held used to flush
 * every page the earlier passes wrote (tens of MB), and held every write
 * 25-120 ms while it did (docs/benchmarks.md, "the stall"). Now the
 * database and the WAL are synced here, outside the mutex, after the
 * passes; passes repeat (up to CKPT_PASSES) while more than CKPT_TAIL pages
 * came in during the last, each copying what came during the one before;
 * and the held pass copies and syncs only those few pages. When `idle` (no
 * commit for a while) the held pass also truncates the WAL file to nothing.
 * 1 when every page of the WAL was copied. */
static int checkpoint(sqlite_store *s, int idle, int rescue)
{
    if (!ck_open(s))
        return 0;
    int log = -1, done = -1;
    for (int i = 0; i < CKPT_PASSES; i++) {
        sqlite3_wal_checkpoint_v2(s->ck_db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
        if (done < 0 || __atomic_load_n(&s->ck_pages, __ATOMIC_RELAXED) - done <= CKPT_TAIL)
            break;
    }
    ck_sync(s, SQLITE_FCNTL_FILE_POINTER);
    ck_sync(s, SQLITE_FCNTL_JOURNAL_POINTER);
    pthread_mutex_lock(&s->wmu);
    /* a rescue (writes fail) waits for the readers a moment: truncating the
     * WAL is what gives its space back */
    sqlite3_busy_timeout(s->ck_db, rescue ? FULL_RETRY_MS / 2 : 0);
    int rc = sqlite3_wal_checkpoint_v2(
        s->ck_db, NULL, idle ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE, &log, &done);
    pthread_mutex_unlock(&s->wmu);
    return rc == SQLITE_OK && log >= 0 && done == log;
}

/* After a rescue: writes are taken to work again when it went through
 * (`all`) and the disk has room (FULL_OK_BYTES; a filesystem that does
 * not say is given the benefit of the doubt). */
static void writes_retry(sqlite_store *s, int all)
{
    __atomic_add_fetch(&s->w_rescues, 1, __ATOMIC_RELAXED);
    long long room = free_bytes(s);
    if (all && (room < 0 || room >= FULL_OK_BYTES))
        __atomic_store_n(&s->w_fail, 0, __ATOMIC_RELEASE);
}

/* Write-behind, as PostgreSQL's wal_writer_flush_after (1 MB) does. Commits
 * with synchronous=NORMAL leave their pages to the kernel, which on a
 * machine with memory to spare writes them out only after 30 s; so the sync
 * that opens every checkpoint wrote the whole WAL at once (64 MB: 60-300 ms
 * on this disk), and the writers' own writes to the WAL waited behind it:
 * the server paused 50-160 ms a few times a second under load (the stall,
 * docs/benchmarks.md). Synced every FLUSH_PAGES, off the requests' threads,
 * the WAL never holds much unwritten, and each sync is short. The sync is
 * the checkpoint's own (ck_sync); the connection opens its WAL file with
 * its first read. */
static void wal_writeback(sqlite_store *s)
{
    if (!ck_open(s))
        return;
    int r = ck_sync(s, SQLITE_FCNTL_JOURNAL_POINTER);
    if (r == 0) {
        sqlite3_exec(s->ck_db, "PRAGMA schema_version", NULL, NULL, NULL);
        r = ck_sync(s, SQLITE_FCNTL_JOURNAL_POINTER);
    }
    if (r < 0) /* what was committed may not be on the disk: as a failed write */
        writes_fail(s, ERR_STORE);
    if (r > 0)
        __atomic_add_fetch(&s->wal_syncs, 1, __ATOMIC_RELAXED);
    ck_room(s);
}

/* The checkpointer's own loop. While writes fail (writes_fail) it runs a
 * rescue at once and then every FULL_RETRY_MS: a checkpoint that
 * truncates the WAL, whatever its size, after which writes are taken
 * again (writes_retry). */
static void *checkpointer(void *arg)
{
    sqlite_store *s = arg;
    int quiet_at = -1; /* the WAL size seen at the last timeout */
    pthread_mutex_lock(&s->ck_mu);
    for (;;) {
        int failing = __atomic_load_n(&s->w_fail, __ATOMIC_ACQUIRE) != 0;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        if (failing) {
            until.tv_nsec += FULL_RETRY_MS * 1000000L;
            until.tv_sec += until.tv_nsec / 1000000000L;
            until.tv_nsec %= 1000000000L;
        } else {
            until.tv_sec += CKPT_IDLE_S;
        }
        int timed_out = 0;
        while (!s->ck_want && !s->ck_stop && !s->ck_flush && !s->ck_full && !timed_out)
            timed_out = pthread_cond_timedwait(&s->ck_cv, &s->ck_mu, &until) != 0;
        if (s->ck_stop)
            break;
        int rescue = s->ck_full || (failing && timed_out);
        s->ck_full = 0;
        if (s->ck_flush && !s->ck_want && !rescue) {
            s->ck_flush = 0;
            pthread_mutex_unlock(&s->ck_mu);
            wal_writeback(s);
            pthread_mutex_lock(&s->ck_mu);
            continue;
        }
        int pages = __atomic_load_n(&s->ck_pages, __ATOMIC_RELAXED);
        int idle = !s->ck_want || rescue;
        if (idle && !rescue) { /* no checkpoint asked: one when the WAL has stood still */
            int still = pages > 0 && pages == quiet_at;
            quiet_at = pages;
            if (!still)
                continue;
        }
        pthread_mutex_unlock(&s->ck_mu);
        int all = checkpoint(s, idle, rescue);
        if (rescue)
            writes_retry(s, all);
        ck_room(s);
        pthread_mutex_lock(&s->ck_mu);
        /* the next one when the WAL is full again (it starts over at the
         * next commit), or soon when a reader kept some pages in it */
        int limit = __atomic_load_n(&s->ck_limit, __ATOMIC_RELAXED);
        __atomic_store_n(&s->ck_next, all ? limit : pages + limit / 16, __ATOMIC_RELAXED);
        if (all) /* nothing left for the idle check (a commit sets it again) */
            __atomic_compare_exchange_n(&s->ck_pages, &pages, 0, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
        quiet_at = -1;
        s->ck_want = 0; /* what commits asked meanwhile was done (or is not due yet) */
        s->ck_gen++;
        pthread_cond_broadcast(&s->ck_done);
    }
    pthread_mutex_unlock(&s->ck_mu);
    return NULL;
}

/* The primary connection, opened on first use; the caller holds wmu. */
static conn *primary_get(sqlite_store *s)
{
    if (!s->primary && (s->primary = conn_new(s, NULL, 0)) != NULL) {
        s->primary->primary = 1;
        sqlite3_exec(s->primary->db, PRIMARY_CACHE_PRAGMA, NULL, NULL, NULL);
    }
    return s->primary;
}

/* Done with the primary: counts what its cache held, closes it if it is
 * left inside a transaction (the next use opens another), releases wmu. */
static void primary_give(sqlite_store *s, conn *c)
{
    int hit = 0, miss = 0, top;
    sqlite3_db_status(c->db, SQLITE_DBSTATUS_CACHE_HIT, &hit, &top, 1);
    sqlite3_db_status(c->db, SQLITE_DBSTATUS_CACHE_MISS, &miss, &top, 1);
    __atomic_add_fetch(&s->p_hit, hit, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->p_miss, miss, __ATOMIC_RELAXED);
    if (!sqlite3_get_autocommit(c->db)) {
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        if (!sqlite3_get_autocommit(c->db)) {
            conn_free(c);
            s->primary = NULL;
        }
    }
    pthread_mutex_unlock(&s->wmu);
}

/* A connection of the pool. */
static conn *pool_take(sqlite_store *s)
{
    conn *c = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->nidle > 0)
        c = s->idle[--s->nidle];
    pthread_mutex_unlock(&s->mu);
    return c ? c : conn_new(s, NULL, 0);
}

/* A connection for a short read: the primary when no one holds it, else
 * one of the pool (begin_write says why the primary first). A long read
 * (a game's log) takes the pool's: the writers would wait for it. */
static conn *conn_take(sqlite_store *s)
{
    if (pthread_mutex_trylock(&s->wmu) == 0) {
        conn *p = primary_get(s);
        if (p)
            return p;
        pthread_mutex_unlock(&s->wmu);
    }
    return pool_take(s);
}

static void conn_give(sqlite_store *s, conn *c)
{
    if (!c)
        return;
    if (c->primary) {
        primary_give(s, c);
        return;
    }
    /* Never pool a connection left inside a transaction. */
    int open_tx = !sqlite3_get_autocommit(c->db);
    if (open_tx)
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
    if (open_tx && !sqlite3_get_autocommit(c->db)) {
        conn_free(c);
        return;
    }
    pthread_mutex_lock(&s->mu);
    if (s->nidle < POOL_MAX) {
        s->idle[s->nidle++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    conn_free(c);
}

/* The connection's statement `q`, prepared on first use. NULL on error. */
static sqlite3_stmt *q(conn *c, int which)
{
    if (!c->st[which] &&
        sqlite3_prepare_v3(c->db, SQL[which], -1, SQLITE_PREPARE_PERSISTENT, &c->st[which],
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(c->st[which]);
        c->st[which] = NULL;
    }
    return c->st[which];
}

/* After each use: ready for the next, and no pointer to our inputs kept. */
static void q_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Run a statement without parameters or rows (BEGIN, COMMIT, ROLLBACK). */
static int q_exec(conn *c, int which)
{
    sqlite3_stmt *st = q(c, which);
    if (!st)
        return SQLITE_ERROR;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Back-pressure: when writers outrun the checkpointer's copy and the WAL
 * holds twice CKPT_FRAMES pages, a write asks for a checkpoint and waits
 * for it (1 s at most) before it begins: the WAL stays under about 132 MB.
 * Asking (not only waiting) matters when checkpoints fail or a reader keeps
 * pages in the WAL: the next try comes at once, not after 1,000 more pages,
 * so writes are not held a second each. */
static void wal_wait(sqlite_store *s)
{
    int most = 2 * __atomic_load_n(&s->ck_limit, __ATOMIC_RELAXED);
    if (!s->ck_running || __atomic_load_n(&s->ck_pages, __ATOMIC_RELAXED) < most)
        return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_mutex_lock(&s->ck_mu);
    long gen = s->ck_gen;
    if (!s->ck_want) {
        s->ck_want = 1;
        pthread_cond_signal(&s->ck_cv);
    }
    while (s->ck_gen == gen && !s->ck_stop &&
           __atomic_load_n(&s->ck_pages, __ATOMIC_RELAXED) >= most &&
           pthread_cond_timedwait(&s->ck_done, &s->ck_mu, &until) == 0)
        ;
    pthread_mutex_unlock(&s->ck_mu);
}

/* The primary connection inside BEGIN IMMEDIATE, holding wmu until
 * conn_give(); NULL when it cannot begin (wmu released).
 *
 * Every write of this process, and every short read that finds it free,
 * goes through one connection, the primary. SQLite drops a connection's whole
 * page cache when it finds that another connection of the file has
 * written (WAL), so while the writes were spread over the pool each one
 * read again, with a pread each, the pages of the B-trees it was about to
 * change (some ten a stored play), and a read after a write did too. The
 * primary's cache stays good from one use to the next: only another
 * process's write or a checkpoint that restarts the WAL empties it. Writes
 * were already one at a time (wmu, and SQLite's own write lock); a read
 * that finds the primary busy takes a pooled connection, so reads still
 * run side by side. */
static conn *begin_write(sqlite_store *s)
{
    wal_wait(s);
    pthread_mutex_lock(&s->wmu);
    conn *c = primary_get(s);
    if (c && q_exec(c, Q_BEGIN) == SQLITE_OK) {
        __atomic_add_fetch(&s->w_done, 1, __ATOMIC_RELAXED);
        return c;
    }
    if (c)
        primary_give(s, c);
    else
        pthread_mutex_unlock(&s->wmu);
    return NULL;
}

/* A write that failed with `ret`: a full disk or an I/O error noted
 * (disk_trouble), then the transaction rolled back. ret, or ERR_STORE_FULL
 * for an ERR_STORE that was a full disk. */
static int rollback_as(conn *c, int ret)
{
    if (disk_trouble(c) == ERR_STORE_FULL && ret == ERR_STORE)
        ret = ERR_STORE_FULL;
    if (!sqlite3_get_autocommit(c->db))
        q_exec(c, Q_ROLLBACK);
    return ret;
}

static void rollback(conn *c)
{
    rollback_as(c, 0);
}

static int is_pk_violation(conn *c)
{
    int x = sqlite3_extended_errcode(c->db);
    return x == SQLITE_CONSTRAINT_PRIMARYKEY || x == SQLITE_CONSTRAINT_UNIQUE;
}

static int bind_text(sqlite3_stmt *st, int i, const char *t)
{
    return t ? sqlite3_bind_text(st, i, t, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

static int bind_blob(sqlite3_stmt *st, int i, const unsigned char *b, size_t n)
{
    return b ? sqlite3_bind_blob64(st, i, b, (sqlite3_uint64)n, SQLITE_STATIC)
             : sqlite3_bind_null(st, i);
}

/* Copy a text column: 0 and *out (NULL for SQL NULL), or -1 out of memory. */
static int col_text(sqlite3_stmt *st, int i, char **out)
{
    *out = NULL;
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return 0;
    const unsigned char *t = sqlite3_column_text(st, i);
    int n = sqlite3_column_bytes(st, i);
    if (!t && sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM)
        return -1;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return -1;
    if (t && n > 0)
        memcpy(s, t, (size_t)n);
    else
        n = 0;
    s[n] = 0;
    *out = s;
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1 the game exists, 0 it does not, -1 error. */
static int game_exists(conn *c, const char *id)
{
    sqlite3_stmt *st = q(c, Q_EXISTS);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    q_done(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Append k plays of `version`, inside the caller's transaction.
 * 0, ERR_CONFLICT (a play number already taken), ERR_STORE. */
static int insert_plays(conn *c, const char *id, int64_t version, const store_play *p, int k)
{
    if (k <= 0)
        return 0;
    sqlite3_stmt *st = q(c, Q_INS_PLAY);
    if (!st)
        return ERR_STORE;
    int64_t at = now_ms();
    for (int i = 0; i < k; i++) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, p[i].n);
        sqlite3_bind_int64(st, 3, version);
        sqlite3_bind_int(st, 4, p[i].seat);
        sqlite3_bind_int(st, 5, p[i].kind);
        bind_text(st, 6, p[i].bot);
        bind_text(st, 7, p[i].play);
        bind_text(st, 8, p[i].record);
        bind_text(st, 9, p[i].explanation);
        sqlite3_bind_int64(st, 10, at);
        int rc = sqlite3_step(st);
        int dup = rc != SQLITE_DONE && is_pk_violation(c);
        q_done(st);
        if (rc != SQLITE_DONE)
            return dup ? ERR_CONFLICT : ERR_STORE;
    }
    return 0;
}

/* --- operations --------------------------------------------------------------- */

static int sq_get(store *base, const char *id, store_row *out)
{
    sqlite_store *s = (sqlite_store *)base;
    memset(out, 0, sizeof *out);
    out->snap_version = -1;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_GET);
    if (!st)
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        ret = ERR_NOT_FOUND;
        goto reset;
    }
    if (rc != SQLITE_ROW)
        goto reset;
    snprintf(out->id, sizeof out->id, "%s", id);
    const unsigned char *game = sqlite3_column_text(st, 0);
    snprintf(out->game, sizeof out->game, "%s", game ? (const char *)game : "");
    out->version = sqlite3_column_int64(st, 1);
    if (col_text(st, 2, &out->meta) || !out->meta)
        goto fail;
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        const void *b = sqlite3_column_blob(st, 3);
        int n = sqlite3_column_bytes(st, 3);
        if (!b && n > 0)
            goto fail;
        out->snap = malloc(n > 0 ? (size_t)n : 1);
        if (!out->snap)
            goto fail;
        if (n > 0)
            memcpy(out->snap, b, (size_t)n);
        out->snap_len = (size_t)n;
        out->snap_version = sqlite3_column_int64(st, 4);
    }
    ret = 0;
    goto reset;
fail:
    store_row_free(out);
    out->snap_version = -1;
reset:
    q_done(st);
done:
    conn_give(s, c);
    return ret;
}

static int sq_origin_get(store *base, const char *id, char **origin)
{
    sqlite_store *s = (sqlite_store *)base;
    *origin = NULL;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_ORIGIN);
    if (st) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            ret = ERR_NOT_FOUND;
        else if (rc == SQLITE_ROW)
            ret = col_text(st, 0, origin) || !*origin ? ERR_STORE : 0;
        q_done(st);
    }
    conn_give(s, c);
    return ret;
}

/* Inside a write: store its answer under its key, and drop the key's
 * claim. 0, ERR_IDEM_BUSY (the key has a live answer: another request
 * stored one first), ERR_STORE. */
static int answer_put(conn *c, const store_answer *a)
{
    sqlite3_stmt *st = q(c, Q_IDEM_DONE);
    if (!st)
        return ERR_STORE;
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    bind_blob(st, 1, a->id, STORE_IDEM_HASH);
    bind_blob(st, 2, a->fingerprint, STORE_IDEM_HASH);
    bind_blob(st, 3, a->answer, a->answer_len);
    sqlite3_bind_int64(st, 4, now + a->keep_s);
    sqlite3_bind_int64(st, 5, now);
    int rc = sqlite3_step(st);
    q_done(st);
    if (rc != SQLITE_DONE)
        return ERR_STORE;
    if (sqlite3_changes(c->db) != 1)
        return ERR_IDEM_BUSY;
    if (!(st = q(c, Q_IDEM_UNCLAIM)))
        return ERR_STORE;
    bind_blob(st, 1, a->id, STORE_IDEM_HASH);
    rc = sqlite3_step(st);
    q_done(st);
    return rc == SQLITE_DONE ? 0 : ERR_STORE;
}

/* The end of a write transaction: the plays appended as `version`, the
 * answer `a` (may be NULL), then COMMIT; any failure rolls the whole
 * transaction back. */
static int append_and_commit(conn *c, const char *id, int64_t version, const store_play *plays,
                             int k, const store_answer *a)
{
    int ret = insert_plays(c, id, version, plays, k);
    if (!ret && a)
        ret = answer_put(c, a);
    if (!ret && q_exec(c, Q_COMMIT) != SQLITE_OK)
        ret = ERR_STORE;
    if (ret)
        ret = rollback_as(c, ret);
    return ret;
}

static int sq_create(store *base, const store_row *row, const store_play *plays, int k,
                     const store_answer *a)
{
    sqlite_store *s = (sqlite_store *)base;
    if (!row || !row->meta || !row->origin || k < 0 || (k > 0 && !plays))
        return ERR_STORE;
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_INS_GAME);
    if (!st)
        goto fail;
    sqlite3_bind_text(st, 1, row->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, row->game, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, row->version);
    sqlite3_bind_text(st, 4, row->meta, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, row->origin, -1, SQLITE_STATIC);
    bind_blob(st, 6, row->snap, row->snap_len);
    sqlite3_bind_int64(st, 7, row->snap ? row->version : -1);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)time(NULL));
    int rc = sqlite3_step(st);
    int dup = rc != SQLITE_DONE && is_pk_violation(c);
    q_done(st);
    if (rc != SQLITE_DONE) {
        ret = dup ? ERR_CONFLICT : ERR_STORE;
        goto fail;
    }
    ret = append_and_commit(c, row->id, row->version, plays, k, a);
    goto done;
fail:
    ret = rollback_as(c, ret);
done:
    conn_give(s, c);
    return ret;
}

/* Inside a write: the compare-and-swap of game `id` from version `expect`
 * to expect + 1, with its meta and snapshot. 0, ERR_CONFLICT (the version
 * moved), ERR_NOT_FOUND, ERR_STORE. */
static int cas(conn *c, const char *id, int64_t expect, const char *meta,
               const unsigned char *snap, size_t snap_len)
{
    sqlite3_stmt *st = q(c, Q_CAS);
    if (!st)
        return ERR_STORE;
    sqlite3_bind_text(st, 1, meta, -1, SQLITE_STATIC);
    bind_blob(st, 2, snap, snap_len);
    sqlite3_bind_int64(st, 3, snap ? expect + 1 : -1);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
    sqlite3_bind_text(st, 5, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, expect);
    int rc = sqlite3_step(st);
    q_done(st);
    if (rc != SQLITE_DONE)
        return ERR_STORE;
    if (sqlite3_changes(c->db) != 1) {
        int e = game_exists(c, id);
        return e > 0 ? ERR_CONFLICT : e == 0 ? ERR_NOT_FOUND : ERR_STORE;
    }
    return 0;
}

static int sq_commit(store *base, const char *id, int64_t expect, const char *meta,
                     const unsigned char *snap, size_t snap_len, const store_play *plays, int k,
                     const store_answer *a)
{
    sqlite_store *s = (sqlite_store *)base;
    if (!id || !meta || k < 0 || (k > 0 && !plays))
        return ERR_STORE;
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    int ret = cas(c, id, expect, meta, snap, snap_len);
    if (!ret)
        ret = append_and_commit(c, id, expect + 1, plays, k, a);
    else
        ret = rollback_as(c, ret);
    conn_give(s, c);
    return ret;
}

/* As sq_commit, deleting the plays after `keep` instead of appending. */
static int sq_rewind(store *base, const char *id, int64_t expect, const char *meta,
                     const unsigned char *snap, size_t snap_len, long keep)
{
    sqlite_store *s = (sqlite_store *)base;
    if (!id || !meta || keep < -1)
        return ERR_STORE;
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    int ret = cas(c, id, expect, meta, snap, snap_len);
    sqlite3_stmt *st = ret ? NULL : q(c, Q_DEL_PLAYS_AFTER);
    if (st) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, keep);
        int rc = sqlite3_step(st);
        q_done(st);
        ret = rc == SQLITE_DONE && q_exec(c, Q_COMMIT) == SQLITE_OK ? 0 : ERR_STORE;
    } else if (!ret) {
        ret = ERR_STORE;
    }
    if (ret)
        ret = rollback_as(c, ret);
    conn_give(s, c);
    return ret;
}

static int sq_snap_put(store *base, const char *id, int64_t version, const unsigned char *snap,
                       size_t snap_len)
{
    sqlite_store *s = (sqlite_store *)base;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_SNAP_PUT);
    if (st) {
        bind_blob(st, 1, snap, snap_len);
        sqlite3_bind_int64(st, 2, snap ? version : -1);
        sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, version);
        if (sqlite3_step(st) == SQLITE_DONE)
            ret = 0; /* 0 rows: the game moved on (or is gone); nothing to do */
        q_done(st);
        if (ret)
            disk_trouble(c);
    }
    conn_give(s, c);
    return ret;
}

static int sq_plays(store *base, const char *id, long after, long limit, int with_notes,
                    store_play **out, int *k)
{
    sqlite_store *s = (sqlite_store *)base;
    *out = NULL;
    *k = 0;
    conn *c = pool_take(s); /* up to a whole log: not while writers wait */
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    store_play *v = NULL;
    int n = 0, cap = 0;
    sqlite3_stmt *st = q(c, with_notes ? Q_PLAYS : Q_PLAYS_NO_NOTES);
    if (!st)
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, limit > 0 ? (sqlite3_int64)limit : -1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            if (cap >= (1 << 29))
                goto fail;
            int ncap = cap ? cap * 2 : 16;
            store_play *nv = realloc(v, (size_t)ncap * sizeof *nv);
            if (!nv)
                goto fail;
            v = nv;
            cap = ncap;
        }
        store_play *p = &v[n++];
        memset(p, 0, sizeof *p);
        p->n = (long)sqlite3_column_int64(st, 0);
        p->version = sqlite3_column_int64(st, 1);
        p->seat = sqlite3_column_int(st, 2);
        p->kind = sqlite3_column_int(st, 3);
        if (col_text(st, 4, &p->bot) || col_text(st, 5, &p->play) ||
            col_text(st, 6, &p->record) || col_text(st, 7, &p->explanation))
            goto fail;
        p->at_ms = sqlite3_column_int64(st, 8);
    }
    if (rc != SQLITE_DONE)
        goto fail;
    q_done(st);
    if (n == 0) {
        free(v);
        v = NULL;
    }
    *out = v;
    *k = n;
    ret = 0;
    goto done;
fail:
    q_done(st);
    store_plays_free(v, n);
done:
    conn_give(s, c);
    return ret;
}

/* Delete game `id` (its plays and notes too) when its last write is before `before`. */
static int del_before(sqlite_store *s, const char *id, int64_t before)
{
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_DEL_GAME);
    if (!st)
        goto fail;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, before);
    int rc = sqlite3_step(st);
    q_done(st);
    if (rc != SQLITE_DONE)
        goto fail;
    if (sqlite3_changes(c->db) != 1) {
        ret = ERR_NOT_FOUND;
        goto fail;
    }
    for (int dq = Q_DEL_PLAYS; dq; dq = dq == Q_DEL_PLAYS ? Q_DEL_NOTES : 0) {
        if (!(st = q(c, dq)))
            goto fail;
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        q_done(st);
        if (rc != SQLITE_DONE)
            goto fail;
    }
    if (q_exec(c, Q_COMMIT) != SQLITE_OK)
        goto fail;
    ret = 0;
    goto done;
fail:
    ret = rollback_as(c, ret);
done:
    conn_give(s, c);
    return ret;
}

static int sq_del(store *base, const char *id)
{
    return del_before((sqlite_store *)base, id, INT64_MAX);
}

static int sq_del_aged(store *base, const char *id, int64_t before)
{
    return del_before((sqlite_store *)base, id, before);
}

static int sq_ages(store *base, const char *after, int limit, store_age *out, int *k)
{
    sqlite_store *s = (sqlite_store *)base;
    *k = 0;
    conn *c = pool_take(s); /* a read of many rows: not while writers wait */
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE, rc = SQLITE_DONE;
    sqlite3_stmt *st = q(c, Q_AGES);
    if (st) {
        sqlite3_bind_text(st, 1, after ? after : "", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, limit);
        while (*k < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *id = sqlite3_column_text(st, 0);
            snprintf(out[*k].id, sizeof out[*k].id, "%s", id ? (const char *)id : "");
            out[(*k)++].written = sqlite3_column_int64(st, 1);
        }
        ret = *k == limit || rc == SQLITE_DONE ? 0 : ERR_STORE;
        q_done(st);
    }
    conn_give(s, c);
    return ret;
}

static int sq_notes(store *base, const char *id, int seat, store_card_note **out, int *k)
{
    sqlite_store *s = (sqlite_store *)base;
    *out = NULL;
    *k = 0;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE, rc = SQLITE_DONE, n = 0, cap = 0;
    store_card_note *v = NULL;
    sqlite3_stmt *st = q(c, Q_NOTES);
    if (st) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, seat);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                store_card_note *w = realloc(v, (size_t)cap * sizeof *w);
                if (!w) {
                    rc = SQLITE_NOMEM;
                    break;
                }
                v = w;
            }
            const unsigned char *card = sqlite3_column_text(st, 1), *text = sqlite3_column_text(st, 2);
            v[n].seat = sqlite3_column_int(st, 0);
            snprintf(v[n].card, sizeof v[n].card, "%s", card ? (const char *)card : "");
            v[n].at_ms = sqlite3_column_int64(st, 3);
            if (!(v[n].text = strdup(text ? (const char *)text : ""))) {
                rc = SQLITE_NOMEM;
                break;
            }
            n++;
        }
        q_done(st);
        ret = rc == SQLITE_DONE ? 0 : ERR_STORE;
    }
    conn_give(s, c);
    if (ret) {
        store_notes_free(v, n);
        return ret;
    }
    *out = v;
    *k = n;
    return 0;
}

static int sq_note_put(store *base, const char *id, int seat, const char *card, const char *text,
                       int max)
{
    sqlite_store *s = (sqlite_store *)base;
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE, rc;
    sqlite3_int64 others = 0;
    sqlite3_stmt *st = q(c, Q_EXISTS);
    if (!st)
        goto fail;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    q_done(st);
    if (rc == SQLITE_DONE) {
        ret = ERR_NOT_FOUND;
        goto fail;
    }
    if (rc != SQLITE_ROW)
        goto fail;
    int set = text && *text;
    if (set) {
        if (!(st = q(c, Q_NOTE_OTHERS)))
            goto fail;
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, seat);
        sqlite3_bind_text(st, 3, card, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            others = sqlite3_column_int64(st, 0);
        q_done(st);
        if (rc != SQLITE_ROW)
            goto fail;
        if (others >= max) {
            ret = ERR_FORBIDDEN;
            goto fail;
        }
    }
    if (!(st = q(c, set ? Q_NOTE_SET : Q_NOTE_DEL)))
        goto fail;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, seat);
    sqlite3_bind_text(st, 3, card, -1, SQLITE_STATIC);
    if (set) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    }
    rc = sqlite3_step(st);
    q_done(st);
    if (rc != SQLITE_DONE || q_exec(c, Q_COMMIT) != SQLITE_OK)
        goto fail;
    ret = 0;
    goto done;
fail:
    ret = rollback_as(c, ret);
done:
    conn_give(s, c);
    return ret;
}

static int sq_ping(store *base)
{
    sqlite_store *s = (sqlite_store *)base;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_PING);
    if (st) {
        int rc = sqlite3_step(st);
        ret = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ERR_STORE;
        q_done(st);
    }
    conn_give(s, c);
    return ret;
}

/* --- idempotency keys ------------------------------------------------------- */

/* A STORE_IDEM_HASH-byte column into out (zeros when it is not one). */
static void col_hash(sqlite3_stmt *st, int col, unsigned char *out)
{
    const void *b = sqlite3_column_blob(st, col);
    int n = sqlite3_column_bytes(st, col);
    memset(out, 0, STORE_IDEM_HASH);
    if (b && n == STORE_IDEM_HASH)
        memcpy(out, b, STORE_IDEM_HASH);
}

/* The key k->id's answer (which: Q_IDEM_ANSWER) or else its claim
 * (Q_IDEM_HELD) into *k. 0, ERR_NOT_FOUND, ERR_STORE. */
static int idem_read_one(conn *c, int which, store_idem *k)
{
    sqlite3_stmt *st = q(c, which);
    if (!st)
        return ERR_STORE;
    bind_blob(st, 1, k->id, STORE_IDEM_HASH);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
    int rc = sqlite3_step(st), ret = rc == SQLITE_DONE ? ERR_NOT_FOUND : ERR_STORE;
    if (rc == SQLITE_ROW) {
        store_idem_free(k);
        col_hash(st, 0, k->fingerprint);
        k->live = sqlite3_column_int(st, 2) == 1;
        k->done = which == Q_IDEM_ANSWER;
        k->owner[0] = 0;
        ret = 0;
        if (k->done) {
            const void *b = sqlite3_column_blob(st, 1);
            int n = sqlite3_column_bytes(st, 1);
            if (b && n > 0 && (k->answer = malloc((size_t)n))) {
                memcpy(k->answer, b, (size_t)n);
                k->answer_len = (size_t)n;
            } else {
                ret = ERR_STORE;
            }
        } else {
            const unsigned char *ow = sqlite3_column_text(st, 1);
            snprintf(k->owner, sizeof k->owner, "%s", ow ? (const char *)ow : "");
        }
    }
    q_done(st);
    return ret;
}

/* The key's answer when it has one (live only when `live_only`), else its
 * claim. 0, ERR_NOT_FOUND, ERR_STORE. */
static int idem_read(conn *c, store_idem *k, int live_only)
{
    int ret = idem_read_one(c, Q_IDEM_ANSWER, k);
    if (ret == 0 && live_only && !k->live) {
        store_idem_free(k);
        ret = ERR_NOT_FOUND;
    }
    return ret == ERR_NOT_FOUND ? idem_read_one(c, Q_IDEM_HELD, k) : ret;
}

/* *k takes what `got` read of its key (its answer or its claim). */
static void idem_found(store_idem *k, store_idem *got)
{
    store_idem_free(k);
    memcpy(got->id, k->id, sizeof got->id);
    *k = *got;
    memset(got, 0, sizeof *got);
}

static int sq_idem_claim(store *base, store_idem *k, int lease_s)
{
    sqlite_store *s = (sqlite_store *)base;
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    store_idem got = {0};
    memcpy(got.id, k->id, sizeof got.id);
    int ret = idem_read_one(c, Q_IDEM_ANSWER, &got);
    if (ret == 0 && got.live) { /* answered: nothing to write */
        ret = ERR_IDEM_BUSY;
        goto fail;
    }
    store_idem_free(&got);
    if (ret != 0 && ret != ERR_NOT_FOUND)
        goto fail;
    ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_IDEM_CLAIM);
    if (!st)
        goto fail;
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    bind_blob(st, 1, k->id, STORE_IDEM_HASH);
    bind_blob(st, 2, k->fingerprint, STORE_IDEM_HASH);
    sqlite3_bind_text(st, 3, k->owner, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, now + lease_s);
    sqlite3_bind_int64(st, 5, now);
    int rc = sqlite3_step(st);
    q_done(st);
    if (rc != SQLITE_DONE)
        goto fail;
    if (sqlite3_changes(c->db) == 1)
        ret = 0;
    else if ((ret = idem_read_one(c, Q_IDEM_HELD, &got)) == 0) /* in the same transaction: it is there */
        ret = ERR_IDEM_BUSY;
    if (q_exec(c, Q_COMMIT) == SQLITE_OK)
        goto done;
    ret = ERR_STORE;
fail:
    rollback(c);
done:
    conn_give(s, c);
    if (ret == ERR_IDEM_BUSY)
        idem_found(k, &got);
    store_idem_free(&got);
    return ret;
}

/* Statement `which` in a write transaction of its own, its parameters
 * bound by bind(st, arg): the rows it changed, or ERR_STORE. */
static int write_one(sqlite_store *s, int which, void (*bind)(sqlite3_stmt *, const void *),
                     const void *arg)
{
    conn *c = begin_write(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, which);
    if (!st)
        goto fail;
    bind(st, arg);
    int rc = sqlite3_step(st);
    q_done(st);
    int changed = sqlite3_changes(c->db);
    if (rc != SQLITE_DONE || q_exec(c, Q_COMMIT) != SQLITE_OK)
        goto fail;
    ret = changed;
    goto done;
fail:
    rollback(c);
done:
    conn_give(s, c);
    return ret;
}

/* The parameters of Q_IDEM_TAKE / Q_IDEM_RELEASE / Q_IDEM_PURGE(_CLAIMS). */
typedef struct idem_args {
    const unsigned char *id;
    const char *owner, *to;
    int lease_s;
} idem_args;

static void bind_idem(sqlite3_stmt *st, const void *arg)
{
    const idem_args *a = arg;
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    if (!a->id) { /* purge */
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_int(st, 2, PURGE_BATCH);
        return;
    }
    bind_blob(st, 1, a->id, STORE_IDEM_HASH);
    sqlite3_bind_text(st, 2, a->owner, -1, SQLITE_STATIC);
    if (a->to) {
        sqlite3_bind_text(st, 3, a->to, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, now + a->lease_s);
    }
}

static int sq_idem_take(store *base, const unsigned char *id, const char *from, const char *to,
                        int lease_s)
{
    idem_args a = {id, from, to, lease_s};
    int n = write_one((sqlite_store *)base, Q_IDEM_TAKE, bind_idem, &a);
    return n < 0 ? n : n ? 0 : ERR_IDEM_BUSY;
}

static int sq_idem_release(store *base, const unsigned char *id, const char *owner)
{
    idem_args a = {id, owner, NULL, 0};
    int n = write_one((sqlite_store *)base, Q_IDEM_RELEASE, bind_idem, &a);
    return n < 0 ? n : 0;
}

static int sq_idem_get(store *base, store_idem *k)
{
    sqlite_store *s = (sqlite_store *)base;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = idem_read(c, k, 0);
    conn_give(s, c);
    return ret;
}

/* Expired claims, then expired answers a batch at a time. */
static int sq_idem_purge(store *base)
{
    sqlite_store *s = (sqlite_store *)base;
    idem_args a = {0};
    int n = write_one(s, Q_IDEM_PURGE_CLAIMS, bind_idem, &a), total = n;
    while (n >= 0 && total >= 0) {
        n = write_one(s, Q_IDEM_PURGE, bind_idem, &a);
        total = n < 0 ? n : total + n;
        if (n < PURGE_BATCH)
            break;
    }
    return total;
}

static int sq_schema(store *base)
{
    sqlite_store *s = (sqlite_store *)base;
    conn *c = conn_take(s);
    if (!c)
        return ERR_STORE;
    int ret = ERR_STORE;
    sqlite3_stmt *st = q(c, Q_SCHEMA);
    if (st) {
        if (sqlite3_step(st) == SQLITE_ROW)
            ret = sqlite3_column_int(st, 0);
        q_done(st);
    }
    conn_give(s, c);
    return ret;
}

static int sq_room(store *base, store_room *r)
{
    sqlite_store *s = (sqlite_store *)base;
    struct stat db, wal;
    memset(r, 0, sizeof *r);
    long long w = stat(s->wal, &wal) == 0 ? (long long)wal.st_size : 0;
    r->bytes = stat(s->path, &db) != 0 ? -1 : (long long)db.st_size + w;
    r->free_bytes = free_bytes(s);
    /* the WAL may grow to twice the checkpoint's threshold (wal_wait):
     * without this, a watermark on free space would let new games in
     * whenever a checkpoint gave the WAL's file back */
    long long most = 2LL * __atomic_load_n(&s->ck_limit, __ATOMIC_RELAXED) * FRAME_BYTES;
    r->reserve = most > w ? most - w : 0;
    r->failing = __atomic_load_n(&s->w_fail, __ATOMIC_ACQUIRE);
    if (r->failing)
        r->failing_ms = mono_ms() - __atomic_load_n(&s->w_fail_ms, __ATOMIC_RELAXED);
    r->failures = __atomic_load_n(&s->w_failed, __ATOMIC_RELAXED);
    return 0;
}

static size_t sq_metrics(store *base, char *buf, size_t n)
{
    sqlite_store *s = (sqlite_store *)base;
    pthread_mutex_lock(&s->mu);
    int idle = s->nidle;
    pthread_mutex_unlock(&s->mu);
    int k = snprintf(buf, n,
                     "# HELP croupier_sqlite_memory_bytes Memory SQLite holds (page caches,"
                     " statements), and its highest.\n"
                     "# TYPE croupier_sqlite_memory_bytes gauge\n"
                     "croupier_sqlite_memory_bytes %lld\n"
                     "croupier_sqlite_memory_bytes{kind=\"highest\"} %lld\n"
                     "# HELP croupier_sqlite_connections_idle Pooled connections not in use.\n"
                     "# TYPE croupier_sqlite_connections_idle gauge\n"
                     "croupier_sqlite_connections_idle %d\n"
                     "# HELP croupier_sqlite_wal_syncs_total Write-behind syncs of the WAL (one"
                     " per 256 KB committed).\n"
                     "# TYPE croupier_sqlite_wal_syncs_total counter\n"
                     "croupier_sqlite_wal_syncs_total %ld\n"
                     "# HELP croupier_sqlite_writes_total Write transactions (all through the"
                     " primary connection).\n"
                     "# TYPE croupier_sqlite_writes_total counter\n"
                     "croupier_sqlite_writes_total %ld\n"
                     "# HELP croupier_sqlite_primary_pages_total Pages the primary connection"
                     " (every write, the reads that find it free) found in its cache or read"
                     " from the files.\n"
                     "# TYPE croupier_sqlite_primary_pages_total counter\n"
                     "croupier_sqlite_primary_pages_total{from=\"cache\"} %ld\n"
                     "croupier_sqlite_primary_pages_total{from=\"file\"} %ld\n"
                     "# HELP croupier_sqlite_rescue_checkpoints_total Checkpoints run while writes"
                     " failed for a full disk or an I/O error (at once, then every 200 ms).\n"
                     "# TYPE croupier_sqlite_rescue_checkpoints_total counter\n"
                     "croupier_sqlite_rescue_checkpoints_total %ld\n"
                     "# HELP croupier_sqlite_checkpoint_pages The WAL size (pages) that calls for"
                     " a checkpoint: 16000, less on a disk short of room.\n"
                     "# TYPE croupier_sqlite_checkpoint_pages gauge\n"
                     "croupier_sqlite_checkpoint_pages %d\n",
                     (long long)sqlite3_memory_used(), (long long)sqlite3_memory_highwater(0), idle,
                     __atomic_load_n(&s->wal_syncs, __ATOMIC_RELAXED),
                     __atomic_load_n(&s->w_done, __ATOMIC_RELAXED),
                     __atomic_load_n(&s->p_hit, __ATOMIC_RELAXED),
                     __atomic_load_n(&s->p_miss, __ATOMIC_RELAXED),
                     __atomic_load_n(&s->w_rescues, __ATOMIC_RELAXED),
                     __atomic_load_n(&s->ck_limit, __ATOMIC_RELAXED));
    return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n ? n - 1 : 0;
}

static void sq_close(store *base)
{
    sqlite_store *s = (sqlite_store *)base;
    if (!s)
        return;
    if (s->ck_running) {
        ck_wake(s, &s->ck_stop);
        pthread_join(s->ck_thread, NULL);
    }
    sqlite3_close_v2(s->ck_db);
    if (s->primary)
        conn_free(s->primary);
    for (int i = 0; i < s->nidle; i++)
        conn_free(s->idle[i]);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->wmu);
    pthread_mutex_destroy(&s->ck_mu);
    pthread_cond_destroy(&s->ck_cv);
    pthread_cond_destroy(&s->ck_done);
    free(s->path);
    free(s->wal);
    free(s->dir);
    free(s);
}

static const store_vtable VT = {
    .kind = "sqlite",
    .get = sq_get,
    .origin_get = sq_origin_get,
    .create = sq_create,
    .commit = sq_commit,
    .rewind = sq_rewind,
    .snap_put = sq_snap_put,
    .plays = sq_plays,
    .del = sq_del,
    .ping = sq_ping,
    .schema = sq_schema,
    .metrics = sq_metrics,
    .idem_claim = sq_idem_claim,
    .idem_take = sq_idem_take,
    .idem_release = sq_idem_release,
    .idem_get = sq_idem_get,
    .idem_purge = sq_idem_purge,
    .close = sq_close,
    .room = sq_room,
    .ages = sq_ages,
    .del_aged = sq_del_aged,
    .notes = sq_notes,
    .note_put = sq_note_put,
};

/* --- open: create or migrate the schema --------------------------------------- */

/* One integer from a query: 1 and *v, 0 no row or NULL, -1 error. */
static int query_int(sqlite3 *db, const char *sql, const char *arg, sqlite3_int64 *v)
{
    sqlite3_stmt *st = NULL;
    int ret = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        goto done;
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *v = sqlite3_column_int64(st, 0);
        ret = 1;
    } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        ret = 0;
    }
done:
    sqlite3_finalize(st);
    return ret;
}

static int has_table(sqlite3 *db, const char *name)
{
    sqlite3_int64 v;
    return query_int(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                     name, &v);
}

/* The schema_version the database records: 1 and *v, 0 no table (or no
 * row: *v = -1), -1 error. */
static int recorded_version(sqlite3 *db, sqlite3_int64 *v)
{
    int t = has_table(db, "schema_version");
    if (t <= 0)
        return t;
    *v = -1;
    int r = query_int(db, "SELECT max(version) FROM schema_version", NULL, v);
    return r < 0 ? -1 : 1;
}

static int exec_msg(sqlite3 *db, const char *sql, const char *path, const char *what,
                    char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    snprintf(err, errlen, "sqlite %s: %s: %s", path, what, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return ERR_STORE;
}

/* Version v recorded: 0 (current), or the open refused with a message. */
static int check_recorded(sqlite3_int64 v, const char *path, char *err, size_t errlen)
{
    if (v == STORE_SCHEMA_VERSION)
        return 0;
    if (v < 0)
        snprintf(err, errlen, "sqlite %s: the schema_version table is empty", path);
    else if (v > STORE_SCHEMA_VERSION)
        snprintf(err, errlen, "sqlite %s: the database has schema %lld, newer than this build (%d)",
                 path, (long long)v, (int)STORE_SCHEMA_VERSION);
    else
        snprintf(err, errlen,
                 "sqlite %s: schema_version records %lld, which this build (%d) cannot open",
                 path, (long long)v, (int)STORE_SCHEMA_VERSION);
    return ERR_STORE;
}

/* The notes of schema_version rows 3 and 4. */
#define NOTE_MIGRATED_3 "migrated: idempotency keys"
#define NOTE_MIGRATED_4 "migrated: idempotency claims and compact answers apart"
#define NOTE_MIGRATED_5 "migrated: card notes"
#define NOTE_CREATED_5 \
    "origin + play log + snapshot cache + idempotency claims and answers + card notes"

/* Schema 4 -> 5: the seats' card notes, a table of their own. */
static int migrate_4_5(sqlite3 *db, const char *path, long long now, char *err, size_t errlen)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_version (version, applied_at, note)"
             " VALUES (5, %lld, '" NOTE_MIGRATED_5 "')",
             now);
    return exec_msg(db, NOTES_DDL, path, "migrating schema 4 to 5", err, errlen) ||
                   exec_msg(db, sql, path, "migrating schema 4 to 5", err, errlen)
               ? ERR_STORE
               : 0;
}

/* Schema 3 -> 4: the keys' claims and answers in tables of their own, then
 * on to 5. */
static int migrate_3_4(sqlite3 *db, const char *path, long long now, char *err, size_t errlen)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_version (version, applied_at, note)"
             " VALUES (4, %lld, '" NOTE_MIGRATED_4 "')",
             now);
    return exec_msg(db, IDEM_DDL, path, "migrating schema 3 to 4", err, errlen) ||
                   exec_msg(db, MIGRATE_3_4, path, "migrating schema 3 to 4", err, errlen) ||
                   exec_msg(db, sql, path, "migrating schema 3 to 4", err, errlen)
               ? ERR_STORE
               : migrate_4_5(db, path, now, err, errlen);
}

/* Schema 2 -> 3: the idempotency keys' table (as schema 3 had it), then on
 * to 4. */
static int migrate_2_3(sqlite3 *db, const char *path, long long now, char *err, size_t errlen)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_version (version, applied_at, note)"
             " VALUES (3, %lld, '" NOTE_MIGRATED_3 "')",
             now);
    return exec_msg(db, IDEM_V3_DDL, path, "migrating schema 2 to 3", err, errlen) ||
                   exec_msg(db, sql, path, "migrating schema 2 to 3", err, errlen)
               ? ERR_STORE
               : migrate_3_4(db, path, now, err, errlen);
}

/* croupier_unhex(TEXT): the first STORE_IDEM_HASH bytes a hex text spells
 * (schema 3's hashes; SQLite's own unhex() came in 3.41). NULL when it is
 * shorter or not hex. */
static void sql_unhex(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *t = sqlite3_value_text(argv[0]);
    unsigned char out[STORE_IDEM_HASH];
    for (int i = 0; t && i < 2 * STORE_IDEM_HASH; i++) {
        int c = t[i], v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0) {
            sqlite3_result_null(ctx);
            return;
        }
        out[i / 2] = (unsigned char)(i % 2 ? out[i / 2] | v : v << 4);
    }
    if (!t) {
        sqlite3_result_null(ctx);
        return;
    }
    sqlite3_result_blob(ctx, out, sizeof out, SQLITE_TRANSIENT);
}

/* Inside BEGIN IMMEDIATE: whatever the database is now, bring it to
 * schema 5 (or refuse). */
static int schema_upgrade_locked(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    sqlite3_int64 v = -1;
    char sql[512];
    long long now = (long long)time(NULL);
    int r = recorded_version(db, &v);
    if (r < 0)
        goto sqlerr;
    if (r > 0) { /* an earlier release's schema 4, 3 or 2, or someone else got here first */
        if (v == 4)
            return migrate_4_5(db, path, now, err, errlen);
        if (v == 3)
            return migrate_3_4(db, path, now, err, errlen);
        if (v == 2)
            return migrate_2_3(db, path, now, err, errlen);
        return check_recorded(v, path, err, errlen);
    }
    int games = has_table(db, "games");
    if (games < 0)
        goto sqlerr;
    if (!games) { /* a new database */
        if (exec_msg(db, SCHEMA_V2, path, "creating schema 5", err, errlen) ||
            exec_msg(db, PLAYS_DDL, path, "creating schema 5", err, errlen) ||
            exec_msg(db, IDEM_DDL, path, "creating schema 5", err, errlen) ||
            exec_msg(db, NOTES_DDL, path, "creating schema 5", err, errlen))
            return ERR_STORE;
        snprintf(sql, sizeof sql,
                 "INSERT INTO schema_version (version, applied_at, note)"
                 " VALUES (5, %lld, '" NOTE_CREATED_5 "')",
                 now);
        return exec_msg(db, sql, path, "creating schema 5", err, errlen);
    }
    sqlite3_int64 one;
    int state = query_int(db, "SELECT 1 FROM pragma_table_info('games') WHERE name = 'state'",
                          NULL, &one);
    if (state < 0)
        goto sqlerr;
    if (!state) {
        snprintf(err, errlen,
                 "sqlite %s: a games table without games.state nor schema_version: "
                 "not a schema this build knows",
                 path);
        return ERR_STORE;
    }
    /* Schema 1, the release before the previous one. */
    int notes = has_table(db, "notes");
    if (notes < 0)
        goto sqlerr;
    if (exec_msg(db, MIGRATE_1_2, path, "migrating schema 1 to 2", err, errlen) ||
        exec_msg(db, PLAYS_DDL, path, "migrating schema 1 to 2", err, errlen) ||
        (notes && exec_msg(db, MIGRATE_NOTES, path, "migrating schema 1 to 2 (notes)", err,
                           errlen)) ||
        exec_msg(db,
                 "CREATE TABLE schema_version ("
                 " version INTEGER PRIMARY KEY,"
                 " applied_at INTEGER NOT NULL,"
                 " note TEXT NOT NULL)",
                 path, "migrating schema 1 to 2", err, errlen))
        return ERR_STORE;
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_version (version, applied_at, note) VALUES"
             " (1, %lld, 'found: the previous release (games.state + notes)'),"
             " (2, %lld, 'migrated: origin + play log + snapshot cache')",
             now, now);
    if (exec_msg(db, sql, path, "migrating schema 1 to 2", err, errlen))
        return ERR_STORE;
    return migrate_2_3(db, path, now, err, errlen);
sqlerr:
    snprintf(err, errlen, "sqlite %s: reading the schema: %s", path, sqlite3_errmsg(db));
    return ERR_STORE;
}

static int schema_ensure(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    /* Fast path: already at schema 5 (every open but the first). */
    sqlite3_int64 v = -1;
    int r = recorded_version(db, &v);
    if (r > 0 && v != 2 && v != 3 && v != 4)
        return check_recorded(v, path, err, errlen);
    if (sqlite3_create_function(db, "croupier_unhex", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                sql_unhex, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite %s: %s", path, sqlite3_errmsg(db));
        return ERR_STORE;
    }
    /* Create or migrate under the write lock; another process may be doing
     * the same right now, so the state is read again inside. A migration of
     * a big file may hold the lock longer than one busy timeout. */
    int rc = SQLITE_BUSY;
    for (int i = 0; i < OPEN_WAIT_TRIES && (rc == SQLITE_BUSY || rc == SQLITE_LOCKED); i++)
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "sqlite %s: cannot lock the database to set up its schema: %s",
                 path, sqlite3_errmsg(db));
        return ERR_STORE;
    }
    if (schema_upgrade_locked(db, path, err, errlen)) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return ERR_STORE;
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite %s: committing the schema: %s", path, sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return ERR_STORE;
    }
    return 0;
}

int store_sqlite_open(store **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    sqlite_store *s = calloc(1, sizeof *s);
    const char *slash = strrchr(path, '/');
    if (!s || !(s->path = strdup(path)) || asprintf(&s->wal, "%s-wal", path) < 0 ||
        asprintf(&s->dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".") < 0) {
        if (s) {
            free(s->path);
            free(s);
        }
        snprintf(err, errlen, "out of memory");
        return ERR_STORE;
    }
    s->base.vt = &VT;
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->wmu, NULL);
    pthread_mutex_init(&s->ck_mu, NULL);
    pthread_cond_init(&s->ck_cv, NULL);
    pthread_cond_init(&s->ck_done, NULL);
    s->ck_next = s->ck_limit = CKPT_FRAMES;
    ck_room(s);
    /* without the thread, commits checkpoint as SQLite does by default */
    s->ck_running = pthread_create(&s->ck_thread, NULL, checkpointer, s) == 0;
    conn *c = conn_new(s, err, errlen);
    if (!c) {
        sq_close(&s->base);
        return ERR_STORE;
    }
    if (schema_ensure(c->db, path, err, errlen)) {
        conn_free(c);
        sq_close(&s->base);
        return ERR_STORE;
    }
    conn_give(s, c);
    *out = &s->base;
    return 0;
}

/* --- backup ----------------------------------------------------------------- */

/* The copy: SQLite's online backup API in one step, so that it reads one
 * consistent snapshot (the database file and its WAL together, as any
 * reader does) while writers go on; then the copy is made a rollback
 * journal database (a single file), checked, synced and renamed into
 * place. A plain copy of the database file would miss whatever is still
 * in the WAL (docs/operations.md). */
int store_sqlite_backup(const char *path, const char *file, store_backup_info *info, char *err,
                        size_t errlen)
{
    sqlite3 *src = NULL, *dst = NULL;
    sqlite3_backup *b = NULL;
    char tmp[4096];
    int ret = ERR_STORE, made = 0;
    memset(info, 0, sizeof *info);
    if (access(file, F_OK) == 0) {
        snprintf(err, errlen, "backup: %s exists (a backup goes into a new file)", file);
        return ERR_STORE;
    }
    if (snprintf(tmp, sizeof tmp, "%s.partial", file) >= (int)sizeof tmp) {
        snprintf(err, errlen, "backup: the file name is too long");
        return ERR_STORE;
    }
    if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite %s: %s", path, src ? sqlite3_errmsg(src) : "cannot open");
        goto done;
    }
    sqlite3_busy_timeout(src, BUSY_MS);
    sqlite3_int64 v = -1;
    if (recorded_version(src, &v) <= 0) {
        snprintf(err, errlen, "sqlite %s: not a croupier store (no schema_version)", path);
        goto done;
    }
    unlink(tmp); /* what a backup that failed before left */
    if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "backup %s: %s", tmp, dst ? sqlite3_errmsg(dst) : "cannot create");
        goto done;
    }
    made = 1;
    if (!(b = sqlite3_backup_init(dst, "main", src, "main"))) {
        snprintf(err, errlen, "backup: %s", sqlite3_errmsg(dst));
        goto done;
    }
    int rc;
    for (int tries = 0; (rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED;
         tries++) {
        if (tries >= 100)
            break;
        sqlite3_sleep(100);
    }
    info->pages = sqlite3_backup_pagecount(b);
    rc = sqlite3_backup_finish(b) == SQLITE_OK && rc == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    b = NULL;
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "backup of %s: %s", path, sqlite3_errmsg(dst));
        goto done;
    }
    sqlite3_int64 games = 0, plays = 0;
    char *msg = NULL;
    if (sqlite3_exec(dst, "PRAGMA journal_mode=DELETE", NULL, NULL, &msg) != SQLITE_OK ||
        query_int(dst, "SELECT count(*) FROM games", NULL, &games) < 0 ||
        query_int(dst, "SELECT count(*) FROM plays", NULL, &plays) < 0) {
        snprintf(err, errlen, "backup %s: %s", tmp, msg ? msg : sqlite3_errmsg(dst));
        sqlite3_free(msg);
        goto done;
    }
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(dst, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
             strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    if (!ok) {
        snprintf(err, errlen, "backup %s: the copy fails its quick_check", tmp);
        goto done;
    }
    if (sqlite3_close(dst) != SQLITE_OK) {
        snprintf(err, errlen, "backup %s: cannot close", tmp);
        goto done;
    }
    dst = NULL;
    if (rename(tmp, file) != 0) {
        snprintf(err, errlen, "backup: cannot rename %s to %s", tmp, file);
        goto done;
    }
    made = 0;
    info->schema = (int)v;
    info->games = (long long)games;
    info->plays = (long long)plays;
    ret = 0;
done:
    if (b)
        sqlite3_backup_finish(b);
    sqlite3_close(dst);
    sqlite3_close(src);
    if (made)
        unlink(tmp);
    return ret;
}

/* --- the back end's row (store.c) --------------------------------------------- */

/* The path of a sqlite: URL (sqlite:PATH or sqlite:///abs/path), or NULL with
 * a message when it names none. */
static const char *url_path(const char *url, char *err, size_t errlen)
{
    const char *path = url + strlen("sqlite:");
    if (strncmp(path, "//", 2) == 0) /* sqlite:///abs/path */
        path += 2;
    if (!*path)
        snprintf(err, errlen, "sqlite store needs a path: sqlite:PATH");
    return *path ? path : NULL;
}

static int open_url(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    const char *path = url_path(url, err, errlen);
    return path ? store_sqlite_open(out, path, err, errlen) : ERR_STORE;
}

static int backup_url(const char *url, const char *file, store_backup_info *info, char *err,
                      size_t errlen)
{
    const char *path = url_path(url, err, errlen);
    return path ? store_sqlite_backup(path, file, info, err, errlen) : ERR_STORE;
}

const store_backend store_sqlite_backend = {
    .name = "sqlite",
    .schemes = {"sqlite:", NULL},
    .usage = "sqlite:PATH",
    .open = open_url,
    .backup = backup_url,
};
