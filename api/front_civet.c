/* front_civet.c: the embedded HTTP front end (civetweb).
 *
 * civetweb gives every connection a worker thread of its own for as long as
 * it is open (reading the request line and headers, the body, waiting on
 * keep-alive, a Server-Sent Events stream, a WebSocket), so the number of
 * workers is the number of connections served at once, and every way a
 * client can hold a connection has a bound:
 *
 *  - request line + headers: HEADER_MS after the worker took the
 *    connection; an idle keep-alive connection (and the headers of its next
 *    request): KEEPALIVE_MS after the last response;
 *  - a body: BODY_MS (plus BODY_MS_PER_64K for large ones) once the
 *    headers are in: a body that is late is a 408, one that ends short of
 *    its Content-Length (or a broken chunked one) a 400, and neither reaches
 *    a handler;
 *  - streams (SSE here, WebSockets in front_ws.c) are counted against the
 *    stream budget of limits.c (503 + Retry-After beyond it) and end when
 *    idle (events.c, front_ws.c).
 *
 * civetweb bounds a header read only by time since its start and a body
 * read only by the gap between two bytes, so a client dribbling a byte at
 * a time could hold a worker for ever. A deadline thread enforces our
 * bounds: at a deadline it shuts the read side of the socket down, which
 * ends civetweb's (or our) read at once, and the request is answered 408.
 * civetweb 1.15 does not tell us a connection's socket; conn_fd() finds it
 * (see there).
 *
 * A request runs api_handle() on the worker that accepted it, with no
 * hand-off: the engine and api/ fit its stack (Debian builds civetweb with
 * 100 KB worker stacks, fixed at build time, no option changes it; civetweb's
 * own frames take 29 KB before ours, the deepest request seen in the HTTP
 * suites reached 70 KB, 78 KB under ASan; tests/unit/test_stack.c runs every
 * game's bots and the request path on 64 KiB). Requests that may run bots,
 * and those that need a store connection, take turns (see "how many
 * requests run at once"). The response goes out in ONE write (status
 * line, headers and body in one buffer: with
 * tcp_nodelay this avoids the ~40 ms Nagle/delayed-ACK stall of a separate
 * header write). Errors that civetweb answers itself (an unreadable request
 * line, a bad header, a timeout while reading headers, an HTTP version it
 * does not speak) come back as problem+json through its http_error
 * callback.
 */
#include "front_civet.h"
#include "front_ws.h"
#include "limits.h"

