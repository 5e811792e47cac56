/* gamectx.c: load a stored game for one request, authenticate the caller
 * against its seats, let bots move, and compare-and-swap it back.
 *
 * Nothing is kept between requests: each request takes the game's snapshot
 * (or, when there is none this build can use, rebuilds the state from the
 * origin and the play log), works on it, and commits the new snapshot with
 * the plays it made only if the version it read is still current. A failed
 * request writes nothing.
 */
#include "api.h"
#include "core/jsonx.h"
#include "json_arena.h"
#include "json_out.h"
#include "notify.h"
#include "snapshot.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* every play of the log */
#define LOG_ALL LONG_MAX

static void meta_return(void);

void ctx_free(game_ctx *c)
{
    store_row_free(&c->row);
    if (c->meta_borrowed)
        meta_return();
    else
        json_decref(c->meta);
    free(c->st);
    memset(c, 0, sizeof *c);
}

int ctx_spectators_all(const json_t *meta)
{
    const char *s = json_string_value(json_object_get(meta, "spectators"));
    return s && strcmp(s, "all") == 0;
}

/* The string `member` of obj is the hex hash h (constant-time). */
static int hash_is(const json_t *obj, const char *member, const char h[65])
{
    const char *want = json_string_value(json_object_get(obj, member));
    return want && secure_eq(want, h);
}

static int auth_seat(const api_config *cfg, const http_req *req, game_ctx *c,
                     game_err *e)
{
    char tok[256];
    const char *t = req_token(req, tok, sizeof tok);
    c->seat = SEAT_SPECTATOR;
    c->has_token = t != NULL;
    if (!t)
        return 0;
    if (!*t)
        return err_set(e, ERR_UNAUTHORIZED, NULL,
                       "the Authorization header must be 'Bearer <token>'");
    if (cfg->admin_token && *cfg->admin_token && secure_eq(t, cfg->admin_token)) {
        c->seat = SEAT_ADMIN;
        return 0;
    }
    char h[65];
    sha256_hex(t, h); /* once: every seat is compared, in constant time */
    size_t i;
    json_t *seat;
    int found = -1;
    json_array_foreach(json_object_get(c->meta, "seats"), i, seat)
        if (hash_is(seat, "token_sha256", h))
            found = (int)i;
    if (found < 0 && hash_is(json_object_get(c->meta, "host"), "token_sha256", h)) {
        c->host = 1; /* reads as a spectator; issues invites */
        return 0;
    }
    if (found < 0)
        return err_set(e, ERR_UNAUTHORIZED, NULL,
                       "this token belongs to no seat of this game (a seat's token "
                       "changes when an invite to it is claimed)");
    game_status gs;
    c->ops->status(c->st, &gs);
    if (!gs.over && json_object_get(json_array_get(json_object_get(c->meta, "seats"),
                                                   (size_t)found), "resigned")) {
        /* its person left the seat to a bot: while the game runs the token
         * no longer reads the seat's hand (the bot's now), only what a
         * spectator sees; once it is over, every card is shown anyway, and
         * the token names its seat again (the page's "play again" seats the
         * person who resigned as a person) */
        c->resigned = 1;
        return 0;
    }
    c->seat = found;
    return 0;
}

int ctx_hash_is(const json_t *obj, const char *member, const char *secret)
{
    char h[65];
    if (!secret)
        return 0;
    sha256_hex(secret, h);
    return hash_is(obj, member, h);
}

static int auth(const api_config *cfg, const http_req *req, game_ctx *c,
                game_err *e)
{
    int rc = auth_seat(cfg, req, c, e);
    c->reader = c->seat == SEAT_SPECTATOR && ctx_spectators_all(c->meta) ? SEAT_OBSERVER : c->seat;
    return rc;
}

/* Decode an origin (the engine's JSON encoding: validated, like any state
 * the server did not keep in memory itself). */
static int origin_decode(const game_ops *ops, const char *text, void *st, game_err *e)
{
    json_error_t je;
    json_t *blob = text ? json_loads(text, 0, &je) : NULL;
    if (!blob)
        return err_set(e, ERR_INTERNAL, NULL, "its origin is not JSON");
    int rc = ops->decode(st, blob, e);
    json_decref(blob);
    return rc;
}

