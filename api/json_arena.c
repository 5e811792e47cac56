/* json_arena.c: see json_arena.h. Blocks per request, per thread; no value
 * crosses threads (a request is served by one thread). */
#include "json_arena.h"

#include <stdint.h>
#include <stdlib.h>

/* Blocks of 16, 32 and 64 KB: a stored play or a view fits in the first
 * two. A request that needs more (a whole bot game in POST /games) goes on
 * with malloc, which reuses what its values free: blocks of megabytes
 * there, on 32 connections at once, left glibc's arenas holding 95 MB after
 * `make bench` (48 MB without). Blocks stay under glibc's mmap threshold
 * (128 KB).
 *
 * Past its first 112 KB a request may take more blocks of 64 KB from a
 * budget shared by the whole process (ARENA_SHARED, 8 MB), while it lasts:
 * a long game's history or events (GET /plays, /events late in a game)
 * spilled to malloc, and then paid a malloc and a free per value, and the
 * walk that frees the tree (docs/benchmarks.md: a third of GET /events at
 * version 185 of Five Crowns). The budget bounds what the blocks can add to
 * the server's memory whatever the number of connections. */
enum {
    ARENA_FIRST = 16 * 1024,
    ARENA_MAX_BLOCK = 64 * 1024,
    ARENA_TOTAL = 112 * 1024,
    ARENA_SHARED = 8 * 1024 * 1024,
    ARENA_BLOCKS = 3 + ARENA_SHARED / ARENA_MAX_BLOCK,
    ARENA_ALIGN = 16
};

/* Bytes of blocks past ARENA_TOTAL that requests hold now (all threads). */
static size_t shared_used;

/* Set once by json_arena_install(), before any thread: without the hooks
 * (a test, a tool calling api_handle()), jansson allocates with malloc and
 * every tree must be freed value by value. */
static int installed;

static __thread struct {
    char *base[ARENA_BLOCKS];
    size_t size[ARENA_BLOCKS];
    int nb;       /* blocks in use; the last is the one being filled */
    size_t used;  /* bytes used of the last block */
    size_t total; /* bytes of all blocks */
    size_t extra; /* of which taken from the shared budget */
    int on;       /* between begin and end, and not held */
    int active;   /* between begin and end */
    int spilled;  /* a value of this request came from malloc */
} A;

static int in_blocks(const void *p)
{
    const char *c = p;
    for (int i = A.nb - 1; i >= 0; i--)
        if (c >= A.base[i] && c < A.base[i] + A.size[i])
            return 1;
    return 0;
}

/* A new last block for at least need bytes; 0 when the arena is full. */
static int grow(size_t need)
{
    if (A.nb == ARENA_BLOCKS)
        return 0;
    size_t size = A.nb ? A.size[A.nb - 1] * 2 : ARENA_FIRST;
    if (size > ARENA_MAX_BLOCK)
        size = ARENA_MAX_BLOCK;
    if (size < need)
        return 0; /* a large string: malloc's */
    size_t extra = 0;
    if (A.total + size > ARENA_TOTAL) {
        if (__atomic_add_fetch(&shared_used, size, __ATOMIC_RELAXED) > ARENA_SHARED) {
            __atomic_sub_fetch(&shared_used, size, __ATOMIC_RELAXED);
            return 0;
        }
        extra = size;
    }
    char *b = malloc(size);
    if (!b) {
        __atomic_sub_fetch(&shared_used, extra, __ATOMIC_RELAXED);
        return 0;
    }
    A.extra += extra;
    A.base[A.nb] = b;
    A.size[A.nb] = size;
    A.nb++;
    A.used = 0;
    A.total += size;
    return 1;
}

static void *arena_malloc(size_t n)
{
    if (A.on) {
        size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        if ((A.nb && need <= A.size[A.nb - 1] - A.used) || grow(need)) {
            void *p = A.base[A.nb - 1] + A.used;
            A.used += need;
            return p;
        }
        A.on = 0; /* full: malloc for the rest of the request */
    }
    if (A.active)
        A.spilled = 1;
    return malloc(n);
}

static void arena_free(void *p)
{
    if (p && !in_blocks(p))
        free(p);
}

void json_arena_install(void)
{
    json_set_alloc_funcs(arena_malloc, arena_free);
    installed = 1;
}

void json_arena_begin(void)
{
    json_arena_end();
    A.on = 1;
    A.active = 1;
}

void json_arena_end(void)
{
    for (int i = 0; i < A.nb; i++)
        free(A.base[i]);
    if (A.extra)
        __atomic_sub_fetch(&shared_used, A.extra, __ATOMIC_RELAXED);
    A.extra = 0;
    A.nb = 0;
    A.used = 0;
    A.total = 0;
    A.on = 0;
    A.active = 0;
    A.spilled = 0;
}

void json_arena_release(json_t *j)
{
    if (!installed || !A.active || A.spilled)
        json_decref(j);
    /* else every value of the request is in the blocks: json_arena_end()
     * frees them all; walking the tree to free each would cost as much as
     * writing it did */
}

int json_arena_hold(void)
{
    int was = A.on;
    A.on = 0;
    return was;
}

void json_arena_resume(int held) { A.on = held; }

size_t json_arena_shared(void) { return __atomic_load_n(&shared_used, __ATOMIC_RELAXED); }

char *json_text(const json_t *j, size_t flags)
{
    int held = json_arena_hold();
    char *t = json_dumps(j, flags);
    json_arena_resume(held);
    return t;
}
