/* pz_plan.c: the "planner" strategy, greedy's successor (docs/research/phazed-bots.md).
 *
 * It chooses from a pz_obs (what its seat may see) plus o->took, the
 * discard pick-ups of this hand that turn_history shows (pz_obs_history;
 * left empty by the /play autograder function). A game is won by the only
 * player to finish all seven phases far more often than on points, so
 * everything aims at phasing sooner and going out sooner:
 * - before its phase, it takes the discard only when keeping it beats the
 *   average unseen card from the deck (set and run phases; in the bonus
 *   game the set and run phases still to play, the accumulations left
 *   out; only accumulations: greedy's rule), and lets go the card whose
 *   loss costs the least closeness plus outs (the closeness each unseen
 *   card would add; for phase 7 a card counts for the run or the set, not
 *   both; for phase 6 the two accumulations may differ in colour);
 * - it never discards a card the next player can place (their phase down)
 *   or of a rank they took from the discard pile this hand, when another
 *   card will do;
 * - of the phase plays it can make, it plays the one that leaves the
 *   fewest cards once every placement is made (bonus: the hardest phase
 *   first; the easy ones come more easily in a later hand);
 * - after its phase, as greedy: sheds the costliest card it can place,
 *   takes the discard when it can place it, discards the costliest card.
 * Placements are judged one at a time (no list of legal plays), so the
 * stack holds a few pz_obs copies and at most 16 phase plays.
 */
#include "pz.h"

#include <stdio.h>
#include <string.h>

/* How hard a phase is (index: phase id), by how rarely greedy bots complete
 * it in a standard hand (4: 34%, 7: 49%, 2: 55%, 6: 69%, 5: 73%, 3: 84%,
 * 1: 85%): in the bonus game, of the phases it could play now it plays the
 * hardest. */
static const int HARDNESS[PZ_NPHASES + 1] = {0, 0, 4, 1, 6, 2, 3, 5};

static int imin(int a, int b) { return a < b ? a : b; }

/* pz__closeness, except that
 * - for phase 7 (a run of four of one colour and a set of four) a card
 *   counts for the run or the set, not both;
 * - for phase 6 the two 34-accumulations are each of one colour but need
 *   not match (the reference: "the two accumulations do not have to match
 *   in colour"): the sum counted is the best of black alone, red alone,
 *   and black up to 34 plus red up to 34, where greedy's counts only the
 *   larger colour. */
static int closeness(const uint8_t *h, int n, int ph)
{
    if (ph == 6) {
        int c = pz__closeness(h, n, 6), b = 0, r = 0;
        if (c >= 1000)
            return c;
        for (int i = 0; i < n; i++)
            if (h[i] != PZ_JOKER) {
                if (pz_black(h[i]))
                    b += pz_accval(h[i]);
                else
                    r += pz_accval(h[i]);
            }
        int sb = imin(b, 68), sr = imin(r, 68), sm = imin(b, 34) + imin(r, 34);
        int sv = sb > sr ? sb : sr;
        sv = sm > sv ? sm : sv;
        return (c >= 500 ? 500 : 0) + sv * 400 / 68;
    }
    if (ph != 7)
        return pz__closeness(h, n, ph);
    int W = 0, rc[15] = {0}, cr[3][15] = {{0}};
    for (int i = 0; i < n; i++) {
        if (h[i] == PZ_JOKER)
            continue;
        if (pz_wild(h[i])) {
            W++;
            continue;
        }
        rc[pz_rank(h[i])]++;
        cr[pz_black(h[i]) ? 1 : 2][pz_rank(h[i])]++;
    }
    int best = 0;
    for (int col = 1; col <= 2; col++)
        for (int s = 2; s <= 13; s++) {
            int cov = 0;
            for (int i = 0; i < 4; i++)
                cov += cr[col][(s - 2 + i) % 12 + 2] > 0;
            for (int r = 2; r <= 13; r++) {
                int in = (r - s + 12) % 12 < 4 && cr[col][r] > 0;
                for (int opt = 0; opt <= in; opt++) {
                    int run = cov - opt, set = rc[r] - (in && !opt);
                    run = run < 4 ? run : 4;
                    set = set < 4 ? set : 4;
                    int t = run + set + W;
                    int v = (t < 8 ? t : 8) * 1000 / 8 + run + set;
                    best = v > best ? v : best;
                }
            }
        }
    return best;
}

/* Closeness to the phases still required (0..1000, scaled by 128), plus
 * for the set and run phases the outs: the closeness each unseen card kind
 * would add, weighted by its copies that may still come (2 per natural
 * less those in the hand, 8 for the Wild). */
