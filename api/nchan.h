/* nchan.h: publishing every game's events to nginx's nchan module, one
 * channel per audience (each seat its own, the spectators one), so that
 * nginx's event loop, not a croupier thread, holds the followers
 * (deploy/nginx-nchan.conf, docs/deployment.md "Followers through nchan").
 *
 * A committed write (ctx_save's notify_game, or another process's that
 * PostgreSQL's LISTEN/NOTIFY tells of) queues its game's id (nchan_written,
 * notify_on_write: no I/O, never blocks; a full queue drops the id, logged). Publisher
 * threads (a few: nchan.c) take the ids in turn, a game in one thread's
 * hands at a time, and, for each audience, asks nchan for the
 * channel's newest message (its "n"), loads the events after it as that
 * audience reads them, serializes each once and POSTs it to the channel.
 * So a publish is idempotent and catches up: what a failed or dropped
 * publish missed (nginx down, the queue full) goes out with the game's
 * next write, and meanwhile stays in the store, where GET /events and
 * croupier's own streams read it. */
#ifndef CROUPIER_NCHAN_H
#define CROUPIER_NCHAN_H

#include <stddef.h>

struct api_config;

enum { NCHAN_QUEUE = 1024 };

/* Publish to the nchan locations of nginx at host:port under `prefix`
 * (PREFIX/pub/CHANNEL and PREFIX/last/CHANNEL, deploy/nginx-nchan.conf; the
 * command line's http://HOST:PORT/PREFIX, parsed by cli/remote.c) and start
 * the publisher thread. 0, or -1 with the reason in err. */
int nchan_configure(const struct api_config *cfg, const char *host, int port, const char *prefix,
                    char *err, size_t n);
/* Game `id` was written: queue it (a no-op unless configured). */
void nchan_written(const char *id);
/* Stop the publisher (what is queued is dropped: the next write publishes it). */
void nchan_stop(void);
/* The publisher's Prometheus lines into buf (n bytes, NUL-terminated):
 * their length; 0 when this process does not publish (no --nchan-publish). */
size_t nchan_metrics(char *buf, size_t n);
/* The channel of game `id`'s audience `seat` (a seat, or SEAT_SPECTATOR):
 * a seat's is named by its tag (ctx_seat_tag) too, so that when an invite
 * to the seat is claimed its events go to a new channel, and the former
 * token's subscribers hear nothing more of that seat. */
void nchan_channel(const char *id, int seat, const char *tag, char *out, size_t n);
#endif
