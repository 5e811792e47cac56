/* bo.h: Comp10001-Bo (a Skip-Bo variant), the types shared by its files.
 *
 * Cards are bytes: 0 is "no card", 1..52 are (value-1)*4 + suit + 1 with
 * value A=1..K=13 and suit S,H,D,C = 0..3; BO_JOKER (53) is the bonus
 * variant's ZZ (wild, never an Ace, colour undetermined), rejected by the
 * standard variant. Never call bo_val/bo_red on a joker: the joker-aware
 * rules read jokers through bo_build_top / bo_disc_top (value/colour sets).
 *
 * Bonus variant (variant 1): 108 cards (4 jokers); each player holds one
 * embargo card (holds_embargo) and may be embargoed by one other player
 * (embargoed_by, -1 when free). Plays 4 ([4, null, [2, target]], embargo a
 * player) and 5 ([5, null, destination], clear one's embargo) exist only
 * there. The state is
 * a plain struct of fixed-size arrays (copy = memcpy); piles store their
 * bottom card first, so the top is pile[n-1]. The rules proper work on a
 * bo_obs, what one seat may see, which is also what the autograder
 * functions receive: the game builds one from its state, /play from its
 * arguments, so both judge plays with the same code.
 */
#ifndef CROUPIER_BO_H
#define CROUPIER_BO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "core/rng.h"

enum {
    BO_NP = 4,          /* players */
    BO_NCARDS = 104,    /* two decks (standard) */
    BO_NCARDS_BONUS = 108, /* two decks and 4 jokers (bonus) */
    BO_MAXCARDS = 108,  /* capacity of any list of cards */
    BO_NJOKERS = 4,
    BO_STOCK = 8,       /* stockpile cards dealt per player */
    BO_HAND = 5,        /* hand size after drawing */
    BO_PLAYS = 5,       /* plays per turn */
    BO_MAXTURNS = 20,   /* turns per player before "turn-limit" */
    BO_NBUILD = 4,
    BO_NDISC = 4,       /* discard piles per player */
    BO_PILE = BO_MAXCARDS, /* capacity of any pile (autograder arguments are
                              bounded by the deck: 104, or 108 in bonus) */
    BO_MAXHIST = BO_NP * BO_MAXTURNS * BO_PLAYS,
    BO_JOKER = 53,
    /* bound on the plays possible at once: 53 distinct hand cards (an
     * autograder hand may be long; 52 + ZZ) and a stockpile top to 20 piles
     * each, 16 discard tops to 19 piles each, 3 embargo targets, 20 places
     * to clear an embargo */
    BO_MAXPLAYS = 54 * 20 + 16 * 19 + 3 + 20,
};

enum { BO_PLAYING, BO_WON, BO_ABANDONED, BO_TURN_LIMIT };
enum { BO_FROM_HAND, BO_FROM_DISCARD, BO_FROM_STOCK, BO_NO_PLAY, BO_EMBARGO, BO_CLEAR };
enum { BO_TO_BUILD, BO_TO_DISCARD, BO_TO_PLAYER };

/* A play, as [type, source, destination] on the wire. For type 1 the
 * source pile is (src_owner, src_pile); dst_owner is unused for builds.
 * Type 4 (embargo): card 0, dst_kind BO_TO_PLAYER, dst_owner the target.
 * Type 5 (clear an embargo): card 0, destination as for the other plays. */
typedef struct bo_play {
    uint8_t type, card, src_owner, src_pile;
    uint8_t dst_kind, dst_owner, dst_pile;
} bo_play;

typedef struct bo_hist {
    bo_play play;
    uint8_t seat, turn; /* turn: that seat's turn number, 1-based */
} bo_hist;

/* The public table. */
typedef struct bo_board {
    uint8_t ndisc[BO_NP][BO_NDISC];
    uint8_t disc[BO_NP][BO_NDISC][BO_PILE];
    uint8_t nbuild[BO_NBUILD];
    uint8_t build[BO_NBUILD][BO_PILE];
} bo_board;

/* What `seat` sees. ndraw is -1 when unknown (autograder calls).
 * embargo_known is 0 when the caller did not give the embargo state
 * (is_valid_play): plays 4/5 are then invalid and not counted as possible. */
typedef struct bo_obs {
    int seat;
    int variant;
    int embargo_known;
    int holds_embargo[BO_NP];
    int embargoed_by[BO_NP];  /* -1: not embargoed */
    int nhand;
    uint8_t hand[BO_MAXCARDS];
    uint8_t stock_top[BO_NP]; /* 0 when the stockpile is empty */
    int nstock[BO_NP];
    int ndraw;
    int plays_left;           /* plays left this turn (1..5) */
    bo_board b;
} bo_obs;

