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
 * game is held here but the last events of each audience (fanout.h: loaded
 * and written once for every stream, SSE or WebSocket, of one credential;
 * a push re-reads the store when the game changed), and
 * an action is a synthesized POST /games/{id}/plays through api_handle(), so
 * every rule, check and compare-and-swap is the one the HTTP API uses.
 * One poller thread serves all connections: every 100 ms after something
 * happened on one, backing off to once a second while nothing does.
 *
 * civetweb does the handshake; the frames are read and written here with
 * wslay, on the connection's worker thread, inside the ready callback
 * (civetweb's own frame loop never runs: it reserves whatever length a
 * frame header announces, up to 2 GiB, before a byte of it arrives). wslay
 * refuses a frame that would take a message past the body limit (64 KiB)
 * as soon as its header is in, with close code 1009, reassembles
 * fragmented messages within the same limit, answers pings, and checks the
 * close handshake and UTF-8. A message is handled as the REST API handles
 * the same play, and a refusal names the offending member as REST does (a
 * pointer into the action). Bytes a client sends before the handshake's
 * answer are not read (RFC 6455 4.1: a client waits for it).
 *
 * A WebSocket holds a civetweb worker for as long as it is open, so it
 * counts against the stream budget of transport_limits.c (past it the upgrade is
 * refused with a 503 problem and Retry-After), and it is closed when idle:
 * nothing pushed and nothing received for streams_idle_ms() (60 s for a
 * spectator or the admin, 10 min for a seat by default). A silent client
 * is pinged every WS_PING_MS and dropped after WS_PINGS unanswered pings.
 * The client reconnects and gets every event it missed.
 *
 * Every queue a client can fill is bounded by construction, whatever it
 * sends and whether it reads or not:
 *  - what it sends is handed to wslay a frame at a time, and nothing more
 *    is read while anything is owed to it (a pong, a reply, an event not
 *    yet taken by its socket) or a message of it waits to be handled: a
 *    ping flood gets one pong at a time, the rest waits in the kernel's
 *    buffers (RFC 6455 5.5.3 lets a pong answer only the latest ping; here
 *    none is skipped, they are read later);
 *  - what is pushed to it: the poller stops adding events once
 *    WS_OUT_MAX bytes wait for the socket, and goes on from there when they
 *    are gone (the events are re-read from the store, nothing is lost);
 *  - a client that has not taken all it is owed WS_SEND_MS after it began
 *    to be owed something is cut off (a client that takes a few bytes now
 *    and then gains nothing), and the kernel holds at most
 *    CONN_STREAM_SNDBUF of it (front_conn.h).
 * The poller never writes to a socket: it queues frames and wakes the
 * connection's worker (an eventfd), which alone reads and writes, without
 * ever blocking on the socket, so one slow client delays no one else.
 */
#include "front_ws.h"
#include "fanout.h"
#include "notify.h"

#include <civetweb.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "api.h"
#include "core/jsonx.h"
#include "front_conn.h"
#include "transport_limits.h"
#include "json_arena.h"

enum {
    WS_POLL_MIN_MS = 100,             /* poll interval after activity ... */
    WS_POLL_MAX_MS = 1000,            /* ... doubling up to this while idle */
    WS_MAX_DEPTH = 31,                /* an action, inside {"play": ...}: the API's 32 */
    WS_PING_MS = 15000,               /* a silent client is pinged ... */
    WS_PINGS = 6,                     /* ... and dropped after this many unanswered */
    WS_SEND_MS = 10000,               /* output the client does not take in this long: cut off */
    WS_OUT_MAX = 32 << 10,            /* bytes waiting for its socket: no more events pushed */
    WS_LINGER_MS = 1000,              /* after our close frame: what still comes is dropped */
};

