/* bo_codec.c: JSON for Comp10001-Bo: cards, plays, the full state (the
 * stored blob / export), the per-seat views and the history.
 *
 * decode trusts nothing: every member is type- and range-checked, piles are
 * bounded, build piles must be legal sequences (jokers: some reading, and
 * never a completed top), discard piles hold no Ace, every one of the 52
 * cards must appear exactly twice in the whole state and, in the bonus
 * variant, ZZ exactly four times; the embargo state must be one that play
 * can reach (a used card for every embargo, one target per card, a target
 * with at most 3 stockpile cards). Views never show another seat's hand, the draw order or a
 * stockpile card below the top, except to SEAT_ADMIN.
 */
#include "bo.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <string.h>

json_t *bo_card_json(int c)
{
    return c ? jx_str(bo_card_name(c)) : json_null();
}

json_t *bo_cards_json(const uint8_t *c, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, bo_card_json(c[i]));
    return a;
}

json_t *bo_play_json(const void *vp)
{
    const bo_play *p = vp;
    if (p->type == BO_NO_PLAY)
        return jx_arr(3, json_integer(BO_NO_PLAY), json_null(), jx_arr(2, json_null(), json_null()));
    if (p->type == BO_EMBARGO)
        return jx_arr(3, json_integer(BO_EMBARGO), json_null(),
                      jx_arr(2, json_integer(BO_TO_PLAYER), json_integer(p->dst_owner)));
    json_t *src = p->type == BO_FROM_DISCARD
                      ? jx_arr(2, bo_card_json(p->card),
                               jx_arr(2, json_integer(p->src_owner), json_integer(p->src_pile)))
                      : bo_card_json(p->card);
    json_t *dst = p->dst_kind == BO_TO_BUILD
                      ? jx_arr(2, json_integer(BO_TO_BUILD), json_integer(p->dst_pile))
                      : jx_arr(2, json_integer(BO_TO_DISCARD),
                               jx_arr(2, json_integer(p->dst_owner), json_integer(p->dst_pile)));
    if (p->type == BO_CLEAR) {
        json_decref(src);
        return jx_arr(3, json_integer(BO_CLEAR), json_null(), dst);
    }
    return jx_arr(3, json_integer(p->type), src, dst);
}

static int card_at(const json_t *j, const char *ptr, int variant, uint8_t *out, game_err *e)
{
    const char *s;
    if (jx_string(j, ptr, &s, e))
        return ERR_BAD_MEMBER;
    int c = bo_card_parse(s, variant);
    if (!c)
        return err_set(e, ERR_BAD_MEMBER, ptr,
                       variant ? "expected a card (value A234567890JQK + suit SHDC, e.g. \"0D\", or the joker \"ZZ\"), got \"%.16s\""
                               : "expected a card (value A234567890JQK + suit SHDC, e.g. \"0D\"), got \"%.16s\"", s);
    *out = (uint8_t)c;
    return 0;
}

static int pair_at(const json_t *j, const char *ptr, long long hi, long long *a,
                   long long *b, game_err *e)
{
    char p[192];
    if (jx_array(j, ptr, 2, 2, e))
        return ERR_BAD_MEMBER;
    jx_ptr_idx(p, sizeof p, ptr, 0);
    if (jx_int(json_array_get(j, 0), p, 0, hi, a, e))
        return ERR_BAD_MEMBER;
    jx_ptr_idx(p, sizeof p, ptr, 1);
    return jx_int(json_array_get(j, 1), p, 0, hi, b, e);
}

