/* fc_bots.c: the computer players. All of them decide from an fc_obs (the
 * seat's own hand, the discard pile's top, counts), never from the state,
 * so help mode gives advice from what the seat may see.
 *
 * "strategy" (the strongest, used by help mode):
 * - Draw: take the discard pile's top when it is a joker or a wild card
 *   (they fit anywhere), when it lets the hand go out, or when the hand it
 *   makes (after the best discard) counts clearly less than the hand now
 *   (by more than a blind draw is worth on average); otherwise draw blind.
 * - Discard: go out whenever some discard leaves a complete arrangement.
 *   Otherwise keep every joker and wild card (they complete runs and books
 *   later) and drop the card that leaves the lowest count (potential2):
 *   3 x the points outside runs and books plus the points left if one more
 *   joker came. Ties: drop the higher card.
 * - Jokers and wilds: the exact arranger places them where they save the
 *   most points (gaps of runs, short books).
 * - Last turn (someone went out): minimise the exact points left, even if
 *   that means dropping a joker.
 * "greedy": takes the discard top only when it lowers the exact points at
 *   once, drops the card that leaves the fewest exact points (jokers too),
 *   goes out when it can.
 * "random": a uniformly random legal play.
 *
 * Explanations are written once, when the bot moves, and then shown to
 * every reader (the `applied` reply, the history, the events), so they are
 * written for the public: at an open table (every hand on view) they name
 * the hand's cards; at a closed one ({"open": false}) they name only cards
 * everybody has seen (the discard taken, the card discarded) and give no
 * hand contents, arrangement or point count, only the reason's kind. Help
 * mode (hint) talks to the seat itself and names its cards.
 */
#include "fc.h"

#include <stdio.h>
#include <string.h>

const char *const fc_bots[] = {"strategy", "greedy", "random", NULL};

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

/* Weights tuned by self-play against "greedy" (seeded, 600 games each). */
static const int fc_tune_a = 3, fc_tune_b = 1, fc_tune_c = 0, fc_tune_m = 25;

/* The strategy's count of a hand (lower is better): 3 x its points outside
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
    fc_arr after; /* arrangement after the discard */
} pick;

