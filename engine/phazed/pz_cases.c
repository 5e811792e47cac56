/* pz_cases.c: the autograder kit's suites of Phazed (docs/autograder.md):
 * arguments for group_type, phase_type, is_valid_play, score and play, each
 * draw aimed at one clause of the rules.
 *
 * Groups, phases and hands are drawn from two decks (and the bonus
 * variant's four jokers): no card more often than the decks hold it, every
 * card a real one. Whole positions (is_valid_play, play) are played, not
 * drawn (see "positions" below). The generator only aims: the answer and
 * its clause come from pz_fns.c, the code behind /validate
 * (engine/cases.c). A position's state (over 100 KB) is on the heap.
 */
#include "pz.h"
#include "cases.h"

#include <stdlib.h>
#include <string.h>

typedef struct gen {
    rng *r;
    int var;
    uint8_t used[PZ_JOKER + 1];
} gen;

static int below(gen *g, int n) { return n > 0 ? (int)rng_below(g->r, (uint32_t)n) : 0; }
static int chance(gen *g, int pct) { return below(g, 100) < pct; }
static int limit(gen *g, int c) { return c == PZ_JOKER ? (g->var ? 4 : 0) : 2; }
static int bonus(const game_suite *s) { return strcmp(s->variant, "bonus") == 0; }

/* What card_of accepts: rank 2..14 (0 any but the Ace), colour 1 black, 2
 * red, 0 any, suit >= 0 that suit; a copy still in the decks. */
typedef struct card_want {
    gen *g;
    int rank, colour, suit;
} card_want;

static int wanted(const void *wp, int k)
{
    const card_want *w = wp;
    if (w->g->used[k] >= limit(w->g, k) || (w->rank ? pz_rank(k) != w->rank : pz_rank(k) == 14))
        return 0;
    return !((w->colour && (pz_black(k) ? 1 : 2) != w->colour) || (w->suit >= 0 && pz_suit(k) != w->suit));
}

/* A card of `rank` and colour or suit (as wanted) still in the decks; 0 if
 * none. */
