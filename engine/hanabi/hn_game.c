/* hn_game.c: the flow of a game of Hanabi: the deal, applying a judged
 * play (tokens, piles, draws, hint knowledge) and the three end
 * conditions; the cards and judging a play are hn_rules.c's.
 *
 * hn_do() is only ever called with a play hn_judge() found legal, so it
 * cannot fail; callers judge first, which is how nothing is half-applied.
 * The final round: with the seed's rule it starts when a player must draw
 * from the empty deck (after a play or discard), with hanab.live's when the
 * last card is drawn; in both cases every player, the one who triggered it
 * included, then takes exactly one more turn (np turns) and the game ends.
 */
#include "hn.h"

#include <stdio.h>
#include <string.h>

static const uint64_t DEAL_STREAM = 0x4A4AB1DEA1ULL;
void hn_start(hn_state *st, int variant, int np, int endrule, int first,
              const uint8_t *deck, int ndeck)
{
    uint64_t seed = st->seed;
    rng r = st->rng;
    memset(st, 0, sizeof *st);
    st->seed = seed;
    st->rng = r;
    st->variant = (uint8_t)variant;
    st->endrule = (uint8_t)endrule;
    st->np = (uint8_t)np;
    st->nsuits = variant ? 6 : 5;
    st->handsize = np <= 3 ? 5 : 4;
    st->ndeck = (uint8_t)ndeck;
    memcpy(st->deck, deck, (size_t)ndeck);
    for (int p = 0; p < np; p++) /* player by player */
        for (int i = 0; i < st->handsize; i++) {
            st->order[p][i] = st->next;
            st->hand[p][i] = st->deck[st->next++];
        }
    for (int p = 0; p < np; p++)
        st->nhand[p] = st->handsize;
    st->hints = HN_MAXHINTS;
    st->first = (uint8_t)first;
    st->cur = (uint8_t)first;
    st->final_left = -1;
    st->reason = -1;
}

void hn_deal(hn_state *st, int variant, int np, int endrule, uint64_t seed)
{
    uint8_t deck[HN_MAXDECK];
    int n = 0, nsuits = variant ? 6 : 5;
    memset(st, 0, sizeof *st);
    st->seed = seed;
    rng_seed(&st->rng, seed, DEAL_STREAM);
    for (int s = 0; s < nsuits; s++)
        for (int r = 1; r <= 5; r++)
            for (int k = 0; k < hn_copies(r); k++)
                deck[n++] = (uint8_t)hn_card(s, r);
    rng_shuffle_u8(&st->rng, deck, (size_t)n);
    int first = (int)rng_below(&st->rng, (uint32_t)np); /* after the deal, as the seed */
    hn_start(st, variant, np, endrule, first, deck, n);
}

int hn_score(const hn_state *st)
{
    int s = 0;
    for (int k = 0; k < st->nsuits; k++)
        s += st->fire[k];
    return s;
}

int hn_max_score(const hn_state *st) { return 5 * st->nsuits; }

const char *hn_result_name(const hn_state *st)
{
    if (!st->over)
        return "playing";
    switch (st->reason) {
    case HN_END_ERRORS: return "errors";
    case HN_END_FIVES: return "all-fives";
    default: return "deck-out";
    }
}

static void draw(hn_state *st, int p, hn_hist *h, int *trigger)
{
    if (st->next >= st->ndeck) {
        h->drew = 0;
        if (st->endrule == HN_RULE_SEED)
            *trigger = 1; /* must draw, and cannot */
        return;
    }
    int n = st->nhand[p];
    st->order[p][n] = st->next;
    st->hand[p][n] = st->deck[st->next++];
    memset(&st->know[p][n], 0, sizeof st->know[p][n]);
    st->nhand[p]++;
    h->drew = st->hand[p][n];
    if (st->endrule == HN_RULE_STANDARD && st->next == st->ndeck)
        *trigger = 1; /* the last card is drawn */
}

/* Remove card i of p's hand; the slot it vacates at the end holds nothing
 * (no stale copy of a card for a masked state to keep). */
static void take(hn_state *st, int p, int i)
{
    int n = st->nhand[p] - i - 1;
    memmove(&st->hand[p][i], &st->hand[p][i + 1], (size_t)n);
    memmove(&st->order[p][i], &st->order[p][i + 1], (size_t)n);
    memmove(&st->know[p][i], &st->know[p][i + 1], (size_t)n * sizeof st->know[p][0]);
    st->nhand[p]--;
    st->hand[p][st->nhand[p]] = 0;
    st->order[p][st->nhand[p]] = HN_NOCARD;
    memset(&st->know[p][st->nhand[p]], 0, sizeof st->know[p][0]);
}

