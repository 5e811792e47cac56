/* nchan.c: see nchan.h. A queue of game ids under one mutex, NCHAN_THREADS
 * publisher threads (a game in one thread's hands at a time), HTTP/1.1 to
 * nginx's internal-only server (deploy/nginx-nchan.conf) with libcurl, one
 * easy handle a thread, so its connection is kept from request to request.
 * civetweb's client opened a loopback connection per request: the crowd
 * bench's profile of croupier fcgi was 76% kernel, connect 20%, shutdown
 * 11% (docs/benchmarks.md "A course at once"). */
#include "nchan.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "json_out.h"
#include "notify.h"

/* NCHAN_THREADS: a publish is some ten requests to nginx in turn (per
 * audience: the channel's count and newest, then a POST an event), each
 * waiting on nginx's loop; with one thread the crowd bench's 1,000 tables
 * queued behind it at about 240 moves a second (p50 0.7 s from a move to
 * its followers) with neither process's core full. */
enum { ID_MAX = 96, IO_MS = 2000, REPLY_MAX = 256 * 1024, NCHAN_THREADS = 4 };

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char q[NCHAN_QUEUE][ID_MAX];
    size_t head, len;
    char busy[NCHAN_THREADS][ID_MAX]; /* the game each thread is publishing ("" none) */
    int on, stop, down, threads;
    pthread_t th[NCHAN_THREADS];
    const api_config *cfg;
    char host[256], prefix[256];
    int port;
    unsigned long long dropped, failed, published; /* published: atomic */
} N = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

void nchan_channel(const char *id, int seat, const char *tag, char *out, size_t n)
{
    if (seat >= 0)
        snprintf(out, n, "croupier:%s:s%d:%s", id, seat, tag);
    else
        snprintf(out, n, "croupier:%s:spectators", id);
}

/* ---- HTTP to nginx ---------------------------------------------------------- */

typedef struct reply {
    int status;
    char *body; /* NUL-terminated, in a REPLY_MAX buffer */
    size_t len;
} reply;

typedef struct sink {
    char *buf;
    size_t got;
} sink;

/* libcurl's write callback: the body into the REPLY_MAX buffer, the rest
 * dropped (nchan's answers are small). */
static size_t sink_write(char *p, size_t size, size_t k, void *arg)
{
    sink *s = arg;
    size_t n = size * k, room = REPLY_MAX - 1 - s->got;
    memcpy(s->buf + s->got, p, n < room ? n : room);
    s->got += n < room ? n : room;
    return n;
}

/* A handle for http_do: the options every request shares. NULL when
 * libcurl has no memory. */
static CURL *http_handle(void)
{
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)IO_MS);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)IO_MS);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_write);
    return h;
}

/* One request on handle h (its connection kept for the next); the reply's
 * body read to its end into buf (REPLY_MAX bytes at most). -1 when nginx
 * cannot be reached or gives no whole answer within IO_MS. */
static int http_do(CURL *h, const char *method, const char *path, const char *event,
                   const char *body, char *buf, reply *r)
{
    memset(r, 0, sizeof *r);
    char url[768], evh[192];
    snprintf(url, sizeof url, "http://%s:%d%s", N.host, N.port, path);
    struct curl_slist *hs = curl_slist_append(NULL, "Accept: application/json");
    struct curl_slist *more = hs ? curl_slist_append(hs, "Content-Type: application/json") : NULL;
    if (more && event) {
        snprintf(evh, sizeof evh, "X-EventSource-Event: %s", event);
        more = curl_slist_append(more, evh);
    }
    sink s = {buf, 0};
    long status = 0;
    int rc = -1;
    if (more) {
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hs);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
        if (body) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
        } else {
            curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        }
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(method, body ? "POST" : "GET") ? method
                                                                                        : NULL);
        if (curl_easy_perform(h) == CURLE_OK &&
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status > 0)
            rc = 0;
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL); /* the list is freed below */
    }
    curl_slist_free_all(hs);
    buf[s.got] = 0;
    if (rc)
        return -1;
    r->status = (int)status;
    r->body = buf;
    r->len = s.got;
    return 0;
}

/* How many messages channel `ch` holds (0: none, or no such channel); -1
 * when nginx did not answer as it should. */
static long held_of(CURL *h, const char *ch, char *buf)
{
    char path[512];
    reply r;
    snprintf(path, sizeof path, "%s/pub/%s", N.prefix, ch);
    if (http_do(h, "GET", path, NULL, NULL, buf, &r))
        return -1;
    if (r.status == 404)
        return 0; /* no such channel yet */
    json_t *info = r.status == 200 ? json_loadb(r.body, r.len, 0, NULL) : NULL;
    json_int_t held = json_integer_value(json_object_get(info, "messages"));
    json_decref(info);
    return r.status == 200 ? (long)held : -1;
}

