/* store.c: pick a store back end from its URL.
 *
 * The back ends are rows of one table, as SQLite's VFS are: each row
 * (store_backend, store.h) names the URL schemes it serves and how it opens
 * and backs up a store; store_open() and store_backup() walk the table and
 * hand the URL to the first row whose scheme it starts with. A new back end
 * is a file that defines its row and one line here. The back ends know
 * nothing of this file (what they share is in store_rows.c).
 */
#include "store.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"

static const store_backend *const BACKENDS[] = {&store_sqlite_backend, &store_pg_backend};
enum { NBACKENDS = sizeof BACKENDS / sizeof BACKENDS[0] };

/* The row whose scheme `url` starts with, or NULL (err says which forms
 * there are). */
static const store_backend *backend_of(const char *url, char *err, size_t errlen)
{
    for (int i = 0; i < NBACKENDS; i++)
        for (const char *const *s = BACKENDS[i]->schemes; *s; s++)
            if (strncmp(url, *s, strlen(*s)) == 0)
                return BACKENDS[i];
    int k = snprintf(err, errlen, "unsupported store URL '%s' (expected", url);
    for (int i = 0; i < NBACKENDS && k >= 0 && (size_t)k < errlen; i++)
        k += snprintf(err + k, errlen - (size_t)k, "%s %s", i ? " or" : "", BACKENDS[i]->usage);
    if (k >= 0 && (size_t)k < errlen)
        snprintf(err + k, errlen - (size_t)k, ")");
    return NULL;
}

/* The message in err, said of `url`, made fit to print (store_redact). */
static int tidy(const char *url, char *err, size_t errlen, int rc)
{
    char clean[1024];
    if (rc && errlen)
        snprintf(err, errlen, "%s", store_redact(url, err, clean, sizeof clean));
    return rc;
}

int store_open(store **out, const char *url, char *err, size_t errlen)
{
    *out = NULL;
    const store_backend *b = backend_of(url, err, errlen);
    return tidy(url, err, errlen, b ? b->open(out, url, err, errlen) : ERR_STORE);
}

int store_backup(const char *url, const char *file, store_backup_info *info, char *err,
                 size_t errlen)
{
    const store_backend *b = backend_of(url, err, errlen);
    if (!b)
        return tidy(url, err, errlen, ERR_STORE);
    if (!b->backup) {
        snprintf(err, errlen, "%s", b->no_backup);
        return ERR_STORE;
    }
    return tidy(url, err, errlen, b->backup(url, file, info, err, errlen));
}

/* --- room for new games ------------------------------------------------------ */

