/* front_ws.c: WebSocket /games/{id}/ws on the civetweb front end: the
 * remote-player protocol of the Hanabi seed (001), for any game.
 *
 * The seat token never travels in the URL (?token= is refused, as on every
 * route): a program sends `Authorization: Bearer <token>` with the upgrade;
 * a browser, which cannot set that header, offers the two subprotocols
 * "croupier" and "croupier.token.<token>" (new WebSocket(url, ["croupier",
 * "croupier.token." + token])). The server answers "croupier", so the token
 * is not even echoed back, and access logs never see it. No token:
 * a spectator. The messages themselves are the seed's, unchanged.
 *
 * The server pushes the caller's events as they happen, in the game's own
 * event shapes (the member "n" removed) written as Python's json.dumps would
 * (", " and ": " separators), sends {"event": "turn"} when it is that seat's
 * turn, and takes the action JSON back as the seat's play. Nothing about a
 * game is held here: each push re-reads the store (the events snapshot), and
 * an action is a synthesized POST /games/{id}/plays through api_handle(), so
 * every rule, check and compare-and-swap is the one the HTTP API uses.
 * One poller thread serves all connections: every 100 ms after something
 * happened on one, backing off to once a second while nothing does.
 *
 * A WebSocket holds a civetweb worker for as long as it is open, so it
 * counts against the stream budget of limits.c (past it the upgrade is
 * refused with a 503 problem and Retry-After), and it is closed when idle:
 * nothing pushed and nothing received for streams_idle_ms() (60 s for a
 * spectator or the admin, 10 min for a seat by default). civetweb
 * pings a silent client and drops one that does not answer (front_civet.c).
 * The client reconnects and gets every event it missed.
 */
#include "front_ws.h"
#include "notify.h"

#include <civetweb.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "core/jsonx.h"
#include "front_civet.h"
#include "limits.h"
#include "json_arena.h"

enum {
    WS_POLL_MIN_MS = 100,             /* poll interval after activity ... */
    WS_POLL_MAX_MS = 1000,            /* ... doubling up to this while idle */
    WS_MAX_DEPTH = 31,                /* an action, inside {"play": ...}: the API's 32 */
};

typedef struct ws_conn {
    struct mg_connection *conn;
    char game_id[96];
    char query[320];
    char auth[300];
    long after;
    long long prompted; /* version at which "turn" was last sent; -1 none */
    char client[64];    /* the address its stream slot is counted under */
    int fd;             /* its socket (front_civet_fd), -1 unknown */
    int seat;           /* the reader at connect: a seat >= 0, or not */
    int closing;        /* idle: closed by the poller */
    int64_t last;       /* ms: last event pushed or message received */
    int64_t next_poll;  /* ms */
    int interval;       /* ms */
    unsigned long seen; /* its game's notify generation at its last poll */
    struct ws_conn *next;
} ws_conn;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Something happened: poll this one again soon. Caller holds W.mu. */
static void active(ws_conn *wc)
{
    wc->last = now_ms();
    wc->interval = WS_POLL_MIN_MS;
    wc->next_poll = wc->last + wc->interval;
}

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a connection joined the list, or stop */
    pthread_t poller;
    int running;
    const api_config *cfg;
    ws_conn *list;
} W = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void req_for(const ws_conn *wc, http_req *req, http_header *h, const char *method,
                    const char *path)
{
    memset(req, 0, sizeof *req);
    req->method = method;
    req->path = path;
    req->query = wc->query;
    h[0].name = "Authorization";
    h[0].value = wc->auth;
    req->headers = h;
    req->nheaders = wc->auth[0] ? 1 : 0;
}

static void send_json(struct mg_connection *conn, json_t *j)
{
    char *text = json_text(j, JSON_ENSURE_ASCII); /* Python json.dumps style */
    if (text)
        mg_websocket_write(conn, MG_WEBSOCKET_OPCODE_TEXT, text, strlen(text));
    free(text);
}

static void close_with(ws_conn *wc, const char *frame, size_t len);

/* Push new events and the turn prompt; 1 when something was sent. Caller
 * holds W.mu. A token that no longer names a seat (an invite to the seat
 * was claimed: api/h_seats.c) ends the connection: 1008, policy. */
