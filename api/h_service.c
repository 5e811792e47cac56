/* h_service.c: /healthz, /metrics, /openapi.yaml, /rules, /rules/{game} and
 * the games' rules pages, /docs/rules/{game}.md.
 *
 * The rules pages are Markdown files of the repository's docs/ (installed
 * with the binary, --docs): a deployed server has no repository beside it,
 * so /rules/{game} links the page on the server itself. Only the page of a
 * registered game is served; the name is looked up in the registry, never
 * used as a path, so no other file of --docs can be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "nchan.h"
#include "version.h"
#include "yaml_json.h"

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <pthread.h>

/* The store answered at this time (ms, CLOCK_MONOTONIC) with a schema this
 * build reads: /healthz asks it again at most once a second, so a load
 * balancer polling hard measures the server, not a store round trip per
 * probe. A failure is never kept. */
static _Atomic long long g_store_ok_ms = -1000000;
/* ... and what it said then of its room: its writes fail (a full disk,
 * store_sqlite.c), it takes no new game (store_takes_games). */
static _Atomic int g_writes_failing, g_games_refused;

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 503 when the store does not answer, or records a schema newer than this
 * build's (a newer release migrated it: this process is the old one, and
 * a balancer should take it out; docs/operations.md, upgrading). A store whose writes
 * fail, or that takes no new game, answers 200 and says so ("writes":
 * "failing", "new_games": "refused"): reads are still served, and every
 * process on a shared store is in the same state, so a balancer that
 * took them out would only refuse the reads too (docs/operations.md). */
int h_healthz(const api_config *cfg, const http_req *req, const route_match *m,
              json_t *body, http_res *res)
{
    (void)m;
    (void)body;
    long long now = mono_ms();
    if (now - g_store_ok_ms >= 1000) {
        game_err e = {0};
        int v = cfg->store->vt->schema(cfg->store);
        if (v < 0)
            err_set(&e, ERR_STORE, NULL, "the %s store does not answer", cfg->store->vt->kind);
        else if (v > STORE_SCHEMA_VERSION)
            err_set(&e, ERR_STORE, NULL,
                    "the %s store has schema %d, newer than this build's (%d): a newer release "
                    "migrated it; stop this process and run the new release (docs/operations.md, upgrading)",
                    cfg->store->vt->kind, v, (int)STORE_SCHEMA_VERSION);
        if (e.code) {
            http_res_problem(res, req, ERR_STORE, &e, NULL);
            goto done;
        }
        store_room r;
        char why[8];
        g_writes_failing = cfg->store->vt->room && cfg->store->vt->room(cfg->store, &r) == 0 &&
                           r.failing;
        g_games_refused = store_takes_games(cfg->store, why, sizeof why) != 0;
        g_store_ok_ms = now;
    }
    /* {"status":"ok","store":"<kind>","writes":"ok|failing","new_games":
     * "ok|refused","version":"<VERSION>","commit":"<commit>"}: a constant
     * answer, written as bytes (the store kinds, the release and the commit
     * are plain ASCII words, each cut to 48 bytes) */
    const char *parts[] = {"{\"status\":\"ok\",\"store\":\"", cfg->store->vt->kind,
                           g_writes_failing ? "\",\"writes\":\"failing" : "\",\"writes\":\"ok",
                           g_games_refused ? "\",\"new_games\":\"refused" : "\",\"new_games\":\"ok",
                           "\",\"version\":\"", croupier_version, "\",\"commit\":\"", croupier_commit,
                           "\"}"};
    enum { NPARTS = sizeof parts / sizeof *parts };
    char text[NPARTS * 48];
    size_t n = 0;
    for (size_t i = 0; i < NPARTS; i++) {
        size_t k = strlen(parts[i]);
        k = k < 48 ? k : 48;
        memcpy(text + n, parts[i], k);
        n += k;
    }
    http_res_raw(res, 200, "application/json; charset=utf-8", text, n);
done:
    return res->status;
}

/* The store's room (store_room) as Prometheus lines into buf: their length. */
static size_t room_metrics(store *st, char *buf, size_t n)
{
    store_room r;
    if (!st->vt->room || st->vt->room(st, &r))
        return 0;
    char why[8];
    int k = snprintf(buf, n,
                     "# HELP croupier_store_bytes The store's size (SQLite: the database file and its"
                     " WAL; PostgreSQL: pg_database_size, looked at every 30 s), -1 unknown.\n"
                     "# TYPE croupier_store_bytes gauge\n"
                     "croupier_store_bytes %lld\n"
                     "# HELP croupier_store_free_bytes Free space on the SQLite file's filesystem,"
                     " -1 unknown; of it, what the WAL may still grow into.\n"
                     "# TYPE croupier_store_free_bytes gauge\n"
                     "croupier_store_free_bytes %lld\n"
                     "croupier_store_free_bytes{for=\"wal\"} %lld\n"
                     "# HELP croupier_store_writes_failing 1 while writes fail for a full disk or an"
                     " I/O error (each is refused with a 503), else 0.\n"
                     "# TYPE croupier_store_writes_failing gauge\n"
                     "croupier_store_writes_failing %d\n"
                     "# HELP croupier_store_write_failures_total Writes that failed or were refused"
                     " for a full disk or an I/O error.\n"
                     "# TYPE croupier_store_write_failures_total counter\n"
                     "croupier_store_write_failures_total %ld\n"
                     "# HELP croupier_store_new_games_refused 1 while new games are refused (the"
                     " store past --store-max-bytes, its disk under --store-min-free, or its"
                     " writes failing), else 0.\n"
                     "# TYPE croupier_store_new_games_refused gauge\n"
                     "croupier_store_new_games_refused %d\n",
                     r.bytes, r.free_bytes, r.reserve, r.failing != 0, r.failures,
                     store_takes_games(st, why, sizeof why) != 0);
    return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n ? n - 1 : 0;
}

