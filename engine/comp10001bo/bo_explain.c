/* bo_explain.c: the public explanation of a bot's play (game_ops.explain).
 *
 * Every reader is shown it while the game runs, so it is written from the
 * mover's observation with its hand taken out (bo_public): the build and
 * discard piles, the stockpile tops and counts, the embargo cards, and the
 * play, which shows its card. The strategy's own line (bo_bots.c) weighs
 * the hand -- "first step of a sequence that plays 2 stockpile cards",
 * "among 55 possible plays" -- and is kept as the record's reasoning. Piles
 * and players count from 1, as in bo_play_text.
 */
#include "bo.h"

#include <stdio.h>
#include <string.h>

/* What a spectator knows of the mover's position: its observation without
 * the hand (whose size every reader sees, but not its cards). */
static void bo_public(const bo_state *st, int seat, bo_obs *o)
{
    bo_observe(st, seat, o);
    memset(o->hand, 0, sizeof o->hand);
    o->nhand = 0;
}

/* Build pile b of o with `card` on top (the play's), into pile[]; its length. */
static int built(const bo_obs *o, int b, int card, uint8_t *pile)
{
    int n = o->b.nbuild[b];
    memcpy(pile, o->b.build[b], (size_t)n);
    pile[n] = (uint8_t)card;
    return n + 1;
}

static void to_build(const bo_obs *o, const bo_play *p, char *out, size_t n)
{
    uint8_t pile[BO_PILE + 1];
    int b = p->dst_pile, m = o->b.nbuild[b], me = o->seat;
    if (bo_build_completes(p->card, o->b.build[b], m)) {
        snprintf(out, n, "it completes build pile %d, which is cleared", b + 1);
        return;
    }
    int k = built(o, b, p->card, pile), top = o->stock_top[me];
    if (p->type != BO_FROM_STOCK && top && bo_match_build(top, pile, k))
        snprintf(out, n, "the stockpile top %s can follow it there", bo_card_name(top));
    else
        snprintf(out, n, "a play onto a build pile keeps the turn going");
}

/* The other players whose stockpile top could go on the new top of
 * discard pile (ow, k): none is the fact worth saying. */
static int feeds_stocks(const bo_obs *o, int ow, int k, int card)
{
    uint8_t pile[BO_PILE + 1];
    int m = o->b.ndisc[ow][k];
    memcpy(pile, o->b.disc[ow][k], (size_t)m);
    pile[m] = (uint8_t)card;
    for (int q = 0; q < BO_NP; q++)
        if (q != o->seat && o->stock_top[q] && bo_match_discard(o->stock_top[q], pile, m + 1, q, ow, 0))
            return 1;
    return 0;
}

static void to_discard(const bo_obs *o, const bo_play *p, char *out, size_t n)
{
    int ow = p->dst_owner, k = p->dst_pile;
    int v = bo_discard_verdict(p->card, o->b.disc[ow][k], o->b.ndisc[ow][k], o->seat, ow,
                               p->type == BO_FROM_HAND, NULL, 0, NULL);
    if (v != 2)
        snprintf(out, n, "a play in sequence keeps the turn going");
    else if (!feeds_stocks(o, ow, k, p->card))
        snprintf(out, n, "ends the turn with a discard that no other player's stockpile top can go on");
    else
        snprintf(out, n, "ends the turn with a discard");
}

/* The opponent with the fewest stockpile cards (the first after the mover
 * on a tie). */
static int closest(const bo_obs *o)
{
    int best = -1;
    for (int d = 1; d < BO_NP; d++) {
        int q = (o->seat + d) % BO_NP;
        if (o->nstock[q] && (best < 0 || o->nstock[q] < o->nstock[best]))
            best = q;
    }
    return best;
}

static void reason(const bo_obs *o, const bo_play *p, char *out, size_t n)
{
    int me = o->seat;
    switch (p->type) {
    case BO_FROM_STOCK:
        if (o->nstock[me] == 1)
            snprintf(out, n, "it empties the stockpile and wins");
        else
            snprintf(out, n, "the stockpile goes down to %d card%s", o->nstock[me] - 1,
                     o->nstock[me] == 2 ? "" : "s");
        return;
    case BO_EMBARGO:
        if (p->dst_owner == closest(o))
            snprintf(out, n, "player %d is the closest to winning, and embargoed they may only play "
                     "from the stockpile until they spend a turn clearing it", p->dst_owner + 1);
        else
            snprintf(out, n, "embargoed, player %d may only play from the stockpile until they spend "
                     "a turn clearing it", p->dst_owner + 1);
        return;
    case BO_CLEAR:
        snprintf(out, n, "the hand and discard piles are free again next turn");
        return;
    default:
        if (p->dst_kind == BO_TO_BUILD)
            to_build(o, p, out, n);
        else
            to_discard(o, p, out, n);
    }
}

void bo_explain(const void *vst, int seat, const json_t *play, const char *strategy, char *out,
                size_t n)
{
    const bo_state *st = vst;
    bo_obs o;
    bo_play p;
    game_err e = {0};
    char text[160], why[200];
    bo_public(st, seat, &o);
    if (bo_play_parse(play, st->variant, &p, &e)) {
        snprintf(out, n, "makes a play");
        return;
    }
    bo_play_text(&o, &p, text, sizeof text);
    if (p.type == BO_NO_PLAY)
        snprintf(out, n, "%s", text);
    else if (strcmp(strategy, "random") == 0)
        snprintf(out, n, "%s: chosen at random among the possible plays", text);
    else {
        reason(&o, &p, why, sizeof why);
        snprintf(out, n, "%s: %s", text, why);
    }
}
