/* fuzz_api.c: libFuzzer harness over the whole request path.
 *
 * The first input byte picks a route (the stateless validators and play
 * functions of every game, POST /validate, POST /games, POST /games/import
 * as JSON or text), the rest is the body. Everything runs through
 * api_handle() exactly as the front ends call it, against a real SQLite
 * store in a temp file: the router, JSON limits, every game's decoder,
 * checker, autograder functions, bots and the store. Any crash, leak or UB
 * (ASan+UBSan) is a finding. `make fuzz` runs it; `make test` runs a short
 * seeded smoke.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "store.h"

static api_config cfg;

static const struct { const char *path, *ctype; } ROUTES[] = {
    {"/validate", "application/json"},
    {"/games", "application/json"},
    {"/games/import", "application/json"},
    {"/games/import", "text/plain"},
    {"/validate/comp10001bo/match_build", "application/json"},
    {"/validate/comp10001bo/match_discard", "application/json"},
    {"/validate/comp10001bo/is_valid_play?variant=bonus", "application/json"},
    {"/play/comp10001bo", "application/json"},
    {"/play/comp10001bo/bonus", "application/json"},
    {"/validate/phazed/group_type", "application/json"},
    {"/validate/phazed/phase_type", "application/json"},
    {"/validate/phazed/is_valid_play", "application/json"},
    {"/validate/phazed/score", "application/json"},
    {"/play/phazed", "application/json"},
    {"/play/phazed?variant=bonus", "application/json"},
};
enum { NROUTES = sizeof ROUTES / sizeof ROUTES[0] };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
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
