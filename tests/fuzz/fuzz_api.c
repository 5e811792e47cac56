/* fuzz_api.c: libFuzzer harness over the whole request path.
 *
 * The first input byte picks a route, the rest is the body. The routes are
 * read from the tables, not written here: every POST row of the route table
 * (api/routes.c) that takes a body, with {game} and {fn} filled from the
 * registry (each game, each of its autograder functions of the row's kind)
 * and once more per variant other than the default (?variant=), and a row
 * that also takes text (the import) once per media type. Rows with a {id}
 * (a stored game) are left out: a play that is accepted changes the game,
 * so the same input would not replay the same way. A new route, game or
 * function is fuzzed without an edit here; CROUPIER_FUZZ_ROUTES=1 prints
 * the list (byte k picks route k modulo its length) and exits.
 *
 * Everything runs through api_handle() exactly as the front ends call it,
 * against a real SQLite store in a temp file: the router, JSON limits,
 * every game's decoder, checker, autograder functions, bots and the store.
 * Any crash, leak or UB (ASan+UBSan) is a finding. `make fuzz` runs it;
 * `make test` runs a short seeded smoke.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"

static api_config cfg;

enum { MAX_ROUTES = 256 };
static struct {
    char path[128];
    const char *ctype;
} ROUTES[MAX_ROUTES];
static unsigned NROUTES;

static void add(const char *path, const char *variant, const char *ctype)
{
    if (NROUTES == MAX_ROUTES) {
        fprintf(stderr, "fuzz: more than %d routes: raise MAX_ROUTES\n", MAX_ROUTES);
        abort();
    }
    int n = snprintf(ROUTES[NROUTES].path, sizeof ROUTES[NROUTES].path, "%s%s%s", path,
                     variant ? "?variant=" : "", variant ? variant : "");
    if (n < 0 || (size_t)n >= sizeof ROUTES[NROUTES].path) {
        fprintf(stderr, "fuzz: route too long: %s\n", path);
        abort();
    }
    ROUTES[NROUTES++].ctype = ctype;
}

/* Copy pattern into out with the segment "{name}" replaced by value. */
static void fill(char *out, size_t n, const char *pattern, const char *name, const char *value)
{
    const char *at = strstr(pattern, name);
    if (!at) {
        snprintf(out, n, "%s", pattern);
        return;
    }
    snprintf(out, n, "%.*s%s%s", (int)(at - pattern), pattern, value, at + strlen(name));
    size_t k = strlen(out); /* "/play/{game}/{fn}" with fn "": "/play/g/" -> "/play/g" */
    if (k > 1 && out[k - 1] == '/')
        out[k - 1] = 0;
}

/* 1 when ops has an autograder function of `kind` named `name`. */
static int game_fn_named(const game_ops *ops, const char *kind, const char *name)
{
    for (int f = 0; f < ops->nfns; f++)
        if (strcmp(ops->fns[f].kind, kind) == 0 && strcmp(ops->fns[f].name, name) == 0)
            return 1;
    return 0;
}

/* The route r for every game (and function of the kind its path names). */
static void add_games(const route *r, const char *ctype)
{
    const char *kind = strncmp(r->pattern, "/play/", 6) == 0 ? "play" : "validate";
    int has_fn = strstr(r->pattern, "{fn}") != NULL;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        char base[128], path[128];
        fill(base, sizeof base, r->pattern, "{game}", ops->name);
        for (int f = 0; f < (has_fn ? ops->nfns : 1); f++) {
            if (has_fn) {
                /* "/play/{game}" is the play function named "" */
                if (strcmp(ops->fns[f].kind, kind) != 0 || !*ops->fns[f].name)
                    continue;
                fill(path, sizeof path, base, "{fn}", ops->fns[f].name);
            } else {
                if (!game_fn_named(ops, kind, ""))
                    continue; /* a game with no such function: only a 404 */
                snprintf(path, sizeof path, "%s", base);
            }
            for (const char *const *v = ops->variants; *v; v++)
                add(path, v == ops->variants ? NULL : *v, ctype);
        }
    }
}

static void add_routes(void)
{
    for (const route *r = api_routes; r->method; r++) {
        if (strcmp(r->method, "POST") != 0 || r->body == BODY_NONE || strstr(r->pattern, "{id}"))
            continue;
        const char *ctypes[] = {"application/json",
                                r->body == BODY_JSON_OR_TEXT ? "text/plain" : NULL};
        for (int t = 0; t < 2 && ctypes[t]; t++) {
            if (strstr(r->pattern, "{game}"))
                add_games(r, ctypes[t]);
            else
                add(r->pattern, NULL, ctypes[t]);
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    add_routes();
    if (getenv("CROUPIER_FUZZ_ROUTES")) {
        for (unsigned i = 0; i < NROUTES; i++)
            printf("%3u %s %s\n", i, ROUTES[i].path, ROUTES[i].ctype);
        exit(0);
    }
    char path[] = "/tmp/croupier-fuzz-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    char url[64], err[256];
    snprintf(url, sizeof url, "sqlite:%s", path);
    store *st = NULL;
    if (store_open(&st, url, err, sizeof err)) {
        fprintf(stderr, "fuzz: %s\n", err);
        abort();
    }
    cfg.store = st;
    cfg.body_limit = 65536;
    cfg.admin_token = "fuzz-admin";
    cfg.www_dir = NULL;
    cfg.openapi_path = "openapi/openapi.yaml";
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned r = data[0] % NROUTES;
    char path[128];
    snprintf(path, sizeof path, "%s", ROUTES[r].path);
    char *q = strchr(path, '?');
    if (q)
        *q++ = 0;
    /* a text import also needs X-Croupier-Import (the router refuses it without) */
    http_header h[2] = {{"Content-Type", ROUTES[r].ctype}, {"X-Croupier-Import", "text"}};
    http_req req = {
        .method = "POST",
        .path = path,
        .query = q,
        .headers = h,
        .nheaders = strcmp(ROUTES[r].ctype, "text/plain") == 0 ? 2 : 1,
        .body = (const char *)data + 1,
        .body_len = size - 1,
        .body_too_large = size - 1 > cfg.body_limit,
    };
    http_res res;
    api_handle(&cfg, &req, &res);
    if (res.status >= 500) { /* 500 is only for bugs */
        fprintf(stderr, "fuzz: %s -> %d %.*s\n", ROUTES[r].path, res.status, (int)res.body_len,
                res.body ? res.body : "");
        abort();
    }
    http_res_free(&res);
    return 0;
}
