/* fc_codec.c: JSON for Five Crowns: cards, plays, the full state (stored
 * blob / JSON export), per-seat views, history records.
 *
 * Piles are written top card FIRST (as in the seed's save format). decode
 * trusts nothing: every member is type- and range-checked, hand sizes must
 * fit the round and the turn phase, every card of the two decks is in play
 * exactly twice (fc_check_cards), and it writes the target only once
 * everything has been read. The one exception to the count: a game
 * resumed from an untidy text save keeps its oddities until the next deal.
 * Views: a closed game (the default: Five Crowns is a game of hidden
 * cards) shows a seat its own hand only, the discard top and counts for
 * the rest; an "open" one (the course program's screen) shows every hand to
 * everybody and the draw pile to its seats. The readers' rules are written
 * once, above fc_view (sees_*).
 */
#include "fc.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A card's JSON: its notation, or null for none. */
static json_t *fc_card_json(int c) { return c ? jx_str(fc_card_str(c)) : json_null(); }

json_t *fc_cards_json(const uint8_t *c, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, fc_card_json(c[i]));
    return a;
}

json_t *fc_pile_json(const uint8_t *c, int n)
{
    json_t *a = json_array();
    for (int i = n - 1; i >= 0; i--)
        json_array_append_new(a, fc_card_json(c[i]));
    return a;
}

json_t *fc_play_json(const void *vp)
{
    const fc_play *p = vp;
    if (p->kind == FC_PLAY_DRAW_PILE)
        return jx_obj(1, "draw", jx_str("draw"));
    if (p->kind == FC_PLAY_DRAW_DISCARD)
        return jx_obj(1, "draw", jx_str("discard"));
    if (p->go_out)
        return jx_obj(2, "discard", jx_str(fc_card_str(p->card)), "go_out", json_true());
    return jx_obj(1, "discard", jx_str(fc_card_str(p->card)));
}

static int card_at(const json_t *j, const char *ptr, uint8_t *out, game_err *e)
{
    const char *s;
    if (jx_string(j, ptr, &s, e))
        return ERR_BAD_MEMBER;
    int c = fc_card_parse(s);
    if (!c)
        return err_set(e, ERR_BAD_MEMBER, ptr,
                       "expected a card (rank 3456789XJQK, or 10, then suit SCDHT, e.g. \"7H\"; jokers J1 J2 J3), got \"%.16s\"",
                       s);
    *out = (uint8_t)c;
    return 0;
}

int fc_play_parse(const void *st, const json_t *j, void *vout, game_err *e)
{
    fc_play *out = vout;
    (void)st; /* a play's shape is the same in every state */
    memset(out, 0, sizeof *out);
    if (jx_object(j, "", e))
        return ERR_BAD_MEMBER;
    static const char *const KEYS[] = {"draw", "discard", "go_out", NULL};
    if (jx_known(j, "", KEYS, e))
        return ERR_BAD_MEMBER;
    const json_t *d = json_object_get(j, "draw"), *c = json_object_get(j, "discard"),
                 *g = json_object_get(j, "go_out");
    if (d && c)
        return err_set(e, ERR_BAD_MEMBER, "/discard", "a play either draws or discards, not both");
    if (d) {
        const char *s;
        if (g)
            return err_set(e, ERR_BAD_MEMBER, "/go_out", "go_out goes with a discard");
        if (jx_string(d, "/draw", &s, e))
            return ERR_BAD_MEMBER;
        if (strcmp(s, "draw") == 0 || strcmp(s, "pile") == 0)
            out->kind = FC_PLAY_DRAW_PILE;
        else if (strcmp(s, "discard") == 0)
            out->kind = FC_PLAY_DRAW_DISCARD;
        else
            return err_set(e, ERR_BAD_MEMBER, "/draw", "expected \"draw\" (the draw pile) or \"discard\" (the discard pile)");
        return 0;
    }
    if (!c)
        return err_set(e, ERR_BAD_MEMBER, "", "a play is {\"draw\": \"draw\"|\"discard\"} or {\"discard\": card}");
    out->kind = FC_PLAY_DISCARD;
    if (card_at(c, "/discard", &out->card, e))
        return ERR_BAD_MEMBER;
    if (g) {
        int b;
        if (jx_bool(g, "/go_out", &b, e))
            return ERR_BAD_MEMBER;
        out->go_out = (uint8_t)b;
    }
    return 0;
}

