/* fc_explain.c: the public explanation of a bot's play (game_ops.explain).
 *
 * Every reader is shown it while the game runs, so it is written from what
 * every reader sees of the mover's position (fc_public): the round, the
 * discard top, whether the draw pile can be drawn from, who went out, this
 * round's public pick-ups and discards -- and, at an open table only, the
 * hand, which every reader sees there. At an open table the mover's whole
 * observation is public, so the strategy itself is asked again on it and
 * its own sentence (which names the runs and books of the hand) is the
 * public line. At a closed table the line names the card the play shows
 * (the discard top taken, the card discarded) and the strategy's rule,
 * never a card, a group or a point count of the hand: "because with it
 * the hand can go out" would tell every reader what it holds. The
 * strategies' own lines (fc_bots.c) are kept as the record's reasoning.
 */
#include "fc.h"

#include <stdio.h>
#include <string.h>

/* What every reader knows of the mover's position: its observation, with
 * the hand only at an open table. */
static void fc_public(const fc_state *st, int seat, fc_obs *o)
{
    fc_observe(st, seat, o);
    if (!st->open) {
        memset(o->hand, 0, sizeof o->hand);
        o->nhand = 0;
    }
}

static int same_play(const fc_play *a, const fc_play *b)
{
    return a->kind == b->kind && a->card == b->card && a->go_out == b->go_out;
}

/* An open table: the strategy's own sentence, when it makes this play. */
static int open_line(const fc_obs *o, const fc_play *p, const char *strategy, char *out, size_t n)
{
    if (strcmp(strategy, "strategy") == 0) {
        fc_advice adv;
        fc_strategy(o, 0, &adv);
        if (!same_play(&adv.play, p))
            return 0;
        snprintf(out, n, "%s", adv.why);
        return 1;
    }
    if (strcmp(strategy, "greedy") == 0) {
        fc_play q;
        char why[300];
        fc_greedy(o, &q, why, sizeof why);
        if (!same_play(&q, p))
            return 0;
        snprintf(out, n, "%s", why);
        return 1;
    }
    return 0;
}

/* Each line in the log's voice: the play, then ": " and its reason, with no
 * subject (whoever shows it names the seat). */
static void draw_line(const fc_obs *o, const fc_play *p, int greedy, char *out, size_t n)
{
    char tn[40] = "";
    int t = o->disc_top;
    if (t)
        fc_card_name(t, tn, sizeof tn);
    if (p->kind == FC_PLAY_DRAW_DISCARD) {
        if (!o->can_draw)
            snprintf(out, n, "takes the %s from the discard pile: the draw pile is empty.", tn);
        else if (greedy)
            snprintf(out, n, "takes the %s from the discard pile: it lowers the points in the hand now.", tn);
        else if (fc_is_wild(t, o->wild))
            snprintf(out, n,
                     "takes the %s from the discard pile: it is %s: it can stand in for any card in a run or "
                     "book.",
                     tn, fc_is_joker(t) ? "a joker" : "wild this round");
        else
            snprintf(out, n,
                     "takes the %s from the discard pile: it is worth more to the hand than a blind draw on "
                     "average.",
                     tn);
    } else if (!t) {
        snprintf(out, n, "draws from the draw pile: the discard pile is empty.");
    } else if (greedy) {
        snprintf(out, n, "draws from the draw pile: the %s would not lower the points in the hand now.", tn);
    } else {
        snprintf(out, n, "draws from the draw pile: the %s on the discard pile would not help.", tn);
    }
}

static void discard_line(const fc_obs *o, const fc_play *p, int greedy, char *out, size_t n)
{
    char dn[40];
    fc_card_name(p->card, dn, sizeof dn);
    if (greedy)
        snprintf(out, n, "discards the %s%s: that leaves the fewest points in the hand.", dn,
                 p->go_out ? " and goes out" : "");
    else if (p->go_out) /* the rules: only a hand whose rest forms runs and books goes out */
        snprintf(out, n, "discards the %s and goes out: the rest of the hand forms runs and books.", dn);
    else if (o->last_turn)
        snprintf(out, n,
                 "discards the %s: this is the last turn after player %d went out, and it is the card that "
                 "leaves the fewest points in the hand.",
                 dn, o->out_seat + 1);
    else
        snprintf(out, n, "discards the %s: it is the card the hand misses least.", dn);
}

void fc_explain(const void *vst, int seat, const json_t *play, const char *strategy, char *out,
                size_t n)
{
    const fc_state *st = vst;
    fc_obs o;
    fc_play p;
    game_err e = {0};
    fc_public(st, seat, &o);
    if (fc_play_parse(NULL, play, &p, &e)) {
        snprintf(out, n, "A bot made a play.");
        return;
    }
    if (o.open && open_line(&o, &p, strategy, out, n))
        return;
    int greedy = strcmp(strategy, "greedy") == 0;
    char nm[40];
    if (strcmp(strategy, "random") == 0) {
        if (p.kind == FC_PLAY_DRAW_PILE)
            snprintf(out, n, "draws from the draw pile by chance.");
        else if (p.kind == FC_PLAY_DRAW_DISCARD)
            snprintf(out, n, "takes the %s from the discard pile by chance.",
                     (fc_card_name(o.disc_top, nm, sizeof nm), nm));
        else
            snprintf(out, n, "discards the %s%s by chance.", (fc_card_name(p.card, nm, sizeof nm), nm),
                     p.go_out ? " and goes out" : "");
        return;
    }
    if (p.kind == FC_PLAY_DISCARD)
        discard_line(&o, &p, greedy, out, n);
    else
        draw_line(&o, &p, greedy, out, n);
}
