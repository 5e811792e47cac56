/* pz.h: Phazed (a Phase 10 variant, seed 003 + the autograder reference),
 * the types shared by its files.
 *
 * Cards are bytes: 0 is "no card", 1..52 are r*4 + suit + 1 with r the
 * index in "234567890JQKA" (rank r+2: 2..13, the Ace 14 is the Wild) and
 * suit S,H,D,C = 0..3; PZ_JOKER (53) is the bonus variant's Skip card "ZZ".
 * The rules work on a pz_obs, what one seat may see: the game builds one
 * from its state, the autograder functions from their arguments, so both
 * judge plays with the same code (pz_judge). A pz_obs built by the game is
 * `strict`: there a play to an accumulation must also leave the target
 * reachable with the cards still held (the game can never deadlock); the
 * autograder functions judge as the reference does, without that check.
 */
#ifndef CROUPIER_PZ_H
#define CROUPIER_PZ_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "core/rng.h"

enum {
    PZ_MAXP = 4,
    PZ_MINP = 2,
    PZ_DECK = 104,
    PZ_NCARDS = 108,        /* with the bonus jokers */
    PZ_DEAL = 10,
    PZ_HMAX = 12,           /* a hand in the game holds at most 11 */
    PZ_GMAX = 108,          /* cards in a table group */
    PZ_PHMAX = 32,          /* cards in one group of a phase play */
    PZ_NPHASES = 7,
    PZ_MAXHANDS = 20,
    PZ_TURNS_EACH = 50,
    PZ_JOKER = 53,
    PZ_ALLPHASES = 0x7F,
    /* a hand logs at most 200 turns of pick-up + discard, 4 phases and one
     * placement per card; skipped turns one entry each */
    PZ_MAXLOG = PZ_MAXHANDS * (PZ_MAXP * PZ_TURNS_EACH * 2 + PZ_MAXP + PZ_NCARDS + 8),
    PZ_MAXLEGAL = 320,     /* > 11 cards x 8 groups x 2 ends + 11 + 4, and phase plays */
};

/* play types, as on the wire; 0 is a skipped turn in the log */
enum { PZ_SKIPPED = 0, PZ_PICK_DECK = 1, PZ_PICK_DISCARD = 2, PZ_PHASE = 3, PZ_PLACE = 4,
       PZ_DISCARD = 5, PZ_SKIP = 6 };
enum { PZ_PLAYING, PZ_WON, PZ_TIED };
/* group kinds on the table */
enum { PZ_K_VSET, PZ_K_SSET, PZ_K_RUN, PZ_K_CRUN, PZ_K_ACC, PZ_K_CACC };
/* why a hand ended */
enum { PZ_END_NONE, PZ_END_OUT, PZ_END_DECK, PZ_END_TURNS };

typedef struct pz_group {
    uint8_t n;
    uint8_t c[PZ_GMAX];
} pz_group;

/* phase[p] is the phase id played this hand (0 none), with ng[p] groups */
typedef struct pz_table {
    uint8_t phase[PZ_MAXP];
    uint8_t ng[PZ_MAXP];
    pz_group g[PZ_MAXP][2];
} pz_table;

typedef struct pz_play {
    uint8_t type;
    uint8_t card;              /* 2, 4, 5; for 1 the drawn card when known */
    uint8_t pid, grp, idx;     /* 4 */
    uint8_t target;            /* 6 */
    uint8_t phase;             /* 3: the declared phase id */
    uint8_t ng;
    uint8_t gn[2];
    uint8_t gc[2][PZ_PHMAX];
} pz_play;

/* What a seat sees (and what the autograder functions receive). */
typedef struct pz_obs {
    int variant;               /* 0 standard, 1 bonus */
    int np, seat;
    int mid;                   /* picked up already this turn */
    int turn;                  /* autograder functions: turn_history gives seat the turn */
    int strict;                /* the game's own check (see above) */
    int deck;                  /* cards in the deck, -1 unknown */
    int discard;               /* top of the discard pile, 0 none */
    uint8_t status[PZ_MAXP];   /* standard: phases done 0..7; bonus: bit k = phase k+1 done */
    int nhand;
    uint8_t hand[PZ_NCARDS];
    int hand_sizes[PZ_MAXP];   /* -1 unknown */
    pz_table t;
    /* from this hand's turn_history (public plays), 0 when not filled in:
     * bit r (2..14) of took[p] = player p took a card of rank r from the
     * discard pile; took_suit[p] the same by suit (bit 0..3) */
    uint16_t took[PZ_MAXP];
    uint8_t took_suit[PZ_MAXP];
} pz_obs;

