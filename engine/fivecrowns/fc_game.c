/* fc_game.c: the flow of a Five Crowns game: the coin toss, deals,
 * applying judged plays, going out, the last turns, scoring and game end
 * (judging a play and the legal plays are fc_rules.c's).
 *
 * A turn is two plays by the same seat: a draw (draw pile or discard pile),
 * then a discard, optionally going out. Going out is legal only when the
 * hand left after the discard arranges completely into runs and books, and
 * only while nobody has gone out this round. Once a player has gone out,
 * every other player takes one last turn; after the last of them, every
 * hand is laid out in its best arrangement (fc_arrange) and scores what is
 * left. An empty draw pile is refilled by shuffling the discard pile under
 * its top card. A round that lasts FC_ROUND_TURNS turns per player without
 * anyone going out is called off: every hand is laid out and scored as if
 * someone had gone out, and the next player after its starter starts the
 * next round. fc_do() is only ever called with a play fc_judge() accepted.
 *
 * Capacity: fc_do() writes into fixed arrays without checks of its own; the
 * invariants that make that safe (at most FC_PILE cards in a round, a hand
 * at the draw with room for one card, room in the history for every play
 * the rest of the game can make) hold for every game dealt here and are
 * enforced on imports by fc_check_capacity().
 */
#include "fc.h"

#include <stdio.h>
#include <string.h>

static const uint64_t DEAL_STREAM = 0xFC0DEA1ULL;

void fc_hand_remove(uint8_t *h, int *n, int c)
{
    for (int i = 0; i < *n; i++)
        if (h[i] == c) {
            memmove(h + i, h + i + 1, (size_t)(*n - i - 1));
            (*n)--;
            h[*n] = 0; /* no stale bytes: equal games are equal states */
            return;
        }
}

const char *fc_result_name(int result)
{
    switch (result) {
    case FC_WON: return "won";
    case FC_TIE: return "tie";
    default: return "playing";
    }
}

void fc_deal_round(fc_state *st, int starter)
{
    uint8_t deck[FC_DECK];
    for (int i = 0; i < FC_DECK; i++)
        deck[i] = (uint8_t)(i % FC_NTYPES + 1);
    rng_shuffle_u8(&st->rng, deck, FC_DECK);
    int n = FC_DECK, deal = st->round + 2;
    memset(st->hand, 0, sizeof st->hand);
    memset(st->draw, 0, sizeof st->draw);
    memset(st->disc, 0, sizeof st->disc);
    for (int k = 0; k < st->np; k++) {
        int p = (starter + k) % st->np;
        for (int i = 0; i < deal; i++)
            st->hand[p][i] = deck[--n];
        st->nhand[p] = (uint8_t)deal;
    }
    st->disc[0] = deck[--n];
    st->ndisc = 1;
    memcpy(st->draw, deck, (size_t)n);
    st->ndraw = (uint8_t)n;
    st->cur = (uint8_t)starter;
    st->starter = (uint8_t)starter;
    st->went_out = -1;
    st->phase = FC_PH_DRAW;
    st->round_turns = 0;
}

void fc_new_game(fc_state *st, int np, uint64_t seed, int open, int call)
{
    memset(st, 0, sizeof *st);
    rng_seed(&st->rng, seed, DEAL_STREAM);
    st->bkey = seed;
    st->np = (uint8_t)np;
    st->open = (uint8_t)(open != 0);
    st->call = (int8_t)call;
    st->toss = (int8_t)rng_below(&st->rng, 2); /* 0 heads, 1 tails */
    int starter;
    if (call >= 0)
        starter = call == st->toss ? 0 : (np == 2 ? 1 : 1 + (int)rng_below(&st->rng, (uint32_t)(np - 1)));
    else
        starter = np == 2 ? st->toss : (int)rng_below(&st->rng, (uint32_t)np);
    st->round = 1;
    st->first_round = 1;
    st->winner = -1;
    st->result = FC_PLAYING;
    fc_deal_round(st, starter);
}

