/* h_games.c: the stored-game endpoints (/games...). Each handler: parse ->
 * authenticate -> ask the engine through game_ops -> one response. No rule
 * of any game is known here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "core/jsonx.h"
#include "json_arena.h"
#include "json_out.h"
#include "notify.h"
#include "snapshot.h"

/* A reader's view for an answer's "state". A game that writes its view as
 * text (game_ops.view_text: no tree built) gets it spliced into the
 * answer's text by res_state(); the member holds a null until then. */
typedef struct {
    char *text;
    size_t len;
} state_text;

static json_t *state_value(const game_ops *ops, const void *st, int reader, state_text *t)
{
    t->text = ops->view_text ? ops->view_text(st, reader, &t->len) : NULL;
    return t->text ? json_null() : ops->view(st, reader);
}

/* http_res_json of doc with its "state" as state_value() gave it. */
static int res_state(http_res *res, int status, json_t *doc, state_text *t)
{
    char *text = t->text;
    t->text = NULL;
    return http_res_json_spliced(res, status, doc, "state", text, t->len);
}

/* The game as c's reader sees it at the position st (c->st: now). */
static json_t *game_doc(const game_ctx *c, const void *st, state_text *t)
{
    json_t *you = c->seat >= 0 ? json_integer(c->seat) : json_null();
    /* values copied out of meta, never referenced: it may be borrowed */
    return jx_obj(8, "id", json_string(c->row.id), "game",
                  json_deep_copy(json_object_get(c->meta, "game")), "variant",
                  json_deep_copy(json_object_get(c->meta, "variant")), "version",
                  json_integer((json_int_t)c->row.version), "seats", ctx_public_seats(c->meta), "you",
                  you, "state", state_value(c->ops, st, c->reader, t), "status",
                  ctx_status_json(c->ops, st));
}

/* --- POST /games ---------------------------------------------------------- */

static int store_new_game(const api_config *cfg, const http_req *req, idem_ticket *key,
                          const game_ops *ops, const char *variant, json_t *seed,
                          int show_seed, const char *spectators, const char *host,
                          void *st, json_t *seats, char tokens[][32], json_t *warnings,
                          const json_t *notes, http_res *res, game_err *e);

static int parse_players(const game_ops *ops, const json_t *players,
                         const char *where, json_t *seats, char tokens[][32],
                         game_err *e)
{
    if (jx_array(players, where, (size_t)ops->min_players,
                 (size_t)ops->max_players, e))
        return ERR_BAD_MEMBER;
    static const char *const allowed[] = {"name", "bot", NULL};
    size_t i;
    json_t *p;
    json_array_foreach(players, i, p) {
        char base[64], ptr[96];
        jx_ptr_idx(base, sizeof base, where, i);
        if (jx_object(p, base, e) || reject_unknown(p, allowed, base, e))
            return ERR_BAD_MEMBER;
        const json_t *bot = json_object_get(p, "bot");
        const json_t *name = json_object_get(p, "name");
        const char *b = NULL, *n = NULL;
        if (bot) {
            snprintf(ptr, sizeof ptr, "%s/bot", base);
            if (jx_string(bot, ptr, &b, e))
                return ERR_BAD_MEMBER;
            if (!game_has_bot(ops, b))
                return err_set(e, ERR_BAD_MEMBER, ptr,
                               "unknown bot '%s' for %s (see GET /rules/%s)", b,
                               ops->name, ops->name);
        }
        snprintf(ptr, sizeof ptr, "%s/name", base);
        if (name) {
            if (jx_string(name, ptr, &n, e))
                return ERR_BAD_MEMBER;
            size_t len = strlen(n);
            if (len < 1 || len > 64)
                return err_set(e, ERR_BAD_MEMBER, ptr, "a name has 1 to 64 characters");
        } else if (!bot) {
            return err_set(e, ERR_BAD_MEMBER, base,
                           "a player is {\"name\": ...} or {\"bot\": <strategy>}");
        }
        json_t *seat = json_pack("{s:i}", "seat", (int)i);
        if (b) {
            char dflt[80];
            snprintf(dflt, sizeof dflt, "%s bot", b);
            json_object_set_new(seat, "name", json_string(n ? n : dflt));
            json_object_set_new(seat, "bot", json_string(b));
        } else {
            char h[65];
            if (rand_token(tokens[i], 32, 16)) {
                json_decref(seat);
                return err_set(e, ERR_INTERNAL, NULL, "no randomness");
            }
            sha256_hex(tokens[i], h);
            json_object_set_new(seat, "name", json_string(n));
            json_object_set_new(seat, "token_sha256", json_string(h));
        }
        json_array_append_new(seats, seat);
    }
    { /* a seating each of its strategies can play */
        const char *bots[GAME_MAX_SEATS] = {0};
        size_t n = json_array_size(seats);
        for (i = 0; i < n && i < GAME_MAX_SEATS; i++)
            bots[i] = json_string_value(json_object_get(json_array_get(seats, i), "bot"));
        int rc = game_seating(ops, bots, (int)n, e);
        if (rc && strcmp(where, "/players") != 0 && strncmp(e->pointer, "/players", 8) == 0) {
            char ptr[160];
            snprintf(ptr, sizeof ptr, "%s%s", where, e->pointer + 8);
            snprintf(e->pointer, sizeof e->pointer, "%s", ptr);
        }
        return rc;
    }
    return 0;
}

/* A new game is refused while the store is near full (store_takes_games):
 * ERR_STORE_FULL in e, with a Retry-After, else 0. Plays of the games
 * there are go on (docs/operations.md, a full disk). */
static int room_for_games(const api_config *cfg, http_res *res, game_err *e)
{
    char why[200];
    if (store_takes_games(cfg->store, why, sizeof why) == 0)
        return 0;
    http_res_header(res, "Retry-After", "%d", (int)STORE_FULL_RETRY_S);
    return err_set(e, ERR_STORE_FULL, NULL, "%s: no new game is taken now; the games already "
                   "there go on", why);
}

