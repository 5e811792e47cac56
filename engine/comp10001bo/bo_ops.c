/* bo_ops.c: Comp10001-Bo's row in the game registry (game.h): the glue
 * between the generic interface and bo_*.
 *
 * Every mutating entry point judges the play completely on the unchanged
 * state before bo_do() touches it, so an error leaves the state as it was.
 */
#include "game.h"
#include "bo.h"

#include "core/jsonx.h"
#include "core/voice.h"

#include <stdio.h>
#include <string.h>

extern const game_ops comp10001bo_ops; /* at the end; GAME_CHECK names it */

static const char *const VARIANTS[] = {"standard", "bonus", NULL};

static json_t *rules(void)
{
    json_t *r = json_pack(
        "{s:{s:s,s:s,s:s,s:{s:s,s:s},s:s,s:s,s:s}}",
        "notation",
        "cards", "two characters: value then suit, e.g. \"0D\" (ten of diamonds), \"AS\", \"KC\"",
        "values", "A234567890JQK (A=1, 0=10, J=11, Q=12, K=13)",
        "suits", "SHDC",
        "colours", "black", "S C", "red", "H D",
        "piles", "piles are lists of cards, bottom first (the last card is the top)",
        "seats", "seats 0-3 in plays and views (players 1-4 in sentences), clockwise; seat 0 starts",
        "jokers", "bonus only: \"ZZ\", wild for any value but an Ace, colour undetermined (4 in the pack)");
    json_t *shapes = json_pack(
        "{s:s,s:[{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o}]}",
        "shape", "[play_type, source, destination]; play_type 0 hand, 1 top of a discard pile, "
                 "2 own stockpile top, 3 no play, and in the bonus game 4 embargo a player, 5 clear "
                 "one's embargo; source a card, or [card, [owner, pile]] for type 1, null for types 3-5; "
                 "destination [0, build_no] or [1, [owner, pile]], [2, target_player] for type 4",
        "examples",
        "text", "2C from the hand onto build pile 1", "play", json_pack("[i,s,[i,i]]", 0, "2C", 0, 0),
        "text", "3C from the stockpile onto build pile 2", "play", json_pack("[i,s,[i,i]]", 2, "3C", 0, 1),
        "text", "2C, top of player 2's discard pile 1, onto build pile 2", "play",
        json_pack("[i,[s,[i,i]],[i,i]]", 1, "2C", 1, 0, 0, 1),
        "text", "9D from the hand onto player 1's discard pile 1", "play",
        json_pack("[i,s,[i,[i,i]]]", 0, "9D", 1, 0, 0),
        "text", "no possible play", "play", json_pack("[i,n,[n,n]]", 3),
        "text", "bonus: a joker from the hand onto build pile 3", "play", json_pack("[i,s,[i,i]]", 0, "ZZ", 0, 2),
        "text", "bonus: play the embargo card on player 3 (turn-ending)", "play",
        json_pack("[i,n,[i,i]]", 4, 2, 2),
        "text", "bonus: clear one's embargo, the card leaving play via build pile 1 (turn-ending)", "play",
        json_pack("[i,n,[i,i]]", 5, 0, 0));
    json_object_set_new(r, "plays", shapes);
    json_object_set_new(r, "turn", json_pack("[s,s,s,s,s,s,s]",
        "deal: 8 stockpile cards each (top visible), the rest is the draw pile",
        "a turn: draw up to 5 cards (again whenever the hand empties mid-turn), then play",
        "build piles start with a 2 or K; same colour, adjacent values, no wrap; a 2, K or Ace completes a pile, which is shuffled back into the draw pile",
        "discard piles: started only by their owner from the hand (turn-ending); alternate colours, adjacent values with K-2 wrap; never an Ace; an illegal card from the hand restarts a pile (turn-ending)",
        "the turn ends after a turn-ending play, 5 plays, or when no play is possible (recorded as [3, null, [null, null]]); a player may not stop while a play exists",
        "win by emptying the stockpile; the game is abandoned when the draw pile is empty and nobody can play",
        "after 20 turns each the game ends with no winner (turn-limit)"));
    json_object_set_new(r, "bonus", json_pack("[s,s,s,s,s,s,s]",
        "108 cards: the two decks and 4 jokers ZZ, wild for any value but an Ace, colour undetermined",
        "a pile with jokers is legal when some reading of its jokers makes every adjacent pair legal; the reading is re-evaluated from the pile as it stands after every play",
        "a joker may start a build pile (as a 2 or K); a build pile whose top can be read as a 2 or K is completed and cleared at once (a joker never stands for an Ace)",
        "a joker on a non-empty discard pile is always a legal, non-turn-ending play; a natural card on a joker must fit some reading of it; a joker may start its owner's discard pile from the hand (turn-ending)",
        "each player holds one embargo card, used at most once: [4, null, [2, target]] embargoes another player whose stockpile holds 3 cards or fewer and who is not embargoed now (turn-ending)",
        "an embargoed player may only play from the stockpile until they clear the embargo with [5, null, destination] (any build or discard pile; turn-ending; the card leaves play)",
        "embargo plays count as possible plays: a player may not claim no play while one exists; a cleared player may be embargoed again by another player's unused card"));
    return r;
}

