/* pz_game.c: the flow of a game of Phazed: deals with a rotating dealer,
 * observations, applying a judged play, turn changes (bonus Skips), the end
 * of a hand (a player out of cards; the deck exhausted, at the discard of
 * the player who drew its last card; 50 turns each), scoring and the end of
 * the game (all phases completed by someone at the end of a hand, or the
 * last hand played).
 *
 * pz_do() is only ever called with a play already judged valid, so it
 * cannot fail; callers judge first, which is how nothing is half-applied.
 */
#include "pz.h"

#include <string.h>

static const uint64_t DEAL_STREAM = 0x50A5EDULL;

const char *pz_result_name(int result)
{
    switch (result) {
    case PZ_PLAYING: return "playing";
    case PZ_WON: return "won";
    default: return "tied";
    }
}

const char *pz_end_name(int reason)
{
    switch (reason) {
    case PZ_END_OUT: return "out";
    case PZ_END_DECK: return "deck-exhausted";
    case PZ_END_TURNS: return "turn-limit";
    default: return "none";
    }
}

static void deal(pz_state *st)
{
    int ncards = st->variant ? PZ_NCARDS : PZ_DECK;
    uint8_t deck[PZ_NCARDS];
    for (int i = 0; i < ncards; i++)
        deck[i] = (uint8_t)(i < PZ_DECK ? i % 52 + 1 : PZ_JOKER);
    rng_shuffle_u8(&st->rng, deck, (size_t)ncards);
    memset(&st->t, 0, sizeof st->t);
    memset(st->skip, 0, sizeof st->skip);
    int n = ncards;
    for (int i = 0; i < PZ_DEAL; i++)
        for (int k = 1; k <= st->np; k++) { /* from the dealer's left */
            int p = (st->dealer + k) % st->np;
            st->hand[p][i] = deck[--n];
        }
    for (int p = 0; p < st->np; p++)
        st->nhand[p] = PZ_DEAL;
    st->disc[0] = deck[--n];
    st->ndisc = 1;
    memcpy(st->deck, deck, (size_t)n);
    st->ndeck = (uint8_t)n;
    st->cur = (uint8_t)((st->dealer + 1) % st->np);
    st->mid = 0;
    st->deck_out = 0;
    st->turns_hand = 0;
    st->hand_log = st->nlog;
}

void pz_new(pz_state *st, int variant, int np, int maxhands, uint64_t seed)
{
    memset(st, 0, sizeof *st);
    st->variant = (uint8_t)(variant ? 1 : 0);
    st->np = (uint8_t)np;
    st->maxhands = (uint8_t)maxhands;
    st->winner = -1;
    st->result = PZ_PLAYING;
    rng_seed(&st->rng, seed, DEAL_STREAM);
    st->bkey = seed;
    st->dealer = (uint8_t)(np - 1); /* so that player 0 leads the first hand */
    deal(st);
}

void pz_observe(const pz_state *st, int seat, pz_obs *o)
{
    memset(o, 0, sizeof *o);
    o->variant = st->variant;
    o->np = st->np;
    o->seat = seat;
    o->mid = seat == st->cur ? st->mid : 0;
    o->strict = 1;
    o->deck = st->ndeck;
    o->discard = st->ndisc ? st->disc[st->ndisc - 1] : 0;
    memcpy(o->status, st->status, sizeof o->status);
    if (seat >= 0 && seat < st->np) {
        o->nhand = st->nhand[seat];
        memcpy(o->hand, st->hand[seat], (size_t)o->nhand);
    }
    for (int p = 0; p < PZ_MAXP; p++)
        o->hand_sizes[p] = p < st->np ? st->nhand[p] : 0;
    o->t = st->t;
}

int pz_state_judge(const pz_state *st, const pz_play *p, char *why, size_t whylen,
                   const char **rule)
{
    pz_obs o;
    pz_observe(st, st->cur, &o);
    return pz_judge(&o, p, why, whylen, rule);
}

static void log_add(pz_state *st, int seat, int type, int card, int a, int b, int c)
{
    if (st->nlog >= PZ_MAXLOG)
        return; /* cannot happen: PZ_MAXLOG bounds a game */
    pz_log *l = &st->log[st->nlog++];
    memset(l, 0, sizeof *l);
    l->hand = st->hands_done;
    l->seat = (uint8_t)seat;
    l->type = (uint8_t)type;
    l->card = (uint8_t)card;
    l->a = (uint8_t)a;
    l->b = (uint8_t)b;
    l->c = (uint8_t)c;
}

static void remove_one(uint8_t *h, uint8_t *n, int card)
{
    for (int i = 0; i < *n; i++)
        if (h[i] == card) {
            memmove(h + i, h + i + 1, (size_t)(*n - i - 1));
            (*n)--;
            return;
        }
}

unsigned pz_winners(const pz_state *st)
{
    /* the lowest points among those who completed every phase (or among
     * everyone after the last hand) */
    int done = 0, best = 1 << 30;
    for (int p = 0; p < st->np; p++)
        done |= pz_all_done(st->variant, st->status[p]);
    for (int p = 0; p < st->np; p++)
        if ((!done || pz_all_done(st->variant, st->status[p])) && st->score[p] < best)
            best = st->score[p];
    unsigned won = 0;
    for (int p = 0; p < st->np; p++)
        if ((!done || pz_all_done(st->variant, st->status[p])) && st->score[p] == best)
            won |= 1u << p;
    return won;
}

