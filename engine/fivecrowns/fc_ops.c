/* fc_ops.c: Five Crowns' row in the game registry (game.h): the glue
 * between the generic interface and fc_*.
 *
 * Every mutating entry point judges the play completely on the unchanged
 * state before fc_do() touches it, so an error leaves the state as it was.
 * Records returned by apply are what the acting seat may see; bot records
 * and their explanations are public (a blind draw's card is named only in an
 * open game; fc_explain.c writes the explanation from public facts), because
 * the API stores an explanation once and shows it to every reader.
 * conceal: a seat may save (export) the game mid-way; the API hands it a
 * copy whose draw pile order and RNGs, and at a closed table the other hands
 * and blind draws, are redrawn from a server secret (fc_conceal), so a save
 * tells no hidden card and predicts no future draw or deal.
 */
#include "game.h"
#include "fc.h"

#include "core/jsonx.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern const game_ops fivecrowns_ops; /* at the end; GAME_CHECK names it */

static const char *const VARIANTS[] = {"standard", NULL};
static const char *const FORMATS[] = {"fivecrowns-text", NULL};

static json_t *rules(void)
{
    json_t *r = json_object(); /* the game's own text: the catalogue's members come from the row */
    json_object_set_new(r, "notation", json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s}",
        "cards", "rank then suit, e.g. \"7H\"; jokers \"J1\" \"J2\" \"J3\"; \"10H\" is accepted for \"XH\"",
        "ranks", "3456789XJQK (X = ten, J/Q/K = 11/12/13 points)",
        "suits", "S spades, C clubs, D diamonds, H hearts, T tridents",
        "deck", "two 58-card decks: 116 cards, every card twice, 6 jokers",
        "values", "face value; jack 11, queen 12, king 13; the round's wild rank 20; joker 50",
        "piles", "piles are listed top card first (as in the save format)"));
    json_object_set_new(r, "plays", json_pack(
        "{s:s,s:[{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o}]}",
        "shape", "a turn is two plays by the same seat: {\"draw\": \"draw\"|\"discard\"}, then {\"discard\": card} "
                 "or {\"discard\": card, \"go_out\": true}",
        "examples",
        "text", "draw the top card of the draw pile", "play", json_pack("{s:s}", "draw", "draw"),
        "text", "take the top card of the discard pile", "play", json_pack("{s:s}", "draw", "discard"),
        "text", "discard the 7 of hearts", "play", json_pack("{s:s}", "discard", "7H"),
        "text", "discard the king of clubs and go out", "play", json_pack("{s:s,s:b}", "discard", "KC", "go_out", 1)));
    json_object_set_new(r, "options", json_pack(
        "{s:s,s:s}",
        "open", "bool, default false: each seat sees only its own hand, the discard pile's top and the counts, and "
                "the bots' explanations name no card of a hidden hand; true: the course program's open table, every "
                "hand on view and the draw pile on the seats' screens (players play as if they could not see the draw "
                "pile; spectators never see it)",
        "call", "\"heads\" or \"tails\": seat 0 calls the coin toss of round 1 and starts if the call is right; "
                "without a call a seeded toss picks the starter"));
    json_object_set_new(r, "turn", json_pack(
        "[s,s,s,s,s,s,s,s,s]",
        "11 rounds; round r deals r+2 cards and the rank r+2 (3..K) is wild; the next card starts the discard pile",
        "runs: 3+ cards of one suit in sequence (3..K, no wrap); books: 3+ cards of one rank; jokers and wild cards "
        "stand in for any card, any number of them, anywhere; 3+ wild cards alone make a book",
        "a turn: draw the top card of the draw pile or of the discard pile, then discard one card (the card just "
        "taken may be discarded again)",
        "go out with the discard ({\"go_out\": true}) only when the cards left form runs and books completely",
        "after someone goes out every other player takes one last turn (no going out then); then every hand is laid "
        "out in its best arrangement (found by the server) and scores the value of the cards left; the player who "
        "went out scores 0",
        "round 1 starts by the coin toss; later rounds start with the player who went out in the previous round",
        "an empty draw pile is refilled by shuffling the discard pile under its top card",
        "a round in which nobody goes out within 40 turns per player is called off: hands are laid out and scored, "
        "and the player after its starter starts the next round",
        "the lowest total after 11 rounds wins (equal lowest totals: a tie)"));
    json_object_set_new(r, "save", json_pack(
        "{s:s,s:s}",
        "format", "fivecrowns-text: the seed's C++/Java text format (Round:, Computer:/Human: Score: Hand:, Draw "
                  "Pile:, Discard Pile:, Next Player:), first card = top of each pile; seat 0 = Human, seat 1 = Computer",
        "when", "2-player games, before a player's turn only: not after the draw, not during the last turns after "
                "someone went out, not once the game is over; resuming starts the Next Player's turn. A seat's save "
                "of a running game has the draw pile shuffled anew and, at a closed table, the other hand dealt anew "
                "from it (it shows no hidden card and predicts no draw of the game)"));
    return r;
}

