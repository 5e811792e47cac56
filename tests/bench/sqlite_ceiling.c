/* sqlite_ceiling.c: how many stored plays per second SQLite itself allows
 * for croupier's write pattern (build/bench/sqlite_ceiling;
 * target (A): `make bench` sets croupier's stored plays/s beside this).
 *
 * It creates a fresh SQLite file with the store's schema 2 (games + plays,
 * WAL, synchronous=NORMAL, busy_timeout 5000, as api/store_sqlite.c opens
 * it), inserts --games rows (meta of --meta bytes, a snapshot of --snap
 * bytes), then runs --threads threads for --seconds, each with its own
 * connection and its statements prepared once, each doing requests back to
 * back on its own games in turn (thread t owns the games i with
 * i % threads == t), one request being what a POST /games/{id}/plays costs
 * the store:
 *   SELECT game, version, meta, snap, snap_version FROM games WHERE id = ?
 *   BEGIN IMMEDIATE
 *   UPDATE games SET version = version + 1, meta = ?, snap = ?,
 *          snap_version = version + 1, updated_at = ? WHERE id = ? AND version = ?
 *   INSERT INTO plays (...) VALUES (...)      -- --plays times (average)
 *   COMMIT
 * --plays may be fractional (the average plays per request measured on a
 * server): each request inserts floor or ceil of it, averaging to it.
 * With --game-requests N (what tests/bench.sh runs: N = requests per game
 * created, as measured on croupier's run) each thread plays one game at a
 * time, as a person does, and after N requests (floor or ceil, averaging N)
 * creates the next in a transaction of its own, as POST /games stores one:
 *   BEGIN IMMEDIATE
 *   INSERT INTO games (...) VALUES (...)   -- an origin of --origin bytes
 *   INSERT INTO plays (...) VALUES (...)   -- --create-plays times (average),
 *                                             the bots' plays before the person's turn
 *   COMMIT
 * (not counted as a request). --reuse (with --game-requests only) opens
 * PATH if it exists and goes on from what it holds, as croupier's server
 * keeps its database from one run to the next. Without --game-requests
 * the threads go round the --games rows created at the start, which is
 * not croupier's pattern: from a run on 2026-11-23, 15-17k requests/s
 * that way against 18-21k one game at a time (the game's pages stay in
 * the cache).
 * --text is the bytes of play + record + explanation of one play row (as
 * `select avg(length(play)+length(record)+coalesce(length(explanation),0))
 * from plays` reads them), split 1:3:2 between them.
 *
 * Prints one line (never judges):
 *   sqlite_ceiling: threads=T seconds=S requests=N plays=N requests_per_s=X
 *     plays_per_s=X plays_per_request=X snap=N meta=N text=N games=N
 *     mean_us=N p50_us=N p99_us=N cas_lost=N errors=N checkpoint=inline|background
 *     checkpoints=N complete=N game_requests=X creates=N create_plays=X origin=N
 * (latencies: of a request, the read to the COMMIT; checkpoints: run by
 * the background checkpointer, complete: those that copied the whole WAL)
 * The two writers meet on SQLite's write lock alone: the one that finds it
 * taken sleeps in SQLite's busy handler (1 ms and more) while the other runs
 * on, uncontended, which is SQLite's best for this loop (24.7k plays/s with
 * a mutex handing the lock over against 32-34k without, measured). croupier
 * takes turns on a mutex instead (api/store_sqlite.c), which is its best
 * (9.0-9.3k plays/s without, 10.2-11.5k with): --writer-mutex shows the
 * ceiling that way.
 *
 *   sqlite_ceiling --db PATH [--threads 2] [--seconds 5] [--snap 4096]
 *                  [--meta 256] [--plays 2] [--text 200] [--games 64]
 *                  [--writer-mutex] [--checkpoint inline|background]
 *                  [--game-requests N [--create-plays K] [--origin BYTES] [--reuse]]
 * PATH must not exist unless --reuse (it is created; removed at the end
 * unless --keep).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *SCHEMA =
    "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, game TEXT NOT NULL, version INTEGER NOT NULL,"
    " meta TEXT NOT NULL, origin TEXT NOT NULL, snap BLOB, snap_version INTEGER NOT NULL DEFAULT -1,"
    " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS plays (game_id TEXT NOT NULL, n INTEGER NOT NULL, version INTEGER NOT NULL,"
    " seat INTEGER NOT NULL, kind INTEGER NOT NULL, bot TEXT, play TEXT, record TEXT,"
    " explanation TEXT, at_ms INTEGER NOT NULL, PRIMARY KEY (game_id, n)) WITHOUT ROWID;";

static const char *SQL_READ =
    "SELECT game, version, meta, snap, snap_version FROM games WHERE id = ?";
static const char *SQL_CAS =
    "UPDATE games SET version = version + 1, meta = ?, snap = ?, snap_version = version + 1,"
    " updated_at = ? WHERE id = ? AND version = ?";
static const char *SQL_NEW_GAME =
    "INSERT INTO games (id, game, version, meta, origin, snap, snap_version, created_at, updated_at)"
    " VALUES (?, 'hanabi', 1, ?, ?, ?, 1, ?, ?)";
static const char *SQL_PLAY =
    "INSERT INTO plays (game_id, n, version, seat, kind, bot, play, record, explanation, at_ms)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

typedef struct {
    const char *db;
    int threads;
    double seconds;
    int snap, meta, text, games;
    double plays;
    double game_requests; /* --game-requests: 0 round robin over --games */
    int origin;           /* --origin: bytes of a created game's origin */
    double create_plays;  /* --create-plays: plays stored with a created game */
} options;

