/* takeaway_game.c: Take-away, the example game of docs/engine-guide.md.
 *
 * Never served: it exists so that a test (tests/repo/example_game.test.mjs)
 * can add a fifth game to a copy of the tree exactly as the guide says (this
 * folder copied to engine/takeaway/, one registry row, its rules page, `make
 * openapi`) and run every generic suite on it. So it is the smallest game
 * that has every required hook, and nothing the guide does not ask for.
 *
 * The rules: a pile of counters (40 unless the options say otherwise); the
 * players take 1, 2 or 3 of them in turn, seat 0 first. In the "standard"
 * variant whoever takes the last counter wins; in "misere" they lose and the
 * seat before them wins. Nothing is hidden from anyone.
 */
#include "game.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <string.h>

enum { TK_MINP = 2, TK_MAXP = 4, TK_MAXCOUNTERS = 99, TK_DEFAULT = 40, TK_MAXTAKE = 3 };

typedef struct tk_state {
    uint8_t misere;  /* 0 standard, 1 misere */
    uint8_t np;      /* seats */
    uint8_t start;   /* counters at the start */
    uint8_t left;    /* counters left */
    uint8_t nhist;   /* plays made */
    uint8_t revealed;/* a past position of a finished game (game.h: reveal) */
    uint64_t bkey;   /* the bots' key (game.h: bot_key) */
    uint8_t took[TK_MAXCOUNTERS]; /* play i took took[i] counters; seat i % np made it */
} tk_state;

typedef struct tk_play {
    int take;
} tk_play;
_Static_assert(sizeof(tk_play) <= GAME_PLAY_MAX, "a play fits game_play_buf");

static const char *const VARIANTS[] = {"standard", "misere", NULL};

static int cur(const tk_state *st) { return st->nhist % st->np; }

static json_t *rules(void)
{
    return json_pack("{s:{s:s},s:{s:s,s:[{s:s,s:o}]},s:[s,s,s]}", "notation", "counters",
                     "a number of counters: the pile's size, a take",
                     "plays", "shape", "{\"take\": 1|2|3}, no more than are left",
                     "examples", "text", "take two counters", "play", json_pack("{s:i}", "take", 2),
                     "turn", "a pile of counters (40, or the option \"counters\", 5..99); seat 0 starts",
                     "a turn takes 1, 2 or 3 counters",
                     "standard: taking the last counter wins; misere: taking it loses, and the seat before wins");
}

static int init(void *vst, const char *variant, int nplayers, uint64_t seed, const json_t *options, game_err *e)
{
    static const char *const OPTIONS[] = {"counters", NULL};
    long long counters = TK_DEFAULT;
    if (options && !json_is_null(options)) {
        const json_t *c = json_object_get(options, "counters");
        if (jx_object(options, "/options", e) || jx_known(options, "/options", OPTIONS, e) ||
            (c && jx_int(c, "/options/counters", 5, TK_MAXCOUNTERS, &counters, e)))
            return ERR_BAD_MEMBER;
    }
    tk_state *st = vst;
    memset(st, 0, sizeof *st);
    st->misere = variant && strcmp(variant, "misere") == 0;
    st->np = (uint8_t)nplayers;
    st->start = st->left = (uint8_t)counters;
    st->bkey = rng_mix64(seed ^ 0x7a6b5c4d3e2f1011ull);
    return 0;
}

static json_t *encode(const void *vst)
{
    const tk_state *st = vst;
    return json_pack("{s:s,s:s,s:i,s:i,s:o,s:o}", "game", "takeaway", "variant", VARIANTS[st->misere],
                     "players", st->np, "counters", st->start, "took", jx_u8_array(st->took, st->nhist),
                     "bot_key", jx_bot_key_encode(st->bkey));
}

