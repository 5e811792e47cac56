/* pz_codec.c: JSON for Phazed: cards, plays (the reference's tuples as
 * arrays), the table / phase_status / turn_history of the autograder
 * functions, the full state (stored blob / export), views, events and
 * records.
 *
 * decode trusts nothing: every member is type- and range-checked (the
 * scalar ones from one table, FIELDS: name, place in pz_state, bounds; the
 * arrays from another, ARRAYS: name, bounds, element decoder), table
 * groups must be what their phase makes them, accumulations complete
 * (except during the turn of the player to move), and every card must
 * appear exactly as often as the decks hold it. Views never show another
 * seat's hand, the deck order, or the card another seat drew from the deck
 * (turn_history writes it "XX"), except to SEAT_ADMIN.
 */
#include "pz.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *variant_name(int v) { return v ? "bonus" : "standard"; }

/* Card names are two ASCII characters from a table: no UTF-8 check needed. */
json_t *pz_card_json(int c) { return c ? json_stringn_nocheck(pz_card_name(c), 2) : json_null(); }

/* [a, b] (both taken). Views of a long hand hold hundreds of these (the
 * turn_history): built directly rather than through json_pack's format. */
static json_t *pair(json_t *a, json_t *b) { return jx_arr(2, a, b); }

json_t *pz_cards_json(const uint8_t *c, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, pz_card_json(c[i]));
    return a;
}

static json_t *groups_json(int ng, const uint8_t *gn, const uint8_t (*gc)[PZ_PHMAX])
{
    json_t *a = json_array();
    for (int k = 0; k < ng; k++)
        json_array_append_new(a, pz_cards_json(gc[k], gn[k]));
    return a;
}

json_t *pz_play_json(const void *vp)
{
    const pz_play *p = vp;
    switch (p->type) {
    case PZ_PICK_DECK:
        return pair(json_integer(1), pz_card_json(p->card));
    case PZ_PHASE:
        return pair(json_integer(3), pair(json_integer(p->phase), groups_json(p->ng, p->gn, p->gc)));
    case PZ_PLACE:
        return pair(json_integer(4),
                    pair(pz_card_json(p->card),
                         jx_arr(3, json_integer(p->pid), json_integer(p->grp), json_integer(p->idx))));
    case PZ_SKIP:
        return pair(json_integer(6), json_integer(p->target));
    default:
        return pair(json_integer(p->type), pz_card_json(p->card));
    }
}

static int card_at(const json_t *j, const char *ptr, int variant, uint8_t *out, game_err *e)
{
    const char *s;
    if (jx_string(j, ptr, &s, e))
        return ERR_BAD_MEMBER;
    int c = pz_card_parse(s, variant);
    if (!c)
        return err_set(e, ERR_BAD_MEMBER, ptr,
                       "expected a card (value 234567890JQKA + suit SHDC, e.g. \"0D\"%s), got \"%.16s\"",
                       variant ? ", or \"ZZ\"" : "", s);
    *out = (uint8_t)c;
    return 0;
}

int pz_play_parse(const json_t *j, int variant, pz_play *out, game_err *e)
{
    long long t, x;
    memset(out, 0, sizeof *out);
    if (jx_array(j, "", 2, 2, e))
        return ERR_BAD_MEMBER;
    if (jx_int(json_array_get(j, 0), "/0", 1, variant ? 6 : 5, &t, e))
        return ERR_BAD_MEMBER;
    out->type = (uint8_t)t;
    const json_t *c = json_array_get(j, 1);
    switch (t) {
    case PZ_PICK_DECK:
        if (json_is_null(c) || (json_is_string(c) && strcmp(json_string_value(c), "XX") == 0))
            return 0;
        if (json_is_string(c) && pz_card_parse(json_string_value(c), variant)) {
            out->card = (uint8_t)pz_card_parse(json_string_value(c), variant);
            return 0;
        }
        return err_set(e, ERR_BAD_MEMBER, "/1", "a deck pick-up is [1, null] (or [1, \"XX\"])");
    case PZ_PICK_DISCARD:
    case PZ_DISCARD:
        return card_at(c, "/1", variant, &out->card, e);
    case PZ_SKIP:
        if (jx_int(c, "/1", 0, PZ_MAXP - 1, &x, e))
            return ERR_BAD_MEMBER;
        out->target = (uint8_t)x;
        return 0;
    case PZ_PLACE: {
        const json_t *pos;
        if (jx_array(c, "/1", 2, 2, e) || card_at(json_array_get(c, 0), "/1/0", variant, &out->card, e))
            return ERR_BAD_MEMBER;
        pos = json_array_get(c, 1);
        if (jx_array(pos, "/1/1", 3, 3, e) || jx_int(json_array_get(pos, 0), "/1/1/0", 0, PZ_MAXP - 1, &x, e))
            return ERR_BAD_MEMBER;
        out->pid = (uint8_t)x;
        if (jx_int(json_array_get(pos, 1), "/1/1/1", 0, 1, &x, e))
            return ERR_BAD_MEMBER;
        out->grp = (uint8_t)x;
        if (jx_int(json_array_get(pos, 2), "/1/1/2", 0, PZ_GMAX, &x, e))
            return ERR_BAD_MEMBER;
        out->idx = (uint8_t)x;
        return 0;
    }
    default: { /* phase */
        if (jx_array(c, "/1", 2, 2, e) || jx_int(json_array_get(c, 0), "/1/0", 1, PZ_NPHASES, &x, e))
            return ERR_BAD_MEMBER;
        out->phase = (uint8_t)x;
        const json_t *gs = json_array_get(c, 1);
        if (jx_array(gs, "/1/1", 1, 2, e))
            return ERR_BAD_MEMBER;
        out->ng = (uint8_t)json_array_size(gs);
        for (int k = 0; k < out->ng; k++) {
            char p[32];
            int n;
            snprintf(p, sizeof p, "/1/1/%d", k);
            if (pz_cards_parse(json_array_get(gs, (size_t)k), p, variant, PZ_PHMAX, out->gc[k], &n, e))
                return ERR_BAD_MEMBER;
            out->gn[k] = (uint8_t)n;
        }
        return 0;
    }
    }
}

json_t *pz_table_json(const pz_table *t, int np)
{
    json_t *a = json_array();
    for (int p = 0; p < np; p++) {
        json_t *gs = json_array();
        for (int g = 0; g < t->ng[p] && t->phase[p]; g++)
            json_array_append_new(gs, pz_cards_json(t->g[p][g].c, t->g[p][g].n));
        json_array_append_new(a, pair(t->phase[p] ? json_integer(t->phase[p]) : json_null(), gs));
    }
    return a;
}

