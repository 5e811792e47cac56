/* main.c: the one binary, `croupier <command>`. Each command parses its own
 * options and has --help; the engine and api/ do the work. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "front_civet.h"
#include "game.h"
#include "store.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static void serve_usage(FILE *f)
{
    fprintf(f,
        "usage: croupier serve [options]\n"
        "Serve the API, the web page and the OpenAPI document over HTTP (civetweb).\n\n"
        "  --listen ADDR:PORT   where to listen (default 127.0.0.1:8080; port 0 = any free port)\n"
        "  --store URL          sqlite:PATH (default sqlite:croupier.db) or postgres://user@host/db\n"
        "  --threads N          worker threads (default 8)\n"
        "  --body-limit BYTES   largest request body accepted (default 65536)\n"
        "  --access-log FILE    append an access log line per request to FILE\n"
        "  --www DIR            the web page's files (default www)\n"
        "  --openapi FILE       the OpenAPI document served at /openapi.yaml\n"
        "                       (default openapi/openapi.yaml)\n"
        "  -h, --help           this text\n\n"
        "Environment: CROUPIER_ADMIN_TOKEN enables an admin token that sees every\n"
        "game in full (off when unset). SIGTERM or SIGINT stop the server cleanly.\n");
}

static int parse_size(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int cmd_serve(int argc, char **argv)
{
    const char *listen = "127.0.0.1:8080", *store_url = "sqlite:croupier.db";
    const char *access_log = NULL, *www = "www", *openapi = "openapi/openapi.yaml";
    long long threads = 8, body_limit = 65536;
    static const struct option opts[] = {
        {"listen", required_argument, 0, 'l'}, {"store", required_argument, 0, 's'},
        {"threads", required_argument, 0, 't'}, {"body-limit", required_argument, 0, 'b'},
        {"access-log", required_argument, 0, 'a'}, {"www", required_argument, 0, 'w'},
        {"openapi", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': listen = optarg; break;
        case 's': store_url = optarg; break;
        case 't':
            if (parse_size(optarg, 1, 256, &threads)) {
                fprintf(stderr, "croupier serve: --threads takes 1..256\n");
                return 2;
            }
            break;
        case 'b':
            if (parse_size(optarg, 1024, 64LL << 20, &body_limit)) {
                fprintf(stderr, "croupier serve: --body-limit takes 1024..67108864 bytes\n");
                return 2;
            }
            break;
        case 'a': access_log = optarg; break;
        case 'w': www = optarg; break;
        case 'o': openapi = optarg; break;
        case 'h': serve_usage(stdout); return 0;
        default: serve_usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "croupier serve: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    char err[512];
    store *st = NULL;
    if (store_open(&st, store_url, err, sizeof err)) {
        fprintf(stderr, "croupier serve: %s\n", err);
        return 1;
    }
    front_civet fc;
    memset(&fc, 0, sizeof fc);
    fc.cfg.store = st;
    fc.cfg.body_limit = (size_t)body_limit;
    fc.cfg.admin_token = getenv("CROUPIER_ADMIN_TOKEN");
    fc.cfg.www_dir = www;
    fc.cfg.openapi_path = openapi;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (front_civet_start(&fc, listen, (int)threads, access_log, err, sizeof err)) {
        fprintf(stderr, "croupier serve: %s\n", err);
        store_close(st);
        return 1;
    }
    char host[128];
    snprintf(host, sizeof host, "%s", listen);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = 0;
    else
        snprintf(host, sizeof host, "0.0.0.0");
    printf("croupier: listening on http://%s:%d (store %s)\n", host, fc.port, store_url);
    fflush(stdout);
    while (!stop_requested)
        usleep(50 * 1000); /* no pause(): a signal between test and wait would be lost */
    fprintf(stderr, "croupier: shutting down\n");
    front_civet_stop(&fc);
    store_close(st);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier <command> [options]\n\n"
        "Croupier: card-game rules engine and REST service.\n\n"
        "commands:\n"
        "  serve      serve the HTTP API, the web page and the OpenAPI document\n"
        "  selfplay   let bots play many games and report how they fare\n"
        "  games      list the games, variants and bots\n"
        "  help       this text\n\n"
        "`croupier <command> --help` describes each command.\n");
}

static int cmd_games(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: croupier games\nList the games with their variants, player counts and bots.\n");
        return 0;
    }
    for (const game_ops *const *g = game_registry; *g; g++) {
        printf("%-12s %s, %d-%d players\n  variants:", (*g)->name, (*g)->title,
               (*g)->min_players, (*g)->max_players);
        for (const char *const *v = (*g)->variants; *v; v++)
            printf(" %s", *v);
        printf("\n  bots:");
        for (const char *const *b = (*g)->bots; *b; b++)
            printf(" %s", *b);
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
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "selfplay") == 0)
        return cmd_selfplay(argc - 1, argv + 1);
    if (strcmp(cmd, "games") == 0)
        return cmd_games(argc - 1, argv + 1);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "croupier: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
