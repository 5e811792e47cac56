/* main.c: the one binary, `croupier <command>`. Each command parses its own
 * options and has --help; the engine and api/ do the work. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_arena.h"
#include "cli.h"
#include "front_civet.h"
#include "front_fcgi.h"
#include "game.h"
#include "idem.h"
#include "transport_limits.h"
#include "notify.h"
#include "quota.h"
#include "replays.h"
#include "store.h"
#include "yaml_json.h"
#include "nchan.h"
#include "version.h"

static volatile sig_atomic_t stop_requested;
static int stopping; /* mirrors stop_requested for the front ends' loops */
static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
}

/* Options shared by `serve` and `fcgi`. */
typedef struct server_opts {
    const char *cmd, *listen, *store_url, *access_log, *www, *openapi, *docs, *cors, *nchan;
    long long threads, body_limit, max_streams, max_streams_per_client, stream_idle, idem_keep;
    long long quota[6]; /* --quota-create, -create-total, -work, -work-total, -notes,
                           -notes-total; -1 unset */
    long long store_max_bytes, store_min_free, expire_finished, expire_idle;
    long long replays[3]; /* --max-replays, --max-replays-per-client, --replay-idle; 0 unset */
    int log_fd; /* --access-log, opened by check_files() */
} server_opts;

/* The default of --store-min-free: no new game when the SQLite file's disk
 * has less free (docs/operations.md: the WAL's headroom). */
#define STORE_MIN_FREE_DEFAULT (256LL << 20)

/* Defaults of --threads: the embedded server holds one connection per
 * thread (docs/deployment.md: the connection budget); FastCGI threads only
 * run requests that nginx has read in full. */
enum { SERVE_THREADS = 512, FCGI_THREADS = 8 };

