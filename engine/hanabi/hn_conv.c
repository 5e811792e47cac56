/* hn_conv.c: `conventions`, the Hanabi strategy a person can learn: the
 * bot that sits at tables with people and answers /hint.
 * docs/research/hanabi-conventions.md teaches the conventions to a player;
 * hn_conv_rules() is the same set for GET /rules/hanabi.
 *
 * The conventions are SmartBot's (Quuxplusone/Hanabi, SmartBot.cc, by Arthur
 * O'Dwyer), told in the words the H-group uses for beginners (chop, play
 * clue, save clue), with a few changes measured to score better:
 *   - the chop, the card a player discards next, is one no clue touched
 *     (SmartBot may discard clued cards first), the likeliest to be useless
 *     by what clues ruled out, the oldest on a tie;
 *   - every clue is a play clue: of the cards it touches that might be
 *     playable now, the newest is playable now (unless the clue by itself
 *     already proves a card playable);
 *   - except the save: a number clue to the next player touching their chop,
 *     when the chop could be a last copy with that number, says "keep it";
 *   - the previous player gave no save though they could: the chop is no
 *     last copy;
 *   - a discard of a card everyone knows is playable tells the one player
 *     whose newest card is that same card to play it.
 * A clue is given only when everyone's reading of it is true (simulated on a
 * copy), never about a card somebody already knows to play, and never one
 * that leaves the next player's chop on a last copy.
 *
 * Stateless: every call replays the public history of the masked state
 * (hn_mask) from the deal and reads every clue by the conventions, as every
 * player does, whoever gave it (a bot or a person). What everybody knows
 * about each card in each hand (common knowledge) is a set of identities
 * (cset); the seat adds what it sees. The state is masked again here, so
 * nothing its seat may not see is ever read, even from a full state.
 *
 * Explanations go to every reader: they say the play, what the conventions
 * publicly make of it and the public state; never a card of a hand beyond
 * what clues and conventions said. Cards are counted 1..n from the oldest
 * (card 1 is the oldest, leftmost); players are named by seat number.
 */
#include "hn.h"

#include <stdio.h>
#include <string.h>

typedef uint32_t cset; /* bit card-1 = suit*5 + rank-1: 30 identities at most */

enum { NO = 0, MAYBE = 1, YES = 2 };
/* what the conventions said of a card (for explanations; T_CLUED for the chop) */
enum { T_PLAY = 1, T_SAVE = 2, T_SAFE = 4, T_FIN = 8, T_CLUED = 16 };

typedef struct cv {
    int np, ns, me, variant, ndeck, next;
    int hints, errors;
    int turns; /* turns left in the game, this one included; 99 before the final round */
    int nhand[HN_MAXP];
    uint8_t card[HN_MAXP][HN_MAXHAND]; /* as `me` sees it; 0 unknown (own hand) */
    cset poss[HN_MAXP][HN_MAXHAND];    /* common knowledge: identities still possible */
    uint8_t tag[HN_MAXP][HN_MAXHAND];  /* T_* */
    uint8_t fire[HN_MAXSUITS];
    uint8_t gone[HN_MAXSUITS][6]; /* copies played or discarded */
    cset all, play, valu, trash;  /* identities: in the game, playable now, last copies, useless */
} cv;

static const char *const COLOUR[] = {"red", "yellow", "blue", "green", "white", "rainbow"};

static int pc(cset x) { return __builtin_popcount(x); }
static cset bit(int c) { return c ? 1u << (c - 1) : 0; }
static int bit_card(cset x) { return x ? __builtin_ctz(x) + 1 : 0; } /* the lowest identity */
static int deck_left(const cv *v) { return v->ndeck - v->next; }
static int tri(cset p, cset m) { return !(p & m) ? NO : !(p & ~m) ? YES : MAYBE; }
static double prob(cset p, cset m) { return pc(p) ? (double)pc(p & m) / pc(p) : 0; }

static cset clue_set(const cv *v, int type, int value)
{
    cset m = 0;
    if (type == HN_HINT_COLOR) {
        m = 0x1fu << (5 * value);
        if (v->variant)
            m |= 0x1fu << (5 * HN_RAINBOW); /* every colour clue touches rainbow */
    } else {
        for (int s = 0; s < v->ns; s++)
            m |= bit(hn_card(s, value));
    }
    return m & v->all;
}

