/* hn_codec.c: JSON for Hanabi: plays (our form and the seed's numeric
 * form), the stored state, per-seat views, history records.
 *
 * The stored state is the game's input, not its position: variant, player
 * count, end option, starting player, the dealt deck in draw order, the
 * RNGs and the actions. decode() checks the deck is exactly the variant's
 * cards and replays every action through hn_judge()/hn_do(), so a hostile
 * blob can only yield a position the rules reach. Views show a card its
 * reader may not see (hn_sees: a seat's own cards, every hand card to
 * SEAT_SPECTATOR) as "??" with what hints told about it, and the deck
 * order only to SEAT_ADMIN, or to everyone once the game is over.
 */
#include "hn.h"

#include "core/jsonx.h"
#include "core/jw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TYPE_NAMES[] = {"hint", "hint", "discard", "play"};

/* --- plays ----------------------------------------------------------------- */

/* Built member by member: every record and legal list holds plays, and
 * json_pack reads its format each time. */
json_t *hn_play_json(const void *vp)
{
    const hn_play *p = vp;
    json_t *o = json_object();
    int hint = p->type == HN_HINT_COLOR || p->type == HN_HINT_NUMBER;
    json_object_set_new_nocheck(o, "type",
                                json_string_nocheck(hint ? "hint" : TYPE_NAMES[p->type == HN_DISCARD ? 2 : 3]));
    if (!hint) {
        json_object_set_new_nocheck(o, "card", json_integer(p->target));
        return o;
    }
    json_object_set_new_nocheck(o, "target", json_integer(p->target));
    if (p->type == HN_HINT_COLOR) {
        char col = hn_color_letter(p->value);
        json_object_set_new_nocheck(o, "color", json_stringn_nocheck(&col, 1));
    } else {
        json_object_set_new_nocheck(o, "number", json_integer(p->value));
    }
    return o;
}

static int int_member(const json_t *j, const char *key, int *out, game_err *e)
{
    char p[64];
    const json_t *v = json_object_get(j, key);
    jx_ptr_key(p, sizeof p, "", key);
    if (!v)
        return err_set(e, ERR_BAD_MEMBER, p, "required integer is missing");
    if (!json_is_integer(v))
        return err_set(e, ERR_BAD_MEMBER, p, "expected an integer");
    json_int_t x = json_integer_value(v);
    *out = x < -1000 ? -1000 : x > 1000 ? 1000 : (int)x;
    return 0;
}

static int parse_ours(const json_t *j, hn_play *out, game_err *e)
{
    static const char *const HINT_KEYS[] = {"type", "target", "color", "number", NULL};
    static const char *const CARD_KEYS[] = {"type", "card", NULL};
    const char *t;
    if (jx_string(json_object_get(j, "type"), "/type", &t, e))
        return ERR_BAD_MEMBER;
    if (strcmp(t, "hint") == 0) {
        if (jx_known(j, "", HINT_KEYS, e) || int_member(j, "target", &out->target, e))
            return ERR_BAD_MEMBER;
        const json_t *c = json_object_get(j, "color"), *n = json_object_get(j, "number");
        if (c && n)
            return err_set(e, ERR_BAD_MEMBER, "/number", "a hint names a colour or a number, not both");
        if (!c && !n)
            return err_set(e, ERR_BAD_MEMBER, "/color", "a hint names a colour or a number");
        if (c) {
            const char *s;
            if (jx_string(c, "/color", &s, e))
                return ERR_BAD_MEMBER;
            if (strlen(s) != 1 || hn_color_parse(s[0]) < 0)
                return err_set(e, ERR_BAD_MEMBER, "/color", "expected a colour letter: R Y B G W (M, rainbow, cannot be named)");
            out->type = HN_HINT_COLOR;
            out->value = hn_color_parse(s[0]);
            return 0;
        }
        long long x;
        if (jx_int(n, "/number", 1, 5, &x, e))
            return ERR_BAD_MEMBER;
        out->type = HN_HINT_NUMBER;
        out->value = (int)x;
        return 0;
    }
    if (strcmp(t, "play") != 0 && strcmp(t, "discard") != 0)
        return err_set(e, ERR_BAD_MEMBER, "/type", "expected \"hint\", \"play\" or \"discard\"");
    if (jx_known(j, "", CARD_KEYS, e) || int_member(j, "card", &out->target, e))
        return ERR_BAD_MEMBER;
    out->type = strcmp(t, "play") == 0 ? HN_PLAY : HN_DISCARD;
    return 0;
}

