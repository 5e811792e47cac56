/* hn.h: Hanabi (seed 001, "cooperative card game"), the types shared by
 * its files.
 *
 * Cards are bytes: 0 is "no card", else suit * 5 + rank (rank 1..5, suit
 * 0..5 = R Y B G W M as in the seed's colour enum; M = rainbow, rainbow
 * variant only). The one design choice a reader needs: the state keeps the
 * whole dealt deck in draw order and the list of actions, and everything
 * else (hands, piles, tokens, hint knowledge) is what replaying those
 * actions gives. decode() therefore replays the stored actions through the
 * same rules as apply(), so a decoded state is consistent by construction,
 * and events() rebuilds the seed's listener events by the same replay.
 * Hands are ordered oldest first: index 0 is the leftmost, oldest card and
 * a drawn card is appended at the end, as the seed's game.py appends it;
 * the cards after a played or discarded one move one place left.
 * Bots decide from an hn_obs, which never holds the seat's own cards.
 * Readers (game.h): a seat sees every hand but its own; SEAT_SPECTATOR
 * sees no hand at all (every Hanabi hand is hidden from its owner, so no
 * hand card is public); SEAT_OBSERVER every hand; SEAT_ADMIN everything,
 * the deck order included; once the game is over, every reader sees every
 * card. What hints told about a card is public. hn_sees() is the one test.
 */
#ifndef CROUPIER_HANABI_H
#define CROUPIER_HANABI_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "core/rng.h"

enum {
    HN_MINP = 2,
    HN_MAXP = 5,
    HN_MAXHAND = 5,
    HN_MAXSUITS = 6,
    HN_RAINBOW = 5,     /* suit index of rainbow (the seed's colors.rainbow) */
    HN_MAXDECK = 60,
    HN_NOCARD = 255,    /* the deck index (order) of a hand slot that holds no card */
    HN_MAXHINTS = 8,
    HN_MAXERRORS = 3,
    /* Turns are bounded: plays and discards each remove one of at most 60
     * cards, hints cost a token and tokens come only from the 8 at the
     * start, discards and 5s: 60 + 8 + 60 + 6 < 160. */
    HN_MAXHIST = 160,
    /* legal plays at once: 4 targets x (5 colours + 5 numbers) + 2 x 5 */
    HN_MAXLEGAL = 64,
};

/* Action types: the seed's wire codes (rulings: 2 discard, 3 play). */
enum { HN_HINT_COLOR = 0, HN_HINT_NUMBER = 1, HN_DISCARD = 2, HN_PLAY = 3 };
/* End reasons: the seed's endgames enum; -1 while playing. */
enum { HN_END_ERRORS = 0, HN_END_DECK = 1, HN_END_FIVES = 2 };
/* End options: the seed's reading (default) or hanab.live's. */
enum { HN_RULE_SEED = 0, HN_RULE_STANDARD = 1 };

/* A play. target: player (hints) or hand index (play/discard); value:
 * colour 0..5 or number 1..5 for hints. Out-of-range integers are kept as
 * given (clamped to +-1000) so the judge can call them illegal. */
typedef struct hn_play {
    int type, target, value;
} hn_play;

/* What hints told about one card in a hand: bit c of pos_col when a hint
 * naming colour c touched it, bit c of neg_col when one did not; bit n of
 * pos_num / neg_num likewise for numbers. */
typedef struct hn_know {
    uint8_t pos_col, neg_col, pos_num, neg_num;
} hn_know;

/* One turn, with what it revealed. */
typedef struct hn_hist {
    uint8_t type, seat, target, value;
    uint8_t card;    /* played/discarded card (0 for hints) */
    uint8_t drew;    /* card drawn after it, 0 when none */
    uint8_t correct; /* play: 1 placed on the field */
    uint8_t touched; /* hints: bit i = hand index i of the target */
} hn_hist;

