/* front_fcgi.c: the same API as a FastCGI application (libfcgi), for nginx
 * or any FastCGI web server, and as a plain CGI program when a CGI server
 * starts it. Every request goes through api_handle(), the handlers of the
 * civetweb front end, unchanged; only the transport differs:
 *  - CGI/FastCGI parameters -> http_req (REQUEST_METHOD, DOCUMENT_URI or
 *    PATH_INFO, QUERY_STRING, CONTENT_TYPE, HTTP_* headers);
 *  - the body is read in a loop with our own cap, whatever CONTENT_LENGTH says;
 *  - the response is "Status: ..." + headers + body, in one write.
 * FastCGI serves with N threads on one listening socket; SIGTERM stops
 * accepting and lets requests in flight finish.
 */
#include "front_fcgi.h"

#include <ctype.h>
#include <fcgiapp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MAX_HEADERS = 64 };

/* Request parameters (envp) -> http_req. Header names are rebuilt from
 * HTTP_X_Y as X-Y in `names` (one buffer per header). */
static void build_req(char **envp, http_req *req, http_header *h, char names[][64])
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
    for (char **e = envp; e && *e && n < MAX_HEADERS; e++) {
        if (strncmp(*e, "HTTP_", 5) != 0)
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
}

/* The transport of one request: FastCGI streams, or CGI's stdin/stdout. */
typedef struct io {
    int (*read)(void *in, char *buf, int n); /* bytes read, 0 at the end */
    int (*write)(void *out, const char *data, size_t len); /* 0 ok */
    void *in, *out;
} io;

static int fcgx_read(void *in, char *buf, int n) { return FCGX_GetStr(buf, n, in); }
static int stdio_read(void *in, char *buf, int n) { return (int)fread(buf, 1, (size_t)n, in); }
static int stdio_write(void *out, const char *data, size_t len)
{
    return fwrite(data, 1, len, out) == len && fflush(out) == 0 ? 0 : -1;
}

static char *read_body(const io *t, size_t limit, size_t *len, int *too_large)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap > limit) {
                *too_large = 1;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        size_t want = cap - n;
        if (n + want > limit + 1)
            want = limit + 1 - n;
        int got = t->read(t->in, buf + n, (int)want);
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n > limit) {
            *too_large = 1;
            break;
        }
    }
    *len = n;
    return buf;
}

static int put(void *ctx, const char *data, size_t len)
{
    FCGX_Stream *out = ctx;
    if (FCGX_PutStr(data, (int)len, out) != (int)len)
        return -1;
    return FCGX_FFlush(out) == 0 ? 0 : -1;
}

static const int *g_stopping;

static void serve_one(const api_config *cfg, const io *t, char **envp)
{
    http_req req;
    http_header h[MAX_HEADERS + 1];
    char names[MAX_HEADERS + 1][64];
    build_req(envp, &req, h, names);
    int too_large = 0;
    size_t blen = 0;
    char *body = NULL;
    if (strcmp(req.method, "GET") != 0 && strcmp(req.method, "HEAD") != 0)
        body = read_body(t, cfg->body_limit, &blen, &too_large);
    req.body = body;
    req.body_len = blen;
    req.body_too_large = too_large;
    http_res res;
    api_handle(cfg, &req, &res);
    free(body);
    if (res.stream.on) {
        static const char head[] = "Status: 200 OK\r\nContent-Type: text/event-stream\r\n"
                                   "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n";
        if (t->write(t->out, head, sizeof head - 1) == 0)
            api_stream_events(cfg, &req, &res, t->write, t->out, g_stopping);
        http_res_free(&res);
        return;
    }
    size_t cap = 1024 + res.body_len;
    char *buf = malloc(cap);
    if (buf) {
        int k = snprintf(buf, cap, "Status: %d\r\n", res.status);
        if (res.content_type[0])
            k += snprintf(buf + k, cap - (size_t)k, "Content-Type: %s\r\n", res.content_type);
        for (int i = 0; i < res.nheaders; i++)
            k += snprintf(buf + k, cap - (size_t)k, "%s: %s\r\n", res.headers[i].name,
                          res.headers[i].value);
        if (res.status != 204 && res.status != 304)
            k += snprintf(buf + k, cap - (size_t)k, "Content-Length: %zu\r\n", res.body_len);
        k += snprintf(buf + k, cap - (size_t)k, "X-Content-Type-Options: nosniff\r\n\r\n");
        size_t total = (size_t)k;
        if (strcmp(req.method, "HEAD") != 0 && res.body_len && res.status != 204 &&
            res.status != 304) {
            memcpy(buf + total, res.body, res.body_len);
            total += res.body_len;
        }
        t->write(t->out, buf, total);
        free(buf);
    }
    http_res_free(&res);
}

typedef struct worker {
    const api_config *cfg;
    int sock;
    pthread_t th;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    FCGX_Request r;
    if (FCGX_InitRequest(&r, w->sock, FCGI_FAIL_ACCEPT_ON_INTR) != 0)
        return NULL;
    while (!__atomic_load_n(g_stopping, __ATOMIC_ACQUIRE)) {
        if (FCGX_Accept_r(&r) < 0)
            break;
        io t = {fcgx_read, put, r.in, r.out};
        serve_one(w->cfg, &t, r.envp);
        FCGX_Finish_r(&r);
    }
    FCGX_Free(&r, 1);
    return NULL;
}

extern char **environ;

int front_fcgi_cgi(const api_config *cfg)
{
    static const int never = 0;
    g_stopping = &never;
    io t = {stdio_read, stdio_write, stdin, stdout};
    serve_one(cfg, &t, environ); /* FCGX_GetParam reads any NULL-terminated envp */
    return 0;
}

int front_fcgi_run(const api_config *cfg, const char *listen, int threads,
                   const int *stopping, char *errbuf, size_t errlen)
{
    g_stopping = stopping;
    if (FCGX_Init() != 0) {
        snprintf(errbuf, errlen, "libfcgi failed to initialise");
        return -1;
    }
    int sock = 0; /* started by a FastCGI server: the socket is fd 0 */
    if (listen && *listen) {
        sock = FCGX_OpenSocket(listen, 256);
        if (sock < 0) {
            snprintf(errbuf, errlen, "cannot listen on %s", listen);
            return -1;
        }
    }
    worker *ws = calloc((size_t)threads, sizeof *ws);
    if (!ws) {
        snprintf(errbuf, errlen, "out of memory");
        return -1;
    }
    int started = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16 << 20); /* the engine's searches need room */
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
    close(sock);
    free(ws);
    return 0;
}

int front_fcgi_is_cgi(void)
{
    return getenv("GATEWAY_INTERFACE") != NULL && FCGX_IsCGI();
}
