/* hn_info.c: `info`, the hat-guessing information strategy, for tables
 * where every seat plays it. docs/research/hanabi-info.md explains the method and
 * names its sources (Cox et al.'s information strategy as hanabi.rs
 * implements it); the code is ours.
 *
 * The strategy is stateless. Each call replays the public history of the
 * masked state from the deal and rebuilds, exactly as every other info
 * player does, the PUBLIC TABLES: for every card of every hand, the set of
 * identities that what everyone saw leaves possible (what hints said
 * directly, the answers hints carried as codes, what discards imply). A
 * card's odds weigh each identity by its copies not yet played or
 * discarded; a seat's own view also removes the copies it sees.
 *
 * A hint is a code. Before any hint, every hand has QUESTIONS computed from
 * the public tables only (which card is playable? is the card it would
 * discard next, its "chop", the last copy of a needed card? which cards are
 * dead? which block of its possible identities is a card in?). The answers
 * of one hand form a number below M, the count of hint classes the hinter
 * can always give: per other player, a number hint touching a publicly
 * chosen card, a colour hint touching it, a hint not touching it (split
 * into number and colour when the public tables allow). The hinter, who
 * sees every other hand, gives a hint of the class that is the sum of all
 * other players' numbers mod M; each of them subtracts the numbers of the
 * hands they see and learns their own. A discard among several publicly
 * useless cards carries the same kind of sum. A discard made while hint
 * tokens remained says that nobody else needed a hint: nobody held a
 * playable card they did not know of, nor a critical chop.
 *
 * Decisions: play a card known playable; on a player's last turn, try the
 * likeliest card; early, with errors to spare, a card known playable or
 * dead that is likely playable; else hint when someone needs it (or tokens
 * are plenty); else discard a useless card, else the chop.
 *
 * The bot only ever reads what its seat may know: its own cards are
 * treated as unknown even when a caller hands it the full state (they are
 * read from the history once played), the undrawn deck is never read.
 * Fixed-size arrays; stack use is about 3 KiB.
 */
#include "hn.h"

#include <stdio.h>
#include <string.h>

typedef uint32_t cset; /* bit (card - 1): card = suit * 5 + rank */

#define BIT(c) ((cset)1 << ((c) - 1))

enum {
    QMAX = 24,    /* questions in one combined question */
    MMAX = 20,    /* hint classes: 4 per other player */
};

/* --- the public picture ------------------------------------------------------ */

typedef struct info {
    int np, me, nsuits, variant, endrule, handsize;
    cset all, colh[5], rankm[6];
    uint8_t fire[HN_MAXSUITS];
    uint8_t gone[31];  /* copies played or discarded */
    uint8_t disc[31];  /* copies discarded */
    int hints, errors, ndisc, next, ndeck;
    /* derived from the piles and discards (derive()) */
    cset alive, w2, w3, play, dead, disp;
    int nhand[HN_MAXP];
    uint8_t card[HN_MAXP][HN_MAXHAND]; /* 0: unknown to this seat */
    cset tab[HN_MAXP][HN_MAXHAND];     /* public possibilities */
} info;

/* Bit count without the popcnt instruction (not in the baseline x86-64). */
static int popc(cset m)
{
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    m = (m + (m >> 4)) & 0x0f0f0f0fu;
    return (int)((m * 0x01010101u) >> 24);
}

static int copies_of(int c) { return hn_copies(hn_rank(c)); }

static void derive(info *I)
{
    I->alive = I->w2 = I->w3 = I->play = I->dead = I->disp = 0;
    for (int s = 0; s < I->nsuits; s++) {
        int f = I->fire[s], top = 5; /* top: highest rank still reachable */
        for (int r = f + 1; r <= 5; r++)
            if (I->disc[hn_card(s, r)] >= hn_copies(r)) {
                top = r - 1;
                break;
            }
        if (f < 5)
            I->play |= BIT(hn_card(s, f + 1));
        for (int r = 1; r <= 5; r++) {
            int c = hn_card(s, r), left = hn_copies(r) - I->gone[c];
            if (left >= 1)
                I->alive |= BIT(c);
            if (left >= 2)
                I->w2 |= BIT(c);
            if (left >= 3)
                I->w3 |= BIT(c);
            if (r <= f || r > top)
                I->dead |= BIT(c);
            if (r <= f || r > top || hn_copies(r) - I->disc[c] != 1)
                I->disp |= BIT(c);
        }
    }
}

