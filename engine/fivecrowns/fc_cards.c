/* fc_cards.c: Five Crowns cards (notation, names) and the exact arranger.
 *
 * The arranger. Wild-rank cards and jokers ("wilds") may stand in for any
 * card, any number of them in a run or book, so a wild-rank card is always
 * used as a wild (that is never worse than using it as itself). A group of
 * only wilds (3+) is a valid book. What is left to decide is how to cover
 * the natural cards: g(M, w, f) is the fewest points left among the
 * naturals in the set M with w wilds still free, f = 1 once some group
 * exists. The lowest natural of M is either left over or lies in a group:
 * a book (a subset of its same-rank mates; 3 - size wilds when short) or a
 * run (a set of distinct ranks of its suit; wilds fill the gaps and pad it
 * to 3). Wilds left at the end cost nothing when a group exists (they join
 * a book, or a run shorter than 11; a run of 11 can be split in two) or when
 * 3+ of them form their own book; otherwise they are left with their value.
 * k naturals and W wilds satisfy k + W <= 14, so the memo holds at most
 * 2^k * (W+1) * 2 <= 32768 entries (64 KiB). The engine must run on small
 * thread stacks (the server's request threads have 100 KB), so the memo is
 * on the stack only when it fits in MEMO_STACK entries (2 KiB: hands of up
 * to 5-8 naturals) and is malloc'd otherwise: the one allocation of the
 * rules core. Should malloc fail, the search runs unmemoized: slower, the
 * same answer.
 */
#include "fc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char RANKS[] = "3456789XJQK";
static const char SUITS[] = "SCDHT";

