/* fanout.c: see fanout.h. One mutex over a small hash of the audiences
 * followed now; a build runs outside it (the audience marked `building`,
 * its other streams waiting on the condition variable). */
#include "fanout.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "json_arena.h"
#include "json_out.h"
#include "notify.h"

enum { FAN_BUCKETS = 256 };

struct fan_buf {
    int refs;       /* under F.mu */
    size_t nev;
    long *ns;       /* each event's "n" */
    size_t *offs;   /* nev + 1: where each event's bytes begin, then the end */
    char *data;
};

/* The state of a build, with its buffers. */
typedef struct fan_build {
    int rc, over, to_move, seat;
    long long version;
    long after;          /* it holds every event after this */
    fan_buf *buf[FAN_KINDS];
} fan_build;

struct fan_aud {
    struct fan_aud *next;
    char id[96];
    char key[65];        /* sha256 of the credential as sent */
    int users[FAN_KINDS];
    int building;
    int valid;           /* `b` is a build */
    unsigned long gen;   /* notify generation read before b's load */
    int64_t at;          /* ms, when b's load began */
    fan_build b;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a build ended */
    fan_aud *h[FAN_BUCKETS];
    unsigned long long builds, deliveries;
    long buffers;
} F = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned slot_of(const char *id, const char *key)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const unsigned char *s = (const unsigned char *)id; *s; s++)
        h = (h ^ *s) * 16777619u;
    for (const unsigned char *s = (const unsigned char *)key; *s; s++)
        h = (h ^ *s) * 16777619u;
    return h % FAN_BUCKETS;
}

/* The audience's key: the Authorization header as sent ("-" when none),
 * hashed (no token kept here). */
static void key_of(const http_req *req, char out[65])
{
    const char *h = http_req_header(req, "Authorization");
    size_t n = h ? strlen(h) : 0;
    char *s = malloc(n + 3);
    if (!s) {
        snprintf(out, 65, "%s", "");
        return;
    }
    if (h)
        snprintf(s, n + 3, "h:%s", h);
    else
        snprintf(s, n + 3, "-");
    sha256_hex(s, out);
    free(s);
}

static void buf_free(fan_buf *b)
{
    if (!b)
        return;
    free(b->ns);
    free(b->offs);
    free(b->data);
    free(b);
}

/* Let go of a reference; caller holds F.mu. */
static void buf_unref(fan_buf *b)
{
    if (b && --b->refs == 0) {
        buf_free(b);
        F.buffers--;
    }
}

/* ---- one build: the events as each kind writes them ----------------------- */

typedef struct txt {
    char *p;
    size_t k, cap;
    int oom;
} txt;

static void put(txt *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->k + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (o->k + n + 1 > cap)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = 1;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->k, s, n);
    o->k += n;
    o->p[o->k] = 0;
}

/* Server-Sent Events: "id: n\nevent: name\ndata: {json}\n\n" per event,
 * the id "n.e" in a game whose plays were taken back (its "e", api.h).
 * WebSocket: the event without its "n" and "e", as Python's json.dumps
 * writes it (the seed's protocol, front_ws.c). */
static char *text_of(int kind, const json_t *ev, long pos, size_t *len)
{
    if (kind == FAN_WS) {
        json_t *bare = json_copy((json_t *)ev);
        json_object_del(bare, "n");
        json_object_del(bare, "e");
        char *t = json_text(bare, JSON_ENSURE_ASCII);
        json_decref(bare);
        *len = t ? strlen(t) : 0;
        return t;
    }
    char *data = json_out(ev, NULL);
    const char *name = json_string_value(json_object_get(ev, "event"));
    char id[48];
    long n = undo_pos_n(pos), e = undo_pos_epoch(pos);
    if (e)
        snprintf(id, sizeof id, "%ld.%ld", n, e);
    else
        snprintf(id, sizeof id, "%ld", n);
    int k = snprintf(NULL, 0, "id: %s\nevent: %s\ndata: %s\n\n", id, name ? name : "message",
                     data ? data : "{}");
    char *t = k > 0 ? malloc((size_t)k + 1) : NULL;
    if (t)
        snprintf(t, (size_t)k + 1, "id: %s\nevent: %s\ndata: %s\n\n", id,
                 name ? name : "message", data ? data : "{}");
    free(data);
    *len = t ? (size_t)k : 0;
    return t;
}

