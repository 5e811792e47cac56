/* limits.c: the stream budget and the transport-level problems (limits.h). */
#include "limits.h"
#include "json_arena.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per client address with streams open: at most `total` rows are
 * ever in use (each open stream belongs to one), so a linear table will do. */
typedef struct client_row {
    char addr[64];
    int n;
} client_row;

static struct {
    pthread_mutex_t mu;
    int total, per_client, open, idle_s;
    client_row *rows;
    int nrows;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .total = STREAMS_TOTAL_DEFAULT,
       .per_client = STREAMS_PER_CLIENT_DEFAULT,
       .idle_s = STREAMS_IDLE_DEFAULT};

void streams_configure(int total, int per_client, int idle_s)
{
    pthread_mutex_lock(&S.mu);
    S.total = total < 1 ? 1 : total;
    S.per_client = per_client < 1 ? 1 : per_client;
    S.idle_s = idle_s < 1 ? 1 : idle_s;
    free(S.rows);
    S.rows = calloc((size_t)S.total, sizeof *S.rows);
    S.nrows = S.rows ? S.total : 0;
    S.open = 0;
    pthread_mutex_unlock(&S.mu);
}

static client_row *row_of(const char *client, int create)
{
    client_row *free_row = NULL;
    for (int i = 0; i < S.nrows; i++) {
        if (S.rows[i].n > 0 && strcmp(S.rows[i].addr, client) == 0)
            return &S.rows[i];
        if (!free_row && S.rows[i].n == 0)
            free_row = &S.rows[i];
    }
    if (create && free_row)
        snprintf(free_row->addr, sizeof free_row->addr, "%s", client);
    return create ? free_row : NULL;
}

int streams_acquire(const char *client)
{
    if (!client || !*client)
        client = "?";
    int rc = -1;
    pthread_mutex_lock(&S.mu);
    if (!S.rows) { /* first use without streams_configure() */
        S.rows = calloc((size_t)S.total, sizeof *S.rows);
        S.nrows = S.rows ? S.total : 0;
    }
    if (S.open < S.total) {
        client_row *r = row_of(client, 1);
        if (r && r->n < S.per_client) {
            r->n++;
            S.open++;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&S.mu);
    return rc;
}

void streams_release(const char *client)
{
    if (!client || !*client)
        client = "?";
    pthread_mutex_lock(&S.mu);
    client_row *r = row_of(client, 0);
    if (r && r->n > 0) {
        r->n--;
        S.open--;
    }
    pthread_mutex_unlock(&S.mu);
}

long streams_idle_ms(int seat)
{
    long ms = (long)__atomic_load_n(&S.idle_s, __ATOMIC_RELAXED) * 1000;
    return seat >= 0 ? 10 * ms : ms;
}

static const struct {
    int status;
    const char *slug, *title;
} KINDS[] = {
    {400, "malformed-request", "Malformed request"},
    {408, "request-timeout", "Request timeout"},
    {411, "length-required", "Length required"},
    {413, "payload-too-large", "Payload too large"},
    {431, "request-header-fields-too-large", "Request header fields too large"},
    {500, "internal", "Internal error"},
    {501, "not-implemented", "Not implemented"},
    {503, "too-many-streams", "Too many streams"},
    {505, "http-version-not-supported", "HTTP version not supported"},
};

/* Printable ASCII only (a path or detail may quote raw client bytes). */
static void ascii(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n; s++)
        out[k++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    out[k] = 0;
}

static void problem(http_res *res, int status, const char *slug, const char *title,
                    const char *detail, const char *instance)
{
    memset(res, 0, sizeof *res);
    char type[96], dbuf[400], ibuf[256];
    snprintf(type, sizeof type, "/problems/%s", slug);
    ascii(detail && *detail ? detail : title, dbuf, sizeof dbuf);
    ascii(instance && instance[0] == '/' ? instance : "/", ibuf, sizeof ibuf);
    json_t *p = json_pack("{s:s,s:s,s:i,s:s,s:s}", "type", type, "title", title, "status",
                          status, "detail", dbuf, "instance", ibuf);
    char *text = p ? json_text(p, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(p);
    if (!text || http_res_raw(res, status, "application/problem+json", text, strlen(text)))
        res->status = status;
    free(text);
    if (status == 503)
        http_res_header(res, "Retry-After", "%d", (int)STREAMS_RETRY_AFTER);
}

void transport_problem(http_res *res, int status, const char *detail, const char *instance)
{
    const char *slug = NULL, *title = NULL;
    char sbuf[32], tbuf[32];
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (KINDS[i].status == status) {
            slug = KINDS[i].slug;
            title = KINDS[i].title;
        }
    if (!slug) {
        snprintf(sbuf, sizeof sbuf, "http-%d", status);
        snprintf(tbuf, sizeof tbuf, "HTTP %d", status);
        slug = sbuf;
        title = tbuf;
    }
    problem(res, status, slug, title, detail, instance);
}

void transport_busy(http_res *res, const char *detail, const char *instance)
{
    problem(res, 503, "server-busy", "Server busy", detail, instance);
}
