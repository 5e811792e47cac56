/* fanout.h: an event written once per audience, its bytes shared by every
 * stream of that audience.
 *
 * An audience is the readers of one game who send the same credential:
 * the same Authorization header (a seat's token, the admin's, or none: every
 * spectator of the game is one audience). The server cannot tell two
 * readers of one credential apart, so they see the game the same way, and
 * what one of them was allowed to read is exactly what the other is: the
 * credential is checked again at every build, against the game as it is
 * then (a seat's token no longer valid ends every stream of it). Streams of
 * other credentials never share an entry, so an audience's bytes are never
 * sent to another.
 *
 * Each audience holds its last build: the game's events after some `after`
 * as Server-Sent Events frames and as WebSocket texts (each only while a
 * stream of that kind follows), in refcounted buffers. A stream that wakes
 * (notify.h) takes the part of the buffer after its own position and a
 * reference, writes it, and lets go; the first stream of an audience to
 * wake after a write builds (loads the game once, serializes once) while
 * the others of that audience wait for it. A build is reused while its
 * game's notify generation has not moved and for at most FAN_FRESH_MS
 * (writes of another process to a SQLite file are not notified: the
 * streams' polls find them). A stream behind the audience's build (it had
 * not taken the last events when the next came, or it just joined with an
 * older Last-Event-ID) builds again from its own position, for all: the
 * build then holds more events, and every stream at or past that position
 * takes its part of it.
 *
 * Memory: one entry per audience followed now (freed with its last
 * stream), holding its last build only; a replaced build is freed when the
 * last stream writing it lets go. */
#ifndef CROUPIER_FANOUT_H
#define CROUPIER_FANOUT_H

#include <stddef.h>

#include "http.h"

enum { FAN_SSE, FAN_WS, FAN_KINDS };
enum { FAN_FRESH_MS = 200 };

typedef struct fan_aud fan_aud;
typedef struct fan_buf fan_buf;

/* What a stream is to send now: the events after its position, as the
 * bytes of its kind, with the game's state at that build. */
typedef struct fan_view {
    fan_buf *buf;   /* held until fan_release() (NULL: nothing) */
    size_t first;   /* the first event of buf to send */
    size_t count;   /* how many events from `first` */
    const char *data; /* all of them from `first`, back to back, len bytes */
    size_t len;
    int rc;         /* 0, or the load's error code (err_status(rc)) */
    int over, to_move, seat;
    long long version;
} fan_view;

/* A stream of `kind` on game `id`, read with request `req` (its
 * Authorization header names the audience): its entry, NULL when out of
 * memory (the stream then loads its own). */
fan_aud *fan_join(const char *id, const http_req *req, int kind);
void fan_leave(fan_aud *a, int kind);
/* How a build loads the events (api_events_load, given by the caller: this
 * file knows nothing of games). */
typedef int (*fan_load)(const api_config *cfg, const http_req *req, const char *id, long after,
                        events_snapshot *out, game_err *e);
/* The events after `after` for a stream of `kind` of audience a (NULL:
 * loaded for this stream alone), loaded by load with cfg and req if the
 * audience's build is stale. Always fan_release(v) after. */
void fan_get(fan_aud *a, fan_load load, const api_config *cfg, const http_req *req,
             const char *id, int kind, long after, fan_view *v);
/* Event i of v->buf: its bytes (len in *len), its number in *n. */
const char *fan_event(const fan_view *v, size_t i, size_t *len, long *n);
void fan_release(fan_view *v);

/* For /metrics: builds (one load and serialization for an audience) and
 * deliveries (a stream handed a build's bytes) since start; buffers alive. */
void fan_counts(unsigned long long *builds, unsigned long long *deliveries, long *buffers);

#endif
