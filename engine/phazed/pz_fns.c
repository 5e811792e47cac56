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

/* Fill `why` (may be NULL) with a clause and its sentence. */
static void tell(game_verdict *why, const char *rule, const char *text)
{
    if (!why)
        return;
    snprintf(why->rule, sizeof why->rule, "%s", rule);
    snprintf(why->reason, sizeof why->reason, "%s", text);
}

static int fn_group_type(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                         game_err *e)
{
    int v, n;
    uint8_t c[PZ_NCARDS];
    char text[320] = "the group is not a list of cards";
    const char *rule = "phazed.group.not-cards";
    *result = NULL;
    if (get_variant(variant, &v, e))
        return ERR_BAD_MEMBER;
    unsigned types = 0;
    if (judged_cards(args[0], v, PZ_NCARDS, c, &n)) {
        types = pz_group_types(c, n);
        rule = pz_group_clause(c, n, text, sizeof text);
    }
    tell(why, rule, text);
    *result = types_json(types);
    return 0;
}

static int fn_phase_type(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                         game_err *e)
{
    int v;
    unsigned mask = 0;
    char text[320] = "the phase is not a list of one or two lists of cards";
    const char *rule = "phazed.phase.group-count";
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
        if (ok) {
            mask = pz_phase_types(ng, g, gn);
            rule = pz_phase_clause(ng, g, gn, text, sizeof text);
        }
    }
    tell(why, rule, text);
    *result = types_json(mask);
    return 0;
}

static int fn_score(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                    game_err *e)
{
    int v, n;
    uint8_t c[PZ_NCARDS * 4];
    char text[320];
    *result = NULL;
    if (get_variant(variant, &v, e) || pz_cards_parse(args[0], "/0", v, sizeof c, c, &n, e))
        return ERR_BAD_MEMBER;
    tell(why, pz_score_clause(c, n, text, sizeof text), text);
    *result = json_integer(pz_hand_points(c, n));
    return 0;
}

/* What turn_history says beside the observation: how many turns it holds. */
typedef struct hist_facts {
    int turns;
} hist_facts;

/* player_id, table, turn_history, phase_status, hand, discard from args[i..].
 * Every check runs with a relative pointer; a failed one gets the member's
 * place in front (jx_fail_at), so no pointer is built for a good request
 * (a late turn_history has hundreds of members). */
