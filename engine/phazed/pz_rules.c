/* pz_rules.c: the rules of Phazed on a pz_obs: cards, group and phase
 * types, placing on table groups, accumulation targets, and the judge of a
 * play used both by the game and by the autograder functions.
 *
 * Runs: the values 2..13 form a cycle (K wraps to 2), a Wild (Ace) stands
 * for one of them only, so a run holds at most 12 cards and its naturals fix
 * the value of every position. Accumulations: Aces count 1 and are natural;
 * a group completed at 34 grows by 21, 13, 8, 5, 3, 2, 1, 1 (complete totals
 * 34, 55, 68, 76, 81, 84, 86, 87, 88; 88 takes no more cards).
 */
#include "pz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char VALUES[] = "234567890JQKA";
static const char SUITS[] = "SHDC";
static const int COMPLETE[] = {34, 55, 68, 76, 81, 84, 86, 87, 88};
enum { NCOMPLETE = 9 };

int pz_card_parse(const char *s, int variant)
{
    if (!s || !s[0] || !s[1] || s[2])
        return 0;
    if (s[0] == 'Z' && s[1] == 'Z')
        return variant ? PZ_JOKER : 0;
    const char *v = strchr(VALUES, s[0]), *u = strchr(SUITS, s[1]);
    if (!v || !u || !*v || !*u)
        return 0;
    return (int)(v - VALUES) * 4 + (int)(u - SUITS) + 1;
}

const char *pz_card_name(int c)
{
    static const char names[54][3] = {
        "??", "2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C", "4S", "4H", "4D", "4C", "5S", "5H",
        "5D", "5C", "6S", "6H", "6D", "6C", "7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C", "9S",
        "9H", "9D", "9C", "0S", "0H", "0D", "0C", "JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC",
        "KS", "KH", "KD", "KC", "AS", "AH", "AD", "AC", "ZZ"};
    return c >= 0 && c <= PZ_JOKER ? names[c] : "??";
}

int pz_card_points(int c)
{
    if (c == PZ_JOKER)
        return 15;
    return pz_rank(c) == 14 ? 25 : pz_rank(c);
}

int pz_hand_points(const uint8_t *h, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += pz_card_points(h[i]);
    return s;
}

/* --- groups ----------------------------------------------------------------- */

static int naturals(const uint8_t *c, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += !pz_wild(c[i]);
    return k;
}

static int has_joker(const uint8_t *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i] == PZ_JOKER || c[i] == 0)
            return 1;
    return 0;
}

/* the rank shared by every natural, 0 if none or they differ */
static int set_rank(const uint8_t *c, int n)
{
    int r = 0;
    for (int i = 0; i < n; i++) {
        if (pz_wild(c[i]))
            continue;
        if (r && pz_rank(c[i]) != r)
            return 0;
        r = pz_rank(c[i]);
    }
    return r;
}

/* suit shared by the naturals + 1, 0 if none or they differ */
static int set_suit(const uint8_t *c, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        if (pz_wild(c[i]))
            continue;
        if (s && pz_suit(c[i]) + 1 != s)
            return 0;
        s = pz_suit(c[i]) + 1;
    }
    return s;
}

/* colour of the naturals: 1 black, 2 red, 0 none or mixed */
static int nat_colour(const uint8_t *c, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (pz_wild(c[i]))
            continue;
        int x = pz_black(c[i]) ? 1 : 2;
        if (k && x != k)
            return 0;
        k = x;
    }
    return k;
}

/* colour of every card, Aces included (accumulations) */
static int all_colour(const uint8_t *c, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int x = pz_black(c[i]) ? 1 : 2;
        if (k && x != k)
            return 0;
        k = x;
    }
    return k;
}

static int cyc(int start, int i) { return (start - 2 + i) % 12 + 2; }

int pz_run_start(const uint8_t *c, int n)
{
    if (n < 1 || n > 12)
        return 0;
    int start = 0;
    for (int i = 0; i < n; i++) {
        if (pz_wild(c[i]))
            continue;
        int r = pz_rank(c[i]);
        if (r > 13)
            return 0;
        int s = ((r - 2 - i) % 12 + 12) % 12 + 2;
        if (start && s != start)
            return 0;
        start = s;
    }
    return start;
}

static int sum_acc(const uint8_t *c, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += pz_accval(c[i]);
    return s;
}

unsigned pz_group_types(const uint8_t *c, int n)
{
    unsigned t = 0;
    if (n < 1 || has_joker(c, n))
        return 0;
    int nat = naturals(c, n);
    if (nat >= 2) {
        if (n == 3 && set_rank(c, n))
            t |= 1u << 1;
        if (n == 7 && set_suit(c, n))
            t |= 1u << 2;
        if (n == 4 && set_rank(c, n))
            t |= 1u << 3;
        if (n == 8 && pz_run_start(c, n))
            t |= 1u << 4;
        if (n == 4 && pz_run_start(c, n) && nat_colour(c, n))
            t |= 1u << 5;
    }
    if (sum_acc(c, n) == 34) {
        t |= 1u << 6;
        if (all_colour(c, n))
            t |= 1u << 7;
    }
    return t;
}

int pz_phase_ngroups(int phase)
{
    return phase == 2 || phase == 5 ? 1 : 2;
}

unsigned pz_phase_types(int ng, const uint8_t *const *g, const int *gn)
{
    unsigned t[2] = {0, 0}, r = 0;
    if (ng < 1 || ng > 2)
        return 0;
    for (int i = 0; i < ng; i++)
        t[i] = pz_group_types(g[i], gn[i]);
    if (ng == 1) {
        if (t[0] & (1u << 2))
            r |= 1u << 2;
        if (t[0] & (1u << 4))
            r |= 1u << 5;
        return r;
    }
    if ((t[0] & t[1]) & (1u << 1))
        r |= 1u << 1;
    if ((t[0] & t[1]) & (1u << 6))
        r |= 1u << 3;
    if ((t[0] & t[1]) & (1u << 3))
        r |= 1u << 4;
    if ((t[0] & t[1]) & (1u << 7))
        r |= 1u << 6;
    if ((t[0] & (1u << 5)) && (t[1] & (1u << 3)))
        r |= 1u << 7;
    return r;
}

