/* test_stack.c: the engine runs on a small, bounded stack.
 *
 * The embedded server runs every request on the civetweb thread that
 * accepted it (Debian's civetweb gives its threads 100 KB stacks, fixed at
 * build time), so no game may need more. Each test here takes one game of
 * the registry, generically (nothing game-specific), and on a thread with a
 * STACK_KIB stack runs: rules, init of every variant at the default and the
 * largest table, every bot strategy to the end of the game, and at every
 * turn legal, hint and the views, and every few turns check and apply of a
 * legal play, encode/decode, conceal, every export format and import_text of
 * what it wrote; at the end history and events. The stack is a mapping of
 * our own with a PROT_NONE guard page below it: an overflow is a SIGSEGV,
 * reported (with the operation that overflowed) on an alternate signal
 * stack. The high-water mark of each game is printed.
 *
 * A second walk goes through api_handle() as the server calls it, on the
 * same small stack, against a real SQLite store: per game, a table of bots
 * played to the end by POST /games, then a human seat's legal, hint, plays
 * (the bots answering), views, events, history, every export and its
 * import, POST /validate and GET /cases of every suite of the game (the
 * autograder kit's generators): the router, the handlers, jansson and
 * SQLite on top of the engine.
 *
 * The proof is the release build (64 KiB). Under ASan+UBSan frames carry
 * redzones and instrumentation, so that build runs the same walk on a
 * larger stack: it checks memory errors, not the size.
 */
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "game.h"
#include "http.h"
#include "store.h"

#if defined(__SANITIZE_ADDRESS__)
enum { STACK_KIB = 1024 };
#else
enum { STACK_KIB = 64 };
#endif
enum { MAX_STEPS = 4000, EVERY = 5, SEEDS = 3 };

typedef struct job {
    const game_ops *ops;
    int api; /* 1: the walk through api_handle() */
    char fail[600];
    size_t used;  /* stack high-water mark, bytes */
    int games, plays, exports;
} job;

/* What the small thread is doing, for the overflow report. */
static char g_doing[512];
static char *g_altstack;

static void doing(const game_ops *ops, const char *what, const char *arg)
{
    snprintf(g_doing, sizeof g_doing, "%s: %s%s%s", ops->name, what, arg ? " " : "",
             arg ? arg : "");
}

static void on_segv(int sig)
{
    (void)sig;
    char msg[700];
    int n = snprintf(msg, sizeof msg,
                     "[  FAILED  ] stack overflow (or crash) on a %d KiB stack while %s\n",
                     (int)STACK_KIB, g_doing);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        _exit(3);
    _exit(2);
}

#define FAIL(...)                                                                  \
    do {                                                                           \
        snprintf(j->fail, sizeof j->fail, __VA_ARGS__);                            \
        goto out;                                                                  \
    } while (0)

static int nbots(const game_ops *ops)
{
    int n = 0;
    while (ops->bots && ops->bots[n].name)
        n++;
    return n;
}

/* Exports in every format, each re-imported by import_text when the game has it. */
static int export_import(job *j, const void *st, void *scratch)
{
    const game_ops *ops = j->ops;
    for (int f = 0; ops->export_formats && ops->export_formats[f]; f++) {
        const char *fmt = ops->export_formats[f];
        char *out = NULL;
        size_t len = 0;
        const char *mt = NULL;
        game_err e = {0};
        doing(ops, "export_as", fmt);
        if (!ops->export_as || ops->export_as(st, fmt, &out, &len, &mt, &e)) {
            free(out); /* a format may refuse some positions (a save mid-turn) */
            continue;
        }
        j->exports++;
        if (ops->import_text) {
            json_t *seats = NULL, *warnings = NULL;
            memset(scratch, 0, ops->state_size);
            doing(ops, "import_text", fmt);
            int rc = ops->import_text(scratch, out, len, &seats, &warnings, &e);
            json_decref(seats);
            json_decref(warnings);
            if (rc && rc != ERR_NOT_FOUND) {
                snprintf(j->fail, sizeof j->fail, "%s: import_text of its own %s export: %s",
                         ops->name, fmt, e.detail);
                free(out);
                return -1;
            }
        }
        free(out);
    }
    return 0;
}

