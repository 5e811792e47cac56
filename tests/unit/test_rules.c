/* test_rules.c: the rule examples kept as data (tests/unit/rules/<game>.rules,
 * in the manner of jq's tests/jq.test), run through the function table the
 * server serves at /validate/{game}/{fn} and /play/{game}[/{fn}] (the
 * game_fn rows of each registry game's ops), so what is tested is what
 * the server answers.
 *
 * A file is named after a game of the registry. Lines starting with '#' are
 * comments (each case is preceded by one naming the clause of
 * docs/rules/<game>.md it illustrates); blank lines separate cases. A case
 * is three or four lines:
 *
 *     validate/group_type bonus      the function as in its URL, then the variant (optional)
 *     [["2C", "2S", "2H"]]           the arguments: a JSON array, in parameter order
 *     [1]                            the answer (JSON), or "error <pointer>": refused,
 *                                    ERR_BAD_MEMBER at that JSON pointer
 *     clause phazed.group.set-value  (optional) the clause the function says decides it
 *
 * The runner parses with jansson and compares answers with json_equal();
 * every failing case is reported with its file and line before the test
 * fails. Every validator of a game that has a file must have a case.
 * The directory is tests/unit/rules from the repository root (tests/run.sh
 * runs from there), or $CROUPIER_RULES_DIR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "game.h"

enum { LINE_MAX_LEN = 16384, RULES_MAX_GAMES = 16 };

static const char *rules_dir(void)
{
    const char *d = getenv("CROUPIER_RULES_DIR");
    return d && *d ? d : "tests/unit/rules";
}

/* The row of ops->fns named by "validate/group_type" ("play/" is the
 * unnamed play function), or NULL. */
static const game_fn *find_fn(const game_ops *ops, const char *path)
{
    const char *slash = strchr(path, '/');
    if (!slash)
        return NULL;
    size_t klen = (size_t)(slash - path);
    for (int i = 0; i < ops->nfns; i++)
        if (strlen(ops->fns[i].kind) == klen && strncmp(ops->fns[i].kind, path, klen) == 0 &&
            strcmp(ops->fns[i].name, slash + 1) == 0)
            return &ops->fns[i];
    return NULL;
}

typedef struct rules_file {
    const char *path;
    FILE *f;
    int lineno;
    char line[LINE_MAX_LEN];
    int had_comment; /* a '#' line since the last case */
} rules_file;

/* The next line that is neither blank nor a comment, without its newline;
 * NULL at the end. Inside a case (`in_case`) a blank line or the end is
 * an error: NULL, and *broken set. */
static const char *next_line(rules_file *rf, int in_case, int *broken)
{
    while (fgets(rf->line, sizeof rf->line, rf->f)) {
        rf->lineno++;
        size_t n = strlen(rf->line);
        if (n && rf->line[n - 1] == '\n')
            rf->line[--n] = 0;
        else if (n == sizeof rf->line - 1) {
            print_error("%s:%d: a line longer than %d bytes\n", rf->path, rf->lineno, LINE_MAX_LEN - 2);
            *broken = 1;
            return NULL;
        }
        if (rf->line[0] == '#') {
            rf->had_comment = 1;
            continue;
        }
        if (n == 0) {
            if (in_case) {
                *broken = 1;
                return NULL;
            }
            continue;
        }
        return rf->line;
    }
    if (in_case)
        *broken = 1;
    return NULL;
}

static json_t *parse(rules_file *rf, const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
    if (!j)
        print_error("%s:%d: not JSON: %s\n", rf->path, rf->lineno, err.text);
    return j;
}

static char *show(const json_t *j)
{
    return j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("(nothing)");
}

/* Past the rest of a case that could not be read (to its blank line), so
 * that one bad case is one error. */
static void skip_rest(rules_file *rf)
{
    while (fgets(rf->line, sizeof rf->line, rf->f)) {
        rf->lineno++;
        if (rf->line[0] == '\n')
            return;
    }
}