static void server_usage(FILE *f, const char *cmd)
{
    int fcgi = strcmp(cmd, "fcgi") == 0;
    fprintf(f, "usage: croupier %s [options]\n", cmd);
    if (fcgi)
        fprintf(f,
            "The same API as a FastCGI application (libfcgi), for nginx or any FastCGI\n"
            "server; started by a CGI server (GATEWAY_INTERFACE set) it answers the one\n"
            "CGI request on stdin/stdout instead.\n\n"
            "  --listen ADDR:PORT|PATH  FastCGI socket (default: the socket on fd 0 that a\n"
            "                           spawning server such as spawn-fcgi passes)\n");
    else
        fprintf(f,
            "Serve the API, the web page and the OpenAPI document over HTTP (civetweb).\n\n"
            "  --listen ADDR:PORT   where to listen (default 127.0.0.1:8080; port 0 = any free port)\n");
    fprintf(f,
        "  --store URL          sqlite:PATH (default sqlite:croupier.db, or env CROUPIER_STORE)\n"
        "                       or postgres://user@host/db\n"
        "  --threads N          worker threads (default %d)%s\n"
        "  --max-streams N      event streams (SSE%s) open at once; never more than half\n"
        "                       the threads (default %d)\n"
        "  --max-streams-per-client N\n"
        "                       ... from one client address (default %d; behind a proxy\n"
        "                       every client has the proxy's address)\n"
        "  --stream-idle S      a spectator's stream with nothing sent or received for S\n"
        "                       seconds is closed, a seat's after 10 * S (default %d)\n"
        "  --body-limit BYTES   largest request body accepted (default 65536)\n"
        "  --quota-create N     games created or imported a minute from one client address\n"
        "                       (default %d; a game counts once more per 16 KiB it stores,\n"
        "                       as a bot-only game does; 0: no limit); past it, 429\n"
        "  --quota-create-total N\n"
        "                       ... from all addresses together (default %d; 0: no limit)\n"
        "  --quota-work S       CPU seconds a minute of work without a game (GET /cases) from\n"
        "                       one address, one request at a time (default %d; 0: no limit)\n"
        "  --quota-work-total S ... from all addresses together (default %d; 0: no limit)\n"
        "  --quota-notes N      card notes written a minute from one address (default %d;\n"
        "                       0: no limit)\n"
        "  --quota-notes-total N\n"
        "                       ... from all addresses together (default %d; 0: no limit)\n"
        "  --store-max-bytes BYTES\n"
        "                       no new game once the store is this large (K, M, G; default\n"
        "                       0: no limit); the games there go on\n"
        "  --store-min-free BYTES\n"
        "                       no new game once the SQLite file's disk has less free\n"
        "                       (default 256M; 0: no limit)\n"
        "  --expire-finished DAYS\n"
        "                       remove a finished game DAYS days after its last play\n"
        "                       (default %d; 0: keep them)\n"
        "  --expire-idle DAYS   remove any game with no write for DAYS days (default %d;\n"
        "                       0: keep them)\n"
        "  --idempotency-keep S how long the answer of a request sent with an\n"
        "                       Idempotency-Key is kept for its retries (default %d\n"
        "                       seconds: 24 hours; %d..%d)\n"
        "  --max-replays N      shared replays open at once, in memory (default %d)\n"
        "  --max-replays-per-client N\n"
        "                       ... made from one client address (default %d)\n"
        "  --replay-idle S      a shared replay with no move for S seconds is closed\n"
        "                       (default %d)\n",
        fcgi ? FCGI_THREADS : SERVE_THREADS,
        fcgi ? "" : ": each holds one open connection\n"
                    "                       (docs/deployment.md: the connection budget)",
        fcgi ? "" : " and WebSocket", fcgi ? FCGI_THREADS / 2 : STREAMS_TOTAL_DEFAULT,
        fcgi ? FCGI_THREADS / 2 : STREAMS_PER_CLIENT_DEFAULT, STREAMS_IDLE_DEFAULT,
        QUOTA_CREATE_DEFAULT, QUOTA_CREATE_TOTAL_DEFAULT, QUOTA_WORK_DEFAULT,
        QUOTA_WORK_TOTAL_DEFAULT, QUOTA_NOTES_DEFAULT, QUOTA_NOTES_TOTAL_DEFAULT,
        EXPIRE_FINISHED_DAYS, EXPIRE_IDLE_DAYS,
        IDEM_KEEP_DEFAULT_S, IDEM_KEEP_MIN_S, IDEM_KEEP_MAX_S,
        REPLAYS_TOTAL_DEFAULT, REPLAYS_PER_CLIENT_DEFAULT, REPLAY_IDLE_DEFAULT);
    if (!fcgi)
        fprintf(f, "  --access-log FILE    append an access log line per request to FILE\n");
    fprintf(f, "  --www DIR            the web page's files (default www; '' serves no page)\n");
    fprintf(f, "  --nchan-publish URL  publish every game's events to nginx's nchan channels, one\n"
               "                       per audience, at URL (http://127.0.0.1:PORT/PREFIX: the\n"
               "                       internal server of deploy/nginx-nchan.conf)\n");
    fprintf(f, "  --cors ORIGIN        let web pages of ORIGIN (http(s)://host[:port]) call the API\n"
               "                       (default: no cross-origin access)\n");
    fprintf(f,
        "  --openapi FILE       the OpenAPI document served at /openapi.yaml\n"
        "                       (default openapi/openapi.yaml; '' serves none)\n"
        "  --docs DIR           the documentation whose games' rules pages, DIR/rules/<game>.md,\n"
        "                       are served at /docs/rules/<game>.md (default docs; '' serves none)\n"
        "  -h, --help           this text\n\n"
        "Environment: CROUPIER_ADMIN_TOKEN enables an admin token that sees every\n"
        "game in full (off when unset). SIGTERM or SIGINT stop the server cleanly.\n");
}

