/* api.h: internals shared by the router and the handlers (not the front ends).
 *
 * A handler gets the parsed JSON body (borrowed; NULL for bodiless routes)
 * and the path parameters, fills the response once (http_res_json(),
 * http_res_raw() for bytes or a 304, http_res_problem()/http_res_fail(), or
 * a stream's 200) and returns res->status from its one exit, `done:`; the
 * router answers 500 in place of a handler that returns anything else.
 * Handlers know no rules: every game question goes through the game_ops row
 * of engine/game.h.
 */
#ifndef CROUPIER_API_H
#define CROUPIER_API_H

#include "game.h"
#include "http.h"
#include "idem.h"
#include "store.h"

enum { ROUTE_MAX_PARAMS = 3 };

typedef struct route_match {
    char params[ROUTE_MAX_PARAMS][96];
    int nparams;
    idem_ticket *idem; /* a keyed route's Idempotency-Key (api/idem.h); else NULL */
} route_match;

/* Returns the status it answered (res->status). */
typedef int (*handler_fn)(const api_config *cfg, const http_req *req,
                          const route_match *m, json_t *body, http_res *res);

/* BODY_JSON_OR_TEXT: JSON is parsed as for BODY_JSON; a text/plain body
 * reaches the handler unparsed (body NULL, raw text in req->body). */
enum body_kind { BODY_NONE = 0, BODY_JSON = 1, BODY_JSON_OR_TEXT = 2 };

typedef struct route {
    const char *method;
    const char *pattern; /* "/games/{id}/plays": {x} matches one segment */
    enum body_kind body;
    handler_fn fn;
    int flags; /* ROUTE_* below */
} route;

enum {
    ROUTE_KEYED = 1,  /* takes Idempotency-Key (api/idem.h) */
    ROUTE_CREATE = 2, /* stores a new game: counted against QUOTA_CREATE (api/quota.h) */
    ROUTE_WORK = 4,   /* work without a game or a turn: its CPU time against QUOTA_WORK */
    ROUTE_NOTES = 8,  /* writes a card note: one unit of QUOTA_NOTES */
};

extern const route api_routes[]; /* routes.c; terminated by a NULL method */

