/* bo_rules.c: cards and the rules of a single play (match_build,
 * match_discard, the full judgement, the play generator).
 *
 * Everything here works on a bo_obs (one seat's view of the table), so the
 * game and the autograder functions share one judgement. Each rejection
 * names a short rule id that api/ reports with its 422s.
 */
#include "bo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char VALUES[] = "A234567890JQK";
static const char SUITS[] = "SHDC";

static const char *const NAMES[] = {
    "??",
    "AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C",
    "4S", "4H", "4D", "4C", "5S", "5H", "5D", "5C", "6S", "6H", "6D", "6C",
    "7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C", "9S", "9H", "9D", "9C",
    "0S", "0H", "0D", "0C", "JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC",
    "KS", "KH", "KD", "KC", "ZZ",
};

int bo_card_parse(const char *s, int variant)
{
    if (!s || !s[0] || !s[1] || s[2])
        return 0;
    if (s[0] == 'Z' && s[1] == 'Z')
        return variant == 1 ? BO_JOKER : 0;
    const char *v = strchr(VALUES, s[0]);
    const char *u = strchr(SUITS, s[1]);
    if (!v || !u || !*v || !*u)
        return 0;
    return bo_card((int)(v - VALUES) + 1, (int)(u - SUITS));
}

const char *bo_card_name(int c)
{
    return (c >= 1 && c <= BO_JOKER) ? NAMES[c] : NAMES[0];
}

static int adjacent(int a, int b) { return a - b == 1 || b - a == 1; }

static int adjacent_wrap(int a, int b)
{
    return adjacent(a, b) || (a == 2 && b == 13) || (a == 13 && b == 2);
}

/* --- jokers: readings as value/colour sets -------------------------------- */

enum { ALL_READINGS = (1u << 24) - 1 };

static uint32_t reading(int v, int red) { return 1u << ((v - 2) * 2 + red); }

/* The readings of one card on a pile (an Ace has none: it never stays). */
static uint32_t readings_of(int card)
{
    if (bo_joker(card))
        return ALL_READINGS;
    int v = bo_val(card);
    return v == 1 ? 0 : reading(v, bo_red(card));
}

/* Readings a card placed on something read as `s` may take. */
static uint32_t next_build(uint32_t s)
{
    uint32_t out = 0;
    for (int v = 2; v <= 13; v++)
        for (int r = 0; r < 2; r++)
            if (s & reading(v, r)) {
                if (v > 2) out |= reading(v - 1, r);
                if (v < 13) out |= reading(v + 1, r);
            }
    return out;
}

static uint32_t next_disc(uint32_t s)
{
    uint32_t out = 0;
    for (int v = 2; v <= 13; v++)
        for (int r = 0; r < 2; r++)
            if (s & reading(v, r)) {
                out |= reading(v == 2 ? 13 : v - 1, !r);
                out |= reading(v == 13 ? 2 : v + 1, !r);
            }
    return out;
}

static const uint32_t STARTS = (1u << 0) | (1u << 1) | (1u << 22) | (1u << 23); /* 2s and Ks */

uint32_t bo_build_top(const uint8_t *pile, int n)
{
    if (n == 0)
        return 0;
    uint32_t s = readings_of(pile[0]) & STARTS;
    for (int i = 1; i < n && s; i++)
        s = next_build(s) & readings_of(pile[i]);
    return s;
}

uint32_t bo_disc_top(const uint8_t *pile, int n)
{
    int m = n - 1;
    while (m >= 0 && bo_joker(pile[m]))
        m--;
    uint32_t s = m >= 0 ? readings_of(pile[m]) : ALL_READINGS;
    for (int i = m + 1; i < n; i++)
        s = next_disc(s);
    return s;
}

static int has_joker(int card, const uint8_t *pile, int n)
{
    if (bo_joker(card))
        return 1;
    for (int i = 0; i < n; i++)
        if (bo_joker(pile[i]))
            return 1;
    return 0;
}