/* The "n" of the channel's newest message: 0 when it has none. -1: nginx
 * did not answer as it should. Two requests: the channel's count (GET on
 * the publisher location), then, when it holds some, the newest. */
static long last_n(CURL *h, const char *ch, char *buf)
{
    char path[512];
    reply r;
    /* the channel's count first: nchan 1.3.6 aborts (an assertion) when the
     * newest message is asked of a channel that has subscribers and none */
    long held = held_of(h, ch, buf);
    if (held <= 0)
        return held;
    snprintf(path, sizeof path, "%s/last/%s", N.prefix, ch);
    if (http_do(h, "GET", path, NULL, NULL, buf, &r))
        return -1;
    if (r.status == 403 || r.status == 404 || r.status == 408 || r.status == 304)
        return 0; /* no such channel yet, or none of its messages is left */
    if (r.status != 200)
        return -1;
    json_t *ev = json_loadb(r.body, r.len, 0, NULL);
    /* its place: number and epoch, as the events were loaded (api.h) */
    long n = ev ? undo_pos((long)json_integer_value(json_object_get(ev, "n")),
                           (long)json_integer_value(json_object_get(ev, "e")))
                : 0;
    json_decref(ev);
    return n;
}

/* POST each event of snap to channel ch, each serialized once for the
 * whole audience. 0, or -1 when nginx failed us. */
static int post_events(CURL *h, const char *ch, json_t *events, char *buf)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pub/%s", N.prefix, ch);
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        char *text = json_out(ev, NULL);
        const char *name = json_string_value(json_object_get(ev, "event"));
        reply r;
        int rc = !text || http_do(h, "POST", path, name ? name : "message", text, buf, &r) ||
                 (r.status != 200 && r.status != 201 && r.status != 202);
        free(text);
        if (rc)
            return -1;
        __atomic_add_fetch(&N.published, 1, __ATOMIC_RELAXED);
    }
    return 0;
}

/* Every event of game `id` its audiences have not been sent on their
 * channels. 0, or -1 when nginx failed us (the rest waits for the next
 * write). The spectators' events are loaded first (their load names the
 * seats and their tags) and sent last: the players' screens first (with
 * 200 spectators of one game the other seat's p50 was 5.3 ms against 1.7
 * with none when the spectators went first). */
static int publish_game(CURL *h, const char *id, char *buf)
{
    int nseats = 0;
    char tags[GAME_MAX_SEATS][NCHAN_TAG];
    memset(tags, 0, sizeof tags);
    char spec_ch[160];
    events_snapshot spec;
    game_err e = {0};
    nchan_channel(id, -1, "", spec_ch, sizeof spec_ch);
    long after = last_n(h, spec_ch, buf);
    if (after < 0)
        return -1;
    if (api_events_load_as(N.cfg, id, SEAT_SPECTATOR, after, &spec, &nseats, tags, &e))
        return 0; /* the game is gone (deleted, expired): nothing to send */
    int rc = 0;
    for (int seat = 0; seat < nseats && seat < GAME_MAX_SEATS && !rc; seat++) {
        char ch[160], tag[NCHAN_TAG];
        events_snapshot snap;
        int loaded = 0;
        for (int tries = 0; !rc; tries++) {
            memcpy(tag, tags[seat], NCHAN_TAG);
            tag[NCHAN_TAG - 1] = 0;
            nchan_channel(id, seat, tag, ch, sizeof ch);
            after = last_n(h, ch, buf);
            if (after < 0) {
                rc = -1;
                break;
            }
            if (api_events_load_as(N.cfg, id, seat, after, &snap, &nseats, tags, &e))
                break; /* the game is gone since: nothing more to send */
            if (strcmp(tag, tags[seat]) == 0) {
                loaded = 1;
                break;
            }
            json_decref(snap.events); /* an invite to the seat claimed since: its new channel */
            if (tries == 2)
                rc = -1;
        }
        if (loaded) {
            rc = post_events(h, ch, snap.events, buf);
            json_decref(snap.events);
        }
    }
    if (!rc)
        rc = post_events(h, spec_ch, spec.events, buf);
    json_decref(spec.events);
    return rc;
}

/* The place (from the head) of the first queued game no thread is
 * publishing, or -1. Under N.mu. */
