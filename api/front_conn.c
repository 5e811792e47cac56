/* front_conn.c: a civetweb worker's connection, what both civetweb front
 * ends (front_civet.c for HTTP and SSE, front_ws.c for WebSockets) share:
 *
 *  - the worker's connection: its socket (civetweb 1.15 does not tell it:
 *    front_conn_socket() asks the kernel, see there) and its stack, given
 *    back after deep requests;
 *  - deadlines: one slot per worker and one thread that, at a slot's
 *    deadline, shuts the read side of its socket down, which ends
 *    civetweb's (or our) read at once: civetweb bounds a header read only
 *    by time since its start and a body read only by the gap between two
 *    bytes, so a client dribbling a byte at a time could hold a worker for
 *    ever (front_civet.c says which bound applies when);
 *  - turns: how many requests run a handler at once (see "how many
 *    requests run at once");
 *  - the response writer: status line, headers and body in one write.
 *
 * It was the first half of front_civet.c; front_ws.c used it from there
 * and front_civet.c used front_ws.c, a cycle this file breaks.
 */
#include "front_conn.h"

#include <civetweb.h>
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    BUSY_WAIT_MS = 10000,    /* a request waits this long for a turn, then 503 */
    TRIM_IDLE_MS = 300,      /* idle this long after work: free memory goes back */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t front_conn_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- this worker's connection ------------------------------------------------ */

/* A worker serves one connection at a time, from init_connection to
 * connection_close, so per-thread is per-connection. */
static __thread front_conn_worker T = {.slot = -1, .fd = -1};

front_conn_worker *front_conn_self(void) { return &T; }

/* A worker's stack (100 KB in Debian's build) keeps, resident, every page
 * the deepest request it ever ran touched: a game request goes some 70 KB
 * deep (civetweb's own frames take 29 KB before ours), /healthz 36 KB. With
 * hundreds of workers that would add up, so after a request that went
 * deeper than STACK_PROBE (48 KiB) the pages below the current frame are given
 * back (they read as zeros when touched again). mincore() tells whether
 * any page below the probe is resident; it is asked after requests that ran
 * for more than TRIM_AFTER_US (the deep ones run bots: milliseconds; the
 * shallow ones take tens of microseconds). When a connection closes, all
 * of the stack below civetweb's own frames is given back. */
enum { STACK_PROBE = 48 << 10 };

static void stack_note(void)
{
    pthread_attr_t a;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    if (pthread_attr_getstack(&a, &lo, &size) == 0 && size > 2 * STACK_PROBE) {
        T.lo = lo;
        T.probe = (char *)lo + size - STACK_PROBE;
    }
    pthread_attr_destroy(&a);
}

/* Give back the stack below the current frame: after a deep request if
 * `always` is 0, whatever it holds if 1 (a connection closes). */
__attribute__((noinline)) void front_conn_trim_stack(int always)
{
    if (!T.probe)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)T.lo + page - 1) & ~(page - 1);
    uintptr_t probe = (uintptr_t)T.probe & ~(page - 1);
    unsigned char vec[64];
    size_t n = (probe - lo) / page, deep = always;
    if (!deep && (probe <= lo || n > sizeof vec || mincore((void *)lo, probe - lo, vec) != 0))
        return;
    for (size_t i = 0; i < n && !deep; i++)
        deep = vec[i] & 1;
    if (!deep)
        return; /* nothing resident below the probe: the usual case */
    char here;
    uintptr_t hi = ((uintptr_t)&here - 4096) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* 1 when fd is the TCP connection civetweb describes in ri: same peer
 * address and port, same local port. A 4-tuple names one connection. */