/* An unused member of the numeric form: absent, null or an integer. */
static int unused_ok(const json_t *j, const char *key, game_err *e)
{
    const json_t *v = json_object_get(j, key);
    char p[64];
    jx_ptr_key(p, sizeof p, "", key);
    if (v && !json_is_null(v) && !json_is_integer(v))
        return err_set(e, ERR_BAD_MEMBER, p, "expected an integer or null");
    return 0;
}

static int parse_seed(const json_t *j, hn_play *out, game_err *e)
{
    static const char *const KEYS[] = {"actionType", "target", "color", "number", NULL};
    long long a, x;
    if (jx_known(j, "", KEYS, e) || jx_int(json_object_get(j, "actionType"), "/actionType", 0, 3, &a, e) ||
        int_member(j, "target", &out->target, e))
        return ERR_BAD_MEMBER;
    out->type = (int)a;
    if (a == HN_HINT_COLOR) {
        if (jx_int(json_object_get(j, "color"), "/color", 0, 5, &x, e) || unused_ok(j, "number", e))
            return ERR_BAD_MEMBER;
        out->value = (int)x;
    } else if (a == HN_HINT_NUMBER) {
        if (jx_int(json_object_get(j, "number"), "/number", 1, 5, &x, e) || unused_ok(j, "color", e))
            return ERR_BAD_MEMBER;
        out->value = (int)x;
    } else if (unused_ok(j, "color", e) || unused_ok(j, "number", e)) {
        return ERR_BAD_MEMBER;
    }
    return 0;
}

int hn_play_parse(const void *st, const json_t *j, void *vout, game_err *e)
{
    hn_play *out = vout;
    (void)st; /* a play's shape is the same in every state */
    memset(out, 0, sizeof *out);
    if (jx_object(j, "", e))
        return ERR_BAD_MEMBER;
    int ours = json_object_get(j, "type") != NULL, seed = json_object_get(j, "actionType") != NULL;
    if (ours && seed)
        return err_set(e, ERR_BAD_MEMBER, "/actionType", "use either \"type\" (our form) or \"actionType\" (the seed's), not both");
    if (!ours && !seed)
        return err_set(e, ERR_BAD_MEMBER, "/type", "required member \"type\" (or the seed's \"actionType\") is missing");
    int rc = ours ? parse_ours(j, out, e) : parse_seed(j, out, e);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

/* --- options ------------------------------------------------------------------ */

int hn_options(const json_t *options, int *endrule, game_err *e)
{
    *endrule = HN_RULE_SEED;
    if (!options || json_is_null(options))
        return 0;
    if (jx_object(options, "/options", e))
        return ERR_BAD_MEMBER;
    static const char *const OPTIONS[] = {"end", NULL};
    const json_t *x = json_object_get(options, "end");
    const char *s;
    if (jx_known(options, "/options", OPTIONS, e))
        return ERR_BAD_MEMBER;
    if (!x)
        return 0;
    if (!json_is_string(x) ||
        (strcmp(s = json_string_value(x), "seed") != 0 && strcmp(s, "standard") != 0))
        return err_set(e, ERR_BAD_MEMBER, "/options/end", "expected \"seed\" or \"standard\"");
    *endrule = strcmp(s, "standard") == 0 ? HN_RULE_STANDARD : HN_RULE_SEED;
    return 0;
}

static const char *endrule_name(int r) { return r == HN_RULE_STANDARD ? "standard" : "seed"; }
static const char *variant_name(int v) { return v ? "rainbow" : "standard"; }

/* --- stored state ------------------------------------------------------------ */

static json_t *cards_json(const uint8_t *c, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(hn_card_name(c[i])));
    return a;
}

static json_t *hist_play(const hn_hist *h)
{
    hn_play p = {h->type, h->target, h->value};
    return hn_play_json(&p);
}

json_t *hn_encode(const void *vst)
{
    const hn_state *st = vst;
    char seed[17];
    snprintf(seed, sizeof seed, "%016" PRIx64, st->seed);
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("hanabi"));
    json_object_set_new(o, "variant", json_string(variant_name(st->variant)));
    json_object_set_new(o, "players", json_integer(st->np));
    json_t *opts = json_object();
    json_object_set_new_nocheck(opts, "end", json_string_nocheck(endrule_name(st->endrule)));
    json_object_set_new(o, "options", opts);
    json_object_set_new(o, "seed", json_string(seed));
    json_object_set_new(o, "rng", jx_rng_encode(&st->rng));
    json_object_set_new(o, "first", json_integer(st->first));
    json_object_set_new(o, "deck", cards_json(st->deck, st->ndeck));
    json_t *a = json_array();
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(a, jx_obj(2, "seat", json_integer(st->hist[i].seat), "play",
                                        hist_play(&st->hist[i])));
    json_object_set_new(o, "actions", a);
    return o;
}

