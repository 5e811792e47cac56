/* auth.c: game ids, seat tokens and their hashes.
 *
 * Ids and tokens are 128 random bits from getrandom(2), base64url. The store
 * keeps only SHA-256 hashes of seat tokens, so a leaked database does not
 * leak seats; comparisons are constant-time. A token travels only in the
 * Authorization header (the WebSocket's alternative is read in front_ws.c):
 * never in a URL, which access logs, proxies and browser history keep; the
 * router refuses ?token= outright.
 */
#include "api.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

static int fill_random(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

int rand_token(char *out, size_t outlen, size_t n_bytes)
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char raw[48];
    if (n_bytes > sizeof raw || outlen < (n_bytes * 4 + 2) / 3 + 1)
        return ERR_INTERNAL;
    if (fill_random(raw, n_bytes))
        return ERR_INTERNAL;
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n_bytes; i++) {
        acc = (acc << 8) | raw[i];
        bits += 8;
        while (bits >= 6) {
            out[k++] = b64[(acc >> (bits - 6)) & 63];
            bits -= 6;
        }
    }
    if (bits > 0)
        out[k++] = b64[(acc << (6 - bits)) & 63];
    out[k] = 0;
    return 0;
}

int rand_u64(uint64_t *out)
{
    return fill_random(out, sizeof *out) ? ERR_INTERNAL : 0;
}

int rand_bytes(void *buf, size_t n)
{
    return fill_random(buf, n) ? ERR_INTERNAL : 0;
}

/* SHA256() looks the algorithm up on every call (OpenSSL 3: a fetch by
 * name, most of its cost for a 22-byte token): fetched once here. */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static void sha256_fetch(void) { sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL); }

void sha256_hex(const char *s, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char d[SHA256_DIGEST_LENGTH];
    pthread_once(&sha256_once, sha256_fetch);
    if (!sha256_md || !EVP_Digest(s, strlen(s), d, NULL, sha256_md, NULL))
        SHA256((const unsigned char *)s, strlen(s), d);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}

int secure_eq(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    unsigned char diff = (unsigned char)(na != nb);
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

const char *req_token(const http_req *req, char *buf, size_t n)
{
    const char *h = http_req_header(req, "Authorization");
    if (h) {
        while (*h == ' ')
            h++;
        if (strncasecmp(h, "Bearer ", 7) != 0)
            return ""; /* present but not a bearer token: invalid */
        h += 7;
        while (*h == ' ')
            h++;
        snprintf(buf, n, "%s", h);
        size_t len = strlen(buf);
        while (len && buf[len - 1] == ' ')
            buf[--len] = 0;
        return buf;
    }
    return NULL;
}
