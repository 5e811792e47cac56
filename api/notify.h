/* notify.h: "a game changed", so event streams wake at once instead of at
 * their next poll.
 *
 * Games hash into NOTIFY_BUCKETS buckets, each a generation counter with its
 * own condition variable: a committed write bumps its game's bucket and
 * wakes the streams waiting on it (a few, not every stream). A write made
 * by another process reaches here through the store when it can tell
 * (PostgreSQL: LISTEN/NOTIFY, store.h listen(), passed to
 * notify_store_changed()); streams keep polling the store as before (their
 * fallback), so a write of another process on a SQLite file is seen at the
 * next poll, within a second.
 */
#ifndef CROUPIER_NOTIFY_H
#define CROUPIER_NOTIFY_H

enum { NOTIFY_BUCKETS = 64, NOTIFY_LATER_MS = 2 };

/* A write to game `id` was committed (by this process, or by another one
 * that the store's listen() told of). */
void notify_game(const char *id);
/* Call fn(id) at every notify_game() after this (NULL: none); fn must not
 * block (the nchan publisher's queue, nchan.h). */
void notify_on_write(void (*fn)(const char *id));
/* Anything may have changed: every stream looks again. */
void notify_all(void);
/* store.h listen()'s callback: notify_game(id), or notify_all() for NULL. */
void notify_store_changed(const char *id, void *arg);
/* The generation of id's bucket now: read it before loading the game. */
unsigned long notify_seen(const char *id);
/* Wait until id's bucket moves past `seen` (1) or `ms` pass (0). */
int notify_wait(const char *id, unsigned long seen, int ms);
/* The same, woken NOTIFY_LATER_MS after the write: the spectators'
 * streams, so that the players' streams have the cores first (a play's
 * event reaches the seats before 200 spectators' threads wake; with all
 * woken at once the other seat's p50 was 5.0 ms with 200 spectators
 * against 1.6 with none, docs/benchmarks.md "Fan-out"). One thread wakes
 * them, for every write of that while: no extra wake-up per stream. */
unsigned long notify_seen_later(const char *id);
int notify_wait_later(const char *id, unsigned long seen, int ms);
/* Every write, any game: the total generation, and waiting on it. */
unsigned long notify_total(void);
int notify_wait_any(unsigned long seen, int ms);

#endif