/* The joker-aware build rule; *after receives the top's readings once placed. */
static int build_joker(int card, const uint8_t *pile, int n, uint32_t *after)
{
    *after = 0;
    if (n == 0) {
        *after = readings_of(card) & STARTS;
        return *after != 0;
    }
    uint32_t top = bo_build_top(pile, n);
    if (!bo_joker(card) && bo_val(card) == 1) {
        uint32_t colour = bo_red(card) ? 0xAAAAAAu : 0x555555u;
        return (top & colour) != 0;
    }
    *after = next_build(top) & readings_of(card);
    return *after != 0;
}

int bo_match_build(int card, const uint8_t *pile, int n)
{
    return bo_build_verdict(card, pile, n, NULL, 0, NULL);
}

int bo_build_completes(int card, const uint8_t *pile, int n)
{
    if (!bo_joker(card) && bo_val(card) == 1)
        return 1;
    if (n == 0)
        return 0;
    if (has_joker(card, pile, n)) {
        uint32_t after;
        return build_joker(card, pile, n, &after) && (after & STARTS) != 0;
    }
    int v = bo_val(card);
    return v == 2 || v == 13;
}

int bo_build_pile_ok(const uint8_t *pile, int n, int *bad_index)
{
    for (int i = 0; i < n; i++)
        if (!bo_match_build(pile[i], pile, i) || bo_build_completes(pile[i], pile, i)) {
            *bad_index = i;
            return 0;
        }
    return 1;
}

int bo_match_discard(int card, const uint8_t *pile, int n, int player,
                     int to_player, int from_hand)
{
    return bo_discard_verdict(card, pile, n, player, to_player, from_hand, NULL, 0, NULL);
}

static int completes(int card, const uint8_t *pile, int n_before)
{
    return bo_build_completes(card, pile, n_before);
}

/* 1 when o->seat may embargo `target` now (0 when !embargo_known). */
static int bo_embargo_target_ok(const bo_obs *o, int target)
{
    int me = o->seat;
    return o->variant && o->embargo_known && o->holds_embargo[me] && o->embargoed_by[me] < 0 &&
           target >= 0 && target < BO_NP && target != me && o->nstock[target] > 0 &&
           o->nstock[target] <= 3 && o->embargoed_by[target] < 0;
}

static int in_hand(const bo_obs *o, int card)
{
    for (int i = 0; i < o->nhand; i++)
        if (o->hand[i] == card)
            return 1;
    return 0;
}

/* "player 2's discard pile 1": sentences count players and piles from 1
 * (the plays' JSON from 0), and a page names the player (docs/words.md). */
static void pile_words(char *out, size_t n, int owner, int pile)
{
    snprintf(out, n, "player %d's discard pile %d", owner + 1, pile + 1);
}

static int fail(char *why, size_t n, const char **rule, const char *id,
                const char *fmt, const char *a, const char *b)
{
    if (why)
        snprintf(why, n, fmt, a, b);
    if (rule)
        *rule = id;
    return 0;
}

static int ok(int verdict, char *why, size_t n, const char **rule,
              const char *id, const char *fmt, const char *a, const char *b)
{
    if (why)
        snprintf(why, n, fmt, a, b);
    if (rule)
        *rule = id;
    return verdict;
}

static int wrap_pair(int a, int b) { return (a == 2 && b == 13) || (a == 13 && b == 2); }

