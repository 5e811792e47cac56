/* tournament.c: `croupier tournament`: a series of games between named
 * strategies for any game of the registry, with the seats rotated so every
 * strategy sits at every seat equally often, and a results table (wins with
 * Wilson intervals, average scores, Bradley-Terry ratings on the Elo scale).
 *
 * Schedule (docs/tournaments.md): the lineup L[0..P-1] (--bots, repeated to
 * fill P seats) is played in blocks of R games, R = P rotations (R = 1 when
 * one strategy fills every seat: its rotations would be one same game).
 * Game g is rotation r = g mod R of block b = g div R: lineup entry j sits
 * at seat (j + r) mod P, and every game of block b is dealt from seed S + b,
 * so each deal is played once from every seat (once in all when R = 1).
 * Games run on --jobs threads (worker w plays games w, w + J, w + 2J, ...),
 * each into its own slot of a results array that is then summed in game
 * order: the output does not depend on --jobs.
 *
 * Remote players (cli/remote.c): a lineup entry that is an http:// URL is
 * asked for each of its decisions by a POST of the seat's function
 * arguments (ops->fn_args) or of its view and legal plays; a late, failed
 * or illegal answer is counted against it and the move is played by the
 * --fallback bot instead. Each game keeps its own tallies, summed in game
 * order like the rest, so the report does not depend on --jobs either.
 */
#include <civetweb.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "game.h"

enum { MAX_GAMES = 1000000, MAX_JOBS = 256, MAX_ENDINGS = 16, MAX_STEPS = 1000000 };
/* remote players: the misbehaviours counted, and examples kept per game and
 * reported per player */
enum { BAD_LATE, BAD_INVALID, BAD_ERROR, NBAD, MAX_EXAMPLES = 5 };
static const char *const BAD_NAMES[NBAD] = {"late", "invalid", "error"};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier tournament --game G --bots A,B[,C...] [options]\n"
        "Play a series of games between named strategies, rotating the seats so\n"
        "each strategy sits at every seat equally often, and rank them.\n\n"
        "  --game G            game id (see `croupier games`)\n"
        "  --variant V         variant (default: the game's first)\n"
        "  --options JSON      game options, as in POST /games\n"
        "  --bots A,B,...      the lineup: one strategy per seat, repeated in order to\n"
        "                      fill the table (planner,standard,standard,standard is\n"
        "                      one planner against three standard)\n"
        "  --players P         seats (default: the game's usual table, or more if\n"
        "                      --bots names more)\n"
        "  --games N           games (default 100), rounded up to whole blocks of P:\n"
        "                      block b plays the lineup rotated to each of the P\n"
        "                      positions, every rotation dealt from seed S + b (one\n"
        "                      strategy in every seat: blocks of 1, each deal once)\n"
        "  --seed S            base seed (default 1)\n"
        "  --jobs J            worker threads (default: the online CPUs); the results\n"
        "                      do not depend on J\n"
        "  --remote-timeout MS a remote player's time per move (default 1000)\n"
        "  --fallback NAME     the bot that plays a remote player's move when its\n"
        "                      answer is late, failed or illegal (default: the\n"
        "                      game's first bot)\n"
        "  --json              one JSON object on stdout instead of the table\n"
        "  --quiet             no progress bar\n"
        "  -h, --help          this text\n\n"
        "Ratings: Bradley-Terry maximum likelihood on the pairwise results of each\n"
        "game (the winner beats every other seat; no winner: all draw), on the Elo\n"
        "scale, mean 1500. Cooperative games report the team score instead.\n"
        "A strategy that is an http:// URL is a remote player: each of its moves is\n"
        "a POST of the seat's function arguments (docs/tournaments.md).\n"
        "Exit status: 0 done, 1 a bot failed, 2 bad arguments.\n");
}

/* One finished game. */
typedef struct result {
    int winner; /* seat, -1 none */
    int failed; /* 1: a bot failed or the game did not end */
    int turns, rounds;
    int max_score, lower_is_better;
    const char *ending; /* static string from game_status */
} result;

/* A remote player's misbehaviour. */
typedef struct incident {
    int seat, kind; /* BAD_* */
    char reason[200];
} incident;

/* The remote moves of one game: per seat, and its first few incidents
 * (inc: MAX_EXAMPLES of them, allocated at the first). */
typedef struct rstat {
    int moves[GAME_MAX_SEATS];
    int bad[GAME_MAX_SEATS][NBAD];
    int ninc;
    incident *inc;
} rstat;

typedef struct ctx {
    const game_ops *ops;
    const char *variant;
    const json_t *options;
    int players;
    int rot; /* rotations per deal: players, or 1 when every seat plays the same */
    const char *lineup[GAME_MAX_SEATS];
    remote_url *url[GAME_MAX_SEATS]; /* lineup entry j is remote: its URL, else NULL */
    char names[1024];                /* --bots, split: lineup[] points into it */
    remote_url urls[GAME_MAX_SEATS]; /* what url[] points to */
    int nremote;                     /* remote entries named */
    const char *fallback;            /* the bot that replaces a remote answer */
    int timeout_ms;
    rstat *rs;                       /* games, when any player is remote */
    uint64_t seed;
    long games;
    int jobs;
    result *res;
    double *score; /* games * players */
    long done;     /* finished games, atomic */
} ctx;