static void end_game(fc_state *st)
{
    st->phase = FC_PH_OVER;
    int best = 0, ties = 0;
    for (int p = 1; p < st->np; p++)
        if (st->score[p] < st->score[best])
            best = p;
    for (int p = 0; p < st->np; p++)
        ties += st->score[p] == st->score[best];
    st->result = ties > 1 ? FC_TIE : FC_WON;
    st->winner = ties > 1 ? -1 : (int8_t)best;
}

static void end_round(fc_state *st, int how)
{
    int wild = fc_wild_rank(st->round);
    fc_round *rd = &st->rounds[st->round - 1];
    memset(rd, 0, sizeof *rd);
    rd->ended = (uint8_t)how;
    rd->went_out = st->went_out;
    for (int p = 0; p < st->np; p++) {
        rd->nhand[p] = st->nhand[p];
        memcpy(rd->hand[p], st->hand[p], st->nhand[p]);
        int pts = fc_lay_keep(rd->hand[p], rd->nhand[p], wild, &rd->lay[p]);
        if (p == st->went_out)
            pts = 0;
        rd->points[p] = (uint16_t)pts;
        st->score[p] = (uint16_t)(st->score[p] + pts);
    }
    if (st->nhist)
        st->hist[st->nhist - 1].round_end = 1;
    if (st->round >= FC_ROUNDS) {
        st->went_out = -1;
        end_game(st);
        return;
    }
    int next = st->went_out >= 0 ? st->went_out : (st->starter + 1) % st->np;
    st->round++;
    fc_deal_round(st, next);
}

static void push_hist(fc_state *st, const fc_play *p, int card)
{
    if (st->nhist >= FC_MAXHIST)
        return;
    fc_hist *h = &st->hist[st->nhist++];
    memset(h, 0, sizeof *h);
    h->seat = st->cur;
    h->round = st->round;
    h->kind = p->kind;
    h->card = (uint8_t)card;
    h->go_out = p->go_out;
}

void fc_do(fc_state *st, const fc_play *p)
{
    int s = st->cur;
    if (p->kind == FC_PLAY_DRAW_PILE || p->kind == FC_PLAY_DRAW_DISCARD) {
        int c;
        if (p->kind == FC_PLAY_DRAW_PILE) {
            if (st->ndraw == 0) { /* reshuffle the discard pile under its top */
                int top = st->disc[st->ndisc - 1];
                memcpy(st->draw, st->disc, (size_t)(st->ndisc - 1));
                st->ndraw = (uint8_t)(st->ndisc - 1);
                rng_shuffle_u8(&st->rng, st->draw, st->ndraw);
                memset(st->disc, 0, sizeof st->disc);
                st->disc[0] = (uint8_t)top;
                st->ndisc = 1;
            }
            c = st->draw[--st->ndraw];
            st->draw[st->ndraw] = 0;
        } else {
            c = st->disc[--st->ndisc];
            st->disc[st->ndisc] = 0;
        }
        st->hand[s][st->nhand[s]++] = (uint8_t)c;
        push_hist(st, p, c);
        st->phase = FC_PH_DISCARD;
        return;
    }
    int n = st->nhand[s];
    fc_hand_remove(st->hand[s], &n, p->card);
    st->nhand[s] = (uint8_t)n;
    st->disc[st->ndisc++] = p->card;
    push_hist(st, p, p->card);
    st->turns++;
    st->round_turns++;
    int next = (s + 1) % st->np;
    if (p->go_out) {
        st->went_out = (int8_t)s;
    } else if (st->went_out >= 0) {
        if (next == st->went_out) {
            end_round(st, FC_END_OUT);
            return;
        }
    } else if (st->round_turns >= FC_ROUND_TURNS * st->np) {
        end_round(st, FC_END_LIMIT);
        return;
    }
    st->cur = (uint8_t)next;
    st->phase = FC_PH_DRAW;
}

/* Turns left in the round under way, the current one included: an upper
 * bound (went_out < 0: up to the call-off limit, then the last turns if the
 * limit turn goes out). */
static int turns_left_in_round(const fc_state *st)
{
    if (st->phase == FC_PH_OVER)
        return 0;
    if (st->went_out >= 0)
        return st->np - 1;
    int left = FC_ROUND_TURNS * st->np - st->round_turns;
    return (left > 0 ? left : 0) + st->np - 1;
}