static int value_of(const pz_obs *o, const uint8_t *h, int n)
{
    int best = 0;
    uint8_t x[PZ_HMAX + 2];
    if (n > PZ_HMAX + 1)
        n = PZ_HMAX + 1;
    memcpy(x, h, (size_t)n);
    for (int ph = 1; ph <= PZ_NPHASES; ph++)
        if (pz_required(o, ph)) {
            int base = closeness(h, n, ph), outs = 0;
            if (ph != 3 && ph != 6 && base < 1000)
                for (int card = 1; card <= pz_card(14, 0); card++) {
                    int seen = 0;
                    for (int i = 0; i < n; i++)
                        seen += h[i] == card;
                    if (seen >= 2 && !pz_wild(card))
                        continue;
                    x[n] = (uint8_t)card;
                    int up = closeness(x, n + 1, ph) - base;
                    outs += up > 0 ? up * (pz_wild(card) ? 8 : 2 - seen) : 0;
                }
            int c = base * 128 + outs / 16;
            best = c > best ? c : best;
        }
    return best;
}

/* 1 when the next player (who may take the discard) wants card: their
 * phase is down and they could place it now, or it is not and they took a
 * card of its rank from the discard pile this hand (o->took). Public: it
 * reads the table, the phases done and the hand's pick-ups only. */
int pz__feeds_next(const pz_obs *o, int card)
{
    int nx = (o->seat + 1) % o->np;
    if (card == PZ_JOKER)
        return 0;
    if (!o->t.phase[nx])
        return !pz_wild(card) && (!o->variant && o->status[nx] + 1 == 2
                                      ? (o->took_suit[nx] >> pz_suit(card)) & 1
                                      : (o->took[nx] >> pz_rank(card)) & 1);
    pz_obs x = *o;
    x.seat = nx;
    return pz__can_place(&x, card);
}

/* h[0..n) without h[i] into tmp (PZ_HMAX + 2 cards): its length, or -1
 * when h[i] need not be weighed (a Skip, or a second copy of an earlier
 * card, which scores as the first). */
static int without(const uint8_t *h, int n, int i, uint8_t *tmp)
{
    for (int j = 0; j < i; j++)
        if (h[j] == h[i])
            return -1;
    if (h[i] == PZ_JOKER)
        return -1;
    int m = 0;
    for (int j = 0; j < n && m < PZ_HMAX + 2; j++)
        if (j != i)
            tmp[m++] = h[j];
    return m;
}

/* The card to let go before the phase: the one whose loss costs the least
 * value (Wilds kept), never one the next player wants when another will
 * do, then the most points. */
static int pre_discard(const pz_obs *o, const uint8_t *h, int n, int *value_after)
{
    int best = -1, bestv = 0;
    uint8_t tmp[PZ_HMAX + 2];
    for (int i = 0; i < n; i++) {
        int m = without(h, n, i, tmp);
        if (m < 0)
            continue;
        int v = value_of(o, tmp, m), pts = pz_card_points(h[i]);
        if (pz_wild(h[i]))
            v -= 30 * 128;
        int score = v * 32 + pts;
        if (pz__feeds_next(o, h[i]))
            score -= 100000; /* a fraction of one card's closeness */
        if (best < 0 || score > bestv) {
            best = i;
            bestv = score;
            if (value_after)
                *value_after = v;
        }
    }
    return best;
}

static int best_place(const pz_obs *o, pz_play *out);

/* Only discard pick-ups: their card is public in turn_history. */
void pz_obs_history(const pz_state *st, pz_obs *o)
{
    memset(o->took, 0, sizeof o->took);
    memset(o->took_suit, 0, sizeof o->took_suit);
    for (int i = st->hand_log; i < st->nlog; i++) {
        const pz_log *l = &st->log[i];
        if (l->type != PZ_PICK_DISCARD || l->seat >= PZ_MAXP || !l->card || l->card == PZ_JOKER)
            continue;
        o->took[l->seat] |= (uint16_t)(1u << pz_rank(l->card));
        o->took_suit[l->seat] |= (uint8_t)(1u << pz_suit(l->card));
    }
}

/* The best phase play now: the fewest cards (then points) left once every
 * placement is made; bonus: the hardest phase first. In the bonus game the
 * finder is asked phase by phase, so that candidates of an easy phase do
 * not crowd out a hard one. */
