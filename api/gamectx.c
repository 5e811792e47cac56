/* gamectx.c: load a stored game for one request, authenticate the caller
 * against its seats, let bots move, and compare-and-swap it back.
 *
 * Nothing is kept between requests: each request decodes the blob into a
 * fresh state, works on it, and writes it back only if the version it read is
 * still current. A failed request writes nothing.
 */
#include "api.h"
#include "core/jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctx_free(game_ctx *c)
{
    store_row_free(&c->row);
    json_decref(c->meta);
    free(c->st);
    memset(c, 0, sizeof *c);
}

int ctx_spectators_all(const json_t *meta)
{
    const char *s = json_string_value(json_object_get(meta, "spectators"));
    return s && strcmp(s, "all") == 0;
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
    sha256_hex(t, h);
    size_t i;
    json_t *seat;
    int found = -1;
    json_array_foreach(json_object_get(c->meta, "seats"), i, seat) {
        const char *sh = json_string_value(json_object_get(seat, "token_sha256"));
        if (sh && secure_eq(sh, h))
            found = (int)i;
    }
    if (found < 0)
        return err_set(e, ERR_UNAUTHORIZED, NULL,
                       "this token belongs to no seat of this game");
    c->seat = found;
    return 0;
}

static int auth(const api_config *cfg, const http_req *req, game_ctx *c,
                game_err *e)
{
    int rc = auth_seat(cfg, req, c, e);
    c->reader = c->seat == SEAT_SPECTATOR && ctx_spectators_all(c->meta) ? SEAT_OBSERVER : c->seat;
    return rc;
}

int ctx_load(const api_config *cfg, const http_req *req, const char *id,
             game_ctx *c, game_err *e)
{
    memset(c, 0, sizeof *c);
    int rc = store_get(cfg->store, id, &c->row);
    if (rc == ERR_NOT_FOUND)
        return err_set(e, ERR_NOT_FOUND, NULL, "no game with id '%s'", id);
    if (rc)
        return err_set(e, rc, NULL, "the store could not be read");
    c->ops = game_find(c->row.game);
    json_error_t je;
    c->meta = json_loads(c->row.meta, 0, &je);
    json_t *blob = json_loads(c->row.state, 0, &je);
    c->st = c->ops ? calloc(1, c->ops->state_size) : NULL;
    game_err de = {0};
    if (!c->ops || !c->meta || !blob || !c->st || c->ops->decode(c->st, blob, &de)) {
        json_decref(blob);
        return err_set(e, ERR_INTERNAL, NULL, "stored game '%s' is unreadable: %s",
                       id, de.detail);
    }
    json_decref(blob);
    return auth(cfg, req, c, e);
}

static const char *seat_bot(const json_t *meta, int seat)
{
    json_t *s = json_array_get(json_object_get(meta, "seats"), (size_t)seat);
    return json_string_value(json_object_get(s, "bot"));
}

int ctx_run_bots(const game_ops *ops, void *st, const json_t *meta,
                 json_t *applied, game_err *e)
{
    /* Bounded: a game has finitely many plays; the bound only guards bugs. */
    for (int guard = 0; guard < 100000; guard++) {
        json_t *rec = NULL;
        if (ops->autoplay(st, &rec)) {
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
        int rc = ops->bot(st, bot, &rec, expl, sizeof expl, e);
        if (rc)
            return rc;
        json_array_append_new(applied, rec);
    }
    return err_set(e, ERR_INTERNAL, NULL, "bots did not finish");
}

int ctx_save(const api_config *cfg, game_ctx *c)
{
    json_t *blob = c->ops->encode(c->st);
    char *state = blob ? json_dumps(blob, JSON_COMPACT) : NULL;
    char *meta = json_dumps(c->meta, JSON_COMPACT);
    json_decref(blob);
    int rc = (state && meta)
                 ? store_cas(cfg->store, c->row.id, c->row.version, meta, state)
                 : ERR_INTERNAL;
    free(state);
    free(meta);
    if (rc == 0)
        c->row.version++;
    return rc;
}

json_t *ctx_public_seats(const json_t *meta)
{
    json_t *out = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "seats"), i, s) {
        json_t *p = json_deep_copy(s);
        json_object_del(p, "token_sha256");
        json_array_append_new(out, p);
    }
    return out;
}

int reject_unknown(const json_t *obj, const char *const *allowed,
                   const char *base, game_err *e)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, k) == 0)
                ok = 1;
        if (!ok) {
            char p[160];
            jx_ptr_key(p, sizeof p, base, k);
            return err_set(e, ERR_BAD_MEMBER, p, "unknown member '%s'", k);
        }
    }
    return 0;
}

void ctx_notes_save(const api_config *cfg, const char *id, const json_t *applied)
{
    enum { MAXN = 512 };
    long n[MAXN];
    const char *text[MAXN];
    int k = 0;
    size_t i;
    json_t *rec;
    json_array_foreach(applied, i, rec) {
        const json_t *jn = json_object_get(rec, "n");
        const char *t = json_string_value(json_object_get(rec, "explanation"));
        if (json_is_integer(jn) && t && k < MAXN) {
            n[k] = (long)json_integer_value(jn);
            text[k++] = t;
        }
        if (k == MAXN) { /* flush a full batch */
            store_notes_add(cfg->store, id, n, text, k);
            k = 0;
        }
    }
    store_notes_add(cfg->store, id, n, text, k); /* best effort: see store.h */
}

void ctx_notes_merge(const api_config *cfg, const char *id, json_t *records)
{
    char *text = NULL;
    if (store_notes_get(cfg->store, id, &text) || !text)
        return;
    json_t *notes = json_loads(text, 0, NULL);
    free(text);
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec) {
        const json_t *jn = json_object_get(rec, "n");
        if (!json_is_integer(jn) || json_object_get(rec, "explanation"))
            continue;
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)json_integer_value(jn));
        json_t *t = json_object_get(notes, key);
        if (json_is_string(t))
            json_object_set(rec, "explanation", t);
    }
    json_decref(notes);
}