int h_metrics(const api_config *cfg, const http_req *req, const route_match *m,
              json_t *body, http_res *res)
{
    (void)req;
    (void)m;
    (void)body;
    size_t len = 0, more = 0;
    char *text = metrics_render(&len);
    enum { MORE_MAX = 16384 }; /* the store's, its room's and nchan's: 3.5 KB with SQLite */
    char *all = text ? realloc(text, len + MORE_MAX) : NULL;
    if (all) {
        char *tail = all + len;
        if (cfg->store->vt->metrics) /* the store's own counters after the server's */
            more = cfg->store->vt->metrics(cfg->store, tail, MORE_MAX);
        if (more < MORE_MAX) /* and its room */
            more += room_metrics(cfg->store, tail + more, MORE_MAX - more);
        if (more < MORE_MAX) /* the nchan publisher's, when there is one */
            more += nchan_metrics(tail + more, MORE_MAX - more);
        len += more;
        text = NULL;
    }
    http_res_raw(res, 200, "text/plain; version=0.0.4; charset=utf-8", all ? all : "",
                 all ? len : 0);
    free(all ? all : text);
    return res->status;
}

/* Read a whole small file (malloc'd). NULL if missing or over max bytes. */
static char *slurp(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    fclose(f);
    if (!buf || n > max) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int h_openapi(const api_config *cfg, const http_req *req, const route_match *m,
              json_t *body, http_res *res)
{
    (void)m;
    (void)body;
    size_t len = 0;
    char *text = slurp(cfg->openapi_path, 4u << 20, &len);
    if (!text) {
        game_err e = {0};
        err_set(&e, ERR_NOT_FOUND, NULL, "the OpenAPI document is not installed");
        http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
        goto done;
    }
    http_res_raw(res, 200, "application/yaml; charset=utf-8", text, len);
done:
    free(text);
    return res->status;
}

int h_openapi_json(const api_config *cfg, const http_req *req,
                   const route_match *m, json_t *body, http_res *res)
{
    (void)m;
    (void)body;
    size_t len = 0;
    char *text = yaml_file_to_json(cfg->openapi_path, &len, NULL, 0);
    if (!text) {
        game_err e = {0};
        err_set(&e, ERR_NOT_FOUND, NULL, "the OpenAPI document is not installed");
        http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
        goto done;
    }
    http_res_raw(res, 200, "application/json; charset=utf-8", text, len);
done:
    free(text);
    return res->status;
}

int h_rules(const api_config *cfg, const http_req *req, const route_match *m,
            json_t *body, http_res *res)
{
    (void)cfg;
    (void)req;
    (void)m;
    (void)body;
    json_t *games = json_array();
    for (const game_ops *const *g = game_registry; *g; g++)
        json_array_append_new(games, game_catalogue_json(*g));
    http_res_json(res, 200, json_pack("{s:o}", "games", games));
    return res->status;
}

int h_rules_game(const api_config *cfg, const http_req *req,
                 const route_match *m, json_t *body, http_res *res)
{
    (void)cfg;
    (void)body;
    const game_ops *ops = game_find(m->params[0]);
    if (!ops) {
        game_err e = {0};
        err_set(&e, ERR_NOT_FOUND, NULL, "unknown game type '%s' (see GET /rules)",
                m->params[0]);
        http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
        goto done;
    }
    http_res_json(res, 200, game_rules_json(ops));
done:
    return res->status;
}

/* The rules page's Markdown rendered as a page of its own (cmark-gfm, with
 * the GitHub tables, strikethrough and autolinks of the repository's
 * pages): cmark's safe mode, so raw HTML in the Markdown is left out and a
 * link may not be javascript:; the page shell links its own style and
 * www/rules-page.js (card pictures where the rules show cards), and is
 * served under the page's CSP. */
static pthread_once_t g_cmark_once = PTHREAD_ONCE_INIT;
static void cmark_init(void) { cmark_gfm_core_extensions_ensure_registered(); }

/* The line of a rules page after which its Markdown is for programs. */
#define RULES_PLAYERS_END "<!-- The players' page ends here"

static char *render_rules_html(const game_ops *ops, const char *md, size_t len, int cut, size_t *out_len)
{
    pthread_once(&g_cmark_once, cmark_init);
    const int opts = CMARK_OPT_DEFAULT | CMARK_OPT_SAFE | CMARK_OPT_GITHUB_PRE_LANG;
    cmark_parser *p = cmark_parser_new(opts);
    static const char *const EXT[] = {"table", "strikethrough", "autolink"};
    for (size_t i = 0; i < sizeof EXT / sizeof EXT[0]; i++) {
        cmark_syntax_extension *x = cmark_find_syntax_extension(EXT[i]);
        if (x)
            cmark_parser_attach_syntax_extension(p, x);
    }
    cmark_parser_feed(p, md, len);
    cmark_node *doc = cmark_parser_finish(p);
    char *body = doc ? cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p)) : NULL;
    if (doc)
        cmark_node_free(doc);
    cmark_parser_free(p);
    if (!body)
        return NULL;
    static const char HEAD[] =
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"color-scheme\" content=\"light dark\">\n<title>Rules: %s</title>\n"
        "<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"/rules-page.css\">\n"
        "<script type=\"module\" src=\"/rules-page.js\"></script>\n</head>\n"
        "<body data-game=\"%s\">\n<main class=\"rules-page\" data-testid=\"rules-page-body\">\n";
    static const char TAIL[] = "</main>\n</body>\n</html>\n";
    static const char MORE[] = "<p class=\"rules-more\" data-testid=\"rules-page-more\">The notation, "
                               "the plays as programs send them and the rulings: <a href=\"%s.md\">the "
                               "rules in full</a>.</p>\n";
    size_t n = strlen(HEAD) + strlen(ops->title) + 2 * strlen(ops->name) + strlen(body) + sizeof TAIL + sizeof MORE;
    char *out = malloc(n);
    if (out) {
        int k = snprintf(out, n, HEAD, ops->title, ops->name);
        k += snprintf(out + k, n - (size_t)k, "%s", body);
        if (cut)
            k += snprintf(out + k, n - (size_t)k, MORE, ops->name);
        k += snprintf(out + k, n - (size_t)k, "%s", TAIL);
        *out_len = (size_t)k;
    }
    free(body);
    return out;
}

