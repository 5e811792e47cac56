/* hn_bots.c: strategies. Explanations count cards from 1 (card 1 is
 * the oldest), as the conventions bot and the page do; plays keep their
 * 0-based index. Both decide from an hn_obs, which holds no
 * card of the seat's own hand (only what hints told about them).
 *
 * "rules": certainty-based, no conventions beyond "a touched card is kept":
 *   1. play a card the hints (and the visible cards) prove playable;
 *   2. hint the nearest player so that one of their playable cards becomes
 *      provably playable to them (judged from public information only:
 *      hints, piles, discards, so they are sure to see it too);
 *   3. save the next player's oldest untouched card with a number hint when
 *      it is the last copy of a card still needed;
 *   4. with spare tokens, a first hint on a playable card of a nearer player;
 *   5. discard a card proven useless, else the oldest untouched card, else
 *      the oldest card; with 8 tokens (no discard) the most informative hint;
 *   6. in the final round with errors to spare, play the likeliest card.
 * It always ends on a legal play (a play is always legal).
 * "random": uniform over the legal plays (the bot RNG).
 *
 * Explanations are stored with the record and shown to every reader (the
 * hinted player, the spectators), so they say only what every reader may
 * know: the play itself, the public state (piles, discards, tokens, what
 * hints told) and the strategy's rule. Never a card of a hand, nor anything
 * learnt from one (that a touched card is playable, odds counted from the
 * hands the bot sees, how many plays the other hands allow).
 */
#include "hn.h"

#include <stdio.h>
#include <string.h>

/* Every legal play of o->seat (its turn assumed), from the observation. */
static int hn_obs_legal(const hn_obs *o, hn_play *out)
{
    int n = 0, s = o->seat;
    for (int i = 0; i < o->nhand[s]; i++)
        out[n++] = (hn_play){HN_PLAY, i, 0};
    if (o->hints < HN_MAXHINTS)
        for (int i = 0; i < o->nhand[s]; i++)
            out[n++] = (hn_play){HN_DISCARD, i, 0};
    if (o->hints > 0)
        for (int d = 1; d < o->np; d++) {
            int t = (s + d) % o->np, cols = 0, nums = 0;
            for (int i = 0; i < o->nhand[t]; i++) {
                int c = o->hand[t][i];
                if (hn_suit(c) == HN_RAINBOW)
                    cols |= 0x1f;
                else
                    cols |= 1 << hn_suit(c);
                nums |= 1 << hn_rank(c);
            }
            for (int c = 0; c < 5; c++)
                if (cols >> c & 1)
                    out[n++] = (hn_play){HN_HINT_COLOR, t, c};
            for (int r = 1; r <= 5; r++)
                if (nums >> r & 1)
                    out[n++] = (hn_play){HN_HINT_NUMBER, t, r};
        }
    return n;
}

void hn_random_bot(const hn_obs *o, rng *r, hn_play *out, char *why, size_t whylen)
{
    hn_play all[HN_MAXLEGAL];
    char text[120];
    int n = hn_obs_legal(o, all);
    *out = all[rng_below(r, (uint32_t)n)];
    hn_play_text(out, text, sizeof text);
    snprintf(why, whylen, "%s: chosen at random among the legal plays", text);
}

/* --- knowledge --------------------------------------------------------------- */

static int hits(const hn_obs *o, int suit, int c)
{
    return suit == c || (o->variant && suit == HN_RAINBOW);
}

/* Does (suit, rank) agree with what hints told (k)? */
static int agrees(const hn_obs *o, const hn_know *k, int s, int r)
{
    for (int c = 0; c < 5; c++) {
        if ((k->pos_col >> c & 1) && !hits(o, s, c))
            return 0;
        if ((k->neg_col >> c & 1) && hits(o, s, c))
            return 0;
    }
    if (k->neg_num >> r & 1)
        return 0;
    if (k->pos_num && k->pos_num != (1 << r))
        return 0;
    return 1;
}

static int playable(const hn_obs *o, int s, int r) { return o->fire[s] == r - 1; }

static int useless(const hn_obs *o, int s, int r)
{
    if (o->fire[s] >= r)
        return 1;
    for (int q = o->fire[s] + 1; q < r; q++)
        if (o->dead[s][q] >= hn_copies(q))
            return 1;
    return 0;
}

enum { K_PLAY = 1, K_USELESS = 2 };

/* What is provable about a card with knowledge k, counting `seen` copies
 * as unavailable (NULL: only piles and discards, the public count).
 * Returns K_* bits; *p_play receives the share of candidates playable. */