int fc_card_parse_n(const char *s, size_t len)
{
    char u[4];
    if (len < 2 || len > 3)
        return 0;
    for (size_t i = 0; i < len; i++)
        u[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    if (len == 3) {
        if (u[0] != '1' || u[1] != '0')
            return 0;
        u[0] = 'X';
        u[1] = u[2];
    }
    if (u[0] == 'J' && u[1] >= '1' && u[1] <= '3')
        return FC_JOKER1 + (u[1] - '1');
    const char *r = strchr(RANKS, u[0]), *su = strchr(SUITS, u[1]);
    if (!u[0] || !u[1] || !r || !su)
        return 0;
    return fc_card((int)(r - RANKS) + 3, (int)(su - SUITS));
}

int fc_card_parse(const char *s) { return s ? fc_card_parse_n(s, strlen(s)) : 0; }

const char *fc_card_str(int c)
{
    static const char *const J[3] = {"J1", "J2", "J3"};
    static const char TAB[55][3] = {
        "3S", "4S", "5S", "6S", "7S", "8S", "9S", "XS", "JS", "QS", "KS",
        "3C", "4C", "5C", "6C", "7C", "8C", "9C", "XC", "JC", "QC", "KC",
        "3D", "4D", "5D", "6D", "7D", "8D", "9D", "XD", "JD", "QD", "KD",
        "3H", "4H", "5H", "6H", "7H", "8H", "9H", "XH", "JH", "QH", "KH",
        "3T", "4T", "5T", "6T", "7T", "8T", "9T", "XT", "JT", "QT", "KT"};
    if (c >= FC_JOKER1 && c <= FC_NTYPES)
        return J[c - FC_JOKER1];
    if (c >= 1 && c <= 55)
        return TAB[c - 1];
    return "??";
}

/* "7"/"7s", "king"/"kings" */
static const char *fc_rank_word(int rank, int plural)
{
    static const char *const ONE[] = {"3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"};
    static const char *const MANY[] = {"3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "jacks", "queens", "kings"};
    if (rank < 3 || rank > 13)
        return plural ? "cards" : "card";
    return plural ? MANY[rank - 3] : ONE[rank - 3];
}

/* "hearts" */
static const char *fc_suit_word(int suit)
{
    static const char *const S[] = {"spades", "clubs", "diamonds", "hearts", "tridents"};
    return suit >= 0 && suit < 5 ? S[suit] : "?";
}

void fc_card_name(int c, char *out, size_t n)
{
    if (fc_is_joker(c))
        snprintf(out, n, "joker");
    else
        snprintf(out, n, "%s of %s", fc_rank_word(fc_rank(c), 0), fc_suit_word(fc_suit(c)));
}

/* --- the arranger ---------------------------------------------------------- */

enum { MEMO_MAX = 1 << 15, MEMO_STACK = 1 << 10, UNSET = -1 };

typedef struct arr_ctx {
    int k, W, wildsum;
    uint8_t nat[FC_HANDMAX];
    int16_t *memo; /* NULL: no memo (allocation failed) */
} arr_ctx;

static int idx(const arr_ctx *c, unsigned m, int w, int f)
{
    return ((int)m * (c->W + 1) + w) * 2 + f;
}

/* Decisions, in a fixed order, so the reconstruction replays the search. */
typedef struct choice {
    unsigned take; /* naturals used (0: leave the lowest) */
    int need;      /* wilds used */
    int kind;
} choice;

static int g(arr_ctx *c, unsigned m, int w, int f);

/* Visit every option for state (m, w, f); if `want` >= 0, stop at the first
 * that reaches it and report it in *ch. Returns the best value. */
static int options(arr_ctx *c, unsigned m, int w, int f, int want, choice *ch)
{
    int i = __builtin_ctz(m);
    unsigned rest = m & ~(1u << i);
    int ci = c->nat[i], ri = fc_rank(ci), si = fc_suit(ci);
    int best = fc_rank(ci) + g(c, rest, w, f); /* leave it: a natural's value is its rank */
    if (want >= 0 && best == want) {
        *ch = (choice){0, 0, 0};
        return best;
    }
    /* books */
    unsigned mates[FC_HANDMAX];
    int nm = 0;
    for (int j = i + 1; j < c->k; j++)
        if ((rest >> j & 1) && fc_rank(c->nat[j]) == ri)
            mates[nm++] = 1u << j;
    for (unsigned s = 0; s < (1u << nm); s++) {
        unsigned take = 1u << i;
        int size = 1;
        for (int b = 0; b < nm; b++)
            if (s >> b & 1) {
                take |= mates[b];
                size++;
            }
        int need = size >= 3 ? 0 : 3 - size;
        if (need > w)
            continue;
        int v = g(c, m & ~take, w - need, 1);
        if (v < best)
            best = v;
        if (want >= 0 && v == want) {
            *ch = (choice){take, need, FC_BOOK};
            return v;
        }
    }
    /* runs: one card per other rank of the suit (identical copies are
     * interchangeable: take the first one left) */
    unsigned rep[16];
    int rrank[16], nr = 0;
    for (int r = 3; r <= 13; r++) {
        if (r == ri)
            continue;
        for (int j = i + 1; j < c->k; j++)
            if ((rest >> j & 1) && fc_suit(c->nat[j]) == si && fc_rank(c->nat[j]) == r) {
                rep[nr] = 1u << j;
                rrank[nr++] = r;
                break;
            }
    }
    for (unsigned s = 1; s < (1u << nr); s++) {
        unsigned take = 1u << i;
        int lo = ri, hi = ri, cnt = 1;
        for (int b = 0; b < nr; b++)
            if (s >> b & 1) {
                take |= rep[b];
                cnt++;
                if (rrank[b] < lo) lo = rrank[b];
                if (rrank[b] > hi) hi = rrank[b];
            }
        int span = hi - lo + 1;
        int need = span - cnt + (span < 3 ? 3 - span : 0);
        if (need > w)
            continue;
        int v = g(c, m & ~take, w - need, 1);
        if (v < best)
            best = v;
        if (want >= 0 && v == want) {
            *ch = (choice){take, need, FC_RUN};
            return v;
        }
    }
    return best;
}

static int g(arr_ctx *c, unsigned m, int w, int f)
{
    if (m == 0)
        return (f || w >= 3 || w == 0) ? 0 : c->wildsum;
    int k = idx(c, m, w, f);
    if (c->memo && c->memo[k] != UNSET)
        return c->memo[k];
    int v = options(c, m, w, f, -1, NULL);
    if (c->memo)
        c->memo[k] = (int16_t)v;
    return v;
}

/* Place `wn` wilds into a run of naturals nat (sorted by rank), `need` of
 * them filling gaps / padding, the rest extending it while it is shorter
 * than 11. Returns the number placed. */
static int lay_run(fc_group *gr, const uint8_t *nat, int nn, const uint8_t *wilds, int wn)
{
    int lo = fc_rank(nat[0]), hi = fc_rank(nat[nn - 1]);
    int used = 0;
    /* gaps */
    int pos = 0;
    gr->n = 0;
    for (int r = lo; r <= hi; r++) {
        if (pos < nn && fc_rank(nat[pos]) == r) {
            gr->as[gr->n] = (uint8_t)r;
            gr->cards[gr->n++] = nat[pos++];
        } else {
            gr->as[gr->n] = (uint8_t)r;
            gr->cards[gr->n++] = wilds[used++];
        }
    }
    /* extend: up while <= K, then down */
    while (used < wn && gr->n < 11) {
        if (hi < 13) {
            hi++;
            gr->as[gr->n] = (uint8_t)hi;
            gr->cards[gr->n++] = wilds[used++];
        } else {
            lo--;
            memmove(gr->cards + 1, gr->cards, gr->n);
            memmove(gr->as + 1, gr->as, gr->n);
            gr->cards[0] = wilds[used++];
            gr->as[0] = (uint8_t)lo;
            gr->n++;
        }
    }
    return used;
}

static int cmp_rank(int a, int b) { return fc_rank(a) - fc_rank(b); }

static void sort_cards(uint8_t *a, int n, int by_rank)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int x = a[j - 1], y = a[j];
            int d = by_rank ? cmp_rank(x, y) : 0;
            if (d == 0)
                d = x - y;
            if (d <= 0)
                break;
            a[j - 1] = (uint8_t)y;
            a[j] = (uint8_t)x;
        }
}