int fc_check_capacity(const fc_state *st, game_err *e)
{
    int np = st->np, hands = 0;
    char ptr[32];
    for (int p = 0; p < np; p++) {
        int room = st->phase == FC_PH_DRAW ? FC_HANDMAX - 1 : FC_HANDMAX;
        if (st->nhand[p] > room) {
            snprintf(ptr, sizeof ptr, "/hands/%d", p);
            return err_set(e, ERR_BAD_MEMBER, ptr, "%d cards leave no room for the draw (a hand holds at most %d)",
                           st->nhand[p], FC_HANDMAX);
        }
        hands += st->nhand[p];
    }
    if (hands + st->ndraw > FC_PILE)
        return err_set(e, ERR_BAD_MEMBER, "/draw_pile",
                       "the draw pile holds %d cards: with the %d in the hands that is more than the %d cards a game can hold",
                       st->ndraw, hands, FC_PILE);
    int total = hands + st->ndraw + st->ndisc;
    if (total > FC_PILE)
        return err_set(e, ERR_BAD_MEMBER, "/discard_pile",
                       "the discard pile holds %d cards: with the hands and the draw pile that makes %d, more than the %d cards a game can hold (the piles could not take the round's discards)",
                       st->ndisc, total, FC_PILE);
    int done = (st->phase == FC_PH_OVER ? FC_ROUNDS : st->round - 1) - (st->first_round - 1);
    long hi = FC_MAXSCORE + (long)done * FC_MAXPOINTS;
    for (int p = 0; p < np; p++)
        if (st->score[p] > hi) {
            snprintf(ptr, sizeof ptr, "/scores/%d", p);
            return err_set(e, ERR_BAD_MEMBER, ptr,
                           "%d is more than a saved total (%d) plus %d points for each of the %d rounds played since",
                           st->score[p], FC_MAXSCORE, FC_MAXPOINTS, done);
        }
    if (st->turns > FC_MAXTURNS)
        return err_set(e, ERR_BAD_MEMBER, "/turns", "%d turns: a game has at most %d", st->turns, FC_MAXTURNS);
    long later = 2L * turns_left_in_round(st);
    if (st->phase != FC_PH_OVER)
        later += 2L * (FC_ROUNDS - st->round) * ((FC_ROUND_TURNS + 1) * np - 1);
    if (st->nhist + later > FC_MAXHIST)
        return err_set(e, ERR_BAD_MEMBER, "/history",
                       "%d plays recorded, and the rest of the game can make up to %ld more: more than the %d a game records",
                       st->nhist, later, FC_MAXHIST);
    return 0;
}

void fc_conceal(void *vst, int seat, uint64_t salt)
{
    fc_state *st = vst;
    /* The salt is the caller's secret, unrelated to the game's seed: the
     * copy's draw order and its RNG (deals and reshuffles) and the bots'
     * key are new, so its holder learns nothing of the game's. */
    rng_seed(&st->rng, salt, DEAL_STREAM);
    st->bkey = rng_mix64(salt);
    if (!st->open) {
        /* the hands the seat does not see go back with the draw pile and
         * are dealt again from the shuffle below */
        for (int p = 0; p < st->np; p++) {
            if (p == seat)
                continue;
            memcpy(st->draw + st->ndraw, st->hand[p], st->nhand[p]);
            st->ndraw = (uint8_t)(st->ndraw + st->nhand[p]);
        }
        for (int i = 0; i < st->nhist; i++)
            if (st->hist[i].kind == FC_PLAY_DRAW_PILE && st->hist[i].seat != seat)
                st->hist[i].card = 0;
    }
    rng_shuffle_u8(&st->rng, st->draw, st->ndraw);
    if (!st->open) {
        for (int p = 0; p < st->np; p++) {
            if (p == seat)
                continue;
            st->ndraw = (uint8_t)(st->ndraw - st->nhand[p]);
            memcpy(st->hand[p], st->draw + st->ndraw, st->nhand[p]);
            memset(st->draw + st->ndraw, 0, st->nhand[p]);
        }
    }
}