static json_t *group_json(const fc_group *g) { return fc_cards_json(g->cards, g->n); }

json_t *fc_arr_json(const fc_arr *a)
{
    json_t *runs = json_array(), *books = json_array();
    for (int i = 0; i < a->ngroups; i++)
        json_array_append_new(a->g[i].kind == FC_RUN ? runs : books, group_json(&a->g[i]));
    return jx_obj(4, "runs", runs, "books", books, "left", fc_cards_json(a->left, a->nleft), "points",
                  json_integer(a->points));
}

static const char *phase_name(int ph)
{
    return ph == FC_PH_DRAW ? "draw" : ph == FC_PH_DISCARD ? "discard" : "over";
}

static json_t *seat_or_null(int s) { return s >= 0 ? json_integer(s) : json_null(); }

static json_t *toss_json(const fc_state *st)
{
    if (st->toss < 0)
        return json_null();
    return jx_obj(2, "call", st->call < 0 ? json_null() : jx_str(st->call ? "tails" : "heads"), "result",
                  jx_str(st->toss ? "tails" : "heads"));
}

static int rounds_done(const fc_state *st)
{
    return (st->phase == FC_PH_OVER ? FC_ROUNDS : st->round - 1) - (st->first_round - 1);
}

json_t *fc_encode(const void *vst)
{
    const fc_state *st = vst;
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("fivecrowns"));
    json_object_set_new(o, "variant", json_string("standard"));
    json_object_set_new(o, "players", json_integer(st->np));
    json_object_set_new(o, "open", json_boolean(st->open));
    json_object_set_new(o, "round", json_integer(st->round));
    json_object_set_new(o, "first_round", json_integer(st->first_round));
    json_object_set_new(o, "imported", json_boolean(st->imported));
    json_object_set_new(o, "phase", json_string(phase_name(st->phase)));
    json_object_set_new(o, "current", json_integer(st->cur));
    json_object_set_new(o, "starter", json_integer(st->starter));
    json_object_set_new(o, "went_out", seat_or_null(st->went_out));
    json_object_set_new(o, "round_turns", json_integer(st->round_turns));
    json_object_set_new(o, "turns", json_integer(st->turns));
    json_object_set_new(o, "result", json_string(fc_result_name(st->result)));
    json_object_set_new(o, "winner", seat_or_null(st->winner));
    json_object_set_new(o, "toss", toss_json(st));
    json_object_set_new(o, "scores", jx_u16_array(st->score, st->np));
    json_t *hands = json_array();
    for (int p = 0; p < st->np; p++)
        json_array_append_new(hands, fc_cards_json(st->hand[p], st->nhand[p]));
    json_object_set_new(o, "hands", hands);
    json_object_set_new(o, "draw_pile", fc_pile_json(st->draw, st->ndraw));
    json_object_set_new(o, "discard_pile", fc_pile_json(st->disc, st->ndisc));
    json_t *rounds = json_array();
    for (int i = 0; i < rounds_done(st); i++) {
        int r = st->first_round + i;
        const fc_round *rd = &st->rounds[r - 1];
        json_t *hs = json_array();
        for (int p = 0; p < st->np; p++)
            json_array_append_new(hs, fc_cards_json(rd->hand[p], rd->nhand[p]));
        json_array_append_new(rounds, jx_obj(5, "round", json_integer(r), "ended",
                                             jx_str(rd->ended == FC_END_OUT ? "out" : "called-off"), "went_out",
                                             seat_or_null(rd->went_out), "points", jx_u16_array(rd->points, st->np),
                                             "hands", hs));
    }
    json_object_set_new(o, "rounds", rounds);
    json_t *h = json_array();
    for (int i = 0; i < st->nhist; i++) {
        const fc_hist *x = &st->hist[i];
        fc_play p = {x->kind, x->card, x->go_out};
        json_t *e = jx_obj(3, "seat", json_integer(x->seat), "round", json_integer(x->round), "play", fc_play_json(&p));
        if (x->kind != FC_PLAY_DISCARD && x->card) /* 0: a concealed save forgot it */
            json_object_set_new(e, "card", fc_card_json(x->card));
        if (x->round_end)
            json_object_set_new(e, "round_end", json_true());
        json_array_append_new(h, e);
    }
    json_object_set_new(o, "history", h);
    json_object_set_new(o, "rng", jx_rng_encode(&st->rng));
    json_object_set_new(o, "bot_key", jx_bot_key_encode(st->bkey));
    return o;
}