json_t *pz_status_json(int variant, const uint8_t *status, int np)
{
    json_t *a = json_array();
    for (int p = 0; p < np; p++) {
        if (!variant) {
            json_array_append_new(a, json_integer(status[p]));
            continue;
        }
        json_t *b = json_array();
        for (int k = 0; k < PZ_NPHASES; k++)
            json_array_append_new(b, json_boolean((status[p] >> k) & 1));
        json_array_append_new(a, b);
    }
    return a;
}

/* A log entry as a play (deck draws: the card when `reveal`, else "XX"). */
static json_t *log_play(const pz_state *st, const pz_log *l, int reveal)
{
    pz_play p;
    memset(&p, 0, sizeof p);
    p.type = l->type;
    switch (l->type) {
    case PZ_PICK_DECK:
        if (!reveal)
            return pair(json_integer(1), json_stringn_nocheck("XX", 2));
        p.card = l->card;
        break;
    case PZ_PHASE: {
        const pz_phrec *r = &st->ph[l->b];
        p.phase = l->a;
        p.ng = r->ng;
        memcpy(p.gn, r->gn, sizeof p.gn);
        memcpy(p.gc, r->gc, sizeof p.gc);
        break;
    }
    case PZ_PLACE:
        p.card = l->card;
        p.pid = l->a;
        p.grp = l->b;
        p.idx = l->c;
        break;
    case PZ_SKIP:
        p.target = l->a;
        break;
    default:
        p.card = l->card;
    }
    return pz_play_json(&p);
}

/* May `seat` see the cards of `owner`'s hand (and so their deck draws)?
 * Their owner, the admin, an observer ("spectators": "all"), and everyone
 * once the game is over (engine/game.h). */
static int sees_hand(const pz_state *st, int seat, int owner)
{
    return seat == owner || seat == SEAT_ADMIN || seat == SEAT_OBSERVER || st->result != PZ_PLAYING ||
           st->revealed;
}

/* The plays of a turn_history that are [type, card] (picking up a card,
 * discarding one): a late hand of a long game holds hundreds, most of them
 * alike ([1, "XX"]: another player's draw), so each distinct one is built
 * once per history and shared by reference (nothing changes a view's
 * values once built). Index: kind (0 pick from the deck, 1 from the
 * discard pile, 2 discard) and the card code (0: hidden). 1.3 KB. */
typedef struct {
    json_t *v[3][PZ_JOKER + 1];
    json_t *seat[PZ_MAXP];
} pz_memo;

static json_t *memo_play(pz_memo *m, const pz_state *st, const pz_log *l, int reveal)
{
    int kind = l->type == PZ_PICK_DECK ? 0 : l->type == PZ_PICK_DISCARD ? 1 : l->type == PZ_DISCARD ? 2 : -1;
    int code = kind == 0 && !reveal ? 0 : l->card;
    if (kind < 0 || code > PZ_JOKER)
        return log_play(st, l, reveal);
    if (!m->v[kind][code])
        m->v[kind][code] = log_play(st, l, reveal);
    return json_incref(m->v[kind][code]);
}

json_t *pz_turn_history(const pz_state *st, int seat)
{
    json_t *a = json_array(), *plays = NULL;
    pz_memo m;
    memset(&m, 0, sizeof m);
    for (int i = st->hand_log; i < st->nlog; i++) {
        const pz_log *l = &st->log[i];
        if (l->type <= PZ_PICK_DISCARD || !plays) {
            plays = json_array();
            if (!m.seat[l->seat])
                m.seat[l->seat] = json_integer(l->seat);
            json_array_append_new(a, pair(json_incref(m.seat[l->seat]), plays));
        }
        if (l->type == PZ_SKIPPED) {
            plays = NULL;
            continue;
        }
        json_array_append_new(plays, memo_play(&m, st, l, sees_hand(st, seat, l->seat)));
    }
    for (int k = 0; k < 3; k++)
        for (int c = 0; c <= PZ_JOKER; c++)
            json_decref(m.v[k][c]); /* the history holds them now */
    for (int p = 0; p < PZ_MAXP; p++)
        json_decref(m.seat[p]);
    return a;
}

json_t *pz_history(const void *vst, int seat)
{
    const pz_state *st = vst;
    json_t *a = json_array();
    for (int i = 0; i < st->nlog; i++) {
        const pz_log *l = &st->log[i];
        if (l->type == PZ_SKIPPED)
            continue; /* not a play: the "skipped" event tells it */
        /* a turn ends where the next one starts (a pick-up, a skipped turn,
         * a new hand), or with the state between turns */
        const pz_log *nx = i + 1 < st->nlog ? &st->log[i + 1] : NULL;
        int ending = nx ? nx->type <= PZ_PICK_DISCARD || nx->type == PZ_SKIPPED || nx->hand != l->hand
                        : !st->mid || st->result != PZ_PLAYING;
        json_array_append_new(a, jx_obj(5, "n", json_integer(i + 1), "seat", json_integer(l->seat), "hand",
                                        json_integer(l->hand + 1), "play",
                                        log_play(st, l, sees_hand(st, seat, l->seat)), "turn_ending",
                                        json_boolean(ending)));
    }
    return a;
}

/* --- state ------------------------------------------------------------------ */

static json_t *deck_json(const pz_state *st)
{
    json_t *a = json_array();
    for (int i = st->ndeck - 1; i >= 0; i--)
        json_array_append_new(a, pz_card_json(st->deck[i]));
    return a;
}

static json_t *bools_json(const uint8_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_boolean(v[i]));
    return a;
}

static json_t *hands_json(const pz_state *st)
{
    json_t *a = json_array();
    for (int p = 0; p < st->np; p++)
        json_array_append_new(a, pz_cards_json(st->hand[p], st->nhand[p]));
    return a;
}

static json_t *results_json(const pz_state *st)
{
    json_t *a = json_array();
    for (int h = 0; h < st->hands_done; h++)
        json_array_append_new(a, jx_obj(3, "hand", json_integer(h + 1), "reason",
                                        jx_str(pz_end_name(st->end_reason[h])), "penalties",
                                        jx_u16_array(st->pen[h], st->np)));
    return a;
}