void hn_do(hn_state *st, const hn_play *p)
{
    int s = st->cur, trigger = 0;
    hn_hist h;
    memset(&h, 0, sizeof h);
    h.type = (uint8_t)p->type;
    h.seat = (uint8_t)s;
    h.target = (uint8_t)p->target;
    h.value = (uint8_t)p->value;
    if (p->type == HN_HINT_COLOR || p->type == HN_HINT_NUMBER) {
        int t = p->target, m = hn_touch(st, t, p->type, p->value);
        st->hints--;
        h.touched = (uint8_t)m;
        for (int i = 0; i < st->nhand[t]; i++) {
            hn_know *k = &st->know[t][i];
            uint8_t bit = (uint8_t)(1u << p->value);
            if (p->type == HN_HINT_COLOR)
                (m >> i & 1) ? (k->pos_col |= bit) : (k->neg_col |= bit);
            else
                (m >> i & 1) ? (k->pos_num |= bit) : (k->neg_num |= bit);
        }
    } else {
        int c = st->hand[s][p->target];
        h.card = (uint8_t)c;
        take(st, s, p->target);
        if (p->type == HN_DISCARD) {
            st->disc[st->ndisc++] = (uint8_t)c;
            st->hints++;
        } else if (st->fire[hn_suit(c)] == hn_rank(c) - 1) {
            st->fire[hn_suit(c)] = (uint8_t)hn_rank(c);
            h.correct = 1;
            if (hn_rank(c) == 5 && st->hints < HN_MAXHINTS)
                st->hints++;
        } else {
            st->disc[st->ndisc++] = (uint8_t)c;
            st->errors++;
        }
        draw(st, s, &h, &trigger);
    }
    if (st->nhist < HN_MAXHIST)
        st->hist[st->nhist++] = h;

    /* end of the turn */
    int fives = 1;
    for (int k = 0; k < st->nsuits; k++)
        fives &= st->fire[k] == 5;
    if (st->errors >= HN_MAXERRORS) {
        st->over = 1;
        st->reason = HN_END_ERRORS;
    } else if (fives) {
        st->over = 1;
        st->reason = HN_END_FIVES;
    } else if (st->final_left > 0) {
        if (--st->final_left == 0) {
            st->over = 1;
            st->reason = HN_END_DECK;
        }
    } else if (trigger && st->final_left < 0) {
        st->final_left = (int8_t)st->np;
    }
    if (st->nhist >= HN_MAXHIST && !st->over) { /* unreachable (see HN_MAXHIST) */
        st->over = 1;
        st->reason = HN_END_DECK;
    }
    if (!st->over)
        st->cur = (uint8_t)((st->cur + 1) % st->np);
}

void hn_observe(const hn_state *st, int seat, hn_obs *o)
{
    memset(o, 0, sizeof *o);
    o->seat = seat;
    o->np = st->np;
    o->nsuits = st->nsuits;
    o->variant = st->variant;
    o->endrule = st->endrule;
    memcpy(o->fire, st->fire, sizeof o->fire);
    memcpy(o->know, st->know, sizeof o->know);
    for (int p = 0; p < st->np; p++) {
        o->nhand[p] = st->nhand[p];
        if (p == seat)
            continue; /* the seat's own cards stay 0: unknown */
        for (int i = 0; i < st->nhand[p]; i++) {
            int c = st->hand[p][i];
            o->hand[p][i] = (uint8_t)c;
            o->seen[hn_suit(c)][hn_rank(c)]++;
        }
    }
    for (int k = 0; k < st->nsuits; k++)
        for (int r = 1; r <= st->fire[k]; r++)
            o->seen[k][r]++;
    for (int i = 0; i < st->ndisc; i++) {
        o->seen[hn_suit(st->disc[i])][hn_rank(st->disc[i])]++;
        o->dead[hn_suit(st->disc[i])][hn_rank(st->disc[i])]++;
    }
    o->hints = st->hints;
    o->errors = st->errors;
    o->deck_left = st->ndeck - st->next;
    o->final_left = st->final_left;
}