/* 0 parsed, 1 help printed (exit 0), 2 usage error. */
static int parse_server_opts(int argc, char **argv, server_opts *o)
{
    static const struct option opts[] = {
        {"listen", required_argument, 0, 'l'}, {"store", required_argument, 0, 's'},
        {"threads", required_argument, 0, 't'}, {"body-limit", required_argument, 0, 'b'},
        {"access-log", required_argument, 0, 'a'}, {"www", required_argument, 0, 'w'},
        {"openapi", required_argument, 0, 'o'}, {"cors", required_argument, 0, 'c'},
        {"docs", required_argument, 0, 'd'},
        {"max-streams", required_argument, 0, 'm'},
        {"max-streams-per-client", required_argument, 0, 'p'},
        {"stream-idle", required_argument, 0, 'i'},
        {"quota-create", required_argument, 0, 1000}, {"quota-create-total", required_argument, 0, 1001},
        {"quota-work", required_argument, 0, 1002}, {"quota-work-total", required_argument, 0, 1003},
        {"quota-notes", required_argument, 0, 1004}, {"quota-notes-total", required_argument, 0, 1005},
        {"store-max-bytes", required_argument, 0, 'M'}, {"store-min-free", required_argument, 0, 'F'},
        {"expire-finished", required_argument, 0, 'E'}, {"expire-idle", required_argument, 0, 'I'},
        {"idempotency-keep", required_argument, 0, 'k'},
        {"nchan-publish", required_argument, 0, 'N'},
        {"max-replays", required_argument, 0, 1010},
        {"max-replays-per-client", required_argument, 0, 1011},
        {"replay-idle", required_argument, 0, 1012},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': o->listen = optarg; break;
        case 's': o->store_url = optarg; break;
        case 't':
            if (cli_number(optarg, 1, 4096, &o->threads)) {
                fprintf(stderr, "croupier %s: --threads takes 1..4096\n", o->cmd);
                return 2;
            }
            break;
        case 'b':
            if (cli_number(optarg, 1024, 64LL << 20, &o->body_limit)) {
                fprintf(stderr, "croupier %s: --body-limit takes 1024..67108864 bytes\n", o->cmd);
                return 2;
            }
            break;
        case 'm':
        case 'p':
            if (cli_number(optarg, 1, 4096, c == 'm' ? &o->max_streams
                                                     : &o->max_streams_per_client)) {
                fprintf(stderr, "croupier %s: --%s takes 1..4096\n", o->cmd,
                        c == 'm' ? "max-streams" : "max-streams-per-client");
                return 2;
            }
            break;
        case 'i':
            if (cli_number(optarg, 1, 86400, &o->stream_idle)) {
                fprintf(stderr, "croupier %s: --stream-idle takes 1..86400 seconds\n", o->cmd);
                return 2;
            }
            break;
        case 1000:
        case 1001:
        case 1002:
        case 1003:
        case 1004:
        case 1005:
            if (cli_number(optarg, 0, 1000000, &o->quota[c - 1000])) {
                static const char *const names[] = {"quota-create", "quota-create-total",
                                                    "quota-work",   "quota-work-total",
                                                    "quota-notes",  "quota-notes-total"};
                fprintf(stderr, "croupier %s: --%s takes 0..1000000 (0: no limit)\n", o->cmd,
                        names[c - 1000]);
                return 2;
            }
            break;
        case 'M':
        case 'F':
            if (cli_bytes(optarg, 1LL << 60, c == 'M' ? &o->store_max_bytes : &o->store_min_free)) {
                fprintf(stderr, "croupier %s: --%s takes a size in bytes (a number, K, M, G "
                                "or T after it)\n", o->cmd, c == 'M' ? "store-max-bytes" : "store-min-free");
                return 2;
            }
            break;
        case 'E':
        case 'I':
            if (cli_number(optarg, 0, EXPIRE_DAYS_MAX, c == 'E' ? &o->expire_finished
                                                                : &o->expire_idle)) {
                fprintf(stderr, "croupier %s: --%s takes 0..%d days\n", o->cmd,
                        c == 'E' ? "expire-finished" : "expire-idle", EXPIRE_DAYS_MAX);
                return 2;
            }
            break;
        case 'k':
            if (cli_number(optarg, IDEM_KEEP_MIN_S, IDEM_KEEP_MAX_S, &o->idem_keep)) {
                fprintf(stderr, "croupier %s: --idempotency-keep takes %d..%d seconds\n", o->cmd,
                        IDEM_KEEP_MIN_S, IDEM_KEEP_MAX_S);
                return 2;
            }
            break;
        case 'N': o->nchan = optarg; break;
        case 1010:
        case 1011:
        case 1012:
            if (cli_number(optarg, 1, c == 1012 ? 86400 : 100000, &o->replays[c - 1010])) {
                static const char *const names[] = {"max-replays", "max-replays-per-client",
                                                    "replay-idle"};
                fprintf(stderr, "croupier %s: --%s takes 1..%d\n", o->cmd, names[c - 1010],
                        c == 1012 ? 86400 : 100000);
                return 2;
            }
            break;
        case 'a': o->access_log = optarg; break;
        case 'w': o->www = optarg; break;
        case 'o': o->openapi = optarg; break;
        case 'd': o->docs = optarg; break;
        case 'c':
            if (!http_cors_origin_valid(optarg)) {
                fprintf(stderr, "croupier %s: --cors takes one origin, http(s)://host[:port] "
                                "with no path (got '%s')\n", o->cmd, optarg);
                return 2;
            }
            o->cors = optarg;
            break;
        case 'h': server_usage(stdout, o->cmd); return 1;
        default: server_usage(stderr, o->cmd); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "croupier %s: unexpected argument '%s'\n", o->cmd, argv[optind]);
        return 2;
    }
    return 0;
}

