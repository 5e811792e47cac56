/* bo_cases.c: the autograder kit's suites of Comp10001-Bo (docs/autograder.md):
 * arguments for match_build, match_discard, is_valid_play, comp10001bo_play
 * and comp10001bo_bonus, each draw aimed at one clause of the rules.
 *
 * Positions are drawn, not played: the functions' preconditions (002) are
 * valid cards and valid piles, and the seed's own examples use positions no
 * game reaches (empty hands). So a draw respects what 002 and the rulings
 * state: every card a real one of the variant's deck, no more copies in
 * sight than the deck holds (two of each card, four jokers); build piles
 * that could have been built (2 or K first, same colour, adjacent values,
 * never complete); discard piles without Aces; hands of 0-5 cards,
 * stockpiles of 0-8; a play_history in turn order whose trailing plays of
 * the player are fewer than 5, and whose embargo plays agree with the
 * bonus arguments. The generator only aims: the answer and its clause come
 * from bo_fns.c, the code behind /validate (engine/cases.c).
 */
#include "bo.h"
#include "cases.h"

#include <stdlib.h>
#include <string.h>

/* --- drawing cards ---------------------------------------------------------- */

typedef struct gen {
    rng *r;
    int var;
    uint8_t used[BO_JOKER + 1]; /* copies in sight */
} gen;

static int below(gen *g, int n) { return n > 0 ? (int)rng_below(g->r, (uint32_t)n) : 0; }
static int chance(gen *g, int pct) { return below(g, 100) < pct; }
static int limit(gen *g, int c) { return c == BO_JOKER ? (g->var ? BO_NJOKERS : 0) : 2; }

/* What card_where accepts: value 1..13 or 0 any; red 0/1 or -1 any; joker
 * 1 to allow the joker; a copy still in the deck. */
typedef struct card_want {
    gen *g;
    int value, red, joker;
} card_want;

static int wanted(const void *wp, int k)
{
    const card_want *w = wp;
    if (w->g->used[k] >= limit(w->g, k) || (k == BO_JOKER && !w->joker))
        return 0;
    return k == BO_JOKER || !((w->value && bo_val(k) != w->value) || (w->red >= 0 && bo_red(k) != w->red));
}

/* A random card still in the deck among those `want` accepts; 0 if none. */
static int card_where(gen *g, int value, int red, int joker)
{
    card_want w = {g, value, red, joker};
    return case_draw(g->r, g->used, BO_JOKER, wanted, &w);
}

static void give_back(gen *g, int c)
{
    if (c && g->used[c])
        g->used[c]--;
}

/* A card that is not an Ace (joker: allowed with 1 in `pct`). */
static int plain(gen *g, int joker_pct)
{
    if (g->var && chance(g, joker_pct)) {
        int j = card_where(g, 0, -1, 1);
        if (j == BO_JOKER)
            return j;
        give_back(g, j);
    }
    return card_where(g, 2 + below(g, 12), -1, 0);
}

/* --- piles ------------------------------------------------------------------ */

/* Grow a build pile of n cards to up to len: 2 or K first, then cards that
 * go on it without completing it (jokers with 1 in joker_pct). */
static int grow_build(gen *g, uint8_t *pile, int n, int len, int joker_pct)
{
    while (n < len) {
        uint8_t c[BO_JOKER];
        int m = 0;
        for (int k = 1; k <= BO_JOKER; k++)
            if (g->used[k] < limit(g, k) && (k != BO_JOKER || chance(g, joker_pct)) &&
                bo_match_build(k, pile, n) && !bo_build_completes(k, pile, n))
                c[m++] = (uint8_t)k;
        if (!m)
            break;
        pile[n] = c[below(g, m)];
        g->used[pile[n++]]++;
    }
    return n;
}

static int gen_build(gen *g, uint8_t *pile, int len, int joker_pct)
{
    return grow_build(g, pile, 0, len, joker_pct);
}

static int joker(gen *g)
{
    if (g->used[BO_JOKER] >= limit(g, BO_JOKER))
        return 0;
    g->used[BO_JOKER]++;
    return BO_JOKER;
}

/* Put a joker on top of a build pile when it goes there without
 * completing it; 1 if it did. */
static int joker_top(gen *g, uint8_t *pile, int *n)
{
    if (!*n || *n >= BO_PILE || !bo_match_build(BO_JOKER, pile, *n) || bo_build_completes(BO_JOKER, pile, *n) ||
        !joker(g))
        return 0;
    pile[(*n)++] = BO_JOKER;
    return 1;
}

/* A build pile running from 2 up (up 1) or from K down to `top`'s value, in
 * one colour, no jokers: the long piles a 2 or a K completes. */
static int gen_run_to(gen *g, uint8_t *pile, int up, int top, int red)
{
    int n = 0;
    for (int v = up ? 2 : 13; up ? v <= top : v >= top; v += up ? 1 : -1) {
        int c = card_where(g, v, red, 0);
        if (!c)
            break;
        pile[n++] = (uint8_t)c;
    }
    return n;
}

/* A discard pile of len cards (no Aces); most cards follow the one below. */
static int gen_discard(gen *g, uint8_t *pile, int len, int joker_pct)
{
    int n = 0;
    while (n < len) {
        int c = 0;
        if (n && pile[n - 1] != BO_JOKER && chance(g, 70)) {
            int t = bo_val(pile[n - 1]), v = chance(g, 50) ? t + 1 : t - 1;
            v = v > 13 ? 2 : v < 2 ? 13 : v;
            c = card_where(g, v, !bo_red(pile[n - 1]), 0);
        }
        if (!c)
            c = plain(g, joker_pct);
        if (!c)
            break;
        pile[n++] = (uint8_t)c;
    }
    return n;
}

static int pile_has_joker(const uint8_t *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i] == BO_JOKER)
            return 1;
    return 0;
}

/* The aims a build pile and a card can take (match_build, and the build
 * plays of is_valid_play). Returns the card; the pile is pile[0..*n). */
enum { B_START, B_COLOUR, B_ADJACENT, B_NOWRAP, B_COMPLETE, B_JOKER };