int bo_play_parse(const json_t *j, int variant, bo_play *out, game_err *e)
{
    long long t, a, b;
    memset(out, 0, sizeof *out);
    if (jx_array(j, "", 3, 3, e))
        return ERR_BAD_MEMBER;
    if (jx_int(json_array_get(j, 0), "/0", 0, variant ? BO_CLEAR : BO_NO_PLAY, &t, e))
        return ERR_BAD_MEMBER;
    out->type = (uint8_t)t;
    const json_t *src = json_array_get(j, 1), *dst = json_array_get(j, 2);
    if (t == BO_EMBARGO || t == BO_CLEAR) {
        if (!json_is_null(src))
            return err_set(e, ERR_BAD_MEMBER, "/1", "an embargo play has source null");
    }
    if (t == BO_EMBARGO) {
        if (jx_array(dst, "/2", 2, 2, e) ||
            jx_int(json_array_get(dst, 0), "/2/0", BO_TO_PLAYER, BO_TO_PLAYER, &a, e) ||
            jx_int(json_array_get(dst, 1), "/2/1", 0, BO_NP - 1, &b, e))
            return ERR_BAD_MEMBER;
        out->dst_kind = BO_TO_PLAYER;
        out->dst_owner = (uint8_t)b;
        return 0;
    }
    if (t == BO_NO_PLAY) {
        if (!json_is_null(src))
            return err_set(e, ERR_BAD_MEMBER, "/1", "a no-play claim has source null");
        if (jx_array(dst, "/2", 2, 2, e))
            return ERR_BAD_MEMBER;
        if (!json_is_null(json_array_get(dst, 0)))
            return err_set(e, ERR_BAD_MEMBER, "/2/0", "a no-play claim has destination [null, null]");
        if (!json_is_null(json_array_get(dst, 1)))
            return err_set(e, ERR_BAD_MEMBER, "/2/1", "a no-play claim has destination [null, null]");
        return 0;
    }
    if (t == BO_FROM_DISCARD) {
        if (jx_array(src, "/1", 2, 2, e) || card_at(json_array_get(src, 0), "/1/0", variant, &out->card, e) ||
            pair_at(json_array_get(src, 1), "/1/1", 3, &a, &b, e))
            return ERR_BAD_MEMBER;
        out->src_owner = (uint8_t)a;
        out->src_pile = (uint8_t)b;
    } else if (t != BO_CLEAR && card_at(src, "/1", variant, &out->card, e)) {
        return ERR_BAD_MEMBER;
    }
    if (jx_array(dst, "/2", 2, 2, e) || jx_int(json_array_get(dst, 0), "/2/0", 0, 1, &a, e))
        return ERR_BAD_MEMBER;
    out->dst_kind = (uint8_t)a;
    if (a == BO_TO_BUILD) {
        if (jx_int(json_array_get(dst, 1), "/2/1", 0, BO_NBUILD - 1, &b, e))
            return ERR_BAD_MEMBER;
        out->dst_pile = (uint8_t)b;
    } else {
        if (pair_at(json_array_get(dst, 1), "/2/1", 3, &a, &b, e))
            return ERR_BAD_MEMBER;
        out->dst_owner = (uint8_t)a;
        out->dst_pile = (uint8_t)b;
    }
    return 0;
}

int bo_cards_parse(const json_t *j, const char *ptr, int variant, size_t max,
                   uint8_t *out, int *n, game_err *e)
{
    char p[192];
    if (jx_array(j, ptr, 0, max, e))
        return ERR_BAD_MEMBER;
    size_t i;
    json_t *x;
    json_array_foreach(j, i, x) {
        if (card_at(x, "", variant, &out[i], e)) { /* the pointer only for an error */
            jx_ptr_idx(p, sizeof p, ptr, i);
            err_prefix(e, p);
            return ERR_BAD_MEMBER;
        }
    }
    *n = (int)json_array_size(j);
    return 0;
}

/* --- state ------------------------------------------------------------------ */

static json_t *hist_entry(const bo_state *st, int i, int with_n)
{
    const bo_hist *h = &st->hist[i];
    json_t *o = json_object();
    if (with_n)
        json_object_set_new(o, "n", json_integer(i));
    json_object_set_new(o, "seat", json_integer(h->seat));
    json_object_set_new(o, "play", bo_play_json(&h->play));
    json_object_set_new(o, "turn", json_integer(h->turn));
    return o;
}

json_t *bo_discards_json(const bo_board *b)
{
    json_t *all = json_array();
    for (int p = 0; p < BO_NP; p++) {
        json_t *mine = json_array();
        for (int k = 0; k < BO_NDISC; k++)
            json_array_append_new(mine, bo_cards_json(b->disc[p][k], b->ndisc[p][k]));
        json_array_append_new(all, mine);
    }
    return all;
}

json_t *bo_builds_json(const bo_board *b)
{
    json_t *a = json_array();
    for (int k = 0; k < BO_NBUILD; k++)
        json_array_append_new(a, bo_cards_json(b->build[k], b->nbuild[k]));
    return a;
}

static json_t *draw_json(const bo_state *st)
{
    json_t *a = json_array();
    for (int i = st->ndraw - 1; i >= 0; i--)
        json_array_append_new(a, bo_card_json(st->draw[i]));
    return a;
}