/* The "play" member of a record equals the logged play text. */
static int same_play(const json_t *rec, const char *play)
{
    json_t *p = play ? json_loads(play, 0, NULL) : NULL;
    int same = p && json_equal(json_object_get(rec, "play"), p);
    json_decref(p);
    return same;
}

/* Replay logged plays with n <= upto onto st (an origin). 0 or ERR_INTERNAL.
 * Every play is applied as logged, a bot's too: no bot is asked again, so
 * a build whose bot would now choose otherwise replays the same game (a
 * bot's chance is drawn from the game's key and play number, never kept in
 * the state: engine/bots.c). A forced play (the pass of a seat that cannot
 * play) is the rules' own (autoplay) when it still is the logged one. */
static int ctx_replay(const game_ops *ops, void *st, const store_play *plays, int k, long upto,
                      game_err *e)
{
    void *copy = malloc(ops->state_size);
    if (!copy)
        return err_set(e, ERR_INTERNAL, NULL, "out of memory");
    int rc = 0;
    for (int i = 0; i < k && !rc; i++) {
        const store_play *p = &plays[i];
        if (p->kind == STORE_NOTE)
            continue;
        if (p->n > upto)
            break;
        if (p->kind == STORE_FORCED) {
            memcpy(copy, st, ops->state_size);
            json_t *rec = NULL;
            int ok = game_autoplay(ops, st, &rec) == 1 && same_play(rec, p->play);
            json_decref(rec);
            if (ok)
                continue;
            memcpy(st, copy, ops->state_size);
        }
        json_t *play = p->play ? json_loads(p->play, 0, NULL) : NULL;
        game_err pe = {0};
        if (!play || game_apply(ops, st, p->seat, play, NULL, &pe))
            rc = err_set(e, ERR_INTERNAL, NULL, "its play %ld does not replay: %s", p->n,
                         play ? pe.detail : "not JSON");
        json_decref(play);
    }
    free(copy);
    return rc;
}

int ctx_rebuild(const api_config *cfg, const game_ops *ops, const char *id, long upto,
                void *st, long *origin_last, long *log_last, game_err *e)
{
    char *origin = NULL;
    store_play *plays = NULL;
    int k = 0;
    int rc = store_origin_get(cfg->store, id, &origin);
    if (rc)
        return err_set(e, rc, NULL, "the store could not be read");
    game_err de = {0};
    rc = origin_decode(ops, origin, st, &de);
    free(origin);
    if (rc)
        return err_set(e, ERR_INTERNAL, NULL, "stored game '%s' is unreadable: %s", id, de.detail);
    if (origin_last) { /* the number of the last play inside the origin */
        json_t *h = ops->history(st, SEAT_ADMIN);
        json_t *last = json_array_get(h, json_array_size(h) - 1);
        *origin_last = last ? (long)json_integer_value(json_object_get(last, "n")) : -1;
        json_decref(h);
    }
    if ((rc = store_plays(cfg->store, id, -2, 0, 0, &plays, &k)))
        return err_set(e, rc, NULL, "the store could not be read");
    if (log_last)
        *log_last = k ? plays[k - 1].n : (origin_last ? *origin_last : -1);
    rc = ctx_replay(ops, st, plays, k, upto, e);
    store_plays_free(plays, k);
    return rc;
}

/* The meta a thread read last, parsed, outside the request blocks: the
 * requests of one game come one after another on one connection, and so on
 * one worker thread, with the same meta text (it changes only when a seat
 * does). A request borrows the parsed tree itself when no other context of
 * the thread holds it (`lent`), and reads it only; one that changes meta
 * takes its own copy first (ctx_meta_own). A copy costs a third of parsing
 * the text again (callgrind: ~14k instructions against ~42k for a 2-seat
 * meta; ~25k of a 4-seat GET /games/{id}'s ~190k), a borrow nothing. The
 * checking build (CROUPIER_CHECKS) parses the text again at every borrow
 * and stops when the tree no longer says what the text says: a handler
 * changed a borrowed meta. Freed when the thread ends. */