/* --- the clauses of group_type, phase_type and score (docs/autograder.md) --- */

static void say(char *why, size_t whylen, const char *text)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", text);
}

#define CLAUSE(id, text)                     \
    do {                                     \
        say(why, whylen, text);              \
        return id;                           \
    } while (0)

static int has_ace(const uint8_t *c, int n)
{
    for (int i = 0; i < n; i++)
        if (pz_wild(c[i]))
            return 1;
    return 0;
}

static int distinct_values(const uint8_t *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!pz_wild(c[i]) && !pz_wild(c[j]) && pz_rank(c[i]) == pz_rank(c[j]))
                return 0;
    return 1;
}

const char *pz_group_clause(const uint8_t *c, int n, char *why, size_t whylen)
{
    unsigned t = pz_group_types(c, n), setrun = t & 0x3E, acc = t & 0xC0;
    if (n >= 1 && has_joker(c, n))
        CLAUSE("phazed.group.joker", "a Joker (Skip) is never part of a group: no type");
    if (setrun && acc)
        CLAUSE("phazed.group.several-types", "a set or run that also totals 34 is of every type it fits, sorted");
    if (t & (1u << 7))
        CLAUSE("phazed.group.colour-acc-34", "cards of one colour totalling 34 are types 6 and 7");
    if (t & (1u << 6)) {
        if (has_ace(c, n))
            CLAUSE("phazed.group.acc-ace-one", "in an accumulation an Ace counts 1: these total 34 (type 6)");
        CLAUSE("phazed.group.acc-34", "cards totalling 34 of mixed colours are an accumulation, type 6 only");
    }
    int start = pz_run_start(c, n), wraps = start && start + n - 1 > 13;
    if (t & (1u << 1))
        CLAUSE("phazed.group.value-set-3", "three cards of one value (Aces wild, two naturals at least) are type 1");
    if (t & (1u << 2))
        CLAUSE("phazed.group.suit-set-7", "seven cards of one suit (Aces wild, two naturals at least) are type 2");
    if (t & (1u << 3))
        CLAUSE("phazed.group.value-set-4", "four cards of one value (Aces wild, two naturals at least) are type 3");
    if ((t & (1u << 4)) && wraps)
        CLAUSE("phazed.group.run-wrap", "runs wrap from King to 2: this run is one");
    if (t & (1u << 4))
        CLAUSE("phazed.group.run-8", "eight cards in sequence (Aces standing for the missing values) are type 4");
    if ((t & (1u << 5)) && wraps)
        CLAUSE("phazed.group.run-wrap", "runs wrap from King to 2: this run is one");
    if (t & (1u << 5))
        CLAUSE("phazed.group.colour-run-4", "four cards in sequence of one colour are type 5");
    int nat = naturals(c, n);
    if (n == 3 || n == 4 || n == 7 || n == 8) {
        if (nat < 2)
            CLAUSE("phazed.group.two-naturals", "a set or run needs at least two natural (non-Ace) cards");
        if (n == 7)
            CLAUSE("phazed.group.set-suits", "seven cards whose naturals are not all of one suit are no set");
        if (n == 8)
            CLAUSE("phazed.group.run-order", "eight cards not in sequence, in the order given, are no run");
        if (n == 4 && start)
            CLAUSE("phazed.group.run-colour", "a run of four whose naturals are not of one colour is not type 5");
        if (n == 4 && distinct_values(c, n))
            CLAUSE("phazed.group.run-order", "four cards not in sequence, in the order given, are no run");
        CLAUSE("phazed.group.set-values", "cards whose naturals are not all of one value are no set");
    }
    if (nat >= 2 && (set_rank(c, n) || set_suit(c, n) || start))
        CLAUSE("phazed.group.size", "sets and runs are only of 3, 4, 7 or 8 cards: the whole group must fit the type");
    if (has_ace(c, n))
        CLAUSE("phazed.group.acc-ace-one", "in an accumulation an Ace counts 1: these do not total 34");
    CLAUSE("phazed.group.acc-total", "cards that are no set or run and do not total 34 are of no type");
}

const char *pz_phase_clause(int ng, const uint8_t *const *g, const int *gn, char *why, size_t whylen)
{
    static const char *const NAMES[8][2] = {
        {"", ""},
        {"phazed.phase.two-sets-of-3", "two sets of three of one value each are phase 1"},
        {"phazed.phase.suit-set-7", "one set of seven of one suit is phase 2"},
        {"phazed.phase.two-accs", "two accumulations of 34 are phase 3"},
        {"phazed.phase.two-sets-of-4", "two sets of four of one value each are phase 4"},
        {"phazed.phase.run-8", "one run of eight is phase 5"},
        {"phazed.phase.two-colour-accs", "two accumulations of 34, each of one colour, are phases 3 and 6"},
        {"phazed.phase.run-and-set", "a run of four of one colour, then a set of four of one value, are phase 7"},
    };
    unsigned t = pz_phase_types(ng, g, gn);
    if (ng < 1 || ng > 2)
        CLAUSE("phazed.phase.group-count", "a phase is one group (phases 2, 5) or two (the others)");
    if (t & (t - 1)) {
        if (t == ((1u << 3) | (1u << 6)))
            CLAUSE(NAMES[6][0], NAMES[6][1]);
        CLAUSE("phazed.phase.several-types", "groups that form several phases are of each, sorted");
    }
    for (int k = 1; k <= PZ_NPHASES; k++)
        if (t & (1u << k))
            CLAUSE(NAMES[k][0], NAMES[k][1]);
    unsigned t0 = pz_group_types(g[0], gn[0]), t1 = ng == 2 ? pz_group_types(g[1], gn[1]) : 0;
    const unsigned TWO = (1u << 1) | (1u << 3) | (1u << 5) | (1u << 6) | (1u << 7);
    if (ng == 1)
        CLAUSE(t0 & TWO ? "phazed.phase.group-count" : "phazed.phase.group-type",
               t0 & TWO ? "a phase is one group (phases 2, 5) or two (the others)"
                        : "every group of a phase must be of the phase's group type");
    if (!t0 || !t1)
        CLAUSE("phazed.phase.group-type", "every group of a phase must be of the phase's group type");
    if ((t0 & (1u << 3)) && (t1 & (1u << 5)))
        CLAUSE("phazed.phase.run-before-set", "phase 7 is the run of four first, then the set of four");
    if ((t0 | t1) & ((1u << 2) | (1u << 4)))
        CLAUSE("phazed.phase.group-count", "a phase is one group (phases 2, 5) or two (the others)");
    CLAUSE("phazed.phase.mixed", "the two groups must be of the same phase: these are of different kinds");
}