static int decode(void *vst, const json_t *j, game_err *e)
{
    /* "bot_rng": jx_bot_key_decode reads a state written before bot keys
     * (every game takes it, so that tests/unit's migration check holds) */
    static const char *const KNOWN[] = {"game", "variant", "players", "counters", "took", "bot_key", "bot_rng", NULL};
    tk_state st;
    int variant;
    memset(&st, 0, sizeof st); /* the padding too: states compare byte for byte */
    long long np, start;
    if (jx_header(j, "takeaway", VARIANTS, &variant, e) || jx_known(j, "", KNOWN, e) ||
        jx_int(json_object_get(j, "players"), "/players", TK_MINP, TK_MAXP, &np, e) ||
        jx_int(json_object_get(j, "counters"), "/counters", 5, TK_MAXCOUNTERS, &start, e) ||
        jx_array(json_object_get(j, "took"), "/took", 0, (size_t)start, e) || jx_bot_key_decode(j, &st.bkey, e))
        return ERR_BAD_MEMBER;
    st.misere = (uint8_t)variant;
    st.np = (uint8_t)np;
    st.start = st.left = (uint8_t)start;
    const json_t *took = json_object_get(j, "took");
    for (size_t i = 0; i < json_array_size(took); i++) {
        char ptr[32];
        long long k;
        jx_ptr_idx(ptr, sizeof ptr, "/took", i);
        if (jx_int(json_array_get(took, i), ptr, 1, TK_MAXTAKE, &k, e))
            return ERR_BAD_MEMBER;
        if (k > st.left)
            return err_set(e, ERR_BAD_MEMBER, ptr, "takes %lld of the %d counters left", k, st.left);
        st.took[st.nhist++] = (uint8_t)k;
        st.left = (uint8_t)(st.left - k);
    }
    memcpy(vst, &st, sizeof st);
    return 0;
}

/* The winning seat of a finished game, -1 while it runs. */
static int winner(const tk_state *st)
{
    if (st->left)
        return -1;
    int last = (st->nhist - 1) % st->np;
    return st->misere ? (last + st->np - 1) % st->np : last;
}

static json_t *view(const void *vst, int seat)
{
    const tk_state *st = vst;
    int over = st->left == 0;
    return json_pack("{s:s,s:s,s:i,s:o,s:i,s:i,s:o,s:b}", "game", "takeaway", "variant", VARIANTS[st->misere],
                     "players", st->np, "seat", seat >= 0 ? json_integer(seat) : json_null(), "counters",
                     st->start, "left", st->left, "current", over ? json_null() : json_integer(cur(st)), "over",
                     over);
}

static void status(const void *vst, game_status *out)
{
    const tk_state *st = vst;
    memset(out, 0, sizeof *out);
    out->over = st->left == 0;
    out->to_move = out->over ? -1 : cur(st);
    out->nseats = st->np;
    out->winner = winner(st);
    out->result = out->over ? "won" : "playing";
    out->turns = st->nhist;
    out->plays = st->nhist;
    if (out->winner >= 0)
        out->score[out->winner] = 1;
}

static json_t *play_json(const void *p) { return json_pack("{s:i}", "take", ((const tk_play *)p)->take); }

static json_t *legal(const void *vst, int seat)
{
    const tk_state *st = vst;
    json_t *a = json_array();
    for (int k = 1; st->left && seat == cur(st) && k <= TK_MAXTAKE && k <= st->left; k++)
        json_array_append_new(a, play_json(&(tk_play){k}));
    return a;
}

static int parse(const void *st, const json_t *play, void *vp, game_err *e)
{
    static const char *const KNOWN[] = {"take", NULL};
    long long k;
    (void)st;
    if (jx_object(play, "", e) || jx_known(play, "", KNOWN, e) ||
        jx_int(json_object_get(play, "take"), "/take", 1, TK_MAXTAKE, &k, e))
        return ERR_BAD_MEMBER;
    ((tk_play *)vp)->take = (int)k;
    return 0;
}

static int judge(const void *vst, const void *vp, game_verdict *v)
{
    const tk_state *st = vst;
    int k = ((const tk_play *)vp)->take, ok = k <= st->left;
    if (v) {
        v->turn_ending = ok;
        snprintf(v->rule, sizeof v->rule, "%s", ok ? "takeaway.turn.take" : "takeaway.turn.no-more-than-left");
        if (ok)
            snprintf(v->reason, sizeof v->reason, "Takes %d of the %d counters left.", k, st->left);
        else
            snprintf(v->reason, sizeof v->reason, "Only %d counter%s left.", st->left, st->left == 1 ? " is" : "s are");
    }
    return ok;
}

static json_t *record(const tk_state *st, int i, const char *why)
{
    int left = st->start;
    for (int j = 0; j <= i; j++)
        left -= st->took[j];
    json_t *o = json_pack("{s:i,s:i,s:o,s:b,s:i}", "n", i, "seat", i % st->np, "play",
                          play_json(&(tk_play){st->took[i]}), "turn_ending", 1, "left", left);
    if (why)
        json_object_set_new(o, "explanation", json_string(why));
    return o;
}

static void commit(void *vst, const void *vp, int reader, const char *why, json_t **out)
{
    tk_state *st = vst;
    (void)reader; /* nothing is hidden: every reader sees the same record */
    int k = ((const tk_play *)vp)->take;
    st->took[st->nhist++] = (uint8_t)k;
    st->left = (uint8_t)(st->left - k);
    if (out)
        *out = record(st, st->nhist - 1, why);
}