/* Where the client's byte stream stands between frame headers (track_frames). */
typedef struct ws_track {
    uint8_t head[14];
    int have, need; /* header bytes held; needed (2, then the whole header) */
    uint64_t skip;  /* payload bytes of the current frame still to come */
    uint64_t msg;   /* data bytes of the current message so far */
    int ends;       /* the current frame ends a message, or is a control frame */
} ws_track;

/* A message received, waiting to be handled (see serve()). */
typedef struct ws_msg {
    struct ws_msg *next;
    size_t len;
    char data[];
} ws_msg;

typedef struct ws_conn {
    struct mg_connection *conn;
    char game_id[96];
    char query[320];
    char auth[300];
    long after;
    long long prompted; /* version at which "turn" was last sent; -1 none */
    char client[64];    /* the address its stream slot is counted under */
    int fd;             /* its socket (front_conn_fd), -1 unknown */
    int seat;           /* the reader at connect: a seat >= 0, or not */
    int closing;        /* idle: closed by the poller */
    int64_t last;       /* ms: last event pushed or message received */
    int64_t next_poll;  /* ms */
    int interval;       /* ms */
    unsigned long seen; /* its game's notify generation at its last poll */
    fan_aud *aud;       /* its audience (fanout.h), NULL: it loads its own */
    struct ws_conn *next;
    /* the frames (wslay): read by its worker, written by it and the poller */
    pthread_mutex_t wmu;
    wslay_event_context_ptr ws; /* NULL once the connection is over */
    ws_msg *inbox, **inbox_tail; /* received, not yet handled (worker only) */
    int pings;                  /* sent since the client was last heard */
    ws_track track;             /* the frame headers read so far (track_frames) */
    int too_big;                /* a header took its message past the limit */
    int wake;                   /* eventfd: frames were queued (the worker sends them) */
    int64_t out_since;          /* ms: what is owed began to wait (nothing was owed before) */
    int64_t heard, pinged;      /* ms: bytes last came from the client; our last ping */
    uint8_t in[4096];           /* read from the socket, not yet handed to wslay */
    size_t in_off, in_len;
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

/* The worker is in poll(): tell it that frames wait (serve()). */
static void wake_worker(ws_conn *wc)
{
    uint64_t one = 1;
    if (wc->wake >= 0 && write(wc->wake, &one, sizeof one) < 0) {
        /* the counter is full (it cannot be): the worker is awake anyway */
    }
}

/* A frame is about to be queued: if nothing was owed, the write timeout
 * runs from now. Caller holds wmu. */
static void owe(ws_conn *wc)
{
    if (!wslay_event_want_write(wc->ws))
        wc->out_since = now_ms();
}

/* Queue a frame for the worker to send; NULL ws (the connection is over):
 * nothing. Callers bound what they queue (poll_one: WS_OUT_MAX). */
static void send_frame(ws_conn *wc, uint8_t opcode, const char *data, size_t len)
{
    pthread_mutex_lock(&wc->wmu);
    if (wc->ws) {
        struct wslay_event_msg m = {opcode, (const uint8_t *)data, len};
        owe(wc);
        wslay_event_queue_msg(wc->ws, &m);
    }
    pthread_mutex_unlock(&wc->wmu);
    wake_worker(wc);
}

static void send_json(ws_conn *wc, json_t *j)
{
    char *text = json_text(j, JSON_ENSURE_ASCII); /* Python json.dumps style */
    if (text)
        send_frame(wc, WSLAY_TEXT_FRAME, text, strlen(text));
    free(text);
}

static void close_with(ws_conn *wc, uint16_t code, const char *reason);

/* How many bytes are queued for the client, not yet taken by its socket. */
static size_t backlog(ws_conn *wc)
{
    pthread_mutex_lock(&wc->wmu);
    size_t n = wc->ws ? wslay_event_get_queued_msg_length(wc->ws) : 0;
    pthread_mutex_unlock(&wc->wmu);
    return n;
}

/* Come back to this one soon, without calling it active (its idle time
 * runs on: a client that takes nothing is cut off by the write timeout). */
static void soon(ws_conn *wc)
{
    wc->interval = WS_POLL_MIN_MS;
    wc->next_poll = now_ms() + wc->interval;
}

/* Push new events and the turn prompt; 1 when something was sent (or is
 * held back: WS_OUT_MAX bytes already wait for the client's socket, and
 * the rest follows when they are gone). Caller holds W.mu. A token that
 * no longer names a seat (an invite to the seat was claimed:
 * api/h_seats.c) ends the connection: 1008, policy. */
static int poll_one(ws_conn *wc)
{
    if (backlog(wc) >= WS_OUT_MAX) {
        soon(wc);
        return 1;
    }
    http_req req;
    http_header h[1];
    req_for(wc, &req, h, "GET", "/ws");
    fan_view v;
    /* the events as texts written once for the reader's audience
     * (fanout.h): each is queued from the shared bytes */
    fan_get(wc->aud, api_events_load, W.cfg, &req, wc->game_id, FAN_WS, wc->after, &v);
    if (v.rc) {
        if (v.rc == ERR_UNAUTHORIZED)
            close_with(wc, WSLAY_CODE_POLICY_VIOLATION, "seat token no longer valid");
        fan_release(&v);
        return 0; /* deleted game or store hiccup: nothing to push now */
    }
    int sent = v.count > 0, held = 0;
    for (size_t i = v.first; i < v.first + v.count; i++) {
        if (backlog(wc) >= WS_OUT_MAX) { /* the rest at a later poll, from wc->after */
            held = 1;
            break;
        }
        size_t len;
        long n;
        const char *text = fan_event(&v, i, &len, &n);
        send_frame(wc, WSLAY_TEXT_FRAME, text, len);
        if (n > wc->after)
            wc->after = n;
    }
    fan_release(&v);
    if (!held && !v.over && v.seat >= 0 && v.to_move == v.seat &&
        wc->prompted != v.version) {
        json_t *turn = json_pack("{s:s}", "event", "turn");
        send_json(wc, turn);
        json_decref(turn);
        wc->prompted = v.version;
        sent = 1;
    }
    if (sent)
        active(wc);
    if (held)
        soon(wc);
    return sent;
}

/* Close a connection: a close frame (code and reason; 1001 going away for
 * an idle one: a client reconnects), sent by its worker, which then ends
 * the connection (serve()), or cuts it off if the client takes nothing for
 * WS_SEND_MS. The entry leaves the list in on_close. */
static void close_with(ws_conn *wc, uint16_t code, const char *reason)
{
    pthread_mutex_lock(&wc->wmu);
    if (wc->ws) {
        owe(wc);
        wslay_event_queue_close(wc->ws, code, (const uint8_t *)reason, strlen(reason));
    }
    pthread_mutex_unlock(&wc->wmu);
    wake_worker(wc);
    wc->closing = 1;
}

static void close_idle(ws_conn *wc)
{
    close_with(wc, WSLAY_CODE_GOING_AWAY, "idle");
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

static void conn_free(ws_conn *wc);

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
 * Sec-WebSocket-Protocol headers, comma-separated lists): 1, 0 if none, -1
 * if it is longer than n - 1 (refused: no token is, and a token cut short,
 * or dropped, would make the caller a spectator unawares). */
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
            if (len > plen && strncmp(p, TOKEN_PROTOCOL, plen) == 0) {
                if (len - plen >= n)
                    return -1;
                memcpy(out, p + plen, len - plen);
                out[len - plen] = 0;
                return 1;
            }
            p += len;
        }
    }
    return 0;
}

