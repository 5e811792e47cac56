/* pz_ops.c: Phazed's row in the game registry (game.h): the glue between
 * the generic interface and pz_*.
 *
 * Every mutating entry point judges the play completely on the unchanged
 * state before pz_do() touches it, so an error leaves the state as it was.
 */
#include "game.h"
#include "pz.h"

#include "core/jsonx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const game_ops phazed_ops; /* at the end; GAME_CHECK names it */

static const char *const VARIANTS[] = {"standard", "bonus", NULL};

static json_t *rules(void)
{
    json_t *r = json_pack(
        "{s:{s:s,s:s,s:s,s:{s:s,s:s},s:s,s:s,s:s}}",
        "notation",
        "cards", "two characters: value then suit, e.g. \"0D\" (ten of diamonds), \"AS\", \"KC\"; bonus Joker \"ZZ\"",
        "values", "234567890JQKA (0=10, J=11, Q=12, K=13); Aces are Wild (value 1 in accumulations)",
        "suits", "SHDC",
        "colours", "black", "S C", "red", "H D",
        "table", "one entry per player: [phase_id or null, [group, ...]] (the reference's table)",
        "phase_status", "standard: phases completed per player (0-7); bonus: per player a list of 7 booleans",
        "turn_history", "[[player_id, [play, ...]], ...] for the current hand; deck pick-ups of other players are [1, \"XX\"]; a skipped turn is [player_id, []]");
    json_t *shapes = json_pack(
        "{s:s,s:[{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o}]}",
        "shape", "[play_type, content] as the reference's tuples: 1 deck pick-up [1, null]; 2 discard pick-up [2, card]; "
                 "3 phase [3, [phase_id, [group, ...]]]; 4 place [4, [card, [player, group, index]]]; 5 discard [5, card]; "
                 "6 (bonus) Skip [6, target]",
        "examples",
        "text", "draw from the deck", "play", json_pack("[i,n]", 1),
        "text", "take the top of the discard pile", "play", json_pack("[i,s]", 2, "JS"),
        "text", "phase 1: two sets of three", "play",
        json_pack("[i,[i,[[s,s,s],[s,s,s]]]]", 3, 1, "2S", "2S", "2C", "AS", "5S", "5S"),
        "text", "place 9D at the end of player 2's group 1 (8 cards)", "play",
        json_pack("[i,[s,[i,i,i]]]", 4, "9D", 1, 0, 8),
        "text", "discard JS (ends the turn)", "play", json_pack("[i,s]", 5, "JS"),
        "text", "bonus: Skip player 3 with a Joker (ends the turn)", "play", json_pack("[i,i]", 6, 2));
    json_object_set_new(r, "plays", shapes);
    json_object_set_new(r, "turn", json_pack("[s,s,s,s,s,s,s,s,s,s,s]",
        "deal: 10 cards each from the dealer's left, the next card face up starts the discard pile; the dealer rotates clockwise each hand (player 1, seat 0, leads hand 1), left of the dealer leads",
        "a turn: pick up (deck or discard top), optionally play the phase required now (standard: phases 1-7 in order, one per hand, all at once), then once the phase is down place cards on any group, then discard one card",
        "groups: sets by value (3 or 4) or suit (7), runs (8; 4 of one colour) wrapping K->2, 34-accumulations (of one colour); Aces are Wild but every group needs two naturals; a Wild in a run stands for 2..K",
        "placing: sets and accumulations at any index 0..len; runs only at index 0 (before) or len (after), at most 12 cards",
        "accumulations grow by the shared targets 21, 13, 8, 5, 3, 2, 1, 1 (totals 34, 55, 68, 76, 81, 84, 86, 87, 88); a player who plays to one must reach the next target before discarding; in stored games each placement must also leave that target reachable with the cards still held (so a turn can always finish)",
        "the hand ends when a player has no cards left, when the player who drew the deck's last card discards, or after 50 turns each (skipped turns count); penalties: 2-10 face value, J/Q/K 11/12/13, Ace 25, Joker 15",
        "the game ends after the hand in which a player completes all 7 phases (winner: lowest points among those who did) or after 20 hands (lowest points); equal lowest points: result \"tied\", no single winner",
        "bonus: phases in any order, each once, declared by the phase id of the play; Jokers (4, 108 cards) are played only as Skip [6, target] (another player misses their next turn; no effect if already skipped), never placed, never taken from the discard pile",
        "legal plays list every pick-up, discard, Skip and single placement (for sets and accumulations only at the end index: any index is accepted), then every phase play the hand holds, each set of cards once (set and accumulation cards in card order, two groups of one kind in one order: other orders are accepted too) (GET /games/{id}/legal pages a long list: limit and offset)",
        "option \"hands\": 1-20, the number of hands after which the game ends (default 20)",
        "history: the current hand's turn_history (own deck draws shown, others \"XX\"); events: every play of the game plus hand_over and game_over"));
    return r;
}

