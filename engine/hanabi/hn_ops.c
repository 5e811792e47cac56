/* hn_ops.c: Hanabi's row in the game registry (game.h): the glue
 * between the generic interface and hn_*.
 *
 * Every mutating entry point judges the play completely on the unchanged
 * state before hn_do() touches it, so an error leaves the state as it was.
 * Bots and help mode see an hn_obs (hn_observe), never the state.
 */
#include "game.h"
#include "hn.h"

#include "core/jsonx.h"

#include <stdio.h>
#include <string.h>

extern const game_ops hanabi_ops; /* at the end; GAME_CHECK names it */

static const char *const VARIANTS[] = {"standard", "rainbow", NULL};
static const char *const EXPORTS[] = {"hanablive", NULL};

static json_t *rules(void)
{
    json_t *r = json_object(); /* the game's own text: the catalogue's members come from the row */
    json_object_set_new(r, "notation", json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s}",
        "cards", "colour letter + number: \"R3\", \"Y1\", \"B2\", \"G4\", \"W5\", \"M1\" (M = rainbow); a hidden card is \"??\"",
        "colours", "R red 0, Y yellow 1, B blue 2, G green 3, W white 4, M rainbow 5 (the seed's enum; unknown is -1)",
        "deck", "per colour: three 1s, two each of 2, 3 and 4, one 5 (50 cards; 60 with rainbow)",
        "hands", "5 cards with 2-3 players, 4 with 4-5; dealt player by player from player 0; index 0 is the oldest, "
                 "leftmost card; a drawn card is appended at the end (as the seed's game.py); "
                 "the cards after a played or discarded card move one place left",
        "players", "players 0..n-1 in turn order; the seed picks the starting player at random",
        "hint_info", "each card in a view lists the colours and numbers hints touched it with (touched), the ones "
                     "hints named without touching it (not), and what it may still be from the hints alone (possible); "
                     "in the rainbow variant a card touched by a colour hint is that colour or rainbow"));
    json_object_set_new(r, "plays", json_pack(
        "{s:s,s:s,s:[{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o},{s:s,s:o}]}",
        "shape", "{\"type\":\"hint\",\"target\":player,\"color\":\"R\"|...} or {\"type\":\"hint\",\"target\":player,\"number\":1-5}, "
                 "{\"type\":\"play\",\"card\":index}, {\"type\":\"discard\",\"card\":index}",
        "seed_shape", "the seed's {\"actionType\",\"target\",\"color\",\"number\"}: actionType 0 hint colour (color 0-4), "
                      "1 hint number (number 1-5), 2 discard, 3 play (target: player for hints, hand index otherwise); "
                      "unused members may be absent, null or any integer",
        "examples",
        "text", "hint player 3 about their red cards", "play", json_pack("{s:s,s:i,s:s}", "type", "hint", "target", 2, "color", "R"),
        "text", "hint player 3 about their 3s", "play", json_pack("{s:s,s:i,s:i}", "type", "hint", "target", 2, "number", 3),
        "text", "play the oldest card", "play", json_pack("{s:s,s:i}", "type", "play", "card", 0),
        "text", "discard card 3", "play", json_pack("{s:s,s:i}", "type", "discard", "card", 3),
        "text", "the same colour hint in the seed's form", "play",
        json_pack("{s:i,s:i,s:i,s:n}", "actionType", 0, "target", 2, "color", 0, "number"),
        "text", "play card 1 in the seed's form", "play", json_pack("{s:i,s:i}", "actionType", 3, "target", 1)));
    json_object_set_new(r, "turn", json_pack("[s,s,s,s,s,s,s]",
        "8 hint tokens, 3 error tokens; one action per turn",
        "hint: costs a token, names a colour or a number to another player and must touch at least one of their cards; "
        "not with 0 tokens. Rainbow variant: rainbow cannot be named, and every colour hint also touches rainbow cards",
        "discard: gains a token (not allowed with all 8 tokens), then draw",
        "play: correct when it is a 1 on an empty pile of its colour or the next number of that pile (rainbow has its own "
        "sixth pile); a correct 5 gives a token back if below 8; a wrong play is discarded and costs an error token; then draw. "
        "No draw from an empty deck",
        "the game ends at once with the 3rd error (reason 0), or when every 5 is on the field (reason 2)",
        "end \"seed\" (default, the seed's reading): when a player must draw and the deck is empty (a play or discard after "
        "the last card was drawn; hints do not count), every player, that player included, takes one more turn: the game "
        "ends np turns after that play or discard (reason 1)",
        "end \"standard\" (option {\"end\":\"standard\"}, hanab.live): the game ends np turns after the turn in which the "
        "last card was drawn: every player, the one who drew it included, gets exactly one more turn (reason 1)"));
    json_object_set_new(r, "scoring", json_string("the team score is the number of cards on the field, also when the game "
                                                  "ends by 3 errors; max 25 (30 with rainbow)"));
    json_object_set_new(r, "options", json_pack("{s:s}", "end", "\"seed\" (default) or \"standard\": see turn"));
    json_object_set_new(r, "events", json_string(
        "the seed's listener events (section 2.5.2): onStart, onTurnStart, onHintColor/onHintNumber (the hinted player "
        "only), onPlayerAction (no index member, as the seed; the actor's own draw is [-1,-1]; a play or discard from an "
        "empty deck has draw [-1,-1]), onGameEnd; each with \"n\". A card the reader may not see is -1 / [-1,-1]: a "
        "seat's own cards and draws; every hand card to a spectator (each hand is hidden from its owner, so no hand "
        "card is public) unless the table lets spectators see all hands; every card once the game is over"));
    json_object_set_new(r, "export", json_string(
        "format=hanablive: the hanab.live JSON game format; players listed from the one who moved first (placeholder "
        "names Alice, Bob, ... by seat), deck in that dealing order, suits in hanab.live's order Red Yellow Green Blue "
        "Purple (our white) Rainbow. hanab.live ends a game by its own rules: one round after the last card is drawn "
        "(our \"standard\" end), or as soon as no card that could still be played is left to a player with a turn to "
        "come, and scores a game lost to the 3rd error 0. The export holds the actions hanab.live replays; when that is "
        "not the whole game or its score, a member \"croupier\" says so: {note, end, hanablive_end, actions, "
        "exported_actions, dropped_actions, score, hanablive_score}"));
    json_object_set_new(r, "conventions", hn_conv_rules());
    return r;
}

