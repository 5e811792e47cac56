/* replays.c: shared replays (replays.h): their table, the routes under
 * /replays and POST /games/{id}/replays, and the followers' stream. One
 * mutex guards the table; a replay is looked up by id at every step (a
 * stream holds no pointer to one), so an expired one is freed at once. */
#include "replays.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "core/jsonx.h"
#include "notify.h"
#include "quota.h"
#include "transport_limits.h"

enum {
    NAME_BYTES = 64,   /* a name: 1..64 bytes, as a player's (POST /games) */
    EVENT_BYTES = 320, /* an event's JSON text: a name at most doubled by escapes */
    REPLAY_MAX_S = 600, /* a stream lasts at most this long (as a game's) */
    REPLAY_BEAT_S = 15,
    REPLAY_POLL_MS = 1000,
};

typedef struct rp_event {
    long seq;
    const char *kind; /* "move", "candidate", "leader" */
    char text[EVENT_BYTES];
} rp_event;

typedef struct rp_candidate {
    char id[16];
    char sha[65];
    char name[NAME_BYTES + 1];
} rp_candidate;

typedef struct replay {
    char id[32];
    char game[96];
    char client[64];
    char leader_sha[65];
    char leader[NAME_BYTES + 1];
    long ply, first, last, seq;
    int followers;
    int64_t touched; /* ms, monotonic: the last write */
    rp_event ring[REPLAY_RING];
    rp_candidate cand[REPLAY_CANDIDATES];
} replay;

static struct {
    pthread_mutex_t mu;
    replay **rows; /* total slots, NULL when free */
    int total, per_client;
    long idle_ms;
} R = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void setup_locked(void)
{
    if (R.rows)
        return;
    if (R.total < 1)
        R.total = REPLAYS_TOTAL_DEFAULT;
    if (R.per_client < 1)
        R.per_client = REPLAYS_PER_CLIENT_DEFAULT;
    if (R.idle_ms < 1)
        R.idle_ms = REPLAY_IDLE_DEFAULT * 1000L;
    R.rows = calloc((size_t)R.total, sizeof *R.rows);
}

void replays_configure(int total, int per_client, int idle_s)
{
    pthread_mutex_lock(&R.mu);
    if (!R.rows) {
        R.total = total < 1 ? 1 : total;
        R.per_client = per_client < 1 ? 1 : per_client;
        R.idle_ms = (idle_s < 1 ? 1 : idle_s) * 1000L;
    }
    pthread_mutex_unlock(&R.mu);
}

/* What notify.h knows a replay by: never a game's id (those have no '/'). */
static void key_of(const char *rid, char out[112])
{
    snprintf(out, 112, "replay/%s", rid);
}

/* Free every replay idle too long (R.mu held); their streams, woken, end. */
static void sweep_locked(int64_t now)
{
    for (int i = 0; R.rows && i < R.total; i++) {
        replay *r = R.rows[i];
        if (r && now - r->touched >= R.idle_ms) {
            char key[112];
            key_of(r->id, key);
            free(r);
            R.rows[i] = NULL;
            notify_game(key);
        }
    }
}

static replay *find_locked(const char *rid)
{
    sweep_locked(now_ms());
    for (int i = 0; R.rows && i < R.total; i++)
        if (R.rows[i] && strcmp(R.rows[i]->id, rid) == 0)
            return R.rows[i];
    return NULL;
}

/* Seconds (>= 1) until the row touched at `touched` expires. */
static int wait_s(int64_t touched, int64_t now)
{
    long ms = (long)(touched + R.idle_ms - now);
    int s = (int)((ms + 999) / 1000);
    return s < 1 ? 1 : s;
}

