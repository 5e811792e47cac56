/* transport_limits.c: the stream budget and the transport-level problems
 * (transport_limits.h). */
#include "transport_limits.h"

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
    unsigned long long refused[STREAM_KINDS]; /* atomics */
    unsigned long long cut[STREAM_KINDS];     /* atomics */
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

int streams_acquire(const char *client, int kind)
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
    if (rc && kind >= 0 && kind < STREAM_KINDS)
        __atomic_add_fetch(&S.refused[kind], 1, __ATOMIC_RELAXED);
    return rc;
}

int streams_open(void)
{
    pthread_mutex_lock(&S.mu);
    int n = S.open;
    pthread_mutex_unlock(&S.mu);
    return n;
}

unsigned long long streams_refused(int kind)
{
    return kind >= 0 && kind < STREAM_KINDS ? __atomic_load_n(&S.refused[kind], __ATOMIC_RELAXED)
                                            : 0;
}

void streams_cut(int kind)
{
    if (kind >= 0 && kind < STREAM_KINDS)
        __atomic_add_fetch(&S.cut[kind], 1, __ATOMIC_RELAXED);
}

unsigned long long streams_cut_total(int kind)
{
    return kind >= 0 && kind < STREAM_KINDS ? __atomic_load_n(&S.cut[kind], __ATOMIC_RELAXED) : 0;
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

/* The ERR_TABLE row of a refusal a front end makes with HTTP `status`
 * (its own, or civetweb's): 400 is a malformed request, 503 too-many-streams
 * (server-busy has transport_busy), another status the table's first row
 * with it (civetweb's 404: a WebSocket upgrade where there is none). A
 * status the table has no row for is internal (500), even a 4xx: a client
 * takes a 4xx as the final word on its request, and a status we did not
 * choose cannot be that. */
static int code_of(int status)
{
    switch (status) {
    case 400: return ERR_MALFORMED_REQUEST;
    case 408: return ERR_TIMEOUT;
    case 411: return ERR_LENGTH_REQUIRED;
    case 413: return ERR_TOO_LARGE;
    case 431: return ERR_HEADERS_TOO_LARGE;
    case 503: return ERR_TOO_MANY_STREAMS;
    case 505: return ERR_HTTP_VERSION;
    }
    for (int i = 1; i < ERR__COUNT; i++)
        if (err_status(-i) == status)
            return -i;
    return ERR_INTERNAL;
}

/* The problem of `code` through the one writer (http_res_problem), for a
 * request the front end may not have read: instance "/" unless `instance`
 * is a path. A 503 says when to come back: `retry_after` s. */
static void problem(http_res *res, int code, const char *detail, const char *instance,
                    int retry_after)
{
    memset(res, 0, sizeof *res);
    game_err e;
    err_set(&e, code, NULL, "%s", detail ? detail : "");
    if (err_status(code) == 503)
        http_res_header(res, "Retry-After", "%d", retry_after);
    http_req r = {.method = "GET", .path = instance && instance[0] == '/' ? instance : "/"};
    http_res_problem(res, &r, code, &e, NULL);
}

void transport_problem(http_res *res, int status, const char *detail, const char *instance)
{
    problem(res, code_of(status), detail, instance, STREAMS_RETRY_AFTER);
}

void transport_busy(http_res *res, const char *detail, const char *instance)
{
    problem(res, ERR_BUSY, detail, instance, STREAMS_RETRY_AFTER);
}

void transport_starting(http_res *res, const char *detail, const char *instance)
{
    problem(res, ERR_BUSY, detail, instance, STARTING_RETRY_AFTER);
}
