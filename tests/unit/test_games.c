/* test_games.c: the engine's guarantees (docs/engine-guide.md), checked on
 * every game of the registry, every variant, at the smallest and largest
 * table and the usual one, over seeded games played by each of its bots:
 *
 *  - round trip: every state of every game encodes, decodes into a fresh
 *    buffer and encodes to the same JSON text;
 *  - determinism: the same seed and the same strategy give the same game,
 *    to the byte of its encoding, for every bot; another seed another game
 *    (the per-game files no longer repeat this); the bots' chance,
 *    rng_at(key, step), the same for the same pair and unrelated for others;
 *  - the log replays the game: the bots' plays applied as apply() plays,
 *    with no bot asked, give the played state to the byte after each play;
 *    a stored state of an earlier release (its bots' generator, "bot_rng",
 *    where the key now is) still decodes;
 *  - nothing half-applied: a refused play (not a play's shape, a seat that
 *    is not to move, a legal play of another position) leaves the state's
 *    bytes unchanged, and check() refuses what apply() refuses;
 *  - legal() agrees with check() and apply(): every listed play is valid
 *    and applies; the seat not to move has none;
 *  - bots: every move a bot makes is one check() called valid just before,
 *    made for the seat to move;
 *  - invariants: every position keeps the game's ops->invariants (every
 *    card as often as its decks hold it, counts within their arrays), and
 *    a state of garbage bytes breaks them;
 *  - readers: view, history and events of every seat, the spectator, the
 *    observer and the admin are JSON for every state, and a seat's view is
 *    the same however the cards it may not see are dealt (ops->redeal, when
 *    the game has it: the cards hidden from that seat shuffled among their
 *    places).
 * The per-game files keep the rule examples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <regex.h>
#include <cmocka.h>

#include "game.h"
#include "core/voice.h"

/* GAMES_PER_SETUP seeded games per setup and bot; the deep checks on every
 * position of the first DEEP_ALL moves of one game, then every DEEP_EVERY-th
 * (the whole file runs in a few seconds, under ASan too) */
enum { GAMES_PER_SETUP = 3, MAX_MOVES = 4000, LEGAL_TRIED = 6, DEEP_ALL = 40, DEEP_EVERY = 9 };

static char *text(json_t *j) /* steals j */
{
    char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
    assert_non_null(t);
    return t;
}

typedef struct setup {
    const game_ops *ops;
    const char *variant;
    int players;
} setup;

/* The setups of a game: each variant at the smallest, the usual and the
 * largest table. */
static int setups_of(const game_ops *ops, setup *out, int max)
{
    int n = 0, usual = ops->default_players ? ops->default_players : ops->min_players;
    int sizes[3] = {ops->min_players, usual, ops->max_players};
    for (const char *const *v = ops->variants; *v; v++)
        for (int i = 0; i < 3; i++) {
            if (i > 0 && sizes[i] == sizes[i - 1])
                continue;
            if (sizes[i] > GAME_MAX_SEATS)
                continue;
            assert_true(n < max);
            out[n++] = (setup){ops, *v, sizes[i]};
        }
    return n;
}

static void round_trip(const game_ops *ops, const void *st, void *scratch)
{
    char *a = text(ops->encode(st));
    json_t *j = json_loads(a, 0, NULL);
    assert_non_null(j);
    game_err e = {0};
    memset(scratch, 0, ops->state_size);
    if (ops->decode(scratch, j, &e) != 0)
        fail_msg("%s: decode(encode(state)) failed: %s at %s", ops->name, e.detail, e.pointer);
    json_decref(j);
    char *b = text(ops->encode(scratch));
    if (strcmp(a, b) != 0)
        fail_msg("%s: the round trip changed the encoding", ops->name);
    free(a);
    free(b);
}

/* Every reader's view, history and events are JSON. */
static void readers(const game_ops *ops, const void *st, int nseats)
{
    int who[GAME_MAX_SEATS + 3] = {SEAT_SPECTATOR, SEAT_OBSERVER, SEAT_ADMIN};
    int n = 3;
    for (int s = 0; s < nseats; s++)
        who[n++] = s;
    for (int i = 0; i < n; i++) {
        json_t *v = ops->view(st, who[i]);
        assert_true(json_is_object(v));
        json_decref(v);
        json_t *h = ops->history(st, who[i]);
        assert_true(json_is_array(h));
        json_decref(h);
        if (ops->events) {
            json_t *ev = ops->events(st, who[i], 0);
            assert_true(json_is_array(ev));
            json_decref(ev);
        }
    }
}

/* A seat's view does not depend on how the cards it may not see lie. */
static void views_hide(const game_ops *ops, const void *st, void *scratch, int nseats,
                       uint64_t salt)
{
    if (!ops->redeal)
        return;
    game_status gs;
    ops->status(st, &gs);
    if (gs.over)
        return; /* every card is every reader's once the game is over */
    int who[GAME_MAX_SEATS + 1] = {SEAT_SPECTATOR};
    int n = 1;
    for (int s = 0; s < nseats; s++)
        who[n++] = s;
    for (int i = 0; i < n; i++) {
        memcpy(scratch, st, ops->state_size);
        ops->redeal(scratch, who[i], salt + (uint64_t)i);
        char *a = text(ops->view(st, who[i]));
        char *b = text(ops->view(scratch, who[i]));
        if (strcmp(a, b) != 0)
            fail_msg("%s: the view of reader %d changes with cards it may not see:\n%s\n%s",
                     ops->name, who[i], a, b);
        free(a);
        free(b);
    }
}

/* Plays that must be refused leave the state's bytes as they were. */
static void refusals(const game_ops *ops, void *st, void *before, int nseats)
{
    game_status gs;
    ops->status(st, &gs);
    json_t *bad[3] = {json_integer(12345), json_string("not a play"), json_object()};
    for (int s = 0; s < nseats; s++)
        for (int k = 0; k < 3; k++) {
            memcpy(before, st, ops->state_size);
            game_err e = {0};
            json_t *rec = NULL;
            assert_int_not_equal(game_apply(ops, st, s, bad[k], &rec, &e), 0);
            assert_null(rec);
            assert_memory_equal(before, st, ops->state_size);
        }
    for (int k = 0; k < 3; k++)
        json_decref(bad[k]);
    if (gs.over || gs.to_move < 0)
        return;
    /* the mover's legal plays, offered by another seat: not its turn */
    json_t *legal = ops->legal(st, gs.to_move);
    json_t *p = json_array_get(legal, 0);
    for (int s = 0; p && s < nseats; s++) {
        if (s == gs.to_move)
            continue;
        json_t *mine = ops->legal(st, s);
        size_t nmine = json_array_size(mine);
        json_decref(mine);
        if (nmine) /* games where several seats may act at once */
            continue;
        memcpy(before, st, ops->state_size);
        game_err e = {0};
        game_verdict v;
        int rc = game_judge(ops, st, s, p, NULL, &v, &e);
        assert_true(rc != 0 || !v.valid);
        assert_int_not_equal(game_apply(ops, st, s, p, NULL, &e), 0);
        assert_memory_equal(before, st, ops->state_size);
    }
    json_decref(legal);
}