static void walk(job *j)
{
    const game_ops *ops = j->ops;
    size_t sz = ops->state_size;
    void *st = calloc(1, sz), *cp = calloc(1, sz), *scratch = calloc(1, sz);
    int nb = nbots(ops);
    if (!st || !cp || !scratch)
        FAIL("out of memory");
    if (nb == 0)
        FAIL("%s has no bots", ops->name);
    doing(ops, "rules", NULL);
    json_decref(game_rules_json(ops));

    /* the usual table, the smallest and the largest */
    int first = ops->default_players ? ops->default_players : ops->min_players;
    int sizes[3] = {first, ops->min_players, ops->max_players};
    for (int vi = 0; ops->variants[vi]; vi++) {
        for (int pass = 0; pass < 3 * SEEDS; pass++) {
            int np = sizes[pass % 3];
            if ((pass % 3 == 1 && np == first) ||
                (pass % 3 == 2 && (np == first || np == ops->min_players)))
                continue;
            const char *variant = ops->variants[vi];
            game_err e = {0};
            memset(st, 0, sz);
            doing(ops, "init", variant);
            if (game_init(ops, st, variant, np, 1000 + (uint64_t)vi * 10 + (uint64_t)pass, NULL, &e))
                FAIL("%s: init %s with %d players: %s", ops->name, variant, np, e.detail);
            j->games++;
            game_status gs;
            int step;
            for (step = 0; step < MAX_STEPS; step++) {
                ops->status(st, &gs);
                if (gs.over)
                    break;
                int seat = gs.to_move;
                doing(ops, "view", variant);
                json_decref(ops->view(st, seat));
                json_decref(ops->view(st, SEAT_SPECTATOR));
                json_decref(ops->view(st, SEAT_OBSERVER));
                json_decref(ops->view(st, SEAT_ADMIN));
                doing(ops, "legal", variant);
                json_t *legal = ops->legal(st, seat);
                doing(ops, "hint", variant);
                json_t *hint = NULL;
                if (game_hint(ops, st, seat, &hint, &e) == 0)
                    json_decref(hint);
                if (step % EVERY == 0) {
                    doing(ops, "encode/decode", variant);
                    json_t *blob = ops->encode(st);
                    memset(scratch, 0, sz);
                    int rc = ops->decode(scratch, blob, &e);
                    json_decref(blob);
                    if (rc) {
                        json_decref(legal);
                        FAIL("%s: decode of its own encode: %s at %s", ops->name, e.detail,
                             e.pointer);
                    }
                    if (json_array_size(legal) > 0) {
                        json_t *p = json_array_get(legal, json_array_size(legal) - 1);
                        game_verdict v;
                        doing(ops, "check", variant);
                        game_judge(ops, st, seat, p, NULL, &v, &e);
                        memcpy(cp, st, sz);
                        json_t *rec = NULL;
                        doing(ops, "apply", variant);
                        if (game_apply(ops, cp, seat, p, &rec, &e) == 0)
                            json_decref(rec);
                    }
                    if (ops->conceal) {
                        memcpy(cp, st, sz);
                        doing(ops, "conceal", variant);
                        ops->conceal(cp, 0, 42);
                    }
                    if (export_import(j, st, scratch)) {
                        json_decref(legal);
                        goto out;
                    }
                }
                json_decref(legal);
                json_t *rec = NULL;
                doing(ops, "autoplay", variant);
                if (game_autoplay(ops, st, &rec)) {
                    json_decref(rec);
                    j->plays++;
                    continue;
                }
                const char *bot = ops->bots[(seat + vi + pass) % nb].name;
                char expl[512];
                doing(ops, "bot", bot);
                if (game_bot_play(ops, st, bot, &rec, expl, sizeof expl, &e))
                    FAIL("%s: bot %s failed: %s", ops->name, bot, e.detail);
                json_decref(rec);
                j->plays++;
            }
            if (step == MAX_STEPS)
                FAIL("%s %s: not over after %d plays", ops->name, variant, MAX_STEPS);
            doing(ops, "history/events", variant);
            for (int s = SEAT_OBSERVER; s < gs.nseats; s++) {
                json_decref(ops->history(st, s));
                if (ops->events)
                    json_decref(ops->events(st, s, 0));
            }
            if (export_import(j, st, scratch))
                goto out;
        }
    }
out:
    free(st);
    free(cp);
    free(scratch);
}

