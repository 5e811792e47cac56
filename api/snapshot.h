/* snapshot.h: the cached state of a stored game (store.h: games.snap).
 *
 * A snapshot is the engine's state value as it lies in memory (game.h: a
 * plain value of state_size bytes, no pointers), compressed with LZ4, behind
 * a text header that binds it to this build's state layout, the game type,
 * the game's id and the version it is of, and a checksum over all of that
 * and the compressed bytes:
 *
 *   CROUPIER-SNAP/3 <layout> <game> <id> <version> <state_size> <lz4 length> <xxh3-64>\n<lz4 bytes>
 * The LZ4 bytes hold the state's first ops->state_used(st) bytes (all of
 * them when the game has no state_used); unpacking zeroes the rest. A
 * Phazed state is 90 KB, its log at the end mostly empty: a read
 * decompressed all of it (72k of a read's ~250k instructions).
 *
 * Why compressed: the states are fixed-size arrays, mostly empty (Phazed
 * 90 KB, Five Crowns 40 KB); read raw, the blob's SQLite overflow pages,
 * its checksum and its copy were half the instructions of GET /games/{id}
 * (docs/benchmarks.md). A snapshot of an earlier format does not match and
 * is rebuilt from the log, as any other stale one: /1 (uncompressed), /2
 * (states that still held the bots' generator, before bot chance became
 * counter-based: engine/bots.c).
 *
 * Only this server writes snapshots, so a snapshot that passes every check is
 * used as it is: no JSON, no re-validation, the same cost at play 10 as at
 * play 500. Any mismatch (another build, another game, another version,
 * truncated, damaged) makes snap_unpack() refuse it, and api/ rebuilds the
 * state from the game's origin and plays instead (gamectx.c).
 */
#ifndef CROUPIER_SNAPSHOT_H
#define CROUPIER_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

#define SNAP_MAGIC "CROUPIER-SNAP/3 "

/* *out malloc'd, *len bytes. 0 or ERR_INTERNAL (out of memory). */
int snap_pack(const game_ops *ops, const char *id, int64_t version, const void *st,
              unsigned char **out, size_t *len);
/* 0 with st filled, or ERR_INTERNAL (st unspecified) when the snapshot is
 * not one this build wrote for game `id` at `version` (the caller rebuilds
 * the state from the log). */
int snap_unpack(const game_ops *ops, const char *id, int64_t version,
                const unsigned char *buf, size_t len, void *st);

#endif
