/* store.h: where games live between requests.
 *
 * A game is its origin and its plays (schema version 5, docs/store.md):
 *
 *   games    one row per game: id, game type, version, the api's metadata
 *            (seats, token hashes: JSON text), the origin (the engine's JSON
 *            encoding of the state the log starts from: a new game's deal,
 *            an imported position, or the state a game had when an older
 *            schema was migrated) and a snapshot of the current state with
 *            the version it is of. The snapshot is a cache: opaque bytes
 *            that only this server writes (api/snapshot.c); when it is
 *            missing, stale or refused, api/ rebuilds the state from the
 *            origin and the plays and writes it again.
 *   plays    the append-only log: per game and play number n (the engine's
 *            history number), the seat, who chose it (a person, a bot
 *            strategy, or a forced pass), the play and its record (JSON
 *            text), the explanation, the time, and the version of the write
 *            that appended it (a play taken back is deleted: rewind()).
 *            Rows of kind STORE_NOTE carry only an
 *            explanation of a play inside the origin (imported or migrated
 *            history); they are never replayed.
 *   card_notes  a seat's notes on cards (api/notes.c): per game, seat and
 *            card key (the page's name of a card), the text and when it
 *            was written. Not part of the game's state or version: a note
 *            never moves the game's version, its events or its ETag.
 *   idempotency_claims   one row per Idempotency-Key whose request is in
 *            flight (api/idem.c): a hash naming the key in its scope, the
 *            request's fingerprint, the process and request that hold it,
 *            the end of its lease. Inserted before the handler runs, deleted
 *            by the write that answers it (in the write's transaction) or
 *            when the request wrote nothing.
 *   idempotency_answers  one row per answered key, inserted once by the
 *            write itself, in its own transaction, at its final size: the
 *            key's hash, the fingerprint, the sealed answer (what the retry
 *            needs to rebuild the first answer) and when it expires.
 *
 * Every write is one transaction: the compare-and-swap on version, the new
 * snapshot and the appended plays commit together or not at all, so two
 * servers (or threads) racing on one game give one winner and one clean
 * conflict, never a lost or doubled play.
 *
 * Implementations: store_sqlite.c (embedded default) and store_pg.c, rows
 * of store.c's table of back ends (store_backend below). Both create
 * schema version 5 on an empty database, migrate a database of an earlier
 * release in place on open (schema 4: no card_notes table; schema 3: one
 * idempotency table whose rows were
 * grown in place; schema 2: no idempotency table; schema 1: games(id,
 * game, version, meta, state, ...) and notes(game_id, n, text)), and record
 * every schema version they applied in a table schema_version(version,
 * applied_at, note).
 *
 * Ownership: strings and buffers in rows returned by the store are malloc'd;
 * free with store_row_free() / store_plays_free() (store_rows.c). Inputs are
 * borrowed.
 */
#ifndef CROUPIER_STORE_H
#define CROUPIER_STORE_H

#include <stddef.h>
#include <stdint.h>

enum { STORE_SCHEMA_VERSION = 5 };

typedef struct store_row {
    char id[64];
    char game[32];
    int64_t version;
    char *meta;           /* JSON text */
    char *origin;         /* JSON text; NULL from get() (see origin_get) */
    unsigned char *snap;  /* snapshot bytes, NULL when there is none */
    size_t snap_len;
    int64_t snap_version; /* the version the snapshot is of (-1: none) */
} store_row;

/* Who chose a play. */
enum { STORE_PERSON = 0, STORE_BOT = 1, STORE_FORCED = 2, STORE_NOTE = 3 };

typedef struct store_play {
    long n;            /* the play's number in the game's history */
    int64_t version;   /* the version of the write that appended it */
    int seat;
    int kind;          /* STORE_PERSON .. STORE_NOTE */
    char *bot;         /* strategy for STORE_BOT, else NULL */
    char *play;        /* JSON text (NULL for STORE_NOTE) */
    char *record;      /* JSON text: the admin's history record, a bot's with its
                          "reasoning" (a STORE_NOTE's: NULL, or {"reasoning"}) */
    char *explanation; /* or NULL */
    int64_t at_ms;     /* unix time in ms when it was appended */
} store_play;

/* An idempotency key's row: its answer when there is one, else its claim.
 * Keys and fingerprints are the first STORE_IDEM_HASH bytes of SHA-256
 * digests (api/idem.c), stored as bytes. */
enum { STORE_IDEM_HASH = 16, STORE_IDEM_OWNER = 64 };