typedef struct worker {
    ctx *c;
    int index;
    long failed_game; /* the first game of this worker that failed, -1 none */
    char error[640];
} worker;

static uint64_t block_seed(uint64_t base, long block)
{
    return (base + (uint64_t)block) & ((1ULL << 53) - 1);
}

/* The lineup entry at `seat` in game g: (seat - r) mod P, r = g mod R
 * (R = c->rot: P rotations, or 1 when every entry is the same player). */
static int lineup_entry(const ctx *c, long g, int seat)
{
    int r = (int)(g % c->rot);
    return ((seat - r) % c->players + c->players) % c->players;
}

static const char *seat_bot(const ctx *c, long g, int seat)
{
    return c->lineup[lineup_entry(c, g, seat)];
}

/* The name of a play function from its signature: "comp10001bo_play(...)". */
static json_t *fn_name(const game_fn *fn)
{
    return json_stringn(fn->signature, strcspn(fn->signature, "("));
}

/* One move of the remote player at `seat`: ask, apply the answer when it is
 * a legal play, else record why and let the fallback bot play. Returns
 * nonzero (with e set) only when the fallback bot fails. */
static int remote_move(ctx *c, void *st, long g, int seat, game_err *e)
{
    const game_ops *ops = c->ops;
    rstat *rs = &c->rs[g];
    const game_fn *fn = NULL;
    json_t *args = ops->fn_args ? ops->fn_args(st, seat, &fn) : NULL;
    json_t *body = json_pack("{s:s,s:s,s:o,s:i}", "game", ops->name, "variant", c->variant,
                             "function", args ? fn_name(fn) : json_null(), "seat", seat);
    if (args) {
        json_object_set_new(body, "args", args);
    } else {
        json_object_set_new(body, "view", ops->view(st, seat));
        json_object_set_new(body, "legal", ops->legal(st, seat));
    }
    json_t *play = NULL;
    char why[400];
    int kind = -1;
    rs->moves[seat]++;
    switch (remote_call(c->url[lineup_entry(c, g, seat)], body, c->timeout_ms, &play, why,
                        sizeof why)) {
    case REMOTE_OK: {
        game_err ae = {0};
        if (game_apply(ops, st, seat, play, NULL, &ae)) {
            char *txt = json_dumps(play, JSON_COMPACT | JSON_ENCODE_ANY);
            snprintf(why, sizeof why, "illegal play %.80s: %.200s", txt ? txt : "?", ae.detail);
            free(txt);
            kind = BAD_INVALID;
        }
        break;
    }
    case REMOTE_LATE: kind = BAD_LATE; break;
    case REMOTE_INVALID: kind = BAD_INVALID; break;
    default: kind = BAD_ERROR; break;
    }
    json_decref(play);
    json_decref(body);
    if (kind < 0)
        return 0;
    rs->bad[seat][kind]++;
    if (!rs->inc)
        rs->inc = calloc(MAX_EXAMPLES, sizeof *rs->inc);
    if (rs->inc && rs->ninc < MAX_EXAMPLES) {
        incident *in = &rs->inc[rs->ninc++];
        in->seat = seat;
        in->kind = kind;
        snprintf(in->reason, sizeof in->reason, "%.199s", why);
    }
    char expl[320];
    return game_bot_play(ops, st, c->fallback, NULL, expl, sizeof expl, e);
}

static void play_one(ctx *c, void *st, long g, char *err, size_t errlen)
{
    const game_ops *ops = c->ops;
    result *r = &c->res[g];
    game_err e = {0};
    uint64_t seed = block_seed(c->seed, g / c->rot);
    r->winner = -1;
    if (game_init(ops, st, c->variant, c->players, seed, c->options, &e)) {
        r->failed = 1;
        snprintf(err, errlen, "game %ld (seed %llu): %s", g,
                 (unsigned long long)seed, e.detail);
        return;
    }
    game_status gs;
    long steps = 0;
    for (;; steps++) {
        if (steps >= MAX_STEPS) {
            r->failed = 1;
            snprintf(err, errlen, "game %ld (seed %llu): not over after %d plays",
                     g, (unsigned long long)seed, MAX_STEPS);
            return;
        }
        if (game_autoplay(ops, st, NULL))
            continue;
        ops->status(st, &gs);
        if (gs.over)
            break;
        char expl[320];
        const char *bot = seat_bot(c, g, gs.to_move);
        if (c->url[lineup_entry(c, g, gs.to_move)]) {
            if (remote_move(c, st, g, gs.to_move, &e)) {
                r->failed = 1;
                snprintf(err, errlen, "game %ld (seed %llu): fallback bot %s at seat %d failed: %s",
                         g, (unsigned long long)seed, c->fallback, gs.to_move, e.detail);
                return;
            }
        } else if (game_bot_play(ops, st, bot, NULL, expl, sizeof expl, &e)) {
            r->failed = 1;
            snprintf(err, errlen, "game %ld (seed %llu): bot %s at seat %d failed: %s",
                     g, (unsigned long long)seed, bot, gs.to_move, e.detail);
            return;
        }
    }
    r->winner = gs.winner >= 0 && gs.winner < c->players ? gs.winner : -1;
    r->ending = gs.result ? gs.result : "over";
    r->turns = gs.turns;
    r->rounds = gs.rounds;
    r->max_score = gs.max_score;
    r->lower_is_better = gs.lower_is_better;
    for (int s = 0; s < c->players; s++)
        c->score[g * c->players + s] = gs.score[s];
}

