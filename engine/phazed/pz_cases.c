/* pz_cases.c: the autograder kit's suites of Phazed (docs/autograder.md):
 * arguments for group_type, phase_type and score, each draw aimed at one
 * clause of the rules.
 *
 * Groups, phases and hands are drawn from two decks (and the bonus
 * variant's four jokers): no card more often than the decks hold it, every
 * card a real one. The generator only aims: the answer and its clause come
 * from pz_fns.c, the code behind /validate (engine/cases.c).
 */
#include "pz.h"

#include <string.h>

typedef struct gen {
    rng *r;
    int var;
    uint8_t used[PZ_JOKER + 1];
} gen;

static int below(gen *g, int n) { return n > 0 ? (int)rng_below(g->r, (uint32_t)n) : 0; }
static int chance(gen *g, int pct) { return below(g, 100) < pct; }
static int limit(gen *g, int c) { return c == PZ_JOKER ? (g->var ? 4 : 0) : 2; }

/* A card of `rank` (2..14, 0 any but the Ace) and colour (1 black, 2 red, 0
 * any) or suit (suit >= 0) still in the decks; 0 if none. */
static int card_of(gen *g, int rank, int colour, int suit)
{
    uint8_t c[PZ_JOKER];
    int n = 0;
    for (int k = 1; k < PZ_JOKER; k++) {
        if (g->used[k] >= limit(g, k) || (rank ? pz_rank(k) != rank : pz_rank(k) == 14))
            continue;
        if ((colour && (pz_black(k) ? 1 : 2) != colour) || (suit >= 0 && pz_suit(k) != suit))
            continue;
        c[n++] = (uint8_t)k;
    }
    if (!n)
        return 0;
    int k = c[below(g, n)];
    g->used[k]++;
    return k;
}

static int ace(gen *g) { return card_of(g, 14, 0, -1); }

/* Replace k random positions of c[0..n) with Aces (wilds). */
static void wilds(gen *g, uint8_t *c, int n, int k)
{
    for (int i = 0; i < k; i++) {
        int at = below(g, n), a = ace(g);
        if (a && c[at] && pz_rank(c[at]) != 14) {
            g->used[c[at]]--;
            c[at] = (uint8_t)a;
        } else if (a) {
            g->used[a]--;
        }
    }
}

static int value_set(gen *g, uint8_t *c, int n, int rank, int aces)
{
    for (int i = 0; i < n; i++)
        c[i] = (uint8_t)card_of(g, rank, 0, -1);
    wilds(g, c, n, aces);
    return n;
}

static int suit_set(gen *g, uint8_t *c, int n, int suit, int aces)
{
    for (int i = 0; i < n; i++)
        c[i] = (uint8_t)card_of(g, 0, 0, suit);
    wilds(g, c, n, aces);
    return n;
}

static int run(gen *g, uint8_t *c, int n, int start, int colour, int aces)
{
    for (int i = 0; i < n; i++)
        c[i] = (uint8_t)card_of(g, (start - 2 + i) % 12 + 2, colour, -1);
    wilds(g, c, n, aces);
    return n;
}

/* Cards (no Aces unless `aces`) of one colour (0: mixed) totalling `total`. */
static int acc(gen *g, uint8_t *c, int total, int colour, int aces)
{
    int n = 0, left = total;
    while (left > 0 && n < 12) {
        int v;
        if (left <= 13 && (left >= 2 || aces))
            v = left == 1 ? 14 : left;
        else if (aces && chance(g, 25))
            v = 14;
        else
            v = 2 + below(g, (left - 2 < 12 ? left - 2 : 12));
        int col = colour ? colour : (n == 1 && c[0] ? (pz_black(c[0]) ? 2 : 1) : 0);
        int k = card_of(g, v, col, -1);
        if (!k)
            return 0;
        c[n++] = (uint8_t)k;
        left -= pz_accval(k);
    }
    return left == 0 ? n : 0;
}

/* --- group_type ------------------------------------------------------------- */

enum { G_VSET3, G_SSET7, G_VSET4, G_RUN8, G_CRUN4, G_WRAP, G_ACC, G_CACC, G_ACE_ONE, G_SEVERAL, G_TWO_NAT,
       G_SET_VALUES, G_SET_SUITS, G_RUN_ORDER, G_RUN_COLOUR, G_SIZE, G_ACC_TOTAL, G_JOKER };