static void end_game_check(pz_state *st, pz_effect *fx)
{
    int done = 0;
    for (int p = 0; p < st->np; p++)
        done |= pz_all_done(st->variant, st->status[p]);
    if (!done && st->hands_done < st->maxhands)
        return;
    unsigned won = pz_winners(st);
    int alone = won && !(won & (won - 1));
    st->result = alone ? PZ_WON : PZ_TIED;
    st->winner = (int8_t)(alone ? __builtin_ctz(won) : -1);
    if (fx)
        fx->game_over = 1;
}

static void end_hand(pz_state *st, int reason, pz_effect *fx)
{
    int h = st->hands_done;
    for (int p = 0; p < st->np; p++) {
        int pts = pz_hand_points(st->hand[p], st->nhand[p]);
        st->pen[h][p] = (uint16_t)pts;
        st->score[p] = (uint16_t)(st->score[p] + pts);
    }
    st->end_reason[h] = (uint8_t)reason;
    st->hands_done++;
    st->mid = 0;
    if (fx) {
        fx->hand_over = h + 1;
        fx->end_reason = reason;
    }
    end_game_check(st, fx);
    if (st->result != PZ_PLAYING)
        return;
    st->dealer = (uint8_t)((st->dealer + 1) % st->np);
    deal(st);
}

/* The turn of st->cur ended (discard or Skip): next player, Skips taken. */
static void next_turn(pz_state *st, pz_effect *fx)
{
    int ns = 0;
    st->mid = 0;
    st->turns_hand++;
    st->turns_total++;
    if (st->deck_out) {
        end_hand(st, PZ_END_DECK, fx);
        return;
    }
    if (st->turns_hand >= PZ_TURNS_EACH * st->np) {
        end_hand(st, PZ_END_TURNS, fx);
        return;
    }
    st->cur = (uint8_t)((st->cur + 1) % st->np);
    while (st->skip[st->cur]) {
        st->skip[st->cur] = 0;
        log_add(st, st->cur, PZ_SKIPPED, 0, 0, 0, 0);
        if (fx && ns < PZ_MAXP - 1)
            fx->skipped[ns++] = st->cur;
        st->turns_hand++;
        st->turns_total++;
        if (st->turns_hand >= PZ_TURNS_EACH * st->np) {
            if (fx)
                fx->skipped[ns] = -1;
            end_hand(st, PZ_END_TURNS, fx);
            return;
        }
        st->cur = (uint8_t)((st->cur + 1) % st->np);
    }
    if (fx)
        fx->skipped[ns] = -1;
}

void pz_do(pz_state *st, const pz_play *p, pz_effect *fx)
{
    int me = st->cur;
    pz_effect dummy;
    if (!fx)
        fx = &dummy;
    memset(fx, 0, sizeof *fx);
    fx->skipped[0] = -1;
    switch (p->type) {
    case PZ_PICK_DECK: {
        int c = st->deck[--st->ndeck];
        st->hand[me][st->nhand[me]++] = (uint8_t)c;
        fx->drawn = c;
        if (st->ndeck == 0)
            st->deck_out = 1;
        st->mid = 1;
        log_add(st, me, PZ_PICK_DECK, c, 0, 0, 0);
        return;
    }
    case PZ_PICK_DISCARD:
        st->hand[me][st->nhand[me]++] = st->disc[--st->ndisc];
        st->mid = 1;
        log_add(st, me, PZ_PICK_DISCARD, p->card, 0, 0, 0);
        return;
    case PZ_PHASE: {
        pz_phrec *r = &st->ph[st->nph];
        memset(r, 0, sizeof *r);
        r->ng = p->ng;
        st->t.phase[me] = p->phase;
        st->t.ng[me] = p->ng;
        for (int k = 0; k < p->ng; k++) {
            r->gn[k] = p->gn[k];
            memcpy(r->gc[k], p->gc[k], p->gn[k]);
            st->t.g[me][k].n = p->gn[k];
            memcpy(st->t.g[me][k].c, p->gc[k], p->gn[k]);
            for (int i = 0; i < p->gn[k]; i++)
                remove_one(st->hand[me], &st->nhand[me], p->gc[k][i]);
        }
        log_add(st, me, PZ_PHASE, 0, p->phase, st->nph, 0);
        st->nph++;
        if (st->variant)
            st->status[me] |= (uint8_t)(1u << (p->phase - 1));
        else
            st->status[me]++;
        break;
    }
    case PZ_PLACE: {
        pz_group *g = &st->t.g[p->pid][p->grp];
        memmove(g->c + p->idx + 1, g->c + p->idx, (size_t)(g->n - p->idx));
        g->c[p->idx] = p->card;
        g->n++;
        remove_one(st->hand[me], &st->nhand[me], p->card);
        log_add(st, me, PZ_PLACE, p->card, p->pid, p->grp, p->idx);
        break;
    }
    case PZ_DISCARD:
    case PZ_SKIP: {
        int c = p->type == PZ_SKIP ? PZ_JOKER : p->card;
        remove_one(st->hand[me], &st->nhand[me], c);
        st->disc[st->ndisc++] = (uint8_t)c;
        if (p->type == PZ_SKIP) {
            st->skip[p->target] = 1;
            log_add(st, me, PZ_SKIP, PZ_JOKER, p->target, 0, 0);
        } else {
            log_add(st, me, PZ_DISCARD, c, 0, 0, 0);
        }
        fx->turn_ending = 1;
        if (st->nhand[me] == 0) {
            st->turns_hand++;
            st->turns_total++;
            end_hand(st, PZ_END_OUT, fx);
            return;
        }
        next_turn(st, fx);
        return;
    }
    default:
        return;
    }
    if (st->nhand[me] == 0) { /* out by a phase or a placement */
        fx->turn_ending = 1;
        st->turns_hand++;
        st->turns_total++;
        end_hand(st, PZ_END_OUT, fx);
    }
}