static int prove(const hn_obs *o, const hn_know *k, const uint8_t (*seen)[6], double *p_play)
{
    int all_play = 1, all_useless = 1, any = 0;
    double w = 0, wp = 0;
    for (int s = 0; s < o->nsuits; s++)
        for (int r = 1; r <= 5; r++) {
            if (!agrees(o, k, s, r))
                continue;
            int gone = seen ? seen[s][r] : o->dead[s][r] + (o->fire[s] >= r);
            int left = hn_copies(r) - gone;
            if (left <= 0)
                continue;
            any = 1;
            w += left;
            if (playable(o, s, r))
                wp += left;
            else
                all_play = 0;
            if (!useless(o, s, r))
                all_useless = 0;
            if (!p_play && !all_play && !all_useless)
                return 0; /* nothing left to prove */
        }
    if (p_play)
        *p_play = w > 0 ? wp / w : 0;
    if (!any)
        return 0;
    return (all_play ? K_PLAY : 0) | (all_useless ? K_USELESS : 0);
}

static void apply_hint(const hn_obs *o, int t, int type, int value, hn_know *k, int *touched)
{
    *touched = 0;
    for (int i = 0; i < o->nhand[t]; i++) {
        int c = o->hand[t][i];
        int hit = type == HN_HINT_COLOR ? hits(o, hn_suit(c), value) : hn_rank(c) == value;
        uint8_t bit = (uint8_t)(1u << value);
        if (hit)
            *touched |= 1 << i;
        if (type == HN_HINT_COLOR)
            hit ? (k[i].pos_col |= bit) : (k[i].neg_col |= bit);
        else
            hit ? (k[i].pos_num |= bit) : (k[i].neg_num |= bit);
    }
}

static int untouched(const hn_know *k) { return !k->pos_col && !k->pos_num; }

/* The last copy of a card still needed? */
static int critical(const hn_obs *o, int c)
{
    int s = hn_suit(c), r = hn_rank(c);
    return !useless(o, s, r) && o->dead[s][r] == hn_copies(r) - 1;
}

/* Best hint making a playable card provably playable: score > 0 when found. */
static int best_play_hint(const hn_obs *o, hn_play *out, int *made, int *tgt_card)
{
    int best = 0;
    for (int d = 1; d < o->np; d++) {
        int t = (o->seat + d) % o->np;
        int known[HN_MAXHAND]; /* playable and already provably so: no hint adds it */
        for (int i = 0; i < o->nhand[t]; i++) {
            int c = o->hand[t][i];
            known[i] = !playable(o, hn_suit(c), hn_rank(c)) || (prove(o, &o->know[t][i], NULL, NULL) & K_PLAY);
        }
        for (int type = HN_HINT_COLOR; type <= HN_HINT_NUMBER; type++)
            for (int v = type == HN_HINT_COLOR ? 0 : 1; v <= (type == HN_HINT_COLOR ? 4 : 5); v++) {
                hn_know k[HN_MAXHAND];
                int touched, newly = 0, first = -1;
                memcpy(k, o->know[t], sizeof k);
                apply_hint(o, t, type, v, k, &touched);
                if (!touched)
                    continue;
                for (int i = 0; i < o->nhand[t]; i++) {
                    int c = o->hand[t][i];
                    if (known[i])
                        continue;
                    if (prove(o, &k[i], NULL, NULL) & K_PLAY) {
                        newly++;
                        if (first < 0)
                            first = c;
                    }
                }
                int score = newly * 100 - d * 10 + (type == HN_HINT_NUMBER);
                if (newly && score > best) {
                    best = score;
                    *out = (hn_play){type, t, v};
                    *made = newly;
                    *tgt_card = first;
                }
            }
    }
    return best;
}