#include <civetweb.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_received */
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum {
    HEADER_MS = 5000,        /* request line + headers */
    KEEPALIVE_MS = 5000,     /* idle between two requests of a connection */
    BODY_MS = 10000,         /* a body, from the end of its headers */
    BODY_MS_PER_64K = 1000,  /* ... plus this per 64 KiB of Content-Length */
    IO_MS = 10000,           /* civetweb's own bound on one read or write */
    MAX_REQUEST = 16384,     /* request line + headers (civetweb's buffer) */
    BUSY_WAIT_MS = 10000,    /* a request waits this long for a turn, then 503 */
    TRIM_IDLE_MS = 300,      /* idle this long after work: free memory goes back */
    TRIM_AFTER_US = 300,     /* a request this long ran bots: check its stack */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- this worker's connection ------------------------------------------------ */

/* A worker serves one connection at a time, from init_connection to
 * connection_close, so per-thread is per-connection. */
static __thread struct {
    int slot;    /* this worker's deadline slot; -1 none (not a worker) */
    int fd;      /* the connection's socket; -1 unknown */
    int served;  /* requests answered on this connection */
    int begun;   /* the request read last reached us (begin_request or an
                    error), and was not yet ended: see answer_unrouted() */
    char *lo;    /* the lowest address of this worker's stack */
    char *probe; /* STACK_PROBE below its top (see stack_trim) */
} T = {-1, -1, 0, 0, NULL, NULL};

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
__attribute__((noinline)) static void stack_trim(int always)
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
        if (inet_pton(AF_INET, ri->remote_addr, want) == 1 &&
            memcmp(want, &s->sin_addr, 4) != 0)
            return 0;
    } else if (a.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&a;
        port = ntohs(s->sin6_port);
        if (inet_pton(AF_INET6, ri->remote_addr, want) == 1 &&
            memcmp(want, &s->sin6_addr, 16) != 0)
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

static int g_fd_lookup = 1; /* cleared when the layout below is not civetweb's */
static long g_ri_off = -1, g_fd_off = -1; /* learnt from the first request */

/* The socket of `conn`. civetweb 1.15 has no call for it, but its
 * struct mg_connection holds it: struct socket client (the descriptor, then
 * the local and remote addresses) follows, a few pointers later, the
 * request_info and response_info whose address and size the public header
 * gives. On the first request we look at each int-aligned word of that
 * stretch and take the one that is a socket of this very connection
 * (is_conn_socket: a check by the kernel, so a stray word cannot be taken
 * for it), and remember where it was; later connections are looked up there
 * (and checked the same way) as soon as they are accepted, before a byte of
 * their request is read (mg_get_request_info() answers only once a request
 * is read: ri is NULL then and the learnt offset of request_info is used).
 * If no word matches, the layout is not the one we know: we say so once and
 * run without our deadlines (headers and bodies then bounded by civetweb's
 * own timeouts, WebSockets by its pings). */
static int conn_fd(const struct mg_connection *conn, const struct mg_request_info *ri)
{
    if (!__atomic_load_n(&g_fd_lookup, __ATOMIC_RELAXED))
        return -1;
    const char *base = (const char *)conn;
    long ri_off = __atomic_load_n(&g_ri_off, __ATOMIC_RELAXED);
    long fd_off = __atomic_load_n(&g_fd_off, __ATOMIC_RELAXED);
    if (!ri) {
        if (ri_off < 0)
            return -1;
        ri = (const struct mg_request_info *)(base + ri_off);
    }
    int fd;
    if (fd_off >= 0) {
        memcpy(&fd, base + fd_off, sizeof fd);
        if (fd > 2 && is_conn_socket(fd, ri))
            return fd;
    }
    const char *p = (const char *)ri + sizeof(struct mg_request_info) +
                    sizeof(struct mg_response_info);
    for (size_t off = 0; off <= 96; off += sizeof(int)) {
        memcpy(&fd, p + off, sizeof fd);
        if (fd > 2 && fd < (1 << 24) && is_conn_socket(fd, ri)) {
            __atomic_store_n(&g_ri_off, (long)((const char *)ri - base), __ATOMIC_RELAXED);
            __atomic_store_n(&g_fd_off, (long)(p + off - base), __ATOMIC_RELAXED);
            return fd;
        }
    }
    if (__atomic_exchange_n(&g_fd_lookup, 0, __ATOMIC_RELAXED))
        fprintf(stderr, "croupier: cannot find civetweb's connection sockets (not civetweb "
                        "1.15's layout): header, body and WebSocket deadlines fall back to "
                        "civetweb's own timeouts\n");
    return -1;
}

/* ---- deadlines ------------------------------------------------------------------ */

/* One per worker, with its own lock: a worker arms and disarms its slot
 * without meeting the others, only the deadline thread's pass over it. */
typedef struct slot {
    pthread_mutex_t mu;
    int fd;
    int64_t deadline; /* ms, 0 = disarmed */
    int fired;
    int idle; /* armed for keep-alive: a request that has begun to arrive gets HEADER_MS more */
} slot;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot *slots;
    int nslots, next, running;
    pthread_t th;
} D = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void arm(int ms)
{
    if (T.slot < 0 || T.fd < 0)
        return;
    slot *s = &D.slots[T.slot];
    pthread_mutex_lock(&s->mu);
    s->fd = T.fd;
    __atomic_store_n(&s->deadline, now_ms() + ms, __ATOMIC_RELAXED);
    s->fired = 0;
    s->idle = ms == KEEPALIVE_MS;
    pthread_mutex_unlock(&s->mu);
}

/* Disarm; 1 when the deadline had passed (the read side was shut). */
static int disarm(void)
{
    if (T.slot < 0)
        return 0;
    slot *s = &D.slots[T.slot];
    pthread_mutex_lock(&s->mu);
    int fired = s->fired;
    s->fd = -1;
    __atomic_store_n(&s->deadline, 0, __ATOMIC_RELAXED);
    s->fired = 0;
    pthread_mutex_unlock(&s->mu);
    return fired;
}

static int fired_now(void)
{
    if (T.slot < 0)
        return 0;
    slot *s = &D.slots[T.slot];
    pthread_mutex_lock(&s->mu);
    int fired = s->fired;
    pthread_mutex_unlock(&s->mu);
    return fired;
}

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
                    __atomic_store_n(&s->deadline, now + HEADER_MS, __ATOMIC_RELAXED);
                } else {
                    shutdown(s->fd, SHUT_RD);
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

int front_civet_fd(void) { return T.fd; }

void front_civet_cut(int fd)
{
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
}

/* 1 when this worker's client has closed its connection (or it broke). */
static int client_gone(void)
{
    struct pollfd p = {.fd = T.fd, .events = POLLIN | POLLRDHUP};
    return T.fd >= 0 && poll(&p, 1, 0) == 1 &&
           (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* ---- how many requests run at once ------------------------------------------------ */

/* Workers hold connections; only so many of them run a handler at a time,
 * the others wait their turn on their own thread (no hand-off). Requests
 * that may run bots (POST /games..., /play/..., a hint) take 0.3-1 MB of
 * heap and milliseconds of CPU each: at most 4 per CPU (at least 8) run at
 * once, as hundreds at once would take hundreds of MB for no more
 * throughput. The other requests of a game (views, events, /healthz) take a
 * store connection: at most STORE_TURNS at once, the store's pool (more
 * would be opened and closed per request). The stateless ones (/validate,
 * /rules, the page, /metrics) never wait. A request that cannot start
 * within BUSY_WAIT_MS is answered 503; one whose client has gone away
 * while it waited is dropped unanswered and unapplied (it never started).
 * When the server goes idle after work, malloc_trim() gives the freed heap
 * back. */
enum { GATE_NONE = -1, GATE_STORE = 0, GATE_BOTS = 1, STORE_TURNS = 32 };

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv[2];
    int limit[2], running[2], waiting[2], dirty, busy; /* running..busy: atomics */
    int64_t last_done;
} B = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .cv = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER}};