static int obs_args(json_t *const *args, int i, int v, pz_obs *o, hist_facts *hf, game_err *e)
{
    long long x;
    const size_t at = (size_t)i;
    memset(o, 0, sizeof *o);
    o->variant = v;
    o->deck = -1;
    for (int k = 0; k < PZ_MAXP; k++)
        o->hand_sizes[k] = -1;
    if (jx_int(args[i], "", 0, PZ_MAXP - 1, &x, e))
        return jx_fail_at(e, 1, (size_t[]){at});
    o->seat = (int)x;
    if (jx_array(args[i + 1], "", PZ_MINP, PZ_MAXP, e))
        return jx_fail_at(e, 1, (size_t[]){at + 1});
    o->np = (int)json_array_size(args[i + 1]);
    if (pz_table_parse(args[i + 1], "", v, o->np, &o->t, 0, e))
        return jx_fail_at(e, 1, (size_t[]){at + 1});
    if (o->seat >= o->np) {
        err_set(e, ERR_BAD_MEMBER, "", "player %d is not at this table of %d", o->seat, o->np);
        return jx_fail_at(e, 1, (size_t[]){at});
    }
    /* turn_history: [[player, [plays]], ...] */
    const json_t *h = args[i + 2];
    if (jx_array(h, "", 0, (size_t)1 << 16, e))
        return jx_fail_at(e, 1, (size_t[]){at + 2});
    int last_p = -1, last_type = -1, last_n = 0;
    int pending[PZ_MAXP] = {0}; /* a Skip not yet taken (bonus) */
    for (size_t k = 0; k < json_array_size(h); k++) {
        const json_t *turn = json_array_get(h, k);
        if (jx_array(turn, "", 2, 2, e))
            return jx_fail_at(e, 2, (size_t[]){at + 2, k});
        if (jx_int(json_array_get(turn, 0), "", 0, o->np - 1, &x, e))
            return jx_fail_at(e, 3, (size_t[]){at + 2, k, 0});
        last_p = (int)x;
        pending[last_p] = 0; /* their turn came: played or skipped */
        const json_t *plays = json_array_get(turn, 1);
        if (jx_array(plays, "", 0, (size_t)1 << 12, e))
            return jx_fail_at(e, 3, (size_t[]){at + 2, k, 1});
        last_n = (int)json_array_size(plays);
        for (int m = 0; m < last_n; m++) {
            pz_play pl;
            if (pz_play_parse(json_array_get(plays, (size_t)m), v, &pl, e))
                return jx_fail_at(e, 4, (size_t[]){at + 2, k, 1, (size_t)m});
            last_type = pl.type;
            if (pl.type == PZ_SKIP && pl.target < o->np)
                pending[pl.target] = 1;
        }
    }
    /* Whose turn it is, from turn_history alone (docs/rules/phazed.md, ruling 1):
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
    hf->turns = (int)json_array_size(h);
    if (pz_status_parse(args[i + 3], "", v, o->np, o->status, e))
        return jx_fail_at(e, 1, (size_t[]){at + 3});
    if (pz_cards_parse(args[i + 4], "", v, PZ_NCARDS, o->hand, &o->nhand, e))
        return jx_fail_at(e, 1, (size_t[]){at + 4});
    const json_t *d = args[i + 5];
    if (d && !json_is_null(d)) {
        const char *s;
        if (jx_string(d, "", &s, e))
            return jx_fail_at(e, 1, (size_t[]){at + 5});
        o->discard = pz_card_parse(s, v);
        if (!o->discard) {
            err_set(e, ERR_BAD_MEMBER, "", "expected a card or null, got \"%.16s\"", s);
            return jx_fail_at(e, 1, (size_t[]){at + 5});
        }
    }
    return 0;
}

static const char *area(int type)
{
    static const char *const A[] = {"turn", "pickup", "pickup", "phase", "place", "discard", "skip"};
    return type <= PZ_SKIP ? A[type] : "play";
}

static int fn_is_valid_play(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                            game_err *e)
{
    int v;
    pz_obs o;
    hist_facts hf;
    *result = NULL;
    if (get_variant(variant, &v, e) || obs_args(args, 1, v, &o, &hf, e))
        return ERR_BAD_MEMBER;
    pz_play p;
    int ok = 0;
    char text[320] = "the play is not of a play's shape", id[64] = "phazed.play.shape";
    if (args[0] && pz_play_parse(args[0], v, &p, NULL) == 0) {
        const char *rule = "";
        if (!o.turn) {
            snprintf(id, sizeof id, "phazed.turn.not-yours");
            snprintf(text, sizeof text, "it is not this player's turn (turn_history says whose)");
        } else if ((ok = pz_judge(&o, &p, text, sizeof text, &rule) != 0)) {
            int acc = p.type == PZ_PLACE && p.pid < o.np && o.t.phase[p.pid] &&
                      (pz_group_kind(o.t.phase[p.pid], p.grp) == PZ_K_ACC ||
                       pz_group_kind(o.t.phase[p.pid], p.grp) == PZ_K_CACC);
            snprintf(id, sizeof id, "phazed.%s.%s", area(p.type),
                     p.type <= PZ_PICK_DISCARD && !hf.turns ? "first-turn" : acc ? "acc-valid" : "valid");
        } else {
            snprintf(id, sizeof id, "phazed.%s.%s", area(p.type), rule);
        }
    }
    if (why)
        tell(why, id, text);
    *result = json_boolean(ok);
    return 0;
}

/* result NULL: only the situation (game.h). */
static int fn_play(json_t *const *args, const char *variant, json_t **result, game_verdict *why, game_err *e)
{
    int v;
    pz_obs o;
    hist_facts hf;
    if (result)
        *result = NULL;
    if (get_variant(variant, &v, e) || obs_args(args, 0, v, &o, &hf, e))
        return ERR_BAD_MEMBER;
    char text[320];
    if (why)
        tell(why, pz_situation(&o, !hf.turns, text, sizeof text), text);
    if (!result)
        return 0;
    pz_play p;
    o.strict = 1; /* plan so that a started accumulation can be finished */
    pz_plan(&o, &p, text, sizeof text);
    *result = pz_play_json(&p);
    return 0;
}

json_t *pz_fn_judge(json_t *const *args, int variant)
{
    pz_obs o;
    hist_facts hf;
    game_err e;
    if (obs_args(args, 0, variant, &o, &hf, &e))
        return NULL;
    json_t *legal = json_array();
    pz_play p;
    int phase_ok = 0;
    for (int t = PZ_PICK_DECK; t <= PZ_SKIP; t++) {
        memset(&p, 0, sizeof p);
        p.type = (uint8_t)t;
        if (t == PZ_PICK_DISCARD)
            p.card = (uint8_t)o.discard;
        if (t == PZ_PHASE) { /* too many to list: the checker's (docs/autograder.md) */
            phase_ok = o.turn && o.mid && !o.t.phase[o.seat];
            continue;
        }
        if (t <= PZ_PICK_DISCARD) {
            if (o.turn && pz_judge(&o, &p, NULL, 0, NULL))
                json_array_append_new(legal, pz_play_json(&p));
            continue;
        }
        for (int i = 0; i < o.nhand; i++) {
            int dup = 0;
            for (int j = 0; j < i; j++)
                dup |= o.hand[j] == o.hand[i];
            if (dup && t != PZ_SKIP)
                continue;
            p.card = o.hand[i];
            if (t == PZ_SKIP) {
                if (i)
                    break;
                for (int q = 0; q < o.np; q++) {
                    p.target = (uint8_t)q;
                    if (o.turn && pz_judge(&o, &p, NULL, 0, NULL))
                        json_array_append_new(legal, pz_play_json(&p));
                }
            } else if (t == PZ_DISCARD) {
                if (o.turn && pz_judge(&o, &p, NULL, 0, NULL))
                    json_array_append_new(legal, pz_play_json(&p));
            } else {
                for (int q = 0; q < o.np; q++)
                    for (int g = 0; g < o.t.ng[q] && o.t.phase[q]; g++)
                        for (int x = 0; x <= o.t.g[q][g].n; x++) {
                            p.pid = (uint8_t)q;
                            p.grp = (uint8_t)g;
                            p.idx = (uint8_t)x;
                            if (o.turn && pz_judge(&o, &p, NULL, 0, NULL))
                                json_array_append_new(legal, pz_play_json(&p));
                        }
            }
        }
    }
    json_t *out = json_pack("{s:o}", "legal", legal);
    if (phase_ok)
        json_object_set_new(out, "check", json_string("phazed.phase-play"));
    pz_play ph;
    if (phase_ok && pz_phase_plays(&o, &ph, 1))
        json_object_set_new(out, "quality", json_pack("{s:{s:[i]}}", "phazed.quality.phase-when-able", "play_type",
                                                      PZ_PHASE));
    return out;
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