int bo_build_verdict(int card, const uint8_t *pile, int n, char *why, size_t whylen,
                     const char **rule)
{
    const char *c = bo_card_name(card);
    if (n == 0) {
        int start = bo_joker(card) || bo_val(card) == 2 || bo_val(card) == 13;
        if (!start)
            return fail(why, whylen, rule, "build.start",
                        "an empty build pile takes only a 2 or a King (or a joker)%s, not %s", "", c);
        return ok(1, why, whylen, rule, "build.start", "%s starts a build pile%s", c, "");
    }
    const char *top = bo_card_name(pile[n - 1]);
    if (has_joker(card, pile, n)) {
        uint32_t after;
        if (!build_joker(card, pile, n, &after))
            return fail(why, whylen, rule, "build.joker",
                        "no reading of the jokers lets %s go on the build pile topped by %s (same colour, adjacent values, no wrap)",
                        c, top);
        if (bo_build_completes(card, pile, n))
            return ok(1, why, whylen, rule, "build.complete", "%s completes the build pile topped by %s", c, top);
        return ok(1, why, whylen, rule, "build.joker", "a reading of the jokers lets %s go on %s", c, top);
    }
    int v = bo_val(card), t = bo_val(pile[n - 1]);
    if (bo_red(card) != bo_red(pile[n - 1]))
        return fail(why, whylen, rule, "build.colour", "%s is not the colour of the build pile topped by %s",
                    c, top);
    if (v == 1)
        return ok(1, why, whylen, rule, "build.complete", "the Ace %s completes the build pile topped by %s", c,
                  top);
    if (wrap_pair(v, t))
        return fail(why, whylen, rule, "build.no-wrap",
                    "%s does not follow %s: build piles do not wrap between King and 2", c, top);
    if (!adjacent(v, t))
        return fail(why, whylen, rule, "build.adjacent", "%s is not adjacent in value to %s", c, top);
    if (v == 2 || v == 13)
        return ok(1, why, whylen, rule, "build.complete", "%s continues and completes the build pile topped by %s",
                  c, top);
    return ok(1, why, whylen, rule, "build.adjacent", "%s goes on %s: same colour, adjacent value", c, top);
}

int bo_discard_verdict(int card, const uint8_t *pile, int n, int player, int to_player, int from_hand,
                       char *why, size_t whylen, const char **rule)
{
    const char *c = bo_card_name(card);
    if (!bo_joker(card) && bo_val(card) == 1)
        return fail(why, whylen, rule, "discard.ace", "an Ace (%s) never goes on a discard pile%s", c, "");
    if (n == 0) {
        if (from_hand && player == to_player)
            return ok(2, why, whylen, rule, "discard.start", "%s starts one of the player's own discard piles: turn-ending%s",
                      c, "");
        return fail(why, whylen, rule, "discard.start-own",
                    "a discard pile may be started only by its owner, from the hand (%s)%s", c, "");
    }
    const char *top = bo_card_name(pile[n - 1]);
    if (bo_joker(card))
        return ok(1, why, whylen, rule, "discard.joker", "a joker goes on any non-empty discard pile (here on %s)%s",
                  top, "");
    if (has_joker(card, pile, n)) {
        if (next_disc(bo_disc_top(pile, n)) & readings_of(card))
            return ok(1, why, whylen, rule, "discard.joker", "a reading of the jokers lets %s go on %s", c, top);
    } else if (bo_red(card) != bo_red(pile[n - 1]) && adjacent_wrap(bo_val(card), bo_val(pile[n - 1]))) {
        if (wrap_pair(bo_val(card), bo_val(pile[n - 1])))
            return ok(1, why, whylen, rule, "discard.wrap", "%s goes on %s: discard piles wrap between King and 2",
                      c, top);
        return ok(1, why, whylen, rule, "discard.sequence", "%s goes on %s: alternate colour, adjacent value", c,
                  top);
    }
    if (has_joker(card, pile, n)) {
        if (from_hand)
            return ok(2, why, whylen, rule, "discard.restart",
                      "no reading of the jokers lets %s go on %s: a turn-ending restart of the pile", c, top);
        return fail(why, whylen, rule, "discard.no-restart",
                    "no reading of the jokers lets %s go on %s (only a play from the hand may restart a pile)", c,
                    top);
    }
    int samecol = bo_red(card) == bo_red(pile[n - 1]);
    if (from_hand)
        return ok(2, why, whylen, rule, "discard.restart",
                  samecol ? "%s on %s does not alternate colour: a turn-ending restart of the pile"
                          : "%s on %s is not adjacent in value: a turn-ending restart of the pile",
                  c, top);
    return fail(why, whylen, rule, "discard.no-restart",
                samecol ? "%s on %s does not alternate colour (only a play from the hand may restart a pile)"
                        : "%s on %s is not adjacent in value (only a play from the hand may restart a pile)",
                c, top);
}