static int rank_any(gen *g) { return 2 + below(g, 12); }

static void swap_two(gen *g, uint8_t *c, int n)
{
    int i = below(g, n), j = below(g, n);
    uint8_t t = c[i];
    c[i] = c[j];
    c[j] = t;
}

/* A group aimed at clause `aim` into c; its length. */
static int group(gen *g, int aim, int visit, uint8_t *c)
{
    int colour = 1 + below(g, 2);
    switch (aim) {
    case G_VSET3: return value_set(g, c, 3, rank_any(g), below(g, 2));
    case G_SSET7: return suit_set(g, c, 7, below(g, 4), below(g, 3));
    case G_VSET4: return value_set(g, c, 4, rank_any(g), below(g, 3));
    case G_RUN8: return run(g, c, 8, 2 + below(g, 5), 0, below(g, 4));
    case G_CRUN4: return run(g, c, 4, 2 + below(g, 9), colour, below(g, 3));
    case G_WRAP: return visit % 2 ? run(g, c, 4, 11 + below(g, 3), colour, below(g, 2))
                                  : run(g, c, 8, 7 + below(g, 7), 0, below(g, 3));
    case G_ACC: return acc(g, c, 34, 0, 0);
    case G_CACC: return acc(g, c, 34, colour, visit % 3 == 2);
    case G_ACE_ONE: {
        int n = acc(g, c, visit % 2 ? 34 - 13 : 34 - 1, 0, 0);
        int a = ace(g);
        if (!n || !a)
            return 0;
        c[n++] = (uint8_t)a; /* Ace as 1: 34; as 14 it would be 34 + 13 */
        if (visit % 2) { /* 21 + 1 = 22: 34 only if the Ace were 14 */
            for (int i = n - 1; i > 0; i--) {
                int j = below(g, i + 1);
                uint8_t t = c[i];
                c[i] = c[j];
                c[j] = t;
            }
        }
        return n == 3 || n == 4 || n == 7 || n == 8 ? 0 : n;
    }
    case G_SEVERAL:
        if (visit % 3 == 0) { /* J J J + Ace: a set of four, and 34 */
            value_set(g, c, 3, 11, 0);
            c[3] = (uint8_t)ace(g);
            return c[3] ? 4 : 0;
        }
        if (visit % 3 == 1) /* 7 8 9 10 of one colour: a run of four, and 34 */
            return run(g, c, 4, 7, colour, 0);
        { /* seven of one suit totalling 34 */
            static const int V[] = {2, 3, 4, 5, 6, 7, 7};
            int s = below(g, 4);
            for (int i = 0; i < 7; i++)
                c[i] = (uint8_t)card_of(g, V[i], 0, s);
            return 7;
        }
    case G_TWO_NAT: {
        static const int N[] = {3, 4, 7, 8};
        int n = N[visit % 4];
        c[0] = (uint8_t)card_of(g, rank_any(g), 0, -1);
        for (int i = 1; i < n; i++)
            c[i] = (uint8_t)ace(g);
        for (int i = n - 1; i > 0; i--) {
            int j = below(g, i + 1);
            uint8_t t = c[i];
            c[i] = c[j];
            c[j] = t;
        }
        return n;
    }
    case G_SET_VALUES: {
        int n = 3 + visit % 2, r = rank_any(g);
        value_set(g, c, n, r, 0);
        int k = card_of(g, r == 13 ? 2 : r + 1 + below(g, 13 - r), 0, -1);
        g->used[c[n - 1]]--;
        c[n - 1] = (uint8_t)k;
        return n;
    }
    case G_SET_SUITS: {
        int s = below(g, 4);
        suit_set(g, c, 7, s, below(g, 2));
        int at = below(g, 7);
        if (c[at] && pz_rank(c[at]) != 14) {
            g->used[c[at]]--;
            c[at] = (uint8_t)card_of(g, 0, 0, (s + 1 + below(g, 3)) % 4);
        }
        return 7;
    }
    case G_RUN_ORDER: {
        int n = visit % 2 ? 8 : 4;
        run(g, c, n, 2 + below(g, 12), visit % 2 ? 0 : colour, below(g, 2));
        swap_two(g, c, n);
        return n;
    }
    case G_RUN_COLOUR: {
        run(g, c, 4, 2 + below(g, 12), colour, below(g, 2));
        int at = below(g, 4);
        if (c[at] && pz_rank(c[at]) != 14) {
            g->used[c[at]]--;
            c[at] = (uint8_t)card_of(g, pz_rank(c[at]), 3 - colour, -1);
        }
        return 4;
    }
    case G_SIZE: {
        static const int N[] = {5, 6, 2, 9};
        int n = visit % 3 == 0 && N[visit % 4] > 8 ? 5 : N[visit % 4]; /* 8 cards of a value at most */
        switch (visit % 3) {
        case 0: return value_set(g, c, n, rank_any(g), below(g, 2));
        case 1: return suit_set(g, c, n, below(g, 4), below(g, 2));
        default: return run(g, c, n, 2 + below(g, 12), 0, below(g, 2));
        }
    }
    case G_ACC_TOTAL:
        return acc(g, c, visit % 2 ? 33 : 35, 0, 0);
    default: { /* G_JOKER */
        int n = group(g, below(g, G_ACC_TOTAL + 1), visit, c);
        if (!n || g->used[PZ_JOKER] >= 4)
            return 0;
        c[below(g, n)] = PZ_JOKER;
        return n;
    }
    }
}

