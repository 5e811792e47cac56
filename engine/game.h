/* game.h: the interface every game implements, and the registry of games.
 *
 * A game is one `const game_ops` row in engine/registry.c. api/ and the CLI
 * know games only through this table: they never include a game's own
 * headers. State is an opaque, fixed-size plain value of `state_size` bytes
 * (no pointers inside: copying it is a memcpy); the caller owns the memory.
 *
 * JSON ownership (jansson): arguments are borrowed; every json_t ** output is
 * a new reference the caller must json_decref(). On error, outputs are left
 * NULL and the state is unchanged (apply/bot work on a copy internally or
 * validate before mutating: nothing is ever half-applied).
 */
#ifndef CROUPIER_GAME_H
#define CROUPIER_GAME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/rng.h"

/* Readers that are not a seat:
 * - SEAT_SPECTATOR: public information only: what every seat may see. No
 *   card hidden from any seat (a hand that only its owner sees, a Hanabi
 *   hand, the deck order, a face-down card), nothing derived from one (a
 *   hidden hand's point total), while the game is in progress.
 * - SEAT_OBSERVER: a spectator at a table opened with the API option
 *   "spectators": "all" (as hanab.live): every seat's hand, but still
 *   nothing hidden from every seat (deck order, RNG, face-down piles).
 * - SEAT_ADMIN: everything.
 * Once the game is over every reader, seats and spectators alike, sees
 * every card (views, history, events). */
enum { SEAT_SPECTATOR = -1, SEAT_ADMIN = -2, SEAT_OBSERVER = -3 };
/* commit()'s reader for a bot's play: as the people at the table may see it
 * (each game says which reader that is: Hanabi's every hand but the bot's,
 * another game's the spectators'). Never a reader of a view. */
enum { SEAT_TABLE = -4 };
enum { GAME_MAX_SEATS = 8 };

/* Where a game stands (filled by ops->status). */
typedef struct game_status {
    int to_move;        /* seat whose decision it is; -1 when over */
    int over;           /* 1 when finished */
    int nseats;
    int winner;         /* winning seat, -1 when none (yet, or ever) */
    unsigned winners;   /* a tie that names several winners: bit p for seat
                           p (0 otherwise: winner alone says who won) */
    const char *result; /* static string: "playing", "won", "abandoned", "turn-limit", ... */
    int turns;          /* turns completed (all seats together) */
    int rounds;         /* hands/rounds completed, for games played in hands (else 0) */
    int plays;          /* plays recorded in the history */
    double score[GAME_MAX_SEATS]; /* game-specific per-seat score (0 if none);
                                     cooperative games: the team score in every seat */
    int max_score;      /* cooperative games: the best possible score (else 0) */
    int lower_is_better;/* 1 when score[] are penalty points */
} game_status;

/* The verdict on a play (game_judge). */
typedef struct game_verdict {
    int valid;       /* 1 legal */
    int turn_ending; /* 1 when the play ends the player's turn */
    char reason[320];
    char rule[64];
} game_verdict;

/* An autograder function (/validate/<game>/<name> or /play/<game>[/<name>]).
 * `args` has exactly `nparams` entries in parameter order; an optional
 * parameter the caller left out is NULL. On a bad argument, call() returns
 * ERR_BAD_MEMBER with e->pointer = "/<index>" + the pointer inside that
 * argument (api/ rewrites the index to the parameter name for object bodies).
 * `variant` is NULL or the variant asked for (?variant= or a "variant" member).
 * `why` (may be NULL) receives the clause of the rules that decides the
 * answer (docs/autograder.md): why->rule its id, "<game>.<area>.<clause>",
 * why->reason a sentence for this call (valid/turn_ending unused). A play
 * function given a NULL `result` only fills `why` (its situation), without
 * choosing a play. */
typedef struct game_fn {
    const char *kind;             /* "validate" or "play" */
    const char *name;             /* path segment; "" for POST /play/<game> */
    const char *signature;        /* for docs: "comp10001bo_match_build(play_card, build_pile) -> bool" */
    const char *const *params;    /* NULL-terminated parameter names */
    int nrequired;                /* the first nrequired params are required */
    int (*call)(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                game_err *e);
} game_fn;