/* One case whose function line is `head`; returns 1 when it passes. */
static int run_case(rules_file *rf, const game_ops *ops, const char *head, int *broken)
{
    int ok = 0, at = rf->lineno;
    char fname[128] = "", variant[32] = "";
    json_t *args = NULL, *want = NULL, *got = NULL;
    char want_err[200] = "", want_clause[64] = "";
    sscanf(head, "%127s %31s", fname, variant);
    const game_fn *f = find_fn(ops, fname);
    if (!f) {
        print_error("%s:%d: %s has no function %s\n", rf->path, at, ops->name, fname);
        skip_rest(rf);
        goto done;
    }
    const char *l = next_line(rf, 1, broken);
    if (!l || !(args = parse(rf, l)) || !json_is_array(args)) {
        print_error("%s:%d: the arguments are a JSON array\n", rf->path, rf->lineno);
        if (l)
            skip_rest(rf);
        goto done;
    }
    if (!(l = next_line(rf, 1, broken)))
        goto done;
    int is_err = strncmp(l, "error", 5) == 0 && (l[5] == ' ' || l[5] == 0);
    if (is_err)
        snprintf(want_err, sizeof want_err, "%s", l[5] ? l + 6 : "");
    else if (!(want = parse(rf, l))) {
        skip_rest(rf);
        goto done;
    }
    /* an optional clause line, then a blank line or the end */
    if (fgets(rf->line, sizeof rf->line, rf->f)) {
        rf->lineno++;
        rf->line[strcspn(rf->line, "\n")] = 0;
        if (strncmp(rf->line, "clause ", 7) == 0)
            snprintf(want_clause, sizeof want_clause, "%s", rf->line + 7);
        else if (rf->line[0] && rf->line[0] != '#') {
            print_error("%s:%d: a case is followed by a clause line or a blank line\n", rf->path,
                        rf->lineno);
            goto done;
        } else if (rf->line[0] == '#')
            rf->had_comment = 1;
    }

    int np = 0;
    while (f->params[np])
        np++;
    /* fewer: the rest are NULL (the function refuses a missing required one) */
    if (json_array_size(args) > (size_t)np) {
        print_error("%s:%d: %s takes at most %d arguments\n", rf->path, at, f->signature, np);
        goto done;
    }
    json_t *argv[16] = {0};
    for (size_t i = 0; i < json_array_size(args); i++)
        argv[i] = json_array_get(args, i);
    game_err e = {0};
    game_verdict why = {0};
    int rc = f->call(argv, variant[0] ? variant : NULL, &got, &why, &e);
    if (is_err) {
        if (rc != ERR_BAD_MEMBER || strcmp(e.pointer, want_err) != 0) {
            char *g = show(got);
            print_error("%s:%d: %s: expected a refusal at \"%s\", got rc %d at \"%s\" (%s), answer %s\n",
                        rf->path, at, fname, want_err, rc, e.pointer, e.detail, g);
            free(g);
            goto done;
        }
    } else if (rc != 0 || !json_equal(got, want)) {
        char *g = show(got), *w = show(want);
        print_error("%s:%d: %s: expected %s, got %s (rc %d %s)\n", rf->path, at, fname, w, g, rc,
                    e.detail);
        free(g);
        free(w);
        goto done;
    }
    if (want_clause[0] && strcmp(why.rule, want_clause) != 0) {
        print_error("%s:%d: %s: decided by clause %s, expected %s (%s)\n", rf->path, at, fname,
                    why.rule, want_clause, why.reason);
        goto done;
    }
    ok = 1;
done:
    json_decref(args);
    json_decref(want);
    json_decref(got);
    return ok;
}

/* Every case of <dir>/<game>.rules (the state is the game's ops). */
static void test_game_rules(void **state)
{
    const game_ops *ops = *state;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.rules", rules_dir(), ops->name);
    rules_file *rf = calloc(1, sizeof *rf); /* its line buffer is 16 KiB: not on the stack */
    assert_non_null(rf);
    rf->path = path;
    if (!(rf->f = fopen(path, "r")))
        fail_msg("cannot open %s", path);
    int cases = 0, failed = 0, broken = 0;
    int used[64] = {0};
    const char *head;
    while ((head = next_line(rf, 0, &broken))) {
        if (!rf->had_comment) {
            print_error("%s:%d: a case is preceded by a comment naming its rule\n", path, rf->lineno);
            failed++;
        }
        rf->had_comment = 0;
        char name[128] = "";
        sscanf(head, "%127s", name);
        const game_fn *f = find_fn(ops, name);
        if (f && f - ops->fns < 64)
            used[f - ops->fns] = 1;
        cases++;
        broken = 0;
        if (!run_case(rf, ops, head, &broken) || broken)
            failed++;
    }
    failed += broken; /* a line too long outside a case */
    fclose(rf->f);
    free(rf);
    for (int i = 0; i < ops->nfns && i < 64; i++)
        if (strcmp(ops->fns[i].kind, "validate") == 0 && !used[i]) {
            print_error("%s: no case of validate/%s\n", path, ops->fns[i].name);
            failed++;
        }
    print_message("%s: %d cases, %d failed\n", path, cases, failed);
    assert_true(cases > 0);
    assert_int_equal(failed, 0);
}

/* Every file of the directory is a game of the registry's (a misnamed file
 * would silently never run). */
static void test_files_name_games(void **unused)
{
    (void)unused;
    DIR *d = opendir(rules_dir());
    if (!d)
        fail_msg("cannot open %s (run from the repository root, or set CROUPIER_RULES_DIR)",
                 rules_dir());
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.')
            continue;
        if (len < 7 || strcmp(de->d_name + len - 6, ".rules") != 0)
            fail_msg("%s/%s: not a .rules file", rules_dir(), de->d_name);
        char game[64];
        snprintf(game, sizeof game, "%.*s", (int)(len - 6), de->d_name);
        if (!game_find(game))
            fail_msg("%s/%s: no game %s in the registry", rules_dir(), de->d_name, game);
        n++;
    }
    closedir(d);
    assert_true(n > 0);
}

int main(void)
{
    struct CMUnitTest tests[RULES_MAX_GAMES + 1];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_files_name_games);
    for (const game_ops *const *g = game_registry; *g && n < RULES_MAX_GAMES + 1; g++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.rules", rules_dir(), (*g)->name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* a game whose examples are all scenarios (C, in its own file) */
        fclose(f);
        tests[n++] = (struct CMUnitTest){(*g)->name, test_game_rules, NULL, NULL, (void *)*g};
    }
    return _cmocka_run_group_tests("rules", tests, n, NULL, NULL);
}
