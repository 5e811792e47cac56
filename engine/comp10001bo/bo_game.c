/* bo_game.c: the flow of a game: deal, observation, applying a judged play
 * (moving the card, clearing completed build piles into the reshuffled draw
 * pile, refilling an emptied hand mid-turn), turn changes and game end.
 *
 * bo_do() is only ever called with a play already judged valid, so it
 * cannot fail; callers judge first, which is how nothing is half-applied.
 */
#include "bo.h"

#include <string.h>

static const uint64_t DEAL_STREAM = 0xB0C0DEA1ULL;

static void draw_up(bo_state *st, int p)
{
    while (st->nhand[p] < BO_HAND && st->ndraw > 0)
        st->hand[p][st->nhand[p]++] = st->draw[--st->ndraw];
}

void bo_deal(bo_state *st, uint64_t seed)
{
    bo_deal_variant(st, seed, 0);
}

void bo_deal_variant(bo_state *st, uint64_t seed, int variant)
{
    memset(st, 0, sizeof *st);
    st->variant = (uint8_t)(variant ? 1 : 0);
    rng_seed(&st->rng, seed, DEAL_STREAM);
    st->bkey = seed;
    uint8_t deck[BO_MAXCARDS];
    int ncards = bo_deck_size(st->variant);
    for (int i = 0; i < ncards; i++)
        deck[i] = (uint8_t)(i < BO_NCARDS ? i % 52 + 1 : BO_JOKER);
    rng_shuffle_u8(&st->rng, deck, (size_t)ncards);
    for (int p = 0; p < BO_NP; p++) {
        st->holds_embargo[p] = st->variant;
        st->embargoed_by[p] = -1;
    }
    int n = ncards;
    for (int p = 0; p < BO_NP; p++) {
        for (int i = 0; i < BO_STOCK; i++)
            st->stock[p][i] = deck[--n];
        st->nstock[p] = BO_STOCK;
    }
    memcpy(st->draw, deck, (size_t)n);
    st->ndraw = (uint8_t)n;
    st->winner = -1;
    st->result = BO_PLAYING;
    st->cur = 0;
    draw_up(st, 0);
}

void bo_observe(const bo_state *st, int seat, bo_obs *o)
{
    o->seat = seat;
    o->variant = st->variant;
    o->embargo_known = st->variant;
    for (int p = 0; p < BO_NP; p++) {
        o->holds_embargo[p] = st->holds_embargo[p];
        o->embargoed_by[p] = st->embargoed_by[p];
    }
    o->nhand = st->nhand[seat];
    memcpy(o->hand, st->hand[seat], (size_t)o->nhand);
    for (int p = 0; p < BO_NP; p++) {
        o->nstock[p] = st->nstock[p];
        o->stock_top[p] = st->nstock[p] ? st->stock[p][st->nstock[p] - 1] : 0;
    }
    o->ndraw = st->ndraw;
    o->plays_left = seat == st->cur ? BO_PLAYS - st->plays_this_turn : BO_PLAYS;
    if (o->plays_left < 1)
        o->plays_left = 1;
    memcpy(&o->b, &st->b, sizeof o->b);
}

int bo_seat_can_play(const bo_state *st, int seat)
{
    bo_obs o;
    bo_observe(st, seat, &o);
    return bo_any_play(&o);
}

int bo_state_judge(const bo_state *st, const bo_play *p, char *why,
                   size_t whylen, const char **rule)
{
    bo_obs o;
    bo_observe(st, st->cur, &o);
    return bo_judge(&o, p, why, whylen, rule);
}

const char *bo_result_name(int result)
{
    switch (result) {
    case BO_WON: return "won";
    case BO_ABANDONED: return "abandoned";
    case BO_TURN_LIMIT: return "turn-limit";
    default: return "playing";
    }
}

/* The turn of st->cur is over: count it, end the game or pass the turn. */
static void end_turn(bo_state *st)
{
    st->turns[st->cur]++;
    st->plays_this_turn = 0;
    if (st->ndraw == 0) {
        int any = 0;
        for (int p = 0; p < BO_NP && !any; p++)
            any = bo_seat_can_play(st, p);
        if (!any) {
            st->result = BO_ABANDONED;
            return;
        }
    }
    int all = 1;
    for (int p = 0; p < BO_NP; p++)
        all &= st->turns[p] >= BO_MAXTURNS;
    if (all) {
        st->result = BO_TURN_LIMIT;
        return;
    }
    st->cur = (uint8_t)((st->cur + 1) % BO_NP);
    draw_up(st, st->cur);
}

static void remove_from_hand(bo_state *st, int s, int card)
{
    for (int i = 0; i < st->nhand[s]; i++)
        if (st->hand[s][i] == card) {
            memmove(&st->hand[s][i], &st->hand[s][i + 1], (size_t)(st->nhand[s] - i - 1));
            st->nhand[s]--;
            return;
        }
}

void bo_do(bo_state *st, const bo_play *p, int verdict, bo_effect *fx)
{
    int s = st->cur;
    fx->turn_ending = 0;
    fx->completed = -1;
    fx->won = 0;
    if (st->nhist < BO_MAXHIST) {
        bo_hist *h = &st->hist[st->nhist++];
        h->play = *p;
        h->seat = (uint8_t)s;
        h->turn = (uint8_t)(st->turns[s] + 1);
    }
    if (p->type == BO_NO_PLAY) {
        if (st->passes < 255)
            st->passes++;
        fx->turn_ending = 1;
        end_turn(st);
        return;
    }
    st->passes = 0;
    if (p->type == BO_EMBARGO || p->type == BO_CLEAR) {
        /* the embargo card: played across the target's discard piles, or
         * cleared out of play (never stacked on a pile); turn-ending */
        if (p->type == BO_EMBARGO) {
            st->holds_embargo[s] = 0;
            st->embargoed_by[p->dst_owner] = (int8_t)s;
        } else {
            st->embargoed_by[s] = -1;
        }
        st->plays_this_turn++;
        fx->turn_ending = 1;
        end_turn(st);
        return;
    }
    if (p->type == BO_FROM_HAND)
        remove_from_hand(st, s, p->card);
    else if (p->type == BO_FROM_DISCARD)
        st->b.ndisc[p->src_owner][p->src_pile]--;
    else
        st->nstock[s]--;

    if (p->dst_kind == BO_TO_BUILD) {
        int b = p->dst_pile, n = st->b.nbuild[b];
        int done = bo_build_completes(p->card, st->b.build[b], n);
        st->b.build[b][n++] = p->card;
        st->b.nbuild[b] = (uint8_t)n;
        if (done) {
            memcpy(&st->draw[st->ndraw], st->b.build[b], (size_t)n);
            st->ndraw = (uint8_t)(st->ndraw + n);
            st->b.nbuild[b] = 0;
            rng_shuffle_u8(&st->rng, st->draw, st->ndraw);
            fx->completed = b;
        }
    } else {
        uint8_t *n = &st->b.ndisc[p->dst_owner][p->dst_pile];
        st->b.disc[p->dst_owner][p->dst_pile][(*n)++] = p->card;
    }
    st->plays_this_turn++;
    if (st->nstock[s] == 0) {
        st->turns[s]++;
        st->result = BO_WON;
        st->winner = (int8_t)s;
        fx->won = 1;
        fx->turn_ending = 1;
        return;
    }
    if (verdict == 2 || st->plays_this_turn >= BO_PLAYS) {
        fx->turn_ending = 1;
        end_turn(st);
        return;
    }
    if (st->nhand[s] == 0)
        draw_up(st, s);
}