json_t *pz_encode(const void *vst)
{
    const pz_state *st = vst;
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("phazed"));
    json_object_set_new(o, "variant", json_string(variant_name(st->variant)));
    json_object_set_new(o, "players", json_integer(st->np));
    json_object_set_new(o, "max_hands", json_integer(st->maxhands));
    json_object_set_new(o, "rng", jx_rng_encode(&st->rng));
    json_object_set_new(o, "bot_key", jx_bot_key_encode(st->bkey));
    json_object_set_new(o, "result", json_string(pz_result_name(st->result)));
    json_object_set_new(o, "winner", st->winner >= 0 ? json_integer(st->winner) : json_null());
    json_object_set_new(o, "dealer", json_integer(st->dealer));
    json_object_set_new(o, "current", json_integer(st->cur));
    json_object_set_new(o, "picked_up", json_boolean(st->mid));
    json_object_set_new(o, "deck_out", json_boolean(st->deck_out));
    json_object_set_new(o, "turns_hand", json_integer(st->turns_hand));
    json_object_set_new(o, "turns_total", json_integer(st->turns_total));
    json_object_set_new(o, "skip", bools_json(st->skip, st->np));
    json_object_set_new(o, "phase_status", pz_status_json(st->variant, st->status, st->np));
    json_object_set_new(o, "scores", jx_u16_array(st->score, st->np));
    json_object_set_new(o, "hands_played", results_json(st));
    json_object_set_new(o, "deck", deck_json(st));
    json_object_set_new(o, "discard_pile", pz_cards_json(st->disc, st->ndisc));
    json_object_set_new(o, "hands", hands_json(st));
    json_object_set_new(o, "table", pz_table_json(&st->t, st->np));
    json_t *log = json_array();
    for (int i = 0; i < st->nlog; i++) {
        const pz_log *l = &st->log[i];
        json_array_append_new(log, jx_arr(3, json_integer(l->hand + 1), json_integer(l->seat),
                                          l->type == PZ_SKIPPED ? json_null() : log_play(st, l, 1)));
    }
    json_object_set_new(o, "log", log);
    json_object_set_new(o, "hand_log", json_integer(st->hand_log));
    return o;
}

static int get_int(const json_t *o, const char *key, long long lo, long long hi, long long *out,
                   game_err *e)
{
    char p[64];
    jx_ptr_key(p, sizeof p, "", key);
    return jx_int(jx_get(o, key), p, lo, hi, out, e);
}

/* The stored state's scalar members, in the order decode reads them: each
 * an integer (or, hi 0, a boolean) member of pz_state, 1 or 2 bytes at off,
 * from lo (or from the value of the member lo_of, an earlier row) to hi,
 * where hi counts per player when per_player (hi * players + add). */
typedef struct pz_field {
    const char *name;
    size_t off, size;
    long lo, hi;
    int per_player, add, lo_of;
} pz_field;

#define PZ_FIELD(name, member, lo, hi, per_player, add, lo_of)                                       \
    {name, offsetof(pz_state, member), sizeof(((pz_state *)0)->member), lo, hi, per_player, add, lo_of}
enum { F_NONE = -1, F_TURNS_HAND = 6 }; /* F_TURNS_HAND: the row of "turns_hand" */
static const pz_field FIELDS[] = {
    PZ_FIELD("players", np, PZ_MINP, PZ_MAXP, 0, 0, F_NONE), /* first: the bounds below need it */
    PZ_FIELD("max_hands", maxhands, 1, PZ_MAXHANDS, 0, 0, F_NONE),
    PZ_FIELD("dealer", dealer, 0, 1, 1, -1, F_NONE),
    PZ_FIELD("current", cur, 0, 1, 1, -1, F_NONE),
    PZ_FIELD("picked_up", mid, 0, 0, 0, 0, F_NONE),
    PZ_FIELD("deck_out", deck_out, 0, 0, 0, 0, F_NONE),
    PZ_FIELD("turns_hand", turns_hand, 0, PZ_TURNS_EACH, 1, 0, F_NONE),
    PZ_FIELD("turns_total", turns_total, 0, PZ_TURNS_EACH * PZ_MAXHANDS, 1, 0, F_TURNS_HAND),
    PZ_FIELD("hand_log", hand_log, 0, PZ_MAXLOG, 0, 0, F_NONE),
};

static long field_get(const pz_state *st, const pz_field *f)
{
    const uint8_t *at = (const uint8_t *)st + f->off;
    uint16_t w;
    if (f->size == 1)
        return *at;
    memcpy(&w, at, sizeof w);
    return w;
}

/* x into the 1- or 2-byte member of st at off */
static void member_set(pz_state *st, size_t off, size_t size, long long x)
{
    uint8_t *at = (uint8_t *)st + off;
    uint16_t w = (uint16_t)x;
    if (size == 1)
        *at = (uint8_t)x;
    else
        memcpy(at, &w, sizeof w);
}

static void field_set(pz_state *st, const pz_field *f, long long x) { member_set(st, f->off, f->size, x); }

static int read_fields(pz_state *st, const json_t *j, game_err *e)
{
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++) {
        const pz_field *f = &FIELDS[i];
        char p[64];
        long long x;
        int b;
        jx_ptr_key(p, sizeof p, "", f->name);
        long lo = f->lo_of == F_NONE ? f->lo : field_get(st, &FIELDS[f->lo_of]);
        long hi = f->per_player ? f->hi * st->np + f->add : f->hi;
        if (f->hi == 0 ? jx_bool(jx_get(j, f->name), p, &b, e) : jx_int(jx_get(j, f->name), p, lo, hi, &x, e))
            return ERR_BAD_MEMBER;
        field_set(st, f, f->hi == 0 ? b : x);
    }
    return 0;
}

/* --- arrays ------------------------------------------------------------------ */

/* One element of an array member: el at ptr, the i-th of n; ctx is the
 * caller's (the state being decoded, or what a public parser fills). */
typedef int (*pz_elem_fn)(void *ctx, const json_t *el, const char *ptr, int i, int n, game_err *e);

/* Every element of the array j (at ptr), each at its pointer. */
static int walk_elems(const json_t *j, const char *ptr, pz_elem_fn fn, void *ctx, game_err *e)
{
    char p[256];
    int n = (int)json_array_size(j);
    for (int i = 0; i < n; i++) {
        jx_ptr_idx(p, sizeof p, ptr, (size_t)i);
        if (fn(ctx, json_array_get(j, (size_t)i), p, i, n, e))
            return ERR_BAD_MEMBER;
    }
    return 0;
}