static int poll_one(ws_conn *wc)
{
    http_req req;
    http_header h[1];
    req_for(wc, &req, h, "GET", "/ws");
    events_snapshot snap;
    game_err e = {0};
    if (api_events_load(W.cfg, &req, wc->game_id, wc->after, &snap, &e)) {
        static const char gone[] = "\x03\xf0seat token no longer valid"; /* 1008 */
        if (e.code == ERR_UNAUTHORIZED)
            close_with(wc, gone, sizeof gone - 1);
        return 0; /* deleted game or store hiccup: nothing to push now */
    }
    int sent = json_array_size(snap.events) > 0;
    size_t i;
    json_t *ev;
    json_array_foreach(snap.events, i, ev) {
        long n = (long)json_integer_value(json_object_get(ev, "n"));
        json_t *bare = json_copy(ev);
        json_object_del(bare, "n");
        send_json(wc->conn, bare);
        json_decref(bare);
        if (n > wc->after)
            wc->after = n;
    }
    json_decref(snap.events);
    if (!snap.over && snap.seat >= 0 && snap.to_move == snap.seat &&
        wc->prompted != snap.version) {
        json_t *turn = json_pack("{s:s}", "event", "turn");
        send_json(wc->conn, turn);
        json_decref(turn);
        wc->prompted = snap.version;
        sent = 1;
    }
    if (sent)
        active(wc);
    return sent;
}

/* Close an idle connection: a close frame (1001, going away: a client
 * reconnects), then its socket shut, which ends civetweb's read loop even if
 * the client never answers. The entry leaves the list in on_close. */
static void close_with(ws_conn *wc, const char *frame, size_t len)
{
    mg_websocket_write(wc->conn, MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE, frame, len);
    front_civet_cut(wc->fd);
    wc->closing = 1;
}

static void close_idle(ws_conn *wc)
{
    static const char frame[] = "\x03\xe9idle"; /* status 1001, reason "idle" */
    close_with(wc, frame, sizeof frame - 1);
}

static void *poller(void *arg)
{
    (void)arg;
    while (__atomic_load_n(&W.running, __ATOMIC_ACQUIRE)) {
        unsigned long total = notify_total();
        pthread_mutex_lock(&W.mu);
        int64_t now = now_ms();
        for (ws_conn *wc = W.list; wc; wc = wc->next) {
            if (wc->closing)
                continue;
            if (now - wc->last > streams_idle_ms(wc->seat)) {
                close_idle(wc);
                continue;
            }
            /* a write to its game in this process: poll now (notify.h) */
            unsigned long seen = notify_seen(wc->game_id);
            if (now < wc->next_poll && seen == wc->seen)
                continue;
            wc->seen = seen;
            if (!poll_one(wc)) {
                wc->interval = wc->interval * 2 > WS_POLL_MAX_MS ? WS_POLL_MAX_MS
                                                                 : wc->interval * 2;
                wc->next_poll = now + wc->interval;
            }
        }
        if (!W.list && __atomic_load_n(&W.running, __ATOMIC_ACQUIRE)) {
            /* nobody to serve: sleep until one joins (on_ready) or stop,
             * not woken by every write of every game */
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_sec += 1;
            pthread_cond_timedwait(&W.cv, &W.mu, &t);
            pthread_mutex_unlock(&W.mu);
            continue;
        }
        pthread_mutex_unlock(&W.mu);
        notify_wait_any(total, WS_POLL_MIN_MS); /* or a write anywhere wakes it */
    }
    return NULL;
}

/* /games/{id}/ws -> id; 0 if the path is not of that form. */
static int game_id_of(const char *uri, char *id, size_t n)
{
    if (strncmp(uri, "/games/", 7) != 0)
        return 0;
    const char *s = uri + 7, *slash = strchr(s, '/');
    if (!slash || slash == s || strcmp(slash, "/ws") != 0 || (size_t)(slash - s) >= n)
        return 0;
    memcpy(id, s, (size_t)(slash - s));
    id[slash - s] = 0;
    return 1;
}

/* The token offered as subprotocol "croupier.token.<token>" (any of the
 * Sec-WebSocket-Protocol headers, comma-separated lists); 0 if none. */
static const char TOKEN_PROTOCOL[] = "croupier.token.";

static int subprotocol_token(const struct mg_request_info *ri, char *out, size_t n)
{
    const size_t plen = sizeof TOKEN_PROTOCOL - 1;
    for (int i = 0; i < ri->num_headers; i++) {
        if (strcasecmp(ri->http_headers[i].name, "Sec-WebSocket-Protocol") != 0)
            continue;
        const char *p = ri->http_headers[i].value;
        while (p && *p) {
            while (*p == ' ' || *p == '\t' || *p == ',')
                p++;
            size_t len = strcspn(p, ", \t");
            if (len > plen && len - plen < n && strncmp(p, TOKEN_PROTOCOL, plen) == 0) {
                memcpy(out, p + plen, len - plen);
                out[len - plen] = 0;
                return 1;
            }
            p += len;
        }
    }
    return 0;
}