static fan_buf *buf_of(int kind, const json_t *events)
{
    size_t nev = json_array_size(events), i;
    fan_buf *b = calloc(1, sizeof *b);
    txt o = {0};
    if (!b)
        return NULL;
    b->nev = nev;
    b->ns = malloc((nev ? nev : 1) * sizeof *b->ns);
    b->offs = malloc((nev + 1) * sizeof *b->offs);
    if (!b->ns || !b->offs) {
        buf_free(b);
        return NULL;
    }
    put(&o, "", 0);
    json_t *ev;
    json_array_foreach(events, i, ev) {
        /* its place: number and epoch (api.h), the order streams take them in */
        long n = undo_pos((long)json_integer_value(json_object_get(ev, "n")),
                          (long)json_integer_value(json_object_get(ev, "e")));
        size_t len;
        char *t = text_of(kind, ev, n, &len);
        if (!t)
            o.oom = 1;
        b->ns[i] = n;
        b->offs[i] = o.k;
        put(&o, t ? t : "", len);
        free(t);
    }
    b->offs[nev] = o.k;
    b->data = o.p;
    if (o.oom) {
        buf_free(b);
        return NULL;
    }
    b->refs = 1;
    return b;
}

/* Load the game for req and write the buffers of the kinds wanted[]
 * (outside F.mu). */
static void build(fan_load load, const api_config *cfg, const http_req *req, const char *id,
                  long after, const int wanted[FAN_KINDS], fan_build *out)
{
    memset(out, 0, sizeof *out);
    out->after = after;
    events_snapshot snap;
    game_err e = {0};
    /* the load's JSON values in this thread's blocks (json_arena.h), freed
     * at once after: a stream polls for as long as it lives */
    json_arena_begin();
    int rc = load(cfg, req, id, after, &snap, &e);
    if (rc) {
        out->rc = rc;
    } else {
        out->over = snap.over;
        out->to_move = snap.to_move;
        out->seat = snap.seat;
        out->version = snap.version;
        for (int k = 0; k < FAN_KINDS; k++)
            if (wanted[k] && !(out->buf[k] = buf_of(k, snap.events)))
                out->rc = ERR_INTERNAL;
        json_arena_release(snap.events);
    }
    json_arena_end();
}

/* ---- audiences -------------------------------------------------------------- */

fan_aud *fan_join(const char *id, const http_req *req, int kind)
{
    char key[65];
    key_of(req, key);
    if (!key[0] || strlen(id) >= sizeof ((fan_aud *)0)->id)
        return NULL;
    unsigned s = slot_of(id, key);
    pthread_mutex_lock(&F.mu);
    fan_aud *a = F.h[s];
    while (a && (strcmp(a->id, id) != 0 || strcmp(a->key, key) != 0))
        a = a->next;
    if (!a && (a = calloc(1, sizeof *a))) {
        snprintf(a->id, sizeof a->id, "%s", id);
        memcpy(a->key, key, sizeof a->key);
        a->next = F.h[s];
        F.h[s] = a;
    }
    if (a)
        a->users[kind]++;
    pthread_mutex_unlock(&F.mu);
    return a;
}

void fan_leave(fan_aud *a, int kind)
{
    if (!a)
        return;
    pthread_mutex_lock(&F.mu);
    if (--a->users[kind] == 0 && a->users[!kind] == 0) {
        for (fan_aud **p = &F.h[slot_of(a->id, a->key)]; *p; p = &(*p)->next)
            if (*p == a) {
                *p = a->next;
                break;
            }
        for (int k = 0; k < FAN_KINDS; k++)
            buf_unref(a->b.buf[k]);
        free(a);
    }
    pthread_mutex_unlock(&F.mu);
}