static int touched_mask(const cv *v, int to, int type, int value)
{
    cset m = clue_set(v, type, value);
    int t = 0;
    for (int i = 0; i < v->nhand[to]; i++)
        if (m & bit(v->card[to][i]))
            t |= 1 << i;
    return t;
}

/* playable / last copies / useless for the current piles and discards */
static void masks(cv *v)
{
    v->play = v->valu = v->trash = 0;
    for (int s = 0; s < v->ns; s++) {
        int dead = 0;
        for (int r = 1; r <= 5; r++) {
            cset b = bit(hn_card(s, r));
            if (r <= v->fire[s] || dead) {
                v->trash |= b;
            } else {
                if (r == v->fire[s] + 1)
                    v->play |= b;
                if (v->gone[s][r] == hn_copies(r) - 1)
                    v->valu |= b;
            }
            if (r > v->fire[s] && v->gone[s][r] >= hn_copies(r))
                dead = 1; /* every copy discarded: the higher ranks are useless */
        }
    }
}

/* Narrow a card's possibilities; a result that leaves nothing (a clue or a
 * convention at odds with what was known, as a person's slip can be) keeps
 * what was known. */
static void narrow(cv *v, int p, int i, cset m)
{
    if (v->poss[p][i] & m)
        v->poss[p][i] &= m;
}

/* Identities whose every copy is on the piles, in the discards or `held`. */
static cset exhausted(const cv *v, const uint8_t held[HN_MAXSUITS][6])
{
    cset x = 0;
    for (int s = 0; s < v->ns; s++)
        for (int r = 1; r <= 5; r++)
            if (v->gone[s][r] + held[s][r] >= hn_copies(r))
                x |= bit(hn_card(s, r));
    return x;
}

/* Common knowledge: a card nobody has identified is none of the cards whose
 * every copy is played, discarded or identified elsewhere; until stable. */
static void settle(cv *v)
{
    for (int round = 0; round < 30; round++) {
        uint8_t held[HN_MAXSUITS][6];
        memset(held, 0, sizeof held);
        for (int p = 0; p < v->np; p++)
            for (int i = 0; i < v->nhand[p]; i++)
                if (pc(v->poss[p][i]) == 1) {
                    int c = bit_card(v->poss[p][i]);
                    held[hn_suit(c)][hn_rank(c)]++;
                }
        cset x = exhausted(v, held);
        int moved = 0;
        for (int p = 0; p < v->np; p++)
            for (int i = 0; i < v->nhand[p]; i++) {
                cset t = v->poss[p][i];
                if (pc(t) > 1 && (t & x) && (t & ~x)) {
                    v->poss[p][i] = t & ~x;
                    moved |= pc(t & ~x) == 1;
                }
            }
        if (!moved)
            return;
    }
}

/* The chop of player p: the card they discard next; -1 when they have a
 * card known playable or known useless (they play or discard that first)
 * or every card is a known keeper. Cards no clue touched come first; among
 * them (else among the clued ones) the likeliest to be useless by what
 * everybody knows; the oldest on a tie. */
static int chop(const cv *v, int p)
{
    int best = -1;
    double bf = -1;
    for (int i = 0; i < v->nhand[p]; i++) {
        cset t = v->poss[p][i];
        if (tri(t, v->play) == YES || tri(t, v->trash) == YES)
            return -1;
        if (tri(t, v->valu) == YES)
            continue;
        double f = prob(t, v->trash) + (v->tag[p][i] & T_CLUED ? 0 : 2);
        if (f > bf) {
            bf = f;
            best = i;
        }
    }
    return best;
}

/* Could a card with possibilities t be a last copy if it were an r? */
static int could_be_valuable_as(const cv *v, cset t, int r)
{
    cset rs = clue_set(v, HN_HINT_NUMBER, r);
    return tri(t, v->valu) == MAYBE && (t & rs & v->valu);
}

/* `from` acted without saving the next player (who could have been saved:
 * a token was left and the deck was not empty): their chop is no last copy. */
static void no_save(cv *v, int from)
{
    if (deck_left(v) == 0 || v->hints == 0)
        return;
    int p = (from + 1) % v->np, d = chop(v, p);
    if (d >= 0) {
        narrow(v, p, d, ~v->valu);
        v->tag[p][d] |= T_SAFE;
    }
}

/* Read a clue (before its token is spent); `touched`: hand indexes it
 * touched. Returns the card it asks to play (-1 none); *save: the chop it
 * saves (-1 none). */