/* Handlers (h_*.c). */
int h_healthz(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_metrics(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_openapi(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_openapi_json(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_rules(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_rules_game(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_rules_page(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_games_create(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_game_get(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_game_delete(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_plays_post(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_resign(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_plays_get(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_play_delete(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_seat_claim(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_seat_invite(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_legal(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_hint(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_export(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_events(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_channel(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_import(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_validate(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_fn_validate(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_fn_play(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_fn_play_named(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_cases(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
/* Card notes (notes.c). */
int h_notes_get(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_note_put(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_note_delete(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
/* Shared replays (replays.c, api/replays.h). */
int h_replay_create(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_replay_get(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_replay_put(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_replay_delete(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_replay_candidate(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_replay_leader(const api_config *, const http_req *, const route_match *, json_t *, http_res *);
int h_replay_events(const api_config *, const http_req *, const route_match *, json_t *, http_res *);

/* Plays taken back (api/undo.c): what the event streams need to know.
 * Every take-back numbers the game's events after its point again (the
 * new plays take the numbers of those taken back), so a reader's place in
 * a game's events is the number of the last event it read with the
 * game's undo count ("epoch") when it read it, packed into one long:
 * epoch << 32 | n (a game never undone: n alone). Its Server-Sent Events
 * id is "n" (epoch 0) or "n.epoch" (undo_id_parse). meta's "undo":
 * {"e": epoch, "at": [[epoch, point], ...]}, the newest UNDO_KEPT takes. */
enum { UNDO_KEPT = 16 };
static inline long undo_pos(long n, long epoch) { return (long)((unsigned long)epoch << 32) | n; }
static inline long undo_pos_n(long pos) { return pos & 0xffffffffL; }
static inline long undo_pos_epoch(long pos) { return (long)((unsigned long)pos >> 32); }
long undo_epoch(const json_t *meta);
/* Where a reader who read up to event n under `epoch` resumes: n when no
 * play was taken back since; else the lowest point taken back to since
 * (n if lower), 0 when meta no longer says (more than UNDO_KEPT since). */
long undo_resume(const json_t *meta, long n, long epoch);
/* Record a take-back to point `keep` in meta (owned): the epoch moves on. */
int undo_mark(json_t *meta, long keep);
/* "n" or "n.epoch" into a position (0 <= n <= max): 0, or -1 when malformed. */
int undo_id_parse(const char *s, long max, long *pos);

/* A stored game loaded for one request (api/gamectx.c). */
typedef struct game_ctx {
    store_row row;
    const game_ops *ops;
    json_t *meta; /* {"game","variant","seed","seats":[...]}: read-only until
                     ctx_meta_own() (it may be the thread's memo, borrowed) */
    int meta_borrowed; /* meta is the memo's: not freed, not changed */
    int meta_changed; /* a handler changed meta: ctx_save writes it anew
                         (else row.meta, the text it was read from) */
    void *st;     /* ops->state_size bytes */
    int seat;     /* caller: a seat, SEAT_SPECTATOR or SEAT_ADMIN */
    int reader;   /* what the caller may read (engine/game.h): the seat, or for a
                     spectator SEAT_OBSERVER at a "spectators": "all" table */
    int has_token;
    int host;     /* the caller holds the game's host token (api/h_seats.c):
                   a spectator who may issue invites */
    int resigned; /* the caller holds the token of a seat whose person resigned
                     (a bot plays it) and the game runs: a spectator */
} game_ctx;

/* Load game `id` and authenticate the caller. 0, ERR_NOT_FOUND,
 * ERR_UNAUTHORIZED (a token that is neither a seat's nor the admin's),
 * ERR_STORE, ERR_INTERNAL (a corrupt row). */
int ctx_load(const api_config *cfg, const http_req *req, const char *id,
             game_ctx *c, game_err *e);
/* Load game `id` as the reader of `seat` (a seat or SEAT_SPECTATOR) would,
 * without a request: the nchan publisher's (api/nchan.c). */
int ctx_load_as(const api_config *cfg, const char *id, int seat, game_ctx *c, game_err *e);
/* Seat `seat`'s nchan channel tag (api/nchan.c): the first 8 hex digits of
 * the hash of its token ("--------" for a seat with none), and "r" while
 * its person has resigned and the game runs; it changes when an invite to
 * the seat is claimed or its person resigns, so that the former readers'
 * subscriptions hear no more of the seat. */
enum { NCHAN_TAG = 10 };
void ctx_seat_tag(const game_ctx *c, int seat, char out[NCHAN_TAG]);
void ctx_free(game_ctx *c);
/* Make c->meta this request's own (a copy when it was borrowed): call it
 * before changing meta or any value in it. 0, or ERR_INTERNAL. */
int ctx_meta_own(game_ctx *c);
/* Let bot seats (and forced plays) move until a human must decide or the
 * game ends; appends each record to `applied` and, when `whos` is not NULL,
 * who chose it ({"kind": STORE_BOT|STORE_FORCED, "bot"?, "reasoning"?}) to
 * `whos`: a bot's reasoning is taken out of its record (every reader may
 * be sent the record; ctx_show_reasoning puts it back for those who may
 * read it). */
int ctx_run_bots(const game_ops *ops, void *st, const json_t *meta,
                 json_t *applied, json_t *whos, game_err *e);
/* The log rows of `applied` records (whos as above; a record without a
 * whos entry is a person's). *out for store_plays_free. 0 or ERR_INTERNAL. */
int ctx_log_rows(const json_t *applied, const json_t *whos, store_play **out, int *k);
/* Commit: the new snapshot and the plays of `applied` (whos: as for
 * ctx_run_bots, entry i for record i; missing = a person) as version
 * row.version + 1, only if the stored game is still at row.version, and
 * the answer `ok` stored with it under the request's Idempotency-Key (key
 * NULL or off: none). 0, ERR_CONFLICT, ERR_NOT_FOUND, ERR_IDEM_BUSY,
 * ERR_STORE, ERR_OUTCOME_UNKNOWN, ERR_INTERNAL. On success row.version is
 * the new version. */
int ctx_save(const api_config *cfg, game_ctx *c, const json_t *applied, const json_t *whos,
             const idem_ticket *key, const http_res *ok);
/* What api/idem.c rebuilds stored answers with (idem.h): ctx_status_json
 * and ctx_rebuild. */
extern const idem_hooks ctx_idem_hooks;
/* The problem of a write the store refused (ERR_STORE) or could not say
 * it saved (ERR_OUTCOME_UNKNOWN), about `what` ("the play"); returns rc. */
int ctx_store_fail(game_err *e, int rc, const char *what);
/* The state of game `id` from its origin and its plays with n <= upto
 * (LONG_MAX: all). *origin_last (may be NULL) = the number of the last play
 * inside the origin (-1: none); *log_last (may be NULL, needs origin_last) =
 * the number of the last play of the game. */
int ctx_rebuild(const api_config *cfg, const game_ops *ops, const char *id, long upto,
                void *st, long *origin_last, long *log_last, game_err *e);
/* Put the logged explanations (bots, forced plays, notes of imported or
 * migrated history) into history records, by "n"; and, when `reasoning`
 * (ctx_sees_reasoning), the bots' own reasoning (the logged record's). */
void ctx_explain(const api_config *cfg, const char *id, json_t *records, int reasoning);
/* 1 when `reader` may read the bots' own reasoning at st, which may rest
 * on a card only the bot's seat saw: the admin, and everyone once the
 * game is over (when every card is shown). Every other reader gets the
 * public explanation only (engine/game.h: explain). */
int ctx_sees_reasoning(const game_ops *ops, const void *st, int reader);
/* Put the reasoning ctx_run_bots kept in `whos` back into the records of
 * `applied`, for an answer whose reader ctx_sees_reasoning. */
void ctx_show_reasoning(const json_t *applied, const json_t *whos);
/* The bot's reasoning a log row keeps in its record (a bot's play, or a
 * note of an imported history), or NULL. New ref. */
json_t *ctx_logged_reasoning(const store_play *p);
/* ?name=N as a whole number lo..hi: 0 with *given (and *out when given),
 * or ERR_BAD_QUERY with the 400 problem (naming the parameter) in res. */
int query_long(const http_req *req, const char *name, long lo, long hi, long *out,
               int *given, http_res *res);
/* The members of `list` (stolen) whose `after_member` (or, without one,
 * their index) is above `after`, at most `limit` of them (<= 0: all); sets
 * Link: rel="next" on res when more remain. New ref. */
json_t *page(json_t *list, long after, long limit, const char *after_member,
             const http_req *req, http_res *res);
/* Where the game in `st` stands, in the words every game shares (the
 * "status" member beside a view: docs/api.md), from ops->status. New ref. */
json_t *ctx_status_json(const game_ops *ops, const void *st);
/* Seats as the public sees them (no token or invite hashes; "invite_open"
 * when the seat has an invite nobody claimed yet). New ref. */
json_t *ctx_public_seats(const json_t *meta);
/* 1 when the hex SHA-256 of `secret` is the string `member` of obj
 * (constant-time). */
int ctx_hash_is(const json_t *obj, const char *member, const char *secret);
/* 1 when the game was created with "spectators": "all" (meta). */
int ctx_spectators_all(const json_t *meta);

/* Invites (h_seats.c). A new secret (16 random bytes, base64url) into out,
 * its hash as obj's string `member`. 0 or ERR_INTERNAL. */
int seat_secret(json_t *obj, const char *member, char out[32], game_err *e);
/* An invite for every person's seat (no "bot") of the meta's seats:
 * invites[i] the secret of seat i, its hash the seat's "invite_sha256". */
int seats_invite(json_t *seats, char invites[][32], game_err *e);

/* Random URL-safe strings (auth.c): n_bytes of entropy, base64url. */
int rand_token(char *out, size_t outlen, size_t n_bytes);
/* 64 random bits from getrandom(2): 0, or ERR_INTERNAL (never a fallback). */
int rand_u64(uint64_t *out);
/* n random bytes, likewise. */
int rand_bytes(void *buf, size_t n);
/* Lowercase hex SHA-256 of s into out[65]. */
void sha256_hex(const char *s, char out[65]);
/* Constant-time string equality. */
int secure_eq(const char *a, const char *b);
/* The bearer token of the Authorization header, into buf; NULL if none. */
const char *req_token(const http_req *req, char *buf, size_t n);

/* Strictness helper: 400 naming the first member of `obj` not in `allowed`
 * (NULL-terminated). Returns 0 when all are known. The engine's jx_known
 * (engine/core/jsonx.h), the one check games use too. */
/* A text a person typed (a name, a note), UTF-8 as jansson keeps every
 * string: its length in characters, or -1 when it holds a control
 * character. */
long text_chars(const char *s);
int reject_unknown(const json_t *obj, const char *const *allowed,
                   const char *base, game_err *e);

#endif