static json_t *history(const void *vst, int seat)
{
    const tk_state *st = vst;
    (void)seat;
    json_t *a = json_array();
    for (int i = 0; i < st->nhist; i++)
        json_array_append_new(a, record(st, i, NULL));
    return a;
}

/* The bots. "perfect" leaves the next seat a multiple of four (in misere,
 * one more than a multiple of four) when it can, else takes one; "random"
 * takes what chance says. */
static void perfect(const void *vst, int seat, rng *r, void *vp, char *why, size_t n)
{
    const tk_state *st = vst;
    int aim = st->misere ? 1 : 0, k = (st->left - aim) % 4;
    (void)seat;
    (void)r;
    if (st->np != 2 || k == 0 || k > st->left) {
        k = 1;
        snprintf(why, n, "takes one and waits: no take leaves a losing pile");
    } else {
        snprintf(why, n, "takes %d to leave %d, a losing pile for the next player", k, st->left - k);
    }
    ((tk_play *)vp)->take = k;
}

static void random_take(const void *vst, int seat, rng *r, void *vp, char *why, size_t n)
{
    const tk_state *st = vst;
    int most = st->left < TK_MAXTAKE ? st->left : TK_MAXTAKE;
    (void)seat;
    int k = 1 + (int)rng_below(r, (uint32_t)most);
    ((tk_play *)vp)->take = k;
    snprintf(why, n, "takes %d at random", k);
}

static const game_bot BOTS[] = {
    {"perfect", "leaves the next player a losing pile (a multiple of four, in misere one more) when it can", perfect,
     NULL},
    {"random", "takes 1, 2 or 3 counters at random", random_take, NULL},
    {NULL, NULL, NULL, NULL},
};

static uint64_t bot_key(const void *st) { return ((const tk_state *)st)->bkey; }

static void explain(const void *vst, int seat, const json_t *play, const char *strategy, char *out, size_t n)
{
    const tk_state *st = vst;
    (void)strategy;
    (void)seat; /* the log names the seat */
    snprintf(out, n, "takes %d of the %d counters left",
             (int)json_integer_value(json_object_get(play, "take")), st->left);
}

/* Nothing is hidden from any reader: every position is the one it is. */
static void redeal(void *st, int reader, uint64_t salt)
{
    (void)st;
    (void)reader;
    (void)salt;
}

static void reveal(void *st) { ((tk_state *)st)->revealed = 1; }

static int invariants(const void *vst, game_err *e)
{
    const tk_state *st = vst;
    int left = st->start;
    for (int i = 0; i < st->nhist; i++)
        left -= st->took[i];
    if (left != st->left || left < 0)
        return err_set(e, ERR_INTERNAL, NULL, "%d counters left, the plays say %d", st->left, left);
    return 0;
}

static const game_guide_row GUIDE_VARIANTS[] = {
    {"standard", "Whoever takes the last counter wins.", NULL},
    {"misere", "Whoever takes the last counter loses.", NULL},
    {NULL, NULL, NULL},
};
static const game_guide_row GUIDE_BOTS[] = {
    {"perfect", "Never misses a winning take.", NULL},
    {"random", "Takes one, two or three at random.", NULL},
    {NULL, NULL, NULL},
};
static const char *const GUIDE_TURN[] = {"Take one, two or three counters from the pile.", NULL};
static const char *const GUIDE_WIN[] = {"The game ends when the pile is empty.", NULL};
static const game_guide GUIDE = {
    .summary = "A pile of counters; take one to three in turn.",
    .length = "2 to 4 players, a minute.",
    .variants = GUIDE_VARIANTS,
    .bots = GUIDE_BOTS,
    .turn = GUIDE_TURN,
    .winning = GUIDE_WIN,
};

const game_ops takeaway_ops = {
    .name = "takeaway",
    .title = "Take-away",
    .variants = VARIANTS,
    .min_players = TK_MINP,
    .max_players = TK_MAXP,
    .default_players = 2,
    .bots = BOTS,
    .state_size = sizeof(tk_state),
    .rules = rules,
    .guide = &GUIDE,
    .init = init,
    .decode = decode,
    .encode = encode,
    .view = view,
    .status = status,
    .legal = legal,
    .parse = parse,
    .judge = judge,
    .commit = commit,
    .autoplay = NULL, /* every turn has a choice while a counter is left */
    .bot_key = bot_key,
    .play_json = play_json,
    .explain = explain,
    .history = history,
    .reveal = reveal,
    .redeal = redeal,
    .invariants = invariants,
};