/* Refuse the upgrade with a problem (the handshake is still plain HTTP):
 * res (freed here) is sent with the headers every response carries, and
 * wc dropped. Returns 1, for on_connect to return. */
static int upgrade_refused(const struct mg_connection *conn, ws_conn *wc, http_res *res)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    http_req r = {.method = "GET", .path = ri && ri->local_uri ? ri->local_uri : "/"};
    http_res_browser(W.cfg, &r, res);
    front_conn_write((struct mg_connection *)conn, res, 0, 1);
    http_res_free(res);
    conn_free(wc);
    return 1;
}

/* ... with a problem of `code` saying `detail` (and naming a parameter). */
static int refuse_upgrade(const struct mg_connection *conn, ws_conn *wc, int code,
                          const char *parameter, const char *detail)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    http_req r = {.method = "GET", .path = ri && ri->local_uri ? ri->local_uri : "/"};
    http_res res;
    memset(&res, 0, sizeof res);
    game_err e = {0};
    err_set(&e, code, NULL, "%s", detail);
    http_res_problem(&res, &r, code, &e, parameter ? json_pack("{s:s}", "parameter", parameter) : NULL);
    return upgrade_refused(conn, wc, &res);
}

static int on_connect(const struct mg_connection *conn, void *cb)
{
    (void)cb;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    ws_conn *wc = calloc(1, sizeof *wc);
    if (!wc)
        return 1;
    pthread_mutex_init(&wc->wmu, NULL);
    wc->prompted = -1;
    wc->wake = -1;
    if (!game_id_of(ri->local_uri ? ri->local_uri : "", wc->game_id, sizeof wc->game_id))
        return refuse_upgrade(conn, wc, ERR_NOT_FOUND, NULL,
                              "no WebSocket here (use /games/{id}/ws)");
    snprintf(wc->query, sizeof wc->query, "%s", ri->query_string ? ri->query_string : "");
    http_req probe;
    http_header h[1];
    char tok[256];
    req_for(wc, &probe, h, "GET", "/ws");
    char secret[64]; /* any parameter named like a secret, as on every route (router.c) */
    if (http_query_secret(wc->query, secret, sizeof secret))
        return refuse_upgrade(conn, wc, ERR_BAD_QUERY, secret,
                              "a secret is never accepted in the URL: offer the subprotocols "
                              "'croupier' and 'croupier.token.<token>', or send the header "
                              "'Authorization: Bearer <token>'");
    if (!mg_get_header(conn, "Sec-WebSocket-Protocol")) {
        /* civetweb 1.15 keeps the subprotocol it selected for the previous
         * connection on this worker when a client offers none, and would
         * answer with it: a client that offered nothing fails the handshake. */
        ((struct mg_request_info *)ri)->acceptedWebSocketSubprotocol = NULL;
    }
    const char *auth = mg_get_header(conn, "Authorization");
    int offered = auth ? 0 : subprotocol_token(ri, tok, sizeof tok);
    if ((auth && strlen(auth) >= sizeof wc->auth) || offered < 0)
        return refuse_upgrade(conn, wc, ERR_UNAUTHORIZED, NULL,
                              "the token is longer than any token is (255 characters at most)");
    if (auth)
        snprintf(wc->auth, sizeof wc->auth, "%s", auth);
    else if (offered) {
        if (!ri->acceptedWebSocketSubprotocol) /* a browser fails a handshake selecting none */
            return refuse_upgrade(conn, wc, ERR_BAD_QUERY, NULL,
                                  "offer the subprotocol 'croupier' together with "
                                  "'croupier.token.<token>'");
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
        return upgrade_refused(conn, wc, &res);
    }
    json_decref(snap.events);
    if (front_conn_fd() < 0) { /* frames are read from the socket itself */
        http_res res;
        transport_problem(&res, 503, "WebSocket is unavailable on this connection (its socket "
                                     "could not be found): poll GET /games/{id}/events",
                          ri->local_uri);
        return upgrade_refused(conn, wc, &res);
    }
    /* a stream slot for as long as it is open (given back in on_close, or in
     * front_ws_closed if the handshake never completes) */
    snprintf(wc->client, sizeof wc->client, "%s", ri->remote_addr);
    if (streams_acquire(wc->client, STREAM_WEBSOCKET)) {
        http_res res;
        transport_problem(&res, 503,
                          "the server holds as many event streams as it serves at once (in "
                          "all, or from this address): try again later, or poll GET "
                          "/games/{id}/events",
                          ri->local_uri);
        return upgrade_refused(conn, wc, &res);
    }
    wc->fd = front_conn_fd();
    front_conn_stream_socket(wc->fd);
    wc->seat = snap.seat;
    mg_set_user_connection_data(conn, wc);
    return 0;
}