static int is_conn_socket(int fd, const struct mg_request_info *ri)
{
    struct sockaddr_storage a;
    socklen_t n = sizeof a;
    unsigned char want[16];
    int port;
    if (getpeername(fd, (struct sockaddr *)&a, &n) != 0)
        return 0;
    if (a.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)&a;
        port = ntohs(s->sin_port);
        if (inet_pton(AF_INET, ri->remote_addr, want) != 1 || memcmp(want, &s->sin_addr, 4) != 0)
            return 0;
    } else if (a.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&a;
        port = ntohs(s->sin6_port);
        if (inet_pton(AF_INET6, ri->remote_addr, want) != 1 || memcmp(want, &s->sin6_addr, 16) != 0)
            return 0;
    } else {
        return 0;
    }
    if (port != ri->remote_port)
        return 0;
    n = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &n) != 0)
        return 0;
    port = a.ss_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)&a)->sin6_port)
                                   : ntohs(((const struct sockaddr_in *)&a)->sin_port);
    return port == ri->server_port;
}

static int g_fd_lookup_warned; /* said once that a socket could not be found */

/* The sockets found, each another worker's connection's until its
 * connection_close (front_conn_release: before civetweb closes it, so a
 * number the kernel gives a new connection is never marked): the search
 * skips them without a call to the kernel. */
enum { CLAIMED_MAX = 1 << 16 };
static unsigned char g_claimed[CLAIMED_MAX];

void front_conn_release(int fd)
{
    if (fd >= 0 && fd < CLAIMED_MAX)
        __atomic_store_n(&g_claimed[fd], 0, __ATOMIC_RELAXED);
}

/* The size of this process's descriptor table (the kernel's FDSize: a
 * power of two above the highest descriptor open), or, without /proc, the
 * descriptor limit up to 65,536. */
static int fd_table_size(void)
{
    int size = 0;
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        char line[128];
        while (!size && fgets(line, sizeof line, f))
            if (strncmp(line, "FDSize:", 7) == 0)
                size = atoi(line + 7);
        fclose(f);
    }
    if (size <= 0) {
        struct rlimit rl;
        size = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur
                                                                         : 65536;
    }
    return size;
}

/* The socket of the connection civetweb describes in ri. civetweb's API
 * does not give it, and its struct is not ours to read: the kernel is
 * asked instead. Each descriptor number below the size of the descriptor
 * table, but those of the other connections found, is checked by
 * is_conn_socket() (one getpeername(): a closed number or another kind of
 * file fails it at once): the one TCP socket whose peer
 * address and port and local port are this request's. Run once per
 * connection (the worker keeps the answer until connection_close), on its
 * first request: before a request is read civetweb tells nothing about its
 * connection (mg_get_request_info() answers NULL), so the first request's
 * line and headers are bounded by civetweb's request_timeout_ms alone.
 * The cost grows with the descriptors the process holds
 * (tests/bench/fd_lookup.c, docs/deployment.md). */
int front_conn_socket(const struct mg_request_info *ri)
{
    if (!ri || !ri->remote_port)
        return -1;
    int found = -1, top = fd_table_size();
    for (int fd = 3; found < 0 && fd < top; fd++)
        if (!(fd < CLAIMED_MAX && __atomic_load_n(&g_claimed[fd], __ATOMIC_RELAXED)) &&
            is_conn_socket(fd, ri))
            found = fd;
    if (found >= 0 && found < CLAIMED_MAX)
        __atomic_store_n(&g_claimed[found], 1, __ATOMIC_RELAXED);
    if (found < 0 && !__atomic_exchange_n(&g_fd_lookup_warned, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "croupier: cannot find the socket of a connection from %s:%d: its "
                        "deadlines fall back to civetweb's own timeouts\n",
                ri->remote_addr, ri->remote_port);
    return found;
}

/* ---- deadlines ------------------------------------------------------------------ */

/* One per worker, with its own lock: a worker arms and disarms its slot
 * without meeting the others, only the deadline thread's pass over it. */
typedef struct slot {
    pthread_mutex_t mu;
    int fd;
    int64_t deadline; /* ms, 0 = disarmed */
    int fired;
    int idle; /* armed for keep-alive: a request that has begun to arrive gets
                 CONN_HEADER_MS more */
    int both; /* a write's deadline: the socket is shut both ways */
} slot;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot *slots;
    int nslots, next, running;
    pthread_t th;
} D = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void arm(int ms, int both)
{
    if (T.slot < 0 || T.fd < 0)
        return;
    slot *s = &D.slots[T.slot];
    pthread_mutex_lock(&s->mu);
    s->fd = T.fd;
    __atomic_store_n(&s->deadline, now_ms() + ms, __ATOMIC_RELAXED);
    s->fired = 0;
    s->idle = !both && ms == CONN_KEEPALIVE_MS;
    s->both = both;
    pthread_mutex_unlock(&s->mu);
}