/* --- the same through api_handle() ----------------------------------------- */

static api_config g_cfg;

/* One request; returns the status and *out the parsed JSON body (or NULL). */
static int call(const char *method, const char *path, const char *query, const char *token,
                const char *ctype, const char *body, json_t **out)
{
    char auth[300];
    http_header h[3];
    int nh = 0;
    if (token) {
        snprintf(auth, sizeof auth, "Bearer %s", token);
        h[nh].name = "Authorization";
        h[nh++].value = auth;
    }
    if (body) {
        h[nh].name = "Content-Type";
        h[nh++].value = ctype ? ctype : "application/json";
    }
    if (body && ctype && strncmp(ctype, "text/plain", 10) == 0) {
        h[nh].name = "X-Croupier-Import"; /* the router asks it of a text import */
        h[nh++].value = "text";
    }
    http_req req = {.method = method, .path = path, .query = query, .headers = h,
                    .nheaders = nh, .body = body, .body_len = body ? strlen(body) : 0,
                    .remote_addr = "127.0.0.1"};
    http_res res;
    api_handle(&g_cfg, &req, &res);
    if (out)
        *out = res.body ? json_loadb(res.body, res.body_len, 0, NULL) : NULL;
    int status = res.status;
    http_res_free(&res);
    return status;
}

static char *dumps(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(j);
    return s;
}

static json_t *players(const game_ops *ops, int human)
{
    int np = ops->default_players ? ops->default_players : ops->min_players;
    json_t *a = json_array(); /* the strongest bot in every bot seat: any game seats it so */
    for (int i = 0; i < np; i++)
        json_array_append_new(a, i == 0 && human ? json_pack("{s:s}", "name", "Ann")
                                                 : json_pack("{s:s}", "bot", ops->bots[0].name));
    return a;
}

#define EXPECT(st, want, what)                                                             \
    do {                                                                                   \
        int got_ = (st);                                                                   \
        if (got_ != (want))                                                                \
            FAIL("%s: %s answered %d, not %d", ops->name, what, got_, want);               \
    } while (0)

