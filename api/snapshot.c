/* snapshot.c: see snapshot.h. */
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#ifndef CROUPIER_LAYOUT
#define CROUPIER_LAYOUT "unknown-layout"
#endif

const char *snap_layout(void) { return CROUPIER_LAYOUT; }

/* The header without its checksum: "CROUPIER-SNAP/1 layout game id version size ". */
static int header(char *h, size_t n, const game_ops *ops, const char *id, int64_t version)
{
    int k = snprintf(h, n, SNAP_MAGIC "%s %s %s %lld %zu ", CROUPIER_LAYOUT, ops->name, id,
                     (long long)version, ops->state_size);
    return k > 0 && (size_t)k < n ? k : -1;
}

static uint64_t sum(const char *h, size_t hlen, const void *st, size_t n)
{
    return XXH3_64bits_withSeed(st, n, XXH3_64bits(h, hlen));
}

int snap_pack(const game_ops *ops, const char *id, int64_t version, const void *st,
              unsigned char **out, size_t *len)
{
    char h[256];
    int k = header(h, sizeof h - 18, ops, id, version);
    *out = NULL;
    *len = 0;
    if (k < 0)
        return ERR_INTERNAL;
    k += snprintf(h + k, sizeof h - (size_t)k, "%016llx\n",
                  (unsigned long long)sum(h, (size_t)k, st, ops->state_size));
    unsigned char *b = malloc((size_t)k + ops->state_size);
    if (!b)
        return ERR_INTERNAL;
    memcpy(b, h, (size_t)k);
    memcpy(b + k, st, ops->state_size);
    *out = b;
    *len = (size_t)k + ops->state_size;
    return 0;
}

int snap_unpack(const game_ops *ops, const char *id, int64_t version,
                const unsigned char *buf, size_t len, void *st)
{
    char h[256];
    int k = header(h, sizeof h, ops, id, version);
    if (k < 0 || !buf || len != (size_t)k + 17 + ops->state_size ||
        memcmp(buf, h, (size_t)k) != 0 || buf[k + 16] != '\n')
        return -1;
    const unsigned char *bytes = buf + k + 17;
    char want[17];
    snprintf(want, sizeof want, "%016llx",
             (unsigned long long)sum(h, (size_t)k, bytes, ops->state_size));
    if (memcmp(buf + k, want, 16) != 0)
        return -1;
    memcpy(st, bytes, ops->state_size);
    return 0;
}