static int read_clue(cv *v, int from, int to, int type, int value, int touched, int *save)
{
    int nxt = (from + 1) % v->np;
    int dix = to == nxt ? chop(v, to) : -1;
    int warn = type == HN_HINT_NUMBER && dix >= 0 && (touched >> dix & 1) &&
               could_be_valuable_as(v, v->poss[to][dix], value);
    *save = -1;
    if (warn) {
        narrow(v, to, dix, v->valu);
        v->tag[to][dix] |= T_SAVE;
        *save = dix;
    }
    cset m = clue_set(v, type, value);
    int proved = 0, focus = -1;
    for (int i = v->nhand[to] - 1; i >= 0; i--) {
        int was = tri(v->poss[to][i], v->play) == MAYBE;
        int hit = touched >> i & 1;
        narrow(v, to, i, hit ? m : ~m);
        if (hit)
            v->tag[to][i] |= T_CLUED;
        if (!was)
            continue;
        int now = tri(v->poss[to][i], v->play);
        if (now == YES)
            proved = 1;
        else if (hit && now == MAYBE && focus < 0)
            focus = i;
    }
    int target = -1;
    if (!warn && !proved && focus >= 0) {
        narrow(v, to, focus, v->play);
        v->tag[to][focus] |= T_PLAY;
        target = focus;
    }
    if (to != nxt)
        no_save(v, from);
    return target;
}

/* A discard of a card everyone knows is playable: the one player whose
 * newest card is that card (as the discarder saw it) is to play it. */
static void read_discard(cv *v, int from, int idx, int c)
{
    cset t = v->poss[from][idx];
    if (pc(t) != 1 || tri(t, v->play) != YES)
        return;
    for (int p = 0; p < v->np; p++) {
        if (p == from || p == v->me || !v->nhand[p])
            continue;
        if (v->card[p][v->nhand[p] - 1] == c) {
            narrow(v, p, v->nhand[p] - 1, bit(c));
            v->tag[p][v->nhand[p] - 1] |= T_FIN;
            return;
        }
    }
    if (v->me >= 0 && v->me != from && v->nhand[v->me]) { /* nobody else has it: then I do */
        narrow(v, v->me, v->nhand[v->me] - 1, bit(c));
        v->tag[v->me][v->nhand[v->me] - 1] |= T_FIN;
    }
}

static void take(cv *v, int p, int i)
{
    for (int k = i; k + 1 < v->nhand[p]; k++) {
        v->card[p][k] = v->card[p][k + 1];
        v->poss[p][k] = v->poss[p][k + 1];
        v->tag[p][k] = v->tag[p][k + 1];
    }
    v->nhand[p]--;
}

static void draw(cv *v, const hn_state *m, int p)
{
    if (v->next >= v->ndeck || v->nhand[p] >= HN_MAXHAND)
        return;
    int n = v->nhand[p]++;
    v->card[p][n] = p == v->me ? 0 : m->deck[v->next];
    v->poss[p][n] = v->all;
    v->tag[p][n] = 0;
    v->next++;
}

/* Replay the history of the masked state m as seat `me` lived it. */
static void replay(const hn_state *m, int me, cv *v)
{
    memset(v, 0, sizeof *v);
    v->np = m->np;
    v->ns = m->nsuits;
    v->me = me;
    v->variant = m->variant;
    v->ndeck = m->ndeck;
    v->hints = HN_MAXHINTS;
    v->turns = m->final_left >= 0 ? m->final_left : 99;
    v->all = (1u << (5 * m->nsuits)) - 1;
    for (int p = 0; p < v->np; p++)
        for (int i = 0; i < m->handsize; i++)
            draw(v, m, p);
    masks(v);
    for (int j = 0; j < m->nhist; j++) {
        const hn_hist *h = &m->hist[j];
        int from = h->seat, save;
        if (from >= v->np)
            break;
        settle(v);
        if (h->type == HN_HINT_COLOR || h->type == HN_HINT_NUMBER) {
            if (h->target < v->np)
                read_clue(v, from, h->target, h->type, h->value, h->touched, &save);
            v->hints--;
            continue;
        }
        int idx = h->target, c = h->card;
        if (idx >= v->nhand[from] || !c)
            break;
        no_save(v, from);
        if (h->type == HN_DISCARD) {
            read_discard(v, from, idx, c);
            v->hints++;
        } else if (h->correct) {
            v->fire[hn_suit(c)] = (uint8_t)hn_rank(c);
            if (hn_rank(c) == 5 && v->hints < HN_MAXHINTS)
                v->hints++;
        } else {
            v->errors++;
        }
        v->gone[hn_suit(c)][hn_rank(c)]++;
        take(v, from, idx);
        draw(v, m, from);
        masks(v);
    }
    settle(v);
}