/* Which turns a request needs (see above). */
static int gate_of(const char *method, const char *path)
{
    if (strncmp(path, "/validate", 9) == 0 && (path[9] == 0 || path[9] == '/'))
        return GATE_NONE;
    if (strcmp(method, "POST") == 0 || strcmp(method, "DELETE") == 0)
        return GATE_BOTS;
    size_t n = strlen(path);
    if (n >= 5 && strcmp(path + n - 5, "/hint") == 0)
        return GATE_BOTS;
    if (strncmp(path, "/games", 6) == 0 || strcmp(path, "/healthz") == 0)
        return GATE_STORE;
    return GATE_NONE;
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

static void leave(int g);

/* 0: run; -1: no turn in time (503); -2: waited, and the client is gone. */
static int enter(int g)
{
    if (g == GATE_NONE)
        return 0;
    int rc = 0;
    if (!take_turn(g)) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += BUSY_WAIT_MS / 1000;
        pthread_mutex_lock(&B.mu);
        /* counted as waiting before looking again: a leave() after this
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
        if (client_gone()) {
            leave(g);
            return -2;
        }
        return 0;
    }
    __atomic_add_fetch(&B.busy, 1, __ATOMIC_RELAXED);
    return 0;
}

static void leave(int g)
{
    if (g == GATE_NONE)
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

int front_civet_enter(void) { return enter(GATE_BOTS); }
void front_civet_leave(void) { leave(GATE_BOTS); }

/* From the deadline thread: give the heap back once the work is over. */
static void trim_when_idle(int64_t now)
{
    if (__atomic_load_n(&B.dirty, __ATOMIC_RELAXED) && !__atomic_load_n(&B.busy, __ATOMIC_RELAXED) &&
        now - __atomic_load_n(&B.last_done, __ATOMIC_RELAXED) >= TRIM_IDLE_MS) {
        __atomic_store_n(&B.dirty, 0, __ATOMIC_RELAXED);
        malloc_trim(0);
    }
}

/* ---- civetweb callbacks -------------------------------------------------------- */

static void *on_init_thread(const struct mg_context *ctx, int type)
{
    (void)ctx;
    if (type == 1) { /* a worker */
        int i = __atomic_fetch_add(&D.next, 1, __ATOMIC_RELAXED);
        T.slot = i < D.nslots ? i : -1;
        stack_note();
    }
    return NULL;
}

static int on_init_connection(const struct mg_connection *conn, void **data)
{
    *data = NULL;
    T.fd = conn_fd(conn, NULL);
    T.served = 0;
    arm(HEADER_MS);
    return 0;
}

static int g_probe_port; /* the local port of learn_layout()'s connection */

/* Where civetweb 1.15 keeps the state of a chunked request body (its
 * is_chunked: 1 reading, 2 broken, 3 the last chunk read but not the empty
 * line after it, 4 complete). It tells a body that ended properly from one
 * whose end never came (civetweb's own read timeout ended it) or that
 * carries a trailer section: mg_read() answers 0 for all three. Learnt
 * from learn_layout()'s chunked request as conn_fd() learns the socket:
 * the one word of the CHUNK_SPAN bytes from the socket's on that read 1
 * before its body was read and 4 after. In Debian 12's build it lies 88
 * bytes after the socket, and the struct goes on for 216 (2,512 bytes in
 * all, the stride of civetweb's array of connections): the span stays
 * inside the struct, since the last worker's is the array's end. Another
 * layout may put it out of reach: unlearnt (-1), chunked bodies are
 * refused (411), as RFC 9112 allows, rather than taken without knowing
 * how they ended. */
static long g_chunk_off = -1;
enum { CHUNK_SPAN = 128 };

static int chunk_state(const struct mg_connection *conn)
{
    long off = __atomic_load_n(&g_chunk_off, __ATOMIC_RELAXED);
    int v = -1;
    if (off >= 0)
        memcpy(&v, (const char *)conn + off, sizeof v);
    return v;
}

static void learn_chunk_state(struct mg_connection *conn)
{
    long fd_off = __atomic_load_n(&g_fd_off, __ATOMIC_RELAXED);
    const char *base = (const char *)conn;
    long ones[CHUNK_SPAN / sizeof(int)];
    int n = 0, v;
    for (long off = fd_off; fd_off >= 0 && off + (long)sizeof v <= fd_off + CHUNK_SPAN;
         off += (long)sizeof v) {
        memcpy(&v, base + off, sizeof v);
        if (v == 1)
            ones[n++] = off;
    }
    char sink[64];
    while (mg_read(conn, sink, sizeof sink) > 0)
        ;
    long found = -1;
    int hits = 0;
    for (int i = 0; i < n; i++) {
        memcpy(&v, base + ones[i], sizeof v);
        if (v == 4) {
            found = ones[i];
            hits++;
        }
    }
    if (hits == 1)
        __atomic_store_n(&g_chunk_off, found, __ATOMIC_RELAXED);
    else
        fprintf(stderr, "croupier: cannot find civetweb's chunked-body state (not civetweb "
                        "1.15's layout): request bodies in chunked encoding are refused (411)\n");
}

static int is_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* What civetweb 1.15's lenient header parser let through, judged from what
 * it left in its buffer (it writes NULs over the bytes it cuts at): NULL
 * when the header section is sound, else why not. RFC 9112 says a server
 * MUST refuse whitespace between a name and its colon (a proxy may read the
 * header otherwise: request smuggling) and an HTTP/1.1 request without
 * exactly one Host. civetweb also ends the header section, silently, at a
 * line it cannot read as Name: value (an empty name, a folded line, a byte
 * above 127): the lines after it, an Authorization or a Content-Length
 * among them, would be dropped unseen. Such a line leaves a NUL or two
 * after the last header it read, then that line's first byte (':', a space,
 * a byte above 127) where a sound section has its empty line. (With bare LF
 * line ends that spot is the body's first byte: a body that starts with one
 * of those three after an LF-only header section is refused too.) */
static const char *header_defect(const struct mg_request_info *ri)
{
    int hosts = 0;
    for (int i = 0; i < ri->num_headers; i++) {
        const char *name = ri->http_headers[i].name, *value = ri->http_headers[i].value;
        size_t len = strlen(name);
        for (size_t k = 0; k < len; k++)
            if (!is_tchar((unsigned char)name[k]))
                return "a header name holds a character a name may not hold";
        if (value > name + len + 1 && name[len + 1] == 0)
            return "whitespace between a header name and its colon";
        hosts += strcasecmp(name, "Host") == 0;
    }
    const char *last = ri->num_headers ? ri->http_headers[ri->num_headers - 1].value
                                       : ri->http_version;
    if (last) {
        const char *q = last + strlen(last);
        int z = 0;
        while (z < 3 && q[z] == 0)
            z++;
        unsigned char c = (unsigned char)q[z];
        if ((z == 1 || z == 2) && (c == ':' || c == ' ' || c >= 0x80))
            return "a header line that is not Name: value (an empty name, a folded line, "
                   "or a byte above 127 at its start)";
    }
    if (ri->http_version && strcmp(ri->http_version, "1.1") == 0 && hosts != 1)
        return hosts ? "Host is given more than once" : "an HTTP/1.1 request must name its Host";
    return NULL;
}

static int refuse(struct mg_connection *conn, int status, const char *path, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

static int on_begin_request(struct mg_connection *conn)
{
    disarm(); /* the headers are in */
    T.begun = 1;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (T.fd < 0) /* the first connection: learn where civetweb keeps sockets */
        T.fd = conn_fd(conn, ri);
    if (ri && ri->remote_port == __atomic_load_n(&g_probe_port, __ATOMIC_RELAXED) &&
        T.fd >= 0 && strcmp(ri->local_uri ? ri->local_uri : "", "/.croupier-probe") == 0) {
        learn_chunk_state(conn);
        static const char done[] = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
        mg_disable_connection_keep_alive(conn);
        mg_write(conn, done, sizeof done - 1);
        return 204; /* answered here: no handler, no metrics */
    }
    const char *defect = ri ? header_defect(ri) : NULL;
    if (defect)
        return refuse(conn, 400, ri->local_uri ? ri->local_uri : "/", "%s", defect);
    return 0;
}

static void on_end_request(const struct mg_connection *conn, int status)
{
    (void)conn;
    (void)status;
    T.begun = 0;
}

/* At start, one request of our own over loopback, so that the socket
 * layout (conn_fd) is learnt before any client's headers are read. */
static void learn_layout(int port, int ipv6)
{
    int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return;
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_storage a;
    memset(&a, 0, sizeof a);
    socklen_t alen;
    if (ipv6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        s6->sin6_addr = in6addr_loopback;
        alen = sizeof *s6;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&a;
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        alen = sizeof *s4;
    }
    struct sockaddr_storage me;
    socklen_t mlen = sizeof me;
    if (connect(fd, (struct sockaddr *)&a, alen) == 0 &&
        getsockname(fd, (struct sockaddr *)&me, &mlen) == 0) {
        int mine = ntohs(ipv6 ? ((struct sockaddr_in6 *)&me)->sin6_port
                              : ((struct sockaddr_in *)&me)->sin_port);
        __atomic_store_n(&g_probe_port, mine, __ATOMIC_RELAXED);
        static const char req[] = "POST /.croupier-probe HTTP/1.1\r\nHost: localhost\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
        if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)) {
            char buf[256];
            while (read(fd, buf, sizeof buf) > 0)
                ;
        }
    }
    __atomic_store_n(&g_probe_port, -1, __ATOMIC_RELAXED);
    close(fd);
}

