/* play.c: a play, the same for every game (game.h: game_judge, game_apply,
 * game_bot_apply).
 *
 * A game gives three steps: parse (its JSON into its own play value), judge
 * (legal now or not, and why) and commit (make it, and its record). What
 * is the same in every game lives here once: a finished game and a seat
 * out of turn refused before the play is read (from ops->status), an
 * illegal play refused with its rule before anything changes, so that no
 * play is ever half made, and the debug builds' check of the invariants
 * after every play made.
 */
#include "game.h"

#include <stdio.h>
#include <string.h>

int game_judge(const game_ops *ops, const void *st, int seat, const json_t *play, void *p,
               game_verdict *v, game_err *e)
{
    game_status gs;
    game_play_buf own;
    ops->status(st, &gs);
    if (gs.over)
        return err_set(e, ERR_GAME_OVER, "", "the game is over (%s)", gs.result);
    if (seat != gs.to_move)
        return err_set(e, ERR_NOT_YOUR_TURN, "", "it is player %d's turn", gs.to_move + 1);
    if (!p)
        p = own.bytes;
    if (ops->parse(st, play, p, e))
        return ERR_BAD_MEMBER;
    memset(v, 0, sizeof *v);
    v->valid = ops->judge(st, p, v) != 0;
    return 0;
}

int game_apply(const game_ops *ops, void *st, int seat, const json_t *play, json_t **record,
               game_err *e)
{
    game_play_buf p;
    game_verdict v;
    if (record)
        *record = NULL;
    int rc = game_judge(ops, st, seat, play, p.bytes, &v, e);
    if (rc)
        return rc;
    if (!v.valid)
        return err_rule(e, v.rule, "%s", v.reason);
    ops->commit(st, p.bytes, seat, NULL, record);
    GAME_CHECK(ops, st);
    return 0;
}

int game_bot_apply(const game_ops *ops, void *st, const void *p, const char *why, json_t **record)
{
    if (record)
        *record = NULL;
    if (!ops->judge(st, p, NULL))
        return -1;
    ops->commit(st, p, SEAT_TABLE, why, record);
    return 0;
}