static int has_zero(const uint8_t *c, int n)
{
    for (int i = 0; i < n; i++)
        if (!c[i])
            return 1;
    return n == 0;
}

static json_t *group_args(rng *r, int var, int k, int visit)
{
    gen g = {.r = r, .var = var};
    uint8_t c[PZ_PHMAX];
    int n = group(&g, k, visit, c);
    if (has_zero(c, n)) { /* the aim found no cards: any group, drawn again */
        n = 1;
        c[0] = 1;
    }
    return json_pack("[o]", pz_cards_json(c, n));
}

static json_t *group_std(rng *r, int k, int visit) { return group_args(r, 0, k, visit); }
static json_t *group_bonus(rng *r, int k, int visit) { return group_args(r, 1, k, visit); }

/* --- phase_type ------------------------------------------------------------- */

enum { P_1, P_2, P_3, P_4, P_5, P_6, P_7, P_SEVERAL, P_COUNT, P_TYPE, P_ORDER, P_MIXED };

static json_t *phase_args(rng *r, int var, int k, int visit)
{
    gen g = {.r = r, .var = var};
    uint8_t c[3][PZ_PHMAX];
    int n[3] = {0, 0, 0}, ng = 2;
    switch (k) {
    case P_1: n[0] = group(&g, G_VSET3, visit, c[0]); n[1] = group(&g, G_VSET3, visit, c[1]); break;
    case P_2: ng = 1; n[0] = group(&g, G_SSET7, visit, c[0]); break;
    case P_3: n[0] = group(&g, G_ACC, visit, c[0]); n[1] = group(&g, visit % 2 ? G_ACC : G_CACC, visit, c[1]); break;
    case P_4: n[0] = group(&g, G_VSET4, visit, c[0]); n[1] = group(&g, G_VSET4, visit, c[1]); break;
    case P_5: ng = 1; n[0] = group(&g, visit % 3 ? G_RUN8 : G_WRAP, 0, c[0]); break;
    case P_6: n[0] = group(&g, G_CACC, visit, c[0]); n[1] = group(&g, G_CACC, visit + 1, c[1]); break;
    case P_7: n[0] = group(&g, visit % 3 ? G_CRUN4 : G_WRAP, 1, c[0]); n[1] = group(&g, G_VSET4, visit, c[1]); break;
    case P_SEVERAL: /* a set of four that totals 34 twice: phases 3 and 4 */
        n[0] = group(&g, G_SEVERAL, 0, c[0]);
        n[1] = group(&g, G_SEVERAL, 0, c[1]);
        break;
    case P_COUNT:
        if (visit % 3 == 0) {
            ng = 1;
            n[0] = group(&g, visit % 2 ? G_VSET3 : G_VSET4, visit, c[0]);
        } else if (visit % 3 == 1) {
            n[0] = group(&g, G_RUN8, visit, c[0]);
            n[1] = group(&g, G_RUN8, visit, c[1]);
        } else {
            ng = 3;
            for (int i = 0; i < 3; i++)
                n[i] = group(&g, G_VSET3, visit, c[i]);
        }
        break;
    case P_TYPE:
        ng = 1 + visit % 2;
        n[0] = group(&g, visit % 3 ? G_VSET3 : G_RUN_ORDER, visit, c[0]);
        n[ng - 1] = group(&g, G_SET_VALUES + visit % 5, visit, c[ng - 1]);
        break;
    case P_ORDER:
        n[0] = group(&g, G_VSET4, visit, c[0]);
        n[1] = group(&g, G_CRUN4, visit, c[1]);
        break;
    default: /* P_MIXED */
        n[0] = group(&g, visit % 2 ? G_VSET3 : G_ACC, visit, c[0]);
        n[1] = group(&g, visit % 2 ? G_VSET4 : G_VSET3, visit, c[1]);
        break;
    }
    json_t *phase = json_array();
    for (int i = 0; i < ng; i++) {
        if (has_zero(c[i], n[i])) {
            n[i] = 1;
            c[i][0] = 1;
        }
        json_array_append_new(phase, pz_cards_json(c[i], n[i]));
    }
    return json_pack("[o]", phase);
}