/* --- decode ---------------------------------------------------------------- */

static int get_int(const json_t *o, const char *base, const char *key, long long lo, long long hi,
                   long long *out, game_err *e)
{
    char p[192];
    jx_ptr_key(p, sizeof p, base, key);
    return jx_int(jx_get(o, key), p, lo, hi, out, e);
}

static int get_seat_or_null(const json_t *o, const char *base, const char *key, int np, int *out,
                            game_err *e)
{
    char p[192];
    long long x;
    jx_ptr_key(p, sizeof p, base, key);
    const json_t *v = jx_get(o, key);
    if (v && json_is_null(v)) {
        *out = -1;
        return 0;
    }
    if (jx_int(v, p, 0, np - 1, &x, e))
        return ERR_BAD_MEMBER;
    *out = (int)x;
    return 0;
}

static int cards_at(const json_t *j, const char *ptr, size_t min, size_t max, uint8_t *out, int *n,
                    int top_first, game_err *e)
{
    char p[192];
    if (jx_array(j, ptr, min, max, e))
        return ERR_BAD_MEMBER;
    size_t m = json_array_size(j);
    for (size_t i = 0; i < m; i++) {
        jx_ptr_idx(p, sizeof p, ptr, i);
        if (card_at(json_array_get(j, i), p, &out[top_first ? m - 1 - i : i], e))
            return ERR_BAD_MEMBER;
    }
    *n = (int)m;
    return 0;
}

static int ints_at(const json_t *j, const char *ptr, int n, long long hi, uint16_t *out, game_err *e)
{
    char p[192];
    long long x;
    if (jx_array(j, ptr, (size_t)n, (size_t)n, e))
        return ERR_BAD_MEMBER;
    for (int i = 0; i < n; i++) {
        jx_ptr_idx(p, sizeof p, ptr, (size_t)i);
        if (jx_int(json_array_get(j, (size_t)i), p, 0, hi, &x, e))
            return ERR_BAD_MEMBER;
        out[i] = (uint16_t)x;
    }
    return 0;
}

