/* store.h: where games live between requests.
 *
 * One row per game: id, game type, version, the api's metadata blob (seats,
 * token hashes) and the engine's state blob, both JSON text. Every write is a
 * compare-and-swap on version, so two servers (or threads) racing on one
 * game give one winner and one clean conflict, never a lost or doubled play.
 * Implementations: store_sqlite.c (embedded default); a PostgreSQL store
 * implements the same vtable.
 *
 * Ownership: store_row strings returned by get are malloc'd; free with
 * store_row_free(). Inputs are borrowed.
 */
#ifndef CROUPIER_STORE_H
#define CROUPIER_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct store_row {
    char id[64];
    char game[32];
    int64_t version;
    char *meta;  /* JSON text */
    char *state; /* JSON text */
} store_row;

typedef struct store store;

typedef struct store_vtable {
    const char *kind; /* "sqlite" */
    /* 0, ERR_NOT_FOUND, ERR_STORE */
    int (*get)(store *s, const char *id, store_row *out);
    /* 0, ERR_CONFLICT (id exists), ERR_STORE */
    int (*create)(store *s, const store_row *row);
    /* Replace meta/state and set version = expect + 1 only if the row still
     * has version `expect`. 0, ERR_CONFLICT (version moved), ERR_NOT_FOUND,
     * ERR_STORE. */
    int (*cas)(store *s, const char *id, int64_t expect, const char *meta,
               const char *state);
    /* 0, ERR_NOT_FOUND, ERR_STORE (deletes the game's notes too) */
    int (*del)(store *s, const char *id);
    /* Notes: the one-line explanations of bot plays, kept beside the game
     * (not in its state) so that the history can show them. Written after
     * the CAS that applied the plays succeeded; a note is an annotation, so
     * a note lost to a crash in between costs nothing but the sentence.
     * add: n[i] -> text[i] for k notes. get: *json = a JSON object text
     * {"<n>": "<text>", ...} (malloc'd). 0 or ERR_STORE. */
    int (*notes_add)(store *s, const char *id, const long *n, const char *const *text, int k);
    int (*notes_get)(store *s, const char *id, char **json);
    int (*ping)(store *s);
    void (*close)(store *s);
} store_vtable;

struct store {
    const store_vtable *vt;
};

/* Open from a URL: "sqlite:PATH" or "postgres://...". Writes a message into err on failure. */
int store_open(store **out, const char *url, char *err, size_t errlen);
void store_row_free(store_row *row);

static inline int store_get(store *s, const char *id, store_row *out) { return s->vt->get(s, id, out); }
static inline int store_create(store *s, const store_row *r) { return s->vt->create(s, r); }
static inline int store_cas(store *s, const char *id, int64_t expect, const char *meta, const char *state) { return s->vt->cas(s, id, expect, meta, state); }
static inline int store_delete(store *s, const char *id) { return s->vt->del(s, id); }
static inline int store_ping(store *s) { return s->vt->ping(s); }
static inline int store_notes_add(store *s, const char *id, const long *n, const char *const *t, int k) { return s->vt->notes_add(s, id, n, t, k); }
static inline int store_notes_get(store *s, const char *id, char **json) { return s->vt->notes_get(s, id, json); }
static inline void store_close(store *s) { s->vt->close(s); }

/* store_sqlite.c */
int store_sqlite_open(store **out, const char *path, char *err, size_t errlen);
/* store_pg.c: url is a libpq connection URI (postgres://user@host:port/db?...) */
int store_pg_open(store **out, const char *url, char *err, size_t errlen);

#endif