static void answer_unrouted(struct mg_connection *conn);

static void on_connection_close(const struct mg_connection *conn)
{
    answer_unrouted((struct mg_connection *)conn);
    disarm();
    front_ws_closed(conn);
    T.fd = -1;
    stack_trim(1); /* the worker waits for its next connection with a small stack */
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

void front_civet_write(struct mg_connection *conn, const http_res *res, int head_only,
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
    if (res->status != 204 && res->status != 304) {
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
        putnum(&o, KEEPALIVE_MS / 1000);
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

static const api_config *g_cfg; /* the server's, for refusals made here */

/* Write a refusal made here, not by a handler, with the headers every
 * response carries (http_res_browser), and close the connection. */
static void send_refusal(struct mg_connection *conn, http_res *res, const char *path)
{
    http_req r = {.method = "GET", .path = path};
    http_res_browser(g_cfg, &r, res);
    front_civet_write(conn, res, 0, 1);
}

/* A refusal made here, not by a handler: problem+json, connection closed. */
static int refuse(struct mg_connection *conn, int status, const char *path, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));
static int refuse(struct mg_connection *conn, int status, const char *path, const char *fmt,
                  ...)
{
    char detail[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    http_res res;
    transport_problem(&res, status, detail, path);
    send_refusal(conn, &res, path);
    int st = res.status;
    http_res_free(&res);
    return st;
}

/* civetweb answers "Malformed message" both to a request with a bad byte in
 * it and to one whose request line and headers overflow its buffer: 1 for
 * the second, judged from the socket: civetweb took a full buffer of the
 * connection's first request, or left bytes unread in a later one. */
static int header_overflow(void)
{
    if (T.fd < 0)
        return 0;
    int inq = 0;
    if (ioctl(T.fd, FIONREAD, &inq) != 0)
        inq = 0;
    if (T.served > 0)
        return inq > 0;
    struct tcp_info ti;
    socklen_t n = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(T.fd, IPPROTO_TCP, TCP_INFO, &ti, &n) != 0 ||
        n < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received)
        return inq > 0;
    return ti.tcpi_bytes_received - (uint64_t)inq >= MAX_REQUEST;
}

/* civetweb's own errors: a request it could not read or will not serve.
 * The request line may be unreadable, so the instance is "/" then. */
static int on_http_error(struct mg_connection *conn, int status, const char *msg)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    const char *path = ri && ri->local_uri ? ri->local_uri : "/";
    const char *detail = msg;
    char buf[400];
    if (status == 400 && fired_now()) {
        status = 408;
        snprintf(buf, sizeof buf,
                 "the request line and headers must arrive within %d s (%d s after the "
                 "previous response on a kept-alive connection)",
                 HEADER_MS / 1000, KEEPALIVE_MS / 1000);
        detail = buf;
    } else if (status == 400 && msg && strcmp(msg, "Malformed message") == 0 &&
               header_overflow()) {
        status = 431;
        detail = "the request line and headers exceed 16 KiB";
    } else if (status == 411) { /* a Content-Length civetweb cannot read */
        status = 400;
        detail = "Content-Length must be a number of bytes";
    } else if (status == 400) {
        status = 400;
        snprintf(buf, sizeof buf,
                 "the request could not be read (%s): a request line METHOD /path "
                 "HTTP/1.1 with a known method, header lines Name: value without control "
                 "characters, a Content-Length of digits, 16 KiB of request line and "
                 "headers at most",
                 msg && *msg ? msg : "malformed");
        detail = buf;
    } else if (status == 413) { /* civetweb: request line + headers over its buffer */
        status = 431;
        detail = "the request line and headers exceed 16 KiB";
    } else if (status == 505) {
        snprintf(buf, sizeof buf, "only HTTP/1.0 and HTTP/1.1 are served (%s)",
                 msg && *msg ? msg : "");
        detail = buf;
    }
    T.begun = 1; /* answered */
    refuse(conn, status, path, "%s", detail);
    return 0; /* handled */
}

/* Requests civetweb reads but routes nowhere, and would close unanswered:
 * `OPTIONS *` (a question about the server itself: answered 204 with the
 * methods it serves), and a request-target in absolute form that names
 * another port than this server's (one that names this port is served as
 * its path: enable_auth_domain_check is off). Called as the connection
 * closes, when the request read last never reached begin_request. */
static void answer_unrouted(struct mg_connection *conn)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (T.begun || T.fd < 0 || !ri || !ri->request_method || !ri->request_uri || ri->local_uri ||
        client_gone())
        return;
    const char *uri = ri->request_uri;
    T.begun = 1;
    if (strcmp(uri, "*") == 0) {
        http_res res;
        memset(&res, 0, sizeof res);
        if (strcmp(ri->request_method, "OPTIONS") == 0) {
            res.status = 204;
            http_res_header(&res, "Allow", "GET, HEAD, POST, DELETE, OPTIONS");
            send_refusal(conn, &res, "/");
        } else {
            transport_problem(&res, 400, "the request-target * is for OPTIONS only", "/");
            send_refusal(conn, &res, "/");
        }
        http_res_free(&res);
    } else if (strncasecmp(uri, "http://", 7) == 0 || strncasecmp(uri, "https://", 8) == 0 ||
               strncasecmp(uri, "ws://", 5) == 0 || strncasecmp(uri, "wss://", 6) == 0) {
        refuse(conn, 400, "/",
               "this server is not a proxy: a request-target in absolute form must name this "
               "server's own port (or send the path alone, with a Host header)");
    }
}