static int decode_body(fc_state *st, const json_t *j, game_err *e)
{
    const char *s;
    long long x;
    int b;
    char p[192], q[224];
    static const char *const variants[] = {"standard", NULL};
    int variant;
    if (jx_header(j, "fivecrowns", variants, &variant, e))
        return ERR_BAD_MEMBER;
    if (get_int(j, "", "players", FC_MINP, FC_MAXP, &x, e))
        return ERR_BAD_MEMBER;
    int np = st->np = (uint8_t)x;
    if (jx_bool(jx_get(j, "open"), "/open", &b, e))
        return ERR_BAD_MEMBER;
    st->open = (uint8_t)b;
    if (get_int(j, "", "round", 1, FC_ROUNDS, &x, e))
        return ERR_BAD_MEMBER;
    st->round = (uint8_t)x;
    if (get_int(j, "", "first_round", 1, st->round, &x, e))
        return ERR_BAD_MEMBER;
    st->first_round = (uint8_t)x;
    if (jx_bool(jx_get(j, "imported"), "/imported", &b, e))
        return ERR_BAD_MEMBER;
    st->imported = (uint8_t)b;
    if (!st->imported && st->first_round != 1)
        return err_set(e, ERR_BAD_MEMBER, "/first_round", "a game dealt here starts at round 1");
    if (jx_string(jx_get(j, "phase"), "/phase", &s, e))
        return ERR_BAD_MEMBER;
    int ph;
    for (ph = 0; ph <= FC_PH_OVER && strcmp(s, phase_name(ph)); ph++)
        ;
    if (ph > FC_PH_OVER)
        return err_set(e, ERR_BAD_MEMBER, "/phase", "expected \"draw\", \"discard\" or \"over\"");
    st->phase = (uint8_t)ph;
    if (ph == FC_PH_OVER && st->round != FC_ROUNDS)
        return err_set(e, ERR_BAD_MEMBER, "/phase", "a game is over only after round %d", FC_ROUNDS);
    if (get_int(j, "", "current", 0, np - 1, &x, e))
        return ERR_BAD_MEMBER;
    st->cur = (uint8_t)x;
    if (get_int(j, "", "starter", 0, np - 1, &x, e))
        return ERR_BAD_MEMBER;
    st->starter = (uint8_t)x;
    int wo;
    if (get_seat_or_null(j, "", "went_out", np, &wo, e))
        return ERR_BAD_MEMBER;
    st->went_out = (int8_t)wo;
    if (wo >= 0 && (ph == FC_PH_OVER || wo == st->cur))
        return err_set(e, ERR_BAD_MEMBER, "/went_out",
                       "the player who went out never moves again in the round, and a finished game has no round under way");
    if (get_int(j, "", "round_turns", 0, (FC_ROUND_TURNS + 1) * np, &x, e))
        return ERR_BAD_MEMBER;
    st->round_turns = (uint16_t)x;
    if (wo < 0 && ph != FC_PH_OVER && st->round_turns >= FC_ROUND_TURNS * np)
        return err_set(e, ERR_BAD_MEMBER, "/round_turns", "a round is called off after %d turns per player",
                       FC_ROUND_TURNS);
    if (get_int(j, "", "turns", 0, 65535, &x, e))
        return ERR_BAD_MEMBER;
    st->turns = (uint16_t)x;

    const json_t *t = jx_get(j, "toss");
    if (!t)
        return err_set(e, ERR_BAD_MEMBER, "/toss", "required toss (null or an object) is missing");
    st->call = -1;
    st->toss = -1;
    if (!json_is_null(t)) {
        if (jx_object(t, "/toss", e))
            return ERR_BAD_MEMBER;
        const json_t *c = jx_get(t, "call");
        if (!c)
            return err_set(e, ERR_BAD_MEMBER, "/toss/call", "required call (null, \"heads\" or \"tails\") is missing");
        if (!json_is_null(c)) {
            if (jx_string(c, "/toss/call", &s, e))
                return ERR_BAD_MEMBER;
            if (strcmp(s, "heads") && strcmp(s, "tails"))
                return err_set(e, ERR_BAD_MEMBER, "/toss/call", "expected \"heads\" or \"tails\"");
            st->call = (int8_t)(strcmp(s, "tails") == 0);
        }
        if (jx_string(jx_get(t, "result"), "/toss/result", &s, e))
            return ERR_BAD_MEMBER;
        if (strcmp(s, "heads") && strcmp(s, "tails"))
            return err_set(e, ERR_BAD_MEMBER, "/toss/result", "expected \"heads\" or \"tails\"");
        st->toss = (int8_t)(strcmp(s, "tails") == 0);
    }

    if (ints_at(jx_get(j, "scores"), "/scores", np, FC_MAXSCORE + 10000, st->score, e))
        return ERR_BAD_MEMBER;
    const json_t *hs = jx_get(j, "hands");
    if (jx_array(hs, "/hands", (size_t)np, (size_t)np, e))
        return ERR_BAD_MEMBER;
    int deal = st->round + 2;
    for (int q0 = 0; q0 < np; q0++) {
        int want = deal + (ph == FC_PH_DISCARD && q0 == st->cur);
        int n;
        jx_ptr_idx(p, sizeof p, "/hands", (size_t)q0);
        if (cards_at(json_array_get(hs, (size_t)q0), p, (size_t)want, (size_t)want, st->hand[q0], &n, 0, e))
            return ERR_BAD_MEMBER;
        st->nhand[q0] = (uint8_t)n;
    }
    int n;
    if (cards_at(jx_get(j, "draw_pile"), "/draw_pile", 0, FC_PILE, st->draw, &n, 1, e))
        return ERR_BAD_MEMBER;
    st->ndraw = (uint8_t)n;
    if (cards_at(jx_get(j, "discard_pile"), "/discard_pile", 0, FC_PILE, st->disc, &n, 1, e))
        return ERR_BAD_MEMBER;
    st->ndisc = (uint8_t)n;
    if (ph == FC_PH_DRAW && st->ndraw == 0 && st->ndisc == 0)
        return err_set(e, ERR_BAD_MEMBER, "/draw_pile", "both piles are empty: nothing to draw");

    if (jx_string(jx_get(j, "result"), "/result", &s, e))
        return ERR_BAD_MEMBER;
    int res;
    for (res = FC_PLAYING; res <= FC_TIE && strcmp(s, fc_result_name(res)); res++)
        ;
    if (res > FC_TIE)
        return err_set(e, ERR_BAD_MEMBER, "/result", "expected \"playing\", \"won\" or \"tie\"");
    st->result = (uint8_t)res;
    int w;
    if (get_seat_or_null(j, "", "winner", np, &w, e))
        return ERR_BAD_MEMBER;
    st->winner = (int8_t)w;
    {
        int best = 0, ties = 0;
        for (int q0 = 1; q0 < np; q0++)
            if (st->score[q0] < st->score[best])
                best = q0;
        for (int q0 = 0; q0 < np; q0++)
            ties += st->score[q0] == st->score[best];
        int want_res = ph != FC_PH_OVER ? FC_PLAYING : ties > 1 ? FC_TIE : FC_WON;
        int want_w = want_res == FC_WON ? best : -1;
        if (res != want_res)
            return err_set(e, ERR_BAD_MEMBER, "/result", "expected \"%s\" for this phase and these scores",
                           fc_result_name(want_res));
        if (w != want_w)
            return err_set(e, ERR_BAD_MEMBER, "/winner", "the winner is the single lowest total when the game is over, else null");
    }

    const json_t *rs = jx_get(j, "rounds");
    int nr = (ph == FC_PH_OVER ? FC_ROUNDS : st->round - 1) - (st->first_round - 1);
    if (jx_array(rs, "/rounds", (size_t)nr, (size_t)nr, e))
        return ERR_BAD_MEMBER;
    for (int i = 0; i < nr; i++) {
        const json_t *r = json_array_get(rs, (size_t)i);
        int rn = st->first_round + i;
        fc_round *rd = &st->rounds[rn - 1];
        jx_ptr_idx(p, sizeof p, "/rounds", (size_t)i);
        if (jx_object(r, p, e))
            return ERR_BAD_MEMBER;
        if (get_int(r, p, "round", rn, rn, &x, e))
            return ERR_BAD_MEMBER;
        jx_ptr_key(q, sizeof q, p, "ended");
        if (jx_string(jx_get(r, "ended"), q, &s, e))
            return ERR_BAD_MEMBER;
        if (strcmp(s, "out") && strcmp(s, "called-off"))
            return err_set(e, ERR_BAD_MEMBER, q, "expected \"out\" or \"called-off\"");
        rd->ended = strcmp(s, "out") == 0 ? FC_END_OUT : FC_END_LIMIT;
        int rw;
        if (get_seat_or_null(r, p, "went_out", np, &rw, e))
            return ERR_BAD_MEMBER;
        if ((rw >= 0) != (rd->ended == FC_END_OUT)) {
            jx_ptr_key(q, sizeof q, p, "went_out");
            return err_set(e, ERR_BAD_MEMBER, q, "a round ends with someone out, or is called off with nobody out");
        }
        rd->went_out = (int8_t)rw;
        jx_ptr_key(q, sizeof q, p, "points");
        if (ints_at(jx_get(r, "points"), q, np, 2000, rd->points, e))
            return ERR_BAD_MEMBER;
        jx_ptr_key(q, sizeof q, p, "hands");
        const json_t *rh = jx_get(r, "hands");
        if (jx_array(rh, q, (size_t)np, (size_t)np, e))
            return ERR_BAD_MEMBER;
        for (int q0 = 0; q0 < np; q0++) {
            char pp[256];
            int m;
            jx_ptr_idx(pp, sizeof pp, q, (size_t)q0);
            if (cards_at(json_array_get(rh, (size_t)q0), pp, (size_t)(rn + 2), (size_t)(rn + 2), rd->hand[q0], &m,
                         0, e))
                return ERR_BAD_MEMBER;
            rd->nhand[q0] = (uint8_t)m;
            fc_lay_keep(rd->hand[q0], m, fc_wild_rank(rn), &rd->lay[q0]);
        }
    }

    const json_t *h = jx_get(j, "history");
    if (jx_array(h, "/history", 0, FC_MAXHIST, e))
        return ERR_BAD_MEMBER;
    st->nhist = (uint16_t)json_array_size(h);
    for (size_t i = 0; i < json_array_size(h); i++) {
        const json_t *he = json_array_get(h, i);
        fc_hist *hh = &st->hist[i];
        jx_ptr_idx(p, sizeof p, "/history", i);
        if (jx_object(he, p, e))
            return ERR_BAD_MEMBER;
        if (get_int(he, p, "seat", 0, np - 1, &x, e))
            return ERR_BAD_MEMBER;
        hh->seat = (uint8_t)x;
        if (get_int(he, p, "round", st->first_round, st->round, &x, e))
            return ERR_BAD_MEMBER;
        hh->round = (uint8_t)x;
        jx_ptr_key(q, sizeof q, p, "play");
        const json_t *pl = jx_get(he, "play");
        fc_play pp;
        if (!pl)
            return err_set(e, ERR_BAD_MEMBER, q, "required play is missing");
        if (fc_play_parse(NULL, pl, &pp, e)) {
            err_prefix(e, q);
            return ERR_BAD_MEMBER;
        }
        hh->kind = pp.kind;
        hh->card = pp.card;
        hh->go_out = pp.go_out;
        jx_ptr_key(q, sizeof q, p, "card");
        const json_t *c = jx_get(he, "card");
        if (pp.kind == FC_PLAY_DRAW_PILE && !c) {
            hh->card = 0; /* a blind draw a concealed save does not tell (fc_conceal) */
        } else if (pp.kind != FC_PLAY_DISCARD) {
            if (card_at(c, q, &hh->card, e))
                return ERR_BAD_MEMBER;
        } else if (c) {
            return err_set(e, ERR_BAD_MEMBER, q, "a discard names its card in the play");
        }
        jx_ptr_key(q, sizeof q, p, "round_end");
        const json_t *re = jx_get(he, "round_end");
        if (re) {
            if (!json_is_true(re))
                return err_set(e, ERR_BAD_MEMBER, q, "round_end is true or absent");
            if (hh->round >= st->round && ph != FC_PH_OVER)
                return err_set(e, ERR_BAD_MEMBER, q, "round %d is still under way", hh->round);
            hh->round_end = 1;
        }
    }
    if (jx_rng_decode(jx_get(j, "rng"), "/rng", &st->rng, e) ||
        jx_bot_key_decode(j, &st->bkey, e))
        return ERR_BAD_MEMBER;
    if (fc_check_capacity(st, e))
        return ERR_BAD_MEMBER;
    return fc_check_cards(st, e);
}