typedef struct store_idem {
    unsigned char id[STORE_IDEM_HASH];          /* names the key in its scope */
    unsigned char fingerprint[STORE_IDEM_HASH]; /* of the request */
    char owner[STORE_IDEM_OWNER]; /* a claim's holder (api/idem.c: its process and request) */
    int done;              /* 1: the answer is stored (owner is then "") */
    int live;              /* not expired (a claim: its lease still runs) */
    unsigned char *answer; /* done: the sealed answer (malloc'd, store_idem_free) */
    size_t answer_len;
} store_idem;

/* The answer a write stores with it under its idempotency key (borrowed):
 * inserted into idempotency_answers, kept keep_s seconds, and the key's
 * claim deleted, in the write's transaction. The write fails with
 * ERR_IDEM_BUSY, changing nothing, when the key has a live answer already
 * (another request with the key stored one first). */
typedef struct store_answer {
    const unsigned char *id, *fingerprint; /* STORE_IDEM_HASH bytes each */
    const unsigned char *answer;
    size_t answer_len;
    int keep_s;
} store_answer;

/* A seat's note on a card (card_notes). The key is the page's name of the
 * card, checked by api/notes.c: 1 to STORE_NOTE_KEY characters of
 * [A-Za-z0-9._-]; the text 1 to STORE_NOTE_TEXT bytes. */
enum { STORE_NOTE_KEY = 24, STORE_NOTE_TEXT = 800 };
typedef struct store_card_note {
    int seat;
    char card[STORE_NOTE_KEY + 1];
    char *text;     /* malloc'd */
    int64_t at_ms;  /* unix time in ms of its last write */
} store_card_note;

/* How large a store is and how much room it has (room()). */
typedef struct store_room {
    long long bytes;      /* SQLite: the database file and its WAL; PostgreSQL:
                             pg_database_size, as of its last look (PG_SIZE_EVERY_S);
                             -1 unknown */
    long long free_bytes; /* SQLite: free space on the file's filesystem (statvfs);
                             -1 unknown (PostgreSQL's disk is not the server's) */
    long long reserve;    /* of free_bytes, what the store may still take on its own
                             (SQLite: its WAL growing to its bound); 0 */
    int failing;          /* 0, or how writes fail now: ERR_STORE_FULL (the disk is
                             full) or ERR_STORE (an I/O error): the last one did, and
                             neither a write nor a checkpoint went through since
                             (store_sqlite.c) */
    long long failing_ms; /* for how long they have failed (ms) */
    long failures;        /* writes that failed for a full disk or an I/O error so far */
} store_room;

/* A game and the time of its last write (ages()). */
typedef struct store_age {
    char id[64];
    int64_t written; /* unix seconds */
} store_age;

typedef struct store store;