int h_games_create(const api_config *cfg, const http_req *req,
                   const route_match *m, json_t *body, http_res *res)
{
    game_err e = {0};
    static const char *const allowed[] = {"game", "variant", "seed", "players", "options", "host", NULL};
    static const char *const host_allowed[] = {"name", NULL};
    json_t *game_options = NULL, *seats = NULL;
    void *st = NULL;
    int rc = 0;
    if (room_for_games(cfg, res, &e) || jx_object(body, "", &e) ||
        reject_unknown(body, allowed, "", &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    /* who invites the people at the table (api/h_seats.c): named to anyone
     * who opens an invite that was already used */
    const json_t *hostj = json_object_get(body, "host");
    const char *host = NULL;
    if (hostj && (jx_object(hostj, "/host", &e) || reject_unknown(hostj, host_allowed, "/host", &e) ||
                  (json_object_get(hostj, "name") &&
                   jx_string(json_object_get(hostj, "name"), "/host/name", &host, &e)))) {
        http_res_fail(res, req, &e);
        goto done;
    }
    if (host && (strlen(host) < 1 || strlen(host) > 64)) {
        err_set(&e, ERR_BAD_MEMBER, "/host/name", "a name has 1 to 64 characters");
        http_res_fail(res, req, &e);
        goto done;
    }
    const char *gname, *variant;
    if (jx_string(json_object_get(body, "game"), "/game", &gname, &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    const game_ops *ops = game_find(gname);
    if (!ops) {
        err_set(&e, ERR_NOT_FOUND, NULL, "unknown game type '%s' (see GET /rules)", gname);
        http_res_fail(res, req, &e);
        goto done;
    }
    variant = ops->variants[0];
    if (json_object_get(body, "variant")) {
        if (jx_string(json_object_get(body, "variant"), "/variant", &variant, &e)) {
            http_res_fail(res, req, &e);
            goto done;
        }
        if (!game_has_variant(ops, variant)) {
            err_set(&e, ERR_BAD_MEMBER, "/variant", "unknown variant '%s' of %s",
                    variant, ops->name);
            http_res_fail(res, req, &e);
            goto done;
        }
    }
    /* A seed the client chose is echoed; one the server drew is the secret
     * of every future deal: kept in the store, shown to the admin and once
     * the game is over, "seed": null in the reply. */
    long long seed;
    int seed_given = json_object_get(body, "seed") != NULL;
    if (seed_given) {
        if (jx_int(json_object_get(body, "seed"), "/seed", 0,
                   (1LL << 53) - 1, &seed, &e)) {
            http_res_fail(res, req, &e);
            goto done;
        }
    } else {
        uint64_t r;
        if (rand_u64(&r)) {
            err_set(&e, ERR_INTERNAL, NULL, "no randomness for the seed");
            http_res_fail(res, req, &e);
            goto done;
        }
        seed = (long long)(r & ((1ULL << 53) - 1));
    }
    const json_t *options = json_object_get(body, "options");
    if (options && jx_object(options, "/options", &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    /* "spectators" is the service's option, every other one the game's */
    const char *spectators = NULL;
    const json_t *sp = json_object_get(options, "spectators");
    if (sp && (jx_string(sp, "/options/spectators", &spectators, &e) ||
               (strcmp(spectators, "all") != 0 && strcmp(spectators, "public") != 0 &&
                err_set(&e, ERR_BAD_MEMBER, "/options/spectators",
                        "expected \"public\" (the default: spectators see what every seat "
                        "sees) or \"all\" (they see every hand, as on hanab.live)")))) {
        http_res_fail(res, req, &e);
        goto done;
    }
    game_options = options ? json_deep_copy(options) : NULL;
    json_object_del(game_options, "spectators");

    st = calloc(1, ops->state_size);
    seats = json_array();
    char tokens[GAME_MAX_SEATS][32] = {{0}};
    if (!st || !seats) {
        rc = err_set(&e, ERR_INTERNAL, NULL, "out of memory");
        goto done;
    }
    if ((rc = parse_players(ops, json_object_get(body, "players"), "/players", seats,
                            tokens, &e)))
        goto done;
    if ((rc = game_init(ops, st, variant, (int)json_array_size(seats), (uint64_t)seed, game_options, &e)))
        goto done;
    json_t *seedj = json_integer(seed);
    rc = store_new_game(cfg, req, m->idem, ops, variant, seedj, seed_given, spectators, host, st,
                        seats, tokens, NULL, NULL, res, &e);
    json_decref(seedj);
done:
    if (rc && !res->status)
        http_res_problem(res, req, rc, &e, NULL);
    json_decref(game_options);
    json_decref(seats);
    free(st);
    return res->status;
}

/* The notes of an imported game's history as note rows of its log, after
 * the k rows of *rows: `notes` is {"explanations"?, "reasoning"?}, each
 * {"<n>": "text"}; a play's reasoning goes in its row's record, where the
 * log keeps a bot's (ctx_logged_reasoning). One row per play number. */
static int add_notes(const json_t *notes, store_play **rows, int *k)
{
    json_t *ex = json_object_get(notes, "explanations"), *why = json_object_get(notes, "reasoning");
    size_t n = json_object_size(ex) + json_object_size(why);
    if (!n)
        return 0;
    store_play *p = realloc(*rows, ((size_t)*k + n) * sizeof *p);
    if (!p)
        return ERR_INTERNAL;
    *rows = p;
    for (int pass = 0; pass < 2; pass++) {
        const char *key;
        json_t *v;
        json_object_foreach(pass ? why : ex, key, v) {
            char *end;
            long num = strtol(key, &end, 10);
            json_t *w = json_object_get(why, key);
            if (!json_is_string(v) || *end || !*key || (pass && json_object_get(ex, key)))
                continue; /* pass 1: the reasoning of plays without an explanation */
            store_play *r = &p[(*k)++];
            memset(r, 0, sizeof *r);
            r->n = num;
            r->seat = -1;
            r->kind = STORE_NOTE;
            if (!pass && !(r->explanation = strdup(json_string_value(v))))
                return ERR_INTERNAL;
            if (json_is_string(w)) {
                json_t *rec = json_pack("{s:O}", "reasoning", w);
                r->record = rec ? json_out(rec, NULL) : NULL;
                json_decref(rec);
                if (!r->record)
                    return ERR_INTERNAL;
            }
        }
    }
    return 0;
}

/* The answer of a write, `ok` (built before the write, so that it is
 * stored with it under the request's Idempotency-Key), into res when the
 * write `rc` succeeded; or the answer another request with the key stored
 * first. Returns 0 when res holds the answer, else the write's error. */
static int answered(const api_config *cfg, const http_req *req, idem_ticket *key, int rc,
                    http_res *ok, http_res *res)
{
    if (rc == 0) {
        *res = *ok;
        memset(ok, 0, sizeof *ok);
    }
    http_res_free(ok);
    return idem_settled(cfg, req, key, rc, res);
}

/* Store a new game (state `st` as its origin, seats meta with token
 * hashes, the tokens in clear), let bots move, and reply 201 as POST /games
 * does, the reply stored under the request's Idempotency-Key (`key`, may be
 * NULL). The reply shows `seed` only when `show_seed` (the client gave it).
 * `spectators` is NULL or the option's value; `host` NULL or the name of
 * who invites the people (api/h_seats.c). `warnings` (borrowed, may be
 * NULL) is added to the reply; `notes` (borrowed, may be NULL) are the
 * explanations and the bots' reasoning of an imported history
 * ({"explanations"?, "reasoning"?}: add_notes). */
static int store_new_game(const api_config *cfg, const http_req *req, idem_ticket *key,
                          const game_ops *ops, const char *variant, json_t *seed,
                          int show_seed, const char *spectators, const char *host,
                          void *st, json_t *seats, char tokens[][32], json_t *warnings,
                          const json_t *notes, http_res *res, game_err *e)
{
    json_t *applied = json_array(), *whos = json_array();
    json_t *blob = ops->encode(st); /* the origin: before any bot moves */
    json_t *meta = json_pack("{s:s,s:s,s:O,s:O}", "game", ops->name, "variant", variant,
                             "seed", seed, "seats", seats);
    if (spectators && strcmp(spectators, "all") == 0)
        json_object_set_new(meta, "spectators", json_string("all"));
    char *meta_s = NULL, *origin_s = blob ? json_out(blob, NULL) : NULL;
    unsigned char *snap = NULL;
    size_t snap_len = 0;
    store_play *rows = NULL;
    int nrows = 0;
    http_res ok = {0};
    /* every person's seat an invite, and the host a token to issue new ones */
    char invites[GAME_MAX_SEATS][32] = {{0}}, host_token[32];
    json_t *hostj = json_object();
    json_object_set_new(meta, "host", hostj);
    if (host)
        json_object_set_new(hostj, "name", json_string(host));
    int rc = seats_invite(json_object_get(meta, "seats"), invites, e);
    if (!rc)
        rc = seat_secret(hostj, "token_sha256", host_token, e);
    if (rc || (rc = ctx_run_bots(ops, st, meta, applied, whos, e)))
        goto done;
    if (ctx_sees_reasoning(ops, st, SEAT_SPECTATOR)) /* the creator: a seat or a spectator */
        ctx_show_reasoning(applied, whos);
    meta_s = json_out(meta, NULL);
    store_row row = {.version = 1, .meta = meta_s, .origin = origin_s};
    snprintf(row.game, sizeof row.game, "%s", ops->name);
    if (!meta_s || !origin_s || ctx_log_rows(applied, whos, &rows, &nrows) ||
        add_notes(notes, &rows, &nrows)) {
        rc = err_set(e, ERR_INTERNAL, NULL, "could not encode the game");
        goto done;
    }
    int you = -1, humans = 0;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "seats"), i, s) {
        if (!json_object_get(s, "bot")) {
            you = (int)i;
            humans++;
        }
    }
    if (humans != 1)
        you = -1;
    do { /* 128-bit ids: a collision is astronomically unlikely; retry anyway */
        if (rand_token(row.id, sizeof row.id, 16)) {
            rc = err_set(e, ERR_INTERNAL, NULL, "no randomness");
            goto done;
        }
        free(snap);
        if (snap_pack(ops, row.id, row.version, st, &snap, &snap_len)) {
            rc = err_set(e, ERR_INTERNAL, NULL, "out of memory");
            goto done;
        }
        row.snap = snap;
        row.snap_len = snap_len;
        json_t *pub = ctx_public_seats(meta);
        json_array_foreach(pub, i, s)
            if (!json_object_get(s, "bot")) {
                json_object_set_new(s, "token", json_string(tokens[i]));
                json_object_set_new(s, "invite", json_string(invites[i]));
            }
        state_text view;
        int reader = you >= 0 ? you : ctx_spectators_all(meta) ? SEAT_OBSERVER : SEAT_SPECTATOR;
        json_t *out = json_pack("{s:s,s:s,s:s,s:O,s:i,s:o,s:o,s:O,s:o}", "id", row.id,
                                "game", ops->name, "variant", variant, "seed",
                                show_seed ? seed : json_null(),
                                "version", 1, "seats", pub, "you",
                                you >= 0 ? json_integer(you) : json_null(), "applied",
                                applied, "state", state_value(ops, st, reader, &view));
        if (out)
            json_object_set_new(out, "status", ctx_status_json(ops, st));
        if (out && warnings)
            json_object_set(out, "warnings", warnings);
        if (out && humans)
            json_object_set_new(out, "host_token", json_string(host_token));
        http_res_free(&ok);
        memset(&ok, 0, sizeof ok);
        http_res_header(&ok, "Location", "/games/%s", row.id);
        res_state(&ok, 201, out, &view);
        store_answer a;
        idem_game g = {.hooks = &ctx_idem_hooks, .ops = ops, .st = st, .id = row.id,
                       .version = row.version, .reader = reader, .rows = rows, .k = nrows};
        if ((rc = idem_answer(key, &ok, &g, &a))) {
            err_set(e, rc, NULL, "out of memory");
            goto done;
        }
        rc = cfg->store->vt->create(cfg->store, &row, rows, nrows, a.id ? &a : NULL);
        idem_answer_free(&a);
    } while (rc == ERR_CONFLICT);
    int created = rc == 0;
    if ((rc = answered(cfg, req, key, rc, &ok, res))) {
        ctx_store_fail(e, rc, "the game");
        goto done;
    }
    if (created) {
        metrics_game_created();
        notify_game(row.id); /* its nchan channels get the deal's events at once, not with
                                its first play (notify.h) */
        res->stored = strlen(meta_s) + strlen(origin_s) + snap_len;
        for (int r = 0; r < nrows; r++)
            res->stored += (rows[r].play ? strlen(rows[r].play) : 0) +
                           (rows[r].record ? strlen(rows[r].record) : 0) +
                           (rows[r].explanation ? strlen(rows[r].explanation) : 0);
    }
done:
    if (rc)
        http_res_problem(res, req, rc, e, NULL);
    http_res_free(&ok);
    json_decref(meta);
    json_decref(applied);
    json_decref(whos);
    json_decref(blob);
    free(meta_s);
    free(origin_s);
    free(snap);
    store_plays_free(rows, nrows);
    return rc;
}

/* --- POST /games/import ---------------------------------------------------- */

/* The seats of a JSON export as players of POST /games. New ref. */
static json_t *export_players(const json_t *seats)
{
    json_t *players = json_array(), *s;
    size_t i;
    json_array_foreach(seats, i, s) {
        json_t *p = json_object();
        const json_t *bot = json_object_get(s, "bot"), *name = json_object_get(s, "name");
        if (bot)
            json_object_set(p, "bot", (json_t *)bot);
        if (name)
            json_object_set(p, "name", (json_t *)name);
        json_array_append_new(players, p);
    }
    return players;
}

/* The seats of a JSON export, as strictly as POST /games reads its players:
 * each an object of the members an export writes (ctx_public_seats), each of
 * its type, "seat" its own index. Which seat a bot plays and the names are
 * parse_players' to judge, as for a new game. */
static int import_seats(const json_t *seats, game_err *e)
{
    static const char *const allowed[] = {"seat", "name", "bot", "claimed", "resigned",
                                          "invite_open", NULL};
    static const char *const flags[] = {"claimed", "resigned", "invite_open"};
    size_t i;
    json_t *s;
    json_array_foreach(seats, i, s) {
        char base[32], ptr[64];
        long long n;
        int b;
        jx_ptr_idx(base, sizeof base, "/seats", i);
        if (jx_object(s, base, e) || reject_unknown(s, allowed, base, e))
            return e->code;
        snprintf(ptr, sizeof ptr, "%s/seat", base);
        if (json_object_get(s, "seat") &&
            (jx_int(json_object_get(s, "seat"), ptr, 0, GAME_MAX_SEATS, &n, e) ||
             (n != (long long)i &&
              err_set(e, ERR_BAD_MEMBER, ptr, "seat %zu says it is seat %lld", i, n))))
            return e->code;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
            snprintf(ptr, sizeof ptr, "%s/%s", base, flags[k]);
            if (json_object_get(s, flags[k]) && jx_bool(json_object_get(s, flags[k]), ptr, &b, e))
                return e->code;
        }
        if (json_object_get(s, "resigned") && !json_object_get(s, "bot"))
            return err_set(e, ERR_BAD_MEMBER, base, "a resigned seat is played by a bot: "
                           "\"resigned\" comes with \"bot\"");
    }
    return 0;
}

/* The members of an export that the import does not take from it, read as
 * strictly as the ones it takes: "id" and "version" (the game gets a new id
 * and starts at version 1), "variant" (the state says it: they must agree),
 * "seed" (stored and shown as given: a whole number as POST /games takes,
 * or null, as an export made mid-game writes it). */
static int import_header(const game_ops *ops, const json_t *body, const json_t *state,
                         game_err *e)
{
    const json_t *v;
    const char *s;
    long long n;
    if ((v = json_object_get(body, "id")) &&
        (jx_string(v, "/id", &s, e) ||
         ((!*s || strlen(s) > 63) &&
          err_set(e, ERR_BAD_MEMBER, "/id", "an id has 1 to 63 characters"))))
        return e->code;
    if ((v = json_object_get(body, "version")) && jx_int(v, "/version", 1, (1LL << 53) - 1, &n, e))
        return e->code;
    if ((v = json_object_get(body, "seed")) && !json_is_null(v) &&
        jx_int(v, "/seed", 0, (1LL << 53) - 1, &n, e))
        return e->code;
    if ((v = json_object_get(body, "variant"))) {
        const char *in_state = json_string_value(json_object_get(state, "variant"));
        if (jx_string(v, "/variant", &s, e))
            return e->code;
        if (!game_has_variant(ops, s))
            return err_set(e, ERR_BAD_MEMBER, "/variant", "unknown variant '%s' of %s", s,
                           ops->name);
        if (in_state && strcmp(in_state, s) != 0)
            return err_set(e, ERR_BAD_MEMBER, "/variant",
                           "the export says variant '%s', its state '%s'", s, in_state);
    }
    return 0;
}

/* The export's member `name` ("explanations", "reasoning"), when there:
 * {"<n>": "text"} with n a play's number, each text up to 1000 bytes. */
static int import_notes(const json_t *body, const char *name, game_err *e)
{
    const json_t *notes = json_object_get(body, name);
    char where[32], p[96];
    snprintf(where, sizeof where, "/%s", name);
    if (!notes)
        return 0;
    if (jx_object(notes, where, e))
        return e->code;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)notes, k, v) {
        char *end;
        jx_ptr_key(p, sizeof p, where, k);
        long n = strtol(k, &end, 10);
        if (!*k || *end || n < 0 || n > 10000000)
            return err_set(e, ERR_BAD_MEMBER, p, "a key is the number n of a play");
        if (!json_is_string(v) || strlen(json_string_value(v)) > 1000)
            return err_set(e, ERR_BAD_MEMBER, p, "%s is a string of up to 1000 bytes",
                           strcmp(name, "reasoning") ? "an explanation" : "a bot's reasoning");
    }
    return 0;
}

/* Every key of notes' member `name` names a play up to `top`, the last of
 * the imported history; else ERR_BAD_MEMBER naming the first that does not. */
static int notes_within(const json_t *notes, const char *name, long top, game_err *e)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(notes, name), k, v) {
        if (strtol(k, NULL, 10) > top) {
            char where[32], p[96];
            snprintf(where, sizeof where, "/%s", name);
            jx_ptr_key(p, sizeof p, where, k);
            return err_set(e, ERR_BAD_MEMBER, p, "the imported history has no play %s", k);
        }
    }
    return 0;
}