/* Plays 4 (embargo a player) and 5 (clear one's own embargo). */
static int judge_embargo(const bo_obs *o, const bo_play *p, char *why, size_t whylen,
                         const char **rule)
{
    char who[16];
    int me = o->seat;
    if (!o->variant)
        return fail(why, whylen, rule, "embargo.variant",
                    "embargo cards exist only in the bonus game%s%s", "", "");
    if (!o->embargo_known)
        return fail(why, whylen, rule, "embargo.unknown",
                    "embargo plays cannot be judged without the embargo state%s%s", "", "");
    if (p->type == BO_CLEAR) {
        if (o->embargoed_by[me] < 0)
            return fail(why, whylen, rule, "embargo.not-embargoed",
                        "there is no embargo on this player to clear%s%s", "", "");
        snprintf(who, sizeof who, "%d", o->embargoed_by[me] + 1);
        return ok(2, why, whylen, rule, "embargo.clear",
                  "clears the embargo of player %s (the card leaves play): turn-ending%s", who, "");
    }
    int t = p->dst_owner;
    snprintf(who, sizeof who, "%d", t + 1);
    if (!o->holds_embargo[me])
        return fail(why, whylen, rule, "embargo.used",
                    "this player's embargo card has already been played%s%s", "", "");
    if (o->embargoed_by[me] >= 0)
        return fail(why, whylen, rule, "embargo.restricted",
                    "an embargoed player may only play from the stockpile or clear the embargo%s%s", "", "");
    if (t == me)
        return fail(why, whylen, rule, "embargo.self", "a player cannot embargo themself%s%s", "", "");
    if (o->embargoed_by[t] >= 0)
        return fail(why, whylen, rule, "embargo.already",
                    "player %s is already embargoed%s", who, "");
    if (o->nstock[t] > 3)
        return fail(why, whylen, rule, "embargo.stockpile",
                    "player %s's stockpile holds more than 3 cards%s", who, "");
    if (!bo_embargo_target_ok(o, t))
        return fail(why, whylen, rule, "embargo.target", "player %s cannot be embargoed%s", who, "");
    return ok(2, why, whylen, rule, "embargo.play",
              "embargoes player %s (stockpile plays only until they clear it): turn-ending%s", who, "");
}