/* --- choosing ------------------------------------------------------------- */

typedef struct hint {
    int fit, to, type, value;
} hint;

/* Identities `me` sees every copy of: piles, discards, partners' hands and
 * my cards everyone has identified. */
static cset eye_exhausted(const cv *v)
{
    uint8_t held[HN_MAXSUITS][6];
    memset(held, 0, sizeof held);
    for (int p = 0; p < v->np; p++)
        for (int i = 0; i < v->nhand[p]; i++) {
            int c = p != v->me ? v->card[p][i] : pc(v->poss[p][i]) == 1 ? bit_card(v->poss[p][i]) : 0;
            if (c)
                held[hn_suit(c)][hn_rank(c)]++;
        }
    return exhausted(v, held);
}

/* What `me` knows of its card i; 0 when that contradicts what it sees
 * (a misleading clue): such a card is neither played nor thrown as useless. */
static cset eye(const cv *v, int i, cset x)
{
    cset t = v->poss[v->me][i];
    return pc(t) == 1 ? t : t & ~x;
}

/* Every partner's card still agrees with what everybody would believe. */
static int consistent(const cv *v)
{
    for (int p = 0; p < v->np; p++)
        if (p != v->me)
            for (int i = 0; i < v->nhand[p]; i++)
                if (!(v->poss[p][i] & bit(v->card[p][i])))
                    return 0;
    return 1;
}

/* The best clue for partner `to` (fit 0: none). Each clue is read on a copy
 * as everybody will read it; kept only when that reading is true, it is no
 * save, and (need) it makes a card known playable that nobody else already
 * knows to play; a clue to the next player must not leave their chop on a
 * last copy. Fitness: possibilities removed, nearer players first. */
static hint best_clue_for(const cv *v, int to, int need)
{
    hint best = {0, to, 0, 0};
    int n = v->nhand[to], dist = (to - v->me + v->np) % v->np;
    if (dist >= v->turns)
        return best; /* they have no turn left */
    cset known = 0; /* cards somebody already knows to play */
    for (int p = 0; p < v->np; p++)
        for (int i = 0; i < v->nhand[p]; i++) {
            cset t = v->poss[p][i];
            if (tri(t, v->play) != YES)
                continue;
            if (p != v->me)
                known |= bit(v->card[p][i]);
            else if (pc(t) == 1)
                known |= t;
        }
    for (int type = HN_HINT_COLOR; type <= HN_HINT_NUMBER; type++)
        for (int val = type == HN_HINT_COLOR ? 0 : 1; val <= (type == HN_HINT_COLOR ? 4 : 5); val++) {
            int touched = touched_mask(v, to, type, val), save;
            if (!touched)
                continue;
            cv w = *v;
            read_clue(&w, v->me, to, type, val, touched, &save);
            if (save >= 0)
                continue;
            w.hints--;
            settle(&w);
            if (!consistent(&w))
                continue;
            int fit = 0, newp = 0;
            cset kn = known;
            for (int i = 0; i < n; i++) {
                fit += pc(v->poss[to][i]) - pc(w.poss[to][i]);
                if (tri(w.poss[to][i], w.play) == YES && tri(v->poss[to][i], v->play) != YES &&
                    !(kn & bit(v->card[to][i]))) {
                    newp++;
                    kn |= bit(v->card[to][i]);
                }
            }
            if (need && !newp)
                continue;
            if (to == (v->me + 1) % v->np) {
                int d = chop(&w, to);
                if (d >= 0 && (w.valu & bit(w.card[to][d])))
                    continue;
            }
            fit = fit * 8 - 4 * dist;
            if (fit > best.fit)
                best = (hint){fit, to, type, val};
        }
    return best;
}

static hint best_clue(const cv *v, int need)
{
    hint b = {0, 0, 0, 0};
    for (int d = 1; d < v->np; d++) {
        hint c = best_clue_for(v, (v->me + d) % v->np, need);
        if (c.fit > b.fit)
            b = c;
    }
    return b;
}