const char *pz_score_clause(const uint8_t *h, int n, char *why, size_t whylen)
{
    int joker = 0, ace = 0, court = 0;
    for (int i = 0; i < n; i++) {
        joker |= h[i] == PZ_JOKER;
        ace |= h[i] != PZ_JOKER && pz_rank(h[i]) == 14;
        court |= h[i] != PZ_JOKER && pz_rank(h[i]) >= 11 && pz_rank(h[i]) <= 13;
    }
    if (joker)
        CLAUSE("phazed.score.joker", "a Joker left in the hand scores 15");
    if (ace)
        CLAUSE("phazed.score.ace", "an Ace left in the hand scores 25");
    if (court)
        CLAUSE("phazed.score.court", "a Jack, Queen or King scores 11, 12 or 13");
    if (!n)
        CLAUSE("phazed.score.empty", "an empty hand scores 0");
    CLAUSE("phazed.score.face", "cards 2 to 10 score their face value");
}

int pz_group_kind(int phase, int g)
{
    switch (phase) {
    case 1:
    case 4: return PZ_K_VSET;
    case 2: return PZ_K_SSET;
    case 3: return PZ_K_ACC;
    case 5: return PZ_K_RUN;
    case 6: return PZ_K_CACC;
    default: return g == 0 ? PZ_K_CRUN : PZ_K_VSET;
    }
}

int pz_acc_complete(int total)
{
    for (int i = 0; i < NCOMPLETE; i++)
        if (COMPLETE[i] == total)
            return 1;
    return 0;
}

int pz_acc_next(int total)
{
    for (int i = 0; i < NCOMPLETE; i++)
        if (COMPLETE[i] > total)
            return COMPLETE[i];
    return 0;
}

int pz_group_total(const pz_group *g) { return sum_acc(g->c, g->n); }

static int is_acc(int kind) { return kind == PZ_K_ACC || kind == PZ_K_CACC; }

int pz_fits(const pz_table *t, int p, int g, int card, int idx)
{
    if (card < 1 || card >= PZ_JOKER || p < 0 || p >= PZ_MAXP || !t->phase[p] || g < 0 ||
        g >= t->ng[p])
        return 0;
    const pz_group *G = &t->g[p][g];
    int n = G->n, kind = pz_group_kind(t->phase[p], g);
    if (idx < 0 || idx > n || n >= PZ_GMAX)
        return 0;
    switch (kind) {
    case PZ_K_VSET:
        return pz_wild(card) || pz_rank(card) == set_rank(G->c, n);
    case PZ_K_SSET:
        return pz_wild(card) || pz_suit(card) + 1 == set_suit(G->c, n);
    case PZ_K_RUN:
    case PZ_K_CRUN: {
        int start = pz_run_start(G->c, n);
        if (n >= 12 || !start || (idx != 0 && idx != n))
            return 0;
        if (pz_wild(card))
            return 1;
        if (kind == PZ_K_CRUN && (pz_black(card) ? 1 : 2) != nat_colour(G->c, n))
            return 0;
        int want = idx == 0 ? cyc(start, 11) : cyc(start, n);
        return pz_rank(card) == want;
    }
    default: {
        if (kind == PZ_K_CACC && n && pz_black(card) != pz_black(G->c[0]))
            return 0;
        int tot = sum_acc(G->c, n), next = pz_acc_next(tot);
        return next && tot + pz_accval(card) <= next;
    }
    }
}

int pz_all_done(int variant, int status)
{
    return variant ? (status & PZ_ALLPHASES) == PZ_ALLPHASES : status >= PZ_NPHASES;
}

int pz_required(const pz_obs *o, int phase)
{
    if (phase < 1 || phase > PZ_NPHASES)
        return 0;
    if (o->variant)
        return !((o->status[o->seat] >> (phase - 1)) & 1);
    return o->status[o->seat] + 1 == phase;
}

/* --- judging --------------------------------------------------------------- */

static int count_in(const uint8_t *h, int n, int card)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += h[i] == card;
    return k;
}

static int accs_complete(const pz_table *t, int np)
{
    for (int p = 0; p < np; p++)
        for (int g = 0; g < t->ng[p] && t->phase[p]; g++)
            if (is_acc(pz_group_kind(t->phase[p], g)) && !pz_acc_complete(pz_group_total(&t->g[p][g])))
                return 0;
    return 1;
}

/* Can the cards h[i..] bring every need[] to 0 (col[k]: 0 any, 1 black,
 * 2 red)? Depth-first, each card to one group or kept. */
static int reach(const uint8_t *h, int n, int i, int *need, const int *col, int k, int left)
{
    if (left == 0)
        return 1;
    if (i == n)
        return 0;
    int c = h[i];
    if (c != PZ_JOKER) {
        int v = pz_accval(c);
        for (int j = 0; j < k; j++) {
            if (need[j] < v || (col[j] && (pz_black(c) ? 1 : 2) != col[j]))
                continue;
            need[j] -= v;
            int ok = reach(h, n, i + 1, need, col, k, left - v);
            need[j] += v;
            if (ok)
                return 1;
        }
    }
    /* or keep this card */
    return reach(h, n, i + 1, need, col, k, left);
}

