/* router.c: api_handle(), the one entry point of every front end.
 *
 * Checks that apply to all routes happen here once: no token in the URL
 * (400), route and method (404, 405 + Allow), the CORS preflight, body size
 * (413), media type (415), JSON syntax and nesting depth (400), and for
 * the routes that create or change games the Idempotency-Key (api/idem.h:
 * a replay, 409, 422). Then the handler runs with the parsed body and
 * returns the status it answered; one that returns anything else gets a
 * 500 in its place (and a line on stderr). Paths
 * that match no API route are served from www/ (GET only). Every response
 * leaves with the browser-facing headers (CSP, X-Frame-Options,
 * Referrer-Policy, CORS when allowed).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "api.h"
#include "core/jsonx.h"
#include "json_arena.h"
#include "quota.h"

enum { JSON_MAX_DEPTH = 32 };

/* The API: nothing at all (a JSON reply opened as a page runs nothing; the
 * web page's policy is http_res_page_csp's, http.c). */
static const char CSP_API[] = "default-src 'none'; frame-ancestors 'none'";
/* What a cross-origin page may send and read (with --cors). */
static const char CORS_ALLOW_HEADERS[] = "Authorization, Content-Type, If-Match, If-None-Match, "
                                         "Idempotency-Key, X-Croupier-Import, Last-Event-ID";
static const char CORS_EXPOSE_HEADERS[] = "ETag, Location, Idempotent-Replayed, Retry-After";

/* Match "/games/{id}/plays" against a path; fill params. */
static int match(const char *pat, const char *path, route_match *m)
{
    m->nparams = 0;
    while (*pat && *path) {
        if (*pat != '/' || *path != '/')
            return 0;
        pat++;
        path++;
        size_t seg = strcspn(path, "/");
        if (*pat == '{') {
            const char *close = strchr(pat, '}');
            if (!close || seg == 0 || seg >= sizeof m->params[0] ||
                m->nparams >= ROUTE_MAX_PARAMS)
                return 0;
            memcpy(m->params[m->nparams], path, seg);
            m->params[m->nparams++][seg] = 0;
            pat = close + 1;
        } else {
            size_t pseg = strcspn(pat, "/");
            if (pseg != seg || strncmp(pat, path, seg) != 0)
                return 0;
            pat += pseg;
        }
        path += seg;
    }
    return *pat == 0 && *path == 0;
}

/* 1 when the media type of Content-Type `ct` (parameters ignored) is `type`. */
static int media_is(const char *ct, const char *type)
{
    if (!ct)
        return 0;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    size_t n = strcspn(ct, ";");
    while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
        n--;
    return n == strlen(type) && strncasecmp(ct, type, n) == 0;
}

/* The routes that create or change games (everything POSTed under /games,
 * and a shared replay's under /replays)
 * take application/json only: a cross-site form or a no-cors fetch can send
 * only text/plain, multipart/form-data or urlencoded bodies (or none typed),
 * so it cannot create, import or play a game. The stateless validators and
 * autograder functions also read `curl -d` (urlencoded) and untyped bodies
 * as JSON, as api.md's example sends them: they change nothing, and a
 * cross-site caller cannot read their answer. */
static int changes_state(const route *r)
{
    return strncmp(r->pattern, "/games", 6) == 0 ||
           strncmp(r->pattern, "/replays", 8) == 0; /* shared replays: moved, handed over */
}

static int json_media_type(const route *r, const char *ct)
{
    if (media_is(ct, "application/json"))
        return 1;
    if (changes_state(r))
        return 0;
    return !ct || !*ct || media_is(ct, "application/x-www-form-urlencoded");
}

int http_cors_origin_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 128)
        return 0;
    const char *h = strncasecmp(s, "https://", 8) == 0 ? s + 8
                  : strncasecmp(s, "http://", 7) == 0  ? s + 7
                                                       : NULL;
    if (!h || !*h)
        return 0;
    const char *p = h;
    if (*p == '[') { /* IPv6 literal */
        p++;
        while (isxdigit((unsigned char)*p) || *p == ':' || *p == '.')
            p++;
        if (*p++ != ']' || p - h < 4)
            return 0;
    } else {
        while (isalnum((unsigned char)*p) || *p == '-' || *p == '.')
            p++;
        if (p == h)
            return 0;
    }
    if (*p == ':') {
        const char *d = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        if (p == d || p - d > 5)
            return 0;
    }
    return *p == 0; /* no path, no trailing slash, no userinfo */
}

