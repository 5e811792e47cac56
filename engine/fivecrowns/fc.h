/* fc.h: Five Crowns (seed 004), the types shared by its files.
 *
 * Cards are bytes: 0 is "no card"; 1..55 are 1 + suit*11 + (rank-3) with
 * rank 3..13 (3..9, X=10, J=11, Q=12, K=13) and suit S,C,D,H,T = 0..4;
 * 56..58 are the jokers J1 J2 J3. Two decks: every card twice (116).
 * A card's value is its rank (J/Q/K 11/12/13), 20 for the round's wild
 * rank, 50 for a joker. Piles keep their top card LAST (pile[n-1]).
 *
 * The state is a plain struct of fixed-size arrays (copy = memcpy). The
 * strategies see an fc_obs (one seat's view: own hand, discard top, public
 * counts) and never the state itself, so hints use no hidden information.
 */
#ifndef CROUPIER_FC_H
#define CROUPIER_FC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "core/rng.h"

/* Sentences are cut to their buffers on purpose (snprintf). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

enum {
    FC_MINP = 2,
    FC_MAXP = 7,
    FC_ROUNDS = 11,
    FC_DECK = 116,          /* two 58-card decks */
    FC_NTYPES = 58,         /* distinct card codes 1..58 */
    FC_JOKER1 = 56,
    FC_HANDMAX = 14,        /* 13 dealt in round 11, plus the drawn card */
    FC_PILE = 240,          /* capacity of a pile; also the most cards a game may hold in
                               all (draw + discard + hands): cards only move between those
                               within a round, so no pile can outgrow it (imports may hold
                               extra cards, up to this) */
    FC_ROUND_TURNS = 40,    /* turns per player in a round before it is called off */
    /* plays a whole game can record: a round has at most 41*np - 1 turns
       (going out on the 40*np-th, then np - 1 last turns), 2 plays each */
    FC_MAXHIST = FC_ROUNDS * FC_MAXP * (FC_ROUND_TURNS + 1) * 2,
    FC_MAXTURNS = FC_MAXHIST / 2,
    FC_MAXSCORE = 50000,     /* a saved total we accept */
    FC_MAXPOINTS = 50 * FC_HANDMAX, /* more than one hand can score in a round */
};

enum { FC_PH_DRAW, FC_PH_DISCARD, FC_PH_OVER };
enum { FC_PLAY_DRAW_PILE, FC_PLAY_DRAW_DISCARD, FC_PLAY_DISCARD };
enum { FC_PLAYING, FC_WON, FC_TIE };
enum { FC_END_NONE, FC_END_OUT, FC_END_LIMIT };

/* A play: draw (from FC_PLAY_DRAW_PILE / FC_PLAY_DRAW_DISCARD) or discard. */
typedef struct fc_play {
    uint8_t kind;
    uint8_t card;   /* discard: the card */
    uint8_t go_out; /* discard: 1 = go out */
} fc_play;

typedef struct fc_hist {
    uint8_t seat, round, kind, card; /* card: drawn or discarded */
    uint8_t go_out;
    uint8_t round_end; /* 1 when this play ended the round */
} fc_hist;

/* A finished round. */
/* How a finished hand was laid out, kept beside it (fc_round.lay) so that
 * no reader runs the arranger again: the groups' cards one group after
 * another, then the cards left over. Derived from the hand: computed when
 * the round ends or a state is decoded, never encoded. */
enum { FC_GROUPS_MAX = FC_HANDMAX / 3 };
typedef struct fc_lay {
    uint8_t ngroups, nleft;
    uint8_t kind[FC_GROUPS_MAX]; /* FC_RUN or FC_BOOK */
    uint8_t len[FC_GROUPS_MAX];
    uint8_t cards[FC_HANDMAX];
} fc_lay;

typedef struct fc_round {
    uint8_t ended;          /* FC_END_OUT or FC_END_LIMIT */
    int8_t went_out;        /* seat, -1 when called off */
    uint16_t points[FC_MAXP];
    uint8_t nhand[FC_MAXP];
    uint8_t hand[FC_MAXP][FC_HANDMAX]; /* the hands laid out */
    fc_lay lay[FC_MAXP];               /* ... and how (fc_lay_keep) */
} fc_round;