/* The autograder kit (docs/autograder.md): one suite of generated cases per
 * autograder function and variant. Every case aims at one clause; the
 * answer and the clause that decides it come from call(), the code behind
 * /validate, never from the generator. */
typedef struct game_clause {
    const char *id;       /* "phazed.phase.run-before-set" */
    const char *sentence; /* its wording, one sentence */
} game_clause;

typedef struct game_suite {
    const char *fn;          /* the short name of `croupier cases --fn` */
    const char *variant;     /* one of ops->variants */
    const char *course_name; /* the student's function: "comp10001bo_bonus" */
    const game_fn *call;     /* the row of ops->fns that answers the cases */
    const game_clause *clauses;
    int nclauses;
    const char *shapes;      /* JSON text: {"params": [{"name","shape"}...], "return": shape} */
    /* Arguments aimed at clauses[k], on its visit-th case, drawn from r: a
     * new JSON array in the order of call->params that satisfies the
     * function's stated preconditions. Pure: the same r, k, visit give the
     * same arguments. */
    json_t *(*args)(const struct game_suite *s, rng *r, int k, int visit);
    /* Play functions only (NULL for validators): what judges a returned play
     * for these arguments, a new object {"legal": [...], "check"?: name,
     * "quality"?: {bar: {"play_type": [...]}}}. */
    json_t *(*judge)(const struct game_suite *s, json_t *const *args);
} game_suite;

/* One strategy of a game: a row of ops->bots (engine/bots.c plays them). */
enum { GAME_PLAY_MAX = 256 }; /* bytes of a game's own play value, at most */
/* A game's own play value, whatever its type. */
typedef union game_play_buf {
    max_align_t align;
    unsigned char bytes[GAME_PLAY_MAX];
} game_play_buf;
typedef struct game_bot {
    const char *name;  /* "planner": the name of {"bot": ...}; NULL ends the table */
    const char *about; /* what it does, a sentence or two (GET /rules/<game>) */
    /* Choose the play of `seat`, the seat to move, from what that seat may
     * see: write the game's own play value into *play and one line of
     * reason into why: the strategy's own reasoning, which may rest on what
     * only that seat sees (its hand); every reader is shown the public line
     * of ops->explain instead while the game runs. Chance comes from r only
     * (a copy of the state's bot RNG, kept when the play is made). Never
     * changes the state. */
    void (*choose)(const void *st, int seat, rng *r, void *play, char *why, size_t why_len);
    /* Optional: refuse a seating this strategy cannot play in (bots[i]: the
     * strategy of seat i, NULL for a person): ERR_BAD_MEMBER with the
     * pointer "/players/<i>[/bot]". NULL: it plays in any seating. */
    int (*seats_ok)(const char *const *bots, int n, game_err *e);
} game_bot;

/* What a player reads of a game (the lobby and the page's Rules panel,
 * GET /rules as "guide"): plain words for people, no notation, play shape,
 * route or code (those are the rules() document's, for programs). */
typedef struct game_guide_row {
    const char *name; /* a variant or a strategy of the game; NULL ends a list */
    const char *text; /* what it changes, or how it plays: one sentence */
    /* Strategies only (may be NULL): why it cannot sit beside people,
     * when its seats_ok refuses that table. */
    const char *alone;
} game_guide_row;
typedef struct game_guide {
    const char *summary;               /* what the game is, two lines at most */
    const char *length;                /* the players and how long a game lasts */
    const game_guide_row *variants;    /* every variant, ops->variants' order */
    const game_guide_row *bots;        /* every strategy, the strongest first */
    const char *const *turn;           /* how a turn goes, NULL ended */
    const char *const *winning;        /* how the game ends and is won, NULL ended */
} game_guide;