typedef struct pz_log {
    uint8_t hand, seat, type, card; /* card: the drawn card for type 1 */
    uint8_t a, b, c, d;             /* 3: a = phase id, b = index in ph[]; 4: pid, grp, idx; 6: a = target */
} pz_log;

typedef struct pz_phrec {
    uint8_t ng, gn[2], gc[2][PZ_PHMAX];
} pz_phrec;

typedef struct pz_state {
    uint8_t variant, np, maxhands, result;
    int8_t winner;
    uint8_t hands_done;        /* hands finished */
    uint8_t dealer, cur, mid, deck_out;
    uint8_t skip[PZ_MAXP];     /* bonus: skips the next turn */
    uint8_t status[PZ_MAXP];
    uint16_t score[PZ_MAXP];
    uint16_t pen[PZ_MAXHANDS][PZ_MAXP];
    uint8_t end_reason[PZ_MAXHANDS];
    uint16_t turns_hand, turns_total;
    uint8_t ndeck, deck[PZ_NCARDS];    /* deck[ndeck-1] is the top */
    uint8_t ndisc, disc[PZ_NCARDS];    /* disc[ndisc-1] is the top */
    uint8_t nhand[PZ_MAXP];
    uint8_t hand[PZ_MAXP][PZ_HMAX];
    pz_table t;
    uint16_t hand_log;         /* first log entry of this hand */
    uint8_t nph;
    pz_phrec ph[PZ_MAXHANDS * PZ_MAXP];
    rng rng;
    uint64_t bkey; /* the bots' key (game.h: bot_key), the seed's */
    /* a past position of a finished game replayed for a reader (GET
     * /games/{id}?at=N): shown as a finished game is, every card to every
     * reader (game.h: reveal). Never stored. */
    uint8_t revealed;
    /* the play log last: the state is used up to log[nlog] (state_used),
     * zero after it */
    uint16_t nlog;
    pz_log log[PZ_MAXLOG];
} pz_state;

/* What applying a play did (for the record). */
typedef struct pz_effect {
    int turn_ending;
    int hand_over;             /* the hand ended: its number (1-based), else 0 */
    int end_reason;
    int skipped[PZ_MAXP];      /* seats whose turn was skipped afterwards, -1 terminated */
    int game_over;
    int drawn;                 /* the card drawn from the deck (own view only) */
} pz_effect;

/* --- cards and rules (pz_rules.c) ----------------------------------------- */
static inline int pz_rank(int c) { return (c - 1) / 4 + 2; }     /* 2..14 */
static inline int pz_suit(int c) { return (c - 1) % 4; }
static inline int pz_black(int c) { return pz_suit(c) == 0 || pz_suit(c) == 3; }
static inline int pz_wild(int c) { return c != PZ_JOKER && pz_rank(c) == 14; }
static inline int pz_accval(int c) { return pz_rank(c) == 14 ? 1 : pz_rank(c); }
static inline int pz_card(int rank, int suit) { return (rank - 2) * 4 + suit + 1; }

int pz_card_parse(const char *s, int variant);  /* 0 when not a card */
const char *pz_card_name(int c);
int pz_card_points(int c);                      /* penalty points */
int pz_hand_points(const uint8_t *h, int n);

/* bitmask: bit k set = group type k (1..7) */
unsigned pz_group_types(const uint8_t *c, int n);
/* bitmask of phase types of ng groups */
unsigned pz_phase_types(int ng, const uint8_t *const *g, const int *gn);
/* The clause that decides the answer of group_type, phase_type and score
 * (docs/autograder.md: "phazed.group.run-order", ...), with a sentence. */
const char *pz_group_clause(const uint8_t *c, int n, char *why, size_t whylen);
const char *pz_phase_clause(int ng, const uint8_t *const *g, const int *gn, char *why, size_t whylen);
const char *pz_score_clause(const uint8_t *h, int n, char *why, size_t whylen);
/* Why ng groups are not phase `phase` (pz_judge's phase-type refusal): the
 * first group that is not what the phase needs and how, from the groups'
 * own cards alone ("group 2 is not a run of 8: 5H then 7D ..."); 1 with
 * the sentence, 0 when they do form the phase. */
