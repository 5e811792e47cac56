/* fc_bots.c: the computer players. All of them decide from an fc_obs (the
 * seat's own hand, the discard pile's top, counts, and the round's public
 * record: which cards each seat took from the discard pile and discarded),
 * never from the state, so help mode gives advice from what the seat may see.
 *
 * "strategy" (the strongest, used by help mode):
 * - Draw: take the discard pile's top when it is a joker or a wild card
 *   (they fit anywhere) or when it lets the hand go out; otherwise decide
 *   between it and a blind draw by a learnt draw (learnt_take, 2026-11-23):
 *   a linear model, fitted on rollouts of played games, of what taking the
 *   top does to the chance of winning, on features of the decision (the
 *   gain by the hand's count, the exact points after taking it and, on
 *   average, after a blind draw, the blind draw's chance to go out, the
 *   turn of the round, the top's value, ...).
 * - Discard: go out whenever some discard leaves a complete arrangement.
 *   Otherwise keep every joker and wild card (they complete runs and books
 *   later) and drop the card that leaves the lowest learnt count
 *   (learnt_score, 2026-11-23): a linear model, fitted on played games, of
 *   the round's point difference on features of the hand left: its exact
 *   points, points outside runs and books, points if one or two more
 *   jokers came, loose cards and those with a partner, the highest
 *   leftover cards, the card given away, feed_risk (a card of a rank the
 *   next player took from the discard pile this round, or of its suit
 *   within two ranks, since only the next player can take the discard),
 *   and their products with the turn of the round. The two best candidates
 *   (both cards of a pair counting as one place) then look one draw ahead
 *   (expect_draw): the points left after the next blind draw and best
 *   discard, averaged over the cards the seat has not seen, a draw that
 *   would go out counting as a saving. Ties: drop the higher card. (The
 *   learnt draw's gain compares hands by potential2: 2 x the points outside runs
 *   and books plus the points left if one more joker came, with the
 *   turn-weighted risk points and, at two players, a little less for
 *   giving a low card.)
 * - Jokers and wilds: the exact arranger places them where they save the
 *   most points (gaps of runs, short books).
 * - Last turn (someone went out): take the discard top only when it leaves
 *   fewer points than the average blind draw would (jokers and wilds may
 *   come blind); minimise the exact points left, even if that means
 *   dropping a joker.
 * "greedy": takes the discard top only when it lowers the exact points at
 *   once, drops the card that leaves the fewest exact points (jokers too),
 *   goes out when it can.
 * "random": a uniformly random legal play.
 *
 * Each strategy's sentence is its reasoning as the seat sees it: it names
 * the hand's cards, runs, books and points. It is the record's reasoning,
 * for the admin and for after the game; what every reader is shown while
 * the game runs is fc_explain.c's public line (at a closed table no card,
 * group or count of the hand). Help mode (hint) talks to the seat itself
 * and names its cards.
 */
#include "fc.h"

#include <stdio.h>
#include <string.h>

void fc_observe(const fc_state *st, int seat, fc_obs *o)
{
    memset(o, 0, sizeof *o);
    o->seat = seat;
    o->np = st->np;
    o->round = st->round;
    o->wild = fc_wild_rank(st->round);
    o->phase = st->phase;
    o->out_seat = st->went_out;
    o->last_turn = st->went_out >= 0 && st->went_out != seat;
    o->nhand = st->nhand[seat];
    memcpy(o->hand, st->hand[seat], (size_t)o->nhand);
    o->disc_top = st->ndisc ? st->disc[st->ndisc - 1] : 0;
    o->can_draw = st->ndraw > 0 || st->ndisc > 1;
    o->open = st->open;
    o->round_turns = st->round_turns;
    /* the public part of this round's history: pick-ups from the discard
     * pile and discards (never a blind draw's card) */
    for (int i = st->nhist - 1; i >= 0 && st->hist[i].round == st->round; i--) {
        const fc_hist *x = &st->hist[i];
        if (x->seat >= FC_MAXP || x->card > FC_NTYPES)
            continue;
        if (x->kind == FC_PLAY_DRAW_DISCARD && o->took[x->seat][x->card] < 255)
            o->took[x->seat][x->card]++;
        else if (x->kind == FC_PLAY_DISCARD && o->dropped[x->seat][x->card] < 255)
            o->dropped[x->seat][x->card]++;
    }
}

/* Does natural x have a partner among cards (other than itself): the same
 * rank (half a book) or the same suit within two ranks (half a run)? */
static int partner(int x, const uint8_t *cards, int n, int wild)
{
    int self = 0;
    for (int i = 0; i < n; i++) {
        int y = cards[i];
        if (fc_is_wild(y, wild))
            continue;
        if (y == x && !self) {
            self = 1; /* x itself; a second copy is a partner */
            continue;
        }
        if (fc_rank(y) == fc_rank(x))
            return 1;
        int d = fc_rank(y) - fc_rank(x);
        if (fc_suit(y) == fc_suit(x) && d >= -2 && d <= 2)
            return 1;
    }
    return 0;
}