/* Where the k-th card of the state sits, in the JSON's order (hands, then
 * each pile top first): its code, and its pointer in ptr. */
static int card_in_play(const fc_state *st, int k, char *ptr, size_t n)
{
    for (int p = 0; p < st->np; p++) {
        if (k < st->nhand[p]) {
            snprintf(ptr, n, "/hands/%d/%d", p, k);
            return st->hand[p][k];
        }
        k -= st->nhand[p];
    }
    if (k < st->ndraw) {
        snprintf(ptr, n, "/draw_pile/%d", k);
        return st->draw[st->ndraw - 1 - k];
    }
    k -= st->ndraw;
    snprintf(ptr, n, "/discard_pile/%d", k);
    return st->disc[st->ndisc - 1 - k];
}

int fc_check_cards(const fc_state *st, game_err *e)
{
    int count[FC_NTYPES + 1] = {0}, total = st->ndraw + st->ndisc;
    char ptr[32];
    for (int p = 0; p < st->np; p++)
        total += st->nhand[p];
    for (int k = 0; k < total; k++) {
        int c = card_in_play(st, k, ptr, sizeof ptr);
        if (c < 1 || c > FC_NTYPES)
            return err_set(e, ERR_BAD_MEMBER, ptr, "card code %d is no card", c);
        count[c]++;
        if (count[c] > 2 && !fc_untidy(st))
            return err_set(e, ERR_BAD_MEMBER, ptr, "a third %s: two decks hold 2 of each card", fc_card_str(c));
    }
    for (int c = 1; c <= FC_NTYPES && !fc_untidy(st); c++)
        if (count[c] < 2)
            return err_set(e, ERR_BAD_MEMBER, "/draw_pile",
                           "%s is in play %d time%s: two decks hold 2 of each card (in the hands and the piles)",
                           fc_card_str(c), count[c], count[c] == 1 ? "" : "s");
    return 0;
}

