/* hanabi_rig.h: positions for the Hanabi unit tests (included by
 * test_hanabi.c, test_hanabi_conv.c): a game started by hn_start() from a
 * deck whose first cards are given. */
#ifndef CROUPIER_TEST_HANABI_RIG_H
#define CROUPIER_TEST_HANABI_RIG_H

/* Deck: the cards in `prefix` (space separated) first, then the rest. */
static void rig(hn_state *st, int variant, int np, int endrule, int first, const char *prefix)
{
    uint8_t deck[HN_MAXDECK];
    int count[31] = {0}, n = 0, nsuits = variant ? 6 : 5;
    char buf[400];
    snprintf(buf, sizeof buf, "%s", prefix);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
        int c = hn_card_parse(t, nsuits);
        if (!c)
            fail_msg("bad card %s", t);
        count[c]++;
        assert_true(count[c] <= hn_copies(hn_rank(c)));
        deck[n++] = (uint8_t)c;
    }
    for (int s = 0; s < nsuits; s++)
        for (int r = 1; r <= 5; r++) {
            int c = hn_card(s, r);
            for (int k = count[c]; k < hn_copies(r); k++)
                deck[n++] = (uint8_t)c;
        }
    assert_int_equal(n, nsuits * 10);
    memset(st, 0, sizeof *st);
    st->seed = 42;
    rng_seed(&st->rng, 42, 1);
    hn_start(st, variant, np, endrule, first, deck, n);
}

/* As if the 1 to `upto` of every suit had been played: those cards taken
 * from the undrawn deck, counted as drawn, and on the fireworks (the state
 * keeps the game's invariants: every card drawn is in one place). */
static inline void rig_fireworks(hn_state *st, int upto) /* inline: not every includer uses it */
{
    for (int s = 0; s < st->nsuits; s++)
        for (int r = 1; r <= upto; r++) {
            int c = hn_card(s, r), i = st->next;
            while (i < st->ndeck && st->deck[i] != c)
                i++;
            assert_true(i < st->ndeck);
            st->deck[i] = st->deck[st->next];
            st->deck[st->next++] = (uint8_t)c;
            st->fire[s] = (uint8_t)r;
        }
}

#endif