void hn_rules_bot(const hn_obs *o, hn_play *out, char *why, size_t whylen)
{
    int me = o->seat, n = o->nhand[me];
    char text[120];

    /* 1. a provably playable card (the lowest rank first: keep the piles moving) */
    int pick = -1;
    for (int i = 0; i < n; i++)
        if (prove(o, &o->know[me][i], o->seen, NULL) & K_PLAY) {
            pick = i;
            break;
        }
    if (pick >= 0) {
        *out = (hn_play){HN_PLAY, pick, 0};
        snprintf(why, whylen, "plays card %d: the hints prove it fits a firework pile", pick + 1);
        return;
    }

    /* 2. make a partner's playable card provable */
    if (o->hints > 0) {
        int made = 0, card = 0;
        if (best_play_hint(o, out, &made, &card) > 0) {
            hn_play_text(out, text, sizeof text);
            (void)card; /* never name the card: the hinted player reads this line too.
                           That a touched card is now provably playable follows from
                           the hints, piles and discards alone: public. */
            snprintf(why, whylen, "%s: then they know a touched card is playable", text);
            return;
        }
    }

    /* 3. save the next player's chop when it is the last copy */
    int next = (me + 1) % o->np;
    if (o->hints > 0 && o->deck_left > 0) {
        for (int i = 0; i < o->nhand[next]; i++) {
            if (!untouched(&o->know[next][i]))
                continue;
            int c = o->hand[next][i];
            if (critical(o, c)) {
                *out = (hn_play){HN_HINT_NUMBER, next, hn_rank(c)};
                hn_play_text(out, text, sizeof text); /* not why the card matters: that is hidden */
                snprintf(why, whylen, "%s: it touches their oldest unhinted card, so they keep it "
                         "rather than discard it", text);
                return;
            }
            break; /* only the oldest untouched card is in danger */
        }
    }

    /* 4. a first hint on a playable card, when tokens are plentiful */
    if (o->hints >= 4) {
        for (int d = 1; d < o->np; d++) {
            int t = (me + d) % o->np;
            for (int i = 0; i < o->nhand[t]; i++) {
                int c = o->hand[t][i];
                const hn_know *k = &o->know[t][i];
                if (!playable(o, hn_suit(c), hn_rank(c)))
                    continue;
                if (!k->pos_num) {
                    *out = (hn_play){HN_HINT_NUMBER, t, hn_rank(c)};
                } else if (!k->pos_col && hn_suit(c) != HN_RAINBOW) {
                    *out = (hn_play){HN_HINT_COLOR, t, hn_suit(c)};
                } else {
                    continue;
                }
                hn_play_text(out, text, sizeof text); /* not that the card is playable: hidden */
                snprintf(why, whylen, "%s: with %d hint tokens to spare, a hint that tells them "
                         "something new", text, o->hints);
                return;
            }
        }
    }

    /* 6. last round: a likely play beats a discard */
    if (o->deck_left == 0 && o->errors < HN_MAXERRORS - 1) {
        double best = 0;
        int bi = -1;
        for (int i = 0; i < n; i++) {
            double p;
            prove(o, &o->know[me][i], o->seen, &p);
            if (p > best) {
                best = p;
                bi = i;
            }
        }
        if (bi >= 0 && best >= 0.5) {
            *out = (hn_play){HN_PLAY, bi, 0};
            /* not the odds: they count the cards of the hands the bot sees */
            snprintf(why, whylen, "plays card %d: the deck is empty and an error can be afforded, "
                     "so it plays its likeliest card rather than discard", bi + 1);
            return;
        }
    }

    /* 5. discard */
    if (o->hints < HN_MAXHINTS) {
        for (int i = 0; i < n; i++)
            if (prove(o, &o->know[me][i], o->seen, NULL) & K_USELESS) {
                *out = (hn_play){HN_DISCARD, i, 0};
                snprintf(why, whylen, "discards card %d: the hints prove it can no longer be played", i + 1);
                return;
            }
        for (int i = 0; i < n; i++)
            if (untouched(&o->know[me][i])) {
                *out = (hn_play){HN_DISCARD, i, 0};
                snprintf(why, whylen, "discards card %d, the oldest card no hint touched, to gain a token", i + 1);
                return;
            }
        *out = (hn_play){HN_DISCARD, 0, 0};
        snprintf(why, whylen, "discards card 1, the oldest card (every card is hinted), to gain a token");
        return;
    }

    /* 8 tokens and nothing better: the hint touching the most untouched cards */
    hn_play all[HN_MAXLEGAL];
    int m = hn_obs_legal(o, all), best = -1, bi = -1;
    for (int j = 0; j < m; j++) {
        if (all[j].type != HN_HINT_COLOR && all[j].type != HN_HINT_NUMBER)
            continue;
        hn_know k[HN_MAXHAND];
        int t = all[j].target, touched, fresh = 0;
        memcpy(k, o->know[t], sizeof k);
        apply_hint(o, t, all[j].type, all[j].value, k, &touched);
        for (int i = 0; i < o->nhand[t]; i++)
            if ((touched >> i & 1) && untouched(&o->know[t][i]))
                fresh++;
        int d = (t - me + o->np) % o->np;
        int score = fresh * 10 - d;
        if (score > best) {
            best = score;
            bi = j;
        }
    }
    if (bi >= 0) {
        *out = all[bi];
        hn_play_text(out, text, sizeof text);
        snprintf(why, whylen, "%s: all 8 tokens are in hand, so a hint costs nothing", text);
        return;
    }
    *out = (hn_play){HN_PLAY, 0, 0}; /* unreachable: with 8 tokens a hint exists */
    snprintf(why, whylen, "plays card 1: no other play is legal");
}