static json_t *phase_std(rng *r, int k, int visit) { return phase_args(r, 0, k, visit); }
static json_t *phase_bonus(rng *r, int k, int visit) { return phase_args(r, 1, k, visit); }

/* --- score ------------------------------------------------------------------ */

enum { S_EMPTY, S_FACE, S_COURT, S_ACE, S_JOKER };

static json_t *score_args(rng *r, int var, int k, int visit)
{
    gen g = {.r = r, .var = var};
    uint8_t h[PZ_HMAX];
    /* the hands a hand ends with: 0..11 cards, the largest on purpose */
    int n = k == S_EMPTY ? 0 : visit % 4 == 0 ? 11 : visit % 4 == 1 ? 1 : 1 + below(&g, 11), m = 0;
    while (m < n) {
        int lo = 2, hi = k == S_FACE ? 10 : k == S_COURT ? 13 : 14;
        int c = card_of(&g, lo + below(&g, hi - lo + 1), 0, -1);
        if (c)
            h[m++] = (uint8_t)c;
    }
    int at = below(&g, n ? n : 1);
    if (n && k == S_COURT && pz_rank(h[at]) < 11)
        h[at] = (uint8_t)card_of(&g, 11 + below(&g, 3), 0, -1);
    if (n && k == S_ACE && pz_rank(h[at]) != 14)
        h[at] = (uint8_t)ace(&g);
    if (n && k == S_JOKER && g.used[PZ_JOKER] < 4)
        h[at] = PZ_JOKER;
    if (has_zero(h, n) && n)
        h[at] = 1;
    return json_pack("[o]", pz_cards_json(h, n));
}

static json_t *score_std(rng *r, int k, int visit) { return score_args(r, 0, k, visit); }
static json_t *score_bonus(rng *r, int k, int visit) { return score_args(r, 1, k, visit); }

/* --- the clauses and the suites --------------------------------------------- */

#define C_GROUP                                                                                          \
    {"phazed.group.value-set-3", "three cards of one value are a set of three, type 1"},               \
    {"phazed.group.suit-set-7", "seven cards of one suit are a set of seven, type 2"},                 \
    {"phazed.group.value-set-4", "four cards of one value are a set of four, type 3"},                 \
    {"phazed.group.run-8", "eight cards in sequence are a run of eight, type 4"},                      \
    {"phazed.group.colour-run-4", "four cards in sequence of one colour are type 5"},                  \
    {"phazed.group.run-wrap", "runs wrap from King to 2"},                                             \
    {"phazed.group.acc-34", "cards of mixed colours totalling 34 are an accumulation, type 6 only"},   \
    {"phazed.group.colour-acc-34", "cards of one colour totalling 34 are types 6 and 7"},              \
    {"phazed.group.acc-ace-one", "in an accumulation an Ace counts 1, never as a wild"},               \
    {"phazed.group.several-types", "a group of several types gets all of them, sorted"},               \
    {"phazed.group.two-naturals", "a set or run needs at least two natural (non-Ace) cards"},          \
    {"phazed.group.set-values", "a set's naturals are all of one value"},                              \
    {"phazed.group.set-suits", "a set of seven's naturals are all of one suit"},                       \
    {"phazed.group.run-order", "a run's cards are in sequence in the order given (Aces fill gaps)"},   \
    {"phazed.group.run-colour", "a run of four of type 5 is of one colour"},                           \
    {"phazed.group.size", "sets and runs have exactly 3, 4, 7 or 8 cards: the whole group must fit"},  \
    {"phazed.group.acc-total", "cards that form no set or run and do not total 34 are of no type"}
