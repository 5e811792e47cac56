/* bo_fns.c: the autograder functions of 002 (match_build, match_discard,
 * is_valid_play, play) as game_fn rows.
 *
 * The judged argument (play_card, play) is answered, never rejected: a
 * malformed one is simply invalid (false / 0). The arguments that describe
 * the game are validated and a bad one is ERR_BAD_MEMBER at "/<index>/...".
 * Build piles are not checked for being legal sequences: the originals
 * assume valid piles and the seed's examples use impossible states.
 *
 * Variant "bonus" (?variant=bonus or a "variant" member): the validators
 * take jokers ZZ in every card argument and judge them by the bonus rules.
 * is_valid_play has no holds_embargo/embargoed arguments, so in bonus mode
 * it rates plays 4/5 (embargo, clear) 0 and does not count them when it
 * judges a no-play claim; the stored game (apply, check, /validate) knows
 * the full state. comp10001bo_bonus(player_no, hand, holds_embargo,
 * embargoed, stockpiles, discard_piles, build_piles, play_history) answers
 * a legal bonus play; who else holds or suffers an embargo is read from
 * play_history (plays 4 and 5), the caller's own state from its arguments.
 */
#include "bo.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* *var: 0 standard (the default), 1 bonus. */
static int check_variant(const char *variant, int *var, game_err *e)
{
    *var = 0;
    if (!variant || strcmp(variant, "standard") == 0)
        return 0;
    if (strcmp(variant, "bonus") == 0) {
        *var = 1;
        return 0;
    }
    return err_set(e, ERR_BAD_MEMBER, "", "unknown variant \"%.32s\" for this function (\"standard\" or \"bonus\")",
                   variant);
}

/* Fill `why` (may be NULL) with the clause "comp10001bo.<rule>" and a sentence. */
static void say(game_verdict *why, const char *rule, const char *text)
{
    if (!why)
        return;
    snprintf(why->rule, sizeof why->rule, "comp10001bo.%s", rule);
    snprintf(why->reason, sizeof why->reason, "%s", text);
}

static int player_arg(const json_t *j, int idx, int *out, game_err *e)
{
    char p[16];
    long long x;
    jx_ptr_idx(p, sizeof p, "", (size_t)idx);
    if (jx_int(j, p, 0, BO_NP - 1, &x, e))
        return ERR_BAD_MEMBER;
    *out = (int)x;
    return 0;
}

/* The judged card: 0 when it is not a card. */
static int judged_card(const json_t *j, int var)
{
    return json_is_string(j) ? bo_card_parse(json_string_value(j), var) : 0;
}

/* hand at args[h], stockpiles, discard_piles, build_piles at args[i..i+2].
 * Every check runs with a relative pointer; a failed one gets the member's
 * place in front (jx_fail_at), so no pointer is built for a good request. */
static int obs_args(json_t *const *args, int h, int i, int var, int seat, bo_obs *o, game_err *e)
{
    size_t deck = (size_t)bo_deck_size(var);
    memset(o, 0, sizeof *o);
    o->seat = seat;
    o->variant = var;
    o->embargo_known = 0;
    for (int k = 0; k < BO_NP; k++)
        o->embargoed_by[k] = -1;
    o->ndraw = -1;
    o->plays_left = BO_PLAYS;
    if (bo_cards_parse(args[h], "", var, deck, o->hand, &o->nhand, e))
        return jx_fail_at(e, 1, (size_t[]){(size_t)h});
    const size_t at_sp = (size_t)i, at_d = (size_t)i + 1, at_b = (size_t)i + 2;
    const json_t *sp = args[at_sp];
    if (jx_array(sp, "", BO_NP, BO_NP, e))
        return jx_fail_at(e, 1, (size_t[]){at_sp});
    for (size_t k = 0; k < BO_NP; k++) {
        const json_t *s = json_array_get(sp, k);
        long long cnt;
        if (jx_array(s, "", 2, 2, e))
            return jx_fail_at(e, 2, (size_t[]){at_sp, k});
        if (jx_int(json_array_get(s, 1), "", 0, (long long)deck, &cnt, e))
            return jx_fail_at(e, 3, (size_t[]){at_sp, k, 1});
        o->nstock[k] = (int)cnt;
        const json_t *top = json_array_get(s, 0);
        if (cnt == 0 && (json_is_null(top) || (json_is_string(top) && !*json_string_value(top))))
            continue;
        const char *str;
        if (jx_string(top, "", &str, e))
            return jx_fail_at(e, 3, (size_t[]){at_sp, k, 0});
        int c = bo_card_parse(str, var);
        if (!c) {
            err_set(e, ERR_BAD_MEMBER, "", "expected a card (or null with a count of 0)");
            return jx_fail_at(e, 3, (size_t[]){at_sp, k, 0});
        }
        o->stock_top[k] = (uint8_t)(cnt ? c : 0);
    }
    const json_t *d = args[at_d];
    if (jx_array(d, "", BO_NP, BO_NP, e))
        return jx_fail_at(e, 1, (size_t[]){at_d});
    for (size_t ow = 0; ow < BO_NP; ow++) {
        const json_t *mine = json_array_get(d, ow);
        if (jx_array(mine, "", BO_NDISC, BO_NDISC, e))
            return jx_fail_at(e, 2, (size_t[]){at_d, ow});
        for (size_t k = 0; k < BO_NDISC; k++) {
            int m;
            if (bo_cards_parse(json_array_get(mine, k), "", var, deck, o->b.disc[ow][k], &m, e))
                return jx_fail_at(e, 3, (size_t[]){at_d, ow, k});
            o->b.ndisc[ow][k] = (uint8_t)m;
        }
    }
    const json_t *b = args[at_b];
    if (jx_array(b, "", BO_NBUILD, BO_NBUILD, e))
        return jx_fail_at(e, 1, (size_t[]){at_b});
    for (size_t k = 0; k < BO_NBUILD; k++) {
        int m;
        if (bo_cards_parse(json_array_get(b, k), "", var, deck, o->b.build[k], &m, e))
            return jx_fail_at(e, 2, (size_t[]){at_b, k});
        o->b.nbuild[k] = (uint8_t)m;
    }
    return 0;
}

