/* quota.c: token buckets per client address and per process (quota.h). */
#include "quota.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A bucket: `tokens` as of `at` (ms, CLOCK_MONOTONIC); it holds `cap` at
 * most and refills `cap` a minute. */
typedef struct bucket {
    double tokens;
    int64_t at;
} bucket;

typedef struct client_row {
    char key[48]; /* the address (an IPv6 one cut to its /64); "" free */
    bucket b;
    int running;  /* QUOTA_WORK: its request under way (one at a time) */
} client_row;

static struct {
    pthread_mutex_t mu;
    struct {
        double cap, total_cap; /* a minute's allowance; 0: no limit */
        bucket total;
        client_row *rows;
        atomic_ullong refused[2]; /* [0] a client's bucket, [1] the process's */
    } k[QUOTA__KINDS];
} Q = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .k = {{.cap = QUOTA_CREATE_DEFAULT, .total_cap = QUOTA_CREATE_TOTAL_DEFAULT},
             {.cap = QUOTA_WORK_DEFAULT * 1000.0, .total_cap = QUOTA_WORK_TOTAL_DEFAULT * 1000.0},
             {.cap = QUOTA_NOTES_DEFAULT, .total_cap = QUOTA_NOTES_TOTAL_DEFAULT}}};

static const char *const NAMES[QUOTA__KINDS] = {"create", "work", "notes"};

const char *quota_name(int kind) { return kind >= 0 && kind < QUOTA__KINDS ? NAMES[kind] : "?"; }

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void quota_configure(int kind, long per_client, long total)
{
    double unit = kind == QUOTA_WORK ? 1000.0 : 1.0; /* work is counted in ms */
    pthread_mutex_lock(&Q.mu);
    Q.k[kind].cap = per_client > 0 ? (double)per_client * unit : 0;
    Q.k[kind].total_cap = total > 0 ? (double)total * unit : 0;
    Q.k[kind].total = (bucket){0};
    free(Q.k[kind].rows);
    Q.k[kind].rows = NULL;
    pthread_mutex_unlock(&Q.mu);
}

/* The bucket's tokens now (a bucket never used: full). */
static double level(bucket *b, double cap, int64_t now)
{
    if (b->at == 0) {
        b->tokens = cap;
        b->at = now;
    }
    b->tokens += (double)(now - b->at) * cap / 60000.0;
    if (b->tokens > cap)
        b->tokens = cap;
    b->at = now;
    return b->tokens;
}

/* quota.h; the key of an address's row */
void quota_client_key(const char *client, char out[48])
{
    unsigned char a[16];
    if (client && strchr(client, ':') && inet_pton(AF_INET6, client, a) == 1) {
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(a, mapped, 12) != 0) /* a v4-mapped address is its IPv4 */
            memset(a + 8, 0, 8);
        inet_ntop(AF_INET6, a, out, 48);
        return;
    }
    snprintf(out, 48, "%s", client && *client ? client : "?");
}

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

enum { PROBES = 16 };

/* The row of `key` (made if needed); caller holds Q.mu. NULL out of memory. */
static client_row *row_of(int kind, const char *key, int64_t now)
{
    double cap = Q.k[kind].cap;
    if (!Q.k[kind].rows && !(Q.k[kind].rows = calloc(QUOTA_CLIENTS, sizeof(client_row))))
        return NULL;
    client_row *rows = Q.k[kind].rows, *spare = NULL;
    double spare_level = -1e300;
    uint32_t h = hash(key);
    for (int i = 0; i < PROBES; i++) {
        client_row *r = &rows[(h + (uint32_t)i) % QUOTA_CLIENTS];
        if (r->key[0] && strcmp(r->key, key) == 0)
            return r;
        /* a free row, or one whose bucket is full again (as good as new),
         * else the fullest: taken for this address if it has none (never
         * one whose request is under way) */
        double l = !r->key[0] ? 2 * cap : r->running ? -1e300 : level(&r->b, cap, now);
        if (l > spare_level) {
            spare_level = l;
            spare = r;
        }
    }
    if (!spare)
        return NULL;
    memset(spare, 0, sizeof *spare);
    snprintf(spare->key, sizeof spare->key, "%s", key);
    return spare;
}

static int wait_s(double missing, double cap)
{
    int s = (int)(missing * 60.0 / cap) + 1; /* cap a minute */
    return s < 1 ? 1 : s > 3600 ? 3600 : s;
}

int quota_take(int kind, const char *client, double units, int *whole)
{
    char key[48];
    quota_client_key(client, key);
    int64_t now = now_ms();
    int wait = 0, which = 0;
    pthread_mutex_lock(&Q.mu);
    double cap = Q.k[kind].cap, tcap = Q.k[kind].total_cap;
    client_row *r = cap > 0 ? row_of(kind, key, now) : NULL;
    double mine = r ? level(&r->b, cap, now) : 0;
    double all = tcap > 0 ? level(&Q.k[kind].total, tcap, now) : 0;
    if (cap > 0 && (!r || (kind == QUOTA_WORK && r->running))) {
        wait = 1; /* its request under way (or no row to count it in): one at a time */
    } else if (r && mine < units) {
        wait = wait_s(units - mine, cap);
    } else if (tcap > 0 && all < units) {
        wait = wait_s(units - all, tcap);
        which = 1;
    } else {
        if (r) {
            r->b.tokens -= units;
            r->running += kind == QUOTA_WORK;
        }
        if (tcap > 0)
            Q.k[kind].total.tokens -= units;
    }
    pthread_mutex_unlock(&Q.mu);
    if (wait)
        atomic_fetch_add(&Q.k[kind].refused[which], 1);
    if (whole)
        *whole = which;
    return wait;
}

static void debit(bucket *b, double cap, double units)
{
    b->tokens -= units;
    if (b->tokens < -cap) /* a minute's debt at most */
        b->tokens = -cap;
}

void quota_end(int kind, const char *client, double units)
{
    if (units < 0)
        units = 0;
    char key[48];
    quota_client_key(client, key);
    int64_t now = now_ms();
    pthread_mutex_lock(&Q.mu);
    double cap = Q.k[kind].cap, tcap = Q.k[kind].total_cap;
    client_row *r = cap > 0 ? row_of(kind, key, now) : NULL;
    if (r) {
        level(&r->b, cap, now);
        debit(&r->b, cap, units);
        if (kind == QUOTA_WORK && r->running)
            r->running--;
    }
    if (tcap > 0) {
        level(&Q.k[kind].total, tcap, now);
        debit(&Q.k[kind].total, tcap, units);
    }
    pthread_mutex_unlock(&Q.mu);
}

void quota_metrics(char *buf, size_t cap, size_t *k)
{
#define OUT(...) (*k += (size_t)snprintf(buf + *k, *k < cap ? cap - *k : 0, __VA_ARGS__))
    OUT("# HELP croupier_quota_refused_total Requests refused 429 by a quota (create: new or "
        "imported games; work: GET /cases), by whose bucket was empty.\n");
    OUT("# TYPE croupier_quota_refused_total counter\n");
    for (int i = 0; i < QUOTA__KINDS; i++)
        for (int w = 0; w < 2; w++)
            OUT("croupier_quota_refused_total{quota=\"%s\",bucket=\"%s\"} %llu\n", NAMES[i],
                w ? "total" : "client", (unsigned long long)atomic_load(&Q.k[i].refused[w]));
#undef OUT
}