static int init(void *vst, const char *variant, int nplayers, uint64_t seed, const json_t *options,
                game_err *e)
{
    (void)variant; /* "standard", the only one: game_init checked it and the table size */
    int open = 0, call = -1;
    if (options && !json_is_null(options)) {
        if (jx_object(options, "/options", e))
            return ERR_BAD_MEMBER;
        static const char *const OPTIONS[] = {"open", "call", NULL};
        const json_t *o = json_object_get(options, "open"), *c = json_object_get(options, "call");
        const char *s;
        if (jx_known(options, "/options", OPTIONS, e) || (o && jx_bool(o, "/options/open", &open, e)) ||
            (c && jx_string(c, "/options/call", &s, e)))
            return ERR_BAD_MEMBER;
        if (c && strcmp(s, "heads") != 0 && strcmp(s, "tails") != 0)
            return err_set(e, ERR_BAD_MEMBER, "/options/call", "expected \"heads\" or \"tails\"");
        if (c)
            call = strcmp(s, "tails") == 0;
    }
    fc_new_game(vst, nplayers, seed, open, call);
    return 0;
}

static void status(const void *vst, game_status *out)
{
    const fc_state *st = vst;
    memset(out, 0, sizeof *out);
    out->over = st->phase == FC_PH_OVER;
    out->to_move = out->over ? -1 : st->cur;
    out->nseats = st->np;
    out->winner = st->winner;
    out->result = fc_result_name(st->result);
    out->turns = st->turns;
    out->plays = st->nhist;
    for (int p = 0; p < st->np; p++)
        out->score[p] = st->score[p];
    out->lower_is_better = 1;
    out->rounds = out->over ? FC_ROUNDS : st->round - 1; /* rounds completed */
}

static json_t *legal(const void *vst, int seat)
{
    const fc_state *st = vst;
    json_t *a = json_array();
    if (st->phase == FC_PH_OVER || seat != st->cur)
        return a;
    fc_play all[2 * FC_HANDMAX + 2];
    int n = fc_gen(st, all);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, fc_play_json(&all[i]));
    return a;
}

static int judge(const void *st, const void *vp, game_verdict *v)
{
    const fc_play *p = vp;
    const char *rule = "";
    int ok = fc_judge(st, p, v ? v->reason : NULL, v ? sizeof v->reason : 0, v ? &rule : NULL);
    if (v) {
        v->turn_ending = ok && p->kind == FC_PLAY_DISCARD;
        snprintf(v->rule, sizeof v->rule, "%s", rule);
    }
    return ok;
}

/* The record as `reader` sees it; a bot's play as the spectators do (its
 * drawn card hidden from the people at the table). */
static void commit(void *vst, const void *p, int reader, const char *why, json_t **record)
{
    fc_state *st = vst;
    fc_do(st, p);
    if (record)
        *record = fc_record(st, st->nhist - 1, reader == SEAT_TABLE ? SEAT_SPECTATOR : reader, why);
}

/* The strategies: each chooses from what the seat may see (an fc_obs). */
static void strategy(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    fc_obs o;
    fc_advice adv;
    (void)r;
    fc_observe(st, seat, &o);
    fc_strategy(&o, 0, &adv);
    *(fc_play *)p = adv.play;
    snprintf(why, n, "%s", adv.why);
}

static void greedy(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    fc_obs o;
    (void)r;
    fc_observe(st, seat, &o);
    fc_greedy(&o, p, why, n);
}

static void random_play(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    fc_obs o;
    fc_observe(st, seat, &o);
    fc_random(&o, r, p, why, n);
}

static const game_bot BOTS[] = {
    {"strategy",
     "takes the discard top when it is wild or lets it go out, else weighs it against a blind draw by a model "
     "learnt from rollouts of played games (its chance to win the game); keeps jokers and wilds; "
     "drops the card whose loss leaves the best hand by a count learnt from played games (points now, outside "
     "runs and books, and if one or two more wilds came; loose cards and pairs; the turn of the round; ranks and "
     "runs the next player took from the discard pile), looking one blind draw ahead over the cards it has not "
     "seen; goes out as soon as it can; on its last "
     "turn takes the discard top only if it beats an average blind draw, then minimises its points",
     strategy, NULL},
    {"greedy",
     "minimises the points in its hand right now at every step",
     greedy, NULL},
    {"random",
     "a uniformly random legal play",
     random_play, NULL},
    {NULL, NULL, NULL, NULL},
};
_Static_assert(sizeof(fc_play) <= GAME_PLAY_MAX, "a play fits game_bot's buffer");