static int fn_match_build(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                          game_err *e)
{
    uint8_t pile[BO_PILE];
    int n, var;
    *result = NULL;
    if (check_variant(variant, &var, e) ||
        bo_cards_parse(args[1], "/1", var, (size_t)bo_deck_size(var), pile, &n, e))
        return ERR_BAD_MEMBER;
    int c = judged_card(args[0], var), ok = 0;
    const char *rule = "card.not-a-card";
    char text[320] = "the play_card is not a card";
    if (c)
        ok = bo_build_verdict(c, pile, n, text, sizeof text, &rule);
    say(why, rule, text);
    *result = json_boolean(ok);
    return 0;
}

static int fn_match_discard(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                            game_err *e)
{
    uint8_t pile[BO_PILE];
    int n, p, to, from_hand = 1, var;
    *result = NULL;
    if (check_variant(variant, &var, e) ||
        bo_cards_parse(args[1], "/1", var, (size_t)bo_deck_size(var), pile, &n, e) ||
        player_arg(args[2], 2, &p, e) || player_arg(args[3], 3, &to, e))
        return ERR_BAD_MEMBER;
    if (args[4] && jx_bool(args[4], "/4", &from_hand, e))
        return ERR_BAD_MEMBER;
    int c = judged_card(args[0], var), r = 0;
    const char *rule = "card.not-a-card";
    char text[320] = "the play_card is not a card";
    if (c)
        r = bo_discard_verdict(c, pile, n, p, to, from_hand, text, sizeof text, &rule);
    say(why, rule, text);
    *result = json_integer(r);
    return 0;
}

static int fn_is_valid_play(json_t *const *args, const char *variant, json_t **result, game_verdict *why,
                            game_err *e)
{
    bo_obs o;
    int seat, var;
    *result = NULL;
    if (check_variant(variant, &var, e) || player_arg(args[1], 1, &seat, e) ||
        obs_args(args, 2, 3, var, seat, &o, e))
        return ERR_BAD_MEMBER;
    bo_play p;
    int v = 0;
    const char *rule = "play.shape";
    char text[320] = "the play is not of a play's shape";
    /* bonus: o.embargo_known is 0, so plays 4/5 are rated 0 */
    if (args[0] && bo_play_parse(args[0], var, &p, NULL) == 0)
        v = bo_judge(&o, &p, text, sizeof text, &rule);
    say(why, rule, text);
    *result = json_integer(v);
    return 0;
}

/* play_history at args[idx]: sets o->plays_left from this seat's trailing
 * plays and, in bonus, replays plays 4/5 into the embargo state. */