static json_t *embargoed_json(const bo_state *st)
{
    json_t *a = json_array();
    for (int p = 0; p < BO_NP; p++)
        json_array_append_new(a, st->embargoed_by[p] >= 0 ? json_integer(st->embargoed_by[p]) : json_null());
    return a;
}

static json_t *holds_json(const bo_state *st)
{
    json_t *a = json_array();
    for (int p = 0; p < BO_NP; p++)
        json_array_append_new(a, json_boolean(st->holds_embargo[p]));
    return a;
}

static const char *variant_name(int v) { return v ? "bonus" : "standard"; }

json_t *bo_encode(const void *vst)
{
    const bo_state *st = vst;
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("comp10001bo"));
    json_object_set_new(o, "variant", json_string(variant_name(st->variant)));
    json_object_set_new(o, "rng", jx_rng_encode(&st->rng));
    json_object_set_new(o, "bot_key", jx_bot_key_encode(st->bkey));
    json_object_set_new(o, "draw", draw_json(st));
    json_t *hands = json_array(), *stocks = json_array();
    for (int p = 0; p < BO_NP; p++) {
        json_array_append_new(hands, bo_cards_json(st->hand[p], st->nhand[p]));
        json_array_append_new(stocks, bo_cards_json(st->stock[p], st->nstock[p]));
    }
    json_object_set_new(o, "hands", hands);
    json_object_set_new(o, "stockpiles", stocks);
    json_object_set_new(o, "discard_piles", bo_discards_json(&st->b));
    json_object_set_new(o, "build_piles", bo_builds_json(&st->b));
    json_object_set_new(o, "current", json_integer(st->cur));
    json_object_set_new(o, "turns", jx_u8_array(st->turns, BO_NP));
    json_object_set_new(o, "plays_this_turn", json_integer(st->plays_this_turn));
    json_object_set_new(o, "result", json_string(bo_result_name(st->result)));
    json_object_set_new(o, "winner", st->winner >= 0 ? json_integer(st->winner) : json_null());
    json_object_set_new(o, "passes", json_integer(st->passes));
    if (st->variant) {
        json_object_set_new(o, "holds_embargo", holds_json(st));
        json_object_set_new(o, "embargoed_by", embargoed_json(st));
    }
    json_t *h = json_array();
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(h, hist_entry(st, i, 0));
    json_object_set_new(o, "history", h);
    return o;
}

static int get_int(const json_t *o, const char *key, long long lo, long long hi,
                   long long *out, game_err *e)
{
    char p[64];
    jx_ptr_key(p, sizeof p, "", key);
    return jx_int(jx_get(o, key), p, lo, hi, out, e);
}

/* A list of piles: [[cards] x n], each of at most max cards. */
static int piles_at(const json_t *j, const char *ptr, int variant, int n, size_t max,
                    uint8_t *cards, size_t stride, uint8_t *counts, game_err *e)
{
    char p[192];
    if (jx_array(j, ptr, (size_t)n, (size_t)n, e))
        return ERR_BAD_MEMBER;
    for (int i = 0; i < n; i++) {
        int m;
        jx_ptr_idx(p, sizeof p, ptr, (size_t)i);
        if (bo_cards_parse(json_array_get(j, (size_t)i), p, variant, max, cards + (size_t)i * stride, &m, e))
            return ERR_BAD_MEMBER;
        counts[i] = (uint8_t)m;
    }
    return 0;
}

static int check_build(const uint8_t *pile, int n, const char *ptr, game_err *e)
{
    char p[192];
    int i;
    /* a pile holds what was placed on it and not yet completed it */
    if (!bo_build_pile_ok(pile, n, &i)) {
        jx_ptr_idx(p, sizeof p, ptr, (size_t)i);
        return err_set(e, ERR_BAD_MEMBER, p,
                       "%s cannot stand there on a build pile", bo_card_name(pile[i]));
    }
    return 0;
}