/* The access log (--access-log): civetweb's line, with every secret-looking
 * query value redacted (http_redact_secrets: a token a client put in a URL
 * is refused, and must not be kept either), appended by one write. */
static int g_log_fd = -1;

static int on_log_access(const struct mg_connection *conn, const char *message)
{
    (void)conn;
    char line[4200];
    size_t k = http_redact_secrets(message, line, sizeof line - 1);
    line[k++] = '\n';
    if (write(g_log_fd, line, k) < 0)
        return 1; /* a full disk: the line is lost, the request is not */
    return 1;     /* civetweb writes nothing itself */
}

/* While mg_start2() runs, civetweb's first complaint is kept for the one
 * line front_civet_start() reports ("cannot bind to ..."), not printed. */
static struct {
    int on;
    char first[256];
} g_starting;

static int on_log(const struct mg_connection *conn, const char *msg)
{
    (void)conn;
    if (__atomic_load_n(&g_starting.on, __ATOMIC_ACQUIRE)) {
        if (!g_starting.first[0])
            snprintf(g_starting.first, sizeof g_starting.first, "%s", msg);
        return 1;
    }
    fprintf(stderr, "civetweb: %s\n", msg);
    return 1;
}

/* ---- requests ---------------------------------------------------------------------- */

/* Read the body: exactly Content-Length bytes, or a chunked body to its last
 * chunk, at most limit (+1 to tell a larger one). Returns 0 (the body, or
 * *too_large) or the status of a refusal with its detail in why. */
