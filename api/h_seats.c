/* h_seats.c: invites. A person's seat is taken by claiming its invite once.
 *
 * POST /games gives every person's seat an invite (a secret for a link) and
 * the game a host token (for whoever invites the people). Opening an invite
 * is POST /games/{id}/seats/{n}/claim with the secret in the body: it
 * exchanges the invite for a seat token minted there and then, so the seat
 * belongs to whoever claimed it alone (any earlier token of the seat stops
 * working, and with it every event stream and WebSocket opened with one);
 * the invite is spent, and opening it again is a 409 seat-taken naming the
 * seat and who invited. The host (or the admin) may issue a new invite for
 * a seat nobody claimed (the old link is replaced) or one whose person left
 * (resigned: a bot plays it until the new link is claimed), and, asked
 * explicitly ("replace": true), for a seat held by someone who is gone.
 *
 * Seat tokens, invites and the host token live only as SHA-256 hashes in
 * the game's meta (api/store.h); a claim or an invite is a compare-and-swap
 * commit of new meta (ctx_save), retried on a lost race, so of two claims
 * of one invite exactly one wins and the other is told the seat is taken.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "core/jsonx.h"

enum { CLAIM_TRIES = 8, SPENT_KEPT = 8 };

int seat_secret(json_t *obj, const char *member, char out[32], game_err *e)
{
    char h[65];
    if (rand_token(out, 32, 16))
        return err_set(e, ERR_INTERNAL, NULL, "no randomness");
    sha256_hex(out, h);
    json_object_set_new(obj, member, json_string(h));
    return 0;
}

int seats_invite(json_t *seats, char invites[][32], game_err *e)
{
    size_t i;
    json_t *s;
    json_array_foreach(seats, i, s) {
        if (i < GAME_MAX_SEATS && !json_object_get(s, "bot") &&
            seat_secret(s, "invite_sha256", invites[i], e))
            return e->code;
    }
    return 0;
}

/* Keep the hash of a spent invite (the newest SPENT_KEPT) in list `member`. */
static void spend(json_t *seat, const char *member, json_t *hash)
{
    json_t *list = json_object_get(seat, member);
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(seat, member, list);
    }
    json_array_append(list, hash);
    while (json_array_size(list) > SPENT_KEPT)
        json_array_remove(list, 0);
}

/* 1 when the hash of secret is in the list `member` of seat. */
static int spent(const json_t *seat, const char *member, const char *secret)
{
    char h[65];
    size_t i;
    json_t *x;
    int hit = 0;
    sha256_hex(secret, h);
    json_array_foreach(json_object_get(seat, member), i, x) {
        const char *s = json_string_value(x);
        hit |= s && secure_eq(s, h);
    }
    return hit;
}

/* The seat of path parameter `n` (digits, an existing seat), or NULL with a
 * 404 in e. */
static json_t *seat_of(const game_ctx *c, const char *n, game_err *e)
{
    char *end;
    long k = strtol(n, &end, 10);
    json_t *seat = NULL;
    if (*n >= '0' && *n <= '9' && !*end && k >= 0 && k < GAME_MAX_SEATS)
        seat = json_array_get(json_object_get(c->meta, "seats"), (size_t)k);
    if (!seat)
        err_set(e, ERR_NOT_FOUND, NULL, "game '%s' has no seat '%s'", c->row.id, n);
    return seat;
}

static const char *seat_name(const json_t *seat)
{
    const char *s = json_string_value(json_object_get(seat, "name"));
    return s ? s : "this";
}

static const char *host_name(const game_ctx *c)
{
    return json_string_value(json_object_get(json_object_get(c->meta, "host"), "name"));
}

/* "ask Ada, who invited you, for a new link" */
static const char *ask_host(const game_ctx *c, char *buf, size_t n)
{
    const char *host = host_name(c);
    if (host)
        snprintf(buf, n, "ask %s, who invited you, for a new link", host);
    else
        snprintf(buf, n, "ask whoever invited you for a new link");
    return buf;
}

/* 409 seat-taken (detail in e): with the seat, its name and who invited. */
static int taken(http_res *res, const http_req *req, const game_ctx *c, const json_t *seat,
                 int n, const game_err *e)
{
    const char *host = host_name(c);
    http_res_problem(res, req, ERR_SEAT_TAKEN, e,
                     json_pack("{s:i,s:s,s:o}", "seat", n, "name", seat_name(seat), "invited_by",
                               host ? json_string(host) : json_null()));
    return ERR_SEAT_TAKEN;
}