int fc_invariants(const void *vst, game_err *e)
{
    const fc_state *st = vst;
    if (st->np < FC_MINP || st->np > FC_MAXP || st->cur >= st->np || st->nhist > FC_MAXHIST)
        return err_set(e, ERR_INTERNAL, "", "a count is beyond its capacity");
    if (fc_check_capacity(st, e) || fc_check_cards(st, e)) {
        e->code = ERR_INTERNAL;
        return ERR_INTERNAL;
    }
    return 0;
}

int fc_decode(void *vout, const json_t *blob, game_err *e)
{
    fc_state *out = vout;
    /* the scratch state is on the heap: it is ~40 KB (the history) */
    fc_state *st = calloc(1, sizeof *st);
    if (!st)
        return err_set(e, ERR_INTERNAL, "", "out of memory");
    int rc = decode_body(st, blob, e);
    if (!rc)
        memcpy(out, st, sizeof *st);
    free(st);
    return rc;
}

/* --- views and history -------------------------------------------------------- */

/* Who reads what (game.h's readers). Once the game is over, everybody sees
 * everything. While it runs:
 * - a hand: its seat; everybody at an open table (the seed's screen); the
 *   observer (every hand) and the admin;
 * - the discard pile under its top: everybody at an open table, and the
 *   admin; a closed table shows every seat only its top and count, so an
 *   observer sees no more (nothing hidden from every seat);
 * - the draw pile's order: the admin, and at an open table its seats (the
 *   seed keeps it on screen and the players play as if they could not see
 *   it). Never a spectator or an observer: it is hidden from every seat in
 *   principle, and it (with the RNG, only in encode()) predicts the game;
 * - a card drawn blind from the draw pile (history): whoever sees the hand
 *   it went into. */