int bo_judge(const bo_obs *o, const bo_play *p, char *why, size_t whylen,
             const char **rule)
{
    const char *c = bo_card_name(p->card);
    char where[48];

    if (p->type == BO_NO_PLAY) {
        if (bo_any_play(o))
            return fail(why, whylen, rule, "noplay.exists",
                        "a play is possible%s%s, so no play may not be claimed", "", "");
        return ok(3, why, whylen, rule, "noplay.none", "no play of any kind is possible%s%s", "", "");
    }
    if (p->type == BO_EMBARGO || p->type == BO_CLEAR)
        return judge_embargo(o, p, why, whylen, rule);
    if (o->variant && o->embargo_known && o->embargoed_by[o->seat] >= 0 &&
        (p->type == BO_FROM_HAND || p->type == BO_FROM_DISCARD)) {
        snprintf(where, sizeof where, "%d", o->embargoed_by[o->seat] + 1);
        return fail(why, whylen, rule, "embargo.restricted",
                    "player %s has embargoed this player: only plays from the stockpile, or clearing the embargo, until it is cleared%s",
                    where, "");
    }
    /* source */
    if (p->type == BO_FROM_HAND && !in_hand(o, p->card))
        return fail(why, whylen, rule, "source.not-held", "%s is not in the hand%s", c, "");
    if (p->type == BO_FROM_DISCARD) {
        int n = o->b.ndisc[p->src_owner][p->src_pile];
        pile_words(where, sizeof where, p->src_owner, p->src_pile);
        if (n == 0)
            return fail(why, whylen, rule, "source.empty",
                        "%s is empty%s", where, "");
        if (o->b.disc[p->src_owner][p->src_pile][n - 1] != p->card)
            return fail(why, whylen, rule, "source.not-top",
                        "%s is not the top card of %s", c, where);
    }
    if (p->type == BO_FROM_STOCK) {
        int s = o->seat;
        if (o->nstock[s] == 0 || o->stock_top[s] != p->card)
            return fail(why, whylen, rule, "stock.not-top",
                        "%s is not the top card of the player's own stockpile%s", c, "");
    }
    /* destination */
    if (p->dst_kind == BO_TO_BUILD) {
        int b = p->dst_pile;
        return bo_build_verdict(p->card, o->b.build[b], o->b.nbuild[b], why, whylen, rule);
    }
    int ow = p->dst_owner, k = p->dst_pile;
    if (p->type == BO_FROM_DISCARD && p->src_owner == ow && p->src_pile == k)
        return fail(why, whylen, rule, "discard.same-pile",
                    "%s must move to another discard pile%s", c, "");
    return bo_discard_verdict(p->card, o->b.disc[ow][k], o->b.ndisc[ow][k], o->seat, ow,
                              p->type == BO_FROM_HAND, why, whylen, rule);
}

/* Append p. Identical plays could only come from twin cards in the hand,
 * which gen() skips, so no search for duplicates is needed. */
static void push(bo_play *out, uint8_t *verdicts, int *n, const bo_play *p, int v)
{
    if (*n >= BO_MAXPLAYS)
        return;
    out[*n] = *p;
    if (verdicts)
        verdicts[*n] = (uint8_t)v;
    (*n)++;
}

/* Every destination for `card` from a source; stop_at_first for bo_any_play. */
static int gen_card(const bo_obs *o, bo_play *base, bo_play *out, uint8_t *verdicts,
                    int *n, int stop_at_first)
{
    int card = base->card, from_hand = base->type == BO_FROM_HAND;
    for (int b = 0; b < BO_NBUILD; b++) {
        if (bo_match_build(card, o->b.build[b], o->b.nbuild[b])) {
            if (stop_at_first)
                return 1;
            base->dst_kind = BO_TO_BUILD;
            base->dst_owner = 0;
            base->dst_pile = (uint8_t)b;
            push(out, verdicts, n, base, 1);
        }
    }
    for (int ow = 0; ow < BO_NP; ow++)
        for (int k = 0; k < BO_NDISC; k++) {
            if (base->type == BO_FROM_DISCARD && base->src_owner == ow && base->src_pile == k)
                continue;
            int r = bo_match_discard(card, o->b.disc[ow][k], o->b.ndisc[ow][k], o->seat,
                                     ow, from_hand);
            if (!r)
                continue;
            if (stop_at_first)
                return 1;
            base->dst_kind = BO_TO_DISCARD;
            base->dst_owner = (uint8_t)ow;
            base->dst_pile = (uint8_t)k;
            push(out, verdicts, n, base, r);
        }
    return 0;
}