static int accs_reachable(const pz_table *t, int np, const uint8_t *hand, int nhand)
{
    int need[2 * PZ_MAXP], col[2 * PZ_MAXP], k = 0, left = 0;
    for (int p = 0; p < np; p++)
        for (int g = 0; g < t->ng[p] && t->phase[p]; g++) {
            int kind = pz_group_kind(t->phase[p], g);
            if (!is_acc(kind))
                continue;
            int tot = pz_group_total(&t->g[p][g]);
            if (pz_acc_complete(tot))
                continue;
            int nx = pz_acc_next(tot);
            if (!nx)
                return 0;
            need[k] = nx - tot;
            col[k] = kind == PZ_K_CACC ? (pz_black(t->g[p][g].c[0]) ? 1 : 2) : 0;
            left += need[k];
            k++;
        }
    if (!k)
        return 1;
    int n = nhand < 16 ? nhand : 16; /* the game's hands hold at most 11 */
    uint8_t h[16];
    memcpy(h, hand, (size_t)n);
    /* high values first: fewer branches */
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && pz_accval(h[b]) > pz_accval(h[b - 1]); b--) {
            uint8_t x = h[b];
            h[b] = h[b - 1];
            h[b - 1] = x;
        }
    return reach(h, n, 0, need, col, k, left);
}

#define FAIL(r, ...)                                   \
    do {                                               \
        if (why)                                       \
            snprintf(why, whylen, __VA_ARGS__);        \
        if (rule)                                      \
            *rule = r;                                 \
        return 0;                                      \
    } while (0)

static void remove_card(uint8_t *h, int *n, int card)
{
    for (int i = 0; i < *n; i++)
        if (h[i] == card) {
            memmove(h + i, h + i + 1, (size_t)(*n - i - 1));
            (*n)--;
            return;
        }
}

static void insert_card(pz_group *g, int idx, int card)
{
    memmove(g->c + idx + 1, g->c + idx, (size_t)(g->n - idx));
    g->c[idx] = (uint8_t)card;
    g->n++;
}

int pz_judge(const pz_obs *o, const pz_play *p, char *why, size_t whylen, const char **rule)
{
    int me = o->seat;
    if (rule)
        *rule = "";
    if (why && whylen)
        why[0] = 0;
    switch (p->type) {
    case PZ_PICK_DECK:
    case PZ_PICK_DISCARD:
        if (o->mid)
            FAIL("pick-up-first", "a card is picked up only as the first play of a turn");
        if (p->type == PZ_PICK_DECK) {
            if (o->deck == 0)
                FAIL("deck-empty", "the deck is empty");
            if (why)
                snprintf(why, whylen, "draws the top card of the deck");
            return 1;
        }
        if (!o->discard)
            FAIL("discard-empty", "the discard pile is empty");
        if (o->discard == PZ_JOKER)
            FAIL("joker-pickup", "a Joker (Skip) on the discard pile can never be picked up");
        if (p->card != o->discard)
            FAIL("discard-top", "%s is not the top of the discard pile (%s is)", pz_card_name(p->card),
                 pz_card_name(o->discard));
        if (why)
            snprintf(why, whylen, "takes %s from the discard pile", pz_card_name(p->card));
        return 1;
    default:
        break;
    }
    if (p->type < PZ_PHASE || p->type > PZ_SKIP)
        FAIL("play-type", "unknown play type %d", p->type);
    if (!o->mid)
        FAIL("pick-up-first", "a turn starts by picking up a card, from the deck or the discard pile");
    if (p->type == PZ_PHASE) {
        if (o->t.phase[me])
            FAIL("phase-once", "only one phase can be played in a hand");
        if (p->phase < 1 || p->phase > PZ_NPHASES)
            FAIL("phase-type", "phase ids are 1-7");
        if (!pz_required(o, p->phase)) {
            if (o->variant)
                FAIL("phase-done", "phase %d is already completed (each phase once, in any order)", p->phase);
            if (o->status[me] >= PZ_NPHASES)
                FAIL("phase-order", "every phase is already completed");
            FAIL("phase-order", "the phase to play now is phase %d, not %d", o->status[me] + 1, p->phase);
        }
        const uint8_t *g[2] = {p->gc[0], p->gc[1]};
        int gn[2] = {p->gn[0], p->gn[1]};
        unsigned types = pz_phase_types(p->ng, g, gn);
        if (!(types & (1u << p->phase))) {
            char text[240] = "";
            if (why)
                pz_phase_why(p->phase, p->ng, g, gn, text, sizeof text);
            FAIL("phase-type", "%s", text);
        }
        uint8_t h[PZ_NCARDS];
        int n = o->nhand;
        memcpy(h, o->hand, (size_t)n);
        for (int k = 0; k < p->ng; k++)
            for (int i = 0; i < p->gn[k]; i++) {
                int before = n;
                remove_card(h, &n, p->gc[k][i]);
                if (n == before)
                    FAIL("not-held", "the phase needs %s, which the hand does not hold (enough of)",
                         pz_card_name(p->gc[k][i]));
            }
        if (why)
            snprintf(why, whylen, "plays phase %d", p->phase);
        return 1;
    }
    if (!count_in(o->hand, o->nhand, p->type == PZ_SKIP ? PZ_JOKER : p->card))
        FAIL("not-held", "the hand does not hold %s",
             pz_card_name(p->type == PZ_SKIP ? PZ_JOKER : p->card));
    if (p->type == PZ_PLACE) {
        if (!o->t.phase[me])
            FAIL("place-before-phase", "cards go on the table only after the player's phase this hand");
        if (p->card == PZ_JOKER)
            FAIL("joker-table", "Jokers are never placed on the table");
        if (p->pid >= o->np || !o->t.phase[p->pid])
            FAIL("place-target", "player %d has no phase on the table", p->pid + 1);
        if (p->grp >= o->t.ng[p->pid])
            FAIL("place-target", "player %d's phase has no group %d", p->pid + 1, p->grp + 1);
        const pz_group *G = &o->t.g[p->pid][p->grp];
        int kind = pz_group_kind(o->t.phase[p->pid], p->grp);
        if (p->idx > G->n)
            FAIL("place-index", "position %d is past the end of the group (%d cards)", p->idx + 1, G->n);
        if (!pz_fits(&o->t, p->pid, p->grp, p->card, p->idx)) {
            if (is_acc(kind)) {
                int tot = pz_group_total(G), nx = pz_acc_next(tot);
                if (kind == PZ_K_CACC && pz_black(p->card) != pz_black(G->c[0]))
                    FAIL("place-fit", "%s is not of the accumulation's colour", pz_card_name(p->card));
                if (!nx)
                    FAIL("acc-target", "the accumulation is closed at 88");
                FAIL("acc-target", "%s would take the accumulation from %d past its next target %d",
                     pz_card_name(p->card), tot, nx);
            }
            if ((kind == PZ_K_RUN || kind == PZ_K_CRUN) && G->n >= 12)
                FAIL("run-full", "the run already holds 12 cards, one of each value");
            if ((kind == PZ_K_RUN || kind == PZ_K_CRUN) && p->idx != 0 && p->idx != G->n)
                FAIL("place-index", "a run grows only at its ends (its start or after its %d cards)", G->n);
            FAIL("place-fit", "%s does not fit player %d's group %d at position %d", pz_card_name(p->card),
                 p->pid + 1, p->grp + 1, p->idx + 1);
        }
        pz_table t = o->t;
        insert_card(&t.g[p->pid][p->grp], p->idx, p->card);
        uint8_t h[PZ_NCARDS];
        int n = o->nhand;
        memcpy(h, o->hand, (size_t)n);
        remove_card(h, &n, p->card);
        if (n == 0 && !accs_complete(&t, o->np))
            FAIL("acc-incomplete", "the last card must complete the accumulation being built");
        if (o->strict && n > 0 && !accs_reachable(&t, o->np, h, n))
            FAIL("acc-unreachable",
                 "after this play the cards left could not complete the accumulation this turn");
        if (why)
            snprintf(why, whylen, "places %s on player %d's group %d", pz_card_name(p->card), p->pid + 1,
                     p->grp + 1);
        return 1;
    }
    if (!accs_complete(&o->t, o->np))
        FAIL("acc-incomplete", "an accumulation played to this turn must reach its target before the turn ends");
    if (p->type == PZ_DISCARD) {
        if (p->card == PZ_JOKER)
            FAIL("joker-discard", "a Joker is not discarded: it is played as a Skip on another player");
        if (why)
            snprintf(why, whylen, "discards %s", pz_card_name(p->card));
        return 2;
    }
    if (!o->variant)
        FAIL("bonus-only", "Skip cards exist only in the bonus variant");
    if (p->target >= o->np || p->target == me)
        FAIL("skip-target", "a Skip names one of the other players (seats 0 to %d in the play)", o->np - 1);
    if (why)
        snprintf(why, whylen, "plays a Skip on player %d", p->target + 1);
    return 2;
}