static const game_clause GROUP_STD[] = {C_GROUP};
static const game_clause GROUP_BONUS[] = {
    C_GROUP, {"phazed.group.joker", "a Joker (Skip) is never part of a group: a group holding one has no type"}};

#define C_PHASE                                                                                          \
    {"phazed.phase.two-sets-of-3", "phase 1: two sets of three of one value each"},                    \
    {"phazed.phase.suit-set-7", "phase 2: one set of seven of one suit"},                              \
    {"phazed.phase.two-accs", "phase 3: two accumulations of 34"},                                     \
    {"phazed.phase.two-sets-of-4", "phase 4: two sets of four of one value each"},                     \
    {"phazed.phase.run-8", "phase 5: one run of eight"},                                               \
    {"phazed.phase.two-colour-accs", "phase 6: two accumulations of 34 each of one colour (also phase 3)"}, \
    {"phazed.phase.run-and-set", "phase 7: a run of four of one colour, then a set of four of one value"}, \
    {"phazed.phase.several-types", "groups that form several phases are of each, sorted"},            \
    {"phazed.phase.group-count", "a phase is one group (phases 2, 5) or two (the others)"},           \
    {"phazed.phase.group-type", "every group of a phase must be of the phase's group type"},          \
    {"phazed.phase.run-before-set", "phase 7 is the run first, then the set"},                         \
    {"phazed.phase.mixed", "the two groups must be of the same phase"}
static const game_clause PHASE_CL[] = {C_PHASE};

#define C_SCORE                                                                                          \
    {"phazed.score.empty", "an empty hand scores 0"},                                                  \
    {"phazed.score.face", "cards 2 to 10 score their face value"},                                     \
    {"phazed.score.court", "a Jack, Queen or King scores 11, 12 or 13"},                               \
    {"phazed.score.ace", "an Ace scores 25"}
static const game_clause SCORE_STD[] = {C_SCORE};
static const game_clause SCORE_BONUS[] = {C_SCORE, {"phazed.score.joker", "a Joker scores 15"}};

#define N(a) (int)(sizeof a / sizeof a[0])
static const char SH_GROUP[] = "{\"params\":[{\"name\":\"group\",\"shape\":\"any\"}],\"return\":\"any\"}";
static const char SH_PHASE[] = "{\"params\":[{\"name\":\"phase\",\"shape\":\"any\"}],\"return\":\"any\"}";
static const char SH_SCORE[] = "{\"params\":[{\"name\":\"hand\",\"shape\":\"any\"}],\"return\":\"any\"}";

const game_suite pz_suites[PZ_NSUITES] = {
    {"group_type", "standard", "phazed_group_type", &pz_fns[0], GROUP_STD, N(GROUP_STD), SH_GROUP, group_std,
     NULL},
    {"group_type", "bonus", "phazed_group_type", &pz_fns[0], GROUP_BONUS, N(GROUP_BONUS), SH_GROUP, group_bonus,
     NULL},
    {"phase_type", "standard", "phazed_phase_type", &pz_fns[1], PHASE_CL, N(PHASE_CL), SH_PHASE, phase_std, NULL},
    {"phase_type", "bonus", "phazed_phase_type", &pz_fns[1], PHASE_CL, N(PHASE_CL), SH_PHASE, phase_bonus, NULL},
    {"score", "standard", "phazed_score", &pz_fns[3], SCORE_STD, N(SCORE_STD), SH_SCORE, score_std, NULL},
    {"score", "bonus", "phazed_score", &pz_fns[3], SCORE_BONUS, N(SCORE_BONUS), SH_SCORE, score_bonus, NULL},
};