/* holds_embargo [bool x4], embargoed_by [null|seat x4] (bonus only). */
static int decode_embargo(bo_state *st, const json_t *j, game_err *e)
{
    char p[64];
    const json_t *h = jx_get(j, "holds_embargo"), *b = jx_get(j, "embargoed_by");
    if (jx_array(h, "/holds_embargo", BO_NP, BO_NP, e))
        return ERR_BAD_MEMBER;
    for (int q = 0; q < BO_NP; q++) {
        int v;
        jx_ptr_idx(p, sizeof p, "/holds_embargo", (size_t)q);
        if (jx_bool(json_array_get(h, (size_t)q), p, &v, e))
            return ERR_BAD_MEMBER;
        st->holds_embargo[q] = (uint8_t)(v != 0);
    }
    if (jx_array(b, "/embargoed_by", BO_NP, BO_NP, e))
        return ERR_BAD_MEMBER;
    for (int q = 0; q < BO_NP; q++) {
        const json_t *x = json_array_get(b, (size_t)q);
        long long by;
        jx_ptr_idx(p, sizeof p, "/embargoed_by", (size_t)q);
        st->embargoed_by[q] = -1;
        if (json_is_null(x))
            continue;
        if (jx_int(x, p, 0, BO_NP - 1, &by, e))
            return ERR_BAD_MEMBER;
        if (by == q)
            return err_set(e, ERR_BAD_MEMBER, p, "a player cannot embargo themself");
        if (st->holds_embargo[by])
            return err_set(e, ERR_BAD_MEMBER, p, "player %lld still holds their embargo card", by);
        for (int r = 0; r < q; r++)
            if (st->embargoed_by[r] == by)
                return err_set(e, ERR_BAD_MEMBER, p, "player %lld's one embargo card already lies on player %d",
                               by, r);
        if (st->nstock[q] > 3)
            return err_set(e, ERR_BAD_MEMBER, p,
                           "an embargoed player's stockpile holds at most 3 cards (it held 3 or fewer when embargoed)");
        st->embargoed_by[q] = (int8_t)by;
    }
    return 0;
}

