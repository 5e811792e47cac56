/* registry.c: the table of games. Adding a game is one row here, a folder
 * under engine/ and its rules page (docs/engine-guide.md, "Adding a game,
 * step by step"); nothing in api/ changes. Beside it, the lookups
 * every caller makes of the table, and the one paged read of a game's
 * legal plays (GET /games/{id}/legal). */
#include "game.h"

#include <string.h>

extern const game_ops comp10001bo_ops;
extern const game_ops phazed_ops;
extern const game_ops hanabi_ops;
extern const game_ops fivecrowns_ops;

const game_ops *const game_registry[] = {
    &comp10001bo_ops,
    &phazed_ops,
    &hanabi_ops,
    &fivecrowns_ops,
    NULL,
};

const game_ops *game_find(const char *name)
{
    if (!name)
        return NULL;
    for (const game_ops *const *g = game_registry; *g; g++)
        if (strcmp((*g)->name, name) == 0)
            return *g;
    return NULL;
}
