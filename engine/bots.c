/* bots.c: a game's strategies, played the same way for every game.
 *
 * A game lists its strategies as rows of ops->bots ({name, choose,
 * seats_ok}); choose() picks a play from what the seat to move may see, and
 * bot_apply() below makes it with the game's judge and commit. Its reason comes in two lines: the
 * strategy's own (which may rest on the seat's hand: the record's
 * "reasoning", for the admin and for after the game) and the game's
 * explain() of the play from public facts (the "explanation" every reader
 * is shown). Everything around that -- finding the
 * row by name ("default" is bots[0] in every game), refusing a finished
 * game, drawing chance from the game's counter-based stream (bot_chance
 * below: nothing of it is kept in the state), help mode's answer, a
 * seating some strategy cannot play -- lives here once rather than in each
 * game. So does game_check, the debug builds' check of a game's invariants
 * after a play.
 */
#include "game.h"
#include "core/voice.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A strategy's chance at the position st: the stream keyed by the game's
 * bot key at the number of plays made so far. The same position gives the
 * same draws (help mode's answer is the default bot's play), and a replay
 * of the log needs none of it. */
static rng bot_chance(const game_ops *ops, const void *st, const game_status *gs)
{
    return rng_at(ops->bot_key(st), (uint64_t)(gs->plays < 0 ? 0 : gs->plays));
}

const game_bot *game_find_bot(const game_ops *ops, const char *strategy)
{
    if (!strategy || !ops->bots || !ops->bots[0].name)
        return NULL;
    if (strcmp(strategy, "default") == 0)
        return &ops->bots[0];
    for (const game_bot *b = ops->bots; b->name; b++)
        if (strcmp(b->name, strategy) == 0)
            return b;
    return NULL;
}

/* Make play value p a strategy chose for the seat to move, with `why` (the
 * public line of explain) as its record's "explanation" (the record as the
 * people at the table see it): the game's judge and commit, as game_apply()
 * makes a person's play. 0, or -1 changing nothing when the play is not
 * legal (a broken strategy). */
static int bot_apply(const game_ops *ops, void *st, const void *p, const char *why, json_t **record)
{
    if (record)
        *record = NULL;
    if (!ops->judge(st, p, NULL))
        return -1;
    ops->commit(st, p, SEAT_TABLE, why, record);
    return 0;
}

int game_bot_play(const game_ops *ops, void *st, const char *strategy, json_t **record,
                  char *explanation, size_t explanation_len, game_err *e)
{
    if (record)
        *record = NULL;
    game_status gs;
    ops->status(st, &gs);
    if (gs.over)
        return err_set(e, ERR_GAME_OVER, "", "the game is over (%s)", gs.result);
    const game_bot *b = game_find_bot(ops, strategy);
    if (!b)
        return err_set(e, ERR_BAD_MEMBER, "", "unknown strategy \"%.32s\"", strategy ? strategy : "");
    game_play_buf play;
    char why[400], pub[400];
    rng r = bot_chance(ops, st, &gs);
    b->choose(st, gs.to_move, &r, play.bytes, why, sizeof why);
    /* every reader's line, from the position before the play */
    json_t *pj = ops->play_json(play.bytes);
    pub[0] = 0;
    if (pj)
        ops->explain(st, gs.to_move, pj, b->name, pub, sizeof pub);
    json_decref(pj);
    if (bot_apply(ops, st, play.bytes, pub, record))
        return err_set(e, ERR_INTERNAL, "", "strategy %s chose an illegal play", b->name);
    GAME_CHECK(ops, st);
    if (record && *record)
        json_object_set_new(*record, "reasoning", json_string(why));
    if (explanation && explanation_len)
        snprintf(explanation, explanation_len, "%s", pub);
    return 0;
}

int game_turn(const game_ops *ops, const void *st, int seat, game_status *gs, game_err *e)
{
    ops->status(st, gs);
    if (gs->over)
        return err_set(e, ERR_GAME_OVER, "", "the game is over (%s)", gs->result);
    if (seat != gs->to_move)
        return err_set(e, ERR_NOT_YOUR_TURN, "", "it is player %d's turn", gs->to_move + 1);
    return 0;
}

int game_hint(const game_ops *ops, const void *st, int seat, json_t **out, game_err *e)
{
    *out = NULL;
    game_status gs;
    int rc = game_turn(ops, st, seat, &gs, e);
    if (rc)
        return rc;
    if (ops->hint)
        return ops->hint(st, seat, out, e);
    game_play_buf play;
    char why[400];
    rng r = bot_chance(ops, st, &gs);
    ops->bots[0].choose(st, seat, &r, play.bytes, why, sizeof why);
    char said[400]; /* the log's line ("takes 2 ...") said to the player ("Take 2 ...") */
    voice_to_player(why, NULL, 0, said, sizeof said);
    *out = json_pack("{s:o,s:s,s:s}", "play", ops->play_json(play.bytes), "explanation", said,
                     "strategy", ops->bots[0].name);
    return 0;
}

json_t *game_bots_json(const game_ops *ops)
{
    json_t *a = json_array();
    for (const game_bot *b = ops->bots; b->name; b++)
        json_array_append_new(a, json_pack("{s:s,s:s}", "name", b->name, "description", b->about));
    return a;
}

int game_seating(const game_ops *ops, const char *const *bots, int n, game_err *e)
{
    for (int i = 0; i < n; i++) {
        const game_bot *b = game_find_bot(ops, bots[i]);
        if (b && b->seats_ok && b->seats_ok(bots, n, e))
            return ERR_BAD_MEMBER;
    }
    return 0;
}

/* May a person sit beside this strategy? Its seats_ok asked of the
 * largest table with a person in seat 0 and the strategy in every other. */
int game_bot_with_people(const game_ops *ops, const game_bot *b)
{
    const char *seat[GAME_MAX_SEATS] = {0};
    for (int i = 1; i < ops->max_players && i < GAME_MAX_SEATS; i++)
        seat[i] = b->name;
    game_err e = {0};
    return !b->seats_ok || b->seats_ok(seat, ops->max_players, &e) == 0;
}

static json_t *guide_lines(const char *const *lines)
{
    json_t *a = json_array();
    for (; lines && *lines; lines++)
        json_array_append_new(a, json_string(*lines));
    return a;
}

json_t *game_guide_json(const game_ops *ops)
{
    const game_guide *g = ops->guide;
    if (!g)
        return NULL;
    json_t *variants = json_array(), *bots = json_array();
    for (const game_guide_row *v = g->variants; v && v->name; v++)
        json_array_append_new(variants, json_pack("{s:s,s:s}", "name", v->name, "text", v->text));
    for (const game_guide_row *r = g->bots; r && r->name; r++) {
        const game_bot *b = game_find_bot(ops, r->name);
        int people = b && game_bot_with_people(ops, b);
        json_t *row = json_pack("{s:s,s:s,s:b}", "name", r->name, "text", r->text, "with_people", people);
        if (!people && r->alone)
            json_object_set_new(row, "alone", json_string(r->alone));
        json_array_append_new(bots, row);
    }
    return json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "summary", g->summary, "length", g->length,
                     "variants", variants, "bots", bots, "turn", guide_lines(g->turn), "winning",
                     guide_lines(g->winning));
}

#ifdef CROUPIER_CHECKS
void game_check(const game_ops *ops, const void *st)
{
    game_err e = {0};
    if (!ops->invariants || ops->invariants(st, &e) == 0)
        return;
    fprintf(stderr, "%s: invariant broken: %s\n", ops->name, e.detail); /* debug builds only */
    abort();
}
#endif