const char *pz_situation(const pz_obs *o, int first, char *why, size_t whylen)
{
    int me = o->seat;
    if (!o->mid) {
        if (first)
            CLAUSE("phazed.play.first-turn", "the hand's first turn: pick up from the deck or the discard pile");
        if (!o->discard || o->discard == PZ_JOKER)
            CLAUSE("phazed.play.deck-only", "the discard pile offers nothing to take: only the deck, (1, None)");
        CLAUSE("phazed.play.pick-up", "a turn starts with a pick-up: (1, None) or the discard's top card");
    }
    if (!accs_complete(&o->t, o->np))
        CLAUSE("phazed.play.acc-open",
               "an accumulation played to this turn is short of its target: only plays to it are legal");
    if (o->nhand == 1)
        CLAUSE("phazed.play.last-card", "one card left: discarding or placing it ends the hand");
    if (o->variant && count_in(o->hand, o->nhand, PZ_JOKER))
        CLAUSE("phazed.play.skip", "the hand holds a Joker: a Skip on another player is legal");
    if (!o->t.phase[me]) {
        pz_play ph;
        if (pz_phase_plays(o, &ph, 1))
            CLAUSE("phazed.play.phase", "the hand holds the phase to play (a phase play, or any discard)");
        CLAUSE("phazed.play.no-phase", "no phase on the table and none in hand: only a discard");
    }
    pz_play p;
    memset(&p, 0, sizeof p);
    p.type = PZ_PLACE;
    for (int i = 0; i < o->nhand; i++)
        for (int q = 0; q < o->np; q++)
            for (int g = 0; g < o->t.ng[q] && o->t.phase[q]; g++)
                for (int end = 0; end < 2; end++) {
                    p.card = o->hand[i];
                    p.pid = (uint8_t)q;
                    p.grp = (uint8_t)g;
                    p.idx = (uint8_t)(end ? o->t.g[q][g].n : 0);
                    if (pz_judge(o, &p, NULL, 0, NULL))
                        CLAUSE("phazed.play.place", "the phase is down and cards of the hand fit groups on the table");
                }
    CLAUSE("phazed.play.discard", "the phase is down and nothing fits the table: only a discard");
}

void pz_obs_do(pz_obs *o, const pz_play *p)
{
    int me = o->seat;
    switch (p->type) {
    case PZ_PICK_DECK:
        if (p->card)
            o->hand[o->nhand++] = p->card;
        if (o->deck > 0)
            o->deck--;
        o->mid = 1;
        break;
    case PZ_PICK_DISCARD:
        o->hand[o->nhand++] = p->card;
        o->discard = 0;
        o->mid = 1;
        break;
    case PZ_PHASE:
        o->t.phase[me] = p->phase;
        o->t.ng[me] = p->ng;
        for (int k = 0; k < p->ng; k++) {
            o->t.g[me][k].n = p->gn[k];
            memcpy(o->t.g[me][k].c, p->gc[k], p->gn[k]);
            for (int i = 0; i < p->gn[k]; i++)
                remove_card(o->hand, &o->nhand, p->gc[k][i]);
        }
        if (o->variant)
            o->status[me] |= (uint8_t)(1u << (p->phase - 1));
        else
            o->status[me]++;
        break;
    case PZ_PLACE:
        insert_card(&o->t.g[p->pid][p->grp], p->idx, p->card);
        remove_card(o->hand, &o->nhand, p->card);
        break;
    case PZ_DISCARD:
        remove_card(o->hand, &o->nhand, p->card);
        o->discard = p->card;
        o->mid = 0;
        break;
    case PZ_SKIP:
        remove_card(o->hand, &o->nhand, PZ_JOKER);
        o->discard = PZ_JOKER;
        o->mid = 0;
        break;
    default:
        break;
    }
    if (o->hand_sizes[me] >= 0)
        o->hand_sizes[me] = o->nhand;
}

