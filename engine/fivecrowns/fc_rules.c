/* fc_rules.c: the rules of a single play of Five Crowns: the judgement of
 * a draw or a discard (going out only with a hand that then arranges
 * completely into runs and books; each rejection named by a short rule id
 * that api/ reports with its 422s) and the generator of every legal play.
 * Applying a judged play is fc_game.c's.
 */
#include "fc.h"

#include <stdio.h>
#include <string.h>

/* 1 when card c is one of the n cards of h. */
static int fc_hand_has(const uint8_t *h, int n, int c)
{
    for (int i = 0; i < n; i++)
        if (h[i] == c)
            return 1;
    return 0;
}

static int can_draw_pile(const fc_state *st) { return st->ndraw > 0 || st->ndisc > 1; }

int fc_judge(const fc_state *st, const fc_play *p, char *why, size_t whylen, const char **rule)
{
    char nm[40];
    const char *r = "";
    int ok = 1;
    char tmp[320];
    tmp[0] = 0;
    if (st->phase == FC_PH_DRAW) {
        if (p->kind == FC_PLAY_DISCARD) {
            ok = 0, r = "draw-first";
            snprintf(tmp, sizeof tmp, "a turn starts with a draw: take the top card of the draw pile or of the discard pile");
        } else if (p->kind == FC_PLAY_DRAW_PILE && !can_draw_pile(st)) {
            ok = 0, r = "draw-pile-empty";
            snprintf(tmp, sizeof tmp, "the draw pile is empty and the discard pile has no card under its top to reshuffle");
        } else if (p->kind == FC_PLAY_DRAW_DISCARD && st->ndisc == 0) {
            ok = 0, r = "discard-pile-empty";
            snprintf(tmp, sizeof tmp, "the discard pile is empty");
        } else {
            snprintf(tmp, sizeof tmp, "draws the top card of the %s pile",
                     p->kind == FC_PLAY_DRAW_PILE ? "draw" : "discard");
        }
    } else {
        int s = st->cur, wild = fc_wild_rank(st->round);
        if (p->kind != FC_PLAY_DISCARD) {
            ok = 0, r = "one-draw";
            snprintf(tmp, sizeof tmp, "this turn's card is already drawn: now discard one card");
        } else if (!fc_hand_has(st->hand[s], st->nhand[s], p->card)) {
            ok = 0, r = "not-in-hand";
            fc_card_name(p->card, nm, sizeof nm);
            snprintf(tmp, sizeof tmp, "the %s is not in the hand", nm);
        } else if (p->go_out && st->went_out >= 0) {
            ok = 0, r = "already-out";
            snprintf(tmp, sizeof tmp,
                     "player %d has already gone out this round: this last turn's hand is laid out and scored automatically",
                     st->went_out + 1);
        } else if (p->go_out) {
            uint8_t h[FC_HANDMAX];
            int n = st->nhand[s];
            memcpy(h, st->hand[s], (size_t)n);
            fc_hand_remove(h, &n, p->card);
            fc_arr a;
            int pts = fc_arrange(h, n, wild, &a);
            fc_card_name(p->card, nm, sizeof nm);
            if (pts != 0) {
                char at[300];
                fc_arr_text(&a, wild, at, sizeof at);
                ok = 0, r = "incomplete";
                snprintf(tmp, sizeof tmp,
                         "cannot go out: after discarding the %s the hand does not form runs and books completely (best: %.170s)",
                         nm, at);
            } else {
                snprintf(tmp, sizeof tmp, "discards the %s and goes out", nm);
            }
        } else {
            fc_card_name(p->card, nm, sizeof nm);
            snprintf(tmp, sizeof tmp, "discards the %s", nm);
        }
    }
    if (why && whylen)
        snprintf(why, whylen, "%s", tmp);
    if (rule)
        *rule = r;
    return ok;
}

int fc_gen(const fc_state *st, fc_play *out)
{
    int n = 0;
    if (st->phase == FC_PH_OVER)
        return 0;
    if (st->phase == FC_PH_DRAW) {
        if (can_draw_pile(st))
            out[n++] = (fc_play){FC_PLAY_DRAW_PILE, 0, 0};
        if (st->ndisc > 0)
            out[n++] = (fc_play){FC_PLAY_DRAW_DISCARD, 0, 0};
        return n;
    }
    int s = st->cur, wild = fc_wild_rank(st->round);
    uint8_t seen[FC_NTYPES + 1] = {0};
    int first = n;
    for (int i = 0; i < st->nhand[s]; i++) {
        int c = st->hand[s][i];
        if (seen[c])
            continue;
        seen[c] = 1;
        out[n++] = (fc_play){FC_PLAY_DISCARD, (uint8_t)c, 0};
    }
    int nd = n;
    if (st->went_out < 0)
        for (int i = first; i < nd; i++) {
            uint8_t h[FC_HANDMAX];
            int m = st->nhand[s];
            memcpy(h, st->hand[s], (size_t)m);
            fc_hand_remove(h, &m, out[i].card);
            if (fc_arrange(h, m, wild, NULL) == 0)
                out[n++] = (fc_play){FC_PLAY_DISCARD, out[i].card, 1};
        }
    return n;
}