static int import_json(const api_config *cfg, const http_req *req, idem_ticket *key,
                       json_t *body, http_res *res, game_err *e)
{
    static const char *const allowed[] = {"format", "id", "game", "variant", "seed",
                                          "version", "spectators", "seats", "state",
                                          "explanations", "reasoning", NULL};
    const char *gname, *fmt;
    if (jx_object(body, "", e) || reject_unknown(body, allowed, "", e) ||
        jx_string(json_object_get(body, "game"), "/game", &gname, e))
        return e->code;
    if (json_object_get(body, "format") &&
        (jx_string(json_object_get(body, "format"), "/format", &fmt, e) ||
         (strcmp(fmt, "json") != 0 &&
          err_set(e, ERR_BAD_MEMBER, "/format", "only the json export is imported as JSON "
                  "(send other formats as text/plain)"))))
        return e->code;
    const game_ops *ops = game_find(gname);
    if (!ops)
        return err_set(e, ERR_NOT_FOUND, NULL, "unknown game type '%s' (see GET /rules)", gname);
    const json_t *state = json_object_get(body, "state");
    if (import_notes(body, "explanations", e) || import_notes(body, "reasoning", e))
        return e->code;
    if (jx_object(state, "/state", e) || jx_array(json_object_get(body, "seats"), "/seats",
                                                  (size_t)ops->min_players,
                                                  (size_t)ops->max_players, e) ||
        import_seats(json_object_get(body, "seats"), e) || import_header(ops, body, state, e))
        return e->code;
    json_t *notes = json_pack("{s:O*,s:O*}", "explanations", json_object_get(body, "explanations"),
                              "reasoning", json_object_get(body, "reasoning"));
    void *st = calloc(1, ops->state_size);
    json_t *seats = json_array(), *players = export_players(json_object_get(body, "seats"));
    char tokens[GAME_MAX_SEATS][32] = {{0}};
    int rc = st ? ops->decode(st, state, e) : err_set(e, ERR_INTERNAL, NULL, "out of memory");
    if (rc == ERR_BAD_MEMBER)
        err_prefix(e, "/state");
    if (!rc)
        rc = parse_players(ops, players, "/seats", seats, tokens, e);
    if (!rc) { /* notes of plays of the imported history only */
        json_t *h = ops->history(st, SEAT_ADMIN);
        json_t *last = json_array_get(h, json_array_size(h) - 1);
        long top = last ? (long)json_integer_value(json_object_get(last, "n")) : -1;
        json_decref(h);
        rc = notes_within(notes, "explanations", top, e) || notes_within(notes, "reasoning", top, e)
                 ? ERR_BAD_MEMBER
                 : 0;
    }
    game_status gs;
    if (!rc) {
        ops->status(st, &gs);
        if ((int)json_array_size(seats) != gs.nseats)
            rc = err_set(e, ERR_BAD_MEMBER, "/seats", "the state has %d seats, seats lists %zu",
                         gs.nseats, json_array_size(seats));
    }
    if (!rc) {
        const char *variant = json_string_value(json_object_get(state, "variant"));
        if (!variant || !game_has_variant(ops, variant))
            variant = ops->variants[0];
        json_t *seed = json_object_get(body, "seed");
        const json_t *sp = json_object_get(body, "spectators");
        const char *spectators = json_string_value(sp);
        if (sp && (!spectators || (strcmp(spectators, "all") && strcmp(spectators, "public"))))
            rc = err_set(e, ERR_BAD_MEMBER, "/spectators", "expected \"public\" or \"all\"");
        else
            rc = store_new_game(cfg, req, key, ops, variant, seed ? seed : json_null(), 1,
                                spectators, NULL, st, seats, tokens, NULL, notes, res, e);
    }
    json_decref(notes);
    json_decref(seats);
    json_decref(players);
    free(st);
    return rc;
}