static int build_pair(gen *g, int aim, int visit, uint8_t *pile, int *n)
{
    int jk = g->var ? 15 : 0;
    *n = 0;
    switch (aim) {
    case B_START:
        if (visit % 2 == 0)
            return g->var && visit % 6 == 4 ? card_where(g, 0, -1, 1)
                                             : card_where(g, chance(g, 50) ? 2 : 13, -1, 0);
        return card_where(g, chance(g, 25) ? 1 : 3 + below(g, 10), -1, 0);
    case B_COLOUR:
        *n = gen_build(g, pile, 1 + below(g, 11), 0);
        return card_where(g, 1 + below(g, 13), !bo_red(pile[*n - 1]), 0);
    case B_ADJACENT: {
        *n = gen_build(g, pile, 1 + below(g, 10), 0);
        int t = bo_val(pile[*n - 1]), red = bo_red(pile[*n - 1]);
        if (visit % 2 == 0) {
            int v = chance(g, 50) ? t + 1 : t - 1;
            if (v < 3 || v > 12)
                v = t + 1 <= 12 ? t + 1 : t - 1;
            return card_where(g, v, red, 0);
        }
        int v;
        do
            v = 2 + below(g, 12);
        while (v == t || v == t + 1 || v == t - 1 || (v == 2 && t == 13) || (v == 13 && t == 2));
        return card_where(g, v, red, 0);
    }
    case B_NOWRAP: {
        int up = chance(g, 50), red = below(g, 2);
        pile[0] = (uint8_t)card_where(g, up ? 2 : 13, red, 0);
        *n = pile[0] ? 1 : 0;
        return card_where(g, up ? 13 : 2, red, 0);
    }
    case B_COMPLETE: {
        int red = below(g, 2);
        if (visit % 3 == 0) {
            *n = gen_build(g, pile, 1 + below(g, 10), 0);
            int colour = bo_red(pile[*n - 1]);
            if (g->var && visit % 6 == 3)
                joker_top(g, pile, n); /* the joker reads in the pile's colour */
            return card_where(g, 1, colour, 0);
        }
        int up = visit % 3 == 1;
        *n = gen_run_to(g, pile, up, up ? 12 : 3, red);
        return card_where(g, up ? 13 : 2, red, 0);
    }
    default: /* B_JOKER */
        if (visit % 4 == 3) { /* an Ace of the other colour on a pile topped by a joker: refused */
            *n = gen_build(g, pile, 1 + below(g, 9), 0);
            int red = bo_red(pile[*n - 1]);
            joker_top(g, pile, n);
            return card_where(g, 1, !red, 0);
        }
        if (visit % 2 == 0) {
            *n = gen_build(g, pile, 1 + below(g, 9), jk);
            return joker(g);
        }
        *n = gen_build(g, pile, 1, 0);
        if (*n && (pile[1] = (uint8_t)joker(g)))
            *n = grow_build(g, pile, 2, 2 + below(g, 4), jk);
        return card_where(g, chance(g, 15) ? 1 : 2 + below(g, 12), -1, 0);
    }
}

/* The aims of a discard play: pile, card, and the player, owner and source. */
enum { D_ACE, D_START_OWN, D_START, D_SEQUENCE, D_WRAP, D_RESTART, D_NO_RESTART, D_JOKER };

typedef struct dpair {
    uint8_t pile[BO_PILE];
    int n, card, own, from_hand;
} dpair;

static int fits_disc(int card, const uint8_t *pile, int n)
{
    return bo_discard_verdict(card, pile, n, 0, 0, 0, NULL, 0, NULL) == 1;
}

static void discard_pair(gen *g, int aim, int visit, dpair *d)
{
    int jk = g->var ? 15 : 0;
    d->n = d->card = 0;
    d->own = chance(g, 50);
    d->from_hand = chance(g, 50);
    switch (aim) {
    case D_ACE:
        d->n = visit % 2 ? gen_discard(g, d->pile, 1 + below(g, 8), jk) : 0;
        d->card = card_where(g, 1, -1, 0);
        return;
    case D_START_OWN:
        if (visit % 2)
            d->own = 0;
        else
            d->from_hand = d->own ? 0 : d->from_hand;
        d->card = plain(g, jk);
        return;
    case D_START:
        d->own = d->from_hand = 1;
        d->card = plain(g, jk);
        return;
    case D_SEQUENCE:
    case D_WRAP: {
        d->n = aim == D_WRAP ? 0 : gen_discard(g, d->pile, 1 + below(g, 8), 0);
        if (aim == D_WRAP || d->n == 0) {
            int c = card_where(g, chance(g, 50) ? 2 : 13, -1, 0);
            if (!c)
                return;
            d->pile[d->n++] = (uint8_t)c;
        }
        int t = bo_val(d->pile[d->n - 1]), v;
        if (aim == D_WRAP)
            v = t == 2 ? 13 : 2;
        else
            do
                v = chance(g, 50) ? t + 1 : t - 1;
            while (v < 2 || v > 13);
        d->card = card_where(g, v, !bo_red(d->pile[d->n - 1]), 0);
        return;
    }
    case D_RESTART:
    case D_NO_RESTART:
        d->from_hand = aim == D_RESTART;
        d->n = gen_discard(g, d->pile, 1 + below(g, 10), jk / 3);
        if (g->var && visit % 3 == 1 && d->n && d->n < BO_PILE && joker(g))
            d->pile[d->n++] = BO_JOKER; /* its reading follows the card under it */
        for (int t = 0; t < 20; t++) {
            d->card = card_where(g, 2 + below(g, 12), -1, 0);
            if (!d->card || !fits_disc(d->card, d->pile, d->n))
                return;
            give_back(g, d->card);
        }
        d->card = 0;
        return;
    default: /* D_JOKER */
        d->n = gen_discard(g, d->pile, 1 + below(g, 8), jk);
        if (visit % 2 == 0) {
            d->card = joker(g);
            return;
        }
        if (!pile_has_joker(d->pile, d->n) && d->n < BO_PILE && joker(g))
            d->pile[d->n++] = BO_JOKER;
        d->card = card_where(g, 2 + below(g, 12), -1, 0);
        return;
    }
}

