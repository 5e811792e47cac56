/* pz_bots.c: the strategies and their phase finder. The strategies choose
 * from a pz_obs, i.e. only what the seat may see (the same information the
 * /play autograder function gets).
 *
 * Phase finder (the bots' short list; the rules' pz_phase_each walks every
 * legal phase play, and each candidate here is put in pz_phase_canon's
 * order, so that it is exactly one of those): for each phase the player may
 * play now, builds candidate phases from the hand (sets by value / suit
 * with Wilds filling, runs by start value, accumulations by enumerating
 * 34-subsets and pairing disjoint ones), best first (most penalty points
 * shed, naturals preferred to Wilds).
 * "greedy" (the first planner, kept unchanged as a yardstick; today's
 * "planner" is pz_plan.c):
 * before its phase, keeps the cards that bring the phase closest
 * (a closeness score per phase type) and takes the discard only when it
 * helps; plays its phase as soon as it can; then sheds every card it can
 * place (highest penalty first, starting an accumulation target only with
 * a subset of its cards that reaches it), and discards the card worth the
 * most points that it cannot use; in the bonus game a Joker is always played
 * as a Skip on the opponent closest to finishing.
 * "random": uniform over the play types available, then uniform over the
 * legal plays of that type (pz_gen's: every phase play up to PZ_MAXLEGAL).
 */
#include "pz.h"

#include <stdio.h>
#include <string.h>

enum { MAXCAND = 64 };

typedef struct cand {
    pz_play p;
    int score;
} cand;

static int rank_of_idx(int c) { return pz_rank(c); }

/* indexes of naturals of rank r (and colour col: 0 any, 1 black, 2 red), not used[] */
static int pick_natural(const uint8_t *h, int n, const uint8_t *used, int r, int col)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (used[i] || h[i] == PZ_JOKER || pz_wild(h[i]) || rank_of_idx(h[i]) != r)
            continue;
        if (col && (pz_black(h[i]) ? 1 : 2) != col)
            continue;
        best = i;
        break;
    }
    return best;
}

static int pick_wild(const uint8_t *h, int n, const uint8_t *used)
{
    for (int i = 0; i < n; i++)
        if (!used[i] && pz_wild(h[i]))
            return i;
    return -1;
}

static int group_points(const pz_play *p)
{
    int s = 0;
    for (int k = 0; k < p->ng; k++)
        for (int i = 0; i < p->gn[k]; i++)
            s += pz_wild(p->gc[k][i]) ? 6 : pz_card_points(p->gc[k][i]);
    return s;
}

static void add_cand(cand *cs, int *nc, const pz_play *found)
{
    if (*nc >= MAXCAND)
        return;
    pz_play c = *found, *p = &c;
    pz_phase_canon(p); /* as /legal lists it */
    for (int i = 0; i < *nc; i++)
        if (memcmp(&cs[i].p, p, sizeof *p) == 0)
            return;
    cs[*nc].p = *p;
    cs[*nc].score = group_points(p);
    (*nc)++;
}

/* A set of k cards of rank r (or suit s when r == 0) into group g; 0 if impossible. */
static int build_set(const uint8_t *h, int n, uint8_t *used, pz_play *p, int g, int k, int r, int s)
{
    int nat = 0;
    p->gn[g] = 0;
    /* naturals first, highest points first for suit sets */
    for (int pass = 14; pass >= 2 && p->gn[g] < k; pass--)
        for (int i = 0; i < n && p->gn[g] < k; i++) {
            int c = h[i];
            if (used[i] || c == PZ_JOKER || pz_wild(c) || pz_rank(c) != pass)
                continue;
            if (r ? pz_rank(c) != r : pz_suit(c) != s)
                continue;
            used[i] = 1;
            p->gc[g][p->gn[g]++] = (uint8_t)c;
            nat++;
        }
    if (nat < 2)
        return 0;
    while (p->gn[g] < k) {
        int w = pick_wild(h, n, used);
        if (w < 0)
            return 0;
        used[w] = 1;
        p->gc[g][p->gn[g]++] = h[w];
    }
    return 1;
}