int pz_phase_why(int phase, int ng, const uint8_t *const *g, const int *gn, char *why, size_t whylen);
int pz_phase_ngroups(int phase);
int pz_group_kind(int phase, int g);
/* 34, 55, ... complete totals; pz_acc_next: the smallest complete total above
 * `total` (0 when none: 88 closes it) */
int pz_acc_complete(int total);
int pz_acc_next(int total);
int pz_group_total(const pz_group *g);
/* rank of position 0 of a run (2..13), 0 if not a run */
int pz_run_start(const uint8_t *c, int n);
/* can `card` go into table group (p, g) at idx: 1 yes */
int pz_fits(const pz_table *t, int p, int g, int card, int idx);
int pz_required(const pz_obs *o, int phase);    /* 1 when phase may be played now */
int pz_all_done(int variant, int status);
/* 0 invalid, 1 valid, 2 valid and turn-ending; why/rule may be NULL */
int pz_judge(const pz_obs *o, const pz_play *p, char *why, size_t whylen, const char **rule);
/* What phazed_play faces (docs/autograder.md): the clause id of the plays
 * o allows ("phazed.play.pick-up", ...); first: turn_history is empty. */
const char *pz_situation(const pz_obs *o, int first, char *why, size_t whylen);
/* The observation after a valid play (hand and table; no draws). */
void pz_obs_do(pz_obs *o, const pz_play *p);
/* A phase play in its canonical order, the one the list of legal plays
 * holds it in: the cards of a set or an accumulation ascending (a run keeps
 * its order: position is value), and of two groups of one kind (phases 1,
 * 3, 4, 6) the shorter, then the smaller by bytes, first. Other plays are
 * left as they are. Every strategy's phase play passes through it. */
void pz_phase_canon(pz_play *p);
/* A walk over plays: fn(ctx, p) sees each in turn and returns nonzero to
 * stop the walk; n counts the plays it saw. A hand can hold some 20,000
 * phase plays, so the walks keep none of them: the caller keeps what it
 * wants (a page of GET /legal, the first one, a count). */
typedef struct pz_each {
    int (*fn)(void *ctx, const pz_play *p);
    void *ctx;
    long n;
    int stop;                  /* set by fn's answer; set it first to walk nothing */
} pz_each;
/* Every legal phase play of the seat (pz_rules.c says which are one). */
void pz_phase_each(const pz_obs *o, pz_each *each);
/* Every legal play: the pick-ups, placements, discards and Skips
 * (PZ_MAXLEGAL holds them all), then the phase plays (pz_phase_each). */
void pz_gen_each(const pz_obs *o, pz_each *each);
/* The first max of them, into out; returns how many. */
int pz_phase_plays(const pz_obs *o, pz_play *out, int max);
int pz_gen(const pz_obs *o, pz_play *out, int max);
void pz_play_text(const pz_play *p, char *out, size_t n);

/* --- game flow (pz_game.c) ------------------------------------------------- */
void pz_new(pz_state *st, int variant, int np, int maxhands, uint64_t seed);
void pz_observe(const pz_state *st, int seat, pz_obs *o);
/* Apply a play judged valid for st->cur. */
void pz_do(pz_state *st, const pz_play *p, pz_effect *fx);
int pz_state_judge(const pz_state *st, const pz_play *p, char *why, size_t whylen,
                   const char **rule);
const char *pz_result_name(int result);
/* The seats with the game's winning total (bit p for seat p; a tie sets
 * several): the lowest points among those who completed every phase, or
 * among everyone when nobody did. */
unsigned pz_winners(const pz_state *st);
const char *pz_end_name(int reason);
/* Which plays of the current hand's log form the turn of entry i, etc. */

/* --- JSON (pz_codec.c) ----------------------------------------------------- */
json_t *pz_card_json(int c);
json_t *pz_cards_json(const uint8_t *c, int n);
json_t *pz_play_json(const void *p);
/* Shape check of a play (ERR_BAD_MEMBER with the pointer inside it). */
int pz_play_parse(const json_t *j, int variant, pz_play *out, game_err *e);
int pz_cards_parse(const json_t *j, const char *ptr, int variant, size_t max, uint8_t *out,
                   int *n, game_err *e);