static int is_over(const fc_state *st) { return st->phase == FC_PH_OVER; }
/* every card to every reader: the game is over, or this is a replayed past
 * position of a finished game (revealed) */
static int shows_all(const fc_state *st) { return is_over(st) || st->revealed; }

static int sees_hand(const fc_state *st, int reader, int p)
{
    return shows_all(st) || st->open || reader == SEAT_ADMIN || reader == SEAT_OBSERVER || reader == p;
}

static int sees_discard_pile(const fc_state *st, int reader)
{
    return shows_all(st) || st->open || reader == SEAT_ADMIN;
}

static int sees_draw_pile(const fc_state *st, int reader)
{
    return shows_all(st) || reader == SEAT_ADMIN || (st->open && reader >= 0 && reader < st->np);
}

void fc_redeal(void *vst, int reader, uint64_t salt)
{
    fc_state *st = vst;
    rng_slots s = {.n = 0};
    for (int p = 0; p < st->np; p++)
        if (!sees_hand(st, reader, p))
            rng_slots_add(&s, st->hand[p], st->nhand[p]);
    if (!sees_discard_pile(st, reader) && st->ndisc > 1)
        rng_slots_add(&s, st->disc, (size_t)(st->ndisc - 1));
    if (!sees_draw_pile(st, reader))
        rng_slots_add(&s, st->draw, st->ndraw);
    rng_slots_shuffle(&s, salt);
}

/* A finished round: its points, and (`layouts`) how each hand was laid out,
 * the arranger's work for every seat, so only where it is asked for. */
static json_t *round_json(const fc_state *st, int r, int layouts)
{
    const fc_round *rd = &st->rounds[r - 1];
    json_t *o = jx_obj(4, "round", json_integer(r), "ended", jx_str(rd->ended == FC_END_OUT ? "out" : "called-off"),
                       "went_out", seat_or_null(rd->went_out), "points", jx_u16_array(rd->points, st->np));
    if (!layouts)
        return o;
    json_t *lay = json_array();
    for (int p = 0; p < st->np; p++) {
        fc_arr a;
        fc_lay_arr(&rd->lay[p], &a);
        json_t *aj = fc_arr_json(&a);
        json_object_set_new(aj, "points", json_integer(rd->points[p]));
        json_array_append_new(lay, aj);
    }
    json_object_set_new(o, "layouts", lay);
    return o;
}