/* A new seat token for whoever claimed `seat` with `invite`: the invite is
 * spent, a resigned person's seat is a person's again. */
static int hand_over(json_t *seat, const char *invite, char token[32], game_err *e)
{
    char h[65];
    sha256_hex(invite, h);
    json_t *hash = json_string(h);
    spend(seat, "used_sha256", hash);
    json_decref(hash);
    json_object_del(seat, "invite_sha256");
    json_object_set_new(seat, "claimed", json_true());
    if (json_object_get(seat, "resigned")) {
        json_object_del(seat, "bot");
        json_object_del(seat, "resigned");
    }
    return seat_secret(seat, "token_sha256", token, e);
}

/* Commit the changed meta (no play): 0, ERR_CONFLICT (another write came
 * first: read the game again), or another error with its problem in res. */
static int save_meta(const api_config *cfg, game_ctx *c, const char *what, const http_req *req,
                     http_res *res)
{
    json_t *none = json_array();
    c->meta_changed = 1;
    int rc = ctx_save(cfg, c, none, NULL, NULL, NULL);
    json_decref(none);
    if (rc && rc != ERR_CONFLICT) {
        game_err e = {0};
        err_set(&e, rc, NULL, "the store could not save the %s", what);
        http_res_fail(res, req, &e);
    }
    return rc;
}

/* One attempt of a seat change on a freshly loaded game: it answers (and
 * returns 0 or the error it answered), or returns ERR_CONFLICT, unanswered,
 * when its commit lost a race. */
typedef int (*seat_change)(const api_config *cfg, const http_req *req, const route_match *m,
                           const json_t *body, http_res *res);

static int with_retries(const api_config *cfg, const http_req *req, const route_match *m,
                        const json_t *body, http_res *res, seat_change once)
{
    for (int attempt = 0; attempt < CLAIM_TRIES; attempt++) {
        int rc = once(cfg, req, m, body, res);
        if (rc != ERR_CONFLICT)
            return rc;
    }
    game_err e = {0};
    err_set(&e, ERR_CONFLICT, NULL, "the game kept changing meanwhile; retry");
    return http_res_fail(res, req, &e);
}

/* Load the game and find seat m->params[1]: 0, or the error answered. */
static int load_seat(const api_config *cfg, const http_req *req, const route_match *m,
                     game_ctx *c, json_t **seat, http_res *res)
{
    game_err e = {0};
    int rc = ctx_load(cfg, req, m->params[0], c, &e);
    if (!rc && (rc = ctx_meta_own(c)))
        err_set(&e, rc, NULL, "out of memory");
    if (!rc && !(*seat = seat_of(c, m->params[1], &e)))
        rc = e.code;
    if (rc) {
        ctx_free(c);
        http_res_fail(res, req, &e);
    }
    return rc;
}

static int claim_once(const api_config *cfg, const http_req *req, const route_match *m,
                      const json_t *body, http_res *res)
{
    const char *invite = json_string_value(json_object_get(body, "invite"));
    /* the invite is the credential: a token sent along plays no part */
    http_req anon = *req;
    anon.nheaders = 0;
    game_ctx c;
    game_err e = {0};
    json_t *seat = NULL;
    char token[32], ask[120];
    int n = atoi(m->params[1]);
    int rc = load_seat(cfg, &anon, m, &c, &seat, res);
    if (rc)
        return rc;
    if (!ctx_hash_is(seat, "invite_sha256", invite)) {
        if (spent(seat, "used_sha256", invite)) {
            err_set(&e, ERR_SEAT_TAKEN, NULL,
                    "%s's seat is taken: its invite link has been used already; %s",
                    seat_name(seat), ask_host(&c, ask, sizeof ask));
            rc = taken(res, req, &c, seat, n, &e);
        } else {
            if (spent(seat, "replaced_sha256", invite))
                rc = err_set(&e, ERR_FORBIDDEN, NULL,
                             "this invite link to %s's seat was replaced by a newer one; %s",
                             seat_name(seat), ask_host(&c, ask, sizeof ask));
            else
                rc = err_set(&e, ERR_FORBIDDEN, NULL, "this is not an invite to %s's seat",
                             seat_name(seat));
            http_res_fail(res, req, &e);
        }
    } else if ((rc = hand_over(seat, invite, token, &e))) {
        http_res_fail(res, req, &e);
    } else if (!(rc = save_meta(cfg, &c, "claim", req, res))) {
        http_res_header(res, "ETag", "\"%lld\"", (long long)c.row.version);
        http_res_json(res, 200, json_pack("{s:s,s:i,s:s,s:s,s:I}", "id", c.row.id, "seat", n, "name",
                                          seat_name(seat), "token", token, "version",
                                          (json_int_t)c.row.version));
    }
    ctx_free(&c);
    return rc;
}