typedef struct meta_memo {
    char *text;
    size_t len;
    json_t *tree;
    int lent;
} meta_memo;

static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_drop(meta_memo *m)
{
    int held = json_arena_hold();
    json_decref(m->tree);
    json_arena_resume(held);
    free(m->text);
    m->tree = NULL;
    m->text = NULL;
    m->len = 0;
}

static void memo_free(void *p)
{
    if (p) {
        memo_drop(p);
        free(p);
    }
}

static void memo_setup(void) { pthread_key_create(&memo_key, memo_free); }

static void meta_return(void)
{
    meta_memo *m = pthread_getspecific(memo_key);
    if (m)
        m->lent = 0;
}

int ctx_meta_own(game_ctx *c)
{
    if (!c->meta_borrowed)
        return 0;
    json_t *copy = json_deep_copy(c->meta);
    if (!copy)
        return ERR_INTERNAL;
    meta_return();
    c->meta = copy;
    c->meta_borrowed = 0;
    return 0;
}

/* The meta of text: the memo's tree lent (*borrowed = 1), or a tree of the
 * request's own. */
static json_t *meta_parse(const char *text, int *borrowed)
{
    pthread_once(&memo_once, memo_setup);
    meta_memo *m = pthread_getspecific(memo_key);
    size_t len = strlen(text);
    *borrowed = 0;
    if (m && m->tree && m->len == len && memcmp(m->text, text, len) == 0) {
        if (m->lent)
            return json_deep_copy(m->tree);
#ifdef CROUPIER_CHECKS
        json_t *again = json_loads(text, 0, NULL);
        if (!json_equal(again, m->tree)) {
            fprintf(stderr, "croupier: a request changed the meta it borrowed (ctx_meta_own)\n");
            abort();
        }
        json_decref(again);
#endif
        m->lent = 1;
        *borrowed = 1;
        return m->tree;
    }
    json_t *t = json_loads(text, 0, NULL);
    if (!t)
        return NULL;
    if (!m) {
        m = calloc(1, sizeof *m);
        if (m && pthread_setspecific(memo_key, m) != 0) {
            free(m);
            m = NULL;
        }
    }
    if (m && !m->lent) {
        memo_drop(m);
        int held = json_arena_hold();
        m->tree = json_deep_copy(t);
        json_arena_resume(held);
        m->text = malloc(len + 1);
        if (m->tree && m->text) {
            memcpy(m->text, text, len + 1);
            m->len = len;
        } else {
            memo_drop(m);
        }
    }
    return t;
}

static int load_state(const api_config *cfg, const char *id, game_ctx *c, game_err *e)
{
    memset(c, 0, sizeof *c);
    int rc = store_get(cfg->store, id, &c->row);
    if (rc == ERR_NOT_FOUND)
        return err_set(e, ERR_NOT_FOUND, NULL, "no game with id '%s'", id);
    if (rc)
        return err_set(e, rc, NULL, "the store could not be read");
    c->ops = game_find(c->row.game);
    c->meta = c->row.meta ? meta_parse(c->row.meta, &c->meta_borrowed) : NULL;
    c->st = c->ops ? malloc(c->ops->state_size) : NULL;
    if (!c->ops || !c->meta || !c->st)
        return err_set(e, ERR_INTERNAL, NULL, "stored game '%s' is unreadable", id);
    /* the snapshot when it is this build's, of this game at this version;
     * else the origin and the plays, and the snapshot written again */
    if (c->row.snap_version != c->row.version ||
        snap_unpack(c->ops, c->row.id, c->row.version, c->row.snap, c->row.snap_len, c->st)) {
        if ((rc = ctx_rebuild(cfg, c->ops, c->row.id, LOG_ALL, c->st, NULL, NULL, e)))
            return rc;
        unsigned char *snap = NULL;
        size_t len = 0;
        if (snap_pack(c->ops, c->row.id, c->row.version, c->st, &snap, &len) == 0)
            store_snap_put(cfg->store, c->row.id, c->row.version, snap, len); /* a cache */
        free(snap);
        metrics_rebuilt();
    }
    free(c->row.snap); /* not needed any more */
    c->row.snap = NULL;
    c->row.snap_len = 0;
    return 0;
}