/* The request's Origin when it is the --cors origin (scheme and host are
 * case-insensitive; browsers send them in lower case and expect the same
 * bytes back), else NULL. */
static const char *cors_allowed(const api_config *cfg, const http_req *req)
{
    const char *o = cfg->cors_origin ? http_req_header(req, "Origin") : NULL;
    return o && strcasecmp(o, cfg->cors_origin) == 0 ? o : NULL;
}

static int header_index(const http_res *res, const char *name)
{
    for (int i = 0; i < res->nheaders; i++)
        if (strcasecmp(res->headers[i].name, name) == 0)
            return i;
    return -1;
}

static int has_header(const http_res *res, const char *name)
{
    return header_index(res, name) >= 0;
}

void http_res_browser(const api_config *cfg, const http_req *req, http_res *res)
{
    if (!has_header(res, "Content-Security-Policy"))
        http_res_header(res, "Content-Security-Policy", "%s", CSP_API);
    if (!has_header(res, "X-Frame-Options"))
        http_res_header(res, "X-Frame-Options", "DENY");
    if (!has_header(res, "Referrer-Policy"))
        http_res_header(res, "Referrer-Policy", "no-referrer");
    if (!cfg || !cfg->cors_origin)
        return; /* CORS off: not one Access-Control-* header, anywhere */
    int v = header_index(res, "Vary"); /* the answer depends on Origin: caches */
    if (v < 0) {
        http_res_header(res, "Vary", "Origin");
    } else if (!strcasestr(res->headers[v].value, "Origin")) {
        size_t n = strlen(res->headers[v].value);
        snprintf(res->headers[v].value + n, sizeof res->headers[v].value - n, ", Origin");
    }
    const char *o = req ? cors_allowed(cfg, req) : NULL;
    if (o && !has_header(res, "Access-Control-Allow-Origin")) {
        http_res_header(res, "Access-Control-Allow-Origin", "%s", o);
        http_res_header(res, "Access-Control-Expose-Headers", "%s", CORS_EXPOSE_HEADERS);
    }
}

/* A CORS preflight (OPTIONS with Origin and Access-Control-Request-Method)
 * from the --cors origin, on a path whose methods are `allow`: 204 with the
 * allow headers. 0 when it is not one (the caller answers 405 as for any
 * method a path does not define: the browser then refuses the request). */
static int preflight(const api_config *cfg, const http_req *req, const char *allow,
                     http_res *res)
{
    const char *o = cors_allowed(cfg, req);
    if (!o || strcmp(req->method, "OPTIONS") != 0 ||
        !http_req_header(req, "Access-Control-Request-Method"))
        return 0;
    http_res_raw(res, 204, NULL, NULL, 0);
    http_res_header(res, "Allow", "%s, OPTIONS", allow);
    http_res_header(res, "Access-Control-Allow-Origin", "%s", o);
    http_res_header(res, "Access-Control-Allow-Methods", "%s", allow);
    http_res_header(res, "Access-Control-Allow-Headers", "%s", CORS_ALLOW_HEADERS);
    http_res_header(res, "Access-Control-Max-Age", "600");
    http_res_header(res, "Vary",
                    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
    return 1;
}

static const char *mime_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    static const struct { const char *ext, *type; } T[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".json", "application/json; charset=utf-8"},
        {".txt", "text/plain; charset=utf-8"},
    };
    for (size_t i = 0; dot && i < sizeof T / sizeof T[0]; i++)
        if (strcmp(dot, T[i].ext) == 0)
            return T[i].type;
    return "application/octet-stream";
}

/* Serve www/<path>; 1 if served. Refuses dot segments and hidden files. */
static int serve_static(const api_config *cfg, const http_req *req, http_res *res)
{
    const char *p = req->path;
    if (!cfg->www_dir || strstr(p, "/.") || strchr(p, '\\'))
        return 0;
    char file[1024];
    if (strcmp(p, "/") == 0)
        p = "/index.html";
    if ((size_t)snprintf(file, sizeof file, "%s%s", cfg->www_dir, p) >= sizeof file)
        return 0;
    struct stat sb;
    if (stat(file, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (8 << 20))
        return 0;
    FILE *f = fopen(file, "rb");
    if (!f)
        return 0;
    char *buf = malloc((size_t)sb.st_size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)sb.st_size, f) : 0;
    fclose(f);
    if (!buf)
        return 0;
    http_res_raw(res, 200, mime_of(file), buf, n);
    http_res_header(res, "Cache-Control", "no-cache");
    http_res_page_csp(res);
    free(buf);
    return 1;
}