static int import_text(const api_config *cfg, const http_req *req, idem_ticket *key,
                       http_res *res, game_err *e)
{
    char gq[40];
    const char *only = http_req_query(req, "game", gq, sizeof gq);
    if (only && !game_find(only))
        return err_set(e, ERR_NOT_FOUND, NULL, "unknown game type '%s' (see GET /rules)", only);
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        if (!ops->import_text || (only && strcmp(only, ops->name) != 0))
            continue;
        void *st = calloc(1, ops->state_size);
        json_t *players = NULL, *warnings = NULL;
        int rc = st ? ops->import_text(st, req->body, req->body_len, &players, &warnings, e)
                    : err_set(e, ERR_INTERNAL, NULL, "out of memory");
        if (rc == ERR_NOT_FOUND) {
            free(st);
            continue;
        }
        json_t *seats = json_array();
        char tokens[GAME_MAX_SEATS][32] = {{0}};
        if (!rc)
            rc = parse_players(ops, players, "/players", seats, tokens, e);
        if (!rc) {
            json_t *blob = ops->encode(st);
            const char *variant = json_string_value(json_object_get(blob, "variant"));
            if (!variant || !game_has_variant(ops, variant))
                variant = ops->variants[0];
            rc = store_new_game(cfg, req, key, ops, variant, json_null(), 1, NULL, NULL, st, seats,
                                tokens, warnings ? warnings : json_array(), NULL, res, e);
            json_decref(blob);
        }
        json_decref(seats);
        json_decref(players);
        json_decref(warnings);
        free(st);
        return rc;
    }
    return err_set(e, ERR_BAD_MEMBER, "",
                   "no game recognises this text as a saved game (send a JSON export as "
                   "application/json, or a saved game's text as text/plain)");
}

