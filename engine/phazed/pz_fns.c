/* pz_fns.c: the autograder functions of the Phazed reference
 * (group_type, phase_type, is_valid_play, score, play) as game_fn rows.
 *
 * The judged argument (group, phase, play) is answered, never rejected: a
 * malformed one is simply no type ([]) / invalid (false). The arguments
 * that describe the game (player_id, table, turn_history, phase_status,
 * hand, discard; the hand of score) are validated and a bad one is
 * ERR_BAD_MEMBER at "/<index>/...". The table has one entry per player (2-4;
 * the reference's 4), phase_status as many. Variant "bonus" (?variant=):
 * Jokers "ZZ" are cards, phase_status holds lists of 7 booleans and play 6
 * (Skip) exists.
 */
#include "pz.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <string.h>

static int get_variant(const char *variant, int *v, game_err *e)
{
    if (!variant || strcmp(variant, "standard") == 0) {
        *v = 0;
        return 0;
    }
    if (strcmp(variant, "bonus") == 0) {
        *v = 1;
        return 0;
    }
    return err_set(e, ERR_BAD_MEMBER, "", "unknown variant \"%.32s\" (\"standard\" or \"bonus\")", variant);
}

static json_t *types_json(unsigned mask)
{
    json_t *a = json_array();
    for (int k = 1; k <= PZ_NPHASES; k++)
        if (mask & (1u << k))
            json_array_append_new(a, json_integer(k));
    return a;
}

/* A judged list of cards: 0 when it is not one. */
static int judged_cards(const json_t *j, int variant, size_t max, uint8_t *out, int *n)
{
    return j && pz_cards_parse(j, "", variant, max, out, n, NULL) == 0;
}

static int fn_group_type(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                  game_err *e)
{
    (void)why;
    int v, n;
    uint8_t c[PZ_NCARDS];
    *result = NULL;
    if (get_variant(variant, &v, e))
        return ERR_BAD_MEMBER;
    *result = types_json(judged_cards(args[0], v, PZ_NCARDS, c, &n) ? pz_group_types(c, n) : 0);
    return 0;
}

static int fn_phase_type(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                  game_err *e)
{
    (void)why;
    int v;
    unsigned mask = 0;
    *result = NULL;
    if (get_variant(variant, &v, e))
        return ERR_BAD_MEMBER;
    const json_t *ph = args[0];
    if (json_is_array(ph) && json_array_size(ph) >= 1 && json_array_size(ph) <= 2) {
        uint8_t c[2][PZ_NCARDS];
        int gn[2], ok = 1, ng = (int)json_array_size(ph);
        for (int k = 0; k < ng && ok; k++)
            ok = judged_cards(json_array_get(ph, (size_t)k), v, PZ_NCARDS, c[k], &gn[k]);
        const uint8_t *g[2] = {c[0], c[1]};
        if (ok)
            mask = pz_phase_types(ng, g, gn);
    }
    *result = types_json(mask);
    return 0;
}

static int fn_score(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                  game_err *e)
{
    (void)why;
    int v, n;
    uint8_t c[PZ_NCARDS * 4];
    *result = NULL;
    if (get_variant(variant, &v, e) || pz_cards_parse(args[0], "/0", v, sizeof c, c, &n, e))
        return ERR_BAD_MEMBER;
    *result = json_integer(pz_hand_points(c, n));
    return 0;
}