static int read_body(struct mg_connection *conn, long long clen, int chunked, size_t limit,
                     char **out, size_t *len, int *too_large, char *why, size_t whylen)
{
    *out = NULL;
    *len = 0;
    if (!chunked && clen <= 0)
        return 0;
    if (!chunked && (unsigned long long)clen > limit) {
        *too_large = 1; /* refused unread */
        return 0;
    }
    if (chunked && __atomic_load_n(&g_chunk_off, __ATOMIC_RELAXED) < 0) {
        snprintf(why, whylen, "send the body with a Content-Length: this server cannot "
                              "check how a chunked one ends");
        return 411;
    }
    size_t want_total = chunked ? limit + 1 : (size_t)clen;
    size_t cap = chunked ? 4096 : want_total, n = 0;
    char *buf = malloc(cap ? cap : 1);
    if (!buf)
        return 500;
    arm(BODY_MS + (int)((chunked ? 0 : clen) / 65536) * BODY_MS_PER_64K);
    int got = 0;
    while (n < want_total) {
        if (n == cap) {
            size_t ncap = cap * 2 > want_total ? want_total : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                disarm();
                return 500;
            }
            buf = nb;
            cap = ncap;
        }
        got = mg_read(conn, buf + n, cap - n);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    int late = disarm();
    if (late) {
        free(buf);
        snprintf(why, whylen, "the body must arrive within %d s (plus %d s per 64 KiB)",
                 BODY_MS / 1000, BODY_MS_PER_64K / 1000);
        return 408;
    }
    if (chunked && n > limit) {
        *too_large = 1;
        free(buf);
        return 0;
    }
    if (chunked && got < 0) {
        free(buf);
        snprintf(why, whylen, "the chunked body is malformed or ended before its last chunk");
        return 400;
    }
    if (chunked && chunk_state(conn) != 4) {
        free(buf);
        snprintf(why, whylen, "the chunked body must end with its last chunk (0) and an empty "
                              "line: it carried a trailer section, or its end never came");
        return 400;
    }
    if (!chunked && http_body_short(n, clen, why, whylen)) {
        free(buf);
        return 400;
    }
    *out = buf;
    *len = n;
    return 0;
}

/* Server-Sent Events: headers once, chunked (so the connection stays
 * reusable), then api_stream_events() writes each event as it is stored. */
static int chunk_writer(void *ctx, const char *data, size_t len)
{
    if (len == 0) /* is the client still there? (events.c) */
        return client_gone() ? -1 : 0;
    return mg_send_chunk(ctx, data, (unsigned)len) > 0 ? 0 : -1;
}

static void stream_events(struct mg_connection *conn, const front_civet *fc,
                          const http_req *req, const http_res *res)
{
    char head[1024 + HTTP_MAX_HEADERS * 260];
    int k = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n");
    for (int i = 0; i < res->nheaders; i++) /* what api_handle() set (security headers) */
        k += snprintf(head + k, sizeof head - (size_t)k, "%s: %s\r\n", res->headers[i].name,
                      res->headers[i].value);
    k += snprintf(head + k, sizeof head - (size_t)k,
                  "X-Content-Type-Options: nosniff\r\nTransfer-Encoding: chunked\r\n\r\n");
    if (mg_write(conn, head, (size_t)k) <= 0)
        return;
    api_stream_events(&fc->cfg, req, res, chunk_writer, conn, &fc->stopping);
    mg_send_chunk(conn, "", 0); /* last chunk */
}

static int all_digits(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == 0;
}