static json_t *state_json(const replay *r, int64_t now)
{
    json_t *cands = json_array();
    for (int i = 0; i < REPLAY_CANDIDATES; i++)
        if (r->cand[i].id[0])
            json_array_append_new(cands, json_pack("{s:s,s:s}", "candidate", r->cand[i].id,
                                                   "name", r->cand[i].name));
    return json_pack("{s:s,s:s,s:I,s:I,s:I,s:s,s:i,s:I,s:o,s:i}", "id", r->id, "game", r->game,
                     "ply", (json_int_t)r->ply, "first", (json_int_t)r->first, "last",
                     (json_int_t)r->last, "leader", r->leader, "followers", r->followers,
                     "seq", (json_int_t)r->seq, "candidates", cands, "expires_in",
                     wait_s(r->touched, now));
}

/* Append an event (R.mu held): its number is the next seq; `ev` stolen. */
static void push_locked(replay *r, const char *kind, json_t *ev)
{
    r->seq++;
    json_object_set_new(ev, "seq", json_integer(r->seq));
    rp_event *slot = &r->ring[r->seq % REPLAY_RING];
    slot->seq = r->seq;
    slot->kind = kind;
    size_t n = json_dumpb(ev, slot->text, sizeof slot->text - 1, JSON_COMPACT);
    slot->text[n < sizeof slot->text ? n : 0] = 0;
    json_decref(ev);
    r->touched = now_ms();
    char key[112];
    key_of(r->id, key);
    notify_game(key);
}

/* An optional name member: 1..64 bytes, no control character. */
static int read_name(const json_t *body, const char *dflt, char out[NAME_BYTES + 1],
                     game_err *e)
{
    const json_t *v = json_object_get(body, "name");
    const char *s = dflt;
    if (v) {
        if (jx_string(v, "/name", &s, e))
            return ERR_BAD_MEMBER;
        size_t len = strlen(s);
        if (len < 1 || len > NAME_BYTES)
            return err_set(e, ERR_BAD_MEMBER, "/name", "a name has 1 to 64 characters");
        if (text_chars(s) < 0)
            return err_set(e, ERR_BAD_MEMBER, "/name", "a name holds no control character");
    }
    snprintf(out, NAME_BYTES + 1, "%s", s);
    return 0;
}

static int check_body(const json_t *body, const char *const *allowed, game_err *e)
{
    if (jx_object(body, "", e) || reject_unknown(body, allowed, "", e))
        return ERR_BAD_MEMBER;
    return 0;
}

/* 0 when the request's bearer token is r's leader's; else the problem in e
 * (401 none, 403 another). */
static int leader_check(const replay *r, const http_req *req, const char *what, game_err *e)
{
    char buf[128], sha[65];
    const char *tok = req_token(req, buf, sizeof buf);
    if (!tok)
        return err_set(e, ERR_UNAUTHORIZED, NULL,
                       "%s is the leader's: send its token as 'Authorization: Bearer <token>' "
                       "(POST /games/{id}/replays gave it)", what);
    sha256_hex(tok, sha);
    if (!secure_eq(sha, r->leader_sha))
        return err_set(e, ERR_FORBIDDEN, NULL,
                       "%s is the leader's, and this token is not the leader's (%s leads: a "
                       "follower asks to lead with POST /replays/{rid}/candidates)", what,
                       r->leader);
    return 0;
}

static int not_found(http_res *res, const http_req *req, const char *rid)
{
    game_err e = {0};
    err_set(&e, ERR_NOT_FOUND, NULL,
            "no shared replay '%.40s' here: it expired after %ld s without a move, was closed, "
            "or the server restarted (shared replays live in its memory only)", rid,
            R.idle_ms / 1000);
    http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
    return res->status;
}

/* R.mu taken and replay `rid`; or NULL, R.mu let go and the 404 in res. */
static replay *lock_find(const http_req *req, const char *rid, http_res *res)
{
    pthread_mutex_lock(&R.mu);
    replay *r = find_locked(rid);
    if (!r) {
        pthread_mutex_unlock(&R.mu);
        not_found(res, req, rid);
    }
    return r;
}

/* R.mu let go, and the problem of e in res. */
static int unlock_fail(const http_req *req, const game_err *e, http_res *res)
{
    pthread_mutex_unlock(&R.mu);
    http_res_fail(res, req, e);
    return res->status;
}