int fc_arrange(const uint8_t *cards, int n, int wild, fc_arr *out)
{
    arr_ctx c;
    int16_t small[MEMO_STACK];
    uint8_t wilds[FC_HANDMAX];
    int W = 0;
    memset(&c, 0, sizeof c);
    if (n > FC_HANDMAX)
        n = FC_HANDMAX;
    for (int i = 0; i < n; i++) {
        if (fc_is_wild(cards[i], wild)) {
            wilds[W++] = cards[i];
            c.wildsum += fc_value(cards[i], wild);
        } else {
            c.nat[c.k++] = cards[i];
        }
    }
    c.W = W;
    sort_cards(c.nat, c.k, 0); /* by suit, then rank (codes are suit-major) */
    sort_cards(wilds, W, 0);   /* wild-rank cards before jokers */
    size_t used = (size_t)(1u << c.k) * (size_t)(W + 1) * 2; /* <= MEMO_MAX */
    c.memo = used <= MEMO_STACK ? small : malloc(used * sizeof c.memo[0]);
    if (c.memo)
        memset(c.memo, 0xff, used * sizeof c.memo[0]);
    unsigned all = c.k ? (1u << c.k) - 1 : 0;
    int pts = g(&c, all, W, 0);
    if (!out)
        goto done;

    memset(out, 0, sizeof *out);
    out->points = pts;
    /* replay */
    unsigned m = all;
    int w = W, f = 0, wu = 0;
    while (m) {
        choice ch;
        int want = g(&c, m, w, f);
        options(&c, m, w, f, want, &ch);
        int i = __builtin_ctz(m);
        if (ch.take == 0) {
            out->left[out->nleft++] = c.nat[i];
            m &= ~(1u << i);
            continue;
        }
        uint8_t nat[FC_HANDMAX];
        int nn = 0;
        for (int j = 0; j < c.k; j++)
            if (ch.take >> j & 1)
                nat[nn++] = c.nat[j];
        fc_group *gr = &out->g[out->ngroups++];
        gr->kind = (uint8_t)ch.kind;
        if (ch.kind == FC_RUN) {
            sort_cards(nat, nn, 1);
            lay_run(gr, nat, nn, wilds + wu, ch.need);
        } else {
            memcpy(gr->cards, nat, (size_t)nn);
            for (int j = 0; j < ch.need; j++)
                gr->cards[nn + j] = wilds[wu + j];
            gr->n = (uint8_t)(nn + ch.need);
        }
        wu += ch.need;
        w -= ch.need;
        f = 1;
        m &= ~ch.take;
    }
    /* the wilds not yet placed */
    int extra = W - wu;
    if (extra > 0) {
        if (out->ngroups == 0 && extra < 3) {
            for (int j = wu; j < W; j++)
                out->left[out->nleft++] = wilds[j];
        } else if (out->ngroups == 0) {
            fc_group *gr = &out->g[out->ngroups++];
            gr->kind = FC_BOOK;
            gr->n = (uint8_t)extra;
            memcpy(gr->cards, wilds + wu, (size_t)extra);
        } else {
            int placed = 0;
            for (int gi = 0; gi < out->ngroups && !placed; gi++)
                if (out->g[gi].kind == FC_BOOK) {
                    fc_group *gr = &out->g[gi];
                    memcpy(gr->cards + gr->n, wilds + wu, (size_t)extra);
                    gr->n = (uint8_t)(gr->n + extra);
                    wu += extra;
                    extra = 0;
                    placed = 1;
                }
            for (int gi = 0; gi < out->ngroups && extra > 0; gi++) {
                fc_group *gr = &out->g[gi];
                if (gr->kind != FC_RUN || gr->n >= 11)
                    continue;
                /* rebuild the run from its naturals, its wilds and the extra */
                uint8_t nat[FC_HANDMAX], ws[FC_HANDMAX];
                int nn = 0, nw = 0;
                for (int j = 0; j < gr->n; j++) {
                    if (fc_is_wild(gr->cards[j], wild))
                        ws[nw++] = gr->cards[j];
                    else
                        nat[nn++] = gr->cards[j];
                }
                int room = 11 - gr->n, add = extra < room ? extra : room;
                memcpy(ws + nw, wilds + wu, (size_t)add);
                lay_run(gr, nat, nn, ws, nw + add);
                wu += add;
                extra -= add;
            }
            if (extra > 0) {
                /* every group is a run of 11: split the first into 5 + 6 */
                fc_group *a = &out->g[0], *b = &out->g[out->ngroups++];
                memset(b, 0, sizeof *b);
                b->kind = FC_RUN;
                b->n = (uint8_t)(a->n - 5);
                memcpy(b->cards, a->cards + 5, b->n);
                memcpy(b->as, a->as + 5, b->n);
                a->n = 5;
                /* the 5-card part (at most 3..7 up to 7..J) grows upwards, then down */
                for (; extra > 0; extra--) {
                    fc_group *t = a;
                    if (t->as[t->n - 1] < 13) {
                        t->cards[t->n] = wilds[wu++];
                        t->as[t->n] = (uint8_t)(t->as[t->n - 1] + 1);
                    } else {
                        memmove(t->cards + 1, t->cards, t->n);
                        memmove(t->as + 1, t->as, t->n);
                        t->cards[0] = wilds[wu++];
                        t->as[0] = (uint8_t)(t->as[1] - 1);
                    }
                    t->n++;
                }
            }
        }
    }
done:
    if (c.memo != small)
        free(c.memo);
    return pts;
}

