/* http.c: request accessors and response builders shared by all handlers,
 * including the one place that writes RFC 9457 problem+json. */
#include "http.h"
#include "api.h"
#include "json_arena.h"
#include "json_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 section 15: every status this server answers, and those its
 * front ends may meet (a WebSocket upgrade, civetweb's own refusals). */
static const struct {
    int status;
    const char *reason;
} REASONS[] = {
    {101, "Switching Protocols"}, {200, "OK"}, {201, "Created"}, {204, "No Content"},
    {304, "Not Modified"}, {400, "Bad Request"}, {401, "Unauthorized"}, {403, "Forbidden"},
    {404, "Not Found"}, {405, "Method Not Allowed"}, {406, "Not Acceptable"},
    {408, "Request Timeout"}, {409, "Conflict"}, {411, "Length Required"},
    {412, "Precondition Failed"}, {413, "Content Too Large"}, {414, "URI Too Long"},
    {415, "Unsupported Media Type"}, {416, "Range Not Satisfiable"},
    {417, "Expectation Failed"}, {422, "Unprocessable Content"}, {426, "Upgrade Required"},
    {428, "Precondition Required"}, {429, "Too Many Requests"},
    {431, "Request Header Fields Too Large"}, {500, "Internal Server Error"},
    {501, "Not Implemented"}, {502, "Bad Gateway"}, {503, "Service Unavailable"},
    {504, "Gateway Timeout"}, {505, "HTTP Version Not Supported"},
};

const char *http_reason(int status)
{
    for (size_t i = 0; i < sizeof REASONS / sizeof REASONS[0]; i++)
        if (REASONS[i].status == status)
            return REASONS[i].reason;
    return "";
}

const char *http_req_header(const http_req *req, const char *name)
{
    for (int i = 0; i < req->nheaders; i++)
        if (req->headers[i].name && strcasecmp(req->headers[i].name, name) == 0)
            return req->headers[i].value;
    return NULL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decode [s, s+len) into buf; '+' is a space. */
static void url_decode(const char *s, size_t len, char *buf, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < n; i++) {
        int h1, h2;
        if (s[i] == '%' && i + 2 < len && (h1 = hexval(s[i + 1])) >= 0 &&
            (h2 = hexval(s[i + 2])) >= 0) {
            buf[k++] = (char)(h1 * 16 + h2);
            i += 2;
        } else if (s[i] == '+') {
            buf[k++] = ' ';
        } else {
            buf[k++] = s[i];
        }
    }
    buf[k] = 0;
}

const char *http_req_query(const http_req *req, const char *name, char *buf,
                           size_t n)
{
    const char *q = req->query;
    size_t nl = strlen(name);
    while (q && *q) {
        const char *amp = strchr(q, '&');
        size_t len = amp ? (size_t)(amp - q) : strlen(q);
        if (len >= nl && strncmp(q, name, nl) == 0 && (len == nl || q[nl] == '=')) {
            const char *v = len == nl ? q + nl : q + nl + 1;
            url_decode(v, len - (size_t)(v - q), buf, n);
            return buf;
        }
        q = amp ? amp + 1 : NULL;
    }
    return NULL;
}

/* s into out[0..cap), truncated as snprintf would ("(null)" for NULL). */
static void copy_text(char *out, size_t cap, const char *s)
{
    if (!s)
        s = "(null)";
    size_t n = strlen(s);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

void http_res_header(http_res *res, const char *name, const char *fmt, ...)
{
    if (res->nheaders >= HTTP_MAX_HEADERS)
        return;
    int i = res->nheaders++;
    copy_text(res->headers[i].name, sizeof res->headers[i].name, name);
    /* Most headers are a constant or one string ("%s"): copied, not
     * formatted (every answer carries several; vsnprintf was a tenth of a
     * /healthz). */
    va_list ap;
    va_start(ap, fmt);
    if (strcmp(fmt, "%s") == 0)
        copy_text(res->headers[i].value, sizeof res->headers[i].value, va_arg(ap, const char *));
    else if (!strchr(fmt, '%'))
        copy_text(res->headers[i].value, sizeof res->headers[i].value, fmt);
    else
        vsnprintf(res->headers[i].value, sizeof res->headers[i].value, fmt, ap);
    va_end(ap);
}

int http_res_raw(http_res *res, int status, const char *content_type,
                 const char *body, size_t len)
{
    free(res->body);
    res->body = NULL;
    res->body_len = 0;
    res->status = status;
    copy_text(res->content_type, sizeof res->content_type, content_type ? content_type : "");
    if (len) {
        res->body = malloc(len);
        if (!res->body) {
            res->status = 500;
            return ERR_INTERNAL;
        }
        memcpy(res->body, body, len);
        res->body_len = len;
    }
    return 0;
}

static int json_body_spliced(http_res *res, int status, const char *ctype, json_t *json,
                             const char *key, char *raw, size_t raw_len)
{
    free(res->body);
    res->body = NULL;
    res->body_len = 0;
    size_t len = 0;
    /* json_dumps's bytes, faster (json_out.h) */
    char *text = raw ? json_out_spliced(json, key, raw, raw_len, &len) : json_out(json, &len);
    free(raw);
    json_arena_release(json);
    if (!text) /* out of memory: no body can be written, a bare 500 */
        return http_res_raw(res, 500, NULL, NULL, 0);
    res->status = status;
    copy_text(res->content_type, sizeof res->content_type, ctype);
    res->body = text;
    res->body_len = len;
    return 0;
}

static int json_body(http_res *res, int status, const char *ctype, json_t *json)
{
    return json_body_spliced(res, status, ctype, json, NULL, NULL, 0);
}

int http_res_json(http_res *res, int status, json_t *json)
{
    return json_body(res, status, "application/json; charset=utf-8", json);
}

int http_res_json_spliced(http_res *res, int status, json_t *json, const char *key, char *text,
                          size_t text_len)
{
    return json_body_spliced(res, status, "application/json; charset=utf-8", json, key, text,
                             text_len);
}

/* Copy s into out replacing each byte that is not part of valid UTF-8 with
 * '?': details and paths quote client input, and JSON strings must be
 * UTF-8 (jansson refuses otherwise). */
static const char *utf8_clean(const char *s, char *out, size_t n)
{
    size_t k = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && k + 5 < n) {
        unsigned c = p[0];
        int len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        /* RFC 3629: the second byte's range excludes overlongs and surrogates */
        unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        int ok = len > 0 && (len == 1 || (p[1] >= lo && p[1] <= hi));
        for (int i = 2; ok && i < len; i++)
            ok = (p[i] & 0xC0) == 0x80;
        if (!ok) {
            out[k++] = '?';
            p++;
            continue;
        }
        for (int i = 0; i < len; i++)
            out[k++] = (char)p[i];
        p += len;
    }
    out[k] = 0;
    return out;
}

int http_res_problem(http_res *res, const http_req *req, int code,
                     const game_err *e, json_t *extra)
{
    char dbuf[sizeof e->detail * 2], ibuf[1024], pbuf[sizeof e->pointer * 2];
    int status = err_status(code);
    char type[96];
    snprintf(type, sizeof type, "/problems/%s", err_slug(code));
    const char *detail = (e && e->detail[0]) ? utf8_clean(e->detail, dbuf, sizeof dbuf)
                                              : err_title(code);
    json_t *p = json_pack("{s:s,s:s,s:i,s:s,s:s}", "type", type, "title",
                          err_title(code), "status", status, "detail", detail,
                          "instance", utf8_clean(req && req->path ? req->path : "/",
                                                 ibuf, sizeof ibuf));
    if (p && e && code == ERR_BAD_MEMBER)
        json_object_set_new(p, "errors",
                            json_pack("[{s:s,s:s}]", "pointer",
                                      utf8_clean(e->pointer, pbuf, sizeof pbuf),
                                      "message", detail));
    if (p && e && e->rule[0])
        json_object_set_new(p, "rule", json_string(e->rule));
    if (p && extra)
        json_object_update(p, extra);
    json_decref(extra);
    int retry = status == 503;
    for (int i = 0; retry && i < res->nheaders; i++)
        retry = strcasecmp(res->headers[i].name, "Retry-After") != 0;
    if (retry) /* the store does not answer: it may in a moment */
        http_res_header(res, "Retry-After", "%d", (int)HTTP_RETRY_AFTER_S);
    return json_body(res, status, "application/problem+json", p);
}

int http_res_fail(http_res *res, const http_req *req, const game_err *e)
{
    return http_res_problem(res, req, e->code ? e->code : ERR_INTERNAL, e, NULL);
}

void http_res_free(http_res *res)
{
    free(res->body);
    res->body = NULL;
    res->body_len = 0;
}

int http_body_short(size_t got, long long clen, char *why, size_t whylen)
{
    if (clen < 0 || got >= (size_t)clen)
        return 0;
    snprintf(why, whylen, "the body ended after %zu of the %lld bytes its Content-Length announced",
             got, clen);
    return 1;
}

/* ---- secrets out of logs ------------------------------------------------------ */

/* 1 when the parameter name [s, e) reads, decoded and in lower case, as a
 * secret's. */
static int secret_name(const char *s, const char *e)
{
    static const char *const words[] = {"token", "secret", "key", "pass", "auth", "session",
                                        "invite", "signature", "credential"};
    char name[64];
    url_decode(s, (size_t)(e - s), name, sizeof name);
    for (char *c = name; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c + 32);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(name, words[i]))
            return 1;
    return 0;
}