typedef struct fc_state {
    uint8_t np;
    uint8_t open;        /* 1: every hand on view, the draw pile on the seats' screens */
    uint8_t round;       /* 1..11 */
    uint8_t phase;       /* FC_PH_* */
    uint8_t cur;
    uint8_t starter;     /* who started this round */
    int8_t went_out;     /* seat that went out this round, -1 none */
    uint8_t result;      /* FC_PLAYING, FC_WON, FC_TIE */
    int8_t winner;
    int8_t call;         /* coin toss: -1 no call, 0 heads, 1 tails */
    int8_t toss;         /* -1 none (imported), 0 heads, 1 tails */
    uint8_t imported;    /* 1 when resumed from a text save */
    uint8_t first_round; /* first round played here (1, or the imported round) */
    uint16_t round_turns;/* turns completed in this round */
    uint16_t turns;      /* turns completed in the game */
    uint16_t score[FC_MAXP];
    uint8_t nhand[FC_MAXP];
    uint8_t hand[FC_MAXP][FC_HANDMAX];
    uint8_t ndraw, ndisc;
    uint8_t draw[FC_PILE];
    uint8_t disc[FC_PILE];
    fc_round rounds[FC_ROUNDS]; /* rounds[r-1] once round r is over */
    rng rng;  /* deals and reshuffles */
    uint64_t bkey; /* the bots' key (game.h: bot_key), the seed's */
    /* a past position of a finished game replayed for a reader (GET
     * /games/{id}?at=N): shown as a finished game is, every card to every
     * reader (game.h: reveal). Never stored. */
    uint8_t revealed;
    /* the plays last: the state is used up to hist[nhist] (state_used),
     * zero after it */
    uint16_t nhist;
    fc_hist hist[FC_MAXHIST];
} fc_state;

/* --- cards (fc_cards.c) ------------------------------------------------------ */
static inline int fc_is_joker(int c) { return c >= FC_JOKER1; }
static inline int fc_rank(int c) { return fc_is_joker(c) ? 0 : (c - 1) % 11 + 3; }
static inline int fc_suit(int c) { return fc_is_joker(c) ? -1 : (c - 1) / 11; }
static inline int fc_card(int rank, int suit) { return 1 + suit * 11 + rank - 3; }
static inline int fc_is_wild(int c, int wild) { return fc_is_joker(c) || fc_rank(c) == wild; }
static inline int fc_value(int c, int wild)
{
    return fc_is_joker(c) ? 50 : fc_rank(c) == wild ? 20 : fc_rank(c);
}
static inline int fc_wild_rank(int round) { return round + 2; }

/* "7H", "XH", "10H", "J1" (case-insensitive; len chars of s) -> code, 0 if not a card. */
int fc_card_parse_n(const char *s, size_t len);
int fc_card_parse(const char *s);
const char *fc_card_str(int c);   /* "XH" */
/* "7 of hearts", "10 of spades", "king of tridents", "joker" */
void fc_card_name(int c, char *out, size_t n);

/* --- the arranger (fc_cards.c) -------------------------------------------- */
enum { FC_RUN, FC_BOOK };
typedef struct fc_group {
    uint8_t kind;  /* FC_RUN or FC_BOOK */
    uint8_t n;
    uint8_t cards[FC_HANDMAX]; /* runs in rank order, wilds in their places */
    uint8_t as[FC_HANDMAX];    /* what each card stands for in a run: rank (0 in books) */
} fc_group;

typedef struct fc_arr {
    int points;  /* value of the cards left over */
    int ngroups;
    fc_group g[FC_HANDMAX];
    int nleft;
    uint8_t left[FC_HANDMAX];
} fc_arr;

/* The arrangement of cards[0..n) (n <= FC_HANDMAX) into runs and books that
 * leaves the fewest points; returns those points. out may be NULL. */
int fc_arrange(const uint8_t *cards, int n, int wild, fc_arr *out);
/* Keep a round's finished hand's arrangement (fc_arrange of cards[0..n) with
 * the round's wild rank) in l and return its points; and give it back as the
 * arranger's groups (points and what wilds stand for not kept). */
int fc_lay_keep(const uint8_t *cards, int n, int wild, fc_lay *l);
void fc_lay_arr(const fc_lay *l, fc_arr *out);
/* "a run of hearts 5-6-7 (the joker as the 6)" */
void fc_group_text(const fc_group *g, int wild, char *out, size_t n);
/* One sentence describing a whole arrangement. */
void fc_arr_text(const fc_arr *a, int wild, char *out, size_t n);

/* --- the rules of a play (fc_rules.c) -------------------------------------- */
/* Judge a play of the seat to move: 1 legal, 0 illegal (why, rule set). */
int fc_judge(const fc_state *st, const fc_play *p, char *why, size_t whylen, const char **rule);
/* All legal plays of the seat to move (<= 2*FC_HANDMAX+2). */
int fc_gen(const fc_state *st, fc_play *out);

/* --- game flow (fc_game.c) ------------------------------------------------- */
void fc_new_game(fc_state *st, int np, uint64_t seed, int open, int call);
/* Deal round st->round with a fresh double deck; starter to move. */
void fc_deal_round(fc_state *st, int starter);
/* Apply a judged-legal play. */
void fc_do(fc_state *st, const fc_play *p);
/* game_ops.conceal: redraw what `seat` may not see and reseed both RNGs
 * from salt: the draw pile's order; at a closed table also the other hands
 * (dealt anew, same sizes, from themselves and the draw pile) and the cards
 * of the other seats' blind draws in the history (forgotten: 0). The seat's
 * hand, the discard pile, scores and the rest of the history stay. */