static int decode_body(bo_state *st, const json_t *j, game_err *e)
{
    const char *s;
    long long x;
    char p[192];
    static const char *const variants[] = {"standard", "bonus", NULL};
    int var;
    if (jx_header(j, "comp10001bo", variants, &var, e))
        return ERR_BAD_MEMBER;
    st->variant = (uint8_t)var;
    for (int q = 0; q < BO_NP; q++)
        st->embargoed_by[q] = -1;
    if (jx_rng_decode(jx_get(j, "rng"), "/rng", &st->rng, e) ||
        jx_bot_key_decode(j, &st->bkey, e))
        return ERR_BAD_MEMBER;

    int n;
    uint8_t tmp[BO_MAXCARDS];
    if (bo_cards_parse(jx_get(j, "draw"), "/draw", var, (size_t)bo_deck_size(var), tmp, &n, e))
        return ERR_BAD_MEMBER;
    st->ndraw = (uint8_t)n;
    for (int i = 0; i < n; i++)
        st->draw[i] = tmp[n - 1 - i];
    if (piles_at(jx_get(j, "hands"), "/hands", var, BO_NP, BO_HAND, &st->hand[0][0], BO_HAND,
                 st->nhand, e) ||
        piles_at(jx_get(j, "stockpiles"), "/stockpiles", var, BO_NP, BO_STOCK, &st->stock[0][0],
                 BO_STOCK, st->nstock, e))
        return ERR_BAD_MEMBER;
    const json_t *d = jx_get(j, "discard_piles");
    if (jx_array(d, "/discard_piles", BO_NP, BO_NP, e))
        return ERR_BAD_MEMBER;
    for (int q = 0; q < BO_NP; q++) {
        jx_ptr_idx(p, sizeof p, "/discard_piles", (size_t)q);
        if (piles_at(json_array_get(d, (size_t)q), p, var, BO_NDISC, (size_t)bo_deck_size(var), &st->b.disc[q][0][0],
                     BO_PILE, st->b.ndisc[q], e))
            return ERR_BAD_MEMBER;
        for (int k = 0; k < BO_NDISC; k++)
            for (int i = 0; i < st->b.ndisc[q][k]; i++)
                if (!bo_joker(st->b.disc[q][k][i]) && bo_val(st->b.disc[q][k][i]) == 1) {
                    snprintf(p, sizeof p, "/discard_piles/%d/%d/%d", q, k, i);
                    return err_set(e, ERR_BAD_MEMBER, p, "an Ace never lies on a discard pile");
                }
    }
    if (piles_at(jx_get(j, "build_piles"), "/build_piles", var, BO_NBUILD, (size_t)bo_deck_size(var), &st->b.build[0][0],
                 BO_PILE, st->b.nbuild, e))
        return ERR_BAD_MEMBER;
    for (int k = 0; k < BO_NBUILD; k++) {
        jx_ptr_idx(p, sizeof p, "/build_piles", (size_t)k);
        if (check_build(st->b.build[k], st->b.nbuild[k], p, e))
            return ERR_BAD_MEMBER;
    }

    if (get_int(j, "current", 0, BO_NP - 1, &x, e))
        return ERR_BAD_MEMBER;
    st->cur = (uint8_t)x;
    const json_t *t = jx_get(j, "turns");
    if (jx_array(t, "/turns", BO_NP, BO_NP, e))
        return ERR_BAD_MEMBER;
    for (int q = 0; q < BO_NP; q++) {
        jx_ptr_idx(p, sizeof p, "/turns", (size_t)q);
        if (jx_int(json_array_get(t, (size_t)q), p, 0, BO_MAXTURNS, &x, e))
            return ERR_BAD_MEMBER;
        st->turns[q] = (uint8_t)x;
    }
    if (get_int(j, "plays_this_turn", 0, BO_PLAYS, &x, e)) /* 5 when a 5th play won */
        return ERR_BAD_MEMBER;
    st->plays_this_turn = (uint8_t)x;
    if (jx_string(jx_get(j, "result"), "/result", &s, e))
        return ERR_BAD_MEMBER;
    int r;
    for (r = BO_PLAYING; r <= BO_TURN_LIMIT; r++)
        if (strcmp(s, bo_result_name(r)) == 0)
            break;
    if (r > BO_TURN_LIMIT)
        return err_set(e, ERR_BAD_MEMBER, "/result",
                       "expected \"playing\", \"won\", \"abandoned\" or \"turn-limit\"");
    st->result = (uint8_t)r;
    const json_t *w = jx_get(j, "winner");
    if (r == BO_WON) {
        if (get_int(j, "winner", 0, BO_NP - 1, &x, e))
            return ERR_BAD_MEMBER;
        st->winner = (int8_t)x;
        if (st->nstock[x] != 0)
            return err_set(e, ERR_BAD_MEMBER, "/winner", "the winner's stockpile is not empty");
    } else {
        if (!w || !json_is_null(w))
            return err_set(e, ERR_BAD_MEMBER, "/winner", "expected null: the game has no winner");
        st->winner = -1;
        for (int q = 0; q < BO_NP; q++)
            if (st->nstock[q] == 0) {
                snprintf(p, sizeof p, "/stockpiles/%d", q);
                return err_set(e, ERR_BAD_MEMBER, p, "an empty stockpile means the game was won");
            }
    }
    if (get_int(j, "passes", 0, 255, &x, e))
        return ERR_BAD_MEMBER;
    st->passes = (uint8_t)x;

    const json_t *h = jx_get(j, "history");
    if (jx_array(h, "/history", 0, BO_MAXHIST, e))
        return ERR_BAD_MEMBER;
    st->nhist = (uint16_t)json_array_size(h);
    for (size_t i = 0; i < json_array_size(h); i++) {
        const json_t *he = json_array_get(h, i);
        bo_hist *hh = &st->hist[i];
        jx_ptr_idx(p, sizeof p, "/history", i);
        char q[224];
        if (jx_object(he, p, e))
            return ERR_BAD_MEMBER;
        jx_ptr_key(q, sizeof q, p, "seat");
        if (jx_int(jx_get(he, "seat"), q, 0, BO_NP - 1, &x, e))
            return ERR_BAD_MEMBER;
        hh->seat = (uint8_t)x;
        jx_ptr_key(q, sizeof q, p, "turn");
        if (jx_int(jx_get(he, "turn"), q, 1, BO_MAXTURNS, &x, e))
            return ERR_BAD_MEMBER;
        hh->turn = (uint8_t)x;
        jx_ptr_key(q, sizeof q, p, "play");
        const json_t *pl = jx_get(he, "play");
        if (!pl)
            return err_set(e, ERR_BAD_MEMBER, q, "required play is missing");
        if (bo_play_parse(pl, var, &hh->play, e)) {
            err_prefix(e, q);
            return ERR_BAD_MEMBER;
        }
    }

    int left = 0;
    for (int q = 0; q < BO_NP; q++)
        left += BO_MAXTURNS - st->turns[q];
    if (st->nhist + BO_PLAYS * left - st->plays_this_turn > BO_MAXHIST)
        return err_set(e, ERR_BAD_MEMBER, "/history", "more plays than the turns played allow");

    if (bo_invariants(st, e)) {
        e->code = ERR_BAD_MEMBER;
        return ERR_BAD_MEMBER;
    }
    if (var && decode_embargo(st, j, e))
        return ERR_BAD_MEMBER;
    return 0;
}