/* Refuse the upgrade with a problem (the handshake is still plain HTTP). */
static void refuse_upgrade(const struct mg_connection *conn, const char *uri,
                           const char *parameter, const char *detail)
{
    http_req r = {.method = "GET", .path = uri};
    http_res res;
    memset(&res, 0, sizeof res);
    game_err e = {0};
    err_set(&e, ERR_BAD_QUERY, NULL, "%s", detail);
    http_res_problem(&res, &r, ERR_BAD_QUERY, &e,
                     parameter ? json_pack("{s:s}", "parameter", parameter) : NULL);
    http_res_browser(W.cfg, &r, &res);
    front_civet_write((struct mg_connection *)conn, &res, 0, 1);
    http_res_free(&res);
}

static int on_connect(const struct mg_connection *conn, void *cb)
{
    (void)cb;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    ws_conn *wc = calloc(1, sizeof *wc);
    if (!wc)
        return 1;
    wc->prompted = -1;
    if (!game_id_of(ri->local_uri ? ri->local_uri : "", wc->game_id, sizeof wc->game_id)) {
        http_req r = {.method = "GET", .path = ri->local_uri};
        http_res res;
        memset(&res, 0, sizeof res);
        game_err e = {0};
        err_set(&e, ERR_NOT_FOUND, NULL, "no WebSocket at %s (use /games/{id}/ws)", ri->local_uri);
        http_res_problem(&res, &r, ERR_NOT_FOUND, &e, NULL);
        front_civet_write((struct mg_connection *)conn, &res, 0, 1);
        http_res_free(&res);
        free(wc);
        return 1;
    }
    snprintf(wc->query, sizeof wc->query, "%s", ri->query_string ? ri->query_string : "");
    http_req probe;
    http_header h[1];
    char tok[256];
    req_for(wc, &probe, h, "GET", "/ws");
    if (http_req_query(&probe, "token", tok, sizeof tok)) {
        refuse_upgrade(conn, ri->local_uri, "token",
                       "a token is never accepted in the URL: offer the subprotocols "
                       "'croupier' and 'croupier.token.<token>', or send the header "
                       "'Authorization: Bearer <token>'");
        free(wc);
        return 1;
    }
    if (!mg_get_header(conn, "Sec-WebSocket-Protocol")) {
        /* civetweb 1.15 keeps the subprotocol it selected for the previous
         * connection on this worker when a client offers none, and would
         * answer with it: a client that offered nothing fails the handshake. */
        ((struct mg_request_info *)ri)->acceptedWebSocketSubprotocol = NULL;
    }
    const char *auth = mg_get_header(conn, "Authorization");
    if (auth)
        snprintf(wc->auth, sizeof wc->auth, "%s", auth);
    else if (subprotocol_token(ri, tok, sizeof tok)) {
        if (!ri->acceptedWebSocketSubprotocol) {
            /* a browser fails a handshake that selects none of its offers */
            refuse_upgrade(conn, ri->local_uri, NULL,
                           "offer the subprotocol 'croupier' together with "
                           "'croupier.token.<token>'");
            free(wc);
            return 1;
        }
        snprintf(wc->auth, sizeof wc->auth, "Bearer %s", tok);
    }
    req_for(wc, &probe, h, "GET", "/ws");
    events_snapshot snap;
    game_err e = {0};
    if (api_events_load(W.cfg, &probe, wc->game_id, 0, &snap, &e)) {
        /* unknown game or bad token: refuse the upgrade with a problem */
        http_res res;
        memset(&res, 0, sizeof res);
        probe.path = ri->local_uri;
        http_res_problem(&res, &probe, e.code, &e, NULL);
        http_res_browser(W.cfg, &probe, &res);
        front_civet_write((struct mg_connection *)conn, &res, 0, 1);
        http_res_free(&res);
        free(wc);
        return 1;
    }
    json_decref(snap.events);
    /* a stream slot for as long as it is open (given back in on_close, or in
     * front_ws_closed if the handshake never completes) */
    snprintf(wc->client, sizeof wc->client, "%s", ri->remote_addr);
    if (streams_acquire(wc->client)) {
        http_res res;
        transport_problem(&res, 503,
                          "the server holds as many event streams as it serves at once (in "
                          "all, or from this address): try again later, or poll GET "
                          "/games/{id}/events",
                          ri->local_uri);
        probe.path = ri->local_uri;
        http_res_browser(W.cfg, &probe, &res);
        front_civet_write((struct mg_connection *)conn, &res, 0, 1);
        http_res_free(&res);
        free(wc);
        return 1;
    }
    wc->fd = front_civet_fd();
    wc->seat = snap.seat;
    mg_set_user_connection_data(conn, wc);
    return 0;
}

static void on_ready(struct mg_connection *conn, void *cb)
{
    (void)cb;
    ws_conn *wc = mg_get_user_connection_data(conn);
    if (!wc)
        return;
    wc->conn = conn;
    pthread_mutex_lock(&W.mu);
    active(wc);
    wc->next = W.list;
    W.list = wc;
    poll_one(wc);
    pthread_cond_signal(&W.cv);
    pthread_mutex_unlock(&W.mu);
}