static int on_request(struct mg_connection *conn, void *data)
{
    const front_civet *fc = data;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    const char *path = ri->local_uri ? ri->local_uri : "/";
    /* civetweb keeps MG_MAX_HEADERS headers and drops the rest unseen: a
     * request that fills them may have had more (an Authorization among
     * them), so it is refused rather than half-read. */
    if (ri->num_headers >= MG_MAX_HEADERS)
        return refuse(conn, 431, path, "at most %d header lines are read",
                      MG_MAX_HEADERS - 1);
    http_header hdrs[MG_MAX_HEADERS];
    int ncl = 0, nte = 0;
    const char *cl = NULL, *te = NULL;
    for (int i = 0; i < ri->num_headers; i++) {
        hdrs[i].name = ri->http_headers[i].name;
        hdrs[i].value = ri->http_headers[i].value;
        if (strcasecmp(hdrs[i].name, "Content-Length") == 0) {
            ncl++;
            cl = hdrs[i].value;
        } else if (strcasecmp(hdrs[i].name, "Transfer-Encoding") == 0) {
            nte++;
            te = hdrs[i].value;
        }
    }
    if (ncl > 1)
        return refuse(conn, 400, path, "Content-Length is given %d times", ncl);
    if (ncl && nte)
        return refuse(conn, 400, path, "Content-Length and Transfer-Encoding together");
    if (nte > 1)
        return refuse(conn, 400, path, "Transfer-Encoding is given %d times", nte);
    if (cl && !all_digits(cl))
        return refuse(conn, 400, path, "Content-Length must be a number of bytes");
    int chunked = te && strcasecmp(te, "chunked") == 0;
    long long clen = cl ? ri->content_length : -1;
    if (cl && clen < 0)
        return refuse(conn, 400, path, "Content-Length is out of range");

    http_req req = {
        .method = ri->request_method,
        .path = path,
        .query = ri->query_string,
        .headers = hdrs,
        .nheaders = ri->num_headers,
        .remote_addr = ri->remote_addr,
    };
    char *body = NULL;
    size_t blen = 0;
    int too_large = 0;
    int is_head = strcmp(ri->request_method, "HEAD") == 0;
    int bodiless = is_head || strcmp(ri->request_method, "GET") == 0;
    int unread = 0; /* a body left unread: the connection cannot be reused */
    if (!bodiless) {
        char why[200] = "";
        int st = read_body(conn, clen, chunked, fc->cfg.body_limit, &body, &blen, &too_large,
                           why, sizeof why);
        if (st)
            return refuse(conn, st, path, "%s", st == 500 ? "out of memory" : why);
        unread = too_large;
    } else if (chunked || clen > 0) {
        unread = 1;
    }
    req.body = body;
    req.body_len = blen;
    req.body_too_large = too_large;

    int gate = gate_of(ri->request_method, path), turn = enter(gate);
    if (turn == -2) { /* the client left while the request waited */
        free(body);
        mg_disable_connection_keep_alive(conn);
        return 499; /* for the access log, as nginx says it */
    }
    if (turn) {
        free(body);
        http_res busy;
        transport_busy(&busy, "the server is busy: no turn to run this request came in 10 s; "
                              "try again later", path);
        send_refusal(conn, &busy, path);
        http_res_free(&busy);
        return 503;
    }
    http_res res;
    int64_t t0 = now_us();
    api_handle(&fc->cfg, &req, &res);
    int deep = now_us() - t0 > TRIM_AFTER_US; /* bots ran: the stack went deep */
    leave(gate);
    free(body);
    if (res.stream.on) {
        if (streams_acquire(ri->remote_addr)) {
            http_res_free(&res);
            return refuse(conn, 503, path,
                          "the server holds as many event streams as it serves at once (in "
                          "all, or from this address): try again later, or poll GET %s",
                          path);
        }
        stream_events(conn, fc, &req, &res);
        streams_release(ri->remote_addr);
        http_res_free(&res);
        arm(KEEPALIVE_MS);
        return 200;
    }
    front_civet_write(conn, &res, is_head, unread);
    T.served++;
    int status = res.status;
    http_res_free(&res);
    if (deep)
        stack_trim(0);
    if (!unread)
        arm(KEEPALIVE_MS); /* until the next request's headers are in */
    return status;
}

/* Who may do what is the API's business (seat and admin tokens). civetweb's
 * own authentication, from .htpasswd files, would look for one on every
 * request (with no document root: a stat of "/.htpasswd") and, were one
 * there, ask every client for a password; an authorization handler for
 * every path replaces it. */
static int no_file_auth(struct mg_connection *conn, void *data)
{
    (void)conn;
    (void)data;
    return 1;
}