static void invalid(ws_conn *wc, const char *message, const char *member)
{
    json_t *j = json_pack("{s:s,s:s}", "event", "invalidAction", "message", message);
    if (member) /* a JSON pointer into the action ("" the whole of it) */
        json_object_set_new(j, "member", json_string(member));
    send_json(wc, j);
    json_decref(j);
}

/* A message refused before it reaches the game (not JSON, too deep): said
 * so, and the turn asked again, as after any refused action. */
static void refuse(ws_conn *wc, const char *message)
{
    pthread_mutex_lock(&W.mu);
    invalid(wc, message, NULL);
    wc->prompted = -1; /* ask again */
    poll_one(wc);
    pthread_mutex_unlock(&W.mu);
}

/* A refusal of the play API as the action's: its detail, and the member
 * it names, as a pointer into the action (REST's "/play/target" is the
 * action's "/target"). */
static void refused_play(ws_conn *wc, const http_res *res)
{
    json_t *p = json_loadb(res->body ? res->body : "", res->body_len, 0, NULL);
    const char *d = json_string_value(json_object_get(p, "detail"));
    const char *ptr = json_string_value(
        json_object_get(json_array_get(json_object_get(p, "errors"), 0), "pointer"));
    char msg[600];
    int named = ptr && strncmp(ptr, "/play", 5) == 0 && (ptr[5] == 0 || ptr[5] == '/');
    const char *member = named ? ptr + 5 : NULL; /* "": the action as a whole */
    if (!d)
        d = "the action was refused";
    if (member && *member)
        snprintf(msg, sizeof msg, "%s (at %s)", d, member);
    else if (member)
        snprintf(msg, sizeof msg, "%s (the action as a whole)", d);
    else
        snprintf(msg, sizeof msg, "%s", d);
    invalid(wc, msg, member);
    json_decref(p);
}

