/* bo_bots.c: strategies. Both choose from a bo_obs, i.e. only what the seat
 * may see (the same information the /play autograder function gets).
 *
 * "planner": a bounded depth-first search over sequences of non-turn-ending
 * plays (at most the plays left this turn), scoring the position after each
 * prefix: stockpile cards played first, then set-ups for our stockpile top,
 * hand cards shed, and the opponents' stockpile tops left playable. When no
 * sequence beats stopping, it ends the turn with the least harmful
 * turn-ending discard from the hand. Work is capped (node budget and a
 * width per depth), so a decision costs well under a few ms.
 * "random": uniform over the possible plays.
 *
 * "planner" (bo_plan, both variants) is the whole-turn planner: the same
 * search, but each position is judged by eval_strong, which looks at the
 * table the turn leaves. Our stockpile top: how many bridging cards (from
 * the hand and the discard tops) it needs before it goes on a build or a
 * discard pile. Each opponent's stockpile top: whether it goes on a build
 * or discard pile now, through one public discard top, or through one or
 * two unseen cards (the next player weighs most, and players near a win
 * more); and how open the table is (SO_OPEN per kind of card it takes at
 * once: every stockpile card an opponent turns up next is unseen, so a
 * table that takes many cards lets them chain). The turn-ending discard is
 * chosen the same way (end_score): the card that feeds the next players
 * least. Card sets are 24-bit masks of (value, colour) readings, so an
 * evaluation costs a few dozen word operations; the search stops at
 * STRONG_BUDGET nodes (500 and 1000 play alike). The "standard" strategy
 * (bo_plan_n) is unchanged: it is the baseline of docs/research/comp10001bo-bots.md.
 *
 * Bonus game. "planner" plays as bo_plan_bonus does, with eval_strong:
 * the same search, where a joker kept in the hand is worth JOKER_KEEP (so
 * it is spent only on stockpile progress or a clearly better table), then
 * an embargo on the opponent
 * closest to winning when one can be embargoed (instead of a turn-ending
 * discard), and when embargoed it plays its stockpile as far as it goes and
 * clears the embargo at once. "standard" is the standard planner, which in
 * the bonus game stays legal (no hand or discard plays while embargoed) but
 * treats a joker like any card and plays an embargo card only when nothing
 * else ends the turn.
 */
#include "bo.h"

#include <stdio.h>
#include <string.h>

enum { NODE_BUDGET = 1000, LOW_WIDTH = 8 }; /* 100..10000 nodes play alike */
enum { WIDTH_MAX = 24, STRONG_BUDGET = 500 };
/* bonus tuning (800 seeded games each against 3 "standard" copies: joker
 * keep 0 -> 215 wins, 25..150 -> ~232; embargo never -> 226, at <= 3 cards
 * -> 231; the deny weight barely matters) */
enum {
    JOKER_KEEP = 60,  /* a joker kept in the hand */
    EMBARGO_AT = 3,   /* embargo a player with at most this many stockpile cards */
    DENY_NEAR = 40,   /* extra weight per card below 4 on a near-winner's playable top */
};
static const int WIDTH[BO_PLAYS] = {WIDTH_MAX, 12, 8, 6, 4};

typedef struct counters {
    int hand_build, hand_disc, moves;
} counters;

typedef struct search {
    const bo_obs *root;
    int bonus; /* the bonus evaluation */
    int nodes;
    long best;
    int best_len;
    int best_stock; /* stockpile cards the best sequence plays */
    bo_play best_first;
    int have_best;
    int budget;
    int strong; /* the whole-turn planner's evaluation (eval_strong) */
} search;

static int iabs(int x) { return x < 0 ? -x : x; }

static int accepts(const bo_obs *o, int card)
{
    for (int b = 0; b < BO_NBUILD; b++)
        if (bo_match_build(card, o->b.build[b], o->b.nbuild[b]))
            return 1;
    return 0;
}