int bo_invariants(const void *vst, game_err *e)
{
    const bo_state *st = vst;
    int ok = st->cur < BO_NP && st->ndraw <= BO_MAXCARDS && st->nhist <= BO_MAXHIST;
    for (int q = 0; q < BO_NP; q++) {
        ok &= st->nhand[q] <= BO_HAND && st->nstock[q] <= BO_STOCK;
        for (int k = 0; k < BO_NDISC; k++)
            ok &= st->b.ndisc[q][k] <= BO_PILE;
    }
    for (int k = 0; k < BO_NBUILD; k++)
        ok &= st->b.nbuild[k] <= BO_PILE;
    if (!ok)
        return err_set(e, ERR_INTERNAL, "", "a count is beyond its capacity");
    /* conservation: two of each card, no more, no less */
    int count[256] = {0};
    for (int i = 0; i < st->ndraw; i++) count[st->draw[i]]++;
    for (int q = 0; q < BO_NP; q++) {
        for (int i = 0; i < st->nhand[q]; i++) count[st->hand[q][i]]++;
        for (int i = 0; i < st->nstock[q]; i++) count[st->stock[q][i]]++;
        for (int k = 0; k < BO_NDISC; k++)
            for (int i = 0; i < st->b.ndisc[q][k]; i++) count[st->b.disc[q][k][i]]++;
    }
    for (int k = 0; k < BO_NBUILD; k++)
        for (int i = 0; i < st->b.nbuild[k]; i++) count[st->b.build[k][i]]++;
    for (int c = 0; c < 256; c++) {
        int want = c >= 1 && c <= 52 ? 2 : c == BO_JOKER && st->variant ? BO_NJOKERS : 0;
        if (count[c] != want)
            return err_set(e, ERR_INTERNAL, "", "card %s appears %d times in the state; the decks hold %d",
                           c >= 1 && c <= BO_JOKER ? bo_card_name(c) : "?", count[c], want);
    }
    return 0;
}

int bo_decode(void *vout, const json_t *blob, game_err *e)
{
    bo_state *out = vout;
    bo_state st;
    memset(&st, 0, sizeof st);
    int rc = decode_body(&st, blob, e);
    if (rc)
        return rc;
    memcpy(out, &st, sizeof st);
    return 0;
}

/* --- views -------------------------------------------------------------- */

/* What a joker on top of a pile stands for (bonus): the readings of the top
 * (bo.h: a set of value/colour bits) as [{"value": "7", "colour": "red"},
 * ...], values in card notation; null when the top is not a joker (or the
 * pile is empty). Public: every pile is face up. */
static json_t *reads_json(const uint8_t *pile, int n, int build)
{
    if (n == 0 || !bo_joker(pile[n - 1]))
        return json_null();
    uint32_t set = build ? bo_build_top(pile, n) : bo_disc_top(pile, n);
    json_t *a = json_array();
    for (int v = 2; v <= 13; v++)
        for (int red = 0; red < 2; red++)
            if (set & (1u << ((v - 2) * 2 + red))) {
                char value[2] = {bo_card_name(bo_card(v, 0))[0], 0}; /* the value's letter, "2".."K" */
                json_array_append_new(a, jx_obj(2, "value", json_string(value), "colour",
                                                json_string(red ? "red" : "black")));
            }
    return a;
}

static json_t *joker_reads_json(const bo_board *b)
{
    json_t *builds = json_array(), *discs = json_array();
    for (int k = 0; k < BO_NBUILD; k++)
        json_array_append_new(builds, reads_json(b->build[k], b->nbuild[k], 1));
    for (int p = 0; p < BO_NP; p++) {
        json_t *own = json_array();
        for (int k = 0; k < BO_NDISC; k++)
            json_array_append_new(own, reads_json(b->disc[p][k], b->ndisc[p][k], 0));
        json_array_append_new(discs, own);
    }
    return jx_obj(2, "build_piles", builds, "discard_piles", discs);
}