static void *work(void *arg)
{
    worker *w = arg;
    ctx *c = w->c;
    void *st = malloc(c->ops->state_size);
    char err[640];
    w->failed_game = -1;
    for (long g = w->index; g < c->games; g += c->jobs) {
        if (!st) {
            c->res[g].failed = 1;
            snprintf(err, sizeof err, "out of memory");
        } else {
            play_one(c, st, g, err, sizeof err);
        }
        if (c->res[g].failed && w->failed_game < 0) {
            w->failed_game = g;
            snprintf(w->error, sizeof w->error, "%s", err);
        }
        __atomic_add_fetch(&c->done, 1, __ATOMIC_RELAXED);
    }
    free(st);
    return NULL;
}

/* Wilson score interval for k successes in n trials, 95%. */
static void wilson(double k, double n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    const double z = 1.959963984540054;
    double p = k / n, z2 = z * z;
    double den = 1 + z2 / n;
    double mid = (p + z2 / (2 * n)) / den;
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
    *lo = mid - half < 0 ? 0 : mid - half;
    *hi = mid + half > 1 ? 1 : mid + half;
}

/* Bradley-Terry by the MM algorithm (Hunter 2004): w[i] wins of i (draws
 * count half), n[i*k+j] comparisons of i and j. One virtual draw between
 * every pair keeps the fit finite when a strategy never (or always) wins.
 * Ratings on the Elo scale (400 log10 of strength), mean 1500. */
static void bradley_terry(int k, const double *w0, const double *n0, double *rating)
{
    double w[GAME_MAX_SEATS], n[GAME_MAX_SEATS * GAME_MAX_SEATS], g[GAME_MAX_SEATS];
    for (int i = 0; i < k; i++) {
        w[i] = w0[i] + 0.5 * (k - 1);
        g[i] = 1;
        for (int j = 0; j < k; j++)
            n[i * k + j] = i == j ? 0 : n0[i * k + j] + 1;
    }
    for (int it = 0; it < 10000; it++) {
        double change = 0, ng[GAME_MAX_SEATS], logsum = 0;
        for (int i = 0; i < k; i++) {
            double d = 0;
            for (int j = 0; j < k; j++)
                if (j != i)
                    d += n[i * k + j] / (g[i] + g[j]);
            ng[i] = d > 0 ? w[i] / d : g[i];
            logsum += log(ng[i]);
        }
        double norm = exp(logsum / k);
        for (int i = 0; i < k; i++) {
            ng[i] /= norm;
            double dl = fabs(log(ng[i]) - log(g[i]));
            change = dl > change ? dl : change;
            g[i] = ng[i];
        }
        if (change < 1e-12)
            break;
    }
    for (int i = 0; i < k; i++)
        rating[i] = 1500 + 400 * log10(g[i]);
}

/* The remote players' report (NULL when none): per remote strategy, in
 * lineup order, its moves, the misbehaviours by kind and the first
 * MAX_EXAMPLES of them in game order. New reference. */
static json_t *remote_report(const ctx *c, const int *entry_of, const char *const *strat,
                             int nstrat)
{
    if (!c->rs)
        return NULL;
    json_t *players = json_array();
    json_t *o = json_pack("{s:i,s:s,s:o}", "timeout_ms", c->timeout_ms, "fallback", c->fallback,
                          "players", players);
    for (int k = 0; k < nstrat; k++) {
        int j = 0;
        while (entry_of[j] != k)
            j++;
        if (!c->url[j])
            continue;
        long moves = 0, bad[NBAD] = {0};
        json_t *ex = json_array();
        for (long g = 0; g < c->games; g++) {
            const rstat *rs = &c->rs[g];
            for (int s = 0; s < c->players; s++) {
                if (entry_of[lineup_entry(c, g, s)] != k)
                    continue;
                moves += rs->moves[s];
                for (int b = 0; b < NBAD; b++)
                    bad[b] += rs->bad[s][b];
            }
            for (int i = 0; i < rs->ninc && json_array_size(ex) < MAX_EXAMPLES; i++)
                if (entry_of[lineup_entry(c, g, rs->inc[i].seat)] == k)
                    json_array_append_new(ex, json_pack("{s:I,s:i,s:s,s:s}", "game", (json_int_t)g,
                                                        "seat", rs->inc[i].seat, "kind",
                                                        BAD_NAMES[rs->inc[i].kind], "reason",
                                                        rs->inc[i].reason));
        }
        json_t *p = json_pack("{s:s,s:I}", "url", strat[k], "moves", (json_int_t)moves);
        for (int b = 0; b < NBAD; b++)
            json_object_set_new(p, BAD_NAMES[b], json_integer(bad[b]));
        json_object_set_new(p, "replaced", json_integer(bad[0] + bad[1] + bad[2]));
        json_object_set_new(p, "examples", ex);
        json_array_append_new(players, p);
    }
    return o;
}