int h_import(const api_config *cfg, const http_req *req, const route_match *m,
             json_t *body, http_res *res)
{
    game_err e = {0};
    int rc = room_for_games(cfg, res, &e);
    if (!rc)
        rc = body ? import_json(cfg, req, m->idem, body, res, &e)
                  : import_text(cfg, req, m->idem, res, &e);
    if (rc && !res->status)
        http_res_problem(res, req, rc, &e, NULL);
    return res->status;
}

/* --- one game ------------------------------------------------------------- */

static void etag(http_res *res, int64_t v)
{
    http_res_header(res, "ETag", "\"%lld\"", (long long)v);
}

/* Parse an entity tag list ("3", W/"3", 3, *) and say whether it names v. */
static int tag_matches(const char *h, int64_t v)
{
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)v);
    while (h && *h) {
        while (*h == ' ' || *h == ',')
            h++;
        if (*h == '*')
            return 1;
        if (h[0] == 'W' && h[1] == '/')
            h += 2;
        if (*h == '"')
            h++;
        size_t n = strcspn(h, "\", ");
        if (n == strlen(want) && strncmp(h, want, n) == 0)
            return 1;
        h += n;
        while (*h == '"' || *h == ' ')
            h++;
        if (*h && *h != ',')
            h++;
    }
    return 0;
}

/* An If-Match that does not name `version`: 1 with the 412 (and the
 * current version) in res; 0 when there is none or it matches. */
static int stale(const http_req *req, int64_t version, http_res *res)
{
    const char *im = http_req_header(req, "If-Match");
    if (!im || tag_matches(im, version))
        return 0;
    game_err e = {0};
    err_set(&e, ERR_STALE, NULL, "If-Match %s is not the current version %lld", im,
            (long long)version);
    http_res_problem(res, req, ERR_STALE, &e, json_pack("{s:I}", "version", (json_int_t)version));
    return 1;
}

int query_long(const http_req *req, const char *name, long lo, long hi, long *out,
               int *given, http_res *res)
{
    char buf[32];
    const char *v = http_req_query(req, name, buf, sizeof buf);
    *given = v != NULL;
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) {
        game_err e = {0};
        err_set(&e, ERR_BAD_QUERY, NULL, "%s must be a whole number from %ld to %ld (got '%.20s')",
                name, lo, hi, v);
        http_res_problem(res, req, ERR_BAD_QUERY, &e, json_pack("{s:s}", "parameter", name));
        return ERR_BAD_QUERY;
    }
    *out = x;
    return 0;
}

/* GET /games/{id}?at=N: the caller's view just after play N, rebuilt from
 * the origin and the log. A person sees what they could see then; once the
 * game is over everyone sees everything, at every N. */
static int game_at(const api_config *cfg, const http_req *req, game_ctx *c, long at,
                   http_res *res)
{
    game_err e = {0};
    game_status gs;
    c->ops->status(c->st, &gs);
    void *st = malloc(c->ops->state_size);
    long origin_last = -1, log_last = -1;
    int rc = st ? ctx_rebuild(cfg, c->ops, c->row.id, at, st, &origin_last, &log_last, &e)
                : err_set(&e, ERR_INTERNAL, NULL, "out of memory");
    if (!rc && (at > log_last || (origin_last >= 0 && at < origin_last))) {
        if (at > log_last)
            err_set(&e, ERR_BAD_QUERY, NULL, "at: this game has no play %ld yet (its last is %ld)",
                    at, log_last);
        else
            err_set(&e, ERR_BAD_QUERY, NULL,
                    "at: this game's log starts after play %ld (the plays before it came "
                    "with its origin: an import or an older store)", origin_last);
        http_res_problem(res, req, ERR_BAD_QUERY, &e, json_pack("{s:s}", "parameter", "at"));
        free(st);
        return ERR_BAD_QUERY;
    }
    if (rc) {
        free(st);
        return http_res_fail(res, req, &e);
    }
    if (gs.over)
        c->ops->reveal(st);
    etag(res, c->row.version);
    state_text view;
    json_t *doc = game_doc(c, st, &view);
    json_object_set_new(doc, "at", json_integer(at));
    res_state(res, 200, doc, &view);
    free(st);
    return 0;
}

int h_game_get(const api_config *cfg, const http_req *req,
               const route_match *m, json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    game_ctx c = {0};
    long at = -1;
    int has_at;
    if (query_long(req, "at", -1, 100000000, &at, &has_at, res))
        goto done;
    if (ctx_load(cfg, req, m->params[0], &c, &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    if (has_at) {
        game_at(cfg, req, &c, at, res);
        goto done;
    }
    const char *inm = http_req_header(req, "If-None-Match");
    etag(res, c.row.version);
    if (inm && tag_matches(inm, c.row.version)) {
        http_res_raw(res, 304, NULL, NULL, 0);
    } else {
        state_text view;
        json_t *doc = game_doc(&c, c.st, &view);
        res_state(res, 200, doc, &view);
    }
done:
    ctx_free(&c);
    return res->status;
}

/* Seats played by a person (not a bot). */
static int persons(const json_t *meta)
{
    int n = 0;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "seats"), i, s)
        n += json_object_get(s, "bot") == NULL;
    return n;
}

/* DELETE ends the game for everyone: the admin may, and a person who is the
 * only person at the table; at a table with other people a person resigns
 * instead (POST /games/{id}/resign). */
int h_game_delete(const api_config *cfg, const http_req *req,
                  const route_match *m, json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    game_ctx c;
    int rc = ctx_load(cfg, req, m->params[0], &c, &e);
    if (!rc && c.seat == SEAT_SPECTATOR)
        rc = err_set(&e, ERR_UNAUTHORIZED, NULL,
                     "deleting a game needs the seat token of its only person or the admin token");
    if (!rc && c.seat >= 0 && persons(c.meta) > 1)
        rc = err_set(&e, ERR_FORBIDDEN, NULL,
                     "other people play at this table: only the admin deletes it; "
                     "leave it with POST /games/%s/resign (a bot takes your seat)", c.row.id);
    if (!rc && (rc = store_delete(cfg->store, c.row.id)))
        err_set(&e, rc, NULL, "the game could not be deleted");
    if (rc) {
        http_res_fail(res, req, &e);
        goto done;
    }
    http_res_raw(res, 204, NULL, NULL, 0);
done:
    ctx_free(&c);
    return res->status;
}

/* POST /games/{id}/resign: the caller's seat is played by the game's
 * strongest bot from now on (every game's rules allow a seat to be played by
 * a bot); the game goes on for the others. Replies as a play does. */