/* Query parameters are split at '&' and, as some servers and frameworks
 * also split them, at ';': a secret sent as "?x=1;token=..." is as much in
 * the URL as "?token=...". */
static int param_sep(char c) { return c == '&' || c == ';'; }

const char *http_query_secret(const char *query, char *name, size_t n)
{
    const char *q = query;
    while (q && *q) {
        const char *end = q;
        while (*end && !param_sep(*end))
            end++;
        const char *eq = memchr(q, '=', (size_t)(end - q));
        const char *name_end = eq ? eq : end;
        if (name_end > q && secret_name(q, name_end)) {
            url_decode(q, (size_t)(name_end - q), name, n);
            return name;
        }
        q = *end ? end + 1 : NULL;
    }
    return NULL;
}

size_t http_redact_secrets(const char *in, char *out, size_t n)
{
    static const char mark[] = "[redacted]";
    size_t k = 0;
    int in_query = 0; /* after a '?', until a space or quote */
    if (!n)
        return 0;
    while (*in && k + 1 < n) {
        char c = *in;
        if (c == ' ' || c == '"') {
            in_query = 0;
        } else if (c == '?' || c == ';' || (in_query && c == '&')) {
            in_query = 1;
            out[k++] = c;
            in++;
            const char *name = in, *p = in;
            while (*p && *p != '=' && !param_sep(*p) && *p != ' ' && *p != '"')
                p++;
            size_t len = (size_t)(p - name);
            if (k + len >= n)
                len = n - 1 - k;
            memcpy(out + k, name, len);
            k += len;
            in = name + len;
            if (*p == '=' && in == p && secret_name(name, p)) {
                if (k + 1 < n)
                    out[k++] = '=';
                in = p + 1;
                while (*in && !param_sep(*in) && *in != ' ' && *in != '"')
                    in++; /* the value, dropped */
                size_t m = sizeof mark - 1;
                if (k + m >= n)
                    m = n - 1 - k;
                memcpy(out + k, mark, m);
                k += m;
            }
            continue;
        }
        out[k++] = c;
        in++;
    }
    out[k] = 0;
    return k;
}

/* The web page: its own files only, no inline script or style, never in a
 * frame (its files, and the rules pages rendered by h_service.c). */
void http_res_page_csp(http_res *res)
{
    http_res_header(res, "Content-Security-Policy", "%s",
                    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                    "form-action 'self'; frame-ancestors 'none'");
}

/* http.h */
static int wants_sse(const http_req *req)
{
    const char *a = http_req_header(req, "Accept");
    return a && strcasestr(a, "text/event-stream") != NULL;
}

int api_events_after(const http_req *req, long max, long *after, int *sse, http_res *res)
{
    char buf[32];
    const char *a = http_req_query(req, "after", buf, sizeof buf);
    *sse = wants_sse(req);
    *after = 0;
    if (!a && *sse)
        a = http_req_header(req, "Last-Event-ID");
    if (!a)
        return 0;
    if (undo_id_parse(a, max, after) == 0) /* "n", or "n.epoch" after a take-back (api.h) */
        return 0;
    game_err e = {0};
    err_set(&e, ERR_BAD_QUERY, NULL, "after must be an event's number (got '%.20s')", a);
    http_res_problem(res, req, ERR_BAD_QUERY, &e, json_pack("{s:s}", "parameter", "after"));
    return -1;
}