/* --- phase plays ----------------------------------------------------------- */
/* Every phase play the hand holds: for each phase the seat may play now, its
 * groups are built from the hand's cards (counted, so two copies of a card
 * are one choice taken twice, never two plays), each group checked by
 * pz_group_types as soon as it is complete, the whole play by pz_judge.
 * Each set of cards is listed once, in the order pz_phase_canon gives it
 * (the bots put theirs in that order too, so that a bot's or the hint's
 * phase play is exactly one of the list's). A game's hand holds at most
 * 11 cards and is searched in full; an autograder argument's hand may be
 * larger, so the search stops after PHASE_BUDGET steps. */
enum { PHASE_BUDGET = 2000000 };

static void each_visit(pz_each *each, const pz_play *p)
{
    if (each->stop)
        return;
    each->n++;
    each->stop = each->fn(each->ctx, p);
}

typedef struct phase_gen {
    const pz_obs *o;
    int ph, steps;
    int nv;                                 /* distinct cards of the hand */
    uint8_t v[PZ_NCARDS], left[PZ_NCARDS];  /* ascending; copies not yet used */
    pz_play p;                              /* the play being built */
    pz_each *each;                          /* where the plays go */
} phase_gen;

static void phase_group(phase_gen *G, int g);

/* The group type bit (pz_group_types) and size of group g of the phase. */
static unsigned group_bit(int ph, int g, int *size)
{
    static const unsigned BIT[] = {[PZ_K_SSET] = 1u << 2, [PZ_K_RUN] = 1u << 4, [PZ_K_CRUN] = 1u << 5,
                                   [PZ_K_ACC] = 1u << 6, [PZ_K_CACC] = 1u << 7};
    int kind = pz_group_kind(ph, g);
    *size = kind == PZ_K_SSET ? 7 : kind == PZ_K_RUN ? 8 : kind == PZ_K_CRUN ? 4 : ph == 1 ? 3 : 4;
    if (kind == PZ_K_VSET)
        return ph == 1 ? 1u << 1 : 1u << 3;
    if (kind == PZ_K_ACC || kind == PZ_K_CACC)
        *size = 0; /* any size that totals 34 */
    return BIT[kind];
}

static int bytes_cmp(const void *a, const void *b) { return *(const uint8_t *)a - *(const uint8_t *)b; }

void pz_phase_canon(pz_play *p)
{
    if (p->type != PZ_PHASE || p->ng < 1 || p->ng > 2)
        return;
    for (int g = 0; g < p->ng; g++) {
        int kind = pz_group_kind(p->phase, g);
        if (kind != PZ_K_RUN && kind != PZ_K_CRUN)
            qsort(p->gc[g], p->gn[g], 1, bytes_cmp);
    }
    if (p->ng < 2 || pz_group_kind(p->phase, 0) != pz_group_kind(p->phase, 1))
        return;
    int cmp = p->gn[0] != p->gn[1] ? p->gn[0] - p->gn[1] : memcmp(p->gc[0], p->gc[1], p->gn[0]);
    if (cmp > 0) {
        uint8_t n = p->gn[0], c[PZ_PHMAX];
        memcpy(c, p->gc[0], sizeof c);
        memcpy(p->gc[0], p->gc[1], sizeof c);
        memcpy(p->gc[1], c, sizeof c);
        p->gn[0] = p->gn[1];
        p->gn[1] = n;
    }
}

/* Group g is complete: check it, then build the next or judge the play. */
static void phase_group_done(phase_gen *G, int g)
{
    int size;
    pz_play *p = &G->p;
    if (!(pz_group_types(p->gc[g], p->gn[g]) & group_bit(G->ph, g, &size)))
        return;
    if (g + 1 < p->ng) {
        phase_group(G, g + 1);
        return;
    }
    pz_play canon = *p; /* each set of cards once: in the one order pz_phase_canon gives */
    pz_phase_canon(&canon);
    if (memcmp(&canon, p, sizeof canon) != 0)
        return;
    if (pz_judge(G->o, p, NULL, 0, NULL))
        each_visit(G->each, p);
}

/* Cards of group g in ascending order from distinct card `from` on: exactly
 * `size` of them, or (size 0) a total of 34. */
static void phase_unordered(phase_gen *G, int g, int from, int size, int total)
{
    pz_play *p = &G->p;
    if (G->each->stop || ++G->steps > PHASE_BUDGET)
        return;
    if (size ? p->gn[g] == size : total == 34) {
        phase_group_done(G, g);
        return;
    }
    if (p->gn[g] >= PZ_PHMAX)
        return;
    for (int j = from; j < G->nv; j++) {
        int c = G->v[j];
        if (!G->left[j] || (!size && total + pz_accval(c) > 34))
            continue;
        G->left[j]--;
        p->gc[g][p->gn[g]++] = (uint8_t)c;
        phase_unordered(G, g, j, size, total + pz_accval(c));
        p->gn[g]--;
        G->left[j]++;
    }
}

/* Position i.. of a run of `size` from `start`: a natural of the rank due
 * there or a Wild. */
static void phase_run(phase_gen *G, int g, int start, int size)
{
    pz_play *p = &G->p;
    if (G->each->stop || ++G->steps > PHASE_BUDGET)
        return;
    int i = p->gn[g];
    if (i == size) {
        phase_group_done(G, g);
        return;
    }
    for (int j = 0; j < G->nv; j++) {
        int c = G->v[j];
        if (!G->left[j] || (!pz_wild(c) && pz_rank(c) != cyc(start, i)))
            continue;
        G->left[j]--;
        p->gc[g][p->gn[g]++] = (uint8_t)c;
        phase_run(G, g, start, size);
        p->gn[g]--;
        G->left[j]++;
    }
}