int h_resign(const api_config *cfg, const http_req *req, const route_match *m,
             json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    game_ctx c;
    json_t *applied = json_array(), *whos = json_array();
    game_status gs;
    int rc = ctx_load(cfg, req, m->params[0], &c, &e);
    if (rc)
        goto done;
    c.ops->status(c.st, &gs);
    if ((rc = ctx_meta_own(&c))) {
        err_set(&e, rc, NULL, "out of memory");
        goto done;
    }
    json_t *seat = json_array_get(json_object_get(c.meta, "seats"), (size_t)c.seat);
    if (c.resigned)
        rc = err_set(&e, ERR_FORBIDDEN, NULL, "you resigned this seat already: a bot plays it");
    else if (c.seat == SEAT_SPECTATOR)
        rc = err_set(&e, ERR_UNAUTHORIZED, NULL, "resigning needs your seat token");
    else if (c.seat == SEAT_ADMIN)
        rc = err_set(&e, ERR_FORBIDDEN, NULL, "the admin token has no seat to resign");
    else if (json_object_get(seat, "bot"))
        rc = err_set(&e, ERR_FORBIDDEN, NULL, "a bot plays this seat: it has resigned already");
    else if (gs.over)
        rc = err_set(&e, ERR_GAME_OVER, NULL, "the game is over");
    if (rc)
        goto done;
    const char *bot = c.ops->bots[0].name;
    json_object_set_new(seat, "bot", json_string(bot));
    json_object_set_new(seat, "resigned", json_true());
    c.meta_changed = 1;
    if ((rc = ctx_run_bots(c.ops, c.st, c.meta, applied, whos, &e)))
        goto done;
    if (ctx_sees_reasoning(c.ops, c.st, c.seat))
        ctx_show_reasoning(applied, whos);
    http_res ok = {0};
    etag(&ok, c.row.version + 1);
    state_text view;
    res_state(&ok, 200,
              json_pack("{s:I,s:i,s:s,s:O,s:o,s:o}", "version", (json_int_t)c.row.version + 1,
                        "resigned", c.seat, "bot", bot, "applied", applied, "state",
                        state_value(c.ops, c.st, c.seat, &view), "status",
                        ctx_status_json(c.ops, c.st)),
              &view);
    rc = answered(cfg, req, m->idem, ctx_save(cfg, &c, applied, whos, m->idem, &ok), &ok, res);
    if (rc == ERR_CONFLICT)
        err_set(&e, rc, NULL, "the game changed meanwhile; retry");
    else if (rc)
        ctx_store_fail(&e, rc, "the resignation");
done:
    if (rc)
        http_res_fail(res, req, &e);
    ctx_free(&c);
    json_decref(applied);
    json_decref(whos);
    return res->status;
}

/* A page of legal plays (GET /games/{id}/legal; an illegal play's 422 its first). */
enum { LEGAL_LIMIT = 1000, LEGAL_LIMIT_MAX = 5000 };

int h_plays_post(const api_config *cfg, const http_req *req,
                 const route_match *m, json_t *body, http_res *res)
{
    game_err e = {0};
    game_ctx c;
    json_t *applied = json_array(), *whos = json_array(), *rec = NULL;
    static const char *const allowed[] = {"play", NULL};
    int rc = ctx_load(cfg, req, m->params[0], &c, &e);
    if (rc)
        goto done;
    if (c.seat == SEAT_SPECTATOR) {
        rc = err_set(&e, ERR_UNAUTHORIZED, NULL, "playing needs your seat token");
        goto done;
    }
    if (c.seat == SEAT_ADMIN) {
        rc = err_set(&e, ERR_FORBIDDEN, NULL, "the admin token has no seat to play from");
        goto done;
    }
    if (stale(req, c.row.version, res))
        goto done;
    if ((rc = jx_object(body, "", &e)) || (rc = reject_unknown(body, allowed, "", &e)))
        goto done;
    const json_t *play = json_object_get(body, "play");
    if (!play) {
        rc = err_set(&e, ERR_BAD_MEMBER, "/play", "required member 'play' is missing");
        goto done;
    }
    rc = game_apply(c.ops, c.st, c.seat, play, &rec, &e);
    if (rc == ERR_BAD_MEMBER)
        err_prefix(&e, "/play");
    if (rc == ERR_ILLEGAL) {
        size_t total; /* the first page of GET /legal's, and the whole list's length */
        json_t *legal = game_legal_page(c.ops, c.st, c.seat, 0, LEGAL_LIMIT, &total);
        http_res_problem(res, req, rc, &e,
                         json_pack("{s:o,s:I}", "legal", legal, "legal_total", (json_int_t)total));
        goto done;
    }
    if (rc)
        goto done;
    json_array_append_new(applied, rec);
    json_array_append_new(whos, json_pack("{s:i}", "kind", STORE_PERSON));
    if ((rc = ctx_run_bots(c.ops, c.st, c.meta, applied, whos, &e)))
        goto done;
    if (ctx_sees_reasoning(c.ops, c.st, c.seat))
        ctx_show_reasoning(applied, whos);
    http_res ok = {0};
    etag(&ok, c.row.version + 1);
    state_text view;
    res_state(&ok, 200,
              json_pack("{s:I,s:O,s:o,s:o}", "version", (json_int_t)c.row.version + 1, "applied",
                        applied, "state", state_value(c.ops, c.st, c.seat, &view), "status",
                        ctx_status_json(c.ops, c.st)),
              &view);
    int64_t was = c.row.version;
    rc = answered(cfg, req, m->idem, ctx_save(cfg, &c, applied, whos, m->idem, &ok), &ok, res);
    if (rc == ERR_CONFLICT) {
        err_set(&e, rc, NULL, "the game changed while this play was being applied; reload and retry");
        http_res_problem(res, req, rc, &e, json_pack("{s:I}", "version", (json_int_t)was + 1));
        goto done;
    }
    if (rc)
        ctx_store_fail(&e, rc, "the play");
done:
    if (rc && !res->status) /* not answered with its own members above */
        http_res_fail(res, req, &e);
    ctx_free(&c);
    json_decref(applied);
    json_decref(whos);
    return res->status;
}

/* DELETE /games/{id}/plays/{n}: the seat to move takes back play n, the
 * game's last, its own, made in the turn it is still playing, when the
 * game allows it of that play (game.h: undoable; docs/api.md "Taking a
 * play back"); n is the play's record's "n" (or "last"). The position is
 * rebuilt from the origin and the log up to play n - 1 (the game needs no
 * inverse of its plays); the store deletes
 * play n and moves the version on in one write (store.h: rewind), and the
 * event streams number the events after n - 1 again (api.h: "Plays taken
 * back"). One play a request: the newest first, as a stack. Replies as a
 * play does, with the play taken back in "undone". */