/* One message from the client: its action, played as POST
 * /games/{id}/plays would play {"play": action}. */
static void handle_message(ws_conn *wc, const char *data, size_t len)
{
    pthread_mutex_lock(&W.mu);
    active(wc);
    pthread_mutex_unlock(&W.mu);
    if (jx_nested_deeper(data, len, WS_MAX_DEPTH)) {
        refuse(wc, "the action is nested too deep");
        return;
    }
    json_error_t je;
    json_t *action = json_loadb(data, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!action) {
        refuse(wc, "the action is not JSON");
        return;
    }
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
    if (front_conn_enter(CONN_GATE_BOTS)) { /* on this connection's worker, as any request */
        free(text);
        refuse(wc, "the server is busy: try again");
        return;
    }
    api_handle(W.cfg, &req, &res);
    front_conn_leave(CONN_GATE_BOTS);
    free(text);
    pthread_mutex_lock(&W.mu);
    if (res.status != 200) {
        refused_play(wc, &res);
        wc->prompted = -1; /* ask again */
    }
    poll_one(wc);
    pthread_mutex_unlock(&W.mu);
    http_res_free(&res);
}

/* ---- frames (wslay), on the connection's worker ----------------------------- */

/* wslay judges a frame's length against the limit once the first bytes of
 * its payload arrive: a client that sends a header announcing 1 GiB and
 * nothing more would hold its connection until its pings ran out. So the
 * bytes handed to wslay pass through this tracker of frame headers, which
 * tells as soon as a header is in that it takes its message (fragments
 * counted together) past the limit (*too_big; the connection is then
 * closed with 1009, serve()). It also cuts what is handed over at the end
 * of every frame that ends a message or is a control frame: wslay answers
 * each ping with a pong it queues, and handles a message as it ends, so
 * that one such frame at a time goes in (ws_recv). Returns how many of the
 * n bytes to hand over now. wslay still does all the rest (and the same
 * checks). */