typedef struct store_vtable {
    const char *kind; /* "sqlite", "postgres" */
    /* The games row without its origin: id, game, version, meta, snapshot.
     * 0, ERR_NOT_FOUND, ERR_STORE */
    int (*get)(store *s, const char *id, store_row *out);
    /* *origin = the games row's origin (malloc'd). 0, ERR_NOT_FOUND, ERR_STORE */
    int (*origin_get)(store *s, const char *id, char **origin);
    /* Create a game (row->version, meta, origin, snap/snap_len of
     * row->version) with its first k plays, and the answer `a` (may be
     * NULL), in one transaction.
     * 0, ERR_CONFLICT (id exists), ERR_IDEM_BUSY, ERR_STORE,
     * ERR_OUTCOME_UNKNOWN (PostgreSQL: the answer was lost, and whether it
     * committed could not be learnt) */
    int (*create)(store *s, const store_row *row, const store_play *plays, int k,
                  const store_answer *a);
    /* In one transaction: only if the row still has version `expect`, set
     * version = expect + 1, meta, the snapshot (of expect + 1) and append
     * the k plays (their .version is ignored: expect + 1 is stored), and
     * the answer `a` (may be NULL).
     * 0, ERR_CONFLICT (version moved), ERR_NOT_FOUND, ERR_IDEM_BUSY,
     * ERR_STORE, ERR_OUTCOME_UNKNOWN (as create). */
    int (*commit)(store *s, const char *id, int64_t expect, const char *meta,
                  const unsigned char *snap, size_t snap_len, const store_play *plays, int k,
                  const store_answer *a);
    /* Take plays back (DELETE /games/{id}/plays/{n}, api/undo.c): in one
     * transaction, only if the row still has version `expect`, set version
     * = expect + 1, meta and the snapshot (of expect + 1), and delete the
     * game's plays numbered above `keep` (never a STORE_NOTE row). The log
     * then reads as if they had never been made; the version still moves
     * on. 0, ERR_CONFLICT (version moved), ERR_NOT_FOUND, ERR_STORE,
     * ERR_STORE_FULL, ERR_OUTCOME_UNKNOWN (as commit). */
    int (*rewind)(store *s, const char *id, int64_t expect, const char *meta,
                  const unsigned char *snap, size_t snap_len, long keep);
    /* Cache fill after a rebuild: set the snapshot of `version` only if the
     * row is still at `version` (otherwise nothing, and 0). 0 or ERR_STORE. */
    int (*snap_put)(store *s, const char *id, int64_t version, const unsigned char *snap,
                    size_t snap_len);
    /* Plays with n > after, oldest first, at most `limit` (limit <= 0: all),
     * kinds included as asked: notes only when with_notes. *out malloc'd
     * array of *k rows. 0, ERR_STORE (an unknown id gives 0 rows). */
    int (*plays)(store *s, const char *id, long after, long limit, int with_notes,
                 store_play **out, int *k);
    /* 0, ERR_NOT_FOUND, ERR_STORE (deletes the game's plays too) */
    int (*del)(store *s, const char *id);
    int (*ping)(store *s);
    /* The newest schema version the database records (a newer release may
     * have migrated it since this store opened it), or ERR_STORE. */
    int (*schema)(store *s);
    /* Idempotency keys (api/idem.c). claim: when the key k->id has no live
     * answer and no live claim, claim it for k->owner (lease_s seconds; an
     * expired claim is made new): 0. Otherwise ERR_IDEM_BUSY with *k filled
     * from the answer (fingerprint, done, live, answer) or, when there is
     * none, the claim (fingerprint, owner, live). ERR_STORE. */
    int (*idem_claim)(store *s, store_idem *k, int lease_s);
    /* The claim of `from` becomes `to`'s for lease_s seconds more (from ==
     * to: renewed; else its request is gone): 0, ERR_IDEM_BUSY (the claim
     * is not from's any more), ERR_STORE. */
    int (*idem_take)(store *s, const unsigned char *id, const char *from, const char *to,
                     int lease_s);
    /* Drop the claim of `owner` (its request wrote nothing): 0 or ERR_STORE. */
    int (*idem_release)(store *s, const unsigned char *id, const char *owner);
    /* The key k->id into *k (its answer, or else its claim; expired or
     * not): 0, ERR_NOT_FOUND, ERR_STORE. */
    int (*idem_get)(store *s, store_idem *k);
    /* Delete expired answers and claims: how many, or ERR_STORE. */
    int (*idem_purge)(store *s);
    /* Hear of other processes' writes: changed(id, arg) on a thread of the
     * store's for each game they wrote, changed(NULL, arg) when anything may
     * have changed unheard (the listening connection was made again). 0, or
     * ERR_STORE (NULL: the store cannot; SQLite's readers poll instead). */
    int (*listen)(store *s, void (*changed)(const char *id, void *arg), void *arg);
    /* The store's own Prometheus lines into buf (n bytes, NUL-terminated):
     * their length. NULL when it has none. */
    size_t (*metrics)(store *s, char *buf, size_t n);
    void (*close)(store *s);
    /* Room (store_takes_games, /healthz, /metrics): how large the store
     * is, how much its disk has left, whether writes fail. 0 or ERR_STORE. */
    int (*room)(store *s, store_room *r);
    /* Retention (croupier purge, docs/operations.md): the games after
     * `after` in id order ("" from the first), at most `limit`, each with
     * the time of its last write (unix seconds), into out (limit rows);
     * *k of them. 0 or ERR_STORE. */
    int (*ages)(store *s, const char *after, int limit, store_age *out, int *k);
    /* Card notes. notes: game `id`'s notes of `seat` (-1: every seat's), by
     * seat then key; *out malloc'd (store_notes_free), *k rows. 0, ERR_STORE
     * (an unknown id gives 0 rows). note_put: set seat's note on `card` to
     * `text`, or delete it (text NULL or ""), while the game exists and, for
     * a new note, the seat holds fewer than `max` others (a cap checked in
     * the write's own transaction or statement). 0, ERR_NOT_FOUND (no such
     * game), ERR_FORBIDDEN (the seat holds `max` notes), ERR_STORE,
     * ERR_STORE_FULL. A game's notes go with it (del, del_aged). */
    int (*notes)(store *s, const char *id, int seat, store_card_note **out, int *k);
    int (*note_put)(store *s, const char *id, int seat, const char *card, const char *text,
                    int max);
    /* Delete game `id` as del() does, only if its last write is still
     * before `before` (unix seconds): 0, ERR_NOT_FOUND (gone, or written
     * since), ERR_STORE, ERR_STORE_FULL. */
    int (*del_aged)(store *s, const char *id, int64_t before);
} store_vtable;