/* Weights tuned by self-play against "greedy" (seeded, 600 games each;
 * the second block with 2,000-game tournaments, seed 1001, 2026-11-22):
 * a, b: potential2 (the draw's margin m, 25, and its test against the
 * average blind draw from each player's third turn gave way to the learnt
 * draw on 2026-11-23); T_book, T_run: feed_risk;
 * T_risk: how much more the exact points weigh per turn of the round (the
 * other player may go out any time); T_la, T_go: one draw ahead (weight,
 * and the points a hand that would go out counts as saving); T_lak: how
 * many candidates look ahead. */
static const int fc_tune_a = 2, fc_tune_b = 1, fc_tune_c = 0;
static const int T_book = 20, T_run = 10, T_risk = 50, T_la = 1, T_go = 150, T_lak = 2, T_lagap = 40;
/* T_give: at two players, a natural card of value v costs T_give x (14 - v)
 * less to discard: the other player ("greedy" takes the discard top
 * whenever it lowers its points, 84% of 3s, 26% of kings) then often takes
 * it instead of drawing blind, where the jokers and wild cards are
 * (2026-11-22, a = 2, T_go 150, risk_pts and T_give 1 together: +0.7 on
 * seed 1001, +1.65 on 5001, +2.85 on 9001, 2,000 games each). */
static const int T_give = 1;

/* The points an arrangement would keep if the other player went out now:
 * the last turn still draws and drops a card, so the highest card left over
 * does not count. */
static int risk_pts(const fc_arr *a, int wild)
{
    int hi = 0;
    for (int i = 0; i < a->nleft; i++)
        if (fc_value(a->left[i], wild) > hi)
            hi = fc_value(a->left[i], wild);
    return a->points - hi;
}

/* What discarding natural d may give the next seat (who alone can take it):
 * a penalty when that seat took cards of its rank (a book) or of its suit
 * within two ranks (a run) from the discard pile this round, less when it
 * discarded such cards itself (it is not collecting them). */
static int feed_risk(const fc_obs *o, int d)
{
    if (o->np < 2 || fc_is_wild(d, o->wild))
        return 0;
    int nxt = (o->seat + 1) % o->np, r = fc_rank(d), su = fc_suit(d), v = 0;
    for (int c = 1; c < FC_JOKER1; c++) {
        int t = o->took[nxt][c];
        if (!t)
            continue;
        if (fc_rank(c) == o->wild)
            continue;
        int dr = fc_rank(c) - r;
        int book = dr == 0, run = fc_suit(c) == su && dr >= -2 && dr <= 2 && dr != 0;
        if (book)
            v += t * T_book;
        if (run)
            v += t * T_run;
    }
    return v;
}

/* The strategy's count of a hand (lower is better): 2 x its points outside
 * runs and books (jokers and wilds not counted: they will fit later) plus
 * the points it would keep with one more joker (how close it is to going
 * out). (A term for leftover cards with/without partners, fc_tune_c, did
 * not pay in self-play and is weighted 0.) */
static int potential2(const uint8_t *h, int n, int wild, fc_arr *a)
{
    fc_arrange(h, n, wild, a);
    int v = 0;
    for (int i = 0; i < a->nleft; i++) {
        int x = a->left[i];
        if (fc_is_wild(x, wild))
            continue;
        v += partner(x, a->left, a->nleft, wild) ? fc_value(x, wild) : 2 * fc_value(x, wild);
    }
    int score = fc_tune_c * v;
    if (fc_tune_a || fc_tune_b) {
        uint8_t hj[FC_HANDMAX + 1];
        memcpy(hj, h, (size_t)n);
        hj[n] = FC_JOKER1;
        int p1 = n + 1 <= FC_HANDMAX ? fc_arrange(hj, n + 1, wild, NULL) : a->points;
        int p0 = a->points;
        for (int i = 0; i < a->nleft; i++)
            if (fc_is_wild(a->left[i], wild))
                p0 -= fc_value(a->left[i], wild);
        score += fc_tune_a * p0 + fc_tune_b * p1;
    }
    return score;
}

/* --- a learnt count (one step of policy iteration, 2026-11-23) ----------- */
/* The discard's count (lower is better) learnt from outcomes instead of
 * hand-tuned: a linear model of the round's points difference (ours less
 * the other player's, at the round's end) on features of the hand left after
 * the discard (disc_feats). Fitted by least squares on 12,000 games of
 * strategy against greedy (seeds 500000.. and 600000..) in which, at about a
 * third of the decisions, a random one of the three best discards by the
 * hand-tuned count was played; the features enter as their difference from
 * the three candidates' mean (the decision's own terms fitted apart), so
 * only what tells the candidates of one decision apart is learnt.
 * FCL_K turns the round's points into the count's units, to which the
 * one-draw look-ahead is added: 15.5 would match the hand-tuned count
 * (1 point of it ~ 0.064 points of the round); 25 played best on the
 * tuning seeds 5001 and 9001. FCL_W[k] weighs feature k of disc_feats, in
 * its order; those weighted 0 (the constant, wilds held, hand size, the
 * turn) are the same for every candidate of a decision. */