static void print_remote(const json_t *rep)
{
    printf("remote players (time limit %lld ms per move; fallback bot %s):\n",
           (long long)json_integer_value(json_object_get(rep, "timeout_ms")),
           json_string_value(json_object_get(rep, "fallback")));
    size_t i, k;
    json_t *p, *x;
    json_array_foreach(json_object_get(rep, "players"), i, p) {
        printf("  %s: %lld moves, %lld late, %lld invalid, %lld errors (%lld replaced)\n",
               json_string_value(json_object_get(p, "url")),
               (long long)json_integer_value(json_object_get(p, "moves")),
               (long long)json_integer_value(json_object_get(p, "late")),
               (long long)json_integer_value(json_object_get(p, "invalid")),
               (long long)json_integer_value(json_object_get(p, "error")),
               (long long)json_integer_value(json_object_get(p, "replaced")));
        json_array_foreach(json_object_get(p, "examples"), k, x)
            printf("    game %lld seat %lld: %s: %s\n",
                   (long long)json_integer_value(json_object_get(x, "game")),
                   (long long)json_integer_value(json_object_get(x, "seat")),
                   json_string_value(json_object_get(x, "kind")),
                   json_string_value(json_object_get(x, "reason")));
    }
}

/* ---- the command line ------------------------------------------------------ */

/* What the command line asked for. */
typedef struct args {
    const char *game, *variant, *bots, *options, *fallback;
    long long games, players, jobs, timeout_ms;
    unsigned long long seed;
    int quiet, json;
} args;

