/* hn_events.c: the seed's listener events (section 2.5.2 of 001) as one
 * seat may see them, and the hanab.live JSON export.
 *
 * Both replay the game from its dealt deck and its actions, in the order
 * the seed's game loop fires the listeners: onStart; then per turn
 * onTurnStart(index) to everyone, onHintColor/onHintNumber to the hinted
 * player only, onPlayerAction to everyone (the actor's own draw as
 * [-1, -1], even in the play that ends the game); onGameEnd at the end. While the game goes on, the last event
 * is the onTurnStart of the turn being waited for. When a play or discard
 * finds the deck empty, "draw" is [-1, -1] for everyone (the seed always
 * sends the key for action types 2 and 3). onPlayerAction carries no
 * "index" member: the seed's load has none. A hand card (in onStart, or a
 * draw) is [-1, -1] / -1 to a reader who may not see it (hn_sees): the
 * seat's own cards, and every hand card to SEAT_SPECTATOR while the game
 * goes on; the played or discarded card is public. Readers that are not a
 * seat get no onHintColor/onHintNumber (the seed fires those only for the
 * target). Each event has an extra "n" (1-based, per reader).
 *
 * The export writes the actions hanab.live replays: its server ends a game
 * by its own rules (its CheckEnd), which can come before ours (see hl_*);
 * what it leaves out, and a score it counts otherwise, is named in an extra
 * member "croupier" (hanab.live ignores members it does not know).
 */
#include "hn.h"

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

/* What a reader sees of `owner`'s hand cards in the events: what hn_sees()
 * says, except that a seat never sees its own, even once the game is over
 * (the seed's protocol sends a player its own cards as -1; an event, once
 * sent, never changes: a reader that asks again gets the same). A past
 * position replayed for a reader (revealed) shows them, as views do. */
static int event_sees(const hn_state *st, int seat, int owner)
{
    if (seat >= 0 && seat == owner && !st->revealed)
        return 0;
    return hn_sees(st, seat, owner);
}

static json_t *pair(int c, int hidden)
{
    if (!c || hidden)
        return json_pack("[i,i]", -1, -1);
    return json_pack("[i,i]", hn_suit(c), hn_rank(c));
}