static void api_walk(job *j)
{
    const game_ops *ops = j->ops;
    json_t *r = NULL, *doc = NULL;
    char *body = NULL, path[256], token[256] = "", id[128] = "";
    doing(ops, "POST /games (bots only)", NULL);
    body = dumps(json_pack("{s:s,s:i,s:o}", "game", ops->name, "seed", 7, "players",
                           players(ops, 0)));
    EXPECT(call("POST", "/games", NULL, NULL, NULL, body, NULL), 201, "POST /games (bots)");
    free(body);
    j->games++;
    doing(ops, "POST /games (a human and bots)", NULL);
    body = dumps(json_pack("{s:s,s:i,s:o}", "game", ops->name, "seed", 8, "players",
                           players(ops, 1)));
    EXPECT(call("POST", "/games", NULL, NULL, NULL, body, &r), 201, "POST /games");
    free(body);
    body = NULL;
    j->games++;
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(r, "id")));
    const char *t = json_string_value(
        json_object_get(json_array_get(json_object_get(r, "seats"), 0), "token"));
    snprintf(token, sizeof token, "%s", t ? t : "");
    json_decref(r);
    r = NULL;
    for (int turn = 0; turn < 200; turn++) {
        snprintf(path, sizeof path, "/games/%s/legal", id);
        doing(ops, "GET", path);
        EXPECT(call("GET", path, NULL, token, NULL, NULL, &r), 200, "GET /legal");
        json_t *plays = json_object_get(r, "plays");
        if (json_array_size(plays) == 0)
            break;
        snprintf(path, sizeof path, "/games/%s/hint", id);
        doing(ops, "GET", path);
        EXPECT(call("GET", path, NULL, token, NULL, NULL, NULL), 200, "GET /hint");
        snprintf(path, sizeof path, "/games/%s/plays", id);
        body = dumps(json_pack("{s:O}", "play", json_array_get(plays, json_array_size(plays) - 1)));
        json_decref(r);
        r = NULL;
        doing(ops, "POST", path);
        EXPECT(call("POST", path, NULL, token, NULL, body, NULL), 200, "POST /plays");
        free(body);
        body = NULL;
        j->plays++;
    }
    json_decref(r);
    r = NULL;
    static const char *const reads[] = {"", "/events", "/plays"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/games/%s%s", id, reads[i]);
        doing(ops, "GET", path);
        EXPECT(call("GET", path, NULL, token, NULL, NULL, NULL), 200, path);
        EXPECT(call("GET", path, NULL, NULL, NULL, NULL, NULL), 200, path);
    }
    /* exports (admin: any game, any time); JSON and text ones imported */
    snprintf(path, sizeof path, "/games/%s/export", id);
    doing(ops, "export json", NULL);
    EXPECT(call("GET", path, "format=json", g_cfg.admin_token, NULL, NULL, &doc), 200,
           "GET /export?format=json");
    body = json_dumps(doc, JSON_COMPACT);
    doing(ops, "import json", NULL);
    EXPECT(call("POST", "/games/import", NULL, NULL, NULL, body, NULL), 201, "import json");
    free(body);
    body = NULL;
    j->exports++;
    for (int f = 0; ops->export_formats && ops->export_formats[f]; f++) {
        char q[96];
        snprintf(q, sizeof q, "format=%s", ops->export_formats[f]);
        http_header h[1] = {{"Authorization", NULL}};
        char auth[300];
        snprintf(auth, sizeof auth, "Bearer %s", g_cfg.admin_token);
        h[0].value = auth;
        http_req req = {.method = "GET", .path = path, .query = q, .headers = h, .nheaders = 1};
        http_res res;
        doing(ops, "export", ops->export_formats[f]);
        api_handle(&g_cfg, &req, &res);
        if (res.status == 200 && res.body && strncmp(res.content_type, "text/plain", 10) == 0) {
            char *text = strndup(res.body, res.body_len);
            doing(ops, "import", ops->export_formats[f]);
            int st = call("POST", "/games/import", NULL, NULL, "text/plain", text, NULL);
            free(text);
            if (st != 201) {
                http_res_free(&res);
                FAIL("%s: import of its own %s export answered %d", ops->name,
                     ops->export_formats[f], st);
            }
            j->exports++;
        }
        http_res_free(&res);
    }
    /* POST /validate: the exported state and a legal play of its seat to move */
    doing(ops, "POST /validate", NULL);
    {
        json_t *state = json_object_get(doc, "state");
        void *st = calloc(1, ops->state_size);
        game_err e = {0};
        if (!st || ops->decode(st, state, &e) != 0) {
            free(st);
            FAIL("%s: the exported state does not decode: %s", ops->name, e.detail);
        }
        {
            game_status gs;
            ops->status(st, &gs);
            json_t *legal = gs.over ? json_array() : ops->legal(st, gs.to_move);
            if (json_array_size(legal)) {
                body = dumps(json_pack("{s:s,s:O,s:O,s:i}", "game", ops->name, "state", state,
                                       "play", json_array_get(legal, 0), "seat", gs.to_move));
                int rc = call("POST", "/validate", NULL, NULL, NULL, body, NULL);
                free(body);
                body = NULL;
                if (rc != 200) {
                    json_decref(legal);
                    free(st);
                    FAIL("%s: POST /validate answered %d", ops->name, rc);
                }
            }
            json_decref(legal);
        }
        free(st);
    }
    /* GET /cases: every suite of the game, each clause once, in each format */
    for (int k = 0; k < ops->nsuites; k++) {
        static const char *const formats[] = {"jsonl", "json", "pytest"};
        const game_suite *su = &ops->suites[k];
        char where[160], query[160];
        snprintf(where, sizeof where, "/cases/%s/%s", ops->name, su->fn);
        snprintf(query, sizeof query, "variant=%s&n=%d&seed=%d&format=%s", su->variant, su->nclauses, k,
                 formats[k % 3]);
        doing(ops, "GET /cases", su->course_name);
        int rc = call("GET", where, query, NULL, NULL, NULL, NULL);
        if (rc != 200)
            FAIL("%s: GET %s?%s answered %d", ops->name, where, query, rc);
    }
