/* front_fcgi.c: the same API as a FastCGI application (libfcgi), for nginx
 * or any FastCGI web server, and as a plain CGI program when a CGI server
 * starts it. Every request goes through api_handle(), the handlers of the
 * civetweb front end, unchanged; only the transport differs:
 *  - CGI/FastCGI parameters -> http_req (REQUEST_METHOD, DOCUMENT_URI or
 *    PATH_INFO, QUERY_STRING, CONTENT_TYPE, HTTP_* headers);
 *  - the body is exactly CONTENT_LENGTH bytes when the server gives one (a
 *    body that ends short is a 400 and reaches no handler; one larger than
 *    --body-limit a 413, unread), else read to its end, with our own cap;
 *  - the response is "Status: ..." + headers + body, in one write.
 * FastCGI serves with N threads on one listening socket; SIGTERM stops
 * accepting and lets requests in flight finish. A Server-Sent Events stream
 * holds one of the N threads while it lasts: streams are counted against
 * the budget of transport_limits.c, which croupier fcgi sets below N (503
 * beyond).
 * The web server in front (nginx) absorbs slow clients: it hands a request
 * over only once it has all of it. Whatever else connects to the socket is
 * bounded as the embedded server bounds its clients (front_conn.c's
 * deadlines): a request's parameters within CONN_HEADER_MS of the
 * connection (CONN_KEEPALIVE_MS idle between two requests of a kept
 * connection), its body within CONN_BODY_MS (+ per 64 KiB), every write
 * within CONN_WRITE_MS; past a deadline the socket is shut down, which
 * ends libfcgi's read or write at once. For that the threads accept their
 * connections themselves and hand each to libfcgi (see serve_connection()):
 * libfcgi's own accept gives no moment to arm a deadline before it reads,
 * so a client that sent half a request held a thread for ever.
 */
#include "front_fcgi.h"
#include "front_conn.h"
#include "transport_limits.h"

#include <ctype.h>
#include <fcgiapp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

enum { MAX_HEADERS = 64, FCGI_STACK = 256 << 10 };

/* Request parameters (envp) -> http_req. Header names are rebuilt from
 * HTTP_X_Y as X-Y in `names` (one buffer per header). Returns 1 when there
 * were more headers than MAX_HEADERS - 1 (the request is refused, not
 * served with some of them dropped). */
static int build_req(char **envp, http_req *req, http_header *h, char names[][64])
{
    memset(req, 0, sizeof *req);
    req->method = FCGX_GetParam("REQUEST_METHOD", envp);
    if (!req->method)
        req->method = "GET";
    const char *p = FCGX_GetParam("DOCUMENT_URI", envp);
    if (!p || !*p)
        p = FCGX_GetParam("PATH_INFO", envp);
    if (!p || !*p)
        p = "/";
    req->path = p;
    req->query = FCGX_GetParam("QUERY_STRING", envp);
    req->remote_addr = FCGX_GetParam("REMOTE_ADDR", envp);
    int n = 0;
    const char *ct = FCGX_GetParam("CONTENT_TYPE", envp);
    if (ct && *ct) {
        h[n].name = "Content-Type";
        h[n++].value = ct;
    }
    int seen = n;
    for (char **e = envp; e && *e; e++) {
        if (strncmp(*e, "HTTP_", 5) != 0)
            continue;
        if (++seen >= MAX_HEADERS)
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq || eq - *e - 5 >= 63)
            continue;
        size_t k = 0;
        for (const char *c = *e + 5; c < eq; c++)
            names[n][k++] = *c == '_' ? '-' : (char)tolower((unsigned char)*c);
        names[n][k] = 0;
        h[n].name = names[n];
        h[n++].value = eq + 1;
    }
    req->headers = h;
    req->nheaders = n;
    return seen >= MAX_HEADERS;
}

/* The transport of one request: FastCGI streams, or CGI's stdin/stdout. */
typedef struct io {
    int (*read)(void *in, char *buf, int n); /* bytes read, 0 at the end */
    int (*write)(void *out, const char *data, size_t len); /* 0 ok */
    void *in, *out;
    int fd; /* the connection to the web server (FastCGI), -1 none */
} io;

