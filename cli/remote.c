/* remote.c: a remote player of `croupier tournament`: one POST of a seat's
 * decision to an HTTP server, with a deadline (docs/tournaments.md, "Remote
 * players").
 *
 * The HTTP client is civetweb's (mg_connect_client, mg_get_response with a
 * timeout): the server already links it, and a move is one small request.
 * One connection per move ("Connection: close"): a remote player may be any
 * tiny server (Python's http.server speaks HTTP/1.0), and the loopback
 * connect costs far less than the player's own work. Thread-safe: every
 * call has its own connection, so --jobs workers call concurrently.
 */
#include <civetweb.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

enum { MAX_ANSWER = 1 << 20 };

int remote_url_parse(const char *url, remote_url *out, char *err, size_t errlen)
{
    static const char scheme[] = "http://";
    memset(out, 0, sizeof *out);
    if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
        snprintf(err, errlen, "'%s': a remote player is an http:// URL (no other scheme)", url);
        return -1;
    }
    const char *h = url + sizeof scheme - 1, *end = h + strcspn(h, ":/?#");
    size_t hl = (size_t)(end - h);
    if (hl == 0 || hl >= sizeof out->host) {
        snprintf(err, errlen, "'%s': no host in the URL", url);
        return -1;
    }
    memcpy(out->host, h, hl);
    out->port = 80;
    if (*end == ':') {
        char *e;
        long p = strtol(end + 1, &e, 10);
        if (e == end + 1 || p < 1 || p > 65535 || (*e && *e != '/' && *e != '?')) {
            snprintf(err, errlen, "'%s': the port must be 1..65535", url);
            return -1;
        }
        out->port = (int)p;
        end = e;
    }
    if (*end == '#') {
        snprintf(err, errlen, "'%s': a URL fragment (#) is not sent over HTTP", url);
        return -1;
    }
    const char *path = *end ? end : "/";
    if (*path == '?')
        snprintf(out->path, sizeof out->path, "/%s", path);
    else
        snprintf(out->path, sizeof out->path, "%s", path);
    if (strlen(path) + 1 >= sizeof out->path || strpbrk(path, " \r\n\t")) {
        snprintf(err, errlen, "'%s': the path is too long or holds spaces", url);
        return -1;
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int remote_post(const remote_url *u, const char *headers, const json_t *body, int timeout_ms, int want,
                json_t **answer, char *why, size_t whylen)
{
    char ebuf[256] = "";
    int rc = REMOTE_ERROR;
    char *text = json_dumps(body, JSON_COMPACT);
    char *buf = NULL;
    struct mg_connection *conn = NULL;
    double t0 = now_ms();
    *answer = NULL;
    why[0] = 0;
    if (!text) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    conn = mg_connect_client(u->host, u->port, 0, ebuf, sizeof ebuf);
    if (!conn) {
        snprintf(why, whylen, "cannot connect to %s:%d: %s", u->host, u->port,
                 ebuf[0] ? ebuf : "refused");
        goto done;
    }
    size_t len = strlen(text);
    if (mg_printf(conn,
                  "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                  "Accept: application/json\r\n%sContent-Length: %zu\r\nConnection: close\r\n\r\n",
                  u->path, u->host, u->port, headers ? headers : "", len) <= 0 ||
        mg_write(conn, text, len) != (int)len) {
        snprintf(why, whylen, "cannot send the request to %s:%d", u->host, u->port);
        goto done;
    }
    int left = timeout_ms - (int)(now_ms() - t0);
    if (left < 1)
        left = 1;
    if (mg_get_response(conn, ebuf, sizeof ebuf, left) < 0) {
        if (now_ms() - t0 >= timeout_ms) {
            rc = REMOTE_LATE;
            snprintf(why, whylen, "no answer within %d ms", timeout_ms);
        } else {
            snprintf(why, whylen, "no HTTP answer: %s", ebuf[0] ? ebuf : "connection closed");
        }
        goto done;
    }
    const struct mg_response_info *ri = mg_get_response_info(conn);
    if (!ri || ri->status_code != want) {
        snprintf(why, whylen, "HTTP status %d, not %d", ri ? ri->status_code : 0, want);
        if (ri && (ri->status_code == 429 || ri->status_code == 503))
            rc = REMOTE_BUSY;
        goto done;
    }
    /* the body: up to Content-Length, or to the end of the connection */
    size_t n = 0, cap = 4096;
    buf = malloc(cap + 1);
    for (int k; buf; n += (size_t)k) {
        if (n == cap) {
            if (cap >= MAX_ANSWER) {
                snprintf(why, whylen, "the answer is longer than %d bytes", MAX_ANSWER);
                goto done;
            }
            char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
        k = mg_read(conn, buf + n, cap - n);
        if (k <= 0)
            break;
    }
    if (!buf) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    buf[n] = 0;
    if (now_ms() - t0 > timeout_ms) {
        rc = REMOTE_LATE;
        snprintf(why, whylen, "answered after %.0f ms (limit %d ms)", now_ms() - t0, timeout_ms);
        goto done;
    }
    json_error_t je;
    json_t *j = json_loadb(buf, n, JSON_DECODE_ANY, &je);
    if (!j) {
        rc = REMOTE_INVALID;
        snprintf(why, whylen, "the answer is not JSON: %s", je.text);
        goto done;
    }
    *answer = j;
    rc = REMOTE_OK;
done:
    if (conn)
        mg_close_connection(conn);
    free(buf);
    free(text);
    return rc;
}

int remote_call(const remote_url *u, const json_t *body, int timeout_ms, json_t **answer,
                char *why, size_t whylen)
{
    json_t *j = NULL;
    int rc = remote_post(u, NULL, body, timeout_ms, 200, &j, why, whylen);
    json_t *play = json_is_object(j) ? json_object_get(j, "play") : NULL;
    *answer = play ? json_incref(play) : j ? json_incref(j) : NULL;
    json_decref(j);
    return rc == REMOTE_BUSY ? REMOTE_ERROR : rc;
}
