/* cases.c: `croupier cases`, the autograder kit's suites (docs/autograder.md)
 * on the command line: the same text as GET /cases/{game}/{fn} (api/kit.c),
 * for any game of the registry that has suites. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game.h"
#include "kit.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier cases --game G --fn F [--n N] [--seed S] [--variant V]\n"
        "                      [--format jsonl|json|pytest] [--stats] [--out FILE]\n"
        "       croupier cases --list\n"
        "Generated cases of an autograder function: its arguments, the expected answer\n"
        "(or every legal play) and the rule clause that decides it (docs/autograder.md).\n\n"
        "  --game G        game id\n"
        "  --fn F          the function's short name (--list shows them)\n"
        "  --n N           cases, 1..%d (default 100)\n"
        "  --seed S        0..2^53-1 (default 1): the same seed gives the same cases\n"
        "  --variant V     the game's variant (default: its first)\n"
        "  --format F      jsonl (one case per line, the default), json, or pytest (a\n"
        "                  self-contained test file: STUDENT_MODULE=m pytest FILE, or\n"
        "                  python3 FILE m)\n"
        "  --stats         every clause of the suite with its count, instead of the cases\n"
        "  --out FILE      write to FILE instead of stdout\n"
        "  --list          the suites: game, function, variant, course name, clauses\n"
        "  -h, --help      this text\n\n"
        "Exit status: 0 done; 2 bad arguments; 1 a generator failed (a bug: the\n"
        "message names it).\n", GAME_CASES_MAX);
}

static int list(void)
{
    printf("%-12s %-14s %-9s %-26s %s\n", "game", "fn", "variant", "course name", "clauses");
    for (const game_ops *const *g = game_registry; *g; g++)
        for (int i = 0; i < (*g)->nsuites; i++) {
            const game_suite *s = &(*g)->suites[i];
            printf("%-12s %-14s %-9s %-26s %d\n", (*g)->name, s->fn, s->variant, s->course_name, s->nclauses);
        }
    return 0;
}

int cmd_cases(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, 0, 'g'}, {"fn", required_argument, 0, 'f'},
        {"n", required_argument, 0, 'n'},    {"seed", required_argument, 0, 's'},
        {"variant", required_argument, 0, 'v'}, {"format", required_argument, 0, 'F'},
        {"stats", no_argument, 0, 'S'},      {"out", required_argument, 0, 'o'},
        {"list", no_argument, 0, 'l'},       {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *game = NULL, *fn = NULL, *variant = NULL, *format = NULL, *outfile = NULL;
    long long n = 100, seed = 1;
    int stats = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': game = optarg; break;
        case 'f': fn = optarg; break;
        case 'v': variant = optarg; break;
        case 'F': format = optarg; break;
        case 'o': outfile = optarg; break;
        case 'S': stats = 1; break;
        case 'l': return list();
        case 'n':
            if (cli_number(optarg, 1, GAME_CASES_MAX, &n)) {
                fprintf(stderr, "croupier cases: --n takes 1..%d\n", GAME_CASES_MAX);
                return 2;
            }
            break;
        case 's':
            if (cli_number(optarg, 0, (1LL << 53) - 1, &seed)) {
                fprintf(stderr, "croupier cases: --seed takes 0..2^53-1\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "croupier cases: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!game || !fn) {
        fprintf(stderr, "croupier cases: --game and --fn are required (--list shows the suites)\n");
        return 2;
    }
    const game_ops *ops = game_find(game);
    if (!ops) {
        fprintf(stderr, "croupier cases: unknown game '%s' (croupier games lists them)\n", game);
        return 2;
    }
    if (variant && !game_has_variant(ops, variant)) {
        fprintf(stderr, "croupier cases: unknown variant '%s' of %s\n", variant, ops->name);
        return 2;
    }
    const game_suite *s = game_suite_find(ops, fn, variant);
    if (!s) {
        fprintf(stderr, "croupier cases: %s has no suite of '%s'%s%s (croupier cases --list)\n", ops->name, fn,
                variant ? " in variant " : "", variant ? variant : "");
        return 2;
    }
    if (!kit_format_known(format)) {
        fprintf(stderr, "croupier cases: --format takes jsonl, json or pytest\n");
        return 2;
    }
    char *text;
    size_t len;
    const char *media;
    game_err e = {0};
    if (kit_render(ops, s, (uint64_t)seed, (int)n, format, stats, &text, &len, &media, &e)) {
        fprintf(stderr, "croupier cases: %s\n", e.detail);
        return 1;
    }
    FILE *f = outfile ? fopen(outfile, "w") : stdout;
    if (!f) {
        fprintf(stderr, "croupier cases: cannot write %s: %s\n", outfile, strerror(errno));
        free(text);
        return 1;
    }
    int bad = fwrite(text, 1, len, f) != len;
    bad |= outfile ? fclose(f) != 0 : fflush(f) != 0;
    free(text);
    if (bad) {
        fprintf(stderr, "croupier cases: writing %s failed\n", outfile ? outfile : "stdout");
        return 1;
    }
    return 0;
}