static uint64_t bot_key(const void *st) { return ((const fc_state *)st)->bkey; }

/* Help mode says more than the strategy's play: the draw, the discard, the
 * arrangement and whether to go out, each with its reason (game_hint has
 * checked the game is on and `seat` is to move). */
static int hint(const void *vst, int seat, json_t **out, game_err *e)
{
    fc_obs o;
    fc_advice adv;
    (void)e;
    fc_observe(vst, seat, &o);
    fc_strategy(&o, 1, &adv);
    json_t *h = json_pack("{s:o,s:s,s:s}", "play", fc_play_json(&adv.play), "explanation", adv.why, "strategy",
                          "strategy");
    if (o.phase == FC_PH_DRAW) {
        json_object_set_new(h, "draw", json_pack("{s:s,s:s}", "source",
                                                 adv.draw_source == FC_PLAY_DRAW_PILE ? "draw" : "discard", "why",
                                                 adv.why));
        char gw[300];
        if (o.last_turn)
            snprintf(gw, sizeof gw, "Player %d has already gone out: this is your last turn, and your hand is laid out after it.",
                     o.out_seat + 1);
        else if (adv.arr.points == 0)
            snprintf(gw, sizeof gw, "Draw first (nobody goes out before drawing): your hand already forms runs and books, so after the draw you can discard the extra card and go out.");
        else
            snprintf(gw, sizeof gw, "Not yet: draw first; your hand now leaves %d points outside runs and books.",
                     adv.arr.points);
        snprintf(adv.go_out_why, sizeof adv.go_out_why, "%s", gw);
    } else {
        char nm[40];
        fc_card_name(adv.discard, nm, sizeof nm);
        json_object_set_new(h, "discard", json_pack("{s:s,s:s,s:s}", "card", fc_card_str(adv.discard), "name", nm,
                                                    "why", adv.why));
    }
    json_t *a = fc_arr_json(&adv.arr);
    json_object_set_new(a, "why", json_string(adv.arr_why));
    json_object_set_new(h, "arrangement", a);
    json_object_set_new(h, "go_out", json_boolean(adv.go_out));
    json_object_set_new(h, "go_out_why", json_string(adv.go_out_why));
    *out = h;
    return 0;
}

static int export_as(const void *st, const char *format, char **out, size_t *len, const char **media_type,
                     game_err *e)
{
    *out = NULL;
    if (!format || strcmp(format, "fivecrowns-text") != 0)
        return err_set(e, ERR_BAD_QUERY, "/format", "unknown format \"%.32s\" (fivecrowns-text or json)",
                       format ? format : "");
    if (media_type)
        *media_type = "text/plain; charset=utf-8";
    return fc_export_text(st, out, len, e);
}

static void reveal(void *st) { ((fc_state *)st)->revealed = 1; }

/* The plays fill the state's end: used up to the last one. */
static size_t state_used(const void *s)
{
    const fc_state *st = s;
    size_t n = st->nhist <= FC_MAXHIST ? st->nhist : FC_MAXHIST;
    return offsetof(fc_state, hist) + n * sizeof st->hist[0];
}

extern const game_guide fc_guide; /* fc_guide.c: the game for players */

const game_ops fivecrowns_ops = {
    .name = "fivecrowns",
    .title = "Five Crowns",
    .variants = VARIANTS,
    .min_players = FC_MINP,
    .max_players = FC_MAXP,
    .bots = BOTS,
    .state_size = sizeof(fc_state),
    .state_used = state_used,
    .cooperative = 0,
    .fns = NULL,
    .nfns = 0,
    .rules = rules,
    .guide = &fc_guide,
    .init = init,
    .decode = fc_decode,
    .encode = fc_encode,
    .view = fc_view,
    .status = status,
    .legal = legal,
    .parse = fc_play_parse,
    .judge = judge,
    .commit = commit,
    .autoplay = NULL, /* every turn has a choice (which pile, which card) */
    .bot_key = bot_key,
    .play_json = fc_play_json,
    .explain = fc_explain,
    .hint = hint,
    .history = fc_history,
    .events = NULL,
    .export_formats = FORMATS,
    .export_as = export_as,
    .import_text = fc_import_text,
    .conceal = fc_conceal,
    .reveal = reveal,
    .redeal = fc_redeal,
    .invariants = fc_invariants,
};
