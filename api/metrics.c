/* metrics.c: Prometheus counters. The only mutable process-wide state in
 * api/, and it holds no game data: atomic counters, rendered on demand. */
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "http.h"
#include "quota.h"
#include "fanout.h"
#include "transport_limits.h"

static const int CLASSES[] = {200, 201, 204, 304, 400, 401, 403, 404, 405,
                              409, 412, 413, 415, 422, 429, 500, 503};
enum { NCLASSES = sizeof CLASSES / sizeof CLASSES[0] };

static atomic_ullong by_status[NCLASSES + 1]; /* last: any other status */
static atomic_ullong micros_sum, requests, games_created, games_rebuilt;

void metrics_record(int status, double seconds)
{
    int i = 0;
    while (i < NCLASSES && CLASSES[i] != status)
        i++;
    atomic_fetch_add(&by_status[i], 1);
    atomic_fetch_add(&requests, 1);
    atomic_fetch_add(&micros_sum, (unsigned long long)(seconds * 1e6));
}

void metrics_game_created(void) { atomic_fetch_add(&games_created, 1); }
void metrics_rebuilt(void) { atomic_fetch_add(&games_rebuilt, 1); }

char *metrics_render(size_t *len)
{
    size_t cap = 16384; /* about 5 KB now: a cut page would be a bug (k counts on) */
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t k = 0;
#define OUT(...) k += (size_t)snprintf(buf + (k < cap ? k : cap - 1), k < cap ? cap - k : 1, __VA_ARGS__)
    OUT("# HELP croupier_http_requests_total HTTP requests answered, by status.\n");
    OUT("# TYPE croupier_http_requests_total counter\n");
    for (int i = 0; i < NCLASSES; i++)
        OUT("croupier_http_requests_total{status=\"%d\"} %llu\n", CLASSES[i],
            (unsigned long long)atomic_load(&by_status[i]));
    OUT("croupier_http_requests_total{status=\"other\"} %llu\n",
        (unsigned long long)atomic_load(&by_status[NCLASSES]));
    OUT("# HELP croupier_http_request_duration_seconds Time spent handling requests.\n");
    OUT("# TYPE croupier_http_request_duration_seconds summary\n");
    OUT("croupier_http_request_duration_seconds_sum %.6f\n",
        (double)atomic_load(&micros_sum) / 1e6);
    OUT("croupier_http_request_duration_seconds_count %llu\n",
        (unsigned long long)atomic_load(&requests));
    OUT("# HELP croupier_games_created_total Games created since start.\n");
    OUT("# TYPE croupier_games_created_total counter\n");
    OUT("croupier_games_created_total %llu\n",
        (unsigned long long)atomic_load(&games_created));
    OUT("# HELP croupier_games_rebuilt_total Games whose state was rebuilt from their origin and "
        "play log (no usable snapshot: missing, stale, damaged or of another build).\n");
    OUT("# TYPE croupier_games_rebuilt_total counter\n");
    OUT("croupier_games_rebuilt_total %llu\n", (unsigned long long)atomic_load(&games_rebuilt));
    OUT("# HELP croupier_streams_open Event streams (SSE and WebSockets) open now.\n");
    OUT("# TYPE croupier_streams_open gauge\n");
    OUT("croupier_streams_open %d\n", streams_open());
    OUT("# HELP croupier_streams_refused_total Event streams refused (503 too-many-streams: the "
        "stream budget, in all or from one address), by kind.\n");
    OUT("# TYPE croupier_streams_refused_total counter\n");
    OUT("croupier_streams_refused_total{kind=\"sse\"} %llu\n", streams_refused(STREAM_SSE));
    OUT("croupier_streams_refused_total{kind=\"websocket\"} %llu\n",
        streams_refused(STREAM_WEBSOCKET));
    OUT("# HELP croupier_streams_cut_total Event streams cut off because their client did not "
        "take what was written to it within the write timeout (10 s), by kind.\n");
    OUT("# TYPE croupier_streams_cut_total counter\n");
    OUT("croupier_streams_cut_total{kind=\"sse\"} %llu\n", streams_cut_total(STREAM_SSE));
    OUT("croupier_streams_cut_total{kind=\"websocket\"} %llu\n",
        streams_cut_total(STREAM_WEBSOCKET));
    unsigned long long fb, fd;
    long fbufs;
    fan_counts(&fb, &fd, &fbufs);
    OUT("# HELP croupier_event_builds_total Loads of a game's events for an audience of its "
        "streams (one per audience and write, however many streams follow it).\n");
    OUT("# TYPE croupier_event_builds_total counter\n");
    OUT("croupier_event_builds_total %llu\n", fb);
    OUT("# HELP croupier_event_deliveries_total Times a stream was handed an audience's "
        "built events (shared bytes).\n");
    OUT("# TYPE croupier_event_deliveries_total counter\n");
    OUT("croupier_event_deliveries_total %llu\n", fd);
    OUT("# HELP croupier_event_buffers Built event buffers alive (held by an audience or a "
        "stream writing them).\n");
    OUT("# TYPE croupier_event_buffers gauge\n");
    OUT("croupier_event_buffers %ld\n", fbufs);
    /* where the memory is (glibc's heap: memory in use, freed but kept in
     * the arenas, and mapped on its own), to tell a leak from a cache */
    struct mallinfo2 mi = mallinfo2();
    OUT("# HELP croupier_heap_bytes The C heap (glibc mallinfo2): in use, free but kept, mapped.\n");
    OUT("# TYPE croupier_heap_bytes gauge\n");
    OUT("croupier_heap_bytes{kind=\"in_use\"} %zu\n", mi.uordblks + mi.hblkhd);
    OUT("croupier_heap_bytes{kind=\"free\"} %zu\n", mi.fordblks);
    OUT("croupier_heap_bytes{kind=\"mapped\"} %zu\n", mi.hblkhd);
#undef OUT
    quota_metrics(buf, cap, &k);
    *len = k < cap ? k : cap - 1;
    return buf;
}