static int init(void *vst, const char *variant, int nplayers, uint64_t seed, const json_t *options,
                game_err *e)
{
    int v = variant && strcmp(variant, "bonus") == 0, hands = PZ_MAXHANDS; /* game_init checked */
    if (options && !json_is_null(options)) {
        if (jx_object(options, "/options", e))
            return ERR_BAD_MEMBER;
        static const char *const OPTIONS[] = {"hands", NULL};
        const json_t *x = json_object_get(options, "hands");
        long long h;
        if (jx_known(options, "/options", OPTIONS, e))
            return ERR_BAD_MEMBER;
        if (x) {
            if (jx_int(x, "/options/hands", 1, PZ_MAXHANDS, &h, e))
                return ERR_BAD_MEMBER;
            hands = (int)h;
        }
    }
    pz_new(vst, v, nplayers, hands, seed);
    return 0;
}

static void status(const void *vst, game_status *out)
{
    const pz_state *st = vst;
    memset(out, 0, sizeof *out);
    out->over = st->result != PZ_PLAYING;
    out->to_move = out->over ? -1 : st->cur;
    out->nseats = st->np;
    out->winner = st->winner;
    out->winners = out->over ? pz_winners(st) : 0;
    out->result = pz_result_name(st->result);
    out->turns = st->turns_total;
    out->rounds = st->hands_done;
    out->plays = st->nlog;
    out->lower_is_better = 1;
    for (int p = 0; p < st->np; p++)
        out->score[p] = st->score[p];
}

/* legal_page: the walk over every legal play keeps the page's and counts
 * the rest (a hand can hold some 20,000 phase plays: none is kept beyond
 * the page, so no page costs more memory than its own JSON). */
typedef struct legal_walk {
    size_t offset, limit;
    json_t *plays;
} legal_walk;

static int legal_keep(void *ctx, const pz_play *p)
{
    legal_walk *w = ctx;
    if (w->offset)
        w->offset--;
    else if (w->limit) {
        w->limit--;
        json_array_append_new(w->plays, pz_play_json(p));
    }
    return 0; /* on to the end: the total */
}

static json_t *legal_paged(const void *vst, int seat, size_t offset, size_t limit, size_t *total)
{
    const pz_state *st = vst;
    legal_walk w = {offset, limit, json_array()};
    *total = 0;
    if (st->result != PZ_PLAYING || seat != st->cur)
        return w.plays;
    pz_obs o;
    pz_observe(st, seat, &o);
    pz_each each = {legal_keep, &w, 0, 0};
    pz_gen_each(&o, &each);
    *total = (size_t)each.n;
    return w.plays;
}

static json_t *legal(const void *st, int seat)
{
    size_t total;
    return legal_paged(st, seat, 0, SIZE_MAX, &total);
}

static int parse(const void *vst, const json_t *play, void *p, game_err *e)
{
    const pz_state *st = vst;
    return pz_play_parse(play, st->variant, p, e);
}

static int judge(const void *vst, const void *vp, game_verdict *v)
{
    const pz_state *st = vst;
    const pz_play *p = vp;
    const char *rule = "";
    int r = pz_state_judge(st, p, v ? v->reason : NULL, v ? sizeof v->reason : 0, v ? &rule : NULL);
    if (!v)
        return r;
    snprintf(v->rule, sizeof v->rule, "%s", rule);
    v->turn_ending = r == 2;
    if (r == 1 && (p->type == PZ_PHASE || p->type == PZ_PLACE)) {
        int used = 0;
        for (int k = 0; k < p->ng; k++)
            used += p->gn[k];
        if (p->type == PZ_PLACE)
            used = 1;
        if (used >= st->nhand[st->cur]) {
            size_t len = strlen(v->reason);
            v->turn_ending = 1;
            snprintf(v->reason + len, sizeof v->reason - len, "; it plays the last card and ends the hand");
        }
    }
    return r;
}

/* A phase laid or a card placed on the table before the discard may be
 * taken back (game.h: undoable): its cards came from the hand and are in
 * view on the table, and it draws nothing. Not the play of the hand's last
 * card (it ends the hand), nor a pick-up (the deck's card is seen) or a
 * discard (it ends the turn). */