/* When new games are refused (store_takes_games; 0: no such limit): the
 * store's size past max_bytes, or its disk's free space under min_free
 * (the server's --store-max-bytes and --store-min-free). */
typedef struct store_limits {
    long long max_bytes, min_free;
} store_limits;

struct store {
    const store_vtable *vt;
    store_limits limits; /* set by the server after store_open (zero: none) */
};

/* Open from a URL: "sqlite:PATH" or "postgres://...". Creates or migrates
 * the schema. Writes a message into err on failure: one line, with no
 * password of the URL in it (store_redact). */
int store_open(store **out, const char *url, char *err, size_t errlen);
/* The Retry-After of a new game refused for want of room: the store does
 * not get room back in seconds. */
enum { STORE_FULL_RETRY_S = 60 };
/* 0 when s takes a new game; ERR_STORE_FULL with the reason in why when
 * its writes fail or it is past one of its limits (s->limits). */
int store_takes_games(store *s, char *why, size_t n);
/* msg, said of the store at `url`, as it may be shown (a message, a log,
 * an answer) into out: every password of the URL (user:PASSWORD@, and any
 * query parameter named like one: password=, sslpassword=) replaced by
 * "[redacted]", wherever it appears (the URL quoted, a driver's message
 * quoting part of it), and the whole on one line (line breaks and tabs
 * become spaces). msg may be the URL itself. Returns out. */
char *store_redact(const char *url, const char *msg, char *out, size_t n);
void store_row_free(store_row *row);
void store_plays_free(store_play *p, int k);
void store_idem_free(store_idem *k);
void store_notes_free(store_card_note *n, int k);

static inline int store_get(store *s, const char *id, store_row *out) { return s->vt->get(s, id, out); }
static inline int store_origin_get(store *s, const char *id, char **o) { return s->vt->origin_get(s, id, o); }
static inline int store_create(store *s, const store_row *r, const store_play *p, int k) { return s->vt->create(s, r, p, k, NULL); }
static inline int store_commit(store *s, const char *id, int64_t expect, const char *meta, const unsigned char *snap, size_t snap_len, const store_play *p, int k) { return s->vt->commit(s, id, expect, meta, snap, snap_len, p, k, NULL); }
static inline int store_snap_put(store *s, const char *id, int64_t v, const unsigned char *snap, size_t n) { return s->vt->snap_put(s, id, v, snap, n); }
static inline int store_plays(store *s, const char *id, long after, long limit, int with_notes, store_play **out, int *k) { return s->vt->plays(s, id, after, limit, with_notes, out, k); }
static inline int store_delete(store *s, const char *id) { return s->vt->del(s, id); }
static inline int store_ping(store *s) { return s->vt->ping(s); }
static inline void store_close(store *s) { s->vt->close(s); }

/* What a backup copied. */
typedef struct store_backup_info {
    int schema;
    long long games, plays;
    int pages;
} store_backup_info;

/* A consistent copy of the live store at `url` into the new file `file`,
 * while it serves (croupier backup). SQLite only: a PostgreSQL store is
 * backed up with pg_dump (ERR_STORE, the message says so). 0 or ERR_STORE
 * with a message. */
int store_backup(const char *url, const char *file, store_backup_info *info, char *err,
                 size_t errlen);

/* A store back end: one row of store.c's table, as SQLite's VFS are. Each
 * back end's file defines its row; store_open() and store_backup() hand a
 * URL to the row whose scheme it starts with. */
typedef struct store_backend {
    const char *name;           /* "sqlite", "postgres" */
    const char *schemes[3];     /* the URL prefixes it serves, NULL-ended */
    const char *usage;          /* the URL form, for messages ("sqlite:PATH") */
    /* Open the store at url (one of its schemes): as store_open. */
    int (*open)(store **out, const char *url, char *err, size_t errlen);
    /* As store_backup; NULL when the back end has no backup of its own ... */
    int (*backup)(const char *url, const char *file, store_backup_info *info, char *err,
                  size_t errlen);
    const char *no_backup;      /* ... and then what to do instead */
} store_backend;

/* store_sqlite.c: sqlite:PATH or sqlite:///abs/path. */
extern const store_backend store_sqlite_backend;
int store_sqlite_open(store **out, const char *path, char *err, size_t errlen);
int store_sqlite_backup(const char *path, const char *file, store_backup_info *info, char *err,
                        size_t errlen);
/* store_pg.c: url is a libpq connection URI (postgres://user@host:port/db?...) */
extern const store_backend store_pg_backend;
int store_pg_open(store **out, const char *url, char *err, size_t errlen);

#endif