static int init(void *vst, const char *variant, int nplayers, uint64_t seed,
                const json_t *options, game_err *e)
{
    (void)nplayers; /* BO_NP: game_init checked both */
    static const char *const OPTIONS[] = {NULL};
    if (options && !json_is_null(options) &&
        (jx_object(options, "/options", e) || jx_known(options, "/options", OPTIONS, e)))
        return ERR_BAD_MEMBER;
    bo_deal_variant(vst, seed, variant && strcmp(variant, "bonus") == 0);
    return 0;
}

static json_t *history(const void *st, int seat)
{
    (void)seat; /* all plays are public; drawn cards are never recorded */
    return bo_history(st);
}

static void status(const void *vst, game_status *out)
{
    const bo_state *st = vst;
    memset(out, 0, sizeof *out);
    out->over = st->result != BO_PLAYING;
    out->to_move = out->over ? -1 : st->cur;
    out->nseats = BO_NP;
    out->winner = st->winner;
    out->result = bo_result_name(st->result);
    for (int p = 0; p < BO_NP; p++) {
        out->turns += st->turns[p];
        out->score[p] = BO_STOCK - st->nstock[p];
    }
    out->plays = st->nhist;
}

static json_t *legal(const void *vst, int seat)
{
    const bo_state *st = vst;
    json_t *a = json_array();
    if (st->result != BO_PLAYING || seat != st->cur)
        return a;
    bo_obs o;
    bo_play all[BO_MAXPLAYS];
    bo_observe(st, seat, &o);
    int n = bo_gen(&o, all, NULL);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, bo_play_json(&all[i]));
    if (n == 0) {
        bo_play pass = {.type = BO_NO_PLAY};
        json_array_append_new(a, bo_play_json(&pass));
    }
    return a;
}

static int parse(const void *vst, const json_t *play, void *p, game_err *e)
{
    const bo_state *st = vst;
    return bo_play_parse(play, st->variant, p, e);
}

static int judge(const void *vst, const void *vp, game_verdict *v)
{
    const bo_state *st = vst;
    const bo_play *p = vp;
    const char *rule = "";
    int r = bo_state_judge(st, p, v ? v->reason : NULL, v ? sizeof v->reason : 0, v ? &rule : NULL);
    if (!v)
        return r;
    snprintf(v->rule, sizeof v->rule, "%s", rule);
    v->turn_ending = r == 2 || r == 3;
    if (r == 1) {
        size_t len = strlen(v->reason);
        if (p->type == BO_FROM_STOCK && st->nstock[st->cur] == 1) {
            v->turn_ending = 1;
            snprintf(v->reason + len, sizeof v->reason - len, "; it empties the stockpile and wins");
        } else if (st->plays_this_turn + 1 >= BO_PLAYS) {
            v->turn_ending = 1;
            snprintf(v->reason + len, sizeof v->reason - len, "; the 5th play ends the turn");
        }
    }
    return r;
}

/* A play may be taken back (game.h: undoable) when it neither ends the
 * turn nor shows anything new: not from the stockpile (its next card turns
 * up), not the hand's last card (the hand is drawn up again). A card from
 * the hand or from a discard pile (every discard pile is in view) onto a
 * pile is, even one that completes a build pile: the pile goes into the
 * draw pile, whose order nobody sees, and taking the play back takes back
 * the shuffle with it (the position is rebuilt from the log). */
static int undoable(const void *vst, int seat, const json_t *play, char *why, size_t n)
{
    const bo_state *st = vst;
    bo_play p;
    game_verdict v;
    game_err e = {0};
    const char *no = NULL;
    if (game_judge(&comp10001bo_ops, st, seat, play, &p, &v, &e) || !v.valid)
        no = "it is not a play that was allowed here";
    else if (v.turn_ending)
        no = "it ended the turn";
    else if (p.type == BO_FROM_STOCK)
        no = "it turned up the stockpile's next card";
    else if (p.type == BO_FROM_HAND && st->nhand[seat] <= 1)
        no = "it played the hand's last card, and the hand was drawn up again";
    else if (p.type != BO_FROM_HAND && p.type != BO_FROM_DISCARD)
        no = "only a card moved from the hand or a discard pile can be taken back";
    if (no && why)
        snprintf(why, n, "%s", no);
    return !no;
}

/* Make a play bo_state_judge() judged `verdict` (1-3); record may be NULL.
 * The record is the same for every reader. */
static void make(bo_state *st, const bo_play *p, int verdict, json_t **record,
                 const char *explanation)
{
    bo_effect fx;
    bo_do(st, p, verdict, &fx);
    if (record)
        *record = bo_record(st, st->nhist - 1, &fx, explanation);
}

static void commit(void *st, const void *p, int reader, const char *why, json_t **record)
{
    (void)reader;
    make(st, p, bo_state_judge(st, p, NULL, 0, NULL), record, why);
}

