/* err.h: the one table of error codes.
 *
 * Every fallible function in engine/ and api/ returns 0 or a negative ERR_*
 * code; this X-macro table yields the code, its name (used as the problem
 * type slug), its title and the HTTP status it maps to, so a new error is one
 * line. Details travel in a game_err filled by the failing function.
 *
 * Every problem type the server answers is a row here, the front ends' own
 * refusals included (the last rows), and one writer sends them all
 * (http_res_problem in api/http.c). docs/api.md lists the rows ("Problem
 * types"); tests/repo/problems.test.mjs keeps that list and this table equal.
 */
#ifndef CROUPIER_ERR_H
#define CROUPIER_ERR_H

#include <stdarg.h>
#include <stddef.h>

/*  X(NAME,          slug,                status, title) */
#define ERR_TABLE(X)                                                            \
    X(OK,            "ok",                200, "OK")                            \
    X(BAD_JSON,      "malformed-json",    400, "Malformed JSON")                \
    X(BAD_MEMBER,    "invalid-member",    400, "Invalid member")                \
    X(BAD_QUERY,     "invalid-parameter", 400, "Invalid query parameter")       \
    X(BAD_HEADER,    "invalid-header",    400, "Invalid header")                \
    X(UNAUTHORIZED,  "unauthorized",      401, "Missing or invalid token")      \
    X(FORBIDDEN,     "forbidden",         403, "Not allowed")                   \
    X(NOT_FOUND,     "not-found",         404, "Not found")                     \
    X(METHOD,        "method-not-allowed",405, "Method not allowed")            \
    X(NOT_YOUR_TURN, "not-your-turn",     409, "Not your turn")                 \
    X(GAME_OVER,     "game-over",         409, "Game over")                     \
    X(CONFLICT,      "conflict",          409, "Concurrent update")             \
    X(SEAT_TAKEN,    "seat-taken",        409, "Seat taken")                    \
    X(IDEM_BUSY,     "idempotency-key-in-flight",409, "Request in progress")   \
    X(NO_UNDO,       "cannot-take-back",  409, "Cannot take back")              \
    X(STALE,         "precondition-failed",412, "Stale version")                \
    X(TOO_LARGE,     "payload-too-large", 413, "Payload too large")             \
    X(MEDIA_TYPE,    "unsupported-media-type",415, "Unsupported media type")    \
    X(ILLEGAL,       "illegal-play",      422, "Illegal play")                  \
    X(IDEM_REUSED,   "idempotency-key-reused",422, "Idempotency key reused")    \
    X(INTERNAL,      "internal",          500, "Internal error")                \
    X(STORE,         "store-unavailable", 503, "Store unavailable")             \
    X(OUTCOME_UNKNOWN,"outcome-unknown",  503, "Outcome unknown")              \
    X(RATE_LIMITED,  "too-many-requests", 429, "Too many requests")            \
    X(STORE_FULL,    "store-full",        503, "Store full")                    \
    /* the front ends' own refusals, before or instead of a handler */          \
    X(MALFORMED_REQUEST,"malformed-request",400, "Malformed request")          \
    X(TIMEOUT,       "request-timeout",   408, "Request timeout")               \
    X(LENGTH_REQUIRED,"length-required",  411, "Length required")               \
    X(HEADERS_TOO_LARGE,"request-header-fields-too-large",431,                  \
      "Request header fields too large")                                        \
    X(TOO_MANY_STREAMS,"too-many-streams",503, "Too many streams")              \
    X(BUSY,          "server-busy",       503, "Server busy")                   \
    X(HTTP_VERSION,  "http-version-not-supported",505,                          \
      "HTTP version not supported")

enum err_code {
#define X(name, slug, status, title) ERR_##name##_IDX,
    ERR_TABLE(X)
#undef X
    ERR__COUNT
};

/* Public codes are negative indexes (ERR_OK is 0). */
#define X(name, slug, status, title) enum { ERR_##name = -(int)ERR_##name##_IDX };
ERR_TABLE(X)
#undef X

const char *err_slug(int code);
const char *err_title(int code);
int err_status(int code);

/* Details of a failure. `pointer` is an RFC 6901 JSON pointer to the
 * offending member, relative to the document the failing function was given
 * (callers prefix it as they go up); `detail` a human sentence; `rule` an
 * optional short rule id for 422s. */
typedef struct game_err {
    int code;
    char pointer[160];
    char detail[320];
    char rule[64];
} game_err;

/* Fill e (may be NULL) and return code. printf-style detail. */
int err_set(game_err *e, int code, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Same, with a rule id (for ERR_ILLEGAL). */
int err_rule(game_err *e, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix e->pointer with `prefix` (e.g. "/state"). */
void err_prefix(game_err *e, const char *prefix);

#endif