/* --- JSON ------------------------------------------------------------------- */

static json_t *stock_json(const bo_obs *o)
{
    json_t *a = json_array();
    for (int p = 0; p < BO_NP; p++)
        json_array_append_new(a, json_pack("[o,i]", bo_card_json(o->nstock[p] ? o->stock_top[p] : 0),
                                           o->nstock[p]));
    return a;
}

/* --- a whole table ---------------------------------------------------------- */

/* A random table for o->seat: hand of hand_n cards (-1: random 0..5),
 * stockpiles, discard and build piles, some of them empty. */
static void gen_table(gen *g, bo_obs *o, int seat, int hand_n)
{
    int jk = g->var ? 10 : 0;
    memset(o, 0, sizeof *o);
    o->seat = seat;
    o->variant = g->var;
    o->ndraw = -1;
    o->plays_left = BO_PLAYS;
    for (int p = 0; p < BO_NP; p++)
        o->embargoed_by[p] = -1;
    for (int p = 0; p < BO_NP; p++)
        for (int k = 0; k < BO_NDISC; k++)
            if (chance(g, 45))
                o->b.ndisc[p][k] = (uint8_t)gen_discard(g, o->b.disc[p][k], 1 + below(g, chance(g, 10) ? 12 : 5), jk);
    for (int k = 0; k < BO_NBUILD; k++)
        if (chance(g, 65))
            o->b.nbuild[k] = (uint8_t)gen_build(g, o->b.build[k], 1 + below(g, 11), jk);
    for (int p = 0; p < BO_NP; p++) {
        o->nstock[p] = chance(g, 8) ? 0 : 1 + below(g, BO_STOCK);
        if (o->nstock[p])
            o->stock_top[p] = (uint8_t)card_where(g, 0, -1, g->var);
        if (!o->stock_top[p])
            o->nstock[p] = 0;
    }
    if (hand_n < 0)
        hand_n = chance(g, 8) ? 0 : chance(g, 50) ? BO_HAND : 1 + below(g, BO_HAND);
    for (int i = 0; i < hand_n; i++) {
        int c = card_where(g, 0, -1, g->var);
        if (c)
            o->hand[o->nhand++] = (uint8_t)c;
    }
}

static void hand_add(gen *g, bo_obs *o, int card)
{
    if (o->nhand >= BO_HAND) {
        int i = below(g, o->nhand);
        give_back(g, o->hand[i]);
        o->hand[i] = o->hand[--o->nhand];
    }
    o->hand[o->nhand++] = (uint8_t)card;
}

/* Put `card` (already counted) where play p takes it from: the hand, the
 * own stockpile's top or the top of a discard pile other than (ow, k). */
static void put_source(gen *g, bo_obs *o, bo_play *p, int card, int src, int ow, int k)
{
    p->card = (uint8_t)card;
    if (!card)
        return;
    if (src == BO_FROM_DISCARD && card != BO_JOKER && bo_val(card) == 1)
        src = BO_FROM_HAND;
    p->type = (uint8_t)src;
    if (src == BO_FROM_HAND) {
        hand_add(g, o, card);
    } else if (src == BO_FROM_STOCK) {
        give_back(g, o->stock_top[o->seat]);
        o->stock_top[o->seat] = (uint8_t)card;
        if (!o->nstock[o->seat])
            o->nstock[o->seat] = 1 + below(g, BO_STOCK);
    } else {
        int so = (ow + 1 + below(g, BO_NP - 1)) % BO_NP, sk = below(g, BO_NDISC);
        if (so == ow && sk == k)
            sk = (sk + 1) % BO_NDISC;
        o->b.disc[so][sk][o->b.ndisc[so][sk]++] = (uint8_t)card;
        p->src_owner = (uint8_t)so;
        p->src_pile = (uint8_t)sk;
    }
}

/* --- is_valid_play ---------------------------------------------------------- */

enum { V_NOPLAY, V_NOPLAY_EXISTS, V_NOT_HELD, V_SRC_EMPTY, V_NOT_TOP, V_STOCK_NOT_TOP, V_SAME_PILE,
       V_BUILD, V_DISCARD = V_BUILD + B_JOKER + 1 };

/* 1 when `card`, taken from discard pile (q, k) (or the stockpile: q < 0),
 * could go on a build pile or follow another non-empty discard pile. */
static int moves(const bo_obs *o, int card, int q, int k)
{
    for (int b = 0; b < BO_NBUILD; b++)
        if (bo_match_build(card, o->b.build[b], o->b.nbuild[b]))
            return 1;
    for (int q2 = 0; q2 < BO_NP; q2++)
        for (int k2 = 0; k2 < BO_NDISC; k2++)
            if ((q2 != q || k2 != k) && o->b.ndisc[q2][k2] &&
                bo_discard_verdict(card, o->b.disc[q2][k2], o->b.ndisc[q2][k2], o->seat, q2, 0, NULL, 0, NULL) == 1)
                return 1;
    return 0;
}

/* With the hand empty: clear every discard pile whose top could move, and
 * the stockpile when its top could, until nothing can. */
static void stick_sources(gen *g, bo_obs *o)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int q = 0; q < BO_NP; q++)
            for (int k = 0; k < BO_NDISC; k++) {
                int m = o->b.ndisc[q][k];
                if (m && moves(o, o->b.disc[q][k][m - 1], q, k)) {
                    for (int i = 0; i < m; i++)
                        give_back(g, o->b.disc[q][k][i]);
                    o->b.ndisc[q][k] = 0;
                    changed = 1;
                }
            }
    }
    int s = o->seat;
    if (o->nstock[s] && moves(o, o->stock_top[s], -1, 0)) {
        give_back(g, o->stock_top[s]);
        o->stock_top[s] = 0;
        o->nstock[s] = 0;
    }
}