static int history_arg(const json_t *h, int idx, int var, int seat, bo_obs *o, game_err *e)
{
    char q[64], qi[48];
    jx_ptr_idx(q, sizeof q, "", (size_t)idx);
    if (jx_array(h, q, 0, (size_t)1 << 20, e))
        return ERR_BAD_MEMBER;
    int run = 0;
    for (size_t i = 0; i < json_array_size(h); i++) {
        long long who;
        bo_play p;
        const json_t *x = json_array_get(h, i);
        char base[16];
        jx_ptr_idx(base, sizeof base, "", (size_t)idx);
        jx_ptr_idx(qi, sizeof qi, base, i);
        if (jx_array(x, qi, 2, 2, e))
            return ERR_BAD_MEMBER;
        jx_ptr_idx(q, sizeof q, qi, 0);
        if (jx_int(json_array_get(x, 0), q, 0, BO_NP - 1, &who, e))
            return ERR_BAD_MEMBER;
        jx_ptr_idx(q, sizeof q, qi, 1);
        if (bo_play_parse(json_array_get(x, 1), var, &p, e)) {
            err_prefix(e, q);
            return ERR_BAD_MEMBER;
        }
        run = who == seat ? run + 1 : 0;
        if (p.type == BO_EMBARGO) {
            o->holds_embargo[who] = 0;
            o->embargoed_by[p.dst_owner] = (int)who;
        } else if (p.type == BO_CLEAR) {
            o->embargoed_by[who] = -1;
        }
    }
    /* the trailing plays of this seat are this turn's (every turn records at
     * least one entry, so a run cannot span two turns of one seat) */
    o->plays_left = BO_PLAYS - (run < BO_PLAYS ? run : BO_PLAYS - 1);
    return 0;
}

/* The position a play function is asked about: its arguments read as
 * comp10001bo_play (bonus 0; var 1 for the bonus variant's rules, the
 * embargoes read from play_history alone) or as comp10001bo_bonus
 * (bonus 1) reads them. */
static int play_obs(json_t *const *args, int var, int bonus, bo_obs *o, game_err *e)
{
    int seat, holds = 1, by = -1;
    if (player_arg(args[0], 0, &seat, e) || obs_args(args, 1, bonus ? 4 : 2, var, seat, o, e))
        return ERR_BAD_MEMBER;
    if (bonus) {
        if (jx_bool(args[2], "/2", &holds, e))
            return ERR_BAD_MEMBER;
        if (args[3] && !json_is_null(args[3])) {
            long long x;
            if (jx_int(args[3], "/3", 0, BO_NP - 1, &x, e))
                return ERR_BAD_MEMBER;
            if (x == seat)
                return err_set(e, ERR_BAD_MEMBER, "/3", "a player cannot be embargoed by themself");
            by = (int)x;
        }
    }
    if (var) { /* the history tells who holds and suffers embargoes (all cards held at first) */
        o->embargo_known = 1;
        for (int k = 0; k < BO_NP; k++)
            o->holds_embargo[k] = 1;
    }
    int h = bonus ? 7 : 5;
    if (history_arg(args[h], h, var, seat, o, e))
        return ERR_BAD_MEMBER;
    if (bonus) { /* the caller's own state is what its arguments say */
        o->holds_embargo[seat] = holds;
        o->embargoed_by[seat] = by;
        if (by >= 0)
            o->holds_embargo[by] = 0;
        for (int k = 0; k < BO_NP; k++) /* one embargo card, one target */
            if (k != seat && by >= 0 && o->embargoed_by[k] == by)
                o->embargoed_by[k] = -1;
    }
    return 0;
}

/* result NULL: only the situation (game.h). */
static int play_fn(json_t *const *args, int var, int bonus, json_t **result, game_verdict *why,
                   game_err *e)
{
    bo_obs o;
    if (result)
        *result = NULL;
    if (play_obs(args, var, bonus, &o, e))
        return ERR_BAD_MEMBER;
    char text[320];
    if (why)
        say(why, bo_situation(&o, text, sizeof text), text);
    if (!result)
        return 0;
    bo_play play;
    if (bonus)
        bo_plan_bonus(&o, &play, text, sizeof text);
    else
        bo_plan(&o, &play, text, sizeof text);
    *result = bo_play_json(&play);
    return 0;
}

static int fn_play(json_t *const *args, const char *variant, json_t **result, game_verdict *why, game_err *e)
{
    int var;
    if (result)
        *result = NULL;
    if (check_variant(variant, &var, e))
        return ERR_BAD_MEMBER;
    return play_fn(args, var, 0, result, why, e);
}

static int fn_bonus(json_t *const *args, const char *variant, json_t **result, game_verdict *why, game_err *e)
{
    if (result)
        *result = NULL;
    if (variant && strcmp(variant, "bonus") != 0)
        return err_set(e, ERR_BAD_MEMBER, "", "comp10001bo_bonus plays the bonus variant only, not \"%.32s\"",
                       variant);
    return play_fn(args, 1, 1, result, why, e);
}