static int gen(const bo_obs *o, bo_play *out, uint8_t *verdicts, int stop)
{
    int n = 0;
    bo_play p;
    int s = o->seat;
    if (o->nstock[s] > 0 && o->stock_top[s]) {
        memset(&p, 0, sizeof p);
        p.type = BO_FROM_STOCK;
        p.card = o->stock_top[s];
        if (gen_card(o, &p, out, verdicts, &n, stop))
            return 1;
    }
    int embargoed = o->variant && o->embargo_known && o->embargoed_by[s] >= 0;
    for (int i = 0; i < o->nhand && !embargoed; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= o->hand[j] == o->hand[i];
        if (dup)
            continue;
        memset(&p, 0, sizeof p);
        p.type = BO_FROM_HAND;
        p.card = o->hand[i];
        if (gen_card(o, &p, out, verdicts, &n, stop))
            return 1;
    }
    for (int ow = 0; ow < BO_NP && !embargoed; ow++)
        for (int k = 0; k < BO_NDISC; k++) {
            int m = o->b.ndisc[ow][k];
            if (!m)
                continue;
            memset(&p, 0, sizeof p);
            p.type = BO_FROM_DISCARD;
            p.card = o->b.disc[ow][k][m - 1];
            p.src_owner = (uint8_t)ow;
            p.src_pile = (uint8_t)k;
            if (gen_card(o, &p, out, verdicts, &n, stop))
                return 1;
        }
    /* the embargo plays (turn-ending) */
    memset(&p, 0, sizeof p);
    p.type = BO_EMBARGO;
    p.dst_kind = BO_TO_PLAYER;
    for (int t = 0; t < BO_NP; t++)
        if (bo_embargo_target_ok(o, t)) {
            if (stop)
                return 1;
            p.dst_owner = (uint8_t)t;
            push(out, verdicts, &n, &p, 2);
        }
    if (embargoed) {
        if (stop)
            return 1;
        memset(&p, 0, sizeof p);
        p.type = BO_CLEAR;
        for (int b = 0; b < BO_NBUILD; b++) {
            p.dst_pile = (uint8_t)b;
            push(out, verdicts, &n, &p, 2);
        }
        p.dst_kind = BO_TO_DISCARD;
        for (int ow = 0; ow < BO_NP; ow++)
            for (int k = 0; k < BO_NDISC; k++) {
                p.dst_owner = (uint8_t)ow;
                p.dst_pile = (uint8_t)k;
                push(out, verdicts, &n, &p, 2);
            }
    }
    return stop ? 0 : n;
}

int bo_gen(const bo_obs *o, bo_play *out, uint8_t *verdicts)
{
    return gen(o, out, verdicts, 0);
}

int bo_any_play(const bo_obs *o)
{
    return gen(o, NULL, NULL, 1);
}

const char *bo_situation(const bo_obs *o, char *why, size_t whylen)
{
    bo_play *plays = malloc(sizeof *plays * BO_MAXPLAYS);
    uint8_t *rated = malloc(BO_MAXPLAYS);
    int n = plays && rated ? bo_gen(o, plays, rated) : 0;
    int stock_build = 0, embargo = 0, build = 0, going_on = 0;
    for (int i = 0; i < n; i++) {
        stock_build |= plays[i].type == BO_FROM_STOCK && plays[i].dst_kind == BO_TO_BUILD;
        embargo |= plays[i].type == BO_EMBARGO;
        build |= plays[i].type != BO_EMBARGO && plays[i].type != BO_CLEAR && plays[i].dst_kind == BO_TO_BUILD;
        going_on |= rated[i] == 1;
    }
    free(plays);
    free(rated);
    const char *id, *text;
    if (!n) {
        id = "play.no-play";
        text = "no play of any kind is possible: the answer is (3, None, (None, None))";
    } else if (o->variant && o->embargo_known && o->embargoed_by[o->seat] >= 0) {
        id = "play.embargoed";
        text = "the player is embargoed: only a play from the stockpile, or clearing the embargo (play 5)";
    } else if (stock_build) {
        id = "play.stock-to-build";
        text = "the stockpile's top card can go on a build pile";
    } else if (embargo) {
        id = "play.embargo";
        text = "the player may play the embargo card on another player (play 4)";
    } else if (build) {
        id = "play.build";
        text = "a card of the hand or of a discard pile can go on a build pile";
    } else if (going_on) {
        id = "play.discard";
        text = "only discard piles take a card, some without ending the turn";
    } else {
        id = "play.turn-ending-only";
        text = "every possible play ends the turn";
    }
    if (why)
        snprintf(why, whylen, "%s", text);
    return id;
}