/* Every array is read so: lo..hi elements, then each of them. */
static int each_elem(const json_t *j, const char *ptr, size_t lo, size_t hi, pz_elem_fn fn, void *ctx,
                     game_err *e)
{
    if (jx_array(j, ptr, lo, hi, e))
        return ERR_BAD_MEMBER;
    return walk_elems(j, ptr, fn, ctx, e);
}

typedef struct pz_cards_ctx {
    int variant;
    uint8_t *out;
    int reversed; /* 1: element i goes to out[n-1-i] (piles: JSON top first) */
} pz_cards_ctx;

static int card_elem(void *ctx, const json_t *el, const char *ptr, int i, int n, game_err *e)
{
    pz_cards_ctx *c = ctx;
    return card_at(el, ptr, c->variant, &c->out[c->reversed ? n - 1 - i : i], e);
}

int pz_cards_parse(const json_t *j, const char *ptr, int variant, size_t max, uint8_t *out,
                   int *n, game_err *e)
{
    pz_cards_ctx c = {variant, out, 0};
    if (each_elem(j, ptr, 0, max, card_elem, &c, e))
        return ERR_BAD_MEMBER;
    *n = (int)json_array_size(j);
    return 0;
}

/* one seat's phase_status: an int 0-7, or (bonus) a list of 7 booleans */
static int phase_bit(void *ctx, const json_t *el, const char *ptr, int i, int n, game_err *e)
{
    (void)n;
    int b;
    if (jx_bool(el, ptr, &b, e))
        return ERR_BAD_MEMBER;
    *(uint8_t *)ctx |= (uint8_t)(b << i);
    return 0;
}

static int status_one(const json_t *s, const char *p, int variant, uint8_t *out, game_err *e)
{
    long long x;
    if (!variant) {
        if (jx_int(s, p, 0, PZ_NPHASES, &x, e))
            return ERR_BAD_MEMBER;
        *out = (uint8_t)x;
        return 0;
    }
    *out = 0;
    return each_elem(s, p, PZ_NPHASES, PZ_NPHASES, phase_bit, out, e);
}

typedef struct pz_status_ctx {
    int variant;
    uint8_t *out;
} pz_status_ctx;

static int status_elem(void *ctx, const json_t *el, const char *ptr, int i, int n, game_err *e)
{
    (void)n;
    pz_status_ctx *c = ctx;
    return status_one(el, ptr, c->variant, &c->out[i], e);
}

/* phase_status in the variant's form (also used by the autograder functions) */
int pz_status_parse(const json_t *j, const char *ptr, int variant, int np, uint8_t *out,
                    game_err *e)
{
    pz_status_ctx c = {variant, out};
    return each_elem(j, ptr, (size_t)np, (size_t)np, status_elem, &c, e);
}

/* Is group g of phase ph, cards c[0..n), what the phase makes it? (rebuilt
 * card by card as the rules allow) */
static int group_fits(int ph, int g, const uint8_t *c, int n)
{
    int kind = pz_group_kind(ph, g), ok = 1;
    for (int i = 0; i < n; i++)
        ok &= c[i] != PZ_JOKER;
    if (kind == PZ_K_RUN || kind == PZ_K_CRUN) {
        ok &= pz_run_start(c, n) != 0 && n >= (kind == PZ_K_RUN ? 8 : 4);
        if (ok && kind == PZ_K_CRUN) {
            int col = -1, nat = 0;
            for (int i = 0; i < n; i++)
                if (!pz_wild(c[i])) {
                    nat++;
                    ok &= col < 0 || col == pz_black(c[i]);
                    col = pz_black(c[i]);
                }
            ok &= nat >= 2;
        }
        if (ok && kind == PZ_K_RUN) {
            int nat = 0;
            for (int i = 0; i < n; i++)
                nat += !pz_wild(c[i]);
            ok &= nat >= 2;
        }
    } else if (kind == PZ_K_VSET || kind == PZ_K_SSET) {
        int need = kind == PZ_K_SSET ? 7 : ph == 1 ? 3 : 4, nat = 0, key = 0;
        for (int i = 0; i < n; i++) {
            if (pz_wild(c[i]))
                continue;
            int v = kind == PZ_K_SSET ? pz_suit(c[i]) + 1 : pz_rank(c[i]);
            ok &= !key || key == v;
            key = v;
            nat++;
        }
        ok &= nat >= 2 && n >= need;
    } else {
        int tot = 0, col = -1;
        for (int i = 0; i < n; i++) {
            tot += pz_accval(c[i]);
            if (kind == PZ_K_CACC) {
                ok &= col < 0 || col == pz_black(c[i]);
                col = pz_black(c[i]);
            }
        }
        ok &= tot >= 34 && tot <= 88;
    }
    return ok;
}

typedef struct pz_table_ctx {
    int variant, check;
    pz_table *t;
} pz_table_ctx;

/* one table entry [phase|null, groups] */
static int table_elem(void *ctx, const json_t *ent, const char *p, int k, int n, game_err *e)
{
    (void)n;
    pz_table_ctx *c = ctx;
    pz_table *t = c->t;
    char q[288], r[320];
    if (jx_array(ent, p, 2, 2, e))
        return ERR_BAD_MEMBER;
    const json_t *ph = json_array_get(ent, 0), *gs = json_array_get(ent, 1);
    jx_ptr_idx(q, sizeof q, p, 0);
    long long x = 0;
    if (!json_is_null(ph) && jx_int(ph, q, 1, PZ_NPHASES, &x, e))
        return ERR_BAD_MEMBER;
    int ng = x ? pz_phase_ngroups((int)x) : 0;
    jx_ptr_idx(q, sizeof q, p, 1);
    if (jx_array(gs, q, (size_t)ng, (size_t)ng, e))
        return ERR_BAD_MEMBER;
    t->phase[k] = (uint8_t)x;
    t->ng[k] = (uint8_t)ng;
    for (int g = 0; g < ng; g++) {
        int m;
        jx_ptr_idx(r, sizeof r, q, (size_t)g);
        if (pz_cards_parse(json_array_get(gs, (size_t)g), r, c->variant, PZ_GMAX - 1, t->g[k][g].c, &m, e))
            return ERR_BAD_MEMBER;
        t->g[k][g].n = (uint8_t)m;
        if (m == 0)
            return err_set(e, ERR_BAD_MEMBER, r, "a group on the table holds cards");
        if (c->check && !group_fits((int)x, g, t->g[k][g].c, m))
            return err_set(e, ERR_BAD_MEMBER, r, "this group is not what phase %lld makes it", x);
    }
    return 0;
}