json_t *pz_table_json(const pz_table *t, int np);
json_t *pz_status_json(int variant, const uint8_t *status, int np);
/* phase_status in the variant's form: ints 0-7, or lists of 7 booleans */
int pz_status_parse(const json_t *j, const char *ptr, int variant, int np, uint8_t *out,
                    game_err *e);
/* The table: np entries [phase|null, groups]; `check` also requires every
 * group to be what its phase makes it (the game's own blob). */
int pz_table_parse(const json_t *j, const char *ptr, int variant, int np, pz_table *t, int check,
                   game_err *e);
/* turn_history of the current hand as `seat` sees it (deck draws "XX"
 * except for the seat's own when reveal_own) */
/* The current hand's turn_history as `seat` may see it (deck draws "XX"). */
json_t *pz_turn_history(const pz_state *st, int seat);
/* The whole game's plays as history records {n, seat, hand, play, turn_ending}. */
json_t *pz_history(const void *st, int seat);
json_t *pz_encode(const void *st);
int pz_decode(void *st, const json_t *blob, game_err *e);
/* Every card as often as the decks hold it, every count within its array:
 * 0, or ERR_INTERNAL saying what is broken (ops->invariants; decode). */
int pz_invariants(const void *st, game_err *e);
json_t *pz_view(const void *st, int seat);
/* ops->redeal: the hands `reader` may not see and the deck, shuffled among
 * their places (game.h). */
void pz_redeal(void *st, int reader, uint64_t salt);
json_t *pz_events(const void *st, int seat, long after);
json_t *pz_record(const pz_state *st, int seat, const pz_play *p, const pz_effect *fx,
                  const char *explanation);

/* --- strategies (pz_bots.c, pz_plan.c) ------------------------------------- */
/* "planner" (pz_plan.c) and "greedy" (pz_bots.c, the first planner, kept as
 * a yardstick):
 * a play valid for o (pz_judge), chosen from o alone; why: a sentence. */
void pz_plan(const pz_obs *o, pz_play *out, char *why, size_t whylen);
/* A strategy's line ("takes 7H from the discard pile: it completes its
 * phase") said to the player for help mode ("Take 7H ...: it completes your
 * phase"); pz_explain.c. */
void pz_to_player(const char *line, char *out, size_t n);
void pz_greedy(const pz_obs *o, pz_play *out, char *why, size_t whylen);
/* Fill o->took and o->took_suit from the current hand's public plays. */
void pz_obs_history(const pz_state *st, pz_obs *o);
void pz_random(const pz_obs *o, rng *r, pz_play *out, char *why, size_t whylen);
/* Phase plays the hand can make now, best first; returns the count. */
int pz_find_phases(const pz_obs *o, pz_play *out, int max);
/* shared by pz_bots.c and pz_plan.c: closeness of a hand to phase ph
 * (0..1000); 1 when card fits some set or run on the table now; the
 * opponent closest to finishing; any valid play when a strategy found none. */
int pz__closeness(const uint8_t *h, int n, int ph);
int pz__can_place(const pz_obs *o, int card);
int pz__skip_target(const pz_obs *o);
/* 1 when the next player wants `card` (pz_plan.c: from public facts only). */
int pz__feeds_next(const pz_obs *o, int card);
/* The pick-up a strategy chose (take: the discard, with `reason`; else the
 * deck), with its sentence. */
void pz__pick(const pz_obs *o, int take, const char *reason, pz_play *out, char *why, size_t whylen);
void pz__fallback(const pz_obs *o, pz_play *out, char *why, size_t whylen);
/* game_ops.explain (pz_explain.c): the public line of a bot's play, from
 * the table, the discard top, the phases done and the play; never the hand. */
void pz_explain(const void *st, int seat, const json_t *play, const char *strategy, char *out,
                size_t n);

/* --- autograder functions (pz_fns.c) -------------------------------------- */
enum { PZ_NFNS = 5 };
extern const game_fn pz_fns[PZ_NFNS];
/* The autograder kit's judge of a returned play (game_suite.judge):
 * {"legal": [every legal play but phase plays], "check"?, "quality"?} for
 * the arguments of phazed_play; NULL when they are not. */
json_t *pz_fn_judge(json_t *const *args, int variant);
/* The suites of pz_cases.c. */
enum { PZ_NSUITES = 10 };
extern const game_suite pz_suites[PZ_NSUITES];
/* game_ops.fn_args (engine/game.h): phazed_play. */
json_t *pz_fn_args(const void *st, int seat, const game_fn **fn);

#endif