static void ivp_aim(gen *g, bo_obs *o, int aim, int visit, bo_play *p)
{
    memset(p, 0, sizeof *p);
    int seat = o->seat;
    if (aim == V_NOPLAY || aim == V_NOPLAY_EXISTS) {
        p->type = BO_NO_PLAY;
        int ending = aim == V_NOPLAY_EXISTS && visit % 2; /* plays exist, every one turn-ending */
        if (aim == V_NOPLAY || ending) { /* an empty hand; every other source stuck */
            for (int i = 0; i < o->nhand; i++)
                give_back(g, o->hand[i]);
            o->nhand = 0;
            stick_sources(g, o);
        }
        if (ending) { /* then one card in hand that only starts or restarts a discard pile */
            bo_play *all = malloc(sizeof *all * BO_MAXPLAYS);
            uint8_t *rated = malloc(BO_MAXPLAYS);
            for (int t = 0; t < 30 && all && rated; t++) {
                int c = plain(g, 0), n = 0, only = 1;
                if (!c)
                    break;
                o->hand[0] = (uint8_t)c;
                o->nhand = 1;
                n = bo_gen(o, all, rated);
                for (int i = 0; i < n; i++)
                    only &= rated[i] == 2;
                if (n && only)
                    break;
                give_back(g, c);
                o->nhand = 0;
            }
            free(all);
            free(rated);
            return;
        }
        if (aim == V_NOPLAY) {
            if (visit % 2 == 0) {
                for (int q = 0; q < BO_NP; q++)
                    for (int k = 0; k < BO_NDISC; k++)
                        for (int i = 0; i < o->b.ndisc[q][k]; i++)
                            give_back(g, o->b.disc[q][k][i]);
                memset(o->b.ndisc, 0, sizeof o->b.ndisc);
                if (visit % 4 == 0) {
                    give_back(g, o->stock_top[seat]);
                    o->stock_top[seat] = 0;
                    o->nstock[seat] = 0;
                }
            }
        }
        return;
    }
    int src = visit % 3 == 0 ? BO_FROM_HAND : visit % 3 == 1 ? BO_FROM_STOCK : BO_FROM_DISCARD;
    switch (aim) {
    case V_NOT_HELD: {
        int c = card_where(g, 0, -1, g->var);
        p->type = BO_FROM_HAND;
        p->card = (uint8_t)c;
        give_back(g, c);
        for (int i = 0; i < o->nhand; i++)
            if (o->hand[i] == c)
                o->hand[i] = o->hand[--o->nhand];
        break;
    }
    case V_SRC_EMPTY:
    case V_NOT_TOP: {
        int so = below(g, BO_NP), sk = below(g, BO_NDISC);
        p->type = BO_FROM_DISCARD;
        p->src_owner = (uint8_t)so;
        p->src_pile = (uint8_t)sk;
        uint8_t *pile = o->b.disc[so][sk];
        if (aim == V_SRC_EMPTY) {
            for (int i = 0; i < o->b.ndisc[so][sk]; i++)
                give_back(g, pile[i]);
            o->b.ndisc[so][sk] = 0;
            p->card = (uint8_t)plain(g, 5);
            give_back(g, p->card);
        } else {
            if (o->b.ndisc[so][sk] < 2) {
                for (int i = 0; i < o->b.ndisc[so][sk]; i++)
                    give_back(g, pile[i]);
                o->b.ndisc[so][sk] = (uint8_t)gen_discard(g, pile, 2 + below(g, 4), 5);
            }
            int m = o->b.ndisc[so][sk];
            p->card = m >= 2 && chance(g, 70) ? pile[below(g, m - 1)] : (uint8_t)plain(g, 5);
            if (m && p->card == pile[m - 1])
                p->card = 0;
        }
        break;
    }
    case V_STOCK_NOT_TOP: {
        p->type = BO_FROM_STOCK;
        int other = (seat + 1 + below(g, BO_NP - 1)) % BO_NP;
        if (visit % 2 == 0 && o->nstock[other] && o->stock_top[other] != o->stock_top[seat])
            p->card = o->stock_top[other]; /* another player's top, as 002's example */
        else {
            p->card = (uint8_t)card_where(g, 0, -1, 0);
            give_back(g, p->card);
            if (p->card == o->stock_top[seat] && o->nstock[seat])
                p->card = 0;
        }
        break;
    }
    case V_SAME_PILE: {
        int so = below(g, BO_NP), sk = below(g, BO_NDISC);
        if (!o->b.ndisc[so][sk])
            o->b.ndisc[so][sk] = (uint8_t)gen_discard(g, o->b.disc[so][sk], 1 + below(g, 5), 5);
        int m = o->b.ndisc[so][sk];
        p->type = BO_FROM_DISCARD;
        p->card = m ? o->b.disc[so][sk][m - 1] : 0;
        p->src_owner = p->dst_owner = (uint8_t)so;
        p->src_pile = p->dst_pile = (uint8_t)sk;
        p->dst_kind = BO_TO_DISCARD;
        break;
    }
    default:
        if (aim < V_DISCARD) { /* to a build pile */
            int b = below(g, BO_NBUILD), n;
            for (int i = 0; i < o->b.nbuild[b]; i++)
                give_back(g, o->b.build[b][i]);
            int card = build_pair(g, aim - V_BUILD, visit / 3, o->b.build[b], &n);
            o->b.nbuild[b] = (uint8_t)n;
            p->dst_kind = BO_TO_BUILD;
            p->dst_pile = (uint8_t)b;
            put_source(g, o, p, card, src, -1, 0);
        } else { /* to a discard pile */
            dpair d;
            discard_pair(g, aim - V_DISCARD, visit / 3, &d);
            int ow = d.own ? seat : (seat + 1 + below(g, BO_NP - 1)) % BO_NP, k = below(g, BO_NDISC);
            for (int i = 0; i < o->b.ndisc[ow][k]; i++)
                give_back(g, o->b.disc[ow][k][i]);
            memcpy(o->b.disc[ow][k], d.pile, (size_t)d.n);
            o->b.ndisc[ow][k] = (uint8_t)d.n;
            p->dst_kind = BO_TO_DISCARD;
            p->dst_owner = (uint8_t)ow;
            p->dst_pile = (uint8_t)k;
            int s = d.from_hand ? BO_FROM_HAND : chance(g, 50) ? BO_FROM_STOCK : BO_FROM_DISCARD;
            put_source(g, o, p, d.card, s, ow, k);
        }
    }
}