json_t *bo_fn_judge(json_t *const *args, int bonus)
{
    static const bo_play none = {.type = BO_NO_PLAY};
    bo_obs o;
    game_err e;
    if (play_obs(args, bonus, bonus, &o, &e))
        return NULL;
    bo_play *plays = malloc(sizeof *plays * BO_MAXPLAYS);
    if (!plays)
        return NULL;
    int n = bo_gen(&o, plays, NULL), stock_first = 0;
    json_t *legal = json_array();
    for (int i = 0; i < n; i++) {
        json_array_append_new(legal, bo_play_json(&plays[i]));
        stock_first |= plays[i].type == BO_FROM_STOCK && plays[i].dst_kind == BO_TO_BUILD;
    }
    if (!n)
        json_array_append_new(legal, bo_play_json(&none));
    free(plays);
    json_t *out = json_pack("{s:o}", "legal", legal);
    if (stock_first)
        json_object_set_new(out, "quality",
                            json_pack("{s:{s:[i]}}", "comp10001bo.quality.stock-first", "play_type", BO_FROM_STOCK));
    return out;
}

static const char *const P_BUILD[] = {"play_card", "build_pile", NULL};
static const char *const P_DISCARD[] = {"play_card", "discard_pile", "player_no", "to_player_no",
                                        "from_hand", NULL};
static const char *const P_VALID[] = {"play", "player_no", "hand", "stockpiles", "discard_piles",
                                      "build_piles", NULL};
static const char *const P_PLAY[] = {"player_no", "hand", "stockpiles", "discard_piles",
                                     "build_piles", "play_history", NULL};
static const char *const P_BONUS[] = {"player_no", "hand", "holds_embargo", "embargoed", "stockpiles",
                                      "discard_piles", "build_piles", "play_history", NULL};

/* The arguments of comp10001bo_play (standard) or comp10001bo_bonus
 * (bonus) for `seat`, from what the seat sees: its own hand, the public
 * table and the whole play history (every play is public). */
json_t *bo_fn_args(const void *state, int seat, const game_fn **fn)
{
    const bo_state *st = state;
    json_t *hand = json_array(), *stocks = json_array(), *disc = json_array(), *build = json_array(),
           *hist = json_array();
    for (int i = 0; i < st->nhand[seat]; i++)
        json_array_append_new(hand, bo_card_json(st->hand[seat][i]));
    for (int p = 0; p < BO_NP; p++) {
        int n = st->nstock[p];
        json_array_append_new(stocks, json_pack("[o,i]", bo_card_json(n ? st->stock[p][n - 1] : 0), n));
        json_t *mine = json_array();
        for (int k = 0; k < BO_NDISC; k++) {
            json_t *pile = json_array();
            for (int i = 0; i < st->b.ndisc[p][k]; i++)
                json_array_append_new(pile, bo_card_json(st->b.disc[p][k][i]));
            json_array_append_new(mine, pile);
        }
        json_array_append_new(disc, mine);
    }
    for (int k = 0; k < BO_NBUILD; k++) {
        json_t *pile = json_array();
        for (int i = 0; i < st->b.nbuild[k]; i++)
            json_array_append_new(pile, bo_card_json(st->b.build[k][i]));
        json_array_append_new(build, pile);
    }
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(hist, json_pack("[i,o]", st->hist[i].seat, bo_play_json(&st->hist[i].play)));
    *fn = &bo_fns[st->variant ? 4 : 3];
    if (st->variant)
        return json_pack("[i,o,b,o,o,o,o,o]", seat, hand, st->holds_embargo[seat],
                         st->embargoed_by[seat] >= 0 ? json_integer(st->embargoed_by[seat]) : json_null(),
                         stocks, disc, build, hist);
    return json_pack("[i,o,o,o,o,o]", seat, hand, stocks, disc, build, hist);
}

const game_fn bo_fns[BO_NFNS] = {
    {"validate", "match_build", "comp10001bo_match_build(play_card, build_pile) -> bool",
     P_BUILD, 2, fn_match_build},
    {"validate", "match_discard",
     "comp10001bo_match_discard(play_card, discard_pile, player_no, to_player_no, from_hand=True) -> 0|1|2",
     P_DISCARD, 4, fn_match_discard},
    {"validate", "is_valid_play",
     "comp10001bo_is_valid_play(play, player_no, hand, stockpiles, discard_piles, build_piles) -> 0|1|2|3",
     P_VALID, 6, fn_is_valid_play},
    {"play", "",
     "comp10001bo_play(player_no, hand, stockpiles, discard_piles, build_piles, play_history) -> play",
     P_PLAY, 6, fn_play},
    {"play", "bonus",
     "comp10001bo_bonus(player_no, hand, holds_embargo, embargoed, stockpiles, discard_piles, build_piles, play_history) -> play",
     P_BONUS, 8, fn_bonus},
};
