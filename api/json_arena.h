/* json_arena.h: a request's JSON values in a few blocks of memory.
 *
 * Every JSON value a request makes (its body parsed, the game's meta, the
 * engine's views, records and legal lists, the answer) dies before the
 * request ends. jansson allocates every value, string and hash bucket with
 * malloc and frees each on json_decref: for a stored Hanabi play that was a
 * third of the server's instructions (callgrind: malloc, free and
 * malloc_consolidate). With the hooks installed (json_set_alloc_funcs),
 * the values jansson allocates between json_arena_begin() and
 * json_arena_end() on a thread come from that thread's blocks (bump
 * allocation: blocks of 16, 32 and 64 KB, 112 KB in all, then more of 64 KB
 * while a budget shared by all threads lasts (8 MB), then malloc again),
 * their frees cost nothing, and json_arena_end() returns the blocks.
 *
 * What this asks of the code between begin and end:
 * - no value outlives json_arena_end() (router.c brackets the whole
 *   handler and the answer's writing; a value kept longer would be a
 *   use-after-free, which the ASan build of the HTTP suite names: the
 *   blocks are freed, not reused);
 * - no value crosses to another thread (the blocks are this thread's);
 * - memory jansson hands out as text (json_dumps) is not given to free():
 *   json_text() writes it into malloc'd memory instead, and code that gets
 *   such text from the engine (an export) runs under json_arena_hold().
 */
#ifndef CROUPIER_JSON_ARENA_H
#define CROUPIER_JSON_ARENA_H

#include <jansson.h>

/* Install the hooks; before any jansson value exists (start of main). */
void json_arena_install(void);
/* This thread: allocate from fresh blocks from now on. */
void json_arena_begin(void);
/* This thread: return the blocks; every value in them must be gone. */
void json_arena_end(void);
/* This thread: plain malloc until json_arena_resume(); returns the state
 * to give json_arena_resume(). Blocks stay valid. */
int json_arena_hold(void);
void json_arena_resume(int held);
/* json_decref(j), or nothing when every value this request made is in the
 * blocks (json_arena_end() frees them at once): for a large answer, the
 * walk that frees value by value costs as much as writing the text. */
void json_arena_release(json_t *j);
/* Bytes of blocks that requests of all threads hold now past their first
 * 112 KB (the shared budget's use: 8 MB at most). */
size_t json_arena_shared(void);
/* json_dumps(j, flags) into memory free() takes (NULL as json_dumps). */
char *json_text(const json_t *j, size_t flags);

#endif
