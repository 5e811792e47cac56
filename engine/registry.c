/* registry.c: the table of games. Adding a game is one row here and a
 * folder under engine/; nothing in api/ changes. Beside it, the lookups
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

json_t *game_legal_page(const game_ops *ops, const void *st, int seat, size_t offset, size_t limit,
                        size_t *total)
{
    if (ops->legal_page)
        return ops->legal_page(st, seat, offset, limit, total);
    json_t *all = ops->legal(st, seat), *slice = json_array();
    *total = json_array_size(all);
    for (size_t i = offset; i < *total && i - offset < limit; i++)
        json_array_append(slice, json_array_get(all, i));
    json_decref(all);
    return slice;
}