json_t *hn_events(const void *vst, int seat, long after)
{
    const hn_state *st = vst;
    json_t *a = json_array();
    long n = 0;
    hn_state replay, *r = &replay; /* a copy replayed from the deal */
    memcpy(r, st, sizeof *r);
    hn_start(r, st->variant, st->np, st->endrule, st->first, st->deck, st->ndeck);

    json_t *hc = json_array(), *hnum = json_array();
    for (int p = 0; p < r->np; p++) {
        json_t *c = json_array(), *m = json_array();
        for (int i = 0; i < r->nhand[p]; i++) {
            int card = r->hand[p][i];
            int see = event_sees(st, seat, p);
            json_array_append_new(c, json_integer(see ? hn_suit(card) : -1));
            json_array_append_new(m, json_integer(see ? hn_rank(card) : -1));
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
            int m = h->touched; /* what the hint showed, as recorded (hn_touch of the replay) */
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
            json_object_set_new(ev, "draw", pair(h->drew, !event_sees(st, seat, actor)));
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

/* How hanab.live ends a game (its server's CheckEnd, after every action):
 * the 3rd strike (and it then scores 0); the turn np turns after the one
 * that drew the last card; or when no card that could still be played is
 * left: for every unfinished pile, every copy of its next card is discarded
 * or held by a player who has had their last turn (hanab.live marks the
 * hand of each player taking a final-round turn as never to be played).
 * All fives on the field, and the score reaching the most still possible,
 * are that last case too. */
enum { HL_PLAYING, HL_STRIKES, HL_FINAL_ROUND, HL_NOTHING_PLAYABLE };

static int hl_nothing_playable(const hn_state *r, const uint8_t *gone, const uint8_t *marked)
{
    for (int s = 0; s < r->nsuits; s++) {
        if (r->fire[s] == 5)
            continue;
        int need = hn_card(s, r->fire[s] + 1);
        for (int k = 0; k < r->ndeck; k++)
            if (r->deck[k] == need && !gone[k] && !marked[k])
                return 0;
    }
    return 1;
}

/* The member naming how the export differs from the game (NULL: it does
 * not): the actions left out after hanab.live's end, and the two scores. */
static json_t *hl_difference(const hn_state *st, int kept, int why, int hl_score)
{
    int dropped = st->nhist - kept, score = hn_score(st);
    if (!dropped && hl_score == score)
        return NULL;
    char note[600] = "", *w = note;
    size_t left = sizeof note;
    int n;
    if (dropped) {
        n = snprintf(w, left, "hanab.live ends this game after action %d, %s; the %d action%s after it %s not exported",
                     kept,
                     why == HL_FINAL_ROUND ? "one round after the last card was drawn"
                                           : "as no card that could still be played is left to a player with a turn to come",
                     dropped, dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
        w += n, left -= (size_t)n;
        if (why == HL_FINAL_ROUND && st->endrule == HN_RULE_SEED) {
            n = snprintf(w, left, " (this game is played with the seed's end rule: its final round starts only when "
                                  "a player must draw from the empty deck)");
            w += n, left -= (size_t)n;
        }
        n = snprintf(w, left, "; ");
        w += n, left -= (size_t)n;
    }
    if (hl_score != score)
        snprintf(w, left, "hanab.live's replay scores %d, this game %d%s", hl_score, score,
                 why == HL_STRIKES ? " (hanab.live scores a game lost to the 3rd error 0; here the cards on the "
                                     "field count)" : "");
    else
        snprintf(w, left, "the score is the same, %d", score);
    static const char *const WHY[] = {"playing", "strikes", "final-round", "nothing-playable"};
    return json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i}", "note", note,
                     "end", st->endrule == HN_RULE_STANDARD ? "standard" : "seed",
                     "hanablive_end", WHY[why], "actions", st->nhist, "exported_actions", kept,
                     "dropped_actions", dropped, "score", score, "hanablive_score", hl_score);
}

int hn_export_hanablive(const hn_state *st, char **out, size_t *len, game_err *e)
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

    hn_state replay, *r = &replay;
    memcpy(r, st, sizeof *r);
    hn_start(r, st->variant, np, st->endrule, f, st->deck, st->ndeck);
    uint8_t gone[HN_MAXDECK] = {0}, marked[HN_MAXDECK] = {0}; /* by our deck index */
    int endturn = -1, why = HL_PLAYING, kept = 0;
    json_t *acts = json_array();
    for (int t = 0; t < st->nhist && why == HL_PLAYING; t++) {
        const hn_hist *hh = &st->hist[t];
        int type, target, value, actor = r->cur, drawn = r->next;
        switch (hh->type) {
        case HN_HINT_COLOR:
            type = 2, target = (hh->target - f + np) % np, value = HL_SUIT[hh->value];
            break;
        case HN_HINT_NUMBER:
            type = 3, target = (hh->target - f + np) % np, value = hh->value;
            break;
        default:
            type = hh->type == HN_PLAY ? 0 : 1;
            target = map[r->order[actor][hh->target]];
            value = 0;
            gone[r->order[actor][hh->target]] = 1;
        }
        json_array_append_new(acts, json_pack("{s:i,s:i,s:i}", "type", type, "target", target, "value", value));
        hn_play p = {hh->type, hh->target, hh->value};
        hn_do(r, &p);
        kept = t + 1;
        if (drawn < r->ndeck && r->next == r->ndeck)
            endturn = t + np + 1; /* hanab.live counts turns from 0 */
        if (endturn >= 0 && endturn != t + np + 1)
            for (int i = 0; i < r->nhand[actor]; i++)
                marked[r->order[actor][i]] = 1;
        if (r->errors >= HN_MAXERRORS)
            why = HL_STRIKES;
        else if (t + 1 == endturn)
            why = HL_FINAL_ROUND;
        else if (hl_nothing_playable(r, gone, marked))
            why = HL_NOTHING_PLAYABLE;
    }
    json_object_set_new(o, "actions", acts);
    json_object_set_new(o, "options", json_pack("{s:s}", "variant",
                                                st->variant ? "Rainbow (6 Suits)" : "No Variant"));
    json_t *diff = hl_difference(st, kept, why, why == HL_STRIKES ? 0 : hn_score(r));
    if (diff)
        json_object_set_new(o, "croupier", diff);
    *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!*out)
        return err_set(e, ERR_INTERNAL, "", "out of memory");
    *len = strlen(*out);
    return 0;
}