typedef struct game_ops {
    const char *name;              /* "comp10001bo": the id used in URLs and bodies */
    const char *title;             /* "Comp10001-Bo" */
    const char *const *variants;   /* NULL-terminated; [0] is the default */
    int min_players, max_players;
    int default_players;           /* the seed's table size (0: min_players) */
    /* The strategies, ended by a row whose name is NULL. bots[0] is the
     * default: the one help mode (game_hint) and a resigned seat use, and
     * the one the name "default" stands for in every game. */
    const game_bot *bots;
    size_t state_size;
    /* Optional: how many leading bytes of a state hold anything; every byte
     * after them is zero (a game whose log fills its state's end says how
     * far it is used, and a snapshot stores only those bytes). NULL: all. */
    size_t (*state_used)(const void *st);
    int cooperative;               /* 1: all seats win or lose together (score, no winner) */
    const game_fn *fns;            /* autograder functions, may be NULL */
    int nfns;
    const game_suite *suites;      /* the autograder kit's suites, may be NULL */
    int nsuites;

    /* GET /rules/<game>: the game's own text (notation, play shapes, turn,
     * scoring, ...), beside what game_rules_json() takes from the row (its
     * name, title, variants, players, functions, bots): none of those
     * again. New ref. */
    json_t *(*rules)(void);
    /* The game for players (GET /rules and /rules/<game>, "guide"). */
    const game_guide *guide;

    /* New game (called by game_init, which has checked the variant, one of
     * `variants` or NULL for the first, and the number of players, within
     * min_players..max_players). options may be NULL; unknown options ->
     * ERR_BAD_MEMBER with pointer "/options/<name>". */
    int (*init)(void *st, const char *variant, int nplayers, uint64_t seed,
                const json_t *options, game_err *e);
    /* Full state <-> JSON (the stored blob, and the JSON export). decode
     * validates everything (the blob may come from a client) and reports
     * the pointer of the first bad member. */
    int (*decode)(void *st, const json_t *blob, game_err *e);
    json_t *(*encode)(const void *st);
    /* What `seat` may see (a seat, SEAT_SPECTATOR, SEAT_OBSERVER or
     * SEAT_ADMIN, see above). New ref. */
    json_t *(*view)(const void *st, int seat);
    /* Optional: the same view as compact JSON text, json_dumps's bytes
     * (JSON_COMPACT | JSON_ENSURE_ASCII), malloc'ed, *len its length; NULL
     * out of memory. api/ splices it into its answers without building the
     * tree (core/jw.h); a game that has it answers view() by parsing it. */
    char *(*view_text)(const void *st, int seat, size_t *len);
    /* Where the game stands: public facts only (api/ sends it to every
     * reader beside each view as "status"). */
    void (*status)(const void *st, game_status *out);

    /* Plays of `seat` now, as a JSON array (empty when not its turn):
     * every one of them, in the order legal_page pages them. */
    json_t *(*legal)(const void *st, int seat);
    /* A play in three steps, which engine/game.c puts together the same
     * way for every game (game_judge, game_apply, and engine/bots.c for a bot's play: whose turn
     * it is, the refusal of an illegal play, the invariants' check):
     * - parse: the JSON of a play into the game's own play value p (at
     *   most GAME_PLAY_MAX bytes); 0, or ERR_BAD_MEMBER with e's pointer
     *   relative to the play;
     * - judge: whether play value p is legal now for the seat to move
     *   (nonzero) or not (0); with v (may be NULL) the verdict in words,
     *   valid or not (reason, rule, turn_ending);
     * - commit: make play value p, judged legal, for the seat to move; with
     *   record (may be NULL) its history entry (new ref) as `reader` sees
     *   it: the mover's seat for a person's play, SEAT_TABLE for a bot's
     *   (as the people at the table may see it), with `why` (may be NULL)
     *   as its "explanation". */
    int (*parse)(const void *st, const json_t *play, void *p, game_err *e);
    int (*judge)(const void *st, const void *p, game_verdict *v);
    void (*commit)(void *st, const void *p, int reader, const char *why, json_t **record);
    /* If the seat to move has no choice (e.g. no possible play: the pass is
     * recorded for them), apply that forced play and return 1 with its
     * record; else return 0 and change nothing. NULL for a game where a
     * seat always has a choice; callers go through game_autoplay(). */
    int (*autoplay)(void *st, json_t **record);
    /* The bots' side of a game, for engine/bots.c: the game's bot key (set
     * at the deal, never changed by a play: a strategy's chance at a play
     * is rng_at(bot_key, plays made so far), so the state keeps no bot
     * generator and a logged bot play replays by game_apply() alone); and a
     * play value (as game_bot.choose writes it) as the JSON of a play (new
     * ref). */
    uint64_t (*bot_key)(const void *st);
    json_t *(*play_json)(const void *play);
    /* The public explanation of a bot's play, the one line every reader is
     * shown while the game runs: what `seat`, the seat to move at st, does
     * with `play` (a play of legal()'s shape) and why, as strategy
     * `strategy` (a name of ops->bots) plays. Only what every reader may
     * know goes into it: the play and what it shows the table (the card it
     * lays, the cards a clue touches), the public piles, counts and clues,
     * the rules and the strategy's name; never a card some reader may not
     * see (a hand, the deck), a count of one, nor what the strategy
     * concluded from one. A game writes it from a public observation of st
     * (what a spectator sees), which holds nothing hidden, so that this
     * holds by construction; tests/unit/test_games.c checks it against
     * ops->redeal for every reader. Pure; never changes the state. */
    void (*explain)(const void *st, int seat, const json_t *play, const char *strategy, char *out,
                    size_t n);
    /* The play history as `seat` may see it: a JSON array. New ref. */
    json_t *(*history)(const void *st, int seat);

    /* ---- optional: NULL when the game has none ---------------------------- */
    /* Plays offset..offset+limit-1 of legal()'s list, a new JSON array, and
     * *total the length of the whole list, for a game whose list can be too
     * long to build whole for each page (Phazed's phase plays): the engine
     * walks the list and keeps the page. NULL: game_legal_page() slices
     * legal(). */
    json_t *(*legal_page)(const void *st, int seat, size_t offset, size_t limit, size_t *total);
    /* Events `seat` may see, oldest first, numbered from 1: only those with
     * number > after. Each is an object in the game's own event shape with
     * an extra member "n" (its number) that api/ strips when a wire protocol
     * needs the bare shape (the WebSocket of /games/{id}/ws). New ref. */
    json_t *(*events)(const void *st, int seat, long after);
    /* Export formats besides "json" (which api/ writes for every game):
     * NULL-terminated names, and the writer: *out malloc'd, *media_type
     * static. Full record: api/ only calls it for the admin, a finished
     * game, or a seat's copy made safe by conceal. */
    const char *const *export_formats;
    int (*export_as)(const void *st, const char *format, char **out,
                     size_t *len, const char **media_type, game_err *e);
    /* Import a saved game in a foreign text format (POST /games/import with a
     * non-JSON body). ERR_NOT_FOUND when the text is not this game's format
     * at all; ERR_BAD_MEMBER with a detail naming the line when it is but is
     * broken. On success *warnings is a JSON array of strings (may be empty)
     * and *seats a JSON array of players as in POST /games
     * ([{"name":..}|{"bot":..}]) that fits the saved game. */
    int (*import_text)(void *st, const char *text, size_t len,
                       json_t **seats, json_t **warnings, game_err *e);
    /* Taking a play back (DELETE /games/{id}/plays/{n}, docs/api.md "Taking
     * a play back"): 1 when `play`, made by `seat` at st (the position just
     * before it), may be taken back while that seat's turn goes on. Such a
     * play only moves a card from the seat's hand or from a pile every
     * reader sees onto the table, where every reader sees it; it draws,
     * turns up, shuffles or deals nothing and does not end the turn, so
     * taking it back hides nothing anyone learnt from it that they could
     * not see before. api/ takes it back by rebuilding the position from
     * the log (the game needs no inverse of its plays) and checks the rest
     * (the play is the game's last, a person's, and the seat is still to
     * move). When it may not, 0 with the reason (a clause for the player,
     * "it turned up your stockpile's next card") in why (n bytes; why may
     * be NULL). Pure. NULL: the game never takes a play back. */
    int (*undoable)(const void *st, int seat, const json_t *play, char *why, size_t n);
    /* Make a copy of the state safe to hand to `seat` as a resumable save
     * while the game is in progress: redraw everything that seat may not
     * see (the draw pile's order, the RNG of future deals and of the bots,
     * at a closed table the other hands, and forget the other seats' blind
     * draws) from `salt`, a secret the server draws, so the save tells
     * nothing hidden and predicts nothing the real game will do. What the
     * seat sees is unchanged. NULL when the game never lets a seat export
     * mid-game. */
    void (*conceal)(void *st, int seat, uint64_t salt);
    /* Help mode's answer, when the game says more than bots[0]'s play:
     * game_hint() calls it for the seat to move of a game in progress, in
     * place of its own {"play", "explanation", "strategy"}. New ref in
     * *out. NULL: game_hint()'s answer. */
    int (*hint)(const void *st, int seat, json_t **out, game_err *e);
    /* Mark a copy of a past position of a finished game so that its views
     * show what a finished game shows (every card to every reader) while
     * saying where the game stood then (GET /games/{id}?at=N). The mark is
     * never encoded. Required, though it sits among the optional hooks:
     * api/ calls it without a NULL check. */
    void (*reveal)(void *st);
    /* Shuffle, among their places, the cards `reader` (a seat,
     * SEAT_SPECTATOR or SEAT_OBSERVER) may not see, from `salt`: a position
     * that reader cannot tell from this one. The engine never plays on from
     * it: it exists so that tests/unit/test_games.c can check, for every
     * game, that a reader's view does not change with what it may not see.
     * Optional (NULL: not checked). */
    void (*redeal)(void *st, int reader, uint64_t salt);
    /* The game's invariants (every card as often as its decks hold it,
     * every count within its array): 0, or ERR_INTERNAL with the broken one
     * in e->detail. Debug builds run it after every play made (GAME_CHECK);
     * decode() runs it on what it read. Optional. */
    int (*invariants)(const void *st, game_err *e);
    /* The arguments the course's play function would receive for `seat`
     * now (remote players, docs/tournaments.md): a new JSON array, in the
     * order of (*fn)->params, from what that seat may see only; *fn is the
     * "play" row of ops->fns that decodes them (its call() plays a bot on
     * them). NULL when the state's variant has no play function. Optional:
     * NULL for games without a course function. */
    json_t *(*fn_args)(const void *st, int seat, const game_fn **fn);
} game_ops;