/* The table: np entries [phase|null, groups]; `check` also requires every
 * group to be what its phase makes it (the game's own blob). */
int pz_table_parse(const json_t *j, const char *ptr, int variant, int np, pz_table *t, int check,
                   game_err *e)
{
    pz_table_ctx c = {variant, check, t};
    memset(t, 0, sizeof *t);
    return each_elem(j, ptr, (size_t)np, (size_t)np, table_elem, &c, e);
}

/* --- the stored state's arrays ------------------------------------------------ */

/* The element decoders of the state's array members: ctx is the pz_state
 * being decoded, every scalar member (FIELDS, result, winner) already read. */

static int skip_elem(void *ctx, const json_t *el, const char *p, int q, int n, game_err *e)
{
    (void)n;
    pz_state *st = ctx;
    int b;
    if (jx_bool(el, p, &b, e))
        return ERR_BAD_MEMBER;
    if (b && !st->variant)
        return err_set(e, ERR_BAD_MEMBER, p, "Skips exist only in the bonus variant");
    st->skip[q] = (uint8_t)b;
    return 0;
}

static int state_status_elem(void *ctx, const json_t *el, const char *p, int q, int n, game_err *e)
{
    (void)n;
    pz_state *st = ctx;
    return status_one(el, p, st->variant, &st->status[q], e);
}

static int score_elem(void *ctx, const json_t *el, const char *p, int q, int n, game_err *e)
{
    (void)n;
    long long x;
    if (jx_int(el, p, 0, 60000, &x, e))
        return ERR_BAD_MEMBER;
    ((pz_state *)ctx)->score[q] = (uint16_t)x;
    return 0;
}

static int penalty_elem(void *ctx, const json_t *el, const char *p, int k, int n, game_err *e)
{
    (void)n;
    long long x;
    if (jx_int(el, p, 0, 2000, &x, e))
        return ERR_BAD_MEMBER;
    ((uint16_t *)ctx)[k] = (uint16_t)x;
    return 0;
}

static int hand_played_elem(void *ctx, const json_t *he, const char *p, int h, int n, game_err *e)
{
    (void)n;
    pz_state *st = ctx;
    char q[288];
    const char *s;
    long long x;
    if (jx_object(he, p, e))
        return ERR_BAD_MEMBER;
    jx_ptr_key(q, sizeof q, p, "hand");
    if (jx_int(jx_get(he, "hand"), q, h + 1, h + 1, &x, e))
        return ERR_BAD_MEMBER;
    jx_ptr_key(q, sizeof q, p, "reason");
    if (jx_string(jx_get(he, "reason"), q, &s, e))
        return ERR_BAD_MEMBER;
    int rr;
    for (rr = PZ_END_OUT; rr <= PZ_END_TURNS; rr++)
        if (strcmp(s, pz_end_name(rr)) == 0)
            break;
    if (rr > PZ_END_TURNS)
        return err_set(e, ERR_BAD_MEMBER, q, "expected \"out\", \"deck-exhausted\" or \"turn-limit\"");
    st->end_reason[h] = (uint8_t)rr;
    jx_ptr_key(q, sizeof q, p, "penalties");
    return each_elem(jx_get(he, "penalties"), q, st->np, st->np, penalty_elem, st->pen[h], e);
}

static int deck_elem(void *ctx, const json_t *el, const char *p, int i, int n, game_err *e)
{
    pz_state *st = ctx;
    return card_at(el, p, st->variant, &st->deck[n - 1 - i], e); /* JSON top first */
}

static int disc_elem(void *ctx, const json_t *el, const char *p, int i, int n, game_err *e)
{
    (void)n;
    pz_state *st = ctx;
    return card_at(el, p, st->variant, &st->disc[i], e);
}

static int hand_elem(void *ctx, const json_t *el, const char *p, int q, int n, game_err *e)
{
    (void)n;
    pz_state *st = ctx;
    int m;
    if (pz_cards_parse(el, p, st->variant, PZ_HMAX - 1, st->hand[q], &m, e))
        return ERR_BAD_MEMBER;
    st->nhand[q] = (uint8_t)m;
    if (st->result == PZ_PLAYING && (m == 0 || (m > PZ_DEAL && !(q == st->cur && st->mid))))
        return err_set(e, ERR_BAD_MEMBER, p, "a hand in play holds 1-10 cards (11 after a pick-up)");
    return 0;
}

static int state_table_elem(void *ctx, const json_t *el, const char *p, int q, int n, game_err *e)
{
    pz_state *st = ctx;
    pz_table_ctx c = {st->variant, 1, &st->t};
    return table_elem(&c, el, p, q, n, e);
}

static int log_elem(void *ctx, const json_t *le, const char *p, int i, int n, game_err *e)
{
    (void)n;
    pz_state *st = ctx;
    pz_log *l = &st->log[i];
    int r = st->result, lasthand = i ? st->log[i - 1].hand + 1 : 1;
    char q[288];
    long long x;
    if (jx_array(le, p, 3, 3, e))
        return ERR_BAD_MEMBER;
    jx_ptr_idx(q, sizeof q, p, 0);
    if (jx_int(json_array_get(le, 0), q, lasthand, st->hands_done + 1, &x, e))
        return ERR_BAD_MEMBER;
    l->hand = (uint8_t)(x - 1);
    if ((i >= st->hand_log) != (l->hand == st->hands_done - (r != PZ_PLAYING)))
        return err_set(e, ERR_BAD_MEMBER, q, "hand_log does not start the current hand");
    jx_ptr_idx(q, sizeof q, p, 1);
    if (jx_int(json_array_get(le, 1), q, 0, st->np - 1, &x, e))
        return ERR_BAD_MEMBER;
    l->seat = (uint8_t)x;
    const json_t *pl = json_array_get(le, 2);
    jx_ptr_idx(q, sizeof q, p, 2);
    if (json_is_null(pl)) {
        l->type = PZ_SKIPPED;
        return 0;
    }
    pz_play pp;
    if (pz_play_parse(pl, st->variant, &pp, e)) {
        err_prefix(e, q);
        return ERR_BAD_MEMBER;
    }
    if (pp.type == PZ_PICK_DECK && !pp.card)
        return err_set(e, ERR_BAD_MEMBER, q, "the full log names the card drawn");
    l->type = pp.type;
    l->card = pp.type == PZ_SKIP ? PZ_JOKER : pp.card;
    if (pp.type == PZ_PHASE) {
        if (st->nph >= PZ_MAXHANDS * PZ_MAXP)
            return err_set(e, ERR_BAD_MEMBER, q, "more phases than the hands allow");
        pz_phrec *rec = &st->ph[st->nph];
        rec->ng = pp.ng;
        memcpy(rec->gn, pp.gn, sizeof rec->gn);
        memcpy(rec->gc, pp.gc, sizeof rec->gc);
        l->a = pp.phase;
        l->b = st->nph++;
    } else if (pp.type == PZ_PLACE) {
        l->a = pp.pid;
        l->b = pp.grp;
        l->c = pp.idx;
    } else if (pp.type == PZ_SKIP) {
        l->a = pp.target;
    }
    return 0;
}