/* Weighted count of the identities in m: copies not played nor discarded. */
static int wsum(const info *I, cset m)
{
    return popc(m & I->alive) + popc(m & I->w2) + popc(m & I->w3);
}

/* Odds as a fraction num/den of a table t for the property set m. */
typedef struct frac {
    int num, den;
} frac;

static frac odds(const info *I, cset t, cset m) { return (frac){wsum(I, t & m), wsum(I, t)}; }
static int sure(frac f) { return f.den > 0 && f.num == f.den; }
static int never(frac f) { return f.num == 0; }
static double fval(frac f) { return f.den ? (double)f.num / f.den : 0; }

static void init_info(info *I, const hn_state *st, int me)
{
    memset(I, 0, sizeof *I);
    I->np = st->np;
    I->me = me;
    I->nsuits = st->nsuits;
    I->variant = st->variant;
    I->endrule = st->endrule;
    I->handsize = st->handsize;
    I->ndeck = st->ndeck;
    I->all = ((cset)1 << (5 * I->nsuits)) - 1;
    for (int c = 0; c < 5; c++) {
        I->colh[c] = (cset)0x1f << (5 * c);
        if (I->variant)
            I->colh[c] |= (cset)0x1f << (5 * HN_RAINBOW);
    }
    for (int r = 1; r <= 5; r++)
        for (int s = 0; s < I->nsuits; s++)
            I->rankm[r] |= BIT(hn_card(s, r));
    I->hints = HN_MAXHINTS;
    derive(I);
    for (int p = 0; p < I->np; p++) {
        I->nhand[p] = I->handsize;
        for (int i = 0; i < I->handsize; i++) {
            int idx = I->next++;
            I->card[p][i] = p == me ? 0 : st->deck[idx];
            I->tab[p][i] = I->alive;
        }
    }
}

static int determined(cset t) { return popc(t) == 1; }

/* --- questions ------------------------------------------------------------------ */

/* Yes/no properties of a card: playable now, dead (never playable),
 * critical (the last copy of a card still needed). */
enum { P_PLAY, P_CRIT, P_DEAD };

static cset prop_set(const info *I, int prop)
{
    return prop == P_PLAY ? I->play : prop == P_DEAD ? I->dead : I->all & ~I->disp;
}

enum { Q_PROP, Q_COMBO, Q_PART };

typedef struct question {
    int kind, amount;
    int n;                    /* Q_PROP: 1; Q_COMBO: parts */
    uint8_t idx[QMAX];        /* card index of each part */
    uint8_t prop[QMAX];       /* P_* asked of each part */
    cset block[MMAX];         /* Q_PART: the blocks */
} question;

static int part_yes(const info *I, int prop, int c)
{
    return c && (prop_set(I, prop) & BIT(c)) != 0;
}

static int answer(const info *I, const question *q, const uint8_t *hand)
{
    switch (q->kind) {
    case Q_PROP:
        return part_yes(I, q->prop[0], hand[q->idx[0]]);
    case Q_COMBO:
        for (int k = 0; k < q->n; k++)
            if (part_yes(I, q->prop[k], hand[q->idx[k]]))
                return k + 1;
        return 0;
    default:
        for (int b = 0; b < q->amount; b++)
            if (hand[q->idx[0]] && (q->block[b] & BIT(hand[q->idx[0]])))
                return b;
        return 0; /* not a possibility (cannot happen): block 0 */
    }
}

static void restrict_yes(const info *I, cset *t, int prop, int yes)
{
    cset m = prop_set(I, prop);
    *t &= yes ? m : ~m;
}

static void acknowledge(const info *I, const question *q, int a, cset *tabs)
{
    switch (q->kind) {
    case Q_PROP:
        restrict_yes(I, &tabs[q->idx[0]], q->prop[0], a);
        break;
    case Q_COMBO:
        for (int k = 0; k < q->n; k++) {
            if (a == k + 1) {
                restrict_yes(I, &tabs[q->idx[k]], q->prop[k], 1);
                break;
            }
            restrict_yes(I, &tabs[q->idx[k]], q->prop[k], 0);
        }
        break;
    default:
        tabs[q->idx[0]] &= q->block[a];
    }
}

/* Partition the possible identities of a card into at most max blocks:
 * the live ones dealt round-robin, the dead ones together in a last block. */