/* Every listed play is valid and applies (a sample, on a copy). */
static void legal_agrees(const game_ops *ops, const void *st, void *scratch, int nseats)
{
    game_status gs;
    ops->status(st, &gs);
    for (int s = 0; s < nseats; s++) {
        json_t *legal = ops->legal(st, s);
        assert_true(json_is_array(legal));
        if (gs.over)
            assert_int_equal(json_array_size(legal), 0);
        size_t n = json_array_size(legal), step = n > LEGAL_TRIED ? n / LEGAL_TRIED : 1;
        for (size_t i = 0; i < n; i += step) {
            json_t *p = json_array_get(legal, i);
            game_verdict v;
            game_err e = {0};
            if (game_judge(ops, st, s, p, NULL, &v, &e) != 0 || !v.valid)
                fail_msg("%s: legal play %zu of seat %d is not valid: %s %s", ops->name, i, s,
                         e.detail, v.reason);
            memcpy(scratch, st, ops->state_size);
            json_t *rec = NULL;
            if (game_apply(ops, scratch, s, p, &rec, &e) != 0)
                fail_msg("%s: legal play %zu of seat %d does not apply: %s", ops->name, i, s,
                         e.detail);
            json_decref(rec);
        }
        json_decref(legal);
    }
}

/* One game: seeded, every seat playing `bot`; every position checked.
 * Returns the final encoding (malloc'd). */
static char *play_one(const setup *su, const char *bot, uint64_t seed, int deep)
{
    const game_ops *ops = su->ops;
    void *st = calloc(1, ops->state_size), *scratch = calloc(1, ops->state_size);
    void *before = calloc(1, ops->state_size);
    assert_non_null(st);
    assert_non_null(scratch);
    assert_non_null(before);
    game_err e = {0};
    if (game_init(ops, st, su->variant, su->players, seed, NULL, &e) != 0)
        fail_msg("%s %s %dp: init: %s", ops->name, su->variant, su->players, e.detail);
    int moves = 0;
    for (;; moves++) {
        assert_true(moves < MAX_MOVES);
        game_status gs;
        ops->status(st, &gs);
        if (ops->invariants && ops->invariants(st, &e) != 0) /* every position, in every build */
            fail_msg("%s %s %dp seed %llu move %d: invariant broken: %s", ops->name, su->variant,
                     su->players, (unsigned long long)seed, moves, e.detail);
        if (deep && (moves < DEEP_ALL || moves % DEEP_EVERY == 0 || gs.over)) {
            round_trip(ops, st, scratch);
            readers(ops, st, gs.nseats);
            views_hide(ops, st, scratch, gs.nseats, seed * 1000 + (uint64_t)moves);
            legal_agrees(ops, st, scratch, gs.nseats);
            refusals(ops, st, before, gs.nseats);
        }
        if (gs.over)
            break;
        json_t *rec = NULL;
        if (game_autoplay(ops, st, &rec)) {
            json_decref(rec);
            continue;
        }
        /* the bot's move must be one check() calls valid for the mover */
        memcpy(before, st, ops->state_size);
        char why[400];
        if (game_bot_play(ops, st, bot, &rec, why, sizeof why, &e) != 0)
            fail_msg("%s: bot %s failed: %s", ops->name, bot, e.detail);
        json_t *play = json_object_get(rec, "play");
        if (play) {
            game_verdict v;
            game_err ce = {0};
            int seat = json_is_integer(json_object_get(rec, "seat"))
                           ? (int)json_integer_value(json_object_get(rec, "seat"))
                           : gs.to_move;
            assert_int_equal(seat, gs.to_move);
            if (game_judge(ops, before, seat, play, NULL, &v, &ce) != 0 || !v.valid)
                fail_msg("%s: bot %s made a play check() refuses: %s %s", ops->name, bot,
                         ce.detail, v.reason);
        }
        json_decref(rec);
    }
    char *out = text(ops->encode(st));
    free(st);
    free(scratch);
    free(before);
    return out;
}

static void test_every_game(void **unused)
{
    (void)unused;
    int checked = 0;
    for (const game_ops *const *g = game_registry; *g; g++) {
        setup su[24];
        int n = setups_of(*g, su, 24);
        for (int i = 0; i < n; i++)
            for (const game_bot *b = (*g)->bots; b->name; b++) {
                const char *all[GAME_MAX_SEATS];
                game_err e = {0};
                for (int s = 0; s < su[i].players; s++)
                    all[s] = b->name;
                if (game_seating(*g, all, su[i].players, &e))
                    continue; /* a strategy some tables refuse (Hanabi's info) */
                for (uint64_t seed = 1; seed <= GAMES_PER_SETUP; seed++) {
                    /* the deep checks on one game of the first bot, the bots' own on all */
                    clock_t t0 = clock();
                    char *a = play_one(&su[i], b->name, seed, b == (*g)->bots && seed == 1);
                    if (getenv("TEST_GAMES_TIMES"))
                        fprintf(stderr, "%s %s %dp %s seed %llu: %.2f s\n", (*g)->name, su[i].variant,
                                su[i].players, b->name, (unsigned long long)seed,
                                (double)(clock() - t0) / CLOCKS_PER_SEC);
                    free(a);
                    checked++;
                }
            }
    }
    assert_true(checked >= 40);
}

/* The same seed and strategy give the same game, to the byte of its
 * encoding, for every bot (the random ones draw from the state's bot RNG);
 * another seed gives another game. */
static void test_determinism(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        setup su[24];
        setups_of(*g, su, 24);
        for (const game_bot *b = (*g)->bots; b->name; b++) {
            const char *all[GAME_MAX_SEATS];
            game_err e = {0};
            for (int s = 0; s < su[0].players; s++)
                all[s] = b->name;
            if (game_seating(*g, all, su[0].players, &e))
                continue;
            char *x = play_one(&su[0], b->name, 7, 0), *y = play_one(&su[0], b->name, 7, 0);
            char *z = play_one(&su[0], b->name, 8, 0);
            if (strcmp(x, y) != 0)
                fail_msg("%s %s: seed 7 played twice gives two games", (*g)->name, b->name);
            if (strcmp(x, z) == 0)
                fail_msg("%s %s: seeds 7 and 8 give the same game", (*g)->name, b->name);
            free(x);
            free(y);
            free(z);
        }
    }
}

/* The strategies are rows played by engine/bots.c: "default" is bots[0]
 * in every game; an unknown name and a finished game are refused without a
 * change; help mode advises bots[0]'s play, one check() calls valid, to the
 * seat to move only. */