/* engine/registry.c */
extern const game_ops *const game_registry[]; /* NULL-terminated */
const game_ops *game_find(const char *name);   /* NULL if unknown */
/* 1 when `variant` is one of ops->variants. */
int game_has_variant(const game_ops *ops, const char *variant);
/* 1 when `strategy` names one of ops->bots (or is "default"). */
int game_has_bot(const game_ops *ops, const char *strategy);

/* engine/game.c: a play, the same for every game from its parse, judge
 * and commit. */
/* Judge a play (the game's JSON) of `seat` without making it: 0 with a
 * verdict (valid or not) and, when p is not NULL, the play value (a
 * GAME_PLAY_MAX buffer); ERR_GAME_OVER, ERR_NOT_YOUR_TURN, or
 * ERR_BAD_MEMBER when `play` is not of a play's shape (pointer relative to
 * the play). */
int game_judge(const game_ops *ops, const void *st, int seat, const json_t *play, void *p,
               game_verdict *v, game_err *e);
/* Make a play of `seat`. Errors as game_judge, plus ERR_ILLEGAL (with the
 * rule) for a well-formed play the rules forbid, the state unchanged. On
 * success *record is the play's history entry as the mover sees it (new
 * ref; record may be NULL). */
int game_apply(const game_ops *ops, void *st, int seat, const json_t *play, json_t **record,
               game_err *e);