static void phase_group(phase_gen *G, int g)
{
    int size, kind = pz_group_kind(G->ph, g);
    group_bit(G->ph, g, &size);
    G->p.gn[g] = 0;
    if (kind == PZ_K_RUN || kind == PZ_K_CRUN)
        for (int start = 2; start <= 13; start++)
            phase_run(G, g, start, size);
    else
        phase_unordered(G, g, 0, size, 0);
}

void pz_phase_each(const pz_obs *o, pz_each *each)
{
    phase_gen *G = &(phase_gen){.o = o, .each = each};
    if (!o->mid || o->t.phase[o->seat])
        return;
    for (int c = 1; c < PZ_JOKER; c++) { /* the hand's cards, ascending, Jokers aside */
        int k = count_in(o->hand, o->nhand, c);
        if (k) {
            G->v[G->nv] = (uint8_t)c;
            G->left[G->nv++] = (uint8_t)k;
        }
    }
    for (int ph = 1; ph <= PZ_NPHASES && !each->stop; ph++)
        if (pz_required(o, ph)) {
            memset(&G->p, 0, sizeof G->p);
            G->p.type = PZ_PHASE;
            G->ph = ph;
            G->p.phase = (uint8_t)ph;
            G->p.ng = (uint8_t)pz_phase_ngroups(ph);
            phase_group(G, 0);
        }
}

/* pz_each's fn for pz_phase_plays and pz_gen: into an array, up to its end. */
typedef struct collect {
    pz_play *out;
    int n, max;
} collect;

static int collect_one(void *ctx, const pz_play *p)
{
    collect *c = ctx;
    c->out[c->n++] = *p;
    return c->n >= c->max;
}

int pz_phase_plays(const pz_obs *o, pz_play *out, int max)
{
    collect c = {out, 0, max};
    pz_each each = {collect_one, &c, 0, max <= 0};
    pz_phase_each(o, &each);
    return c.n;
}

/* --- why a phase play's groups are not its phase (pz_judge: phase-type) ---- */

static const char *value_word(int r)
{
    static const char *const W[] = {"", "", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King"};
    return r >= 2 && r <= 13 ? W[r] : "?";
}

static const char *kind_words(int kind, int size)
{
    switch (kind) {
    case PZ_K_VSET: return size == 3 ? "a set of 3 of one value" : "a set of 4 of one value";
    case PZ_K_SSET: return "a set of 7 of one suit";
    case PZ_K_RUN: return "a run of 8";
    case PZ_K_CRUN: return "a run of 4 of one colour";
    case PZ_K_ACC: return "an accumulation of 34";
    default: return "an accumulation of 34 of one colour";
    }
}

/* The first natural after natural a of c[] whose value (by: 0) or suit
 * (by: 1) or colour (by: 2; Aces too when `aces`) differs from a's; -1 none. */
static int differs(const uint8_t *c, int n, int by, int aces, int *first)
{
    int a = -1;
    for (int i = 0; i < n; i++) {
        if (pz_wild(c[i]) && !aces)
            continue;
        if (a < 0) {
            a = i;
            continue;
        }
        int same = by == 0   ? pz_rank(c[i]) == pz_rank(c[a])
                   : by == 1 ? pz_suit(c[i]) == pz_suit(c[a])
                             : pz_black(c[i]) == pz_black(c[a]);
        if (!same) {
            *first = a;
            return i;
        }
    }
    return -1;
}

#define WHY(...)                                \
    do {                                        \
        if (why && whylen)                      \
            snprintf(why, whylen, __VA_ARGS__); \
        return 1;                               \
    } while (0)

/* Group gi (0-based) of kind `kind`: 1 and why when it is not one. */
static int group_why(int kind, int size, int gi, const uint8_t *c, int n, char *why, size_t whylen)
{
    const char *need = kind_words(kind, size);
    int k = gi + 1, a = 0, b;
    if (n == 0)
        WHY("group %d is empty: it needs %s", k, need);
    for (int i = 0; i < n; i++)
        if (c[i] == PZ_JOKER || c[i] == 0)
            WHY("group %d holds a Skip card (ZZ), which is never part of a group", k);
    if (is_acc(kind)) {
        int tot = sum_acc(c, n);
        if (tot != 34)
            WHY("group %d totals %d, not 34%s: it needs %s", k, tot, has_ace(c, n) ? " (an Ace counts 1)" : "",
                need);
        if (kind == PZ_K_CACC && (b = differs(c, n, 2, 1, &a)) >= 0)
            WHY("group %d is not of one colour: %s is %s, %s is %s (in an accumulation Aces count too)", k,
                pz_card_name(c[a]), pz_black(c[a]) ? "black" : "red", pz_card_name(c[b]),
                pz_black(c[b]) ? "black" : "red");
        return 0;
    }
    if (n != size)
        WHY("group %d needs %d cards (%s); it has %d card%s", k, size, need, n, n == 1 ? "" : "s");
    int nat = naturals(c, n);
    if (nat < 2)
        WHY("group %d has %d natural card%s: %s needs two at least besides the wild Aces", k, nat,
            nat == 1 ? "" : "s", need);
    if (kind == PZ_K_VSET && (b = differs(c, n, 0, 0, &a)) >= 0)
        WHY("group %d is not a set of one value: %s and %s differ", k, pz_card_name(c[a]), pz_card_name(c[b]));
    if (kind == PZ_K_SSET && (b = differs(c, n, 1, 0, &a)) >= 0)
        WHY("group %d is not a set of one suit: %s and %s differ", k, pz_card_name(c[a]), pz_card_name(c[b]));
    if (kind == PZ_K_RUN || kind == PZ_K_CRUN) {
        int last = -1;
        for (int i = 0; i < n; i++) {
            if (pz_wild(c[i]))
                continue;
            if (last >= 0) {
                int due = cyc(pz_rank(c[last]), i - last);
                if (pz_rank(c[i]) != due) {
                    int gap = i - last - 1;
                    if (!gap)
                        WHY("group %d is not a run of %d: %s then %s (after %s comes %s, or an Ace)", k, size,
                            pz_card_name(c[last]), pz_card_name(c[i]), value_word(pz_rank(c[last])),
                            value_word(due));
                    WHY("group %d is not a run of %d: %s, %d Ace%s, then %s (card %d must be %s, or an Ace)", k,
                        size, pz_card_name(c[last]), gap, gap == 1 ? "" : "s", pz_card_name(c[i]), i + 1,
                        value_word(due));
                }
            }
            last = i;
        }
        if (kind == PZ_K_CRUN && (b = differs(c, n, 2, 0, &a)) >= 0)
            WHY("group %d is not of one colour: %s is %s, %s is %s", k, pz_card_name(c[a]),
                pz_black(c[a]) ? "black" : "red", pz_card_name(c[b]), pz_black(c[b]) ? "black" : "red");
    }
    return 0;
}

int pz_phase_why(int phase, int ng, const uint8_t *const *g, const int *gn, char *why, size_t whylen)
{
    static const char *const NAMES[] = {"",
                                        "two sets of 3 of one value",
                                        "one set of 7 of one suit",
                                        "two accumulations of 34",
                                        "two sets of 4 of one value",
                                        "one run of 8",
                                        "two accumulations of 34, each of one colour",
                                        "a run of 4 of one colour, then a set of 4 of one value"};
    if (phase < 1 || phase > PZ_NPHASES)
        WHY("phase ids are 1-7");
    int want = pz_phase_ngroups(phase);
    if (ng != want)
        WHY("phase %d is %s: %s; the play has %d", phase, want == 1 ? "one group" : "two groups", NAMES[phase], ng);
    if (phase == 7 && (pz_group_types(g[0], gn[0]) & (1u << 3)) && (pz_group_types(g[1], gn[1]) & (1u << 5)))
        WHY("phase 7 is the run of 4 of one colour first, then the set of 4: these groups are the other way round");
    for (int i = 0; i < ng; i++) {
        int size;
        group_bit(phase, i, &size);
        if (group_why(pz_group_kind(phase, i), size, i, g[i], gn[i], why, whylen))
            return 1;
    }
    if (pz_phase_types(ng, g, gn) & (1u << phase))
        return 0;
    WHY("the groups do not form phase %d (%s)", phase, NAMES[phase]);
}

/* --- legal plays ------------------------------------------------------------ */

static int distinct(const uint8_t *h, int n, uint8_t *out)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= out[j] == h[i];
        if (!seen)
            out[k++] = h[i];
    }
    return k;
}

