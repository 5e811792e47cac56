/* hanabi_events.c: the seed's listener events (section 2.5.2 of 001) as one
 * seat may see them, and the hanab.live JSON export.
 *
 * Both replay the game from its dealt deck and its actions, in the order
 * the seed's game loop fires the listeners: onStart; then per turn
 * onTurnStart(index) to everyone, onHintColor/onHintNumber to the hinted
 * player only, onPlayerAction to everyone (the actor's own draw as
 * [-1, -1]); onGameEnd at the end. While the game goes on, the last event
 * is the onTurnStart of the turn being waited for. When a play or discard
 * finds the deck empty, "draw" is [-1, -1] for everyone (the seed always
 * sends the key for action types 2 and 3). onPlayerAction carries no
 * "index" member: the seed's load has none. Spectators and the admin see
 * every card, but no onHintColor/onHintNumber (the seed fires those only
 * for the target). Each event has an extra "n" (1-based, per seat).
 */
#include "hanabi.h"

#include <stdio.h>
#include <string.h>

static void push(json_t *a, json_t *ev, long *n, long after)
{
    ++*n;
    if (*n > after) {
        json_object_set_new(ev, "n", json_integer(*n));
        json_array_append_new(a, ev);
    } else {
        json_decref(ev);
    }
}

static json_t *pair(int c, int hidden)
{
    if (!c || hidden)
        return json_pack("[i,i]", -1, -1);
    return json_pack("[i,i]", hn_suit(c), hn_rank(c));
}

json_t *hn_events(const hanabi_state *st, int seat, long after)
{
    json_t *a = json_array();
    long n = 0;
    hanabi_state replay, *r = &replay; /* a copy replayed from the deal */
    memcpy(r, st, sizeof *r);
    hn_start(r, st->variant, st->np, st->endrule, st->first, st->deck, st->ndeck);

    json_t *hc = json_array(), *hnum = json_array();
    for (int p = 0; p < r->np; p++) {
        json_t *c = json_array(), *m = json_array();
        for (int i = 0; i < r->nhand[p]; i++) {
            int card = r->hand[p][i];
            json_array_append_new(c, json_integer(p == seat ? -1 : hn_suit(card)));
            json_array_append_new(m, json_integer(p == seat ? -1 : hn_rank(card)));
        }
        json_array_append_new(hc, c);
        json_array_append_new(hnum, m);
    }
    push(a, json_pack("{s:s,s:o,s:o}", "event", "onStart", "handColor", hc, "handNumber", hnum), &n, after);

    for (int t = 0; t < st->nhist; t++) {
        const hn_hist *h = &st->hist[t];
        int actor = r->cur;
        push(a, json_pack("{s:s,s:i}", "event", "onTurnStart", "index", actor), &n, after);
        int hint = h->type == HN_HINT_COLOR || h->type == HN_HINT_NUMBER;
        if (hint && seat == h->target) {
            int m = hn_touch(r, h->target, h->type, h->value);
            json_t *col = json_array(), *num = json_array();
            for (int i = 0; i < r->nhand[h->target]; i++) {
                int hit = m >> i & 1;
                json_array_append_new(col, json_integer(h->type == HN_HINT_COLOR && hit ? h->value : -1));
                json_array_append_new(num, json_integer(h->type == HN_HINT_NUMBER && hit ? h->value : -1));
            }
            push(a, json_pack("{s:s,s:o,s:o}", "event",
                              h->type == HN_HINT_COLOR ? "onHintColor" : "onHintNumber",
                              "hintColor", col, "hintNumber", num), &n, after);
        }
        json_t *ev = json_pack("{s:s,s:i,s:i}", "event", "onPlayerAction", "actionType", h->type,
                               "target", h->target);
        if (h->type == HN_HINT_COLOR)
            json_object_set_new(ev, "color", json_integer(h->value));
        else if (h->type == HN_HINT_NUMBER)
            json_object_set_new(ev, "number", json_integer(h->value));
        else {
            json_object_set_new(ev, h->type == HN_PLAY ? "play" : "discard", pair(h->card, 0));
            json_object_set_new(ev, "draw", pair(h->drew, seat == actor));
        }
        push(a, ev, &n, after);
        hn_play p = {h->type, h->target, h->value};
        hn_do(r, &p);
    }
    if (r->over)
        push(a, json_pack("{s:s,s:i,s:i}", "event", "onGameEnd", "reason", r->reason, "score",
                          hn_score(r)), &n, after);
    else
        push(a, json_pack("{s:s,s:i}", "event", "onTurnStart", "index", r->cur), &n, after);
    return a;
}

/* hanab.live suit order: Red Yellow Green Blue Purple (Rainbow); our white
 * stands in for its fifth suit, Purple, as No Variant has no white. */
static const int HL_SUIT[6] = {0, 1, 3, 2, 4, 5};
static const char *const HL_NAMES[5] = {"Alice", "Bob", "Cathy", "Donald", "Emily"};

int hn_export_hanablive(const hanabi_state *st, char **out, size_t *len, game_err *e)
{
    int np = st->np, h = st->handsize, f = st->first;
    int map[HN_MAXDECK]; /* our deck index -> exported card order */
    for (int k = 0; k < st->ndeck; k++)
        map[k] = k < np * h ? ((k / h - f + np) % np) * h + k % h : k;
    json_t *o = json_object();
    json_t *players = json_array();
    for (int i = 0; i < np; i++)
        json_array_append_new(players, json_string(HL_NAMES[(f + i) % np]));
    json_object_set_new(o, "players", players);
    int inv[HN_MAXDECK];
    for (int k = 0; k < st->ndeck; k++)
        inv[map[k]] = k;
    json_t *deck = json_array();
    for (int x = 0; x < st->ndeck; x++)
        json_array_append_new(deck, json_pack("{s:i,s:i}", "suitIndex", HL_SUIT[hn_suit(st->deck[inv[x]])],
                                              "rank", hn_rank(st->deck[inv[x]])));
    json_object_set_new(o, "deck", deck);

    hanabi_state replay, *r = &replay;
    memcpy(r, st, sizeof *r);
    hn_start(r, st->variant, np, st->endrule, f, st->deck, st->ndeck);
    json_t *acts = json_array();
    for (int t = 0; t < st->nhist; t++) {
        const hn_hist *hh = &st->hist[t];
        int type, target, value;
        switch (hh->type) {
        case HN_HINT_COLOR:
            type = 2, target = (hh->target - f + np) % np, value = HL_SUIT[hh->value];
            break;
        case HN_HINT_NUMBER:
            type = 3, target = (hh->target - f + np) % np, value = hh->value;
            break;
        default:
            type = hh->type == HN_PLAY ? 0 : 1;
            target = map[r->order[r->cur][hh->target]];
            value = 0;
        }
        json_array_append_new(acts, json_pack("{s:i,s:i,s:i}", "type", type, "target", target, "value", value));
        hn_play p = {hh->type, hh->target, hh->value};
        hn_do(r, &p);
    }
    json_object_set_new(o, "actions", acts);
    json_object_set_new(o, "options", json_pack("{s:s}", "variant",
                                                st->variant ? "Rainbow (6 Suits)" : "No Variant"));
    *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!*out)
        return err_set(e, ERR_INTERNAL, "", "out of memory");
    *len = strlen(*out);
    return 0;
}