int h_play_delete(const api_config *cfg, const http_req *req, const route_match *m,
                  json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    game_ctx c;
    store_play *rows = NULL;
    int k = 0;
    void *before = NULL;
    json_t *play = NULL;
    char *end;
    int last = strcmp(m->params[1], "last") == 0; /* the game's last play, whatever its number */
    long n = last ? 0 : strtol(m->params[1], &end, 10);
    if (!last && (!*m->params[1] || *end || n < 0 || n > 100000000)) {
        err_set(&e, ERR_NOT_FOUND, NULL, "no play '%.20s': a play's number (its record's \"n\") "
                "is a whole number from 0, or \"last\"", m->params[1]);
        http_res_fail(res, req, &e);
        return res->status;
    }
    int rc = ctx_load(cfg, req, m->params[0], &c, &e);
    if (rc)
        goto done;
    game_status gs;
    c.ops->status(c.st, &gs);
    if (c.seat == SEAT_SPECTATOR) {
        rc = err_set(&e, ERR_UNAUTHORIZED, NULL, "taking a play back needs your seat token");
        goto done;
    }
    if (c.seat == SEAT_ADMIN || c.resigned) {
        rc = err_set(&e, ERR_FORBIDDEN, NULL, c.resigned ? "you resigned this seat: a bot plays it"
                                                         : "the admin token has no seat");
        goto done;
    }
    if (stale(req, c.row.version, res))
        goto done;
    if (!c.ops->undoable) {
        rc = err_set(&e, ERR_NO_UNDO, NULL, "%s never takes a play back", c.ops->title);
        goto done;
    }
    if (gs.over) {
        rc = err_set(&e, ERR_GAME_OVER, NULL, "the game is over: its plays stand");
        goto done;
    }
    /* play n and the one after it, if any; or the last few (status's count
     * of plays is the history's length, whether its records count from 0
     * or 1, and a Phazed play may log skipped turns after it) and the
     * newest of them */
    rc = last ? store_plays(cfg->store, c.row.id, gs.plays - 16 > -1 ? gs.plays - 16 : -1, 0, 0,
                            &rows, &k)
              : store_plays(cfg->store, c.row.id, n - 1, 2, 0, &rows, &k);
    if (rc) {
        err_set(&e, rc, NULL, "the store could not read the game's plays");
        goto done;
    }
    const store_play *row = k ? &rows[last ? k - 1 : 0] : NULL;
    if (row && last)
        n = row->n;
    if (!row || row->n != n) {
        rc = last ? err_set(&e, ERR_NOT_FOUND, NULL, "this game has no play in its log yet")
                  : err_set(&e, ERR_NOT_FOUND, NULL, "this game has no play %ld in its log (taken "
                            "back already, or not made yet)", n);
        goto done;
    }
    if (!last && k > 1)
        rc = err_set(&e, ERR_NO_UNDO, NULL, "only the game's last play can be taken back, and play "
                     "%ld came after play %ld", rows[1].n, n);
    else if (row->seat != c.seat)
        rc = err_set(&e, ERR_NO_UNDO, NULL, "play %ld was player %d's, not yours", n, row->seat + 1);
    else if (row->kind != STORE_PERSON)
        rc = err_set(&e, ERR_NO_UNDO, NULL, "play %ld was %s, not a person's choice", n,
                     row->kind == STORE_BOT ? "a bot's" : "forced (no other play was possible)");
    else if (gs.to_move != c.seat)
        rc = err_set(&e, ERR_NO_UNDO, NULL, "your turn is over: its plays stand");
    if (rc)
        goto done;
    json_error_t je;
    long origin_last = -1, log_last = -1;
    if (!(play = json_loads(row->play ? row->play : "", 0, &je)) ||
        !(before = calloc(1, c.ops->state_size))) {
        rc = err_set(&e, ERR_INTERNAL, NULL, "play %ld could not be read back", n);
        goto done;
    }
    if ((rc = ctx_rebuild(cfg, c.ops, c.row.id, n - 1, before, &origin_last, &log_last, &e)))
        goto done;
    char why[200] = "";
    if (origin_last >= n || !c.ops->undoable(before, c.seat, play, why, sizeof why)) {
        rc = origin_last >= n
                 ? err_set(&e, ERR_NO_UNDO, NULL, "play %ld came with the game's origin (an import)", n)
                 : err_set(&e, ERR_NO_UNDO, NULL, "play %ld cannot be taken back: %s", n, why);
        goto done;
    }
    /* the point: how many events the game has without play n (a spectator's
     * count: a game's events are one a play for every reader) */
    json_t *kept = c.ops->events ? c.ops->events(before, SEAT_SPECTATOR, 0)
                                 : c.ops->history(before, SEAT_SPECTATOR);
    long point = (long)json_array_size(kept);
    json_decref(kept);
    if ((rc = ctx_meta_own(&c)) || (rc = undo_mark(c.meta, point))) {
        err_set(&e, rc, NULL, "out of memory");
        goto done;
    }
    char *meta = json_out(c.meta, NULL);
    unsigned char *snap = NULL;
    size_t len = 0;
    rc = meta ? snap_pack(c.ops, c.row.id, c.row.version + 1, before, &snap, &len) : ERR_INTERNAL;
    if (!rc)
        rc = cfg->store->vt->rewind(cfg->store, c.row.id, c.row.version, meta, snap, len, n - 1);
    free(snap);
    free(meta);
    if (rc == ERR_CONFLICT) {
        err_set(&e, rc, NULL, "the game changed while the play was being taken back; reload and retry");
        http_res_problem(res, req, rc, &e, json_pack("{s:I}", "version", (json_int_t)c.row.version + 1));
        goto done;
    }
    if (rc) {
        ctx_store_fail(&e, rc, "the take-back");
        goto done;
    }
    c.row.version++;
    notify_game(c.row.id); /* its streams wake and number its events again */
    json_t *undone = json_pack("{s:I,s:i,s:O}", "n", (json_int_t)n, "seat", c.seat, "play", play);
    etag(res, c.row.version);
    state_text view;
    res_state(res, 200,
              json_pack("{s:I,s:o,s:o,s:o}", "version", (json_int_t)c.row.version, "undone", undone,
                        "state", state_value(c.ops, before, c.seat, &view), "status",
                        ctx_status_json(c.ops, before)),
              &view);
done:
    if (rc && !res->status)
        http_res_fail(res, req, &e);
    json_decref(play);
    free(before);
    store_plays_free(rows, k);
    ctx_free(&c);
    return res->status;
}

/* GET handlers that only read: load, authenticate, answer. 0 with c
 * loaded, or ctx_load's error with its problem in res; either way the
 * caller's done: path frees c. */
static int load_or_fail(const api_config *cfg, const http_req *req,
                        const route_match *m, game_ctx *c, http_res *res)
{
    game_err e = {0};
    int rc = ctx_load(cfg, req, m->params[0], c, &e);
    if (rc)
        http_res_fail(res, req, &e);
    return rc;
}

json_t *page(json_t *list, long after, long limit, const char *after_member,
             const http_req *req, http_res *res)
{
    json_t *out = json_array(), *x;
    size_t i;
    long last = after;
    int more = 0;
    json_array_foreach(list, i, x) {
        const json_t *jn = json_object_get(x, after_member);
        long n = json_is_integer(jn) ? (long)json_integer_value(jn) : (long)i;
        if (n <= after)
            continue;
        if (limit > 0 && (long)json_array_size(out) == limit) {
            more = 1;
            break;
        }
        json_array_append(out, x);
        last = n;
    }
    /* an event's place after a take-back is its number and epoch ("n.e", api.h) */
    long epoch = more ? (long)json_integer_value(json_object_get(json_array_get(out, json_array_size(out) - 1), "e")) : 0;
    if (more && epoch)
        http_res_header(res, "Link", "<%s?after=%ld.%ld&limit=%ld>; rel=\"next\"", req->path,
                        last, epoch, limit);
    else if (more)
        http_res_header(res, "Link", "<%s?after=%ld&limit=%ld>; rel=\"next\"", req->path, last,
                        limit);
    json_decref(list);
    return out;
}

int h_plays_get(const api_config *cfg, const http_req *req,
                const route_match *m, json_t *body, http_res *res)
{
    (void)body;
    game_ctx c = {0};
    long after = -1, limit = 0;
    int given;
    if (query_long(req, "after", -1, 100000000, &after, &given, res) ||
        query_long(req, "limit", 1, 1000, &limit, &given, res))
        goto done;
    if (load_or_fail(cfg, req, m, &c, res))
        goto done;
    etag(res, c.row.version);
    json_t *plays = page(c.ops->history(c.st, c.reader), after, limit, "n", req, res);
    ctx_explain(cfg, c.row.id, plays, ctx_sees_reasoning(c.ops, c.st, c.reader));
    http_res_json(res, 200, json_pack("{s:I,s:o}", "version", (json_int_t)c.row.version,
                                      "plays", plays));
done:
    ctx_free(&c);
    return res->status;
}

/* The seat a question is about: the caller's, or for the admin the seat to move. */
static int subject_seat(const game_ctx *c)
{
    if (c->seat != SEAT_ADMIN)
        return c->seat;
    game_status gs;
    c->ops->status(c->st, &gs);
    return gs.to_move;
}

/* GET /games/{id}/legal pages the list (a Phazed hand can hold some 20,000
 * phase plays): `limit` plays from `offset`, the whole list's `total`, and
 * while more remain the link to the next page in `next` and a Link header.
 * A list that fits one page is answered as it always was, plus `total`. */