static void list_cards(int mask, int n, char *out, size_t len)
{
    int k = 0;
    out[0] = 0;
    for (int i = 0; i < n; i++)
        if (mask >> i & 1) {
            size_t l = strlen(out);
            snprintf(out + l, len - l, "%s%d", k++ ? ", " : "", i + 1);
        }
}

/* The explanation of a clue: what it touches (the hand indexes `touched`,
 * which the clue shows everyone) and how everybody reads it. */
static void say_clue(const cv *v, const hint *h, int touched, char *why, size_t whylen, int you, const char *tail)
{
    cv w = *v;
    int save, n = v->nhand[h->to];
    int target = read_clue(&w, v->me, h->to, h->type, h->value, touched, &save);
    settle(&w);
    char what[48], cards[24], proved[24];
    if (h->type == HN_HINT_COLOR)
        snprintf(what, sizeof what, "%s%s", COLOUR[h->value], v->variant ? " (rainbow too)" : "");
    else
        snprintf(what, sizeof what, "%ds", h->value);
    list_cards(touched, n, cards, sizeof cards);
    int pm = 0;
    for (int i = 0; i < n; i++)
        if (tri(w.poss[h->to][i], w.play) == YES && tri(v->poss[h->to][i], v->play) != YES)
            pm |= 1 << i;
    list_cards(pm, n, proved, sizeof proved);
    const char *s = pc((cset)touched) > 1 ? "s" : "", *verb = you ? "Clue" : "clues";
    if (save >= 0)
        snprintf(why, whylen, "%s player %d's %s (card%s %s): a save clue on their chop, card %d: "
                 "keep it, it is the last copy of a card we still need%s", verb, h->to + 1, what, s, cards, save + 1,
                 tail);
    else if (target >= 0)
        snprintf(why, whylen, "%s player %d's %s (card%s %s): a play clue: card %d, the newest it "
                 "touches that could be playable now, is playable now%s", verb, h->to + 1, what, s, cards, target + 1,
                 tail);
    else if (pm)
        snprintf(why, whylen, "%s player %d's %s (card%s %s): now they know card%s %s %s playable%s", verb,
                 h->to + 1, what, s, cards, pc((cset)pm) > 1 ? "s" : "", proved, pc((cset)pm) > 1 ? "are" : "is", tail);
    else
        snprintf(why, whylen, "%s player %d's %s (card%s %s): information only, none of the "
                 "touched cards can be playable now%s", verb, h->to + 1, what, s, cards, tail);
}

/* The clue said when all 8 tokens are in: a discard is not allowed. */
static const char FULL[] = "; all 8 clue tokens are in, so no discard is allowed";

/* deck size at which to risk a card, by errors left */
static const int risk_at[HN_MAXERRORS + 1] = {-99, 1, 1, 2};

static void give(const cv *v, const hint *h, hn_play *out, char *why, size_t whylen, int you, const char *tail)
{
    *out = (hn_play){h->type, h->to, h->value};
    say_clue(v, h, touched_mask(v, h->to, h->type, h->value), why, whylen, you, tail);
}

/* The play and its reason, in the bot's voice (you == 0: "plays card 2:
 * ...", the seat named by whoever shows it) or, for help mode, to the
 * player (you == 1: "Play your card 2: ..."). */
