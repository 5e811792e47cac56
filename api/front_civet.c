/* front_civet.c: the embedded HTTP front end (civetweb).
 *
 * civetweb gives every connection a worker thread of its own for as long as
 * it is open (reading the request line and headers, the body, waiting on
 * keep-alive, a Server-Sent Events stream, a WebSocket), so the number of
 * workers is the number of connections served at once, and every way a
 * client can hold a connection has a bound:
 *
 *  - request line + headers: a connection's first request, civetweb's own
 *    request_timeout_ms (IO_MS) after the worker took the connection (a
 *    client that dribbles its bytes can stretch that to twice: civetweb
 *    looks at the clock after each read, and a read waits up to IO_MS); an
 *    idle keep-alive connection (and the headers of its next request):
 *    CONN_KEEPALIVE_MS after the last response;
 *  - a body: CONN_BODY_MS (plus CONN_BODY_MS_PER_64K for large ones) once
 *    the headers are in: a body that is late is a 408, one that ends short
 *    of its Content-Length (or a broken chunked one) a 400, and neither
 *    reaches a handler (a chunked body is taken once its last chunk is in:
 *    what follows it is civetweb's, which closes the connection unless it
 *    is the empty line);
 *  - streams (SSE here, WebSockets in front_ws.c) are counted against the
 *    stream budget of transport_limits.c (503 + Retry-After beyond it) and end when
 *    idle (events.c, front_ws.c).
 *
 * civetweb bounds a header read only by time since its start and a body
 * read only by the gap between two bytes, so a client dribbling a byte at
 * a time could hold a worker for ever. front_conn.c's deadline thread
 * enforces our bounds: at a deadline it shuts the read side of the socket
 * down, which ends civetweb's (or our) read at once, and the request is
 * answered 408. It also finds each connection's socket (civetweb 1.15 does
 * not tell it: the kernel does, from the addresses of the first request,
 * so the first request's headers have civetweb's bound alone), gives turns
 * to run a handler and writes responses: what this file and front_ws.c
 * share. Nothing here reads civetweb's own memory or sends the server a
 * request of its own: only civetweb's public API and the kernel's.
 *
 * A request runs api_handle() on the worker that accepted it, with no
 * hand-off: the engine and api/ fit its stack (Debian builds civetweb with
 * 100 KB worker stacks, fixed at build time, no option changes it; civetweb's
 * own frames take 29 KB before ours, the deepest request seen in the HTTP
 * suites reached 70 KB, 78 KB under ASan; tests/unit/test_stack.c runs every
 * game's bots and the request path on 64 KiB). Requests that may run bots,
 * and those that need a store connection, take turns (front_conn.c, "how
 * many requests run at once"). The response goes out in ONE write (status
 * line, headers and body in one buffer: with
 * tcp_nodelay this avoids the ~40 ms Nagle/delayed-ACK stall of a separate
 * header write). Errors that civetweb answers itself (an unreadable request
 * line, a bad header, a timeout while reading headers, an HTTP version it
 * does not speak) come back as problem+json through its http_error
 * callback.
 */
#include "front_civet.h"
#include "front_conn.h"
#include "front_ws.h"
#include "transport_limits.h"

#include <civetweb.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_received */
#include <netinet/in.h>
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
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum {
    IO_MS = 10000,           /* civetweb's own bound on one read or write */
    MAX_REQUEST = 16384,     /* request line + headers (civetweb's buffer) */
    TRIM_AFTER_US = 300,     /* a request this long ran bots: check its stack */
};

/* ---- civetweb callbacks -------------------------------------------------------- */

static void *on_init_thread(const struct mg_context *ctx, int type)
{
    (void)ctx;
    if (type == 1) /* a worker */
        front_conn_worker_start();
    return NULL;
}