enum { FC_NDF = 24 };
static const double FCL_K = 25.0;
static const double FCL_W[FC_NDF] = {
    0,        0.67325, 0.19422, 0.04386, -0.01771, -0.75848, 0,       1.38622,
    -0.67729, -0.80228, 0.14484, 0,      0,        -0.04499, 0.0464,  0.00223,
    0.08855,  0.41505, 0.29997, 0.16714, 0,        0.01537,  -0.02294, 0.0669};
static int disc_feats(const fc_obs *o, const uint8_t *r, int m, int d, int wild, double *f)
{
    fc_arr a;
    int pts = fc_arrange(r, m, wild, &a);
    uint8_t hj[FC_HANDMAX + 2];
    memcpy(hj, r, (size_t)m);
    hj[m] = FC_JOKER1;
    hj[m + 1] = FC_JOKER1;
    int p1 = m + 1 <= FC_HANDMAX ? fc_arrange(hj, m + 1, wild, NULL) : pts;
    int p2 = m + 2 <= FC_HANDMAX ? fc_arrange(hj, m + 2, wild, NULL) : p1;
    int p0 = pts, nw = 0, nl = 0, np = 0, hi = 0, hi2 = 0;
    for (int i = 0; i < m; i++)
        nw += fc_is_wild(r[i], wild);
    for (int i = 0; i < a.nleft; i++) {
        int x = a.left[i], v = fc_value(x, wild);
        if (fc_is_wild(x, wild)) {
            p0 -= v;
            continue;
        }
        nl++;
        np += partner(x, a.left, a.nleft, wild);
        if (v > hi) {
            hi2 = hi;
            hi = v;
        } else if (v > hi2)
            hi2 = v;
    }
    double t = (double)(o->round_turns / (o->np ? o->np : 1));
    int dv = fc_is_wild(d, wild) ? 0 : fc_value(d, wild);
    int k = 0;
    f[k++] = 1;
    f[k++] = pts;
    f[k++] = p0;
    f[k++] = p1;
    f[k++] = p2;
    f[k++] = pts - hi; /* risk_pts */
    f[k++] = nw;
    f[k++] = nl;
    f[k++] = np;
    f[k++] = hi;
    f[k++] = hi2;
    f[k++] = m;
    f[k++] = t;
    f[k++] = t * pts;
    f[k++] = t * (pts - hi);
    f[k++] = t * p1;
    f[k++] = dv;
    f[k++] = feed_risk(o, d) / 10.0;
    f[k++] = p1 == 0;
    f[k++] = p2 == 0;
    f[k++] = (m % 3) == 0;
    f[k++] = t * p0;
    f[k++] = t * dv;
    f[k++] = t * (p1 == 0);
    return pts;
}

static int learnt_score(const fc_obs *o, const uint8_t *r, int m, int d, int wild, int *pts)
{
    double f[FC_NDF], v = 0;
    int p = disc_feats(o, r, m, d, wild, f);
    if (pts)
        *pts = p;
    for (int k = 0; k < FC_NDF; k++)
        v += FCL_W[k] * f[k];
    return (int)(FCL_K * v);
}

/* --- one draw ahead -------------------------------------------------------- */

/* The cards the seat may still draw, by code, from what it may see: two of
 * each, less its own hand, less the cards discarded this round (they lie in
 * the discard pile, or in the hand of whoever took them back), counted once
 * each (a card taken and discarded again is one card). */
static int unseen(const fc_obs *o, uint8_t *cnt)
{
    int tot = 0;
    for (int c = 1; c <= FC_NTYPES; c++) {
        int k = 2;
        for (int i = 0; i < o->nhand; i++)
            k -= o->hand[i] == c;
        int gone = 0, back = o->took[o->seat][c];
        for (int s = 0; s < o->np && s < FC_MAXP; s++)
            gone += o->dropped[s][c];
        k -= gone - back; /* my own pick-ups are in my hand already */
        for (int s = 0; s < o->np && s < FC_MAXP; s++)
            if (s != o->seat && o->took[s][c] && o->dropped[s][c] >= o->took[s][c])
                k++; /* taken and dropped again: counted twice above */
        if (k < 0)
            k = 0;
        if (k > 2)
            k = 2;
        cnt[c] = (uint8_t)k;
        tot += k;
    }
    return tot;
}

/* The points a hand of n+1 cards keeps after its best discard, roughly: its
 * arrangement's points less its highest card left over; -go when that is 0
 * (the hand goes out). */