typedef struct hn_state {
    uint8_t variant;   /* 0 standard, 1 rainbow */
    uint8_t endrule;   /* HN_RULE_* */
    uint8_t np, nsuits, handsize, ndeck;
    uint8_t first;     /* the starting player */
    uint8_t deck[HN_MAXDECK]; /* the dealt deck, deck[0] drawn first */
    uint8_t next;      /* deck index of the next card to draw */
    uint8_t nhand[HN_MAXP];
    uint8_t hand[HN_MAXP][HN_MAXHAND];
    uint8_t order[HN_MAXP][HN_MAXHAND]; /* deck index of each hand card */
    hn_know know[HN_MAXP][HN_MAXHAND];
    uint8_t fire[HN_MAXSUITS]; /* top rank of each pile, 0 = empty */
    uint8_t ndisc;
    uint8_t disc[HN_MAXDECK];  /* discard pile, oldest first */
    uint8_t hints, errors;
    uint8_t cur;
    int8_t final_left;  /* turns left in the final round, -1 before it */
    uint8_t over;
    int8_t reason;      /* HN_END_*, -1 while playing */
    uint16_t nhist;
    hn_hist hist[HN_MAXHIST];
    uint64_t seed;
    rng rng;  /* the deal and the starting player */
    /* a past position of a finished game replayed for a reader (GET
     * /games/{id}?at=N): shown as a finished game is, every card to every
     * reader (game.h: reveal). Never stored. */
    uint8_t revealed;
} hn_state;

/* What one seat may see: the seat's own cards are 0 (unknown). Bots and
 * help mode only ever read this. */
typedef struct hn_obs {
    int seat, np, nsuits, variant, endrule;
    int nhand[HN_MAXP];
    uint8_t hand[HN_MAXP][HN_MAXHAND];
    hn_know know[HN_MAXP][HN_MAXHAND];
    uint8_t fire[HN_MAXSUITS];
    uint8_t seen[HN_MAXSUITS][6]; /* copies visible: piles, discards, other hands */
    uint8_t dead[HN_MAXSUITS][6]; /* copies in the discard pile */
    int hints, errors, deck_left, final_left;
} hn_obs;

/* --- cards (hn_rules.c) ------------------------------------------------ */
static inline int hn_suit(int c) { return (c - 1) / 5; }
static inline int hn_rank(int c) { return (c - 1) % 5 + 1; }
static inline int hn_card(int suit, int rank) { return suit * 5 + rank; }
/* Copies of a rank in each suit: 3, 2, 2, 2, 1. */
int hn_copies(int rank);
/* "R3" -> card, 0 when not a card of a variant with nsuits suits. */
int hn_card_parse(const char *s, int nsuits);
const char *hn_card_name(int c); /* "R3"; "??" for 0 (static) */
char hn_color_letter(int suit);   /* 'R'..'M' */
const char *hn_color_name(int suit); /* "red".."rainbow"; "?" for no suit */
int hn_color_parse(char ch);      /* 0..5 or -1 */

/* --- the flow (hn_game.c) and the rules of a play (hn_rules.c) --------- */
/* New game (options already checked). */
void hn_deal(hn_state *st, int variant, int np, int endrule, uint64_t seed);
/* The start of a game dealt from a given deck (replays start here). */
void hn_start(hn_state *st, int variant, int np, int endrule, int first,
              const uint8_t *deck, int ndeck);
/* Judge a play of the seat to move (turn and game over checked by the
 * caller): 1 legal, else 0 with a reason and a static rule id. */
int hn_judge(const hn_state *st, const hn_play *p, char *why, size_t whylen,
             const char **rule);
/* Apply a judged-legal play of st->cur. */
void hn_do(hn_state *st, const hn_play *p);
/* Hand indexes of `target`'s cards a hint touches (bit mask). */
int hn_touch(const hn_state *st, int target, int type, int value);
int hn_score(const hn_state *st);
/* Every card drawn in one place, every count within its array: 0, or
 * ERR_INTERNAL saying what is broken (ops->invariants). */