static int decode_body(hn_state *st, const json_t *j, game_err *e)
{
    static const char *const KEYS[] = {"game", "variant", "players", "options", "seed", "rng",
                                       "bot_rng", "first", "deck", "actions", NULL};
    const char *s;
    long long x;
    char p[192], q[224];
    if (jx_object(j, "", e))
        return ERR_BAD_MEMBER;
    if (jx_known(j, "", KEYS, e))
        return ERR_BAD_MEMBER;
    static const char *const variants[] = {"standard", "rainbow", NULL};
    int variant;
    if (jx_header(j, "hanabi", variants, &variant, e))
        return ERR_BAD_MEMBER;
    if (jx_int(jx_get(j, "players"), "/players", HN_MINP, HN_MAXP, &x, e))
        return ERR_BAD_MEMBER;
    int np = (int)x, endrule;
    const json_t *opt = jx_get(j, "options");
    if (!opt)
        return err_set(e, ERR_BAD_MEMBER, "/options", "required object is missing");
    if (hn_options(opt, &endrule, e))
        return ERR_BAD_MEMBER;
    if (jx_string(jx_get(j, "seed"), "/seed", &s, e))
        return ERR_BAD_MEMBER;
    if (jx_hex64(s, &st->seed))
        return err_set(e, ERR_BAD_MEMBER, "/seed", "expected up to 16 hex digits");
    /* the bots' key is the seed; "bot_rng", the bots' generator a state of
     * an earlier release carries, is checked as then and not kept */
    rng old;
    if (jx_rng_decode(jx_get(j, "rng"), "/rng", &st->rng, e) ||
        (jx_get(j, "bot_rng") && jx_rng_decode(jx_get(j, "bot_rng"), "/bot_rng", &old, e)))
        return ERR_BAD_MEMBER;
    if (jx_int(jx_get(j, "first"), "/first", 0, np - 1, &x, e))
        return ERR_BAD_MEMBER;
    int first = (int)x, nsuits = variant ? 6 : 5, ndeck = nsuits * 10;
    const json_t *d = jx_get(j, "deck");
    if (jx_array(d, "/deck", (size_t)ndeck, (size_t)ndeck, e))
        return ERR_BAD_MEMBER;
    uint8_t deck[HN_MAXDECK];
    int count[31] = {0};
    for (int i = 0; i < ndeck; i++) {
        jx_ptr_idx(p, sizeof p, "/deck", (size_t)i);
        if (jx_string(json_array_get(d, (size_t)i), p, &s, e))
            return ERR_BAD_MEMBER;
        int c = hn_card_parse(s, nsuits);
        if (!c)
            return err_set(e, ERR_BAD_MEMBER, p, "expected a card of the %s variant (e.g. \"R3\"), got \"%.16s\"",
                           variant_name(variant), s);
        if (++count[c] > hn_copies(hn_rank(c)))
            return err_set(e, ERR_BAD_MEMBER, p, "one %s too many: the deck holds %d", hn_card_name(c),
                           hn_copies(hn_rank(c)));
        deck[i] = (uint8_t)c;
    }
    hn_start(st, variant, np, endrule, first, deck, ndeck);

    const json_t *acts = jx_get(j, "actions");
    if (jx_array(acts, "/actions", 0, HN_MAXHIST, e))
        return ERR_BAD_MEMBER;
    for (size_t i = 0; i < json_array_size(acts); i++) {
        const json_t *a = json_array_get(acts, i);
        jx_ptr_idx(p, sizeof p, "/actions", i);
        if (jx_object(a, p, e))
            return ERR_BAD_MEMBER;
        if (st->over)
            return err_set(e, ERR_BAD_MEMBER, p, "an action after the end of the game");
        jx_ptr_key(q, sizeof q, p, "seat");
        if (jx_int(jx_get(a, "seat"), q, 0, np - 1, &x, e))
            return ERR_BAD_MEMBER;
        if (x != st->cur)
            return err_set(e, ERR_BAD_MEMBER, q, "it was player %d's turn", st->cur);
        jx_ptr_key(q, sizeof q, p, "play");
        hn_play pl;
        if (hn_play_parse(NULL, jx_get(a, "play"), &pl, e)) {
            err_prefix(e, q);
            return ERR_BAD_MEMBER;
        }
        char why[200];
        if (!hn_judge(st, &pl, why, sizeof why, NULL))
            return err_set(e, ERR_BAD_MEMBER, q, "an illegal play: %s", why);
        hn_do(st, &pl);
    }
    return 0;
}