int fc_lay_keep(const uint8_t *cards, int n, int wild, fc_lay *l)
{
    fc_arr a;
    int pts = fc_arrange(cards, n, wild, &a);
    memset(l, 0, sizeof *l);
    int k = 0;
    for (int i = 0; i < a.ngroups && i < FC_GROUPS_MAX; i++) {
        l->kind[i] = a.g[i].kind;
        l->len[i] = a.g[i].n;
        memcpy(l->cards + k, a.g[i].cards, a.g[i].n);
        k += a.g[i].n;
        l->ngroups++;
    }
    l->nleft = (uint8_t)a.nleft;
    memcpy(l->cards + k, a.left, (size_t)a.nleft);
    return pts;
}

void fc_lay_arr(const fc_lay *l, fc_arr *out)
{
    memset(out, 0, sizeof *out);
    int k = 0;
    for (int i = 0; i < l->ngroups; i++) {
        fc_group *g = &out->g[out->ngroups++];
        g->kind = l->kind[i];
        g->n = l->len[i];
        memcpy(g->cards, l->cards + k, g->n);
        k += g->n;
    }
    out->nleft = l->nleft;
    memcpy(out->left, l->cards + k, l->nleft);
}

void fc_group_text(const fc_group *gr, int wild, char *out, size_t n)
{
    size_t k = 0;
    char nm[40];
    out[0] = 0;
    if (gr->kind == FC_RUN) {
        int suit = -1;
        for (int j = 0; j < gr->n && suit < 0; j++)
            if (!fc_is_wild(gr->cards[j], wild))
                suit = fc_suit(gr->cards[j]);
        k += (size_t)snprintf(out + k, k < n ? n - k : 0, "a run of %s ", fc_suit_word(suit));
        for (int j = 0; j < gr->n; j++)
            k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s%s", j ? "-" : "",
                                  gr->as[j] == 10 ? "10" : (char[2]){RANKS[gr->as[j] - 3], 0});
    } else {
        int rank = 0, cnt = 0;
        for (int j = 0; j < gr->n; j++)
            if (!fc_is_wild(gr->cards[j], wild))
                rank = fc_rank(gr->cards[j]);
        cnt = gr->n;
        if (rank)
            k += (size_t)snprintf(out + k, k < n ? n - k : 0, "a book of %d %s", cnt, fc_rank_word(rank, 1));
        else
            k += (size_t)snprintf(out + k, k < n ? n - k : 0, "a book of %d wild cards", cnt);
    }
    int first = 1;
    for (int j = 0; j < gr->n; j++) {
        int cd = gr->cards[j];
        if (!fc_is_wild(cd, wild))
            continue;
        fc_card_name(cd, nm, sizeof nm);
        const char *w = fc_is_joker(cd) ? "the joker" : "the wild ";
        if (gr->kind == FC_RUN)
            k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s%s%s as the %s", first ? " (" : ", ", w,
                                  fc_is_joker(cd) ? "" : nm, fc_rank_word(gr->as[j], 0));
        else if (gr->kind == FC_BOOK && gr->n > 0)
            k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s%s%s", first ? " (with " : " and ", w,
                                  fc_is_joker(cd) ? "" : nm);
        first = 0;
    }
    if (!first)
        snprintf(out + k, k < n ? n - k : 0, ")");
}

void fc_arr_text(const fc_arr *a, int wild, char *out, size_t n)
{
    size_t k = 0;
    char buf[256], nm[40];
    out[0] = 0;
    if (a->ngroups == 0) {
        k += (size_t)snprintf(out + k, k < n ? n - k : 0, "no run or book yet");
    }
    for (int i = 0; i < a->ngroups; i++) {
        fc_group_text(&a->g[i], wild, buf, sizeof buf);
        k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s%s",
                              i == 0 ? "" : (i == a->ngroups - 1 ? " and " : ", "), buf);
    }
    if (a->nleft == 0) {
        snprintf(out + k, k < n ? n - k : 0, ", with no card left over");
        return;
    }
    k += (size_t)snprintf(out + k, k < n ? n - k : 0, "; left over: ");
    for (int i = 0; i < a->nleft; i++) {
        fc_card_name(a->left[i], nm, sizeof nm);
        k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s%s", i ? ", " : "", nm);
    }
    snprintf(out + k, k < n ? n - k : 0, " (%d points)", a->points);
}