static options opt = {NULL, 2, 5.0, 4096, 256, 200, 64, 2.0, 0, 10, 0};

typedef struct {
    int index;
    /* results */
    long requests, plays, cas_lost, errors, creates;
    long *lat_us;
    long nlat, caplat;
    char err[256];
} worker;

static char (*game_ids)[23];
static char *meta_text, *snap_blob, *play_text, *record_text, *expl_text, *origin_text;
static int play_len, record_len, expl_len;
static volatile int start_flag;
static int writer_mutex; /* --writer-mutex */
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;

/* --checkpoint background (what tests/bench.sh runs): croupier's
 * checkpointer (api/store_sqlite.c), the same threshold and steps: commits
 * never checkpoint (autocheckpoint 0); a hook on every commit wakes a thread
 * of its own when the WAL holds CKPT_FRAMES pages; it runs PASSIVE
 * checkpoints (at most CKPT_PASSES, until no more than CKPT_TAIL pages came
 * in during the last), syncs the database and the WAL, then copies the rest
 * with the writers held back (croupier holds its writer mutex; here the
 * writers hold a read lock of ckrw around each transaction and the
 * checkpointer takes it for writing), so that the next writer starts the
 * WAL over; and each time the commits add FLUSH_PAGES pages to the WAL it
 * syncs the WAL (the write-behind). --checkpoint inline: SQLite's own
 * autocheckpoint (1000 pages) inside the COMMIT, as croupier did before
 * 2026-11-23 (31-36k plays/s against 45k). */
enum { CKPT_FRAMES = 16000, CKPT_PASSES = 4, CKPT_TAIL = 256, FLUSH_PAGES = 64 };
static int bg_ckpt;
static pthread_rwlock_t ckrw;
static pthread_mutex_t ck_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ck_cv = PTHREAD_COND_INITIALIZER;
static int ck_want, ck_stop, ck_next = CKPT_FRAMES, ck_pages, ck_flush, ck_flushed;
static long ck_runs, ck_complete;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* printable filler, not all one byte (nothing here compresses, but a page
 * of one repeated byte looks too unlike JSON) */
static char *filler(int n, unsigned seed)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789\"{}[],:ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        s[i] = abc[(seed >> 16) % (sizeof abc - 1)];
    }
    s[n] = 0;
    return s;
}