static int best_phase(const pz_obs *o, pz_play *out)
{
    pz_play c[16];
    int n = 0, best = -1, bv = 0;
    if (!o->variant) {
        n = pz_find_phases(o, c, 16);
    } else {
        pz_obs one = *o;
        for (int ph = 1; ph <= PZ_NPHASES && n < 16; ph++) {
            if (!pz_required(o, ph))
                continue;
            one.status[o->seat] = (uint8_t)(PZ_ALLPHASES & ~(1u << (ph - 1)));
            n += pz_find_phases(&one, c + n, 16 - n < 4 ? 16 - n : 4);
        }
    }
    for (int i = 0; i < n; i++) {
        pz_obs x = *o;
        pz_play pl;
        pz_obs_do(&x, &c[i]);
        for (int k = 0; k < PZ_HMAX && x.nhand > 0 && best_place(&x, &pl); k++)
            pz_obs_do(&x, &pl);
        int v = (o->variant ? HARDNESS[c[i].phase] * 100000 : 0) - x.nhand * 1000 -
                pz_hand_points(x.hand, x.nhand);
        if (best < 0 || v > bv) {
            bv = v;
            best = i;
        }
    }
    if (best >= 0)
        *out = c[best];
    return best >= 0;
}

/* The placement that sheds the most points (0 when none). */
static int best_place(const pz_obs *o, pz_play *out)
{
    int bv = -1;
    for (int i = 0; i < o->nhand; i++) {
        int c = o->hand[i], dup = 0;
        for (int j = 0; j < i; j++)
            dup |= o->hand[j] == c;
        if (dup || c == PZ_JOKER)
            continue;
        for (int q = 0; q < o->np; q++)
            for (int g = 0; g < o->t.ng[q] && o->t.phase[q]; g++) {
                int kind = pz_group_kind(o->t.phase[q], g), len = o->t.g[q][g].n;
                for (int e = 0; e < 2; e++) {
                    if (e == 0 && kind != PZ_K_RUN && kind != PZ_K_CRUN)
                        continue;
                    pz_play p;
                    memset(&p, 0, sizeof p);
                    p.type = PZ_PLACE;
                    p.card = (uint8_t)c;
                    p.pid = (uint8_t)q;
                    p.grp = (uint8_t)g;
                    p.idx = (uint8_t)(e ? len : 0);
                    int v = pz_card_points(c) * 4 + (kind == PZ_K_ACC || kind == PZ_K_CACC);
                    if (v > bv && pz_judge(o, &p, NULL, 0, NULL)) {
                        bv = v;
                        *out = p;
                    }
                }
            }
    }
    return bv >= 0;
}

static int holds(const pz_obs *o, int card)
{
    for (int i = 0; i < o->nhand; i++)
        if (o->hand[i] == card)
            return 1;
    return 0;
}

/* closeness (no outs) to the set and run phases required, of h after
 * letting go its least useful card */
static int keep_value(const pz_obs *o, const uint8_t *h, int n)
{
    uint8_t tmp[PZ_HMAX + 2];
    int best = -(1 << 30);
    for (int i = 0; i < n; i++) {
        int m = without(h, n, i, tmp);
        if (m < 0)
            continue;
        int v = 0;
        for (int ph = 1; ph <= PZ_NPHASES; ph++)
            if (pz_required(o, ph) && ph != 3 && ph != 6) {
                int c = closeness(tmp, m, ph);
                v = c > v ? c : v;
            }
        if (pz_wild(h[i]))
            v -= 30;
        best = v > best ? v : best;
    }
    return best;
}

/* How many copies of card may still come from the deck (2 of each natural,
 * 8 Wilds), less those in sight. */
static int unseen(const pz_obs *o, int card)
{
    int k = pz_wild(card) ? 8 : 2;
    for (int i = 0; i < o->nhand; i++)
        k -= pz_wild(card) ? pz_wild(o->hand[i]) : o->hand[i] == card;
    for (int q = 0; q < o->np; q++)
        for (int g = 0; g < o->t.ng[q] && o->t.phase[q]; g++)
            for (int i = 0; i < o->t.g[q][g].n; i++)
                k -= pz_wild(card) ? pz_wild(o->t.g[q][g].c[i]) : o->t.g[q][g].c[i] == card;
    k -= o->discard == card;
    return k > 0 ? k : 0;
}

/* 1 when taking the discard beats the average deck draw: the closeness
 * kept after letting go the least useful card, with d against the mean
 * over the unseen cards, for the set and run phases (accumulations: too
 * slow to average). *known = 0, the caller decides, when an accumulation
 * phase is required, except in the bonus game while a set or run phase
 * is required too: there the comparison leaves the accumulations out. */