/* Why the seat to move cannot play (for the recorded pass). */
static void no_play_reason(const bo_state *st, char *out, size_t n)
{
    int s = st->cur, h = st->nhand[s];
    const char *hand = h == 0 ? (st->ndraw ? "the hand is empty" : "the hand and the draw pile are empty")
                              : "the hand holds only Aces that no build pile takes";
    if (st->nstock[s])
        snprintf(out, n, "no possible play: %s, the stockpile top %s fits no pile, and no discard pile top can move",
                 hand, bo_card_name(st->stock[s][st->nstock[s] - 1]));
    else
        snprintf(out, n, "no possible play: %s", hand);
}

static int autoplay(void *vst, json_t **record)
{
    bo_state *st = vst;
    if (record)
        *record = NULL;
    if (st->result != BO_PLAYING || bo_seat_can_play(st, st->cur))
        return 0;
    char why[320];
    bo_play pass = {.type = BO_NO_PLAY};
    no_play_reason(st, why, sizeof why);
    make(st, &pass, 3, record, why);
    GAME_CHECK(&comp10001bo_ops, st);
    return 1;
}

/* The strategies: each chooses from what the seat may see (a bo_obs). */
static void planner(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    bo_obs o;
    (void)r;
    bo_observe(st, seat, &o);
    bo_plan(&o, p, why, n);
}

static void standard(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    bo_obs o;
    (void)r;
    bo_observe(st, seat, &o);
    bo_plan_n(&o, 1000, p, why, n);
}

static void random_play(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    bo_obs o;
    bo_observe(st, seat, &o);
    bo_random(&o, r, p, why, n);
}

static const game_bot BOTS[] = {
    {"planner",
     "plans the whole turn (up to five plays) for stockpile progress, then weighs the table it leaves: "
     "how close its own stockpile top is to a pile with the cards it holds, and which build or discard "
     "piles the other players' stockpile tops could go on, now or through one more card, and how many "
     "kinds of card the table takes at once; it ends the turn with the discard that feeds them least. "
     "In the bonus game it also keeps jokers for stockpile "
     "progress, embargoes the opponent closest to winning and clears its own embargo as soon as its "
     "stockpile cannot move",
     planner, NULL},
    {"standard",
     "the earlier planner (the baseline): searches this turn's play sequences for stockpile progress and "
     "only keeps the build piles from the other players' stockpile tops; in the bonus game it plays "
     "legally but uses jokers like any card and embargo plays only when nothing else ends the turn",
     standard, NULL},
    {"random",
     "a uniformly random possible play",
     random_play, NULL},
    {NULL, NULL, NULL, NULL},
};
_Static_assert(sizeof(bo_play) <= GAME_PLAY_MAX, "a play fits game_bot's buffer");

static uint64_t bot_key(const void *st) { return ((const bo_state *)st)->bkey; }

/* Help mode: the planner's play, its line said to the player ("Play 7H
 * from your hand onto build pile 2 (6D): ..."). */
static int hint(const void *st, int seat, json_t **out, game_err *e)
{
    static const char *const WORD[][2] = {
        {"the hand", "your hand"},           {"the stockpile", "your stockpile"},
        {": sheds ", ": it sheds "},         {": keeps the turn", ": it keeps the turn"},
        {": moves a ", ": it moves a "},     {": ends the turn", ": it ends the turn"},
        {": first step of ", ": the first step of "},
    };
    bo_obs o;
    bo_play p;
    char why[400], said[400];
    (void)e;
    bo_observe(st, seat, &o);
    bo_plan(&o, &p, why, sizeof why);
    voice_to_player(why, WORD, sizeof WORD / sizeof WORD[0], said, sizeof said);
    *out = json_pack("{s:o,s:s,s:s}", "play", bo_play_json(&p), "explanation", said, "strategy", BOTS[0].name);
    return 0;
}

static void reveal(void *st) { ((bo_state *)st)->revealed = 1; }

extern const game_guide bo_guide; /* bo_guide.c: the game for players */

const game_ops comp10001bo_ops = {
    .name = "comp10001bo",
    .title = "Comp10001-Bo",
    .variants = VARIANTS,
    .min_players = BO_NP,
    .max_players = BO_NP,
    .bots = BOTS,
    .state_size = sizeof(bo_state),
    .fns = bo_fns,
    .nfns = BO_NFNS,
    .suites = bo_suites,
    .nsuites = BO_NSUITES,
    .rules = rules,
    .guide = &bo_guide,
    .init = init,
    .decode = bo_decode,
    .encode = bo_encode,
    .view = bo_view,
    .status = status,
    .legal = legal,
    .parse = parse,
    .judge = judge,
    .commit = commit,
    .autoplay = autoplay,
    .bot_key = bot_key,
    .play_json = bo_play_json,
    .explain = bo_explain,
    .history = history,
    .hint = hint,
    .reveal = reveal,
    .redeal = bo_redeal,
    .fn_args = bo_fn_args,
    .undoable = undoable,
    .invariants = bo_invariants,
};