static int fcgx_read(void *in, char *buf, int n) { return FCGX_GetStr(buf, n, in); }
static int stdio_read(void *in, char *buf, int n) { return (int)fread(buf, 1, (size_t)n, in); }
static int stdio_write(void *out, const char *data, size_t len)
{
    if (len == 0) /* an event stream asking whether the client is there: CGI cannot tell */
        return 0;
    return fwrite(data, 1, len, out) == len && fflush(out) == 0 ? 0 : -1;
}

/* The body: `clen` bytes when >= 0, else to the end of the input; at most
 * limit (+1 to tell a larger one). 0 (the body, or *too_large), or the
 * status of a refusal (400: shorter than CONTENT_LENGTH; 500) with why. */
static int read_body(const io *t, long long clen, size_t limit, char **out, size_t *len,
                     int *too_large, char *why, size_t whylen)
{
    *out = NULL;
    *len = 0;
    if (clen == 0)
        return 0;
    if (clen > 0 && (unsigned long long)clen > limit) {
        *too_large = 1; /* refused unread */
        return 0;
    }
    size_t want_total = clen > 0 ? (size_t)clen : limit + 1;
    size_t cap = clen > 0 ? want_total : 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return 500;
    while (n < want_total) {
        if (n == cap) {
            size_t ncap = cap * 2 > want_total ? want_total : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return 500;
            }
            buf = nb;
            cap = ncap;
        }
        size_t want = cap - n;
        int got = t->read(t->in, buf + n, want > (1u << 30) ? 1 << 30 : (int)want);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    if (clen < 0 && n > limit) {
        *too_large = 1;
        free(buf);
        return 0;
    }
    if (clen > 0 && http_body_short(n, clen, why, whylen)) {
        free(buf);
        return 400;
    }
    *out = buf;
    *len = n;
    return 0;
}

/* A write, taken whole within CONN_WRITE_MS (else the connection is shut:
 * a client that stops reading holds no thread). */
static int put(void *ctx, const char *data, size_t len)
{
    FCGX_Stream *out = ctx;
    front_conn_arm_write(CONN_WRITE_MS);
    int ok = FCGX_PutStr(data, (int)len, out) == (int)len && FCGX_FFlush(out) == 0;
    return front_conn_disarm() || !ok ? -1 : 0;
}

/* An event stream's writer: as put(), and for len 0 (events.c: is the
 * client still there?) a look at the web server's connection, which nginx
 * closes when its client goes away. */
typedef struct stream_out {
    FCGX_Stream *out;
    int fd; /* the FastCGI connection; -1 unknown (CGI) */
} stream_out;

static int put_stream(void *ctx, const char *data, size_t len)
{
    stream_out *so = ctx;
    if (len == 0) {
        struct pollfd p = {.fd = so->fd, .events = POLLIN | POLLRDHUP};
        return so->fd >= 0 && poll(&p, 1, 0) == 1 &&
                       (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
                   ? -1
                   : 0;
    }
    return put(so->out, data, len);
}

static const int *g_stopping;

/* "Status: ..." + headers + body, one write. */
static void write_res(const io *t, const http_res *res, int head_only)
{
    size_t cap = 1024 + res->body_len;
    char *buf = malloc(cap);
    if (!buf)
        return;
    const char *why = http_reason(res->status);
    int k = snprintf(buf, cap, "Status: %d%s%s\r\n", res->status, *why ? " " : "", why);
    if (res->content_type[0])
        k += snprintf(buf + k, cap - (size_t)k, "Content-Type: %s\r\n", res->content_type);
    for (int i = 0; i < res->nheaders; i++)
        k += snprintf(buf + k, cap - (size_t)k, "%s: %s\r\n", res->headers[i].name,
                      res->headers[i].value);
    /* the head of an event stream (HEAD): a stream has no length */
    int unsized = head_only && strcmp(res->content_type, "text/event-stream") == 0;
    if (res->status != 204 && res->status != 304 && !unsized)
        k += snprintf(buf + k, cap - (size_t)k, "Content-Length: %zu\r\n", res->body_len);
    k += snprintf(buf + k, cap - (size_t)k, "X-Content-Type-Options: nosniff\r\n\r\n");
    size_t total = (size_t)k;
    if (!head_only && res->body_len && res->status != 204 && res->status != 304) {
        memcpy(buf + total, res->body, res->body_len);
        total += res->body_len;
    }
    t->write(t->out, buf, total);
    free(buf);
}

static const api_config *g_cfg; /* the server's, for refusals made here */

static void refuse(const io *t, const http_req *req, int status, const char *detail)
{
    http_res res;
    transport_problem(&res, status, detail, req->path);
    http_res_browser(g_cfg, req, &res);
    write_res(t, &res, 0);
    http_res_free(&res);
}

/* CONTENT_LENGTH: -1 absent or empty, -2 not a number of bytes, else it. */
static long long content_length(char **envp)
{
    const char *s = FCGX_GetParam("CONTENT_LENGTH", envp);
    if (!s || !*s)
        return -1;
    long long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (1LL << 50))
            return -2;
        v = v * 10 + (*s - '0');
    }
    return v;
}

