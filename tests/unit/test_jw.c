/* test_jw.c: engine/core/jw.c writes jansson's bytes, and Hanabi's view
 * written with it (hn_view_text) is the view as it was built before, as a
 * jansson tree.
 *
 * References: (1) jansson's json_dumps(JSON_COMPACT | JSON_ENSURE_ASCII) of
 * generated values (every type, strings of random code points, repeated
 * parts written with jw_copy), each written through jw by a walk of the
 * tree; and what jw refuses (a value without a name in an object, a name
 * outside one, containers left open or nested too deep, bytes that are not
 * UTF-8). (2) The view built as a tree, kept below as it was in
 * engine/hanabi/hn_codec.c before the view was written as text
 * (ref_view and its helpers, verbatim but for the names): its json_dumps
 * against hn_view_text, and hn_view (the text parsed) json_equal to it, for
 * every reader (each seat, the spectator, the observer, the admin) at every
 * position of bot and random games of both variants, 2 to 5 players, both
 * end rules, and once more after reveal(). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "testkit.h"
#include "core/jw.h"
#include "hanabi/hn.h"

extern const game_ops hanabi_ops;
#define OPS (&hanabi_ops)
#define DUMP_FLAGS (JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY)

static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { return tk_rnd(&rs); }

/* --- (1) jw against json_dumps ---------------------------------------------- */

/* j written through jw; a value met again (a shared reference) is copied
 * from where it was written first. */
typedef struct {
    const json_t *j[64];
    size_t from[64], to[64];
    int n;
} seen;

static void walk(jw *w, const json_t *j, seen *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->j[i] == j) {
            jw_copy(w, s->from[i], s->to[i]);
            return;
        }
    size_t from = jw_mark(w);
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *v;
        jw_obj(w);
        json_object_foreach((json_t *)j, k, v) {
            jw_key(w, k);
            walk(w, v, s);
        }
        jw_end(w);
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *v;
        jw_arr(w);
        json_array_foreach(j, i, v)
            walk(w, v, s);
        jw_end(w);
        break;
    }
    case JSON_STRING:
        if (rnd() & 1)
            jw_strn(w, json_string_value(j), json_string_length(j));
        else
            jw_str(w, json_string_value(j));
        break;
    case JSON_INTEGER: jw_int(w, json_integer_value(j)); break;
    case JSON_TRUE: case JSON_FALSE: jw_bool(w, json_is_true(j)); break;
    case JSON_NULL: jw_null(w); break;
    default: fail_msg("no reals here");
    }
    if (j->refcount > 1 && s->n < 64) {
        s->j[s->n] = j;
        s->from[s->n] = from;
        s->to[s->n++] = jw_at(w);
    }
}

static void test_jw_writes_jansson_bytes(void **unused)
{
    (void)unused;
    long copies = 0;
    for (int t = 0; t < 20000; t++) {
        json_t *j = tk_rnd_value(&rs, 0, JW_MAX_DEPTH - 1, 0, 0, 1);
        char *want = json_dumps(j, DUMP_FLAGS);
        jw w;
        jw_init(&w);
        seen s = {.n = 0};
        walk(&w, j, &s);
        copies += s.n;
        size_t len = 0;
        char *got = jw_take(&w, &len);
        if (!got || strcmp(got, want) != 0)
            fail_msg("value %d:\n json_dumps %s\n jw         %s", t, want, got ? got : "(null)");
        assert_int_equal(len, strlen(want));
        free(want);
        free(got);
        json_decref(j);
    }
    assert_true(copies > 1000);
}

static char *take(jw *w) { return jw_take(w, NULL); }

static void test_jw_refuses(void **unused)
{
    (void)unused;
    jw w;
    jw_init(&w); /* a value in an object without its name */
    jw_obj(&w);
    jw_int(&w, 1);
    jw_end(&w);
    assert_null(take(&w));
    jw_init(&w); /* a name outside an object */
    jw_arr(&w);
    jw_key(&w, "a");
    jw_null(&w);
    jw_end(&w);
    assert_null(take(&w));
    jw_init(&w); /* a name without its value */
    jw_obj(&w);
    jw_key(&w, "a");
    jw_end(&w);
    assert_null(take(&w));
    jw_init(&w); /* two values at the top */
    jw_int(&w, 1);
    jw_int(&w, 2);
    assert_null(take(&w));
    jw_init(&w); /* left open */
    jw_arr(&w);
    jw_int(&w, 1);
    assert_null(take(&w));
    jw_init(&w); /* closed once too often */
    jw_arr(&w);
    jw_end(&w);
    jw_end(&w);
    assert_null(take(&w));
    jw_init(&w); /* too deep */
    for (int i = 0; i <= JW_MAX_DEPTH; i++)
        jw_arr(&w);
    for (int i = 0; i <= JW_MAX_DEPTH; i++)
        jw_end(&w);
    assert_null(take(&w));
    jw_init(&w); /* not UTF-8: json_dumps refuses such a string too */
    jw_arr(&w);
    jw_str(&w, "ok\xff");
    jw_end(&w);
    assert_null(take(&w));
    jw_init(&w); /* a copy of bytes not yet written */
    jw_arr(&w);
    jw_copy(&w, 0, 10);
    jw_end(&w);
    assert_null(take(&w));
    /* and the writer is empty and usable after each */
    jw_arr(&w);
    jw_int(&w, -7);
    jw_str(&w, "\"\t\xc3\xa9");
    jw_obj(&w);
    jw_key(&w, "");
    jw_bool(&w, 0);
    jw_end(&w);
    jw_end(&w);
    char *t = take(&w);
    assert_non_null(t);
    assert_string_equal(t, "[-7,\"\\\"\\t\\u00E9\",{\"\":false}]");
    free(t);
    jw_init(&w); /* nothing written: nothing to give */
    assert_null(take(&w));
}