static void make_partition(const info *I, question *q, int i, cset t, int max)
{
    int has_dead = (t & I->dead) != 0, eff = max - has_dead, cur = 0, n = 0;
    q->kind = Q_PART;
    q->idx[0] = (uint8_t)i;
    memset(q->block, 0, sizeof q->block);
    for (cset m = t & ~I->dead; m; m &= m - 1) {
        int c = __builtin_ctz(m) + 1;
        q->block[cur] |= BIT(c);
        cur = (cur + 1) % eff;
        if (n < eff)
            n++;
    }
    if (has_dead)
        q->block[n++] = t & I->dead;
    q->amount = n;
}

typedef struct cand {
    int i, prop, key; /* key: the order of the kinds of question */
    frac p;
} cand;

/* a/b < c/d for non-negative fractions with positive denominators */
static int fless(frac a, frac b) { return (long)a.num * b.den < (long)b.num * a.den; }


/* The card a hand would discard by public knowledge alone (its "chop"):
 * none (-1) when a card is known useless; else the card likeliest to be
 * dispensable, higher ranks first. */
static int chop(const info *I, const cset *t, int n)
{
    int best = -1;
    double bs = -1;
    for (int i = 0; i < n; i++) {
        frac pd = odds(I, t[i], I->dead);
        if (sure(pd))
            return -1;
        if (!t[i] || sure(odds(I, t[i], I->play)))
            continue;
        int w = wsum(I, t[i]), sr = 0;
        for (int r = 1; r <= 5; r++)
            sr += r * wsum(I, t[i] & I->rankm[r]);
        double s = 10 * fval(odds(I, t[i], I->disp)) + (w ? (double)sr / w : 0);
        if (s > bs) {
            bs = s;
            best = i;
        }
    }
    return best;
}

/* The next question for a hand whose public tables are t, with room for
 * `room` answers (>= 2); 0 when there is nothing worth asking. */
static int ask(const info *I, const cset *t, int n, int room, question *q)
{
    frac pp[HN_MAXHAND], pd[HN_MAXHAND];
    int know_play = 0, know_dead = 0, useful[HN_MAXHAND];
    for (int i = 0; i < n; i++) {
        pp[i] = odds(I, t[i], I->play);
        pd[i] = odds(I, t[i], I->dead);
        know_play |= sure(pp[i]);
        know_dead |= sure(pd[i]);
        useful[i] = pd[i].den > 0 && !sure(pd[i]) && !determined(t[i]);
    }
    if (!know_play) {
        cand c[2 * HN_MAXHAND + 1];
        int nc = 0;
        for (int i = 0; i < n; i++)
            if (useful[i] && !never(pp[i]))
                c[nc++] = (cand){i, P_PLAY, 0, pp[i]};
        if (!know_dead) {
            int d = chop(I, t, n);
            if (d >= 0) {
                frac pc = odds(I, t[d], prop_set(I, P_CRIT));
                if (!never(pc) && !sure(pc))
                    c[nc++] = (cand){d, P_CRIT, I->np == 3 ? -1 : 1, pc};
            }
            for (int i = 0; i < n; i++)
                if (useful[i] && !never(pd[i]))
                    c[nc++] = (cand){i, P_DEAD, 2, pd[i]};
        }
        /* too many: keep the play questions first, likeliest first */
        if (nc > room - 1) {
            for (int a = 1; a < nc; a++)
                for (int b = a; b > 0; b--) {
                    cand x = c[b - 1], y = c[b];
                    int swap = y.key < x.key || (y.key == x.key && fless(x.p, y.p));
                    if (!swap)
                        break;
                    c[b - 1] = y;
                    c[b] = x;
                }
            nc = room - 1;
        }
        /* then ask the least likely first: a yes stops the list, and
         * the cards before it are then known to be "no" */
        for (int a = 1; a < nc; a++)
            for (int b = a; b > 0; b--) {
                cand x = c[b - 1], y = c[b];
                int swap = y.key < x.key || (y.key == x.key && fless(y.p, x.p));
                if (!swap)
                    break;
                c[b - 1] = y;
                c[b] = x;
            }
        if (nc > 0) {
            q->kind = Q_COMBO;
            q->n = nc;
            for (int k = 0; k < nc; k++) {
                q->idx[k] = (uint8_t)c[k].i;
                q->prop[k] = (uint8_t)c[k].prop;
            }
            q->amount = nc + 1;
            return 1;
        }
    }
    /* a card whose playability is uncertain but likely: ask exactly that */
    int best = -1;
    double bs = 0;
    for (int i = 0; i < n; i++) {
        if (!useful[i])
            continue;
        double s = fval(pp[i]) - 0.7;
        s = s < 0 ? -s : s;
        if (s < 0.2 && (best < 0 || s < bs)) {
            best = i;
            bs = s;
        }
    }
    if (best >= 0) {
        q->kind = Q_PROP;
        q->n = 1;
        q->idx[0] = (uint8_t)best;
        q->prop[0] = P_PLAY;
        q->amount = 2;
        return 1;
    }
    /* else narrow down the identity of the card least likely dead */
    best = -1;
    for (int i = 0; i < n; i++)
        if (useful[i] && (best < 0 || fless(pd[i], pd[best])))
            best = i;
    if (best < 0)
        return 0;
    make_partition(I, q, best, t[best], room);
    return 1;
}