/* GET /docs/rules/{game}.md: the game's rules page, <--docs>/rules/<game>.md,
 * as Markdown; {game}.html: the same page rendered (a 404 naming --docs
 * when it is not installed). */
int h_rules_page(const api_config *cfg, const http_req *req, const route_match *m,
                 json_t *body, http_res *res)
{
    (void)body;
    game_err e = {0};
    char *text = NULL, *html = NULL; /* the page, and the page rendered */
    const char *page = m->params[0];
    size_t n = strlen(page);
    char name[sizeof m->params[0]] = "";
    int as_html = n > 5 && strcmp(page + n - 5, ".html") == 0;
    if (as_html)
        memcpy(name, page, n - 5);
    else if (n > 3 && strcmp(page + n - 3, ".md") == 0)
        memcpy(name, page, n - 3);
    const game_ops *ops = name[0] ? game_find(name) : NULL;
    if (!ops) {
        err_set(&e, ERR_NOT_FOUND, NULL, "no rules page '%s': the pages are <game>.md, and "
                "<game>.html rendered, for the games of GET /rules", page);
        http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
        goto done;
    }
    char path[1024];
    size_t len = 0;
    if (cfg->docs_dir &&
        (size_t)snprintf(path, sizeof path, "%s/rules/%s.md", cfg->docs_dir, ops->name) < sizeof path)
        text = slurp(path, 1u << 20, &len);
    if (!text) {
        err_set(&e, ERR_NOT_FOUND, NULL, "the rules page of %s is not installed on this "
                "server (--docs DIR serves DIR/rules/%s.md)", ops->name, ops->name);
        http_res_problem(res, req, ERR_NOT_FOUND, &e, NULL);
        goto done;
    }
    if (as_html) {
        size_t hlen = 0;
        /* the players' page: the Markdown up to its mark (the notation,
         * the game over HTTP and the rulings after it are for programs) */
        const char *cut = memmem(text, len, RULES_PLAYERS_END, sizeof RULES_PLAYERS_END - 1);
        html = render_rules_html(ops, text, cut ? (size_t)(cut - text) : len, cut != NULL, &hlen);
        if (!html) {
            err_set(&e, ERR_INTERNAL, NULL, "the rules page of %s could not be rendered", ops->name);
            http_res_problem(res, req, ERR_INTERNAL, &e, NULL);
            goto done;
        }
        http_res_raw(res, 200, "text/html; charset=utf-8", html, hlen);
        http_res_page_csp(res);
    } else {
        http_res_raw(res, 200, "text/markdown; charset=utf-8", text, len);
    }
    http_res_header(res, "Cache-Control", "no-cache");
done:
    free(text);
    free(html);
    return res->status;
}