static int after_draw(const uint8_t *h, int n1, int wild, int go)
{
    fc_arr a;
    int pts = fc_arrange(h, n1, wild, &a), hi = 0;
    for (int i = 0; i < a.nleft; i++)
        if (fc_value(a.left[i], wild) > hi)
            hi = fc_value(a.left[i], wild);
    if (a.nleft == 0)
        return -go; /* a group of 4+ can spare a card, nearly always */
    pts -= hi;
    return pts == 0 ? -go : pts;
}

/* Can natural c join something in h: a card of its rank, or of its suit
 * within 2 + (wilds held) ranks? Wilds always can. */
static int may_fit(int c, const uint8_t *h, int n, int wild, int nw)
{
    if (fc_is_wild(c, wild))
        return 1;
    for (int i = 0; i < n; i++) {
        int y = h[i];
        if (fc_is_wild(y, wild))
            continue;
        int d = fc_rank(y) - fc_rank(c);
        if (d == 0)
            return 1;
        if (fc_suit(y) == fc_suit(c) && d >= -2 - nw && d <= 2 + nw)
            return 1;
    }
    return 0;
}

/* Expected after_draw() of hand h (n cards) over one blind draw from cnt
 * (tot cards), x100. */
static int expect_draw(const uint8_t *h, int n, int wild, const uint8_t *cnt, int tot, int go)
{
    if (tot <= 0 || n + 1 > FC_HANDMAX)
        return 0;
    uint8_t x[FC_HANDMAX];
    memcpy(x, h, (size_t)n);
    fc_arr a0;
    int p0 = fc_arrange(h, n, wild, &a0), hi0 = 0, nw = 0;
    for (int i = 0; i < a0.nleft; i++)
        if (fc_value(a0.left[i], wild) > hi0)
            hi0 = fc_value(a0.left[i], wild);
    for (int i = 0; i < n; i++)
        nw += fc_is_wild(h[i], wild);
    long sum = 0;
    int wcnt = 0;
    for (int c = 1; c <= FC_NTYPES; c++) {
        if (!cnt[c])
            continue;
        if (fc_is_wild(c, wild)) {
            wcnt += cnt[c];
            continue;
        }
        int v;
        if (may_fit(c, h, n, wild, nw)) {
            x[n] = (uint8_t)c;
            v = after_draw(x, n + 1, wild, go);
        } else {
            int vc = fc_value(c, wild);
            v = p0 + vc - (vc > hi0 ? vc : hi0);
            if (v == 0)
                v = -go;
        }
        sum += (long)v * cnt[c];
    }
    if (wcnt) {
        x[n] = FC_JOKER1;
        sum += (long)after_draw(x, n + 1, wild, go) * wcnt;
    }
    return (int)(sum * 100 / tot);
}

static int count_wild(const uint8_t *h, int n, int wild)
{
    int w = 0;
    for (int i = 0; i < n; i++)
        w += fc_is_wild(h[i], wild);
    return w;
}

/* The discard a strategy picks from hand h (n cards). mode 0 strategy,
 * 1 exact (last turn / greedy). Fills *go when some discard goes out. */
typedef struct pick {
    int card, score, go, pts;
    int risk; /* the part of score that is feed_risk */
    int la;   /* the part of score that looks one draw ahead */
    fc_arr after; /* arrangement after the discard */
} pick;

/* One candidate discard (small: choose_discard keeps one per card). */
typedef struct cand {
    int card, score, go, pts, risk, la;
} cand;

static int cand_better(const cand *c, const cand *b, int wild)
{
    return c->score < b->score ||
           (c->score == b->score && (fc_value(c->card, wild) > fc_value(b->card, wild) ||
                                     (fc_value(c->card, wild) == fc_value(b->card, wild) && c->card < b->card)));
}

static int drop_card(const uint8_t *h, int n, int d, uint8_t *r)
{
    int m = 0, done = 0;
    for (int j = 0; j < n; j++) {
        if (h[j] == d && !done) {
            done = 1;
            continue;
        }
        r[m++] = h[j];
    }
    return m;
}