/* The number (below M) that answers player p's questions, from p's cards
 * (the hinter's side); p's public tables learn the answers. */
static int hat_encode(const info *I, int p, int M, cset *tabs)
{
    int val = 0, mod = 1;
    for (;;) {
        int room = (M - val - 1) / mod + 1;
        question q;
        if (room <= 1 || !ask(I, tabs, I->nhand[p], room, &q))
            break;
        int a = answer(I, &q, I->card[p]);
        acknowledge(I, &q, a, tabs);
        val += mod * a;
        mod = mod * q.amount < M ? mod * q.amount : M;
    }
    return val;
}

/* The receiver's side: the answers from the number v below M. */
static void hat_decode(const info *I, int p, int M, int v, cset *tabs)
{
    int mod = M;
    for (;;) {
        question q;
        if (mod <= 1 || !ask(I, tabs, I->nhand[p], mod, &q))
            break;
        int a = v % q.amount;
        v /= q.amount;
        mod = (mod - a - 1) / q.amount + 1;
        acknowledge(I, &q, a, tabs);
    }
}

/* The hat sum of `src`'s move: every other player's number, summed mod M;
 * updates the public tables as every player does. For a move of this seat
 * (src == me) returns the sum to convey; else v is the sum conveyed. */
static int hat_sum(info *I, int src, int M, int v)
{
    int sum = 0;
    if (M <= 1)
        return 0;
    for (int p = 0; p < I->np; p++)
        if (p != src && p != I->me)
            sum += hat_encode(I, p, M, I->tab[p]);
    if (src != I->me)
        hat_decode(I, I->me, M, ((v - sum) % M + M) % M, I->tab[I->me]);
    return sum % M;
}

/* --- hint classes ------------------------------------------------------------------ */

/* The card a hint class refers to: the one with the most left to learn. */
static int hint_index(const info *I, int p)
{
    int best = 0, bs = -1;
    for (int i = 0; i < I->nhand[p]; i++) {
        cset t = I->tab[p][i];
        int s = 0;
        if (t && !sure(odds(I, t, I->dead)) && !determined(t)) {
            s = 1;
            int one_suit = 0, one_rank = 0;
            for (int k = 0; k < I->nsuits; k++)
                one_suit |= (t & ~((cset)0x1f << (5 * k))) == 0;
            for (int r = 1; r <= 5; r++)
                one_rank |= (t & ~I->rankm[r]) == 0;
            s += !one_suit + !one_rank;
        }
        if (s > bs) {
            bs = s;
            best = i;
        }
    }
    return best;
}

/* Hint classes for player p: 2 with one card, 4 when it is public that some
 * number hint and some colour hint miss the referred card, else 3. */
static int classes(const info *I, int p, int hi)
{
    int n = I->nhand[p];
    if (n == 0)
        return 0;
    if (n == 1)
        return 2;
    for (int r = 1; r <= 5; r++) {
        int all = 1;
        for (int i = 0; i < n; i++)
            all &= (I->tab[p][i] & I->rankm[r]) != 0;
        if (all)
            return 3;
    }
    if (I->variant && (I->tab[p][hi] & ((cset)0x1f << (5 * HN_RAINBOW))))
        return 3;
    for (int s = 0; s < I->nsuits; s++) {
        int all = 1;
        for (int i = 0; i < n; i++)
            all &= (I->tab[p][i] & ((cset)0x1f << (5 * s))) != 0;
        if (all)
            return 3;
    }
    return 4;
}