int ctx_load(const api_config *cfg, const http_req *req, const char *id,
             game_ctx *c, game_err *e)
{
    int rc = load_state(cfg, id, c, e);
    return rc ? rc : auth(cfg, req, c, e);
}

void ctx_seat_tag(const game_ctx *c, int seat, char out[NCHAN_TAG])
{
    json_t *s = json_array_get(json_object_get(c->meta, "seats"), (size_t)seat);
    const char *h = json_string_value(json_object_get(s, "token_sha256"));
    game_status gs;
    c->ops->status(c->st, &gs);
    snprintf(out, NCHAN_TAG, "%.8s%s", h && strlen(h) >= 8 ? h : "--------",
             !gs.over && json_object_get(s, "resigned") ? "r" : "");
}

int ctx_load_as(const api_config *cfg, const char *id, int seat, game_ctx *c, game_err *e)
{
    int rc = load_state(cfg, id, c, e);
    if (rc)
        return rc;
    c->seat = seat;
    c->reader = seat == SEAT_SPECTATOR && ctx_spectators_all(c->meta) ? SEAT_OBSERVER : seat;
    return 0;
}

static const char *seat_bot(const json_t *meta, int seat)
{
    json_t *s = json_array_get(json_object_get(meta, "seats"), (size_t)seat);
    return json_string_value(json_object_get(s, "bot"));
}

/* Mark who chose a record (kept beside the records, never sent), and take
 * a bot's own reasoning out of its record into the mark: every reader is
 * sent the record, the reasoning goes to the log (ctx_log_rows) and only
 * to the readers of ctx_sees_reasoning. */
static void who(json_t *whos, int kind, const char *bot, json_t *rec)
{
    json_t *why = json_object_get(rec, "reasoning");
    if (whos) {
        json_t *w = json_pack("{s:i,s:s?}", "kind", kind, "bot", bot);
        if (why)
            json_object_set(w, "reasoning", why);
        json_array_append_new(whos, w);
    }
    if (why)
        json_object_del(rec, "reasoning");
}

int ctx_sees_reasoning(const game_ops *ops, const void *st, int reader)
{
    game_status gs;
    ops->status(st, &gs);
    return reader == SEAT_ADMIN || gs.over;
}

void ctx_show_reasoning(const json_t *applied, const json_t *whos)
{
    size_t i;
    json_t *rec;
    json_array_foreach(applied, i, rec) {
        json_t *why = json_object_get(json_array_get(whos, i), "reasoning");
        if (why)
            json_object_set(rec, "reasoning", why);
    }
}

int ctx_run_bots(const game_ops *ops, void *st, const json_t *meta,
                 json_t *applied, json_t *whos, game_err *e)
{
    /* Bounded: a game has finitely many plays; the bound only guards bugs. */
    for (int guard = 0; guard < 100000; guard++) {
        json_t *rec = NULL;
        if (game_autoplay(ops, st, &rec)) {
            who(whos, STORE_FORCED, NULL, rec);
            json_array_append_new(applied, rec);
            continue;
        }
        game_status gs;
        ops->status(st, &gs);
        if (gs.over || gs.to_move < 0)
            return 0;
        const char *bot = seat_bot(meta, gs.to_move);
        if (!bot)
            return 0;
        char expl[320];
        int rc = game_bot_play(ops, st, bot, &rec, expl, sizeof expl, e);
        if (rc)
            return rc;
        who(whos, STORE_BOT, bot, rec);
        json_array_append_new(applied, rec);
    }
    return err_set(e, ERR_INTERNAL, NULL, "bots did not finish");
}

/* The log's record of a play: its record without the explanation (stored
 * beside it), with the bot's reasoning (why, may be NULL). The admin's
 * record: only ctx_explain reads it back, for ctx_sees_reasoning's readers. */