static void choose_discard(const fc_obs *o, const uint8_t *h, int n, int wild, int exact, int allow_out, int ahead,
                           pick *best, int learn)
{
    int allwild = count_wild(h, n, wild) == n;
    uint8_t seen[FC_NTYPES + 1] = {0};
    cand cs[FC_HANDMAX + 1];
    memset(cs, 0, sizeof cs);
    int nc = 0;
    fc_arr tmp;
    for (int i = 0; i < n; i++) {
        int d = h[i];
        if (seen[d])
            continue;
        seen[d] = 1;
        uint8_t r[FC_HANDMAX];
        int m = drop_card(h, n, d, r);
        cand c = {d, 0, 0, 0, 0, 0};
        if (exact) {
            c.pts = fc_arrange(r, m, wild, NULL);
            c.score = 2 * c.pts;
        } else if (o && learn) {
            c.score = learnt_score(o, r, m, d, wild, &c.pts);
            if (fc_is_wild(d, wild) && !allwild)
                c.score += 100000;
        } else {
            c.score = potential2(r, m, wild, &tmp);
            c.pts = tmp.points;
            if (o) {
                c.risk = feed_risk(o, d);
                if (o->np == 2 && !fc_is_wild(d, wild))
                    c.risk -= T_give * (14 - fc_value(d, wild)); /* likely taken: no blind draw */
                c.score += c.risk;
                c.score += T_risk * (o->round_turns / o->np) * risk_pts(&tmp, wild) / 100;
            }
            if (fc_is_wild(d, wild) && !allwild)
                c.score += 100000;
        }
        c.go = allow_out && c.pts == 0;
        if (c.go)
            c.score = -1000 - fc_value(d, wild);
        cs[nc++] = c;
    }
    /* one draw ahead for the few best candidates (not when going out) */
    if (o && !exact && ahead) {
        uint8_t cnt[FC_NTYPES + 1];
        int tot = unseen(o, cnt);
        int lak = T_lak;
        for (int k = 0; k < lak && k < nc; k++) {
            int b = k;
            for (int i = k + 1; i < nc; i++)
                if (cand_better(&cs[i], &cs[b], wild))
                    b = i;
            cand t = cs[k];
            cs[k] = cs[b];
            cs[b] = t;
            if (cs[k].go || cs[k].score >= 100000)
                break;
            /* a card of the same rank and count as the one before (the other
             * king of a pair) does not take a look-ahead place: else the pair
             * fills both and the third card is never looked at (with a pair
             * of kings and a loose 3 the learnt count scores all three nearly
             * alike; only the look-ahead sees that the kings go out) */
            if (k > 0 && lak < nc && cs[k].score == cs[k - 1].score &&
                fc_rank(cs[k].card) == fc_rank(cs[k - 1].card))
                lak++;
        }
        int lim = lak < nc ? lak : nc;
        for (int k = 1; k < lim; k++)
            if (cs[k].score - cs[0].score > T_lagap)
                lim = k; /* too far behind for one draw to matter */
        for (int k = 0; k < lim && lim > 1; k++) {
            if (cs[k].go || cs[k].score >= 100000)
                continue;
            uint8_t r[FC_HANDMAX];
            int m = drop_card(h, n, cs[k].card, r);
            cs[k].la = T_la * expect_draw(r, m, wild, cnt, tot, T_go) / 100;
            cs[k].score += cs[k].la;
        }
        for (int k = lim; k < nc; k++)
            cs[k].score += 100000; /* not looked at: behind the others */
    }
    int b = 0;
    for (int i = 1; i < nc; i++)
        if (cand_better(&cs[i], &cs[b], wild))
            b = i;
    memset(best, 0, sizeof *best);
    best->card = cs[b].card;
    best->score = cs[b].score;
    best->go = cs[b].go;
    best->pts = cs[b].pts;
    best->risk = cs[b].risk;
    best->la = cs[b].la;
    uint8_t r[FC_HANDMAX];
    int m = drop_card(h, n, best->card, r);
    fc_arrange(r, m, wild, &best->after);
}

static int group_of(const fc_arr *a, int card)
{
    for (int g = 0; g < a->ngroups; g++)
        for (int j = 0; j < a->g[g].n; j++)
            if (a->g[g].cards[j] == card)
                return g;
    return -1;
}

static int in_left(const fc_arr *a, int card)
{
    for (int i = 0; i < a->nleft; i++)
        if (a->left[i] == card)
            return 1;
    return 0;
}

/* --- a learnt draw (2026-11-23) -------------------------------------------- */
/* Take the discard top or draw blind (when neither is forced: a joker or wild
 * top, or a top that lets the hand go out, is always taken) by a linear model
 * of what the choice does to the chance of winning the game, on features of
 * the decision (draw_feats). Fitted by least squares (throw-away harness, see
 * docs/research/fivecrowns-bots.md) on 50,698 draw decisions of 2,500 games of
 * strategy against greedy (seeds 920000.., not used for measurement): at each
 * one the hidden draw pile was reshuffled four times, and on each pile the
 * rest of the round was played once after taking the top and once after
 * drawing blind (the same pile both ways, both bots as usual); the label is
 * the difference of the chance to win at the end of the game given the
 * round's points (a normal approximation of the rounds left, their means and
 * spreads measured on the same bots). Only the sign of the sum matters (the
 * weights are the fit's times -1000, so below 0 means taking wins more): the
 * top is taken when it is below 0. FCD_W[k] weighs feature k of draw_feats,
 * in its order. */
enum { FC_NDZ = 18 };
static const double FCD_W[FC_NDZ] = {-0.712598, -3.70728,  0.427642,   -0.350555, 17.723,   0.0211514,
                                     0.0694267, -0.189286, -0.0755488, 0.161706,  -2.00139, 1.77448,
                                     0.428452,  -0.438853, 1.91746,    0.332557,  1.22084,  2.64557};