typedef struct layout {
    int M, off[HN_MAXP], n[HN_MAXP], hi[HN_MAXP];
} layout;

static void hint_layout(const info *I, int src, layout *L)
{
    L->M = 0;
    for (int d = 1; d < I->np; d++) {
        int p = (src + d) % I->np;
        L->hi[p] = hint_index(I, p);
        L->n[p] = classes(I, p, L->hi[p]);
        L->off[p] = L->M;
        L->M += L->n[p];
    }
}

/* The class of a hint (type colour/number, touched mask) to p. */
static int hint_class(const layout *L, int p, int type, int touched)
{
    int k;
    if (touched >> L->hi[p] & 1)
        k = type == HN_HINT_NUMBER ? 0 : 1;
    else if (L->n[p] == 4)
        k = type == HN_HINT_NUMBER ? 2 : 3;
    else
        k = 2;
    return L->off[p] + k;
}

/* Direct information of a hint on p's tables. */
static void apply_hint(const info *I, cset *tabs, int n, int type, int value, int touched)
{
    cset m = type == HN_HINT_COLOR ? I->colh[value] : I->rankm[value];
    for (int i = 0; i < n; i++)
        tabs[i] &= (touched >> i & 1) ? m : ~m;
}

static int touch_of(const info *I, int p, int type, int value)
{
    int m = 0;
    cset h = type == HN_HINT_COLOR ? I->colh[value] : I->rankm[value];
    for (int i = 0; i < I->nhand[p]; i++)
        if (I->card[p][i] && (h & BIT(I->card[p][i])))
            m |= 1 << i;
    return m;
}

/* --- what plays and discards tell ---------------------------------------------------- */

static int knows_playable(const info *I, int p)
{
    for (int i = 0; i < I->nhand[p]; i++)
        if (sure(odds(I, I->tab[p][i], I->play)))
            return 1;
    return 0;
}

/* A discard while tokens remained: nobody else needed a hint, so a player
 * not knowing a playable card holds none. */
static int useless_of(const info *I, const cset *t, int n);

/* The card of p's a hint should save: p knows no playable card and no
 * useless one, so p's next discard is the chop, which may be critical. */
static int warn_chop(const info *I, int p)
{
    if (knows_playable(I, p) || useless_of(I, I->tab[p], I->nhand[p]))
        return -1;
    int d = chop(I, I->tab[p], I->nhand[p]);
    if (d < 0 || never(odds(I, I->tab[p][d], prop_set(I, P_CRIT))))
        return -1;
    return d;
}

static void nobody_needs_hint(info *I, int src)
{
    for (int p = 0; p < I->np; p++) {
        if (p == src)
            continue;
        int d = warn_chop(I, p);
        if (!knows_playable(I, p))
            for (int i = 0; i < I->nhand[p]; i++)
                I->tab[p][i] &= ~I->play;
        if (d >= 0)
            I->tab[p][d] &= I->disp;
    }
}

/* Cards a table set proves useless: dead, or a second copy of a card the
 * same hand surely holds. Returns a bit mask of hand indexes. */
static int useless_of(const info *I, const cset *t, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (t[i] && (t[i] & ~I->dead) == 0)
            m |= 1 << i;
        else if (determined(t[i]))
            for (int j = 0; j < i; j++)
                if (t[j] == t[i]) {
                    m |= 1 << i | 1 << j;
                    break;
                }
    }
    return m;
}

static void remove_card(info *I, int p, int i, int c, int kind, int correct)
{
    int n = I->nhand[p];
    for (int k = i; k < n - 1; k++) {
        I->card[p][k] = I->card[p][k + 1];
        I->tab[p][k] = I->tab[p][k + 1];
    }
    I->nhand[p] = n - 1;
    if (c) {
        I->gone[c]++;
        if (kind == HN_PLAY && correct) {
            I->fire[hn_suit(c)] = (uint8_t)hn_rank(c);
            if (hn_rank(c) == 5 && I->hints < HN_MAXHINTS)
                I->hints++;
        } else {
            I->disc[c]++;
            I->ndisc++;
            if (kind == HN_DISCARD)
                I->hints++;
            else
                I->errors++;
        }
    }
    derive(I);
    for (int q = 0; q < I->np; q++)
        for (int k = 0; k < I->nhand[q]; k++)
            I->tab[q][k] &= I->alive;
}