static int discard_beats_deck(const pz_obs *o, int d, int *known)
{
    int acc = 0, other = 0;
    *known = 0;
    for (int ph = 1; ph <= PZ_NPHASES; ph++)
        if (pz_required(o, ph)) {
            acc += ph == 3 || ph == 6;
            other += ph != 3 && ph != 6;
        }
    if (acc && !(o->variant && other))
        return 0;
    *known = 1;
    uint8_t h[PZ_HMAX + 2];
    int n = o->nhand < PZ_HMAX ? o->nhand : PZ_HMAX;
    memcpy(h, o->hand, (size_t)n);
    h[n] = (uint8_t)d;
    int vd = keep_value(o, h, n + 1);
    long sum = 0, w = 0;
    for (int card = 1; card <= 49; card++) {
        int k = unseen(o, card);
        if (!k)
            continue;
        h[n] = (uint8_t)card;
        sum += (long)k * keep_value(o, h, n + 1);
        w += k;
    }
    return w && (long)vd * w > sum;
}

static void pick_up(const pz_obs *o, pz_play *out, char *why, size_t whylen)
{
    int d = o->discard, take = 0;
    const char *reason = "";
    if (d && d != PZ_JOKER) {
        if (!o->t.phase[o->seat]) {
            pz_obs x = *o;
            x.hand[x.nhand++] = (uint8_t)d;
            x.mid = 1;
            pz_play ph;
            int after = 0, known = 0;
            if (pz_find_phases(&x, &ph, 1)) {
                take = 1;
                reason = "it completes its phase";
            } else if (discard_beats_deck(o, d, &known)) {
                take = 1;
                reason = "it helps its phase more than the average card from the deck";
            } else if (!known) { /* accumulations: greedy's rule */
                int w = pre_discard(o, x.hand, x.nhand, &after);
                if (w >= 0 && x.hand[w] != d && after > value_of(o, o->hand, o->nhand)) {
                    take = 1;
                    reason = "it brings its phase closer";
                }
            }
        } else if (pz__can_place(o, d)) {
            take = 1;
            reason = "it goes on the table at once";
        }
    }
    pz__pick(o, take, reason, out, why, whylen);
}

void pz_plan(const pz_obs *o, pz_play *out, char *why, size_t whylen)
{
    int me = o->seat;
    char buf[200];
    memset(out, 0, sizeof *out);
    if (!o->mid) {
        pick_up(o, out, why, whylen);
        if (!pz_judge(o, out, NULL, 0, NULL))
            pz__fallback(o, out, why, whylen);
        return;
    }
    if (!o->t.phase[me]) {
        if (best_phase(o, out)) {
            pz_play_text(out, buf, sizeof buf);
            snprintf(why, whylen, "%s (as soon as it is complete%s)", buf,
                     o->variant ? ", the hardest phase it can play" : "");
            return;
        }
    } else if (best_place(o, out)) {
        pz_play_text(out, buf, sizeof buf);
        snprintf(why, whylen, "%s to shed %d points", buf, pz_card_points(out->card));
        return;
    }
    memset(out, 0, sizeof *out);
    if (o->variant && holds(o, PZ_JOKER)) {
        int t = pz__skip_target(o);
        if (t >= 0) {
            out->type = PZ_SKIP;
            out->target = (uint8_t)t;
            snprintf(why, whylen, "plays a Skip on player %d, the closest to finishing", t + 1);
            if (pz_judge(o, out, NULL, 0, NULL))
                return;
        }
    }
    int w = -1;
    if (!o->t.phase[me]) {
        w = pre_discard(o, o->hand, o->nhand, NULL);
        if (w >= 0)
            snprintf(why, whylen, "discards %s: the card its phase needs least%s", pz_card_name(o->hand[w]),
                     pz__feeds_next(o, o->hand[w]) ? "" : " and the next player does not want");
    } else {
        int bv = -1;
        for (int i = 0; i < o->nhand; i++) {
            if (o->hand[i] == PZ_JOKER)
                continue;
            int v = pz_card_points(o->hand[i]) + (pz__feeds_next(o, o->hand[i]) ? 0 : 100);
            if (v > bv) {
                bv = v;
                w = i;
            }
        }
        if (w >= 0)
            snprintf(why, whylen, "discards %s: the costliest card %s", pz_card_name(o->hand[w]),
                     bv >= 100 ? "the next player cannot place" : "that fits no group");
    }
    if (w >= 0) {
        out->type = PZ_DISCARD;
        out->card = o->hand[w];
    }
    if (!out->type || !pz_judge(o, out, NULL, 0, NULL))
        pz__fallback(o, out, why, whylen);
}