/* The features of a draw decision: nowpts the hand's exact points now, gain
 * the gain of taking the top by potential2 (the count the draw compared with
 * a margin before 2026-11-23), p the best discard after taking it (by
 * potential2), h the hand with the top. */
static void draw_feats(const fc_obs *o, int nowpts, int gain, const pick *p, const uint8_t *h, double *z)
{
    int wild = o->wild, t = o->disc_top, tt = o->round_turns / o->np;
    uint8_t cnt[FC_NTYPES + 1];
    int tot = unseen(o, cnt);
    /* the exact points after a blind draw and the best discard, on average,
     * and the chance that the blind draw lets the hand go out */
    double e0 = expect_draw(o->hand, o->nhand, wild, cnt, tot, 0) / 100.0;
    double pgo = (e0 - expect_draw(o->hand, o->nhand, wild, cnt, tot, 100) / 100.0) / 100.0;
    /* the one-draw look-ahead of the discard that would follow the pick-up */
    pick q;
    choose_discard(o, h, o->nhand + 1, wild, 0, 1, 1, &q, 1);
    int k = 0;
    z[k++] = 1;
    z[k++] = gain / 10.0;
    z[k++] = p->pts;
    z[k++] = e0;
    z[k++] = pgo;
    z[k++] = nowpts;
    z[k++] = fc_value(t, wild);
    z[k++] = tt;
    z[k++] = tt * (p->pts - e0);
    z[k++] = tt * gain / 10.0;
    z[k++] = group_of(&p->after, t) >= 0;
    z[k++] = count_wild(o->hand, o->nhand, wild);
    z[k++] = o->nhand;
    z[k++] = tt * pgo;
    z[k++] = p->risk / 10.0;
    z[k++] = fc_value(p->card, wild);
    z[k++] = q.la / 10.0;
    z[k++] = (o->nhand % 3) == 0;
}

static int learnt_take(const fc_obs *o, int nowpts, int gain, const pick *p, const uint8_t *h)
{
    double z[FC_NDZ], v = 0;
    draw_feats(o, nowpts, gain, p, h, z);
    for (int k = 0; k < FC_NDZ; k++)
        v += FCD_W[k] * z[k];
    return v < 0;
}

/* --- strategy ---------------------------------------------------------------- */

static void strategy_draw(const fc_obs *o, int hint, fc_advice *adv)
{
    int wild = o->wild, t = o->disc_top, exact = o->last_turn;
    char tn[40], buf[300];
    fc_arr now;
    int cur = exact ? 2 * fc_arrange(o->hand, o->nhand, wild, &now) : potential2(o->hand, o->nhand, wild, &now);
    adv->arr = now;
    fc_arr_text(&now, wild, buf, sizeof buf);
    snprintf(adv->arr_why, sizeof adv->arr_why, "Your hand now forms %s.", buf);
    int take = 0;
    pick p;
    memset(&p, 0, sizeof p);
    /* help mode speaks to the player ("Take the 7 of hearts from the discard
     * pile: ..."), the bot's reasoning of it without a subject ("takes the 7
     * of hearts ...": whoever shows it names the seat) */
    const char *hd = hint ? "your hand" : "the hand";
    char head[80];
    if (t) {
        fc_card_name(t, tn, sizeof tn);
        uint8_t h[FC_HANDMAX];
        memcpy(h, o->hand, (size_t)o->nhand);
        h[o->nhand] = (uint8_t)t;
        choose_discard(o, h, o->nhand + 1, wild, exact, 1, 0, &p, 0);
        if (!exact)
            cur += T_risk * (o->round_turns / o->np) * risk_pts(&now, wild) / 100;
        int gain = cur - (p.score - p.risk - p.la);
        if (!exact && p.card != t && (fc_is_wild(t, wild) || p.go))
            take = 1;
        else if (!exact && p.card != t && o->can_draw)
            take = learnt_take(o, now.points, gain, &p, h);
        if (exact) {
            /* the last turn: the top against the average blind draw */
            uint8_t cnt[FC_NTYPES + 1];
            int tot = unseen(o, cnt);
            take = p.card != t && 100 * p.pts < expect_draw(o->hand, o->nhand, wild, cnt, tot, 0);
        }
        if (!o->can_draw)
            take = 1;
    }
    if (take) {
        adv->play = (fc_play){FC_PLAY_DRAW_DISCARD, 0, 0};
        adv->draw_source = FC_PLAY_DRAW_DISCARD;
        snprintf(head, sizeof head, "%s the %s from the discard pile", hint ? "Take" : "takes", tn);
        int g = group_of(&p.after, t);
        /* the top has a partner among the cards left over (half a run or book) */
        int pairs = g < 0 && partner(t, p.after.left, p.after.nleft, wild);
        if (!o->can_draw && !(p.score < cur))
            snprintf(adv->why, sizeof adv->why, "%s: the draw pile is empty.", head);
        else if (p.go && !o->last_turn)
            snprintf(adv->why, sizeof adv->why, "%s: with it %s can go out after discarding the %s.", head, hd,
                     (fc_card_name(p.card, buf, sizeof buf), buf));
        else if (fc_is_joker(t) || fc_rank(t) == wild)
            snprintf(adv->why, sizeof adv->why, "%s: it is %s: it can stand in for any card in a run or book.", head,
                     fc_is_joker(t) ? "a joker" : "wild this round");
        else if (g >= 0) {
            fc_group_text(&p.after.g[g], wild, buf, sizeof buf);
            snprintf(adv->why, sizeof adv->why, "%s: it completes %s.", head, buf);
        } else if (pairs && p.after.points < now.points)
            snprintf(adv->why, sizeof adv->why,
                     "%s: it pairs with cards in %s toward a run or book, lowering the count of %s from %d to %d points.",
                     head, hd, hd, now.points, p.after.points);
        else if (pairs)
            snprintf(adv->why, sizeof adv->why, "%s: it pairs with cards in %s toward a run or book.", head, hd);
        else if (p.after.points < now.points)
            snprintf(adv->why, sizeof adv->why, "%s: it lowers the count of %s from %d to %d points.", head, hd,
                     now.points, p.after.points);
        else
            snprintf(adv->why, sizeof adv->why, "%s: it is worth more to %s than a blind draw on average.", head, hd);
    } else {
        adv->play = (fc_play){FC_PLAY_DRAW_PILE, 0, 0};
        adv->draw_source = FC_PLAY_DRAW_PILE;
        snprintf(head, sizeof head, "%s from the draw pile", hint ? "Draw" : "draws");
        if (!t)
            snprintf(adv->why, sizeof adv->why, "%s: the discard pile is empty.", head);
        else if (p.card == t || (p.score >= cur && !fc_is_wild(t, wild)))
            snprintf(adv->why, sizeof adv->why, "%s: the %s on the discard pile fits no run or book in %s%s.", head, tn,
                     hd, exact ? " and would not lower its points" : " better than the cards already there");
        else
            snprintf(adv->why, sizeof adv->why, "%s: the %s on the discard pile would not help.", head, tn);
    }
}