static sqlite3 *open_db(const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "open %s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    if (sqlite3_exec(db,
                     bg_ckpt ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                               " PRAGMA wal_autocheckpoint=0;"
                             : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                     NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "pragma: %s", msg ? msg : "failed");
        sqlite3_free(msg);
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* raise one of the checkpointer's requests and wake it, as croupier's ck_wake */
static void ck_wake(int *flag)
{
    pthread_mutex_lock(&ck_mu);
    if (!*flag) {
        *flag = 1;
        pthread_cond_signal(&ck_cv);
    }
    pthread_mutex_unlock(&ck_mu);
}

static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)arg;
    (void)db;
    (void)name;
    __atomic_store_n(&ck_pages, pages, __ATOMIC_RELAXED);
    if (pages >= __atomic_load_n(&ck_next, __ATOMIC_RELAXED)) {
        ck_wake(&ck_want);
    } else if ((unsigned)(pages - __atomic_load_n(&ck_flushed, __ATOMIC_RELAXED)) >=
               FLUSH_PAGES) {
        __atomic_store_n(&ck_flushed, pages, __ATOMIC_RELAXED);
        ck_wake(&ck_flush);
    }
    return SQLITE_OK;
}

/* fsync the database file or its WAL, as croupier's ck_sync: 1 when synced */
static int ck_sync(sqlite3 *db, int which)
{
    sqlite3_file *f = NULL;
    return sqlite3_file_control(db, "main", which, &f) == SQLITE_OK && f && f->pMethods &&
           f->pMethods->xSync(f, SQLITE_SYNC_NORMAL) == SQLITE_OK;
}