/* Every file a server is given, checked before it serves: one line
 * naming croupier, the option and the path, and exit 2, rather than a
 * server that starts and then answers 404 or writes no log. An empty
 * --www, --openapi or --docs turns the page, the document or the rules
 * pages off. *log_fd: the
 * access log, opened for appending (-1 when none). */
static int check_files(const server_opts *o, int *log_fd)
{
    struct stat sb;
    char path[4096];
    *log_fd = -1;
    if (o->www && *o->www) {
        const char *why = stat(o->www, &sb) != 0 ? strerror(errno)
                          : !S_ISDIR(sb.st_mode) ? "not a folder" : NULL;
        if (why) {
            fprintf(stderr, "croupier %s: --www %s: %s (the web page's folder; --www '' serves "
                            "no page)\n", o->cmd, o->www, why);
            return 2;
        }
        snprintf(path, sizeof path, "%s/index.html", o->www);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "croupier %s: --www %s: no readable index.html in it\n", o->cmd, o->www);
            return 2;
        }
    }
    if (o->docs && *o->docs) {
        snprintf(path, sizeof path, "%s/rules", o->docs);
        const char *why = stat(path, &sb) != 0 ? strerror(errno)
                          : !S_ISDIR(sb.st_mode) ? "not a folder" : NULL;
        if (why) {
            fprintf(stderr, "croupier %s: --docs %s: %s/rules: %s (the games' rules pages; "
                            "--docs '' serves none)\n", o->cmd, o->docs, o->docs, why);
            return 2;
        }
    }
    if (o->openapi && *o->openapi) {
        size_t len = 0;
        char why[160] = "";
        char *text = yaml_file_to_json(o->openapi, &len, why, sizeof why);
        json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
        int ok = json_is_string(json_object_get(doc, "openapi")) &&
                 json_is_object(json_object_get(doc, "paths"));
        json_decref(doc);
        free(text);
        if (!ok) {
            fprintf(stderr, "croupier %s: --openapi %s: %s\n", o->cmd, o->openapi,
                    why[0] ? why
                           : "not an OpenAPI document (YAML with 'openapi' and 'paths' members)");
            return 2;
        }
    }
    if (o->access_log && *o->access_log) {
        *log_fd = open(o->access_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
        if (*log_fd < 0 || fstat(*log_fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            fprintf(stderr, "croupier %s: --access-log %s: %s\n", o->cmd, o->access_log,
                    *log_fd < 0 ? strerror(errno) : "not a regular file");
            if (*log_fd >= 0)
                close(*log_fd);
            *log_fd = -1;
            return 2;
        }
    }
    return 0;
}

/* Parse options, open the store, fill cfg, install signal handlers.
 * Returns -1 to go on, else the exit code. */
static int server_setup(int argc, char **argv, server_opts *o, api_config *cfg, store **st)
{
    const char *env_store = getenv("CROUPIER_STORE");
    if (!o->store_url)
        o->store_url = env_store && *env_store ? env_store : "sqlite:croupier.db";
    o->store_min_free = STORE_MIN_FREE_DEFAULT;
    o->expire_finished = EXPIRE_FINISHED_DAYS;
    o->expire_idle = EXPIRE_IDLE_DAYS;
    int p = parse_server_opts(argc, argv, o);
    if (p)
        return p == 1 ? 0 : 2;
    if ((p = check_files(o, &o->log_fd)))
        return p;
    char err[512], url[512];
    if (store_open(st, o->store_url, err, sizeof err)) {
        fprintf(stderr, "croupier %s: --store %s: %s\n", o->cmd,
                store_redact(o->store_url, o->store_url, url, sizeof url), err);
        if (o->log_fd >= 0)
            close(o->log_fd);
        return 1;
    }
    (*st)->limits = (store_limits){o->store_max_bytes, o->store_min_free};
    memset(cfg, 0, sizeof *cfg);
    cfg->store = *st;
    cfg->body_limit = (size_t)o->body_limit;
    cfg->admin_token = getenv("CROUPIER_ADMIN_TOKEN");
    cfg->www_dir = o->www && *o->www ? o->www : NULL;
    cfg->openapi_path = o->openapi && *o->openapi ? o->openapi : NULL;
    cfg->docs_dir = o->docs && *o->docs ? o->docs : NULL;
    cfg->cors_origin = o->cors;
    idem_configure(o->idem_keep ? (int)o->idem_keep : IDEM_KEEP_DEFAULT_S);
    char why[160];
    remote_url nu;
    if (o->nchan && (remote_url_parse(o->nchan, &nu, why, sizeof why) ||
                     nchan_configure(cfg, nu.host, nu.port, nu.path, why, sizeof why))) {
        if (strncmp(o->nchan, "http://", 7) != 0 || !nu.host[0]) /* the parser's words are a player's */
            snprintf(why, sizeof why, "takes http://HOST:PORT/PREFIX, nginx's internal nchan "
                                      "locations (deploy/nginx-nchan.conf)");
        fprintf(stderr, "croupier %s: --nchan-publish %s: %s\n", o->cmd, o->nchan, why);
        store_close(*st);
        if (o->log_fd >= 0)
            close(o->log_fd);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: blocking accept() returns */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return -1;
}

/* The heap keeper. glibc keeps the memory freed in its arenas: a free
 * gives back only the top of an arena, and only malloc_trim() the pages
 * of free chunks in the middle. Under a long mixed load (plays, reads,
 * bot games, event streams at once) the arenas' free space grew to as
 * much as the memory in use, and the server's RSS with it (docs/operations.md,
 * memory); the front end trims only when the server goes idle. So every
 * HEAP_CHECK_S seconds, when more than HEAP_FREE_MAX bytes lie free in
 * the arenas, malloc_trim(0) gives their pages back (a few ms, each arena
 * locked in turn). */
enum { HEAP_CHECK_S = 10, HEAP_FREE_MAX = 8 << 20 };

static void *heap_keeper(void *arg)
{
    (void)arg;
    for (;;) {
        sleep(HEAP_CHECK_S);
        if (mallinfo2().fordblks > HEAP_FREE_MAX)
            malloc_trim(0);
    }
    return NULL;
}

static void keep_heap(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, heap_keeper, NULL) == 0)
        pthread_detach(t);
}