/* POST /games/{id}/replays {"name"?, "ply"?}: a shared replay of a game
 * over, led by the caller. */
int h_replay_create(const api_config *cfg, const http_req *req, const route_match *m,
                    json_t *body, http_res *res)
{
    static const char *const allowed[] = {"name", "ply", NULL};
    game_err e = {0};
    game_ctx c = {0};
    char name[NAME_BYTES + 1];
    void *st = NULL;
    if (check_body(body, allowed, &e) || read_name(body, "The leader", name, &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    if (ctx_load(cfg, req, m->params[0], &c, &e)) {
        http_res_fail(res, req, &e);
        goto done;
    }
    game_status gs;
    c.ops->status(c.st, &gs);
    if (!gs.over) {
        err_set(&e, ERR_FORBIDDEN, NULL,
                "only a finished game can be shared: a shared replay shows every card to "
                "every follower, and this game is still being played");
        http_res_fail(res, req, &e);
        goto done;
    }
    long origin_last = -1, log_last = -1;
    st = malloc(c.ops->state_size);
    if (!st || ctx_rebuild(cfg, c.ops, c.row.id, LONG_MAX, st, &origin_last, &log_last, &e)) {
        if (!st)
            err_set(&e, ERR_INTERNAL, NULL, "out of memory");
        http_res_fail(res, req, &e);
        goto done;
    }
    long first = origin_last >= 0 ? origin_last : -1, ply = first;
    const json_t *pj = json_object_get(body, "ply");
    long long p;
    if (pj) {
        if (jx_int(pj, "/ply", first, log_last, &p, &e)) {
            http_res_fail(res, req, &e);
            goto done;
        }
        ply = (long)p;
    }
    replay *r = calloc(1, sizeof *r);
    char token[48];
    if (!r || rand_token(r->id, sizeof r->id, 16) || rand_token(token, sizeof token, 24)) {
        free(r);
        err_set(&e, ERR_INTERNAL, NULL, "no shared replay could be made (out of memory)");
        http_res_fail(res, req, &e);
        goto done;
    }
    snprintf(r->game, sizeof r->game, "%s", c.row.id);
    quota_client_key(req->remote_addr, r->client); /* IPv6 by its /64, as the quotas */
    snprintf(r->leader, sizeof r->leader, "%s", name);
    sha256_hex(token, r->leader_sha);
    r->ply = ply;
    r->first = first;
    r->last = log_last;
    int64_t now = now_ms();
    r->touched = now;
    pthread_mutex_lock(&R.mu);
    setup_locked();
    sweep_locked(now);
    int mine = 0, free_row = -1;
    int64_t my_oldest = INT64_MAX, oldest = INT64_MAX;
    for (int i = 0; R.rows && i < R.total; i++) {
        replay *o = R.rows[i];
        if (!o) {
            if (free_row < 0)
                free_row = i;
            continue;
        }
        if (o->touched < oldest)
            oldest = o->touched;
        if (strcmp(o->client, r->client) == 0) {
            mine++;
            if (o->touched < my_oldest)
                my_oldest = o->touched;
        }
    }
    if (mine >= R.per_client || free_row < 0) {
        int whole = mine < R.per_client;
        int wait = wait_s(whole ? oldest : my_oldest, now);
        int cap = whole ? R.total : R.per_client;
        pthread_mutex_unlock(&R.mu);
        free(r);
        int code = whole ? ERR_BUSY : ERR_RATE_LIMITED;
        err_set(&e, code, NULL,
                "%s holds as many shared replays as it may (%d open at once): one expires "
                "%ld s after its last move; try again in %d s",
                whole ? "the server" : "this address", cap, R.idle_ms / 1000, wait);
        http_res_header(res, "Retry-After", "%d", wait);
        http_res_problem(res, req, code, &e,
                         json_pack("{s:s,s:i}", "bucket", whole ? "total" : "client", "limit",
                                   cap));
        goto done;
    }
    R.rows[free_row] = r;
    json_t *out = state_json(r, now);
    pthread_mutex_unlock(&R.mu);
    json_object_set_new(out, "token", json_string(token));
    http_res_header(res, "Location", "/replays/%s", r->id);
    http_res_json(res, 201, out);
done:
    free(st);
    ctx_free(&c);
    return res->status;
}

int h_replay_get(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
                 http_res *res)
{
    (void)cfg;
    (void)body;
    pthread_mutex_lock(&R.mu);
    replay *r = find_locked(m->params[0]);
    json_t *out = r ? state_json(r, now_ms()) : NULL;
    pthread_mutex_unlock(&R.mu);
    if (out)
        http_res_json(res, 200, out);
    else
        not_found(res, req, m->params[0]);
    return res->status;
}

/* PUT /replays/{rid} {"ply"}: the leader shows play `ply`. */
int h_replay_put(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
                 http_res *res)
{
    (void)cfg;
    static const char *const allowed[] = {"ply", NULL};
    game_err e = {0};
    if (check_body(body, allowed, &e)) {
        http_res_fail(res, req, &e);
        return res->status;
    }
    const json_t *pj = json_object_get(body, "ply");
    replay *r = lock_find(req, m->params[0], res);
    long long p = 0;
    if (!r)
        return res->status;
    if (leader_check(r, req, "moving a shared replay", &e) ||
        (!pj && err_set(&e, ERR_BAD_MEMBER, "/ply", "ply is required: the play to show")) ||
        (pj && jx_int(pj, "/ply", r->first, r->last, &p, &e)))
        return unlock_fail(req, &e, res);
    if (p != r->ply) {
        r->ply = (long)p;
        push_locked(r, "move", json_pack("{s:I,s:s}", "ply", (json_int_t)p, "leader", r->leader));
    } else {
        r->touched = now_ms();
    }
    json_t *out = state_json(r, now_ms());
    pthread_mutex_unlock(&R.mu);
    http_res_json(res, 200, out);
    return res->status;
}

/* DELETE /replays/{rid}: the leader closes it; its streams end. */
int h_replay_delete(const api_config *cfg, const http_req *req, const route_match *m,
                    json_t *body, http_res *res)
{
    (void)cfg;
    (void)body;
    game_err e = {0};
    replay *r = lock_find(req, m->params[0], res);
    if (!r)
        return res->status;
    if (leader_check(r, req, "closing a shared replay", &e))
        return unlock_fail(req, &e, res);
    for (int i = 0; i < R.total; i++)
        if (R.rows[i] == r)
            R.rows[i] = NULL;
    char key[112];
    key_of(r->id, key);
    free(r);
    notify_game(key);
    pthread_mutex_unlock(&R.mu);
    http_res_raw(res, 204, NULL, NULL, 0);
    return res->status;
}

/* POST /replays/{rid}/candidates {"name"?}: a follower asks to lead; the
 * answer holds its token, which leads once the leader hands over to it. */
int h_replay_candidate(const api_config *cfg, const http_req *req, const route_match *m,
                       json_t *body, http_res *res)
{
    (void)cfg;
    static const char *const allowed[] = {"name", NULL};
    game_err e = {0};
    char name[NAME_BYTES + 1], token[48], cid[16];
    if (check_body(body, allowed, &e) || read_name(body, "A follower", name, &e)) {
        http_res_fail(res, req, &e);
        return res->status;
    }
    if (rand_token(token, sizeof token, 24) || rand_token(cid, sizeof cid, 6)) {
        err_set(&e, ERR_INTERNAL, NULL, "no token could be drawn");
        http_res_fail(res, req, &e);
        return res->status;
    }
    replay *r = lock_find(req, m->params[0], res);
    if (!r)
        return res->status;
    int slot = -1;
    for (int i = 0; i < REPLAY_CANDIDATES && slot < 0; i++)
        if (!r->cand[i].id[0])
            slot = i;
    if (slot < 0) {
        int wait = wait_s(r->touched, now_ms());
        pthread_mutex_unlock(&R.mu);
        err_set(&e, ERR_RATE_LIMITED, NULL,
                "%d followers already ask to lead this replay: wait for the leader to hand "
                "over, or try again in %d s", REPLAY_CANDIDATES, wait);
        http_res_header(res, "Retry-After", "%d", wait);
        http_res_problem(res, req, ERR_RATE_LIMITED, &e,
                         json_pack("{s:s,s:i}", "bucket", "candidates", "limit",
                                   REPLAY_CANDIDATES));
        return res->status;
    }
    rp_candidate *cd = &r->cand[slot];
    snprintf(cd->id, sizeof cd->id, "%s", cid);
    snprintf(cd->name, sizeof cd->name, "%s", name);
    sha256_hex(token, cd->sha);
    push_locked(r, "candidate", json_pack("{s:s,s:s}", "candidate", cid, "name", name));
    pthread_mutex_unlock(&R.mu);
    http_res_json(res, 201, json_pack("{s:s,s:s,s:s}", "candidate", cid, "name", name, "token",
                                      token));
    return res->status;
}

/* POST /replays/{rid}/leader {"candidate"}: the leader hands over to a
 * follower who asked; the old token leads no more. */
int h_replay_leader(const api_config *cfg, const http_req *req, const route_match *m,
                    json_t *body, http_res *res)
{
    (void)cfg;
    static const char *const allowed[] = {"candidate", NULL};
    game_err e = {0};
    const char *cid = NULL;
    if (check_body(body, allowed, &e) ||
        (!json_object_get(body, "candidate") &&
         err_set(&e, ERR_BAD_MEMBER, "/candidate",
                 "candidate is required: the follower to hand over to")) ||
        (json_object_get(body, "candidate") &&
         jx_string(json_object_get(body, "candidate"), "/candidate", &cid, &e))) {
        http_res_fail(res, req, &e);
        return res->status;
    }
    replay *r = lock_find(req, m->params[0], res);
    if (!r)
        return res->status;
    rp_candidate *cd = NULL;
    for (int i = 0; i < REPLAY_CANDIDATES && !cd; i++)
        if (r->cand[i].id[0] && strcmp(r->cand[i].id, cid) == 0)
            cd = &r->cand[i];
    if (leader_check(r, req, "handing over a shared replay", &e) ||
        (!cd && err_set(&e, ERR_BAD_MEMBER, "/candidate",
                        "no follower '%.16s' asks to lead this replay (GET /replays/{rid} "
                        "lists the candidates)", cid)))
        return unlock_fail(req, &e, res);
    memcpy(r->leader_sha, cd->sha, sizeof r->leader_sha);
    snprintf(r->leader, sizeof r->leader, "%s", cd->name);
    push_locked(r, "leader", json_pack("{s:s,s:s,s:I}", "leader", r->leader, "candidate",
                                       cd->id, "ply", (json_int_t)r->ply));
    memset(cd, 0, sizeof *cd);
    json_t *out = state_json(r, now_ms());
    pthread_mutex_unlock(&R.mu);
    http_res_json(res, 200, out);
    return res->status;
}

/* GET /replays/{rid}/events: the events after `after` (or Last-Event-ID)
 * that the replay still keeps, as a JSON list or a stream. */
int h_replay_events(const api_config *cfg, const http_req *req, const route_match *m,
                    json_t *body, http_res *res)
{
    (void)cfg;
    (void)body;
    long after;
    int sse;
    if (api_events_after(req, 1000000000L, &after, &sse, res))
        return res->status;
    after = undo_pos_n(after); /* a replay's events are never taken back */
    replay *r = lock_find(req, m->params[0], res);
    if (!r)
        return res->status;
    json_t *list = NULL;
    if (!sse) {
        list = json_array();
        long from = r->seq - REPLAY_RING + 1 > after + 1 ? r->seq - REPLAY_RING + 1 : after + 1;
        for (long s = from; s <= r->seq; s++) {
            json_t *ev = json_loads(r->ring[s % REPLAY_RING].text, 0, NULL);
            if (ev) {
                json_object_set_new(ev, "event", json_string(r->ring[s % REPLAY_RING].kind));
                json_array_append_new(list, ev);
            }
        }
    }
    pthread_mutex_unlock(&R.mu);
    if (!sse) {
        http_res_json(res, 200, list);
        return res->status;
    }
    res->status = 200;
    snprintf(res->content_type, sizeof res->content_type, "text/event-stream");
    if (strcmp(req->method, "HEAD") == 0) {
        http_res_header(res, "Cache-Control", "no-cache");
        return res->status;
    }
    res->stream.on = 1;
    res->stream.replay = 1;
    snprintf(res->stream.game_id, sizeof res->stream.game_id, "%s", m->params[0]);
    res->stream.after = after;
    return res->status;
}

/* The frames a follower at `*after` is owed now (R.mu held), into out;
 * 0 none, -1 the replay is gone (an `end` frame). */
static int frames_locked(const char *rid, long *after, int fresh, char *out, size_t cap,
                         size_t *len)
{
    replay *r = find_locked(rid);
    *len = 0;
    if (!r) {
        *len = (size_t)snprintf(out, cap, "event: end\ndata: {\"reason\":\"closed or expired\"}\n\n");
        return -1;
    }
    if (fresh || *after > r->seq || *after < r->seq - REPLAY_RING) {
        /* new, from another life of the server, or too far behind: the state */
        json_t *s = state_json(r, now_ms());
        char *text = json_dumps(s, JSON_COMPACT);
        json_decref(s);
        if (text) {
            int n = snprintf(out, cap, "id: %ld\nevent: state\ndata: %s\n\n", r->seq, text);
            *len = n > 0 && (size_t)n < cap ? (size_t)n : 0;
            free(text);
        }
        *after = r->seq;
        return 0;
    }
    while (*after < r->seq) {
        const rp_event *ev = &r->ring[(*after + 1) % REPLAY_RING];
        int n = snprintf(out + *len, cap - *len, "id: %ld\nevent: %s\ndata: %s\n\n", ev->seq,
                         ev->kind, ev->text);
        if (n < 0 || (size_t)n >= cap - *len)
            break; /* the rest at the next turn of the loop */
        *len += (size_t)n;
        *after = ev->seq;
    }
    return 0;
}

static void followers_add(const char *rid, int d)
{
    pthread_mutex_lock(&R.mu);
    replay *r = find_locked(rid);
    if (r)
        r->followers += d;
    pthread_mutex_unlock(&R.mu);
}

void replay_stream(const api_config *cfg, const http_req *req, const http_res *res,
                   int (*write)(void *ctx, const char *data, size_t len), void *ctx,
                   const int *stopping)
{
    (void)cfg;
    (void)req;
    const char *rid = res->stream.game_id;
    char key[112];
    key_of(rid, key);
    long after = res->stream.after;
    int fresh = after == 0;
    time_t start = time(NULL), beat = start, last = start;
    long idle_ms = streams_idle_ms(-1);
    enum { CAP = 16384 };
    char *out = malloc(CAP);
    if (!out || write(ctx, "retry: 2000\n\n", 13) != 0) {
        free(out);
        return;
    }
    followers_add(rid, 1);
    for (;;) {
        unsigned long seen = notify_seen(key);
        size_t len;
        pthread_mutex_lock(&R.mu);
        int gone = frames_locked(rid, &after, fresh, out, CAP, &len);
        pthread_mutex_unlock(&R.mu);
        fresh = 0;
        int lost = len ? write(ctx, out, len) != 0 : write(ctx, NULL, 0) != 0;
        if (gone || lost || __atomic_load_n(stopping, __ATOMIC_ACQUIRE))
            break;
        time_t now = time(NULL);
        if (len)
            last = now;
        if (now - start >= REPLAY_MAX_S || (now - last) * 1000L >= idle_ms)
            break;
        if (now - beat >= REPLAY_BEAT_S) {
            beat = now;
            if (write(ctx, ": keep-alive\n\n", 14) != 0)
                break;
        }
        notify_wait(key, seen, REPLAY_POLL_MS);
    }
    followers_add(rid, -1);
    free(out);
}
