/* pz_guide.c: Phazed for players (game.h, game_guide): the lobby's and the
 * Rules panel's words. No notation here: that is rules()'s. */
#include "game.h"

static const game_guide_row VARIANTS[] = {
    {"standard", "The seven phases in order, one a hand; Aces are wild.", NULL},
    {"bonus", "The phases in any order, each once; four jokers make another player skip their next "
              "turn.", NULL},
    {NULL, NULL, NULL},
};

static const game_guide_row BOTS[] = {
    {"planner", "The strongest: keeps the cards with the most ways to finish its phase, lays the phase "
                "that leaves it the fewest cards and never discards what the next player needs.", NULL},
    {"greedy", "Keeps the cards closest to its phase, lays it at once and sheds its costliest cards.",
     NULL},
    {"random", "Makes any legal play at random.", NULL},
    {NULL, NULL, NULL},
};

static const char *const TURN[] = {
    "Each hand you are dealt 10 cards. A turn: pick up the top card of the deck or of the discard "
    "pile, lay your phase if you can, add cards to groups on the table once your phase is down, "
    "then discard one card.",
    "The phases: 1 two sets of three of a value; 2 seven cards of one suit; 3 two groups adding up "
    "to 34; 4 two sets of four of a value; 5 a run of eight; 6 two groups of one colour adding up to "
    "34; 7 a run of four of one colour and a set of four of a value.",
    "Aces are wild, but every group needs at least two natural cards. Runs wrap from King to 2.",
    "A hand ends when a player has no cards left; everyone else counts the cards they still hold "
    "(Aces 25).",
    NULL,
};

static const char *const WINNING[] = {
    "The game ends after the hand in which someone completes all seven phases, or after 20 hands.",
    "The winner has the fewest points among those who completed them (or among everyone after 20 "
    "hands).",
    NULL,
};

const game_guide pz_guide = {
    .summary = "A Phase 10 variant from a programming course: lay seven phases of sets, runs and "
               "totals, one a hand, and keep your points low.",
    .length = "2 to 4 players; a game lasts 7 to 20 hands, about 30 to 60 minutes.",
    .variants = VARIANTS,
    .bots = BOTS,
    .turn = TURN,
    .winning = WINNING,
};