int h_seat_claim(const api_config *cfg, const http_req *req, const route_match *m,
                 json_t *body, http_res *res)
{
    game_err e = {0};
    static const char *const allowed[] = {"invite", NULL};
    const char *invite = NULL;
    if (jx_object(body, "", &e) || reject_unknown(body, allowed, "", &e) ||
        jx_string(json_object_get(body, "invite"), "/invite", &invite, &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    if (strlen(invite) < 16 || strlen(invite) > 64) {
        err_set(&e, ERR_BAD_MEMBER, "/invite", "an invite is the secret of an invite link (16 to 64 characters)");
        http_res_fail(res, req, &e);
        goto done;
    }
    with_retries(cfg, req, m, body, res, claim_once);
done:
    return res->status;
}

static int invite_once(const api_config *cfg, const http_req *req, const route_match *m,
                       const json_t *body, http_res *res)
{
    game_ctx c;
    game_err e = {0};
    json_t *seat = NULL;
    char invite[32];
    game_status gs;
    int n = atoi(m->params[1]);
    int rc = load_seat(cfg, req, m, &c, &seat, res);
    if (rc)
        return rc;
    c.ops->status(c.st, &gs);
    if (!c.host && c.seat != SEAT_ADMIN)
        rc = err_set(&e, c.has_token ? ERR_FORBIDDEN : ERR_UNAUTHORIZED, NULL,
                     "a new invite is issued with the game's host token (POST /games "
                     "gave it to whoever created the game) or the admin token");
    else if (json_object_get(seat, "bot") && !json_object_get(seat, "resigned"))
        rc = err_set(&e, ERR_FORBIDDEN, NULL, "seat %d is a bot's: only a person's seat is invited", n);
    else if (gs.over)
        rc = err_set(&e, ERR_GAME_OVER, NULL, "the game is over: nobody is invited to it");
    if (rc) {
        http_res_fail(res, req, &e);
    } else if (json_object_get(seat, "claimed") && !json_object_get(seat, "resigned") &&
               !json_is_true(json_object_get(body, "replace"))) {
        err_set(&e, ERR_SEAT_TAKEN, NULL,
                "%s holds this seat (they claimed its invite); send {\"replace\": true} to give "
                "it to whoever opens the new link instead", seat_name(seat));
        rc = taken(res, req, &c, seat, n, &e);
    } else {
        json_t *old = json_object_get(seat, "invite_sha256");
        if (old)
            spend(seat, "replaced_sha256", old);
        if ((rc = seat_secret(seat, "invite_sha256", invite, &e)))
            http_res_fail(res, req, &e);
        else if (!(rc = save_meta(cfg, &c, "invite", req, res))) {
            http_res_header(res, "ETag", "\"%lld\"", (long long)c.row.version);
            http_res_json(res, 200, json_pack("{s:i,s:s,s:s,s:I}", "seat", n, "name", seat_name(seat),
                                              "invite", invite, "version", (json_int_t)c.row.version));
        }
    }
    ctx_free(&c);
    return rc;
}

int h_seat_invite(const api_config *cfg, const http_req *req, const route_match *m,
                  json_t *body, http_res *res)
{
    game_err e = {0};
    static const char *const allowed[] = {"replace", NULL};
    int replace = 0;
    if (jx_object(body, "", &e) || reject_unknown(body, allowed, "", &e) ||
        (json_object_get(body, "replace") &&
         jx_bool(json_object_get(body, "replace"), "/replace", &replace, &e))) {
        http_res_fail(res, req, &e);
        goto done;
    }
    with_retries(cfg, req, m, body, res, invite_once);
done:
    return res->status;
}