/* The game's forced play, if the seat to move has no choice: 1 with its
 * record (record may be NULL), else 0 and nothing changed (always 0 for a
 * game without ops->autoplay). */
int game_autoplay(const game_ops *ops, void *st, json_t **record);

/* A new game of `variant` (NULL: the first of ops->variants) for
 * `nplayers`: ERR_BAD_MEMBER at /variant for an unknown variant, at
 * /players for a table size the game does not take, else ops->init's
 * answer. */
int game_init(const game_ops *ops, void *st, const char *variant, int nplayers, uint64_t seed,
              const json_t *options, game_err *e);

/* The game as GET /rules lists it, from its row alone: {game, title,
 * variants, players {min, max, default}, cooperative, bots (names),
 * bots_with_people, functions [{kind, path, signature}], export_formats,
 * rules_page, rules_html, guide?}. New ref. */
json_t *game_catalogue_json(const game_ops *ops);
/* GET /rules/<game>: the catalogue entry, the game's own text (ops->rules:
 * notation, plays, turn, ...) beside it, and bots as game_bots_json. New
 * ref. */
json_t *game_rules_json(const game_ops *ops);

/* Page of legal()'s list (ops->legal_page, or legal() sliced): plays
 * offset..offset+limit-1, a new JSON array, with *total the whole list's
 * length. */