static char *logged_record(const json_t *rec, const json_t *why)
{
    if (!why || json_object_get(rec, "reasoning"))
        return json_out_without(rec, "explanation", NULL);
    json_t *r = json_copy((json_t *)rec); /* shallow: the members are shared */
    char *text = NULL;
    if (r) {
        json_object_del(r, "explanation");
        if (json_object_set(r, "reasoning", (json_t *)why) == 0)
            text = json_out(r, NULL);
    }
    json_decref(r);
    return text;
}

int ctx_log_rows(const json_t *applied, const json_t *whos, store_play **out, int *k)
{
    size_t n = json_array_size(applied);
    *out = NULL;
    *k = 0;
    if (!n)
        return 0;
    store_play *p = calloc(n, sizeof *p);
    if (!p)
        return ERR_INTERNAL;
    for (size_t i = 0; i < n; i++) {
        const json_t *rec = json_array_get(applied, i), *w = json_array_get(whos, i);
        const char *ex = json_string_value(json_object_get(rec, "explanation"));
        const char *bot = json_string_value(json_object_get(w, "bot"));
        p[i].n = (long)json_integer_value(json_object_get(rec, "n"));
        p[i].seat = (int)json_integer_value(json_object_get(rec, "seat"));
        p[i].kind = w ? (int)json_integer_value(json_object_get(w, "kind")) : STORE_PERSON;
        p[i].bot = bot ? strdup(bot) : NULL;
        p[i].play = json_out(json_object_get(rec, "play"), NULL);
        p[i].record = logged_record(rec, json_object_get(w, "reasoning"));
        p[i].explanation = ex ? strdup(ex) : NULL;
        if (!p[i].play || !p[i].record || (bot && !p[i].bot) || (ex && !p[i].explanation)) {
            store_plays_free(p, (int)n);
            return ERR_INTERNAL;
        }
    }
    *out = p;
    *k = (int)n;
    return 0;
}

int ctx_save(const api_config *cfg, game_ctx *c, const json_t *applied, const json_t *whos,
             const idem_ticket *key, const http_res *ok)
{
    unsigned char *snap = NULL;
    size_t len = 0;
    store_play *plays = NULL;
    int k = 0;
    store_answer a = {0};
    /* the text it was read from, unless a handler changed it */
    char *meta = c->meta_changed ? json_out(c->meta, NULL) : c->row.meta;
    int rc = meta ? snap_pack(c->ops, c->row.id, c->row.version + 1, c->st, &snap, &len)
                  : ERR_INTERNAL;
    if (!rc)
        rc = ctx_log_rows(applied, whos, &plays, &k);
    idem_game g = {.hooks = &ctx_idem_hooks, .ops = c->ops, .st = c->st, .id = c->row.id,
                   .version = c->row.version + 1, .reader = c->seat, .rows = plays, .k = k};
    if (!rc)
        rc = idem_answer(key, ok, &g, &a);
    if (!rc)
        rc = cfg->store->vt->commit(cfg->store, c->row.id, c->row.version, meta, snap, len, plays,
                                    k, a.id ? &a : NULL);
    idem_answer_free(&a);
    store_plays_free(plays, k);
    free(snap);
    if (meta != c->row.meta)
        free(meta);
    if (rc == 0) {
        c->row.version++;
        notify_game(c->row.id); /* its event streams wake now, its nchan channels are
                                   published (notify.h) */
    }
    return rc;
}

const idem_hooks ctx_idem_hooks = {.status = ctx_status_json, .rebuild = ctx_rebuild};

int ctx_store_fail(game_err *e, int rc, const char *what)
{
    if (rc == ERR_OUTCOME_UNKNOWN)
        return err_set(e, rc, NULL,
                       "the store did not say whether %s was saved (its answer was lost): send the "
                       "request again with the same Idempotency-Key to learn what happened, or "
                       "read the game before you send it again without one",
                       what);
    return err_set(e, rc, NULL, "the store could not save %s", what);
}

/* A score as JSON: a whole number as an integer (3, not 3.0). */
static json_t *score_json(double x)
{
    json_int_t i = (json_int_t)x;
    return (double)i == x ? json_integer(i) : json_real(x);
}