static size_t track_frames(ws_track *t, const uint8_t *p, size_t n, uint64_t limit,
                           int *too_big)
{
    size_t used = 0;
    while (used < n) {
        if (t->skip) { /* payload: passed through */
            uint64_t k = t->skip < n - used ? t->skip : n - used;
            t->skip -= k;
            used += (size_t)k;
            if (!t->skip && t->ends)
                break;
            continue;
        }
        t->head[t->have++] = p[used++];
        if (t->have == 2) {
            int len7 = t->head[1] & 127;
            t->need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (t->head[1] & 0x80 ? 4 : 0);
        }
        if (t->have < 2 || t->have < t->need)
            continue;
        uint64_t len = t->head[1] & 127;
        if (len == 126)
            len = (uint64_t)t->head[2] << 8 | t->head[3];
        else if (len == 127) {
            len = 0;
            for (int i = 2; i < 10; i++)
                len = len << 8 | t->head[i];
        }
        int opcode = t->head[0] & 15, fin = t->head[0] >> 7;
        if (opcode < 8) { /* a data frame (control frames are 125 bytes at most) */
            if (len > limit || t->msg + len > limit) {
                *too_big = 1;
                break;
            }
            t->msg = fin ? 0 : t->msg + len;
        }
        t->skip = len;
        t->have = 0;
        t->ends = fin || opcode >= 8;
        if (!len && t->ends)
            break;
    }
    if (!t->skip)
        t->ends = 0;
    return used;
}

/* 1 while something is owed to the client or one of its messages waits:
 * then nothing more of what it sends is handed to wslay. Caller holds wmu. */
static int owing(const ws_conn *wc)
{
    return wc->inbox || wslay_event_get_queued_msg_count(wc->ws) > 0;
}

/* wslay's read: bytes from the socket, through wc->in (one read of it at
 * a time), a frame that ends a message or a control frame at a time
 * (track_frames), none while owing(). Called with wmu held (serve()). */