/* What the array rows check around their elements: `before` once the
 * count is stored (before the elements), `after` once every element is
 * read. */

static int hands_played_after(pz_state *st, game_err *e)
{
    char p[64];
    for (int q = 0; q < st->np; q++) {
        long sum = 0;
        for (int h = 0; h < st->hands_done; h++)
            sum += st->pen[h][q];
        if (sum != st->score[q]) {
            jx_ptr_idx(p, sizeof p, "/scores", (size_t)q);
            return err_set(e, ERR_BAD_MEMBER, p, "the score is not the sum of the hands' penalties");
        }
    }
    if (st->result == PZ_PLAYING && st->hands_done >= st->maxhands)
        return err_set(e, ERR_BAD_MEMBER, "/result", "every hand is played: the game is over");
    return 0;
}

static int deck_after(pz_state *st, game_err *e)
{
    if (st->result == PZ_PLAYING && st->ndeck == 0 && !(st->deck_out && st->mid))
        return err_set(e, ERR_BAD_MEMBER, "/deck", "an empty deck ends the hand");
    if (st->deck_out && st->ndeck)
        return err_set(e, ERR_BAD_MEMBER, "/deck_out", "the deck is not exhausted");
    return 0;
}

static int hands_after(pz_state *st, game_err *e)
{
    if (st->result == PZ_PLAYING && !st->mid && st->ndisc == 0)
        return err_set(e, ERR_BAD_MEMBER, "/discard_pile", "a turn starts with a discard pile");
    return 0;
}

static int table_after(pz_state *st, game_err *e)
{
    char p[64];
    int r = st->result, v = st->variant;
    for (int q = 0; q < st->np; q++) {
        int ph = st->t.phase[q];
        jx_ptr_idx(p, sizeof p, "/table", (size_t)q);
        /* The game ends with the hand in which a player completes their last
         * phase (pz_game.c end_game_check): the hand goes on after it, so a
         * player in play who completed every phase put the last one down in
         * this hand, and it lies on the table. */
        if (r == PZ_PLAYING && pz_all_done(v, st->status[q]) && !ph) {
            jx_ptr_idx(p, sizeof p, "/phase_status", (size_t)q);
            return err_set(e, ERR_BAD_MEMBER, p,
                           "the player completed every phase in an earlier hand: the game is over");
        }
        if (ph && !(v ? (st->status[q] >> (ph - 1)) & 1 : st->status[q] == ph))
            return err_set(e, ERR_BAD_MEMBER, p, "the phase on the table is not in the player's phase_status");
        for (int g = 0; g < st->t.ng[q] && ph; g++) {
            int kind = pz_group_kind(ph, g);
            if ((kind == PZ_K_ACC || kind == PZ_K_CACC) && !pz_acc_complete(pz_group_total(&st->t.g[q][g])) &&
                !(r == PZ_PLAYING && st->mid)) {
                snprintf(p, sizeof p, "/table/%d/1/%d", q, g);
                return err_set(e, ERR_BAD_MEMBER, p, "an accumulation is incomplete between turns");
            }
        }
    }
    return 0;
}

static int log_before(pz_state *st, game_err *e)
{
    if (st->hand_log > st->nlog)
        return err_set(e, ERR_BAD_MEMBER, "/hand_log", "past the end of the log");
    return 0;
}

/* The stored state's array members, in the order decode reads them: each
 * with its bounds, the member of pz_state that keeps its length (count_size
 * 0: none, one per player), its element decoder, and the checks around
 * them. */
enum { A_PLAYERS, A_HANDS, A_CARDS, A_LOG }; /* one per player; 0..max_hands; 0..the variant's cards; 0..PZ_MAXLOG */
typedef struct pz_array {
    const char *name;
    int bound; /* A_* */
    size_t count_off, count_size;
    pz_elem_fn elem;
    int (*before)(pz_state *st, game_err *e);
    int (*after)(pz_state *st, game_err *e);
} pz_array;

#define PZ_COUNT(member) offsetof(pz_state, member), sizeof(((pz_state *)0)->member)
#define PZ_NO_COUNT 0, 0
static const pz_array ARRAYS[] = {
    {"skip", A_PLAYERS, PZ_NO_COUNT, skip_elem, NULL, NULL},
    {"phase_status", A_PLAYERS, PZ_NO_COUNT, state_status_elem, NULL, NULL},
    {"scores", A_PLAYERS, PZ_NO_COUNT, score_elem, NULL, NULL},
    {"hands_played", A_HANDS, PZ_COUNT(hands_done), hand_played_elem, NULL, hands_played_after},
    {"deck", A_CARDS, PZ_COUNT(ndeck), deck_elem, NULL, deck_after},
    {"discard_pile", A_CARDS, PZ_COUNT(ndisc), disc_elem, NULL, NULL},
    {"hands", A_PLAYERS, PZ_NO_COUNT, hand_elem, NULL, hands_after},
    {"table", A_PLAYERS, PZ_NO_COUNT, state_table_elem, NULL, table_after},
    {"log", A_LOG, PZ_COUNT(nlog), log_elem, log_before, NULL},
};