static void serve_one(const api_config *cfg, const io *t, char **envp)
{
    http_req req;
    http_header h[MAX_HEADERS + 1];
    char names[MAX_HEADERS + 1][64];
    if (build_req(envp, &req, h, names)) {
        char d[64];
        snprintf(d, sizeof d, "at most %d header lines are read", MAX_HEADERS - 1);
        refuse(t, &req, 431, d);
        return;
    }
    int too_large = 0;
    size_t blen = 0;
    char *body = NULL;
    if (strcmp(req.method, "GET") != 0 && strcmp(req.method, "HEAD") != 0) {
        long long clen = content_length(envp);
        char why[200] = "";
        front_conn_arm(CONN_BODY_MS + (int)((clen > 0 && clen < (1LL << 40) ? clen : 0) / 65536) *
                                          CONN_BODY_MS_PER_64K);
        int st = clen == -2 ? 400
                            : read_body(t, clen, cfg->body_limit, &body, &blen, &too_large,
                                        why, sizeof why);
        if (front_conn_disarm()) { /* its deadline passed: the read side was shut */
            free(body);
            body = NULL;
            st = 408;
            snprintf(why, sizeof why, "the body must arrive within %d s (plus %d s per 64 KiB)",
                     CONN_BODY_MS / 1000, CONN_BODY_MS_PER_64K / 1000);
        }
        if (st) {
            refuse(t, &req, st,
                   clen == -2 ? "Content-Length must be a number of bytes"
                   : st == 500 ? "out of memory" : why);
            return;
        }
    }
    req.body = body;
    req.body_len = blen;
    req.body_too_large = too_large;
    http_res res;
    api_handle(cfg, &req, &res);
    free(body);
    if (res.stream.on) {
        const char *client = req.remote_addr;
        if (streams_acquire(client, STREAM_SSE)) {
            http_res_free(&res);
            refuse(t, &req, 503,
                   "the server holds as many event streams as it serves at once (in all, or "
                   "from this address): try again later, or poll GET /games/{id}/events");
            return;
        }
        char head[1024 + HTTP_MAX_HEADERS * 260];
        int k = snprintf(head, sizeof head,
                         "Status: 200 OK\r\nContent-Type: text/event-stream\r\n"
                         "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n");
        for (int i = 0; i < res.nheaders; i++) /* what api_handle() set */
            k += snprintf(head + k, sizeof head - (size_t)k, "%s: %s\r\n", res.headers[i].name,
                          res.headers[i].value);
        k += snprintf(head + k, sizeof head - (size_t)k, "X-Content-Type-Options: nosniff\r\n\r\n");
        if (t->write(t->out, head, (size_t)k) == 0) {
            if (t->write == put) {
                stream_out so = {t->out, t->fd};
                api_stream_events(cfg, &req, &res, put_stream, &so, g_stopping);
            } else {
                api_stream_events(cfg, &req, &res, t->write, t->out, g_stopping);
            }
        }
        streams_release(client);
        http_res_free(&res);
        return;
    }
    write_res(t, &res, strcmp(req.method, "HEAD") == 0);
    http_res_free(&res);
}

