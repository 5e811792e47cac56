/* replays.h: shared replays, as hanab.live has them: one leader
 * steps through a finished game and every follower's page shows the move
 * the leader shows.
 *
 * A shared replay lives in this process's memory only (lost on restart;
 * behind several processes a follower must reach the one that holds it)
 * and is bounded: at most `total` open at once and `per_client` created
 * from one client address (croupier serve|fcgi --max-replays,
 * --max-replays-per-client), each closed after `idle_s` seconds without a
 * write (--replay-idle: a move, a request to lead, a hand-over). Past a
 * cap a new one is refused: 429 (the address's) or 503 (the server's),
 * each with Retry-After, the seconds until the first of those in the way
 * expires.
 *
 * Only a game that is over can be shared (every card shows then, to every
 * reader); a replay holds no card, only the play number shown (`ply`, as
 * GET /games/{id}?at=N takes it): each follower reads the position itself.
 *
 * Its leader holds a secret token (Authorization: Bearer, as a seat's),
 * kept as its SHA-256 only. Moves, requests to lead and hand-overs are
 * events numbered from 1 (`seq`), the last REPLAY_RING kept: a follower's
 * Server-Sent Events stream (GET /replays/{rid}/events) writes each once,
 * in order, and one that fell further behind, or just came without
 * Last-Event-ID, gets the replay's state as one `state` event first. The
 * streams count against the stream budget (transport_limits.h) as the
 * games' do, and wake through notify.h.
 */
#ifndef CROUPIER_REPLAYS_H
#define CROUPIER_REPLAYS_H

#include "http.h"

enum {
    REPLAYS_TOTAL_DEFAULT = 256,
    REPLAYS_PER_CLIENT_DEFAULT = 8,
    REPLAY_IDLE_DEFAULT = 1800, /* seconds */
    REPLAY_RING = 32,           /* events kept for followers behind */
    REPLAY_CANDIDATES = 8,      /* requests to lead waiting at once */
};

/* Set the bounds (before any request); values < 1 are taken as 1. */
void replays_configure(int total, int per_client, int idle_s);

/* The body of GET /replays/{rid}/events as a stream (res->stream.replay):
 * as api_stream_events, which hands it over. */
void replay_stream(const api_config *cfg, const http_req *req, const http_res *res,
                   int (*write)(void *ctx, const char *data, size_t len), void *ctx,
                   const int *stopping);

#endif