/* Parse argv into a: -1 to go on, else the exit status (help, usage error). */
static int parse_args(int argc, char **argv, args *a)
{
    *a = (args){.games = 100, .timeout_ms = 1000, .seed = 1};
    static const struct option opts[] = {
        {"game", required_argument, 0, 'g'}, {"variant", required_argument, 0, 'v'},
        {"bots", required_argument, 0, 'b'}, {"players", required_argument, 0, 'p'},
        {"options", required_argument, 0, 'o'}, {"games", required_argument, 0, 'n'},
        {"seed", required_argument, 0, 's'}, {"jobs", required_argument, 0, 'j'},
        {"json", no_argument, 0, 'J'}, {"quiet", no_argument, 0, 'q'},
        {"remote-timeout", required_argument, 0, 'T'}, {"fallback", required_argument, 0, 'F'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': a->game = optarg; break;
        case 'v': a->variant = optarg; break;
        case 'b': a->bots = optarg; break;
        case 'o': a->options = optarg; break;
        case 'p':
            if (cli_number(optarg, 1, 1000, &a->players)) {
                fprintf(stderr,
                        "croupier tournament: --players takes a number of seats, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'n':
            if (cli_number(optarg, 1, MAX_GAMES, &a->games)) {
                fprintf(stderr, "croupier tournament: --games takes 1..%d, not '%s'\n", MAX_GAMES,
                        optarg);
                return 2;
            }
            break;
        case 's': {
            char *end;
            errno = 0;
            a->seed = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-' || a->seed >= (1ULL << 53)) {
                fprintf(stderr, "croupier tournament: --seed takes 0..2^53-1, not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'j':
            if (cli_number(optarg, 1, MAX_JOBS, &a->jobs)) {
                fprintf(stderr, "croupier tournament: --jobs takes 1..%d, not '%s'\n", MAX_JOBS,
                        optarg);
                return 2;
            }
            break;
        case 'T':
            if (cli_number(optarg, 1, 600000, &a->timeout_ms)) {
                fprintf(stderr,
                        "croupier tournament: --remote-timeout takes 1..600000 ms, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'F': a->fallback = optarg; break;
        case 'J': a->json = 1; break;
        case 'q': a->quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "croupier tournament: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return -1;
}

/* ---- the game and the lineup --------------------------------------------------- */

static void list_bots(const game_ops *ops)
{
    for (const game_bot *b = ops->bots; b->name; b++)
        fprintf(stderr, " %s", b->name);
}

/* The game, its variant and the fallback bot into c: 0, or 2 (said why). */
static int set_game(ctx *c, const args *a)
{
    const game_ops *ops = a->game ? game_find(a->game) : NULL;
    if (!ops) {
        if (a->game)
            fprintf(stderr, "croupier tournament: unknown game '%s' (see `croupier games`)\n",
                    a->game);
        else
            fprintf(stderr, "croupier tournament: --game is required (see `croupier games`)\n");
        return 2;
    }
    c->ops = ops;
    c->variant = a->variant ? a->variant : ops->variants[0];
    if (!game_has_variant(ops, c->variant)) {
        fprintf(stderr, "croupier tournament: %s has no variant '%s'\n", ops->name, c->variant);
        return 2;
    }
    if (!a->bots) {
        fprintf(stderr, "croupier tournament: --bots is required: the strategies to play, "
                        "e.g. --bots %s,%s\n",
                ops->bots[0].name, ops->bots[1].name ? ops->bots[1].name : ops->bots[0].name);
        return 2;
    }
    c->fallback = a->fallback ? a->fallback : ops->bots[0].name;
    if (!game_has_bot(ops, c->fallback)) {
        fprintf(stderr, "croupier tournament: %s has no bot '%s' for --fallback (bots:",
                ops->name, c->fallback);
        list_bots(ops);
        fprintf(stderr, ")\n");
        return 2;
    }
    return 0;
}

/* The lineup of a->bots (split in c->names), repeated to fill the table,
 * its rotations and their seatings into c: 0, or 2 (said why). */
static int set_lineup(ctx *c, const args *a)
{
    const game_ops *ops = c->ops;
    const char *named[GAME_MAX_SEATS];
    remote_url *named_url[GAME_MAX_SEATS] = {0};
    int nnamed = 0;
    if (strlen(a->bots) >= sizeof c->names) {
        fprintf(stderr, "croupier tournament: --bots is too long\n");
        return 2;
    }
    snprintf(c->names, sizeof c->names, "%s", a->bots);
    for (char *p = c->names, *tok; (tok = strsep(&p, ","));) {
        if (strstr(tok, "://") && nnamed < GAME_MAX_SEATS) {
            char why[1200];
            if (remote_url_parse(tok, &c->urls[nnamed], why, sizeof why)) {
                fprintf(stderr, "croupier tournament: --bots %s\n", why);
                return 2;
            }
            named_url[nnamed] = &c->urls[nnamed];
            c->nremote++;
        } else if (!*tok || !game_has_bot(ops, tok)) {
            fprintf(stderr, "croupier tournament: %s has no bot '%s' (bots:", ops->name, tok);
            list_bots(ops);
            fprintf(stderr, "; or a remote player's http:// URL)\n");
            return 2;
        }
        if (nnamed == GAME_MAX_SEATS || nnamed >= ops->max_players) {
            fprintf(stderr, "croupier tournament: --bots names more strategies than %s has seats "
                            "(%d at most)\n", ops->name, ops->max_players);
            return 2;
        }
        named[nnamed++] = tok;
    }
    int usual = ops->default_players ? ops->default_players : ops->min_players;
    long players = a->players ? (long)a->players : nnamed > usual ? nnamed : usual;
    if (players < ops->min_players || players > ops->max_players || players > GAME_MAX_SEATS) {
        fprintf(stderr, "croupier tournament: %s takes %d-%d players, not %ld\n", ops->name,
                ops->min_players, ops->max_players, players);
        return 2;
    }
    if (nnamed > players) {
        fprintf(stderr, "croupier tournament: --bots names %d strategies for %ld seats\n", nnamed,
                players);
        return 2;
    }
    c->players = (int)players;
    for (int i = 0; i < players; i++) {
        c->lineup[i] = named[i % nnamed];
        c->url[i] = named_url[i % nnamed];
    }
    /* the rotations of a deal; with one player in every seat they are one
     * same game, played once */
    int same = 1;
    for (int j = 1; j < players; j++)
        same &= strcmp(c->lineup[j], c->lineup[0]) == 0 && c->url[j] == c->url[0];
    c->rot = same ? 1 : (int)players;
    /* the seating of every rotation must be one the game accepts */
    for (int r = 0; r < players; r++) {
        const char *seat[GAME_MAX_SEATS];
        for (int s = 0; s < players; s++) /* a remote seat as its fallback */
            seat[s] = c->url[lineup_entry(c, r, s)] ? c->fallback : seat_bot(c, r, s);
        game_err e = {0};
        if (game_seating(ops, seat, (int)players, &e)) {
            fprintf(stderr, "croupier tournament: %s refuses this seating: %s\n", ops->name,
                    e.detail);
            return 2;
        }
    }
    return 0;
}

/* ---- playing the games --------------------------------------------------------- */

/* Play every game on c->jobs threads, with a progress bar on a terminal
 * unless quiet: 0, or 1 when a game failed (the first in game order is
 * said). *secs: the wall time. */
static int play_all(ctx *c, int quiet, double *secs)
{
    pthread_t tid[MAX_JOBS];
    worker wk[MAX_JOBS];
    int started = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int w = 0; w < c->jobs; w++) {
        wk[w] = (worker){.c = c, .index = w, .failed_game = -1};
        if (pthread_create(&tid[w], NULL, work, &wk[w]) != 0)
            break;
        started++;
    }
    /* fewer threads than asked: the rest of the games on this one */
    for (int w = started; w < c->jobs; w++) {
        wk[w] = (worker){.c = c, .index = w, .failed_game = -1};
        work(&wk[w]);
    }
    int tty = !quiet && isatty(STDERR_FILENO);
    for (;;) {
        long d = __atomic_load_n(&c->done, __ATOMIC_RELAXED);
        if (tty) {
            int width = 40, bar = (int)(d * width / c->games);
            fprintf(stderr, "\r[%.*s%*s] %ld/%ld games", bar,
                    "########################################", width - bar, "", d, c->games);
        }
        if (d >= c->games)
            break;
        usleep(100 * 1000);
    }
    if (tty)
        fprintf(stderr, "\n");
    for (int w = 0; w < started; w++)
        pthread_join(tid[w], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    const worker *first = NULL; /* the first game that failed, whatever the worker */
    for (int w = 0; w < c->jobs; w++)
        if (wk[w].failed_game >= 0 && (!first || wk[w].failed_game < first->failed_game))
            first = &wk[w];
    if (first)
        fprintf(stderr, "croupier tournament: %s\n", first->error);
    return first ? 1 : 0;
}

/* ---- sum up in game order ------------------------------------------------------ */

typedef struct summary {
    /* the distinct strategies, in lineup order; entry_of[j]: lineup entry
     * j's strategy, entries[k]: how many entries strategy k has */
    const char *strat[GAME_MAX_SEATS];
    int nstrat, entry_of[GAME_MAX_SEATS], entries[GAME_MAX_SEATS];
    long wins[GAME_MAX_SEATS], seats[GAME_MAX_SEATS];
    long seat_count[GAME_MAX_SEATS][GAME_MAX_SEATS], seat_wins[GAME_MAX_SEATS][GAME_MAX_SEATS];
    double score_sum[GAME_MAX_SEATS];
    double turns_sum, rounds_sum;
    long no_winner, perfect, nend;
    struct tally { const char *name; long n; } ends[MAX_ENDINGS];
    int lower_is_better, max_score;
    double rating[GAME_MAX_SEATS];
    /* win rate per seat, with its 95% interval */
    double rate[GAME_MAX_SEATS], lo[GAME_MAX_SEATS], hi[GAME_MAX_SEATS];
    double team_mean, team_se; /* cooperative games */
} summary;

static void sum_up(const ctx *c, summary *m)
{
    memset(m, 0, sizeof *m);
    int players = c->players;
    for (int j = 0; j < players; j++) {
        int k = 0;
        while (k < m->nstrat && strcmp(m->strat[k], c->lineup[j]) != 0)
            k++;
        if (k == m->nstrat)
            m->strat[m->nstrat++] = c->lineup[j];
        m->entry_of[j] = k;
        m->entries[k]++;
    }
    double pw[GAME_MAX_SEATS] = {0}, pn[GAME_MAX_SEATS * GAME_MAX_SEATS] = {0};
    double team_sum = 0, team_sq = 0;
    for (long g = 0; g < c->games; g++) {
        const result *r = &c->res[g];
        int r0 = (int)(g % c->rot), sk[GAME_MAX_SEATS];
        for (int s = 0; s < players; s++) {
            int k = m->entry_of[((s - r0) % players + players) % players];
            sk[s] = k;
            m->seats[k]++;
            m->seat_count[k][s]++;
            m->score_sum[k] += c->score[g * players + s];
        }
        if (r->winner >= 0) {
            m->wins[sk[r->winner]]++;
            m->seat_wins[sk[r->winner]][r->winner]++;
        } else {
            m->no_winner++;
        }
        /* pairwise results between seats of different strategies */
        for (int a = 0; a < players; a++)
            for (int b = a + 1; b < players; b++) {
                int ka = sk[a], kb = sk[b];
                if (ka == kb)
                    continue;
                if (r->winner < 0) {
                    pw[ka] += 0.5, pw[kb] += 0.5;
                } else if (r->winner == a) {
                    pw[ka] += 1;
                } else if (r->winner == b) {
                    pw[kb] += 1;
                } else {
                    continue; /* two losers: no result between them */
                }
                pn[ka * m->nstrat + kb] += 1;
                pn[kb * m->nstrat + ka] += 1;
            }
        int e = 0;
        while (e < m->nend && strcmp(m->ends[e].name, r->ending) != 0)
            e++;
        if (e == m->nend && m->nend < MAX_ENDINGS)
            m->ends[m->nend++] = (struct tally){r->ending, 0};
        if (e < MAX_ENDINGS)
            m->ends[e].n++;
        m->turns_sum += r->turns;
        m->rounds_sum += r->rounds;
        m->lower_is_better |= r->lower_is_better;
        if (c->ops->cooperative) {
            double t = c->score[g * players];
            team_sum += t;
            team_sq += t * t;
            m->max_score = r->max_score > m->max_score ? r->max_score : m->max_score;
            m->perfect += r->max_score > 0 && t >= r->max_score;
        }
    }
    bradley_terry(m->nstrat, pw, pn, m->rating);
    double games = (double)c->games;
    m->team_mean = team_sum / games;
    double team_var = c->games > 1 ? (team_sq - team_sum * m->team_mean) / (games - 1) : 0;
    m->team_se = sqrt(team_var > 0 ? team_var : 0) / sqrt(games);
    /* win rate per seat: the share q of games the strategy won (Wilson over
     * games), divided by its seats per game */
    for (int k = 0; k < m->nstrat; k++) {
        wilson((double)m->wins[k], games, &m->lo[k], &m->hi[k]);
        m->rate[k] = (double)m->wins[k] / games / m->entries[k];
        m->lo[k] /= m->entries[k];
        m->hi[k] /= m->entries[k];
    }
}

/* ---- the report ---------------------------------------------------------------- */

/* What the report says besides the summary. */
typedef struct run_info {
    const args *a;
    long asked, blocks;
    double secs;
    const json_t *remote; /* remote_report(), or NULL */
} run_info;

static void report_json(const ctx *c, const summary *m, const run_info *ri)
{
    const game_ops *ops = c->ops;
    int players = c->players;
    json_t *o = json_object(), *lineup = json_array(), *sa = json_array(), *en = json_object();
    for (int j = 0; j < players; j++)
        json_array_append_new(lineup, json_string(c->lineup[j]));
    for (int k = 0; k < m->nstrat; k++) {
        json_t *so = json_object(), *sc = json_array(), *sw = json_array();
        for (int s = 0; s < players; s++) {
            json_array_append_new(sc, json_integer(m->seat_count[k][s]));
            json_array_append_new(sw, json_integer(m->seat_wins[k][s]));
        }
        json_object_set_new(so, "name", json_string(m->strat[k]));
        json_object_set_new(so, "entries", json_integer(m->entries[k]));
        json_object_set_new(so, "games", json_integer(c->games));
        json_object_set_new(so, "seats", json_integer(m->seats[k]));
        json_object_set_new(so, "seat_counts", sc);
        json_object_set_new(so, "avg_score", cli_json_round(m->score_sum[k] / (double)m->seats[k], 4));
        if (!ops->cooperative) {
            json_object_set_new(so, "wins", json_integer(m->wins[k]));
            json_object_set_new(so, "seat_wins", sw);
            json_object_set_new(so, "win_rate", cli_json_round(m->rate[k], 6));
            json_object_set_new(so, "win_rate_95",
                                json_pack("[oo]", cli_json_round(m->lo[k], 6), cli_json_round(m->hi[k], 6)));
            json_object_set_new(so, "rating", cli_json_round(m->rating[k], 1));
        } else {
            json_decref(sw);
        }
        json_array_append_new(sa, so);
    }
    for (int e = 0; e < m->nend; e++)
        json_object_set_new(en, m->ends[e].name, json_integer(m->ends[e].n));
    json_object_set_new(o, "game", json_string(ops->name));
    json_object_set_new(o, "title", json_string(ops->title));
    json_object_set_new(o, "variant", json_string(c->variant));
    json_object_set_new(o, "options", c->options ? json_incref((json_t *)c->options) : json_null());
    json_object_set_new(o, "players", json_integer(players));
    json_object_set_new(o, "lineup", lineup);
    json_object_set_new(o, "games", json_integer(c->games));
    json_object_set_new(o, "games_asked", json_integer(ri->asked));
    json_object_set_new(o, "blocks", json_integer(ri->blocks));
    json_object_set_new(o, "rotations", json_integer(c->rot));
    json_object_set_new(o, "seeds", json_pack("[II]", (json_int_t)c->seed,
                                              (json_int_t)block_seed(c->seed, ri->blocks - 1)));
    json_object_set_new(o, "cooperative", json_boolean(ops->cooperative));
    json_object_set_new(o, "lower_is_better", json_boolean(m->lower_is_better));
    json_object_set_new(o, "fair_share", cli_json_round(1.0 / (double)players, 6));
    json_object_set_new(o, "rating_method",
                        ops->cooperative ? json_null()
                                         : json_string("bradley-terry-mle-elo-scale"));
    json_object_set_new(o, "strategies", sa);
    if (ops->cooperative)
        json_object_set_new(o, "team_score",
                            json_pack("{s:o,s:o,s:i,s:I}", "mean", cli_json_round(m->team_mean, 4), "stderr",
                                      cli_json_round(m->team_se, 4), "max", m->max_score, "perfect",
                                      (json_int_t)m->perfect));
    json_object_set_new(o, "endings", en);
    json_object_set_new(o, "no_winner", json_integer(m->no_winner));
    json_object_set_new(o, "avg_turns", cli_json_round(m->turns_sum / (double)c->games, 3));
    json_object_set_new(o, "avg_rounds", cli_json_round(m->rounds_sum / (double)c->games, 3));
    if (ri->remote)
        json_object_set_new(o, "remote", json_incref((json_t *)ri->remote));
    json_object_set_new(o, "timing", json_pack("{s:o,s:i}", "seconds", cli_json_round(ri->secs, 3), "jobs",
                                               c->jobs));
    char *txt = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    printf("%s\n", txt ? txt : "{}");
    free(txt);
    json_decref(o);
}

static void report_text(const ctx *c, const summary *m, const run_info *ri)
{
    const game_ops *ops = c->ops;
    int players = c->players;
    long games = c->games;
    printf("%s (%s), %d players, %ld games: %ld deals (seeds %llu..%llu) x %ld rotations\n",
           ops->title, c->variant, players, games, ri->blocks, (unsigned long long)c->seed,
           (unsigned long long)block_seed(c->seed, ri->blocks - 1), (long)c->rot);
    if (ri->asked != games)
        printf("(--games %ld rounded up to whole blocks of %ld)\n", ri->asked, (long)c->rot);
    if (ri->a->options)
        printf("options: %s\n", ri->a->options);
    printf("lineup:");
    for (int j = 0; j < players; j++)
        printf("%s%s", j ? "," : " ", c->lineup[j]);
    if (c->rot > 1)
        printf(" (rotated: each entry sits at every seat in %ld games)\n\n", ri->blocks);
    else
        printf(" (one player in every seat: each deal is played once)\n\n");
    int nw = 14; /* the strategy column: as wide as a remote player's URL */
    for (int k = 0; k < m->nstrat; k++)
        nw = (int)strlen(m->strat[k]) > nw ? (int)strlen(m->strat[k]) : nw;
    if (ops->cooperative) {
        printf("cooperative: every seat shares the team score\n");
        printf("team score: %.3f ± %.3f (standard error) of %d; perfect games %ld (%.2f%%)\n\n",
               m->team_mean, m->team_se, m->max_score, m->perfect,
               100.0 * (double)m->perfect / (double)games);
        printf("%-*s  seats  games  seat counts    avg team score\n", nw, "strategy");
        for (int k = 0; k < m->nstrat; k++) {
            char sc[96] = "";
            for (int s = 0; s < players; s++)
                snprintf(sc + strlen(sc), sizeof sc - strlen(sc), "%s%ld", s ? "/" : "",
                         m->seat_count[k][s]);
            printf("%-*s %6ld %6ld  %-14s %8.3f\n", nw, m->strat[k], m->seats[k], games, sc,
                   m->score_sum[k] / (double)m->seats[k]);
        }
    } else {
        printf("%-*s  seats  games    wins  win%%/seat  95%% interval    %s  rating\n", nw,
               "strategy", m->lower_is_better ? "avg points" : " avg score");
        for (int k = 0; k < m->nstrat; k++)
            printf("%-*s %6ld %6ld  %6ld    %6.2f%%  [%5.2f-%5.2f%%]  %10.2f  %6.0f\n", nw,
                   m->strat[k], m->seats[k], games, m->wins[k], 100 * m->rate[k], 100 * m->lo[k],
                   100 * m->hi[k], m->score_sum[k] / (double)m->seats[k], m->rating[k]);
        printf("\nfair share per seat: %.2f%%", 100.0 / (double)players);
        if (m->lower_is_better)
            printf("; avg points are penalty points: lower is better");
        printf("\nratings: Bradley-Terry maximum likelihood on the Elo scale (mean 1500) from\n"
               "  pairwise results: a game's winner beats every other seat, a game without\n"
               "  a winner is a draw between all; one virtual draw per pair as a prior\n");
        printf("seat counts:");
        for (int k = 0; k < m->nstrat; k++) {
            printf(" %s ", m->strat[k]);
            for (int s = 0; s < players; s++)
                printf("%s%ld", s ? "/" : "", m->seat_count[k][s]);
        }
        printf("\n");
    }
    printf("endings:");
    for (int e = 0; e < m->nend; e++)
        printf(" %s %ld (%.2f%%)", m->ends[e].name, m->ends[e].n,
               100.0 * (double)m->ends[e].n / (double)games);
    printf("\n");
    if (!ops->cooperative)
        printf("no winner: %ld\n", m->no_winner);
    printf("average turns per game: %.1f\n", m->turns_sum / (double)games);
    if (m->rounds_sum > 0)
        printf("average hands/rounds per game: %.2f\n", m->rounds_sum / (double)games);
    if (ri->remote)
        print_remote(ri->remote);
    printf("time: %.2f s (%.0f games/s, %d threads)\n", ri->secs,
           (double)games / (ri->secs > 0 ? ri->secs : 1e-9), c->jobs);
}

/* ---- the command ------------------------------------------------------------------ */

int cmd_tournament(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    ctx cx = {.seed = a.seed};
    cx.timeout_ms = (int)a.timeout_ms;
    if ((rc = set_game(&cx, &a)) || (rc = set_lineup(&cx, &a)))
        return rc;
    const game_ops *ops = cx.ops;
    json_t *options = NULL;
    if (a.options) {
        json_error_t je;
        options = json_loads(a.options, JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(options)) {
            fprintf(stderr, "croupier tournament: --options must be a JSON object\n");
            json_decref(options);
            return 2;
        }
    }
    cx.options = options;
    /* whole blocks: every rotation of every deal */
    run_info ri = {.a = &a, .asked = (long)a.games,
                   .blocks = (long)((a.games + cx.rot - 1) / cx.rot)};
    cx.games = ri.blocks * cx.rot;
    long jobs = (long)a.jobs;
    if (!jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : n;
    }
    cx.jobs = (int)(jobs > cx.games ? cx.games : jobs);

    json_t *remote = NULL;
    void *probe = malloc(ops->state_size);
    summary *m = malloc(sizeof *m);
    cx.res = calloc((size_t)cx.games, sizeof *cx.res);
    cx.score = calloc((size_t)cx.games * (size_t)cx.players, sizeof *cx.score);
    if (cx.nremote) {
        cx.rs = calloc((size_t)cx.games, sizeof *cx.rs);
        mg_init_library(0);
        signal(SIGPIPE, SIG_IGN); /* a player that hangs up is an error, not our end */
    }
    if (!probe || !m || !cx.res || !cx.score || (cx.nremote && !cx.rs)) {
        fprintf(stderr, "croupier tournament: out of memory for %ld games\n", cx.games);
        rc = 1;
        goto out;
    }
    { /* options and variant checked once, as a clear usage error */
        game_err e = {0};
        if (game_init(ops, probe, cx.variant, cx.players, block_seed(cx.seed, 0), options, &e)) {
            fprintf(stderr, "croupier tournament: %s%s%s\n", e.pointer[0] ? e.pointer : "",
                    e.pointer[0] ? ": " : "", e.detail);
            rc = 2;
            goto out;
        }
    }
    if ((rc = play_all(&cx, a.quiet, &ri.secs)))
        goto out;
    sum_up(&cx, m);
    remote = remote_report(&cx, m->entry_of, m->strat, m->nstrat);
    ri.remote = remote;
    if (a.json)
        report_json(&cx, m, &ri);
    else
        report_text(&cx, m, &ri);
out:
    json_decref(remote);
    if (cx.nremote)
        mg_exit_library();
    for (long g = 0; cx.rs && g < cx.games; g++)
        free(cx.rs[g].inc);
    free(cx.rs);
    free(probe);
    free(m);
    free(cx.res);
    free(cx.score);
    json_decref(options);
    return rc;
}