void front_conn_arm(int ms) { arm(ms, 0); }

void front_conn_arm_write(int ms) { arm(ms, 1); }

/* This worker's slot's fired flag; clear: disarm the slot too. */
static int slot_fired(int clear)
{
    if (T.slot < 0)
        return 0;
    slot *s = &D.slots[T.slot];
    pthread_mutex_lock(&s->mu);
    int fired = s->fired;
    if (clear) {
        s->fd = -1;
        __atomic_store_n(&s->deadline, 0, __ATOMIC_RELAXED);
        s->fired = 0;
    }
    pthread_mutex_unlock(&s->mu);
    return fired;
}

int front_conn_disarm(void) { return slot_fired(1); }

int front_conn_fired(void) { return slot_fired(0); }

static void trim_when_idle(int64_t now);

/* Slots are disarmed (under their lock) before their socket is closed
 * (connection_close), so a shutdown() here never reaches a reused fd. */
static void *deadlines(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&D.mu);
    while (D.running) {
        pthread_mutex_unlock(&D.mu);
        int64_t now = now_ms();
        for (int i = 0; i < D.nslots; i++) {
            slot *s = &D.slots[i];
            if (!__atomic_load_n(&s->deadline, __ATOMIC_RELAXED))
                continue; /* a glance first: most slots are disarmed */
            pthread_mutex_lock(&s->mu);
            if (s->deadline && !s->fired && now >= s->deadline && s->fd >= 0) {
                char c;
                /* the next request came before the idle time ran out, but no
                 * worker has read it yet (a busy machine): let it in */
                if (s->idle && recv(s->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1) {
                    s->idle = 0;
                    __atomic_store_n(&s->deadline, now + CONN_HEADER_MS, __ATOMIC_RELAXED);
                } else {
                    shutdown(s->fd, s->both ? SHUT_RDWR : SHUT_RD);
                    s->fired = 1;
                }
            }
            pthread_mutex_unlock(&s->mu);
        }
        trim_when_idle(now);
        pthread_mutex_lock(&D.mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&D.cv, &D.mu, &ts);
    }
    pthread_mutex_unlock(&D.mu);
    return NULL;
}

int front_conn_fd(void) { return T.fd; }

void front_conn_cut(int fd)
{
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
}

void front_conn_stream_socket(int fd)
{
    int size = CONN_STREAM_SNDBUF;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

int front_conn_client_gone(void)
{
    struct pollfd p = {.fd = T.fd, .events = POLLIN | POLLRDHUP};
    return T.fd >= 0 && poll(&p, 1, 0) == 1 &&
           (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* ---- how many requests run at once ------------------------------------------------ */

/* Workers hold connections; only so many of them run a handler at a time,
 * the others wait their turn on their own thread (no hand-off). Requests
 * that may run bots (POST /games..., /play/..., a hint) take 0.3-1 MB of
 * heap and milliseconds of CPU each, and so do the kit's cases (GET
 * /cases/...: seconds for thousands): at most 4 per CPU (at least 8) run at
 * once, as hundreds at once would take hundreds of MB for no more
 * throughput. The other requests of a game (views, events, /healthz) take a
 * store connection: at most STORE_TURNS at once, the store's pool (more
 * would be opened and closed per request). The stateless ones (/validate,
 * /rules, the page, /metrics) never wait. A request that cannot start
 * within BUSY_WAIT_MS is answered 503; one whose client has gone away
 * while it waited is dropped unanswered and unapplied (it never started).
 * When the server goes idle after work, malloc_trim() gives the freed heap
 * back. */
enum { STORE_TURNS = 32 };

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv[2];
    int limit[2], running[2], waiting[2], dirty, busy; /* running..busy: atomics */
    int64_t last_done;
} B = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .cv = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER}};

