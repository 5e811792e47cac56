/* json_arena.c: see json_arena.h. One block per request, per thread; no
 * value crosses threads (the body is parsed, used and released by the
 * thread that serves the request). */
#include "json_arena.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

enum { ARENA_BYTES = 16384, ARENA_ALIGN = 16 };

static __thread struct {
    char *base; /* the block, NULL before the first allocation of a request */
    size_t used;
    int on;     /* between begin and pause */
} A;

static int in_block(const void *p)
{
    return A.base && (const char *)p >= A.base && (const char *)p < A.base + ARENA_BYTES;
}

static void *arena_malloc(size_t n)
{
    if (A.on) {
        size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        if (!A.base)
            A.base = malloc(ARENA_BYTES);
        if (A.base && need <= ARENA_BYTES - A.used) {
            void *p = A.base + A.used;
            A.used += need;
            return p;
        }
    }
    return malloc(n);
}

static void arena_free(void *p)
{
    if (!in_block(p))
        free(p);
}

void json_arena_install(void) { json_set_alloc_funcs(arena_malloc, arena_free); }

void json_arena_begin(void)
{
    json_arena_end();
    A.on = 1;
}

void json_arena_pause(void) { A.on = 0; }

void json_arena_end(void)
{
    free(A.base);
    A.base = NULL;
    A.used = 0;
    A.on = 0;
}