void fc_conceal(void *st, int seat, uint64_t salt);
const char *fc_result_name(int result);
void fc_hand_remove(uint8_t *h, int *n, int c);

/* --- strategies (fc_bots.c) ------------------------------------------------ */
typedef struct fc_obs {
    int seat, np, round, wild, phase;
    int last_turn;   /* someone went out: this is the seat's last turn */
    int nhand;
    uint8_t hand[FC_HANDMAX];
    int disc_top;    /* 0 when the discard pile is empty */
    int can_draw;    /* draw pile (or a reshuffle) available */
    int out_seat;    /* who went out, -1 */
    int open;        /* 1: every hand is on view (to every reader: the
                        public line of a bot's play may name its hand) */
    /* Public record of this round (from the history, which every seat may
     * read): per seat, the cards taken from the discard pile and the cards
     * discarded, counted by card code; and how many turns were played. */
    int round_turns;
    uint8_t took[FC_MAXP][FC_NTYPES + 1];
    uint8_t dropped[FC_MAXP][FC_NTYPES + 1];
} fc_obs;

typedef struct fc_advice {
    fc_play play;
    char why[400];        /* one sentence about `play` */
    /* draw phase */
    int draw_source;      /* FC_PLAY_DRAW_PILE / FC_PLAY_DRAW_DISCARD */
    /* discard phase */
    int discard;          /* card, 0 in the draw phase */
    int go_out;           /* 1 when going out now */
    char go_out_why[300];
    fc_arr arr;           /* the hand's arrangement (after the discard in that phase) */
    char arr_why[400];
} fc_advice;

void fc_observe(const fc_state *st, int seat, fc_obs *o);
/* "strategy": the strongest. `hint` chooses the voice: to the player for
 * help mode ("Take the 7 of hearts from the discard pile: ..."), else the
 * bot's line without a subject ("takes the 7 of hearts ...", the log names
 * the seat). */
void fc_strategy(const fc_obs *o, int hint, fc_advice *a);
void fc_greedy(const fc_obs *o, fc_play *p, char *why, size_t n);
void fc_random(const fc_obs *o, rng *r, fc_play *p, char *why, size_t n);
/* game_ops.explain (fc_explain.c): the public line of a bot's play; at a
 * closed table it names no card, group or count of the hand. */
void fc_explain(const void *st, int seat, const json_t *play, const char *strategy, char *out,
                size_t n);

/* --- JSON (fc_codec.c) -------------------------------------------------------- */
json_t *fc_cards_json(const uint8_t *c, int n);       /* in the given order */
json_t *fc_pile_json(const uint8_t *c, int n);        /* top first */
json_t *fc_play_json(const void *p);
int fc_play_parse(const void *st, const json_t *j, void *out, game_err *e); /* game_ops.parse; out: an fc_play, st unused (may be NULL) */
json_t *fc_arr_json(const fc_arr *a);
json_t *fc_encode(const void *st);
int fc_decode(void *st, const json_t *blob, game_err *e);
/* 0 when no legal play from st can outgrow an array of fc_state (the piles,
 * the history, the 16-bit counters); else ERR_BAD_MEMBER naming the member
 * (JSON pointer) that holds too much. Both importers call it. */
int fc_check_capacity(const fc_state *st, game_err *e);
/* 1 while a game resumed from a text save plays its first round: its cards
 * are the save's, which may hold a card more or less than twice (rulings:
 * untidy saves load with warnings); every later round is dealt from fresh
 * decks. */
static inline int fc_untidy(const fc_state *st) { return st->imported && st->round == st->first_round; }
/* Card conservation: every card a card, and (unless fc_untidy) each of the
 * 58 in play exactly twice, in the hands and the two piles (rounds[] keep
 * copies of past hands, not cards in play). 0, or ERR_BAD_MEMBER naming
 * the third copy of a card, or /draw_pile for a missing one. fc_decode
 * calls it. */
int fc_check_cards(const fc_state *st, game_err *e);
/* fc_check_capacity and fc_check_cards: 0, or ERR_INTERNAL saying what is
 * broken (ops->invariants). */
int fc_invariants(const void *st, game_err *e);
json_t *fc_view(const void *st, int seat);
/* ops->redeal: the hands, the discard pile under its top and the draw pile
 * as far as `reader` may not see them, shuffled among their places
 * (game.h). */
void fc_redeal(void *st, int reader, uint64_t salt);
json_t *fc_history(const void *st, int seat);
json_t *fc_record(const fc_state *st, int i, int seat, const char *explanation);

/* --- text saves (fc_text.c) ------------------------------------------------- */
int fc_export_text(const fc_state *st, char **out, size_t *len, game_err *e);
int fc_import_text(void *st, const char *text, size_t len, json_t **seats,
                   json_t **warnings, game_err *e);

#endif