int hn_decode(void *vout, const json_t *blob, game_err *e)
{
    hn_state *out = vout;
    hn_state st;
    memset(&st, 0, sizeof st);
    int rc = decode_body(&st, blob, e);
    if (rc)
        return rc;
    memcpy(out, &st, sizeof st);
    return 0;
}

/* --- views -------------------------------------------------------------------- */

void hn_possible(const hn_state *st, const hn_know *k, int *cols, int *nums)
{
    *cols = 0;
    *nums = 0;
    for (int s = 0; s < st->nsuits; s++) {
        int ok = 1;
        for (int c = 0; c < 5; c++) {
            int hit = s == c || (st->variant && s == HN_RAINBOW);
            if ((k->pos_col >> c & 1) && !hit)
                ok = 0;
            if ((k->neg_col >> c & 1) && hit)
                ok = 0;
        }
        if (ok)
            *cols |= 1 << s;
    }
    for (int n = 1; n <= 5; n++) {
        int ok = !(k->neg_num >> n & 1);
        for (int m = 1; m <= 5; m++)
            if ((k->pos_num >> m & 1) && m != n)
                ok = 0;
        if (ok)
            *nums |= 1 << n;
    }
}

/* {"colors": [...], "numbers": [...]} of two bit masks. */
static void marks_text(jw *w, int cols, int nums)
{
    jw_obj(w);
    jw_key(w, "colors");
    jw_arr(w);
    for (int c = 0; c < 6; c++)
        if (cols >> c & 1) {
            char l = hn_color_letter(c);
            jw_strn(w, &l, 1);
        }
    jw_end(w);
    jw_key(w, "numbers");
    jw_arr(w);
    for (int n = 1; n <= 5; n++)
        if (nums >> n & 1)
            jw_int(w, n);
    jw_end(w);
    jw_end(w);
}

/* The marks of one view: most cards share theirs (nothing touched, nothing
 * ruled out, everything possible), so each distinct one is written once
 * and copied where it comes again. */
typedef struct {
    int n;
    int key[3 * HN_MAXP * HN_MAXHAND];
    size_t from[3 * HN_MAXP * HN_MAXHAND], to[3 * HN_MAXP * HN_MAXHAND];
} marks_memo;

static void marks_shared(jw *w, marks_memo *m, int cols, int nums)
{
    int key = cols << 8 | nums;
    for (int i = 0; i < m->n; i++)
        if (m->key[i] == key) {
            jw_copy(w, m->from[i], m->to[i]);
            return;
        }
    size_t from = jw_mark(w);
    marks_text(w, cols, nums);
    if (m->n < (int)(sizeof m->key / sizeof m->key[0])) {
        m->key[m->n] = key;
        m->from[m->n] = from;
        m->to[m->n++] = jw_at(w);
    }
}

static void card_text(jw *w, const hn_state *st, int p, int i, int hidden, marks_memo *m)
{
    const hn_know *k = &st->know[p][i];
    int cols, nums;
    hn_possible(st, k, &cols, &nums);
    jw_obj(w);
    jw_key(w, "card");
    jw_str(w, hidden ? "??" : hn_card_name(st->hand[p][i]));
    jw_key(w, "touched");
    marks_shared(w, m, k->pos_col, k->pos_num);
    jw_key(w, "not");
    marks_shared(w, m, k->neg_col, k->neg_num);
    jw_key(w, "possible");
    marks_shared(w, m, cols, nums);
    jw_end(w);
}

static void cards_text(jw *w, const uint8_t *c, int n)
{
    jw_arr(w);
    for (int i = 0; i < n; i++)
        jw_str(w, hn_card_name(c[i]));
    jw_end(w);
}

static void int_or_null(jw *w, int is_int, long long v)
{
    if (is_int)
        jw_int(w, v);
    else
        jw_null(w);
}