static long next_free(void)
{
    for (size_t i = 0; i < N.len; i++) {
        const char *id = N.q[(N.head + i) % NCHAN_QUEUE];
        int busy = 0;
        for (int t = 0; t < NCHAN_THREADS && !busy; t++)
            busy = strcmp(N.busy[t], id) == 0;
        if (!busy)
            return (long)i;
    }
    return -1;
}

static void *publisher(void *arg)
{
    int me = (int)(intptr_t)arg;
    char id[ID_MAX];
    char *buf = malloc(REPLY_MAX);
    CURL *h = buf ? http_handle() : NULL;
    if (!h) {
        free(buf);
        return NULL;
    }
    pthread_mutex_lock(&N.mu);
    for (;;) {
        long at;
        /* a game another thread is publishing waits in the queue: two
         * publishes of one game at once would both send its new events */
        while ((at = next_free()) < 0 && !N.stop)
            pthread_cond_wait(&N.cv, &N.mu);
        if (N.stop)
            break;
        memcpy(id, N.q[(N.head + (size_t)at) % NCHAN_QUEUE], ID_MAX);
        for (size_t j = (size_t)at; j > 0; j--) /* the ones before it move up: the order kept */
            memcpy(N.q[(N.head + j) % NCHAN_QUEUE], N.q[(N.head + j - 1) % NCHAN_QUEUE], ID_MAX);
        N.head = (N.head + 1) % NCHAN_QUEUE;
        N.len--;
        memcpy(N.busy[me], id, ID_MAX);
        pthread_mutex_unlock(&N.mu);
        int rc = publish_game(h, id, buf);
        pthread_mutex_lock(&N.mu);
        N.busy[me][0] = 0;
        pthread_cond_broadcast(&N.cv); /* its game, queued again meanwhile, is free now */
        if (rc)
            N.failed++;
        if (rc && !N.down)
            fprintf(stderr, "croupier: nchan at http://%s:%d%s did not take game %s's events: "
                            "they stay in the store (GET /events, croupier's own streams) and "
                            "go out with the game's next write\n", N.host, N.port, N.prefix, id);
        else if (!rc && N.down)
            fprintf(stderr, "croupier: nchan at http://%s:%d%s takes events again\n", N.host,
                    N.port, N.prefix);
        N.down = rc != 0;
    }
    pthread_mutex_unlock(&N.mu);
    curl_easy_cleanup(h);
    free(buf);
    return NULL;
}

int nchan_configure(const api_config *cfg, const char *host, int port, const char *prefix,
                    char *err, size_t n)
{
    if (!host || !*host || strlen(host) >= sizeof N.host || port < 1 || port > 65535 || !prefix ||
        strchr(prefix, '?') || strlen(prefix) >= sizeof N.prefix - 16) {
        snprintf(err, n, "takes http://HOST:PORT/PREFIX, nginx's internal nchan locations "
                         "(deploy/nginx-nchan.conf)");
        return -1;
    }
    snprintf(N.host, sizeof N.host, "%s", host);
    N.port = port;
    snprintf(N.prefix, sizeof N.prefix, "%s", prefix);
    size_t pl = strlen(N.prefix);
    while (pl && N.prefix[pl - 1] == '/')
        N.prefix[--pl] = 0;
    N.cfg = cfg;
    /* before any thread: libcurl's global set-up is not thread-safe */
    if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
        snprintf(err, n, "libcurl would not start");
        return -1;
    }
    for (N.threads = 0; N.threads < NCHAN_THREADS; N.threads++)
        if (pthread_create(&N.th[N.threads], NULL, publisher, (void *)(intptr_t)N.threads) != 0)
            break;
    if (!N.threads) {
        snprintf(err, n, "could not start the publisher threads");
        return -1;
    }
    __atomic_store_n(&N.on, 1, __ATOMIC_RELEASE);
    notify_on_write(nchan_written); /* this process's writes, and the others' it hears of */
    return 0;
}