/* How close the build piles are to taking `card` (0 none .. 2 next). A
 * joker on top of a pile counts through its readings; a joker card fits
 * almost anywhere. */
static int closeness(const bo_obs *o, int card)
{
    if (bo_joker(card))
        return 2;
    int best = 0, v = bo_val(card);
    for (int b = 0; b < BO_NBUILD; b++) {
        int n = o->b.nbuild[b];
        if (n == 0) {
            if (v == 3 || v == 12)
                best = best > 1 ? best : 1;
            continue;
        }
        int top = o->b.build[b][n - 1];
        if (bo_joker(top)) {
            uint32_t r = bo_build_top(o->b.build[b], n);
            for (int tv = 2; tv <= 13; tv++)
                if (r & (1u << ((tv - 2) * 2 + bo_red(card)))) {
                    int d = iabs(tv - v);
                    if (d == 2)
                        best = 2;
                    else if (d == 3 && best < 1)
                        best = 1;
                }
            continue;
        }
        if (bo_red(top) != bo_red(card))
            continue;
        int d = iabs(bo_val(top) - v);
        if (d == 2)
            best = 2;
        else if (d == 3 && best < 1)
            best = 1;
    }
    return best;
}

static int jokers_in_hand(const bo_obs *o)
{
    int k = 0;
    for (int i = 0; i < o->nhand; i++)
        k += bo_joker(o->hand[i]);
    return k;
}

static int embargoed(const bo_obs *o, int seat)
{
    return o->variant && o->embargo_known && o->embargoed_by[seat] >= 0;
}

static long eval_strong(const search *s, const bo_obs *o, const counters *c);

static long eval(const search *s, const bo_obs *o, const counters *c)
{
    if (s->strong)
        return eval_strong(s, o, c);
    const bo_obs *r = s->root;
    int me = r->seat;
    long v = 1000L * (r->nstock[me] - o->nstock[me]);
    if (o->nstock[me] == 0)
        return v + 1000000L;
    v += 8 * c->hand_build + 2 * c->hand_disc - c->moves;
    if (o->nhand == 0 && r->nhand > 0 && o->ndraw != 0)
        v += 30;
    int st = o->stock_top[me];
    if (st)
        v += 40 * accepts(o, st) + 8 * closeness(o, st);
    if (s->bonus)
        v += JOKER_KEEP * (jokers_in_hand(o) - jokers_in_hand(r));
    for (int q = 0; q < BO_NP; q++) {
        int t = o->stock_top[q];
        if (q == me || !t || o->nstock[q] == 0)
            continue;
        int w = 50 + 8 * (BO_STOCK - o->nstock[q]) + (q == (me + 1) % BO_NP ? 20 : 0);
        if (s->bonus && o->nstock[q] <= 3)
            w += DENY_NEAR * (4 - o->nstock[q]); /* near a win: deny it harder */
        if (accepts(o, t))
            v -= w;
        else
            v -= 3 * closeness(o, t);
    }
    return v;
}

/* --- the whole-turn planner's evaluation ---------------------------------- */

/* Sets of cards as readings (bo.h): bit (value-2)*2 + red, values 2..13. */
enum { ALL24 = (1u << 24) - 1, REDS = 0xAAAAAAu, BLACKS = 0x555555u };
static const uint32_t STARTERS = (1u << 0) | (1u << 1) | (1u << 22) | (1u << 23); /* 2s, Ks */

static uint32_t bit_of(int card)
{
    if (bo_joker(card))
        return ALL24;
    return bo_val(card) > 1 ? 1u << ((bo_val(card) - 2) * 2 + bo_red(card)) : 0;
}

/* Cards that may go on a build top read as s: same colour, adjacent. */
static uint32_t on_build(uint32_t s) { return ((s << 2) | (s >> 2)) & ALL24; }

/* Cards that may go on a discard top read as s: the other colour,
 * adjacent with a wrap K-2. */