static int init(void *vst, const char *variant, int nplayers, uint64_t seed,
                const json_t *options, game_err *e)
{
    int v = variant && strcmp(variant, "rainbow") == 0, endrule; /* game_init checked it */
    if (hn_options(options, &endrule, e))
        return ERR_BAD_MEMBER;
    hn_deal(vst, v, nplayers, endrule, seed);
    return 0;
}

static void status(const void *vst, game_status *out)
{
    const hn_state *st = vst;
    memset(out, 0, sizeof *out);
    out->over = st->over;
    out->to_move = st->over ? -1 : st->cur;
    out->nseats = st->np;
    out->winner = -1;
    out->result = hn_result_name(st);
    out->turns = st->nhist;
    out->plays = st->nhist;
    for (int p = 0; p < st->np; p++)
        out->score[p] = hn_score(st);
    out->max_score = hn_max_score(st);
}

static json_t *legal(const void *vst, int seat)
{
    const hn_state *st = vst;
    json_t *a = json_array();
    if (st->over || seat != st->cur)
        return a;
    hn_play all[HN_MAXLEGAL];
    int n = hn_legal(st, all);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, hn_play_json(&all[i]));
    return a;
}

static int judge(const void *st, const void *p, game_verdict *v)
{
    const char *rule = "";
    int ok = hn_judge(st, p, v ? v->reason : NULL, v ? sizeof v->reason : 0, v ? &rule : NULL);
    if (v) {
        v->turn_ending = ok;
        snprintf(v->rule, sizeof v->rule, "%s", rule);
    }
    return ok;
}

/* The record as `reader` sees it: the mover's own draw stays hidden from
 * them; a bot's play as every seat but the bot sees it (the draw shown:
 * the reply carrying it goes to a person at the table; a bot reads none). */
static void commit(void *st, const void *p, int reader, const char *why, json_t **record)
{
    hn_state *h = st;
    hn_do(h, p);
    if (record)
        *record = hn_record(h, h->nhist - 1, reader == SEAT_TABLE ? SEAT_OBSERVER : reader, why);
}

/* The strategies. "conventions" and "info" choose from the state as the
 * seat may know it (hn_mask), "rules" and "random" from an hn_obs. */
static void conventions(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    hn_state m; /* 1.6 KB: what this seat may know */
    (void)r;
    hn_mask(st, seat, &m);
    hn_conv_bot(&m, seat, p, why, n);
}

static void info(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    hn_state m;
    (void)r;
    hn_mask(st, seat, &m);
    hn_info_bot(&m, seat, p, why, n);
}

static void rules_bot(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    hn_obs o;
    (void)r;
    hn_observe(st, seat, &o);
    hn_rules_bot(&o, p, why, n);
}

static void random_play(const void *st, int seat, rng *r, void *p, char *why, size_t n)
{
    hn_obs o;
    hn_observe(st, seat, &o);
    hn_random_bot(&o, r, p, why, n);
}

/* `info` only where every seat plays it: its hints are codes that only
 * another `info` player decodes. */
static int info_seats_ok(const char *const *bots, int n, game_err *e)
{
    for (int i = 0; i < n; i++)
        if (!bots[i] || strcmp(bots[i], "info") != 0) {
            char p[32];
            snprintf(p, sizeof p, "/players/%d%s", i, bots[i] ? "/bot" : "");
            return err_set(e, ERR_BAD_MEMBER, p,
                           "the info strategy's hints are codes only other info players read: "
                           "seat it at a table where every seat is info, or use conventions "
                           "(the strategy people can play with)");
        }
    return 0;
}