static void strategy_discard(const fc_obs *o, int hint, fc_advice *adv)
{
    int wild = o->wild, exact = o->last_turn;
    char dn[40], at[300];
    pick p;
    memset(&p, 0, sizeof p);
    choose_discard(o, o->hand, o->nhand, wild, exact, !o->last_turn, 1, &p, 1);
    fc_arr before;
    fc_arrange(o->hand, o->nhand, wild, &before);
    fc_card_name(p.card, dn, sizeof dn);
    adv->discard = p.card;
    adv->go_out = p.go;
    adv->arr = p.after;
    adv->play = (fc_play){FC_PLAY_DISCARD, (uint8_t)p.card, (uint8_t)p.go};
    fc_arr_text(&p.after, wild, at, sizeof at);
    snprintf(adv->arr_why, sizeof adv->arr_why, "%s %s.", hint ? "Arrange your hand as" : "It lays out", at);
    const char *hd = hint ? "your hand" : "the hand";
    char head[80];
    snprintf(head, sizeof head, "%s the %s%s", hint ? "Discard" : "discards", dn,
             !p.go ? "" : hint ? " and go out" : " and goes out");
    if (p.go) {
        snprintf(adv->why, sizeof adv->why, "%s: the rest of %s forms %s.", head, hd, at);
        snprintf(adv->go_out_why, sizeof adv->go_out_why,
                 "Go out now: after discarding the %s every card is in a run or book, so %s scores 0.", dn, hd);
        return;
    }
    if (o->last_turn)
        snprintf(adv->go_out_why, sizeof adv->go_out_why,
                 "Player %d has already gone out: this is %s last turn, and %s is laid out after it.",
                 o->out_seat + 1, hint ? "your" : "the", hd);
    else
        snprintf(adv->go_out_why, sizeof adv->go_out_why,
                 "Do not go out yet: no discard leaves every card in a run or book (the best leaves %d points).",
                 p.after.points);
    if (o->last_turn) {
        snprintf(adv->why, sizeof adv->why,
                 "%s: this is the last turn after player %d went out, and it is the card that leaves the fewest points (%d) in %s.",
                 head, o->out_seat + 1, p.after.points, hd);
        return;
    }
    int highest = 1, isolated = !partner(p.card, before.left, before.nleft, wild);
    for (int i = 0; i < before.nleft; i++)
        if (!fc_is_wild(before.left[i], wild) && fc_value(before.left[i], wild) > fc_value(p.card, wild))
            highest = 0;
    if (in_left(&before, p.card) && isolated && highest)
        snprintf(adv->why, sizeof adv->why, "%s: it is the highest card that fits no run or book.", head);
    else if (in_left(&before, p.card) && isolated)
        snprintf(adv->why, sizeof adv->why,
                 "%s: it fits no run or book, nor half of one, and the higher cards are closer to one.", head);
    else if (in_left(&before, p.card))
        snprintf(adv->why, sizeof adv->why,
                 "%s: it fits no run or book and the cards kept are closer to completing one.", head);
    else
        snprintf(adv->why, sizeof adv->why, "%s: it is the card %s misses least: the rest still forms %s.", head,
                 hd, at);
    /* how the wilds are used */
    for (int g = 0; g < p.after.ngroups; g++)
        for (int j = 0; j < p.after.g[g].n; j++)
            if (fc_is_wild(p.after.g[g].cards[j], wild)) {
                char gt[200];
                size_t k = strlen(adv->why);
                fc_group_text(&p.after.g[g], wild, gt, sizeof gt);
                snprintf(adv->why + k, sizeof adv->why - k, " %s the wild cards in %s.",
                         hint ? "Use" : "It uses", gt);
                return;
            }
}