static json_t *ivp_json(const bo_obs *o, const bo_play *p)
{
    return json_pack("[o,i,o,o,o,o]", bo_play_json(p), o->seat, bo_cards_json(o->hand, o->nhand), stock_json(o),
                     bo_discards_json(&o->b), bo_builds_json(&o->b));
}

static json_t *ivp_args(rng *r, int var, int aim, int visit)
{
    gen g = {.r = r, .var = var};
    bo_obs o;
    bo_play p;
    gen_table(&g, &o, below(&g, BO_NP), -1);
    ivp_aim(&g, &o, aim, visit, &p);
    if (!p.card && p.type != BO_NO_PLAY)
        p.card = (uint8_t)bo_card(5, 0); /* the aim found no card: any play, drawn again */
    return ivp_json(&o, &p);
}

/* The clause aims of is_valid_play, in the order of its clause table. */
static const int IVP_AIMS[] = {V_NOPLAY, V_NOPLAY_EXISTS, V_NOT_HELD, V_SRC_EMPTY, V_NOT_TOP,
                               V_STOCK_NOT_TOP, V_BUILD + B_START, V_BUILD + B_COLOUR,
                               V_BUILD + B_ADJACENT, V_BUILD + B_NOWRAP, V_BUILD + B_COMPLETE,
                               V_SAME_PILE, V_DISCARD + D_ACE, V_DISCARD + D_START_OWN,
                               V_DISCARD + D_START, V_DISCARD + D_SEQUENCE, V_DISCARD + D_WRAP,
                               V_DISCARD + D_RESTART, V_DISCARD + D_NO_RESTART,
                               V_BUILD + B_JOKER, V_DISCARD + D_JOKER};

static int bonus(const game_suite *s) { return strcmp(s->variant, "bonus") == 0; }

static json_t *ivp_suite(const game_suite *s, rng *r, int k, int visit)
{
    return ivp_args(r, bonus(s), IVP_AIMS[k], visit);
}

/* --- match_build, match_discard --------------------------------------------- */

static json_t *build_args(rng *r, int var, int k, int visit)
{
    gen g = {.r = r, .var = var};
    uint8_t pile[BO_PILE];
    int n, card = build_pair(&g, k, visit, pile, &n);
    return json_pack("[o,o]", bo_card_json(card ? card : bo_card(5, 0)), bo_cards_json(pile, n));
}

static json_t *build_suite(const game_suite *s, rng *r, int k, int visit)
{
    return build_args(r, bonus(s), k, visit);
}

static json_t *discard_args(rng *r, int var, int k, int visit)
{
    gen g = {.r = r, .var = var};
    dpair d;
    discard_pair(&g, k, visit, &d);
    int p = below(&g, BO_NP), to = d.own ? p : (p + 1 + below(&g, BO_NP - 1)) % BO_NP;
    json_t *a = json_pack("[o,o,i,i]", bo_card_json(d.card ? d.card : bo_card(5, 0)), bo_cards_json(d.pile, d.n), p,
                          to);
    /* from_hand: given, or left to its default (True) */
    if (!d.from_hand || chance(&g, 60))
        json_array_append_new(a, json_boolean(d.from_hand));
    return a;
}

static json_t *discard_suite(const game_suite *s, rng *r, int k, int visit)
{
    return discard_args(r, bonus(s), k, visit);
}

/* --- comp10001bo_play, comp10001bo_bonus ------------------------------------ */

/* A play of `who` for the history: a card to a build or discard pile, from
 * any source (history is not replayed against the table: 002 states none of
 * that), ending the turn when `last`. */
static json_t *past_play(gen *g, int who, int last)
{
    bo_play p = {0};
    p.type = (uint8_t)below(g, 3);
    p.card = (uint8_t)(1 + below(g, 52));
    if (p.type == BO_FROM_DISCARD) {
        p.src_owner = (uint8_t)below(g, BO_NP);
        p.src_pile = (uint8_t)below(g, BO_NDISC);
    }
    if (last || chance(g, 40)) {
        p.dst_kind = BO_TO_DISCARD;
        p.dst_owner = (uint8_t)(last ? who : below(g, BO_NP));
        p.dst_pile = (uint8_t)below(g, BO_NDISC);
        if (p.type == BO_FROM_DISCARD && p.src_owner == p.dst_owner && p.src_pile == p.dst_pile)
            p.src_pile = (uint8_t)((p.src_pile + 1) % BO_NDISC);
        if (bo_val(p.card) == 1)
            p.card = (uint8_t)(p.card + 4);
    } else {
        p.dst_pile = (uint8_t)below(g, BO_NBUILD);
    }
    return json_pack("[i,o]", who, bo_play_json(&p));
}

enum { P_NOPLAY, P_STOCK, P_BUILD, P_DISCARD, P_ENDING, P_EMBARGOED, P_EMBARGO };

static int fits_build(const bo_obs *o, int card)
{
    for (int b = 0; b < BO_NBUILD; b++)
        if (bo_match_build(card, o->b.build[b], o->b.nbuild[b]))
            return 1;
    return 0;
}

/* A card that fits no build pile (0 if none drawn). */
static int unfit_card(gen *g, const bo_obs *o, int aces)
{
    for (int t = 0; t < 30; t++) {
        int c = aces ? card_where(g, 0, -1, 0) : plain(g, 0);
        if (!c || !fits_build(o, c))
            return c;
        give_back(g, c);
    }
    return 0;
}

/* No build play at all: every build pile started, and every card that
 * could move (hand, own stockpile top, discard tops) fits none of them. */