typedef struct worker {
    const api_config *cfg;
    int sock;
    pthread_t th;
} worker;

/* The requests of one connection we accepted (fd), through libfcgi. libfcgi
 * reads a request from the connection its FCGX_Request holds, and accepts
 * one itself only when it holds none (ipcFd < 0; its listening socket here
 * is -1, so that it never does: it returns an error instead, and the
 * connection is over). It gets a copy of fd, which it closes when it is
 * done (at the end of a request not kept, or on an error); fd stays ours
 * until then, so that the deadline thread, which shuts it down at a
 * deadline, never meets a descriptor reused for another connection.
 * FCGX_Accept_r first finishes the request it holds, closing its
 * connection unless keepConnection: set, for the connection we hand it. */
static void serve_connection(const api_config *cfg, FCGX_Request *r, int fd)
{
    int lfd = dup(fd);
    if (lfd < 0)
        return;
    front_conn_self()->fd = fd;
    r->ipcFd = lfd;
    r->keepConnection = 1;
    front_conn_arm(CONN_HEADER_MS); /* its request's parameters */
    while (!__atomic_load_n(g_stopping, __ATOMIC_ACQUIRE) && FCGX_Accept_r(r) >= 0) {
        /* libfcgi takes parameters that end with the connection (its read
         * side shut at the deadline, or closed by the client) for whole, and
         * only says so on the stream: such a request never came, and is
         * answered nothing */
        int late = front_conn_disarm();
        if (late || FCGX_GetError(r->in) != 0)
            break;
        io t = {fcgx_read, put, r->in, r->out, r->ipcFd};
        serve_one(cfg, &t, r->envp);
        front_conn_arm_write(CONN_WRITE_MS); /* what is left to send, and the close */
        FCGX_Finish_r(r);
        front_conn_disarm();
        if (r->ipcFd < 0)
            break; /* not kept: closed */
        front_conn_arm(CONN_KEEPALIVE_MS); /* the next request on a kept connection */
    }
    front_conn_disarm();
    FCGX_Free(r, 1); /* closes its copy, if it still holds it */
    front_conn_self()->fd = -1;
    close(fd);
}

static void *work(void *arg)
{
    worker *w = arg;
    front_conn_worker_start(); /* a deadline slot */
    FCGX_Request r;
    if (FCGX_InitRequest(&r, -1, FCGI_FAIL_ACCEPT_ON_INTR) != 0)
        return NULL;
    while (!__atomic_load_n(g_stopping, __ATOMIC_ACQUIRE)) {
        int fd = accept4(w->sock, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            serve_connection(w->cfg, &r, fd);
        } else if (errno != EINTR && errno != ECONNABORTED && errno != EPROTO) {
            if (__atomic_load_n(g_stopping, __ATOMIC_ACQUIRE) || errno == EBADF ||
                errno == EINVAL || errno == ENOTSOCK)
                break; /* stopping (the socket was shut down), or no socket */
            usleep(100 * 1000); /* out of descriptors or memory: a moment, then again */
        }
    }
    FCGX_Free(&r, 1);
    return NULL;
}

extern char **environ;

int front_fcgi_cgi(const api_config *cfg)
{
    static const int never = 0;
    g_stopping = &never;
    g_cfg = cfg;
    io t = {stdio_read, stdio_write, stdin, stdout, -1};
    serve_one(cfg, &t, environ); /* FCGX_GetParam reads any NULL-terminated envp */
    return 0;
}

/* The listening socket of --listen: "PATH" (a Unix socket; one left by an
 * earlier run is replaced) or "[HOST]:PORT" (TCP; HOST empty or * for every
 * address). libfcgi's own FCGX_OpenSocket() exits the process on a bind
 * error with a bare perror(); this says which option and path failed. */