/* A run of k from `start` (colour col) into group g. */
static int build_run(const uint8_t *h, int n, uint8_t *used, pz_play *p, int g, int k, int start, int col)
{
    int nat = 0;
    p->gn[g] = 0;
    for (int i = 0; i < k; i++) {
        int want = (start - 2 + i) % 12 + 2;
        int j = pick_natural(h, n, used, want, col);
        if (j < 0)
            j = pick_wild(h, n, used);
        else
            nat++;
        if (j < 0)
            return 0;
        used[j] = 1;
        p->gc[g][p->gn[g]++] = h[j];
    }
    return nat >= 2;
}

static void find_sets(const uint8_t *h, int n, int phase, int k, cand *cs, int *nc)
{
    for (int r1 = 2; r1 <= 13; r1++)
        for (int r2 = r1; r2 <= 13; r2++) {
            uint8_t used[PZ_NCARDS] = {0};
            pz_play p;
            memset(&p, 0, sizeof p);
            p.type = PZ_PHASE;
            p.phase = (uint8_t)phase;
            p.ng = 2;
            if (build_set(h, n, used, &p, 0, k, r1, 0) && build_set(h, n, used, &p, 1, k, r2, 0))
                add_cand(cs, nc, &p);
        }
}

static void find_suit(const uint8_t *h, int n, cand *cs, int *nc)
{
    for (int s = 0; s < 4; s++) {
        uint8_t used[PZ_NCARDS] = {0};
        pz_play p;
        memset(&p, 0, sizeof p);
        p.type = PZ_PHASE;
        p.phase = 2;
        p.ng = 1;
        if (build_set(h, n, used, &p, 0, 7, 0, s))
            add_cand(cs, nc, &p);
    }
}

static void find_run8(const uint8_t *h, int n, cand *cs, int *nc)
{
    for (int s = 2; s <= 13; s++) {
        uint8_t used[PZ_NCARDS] = {0};
        pz_play p;
        memset(&p, 0, sizeof p);
        p.type = PZ_PHASE;
        p.phase = 5;
        p.ng = 1;
        if (build_run(h, n, used, &p, 0, 8, s, 0))
            add_cand(cs, nc, &p);
    }
}

static void find_p7(const uint8_t *h, int n, cand *cs, int *nc)
{
    for (int col = 1; col <= 2; col++)
        for (int s = 2; s <= 13; s++)
            for (int r = 2; r <= 13; r++) {
                uint8_t used[PZ_NCARDS] = {0};
                pz_play p;
                memset(&p, 0, sizeof p);
                p.type = PZ_PHASE;
                p.phase = 7;
                p.ng = 2;
                if (build_run(h, n, used, &p, 0, 4, s, col) && build_set(h, n, used, &p, 1, 4, r, 0))
                    add_cand(cs, nc, &p);
            }
}

/* Subsets (bitmasks over the first m cards) summing to 34; colour: all one colour. */
static int acc_subsets(const uint8_t *h, int m, int colour, unsigned *out, int max)
{
    int k = 0;
    for (unsigned mask = 1; mask < (1u << m) && k < max; mask++) {
        int s = 0, blk = 0, red = 0;
        for (int i = 0; i < m && s <= 34; i++)
            if (mask & (1u << i)) {
                if (h[i] == PZ_JOKER) {
                    s = 99;
                    break;
                }
                s += pz_accval(h[i]);
                blk += pz_black(h[i]);
                red += !pz_black(h[i]);
            }
        if (s == 34 && (!colour || !blk || !red))
            out[k++] = mask;
    }
    return k;
}

static void find_accs(const uint8_t *h, int n, int phase, cand *cs, int *nc)
{
    int m = n < 14 ? n : 14;
    static const int MAXSUB = 600;
    unsigned subs[600];
    int ns = acc_subsets(h, m, phase == 6, subs, MAXSUB);
    for (int a = 0; a < ns && *nc < MAXCAND; a++)
        for (int b = a + 1; b < ns && *nc < MAXCAND; b++) {
            if (subs[a] & subs[b])
                continue;
            pz_play p;
            memset(&p, 0, sizeof p);
            p.type = PZ_PHASE;
            p.phase = (uint8_t)phase;
            p.ng = 2;
            unsigned ms[2] = {subs[a], subs[b]};
            for (int g = 0; g < 2; g++)
                for (int i = 0; i < m; i++)
                    if (ms[g] & (1u << i))
                        p.gc[g][p.gn[g]++] = h[i];
            add_cand(cs, nc, &p);
        }
}

