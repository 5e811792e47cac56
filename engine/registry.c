/* registry.c: the table of games. Adding a game is one row here and a
 * folder under engine/; nothing in api/ changes. */
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

static int in_list(const char *const *list, const char *s)
{
    if (!s)
        return 0;
    for (; list && *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

int game_has_variant(const game_ops *ops, const char *variant)
{
    return in_list(ops->variants, variant);
}

int game_has_bot(const game_ops *ops, const char *strategy)
{
    return game_find_bot(ops, strategy) != NULL;
}