static uint32_t on_disc(uint32_t s)
{
    uint32_t w = ((s & BLACKS) << 1) | ((s & REDS) >> 1);
    return (((w << 2) | (w >> 2)) & ALL24) | ((w >> 22) & 3u) | ((w & 3u) << 22);
}

/* The readings of a pile's top: one, unless the pile holds a joker. */
static uint32_t top_of(const uint8_t *pile, int n, int build, int variant)
{
    int joker = 0;
    for (int i = 0; i < n && !joker && variant; i++)
        joker = bo_joker(pile[i]);
    if (!joker && n > 0)
        return bit_of(pile[n - 1]);
    return build ? bo_build_top(pile, n) : bo_disc_top(pile, n);
}

/* The table's tops, once per evaluation. */
typedef struct tops {
    uint32_t build, disc; /* union of the non-empty build / discard tops */
    int empty_build;      /* an empty build pile takes a 2 or a King */
} tops;

static void tops_of(const bo_obs *o, tops *t)
{
    t->build = t->disc = 0;
    t->empty_build = 0;
    for (int b = 0; b < BO_NBUILD; b++) {
        if (o->b.nbuild[b])
            t->build |= top_of(o->b.build[b], o->b.nbuild[b], 1, o->variant);
        else
            t->empty_build = 1;
    }
    for (int ow = 0; ow < BO_NP; ow++)
        for (int k = 0; k < BO_NDISC; k++)
            if (o->b.ndisc[ow][k])
                t->disc |= top_of(o->b.disc[ow][k], o->b.ndisc[ow][k], 0, o->variant);
}

/* reach[k]: the cards that can be played after at most k cards of `pool`
 * (a set) have been laid as bridges on the build or discard piles; k <= 3.
 * Multiplicity is ignored (a bridge may repeat a card of the pool). */
typedef struct reachset {
    uint32_t at[4];
    int n;
} reachset;

static void reach_of(const tops *t, uint32_t pool, int maxk, reachset *r)
{
    uint32_t b = t->build, d = t->disc, st = t->empty_build ? STARTERS : 0;
    r->n = maxk + 1;
    r->at[0] = on_build(b) | on_disc(d) | st;
    for (int k = 1; k <= maxk; k++) {
        b |= (on_build(b) | st) & pool;
        d |= on_disc(d) & pool;
        r->at[k] = on_build(b) | on_disc(d) | st;
    }
}

/* Fewest bridges before `card` plays (99: not within the set's depth). An
 * Ace plays on any non-empty build pile of its colour. */
static int reach(const tops *t, const reachset *r, int card)
{
    if (!bo_joker(card) && bo_val(card) == 1)
        return (t->build & (bo_red(card) ? REDS : BLACKS)) ? 0 : 99;
    uint32_t m = bit_of(card);
    for (int k = 0; k < r->n; k++)
        if (r->at[k] & m)
            return k;
    return 99;
}

enum {
    SR_OWN0 = 40, SR_OWN1 = 24, SR_OWN2 = 12, SR_OWN3 = 6, /* our top k cards away (hand+discards) */
    SO_DIRECT = 250, SO_BRIDGE = 80, /* an opponent's top playable now / via one public discard top */
    SO_NEXT = 80, /* extra for the next player */
    SO_OPEN = 30, /* per card the table takes at once */
    SO_NEAR = 10, /* per card an opponent has played from the stockpile */
    SO_HID1 = 20, SO_HID2 = 6, /* an opponent's top one or two unseen cards away */
    END_KEEP = 8, END_BURY = 4, END_NEW = 12, /* turn-ending discards (quarters) */
};