json_t *ctx_status_json(const game_ops *ops, const void *st)
{
    game_status gs;
    ops->status(st, &gs);
    json_t *scores = json_array(), *winners = json_array();
    for (int p = 0; p < gs.nseats && p < GAME_MAX_SEATS; p++) {
        json_array_append_new(scores, score_json(gs.score[p]));
        if (gs.over && (p == gs.winner || (gs.winners >> p & 1u)))
            json_array_append_new(winners, json_integer(p));
    }
    json_t *s = jx_obj(10, "current", gs.over || gs.to_move < 0 ? json_null() : json_integer(gs.to_move),
                       "over", json_boolean(gs.over), "result", jx_str(gs.result ? gs.result : ""),
                       "winners", winners, "scores", scores, "lower_is_better",
                       json_boolean(gs.lower_is_better), "cooperative", json_boolean(ops->cooperative),
                       "rounds", json_integer(gs.rounds), "turns", json_integer(gs.turns), "plays",
                       json_integer(gs.plays));
    if (s && ops->cooperative)
        json_object_set_new(s, "max_score", json_integer(gs.max_score));
    return s;
}

/* A seat as anyone may see it: the members named here, copied (meta may be
 * borrowed), never a hash of a token or of an invite, live or spent. */
json_t *ctx_public_seats(const json_t *meta)
{
    static const char *const kept[] = {"seat", "name", "bot", "claimed", "resigned"};
    json_t *out = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "seats"), i, s) {
        json_t *p = json_object();
        for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
            json_t *v = json_object_get(s, kept[k]);
            if (v)
                json_object_set_new_nocheck(p, kept[k], json_deep_copy(v));
        }
        if (json_object_get(s, "invite_sha256")) /* a link nobody claimed yet */
            json_object_set_new_nocheck(p, "invite_open", json_true());
        json_array_append_new(out, p);
    }
    return out;
}

long text_chars(const char *s)
{
    long chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return -1;
        chars += (*p & 0xc0) != 0x80;
    }
    return chars;
}

int reject_unknown(const json_t *obj, const char *const *allowed,
                   const char *base, game_err *e)
{
    return jx_known(obj, base, allowed, e);
}

json_t *ctx_logged_reasoning(const store_play *p)
{
    if (!p->record || !strstr(p->record, "\"reasoning\""))
        return NULL; /* a person's play, a forced one, a note without one */
    json_t *r = json_loads(p->record, 0, NULL), *why = json_object_get(r, "reasoning");
    why = json_is_string(why) ? json_incref(why) : NULL;
    json_decref(r);
    return why;
}

void ctx_explain(const api_config *cfg, const char *id, json_t *records, int reasoning)
{
    store_play *p = NULL;
    int k = 0;
    /* only the log rows of the records' numbers (n is unique per game) */
    long lo = 0, hi = -1;
    size_t r;
    json_t *x;
    json_array_foreach(records, r, x) {
        const json_t *jn = json_object_get(x, "n");
        if (!json_is_integer(jn))
            continue;
        long n = (long)json_integer_value(jn);
        if (hi < lo || n < lo)
            lo = n;
        if (n > hi)
            hi = n;
    }
    if (hi < lo || store_plays(cfg->store, id, lo - 1, hi - lo + 1, 1, &p, &k))
        return;
    /* both lists are in play order: one merge pass */
    size_t i = 0;
    json_t *rec;
    for (int j = 0; j < k && i < json_array_size(records);) {
        rec = json_array_get(records, i);
        const json_t *jn = json_object_get(rec, "n");
        if (!json_is_integer(jn)) {
            i++;
            continue;
        }
        long n = (long)json_integer_value(jn);
        if (p[j].n < n) {
            j++;
        } else if (p[j].n > n) {
            i++;
        } else {
            if (p[j].explanation && !json_object_get(rec, "explanation"))
                json_object_set_new(rec, "explanation", json_string(p[j].explanation));
            json_t *why = reasoning ? ctx_logged_reasoning(&p[j]) : NULL;
            if (why)
                json_object_set_new(rec, "reasoning", why);
            i++;
            j++;
        }
    }
    store_plays_free(p, k);
}