size_t nchan_metrics(char *buf, size_t n)
{
    if (!__atomic_load_n(&N.on, __ATOMIC_ACQUIRE) || !n)
        return 0;
    pthread_mutex_lock(&N.mu);
    int down = N.down;
    long queued = (long)N.len;
    unsigned long long failed = N.failed, dropped = N.dropped;
    pthread_mutex_unlock(&N.mu);
    int k = snprintf(
        buf, n,
        "# HELP croupier_nchan_published_total Event messages nchan took (one per event and "
        "audience).\n"
        "# TYPE croupier_nchan_published_total counter\n"
        "croupier_nchan_published_total %llu\n"
        "# HELP croupier_nchan_publish_failures_total Games whose publish nginx failed (their "
        "events go out with the game's next write).\n"
        "# TYPE croupier_nchan_publish_failures_total counter\n"
        "croupier_nchan_publish_failures_total %llu\n"
        "# HELP croupier_nchan_dropped_total Writes not queued for publishing: the queue was "
        "full (the game's next write publishes what they missed).\n"
        "# TYPE croupier_nchan_dropped_total counter\n"
        "croupier_nchan_dropped_total %llu\n"
        "# HELP croupier_nchan_queue Games waiting to be published.\n"
        "# TYPE croupier_nchan_queue gauge\n"
        "croupier_nchan_queue %ld\n"
        "# HELP croupier_nchan_up 1 when the last publish went through, 0 when it failed.\n"
        "# TYPE croupier_nchan_up gauge\n"
        "croupier_nchan_up %d\n",
        __atomic_load_n(&N.published, __ATOMIC_RELAXED), failed, dropped, queued, !down);
    return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

void nchan_written(const char *id)
{
    if (!__atomic_load_n(&N.on, __ATOMIC_ACQUIRE) || strlen(id) >= ID_MAX)
        return;
    pthread_mutex_lock(&N.mu);
    int queued = 0;
    for (size_t i = 0; i < N.len && !queued; i++)
        queued = strcmp(N.q[(N.head + i) % NCHAN_QUEUE], id) == 0;
    if (!queued && N.len == NCHAN_QUEUE) {
        /* its next write publishes what this one missed; said at the 1st,
         * 2nd, 4th, 8th, ... drop (a log line, not a flood) */
        unsigned long long d = ++N.dropped;
        if ((d & (d - 1)) == 0)
            fprintf(stderr, "croupier: nchan: the publish queue is full (%d games; nginx slower than "
                            "the writes): %llu publishes dropped so far, each game's next write "
                            "sends what it missed\n", NCHAN_QUEUE, d);
    } else if (!queued) {
        snprintf(N.q[(N.head + N.len) % NCHAN_QUEUE], ID_MAX, "%s", id);
        N.len++;
        pthread_cond_signal(&N.cv);
    }
    pthread_mutex_unlock(&N.mu);
}

void nchan_stop(void)
{
    if (!__atomic_exchange_n(&N.on, 0, __ATOMIC_ACQ_REL))
        return;
    notify_on_write(NULL);
    pthread_mutex_lock(&N.mu);
    N.stop = 1;
    pthread_cond_broadcast(&N.cv);
    pthread_mutex_unlock(&N.mu);
    for (int t = 0; t < N.threads; t++)
        pthread_join(N.th[t], NULL);
    curl_global_cleanup();
}

/* GET /games/{id}/channel: nginx's auth_request at subscribe time. */
int h_channel(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
              http_res *res)
{
    (void)body;
    game_ctx c;
    game_err e = {0};
    int rc = ctx_load(cfg, req, m->params[0], &c, &e);
    if (!rc && c.seat == SEAT_ADMIN)
        rc = err_set(&e, ERR_FORBIDDEN, NULL,
                     "the admin token has no channel (nothing is published in full): follow "
                     "the game from croupier itself");
    if (rc) {
        ctx_free(&c);
        http_res_problem(res, req, rc, &e, NULL);
        return res->status;
    }
    char ch[160], tag[NCHAN_TAG] = "";
    if (c.seat >= 0)
        ctx_seat_tag(&c, c.seat, tag);
    nchan_channel(c.row.id, c.seat, tag, ch, sizeof ch);
    ctx_free(&c);
    /* the subscriber's nchan resume point, passed on only when its channel
     * holds messages: nchan 1.3.6 aborts (an assertion) when a subscriber
     * names one to a channel that holds none (a game with no event yet,
     * an nginx restarted) */
    const char *resume = http_req_header(req, "Last-Event-ID");
    char *buf = resume && *resume && __atomic_load_n(&N.on, __ATOMIC_ACQUIRE) ? malloc(REPLY_MAX)
                                                                               : NULL;
    CURL *h = buf ? http_handle() : NULL; /* a resume is rare: its own connection */
    if (h && held_of(h, ch, buf) <= 0)
        resume = NULL;
    if (h)
        curl_easy_cleanup(h);
    free(buf);
    if (resume && *resume && strlen(resume) < 64)
        http_res_header(res, "X-Resume", "%s", resume);
    http_res_header(res, "X-Channel", "%s", ch);
    http_res_header(res, "Cache-Control", "no-store");
    http_res_json(res, 200, json_pack("{s:s}", "channel", ch));
    return res->status;
}