int pz_find_phases(const pz_obs *o, pz_play *out, int max)
{
    static const int KEEP = MAXCAND;
    cand cs[MAXCAND];
    int nc = 0;
    (void)KEEP;
    if (o->t.phase[o->seat] || max <= 0)
        return 0;
    for (int ph = 1; ph <= PZ_NPHASES; ph++) {
        if (!pz_required(o, ph))
            continue;
        switch (ph) {
        case 1: find_sets(o->hand, o->nhand, 1, 3, cs, &nc); break;
        case 2: find_suit(o->hand, o->nhand, cs, &nc); break;
        case 3: find_accs(o->hand, o->nhand, 3, cs, &nc); break;
        case 4: find_sets(o->hand, o->nhand, 4, 4, cs, &nc); break;
        case 5: find_run8(o->hand, o->nhand, cs, &nc); break;
        case 6: find_accs(o->hand, o->nhand, 6, cs, &nc); break;
        default: find_p7(o->hand, o->nhand, cs, &nc); break;
        }
    }
    /* best first (stable selection) */
    int k = 0;
    uint8_t taken[MAXCAND] = {0};
    while (k < max) {
        int best = -1;
        for (int i = 0; i < nc; i++)
            if (!taken[i] && (best < 0 || cs[i].score > cs[best].score))
                best = i;
        if (best < 0)
            break;
        taken[best] = 1;
        if (pz_judge(o, &cs[best].p, NULL, 0, NULL))
            out[k++] = cs[best].p;
    }
    return k;
}

/* --- closeness to a phase (planner) ----------------------------------------- */

static int count_wild(const uint8_t *h, int n)
{
    int w = 0;
    for (int i = 0; i < n; i++)
        w += pz_wild(h[i]);
    return w;
}

static int imin(int a, int b) { return a < b ? a : b; }

/* Closeness of hand h to phase `ph` in 0..1000. */
int pz__closeness(const uint8_t *h, int n, int ph)
{
    int W = count_wild(h, n), rc[15] = {0}, sc[4] = {0};
    for (int i = 0; i < n; i++)
        if (h[i] != PZ_JOKER && !pz_wild(h[i])) {
            rc[pz_rank(h[i])]++;
            sc[pz_suit(h[i])]++;
        }
    switch (ph) {
    case 1:
    case 4: {
        int k = ph == 1 ? 3 : 4, best = 0;
        for (int a = 2; a <= 13; a++)
            for (int b = a; b <= 13; b++) {
                int x, y;
                if (a == b) {
                    x = imin(k, rc[a]);
                    y = imin(k, rc[a] - x);
                } else {
                    x = imin(k, rc[a]);
                    y = imin(k, rc[b]);
                }
                int v = imin(2 * k, x + y + W) * 100 + x + y;
                best = v > best ? v : best;
            }
        return best * 1000 / (2 * k * 100 + 2 * k);
    }
    case 2: {
        int best = 0;
        for (int s = 0; s < 4; s++)
            best = sc[s] > best ? sc[s] : best;
        return imin(7, best + W) * 1000 / 7 + imin(best, 7);
    }
    case 5:
    case 7: {
        int k = ph == 5 ? 8 : 4, best = 0;
        for (int col = ph == 5 ? 0 : 1; col <= (ph == 5 ? 0 : 2); col++)
            for (int s = 2; s <= 13; s++) {
                int cov = 0;
                for (int i = 0; i < k; i++) {
                    int want = (s - 2 + i) % 12 + 2, have = 0;
                    for (int j = 0; j < n && !have; j++)
                        have = h[j] != PZ_JOKER && !pz_wild(h[j]) && pz_rank(h[j]) == want &&
                               (!col || (pz_black(h[j]) ? 1 : 2) == col);
                    cov += have;
                }
                best = cov > best ? cov : best;
            }
        if (ph == 5)
            return imin(8, best + W) * 1000 / 8 + best;
        int setb = 0;
        for (int r = 2; r <= 13; r++)
            setb = rc[r] > setb ? rc[r] : setb;
        return imin(8, imin(4, best) + imin(4, setb) + W) * 1000 / 8 + best + setb;
    }
    default: {
        uint8_t hh[PZ_NCARDS];
        int m = 0, sum[3] = {0, 0, 0};
        for (int i = 0; i < n; i++)
            if (h[i] != PZ_JOKER)
                hh[m++] = h[i];
        for (int i = 0; i < m; i++) {
            sum[0] += pz_accval(hh[i]);
            sum[pz_black(hh[i]) ? 1 : 2] += pz_accval(hh[i]);
        }
        if (m > 12)
            m = 12;
        unsigned subs[600];
        int ns = acc_subsets(hh, m, ph == 6, subs, 600), two = 0;
        for (int a = 0; a < ns && !two; a++)
            for (int b = a + 1; b < ns && !two; b++)
                two = !(subs[a] & subs[b]);
        if (two)
            return 1000;
        int s = ph == 6 ? (sum[1] > sum[2] ? sum[1] : sum[2]) : sum[0];
        return (ns ? 500 : 0) + imin(s, 68) * 400 / 68;
    }
    }
}

