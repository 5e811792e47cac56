/* selfplay.c: `croupier selfplay`: bots play N seeded games of any game in
 * the registry; reports wins per seat, how games ended and average turns.
 * Game i uses a seed derived from --seed and i, so any single game can be
 * replayed (and served) from its seed. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "game.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier selfplay --game G [options]\n"
        "Let bots play many games and report wins per seat, abandoned and\n"
        "turn-limit games, and average turns.\n\n"
        "  --game G            game id (see `croupier games`)\n"
        "  --variant V         variant (default: the game's first)\n"
        "  --bots S1,S2,...    one strategy per seat; one name fills every seat\n"
        "                      (default: the strongest strategy everywhere)\n"
        "  --players P         number of seats (default: number of --bots, or the game's usual table)\n"
        "  --options JSON      game options, as in POST /games\n"
        "  --games N           games to play (default 100)\n"
        "  --seed S            base seed (default 1); game i uses seed S+i\n"
        "  --quiet             no progress bar\n"
        "  -h, --help          this text\n");
}

static uint64_t game_seed(uint64_t base, long i)
{
    return (base + (uint64_t)i) & ((1ULL << 53) - 1);
}

int cmd_selfplay(int argc, char **argv)
{
    const char *gname = NULL, *variant = NULL, *bots_arg = NULL, *opts_arg = NULL;
    long games = 100, players = 0;
    unsigned long long seed = 1;
    int quiet = 0;
    static const struct option opts[] = {
        {"game", required_argument, 0, 'g'}, {"variant", required_argument, 0, 'v'},
        {"bots", required_argument, 0, 'b'}, {"players", required_argument, 0, 'p'},
        {"options", required_argument, 0, 'o'}, {"games", required_argument, 0, 'n'},
        {"seed", required_argument, 0, 's'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': gname = optarg; break;
        case 'v': variant = optarg; break;
        case 'b': bots_arg = optarg; break;
        case 'p': {
            char *end;
            players = strtol(optarg, &end, 10);
            if (end == optarg || *end || players < 1) {
                fprintf(stderr, "croupier selfplay: --players takes a number of seats, not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'o': opts_arg = optarg; break;
        case 'n': games = strtol(optarg, NULL, 10); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    const game_ops *ops = game_find(gname);
    if (!ops) {
        fprintf(stderr, "croupier selfplay: unknown or missing --game (see `croupier games`)\n");
        return 2;
    }
    if (!variant)
        variant = ops->variants[0];
    if (!game_has_variant(ops, variant)) {
        fprintf(stderr, "croupier selfplay: %s has no variant '%s'\n", ops->name, variant);
        return 2;
    }
    if (games < 1 || games > 100000000) {
        fprintf(stderr, "croupier selfplay: --games takes 1..100000000\n");
        return 2;
    }
    const char *bots[GAME_MAX_SEATS];
    char buf[512];
    int nbots = 0, ntok = 0;
    snprintf(buf, sizeof buf, "%s", bots_arg ? bots_arg : ops->bots[0].name);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!game_has_bot(ops, tok)) {
            fprintf(stderr, "croupier selfplay: %s has no bot '%s'\n", ops->name, tok);
            return 2;
        }
        if (nbots < GAME_MAX_SEATS)
            bots[nbots++] = tok;
        ntok++;
    }
    /* the table size: --players, else one seat per bot named, else the game's usual table */
    if (!players)
        players = ntok > 1 ? ntok : ops->default_players ? ops->default_players : ops->min_players;
    if (players < ops->min_players || players > ops->max_players) {
        fprintf(stderr, "croupier selfplay: %s takes %d-%d players, not %ld%s\n", ops->name,
                ops->min_players, ops->max_players, players,
                ntok > 1 ? " (one per bot in --bots)" : "");
        return 2;
    }
    if (ntok > 1 && ntok != players) {
        fprintf(stderr, "croupier selfplay: --bots names %d strategies for %ld players "
                "(name one per seat, or one for every seat)\n", ntok, players);
        return 2;
    }
    for (int i = nbots; i < players; i++)
        bots[i] = bots[0];
    json_t *options = NULL;
    if (opts_arg) {
        json_error_t je;
        options = json_loads(opts_arg, 0, &je);
        if (!json_is_object(options)) {
            fprintf(stderr, "croupier selfplay: --options must be a JSON object\n");
            json_decref(options);
            return 2;
        }
    }

    void *st = malloc(ops->state_size);
    long wins[GAME_MAX_SEATS] = {0}, ended_other = 0, nresults = 0;
    struct tally { const char *name; long n; } results[16];
    double turns_sum = 0, rounds_sum = 0, score_sum[GAME_MAX_SEATS] = {0};
    double team_sum = 0, team_sq = 0;
    long perfect = 0, hist[64] = {0};
    int max_score = 0, lower_is_better = 0;
    int tty = !quiet && isatty(STDERR_FILENO);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    for (long g = 0; g < games && st; g++) {
        game_err e = {0};
        if (game_init(ops, st, variant, (int)players, game_seed(seed, g), options, &e)) {
            fprintf(stderr, "croupier selfplay: %s\n", e.detail);
            rc = 2;
            break;
        }
        game_status gs;
        for (;;) {
            if (game_autoplay(ops, st, NULL))
                continue;
            ops->status(st, &gs);
            if (gs.over)
                break;
            char expl[320];
            if (game_bot_play(ops, st, bots[gs.to_move], NULL, expl, sizeof expl, &e)) {
                fprintf(stderr, "croupier selfplay: game %ld (seed %llu): bot %s failed: %s\n",
                        g, (unsigned long long)game_seed(seed, g), bots[gs.to_move], e.detail);
                rc = 1;
                goto done;
            }
        }
        if (gs.winner >= 0)
            wins[gs.winner]++;
        else
            ended_other++;
        int r = 0;
        while (r < nresults && strcmp(results[r].name, gs.result) != 0)
            r++;
        if (r == nresults && nresults < 16)
            results[nresults++] = (struct tally){gs.result, 0};
        if (r < 16)
            results[r].n++;
        turns_sum += gs.turns;
        lower_is_better = gs.lower_is_better;
        rounds_sum += gs.rounds;
        if (ops->cooperative) {
            double t = gs.score[0];
            team_sum += t;
            team_sq += t * t;
            max_score = gs.max_score;
            perfect += gs.max_score > 0 && t >= gs.max_score;
            int b = (int)t;
            hist[b < 0 ? 0 : b > 63 ? 63 : b]++;
        }
        for (int s = 0; s < players; s++)
            score_sum[s] += gs.score[s];
        if (tty && (g % 16 == 15 || g + 1 == games)) {
            int width = 40, done_w = (int)((g + 1) * width / games);
            fprintf(stderr, "\r[%.*s%*s] %ld/%ld", done_w,
                    "########################################", width - done_w, "", g + 1, games);
        }
    }
    if (tty)
        fprintf(stderr, "\n");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%s (%s), %ld games, seeds %llu..%llu\n", ops->title, variant, games, seed,
           (unsigned long long)game_seed(seed, games - 1));
    if (ops->cooperative) {
        double mean = team_sum / (double)games;
        double var = games > 1 ? (team_sq - team_sum * mean) / (double)(games - 1) : 0;
        printf("bots: ");
        for (int s = 0; s < players; s++)
            printf("%s%s", s ? "," : "", bots[s]);
        printf("\naverage score: %.3f ± %.3f (standard error), max %d\n", mean,
               sqrt(var > 0 ? var : 0) / sqrt((double)games), max_score);
        printf("perfect games: %ld (%.2f%%)\n", perfect, 100.0 * (double)perfect / (double)games);
        printf("distribution:\n");
        long top = 1;
        for (int b = 0; b < 64; b++)
            if (hist[b] > top)
                top = hist[b];
        for (int b = 0; b <= (max_score > 0 && max_score < 64 ? max_score : 63); b++)
            if (hist[b])
                printf("  %2d %7ld %.*s\n", b, hist[b], (int)(50 * hist[b] / top),
                       "##################################################");
        goto tail;
    }
    printf("seat  bot           wins   win%%    %s\n",
           lower_is_better ? "avg points (penalty: lower is better)" : "avg score");
    for (int s = 0; s < players; s++) {
        double p = (double)wins[s] / (double)games;
        printf("%-5d %-12s %6ld  %5.1f%% ±%4.1f  %8.2f\n", s, bots[s], wins[s], 100 * p,
               100 * 1.96 * sqrt(p * (1 - p) / (double)games), score_sum[s] / (double)games);
    }
tail:
    /* how games ended, with their share (Hanabi: "errors" is the strikeout rate) */
    printf("endings:");
    for (int r = 0; r < nresults; r++)
        printf(" %s %ld (%.2f%%)", results[r].name, results[r].n,
               100.0 * (double)results[r].n / (double)games);
    printf("\n");
    if (!ops->cooperative)
        printf("no winner: %ld (abandoned or limit)\n", ended_other);
    printf("average turns per game: %.1f\n", turns_sum / (double)games);
    if (rounds_sum > 0)
        printf("average hands/rounds per game: %.2f\n", rounds_sum / (double)games);
    printf("time: %.2f s (%.0f games/s)\n", secs, (double)games / (secs > 0 ? secs : 1e-9));
done:
    free(st);
    json_decref(options);
    return rc;
}