static void draw_card(info *I, const hn_state *st, int p)
{
    if (I->next >= I->ndeck)
        return;
    int idx = I->next++, n = I->nhand[p];
    I->card[p][n] = p == I->me ? 0 : st->deck[idx];
    I->tab[p][n] = I->alive;
    I->nhand[p] = n + 1;
}

/* Replay the public history: the public tables as every player has them now. */
static void replay(info *I, const hn_state *st)
{
    for (int k = 0; k < st->nhist; k++) {
        const hn_hist *h = &st->hist[k];
        int a = h->seat, hint = h->type == HN_HINT_COLOR || h->type == HN_HINT_NUMBER;
        /* a history the rules made is always well formed: stop at anything else */
        if (a >= I->np || (hint ? h->target >= I->np || h->target == a || h->value > 5
                                : h->target >= I->nhand[a] || h->card > 30))
            break;
        if (hint) {
            layout L;
            hint_layout(I, a, &L);
            int v = hint_class(&L, h->target, h->type, h->touched);
            hat_sum(I, a, L.M, v);
            apply_hint(I, I->tab[h->target], I->nhand[h->target], h->type, h->value, h->touched);
            I->hints--;
            continue;
        }
        if (h->type == HN_DISCARD) {
            int um = useless_of(I, I->tab[a], I->nhand[a]);
            if (I->hints > 0)
                nobody_needs_hint(I, a);
            if (popc((cset)um) > 1 && (um >> h->target & 1)) {
                int pos = popc((cset)(um & ((1 << h->target) - 1)));
                hat_sum(I, a, popc((cset)um), pos);
            }
        }
        remove_card(I, a, h->target, h->card, h->type, h->correct);
        draw_card(I, st, a);
    }
}

/* --- the decision ------------------------------------------------------------------- */

typedef struct priv {
    cset v1, v2, v3; /* identities with 1, 2, 3 copies not seen by this seat */
    uint8_t others[31]; /* copies in other players' hands */
} priv;

static int pwsum(const priv *V, cset m) { return popc(m & V->v1) + popc(m & V->v2) + popc(m & V->v3); }
static frac podds(const priv *V, cset t, cset m) { return (frac){pwsum(V, t & m), pwsum(V, t)}; }

static void make_priv(const info *I, priv *V)
{
    memset(V, 0, sizeof *V);
    for (int p = 0; p < I->np; p++)
        if (p != I->me)
            for (int i = 0; i < I->nhand[p]; i++)
                if (I->card[p][i])
                    V->others[I->card[p][i]]++;
    for (int c = 1; c <= 5 * I->nsuits; c++) {
        int left = copies_of(c) - I->gone[c] - V->others[c];
        if (left >= 1)
            V->v1 |= BIT(c);
        if (left >= 2)
            V->v2 |= BIT(c);
        if (left >= 3)
            V->v3 |= BIT(c);
    }
}

/* need_hint 0: another player holds a playable card; 1: another player
 * needs a hint (a playable card they do not know of, or a critical chop
 * they would discard next); nobody_needs_hint() is what a discard made
 * with tokens left says about the second. */
static int someone_can_play(const info *I, int need_hint)
{
    for (int p = 0; p < I->np; p++) {
        if (p == I->me)
            continue;
        int has = 0;
        for (int i = 0; i < I->nhand[p]; i++)
            has |= I->card[p][i] && (I->play & BIT(I->card[p][i]));
        if (has && (!need_hint || !knows_playable(I, p)))
            return 1;
        if (need_hint) {
            int d = warn_chop(I, p);
            if (d >= 0 && I->card[p][d] && !(I->disp & BIT(I->card[p][d])))
                return 1;
        }
    }
    return 0;
}

static double hint_goodness(const info *I, int p, int type, int value)
{
    int touched = touch_of(I, p, type, value);
    cset m = type == HN_HINT_COLOR ? I->colh[value] : I->rankm[value];
    double g = 1;
    for (int i = 0; i < I->nhand[p]; i++) {
        cset t = I->tab[p][i];
        if (!t || sure(odds(I, t, I->dead)) || determined(t))
            continue;
        cset u = t & ((touched >> i & 1) ? m : ~m);
        int ow = wsum(I, t), nw = wsum(I, u);
        if (nw <= 0)
            continue;
        int bonus = determined(u) || sure(odds(I, u, I->dead)) ? 2 : 1;
        g *= bonus * (double)ow / nw;
    }
    return g;
}