static void choose_discard(const uint8_t *h, int n, int wild, int exact, int allow_out, pick *best)
{
    int have = 0;
    int allwild = count_wild(h, n, wild) == n;
    uint8_t seen[FC_NTYPES + 1] = {0};
    for (int i = 0; i < n; i++) {
        int d = h[i];
        if (seen[d])
            continue;
        seen[d] = 1;
        uint8_t r[FC_HANDMAX];
        int m = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                r[m++] = h[j];
        pick c;
        memset(&c, 0, sizeof c);
        c.card = d;
        if (exact) {
            c.pts = fc_arrange(r, m, wild, &c.after);
            c.score = 2 * c.pts;
        } else {
            c.score = potential2(r, m, wild, &c.after);
            c.pts = c.after.points;
            if (fc_is_wild(d, wild) && !allwild)
                c.score += 100000;
        }
        c.go = allow_out && c.pts == 0;
        if (c.go)
            c.score = -1000 - fc_value(d, wild);
        int better = !have || c.score < best->score ||
                     (c.score == best->score && (fc_value(d, wild) > fc_value(best->card, wild) ||
                                                 (fc_value(d, wild) == fc_value(best->card, wild) &&
                                                  d < best->card)));
        if (better) {
            *best = c;
            have = 1;
        }
    }
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
    const char *who = hint ? "I recommend you" : "The computer";
    int pub = !hint && !o->open; /* for readers who do not see the hand */
    if (t) {
        fc_card_name(t, tn, sizeof tn);
        uint8_t h[FC_HANDMAX];
        memcpy(h, o->hand, (size_t)o->nhand);
        h[o->nhand] = (uint8_t)t;
        choose_discard(h, o->nhand + 1, wild, exact, 1, &p);
        if (p.card != t && (p.score < cur - fc_tune_m || fc_is_wild(t, wild) || (p.go && !o->last_turn)))
            take = 1;
        if (!o->can_draw)
            take = 1;
    }
    if (take) {
        adv->play = (fc_play){FC_PLAY_DRAW_DISCARD, 0, 0};
        adv->draw_source = FC_PLAY_DRAW_DISCARD;
        const char *verb = hint ? "take" : "drew";
        int g = group_of(&p.after, t);
        if (!o->can_draw && !(p.score < cur))
            snprintf(adv->why, sizeof adv->why, "%s %s the %s from the discard pile because the draw pile is empty.",
                     who, verb, tn);
        else if (p.go && !o->last_turn && pub)
            snprintf(adv->why, sizeof adv->why, "%s %s the %s from the discard pile because with it the hand can go out.",
                     who, verb, tn);
        else if (p.go && !o->last_turn)
            snprintf(adv->why, sizeof adv->why,
                     "%s %s the %s from the discard pile because with it the hand can go out after discarding the %s.",
                     who, verb, tn, (fc_card_name(p.card, buf, sizeof buf), buf));
        else if (fc_is_joker(t) || fc_rank(t) == wild)
            snprintf(adv->why, sizeof adv->why,
                     "%s %s the %s from the discard pile because it is %s: it can stand in for any card in a run or book.",
                     who, verb, tn, fc_is_joker(t) ? "a joker" : "wild this round");
        else if (pub)
            snprintf(adv->why, sizeof adv->why, "%s %s the %s from the discard pile because it %s.", who, verb, tn,
                     g >= 0 ? "completes a run or book in the hand" : "pairs with cards in the hand toward a run or book");
        else if (g >= 0) {
            fc_group_text(&p.after.g[g], wild, buf, sizeof buf);
            snprintf(adv->why, sizeof adv->why, "%s %s the %s from the discard pile because it completes %s.", who,
                     verb, tn, buf);
        } else
            snprintf(adv->why, sizeof adv->why,
                     "%s %s the %s from the discard pile because it pairs with cards in the hand toward a run or book, lowering the count of the hand from %d to %d points.",
                     who, verb, tn, now.points, p.after.points);
    } else {
        adv->play = (fc_play){FC_PLAY_DRAW_PILE, 0, 0};
        adv->draw_source = FC_PLAY_DRAW_PILE;
        const char *verb = hint ? "draw" : "drew";
        if (!t)
            snprintf(adv->why, sizeof adv->why, "%s %s from the draw pile because the discard pile is empty.", who,
                     verb);
        else if (p.card == t || (p.score >= cur && !fc_is_wild(t, wild)))
            snprintf(adv->why, sizeof adv->why,
                     "%s %s from the draw pile because the %s on the discard pile fits no run or book in the hand%s.",
                     who, verb, tn, exact ? " and would not lower its points" : " better than the cards already there");
        else
            snprintf(adv->why, sizeof adv->why, "%s %s from the draw pile because the %s on the discard pile would not help.",
                     who, verb, tn);
    }
}