typedef struct bo_state {
    uint8_t variant; /* 0 standard */
    uint8_t cur;
    uint8_t plays_this_turn;
    uint8_t result;  /* BO_PLAYING.. */
    int8_t winner;
    uint8_t passes;  /* passes in a row */
    uint8_t turns[BO_NP];
    uint8_t ndraw;
    uint8_t draw[BO_MAXCARDS]; /* draw[ndraw-1] is the top */
    uint8_t holds_embargo[BO_NP]; /* bonus: 1 while the embargo card is unused */
    int8_t embargoed_by[BO_NP];   /* bonus: the embargoing player, or -1 */
    uint8_t nhand[BO_NP];
    uint8_t hand[BO_NP][BO_HAND];
    uint8_t nstock[BO_NP];
    uint8_t stock[BO_NP][BO_STOCK];
    bo_board b;
    uint16_t nhist;
    bo_hist hist[BO_MAXHIST];
    rng rng;  /* deal and reshuffles */
    uint64_t bkey; /* the bots' key (game.h: bot_key), the seed's */
    /* a past position of a finished game replayed for a reader (GET
     * /games/{id}?at=N): shown as a finished game is, every card to every
     * reader (game.h: reveal). Never stored. */
    uint8_t revealed;
} bo_state;

/* What applying a play did. */
typedef struct bo_effect {
    int turn_ending; /* the turn passed (or the game ended) */
    int completed;   /* build pile cleared, or -1 */
    int won;
} bo_effect;

/* --- cards and rules (bo_rules.c) ----------------------------------------- */
static inline int bo_val(int c) { return (c - 1) / 4 + 1; }
static inline int bo_suit(int c) { return (c - 1) % 4; }
static inline int bo_red(int c) { return bo_suit(c) == 1 || bo_suit(c) == 2; }
static inline int bo_card(int value, int suit) { return (value - 1) * 4 + suit + 1; }
static inline int bo_joker(int c) { return c == BO_JOKER; }
static inline int bo_deck_size(int variant) { return variant ? BO_NCARDS_BONUS : BO_NCARDS; }

/* "2C" -> code; 0 when not a standard card (jokers: variant 1 only). */
int bo_card_parse(const char *s, int variant);
const char *bo_card_name(int c); /* "2C" (static table) */

/* Jokers are handled wherever they appear (card or pile); without jokers
 * these are exactly the standard rules. */
int bo_match_build(int card, const uint8_t *pile, int n);
int bo_match_discard(int card, const uint8_t *pile, int n, int player,
                     int to_player, int from_hand);
/* The same judgements with the clause that decides them (the rule ids of
 * bo_judge; docs/autograder.md lists them as "comp10001bo.<rule>"): *rule
 * a static id, why a sentence (both may be NULL). */
int bo_build_verdict(int card, const uint8_t *pile, int n, char *why, size_t whylen,
                     const char **rule);
int bo_discard_verdict(int card, const uint8_t *pile, int n, int player, int to_player, int from_hand,
                       char *why, size_t whylen, const char **rule);
/* 1 when `card`, legally placed on the build pile, completes it (an Ace; a
 * 2/K on a non-empty pile; in bonus, a top that can be read as 2 or K). */
int bo_build_completes(int card, const uint8_t *pile, int n);
/* Value/colour readings as a set: bit (value-2)*2 + red for values 2..13
 * (a joker is never an Ace). bo_build_top: the readings of the top card
 * of a build pile over every legal assignment of its jokers (0: the pile is
 * not a legal build pile). bo_disc_top: the readings of a discard pile's
 * top card (from its last natural card up; a pile of jokers only: all). */
uint32_t bo_build_top(const uint8_t *pile, int n);
uint32_t bo_disc_top(const uint8_t *pile, int n);
/* 1 when a decoded build pile could have been built: every prefix is a
 * legal, not completed pile. */
int bo_build_pile_ok(const uint8_t *pile, int n, int *bad_index);
/* 0 invalid, 1 valid, 2 valid turn-ending, 3 no possible play (for a type 3
 * claim that holds). why/rule may be NULL; rule receives a static id. */
int bo_judge(const bo_obs *o, const bo_play *p, char *why, size_t whylen,
             const char **rule);
/* Fill out[] (BO_MAXPLAYS) with every play rated 1 or 2, deduplicated;
 * verdicts[] (may be NULL) receives the rating. Returns the count. */
int bo_gen(const bo_obs *o, bo_play *out, uint8_t *verdicts);
int bo_any_play(const bo_obs *o);
/* Move the card of a valid play on an observation (no draws); sets
 * *completed to the cleared build pile or -1. */
void bo_obs_do(bo_obs *o, const bo_play *p, int *completed);
/* What a play function faces (docs/autograder.md): the clause id
 * ("play.no-play", "play.embargoed", ...) of the plays o allows, and a
 * sentence. */
