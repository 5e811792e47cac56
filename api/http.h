/* http.h: the transport-neutral request and response every handler sees.
 *
 * A front end (front_civet.c, front_fcgi.c) fills an http_req, calls
 * api_handle(), and writes the http_res back. Handlers are rows of one route
 * table (api/routes.c); method (405), body size (413), media type (415) and
 * JSON parsing (400) are checked once, in the router, before a handler runs.
 *
 * Ownership: the front end owns every string in http_req for the duration of
 * api_handle(). http_res owns its body (malloc'd) and header values; the
 * front end calls http_res_free() after sending.
 */
#ifndef CROUPIER_HTTP_H
#define CROUPIER_HTTP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct store;

enum {
    HTTP_MAX_HEADERS = 16,
    HTTP_RETRY_AFTER_S = 2, /* the Retry-After of a 503 of the store */
};

typedef struct http_header {
    const char *name;
    const char *value;
} http_header;

typedef struct http_req {
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* decoded path, no query: "/games/abc" */
    const char *query;        /* raw query string without '?', or NULL */
    const http_header *headers;
    int nheaders;
    const char *body;         /* may be NULL when body_len is 0 */
    size_t body_len;
    int body_too_large;       /* front end stopped reading past the limit */
    const char *remote_addr;
} http_req;

typedef struct http_res {
    int status;
    char content_type[64];
    struct {
        char name[32];
        char value[224];
    } headers[HTTP_MAX_HEADERS];
    int nheaders;
    char *body; /* malloc'd, may be NULL */
    size_t body_len;
    /* A streamed response (Server-Sent Events): the handler only checked the
     * request; the front end sends the headers, then loops on
     * api_events_load() and writes each event as it appears. */
    struct {
        int on;
        char game_id[96];
        long after;
        int replay; /* game_id is a shared replay's id (api/replays.h) */
    } stream;
    size_t stored; /* bytes a new game's write stored (api/quota.h counts it by them) */
} http_res;

/* Server-wide settings, read-only after start (shared by all threads). */
typedef struct api_config {
    struct store *store;
    size_t body_limit;        /* bytes */
    const char *admin_token;  /* NULL = no admin */
    const char *www_dir;      /* static files */
    const char *openapi_path; /* openapi/openapi.yaml */
    const char *docs_dir;     /* docs/: the games' rules pages, docs/rules/<game>.md */
    const char *cors_origin;  /* --cors: the one other origin allowed; NULL = none */
} api_config;

/* Handle one request. Always fills res (never fails). Thread-safe.
 * Every response gets the browser-facing headers of http_res_browser();
 * X-Content-Type-Options: nosniff is the front ends' to write. */
void api_handle(const api_config *cfg, const http_req *req, http_res *res);
/* Add Content-Security-Policy (a strict one for the API unless the response
 * set its own, as web-page files do), X-Frame-Options, Referrer-Policy and,
 * when cfg->cors_origin is the request's Origin, the CORS headers. For
 * responses built outside api_handle() (a refused WebSocket upgrade). */
void http_res_browser(const api_config *cfg, const http_req *req, http_res *res);
/* The web page's Content-Security-Policy (its own files only, no inline
 * script or style, never in a frame): the page's files and the rendered
 * rules pages. */
void http_res_page_csp(http_res *res);
/* 1 when s is an origin --cors accepts: http(s)://host[:port], no path. */
int http_cors_origin_valid(const char *s);
/* The problem for a filled game_err (its code; 500 if none was set). */
int http_res_fail(http_res *res, const http_req *req, const game_err *e);
void http_res_free(http_res *res);

/* Header lookup, case-insensitive; NULL when absent. */
const char *http_req_header(const http_req *req, const char *name);
/* Query parameter value (percent-decoded into buf); NULL when absent. */
const char *http_req_query(const http_req *req, const char *name, char *buf,
                           size_t n);