/* Fill v from build b, from the first event after `after`; caller holds
 * F.mu (the reference is taken under it). */
static void view_of(const fan_build *b, int kind, long after, fan_view *v)
{
    memset(v, 0, sizeof *v);
    v->rc = b->rc;
    v->over = b->over;
    v->to_move = b->to_move;
    v->seat = b->seat;
    v->version = b->version;
    fan_buf *buf = b->buf[kind];
    if (b->rc || !buf)
        return;
    size_t lo = 0, hi = buf->nev; /* the first event numbered above `after` */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (buf->ns[mid] <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == buf->nev)
        return;
    buf->refs++;
    v->buf = buf;
    v->first = lo;
    v->count = buf->nev - lo;
    v->data = buf->data + buf->offs[lo];
    v->len = buf->offs[buf->nev] - buf->offs[lo];
}

static int fresh(const fan_aud *a, unsigned long gen, int64_t now)
{
    return a->valid && a->gen == gen && now - a->at < FAN_FRESH_MS;
}

void fan_get(fan_aud *a, fan_load load, const api_config *cfg, const http_req *req,
             const char *id, int kind, long after, fan_view *v)
{
    int want[FAN_KINDS] = {0};
    fan_build b;
    want[kind] = 1;
    pthread_mutex_lock(&F.mu);
    while (a) {
        unsigned long gen = notify_seen(id);
        int64_t now = now_ms();
        if (fresh(a, gen, now) && after >= a->b.after && (a->b.rc || a->b.buf[kind])) {
            view_of(&a->b, kind, after, v);
            F.deliveries++;
            pthread_mutex_unlock(&F.mu);
            return;
        }
        if (a->building) {
            pthread_cond_wait(&F.cv, &F.mu);
            continue;
        }
        /* stale, this kind not built yet, or this stream behind the build
         * (it had not taken the last events when the next came, or it just
         * joined with an older Last-Event-ID): it builds for all, from its
         * own position, and the others behind with it find theirs there */
        a->building = 1;
        for (int k = 0; k < FAN_KINDS; k++)
            want[k] = a->users[k] > 0 || k == kind;
        pthread_mutex_unlock(&F.mu);
        build(load, cfg, req, id, after, want, &b);
        pthread_mutex_lock(&F.mu);
        for (int k = 0; k < FAN_KINDS; k++) {
            buf_unref(a->b.buf[k]);
            F.buffers += b.buf[k] != NULL;
        }
        a->b = b;
        a->gen = gen;
        a->at = now;
        a->valid = 1;
        a->building = 0;
        F.builds++;
        pthread_cond_broadcast(&F.cv);
        view_of(&a->b, kind, after, v);
        F.deliveries++;
        pthread_mutex_unlock(&F.mu);
        return;
    }
    pthread_mutex_unlock(&F.mu);
    /* no audience (out of memory): loaded for this one alone */
    memset(want, 0, sizeof want);
    want[kind] = 1;
    build(load, cfg, req, id, after, want, &b);
    pthread_mutex_lock(&F.mu);
    F.builds++;
    F.buffers += b.buf[kind] != NULL;
    view_of(&b, kind, after, v);
    buf_unref(b.buf[kind]); /* the view's reference is the one left */
    pthread_mutex_unlock(&F.mu);
}

const char *fan_event(const fan_view *v, size_t i, size_t *len, long *n)
{
    const fan_buf *b = v->buf;
    *len = b->offs[i + 1] - b->offs[i];
    *n = b->ns[i];
    return b->data + b->offs[i];
}

void fan_release(fan_view *v)
{
    if (!v->buf)
        return;
    pthread_mutex_lock(&F.mu);
    buf_unref(v->buf);
    pthread_mutex_unlock(&F.mu);
    v->buf = NULL;
}

void fan_counts(unsigned long long *builds, unsigned long long *deliveries, long *buffers)
{
    pthread_mutex_lock(&F.mu);
    *builds = F.builds;
    *deliveries = F.deliveries;
    *buffers = F.buffers;
    pthread_mutex_unlock(&F.mu);
}