static void conv_choose(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen, int you)
{
    hn_state m; /* masked again: never read what this seat may not see */
    cv v;
    hn_mask(masked, seat, &m);
    replay(&m, seat, &v);
    int me = seat, n = v.nhand[me], nxt = (me + 1) % v.np, dl = deck_left(&v);
    cset ex = eye_exhausted(&v);

    /* a card I know is playable: a card the others do not know I know first
     * (before someone spends a clue on it), then the lowest */
    int playi = -1;
    double bf = 0;
    for (int i = 0; i < n; i++) {
        cset e = eye(&v, i, ex);
        if (!e || tri(e, v.play) != YES)
            continue;
        double f = pc(e) == 1 ? 6 - hn_rank(bit_card(e)) : 7;
        if (tri(v.poss[me][i], v.play) != YES)
            f += 100;
        if (f > bf) {
            bf = f;
            playi = i;
        }
    }
    /* a risky play when the deck is nearly out: the card likeliest to fit */
    int risk = -1;
    bf = 0;
    if (v.errors < HN_MAXERRORS && dl <= risk_at[HN_MAXERRORS - v.errors])
        for (int i = n - 1; i >= 0; i--) {
            cset e = eye(&v, i, ex);
            if (tri(e, v.play) == MAYBE && prob(e, v.play) > bf) {
                bf = prob(e, v.play);
                risk = i;
            }
        }
    if (risk >= 0 && v.errors >= HN_MAXERRORS - 1) /* one more error ends the game */
        for (int d = 1; d < v.np && d < v.turns; d++)
            for (int i = 0; i < v.nhand[(me + d) % v.np]; i++)
                if (tri(v.poss[(me + d) % v.np][i], v.play) == YES)
                    risk = -1; /* not while a partner with a turn left has a sure play */
    const char *pwhy = "";
    if (playi >= 0) {
        uint8_t tg = v.tag[me][playi];
        pwhy = tri(v.poss[me][playi], v.play) != YES ? (you ? "the clues and the cards you see prove it fits a pile"
                                                            : "the clues and the cards it sees prove it fits a pile")
               : tg & T_FIN ? "a discard finesse: the discarded card was this one"
               : tg & T_PLAY ? "a play clue asked for it"
                             : "the clues prove it fits a pile";
    }
    char txt[40];
    snprintf(txt, sizeof txt, dl ? "the deck is nearly out" : "the deck is empty");

    /* 1. with the deck empty, play what can be played */
    if (dl == 0 && playi >= 0) {
        *out = (hn_play){HN_PLAY, playi, 0};
        snprintf(why, whylen, "%s %d: %s", you ? "Play your card" : "plays card", playi + 1, pwhy);
        return;
    }
    if (dl == 0 && risk >= 0) {
        *out = (hn_play){HN_PLAY, risk, 0};
        snprintf(why, whylen, "%s %d: the deck is empty and nothing is sure, so %s", you ? "Play your card" : "plays card",
                 risk + 1, you ? "take a risk" : "it takes a risk");
        return;
    }

    /* 2. the next player's chop is a last copy: a play clue that keeps it
     * safe, else a save clue */
    if (v.hints > 0) {
        int d = chop(&v, nxt);
        if (d >= 0 && (v.valu & bit(v.card[nxt][d]))) {
            hint b = best_clue_for(&v, nxt, 1);
            if (b.fit <= 0)
                b = (hint){1, nxt, HN_HINT_NUMBER, hn_rank(v.card[nxt][d])};
            give(&v, &b, out, why, whylen, you, "");
            return;
        }
    }

    /* 3. discard finesse */
    if (v.hints < HN_MAXHINTS)
        for (int i = 0; i < n; i++) {
            cset t = v.poss[me][i];
            if (pc(t) != 1 || !(t & v.play) || (t & v.valu))
                continue;
            int c = bit_card(t), cnt = 0, who = -1;
            for (int p = 0; p < v.np; p++)
                if (p != me && v.nhand[p] && v.card[p][v.nhand[p] - 1] == c) {
                    cnt++;
                    who = p;
                }
            if (cnt == 1) {
                *out = (hn_play){HN_DISCARD, i, 0};
                snprintf(why, whylen, "%s %d, which everybody knows is playable: a discard "
                         "finesse: player %d's newest card is that same card, so they should play it",
                         you ? "Discard your card" : "discards card", i + 1, who + 1);
                return;
            }
        }

    /* 4. play */
    if (playi >= 0) {
        *out = (hn_play){HN_PLAY, playi, 0};
        snprintf(why, whylen, "%s %d: %s", you ? "Play your card" : "plays card", playi + 1, pwhy);
        return;
    }

    /* 5. a play clue */
    if (v.hints > 0) {
        hint b = best_clue(&v, 1);
        if (b.fit > 0) {
            give(&v, &b, out, why, whylen, you, "");
            return;
        }
    }

    /* 6. a risk when the deck is nearly out */
    if (risk >= 0) {
        *out = (hn_play){HN_PLAY, risk, 0};
        snprintf(why, whylen, "%s %d: %s and nothing is sure, so %s", you ? "Play your card" : "plays card", risk + 1,
                 txt, you ? "take a risk" : "it takes a risk");
        return;
    }

    /* 7. all 8 tokens (no discard allowed): the most telling clue that reads true */
    if (v.hints >= HN_MAXHINTS) {
        hint b = best_clue(&v, 0);
        if (b.fit > 0) {
            give(&v, &b, out, why, whylen, you, FULL);
            return;
        }
        hn_play all[HN_MAXLEGAL]; /* nothing reads true: any legal clue */
        hn_state *st = &m;
        st->cur = (uint8_t)me;
        int k = hn_legal(st, all), pick = -1, any = -1;
        for (int j = 0; j < k && pick < 0; j++)
            if (all[j].type == HN_HINT_COLOR || all[j].type == HN_HINT_NUMBER) {
                cv w = v;
                int save;
                read_clue(&w, me, all[j].target, all[j].type, all[j].value,
                          touched_mask(&v, all[j].target, all[j].type, all[j].value), &save);
                if (any < 0)
                    any = j;
                if (consistent(&w))
                    pick = j;
            }
        if (pick < 0)
            pick = any;
        if (pick >= 0) {
            hint h = {1, all[pick].target, all[pick].type, all[pick].value};
            give(&v, &h, out, why, whylen, you, FULL);
            return;
        }
        *out = (hn_play){HN_PLAY, 0, 0}; /* unreachable: with 8 tokens a clue exists */
        snprintf(why, whylen, "%s 1: nothing else is legal", you ? "Play your card" : "plays card");
        return;
    }

    /* 8. discard: a card known useless, else the chop, else the keeper needed last */
    int bi = -1;
    bf = 0;
    for (int i = 0; i < n; i++) {
        cset t = v.poss[me][i], e = eye(&v, i, ex);
        if (tri(t, v.trash) == NO || !e || tri(e, v.trash) != YES)
            continue;
        double f = 2.0 - prob(t, v.trash); /* one the others do not know is useless first */
        if (f > bf) {
            bf = f;
            bi = i;
        }
    }
    if (bi >= 0) {
        *out = (hn_play){HN_DISCARD, bi, 0};
        snprintf(why, whylen, "%s %d: %s", you ? "Discard your card" : "discards card", bi + 1,
                 tri(v.poss[me][bi], v.trash) == YES ? "the clues prove it can no longer be played"
                 : you ? "the clues and the cards you see prove it can no longer be played"
                       : "the clues and the cards it sees prove it can no longer be played");
        return;
    }
    int d = chop(&v, me);
    if (d >= 0) {
        *out = (hn_play){HN_DISCARD, d, 0};
        snprintf(why, whylen, "%s chop, card %d: no play and no useful clue, and a discard "
                 "gains a clue token", you ? "Discard your" : "discards its", d + 1);
        return;
    }
    int br = -1;
    bi = 0;
    for (int i = 0; i < n; i++) {
        cset t = v.poss[me][i];
        int r = 0;
        for (int rr = 5; rr >= 1 && !r; rr--)
            if (t & clue_set(&v, HN_HINT_NUMBER, rr))
                r = rr;
        if (r > br) {
            br = r;
            bi = i;
        }
    }
    *out = (hn_play){HN_DISCARD, bi, 0};
    snprintf(why, whylen, "%s %d: every card %s is one to keep, and this one is needed last",
             you ? "Discard your card" : "discards card", bi + 1, you ? "you hold" : "it holds");
}