int front_conn_gate(const char *method, const char *path)
{
    if (strncmp(path, "/validate", 9) == 0 && (path[9] == 0 || path[9] == '/'))
        return CONN_GATE_NONE;
    if (strcmp(method, "POST") == 0 || strcmp(method, "DELETE") == 0)
        return CONN_GATE_BOTS;
    size_t n = strlen(path);
    if ((n >= 5 && strcmp(path + n - 5, "/hint") == 0) || strncmp(path, "/cases/", 7) == 0)
        return CONN_GATE_BOTS; /* bots, or the kit's cases: milliseconds to seconds of CPU */
    if (strncmp(path, "/games", 6) == 0 || strcmp(path, "/healthz") == 0)
        return CONN_GATE_STORE;
    return CONN_GATE_NONE;
}

/* A turn without a lock when one is free (the usual case). */
static int take_turn(int g)
{
    int r = __atomic_load_n(&B.running[g], __ATOMIC_RELAXED);
    while (r < B.limit[g])
        if (__atomic_compare_exchange_n(&B.running[g], &r, r + 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
    return 0;
}

int front_conn_enter(int g)
{
    if (g == CONN_GATE_NONE)
        return 0;
    int rc = 0;
    if (!take_turn(g)) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += BUSY_WAIT_MS / 1000;
        pthread_mutex_lock(&B.mu);
        /* counted as waiting before looking again: a front_conn_leave() after this
         * look sees us and signals (it takes B.mu, which we hold until we
         * wait) */
        __atomic_add_fetch(&B.waiting[g], 1, __ATOMIC_SEQ_CST);
        while (!take_turn(g) && rc == 0)
            rc = pthread_cond_clockwait(&B.cv[g], &B.mu, CLOCK_MONOTONIC, &until);
        __atomic_sub_fetch(&B.waiting[g], 1, __ATOMIC_SEQ_CST);
        if (rc) /* timed out: one last look */
            rc = take_turn(g) ? 0 : -1;
        pthread_mutex_unlock(&B.mu);
        if (rc)
            return -1;
        __atomic_add_fetch(&B.busy, 1, __ATOMIC_RELAXED);
        if (front_conn_client_gone()) {
            front_conn_leave(g);
            return -2;
        }
        return 0;
    }
    __atomic_add_fetch(&B.busy, 1, __ATOMIC_RELAXED);
    return 0;
}

void front_conn_leave(int g)
{
    if (g == CONN_GATE_NONE)
        return;
    __atomic_store_n(&B.last_done, now_ms(), __ATOMIC_RELAXED);
    __atomic_store_n(&B.dirty, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&B.busy, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&B.running[g], 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&B.waiting[g], __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&B.mu);
        pthread_cond_signal(&B.cv[g]);
        pthread_mutex_unlock(&B.mu);
    }
}

/* From the deadline thread: give the heap back once the work is over. */
static void trim_when_idle(int64_t now)
{
    if (__atomic_load_n(&B.dirty, __ATOMIC_RELAXED) && !__atomic_load_n(&B.busy, __ATOMIC_RELAXED) &&
        now - __atomic_load_n(&B.last_done, __ATOMIC_RELAXED) >= TRIM_IDLE_MS) {
        __atomic_store_n(&B.dirty, 0, __ATOMIC_RELAXED);
        malloc_trim(0);
    }
}

/* Appends to a response head being built (bounded by cap). */
typedef struct outbuf {
    char *p;
    size_t n, cap;
} outbuf;

static void put(outbuf *o, const char *s, size_t len)
{
    if (o->n + len > o->cap)
        len = o->cap > o->n ? o->cap - o->n : 0;
    memcpy(o->p + o->n, s, len);
    o->n += len;
}