static void stick_builds(gen *g, bo_obs *o)
{
    for (int b = 0; b < BO_NBUILD; b++)
        if (!o->b.nbuild[b])
            o->b.nbuild[b] = (uint8_t)gen_build(g, o->b.build[b], 1 + below(g, 11), 0);
    for (int i = 0; i < o->nhand; i++)
        if (fits_build(o, o->hand[i])) {
            give_back(g, o->hand[i]);
            o->hand[i] = (uint8_t)unfit_card(g, o, 1);
            if (!o->hand[i])
                o->hand[i--] = o->hand[--o->nhand];
        }
    int s = o->seat;
    if (o->nstock[s] && fits_build(o, o->stock_top[s])) {
        give_back(g, o->stock_top[s]);
        o->stock_top[s] = (uint8_t)unfit_card(g, o, 1);
        if (!o->stock_top[s])
            o->nstock[s] = 0;
    }
    for (int q = 0; q < BO_NP; q++)
        for (int k = 0; k < BO_NDISC; k++) {
            int m = o->b.ndisc[q][k];
            if (m && fits_build(o, o->b.disc[q][k][m - 1])) {
                give_back(g, o->b.disc[q][k][m - 1]);
                o->b.disc[q][k][m - 1] = (uint8_t)unfit_card(g, o, 0);
                if (!o->b.disc[q][k][m - 1])
                    o->b.ndisc[q][k]--;
            }
        }
}

typedef struct pstate {
    bo_obs o;
    json_t *hist;
    int holds, by; /* bonus: the player's embargo card held; who embargoed them (-1) */
    int ox, ot;    /* bonus: another player ox has embargoed ot (-1: none) */
} pstate;

/* A history in turn order from player 0 up to o->seat's turn, with `mine`
 * plays of that turn already made (0..4); in bonus, embargo plays that
 * agree with ps->holds and ps->by (the target's stockpile kept at <= 3). */
static void gen_history(gen *g, pstate *ps, int rounds, int mine)
{
    int seat = ps->o.seat, turns = rounds * BO_NP + seat;
    /* the last turn of `by` before ours; one of our own earlier turns */
    int embargo_turn = ps->by >= 0 ? turns - (seat - ps->by + BO_NP) % BO_NP : -1;
    int mine_used = -1;
    if (g->var && !ps->holds) {
        if (rounds)
            mine_used = seat + BO_NP * below(g, rounds);
        else
            ps->holds = 1;
    }
    ps->hist = json_array();
    for (int t = 0; t < turns; t++) {
        int who = t % BO_NP, n = 1 + below(g, BO_PLAYS);
        for (int i = 0; i < n - 1; i++)
            json_array_append_new(ps->hist, past_play(g, who, 0));
        if (ps->ox >= 0 && t == turns - 1) {
            json_array_append_new(ps->hist, json_pack("[i,[i,n,[i,i]]]", who, BO_EMBARGO, BO_TO_PLAYER, ps->ot));
        } else if (t == embargo_turn) {
            json_array_append_new(ps->hist, json_pack("[i,[i,n,[i,i]]]", who, BO_EMBARGO, BO_TO_PLAYER, seat));
        } else if (t == mine_used) {
            int target = (seat + 1 + below(g, BO_NP - 1)) % BO_NP;
            for (int k = 0; k < BO_NP && (target == seat || target == ps->by || target == ps->ot); k++)
                target = (target + 1) % BO_NP;
            json_array_append_new(ps->hist, json_pack("[i,[i,n,[i,i]]]", who, BO_EMBARGO, BO_TO_PLAYER, target));
            if (ps->o.nstock[target] > 3)
                ps->o.nstock[target] = 1 + below(g, 3);
            if (!ps->o.stock_top[target])
                ps->o.nstock[target] = 0;
        } else {
            json_array_append_new(ps->hist, past_play(g, who, n < BO_PLAYS || chance(g, 50)));
        }
    }
    for (int i = 0; i < mine; i++) {
        bo_play p = {0};
        p.type = BO_FROM_HAND;
        p.card = (uint8_t)(5 + below(g, 44));
        p.dst_pile = (uint8_t)below(g, BO_NBUILD);
        json_array_append_new(ps->hist, json_pack("[i,o]", seat, bo_play_json(&p)));
    }
}