void hn_conv_bot(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen)
{
    conv_choose(masked, seat, out, why, whylen, 0);
}

void hn_conv_hint(const hn_state *masked, int seat, hn_play *out, char *why, size_t whylen)
{
    conv_choose(masked, seat, out, why, whylen, 1);
}

/* --- the public line -------------------------------------------------------- */

/* The state as a spectator may know it: no card of any hand, of the deck,
 * or drawn; the piles, the discards and every action stay. */
static void mask_public(const hn_state *st, hn_state *out)
{
    *out = *st;
    memset(out->deck, 0, sizeof out->deck);
    memset(out->hand, 0, sizeof out->hand);
    for (int j = 0; j < out->nhist; j++)
        out->hist[j].drew = 0;
    memset(&out->rng, 0, sizeof out->rng);
    out->seed = 0;
}

static void say_play(const cv *v, int i, char *out, size_t n)
{
    cset t = v->poss[v->me][i];
    int dl = deck_left(v);
    if (tri(t, v->play) == YES)
        snprintf(out, n, "plays card %d: %s", i + 1,
                 v->tag[v->me][i] & T_FIN ? "a discard finesse: the discarded card was this one"
                 : v->tag[v->me][i] & T_PLAY ? "a play clue asked for it"
                                             : "the clues prove it fits a pile");
    else if (v->errors < HN_MAXERRORS && dl <= risk_at[HN_MAXERRORS - v->errors])
        snprintf(out, n, "plays card %d: the clues alone do not prove it fits a pile; with the deck %s it "
                 "plays the card likeliest to fit", i + 1, dl ? "nearly out" : "empty");
    else
        snprintf(out, n, "plays card %d: the clues alone do not prove it fits a pile, but the cards it sees "
                 "show it does", i + 1);
}