/* Other processes' writes wake this one's event streams (PostgreSQL:
 * LISTEN/NOTIFY; a SQLite store has none, its streams poll). */
static void listen_to_store(store *st)
{
    if (st->vt->listen)
        st->vt->listen(st, notify_store_changed, NULL);
}

/* The stream budget (transport_limits.h): --max-streams, never more than half the
 * threads (streams hold one each; requests need the rest). */
/* The quotas (quota.h): the options given, the defaults for the rest. */
static void quotas(const server_opts *o)
{
    const long dflt[6] = {QUOTA_CREATE_DEFAULT, QUOTA_CREATE_TOTAL_DEFAULT, QUOTA_WORK_DEFAULT,
                          QUOTA_WORK_TOTAL_DEFAULT, QUOTA_NOTES_DEFAULT, QUOTA_NOTES_TOTAL_DEFAULT};
    long v[6];
    for (int i = 0; i < 6; i++)
        v[i] = o->quota[i] >= 0 ? (long)o->quota[i] : dflt[i];
    quota_configure(QUOTA_CREATE, v[0], v[1]);
    quota_configure(QUOTA_WORK, v[2], v[3]);
    quota_configure(QUOTA_NOTES, v[4], v[5]);
}

/* The shared replays' bounds (replays.h): the options given, the defaults
 * for the rest. */