static long eval_strong(const search *s, const bo_obs *o, const counters *c)
{
    const bo_obs *r = s->root;
    int me = r->seat;
    long v = 1000L * (r->nstock[me] - o->nstock[me]);
    if (o->nstock[me] == 0)
        return v + 1000000L;
    v += 20 * c->hand_build + 4 * c->hand_disc - c->moves;
    if (o->nhand == 0 && r->nhand > 0 && o->ndraw != 0)
        v += 60;
    tops tt;
    tops_of(o, &tt);
    uint32_t hand = 0;
    for (int i = 0; i < o->nhand; i++)
        hand |= bit_of(o->hand[i]);
    reachset mine, pub, any;
    reach_of(&tt, tt.disc | hand, 3, &mine);
    reach_of(&tt, tt.disc, 1, &pub);
    reach_of(&tt, ALL24, 2, &any);
    int st = o->stock_top[me];
    if (st) {
        static const int own[4] = {SR_OWN0, SR_OWN1, SR_OWN2, SR_OWN3};
        int k = reach(&tt, &mine, st);
        if (k < 4)
            v += own[k];
        v += 4 * closeness(o, st);
    }
    /* an open table lets the next players chain their unseen stockpile cards */
    v -= SO_OPEN * __builtin_popcount(pub.at[0]);
    if (s->bonus)
        v += JOKER_KEEP * (jokers_in_hand(o) - jokers_in_hand(r));
    for (int q = 0; q < BO_NP; q++) {
        int t = o->stock_top[q];
        if (q == me || !t || o->nstock[q] == 0)
            continue;
        int w = SO_NEAR * (BO_STOCK - o->nstock[q]) + (q == (me + 1) % BO_NP ? SO_NEXT : 0);
        if (s->bonus && o->nstock[q] <= 3)
            w += DENY_NEAR * (4 - o->nstock[q]);
        int k = reach(&tt, &pub, t);
        if (k == 0)
            v -= SO_DIRECT + w;
        else if (k == 1)
            v -= SO_BRIDGE + w / 2;
        else {
            k = reach(&tt, &any, t); /* with cards of its hidden hand */
            v -= k == 1 ? SO_HID1 + w / 4 : k == 2 ? SO_HID2 : 0;
        }
    }
    return v;
}

/* Append the non-turn-ending plays of `base` (source filled) to the
 * destinations asked for: build piles and/or (legally) discard piles. */
static void dests(const bo_obs *o, bo_play base, int builds, int discards, bo_play *out, int *n,
                  int max)
{
    for (int b = 0; builds && b < BO_NBUILD && *n < max; b++)
        if (bo_match_build(base.card, o->b.build[b], o->b.nbuild[b])) {
            base.dst_kind = BO_TO_BUILD;
            base.dst_owner = 0;
            base.dst_pile = (uint8_t)b;
            out[(*n)++] = base;
        }
    if (!discards || (!bo_joker(base.card) && bo_val(base.card) == 1))
        return;
    for (int ow = 0; ow < BO_NP; ow++)
        for (int k = 0; k < BO_NDISC && *n < max; k++) {
            int m = o->b.ndisc[ow][k];
            if (!m || (base.type == BO_FROM_DISCARD && base.src_owner == ow && base.src_pile == k))
                continue;
            int top = o->b.disc[ow][k][m - 1];
            if (!bo_joker(top) && !bo_joker(base.card) && bo_red(top) == bo_red(base.card))
                continue;
            if (bo_match_discard(base.card, o->b.disc[ow][k], m, o->seat, ow, 0) != 1)
                continue;
            base.dst_kind = BO_TO_DISCARD;
            base.dst_owner = (uint8_t)ow;
            base.dst_pile = (uint8_t)k;
            out[(*n)++] = base;
        }
}

/* The search's candidate plays, most promising first: stockpile plays, then
 * discard tops and hand cards onto build piles, then (when `low`, i.e. once
 * per sequence) up to LOW_WIDTH plays onto discard piles, which only help
 * to uncover a card or to shed one. At most `width` plays. */