static int best_closeness(const pz_obs *o, const uint8_t *h, int n)
{
    int best = 0;
    for (int ph = 1; ph <= PZ_NPHASES; ph++)
        if (pz_required(o, ph)) {
            int c = pz__closeness(h, n, ph);
            best = c > best ? c : best;
        }
    return best;
}

/* The card to let go before the phase: the one whose loss hurts the least
 * (then the most points). Jokers are not candidates. */
static int worst_card(const pz_obs *o, const uint8_t *h, int n, int *value_after)
{
    int best = -1, bestv = -1, bestpts = -1;
    uint8_t tmp[PZ_NCARDS];
    for (int i = 0; i < n; i++) {
        if (h[i] == PZ_JOKER)
            continue;
        int m = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                tmp[m++] = h[j];
        int v = best_closeness(o, tmp, m), pts = pz_card_points(h[i]);
        if (pz_wild(h[i]))
            v -= 30; /* keep Wilds */
        if (v > bestv || (v == bestv && pts > bestpts)) {
            best = i;
            bestv = v;
            bestpts = pts;
        }
    }
    if (value_after)
        *value_after = bestv;
    return best;
}

/* --- the planner ------------------------------------------------------------- */

static int holds(const pz_obs *o, int card)
{
    for (int i = 0; i < o->nhand; i++)
        if (o->hand[i] == card)
            return 1;
    return 0;
}

int pz__can_place(const pz_obs *o, int card)
{
    for (int q = 0; q < o->np; q++)
        for (int g = 0; g < o->t.ng[q] && o->t.phase[q]; g++) {
            int kind = pz_group_kind(o->t.phase[q], g);
            if (kind == PZ_K_ACC || kind == PZ_K_CACC)
                continue;
            int n = o->t.g[q][g].n;
            if (pz_fits(&o->t, q, g, card, n) || pz_fits(&o->t, q, g, card, 0))
                return 1;
        }
    return 0;
}

int pz__skip_target(const pz_obs *o)
{
    int best = -1, bv = -1;
    for (int k = 1; k < o->np; k++) {
        int q = (o->seat + k) % o->np;
        int done = 0;
        for (int b = 0; b < PZ_NPHASES; b++)
            done += o->variant ? (o->status[q] >> b) & 1 : o->status[q] > b;
        int v = done * 16 + (o->hand_sizes[q] >= 0 ? 11 - o->hand_sizes[q] : 0);
        if (v > bv) {
            bv = v;
            best = q;
        }
    }
    return best;
}

void pz__pick(const pz_obs *o, int take, const char *reason, pz_play *out, char *why, size_t whylen)
{
    int d = o->discard;
    if (take) {
        out->type = PZ_PICK_DISCARD;
        out->card = (uint8_t)d;
        snprintf(why, whylen, "takes %s from the discard pile: %s", pz_card_name(d), reason);
    } else {
        out->type = PZ_PICK_DECK;
        snprintf(why, whylen, "draws from the deck: %s",
                 d == PZ_JOKER ? "a Skip on the discard pile cannot be taken"
                               : o->t.phase[o->seat] ? "the discard does not fit any group"
                                                     : "the discard does not help its phase");
    }
}

void pz__fallback(const pz_obs *o, pz_play *out, char *why, size_t whylen)
{
    static const int MAXL = 256;
    pz_play all[256];
    pz_obs lax = *o;
    int n = pz_gen(o, all, MAXL);
    if (!n) {
        lax.strict = 0;
        n = pz_gen(&lax, all, MAXL);
    }
    memset(out, 0, sizeof *out);
    if (n) {
        *out = all[0];
        snprintf(why, whylen, "the only kind of play left");
        return;
    }
    if (!o->mid) {
        out->type = PZ_PICK_DECK;
    } else {
        out->type = PZ_DISCARD;
        out->card = o->nhand ? o->hand[0] : 0;
    }
    snprintf(why, whylen, "no legal play found");
}