out:
    free(body);
    json_decref(r);
    json_decref(doc);
}

static void *trampoline(void *arg)
{
    stack_t ss = {.ss_sp = g_altstack, .ss_size = 64 * 1024, .ss_flags = 0}, old;
    sigaltstack(&ss, &old); /* given back below (ASan unmaps its own at exit) */
    /* ours, not cmocka's: an overflow must be reported from the alternate stack */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    job *j = arg;
    if (j->api)
        api_walk(j);
    else
        walk(j);
    sigaltstack(&old, NULL);
    return NULL;
}

/* Run walk(j) on a thread whose stack is STACK_KIB, with a guard page. */
static void run_small(job *j)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = (size_t)STACK_KIB * 1024;
    unsigned char *mem = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    assert_true(mem != MAP_FAILED);
    assert_int_equal(mprotect(mem, page, PROT_NONE), 0);
    memset(mem + page, 0xA5, size);
    pthread_attr_t a;
    pthread_attr_init(&a);
    assert_int_equal(pthread_attr_setstack(&a, mem + page, size), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, &a, trampoline, j), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&a);
    size_t untouched = 0;
    while (untouched < size && mem[page + untouched] == 0xA5)
        untouched++;
    j->used = size - untouched;
    munmap(mem, size + page);
}

static void test_game(void **state)
{
    job j;
    memset(&j, 0, sizeof j);
    j.ops = *state;
    run_small(&j);
    printf("  %-12s %d games, %d plays, %d exports: stack high-water %zu bytes of %d KiB\n",
           j.ops->name, j.games, j.plays, j.exports, j.used, (int)STACK_KIB);
    if (j.fail[0])
        fail_msg("%s", j.fail);
    assert_true(j.games > 0);
    if (j.ops->export_formats && j.ops->export_formats[0])
        assert_true(j.exports > 0);
    assert_true(j.used < (size_t)STACK_KIB * 1024);
}

static void test_api(void **state)
{
    job j;
    memset(&j, 0, sizeof j);
    j.ops = *state;
    j.api = 1;
    run_small(&j);
    printf("  %-12s api_handle: %d games, %d human plays, %d imports: stack high-water %zu bytes of %d KiB\n",
           j.ops->name, j.games, j.plays, j.exports, j.used, (int)STACK_KIB);
    if (j.fail[0])
        fail_msg("%s", j.fail);
    assert_true(j.games > 0);
    if (j.ops->export_formats && j.ops->export_formats[0])
        assert_true(j.exports > 0);
    assert_true(j.used < (size_t)STACK_KIB * 1024);
}

int main(void)
{
    static struct CMUnitTest tests[32];
    static char names[32][128];
    int n = 0;
    g_altstack = malloc(64 * 1024);
    for (const game_ops *const *g = game_registry; *g && n < 32; g++, n++) {
        snprintf(names[n], sizeof names[n], "%s on a %d KiB stack", (*g)->name, (int)STACK_KIB);
        tests[n] = (struct CMUnitTest){names[n], test_game, NULL, NULL, (void *)*g};
    }
    for (const game_ops *const *g = game_registry; *g && n < 32; g++, n++) {
        snprintf(names[n], sizeof names[n], "%s through api_handle on a %d KiB stack",
                 (*g)->name, (int)STACK_KIB);
        tests[n] = (struct CMUnitTest){names[n], test_api, NULL, NULL, (void *)*g};
    }
    char dir[] = "/tmp/croupier-stack-XXXXXX", url[96], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(url, sizeof url, "sqlite:%s/t.db", dir);
    store *st = NULL;
    if (store_open(&st, url, err, sizeof err)) {
        fprintf(stderr, "test_stack: %s\n", err);
        return 1;
    }
    g_cfg.store = st;
    g_cfg.body_limit = 1 << 20;
    g_cfg.admin_token = "stack-test-admin-token-0123456789";
    int rc = _cmocka_run_group_tests("stack", tests, (size_t)n, NULL, NULL);
    store_close(st);
    char rm[160];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0)
        fprintf(stderr, "test_stack: could not remove %s\n", dir);
    free(g_altstack);
    return rc;
}