static void test_bots(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        setup su[24];
        setups_of(ops, su, 24);
        assert_ptr_equal(game_find_bot(ops, "default"), &ops->bots[0]);
        for (const game_bot *b = ops->bots; b->name; b++) /* GET /rules/<game> says what each does */
            assert_true(b->about && strlen(b->about) > 10 && b->choose);
        assert_null(game_find_bot(ops, "nobody"));
        char *a = play_one(&su[0], "default", 3, 0), *b = play_one(&su[0], ops->bots[0].name, 3, 0);
        assert_string_equal(a, b);
        free(a);
        free(b);

        void *st = calloc(1, ops->state_size), *before = calloc(1, ops->state_size);
        game_err e = {0};
        game_status gs;
        json_t *h = NULL, *rec = NULL;
        assert_int_equal(game_init(ops, st, su[0].variant, su[0].players, 5, NULL, &e), 0);
        ops->status(st, &gs);
        memcpy(before, st, ops->state_size);
        assert_int_equal(game_bot_play(ops, st, "nobody", &rec, NULL, 0, &e), ERR_BAD_MEMBER);
        assert_null(rec);
        assert_memory_equal(st, before, ops->state_size);
        assert_int_equal(game_hint(ops, st, (gs.to_move + 1) % gs.nseats, &h, &e), ERR_NOT_YOUR_TURN);
        assert_int_equal(game_hint(ops, st, gs.to_move, &h, &e), 0);
        assert_memory_equal(st, before, ops->state_size);
        assert_string_equal(json_string_value(json_object_get(h, "strategy")), ops->bots[0].name);
        game_verdict v;
        assert_int_equal(game_judge(ops, st, gs.to_move, json_object_get(h, "play"), NULL, &v, &e), 0);
        assert_true(v.valid);
        json_decref(h);
        while (gs.over == 0) { /* to the end, by the default strategy */
            if (!game_autoplay(ops, st, NULL))
                assert_int_equal(game_bot_play(ops, st, "default", NULL, NULL, 0, &e), 0);
            ops->status(st, &gs);
        }
        memcpy(before, st, ops->state_size);
        assert_int_equal(game_bot_play(ops, st, ops->bots[0].name, NULL, NULL, 0, &e), ERR_GAME_OVER);
        assert_int_equal(game_hint(ops, st, 0, &h, &e), ERR_GAME_OVER);
        assert_memory_equal(st, before, ops->state_size);
        free(st);
        free(before);
    }
}

/* Every game speaks in two voices: a bot's line in the log's (the play
 * without a subject, the log names the seat: "plays card 2: ...", "takes
 * 7H ...") and help mode's to the player ("Play your card 2: ...", "Take
 * 7H ..."); neither says "I", "my" or "The computer". */
static void test_voices(void **unused)
{
    (void)unused;
    regex_t first, bot, hint;
    assert_int_equal(regcomp(&first, "(^|[^A-Za-z])(I|my|me|mine|The computer|recommend)([^A-Za-z]|$)",
                             REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regcomp(&bot, "^[a-z]+s ", REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regcomp(&hint, "^[A-Z][a-z]+ ", REG_EXTENDED | REG_NOSUB), 0);
    regex_t bots_own;
    assert_int_equal(regcomp(&bots_own, "(^|[^A-Za-z])(its phase|its chop|it holds|it sees|it can play)([^A-Za-z]|$)",
                             REG_EXTENDED | REG_NOSUB), 0);
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        setup su[24];
        setups_of(ops, su, 24);
        void *st = calloc(1, ops->state_size);
        game_err e = {0};
        game_status gs;
        assert_int_equal(game_init(ops, st, su[0].variant, su[0].players, 11, NULL, &e), 0);
        int hints = 0;
        for (ops->status(st, &gs); !gs.over && hints < 400; ops->status(st, &gs)) {
            if (game_autoplay(ops, st, NULL))
                continue;
            json_t *h = NULL, *rec = NULL;
            char ex[400];
            assert_int_equal(game_hint(ops, st, gs.to_move, &h, &e), 0);
            const char *said = json_string_value(json_object_get(h, "explanation"));
            assert_non_null(said);
            if (regexec(&hint, said, 0, NULL, 0) != 0 || regexec(&first, said, 0, NULL, 0) == 0 ||
                regexec(&bots_own, said, 0, NULL, 0) == 0)
                fail_msg("%s: a hint not said to the player: %s", ops->name, said);
            assert_int_equal(game_bot_play(ops, st, "default", &rec, ex, sizeof ex, &e), 0);
            if (regexec(&bot, ex, 0, NULL, 0) != 0 || regexec(&first, ex, 0, NULL, 0) == 0)
                fail_msg("%s: a bot's line out of the log's voice: %s", ops->name, ex);
            const char *why = json_string_value(json_object_get(rec, "reasoning"));
            if (why && (regexec(&bot, why, 0, NULL, 0) != 0 || regexec(&first, why, 0, NULL, 0) == 0))
                fail_msg("%s: a bot's reasoning out of the log's voice: %s", ops->name, why);
            json_decref(h);
            json_decref(rec);
            hints++;
        }
        assert_true(hints > 10);
        free(st);
    }
    regfree(&first);
    regfree(&bot);
    regfree(&hint);
    regfree(&bots_own);
}

/* voice_to_player: the first verb an instruction, the game's phrases the
 * player's, the rest as it is, cut to the buffer. */
static void test_voice_to_player(void **unused)
{
    (void)unused;
    static const char *const W[][2] = {{"its phase", "your phase"}, {"the hand", "your hand"}};
    static const char *const CASES[][2] = {
        {"takes 7H from the discard pile: it completes its phase", "Take 7H from the discard pile: it completes your phase"},
        {"discards KH: the card its phase needs least", "Discard KH: the card your phase needs least"},
        {"plays 2H from the hand onto build pile 1 (empty): the stockpile goes down", "Play 2H from your hand onto build pile 1 (empty): the stockpile goes down"},
        {"clears the embargo of player 2", "Clear the embargo of player 2"},
        {"pushes on", "Push on"}, {"passes", "Pass"}, {"goes out", "Go out"},
        {"has no possible play", "You have no possible play"},
        {"Already an instruction: its phase", "Already an instruction: your phase"},
    };
    char out[120];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        voice_to_player(CASES[i][0], W, 2, out, sizeof out);
        assert_string_equal(out, CASES[i][1]);
    }
    voice_to_player("takes 7H from the discard pile: it completes its phase", W, 2, out, 12);
    assert_string_equal(out, "Take 7H fro");
    voice_to_player("discards KH: its phase", W, 2, out, 17);
    assert_string_equal(out, "Discard KH: your");
}

/* ops->invariants can fail: a state of 0xFF bytes (every count beyond its
 * array) is refused; and every game has them (the ASan build runs them
 * after every play, GAME_CHECK). */
static void test_invariants_refuse(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        assert_non_null(ops->invariants);
        void *st = malloc(ops->state_size);
        game_err e = {0};
        memset(st, 0xFF, ops->state_size);
        assert_int_equal(ops->invariants(st, &e), ERR_INTERNAL);
        assert_true(e.detail[0] != 0);
        free(st);
    }
}

