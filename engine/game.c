/* game.c: what is the same for every game, written once from the game's
 * row (engine/game.h): a new game's variant and table size (game_init),
 * its catalogue (GET /rules), a play (game_judge, game_apply) and the
 * legal plays' pages; the strategies' side, a bot's play included, is
 * engine/bots.c. It names no game: engine/registry.c lists them.
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

int game_init(const game_ops *ops, void *st, const char *variant, int nplayers, uint64_t seed,
              const json_t *options, game_err *e)
{
    if (variant && !game_has_variant(ops, variant)) {
        char names[160] = "";
        size_t k = 0;
        for (const char *const *v = ops->variants; *v && k < sizeof names; v++)
            k += (size_t)snprintf(names + k, sizeof names - k, "%s\"%s\"",
                                  v == ops->variants ? "" : v[1] ? ", " : " or ", *v);
        return err_set(e, ERR_BAD_MEMBER, "/variant", "unknown variant \"%.32s\" (%s%s)", variant,
                       ops->variants[1] ? "" : "only ", names);
    }
    if (nplayers < ops->min_players || nplayers > ops->max_players) {
        if (ops->min_players == ops->max_players)
            return err_set(e, ERR_BAD_MEMBER, "/players", "%s is played by exactly %d players, not %d",
                           ops->title, ops->min_players, nplayers);
        return err_set(e, ERR_BAD_MEMBER, "/players", "%s is played by %d to %d players, not %d",
                       ops->title, ops->min_players, ops->max_players, nplayers);
    }
    return ops->init(st, variant, nplayers, seed, options, e);
}

int game_autoplay(const game_ops *ops, void *st, json_t **record)
{
    if (record)
        *record = NULL;
    return ops->autoplay ? ops->autoplay(st, record) : 0;
}

int game_judge(const game_ops *ops, const void *st, int seat, const json_t *play, void *p,
               game_verdict *v, game_err *e)
{
    game_status gs;
    game_play_buf own;
    int rc = game_turn(ops, st, seat, &gs, e);
    if (rc)
        return rc;
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

/* An autograder function as GET /rules lists it: its route and signature,
 * and what a client needs to call it by its course name with nothing of
 * its own about the game (clients/python/croupier.py): the name, the
 * parameters in order (the first nrequired required) and the shape of the
 * answer (docs/autograder.md "shapes": which arrays are the course's
 * tuples), taken from the first suite of the kit the function answers. */
static json_t *fn_json(const game_ops *ops, const game_fn *f, const char *path)
{
    const char *open = strchr(f->signature, '(');
    json_t *params = json_array(), *ret = NULL;
    for (int i = 0; f->params[i]; i++)
        json_array_append_new(params, json_pack("{s:s,s:b}", "name", f->params[i], "required", i < f->nrequired));
    for (int i = 0; i < ops->nsuites && !ret; i++)
        if (ops->suites[i].call == f && ops->suites[i].shapes) {
            json_t *shapes = json_loads(ops->suites[i].shapes, 0, NULL);
            ret = json_incref(json_object_get(shapes, "return"));
            json_decref(shapes);
        }
    return json_pack("{s:s,s:s,s:s,s:s%,s:o,s:o}", "kind", f->kind, "path", path, "signature", f->signature,
                     "name", f->signature, open ? (size_t)(open - f->signature) : strlen(f->signature),
                     "params", params, "returns", ret ? ret : json_string("any"));
}

json_t *game_catalogue_json(const game_ops *ops)
{
    json_t *variants = json_array(), *bots = json_array(), *fns = json_array();
    json_t *formats = json_pack("[s]", "json"); /* GET /games/{id}/export?format= */
    for (const char *const *f = ops->export_formats; f && *f; f++)
        json_array_append_new(formats, json_string(*f));
    for (const char *const *v = ops->variants; *v; v++)
        json_array_append_new(variants, json_string(*v));
    /* the bots a person may sit beside: those the game's own seating rule
     * accepts at a table of one person and that bot */
    json_t *with_people = json_array();
    for (const game_bot *b = ops->bots; b->name; b++) {
        json_array_append_new(bots, json_string(b->name));
        if (game_bot_with_people(ops, b))
            json_array_append_new(with_people, json_string(b->name));
    }
    for (int i = 0; i < ops->nfns; i++) {
        const game_fn *f = &ops->fns[i];
        char path[128];
        if (strcmp(f->kind, "play") == 0)
            snprintf(path, sizeof path, "/play/%s%s%s", ops->name, f->name[0] ? "/" : "", f->name);
        else
            snprintf(path, sizeof path, "/%s/%s/%s", f->kind, ops->name, f->name);
        json_array_append_new(fns, fn_json(ops, f, path));
    }
    char md[96], html[96];
    snprintf(md, sizeof md, "/docs/rules/%s.md", ops->name);
    snprintf(html, sizeof html, "/docs/rules/%s.html", ops->name);
    json_t *doc = json_pack("{s:s,s:s,s:o,s:{s:i,s:i,s:i},s:b,s:o,s:o,s:o,s:o,s:s}", "game", ops->name,
                     "title", ops->title, "variants", variants, "players", "min",
                     ops->min_players, "max", ops->max_players, "default",
                     ops->default_players ? ops->default_players : ops->min_players,
                     "cooperative", ops->cooperative, "bots", bots, "bots_with_people",
                     with_people, "functions", fns, "export_formats", formats,
                     "rules_page", md);
    json_object_set_new(doc, "rules_html", json_string(html)); /* the page, rendered */
    json_t *guide = game_guide_json(ops); /* the game in players' words */
    if (guide)
        json_object_set_new(doc, "guide", guide);
    return doc;
}

json_t *game_rules_json(const game_ops *ops)
{
    json_t *doc = game_catalogue_json(ops);
    json_t *own = ops->rules ? ops->rules() : NULL;
    if (own) {
        json_object_update_missing(doc, own); /* the game's own text beside the row's */
        json_decref(own);
    }
    json_object_set_new(doc, "bots", game_bots_json(ops)); /* the rows, each with what it does */
    return doc;
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