void http_res_header(http_res *res, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Both front ends: 1 (with the reason in `why`) when `got` bytes fall short
 * of the Content-Length `clen` (>= 0) the request announced, else 0. A short
 * body is refused (400), never applied. */
int http_body_short(size_t got, long long clen, char *why, size_t whylen);
/* A log line with every secret-looking query value replaced by
 * "[redacted]": in every `?name=value&...` of `in` (the request line, a
 * Referer; parameters split at '&' or ';', and a `;name=value` anywhere in
 * a path too), a value whose name, percent-decoded, contains token, secret,
 * key, pass, auth, session, invite, signature or credential (any case).
 * Writes at most n - 1 bytes and a NUL into out; returns strlen(out). */
size_t http_redact_secrets(const char *in, char *out, size_t n);
/* The first parameter of the query string `query` (parameters split at '&'
 * or ';') whose name reads as a secret's (as above), percent-decoded into
 * name[n]; NULL when none. Every route refuses such a request: a secret
 * never travels in a URL. */
const char *http_query_secret(const char *query, char *name, size_t n);
/* The reason phrase of a status as RFC 9110 names it ("Unprocessable
 * Content" for 422, where civetweb's table still has an older spelling);
 * "" for a status it does not list. Both front ends write it. */
const char *http_reason(int status);
/* Serialize json (stolen: decref'd here) as the body with status. */
int http_res_json(http_res *res, int status, json_t *json);
/* The same with the value of json's member key written as the JSON text
 * `text` (taken: freed here; NULL: http_res_json): a game's view written
 * as text (game_ops.view_text), its place in json held by a null. */
int http_res_json_spliced(http_res *res, int status, json_t *json, const char *key, char *text,
                          size_t text_len);
/* Raw body (copied). */
int http_res_raw(http_res *res, int status, const char *content_type,
                 const char *body, size_t len);
/* RFC 9457 problem+json from a code and details; e may be NULL. `extra`
 * members (stolen, may be NULL) are merged in. Every 503 carries
 * Retry-After (HTTP_RETRY_AFTER_S unless the caller set one). */
int http_res_problem(http_res *res, const http_req *req, int code,
                     const game_err *e, json_t *extra);

/* The event a request of an event route reads from: ?after=N, or for a
 * stream (Accept: text/event-stream, *sse) its Last-Event-ID; 0..max.
 * 0, or -1 with a 400 problem naming "after" in res. */
int api_events_after(const http_req *req, long max, long *after, int *sse, http_res *res);
/* Events of game `id` numbered > after that the caller of `req` may see
 * (api/events.c). Fills a snapshot; the caller json_decref()s events. */
typedef struct events_snapshot {
    json_t *events; /* array, each {"n": k, "event": name, ...} */
    int over;
    int to_move; /* seat to move, -1 when over */
    int seat;    /* the caller's seat (or SEAT_SPECTATOR / SEAT_ADMIN) */
    long long version;
} events_snapshot;
int api_events_load(const api_config *cfg, const http_req *req, const char *id,
                    long after, events_snapshot *out, game_err *e);
/* The same for a poller that last saw the game at version `seen` (-1:
 * never): when the game is still there, no event is built (an empty list). */
/* The same for the reader of `seat` (a seat or SEAT_SPECTATOR), with no
 * request (the nchan publisher, api/nchan.c); *nseats: the game's seats,
 * tags[s]: seat s's channel tag (ctx_seat_tag), for the first 8 seats. */
int api_events_load_as(const api_config *cfg, const char *id, int seat, long after,
                       events_snapshot *out, int *nseats, char (*tags)[10] /* NCHAN_TAG */,
                       game_err *e);
int api_events_load_since(const api_config *cfg, const http_req *req, const char *id, long after,
                          long long seen, events_snapshot *out, game_err *e);

/* The body of an SSE response (res->stream.on): every event from
 * res->stream.after on, as it is stored, with a comment line every 15 s,
 * until the game ends, `write` fails (client gone), *stopping is set, or 10
 * minutes pass (clients reconnect with Last-Event-ID and lose nothing).
 * `write` returns 0 on success. Used by every front end. */
void api_stream_events(const api_config *cfg, const http_req *req, const http_res *res,
                       int (*write)(void *ctx, const char *data, size_t len), void *ctx,
                       const int *stopping);

/* Metrics (api/metrics.c): counters shared by all threads. */
void metrics_record(int status, double seconds);
void metrics_game_created(void);
void metrics_rebuilt(void);
char *metrics_render(size_t *len); /* malloc'd text */

#endif