/* n bytes in words: "1.5 MB" (powers of 1024, as --store-max-bytes reads them). */
static const char *bytes_text(long long n, char *out, size_t cap)
{
    static const char *const unit[] = {"bytes", "KB", "MB", "GB", "TB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return out;
}

int store_takes_games(store *s, char *why, size_t n)
{
    store_room r;
    char a[32], b[32], c[32];
    if (!s->vt->room || s->vt->room(s, &r))
        return 0; /* no account of its room: its writes will say */
    if (r.failing)
        snprintf(why, n, "the store's writes fail (%s) since %lld s ago",
                 r.failing == ERR_STORE_FULL ? "its disk is full" : "an I/O error",
                 r.failing_ms / 1000);
    else if (s->limits.max_bytes > 0 && r.bytes >= s->limits.max_bytes)
        snprintf(why, n, "the store holds %s, past its limit of %s (--store-max-bytes)",
                 bytes_text(r.bytes, a, sizeof a), bytes_text(s->limits.max_bytes, b, sizeof b));
    else if (s->limits.min_free > 0 && r.free_bytes >= 0 &&
             r.free_bytes - r.reserve < s->limits.min_free)
        snprintf(why, n, "the store's disk has %s free, %s of it for the WAL to grow into: less "
                 "than the %s kept free (--store-min-free)", bytes_text(r.free_bytes, a, sizeof a),
                 bytes_text(r.reserve, c, sizeof c), bytes_text(s->limits.min_free, b, sizeof b));
    else
        return 0;
    return ERR_STORE_FULL;
}

/* --- messages fit to print ---------------------------------------------------- */

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The secrets of a store URL: each as it is written in it (a span of the
 * URL) and decoded (percent-encoding undone, as the driver quotes it). */
enum { MAX_SECRETS = 8 };
typedef struct secrets {
    int k;
    const char *at[MAX_SECRETS];
    size_t len[MAX_SECRETS];
    char dec[MAX_SECRETS][256];
} secrets;

static void secret_add(secrets *s, const char *v, size_t len)
{
    if (len == 0 || s->k >= MAX_SECRETS)
        return;
    s->at[s->k] = v;
    s->len[s->k] = len;
    size_t d = 0;
    for (size_t i = 0; i < len && d + 1 < sizeof s->dec[0]; i++) {
        int h, l;
        if (v[i] == '%' && i + 2 < len && (h = hexval(v[i + 1])) >= 0 &&
            (l = hexval(v[i + 2])) >= 0) {
            s->dec[s->k][d++] = (char)(h * 16 + l);
            i += 2;
        } else {
            s->dec[s->k][d++] = v[i];
        }
    }
    s->dec[s->k][d] = 0;
    s->k++;
}

/* user:PASSWORD@ (up to the last '@' before the query: a password may hold
 * one), and the values of query parameters whose name holds "pass". */
static void url_secrets(const char *url, secrets *s)
{
    memset(s, 0, sizeof *s);
    const char *auth = strstr(url, "://");
    if (!auth)
        return;
    auth += 3;
    const char *q = strchr(auth, '?');
    const char *end = q ? q : auth + strlen(auth), *at = NULL;
    for (const char *c = auth; c < end; c++)
        if (*c == '@')
            at = c;
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon)
        secret_add(s, colon + 1, (size_t)(at - colon - 1));
    for (const char *p = q; p && *p;) {
        p++;
        const char *amp = strchr(p, '&'), *eq = strchr(p, '=');
        const char *stop = amp ? amp : p + strlen(p);
        if (eq && eq < stop) {
            char name[64];
            size_t nl = (size_t)(eq - p) < sizeof name - 1 ? (size_t)(eq - p) : sizeof name - 1;
            memcpy(name, p, nl);
            name[nl] = 0;
            for (char *c = name; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
            if (strstr(name, "pass")) /* password, sslpassword */
                secret_add(s, eq + 1, (size_t)(stop - eq - 1));
        }
        p = amp;
    }
}

/* The longest secret (written or decoded) that msg starts with: its
 * length, or 0. */
static size_t secret_at(const secrets *s, const char *msg)
{
    size_t best = 0;
    for (int i = 0; i < s->k; i++) {
        size_t d = strlen(s->dec[i]);
        if (s->len[i] > best && strncmp(msg, s->at[i], s->len[i]) == 0)
            best = s->len[i];
        if (d > best && strncmp(msg, s->dec[i], d) == 0)
            best = d;
    }
    return best;
}

char *store_redact(const char *url, const char *msg, char *out, size_t n)
{
    static const char mark[] = "[redacted]";
    secrets s;
    url_secrets(url, &s);
    size_t k = 0;
    if (!n)
        return out;
    for (const char *p = msg; *p && k + 1 < n;) {
        size_t len = secret_at(&s, p);
        if (len) {
            for (const char *m = mark; *m && k + 1 < n; m++)
                out[k++] = *m;
            p += len;
        } else if (*p == '\n' || *p == '\r' || *p == '\t') { /* one line */
            if (k > 0 && out[k - 1] != ' ')
                out[k++] = ' ';
            p++;
        } else {
            out[k++] = (unsigned char)*p < 0x20 ? '?' : *p;
            p++;
        }
    }
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = 0;
    return out;
}