static void push(const pz_obs *o, const pz_play *p, pz_each *each)
{
    if (pz_judge(o, p, NULL, 0, NULL))
        each_visit(each, p);
}

void pz_gen_each(const pz_obs *o, pz_each *each)
{
    pz_play p;
    if (!o->mid) {
        memset(&p, 0, sizeof p);
        p.type = PZ_PICK_DECK;
        push(o, &p, each);
        p.type = PZ_PICK_DISCARD;
        p.card = (uint8_t)o->discard;
        push(o, &p, each);
        return;
    }
    uint8_t d[PZ_NCARDS];
    int nd = distinct(o->hand, o->nhand, d);
    if (o->t.phase[o->seat])
        for (int i = 0; i < nd; i++)
            for (int q = 0; q < o->np; q++)
                for (int g = 0; g < o->t.ng[q] && o->t.phase[q]; g++) {
                    int kind = pz_group_kind(o->t.phase[q], g), len = o->t.g[q][g].n;
                    memset(&p, 0, sizeof p);
                    p.type = PZ_PLACE;
                    p.card = d[i];
                    p.pid = (uint8_t)q;
                    p.grp = (uint8_t)g;
                    if (kind == PZ_K_RUN || kind == PZ_K_CRUN) {
                        p.idx = 0;
                        push(o, &p, each);
                    }
                    p.idx = (uint8_t)len;
                    push(o, &p, each);
                }
    for (int i = 0; i < nd; i++) {
        memset(&p, 0, sizeof p);
        p.type = PZ_DISCARD;
        p.card = d[i];
        push(o, &p, each);
    }
    if (o->variant && count_in(o->hand, o->nhand, PZ_JOKER))
        for (int q = 0; q < o->np; q++) {
            memset(&p, 0, sizeof p);
            p.type = PZ_SKIP;
            p.target = (uint8_t)q;
            push(o, &p, each);
        }
    pz_phase_each(o, each); /* last: a hand may hold many */
}

int pz_gen(const pz_obs *o, pz_play *out, int max)
{
    collect c = {out, 0, max};
    pz_each each = {collect_one, &c, 0, max <= 0};
    pz_gen_each(o, &each);
    return c.n;
}

void pz_play_text(const pz_play *p, char *out, size_t n)
{
    switch (p->type) {
    case PZ_PICK_DECK:
        snprintf(out, n, "draws from the deck");
        break;
    case PZ_PICK_DISCARD:
        snprintf(out, n, "takes %s from the discard pile", pz_card_name(p->card));
        break;
    case PZ_PHASE: {
        size_t k = (size_t)snprintf(out, n, "plays phase %d:", p->phase);
        for (int g = 0; g < p->ng && k < n; g++) {
            k += (size_t)snprintf(out + k, n - k, "%s", g ? ", then" : "");
            for (int i = 0; i < p->gn[g] && k < n; i++)
                k += (size_t)snprintf(out + k, n - k, " %s", pz_card_name(p->gc[g][i]));
        }
        break;
    }
    case PZ_PLACE:
        snprintf(out, n, "places %s on player %d's group %d at position %d", pz_card_name(p->card),
                 p->pid + 1, p->grp + 1, p->idx + 1);
        break;
    case PZ_DISCARD:
        snprintf(out, n, "discards %s", pz_card_name(p->card));
        break;
    case PZ_SKIP:
        snprintf(out, n, "plays a Skip on player %d", p->target + 1);
        break;
    default:
        snprintf(out, n, "skips this turn");
    }
}