void bo_obs_do(bo_obs *o, const bo_play *p, int *completed)
{
    *completed = -1;
    if (p->type == BO_NO_PLAY)
        return;
    int s = o->seat;
    if (p->type == BO_EMBARGO) {
        o->holds_embargo[s] = 0;
        o->embargoed_by[p->dst_owner] = s;
        return;
    }
    if (p->type == BO_CLEAR) {
        o->embargoed_by[s] = -1;
        return;
    }
    if (p->type == BO_FROM_HAND) {
        for (int i = 0; i < o->nhand; i++)
            if (o->hand[i] == p->card) {
                memmove(&o->hand[i], &o->hand[i + 1], (size_t)(o->nhand - i - 1));
                o->nhand--;
                break;
            }
    } else if (p->type == BO_FROM_DISCARD) {
        o->b.ndisc[p->src_owner][p->src_pile]--;
    } else {
        o->nstock[s]--;
        o->stock_top[s] = 0; /* unknown until revealed */
    }
    if (p->dst_kind == BO_TO_BUILD) {
        int b = p->dst_pile, n = o->b.nbuild[b];
        if (completes(p->card, o->b.build[b], n)) {
            o->b.nbuild[b] = 0;
            *completed = b;
            if (o->ndraw >= 0)
                o->ndraw += n + 1;
        } else if (n < BO_PILE) { /* (an autograder pile may be full) */
            o->b.build[b][n] = p->card;
            o->b.nbuild[b] = (uint8_t)(n + 1);
        }
    } else {
        int n = o->b.ndisc[p->dst_owner][p->dst_pile];
        if (n < BO_PILE) {
            o->b.disc[p->dst_owner][p->dst_pile][n] = p->card;
            o->b.ndisc[p->dst_owner][p->dst_pile] = (uint8_t)(n + 1);
        }
    }
}

void bo_play_text(const bo_obs *o, const bo_play *p, char *out, size_t n)
{
    char src[80], dst[96], pile[48];
    const char *c = bo_card_name(p->card);
    if (p->type == BO_NO_PLAY) {
        snprintf(out, n, "has no possible play");
        return;
    }
    if (p->type == BO_EMBARGO) {
        snprintf(out, n, "plays the embargo card on player %d (%d stockpile card%s left)", p->dst_owner + 1,
                 o->nstock[p->dst_owner], o->nstock[p->dst_owner] == 1 ? "" : "s");
        return;
    }
    if (p->type == BO_CLEAR) {
        snprintf(out, n, "clears the embargo of player %d", o->embargoed_by[o->seat] + 1);
        return;
    }
    if (p->type == BO_FROM_HAND) {
        snprintf(src, sizeof src, "%s from the hand", c);
    } else if (p->type == BO_FROM_STOCK) {
        snprintf(src, sizeof src, "%s from the stockpile", c);
    } else {
        pile_words(pile, sizeof pile, p->src_owner, p->src_pile);
        snprintf(src, sizeof src, "%s from %s", c, pile);
    }
    if (p->dst_kind == BO_TO_BUILD) {
        int m = o->b.nbuild[p->dst_pile];
        if (m)
            snprintf(dst, sizeof dst, "build pile %d (%s)", p->dst_pile + 1,
                     bo_card_name(o->b.build[p->dst_pile][m - 1]));
        else
            snprintf(dst, sizeof dst, "build pile %d (empty)", p->dst_pile + 1);
    } else {
        int m = o->b.ndisc[p->dst_owner][p->dst_pile];
        pile_words(pile, sizeof pile, p->dst_owner, p->dst_pile);
        if (m)
            snprintf(dst, sizeof dst, "%s (%s)", pile, bo_card_name(o->b.disc[p->dst_owner][p->dst_pile][m - 1]));
        else
            snprintf(dst, sizeof dst, "%s (empty)", pile);
    }
    snprintf(out, n, "plays %s onto %s", src, dst);
}
