/* events.c: GET /games/{id}/events, as a JSON list or (Accept:
 * text/event-stream) a Server-Sent Events stream, and the snapshot that the
 * streaming front ends (SSE, WebSocket) poll. Games that define events give
 * their own shapes (Hanabi: the seed's listener events); for the others each
 * history record is an event {"n", "event": "play", ...record}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "json_arena.h"
#include "json_out.h"
#include "fanout.h"
#include "notify.h"
#include "replays.h"
#include "transport_limits.h"

static json_t *history_events(const api_config *cfg, const char *id, const game_ops *ops,
                              const void *st, int seat, long after)
{
    json_t *hist = ops->history(st, seat), *rest = json_array(), *out = json_array(), *rec;
    size_t skip = after > 0 ? (size_t)after : 0, i;
    /* the records after the first `after`: the only ones explained and sent */
    for (i = skip; i < json_array_size(hist); i++)
        json_array_append(rest, json_array_get(hist, i));
    json_decref(hist);
    ctx_explain(cfg, id, rest, ctx_sees_reasoning(ops, st, seat));
    json_array_foreach(rest, i, rec) {
        json_int_t n = (json_int_t)(skip + i) + 1;
        json_t *ev = json_pack("{s:I,s:s}", "n", n, "event", "play");
        if (json_is_object(rec))
            json_object_update_missing(ev, rec);
        else
            json_object_set(ev, "record", rec);
        json_object_set_new(ev, "n", json_integer(n));
        json_array_append_new(out, ev);
    }
    json_decref(rest);
    return out;
}

/* The snapshot of a game loaded (rc: the load's result) for its reader;
 * frees c. *nseats (when given): the game's seats. */
static int snapshot_of(const api_config *cfg, int rc, game_ctx *cp, long after, long long seen,
                       events_snapshot *out, int *nseats, game_err *e);

int api_events_load_since(const api_config *cfg, const http_req *req, const char *id, long after,
                          long long seen, events_snapshot *out, game_err *e)
{
    game_ctx c;
    memset(out, 0, sizeof *out);
    int rc = ctx_load(cfg, req, id, &c, e);
    return snapshot_of(cfg, rc, &c, after, seen, out, NULL, e);
}

int api_events_load_as(const api_config *cfg, const char *id, int seat, long after,
                       events_snapshot *out, int *nseats, char (*tags)[NCHAN_TAG], game_err *e)
{
    game_ctx c;
    memset(out, 0, sizeof *out);
    int rc = ctx_load_as(cfg, id, seat, &c, e);
    for (int s = 0; !rc && s < GAME_MAX_SEATS; s++)
        ctx_seat_tag(&c, s, tags[s]);
    return snapshot_of(cfg, rc, &c, after, -1, out, nseats, e);
}

static int snapshot_of(const api_config *cfg, int rc, game_ctx *cp, long after, long long seen,
                       events_snapshot *out, int *nseats, game_err *e)
{
    game_ctx c = *cp;
    if (rc) {
        ctx_free(&c);
        return rc;
    }
    game_status gs;
    c.ops->status(c.st, &gs);
    if (nseats)
        *nseats = gs.nseats;
    out->seat = c.seat;
    out->over = gs.over;
    out->to_move = gs.over ? -1 : gs.to_move;
    out->version = c.row.version;
    /* after a take-back the events after its point are numbered again: a
     * reader who read past that point under an earlier epoch first gets a
     * "rewind" to it (api.h: "Plays taken back") */
    long n = undo_pos_n(after), epoch = undo_epoch(c.meta),
         from = undo_resume(c.meta, n, undo_pos_epoch(after));
    if (seen >= 0 && c.row.version == seen) /* no write since: no event either */
        out->events = json_array();
    else
        out->events = c.ops->events ? c.ops->events(c.st, c.reader, from)
                                    : history_events(cfg, c.row.id, c.ops, c.st, c.reader, from);
    if (out->events && from < n && !(seen >= 0 && c.row.version == seen))
        json_array_insert_new(out->events, 0,
                              json_pack("{s:I,s:s,s:I,s:I}", "n", (json_int_t)from, "event", "rewind",
                                        "to", (json_int_t)from, "version",
                                        (json_int_t)c.row.version));
    if (out->events && epoch) { /* the number each event has under this epoch */
        size_t i;
        json_t *ev;
        json_array_foreach(out->events, i, ev)
            json_object_set_new(ev, "e", json_integer(epoch));
    }
    ctx_free(&c);
    return out->events ? 0 : err_set(e, ERR_INTERNAL, NULL, "no events");
}

int api_events_load(const api_config *cfg, const http_req *req, const char *id,
                    long after, events_snapshot *out, game_err *e)
{
    return api_events_load_since(cfg, req, id, after, -1, out, e);
}

int h_events(const api_config *cfg, const http_req *req, const route_match *m,
             json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    long after;
    int sse;
    if (api_events_after(req, 100000000, &after, &sse, res))
        goto done;
    long limit = 0;
    int given;
    if (query_long(req, "limit", 1, 1000, &limit, &given, res))
        goto done;
    events_snapshot snap;
    int rc = api_events_load(cfg, req, m->params[0], after, &snap, &e);
    if (rc) {
        http_res_problem(res, req, rc, &e, NULL);
        goto done;
    }
    if (sse) {
        /* the front end streams: these first events and every later one */
        json_decref(snap.events);
        res->status = 200;
        snprintf(res->content_type, sizeof res->content_type, "text/event-stream");
        if (strcmp(req->method, "HEAD") == 0) {
            /* the head of the stream alone (no length: a stream has none),
             * and no stream slot: nothing follows it */
            http_res_header(res, "Cache-Control", "no-cache");
            goto done;
        }
        res->stream.on = 1;
        snprintf(res->stream.game_id, sizeof res->stream.game_id, "%s", m->params[0]);
        res->stream.after = after;
        goto done;
    }
    http_res_header(res, "ETag", "\"%lld\"", snap.version);
    /* the load kept only the events after the reader's place (a rewind first when
     * plays were taken back since): all of them, by pages */
    http_res_json(res, 200, page(snap.events, -1, limit, "n", req, res));
done:
    return res->status;
}