void hn_mask(const hn_state *st, int seat, hn_state *out)
{
    *out = *st;
    for (int i = st->next; i < HN_MAXDECK; i++)
        out->deck[i] = 0;
    if (seat >= 0 && seat < st->np) {
        for (int i = 0; i < HN_MAXHAND; i++) { /* every slot, not only the held ones */
            if (i < st->nhand[seat] && st->order[seat][i] < HN_MAXDECK)
                out->deck[st->order[seat][i]] = 0;
            out->hand[seat][i] = 0;
        }
        for (int j = 0; j < st->nhist; j++)
            if (st->hist[j].seat == seat)
                out->hist[j].drew = 0;
    }
    memset(&out->rng, 0, sizeof out->rng);
    out->seed = 0;
}

void hn_redeal(void *vst, int reader, uint64_t salt)
{
    hn_state *st = vst;
    /* the cards are shuffled where the deal keeps them, in the deck, and
     * the hands read again from it: a position whose invariants hold */
    rng_slots s = {.n = 0};
    for (int p = 0; p < st->np; p++)
        if (!hn_sees(st, reader, p))
            for (int i = 0; i < st->nhand[p]; i++)
                rng_slots_add(&s, st->deck + st->order[p][i], 1);
    if (reader != SEAT_ADMIN && !st->over && !st->revealed)
        rng_slots_add(&s, st->deck + st->next, (size_t)(st->ndeck - st->next));
    rng_slots_shuffle(&s, salt);
    for (int p = 0; p < st->np; p++)
        for (int i = 0; i < st->nhand[p]; i++)
            st->hand[p][i] = st->deck[st->order[p][i]];
}

int hn_sees(const hn_state *st, int reader, int owner)
{
    if (st->over || st->revealed || reader == SEAT_ADMIN || reader == SEAT_OBSERVER)
        return 1;
    /* a seat: every hand but its own; a spectator (or anything else): none */
    return reader >= 0 && reader < st->np && reader != owner;
}

void hn_play_text(const hn_play *p, char *out, size_t n)
{
    switch (p->type) {
    case HN_HINT_COLOR:
        snprintf(out, n, "hints player %d about their %s cards", p->target + 1,
                 hn_color_name(p->value));
        break;
    case HN_HINT_NUMBER:
        snprintf(out, n, "hints player %d about their %ds", p->target + 1, p->value);
        break;
    case HN_DISCARD:
        snprintf(out, n, "discards card %d", p->target + 1); /* counted from 1, the oldest */
        break;
    default:
        snprintf(out, n, "plays card %d", p->target + 1);
    }
}

int hn_invariants(const void *vst, game_err *e)
{
    const hn_state *st = vst;
    int ok = st->np >= HN_MINP && st->np <= HN_MAXP && st->handsize <= HN_MAXHAND &&
             st->nsuits <= HN_MAXSUITS && st->ndeck <= HN_MAXDECK && st->next <= st->ndeck &&
             st->ndisc <= st->ndeck && st->hints <= HN_MAXHINTS && st->errors <= HN_MAXERRORS &&
             st->cur < st->np && st->nhist <= HN_MAXHIST;
    for (int p = 0; p < st->np && ok; p++)
        ok &= st->nhand[p] <= st->handsize;
    for (int s = 0; s < st->nsuits && ok; s++)
        ok &= st->fire[s] <= 5;
    if (!ok)
        return err_set(e, ERR_INTERNAL, "", "a count is beyond its capacity");
    /* conservation: every card drawn is in one hand slot (the one its deck
     * index names), on the discard pile or in the fireworks, once */
    int drawn[256] = {0}, seen[256] = {0}, at[HN_MAXDECK] = {0};
    for (int i = 0; i < st->next; i++)
        drawn[st->deck[i]]++;
    for (int p = 0; p < st->np; p++)
        for (int i = 0; i < HN_MAXHAND; i++) {
            int o = st->order[p][i];
            if (i >= st->nhand[p]) {
                if (st->hand[p][i])
                    return err_set(e, ERR_INTERNAL, "", "player %d's empty slot %d holds a card", p + 1, i + 1);
                continue;
            }
            if (o >= st->next || at[o]++ || st->deck[o] != st->hand[p][i])
                return err_set(e, ERR_INTERNAL, "", "player %d's card %d is not the deck's card %d", p + 1, i + 1,
                               o + 1);
            seen[st->hand[p][i]]++;
        }
    for (int i = 0; i < st->ndisc; i++)
        seen[st->disc[i]]++;
    for (int s = 0; s < st->nsuits; s++)
        for (int r = 1; r <= st->fire[s]; r++)
            seen[hn_card(s, r)]++;
    for (int c = 0; c < 256; c++)
        if (seen[c] != drawn[c])
            return err_set(e, ERR_INTERNAL, "", "card %d is drawn %d times and found %d times", c, drawn[c], seen[c]);
    return 0;
}