/* --- the public lines of rules, random and info ------------------------------ */

/* What the hint p tells target's cards, given the cards it touches. */
static void tell(const hn_obs *o, const hn_play *p, int touched, hn_know *k)
{
    memcpy(k, o->know[p->target], sizeof o->know[p->target]);
    uint8_t bit = (uint8_t)(1u << p->value);
    for (int i = 0; i < o->nhand[p->target]; i++) {
        int hit = touched >> i & 1;
        if (p->type == HN_HINT_COLOR)
            hit ? (k[i].pos_col |= bit) : (k[i].neg_col |= bit);
        else
            hit ? (k[i].pos_num |= bit) : (k[i].neg_num |= bit);
    }
}

static void rules_hint(const hn_obs *o, const hn_play *p, int touched, const char *text, char *out, size_t n)
{
    hn_know k[HN_MAXHAND];
    int t = p->target, newly = 0, oldest = -1;
    tell(o, p, touched, k);
    for (int i = 0; i < o->nhand[t]; i++) {
        /* a card the hint proves playable: touched (1), or told what it is not (2) */
        if (!newly && (prove(o, &k[i], NULL, NULL) & K_PLAY) && !(prove(o, &o->know[t][i], NULL, NULL) & K_PLAY))
            newly = touched >> i & 1 ? 1 : 2;
        if (oldest < 0 && untouched(&o->know[t][i]))
            oldest = i;
    }
    if (newly)
        snprintf(out, n, "%s: then they know %s is playable", text,
                 newly == 1 ? "a touched card" : "one of their cards");
    else if (o->hints >= HN_MAXHINTS)
        snprintf(out, n, "%s: all 8 tokens are in hand, so a hint costs nothing", text);
    else if (p->type == HN_HINT_NUMBER && t == (o->seat + 1) % o->np && oldest >= 0 && (touched >> oldest & 1))
        snprintf(out, n, "%s: it touches their oldest unhinted card, so they keep it rather than discard it", text);
    else
        snprintf(out, n, "%s: with %d hint tokens to spare, a hint that tells them something new", text, o->hints);
}

static void rules_line(const hn_obs *o, const hn_play *p, int touched, const char *text, char *out, size_t n)
{
    int me = o->seat, i = p->target;
    if (p->type == HN_HINT_COLOR || p->type == HN_HINT_NUMBER) {
        rules_hint(o, p, touched, text, out, n);
    } else if (p->type == HN_PLAY) {
        if (prove(o, &o->know[me][i], NULL, NULL) & K_PLAY)
            snprintf(out, n, "plays card %d: the hints prove it fits a firework pile", i + 1);
        else if (o->deck_left == 0 && o->errors < HN_MAXERRORS - 1)
            snprintf(out, n, "plays card %d: the deck is empty and an error can be afforded, so it plays its "
                     "likeliest card rather than discard", i + 1);
        else
            snprintf(out, n, "plays card %d: the hints and the cards it sees prove it fits a firework pile", i + 1);
    } else {
        int first = 0; /* the oldest card no hint touched */
        while (first < o->nhand[me] && !untouched(&o->know[me][first]))
            first++;
        if (prove(o, &o->know[me][i], NULL, NULL) & K_USELESS)
            snprintf(out, n, "discards card %d: the hints prove it can no longer be played", i + 1);
        else if (i == first)
            snprintf(out, n, "discards card %d, the oldest card no hint touched, to gain a token", i + 1);
        else if (i == 0 && first == o->nhand[me])
            snprintf(out, n, "discards card 1, the oldest card (every card is hinted), to gain a token");
        else
            snprintf(out, n, "discards card %d: the hints and the cards it sees prove it can no longer be played",
                     i + 1);
    }
}

void hn_bots_explain(const hn_obs *o, const char *strategy, const hn_play *p, int touched, char *out, size_t n)
{
    char text[120];
    hn_play_text(p, text, sizeof text);
    if (strcmp(strategy, "random") == 0)
        snprintf(out, n, "%s: chosen at random among the legal plays", text);
    else if (strcmp(strategy, "rules") == 0)
        rules_line(o, p, touched, text, out, n);
    else if (p->type == HN_HINT_COLOR || p->type == HN_HINT_NUMBER) /* info */
        snprintf(out, n, "%s: a code: with the public card tables, it tells each other player something about "
                 "their own hand", text);
    else
        snprintf(out, n, "%s: the information strategy's %s, judged from the public card tables and the cards it "
                 "sees", text, p->type == HN_PLAY ? "play" : "discard");
}
