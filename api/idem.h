/* idem.h: Idempotency-Key on the routes that create or change games
 * (api/idem.c has the design: the answer is stored by the write itself, in
 * its transaction, compactly; keys are scoped by token, method and path;
 * answers are sealed and kept 24 hours unless --idempotency-keep says
 * otherwise).
 *
 * A keyed route's request goes: idem_begin() (before the handler: claims
 * the key, or answers a replay, 409 in flight, 422 reused, 400) -> the
 * handler builds its answer `ok` before writing, idem_answer() seals it
 * into the store_answer its write stores -> idem_settled() after the write
 * (a key answered by another request first: its answer) -> idem_end()
 * (after the handler: a claim the write did not consume is released).
 * idem_start() runs the process's keeper (claims renewed while their
 * requests run, expired keys purged); idem_stop() ends it before the store
 * is closed.
 */
#ifndef CROUPIER_IDEM_H
#define CROUPIER_IDEM_H

#include "game.h"
#include "http.h"
#include "store.h"

enum {
    IDEM_KEEP_DEFAULT_S = 86400, /* answers are kept this long unless configured */
    IDEM_KEEP_MIN_S = 60,
    IDEM_KEEP_MAX_S = 30 * 86400,
};

typedef struct idem_ticket {
    const struct idem_hooks *hooks; /* to rebuild a stored answer's pieces */
    int on;                 /* the request carries a key, claimed for it */
    int stored;             /* its answer is stored by its own write, which consumed the claim */
    int unknown;            /* its write's outcome is unknown: the claim is kept */
    store_idem row;         /* id, fingerprint and owner of the claim */
    char hash[65];          /* the key's whole SHA-256 in hex: the seal's associated data */
    unsigned char legacy[STORE_IDEM_HASH]; /* the fingerprint an earlier release gave the
                                              request (its bytes), once computed */
    int has_legacy;
    unsigned char seal[32]; /* seals the stored answer */
} idem_ticket;

/* What idem.c needs of the stored games (api/gamectx.c's ctx_idem_hooks),
 * handed in, since gamectx.c calls idem.c: a state's status as answers
 * write it (ctx_status_json), and a game's state rebuilt from its origin
 * and its log up to a play (ctx_rebuild). */
typedef struct idem_hooks {
    json_t *(*status)(const game_ops *ops, const void *st);
    int (*rebuild)(const api_config *cfg, const game_ops *ops, const char *id, long upto,
                   void *st, long *origin_last, long *log_last, game_err *e);
} idem_hooks;

/* What an answer about a game can be rebuilt from, so that it need not be
 * stored whole: the game `id` at `version` (st: the state after the write,
 * borrowed), as `reader` sees it, and the write's own log rows (borrowed;
 * notes skipped). The parts of the answer that these give back byte for
 * byte (the applied records, the reader's view, the status) are left out
 * of the stored answer and rebuilt by a retry. */
typedef struct idem_game {
    const idem_hooks *hooks;
    const game_ops *ops;
    const void *st;
    const char *id;
    int64_t version;
    int reader;
    const store_play *rows;
    int k;
} idem_game;

/* Before the handler of a keyed route, with the request's parsed JSON body
 * (borrowed; NULL for none or a body that is not JSON) and the hooks to
 * rebuild stored answers with: 0 to run it (t->on when a key was given and
 * claimed), or 1 with the answer in res. */
int idem_begin(const api_config *cfg, const http_req *req, const json_t *body,
               const struct idem_hooks *hooks, idem_ticket *t, http_res *res);
/* The answer `ok` sealed for its write (t NULL or off: *a zeroed, no
 * answer); g (may be NULL: the answer is stored whole) says what a retry
 * can rebuild it from. 0 or ERR_INTERNAL; free with idem_answer_free(). */
int idem_answer(const idem_ticket *t, const http_res *ok, const idem_game *g, store_answer *a);
void idem_answer_free(store_answer *a);
/* After the write (its result rc): 0 when the key is answered (by this
 * write, or res now holds the answer another request with the key stored
 * first), else the error to answer (ERR_IDEM_BUSY becomes ERR_CONFLICT). */
int idem_settled(const api_config *cfg, const http_req *req, idem_ticket *t, int rc,
                 http_res *res);
/* After the handler: release a claim that no write consumed. */
void idem_end(const api_config *cfg, idem_ticket *t, const http_res *res);

/* How long answers are kept (IDEM_KEEP_MIN_S..IDEM_KEEP_MAX_S seconds;
 * --idempotency-keep); before any request. */
void idem_configure(int keep_s);
/* The keeper thread on store s: every few seconds it renews the claims of
 * this process's requests that are still running, and now and then purges
 * expired keys. 0, or -1 (no thread: claims are then not renewed, and
 * purges run after keyed requests). */
int idem_start(store *s);
void idem_stop(void);

#endif