static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
                       void *user)
{
    (void)flags;
    ws_conn *wc = user;
    if (owing(wc) || wc->too_big) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    while (wc->in_off == wc->in_len) {
        ssize_t n = recv(wc->fd, wc->in, sizeof wc->in, MSG_DONTWAIT);
        if (n > 0) {
            wc->in_off = 0;
            wc->in_len = (size_t)n;
            wc->pings = 0;
            wc->heard = now_ms();
            break;
        }
        if (n < 0 && errno == EINTR)
            continue;
        wslay_event_set_error(ctx, n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
                                       ? WSLAY_ERR_WOULDBLOCK : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    size_t avail = wc->in_len - wc->in_off;
    size_t k = track_frames(&wc->track, wc->in + wc->in_off, avail < len ? avail : len,
                            W.cfg->body_limit, &wc->too_big);
    memcpy(buf, wc->in + wc->in_off, k);
    wc->in_off += k;
    return (ssize_t)k;
}

/* wslay's write: never blocks (serve() waits for the socket); called with
 * wmu held. */
static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    ws_conn *wc = user;
    int more = (flags & WSLAY_MSG_MORE) ? MSG_MORE : 0;
    for (;;) {
        ssize_t n = send(wc->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT | more);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK
                                       ? WSLAY_ERR_WOULDBLOCK : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
}

static void ws_message(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                       void *user)
{
    (void)ctx;
    ws_conn *wc = user;
    /* a ping is answered by wslay, a pong only shows the client is there, a
     * close is wslay's; text and binary messages are actions */
    if (arg->opcode != WSLAY_TEXT_FRAME && arg->opcode != WSLAY_BINARY_FRAME)
        return;
    ws_msg *m = malloc(sizeof *m + arg->msg_length + 1);
    if (!m)
        return;
    m->next = NULL;
    m->len = arg->msg_length;
    memcpy(m->data, arg->msg, arg->msg_length);
    m->data[m->len] = 0;
    *wc->inbox_tail = m;
    wc->inbox_tail = &m->next;
}

/* Read and write frames until the connection ends: the client closed it,
 * broke it, went silent past its pings, took nothing of what it was owed
 * for WS_SEND_MS, sent a frame over the limit (1009) or broke the protocol
 * (1002, 1007); our close frame (the poller's: idle, or a token no longer
 * valid) went out; or the server stops. The socket is read only while
 * nothing is owed (ws_recv), written only as far as it takes without
 * waiting, and the worker sleeps in poll() on it and on its eventfd (the
 * poller queued frames). Messages are handled one by one, in order,
 * between reads. */
static void serve(ws_conn *wc)
{
    for (;;) {
        if (!__atomic_load_n(&W.running, __ATOMIC_ACQUIRE))
            return;
        int64_t now = now_ms();
        pthread_mutex_lock(&wc->wmu);
        int owed = wslay_event_want_write(wc->ws);
        int reading = wslay_event_want_read(wc->ws) && !wslay_event_get_close_sent(wc->ws);
        int pending = reading && !owed && wc->in_off < wc->in_len && !wc->too_big;
        int64_t out_since = wc->out_since;
        pthread_mutex_unlock(&wc->wmu);
        if (!owed && !reading)
            return; /* closed both ways, or our close frame is out */
        if (owed && now - out_since >= WS_SEND_MS) {
            streams_cut(STREAM_WEBSOCKET); /* it took not all it was owed in WS_SEND_MS */
            return;
        }
        int64_t ping_at = (wc->heard > wc->pinged ? wc->heard : wc->pinged) + WS_PING_MS;
        int64_t until = owed ? out_since + WS_SEND_MS : ping_at;
        struct pollfd p[2] = {
            {.fd = wc->fd, .events = (short)(owed ? POLLOUT : reading ? POLLIN : 0)},
            {.fd = wc->wake, .events = POLLIN},
        };
        int r = poll(p, 2, pending ? 0 : until > now ? (int)(until - now) : 0);
        if (r < 0 && errno != EINTR)
            return;
        uint64_t woken;
        if (r > 0 && (p[1].revents & POLLIN) && read(wc->wake, &woken, sizeof woken) < 0) {
            /* drained already: nothing to do */
        }
        now = now_ms();
        pthread_mutex_lock(&wc->wmu);
        int rc = 0;
        if (!owed && reading && (pending || (r > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))))
            rc = wslay_event_recv(wc->ws);
        if (rc == 0 && wc->too_big && wslay_event_want_read(wc->ws)) { /* close it, read no more */
            owe(wc);
            rc = wslay_event_queue_close(wc->ws, WSLAY_CODE_MESSAGE_TOO_BIG,
                                         (const uint8_t *)"message too big", 15);
            wslay_event_shutdown_read(wc->ws);
        }
        if (rc == 0 && !owed && reading && now >= ping_at && !wslay_event_want_write(wc->ws)) {
            /* silence: ping, or give up */
            struct wslay_event_msg ping = {WSLAY_PING, NULL, 0};
            wc->pinged = now;
            owe(wc);
            rc = ++wc->pings > WS_PINGS ? -1 : wslay_event_queue_msg(wc->ws, &ping);
        }
        if (rc == 0 && wslay_event_want_write(wc->ws))
            rc = wslay_event_send(wc->ws);
        ws_msg *todo = wc->inbox;
        wc->inbox = NULL;
        wc->inbox_tail = &wc->inbox;
        pthread_mutex_unlock(&wc->wmu);
        while (todo) {
            ws_msg *m = todo;
            todo = m->next;
            if (rc == 0)
                handle_message(wc, m->data, m->len);
            free(m);
        }
        if (rc)
            return;
    }
}

/* End the connection so that the client reads our close frame: our side
 * first, then what it still sends is read and dropped for a moment (a
 * socket closed with unread bytes in it answers with a reset, and the
 * client may lose the frame, and the reason with it). */
static void linger_close(int fd)
{
    shutdown(fd, SHUT_WR);
    char sink[4096];
    size_t total = 0;
    int64_t until = now_ms() + WS_LINGER_MS;
    while (total < ((size_t)64 << 20)) {
        int left = (int)(until - now_ms());
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) != 1)
            break;
        ssize_t n = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
        if (n <= 0)
            break;
        total += (size_t)n;
    }
    shutdown(fd, SHUT_RDWR);
}

