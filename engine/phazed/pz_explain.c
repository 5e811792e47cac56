/* pz_explain.c: the public explanation of a bot's play (game_ops.explain).
 *
 * Every reader is shown it while the game runs, so it is written from the
 * mover's observation with its hand taken out (pz_public): the table, the
 * discard top, the deck's size, the phases done, the hand sizes and this
 * hand's pick-ups from the discard pile; and the play, which names its
 * cards (the phase laid, the card placed or discarded). The strategies'
 * own lines (pz_bots.c, pz_plan.c) weigh the hand -- "it completes its
 * phase", "the card its phase needs least" among those it holds -- and are
 * kept as the record's reasoning. Here a line says what the strategy does
 * by its rule, in its words where the rule is public, and the public facts
 * that bear on the play.
 */
#include "pz.h"
#include "core/voice.h"

#include <stdio.h>
#include <string.h>

/* What a spectator knows of the mover's position. */
static void pz_public(const pz_state *st, int seat, pz_obs *o)
{
    pz_observe(st, seat, o);
    pz_obs_history(st, o);
    memset(o->hand, 0, sizeof o->hand);
    o->nhand = 0;
}

static void pick_deck(const pz_obs *o, char *out, size_t n)
{
    int d = o->discard;
    if (!d)
        snprintf(out, n, "draws from the deck: the discard pile is empty");
    else if (d == PZ_JOKER)
        snprintf(out, n, "draws from the deck: a Skip on the discard pile cannot be taken");
    else if (!o->t.phase[o->seat])
        snprintf(out, n, "draws from the deck: %s, the discard, does not help its phase", pz_card_name(d));
    else if (!pz__can_place(o, d))
        snprintf(out, n, "draws from the deck: %s, the discard, fits no group on the table", pz_card_name(d));
    else
        snprintf(out, n, "draws from the deck rather than take %s", pz_card_name(d));
}

static void pick_discard(const pz_obs *o, const pz_play *p, char *out, size_t n)
{
    const char *c = pz_card_name(p->card);
    if (o->t.phase[o->seat] && pz__can_place(o, p->card))
        snprintf(out, n, "takes %s from the discard pile: it goes on the table at once", c);
    else if (o->t.phase[o->seat])
        snprintf(out, n, "takes %s from the discard pile rather than a card from the deck", c);
    else if (pz_wild(p->card))
        snprintf(out, n, "takes %s from the discard pile: a Wild stands in for any card of its phase", c);
    else
        snprintf(out, n, "takes %s from the discard pile: it helps its phase", c);
}

static void discard(const pz_obs *o, const pz_play *p, int planner, char *out, size_t n)
{
    const char *c = pz_card_name(p->card);
    int wanted = pz__feeds_next(o, p->card);
    if (!o->t.phase[o->seat])
        snprintf(out, n, "discards %s: the card its phase needs least%s", c,
                 planner && !wanted ? " and the next player does not want" : "");
    else
        snprintf(out, n, "discards %s: the costliest card %s", c,
                 planner && !wanted ? "the next player cannot place" : "that fits no group");
}

void pz_explain(const void *vst, int seat, const json_t *play, const char *strategy, char *out,
                size_t n)
{
    const pz_state *st = vst;
    pz_obs o;
    pz_play p;
    game_err e = {0};
    char text[200];
    pz_public(st, seat, &o);
    if (pz_play_parse(play, st->variant, &p, &e)) {
        snprintf(out, n, "makes a play");
        return;
    }
    pz_play_text(&p, text, sizeof text);
    int planner = strcmp(strategy, "planner") == 0;
    if (strcmp(strategy, "random") == 0) {
        snprintf(out, n, "%s (a random play of a random kind)", text);
        return;
    }
    switch (p.type) {
    case PZ_PICK_DECK:
        pick_deck(&o, out, n);
        break;
    case PZ_PICK_DISCARD:
        pick_discard(&o, &p, out, n);
        break;
    case PZ_PHASE:
        snprintf(out, n, "%s (as soon as it is complete%s)", text,
                 planner && st->variant ? ", the hardest phase it can play" : "");
        break;
    case PZ_PLACE:
        snprintf(out, n, "%s to shed %d points", text, pz_card_points(p.card));
        break;
    case PZ_DISCARD:
        discard(&o, &p, planner, out, n);
        break;
    case PZ_SKIP:
        snprintf(out, n, "%s%s", text, p.target == pz__skip_target(&o) ? ", the closest to finishing" : "");
        break;
    default:
        snprintf(out, n, "%s", text);
    }
}

/* A strategy's line said to the player, for help mode (voice_to_player):
 * the bot's "its phase" and "it can play" the player's. */
void pz_to_player(const char *line, char *out, size_t n)
{
    static const char *const WORD[][2] = {{"its phase", "your phase"}, {"it can play", "you can play"}};
    voice_to_player(line, WORD, sizeof WORD / sizeof WORD[0], out, n);
}