static void replay_bounds(const server_opts *o)
{
    replays_configure(o->replays[0] ? (int)o->replays[0] : REPLAYS_TOTAL_DEFAULT,
                      o->replays[1] ? (int)o->replays[1] : REPLAYS_PER_CLIENT_DEFAULT,
                      o->replays[2] ? (int)o->replays[2] : REPLAY_IDLE_DEFAULT);
}

static void stream_budget(const server_opts *o, int fcgi)
{
    int half = o->threads / 2 > 0 ? (int)(o->threads / 2) : 1;
    int total = o->max_streams ? (int)o->max_streams : fcgi ? half : STREAMS_TOTAL_DEFAULT;
    if (total > half)
        total = half;
    int per = o->max_streams_per_client ? (int)o->max_streams_per_client
                                        : STREAMS_PER_CLIENT_DEFAULT;
    streams_configure(total, per > total ? total : per,
                      o->stream_idle ? (int)o->stream_idle : STREAMS_IDLE_DEFAULT);
}

/* Every open connection is a descriptor: take the hard limit, and say so
 * when even that is short of what the threads may hold. */
static void raise_nofile(const char *cmd, long long need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur != RLIM_INFINITY && (long long)rl.rlim_cur < need)
        fprintf(stderr, "croupier %s: only %llu file descriptors (ulimit -n); %lld wanted for "
                        "--threads\n", cmd, (unsigned long long)rl.rlim_cur, need);
}

/* Games expire (--expire-finished, --expire-idle; cli/purge.c). */
static void expire_games(const server_opts *o, store *st)
{
    purge_policy p = {(int)o->expire_finished, (int)o->expire_idle};
    if (purge_start(st, &p))
        fprintf(stderr, "croupier %s: games will not expire (no thread for it)\n", o->cmd);
}

static int cmd_serve(int argc, char **argv)
{
    server_opts o = {.cmd = "serve", .listen = "127.0.0.1:8080", .www = "www",
                     .openapi = "openapi/openapi.yaml", .docs = "docs", .threads = SERVE_THREADS,
                     .body_limit = 65536, .quota = {-1, -1, -1, -1, -1, -1}};
    front_civet fc;
    memset(&fc, 0, sizeof fc);
    store *st = NULL;
    int rc = server_setup(argc, argv, &o, &fc.cfg, &st);
    if (rc >= 0)
        return rc;
    char err[512];
    stream_budget(&o, 0);
    replay_bounds(&o);
    quotas(&o);
    listen_to_store(st);
    idem_start(st);
    keep_heap();
    raise_nofile("serve", 2 * o.threads + 64); /* connections held + queued, files */
    if (front_civet_start(&fc, o.listen, (int)o.threads, o.log_fd, err, sizeof err)) {
        fprintf(stderr, "croupier serve: %s\n", err);
        idem_stop();
        store_close(st);
        return 1;
    }
    char host[128];
    snprintf(host, sizeof host, "%s", o.listen);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = 0;
    else
        snprintf(host, sizeof host, "0.0.0.0");
    char url[512];
    printf("croupier: listening on http://%s:%d (store %s)\n", host, fc.port,
           store_redact(o.store_url, o.store_url, url, sizeof url));
    fflush(stdout);
    expire_games(&o, st);
    while (!stop_requested)
        usleep(50 * 1000); /* no pause(): a signal between test and wait would be lost */
    fprintf(stderr, "croupier: shutting down\n");
    front_civet_stop(&fc);
    nchan_stop();
    purge_stop();
    idem_stop();
    store_close(st);
    return 0;
}