static int gen_search(const bo_obs *o, int low, int width, bo_play *out)
{
    int n = 0, s = o->seat;
    bo_play p;
    memset(&p, 0, sizeof p);
    if (o->nstock[s] > 0 && o->stock_top[s]) {
        p.type = BO_FROM_STOCK;
        p.card = o->stock_top[s];
        dests(o, p, 1, 1, out, &n, width);
    }
    if (embargoed(o, s))
        return n; /* stockpile plays only */
    for (int pass = 0; pass < 2; pass++) {
        int lim = pass == 0 ? width : (n + LOW_WIDTH < width ? n + LOW_WIDTH : width);
        if (pass == 1 && !low)
            break;
        for (int ow = 0; ow < BO_NP; ow++)
            for (int k = 0; k < BO_NDISC; k++) {
                int m = o->b.ndisc[ow][k];
                if (!m)
                    continue;
                p.type = BO_FROM_DISCARD;
                p.card = o->b.disc[ow][k][m - 1];
                p.src_owner = (uint8_t)ow;
                p.src_pile = (uint8_t)k;
                dests(o, p, pass == 0, pass == 1, out, &n, lim);
            }
        p.src_owner = p.src_pile = 0;
        for (int i = 0; i < o->nhand; i++) {
            int dup = 0;
            for (int j = 0; j < i; j++)
                dup |= o->hand[j] == o->hand[i];
            if (dup)
                continue;
            p.type = BO_FROM_HAND;
            p.card = o->hand[i];
            dests(o, p, pass == 0, pass == 1, out, &n, lim);
        }
    }
    return n;
}

static void dfs(search *s, const bo_obs *o, const counters *c, int depth, int len,
                const bo_play *first)
{
    s->nodes++;
    if (len > 0) {
        long v = eval(s, o, c);
        if (!s->have_best || v > s->best || (v == s->best && len < s->best_len)) {
            s->best = v;
            s->best_len = len;
            s->best_stock = s->root->nstock[s->root->seat] - o->nstock[s->root->seat];
            s->best_first = *first;
            s->have_best = 1;
        }
    }
    if (depth == 0 || s->nodes >= s->budget || o->nstock[s->root->seat] == 0)
        return;
    bo_play cand[WIDTH_MAX];
    int width = WIDTH[len < BO_PLAYS ? len : BO_PLAYS - 1];
    int m = gen_search(o, c->hand_disc + c->moves == 0, width, cand);
    for (int i = 0; i < m && s->nodes < s->budget; i++) {
        bo_obs child = *o;
        counters cc = *c;
        int done;
        bo_obs_do(&child, &cand[i], &done);
        if (cand[i].type == BO_FROM_HAND)
            cand[i].dst_kind == BO_TO_BUILD ? cc.hand_build++ : cc.hand_disc++;
        else if (cand[i].type == BO_FROM_DISCARD)
            cc.moves++;
        dfs(s, &child, &cc, depth - 1, len + 1, len == 0 ? &cand[i] : first);
    }
}

/* How much we want to keep `card` (higher: keep). */
static int keep_value(const bo_obs *o, int card)
{
    if (bo_joker(card))
        return 100;
    int me = o->seat, st = o->stock_top[me], v = bo_val(card), k = 0;
    if (st && !bo_joker(st) && bo_red(st) == bo_red(card)) {
        int d = iabs(bo_val(st) - v);
        if (d >= 1 && d <= 3)
            k += 40 - 10 * d;
    }
    if (v == 2 || v == 13)
        k += 15;
    if (accepts(o, card))
        k += 10;
    return k;
}