static int card_of(gen *g, int rank, int colour, int suit)
{
    card_want w = {g, rank, colour, suit};
    return case_draw(g->r, g->used, PZ_JOKER - 1, wanted, &w);
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

static json_t *group_suite(const game_suite *s, rng *r, int k, int visit)
{
    return group_args(r, bonus(s), k, visit);
}

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
        if (visit % 4 == 3) { /* a group one natural short of its type (the rest wild) */
            static const int FIRST[4] = {G_VSET3, G_VSET4, -1, -1}, TWO_AT[4] = {0, 1, 2, 3};
            int v = visit / 4 % 4;
            ng = FIRST[v] >= 0 ? 2 : 1;
            if (ng == 2)
                n[0] = group(&g, FIRST[v], visit, c[0]);
            n[ng - 1] = group(&g, G_TWO_NAT, TWO_AT[v], c[ng - 1]);
            break;
        }
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

static json_t *phase_suite(const game_suite *s, rng *r, int k, int visit)
{
    return phase_args(r, bonus(s), k, visit);
}

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

static json_t *score_suite(const game_suite *s, rng *r, int k, int visit)
{
    return score_args(r, bonus(s), k, visit);
}

/* --- positions of a hand: played, not drawn ------------------------------------
 *
 * is_valid_play and phazed_play take a whole position, and their stated
 * precondition is that it is consistent (table, turn_history, phase_status,
 * hand and discard agree). So positions are played: a new game with random
 * phase_status, hands rigged with the phases their players need (cards
 * swapped with the deck before the first turn, which no one can tell), the
 * turns of the other players played plainly (other_play), and the turn of
 * the player asked about scripted up to the point the aim needs. */

enum { MAXSTEPS = 160 };

typedef struct sim {
    gen g;
    pz_state *st;
    int seat;      /* the player asked about */
    int with_play; /* is_valid_play: the play judged comes first */
    int no_joker;  /* bonus: the seat must not draw a Joker (pick up the discard) */
    uint8_t held[PZ_DEAL]; /* the phase the seat was given, as drawn (held_n cards) */
    int held_n, held_phase;
} sim;

static uint64_t rng64(gen *g) { return (uint64_t)rng_next(g->r) << 32 | rng_next(g->r); }

/* Draw from the deck only: every card not in the deck counts as used. */
static void deck_pool(sim *s)
{
    memset(s->g.used, 0, sizeof s->g.used);
    for (int c = 1; c <= PZ_JOKER; c++)
        s->g.used[c] = (uint8_t)limit(&s->g, c);
    for (int i = 0; i < s->st->ndeck; i++)
        s->g.used[s->st->deck[i]]--;
}

/* Give player p the cards c[0..n) from the deck, in place of hand cards not
 * yet given (the first `kept` slots are kept). */
static int rig(sim *s, int p, const uint8_t *c, int n, int kept)
{
    pz_state *st = s->st;
    for (int k = 0; k < n; k++) {
        int slot = kept + k, at = -1;
        if (slot >= st->nhand[p])
            return 0;
        for (int i = 0; i < st->ndeck && at < 0; i++)
            if (st->deck[i] == c[k])
                at = i;
        if (at < 0)
            return 0;
        uint8_t x = st->hand[p][slot];
        st->hand[p][slot] = st->deck[at];
        st->deck[at] = x;
    }
    return 1;
}

/* The groups of `phase` drawn from the deck; cards into out, *n of them. */
static int phase_from_deck(sim *s, int phase, uint8_t *out, int *n)
{
    static const int G[8][2] = {{0, 0}, {G_VSET3, G_VSET3}, {G_SSET7, -1}, {G_ACC, G_ACC}, {G_VSET4, G_VSET4},
                                {G_RUN8, -1}, {G_CACC, G_CACC}, {G_CRUN4, G_VSET4}};
    uint8_t c[PZ_PHMAX];
    *n = 0;
    deck_pool(s);
    for (int k = 0; k < 2 && G[phase][k] >= 0; k++) {
        int m = group(&s->g, G[phase][k], below(&s->g, 6), c);
        if (!m || has_zero(c, m) || *n + m > PZ_DEAL)
            return 0;
        memcpy(out + *n, c, (size_t)m);
        *n += m;
    }
    return 1;
}

/* Cards that continue player p's own groups once on the table (same value,
 * suit, or the next values of a run), from the deck, at most `max`. */
static int extras_from_deck(sim *s, int phase, const uint8_t *cards, int max, uint8_t *out)
{
    int n = 0;
    deck_pool(s);
    for (int t = 0; t < 40 && n < max; t++) {
        int c = 0;
        if (phase == 1 || phase == 4 || (phase == 7 && chance(&s->g, 50)))
            c = card_of(&s->g, pz_rank(cards[phase == 7 ? 4 + below(&s->g, 4) : below(&s->g, phase == 1 ? 6 : 8)]) == 14
                                  ? rank_any(&s->g)
                                  : pz_rank(cards[phase == 7 ? 4 : phase == 1 ? 3 * below(&s->g, 2) : 4 * below(&s->g, 2)]),
                        0, -1);
        else if (phase == 2)
            c = card_of(&s->g, 0, 0, pz_suit(cards[0]) == 3 && pz_wild(cards[0]) ? below(&s->g, 4) : pz_suit(cards[0]));
        else if (phase == 5 || phase == 7) {
            int len = phase == 5 ? 8 : 4, start = pz_run_start(cards, len);
            int v = start ? (start - 2 + len + n) % 12 + 2 : 0;
            if (v && len + n < 12)
                c = card_of(&s->g, v, phase == 7 ? (pz_black(cards[0]) ? 1 : 2) : 0, -1);
        }
        if (c)
            out[n++] = (uint8_t)c;
        else if (phase == 3 || phase == 6)
            break;
    }
    return n;
}

/* One play of a player before the asked one's turn: the deck; its phase
 * when the hand holds it; cards that continue its own groups; then a
 * discard (bonus: now and then a Skip). Plainer than a strategy and much
 * cheaper (the phase finder runs once a turn), and every play is judged
 * by the game before it is made. */
static void other_play(sim *s)
{
    pz_state *st = s->st;
    int me = st->cur;
    pz_obs o;
    pz_play p;
    pz_observe(st, me, &o);
    memset(&p, 0, sizeof p);
    if (!o.mid) {
        p.type = PZ_PICK_DECK;
    } else if (!o.t.phase[me] && pz_find_phases(&o, &p, 1)) {
        /* p is the phase */
    } else {
        int placed = 0;
        for (int i = 0; i < o.nhand && o.nhand > 1 && o.t.phase[me] && !placed; i++)
            for (int g = 0; g < o.t.ng[me] && !placed; g++)
                for (int end = 0; end < 2 && !placed; end++) {
                    memset(&p, 0, sizeof p);
                    p.type = PZ_PLACE;
                    p.card = o.hand[i];
                    p.pid = (uint8_t)me;
                    p.grp = (uint8_t)g;
                    p.idx = (uint8_t)(end ? o.t.g[me][g].n : 0);
                    placed = pz_judge(&o, &p, NULL, 0, NULL);
                }
        if (!placed) {
            memset(&p, 0, sizeof p);
            int at = below(&s->g, o.nhand);
            for (int k = 0; k < o.nhand && o.hand[at] == PZ_JOKER; k++)
                at = (at + 1) % o.nhand;
            if (o.hand[at] == PZ_JOKER || (st->variant && chance(&s->g, 30))) {
                p.type = PZ_SKIP;
                p.target = (uint8_t)((me + 1 + below(&s->g, st->np - 1)) % st->np);
            } else {
                p.type = PZ_DISCARD;
                p.card = o.hand[at];
            }
        }
    }
    char why[200];
    if (!pz_judge(&o, &p, NULL, 0, NULL))
        pz__fallback(&o, &p, why, sizeof why);
    if (pz_state_judge(st, &p, NULL, 0, NULL))
        pz_do(st, &p, NULL);
}

/* How a position is set up (sim_start). */
typedef struct setup {
    int round;       /* the seat's turn asked about: 0 its first of the hand */
    int status;      /* the seat's phase_status, -1 drawn */
    int rig_seat;    /* the seat holds the phase it needs */
    int extras;      /* ... and cards that continue its groups */
    int acc_before;  /* the player before the seat needs phase 3 or 6, and holds it */
    int joker;       /* bonus: 1 a Joker in the seat's hand */
    int alone;       /* no other player is given a phase */
    int run_full;    /* the player before holds a run of eight and a card
                        for it, the seat its phase and three more for it */
    int rig_as;      /* the phase the seat is given (0: the one it needs) */
} setup;

static int needed_phase(sim *s, int p, int var)
{
    const pz_state *st = s->st;
    int off = below(&s->g, PZ_NPHASES);
    for (int k = 0; k < PZ_NPHASES; k++) {
        int ph = var ? 1 + (off + k) % PZ_NPHASES : 1 + k;
        if (var ? !((st->status[p] >> (ph - 1)) & 1) : st->status[p] + 1 == ph)
            return ph;
    }
    return 0;
}

static void rig_joker(sim *s, uint8_t *slot)
{
    pz_state *st = s->st;
    for (int i = 0; i < st->ndeck; i++)
        if (st->deck[i] == PZ_JOKER) {
            st->deck[i] = *slot;
            *slot = PZ_JOKER;
            return;
        }
}

/* The position: a new game, statuses drawn, some players holding the phase
 * they need (the seat as `u` says); played (other_play) until the seat is
 * to move on its u->round-th turn of the hand. 0 when the hand ended first. */
static int sim_start(sim *s, int var, int seat, const setup *u)
{
    pz_state *st = s->st;
    pz_new(st, var, PZ_MAXP, PZ_MAXHANDS, rng64(&s->g));
    s->seat = seat;
    s->held_n = 0;
    int before = (seat + PZ_MAXP - 1) % PZ_MAXP;
    for (int p = 0; p < PZ_MAXP; p++) {
        if (u->run_full && (p == seat || p == before)) { /* phase 5 before; 1 or 2 (at most 7 cards) here */
            int ph = p == before ? 5 : 1 + below(&s->g, 2);
            st->status[p] = (uint8_t)(var ? (int)(PZ_ALLPHASES & ~(1u << (ph - 1))) : ph - 1);
        } else if (p == seat && u->status >= 0)
            st->status[p] = (uint8_t)u->status;
        else if (p == before && u->acc_before) {
            int ph = chance(&s->g, 50) ? 3 : 6;
            st->status[p] = (uint8_t)(var ? (int)(PZ_ALLPHASES & ~(1u << (ph - 1))) : ph - 1);
        } else {
            st->status[p] = (uint8_t)(var ? below(&s->g, PZ_ALLPHASES) : below(&s->g, PZ_NPHASES));
        }
    }
    for (int p = 0; p < PZ_MAXP; p++) {
        if (u->run_full && (p == seat || p == before))
            continue;
        if (p == seat ? !u->rig_seat : !(p == before && u->acc_before) && (u->alone || chance(&s->g, 25)))
            continue;
        int need = p == seat && u->rig_as ? u->rig_as : needed_phase(s, p, var);
        uint8_t c[PZ_DEAL], x[PZ_DEAL];
        int n;
        if (!need || !phase_from_deck(s, need, c, &n) || !rig(s, p, c, n, 0))
            continue;
        if (p == seat) {
            memcpy(s->held, c, (size_t)n);
            s->held_n = n;
            s->held_phase = need;
        }
        int m = u->extras && p == seat ? extras_from_deck(s, need, c, PZ_DEAL - n, x) : 0;
        rig(s, p, x, m, n);
    }
    if (u->run_full) { /* the run of eight and its ninth, then three to bring it to twelve */
        uint8_t run8[PZ_DEAL], more[4];
        int start = 2 + below(&s->g, 12);
        deck_pool(s);
        for (int i = 0; i < 9; i++)
            run8[i] = (uint8_t)card_of(&s->g, (start - 2 + i) % 12 + 2, 0, -1);
        for (int i = 0; i < 3; i++)
            more[i] = (uint8_t)card_of(&s->g, (start - 2 + 9 + i) % 12 + 2, 0, -1);
        int mine = 0; /* the seat's phase cards, rigged above, fill its first slots */
        uint8_t c[PZ_DEAL];
        if (has_zero(run8, 9) || has_zero(more, 3) || !rig(s, before, run8, 9, 0) ||
            !phase_from_deck(s, needed_phase(s, seat, var), c, &mine) || mine > 7 || !rig(s, seat, c, mine, 0) ||
            !rig(s, seat, more, 3, mine))
            return 0;
    }
    if (var && u->joker == 1)
        rig_joker(s, &st->hand[seat][PZ_DEAL - 1]);
    for (int i = 0; var && !u->joker && i < PZ_DEAL; i++) /* no Joker unless aimed at */
        for (int k = 0; k < st->ndeck && st->hand[seat][i] == PZ_JOKER; k++)
            if (st->deck[k] != PZ_JOKER) {
                st->hand[seat][i] = st->deck[k];
                st->deck[k] = PZ_JOKER;
            }
    for (int steps = 0, turns = 0; steps < MAXSTEPS; steps++) {
        if (st->result != PZ_PLAYING || st->hands_done)
            return 0;
        if (st->cur == seat && !st->mid && turns++ == u->round)
            return 1;
        other_play(s);
    }
    return 0;
}

/* Let `seat` (to move) play p when valid; 1 if it did. */
static int act(sim *s, const pz_play *p)
{
    if (!pz_state_judge(s->st, p, NULL, 0, NULL))
        return 0;
    int hands = s->st->hands_done;
    pz_do(s->st, p, NULL);
    return s->st->hands_done == hands;
}

static void observe(const sim *s, pz_obs *o)
{
    pz_observe(s->st, s->seat, o);
    o->strict = 0;
    o->deck = -1;
}

/* The seat places one card of its hand, keeping one at least, at the end
 * of a set or run (acc 0; its own groups first), of a run only (acc 2), or
 * on an accumulation without completing it (acc 1): 1 if it did. */
static int place_one(sim *s, int acc)
{
    pz_obs o;
    pz_play p;
    observe(s, &o);
    for (int i = 0; i < o.nhand && o.nhand > 1; i++)
        for (int k = 0; k < PZ_MAXP; k++) {
            int q = (s->seat + k) % PZ_MAXP;
            for (int g = 0; g < o.t.ng[q] && o.t.phase[q]; g++) {
                int kind = pz_group_kind(o.t.phase[q], g);
                if (acc == 2 ? kind != PZ_K_RUN : (kind == PZ_K_ACC || kind == PZ_K_CACC) != acc)
                    continue;
                int tot = pz_group_total(&o.t.g[q][g]), nx = pz_acc_next(tot);
                if (acc == 1 && (!nx || tot + pz_accval(o.hand[i]) >= nx))
                    continue;
                memset(&p, 0, sizeof p);
                p.type = PZ_PLACE;
                p.card = o.hand[i];
                p.pid = (uint8_t)q;
                p.grp = (uint8_t)g;
                p.idx = o.t.g[q][g].n;
                if (act(s, &p))
                    return 1;
            }
        }
    return 0;
}

/* The seat's scripted turn so far: pick up (deck or discard), phase, then
 * up to `places` placements (own groups first). */
static int script(sim *s, int phase, int places)
{
    pz_play p;
    memset(&p, 0, sizeof p);
    p.type = chance(&s->g, 70) && !s->no_joker ? PZ_PICK_DECK : PZ_PICK_DISCARD;
    p.card = (uint8_t)(p.type == PZ_PICK_DISCARD ? s->st->disc[s->st->ndisc - 1] : 0);
    if (!act(s, &p) && (p.type = PZ_PICK_DECK, !act(s, &p)))
        return 0;
    if (!phase)
        return 1;
    pz_obs o;
    observe(s, &o);
    if (!o.t.phase[s->seat]) {
        if (!pz_find_phases(&o, &p, 1) || !act(s, &p))
            return 0;
    }
    for (int k = 0; k < places && place_one(s, 0); k++)
        ;
    return 1;
}

/* A group of another player, or the seat's, of a kind (-1 any); *pid, *grp. */
static int find_group(const pz_obs *o, int want, int *pid, int *grp, gen *g)
{
    int found = 0;
    for (int q = 0; q < o->np; q++)
        for (int k = 0; k < o->t.ng[q] && o->t.phase[q]; k++) {
            int kind = pz_group_kind(o->t.phase[q], k);
            int acc = kind == PZ_K_ACC || kind == PZ_K_CACC, run = kind == PZ_K_RUN || kind == PZ_K_CRUN;
            if (want == -1 || (want == 0 && !acc) || (want == 1 && acc) || (want == 2 && run))
                if (below(g, ++found) == 0) {
                    *pid = q;
                    *grp = k;
                }
        }
    return found;
}

static json_t *args_of(sim *s, int player, const pz_play *p)
{
    const game_fn *fn;
    json_t *a = pz_fn_args(s->st, player, &fn);
    if (p && s->with_play)
        json_array_insert_new(a, 0, pz_play_json(p));
    return a;
}

enum { V_PICK, V_FIRST, V_PICK_MID, V_DISC_TOP, V_NOT_YOURS, V_PHASE, V_PHASE_EARLY, V_PHASE_ONCE, V_PHASE_ORDER,
       V_PHASE_TYPE, V_PHASE_HELD, V_PLACE, V_PLACE_ACC, V_PLACE_EARLY, V_PLACE_NOPHASE, V_PLACE_HELD, V_PLACE_TARGET,
       V_PLACE_INDEX, V_PLACE_FIT, V_ACC_TARGET, V_RUN_FULL, V_LAST_ACC, V_DISCARD, V_DISCARD_EARLY, V_DISCARD_HELD,
       V_DISCARD_ACC, V_JOKER_PICK, V_JOKER_TABLE, V_JOKER_DISCARD, V_SKIP, V_SKIP_HELD, V_SKIP_TARGET, V_SKIP_ACC };

static int open_acc(sim *s) { return place_one(s, 1); }

static int held(const pz_obs *o, int c)
{
    for (int i = 0; i < o->nhand; i++)
        if (o->hand[i] == c)
            return 1;
    return 0;
}

/* A card the hand does not hold. */
static int not_held(sim *s, const pz_obs *o)
{
    for (int t = 0; t < 50; t++) {
        int c = 1 + below(&s->g, 52);
        if (!held(o, c))
            return c;
    }
    return 0;
}

static json_t *ivp_position(sim *s, int var, int aim, int visit)
{
    pz_state *st = s->st;
    int seat = below(&s->g, PZ_MAXP);
    int needs_phase = aim == V_PHASE || aim == V_PHASE_EARLY || aim == V_PHASE_HELD || aim == V_PHASE_TYPE;
    int on_table = (aim >= V_PLACE && aim <= V_LAST_ACC && aim != V_PLACE_NOPHASE) || aim == V_PHASE_ONCE ||
                   aim == V_DISCARD || aim == V_DISCARD_ACC || aim == V_JOKER_TABLE || aim == V_SKIP_ACC;
    int acc = aim == V_PLACE_ACC || aim == V_ACC_TARGET || aim == V_LAST_ACC || aim == V_DISCARD_ACC ||
              aim == V_SKIP_ACC;
    setup u = {.round = below(&s->g, 3) == 0 ? 1 : 0, .status = -1,
               .rig_seat = needs_phase || on_table || chance(&s->g, 30),
               .extras = aim == V_LAST_ACC || aim == V_PLACE || (on_table && chance(&s->g, 50)),
               .acc_before = acc || chance(&s->g, 20)};
    if (aim >= V_JOKER_PICK && aim != V_SKIP_HELD)
        u.joker = 1;
    if (aim == V_PHASE_ORDER && visit % 2 == 0) { /* the hand holds a phase it may not play now */
        int st_ = var ? 1 + below(&s->g, PZ_ALLPHASES - 1) : below(&s->g, PZ_NPHASES);
        u.status = st_;
        u.rig_seat = 1;
        u.round = 0;
        do
            u.rig_as = 1 + below(&s->g, PZ_NPHASES);
        while (var ? !((st_ >> (u.rig_as - 1)) & 1) : u.rig_as == st_ + 1);
    }
    if (aim == V_RUN_FULL) {
        u.run_full = 1;
        u.round = 0;
        u.acc_before = 0;
        if (seat == 0)
            seat = 1 + below(&s->g, PZ_MAXP - 1); /* the player before moves first */
    }
    if (aim == V_DISCARD) { /* nothing else on the table: often nothing to place */
        s->no_joker = 1;
        u.round = 0;
        u.alone = 1;
        u.extras = 0;
        u.acc_before = 0;
    }
    if (u.joker || acc)
        u.round = 0;
    if (acc && seat == 0)
        seat = 1 + below(&s->g, PZ_MAXP - 1); /* the player before moves first */
    if (aim == V_FIRST) {
        pz_new(st, var, PZ_MAXP, PZ_MAXHANDS, rng64(&s->g));
        s->seat = seat;
        pz_play p = {.type = (uint8_t)(chance(&s->g, 50) ? PZ_PICK_DECK : PZ_PICK_DISCARD)};
        p.card = p.type == PZ_PICK_DISCARD ? st->disc[st->ndisc - 1] : 0;
        return args_of(s, seat, &p);
    }
    if (!sim_start(s, var, seat, &u))
        return NULL;
    pz_obs o;
    pz_play p;
    memset(&p, 0, sizeof p);
    observe(s, &o);
    if (aim == V_JOKER_PICK) { /* the seat Skips the player after next: the next one sees the Joker */
        if (!script(s, 0, 0))
            return NULL;
        p.type = PZ_SKIP;
        p.target = (uint8_t)((seat + 2) % PZ_MAXP);
        if (!act(s, &p))
            return NULL;
        s->seat = st->cur; /* the next one, or later when Skips were pending */
        memset(&p, 0, sizeof p);
        p.type = PZ_PICK_DISCARD;
        p.card = PZ_JOKER;
        return args_of(s, s->seat, &p);
    }
    switch (aim) {
    case V_PICK:
    case V_DISC_TOP:
        p.type = aim == V_PICK && chance(&s->g, 50) ? PZ_PICK_DECK : PZ_PICK_DISCARD;
        p.card = (uint8_t)(aim == V_DISC_TOP ? not_held(s, &o) : o.discard);
        if (aim == V_DISC_TOP && p.card == o.discard)
            p.card = 0;
        return args_of(s, seat, &p);
    case V_NOT_YOURS: {
        int other = (seat + 1 + below(&s->g, PZ_MAXP - 1)) % PZ_MAXP;
        p.type = chance(&s->g, 50) ? PZ_PICK_DECK : PZ_PICK_DISCARD;
        p.card = p.type == PZ_PICK_DISCARD ? (uint8_t)o.discard : 0;
        return args_of(s, other, &p);
    }
    case V_PHASE_EARLY: {
        pz_obs x = o;
        x.mid = 1;
        if (!pz_find_phases(&x, &p, 1))
            return NULL;
        return args_of(s, seat, &p);
    }
    case V_PLACE_EARLY:
    case V_DISCARD_EARLY:
        p.type = aim == V_PLACE_EARLY ? PZ_PLACE : PZ_DISCARD;
        p.card = o.hand[below(&s->g, o.nhand)];
        if (aim == V_PLACE_EARLY && !find_group(&o, -1, &(int){0}, &(int){0}, &s->g))
            return NULL;
        if (aim == V_PLACE_EARLY) {
            int q = 0, g = 0;
            find_group(&o, -1, &q, &g, &s->g);
            p.pid = (uint8_t)q;
            p.grp = (uint8_t)g;
            p.idx = o.t.g[q][g].n;
        }
        return args_of(s, seat, &p);
    default:
        break;
    }
    /* mid-turn aims: the seat's turn, scripted */
    int places = aim == V_LAST_ACC ? 10 : aim == V_RUN_FULL ? 0 : below(&s->g, 3);
    if (!script(s, on_table && aim != V_PHASE_ONCE ? 1 : aim == V_PHASE_ONCE, places))
        return NULL;
    for (int k = 0; aim == V_RUN_FULL && k < 3; k++) /* the run to twelve */
        if (!place_one(s, 2))
            return NULL;
    if ((aim == V_DISCARD_ACC || aim == V_SKIP_ACC || aim == V_ACC_TARGET) && !open_acc(s))
        return NULL;
    observe(s, &o);
    if (!o.mid)
        return NULL;
    memset(&p, 0, sizeof p);
    int q = 0, g = 0;
    switch (aim) {
    case V_PICK_MID:
        p.type = PZ_PICK_DECK;
        break;
    case V_PHASE:
    case V_PHASE_ONCE:
    case V_PHASE_ORDER:
    case V_PHASE_TYPE:
    case V_PHASE_HELD: {
        pz_obs x = o;
        x.t.phase[seat] = 0;
        if (aim == V_PHASE_HELD && visit % 2 && pz_find_phases(&x, &p, 1)) {
            /* one card used twice where the hand holds it once: the groups still form the phase */
            for (int k = 0, done = 0; k < p.ng && !done; k++)
                for (int i = 0; i < p.gn[k] && !done; i++)
                    for (int j = 0; j < p.gn[k] && !done; j++) {
                        int held_once = 0;
                        for (int h = 0; h < o.nhand; h++)
                            held_once += o.hand[h] == p.gc[k][i];
                        if (i == j || p.gc[k][i] == p.gc[k][j] || held_once != 1)
                            continue;
                        pz_play twice = p;
                        twice.gc[k][j] = p.gc[k][i];
                        const uint8_t *gs[2] = {twice.gc[0], twice.gc[1]};
                        int gn[2] = {twice.gn[0], twice.gn[1]};
                        if (pz_phase_types(twice.ng, gs, gn) & (1u << twice.phase)) {
                            p = twice;
                            done = 1;
                        }
                    }
        } else if (aim == V_PHASE || aim == V_PHASE_ONCE || aim == V_PHASE_TYPE) {
            if (!pz_find_phases(&x, &p, 1)) {
                if (aim != V_PHASE_ONCE)
                    return NULL;
                x.status[seat] = 0;
                p.type = PZ_PHASE;
                p.phase = 1;
                p.ng = 2;
                p.gn[0] = p.gn[1] = 3;
                for (int i = 0; i < 6; i++)
                    p.gc[i / 3][i % 3] = (uint8_t)(1 + i / 3 * 4 + i % 3);
            }
            if (aim == V_PHASE_TYPE) { /* one card of a group swapped for another held card */
                int k = below(&s->g, p.ng), i = below(&s->g, p.gn[k]);
                p.gc[k][i] = o.hand[below(&s->g, o.nhand)];
            }
        } else {
            int want = 1;
            for (int ph = 1; ph <= PZ_NPHASES; ph++)
                if (aim == V_PHASE_ORDER ? !pz_required(&o, ph) : pz_required(&o, ph))
                    want = ph;
            uint8_t c[PZ_DEAL];
            int n;
            if (aim == V_PHASE_ORDER && s->held_n && !pz_required(&o, s->held_phase)) {
                want = s->held_phase; /* held, formed as declared, but not the one to play */
                n = s->held_n;
                memcpy(c, s->held, (size_t)n);
            } else if (deck_pool(s), !phase_from_deck(s, want, c, &n)) {
                return NULL;
            }
            static const int NG[8] = {0, 2, 1, 2, 2, 1, 2, 2};
            p.type = PZ_PHASE;
            p.phase = (uint8_t)want;
            p.ng = (uint8_t)NG[want];
            /* the groups as phase_from_deck drew them: split at the first group's size */
            uint8_t *gs[2] = {p.gc[0], p.gc[1]};
            int first = n;
            if (p.ng == 2)
                for (int cut = 3; cut < n; cut++) {
                    const uint8_t *pg[2] = {c, c + cut};
                    int pn[2] = {cut, n - cut};
                    if (pz_phase_types(2, pg, pn) & (1u << want)) {
                        first = cut;
                        break;
                    }
                }
            p.gn[0] = (uint8_t)first;
            memcpy(gs[0], c, (size_t)first);
            if (p.ng == 2) {
                p.gn[1] = (uint8_t)(n - first);
                memcpy(gs[1], c + first, (size_t)(n - first));
            }
        }
        break;
    }
    case V_PLACE:
    case V_PLACE_ACC:
    case V_PLACE_NOPHASE:
    case V_PLACE_HELD:
    case V_PLACE_TARGET:
    case V_PLACE_INDEX:
    case V_PLACE_FIT:
    case V_ACC_TARGET:
    case V_RUN_FULL:
    case V_LAST_ACC:
    case V_JOKER_TABLE: {
        int want = aim == V_PLACE_ACC || aim == V_ACC_TARGET || aim == V_LAST_ACC ? 1
                   : aim == V_RUN_FULL || aim == V_PLACE_INDEX                   ? 2
                   : aim == V_PLACE || aim == V_PLACE_FIT                        ? 0
                                                                                 : -1;
        if (!find_group(&o, want, &q, &g, &s->g) && aim != V_PLACE_NOPHASE && aim != V_PLACE_TARGET)
            return NULL;
        if (aim == V_ACC_TARGET) /* the accumulation opened this turn */
            for (int k = 0; k < PZ_MAXP; k++)
                for (int j = 0; j < o.t.ng[k] && o.t.phase[k]; j++) {
                    int kind = pz_group_kind(o.t.phase[k], j);
                    if ((kind == PZ_K_ACC || kind == PZ_K_CACC) && !pz_acc_complete(pz_group_total(&o.t.g[k][j]))) {
                        q = k;
                        g = j;
                    }
                }
        p.type = PZ_PLACE;
        p.pid = (uint8_t)q;
        p.grp = (uint8_t)g;
        int n = o.t.g[q][g].n;
        p.idx = (uint8_t)(aim == V_PLACE_INDEX ? (chance(&s->g, 50) && n > 2 ? 1 + below(&s->g, n - 2) : n + 1 + below(&s->g, 3))
                          : chance(&s->g, 30) && want != 2 ? below(&s->g, n + 1) : n);
        p.card = o.hand[below(&s->g, o.nhand)];
        if (aim == V_PLACE_HELD)
            p.card = (uint8_t)not_held(s, &o);
        if (aim == V_JOKER_TABLE)
            p.card = PZ_JOKER;
        if (aim == V_PLACE_TARGET) {
            int empty = -1;
            for (int k = 0; k < PZ_MAXP; k++)
                if (!o.t.phase[k])
                    empty = k;
            if (empty >= 0 && chance(&s->g, 70)) {
                p.pid = (uint8_t)empty;
                p.grp = (uint8_t)below(&s->g, 2);
            } else {
                int one = -1;
                for (int k = 0; k < PZ_MAXP; k++)
                    if (o.t.phase[k] && o.t.ng[k] == 1)
                        one = k;
                if (one < 0)
                    return NULL;
                p.pid = (uint8_t)one;
                p.grp = 1;
            }
            p.idx = 0;
        }
        if (aim == V_PLACE || aim == V_PLACE_ACC) /* a card that fits, when the hand has one */
            for (int i = 0; i < o.nhand; i++) {
                pz_play t = p;
                t.card = o.hand[(i + below(&s->g, o.nhand)) % o.nhand];
                for (int x = 0; x <= n; x++) {
                    t.idx = (uint8_t)x;
                    if (pz_judge(&o, &t, NULL, 0, NULL)) {
                        p = t;
                        i = o.nhand;
                        break;
                    }
                }
            }
        if (aim == V_ACC_TARGET) { /* the hand's highest card */
            for (int i = 0; i < o.nhand; i++)
                if (pz_accval(o.hand[i]) > pz_accval(p.card) && o.hand[i] != PZ_JOKER)
                    p.card = o.hand[i];
        }
        break;
    }
    case V_DISCARD:
    case V_DISCARD_HELD:
    case V_DISCARD_ACC:
    case V_JOKER_DISCARD:
        p.type = PZ_DISCARD;
        p.card = aim == V_DISCARD_HELD ? (uint8_t)not_held(s, &o) : aim == V_JOKER_DISCARD ? PZ_JOKER
                                                                   : o.hand[below(&s->g, o.nhand)];
        break;
    default: /* the Skip aims */
        p.type = PZ_SKIP;
        p.target = (uint8_t)(aim == V_SKIP_TARGET ? seat : (seat + 1 + below(&s->g, PZ_MAXP - 1)) % PZ_MAXP);
        break;
    }
    return args_of(s, seat, &p);
}

static json_t *position(rng *r, int var, int aim, int visit, int with_play)
{
    sim s = {.g = {.r = r, .var = var}, .with_play = with_play};
    s.st = malloc(sizeof *s.st);
    if (!s.st)
        return NULL;
    json_t *a = NULL;
    for (int t = 0; t < 8 && !a; t++)
        a = ivp_position(&s, var, aim, visit);
    if (!a) { /* no position for the aim: any position (the case is drawn again) */
        pz_new(s.st, var, PZ_MAXP, PZ_MAXHANDS, rng64(&s.g));
        pz_play p = {.type = PZ_PICK_DECK};
        s.seat = 0;
        a = args_of(&s, 0, &p);
    }
    free(s.st);
    return a;
}

/* The clause aims of is_valid_play and phazed_play, in the order of their
 * clause tables (the bonus tables add theirs at the end). */
static const int IVP_AIMS[] = {V_PICK, V_FIRST, V_PICK_MID, V_DISC_TOP, V_NOT_YOURS, V_PHASE, V_PHASE_EARLY,
                               V_PHASE_ONCE, V_PHASE_ORDER, V_PHASE_TYPE, V_PHASE_HELD, V_PLACE, V_PLACE_ACC,
                               V_PLACE_EARLY, V_PLACE_NOPHASE, V_PLACE_HELD, V_PLACE_TARGET, V_PLACE_INDEX,
                               V_PLACE_FIT, V_ACC_TARGET, V_RUN_FULL, V_LAST_ACC, V_DISCARD, V_DISCARD_EARLY,
                               V_DISCARD_HELD, V_DISCARD_ACC, V_JOKER_PICK, V_JOKER_TABLE, V_JOKER_DISCARD,
                               V_SKIP, V_SKIP_HELD, V_SKIP_TARGET, V_SKIP_ACC};
/* phazed_play's situations, as the positions of these aims */
static const int PLAY_AIMS[] = {V_FIRST, V_PICK, V_PHASE, V_PLACE_NOPHASE, V_PLACE, V_DISCARD, V_DISCARD_ACC,
                                V_LAST_ACC, V_JOKER_PICK, V_SKIP};

static json_t *ivp_suite(const game_suite *s, rng *r, int k, int visit)
{
    return position(r, bonus(s), IVP_AIMS[k], visit, 1);
}

static json_t *play_suite(const game_suite *s, rng *r, int k, int visit)
{
    return position(r, bonus(s), PLAY_AIMS[k], visit, 0);
}

static json_t *play_judge(const game_suite *s, json_t *const *args) { return pz_fn_judge(args, bonus(s)); }

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

#define C_IVP                                                                                            \
    {"phazed.pickup.valid", "a pick-up, from the deck or the discard pile's top, opens the player's turn"}, \
    {"phazed.pickup.first-turn", "at the start of a hand (turn_history empty) any player may open with a pick-up"}, \
    {"phazed.pickup.pick-up-first", "a card is picked up only as the first play of a turn"},          \
    {"phazed.pickup.discard-top", "the card taken from the discard pile must be its top card"},       \
    {"phazed.turn.not-yours", "only the player whose turn it is may play (turn_history says whose)"}, \
    {"phazed.phase.valid",                                                                             \
     "after the pick-up, the phase the player needs, of the declared type, from cards held, is valid"}, \
    {"phazed.phase.pick-up-first", "a phase comes after the turn's pick-up"},                         \
    {"phazed.phase.phase-once", "only one phase per player per hand"}
#define C_IVP_PLACE                                                                                      \
    {"phazed.phase.phase-type", "the groups must form the phase declared"},                            \
    {"phazed.phase.not-held", "every card of the phase must be in the hand"},                          \
    {"phazed.place.valid", "a held card that continues a set or run on the table (a run at either end) is valid"}, \
    {"phazed.place.acc-valid", "a card on an accumulation is valid while the total stays within its next target"}, \
    {"phazed.place.pick-up-first", "cards are placed after the turn's pick-up"},                      \
    {"phazed.place.place-before-phase", "cards go on the table only once the player's own phase is down"}, \
    {"phazed.place.not-held", "a placed card must be in the hand"},                                    \
    {"phazed.place.place-target", "a card goes on an existing group of a phase on the table"},         \
    {"phazed.place.place-index", "a run grows only at its ends; no index past a group's end"},        \
    {"phazed.place.place-fit", "the card must fit the group: its value, suit, colour or the run's next value"}, \
    {"phazed.place.acc-target", "no play may take an accumulation past its next target (55, 68, 76, ...)"}, \
    {"phazed.place.run-full", "a run holds at most twelve cards, one of each value: a full run takes no more"}, \
    {"phazed.place.acc-incomplete", "the hand's last card, placed on an accumulation, must complete it"}, \
    {"phazed.discard.valid", "a discard of a held card ends the turn"},                                \
    {"phazed.discard.pick-up-first", "a discard comes after the turn's pick-up"},                     \
    {"phazed.discard.not-held", "the discarded card must be in the hand"},                             \
    {"phazed.discard.acc-incomplete", "an accumulation played to this turn must reach its target before the discard"}
static const game_clause IVP_STD[] = {
    C_IVP, {"phazed.phase.phase-order", "phases are played in order: the one to play is phase_status + 1"},
    C_IVP_PLACE};
static const game_clause IVP_BONUS[] = {
    C_IVP, {"phazed.phase.phase-done", "bonus: each phase once, in any order: a phase already done is invalid"},
    C_IVP_PLACE,
    {"phazed.pickup.joker-pickup", "bonus: a Joker (Skip) on the discard pile can never be picked up"},
    {"phazed.place.joker-table", "bonus: Jokers never go on the table"},
    {"phazed.discard.joker-discard", "bonus: a Joker is played as a Skip (6, target), not discarded"},
    {"phazed.skip.valid", "bonus: a held Joker played as a Skip on another player ends the turn"},
    {"phazed.skip.not-held", "bonus: a Skip needs a Joker in the hand"},
    {"phazed.skip.skip-target", "bonus: a Skip names one of the other players"},
    {"phazed.skip.acc-incomplete", "bonus: an accumulation played to this turn must reach its target first"},
};

#define C_PLAY                                                                                           \
    {"phazed.play.first-turn", "the hand's first turn: pick up from the deck or the discard pile"},    \
    {"phazed.play.pick-up", "a turn starts with a pick-up: (1, None) or the discard pile's top card"}, \
    {"phazed.play.phase", "the hand holds the phase to play: a phase play, or a discard"},             \
    {"phazed.play.no-phase", "no phase on the table and none in the hand: only a discard"},            \
    {"phazed.play.place", "the phase is down and cards of the hand fit groups on the table"},          \
    {"phazed.play.discard", "the phase is down and nothing fits the table: only a discard"},           \
    {"phazed.play.acc-open", "an accumulation played to this turn is short of its target: only plays to it"}, \
    {"phazed.play.last-card", "one card left: it is discarded, or placed where it completes what it joins"}
static const game_clause PLAY_STD[] = {C_PLAY};
static const game_clause PLAY_BONUS[] = {
    C_PLAY, {"phazed.play.deck-only", "bonus: a Joker tops the discard pile: only the deck, (1, None)"},
    {"phazed.play.skip", "bonus: the hand holds a Joker: a Skip on another player is legal"}};

#define N(a) (int)(sizeof a / sizeof a[0])
static const char SH_GROUP[] = "{\"params\":[{\"name\":\"group\",\"shape\":\"any\"}],\"return\":\"any\"}";
static const char SH_PHASE[] = "{\"params\":[{\"name\":\"phase\",\"shape\":\"any\"}],\"return\":\"any\"}";
static const char SH_SCORE[] = "{\"params\":[{\"name\":\"hand\",\"shape\":\"any\"}],\"return\":\"any\"}";
#define SH_PLAY "{\"by_first\":{\"3\":{\"tuple\":[\"any\",{\"tuple\":[\"any\",\"any\"]}]},\"*\":\"tuple\"}}"
#define SH_STATE                                                                                         \
    "{\"name\":\"player_id\",\"shape\":\"any\"},{\"name\":\"table\",\"shape\":{\"list\":{\"tuple\":[\"any\",\"any\"]}}}," \
    "{\"name\":\"turn_history\",\"shape\":{\"list\":{\"tuple\":[\"any\",{\"list\":" SH_PLAY "}]}}},"  \
    "{\"name\":\"phase_status\",\"shape\":\"any\"},{\"name\":\"hand\",\"shape\":\"any\"},"           \
    "{\"name\":\"discard\",\"shape\":\"any\"}"
static const char SH_IVP[] = "{\"params\":[{\"name\":\"play\",\"shape\":" SH_PLAY "}," SH_STATE "],\"return\":\"any\"}";
static const char SH_PLAYFN[] = "{\"params\":[" SH_STATE "],\"return\":" SH_PLAY "}";

const game_suite pz_suites[PZ_NSUITES] = {
    {"group_type", "standard", "phazed_group_type", &pz_fns[0], GROUP_STD, N(GROUP_STD), SH_GROUP, group_suite,
     NULL},
    {"group_type", "bonus", "phazed_group_type", &pz_fns[0], GROUP_BONUS, N(GROUP_BONUS), SH_GROUP, group_suite,
     NULL},
    {"phase_type", "standard", "phazed_phase_type", &pz_fns[1], PHASE_CL, N(PHASE_CL), SH_PHASE, phase_suite, NULL},
    {"phase_type", "bonus", "phazed_phase_type", &pz_fns[1], PHASE_CL, N(PHASE_CL), SH_PHASE, phase_suite, NULL},
    {"is_valid_play", "standard", "phazed_is_valid_play", &pz_fns[2], IVP_STD, N(IVP_STD), SH_IVP, ivp_suite, NULL},
    {"is_valid_play", "bonus", "phazed_is_valid_play", &pz_fns[2], IVP_BONUS, N(IVP_BONUS), SH_IVP, ivp_suite,
     NULL},
    {"score", "standard", "phazed_score", &pz_fns[3], SCORE_STD, N(SCORE_STD), SH_SCORE, score_suite, NULL},
    {"score", "bonus", "phazed_score", &pz_fns[3], SCORE_BONUS, N(SCORE_BONUS), SH_SCORE, score_suite, NULL},
    {"play", "standard", "phazed_play", &pz_fns[4], PLAY_STD, N(PLAY_STD), SH_PLAYFN, play_suite, play_judge},
    {"play", "bonus", "phazed_play", &pz_fns[4], PLAY_BONUS, N(PLAY_BONUS), SH_PLAYFN, play_suite, play_judge},
};