static int on_init_connection(const struct mg_connection *conn, void **data)
{
    *data = NULL;
    (void)conn;
    front_conn_worker *w = front_conn_self();
    w->fd = -1; /* found on the first request (front_conn_socket) */
    w->served = 0;
    w->taken_us = front_conn_now_us();
    w->begun = 0; /* a refusal made as the worker's last connection closed left it set */
    return 0;
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
static int not_ready(struct mg_connection *conn, const char *path);

/* Set once the server is ready (front_civet_start): civetweb listens, and
 * its workers take connections, before the handlers are registered. A
 * request read before then is answered 503 with Retry-After, never
 * civetweb's own 404 (a final answer a client would trust: a retried play
 * that had landed, refused). */
static int g_ready;

static int on_begin_request(struct mg_connection *conn)
{
    front_conn_worker *w = front_conn_self();
    front_conn_disarm(); /* the headers are in */
    w->begun = 1;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (w->fd < 0) /* the connection's first request: its socket, from the kernel */
        w->fd = front_conn_socket(ri);
    if (!__atomic_load_n(&g_ready, __ATOMIC_ACQUIRE))
        return not_ready(conn, ri && ri->local_uri ? ri->local_uri : "/");
    const char *defect = ri ? header_defect(ri) : NULL;
    if (defect)
        return refuse(conn, 400, ri->local_uri ? ri->local_uri : "/", "%s", defect);
    return 0;
}

static void on_end_request(const struct mg_connection *conn, int status)
{
    (void)conn;
    (void)status;
    front_conn_self()->begun = 0;
}

static void answer_unrouted(struct mg_connection *conn);

static void on_connection_close(const struct mg_connection *conn)
{
    answer_unrouted((struct mg_connection *)conn);
    front_conn_disarm();
    front_ws_closed(conn);
    front_conn_release(front_conn_self()->fd);
    front_conn_self()->fd = -1;
    front_conn_trim_stack(1); /* the worker waits for its next connection with a small stack */
}

static const api_config *g_cfg; /* the server's, for refusals made here */

/* Write a refusal made here, not by a handler, with the headers every
 * response carries (http_res_browser), and close the connection. */
static void send_refusal(struct mg_connection *conn, http_res *res, const char *path)
{
    http_req r = {.method = "GET", .path = path};
    http_res_browser(g_cfg, &r, res);
    front_conn_write(conn, res, 0, 1);
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

static int not_ready(struct mg_connection *conn, const char *path)
{
    http_res res;
    transport_starting(&res, "the server is starting: try again in a moment", path);
    send_refusal(conn, &res, path);
    http_res_free(&res);
    return 503;
}

/* civetweb answers "Malformed message" both to a request with a bad byte in
 * it and to one whose request line and headers overflow its buffer: 1 for
 * the second, judged from the socket: civetweb took a full buffer of the
 * connection's first request, or left bytes unread in a later one. */
static int header_overflow(const struct mg_request_info *ri)
{
    front_conn_worker *w = front_conn_self();
    if (w->fd < 0) /* a first request: its socket, from the kernel */
        w->fd = front_conn_socket(ri);
    if (w->fd < 0)
        return 0;
    int inq = 0;
    if (ioctl(w->fd, FIONREAD, &inq) != 0)
        inq = 0;
    if (w->served > 0)
        return inq > 0;
    struct tcp_info ti;
    socklen_t n = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(w->fd, IPPROTO_TCP, TCP_INFO, &ti, &n) != 0 ||
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
    front_conn_worker *w = front_conn_self();
    /* the headers of a connection's first request meet civetweb's own
     * bound (request_timeout_ms, IO_MS): it says "Malformed message", as
     * for a bad byte, so the clock tells the two apart; a later request's
     * meet our deadline (front_conn_fired) */
    int first_late = status == 400 && w->served == 0 && msg &&
                     strcmp(msg, "Malformed message") == 0 &&
                     front_conn_now_us() - w->taken_us >= (IO_MS - 250) * 1000LL;
    if (status == 400 && (first_late || front_conn_fired())) {
        status = 408;
        snprintf(buf, sizeof buf,
                 "the request line and headers must arrive within %d s of the connection, "
                 "%d s of the previous response on a kept-alive connection",
                 IO_MS / 1000, CONN_KEEPALIVE_MS / 1000);
        detail = buf;
    } else if (status == 400 && msg && strcmp(msg, "Malformed message") == 0 &&
               header_overflow(ri)) {
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
    w->begun = 1; /* answered */
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
    front_conn_worker *w = front_conn_self();
    if (!w->begun && w->fd < 0 && ri) /* a first request that never began */
        w->fd = front_conn_socket(ri);
    if (w->begun || w->fd < 0 || !ri || !ri->request_method || !ri->request_uri ||
        ri->local_uri || front_conn_client_gone())
        return;
    const char *uri = ri->request_uri;
    w->begun = 1;
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
    size_t want_total = chunked ? limit + 1 : (size_t)clen;
    size_t cap = chunked ? 4096 : want_total, n = 0;
    char *buf = malloc(cap ? cap : 1);
    if (!buf)
        return 500;
    front_conn_arm(CONN_BODY_MS + (int)((chunked ? 0 : clen) / 65536) * CONN_BODY_MS_PER_64K);
    int got = 0;
    while (n < want_total) {
        if (n == cap) {
            size_t ncap = cap * 2 > want_total ? want_total : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                front_conn_disarm();
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
    int late = front_conn_disarm();
    if (late) {
        free(buf);
        snprintf(why, whylen, "the body must arrive within %d s (plus %d s per 64 KiB)",
                 CONN_BODY_MS / 1000, CONN_BODY_MS_PER_64K / 1000);
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
    /* mg_read() answered 0: the last chunk (0) is in. What follows it (the
     * empty line, or a trailer section) civetweb reads two bytes of and
     * tells nobody; unless they were the empty line it closes the connection
     * after the response, so nothing after the last chunk is ever read as a
     * request. The trailer is dropped unread (RFC 9112 7.1.2 allows it). */
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
        return front_conn_client_gone() ? -1 : 0;
    /* the chunk in one write (mg_send_chunk makes three: three segments
     * with tcp_nodelay, per event and per stream) */
    char *chunk = malloc(len + 24);
    if (!chunk)
        return -1;
    int k = snprintf(chunk, 24, "%zx\r\n", len);
    memcpy(chunk + k, data, len);
    memcpy(chunk + k + len, "\r\n", 2);
    size_t n = (size_t)k + len + 2;
    front_conn_arm_write(CONN_WRITE_MS); /* all of it taken in time, or the stream is cut off */
    int64_t t0 = front_conn_now_us();
    int sent = mg_write(ctx, chunk, n) == (int)n;
    free(chunk);
    /* not taken in time: our deadline fired, or civetweb's own bound on a
     * write (IO_MS, the same 10 s) ended it first; either way cut off */
    if (front_conn_disarm() || (!sent && front_conn_now_us() - t0 >= (CONN_WRITE_MS - 1000) * 1000LL)) {
        streams_cut(STREAM_SSE);
        return -1;
    }
    return sent ? 0 : -1;
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
    /* chunked is the one transfer coding read here: with any other (or a
     * list), where the body ends is not known, and a body left unread
     * would be taken for the next request (RFC 9112 6.1, 6.3) */
    if (te && strcasecmp(te, "chunked") != 0)
        return refuse(conn, 400, path,
                      "Transfer-Encoding must be chunked, the one transfer coding this server "
                      "reads (or send a Content-Length)");
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

    int gate = front_conn_gate(ri->request_method, path), turn = front_conn_enter(gate);
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
    int64_t t0 = front_conn_now_us();
    api_handle(&fc->cfg, &req, &res);
    int deep = front_conn_now_us() - t0 > TRIM_AFTER_US; /* bots ran: the stack went deep */
    front_conn_leave(gate);
    free(body);
    if (res.stream.on) {
        if (streams_acquire(ri->remote_addr, STREAM_SSE)) {
            http_res_free(&res);
            return refuse(conn, 503, path,
                          "the server holds as many event streams as it serves at once (in "
                          "all, or from this address): try again later, or poll GET %s",
                          path);
        }
        front_conn_stream_socket(front_conn_fd());
        stream_events(conn, fc, &req, &res);
        streams_release(ri->remote_addr);
        http_res_free(&res);
        front_conn_arm(CONN_KEEPALIVE_MS);
        return 200;
    }
    front_conn_write(conn, &res, is_head, unread);
    front_conn_self()->served++;
    int status = res.status;
    http_res_free(&res);
    if (deep)
        front_conn_trim_stack(0);
    if (!unread)
        front_conn_arm(CONN_KEEPALIVE_MS); /* until the next request's headers are in */
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
    snprintf(keepalive_ms, sizeof keepalive_ms, "%d", (int)CONN_KEEPALIVE_MS);
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
    __atomic_store_n(&g_ready, 0, __ATOMIC_RELEASE);
    if (front_conn_start(threads, err, errlen))
        return -1;

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
    __atomic_store_n(&g_ready, 1, __ATOMIC_RELEASE); /* every handler is in */
    return 0;
fail:
    front_conn_stop();
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
        front_conn_stop();
    }
}