json_t *bo_view(const void *vst, int seat)
{
    const bo_state *st = vst;
    int over = st->result != BO_PLAYING;
    int all = over || st->revealed; /* every card to every reader */
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("comp10001bo"));
    json_object_set_new(o, "variant", json_string(variant_name(st->variant)));
    json_object_set_new(o, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(o, "current", over ? json_null() : json_integer(st->cur));
    json_object_set_new(o, "turn", json_integer(st->turns[st->cur] + (over ? 0 : 1)));
    json_object_set_new(o, "turns", jx_u8_array(st->turns, BO_NP));
    json_object_set_new(o, "plays_this_turn", json_integer(st->plays_this_turn));
    json_object_set_new(o, "over", json_boolean(over));
    json_object_set_new(o, "result", json_string(bo_result_name(st->result)));
    json_object_set_new(o, "winner", st->winner >= 0 ? json_integer(st->winner) : json_null());
    json_object_set_new(o, "draw_pile", json_integer(st->ndraw));
    json_object_set_new(o, "hand_sizes", jx_u8_array(st->nhand, BO_NP));
    if (seat >= 0 && seat < BO_NP)
        json_object_set_new(o, "hand", bo_cards_json(st->hand[seat], st->nhand[seat]));
    json_t *stocks = json_array();
    for (int p = 0; p < BO_NP; p++) {
        int n = st->nstock[p];
        json_t *sp = jx_obj(2, "top", bo_card_json(n ? st->stock[p][n - 1] : 0), "count", json_integer(n));
        if (seat == SEAT_ADMIN || all) /* face down below the top */
            json_object_set_new(sp, "cards", bo_cards_json(st->stock[p], n));
        json_array_append_new(stocks, sp);
    }
    json_object_set_new(o, "stockpiles", stocks);
    json_object_set_new(o, "discard_piles", bo_discards_json(&st->b));
    json_object_set_new(o, "build_piles", bo_builds_json(&st->b));
    if (st->variant) { /* public: the embargo cards lie face down or across the discard piles */
        json_object_set_new(o, "holds_embargo", holds_json(st));
        json_object_set_new(o, "embargoed_by", embargoed_json(st));
        json_object_set_new(o, "joker_reads", joker_reads_json(&st->b));
    }
    /* every hand to the admin, an observer ("spectators": "all") and, once
     * the game is over, everyone; the draw pile's order to the admin and at
     * the end (engine/game.h) */
    if (seat == SEAT_ADMIN || seat == SEAT_OBSERVER || all) {
        json_t *hands = json_array();
        for (int p = 0; p < BO_NP; p++)
            json_array_append_new(hands, bo_cards_json(st->hand[p], st->nhand[p]));
        json_object_set_new(o, "hands", hands);
    }
    if (seat == SEAT_ADMIN || all)
        json_object_set_new(o, "draw", draw_json(st));
    return o;
}

void bo_redeal(void *vst, int reader, uint64_t salt)
{
    bo_state *st = vst;
    if (st->result != BO_PLAYING || st->revealed || reader == SEAT_ADMIN)
        return;
    rng_slots s = {.n = 0};
    for (int p = 0; p < BO_NP; p++) {
        if (p != reader && reader != SEAT_OBSERVER)
            rng_slots_add(&s, st->hand[p], st->nhand[p]);
        if (st->nstock[p] > 1)
            rng_slots_add(&s, st->stock[p], (size_t)(st->nstock[p] - 1));
    }
    rng_slots_add(&s, st->draw, st->ndraw);
    rng_slots_shuffle(&s, salt);
}

json_t *bo_history(const bo_state *st)
{
    json_t *a = json_array();
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(a, hist_entry(st, i, 1));
    return a;
}

json_t *bo_record(const bo_state *st, int n, const bo_effect *fx, const char *explanation)
{
    const bo_hist *h = &st->hist[n];
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer(n));
    json_object_set_new(o, "seat", json_integer(h->seat));
    json_object_set_new(o, "play", bo_play_json(&h->play));
    json_object_set_new(o, "turn_ending", json_boolean(fx->turn_ending));
    if (fx->completed >= 0)
        json_object_set_new(o, "completed_build", json_integer(fx->completed));
    if (fx->won)
        json_object_set_new(o, "won", json_true());
    if (explanation)
        json_object_set_new(o, "explanation", json_string(explanation));
    return o;
}