/* Score of a turn-ending discard (higher is better). */
static int discard_score(const bo_obs *o, const bo_play *p)
{
    int me = o->seat, score = -keep_value(o, p->card);
    int n = o->b.ndisc[p->dst_owner][p->dst_pile];
    if (n == 0) {
        score += 12;
    } else {
        int top = o->b.disc[p->dst_owner][p->dst_pile][n - 1];
        int buried = bo_joker(top) ? 5 : keep_value(o, top);
        score -= buried;
        if (p->dst_owner != me)
            score -= 4;
        for (int q = 0; q < BO_NP && !bo_joker(top); q++) {
            int t = o->stock_top[q];
            if (q == me || !t || bo_joker(t))
                continue;
            if (bo_red(t) != bo_red(top) && iabs(bo_val(t) - bo_val(top)) == 1)
                score += 6; /* buries a card that could lead an opponent on */
        }
    }
    /* a card we leave on top is free for the next players */
    for (int q = 0; q < BO_NP && !bo_joker(p->card); q++) {
        int t = o->stock_top[q];
        if (q != me && t && !bo_joker(t) && bo_red(t) == bo_red(p->card) &&
            iabs(bo_val(t) - bo_val(p->card)) == 1)
            score -= 10;
    }
    return score;
}

/* The embargo target to prefer: fewest stockpile cards, then the one who
 * moves soonest after us. */
static int better_target(const bo_obs *o, int a, int b)
{
    int me = o->seat;
    if (o->nstock[a] != o->nstock[b])
        return o->nstock[a] < o->nstock[b];
    return (a - me + BO_NP) % BO_NP < (b - me + BO_NP) % BO_NP;
}

/* The whole-turn planner's score of a turn-ending discard: the table it
 * leaves to the next players (eval_strong) and the card it gives up. */
static int end_score(const bo_obs *o, int bonus, const bo_play *p)
{
    search s;
    memset(&s, 0, sizeof s);
    s.root = o;
    s.bonus = bonus;
    s.strong = 1;
    counters c = {0, 0, 0};
    bo_obs child = *o;
    int done;
    bo_obs_do(&child, p, &done);
    int n = o->b.ndisc[p->dst_owner][p->dst_pile];
    int buried = 0;
    if (n) {
        int top = o->b.disc[p->dst_owner][p->dst_pile][n - 1];
        buried = bo_joker(top) ? 5 : keep_value(o, top);
    }
    return (int)eval_strong(&s, &child, &c) - END_KEEP * keep_value(o, p->card) / 4 -
           END_BURY * buried / 4 + (n == 0 ? END_NEW : 0);
}