static int read_arrays(pz_state *st, const json_t *j, game_err *e)
{
    for (size_t i = 0; i < sizeof ARRAYS / sizeof ARRAYS[0]; i++) {
        const pz_array *a = &ARRAYS[i];
        const json_t *v = jx_get(j, a->name);
        size_t lo = 0, hi = a->bound == A_PLAYERS ? st->np
                          : a->bound == A_HANDS   ? st->maxhands
                          : a->bound == A_CARDS   ? (st->variant ? PZ_NCARDS : PZ_DECK)
                                                  : PZ_MAXLOG;
        char p[64];
        if (a->bound == A_PLAYERS)
            lo = hi;
        jx_ptr_key(p, sizeof p, "", a->name);
        if (jx_array(v, p, lo, hi, e))
            return ERR_BAD_MEMBER;
        if (a->count_size)
            member_set(st, a->count_off, a->count_size, (long long)json_array_size(v));
        if (a->before && a->before(st, e))
            return ERR_BAD_MEMBER;
        if (walk_elems(v, p, a->elem, st, e) || (a->after && a->after(st, e)))
            return ERR_BAD_MEMBER;
    }
    return 0;
}

static int decode_body(pz_state *st, const json_t *j, game_err *e)
{
    const char *s;
    long long x;
    static const char *const variants[] = {"standard", "bonus", NULL};
    int v;
    if (jx_header(j, "phazed", variants, &v, e))
        return ERR_BAD_MEMBER;
    st->variant = (uint8_t)v;
    if (read_fields(st, j, e))
        return ERR_BAD_MEMBER;
    int np = st->np;
    if (jx_rng_decode(jx_get(j, "rng"), "/rng", &st->rng, e) ||
        jx_bot_key_decode(j, &st->bkey, e))
        return ERR_BAD_MEMBER;
    if (jx_string(jx_get(j, "result"), "/result", &s, e))
        return ERR_BAD_MEMBER;
    int r;
    for (r = PZ_PLAYING; r <= PZ_TIED; r++)
        if (strcmp(s, pz_result_name(r)) == 0)
            break;
    if (r > PZ_TIED)
        return err_set(e, ERR_BAD_MEMBER, "/result", "expected \"playing\", \"won\" or \"tied\"");
    st->result = (uint8_t)r;
    const json_t *w = jx_get(j, "winner");
    if (r == PZ_WON) {
        if (get_int(j, "winner", 0, np - 1, &x, e))
            return ERR_BAD_MEMBER;
        st->winner = (int8_t)x;
    } else {
        if (!w || !json_is_null(w))
            return err_set(e, ERR_BAD_MEMBER, "/winner", "expected null: the game has no single winner");
        st->winner = -1;
    }
    if (read_arrays(st, j, e))
        return ERR_BAD_MEMBER;
    if (pz_invariants(st, e)) {
        e->code = ERR_BAD_MEMBER;
        return ERR_BAD_MEMBER;
    }
    return 0;
}

int pz_invariants(const void *vst, game_err *e)
{
    const pz_state *st = vst;
    int ok = st->np >= PZ_MINP && st->np <= PZ_MAXP && st->cur < st->np && st->ndeck <= PZ_NCARDS &&
             st->ndisc <= PZ_NCARDS && st->nlog <= PZ_MAXLOG && st->nph <= PZ_MAXHANDS * PZ_MAXP;
    for (int q = 0; q < st->np && ok; q++) {
        ok &= st->nhand[q] <= PZ_HMAX && st->t.ng[q] <= 2;
        for (int g = 0; g < 2; g++)
            ok &= st->t.g[q][g].n <= PZ_GMAX;
    }
    if (!ok)
        return err_set(e, ERR_INTERNAL, "", "a count is beyond its capacity");
    /* conservation: two of each card (and four jokers in the bonus game) */
    int count[256] = {0};
    for (int i = 0; i < st->ndeck; i++) count[st->deck[i]]++;
    for (int i = 0; i < st->ndisc; i++) count[st->disc[i]]++;
    for (int q = 0; q < st->np; q++) {
        for (int i = 0; i < st->nhand[q]; i++) count[st->hand[q][i]]++;
        for (int g = 0; g < st->t.ng[q]; g++)
            for (int i = 0; i < st->t.g[q][g].n; i++) count[st->t.g[q][g].c[i]]++;
    }
    for (int c = 0; c < 256; c++) {
        int want = c == PZ_JOKER ? (st->variant ? 4 : 0) : c >= 1 && c < PZ_JOKER ? 2 : 0;
        if (count[c] != want)
            return err_set(e, ERR_INTERNAL, "", "card %s appears %d times in the state; the decks hold %d",
                           c >= 1 && c <= PZ_JOKER ? pz_card_name(c) : "?", count[c], want);
    }
    return 0;
}

int pz_decode(void *vout, const json_t *blob, game_err *e)
{
    pz_state *out = vout;
    /* decoded aside (the target stays untouched on error); the state is
     * ~100 KB, so on the heap rather than a server thread's stack */
    pz_state *st = calloc(1, sizeof *st);
    if (!st)
        return err_set(e, ERR_INTERNAL, "", "out of memory");
    int rc = decode_body(st, blob, e);
    if (rc == 0)
        memcpy(out, st, sizeof *st);
    free(st);
    return rc;
}

/* --- views -------------------------------------------------------------- */

static json_t *targets_json(const pz_table *t, int np)
{
    json_t *a = json_array();
    for (int p = 0; p < np; p++) {
        json_t *gs = json_array();
        for (int g = 0; g < t->ng[p] && t->phase[p]; g++) {
            int kind = pz_group_kind(t->phase[p], g);
            if (kind != PZ_K_ACC && kind != PZ_K_CACC) {
                json_array_append_new(gs, json_null());
                continue;
            }
            int tot = pz_group_total(&t->g[p][g]), nx = pz_acc_next(tot);
            json_array_append_new(gs, json_pack("{s:i,s:o,s:b}", "total", tot, "next",
                                                nx ? json_integer(nx) : json_null(), "complete",
                                                pz_acc_complete(tot)));
        }
        json_array_append_new(a, gs);
    }
    return a;
}

void pz_redeal(void *vst, int reader, uint64_t salt)
{
    pz_state *st = vst;
    if (st->result != PZ_PLAYING || st->revealed || reader == SEAT_ADMIN)
        return;
    rng_slots s = {.n = 0};
    for (int p = 0; p < st->np; p++)
        if (p != reader && reader != SEAT_OBSERVER)
            rng_slots_add(&s, st->hand[p], st->nhand[p]);
    rng_slots_add(&s, st->deck, st->ndeck);
    rng_slots_shuffle(&s, salt);
}