char *hn_view_text(const void *vst, int seat, size_t *len)
{
    const hn_state *st = vst;
    jw w;
    jw_init(&w);
    jw_obj(&w);
    jw_key(&w, "game");
    jw_str(&w, "hanabi");
    jw_key(&w, "variant");
    jw_str(&w, variant_name(st->variant));
    jw_key(&w, "options");
    jw_obj(&w);
    jw_key(&w, "end");
    jw_str(&w, endrule_name(st->endrule));
    jw_end(&w);
    jw_key(&w, "players");
    jw_int(&w, st->np);
    jw_key(&w, "seat");
    int_or_null(&w, seat >= 0, seat);
    jw_key(&w, "first");
    jw_int(&w, st->first);
    jw_key(&w, "current");
    int_or_null(&w, !st->over, st->cur);
    jw_key(&w, "turn");
    jw_int(&w, st->nhist + (st->over ? 0 : 1));
    jw_key(&w, "turns");
    jw_int(&w, st->nhist);
    jw_key(&w, "hands");
    jw_arr(&w);
    marks_memo memo;
    memo.n = 0;
    for (int p = 0; p < st->np; p++) {
        jw_arr(&w);
        for (int i = 0; i < st->nhand[p]; i++)
            card_text(&w, st, p, i, !hn_sees(st, seat, p), &memo);
        jw_end(&w);
    }
    jw_end(&w);
    jw_key(&w, "fireworks");
    jw_obj(&w);
    for (int k = 0; k < st->nsuits; k++) {
        char s[2] = {hn_color_letter(k), 0};
        jw_key(&w, s);
        jw_int(&w, st->fire[k]);
    }
    jw_end(&w);
    jw_key(&w, "discard");
    cards_text(&w, st->disc, st->ndisc);
    jw_key(&w, "hints");
    jw_int(&w, st->hints);
    jw_key(&w, "errors");
    jw_int(&w, st->errors);
    jw_key(&w, "max_hints");
    jw_int(&w, HN_MAXHINTS);
    jw_key(&w, "max_errors");
    jw_int(&w, HN_MAXERRORS);
    jw_key(&w, "deck");
    jw_int(&w, st->ndeck - st->next);
    jw_key(&w, "score");
    jw_int(&w, hn_score(st));
    jw_key(&w, "max_score");
    jw_int(&w, hn_max_score(st));
    jw_key(&w, "over");
    jw_bool(&w, st->over);
    jw_key(&w, "result");
    jw_str(&w, hn_result_name(st));
    jw_key(&w, "end_reason");
    int_or_null(&w, st->over, st->reason);
    jw_key(&w, "final_turns_left");
    int_or_null(&w, st->final_left >= 0 && !st->over, st->final_left);
    if (seat == SEAT_ADMIN || st->over || st->revealed) { /* the cards never drawn: hidden from every seat */
        jw_key(&w, "deck_order");
        cards_text(&w, st->deck + st->next, st->ndeck - st->next);
    }
    if (seat == SEAT_ADMIN) {
        char seed[17];
        snprintf(seed, sizeof seed, "%016" PRIx64, st->seed);
        jw_key(&w, "seed");
        jw_str(&w, seed);
    }
    jw_end(&w);
    return jw_take(&w, len);
}

json_t *hn_view(const void *vst, int seat)
{
    const hn_state *st = vst;
    size_t len = 0;
    char *text = hn_view_text(st, seat, &len);
    json_t *v = text ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    return v;
}

/* --- history ------------------------------------------------------------------ */

json_t *hn_record(const hn_state *st, int i, int seat, const char *explanation)
{
    const hn_hist *h = &st->hist[i];
    json_t *o = jx_obj(4, "n", json_integer(i + 1), "seat", json_integer(h->seat), "play", hist_play(h),
                       "turn_ending", json_true()); /* every Hanabi action is a whole turn */
    if (h->type == HN_HINT_COLOR || h->type == HN_HINT_NUMBER) {
        json_t *t = json_array();
        for (int k = 0; k < HN_MAXHAND; k++)
            if (h->touched >> k & 1)
                json_array_append_new(t, json_integer(k));
        json_object_set_new(o, "touched", t);
    } else {
        json_object_set_new(o, "card", json_string(hn_card_name(h->card)));
        if (h->type == HN_PLAY)
            json_object_set_new(o, "correct", json_boolean(h->correct));
        if (!h->drew)
            json_object_set_new(o, "drew", json_null());
        else
            json_object_set_new(o, "drew", json_string(hn_sees(st, seat, h->seat) ? hn_card_name(h->drew) : "??"));
    }
    if (explanation)
        json_object_set_new(o, "explanation", json_string(explanation));
    return o;
}

json_t *hn_history(const void *vst, int seat)
{
    const hn_state *st = vst;
    json_t *a = json_array();
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(a, hn_record(st, i, seat, NULL));
    return a;
}