/* --- (2) Hanabi's view: the tree it was built as, the reference ------------- */

static const char *endrule_name(int r) { return r == HN_RULE_STANDARD ? "standard" : "seed"; }
static const char *variant_name(int v) { return v ? "rainbow" : "standard"; }

static json_t *cards_json(const uint8_t *c, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(hn_card_name(c[i])));
    return a;
}

static json_t *colors_json(int mask)
{
    json_t *a = json_array();
    for (int c = 0; c < 6; c++)
        if (mask >> c & 1) {
            char s = hn_color_letter(c);
            json_array_append_new(a, json_stringn_nocheck(&s, 1));
        }
    return a;
}

static json_t *numbers_json(int mask)
{
    json_t *a = json_array();
    for (int n = 1; n <= 5; n++)
        if (mask >> n & 1)
            json_array_append_new(a, json_integer(n));
    return a;
}

/* {"colors": [...], "numbers": [...]}; built member by member (json_pack
 * reads its format for every card of every view: a third of a view). */
static json_t *marks_json(int cols, int nums)
{
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "colors", colors_json(cols));
    json_object_set_new_nocheck(o, "numbers", numbers_json(nums));
    return o;
}

/* The marks of one view: most cards share theirs (nothing touched, nothing
 * ruled out, everything possible), so each distinct one is built once and
 * shared by reference (nothing changes a view's values once built). */
typedef struct {
    int n;
    int key[3 * HN_MAXP * HN_MAXHAND];
    json_t *val[3 * HN_MAXP * HN_MAXHAND];
} marks_memo;

static json_t *marks_shared(marks_memo *m, int cols, int nums)
{
    int key = cols << 8 | nums;
    for (int i = 0; i < m->n; i++)
        if (m->key[i] == key)
            return json_incref(m->val[i]);
    json_t *v = marks_json(cols, nums);
    if (v && m->n < (int)(sizeof m->key / sizeof m->key[0])) {
        m->key[m->n] = key;
        m->val[m->n++] = v;
        json_incref(v);
    }
    return v;
}

static json_t *card_view(const hn_state *st, int p, int i, int hidden, marks_memo *m)
{
    const hn_know *k = &st->know[p][i];
    int cols, nums;
    hn_possible(st, k, &cols, &nums);
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "card", json_string_nocheck(hidden ? "??" : hn_card_name(st->hand[p][i])));
    json_object_set_new_nocheck(o, "touched", marks_shared(m, k->pos_col, k->pos_num));
    json_object_set_new_nocheck(o, "not", marks_shared(m, k->neg_col, k->neg_num));
    json_object_set_new_nocheck(o, "possible", marks_shared(m, cols, nums));
    return o;
}