/* player_id, table, turn_history, phase_status, hand, discard from args[i..] */
static int obs_args(json_t *const *args, int i, int v, pz_obs *o, game_err *e)
{
    char p[32], q[64];
    long long x;
    memset(o, 0, sizeof *o);
    o->variant = v;
    o->deck = -1;
    for (int k = 0; k < PZ_MAXP; k++)
        o->hand_sizes[k] = -1;
    snprintf(p, sizeof p, "/%d", i);
    if (jx_int(args[i], p, 0, PZ_MAXP - 1, &x, e))
        return ERR_BAD_MEMBER;
    o->seat = (int)x;
    snprintf(p, sizeof p, "/%d", i + 1);
    if (jx_array(args[i + 1], p, PZ_MINP, PZ_MAXP, e))
        return ERR_BAD_MEMBER;
    o->np = (int)json_array_size(args[i + 1]);
    if (pz_table_parse(args[i + 1], p, v, o->np, &o->t, 0, e))
        return ERR_BAD_MEMBER;
    if (o->seat >= o->np) {
        snprintf(p, sizeof p, "/%d", i);
        return err_set(e, ERR_BAD_MEMBER, p, "player %d is not at this table of %d", o->seat, o->np);
    }
    /* turn_history: [[player, [plays]], ...] */
    const json_t *h = args[i + 2];
    snprintf(p, sizeof p, "/%d", i + 2);
    if (jx_array(h, p, 0, (size_t)1 << 16, e))
        return ERR_BAD_MEMBER;
    int last_p = -1, last_type = -1, last_n = 0;
    int pending[PZ_MAXP] = {0}; /* a Skip not yet taken (bonus) */
    for (size_t k = 0; k < json_array_size(h); k++) {
        const json_t *turn = json_array_get(h, k);
        char pk[80];
        jx_ptr_idx(pk, sizeof pk, p, k);
        if (jx_array(turn, pk, 2, 2, e))
            return ERR_BAD_MEMBER;
        jx_ptr_idx(q, sizeof q, pk, 0);
        if (jx_int(json_array_get(turn, 0), q, 0, o->np - 1, &x, e))
            return ERR_BAD_MEMBER;
        last_p = (int)x;
        pending[last_p] = 0; /* their turn came: played or skipped */
        const json_t *plays = json_array_get(turn, 1);
        jx_ptr_idx(q, sizeof q, pk, 1);
        if (jx_array(plays, q, 0, (size_t)1 << 12, e))
            return ERR_BAD_MEMBER;
        last_n = (int)json_array_size(plays);
        for (int m = 0; m < last_n; m++) {
            pz_play pl;
            char r[96];
            if (pz_play_parse(json_array_get(plays, (size_t)m), v, &pl, e)) {
                jx_ptr_idx(r, sizeof r, q, (size_t)m);
                err_prefix(e, r);
                return ERR_BAD_MEMBER;
            }
            last_type = pl.type;
            if (pl.type == PZ_SKIP && pl.target < o->np)
                pending[pl.target] = 1;
        }
    }
    /* Whose turn it is, from turn_history alone (docs/rulings-notes.md):
     * no turn yet this hand: anyone may open it (the dealer is not among the
     * arguments); a turn that has not ended (its last play is not a discard
     * or a Skip; [p, []] is a skipped turn, ended): its player's; an ended
     * turn: the next player's in seat order, passing over a player whose
     * Skip is pending. */
    int ended = last_n == 0 || last_type == PZ_DISCARD || last_type == PZ_SKIP;
    int next = last_p;
    if (last_p >= 0 && ended) {
        next = (last_p + 1) % o->np;
        for (int k = 0; k < o->np - 1 && pending[next]; k++)
            next = (next + 1) % o->np;
    }
    o->turn = last_p < 0 || next == o->seat;
    o->mid = last_p == o->seat && !ended;
    snprintf(p, sizeof p, "/%d", i + 3);
    if (pz_status_parse(args[i + 3], p, v, o->np, o->status, e))
        return ERR_BAD_MEMBER;
    snprintf(p, sizeof p, "/%d", i + 4);
    if (pz_cards_parse(args[i + 4], p, v, PZ_NCARDS, o->hand, &o->nhand, e))
        return ERR_BAD_MEMBER;
    const json_t *d = args[i + 5];
    snprintf(p, sizeof p, "/%d", i + 5);
    if (d && !json_is_null(d)) {
        const char *s;
        if (jx_string(d, p, &s, e))
            return ERR_BAD_MEMBER;
        o->discard = pz_card_parse(s, v);
        if (!o->discard)
            return err_set(e, ERR_BAD_MEMBER, p, "expected a card or null, got \"%.16s\"", s);
    }
    return 0;
}

static int fn_is_valid_play(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                  game_err *e)
{
    (void)why;
    int v;
    pz_obs o;
    *result = NULL;
    if (get_variant(variant, &v, e) || obs_args(args, 1, v, &o, e))
        return ERR_BAD_MEMBER;
    pz_play p;
    int ok = 0;
    if (args[0] && o.turn && pz_play_parse(args[0], v, &p, NULL) == 0)
        ok = pz_judge(&o, &p, NULL, 0, NULL) != 0;
    *result = json_boolean(ok);
    return 0;
}

static int fn_play(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                  game_err *e)
{
    (void)why;
    int v;
    pz_obs o;
    *result = NULL;
    if (get_variant(variant, &v, e) || obs_args(args, 0, v, &o, e))
        return ERR_BAD_MEMBER;
    pz_play p;
    char text[320];
    o.strict = 1; /* plan so that a started accumulation can be finished */
    pz_plan(&o, &p, text, sizeof text);
    *result = pz_play_json(&p);
    return 0;
}

static const char *const P_GROUP[] = {"group", NULL};
static const char *const P_PHASE[] = {"phase", NULL};
static const char *const P_HAND[] = {"hand", NULL};
static const char *const P_VALID[] = {"play", "player_id", "table", "turn_history", "phase_status", "hand",
                                      "discard", NULL};
static const char *const P_PLAY[] = {"player_id", "table", "turn_history", "phase_status", "hand", "discard",
                                     NULL};

/* The arguments of phazed_play for `seat`, from what the seat sees: the
 * table, this hand's turn_history (other seats' deck draws as "XX"), every
 * phase_status, its own hand and the top of the discard pile. The bonus
 * variant sends the same arguments in its own forms (jokers, phase_status
 * as lists of booleans): the caller passes variant "bonus". */
json_t *pz_fn_args(const void *state, int seat, const game_fn **fn)
{
    const pz_state *st = state;
    *fn = &pz_fns[4];
    return json_pack("[i,o,o,o,o,o]", seat, pz_table_json(&st->t, st->np), pz_turn_history(st, seat),
                     pz_status_json(st->variant, st->status, st->np),
                     pz_cards_json(st->hand[seat], st->nhand[seat]),
                     pz_card_json(st->ndisc ? st->disc[st->ndisc - 1] : 0));
}

const game_fn pz_fns[PZ_NFNS] = {
    {"validate", "group_type", "phazed_group_type(group) -> sorted list of group types (1-7), [] if none",
     P_GROUP, 1, fn_group_type},
    {"validate", "phase_type", "phazed_phase_type(phase) -> sorted list of phase types (1-7), [] if none",
     P_PHASE, 1, fn_phase_type},
    {"validate", "is_valid_play",
     "phazed_is_valid_play(play, player_id, table, turn_history, phase_status, hand, discard) -> bool",
     P_VALID, 7, fn_is_valid_play},
    {"validate", "score", "phazed_score(hand) -> int", P_HAND, 1, fn_score},
    {"play", "", "phazed_play(player_id, table, turn_history, phase_status, hand, discard) -> play", P_PLAY, 6,
     fn_play},
};
