/* json_arena.h: the request body's JSON tree in one block of memory.
 *
 * A request body is parsed into jansson values that all die when its
 * handler returns. jansson allocates every value, string and hash bucket
 * with malloc and frees each on json_decref: for a 160-byte
 * is_valid_play body, 55 values, about half the server's instructions per
 * request (callgrind). With the hooks installed (json_set_alloc_funcs), the
 * values jansson allocates between json_arena_begin() and json_arena_pause()
 * on a thread come from one block of that thread (bump allocation), their
 * frees cost nothing, and json_arena_end() returns the block. Anything
 * allocated outside begin..pause (the handler's own values, the answer) is
 * plain malloc. A body value that outlived json_arena_end() would be a
 * use-after-free: the block is freed, never reused, so the ASan build of the
 * HTTP suite would name it. Beyond the block (a large body), malloc again.
 */
#ifndef CROUPIER_JSON_ARENA_H
#define CROUPIER_JSON_ARENA_H

/* Install the hooks; before any jansson value exists (start of main). */
void json_arena_install(void);
/* This thread: allocate from a fresh block from now on. */
void json_arena_begin(void);
/* This thread: back to malloc (the block stays valid). */
void json_arena_pause(void);
/* This thread: return the block; every value in it must be gone. */
void json_arena_end(void);

#endif