static int cmd_fcgi(int argc, char **argv)
{
    server_opts o = {.cmd = "fcgi", .listen = NULL, .www = "www",
                     .openapi = "openapi/openapi.yaml", .docs = "docs", .threads = FCGI_THREADS,
                     .body_limit = 65536, .quota = {-1, -1, -1, -1, -1, -1}};
    api_config cfg;
    store *st = NULL;
    int rc = server_setup(argc, argv, &o, &cfg, &st);
    if (rc >= 0)
        return rc;
    char err[512];
    stream_budget(&o, 1);
    replay_bounds(&o);
    quotas(&o);
    if (front_fcgi_is_cgi()) {
        rc = front_fcgi_cgi(&cfg);
    } else {
        listen_to_store(st);
        idem_start(st);
        keep_heap();
        expire_games(&o, st);
        if ((rc = front_fcgi_run(&cfg, o.listen, (int)o.threads, &stopping, err, sizeof err)))
            fprintf(stderr, "croupier fcgi: %s\n", err);
        purge_stop();
        idem_stop();
    }
    nchan_stop();
    store_close(st);
    return rc ? 1 : 0;
}

/* croupier backup: a consistent copy of a live store (store.h). */
static int cmd_backup(int argc, char **argv)
{
    static const char help[] =
        "usage: croupier backup [--store URL] FILE\n"
        "A consistent copy of the store into the new file FILE while servers run on it\n"
        "(SQLite's online backup API: the database and its WAL as one snapshot; copying\n"
        "croupier.db alone misses what is still in croupier.db-wal). Restore: stop the\n"
        "servers, put FILE in the database's place (removing its -wal and -shm files),\n"
        "start them (docs/operations.md).\n\n"
        "  --store URL   sqlite:PATH (default sqlite:croupier.db, or env CROUPIER_STORE);\n"
        "                a postgres:// store is backed up with pg_dump instead\n";
    static const struct option opts[] = {
        {"store", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *env = getenv("CROUPIER_STORE");
    const char *url = env && *env ? env : "sqlite:croupier.db";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's') {
            url = optarg;
        } else {
            fputs(help, c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind != argc - 1) {
        fputs(help, stderr);
        return 2;
    }
    const char *file = argv[optind];
    store_backup_info info;
    char err[512];
    if (store_backup(url, file, &info, err, sizeof err)) {
        fprintf(stderr, "croupier backup: %s\n", err);
        return strncmp(url, "postgres", 8) == 0 ? 2 : 1;
    }
    char shown[512];
    printf("croupier backup: %s -> %s: schema %d, %lld games, %lld plays, %d pages\n",
           store_redact(url, url, shown, sizeof shown), file, info.schema, info.games, info.plays,
           info.pages);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier <command> [options]\n\n"
        "Croupier: card-game rules engine and REST service.\n\n"
        "commands:\n"
        "  serve      serve the HTTP API, the web page and the OpenAPI document\n"
        "  fcgi       the same API as a FastCGI application (or one CGI request)\n"
        "  selfplay   let bots play many games and report how they fare\n"
        "  tournament rotate named strategies through the seats and rank them\n"
        "  cases      generated cases of an autograder function (docs/autograder.md)\n"
        "  grade      grade a cohort's submissions, sandboxed; a Gradescope autograder\n"
        "  league     the students' own bots against each other and the house bots, ranked\n"
        "  games      list the games, variants and bots\n"
        "  backup     a consistent copy of a live SQLite store\n"
        "  purge      remove the games that have expired (docs/operations.md)\n"
        "  help       this text\n\n"
        "`croupier <command> --help` describes each command; `croupier --version`\n"
        "names the release and the commit it was built from.\n");
}

/* `croupier games --json`: the registry as data, for scripts
 * (tests/tournaments.mjs takes its lineups from it). */
static int games_json(void)
{
    json_t *out = json_array();
    for (const game_ops *const *g = game_registry; *g; g++) {
        json_t *variants = json_array(), *bots = json_array();
        for (const char *const *v = (*g)->variants; *v; v++)
            json_array_append_new(variants, json_string(*v));
        for (const game_bot *b = (*g)->bots; b->name; b++)
            json_array_append_new(bots, json_string(b->name));
        json_array_append_new(out, json_pack("{s:s,s:s,s:o,s:{s:i,s:i,s:i},s:b,s:o}", "game", (*g)->name,
                                             "title", (*g)->title, "variants", variants, "players", "min",
                                             (*g)->min_players, "max", (*g)->max_players, "default",
                                             (*g)->default_players ? (*g)->default_players : (*g)->min_players,
                                             "cooperative", (*g)->cooperative, "bots", bots));
    }
    char *text = json_dumps(out, JSON_INDENT(1));
    json_decref(out);
    if (!text)
        return 1;
    puts(text);
    free(text);
    return 0;
}

static int cmd_games(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: croupier games [--json]\nList the games with their variants, player counts and bots\n"
               "(--json: as a JSON array of {game, title, variants, players {min, max, default},\n"
               "cooperative, bots}, bots[0] the default).\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--json") == 0)
        return games_json();
    for (const game_ops *const *g = game_registry; *g; g++) {
        printf("%-12s %s, %d-%d players\n  variants:", (*g)->name, (*g)->title,
               (*g)->min_players, (*g)->max_players);
        for (const char *const *v = (*g)->variants; *v; v++)
            printf(" %s", *v);
        printf("\n  bots:");
        for (const game_bot *b = (*g)->bots; b->name; b++)
            printf(" %s", b->name);
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "serve") == 0 || strcmp(cmd, "fcgi") == 0) {
        json_arena_install(); /* a request's JSON values in blocks (api/json_arena.h) */
        /* glibc gives a thread that finds the malloc arenas busy a new one,
         * up to 8 per CPU, and each keeps the memory freed in it until it
         * is trimmed: after bursts of bot games (0.3-1 MB of heap each) the
         * server held 44 MB instead of 33-35 MB with 2-4 arenas; under ten
         * minutes of mixed load, 52 MB with 4 arenas, 35-40 with 2, and no
         * fewer requests served (docs/deployment.md, memory). One per CPU, unless
         * MALLOC_ARENA_MAX says otherwise. */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (!getenv("MALLOC_ARENA_MAX"))
            mallopt(M_ARENA_MAX, cpus > 1 ? (int)cpus : 1);
    }
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "fcgi") == 0)
        return cmd_fcgi(argc - 1, argv + 1);
    if (strcmp(cmd, "selfplay") == 0)
        return cmd_selfplay(argc - 1, argv + 1);
    if (strcmp(cmd, "tournament") == 0)
        return cmd_tournament(argc - 1, argv + 1);
    if (strcmp(cmd, "games") == 0)
        return cmd_games(argc - 1, argv + 1);
    if (strcmp(cmd, "cases") == 0)
        return cmd_cases(argc - 1, argv + 1);
    if (strcmp(cmd, "grade") == 0)
        return cmd_grade(argc - 1, argv + 1);
    if (strcmp(cmd, "league") == 0)
        return cmd_league(argc - 1, argv + 1);
    if (strcmp(cmd, "backup") == 0)
        return cmd_backup(argc - 1, argv + 1);
    if (strcmp(cmd, "purge") == 0)
        return cmd_purge(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0) {
        printf("croupier %s (commit %s)\n", croupier_version, croupier_commit);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "croupier: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