static json_t *ref_view(const hn_state *st, int seat)
{
    json_t *o = json_object();
    json_object_set_new(o, "game", json_string("hanabi"));
    json_object_set_new(o, "variant", json_string(variant_name(st->variant)));
    json_t *opts = json_object();
    json_object_set_new_nocheck(opts, "end", json_string_nocheck(endrule_name(st->endrule)));
    json_object_set_new(o, "options", opts);
    json_object_set_new(o, "players", json_integer(st->np));
    json_object_set_new(o, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(o, "first", json_integer(st->first));
    json_object_set_new(o, "current", st->over ? json_null() : json_integer(st->cur));
    json_object_set_new(o, "turn", json_integer(st->nhist + (st->over ? 0 : 1)));
    json_object_set_new(o, "turns", json_integer(st->nhist));
    json_t *hands = json_array();
    marks_memo memo;
    memo.n = 0;
    for (int p = 0; p < st->np; p++) {
        json_t *h = json_array();
        for (int i = 0; i < st->nhand[p]; i++)
            json_array_append_new(h, card_view(st, p, i, !hn_sees(st, seat, p), &memo));
        json_array_append_new(hands, h);
    }
    for (int i = 0; i < memo.n; i++)
        json_decref(memo.val[i]); /* the view holds them now */
    json_object_set_new(o, "hands", hands);
    json_t *fw = json_object();
    for (int k = 0; k < st->nsuits; k++) {
        char s[2] = {hn_color_letter(k), 0};
        json_object_set_new(fw, s, json_integer(st->fire[k]));
    }
    json_object_set_new(o, "fireworks", fw);
    json_object_set_new(o, "discard", cards_json(st->disc, st->ndisc));
    json_object_set_new(o, "hints", json_integer(st->hints));
    json_object_set_new(o, "errors", json_integer(st->errors));
    json_object_set_new(o, "max_hints", json_integer(HN_MAXHINTS));
    json_object_set_new(o, "max_errors", json_integer(HN_MAXERRORS));
    json_object_set_new(o, "deck", json_integer(st->ndeck - st->next));
    json_object_set_new(o, "score", json_integer(hn_score(st)));
    json_object_set_new(o, "max_score", json_integer(hn_max_score(st)));
    json_object_set_new(o, "over", json_boolean(st->over));
    json_object_set_new(o, "result", json_string(hn_result_name(st)));
    json_object_set_new(o, "end_reason", st->over ? json_integer(st->reason) : json_null());
    json_object_set_new(o, "final_turns_left",
                        st->final_left >= 0 && !st->over ? json_integer(st->final_left) : json_null());
    if (seat == SEAT_ADMIN || st->over || st->revealed) /* the cards never drawn: hidden from every seat */
        json_object_set_new(o, "deck_order", cards_json(st->deck + st->next, st->ndeck - st->next));
    if (seat == SEAT_ADMIN) {
        char seed[17];
        snprintf(seed, sizeof seed, "%016" PRIx64, st->seed);
        json_object_set_new(o, "seed", json_string(seed));
    }
    return o;
}

/* --- history ------------------------------------------------------------------ */

/* The view of every reader of st: text, reference and parsed. */
static long compare_views(const hn_state *st, const char *what)
{
    long n = 0;
    for (int r = -3; r < st->np; r++) {
        int reader = r == -3 ? SEAT_ADMIN : r == -2 ? SEAT_SPECTATOR : r == -1 ? SEAT_OBSERVER : r;
        json_t *ref = ref_view(st, reader);
        char *want = json_dumps(ref, DUMP_FLAGS);
        size_t len = 0;
        char *got = hn_view_text(st, reader, &len);
        if (!got || strcmp(got, want) != 0)
            fail_msg("%s, reader %d:\n tree %s\n text %s", what, reader, want, got ? got : "(null)");
        assert_int_equal(len, strlen(want));
        json_t *parsed = OPS->view(st, reader);
        if (!json_equal(parsed, ref))
            fail_msg("%s, reader %d: view() is not the tree", what, reader);
        json_decref(parsed);
        json_decref(ref);
        free(want);
        free(got);
        n++;
    }
    return n;
}

static void test_hanabi_view_text_is_the_tree(void **unused)
{
    (void)unused;
    static hn_state st;
    long compared = 0, games = 0;
    char what[96], why[256];
    for (int g = 0; g < 48; g++) {
        const char *variant = g % 2 ? "rainbow" : "standard";
        int np = 2 + (g / 2) % 4;
        json_t *opt = g % 3 == 0 ? json_pack("{s:s}", "end", "standard") : NULL;
        game_err e;
        memset(&e, 0, sizeof e);
        if (game_init(OPS, &st, variant, np, 4242 + (uint64_t)g, opt, &e))
            fail_msg("init %s %d: %s", variant, np, e.detail);
        json_decref(opt);
        const char *bot = g % 4 < 2 ? OPS->bots[0].name : "random";
        for (int step = 0; !st.over && step < 400; step++) {
            snprintf(what, sizeof what, "game %d (%s, %d players) step %d", g, variant, np, step);
            compared += compare_views(&st, what);
            if (game_bot_play(OPS, &st, bot, NULL, why, sizeof why, &e))
                fail_msg("%s: bot %s: %s", what, bot, e.detail);
        }
        assert_true(st.over);
        snprintf(what, sizeof what, "game %d over", g);
        compared += compare_views(&st, what);
        OPS->reveal(&st);
        snprintf(what, sizeof what, "game %d revealed", g);
        compared += compare_views(&st, what);
        games++;
    }
    printf("  %ld games, %ld views compared\n", games, compared);
    assert_true(compared > 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jw_writes_jansson_bytes),
        cmocka_unit_test(test_jw_refuses),
        cmocka_unit_test(test_hanabi_view_text_is_the_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