/* A stream ends when the client is gone: write(ctx, NULL, 0) sends nothing
 * and answers -1 once the front end sees the connection closed (checked at
 * every poll, so a closed stream gives its slot back within a second).
 * How long a stream lives: SSE_MAX_S in all, streams_idle_ms() without an
 * event (transport_limits.h: 60 s for a spectator, 10 min for a seat by default; a
 * comment line every SSE_BEAT_S keeps proxies from closing it, and tells us
 * when the client is gone). A client (EventSource) reconnects with
 * Last-Event-ID and loses nothing. The events are loaded and written once
 * for all the streams of one credential (fanout.h); each stream writes its
 * part of the shared bytes. A write to the game committed by this
 * process, or on PostgreSQL by another (LISTEN/NOTIFY, store.h listen()),
 * wakes the stream at once (notify.h); the store is polled too, every
 * SSE_POLL_MIN_MS after an event, backing off to SSE_POLL_MAX_MS while
 * nothing happens (writes by other processes on a SQLite file). */
enum {
    SSE_MAX_S = 600,
    SSE_BEAT_S = 15,
    SSE_POLL_MIN_MS = 250,
    SSE_POLL_MAX_MS = 1000,
};

void api_stream_events(const api_config *cfg, const http_req *req, const http_res *res,
                       int (*write)(void *ctx, const char *data, size_t len), void *ctx,
                       const int *stopping)
{
    if (res->stream.replay) { /* a shared replay's followers (api/replays.h) */
        replay_stream(cfg, req, res, write, ctx, stopping);
        return;
    }
    long after = res->stream.after;
    time_t start = time(NULL), beat = start, last = start;
    int interval = SSE_POLL_MIN_MS;
    long idle_ms = -1; /* known at the first load, from the reader */
    /* the reconnection delay an EventSource waits after we end the stream */
    if (write(ctx, "retry: 2000\n\n", 13) != 0)
        return;
    long long version = -1; /* the game's version at the last load */
    /* the events are written once for every stream of this reader's
     * audience (fanout.h): this stream writes its part of the bytes */
    fan_aud *aud = fan_join(res->stream.game_id, req, FAN_SSE);
    int later = 0; /* a spectator's stream: woken after the seats' (notify.h) */
    for (;;) {
        fan_view v;
        int lat = later; /* the same bucket for seen and the wait */
        unsigned long seen = lat ? notify_seen_later(res->stream.game_id)
                                 : notify_seen(res->stream.game_id); /* before the load */
        fan_get(aud, api_events_load, cfg, req, res->stream.game_id, FAN_SSE, after, &v);
        long long was = version;
        if (v.rc) {
            char msg[96];
            int n = snprintf(msg, sizeof msg, "event: error\ndata: {\"status\":%d}\n\n",
                             err_status(v.rc));
            write(ctx, msg, (size_t)n);
            break;
        }
        version = v.version;
        const char *frames = v.len ? v.data : NULL;
        size_t len = v.len;
        if (v.count) {
            size_t n1;
            long n;
            fan_event(&v, v.first + v.count - 1, &n1, &n);
            after = n;
        }
        if (idle_ms < 0)
            idle_ms = streams_idle_ms(v.seat);
        later = v.seat == SEAT_SPECTATOR;
        char vf[80];
        if (!frames && was >= 0 && version != was) {
            /* the game changed with no event (a seat claimed, api/h_seats.c):
             * a frame without an id, so that readers fetch it again */
            int k = snprintf(vf, sizeof vf, "event: version\ndata: {\"version\":%lld}\n\n",
                             version);
            frames = vf;
            len = (size_t)k;
        }
        int gone = frames ? write(ctx, frames, len) != 0 : write(ctx, NULL, 0) != 0;
        int over = v.over, sent = frames != NULL;
        fan_release(&v);
        if (gone || over || __atomic_load_n(stopping, __ATOMIC_ACQUIRE))
            break;
        time_t now = time(NULL);
        if (sent) {
            last = now;
            interval = SSE_POLL_MIN_MS;
        } else if (interval < SSE_POLL_MAX_MS) {
            interval = interval * 2 > SSE_POLL_MAX_MS ? SSE_POLL_MAX_MS : interval * 2;
        }
        if (now - start >= SSE_MAX_S || (now - last) * 1000L >= idle_ms)
            break;
        if (now - beat >= SSE_BEAT_S) {
            beat = now;
            if (write(ctx, ": keep-alive\n\n", 14) != 0)
                break;
        }
        /* a write to this game in this process wakes us at once (a
         * spectator's stream NOTIFY_LATER_MS later) */
        if (lat ? notify_wait_later(res->stream.game_id, seen, interval)
                : notify_wait(res->stream.game_id, seen, interval))
            interval = SSE_POLL_MIN_MS;
    }
    fan_leave(aud, FAN_SSE);
}