int h_legal(const api_config *cfg, const http_req *req, const route_match *m,
            json_t *body, http_res *res)
{
    (void)body;
    game_ctx c = {0};
    long offset = 0, limit = LEGAL_LIMIT;
    int given;
    if (query_long(req, "offset", 0, 100000000, &offset, &given, res) ||
        query_long(req, "limit", 1, LEGAL_LIMIT_MAX, &limit, &given, res))
        goto done;
    if (load_or_fail(cfg, req, m, &c, res))
        goto done;
    int seat = subject_seat(&c);
    size_t total = 0;
    json_t *plays = seat >= 0 ? game_legal_page(c.ops, c.st, seat, (size_t)offset, (size_t)limit, &total)
                              : json_array();
    json_t *doc = json_pack("{s:o,s:o,s:I}", "seat", seat >= 0 ? json_integer(seat) : json_null(),
                            "plays", plays, "total", (json_int_t)total);
    size_t end = (size_t)offset + json_array_size(plays);
    etag(res, c.row.version);
    if (end < total) {
        json_object_set_new(doc, "next", json_sprintf("%s?offset=%zu&limit=%ld", req->path, end, limit));
        http_res_header(res, "Link", "<%s?offset=%zu&limit=%ld>; rel=\"next\"", req->path, end, limit);
    }
    http_res_json(res, 200, doc);
done:
    ctx_free(&c);
    return res->status;
}

int h_hint(const api_config *cfg, const http_req *req, const route_match *m,
           json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    game_ctx c = {0};
    if (load_or_fail(cfg, req, m, &c, res))
        goto done;
    int rc, seat = subject_seat(&c);
    json_t *out = NULL;
    if (c.seat == SEAT_SPECTATOR)
        rc = err_set(&e, ERR_UNAUTHORIZED, NULL, "help mode needs your seat token");
    else if (seat < 0)
        rc = err_set(&e, ERR_GAME_OVER, NULL, "the game is over");
    else
        rc = game_hint(c.ops, c.st, seat, &out, &e);
    if (rc) {
        http_res_fail(res, req, &e);
    } else {
        json_object_set_new(out, "seat", json_integer(seat));
        etag(res, c.row.version);
        http_res_json(res, 200, out);
    }
done:
    ctx_free(&c);
    return res->status;
}

static int has_format(const game_ops *ops, const char *f)
{
    for (const char *const *x = ops->export_formats; x && *x; x++)
        if (strcmp(*x, f) == 0)
            return 1;
    return 0;
}

/* {"<n>": "<explanation>"} of a game's log (bots, forced plays, notes),
 * and into `reasoning` (NULL: not asked) the bots' own reasoning alike. */
static json_t *explanations(const api_config *cfg, const char *id, json_t *reasoning)
{
    store_play *p = NULL;
    int k = 0;
    json_t *out = json_object();
    if (store_plays(cfg->store, id, -2, 0, 1, &p, &k))
        return out;
    for (int i = 0; i < k; i++) {
        char key[24];
        snprintf(key, sizeof key, "%ld", p[i].n);
        if (p[i].explanation)
            json_object_set_new(out, key, json_string(p[i].explanation));
        json_t *why = reasoning ? ctx_logged_reasoning(&p[i]) : NULL;
        if (why)
            json_object_set_new(reasoning, key, why);
    }
    store_plays_free(p, k);
    return out;
}

int h_export(const api_config *cfg, const http_req *req, const route_match *m,
             json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    game_ctx c = {0};
    void *copy = NULL; /* a concealed copy of the state */
    char fmt[32];
    const char *f = http_req_query(req, "format", fmt, sizeof fmt);
    if (!f)
        f = "json";
    if (load_or_fail(cfg, req, m, &c, res))
        goto done;
    int rc = 0;
    if (strcmp(f, "json") != 0 && !has_format(c.ops, f)) {
        char known[160] = "json";
        for (const char *const *x = c.ops->export_formats; x && *x; x++)
            snprintf(known + strlen(known), sizeof known - strlen(known), ", %s", *x);
        rc = err_set(&e, ERR_BAD_QUERY, NULL, "%s games export as %s, not '%s'",
                     c.ops->name, known, f);
        http_res_problem(res, req, rc, &e, json_pack("{s:s}", "parameter", "format"));
        goto done;
    }
    game_status gs;
    c.ops->status(c.st, &gs);
    /* A seat may save the game while it runs, but not what it may not see
     * (the draw order, the RNG of future deals, the seed, other hands at a
     * closed table): it gets a copy concealed with a secret salt
     * (Croupier-Export: concealed), which resumes as a game of its own. A
     * game with no conceal op is not exported to seats mid-game. */
    int conceal = c.ops->conceal && c.seat >= 0 && !gs.over;
    const void *st = c.st;
    if (c.seat != SEAT_ADMIN && !gs.over && !conceal) {
        rc = err_set(&e, c.has_token ? ERR_FORBIDDEN : ERR_UNAUTHORIZED, NULL,
                     "the full record holds hidden cards: it is exported to the admin, "
                     "or to anyone once the game is over");
        http_res_fail(res, req, &e);
        goto done;
    }
    if (conceal) {
        uint64_t salt;
        copy = malloc(c.ops->state_size);
        if (!copy || rand_u64(&salt)) {
            rc = err_set(&e, ERR_INTERNAL, NULL, "no randomness to conceal the export with");
            http_res_fail(res, req, &e);
            goto done;
        }
        memcpy(copy, c.st, c.ops->state_size);
        c.ops->conceal(copy, c.seat, salt);
        st = copy;
    }
    if (strcmp(f, "json") == 0) {
        json_t *doc = json_pack("{s:s,s:s,s:s,s:s,s:o,s:I,s:o,s:o}", "format", "json",
                                "id", c.row.id, "game", json_string_value(json_object_get(c.meta, "game")),
                                "variant", json_string_value(json_object_get(c.meta, "variant")), "seed",
                                conceal ? json_null() : json_deep_copy(json_object_get(c.meta, "seed")),
                                "version", (json_int_t)c.row.version, "seats",
                                ctx_public_seats(c.meta), "state", c.ops->encode(st));
        if (ctx_spectators_all(c.meta))
            json_object_set_new(doc, "spectators", json_string("all"));
        /* the bots' reasoning where it shows no more than the export: to
         * the admin, and once the game is over (never a concealed copy) */
        json_t *why = !conceal && ctx_sees_reasoning(c.ops, c.st, c.seat) ? json_object() : NULL;
        json_t *ex = explanations(cfg, c.row.id, why);
        if (json_object_size(ex))
            json_object_set(doc, "explanations", ex);
        if (json_object_size(why))
            json_object_set(doc, "reasoning", why);
        json_decref(ex);
        json_decref(why);
        http_res_json(res, 200, doc);
    } else {
        char *text = NULL;
        size_t len = 0;
        const char *mt = "text/plain; charset=utf-8";
        int held = json_arena_hold(); /* text free() takes (json_arena.h) */
        rc = c.ops->export_as(st, f, &text, &len, &mt, &e);
        json_arena_resume(held);
        if (rc) {
            if (e.code == ERR_BAD_QUERY)
                http_res_problem(res, req, rc, &e, json_pack("{s:s}", "parameter", "format"));
            else
                http_res_fail(res, req, &e);
        } else {
            http_res_raw(res, 200, mt, text, len);
            http_res_header(res, "Content-Disposition", "attachment; filename=\"%s-%s.%s\"",
                            c.ops->name, c.row.id, strstr(mt, "json") ? "json" : "txt");
        }
        free(text);
    }
    if (conceal && !rc)
        http_res_header(res, "Croupier-Export", "concealed");
done:
    free(copy);
    ctx_free(&c);
    return res->status;
}