static const char *wild_char(int r)
{
    static const char *const W[] = {"3", "4", "5", "6", "7", "8", "9", "X", "J", "Q", "K"};
    return W[r - 1];
}

json_t *fc_view(const void *vst, int seat)
{
    const fc_state *st = vst;
    int over = is_over(st);
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("fivecrowns"));
    json_object_set_new(o, "variant", json_string("standard"));
    json_object_set_new(o, "players", json_integer(st->np));
    json_object_set_new(o, "open", json_boolean(st->open));
    json_object_set_new(o, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(o, "round", json_integer(st->round));
    json_object_set_new(o, "rounds_total", json_integer(FC_ROUNDS));
    json_object_set_new(o, "cards_dealt", json_integer(st->round + 2));
    json_object_set_new(o, "wild_rank", json_string(wild_char(st->round)));
    json_object_set_new(o, "phase", json_string(phase_name(st->phase)));
    json_object_set_new(o, "current", over ? json_null() : json_integer(st->cur));
    json_object_set_new(o, "starter", json_integer(st->starter));
    json_object_set_new(o, "went_out", seat_or_null(st->went_out));
    json_object_set_new(o, "over", json_boolean(over));
    json_object_set_new(o, "result", json_string(fc_result_name(st->result)));
    json_object_set_new(o, "winner", seat_or_null(st->winner));
    json_object_set_new(o, "scores", jx_u16_array(st->score, st->np));
    json_object_set_new(o, "toss", toss_json(st));
    json_t *sizes = json_array(), *hands = json_array();
    for (int p = 0; p < st->np; p++) {
        json_array_append_new(sizes, json_integer(st->nhand[p]));
        json_array_append_new(hands, sees_hand(st, seat, p) ? fc_cards_json(st->hand[p], st->nhand[p]) : json_null());
    }
    json_object_set_new(o, "hand_sizes", sizes);
    json_object_set_new(o, "hands", hands);
    if (seat >= 0 && seat < st->np)
        json_object_set_new(o, "hand", fc_cards_json(st->hand[seat], st->nhand[seat]));
    json_object_set_new(o, "discard_top", fc_card_json(st->ndisc ? st->disc[st->ndisc - 1] : 0));
    json_object_set_new(o, "discard_count", json_integer(st->ndisc));
    json_object_set_new(o, "draw_count", json_integer(st->ndraw));
    if (sees_discard_pile(st, seat))
        json_object_set_new(o, "discard_pile", fc_pile_json(st->disc, st->ndisc));
    if (sees_draw_pile(st, seat))
        json_object_set_new(o, "draw_pile", fc_pile_json(st->draw, st->ndraw));
    /* Every finished round's points; the layouts of the last one only (each
     * round's layouts are in its round_end record of /plays and /events):
     * a view costs the same in round 11 as in round 2. */
    json_t *rounds = json_array();
    int done = rounds_done(st);
    for (int i = 0; i < done; i++)
        json_array_append_new(rounds, round_json(st, st->first_round + i, i == done - 1));
    json_object_set_new(o, "rounds", rounds);
    return o;
}

json_t *fc_record(const fc_state *st, int i, int seat, const char *explanation)
{
    const fc_hist *x = &st->hist[i];
    fc_play p = {x->kind, x->card, x->go_out};
    json_t *o = jx_obj(5, "n", json_integer(i), "seat", json_integer(x->seat), "round", json_integer(x->round), "play",
                       fc_play_json(&p), "turn_ending", json_boolean(x->kind == FC_PLAY_DISCARD));
    if (x->kind == FC_PLAY_DRAW_DISCARD || (x->kind == FC_PLAY_DRAW_PILE && x->card && sees_hand(st, seat, x->seat)))
        json_object_set_new(o, "card", fc_card_json(x->card));
    if (x->go_out)
        json_object_set_new(o, "went_out", json_true());
    if (x->round_end)
        json_object_set_new(o, "round_end", round_json(st, x->round, 1));
    if (explanation)
        json_object_set_new(o, "explanation", json_string(explanation));
    return o;
}

json_t *fc_history(const void *vst, int seat)
{
    const fc_state *st = vst;
    json_t *a = json_array();
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(a, fc_record(st, i, seat, NULL));
    return a;
}