/* Choose a hint of class k for p (0 number touching card hi, 1 colour
 * touching it, 2 [3 with 4 classes: number] not touching it, 3 colour not
 * touching it). Returns 0 when no hint of that class exists. */
static int choose_hint(const info *I, const layout *L, int p, int k, hn_play *out)
{
    int found = 0;
    double best = -1;
    for (int type = HN_HINT_COLOR; type <= HN_HINT_NUMBER; type++) {
        int lo = type == HN_HINT_COLOR ? 0 : 1, hiv = type == HN_HINT_COLOR ? 4 : 5;
        for (int v = lo; v <= hiv; v++) {
            int t = touch_of(I, p, type, v);
            if (!t)
                continue;
            if (hint_class(L, p, type, t) != L->off[p] + k)
                continue;
            double g = hint_goodness(I, p, type, v);
            if (g > best) {
                best = g;
                *out = (hn_play){type, p, v};
                found = 1;
            }
        }
    }
    return found;
}

static double play_score(const info *I, const priv *V, cset t, int deck_left)
{
    double num = 0;
    int den = 0;
    for (cset m = t; m; m &= m - 1) {
        int c = __builtin_ctz(m) + 1, w = pwsum(V, BIT(c));
        if (!w)
            continue;
        int with = 1;
        if (deck_left > 0)
            for (int p = 0; p < I->np; p++)
                if (p != I->me)
                    for (int i = 0; i < I->nhand[p]; i++)
                        if (I->card[p][i] == c) {
                            with++;
                            break;
                        }
        double sc = (10.0 - hn_rank(c)) / with;
        num += w * sc;
        den += w;
    }
    return den ? num / den : 0;
}

static void say(char *why, size_t whylen, const hn_play *p, const char *reason)
{
    char text[80];
    hn_play_text(p, text, sizeof text);
    snprintf(why, whylen, "%s: %s", text, reason);
}