void fc_strategy(const fc_obs *o, int hint, fc_advice *adv)
{
    memset(adv, 0, sizeof *adv);
    if (o->phase == FC_PH_DRAW)
        strategy_draw(o, hint, adv);
    else
        strategy_discard(o, hint, adv);
}

/* --- greedy and random --------------------------------------------------------- */

void fc_greedy(const fc_obs *o, fc_play *out, char *why, size_t n)
{
    int wild = o->wild, t = o->disc_top;
    char nm[40];
    if (o->phase == FC_PH_DRAW) {
        int take = !o->can_draw;
        if (t && !take) {
            uint8_t h[FC_HANDMAX];
            memcpy(h, o->hand, (size_t)o->nhand);
            h[o->nhand] = (uint8_t)t;
            pick p;
            choose_discard(NULL, h, o->nhand + 1, wild, 1, 1, 0, &p, 0);
            take = p.card != t && p.pts < fc_arrange(o->hand, o->nhand, wild, NULL);
        }
        *out = (fc_play){(uint8_t)(take ? FC_PLAY_DRAW_DISCARD : FC_PLAY_DRAW_PILE), 0, 0};
        if (t)
            fc_card_name(t, nm, sizeof nm);
        if (take)
            snprintf(why, n, "takes the %s from the discard pile: it lowers the points in the hand now.", nm);
        else
            snprintf(why, n, "draws from the draw pile: the %s would not lower the points in the hand now.",
                     t ? nm : "(empty) discard pile");
        return;
    }
    pick p;
    choose_discard(NULL, o->hand, o->nhand, wild, 1, !o->last_turn, 0, &p, 0);
    *out = (fc_play){FC_PLAY_DISCARD, (uint8_t)p.card, (uint8_t)p.go};
    fc_card_name(p.card, nm, sizeof nm);
    snprintf(why, n, "discards the %s%s: that leaves the fewest points (%d) in the hand.", nm,
             p.go ? " and goes out" : "", p.pts);
}

void fc_random(const fc_obs *o, rng *r, fc_play *out, char *why, size_t n)
{
    char nm[40];
    if (o->phase == FC_PH_DRAW) {
        int src;
        if (!o->disc_top)
            src = FC_PLAY_DRAW_PILE;
        else if (!o->can_draw)
            src = FC_PLAY_DRAW_DISCARD;
        else
            src = rng_below(r, 2) ? FC_PLAY_DRAW_DISCARD : FC_PLAY_DRAW_PILE;
        *out = (fc_play){(uint8_t)src, 0, 0};
        if (src == FC_PLAY_DRAW_DISCARD)
            fc_card_name(o->disc_top, nm, sizeof nm);
        if (src == FC_PLAY_DRAW_DISCARD)
            snprintf(why, n, "takes the %s from the discard pile by chance.", nm);
        else
            snprintf(why, n, "draws from the draw pile by chance.");
        return;
    }
    fc_play all[2 * FC_HANDMAX];
    int k = 0;
    uint8_t seen[FC_NTYPES + 1] = {0};
    for (int i = 0; i < o->nhand; i++) {
        int c = o->hand[i];
        if (seen[c])
            continue;
        seen[c] = 1;
        all[k++] = (fc_play){FC_PLAY_DISCARD, (uint8_t)c, 0};
        if (!o->last_turn) {
            uint8_t h[FC_HANDMAX];
            int m = o->nhand;
            memcpy(h, o->hand, (size_t)m);
            fc_hand_remove(h, &m, c);
            if (fc_arrange(h, m, o->wild, NULL) == 0)
                all[k++] = (fc_play){FC_PLAY_DISCARD, (uint8_t)c, 1};
        }
    }
    *out = all[rng_below(r, (uint32_t)k)];
    fc_card_name(out->card, nm, sizeof nm);
    snprintf(why, n, "discards the %s%s by chance.", nm, out->go_out ? " and goes out" : "");
}