/* What the per-game files checked by hand, for every game: a decoded copy
 * of a position reads alike to every reader (view, history, events), so
 * nothing a reader sees lives outside the encoding (and the seat to move
 * has the same plays, each listed once); a reader's history and events, like its view, do
 * not change however the cards it may not see lie (ops->redeal); every bot move and
 * every hint comes with a one-line explanation. A game per variant at its
 * usual table, played by the default strategy on a seed test_every_game's
 * deep checks do not use: every READERS_EVERY-th of its first
 * READERS_EARLY positions (with a hint), then every READERS_LATE-th, and
 * the last (the readers' answers grow with the game: every position of a
 * long game would take minutes, under ASan most of all). */
enum { READERS_EVERY = 11, READERS_EARLY = 66, READERS_LATE = 199 };

static void reads_alike(const game_ops *ops, const void *a, const void *b, int reader, int all)
{
    char *x = text(ops->history(a, reader)), *y = text(ops->history(b, reader));
    if (strcmp(x, y) != 0)
        fail_msg("%s: the history of reader %d differs:\n%s\n%s", ops->name, reader, x, y);
    free(x);
    free(y);
    if (ops->events) {
        x = text(ops->events(a, reader, 0));
        y = text(ops->events(b, reader, 0));
        if (strcmp(x, y) != 0)
            fail_msg("%s: the events of reader %d differ:\n%s\n%s", ops->name, reader, x, y);
        free(x);
        free(y);
    }
    if (!all)
        return;
    x = text(ops->view(a, reader));
    y = text(ops->view(b, reader));
    if (strcmp(x, y) != 0)
        fail_msg("%s: the view of reader %d differs after a round trip", ops->name, reader);
    free(x);
    free(y);
    game_status gs;
    ops->status(a, &gs);
    if (reader >= 0 && reader == gs.to_move) { /* the others have none (test_every_game) */
        json_t *l = ops->legal(a, reader);
        for (size_t i = 0; i < json_array_size(l); i++) /* each play once */
            for (size_t k = 0; k < i; k++)
                if (json_equal(json_array_get(l, i), json_array_get(l, k)))
                    fail_msg("%s: legal plays %zu and %zu of seat %d are the same", ops->name, k, i,
                             reader);
        json_decref(l);
        x = text(ops->legal(a, reader));
        y = text(ops->legal(b, reader));
        if (strcmp(x, y) != 0)
            fail_msg("%s: the legal plays of seat %d differ after a round trip", ops->name, reader);
        free(x);
        free(y);
    }
}

static void one_line(const game_ops *ops, const char *what, const char *s)
{
    if (!s || !s[0] || strchr(s, '\n'))
        fail_msg("%s: %s is not one line: \"%s\"", ops->name, what, s ? s : "(none)");
}

static void test_readers_alike(void **unused)
{
    (void)unused;
    int positions = 0;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        setup su[24];
        int n = setups_of(ops, su, 24);
        void *st = calloc(1, ops->state_size), *copy = calloc(1, ops->state_size);
        assert_non_null(st);
        assert_non_null(copy);
        int usual = ops->default_players ? ops->default_players : ops->min_players;
        for (int i = 0; i < n; i++) {
            if (su[i].players != usual)
                continue;
            clock_t t0 = clock();
            game_err e = {0};
            const char *bot = ops->bots[0].name;
            assert_int_equal(game_init(ops, st, su[i].variant, su[i].players, 2, NULL, &e), 0);
            game_status gs;
            for (int moves = 0;; moves++) {
                assert_true(moves < MAX_MOVES);
                ops->status(st, &gs);
                int who[GAME_MAX_SEATS + 3] = {SEAT_SPECTATOR, SEAT_OBSERVER, SEAT_ADMIN}, nw = 3;
                for (int s = 0; s < gs.nseats; s++)
                    who[nw++] = s;
                int sampled = moves % (moves < READERS_EARLY ? READERS_EVERY : READERS_LATE) == 0;
                if (sampled || gs.over) {
                    json_t *j = ops->encode(st);
                    memset(copy, 0, ops->state_size);
                    assert_int_equal(ops->decode(copy, j, &e), 0);
                    json_decref(j);
                    for (int k = 0; k < nw; k++)
                        reads_alike(ops, st, copy, who[k], 1);
                    for (int k = 0; ops->redeal && !gs.over && k < nw; k++) {
                        if (who[k] == SEAT_OBSERVER || who[k] == SEAT_ADMIN)
                            continue; /* they may see every card */
                        memcpy(copy, st, ops->state_size);
                        ops->redeal(copy, who[k], (uint64_t)moves * 31 + (uint64_t)k);
                        reads_alike(ops, st, copy, who[k], 0);
                    }
                    positions++;
                }
                if (gs.over)
                    break;
                if (game_autoplay(ops, st, NULL))
                    continue;
                if (sampled && moves < READERS_EARLY) { /* the planners' hints are slow */
                    json_t *h = NULL;
                    assert_int_equal(game_hint(ops, st, gs.to_move, &h, &e), 0);
                    one_line(ops, "a hint's explanation",
                             json_string_value(json_object_get(h, "explanation")));
                    json_decref(h);
                }
                char why[400] = "";
                assert_int_equal(game_bot_play(ops, st, bot, NULL, why, sizeof why, &e), 0);
                one_line(ops, "a bot's explanation", why);
            }
            if (getenv("TEST_GAMES_TIMES"))
                fprintf(stderr, "readers %s %s: %.2f s\n", ops->name, su[i].variant,
                        (double)(clock() - t0) / CLOCKS_PER_SEC);
        }
        free(st);
        free(copy);
    }
    assert_true(positions > 40);
}

/* A decoded copy plays on like the original: from the same position, the
 * same strategy makes the same plays to the same end (nothing that decides
 * a play, the bots' RNG included, lives outside the encoding), and the end
 * state of every such game, won, drawn or cut short, decodes again. */
enum { PLAYS_ON_SEEDS = 2, PLAYS_ON_FROM = 30 };

/* Play `st` to its end by `bot` (autoplay first); the number of moves. */
static int play_out(const game_ops *ops, void *st, const char *bot)
{
    game_status gs;
    game_err e = {0};
    int m = 0;
    for (ops->status(st, &gs); !gs.over; ops->status(st, &gs), m++) {
        assert_true(m < MAX_MOVES);
        if (!game_autoplay(ops, st, NULL))
            assert_int_equal(game_bot_play(ops, st, bot, NULL, NULL, 0, &e), 0);
    }
    return m;
}

