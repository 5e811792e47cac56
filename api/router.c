/* router.c: api_handle(), the one entry point of every front end.
 *
 * Checks that apply to all routes happen here once: route and method (404,
 * 405 + Allow), body size (413), media type (415), JSON syntax and nesting
 * depth (400). Then the handler runs with the parsed body. Paths that match
 * no API route are served from www/ (GET only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "api.h"
#include "core/jsonx.h"

enum { JSON_MAX_DEPTH = 32 };

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

static int json_media_type(const char *ct)
{
    if (!ct || !*ct)
        return 1; /* no header: take it as JSON */
    size_t n = strcspn(ct, "; ");
    if (n == 16 && strncasecmp(ct, "application/json", n) == 0)
        return 1;
    if (n > 17 && strncasecmp(ct + n - 5, "+json", 5) == 0 &&
        strncasecmp(ct, "application/", 12) == 0)
        return 1;
    /* curl -d sends this by default; the body is still checked as JSON */
    if (n == 33 && strncasecmp(ct, "application/x-www-form-urlencoded", n) == 0)
        return 1;
    return 0;
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
    free(buf);
    return 1;
}

static void dispatch(const api_config *cfg, const http_req *req, http_res *res)
{
    game_err e = {0};
    const char *method = strcmp(req->method, "HEAD") == 0 ? "GET" : req->method;
    const route *hit = NULL;
    route_match m = {0}, tmp;
    char allow[64] = "";
    for (const route *r = api_routes; r->method; r++) {
        if (!match(r->pattern, req->path, &tmp))
            continue;
        if (!strstr(allow, r->method)) {
            if (allow[0])
                strcat(allow, ", ");
            strcat(allow, r->method);
        }
        if (!hit && strcmp(r->method, method) == 0) {
            hit = r;
            m = tmp;
        }
    }
    if (!hit) {
        if (allow[0]) {
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
    int text = hit->body == BODY_JSON_OR_TEXT && ct && strncasecmp(ct, "text/plain", 10) == 0;
    if (text && req->body_len == 0) {
        err_set(&e, ERR_BAD_MEMBER, "", "the body is empty");
        http_res_problem(res, req, ERR_BAD_MEMBER, &e, NULL);
        return;
    }
    if (hit->body != BODY_NONE && !text) {
        if (!json_media_type(ct)) {
            err_set(&e, ERR_MEDIA_TYPE, NULL, "send the body as application/json%s (got %s)",
                    hit->body == BODY_JSON_OR_TEXT ? " or text/plain" : "", ct);
            http_res_problem(res, req, ERR_MEDIA_TYPE, &e, NULL);
            return;
        }
        if (req->body_len == 0) {
            err_set(&e, ERR_BAD_JSON, NULL, "a JSON body is required");
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
        if (jx_depth(body, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) {
            json_decref(body);
            err_set(&e, ERR_BAD_JSON, NULL, "JSON nested deeper than %d levels",
                    JSON_MAX_DEPTH);
            http_res_problem(res, req, ERR_BAD_JSON, &e, NULL);
            return;
        }
    }
    hit->fn(cfg, req, &m, body, res);
    json_decref(body);
}

void api_handle(const api_config *cfg, const http_req *req, http_res *res)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(res, 0, sizeof *res);
    dispatch(cfg, req, res);
    if (!res->status)
        http_res_problem(res, req, ERR_INTERNAL, NULL, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    metrics_record(res->status, (double)(t1.tv_sec - t0.tv_sec) +
                                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}