json_t *game_legal_page(const game_ops *ops, const void *st, int seat, size_t offset, size_t limit,
                        size_t *total);

/* engine/bots.c: the strategies, the same for every game. */
/* The row `strategy` names: one of ops->bots by name, or bots[0] for
 * "default"; NULL when none. */
const game_bot *game_find_bot(const game_ops *ops, const char *strategy);
/* The named strategy chooses and makes a play for the seat to move;
 * `explanation` (may be NULL) receives its public line (ops->explain).
 * record as for apply (may be NULL: selfplay passes NULL), with that line
 * as "explanation" and the strategy's own (game_bot.choose's why) as
 * "reasoning": api/ shows the reasoning only to the admin and, once the
 * game is over, to everyone. ERR_GAME_OVER, or ERR_BAD_MEMBER for an
 * unknown strategy. */
int game_bot_play(const game_ops *ops, void *st, const char *strategy, json_t **record,
                  char *explanation, size_t explanation_len, game_err *e);
/* Help mode: {"play": <play>, "explanation": "...", "strategy": <bots[0]>}
 * for `seat`, from what that seat may see (or ops->hint's answer).
 * ERR_NOT_YOUR_TURN / ERR_GAME_OVER when there is nothing to advise. */
int game_hint(const game_ops *ops, const void *st, int seat, json_t **out, game_err *e);
/* Is it `seat`'s turn in a game still on? 0 with *gs filled, else
 * ERR_GAME_OVER or ERR_NOT_YOUR_TURN (game_judge's and game_hint's first
 * refusals). */
int game_turn(const game_ops *ops, const void *st, int seat, game_status *gs, game_err *e);
/* The strategies as GET /rules/<game> lists them: [{"name",
 * "description"}...], bots[0] first. New ref. */
json_t *game_bots_json(const game_ops *ops);
/* Refuse a seating one of its strategies cannot play (their seats_ok); 0
 * when every seated strategy accepts it. */
int game_seating(const game_ops *ops, const char *const *bots, int n, game_err *e);

/* May a person sit beside strategy b (its seats_ok accepts a table of one
 * person and b in every other seat)? */
int game_bot_with_people(const game_ops *ops, const game_bot *b);
/* The game for players, as GET /rules says it ("guide"): {summary, length,
 * variants: [{name, text}], bots: [{name, text, with_people, alone?}] the
 * strongest first, turn: [...], winning: [...]}; NULL for a game without
 * one. New ref. */
json_t *game_guide_json(const game_ops *ops);

/* Debug builds (-DCROUPIER_CHECKS, which the ASan build sets) check the
 * game's invariants after every play made -- game_apply(), each game's
 * autoplay(), and game_bot_play() -- and abort naming the broken one, as
 * SQLite asserts its own in debug builds; release builds compile the check
 * away. */
#ifdef CROUPIER_CHECKS
void game_check(const game_ops *ops, const void *st);
#define GAME_CHECK(ops, st) game_check(ops, st)
#else
#define GAME_CHECK(ops, st) ((void)0)
#endif

/* engine/cases.c: the autograder kit's cases (docs/autograder.md). */
enum { GAME_CASES_MAX = 5000 };
/* The suite of `fn` (the short name) and `variant` (NULL: the default), or
 * NULL when the game has none. */
const game_suite *game_suite_find(const game_ops *ops, const char *fn, const char *variant);
/* Case i of the suite drawn from seed: a new object {"id", "args",
 * "expected" | "legal"..., "rule", "why"}; *clause (may be NULL) the index
 * of its rule in s->clauses. 0, or ERR_INTERNAL when the generator broke its
 * contract (e->detail says how). Case i does not depend on the suite's size. */
int game_case(const game_suite *s, uint64_t seed, int i, json_t **out, int *clause, game_err *e);

#endif
