/* transport_limits.h: what the front ends share about their connection
 * budget, and the problems of the refusals they make themselves.
 *
 * Event streams (Server-Sent Events, WebSockets) hold a thread of the front
 * end for as long as they are open, so they are counted: at most `total` at
 * once in the process and `per_client` from one client address. Beyond
 * either, a new stream is refused with a 503 problem and Retry-After
 * instead of waiting. The numbers are set once at start (croupier serve
 * --max-streams / --max-streams-per-client; croupier fcgi derives them from
 * its thread count) and documented in docs/deployment.md (the connection budget).
 *
 * transport_problem() writes the problem+json of a refusal made by a front
 * end itself, before or instead of api_handle(): a malformed or incomplete
 * request (400), a timeout (408), too many or too large headers (431), no
 * stream slot left (503 too-many-streams), no turn to run a request or a
 * server still starting (503 server-busy), an HTTP version we do not speak
 * (505).
 */
#ifndef CROUPIER_TRANSPORT_LIMITS_H
#define CROUPIER_TRANSPORT_LIMITS_H

#include "http.h"

enum {
    STREAMS_TOTAL_DEFAULT = 128,
    STREAMS_PER_CLIENT_DEFAULT = 16,
    STREAMS_RETRY_AFTER = 10, /* seconds, the Retry-After of a refused stream */
    STREAMS_IDLE_DEFAULT = 60, /* seconds; a seat's stream gets 10 times that */
    STARTING_RETRY_AFTER = 1, /* seconds, the Retry-After of a request made while starting */
};

/* Set the budget (before any stream opens): `total` streams at once,
 * `per_client` from one address, and `idle_s`: a stream with nothing sent
 * or received for that long is closed (10 * idle_s for a seat's stream).
 * Values < 1 are taken as 1. */
void streams_configure(int total, int per_client, int idle_s);
/* The idle limit of a stream of reader `seat` (a seat >= 0, or not), ms. */
long streams_idle_ms(int seat);
/* The kinds of stream, as /metrics counts their refusals. */
enum { STREAM_SSE, STREAM_WEBSOCKET, STREAM_KINDS };
/* Take a stream slot of `kind` for `client` (its address as text; NULL or
 * "" counts as one unknown client). 0, or -1 when the budget is used up
 * (counted: streams_refused()). */
int streams_acquire(const char *client, int kind);
/* Give back a slot taken by streams_acquire() for the same client. */
void streams_release(const char *client);
/* For /metrics: the streams open now, and those of `kind` refused since
 * start. */
int streams_open(void);
unsigned long long streams_refused(int kind);
/* A stream of `kind` cut off: its client did not take what was written to
 * it within the write timeout (CONN_WRITE_MS, WS_SEND_MS); for /metrics. */
void streams_cut(int kind);
unsigned long long streams_cut_total(int kind);

/* Fill res (uninitialised) with the problem for a transport-level refusal
 * of HTTP `status`: 400 malformed-request, 408, 411, 413, 431, 503
 * too-many-streams, 505, 500 (rows of ERR_TABLE, engine/core/err.h; any
 * other status with a row of the table (404) as that row, any status
 * without one as 500: never a 4xx we did not choose).
 * `detail` a sentence; `instance` the request path if known (else "/").
 * 503 gets Retry-After. */
void transport_problem(http_res *res, int status, const char *detail, const char *instance);
/* 503 "server-busy" with Retry-After: no turn to run the request came. */
void transport_busy(http_res *res, const char *detail, const char *instance);
/* 503 "server-busy" with Retry-After: STARTING_RETRY_AFTER: the server is
 * not ready yet (front_civet.c). */
void transport_starting(http_res *res, const char *detail, const char *instance);

#endif