static void on_ready(struct mg_connection *conn, void *cb)
{
    (void)cb;
    ws_conn *wc = mg_get_user_connection_data(conn);
    if (!wc)
        return;
    static const struct wslay_event_callbacks callbacks = {
        .recv_callback = ws_recv, .send_callback = ws_send, .on_msg_recv_callback = ws_message};
    wc->conn = conn;
    wc->inbox_tail = &wc->inbox;
    wc->heard = wc->pinged = wc->out_since = now_ms();
    wc->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wc->wake < 0 || wslay_event_context_server_init(&wc->ws, &callbacks, wc) != 0) {
        wc->ws = NULL;
        mg_disable_connection_keep_alive(conn);
        return;
    }
    wslay_event_config_set_max_recv_msg_length(wc->ws, W.cfg->body_limit);
    http_req req;
    http_header h[1];
    req_for(wc, &req, h, "GET", "/ws");
    fan_aud *aud = fan_join(wc->game_id, &req, FAN_WS);
    pthread_mutex_lock(&W.mu);
    wc->aud = aud;
    active(wc);
    wc->next = W.list;
    W.list = wc;
    poll_one(wc);
    pthread_cond_signal(&W.cv);
    pthread_mutex_unlock(&W.mu);
    serve(wc);
    /* over: off the poller's list, then the context (the poller writes
     * under W.mu, then wmu) */
    pthread_mutex_lock(&W.mu);
    for (ws_conn **q = &W.list; *q; q = &(*q)->next)
        if (*q == wc) {
            *q = wc->next;
            break;
        }
    aud = wc->aud;
    wc->aud = NULL;
    pthread_mutex_unlock(&W.mu);
    fan_leave(aud, FAN_WS);
    pthread_mutex_lock(&wc->wmu);
    wslay_event_context_free(wc->ws);
    wc->ws = NULL;
    pthread_mutex_unlock(&wc->wmu);
    linger_close(wc->fd);
    /* civetweb's own frame loop must not run: it ends at once */
    mg_disable_connection_keep_alive(conn);
}

static void conn_free(ws_conn *wc)
{
    fan_leave(wc->aud, FAN_WS);
    if (wc->ws)
        wslay_event_context_free(wc->ws);
    if (wc->wake >= 0)
        close(wc->wake);
    pthread_mutex_destroy(&wc->wmu);
    free(wc);
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
    conn_free(wc);
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
    conn_free(wc);
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
                                               NULL, on_close, NULL);
    return 0;
}

void front_ws_stop(void)
{
    if (!W.running)
        return;
    pthread_mutex_lock(&W.mu);
    __atomic_store_n(&W.running, 0, __ATOMIC_RELEASE);
    for (ws_conn *wc = W.list; wc; wc = wc->next)
        front_conn_cut(wc->fd); /* its worker's serve() returns */
    pthread_cond_signal(&W.cv);
    pthread_mutex_unlock(&W.mu);
    pthread_join(W.poller, NULL);
}