static void *checkpointer(void *arg)
{
    sqlite3 *db = arg;
    pthread_mutex_lock(&ck_mu);
    for (;;) {
        while (!ck_want && !ck_stop && !ck_flush)
            pthread_cond_wait(&ck_cv, &ck_mu);
        if (ck_stop)
            break;
        if (ck_flush && !ck_want) { /* the write-behind */
            ck_flush = 0;
            pthread_mutex_unlock(&ck_mu);
            if (!ck_sync(db, SQLITE_FCNTL_JOURNAL_POINTER)) { /* its WAL opens with a read */
                sqlite3_exec(db, "PRAGMA schema_version", NULL, NULL, NULL);
                ck_sync(db, SQLITE_FCNTL_JOURNAL_POINTER);
            }
            pthread_mutex_lock(&ck_mu);
            continue;
        }
        ck_want = 0;
        pthread_mutex_unlock(&ck_mu);
        int log = -1, done = -1;
        for (int i = 0; i < CKPT_PASSES; i++) {
            sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
            if (done < 0 || __atomic_load_n(&ck_pages, __ATOMIC_RELAXED) - done <= CKPT_TAIL)
                break;
        }
        ck_sync(db, SQLITE_FCNTL_FILE_POINTER);
        ck_sync(db, SQLITE_FCNTL_JOURNAL_POINTER);
        pthread_rwlock_wrlock(&ckrw);
        int rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
        pthread_rwlock_unlock(&ckrw);
        int all = rc == SQLITE_OK && log >= 0 && done == log;
        pthread_mutex_lock(&ck_mu);
        ck_runs++;
        ck_complete += all;
        __atomic_store_n(&ck_next, all ? CKPT_FRAMES : log + CKPT_FRAMES / 16, __ATOMIC_RELAXED);
        ck_want = 0;
    }
    pthread_mutex_unlock(&ck_mu);
    return NULL;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void lat_push(worker *w, long us)
{
    if (w->nlat == w->caplat) {
        long cap = w->caplat ? w->caplat * 2 : 65536;
        long *n = realloc(w->lat_us, (size_t)cap * sizeof *n);
        if (!n)
            return;
        w->lat_us = n;
        w->caplat = cap;
    }
    w->lat_us[w->nlat++] = us;
}

/* Around each write transaction, as croupier's store: the checkpointer's
 * turn (--checkpoint background) and the writer mutex (--writer-mutex). */
static void write_lock(void)
{
    if (bg_ckpt)
        pthread_rwlock_rdlock(&ckrw);
    if (writer_mutex)
        pthread_mutex_lock(&wmu);
}

static void write_unlock(void)
{
    if (writer_mutex)
        pthread_mutex_unlock(&wmu);
    if (bg_ckpt)
        pthread_rwlock_unlock(&ckrw);
}

/* np play rows of game id from number n + 1 on, the first a person's
 * unless all are bots'; 0, or -1 with the error in w->err. */
static int insert_plays(worker *w, sqlite3_stmt *ins, const char *id, long n, int64_t version, int np,
                        int all_bots, int64_t at)
{
    for (int p = 0; p < np; p++) {
        int bot = all_bots || p > 0; /* the person's play, then the bots' */
        sqlite3_bind_text(ins, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, n + 1 + p);
        sqlite3_bind_int64(ins, 3, version);
        sqlite3_bind_int(ins, 4, bot ? 1 : 0);
        sqlite3_bind_int(ins, 5, 0);
        if (bot)
            sqlite3_bind_text(ins, 6, "rules", -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(ins, 6);
        sqlite3_bind_text(ins, 7, play_text, play_len, SQLITE_STATIC);
        sqlite3_bind_text(ins, 8, record_text, record_len, SQLITE_STATIC);
        sqlite3_bind_text(ins, 9, expl_text, expl_len, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 10, at);
        int rc = sqlite3_step(ins);
        sqlite3_reset(ins);
        if (rc != SQLITE_DONE) {
            snprintf(w->err, sizeof w->err, "INSERT: %s", sqlite3_errmsg(sqlite3_db_handle(ins)));
            return -1;
        }
    }
    return 0;
}

/* floor or ceil of the average *owed carries (at least lo) */
static int take_owed(double *owed, double avg, int lo)
{
    *owed += avg;
    int k = (int)floor(*owed);
    if (k < lo)
        k = lo;
    *owed -= k;
    return k;
}

/* --game-requests: a new game (its row and the bot plays stored with it)
 * in a transaction of its own, as POST /games stores one; 0 or -1. */
static int create_game(worker *w, sqlite3 *db, sqlite3_stmt *newg, sqlite3_stmt *ins, sqlite3_stmt *begin,
                       sqlite3_stmt *commit, sqlite3_stmt *rollback, const char *id, int np)
{
    int64_t at = wall_ms();
    write_lock();
    int rc = sqlite3_step(begin);
    sqlite3_reset(begin);
    int ok = rc == SQLITE_DONE;
    if (ok) {
        sqlite3_bind_text(newg, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(newg, 2, meta_text, opt.meta, SQLITE_STATIC);
        sqlite3_bind_text(newg, 3, origin_text, opt.origin, SQLITE_STATIC);
        sqlite3_bind_blob(newg, 4, snap_blob, opt.snap, SQLITE_STATIC);
        sqlite3_bind_int64(newg, 5, at / 1000);
        sqlite3_bind_int64(newg, 6, at / 1000);
        rc = sqlite3_step(newg);
        sqlite3_reset(newg);
        ok = rc == SQLITE_DONE;
        if (!ok)
            snprintf(w->err, sizeof w->err, "INSERT game: %s", sqlite3_errmsg(db));
    } else {
        snprintf(w->err, sizeof w->err, "BEGIN IMMEDIATE: %s", sqlite3_errmsg(db));
    }
    if (ok)
        ok = insert_plays(w, ins, id, 0, 1, np, 1, at) == 0;
    if (ok) {
        rc = sqlite3_step(commit);
        sqlite3_reset(commit);
        ok = rc == SQLITE_DONE;
        if (!ok)
            snprintf(w->err, sizeof w->err, "COMMIT: %s", sqlite3_errmsg(db));
    }
    if (!ok) {
        sqlite3_step(rollback);
        sqlite3_reset(rollback);
    }
    write_unlock();
    return ok ? 0 : -1;
}

static void *run(void *arg)
{
    worker *w = arg;
    sqlite3 *db = open_db(opt.db, w->err, sizeof w->err);
    if (!db)
        return NULL;
    if (bg_ckpt)
        sqlite3_wal_hook(db, wal_hook, NULL);
    sqlite3_stmt *rd = NULL, *cas = NULL, *ins = NULL, *begin = NULL, *commit = NULL,
                 *rollback = NULL, *newg = NULL;
    if (sqlite3_prepare_v3(db, SQL_READ, -1, SQLITE_PREPARE_PERSISTENT, &rd, NULL) ||
        sqlite3_prepare_v3(db, SQL_CAS, -1, SQLITE_PREPARE_PERSISTENT, &cas, NULL) ||
        sqlite3_prepare_v3(db, SQL_PLAY, -1, SQLITE_PREPARE_PERSISTENT, &ins, NULL) ||
        sqlite3_prepare_v3(db, SQL_NEW_GAME, -1, SQLITE_PREPARE_PERSISTENT, &newg, NULL) ||
        sqlite3_prepare_v3(db, "BEGIN IMMEDIATE", -1, SQLITE_PREPARE_PERSISTENT, &begin, NULL) ||
        sqlite3_prepare_v3(db, "COMMIT", -1, SQLITE_PREPARE_PERSISTENT, &commit, NULL) ||
        sqlite3_prepare_v3(db, "ROLLBACK", -1, SQLITE_PREPARE_PERSISTENT, &rollback, NULL)) {
        snprintf(w->err, sizeof w->err, "prepare: %s", sqlite3_errmsg(db));
        goto out;
    }
    /* this thread's games and the next play number of each */
    int mine = 0;
    for (int i = w->index; i < opt.games; i += opt.threads)
        mine++;
    long *next_n = calloc((size_t)mine, sizeof *next_n);
    if (!next_n)
        goto out;
    while (!start_flag)
        usleep(100);
    double t_end = now_s() + opt.seconds;
    double owed = 0; /* fractional plays carried to the next request */
    double owed_req = 0, owed_create = 0; /* the same for --game-requests */
    int k = 0, left = 0; /* left: requests before the next new game */
    long cur_n = 0, made = 0;
    char cur_id[32]; /* 22 characters used */
    while (now_s() < t_end) {
        int g = w->index + k * opt.threads;
        const char *id = game_ids[g];
        long *n_of = &next_n[k];
        if (opt.game_requests > 0) {
            if (left <= 0) { /* a new game, 22 characters like croupier's ids */
                snprintf(cur_id, sizeof cur_id, "n%05d-%02d-%012ld", (int)(getpid() % 100000),
                         w->index % 100, ++made);
                int np = take_owed(&owed_create, opt.create_plays, 0);
                if (create_game(w, db, newg, ins, begin, commit, rollback, cur_id, np) != 0) {
                    w->errors++;
                    break;
                }
                w->creates++;
                cur_n = np;
                left = take_owed(&owed_req, opt.game_requests, 1);
            }
            id = cur_id;
            n_of = &cur_n;
        }
        double t0 = now_s();
        /* the read */
        sqlite3_bind_text(rd, 1, id, -1, SQLITE_STATIC);
        int64_t version = -1;
        if (sqlite3_step(rd) == SQLITE_ROW) {
            version = sqlite3_column_int64(rd, 1);
            /* fetch every column as the server does */
            (void)sqlite3_column_text(rd, 0);
            (void)sqlite3_column_bytes(rd, 2);
            (void)sqlite3_column_blob(rd, 3);
            (void)sqlite3_column_bytes(rd, 3);
            (void)sqlite3_column_int64(rd, 4);
        }
        sqlite3_reset(rd);
        if (version < 0) {
            w->errors++;
            snprintf(w->err, sizeof w->err, "game %s not found", id);
            break;
        }
        /* how many plays this request stores: floor or ceil of --plays */
        int np = take_owed(&owed, opt.plays, 1);
        int64_t at = wall_ms();
        write_lock();
        int rc = sqlite3_step(begin);
        sqlite3_reset(begin);
        if (rc != SQLITE_DONE) {
            write_unlock();
            w->errors++;
            snprintf(w->err, sizeof w->err, "BEGIN IMMEDIATE: %s", sqlite3_errmsg(db));
            continue;
        }
        sqlite3_bind_text(cas, 1, meta_text, opt.meta, SQLITE_STATIC);
        sqlite3_bind_blob(cas, 2, snap_blob, opt.snap, SQLITE_STATIC);
        sqlite3_bind_int64(cas, 3, at / 1000);
        sqlite3_bind_text(cas, 4, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(cas, 5, version);
        rc = sqlite3_step(cas);
        sqlite3_reset(cas);
        int ok = rc == SQLITE_DONE;
        if (ok && sqlite3_changes(db) != 1) {
            w->cas_lost++;
            ok = 0;
        } else if (!ok) {
            snprintf(w->err, sizeof w->err, "UPDATE: %s", sqlite3_errmsg(db));
        }
        if (ok && insert_plays(w, ins, id, *n_of, version + 1, np, 0, at) != 0)
            ok = 0;
        if (ok)
            *n_of += np;
        if (ok) {
            rc = sqlite3_step(commit);
            sqlite3_reset(commit);
            if (rc != SQLITE_DONE) {
                snprintf(w->err, sizeof w->err, "COMMIT: %s", sqlite3_errmsg(db));
                ok = 0;
            }
        }
        if (!ok) {
            sqlite3_step(rollback);
            sqlite3_reset(rollback);
        }
        write_unlock();
        if (ok) {
            left--;
            w->requests++;
            w->plays += np;
            lat_push(w, (long)((now_s() - t0) * 1e6));
        } else {
            w->errors++;
        }
        k = (k + 1) % mine;
    }
    free(next_n);
out:
    sqlite3_finalize(rd);
    sqlite3_finalize(cas);
    sqlite3_finalize(ins);
    sqlite3_finalize(newg);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_finalize(rollback);
    sqlite3_close(db);
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sqlite_ceiling --db PATH [--threads 2] [--seconds 5] [--snap BYTES]\n"
            "                      [--meta BYTES] [--plays K] [--text BYTES] [--games N] [--keep]\n"
            "                      [--writer-mutex] [--checkpoint inline|background]\n"
            "                      [--game-requests N [--create-plays K] [--origin BYTES] [--reuse]]\n"
            "The raw SQLite ceiling of croupier's schema-2 write pattern (tests/bench.sh).\n"
            "PATH must not exist unless --reuse; it is removed at the end unless --keep.\n");
}

static int arg_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    int keep = 0, reuse = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (strcmp(a, "--keep") == 0) {
            keep = 1;
            continue;
        }
        if (strcmp(a, "--reuse") == 0) {
            reuse = 1;
            continue;
        }
        if (strcmp(a, "--writer-mutex") == 0) {
            writer_mutex = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            return 2;
        }
        const char *val = argv[++i];
        if (strcmp(a, "--db") == 0) {
            opt.db = val;
            continue;
        }
        if (strcmp(a, "--checkpoint") == 0) {
            if (strcmp(val, "background") != 0 && strcmp(val, "inline") != 0) {
                fprintf(stderr, "sqlite_ceiling: bad option %s %s\n", a, val);
                usage(stderr);
                return 2;
            }
            bg_ckpt = strcmp(val, "background") == 0;
            continue;
        }
        struct {
            const char *name;
            double lo, hi;
        } nums[] = {{"--threads", 1, 256},    {"--seconds", 0.1, 3600}, {"--snap", 0, 1 << 24},
                    {"--meta", 1, 1 << 20},   {"--plays", 1, 1000},     {"--text", 3, 1 << 20},
                    {"--games", 1, 1000000}, {"--game-requests", 0, 1e9}, {"--origin", 1, 1 << 20},
                    {"--create-plays", 0, 1000}};
        int j;
        for (j = 0; j < (int)(sizeof nums / sizeof nums[0]); j++)
            if (strcmp(a, nums[j].name) == 0)
                break;
        if (j == (int)(sizeof nums / sizeof nums[0]) || arg_num(val, nums[j].lo, nums[j].hi, &v)) {
            fprintf(stderr, "sqlite_ceiling: bad option %s %s\n", a, val);
            usage(stderr);
            return 2;
        }
        switch (j) {
        case 0: opt.threads = (int)v; break;
        case 1: opt.seconds = v; break;
        case 2: opt.snap = (int)lround(v); break;
        case 3: opt.meta = (int)lround(v); break;
        case 4: opt.plays = v; break;
        case 5: opt.text = (int)lround(v); break;
        case 6: opt.games = (int)v; break;
        case 7: opt.game_requests = v; break;
        case 8: opt.origin = (int)lround(v); break;
        case 9: opt.create_plays = v; break;
        }
    }
    if (!opt.db) {
        usage(stderr);
        return 2;
    }
    struct stat st;
    if (!reuse && stat(opt.db, &st) == 0) {
        fprintf(stderr, "sqlite_ceiling: %s exists; give a new path (or --reuse)\n", opt.db);
        return 2;
    }
    if (reuse && opt.game_requests <= 0) {
        fprintf(stderr, "sqlite_ceiling: --reuse needs --game-requests (new games, new ids)\n");
        return 2;
    }
    if (opt.games < opt.threads)
        opt.games = opt.threads;

    play_len = opt.text / 6 > 0 ? opt.text / 6 : 1;
    record_len = opt.text / 2 > 0 ? opt.text / 2 : 1;
    expl_len = opt.text - play_len - record_len > 0 ? opt.text - play_len - record_len : 1;
    meta_text = filler(opt.meta, 1);
    snap_blob = filler(opt.snap > 0 ? opt.snap : 1, 2);
    play_text = filler(play_len, 3);
    record_text = filler(record_len, 4);
    expl_text = filler(expl_len, 5);
    origin_text = filler(opt.origin, 6);
    game_ids = calloc((size_t)opt.games, sizeof *game_ids);
    if (!meta_text || !snap_blob || !play_text || !record_text || !expl_text || !origin_text || !game_ids) {
        fprintf(stderr, "sqlite_ceiling: out of memory\n");
        return 1;
    }

    char err[256];
    sqlite3 *db = open_db(opt.db, err, sizeof err);
    if (!db) {
        fprintf(stderr, "sqlite_ceiling: %s\n", err);
        return 1;
    }
    char *msg = NULL;
    if (sqlite3_exec(db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sqlite_ceiling: schema: %s\n", msg ? msg : "?");
        return 1;
    }
    sqlite3_stmt *ins = NULL;
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    sqlite3_prepare_v2(db,
                       "INSERT OR IGNORE INTO games (id, game, version, meta, origin, snap, snap_version,"
                       " created_at, updated_at) VALUES (?, 'hanabi', 1, ?, ?, ?, 1, ?, ?)",
                       -1, &ins, NULL);
    int64_t now = wall_ms() / 1000;
    for (int g = 0; g < opt.games; g++) {
        /* 22 characters, like croupier's ids */
        static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        unsigned x = 2654435761u * (unsigned)(g + 1);
        for (int c = 0; c < 22; c++) {
            x = x * 1664525u + 1013904223u;
            game_ids[g][c] = b64[(x >> 20) & 63];
        }
        game_ids[g][22] = 0;
        sqlite3_bind_text(ins, 1, game_ids[g], -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 2, meta_text, opt.meta, SQLITE_STATIC);
        sqlite3_bind_text(ins, 3, origin_text, opt.origin, SQLITE_STATIC);
        sqlite3_bind_blob(ins, 4, snap_blob, opt.snap, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 5, now);
        sqlite3_bind_int64(ins, 6, now);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            fprintf(stderr, "sqlite_ceiling: insert game: %s\n", sqlite3_errmsg(db));
            return 1;
        }
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sqlite_ceiling: commit: %s\n", msg ? msg : "?");
        return 1;
    }

    pthread_t ck_tid;
    if (bg_ckpt) {
        /* writers wait for the checkpointer's turn, not it for a gap between them */
        pthread_rwlockattr_t ra;
        pthread_rwlockattr_init(&ra);
        pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&ckrw, &ra);
        pthread_rwlockattr_destroy(&ra);
        if (pthread_create(&ck_tid, NULL, checkpointer, db) != 0) {
            fprintf(stderr, "sqlite_ceiling: pthread_create failed\n");
            return 1;
        }
    }
    worker *ws = calloc((size_t)opt.threads, sizeof *ws);
    pthread_t *tids = calloc((size_t)opt.threads, sizeof *tids);
    if (!ws || !tids)
        return 1;
    for (int t = 0; t < opt.threads; t++) {
        ws[t].index = t;
        if (pthread_create(&tids[t], NULL, run, &ws[t]) != 0) {
            fprintf(stderr, "sqlite_ceiling: pthread_create failed\n");
            return 1;
        }
    }
    usleep(50 * 1000); /* every thread opened and prepared */
    double t0 = now_s();
    start_flag = 1;
    for (int t = 0; t < opt.threads; t++)
        pthread_join(tids[t], NULL);
    double secs = now_s() - t0;
    if (bg_ckpt) {
        ck_wake(&ck_stop);
        pthread_join(ck_tid, NULL);
    }

    long requests = 0, plays = 0, lost = 0, errors = 0, nlat = 0, creates = 0;
    for (int t = 0; t < opt.threads; t++) {
        requests += ws[t].requests;
        plays += ws[t].plays;
        lost += ws[t].cas_lost;
        errors += ws[t].errors;
        creates += ws[t].creates;
        nlat += ws[t].nlat;
        if (ws[t].err[0])
            fprintf(stderr, "sqlite_ceiling: thread %d: %s\n", t, ws[t].err);
    }
    long *all = malloc((size_t)(nlat > 0 ? nlat : 1) * sizeof *all);
    long p50 = 0, p99 = 0;
    double mean = 0;
    if (all && nlat > 0) {
        long k = 0;
        for (int t = 0; t < opt.threads; t++) {
            memcpy(all + k, ws[t].lat_us, (size_t)ws[t].nlat * sizeof *all);
            k += ws[t].nlat;
        }
        for (long j = 0; j < nlat; j++)
            mean += (double)all[j];
        mean /= (double)nlat;
        qsort(all, (size_t)nlat, sizeof *all, cmp_long);
        p50 = all[nlat / 2];
        p99 = all[(long)((double)nlat * 0.99)];
    }
    printf("sqlite_ceiling: threads=%d seconds=%.3f requests=%ld plays=%ld requests_per_s=%.1f "
           "plays_per_s=%.1f plays_per_request=%.3f snap=%d meta=%d text=%d games=%d "
           "mean_us=%.0f p50_us=%ld p99_us=%ld cas_lost=%ld errors=%ld checkpoint=%s "
           "checkpoints=%ld complete=%ld game_requests=%.1f creates=%ld create_plays=%.3f origin=%d\n",
           opt.threads, secs, requests, plays, requests / secs, plays / secs,
           requests ? (double)plays / (double)requests : 0.0, opt.snap, opt.meta, opt.text,
           opt.games, mean, p50, p99, lost, errors, bg_ckpt ? "background" : "inline", ck_runs,
           ck_complete, opt.game_requests, creates, opt.create_plays, opt.origin);
    sqlite3_close(db);
    for (int t = 0; t < opt.threads; t++)
        free(ws[t].lat_us);
    free(all);
    free(ws);
    free(tids);
    free(game_ids);
    free(meta_text);
    free(snap_blob);
    free(play_text);
    free(record_text);
    free(expl_text);
    free(origin_text);
    if (!keep) {
        char p[4096];
        unlink(opt.db);
        snprintf(p, sizeof p, "%s-wal", opt.db);
        unlink(p);
        snprintf(p, sizeof p, "%s-shm", opt.db);
        unlink(p);
    }
    return 0; /* errors are in the line: a figure, never a verdict */
}