static int undoable(const void *vst, int seat, const json_t *play, char *why, size_t n)
{
    pz_play p;
    game_verdict v;
    game_err e = {0};
    const char *no = NULL;
    if (game_judge(&phazed_ops, vst, seat, play, &p, &v, &e) || !v.valid)
        no = "it is not a play that was allowed here";
    else if (v.turn_ending)
        no = "it ended the turn or the hand";
    else if (p.type != PZ_PHASE && p.type != PZ_PLACE)
        no = "only a phase laid or a card placed on the table can be taken back, before the discard";
    if (no && why)
        snprintf(why, n, "%s", no);
    return !no;
}

/* The record is the same for every reader: a card picked up from the deck
 * is shown as "XX" even to the mover (pz_record). */
static void commit(void *vst, const void *p, int reader, const char *why, json_t **record)
{
    pz_state *st = vst;
    pz_effect fx;
    int seat = st->cur;
    (void)reader;
    pz_do(st, p, &fx);
    if (record)
        *record = pz_record(st, seat, p, &fx, why);
}

/* Skipped turns and new hands happen inside the play that causes them. */
static int autoplay(void *vst, json_t **record)
{
    (void)vst;
    if (record)
        *record = NULL;
    return 0;
}

/* The strategies: each chooses from what the seat may see (a pz_obs). */
static void planner(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    pz_obs o;
    (void)r;
    pz_observe(st, seat, &o);
    pz_obs_history(st, &o);
    pz_plan(&o, p, why, n);
}

static void greedy(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    pz_obs o;
    (void)r;
    pz_observe(st, seat, &o);
    pz_greedy(&o, p, why, n);
}

static void random_play(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    pz_obs o;
    pz_observe(st, seat, &o);
    pz_random(&o, r, p, why, n);
}

static const game_bot BOTS[] = {
    {"planner",
     "takes the discard only when it helps its phase more than the average deck card, keeps the cards with the most outs, plays the phase that leaves the fewest cards (bonus: the hardest phase first), sheds the costliest cards, never discards what the next player can place or has been collecting; bonus: Skips the opponent closest to finishing",
     planner, NULL},
    {"greedy",
     "the first planner, kept unchanged as a yardstick: keeps the cards closest to its phase, plays it at once, sheds every card it can place (costliest first), discards the costliest useless card; bonus: Skips the opponent closest to finishing",
     greedy, NULL},
    {"random",
     "a uniformly random kind of legal play, then a uniformly random play of that kind",
     random_play, NULL},
    {NULL, NULL, NULL, NULL},
};
_Static_assert(sizeof(pz_play) <= GAME_PLAY_MAX, "a play fits game_bot's buffer");

static uint64_t bot_key(const void *st) { return ((const pz_state *)st)->bkey; }

/* Help mode: the planner's play, its line said to the player. */
static int hint(const void *st, int seat, json_t **out, game_err *e)
{
    pz_obs o;
    pz_play p;
    char why[400], said[400];
    (void)e;
    pz_observe(st, seat, &o);
    pz_obs_history(st, &o);
    pz_plan(&o, &p, why, sizeof why);
    pz_to_player(why, said, sizeof said);
    *out = json_pack("{s:o,s:s,s:s}", "play", pz_play_json(&p), "explanation", said, "strategy", BOTS[0].name);
    return 0;
}

static void reveal(void *st) { ((pz_state *)st)->revealed = 1; }

/* The log fills the state's end: used up to its last entry. */
static size_t state_used(const void *s)
{
    const pz_state *st = s;
    size_t n = st->nlog <= PZ_MAXLOG ? st->nlog : PZ_MAXLOG;
    return offsetof(pz_state, log) + n * sizeof st->log[0];
}

extern const game_guide pz_guide; /* pz_guide.c: the game for players */

const game_ops phazed_ops = {
    .name = "phazed",
    .title = "Phazed",
    .variants = VARIANTS,
    .min_players = PZ_MINP,
    .default_players = 4, /* the seed plays with 4; 2-4 allowed */
    .max_players = PZ_MAXP,
    .bots = BOTS,
    .state_size = sizeof(pz_state),
    .state_used = state_used,
    .cooperative = 0,
    .fns = pz_fns,
    .nfns = PZ_NFNS,
    .suites = pz_suites,
    .nsuites = PZ_NSUITES,
    .rules = rules,
    .guide = &pz_guide,
    .init = init,
    .decode = pz_decode,
    .encode = pz_encode,
    .view = pz_view,
    .status = status,
    .legal = legal,
    .legal_page = legal_paged,
    .parse = parse,
    .judge = judge,
    .commit = commit,
    .autoplay = autoplay,
    .bot_key = bot_key,
    .play_json = pz_play_json,
    .explain = pz_explain,
    .history = pz_history,
    .events = pz_events,
    .hint = hint,
    .reveal = reveal,
    .redeal = pz_redeal,
    .fn_args = pz_fn_args,
    .undoable = undoable,
    .invariants = pz_invariants,
};