static int64_t thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1 with the 429 in res when the client (or the whole server) is past its
 * quota of `kind` (api/quota.h). */
static int over_quota(int kind, const http_req *req, http_res *res)
{
    int whole = 0, wait = quota_take(kind, req->remote_addr, 1, &whole);
    if (!wait)
        return 0;
    game_err e = {0};
    if (kind == QUOTA_CREATE)
        err_set(&e, ERR_RATE_LIMITED, NULL,
                "%s created or imported more games than its quota allows (a game counts once, "
                "and once more per 16 KiB it stored): try again in %d s",
                whole ? "the server" : "this address", wait);
    else if (kind == QUOTA_WORK)
        err_set(&e, ERR_RATE_LIMITED, NULL,
                "%s asked for more work without a game than its quota allows (the CPU time of "
                "its requests; one at a time from one address): try again in %d s",
                whole ? "the server" : "this address", wait);
    else
        err_set(&e, ERR_RATE_LIMITED, NULL,
                "%s wrote more card notes than its quota allows: try again in %d s",
                whole ? "the server" : "this address", wait);
    http_res_header(res, "Retry-After", "%d", wait);
    http_res_problem(res, req, ERR_RATE_LIMITED, &e,
                     json_pack("{s:s,s:s}", "quota", quota_name(kind), "bucket",
                               whole ? "total" : "client"));
    return 1;
}