static void test_decoded_plays_on(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        setup su[24];
        int n = setups_of(ops, su, 24);
        void *a = calloc(1, ops->state_size), *b = calloc(1, ops->state_size);
        assert_non_null(a);
        assert_non_null(b);
        for (int i = 0; i < n; i++)
            for (uint64_t seed = 1; seed <= PLAYS_ON_SEEDS; seed++) {
                game_err e = {0};
                game_status gs;
                const char *bot = ops->bots[seed % 2 && ops->bots[1].name ? 1 : 0].name;
                const char *all[GAME_MAX_SEATS];
                for (int s = 0; s < su[i].players; s++)
                    all[s] = bot;
                if (game_seating(ops, all, su[i].players, &e))
                    bot = ops->bots[0].name;
                assert_int_equal(game_init(ops, a, su[i].variant, su[i].players, seed + 40, NULL, &e), 0);
                for (int m = 0; m < PLAYS_ON_FROM; m++) {
                    ops->status(a, &gs);
                    if (gs.over)
                        break;
                    if (!game_autoplay(ops, a, NULL))
                        assert_int_equal(game_bot_play(ops, a, bot, NULL, NULL, 0, &e), 0);
                }
                json_t *j = ops->encode(a);
                memset(b, 0, ops->state_size);
                assert_int_equal(ops->decode(b, j, &e), 0);
                json_decref(j);
                int ma = play_out(ops, a, bot), mb = play_out(ops, b, bot);
                char *x = text(ops->encode(a)), *y = text(ops->encode(b));
                if (ma != mb || strcmp(x, y) != 0)
                    fail_msg("%s %s %dp seed %llu: the decoded copy played on differently",
                             ops->name, su[i].variant, su[i].players, (unsigned long long)seed);
                free(y);
                j = json_loads(x, 0, NULL); /* the end state decodes again */
                memset(b, 0, ops->state_size);
                if (ops->decode(b, j, &e) != 0)
                    fail_msg("%s %s %dp seed %llu: the end state does not decode: %s at %s",
                             ops->name, su[i].variant, su[i].players, (unsigned long long)seed,
                             e.detail, e.pointer);
                json_decref(j);
                free(x);
            }
        free(a);
        free(b);
    }
}

/* A bot's move and the hint are each exactly one of legal()'s plays, JSON
 * for JSON (a page may pick the hinted play out of the list by equality),
 * wherever legal() lists the mover's plays: every variant at its usual
 * table, every bot, one seeded game each (the file's time budget). */
static int listed(const json_t *legal, const json_t *play)
{
    size_t i;
    json_t *x;
    json_array_foreach(legal, i, x) {
        if (json_equal(x, play))
            return 1;
    }
    return 0;
}

static void test_plays_listed(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        setup su[24];
        int nsu = setups_of(ops, su, 24);
        int usual = ops->default_players ? ops->default_players : ops->min_players;
        for (int i = 0; i < nsu; i++)
            for (const game_bot *b = ops->bots; b->name && su[i].players == usual; b++) {
                void *st = calloc(1, ops->state_size);
                game_err e = {0};
                game_status gs;
                assert_int_equal(game_init(ops, st, su[i].variant, su[i].players, 11, NULL, &e), 0);
                for (int moves = 0; moves < MAX_MOVES; moves++) {
                    ops->status(st, &gs);
                    if (gs.over)
                        break;
                    if (game_autoplay(ops, st, NULL))
                        continue;
                    json_t *legal = ops->legal(st, gs.to_move), *h = NULL;
                    assert_int_equal(game_hint(ops, st, gs.to_move, &h, &e), 0);
                    if (json_array_size(legal) && !listed(legal, json_object_get(h, "play")))
                        fail_msg("%s %s %dp move %d: the hint %s is not one of legal()'s plays", ops->name,
                                 su[i].variant, su[i].players, moves, json_dumps(json_object_get(h, "play"), 0));
                    /* the play as the bot chose it (a record may hide a drawn card) */
                    union { max_align_t align; unsigned char bytes[GAME_PLAY_MAX]; } chosen;
                    char why[400];
                    rng r = rng_at(ops->bot_key(st), (uint64_t)gs.plays);
                    b->choose(st, gs.to_move, &r, chosen.bytes, why, sizeof why);
                    json_t *play = ops->play_json(chosen.bytes);
                    if (json_array_size(legal) && !listed(legal, play))
                        fail_msg("%s %s %dp move %d: bot %s's play %s is not one of legal()'s plays",
                                 ops->name, su[i].variant, su[i].players, moves, b->name,
                                 json_dumps(play, 0));
                    assert_true(ops->judge(st, chosen.bytes, NULL)); /* as game_bot_play makes it */
                    ops->commit(st, chosen.bytes, SEAT_TABLE, why, NULL);
                    json_decref(play);
                    json_decref(legal);
                    json_decref(h);
                }
                free(st);
            }
    }
}

/* Bot explanations are public: every reader is shown the same line for a
 * bot's play while the game runs (the record's "explanation"), so it may
 * rest only on what every reader may know -- the play, what it shows the
 * table, public piles, counts and clues, the strategy's name --, never on
 * a card some reader may not see (the strategy's own line, which may, is
 * the record's "reasoning"). The counterfactual: at sampled positions of
 * whole games (every variant at its usual table, at each table option a
 * game takes -- Five Crowns' open table --, every strategy in every seat),
 * for each reader that is not the admin (the spectator, the observer of a
 * "spectators": "all" table, each seat but the mover), a copy redealt for
 * that reader (ops->redeal: the cards it may not see shuffled among their
 * places) is a position it cannot tell from the real one. Wherever the
 * same play has the same public outcome on both (the spectator's view
 * after it: what the play showed the table, a clue's touched cards), its
 * public line is the same text: the bot's own move (game_bot_play), and
 * ops->explain of a sample of the mover's legal plays for every strategy.
 * A copy the bot cannot play on (a redeal may deal a position the game
 * never reaches: a Hanabi hand at odds with its clues) is not compared.
 * And help mode's advice to the mover, which may name its own cards, does
 * not change with the cards the mover may not see. */
enum { EXPL_EARLY = 30, EXPL_EVERY_EARLY = 3, EXPL_EVERY = 29, EXPL_PLAYS = 2, EXPL_SEEDS = 1 };

static const char *const TABLES[] = {NULL, "{\"open\": true}"};

