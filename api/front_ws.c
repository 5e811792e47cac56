/* front_ws.c: WebSocket /games/{id}/ws?token=... on the civetweb front end:
 * the remote-player protocol of the Hanabi seed (001), for any game.
 *
 * The server pushes the caller's events as they happen, in the game's own
 * event shapes (the member "n" removed) written as Python's json.dumps would
 * (", " and ": " separators), sends {"event": "turn"} when it is that seat's
 * turn, and takes the action JSON back as the seat's play. Nothing about a
 * game is held here: each push re-reads the store (the events snapshot), and
 * an action is a synthesized POST /games/{id}/plays through api_handle(), so
 * every rule, check and compare-and-swap is the one the HTTP API uses.
 * One poller thread serves all connections every 100 ms.
 */
#include "front_ws.h"

#include <civetweb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "front_civet.h"
#include "pool.h"

typedef struct ws_conn {
    struct mg_connection *conn;
    char game_id[96];
    char query[320];
    char auth[300];
    long after;
    long long prompted; /* version at which "turn" was last sent; -1 none */
    struct ws_conn *next;
} ws_conn;

static struct {
    pthread_mutex_t mu;
    pthread_t poller;
    int running;
    const api_config *cfg;
    ws_conn *list;
} W = {.mu = PTHREAD_MUTEX_INITIALIZER};

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
    char *text = json_dumps(j, JSON_ENSURE_ASCII); /* Python json.dumps style */
    if (text)
        mg_websocket_write(conn, MG_WEBSOCKET_OPCODE_TEXT, text, strlen(text));
    free(text);
}

/* Push new events and the turn prompt. Caller holds W.mu. */
static void poll_one(ws_conn *wc)
{
    http_req req;
    http_header h[1];
    req_for(wc, &req, h, "GET", "/ws");
    events_snapshot snap;
    game_err e = {0};
    if (api_events_load(W.cfg, &req, wc->game_id, wc->after, &snap, &e))
        return; /* deleted game or store hiccup: nothing to push now */
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
    }
}

static void *poller(void *arg)
{
    (void)arg;
    while (__atomic_load_n(&W.running, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&W.mu);
        for (ws_conn *wc = W.list; wc; wc = wc->next)
            poll_one(wc);
        pthread_mutex_unlock(&W.mu);
        usleep(100 * 1000);
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
    const char *auth = mg_get_header(conn, "Authorization");
    char tok[256];
    http_req probe;
    http_header h[1];
    req_for(wc, &probe, h, "GET", "/ws");
    const char *t = auth ? NULL : http_req_query(&probe, "token", tok, sizeof tok);
    if (auth)
        snprintf(wc->auth, sizeof wc->auth, "%s", auth);
    else if (t)
        snprintf(wc->auth, sizeof wc->auth, "Bearer %s", t);
    req_for(wc, &probe, h, "GET", "/ws");
    events_snapshot snap;
    game_err e = {0};
    if (api_events_load(W.cfg, &probe, wc->game_id, 0, &snap, &e)) {
        /* unknown game or bad token: refuse the upgrade with a problem */
        http_res res;
        memset(&res, 0, sizeof res);
        probe.path = ri->local_uri;
        http_res_problem(&res, &probe, e.code, &e, NULL);
        front_civet_write((struct mg_connection *)conn, &res, 0, 1);
        http_res_free(&res);
        free(wc);
        return 1;
    }
    json_decref(snap.events);
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
    wc->next = W.list;
    W.list = wc;
    poll_one(wc);
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
    if (len > W.cfg->body_limit)
        return refuse(wc, "message too large");
    json_error_t je;
    json_t *action = json_loadb(data, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!action)
        return refuse(wc, "the action is not JSON");
    json_t *body = json_pack("{s:o}", "play", action);
    char *text = json_dumps(body, JSON_COMPACT);
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
    pool_handle(W.cfg, &req, &res);
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
    mg_set_websocket_handler(ctx, "/games", on_connect, on_ready, on_data, on_close, NULL);
    return 0;
}

void front_ws_stop(void)
{
    if (!W.running)
        return;
    __atomic_store_n(&W.running, 0, __ATOMIC_RELEASE);
    pthread_join(W.poller, NULL);
}