void pz_greedy(const pz_obs *o, pz_play *out, char *why, size_t whylen)
{
    int me = o->seat;
    char buf[200];
    memset(out, 0, sizeof *out);
    if (!o->mid) {
        int d = o->discard;
        int take = 0;
        const char *reason = "";
        if (d && d != PZ_JOKER) {
            if (!o->t.phase[me]) {
                pz_obs x = *o;
                x.hand[x.nhand++] = (uint8_t)d;
                x.mid = 1;
                pz_play ph;
                int after;
                if (pz_find_phases(&x, &ph, 1)) {
                    take = 1;
                    reason = "it completes its phase";
                } else {
                    int w = worst_card(o, x.hand, x.nhand, &after);
                    if (w >= 0 && x.hand[w] != d && after > best_closeness(o, o->hand, o->nhand)) {
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
        if (!pz_judge(o, out, NULL, 0, NULL))
            pz__fallback(o, out, why, whylen);
        return;
    }
    if (!o->t.phase[me]) {
        pz_play ph;
        if (pz_find_phases(o, &ph, 1)) {
            *out = ph;
            pz_play_text(&ph, buf, sizeof buf);
            snprintf(why, whylen, "%s (as soon as it is complete)", buf);
            return;
        }
    } else {
        /* shed: the placement of the card worth the most points */
        pz_play all[PZ_MAXLEGAL];
        int n = pz_gen(o, all, PZ_MAXLEGAL), best = -1, bv = -1;
        for (int i = 0; i < n; i++) {
            if (all[i].type != PZ_PLACE)
                continue;
            int v = pz_card_points(all[i].card) * 4;
            int kind = pz_group_kind(o->t.phase[all[i].pid], all[i].grp);
            if (kind == PZ_K_ACC || kind == PZ_K_CACC)
                v += 1; /* an accumulation, once started, must be finished: fine, it sheds */
            if (v > bv) {
                bv = v;
                best = i;
            }
        }
        if (best >= 0) {
            *out = all[best];
            pz_play_text(out, buf, sizeof buf);
            snprintf(why, whylen, "%s to shed %d points", buf, pz_card_points(out->card));
            return;
        }
    }
    /* end the turn */
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
    int w;
    if (!o->t.phase[me]) {
        w = worst_card(o, o->hand, o->nhand, NULL);
        if (w >= 0) {
            out->type = PZ_DISCARD;
            out->card = o->hand[w];
            snprintf(why, whylen, "discards %s: the card its phase needs least", pz_card_name(out->card));
        }
    } else {
        w = -1;
        for (int i = 0; i < o->nhand; i++)
            if (o->hand[i] != PZ_JOKER && (w < 0 || pz_card_points(o->hand[i]) > pz_card_points(o->hand[w])))
                w = i;
        if (w >= 0) {
            out->type = PZ_DISCARD;
            out->card = o->hand[w];
            snprintf(why, whylen, "discards %s: the costliest card that fits no group", pz_card_name(out->card));
        }
    }
    if (!out->type || !pz_judge(o, out, NULL, 0, NULL))
        pz__fallback(o, out, why, whylen);
}

void pz_random(const pz_obs *o, rng *r, pz_play *out, char *why, size_t whylen)
{
    pz_play all[PZ_MAXLEGAL];
    int n = pz_gen(o, all, PZ_MAXLEGAL);
    if (!n) {
        pz__fallback(o, out, why, whylen);
        return;
    }
    int types[8] = {0}, nt = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < nt; k++)
            seen |= types[k] == all[i].type;
        if (!seen)
            types[nt++] = all[i].type;
    }
    int t = types[rng_below(r, (uint32_t)nt)], m = 0;
    for (int i = 0; i < n; i++)
        if (all[i].type == t)
            m++;
    int pick = (int)rng_below(r, (uint32_t)m);
    for (int i = 0; i < n; i++)
        if (all[i].type == t && pick-- == 0) {
            *out = all[i];
            break;
        }
    char buf[200];
    pz_play_text(out, buf, sizeof buf);
    snprintf(why, whylen, "%s (a random play of a random kind)", buf);
}