/* 1 when the spectator sees the same after the same play on a and b. */
static int same_outcome(const game_ops *ops, const void *a, const void *b)
{
    char *x = text(ops->view(a, SEAT_SPECTATOR)), *y = text(ops->view(b, SEAT_SPECTATOR));
    int same = strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

/* The bot's move on a and on b, which differ only in cards `reader` may
 * not see: 1 when compared (the same play, the same outcome). */
static int bot_alike(const game_ops *ops, void *a, void *b, const char *bot, int reader, const char *where)
{
    game_err e = {0};
    json_t *ra = NULL, *rb = NULL;
    char wa[400] = "", wb[400] = "";
    assert_int_equal(game_bot_play(ops, a, bot, &ra, wa, sizeof wa, &e), 0);
    int same = game_bot_play(ops, b, bot, &rb, wb, sizeof wb, &e) == 0 &&
               json_equal(json_object_get(ra, "play"), json_object_get(rb, "play")) && same_outcome(ops, a, b);
    if (same && strcmp(wa, wb) != 0)
        fail_msg("%s: bot %s's explanation changes with cards reader %d may not see, for the same play "
                 "%s:\n  \"%s\"\n  \"%s\"", where, bot, reader, json_dumps(json_object_get(ra, "play"), 0),
                 wa, wb);
    if (same) /* the strategy's own line is kept apart */
        assert_non_null(json_string_value(json_object_get(ra, "reasoning")));
    json_decref(ra);
    json_decref(rb);
    return same;
}

/* ops->explain of a sample of the mover's legal plays at st and at its
 * redealt copy c, for every strategy: the number compared. */
static int explain_alike(const game_ops *ops, const void *st, const void *c, void *a, void *b, int mover,
                         int reader, const char *where)
{
    size_t n = 0;
    json_decref(game_legal_page(ops, st, mover, 0, 1, &n)); /* Phazed's list can be long */
    size_t step = n > EXPL_PLAYS ? n / EXPL_PLAYS : 1;
    int compared = 0;
    for (size_t i = 0; i < n; i += step) {
        size_t total;
        json_t *legal = game_legal_page(ops, st, mover, i, 1, &total), *p = json_array_get(legal, 0);
        game_err e = {0};
        memcpy(a, st, ops->state_size);
        memcpy(b, c, ops->state_size);
        if (!p || game_apply(ops, a, mover, p, NULL, &e) != 0 || game_apply(ops, b, mover, p, NULL, &e) != 0 ||
            !same_outcome(ops, a, b)) {
            json_decref(legal);
            continue;
        }
        for (const game_bot *bot = ops->bots; bot->name; bot++) {
            char x[400], y[400];
            ops->explain(st, mover, p, bot->name, x, sizeof x);
            ops->explain(c, mover, p, bot->name, y, sizeof y);
            if (strcmp(x, y) != 0)
                fail_msg("%s: the %s line of play %s changes with cards reader %d may not see:\n  \"%s\"\n  "
                         "\"%s\"", where, bot->name, json_dumps(p, 0), reader, x, y);
            compared++;
        }
        json_decref(legal);
    }
    return compared;
}

/* Help mode answers the seat to move from what that seat may see: the
 * same advice, to the byte, however the cards it may not see lie. */
static void hint_alike(const game_ops *ops, const void *st, const void *c, int mover, const char *where)
{
    json_t *x = NULL, *y = NULL;
    game_err e = {0};
    assert_int_equal(game_hint(ops, st, mover, &x, &e), 0);
    assert_int_equal(game_hint(ops, c, mover, &y, &e), 0);
    if (!json_equal(x, y))
        fail_msg("%s: the hint of seat %d changes with cards it may not see:\n  %s\n  %s", where, mover,
                 json_dumps(x, 0), json_dumps(y, 0));
    json_decref(x);
    json_decref(y);
}

static void test_explanations_public(void **unused)
{
    (void)unused;
    long bots = 0, lines = 0;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        assert_non_null(ops->explain);
        assert_non_null(ops->redeal);
        size_t sz = ops->state_size;
        void *st = calloc(1, sz), *c = calloc(1, sz), *a = calloc(1, sz), *b = calloc(1, sz);
        assert_true(st && c && a && b);
        int usual = ops->default_players ? ops->default_players : ops->min_players;
        clock_t t0 = clock();
        for (const char *const *v = ops->variants; *v; v++)
            for (size_t t = 0; t < sizeof TABLES / sizeof TABLES[0]; t++)
                for (const game_bot *bot = ops->bots; bot->name; bot++)
                    for (uint64_t seed = 1; seed <= EXPL_SEEDS; seed++) {
                        const char *all[GAME_MAX_SEATS];
                        game_err e = {0};
                        for (int s = 0; s < usual; s++)
                            all[s] = bot->name;
                        if (game_seating(ops, all, usual, &e))
                            continue;
                        json_t *opt = TABLES[t] ? json_loads(TABLES[t], 0, NULL) : NULL;
                        int rc = game_init(ops, st, *v, usual, 70 + seed, opt, &e);
                        json_decref(opt);
                        if (rc)
                            continue; /* a table option this game does not have */
                        game_status gs;
                        for (int moves = 0;; moves++) {
                            assert_true(moves < MAX_MOVES);
                            ops->status(st, &gs);
                            if (gs.over)
                                break;
                            if (game_autoplay(ops, st, NULL))
                                continue;
                            int every = moves < EXPL_EARLY ? EXPL_EVERY_EARLY : EXPL_EVERY;
                            if ((moves + (int)seed) % every == 0) {
                                int who[GAME_MAX_SEATS + 2] = {SEAT_SPECTATOR, SEAT_OBSERVER}, nw = 2;
                                for (int s = 0; s < gs.nseats; s++)
                                    if (s != gs.to_move)
                                        who[nw++] = s;
                                char where[160];
                                snprintf(where, sizeof where, "%s %s %dp %s%s seed %llu move %d", ops->name, *v,
                                         usual, TABLES[t] ? TABLES[t] : "", bot->name, (unsigned long long)seed,
                                         moves);
                                for (int k = 0; k < nw; k++) {
                                    memcpy(c, st, sz);
                                    ops->redeal(c, who[k], seed * 7919 + (uint64_t)moves * 31 + (uint64_t)k);
                                    lines += explain_alike(ops, st, c, a, b, gs.to_move, who[k], where);
                                    memcpy(a, st, sz);
                                    memcpy(b, c, sz);
                                    bots += bot_alike(ops, a, b, bot->name, who[k], where);
                                }
                                memcpy(c, st, sz); /* help mode: from what the mover may see */
                                ops->redeal(c, gs.to_move, seed + (uint64_t)moves);
                                hint_alike(ops, st, c, gs.to_move, where);
                            }
                            assert_int_equal(game_bot_play(ops, st, bot->name, NULL, NULL, 0, &e), 0);
                        }
                    }
        if (getenv("TEST_GAMES_TIMES"))
            fprintf(stderr, "explanations %s: %.2f s\n", ops->name, (double)(clock() - t0) / CLOCKS_PER_SEC);
        free(st);
        free(c);
        free(a);
        free(b);
    }
    if (getenv("TEST_GAMES_TIMES"))
        fprintf(stderr, "explanations: %ld bot plays and %ld lines compared\n", bots, lines);
    assert_true(bots > 600 && lines > 5000);
}

/* The game for players (ops->guide, GET /rules' "guide"): every game has
 * one; it names each variant once in ops->variants' order and each
 * strategy once, says why one that cannot sit beside people cannot, and
 * holds no notation: no bracket, brace, quote, route or play code. */