static void dispatch(const api_config *cfg, const http_req *req, http_res *res)
{
    game_err e = {0};
    char secret[64];
    if (http_query_secret(req->query, secret, sizeof secret)) {
        /* a URL ends up in access logs, proxies and browser history */
        err_set(&e, ERR_BAD_QUERY, NULL,
                "a secret is never accepted in the URL (query parameter '%.40s'): send a "
                "token in the header 'Authorization: Bearer <token>' (for the WebSocket, offer "
                "the subprotocols 'croupier' and 'croupier.token.<token>'), an invite in the "
                "body of POST /games/{id}/seats/{n}/claim",
                secret);
        http_res_problem(res, req, ERR_BAD_QUERY, &e,
                         json_pack("{s:s}", "parameter", secret));
        return;
    }
    const char *method = strcmp(req->method, "HEAD") == 0 ? "GET" : req->method;
    const route *hit = NULL;
    route_match m = {0};
    for (const route *r = api_routes; r->method && !hit; r++)
        if (strcmp(r->method, method) == 0 && match(r->pattern, req->path, &m))
            hit = r;
    if (!hit) {
        /* the methods the path has, for 405's Allow and a CORS preflight */
        char allow[64] = "";
        for (const route *r = api_routes; r->method; r++)
            if (match(r->pattern, req->path, &m) && !strstr(allow, r->method)) {
                if (allow[0])
                    strcat(allow, ", ");
                strcat(allow, r->method);
            }
        if (allow[0]) {
            if (preflight(cfg, req, allow, res))
                return;
            http_res_header(res, "Allow", "%s", allow);
            err_set(&e, ERR_METHOD, NULL, "%s is not allowed on %s (allowed: %s)",
                    req->method, req->path, allow);
            http_res_problem(res, req, ERR_METHOD, &e, NULL);
            return;
        }
        if (strcmp(method, "GET") == 0 && serve_static(cfg, req, res))
            return;
        err_set(&e, ERR_NOT_FOUND, NULL, "nothing at %s", req->path);
        http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
        return;
    }
    if (req->body_too_large) {
        err_set(&e, ERR_TOO_LARGE, NULL, "the body exceeds the limit of %zu bytes",
                cfg->body_limit);
        http_res_problem(res, req, ERR_TOO_LARGE, &e,
                         json_pack("{s:I}", "limit", (json_int_t)cfg->body_limit));
        return;
    }
    json_t *body = NULL;
    const char *ct = http_req_header(req, "Content-Type");
    int text = hit->body == BODY_JSON_OR_TEXT && media_is(ct, "text/plain");
    if (text) {
        /* A form can send text/plain across sites without asking; this
         * header cannot be sent without a CORS preflight. */
        const char *x = http_req_header(req, "X-Croupier-Import");
        if (!x || strcasecmp(x, "text") != 0) {
            err_set(&e, ERR_MEDIA_TYPE, NULL,
                    "a text/plain import needs the header 'X-Croupier-Import: text' "
                    "(or send a JSON export as application/json)");
            http_res_problem(res, req, ERR_MEDIA_TYPE, &e, NULL);
            return;
        }
        if (req->body_len == 0) {
            err_set(&e, ERR_BAD_MEMBER, "", "the body is empty");
            http_res_problem(res, req, ERR_BAD_MEMBER, &e, NULL);
            return;
        }
    }
    if (hit->body != BODY_NONE && !text) {
        if (!json_media_type(hit, ct)) {
            err_set(&e, ERR_MEDIA_TYPE, NULL,
                    "send the body with 'Content-Type: application/json'%s (got %s)",
                    hit->body == BODY_JSON_OR_TEXT
                        ? ", or a text save as text/plain with 'X-Croupier-Import: text'"
                        : "",
                    ct && *ct ? ct : "no Content-Type");
            http_res_problem(res, req, ERR_MEDIA_TYPE, &e, NULL);
            return;
        }
        if (req->body_len == 0) {
            err_set(&e, ERR_BAD_JSON, NULL, "a JSON body is required");
            http_res_problem(res, req, ERR_BAD_JSON, &e, NULL);
            return;
        }
        if (jx_nested_deeper(req->body, req->body_len, JSON_MAX_DEPTH)) {
            err_set(&e, ERR_BAD_JSON, NULL, "JSON nested deeper than %d levels",
                    JSON_MAX_DEPTH);
            http_res_problem(res, req, ERR_BAD_JSON, &e, NULL);
            return;
        }
        json_error_t je;
        body = json_loadb(req->body, req->body_len,
                          JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
        if (!body) {
            err_set(&e, ERR_BAD_JSON, NULL, "invalid JSON at line %d column %d: %s",
                    je.line, je.column, je.text);
            http_res_problem(res, req, ERR_BAD_JSON, &e, NULL);
            return;
        }
    }
    idem_ticket key;
    int keyed = hit->flags & ROUTE_KEYED;
    if (keyed && idem_begin(cfg, req, body, &ctx_idem_hooks, &key, res)) { /* answered: a replay, 409, 422 */
        json_arena_release(body);
        return;
    }
    m.idem = keyed ? &key : NULL;
    /* a replay above costs nothing: the quota counts what is run */
    int quota = hit->flags & ROUTE_CREATE  ? QUOTA_CREATE
                : hit->flags & ROUTE_WORK  ? QUOTA_WORK
                : hit->flags & ROUTE_NOTES ? QUOTA_NOTES
                                           : -1;
    if (quota >= 0 && over_quota(quota, req, res)) {
        if (keyed)
            idem_end(cfg, &key, res);
        json_arena_release(body);
        return;
    }
    int64_t cpu0 = quota == QUOTA_WORK ? thread_cpu_ms() : 0;
    int said = hit->fn(cfg, req, &m, body, res);
    if (said < 100 || said != res->status) {
        /* a handler returns the status it answered: anything else is a bug
         * (an exit that answered nothing, or answered twice) */
        fprintf(stderr, "croupier: %s %s: the handler returned %d but answered %d\n",
                req->method, hit->pattern, said, res->status);
        err_set(&e, ERR_INTERNAL, NULL, "the handler of %s %s did not answer", req->method,
                hit->pattern);
        memset(&res->stream, 0, sizeof res->stream);
        http_res_problem(res, req, ERR_INTERNAL, &e, NULL);
    }
    if (quota == QUOTA_WORK)
        quota_end(quota, req->remote_addr, (double)(thread_cpu_ms() - cpu0));
    else if (quota == QUOTA_CREATE)
        quota_end(quota, req->remote_addr, (double)(res->stored / QUOTA_CREATE_BYTES));
    if (keyed)
        idem_end(cfg, &key, res);
    json_arena_release(body); /* the walk that frees it, only when it must */
}

void api_handle(const api_config *cfg, const http_req *req, http_res *res)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(res, 0, sizeof *res);
    json_arena_begin(); /* every JSON value of the request, in a few blocks */
    dispatch(cfg, req, res);
    if (!res->status)
        http_res_problem(res, req, ERR_INTERNAL, NULL, NULL);
    json_arena_end(); /* the answer is text by now (http_res_json) */
    http_res_browser(cfg, req, res);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    metrics_record(res->status, (double)(t1.tv_sec - t0.tv_sec) +
                                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}