json_t *pz_view(const void *vst, int seat)
{
    const pz_state *st = vst;
    int over = st->result != PZ_PLAYING;
    int all = over || st->revealed; /* every card to every reader */
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("phazed"));
    json_object_set_new(o, "variant", json_string(variant_name(st->variant)));
    json_object_set_new(o, "players", json_integer(st->np));
    json_object_set_new(o, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(o, "over", json_boolean(over));
    json_object_set_new(o, "result", json_string(pz_result_name(st->result)));
    json_object_set_new(o, "winner", st->winner >= 0 ? json_integer(st->winner) : json_null());
    if (over) {
        json_t *ws = json_array();
        unsigned won = pz_winners(st);
        for (int p = 0; p < st->np; p++)
            if (won >> p & 1u)
                json_array_append_new(ws, json_integer(p));
        json_object_set_new(o, "winners", ws);
    }
    json_object_set_new(o, "hand_number", json_integer(st->hands_done + (over ? 0 : 1)));
    json_object_set_new(o, "max_hands", json_integer(st->maxhands));
    json_object_set_new(o, "dealer", json_integer(st->dealer));
    json_object_set_new(o, "current", over ? json_null() : json_integer(st->cur));
    json_object_set_new(o, "turn_phase", json_string(over ? "over" : st->mid ? "play" : "pick-up"));
    json_object_set_new(o, "turns_this_hand", json_integer(st->turns_hand));
    json_object_set_new(o, "deck_size", json_integer(st->ndeck));
    json_object_set_new(o, "discard", pz_card_json(st->ndisc ? st->disc[st->ndisc - 1] : 0));
    json_object_set_new(o, "discard_pile", pz_cards_json(st->disc, st->ndisc));
    json_object_set_new(o, "hand_sizes", jx_u8_array(st->nhand, st->np));
    if (seat >= 0 && seat < st->np)
        json_object_set_new(o, "hand", pz_cards_json(st->hand[seat], st->nhand[seat]));
    json_object_set_new(o, "table", pz_table_json(&st->t, st->np));
    json_object_set_new(o, "accumulations", targets_json(&st->t, st->np));
    json_object_set_new(o, "phase_status", pz_status_json(st->variant, st->status, st->np));
    json_object_set_new(o, "scores", jx_u16_array(st->score, st->np));
    json_object_set_new(o, "hands_played", results_json(st));
    if (st->variant)
        json_object_set_new(o, "skips_pending", bools_json(st->skip, st->np));
    json_object_set_new(o, "turn_history", pz_turn_history(st, seat));
    if (seat == SEAT_ADMIN || seat == SEAT_OBSERVER || all)
        json_object_set_new(o, "hands", hands_json(st));
    if (seat == SEAT_ADMIN || all)
        json_object_set_new(o, "deck", deck_json(st));
    return o;
}

json_t *pz_events(const void *vst, int seat, long after)
{
    const pz_state *st = vst;
    json_t *a = json_array();
    long n = 0;
    long sum[PZ_MAXP] = {0};
    for (int i = 0; i < st->nlog; i++) {
        const pz_log *l = &st->log[i];
        if (++n > after) {
            json_t *ev = json_pack("{s:i,s:s,s:i,s:i}", "n", (int)n, "event",
                                   l->type == PZ_SKIPPED ? "skipped" : "play", "hand", l->hand + 1,
                                   "seat", l->seat);
            if (l->type != PZ_SKIPPED)
                json_object_set_new(ev, "play", log_play(st, l, sees_hand(st, seat, l->seat)));
            json_array_append_new(a, ev);
        }
        int last_of_hand = i + 1 == st->nlog || st->log[i + 1].hand != l->hand;
        if (last_of_hand && l->hand < st->hands_done) {
            int h = l->hand;
            for (int p = 0; p < st->np; p++)
                sum[p] += st->pen[h][p];
            if (++n > after) {
                json_t *tot = json_array();
                for (int p = 0; p < st->np; p++)
                    json_array_append_new(tot, json_integer(sum[p]));
                json_array_append_new(a, json_pack("{s:i,s:s,s:i,s:s,s:o,s:o}", "n", (int)n, "event",
                                                   "hand_over", "hand", h + 1, "reason",
                                                   pz_end_name(st->end_reason[h]), "penalties",
                                                   jx_u16_array(st->pen[h], st->np), "scores", tot));
            }
        }
    }
    if (st->result != PZ_PLAYING && ++n > after)
        json_array_append_new(a, json_pack("{s:i,s:s,s:s,s:o}", "n", (int)n, "event", "game_over", "result",
                                           pz_result_name(st->result), "winner",
                                           st->winner >= 0 ? json_integer(st->winner) : json_null()));
    return a;
}

json_t *pz_record(const pz_state *st, int seat, const pz_play *p, const pz_effect *fx,
                  const char *explanation)
{
    json_t *o = json_object();
    pz_play shown = *p;
    if (shown.type == PZ_PICK_DECK)
        shown.card = 0;
    /* its number in pz_history(): its log index + 1 (the skipped turns it
     * caused are logged after it) */
    int n = st->nlog;
    while (n > 0 && st->log[n - 1].type == PZ_SKIPPED)
        n--;
    json_object_set_new(o, "n", json_integer(n));
    json_object_set_new(o, "seat", json_integer(seat));
    json_object_set_new(o, "play", shown.type == PZ_PICK_DECK ? json_pack("[i,s]", 1, "XX") : pz_play_json(&shown));
    json_object_set_new(o, "turn_ending", json_boolean(fx->turn_ending));
    if (fx->skipped[0] >= 0) {
        json_t *sk = json_array();
        for (int i = 0; i < PZ_MAXP && fx->skipped[i] >= 0; i++)
            json_array_append_new(sk, json_integer(fx->skipped[i]));
        json_object_set_new(o, "skipped", sk);
    }
    if (fx->hand_over) {
        int h = fx->hand_over - 1;
        json_object_set_new(o, "hand_over",
                            json_pack("{s:i,s:s,s:o,s:o}", "hand", h + 1, "reason", pz_end_name(fx->end_reason),
                                      "penalties", jx_u16_array(st->pen[h], st->np), "scores",
                                      jx_u16_array(st->score, st->np)));
    }
    if (fx->game_over)
        json_object_set_new(o, "game_over", json_pack("{s:s,s:o}", "result", pz_result_name(st->result), "winner",
                                                      st->winner >= 0 ? json_integer(st->winner) : json_null()));
    if (explanation)
        json_object_set_new(o, "explanation", json_string(explanation));
    return o;
}