static json_t *play_args(rng *r, int var, int aim, int visit)
{
    gen g = {.r = r, .var = var};
    pstate ps = {.holds = 1, .by = -1, .ox = -1, .ot = -1};
    bo_obs *o = &ps.o;
    int seat = below(&g, BO_NP);
    gen_table(&g, o, seat, aim == P_NOPLAY ? 0 : -1);
    int rounds = below(&g, 6), mine = below(&g, BO_PLAYS);
    if (aim == P_NOPLAY) { /* the situation of 002's examples: stuck piles */
        for (int q = 0; q < BO_NP; q++)
            for (int k = 0; k < BO_NDISC; k++)
                if (chance(&g, 80)) {
                    for (int i = 0; i < o->b.ndisc[q][k]; i++)
                        give_back(&g, o->b.disc[q][k][i]);
                    o->b.ndisc[q][k] = 0;
                }
        if (visit % 2 == 0) {
            give_back(&g, o->stock_top[seat]);
            o->stock_top[seat] = 0;
            o->nstock[seat] = 0;
        }
    } else if (aim == P_STOCK) {
        int b = below(&g, BO_NBUILD), n;
        for (int i = 0; i < o->b.nbuild[b]; i++)
            give_back(&g, o->b.build[b][i]);
        int card = build_pair(&g, visit % 2 ? B_ADJACENT : B_START, 0, o->b.build[b], &n);
        o->b.nbuild[b] = (uint8_t)n;
        if (card) {
            give_back(&g, o->stock_top[seat]);
            o->stock_top[seat] = (uint8_t)card;
            if (!o->nstock[seat])
                o->nstock[seat] = 1 + below(&g, BO_STOCK);
        }
    } else if (aim == P_ENDING || aim == P_DISCARD) { /* builds stuck */
        if (aim == P_ENDING)
            for (int q = 0; q < BO_NP; q++)
                for (int k = 0; k < BO_NDISC; k++)
                    if (chance(&g, 85)) {
                        for (int i = 0; i < o->b.ndisc[q][k]; i++)
                            give_back(&g, o->b.disc[q][k][i]);
                        o->b.ndisc[q][k] = 0;
                    }
        stick_builds(&g, o);
        if (aim == P_DISCARD) { /* and a card of the hand that follows a discard pile */
            int q = below(&g, BO_NP), k = below(&g, BO_NDISC), m = o->b.ndisc[q][k];
            if (!m)
                m = o->b.ndisc[q][k] = (uint8_t)gen_discard(&g, o->b.disc[q][k], 1 + below(&g, 4), 0);
            int top = m ? o->b.disc[q][k][m - 1] : 0;
            if (top && top != BO_JOKER) {
                int t = bo_val(top), v = chance(&g, 50) ? (t == 13 ? 2 : t + 1) : (t == 2 ? 13 : t - 1);
                int c = card_where(&g, v, !bo_red(top), 0);
                if (c && fits_build(o, c))
                    give_back(&g, c);
                else if (c)
                    hand_add(&g, o, c);
            }
        }
    } else if (aim == P_EMBARGOED) {
        ps.by = (seat + 1 + below(&g, BO_NP - 1)) % BO_NP;
        mine = 0;
        if (o->nstock[seat] > 3 || !o->nstock[seat]) {
            o->nstock[seat] = 1 + below(&g, 3);
            if (!o->stock_top[seat])
                o->stock_top[seat] = (uint8_t)card_where(&g, 0, -1, 1);
        }
        if (rounds == 0)
            rounds = 1;
    } else if (aim == P_EMBARGO) {
        int t = (seat + 1 + below(&g, BO_NP - 1)) % BO_NP;
        if (!o->stock_top[t])
            o->stock_top[t] = (uint8_t)card_where(&g, 0, -1, 1);
        o->nstock[t] = o->stock_top[t] ? 1 + below(&g, 3) : 0;
    }
    if (var && aim != P_EMBARGO && chance(&g, 20))
        ps.holds = 0; /* its card used: targets may be there, no embargo play */
    if (var && aim != P_EMBARGO && ps.by < 0 && chance(&g, 30)) {
        /* the player before has embargoed another: no target twice */
        ps.ox = (seat + BO_NP - 1) % BO_NP;
        ps.ot = (seat + 1 + below(&g, BO_NP - 2)) % BO_NP;
        if (ps.ot == ps.ox)
            ps.ot = (ps.ot + 1) % BO_NP == seat ? (ps.ot + 2) % BO_NP : (ps.ot + 1) % BO_NP;
        if (!o->stock_top[ps.ot])
            o->stock_top[ps.ot] = (uint8_t)card_where(&g, 0, -1, 1);
        o->nstock[ps.ot] = o->stock_top[ps.ot] ? 1 + below(&g, 3) : 0;
        if (!o->nstock[ps.ot])
            ps.ox = ps.ot = -1;
        else if (rounds == 0)
            rounds = 1;
    }
    if (var && aim != P_EMBARGO && ps.holds) /* no embargo to play unless aimed at */
        for (int q = 0; q < BO_NP; q++)
            if (q != seat && q != ps.ot && o->nstock[q] && o->nstock[q] <= 3)
                o->nstock[q] = 4 + below(&g, BO_STOCK - 3);
    if (ps.by >= 0 && rounds == 0)
        rounds = 1;
    gen_history(&g, &ps, rounds, mine);
    json_t *hand = bo_cards_json(o->hand, o->nhand);
    if (!var)
        return json_pack("[i,o,o,o,o,o]", seat, hand, stock_json(o), bo_discards_json(&o->b), bo_builds_json(&o->b),
                         ps.hist);
    return json_pack("[i,o,b,o,o,o,o,o]", seat, hand, ps.holds,
                     ps.by >= 0 ? json_integer(ps.by) : json_null(), stock_json(o), bo_discards_json(&o->b),
                     bo_builds_json(&o->b), ps.hist);
}

static const int PLAY_AIMS[] = {P_NOPLAY, P_STOCK, P_BUILD, P_DISCARD, P_ENDING, P_EMBARGOED, P_EMBARGO};
static json_t *play_suite(const game_suite *s, rng *r, int k, int visit)
{
    return play_args(r, bonus(s), PLAY_AIMS[k], visit);
}

static json_t *play_judge(const game_suite *s, json_t *const *args) { return bo_fn_judge(args, bonus(s)); }

/* --- the clauses and the suites --------------------------------------------- */

#define C_BUILD                                                                                          \
    {"comp10001bo.build.start", "an empty build pile takes only a 2 or a King (bonus: or a joker), which starts it"}, \
    {"comp10001bo.build.colour", "a card on a non-empty build pile must be of the pile's colour"},      \
    {"comp10001bo.build.adjacent", "a card on a build pile must be adjacent in value to its top card"}, \
    {"comp10001bo.build.no-wrap", "build piles do not wrap: no King on a 2, no 2 on a King"},        \
    {"comp10001bo.build.complete",                                                                     \
     "an Ace of the pile's colour, or a 2 or King that continues it, completes a non-empty build pile"}
#define C_BUILD_JOKER                                                                                   \
    {"comp10001bo.build.joker",                                                                       \
     "bonus: a joker reads as any value but an Ace, so a pile with jokers takes a card when some reading of them allows it"}
#define C_DISCARD                                                                                        \
    {"comp10001bo.discard.ace", "an Ace never goes on a discard pile"},                                 \
    {"comp10001bo.discard.start-own",                                                                  \
     "an empty discard pile may be started only by its owner, from the hand"},                         \
    {"comp10001bo.discard.start", "a player starts one of their own empty discard piles from the hand: turn-ending (2)"}, \
    {"comp10001bo.discard.sequence",                                                                   \
     "a card on a non-empty discard pile that alternates colour and is adjacent in value is a valid play (1)"}, \
    {"comp10001bo.discard.wrap", "discard piles wrap: a King goes on a 2 and a 2 on a King (alternating colour)"}, \
    {"comp10001bo.discard.restart",                                                                    \
     "a card from the hand that does not follow a non-empty discard pile restarts it: turn-ending (2)"}, \
    {"comp10001bo.discard.no-restart",                                                                 \
     "a card from the stockpile or a discard pile that does not follow the pile cannot go there (0)"}
#define C_DISCARD_JOKER                                                                                 \
    {"comp10001bo.discard.joker",                                                                     \
     "bonus: a joker goes on any non-empty discard pile, and a pile topped by jokers takes what some reading allows"}