static void plan(const bo_obs *o, int budget, int bonus, int strong, bo_play *out, char *why,
                 size_t whylen)
{
    bo_play all[BO_MAXPLAYS];
    uint8_t ver[BO_MAXPLAYS];
    char text[160];
    int n = bo_gen(o, all, ver);
    memset(out, 0, sizeof *out);
    if (n == 0) {
        out->type = BO_NO_PLAY;
        snprintf(why, whylen, "has no possible play");
        return;
    }
    int best_end = -1, best_score = 0, nonend = 0, embargo_i = -1, clear_i = -1;
    for (int i = 0; i < n; i++) {
        if (ver[i] != 2) {
            nonend++;
            continue;
        }
        if (all[i].type == BO_EMBARGO) {
            if (o->nstock[all[i].dst_owner] > EMBARGO_AT)
                continue;
            if (embargo_i < 0 || better_target(o, all[i].dst_owner, all[embargo_i].dst_owner))
                embargo_i = i;
            continue;
        }
        if (all[i].type == BO_CLEAR) {
            if (clear_i < 0)
                clear_i = i;
            continue;
        }
        int sc = strong ? end_score(o, bonus, &all[i]) : discard_score(o, &all[i]);
        if (best_end < 0 || sc > best_score) {
            best_end = i;
            best_score = sc;
        }
    }
    search s;
    memset(&s, 0, sizeof s);
    s.root = o;
    s.budget = budget;
    s.bonus = bonus;
    s.strong = strong;
    counters c = {0, 0, 0};
    long base = eval(&s, o, &c);
    if (nonend)
        dfs(&s, o, &c, o->plays_left > 0 ? o->plays_left : 1, 0, NULL);
    int me = o->seat;
    int progress = s.have_best && s.best_stock > 0 && s.best > base;
    if (bonus && clear_i >= 0 && !progress) {
        *out = all[clear_i];
        bo_play_text(o, out, text, sizeof text);
        snprintf(why, whylen, "%s: the stockpile cannot move, so the embargo goes now and the hand and discard piles are free again next turn",
                 text);
        return;
    }
    if (bonus && embargo_i >= 0 && !progress) {
        *out = all[embargo_i];
        int t = out->dst_owner;
        bo_play_text(o, out, text, sizeof text);
        snprintf(why, whylen, "%s: player %d is the closest to winning, and embargoed they may only play from the stockpile until they spend a turn clearing it",
                 text, t + 1);
        return;
    }
    if (s.have_best && (best_end < 0 || s.best > base)) {
        *out = s.best_first;
        bo_play_text(o, out, text, sizeof text);
        long gain = s.best - base;
        if (s.best >= 1000000L)
            snprintf(why, whylen, "%s: a sequence that empties the stockpile and wins", text);
        else if (out->type == BO_FROM_STOCK)
            snprintf(why, whylen, "%s: the stockpile goes down to %d card%s", text,
                     o->nstock[me] - 1, o->nstock[me] == 2 ? "" : "s");
        else if (gain >= 1000)
            snprintf(why, whylen, "%s: first step of a sequence that plays %ld stockpile card%s%s",
                     text, gain / 1000, gain / 1000 == 1 ? "" : "s",
                     bonus && bo_joker(out->card) ? " (the joker was kept for this)" : "");
        else if (best_end < 0 && embargo_i < 0 && clear_i < 0)
            snprintf(why, whylen, "%s: the least harmful play, as the turn cannot end with a discard", text);
        else if (strong && out->type == BO_FROM_HAND)
            snprintf(why, whylen, "%s: sheds a card (more fresh cards to draw) and leaves the other players' stockpile tops as few places to go as possible", text);
        else if (strong)
            snprintf(why, whylen, "%s: moves a discard top so the table leaves the other players' stockpile tops as few places to go as possible", text);
        else if (out->dst_kind == BO_TO_BUILD)
            snprintf(why, whylen, "%s: sheds a card and sets up the build piles without feeding the opponents' stockpiles", text);
        else
            snprintf(why, whylen, "%s: keeps the turn going and improves the table", text);
        return;
    }
    if (best_end >= 0) {
        *out = all[best_end];
        bo_play_text(o, out, text, sizeof text);
        if (strong)
            snprintf(why, whylen, "%s: no play moves the stockpile on, so the turn ends with the discard that gives the next players the least to play on",
                     text);
        else
            snprintf(why, whylen, "%s: ends the turn with the least useful card (nothing better to play)", text);
        return;
    }
    *out = all[embargo_i >= 0 ? embargo_i : clear_i >= 0 ? clear_i : 0];
    bo_play_text(o, out, text, sizeof text);
    snprintf(why, whylen, "%s: the only way left to end the turn", text);
}

void bo_plan(const bo_obs *o, bo_play *out, char *why, size_t whylen)
{
    plan(o, STRONG_BUDGET, o->variant != 0, 1, out, why, whylen);
}

void bo_plan_n(const bo_obs *o, int budget, bo_play *out, char *why, size_t whylen)
{
    plan(o, budget, 0, 0, out, why, whylen);
}

void bo_plan_bonus(const bo_obs *o, bo_play *out, char *why, size_t whylen)
{
    plan(o, NODE_BUDGET, 1, 0, out, why, whylen);
}

void bo_random(const bo_obs *o, rng *r, bo_play *out, char *why, size_t whylen)
{
    bo_play all[BO_MAXPLAYS];
    char text[160];
    int n = bo_gen(o, all, NULL);
    memset(out, 0, sizeof *out);
    if (n == 0) {
        out->type = BO_NO_PLAY;
        snprintf(why, whylen, "has no possible play");
        return;
    }
    *out = all[rng_below(r, (uint32_t)n)];
    bo_play_text(o, out, text, sizeof text);
    snprintf(why, whylen, "%s: chosen at random among %d possible plays", text, n);
}
