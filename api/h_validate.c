/* h_validate.c: the stateless endpoints. POST /validate judges a play on a
 * full state sent in the body; /validate/<game>/<fn> and /play/<game>[/<fn>]
 * call a game's autograder functions with positional (array) or named
 * (object) arguments. No store is involved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "core/jsonx.h"
#include "json_arena.h"
#include "kit.h"

static int unknown_game(http_res *res, const http_req *req, const char *name)
{
    game_err e = {0};
    err_set(&e, ERR_NOT_FOUND, NULL, "unknown game type '%s' (see GET /rules)", name);
    return http_res_fail(res, req, &e);
}

int h_validate(const api_config *cfg, const http_req *req, const route_match *m,
               json_t *body, http_res *res)
{
    (void)cfg;
    (void)m;
    game_err e = {0};
    static const char *const allowed[] = {"game", "variant", "state", "play", "seat", NULL};
    const char *gname, *variant = NULL;
    void *st = NULL; /* the decoded state */
    if (jx_object(body, "", &e) || reject_unknown(body, allowed, "", &e) ||
        jx_string(json_object_get(body, "game"), "/game", &gname, &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    const game_ops *ops = game_find(gname);
    if (!ops) {
        unknown_game(res, req, gname);
        goto done;
    }
    if (json_object_get(body, "variant")) {
        if (jx_string(json_object_get(body, "variant"), "/variant", &variant, &e)) {
            http_res_fail(res, req, &e);
            goto done;
        }
        if (!game_has_variant(ops, variant)) {
            err_set(&e, ERR_BAD_MEMBER, "/variant", "unknown variant '%s' of %s", variant, ops->name);
            http_res_fail(res, req, &e);
            goto done;
        }
    }
    const json_t *state = json_object_get(body, "state");
    const json_t *play = json_object_get(body, "play");
    if (jx_object(state, "/state", &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    if (!play) {
        err_set(&e, ERR_BAD_MEMBER, "/play", "required member 'play' is missing");
        http_res_fail(res, req, &e);
        goto done;
    }
    const char *sv = json_string_value(json_object_get(state, "variant"));
    if (variant && sv && strcmp(variant, sv) != 0) {
        err_set(&e, ERR_BAD_MEMBER, "/variant", "variant '%s' does not match the state's '%s'",
                variant, sv);
        http_res_fail(res, req, &e);
        goto done;
    }
    st = calloc(1, ops->state_size);
    if (!st) {
        err_set(&e, ERR_INTERNAL, NULL, "out of memory");
        http_res_fail(res, req, &e);
        goto done;
    }
    int rc = ops->decode(st, state, &e);
    if (rc) {
        err_prefix(&e, "/state");
        http_res_fail(res, req, &e);
        goto done;
    }
    game_status gs;
    ops->status(st, &gs);
    long long seat = gs.to_move;
    if (json_object_get(body, "seat") &&
        (rc = jx_int(json_object_get(body, "seat"), "/seat", 0, gs.nseats - 1, &seat, &e))) {
        http_res_fail(res, req, &e);
        goto done;
    }
    game_verdict v = {0};
    rc = game_judge(ops, st, (int)seat, play, NULL, &v, &e);
    if (rc == ERR_GAME_OVER || rc == ERR_NOT_YOUR_TURN) {
        /* a verdict, not a failure: the play is not valid in that state */
        http_res_json(res, 200, json_pack("{s:b,s:b,s:s,s:s}", "valid", 0,
                                          "turn_ending", 0, "reason", e.detail,
                                          "rule", err_slug(rc)));
        goto done;
    }
    if (rc) {
        if (rc == ERR_BAD_MEMBER)
            err_prefix(&e, "/play");
        http_res_fail(res, req, &e);
        goto done;
    }
    json_t *out = json_pack("{s:b,s:b,s:s}", "valid", v.valid, "turn_ending",
                            v.turn_ending, "reason", v.reason);
    if (v.rule[0])
        json_object_set_new(out, "rule", json_string(v.rule));
    http_res_json(res, 200, out);
done:
    free(st);
    return res->status;
}

/* --- autograder functions -------------------------------------------------- */

static int nparams(const game_fn *f)
{
    int n = 0;
    while (f->params[n])
        n++;
    return n;
}

static int call_fn(const http_req *req, const game_ops *ops, const game_fn *f,
                   json_t *body, http_res *res)
{
    game_err e = {0};
    int np = nparams(f);
    json_t *args[16] = {0};
    char qv[32];
    const char *variant = http_req_query(req, "variant", qv, sizeof qv);
    int named = json_is_object(body);
    if (np > 16)
        return http_res_problem(res, req, ERR_INTERNAL, NULL, NULL);
    if (json_is_array(body)) {
        int n = (int)json_array_size(body);
        if (n > np) {
            char p[16];
            snprintf(p, sizeof p, "/%d", np);
            err_set(&e, ERR_BAD_MEMBER, p, "%s takes at most %d arguments, got %d",
                    f->signature, np, n);
            return http_res_fail(res, req, &e);
        }
        if (n < f->nrequired) {
            char p[16];
            snprintf(p, sizeof p, "/%d", n);
            err_set(&e, ERR_BAD_MEMBER, p, "missing argument %d '%s' of %s", n,
                    f->params[n], f->signature);
            return http_res_fail(res, req, &e);
        }
        for (int i = 0; i < n; i++)
            args[i] = json_array_get(body, (size_t)i);
    } else if (named) {
        const char *k;
        json_t *v;
        json_object_foreach(body, k, v) {
            int found = strcmp(k, "variant") == 0;
            for (int i = 0; i < np && !found; i++)
                if (strcmp(f->params[i], k) == 0) {
                    args[i] = v;
                    found = 1;
                }
            if (!found) {
                char p[160];
                jx_ptr_key(p, sizeof p, "", k);
                err_set(&e, ERR_BAD_MEMBER, p, "'%s' is not a parameter of %s", k, f->signature);
                return http_res_fail(res, req, &e);
            }
        }
        for (int i = 0; i < f->nrequired; i++)
            if (!args[i]) {
                char p[160];
                jx_ptr_key(p, sizeof p, "", f->params[i]);
                err_set(&e, ERR_BAD_MEMBER, p, "missing argument '%s' of %s",
                        f->params[i], f->signature);
                return http_res_fail(res, req, &e);
            }
        json_t *vm = json_object_get(body, "variant");
        if (vm && !(variant = json_string_value(vm))) {
            err_set(&e, ERR_BAD_MEMBER, "/variant", "variant must be a string");
            return http_res_fail(res, req, &e);
        }
    } else {
        err_set(&e, ERR_BAD_MEMBER, "",
                "the body is the function's arguments: a JSON array (positional) or "
                "an object keyed by parameter name");
        return http_res_fail(res, req, &e);
    }
    if (variant && !game_has_variant(ops, variant)) {
        int from_body = named && json_object_get(body, "variant");
        err_set(&e, from_body ? ERR_BAD_MEMBER : ERR_BAD_QUERY, from_body ? "/variant" : NULL,
                "unknown variant '%s' of %s", variant, ops->name);
        return http_res_problem(res, req, e.code, &e,
                                from_body ? NULL : json_pack("{s:s}", "parameter", "variant"));
    }
    json_t *result = NULL;
    int rc = f->call(args, variant, &result, NULL, &e);
    if (rc) {
        if (rc == ERR_BAD_MEMBER && named && e.pointer[0] == '/') {
            /* "/<index>/rest" -> "/<name>/rest" */
            char *end;
            long idx = strtol(e.pointer + 1, &end, 10);
            if (end != e.pointer + 1 && idx >= 0 && idx < np) {
                char p[sizeof e.pointer];
                jx_ptr_key(p, sizeof p, "", f->params[idx]);
                snprintf(p + strlen(p), sizeof p - strlen(p), "%s", end);
                memcpy(e.pointer, p, sizeof p);
            }
        }
        return http_res_fail(res, req, &e);
    }
    return http_res_json(res, 200, jx_obj(1, "result", result));
}

static int find_and_call(const http_req *req, const char *game, const char *kind,
                         const char *name, json_t *body, http_res *res)
{
    const game_ops *ops = game_find(game);
    if (!ops)
        return unknown_game(res, req, game);
    for (int i = 0; i < ops->nfns; i++)
        if (strcmp(ops->fns[i].kind, kind) == 0 && strcmp(ops->fns[i].name, name) == 0)
            return call_fn(req, ops, &ops->fns[i], body, res);
    game_err e = {0};
    err_set(&e, ERR_NOT_FOUND, NULL, "%s has no %s function '%s' (see GET /rules/%s)",
            ops->name, kind, name, ops->name);
    return http_res_fail(res, req, &e);
}

int h_fn_validate(const api_config *cfg, const http_req *req,
                  const route_match *m, json_t *body, http_res *res)
{
    (void)cfg;
    find_and_call(req, m->params[0], "validate", m->params[1], body, res);
    return res->status;
}

int h_fn_play(const api_config *cfg, const http_req *req, const route_match *m,
              json_t *body, http_res *res)
{
    (void)cfg;
    find_and_call(req, m->params[0], "play", "", body, res);
    return res->status;
}

int h_fn_play_named(const api_config *cfg, const http_req *req,
                    const route_match *m, json_t *body, http_res *res)
{
    (void)cfg;
    find_and_call(req, m->params[0], "play", m->params[1], body, res);
    return res->status;
}

/* --- the autograder kit ----------------------------------------------------- */

static int bad_parameter(http_res *res, const http_req *req, const char *name, const char *detail)
{
    game_err e = {0};
    err_set(&e, ERR_BAD_QUERY, NULL, "%s", detail);
    return http_res_problem(res, req, ERR_BAD_QUERY, &e, json_pack("{s:s}", "parameter", name));
}

/* GET /cases/{game}/{fn}?n=&seed=&variant=&format= (docs/autograder.md). */
int h_cases(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
            http_res *res)
{
    (void)cfg;
    (void)body;
    char *text = NULL; /* the rendered cases */
    const game_ops *ops = game_find(m->params[0]);
    if (!ops) {
        unknown_game(res, req, m->params[0]);
        goto done;
    }
    long n = 100, seed = 1;
    int given;
    char vbuf[32], fbuf[16];
    if (query_long(req, "n", 1, GAME_CASES_MAX, &n, &given, res) ||
        query_long(req, "seed", 0, (1L << 53) - 1, &seed, &given, res))
        goto done;
    const char *variant = http_req_query(req, "variant", vbuf, sizeof vbuf);
    const char *format = http_req_query(req, "format", fbuf, sizeof fbuf);
    if (variant && !game_has_variant(ops, variant)) {
        bad_parameter(res, req, "variant", "variant is one of the game's variants (GET /rules/{game})");
        goto done;
    }
    if (!kit_format_known(format)) {
        bad_parameter(res, req, "format", "format is jsonl, json or pytest");
        goto done;
    }
    const game_suite *s = game_suite_find(ops, m->params[1], variant);
    if (!s) {
        game_err e = {0};
        err_set(&e, ERR_NOT_FOUND, NULL, "%s has no suite of '%s'%s%s (docs/autograder.md lists them)",
                ops->name, m->params[1], variant ? " in variant " : "", variant ? variant : "");
        http_res_fail(res, req, &e);
        goto done;
    }
    size_t len;
    const char *media;
    game_err e = {0};
    /* thousands of drafts are made and dropped: plain malloc, not the
     * request's arena (which frees nothing before the request ends), and
     * json_dumps's text goes to free() (json_arena.h) */
    int held = json_arena_hold();
    int rc = kit_render(ops, s, (uint64_t)seed, (int)n, format, 0, &text, &len, &media, &e);
    json_arena_resume(held);
    if (rc) {
        http_res_fail(res, req, &e);
        goto done;
    }
    rc = http_res_raw(res, 200, media, text, len);
done:
    free(text);
    return res->status;
}