int hn_invariants(const void *st, game_err *e);
int hn_max_score(const hn_state *st);
const char *hn_result_name(const hn_state *st);
/* Every legal play of the seat to move. */
int hn_legal(const hn_state *st, hn_play *out);
void hn_observe(const hn_state *st, int seat, hn_obs *o);
/* 1 when `reader` (a seat, SEAT_SPECTATOR, SEAT_OBSERVER, SEAT_ADMIN) may
 * see the cards of `owner`'s hand now (and what was drawn into it). */
int hn_sees(const hn_state *st, int reader, int owner);
/* A play as a sentence: "hints player 2 about their red cards". */
void hn_play_text(const hn_play *p, char *out, size_t n);

/* --- JSON (hn_codec.c) -------------------------------------------------- */
json_t *hn_play_json(const void *p);
/* Shape check; ERR_BAD_MEMBER with the pointer inside the play. Accepts
 * our form {"type",...} and the seed's {"actionType",...}. */
int hn_play_parse(const void *st, const json_t *j, void *out, game_err *e); /* game_ops.parse; out: an hn_play, st unused (may be NULL) */
json_t *hn_encode(const void *st);
int hn_decode(void *st, const json_t *blob, game_err *e);
/* Suits / ranks a card may be, from the hints alone (bit masks: bit s of
 * *cols for suit s, bit n of *nums for rank n). */
void hn_possible(const hn_state *st, const hn_know *k, int *cols, int *nums);
json_t *hn_view(const void *st, int seat);
/* The same view as compact JSON text (malloc'ed; NULL out of memory). */
char *hn_view_text(const void *st, int seat, size_t *len);
/* The record of history entry i (0-based) as `seat` sees it. */
json_t *hn_record(const hn_state *st, int i, int seat, const char *explanation);
json_t *hn_history(const void *st, int seat);
/* End option from JSON options (NULL ok). */
int hn_options(const json_t *options, int *endrule, game_err *e);

/* --- events and export (hn_events.c) ----------------------------------- */
json_t *hn_events(const void *st, int seat, long after);
int hn_export_hanablive(const hn_state *st, char **out, size_t *len, game_err *e);

/* --- strategies (hn_bots.c) --------------------------------------------- */
/* The state as `seat` may know it: every card not yet drawn and every card of
 * the seat's own hand are 0 (deck, hand, and the `drew` of the seat's own
 * draws in the history), the generators and the seed are zeroed. Strategies
 * that read the past (the information strategy replays the public history)
 * are given this, never the full state. */
void hn_mask(const hn_state *st, int seat, hn_state *out);
/* ops->redeal: the hand cards `reader` may not see and the cards not yet
 * drawn, shuffled among their places (game.h). */
void hn_redeal(void *st, int reader, uint64_t salt);
/* `info` (hn_info.c): the hat-guessing information strategy, for tables
 * where every seat plays it. `conventions` (hn_conv.c): the strategy a
 * person can learn, used with people at the table and for /hint. Both
 * choose for `seat` (the seat to move) from a masked state (hn_mask). */
void hn_info_bot(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen);
void hn_conv_bot(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen);
/* The same play as hn_conv_bot, its reason said to the player (help mode:
 * "Play your card 2: ..."; the bot's own line says "plays card 2: ..."). */
void hn_conv_hint(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen);
/* The conventions as GET /rules/hanabi documents them (new ref). */
json_t *hn_conv_rules(void);
void hn_rules_bot(const hn_obs *o, hn_play *out, char *why, size_t whylen);
void hn_random_bot(const hn_obs *o, rng *r, hn_play *out, char *why, size_t whylen);
/* The public lines of bots' plays (game_ops.explain): what every reader may
 * know of play p by the seat to move. `touched`: for a clue, the hand
 * indexes it touches (the clue shows them to everyone). hn_conv_explain
 * reads the conventions off a replay of the public history that sees no
 * card; hn_bots_explain (rules, random, info) reads `pub`, an observation
 * holding no card of any hand. */
void hn_conv_explain(const hn_state *st, int seat, const hn_play *p, int touched, char *out, size_t n);
void hn_bots_explain(const hn_obs *pub, const char *strategy, const hn_play *p, int touched, char *out,
                     size_t n);

#endif