static void say_discard(const cv *v, int i, char *out, size_t n)
{
    cset t = v->poss[v->me][i];
    if (tri(t, v->trash) == YES)
        snprintf(out, n, "discards card %d: the clues prove it can no longer be played", i + 1);
    else if (pc(t) == 1 && (t & v->play) && !(t & v->valu))
        snprintf(out, n, "discards card %d, which everybody knows is playable: a discard finesse: the "
                 "player whose newest card is that same card should play it", i + 1);
    else if (i == chop(v, v->me))
        snprintf(out, n, "discards its chop, card %d: no play and no useful clue, and a discard gains a clue "
                 "token", i + 1);
    else
        snprintf(out, n, "discards card %d: no card it holds is known playable, and it judges this one the "
                 "least needed", i + 1);
}

void hn_conv_explain(const hn_state *st, int seat, const hn_play *p, int touched, char *out, size_t n)
{
    hn_state m;
    cv v;
    mask_public(st, &m);
    replay(&m, -1, &v); /* what everybody knows: a replay that sees no card */
    v.me = seat;        /* the mover, for the readings below: they read no card */
    if (p->type == HN_PLAY) {
        say_play(&v, p->target, out, n);
    } else if (p->type == HN_DISCARD) {
        say_discard(&v, p->target, out, n);
    } else {
        hint h = {1, p->target, p->type, p->value};
        say_clue(&v, &h, touched, out, n, 0, v.hints >= HN_MAXHINTS ? FULL : "");
    }
}

json_t *hn_conv_rules(void)
{
    json_t *rules = json_pack(
        "[s,s,s,s,s,s,s,s,s,s,s]",
        "Cards are counted from the oldest: card 1 is the oldest (leftmost) card of a hand, a new card "
        "is drawn to the right, as the newest.",
        "On your turn: play a card you know is playable; else save or clue; else discard. The bots do "
        "exactly this, in the order given here.",
        "Chop: the card you discard next. It is a card no clue has touched (if every card was touched: "
        "any card not known to be needed), the one the clues make likeliest to be useless, the oldest "
        "on a tie: usually your oldest unclued card. A card you know is playable or useless goes first.",
        "Play clue: every clue asks for a play. Of the cards it touches that might be playable right "
        "now, the newest is playable now: play it. If the clue by itself proves a card playable (a 1 "
        "clue at the start), that is all it says.",
        "Save clue: a number clue to the player right after the clue giver that touches their chop, when "
        "the chop could be the last copy of a needed card with that number (a 5, or a card whose other "
        "copies are discarded), says: keep your chop, it is a last copy. It asks for no play.",
        "Safe chop: if the player before you had a clue token and the deck was not empty but gave you no "
        "clue, your chop is not a last copy; discard it without fear.",
        "Discard finesse: discarding a card everybody knows is playable tells the one player whose newest "
        "card is that same card to play it.",
        "Give only clues whose reading is true: never a play clue on a card that is not playable now, "
        "never a clue on a card somebody already knows to play; prefer the clue that tells the most, to "
        "the nearest player. Never leave the next player's chop on a last copy.",
        "With all 8 clue tokens in (no discard allowed), give the clue that tells the most.",
        "Discard a card known to be useless first, else your chop.",
        "When the deck is nearly out (2 cards with no error made, 1 otherwise) or empty and nothing is "
        "sure, play the card likeliest to fit; with 2 errors made, not while a later player has a sure "
        "play.");
    return json_pack("{s:s,s:s,s:o,s:[s,s]}", "name", "conventions", "summary",
                     "Every clue is a play clue (the newest touched card that could be playable is), except a "
                     "number clue on the next player's chop: a save. Discard from the chop; play what you "
                     "know is playable.",
                     "rules", rules, "sources",
                     "SmartBot (github.com/Quuxplusone/Hanabi, SmartBot.cc)",
                     "H-group beginner conventions (hanabi.github.io): chop, play clue, save clue");
}