static int open_listener(const char *addr, char *errbuf, size_t errlen)
{
    const char *colon = strrchr(addr, ':');
    int fd = -1, one = 1;
    if (!colon || strchr(addr, '/')) { /* a Unix socket */
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        struct stat sb;
        if (strlen(addr) >= sizeof a.sun_path) {
            snprintf(errbuf, errlen, "--listen %s: a socket path is at most %zu bytes", addr,
                     sizeof a.sun_path - 1);
            return -1;
        }
        memcpy(a.sun_path, addr, strlen(addr) + 1);
        if (lstat(addr, &sb) == 0 && S_ISSOCK(sb.st_mode))
            unlink(addr);
        if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
            bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
            goto fail;
    } else {
        char host[256], port[16];
        size_t hl = (size_t)(colon - addr);
        if (hl >= sizeof host || strlen(colon + 1) >= sizeof port || !colon[1]) {
            snprintf(errbuf, errlen, "--listen %s: not HOST:PORT or a socket path", addr);
            return -1;
        }
        memcpy(host, addr, hl);
        host[hl] = 0;
        snprintf(port, sizeof port, "%s", colon + 1);
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                                 .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *ai = NULL;
        int g = getaddrinfo(hl && strcmp(host, "*") ? host : NULL, port, &hints, &ai);
        if (g != 0) {
            snprintf(errbuf, errlen, "--listen %s: %s", addr, gai_strerror(g));
            return -1;
        }
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd >= 0)
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        int bad = fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0;
        freeaddrinfo(ai);
        if (bad)
            goto fail;
    }
    /* The kernel's own cap (net.core.somaxconn, 4096 on Debian 12), not 256:
     * nginx connects without waiting, so a connection past a full backlog is
     * a 502 at once; a lab opening its streams together (every nchan
     * subscribe asks croupier which channel) overflowed 256 (the crowd bench:
     * 1,654 of 2,000 subscribes at 200 at a time). */
    if (listen(fd, SOMAXCONN) == 0)
        return fd;
fail:
    snprintf(errbuf, errlen, "--listen %s: %s", addr, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

int front_fcgi_run(const api_config *cfg, const char *listen, int threads,
                   const int *stopping, char *errbuf, size_t errlen)
{
    g_stopping = stopping;
    g_cfg = cfg;
    if (FCGX_Init() != 0) {
        snprintf(errbuf, errlen, "libfcgi failed to initialise");
        return -1;
    }
    int sock = 0; /* started by a FastCGI server: the socket is fd 0 */
    if (listen && *listen) {
        sock = open_listener(listen, errbuf, errlen);
        if (sock < 0)
            return -1;
    }
    if (getenv("FCGI_WEB_SERVER_ADDRS")) {
        snprintf(errbuf, errlen, "FCGI_WEB_SERVER_ADDRS is not honoured (croupier fcgi accepts "
                                 "its connections itself): listen on a Unix socket, or on an "
                                 "address only the web server reaches");
        return -1;
    }
    worker *ws = calloc((size_t)threads, sizeof *ws);
    if (!ws) {
        snprintf(errbuf, errlen, "out of memory");
        return -1;
    }
    if (front_conn_start(threads, errbuf, errlen)) { /* the deadline thread */
        free(ws);
        return -1;
    }
    int started = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    /* the engine and api/ run in 64 KiB (tests/unit/test_stack.c): ample room */
    pthread_attr_setstacksize(&attr, FCGI_STACK);
    for (int i = 0; i < threads; i++) {
        ws[i].cfg = cfg;
        ws[i].sock = sock;
        if (pthread_create(&ws[i].th, &attr, work, &ws[i]) == 0)
            started++;
        else
            break;
    }
    pthread_attr_destroy(&attr);
    if (listen && *listen) {
        printf("croupier: FastCGI on %s (%d threads)\n", listen, started);
        fflush(stdout);
    }
    while (!__atomic_load_n(stopping, __ATOMIC_ACQUIRE))
        usleep(50 * 1000);
    FCGX_ShutdownPending();
    shutdown(sock, SHUT_RDWR); /* wake the threads blocked in accept() */
    for (int i = 0; i < started; i++)
        pthread_join(ws[i].th, NULL);
    front_conn_stop();
    close(sock);
    free(ws);
    return 0;
}

int front_fcgi_is_cgi(void)
{
    return getenv("GATEWAY_INTERFACE") != NULL && FCGX_IsCGI();
}