static void guide_text_ok(const game_ops *ops, const char *t)
{
    if (!t || !*t)
        fail_msg("%s: an empty guide line", ops->name);
    static const char *const BAD[] = {"[", "]", "{", "}", "\"", "GET ", "POST ", "/games", "null",
                                      "reason ", "seat 0", "play_type", NULL};
    for (const char *const *b = BAD; *b; b++)
        if (strstr(t, *b))
            fail_msg("%s: \"%s\" in a player's line: %s", ops->name, *b, t);
}

static void test_guides(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        const game_guide *gd = ops->guide;
        if (!gd)
            fail_msg("%s has no guide", ops->name);
        guide_text_ok(ops, gd->summary);
        guide_text_ok(ops, gd->length);
        int nv = 0;
        for (; ops->variants[nv]; nv++) {
            if (!gd->variants[nv].name || strcmp(gd->variants[nv].name, ops->variants[nv]) != 0)
                fail_msg("%s: guide variant %d is not %s", ops->name, nv, ops->variants[nv]);
            guide_text_ok(ops, gd->variants[nv].text);
        }
        assert_null(gd->variants[nv].name);
        int nb = 0, nr = 0;
        for (const game_bot *b = ops->bots; b->name; b++)
            nb++;
        for (const game_guide_row *r = gd->bots; r->name; r++, nr++) {
            const game_bot *b = game_find_bot(ops, r->name);
            if (!b || strcmp(b->name, r->name) != 0)
                fail_msg("%s: the guide names no strategy %s", ops->name, r->name);
            for (const game_guide_row *q = gd->bots; q < r; q++)
                assert_string_not_equal(q->name, r->name);
            guide_text_ok(ops, r->text);
            if (!game_bot_with_people(ops, b)) {
                if (!r->alone)
                    fail_msg("%s: %s cannot sit beside people and the guide does not say why", ops->name,
                             r->name);
                guide_text_ok(ops, r->alone);
            }
        }
        assert_int_equal(nr, nb);
        for (const char *const *l = gd->turn; *l; l++)
            guide_text_ok(ops, *l);
        for (const char *const *l = gd->winning; *l; l++)
            guide_text_ok(ops, *l);
        assert_non_null(gd->turn[0]);
        assert_non_null(gd->winning[0]);
    }
}

/* The bots' chance (engine/core/rng.h: rng_at): the same key and step give
 * the same draws, on every call; another step or another key another
 * stream (the first 64 bits of each of a thousand steps all differ, and no
 * small key at a small step repeats another's). */
static void test_rng_at(void **unused)
{
    (void)unused;
    enum { K = 1000 };
    static uint64_t first[3 * K];
    int n = 0;
    for (uint64_t key = 0; key < 3; key++)
        for (uint64_t k = 0; k < K; k++) {
            rng a = rng_at(key * 0x1234567ULL, k), b = rng_at(key * 0x1234567ULL, k);
            for (int i = 0; i < 8; i++)
                assert_int_equal(rng_next(&a), rng_next(&b));
            rng c = rng_at(key * 0x1234567ULL, k);
            first[n++] = (uint64_t)rng_next(&c) << 32 | rng_next(&c);
        }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (first[i] == first[j])
                fail_msg("rng_at: streams %d and %d begin alike", i, j);
    /* small keys at small steps: no pair cancels into another's seed */
    for (uint64_t x = 0; x < 16; x++)
        for (uint64_t y = 0; y < 16; y++)
            for (uint64_t u = 0; u < 16; u++)
                for (uint64_t v = 0; v < 16; v++) {
                    if (x == u && y == v)
                        continue;
                    rng a = rng_at(x, y), b = rng_at(u, v);
                    if (rng_next(&a) == rng_next(&b) && rng_next(&a) == rng_next(&b))
                        fail_msg("rng_at(%llu, %llu) and rng_at(%llu, %llu) draw alike", (unsigned long long)x,
                                 (unsigned long long)y, (unsigned long long)u, (unsigned long long)v);
                }
    /* a key's draws are not the deal's of the same seed (rng_seed) */
    rng d, b = rng_at(42, 0);
    rng_seed(&d, 42, 0);
    assert_true(rng_next(&d) != rng_next(&b) || rng_next(&d) != rng_next(&b));
}

/* The log replays the game: a game played by bots in every seat (a mix of
 * strategies where the game allows it), its plays applied one by one with
 * apply() to the same deal -- no bot asked, the forced passes by autoplay()
 * -- gives the same state, to the byte, after every play, and the game ends
 * there too. Nothing of the bots' chance lives in the state but the key,
 * which no play changes. */
static void test_replay_applies_plays(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        setup su[24];
        int n = setups_of(ops, su, 24), nbots = 0;
        while (ops->bots[nbots].name)
            nbots++;
        void *live = calloc(1, ops->state_size), *again = calloc(1, ops->state_size);
        assert_non_null(live);
        assert_non_null(again);
        for (int i = 0; i < n; i++)
            for (uint64_t seed = 1; seed <= 2; seed++) {
                game_err e = {0};
                const char *seat[GAME_MAX_SEATS];
                for (int s = 0; s < su[i].players; s++)
                    seat[s] = ops->bots[(s + (int)seed) % nbots].name;
                if (game_seating(ops, seat, su[i].players, &e))
                    for (int s = 0; s < su[i].players; s++)
                        seat[s] = ops->bots[0].name;
                memset(live, 0, ops->state_size);
                memset(again, 0, ops->state_size);
                assert_int_equal(game_init(ops, live, su[i].variant, su[i].players, seed + 90, NULL, &e), 0);
                assert_int_equal(game_init(ops, again, su[i].variant, su[i].players, seed + 90, NULL, &e), 0);
                uint64_t key = ops->bot_key(live);
                int moves = 0;
                game_status gs;
                for (; moves < MAX_MOVES; moves++) {
                    ops->status(live, &gs);
                    if (gs.over)
                        break;
                    json_t *rec = NULL;
                    if (game_autoplay(ops, live, &rec)) {
                        json_t *rec2 = NULL;
                        assert_int_equal(game_autoplay(ops, again, &rec2), 1);
                        assert_true(json_equal(json_object_get(rec, "play"), json_object_get(rec2, "play")));
                        json_decref(rec2);
                    } else {
                        assert_int_equal(game_bot_play(ops, live, seat[gs.to_move], &rec, NULL, 0, &e), 0);
                        if (game_apply(ops, again, gs.to_move, json_object_get(rec, "play"), NULL, &e))
                            fail_msg("%s %s %dp seed %llu move %d: the logged play of %s does not apply: %s",
                                     ops->name, su[i].variant, su[i].players, (unsigned long long)seed, moves,
                                     seat[gs.to_move], e.detail);
                    }
                    json_decref(rec);
                    if (memcmp(live, again, ops->state_size) != 0)
                        fail_msg("%s %s %dp seed %llu move %d: the replayed state is not the played one",
                                 ops->name, su[i].variant, su[i].players, (unsigned long long)seed, moves);
                    assert_true(ops->bot_key(live) == key);
                }
                assert_true(gs.over);
                ops->status(again, &gs);
                assert_true(gs.over);
            }
        free(live);
        free(again);
    }
}