static void strategy_discard(const fc_obs *o, int hint, fc_advice *adv)
{
    int wild = o->wild, exact = o->last_turn;
    char dn[40], at[300];
    pick p;
    memset(&p, 0, sizeof p);
    choose_discard(o->hand, o->nhand, wild, exact, !o->last_turn, &p);
    fc_arr before;
    fc_arrange(o->hand, o->nhand, wild, &before);
    fc_card_name(p.card, dn, sizeof dn);
    adv->discard = p.card;
    adv->go_out = p.go;
    adv->arr = p.after;
    adv->play = (fc_play){FC_PLAY_DISCARD, (uint8_t)p.card, (uint8_t)p.go};
    fc_arr_text(&p.after, wild, at, sizeof at);
    snprintf(adv->arr_why, sizeof adv->arr_why, "%s %s.", hint ? "Arrange your hand as" : "It lays out", at);
    const char *who = hint ? "I recommend you" : "The computer";
    const char *verb = hint ? "discard" : "discarded";
    int pub = !hint && !o->open; /* for readers who do not see the hand */
    if (p.go) {
        if (pub)
            snprintf(adv->why, sizeof adv->why, "%s %s the %s and went out because the rest of the hand forms runs and books.",
                     who, verb, dn);
        else
            snprintf(adv->why, sizeof adv->why, "%s %s the %s and %s because the rest of the hand forms %s.", who, verb,
                     dn, hint ? "go out" : "went out", at);
        snprintf(adv->go_out_why, sizeof adv->go_out_why,
                 "Go out now: after discarding the %s every card is in a run or book, so the hand scores 0.", dn);
        return;
    }
    if (o->last_turn)
        snprintf(adv->go_out_why, sizeof adv->go_out_why,
                 "Player %d has already gone out: this is the last turn, and the hand is laid out after it.",
                 o->out_seat);
    else
        snprintf(adv->go_out_why, sizeof adv->go_out_why,
                 "Do not go out yet: no discard leaves every card in a run or book (the best leaves %d points).",
                 p.after.points);
    if (o->last_turn && pub) {
        snprintf(adv->why, sizeof adv->why,
                 "%s %s the %s because this is the last turn after player %d went out and it is the card that leaves the fewest points in the hand.",
                 who, verb, dn, o->out_seat);
        return;
    }
    if (o->last_turn) {
        snprintf(adv->why, sizeof adv->why,
                 "%s %s the %s because this is the last turn after player %d went out and it is the card that leaves the fewest points (%d) in the hand.",
                 who, verb, dn, o->out_seat, p.after.points);
        return;
    }
    int highest = 1, isolated = !partner(p.card, before.left, before.nleft, wild);
    for (int i = 0; i < before.nleft; i++)
        if (!fc_is_wild(before.left[i], wild) && fc_value(before.left[i], wild) > fc_value(p.card, wild))
            highest = 0;
    if (in_left(&before, p.card) && isolated && highest)
        snprintf(adv->why, sizeof adv->why, "%s %s the %s because it is the highest card that fits no run or book.",
                 who, verb, dn);
    else if (in_left(&before, p.card) && isolated)
        snprintf(adv->why, sizeof adv->why,
                 "%s %s the %s because it fits no run or book, nor half of one, and the higher cards are closer to one.",
                 who, verb, dn);
    else if (in_left(&before, p.card))
        snprintf(adv->why, sizeof adv->why,
                 "%s %s the %s because it fits no run or book and the cards kept are closer to completing one.", who,
                 verb, dn);
    else if (pub)
        snprintf(adv->why, sizeof adv->why, "%s %s the %s because it is the card the hand misses least.", who, verb, dn);
    else
        snprintf(adv->why, sizeof adv->why,
                 "%s %s the %s because it is the card the hand misses least: the rest still forms %s.", who, verb,
                 dn, at);
    if (pub)
        return;
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
            choose_discard(h, o->nhand + 1, wild, 1, 1, &p);
            take = p.card != t && p.pts < fc_arrange(o->hand, o->nhand, wild, NULL);
        }
        *out = (fc_play){(uint8_t)(take ? FC_PLAY_DRAW_DISCARD : FC_PLAY_DRAW_PILE), 0, 0};
        if (t)
            fc_card_name(t, nm, sizeof nm);
        if (take)
            snprintf(why, n, "Greedy took the %s from the discard pile because it lowers the points in the hand now.", nm);
        else
            snprintf(why, n, "Greedy drew from the draw pile because the %s would not lower the points in the hand now.",
                     t ? nm : "(empty) discard pile");
        return;
    }
    pick p;
    choose_discard(o->hand, o->nhand, wild, 1, !o->last_turn, &p);
    *out = (fc_play){FC_PLAY_DISCARD, (uint8_t)p.card, (uint8_t)p.go};
    fc_card_name(p.card, nm, sizeof nm);
    if (o->open)
        snprintf(why, n, "Greedy discarded the %s%s because that leaves the fewest points (%d) in the hand.", nm,
                 p.go ? " and went out" : "", p.pts);
    else /* a closed table: no point count of a hidden hand */
        snprintf(why, n, "Greedy discarded the %s%s because that leaves the fewest points in the hand.", nm,
                 p.go ? " and went out" : "");
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
            snprintf(why, n, "Random took the %s from the discard pile by chance.", nm);
        else
            snprintf(why, n, "Random drew from the draw pile by chance.");
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
    snprintf(why, n, "Random discarded the %s%s by chance.", nm, out->go_out ? " and went out" : "");
}