static void puts_(outbuf *o, const char *s) { put(o, s, strlen(s)); }

static void putnum(outbuf *o, unsigned long long v)
{
    char d[24];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(o, d + i, sizeof d - i);
}

void front_conn_write(struct mg_connection *conn, const http_res *res, int head_only,
                       int close)
{
    /* the head is at most 1 KiB of ours plus the handler's headers */
    size_t head = 1024 + (size_t)res->nheaders * (sizeof res->headers[0].name +
                                                  sizeof res->headers[0].value + 4);
    size_t body = (!head_only && res->body_len && res->status != 204 && res->status != 304)
                      ? res->body_len : 0;
    char local[8192];
    outbuf o = {local, 0, head + body};
    if (o.cap > sizeof local && !(o.p = malloc(o.cap)))
        return;
    puts_(&o, "HTTP/1.1 ");
    putnum(&o, (unsigned)res->status);
    put(&o, " ", 1);
    const char *why = http_reason(res->status); /* civetweb's: "Unproccessable entity" */
    puts_(&o, *why ? why : mg_get_response_code_text(conn, res->status));
    put(&o, "\r\n", 2);
    if (res->content_type[0]) {
        puts_(&o, "Content-Type: ");
        puts_(&o, res->content_type);
        put(&o, "\r\n", 2);
    }
    for (int i = 0; i < res->nheaders; i++) {
        puts_(&o, res->headers[i].name);
        put(&o, ": ", 2);
        puts_(&o, res->headers[i].value);
        put(&o, "\r\n", 2);
    }
    /* the head of an event stream (HEAD): a stream has no length */
    int unsized = head_only && strcmp(res->content_type, "text/event-stream") == 0;
    if (res->status != 204 && res->status != 304 && !unsized) {
        puts_(&o, "Content-Length: ");
        putnum(&o, res->body_len);
        put(&o, "\r\n", 2);
    }
    /* Keep-Alive tells clients (undici, curl) when we stop waiting, so they do
     * not send on a connection just as we close it */
    if (close) {
        puts_(&o, "Connection: close\r\n");
    } else {
        puts_(&o, "Keep-Alive: timeout=");
        putnum(&o, CONN_KEEPALIVE_MS / 1000);
        put(&o, "\r\n", 2);
    }
    puts_(&o, "X-Content-Type-Options: nosniff\r\n\r\n");
    if (body)
        put(&o, res->body, body);
    if (close) /* and civetweb must not read on (e.g. a body we refused) */
        mg_disable_connection_keep_alive(conn);
    mg_write(conn, o.p, o.n); /* one write: headers and body together */
    if (o.p != local)
        free(o.p);
}


void front_conn_worker_start(void)
{
    int i = __atomic_fetch_add(&D.next, 1, __ATOMIC_RELAXED);
    T.slot = i < D.nslots ? i : -1;
    stack_note();
}

int front_conn_start(int threads, char *err, size_t errlen)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    B.limit[CONN_GATE_BOTS] = cpus > 2 ? (int)(4 * cpus) : 8;
    B.limit[CONN_GATE_STORE] = STORE_TURNS;
    D.slots = calloc((size_t)threads, sizeof *D.slots);
    if (!D.slots) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < threads; i++) {
        pthread_mutex_init(&D.slots[i].mu, NULL);
        D.slots[i].fd = -1;
    }
    D.nslots = threads;
    D.next = 0;
    D.running = 1;
    if (pthread_create(&D.th, NULL, deadlines, NULL)) {
        free(D.slots);
        D.slots = NULL;
        snprintf(err, errlen, "cannot start the deadline thread");
        return -1;
    }
    return 0;
}

void front_conn_stop(void)
{
    pthread_mutex_lock(&D.mu);
    D.running = 0;
    pthread_cond_signal(&D.cv);
    pthread_mutex_unlock(&D.mu);
    pthread_join(D.th, NULL);
    free(D.slots);
    D.slots = NULL;
    D.nslots = 0;
}