static const game_clause BUILD_STD[] = {C_BUILD};
static const game_clause BUILD_BONUS[] = {C_BUILD, C_BUILD_JOKER};
static const game_clause DISCARD_STD[] = {C_DISCARD};
static const game_clause DISCARD_BONUS[] = {C_DISCARD, C_DISCARD_JOKER};

#define C_IVP_HEAD                                                                                       \
    {"comp10001bo.noplay.none", "(3, None, (None, None)) is 3 when no play of any kind exists, from any source"}, \
    {"comp10001bo.noplay.exists", "a claim of no play is invalid (0) while some play exists"},          \
    {"comp10001bo.source.not-held", "a card played from the hand must be in the hand"},               \
    {"comp10001bo.source.empty", "a play from an empty discard pile is invalid"},                     \
    {"comp10001bo.source.not-top", "only the top card of a discard pile can be played from it"},       \
    {"comp10001bo.stock.not-top",                                                                      \
     "only the top card of the player's own stockpile can be played from the stockpile"}
#define C_SAME {"comp10001bo.discard.same-pile", "a card taken from a discard pile must go to another pile"}

static const game_clause IVP_STD[] = {C_IVP_HEAD, C_BUILD, C_SAME, C_DISCARD};
static const game_clause IVP_BONUS[] = {C_IVP_HEAD, C_BUILD, C_SAME, C_DISCARD, C_BUILD_JOKER, C_DISCARD_JOKER};

#define C_PLAY                                                                                           \
    {"comp10001bo.play.no-play", "with no possible play, the only answer is (3, None, (None, None))"}, \
    {"comp10001bo.play.stock-to-build", "the stockpile's top card can go on a build pile"},            \
    {"comp10001bo.play.build", "a card of the hand or of a discard pile can go on a build pile"},     \
    {"comp10001bo.play.discard", "only discard piles take a card, some without ending the turn"},      \
    {"comp10001bo.play.turn-ending-only", "every possible play ends the turn"}
static const game_clause PLAY_STD[] = {C_PLAY};
static const game_clause PLAY_BONUS[] = {
    C_PLAY,
    {"comp10001bo.play.embargoed",
     "an embargoed player may only play from the stockpile or clear the embargo (5, None, destination)"},
    {"comp10001bo.play.embargo", "the player may play the embargo card on another player (4, None, (2, target))"},
};

#define N(a) (int)(sizeof a / sizeof a[0])
static const char SH_BUILD[] =
    "{\"params\":[{\"name\":\"play_card\",\"shape\":\"any\"},{\"name\":\"build_pile\",\"shape\":\"any\"}],"
    "\"return\":\"any\"}";
static const char SH_DISCARD[] =
    "{\"params\":[{\"name\":\"play_card\",\"shape\":\"any\"},{\"name\":\"discard_pile\",\"shape\":\"any\"},"
    "{\"name\":\"player_no\",\"shape\":\"any\"},{\"name\":\"to_player_no\",\"shape\":\"any\"},"
    "{\"name\":\"from_hand\",\"shape\":\"any\"}],\"return\":\"any\"}";
#define SH_TABLE                                                                                         \
    "{\"name\":\"stockpiles\",\"shape\":\"tuple\"},"                                                   \
    "{\"name\":\"discard_piles\",\"shape\":{\"tuple_of\":{\"tuple_of\":\"any\"}}},"                    \
    "{\"name\":\"build_piles\",\"shape\":{\"tuple_of\":\"any\"}}"
static const char SH_IVP[] =
    "{\"params\":[{\"name\":\"play\",\"shape\":\"tuple\"},{\"name\":\"player_no\",\"shape\":\"any\"},"
    "{\"name\":\"hand\",\"shape\":\"any\"}," SH_TABLE "],\"return\":\"any\"}";
static const char SH_PLAY[] =
    "{\"params\":[{\"name\":\"player_no\",\"shape\":\"any\"},{\"name\":\"hand\",\"shape\":\"any\"}," SH_TABLE
    ",{\"name\":\"play_history\",\"shape\":{\"list\":\"tuple\"}}],\"return\":\"tuple\"}";
static const char SH_BONUS[] =
    "{\"params\":[{\"name\":\"player_no\",\"shape\":\"any\"},{\"name\":\"hand\",\"shape\":\"any\"},"
    "{\"name\":\"holds_embargo\",\"shape\":\"any\"},{\"name\":\"embargoed\",\"shape\":\"any\"}," SH_TABLE
    ",{\"name\":\"play_history\",\"shape\":{\"list\":\"tuple\"}}],\"return\":\"tuple\"}";

const game_suite bo_suites[BO_NSUITES] = {
    {"match_build", "standard", "comp10001bo_match_build", &bo_fns[0], BUILD_STD, N(BUILD_STD), SH_BUILD,
     build_suite, NULL},
    {"match_build", "bonus", "comp10001bo_match_build", &bo_fns[0], BUILD_BONUS, N(BUILD_BONUS), SH_BUILD,
     build_suite, NULL},
    {"match_discard", "standard", "comp10001bo_match_discard", &bo_fns[1], DISCARD_STD, N(DISCARD_STD),
     SH_DISCARD, discard_suite, NULL},
    {"match_discard", "bonus", "comp10001bo_match_discard", &bo_fns[1], DISCARD_BONUS, N(DISCARD_BONUS),
     SH_DISCARD, discard_suite, NULL},
    {"is_valid_play", "standard", "comp10001bo_is_valid_play", &bo_fns[2], IVP_STD, N(IVP_STD), SH_IVP,
     ivp_suite, NULL},
    {"is_valid_play", "bonus", "comp10001bo_is_valid_play", &bo_fns[2], IVP_BONUS, N(IVP_BONUS), SH_IVP,
     ivp_suite, NULL},
    {"play", "standard", "comp10001bo_play", &bo_fns[3], PLAY_STD, N(PLAY_STD), SH_PLAY, play_suite, play_judge},
    {"play", "bonus", "comp10001bo_bonus", &bo_fns[4], PLAY_BONUS, N(PLAY_BONUS), SH_BONUS, play_suite,
     play_judge},
};