static const game_bot BOTS[] = {
    {"conventions",
     "the strategy people can learn (see conventions): play clues on the newest touched card that could be "
     "playable, number-clue saves of the next player's chop, discards from the chop; used whenever a person sits "
     "at the table (a resigned seat) and for hints",
     conventions, NULL}, /* people's partner, and help mode's */
    {"info",
     "a hat-guessing information strategy: every hint is a code telling each other player what to do; only for "
     "tables where every seat plays info (refused beside people or other strategies)",
     info, info_seats_ok},
    {"rules",
     "plays cards the hints prove playable, hints partners so their playable cards become provable, saves last "
     "copies, discards the oldest untouched card",
     rules_bot, NULL},
    {"random",
     "a uniformly random legal play",
     random_play, NULL},
    {NULL, NULL, NULL, NULL},
};
_Static_assert(sizeof(hn_play) <= GAME_PLAY_MAX, "a play fits game_bot's buffer");

static uint64_t bot_key(const void *st) { return ((const hn_state *)st)->seed; }

/* What a spectator knows, seen from the mover's seat: no card of any hand
 * (only what hints told of them), the piles, the discards, the counts. */
static void public_obs(const hn_state *st, int seat, hn_obs *o)
{
    hn_observe(st, seat, o);
    memset(o->hand, 0, sizeof o->hand);
    memcpy(o->seen, o->dead, sizeof o->seen);
    for (int k = 0; k < st->nsuits; k++)
        for (int r = 1; r <= st->fire[k]; r++)
            o->seen[k][r]++;
}

/* The public line of a bot's play: from the public observation and, for a
 * clue, the cards it touches (which the clue shows everyone); the
 * conventions' reading from their replay of the public history. */
static void explain(const void *vst, int seat, const json_t *play, const char *strategy, char *out,
                    size_t n)
{
    const hn_state *st = vst;
    hn_play p;
    hn_obs o;
    game_err e = {0};
    if (hn_play_parse(NULL, play, &p, &e) || p.target < 0 || p.target >= HN_MAXP) {
        snprintf(out, n, "makes a play");
        return;
    }
    int clue = p.type == HN_HINT_COLOR || p.type == HN_HINT_NUMBER;
    int touched = clue ? hn_touch(st, p.target, p.type, p.value) : 0;
    if (strcmp(strategy, "conventions") == 0) {
        hn_conv_explain(st, seat, &p, touched, out, n);
        return;
    }
    public_obs(st, seat, &o);
    hn_bots_explain(&o, strategy, &p, touched, out, n);
}

static int export_as(const void *st, const char *format, char **out, size_t *len,
                     const char **media_type, game_err *e)
{
    *out = NULL;
    if (!format || strcmp(format, "hanablive") != 0)
        return err_set(e, ERR_NOT_FOUND, "", "unknown export format \"%.32s\" (\"hanablive\")",
                       format ? format : "");
    *media_type = "application/json";
    return hn_export_hanablive(st, out, len, e);
}

static void reveal(void *st) { ((hn_state *)st)->revealed = 1; }

extern const game_guide hn_guide; /* hn_guide.c: the game for players */

/* Help mode: the conventions' play, its reason said to the player. */
static int hint(const void *st, int seat, json_t **out, game_err *e)
{
    hn_state m;
    hn_play p;
    char why[400];
    (void)e;
    hn_mask(st, seat, &m);
    hn_conv_hint(&m, seat, &p, why, sizeof why);
    *out = json_pack("{s:o,s:s,s:s}", "play", hn_play_json(&p), "explanation", why, "strategy", BOTS[0].name);
    return 0;
}

const game_ops hanabi_ops = {
    .name = "hanabi",
    .title = "Hanabi",
    .variants = VARIANTS,
    .min_players = HN_MINP,
    .max_players = HN_MAXP,
    .bots = BOTS,
    .state_size = sizeof(hn_state),
    .cooperative = 1,
    .fns = NULL,
    .nfns = 0,
    .rules = rules,
    .guide = &hn_guide,
    .init = init,
    .decode = hn_decode,
    .encode = hn_encode,
    .view = hn_view,
    .view_text = hn_view_text,
    .status = status,
    .legal = legal,
    .parse = hn_play_parse,
    .judge = judge,
    .commit = commit,
    .autoplay = NULL, /* a play is always legal: nobody is ever forced */
    .bot_key = bot_key,
    .play_json = hn_play_json,
    .explain = explain,
    .history = hn_history,
    .events = hn_events,
    .export_formats = EXPORTS,
    .export_as = export_as,
    .hint = hint,
    .reveal = reveal,
    .redeal = hn_redeal,
    .invariants = hn_invariants,
};
