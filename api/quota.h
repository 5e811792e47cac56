/* quota.h: how much a client may ask of the server that no turn limits.
 *
 * Three things a client can ask for at any rate, and whose cost it chooses:
 *
 *  - QUOTA_CREATE: new stored games (POST /games, POST /games/import), which
 *    stay in the store. A game costs one unit, plus one per 16 KiB it
 *    stored (a bot-only game is played to its end in the request: a Phazed
 *    one stores a few hundred KiB).
 *  - QUOTA_WORK: work without a game (GET /cases), which costs the CPU time
 *    it takes, in milliseconds (a Phazed suite of 5,000 cases takes seconds).
 *  - QUOTA_NOTES: card notes written (PUT and DELETE /games/{id}/notes/...,
 *    api/notes.c), a write of the store each, which no turn orders: one
 *    unit a note.
 *
 * Each is a pair of token buckets (RFC 6585's 429 with Retry-After when
 * empty): one per client address (IPv6 addresses by their /64, which one
 * client may hold whole) and one for the whole process. A bucket holds a
 * minute's allowance (a burst of a minute's worth is served at once) and
 * refills at that rate. A request is let through while both buckets hold
 * at least its first unit; what it costs beyond that is charged after it
 * ran, and may leave the buckets in debt (down to minus a minute's worth),
 * which the next requests wait out. The table of addresses is bounded
 * (QUOTA_CLIENTS rows): a row whose bucket has refilled is free, and when
 * none is, the fullest one is taken. The limits are set once at start
 * (croupier serve|fcgi --quota-*; 0 turns one off) and documented in
 * docs/deployment.md.
 */
#ifndef CROUPIER_QUOTA_H
#define CROUPIER_QUOTA_H

#include <stddef.h>
#include <stdint.h>

enum quota_kind { QUOTA_CREATE = 0, QUOTA_WORK = 1, QUOTA_NOTES = 2, QUOTA__KINDS };

enum {
    QUOTA_CREATE_DEFAULT = 120,      /* games a minute from one address */
    QUOTA_CREATE_TOTAL_DEFAULT = 3000, /* ... from all of them */
    QUOTA_WORK_DEFAULT = 20,         /* CPU seconds a minute from one address */
    QUOTA_WORK_TOTAL_DEFAULT = 60,   /* ... from all of them */
    QUOTA_NOTES_DEFAULT = 300,       /* card notes written a minute from one address */
    QUOTA_NOTES_TOTAL_DEFAULT = 6000, /* ... from all of them */
    QUOTA_CLIENTS = 4096,
    QUOTA_CREATE_BYTES = 16384,      /* stored bytes that make one more unit */
};

/* Set the allowance of `kind` per minute: per_client from one address,
 * total from all (0: no limit). Before any request. */
void quota_configure(int kind, long per_client, long total);

/* An address as one client: IPv4 as it is, IPv6 by its /64 (a client is
 * given a /64 and may use all of it), "?" when unknown. What every
 * per-address bound of the server counts by. */
void quota_client_key(const char *client, char out[48]);

/* Before a request of `kind` from `client` (its address as text): 0 to run
 * it, having taken `units` from both buckets; or the seconds to wait
 * (Retry-After, >= 1) when either holds less, and *whole (may be NULL)
 * says which: 1 the whole process's, 0 the client's. An address runs one
 * request of QUOTA_WORK at a time (its cost is known only once it ran). */
int quota_take(int kind, const char *client, double units, int *whole);
/* After a request quota_take() let through: `units` more (>= 0) taken from
 * both buckets (the request's cost beyond what it took). */
void quota_end(int kind, const char *client, double units);

/* The quota's name in problems and /metrics: "create", "work", "notes". */
const char *quota_name(int kind);
/* The refusals so far, for /metrics: appends Prometheus text at buf + *k. */
void quota_metrics(char *buf, size_t cap, size_t *k);

#endif