static void invalid(struct mg_connection *conn, const char *message)
{
    json_t *j = json_pack("{s:s,s:s}", "event", "invalidAction", "message", message);
    send_json(conn, j);
    json_decref(j);
}

/* A message refused before it reaches the game (too large, not JSON): said
 * so, and the turn asked again, as after any refused action. */
static int refuse(ws_conn *wc, const char *message)
{
    pthread_mutex_lock(&W.mu);
    invalid(wc->conn, message);
    wc->prompted = -1; /* ask again */
    poll_one(wc);
    pthread_mutex_unlock(&W.mu);
    return 1;
}

static int on_data(struct mg_connection *conn, int bits, char *data, size_t len, void *cb)
{
    (void)cb;
    ws_conn *wc = mg_get_user_connection_data(conn);
    int opcode = bits & 0x0f;
    if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE)
        return 0;
    if (!wc || !wc->conn)
        return 1;
    if (opcode != MG_WEBSOCKET_OPCODE_TEXT && opcode != MG_WEBSOCKET_OPCODE_BINARY)
        return 1; /* ping, pong: nothing to answer (a binary message is read as text) */
    pthread_mutex_lock(&W.mu);
    active(wc);
    pthread_mutex_unlock(&W.mu);
    if (len > W.cfg->body_limit)
        return refuse(wc, "message too large");
    if (jx_nested_deeper(data, len, WS_MAX_DEPTH))
        return refuse(wc, "the action is nested too deep");
    json_error_t je;
    json_t *action = json_loadb(data, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!action)
        return refuse(wc, "the action is not JSON");
    json_t *body = json_pack("{s:o}", "play", action);
    char *text = json_text(body, JSON_COMPACT);
    json_decref(body);
    char path[128];
    snprintf(path, sizeof path, "/games/%s/plays", wc->game_id);
    http_req req;
    http_header h[2];
    req_for(wc, &req, h, "POST", path);
    h[req.nheaders].name = "Content-Type";
    h[req.nheaders].value = "application/json";
    req.nheaders++;
    req.body = text;
    req.body_len = text ? strlen(text) : 0;
    http_res res;
    if (front_civet_enter()) { /* on this connection's worker, as any request */
        free(text);
        return refuse(wc, "the server is busy: try again");
    }
    api_handle(W.cfg, &req, &res);
    front_civet_leave();
    free(text);
    pthread_mutex_lock(&W.mu);
    if (res.status != 200) {
        json_t *p = json_loadb(res.body ? res.body : "", res.body_len, 0, NULL);
        const char *d = json_string_value(json_object_get(p, "detail"));
        invalid(conn, d ? d : "the action was refused");
        json_decref(p);
        wc->prompted = -1; /* ask again */
    }
    poll_one(wc);
    pthread_mutex_unlock(&W.mu);
    http_res_free(&res);
    return 1;
}

static void on_close(const struct mg_connection *conn, void *cb)
{
    (void)cb;
    ws_conn *wc = mg_get_user_connection_data(conn);
    if (!wc)
        return;
    pthread_mutex_lock(&W.mu);
    for (ws_conn **p = &W.list; *p; p = &(*p)->next)
        if (*p == wc) {
            *p = wc->next;
            break;
        }
    pthread_mutex_unlock(&W.mu);
    streams_release(wc->client);
    mg_set_user_connection_data(conn, NULL);
    free(wc);
}

/* civetweb closes a connection: if on_connect accepted it but the handshake
 * failed (so neither on_ready nor on_close ran), its slot and entry are
 * still ours. Only WebSocket connections carry user data. */
void front_ws_closed(const struct mg_connection *conn)
{
    ws_conn *wc = mg_get_user_connection_data(conn);
    if (!wc)
        return;
    mg_set_user_connection_data(conn, NULL);
    streams_release(wc->client);
    free(wc);
}

int front_ws_start(struct mg_context *ctx, const api_config *cfg)
{
    W.cfg = cfg;
    W.running = 1;
    if (pthread_create(&W.poller, NULL, poller, NULL)) {
        W.running = 0;
        return -1;
    }
    /* "croupier" is the one subprotocol the server selects: a browser that
     * offers it with "croupier.token.<token>" gets it back, not its token. */
    static const char *protocols[] = {"croupier"};
    static struct mg_websocket_subprotocols sub = {1, protocols};
    mg_set_websocket_handler_with_subprotocols(ctx, "/games", &sub, on_connect, on_ready,
                                               on_data, on_close, NULL);
    return 0;
}

void front_ws_stop(void)
{
    if (!W.running)
        return;
    pthread_mutex_lock(&W.mu);
    __atomic_store_n(&W.running, 0, __ATOMIC_RELEASE);
    pthread_cond_signal(&W.cv);
    pthread_mutex_unlock(&W.mu);
    pthread_join(W.poller, NULL);
}
