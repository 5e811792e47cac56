/* front_civet.c: the embedded HTTP front end (civetweb).
 *
 * Turns a civetweb connection into an http_req, calls api_handle(), and
 * writes the http_res back as ONE write (status line, headers and body in a
 * single buffer: with tcp_nodelay this avoids the ~40 ms Nagle/delayed-ACK
 * stall of a separate header write). Bodies are read in a loop with our own
 * cap, whatever Content-Length claims.
 */
#include "front_civet.h"
#include "front_ws.h"
#include "pool.h"

#include <civetweb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int read_body(struct mg_connection *conn, size_t limit, char **out,
                     size_t *len, int *too_large)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
        if (n == cap) {
            if (cap > limit) { /* read limit+1 bytes: over the cap */
                *too_large = 1;
                break;
            }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return -1;
            }
            buf = nb;
        }
        size_t want = cap - n;
        if (n + want > limit + 1)
            want = limit + 1 - n;
        int got = mg_read(conn, buf + n, want);
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n > limit) {
            *too_large = 1;
            break;
        }
    }
    *out = buf;
    *len = n;
    return 0;
}

void front_civet_write(struct mg_connection *conn, const http_res *res, int head_only,
                       int close)
{
    size_t cap = 1024 + res->body_len;
    char *out = malloc(cap);
    if (!out)
        return;
    int k = snprintf(out, cap, "HTTP/1.1 %d %s\r\n", res->status,
                     mg_get_response_code_text(conn, res->status));
    if (res->content_type[0])
        k += snprintf(out + k, cap - (size_t)k, "Content-Type: %s\r\n", res->content_type);
    for (int i = 0; i < res->nheaders; i++)
        k += snprintf(out + k, cap - (size_t)k, "%s: %s\r\n", res->headers[i].name,
                      res->headers[i].value);
    if (res->status != 204 && res->status != 304)
        k += snprintf(out + k, cap - (size_t)k, "Content-Length: %zu\r\n", res->body_len);
    k += snprintf(out + k, cap - (size_t)k, "X-Content-Type-Options: nosniff\r\n%s\r\n",
                  close ? "Connection: close\r\n" : "");
    size_t total = (size_t)k;
    if (!head_only && res->body_len && res->status != 204 && res->status != 304) {
        memcpy(out + total, res->body, res->body_len);
        total += res->body_len;
    }
    mg_write(conn, out, total); /* one write: headers and body together */
    free(out);
}

static int chunk_writer(void *ctx, const char *data, size_t len)
{
    return mg_send_chunk(ctx, data, (unsigned)len) > 0 ? 0 : -1;
}

/* Server-Sent Events: headers once, chunked (so the connection stays
 * reusable), then api_stream_events() writes each event as it is stored. */
static void stream_events(struct mg_connection *conn, const front_civet *fc,
                          const http_req *req, const http_res *res)
{
    static const char head[] =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    if (mg_write(conn, head, sizeof head - 1) <= 0)
        return;
    api_stream_events(&fc->cfg, req, res, chunk_writer, conn, &fc->stopping);
    mg_send_chunk(conn, "", 0); /* last chunk */
}

static int on_request(struct mg_connection *conn, void *data)
{
    const front_civet *fc = data;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    http_header hdrs[64];
    int nh = ri->num_headers < 64 ? ri->num_headers : 64;
    for (int i = 0; i < nh; i++) {
        hdrs[i].name = ri->http_headers[i].name;
        hdrs[i].value = ri->http_headers[i].value;
    }
    http_req req = {
        .method = ri->request_method,
        .path = ri->local_uri ? ri->local_uri : "/",
        .query = ri->query_string,
        .headers = hdrs,
        .nheaders = nh,
        .remote_addr = ri->remote_addr,
    };
    char *body = NULL;
    size_t blen = 0;
    int too_large = 0;
    int is_head = strcmp(ri->request_method, "HEAD") == 0;
    if (!is_head && strcmp(ri->request_method, "GET") != 0) {
        if (read_body(conn, fc->cfg.body_limit, &body, &blen, &too_large)) {
            mg_write(conn, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", 57);
            return 500;
        }
    }
    req.body = body;
    req.body_len = blen;
    req.body_too_large = too_large;

    http_res res;
    pool_handle(&fc->cfg, &req, &res);
    free(body);
    if (res.stream.on) {
        stream_events(conn, fc, &req, &res);
        http_res_free(&res);
        return 200;
    }

    front_civet_write(conn, &res, is_head, too_large);
    int status = res.status;
    http_res_free(&res);
    return status;
}

static int on_log(const struct mg_connection *conn, const char *msg)
{
    (void)conn;
    fprintf(stderr, "civetweb: %s\n", msg);
    return 1;
}

int front_civet_start(front_civet *fc, const char *listen, int threads,
                      const char *access_log, char *err, size_t errlen)
{
    char nthreads[16];
    snprintf(nthreads, sizeof nthreads, "%d", threads);
    const char *opts[32];
    int k = 0;
    opts[k++] = "listening_ports";
    opts[k++] = listen;
    opts[k++] = "num_threads";
    opts[k++] = nthreads;
    opts[k++] = "tcp_nodelay";
    opts[k++] = "1";
    opts[k++] = "enable_keep_alive";
    opts[k++] = "yes";
    opts[k++] = "keep_alive_timeout_ms";
    opts[k++] = "5000";
    opts[k++] = "request_timeout_ms";
    opts[k++] = "30000";
    if (access_log && *access_log) {
        opts[k++] = "access_log_file";
        opts[k++] = access_log;
    }
    opts[k] = NULL;

    struct mg_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.log_message = on_log;
    if (pool_start(threads, 16u << 20)) { /* engine threads: see pool.c */
        snprintf(err, errlen, "cannot start the engine threads");
        return -1;
    }
    mg_init_library(0);
    struct mg_init_data init = {.callbacks = &cb, .user_data = fc,
                                .configuration_options = opts};
    struct mg_error_data ed;
    char ebuf[256] = "";
    memset(&ed, 0, sizeof ed);
    ed.text = ebuf;
    ed.text_buffer_size = sizeof ebuf;
    fc->ctx = mg_start2(&init, &ed);
    if (!fc->ctx) {
        snprintf(err, errlen, "cannot listen on %s: %s", listen, ebuf[0] ? ebuf : "civetweb failed to start");
        mg_exit_library();
        pool_stop();
        return -1;
    }
    mg_set_request_handler(fc->ctx, "/", on_request, fc);
    if (front_ws_start(fc->ctx, &fc->cfg)) {
        snprintf(err, errlen, "cannot start the WebSocket poller");
        mg_stop(fc->ctx);
        fc->ctx = NULL;
        mg_exit_library();
        pool_stop();
        return -1;
    }
    struct mg_server_port ports[4];
    memset(ports, 0, sizeof ports);
    int n = mg_get_server_ports(fc->ctx, 4, ports);
    fc->port = n > 0 ? ports[0].port : 0;
    return 0;
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
        pool_stop();
    }
}