const char *bo_situation(const bo_obs *o, char *why, size_t whylen);
/* "plays 4S from the stockpile onto build pile 0 (3C)" */
void bo_play_text(const bo_obs *o, const bo_play *p, char *out, size_t n);

/* --- game flow (bo_game.c) ------------------------------------------------- */
void bo_deal(bo_state *st, uint64_t seed); /* standard */
void bo_deal_variant(bo_state *st, uint64_t seed, int variant);
void bo_observe(const bo_state *st, int seat, bo_obs *o);
int bo_seat_can_play(const bo_state *st, int seat);
/* Apply a play already judged `verdict` (1, 2, or 3 for the pass). */
void bo_do(bo_state *st, const bo_play *p, int verdict, bo_effect *fx);
/* Judge a play of the seat to move (game over / turn checked by caller). */
int bo_state_judge(const bo_state *st, const bo_play *p, char *why,
                   size_t whylen, const char **rule);
const char *bo_result_name(int result);

/* --- JSON (bo_codec.c) ----------------------------------------------------- */
json_t *bo_card_json(int c);
json_t *bo_play_json(const void *p);
/* A list of cards; the table's discard piles (4 x 4 lists) and build piles. */
json_t *bo_cards_json(const uint8_t *c, int n);
json_t *bo_discards_json(const bo_board *b);
json_t *bo_builds_json(const bo_board *b);
/* Shape check of a play; ERR_BAD_MEMBER with the pointer inside the play. */
int bo_play_parse(const json_t *j, int variant, bo_play *out, game_err *e);
/* A list of cards of at most max, into out; *n its length. */
int bo_cards_parse(const json_t *j, const char *ptr, int variant, size_t max,
                   uint8_t *out, int *n, game_err *e);
json_t *bo_encode(const void *st);
int bo_decode(void *st, const json_t *blob, game_err *e);
/* Every card as often as the decks hold it, every count within its array:
 * 0, or ERR_INTERNAL saying what is broken (ops->invariants; decode). */
int bo_invariants(const void *st, game_err *e);
json_t *bo_view(const void *st, int seat);
/* ops->redeal: the hands `reader` may not see, every stockpile below its top
 * and the draw pile, shuffled among their places (game.h). */
void bo_redeal(void *st, int reader, uint64_t salt);
json_t *bo_history(const bo_state *st);
json_t *bo_record(const bo_state *st, int n, const bo_effect *fx,
                  const char *explanation);

/* --- strategies (bo_bots.c) ------------------------------------------------ */
/* The strongest strategy ("planner"): a play for o->seat (a pass when none
 * exists). The whole-turn planner: the same search as bo_plan_n, judged by
 * what the table offers the next players (build and discard piles their
 * stockpile tops could reach, now or through one more card) and by how
 * near our own stockpile top is to a pile with the cards we hold, and how
 * many kinds of card the table takes at once; the turn-ending discard is
 * the one that feeds them least. In a bonus game it
 * also plays jokers and embargoes as bo_plan_bonus does. */
void bo_plan(const bo_obs *o, bo_play *out, char *why, size_t whylen);
/* The standard planner with a search budget in nodes (the "standard"
 * strategy, the baseline, uses 1000).
 * In a bonus game it plays legally but knows nothing of jokers or embargoes
 * (it uses them only when nothing else ends the turn). */
void bo_plan_n(const bo_obs *o, int budget, bo_play *out, char *why, size_t whylen);
/* The bonus strategy: keeps jokers for stockpile progress, embargoes the
 * opponent closest to winning, clears its own embargo as soon as the
 * stockpile cannot move. */
void bo_plan_bonus(const bo_obs *o, bo_play *out, char *why, size_t whylen);
/* Uniform over the possible plays. */
void bo_random(const bo_obs *o, rng *r, bo_play *out, char *why, size_t whylen);
/* game_ops.explain (bo_explain.c): the public line of a bot's play, from
 * the piles, the stockpile tops and the play; never the hand. */
void bo_explain(const void *st, int seat, const json_t *play, const char *strategy, char *out,
                size_t n);


/* --- autograder functions (bo_fns.c) -------------------------------------- */
enum { BO_NFNS = 5 };
extern const game_fn bo_fns[BO_NFNS];
/* The autograder kit's judge of a returned play (game_suite.judge):
 * {"legal": [...], "quality"?: ...} for the arguments of comp10001bo_play
 * (bonus 0) or comp10001bo_bonus (bonus 1); NULL when they are not. */
json_t *bo_fn_judge(json_t *const *args, int bonus);
/* The suites of bo_cases.c. */
enum { BO_NSUITES = 8 };
extern const game_suite bo_suites[BO_NSUITES];
/* game_ops.fn_args (engine/game.h): comp10001bo_play / comp10001bo_bonus. */
json_t *bo_fn_args(const void *st, int seat, const game_fn **fn);

#endif