static void decide(info *I, const hn_state *st, hn_play *out, char *why, size_t whylen)
{
    int me = I->me, n = I->nhand[me];
    int deck_left = st->ndeck - st->next;
    priv V;
    make_priv(I, &V);
    cset *mine = I->tab[me];

    /* 1. a card surely playable */
    int best = -1;
    double bs = 0;
    for (int i = 0; i < n; i++) {
        if (!sure(podds(&V, mine[i], I->play)))
            continue;
        double s = play_score(I, &V, mine[i], deck_left);
        if (best < 0 || s > bs) {
            best = i;
            bs = s;
        }
    }
    if (best >= 0) {
        *out = (hn_play){HN_PLAY, best, 0};
        say(why, whylen, out, "the team's hints identified it as playable");
        return;
    }

    /* 1b. this seat's last turn: a card that may be playable is worth a
     * try, unless a hint would let a later player play, or a 3rd error would
     * cut off a later player's known play */
    if (st->final_left > 0) {
        int later_need = 0, later_play = 0;
        for (int d = 1; d < st->final_left && d < I->np; d++) {
            int p = (me + d) % I->np, has = 0;
            for (int i = 0; i < I->nhand[p]; i++)
                has |= I->card[p][i] && (I->play & BIT(I->card[p][i]));
            if (knows_playable(I, p))
                later_play = 1;
            else if (has)
                later_need = 1;
        }
        if (!(later_need && I->hints > 0) && (I->errors < 2 || !later_play)) {
            best = -1;
            double bp = 0;
            for (int i = 0; i < n; i++) {
                double p = fval(podds(&V, mine[i], I->play));
                if (p > bp) {
                    best = i;
                    bp = p;
                }
            }
            if (best >= 0) {
                *out = (hn_play){HN_PLAY, best, 0};
                say(why, whylen, out, "this player's last turn: a card that may be playable is worth the try");
                return;
            }
        }
    }

    /* 2. a likely play that cannot hurt a needed card */
    int threshold = 10 * I->nsuits - 5 * I->nsuits - I->np * I->handsize;
    if (I->errors < 2 && I->ndisc <= threshold) {
        best = -1;
        double bp = 0;
        for (int i = 0; i < n; i++) {
            if (!sure(podds(&V, mine[i], I->play | I->dead)))
                continue;
            double p = fval(podds(&V, mine[i], I->play));
            if (best < 0 || p > bp) {
                best = i;
                bp = p;
            }
        }
        if (best >= 0 && bp > 0.75) {
            *out = (hn_play){HN_PLAY, best, 0};
            say(why, whylen, out, "the strategy's early risky play, taken only with errors to spare");
            return;
        }
    }

    /* 3. hint or discard */
    int private_useless = 0;
    {
        cset pt[HN_MAXHAND];
        for (int i = 0; i < n; i++) {
            pt[i] = mine[i] & V.v1;
        }
        private_useless = useless_of(I, pt, n);
    }
    int public_useless = useless_of(I, mine, n);
    int will_hint;
    if (I->hints == HN_MAXHINTS || (I->hints > 0 && someone_can_play(I, 1)))
        will_hint = 1;
    else if (I->ndisc <= threshold && private_useless)
        will_hint = 0;
    else if (I->hints > 0 && someone_can_play(I, 0))
        will_hint = 1;
    else
        will_hint = I->hints > 4;
    /* the seed's end: once the deck is empty the final round starts with the
     * next play or discard, never with a hint: hint while tokens last */
    if (st->endrule == HN_RULE_SEED && deck_left == 0 && st->final_left < 0 && I->hints > 0)
        will_hint = 1;

    if (will_hint) {
        layout L;
        info J = *I; /* the hint's effect, kept only if the hint can be given */
        hint_layout(&J, me, &L);
        int v = hat_sum(&J, me, L.M, 0);
        int p = -1, k = v;
        for (int d = 1; d < I->np; d++) {
            int q = (me + d) % I->np;
            if (k < L.n[q]) {
                p = q;
                break;
            }
            k -= L.n[q];
        }
        if (p >= 0 && choose_hint(&J, &L, p, k, out)) {
            say(why, whylen, out,
                "a code: with the public card tables, it tells each other player something about their own hand");
            return;
        }
        /* the class cannot be given (a rare hand): no hint this turn */
        if (I->hints == HN_MAXHINTS) {
            best = 0;
            double bp = -1;
            for (int i = 0; i < n; i++) {
                double q = fval(podds(&V, mine[i], I->play));
                if (q > bp) {
                    bp = q;
                    best = i;
                }
            }
            *out = (hn_play){HN_PLAY, best, 0};
            say(why, whylen, out, "the strategy's move when it does not hint and may not discard");
            return;
        }
    }
    if (I->hints > 0)
        nobody_needs_hint(I, me);
    if (popc((cset)public_useless) > 1) {
        int M = popc((cset)public_useless), v = hat_sum(I, me, M, 0), i = 0;
        for (int m = public_useless, k = 0;; m &= m - 1, k++)
            if (k == v) {
                i = __builtin_ctz((unsigned)m);
                break;
            }
        *out = (hn_play){HN_DISCARD, i, 0};
        say(why, whylen, out,
            "the hints show it useless; which useless card is discarded is a code for the others");
        return;
    }
    if (private_useless) {
        *out = (hn_play){HN_DISCARD, __builtin_ctz((unsigned)private_useless), 0};
        say(why, whylen, out,
            "no card is known playable: the information strategy's discard rule");
        return;
    }
    /* the chop: the card most likely useless by public knowledge, which
     * the others protect with a hint when it is critical */
    int d = chop(I, mine, n);
    *out = (hn_play){HN_DISCARD, d >= 0 ? d : 0, 0};
    say(why, whylen, out,
        "no card is known playable: the public tables show this card the most likely useless (the team's "
        "hints warn when such a card must be kept)");
}


void hn_info_bot(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen)
{
    info I;
    *out = (hn_play){HN_PLAY, 0, 0};
    if (why && whylen)
        why[0] = 0;
    if (seat < 0 || seat >= masked->np || masked->np < HN_MINP || masked->np > HN_MAXP || masked->over)
        return;
    init_info(&I, masked, seat);
    replay(&I, masked);
    decide(&I, masked, out, why, whylen);
    /* never an illegal play: the judge reads only what the seat may see
     * (the hinted hand is another player's) */
    if (!hn_judge(masked, out, NULL, 0, NULL)) {
        hn_play all[HN_MAXLEGAL];
        if (hn_legal(masked, all) > 0)
            *out = all[0];
        say(why, whylen, out, "the strategy found no move of its own (a fallback)");
    }
}
