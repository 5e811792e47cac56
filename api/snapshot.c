/* snapshot.c: see snapshot.h. */
#include "snapshot.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lz4.h>
#include <xxhash.h>

#ifndef CROUPIER_LAYOUT
#define CROUPIER_LAYOUT "unknown-layout"
#endif

/* The header without its checksum:
 * "CROUPIER-SNAP/3 layout game id version size " (then the compressed length). */
static int header(char *h, size_t n, const game_ops *ops, const char *id, int64_t version)
{
    int k = snprintf(h, n, SNAP_MAGIC "%s %s %s %lld %zu ", CROUPIER_LAYOUT, ops->name, id,
                     (long long)version, ops->state_size);
    return k > 0 && (size_t)k < n ? k : -1;
}

static uint64_t sum(const char *h, size_t hlen, const void *z, size_t n)
{
    return XXH3_64bits_withSeed(z, n, XXH3_64bits(h, hlen));
}

/* The thread's LZ4 compression state (16 KB), made once: the one-shot
 * LZ4_compress_default() puts it on the worker's stack and clears all of it
 * for every snapshot (a sixth of a stored Hanabi play's instructions); a
 * stream reset with LZ4_resetStream_fast() and compressed with no
 * dictionary gives the same kind of block. Freed when the thread ends. */
static pthread_key_t lz_key;
static pthread_once_t lz_once = PTHREAD_ONCE_INIT;

static void lz_free(void *s) { LZ4_freeStream(s); }
static void lz_setup(void) { pthread_key_create(&lz_key, lz_free); }

static int compress(const void *src, int n, char *z, int cap)
{
    pthread_once(&lz_once, lz_setup);
    LZ4_stream_t *s = pthread_getspecific(lz_key);
    if (!s) {
        if (!(s = LZ4_createStream()))
            return 0;
        if (pthread_setspecific(lz_key, s) != 0) {
            LZ4_freeStream(s);
            return LZ4_compress_default(src, z, n, cap);
        }
    } else {
        LZ4_resetStream_fast(s);
    }
    return LZ4_compress_fast_continue(s, src, z, n, cap, 1);
}

int snap_pack(const game_ops *ops, const char *id, int64_t version, const void *st,
              unsigned char **out, size_t *len)
{
    char h[256];
    int rc = ERR_INTERNAL, bound = LZ4_compressBound((int)ops->state_size), zlen, k;
    unsigned char *b = NULL;
    char *z = NULL;
    *out = NULL;
    *len = 0;
    if (bound <= 0 || !(z = malloc((size_t)bound)))
        goto done;
    size_t used = ops->state_used ? ops->state_used(st) : ops->state_size;
    if (used > ops->state_size)
        used = ops->state_size;
#ifdef CROUPIER_CHECKS
    /* what state_used promises: nothing after it (the unpacked copy is zero there) */
    for (size_t i = used; i < ops->state_size; i++)
        if (((const unsigned char *)st)[i]) {
            fprintf(stderr, "croupier: %s state byte %zu of %zu is set past state_used (%zu)\n",
                    ops->name, i, ops->state_size, used);
            abort();
        }
#endif
    zlen = compress(st, (int)used, z, bound);
    k = header(h, sizeof h - 40, ops, id, version);
    if (zlen <= 0 || k < 0)
        goto done;
    k += snprintf(h + k, sizeof h - (size_t)k, "%d ", zlen);
    k += snprintf(h + k, sizeof h - (size_t)k, "%016llx\n",
                  (unsigned long long)sum(h, (size_t)k, z, (size_t)zlen));
    if (!(b = malloc((size_t)k + (size_t)zlen)))
        goto done;
    memcpy(b, h, (size_t)k);
    memcpy(b + k, z, (size_t)zlen);
    *out = b;
    *len = (size_t)k + (size_t)zlen;
    rc = 0;
done:
    free(z);
    return rc;
}

int snap_unpack(const game_ops *ops, const char *id, int64_t version,
                const unsigned char *buf, size_t len, void *st)
{
    char h[256];
    int k = header(h, sizeof h, ops, id, version);
    if (k < 0 || !buf || len < (size_t)k || memcmp(buf, h, (size_t)k) != 0)
        return ERR_INTERNAL;
    /* the compressed length, then the checksum over the header and those bytes */
    size_t zlen = 0, at = (size_t)k;
    while (at < len && at < (size_t)k + 10 && buf[at] >= '0' && buf[at] <= '9')
        zlen = zlen * 10 + (size_t)(buf[at++] - '0');
    if (at == (size_t)k || at >= len || buf[at] != ' ' || zlen > (size_t)INT32_MAX)
        return ERR_INTERNAL;
    size_t hlen = at + 1;
    if (len != hlen + 17 + zlen || buf[hlen + 16] != '\n')
        return ERR_INTERNAL;
    const unsigned char *z = buf + hlen + 17;
    char want[17];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)sum((const char *)buf, hlen, z, zlen));
    if (memcmp(buf + hlen, want, 16) != 0)
        return ERR_INTERNAL;
    /* the bytes the state used when packed (ops->state_used); zero after */
    int n = LZ4_decompress_safe((const char *)z, st, (int)zlen, (int)ops->state_size);
    if (n < 0 || (n < (int)ops->state_size && !ops->state_used))
        return ERR_INTERNAL;
    memset((char *)st + n, 0, ops->state_size - (size_t)n);
    return 0;
}
