/* anchor.c: the bare civetweb server that `make bench` measures croupier
 * against (build/bench/anchor).
 *
 * It uses the civetweb options of `croupier serve` that matter for speed
 * (num_threads, connection_queue, listen_backlog, tcp_nodelay=1, keep-alive
 * with the same timeout) and does the least a JSON server can do:
 *   GET  /healthz                              -> {"status":"ok"}
 *   POST /validate/comp10001bo/is_valid_play   -> reads the whole body,
 *                                                 answers {"result":1}
 * Each answer is one write: status line, headers and body together.
 *
 *   anchor [--listen 127.0.0.1:0] [--threads 8]
 * prints "anchor: listening on http://HOST:PORT" once it accepts
 * connections; SIGTERM or SIGINT stop it.
 */
#include <civetweb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY_LIMIT 65536 /* croupier's default --body-limit */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* Status line, headers and body in one mg_write. */
static int answer(struct mg_connection *conn, int status, const char *reason,
                  const char *json)
{
    char out[512];
    size_t blen = strlen(json);
    int k = snprintf(out, sizeof out,
                     "HTTP/1.1 %d %s\r\n"
                     "Content-Type: application/json; charset=utf-8\r\n"
                     "Content-Length: %zu\r\n"
                     "\r\n%s",
                     status, reason, blen, json);
    if (k < 0 || (size_t)k >= sizeof out)
        return 500;
    mg_write(conn, out, (size_t)k);
    return status;
}

static int on_healthz(struct mg_connection *conn, void *data)
{
    (void)data;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (strcmp(ri->local_uri, "/healthz") != 0)
        return 0; /* a longer path: civetweb's 404 */
    if (strcmp(ri->request_method, "GET") != 0)
        return answer(conn, 405, "Method Not Allowed", "{\"error\":\"method\"}");
    return answer(conn, 200, "OK", "{\"status\":\"ok\"}");
}

/* Read the body to its end (as a server that parses it must), into a heap
 * buffer like a real handler would; answer a fixed small JSON. */
static int on_validate(struct mg_connection *conn, void *data)
{
    (void)data;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (strcmp(ri->local_uri, "/validate/comp10001bo/is_valid_play") != 0)
        return 0;
    if (strcmp(ri->request_method, "POST") != 0)
        return answer(conn, 405, "Method Not Allowed", "{\"error\":\"method\"}");
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return answer(conn, 500, "Internal Server Error", "{\"error\":\"memory\"}");
    for (;;) {
        if (n == cap) {
            if (cap >= BODY_LIMIT) {
                free(buf);
                return answer(conn, 413, "Payload Too Large", "{\"error\":\"too large\"}");
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return answer(conn, 500, "Internal Server Error", "{\"error\":\"memory\"}");
            }
            buf = nb;
            cap *= 2;
        }
        int got = mg_read(conn, buf + n, cap - n);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    /* the least of a check: a JSON array came (so a broken bench script
     * shows up as non-2xx answers rather than as fast ones) */
    int ok = n > 0 && buf[0] == '[';
    free(buf);
    if (!ok)
        return answer(conn, 400, "Bad Request", "{\"error\":\"expected a JSON array\"}");
    return answer(conn, 200, "OK", "{\"result\":1}");
}

static int on_log(const struct mg_connection *conn, const char *msg)
{
    (void)conn;
    fprintf(stderr, "anchor: civetweb: %s\n", msg);
    return 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: anchor [--listen HOST:PORT] [--threads N]\n"
               "A bare civetweb server with croupier's civetweb options, the\n"
               "reference for `make bench` (tests/bench.sh).\n");
}

int main(int argc, char **argv)
{
    const char *listen = "127.0.0.1:0";
    const char *threads = "8"; /* croupier serve's default */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            listen = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = argv[++i];
            int t = atoi(threads);
            if (t < 1 || t > 1024) {
                fprintf(stderr, "anchor: --threads takes 1..1024\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* croupier's front_civet_start() options that bear on speed and on how
     * connections wait: one worker per connection, the same queue of
     * accepted connections and listen backlog, Nagle off, keep-alive */
    char queue[16];
    snprintf(queue, sizeof queue, "%d", atoi(threads) < 64 ? 64 : atoi(threads));
    const char *opts[] = {
        "listening_ports", listen,
        "num_threads", threads,
        "connection_queue", queue,
        "listen_backlog", "1024",
        "tcp_nodelay", "1",
        "enable_keep_alive", "yes",
        "keep_alive_timeout_ms", "5000",
        "request_timeout_ms", "30000",
        NULL,
    };
    struct mg_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.log_message = on_log;
    mg_init_library(0);
    struct mg_context *ctx = mg_start(&cb, NULL, opts);
    if (!ctx) {
        fprintf(stderr, "anchor: cannot listen on %s\n", listen);
        mg_exit_library();
        return 1;
    }
    mg_set_request_handler(ctx, "/healthz", on_healthz, NULL);
    mg_set_request_handler(ctx, "/validate/comp10001bo/is_valid_play", on_validate, NULL);

    struct mg_server_port ports[4];
    memset(ports, 0, sizeof ports);
    int n = mg_get_server_ports(ctx, 4, ports);
    char host[128];
    snprintf(host, sizeof host, "%s", listen);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = 0;
    else
        snprintf(host, sizeof host, "0.0.0.0");
    printf("anchor: listening on http://%s:%d (threads %s)\n", host, n > 0 ? ports[0].port : 0,
           threads);
    fflush(stdout);

    while (!stop_requested)
        usleep(50 * 1000);
    mg_stop(ctx);
    mg_exit_library();
    return 0;
}