/* A stored state of a release before counter-based bot chance carries its
 * bots' generator, "bot_rng", and no "bot_key": it still decodes (the
 * generator checked as then), to the same key every time. A state of this
 * release has no "bot_rng"; a game that keeps its key apart from the seed
 * refuses a state with neither member, at /bot_key. */
static void test_old_bot_rng(void **unused)
{
    (void)unused;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        void *st = calloc(1, ops->state_size), *back = calloc(1, ops->state_size);
        assert_non_null(st);
        assert_non_null(back);
        game_err e = {0};
        assert_int_equal(game_init(ops, st, NULL, ops->min_players, 5, NULL, &e), 0);
        json_t *j = ops->encode(st);
        assert_null(json_object_get(j, "bot_rng"));
        int keyed = json_object_get(j, "bot_key") != NULL;
        json_object_del(j, "bot_key");
        json_object_set_new(j, "bot_rng", json_pack("{s:s,s:s}", "state", "0123456789abcdef", "inc", "3"));
        assert_int_equal(ops->decode(back, j, &e), 0);
        uint64_t k1 = ops->bot_key(back);
        memset(back, 0, ops->state_size);
        assert_int_equal(ops->decode(back, j, &e), 0);
        assert_true(ops->bot_key(back) == k1);
        if (keyed)
            assert_true(k1 == (rng_mix64(0x0123456789abcdefULL) ^ 3));
        else
            assert_true(k1 == ops->bot_key(st)); /* the seed's, whatever the old generator */
        /* the old member is checked as it was */
        json_object_set_new(j, "bot_rng", json_pack("{s:s,s:s}", "state", "1", "inc", "2"));
        assert_int_equal(ops->decode(back, j, &e), ERR_BAD_MEMBER);
        assert_string_equal(e.pointer, "/bot_rng/inc");
        json_object_del(j, "bot_rng");
        e = (game_err){0};
        int rc = ops->decode(back, j, &e);
        if (keyed) {
            assert_int_equal(rc, ERR_BAD_MEMBER);
            assert_string_equal(e.pointer, "/bot_key");
        } else {
            assert_int_equal(rc, 0);
        }
        json_decref(j);
        free(st);
        free(back);
    }
}

/* A play the game lets its seat take back (ops->undoable) keeps the turn
 * and shows nobody anything new: for every reader (a spectator, each
 * seat), the same play made on a copy where the cards that reader may not
 * see lie otherwise (ops->redeal) leaves that reader the same view, so
 * nothing it sees after the play depends on a card it could not see
 * before (a card drawn, turned up or dealt). Every variant at its usual
 * table, two seeds (the default strategy, then a random one), every
 * UNDO_EVERY-th position, the first UNDO_TRIED
 * legal plays of each; both kinds of answer must occur. */
enum { UNDO_EVERY = 3, UNDO_TRIED = 60 };

static void test_undoable_shows_nothing(void **unused)
{
    (void)unused;
    int games = 0;
    for (const game_ops *const *g = game_registry; *g; g++) {
        const game_ops *ops = *g;
        if (!ops->undoable)
            continue;
        games++;
        long yes = 0, no = 0;
        setup su[24];
        int n = setups_of(ops, su, 24);
        void *st = calloc(1, ops->state_size), *a = calloc(1, ops->state_size),
             *b = calloc(1, ops->state_size);
        assert_true(st && a && b);
        int usual = ops->default_players ? ops->default_players : ops->min_players;
        for (int i = 0; i < n; i++) {
            if (su[i].players != usual)
                continue;
            for (uint64_t seed = 5; seed < 7; seed++) {
                /* the default strategy, then the table's last (a random one):
                 * it gets where the planners seldom go (one card left in hand) */
                int nb = 0;
                while (ops->bots[nb + 1].name)
                    nb++;
                const char *bot = ops->bots[seed == 5 ? 0 : nb].name;
                game_err e = {0};
                assert_int_equal(game_init(ops, st, su[i].variant, su[i].players, seed, NULL, &e), 0);
                game_status gs;
                for (int moves = 0;; moves++) {
                    assert_true(moves < MAX_MOVES);
                    ops->status(st, &gs);
                    if (gs.over)
                        break;
                    if (game_autoplay(ops, st, NULL))
                        continue;
                    int seat = gs.to_move;
                    json_t *legal = moves % UNDO_EVERY ? json_array() : ops->legal(st, seat);
                    for (size_t k = 0; k < json_array_size(legal) && k < UNDO_TRIED; k++) {
                        const json_t *p = json_array_get(legal, k);
                        char whynot[160] = "";
                        if (!ops->undoable(st, seat, p, whynot, sizeof whynot)) {
                            one_line(ops, "why a play cannot be taken back", whynot);
                            no++;
                            continue;
                        }
                        yes++;
                        memcpy(a, st, ops->state_size);
                        assert_int_equal(game_apply(ops, a, seat, p, NULL, &e), 0);
                        game_status after;
                        ops->status(a, &after);
                        if (after.over || after.to_move != seat)
                            fail_msg("%s: an undoable play of seat %d ends its turn", ops->name,
                                     seat);
                        for (int r = -1; ops->redeal && r < gs.nseats; r++) {
                            int reader = r < 0 ? SEAT_SPECTATOR : r;
                            memcpy(b, st, ops->state_size);
                            ops->redeal(b, reader, seed * 1000 + (uint64_t)moves * 7 + k);
                            if (game_apply(ops, b, seat, p, NULL, &e))
                                continue; /* the redeal took the card away: no such play there */
                            char *x = text(ops->view(a, reader)), *y = text(ops->view(b, reader));
                            if (strcmp(x, y) != 0)
                                fail_msg("%s: undoable play %s of seat %d shows reader %d what it "
                                         "could not see:\n%s\n%s", ops->name,
                                         json_dumps(p, JSON_COMPACT), seat, reader, x, y);
                            free(x);
                            free(y);
                        }
                    }
                    json_decref(legal);
                    assert_int_equal(game_bot_play(ops, st, bot, NULL, NULL, 0, &e), 0);
                }
            }
        }
        if (yes < 20 || no < 20)
            fail_msg("%s: %ld plays undoable, %ld not: both should occur", ops->name, yes, no);
        free(st);
        free(a);
        free(b);
    }
    assert_true(games >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_game),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_rng_at),
        cmocka_unit_test(test_replay_applies_plays),
        cmocka_unit_test(test_old_bot_rng),
        cmocka_unit_test(test_bots),
        cmocka_unit_test(test_voices),
        cmocka_unit_test(test_voice_to_player),
        cmocka_unit_test(test_invariants_refuse),
        cmocka_unit_test(test_readers_alike),
        cmocka_unit_test(test_decoded_plays_on),
        cmocka_unit_test(test_plays_listed),
        cmocka_unit_test(test_explanations_public),
        cmocka_unit_test(test_guides),
        cmocka_unit_test(test_undoable_shows_nothing),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