int front_civet_start(front_civet *fc, const char *listen, int threads,
                      int access_log, char *err, size_t errlen)
{
    char nthreads[16], keepalive_ms[16], io_ms[16], queue[16];
    snprintf(nthreads, sizeof nthreads, "%d", threads);
    snprintf(keepalive_ms, sizeof keepalive_ms, "%d", (int)KEEPALIVE_MS);
    snprintf(io_ms, sizeof io_ms, "%d", (int)IO_MS);
    snprintf(queue, sizeof queue, "%d", threads < 64 ? 64 : threads);
    char max_request[16];
    snprintf(max_request, sizeof max_request, "%d", (int)MAX_REQUEST);
    const char *opts[40];
    int k = 0;
    opts[k++] = "listening_ports";
    opts[k++] = listen;
    opts[k++] = "num_threads";
    opts[k++] = nthreads;
    opts[k++] = "connection_queue";
    opts[k++] = queue;
    opts[k++] = "listen_backlog";
    opts[k++] = "1024";
    /* civetweb answers CORS preflights itself unless these are empty (its
     * defaults are "*"): every request must reach api_handle() instead */
    opts[k++] = "access_control_allow_origin";
    opts[k++] = "";
    opts[k++] = "access_control_allow_methods";
    opts[k++] = "";
    opts[k++] = "access_control_allow_headers";
    opts[k++] = "";
    opts[k++] = "max_request_size";
    opts[k++] = max_request;
    opts[k++] = "tcp_nodelay";
    opts[k++] = "1";
    opts[k++] = "enable_keep_alive";
    opts[k++] = "yes";
    opts[k++] = "keep_alive_timeout_ms";
    opts[k++] = keepalive_ms;
    opts[k++] = "request_timeout_ms";
    opts[k++] = io_ms;
    /* absolute-form request-targets that name this server's port are served
     * as their path (RFC 9112 3.2.2), whatever host they name: the server
     * serves every Host alike */
    opts[k++] = "enable_auth_domain_check";
    opts[k++] = "no";
    opts[k] = NULL;

    g_cfg = &fc->cfg;
    g_log_fd = access_log;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    B.limit[GATE_BOTS] = cpus > 2 ? (int)(4 * cpus) : 8;
    B.limit[GATE_STORE] = STORE_TURNS;
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

    struct mg_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.log_message = on_log;
    cb.http_error = on_http_error;
    cb.init_thread = on_init_thread;
    cb.init_connection = on_init_connection;
    cb.begin_request = on_begin_request;
    cb.connection_close = on_connection_close;
    cb.end_request = on_end_request;
    if (access_log >= 0)
        cb.log_access = on_log_access;
    mg_init_library(0);
    struct mg_init_data init = {.callbacks = &cb, .user_data = fc,
                                .configuration_options = opts};
    struct mg_error_data ed;
    char ebuf[256] = "";
    memset(&ed, 0, sizeof ed);
    ed.text = ebuf;
    ed.text_buffer_size = sizeof ebuf;
    g_starting.first[0] = 0;
    __atomic_store_n(&g_starting.on, 1, __ATOMIC_RELEASE);
    fc->ctx = mg_start2(&init, &ed);
    __atomic_store_n(&g_starting.on, 0, __ATOMIC_RELEASE);
    if (!fc->ctx) {
        snprintf(err, errlen, "--listen %s: %s", listen,
                 g_starting.first[0] ? g_starting.first : ebuf[0] ? ebuf : "civetweb failed to start");
        mg_exit_library();
        goto fail;
    }
    mg_set_request_handler(fc->ctx, "/", on_request, fc);
    mg_set_auth_handler(fc->ctx, "/", no_file_auth, NULL);
    if (front_ws_start(fc->ctx, &fc->cfg)) {
        snprintf(err, errlen, "cannot start the WebSocket poller");
        mg_stop(fc->ctx);
        fc->ctx = NULL;
        mg_exit_library();
        goto fail;
    }
    struct mg_server_port ports[4];
    memset(ports, 0, sizeof ports);
    int n = mg_get_server_ports(fc->ctx, 4, ports);
    fc->port = n > 0 ? ports[0].port : 0;
    if (n > 0) /* protocol 1: IPv4, 2: IPv6, 3: both */
        learn_layout(ports[0].port, ports[0].protocol == 2);
    return 0;
fail:
    pthread_mutex_lock(&D.mu);
    D.running = 0;
    pthread_cond_signal(&D.cv);
    pthread_mutex_unlock(&D.mu);
    pthread_join(D.th, NULL);
    free(D.slots);
    D.slots = NULL;
    D.nslots = 0;
    return -1;
}

/* civetweb's master thread polls its listening socket with a 2 s timeout
 * and only then sees the stop flag; a connection wakes it at once. */
static void *knock(void *arg)
{
    int port = (int)(intptr_t)arg;
    usleep(20 * 1000); /* after mg_stop has raised its flag */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connect(fd, (struct sockaddr *)&a, sizeof a);
        close(fd);
    }
    return NULL;
}

void front_civet_stop(front_civet *fc)
{
    if (fc->ctx) {
        __atomic_store_n(&fc->stopping, 1, __ATOMIC_RELEASE);
        front_ws_stop();
        pthread_t t;
        int knocking = fc->port > 0 &&
                       pthread_create(&t, NULL, knock, (void *)(intptr_t)fc->port) == 0;
        mg_stop(fc->ctx);
        if (knocking)
            pthread_join(t, NULL);
        fc->ctx = NULL;
        mg_exit_library();
        pthread_mutex_lock(&D.mu);
        D.running = 0;
        pthread_cond_signal(&D.cv);
        pthread_mutex_unlock(&D.mu);
        pthread_join(D.th, NULL);
        free(D.slots);
        D.slots = NULL;
        D.nslots = 0;
    }
}
